//! The cells of the built-in kinds' rows, computed as `printers.go` computes them, one
//! function per printer, grouped by family. Each family lists its printers as
//! `(key, function)`; the key is the printers' `group/Kind`.

use serde_json::Value;

mod access;
mod cluster;
mod common;
mod core_api;
mod networking;
mod pods;
mod storage;
mod workloads;

use common::Cells;
pub(super) use common::{age, name};

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
