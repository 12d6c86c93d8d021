//! The verbs: what each request on a resource does, by the API concepts ("Kubernetes API
//! Concepts") and conventions, as the API server's registry does it. `read` has get, list
//! and watch (its stream is `watch`); `write` has create, update, patch and server-side
//! apply, and the commit they share; `delete` has delete and deletecollection; `check` is
//! what every write is checked with (kind, validator, decoding, namespace); `computed`
//! answers the resources the API server computes rather than stores; `respond` encodes an
//! answer; `tokens` (service account tokens and their review) and `pods` (eviction,
//! binding, what needs a kubelet) are the subresources with behaviour of their own; `auth`
//! is who the caller is and what it may do (authentication, impersonation, authorization,
//! the RBAC escalation check, the access reviews). They
//! run on [`Shared`], the state every clone of a server shares, call the semantics for each
//! rule and the controllers on what a write did.

pub(crate) mod auth;
mod check;
mod computed;
mod delete;
mod metrics;
pub(crate) mod pods;
mod read;
mod respond;
mod simulate;
mod tokens;
mod watch;
mod write;

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::controllers::cluster::Cluster;
use crate::controllers::{self, queue::Work};
use crate::objects::authority::Authority;
use crate::objects::catalog::Catalog;
use crate::objects::clock::Clock;
use crate::objects::meta::{new_uid, now};
use crate::objects::store::State;
use crate::semantics::namespaces;
use crate::semantics::tokens::Keys;

/// Limits and timings.
#[derive(Clone, Debug)]
pub struct Options {
    /// The largest request body accepted; larger ones are answered 413 (the API server's
    /// limit is 3 MiB).
    pub body_limit: usize,
    /// Requests per second each identity may send, sustained (a token bucket per user
    /// name, refilled at this rate); more are answered 429 `Too many requests, please try
    /// again later.` with `Retry-After`, as the API server's flow control answers. The
    /// privileged group (`system:masters`) is exempt, as from the API server's. 0: no limit.
    pub requests_per_second: u32,
    /// How many requests each identity may send at once above its rate (the bucket's size).
    pub request_burst: u32,
    /// How many watches each identity (but `system:masters`) may hold open at once; one
    /// more is answered 429 as above. 0: no limit.
    pub watches_per_identity: usize,
    /// How many read-only requests (`get`, `list`) may be in flight at once, all identities
    /// together (kube-apiserver's `--max-requests-inflight`, 400); one more is answered 429
    /// as above, but for `system:masters`, which is served anyway. Long-running requests
    /// (watches, `exec`, `attach`, `log`, `portforward`, `proxy`) are not counted. 0: no
    /// limit.
    pub max_requests_inflight: usize,
    /// The same for every other request (kube-apiserver's
    /// `--max-mutating-requests-inflight`, 200). 0: no limit.
    pub max_mutating_requests_inflight: usize,
    /// How many events the history keeps for watches that resume from a resource version;
    /// older ones get 410 Gone.
    pub history: usize,
    /// How often a watch that asked for bookmarks gets one.
    pub bookmark_interval: Duration,
    /// A simulated cluster inside the server (nodes, scheduler, kubelets, controllers, a
    /// clock the test moves); `None`, the default, runs nothing.
    pub simulation: Option<crate::controllers::simulation::Simulation>,
    /// The protobuf messages bodies are read and written with: the built-in ones by default
    /// (Kubernetes 1.35's), or those of the served API's `.proto` files
    /// ([`Protobuf::from_proto_dir`](crate::Protobuf::from_proto_dir); `serve --proto`).
    pub protobuf: crate::wire::encoding::Protobuf,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            body_limit: 3 * 1024 * 1024,
            requests_per_second: 500,
            request_burst: 1000,
            watches_per_identity: 256,
            max_requests_inflight: 400,
            max_mutating_requests_inflight: 200,
            history: 1024,
            bookmark_interval: Duration::from_secs(5),
            simulation: None,
            protobuf: crate::wire::encoding::Protobuf::default(),
        }
    }
}

/// What every clone of a server shares: the store (with the catalog), and the watches on it.
pub(crate) struct Shared {
    pub(crate) options: Options,
    pub(crate) state: Mutex<State>,
    /// The last resource version, for watches to wait on.
    pub(crate) changed: tokio::sync::watch::Sender<u64>,
    /// Open watch streams (their tasks).
    pub(crate) watches: AtomicUsize,
    /// What the cluster's own controllers know: its certificate authority, its address.
    pub(crate) cluster: Cluster,
    /// The service account signing key (made at start; why it could not be, if not).
    pub(crate) keys: Result<Keys, String>,
    /// The administrator's and static users' bearer tokens (`auth`).
    pub(crate) identities: Mutex<auth::Identities>,
    /// The clock every timestamp the server writes reads (the real time unless simulating).
    pub(crate) clock: Clock,
    uid_seed: std::collections::hash_map::RandomState,
    /// One step of the simulation at a time: its thread's and an `advance`'s would each plan
    /// on the store before the other's creates were made, and make a Pod twice.
    pub(crate) stepping: Mutex<()>,
}

impl Shared {
    /// The state of a server for `catalog`, with the objects a cluster starts with (its
    /// namespaces, and what its controllers make: see `controllers::start`).
    pub(crate) fn new(catalog: Catalog, options: Options) -> Shared {
        // A simulated metrics-server's API is in discovery as its APIService puts it there.
        let catalog = match &options.simulation {
            Some(simulation) if simulation.metrics => {
                crate::controllers::simulation::metrics::serve(catalog)
            }
            _ => catalog,
        };
        let state = State::new(catalog, options.history);
        // Only a failing system random number generator stops a key being made.
        let authority = Authority::new().unwrap_or_else(|e| panic!("the cluster's CA: {e}"));
        let shared = Shared {
            options,
            state: Mutex::new(state),
            changed: tokio::sync::watch::channel(0).0,
            watches: AtomicUsize::new(0),
            cluster: Cluster::new(authority, ([127, 0, 0, 1], 6443).into()),
            keys: Keys::generate(),
            identities: Mutex::new(auth::Identities::new()),
            clock: Clock::default(),
            uid_seed: std::collections::hash_map::RandomState::new(),
            stepping: Mutex::new(()),
        };
        let clock = shared.clock.clone();
        let _clock = clock.enter();
        shared.seed_namespaces();
        {
            let mut state = shared.lock();
            let catalog = state.catalog.clone();
            controllers::start(&mut state, &catalog, &shared.cluster);
        }
        shared
    }

    /// The server is now reached on `address`: the `kubernetes` Service's endpoints say so.
    pub(crate) fn advertise(&self, address: std::net::SocketAddr) {
        let mut state = self.lock();
        let catalog = state.catalog.clone();
        controllers::advertise(&mut state, &catalog, &self.cluster, address);
        self.notify(state);
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// What the server serves now. The router takes it once per request and passes it
    /// down to the verbs, so a request sees one catalog even while a CRD is created
    /// (`router`'s tests count); it takes [`Shared::lock`]: under the lock, read
    /// `state.catalog`.
    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        #[cfg(test)]
        SNAPSHOTS.set(SNAPSHOTS.get() + 1);
        self.lock().catalog.clone()
    }

    /// Creates the namespaces a cluster starts with, when the API serves namespaces.
    fn seed_namespaces(&self) {
        let Some(index) = namespaces::index(&self.catalog()) else {
            return;
        };
        let mut state = self.lock();
        for name in namespaces::INITIAL {
            let rv = state.next_rv();
            let mut object = json!({
                "kind": "Namespace",
                "apiVersion": "v1",
                "metadata": {
                    "name": name,
                    "uid": new_uid(),
                    "resourceVersion": rv.to_string(),
                    "creationTimestamp": now(),
                },
            });
            namespaces::prepare(&mut object, name);
            state.put(
                index,
                (String::new(), name.to_owned()),
                Arc::new(object),
                None,
            );
        }
    }

    /// Runs the controllers (garbage collector, namespace lifecycle, …) on what a write did.
    fn settle(&self, state: &mut State, work: Vec<Work>) {
        controllers::settle(state, &self.cluster, work);
    }

    /// Wakes the watches after a write, then serves the CRDs it left unserved.
    fn notify(&self, mut state: MutexGuard<'_, State>) {
        let rv = state.rv;
        let unserved = std::mem::take(&mut state.unserved);
        drop(state);
        self.changed.send_replace(rv);
        #[cfg(feature = "model")]
        for crd in unserved {
            // The generator's model of a large CRD takes a while: never under the lock.
            let part = Catalog::of_crd(&crd);
            let mut state = self.lock();
            let mut queue = std::collections::VecDeque::new();
            controllers::crds::install(&mut state, &crd, part, &mut queue);
            self.settle(&mut state, queue.into());
            self.notify(state);
        }
        #[cfg(not(feature = "model"))]
        drop(unserved);
    }

    fn suffix(&self) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        let mut hasher = self.uid_seed.build_hasher();
        hasher.write_u64(self.lock().rv);
        hasher.write_u64(jiff::Timestamp::now().as_nanosecond().unsigned_abs() as u64);
        let mut n = hasher.finish();
        (0..5)
            .map(|_| {
                let c = ALPHABET[(n % ALPHABET.len() as u64) as usize];
                n /= ALPHABET.len() as u64;
                char::from(c)
            })
            .collect()
    }
}

/// Every bearer token authenticated, in order (`router`'s tests count one per request).
#[cfg(test)]
pub(crate) static AUTHENTICATED: Mutex<Vec<String>> = Mutex::new(Vec::new());

#[cfg(test)]
thread_local! {
    /// How many catalog snapshots this thread has taken (a request is handled on one
    /// thread): `router`'s tests count one per request.
    pub(crate) static SNAPSHOTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The `autoscaling/v1` `Scale` of an object with `spec.replicas`.
fn scale_of(object: &Value) -> Value {
    let meta = object.get("metadata").cloned().unwrap_or(Value::Null);
    let mut scale_meta = Map::new();
    for key in [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
    ] {
        if let Some(value) = meta.get(key) {
            scale_meta.insert(key.into(), value.clone());
        }
    }
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": scale_meta,
        "spec": {"replicas": object.pointer("/spec/replicas").cloned().unwrap_or(Value::from(0))},
        "status": {"replicas": object.pointer("/status/replicas").cloned().unwrap_or(Value::from(0))},
    })
}
