//! The server as a `tower::Service`: lets the request through the cap on requests in flight
//! and its identity's limits (else 429, `limits`), reads the body (up to the limit, else
//! 413) and answers.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::{Request, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};

use crate::router::Server;
use crate::router::filters::request_info;
use crate::router::limits::too_many_requests;
use crate::router::streams::{Session, run};
use crate::wire::body::Body;
use crate::wire::encoding;
use crate::wire::response::failure_response;
use crate::wire::status::Failure;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl<B> tower_service::Service<Request<B>> for Server
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let server = self.clone();
        Box::pin(async move { Ok(server.call_async(request).await) })
    }
}

impl Server {
    /// Answers a request, reading its body first (see [`Server::handle`]).
    pub async fn call_async<B>(&self, request: Request<B>) -> Response<Body>
    where
        B: http_body::Body,
        B::Error: Into<BoxError>,
    {
        let (mut parts, body) = request.into_parts();
        // The connection hyper hands over once an upgrade's answer is sent (`pods/exec`).
        let upgrade = parts.extensions.remove::<hyper::upgrade::OnUpgrade>();
        // The flow control filter's place: after authentication and impersonation (whose
        // refusals `handle` answers), before the body is read. A place in flight is held
        // while the body is read and the request handled.
        let mut slot = None;
        let mut in_flight = None;
        // Authenticated once: the handler is given who the request is.
        let identity = self.identify(&parts);
        if let Ok(user) = &identity {
            let info = request_info(&parts);
            let options = &self.shared.options;
            match self.limits.in_flight(options, user, &info) {
                Ok(place) => in_flight = place,
                Err(retry_after) => return too_many_requests(retry_after),
            }
            let watch = info.verb == "watch";
            match self.limits.throttle(options, user, watch) {
                Ok(held) => slot = held,
                Err(retry_after) => return too_many_requests(retry_after),
            }
        }
        let limit = self.shared.options.body_limit;
        let response = match Limited::new(body, limit).collect().await {
            // The work itself runs on a blocking thread, so a request whose work is heavy
            // never holds a runtime worker, and with it other connections and the shutdown.
            Ok(collected) => {
                let server = self.clone();
                let bytes = collected.to_bytes();
                let response =
                    tokio::task::spawn_blocking(move || server.handle_as(&parts, &bytes, identity))
                        .await
                        .unwrap_or_else(|_| {
                            failure_response(&Failure::internal("the request's handler failed"))
                        });
                // A watch that streams keeps its identity's slot until its client goes.
                match slot {
                    Some(slot) if response.body().bytes().is_none() => {
                        response.map(|body| body.holding(slot))
                    }
                    _ => response,
                }
            }
            Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => {
                encoding::failure_negotiated(
                    &self.shared.options.protobuf,
                    &parts,
                    &Failure::too_large(limit),
                )
            }
            Err(error) => encoding::failure_negotiated(
                &self.shared.options.protobuf,
                &parts,
                &Failure::bad_request(format!("reading the request body failed: {error}")),
            ),
        };
        drop(in_flight);
        let mut response = response;
        if let Some(session) = response.extensions_mut().remove::<Session>() {
            match upgrade {
                Some(upgrade) => {
                    tokio::spawn(run(upgrade, session));
                }
                // Served in process, not over a connection: nothing to upgrade.
                None => {
                    return failure_response(&Failure::bad_request(
                        "unable to upgrade connection: the request did not come over HTTP/1.1",
                    ));
                }
            }
        }
        response
    }
}
