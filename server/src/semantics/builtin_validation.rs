//! The built-in kinds' hand-written Go validation that their schemas cannot say, rule by
//! rule, each with the Go function it comes from (kubernetes/kubernetes
//! pkg/apis/core/validation/validation.go and apimachinery's
//! pkg/util/validation/validation.go), and the API server's messages. Run after the
//! metadata's and the schema's checks, as `Validate<Kind>` runs after `ValidateObjectMeta`.

use kubeforge_runtime::schema::{BadValue, FieldError, FieldPath, gofmt};
use serde_json::Value;

use crate::objects::catalog::ResourceDef;

/// The maps whose keys are config keys, by `(group, resource)`: each reported field and the
/// maps its keys come from. `ValidateConfigMap` checks `data` and `binaryData`,
/// `ValidateSecret` `data`, where a `stringData` key is by then (the v1 conversion merges
/// `stringData` into `data`).
const CONFIG_KEY_MAPS: &[ConfigKeys] = &[
    ConfigKeys {
        group: "",
        plural: "configmaps",
        maps: &[("data", &["data"]), ("binaryData", &["binaryData"])],
    },
    ConfigKeys {
        group: "",
        plural: "secrets",
        maps: &[("data", &["data", "stringData"])],
    },
];

/// A resource whose maps' keys are config keys.
struct ConfigKeys {
    group: &'static str,
    plural: &'static str,
    /// Each field the errors name, and the maps whose keys it stands for.
    maps: &'static [(&'static str, &'static [&'static str])],
}

/// `validation.IsConfigMapKey`'s pattern, message and examples.
const CONFIG_KEY_MESSAGE: &str = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/// The errors of the hand-written rules for an object of `def`'s kind.
pub(crate) fn errors(def: &ResourceDef, object: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for rule in CONFIG_KEY_MAPS {
        if def.group != rule.group || def.plural != rule.plural {
            continue;
        }
        for (reported, maps) in rule.maps {
            let mut keys: Vec<&String> = maps
                .iter()
                .filter_map(|map| object.get(*map).and_then(Value::as_object))
                .flat_map(|m| m.keys())
                .collect();
            // Go ranges over a map in no fixed order; sorted is one of its orders.
            keys.sort();
            keys.dedup();
            for key in keys {
                let field = FieldPath::root().child(reported).key(key).render();
                for message in config_key_errors(key) {
                    errors.push(FieldError::invalid(
                        field.clone(),
                        BadValue::String(key.clone()),
                        message,
                    ));
                }
            }
        }
    }
    errors.extend(selector_errors(def, object));
    errors
}

/// The workloads whose `spec.selector` must select their template's labels
/// (`ValidatePodTemplateSpecForReplicaSet` for Deployments and ReplicaSets, and the same
/// check in `ValidateStatefulSetSpec` and `ValidateDaemonSetSpec`,
/// pkg/apis/apps/validation/validation.go).
const SELECTING_WORKLOADS: &[&str] = &["deployments", "replicasets", "statefulsets", "daemonsets"];

/// ``spec.template.metadata.labels: Invalid value: map[string]string{…}: `selector` does
/// not match template `labels` ``: the selector (a missing one selects nothing, as
/// `LabelSelectorAsSelector(nil)`) does not select the template's labels.
fn selector_errors(def: &ResourceDef, object: &Value) -> Option<FieldError> {
    if def.group != "apps" || !SELECTING_WORKLOADS.contains(&def.plural.as_str()) {
        return None;
    }
    let spec = object.get("spec")?;
    let labels = spec
        .pointer("/template/metadata/labels")
        .and_then(Value::as_object);
    let selector = spec.get("selector").filter(|s| !s.is_null());
    let empty = selector.is_some_and(|s| {
        s.get("matchLabels")
            .and_then(Value::as_object)
            .is_none_or(serde_json::Map::is_empty)
            && s.get("matchExpressions")
                .and_then(Value::as_array)
                .is_none_or(Vec::is_empty)
    });
    // An empty selector selects everything (it is refused on its own).
    if empty || selector.is_some_and(|s| selects(s, labels)) {
        return None;
    }
    Some(FieldError::invalid(
        "spec.template.metadata.labels",
        BadValue::Omitted,
        format!(
            "{}: `selector` does not match template `labels`",
            go_string_map(labels)
        ),
    ))
}

/// Whether a `LabelSelector` selects `labels` (`matchLabels` and every `matchExpressions`
/// requirement).
fn selects(selector: &Value, labels: Option<&serde_json::Map<String, Value>>) -> bool {
    let value = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
    let match_labels = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .all(|(k, v)| value(k) == v.as_str());
    let expressions = selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .all(|requirement| {
            let key = requirement.get("key").and_then(Value::as_str).unwrap_or("");
            let values: Vec<&str> = requirement
                .get("values")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            match requirement.get("operator").and_then(Value::as_str) {
                Some("In") => value(key).is_some_and(|v| values.contains(&v)),
                Some("NotIn") => value(key).is_none_or(|v| !values.contains(&v)),
                Some("Exists") => value(key).is_some(),
                Some("DoesNotExist") => value(key).is_none(),
                _ => false,
            }
        });
    match_labels && expressions
}

/// A Go `map[string]string` printed with `%#v`: keys sorted, strings quoted; `nil` as
/// `map[string]string(nil)`.
fn go_string_map(map: Option<&serde_json::Map<String, Value>>) -> String {
    let Some(map) = map else {
        return "map[string]string(nil)".to_owned();
    };
    let mut entries: Vec<(&String, &str)> = map
        .iter()
        .map(|(k, v)| (k, v.as_str().unwrap_or("")))
        .collect();
    entries.sort();
    let body: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{}:{}", gofmt::quote(k), gofmt::quote(v)))
        .collect();
    format!("map[string]string{{{}}}", body.join(", "))
}

/// `validation.IsConfigMapKey`: at most 253 characters, of `[-._a-zA-Z0-9]`, not `.` or
/// `..` nor starting with `..` (`hasChDirPrefix`).
fn config_key_errors(key: &str) -> Vec<&'static str> {
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
