//! Where two JSON values differ, as JSON pointers, for readable round-trip failures.

use serde_json::Value;

/// Every place where `expected` and `actual` differ (at most `limit`), as
/// `pointer: expected … found …` lines.
pub fn differences(expected: &Value, actual: &Value, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    walk(expected, actual, &mut String::new(), &mut out, limit);
    out
}

fn walk(
    expected: &Value,
    actual: &Value,
    pointer: &mut String,
    out: &mut Vec<String>,
    limit: usize,
) {
    if out.len() >= limit {
        return;
    }
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, e_value) in e {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                match a.get(key) {
                    Some(a_value) => walk(e_value, a_value, pointer, out, limit),
                    None => out.push(format!(
                        "{pointer}: missing after the round trip (was {e_value})"
                    )),
                }
                pointer.truncate(len);
            }
            for key in a.keys().filter(|k| !e.contains_key(*k)) {
                out.push(format!(
                    "{pointer}/{key}: added by the round trip ({})",
                    a[key]
                ));
            }
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            for (i, (e_item, a_item)) in e.iter().zip(a).enumerate() {
                let len = pointer.len();
                pointer.push_str(&format!("/{i}"));
                walk(e_item, a_item, pointer, out, limit);
                pointer.truncate(len);
            }
        }
        _ if expected == actual => {}
        _ => out.push(format!("{pointer}: expected {expected}, found {actual}")),
    }
}
