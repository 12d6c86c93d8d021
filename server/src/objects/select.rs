//! Label selectors (equality, set-based, existence) and field selectors on `metadata.name`
//! and `metadata.namespace`, as the API concepts page "Labels and Selectors" defines them.

use serde_json::Value;

use crate::wire::query::Query;
use crate::wire::status::Failure;

/// One requirement of a label selector.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Requirement {
    Exists(String),
    NotExists(String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
}

/// A parsed label selector: every requirement must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelSelector(Vec<Requirement>);

impl LabelSelector {
    /// Parses `app=web,tier in (a,b),!legacy,env!=prod`.
    pub fn parse(text: &str) -> Result<LabelSelector, String> {
        let mut requirements = Vec::new();
        for part in split_top_level(text) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            requirements.push(parse_requirement(part)?);
        }
        Ok(LabelSelector(requirements))
    }

    /// Whether `labels` (an object of strings, or absent) satisfy every requirement.
    pub fn matches(&self, labels: Option<&Value>) -> bool {
        let get = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
        self.0.iter().all(|requirement| match requirement {
            Requirement::Exists(key) => get(key).is_some(),
            Requirement::NotExists(key) => get(key).is_none(),
            Requirement::In(key, values) => get(key).is_some_and(|v| values.iter().any(|x| x == v)),
            Requirement::NotIn(key, values) => {
                get(key).is_none_or(|v| values.iter().all(|x| x != v))
            }
        })
    }
}

/// Splits at commas outside parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn parse_requirement(part: &str) -> Result<Requirement, String> {
    if let Some(key) = part.strip_prefix('!') {
        return Ok(Requirement::NotExists(check_key(key.trim())?));
    }
    for (operator, negated) in [("!=", true), ("==", false), ("=", false)] {
        if let Some((key, value)) = part.split_once(operator) {
            let key = check_key(key.trim())?;
            let value = value.trim().to_owned();
            return Ok(if negated {
                Requirement::NotIn(key, vec![value])
            } else {
                Requirement::In(key, vec![value])
            });
        }
    }
    let words: Vec<&str> = part.splitn(2, char::is_whitespace).collect();
    if let [key, rest] = words[..] {
        let rest = rest.trim_start();
        let (negated, list) = if let Some(list) = rest.strip_prefix("notin") {
            (true, list)
        } else if let Some(list) = rest.strip_prefix("in") {
            (false, list)
        } else {
            return Err(format!("unable to parse requirement: {part:?}"));
        };
        let list = list.trim();
        let inner = list
            .strip_prefix('(')
            .and_then(|l| l.strip_suffix(')'))
            .ok_or_else(|| {
                format!("unable to parse requirement: {part:?}: expected a parenthesised list")
            })?;
        let values = inner.split(',').map(|v| v.trim().to_owned()).collect();
        let key = check_key(key)?;
        return Ok(if negated {
            Requirement::NotIn(key, values)
        } else {
            Requirement::In(key, values)
        });
    }
    Ok(Requirement::Exists(check_key(part)?))
}

fn check_key(key: &str) -> Result<String, String> {
    let valid = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    if valid {
        Ok(key.to_owned())
    } else {
        Err(format!("invalid label key {key:?}"))
    }
}

/// A field selector over `metadata.name` and `metadata.namespace`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSelector(Vec<(String, bool, String)>);

impl FieldSelector {
    /// Parses `metadata.name=x,metadata.namespace!=y`; other fields are refused, as the
    /// API server refuses fields a resource does not index.
    pub fn parse(text: &str) -> Result<FieldSelector, String> {
        let mut terms = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (field, negated, value) = if let Some((f, v)) = part.split_once("!=") {
                (f, true, v)
            } else if let Some((f, v)) = part.split_once("==") {
                (f, false, v)
            } else if let Some((f, v)) = part.split_once('=') {
                (f, false, v)
            } else {
                return Err(format!("invalid field selector term {part:?}"));
            };
            let field = field.trim();
            if field != "metadata.name" && field != "metadata.namespace" {
                return Err(format!(
                    "field label not supported: {field} (only metadata.name and metadata.namespace)"
                ));
            }
            terms.push((field.to_owned(), negated, value.trim().to_owned()));
        }
        Ok(FieldSelector(terms))
    }

    /// Whether `object` satisfies every term.
    pub fn matches(&self, object: &Value) -> bool {
        self.0.iter().all(|(field, negated, value)| {
            let key = field.trim_start_matches("metadata.");
            let actual = object
                .pointer(&format!("/metadata/{key}"))
                .and_then(Value::as_str)
                .unwrap_or("");
            (actual == value) != *negated
        })
    }
}

/// A list's or watch's namespace and selectors.
#[derive(Clone, Debug)]
pub(crate) struct Filter {
    namespace: Option<String>,
    labels: LabelSelector,
    fields: FieldSelector,
}

impl Filter {
    pub(crate) fn new(namespace: Option<&str>, query: &Query) -> Result<Filter, Failure> {
        Ok(Filter {
            namespace: namespace.map(str::to_owned),
            labels: LabelSelector::parse(query.get("labelSelector").unwrap_or(""))
                .map_err(Failure::bad_request)?,
            fields: FieldSelector::parse(query.get("fieldSelector").unwrap_or(""))
                .map_err(Failure::bad_request)?,
        })
    }

    pub(crate) fn matches(&self, object: &Value) -> bool {
        let namespace_ok = self.namespace.as_deref().is_none_or(|ns| {
            object
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or("")
                == ns
        });
        namespace_ok
            && self.labels.matches(object.pointer("/metadata/labels"))
            && self.fields.matches(object)
    }
}

#[cfg(test)]
mod tests {
    use super::{FieldSelector, LabelSelector};
    use serde_json::json;

    #[test]
    fn label_selectors_follow_the_concepts_page() {
        let labels = json!({"app": "web", "tier": "front", "env": "dev"});
        let yes = [
            "app=web",
            "app==web",
            "env!=prod",
            "tier in (front, back)",
            "env notin (prod)",
            "app",
            "!legacy",
            "app=web,tier in (front),!legacy",
            "",
        ];
        for text in yes {
            assert!(
                LabelSelector::parse(text).unwrap().matches(Some(&labels)),
                "{text}"
            );
        }
        let no = [
            "app=db",
            "env!=dev",
            "tier in (back)",
            "tier notin (front,x)",
            "legacy",
            "!app",
            "app=web,legacy",
        ];
        for text in no {
            assert!(
                !LabelSelector::parse(text).unwrap().matches(Some(&labels)),
                "{text}"
            );
        }
        assert!(LabelSelector::parse("x notin (a)").unwrap().matches(None));
        assert!(LabelSelector::parse("tier in front").is_err());
        assert!(LabelSelector::parse("a b").is_err());
    }

    #[test]
    fn field_selectors_take_name_and_namespace_only() {
        let object = json!({"metadata": {"name": "a", "namespace": "ns"}});
        assert!(
            FieldSelector::parse("metadata.name=a")
                .unwrap()
                .matches(&object)
        );
        assert!(
            FieldSelector::parse("metadata.namespace!=other,metadata.name==a")
                .unwrap()
                .matches(&object)
        );
        assert!(
            !FieldSelector::parse("metadata.name=b")
                .unwrap()
                .matches(&object)
        );
        assert!(FieldSelector::parse("spec.nodeName=x").is_err());
    }
}
