//! What the printers of every family share: the row type and the common cells.

use serde_json::Value;

use super::super::fields::{count, int, text};
use super::super::format::since;

/// Computes a row's cells from an object.
pub(super) type Cells = fn(&Value) -> Vec<Value>;

/// The `Name` cell.
pub(crate) fn name(object: &Value) -> Value {
    string(object, "/metadata/name")
}

/// The `Age` cell: the time since the object's creation.
pub(crate) fn age(object: &Value) -> Value {
    Value::from(
        object
            .pointer("/metadata/creationTimestamp")
            .and_then(Value::as_str)
            .map_or_else(|| "<unknown>".to_owned(), since),
    )
}

/// A cell of the string at `pointer`, empty when absent.
pub(super) fn string(object: &Value, pointer: &str) -> Value {
    Value::from(text(object, pointer))
}

/// A cell of the integer at `pointer`, 0 when absent.
pub(super) fn integer(object: &Value, pointer: &str) -> Value {
    Value::from(int(object, pointer))
}

/// A cell of the length of the array or map at `pointer`.
pub(super) fn length(object: &Value, pointer: &str) -> Value {
    Value::from(count(object, pointer) as i64)
}

/// `Name` and `Age`, the printers of kinds with no other column.
pub(super) fn name_age(object: &Value) -> Vec<Value> {
    vec![name(object), age(object)]
}
