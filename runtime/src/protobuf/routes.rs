//! Protobuf through the generated route functions, as client-go negotiates it: generic
//! helpers around what every operation already builds and decodes, so that the generated
//! crate emits nothing more per operation.
//!
//! - [`accept`] asks for protobuf, JSON as the fallback (`Accept:
//!   application/vnd.kubernetes.protobuf, application/json`), on any request a route
//!   function built;
//! - [`with_body`] sends the request's body in protobuf (in its `k8s\0` envelope);
//! - [`decode`] reads a response by its `Content-Type`: protobuf with the body type's
//!   message, JSON with the operation's own decoder; an error status's `Status` in either;
//! - [`watch`] reads a watch stream by its `Content-Type`: protobuf frames
//!   ([`WatchFrames`]) or the operation's JSON [`WatchDecoder`], as the
//!   bytes arrive.

use http::header::{ACCEPT, CONTENT_TYPE as CONTENT_TYPE_HEADER, HeaderValue};
use http::{Request, StatusCode};

use super::{CONTENT_TYPE, DecodeError, Message, WatchFrames, decode_envelope, decode_object};
use crate::response::{DecodeError as BodyError, ResponseError, StatusOr};
use crate::{TypeMeta, WatchDecoder, WatchEvent};

/// What client-go sends for a type with a protobuf message: protobuf, or JSON when the
/// server has no protobuf for it (a custom resource).
pub const ACCEPT_PROTOBUF: &str = "application/vnd.kubernetes.protobuf, application/json";

/// `request` asking for protobuf first and JSON second: its `Accept` header, when it asks
/// for JSON, becomes [`ACCEPT_PROTOBUF`]. A request asking for something else (a log's text)
/// is left as it is.
#[must_use]
pub fn accept(mut request: Request<Vec<u8>>) -> Request<Vec<u8>> {
    let headers = request.headers_mut();
    if headers
        .get(ACCEPT)
        .is_some_and(|value| value.as_bytes() == crate::request::JSON.as_bytes())
    {
        headers.insert(ACCEPT, HeaderValue::from_static(ACCEPT_PROTOBUF));
    }
    request
}

/// `request` with `object` as its body in protobuf, in the envelope naming its kind, and
/// its `Content-Type` protobuf; what it asks for ([`accept`]) is unchanged.
#[must_use]
pub fn with_body<T: Message + TypeMeta>(
    mut request: Request<Vec<u8>>,
    object: &T,
) -> Request<Vec<u8>> {
    *request.body_mut() = super::encode_object(object);
    request
        .headers_mut()
        .insert(CONTENT_TYPE_HEADER, HeaderValue::from_static(CONTENT_TYPE));
    request
}

/// Whether a `Content-Type` is Kubernetes' protobuf (a watch's says `;stream=watch`).
#[must_use]
pub fn is_protobuf(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|value| {
        value
            .split(';')
            .next()
            .is_some_and(|media| media.trim().eq_ignore_ascii_case(CONTENT_TYPE))
    })
}

/// A response body with a protobuf message: an object or a list in its envelope, or a
/// `Status` or an object by the envelope's kind ([`StatusOr`]).
pub trait ResponseBody: Sized {
    /// Reads the body, envelope included.
    ///
    /// # Errors
    /// A bad envelope, one naming another kind, or a message that does not read.
    fn decode_protobuf(body: &[u8]) -> Result<Self, DecodeError>;
}

impl<T: Message + TypeMeta> ResponseBody for T {
    fn decode_protobuf(body: &[u8]) -> Result<Self, DecodeError> {
        decode_object(body)
    }
}

impl<T: Message + TypeMeta, S: Message> ResponseBody for StatusOr<T, S> {
    fn decode_protobuf(body: &[u8]) -> Result<Self, DecodeError> {
        let envelope = decode_envelope(body)?;
        if envelope.kind == "Status" {
            read_status(body).map(StatusOr::Status)
        } else {
            decode_object(body).map(StatusOr::Object)
        }
    }
}

/// A `Status` from its envelope, whichever version the envelope names.
fn read_status<S: Message>(body: &[u8]) -> Result<S, DecodeError> {
    let envelope = decode_envelope(body)?;
    let mut status = S::decode(envelope.raw).map_err(|e| e.shifted(envelope.raw_offset))?;
    status.set_type_meta();
    Ok(status)
}

/// Decodes a response by its `Content-Type`: protobuf with `T`'s message (a success) or
/// the `Status` it holds (an error status), anything else with `json`, the operation's
/// generated decoder (`Pod::read_namespaced_pod_response`).
///
/// # Errors
/// [`ResponseError::Status`] with the server's `Status` for an error status,
/// [`ResponseError::UnexpectedStatus`] when its body is not a `Status`, and
/// [`ResponseError::Decode`] with the byte offset and field path when a protobuf body does
/// not read; `json`'s errors for a JSON body.
pub fn decode<T: ResponseBody, S: Message>(
    status: StatusCode,
    content_type: Option<&str>,
    body: &[u8],
    json: fn(StatusCode, &[u8]) -> Result<T, ResponseError<S>>,
) -> Result<T, ResponseError<S>> {
    if !is_protobuf(content_type) {
        return json(status, body);
    }
    if status.is_success() {
        T::decode_protobuf(body).map_err(|e| ResponseError::Decode {
            status,
            error: BodyError::Protobuf(e),
        })
    } else {
        Err(error(status, body))
    }
}

/// The error a protobuf body of an error status holds: its `Status`, or the body as text
/// when it is not one.
pub fn error<S: Message>(status: StatusCode, body: &[u8]) -> ResponseError<S> {
    match decode_envelope(body) {
        Ok(envelope) if envelope.kind == "Status" => match read_status(body) {
            Ok(decoded) => ResponseError::Status {
                status,
                body: Box::new(decoded),
            },
            Err(e) => ResponseError::Decode {
                status,
                error: BodyError::Protobuf(e),
            },
        },
        _ => ResponseError::UnexpectedStatus {
            status,
            body: String::from_utf8_lossy(body).into_owned(),
        },
    }
}

/// A watch response's decoder, chosen by its `Content-Type`: protobuf frames, or the
/// operation's JSON decoder. Feed it the body's chunks as they arrive.
#[derive(Debug)]
pub enum Watch<T, S> {
    /// A JSON stream (`application/json`, or a server without protobuf for the type).
    Json(WatchDecoder<T, S>),
    /// A protobuf stream.
    Protobuf {
        /// The response's status.
        status: StatusCode,
        /// The frames read so far.
        frames: WatchFrames,
        /// The body of an error status, kept for [`Watch::finish`].
        body: Vec<u8>,
    },
}

/// The decoder for a watch response with this status and `Content-Type`; `json` is the
/// operation's generated decoder (`Pod::watch_list_namespaced_pod_decoder`).
pub fn watch<T, S>(
    status: StatusCode,
    content_type: Option<&str>,
    json: fn(StatusCode) -> WatchDecoder<T, S>,
) -> Watch<T, S> {
    if is_protobuf(content_type) {
        Watch::Protobuf {
            status,
            frames: WatchFrames::new(),
            body: Vec::new(),
        }
    } else {
        Watch::Json(json(status))
    }
}

impl<T, S> Watch<T, S>
where
    T: Message + TypeMeta + serde::de::DeserializeOwned,
    S: Message + serde::de::DeserializeOwned,
{
    /// Reads the next chunk and returns the events it completes, each an event or the error
    /// decoding it; decoding goes on after an error.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Result<WatchEvent<T, S>, ResponseError<S>>> {
        match self {
            Watch::Json(decoder) => decoder.feed(chunk),
            Watch::Protobuf { status, body, .. } if !status.is_success() => {
                body.extend_from_slice(chunk);
                Vec::new()
            }
            Watch::Protobuf { status, frames, .. } => {
                frames.push(chunk);
                let status = *status;
                std::iter::from_fn(|| frames.next_event::<T, S>())
                    .map(|event| {
                        event.map_err(|e| ResponseError::Decode {
                            status,
                            error: BodyError::Protobuf(e),
                        })
                    })
                    .collect()
            }
        }
    }

    /// Ends the stream.
    ///
    /// # Errors
    /// For an error status, the error its body holds; for a success,
    /// [`BodyError::Incomplete`] when the stream ended inside an event.
    pub fn finish(self) -> Result<(), ResponseError<S>> {
        match self {
            Watch::Json(decoder) => decoder.finish(),
            Watch::Protobuf { status, body, .. } if !status.is_success() => {
                Err(error(status, &body))
            }
            Watch::Protobuf { status, frames, .. } => match frames.pending() {
                0 => Ok(()),
                bytes => Err(ResponseError::Decode {
                    status,
                    error: BodyError::Incomplete(bytes),
                }),
            },
        }
    }
}
