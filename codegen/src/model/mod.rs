//! Stage 2, model: the typed intermediate representation. Everything emit needs is decided
//! here (Rust names and module paths, boxing, derives, resources), so emit only translates.
//!
//! Determinism is a property of this model: types are stored in a vector sorted by module
//! path and name, fields keep document order, and every map is ordered.

pub mod apply;
pub mod builders;
pub(crate) mod collisions;
pub mod crds;
mod cycles;
mod dedup;
pub(crate) mod externs;
pub mod features;
mod identifiers;
mod key;
pub mod known;
pub mod operations;
pub mod protobuf;
pub mod releases;
mod resources;
mod schema;
pub mod semantics;
mod wellknown;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::diagnostics::{Error, Origin};
use crate::ground::ModuleRules;
use crate::load::LoadedApi;
use crate::load::schema::Schema;

pub use externs::ExternType;

/// Index of a type in [`ApiSet::types`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub usize);

pub use crate::ground::Gvk;

/// The whole API as the generator understands it.
#[derive(Debug)]
pub struct ApiSet {
    /// Every type, sorted by module path then name; [`TypeId`]s index this.
    pub types: Vec<TypeDef>,
    /// Served resources, keyed by their type.
    pub resources: BTreeMap<TypeId, Resource>,
    /// List kinds, keyed by their type, with the item type they list.
    pub lists: BTreeMap<TypeId, TypeId>,
    /// The CRDs the generated crate gives back, each with its served kinds (see `crds.rs`).
    pub crds: Vec<crds::Crd>,
    /// The builder of every struct, keyed by its type (see `builders.rs`).
    pub builders: BTreeMap<TypeId, builders::Builder>,
    /// The apply configuration of every struct reachable from a served resource, keyed by
    /// its type (see `apply.rs`).
    pub apply: BTreeMap<TypeId, apply::Apply>,
    /// Every operation, in the reference pages' order: each resource's in type order, then
    /// those on no resource (see `operations/`).
    pub operations: Vec<operations::Operation>,
    /// The query structs that operations of one kind share, in the routes module (see
    /// [`operations::SharedQuery`]), by name.
    pub query_structs: Vec<operations::SharedQuery>,
    /// What load and model skipped or left unused, for the user to read.
    pub notes: Vec<crate::diagnostics::Note>,
    /// Extern types from the companion crate `kubeforge-meta` that the inputs define: each
    /// is re-exported at its place (`pub use`), so the module tree still names it.
    pub reexports: std::collections::BTreeSet<TypeId>,
    /// Where each type's schema semantics are (constraints, CEL rules, defaults, merge
    /// semantics; see `semantics.rs`): every type made from a schema has an entry.
    pub semantics: BTreeMap<TypeId, semantics::Semantics>,
    /// The types whose Rust type implements the runtime's `Validate`: the structs, enums
    /// and unions generated here, and the companion's. A reference to any other type (an
    /// alias, a user's extern) takes that type's node in place.
    pub validated: std::collections::BTreeSet<TypeId>,
    /// Each type taken from the companion crate, with the kind its definition here made (the
    /// inputs', or the built-in one that fills in what they lack) before it became the
    /// companion's: what `kubeforge diff` compares, so that a change in the documents shows
    /// even where both crates use the companion's type.
    pub companion_kinds: BTreeMap<TypeId, TypeKind>,
    /// Which release has what, when the inputs are several releases of one API
    /// (`Config::release_input`; see `releases.rs`); for a projection onto one release
    /// (`Config::only_release`), that release alone.
    pub releases: Option<releases::Releases>,
    /// The protobuf message of every struct that has one among the `.proto` inputs
    /// (`Config::proto`), keyed by its type (see `protobuf.rs`); the companion's types with a
    /// message are keys too when they are extern (their impls are the companion's).
    pub protobuf: BTreeMap<TypeId, protobuf::Message>,
}

impl ApiSet {
    /// The type with id `id`.
    pub fn get(&self, id: TypeId) -> &TypeDef {
        &self.types[id.0]
    }

    /// The Rust path of type `id` below the crate root, as written in listings and
    /// reports: `api::core::v1::Pod`.
    pub fn type_path(&self, id: TypeId) -> String {
        let ty = self.get(id);
        let mut path = ty.module.join("::");
        if !path.is_empty() {
            path.push_str("::");
        }
        path.push_str(&ty.name);
        path
    }

    /// A shape as its Rust type reads in listings and reports (generated types by their
    /// path below the crate root, runtime types by name): `Vec<api::core::v1::Container>`.
    pub fn shape_text(&self, shape: &Shape) -> String {
        match shape {
            Shape::Ref(id) => self.type_path(*id),
            Shape::Vec(inner) => format!("Vec<{}>", self.shape_text(inner)),
            Shape::Map(inner) => format!("BTreeMap<String, {}>", self.shape_text(inner)),
            Shape::Json => "serde_json::Value".to_owned(),
            Shape::Bool => "bool".to_owned(),
            Shape::I32 => "i32".to_owned(),
            Shape::I64 | Shape::Integer => "i64".to_owned(),
            Shape::U32 => "u32".to_owned(),
            Shape::U64 => "u64".to_owned(),
            Shape::Nullable(inner) => format!("Option<{}>", self.shape_text(inner)),
            Shape::F64 => "f64".to_owned(),
            Shape::String => "String".to_owned(),
            Shape::Runtime(runtime) => runtime.name().to_owned(),
        }
    }

    /// The kind type `id`'s definition makes: the generated one, or for a type taken from
    /// the companion crate the one its definition here made ([`ApiSet::companion_kinds`]).
    pub fn defined_kind(&self, id: TypeId) -> &TypeKind {
        self.companion_kinds.get(&id).unwrap_or(&self.get(id).kind)
    }

    /// Whether type `id` is taken from the companion crate `kubeforge-meta`.
    pub fn is_companion(&self, id: TypeId) -> bool {
        self.companion_kinds.contains_key(&id)
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
    /// Every group-version-kind the schema declares (for patterns such as `kind=Pod`).
    pub gvks: Vec<Gvk>,
    /// Whether `Default` can be derived without inventing values that would be serialized:
    /// true when every field is optional (or an apiVersion/kind marker).
    pub derive_default: bool,
    /// Whether `Eq` and `Hash` hold (no floating point or JSON values inside).
    pub derive_eq: bool,
}

impl TypeDef {
    /// The standard traits the generator derives on this type, in the order written: the
    /// one list emit spells and user derives are checked against (a derive already here is
    /// not written twice). Serde is implemented by hand (`emit/serde_impls.rs`).
    pub fn derives(&self) -> Vec<&'static str> {
        match &self.kind {
            TypeKind::Struct(_) => {
                let mut derives = vec!["Clone", "Debug"];
                if self.derive_default {
                    derives.push("Default");
                }
                derives.push("PartialEq");
                if self.derive_eq {
                    derives.push("Eq");
                }
                derives
            }
            TypeKind::Enum(_) => vec![
                "Clone",
                "Debug",
                "PartialEq",
                "Eq",
                "Hash",
                "PartialOrd",
                "Ord",
            ],
            TypeKind::Union(_) => {
                let mut derives = vec!["Clone", "Debug", "PartialEq"];
                if self.derive_eq {
                    derives.push("Eq");
                }
                derives
            }
            _ => Vec::new(),
        }
    }

    /// Whether a user's derive of `trait_path` on this type is left out: the generator
    /// derives it already, or it is `Default` or `Eq` where the model found it does not
    /// hold (`Default` would invent values for required fields, and an enum has no default
    /// variant; `Eq` does not hold over floating point or JSON values). This is kopium's
    /// "smart derive elision", always on. Only standard paths (`Hash`, `::core::hash::Hash`,
    /// `std::…`) are recognised; any other trait is derived as asked.
    pub fn elides_derive(&self, trait_path: &str) -> bool {
        let path = trait_path.trim().trim_start_matches("::");
        let name = match path.rsplit_once("::") {
            Some((prefix, name))
                if prefix == "std"
                    || prefix == "core"
                    || prefix.starts_with("std::")
                    || prefix.starts_with("core::") =>
            {
                name
            }
            Some(_) => return false,
            None => path,
        };
        self.derives().contains(&name) || matches!(name, "Default" | "Eq")
    }

    /// The type as a [`Pattern`](crate::Pattern) sees it.
    pub(crate) fn target(&self) -> crate::ground::pattern::Target<'_> {
        use crate::ground::pattern::Item;
        crate::ground::pattern::Target {
            schema: &self.schema_name,
            module: &self.module,
            name: &self.name,
            item: Some(match self.kind {
                TypeKind::Struct(_) => Item::Struct,
                TypeKind::Enum(_) => Item::Enum,
                TypeKind::Union(_) => Item::Union,
                _ => Item::Other,
            }),
            gvks: self
                .gvks
                .iter()
                .map(|g| (g.group.as_str(), g.version.as_str(), g.kind.as_str()))
                .collect(),
        }
    }
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
    /// A type defined outside the generated code: nothing is generated for it, references
    /// use its Rust path (see `externs.rs`).
    Extern(ExternRef),
}

/// Where an extern type is, and whose it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternRef {
    /// The Rust path every reference uses.
    pub path: String,
    /// Whether it is the companion crate's (`kubeforge-meta`) by [`Options::companion_meta`]:
    /// then it has a builder there, implements `Validate`, and the crate depends on the
    /// companion. A user's [`ExternType`] is the user's, whatever its path names.
    pub companion: bool,
}

impl PartialEq<str> for ExternRef {
    fn eq(&self, path: &str) -> bool {
        self.path == path
    }
}

impl PartialEq<&str> for ExternRef {
    fn eq(&self, path: &&str) -> bool {
        self.path == *path
    }
}

impl TypeKind {
    /// The Rust path of an extern type.
    pub fn extern_path(&self) -> Option<&str> {
        match self {
            TypeKind::Extern(e) => Some(&e.path),
            _ => None,
        }
    }

    /// Whether this is an extern type of the companion crate (see [`ExternRef::companion`]).
    pub fn is_companion_extern(&self) -> bool {
        matches!(self, TypeKind::Extern(e) if e.companion)
    }
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
    pub fn of(schema: &Schema) -> Option<PatchStrategy> {
        let strategies = schema.patch_strategies.clone();
        let merge_key = schema.patch_merge_key.clone();
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
    /// `i64` (`format: int64`): read as Go reads Kubernetes' own types, so `1.0` is refused.
    I64,
    /// `i64` for an integer without a format (or an unknown one), as a CRD has for a Go `int`:
    /// a whole number written with a fraction or exponent (`1.0`, `1e3`) reads as the
    /// integer, as the API server's validation of custom resources takes it
    /// ([`Shape::reads_whole_floats`]).
    Integer,
    /// `u32` (`format: uint32`).
    U32,
    /// `u64` (`format: uint64`).
    U64,
    /// `f64`.
    #[expect(
        dead_code,
        reason = "no schema makes one (`type: number` is the runtime's `Number`), but query parameters, literals and keys still say how one would read"
    )]
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

impl Shape {
    /// Whether a value of this shape holds integers without a format ([`Shape::Integer`]),
    /// itself or as the items of a list, map or nullable (through aliases): its reader then
    /// takes whole-number floats as integers (`kubeforge_runtime::integer`).
    pub fn reads_whole_floats(&self, types: &[TypeDef]) -> bool {
        match builders::resolve(types, self) {
            Shape::Integer => true,
            Shape::Vec(inner) | Shape::Map(inner) | Shape::Nullable(inner) => {
                inner.reads_whole_floats(types)
            }
            _ => false,
        }
    }
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
    /// Its `metadata` field, when it has one the generator can fill in and hand out: a
    /// plain, unboxed reference to a type (the one decision builders, apply configurations
    /// and k8s-openapi's `Metadata` read).
    pub metadata: Option<MetadataField>,
}

/// The `metadata` field of a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetadataField {
    /// The field's index.
    pub field: usize,
    /// Its type (`ObjectMeta`, generated or extern).
    pub ty: TypeId,
    /// Whether the field is required.
    pub required: bool,
}

impl MetadataField {
    /// The `metadata` field of a struct with these fields, if it has one.
    pub(crate) fn of(fields: &[Field]) -> Option<MetadataField> {
        fields.iter().enumerate().find_map(|(i, f)| {
            match (f.json_name.as_str(), f.role, &f.shape) {
                ("metadata", FieldRole::Plain, Shape::Ref(ty)) if !f.boxed => Some(MetadataField {
                    field: i,
                    ty: *ty,
                    required: f.required,
                }),
                _ => None,
            }
        })
    }
}

/// The choices the model leaves to the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Whether every struct keeps the fields it does not know (what a newer server sends)
    /// in an `unknown_fields` field, so a read-modify-write deletes nothing. On by default;
    /// keys a schema declares (`additionalProperties`, `patternProperties`,
    /// `x-kubernetes-preserve-unknown-fields`) are kept either way.
    pub unknown_fields: bool,
    /// Whether anonymous nested types of one shape become one type, and shapes of known
    /// Kubernetes types become those types (`dedup.rs`); on by default.
    pub dedup: bool,
    /// Whether a struct whose properties are a subset of a Kubernetes type's among the
    /// inputs (same shapes, the type's other properties optional) becomes that type; off by
    /// default.
    pub known_subset: bool,
    /// Whether the built-in meta types (`ObjectMeta`, `ListMeta`, `Status`, …) come from the
    /// companion crate `kubeforge-meta` (on by default) instead of being generated here; see
    /// `externs.rs`.
    pub companion_meta: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            unknown_fields: true,
            dedup: true,
            known_subset: false,
            companion_meta: true,
        }
    }
}

/// Builds the model with the types that `externs` name defined elsewhere, and `options`.
pub fn build_with_options(
    raw: &LoadedApi,
    rules: &ModuleRules,
    externs: &[ExternType],
    options: Options,
) -> Result<ApiSet, Error> {
    let mut types = schema::build_types(raw, rules, options)?;
    let mut notes = raw.notes.clone();
    notes.extend(dedup::apply(&mut types, raw.schemas.len(), options));
    let builtin = externs::builtin_as_modelled(&raw.builtin);
    let companion = if options.companion_meta {
        let (companion, companion_notes) = externs::companion(&builtin);
        notes.extend(companion_notes);
        // What the companion's types derive is what they would derive here.
        schema::compute_derives(&mut types);
        companion
    } else {
        Vec::new()
    };
    // The types that implement `Validate`: the structs, enums and unions generated here or,
    // for the companion's, there (decided before they become extern).
    let validated: std::collections::BTreeSet<TypeId> = types
        .iter()
        .enumerate()
        .filter(|(_, ty)| {
            matches!(
                ty.kind,
                TypeKind::Struct(_) | TypeKind::Enum(_) | TypeKind::Union(_)
            )
        })
        .map(|(index, _)| TypeId(index))
        .collect();
    let applied = externs::apply(&mut types, externs, &companion, &builtin.alike)?;
    let validated = validated
        .into_iter()
        .filter(|id| match &types[id.0].kind {
            TypeKind::Extern(e) => e.companion,
            _ => true,
        })
        .collect();
    let semantics = semantics::build(raw, &types)?;
    notes.extend(applied.notes);
    cycles::box_cycles(&mut types)?;
    schema::compute_derives(&mut types);
    let (mut resources, mut lists) = resources::find(raw, &types);
    let builders = builders::plan(&types, &resources);
    // An extern resource's operations (left out by `operations::build`) and traits belong to
    // the crate that defines it.
    let (operations, query_structs) = operations::build(raw, &types, &resources, &lists)?;
    resources.retain(|id, _| !externs::is_extern(&types, *id));
    let crds = crds::build(raw, &resources)?;
    let apply = apply::plan(&types, &resources, &builders, &semantics);
    lists.retain(|list, item| {
        !externs::is_extern(&types, *list) && !externs::is_extern(&types, *item)
    });
    let api = ApiSet {
        types,
        resources,
        lists,
        crds,
        builders,
        apply,
        operations,
        query_structs,
        notes,
        reexports: applied.reexports,
        semantics,
        validated,
        companion_kinds: applied.companion_kinds,
        releases: None,
        protobuf: BTreeMap::new(),
    };
    identifiers::check(&api)?;
    Ok(api)
}
