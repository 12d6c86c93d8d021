//! Strict decoding (`fieldValidation=Strict`): JSON read with the paths of duplicate keys
//! (sigs.k8s.io/json's `DisallowDuplicateFields`), and the API server's message for them
//! and for unknown fields ([`super::prune`]'s paths).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// At most this many strict errors are kept, as in sigs.k8s.io/json.
const MAX_ERRORS: usize = 100;

/// Reads JSON text as a value (the last of duplicate keys wins, in the first's place, as
/// Go's decoder keeps it) and the paths of the duplicate keys (`spec.a`, `items[0].b`),
/// each once, in the order met.
///
/// # Errors
/// The text is not JSON.
pub fn parse_strict(text: &str) -> Result<(Value, Vec<String>), serde_json::Error> {
    let mut duplicates = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Tracked {
        path: String::new(),
        duplicates: &mut duplicates,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok((value, duplicates))
}

/// The API server's strict decoding error for duplicate and unknown fields:
/// `strict decoding error: duplicate field "spec.a", unknown field "spec.foo"` (duplicates
/// first, as the decoder finds them before pruning does). With `fieldValidation=Warn` each
/// part is one `Warning` header.
#[must_use]
pub fn strict_decoding_message(duplicates: &[String], unknown: &[String]) -> String {
    let parts: Vec<String> = strict_errors(duplicates, unknown);
    format!("strict decoding error: {}", parts.join(", "))
}

/// Each strict error alone (`duplicate field "spec.a"`, `unknown field "spec.foo"`), as the
/// `Warning` headers of `fieldValidation=Warn` carry them.
#[must_use]
pub fn strict_errors(duplicates: &[String], unknown: &[String]) -> Vec<String> {
    // sigs.k8s.io/json quotes with strconv.Quote; the CRD handler writes unknown fields
    // with `"%s"`, unescaped.
    duplicates
        .iter()
        .map(|p| format!("duplicate field {}", super::gofmt::quote(p)))
        .chain(unknown.iter().map(|p| format!("unknown field \"{p}\"")))
        .collect()
}

struct Tracked<'a> {
    path: String,
    duplicates: &'a mut Vec<String>,
}

impl<'de> DeserializeSeed<'de> for Tracked<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Tracked<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let path = format!("{}[{}]", self.path, items.len());
            match seq.next_element_seed(Tracked {
                path,
                duplicates: &mut *self.duplicates,
            })? {
                Some(v) => items.push(v),
                None => break,
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            let path = if self.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.path)
            };
            if map.contains_key(&key)
                && self.duplicates.len() < MAX_ERRORS
                && !self.duplicates.contains(&path)
            {
                self.duplicates.push(path.clone());
            }
            let value = access.next_value_seed(Tracked {
                path,
                duplicates: &mut *self.duplicates,
            })?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn duplicate_keys_are_found_with_their_paths() {
        let (value, dups) = parse_strict(
            r#"{"a": 1, "spec": {"x": [{"k": 1, "k": 2}], "x2": 0, "a": 1, "a": 2}, "a": 3}"#,
        )
        .unwrap();
        assert_eq!(dups, vec!["spec.x[0].k", "spec.a", "a"]);
        assert_eq!(
            value,
            json!({"a": 3, "spec": {"x": [{"k": 2}], "x2": 0, "a": 2}})
        );
        assert_eq!(
            strict_decoding_message(&dups[..1], &["spec.foo".to_owned()]),
            r#"strict decoding error: duplicate field "spec.x[0].k", unknown field "spec.foo""#
        );
        assert!(parse_strict("{").is_err());
        assert_eq!(
            parse_strict("[1.5, null, true]").unwrap(),
            (json!([1.5, null, true]), vec![])
        );
    }
}
