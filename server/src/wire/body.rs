//! The response body: a whole JSON document, or a watch's events as they happen.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::Frame;
use tokio::sync::mpsc;

/// A response body: complete, or a stream fed by a watch task. Dropping it (the client
/// went away) closes the channel, and the watch task ends.
#[derive(Debug)]
pub struct Body(Inner);

#[derive(Debug)]
enum Inner {
    Full(Option<Bytes>),
    Stream(mpsc::Receiver<Bytes>),
}

impl Body {
    /// A complete body.
    pub fn full(bytes: impl Into<Bytes>) -> Body {
        Body(Inner::Full(Some(bytes.into())))
    }

    /// The bytes of a complete body (`None` for a stream).
    pub(crate) fn bytes(&self) -> Option<&Bytes> {
        match &self.0 {
            Inner::Full(bytes) => bytes.as_ref(),
            Inner::Stream(_) => None,
        }
    }

    /// A body whose chunks arrive on `receiver`.
    pub(crate) fn stream(receiver: mpsc::Receiver<Bytes>) -> Body {
        Body(Inner::Stream(receiver))
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.get_mut().0 {
            Inner::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Inner::Stream(receiver) => receiver
                .poll_recv(cx)
                .map(|chunk| chunk.map(|b| Ok(Frame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(&self.0, Inner::Full(None))
    }
}
