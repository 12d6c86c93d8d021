//! The field labels a resource's objects can be selected by (`fieldSelector`), and each
//! label's value in an object: for the built-in kinds, the rules of
//! `data/field-labels.txt` (each kind's field label conversion and `GetAttrs`, see its
//! header); for a custom resource, `metadata.name`, `metadata.namespace` when namespaced,
//! and its CRD's `selectableFields` (apiextensions-apiserver's `crConverter`); for any other
//! kind, apimachinery's `DefaultMetaV1FieldSelectorConversion`.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use crate::objects::catalog::Catalog;

/// The rules file.
const RULES: &str = include_str!("../../data/field-labels.txt");

/// How a label's value is written, as Go's strategies stringify the field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// A string as it is.
    Text,
    /// `strconv.FormatBool`: `true`, or `false` when absent.
    Bool,
    /// `strconv.Itoa`: the number, or `0` when absent.
    Int,
}

/// One kind's rules.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct KindRules {
    /// The refusal, with `{label}` and `{label:q}` to fill.
    refuse: String,
    /// Each label the conversion takes and where its value is (no pointers: no value).
    labels: Vec<(String, Vec<String>, Format)>,
    /// Labels the conversion renames.
    aliases: Vec<(String, String)>,
}

/// Every built-in kind's rules, by `(group, version, kind)` (`""` for the core group).
type Rules = HashMap<(String, String, String), KindRules>;

/// The rules of `data/field-labels.txt`, read once.
fn rules() -> &'static Rules {
    static PARSED: OnceLock<Rules> = OnceLock::new();
    PARSED.get_or_init(|| parse(RULES).0)
}

/// Reads rules, and says which lines could not be read (none, `tests` checks).
fn parse(text: &str) -> (Rules, Vec<String>) {
    let mut rules = Rules::new();
    let mut errors = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.splitn(5, ' ');
        let (Some(group), Some(version), Some(kind), Some(rule), Some(rest)) = (
            words.next(),
            words.next(),
            words.next(),
            words.next(),
            words.next(),
        ) else {
            errors.push(line.to_owned());
            continue;
        };
        let group = if group == "core" { "" } else { group };
        let entry = rules
            .entry((group.to_owned(), version.to_owned(), kind.to_owned()))
            .or_default();
        let args: Vec<&str> = rest.split(' ').collect();
        match (rule, &args[..]) {
            ("refuse", _) => entry.refuse = rest.to_owned(),
            ("label", [label, pointers, format @ ..]) => {
                let format = match format {
                    [] => Format::Text,
                    ["bool"] => Format::Bool,
                    ["int"] => Format::Int,
                    _ => {
                        errors.push(line.to_owned());
                        continue;
                    }
                };
                let pointers = if *pointers == "-" {
                    Vec::new()
                } else {
                    pointers.split('|').map(str::to_owned).collect()
                };
                entry.labels.push(((*label).to_owned(), pointers, format));
            }
            ("alias", [label, target]) => {
                entry
                    .aliases
                    .push(((*label).to_owned(), (*target).to_owned()));
            }
            _ => errors.push(line.to_owned()),
        }
    }
    (rules, errors)
}

/// What one resource's field selectors may name, and where each label's value is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Labels {
    /// A built-in kind with a conversion of its own.
    Builtin(&'static KindRules),
    /// A custom resource: `metadata.name`, `metadata.namespace` when namespaced, and these
    /// (its CRD's `selectableFields`, as labels: `spec.color`).
    Custom {
        namespaced: bool,
        selectable: Vec<String>,
    },
    /// Any other kind: `metadata.name` and `metadata.namespace`.
    Default,
}

impl Labels {
    /// The labels of the resource at `index`.
    pub(crate) fn of(catalog: &Catalog, index: usize) -> Labels {
        let Some(def) = catalog.resources.get(index) else {
            return Labels::Default;
        };
        let key = (def.group.clone(), def.version.clone(), def.kind.clone());
        let custom = !def.selectable_fields.is_empty()
            || catalog
                .schemas
                .root_of(&def.group, &def.version, &def.kind)
                .is_some_and(|root| !root.builtin);
        if custom {
            return Labels::Custom {
                namespaced: def.namespaced,
                selectable: def.selectable_fields.clone(),
            };
        }
        rules().get(&key).map_or(Labels::Default, Labels::Builtin)
    }

    /// The conversion of a label a request names: the label to select by, or the message
    /// the API server refuses it with.
    pub(crate) fn convert(&self, label: &str) -> Result<String, String> {
        match self {
            Labels::Builtin(rules) => {
                if let Some((_, target)) = rules.aliases.iter().find(|(a, _)| a == label) {
                    return Ok(target.clone());
                }
                if rules.labels.iter().any(|(l, _, _)| l == label) {
                    return Ok(label.to_owned());
                }
                Err(rules
                    .refuse
                    .replace("{label:q}", &quoted(label))
                    .replace("{label}", label))
            }
            Labels::Custom {
                namespaced,
                selectable,
            } => {
                let known = selectable.iter().any(|s| s == label)
                    || label == "metadata.name"
                    || (*namespaced && label == "metadata.namespace");
                if known {
                    Ok(label.to_owned())
                } else {
                    Err(format!("field label not supported: {label}"))
                }
            }
            Labels::Default => match label {
                "metadata.name" | "metadata.namespace" => Ok(label.to_owned()),
                _ => Err(format!(
                    "{} is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
                    quoted(label)
                )),
            },
        }
    }

    /// The value of a converted `label` in `object`, as the kind's `GetAttrs` writes it
    /// (`""` for a label it gives no value).
    pub(crate) fn value(&self, object: &Value, label: &str) -> String {
        match self {
            Labels::Builtin(rules) => rules
                .labels
                .iter()
                .find(|(l, _, _)| l == label)
                .map(|(_, pointers, format)| read(object, pointers, *format))
                .unwrap_or_default(),
            Labels::Custom { .. } | Labels::Default => {
                let pointer = format!("/{}", label.replace('.', "/"));
                match object.pointer(&pointer) {
                    Some(Value::String(text)) => text.clone(),
                    Some(Value::Bool(b)) => b.to_string(),
                    Some(Value::Number(n)) => n.to_string(),
                    _ => String::new(),
                }
            }
        }
    }
}

/// The value at the first of `pointers` that holds one, written as `format` says.
fn read(object: &Value, pointers: &[String], format: Format) -> String {
    match format {
        Format::Text => pointers
            .iter()
            .filter_map(|p| object.pointer(p).and_then(Value::as_str))
            .find(|text| !text.is_empty())
            .unwrap_or("")
            .to_owned(),
        Format::Bool => pointers
            .iter()
            .find_map(|p| object.pointer(p).and_then(Value::as_bool))
            .unwrap_or(false)
            .to_string(),
        Format::Int => pointers
            .iter()
            .find_map(|p| object.pointer(p).and_then(Value::as_i64))
            .unwrap_or(0)
            .to_string(),
    }
}

/// `text` as Go's `%q` writes a string (JSON's escapes agree for what labels hold).
fn quoted(text: &str) -> String {
    Value::from(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::{Labels, RULES, parse, rules};
    use serde_json::json;

    #[test]
    fn every_rule_is_read() {
        let (parsed, errors) = parse(RULES);
        assert_eq!(errors, Vec::<String>::new());
        for ((group, version, kind), rules) in &parsed {
            assert!(
                !rules.refuse.is_empty() && !rules.labels.is_empty(),
                "{group}/{version} {kind} needs a refusal and labels"
            );
        }
    }

    fn pod() -> Labels {
        Labels::Builtin(&rules()[&(String::new(), "v1".into(), "Pod".into())])
    }

    #[test]
    fn a_pods_labels_are_its_strategys() {
        let labels = pod();
        assert_eq!(labels.convert("spec.host").unwrap(), "spec.nodeName");
        assert_eq!(
            labels.convert("spec.containers").unwrap_err(),
            "field label not supported: spec.containers"
        );
        let object =
            json!({"spec": {"nodeName": "n1"}, "status": {"podIPs": [{"ip": "10.0.0.1"}]}});
        assert_eq!(labels.value(&object, "spec.nodeName"), "n1");
        assert_eq!(labels.value(&object, "spec.hostNetwork"), "false");
        assert_eq!(labels.value(&object, "status.podIP"), "10.0.0.1");
        assert_eq!(labels.value(&object, "status.podIPs"), "");
    }

    #[test]
    fn kinds_without_a_conversion_take_name_and_namespace() {
        assert_eq!(
            Labels::Default.convert("status.replicas").unwrap_err(),
            r#""status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace""#
        );
        let job = Labels::Builtin(&rules()[&("batch".into(), "v1".into(), "Job".into())]);
        assert_eq!(
            job.convert("status.failed").unwrap_err(),
            r#"field label "status.failed" not supported for batchv1.Job"#
        );
        assert_eq!(job.value(&json!({}), "status.successful"), "0");
    }

    #[test]
    fn a_custom_resource_takes_its_selectable_fields() {
        let labels = Labels::Custom {
            namespaced: false,
            selectable: vec!["spec.color".into()],
        };
        assert!(labels.convert("spec.color").is_ok());
        assert_eq!(
            labels.convert("metadata.namespace").unwrap_err(),
            "field label not supported: metadata.namespace"
        );
        assert_eq!(
            labels.value(&json!({"spec": {"color": "red"}}), "spec.color"),
            "red"
        );
        assert_eq!(
            labels.value(&json!({"spec": {"size": 3}}), "spec.size"),
            "3"
        );
    }
}
