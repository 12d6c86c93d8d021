//! The OpenAPI documents a real API server publishes, made from the inputs: a Swagger 2.0
//! document is served as given at `/openapi/v2` and, converted, as one OpenAPI v3 document per
//! group-version at `/openapi/v3/<api/v1 | apis/<group>/<version>>`, the way kube-apiserver
//! splits its v3 documents. `kubectl explain` and `kubectl apply`'s validation read those, so
//! they work whichever format the user gave.
//!
//! The conversion follows the OpenAPI 3.0 specification's mapping of Swagger 2.0: definitions
//! become `components.schemas` (each `$ref` rewritten), a `body` parameter becomes the
//! `requestBody`, other parameters keep their place with their type under `schema`, and each
//! response's schema is given for every media type the operation `produces`. A group-version's
//! document holds its paths and the schemas they reach, as the server's own do.

use std::collections::{BTreeMap, BTreeSet};

use kubeforge_runtime::json::strings;
use serde_json::{Map, Value, json};

/// The `/openapi/v3` key of a path: `api/v1` for `/api/v1/…`, `apis/<group>/<version>` for
/// `/apis/<group>/<version>/…`; `None` for discovery paths above a group-version.
pub(crate) fn group_version_key(path: &str) -> Option<String> {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match segments[..] {
        ["api", version, ..] if !version.is_empty() => Some(format!("api/{version}")),
        ["apis", group, version, ..] if !group.is_empty() && !version.is_empty() => {
            Some(format!("apis/{group}/{version}"))
        }
        _ => None,
    }
}

/// The `/openapi/v3` key of a per-group-version OpenAPI v3 document (all its paths under one
/// group-version), or `None`.
pub(crate) fn v3_key(document: &Value) -> Option<String> {
    document.get("openapi")?;
    let paths = document.get("paths")?.as_object()?;
    let keys: BTreeSet<String> = paths.keys().filter_map(|p| group_version_key(p)).collect();
    match keys.len() {
        1 => keys.into_iter().next(),
        _ => None,
    }
}

/// Whether `document` is a Swagger 2.0 document.
pub(crate) fn is_swagger(document: &Value) -> bool {
    document.get("swagger").and_then(Value::as_str) == Some("2.0")
}

/// The OpenAPI v3 documents of a Swagger 2.0 document, one per group-version, by key.
pub(crate) fn split_swagger(swagger: &Value) -> BTreeMap<String, Value> {
    let empty = Map::new();
    let paths = swagger
        .get("paths")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let parameters = swagger
        .get("parameters")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let definitions = swagger
        .get("definitions")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut grouped: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for (path, item) in paths {
        let Some(key) = group_version_key(path) else {
            continue;
        };
        grouped
            .entry(key)
            .or_default()
            .insert(path.clone(), path_item(item, parameters));
    }
    let version = swagger
        .pointer("/info/version")
        .cloned()
        .unwrap_or_else(|| Value::from("unversioned"));
    let title = swagger
        .pointer("/info/title")
        .cloned()
        .unwrap_or_else(|| Value::from("Kubernetes"));
    grouped
        .into_iter()
        .map(|(key, paths)| {
            let paths = Value::Object(paths);
            let mut schemas = Map::new();
            let mut pending: Vec<String> = Vec::new();
            references(&paths, &mut pending);
            while let Some(name) = pending.pop() {
                if schemas.contains_key(&name) {
                    continue;
                }
                let Some(definition) = definitions.get(&name) else {
                    continue;
                };
                let schema = rewrite_refs(definition);
                references(&schema, &mut pending);
                schemas.insert(name, schema);
            }
            let schemas: BTreeMap<String, Value> = schemas.into_iter().collect();
            let document = json!({
                "openapi": "3.0.0",
                "info": {"title": title, "version": version},
                "paths": paths,
                "components": {"schemas": schemas},
            });
            (key, document)
        })
        .collect()
}

/// A Swagger path item as OpenAPI v3: the shared parameters and every operation converted.
fn path_item(item: &Value, parameters: &Map<String, Value>) -> Value {
    let Some(item) = item.as_object() else {
        return Value::Object(Map::new());
    };
    let mut out = Map::new();
    for (key, value) in item {
        match key.as_str() {
            "parameters" => {
                let (list, _) = convert_parameters(value, parameters);
                if !list.is_empty() {
                    out.insert(key.clone(), Value::Array(list));
                }
            }
            "get" | "put" | "post" | "delete" | "options" | "head" | "patch" => {
                out.insert(key.clone(), operation(value, parameters));
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

/// One operation: `consumes`/`produces` folded into the request body and responses.
fn operation(op: &Value, parameters: &Map<String, Value>) -> Value {
    let Some(op) = op.as_object() else {
        return op.clone();
    };
    let media = |key: &str| -> Vec<String> {
        Some(strings(op.get(key)))
            .filter(|list| !list.is_empty())
            .unwrap_or_else(|| vec!["application/json".to_owned()])
    };
    let (consumes, produces) = (media("consumes"), media("produces"));
    let mut out = Map::new();
    for (key, value) in op {
        match key.as_str() {
            "consumes" | "produces" | "schemes" => {}
            "parameters" => {
                let (list, body) = convert_parameters(value, parameters);
                if !list.is_empty() {
                    out.insert("parameters".into(), Value::Array(list));
                }
                if let Some(body) = body {
                    let schema = rewrite_refs(body.get("schema").unwrap_or(&Value::Null));
                    let content: Map<String, Value> = consumes
                        .iter()
                        .map(|m| (m.clone(), json!({"schema": schema})))
                        .collect();
                    let mut request = json!({"content": content});
                    if body.get("required") == Some(&Value::Bool(true)) {
                        request["required"] = Value::Bool(true);
                    }
                    out.insert("requestBody".into(), request);
                }
            }
            "responses" => {
                let responses = value
                    .as_object()
                    .map(|map| {
                        map.iter()
                            .map(|(code, response)| {
                                let mut converted = Map::new();
                                converted.insert(
                                    "description".into(),
                                    response
                                        .get("description")
                                        .cloned()
                                        .unwrap_or_else(|| Value::from("")),
                                );
                                if let Some(schema) = response.get("schema") {
                                    let schema = rewrite_refs(schema);
                                    let content: Map<String, Value> = produces
                                        .iter()
                                        .map(|m| (m.clone(), json!({"schema": schema})))
                                        .collect();
                                    converted.insert("content".into(), Value::Object(content));
                                }
                                (code.clone(), Value::Object(converted))
                            })
                            .collect::<Map<String, Value>>()
                    })
                    .unwrap_or_default();
                out.insert("responses".into(), Value::Object(responses));
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

/// Parameters as OpenAPI v3 parameters (shared ones resolved), and the `body` parameter apart.
fn convert_parameters(list: &Value, shared: &Map<String, Value>) -> (Vec<Value>, Option<Value>) {
    let mut out = Vec::new();
    let mut body = None;
    for parameter in list.as_array().into_iter().flatten() {
        let parameter = match parameter
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/parameters/"))
        {
            Some(name) => match shared.get(name) {
                Some(found) => found,
                None => continue,
            },
            None => parameter,
        };
        let Some(map) = parameter.as_object() else {
            continue;
        };
        if map.get("in").and_then(Value::as_str) == Some("body") {
            body = Some(parameter.clone());
            continue;
        }
        let mut converted = Map::new();
        let mut schema = Map::new();
        for (key, value) in map {
            match key.as_str() {
                "name" | "in" | "description" | "required" => {
                    converted.insert(key.clone(), value.clone());
                }
                key if key.starts_with("x-") => {
                    converted.insert(key.to_owned(), value.clone());
                }
                _ => {
                    schema.insert(key.clone(), rewrite_refs(value));
                }
            }
        }
        converted.insert("schema".into(), Value::Object(schema));
        out.push(Value::Object(converted));
    }
    (out, body)
}

/// `schema` with every `#/definitions/` reference pointing into `#/components/schemas/`.
fn rewrite_refs(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| {
                    let value = match (key.as_str(), value) {
                        ("$ref", Value::String(r)) => Value::from(
                            r.strip_prefix("#/definitions/")
                                .map_or_else(|| r.clone(), |n| format!("#/components/schemas/{n}")),
                        ),
                        _ => rewrite_refs(value),
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(rewrite_refs).collect()),
        other => other.clone(),
    }
}

/// Collects the schema names `value` refers to (`#/components/schemas/<name>`).
fn references(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                match (key.as_str(), item) {
                    ("$ref", Value::String(r)) => {
                        if let Some(name) = r.strip_prefix("#/components/schemas/") {
                            into.push(name.to_owned());
                        }
                    }
                    _ => references(item, into),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| references(item, into)),
        _ => {}
    }
}

/// Adds the `fieldValidation` query parameter to every PATCH operation on a kind that does
/// not list it (documents older than Kubernetes 1.25, OpenShift's). This server accepts it
/// on every write, and `kubectl` reads it from `/openapi/v3` to decide that the server
/// validates: otherwise it validates on the client against `/openapi/v2` in protobuf, which
/// this server does not serve.
pub(crate) fn declare_field_validation(document: &mut Value) {
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut() {
        let Some(patch) = item.get_mut("patch").and_then(Value::as_object_mut) else {
            continue;
        };
        if !patch.contains_key("x-kubernetes-group-version-kind") {
            continue;
        }
        let parameters = patch
            .entry("parameters")
            .or_insert_with(|| Value::Array(Vec::new()));
        let Some(list) = parameters.as_array_mut() else {
            continue;
        };
        if list
            .iter()
            .any(|p| p.get("name").and_then(Value::as_str) == Some("fieldValidation"))
        {
            continue;
        }
        list.push(json!({
            "name": "fieldValidation",
            "in": "query",
            "description": "Accepted by kubeforge-server (which keeps unknown fields, as the generated types do); added to the served document.",
            "schema": {"type": "string", "uniqueItems": true}
        }));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_swagger_document_splits_into_group_versions_with_the_schemas_they_reach() {
        let swagger = json!({
            "swagger": "2.0",
            "info": {"title": "Kubernetes", "version": "v1.36.0"},
            "parameters": {"ns": {"name": "namespace", "in": "path", "required": true, "type": "string", "uniqueItems": true}},
            "definitions": {
                "apps.Deployment": {"properties": {"metadata": {"$ref": "#/definitions/meta.ObjectMeta"}}, "x-kubernetes-group-version-kind": [{"group": "apps", "kind": "Deployment", "version": "v1"}]},
                "meta.ObjectMeta": {"properties": {"name": {"type": "string"}}},
                "core.Pod": {"properties": {}},
            },
            "paths": {
                "/apis/apps/": {"get": {"responses": {}}},
                "/apis/apps/v1/namespaces/{namespace}/deployments": {
                    "parameters": [{"$ref": "#/parameters/ns"}],
                    "post": {
                        "consumes": ["*/*"],
                        "produces": ["application/json", "application/yaml"],
                        "parameters": [
                            {"name": "body", "in": "body", "required": true, "schema": {"$ref": "#/definitions/apps.Deployment"}},
                            {"name": "dryRun", "in": "query", "type": "string", "uniqueItems": true},
                        ],
                        "responses": {"201": {"description": "Created", "schema": {"$ref": "#/definitions/apps.Deployment"}}, "401": {"description": "Unauthorized"}},
                    }
                },
                "/api/v1/pods": {"get": {"responses": {"200": {"description": "OK", "schema": {"$ref": "#/definitions/core.Pod"}}}}},
            }
        });
        let split = super::split_swagger(&swagger);
        assert_eq!(split.keys().collect::<Vec<_>>(), ["api/v1", "apis/apps/v1"]);
        let apps = &split["apis/apps/v1"];
        assert_eq!(apps["openapi"], "3.0.0");
        assert_eq!(
            apps["components"]["schemas"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["apps.Deployment", "meta.ObjectMeta"]
        );
        assert_eq!(
            apps.pointer("/components/schemas/apps.Deployment/properties/metadata/$ref"),
            Some(&json!("#/components/schemas/meta.ObjectMeta"))
        );
        let post = &apps["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments"];
        assert_eq!(
            post["parameters"],
            json!([{"name": "namespace", "in": "path", "required": true, "schema": {"type": "string", "uniqueItems": true}}])
        );
        assert_eq!(
            post["post"]["parameters"],
            json!([{"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": true}}])
        );
        assert_eq!(
            post["post"]["requestBody"],
            json!({"content": {"*/*": {"schema": {"$ref": "#/components/schemas/apps.Deployment"}}}, "required": true})
        );
        assert_eq!(
            post["post"]["responses"]["201"]["content"]["application/yaml"]["schema"]["$ref"],
            "#/components/schemas/apps.Deployment"
        );
        assert_eq!(
            post["post"]["responses"]["401"],
            json!({"description": "Unauthorized"})
        );
        assert_eq!(super::v3_key(apps).as_deref(), Some("apis/apps/v1"));
        assert_eq!(super::v3_key(&split["api/v1"]).as_deref(), Some("api/v1"));
    }
}
