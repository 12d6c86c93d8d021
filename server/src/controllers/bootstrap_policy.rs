//! The API server's RBAC bootstrap policy (kubernetes/kubernetes
//! `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go` and
//! `controller_policy.go`), which its `rbac/bootstrap-roles` post-start hook creates: here,
//! the `cluster-admin` ClusterRole and its ClusterRoleBinding to the `system:masters`
//! group, which clients look for. Made when the server starts, as the hook does; the other
//! roles of the policy are listed among the guide's differences.

use std::collections::VecDeque;

use serde_json::{Value, json};

use crate::controllers::queue::{Work, create};
use crate::objects::catalog::Catalog;
use crate::objects::store::State;

const GROUP: &str = "rbac.authorization.k8s.io";

/// Creates the roles and bindings of the policy that are missing.
pub(crate) fn reconcile(state: &mut State, catalog: &Catalog, queue: &mut VecDeque<Work>) {
    if let Some((index, _)) = catalog.find(GROUP, "v1", "clusterroles") {
        let role = json!({
            "kind": "ClusterRole",
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "metadata": bootstrap_metadata(),
            "rules": [
                {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
                {"verbs": ["*"], "nonResourceURLs": ["*"]},
            ],
        });
        create(
            state,
            index,
            &(String::new(), "cluster-admin".into()),
            role,
            queue,
        );
    }
    if let Some((index, _)) = catalog.find(GROUP, "v1", "clusterrolebindings") {
        let binding = json!({
            "kind": "ClusterRoleBinding",
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "metadata": bootstrap_metadata(),
            "subjects": [{"kind": "Group", "apiGroup": GROUP, "name": "system:masters"}],
            "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": "cluster-admin"},
        });
        create(
            state,
            index,
            &(String::new(), "cluster-admin".into()),
            binding,
            queue,
        );
    }
}

/// What the policy puts on every object it makes.
fn bootstrap_metadata() -> Value {
    json!({
        "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"},
        "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"},
    })
}
