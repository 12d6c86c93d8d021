//! Roles, ClusterRoles and their bindings (pkg/apis/rbac/validation/validation.go):
//! `ValidatePolicyRule` (verbs required; non-resource URLs only in a ClusterRole and not
//! with resources; otherwise API groups and resources required), a ClusterRole's
//! aggregation rule, `ValidateRoleBinding` and `ValidateClusterRoleBinding` (the role
//! referred to, each subject's kind and API group) and their updates (`cannot change
//! roleRef`).

use kubeforge_runtime::schema::{BadValue, ErrorType, FieldError, gofmt, names};
use serde_json::Value;

use super::common::{Errors, at, dns1123_subdomain, go_strings, list, not_supported, shown, text};

const GROUP: &str = "rbac.authorization.k8s.io";

/// `ValidateRole` (`namespaced`) or `ValidateClusterRole`.
pub(super) fn role(object: &Value, namespaced: bool, errors: &mut Errors) {
    for (i, rule) in list(object, "rules").iter().enumerate() {
        policy_rule(rule, namespaced, &format!("rules[{i}]"), errors);
    }
    if namespaced {
        return;
    }
    if let Some(aggregation) = object.get("aggregationRule").filter(|v| !v.is_null())
        && list(aggregation, "clusterRoleSelectors").is_empty()
    {
        errors.push(FieldError::required(
            "aggregationRule.clusterRoleSelectors",
            "at least one clusterRoleSelector required if aggregationRule is non-nil",
        ));
    }
}

/// `ValidatePolicyRule`.
fn policy_rule(rule: &Value, namespaced: bool, path: &str, errors: &mut Errors) {
    if list(rule, "verbs").is_empty() {
        errors.push(FieldError::required(
            format!("{path}.verbs"),
            "verbs must contain at least one value",
        ));
    }
    let urls = list(rule, "nonResourceURLs");
    if !urls.is_empty() {
        let shown_urls = go_strings(Some(urls));
        let field = format!("{path}.nonResourceURLs");
        if namespaced {
            errors.push(shown(
                &field,
                ErrorType::Invalid,
                &shown_urls,
                "namespaced rules cannot apply to non-resource URLs",
            ));
        }
        if ["apiGroups", "resources", "resourceNames"]
            .iter()
            .any(|k| !list(rule, k).is_empty())
        {
            errors.push(shown(
                &field,
                ErrorType::Invalid,
                &shown_urls,
                "rules cannot apply to both regular resources and non-resource URLs",
            ));
        }
        return;
    }
    if list(rule, "apiGroups").is_empty() {
        errors.push(FieldError::required(
            format!("{path}.apiGroups"),
            "resource rules must supply at least one api group",
        ));
    }
    if list(rule, "resources").is_empty() {
        errors.push(FieldError::required(
            format!("{path}.resources"),
            "resource rules must supply at least one resource",
        ));
    }
}

/// `ValidateRoleBinding` (`namespaced`) or `ValidateClusterRoleBinding`, and their updates
/// against `old`.
pub(super) fn binding(object: &Value, old: Option<&Value>, namespaced: bool, errors: &mut Errors) {
    let role_ref = at(object, "roleRef");
    let group = text(role_ref, "apiGroup");
    if group != GROUP {
        errors.push(not_supported("roleRef.apiGroup", group, &[GROUP]));
    }
    let kind = text(role_ref, "kind");
    let kinds: &[&str] = if namespaced {
        &["Role", "ClusterRole"]
    } else {
        &["ClusterRole"]
    };
    if !kinds.contains(&kind) {
        errors.push(not_supported("roleRef.kind", kind, kinds));
    }
    let name = text(role_ref, "name");
    if name.is_empty() {
        errors.push(FieldError::required("roleRef.name", ""));
    } else {
        for message in names::is_valid_path_segment_name(name) {
            errors.push(FieldError::invalid(
                "roleRef.name",
                BadValue::from(name),
                message,
            ));
        }
    }
    for (i, subject) in list(object, "subjects").iter().enumerate() {
        subject_errors(subject, namespaced, &format!("subjects[{i}]"), errors);
    }
    if let Some(old) = old {
        let old_ref = at(old, "roleRef");
        let changed = ["apiGroup", "kind", "name"]
            .iter()
            .any(|k| text(role_ref, k) != text(old_ref, k));
        if changed {
            let value = format!(
                "rbac.RoleRef{{APIGroup:{}, Kind:{}, Name:{}}}",
                gofmt::quote(group),
                gofmt::quote(kind),
                gofmt::quote(name)
            );
            errors.push(shown(
                "roleRef",
                ErrorType::Invalid,
                &value,
                "cannot change roleRef",
            ));
        }
    }
}

/// `ValidateRoleBindingSubject`. A User's or Group's empty API group was defaulted to
/// RBAC's (`SetDefaults_Subject`).
fn subject_errors(subject: &Value, namespaced: bool, path: &str, errors: &mut Errors) {
    let name = text(subject, "name");
    if name.is_empty() {
        errors.push(FieldError::required(format!("{path}.name"), ""));
    }
    let group = text(subject, "apiGroup");
    match text(subject, "kind") {
        "ServiceAccount" => {
            if !name.is_empty() {
                dns1123_subdomain(name, &format!("{path}.name"), errors);
            }
            if !group.is_empty() {
                errors.push(not_supported(format!("{path}.apiGroup"), group, &[""]));
            }
            if !namespaced && text(subject, "namespace").is_empty() {
                errors.push(FieldError::required(format!("{path}.namespace"), ""));
            }
        }
        "User" | "Group" => {
            if !group.is_empty() && group != GROUP {
                errors.push(not_supported(format!("{path}.apiGroup"), group, &[GROUP]));
            }
        }
        other => errors.push(not_supported(
            format!("{path}.kind"),
            other,
            &["ServiceAccount", "User", "Group"],
        )),
    }
}
