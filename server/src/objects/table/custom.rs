//! A custom resource's columns: `Name`, then its `additionalPrinterColumns`, each cell the
//! column's JSONPath evaluated on the object (the CRD table convertor).

use serde_json::{Value, json};

use super::cells::name;
use super::format::{ago, parse_time};
use super::printers::column;
use crate::objects::catalog::{Catalog, PrinterColumn};
use crate::objects::jsonpath::{self, JsonPath};

/// The printer of a resource's `additionalPrinterColumns`, their paths parsed once.
pub(super) struct Custom<'a> {
    columns: &'a [PrinterColumn],
    paths: Vec<Option<JsonPath>>,
}

impl<'a> Custom<'a> {
    /// None for a resource without printer columns.
    pub(super) fn of(columns: &'a [PrinterColumn]) -> Option<Custom<'a>> {
        if columns.is_empty() {
            return None;
        }
        let paths = columns
            .iter()
            .map(|c| JsonPath::parse(&c.json_path).ok())
            .collect();
        Some(Custom { columns, paths })
    }

    pub(super) fn column_definitions(&self, catalog: &Catalog) -> Vec<Value> {
        let name = (
            "Name".into(),
            "string".into(),
            "name".into(),
            0,
            "@meta.name".into(),
        );
        let mut columns = vec![column(catalog, &name)];
        columns.extend(self.columns.iter().map(|c| {
            let description = if c.description.is_empty() {
                format!(
                    "Custom resource definition column (in JSONPath format): {}",
                    c.json_path
                )
            } else {
                c.description.clone()
            };
            json!({"name": c.name, "type": c.type_, "format": c.format, "description": description, "priority": c.priority})
        }));
        columns
    }

    /// The name, then the first value each path finds, null when it finds none.
    pub(super) fn cells(&self, object: &Value) -> Vec<Value> {
        let mut cells = vec![name(object)];
        for (column, path) in self.columns.iter().zip(&self.paths) {
            let found = path.as_ref().and_then(|p| p.find(object).first().copied());
            cells.push(match found {
                None => Value::Null,
                Some(value) if column.type_ == "string" => Value::from(jsonpath::print(value)),
                Some(value) => json_cell(&column.type_, value),
            });
        }
        cells
    }
}

/// A custom column's cell of a type other than `string` (the CRD table convertor's
/// `cellForJSONValue`).
fn json_cell(type_: &str, value: &Value) -> Value {
    match (type_, value) {
        ("integer", Value::Number(n)) => n
            .as_i64()
            .map(Value::from)
            .or_else(|| n.as_f64().map(|f| Value::from(f as i64)))
            .unwrap_or(Value::Null),
        ("number", Value::Number(n)) => n.as_f64().map_or(Value::Null, Value::from),
        ("boolean", Value::Bool(b)) => Value::Bool(*b),
        ("string", Value::String(s)) => Value::from(s.as_str()),
        ("date", Value::String(s)) => Value::from(match parse_time(s) {
            Some(seconds) => ago(seconds),
            None => "<invalid>".to_owned(),
        }),
        _ => Value::Null,
    }
}
