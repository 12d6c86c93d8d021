//! Reading operations from `paths`: methods, templates, parameters, bodies and responses,
//! with a located diagnostic for everything that does not fit.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::conventions;
use super::names::{self, capitalize};
use super::{
    Action, Body, BodyKind, Index, Method, Operation, OperationNames, OperationResource,
    PATCH_CONTENT_TYPES, PathParam, PathTemplate, QueryParam, Response, ResponseBody, accept_for,
    invalid,
};
use crate::diagnostics::{Diagnostic, Diagnostics, ErrorKind, Origin};
use crate::load::{RawOperation, json_type, schema_ref_name};
use crate::model::naming::{self, Namespace};
use crate::model::resources::parse_path;
use crate::model::schema::scalar_shape;
use crate::model::{Gvk, Scope, Shape};

/// One parameter, from the path item or the operation.
struct RawParam<'v> {
    name: &'v str,
    location: &'v str,
    object: &'v Map<String, Value>,
    origin: Origin,
}

fn read_params<'v>(
    list: &'v [Value],
    origin: &Origin,
    diagnostics: &mut Diagnostics,
) -> Vec<RawParam<'v>> {
    let mut params = Vec::new();
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
        params.push(RawParam {
            name,
            location,
            object,
            origin: param_origin,
        });
    }
    params
}

pub(super) fn read_operation(
    raw: &RawOperation,
    index: &Index<'_>,
    diagnostics: &mut Diagnostics,
) -> Option<Operation> {
    let origin = &raw.origin;
    let Some(method) = Method::parse(&raw.method) else {
        diagnostics.push(invalid(
            origin,
            format!("expected an HTTP method, found {:?}", raw.method),
        ));
        return None;
    };
    let template = match PathTemplate::parse(&raw.path) {
        Ok(template) => template,
        Err(message) => {
            diagnostics.push(invalid(
                origin,
                format!("in the path `{}`: {message}", raw.path),
            ));
            return None;
        }
    };
    let value = raw.value.as_object()?;
    let parsed = parse_path(&raw.path);

    let id = match value.get("operationId") {
        Some(Value::String(id)) if !id.is_empty() => id.clone(),
        None => fallback_id(method, &raw.path),
        Some(other) => {
            diagnostics.push(invalid(
                &origin.child("operationId"),
                format!("expected a non-empty string, found {}", json_type(other)),
            ));
            return None;
        }
    };

    let action_value = value.get("x-kubernetes-action");
    let action = match action_value {
        Some(Value::String(text)) if !text.is_empty() => Action::parse(text),
        _ => infer_action(method, parsed.as_ref()),
    };

    // Parameters: the path item's, overridden by the operation's of the same name and place.
    let empty = Vec::new();
    let op_list = match value.get("parameters") {
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
            return None;
        }
    };
    let item_origin = parent_origin(origin).child("parameters");
    let mut params: BTreeMap<(&str, &str), RawParam<'_>> = BTreeMap::new();
    for param in read_params(&raw.path_parameters, &item_origin, diagnostics) {
        params.insert((param.location, param.name), param);
    }
    let mut own = BTreeSet::new();
    for param in read_params(op_list, &origin.child("parameters"), diagnostics) {
        if !own.insert((param.location, param.name)) {
            diagnostics.push(invalid(
                &param.origin,
                format!(
                    "expected each parameter once, found `{}` ({}) twice",
                    param.name, param.location
                ),
            ));
            continue;
        }
        params.insert((param.location, param.name), param);
    }

    let template_params: Vec<&str> = template.params().collect();
    let mut ok = true;
    let mut query_params = Vec::new();
    let mut query_names = Namespace::default();
    let mut path_descriptions: BTreeMap<&str, Option<String>> = BTreeMap::new();
    for ((location, name), param) in &params {
        let description = param
            .object
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match *location {
            "path" => {
                if template_params.contains(name) {
                    path_descriptions.insert(name, description);
                } else {
                    diagnostics.push(
                        invalid(
                            &param.origin,
                            format!(
                                "expected the path parameter `{name}` to appear in the path `{}`, but it does not",
                                raw.path
                            ),
                        )
                        .with_hint(format!("add `{{{name}}}` to the path, or remove the parameter")),
                    );
                    ok = false;
                }
            }
            "query" => {
                let Some(shape) = param_shape(param, diagnostics) else {
                    ok = false;
                    continue;
                };
                query_params.push(QueryParam {
                    name: (*name).to_owned(),
                    rust_name: query_names.claim(&naming::field_name(name)),
                    shape,
                    description,
                    required: param.object.get("required") == Some(&Value::Bool(true)),
                    setter: String::new(),
                    constant: String::new(),
                });
            }
            // Headers and cookies are the transport's business; Kubernetes declares none.
            "header" | "cookie" => {}
            other => {
                diagnostics.push(
                    invalid(
                        &param.origin.child("in"),
                        format!(
                            "expected a parameter in path, query, header or cookie, found {other:?}"
                        ),
                    )
                    .with_hint("OpenAPI v3 bodies are `requestBody`, not parameters"),
                );
                ok = false;
            }
        }
    }
    let path_params = template_params
        .iter()
        .map(|name| PathParam {
            name: (*name).to_owned(),
            rust_name: naming::field_name(name),
            description: path_descriptions.get(name).cloned().flatten(),
        })
        .collect();

    let resource = parsed.as_ref().and_then(|p| {
        let gvk_kind = value
            .get("x-kubernetes-group-version-kind")
            .and_then(|g| g.get("kind"))
            .and_then(Value::as_str);
        match index
            .by_plural
            .get(&(p.group.as_str(), p.version.as_str(), p.plural.as_str()))
        {
            Some(id) => {
                let r = &index.resources[id];
                Some(OperationResource {
                    id: Some(*id),
                    gvk: r.gvk.clone(),
                    plural: r.plural.clone(),
                    subresource: p.subresource.clone(),
                    scope: r.scope,
                })
            }
            None => gvk_kind.map(|kind| OperationResource {
                id: None,
                gvk: Gvk {
                    group: p.group.clone(),
                    version: p.version.clone(),
                    kind: kind.to_owned(),
                },
                plural: p.plural.clone(),
                subresource: p.subresource.clone(),
                scope: if p.namespaced {
                    Scope::Namespaced
                } else {
                    Scope::Cluster
                },
            }),
        }
    });
    let object = resource
        .as_ref()
        .and_then(|r| r.id)
        .map_or(Shape::Json, Shape::Ref);

    let body = match value.get("requestBody") {
        None | Some(Value::Null) => None,
        Some(request_body) => {
            let body_origin = origin.child("requestBody");
            match read_body(request_body, &body_origin, index, diagnostics) {
                Some(body) => Some(body),
                None => {
                    ok = false;
                    None
                }
            }
        }
    };

    let responses = read_responses(value, origin, index, &object, diagnostics)?;

    let deprecated = value.get("deprecated") == Some(&Value::Bool(true))
        || parsed.as_ref().is_some_and(|p| p.watch);
    let mut description = value
        .get("description")
        .or_else(|| value.get("summary"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Action::Other(text) = &action {
        description = Some(conventions::other_action_note(description.as_deref(), text));
    }
    let accept = accept_for(&responses);
    ok.then(|| Operation {
        id,
        method,
        path: template,
        action,
        resource,
        path_params,
        query_params,
        body,
        responses,
        accept,
        deprecated,
        description,
        watch: None,
        slash_optional: false,
        names: OperationNames::default(),
        origin: origin.clone(),
    })
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

/// An operation ID for operations without one: the method and the path's words.
fn fallback_id(method: Method, path: &str) -> String {
    let mut id = method.as_str().to_ascii_lowercase();
    for word in path.split(|c: char| !c.is_ascii_alphanumeric()) {
        id.push_str(&capitalize(word));
    }
    id
}

fn infer_action(method: Method, path: Option<&crate::model::resources::ResourcePath>) -> Action {
    let named = path.is_some_and(|p| p.named);
    let watch = path.is_some_and(|p| p.watch);
    match method {
        Method::Get if watch => Action::Watch,
        Method::Get if named || path.is_none() => Action::Get,
        Method::Get => Action::List,
        Method::Post if named => Action::Connect,
        Method::Post => Action::Create,
        Method::Put => Action::Replace,
        Method::Patch => Action::Patch,
        Method::Delete if named || path.is_none() => Action::Delete,
        Method::Delete => Action::DeleteCollection,
        Method::Head | Method::Options | Method::Trace => Action::Connect,
    }
}

/// The type of a query parameter (v3 `schema`, or a Swagger-style `type` left in place):
/// the schema mapping's scalar (`model::schema::scalar_shape`), or a list of them. A
/// parameter travels as text, so a scalar the mapping gives a runtime type (`date-time`,
/// `byte`) is the text the caller writes: `String`.
fn param_shape(param: &RawParam<'_>, diagnostics: &mut Diagnostics) -> Option<Shape> {
    let (schema, origin) = match param.object.get("schema") {
        Some(Value::Object(schema)) => (schema, param.origin.child("schema")),
        _ => (param.object, param.origin.clone()),
    };
    let shape = match schema.get("type").and_then(Value::as_str) {
        Some("array") => match schema.get("items").and_then(Value::as_object) {
            None => Some(Shape::String),
            Some(items) => query_scalar(items),
        }
        .map(|item| Shape::Vec(Box::new(item))),
        _ => query_scalar(schema),
    };
    if shape.is_none() {
        diagnostics.push(
            Diagnostic::new(
                ErrorKind::UnsupportedSchema,
                &origin,
                format!(
                    "expected the query parameter `{}` to be a string, integer, number, boolean or an array of them",
                    param.name
                ),
            ),
        );
    }
    shape
}

/// A query parameter's scalar type; no `type` is a string.
fn query_scalar(schema: &Map<String, Value>) -> Option<Shape> {
    let ty = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    let format = schema.get("format").and_then(Value::as_str);
    scalar_shape(ty, format).map(|shape| match shape {
        Shape::Runtime(_) => Shape::String,
        other => other,
    })
}

/// The shape of a body or response schema: a named type, or an inline scalar (the schema
/// mapping's) or list; anything else is JSON.
fn schema_shape(
    schema: &Value,
    origin: &Origin,
    index: &Index<'_>,
    diagnostics: &mut Diagnostics,
) -> Option<Shape> {
    let Some(object) = schema.as_object() else {
        diagnostics.push(invalid(
            origin,
            format!("expected a schema object, found {}", json_type(schema)),
        ));
        return None;
    };
    if let Some(reference) = object.get("$ref") {
        let text = reference.as_str().unwrap_or_default();
        return match schema_ref_name(text).and_then(|n| index.by_schema.get(n.as_str()).copied()) {
            Some(id) => Some(Shape::Ref(id)),
            None => {
                diagnostics.push(
                    Diagnostic::new(
                        ErrorKind::DanglingRef,
                        &origin.child("$ref"),
                        format!("expected `{text}` to name a schema, but there is no such schema"),
                    )
                    .with_hint("add the schema to an input document, or fix the reference"),
                );
                None
            }
        };
    }
    let format = object.get("format").and_then(Value::as_str);
    Some(match object.get("type").and_then(Value::as_str) {
        Some("array") => {
            let item = match object.get("items") {
                Some(items) => schema_shape(items, &origin.child("items"), index, diagnostics)?,
                None => Shape::Json,
            };
            Shape::Vec(Box::new(item))
        }
        Some(ty) => scalar_shape(ty, format).unwrap_or(Shape::Json),
        None => Shape::Json,
    })
}

/// A content map's media types, sorted, and the schema of the preferred one with its origin.
type Content<'v> = (Vec<String>, Option<(&'v Value, Origin)>);

/// The content map's types, sorted, and the schema of the preferred one (JSON, else the first).
fn content<'v>(
    node: &'v Map<String, Value>,
    origin: &Origin,
    diagnostics: &mut Diagnostics,
) -> Option<Content<'v>> {
    let content_origin = origin.child("content");
    let map = match node.get("content") {
        None | Some(Value::Null) => return Some((Vec::new(), None)),
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
    let mut types: Vec<String> = map.keys().cloned().collect();
    types.sort();
    let preferred = map
        .get_key_value("application/json")
        .or_else(|| map.iter().next());
    let schema = preferred.and_then(|(media, entry)| {
        entry
            .get("schema")
            .map(|schema| (schema, content_origin.child(media).child("schema")))
    });
    Some((types, schema))
}

fn read_body(
    value: &Value,
    origin: &Origin,
    index: &Index<'_>,
    diagnostics: &mut Diagnostics,
) -> Option<Body> {
    let Some(object) = value.as_object() else {
        diagnostics.push(invalid(
            origin,
            format!("expected a request body object, found {}", json_type(value)),
        ));
        return None;
    };
    let (content_types, schema) = content(object, origin, diagnostics)?;
    let shape = match schema {
        Some((schema, schema_origin)) => schema_shape(schema, &schema_origin, index, diagnostics)?,
        None => Shape::Json,
    };
    let kind = if content_types
        .iter()
        .any(|t| PATCH_CONTENT_TYPES.contains(&t.as_str()))
    {
        BodyKind::Patch
    } else {
        BodyKind::Json
    };
    Some(Body {
        shape,
        kind,
        content_types,
        required: object.get("required") == Some(&Value::Bool(true)),
    })
}

fn read_responses(
    value: &Map<String, Value>,
    origin: &Origin,
    index: &Index<'_>,
    object: &Shape,
    diagnostics: &mut Diagnostics,
) -> Option<Vec<Response>> {
    let responses_origin = origin.child("responses");
    let map = match value.get("responses") {
        None | Some(Value::Null) => return Some(Vec::new()),
        Some(Value::Object(map)) => map,
        Some(other) => {
            diagnostics.push(invalid(
                &responses_origin,
                format!(
                    "expected an object of responses, found {}",
                    json_type(other)
                ),
            ));
            return None;
        }
    };
    let mut responses = Vec::new();
    let mut ok = true;
    for (code, response) in map {
        let response_origin = responses_origin.child(code);
        // `default` and ranges (`2XX`) describe no particular status; decoders treat
        // undeclared statuses as errors, which is what they mean in Kubernetes.
        if code == "default" || code.ends_with("XX") {
            continue;
        }
        let Some(status) = code.parse::<u16>().ok().filter(|s| (100..600).contains(s)) else {
            diagnostics.push(invalid(
                &response_origin,
                format!("expected an HTTP status code, found {code:?}"),
            ));
            ok = false;
            continue;
        };
        let Some(response) = response.as_object() else {
            diagnostics.push(invalid(
                &response_origin,
                format!("expected a response object, found {}", json_type(response)),
            ));
            ok = false;
            continue;
        };
        let Some((content_types, schema)) = content(response, &response_origin, diagnostics) else {
            ok = false;
            continue;
        };
        let body = match schema {
            None => ResponseBody::Empty,
            Some((schema, schema_origin)) => {
                let Some(shape) = schema_shape(schema, &schema_origin, index, diagnostics) else {
                    ok = false;
                    continue;
                };
                let textual = content_types
                    .iter()
                    .any(|t| t == "text/plain" || t == "*/*")
                    || !content_types.iter().any(|t| t == "application/json");
                if index.is_watch_event(&shape) {
                    ResponseBody::Watch(object.clone())
                } else if shape == Shape::String && textual {
                    ResponseBody::Text
                } else {
                    ResponseBody::Json(shape)
                }
            }
        };
        responses.push(Response {
            status,
            description: response
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            body,
            content_types,
            variant: names::status_variant(status),
        });
    }
    responses.sort_by_key(|r| r.status);
    ok.then_some(responses)
}
