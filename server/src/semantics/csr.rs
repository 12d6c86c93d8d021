//! A CertificateSigningRequest's strategies (`pkg/registry/certificates/certificates/
//! strategy.go`) and the validation they run (`pkg/apis/certificates/validation/
//! validation.go`): who asked is written into the spec on create and the status starts
//! empty; an update of the object changes neither spec nor status; `status` cannot touch
//! the `Approved` and `Denied` conditions; `approval` changes only the conditions. Condition
//! timestamps are filled in (`populateConditionTimestamps`).

use kubeforge_runtime::schema::gofmt::quote;
use kubeforge_runtime::schema::{BadValue, FieldError};
use serde_json::{Value, json};

use crate::objects::catalog::ResourceDef;
use crate::objects::meta::now;

/// The user every request is made as: the server has no authentication, and a client of
/// kind's kubeconfig is `kubernetes-admin`, in `system:masters`.
pub(crate) const USER: &str = "kubernetes-admin";
/// The admin's groups, with `system:authenticated`, which the authenticator adds.
pub(crate) const GROUPS: [&str; 2] = ["system:masters", "system:authenticated"];

const APPROVED: &str = "Approved";
const DENIED: &str = "Denied";
const FAILED: &str = "Failed";

/// `allValidUsages`, sorted as `sets.List` gives them.
const USAGES: [&str; 23] = [
    "any",
    "cert sign",
    "client auth",
    "code signing",
    "content commitment",
    "crl sign",
    "data encipherment",
    "decipher only",
    "digital signature",
    "email protection",
    "encipher only",
    "ipsec end system",
    "ipsec tunnel",
    "ipsec user",
    "key agreement",
    "key encipherment",
    "microsoft sgc",
    "netscape sgc",
    "ocsp signing",
    "s/mime",
    "server auth",
    "signing",
    "timestamping",
];

/// Whether `def` is `certificates.k8s.io` CertificateSigningRequests.
pub(crate) fn is_csr(def: &ResourceDef) -> bool {
    def.group == "certificates.k8s.io" && def.kind == "CertificateSigningRequest"
}

/// `PrepareForCreate`: the requesting user into the spec (`username`, `groups`; this user
/// has no uid and no extra), the status emptied.
pub(crate) fn prepare_create(object: &mut Value) {
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
        spec.remove("uid");
        spec.remove("extra");
        spec.insert("username".into(), Value::from(USER));
        spec.insert("groups".into(), json!(GROUPS));
    }
    if let Some(map) = object.as_object_mut() {
        map.insert("status".into(), json!({}));
    }
}

/// `Validate` on create, what the schema cannot say: the usages (required, known, no
/// duplicates) and the expiration's floor. (The PKCS#10 request's signature and the
/// signer name's rules are not checked.)
pub(crate) fn validate_create(object: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let usages: Vec<&Value> = object
        .pointer("/spec/usages")
        .and_then(Value::as_array)
        .map(|list| list.iter().collect())
        .unwrap_or_default();
    if usages.is_empty() {
        errors.push(FieldError::required("spec.usages", ""));
    }
    let supported: Vec<String> = USAGES.iter().map(|u| (*u).to_owned()).collect();
    for (i, usage) in usages.iter().enumerate() {
        let text = usage.as_str().unwrap_or("");
        if !USAGES.contains(&text) {
            errors.push(FieldError::not_supported(
                format!("spec.usages[{i}]"),
                BadValue::of(usage),
                &supported,
            ));
        }
    }
    for (i, usage) in usages.iter().enumerate() {
        if usages[..i].contains(usage) {
            errors.push(FieldError::duplicate(
                format!("spec.usages[{i}]"),
                BadValue::of(usage),
            ));
        }
    }
    if let Some(seconds) = object
        .pointer("/spec/expirationSeconds")
        .and_then(Value::as_i64)
        && seconds < 600
    {
        errors.push(FieldError::invalid(
            "spec.expirationSeconds",
            BadValue::Int(seconds),
            "may not specify a duration less than 600 seconds (10 minutes)",
        ));
    }
    errors.extend(validate_conditions(object, None));
    errors
}

/// `PrepareForUpdate` of the object (`sub` `None`), `status` or `approval`: `result` is the
/// object the update would store, `sent` the status the client sent.
pub(crate) fn prepare_update(
    sub: Option<&str>,
    old: &Value,
    result: &mut Value,
    sent: Option<&Value>,
) {
    let Some(map) = result.as_object_mut() else {
        return;
    };
    match old.get("spec") {
        Some(spec) => map.insert("spec".into(), spec.clone()),
        None => map.remove("spec"),
    };
    match sub {
        Some("status") => {
            // Existing Approved and Denied conditions stay as they were, when the update
            // keeps as many of each (`preserveConditionInstances`).
            for kind in [APPROVED, DENIED] {
                let old_at = indices(old, kind);
                let new_at = indices(result, kind);
                if old_at.len() == new_at.len() {
                    for (o, n) in old_at.into_iter().zip(new_at) {
                        if let (Some(from), Some(to)) = (
                            old.pointer(&format!("/status/conditions/{o}")).cloned(),
                            result.pointer_mut(&format!("/status/conditions/{n}")),
                        ) {
                            *to = from;
                        }
                    }
                }
            }
            stamp(old, result);
        }
        Some("approval") => {
            let mut status = old.get("status").cloned().unwrap_or_else(|| json!({}));
            match sent.and_then(|s| s.get("conditions")) {
                Some(conditions) if !status.is_null() => status["conditions"] = conditions.clone(),
                _ => {
                    if let Some(status) = status.as_object_mut() {
                        status.remove("conditions");
                    }
                }
            }
            map.insert("status".into(), status);
            stamp(old, result);
        }
        _ => {
            match old.get("status") {
                Some(status) => map.insert("status".into(), status.clone()),
                None => map.remove("status"),
            };
        }
    }
}

/// `ValidateUpdate` of the object, `status` or `approval`: the conditions, no Approved,
/// Denied or Failed condition removed, the approval conditions changed only through
/// `approval`, and a certificate set only through `status`, once.
pub(crate) fn validate_update(sub: Option<&str>, old: &Value, new: &Value) -> Vec<FieldError> {
    let mut errors = validate_conditions(new, Some(old));
    for kind in [APPROVED, DENIED, FAILED] {
        if indices(new, kind).len() < indices(old, kind).len() {
            errors.push(FieldError::forbidden(
                "status.conditions",
                format!("updates may not remove a condition of type {}", quote(kind)),
            ));
        }
    }
    if sub != Some("approval") {
        for kind in [APPROVED, DENIED] {
            if indices(new, kind).len() > indices(old, kind).len() {
                errors.push(FieldError::forbidden(
                    "status.conditions",
                    format!("updates may not add a condition of type {}", quote(kind)),
                ));
            }
        }
    }
    let certificate = |o: &Value| {
        o.pointer("/status/certificate")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let (before, after) = (certificate(old), certificate(new));
    if before != after {
        if sub != Some("status") {
            errors.push(FieldError::forbidden(
                "status.certificate",
                "updates may not set certificate content",
            ));
        } else if !before.is_empty() {
            errors.push(FieldError::forbidden(
                "status.certificate",
                "updates may not modify existing certificate content",
            ));
        }
    }
    errors
}

/// `validateConditions`, with what an old object already has tolerated.
fn validate_conditions(object: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let old_conditions = old.map(conditions).unwrap_or_default();
    let conditions = conditions(object);
    let old_type = |t: &str| old_conditions.iter().filter(|c| kind_of(c) == t).count();
    let allow_empty = old_type("") > 0;
    let allow_both = old_type(APPROVED) > 0 && old_type(DENIED) > 0;
    let allow_duplicates = {
        let mut seen = Vec::new();
        old_conditions.iter().any(|c| {
            let dup = seen.contains(&kind_of(c));
            seen.push(kind_of(c));
            dup
        })
    };
    let mut errors = Vec::new();
    let (mut approved, mut denied) = (false, false);
    let mut seen: Vec<&str> = Vec::new();
    for (i, condition) in conditions.iter().enumerate() {
        let at = format!("status.conditions[{i}]");
        let kind = kind_of(condition);
        if !allow_empty && kind.is_empty() {
            errors.push(FieldError::required(format!("{at}.type"), ""));
        }
        let allowed: &[&str] = if [APPROVED, DENIED, FAILED].contains(&kind) {
            &["True"]
        } else {
            &["False", "True", "Unknown"]
        };
        let status = condition
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("");
        if status.is_empty() {
            errors.push(FieldError::required(format!("{at}.status"), ""));
        } else if !allowed.contains(&status) {
            let allowed: Vec<String> = allowed.iter().map(|s| (*s).to_owned()).collect();
            errors.push(FieldError::not_supported(
                format!("{at}.status"),
                BadValue::String(status.to_owned()),
                &allowed,
            ));
        }
        if !allow_both {
            let clash = match kind {
                APPROVED => {
                    approved = true;
                    denied
                }
                DENIED => {
                    denied = true;
                    approved
                }
                _ => false,
            };
            if clash {
                errors.push(FieldError::invalid(
                    "status.conditions",
                    BadValue::String(kind.to_owned()),
                    "Approved and Denied conditions are mutually exclusive",
                ));
            }
        }
        if !allow_duplicates {
            if seen.contains(&kind) {
                errors.push(FieldError::duplicate(
                    format!("{at}.type"),
                    BadValue::String(kind.to_owned()),
                ));
            }
            seen.push(kind);
        }
    }
    errors
}

/// `populateConditionTimestamps`: a condition without `lastUpdateTime` gets now; without
/// `lastTransitionTime`, the old one of a condition of the same type and status, else now.
fn stamp(old: &Value, result: &mut Value) {
    let time = now();
    let old_conditions = conditions(old);
    let Some(list) = result
        .pointer_mut("/status/conditions")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for condition in list.iter_mut().filter_map(Value::as_object_mut) {
        if is_zero(condition.get("lastUpdateTime")) {
            condition.insert("lastUpdateTime".into(), Value::from(time.clone()));
        }
        if is_zero(condition.get("lastTransitionTime")) {
            let same = old_conditions.iter().find(|o| {
                o.get("type") == condition.get("type")
                    && o.get("status") == condition.get("status")
                    && !is_zero(o.get("lastTransitionTime"))
            });
            let at = same
                .and_then(|o| o.get("lastTransitionTime").cloned())
                .unwrap_or_else(|| Value::from(time.clone()));
            condition.insert("lastTransitionTime".into(), at);
        }
    }
}

fn is_zero(time: Option<&Value>) -> bool {
    time.is_none_or(|t| t.is_null() || t.as_str() == Some(""))
}

fn conditions(object: &Value) -> Vec<&Value> {
    object
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .map(|list| list.iter().collect())
        .unwrap_or_default()
}

fn kind_of(condition: &Value) -> &str {
    condition.get("type").and_then(Value::as_str).unwrap_or("")
}

fn indices(object: &Value, kind: &str) -> Vec<usize> {
    conditions(object)
        .iter()
        .enumerate()
        .filter(|(_, c)| kind_of(c) == kind)
        .map(|(i, _)| i)
        .collect()
}
