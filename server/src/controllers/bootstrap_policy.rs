//! The API server's RBAC bootstrap policy (kubernetes/kubernetes
//! `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go` and `namespace_policy.go`),
//! which its `rbac/bootstrap-roles` post-start hook creates: the default ClusterRoles and
//! their ClusterRoleBindings, and the Roles and RoleBindings of `kube-system` and
//! `kube-public`, from `data/bootstrap-roles.yaml`, all of them (the controllers' roles and
//! bindings too). Made when
//! the server starts, as the hook does; the aggregated roles (`admin`, `edit`, `view`) get
//! their rules from the aggregation controller (`aggregation`).

use std::collections::VecDeque;
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::controllers::queue::{Work, create};
use crate::objects::catalog::Catalog;
use crate::objects::store::State;
use crate::semantics::namespaces::index as namespaces_index;
use crate::semantics::rbac::GROUP;

/// The policy's roles and bindings, as `data/bootstrap-roles.yaml` lists them.
fn policy() -> &'static Value {
    static POLICY: OnceLock<Value> = OnceLock::new();
    POLICY.get_or_init(|| {
        serde_saphyr::from_str(include_str!("../../data/bootstrap-roles.yaml"))
            .unwrap_or(Value::Null)
    })
}

/// The default ClusterRoles (the controllers' too), as objects.
pub(crate) fn cluster_roles() -> Vec<Value> {
    entries(policy().get("clusterRoles"))
        .map(|entry| role("ClusterRole", entry))
        .collect()
}

/// The default ClusterRoleBindings (the controllers' too), as objects.
fn cluster_role_bindings() -> Vec<Value> {
    entries(policy().get("clusterRoleBindings"))
        .map(|entry| binding("ClusterRoleBinding", "ClusterRole", entry))
        .collect()
}

fn entries(section: Option<&Value>) -> impl Iterator<Item = &Value> {
    section.and_then(Value::as_array).into_iter().flatten()
}

/// The entries of a `namespace: [entry…]` section of the policy, with their namespace.
fn by_namespace(section: &str) -> impl Iterator<Item = (&'static str, &'static Value)> {
    let namespaces = policy().get(section).and_then(Value::as_object);
    namespaces
        .into_iter()
        .flatten()
        .flat_map(|(namespace, entries)| {
            let entries = entries.as_array().map(Vec::as_slice).unwrap_or_default();
            entries.iter().map(move |entry| (namespace.as_str(), entry))
        })
}

/// The default Roles of `kube-system` and `kube-public`, as objects.
pub(crate) fn namespace_roles() -> Vec<Value> {
    by_namespace("namespaceRoles")
        .map(|(namespace, entry)| {
            let mut role = role("Role", entry);
            role["metadata"]["namespace"] = Value::from(namespace);
            role
        })
        .collect()
}

/// The default RoleBindings of `kube-system` and `kube-public`.
pub(crate) fn namespace_role_bindings() -> Vec<Value> {
    by_namespace("namespaceRoleBindings")
        .map(|(namespace, entry)| {
            let mut binding = binding("RoleBinding", "Role", entry);
            binding["metadata"]["namespace"] = Value::from(namespace);
            binding
        })
        .collect()
}

/// A role of the policy: its rules, or its aggregation rule (whose rules the aggregation
/// controller writes).
fn role(kind: &str, entry: &Value) -> Value {
    let mut role = json!({
        "kind": kind,
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "metadata": metadata(entry),
    });
    if let Some(rules) = entry.get("rules") {
        role["rules"] = rules.clone();
    }
    if let Some(rule) = entry.get("aggregationRule") {
        role["aggregationRule"] = rule.clone();
    }
    with_name(role, entry)
}

/// A binding of the policy to the role its `role` names (else the role of its own name),
/// with its subjects (`Group:<name>`, `User:<name>`, `ServiceAccount:<namespace>/<name>`),
/// none written when it has none (Go's nil slice).
fn binding(kind: &str, role_kind: &str, entry: &Value) -> Value {
    let subjects: Vec<Value> = entries(entry.get("subjects"))
        .filter_map(Value::as_str)
        .filter_map(|subject| subject.split_once(':'))
        .map(|(kind, name)| match kind {
            "ServiceAccount" => {
                let (namespace, name) = name.split_once('/').unwrap_or(("", name));
                json!({"kind": kind, "name": name, "namespace": namespace})
            }
            _ => json!({"kind": kind, "apiGroup": GROUP, "name": name}),
        })
        .collect();
    let role = entry
        .get("role")
        .or_else(|| entry.get("name"))
        .cloned()
        .unwrap_or(Value::Null);
    let mut binding = json!({
        "kind": kind,
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "metadata": metadata(entry),
        "roleRef": {"apiGroup": GROUP, "kind": role_kind, "name": role},
    });
    if !subjects.is_empty() {
        binding["subjects"] = Value::from(subjects);
    }
    with_name(binding, entry)
}

/// What the policy puts on every object it makes, and the entry's own labels and
/// annotations.
fn metadata(entry: &Value) -> Value {
    let mut metadata = json!({
        "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"},
        "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"},
    });
    for field in ["labels", "annotations"] {
        for (key, value) in entry
            .get(field)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            metadata[field][key] = value.clone();
        }
    }
    metadata
}

fn with_name(mut object: Value, entry: &Value) -> Value {
    if let Some(name) = entry.get("name") {
        object["metadata"]["name"] = name.clone();
    }
    object
}

/// Creates the roles and bindings of the policy that are missing; a namespaced one only in
/// a namespace that exists (the server starts with `kube-system` and `kube-public`, which
/// the hook would otherwise create, `reconciliation/namespace.go`'s `tryEnsureNamespace`).
pub(crate) fn reconcile(state: &mut State, catalog: &Catalog, queue: &mut VecDeque<Work>) {
    let namespaces = namespaces_index(catalog);
    for (plural, objects) in [
        ("clusterroles", cluster_roles()),
        ("clusterrolebindings", cluster_role_bindings()),
        ("roles", namespace_roles()),
        ("rolebindings", namespace_role_bindings()),
    ] {
        let Some((index, _)) = catalog.find(GROUP, "v1", plural) else {
            continue;
        };
        for object in objects {
            let field = |pointer: &str| {
                object
                    .pointer(pointer)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned()
            };
            let key = (field("/metadata/namespace"), field("/metadata/name"));
            let present = |namespace: &str| {
                namespaces.is_some_and(|ns| {
                    state.objects[ns].contains_key(&(String::new(), namespace.to_owned()))
                })
            };
            if !key.0.is_empty() && !present(&key.0) {
                continue;
            }
            create(state, index, &key, object, queue);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_data_reads() {
        let roles = cluster_roles();
        let names: Vec<&str> = roles
            .iter()
            .filter_map(|r| r.pointer("/metadata/name").and_then(Value::as_str))
            .collect();
        for wanted in [
            "cluster-admin",
            "admin",
            "edit",
            "view",
            "system:discovery",
            "system:basic-user",
            "system:public-info-viewer",
        ] {
            assert!(names.contains(&wanted), "{wanted} in {names:?}");
        }
        assert_eq!(
            roles[0]["metadata"]["labels"]["kubernetes.io/bootstrapping"],
            "rbac-defaults"
        );
        assert!(names.contains(&"system:controller:job-controller"));
        assert_eq!(cluster_role_bindings().len(), 50);
        assert!(cluster_role_bindings().iter().all(|b| {
            b.pointer("/roleRef/name")
                .and_then(Value::as_str)
                .is_some_and(|role| names.contains(&role))
        }));
        // `namespace_policy.go`: six Roles and bindings in kube-system, one in kube-public.
        let namespaced = |objects: Vec<Value>| {
            objects
                .iter()
                .map(|o| o["metadata"]["namespace"].as_str().unwrap_or("").to_owned())
                .collect::<Vec<_>>()
        };
        for objects in [namespace_roles(), namespace_role_bindings()] {
            let namespaces = namespaced(objects);
            assert_eq!(namespaces.len(), 7, "{namespaces:?}");
            assert_eq!(
                namespaces.iter().filter(|ns| *ns == "kube-public").count(),
                1
            );
        }
    }
}
