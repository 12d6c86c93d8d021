//! The objects, the global resource version and the bounded event history watches read.
//!
//! One lock guards everything: every write takes the next resource version, stores the
//! object and appends an event, so the history is ordered by resource version and a watch
//! finds where to resume by binary search. Objects are `Arc`s shared by the store and the
//! history, so memory is the stored objects plus at most `history` events.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

use serde_json::Value;

use crate::objects::catalog::Catalog;

/// What happened to an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    /// Created.
    Added,
    /// Changed.
    Modified,
    /// Removed.
    Deleted,
}

/// One change, as watches see it.
#[derive(Clone, Debug)]
pub struct Event {
    /// The resource version the change made.
    pub rv: u64,
    /// The resource's index in the catalog.
    pub resource: usize,
    /// What happened.
    pub kind: EventType,
    /// The object after the change (before it, for a deletion, with the new version).
    pub object: Arc<Value>,
    /// The object before a modification, so a watch with a selector can tell an object that
    /// stopped matching (a `DELETED` for it) from one that started (`ADDED`).
    pub old: Option<Arc<Value>>,
}

/// `(namespace, name)`; the namespace is empty for cluster-scoped objects.
pub type Key = (String, String);

/// Everything stored, and the catalog it is stored by: a CustomResourceDefinition's
/// creation changes what the server serves, so the catalog changes under the same lock as
/// the objects (a request reads a snapshot of it, [`State::catalog`], when it starts).
#[derive(Debug)]
pub struct State {
    /// What the server serves now; `objects` has one map per resource of it.
    pub catalog: Arc<Catalog>,
    /// CustomResourceDefinitions whose names were accepted but whose schemas are not
    /// served yet: the verb that wrote them reads them once the lock is released
    /// (`controllers::crds::install`), so no request waits on another's CRD.
    pub unserved: Vec<Value>,
    /// The last resource version given out.
    pub rv: u64,
    /// Per resource (catalog index), the objects by key, in key order (as lists return them).
    pub objects: Vec<BTreeMap<Key, Arc<Value>>>,
    /// The most recent events, oldest first.
    pub history: VecDeque<Event>,
    /// How many events the history keeps.
    pub capacity: usize,
    /// The newest resource version whose event is no longer kept (0: none dropped).
    pub compacted: u64,
    /// Raised by [`State::compact`]: open watches end with 410 Gone when it changes.
    pub epoch: u64,
    /// Every stored object by `metadata.uid`: where it is.
    pub uids: HashMap<String, (usize, Key)>,
    /// The objects whose `ownerReferences` name a uid, by that uid (the owner may be gone:
    /// the garbage collector looks here for the dependents of a deleted object).
    pub dependents: HashMap<String, BTreeSet<(usize, Key)>>,
}

impl State {
    /// An empty store for the resources of `catalog`.
    pub fn new(catalog: Catalog, capacity: usize) -> State {
        let resources = catalog.resources.len();
        State {
            catalog: Arc::new(catalog),
            unserved: Vec::new(),
            rv: 0,
            objects: vec![BTreeMap::new(); resources],
            history: VecDeque::new(),
            capacity: capacity.max(1),
            compacted: 0,
            epoch: 0,
            uids: HashMap::new(),
            dependents: HashMap::new(),
        }
    }

    /// Serves `catalog` from now on: it has every resource of the current one at the same
    /// index (resources are only ever added, so stored objects and events keep their
    /// meaning), and maybe more.
    #[cfg(feature = "model")]
    pub fn replace_catalog(&mut self, catalog: Catalog) {
        self.objects.resize_with(
            catalog.resources.len().max(self.objects.len()),
            BTreeMap::new,
        );
        self.catalog = Arc::new(catalog);
    }

    /// Stores `object` (whose `resourceVersion` the caller has set to [`State::rv`]) and
    /// records the change; `old` is the object it replaces, if any. The other served
    /// versions of a custom resource store the same object under their `apiVersion`, as a
    /// real server reads one stored object through each version (`conversion: None`).
    pub fn put(&mut self, resource: usize, key: Key, object: Arc<Value>, old: Option<Arc<Value>>) {
        for sibling in self.catalog.shared_versions(resource) {
            let api_version = self.catalog.resources[sibling].api_version();
            let copy = Arc::new(relabel(&object, &api_version));
            let old = self.objects[sibling].get(&key).cloned();
            self.put_one(sibling, key.clone(), copy, old);
        }
        self.put_one(resource, key, object, old);
    }

    fn put_one(&mut self, resource: usize, key: Key, object: Arc<Value>, old: Option<Arc<Value>>) {
        if let Some(old) = &old {
            self.unindex(resource, &key, old);
        }
        self.index(resource, &key, &object);
        self.objects[resource].insert(key, object.clone());
        let kind = if old.is_some() {
            EventType::Modified
        } else {
            EventType::Added
        };
        self.record(resource, kind, object, old);
    }

    /// Removes the object at `key`, recording its deletion with `last`, the object as it
    /// was when it went (with the new resource version); from every version that shares it.
    pub fn remove(&mut self, resource: usize, key: &Key, last: Arc<Value>) {
        for sibling in self.catalog.shared_versions(resource) {
            let api_version = self.catalog.resources[sibling].api_version();
            let copy = Arc::new(relabel(&last, &api_version));
            self.remove_one(sibling, key, copy);
        }
        self.remove_one(resource, key, last);
    }

    fn remove_one(&mut self, resource: usize, key: &Key, last: Arc<Value>) {
        if let Some(old) = self.objects[resource].remove(key) {
            self.unindex(resource, key, &old);
            self.record(resource, EventType::Deleted, last, Some(old));
        }
    }

    /// Gives each resource of `resources` that has no objects those of another version of
    /// it (a version a CRD has just started serving reads the objects already stored).
    #[cfg(feature = "model")]
    pub fn share_versions(&mut self, resources: &[usize]) {
        for resource in resources {
            if !self.objects[*resource].is_empty() {
                continue;
            }
            let Some(from) = self
                .catalog
                .shared_versions(*resource)
                .into_iter()
                .find(|sibling| !self.objects[*sibling].is_empty())
            else {
                continue;
            };
            let api_version = self.catalog.resources[*resource].api_version();
            let copies = self.objects[from]
                .iter()
                .map(|(key, object)| (key.clone(), Arc::new(relabel(object, &api_version))))
                .collect();
            self.objects[*resource] = copies;
        }
    }

    fn index(&mut self, resource: usize, key: &Key, object: &Value) {
        if let Some(uid) = object.pointer("/metadata/uid").and_then(Value::as_str) {
            self.uids.insert(uid.to_owned(), (resource, key.clone()));
        }
        for owner in owner_uids(object) {
            self.dependents
                .entry(owner.to_owned())
                .or_default()
                .insert((resource, key.clone()));
        }
    }

    fn unindex(&mut self, resource: usize, key: &Key, object: &Value) {
        if let Some(uid) = object.pointer("/metadata/uid").and_then(Value::as_str) {
            self.uids.remove(uid);
        }
        for owner in owner_uids(object) {
            if let Some(set) = self.dependents.get_mut(owner) {
                set.remove(&(resource, key.clone()));
                if set.is_empty() {
                    self.dependents.remove(owner);
                }
            }
        }
    }

    /// The next resource version.
    pub fn next_rv(&mut self) -> u64 {
        self.rv += 1;
        self.rv
    }

    /// Records a change made at `self.rv`.
    fn record(
        &mut self,
        resource: usize,
        kind: EventType,
        object: Arc<Value>,
        old: Option<Arc<Value>>,
    ) {
        while self.history.len() >= self.capacity {
            if let Some(dropped) = self.history.pop_front() {
                self.compacted = dropped.rv;
            }
        }
        self.history.push_back(Event {
            rv: self.rv,
            resource,
            kind,
            object,
            old,
        });
    }

    /// Drops the whole history, as an etcd compaction does, and ends every open watch with
    /// 410 Gone: watches and continue tokens from before now get 410 Gone.
    pub fn compact(&mut self) {
        self.history.clear();
        self.compacted = self.rv;
        self.epoch += 1;
    }

    /// The events after `rv`, or `None` when some of them are no longer kept.
    pub fn since(&self, rv: u64) -> Option<impl Iterator<Item = &Event>> {
        if rv < self.compacted {
            return None;
        }
        let start = self.history.partition_point(|e| e.rv <= rv);
        Some(self.history.range(start..))
    }
}

/// `object` read through another version: its `apiVersion` changed (`conversion: None`).
fn relabel(object: &Value, api_version: &str) -> Value {
    let mut copy = object.clone();
    if let Some(map) = copy.as_object_mut() {
        map.insert("apiVersion".into(), Value::from(api_version));
    }
    copy
}

/// The uids an object's `ownerReferences` name.
pub fn owner_uids(object: &Value) -> impl Iterator<Item = &str> {
    object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|reference| reference.get("uid").and_then(Value::as_str))
}
