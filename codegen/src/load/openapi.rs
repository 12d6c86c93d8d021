//! Reads OpenAPI 3.x (`components.schemas`) and Swagger 2.0 (`definitions`) documents. Both
//! keep Kubernetes' extensions (`x-kubernetes-group-version-kind`, `x-kubernetes-action`)
//! in the same places, so one reader serves both; only where the schemas live differs.

use std::sync::Arc;

use serde_json::Value;

use super::swagger::{self, Globals};
use super::{Document, DocumentKind, RawOperation, RawSchema, json_type};
use crate::diagnostics::{Diagnostic, Diagnostics, ErrorKind, Note, Origin};

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Reads the document, moving its schemas and operations out of `value` (the parsed
/// document is not needed after, and cloning them was a third of loading's time).
pub(super) fn read(
    kind: DocumentKind,
    value: &mut Value,
    origin: &Origin,
    diagnostics: &mut Diagnostics,
) -> Document {
    let (schemas_at, pointer): (&[&str], _) = match kind {
        DocumentKind::OpenApiV3 | DocumentKind::Crd => {
            (&["components", "schemas"], "/components/schemas")
        }
        DocumentKind::Swagger2 => (&["definitions"], "/definitions"),
    };
    let node_origin = schemas_at
        .iter()
        .fold(origin.clone(), |origin, key| origin.child(key));
    let mut schemas = Vec::new();
    match value.pointer_mut(pointer) {
        // `null` is what OpenShift's openapi.json has for paths; treat absent and null alike.
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            schemas.reserve(map.len());
            for (name, mut value) in std::mem::take(map) {
                if kind == DocumentKind::Swagger2 {
                    swagger::rewrite_refs(&mut value);
                }
                let origin = node_origin.child(&name);
                schemas.push(RawSchema {
                    name,
                    value,
                    origin,
                });
            }
        }
        Some(node) => diagnostics.push(Diagnostic::new(
            ErrorKind::InvalidSchema,
            &node_origin,
            format!(
                "expected an object of named schemas, found {}",
                json_type(node)
            ),
        )),
    }
    let mut notes = Vec::new();
    let operations = read_paths(kind, value, origin, diagnostics, &mut notes);
    Document {
        kind,
        schemas,
        operations,
        resources: Vec::new(),
        crds: Vec::new(),
        notes,
    }
}

fn read_paths(
    kind: DocumentKind,
    value: &mut Value,
    origin: &Origin,
    diagnostics: &mut Diagnostics,
    notes: &mut Vec<Note>,
) -> Vec<RawOperation> {
    let paths = value.get_mut("paths").map(Value::take);
    let globals = Globals::of(value, origin);
    let paths_origin = origin.child("paths");
    let paths = match paths {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Object(paths)) => paths,
        Some(other) => {
            diagnostics.push(Diagnostic::new(
                ErrorKind::InvalidOperation,
                &paths_origin,
                format!(
                    "expected an object of path items, found {}",
                    json_type(&other)
                ),
            ));
            return Vec::new();
        }
    };
    let mut operations = Vec::new();
    for (path, mut item) in paths {
        let item_origin = paths_origin.child(&path);
        let Value::Object(item) = &mut item else {
            diagnostics.push(Diagnostic::new(
                ErrorKind::InvalidOperation,
                &item_origin,
                format!("expected a path item object, found {}", json_type(&item)),
            ));
            continue;
        };
        let mut path_parameters = match item.get_mut("parameters").map(Value::take) {
            None => Vec::new(),
            Some(Value::Array(list)) => list,
            Some(other) => {
                diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidOperation,
                    &item_origin.child("parameters"),
                    format!(
                        "expected an array of parameters, found {}",
                        json_type(&other)
                    ),
                ));
                Vec::new()
            }
        };
        // A form parameter at path level applies to every operation of the path.
        let mut path_form = None;
        if kind == DocumentKind::Swagger2 {
            // A body parameter at path level would apply to every operation; Kubernetes never
            // declares one there, so only the others are kept.
            let parameters = swagger::parameters(
                path_parameters,
                &item_origin.child("parameters"),
                &globals,
                diagnostics,
            );
            path_parameters = parameters.list;
            path_form = parameters.form;
        }
        let path_parameters: Arc<[Value]> = path_parameters.into();
        for method in METHODS {
            let Some(mut operation) = item.get_mut(method).map(Value::take) else {
                continue;
            };
            let op_origin = item_origin.child(method);
            if !operation.is_object() {
                diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidOperation,
                    &op_origin,
                    format!(
                        "expected an operation object, found {}",
                        json_type(&operation)
                    ),
                ));
                continue;
            }
            let value = match kind {
                DocumentKind::OpenApiV3 | DocumentKind::Crd => operation,
                DocumentKind::Swagger2 => {
                    // Taken in place (the key stays, `null`), so the operation's keys keep
                    // their order when `swagger::operation` puts the normalized list back.
                    let list = match operation.get_mut("parameters").map(Value::take) {
                        Some(Value::Array(list)) => list,
                        _ => Vec::new(),
                    };
                    let parameters = swagger::parameters(
                        list,
                        &op_origin.child("parameters"),
                        &globals,
                        diagnostics,
                    );
                    if let Some((name, at)) = parameters.form.or_else(|| path_form.clone()) {
                        notes.push(form_note(method, &path, &operation, &name, &at));
                        continue;
                    }
                    swagger::operation(operation, parameters.list, parameters.body, &globals)
                }
            };
            operations.push(RawOperation {
                path: path.clone(),
                method: method.to_ascii_uppercase(),
                value,
                path_parameters: Arc::clone(&path_parameters),
                origin: op_origin,
            });
        }
    }
    operations
}

/// The note for an operation skipped because it takes a form parameter: the rest of the
/// document (its types, its other operations) is generated as usual.
fn form_note(method: &str, path: &str, operation: &Value, name: &str, at: &Origin) -> Note {
    let id = operation
        .get("operationId")
        .and_then(Value::as_str)
        .map(|id| format!(" (`{id}`)"))
        .unwrap_or_default();
    Note::new(
        at,
        format!(
            "skipped the operation {} {path}{id}: its parameter `{name}` is a form field (`in: formData`), and kubeforge generates no form bodies; the document's types and its other operations are generated",
            method.to_ascii_uppercase()
        ),
    )
}
