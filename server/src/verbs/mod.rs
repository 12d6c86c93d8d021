//! The verbs: what each request on a resource does, by the API concepts ("Kubernetes API
//! Concepts") and conventions, as the API server's registry does it. `read` has get, list
//! and watch (its stream is `watch`); `write` has create, update, patch and server-side
//! apply, and the commit they share; `delete` has delete and deletecollection; `check` is
//! what every write is checked with (kind, validator, decoding, namespace); `respond`
//! encodes an answer; `tokens` (service account tokens and their review) and `pods`
//! (eviction, binding, what needs a kubelet) are the subresources with behaviour of their
//! own. They run on [`Shared`], the state every clone of a server shares, call the
//! semantics for each rule and the controllers on what a write did.

mod check;
mod delete;
mod pods;
mod read;
mod respond;
mod tokens;
mod watch;
mod write;

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::controllers::{self, queue::Work};
use crate::objects::catalog::{Catalog, ResourceDef};
use crate::objects::meta::now;
use crate::objects::store::State;
use crate::semantics::namespaces;
use crate::semantics::tokens::Keys;

/// Limits and timings.
#[derive(Clone, Debug)]
pub struct Options {
    /// The largest request body accepted; larger ones are answered 413 (the API server's
    /// limit is 3 MiB).
    pub body_limit: usize,
    /// How many events the history keeps for watches that resume from a resource version;
    /// older ones get 410 Gone.
    pub history: usize,
    /// How often a watch that asked for bookmarks gets one.
    pub bookmark_interval: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            body_limit: 3 * 1024 * 1024,
            history: 1024,
            bookmark_interval: Duration::from_secs(5),
        }
    }
}

/// What every clone of a server shares: the catalog, the store, and the watches on it.
pub(crate) struct Shared {
    pub(crate) catalog: Catalog,
    pub(crate) options: Options,
    pub(crate) state: Mutex<State>,
    /// The last resource version, for watches to wait on.
    pub(crate) changed: tokio::sync::watch::Sender<u64>,
    /// Open watch streams (their tasks).
    pub(crate) watches: AtomicUsize,
    /// The service account signing key (made at start; why it could not be, if not).
    pub(crate) keys: Result<Keys, String>,
    uid_seed: std::collections::hash_map::RandomState,
}

impl Shared {
    /// The state of a server for `catalog`, with the namespaces a cluster starts with.
    pub(crate) fn new(catalog: Catalog, options: Options) -> Shared {
        let state = State::new(catalog.resources.len(), options.history);
        let shared = Shared {
            catalog,
            options,
            state: Mutex::new(state),
            changed: tokio::sync::watch::channel(0).0,
            watches: AtomicUsize::new(0),
            keys: Keys::generate(),
            uid_seed: std::collections::hash_map::RandomState::new(),
        };
        shared.seed_namespaces();
        shared
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Creates the namespaces a cluster starts with, when the API serves namespaces.
    fn seed_namespaces(&self) {
        let Some(index) = namespaces::index(&self.catalog) else {
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
                    "uid": self.uid(rv),
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

    fn def(&self, index: usize) -> &ResourceDef {
        &self.catalog.resources[index]
    }

    /// Runs the controllers (garbage collector, namespace lifecycle) on what a write did.
    fn settle(&self, state: &mut State, work: Vec<Work>) {
        controllers::settle(state, &self.catalog, work);
    }

    fn notify(&self, state: MutexGuard<'_, State>) {
        let rv = state.rv;
        drop(state);
        self.changed.send_replace(rv);
    }

    fn uid(&self, rv: u64) -> String {
        let mut hasher = self.uid_seed.build_hasher();
        hasher.write_u64(rv);
        let a = hasher.finish();
        hasher.write_u64(a);
        let b = hasher.finish();
        format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            b >> 52,
            b & 0xffff_ffff_ffff
        )
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
