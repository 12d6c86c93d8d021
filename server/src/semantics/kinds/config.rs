//! ConfigMaps and Secrets (`ValidateConfigMap`, `ValidateSecret` and their `…Update`,
//! pkg/apis/core/validation/validation.go): keys as `IsConfigMapKey` checks them, a
//! ConfigMap's key in `data` and `binaryData` at once, the keys each Secret type needs, a
//! Secret's `type` fixed, and nothing changed once `immutable` is set.

use kubeforge_runtime::schema::{BadValue, FieldError, FieldPath};
use serde_json::{Map, Value};

use super::common::{Errors, at, object, same, text};

/// `validation.IsConfigMapKey`'s pattern, message and examples.
pub(super) const CONFIG_KEY_MESSAGE: &str = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

const IMMUTABLE_SET: &str = "field is immutable when `immutable` is set";

/// `ValidateConfigMap` (and `ValidateConfigMapUpdate` against `old`).
pub(super) fn config_map(object: &Value, old: Option<&Value>, errors: &mut Errors) {
    if let Some(old) = old {
        immutable_data(object, old, &["data", "binaryData"], errors);
    }
    let binary = keys(object, &["binaryData"]);
    for key in keys(object, &["data"]) {
        keys_errors("data", &[key], errors);
        if binary.contains(&key) {
            errors.push(FieldError::invalid(
                FieldPath::root().child("data").key(key).render(),
                BadValue::from(key),
                "duplicate of key present in binaryData",
            ));
        }
    }
    keys_errors("binaryData", &binary, errors);
}

/// `ValidateSecret` (and `ValidateSecretUpdate` against `old`). A `stringData` key is a
/// `data` key by then (the v1 conversion merges them).
pub(super) fn secret(object: &Value, old: Option<&Value>, errors: &mut Errors) {
    let ty = text(object, "type");
    if let Some(old) = old {
        let old_ty = text(old, "type");
        if ty != old_ty {
            errors.push(FieldError::invalid(
                "type",
                BadValue::from(ty),
                super::common::FIELD_IMMUTABLE,
            ));
        }
        immutable_data(object, old, &["data", "stringData"], errors);
    }
    let data = keys(object, &["data", "stringData"]);
    keys_errors("data", &data, errors);
    let required =
        |key: &str| FieldError::required(FieldPath::root().child("data").key(key).render(), "");
    let has = |key: &str| data.contains(&key);
    match ty {
        "kubernetes.io/service-account-token" => {
            let annotation = object
                .pointer("/metadata/annotations/kubernetes.io~1service-account.name")
                .and_then(Value::as_str)
                .unwrap_or("");
            if annotation.is_empty() {
                errors.push(FieldError::required(
                    "metadata.annotations[kubernetes.io/service-account.name]",
                    "",
                ));
            }
        }
        "kubernetes.io/dockercfg" if !has(".dockercfg") => errors.push(required(".dockercfg")),
        "kubernetes.io/dockerconfigjson" if !has(".dockerconfigjson") => {
            errors.push(required(".dockerconfigjson"));
        }
        "kubernetes.io/basic-auth" if !has("username") && !has("password") => {
            errors.push(required("username"));
            errors.push(required("password"));
        }
        "kubernetes.io/ssh-auth" if !has("ssh-privatekey") => {
            errors.push(required("ssh-privatekey"))
        }
        "kubernetes.io/tls" => {
            for key in ["tls.crt", "tls.key"] {
                if !has(key) {
                    errors.push(required(key));
                }
            }
        }
        _ => {}
    }
}

/// Once the stored object is `immutable`, neither that nor its data may change.
fn immutable_data(object: &Value, old: &Value, maps: &[&str], errors: &mut Errors) {
    if old.get("immutable") != Some(&Value::Bool(true)) {
        return;
    }
    if object.get("immutable") != Some(&Value::Bool(true)) {
        errors.push(FieldError::forbidden("immutable", IMMUTABLE_SET));
    }
    // A Secret's `stringData` is part of its `data`: compared together.
    let merged = |o: &Value| -> Value {
        let mut all = Map::new();
        for map in maps.iter().filter(|m| **m != "binaryData") {
            all.extend(object_of(o, map));
        }
        Value::Object(all)
    };
    if !same(&merged(object), &merged(old)) {
        errors.push(FieldError::forbidden("data", IMMUTABLE_SET));
    }
    if maps.contains(&"binaryData") && !same(at(object, "binaryData"), at(old, "binaryData")) {
        errors.push(FieldError::forbidden("binaryData", IMMUTABLE_SET));
    }
}

fn object_of(value: &Value, key: &str) -> Map<String, Value> {
    object(value, key).cloned().unwrap_or_default()
}

/// The keys of `maps`, sorted (Go ranges over a map in no fixed order; sorted is one of
/// its orders) and once each.
fn keys<'a>(object: &'a Value, maps: &[&str]) -> Vec<&'a str> {
    let mut keys: Vec<&str> = maps
        .iter()
        .filter_map(|map| super::common::object(object, map))
        .flat_map(|m| m.keys().map(String::as_str))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

fn keys_errors(reported: &str, keys: &[&str], errors: &mut Errors) {
    for key in keys {
        let field = FieldPath::root().child(reported).key(key).render();
        for message in config_key_errors(key) {
            errors.push(FieldError::invalid(
                field.clone(),
                BadValue::from(*key),
                message,
            ));
        }
    }
}

/// `validation.IsConfigMapKey`: at most 253 characters, of `[-._a-zA-Z0-9]`, not `.` or
/// `..` nor starting with `..` (`hasChDirPrefix`).
pub(super) fn config_key_errors(key: &str) -> Vec<&'static str> {
    let mut errors = Vec::new();
    if key.len() > 253 {
        errors.push("must be no more than 253 characters");
    }
    if key.is_empty()
        || !key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        errors.push(CONFIG_KEY_MESSAGE);
    }
    if key == "." {
        errors.push("must not be '.'");
    } else if key == ".." {
        errors.push("must not be '..'");
    } else if key.starts_with("..") {
        errors.push("must not start with '..'");
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_keys_as_is_config_map_key_checks_them() {
        assert!(config_key_errors("key.name").is_empty());
        assert!(config_key_errors("KEY_NAME-1").is_empty());
        assert_eq!(config_key_errors("a b"), [CONFIG_KEY_MESSAGE]);
        assert_eq!(config_key_errors(".."), ["must not be '..'"]);
        assert_eq!(config_key_errors("..a"), ["must not start with '..'"]);
    }
}
