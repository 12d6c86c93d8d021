//! What a delete means: its propagation policy (`DeleteOptions`, and each resource's
//! default), the finalizers the policies put on the owner, and when an object being deleted
//! is free to go. The garbage collector that carries a policy out is `controllers::gc`.

use serde_json::{Map, Value};

use crate::objects::catalog::{Catalog, ResourceDef};
use crate::objects::meta::{finalizers, now};
use crate::semantics::namespaces::{is_namespaces, spec_finalizers};
use crate::wire::query::Query;
use crate::wire::status::Failure;

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

    pub(crate) fn finalizer(self) -> Option<&'static str> {
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

/// Whether an object being deleted has nothing left holding it: no finalizers, and for a
/// namespace, no `spec.finalizers` either; and no grace period still running (a Pod its
/// kubelet has not stopped keeps its `deletionGracePeriodSeconds`: the store's
/// `ShouldDeleteDuringUpdate` removes an object only once that is 0).
pub(crate) fn released(catalog: &Catalog, index: usize, object: &Value) -> bool {
    object.pointer("/metadata/deletionTimestamp").is_some()
        && finalizers(object).is_empty()
        && object
            .pointer("/metadata/deletionGracePeriodSeconds")
            .and_then(Value::as_i64)
            .is_none_or(|grace| grace == 0)
        && (!is_namespaces(catalog, index) || spec_finalizers(object).is_empty())
}

/// `rest.BeforeDelete`'s `markAsDeleting` on an object's metadata, as a graceful delete
/// with grace period 0 leaves it (no kubelet runs here): `deletionTimestamp` now,
/// `deletionGracePeriodSeconds` 0, and an object with a generation gets a new one as it
/// starts to go.
pub(crate) fn mark_as_deleting(meta: &mut Map<String, Value>) {
    if let Some(generation) = meta
        .get("generation")
        .and_then(Value::as_i64)
        .filter(|g| *g > 0)
    {
        meta.insert("generation".into(), Value::from(generation + 1));
    }
    meta.insert("deletionTimestamp".into(), Value::from(now()));
    meta.insert("deletionGracePeriodSeconds".into(), Value::from(0));
}
