//! What the apiextensions-apiserver's CustomResourceDefinition registry does that its
//! schema cannot say (`apiextensions-apiserver/pkg/registry/customresourcedefinition`): a
//! delete only marks the CRD, with the cleanup finalizer and the `Terminating` condition
//! (`etcd.go`, `Delete`), and its conditions are set as `apihelpers.SetCRDCondition` sets
//! them. The controllers that act on CRDs are `controllers::crds`.

use serde_json::{Map, Value, json};

use crate::objects::catalog::Catalog;
use crate::objects::meta::{metadata_mut, now};

/// The finalizer that holds a deleted CRD until its objects are gone
/// (`apiextensions.CustomResourceCleanupFinalizer`).
pub(crate) const CLEANUP: &str = "customresourcecleanup.apiextensions.k8s.io";

/// Whether the resource at `index` is `customresourcedefinitions`.
pub(crate) fn is_crds(catalog: &Catalog, index: usize) -> bool {
    catalog.resources.get(index).is_some_and(|def| {
        def.group == "apiextensions.k8s.io" && def.plural == "customresourcedefinitions"
    })
}

/// The first delete of a CRD: the cleanup finalizer and the `Terminating` condition (the
/// caller sets the `deletionTimestamp`).
pub(crate) fn mark_deleted(object: &mut Value) {
    let meta = metadata_mut(object);
    let finalizers = meta
        .entry("finalizers")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(list) = finalizers
        && !list.iter().any(|f| f.as_str() == Some(CLEANUP))
    {
        list.push(Value::from(CLEANUP));
    }
    set_condition(
        object,
        "Terminating",
        "True",
        "InstanceDeletionPending",
        "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
    );
}

/// Sets a condition of `status.conditions` as `SetCRDCondition` does: a new one is added;
/// an existing one of the type takes the new status, reason and message, and keeps its
/// `lastTransitionTime` unless the status changed.
pub(crate) fn set_condition(
    object: &mut Value,
    ty: &str,
    status: &str,
    reason: &str,
    message: &str,
) {
    let Some(map) = object.as_object_mut() else {
        return;
    };
    let status_map = map
        .entry("status")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(status_map) = status_map.as_object_mut() else {
        return;
    };
    let conditions = status_map
        .entry("conditions")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Some(conditions) = conditions.as_array_mut() else {
        return;
    };
    let fresh = json!({
        "type": ty,
        "status": status,
        "lastTransitionTime": now(),
        "reason": reason,
        "message": message,
    });
    match conditions
        .iter_mut()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(ty))
    {
        Some(existing) => {
            let same_status = existing.get("status").and_then(Value::as_str) == Some(status);
            let time = existing.get("lastTransitionTime").cloned();
            *existing = fresh;
            if same_status && let Some(time) = time {
                existing["lastTransitionTime"] = time;
            }
        }
        None => conditions.push(fresh),
    }
}

/// Whether a condition of the type has status `True`.
#[cfg(feature = "model")]
pub(crate) fn condition_true(object: &Value, ty: &str) -> bool {
    object
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| {
            c.get("type").and_then(Value::as_str) == Some(ty)
                && c.get("status").and_then(Value::as_str) == Some("True")
        })
}
