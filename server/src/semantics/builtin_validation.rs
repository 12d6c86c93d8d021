//! The built-in kinds' hand-written Go validation that their schemas cannot say, rule by
//! rule, each with the Go function it comes from (kubernetes/kubernetes
//! pkg/apis/core/validation/validation.go and apimachinery's
//! pkg/util/validation/validation.go), and the API server's messages. Run after the
//! metadata's and the schema's checks, as `Validate<Kind>` runs after `ValidateObjectMeta`.

use kubeforge_runtime::schema::{BadValue, FieldError, FieldPath};
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
    errors
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
