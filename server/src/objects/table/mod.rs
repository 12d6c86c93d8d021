//! Tables (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`), what `kubectl get`
//! prints: the API server's printers for the built-in kinds (columns as data in
//! `data/printers.json`, cells computed as `printers.go` computes them), a custom
//! resource's `additionalPrinterColumns` evaluated as JSONPath, and `Name`/`Age` for the
//! rest. Every column is sent (the API server prints wide); `kubectl` hides those of
//! priority 1 unless `-o wide`.
//!
//! [`printers`] holds the columns as data, [`cells`] computes each built-in kind's cells,
//! [`custom`] a custom resource's, and [`format`] writes values as Go's printers do.

use serde_json::{Map, Value, json};

use crate::objects::catalog::{Catalog, ResourceDef};

mod cells;
mod custom;
mod fields;
mod format;
mod printers;

use custom::Custom;
use fields::text;

/// What each row carries besides its cells (`includeObject`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Include {
    None,
    Metadata,
    Object,
}

impl Include {
    pub(crate) fn of(query: Option<&str>) -> Include {
        match query {
            Some("None") => Include::None,
            Some("Object") => Include::Object,
            _ => Include::Metadata,
        }
    }
}

/// A `Table` of `objects` of `def`'s kind; `metadata` is the list's (resource version,
/// continue token); `headers` false leaves out the column definitions (watch events after
/// the first).
pub(crate) fn table(
    catalog: &Catalog,
    def: &ResourceDef,
    version: &str,
    objects: &[&Value],
    include: Include,
    metadata: Value,
    headers: bool,
) -> Value {
    let key = printers::key(def);
    let custom = Custom::of(&def.printer_columns);
    let columns = match &custom {
        Some(custom) => custom.column_definitions(catalog),
        None => printers::columns(catalog, &key),
    };
    let rows: Vec<Value> = objects
        .iter()
        .map(|object| {
            let cells = match &custom {
                Some(custom) => custom.cells(object),
                // A printer whose cells do not match its columns prints the defaults.
                None => cells::cells(&key, object)
                    .filter(|c| c.len() == columns.len())
                    .unwrap_or_else(|| vec![cells::name(object), cells::age(object)]),
            };
            row(cells, object, include, version, &key)
        })
        .collect();
    let mut table = json!({
        "kind": "Table",
        "apiVersion": format!("meta.k8s.io/{version}"),
        "metadata": metadata,
    });
    if headers {
        table["columnDefinitions"] = Value::Array(columns);
    }
    table["rows"] = Value::Array(rows);
    table
}

/// A row: its cells, the object as `include` asks, and its conditions.
fn row(cells: Vec<Value>, object: &Value, include: Include, version: &str, key: &str) -> Value {
    let mut row = json!({"cells": cells});
    match include {
        Include::None => {}
        Include::Object => row["object"] = object.clone(),
        Include::Metadata => {
            row["object"] = json!({
                "kind": "PartialObjectMetadata",
                "apiVersion": format!("meta.k8s.io/{version}"),
                "metadata": object.get("metadata").cloned().unwrap_or_else(|| json!({})),
            });
        }
    }
    if let Some(conditions) = row_conditions(key, object) {
        row["conditions"] = conditions;
    }
    row
}

/// `Completed` row conditions of pods that succeeded or failed.
fn row_conditions(key: &str, object: &Value) -> Option<Value> {
    if key != "/Pod" {
        return None;
    }
    match text(object, "/status/phase") {
        "Succeeded" => Some(
            json!([{"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}]),
        ),
        "Failed" => Some(
            json!([{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]),
        ),
        _ => None,
    }
}

/// The list metadata of a Table answering a list.
pub(crate) fn list_metadata(list: &Value) -> Value {
    let mut metadata = Map::new();
    if let Some(meta) = list.get("metadata").and_then(Value::as_object) {
        for key in ["resourceVersion", "continue", "remainingItemCount"] {
            if let Some(value) = meta.get(key) {
                metadata.insert(key.into(), value.clone());
            }
        }
    }
    Value::Object(metadata)
}

#[cfg(test)]
mod tests {
    use super::cells::cells;
    use super::printers::printers;
    use serde_json::json;

    #[test]
    fn every_printer_has_cells_for_each_of_its_columns() {
        let data = printers();
        assert!(data.kinds.len() > 50);
        for (key, columns) in &data.kinds {
            let cells = cells(
                key,
                &json!({"metadata": {"name": "x", "creationTimestamp": "2020-01-01T00:00:00Z"}}),
            )
            .unwrap_or_else(|| panic!("{key} has columns but no cells"));
            assert_eq!(cells.len(), columns.len(), "{key}");
        }
        for target in data.aliases.values() {
            assert!(data.kinds.contains_key(target), "{target}");
        }
    }

    #[test]
    fn a_deployment_prints_its_replicas_containers_and_selector() {
        let deployment = json!({
            "metadata": {"name": "nginx", "creationTimestamp": "2020-01-01T00:00:00Z"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "nginx"}}, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}, {"name": "log", "image": "busybox"}]}}},
            "status": {"readyReplicas": 1, "updatedReplicas": 2, "availableReplicas": 1}
        });
        let row = cells("apps/Deployment", &deployment).unwrap();
        assert_eq!(row[..4], [json!("nginx"), json!("1/3"), json!(2), json!(1)]);
        assert_eq!(
            row[5..],
            [
                json!("nginx,log"),
                json!("nginx:1.27,busybox"),
                json!("app=nginx")
            ]
        );
    }
}
