//! Field paths as structured-merge-diff names them (`fieldpath.PathElement`): a struct or
//! map field, the key fields of a map-list item, a set item's value, or a list index; their
//! order, their printed form (`.spec.containers[name="app"].image`) and their `FieldsV1`
//! keys (`f:spec`, `k:{"name":"app"}`, `v:"a"`, `i:0`).

use std::cmp::Ordering;
use std::fmt;

use serde_json::Value;

use super::value;

/// One step of a path.
#[derive(Clone, Debug)]
pub(crate) enum Element {
    /// A field of a struct, or a key of a map (`f:`).
    Field(String),
    /// A map-list item by its key fields, sorted by name (`k:`).
    Key(Vec<(String, Value)>),
    /// A set item by its value (`v:`).
    Value(Value),
    /// A list item by its position (`i:`).
    Index(usize),
}

/// A path from the root of an object.
pub(crate) type Path = Vec<Element>;

impl Element {
    fn rank(&self) -> u8 {
        match self {
            Element::Field(_) => 0,
            Element::Key(_) => 1,
            Element::Value(_) => 2,
            Element::Index(_) => 3,
        }
    }

    /// The `FieldsV1` key of this element.
    pub(crate) fn to_key(&self) -> String {
        match self {
            Element::Field(name) => format!("f:{name}"),
            Element::Key(fields) => {
                let map: serde_json::Map<String, Value> = fields.iter().cloned().collect();
                format!("k:{}", Value::Object(map))
            }
            Element::Value(v) => format!("v:{v}"),
            Element::Index(i) => format!("i:{i}"),
        }
    }

    /// The element of a `FieldsV1` key; `Ok(None)` for a kind of key this version does not
    /// know (skipped, as the API server does).
    pub(crate) fn from_key(key: &str) -> Result<Option<Element>, String> {
        let Some((kind, rest)) = key.split_at_checked(2).filter(|(k, _)| k.ends_with(':')) else {
            return Err(format!("missing colon: {key}"));
        };
        Ok(Some(match kind {
            "f:" => Element::Field(rest.to_owned()),
            "v:" => Element::Value(serde_json::from_str(rest).map_err(|e| format!("{key}: {e}"))?),
            "k:" => {
                let map: serde_json::Map<String, Value> =
                    serde_json::from_str(rest).map_err(|e| format!("{key}: {e}"))?;
                let mut fields: Vec<(String, Value)> = map.into_iter().collect();
                fields.sort_by(|a, b| a.0.cmp(&b.0));
                Element::Key(fields)
            }
            "i:" => Element::Index(rest.parse().map_err(|e| format!("{key}: {e}"))?),
            _ => return Ok(None),
        }))
    }
}

impl Ord for Element {
    fn cmp(&self, other: &Element) -> Ordering {
        match (self, other) {
            (Element::Field(a), Element::Field(b)) => a.cmp(b),
            (Element::Key(a), Element::Key(b)) => {
                for ((an, av), (bn, bv)) in a.iter().zip(b) {
                    let c = an.cmp(bn).then_with(|| value::compare(av, bv));
                    if c != Ordering::Equal {
                        return c;
                    }
                }
                a.len().cmp(&b.len())
            }
            (Element::Value(a), Element::Value(b)) => value::compare(a, b),
            (Element::Index(a), Element::Index(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for Element {
    fn partial_cmp(&self, other: &Element) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Element {
    fn eq(&self, other: &Element) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Element {}

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Element::Field(name) => write!(f, ".{name}"),
            Element::Key(fields) => {
                let parts: Vec<String> = fields
                    .iter()
                    .map(|(name, v)| format!("{name}={}", value::display(v)))
                    .collect();
                write!(f, "[{}]", parts.join(","))
            }
            Element::Value(v) => write!(f, "[={}]", value::display(v)),
            Element::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// A path as SMD prints it: its elements one after the other.
pub(crate) fn display(path: &[Element]) -> String {
    path.iter().map(ToString::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_round_trip_and_print_as_the_api_server_does() {
        let key = Element::Key(vec![
            ("containerPort".into(), json!(80)),
            ("protocol".into(), json!("TCP")),
        ]);
        assert_eq!(key.to_key(), r#"k:{"containerPort":80,"protocol":"TCP"}"#);
        assert_eq!(Element::from_key(&key.to_key()).unwrap(), Some(key.clone()));
        let path = vec![
            Element::Field("spec".into()),
            Element::Field("ports".into()),
            key,
        ];
        assert_eq!(
            display(&path),
            r#".spec.ports[containerPort=80,protocol="TCP"]"#
        );
        assert_eq!(Element::Value(json!("a")).to_string(), r#"[="a"]"#);
        assert_eq!(Element::from_key("x:1").unwrap(), None);
        assert!(Element::from_key("f").is_err());
    }

    #[test]
    fn fields_before_keys_before_values_before_indexes() {
        let mut elements = [
            Element::Index(0),
            Element::Value(json!("a")),
            Element::Key(vec![("name".into(), json!("b"))]),
            Element::Field("z".into()),
        ];
        elements.sort();
        assert!(matches!(elements[0], Element::Field(_)));
        assert!(matches!(elements[3], Element::Index(_)));
        let nine = Element::Key(vec![("port".into(), json!(9))]);
        let ten = Element::Key(vec![("port".into(), json!(10))]);
        assert!(nine < ten);
    }
}
