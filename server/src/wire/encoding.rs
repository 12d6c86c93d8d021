//! Request bodies and responses in the encoding a client chose: JSON, or Kubernetes'
//! protobuf (`protobuf.rs`, feature `protobuf`) for the kinds that have messages.

use http::{Response, StatusCode};
use serde_json::Value;

use crate::wire::body::Body;
use crate::wire::media;
use crate::wire::response::json_response;
use crate::wire::status::Failure;

/// Whether a kind has a protobuf encoding (the built-in kinds do).
pub(crate) fn protobuf_kind(group: &str, version: &str, kind: &str) -> bool {
    #[cfg(feature = "protobuf")]
    {
        crate::wire::protobuf::message_of(group, version, kind).is_some()
    }
    #[cfg(not(feature = "protobuf"))]
    {
        let _ = (group, version, kind);
        false
    }
}

/// The JSON of a create, update or delete body sent in another encoding (`None`: it is
/// JSON already). Protobuf is read for kinds that have it; other media types are refused
/// with 415, as the API server refuses a body it cannot decode.
pub(crate) fn request_body(
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
        let object = crate::wire::protobuf::decode(body).map_err(|e| {
            Failure::bad_request(format!(
                "the body of the request is not valid protobuf: {e}"
            ))
        })?;
        return serde_json::to_vec(&object)
            .map(Some)
            .map_err(|e| Failure::internal(e.to_string()));
    }
    #[cfg(not(feature = "protobuf"))]
    let _ = (body, deleting);
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
pub(crate) fn protobuf_response(code: StatusCode, value: &Value) -> Response<Body> {
    #[cfg(feature = "protobuf")]
    if let Ok(bytes) = crate::wire::protobuf::encode(value) {
        let mut response = Response::new(Body::full(bytes));
        *response.status_mut() = code;
        response.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static(media::PROTOBUF),
        );
        return response;
    }
    json_response(code, value)
}

/// One event of a protobuf watch stream.
pub(crate) fn watch_frame(kind: &str, object: &Value) -> bytes::Bytes {
    #[cfg(feature = "protobuf")]
    if let Ok(frame) = crate::wire::protobuf::watch_frame(kind, object) {
        return bytes::Bytes::from(frame);
    }
    let mut line = serde_json::json!({"type": kind, "object": object}).to_string();
    line.push('\n');
    bytes::Bytes::from(line)
}
