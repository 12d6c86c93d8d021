//! Request bodies and responses in the encoding a client chose: JSON, or Kubernetes'
//! protobuf (`protobuf.rs`, feature `protobuf`) for the kinds that have messages.

use http::{Response, StatusCode};
use serde_json::Value;

use crate::wire::body::Body;
use crate::wire::media;
use crate::wire::response::{failure_response, json_response};
use crate::wire::status::Failure;

/// The protobuf messages a server reads and writes Kubernetes' protobuf encoding with
/// ([`Options::protobuf`](crate::Options::protobuf)): by default the built-in ones, the
/// `.proto` files of Kubernetes 1.35 (feature `protobuf`); or those of the `.proto` files
/// of the API it serves ([`Protobuf::from_proto_dir`]), so that a kind or a field newer
/// than the built-in messages travels in protobuf too, byte for byte as kube-apiserver
/// writes it.
#[derive(Clone, Default)]
pub struct Protobuf {
    #[cfg(feature = "protobuf")]
    schema: Option<std::sync::Arc<crate::wire::protobuf::Schema>>,
}

impl std::fmt::Debug for Protobuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        #[cfg(feature = "protobuf")]
        if let Some(schema) = &self.schema {
            return write!(f, "Protobuf({} messages)", schema.message_count());
        }
        f.write_str("Protobuf(built-in)")
    }
}

impl Protobuf {
    /// The messages of the `.proto` files under `dir`, laid out by import path
    /// (`k8s.io/api/core/v1/generated.proto`, `k8s.io/apimachinery/…`), as `kubeforge
    /// --proto` reads them, compiled with protox.
    ///
    /// # Errors
    ///
    /// When a file cannot be read or does not compile, or there is none; without the
    /// feature `protobuf`, always.
    pub fn from_proto_dir(dir: &std::path::Path) -> Result<Protobuf, String> {
        #[cfg(feature = "protobuf")]
        {
            let schema = crate::wire::protobuf::Schema::from_proto_dir(dir)?;
            Ok(Protobuf {
                schema: Some(std::sync::Arc::new(schema)),
            })
        }
        #[cfg(not(feature = "protobuf"))]
        {
            Err(format!(
                "{}: kubeforge-server was built without its feature `protobuf`",
                dir.display()
            ))
        }
    }

    #[cfg(feature = "protobuf")]
    fn schema(&self) -> &crate::wire::protobuf::Schema {
        match &self.schema {
            Some(schema) => schema,
            None => crate::wire::protobuf::builtin(),
        }
    }

    /// Whether a kind has a protobuf encoding (the built-in kinds do).
    pub(crate) fn has_kind(&self, group: &str, version: &str, kind: &str) -> bool {
        #[cfg(feature = "protobuf")]
        {
            crate::wire::protobuf::message_of(self.schema(), group, version, kind).is_some()
        }
        #[cfg(not(feature = "protobuf"))]
        {
            let _ = (group, version, kind);
            false
        }
    }
}

/// The JSON of a create, update or delete body sent in another encoding (`None`: it is
/// JSON already). Protobuf is read for kinds that have it; other media types are refused
/// with 415, as the API server refuses a body it cannot decode.
pub(crate) fn request_body(
    codec: &Protobuf,
    parts: &http::request::Parts,
    body: &[u8],
    protobuf: bool,
    verb: &str,
) -> Result<Option<Vec<u8>>, Failure> {
    let content_type = media::content_type(parts);
    if content_type.is_empty() || content_type == media::JSON || content_type.ends_with("+json") {
        return Ok(None);
    }
    // A delete's body is `DeleteOptions`, which has a message whatever the kind.
    let deleting = verb == "delete" || verb == "deletecollection";
    #[cfg(feature = "protobuf")]
    if content_type == media::PROTOBUF && (protobuf || deleting) {
        if body.is_empty() {
            return Ok(None);
        }
        let object = crate::wire::protobuf::decode(codec.schema(), body).map_err(|e| {
            Failure::bad_request(format!(
                "the body of the request is not valid protobuf: {e}"
            ))
        })?;
        return serde_json::to_vec(&object)
            .map(Some)
            .map_err(|e| Failure::internal(e.to_string()));
    }
    #[cfg(not(feature = "protobuf"))]
    let _ = (codec, body, deleting);
    let accepted = if protobuf {
        "application/json, application/vnd.kubernetes.protobuf"
    } else {
        "application/json"
    };
    Err(Failure::unsupported_media_type(format!(
        "the body of the request was in an unknown format - accepted media types include: {accepted}"
    )))
}

/// An answer in protobuf; JSON when the value has no message (which `negotiate` rules out
/// for objects of the resource, but a `Status` of another group may reach here).
pub(crate) fn protobuf_response(
    codec: &Protobuf,
    code: StatusCode,
    value: &Value,
) -> Response<Body> {
    #[cfg(feature = "protobuf")]
    if let Ok(bytes) = crate::wire::protobuf::encode(codec.schema(), value) {
        let mut response = Response::new(Body::full(bytes));
        *response.status_mut() = code;
        response.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static(media::PROTOBUF),
        );
        return response;
    }
    #[cfg(not(feature = "protobuf"))]
    let _ = codec;
    json_response(code, value)
}

/// One event of a protobuf watch stream.
pub(crate) fn watch_frame(codec: &Protobuf, kind: &str, object: &Value) -> bytes::Bytes {
    #[cfg(feature = "protobuf")]
    if let Ok(frame) = crate::wire::protobuf::watch_frame(codec.schema(), kind, object) {
        return bytes::Bytes::from(frame);
    }
    #[cfg(not(feature = "protobuf"))]
    let _ = codec;
    let mut line = serde_json::json!({"type": kind, "object": object}).to_string();
    line.push('\n');
    bytes::Bytes::from(line)
}

/// A failure's `Status` in the encoding the request negotiates (`media::error_in_protobuf`):
/// protobuf, in the envelope as `v1` `Status`, when the client asked for it first, as
/// kube-apiserver's `ErrorNegotiated` answers; JSON otherwise, and always for a 406 (the
/// negotiation that failed is the one the error would be written with: `WriteRawJSON`). A
/// suggested wait is also a `Retry-After` header, in either.
pub(crate) fn failure_negotiated(
    codec: &Protobuf,
    parts: &http::request::Parts,
    failure: &Failure,
) -> Response<Body> {
    #[cfg(feature = "protobuf")]
    if failure.code != 406
        && media::error_in_protobuf(parts)
        && let Ok(bytes) = crate::wire::protobuf::encode(codec.schema(), &failure.to_status())
    {
        let (mut head, _) = failure_response(failure).into_parts();
        head.headers.insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static(media::PROTOBUF),
        );
        return Response::from_parts(head, Body::full(bytes));
    }
    #[cfg(not(feature = "protobuf"))]
    let _ = (codec, parts);
    failure_response(failure)
}
