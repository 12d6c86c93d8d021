//! Values as structured-merge-diff orders, compares and prints them (`value.Compare`,
//! `value.Equals`, `value.ToString`): integers and floats compare as numbers, then strings,
//! booleans, lists, maps and null, in that order.

use std::cmp::Ordering;

use kubeforge_runtime::schema::gofmt::quote;
use serde_json::{Map, Number, Value};

/// A total order on JSON values (SMD's `value.Compare`).
pub(crate) fn compare(lhs: &Value, rhs: &Value) -> Ordering {
    match (lhs, rhs) {
        (Value::Number(l), Value::Number(r)) => compare_numbers(l, r),
        (Value::Number(_), _) => Ordering::Less,
        (_, Value::Number(_)) => Ordering::Greater,
        (Value::String(l), Value::String(r)) => l.cmp(r),
        (Value::String(_), _) => Ordering::Less,
        (_, Value::String(_)) => Ordering::Greater,
        (Value::Bool(l), Value::Bool(r)) => l.cmp(r),
        (Value::Bool(_), _) => Ordering::Less,
        (_, Value::Bool(_)) => Ordering::Greater,
        (Value::Array(l), Value::Array(r)) => {
            for (a, b) in l.iter().zip(r) {
                let c = compare(a, b);
                if c != Ordering::Equal {
                    return c;
                }
            }
            l.len().cmp(&r.len())
        }
        (Value::Array(_), _) => Ordering::Less,
        (_, Value::Array(_)) => Ordering::Greater,
        (Value::Object(l), Value::Object(r)) => compare_maps(l, r),
        (Value::Object(_), _) => Ordering::Less,
        (_, Value::Object(_)) => Ordering::Greater,
        (Value::Null, Value::Null) => Ordering::Equal,
    }
}

/// SMD's map order: keys walked in lexical order over both maps.
fn compare_maps(lhs: &Map<String, Value>, rhs: &Map<String, Value>) -> Ordering {
    let mut keys: Vec<&String> = lhs.keys().chain(rhs.keys()).collect();
    keys.sort();
    keys.dedup();
    for (i, key) in keys.into_iter().enumerate() {
        let c = if i == lhs.len() {
            Ordering::Less
        } else if i == rhs.len() {
            Ordering::Greater
        } else {
            match (lhs.get(key), rhs.get(key)) {
                (None, _) => Ordering::Greater,
                (_, None) => Ordering::Less,
                (Some(l), Some(r)) => compare(l, r),
            }
        };
        if c != Ordering::Equal {
            return c;
        }
    }
    Ordering::Equal
}

fn is_float(n: &Number) -> bool {
    !(n.is_i64() || n.is_u64())
}

fn as_f64(n: &Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

fn compare_numbers(l: &Number, r: &Number) -> Ordering {
    if is_float(l) || is_float(r) {
        as_f64(l).partial_cmp(&as_f64(r)).unwrap_or(Ordering::Equal)
    } else if let (Some(a), Some(b)) = (l.as_i64(), r.as_i64()) {
        a.cmp(&b)
    } else {
        // At least one is above i64::MAX.
        l.as_u64().unwrap_or(0).cmp(&r.as_u64().unwrap_or(0))
    }
}

/// Equality as SMD's `value.Equals`: numbers by value (`1 == 1.0`), maps by their keys.
pub(crate) fn equals(lhs: &Value, rhs: &Value) -> bool {
    match (lhs, rhs) {
        (Value::Number(l), Value::Number(r)) => compare_numbers(l, r) == Ordering::Equal,
        (Value::Array(l), Value::Array(r)) => {
            l.len() == r.len() && l.iter().zip(r).all(|(a, b)| equals(a, b))
        }
        (Value::Object(l), Value::Object(r)) => {
            l.len() == r.len()
                && l.iter()
                    .all(|(key, value)| r.get(key).is_some_and(|other| equals(value, other)))
        }
        _ => lhs == rhs,
    }
}

/// A value as SMD prints it in a path (`value.ToString`): strings quoted, numbers and
/// booleans bare.
pub(crate) fn display(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => quote(s),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(display).collect::<Vec<_>>().join(",")
        ),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k}={}", display(v)))
            .collect::<String>(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_by_value_and_kinds_in_smd_order() {
        assert_eq!(compare(&json!(1), &json!(1.0)), Ordering::Equal);
        assert!(equals(&json!(1), &json!(1.0)));
        assert_eq!(compare(&json!(9), &json!(10)), Ordering::Less);
        assert_eq!(compare(&json!(5), &json!("a")), Ordering::Less);
        assert_eq!(compare(&json!("a"), &json!(true)), Ordering::Less);
        assert_eq!(compare(&json!(true), &json!([])), Ordering::Less);
        assert_eq!(compare(&json!([]), &json!({})), Ordering::Less);
        assert_eq!(compare(&json!({}), &Value::Null), Ordering::Less);
        assert_eq!(compare(&json!([1, 2]), &json!([1])), Ordering::Greater);
    }

    #[test]
    fn display_quotes_strings_as_go() {
        assert_eq!(display(&json!("nginx")), "\"nginx\"");
        assert_eq!(display(&json!(80)), "80");
        // Go's `%q`, not only its control characters: a zero-width space is escaped.
        assert_eq!(display(&json!("a\"b\n\u{200b}")), r#""a\"b\n\u200b""#);
    }
}
