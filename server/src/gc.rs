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
use std::sync::Arc;

use serde_json::Value;

use crate::catalog::{Catalog, ResourceDef};
use crate::controllers::{self, Work, finalizers, metadata_mut, without_finalizer};
use crate::namespaces;
use crate::server::{Query, now};
use crate::status::Failure;
use crate::store::{Key, State};

/// The finalizer that holds an owner while its dependents are deleted.
pub(crate) const FOREGROUND: &str = "foregroundDeletion";
/// The finalizer that holds an owner while its dependents are orphaned.
pub(crate) const ORPHAN: &str = "orphan";

/// What happens to the dependents of a deleted object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Policy {
    /// They lose their reference to it.
    Orphan,
    /// The object goes now, they are collected after it.
    Background,
    /// They go first, the object after them.
    Foreground,
}

impl Policy {
    /// The policy of a delete: `propagationPolicy` (body, then query), else the deprecated
    /// `orphanDependents`, else the resource's default. Both at once are refused, as the API
    /// server refuses them.
    pub(crate) fn of(options: &Value, query: &Query, def: &ResourceDef) -> Result<Policy, Failure> {
        let given = options
            .get("propagationPolicy")
            .and_then(Value::as_str)
            .or_else(|| query.get("propagationPolicy"))
            .filter(|p| !p.is_empty());
        let orphan = options
            .get("orphanDependents")
            .and_then(Value::as_bool)
            .or_else(|| query.get("orphanDependents").map(|v| v == "true"));
        match (given, orphan) {
            (Some(_), Some(_)) => Err(Failure::invalid(
                "DeleteOptions",
                "",
                "orphanDependents: Invalid value: \"...\": orphanDependents and deletionPropagation cannot be both set",
            )),
            (Some("Orphan"), None) => Ok(Policy::Orphan),
            (Some("Background"), None) => Ok(Policy::Background),
            (Some("Foreground"), None) => Ok(Policy::Foreground),
            (Some(other), None) => Err(Failure::invalid(
                "DeleteOptions",
                "",
                format!(
                    "propagationPolicy: Unsupported value: \"{other}\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""
                ),
            )),
            (None, Some(true)) => Ok(Policy::Orphan),
            (None, Some(false)) => Ok(Policy::Background),
            (None, None) => Ok(default_policy(def)),
        }
    }

    fn finalizer(self) -> Option<&'static str> {
        match self {
            Policy::Orphan => Some(ORPHAN),
            Policy::Foreground => Some(FOREGROUND),
            Policy::Background => None,
        }
    }
}

/// A resource's policy when the delete names none: orphaning for the versions that had it
/// before garbage collection existed (the registries' `DefaultGarbageCollectionPolicy`:
/// core/v1 ReplicationControllers, batch/v1 Jobs, and the extensions/v1beta1,
/// apps/v1beta1 and apps/v1beta2 workloads), background for everything else.
fn default_policy(def: &ResourceDef) -> Policy {
    let workload = matches!(
        def.plural.as_str(),
        "deployments" | "replicasets" | "daemonsets" | "statefulsets"
    );
    let legacy = match (def.group.as_str(), def.version.as_str()) {
        ("", "v1") => def.plural == "replicationcontrollers",
        ("batch", "v1") => def.plural == "jobs",
        ("extensions", "v1beta1") | ("apps", "v1beta1" | "v1beta2") => workload,
        _ => false,
    };
    if legacy {
        Policy::Orphan
    } else {
        Policy::Background
    }
}

/// What a delete did.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// The object is held by finalizers: this is it, with its `deletionTimestamp`.
    Marked(Arc<Value>),
    /// The object is gone.
    Removed,
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
    let namespace_held = namespaces::is_namespaces(catalog, index)
        && !namespaces::spec_finalizers(&object).is_empty();
    let rv = state.next_rv();
    if finalizers(&object).is_empty() && !namespace_held {
        metadata_mut(&mut object).insert("resourceVersion".into(), Value::from(rv.to_string()));
        let last = Arc::new(object);
        state.remove(index, key, last.clone());
        queue.push_back(Work::Removed(index, last));
        return Some(Outcome::Removed);
    }
    let meta = metadata_mut(&mut object);
    meta.insert("deletionTimestamp".into(), Value::from(now()));
    meta.insert("deletionGracePeriodSeconds".into(), Value::from(0));
    meta.insert("resourceVersion".into(), Value::from(rv.to_string()));
    if namespaces::is_namespaces(catalog, index) {
        namespaces::terminating(&mut object);
    }
    let object = Arc::new(object);
    state.put(index, key.clone(), object.clone(), Some(old));
    queue.push_back(Work::Marked(index, key.clone()));
    Some(Outcome::Marked(object))
}

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
            controllers::write(state, catalog, index, key, updated, queue);
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
        controllers::write(state, catalog, index, key, updated, queue);
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
                controllers::write(state, catalog, dep_index, &dep_key, updated, queue);
            }
        }
    }
    if let Some(current) = state.objects[index].get(key).cloned() {
        let updated = without_finalizer(&current, ORPHAN);
        controllers::write(state, catalog, index, key, updated, queue);
    }
}

/// Resolves an owner reference: the object of its kind and name (in the dependent's
/// namespace, for a namespaced kind) with its uid.
fn owner(state: &State, catalog: &Catalog, reference: &Value, namespace: &str) -> Owner {
    let text = |key: &str| reference.get(key).and_then(Value::as_str).unwrap_or("");
    let (group, version) = match text("apiVersion").split_once('/') {
        Some((group, version)) => (group, version),
        None => ("", text("apiVersion")),
    };
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
