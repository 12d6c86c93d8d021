//! Validation of a JSON value against a [`Node`], as the API server validates a custom
//! resource (`customResourceStrategy.Validate` and `ValidateUpdate`):
//!
//! 1. the OpenAPI keywords (kube-openapi's schema validator, [`openapi`]);
//! 2. embedded resources (`x-kubernetes-embedded-resource`): `apiVersion` and `kind`;
//! 3. `x-kubernetes-list-type: set|map` uniqueness ("Duplicate value"); on update only when
//!    the old object satisfied it, as the API server ratchets it;
//! 4. the `x-kubernetes-validations` CEL rules ([`crate::schema::cel`]), unless step 1
//!    found an error that blocks them (a missing required field, a wrong type, an
//!    unsupported enum value, a too long string or list): then one error says they were
//!    not checked, as the API server does.
//!
//! Every error is returned, in that order.

mod openapi;

use serde_json::Value;

use super::cel;
use super::error::{BadValue, ErrorType, FieldError, FieldPath};
use super::view::View;
use super::{ListType, Node, Resolve};

/// How a value is validated beyond the node itself.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The path the value sits at: the root for an object (errors about the whole value
    /// are then reported at `<nil>`, as the API server does), `status` for the status
    /// subresource, whose schema the API server applies to the `status` value with paths
    /// under `status` (`ValidateStatusUpdate`); the rules of the whole object still run on
    /// the whole object (validate it with the root `base` for those).
    pub base: FieldPath,
}

/// Validates `value` against `node` and returns every error, in the API server's order.
/// `old` is the stored value on update: transition rules (`oldSelf`) run only then, and
/// list-type uniqueness that the old value already broke is not reported again.
#[must_use]
pub fn validate(
    node: &Node,
    resolve: &dyn Resolve,
    value: &Value,
    old: Option<&Value>,
) -> Vec<FieldError> {
    validate_with(node, resolve, value, old, &Options::default())
}

/// [`validate`] with [`Options`].
#[must_use]
pub fn validate_with(
    node: &Node,
    resolve: &dyn Resolve,
    value: &Value,
    old: Option<&Value>,
    options: &Options,
) -> Vec<FieldError> {
    let view = View::new(node, resolve);
    let mut errors = openapi::validate(&view, value, old, &options.base);
    embedded(&view, value, &options.base, &mut errors);
    let old_sets_ok = old.is_none_or(|old| {
        let mut e = Vec::new();
        list_types(&view, old, &options.base, &mut e);
        e.is_empty()
    });
    if old_sets_ok {
        list_types(&view, value, &options.base, &mut errors);
    }
    if cel::has_rules(&view) {
        let blocking = errors.iter().any(|e| {
            matches!(
                e.error_type,
                ErrorType::NotSupported
                    | ErrorType::Required
                    | ErrorType::TooLong
                    | ErrorType::TooMany
                    | ErrorType::TypeInvalid
            )
        });
        if blocking {
            errors.push(FieldError::invalid(
                "<nil>",
                BadValue::Json(Value::Null),
                "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            ));
        } else {
            cel::validate(&view, value, old, &options.base, &mut errors);
        }
    }
    errors
}

/// `objectmeta.Validate` for embedded resources below the root: `apiVersion` and `kind`
/// are required strings, the version parses, the kind is a DNS-1035 label in any case.
fn embedded(view: &View<'_>, value: &Value, path: &FieldPath, errors: &mut Vec<FieldError>) {
    match value {
        Value::Object(map) => {
            if view.embedded_resource() && !path.as_str().is_empty() {
                embedded_resource(map, path, errors);
            }
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            for key in keys {
                if let Some(prop) = view.property(key) {
                    embedded(&prop, &map[key.as_str()], &path.child(key), errors);
                } else if let Some(Ok(additional)) = view.additional() {
                    embedded(&additional, &map[key.as_str()], &path.key(key), errors);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = view.items() {
                for (i, v) in items.iter().enumerate() {
                    embedded(&item, v, &path.index(i), errors);
                }
            }
        }
        _ => {}
    }
}

fn embedded_resource(
    map: &serde_json::Map<String, Value>,
    path: &FieldPath,
    errors: &mut Vec<FieldError>,
) {
    if !map.contains_key("apiVersion") {
        errors.push(FieldError::required(path.child("apiVersion").render(), ""));
    }
    if !map.contains_key("kind") {
        errors.push(FieldError::required(path.child("kind").render(), ""));
    }
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    for key in keys {
        let v = &map[key.as_str()];
        let field = path.child(key).render();
        match key.as_str() {
            "apiVersion" => {
                if let Some(s) = non_empty_text(v, &field, errors) {
                    // schema.ParseGroupVersion: at most one slash, both sides non-empty.
                    let parts: Vec<&str> = s.split('/').collect();
                    if parts.len() > 2
                        || (parts.len() == 2 && (parts[0].is_empty() || parts[1].is_empty()))
                    {
                        errors.push(FieldError::invalid(
                            field,
                            BadValue::from(s),
                            format!("unexpected GroupVersion string: {s}"),
                        ));
                    }
                }
            }
            "kind" => {
                if let Some(s) = non_empty_text(v, &field, errors) {
                    let msgs = super::names::is_dns1035_label(&s.to_lowercase());
                    if !msgs.is_empty() {
                        let detail = format!(
                            "may have mixed case, but should otherwise match: {}",
                            msgs.join(",")
                        );
                        errors.push(FieldError::invalid(field, BadValue::from(s), detail));
                    }
                }
            }
            _ => {}
        }
    }
}

/// A string that is not empty, or `None` with the error saying it is not.
fn non_empty_text<'a>(v: &'a Value, field: &str, errors: &mut Vec<FieldError>) -> Option<&'a str> {
    match v.as_str() {
        None => {
            errors.push(FieldError::invalid(
                field,
                BadValue::of(v),
                "must be a string",
            ));
            None
        }
        Some("") => {
            errors.push(FieldError::invalid(
                field,
                BadValue::from(""),
                "must not be empty",
            ));
            None
        }
        Some(s) => Some(s),
    }
}

/// `ValidateListSetsAndMaps`: items of a `set` list are unique, items of a `map` list are
/// objects with unique keys.
fn list_types(view: &View<'_>, value: &Value, path: &FieldPath, errors: &mut Vec<FieldError>) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            for key in keys {
                if let Some(prop) = view.property(key) {
                    list_types(&prop, &map[key.as_str()], &path.child(key), errors);
                } else if let Some(Ok(additional)) = view.additional() {
                    list_types(&additional, &map[key.as_str()], &path.key(key), errors);
                }
            }
        }
        Value::Array(items) => {
            match view.list_type() {
                Some(ListType::Set) => {
                    for i in duplicates(items.iter()) {
                        errors.push(FieldError::duplicate(
                            path.index(i).render(),
                            BadValue::of(&items[i]),
                        ));
                    }
                }
                Some(ListType::Map) => list_map(view, items, path, errors),
                _ => {}
            }
            if let Some(item) = view.items() {
                for (i, v) in items.iter().enumerate() {
                    list_types(&item, v, &path.index(i), errors);
                }
            }
        }
        _ => {}
    }
}

/// The index of the second occurrence of each value seen more than once.
fn duplicates<'a>(items: impl Iterator<Item = &'a Value>) -> Vec<usize> {
    let mut seen: Vec<(&Value, usize)> = Vec::new();
    let mut out = Vec::new();
    for (i, x) in items.enumerate() {
        match seen.iter_mut().find(|(v, _)| same(v, x)) {
            Some((_, times)) => {
                *times += 1;
                if *times == 2 {
                    out.push(i);
                }
            }
            None => seen.push((x, 1)),
        }
    }
    out
}

/// Go's equality of decoded JSON in `validateListSet`: scalars by Go value (`1` and
/// `1.0` differ), compound values by their JSON text.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            (None, None) => x.as_f64() == y.as_f64(),
            _ => false,
        },
        (Value::Object(_) | Value::Array(_), _) => super::gofmt::json(a) == super::gofmt::json(b),
        _ => a == b,
    }
}

fn list_map(view: &View<'_>, items: &[Value], path: &FieldPath, errors: &mut Vec<FieldError>) {
    for (i, x) in items.iter().enumerate() {
        if !x.is_null() && !x.is_object() {
            errors.push(FieldError::invalid(
                path.index(i).render(),
                BadValue::of(x),
                "must be an object for an array of list-type map",
            ));
            return;
        }
    }
    if items.len() <= 1 {
        return;
    }
    let key_fields = view.list_map_keys();
    let keys: Vec<Value> = items
        .iter()
        .map(|x| {
            let mut key = serde_json::Map::new();
            if let Some(obj) = x.as_object() {
                for field in key_fields {
                    if let Some(k) = obj.get(field) {
                        key.insert(field.clone(), k.clone());
                    }
                }
            }
            Value::Object(key)
        })
        .collect();
    for i in duplicates(keys.iter()) {
        errors.push(FieldError::duplicate(
            path.index(i).render(),
            BadValue::Json(keys[i].clone()),
        ));
    }
}

#[cfg(test)]
mod tests;
