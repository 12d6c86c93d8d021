//! Namespaces as objects, when the API serves core/v1 `namespaces` (otherwise every
//! namespace exists, as before): the four a cluster starts with, what the namespace registry
//! does on create (phase `Active`, the `kubernetes` finalizer, the
//! `kubernetes.io/metadata.name` label) and on delete (phase `Terminating`), and the
//! `NamespaceLifecycle` admission plugin's refusals. The namespace controller, which empties
//! a terminating namespace, is `controllers::namespaces`.

use serde_json::{Value, json};

use crate::objects::catalog::{Catalog, ResourceDef};
use crate::objects::meta::{metadata_mut, strings};
use crate::objects::store::State;
use crate::wire::status::Failure;

/// The namespaces a cluster starts with.
pub(crate) const INITIAL: [&str; 4] = ["default", "kube-node-lease", "kube-public", "kube-system"];

/// The namespaces that cannot be deleted (the admission plugin's "immortal" ones).
const IMMORTAL: [&str; 3] = ["default", "kube-public", "kube-system"];

/// The finalizer in `spec.finalizers` that the namespace controller removes once the
/// namespace is empty.
pub(crate) const KUBERNETES: &str = "kubernetes";

/// The catalog index of core/v1 `namespaces`, if the API serves it.
pub(crate) fn index(catalog: &Catalog) -> Option<usize> {
    catalog.find("", "v1", "namespaces").map(|(index, _)| index)
}

/// Whether `index` is core/v1 `namespaces`.
pub(crate) fn is_namespaces(catalog: &Catalog, index: usize) -> bool {
    let def = &catalog.resources[index];
    def.group.is_empty() && def.version == "v1" && def.plural == "namespaces"
}

/// What the namespace registry does to a namespace being created.
pub(crate) fn prepare(object: &mut Value, name: &str) {
    let Some(map) = object.as_object_mut() else {
        return;
    };
    map.insert("status".into(), json!({"phase": "Active"}));
    let spec = map.entry("spec").or_insert_with(|| json!({}));
    if !spec.is_object() {
        *spec = json!({});
    }
    let finalizers = spec
        .as_object_mut()
        .map(|s| s.entry("finalizers").or_insert_with(|| json!([])));
    if let Some(Value::Array(list)) = finalizers
        && !list.iter().any(|f| f.as_str() == Some(KUBERNETES))
    {
        list.push(Value::from(KUBERNETES));
    }
    let meta = metadata_mut(object);
    let labels = meta.entry("labels").or_insert_with(|| json!({}));
    if let Some(labels) = labels.as_object_mut() {
        labels.insert("kubernetes.io/metadata.name".into(), Value::from(name));
    }
}

/// The namespace being deleted, as the registry marks it.
pub(crate) fn terminating(object: &mut Value) {
    if let Some(map) = object.as_object_mut() {
        let status = map.entry("status").or_insert_with(|| json!({}));
        if let Some(status) = status.as_object_mut() {
            status.insert("phase".into(), Value::from("Terminating"));
        }
    }
}

/// A namespace's `spec.finalizers`.
pub(crate) fn spec_finalizers(object: &Value) -> Vec<&str> {
    strings(object, "/spec/finalizers")
}

/// The `NamespaceLifecycle` admission plugin on a create: the namespace must exist and not
/// be terminating.
pub(crate) fn admit_create(
    state: &State,
    catalog: &Catalog,
    def: &ResourceDef,
    namespace: &str,
    name: &str,
) -> Result<(), Failure> {
    if !def.namespaced {
        return Ok(());
    }
    let Some(index) = index(catalog) else {
        return Ok(());
    };
    match state.objects[index].get(&(String::new(), namespace.to_owned())) {
        None => Err(Failure::not_found("", "namespaces", namespace)),
        Some(found) if found.pointer("/status/phase").and_then(Value::as_str) == Some("Terminating") => {
            Err(Failure::forbidden(
                &def.group,
                &def.plural,
                name,
                &format!(
                    "unable to create new content in namespace {namespace} because it is being terminated"
                ),
            )
            .with_cause(
                "NamespaceTerminating",
                &format!("namespace {namespace} is being terminated"),
                "metadata.namespace",
            ))
        }
        Some(_) => Ok(()),
    }
}

/// The `NamespaceLifecycle` admission plugin on a delete: the immortal namespaces stay.
pub(crate) fn admit_delete(catalog: &Catalog, index: usize, name: &str) -> Result<(), Failure> {
    if is_namespaces(catalog, index) && IMMORTAL.contains(&name) {
        return Err(Failure::forbidden(
            "",
            "namespaces",
            name,
            "this namespace may not be deleted",
        ));
    }
    Ok(())
}
