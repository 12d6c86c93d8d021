//! Access: role bindings, certificates and their signing requests, admission webhooks and
//! policies.

use serde_json::Value;

use super::super::fields::{field, list, text};
use super::super::format::{human_duration, or, selector_string};
use super::common::{Cells, age, length, name, string};

pub(super) const PRINTERS: &[(&str, Cells)] = &[
    ("rbac.authorization.k8s.io/RoleBinding", role_binding),
    ("rbac.authorization.k8s.io/ClusterRoleBinding", role_binding),
    (
        "certificates.k8s.io/CertificateSigningRequest",
        certificate_signing_request,
    ),
    (
        "certificates.k8s.io/ClusterTrustBundle",
        cluster_trust_bundle,
    ),
    (
        "admissionregistration.k8s.io/MutatingWebhookConfiguration",
        webhook_configuration,
    ),
    (
        "admissionregistration.k8s.io/ValidatingWebhookConfiguration",
        webhook_configuration,
    ),
    (
        "admissionregistration.k8s.io/ValidatingAdmissionPolicy",
        validating_admission_policy,
    ),
    (
        "admissionregistration.k8s.io/MutatingAdmissionPolicy",
        mutating_admission_policy,
    ),
    (
        "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding",
        admission_policy_binding,
    ),
    (
        "admissionregistration.k8s.io/MutatingAdmissionPolicyBinding",
        admission_policy_binding,
    ),
];

/// RoleBindings and ClusterRoleBindings: the role, then users, groups and service accounts.
fn role_binding(o: &Value) -> Vec<Value> {
    let (mut users, mut groups, mut accounts) = (Vec::new(), Vec::new(), Vec::new());
    for subject in list(o, "/subjects") {
        let who = field(subject, "name");
        match field(subject, "kind") {
            "User" => users.push(who.to_owned()),
            "Group" => groups.push(who.to_owned()),
            "ServiceAccount" => accounts.push(format!("{}/{who}", field(subject, "namespace"))),
            _ => {}
        }
    }
    vec![
        name(o),
        Value::from(format!(
            "{}/{}",
            text(o, "/roleRef/kind"),
            text(o, "/roleRef/name")
        )),
        age(o),
        Value::from(users.join(", ")),
        Value::from(groups.join(", ")),
        Value::from(accounts.join(", ")),
    ]
}

fn certificate_signing_request(o: &Value) -> Vec<Value> {
    let duration = o
        .pointer("/spec/expirationSeconds")
        .and_then(Value::as_i64)
        .map_or_else(|| "<none>".to_owned(), human_duration);
    vec![
        name(o),
        age(o),
        Value::from(or(text(o, "/spec/signerName"), "<none>")),
        string(o, "/spec/username"),
        Value::from(duration),
        Value::from(csr_condition(o)),
    ]
}

/// `Approved`, `Denied` or `Pending`, then `Failed` and `Issued`.
fn csr_condition(o: &Value) -> String {
    let conditions = list(o, "/status/conditions");
    let has = |t: &str| {
        conditions
            .iter()
            .any(|c| c.get("type").and_then(Value::as_str) == Some(t))
    };
    let mut status = if has("Denied") {
        "Denied"
    } else if has("Approved") {
        "Approved"
    } else {
        "Pending"
    }
    .to_owned();
    if has("Failed") {
        status.push_str(",Failed");
    }
    if !text(o, "/status/certificate").is_empty() {
        status.push_str(",Issued");
    }
    status
}

fn cluster_trust_bundle(o: &Value) -> Vec<Value> {
    vec![
        name(o),
        Value::from(or(text(o, "/spec/signerName"), "<none>")),
    ]
}

fn webhook_configuration(o: &Value) -> Vec<Value> {
    vec![name(o), length(o, "/webhooks"), age(o)]
}

fn validating_admission_policy(o: &Value) -> Vec<Value> {
    admission_policy(o, "/spec/validations")
}

fn mutating_admission_policy(o: &Value) -> Vec<Value> {
    admission_policy(o, "/spec/mutations")
}

/// An admission policy: how many `rules` it has and the kind of its parameters.
fn admission_policy(o: &Value, rules: &str) -> Vec<Value> {
    let param = match o.pointer("/spec/paramKind") {
        Some(p) => format!("{}/{}", field(p, "apiVersion"), field(p, "kind")),
        None => "<unset>".to_owned(),
    };
    vec![name(o), length(o, rules), Value::from(param), age(o)]
}

/// A policy binding: its policy and its parameters (a name or a selector).
fn admission_policy_binding(o: &Value) -> Vec<Value> {
    let param = match o.pointer("/spec/paramRef") {
        Some(p) => {
            let (ref_name, namespace) = (field(p, "name"), field(p, "namespace"));
            if !ref_name.is_empty() {
                format!("{}/{ref_name}", or(namespace, "*"))
            } else if let Some(selector) = p.get("selector") {
                selector_string(Some(selector))
            } else {
                "<unset>".to_owned()
            }
        }
        None => "<unset>".to_owned(),
    };
    vec![
        name(o),
        string(o, "/spec/policyName"),
        Value::from(param),
        age(o),
    ]
}
