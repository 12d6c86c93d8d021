//! Stage 1, load: read input files, detect what kind of document each is, and turn each
//! into one common raw form ([`RawApi`]) with an [`Origin`] on every node, so later stages
//! never care which format a schema came from.

mod merge;
mod openapi;

use std::path::Path;

use serde_json::Value;

use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Origin};

pub(crate) use merge::merge;

/// The input formats the generator reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocumentKind {
    /// OpenAPI 3.x, as a cluster serves at `/openapi/v3/apis/<group>/<version>`.
    OpenApiV3,
    /// Swagger 2.0, as in Kubernetes' `api/openapi-spec/swagger.json`.
    Swagger2,
}

/// A named schema definition, not yet interpreted.
#[derive(Clone, Debug)]
pub struct RawSchema {
    /// The definition's name, e.g. `io.k8s.api.core.v1.Pod`.
    pub name: String,
    /// The schema itself.
    pub value: Value,
    /// Where it was defined.
    pub origin: Origin,
}

/// One HTTP operation under `paths`, not yet interpreted.
#[derive(Clone, Debug)]
pub struct RawOperation {
    /// The path template, e.g. `/api/v1/namespaces/{namespace}/pods/{name}`.
    pub path: String,
    /// The HTTP method in upper case.
    pub method: String,
    /// The operation object.
    pub value: Value,
    /// Parameters declared on the path item, shared by all its operations.
    pub path_parameters: Vec<Value>,
    /// Where the operation was defined.
    pub origin: Origin,
}

/// Everything the input documents define, merged: schemas by name and operations.
#[derive(Clone, Debug, Default)]
pub struct RawApi {
    /// Schemas in input order, each name once.
    pub schemas: indexmap::IndexMap<String, RawSchema>,
    /// Operations in input order.
    pub operations: Vec<RawOperation>,
}

/// One input document in the raw form.
#[derive(Clone, Debug)]
pub struct Document {
    /// Which format it was.
    pub kind: DocumentKind,
    /// Its schemas, in document order.
    pub schemas: Vec<RawSchema>,
    /// Its operations, in document order.
    pub operations: Vec<RawOperation>,
}

/// Reads and parses one input file. `display_path` is how the file is named in diagnostics
/// and generated headers (normally relative to the project), `path` is where it is read.
pub fn load_file(path: &Path, display_path: &Path) -> Result<Document, Error> {
    let origin = Origin::root(display_path);
    let bytes = std::fs::read(path).map_err(|e| {
        Diagnostic::new(ErrorKind::Io, &origin, format!("cannot read the file: {e}"))
    })?;
    load_bytes(&bytes, display_path)
}

/// Parses one input document from memory; `display_path` names it in diagnostics.
pub fn load_bytes(bytes: &[u8], display_path: &Path) -> Result<Document, Error> {
    let origin = Origin::root(display_path);
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        Diagnostic::new(
            ErrorKind::Syntax,
            &origin,
            format!(
                "expected a JSON document, but it does not parse: {e} (line {}, column {})",
                e.line(),
                e.column()
            ),
        )
    })?;
    let kind = detect(&value, &origin)?;
    let mut diagnostics = Diagnostics::default();
    let document = openapi::read(kind, &value, &origin, &mut diagnostics);
    diagnostics.finish(document)
}

fn detect(value: &Value, origin: &Origin) -> Result<DocumentKind, Diagnostic> {
    let Some(object) = value.as_object() else {
        return Err(Diagnostic::new(
            ErrorKind::UnknownDocument,
            origin,
            format!(
                "expected a JSON object at the top level, found {}",
                json_type(value)
            ),
        ));
    };
    if let Some(version) = object.get("openapi") {
        return match version.as_str() {
            Some(v) if v.starts_with("3.") => Ok(DocumentKind::OpenApiV3),
            _ => Err(Diagnostic::new(
                ErrorKind::UnknownDocument,
                &origin.child("openapi"),
                format!("expected an OpenAPI version \"3.x\", found {version}"),
            )),
        };
    }
    if let Some(version) = object.get("swagger") {
        return match version.as_str() {
            Some("2.0") => Ok(DocumentKind::Swagger2),
            _ => Err(Diagnostic::new(
                ErrorKind::UnknownDocument,
                &origin.child("swagger"),
                format!("expected the Swagger version \"2.0\", found {version}"),
            )),
        };
    }
    Err(Diagnostic::new(
        ErrorKind::UnknownDocument,
        origin,
        "expected an OpenAPI 3.x document (an `openapi` key) or a Swagger 2.0 document (a `swagger` key)",
    )
    .with_hint("a cluster serves OpenAPI v3 at /openapi/v3/apis/<group>/<version>"))
}

/// The JSON type of a value, for messages.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
