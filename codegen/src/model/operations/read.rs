//! Reading operations from `paths`: methods, templates, parameters, bodies and responses,
//! with a located diagnostic for everything that does not fit.

use std::collections::{BTreeMap, BTreeSet};

use super::conventions::{self, capitalize};
use super::{
    Action, Body, BodyKind, Index, Method, Operation, OperationNames, OperationResource,
    PATCH_CONTENT_TYPES, PathParam, PathTemplate, QueryParam, Response, ResponseBody, accept_for,
    invalid,
};
use crate::diagnostics::{Diagnostic, Diagnostics, ErrorKind, Origin};
use crate::ground::Gvk;
use crate::ground::naming::{self, Namespace};
use crate::load::operation::{
    Operation as LoadedOperation, Parameter, RequestBody, Response as LoadedResponse,
};
use crate::load::schema::{Schema, SchemaRef, Type};
use crate::model::resources::parse_path;
use crate::model::schema::{Place, constraint_only, dangling, map_shape};
use crate::model::{Scope, Shape};

pub(super) fn read_operation(
    raw: &LoadedOperation,
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
    let parsed = parse_path(&raw.path);

    let id = raw
        .id
        .clone()
        .unwrap_or_else(|| fallback_id(method, &raw.path));
    let action = match &raw.action {
        Some(text) => Action::parse(text),
        None => infer_action(method, parsed.as_ref()),
    };

    // Parameters: the path item's, overridden by the operation's of the same name and place.
    let mut params: BTreeMap<(&str, &str), &Parameter> = BTreeMap::new();
    for param in raw.path_parameters.iter() {
        params.insert((&param.location, &param.name), param);
    }
    let mut own = BTreeSet::new();
    for param in &raw.parameters {
        if !own.insert((param.location.as_str(), param.name.as_str())) {
            diagnostics.push(invalid(
                &param.origin,
                format!(
                    "expected each parameter once, found `{}` ({}) twice",
                    param.name, param.location
                ),
            ));
            continue;
        }
        params.insert((&param.location, &param.name), param);
    }

    let template_params: Vec<&str> = template.params().collect();
    let mut ok = true;
    let mut query_params = Vec::new();
    let mut query_names = Namespace::default();
    let mut path_descriptions: BTreeMap<&str, Option<String>> = BTreeMap::new();
    for ((location, name), param) in &params {
        let description = param.description.clone();
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
                let Some(shape) = param_shape(param, index, diagnostics) else {
                    ok = false;
                    continue;
                };
                query_params.push(QueryParam {
                    name: (*name).to_owned(),
                    rust_name: query_names.claim(&naming::field_name(name)),
                    shape,
                    description,
                    required: param.required,
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
            None => raw.gvk_kind.as_ref().map(|kind| OperationResource {
                id: None,
                gvk: Gvk {
                    group: p.group.clone(),
                    version: p.version.clone(),
                    kind: kind.clone(),
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

    let body = match &raw.request_body {
        None => None,
        Some(request_body) => match read_body(request_body, index, diagnostics) {
            Some(body) => Some(body),
            None => {
                ok = false;
                None
            }
        },
    };

    let responses = read_responses(&raw.responses, index, &object, diagnostics)?;

    let deprecated = raw.deprecated || parsed.as_ref().is_some_and(|p| p.watch);
    let mut description = raw.description.clone();
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

/// The type of a query parameter: the schema mapping's ([`map_shape`]) scalar, or a list
/// of them. A parameter travels as text: no `type` is a string, and a scalar the mapping
/// gives a runtime type (`date-time`, `byte`, `int-or-string`, numbers) is the text the
/// caller writes, `String`.
fn param_shape(
    param: &Parameter,
    index: &Index<'_>,
    diagnostics: &mut Diagnostics,
) -> Option<Shape> {
    let text = |schema: &Schema| {
        let mut schema = schema.clone();
        schema.ty.get_or_insert(Type::String);
        schema
    };
    let mut schema = text(&param.schema);
    if schema.ty == Some(Type::Array) {
        schema.items = Some(Box::new(
            schema
                .items
                .as_deref()
                .map_or_else(|| text(&Schema::default()), text),
        ));
    }
    let mut place = Inline { index, diagnostics };
    let shape = map_shape(&mut place, &schema, &param.schema_origin, &param.name, 0)?;
    let shape = match shape {
        Shape::Vec(item) => as_text(*item).map(|item| Shape::Vec(Box::new(item))),
        other => as_text(other),
    };
    if shape.is_none() {
        diagnostics.push(
            Diagnostic::new(
                ErrorKind::UnsupportedSchema,
                &param.schema_origin,
                format!(
                    "expected the query parameter `{}` to be a string, integer, number, boolean or an array of them",
                    param.name
                ),
            ),
        );
    }
    shape
}

/// A scalar shape as the text of a query parameter, or `None` for no scalar.
fn as_text(shape: Shape) -> Option<Shape> {
    match shape {
        Shape::Runtime(_) => Some(Shape::String),
        Shape::Nullable(inner) => as_text(*inner),
        // A query parameter is text: every integer is `i64` there.
        Shape::Integer => Some(Shape::I64),
        Shape::Bool
        | Shape::I32
        | Shape::I64
        | Shape::U32
        | Shape::U64
        | Shape::F64
        | Shape::String => Some(shape),
        Shape::Ref(_) | Shape::Vec(_) | Shape::Map(_) | Shape::Json => None,
    }
}

/// The shape of a body or response schema ([`map_shape`]).
fn schema_shape(
    schema: &Schema,
    origin: &Origin,
    index: &Index<'_>,
    diagnostics: &mut Diagnostics,
) -> Option<Shape> {
    map_shape(&mut Inline { index, diagnostics }, schema, origin, "", 0)
}

/// Where the schemas of parameters and bodies are mapped: no type of their own can be
/// made there, so what would be a struct or union is JSON, and a string enum a string.
struct Inline<'i, 'd> {
    index: &'i Index<'i>,
    diagnostics: &'d mut Diagnostics,
}

impl<'a> Place<'a> for Inline<'_, '_> {
    fn reference(&mut self, reference: &SchemaRef, origin: &Origin) -> Option<Shape> {
        let found = self.index.by_schema.get(reference.name.as_str()).copied();
        if found.is_none() {
            self.diagnostics.push(dangling(reference, origin));
        }
        found.map(Shape::Ref)
    }

    fn combined(
        &mut self,
        schema: &'a Schema,
        _origin: &Origin,
        _property: &str,
        _depth: usize,
    ) -> Option<Option<Shape>> {
        let own_type = schema.properties.as_ref().is_some_and(|p| !p.is_empty())
            || schema
                .combinators()
                .any(|(_, list)| !list.iter().all(constraint_only));
        Some(own_type.then_some(Shape::Json))
    }

    fn string_enum(
        &mut self,
        _schema: &'a Schema,
        _origin: &Origin,
        _property: &str,
    ) -> Option<Option<Shape>> {
        Some(None)
    }

    fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}

fn read_body(body: &RequestBody, index: &Index<'_>, diagnostics: &mut Diagnostics) -> Option<Body> {
    let shape = match &body.content.schema {
        Some((schema, schema_origin)) => schema_shape(schema, schema_origin, index, diagnostics)?,
        None => Shape::Json,
    };
    let content_types = body.content.media_types.clone();
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
        required: body.required,
    })
}

fn read_responses(
    raw: &[(String, LoadedResponse)],
    index: &Index<'_>,
    object: &Shape,
    diagnostics: &mut Diagnostics,
) -> Option<Vec<Response>> {
    let mut responses = Vec::new();
    let mut ok = true;
    for (code, response) in raw {
        // `default` and ranges (`2XX`) describe no particular status; decoders treat
        // undeclared statuses as errors, which is what they mean in Kubernetes.
        if code == "default" || code.ends_with("XX") {
            continue;
        }
        let Some(status) = code.parse::<u16>().ok().filter(|s| (100..600).contains(s)) else {
            diagnostics.push(invalid(
                &response.origin,
                format!("expected an HTTP status code, found {code:?}"),
            ));
            ok = false;
            continue;
        };
        let content_types = response.content.media_types.clone();
        let body = match &response.content.schema {
            None => ResponseBody::Empty,
            Some((schema, schema_origin)) => {
                let Some(shape) = schema_shape(schema, schema_origin, index, diagnostics) else {
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
            description: response.description.clone(),
            body,
            content_types,
            variant: naming::status_variant(status),
            declared: None,
        });
    }
    responses.sort_by_key(|r| r.status);
    ok.then_some(responses)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::ResponseBody;
    use crate::model::{ApiSet, RuntimeType, Shape, TypeKind};

    fn model(schemas: &Value, paths: &Value) -> Result<ApiSet, crate::Error> {
        let document = json!({
            "openapi": "3.0.0", "info": {"title": "t", "version": "v1"},
            "paths": paths, "components": {"schemas": schemas}
        });
        crate::Config::new()
            .input_bytes("a.json", document.to_string())
            .api()
    }

    /// The schemas of fields, request bodies and responses go through one mapping: the
    /// same schema makes the same shape in all three.
    #[test]
    fn fields_bodies_and_responses_map_a_schema_alike() {
        let cases = [
            (
                "count",
                json!({"type": "integer", "format": "uint64"}),
                Shape::U64,
            ),
            (
                "size",
                json!({"x-kubernetes-int-or-string": true}),
                Shape::Runtime(RuntimeType::IntOrString),
            ),
            (
                "labels",
                json!({"type": "object", "additionalProperties": {"type": "string"}}),
                Shape::Map(Box::new(Shape::String)),
            ),
            (
                "maybe",
                json!({"type": "string", "nullable": true}),
                Shape::Nullable(Box::new(Shape::String)),
            ),
            (
                "when",
                json!({"allOf": [{"type": "string", "format": "date-time"}]}),
                Shape::Runtime(RuntimeType::DateTime),
            ),
        ];
        let properties: serde_json::Map<String, Value> = cases
            .iter()
            .map(|(name, schema, _)| ((*name).to_owned(), schema.clone()))
            .collect();
        let schemas = json!({"io.example.v1.Thing": {"type": "object", "properties": properties}});
        let paths: serde_json::Map<String, Value> = cases
            .iter()
            .map(|(name, schema, _)| {
                let content = json!({"application/json": {"schema": schema}});
                let op = json!({"post": {
                    "operationId": format!("post{name}"),
                    "requestBody": {"content": content},
                    "responses": {"200": {"description": "ok", "content": content}}
                }});
                (format!("/{name}"), op)
            })
            .collect();
        let api = model(&schemas, &Value::Object(paths)).unwrap();
        let thing = api
            .types
            .iter()
            .find(|t| t.schema_name == "io.example.v1.Thing")
            .unwrap();
        let TypeKind::Struct(fields) = &thing.kind else {
            panic!("a struct");
        };
        for (name, _, expected) in &cases {
            let field = fields.iter().find(|f| f.json_name == *name).unwrap();
            assert_eq!(&field.shape, expected, "field {name}");
            let op = api
                .operations
                .iter()
                .find(|op| op.id == format!("post{name}"))
                .unwrap();
            assert_eq!(
                op.body.as_ref().map(|b| &b.shape),
                Some(expected),
                "body {name}"
            );
            assert_eq!(
                op.responses[0].body,
                ResponseBody::Json(expected.clone()),
                "response {name}"
            );
        }
    }

    /// Query parameters go through the same mapping and travel as text.
    #[test]
    fn query_parameters_map_through_the_schema_mapping_as_text() {
        let params = json!([
            {"name": "limit", "in": "query", "schema": {"type": "integer", "format": "uint64"}},
            {"name": "since", "in": "query", "schema": {"type": "string", "format": "date-time"}},
            {"name": "tags", "in": "query", "schema": {"type": "array", "items": {"type": "integer", "format": "int32"}}},
            {"name": "any", "in": "query"},
            {"name": "ratio", "in": "query", "schema": {"type": "number"}}
        ]);
        let paths =
            json!({"/a": {"get": {"operationId": "get", "parameters": params, "responses": {}}}});
        let api = model(&json!({}), &paths).unwrap();
        let shapes: Vec<(&str, &Shape)> = api.operations[0]
            .query_params
            .iter()
            .map(|p| (p.name.as_str(), &p.shape))
            .collect();
        assert_eq!(
            shapes,
            [
                ("any", &Shape::String),
                ("limit", &Shape::U64),
                ("ratio", &Shape::String),
                ("since", &Shape::String),
                ("tags", &Shape::Vec(Box::new(Shape::I32))),
            ]
        );
        let object = json!({"/a": {"get": {"operationId": "get", "responses": {},
            "parameters": [{"name": "o", "in": "query", "schema": {"type": "object"}}]}}});
        let e = model(&json!({}), &object).unwrap_err();
        assert_eq!(e.kinds(), [crate::ErrorKind::UnsupportedSchema], "{e}");
        assert_eq!(
            e.diagnostics()[0].origin.pointer,
            "/paths/~1a/get/parameters/0/schema"
        );
    }
}
