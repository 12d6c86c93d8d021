//! What the API server does to a written object between reading the request and storing
//! it, for every create, update, patch, apply and status write:
//!
//! 1. **Decoding** as the kind's type does it ([`decode`]): a built-in kind's Go type drops
//!    the fields its schema does not declare (a `null` is a field's zero value: it is kept,
//!    and validation does not see it); a custom resource is decoded as
//!    apiextensions-apiserver decodes it: its `metadata` into `ObjectMeta` (unknown keys
//!    and `null`s dropped), the rest pruned to its schema (unless
//!    `x-kubernetes-preserve-unknown-fields`), non-nullable `null`s without a default
//!    removed, its schema's `default`s set and pruned again; whole-number floats become
//!    integers, as Go writes a decoded `float64` back (`1.0` is stored as `1`).
//! 2. **`fieldValidation`** ([`Directive`], [`strict`]): the fields decoding dropped and the
//!    duplicate keys of the body are refused (`Strict`, what kubectl sends), answered with
//!    `Warning` headers (`Warn`, the default) or dropped silently (`Ignore`), in the API
//!    server's words for a request body and for a patch.
//! 3. **Validation** ([`validate`]): the object's metadata as `ValidateObjectMetaAccessor`
//!    checks it (the name and `generateName` by the resource's rule, `object_names`; the
//!    namespace; label keys and values; annotation keys and size; finalizer names), then the
//!    schema of its kind with the runtime's evaluator over the model's nodes (OpenAPI
//!    keywords, formats, list-type uniqueness, embedded resources, CEL rules; on update
//!    with the stored object, so transition rules run and unchanged errors ratchet). Every
//!    error is answered at once, as a 422 `Invalid` with one cause each.
//!
//! Kinds without a schema (a catalog from a route table) get the metadata checks only.

use base64::Engine;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use kubeforge_runtime::schema::{
    self, Additional, BadValue, FieldError, Node, SchemaSet, gofmt, names,
};
use serde_json::{Map, Value};

use crate::objects::catalog::{Catalog, ResourceDef};
use crate::semantics::apply;
use crate::semantics::builtin_defaults;
use crate::semantics::crds;
use crate::semantics::directive::Directive;
use crate::semantics::kinds;
use crate::semantics::object_names;
use crate::wire::status::Failure;

/// A JSON request body and the paths of its duplicate keys (`spec.a`, `[0].op`).
pub(crate) fn parse_json(body: &[u8]) -> Result<(Value, Vec<String>), Failure> {
    let invalid = |e: &dyn std::fmt::Display| {
        Failure::bad_request(format!("the body of the request is not valid JSON: {e}"))
    };
    let text = std::str::from_utf8(body).map_err(|e| invalid(&e))?;
    schema::parse_strict(text).map_err(|e| invalid(&e))
}

/// Where strict decoding errors come from, which decides how a refusal is worded.
pub(crate) enum Source {
    /// A create's or update's body: 400 `<Kind> in version "<v>" cannot be handled as a
    /// <Kind>: strict decoding error: …` (`transformDecodeError`).
    Body,
    /// A patch: 422 ` "" is invalid: patch: Invalid value: "<patched>": strict decoding
    /// error: …`, the value being the patched object (JSON and merge patches) or the patch
    /// as Go prints its map (strategic merge patches).
    Patch(String),
}

/// Applies `directive` to the strict decoding `errors` of a write (`duplicate field "…"`,
/// `unknown field "…"`): a refusal under `Strict`, `Warning`s under `Warn`.
pub(crate) fn strict(
    directive: Directive,
    def: &ResourceDef,
    errors: Vec<String>,
    source: Source,
    warnings: &mut Vec<String>,
) -> Result<(), Failure> {
    if errors.is_empty() {
        return Ok(());
    }
    match directive {
        Directive::Ignore => Ok(()),
        Directive::Warn => {
            warnings.extend(errors);
            Ok(())
        }
        Directive::Strict => {
            let message = format!("strict decoding error: {}", errors.join(", "));
            Err(match source {
                Source::Body => Failure::bad_request(format!(
                    "{kind} in version {version} cannot be handled as a {kind}: {message}",
                    kind = def.kind,
                    version = gofmt::quote(&def.version),
                )),
                Source::Patch(shown) => Failure::invalid_fields(
                    "",
                    "",
                    "",
                    vec![FieldError::invalid(
                        "patch",
                        BadValue::String(shown),
                        message,
                    )],
                ),
            })
        }
    }
}

/// The strict decoding errors of the duplicate keys of a body (`duplicate field "spec.a"`);
/// a JSON patch's are about its operations (`json patch duplicate field "[0].op"`), as are
/// keys an operation does not have (`json patch unknown field "[0].value2"`).
pub(crate) fn duplicate_errors(duplicates: &[String], json_patch: Option<&Value>) -> Vec<String> {
    let errors = schema::strict_errors(duplicates, &[]);
    let Some(patch) = json_patch else {
        return errors;
    };
    let mut errors: Vec<String> = errors
        .into_iter()
        .map(|e| format!("json patch {e}"))
        .collect();
    for (i, op) in patch.as_array().into_iter().flatten().enumerate() {
        for key in op.as_object().into_iter().flat_map(Map::keys) {
            if !matches!(key.as_str(), "op" | "path" | "from" | "value") {
                errors.push(format!(
                    "json patch unknown field {}",
                    gofmt::quote(&format!("[{i}].{key}"))
                ));
            }
        }
    }
    errors
}

/// Decodes `object` as an object of `def`'s kind (see the module docs) and returns the
/// strict decoding errors of the fields that dropped (`unknown field "spec.foo"`).
pub(crate) fn decode(catalog: &Catalog, def: &ResourceDef, object: &mut Value) -> Vec<String> {
    let schemas = catalog.schemas_for(def);
    let Some((node, builtin)) = schemas.root_node(&def.group, &def.version, &def.kind) else {
        return Vec::new();
    };
    go_numbers(object);
    if builtin {
        go_bytes(&schemas.set, node, object, 0);
        // sigs.k8s.io/json quotes the path (strconv.Quote).
        let unknown = apply::drop_unknown(schemas, def, object, None)
            .iter()
            .map(|path| format!("unknown field {}", gofmt::quote(path)))
            .collect();
        builtin_defaults(catalog, def, object);
        return unknown;
    }
    // `GetObjectMetaWithOptions` decodes the metadata re-encoded by Go, keys sorted.
    let mut unknown = apply::drop_unknown(schemas, def, object, Some("metadata"));
    unknown.sort();
    unknown.extend(schema::prune(node, &schemas.set, object));
    schema::prune_nulls(node, &schemas.set, object);
    schema::apply_defaults(node, &schemas.set, object);
    // The converter coerces the defaulted object again: a default's undeclared keys go.
    let _ = schema::prune(node, &schemas.set, object);
    schema::strict_errors(&[], &unknown)
}

/// Runs the built-in defaulters on an object of a built-in kind (see `builtin_defaults`):
/// on the decoded object, and again where a strategy resets a part of it (a created object's
/// `status`).
pub(crate) fn builtin_defaults(catalog: &Catalog, def: &ResourceDef, object: &mut Value) {
    let schemas = catalog.schemas_for(def);
    if let Some(root) = schemas.root_of(&def.group, &def.version, &def.kind)
        && root.builtin
    {
        builtin_defaults::apply(&schemas.set, &schemas.names, root.index, object);
    }
}

/// The `[]byte` fields of a built-in kind (`format: byte`: a Secret's `data`) as Go's decoder
/// reads them and its encoder writes them back: `base64.StdEncoding`, which skips `\r` and
/// `\n` and allows non-zero trailing bits, written again in one line. A value Go cannot decode
/// is left as it is, for validation to refuse.
fn go_bytes(set: &SchemaSet, node: &Node, value: &mut Value, depth: usize) {
    const GO_STD: GeneralPurpose = GeneralPurpose::new(
        &alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
    );
    if depth > 64 {
        return;
    }
    let mut layers = vec![node];
    let mut next = node.reference;
    while let Some(at) = next.filter(|_| layers.len() < 16) {
        let Some(referred) = set.get(at) else { break };
        layers.push(referred);
        next = referred.reference;
    }
    match value {
        Value::String(text) if layers.iter().any(|n| n.format.as_deref() == Some("byte")) => {
            let joined: String = text.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
            if let Ok(bytes) = GO_STD.decode(joined.as_bytes()) {
                *text = GO_STD.encode(bytes);
            }
        }
        Value::Object(map) => {
            let additional = layers.iter().find_map(|n| match &n.additional_properties {
                Some(additional) => match additional.as_ref() {
                    Additional::Schema(schema) => Some(schema),
                    Additional::Allowed(_) => None,
                },
                None => None,
            });
            for (key, child) in map.iter_mut() {
                if let Some(property) = layers.iter().find_map(|n| n.properties.get(key)) {
                    go_bytes(set, property, child, depth + 1);
                } else if let Some(schema) = additional {
                    go_bytes(set, schema, child, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(schema) = layers.iter().find_map(|n| n.items.as_deref()) {
                for item in items {
                    go_bytes(set, schema, item, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// Whole-number floats (`1.0`, `2e3`) as integers: Go decodes them into `float64` and
/// writes them back without a fraction.
fn go_numbers(value: &mut Value) {
    match value {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            if let Some(whole) = n.as_f64().and_then(kubeforge_runtime::integer::whole) {
                *value = Value::from(whole);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(go_numbers),
        Value::Object(map) => map.values_mut().for_each(go_numbers),
        _ => {}
    }
}

/// Validates an object of `def`'s kind before it is stored: on create (`old` `None`) and on
/// update from `old` (see the module docs). The refusal lists every error.
pub(crate) fn validate(
    catalog: &Catalog,
    def: &ResourceDef,
    object: &Value,
    old: Option<&Value>,
) -> Result<(), Failure> {
    validate_write(catalog, def, object, old, None)
}

/// [`validate`] for an update through the main resource (`sub` `None`) or a subresource,
/// whose own rules a kind may have (a Pod's `ephemeralcontainers` and `resize`).
pub(crate) fn validate_update(
    catalog: &Catalog,
    def: &ResourceDef,
    object: &Value,
    old: &Value,
    sub: Option<&str>,
) -> Result<(), Failure> {
    validate_write(catalog, def, object, Some(old), sub)
}

fn validate_write(
    catalog: &Catalog,
    def: &ResourceDef,
    object: &Value,
    old: Option<&Value>,
    sub: Option<&str>,
) -> Result<(), Failure> {
    let mut errors = object_meta(def, object, old.is_none());
    if crds::is_crd_resource(&def.group, &def.plural) {
        errors.extend(crds::errors(object, old));
    }
    // A built-in kind's hand-written rules; the schema's errors they stand for go.
    let own = kinds::errors(def, object, old, sub);
    // Schemas come from the model (feature `model`, which turns on the runtime's evaluator).
    #[cfg(feature = "model")]
    let schema = schema_errors(catalog, def, object, old, Vec::new());
    #[cfg(not(feature = "model"))]
    let schema: Vec<FieldError> = {
        let _ = catalog;
        Vec::new()
    };
    errors.extend(schema.into_iter().filter(|e| !kinds::replaces(&own, e)));
    errors.extend(own);
    if errors.is_empty() {
        return Ok(());
    }
    let name = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    Err(Failure::invalid_fields(&def.group, &def.kind, name, errors))
}

/// `errors` and those of the kind's schema.
#[cfg(feature = "model")]
fn schema_errors(
    catalog: &Catalog,
    def: &ResourceDef,
    object: &Value,
    old: Option<&Value>,
    mut errors: Vec<FieldError>,
) -> Vec<FieldError> {
    let schemas = catalog.schemas_for(def);
    if let Some((node, builtin)) = schemas.root_node(&def.group, &def.version, &def.kind) {
        let set = &schemas.set;
        if builtin {
            // Go decodes a `null` as the field's zero value: never a wrong type.
            let (object, old) = (without_nulls(object), old.map(without_nulls));
            errors.extend(schema::validate(node, set, &object, old.as_ref()));
        } else {
            errors.extend(schema::validate(node, set, object, old));
        }
    }
    errors
}

/// A copy of `value` without the `null`s of its objects' keys.
#[cfg(feature = "model")]
fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

/// The largest total size of an object's annotations, keys and values
/// (`TotalAnnotationSizeLimitB`).
const ANNOTATIONS_MAX_BYTES: u64 = 256 * 1024;

/// `ValidateObjectMetaAccessor` on create, its checks that apply again on update otherwise
/// (labels, annotations, finalizers; the identity fields cannot change here).
fn object_meta(def: &ResourceDef, object: &Value, create: bool) -> Vec<FieldError> {
    let empty = Map::new();
    let meta = object
        .get("metadata")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let text = |key: &str| meta.get(key).and_then(Value::as_str).unwrap_or("");
    let mut errors = Vec::new();
    if create {
        let rule = object_names::rule(&def.group, &def.plural);
        errors.extend(names::object_name_errors_with(
            text("name"),
            text("generateName"),
            &|name, prefix| rule.check(name, prefix),
        ));
        let namespace = text("namespace");
        if def.namespaced && namespace.is_empty() {
            errors.push(FieldError::required("metadata.namespace", ""));
        } else if def.namespaced {
            errors.extend(
                names::is_dns1123_label(namespace).into_iter().map(|m| {
                    FieldError::invalid("metadata.namespace", BadValue::from(namespace), m)
                }),
            );
        } else if !namespace.is_empty() {
            errors.push(FieldError::forbidden(
                "metadata.namespace",
                "not allowed on this type",
            ));
        }
    }
    let strings = |key: &str| {
        meta.get(key)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)))
            .collect::<Vec<_>>()
    };
    for (key, value) in strings("labels") {
        for message in names::is_qualified_name(key) {
            errors.push(FieldError::invalid(
                "metadata.labels",
                BadValue::from(key),
                message,
            ));
        }
        for message in names::is_valid_label_value(value) {
            errors.push(FieldError::invalid(
                "metadata.labels",
                BadValue::from(value),
                message,
            ));
        }
    }
    let annotations = strings("annotations");
    for (key, _) in &annotations {
        // The rule is a qualified name in any case.
        for message in names::is_qualified_name(&key.to_lowercase()) {
            errors.push(FieldError::invalid(
                "metadata.annotations",
                BadValue::from(*key),
                message,
            ));
        }
    }
    let size: usize = annotations.iter().map(|(k, v)| k.len() + v.len()).sum();
    if size as u64 > ANNOTATIONS_MAX_BYTES {
        errors.push(FieldError::too_long(
            "metadata.annotations",
            Some(ANNOTATIONS_MAX_BYTES),
        ));
    }
    for finalizer in meta
        .get("finalizers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        for message in names::is_qualified_name(finalizer) {
            errors.push(FieldError::invalid(
                "metadata.finalizers",
                BadValue::from(finalizer),
                message,
            ));
        }
    }
    errors
}

/// Go's `%v` of a value decoded from JSON into `interface{}` (`map[a:1 b:[x y]]`, keys
/// sorted), as the API server shows a strategic merge patch it refuses.
pub(crate) fn go_text(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) => gofmt::float(f),
            (None, None) => n.to_string(),
        },
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(go_text).collect();
            format!("[{}]", items.join(" "))
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let entries: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{k}:{}", go_text(&map[k.as_str()])))
                .collect();
            format!("map[{}]", entries.join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_prints_a_patch_map() {
        assert_eq!(
            go_text(&json!({"spec": {"b": [1, "x", null], "a": 1.5, "c": true}, "data": {}})),
            "map[data:map[] spec:map[a:1.5 b:[1 x <nil>] c:true]]"
        );
    }

    #[test]
    fn whole_floats_become_integers() {
        let mut v = json!({"a": 1.0, "b": [2.5, 3e3], "c": -0.0});
        go_numbers(&mut v);
        assert_eq!(v, json!({"a": 1, "b": [2.5, 3000], "c": 0}));
    }

    #[test]
    fn json_patch_operations_have_four_keys() {
        let patch = json!([{"op": "add", "path": "/a", "value": 1, "valu": 2}]);
        assert_eq!(
            duplicate_errors(&["[0].op".to_owned()], Some(&patch)),
            vec![
                r#"json patch duplicate field "[0].op""#,
                r#"json patch unknown field "[0].valu""#
            ]
        );
    }
}
