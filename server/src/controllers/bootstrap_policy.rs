//! The API server's RBAC bootstrap policy (kubernetes/kubernetes
//! `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go`), which its
//! `rbac/bootstrap-roles` post-start hook creates: the default ClusterRoles and their
//! ClusterRoleBindings, from `data/bootstrap-roles.yaml` (which says which it keeps). Made
//! when the server starts, as the hook does; the aggregated roles (`admin`, `edit`,
//! `view`) get their rules from the aggregation controller (`aggregation`).

use std::collections::VecDeque;
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::controllers::queue::{Work, create};
use crate::objects::catalog::Catalog;
use crate::objects::store::State;
use crate::semantics::rbac::GROUP;

/// The policy's roles and bindings, as `data/bootstrap-roles.yaml` lists them.
fn policy() -> &'static Value {
    static POLICY: OnceLock<Value> = OnceLock::new();
    POLICY.get_or_init(|| {
        serde_saphyr::from_str(include_str!("../../data/bootstrap-roles.yaml"))
            .unwrap_or(Value::Null)
    })
}

/// The default ClusterRoles, as objects.
pub(crate) fn cluster_roles() -> Vec<Value> {
    let entries = policy().get("clusterRoles").and_then(Value::as_array);
    entries
        .into_iter()
        .flatten()
        .map(|entry| {
            let mut metadata = bootstrap_metadata();
            if let Some(labels) = entry.get("labels").and_then(Value::as_object) {
                for (key, value) in labels {
                    metadata["labels"][key] = value.clone();
                }
            }
            let mut role = json!({
                "kind": "ClusterRole",
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "metadata": metadata,
            });
            if let Some(rules) = entry.get("rules") {
                role["rules"] = rules.clone();
            }
            if let Some(rule) = entry.get("aggregationRule") {
                role["aggregationRule"] = rule.clone();
            }
            with_name(role, entry)
        })
        .collect()
}

/// The default ClusterRoleBindings (each to the ClusterRole of its name), as objects.
fn cluster_role_bindings() -> Vec<Value> {
    let entries = policy()
        .get("clusterRoleBindings")
        .and_then(Value::as_array);
    entries
        .into_iter()
        .flatten()
        .map(|entry| {
            let name = entry.get("name").cloned().unwrap_or(Value::Null);
            let subjects: Vec<Value> = entry
                .get("groups")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|group| json!({"kind": "Group", "apiGroup": GROUP, "name": group}))
                .collect();
            let binding = json!({
                "kind": "ClusterRoleBinding",
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "metadata": bootstrap_metadata(),
                "subjects": subjects,
                "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": name},
            });
            with_name(binding, entry)
        })
        .collect()
}

fn with_name(mut object: Value, entry: &Value) -> Value {
    if let Some(name) = entry.get("name") {
        object["metadata"]["name"] = name.clone();
    }
    object
}

/// Creates the roles and bindings of the policy that are missing.
pub(crate) fn reconcile(state: &mut State, catalog: &Catalog, queue: &mut VecDeque<Work>) {
    for (plural, objects) in [
        ("clusterroles", cluster_roles()),
        ("clusterrolebindings", cluster_role_bindings()),
    ] {
        let Some((index, _)) = catalog.find(GROUP, "v1", plural) else {
            continue;
        };
        for object in objects {
            let name = object
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            create(state, index, &(String::new(), name), object, queue);
        }
    }
}

/// What the policy puts on every object it makes.
fn bootstrap_metadata() -> Value {
    json!({
        "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"},
        "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"},
    })
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
        assert_eq!(cluster_role_bindings().len(), 5);
    }
}
