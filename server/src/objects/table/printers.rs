//! The printers' data: each built-in kind's column definitions (`data/printers.json`,
//! taken from `printers.go`'s `TableColumnDefinition`s), the default `Name`/`Age`, and the
//! aliases of kinds printed as another (`extensions/Deployment` as `apps/Deployment`).

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::objects::catalog::{Catalog, ResourceDef};

const DATA: &str = include_str!("../../../data/printers.json");

/// `[name, type, format, priority, description]`; a description `@definition.field` is the
/// field's description in the served documents.
pub(super) type ColumnData = (String, String, String, i64, String);

#[derive(Deserialize)]
pub(super) struct Printers {
    pub(super) default: Vec<ColumnData>,
    pub(super) kinds: HashMap<String, Vec<ColumnData>>,
    pub(super) aliases: HashMap<String, String>,
}

pub(super) fn printers() -> &'static Printers {
    static PRINTERS: OnceLock<Printers> = OnceLock::new();
    PRINTERS.get_or_init(|| match serde_json::from_str(DATA) {
        Ok(printers) => printers,
        // The file is part of the crate and a unit test parses it.
        Err(_) => Printers {
            default: Vec::new(),
            kinds: HashMap::new(),
            aliases: HashMap::new(),
        },
    })
}

/// The printers' key of a resource: `group/Kind`, through the aliases.
pub(super) fn key(def: &ResourceDef) -> String {
    let key = format!("{}/{}", def.group, def.kind);
    printers().aliases.get(&key).cloned().unwrap_or(key)
}

/// The column definitions of a built-in kind (`key`), or the default ones.
pub(super) fn columns(catalog: &Catalog, key: &str) -> Vec<Value> {
    let data = printers();
    data.kinds
        .get(key)
        .unwrap_or(&data.default)
        .iter()
        .map(|c| column(catalog, c))
        .collect()
}

/// One column definition, its description looked up when it refers to a field.
pub(super) fn column(
    catalog: &Catalog,
    (name, type_, format, priority, description): &ColumnData,
) -> Value {
    let description = match description.strip_prefix('@') {
        Some(reference) => field_description(catalog, reference),
        None => description.clone(),
    };
    json!({"name": name, "type": type_, "format": format, "description": description, "priority": priority})
}

/// The description the served documents give a field: `meta.name` (ObjectMeta's) or
/// `<definition>.<field>`.
fn field_description(catalog: &Catalog, reference: &str) -> String {
    let reference = match reference.strip_prefix("meta.") {
        Some(field) => format!("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta.{field}"),
        None => reference.to_owned(),
    };
    let Some((definition, field)) = reference.rsplit_once('.') else {
        return String::new();
    };
    let documents = catalog
        .openapi
        .values()
        .map(|d| d.pointer("/components/schemas"))
        .chain(std::iter::once(
            catalog
                .openapi_v2
                .as_deref()
                .and_then(|d| d.get("definitions")),
        ));
    for schemas in documents.flatten() {
        if let Some(text) = schemas
            .get(definition)
            .and_then(|d| d.pointer(&format!("/properties/{field}/description")))
            .and_then(Value::as_str)
        {
            return text.to_owned();
        }
    }
    String::new()
}
