//! `cargo xtask routes [--json]`: the whole route table, read from the model of
//! `schemas/*.json` (the same configuration as `regen`), for review and diffs. It does not
//! build the generated crate, so it works while that crate is broken.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use kubeforge::model::operations::{Operation, ResponseBody};
use kubeforge::model::{ApiSet, Scope, Shape};
use serde_json::{Value, json};

/// Prints every operation: one JSON object per line with `--json`, a table otherwise.
pub(crate) fn run(root: &Path, as_json: bool) -> ExitCode {
    let api = match xtask::regen_config(root)
        .map_err(|e| format!("error: {e}"))
        .and_then(|c| c.model().map_err(|e| e.to_string()))
    {
        Ok(api) => api,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = String::new();
    if as_json {
        for op in &api.operations {
            out.push_str(&entry(&api, op).to_string());
            out.push('\n');
        }
    } else {
        out = table(&api);
    }
    print!("{out}");
    ExitCode::SUCCESS
}

/// One route as JSON.
pub(crate) fn entry(api: &ApiSet, op: &Operation) -> Value {
    let resource = op.resource.as_ref();
    json!({
        "method": op.method.as_str(),
        "path": op.path.text,
        "operation": op.id,
        "action": op.action.as_str(),
        "group": resource.map(|r| r.gvk.group.as_str()),
        "version": resource.map(|r| r.gvk.version.as_str()),
        "kind": resource.map(|r| r.gvk.kind.as_str()),
        "plural": resource.map(|r| r.plural.as_str()),
        "subresource": resource.and_then(|r| r.subresource.as_deref()),
        "scope": resource.map(|r| match r.scope {
            Scope::Namespaced => "Namespaced",
            Scope::Cluster => "Cluster",
        }),
        "path_params": op.path_params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        "query": op.query_params.iter().map(|q| q.name.as_str()).collect::<Vec<_>>(),
        "body": op.body.as_ref().map(|b| json!({
            "type": shape(api, &b.shape),
            "content_types": b.content_types,
            "required": b.required,
        })),
        "responses": op.responses.iter().map(|r| json!({
            "status": r.status,
            "description": r.description,
            "type": match &r.body {
                ResponseBody::Empty => None,
                ResponseBody::Text => Some("String".to_owned()),
                ResponseBody::Json(s) => Some(shape(api, s)),
                ResponseBody::Watch(s) => Some(format!("WatchEvent<{}>", shape(api, s))),
            },
        })).collect::<Vec<_>>(),
        "deprecated": op.deprecated,
        "function": op.names.function,
    })
}

fn shape(api: &ApiSet, shape: &Shape) -> String {
    match shape {
        Shape::Ref(id) => {
            let ty = api.get(*id);
            let mut path: Vec<&str> = ty.module.iter().map(String::as_str).collect();
            path.push(&ty.name);
            path.join("::")
        }
        Shape::Vec(inner) => format!("Vec<{}>", self::shape(api, inner)),
        Shape::Map(inner) => format!("BTreeMap<String, {}>", self::shape(api, inner)),
        Shape::Json => "serde_json::Value".to_owned(),
        Shape::Bool => "bool".to_owned(),
        Shape::I32 => "i32".to_owned(),
        Shape::I64 => "i64".to_owned(),
        Shape::U32 => "u32".to_owned(),
        Shape::U64 => "u64".to_owned(),
        Shape::Nullable(inner) => format!("Option<{}>", self::shape(api, inner)),
        Shape::F64 => "f64".to_owned(),
        Shape::String => "String".to_owned(),
        Shape::Runtime(runtime) => runtime.name().to_owned(),
    }
}

/// A table for people: method, path, action, kind and subresource, operation, query names.
fn table(api: &ApiSet) -> String {
    let rows: Vec<[String; 6]> = api
        .operations
        .iter()
        .map(|op| {
            let resource =
                op.resource
                    .as_ref()
                    .map_or_else(String::new, |r| match &r.subresource {
                        Some(sub) => format!("{}/{sub}", r.gvk.kind),
                        None => r.gvk.kind.clone(),
                    });
            let mut action = op.action.as_str().to_owned();
            if op.deprecated {
                action.push('*');
            }
            [
                op.method.as_str().to_owned(),
                op.path.text.clone(),
                action,
                resource,
                op.id.clone(),
                op.query_params
                    .iter()
                    .map(|q| q.name.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
            ]
        })
        .collect();
    let header = ["METHOD", "PATH", "ACTION", "RESOURCE", "OPERATION", "QUERY"].map(str::to_owned);
    let mut widths = [0usize; 6];
    for row in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<width$}  ");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "\n{} operations on {} paths (* deprecated)",
        rows.len(),
        rows.iter()
            .map(|r| r[1].as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    );
    out
}
