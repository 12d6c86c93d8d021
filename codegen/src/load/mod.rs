//! Stage 1, load: read input files, detect what kind of document each is, and turn each
//! into one common raw form ([`RawApi`]) with an [`Origin`] on every node, so later stages
//! never care which format a schema came from.
//!
//! Files are JSON or YAML (several documents per file allowed); each document is OpenAPI
//! 3.x, Swagger 2.0 (normalized to the v3 form in `swagger.rs`) or a CustomResourceDefinition
//! (`crd.rs`).

mod crd;
pub mod fixups;
pub mod locate;
mod merge;
mod openapi;
mod select;
mod swagger;

use std::path::Path;

use serde_json::Value;

use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Origin};

pub(crate) use merge::merge;
pub use select::Selector;
pub(crate) use select::select;

/// The input formats the generator reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocumentKind {
    /// OpenAPI 3.x, as a cluster serves at `/openapi/v3/apis/<group>/<version>`.
    OpenApiV3,
    /// Swagger 2.0, as in Kubernetes' `api/openapi-spec/swagger.json`.
    Swagger2,
    /// A CustomResourceDefinition (`apiextensions.k8s.io/v1`).
    Crd,
}

/// A named schema definition, not yet interpreted.
#[derive(Clone, Debug)]
pub struct RawSchema {
    /// The definition's name, e.g. `io.k8s.api.core.v1.Pod`.
    pub name: String,
    /// The schema itself, with `$ref`s in the `#/components/schemas/` form.
    pub value: Value,
    /// Where it was defined.
    pub origin: Origin,
}

/// One HTTP operation under `paths`, in the OpenAPI v3 form (Swagger 2.0 is normalized).
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

/// A resource declared by its definition rather than read off paths (CRDs have no paths).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawResource {
    /// The API group.
    pub group: String,
    /// The version.
    pub version: String,
    /// The kind.
    pub kind: String,
    /// The plural used in paths.
    pub plural: String,
    /// Namespaced (true) or cluster-scoped.
    pub namespaced: bool,
    /// Subresources (`status`, `scale`).
    pub subresources: Vec<String>,
    /// Where it was declared.
    pub origin: Origin,
}

/// Everything the input documents define, merged: schemas by name, operations, declared
/// resources.
#[derive(Clone, Debug, Default)]
pub struct RawApi {
    /// Schemas in input order, each name once.
    pub schemas: indexmap::IndexMap<String, RawSchema>,
    /// Operations in input order.
    pub operations: Vec<RawOperation>,
    /// Resources declared without paths, in input order.
    pub resources: Vec<RawResource>,
}

/// One input file in the raw form.
#[derive(Clone, Debug)]
pub struct Document {
    /// The format of its (first) document.
    pub kind: DocumentKind,
    /// Its schemas, in document order.
    pub schemas: Vec<RawSchema>,
    /// Its operations, in document order.
    pub operations: Vec<RawOperation>,
    /// Its declared resources.
    pub resources: Vec<RawResource>,
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

/// Parses one input file from memory; `display_path` names it in diagnostics. Text that
/// starts with `{` is JSON; anything else is YAML, possibly several documents.
pub fn load_bytes(bytes: &[u8], display_path: &Path) -> Result<Document, Error> {
    let origin = Origin::root(display_path);
    let values = parse(bytes, &origin)?;
    let mut diagnostics = Diagnostics::default();
    let mut document = Document {
        kind: DocumentKind::OpenApiV3,
        schemas: Vec::new(),
        operations: Vec::new(),
        resources: Vec::new(),
    };
    let several = values.len() > 1;
    for (i, value) in values.iter().enumerate() {
        // JSON pointers are per document; a multi-document file names the document too.
        let origin = if several {
            Origin::root(Path::new(&format!(
                "{} (document {})",
                display_path.display(),
                i + 1
            )))
        } else {
            origin.clone()
        };
        let kind = match detect(value, &origin) {
            Ok(kind) => kind,
            Err(d) => {
                diagnostics.push(*d);
                continue;
            }
        };
        if i == 0 {
            document.kind = kind;
        }
        match kind {
            DocumentKind::Crd => crd::read(
                value,
                &origin,
                &mut document.schemas,
                &mut document.resources,
                &mut diagnostics,
            ),
            _ => {
                let read = openapi::read(kind, value, &origin, &mut diagnostics);
                document.schemas.extend(read.schemas);
                document.operations.extend(read.operations);
            }
        }
    }
    diagnostics.finish(document)
}

fn parse(bytes: &[u8], origin: &Origin) -> Result<Vec<Value>, Error> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'{') {
        return serde_json::from_slice(bytes).map(|v| vec![v]).map_err(|e| {
            Diagnostic::new(
                ErrorKind::Syntax,
                origin,
                format!(
                    "expected a JSON document, but it does not parse: {e} (line {}, column {})",
                    e.line(),
                    e.column()
                ),
            )
            .into()
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Diagnostic::new(
            ErrorKind::Syntax,
            origin,
            format!(
                "expected UTF-8 text, but byte {} is not: {e}",
                e.valid_up_to()
            ),
        )
    })?;
    // serde-saphyr is panic-free and enforces budgets (alias expansion, depth, size), so a
    // hostile file is an error, never a hang or an exhausted machine.
    let values: Vec<Value> = serde_saphyr::from_multiple(text).map_err(|e| {
        Diagnostic::new(
            ErrorKind::Syntax,
            origin,
            format!("expected a JSON or YAML document, but it does not parse: {e}"),
        )
    })?;
    let values: Vec<Value> = values.into_iter().filter(|v| !v.is_null()).collect();
    if values.is_empty() {
        return Err(Diagnostic::new(
            ErrorKind::UnknownDocument,
            origin,
            "expected a document, but the file is empty",
        )
        .into());
    }
    Ok(values)
}

/// The kind of a parsed document (the diagnostic is boxed: it is the rare path).
fn detect(value: &Value, origin: &Origin) -> Result<DocumentKind, Box<Diagnostic>> {
    let unknown = |at: &Origin, message: String| {
        Box::new(Diagnostic::new(ErrorKind::UnknownDocument, at, message))
    };
    let Some(object) = value.as_object() else {
        return Err(unknown(
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
            _ => Err(unknown(
                &origin.child("openapi"),
                format!("expected an OpenAPI version \"3.x\", found {version}"),
            )),
        };
    }
    if let Some(version) = object.get("swagger") {
        return match version.as_str() {
            Some("2.0") => Ok(DocumentKind::Swagger2),
            _ => Err(unknown(
                &origin.child("swagger"),
                format!("expected the Swagger version \"2.0\", found {version}"),
            )),
        };
    }
    if crd::is_crd(value) {
        return Ok(DocumentKind::Crd);
    }
    let message = "expected an OpenAPI 3.x document (an `openapi` key), a Swagger 2.0 document (a `swagger` key) \
                   or a CustomResourceDefinition";
    Err(Box::new((*unknown(origin, message.to_owned())).with_hint(
        "a cluster serves OpenAPI v3 at /openapi/v3/apis/<group>/<version>",
    )))
}

/// The built-in meta types (`ObjectMeta`, `ListMeta`, `Status`, `WatchEvent`, …, and
/// `autoscaling/v1.Scale`), for inputs that reference them without defining them, as CRDs do.
pub(crate) fn builtin() -> Document {
    const BUILTIN: &str = include_str!("builtin.json");
    // The file is part of this crate and tested to load; an error here is a build defect.
    load_bytes(
        BUILTIN.as_bytes(),
        Path::new("<kubeforge built-in meta types>"),
    )
    .unwrap_or(Document {
        kind: DocumentKind::OpenApiV3,
        schemas: Vec::new(),
        operations: Vec::new(),
        resources: Vec::new(),
    })
}

/// The JSON type of a value, for messages.
/// The schema name a `$ref` names: `#/components/schemas/<name>` (or Swagger's
/// `#/definitions/<name>`), JSON pointer escapes undone (`~1` is `/`, `~0` is `~`). `None`
/// for a reference to anything else. The one place references are parsed.
pub(crate) fn schema_ref_name(reference: &str) -> Option<String> {
    ["#/components/schemas/", "#/definitions/"]
        .iter()
        .find_map(|prefix| reference.strip_prefix(prefix))
        .map(|name| name.replace("~1", "/").replace("~0", "~"))
}

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
