//! Decoding responses, sans-io: generated decoders map a status code and the body bytes to
//! the operation's declared type. Error statuses become [`ResponseError::Status`] when the
//! body is a Kubernetes `Status` object, and a [`ResponseError::UnexpectedStatus`] carrying
//! the body as text otherwise (a proxy's HTML page, a load balancer's plain text). Nothing here panics on what the network sends.

use std::fmt;

use http::StatusCode;
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// Why a response could not be decoded into the operation's result. `S` is the API's
/// `Status` type.
#[derive(Debug)]
#[non_exhaustive]
pub enum ResponseError<S> {
    /// The server answered with a `Status` object: an error, such as 404 NotFound or
    /// 409 AlreadyExists, with its reason and message.
    Status {
        /// The HTTP status.
        status: StatusCode,
        /// The decoded `Status`.
        body: Box<S>,
    },
    /// The status is not one the operation declares, and the body is not a `Status`
    /// (for example an HTML error page from a proxy).
    UnexpectedStatus {
        /// The HTTP status.
        status: StatusCode,
        /// The body, as text (invalid UTF-8 replaced).
        body: String,
    },
    /// The status is declared, but the body is not the declared type.
    Decode {
        /// The HTTP status.
        status: StatusCode,
        /// What was wrong with the body.
        error: DecodeError,
    },
}

impl<S> ResponseError<S> {
    /// The HTTP status of the response.
    pub fn status(&self) -> StatusCode {
        match self {
            ResponseError::Status { status, .. }
            | ResponseError::UnexpectedStatus { status, .. }
            | ResponseError::Decode { status, .. } => *status,
        }
    }
}

impl<S: fmt::Debug> fmt::Display for ResponseError<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResponseError::Status { status, body } => {
                write!(f, "the server answered {status}: {body:?}")
            }
            ResponseError::UnexpectedStatus { status, body } if body.is_empty() => {
                write!(
                    f,
                    "the server answered {status}, which this operation does not declare, with an empty body"
                )
            }
            ResponseError::UnexpectedStatus { status, body } => write!(
                f,
                "the server answered {status}, which this operation does not declare, with a body that is not a Status: {body:?}"
            ),
            ResponseError::Decode { status, error } => {
                write!(
                    f,
                    "cannot decode the body of the {status} response: {error}"
                )
            }
        }
    }
}

impl<S: fmt::Debug> std::error::Error for ResponseError<S> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ResponseError::Decode { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// What was wrong with a response body.
#[derive(Debug)]
#[non_exhaustive]
pub enum DecodeError {
    /// It is not the declared JSON type.
    Json(serde_json::Error),
    /// A text body is not UTF-8.
    Utf8(std::str::Utf8Error),
    /// A watch stream ended inside an event: this many bytes of it had arrived.
    Incomplete(usize),
    /// It is not the declared type's protobuf message (`protobuf` feature): the byte
    /// offset and the field path.
    #[cfg(feature = "protobuf")]
    Protobuf(crate::protobuf_error::DecodeError),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Json(e) => write!(f, "invalid JSON for the declared type: {e}"),
            DecodeError::Utf8(e) => write!(f, "the text is not UTF-8: {e}"),
            DecodeError::Incomplete(bytes) => write!(
                f,
                "the watch stream ended inside an event, after {bytes} bytes of it"
            ),
            #[cfg(feature = "protobuf")]
            DecodeError::Protobuf(e) => write!(f, "invalid protobuf for the declared type: {e}"),
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DecodeError::Json(e) => Some(e),
            DecodeError::Utf8(e) => Some(e),
            DecodeError::Incomplete(_) => None,
            #[cfg(feature = "protobuf")]
            DecodeError::Protobuf(e) => Some(e),
        }
    }
}

/// A JSON body of type `T`.
///
/// # Errors
///
/// [`ResponseError::Decode`] when the body is not a `T`.
pub fn json<T: DeserializeOwned, S>(
    status: StatusCode,
    body: &[u8],
) -> Result<T, ResponseError<S>> {
    serde_json::from_slice(body).map_err(|e| ResponseError::Decode {
        status,
        error: DecodeError::Json(e),
    })
}

/// What a delete answers: the API server sends a `Status` when the object (or collection)
/// is gone, and the object itself (the list, for a collection) when deletion has only
/// begun: finalizers are pending, `propagationPolicy=Foreground` was asked for, or the
/// resource is a `CustomResourceDefinition`. The body's `kind` tells which.
///
/// See <https://kubernetes.io/docs/reference/using-api/api-concepts/#object-lifetime> and
/// <https://kubernetes.io/docs/concepts/overview/working-with-objects/finalizers/>.
#[derive(Clone, Debug, PartialEq)]
pub enum StatusOr<T, S> {
    /// The body is a `Status` (`kind: Status`), usually `Success`.
    Status(S),
    /// The body is the object, or the list, in its state after the request.
    Object(T),
}

impl<T, S> StatusOr<T, S> {
    /// The object, when the server answered with it.
    #[must_use]
    pub fn object(self) -> Option<T> {
        match self {
            StatusOr::Object(object) => Some(object),
            StatusOr::Status(_) => None,
        }
    }

    /// The `Status`, when the server answered with one.
    #[must_use]
    pub fn status(self) -> Option<S> {
        match self {
            StatusOr::Status(status) => Some(status),
            StatusOr::Object(_) => None,
        }
    }
}

/// A JSON body that is a `Status` when its `kind` is `Status`, and a `T` otherwise.
///
/// # Errors
///
/// [`ResponseError::Decode`] when the body is not JSON, or not the type its `kind` says.
pub fn status_or<T: DeserializeOwned, S: DeserializeOwned>(
    status: StatusCode,
    body: &[u8],
) -> Result<StatusOr<T, S>, ResponseError<S>> {
    let probe: KindProbe = json(status, body)?;
    if probe.kind.as_deref() == Some("Status") {
        json(status, body).map(StatusOr::Status)
    } else {
        json(status, body).map(StatusOr::Object)
    }
}

/// A plain-text body, such as a container log.
///
/// # Errors
///
/// [`ResponseError::Decode`] when the body is not UTF-8.
pub fn text<S>(status: StatusCode, body: &[u8]) -> Result<String, ResponseError<S>> {
    std::str::from_utf8(body)
        .map(str::to_owned)
        .map_err(|e| ResponseError::Decode {
            status,
            error: DecodeError::Utf8(e),
        })
}

/// A body the operation declares empty; whatever was sent is ignored.
///
/// # Errors
///
/// Never; the signature matches the other decoders.
pub fn empty<S>(_status: StatusCode, _body: &[u8]) -> Result<(), ResponseError<S>> {
    Ok(())
}

/// The events of a complete watch response body: JSON objects one after another (servers
/// put a newline after each).
///
/// # Errors
///
/// [`ResponseError::Decode`] at the first event that is not an `E`, or at a truncated
/// last event; use [`WatchDecoder`](crate::WatchDecoder) for a stream read as it arrives.
pub fn watch_events<E: DeserializeOwned, S>(
    status: StatusCode,
    body: &[u8],
) -> Result<Vec<E>, ResponseError<S>> {
    serde_json::Deserializer::from_slice(body)
        .into_iter::<E>()
        .collect::<Result<Vec<E>, _>>()
        .map_err(|e| ResponseError::Decode {
            status,
            error: DecodeError::Json(e),
        })
}

#[derive(Deserialize)]
struct KindProbe {
    kind: Option<String>,
}

/// The one decoding every generated response decoder does: `read` the body when the
/// status is one of `successes`, and the error it holds otherwise.
///
/// The statuses come by value (`[200, 201]`), not as a slice: a borrowed `&[200]` in a
/// generated decoder is promoted to a constant, a MIR body of its own that rustc builds,
/// checks and keeps for each of the crate's decoders.
///
/// # Errors
///
/// [`ResponseError::Status`] (or [`ResponseError::UnexpectedStatus`]) for another status;
/// `read`'s error.
pub fn decode<T, S: DeserializeOwned, const N: usize>(
    status: StatusCode,
    body: &[u8],
    successes: [u16; N],
    read: fn(StatusCode, &[u8]) -> Result<T, ResponseError<S>>,
) -> Result<T, ResponseError<S>> {
    if successes.contains(&status.as_u16()) {
        read(status, body)
    } else {
        Err(error(status, body))
    }
}

/// The decoding of an operation that declares no success response: any 2xx status, with
/// the body ignored.
///
/// # Errors
///
/// [`ResponseError::Status`] (or [`ResponseError::UnexpectedStatus`]) for another status.
pub fn any_success<S: DeserializeOwned>(
    status: StatusCode,
    body: &[u8],
) -> Result<(), ResponseError<S>> {
    if status.is_success() {
        Ok(())
    } else {
        Err(error(status, body))
    }
}

/// The error for a status the operation does not declare as a success: the `Status` the body
/// holds, or an [`ResponseError::UnexpectedStatus`] with the body as text.
pub fn error<S: DeserializeOwned>(status: StatusCode, body: &[u8]) -> ResponseError<S> {
    let is_status = serde_json::from_slice::<KindProbe>(body)
        .is_ok_and(|probe| probe.kind.as_deref() == Some("Status"));
    if is_status {
        match serde_json::from_slice::<S>(body) {
            Ok(decoded) => {
                return ResponseError::Status {
                    status,
                    body: Box::new(decoded),
                };
            }
            Err(e) => {
                return ResponseError::Decode {
                    status,
                    error: DecodeError::Json(e),
                };
            }
        }
    }
    ResponseError::UnexpectedStatus {
        status,
        body: String::from_utf8_lossy(body).into_owned(),
    }
}
