//! Swagger 2.0 → the OpenAPI v3 form, so every later stage reads one shape:
//!
//! - `$ref`s to `#/definitions/…` become `#/components/schemas/…`;
//! - parameters given by `$ref` to the global `parameters` are inlined;
//! - a non-body parameter's `type`, `format`, `items`, … move into its `schema`;
//! - the `in: body` parameter becomes a `requestBody` with the operation's `consumes`;
//! - a response's `schema` moves under `content`, once per media type in `produces`.

use kubeforge_runtime::json::strings;
use serde_json::{Map, Value};

use super::json_type;
use crate::diagnostics::{Diagnostic, Diagnostics, ErrorKind, Origin};

/// Keywords of a Swagger 2.0 non-body parameter that OpenAPI v3 keeps in `schema`.
pub(super) const SCHEMA_KEYWORDS: [&str; 11] = [
    "type",
    "format",
    "items",
    "enum",
    "default",
    "uniqueItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
];

/// Rewrites every `$ref` to `#/definitions/X` as `#/components/schemas/X`, in place.
pub(super) fn rewrite_refs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if key == "$ref" {
                    if let Value::String(target) = child
                        && let Some(name) = target.strip_prefix("#/definitions/")
                    {
                        *target = format!("#/components/schemas/{name}");
                    }
                } else {
                    rewrite_refs(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}

/// The document-wide settings an operation falls back on.
pub(super) struct Globals<'a> {
    pub parameters: Option<&'a Map<String, Value>>,
    pub consumes: Vec<String>,
    pub produces: Vec<String>,
    pub origin: Origin,
}

impl<'a> Globals<'a> {
    pub(super) fn of(document: &'a Value, origin: &Origin) -> Globals<'a> {
        Globals {
            parameters: document.get("parameters").and_then(Value::as_object),
            consumes: strings(document.get("consumes")),
            produces: strings(document.get("produces")),
            origin: origin.clone(),
        }
    }
}

/// A list of parameters (of a path item or an operation) in the v3 form.
pub(super) struct Parameters {
    /// The non-body parameters, each with its `schema`.
    pub list: Vec<Value>,
    /// The body parameter, if any.
    pub body: Option<Value>,
    /// The first form parameter (`in: formData`), by name and where its `in` is: the v3 form
    /// has no such parameter and the generator no form bodies, so its operation is skipped.
    pub form: Option<(String, Origin)>,
}

/// Normalizes a list of parameters (of a path item or an operation), moving each one that
/// is not a reference.
pub(super) fn parameters(
    list: Vec<Value>,
    origin: &Origin,
    globals: &Globals<'_>,
    diagnostics: &mut Diagnostics,
) -> Parameters {
    let mut out = Vec::with_capacity(list.len());
    let mut body = None;
    let mut form = None;
    for (i, parameter) in list.into_iter().enumerate() {
        let item_origin = origin.child(&i.to_string());
        let Some(mut parameter) = resolve(parameter, &item_origin, globals, diagnostics) else {
            continue;
        };
        rewrite_refs(&mut parameter);
        match parameter.get("in").and_then(Value::as_str) {
            Some("body") => {
                body = Some(parameter);
                continue;
            }
            Some("formData") => {
                if form.is_none() {
                    let name = parameter
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    form = Some((name.to_owned(), item_origin.child("in")));
                }
                continue;
            }
            _ => {}
        }
        if let Value::Object(map) = &mut parameter
            && !map.contains_key("schema")
        {
            let mut schema = Map::new();
            // Most parameters have one or two of the keywords: find them by comparing the
            // keys (no hashing), then remove only those.
            for key in SCHEMA_KEYWORDS {
                if map.keys().any(|k| k == key)
                    && let Some(value) = map.remove(key)
                {
                    schema.insert(key.to_owned(), value);
                }
            }
            map.insert("schema".to_owned(), Value::Object(schema));
        }
        out.push(parameter);
    }
    Parameters {
        list: out,
        body,
        form,
    }
}

/// A parameter, with a `$ref` to the global `parameters` replaced by (a copy of) its target.
fn resolve(
    parameter: Value,
    origin: &Origin,
    globals: &Globals<'_>,
    diagnostics: &mut Diagnostics,
) -> Option<Value> {
    let Some(reference) = parameter.get("$ref") else {
        return Some(parameter);
    };
    let name = reference
        .as_str()
        .and_then(|r| r.strip_prefix("#/parameters/"))
        .map(|n| {
            if n.contains('~') {
                n.replace("~1", "/").replace("~0", "~")
            } else {
                n.to_owned()
            }
        });
    match name
        .as_deref()
        .and_then(|n| globals.parameters.and_then(|p| p.get(n)))
    {
        Some(target) if target.is_object() => Some(target.clone()),
        Some(target) => {
            diagnostics.push(Diagnostic::new(
                ErrorKind::InvalidOperation,
                &globals
                    .origin
                    .child("parameters")
                    .child(name.as_deref().unwrap_or_default()),
                format!("expected a parameter object, found {}", json_type(target)),
            ));
            None
        }
        None => {
            diagnostics.push(
                Diagnostic::new(
                    ErrorKind::DanglingRef,
                    &origin.child("$ref"),
                    format!("expected {reference} to name a parameter under `parameters`, but there is none"),
                )
                .with_hint("references to parameters look like `#/parameters/<name>`"),
            );
            None
        }
    }
}

/// Rewrites a Swagger 2.0 operation object into the v3 form, in place, given its already
/// normalized parameters.
pub(super) fn operation(
    operation: Value,
    parameters: Vec<Value>,
    body: Option<Value>,
    globals: &Globals<'_>,
) -> Value {
    let mut out = match operation {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let consumes = match strings(out.get("consumes")) {
        list if list.is_empty() => globals.consumes.clone(),
        list => list,
    };
    let produces = match strings(out.get("produces")) {
        list if list.is_empty() => globals.produces.clone(),
        list => list,
    };
    out.remove("consumes");
    out.remove("produces");
    out.insert("parameters".to_owned(), Value::Array(parameters));
    if let Some(Value::Object(mut body)) = body {
        let schema = body.remove("schema").unwrap_or(Value::Object(Map::new()));
        let mut request = Map::new();
        if let Some(description) = body.remove("description") {
            request.insert("description".to_owned(), description);
        }
        request.insert("content".to_owned(), content(&consumes, schema));
        if let Some(required) = body.remove("required") {
            request.insert("required".to_owned(), required);
        }
        out.insert("requestBody".to_owned(), Value::Object(request));
    }
    if let Some(Value::Object(responses)) = out.get_mut("responses") {
        for response in responses.values_mut() {
            if let Value::Object(response) = response
                && let Some(mut schema) = response.remove("schema")
            {
                rewrite_refs(&mut schema);
                response.insert("content".to_owned(), content(&produces, schema));
            }
        }
    }
    Value::Object(out)
}

/// The v3 `content` of `schema` under each media type (the last one takes it, the others a
/// copy).
fn content(media_types: &[String], schema: Value) -> Value {
    let mut content = Map::new();
    let defaults = ["application/json".to_owned()];
    let media_types = if media_types.is_empty() {
        &defaults[..]
    } else {
        media_types
    };
    let mut schema = Some(schema);
    for (i, media_type) in media_types.iter().enumerate() {
        let schema = if i + 1 == media_types.len() {
            schema.take().unwrap_or_default()
        } else {
            schema.clone().unwrap_or_default()
        };
        let mut entry = Map::new();
        entry.insert("schema".to_owned(), schema);
        content.insert(media_type.clone(), Value::Object(entry));
    }
    Value::Object(content)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use crate::load::load_bytes;

    /// The v3 form an operation is moved into (not cloned): every media type of `produces`
    /// and `consumes` gets the schema with its reference rewritten, a `$ref` parameter its
    /// target, a non-body parameter its keywords under `schema`, and the body its
    /// `requestBody`; the schemas under `definitions` arrive rewritten too.
    #[test]
    fn an_operation_is_rewritten_into_the_v3_form() {
        let document = json!({
            "swagger": "2.0", "info": {"title": "t", "version": "v1"},
            "consumes": ["application/json", "application/yaml"],
            "produces": ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"],
            "parameters": {"body-x": {"name": "body", "in": "body", "required": true,
                "schema": {"$ref": "#/definitions/io.example.v1.Thing"}}},
            "paths": {"/apis/example.com/v1/things": {
                "parameters": [{"name": "pretty", "in": "query", "type": "string", "uniqueItems": true}],
                "post": {"operationId": "createThing",
                    "parameters": [{"$ref": "#/parameters/body-x"},
                        {"name": "limit", "in": "query", "type": "integer", "description": "at most"}],
                    "responses": {"200": {"description": "OK",
                        "schema": {"$ref": "#/definitions/io.example.v1.Thing"}}}}}},
            "definitions": {"io.example.v1.Thing": {"type": "object",
                "properties": {"spec": {"$ref": "#/definitions/io.example.v1.Spec"}}},
                "io.example.v1.Spec": {"type": "object"}}
        });
        let bytes = serde_json::to_vec(&document).unwrap();
        let document = load_bytes(&bytes, Path::new("a.json")).unwrap();
        let thing = json!({"$ref": "#/components/schemas/io.example.v1.Thing"});
        assert_eq!(
            document.schemas[0].value["properties"]["spec"],
            json!({"$ref": "#/components/schemas/io.example.v1.Spec"})
        );
        let [operation] = &document.operations[..] else {
            panic!("expected one operation, found {:?}", document.operations);
        };
        assert_eq!(
            *operation.path_parameters,
            [json!({"name": "pretty", "in": "query",
                "schema": {"type": "string", "uniqueItems": true}})]
        );
        let value = &operation.value;
        assert_eq!(
            value["parameters"],
            json!([{"name": "limit", "in": "query", "description": "at most",
                "schema": {"type": "integer"}}])
        );
        assert_eq!(
            value["requestBody"],
            json!({"content": {"application/json": {"schema": thing},
                "application/yaml": {"schema": thing}}, "required": true})
        );
        let content = value["responses"]["200"]["content"].as_object().unwrap();
        assert_eq!(content.len(), 3);
        for (media_type, entry) in content {
            assert_eq!(entry, &json!({"schema": thing}), "{media_type}");
        }
        assert!(value.get("consumes").is_none() && value.get("produces").is_none());
    }
}
