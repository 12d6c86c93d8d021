//! Whether a CustomResourceDefinition's schema is structural, as the apiextensions API server
//! decides it before it stores the CRD: `ValidateStructural` (`apiserver/schema/
//! validation.go`, its invariants, and `complete.go`, every field a value validation names
//! also specified outside it), with the type check of `ValidateCustomResourceDefinitionOpenAPISchema`
//! (`requireValidPropertyType`). The schema is read as the JSON the CRD carries; the paths
//! and messages are Go's, and the errors are sorted by their text as Go sorts them.

use kubeforge_runtime::schema::{BadValue, FieldError, FieldPath};
use serde_json::Value;

/// Where a schema node sits (Go's `level`): the messages for a missing `type` differ.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

/// The types a property may have (`openapiV3Types`, in `sets.List` order).
const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];

/// The errors of the schema at `path` (`…openAPIV3Schema`): unsupported types first, then
/// the structural ones, sorted.
pub(crate) fn errors(schema: &Value, path: &FieldPath) -> Vec<FieldError> {
    let mut errors = Vec::new();
    types(schema, path, &mut errors);
    let mut structural = Vec::new();
    invariants(schema, Level::Root, path, &mut structural);
    completeness(schema, schema, path, path, &mut structural);
    structural.sort_by_cached_key(ToString::to_string);
    errors.extend(structural);
    errors
}

fn text<'a>(node: &'a Value, key: &str) -> &'a str {
    node.get(key).and_then(Value::as_str).unwrap_or("")
}

fn flag(node: &Value, key: &str) -> bool {
    node.get(key).and_then(Value::as_bool) == Some(true)
}

/// A key Go's decoding leaves at its zero value is as good as absent.
fn set(node: &Value, key: &str) -> bool {
    !matches!(node.get(key), None | Some(Value::Null | Value::Bool(false)))
}

fn properties(node: &Value) -> impl Iterator<Item = (&String, &Value)> {
    node.get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

/// The schema of `additionalProperties`, when it is one (not a boolean).
fn additional_schema(node: &Value) -> Option<&Value> {
    node.get("additionalProperties").filter(|v| v.is_object())
}

fn junctors(node: &Value) -> impl Iterator<Item = (&'static str, usize, &Value)> {
    ["allOf", "anyOf", "oneOf"]
        .into_iter()
        .flat_map(move |key| {
            node.get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
                .map(move |(i, v)| (key, i, v))
        })
}

/// `requireValidPropertyType`: every node's `type`, where one is given, is an OpenAPI type.
fn types(node: &Value, path: &FieldPath, errors: &mut Vec<FieldError>) {
    let ty = text(node, "type");
    if !ty.is_empty() && !TYPES.contains(&ty) {
        let supported: Vec<String> = TYPES.iter().map(|t| (*t).to_owned()).collect();
        errors.push(FieldError::not_supported(
            path.child("type").render(),
            BadValue::from(ty),
            &supported,
        ));
    }
    for (key, value) in properties(node) {
        types(value, &path.child("properties").key(key), errors);
    }
    if let Some(items) = node.get("items").filter(|v| v.is_object()) {
        types(items, &path.child("items"), errors);
    }
    if let Some(additional) = additional_schema(node) {
        types(additional, &path.child("additionalProperties"), errors);
    }
    for (key, i, value) in junctors(node) {
        types(value, &path.child(key).index(i), errors);
    }
    if let Some(not) = node.get("not").filter(|v| v.is_object()) {
        types(not, &path.child("not"), errors);
    }
}

/// `anyOf: [{type: integer}, {type: string}]` exactly: the int-or-string exception.
fn is_int_or_string_any_of(any_of: Option<&Value>) -> bool {
    let Some(Value::Array(items)) = any_of else {
        return false;
    };
    let only_type = |v: &Value, ty: &str| {
        v.as_object()
            .is_some_and(|m| m.len() == 1 && m.get("type").and_then(Value::as_str) == Some(ty))
    };
    items.len() == 2 && only_type(&items[0], "integer") && only_type(&items[1], "string")
}

/// `validateStructuralInvariants`.
fn invariants(node: &Value, level: Level, path: &FieldPath, errors: &mut Vec<FieldError>) {
    let ty = text(node, "type");
    let items = node.get("items").filter(|v| v.is_object());
    if ty == "array" && items.is_none() {
        errors.push(FieldError::required(
            path.child("items").render(),
            "must be specified",
        ));
    }
    if let Some(items) = items {
        invariants(items, Level::Item, &path.child("items"), errors);
    }
    for (key, value) in properties(node) {
        invariants(
            value,
            Level::Field,
            &path.child("properties").key(key),
            errors,
        );
    }
    let additional = node.get("additionalProperties").is_some();
    if additional {
        if level == Level::Root {
            errors.push(FieldError::forbidden(
                path.child("additionalProperties").render(),
                "must not be used at the root",
            ));
        }
        if let Some(schema) = additional_schema(node) {
            invariants(
                schema,
                Level::Field,
                &path.child("additionalProperties"),
                errors,
            );
        }
    }
    let int_or_string = flag(node, "x-kubernetes-int-or-string");
    let preserve = flag(node, "x-kubernetes-preserve-unknown-fields");
    let embedded = flag(node, "x-kubernetes-embedded-resource");
    if int_or_string && preserve {
        errors.push(FieldError::invalid(
            path.child("x-kubernetes-preserve-unknown-fields").render(),
            BadValue::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    if int_or_string && embedded {
        errors.push(FieldError::invalid(
            path.child("x-kubernetes-embedded-resource").render(),
            BadValue::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    let skip_any_of = is_int_or_string_any_of(node.get("anyOf"));
    let skip_first_all_of_any_of = node
        .get("allOf")
        .and_then(Value::as_array)
        .and_then(|all| all.first())
        .is_some_and(|first| is_int_or_string_any_of(first.get("anyOf")));
    value_validation(
        node,
        skip_any_of,
        skip_first_all_of_any_of,
        level,
        path,
        errors,
    );

    let check_metadata = level == Level::Root || embedded;
    if embedded && ty != "object" {
        let detail = "must be object if x-kubernetes-embedded-resource is true";
        errors.push(if ty.is_empty() {
            FieldError::required(path.child("type").render(), detail)
        } else {
            FieldError::invalid(path.child("type").render(), BadValue::from(ty), detail)
        });
    } else if ty.is_empty() && !int_or_string && !preserve {
        let detail = match level {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        errors.push(FieldError::required(path.child("type").render(), detail));
    }
    if embedded && additional {
        errors.push(FieldError::forbidden(
            path.child("additionalProperties").render(),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if level == Level::Root && !ty.is_empty() && ty != "object" {
        errors.push(FieldError::invalid(
            path.child("type").render(),
            BadValue::from(ty),
            "must be object at the root",
        ));
    }
    let props = node.get("properties").and_then(Value::as_object);
    for key in ["kind", "apiVersion"] {
        if let Some(field) = props.and_then(|p| p.get(key))
            && check_metadata
            && text(field, "type") != "string"
        {
            errors.push(FieldError::invalid(
                path.child("properties").key(key).child("type").render(),
                BadValue::from(text(field, "type")),
                "must be string",
            ));
        }
    }
    if let Some(metadata) = props.and_then(|p| p.get("metadata")) {
        metadata_invariants(
            metadata,
            check_metadata,
            level,
            &path.child("properties").key("metadata"),
            errors,
        );
    }
    if embedded && !preserve && props.is_none_or(serde_json::Map::is_empty) {
        errors.push(FieldError::required(
            path.child("properties").render(),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
}

/// `validateStructuralMetadataInvariants`: at the root, `metadata` may restrict `name` and
/// `generateName` and nothing else.
fn metadata_invariants(
    metadata: &Value,
    check_metadata: bool,
    level: Level,
    path: &FieldPath,
    errors: &mut Vec<FieldError>,
) {
    let ty = text(metadata, "type");
    if check_metadata && ty != "object" {
        errors.push(FieldError::invalid(
            path.child("type").render(),
            BadValue::from(ty),
            "must be object",
        ));
    }
    if level != Level::Root {
        return;
    }
    let names: Vec<&String> = properties(metadata).map(|(k, _)| k).collect();
    let only_names = !names.is_empty()
        && names.len() <= 2
        && names.iter().all(|n| *n == "name" || *n == "generateName");
    let other = metadata.as_object().into_iter().flatten().any(|(key, _)| {
        let ignored =
            matches!(key.as_str(), "type" | "default") || (key == "properties" && only_names);
        !ignored && set(metadata, key)
    });
    if other {
        errors.push(FieldError::forbidden(
            path.render(),
            "must not specify anything other than name and generateName, but metadata is implicitly specified",
        ));
    }
}

/// `validateValueValidation`: the junctors of a node, and what they may not say.
fn value_validation(
    node: &Value,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    level: Level,
    path: &FieldPath,
    errors: &mut Vec<FieldError>,
) {
    for (key, i, nested) in junctors(node) {
        if key == "anyOf" && skip_any_of {
            continue;
        }
        let skip = key == "allOf" && i == 0 && skip_first_all_of_any_of;
        nested_value_validation(nested, skip, level, &path.child(key).index(i), errors);
    }
    if let Some(not) = node.get("not").filter(|v| v.is_object()) {
        nested_value_validation(not, false, level, &path.child("not"), errors);
    }
}

/// `validateNestedValueValidation`: inside `allOf`, `anyOf`, `oneOf` and `not`, a node may
/// only validate values, never specify them.
fn nested_value_validation(
    node: &Value,
    skip_any_of: bool,
    level: Level,
    path: &FieldPath,
    errors: &mut Vec<FieldError>,
) {
    value_validation(node, skip_any_of, false, level, path, errors);
    if let Some(items) = node.get("items").filter(|v| v.is_object()) {
        nested_value_validation(items, false, level, &path.child("items"), errors);
    }
    for (key, value) in properties(node) {
        nested_value_validation(
            value,
            false,
            Level::Field,
            &path.child("properties").key(key),
            errors,
        );
    }
    let rules: [(&str, &str); 13] = [
        ("type", "must be empty to be structural"),
        ("additionalProperties", "must be undefined to be structural"),
        ("default", "must be undefined to be structural"),
        ("title", "must be empty to be structural"),
        ("description", "must be empty to be structural"),
        ("nullable", "must be false to be structural"),
        ("externalDocs", "must be undefined to be structural"),
        (
            "x-kubernetes-preserve-unknown-fields",
            "must be false to be structural",
        ),
        (
            "x-kubernetes-embedded-resource",
            "must be false to be structural",
        ),
        (
            "x-kubernetes-int-or-string",
            "must be false to be structural",
        ),
        (
            "x-kubernetes-list-map-keys",
            "must be empty to be structural",
        ),
        (
            "x-kubernetes-list-type",
            "must be undefined to be structural",
        ),
        (
            "x-kubernetes-map-type",
            "must be undefined to be structural",
        ),
    ];
    for (key, detail) in rules {
        // Go's zero values: a nil pointer or map, an empty string or list, false.
        let pointer = matches!(
            key,
            "default"
                | "externalDocs"
                | "additionalProperties"
                | "x-kubernetes-list-type"
                | "x-kubernetes-map-type"
        );
        let present = match node.get(key) {
            None | Some(Value::Null) => false,
            Some(_) if pointer => true,
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Array(a)) => !a.is_empty(),
            Some(_) => set(node, key),
        };
        if present {
            errors.push(FieldError::forbidden(path.child(key).render(), detail));
        }
    }
    if node
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .is_some_and(|v| !v.is_empty())
    {
        errors.push(FieldError::forbidden(
            path.child("x-kubernetes-validations").render(),
            "must be empty to be structural",
        ));
    }
    if properties(node).any(|(key, _)| key == "metadata") {
        errors.push(FieldError::forbidden(
            path.child("properties").key("metadata").render(),
            "must not be specified in a nested context",
        ));
    }
}

/// `validateValueValidationCompleteness`, from the root's junctors: every property or item a
/// value validation names is specified in the structural node it applies to.
fn completeness(
    validation: &Value,
    structural: &Value,
    s_path: &FieldPath,
    v_path: &FieldPath,
    errors: &mut Vec<FieldError>,
) {
    if let Some(not) = validation.get("not").filter(|v| v.is_object()) {
        nested_completeness(not, Some(structural), s_path, &v_path.child("not"), errors);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for (i, nested) in validation
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            nested_completeness(
                nested,
                Some(structural),
                s_path,
                &v_path.child(key).index(i),
                errors,
            );
        }
    }
}

fn nested_completeness(
    validation: &Value,
    structural: Option<&Value>,
    s_path: &FieldPath,
    v_path: &FieldPath,
    errors: &mut Vec<FieldError>,
) {
    let Some(structural) = structural else {
        errors.push(FieldError::required(
            s_path.render(),
            format!("because it is defined in {}", v_path.render()),
        ));
        return;
    };
    completeness(validation, structural, s_path, v_path, errors);
    if let Some(items) = validation.get("items").filter(|v| v.is_object()) {
        nested_completeness(
            items,
            structural.get("items").filter(|v| v.is_object()),
            &s_path.child("items"),
            &v_path.child("items"),
            errors,
        );
    }
    for (key, value) in properties(validation) {
        let s_field = s_path.child("properties").key(key);
        let v_field = v_path.child("properties").key(key);
        match structural.get("properties").and_then(|p| p.get(key)) {
            None => errors.push(FieldError::required(
                s_field.render(),
                format!("because it is defined in {}", v_field.render()),
            )),
            Some(field) => nested_completeness(value, Some(field), &s_field, &v_field, errors),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::semantics::crds;

    fn crds_in(path: &std::path::Path) -> Vec<Value> {
        let text = std::fs::read_to_string(path).unwrap();
        let documents: Vec<Value> = serde_saphyr::from_multiple(&text)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        documents
            .into_iter()
            .filter(|d| d["kind"] == "CustomResourceDefinition")
            .collect()
    }

    /// Every CRD real clusters accept (the corpus's, the extra and old CRDs, Istio's whole
    /// bundle) passes: a rule read too strictly refuses one of them.
    #[test]
    fn real_projects_crds_are_structural() {
        let mut files = Vec::new();
        if let Some(corpus) =
            kubeforge_tests::corpus("real_projects_crds_are_structural", &["crds"])
        {
            files.extend(kubeforge_tests::sorted_files(&corpus.join("crds"), "yaml"));
        }
        for dir in [
            kubeforge_tests::extra_crds("real_projects_crds_are_structural", &[]),
            kubeforge_tests::old_crds("real_projects_crds_are_structural", &[]),
        ]
        .into_iter()
        .flatten()
        {
            files.extend(kubeforge_tests::sorted_files(&dir, "yaml"));
        }
        let mut checked = 0;
        for file in &files {
            for crd in crds_in(file) {
                let errors = crds::errors(&crd, None);
                assert!(
                    errors.is_empty(),
                    "{} {}: {errors:#?}",
                    file.display(),
                    crd["metadata"]["name"]
                );
                checked += 1;
            }
        }
        assert!(files.is_empty() || checked > 20, "only {checked} CRDs read");
    }

    fn crd(versions: Value) -> Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "foos.example.com"},
            "spec": {"group": "example.com", "names": {"plural": "foos"}, "versions": versions},
        })
    }

    fn messages(crd: &Value) -> Vec<String> {
        crds::errors(crd, None)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// One schema in every version is checked once, as `spec.validation` (the internal
    /// version's field); different ones per version, at their own path.
    #[test]
    fn the_path_follows_the_internal_version() {
        let bad = json!({"openAPIV3Schema": {"properties": {"a": {"type": "string"}}}});
        let one = crd(json!([{"name": "v1", "schema": bad}, {"name": "v2", "schema": bad}]));
        assert_eq!(
            messages(&one),
            ["spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root"]
        );
        let good = json!({"openAPIV3Schema": {"type": "object"}});
        let two = crd(json!([{"name": "v1", "schema": good}, {"name": "v2", "schema": bad}]));
        assert_eq!(
            messages(&two),
            [
                "spec.versions[1].schema.openAPIV3Schema.type: Required value: must not be empty at the root"
            ]
        );
        let missing = crd(json!([{"name": "v1", "schema": good}, {"name": "v2"}]));
        assert_eq!(
            messages(&missing),
            ["spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required"]
        );
    }

    /// The int-or-string patterns controller-gen writes pass; the invariants, the nested
    /// rules and completeness each refuse what Go refuses, sorted as Go sorts them.
    #[test]
    fn each_structural_rule_is_applied() {
        let schema = json!({
            "type": "object",
            "anyOf": [{"properties": {"missing": {"minimum": 1}}}],
            "properties": {
                "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                "size": {"x-kubernetes-int-or-string": true, "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"pattern": "^\\d"}]},
                "list": {"type": "array"},
                "odd": {"type": "text"},
                "inner": {"type": "object", "oneOf": [{"type": "string", "description": "x", "properties": {"metadata": {}}}]},
                "embedded": {"x-kubernetes-embedded-resource": true, "properties": {"kind": {"type": "integer"}}},
                "kind": {"type": "string"},
                "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}}},
            },
        });
        let crd = crd(json!([{"name": "v1", "schema": {"openAPIV3Schema": schema}}]));
        let p = "spec.validation.openAPIV3Schema";
        let expected: Vec<String> = [
            format!("{p}.properties[odd].type: Unsupported value: \"text\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\""),
            format!("{p}.properties[embedded].properties[kind].type: Invalid value: \"integer\": must be string"),
            format!("{p}.properties[embedded].type: Required value: must be object if x-kubernetes-embedded-resource is true"),
            format!("{p}.properties[inner].oneOf[0].description: Forbidden: must be empty to be structural"),
            format!("{p}.properties[inner].oneOf[0].properties[metadata]: Forbidden: must not be specified in a nested context"),
            format!("{p}.properties[inner].oneOf[0].type: Forbidden: must be empty to be structural"),
            format!("{p}.properties[list].items: Required value: must be specified"),
            format!("{p}.properties[missing]: Required value: because it is defined in {p}.anyOf[0].properties[missing]"),
        ]
        .into_iter()
        .collect();
        let mut found = messages(&crd);
        // The type check comes first, then the structural errors in Go's sorted order.
        assert_eq!(found.remove(0), expected[0]);
        assert_eq!(found, expected[1..]);
    }
}
