//! Garbage collection by `ownerReferences`, as Kubernetes' garbage collector does it
//! ("Garbage Collection" and "Owners and Dependents" in the Kubernetes documentation):
//!
//! - **Background**: the owner goes at once; then every dependent none of whose owners is
//!   left is deleted (and its own dependents after it), and a dependent that still has an
//!   owner loses its reference to the one that went.
//! - **Foreground**: the owner gets a `deletionTimestamp` and the `foregroundDeletion`
//!   finalizer; its dependents are deleted; once none with `blockOwnerDeletion: true` is
//!   left, the finalizer goes and so does the owner.
//! - **Orphan**: the owner gets the `orphan` finalizer; its dependents lose their reference
//!   to it; then the finalizer goes and so does the owner.
//!
//! A dependent created with a reference to an owner that does not exist (no object of that
//! kind and name, or one with another uid) is collected the same way. References to kinds
//! the server does not serve are left alone, as the collector cannot tell whether they
//! exist.

use std::collections::VecDeque;

use kubeforge_runtime::group_version;
use serde_json::Value;

use crate::controllers::queue::{Work, delete, write};
use crate::objects::catalog::Catalog;
use crate::objects::meta::{finalizers, metadata_mut, without_finalizer};
use crate::objects::store::{Key, State};
use crate::semantics::deletion::{FOREGROUND, ORPHAN, Policy};

/// An object was created or changed: if it names owners, collect it when none is left.
pub(crate) fn written(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    key: &Key,
    queue: &mut VecDeque<Work>,
) {
    let owned = state.objects[index]
        .get(key)
        .is_some_and(|o| references(o).next().is_some());
    if owned {
        attempt(state, catalog, index, key, queue);
    }
}

/// An object got its `deletionTimestamp`: orphan or delete its dependents if a finalizer
/// asks for it.
pub(crate) fn marked(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    key: &Key,
    queue: &mut VecDeque<Work>,
) {
    let Some(object) = state.objects[index].get(key).cloned() else {
        return;
    };
    let held = finalizers(&object);
    if held.contains(&ORPHAN) {
        orphan_dependents(state, catalog, index, key, &object, queue);
    } else if held.contains(&FOREGROUND) {
        delete_dependents(state, catalog, index, key, &object, queue);
    }
}

/// An object went: collect its dependents, and let an owner deleting in the foreground
/// that waited for it go on.
pub(crate) fn removed(
    state: &mut State,
    catalog: &Catalog,
    object: &Value,
    queue: &mut VecDeque<Work>,
) {
    if let Some(uid) = uid(object) {
        for (index, key) in dependents_of(state, uid) {
            attempt(state, catalog, index, &key, queue);
        }
    }
    for reference in references(object) {
        let Some(owner) = reference.get("uid").and_then(Value::as_str) else {
            continue;
        };
        if let Some((index, key)) = state.uids.get(owner).cloned()
            && state.objects[index]
                .get(&key)
                .is_some_and(|o| waiting_for_dependents(o))
        {
            queue.push_back(Work::Marked(index, key));
        }
    }
}

/// Where an owner reference points.
enum Owner {
    /// An owner that exists and is not deleting its dependents.
    Solid,
    /// An owner deleting in the foreground, waiting for its dependents.
    Waiting,
    /// No such owner.
    Dangling,
}

/// The garbage collector's `attemptToDeleteItem`: a dependent with a solid owner keeps it
/// (and loses its references to owners that are gone or going); one without is deleted.
fn attempt(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    key: &Key,
    queue: &mut VecDeque<Work>,
) {
    let Some(object) = state.objects[index].get(key).cloned() else {
        return;
    };
    if object.pointer("/metadata/deletionTimestamp").is_some() {
        return;
    }
    let mut solid = false;
    let mut waiting = false;
    let mut drop_uids: Vec<String> = Vec::new();
    for reference in references(&object) {
        match owner(state, catalog, reference, &key.0) {
            Owner::Solid => solid = true,
            Owner::Waiting => {
                waiting = true;
                drop_uids.extend(
                    reference
                        .get("uid")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                );
            }
            Owner::Dangling => {
                drop_uids.extend(
                    reference
                        .get("uid")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                );
            }
        }
    }
    if solid {
        if !drop_uids.is_empty() {
            let updated = without_references(&object, &drop_uids);
            write(state, catalog, index, key, updated, queue);
        }
        return;
    }
    if drop_uids.is_empty() {
        return;
    }
    let has_dependents = uid(&object).is_some_and(|u| state.dependents.contains_key(u));
    let held = finalizers(&object);
    let policy = if waiting && has_dependents {
        Policy::Foreground
    } else if held.contains(&ORPHAN) {
        Policy::Orphan
    } else if held.contains(&FOREGROUND) {
        Policy::Foreground
    } else {
        Policy::Background
    };
    delete(state, catalog, index, key, policy, queue);
}

/// Deletes the dependents of an owner deleting in the foreground; once none that blocks it
/// is left, removes its `foregroundDeletion` finalizer.
fn delete_dependents(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    key: &Key,
    owner: &Value,
    queue: &mut VecDeque<Work>,
) {
    let Some(owner_uid) = uid(owner) else {
        return;
    };
    for (dep_index, dep_key) in dependents_of(state, owner_uid) {
        attempt(state, catalog, dep_index, &dep_key, queue);
    }
    let blocked = state.dependents.get(owner_uid).is_some_and(|set| {
        set.iter().any(|(i, k)| {
            state.objects[*i].get(k).is_some_and(|dependent| {
                references(dependent).any(|r| {
                    r.get("uid").and_then(Value::as_str) == Some(owner_uid)
                        && r.get("blockOwnerDeletion") == Some(&Value::Bool(true))
                })
            })
        })
    });
    if !blocked && let Some(current) = state.objects[index].get(key).cloned() {
        let updated = without_finalizer(&current, FOREGROUND);
        write(state, catalog, index, key, updated, queue);
    }
}

/// Removes every dependent's reference to an owner deleted with the orphan policy, then its
/// `orphan` finalizer.
fn orphan_dependents(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    key: &Key,
    owner: &Value,
    queue: &mut VecDeque<Work>,
) {
    if let Some(owner_uid) = uid(owner) {
        for (dep_index, dep_key) in dependents_of(state, owner_uid) {
            if let Some(dependent) = state.objects[dep_index].get(&dep_key).cloned() {
                let updated = without_references(&dependent, &[owner_uid.to_owned()]);
                write(state, catalog, dep_index, &dep_key, updated, queue);
            }
        }
    }
    if let Some(current) = state.objects[index].get(key).cloned() {
        let updated = without_finalizer(&current, ORPHAN);
        write(state, catalog, index, key, updated, queue);
    }
}

/// Resolves an owner reference: the object of its kind and name (in the dependent's
/// namespace, for a namespaced kind) with its uid.
fn owner(state: &State, catalog: &Catalog, reference: &Value, namespace: &str) -> Owner {
    let text = |key: &str| reference.get(key).and_then(Value::as_str).unwrap_or("");
    let (group, version) = group_version(text("apiVersion"));
    let Some(owner_index) = catalog.find_kind(group, version, text("kind")) else {
        return Owner::Solid;
    };
    let scope = if catalog.resources[owner_index].namespaced {
        namespace
    } else {
        ""
    };
    let key = (scope.to_owned(), text("name").to_owned());
    match state.objects[owner_index].get(&key) {
        Some(found) if uid(found) == Some(text("uid")) => {
            if waiting_for_dependents(found) {
                Owner::Waiting
            } else {
                Owner::Solid
            }
        }
        _ => Owner::Dangling,
    }
}

fn waiting_for_dependents(object: &Value) -> bool {
    object.pointer("/metadata/deletionTimestamp").is_some()
        && finalizers(object).contains(&FOREGROUND)
}

fn references(object: &Value) -> impl Iterator<Item = &Value> {
    object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn without_references(object: &Value, uids: &[String]) -> Value {
    let mut object = object.clone();
    let meta = metadata_mut(&mut object);
    if let Some(Value::Array(list)) = meta.get_mut("ownerReferences") {
        list.retain(|r| {
            !r.get("uid")
                .and_then(Value::as_str)
                .is_some_and(|u| uids.iter().any(|x| x == u))
        });
        if list.is_empty() {
            meta.remove("ownerReferences");
        }
    }
    object
}

/// The objects that name `uid` as an owner.
fn dependents_of(state: &State, uid: &str) -> Vec<(usize, Key)> {
    state
        .dependents
        .get(uid)
        .map(|set| set.iter().cloned().collect())
        .unwrap_or_default()
}

fn uid(object: &Value) -> Option<&str> {
    object.pointer("/metadata/uid").and_then(Value::as_str)
}
