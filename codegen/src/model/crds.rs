//! The CustomResourceDefinitions the generated crate gives back (`Foo::crd()`, `CRD_JSON`,
//! kube's `CustomResourceExt`): which document each served kind embeds, and where its text
//! is written once.
//!
//! A CRD is embedded as the API server would hold it after the inputs were applied in order
//! (`kubectl apply -f a.yaml -f b.yaml`): of several documents of one name the last one,
//! whole, since `spec.versions` has no merge key and is replaced. That is one CRD only when
//! the last one still serves every version an earlier one served, because the types of
//! those versions were generated; otherwise it is an error. What a cluster added to a
//! document read back from it (`status`, and `metadata`'s `uid`, `resourceVersion`,
//! `generation`, `creationTimestamp`, `managedFields`, `selfLink`) is left out, so the CRD
//! can be created again. The text keeps the input's key order.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Resource, TypeId};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Origin};
use crate::load::{LoadedApi, RawCrd};

/// What a cluster sets in a CRD's metadata; left out of the embedded document.
pub const SERVER_SET_METADATA: [&str; 6] = [
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "selfLink",
];

/// A CRD the generated crate embeds.
#[derive(Clone, Debug)]
pub struct Crd {
    /// `metadata.name`, what kube's `CustomResourceExt::crd_name` returns.
    pub name: String,
    /// The document as embedded (see the module docs).
    pub document: Value,
    /// Its served kinds among the generated types, in the order of its versions.
    pub resources: Vec<TypeId>,
    /// The one of them whose impl holds the text (`CRD_JSON`); the others name it there.
    /// The storage version's kind when it is generated, else the first.
    pub home: TypeId,
    /// `spec.names.shortNames`.
    pub short_names: Vec<String>,
    /// Where the embedded document is.
    pub origin: Origin,
}

/// The CRDs of which a served kind is generated, in input order of their last document.
pub(super) fn build(
    loaded: &LoadedApi,
    resources: &BTreeMap<TypeId, Resource>,
) -> Result<Vec<Crd>, Error> {
    // Name → its documents in input order; names in the order of their last document.
    let mut by_name: Vec<(&str, Vec<&RawCrd>)> = Vec::new();
    for crd in &loaded.crds {
        if let Some(index) = by_name.iter().position(|(name, _)| *name == crd.name) {
            let (name, mut documents) = by_name.remove(index);
            documents.push(crd);
            by_name.push((name, documents));
        } else {
            by_name.push((&crd.name, vec![crd]));
        }
    }
    let mut diagnostics = Diagnostics::default();
    let mut crds = Vec::new();
    for (name, documents) in by_name {
        let Some((last, earlier)) = documents.split_last() else {
            continue;
        };
        let mut one = true;
        for before in earlier {
            for version in before.served.iter().filter(|v| !last.served.contains(v)) {
                one = false;
                diagnostics.push(
                    Diagnostic::new(
                        ErrorKind::ConflictingDefinition,
                        &last.origin,
                        format!(
                            "expected the CRD `{name}` to serve version `{version}`, which it serves at {}: applied in order, this later document replaces `spec.versions` and leaves the generated `{version}` types without their CRD",
                            before.origin
                        ),
                    )
                    .with_hint(format!(
                        "list every version in one CRD document, or generate `{version}` from the documents that serve it separately"
                    )),
                );
            }
        }
        if !one {
            continue;
        }
        let generated: Vec<(TypeId, &str)> = last
            .served
            .iter()
            .filter_map(|version| {
                resources.iter().find_map(|(id, resource)| {
                    (resource.gvk.group == last.group
                        && resource.gvk.kind == last.kind
                        && resource.gvk.version == *version)
                        .then_some((*id, version.as_str()))
                })
            })
            .collect();
        let Some(&(first, _)) = generated.first() else {
            // Selection left none of its kinds.
            continue;
        };
        let storage = last
            .document
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .and_then(|versions| {
                versions
                    .iter()
                    .find(|v| v.get("storage") == Some(&Value::Bool(true)))
            })
            .and_then(|v| v.get("name"))
            .and_then(Value::as_str);
        let home = generated
            .iter()
            .find(|(_, version)| Some(*version) == storage)
            .map_or(first, |(id, _)| *id);
        let short_names = last
            .document
            .pointer("/spec/names/shortNames")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        crds.push(Crd {
            name: name.to_owned(),
            document: as_applied(&last.document),
            resources: generated.iter().map(|(id, _)| *id).collect(),
            home,
            short_names,
            origin: last.origin.clone(),
        });
    }
    diagnostics.finish(crds)
}

/// `document` without what a cluster set in it (see the module docs).
pub fn as_applied(document: &Value) -> Value {
    let mut document = document.clone();
    if let Value::Object(object) = &mut document {
        object.shift_remove("status");
        if let Some(Value::Object(metadata)) = object.get_mut("metadata") {
            for key in SERVER_SET_METADATA {
                metadata.shift_remove(key);
            }
        }
    }
    document
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn what_a_cluster_set_is_left_out() {
        let read_back = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "foos.example.com", "uid": "u", "resourceVersion": "7",
                "generation": 1, "creationTimestamp": "2026-01-01T00:00:00Z",
                "managedFields": [], "labels": {"a": "b"}},
            "spec": {"group": "example.com"},
            "status": {"acceptedNames": {}}
        });
        assert_eq!(
            super::as_applied(&read_back),
            json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": "foos.example.com", "labels": {"a": "b"}},
                "spec": {"group": "example.com"}
            })
        );
    }
}
