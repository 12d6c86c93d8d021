//! The controllers' shared work queue: what happened to the store that a controller may act
//! on, and the two writes every controller makes, an update and a delete, each of which
//! queues what it did for the others.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::Value;

use crate::objects::catalog::Catalog;
use crate::objects::meta::{finalizers, metadata_mut, new_uid, now};
use crate::objects::store::{Key, State};
use crate::semantics::crds::{self, is_crds};
use crate::semantics::deletion::{Policy, mark_as_deleting, released};
use crate::semantics::namespaces::{is_namespaces, spec_finalizers, terminating};

/// Something that happened to the store that a controller may act on.
#[derive(Debug)]
pub(crate) enum Work {
    /// An object was created or changed (it is at `key` of resource `index`).
    Written(usize, Key),
    /// An object got its `deletionTimestamp` (and is held by finalizers).
    Marked(usize, Key),
    /// An object was removed; this is how it was.
    Removed(usize, Arc<Value>),
}

/// Writes `object` over the one at `key` (a controller's update): a new resource version,
/// and if it is being deleted and nothing holds it any more, its removal.
pub(crate) fn write(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    key: &Key,
    mut object: Value,
    queue: &mut VecDeque<Work>,
) {
    let Some(old) = state.objects[index].get(key).cloned() else {
        return;
    };
    if object == *old {
        return;
    }
    let rv = state.next_rv();
    metadata_mut(&mut object).insert("resourceVersion".into(), Value::from(rv.to_string()));
    let object = Arc::new(object);
    if released(catalog, index, &object) {
        state.remove(index, key, object.clone());
        queue.push_back(Work::Removed(index, object));
    } else {
        state.put(index, key.clone(), object, Some(old));
        queue.push_back(Work::Written(index, key.clone()));
    }
}

/// Creates `object` at `key` unless something is there (a controller's create): its
/// `metadata` gets a uid, the next resource version and the creation time, in the order
/// `ObjectMeta` writes its fields (name, namespace, uid, resourceVersion,
/// creationTimestamp, then labels and annotations).
pub(crate) fn create(
    state: &mut State,
    index: usize,
    key: &Key,
    mut object: Value,
    queue: &mut VecDeque<Work>,
) {
    if state.objects[index].contains_key(key) {
        return;
    }
    let rv = state.next_rv();
    let given = std::mem::take(metadata_mut(&mut object));
    let meta = metadata_mut(&mut object);
    meta.insert("name".into(), Value::from(key.1.as_str()));
    if !key.0.is_empty() {
        meta.insert("namespace".into(), Value::from(key.0.as_str()));
    }
    meta.insert("uid".into(), Value::from(new_uid()));
    meta.insert("resourceVersion".into(), Value::from(rv.to_string()));
    meta.insert("creationTimestamp".into(), Value::from(now()));
    for (field, value) in given {
        meta.entry(field).or_insert(value);
    }
    state.put(index, key.clone(), Arc::new(object), None);
    queue.push_back(Work::Written(index, key.clone()));
}

/// What a delete did.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// The object is held by finalizers: this is it, with its `deletionTimestamp`.
    Marked(Arc<Value>),
    /// The object is gone: this is it as it was last.
    Removed(Arc<Value>),
}

/// Deletes the object at `key` with `policy`: marks it when a finalizer (the policy's
/// included) or, for a namespace, `spec.finalizers` hold it, removes it otherwise.
pub(crate) fn delete(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    key: &Key,
    policy: Policy,
    queue: &mut VecDeque<Work>,
) -> Option<Outcome> {
    let old = state.objects[index].get(key).cloned()?;
    if old.pointer("/metadata/deletionTimestamp").is_some() {
        return Some(Outcome::Marked(old));
    }
    let mut object = (*old).clone();
    if let Some(finalizer) = policy.finalizer() {
        let meta = metadata_mut(&mut object);
        let list = meta
            .entry("finalizers")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = list
            && !list.iter().any(|f| f.as_str() == Some(finalizer))
        {
            list.push(Value::from(finalizer));
        }
    }
    let namespace_held = is_namespaces(catalog, index) && !spec_finalizers(&object).is_empty();
    // A CRD's delete only marks it: its cleanup finalizer holds it until its objects go.
    let crd_held = is_crds(catalog, index);
    let rv = state.next_rv();
    if finalizers(&object).is_empty() && !namespace_held && !crd_held {
        metadata_mut(&mut object).insert("resourceVersion".into(), Value::from(rv.to_string()));
        let last = Arc::new(object);
        state.remove(index, key, last.clone());
        queue.push_back(Work::Removed(index, last.clone()));
        return Some(Outcome::Removed(last));
    }
    let meta = metadata_mut(&mut object);
    mark_as_deleting(meta);
    meta.insert("resourceVersion".into(), Value::from(rv.to_string()));
    if is_namespaces(catalog, index) {
        terminating(&mut object);
    }
    if is_crds(catalog, index) {
        crds::mark_deleted(&mut object);
    }
    let object = Arc::new(object);
    state.put(index, key.clone(), object.clone(), Some(old));
    queue.push_back(Work::Marked(index, key.clone()));
    Some(Outcome::Marked(object))
}
