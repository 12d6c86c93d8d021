//! The typed form of a loaded operation: what load hands the model instead of the operation
//! object's JSON. The structure is read here (parameters, request body, responses, their
//! content and schemas), each part of the wrong JSON type reported with its place; what
//! the parts mean (methods, path templates, which status codes count, which parameters a
//! template needs) is the model's (`model/operations/read.rs`).
//!
//! Not read, so dropped: `tags`, `consumes`/`produces` (Swagger 2.0's are already turned
//! into `content` by `swagger.rs`), `security`, `callbacks`, `servers`, `externalDocs`,
//! response `headers` and `links`, and every media type's schema but the preferred one.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::schema::Schema;
// A parameter without a `schema` says what its value is with these keywords beside
// `name` (Swagger 2.0's form, which `swagger.rs` moves into `schema`; a v3 parameter
// written that way is read the same).
use super::swagger::SCHEMA_KEYWORDS;
use super::{Owner, Problem, RawOperation, json_type};
use crate::diagnostics::{Diagnostic, Diagnostics, ErrorKind, Origin};
use crate::ground::Gvk;

/// One HTTP operation under `paths`, typed.
#[derive(Clone, Debug)]
pub struct Operation {
    /// The path template as written, e.g. `/api/v1/namespaces/{namespace}/pods/{name}`.
    pub path: String,
    /// The HTTP method in upper case.
    pub method: String,
    /// `operationId`.
    pub id: Option<String>,
    /// `x-kubernetes-action`, when a non-empty string.
    pub action: Option<String>,
    /// The `kind` of the operation's `x-kubernetes-group-version-kind`.
    pub gvk_kind: Option<String>,
    /// The operation's `x-kubernetes-group-version-kind` (one object or a list), where each
    /// is a complete `{group, version, kind}`: what selecting by kind keeps it by.
    pub gvks: Vec<Gvk>,
    /// The operation's own parameters, in document order.
    pub parameters: Vec<Parameter>,
    /// The parameters declared on the path item, shared by all its operations.
    pub path_parameters: Arc<[Parameter]>,
    /// `requestBody`.
    pub request_body: Option<RequestBody>,
    /// `responses`, by status code as written, in document order.
    pub responses: Vec<(String, Response)>,
    /// `deprecated: true`.
    pub deprecated: bool,
    /// `description`, else `summary`.
    pub description: Option<String>,
    /// Where the operation is.
    pub origin: Origin,
}

/// A parameter.
#[derive(Clone, Debug)]
pub struct Parameter {
    /// `name`.
    pub name: String,
    /// `in`: `path`, `query`, `header`, `cookie` (anything else is the model's to refuse).
    pub location: String,
    /// `description`.
    pub description: Option<String>,
    /// `required: true`.
    pub required: bool,
    /// `schema` (or the schema keywords beside `name`, Swagger 2.0's form).
    pub schema: Schema,
    /// Where the schema is.
    pub schema_origin: Origin,
    /// Where the parameter is.
    pub origin: Origin,
}

/// A request body.
#[derive(Clone, Debug)]
pub struct RequestBody {
    /// Its media types and the preferred one's schema.
    pub content: Content,
    /// `required: true`.
    pub required: bool,
}

/// A response.
#[derive(Clone, Debug)]
pub struct Response {
    /// `description`.
    pub description: String,
    /// Its media types and the preferred one's schema.
    pub content: Content,
    /// Where the response is.
    pub origin: Origin,
}

/// A content map: its media types, sorted, and the schema of the preferred one
/// (`application/json`, else the first written), with its place.
#[derive(Clone, Debug, Default)]
pub struct Content {
    /// The media types, sorted.
    pub media_types: Vec<String>,
    /// The preferred media type's schema.
    pub schema: Option<(Schema, Origin)>,
}

fn invalid(origin: &Origin, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(ErrorKind::InvalidOperation, origin, message)
}

/// Types every operation, reporting every part of the wrong JSON type and leaving out an
/// operation that has one. The same operation in two documents (each carries its own copy)
/// is kept once. The parameters of a path item are read once for all its operations. Each
/// problem belongs to the operation it is in ([`Owner::Operation`]), so that selection can
/// leave out those of the operations it leaves out; a path item's belong to each of its
/// operations (and are reported once).
pub(super) fn read_all(raw: &[RawOperation], problems: &mut Vec<Problem>) -> Vec<Operation> {
    // The operations kept so far, by path and method (a path and method is nearly always
    // one operation, so the values are compared only within it).
    let mut seen: HashMap<(&str, &str), Vec<&RawOperation>> = HashMap::with_capacity(raw.len());
    let mut operations = Vec::with_capacity(raw.len());
    // The path item read last: its origin, its parameters, and the problems they had.
    let mut item: Option<(Origin, Arc<[Parameter]>, Vec<Diagnostic>)> = None;
    for raw_op in raw {
        let same = seen
            .entry((raw_op.path.as_str(), raw_op.method.as_str()))
            .or_default();
        if same.iter().any(|s| s.value == raw_op.value) {
            continue;
        }
        same.push(raw_op);
        let item_origin = parent_origin(&raw_op.origin).child("parameters");
        let (_, path_parameters, item_problems) = match item.take() {
            Some(same) if same.0 == item_origin => item.insert(same),
            _ => {
                let mut diagnostics = Diagnostics::default();
                let parameters =
                    parameters(&raw_op.path_parameters, &item_origin, &mut diagnostics);
                item.insert((item_origin, parameters.into(), diagnostics.into_vec()))
            }
        };
        let gvks = gvks(&raw_op.value);
        let mut diagnostics = Diagnostics::default();
        let operation = Operation::read(raw_op, path_parameters, gvks.clone(), &mut diagnostics);
        let owner = Owner::Operation(gvks);
        problems.extend(
            item_problems
                .iter()
                .cloned()
                .chain(diagnostics.into_vec())
                .map(|diagnostic| Problem {
                    owner: owner.clone(),
                    diagnostic,
                }),
        );
        if let Some(operation) = operation
            && item_problems.is_empty()
        {
            operations.push(operation);
        }
    }
    operations
}

/// The complete `{group, version, kind}`s of an operation's
/// `x-kubernetes-group-version-kind` (one object or a list); an incomplete one is left out.
fn gvks(value: &Value) -> Vec<Gvk> {
    match value.get("x-kubernetes-group-version-kind") {
        Some(Value::Array(list)) => list.iter().filter_map(super::schema::gvk).collect(),
        Some(single @ Value::Object(_)) => super::schema::gvk(single).into_iter().collect(),
        _ => Vec::new(),
    }
}

impl Operation {
    /// Types `raw`, with its path item's parameters and its group-version-kinds, reporting
    /// every part of the wrong JSON type; `None` when anything was.
    fn read(
        raw: &RawOperation,
        path_parameters: &Arc<[Parameter]>,
        gvks: Vec<Gvk>,
        diagnostics: &mut Diagnostics,
    ) -> Option<Operation> {
        let origin = &raw.origin;
        let before = diagnostics.len();
        let value = raw.value.as_object()?;
        let id = match value.get("operationId") {
            Some(Value::String(id)) if !id.is_empty() => Some(id.clone()),
            None => None,
            Some(other) => {
                diagnostics.push(invalid(
                    &origin.child("operationId"),
                    format!("expected a non-empty string, found {}", json_type(other)),
                ));
                None
            }
        };
        let action = match value.get("x-kubernetes-action") {
            Some(Value::String(text)) if !text.is_empty() => Some(text.clone()),
            _ => None,
        };
        let gvk_kind = value
            .get("x-kubernetes-group-version-kind")
            .and_then(|g| g.get("kind"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let empty = Vec::new();
        let list = match value.get("parameters") {
            None | Some(Value::Null) => &empty,
            Some(Value::Array(list)) => list,
            Some(other) => {
                diagnostics.push(invalid(
                    &origin.child("parameters"),
                    format!(
                        "expected an array of parameters, found {}",
                        json_type(other)
                    ),
                ));
                &empty
            }
        };
        let own_parameters = parameters(list, &origin.child("parameters"), diagnostics);
        let request_body = match value.get("requestBody") {
            None | Some(Value::Null) => None,
            Some(body) => request_body(body, &origin.child("requestBody"), diagnostics),
        };
        let responses = responses(value, origin, diagnostics);
        let description = value
            .get("description")
            .or_else(|| value.get("summary"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        (diagnostics.len() == before).then(|| Operation {
            path: raw.path.clone(),
            method: raw.method.clone(),
            id,
            action,
            gvk_kind,
            gvks,
            parameters: own_parameters,
            path_parameters: Arc::clone(path_parameters),
            request_body,
            responses,
            deprecated: value.get("deprecated") == Some(&Value::Bool(true)),
            description,
            origin: origin.clone(),
        })
    }
}

impl Operation {
    /// Every schema the operation holds: its parameters' and its path item's, its request
    /// body's and its responses'.
    pub fn schemas(&self) -> impl Iterator<Item = &Schema> {
        let parameters = self
            .parameters
            .iter()
            .chain(self.path_parameters.iter())
            .map(|p| &p.schema);
        let body = self.request_body.iter().map(|b| &b.content);
        let responses = self.responses.iter().map(|(_, r)| &r.content);
        parameters.chain(
            body.chain(responses)
                .filter_map(|content| content.schema.as_ref().map(|(schema, _)| schema)),
        )
    }
}

/// The origin of the path item an operation belongs to.
fn parent_origin(origin: &Origin) -> Origin {
    let pointer = origin
        .pointer
        .rsplit_once('/')
        .map_or_else(String::new, |(parent, _)| parent.to_owned());
    Origin {
        file: origin.file.clone(),
        pointer,
    }
}

fn parameters(list: &[Value], origin: &Origin, diagnostics: &mut Diagnostics) -> Vec<Parameter> {
    let mut params = Vec::with_capacity(list.len());
    for (i, value) in list.iter().enumerate() {
        let param_origin = origin.child(&i.to_string());
        let Some(object) = value.as_object() else {
            diagnostics.push(invalid(
                &param_origin,
                format!("expected a parameter object, found {}", json_type(value)),
            ));
            continue;
        };
        if object.contains_key("$ref") {
            diagnostics.push(
                invalid(
                    &param_origin,
                    "expected a parameter object, found an unresolved `$ref`",
                )
                .with_hint("the loader resolves references to shared parameters; check that the target exists"),
            );
            continue;
        }
        let name = object.get("name").and_then(Value::as_str);
        let location = object.get("in").and_then(Value::as_str);
        let (Some(name), Some(location)) = (name, location) else {
            diagnostics.push(invalid(
                &param_origin,
                "expected a parameter with string `name` and `in`",
            ));
            continue;
        };
        let (schema, schema_origin) = match object.get("schema") {
            Some(schema @ Value::Object(_)) => {
                let at = param_origin.child("schema");
                (Schema::read(schema, &at, diagnostics), at)
            }
            _ => {
                let keywords: Map<String, Value> = SCHEMA_KEYWORDS
                    .iter()
                    .filter_map(|k| object.get(*k).map(|v| ((*k).to_owned(), v.clone())))
                    .collect();
                (
                    Schema::read(&Value::Object(keywords), &param_origin, diagnostics),
                    param_origin.clone(),
                )
            }
        };
        let Some(schema) = schema else {
            continue;
        };
        params.push(Parameter {
            name: name.to_owned(),
            location: location.to_owned(),
            description: object
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            required: object.get("required") == Some(&Value::Bool(true)),
            schema,
            schema_origin,
            origin: param_origin,
        });
    }
    params
}

/// A content map's types, sorted, and the schema of the preferred one (JSON, else the first).
fn content(
    node: &Map<String, Value>,
    origin: &Origin,
    diagnostics: &mut Diagnostics,
) -> Option<Content> {
    let content_origin = origin.child("content");
    let map = match node.get("content") {
        None | Some(Value::Null) => return Some(Content::default()),
        Some(Value::Object(map)) => map,
        Some(other) => {
            diagnostics.push(invalid(
                &content_origin,
                format!(
                    "expected an object of media types, found {}",
                    json_type(other)
                ),
            ));
            return None;
        }
    };
    let mut media_types: Vec<String> = map.keys().cloned().collect();
    media_types.sort();
    let preferred = map
        .get_key_value("application/json")
        .or_else(|| map.iter().next());
    let schema = match preferred.and_then(|(media, entry)| {
        entry
            .get("schema")
            .map(|schema| (schema, content_origin.child(media).child("schema")))
    }) {
        None => None,
        Some((schema, at)) => Some((Schema::read(schema, &at, diagnostics)?, at)),
    };
    Some(Content {
        media_types,
        schema,
    })
}

fn request_body(
    value: &Value,
    origin: &Origin,
    diagnostics: &mut Diagnostics,
) -> Option<RequestBody> {
    let Some(object) = value.as_object() else {
        diagnostics.push(invalid(
            origin,
            format!("expected a request body object, found {}", json_type(value)),
        ));
        return None;
    };
    Some(RequestBody {
        content: content(object, origin, diagnostics)?,
        required: object.get("required") == Some(&Value::Bool(true)),
    })
}

fn responses(
    value: &Map<String, Value>,
    origin: &Origin,
    diagnostics: &mut Diagnostics,
) -> Vec<(String, Response)> {
    let responses_origin = origin.child("responses");
    let map = match value.get("responses") {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Object(map)) => map,
        Some(other) => {
            diagnostics.push(invalid(
                &responses_origin,
                format!(
                    "expected an object of responses, found {}",
                    json_type(other)
                ),
            ));
            return Vec::new();
        }
    };
    let mut responses = Vec::with_capacity(map.len());
    for (code, response) in map {
        let response_origin = responses_origin.child(code);
        let Some(response) = response.as_object() else {
            diagnostics.push(invalid(
                &response_origin,
                format!("expected a response object, found {}", json_type(response)),
            ));
            continue;
        };
        let Some(content) = content(response, &response_origin, diagnostics) else {
            continue;
        };
        responses.push((
            code.clone(),
            Response {
                description: response
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                content,
                origin: response_origin,
            },
        ));
    }
    responses
}
