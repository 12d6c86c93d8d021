//! The namespace controller: deletes a terminating namespace's objects, then the
//! namespace (what the namespace registry and admission do is `semantics::namespaces`).

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::Value;

use crate::controllers::queue::{Work, delete, write};
use crate::objects::catalog::Catalog;
use crate::objects::store::{Key, State};
use crate::semantics::deletion::Policy;
use crate::semantics::namespaces::{KUBERNETES, index, is_namespaces, spec_finalizers};

/// An object was marked deleted: if it is a namespace, start emptying it.
pub(crate) fn marked(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    key: &Key,
    queue: &mut VecDeque<Work>,
) {
    if is_namespaces(catalog, index) {
        terminate(state, catalog, index, &key.1, queue);
    }
}

/// Something in `namespace` changed or went: if the namespace is terminating, go on.
pub(crate) fn content_changed(
    state: &mut State,
    catalog: &Catalog,
    namespace: &str,
    queue: &mut VecDeque<Work>,
) {
    if namespace.is_empty() {
        return;
    }
    let Some(index) = index(catalog) else {
        return;
    };
    let terminating = state.objects[index]
        .get(&(String::new(), namespace.to_owned()))
        .is_some_and(|ns| ns.pointer("/metadata/deletionTimestamp").is_some());
    if terminating {
        terminate(state, catalog, index, namespace, queue);
    }
}

/// The namespace controller: deletes every object in the namespace (in the background, as
/// it does), and when none is left, removes the `kubernetes` finalizer, which lets the
/// namespace go.
fn terminate(
    state: &mut State,
    catalog: &Catalog,
    namespaces_index: usize,
    namespace: &str,
    queue: &mut VecDeque<Work>,
) {
    let mut remaining = false;
    for (index, def) in catalog.resources.iter().enumerate() {
        if !def.namespaced {
            continue;
        }
        let keys: Vec<Key> = objects_in(state, index, namespace)
            .map(|(key, _)| key.clone())
            .collect();
        for key in keys {
            delete(state, catalog, index, &key, Policy::Background, queue);
        }
        remaining |= objects_in(state, index, namespace).next().is_some();
    }
    let key = (String::new(), namespace.to_owned());
    let Some(current) = state.objects[namespaces_index].get(&key).cloned() else {
        return;
    };
    if remaining || !spec_finalizers(&current).contains(&KUBERNETES) {
        return;
    }
    let mut updated = (*current).clone();
    if let Some(Value::Array(list)) = updated.pointer_mut("/spec/finalizers") {
        list.retain(|f| f.as_str() != Some(KUBERNETES));
    }
    write(state, catalog, namespaces_index, &key, updated, queue);
}

fn objects_in<'a>(
    state: &'a State,
    index: usize,
    namespace: &'a str,
) -> impl Iterator<Item = (&'a Key, &'a Arc<Value>)> {
    state.objects[index]
        .range((namespace.to_owned(), String::new())..)
        .take_while(move |(key, _)| key.0 == namespace)
}
