//! Label selectors (equality, set-based, existence), as the API concepts page "Labels and
//! Selectors" defines them, and field selectors on the labels each resource supports
//! (`field_labels`).

use kubeforge_runtime::schema::gofmt::quote;
use serde_json::Value;

use crate::objects::catalog::Catalog;
use crate::objects::field_labels::Labels;
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
            return Err(format!("unable to parse requirement: {}", quote(part)));
        };
        let list = list.trim();
        let inner = list
            .strip_prefix('(')
            .and_then(|l| l.strip_suffix(')'))
            .ok_or_else(|| {
                format!(
                    "unable to parse requirement: {}: expected a parenthesised list",
                    quote(part)
                )
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
        Err(format!("invalid label key {}", quote(key)))
    }
}

/// A field selector: terms `label=value`, `label==value` or `label!=value`, each label one
/// the resource can be selected by (`field_labels`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldSelector {
    terms: Vec<(String, bool, String)>,
    labels: Labels,
}

impl FieldSelector {
    /// Parses `text` as apimachinery's `fields.ParseSelector` does (terms split at commas
    /// that no `\` escapes, sorted; `\,`, `\=` and `\\` escapes in values), then converts
    /// each label as the resource's field label conversion does, refusing the first (in
    /// that order) it does not take with the API server's message.
    pub(crate) fn parse(text: &str, labels: Labels) -> Result<FieldSelector, String> {
        let mut parts = split_terms(text);
        parts.sort_unstable();
        let mut terms = Vec::new();
        for part in parts.into_iter().filter(|p| !p.is_empty()) {
            let Some((field, operator, value)) = split_term(part) else {
                return Err(format!(
                    "invalid selector: '{text}'; can't understand '{part}'"
                ));
            };
            terms.push((field, operator == "!=", unescape(value)?));
        }
        let terms = terms
            .into_iter()
            .map(|(field, negated, value)| Ok((labels.convert(field)?, negated, value)))
            .collect::<Result<_, String>>()?;
        Ok(FieldSelector { terms, labels })
    }

    /// Whether `object` satisfies every term.
    pub fn matches(&self, object: &Value) -> bool {
        self.terms
            .iter()
            .all(|(label, negated, value)| (self.labels.value(object, label) == *value) != *negated)
    }
}

/// The terms of a field selector: split at commas not escaped by a backslash.
fn split_terms(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let (mut start, mut escaped) = (0, false);
    for (i, c) in text.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == ',' {
            terms.push(&text[start..i]);
            start = i + 1;
        }
    }
    terms.push(&text[start..]);
    terms
}

/// A term's label, operator and value, at the first operator (`!=`, `==`, `=`).
fn split_term(term: &str) -> Option<(&str, &'static str, &str)> {
    term.char_indices().find_map(|(i, _)| {
        ["!=", "==", "="]
            .into_iter()
            .find(|op| term[i..].starts_with(op))
            .map(|op| (&term[..i], op, &term[i + op.len()..]))
    })
}

/// A value with its escapes undone, as `fields.UnescapeValue` does.
fn unescape(value: &str) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut escaped = false;
    for c in value.chars() {
        if escaped {
            if !matches!(c, '\\' | ',' | '=') {
                return Err(format!(
                    "invalid field selector: invalid escape sequence: \\{c}"
                ));
            }
            out.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == ',' || c == '=' {
            // Go writes the rune with %v: its number.
            return Err(format!(
                "invalid field selector: unescaped character in value: {}",
                u32::from(c)
            ));
        } else {
            out.push(c);
        }
    }
    if escaped {
        return Err("invalid field selector: invalid escape sequence: \\".to_owned());
    }
    Ok(out)
}

/// A list's or watch's namespace and selectors.
#[derive(Clone, Debug)]
pub(crate) struct Filter {
    namespace: Option<String>,
    labels: LabelSelector,
    fields: FieldSelector,
}

impl Filter {
    /// The filter of a list or watch of the resource at `index` of `catalog`.
    pub(crate) fn new(
        catalog: &Catalog,
        index: usize,
        namespace: Option<&str>,
        query: &Query,
    ) -> Result<Filter, Failure> {
        Ok(Filter {
            namespace: namespace.map(str::to_owned),
            labels: LabelSelector::parse(query.get("labelSelector").unwrap_or(""))
                .map_err(Failure::bad_request)?,
            fields: FieldSelector::parse(
                query.get("fieldSelector").unwrap_or(""),
                Labels::of(catalog, index),
            )
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
    use crate::objects::field_labels::Labels;
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
    fn field_selectors_parse_as_apimachinery_does() {
        let object = json!({"metadata": {"name": "a,b", "namespace": "ns"}});
        let parse = |text| FieldSelector::parse(text, Labels::Default);
        assert!(parse("metadata.name=a\\,b").unwrap().matches(&object));
        assert!(
            parse("metadata.namespace!=other,metadata.name==a\\,b")
                .unwrap()
                .matches(&object)
        );
        assert!(!parse("metadata.name=b").unwrap().matches(&object));
        assert!(parse("").unwrap().matches(&object));
        assert_eq!(
            parse("metadata.name").unwrap_err(),
            "invalid selector: 'metadata.name'; can't understand 'metadata.name'"
        );
        assert_eq!(
            parse("metadata.name=a=b").unwrap_err(),
            "invalid field selector: unescaped character in value: 61"
        );
        // Terms are sorted before they are converted: the first refused is `a.b`.
        assert_eq!(
            parse("z.y=1,a.b=2").unwrap_err(),
            r#""a.b" is not a known field selector: only "metadata.name", "metadata.namespace""#
        );
    }
}
