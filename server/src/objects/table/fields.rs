//! Reading an object's fields by JSON pointer, with Go's zero values for what is missing
//! (the printers read typed structs, where an absent field is empty).

use serde_json::Value;

/// The string at `pointer`; empty when absent.
pub(super) fn text<'a>(object: &'a Value, pointer: &str) -> &'a str {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The string under `key` of a JSON object (a list item); empty when absent.
pub(super) fn field<'a>(item: &'a Value, key: &str) -> &'a str {
    item.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The integer at `pointer`; 0 when absent.
pub(super) fn int(object: &Value, pointer: &str) -> i64 {
    object.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

/// The boolean at `pointer`, or `default`.
pub(super) fn flag(object: &Value, pointer: &str, default: bool) -> bool {
    object
        .pointer(pointer)
        .and_then(Value::as_bool)
        .unwrap_or(default)
}

/// The annotation `key` of the object; empty when absent.
pub(super) fn annotation<'a>(object: &'a Value, key: &str) -> &'a str {
    object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The items of the array at `pointer`; none when absent.
pub(super) fn list<'a>(object: &'a Value, pointer: &str) -> Vec<&'a Value> {
    object
        .pointer(pointer)
        .and_then(Value::as_array)
        .map(|l| l.iter().collect())
        .unwrap_or_default()
}

/// The strings of the array at `pointer` (the one reading every object's lists share).
pub(super) use crate::objects::meta::strings;

/// The length of the array or map at `pointer`: Go's `len`.
pub(super) fn count(object: &Value, pointer: &str) -> usize {
    match object.pointer(pointer) {
        Some(Value::Array(a)) => a.len(),
        Some(Value::Object(m)) => m.len(),
        _ => 0,
    }
}

/// The first condition of type `type_` in the array at `pointer`.
pub(super) fn condition<'a>(object: &'a Value, pointer: &str, type_: &str) -> Option<&'a Value> {
    list(object, pointer)
        .into_iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(type_))
}

/// Whether the object is being deleted.
pub(super) fn deleting(object: &Value) -> bool {
    object.pointer("/metadata/deletionTimestamp").is_some()
}

/// A map key as one JSON pointer token.
pub(super) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
