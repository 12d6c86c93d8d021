//! The wire, the ground floor: what travels between a client and the server, with no
//! knowledge of resources. Bodies (`body`), media types and content negotiation (`media`),
//! JSON and Kubernetes' protobuf encodings (`encoding`, `protobuf`), query parameters
//! (`query`), the `Status` of a failure (`status`) and the responses that carry them
//! (`response`).

pub(crate) mod body;
pub(crate) mod channels;
pub(crate) mod encoding;
pub(crate) mod media;
#[cfg(feature = "protobuf")]
pub(crate) mod protobuf;
pub(crate) mod query;
pub(crate) mod response;
pub(crate) mod spdy;
pub(crate) mod status;
