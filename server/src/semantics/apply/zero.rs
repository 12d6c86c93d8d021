//! The empty object a write is compared with when an object is created, or when its first
//! apply finds no managed fields (the API server's `New()` object): for a custom resource,
//! only its `apiVersion` and `kind`; for a built-in kind, what Go writes for the zero value
//! of its type. That is every field the schema gives `default: {}` (a struct held by value,
//! written as an object, recursively) and `null` for every other required field (a slice,
//! map or pointer without `omitempty`). So a create owns `spec.template` without owning
//! the struct itself (`f:template` without `"."`), as on a real server, but owns a map or an
//! optional struct it sets (`f:labels: {".": {}}`).

use serde_json::{Map, Value};

use crate::objects::schema::{Schemas, Ty};

const MAX_DEPTH: usize = 16;

/// The empty object of a kind.
pub(crate) fn empty_object(
    schemas: &Schemas,
    root: Ty<'_>,
    builtin: bool,
    api_version: &str,
    kind: &str,
) -> Value {
    if builtin {
        zero(schemas, root, 0)
    } else {
        let mut object = Map::new();
        object.insert("apiVersion".into(), Value::from(api_version));
        object.insert("kind".into(), Value::from(kind));
        Value::Object(object)
    }
}

fn zero(schemas: &Schemas, ty: Ty<'_>, depth: usize) -> Value {
    let mut out = Map::new();
    let Some(map) = schemas.atom(ty).map else {
        return Value::Object(out);
    };
    if depth >= MAX_DEPTH {
        return Value::Object(out);
    }
    for (name, property) in map.properties() {
        let by_value = property
            .default
            .as_ref()
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty);
        if by_value {
            let ty = schemas.reference(property, false);
            out.insert(name.clone(), zero(schemas, ty, depth + 1));
        } else if map.required(name) && property.default.is_none() {
            out.insert(name.clone(), Value::Null);
        }
    }
    Value::Object(out)
}
