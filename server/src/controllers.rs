//! The control loops a real cluster runs beside the API server and whose effects a client of
//! the API sees: the garbage collector (`gc.rs`) and the namespace lifecycle (`namespaces.rs`).
//!
//! Here they run in the request that caused the work, under the store's lock, until nothing
//! is left to do, so a client that deletes an owner finds its dependents gone when the
//! response arrives (on a real cluster this happens moments later). Every change they make
//! is an ordinary write: a new resource version and a watch event.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::Value;

use crate::catalog::Catalog;
pub(crate) use crate::server::metadata_mut;
use crate::store::{Key, State};
use crate::{gc, namespaces};

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

/// Runs the controllers until they have nothing left to do.
pub(crate) fn settle(state: &mut State, catalog: &Catalog, work: Vec<Work>) {
    let mut queue: VecDeque<Work> = work.into();
    // Every step either removes an object, removes a finalizer or an owner reference, or
    // marks an object deleted, so the loop ends; the bound is a guard against a bug.
    let mut budget = 1_000_000usize;
    while let Some(item) = queue.pop_front() {
        budget = budget.saturating_sub(1);
        if budget == 0 {
            break;
        }
        match item {
            Work::Written(index, key) => {
                gc::written(state, catalog, index, &key, &mut queue);
                namespaces::content_changed(state, catalog, &key.0, &mut queue);
            }
            Work::Marked(index, key) => {
                gc::marked(state, catalog, index, &key, &mut queue);
                namespaces::marked(state, catalog, index, &key, &mut queue);
            }
            Work::Removed(index, object) => {
                gc::removed(state, catalog, &object, &mut queue);
                let namespace = object
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                namespaces::content_changed(state, catalog, namespace, &mut queue);
                let _ = index;
            }
        }
    }
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

/// Whether an object being deleted has nothing left holding it: no finalizers, and for a
/// namespace, no `spec.finalizers` either.
pub(crate) fn released(catalog: &Catalog, index: usize, object: &Value) -> bool {
    object.pointer("/metadata/deletionTimestamp").is_some()
        && finalizers(object).is_empty()
        && (!namespaces::is_namespaces(catalog, index)
            || namespaces::spec_finalizers(object).is_empty())
}

/// The object's `metadata.finalizers`.
pub(crate) fn finalizers(object: &Value) -> Vec<&str> {
    strings(object, "/metadata/finalizers")
}

/// The strings of the list at `pointer`.
pub(crate) fn strings<'a>(object: &'a Value, pointer: &str) -> Vec<&'a str> {
    object
        .pointer(pointer)
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `object` without the finalizer `name`.
pub(crate) fn without_finalizer(object: &Value, name: &str) -> Value {
    let mut object = object.clone();
    let meta = metadata_mut(&mut object);
    if let Some(Value::Array(list)) = meta.get_mut("finalizers") {
        list.retain(|f| f.as_str() != Some(name));
        if list.is_empty() {
            meta.remove("finalizers");
        }
    }
    object
}
