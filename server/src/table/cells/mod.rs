//! The cells of the built-in kinds' rows, computed as `printers.go` computes them, one
//! function per printer, grouped by family. Each family lists its printers as
//! `(key, function)`; the key is the printers' `group/Kind`.

use serde_json::Value;

use super::fields::{count, int, text};
use super::format::since;

mod access;
mod cluster;
mod core_api;
mod networking;
mod pods;
mod storage;
mod workloads;

/// Computes a row's cells from an object.
type Cells = fn(&Value) -> Vec<Value>;

const FAMILIES: [&[(&str, Cells)]; 7] = [
    pods::PRINTERS,
    workloads::PRINTERS,
    core_api::PRINTERS,
    networking::PRINTERS,
    storage::PRINTERS,
    access::PRINTERS,
    cluster::PRINTERS,
];

fn printers() -> impl Iterator<Item = &'static (&'static str, Cells)> {
    FAMILIES.into_iter().flatten()
}

/// The cells of one object, as the printer of its kind (`key`) computes them; none for a
/// kind without a printer.
pub(super) fn cells(key: &str, object: &Value) -> Option<Vec<Value>> {
    printers()
        .find(|(k, _)| *k == key)
        .map(|(_, cells)| cells(object))
}

/// The `Name` cell.
pub(super) fn name(object: &Value) -> Value {
    string(object, "/metadata/name")
}

/// The `Age` cell: the time since the object's creation.
pub(super) fn age(object: &Value) -> Value {
    Value::from(
        object
            .pointer("/metadata/creationTimestamp")
            .and_then(Value::as_str)
            .map_or_else(|| "<unknown>".to_owned(), since),
    )
}

/// A cell of the string at `pointer`, empty when absent.
fn string(object: &Value, pointer: &str) -> Value {
    Value::from(text(object, pointer))
}

/// A cell of the integer at `pointer`, 0 when absent.
fn integer(object: &Value, pointer: &str) -> Value {
    Value::from(int(object, pointer))
}

/// A cell of the length of the array or map at `pointer`.
fn length(object: &Value, pointer: &str) -> Value {
    Value::from(count(object, pointer) as i64)
}

/// `Name` and `Age`, the printers of kinds with no other column.
fn name_age(object: &Value) -> Vec<Value> {
    vec![name(object), age(object)]
}

#[cfg(test)]
mod tests {
    use super::printers;

    #[test]
    fn each_printer_is_listed_once() {
        let mut keys: Vec<&str> = printers().map(|(key, _)| *key).collect();
        let all = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), all);
    }
}
