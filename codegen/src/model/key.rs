//! A type's shape key, typed: everything that makes its generated code (see `dedup.rs` for
//! what is in it and why). Two keys are equal exactly when the types are the same all the
//! way down. The committed table of known Kubernetes shapes (`known.rs`) holds keys in this
//! form too, written and read by serde, so no key is ever spelled and parsed back.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Field, FieldRole, Shape, TypeDef, TypeId, TypeKind};

/// The key of a type's body.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Key {
    /// A struct: its fields in order.
    Struct(Vec<FieldKey>),
    /// A string enum: its values in order.
    Enum(Vec<String>),
    /// A union: each branch's JSON type and shape, in order.
    Union(Vec<(String, ShapeKey)>),
    /// An alias of a shape.
    Alias(ShapeKey),
    /// The watch event.
    #[serde(rename = "watch-event")]
    WatchEvent,
    /// An extern type, by its path.
    Extern(String),
}

/// One field of a struct key.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FieldKey {
    /// The property's JSON name, or the field of other keys.
    #[serde(flatten)]
    pub name: FieldName,
    /// Whether the property is required.
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
    /// The value's shape.
    pub shape: ShapeKey,
    /// A default that carries information (not a zero value), as JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Whether it is the `apiVersion` or `kind` marker of a type with one fixed GVK.
    #[serde(default, skip_serializing_if = "Marker::is_none")]
    pub marker: Marker,
}

// serde's `skip_serializing_if` takes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_false(value: &bool) -> bool {
    !value
}

/// How a field of a struct key is named.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldName {
    /// A property, by its JSON name.
    Json(String),
    /// The field that holds the other keys, by its Rust name.
    Extra(String),
}

/// The `apiVersion`/`kind` marker role of a field.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "camelCase")]
pub enum Marker {
    /// No marker.
    #[default]
    None,
    /// The `apiVersion` of a type with one fixed GVK.
    ApiVersion,
    /// The `kind` of a type with one fixed GVK.
    Kind,
}

impl Marker {
    // serde's `skip_serializing_if` takes a reference.
    #[allow(clippy::trivially_copy_pass_by_ref)]
    fn is_none(&self) -> bool {
        *self == Marker::None
    }
}

/// The key of a value shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShapeKey {
    /// `bool`.
    Bool,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// An integer without a format (another reading than `i64`: whole-number floats).
    Integer,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `f64`.
    F64,
    /// `String`.
    String,
    /// A JSON value.
    Json,
    /// A runtime type, by name (`IntOrString`).
    Runtime(String),
    /// A list.
    Vec(Box<ShapeKey>),
    /// A map with string keys.
    Map(Box<ShapeKey>),
    /// A nullable value.
    Nullable(Box<ShapeKey>),
    /// A named schema (or the Kubernetes type a nested one is), by its schema name without
    /// the `io.k8s.` prefix.
    Named(String),
    /// A nested type, by its key.
    Nested(Arc<Key>),
}

impl Key {
    /// The fields of a struct key; `None` for another kind of key.
    pub fn fields(&self) -> Option<&[FieldKey]> {
        match self {
            Key::Struct(fields) => Some(fields),
            _ => None,
        }
    }
}

impl FieldKey {
    /// Whether the field is a required property (the field of other keys is not).
    pub fn is_required_property(&self) -> bool {
        matches!(self.name, FieldName::Json(_)) && self.required
    }
}

/// The key of a type's body; `spell` gives the key of a reference to another type.
pub(crate) fn body_key(kind: &TypeKind, spell: &dyn Fn(TypeId) -> ShapeKey) -> Key {
    match kind {
        TypeKind::Struct(fields) => {
            Key::Struct(fields.iter().map(|f| field_key(f, spell)).collect())
        }
        TypeKind::Enum(variants) => Key::Enum(variants.iter().map(|v| v.value.clone()).collect()),
        TypeKind::Union(variants) => Key::Union(
            variants
                .iter()
                .map(|v| (v.json_type.to_owned(), shape_key(&v.shape, spell)))
                .collect(),
        ),
        TypeKind::Alias(shape) => Key::Alias(shape_key(shape, spell)),
        TypeKind::WatchEvent { .. } => Key::WatchEvent,
        TypeKind::Extern(e) => Key::Extern(e.path.clone()),
    }
}

/// One field of a struct key.
fn field_key(field: &Field, spell: &dyn Fn(TypeId) -> ShapeKey) -> FieldKey {
    let shape = shape_key(&field.shape, spell);
    if field.role == FieldRole::Extra {
        return FieldKey {
            name: FieldName::Extra(field.rust_name.clone()),
            required: false,
            shape,
            default: None,
            marker: Marker::None,
        };
    }
    FieldKey {
        name: FieldName::Json(field.json_name.clone()),
        required: field.required,
        shape,
        default: field
            .default
            .as_ref()
            .filter(|d| !crate::load::is_zero(d))
            .map(ToString::to_string),
        marker: match field.role {
            FieldRole::ApiVersion => Marker::ApiVersion,
            FieldRole::Kind => Marker::Kind,
            FieldRole::Plain | FieldRole::Extra => Marker::None,
        },
    }
}

/// The key of a value shape.
pub(crate) fn shape_key(shape: &Shape, spell: &dyn Fn(TypeId) -> ShapeKey) -> ShapeKey {
    match shape {
        Shape::Bool => ShapeKey::Bool,
        Shape::I32 => ShapeKey::I32,
        Shape::I64 => ShapeKey::I64,
        Shape::Integer => ShapeKey::Integer,
        Shape::U32 => ShapeKey::U32,
        Shape::U64 => ShapeKey::U64,
        Shape::F64 => ShapeKey::F64,
        Shape::String => ShapeKey::String,
        Shape::Json => ShapeKey::Json,
        Shape::Runtime(runtime) => ShapeKey::Runtime(runtime.name().to_owned()),
        Shape::Vec(inner) => ShapeKey::Vec(Box::new(shape_key(inner, spell))),
        Shape::Map(inner) => ShapeKey::Map(Box::new(shape_key(inner, spell))),
        Shape::Nullable(inner) => ShapeKey::Nullable(Box::new(shape_key(inner, spell))),
        Shape::Ref(id) => spell(*id),
    }
}

/// How a reference to a named type is keyed: by its schema name, or by the runtime type it
/// is an alias of (`IntOrString`), which a CRD spells inline.
pub(crate) fn named(ty: &TypeDef) -> ShapeKey {
    match &ty.kind {
        TypeKind::Alias(shape @ Shape::Runtime(_)) => shape_key(shape, &|_| ShapeKey::Json),
        _ => ShapeKey::Named(short(&ty.schema_name).to_owned()),
    }
}

/// A schema name without the `io.k8s.` every Kubernetes name starts with.
pub(crate) fn short(schema: &str) -> &str {
    schema.strip_prefix("io.k8s.").unwrap_or(schema)
}
