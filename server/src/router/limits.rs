//! The limits that keep the server up, past the body's size (`service`): each identity's
//! request rate and open watches, and the requests in flight of all identities together.
//! Where k8s.io/apiserver's priority and fairness filter, or its max-in-flight filter when
//! that is off, stands in `DefaultBuildHandlerChain` (after authentication and
//! impersonation, before authorization and before the body is read), a request over a limit
//! is answered as those filters answer it (`filters/maxinflight.go`, `tooManyRequests`):
//! 429 with `Retry-After` and the plain text `Too many requests, please try again later.`.
//! The privileged group (`system:masters`) is exempt from each identity's limits, as the
//! API server's `exempt` priority level exempts it, and served over the in-flight cap, as
//! `WithMaxInFlightLimit` serves it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use http::{HeaderValue, Response, StatusCode, header};

use crate::semantics::rbac::{Attributes, User};
use crate::verbs::Options;
use crate::wire::body::Body;

/// What the API server's `tooManyRequests` writes, through Go's `http.Error`.
pub(crate) const TOO_MANY_REQUESTS: &str = "Too many requests, please try again later.\n";

/// Each identity's token bucket and open watches, by user name, and the requests in flight.
#[derive(Debug, Default)]
pub(crate) struct Limits {
    buckets: Mutex<HashMap<String, Bucket>>,
    watches: Mutex<HashMap<String, usize>>,
    /// Read-only and mutating requests in flight (`maxinflight.go`'s two channels): counters,
    /// so that taking a place never waits on another request.
    in_flight: [AtomicUsize; 2],
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// One open watch of an identity, counted while it lives (it goes with the response's
/// body, which goes when the client does).
pub(crate) struct WatchSlot {
    limits: Arc<Limits>,
    user: String,
}

impl Drop for WatchSlot {
    fn drop(&mut self) {
        let mut watches = self.limits.watches();
        if let Some(open) = watches.get_mut(&self.user) {
            *open = open.saturating_sub(1);
            if *open == 0 {
                watches.remove(&self.user);
            }
        }
    }
}

/// A request's place among those in flight, given back when it is dropped (when the
/// request has been answered, or its client went).
pub(crate) struct InFlight {
    limits: Arc<Limits>,
    mutating: bool,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.limits.in_flight[usize::from(self.mutating)].fetch_sub(1, Ordering::SeqCst);
    }
}

/// kube-apiserver's `LongRunningFunc` (`BasicLongRunningRequestCheck` with the verbs
/// `watch`, `proxy` and the subresources `attach`, `exec`, `proxy`, `log`, `portforward`,
/// in `pkg/controlplane/apiserver/config.go`; `filters/longrunning.go`): requests the
/// max-in-flight filter does not count.
fn long_running(info: &Attributes) -> bool {
    matches!(info.verb.as_str(), "watch" | "proxy")
        || (info.resource_request
            && matches!(
                info.subresource.as_str(),
                "attach" | "exec" | "proxy" | "log" | "portforward"
            ))
        || (!info.resource_request && info.path.starts_with("/debug/pprof/"))
}

impl Limits {
    /// `WithMaxInFlightLimit`: a place among the requests in flight for a request that is
    /// not long-running, read-only (`get`, `list`) or mutating (any other verb) each under
    /// its cap; over it, `Err` with the seconds to retry after, unless the user is in
    /// `system:masters`, which is served without a place.
    pub(crate) fn in_flight(
        self: &Arc<Limits>,
        options: &Options,
        user: &User,
        info: &Attributes,
    ) -> Result<Option<InFlight>, u64> {
        if long_running(info) {
            return Ok(None);
        }
        let mutating = !matches!(info.verb.as_str(), "get" | "list" | "watch");
        let cap = if mutating {
            options.max_mutating_requests_inflight
        } else {
            options.max_requests_inflight
        };
        if cap == 0 {
            return Ok(None);
        }
        let taken = self.in_flight[usize::from(mutating)].fetch_update(
            Ordering::SeqCst,
            Ordering::SeqCst,
            |n| (n < cap).then_some(n + 1),
        );
        match taken {
            Ok(_) => Ok(Some(InFlight {
                limits: self.clone(),
                mutating,
            })),
            Err(_) if user.is_privileged() => Ok(None),
            Err(_) => Err(1),
        }
    }

    fn watches(&self) -> MutexGuard<'_, HashMap<String, usize>> {
        self.watches.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes one request from `user`'s bucket: `Err` with the seconds until one is there
    /// when it is empty.
    fn take(&self, options: &Options, user: &str, now: Instant) -> Result<(), u64> {
        if options.requests_per_second == 0 {
            return Ok(());
        }
        let rate = f64::from(options.requests_per_second);
        let burst = f64::from(options.request_burst.max(1));
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        let bucket = buckets.entry(user.to_owned()).or_insert(Bucket {
            tokens: burst,
            at: now,
        });
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * rate).min(burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        // Whole seconds, at least 1, as `Retry-After` carries them.
        let wait = ((1.0 - bucket.tokens) / rate).ceil();
        Err(if wait < 1.0 { 1 } else { wait as u64 })
    }
}

impl Limits {
    /// Lets a request of `user` through the limits `options` set, or says after how many
    /// seconds to retry (answered with [`too_many_requests`]). A watch holds a slot of its
    /// identity's until the returned one is dropped.
    pub(crate) fn throttle(
        self: &Arc<Limits>,
        options: &Options,
        user: &User,
        watch: bool,
    ) -> Result<Option<WatchSlot>, u64> {
        if user.is_privileged() {
            return Ok(None);
        }
        self.take(options, &user.name, Instant::now())?;
        let cap = options.watches_per_identity;
        if !watch || cap == 0 {
            return Ok(None);
        }
        let mut watches = self.watches();
        let open = watches.entry(user.name.clone()).or_insert(0);
        if *open >= cap {
            return Err(1);
        }
        *open += 1;
        Ok(Some(WatchSlot {
            limits: self.clone(),
            user: user.name.clone(),
        }))
    }
}

/// `tooManyRequests`: 429, `Retry-After`, and `http.Error`'s plain text.
pub(crate) fn too_many_requests(retry_after: u64) -> Response<Body> {
    let mut response = Response::new(Body::full(TOO_MANY_REQUESTS));
    *response.status_mut() = StatusCode::TOO_MANY_REQUESTS;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
    response
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_bucket_refills_at_its_rate_up_to_its_burst() {
        let limits = Limits::default();
        let options = Options {
            requests_per_second: 2,
            request_burst: 3,
            ..Options::default()
        };
        let start = Instant::now();
        for _ in 0..3 {
            assert_eq!(limits.take(&options, "u", start), Ok(()));
        }
        assert_eq!(limits.take(&options, "u", start), Err(1));
        // Another identity has its own bucket.
        assert_eq!(limits.take(&options, "v", start), Ok(()));
        // Half a second gives one request back, and no more.
        let later = start + Duration::from_millis(500);
        assert_eq!(limits.take(&options, "u", later), Ok(()));
        assert_eq!(limits.take(&options, "u", later), Err(1));
        // A long wait fills the bucket to its burst only.
        let much_later = later + Duration::from_secs(60);
        for _ in 0..3 {
            assert_eq!(limits.take(&options, "u", much_later), Ok(()));
        }
        assert_eq!(limits.take(&options, "u", much_later), Err(1));
        // A slow rate says how long to wait.
        let slow = Options {
            requests_per_second: 1,
            request_burst: 1,
            ..Options::default()
        };
        assert_eq!(limits.take(&slow, "w", start), Ok(()));
        assert_eq!(limits.take(&slow, "w", start), Err(1));
        let off = Options {
            requests_per_second: 0,
            ..Options::default()
        };
        for _ in 0..10_000 {
            assert_eq!(limits.take(&off, "x", start), Ok(()));
        }
    }
}
