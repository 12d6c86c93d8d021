//! Schemas → types. The mapping rules, in order of precedence (the guide's mapping table, `docs/src/reference/mapping.md`, gives
//! the reason for each):
//!
//! | schema | Rust |
//! |---|---|
//! | a well-known Kubernetes name (`wellknown.rs`) | runtime type / `WatchEvent<T>` |
//! | `nullable: true`, `x-nullable`, `type: [T, "null"]`, `null` in `enum` | `Option<T>`: `None` is `null` |
//! | `$ref`, or `allOf` of one schema, without sibling `properties` | the referenced type |
//! | `format: int-or-string`, `x-kubernetes-int-or-string` | `IntOrString` |
//! | `properties`, `$ref` + `properties`, `allOf`, `oneOf`/`anyOf` of objects | one struct with every branch's properties (see [`Merged`]) |
//! | `oneOf`/`anyOf` of constraints only (`required`, `pattern`, …) | what the schema is without them |
//! | other `allOf` / `oneOf` / `anyOf` | `serde_json::Value`, with a doc line saying why |
//! | object with `additionalProperties` | `BTreeMap<String, T>` |
//! | object with neither, `x-kubernetes-preserve-unknown-fields`, no type | `serde_json::Value` |
//! | array | `Vec<T>` |
//! | string: `byte` / `date-time` / `enum` / other | `ByteString` / `DateTime` / enum / `String` |
//! | integer `int32` / `uint32` / `uint64` / other, number, boolean | `i32` / `u32` / `u64` / `i64`, `Number`, `bool` |
//!
//! A struct's keys beyond its properties go to one last field (`FieldRole::Extra`):
//! `additional_properties` (`additionalProperties`, `patternProperties`) or `unknown_fields`
//! (`x-kubernetes-preserve-unknown-fields`, and on every other struct unless
//! [`Options::unknown_fields`] is off). Its name is claimed after the properties', so it
//! never takes a property's.
//!
//! Optional fields become `Option<T>` (`Option<Option<T>>` when nullable: absent, `null`,
//! value); which ones are boxed is decided in `cycles.rs`.
//!
//! The input is load's typed [`Schema`]; the rules for a value are [`map_shape`], the one
//! mapping that the fields of types and the parameters and bodies of operations
//! (`operations/read.rs`) all use. What differs between them is the [`Place`]: a type's
//! fields get nested types of their own, an operation's schemas none.

use std::collections::BTreeMap;

use serde_json::Value;

use super::wellknown::{self, WellKnown};
use super::{
    Field, FieldRole, Gvk, Options, PatchStrategy, RuntimeType, Shape, TypeDef, TypeId, TypeKind,
    UnionVariant, Variant,
};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Origin};
use crate::ground::ModuleRules;
use crate::ground::naming::{self, ModuleNames, Namespace};
use crate::load::schema::{AdditionalProperties, Schema, SchemaRef, Type};
use crate::load::{LoadedApi, NamedSchema, json_type};

/// Deeper nesting than this is rejected rather than risking the stack.
const MAX_DEPTH: usize = 64;

struct Builder<'a> {
    ids: BTreeMap<&'a str, TypeId>,
    schemas: BTreeMap<&'a str, &'a NamedSchema>,
    types: Vec<TypeDef>,
    modules: BTreeMap<Vec<String>, ModuleNames>,
    diagnostics: Diagnostics,
    options: Options,
    /// Why the shape just computed is `serde_json::Value` when the schema says more: taken
    /// into the doc of the field (or alias) it belongs to.
    note: Option<String>,
}

/// Creates one type per named schema (plus nested anonymous types), with names and modules
/// assigned and `$ref`s resolved to [`TypeId`]s.
pub(super) fn build_types(
    raw: &LoadedApi,
    rules: &ModuleRules,
    options: Options,
) -> Result<Vec<TypeDef>, Error> {
    let mut schemas: Vec<_> = raw.schemas.values().collect();
    schemas.sort_by(|a, b| a.name.cmp(&b.name));

    let mut builder = Builder {
        ids: BTreeMap::new(),
        schemas: schemas.iter().map(|s| (s.name.as_str(), *s)).collect(),
        types: Vec::with_capacity(schemas.len()),
        modules: BTreeMap::new(),
        diagnostics: Diagnostics::default(),
        options,
        note: None,
    };

    // Module names first: a file stem must not collide with a submodule of the same module.
    let placed: Vec<(Vec<String>, String)> = schemas.iter().map(|s| rules.place(&s.name)).collect();
    for (module, _) in &placed {
        for depth in 0..=module.len() {
            let names = builder
                .modules
                .entry(module[..depth].to_vec())
                .or_insert_with_key(|path| ModuleNames::new(path));
            if let Some(child) = module.get(depth) {
                names.files.reserve(child);
            }
        }
    }

    // Then every named type claims its name, before any nested type can take it.
    for (schema, (module, base)) in schemas.iter().zip(placed) {
        let names = builder
            .modules
            .entry(module.clone())
            .or_insert_with_key(|path| ModuleNames::new(path));
        let name = names.types.claim(&naming::type_name(&base));
        let file = names.files.claim(&naming::file_stem(&name));
        builder
            .ids
            .insert(&schema.name, TypeId(builder.types.len()));
        builder.types.push(TypeDef {
            name,
            module,
            file,
            schema_name: schema.name.clone(),
            origin: schema.origin.clone(),
            description: None,
            kind: TypeKind::Alias(Shape::Json),
            gvk: None,
            gvks: Vec::new(),
            derive_default: false,
            derive_eq: false,
        });
    }

    for (index, schema) in schemas.iter().enumerate() {
        builder.define(TypeId(index), &schema.schema, &schema.origin);
    }
    let Builder {
        types, diagnostics, ..
    } = builder;
    diagnostics.finish(types)
}

impl<'a> Builder<'a> {
    /// Fills in the body of the named type `id`.
    fn define(&mut self, id: TypeId, schema: &'a Schema, origin: &Origin) {
        let description = schema.description.clone();
        let gvks = schema.gvks.clone();
        let name = self.types[id.0].schema_name.clone();
        let kind = match wellknown::lookup(&name) {
            Some(WellKnown::Runtime(runtime)) => TypeKind::Alias(Shape::Runtime(runtime)),
            Some(WellKnown::WatchEvent) => TypeKind::WatchEvent {
                status: self.ids.get(wellknown::STATUS).copied(),
            },
            None => match self.body(id, schema, origin, 0) {
                Some(kind) => kind,
                None => return,
            },
        };
        let note = self.note.take();
        let ty = &mut self.types[id.0];
        ty.description = with_note(description, note);
        ty.gvk = <[Gvk; 1]>::try_from(gvks.clone()).ok().map(|[gvk]| gvk);
        ty.gvks = gvks;
        ty.kind = kind;
        if let TypeKind::Struct(fields) = &mut ty.kind
            && ty.gvk.is_some()
        {
            for field in fields.iter_mut().filter(|f| f.shape == Shape::String) {
                match field.json_name.as_str() {
                    "apiVersion" => field.role = FieldRole::ApiVersion,
                    "kind" => field.role = FieldRole::Kind,
                    _ => {}
                }
            }
        }
    }

    /// The item a schema object becomes when it has a name of its own: a struct for objects
    /// with properties, an enum for string enums, an alias otherwise.
    fn body(
        &mut self,
        id: TypeId,
        schema: &'a Schema,
        origin: &Origin,
        depth: usize,
    ) -> Option<TypeKind> {
        if !schema.nullable && may_be_struct(schema) {
            let merged = self.merge(schema, origin, depth)?;
            // A named schema with `properties`, even none, is a struct (with its extra keys).
            if merged.is_struct() || (merged.fits_struct() && schema.properties.is_some()) {
                return self.fields(id, &merged, depth).map(TypeKind::Struct);
            }
        }
        if let Some(values) = self.string_enum(schema, origin)
            && !schema.nullable
        {
            return values.map(|values| TypeKind::Enum(variants(values)));
        }
        let shape = self.shape(id, schema, origin, "", depth);
        shape.map(TypeKind::Alias)
    }

    /// The fields of a struct: its properties in order, then the field for the other keys.
    fn fields(&mut self, id: TypeId, merged: &Merged<'a>, depth: usize) -> Option<Vec<Field>> {
        let mut names = Namespace::default();
        // Of several properties that map to one Rust name, the one whose JSON name already
        // is that name keeps it; the rest are numbered in sorted JSON order, so the result
        // does not depend on document order.
        let mut sorted: Vec<(&String, String)> = merged
            .properties
            .iter()
            .map(|p| (p.name, naming::field_name(p.name)))
            .collect();
        sorted.sort_by(|(a_json, a), (b_json, b)| {
            ((a != *a_json), a_json).cmp(&((b != *b_json), b_json))
        });
        let rust_names: BTreeMap<&String, String> = sorted
            .into_iter()
            .map(|(json, candidate)| (json, names.claim(&candidate)))
            .collect();
        let mut fields = Vec::with_capacity(merged.properties.len() + 1);
        let mut ok = true;
        for property in &merged.properties {
            let field_origin = &property.origin;
            let schema = property.schema;
            let description = schema.description.clone();
            self.note = None;
            let Some(shape) = self.shape(id, schema, field_origin, property.name, depth + 1) else {
                ok = false;
                continue;
            };
            let note = self.note.take();
            fields.push(Field {
                json_name: property.name.clone(),
                rust_name: rust_names.get(property.name).cloned().unwrap_or_default(),
                shape,
                required: merged.required.iter().any(|r| r == property.name),
                boxed: false,
                description: with_note(description, note),
                default: schema.default.clone(),
                role: FieldRole::Plain,
                patch: PatchStrategy::of(schema),
                origin: field_origin.clone(),
            });
        }
        let extra = match &merged.extra {
            Some(Extra::Typed(schema, origin)) => {
                let shape = self.shape(id, schema, origin, "additionalProperties", depth + 1)?;
                self.note = None;
                Some((
                    "additional_properties",
                    shape,
                    EXTRA_DECLARED,
                    origin.clone(),
                ))
            }
            Some(Extra::Any(origin)) => Some((
                "additional_properties",
                Shape::Json,
                EXTRA_DECLARED,
                origin.clone(),
            )),
            Some(Extra::Preserved(origin)) => Some((
                "unknown_fields",
                Shape::Json,
                EXTRA_PRESERVED,
                origin.clone(),
            )),
            None if self.options.unknown_fields => Some((
                "unknown_fields",
                Shape::Json,
                EXTRA_UNKNOWN,
                merged.origin.clone(),
            )),
            None => None,
        };
        if let Some((name, shape, description, origin)) = extra {
            fields.push(Field {
                json_name: String::new(),
                rust_name: names.claim(name),
                shape,
                required: true,
                boxed: false,
                description: Some(description.to_owned()),
                default: None,
                role: FieldRole::Extra,
                patch: None,
                origin,
            });
        }
        ok.then_some(fields)
    }

    /// Every property (and required name, and the source of extra keys) of a schema that
    /// may be a struct, gathered through `$ref`, `allOf`, `oneOf` and `anyOf`.
    fn merge(&mut self, schema: &'a Schema, origin: &Origin, depth: usize) -> Option<Merged<'a>> {
        let mut merged = Merged {
            properties: Vec::new(),
            required: Vec::new(),
            extra: None,
            origin: origin.clone(),
            conflict: None,
            non_object: None,
            visiting: Vec::new(),
        };
        self.collect(schema, origin, &mut merged, true, depth)?;
        Some(merged)
    }

    fn collect(
        &mut self,
        schema: &'a Schema,
        origin: &Origin,
        merged: &mut Merged<'a>,
        all: bool,
        depth: usize,
    ) -> Option<()> {
        if depth > MAX_DEPTH {
            self.too_deep(origin);
            return None;
        }
        if let Some(reference) = &schema.reference {
            let id = self.reference(reference, &origin.child("$ref"))?;
            let name = self.types[id.0].schema_name.clone();
            if merged.visiting.contains(&name) {
                merged.conflict = Some(format!("`{name}` includes itself through `allOf`"));
                return Some(());
            }
            let target = self.schemas.get(name.as_str()).copied();
            if let Some(target) = target {
                if wellknown::lookup(&name).is_some() {
                    merged.non_object = Some(format!("`{name}`"));
                } else {
                    merged.visiting.push(name);
                    self.collect(&target.schema, &target.origin, merged, all, depth + 1)?;
                    merged.visiting.pop();
                }
            }
        }
        if let Some(ty) = schema.ty
            && ty != Type::Object
        {
            merged.non_object = Some(format!("`{}`", ty.as_str()));
        }
        if schema.int_or_string {
            merged.non_object = Some("an int-or-string".to_owned());
        }
        for (keyword, list) in schema.combinators() {
            let list_origin = origin.child(keyword);
            for (i, branch) in list.iter().enumerate() {
                let branch_origin = list_origin.child(&i.to_string());
                if keyword != "allOf" && constraint_only(branch) {
                    continue;
                }
                // A `oneOf`/`anyOf` branch's properties are all optional: which branch a
                // value matches is seen from which of them it has.
                let all = all && keyword == "allOf";
                self.collect(branch, &branch_origin, merged, all, depth + 1)?;
            }
        }
        if let Some(properties) = &schema.properties {
            let properties_origin = origin.child("properties");
            for (name, property) in properties {
                merged.add(name, property, properties_origin.child(name));
            }
        }
        if all {
            for name in &schema.required {
                if !merged.required.contains(name) {
                    merged.required.push(name.clone());
                }
            }
        }
        let extra = extra(schema, origin);
        merged.extra = match (merged.extra.take(), extra) {
            (None, extra) | (extra, None) => extra,
            (Some(Extra::Preserved(o)), _) | (_, Some(Extra::Preserved(o))) => {
                Some(Extra::Preserved(o))
            }
            (Some(Extra::Typed(a, o)), Some(Extra::Typed(b, _))) if a == b => {
                Some(Extra::Typed(a, o))
            }
            (Some(Extra::Any(o) | Extra::Typed(_, o)), Some(_)) => Some(Extra::Any(o)),
        };
        Some(())
    }

    fn too_deep(&mut self, origin: &Origin) {
        self.diagnostics.push(too_deep(origin));
    }

    /// The shape of a value schema ([`map_shape`]). Nested objects and enums become new
    /// types named after `parent` and `property`.
    fn shape(
        &mut self,
        parent: TypeId,
        schema: &'a Schema,
        origin: &Origin,
        property: &str,
        depth: usize,
    ) -> Option<Shape> {
        map_shape(
            &mut Nest {
                builder: self,
                parent,
            },
            schema,
            origin,
            property,
            depth,
        )
    }

    /// A schema with properties or combined schemas: a struct, a union, or (with a doc line
    /// saying why) JSON; `Some(None)` when it only adds constraints to its own type.
    fn combined(
        &mut self,
        parent: TypeId,
        schema: &'a Schema,
        origin: &Origin,
        property: &str,
        depth: usize,
    ) -> Option<Option<Shape>> {
        let merged = self.merge(schema, origin, depth)?;
        if merged.is_struct() {
            let placeholder = TypeKind::Struct(Vec::new());
            let id = self.nested(parent, property, origin, placeholder, schema);
            let fields = self.fields(id, &merged, depth)?;
            self.types[id.0].kind = TypeKind::Struct(fields);
            return Some(Some(Shape::Ref(id)));
        }
        let combined = schema
            .combinators()
            .find(|(_, list)| !list.iter().all(constraint_only))
            .map(|(keyword, _)| keyword);
        match combined {
            // Only constraints besides the schema's own type: map that.
            None => Some(None),
            Some("allOf") => {
                // `allOf` of one schema and constraints on it is that schema.
                let typed: Vec<(usize, &'a Schema)> = schema
                    .all_of
                    .iter()
                    .flatten()
                    .enumerate()
                    .filter(|(_, b)| !constraint_only(b))
                    .collect();
                if let [(i, single)] = typed.as_slice()
                    && schema.ty.is_none()
                {
                    let inner_origin = origin.child("allOf").child(&i.to_string());
                    return self
                        .shape(parent, single, &inner_origin, property, depth + 1)
                        .map(Some);
                }
                self.note = Some(merged.why_json("allOf"));
                Some(Some(Shape::Json))
            }
            Some(keyword) => {
                if merged.conflict.is_none()
                    && schema.ty.is_none()
                    && let Some(branches) = self.union_branches(schema, keyword, origin)
                {
                    return self
                        .union(parent, schema, origin, property, &branches, depth)
                        .map(Some);
                }
                self.note = Some(merged.why_json(keyword));
                Some(Some(Shape::Json))
            }
        }
    }

    /// The branches of a `oneOf`/`anyOf` (constraints aside) by the JSON type each admits,
    /// when every branch admits exactly one and no two the same (nor `integer` beside
    /// `number`, which admits integers too): then a value's JSON type picks its branch.
    fn union_branches(
        &mut self,
        schema: &'a Schema,
        keyword: &str,
        origin: &Origin,
    ) -> Option<Vec<Branch<'a>>> {
        let list = schema.combinator(keyword)?;
        let mut branches = Vec::new();
        for (i, branch) in list.iter().enumerate() {
            if constraint_only(branch) {
                continue;
            }
            let json_type = self.json_type_of(branch, 0)?;
            if branches.iter().any(|(t, _, _)| *t == json_type) {
                return None;
            }
            branches.push((
                json_type,
                branch,
                origin.child(keyword).child(&i.to_string()),
            ));
        }
        let has = |t: &str| branches.iter().any(|(json_type, _, _)| *json_type == t);
        (branches.len() > 1 && !(has("integer") && has("number"))).then_some(branches)
    }

    /// The one JSON type a schema admits, if it admits exactly one (`null` aside).
    fn json_type_of(&self, schema: &'a Schema, depth: usize) -> Option<&'static str> {
        if depth > MAX_DEPTH
            || schema.one_of.is_some()
            || schema.any_of.is_some()
            || schema.int_or_string
            || schema.preserve_unknown_fields
            || schema.format.as_deref() == Some("int-or-string")
        {
            return None;
        }
        if let Some(reference) = &schema.reference {
            let target = self.schemas.get(reference.name.as_str())?;
            return match wellknown::lookup(&reference.name) {
                Some(WellKnown::Runtime(
                    RuntimeType::Time | RuntimeType::MicroTime | RuntimeType::ByteString,
                )) => Some("string"),
                Some(_) => None,
                None => self.json_type_of(&target.schema, depth + 1),
            };
        }
        match schema.ty {
            Some(ty) => Some(ty.as_str()),
            None if schema.properties.is_some() || schema.all_of.is_some() => Some("object"),
            None => None,
        }
    }

    /// An enum with one variant per branch, named after the branch's JSON type.
    fn union(
        &mut self,
        parent: TypeId,
        schema: &'a Schema,
        origin: &Origin,
        property: &str,
        branches: &[Branch<'a>],
        depth: usize,
    ) -> Option<Shape> {
        let id = self.nested(
            parent,
            property,
            origin,
            TypeKind::Union(Vec::new()),
            schema,
        );
        let mut variants = Vec::with_capacity(branches.len());
        for (json_type, branch, branch_origin) in branches {
            let shape = self.shape(id, branch, branch_origin, json_type, depth + 1)?;
            variants.push(UnionVariant {
                json_type,
                rust_name: naming::variant_name(json_type),
                shape,
            });
        }
        self.types[id.0].kind = TypeKind::Union(variants);
        Some(Shape::Ref(id))
    }

    /// Creates an anonymous type for the property `property` of `parent`, in the parent's
    /// module and file.
    fn nested(
        &mut self,
        parent: TypeId,
        property: &str,
        origin: &Origin,
        kind: TypeKind,
        schema: &Schema,
    ) -> TypeId {
        let parent_def = &self.types[parent.0];
        let module = parent_def.module.clone();
        let file = parent_def.file.clone();
        let base = naming::nested_type_name(&parent_def.name, property);
        let schema_name = if property.is_empty() {
            parent_def.schema_name.clone()
        } else {
            format!("{}.{property}", parent_def.schema_name)
        };
        let name = self
            .modules
            .entry(module.clone())
            .or_default()
            .types
            .claim(&base);
        let id = TypeId(self.types.len());
        self.types.push(TypeDef {
            name,
            module,
            file,
            schema_name,
            origin: origin.clone(),
            description: schema.description.clone(),
            kind,
            gvk: None,
            gvks: Vec::new(),
            derive_default: false,
            derive_eq: false,
        });
        id
    }

    /// The type a reference names, or a located error when there is none.
    fn reference(&mut self, reference: &SchemaRef, origin: &Origin) -> Option<TypeId> {
        let found = self.ids.get(reference.name.as_str()).copied();
        if found.is_none() {
            self.diagnostics.push(dangling(reference, origin));
        }
        found
    }

    /// `Some(Some(values))` for a string enum, `Some(None)` for an invalid one (reported),
    /// `None` when the schema has no `enum` or is not a string schema.
    fn string_enum(&mut self, schema: &Schema, origin: &Origin) -> Option<Option<Vec<String>>> {
        let list = schema.enum_values.as_ref()?;
        if schema.ty != Some(Type::String) {
            return None;
        }
        let enum_origin = origin.child("enum");
        let mut values: Vec<String> = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            match item {
                Value::String(value) => {
                    if !values.contains(value) {
                        values.push(value.clone());
                    }
                }
                // Kubernetes marks nullable enums by listing `null`; `nullable` maps that.
                Value::Null => {}
                other => {
                    self.diagnostics.push(Diagnostic::new(
                        ErrorKind::InvalidSchema,
                        &enum_origin.child(&i.to_string()),
                        format!(
                            "expected every value of a string enum to be a string, found {}",
                            json_type(other)
                        ),
                    ));
                    return Some(None);
                }
            }
        }
        if values.is_empty() {
            return None;
        }
        Some(Some(values))
    }
}

/// What [`map_shape`] asks of the place a schema is mapped in: types (`Nest`, which
/// creates nested types) or the parameters and bodies of operations
/// (`operations/read.rs`, which create none).
pub(crate) trait Place<'a> {
    /// The shape of a reference, or `None` after reporting that it names no schema.
    fn reference(&mut self, reference: &SchemaRef, origin: &Origin) -> Option<Shape>;
    /// A schema with properties or combined schemas (`allOf`, `oneOf`, `anyOf`):
    /// `Some(Some(shape))` when it is decided here, `Some(None)` when it only adds
    /// constraints to its own type (the rules below then apply), `None` after an error.
    fn combined(
        &mut self,
        schema: &'a Schema,
        origin: &Origin,
        property: &str,
        depth: usize,
    ) -> Option<Option<Shape>>;
    /// A string schema with `enum`, in the same convention.
    fn string_enum(
        &mut self,
        schema: &'a Schema,
        origin: &Origin,
        property: &str,
    ) -> Option<Option<Shape>>;
    /// Reports a problem.
    fn report(&mut self, diagnostic: Diagnostic);
}

/// The error for schemas nested deeper than [`MAX_DEPTH`].
fn too_deep(origin: &Origin) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::UnsupportedSchema,
        origin,
        format!("expected schemas nested at most {MAX_DEPTH} levels deep"),
    )
    .with_hint("give deeply nested schemas names of their own and use `$ref`")
}

/// The one schema → shape mapping (the module docs' table, named schemas aside), for the
/// fields of types, and for the parameters and bodies of operations. `property` names
/// what nested types are named after.
pub(crate) fn map_shape<'a>(
    place: &mut impl Place<'a>,
    schema: &'a Schema,
    origin: &Origin,
    property: &str,
    depth: usize,
) -> Option<Shape> {
    if depth > MAX_DEPTH {
        place.report(too_deep(origin));
        return None;
    }
    let shape = value_shape(place, schema, origin, property, depth)?;
    Some(match shape {
        Shape::Nullable(_) => shape,
        _ if schema.nullable => Shape::Nullable(Box::new(shape)),
        _ => shape,
    })
}

/// [`map_shape`] without `null`.
fn value_shape<'a>(
    place: &mut impl Place<'a>,
    schema: &'a Schema,
    origin: &Origin,
    property: &str,
    depth: usize,
) -> Option<Shape> {
    let has_properties = schema.properties.as_ref().is_some_and(|p| !p.is_empty());
    if let Some(reference) = &schema.reference
        && !has_properties
    {
        return place.reference(reference, &origin.child("$ref"));
    }
    if let Some([single]) = schema.all_of.as_deref()
        && !has_properties
        && schema.one_of.is_none()
        && schema.any_of.is_none()
    {
        let inner_origin = origin.child("allOf").child("0");
        return map_shape(place, single, &inner_origin, property, depth + 1);
    }
    let format = schema.format.as_deref();
    if schema.int_or_string || format == Some("int-or-string") {
        return Some(Shape::Runtime(RuntimeType::IntOrString));
    }
    if may_be_struct(schema)
        && let Some(shape) = place.combined(schema, origin, property, depth)?
    {
        return Some(shape);
    }
    match schema.ty {
        Some(Type::String) => {
            if schema.enum_values.is_some()
                && let Some(shape) = place.string_enum(schema, origin, property)?
            {
                return Some(shape);
            }
            scalar_shape(Type::String, format)
        }
        Some(scalar @ (Type::Integer | Type::Number | Type::Boolean)) => {
            scalar_shape(scalar, format)
        }
        Some(Type::Array) => {
            let item = match &schema.items {
                None => Shape::Json,
                Some(items) => {
                    map_shape(place, items, &origin.child("items"), property, depth + 1)?
                }
            };
            Some(Shape::Vec(Box::new(item)))
        }
        // An empty property list says nothing about the value; keep it whole.
        Some(Type::Object) | None => match extra(schema, origin) {
            Some(Extra::Typed(values, values_origin)) => {
                let value = map_shape(place, values, &values_origin, property, depth + 1)?;
                Some(Shape::Map(Box::new(value)))
            }
            Some(Extra::Any(_)) => Some(Shape::Map(Box::new(Shape::Json))),
            Some(Extra::Preserved(_)) | None => Some(Shape::Json),
        },
    }
}

/// The place of a type's fields: nested objects, unions and enums become types of their
/// own, named after `parent` and the property.
struct Nest<'b, 'a> {
    builder: &'b mut Builder<'a>,
    parent: TypeId,
}

impl<'a> Place<'a> for Nest<'_, 'a> {
    fn reference(&mut self, reference: &SchemaRef, origin: &Origin) -> Option<Shape> {
        self.builder.reference(reference, origin).map(Shape::Ref)
    }

    fn combined(
        &mut self,
        schema: &'a Schema,
        origin: &Origin,
        property: &str,
        depth: usize,
    ) -> Option<Option<Shape>> {
        self.builder
            .combined(self.parent, schema, origin, property, depth)
    }

    fn string_enum(
        &mut self,
        schema: &'a Schema,
        origin: &Origin,
        property: &str,
    ) -> Option<Option<Shape>> {
        let Some(values) = self.builder.string_enum(schema, origin) else {
            return Some(None);
        };
        let kind = TypeKind::Enum(variants(values?));
        let id = self
            .builder
            .nested(self.parent, property, origin, kind, schema);
        Some(Some(Shape::Ref(id)))
    }

    fn report(&mut self, diagnostic: Diagnostic) {
        self.builder.diagnostics.push(diagnostic);
    }
}

/// What an object schema says about keys beyond its properties.
fn extra<'a>(schema: &'a Schema, origin: &Origin) -> Option<Extra<'a>> {
    if schema.preserve_unknown_fields {
        return Some(Extra::Preserved(
            origin.child("x-kubernetes-preserve-unknown-fields"),
        ));
    }
    let additional_origin = origin.child("additionalProperties");
    let additional = schema.additional_properties.as_ref().map(|a| match a {
        AdditionalProperties::Forbidden => None,
        AdditionalProperties::Any => Some(Extra::Any(additional_origin.clone())),
        AdditionalProperties::Schema(values) => {
            Some(Extra::Typed(values, additional_origin.clone()))
        }
    });
    let Some(patterns) = &schema.pattern_properties else {
        return additional.flatten();
    };
    let pattern_origin = origin.child("patternProperties");
    // Without matching the patterns, a key's schema is known only when one pattern
    // is all that other keys may match.
    match (patterns.iter().next(), patterns.len(), additional) {
        (None, _, additional) => additional.flatten(),
        (Some((pattern, values)), 1, Some(None)) => {
            Some(Extra::Typed(values, pattern_origin.child(pattern)))
        }
        _ => Some(Extra::Any(pattern_origin)),
    }
}

/// The error for a reference to a schema no input defines: the one message types,
/// parameters and bodies give.
pub(crate) fn dangling(reference: &SchemaRef, origin: &Origin) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::DanglingRef,
        origin,
        format!(
            "expected `{}` to name a schema, but there is no schema `{}`",
            reference.text, reference.name
        ),
    )
    .with_hint("add the schema to an input document, or fix the reference")
}

/// Enum variants for the values, in schema order, with unique names.
/// The shape of a scalar schema from its `type` and `format`: the one mapping of scalars,
/// for fields, and for the parameters and bodies of operations (`operations/read.rs`).
/// `None` for a type that is no scalar.
pub(crate) fn scalar_shape(ty: Type, format: Option<&str>) -> Option<Shape> {
    Some(match (ty, format) {
        (Type::String, Some("byte")) => Shape::Runtime(RuntimeType::ByteString),
        // The text as written: `meta/v1.Time` (second precision) is a named schema.
        (Type::String, Some("date-time")) => Shape::Runtime(RuntimeType::DateTime),
        (Type::String, _) => Shape::String,
        (Type::Integer, Some("int32")) => Shape::I32,
        (Type::Integer, Some("uint32")) => Shape::U32,
        (Type::Integer, Some("uint64")) => Shape::U64,
        // The API server reads JSON integers as int64, so no larger value can be stored.
        (Type::Integer, Some("int64")) => Shape::I64,
        // No format (or an unknown one, which Kubernetes ignores): a CRD's Go `int`, whose
        // whole-number floats the API server takes too (`Shape::Integer`).
        (Type::Integer, _) => Shape::Integer,
        // The integer or float form as written (`3` stays `3`).
        (Type::Number, _) => Shape::Runtime(RuntimeType::Number),
        (Type::Boolean, _) => Shape::Bool,
        (Type::Array | Type::Object, _) => return None,
    })
}

fn variants(values: Vec<String>) -> Vec<Variant> {
    let mut names = Namespace::default();
    names.reserve("Other");
    values
        .into_iter()
        .map(|value| Variant {
            rust_name: names.claim(&naming::variant_name(&value)),
            value,
        })
        .collect()
}

/// Decides which derives are valid for each type: `Default` only when no field is required
/// (so a default never invents a value that would be serialized), `Eq` only when nothing
/// inside is a float (a greatest fixpoint over the type graph, so cycles are fine).
pub(super) fn compute_derives(types: &mut [TypeDef]) {
    for ty in types.iter_mut() {
        ty.derive_default = match &ty.kind {
            TypeKind::Struct(fields) => fields
                .iter()
                .all(|f| !f.required || f.role != FieldRole::Plain),
            TypeKind::Extern(_) => ty.derive_default,
            _ => false,
        };
    }
    let mut eq: Vec<bool> = vec![true; types.len()];
    loop {
        let mut changed = false;
        for (i, ty) in types.iter().enumerate() {
            if !eq[i] {
                continue;
            }
            let holds = match &ty.kind {
                TypeKind::Struct(fields) => fields.iter().all(|f| shape_is_eq(&f.shape, &eq)),
                TypeKind::Alias(shape) => shape_is_eq(shape, &eq),
                TypeKind::Union(variants) => variants.iter().all(|v| shape_is_eq(&v.shape, &eq)),
                TypeKind::Enum(_) => true,
                // Another crate's type promises no `Eq` (k8s-openapi's `ObjectMeta` has none);
                // the companion crate's keeps what it was found to be (`externs::apply`).
                TypeKind::Extern(_) => ty.derive_eq,
                TypeKind::WatchEvent { .. } => false,
            };
            if !holds {
                eq[i] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (ty, eq) in types.iter_mut().zip(eq) {
        ty.derive_eq = eq;
    }
}

fn shape_is_eq(shape: &Shape, eq: &[bool]) -> bool {
    match shape {
        Shape::F64 | Shape::Runtime(RuntimeType::Number) => false,
        Shape::Vec(inner) | Shape::Map(inner) | Shape::Nullable(inner) => shape_is_eq(inner, eq),
        Shape::Ref(id) => eq[id.0],
        Shape::Bool
        | Shape::I32
        | Shape::I64
        | Shape::Integer
        | Shape::U32
        | Shape::U64
        | Shape::String
        | Shape::Runtime(_)
        | Shape::Json => true,
    }
}

/// The doc of the field that holds the keys a schema declares beyond its properties.
const EXTRA_DECLARED: &str = "The keys besides the properties that the schema admits \
    (`additionalProperties`, `patternProperties`), in the order they were read.";
/// The doc of the field that holds the keys a schema preserves.
const EXTRA_PRESERVED: &str = "The keys besides the properties, in the order they were read: \
    the schema preserves unknown fields (`x-kubernetes-preserve-unknown-fields`).";
/// The doc of the field that holds the fields a newer server may send.
const EXTRA_UNKNOWN: &str = "Fields this version of the type does not know (a newer server's), \
    kept in the order they were read so that writing the object back deletes none of them.";

/// Whether a schema only constrains a value (`required`, `pattern`, `minimum`, `enum`, …)
/// and says nothing of what it is: none of the keywords that do (`type`, `$ref`,
/// `properties`, `additionalProperties`, `patternProperties`, `items`, `allOf`, `oneOf`,
/// `anyOf`, `nullable`, `x-kubernetes-int-or-string`, `x-kubernetes-preserve-unknown-fields`).
pub(crate) fn constraint_only(schema: &Schema) -> bool {
    schema.ty.is_none()
        && schema.reference.is_none()
        && schema.properties.is_none()
        && schema.additional_properties.is_none()
        && schema.pattern_properties.is_none()
        && schema.items.is_none()
        && schema.combinators().next().is_none()
        && !schema.nullable
        && !schema.int_or_string
        && !schema.preserve_unknown_fields
}

/// Whether the schema can map to a struct: it has `properties`, or combines schemas.
fn may_be_struct(schema: &Schema) -> bool {
    schema.properties.is_some() || schema.combinators().next().is_some()
}

/// `description` with `note` as a paragraph of its own.
fn with_note(description: Option<String>, note: Option<String>) -> Option<String> {
    match (description, note) {
        (Some(description), Some(note)) => Some(format!("{description}\n\n{note}")),
        (description, None) => description,
        (None, note) => note,
    }
}

/// A branch of a union: the JSON type it admits, its schema and where that is.
type Branch<'a> = (&'static str, &'a Schema, Origin);

/// A property gathered into a struct.
struct Property<'a> {
    name: &'a String,
    schema: &'a Schema,
    origin: Origin,
}

/// Where the keys beyond a struct's properties come from, and what they hold.
enum Extra<'a> {
    /// `additionalProperties: {schema}`, or one pattern of `patternProperties` that every
    /// other key must match.
    Typed(&'a Schema, Origin),
    /// `additionalProperties: true`, or patterns whose schema for a key is not known.
    Any(Origin),
    /// `x-kubernetes-preserve-unknown-fields: true`.
    Preserved(Origin),
}

/// The properties of a schema and every schema it combines (`$ref`, `allOf`, `oneOf`,
/// `anyOf`), merged into one struct: a property defined twice must be defined alike (or
/// once with constraints only); `required` counts from `allOf` and the schema itself;
/// `oneOf`/`anyOf` branches add optional properties, since which branch a value is shows
/// in which properties it has. Anything else (a branch that is a string, a conflict)
/// makes the value `serde_json::Value`.
struct Merged<'a> {
    properties: Vec<Property<'a>>,
    required: Vec<String>,
    extra: Option<Extra<'a>>,
    origin: Origin,
    /// Why the properties cannot be merged.
    conflict: Option<String>,
    /// What else than an object a branch is.
    non_object: Option<String>,
    /// The named schemas being merged, to stop at a cycle.
    visiting: Vec<String>,
}

impl<'a> Merged<'a> {
    fn add(&mut self, name: &'a String, schema: &'a Schema, origin: Origin) {
        let Some(existing) = self.properties.iter_mut().find(|p| p.name == name) else {
            self.properties.push(Property {
                name,
                schema,
                origin,
            });
            return;
        };
        if constraint_only(schema) || existing.schema.same_definition(schema) {
            return;
        }
        if constraint_only(existing.schema) {
            existing.schema = schema;
            existing.origin = origin;
            return;
        }
        self.conflict.get_or_insert_with(|| {
            format!("the schemas it combines define the property `{name}` differently")
        });
    }

    fn fits_struct(&self) -> bool {
        self.conflict.is_none() && self.non_object.is_none()
    }

    fn is_struct(&self) -> bool {
        self.fits_struct() && !self.properties.is_empty()
    }

    /// The doc line of a value kept as JSON although it combines schemas with `keyword`.
    fn why_json(&self, keyword: &str) -> String {
        let reason = match (&self.conflict, &self.non_object) {
            (Some(conflict), _) => format!("{conflict}."),
            (None, Some(_)) => format!(
                "a value's JSON type does not tell its `{keyword}` branches apart (two admit the same type, or one admits several)."
            ),
            (None, None) => format!("its `{keyword}` branches have no properties to merge."),
        };
        format!("Kept as `serde_json::Value`: {reason}")
    }
}
