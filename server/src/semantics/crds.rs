//! What the apiextensions-apiserver's CustomResourceDefinition registry does that its
//! schema cannot say (`apiextensions-apiserver/pkg/registry/customresourcedefinition`): a
//! delete only marks the CRD, with the cleanup finalizer and the `Terminating` condition
//! (`etcd.go`, `Delete`), and its conditions are set as `apihelpers.SetCRDCondition` sets
//! them. The controllers that act on CRDs are `controllers::crds`.

use kubeforge_runtime::schema::{BadValue, FieldError, FieldPath};
use serde_json::{Map, Value, json};

use crate::objects::catalog::Catalog;
use crate::objects::meta::{metadata_mut, now, text};
use crate::semantics::structural;

/// The finalizer that holds a deleted CRD until its objects are gone
/// (`apiextensions.CustomResourceCleanupFinalizer`).
pub(crate) const CLEANUP: &str = "customresourcecleanup.apiextensions.k8s.io";

/// Whether the resource at `index` is `customresourcedefinitions`.
pub(crate) fn is_crds(catalog: &Catalog, index: usize) -> bool {
    catalog
        .resources
        .get(index)
        .is_some_and(|def| is_crd_resource(&def.group, &def.plural))
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

/// What `ValidateCustomResourceDefinition` says that the CRD's schema cannot: its name must
/// be `<plural>.<group>`, and a group Kubernetes protects (`k8s.io`, `kubernetes.io` and
/// their subdomains) needs the `api-approved.kubernetes.io` annotation, checked on create
/// and when an update changes it (`validateAPIApproval`).
pub(crate) fn errors(object: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let name = text(object, "/metadata/name");
    let group = text(object, "/spec/group");
    if old.is_none() && name != format!("{}.{group}", text(object, "/spec/names/plural")) {
        errors.push(FieldError::invalid(
            "metadata.name",
            BadValue::from(name.as_str()),
            r#"must be spec.names.plural+"."+spec.group"#,
        ));
    }
    errors.extend(schema_errors(object));
    let protected = ["k8s.io", "kubernetes.io"]
        .iter()
        .any(|p| group == *p || group.ends_with(&format!(".{p}")));
    const APPROVAL: &str = "/metadata/annotations/api-approved.kubernetes.io";
    let approval = object.pointer(APPROVAL).and_then(Value::as_str);
    let unchanged =
        old.is_some_and(|old| old.pointer(APPROVAL).and_then(Value::as_str) == approval);
    if protected && !unchanged {
        let field = "metadata.annotations[api-approved.kubernetes.io]";
        match approval {
            None | Some("") => errors.push(FieldError::required(
                field,
                r#"protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111"#,
            )),
            Some(value) if value.starts_with("unapproved") || is_url(value) => {}
            Some(value) => errors.push(FieldError::invalid(
                field,
                BadValue::from(value),
                r#"protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111"#,
            )),
        }
    }
    errors
}

/// Every version's schema, as `validateCustomResourceDefinitionSpec` checks it on the
/// internal version of the CRD: schemas identical in every version (one version's too) are
/// converted into `spec.validation` and checked there, after the versions; otherwise each
/// version's at `spec.versions[i].schema`. A version without one is refused first.
fn schema_errors(object: &Value) -> Vec<FieldError> {
    let versions = object
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut errors = Vec::new();
    let Some(first) = versions.first() else {
        return errors;
    };
    let identical = versions.iter().all(|v| schema(v) == schema(first));
    let spec = FieldPath::new("spec");
    if !identical || openapi(first).is_none() {
        for (i, version) in versions.iter().enumerate() {
            if openapi(version).is_none() {
                errors.push(FieldError::required(
                    spec.child("versions")
                        .index(i)
                        .child("schema")
                        .child("openAPIV3Schema")
                        .render(),
                    "schemas are required",
                ));
            }
        }
    }
    if identical {
        if let Some(openapi) = openapi(first) {
            let path = spec.child("validation").child("openAPIV3Schema");
            errors.extend(structural::errors(openapi, &path));
        }
    } else {
        for (i, version) in versions.iter().enumerate() {
            if let Some(openapi) = openapi(version) {
                let path = spec
                    .child("versions")
                    .index(i)
                    .child("schema")
                    .child("openAPIV3Schema");
                errors.extend(structural::errors(openapi, &path));
            }
        }
    }
    errors
}

fn schema(version: &Value) -> Option<&Value> {
    version.get("schema").filter(|s| !s.is_null())
}

fn openapi(version: &Value) -> Option<&Value> {
    schema(version)
        .and_then(|s| s.get("openAPIV3Schema"))
        .filter(|s| !s.is_null())
}

/// Go's `url.ParseRequestURI` with a scheme and a host, as `GetAPIApprovalState` asks.
fn is_url(value: &str) -> bool {
    value.split_once("://").is_some_and(|(scheme, rest)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && !rest.split('/').next().unwrap_or("").is_empty()
            && !value.contains(char::is_whitespace)
    })
}

/// Whether `plural` of `group` is `customresourcedefinitions`.
pub(crate) fn is_crd_resource(group: &str, plural: &str) -> bool {
    group == "apiextensions.k8s.io" && plural == "customresourcedefinitions"
}
