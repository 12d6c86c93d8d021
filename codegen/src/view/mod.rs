//! A read-only view of what the generator understood of its inputs: the types it generates,
//! their fields, the served resources and the operations, as [`Config::model`] returns
//! them. It is for tools that work from the same understanding as the generated code (the
//! in-memory API server builds its catalog from it) and for tests.
//!
//! [`Model`] owns the generator's intermediate representation, which stays private; every
//! other item here borrows from it (`Type<'a>`, `Field<'a>`, …) and only reads, so the
//! representation can change without changing this API.
//!
//! ```no_run
//! let model = kubeforge::Config::new()
//!     .input_bytes("widgets.yaml", std::fs::read("widgets.yaml")?)
//!     .model()?;
//! for resource in model.resources() {
//!     println!("{} is {}", resource.plural(), resource.ty().path());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Config::model`]: crate::Config::model

mod operations;

use std::fmt;

use kubeforge_runtime::schema::Node;
use serde_json::Value;

use crate::diagnostics::{Note, Origin};
use crate::model::{self, ApiSet, TypeDef, TypeId};

pub use crate::ground::Gvk;
pub use operations::{Body, Operation, Parameter, Response, Target};

/// What the generator understood of its inputs (see the [module docs](self)).
#[derive(Debug)]
pub struct Model {
    api: ApiSet,
}

impl Model {
    pub(crate) fn new(api: ApiSet) -> Model {
        Model { api }
    }

    /// The representation, for the crate's own stages.
    pub(crate) fn api(&self) -> &ApiSet {
        &self.api
    }

    /// The releases of the inputs, oldest first (`1.32`, `1.33`, …), when they are several
    /// releases of one API ([`Config::release_input`](crate::Config::release_input)); the
    /// one release projected onto ([`Config::only_release`](crate::Config::only_release));
    /// empty otherwise. Each type, field, resource and operation says which of them have it
    /// (`releases()`).
    pub fn releases(&self) -> &[String] {
        self.api
            .releases
            .as_ref()
            .map_or(&[], |releases| releases.names.as_slice())
    }

    /// The names of the releases in `mask`.
    fn names(&self, mask: Option<model::releases::Mask>) -> Vec<&str> {
        match (&self.api.releases, mask) {
            (Some(releases), Some(mask)) => releases.names_of(mask),
            _ => Vec::new(),
        }
    }

    /// Every type, in a fixed order (by module path, then name); a type's place in it is its
    /// [`Type::index`].
    pub fn types(&self) -> impl ExactSizeIterator<Item = Type<'_>> {
        (0..self.api.types.len()).map(|index| self.ty(TypeId(index)))
    }

    /// The type at `index` in [`Model::types`].
    pub fn type_at(&self, index: usize) -> Option<Type<'_>> {
        (index < self.api.types.len()).then(|| self.ty(TypeId(index)))
    }

    /// The type made from the schema `name` (for a nested anonymous type, its parent's name
    /// plus the property path: `io.k8s.api.core.v1.PodSpec.restartPolicy`).
    pub fn schema(&self, name: &str) -> Option<Type<'_>> {
        self.types().find(|ty| ty.schema_name() == name)
    }

    /// The served resources, in type order.
    pub fn resources(&self) -> impl Iterator<Item = Resource<'_>> {
        self.api.resources.iter().map(|(id, resource)| Resource {
            model: self,
            id: *id,
            resource,
        })
    }

    /// Every operation, in the reference pages' order: each resource's in type order, then
    /// those on no resource.
    pub fn operations(&self) -> impl ExactSizeIterator<Item = Operation<'_>> {
        self.api
            .operations
            .iter()
            .map(|operation| Operation::new(self, operation))
    }

    /// What loading and modelling skipped or left unused, for the user to read.
    pub fn notes(&self) -> &[Note] {
        &self.api.notes
    }

    /// The types taken from the companion crate `kubeforge-meta` that the inputs define
    /// alike: each is re-exported at its place (`pub use`), so the module tree still names it.
    pub fn reexports(&self) -> impl Iterator<Item = Type<'_>> {
        self.api.reexports.iter().map(|id| self.ty(*id))
    }

    /// The schema node of every type, by [`Type::index`] (what [`Type::node`] returns, or an
    /// empty node for a type made from no schema): constraints, CEL rules, defaults and
    /// merge semantics, whose references (`Node::reference`) are type indexes. A
    /// `kubeforge_runtime::schema::SchemaSet` of them validates, defaults and prunes
    /// objects as the generated `Validate` impls do.
    pub fn nodes(&self) -> Vec<Node> {
        self.api.nodes()
    }

    fn ty(&self, id: TypeId) -> Type<'_> {
        Type {
            model: self,
            id,
            def: self.api.get(id),
        }
    }

    fn shape<'a>(&'a self, shape: &'a model::Shape) -> Shape<'a> {
        Shape { model: self, shape }
    }
}

/// One Rust type the generator makes (or takes from elsewhere).
#[derive(Clone, Copy)]
pub struct Type<'a> {
    model: &'a Model,
    id: TypeId,
    def: &'a TypeDef,
}

/// What kind of Rust item a [`Type`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A struct with named fields ([`Type::fields`]).
    Struct,
    /// A string enum with a fallback variant that keeps unknown values
    /// ([`Type::enum_values`]).
    Enum,
    /// A value of one of several JSON types, an enum with one variant per type.
    Union,
    /// A type alias ([`Type::alias`]).
    Alias,
    /// Kubernetes' watch event, generic over the object type.
    WatchEvent,
    /// A type defined outside the generated code ([`Type::extern_path`]): the companion
    /// crate's, or one mapped by [`Config::extern_type`](crate::Config::extern_type).
    Extern,
}

impl<'a> Type<'a> {
    /// Its place in [`Model::types`], which schema nodes' references use.
    pub fn index(self) -> usize {
        self.id.0
    }

    /// The Rust name, unique within its module.
    pub fn name(self) -> &'a str {
        &self.def.name
    }

    /// The module path below the crate root: `["api", "core", "v1"]`.
    pub fn module(self) -> &'a [String] {
        &self.def.module
    }

    /// The Rust path below the crate root: `api::core::v1::Pod`.
    pub fn path(self) -> String {
        self.model.api.type_path(self.id)
    }

    /// The stem of the file that defines it in the module's folder ([`Layout::Crate`]);
    /// nested anonymous types share their parent's.
    ///
    /// [`Layout::Crate`]: crate::Layout::Crate
    pub fn file(self) -> &'a str {
        &self.def.file
    }

    /// The schema it was made from; for a nested anonymous type, its parent's name plus the
    /// property path.
    pub fn schema_name(self) -> &'a str {
        &self.def.schema_name
    }

    /// Where its schema is.
    pub fn origin(self) -> &'a Origin {
        &self.def.origin
    }

    /// The description its docs are made from.
    pub fn description(self) -> Option<&'a str> {
        self.def.description.as_deref()
    }

    /// Its group-version-kind, when the schema declares exactly one.
    pub fn gvk(self) -> Option<&'a Gvk> {
        self.def.gvk.as_ref()
    }

    /// What kind of item it is.
    pub fn kind(self) -> Kind {
        match &self.def.kind {
            model::TypeKind::Struct(_) => Kind::Struct,
            model::TypeKind::Enum(_) => Kind::Enum,
            model::TypeKind::Union(_) => Kind::Union,
            model::TypeKind::Alias(_) => Kind::Alias,
            model::TypeKind::WatchEvent { .. } => Kind::WatchEvent,
            model::TypeKind::Extern(_) => Kind::Extern,
        }
    }

    /// A struct's fields in order (the properties, then the one that keeps the other keys);
    /// none for other kinds.
    pub fn fields(self) -> impl ExactSizeIterator<Item = Field<'a>> {
        let fields: &'a [model::Field] = match &self.def.kind {
            model::TypeKind::Struct(fields) => fields,
            _ => &[],
        };
        let (model, owner) = (self.model, self.id);
        fields.iter().map(move |field| Field {
            model,
            owner,
            field,
        })
    }

    /// A struct's field for the property `json_name`.
    pub fn field(self, json_name: &str) -> Option<Field<'a>> {
        self.fields().find(|f| f.json_name() == json_name)
    }

    /// The releases that have this type ([`Model::releases`]), oldest first: every release
    /// but those lacking its schema. Empty when the inputs are not releases.
    pub fn releases(self) -> Vec<&'a str> {
        self.model.names(self.model.api.type_releases(self.id))
    }

    /// The releases that have the enum value `value` of this string enum, oldest first.
    pub fn value_releases(self, value: &str) -> Vec<&'a str> {
        self.model
            .names(self.model.api.value_releases(self.id, value))
    }

    /// A string enum's values on the wire, in order; none for other kinds.
    pub fn enum_values(self) -> impl ExactSizeIterator<Item = &'a str> {
        let variants: &'a [model::Variant] = match &self.def.kind {
            model::TypeKind::Enum(variants) => variants,
            _ => &[],
        };
        variants.iter().map(|v| v.value.as_str())
    }

    /// What an alias stands for.
    pub fn alias(self) -> Option<Shape<'a>> {
        match &self.def.kind {
            model::TypeKind::Alias(shape) => Some(self.model.shape(shape)),
            _ => None,
        }
    }

    /// The Rust path every reference to an extern type uses.
    pub fn extern_path(self) -> Option<&'a str> {
        self.def.kind.extern_path()
    }

    /// Whether it is taken from the companion crate `kubeforge-meta`.
    pub fn is_companion(self) -> bool {
        self.model.api.is_companion(self.id)
    }

    /// The full name of its protobuf message (`k8s.io.api.core.v1.Pod`), when it has one
    /// among the `.proto` inputs (`Config::proto`) and implements
    /// `kubeforge_runtime::protobuf::Message` (here or, extern, in the companion crate).
    pub fn protobuf_message(self) -> Option<&'a str> {
        self.model
            .api
            .protobuf
            .get(&self.id)
            .map(|m| m.name.as_str())
    }

    /// The standard traits the generated item derives (`Clone`, `Debug`, `Default`,
    /// `PartialEq`, `Eq`, …), in the order written; none for an alias or extern type.
    pub fn derives(self) -> Vec<&'static str> {
        self.def.derives()
    }

    /// The name of a struct's builder (`LeaseBuilder`), when builders are generated for it.
    pub fn builder(self) -> Option<&'a str> {
        self.model
            .api
            .builders
            .get(&self.id)
            .map(|b| b.name.as_str())
    }

    /// The served resource it is.
    pub fn resource(self) -> Option<Resource<'a>> {
        let resource = self.model.api.resources.get(&self.id)?;
        Some(Resource {
            model: self.model,
            id: self.id,
            resource,
        })
    }

    /// The operations on it as a served resource, in order.
    pub fn operations(self) -> impl Iterator<Item = Operation<'a>> {
        let model = self.model;
        model
            .api
            .operations_of(self.id)
            .map(move |operation| Operation::new(model, operation))
    }

    /// Its schema node (constraints, CEL rules, defaults, merge semantics), as
    /// [`Model::nodes`] holds it; none for a type made from no schema.
    pub fn node(self) -> Option<&'a Node> {
        model::semantics::type_node(&self.model.api.semantics, self.id)
    }

    /// For a nested anonymous type whose node is part of a named type's, that named type:
    /// [`Type::node`] is then the part of its node at this type's place.
    pub fn nested_in(self) -> Option<Type<'a>> {
        match self.model.api.semantics.get(&self.id)? {
            model::semantics::Semantics::Within { root, .. } => Some(self.model.ty(*root)),
            model::semantics::Semantics::Root(_) => None,
        }
    }
}

impl fmt::Debug for Type<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Type")
            .field("path", &self.path())
            .field("schema", &self.schema_name())
            .field("kind", &self.kind())
            .field("extern", &self.extern_path())
            .finish()
    }
}

/// The special meaning of a [`Field`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// An ordinary property.
    Plain,
    /// `apiVersion`, fixed by the type's group-version-kind.
    ApiVersion,
    /// `kind`, fixed by the type's group-version-kind.
    Kind,
    /// The keys that are no property (`unknown_fields`, or what `additionalProperties`
    /// admits): no JSON name of its own, the struct's last field.
    Extra,
}

/// A struct's field.
#[derive(Clone, Copy)]
pub struct Field<'a> {
    model: &'a Model,
    owner: TypeId,
    field: &'a model::Field,
}

impl<'a> Field<'a> {
    /// The JSON property name.
    pub fn json_name(self) -> &'a str {
        &self.field.json_name
    }

    /// The releases that have this field, oldest first (within its type's releases); empty
    /// when the inputs are not releases.
    pub fn releases(self) -> Vec<&'a str> {
        self.model
            .names(self.model.api.field_releases(self.owner, self.field))
    }

    /// The Rust field name, unique within the struct.
    pub fn rust_name(self) -> &'a str {
        &self.field.rust_name
    }

    /// The value's type.
    pub fn shape(self) -> Shape<'a> {
        self.model.shape(&self.field.shape)
    }

    /// Whether the property is in the schema's `required` list.
    pub fn required(self) -> bool {
        self.field.required
    }

    /// Whether the value is boxed, to break a cycle of types containing each other.
    pub fn boxed(self) -> bool {
        self.field.boxed
    }

    /// The description its docs are made from.
    pub fn description(self) -> Option<&'a str> {
        self.field.description.as_deref()
    }

    /// The schema's `default`.
    pub fn default(self) -> Option<&'a Value> {
        self.field.default.as_ref()
    }

    /// What the field is for.
    pub fn role(self) -> Role {
        match self.field.role {
            model::FieldRole::Plain => Role::Plain,
            model::FieldRole::ApiVersion => Role::ApiVersion,
            model::FieldRole::Kind => Role::Kind,
            model::FieldRole::Extra => Role::Extra,
        }
    }

    /// How a strategic merge patch merges it (`x-kubernetes-patch-strategy`, in the order
    /// written: `merge`, `retainKeys`, `replace`); empty when the schema says nothing.
    pub fn patch_strategies(self) -> &'a [String] {
        self.field
            .patch
            .as_ref()
            .map_or(&[], |p| p.strategies.as_slice())
    }

    /// The key identifying a merged list's items (`x-kubernetes-patch-merge-key`).
    pub fn patch_merge_key(self) -> Option<&'a str> {
        self.field.patch.as_ref()?.merge_key.as_deref()
    }

    /// Where the property is.
    pub fn origin(self) -> &'a Origin {
        &self.field.origin
    }
}

impl fmt::Debug for Field<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Field")
            .field("json_name", &self.json_name())
            .field("shape", &self.shape())
            .field("required", &self.required())
            .field("role", &self.role())
            .finish()
    }
}

/// The type of a value: a primitive, a runtime type, a list, a map, or a generated type.
/// It displays as its Rust type reads in listings, generated types by their path below the
/// crate root: `Vec<api::core::v1::Container>`, `Option<i64>`, `Quantity`.
#[derive(Clone, Copy)]
pub struct Shape<'a> {
    model: &'a Model,
    shape: &'a model::Shape,
}

impl<'a> Shape<'a> {
    /// The generated type it is, itself (not through a list, map or option).
    pub fn ty(self) -> Option<Type<'a>> {
        match self.shape {
            model::Shape::Ref(id) => Some(self.model.ty(*id)),
            _ => None,
        }
    }

    /// What a list, map (of string keys) or `Option` holds.
    pub fn item(self) -> Option<Shape<'a>> {
        match self.shape {
            model::Shape::Vec(inner) | model::Shape::Map(inner) | model::Shape::Nullable(inner) => {
                Some(self.model.shape(inner))
            }
            _ => None,
        }
    }

    /// Whether it is a list.
    pub fn is_list(self) -> bool {
        matches!(self.shape, model::Shape::Vec(_))
    }

    /// Whether it is a map with string keys.
    pub fn is_map(self) -> bool {
        matches!(self.shape, model::Shape::Map(_))
    }

    /// The named type it holds, through lists, maps, options and aliases (an alias to no
    /// named type is itself).
    pub fn named(self) -> Option<Type<'a>> {
        if let Some(inner) = self.item() {
            return inner.named();
        }
        let ty = self.ty()?;
        Some(ty.alias().and_then(Shape::named).unwrap_or(ty))
    }
}

impl fmt::Display for Shape<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.model.api.shape_text(self.shape))
    }
}

impl fmt::Debug for Shape<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A kind served as a REST resource.
#[derive(Clone, Copy)]
pub struct Resource<'a> {
    model: &'a Model,
    id: TypeId,
    resource: &'a model::Resource,
}

impl<'a> Resource<'a> {
    /// Its type.
    pub fn ty(self) -> Type<'a> {
        self.model.ty(self.id)
    }

    /// Its group, version and kind.
    pub fn gvk(self) -> &'a Gvk {
        &self.resource.gvk
    }

    /// The plural in paths: `pods`.
    pub fn plural(self) -> &'a str {
        &self.resource.plural
    }

    /// Whether it lives in a namespace (or is cluster-wide).
    pub fn namespaced(self) -> bool {
        self.resource.scope == model::Scope::Namespaced
    }

    /// The releases that serve it, oldest first (those that have its type); empty when the
    /// inputs are not releases.
    pub fn releases(self) -> Vec<&'a str> {
        self.ty().releases()
    }

    /// Its subresources, sorted: `ephemeralcontainers`, `log`, `status`, ….
    pub fn subresources(self) -> &'a [String] {
        &self.resource.subresources
    }
}

impl fmt::Debug for Resource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("gvk", self.gvk())
            .field("plural", &self.plural())
            .field("namespaced", &self.namespaced())
            .finish()
    }
}
