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
pub struct Body(Inner, Option<Held>);

/// What a body keeps while it lives (a watch's place among its identity's, `router::limits`).
struct Held {
    _kept: Box<dyn Send + Sync>,
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Held")
    }
}

#[derive(Debug)]
enum Inner {
    Full(Option<Bytes>),
    Stream(mpsc::Receiver<Bytes>),
}

impl Body {
    /// A complete body.
    pub fn full(bytes: impl Into<Bytes>) -> Body {
        Body(Inner::Full(Some(bytes.into())), None)
    }

    /// The bytes of a complete body (`None` for a stream).
    pub(crate) fn bytes(&self) -> Option<&Bytes> {
        match &self.0 {
            Inner::Full(bytes) => bytes.as_ref(),
            Inner::Stream(_) => None,
        }
    }

    /// This body, keeping `held` until it is dropped.
    #[must_use]
    pub(crate) fn holding(mut self, held: impl Send + Sync + 'static) -> Body {
        self.1 = Some(Held {
            _kept: Box::new(held),
        });
        self
    }

    /// A body whose chunks arrive on `receiver`.
    pub(crate) fn stream(receiver: mpsc::Receiver<Bytes>) -> Body {
        Body(Inner::Stream(receiver), None)
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
