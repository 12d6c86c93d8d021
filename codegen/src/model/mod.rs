//! Stage 2, model: the typed intermediate representation. Everything emit needs is decided
//! here (Rust names and module paths, boxing, derives, resources), so emit only translates.
//!
//! Determinism is a property of this model: types are stored in a vector sorted by module
//! path and name, fields keep document order, and every map is ordered.

pub mod builders;
mod cycles;
mod externs;
pub mod features;
pub mod naming;
pub mod operations;
mod resources;
mod schema;
mod wellknown;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::ModuleRules;
use crate::diagnostics::{Error, Origin};
use crate::load::RawApi;

pub use externs::ExternType;

/// Index of a type in [`ApiSet::types`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub usize);

/// A Kubernetes group, version and kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gvk {
    /// The API group, `""` for the core group.
    pub group: String,
    /// The version, e.g. `v1`.
    pub version: String,
    /// The kind, e.g. `Pod`.
    pub kind: String,
}

impl Gvk {
    /// The `apiVersion` string: `v1` for the core group, `group/version` otherwise.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// The whole API as the generator understands it.
#[derive(Debug)]
pub struct ApiSet {
    /// Every type, sorted by module path then name; [`TypeId`]s index this.
    pub types: Vec<TypeDef>,
    /// Served resources, keyed by their type.
    pub resources: BTreeMap<TypeId, Resource>,
    /// List kinds, keyed by their type, with the item type they list.
    pub lists: BTreeMap<TypeId, TypeId>,
    /// The builder of every struct, keyed by its type (see `builders.rs`).
    pub builders: BTreeMap<TypeId, builders::Builder>,
    /// Every operation, in the reference pages' order: each resource's in type order, then
    /// those on no resource (see `operations/`).
    pub operations: Vec<operations::Operation>,
    /// What load and model skipped or left unused, for the user to read.
    pub notes: Vec<crate::diagnostics::Note>,
}

impl ApiSet {
    /// The type with id `id`.
    pub fn get(&self, id: TypeId) -> &TypeDef {
        &self.types[id.0]
    }

    /// The operations on the resource `id`, in order.
    pub fn operations_of(&self, id: TypeId) -> impl Iterator<Item = &operations::Operation> {
        self.operations
            .iter()
            .filter(move |op| op.resource.as_ref().and_then(|r| r.id) == Some(id))
    }
}

/// One Rust type to generate.
#[derive(Clone, Debug)]
pub struct TypeDef {
    /// The Rust name, unique within its module.
    pub name: String,
    /// The module path below the crate root, e.g. `["api", "core", "v1"]`.
    pub module: Vec<String>,
    /// The file stem (without `.rs`) of the file that defines it, unique within its module.
    /// Nested anonymous types share their parent's file.
    pub file: String,
    /// The schema name it was made from; for anonymous nested types, the parent's name
    /// plus the property path, e.g. `io.k8s.api.core.v1.PodSpec.restartPolicy`.
    pub schema_name: String,
    /// Where the schema is.
    pub origin: Origin,
    /// The description, used for docs.
    pub description: Option<String>,
    /// What kind of Rust item it is.
    pub kind: TypeKind,
    /// The single group-version-kind of this type, if it has exactly one.
    pub gvk: Option<Gvk>,
    /// Whether `Default` can be derived without inventing values that would be serialized:
    /// true when every field is optional (or an apiVersion/kind marker).
    pub derive_default: bool,
    /// Whether `Eq` and `Hash` hold (no floating point or JSON values inside).
    pub derive_eq: bool,
}

/// The shape of a generated item.
#[derive(Clone, Debug)]
pub enum TypeKind {
    /// A struct with named fields.
    Struct(Vec<Field>),
    /// A string enum with a fallback variant that keeps unknown values.
    Enum(Vec<Variant>),
    /// A value of one of several JSON types, each with its own Rust type (`oneOf`/`anyOf`
    /// whose branches a value's JSON type tells apart): an enum with one variant per type.
    Union(Vec<UnionVariant>),
    /// A type alias to another shape (a named schema that is a plain string, a
    /// Kubernetes special type, or a `$ref` to another type).
    Alias(Shape),
    /// Kubernetes' watch event, generic over the object type (see `wellknown`).
    WatchEvent {
        /// The `Status` type that error events carry, when the API has one.
        status: Option<TypeId>,
    },
    /// A type defined outside the generated code (`Config::extern_type`): nothing is
    /// generated for it, references use this Rust path (see `externs.rs`).
    Extern(String),
}

/// A struct field.
#[derive(Clone, Debug)]
pub struct Field {
    /// The JSON property name.
    pub json_name: String,
    /// The Rust field name, unique within the struct.
    pub rust_name: String,
    /// The field's value type.
    pub shape: Shape,
    /// Whether the property is in the schema's `required` list.
    pub required: bool,
    /// Whether the value is boxed to break a cycle of types containing each other.
    pub boxed: bool,
    /// The description, used for docs.
    pub description: Option<String>,
    /// The schema's `default`, if any.
    pub default: Option<Value>,
    /// Whether this is the `apiVersion` or `kind` of a type with one fixed GVK.
    pub role: FieldRole,
    /// How a strategic merge patch merges the field, when the schema says
    /// (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`).
    pub patch: Option<PatchStrategy>,
    /// Where the property is.
    pub origin: Origin,
}

/// A field's strategic merge patch metadata, as the schema's extensions declare it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatchStrategy {
    /// The strategies, in the order written: `merge`, `retainKeys`, `replace`
    /// (`x-kubernetes-patch-strategy: "merge,retainKeys"`).
    pub strategies: Vec<String>,
    /// The key identifying a merged list's items (`x-kubernetes-patch-merge-key`).
    pub merge_key: Option<String>,
}

impl PatchStrategy {
    /// The metadata of a property's schema, if it declares any.
    pub fn of(schema: &serde_json::Map<String, Value>) -> Option<PatchStrategy> {
        let strategies: Vec<String> = schema
            .get("x-kubernetes-patch-strategy")
            .and_then(Value::as_str)
            .map(|s| {
                s.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let merge_key = schema
            .get("x-kubernetes-patch-merge-key")
            .and_then(Value::as_str)
            .map(str::to_owned);
        (!strategies.is_empty() || merge_key.is_some()).then_some(PatchStrategy {
            strategies,
            merge_key,
        })
    }
}

/// The special meaning of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldRole {
    /// An ordinary field.
    Plain,
    /// `apiVersion`, fixed by the type's GVK: filled on construction, checked on input.
    ApiVersion,
    /// `kind`, fixed by the type's GVK: filled on construction, checked on input.
    Kind,
    /// The keys that are no property, in order: `kubeforge_runtime::ExtraFields<T>` of the
    /// field's shape (`UnknownFields` for JSON values). It has no JSON name of its own; its
    /// entries are written as the object's keys, after the properties. Every struct has at
    /// most one, and it is its last field.
    Extra,
}

/// One branch of a [`TypeKind::Union`].
#[derive(Clone, Debug)]
pub struct UnionVariant {
    /// The JSON type that selects it: `string`, `integer`, `number`, `boolean`, `array` or
    /// `object`.
    pub json_type: &'static str,
    /// The Rust variant name (`String`, `Object`, …).
    pub rust_name: String,
    /// The value it holds (boxed when it is a generated type, so a union may be recursive).
    pub shape: Shape,
}

/// A string enum variant.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The wire value.
    pub value: String,
    /// The Rust variant name, unique within the enum.
    pub rust_name: String,
}

/// The type of a value: a primitive, a runtime type, a container or a named type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `bool`.
    Bool,
    /// `i32` (`format: int32`).
    I32,
    /// `i64` (`format: int64`, or an integer without format).
    I64,
    /// `u32` (`format: uint32`).
    U32,
    /// `u64` (`format: uint64`).
    U64,
    /// `f64`.
    F64,
    /// `String`.
    String,
    /// A type from the runtime crate.
    Runtime(RuntimeType),
    /// Arbitrary JSON (`serde_json::Value`).
    Json,
    /// A list.
    Vec(Box<Shape>),
    /// A map with string keys, ordered.
    Map(Box<Shape>),
    /// A generated type.
    Ref(TypeId),
    /// `Option<T>` where the schema admits `null` (`nullable: true`): `None` is `null`.
    Nullable(Box<Shape>),
}

/// The Kubernetes special types that live in the runtime crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuntimeType {
    /// `meta/v1.Time`: RFC 3339, seconds, `Z`.
    Time,
    /// `meta/v1.MicroTime`: RFC 3339 with exactly six fractional digits.
    MicroTime,
    /// `resource.Quantity`.
    Quantity,
    /// `intstr.IntOrString`.
    IntOrString,
    /// `format: byte`: base64 on the wire.
    ByteString,
    /// `format: date-time` outside `meta/v1.Time`: the text exactly as written.
    DateTime,
    /// `type: number`: a JSON number that keeps its integer or float form.
    Number,
}

impl RuntimeType {
    /// The item's name in the runtime crate.
    pub fn name(self) -> &'static str {
        match self {
            RuntimeType::Time => "Time",
            RuntimeType::MicroTime => "MicroTime",
            RuntimeType::Quantity => "Quantity",
            RuntimeType::IntOrString => "IntOrString",
            RuntimeType::ByteString => "ByteString",
            RuntimeType::DateTime => "DateTime",
            RuntimeType::Number => "Number",
        }
    }
}

/// How a resource is scoped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// Lives in a namespace.
    Namespaced,
    /// Cluster-wide.
    Cluster,
}

/// A kind served as a REST resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// Its group, version and kind.
    pub gvk: Gvk,
    /// The plural used in paths, e.g. `pods`.
    pub plural: String,
    /// Namespaced or cluster-wide.
    pub scope: Scope,
    /// Subresources, sorted (`ephemeralcontainers`, `log`, `status`, …).
    pub subresources: Vec<String>,
}

/// The choices the model leaves to the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Whether every struct keeps the fields it does not know (what a newer server sends)
    /// in an `unknown_fields` field, so a read-modify-write deletes nothing. On by default;
    /// keys a schema declares (`additionalProperties`, `patternProperties`,
    /// `x-kubernetes-preserve-unknown-fields`) are kept either way.
    pub unknown_fields: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            unknown_fields: true,
        }
    }
}

/// Builds the model from the merged raw input.
pub fn build(raw: &RawApi, rules: &ModuleRules) -> Result<ApiSet, Error> {
    build_with(raw, rules, &[])
}

/// Builds the model with the types that `externs` name defined elsewhere.
pub fn build_with(
    raw: &RawApi,
    rules: &ModuleRules,
    externs: &[ExternType],
) -> Result<ApiSet, Error> {
    build_with_options(raw, rules, externs, Options::default())
}

/// Builds the model with the types that `externs` name defined elsewhere, and `options`.
pub fn build_with_options(
    raw: &RawApi,
    rules: &ModuleRules,
    externs: &[ExternType],
    options: Options,
) -> Result<ApiSet, Error> {
    let mut types = schema::build_types(raw, rules, options)?;
    let mut notes = raw.notes.clone();
    notes.extend(externs::apply(&mut types, externs)?);
    cycles::box_cycles(&mut types)?;
    schema::compute_derives(&mut types);
    let (mut resources, mut lists) = resources::find(raw, &types);
    let builders = builders::plan(&types, &resources);
    let mut operations = operations::build(raw, &types, &resources, &lists)?;
    // An extern resource's operations and traits belong to the crate that defines it.
    operations.retain(|op| {
        op.resource
            .as_ref()
            .and_then(|r| r.id)
            .is_none_or(|id| !externs::is_extern(&types, id))
    });
    resources.retain(|id, _| !externs::is_extern(&types, *id));
    lists.retain(|list, item| {
        !externs::is_extern(&types, *list) && !externs::is_extern(&types, *item)
    });
    Ok(ApiSet {
        types,
        resources,
        lists,
        builders,
        operations,
        notes,
    })
}
