//! Schemas → types. The mapping rules, in order of precedence (README's mapping table gives
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

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::naming::{self, Namespace};
use super::wellknown::{self, WellKnown};
use super::{
    Field, FieldRole, Gvk, Options, PatchStrategy, RuntimeType, Shape, TypeDef, TypeId, TypeKind,
    UnionVariant, Variant,
};
use crate::ModuleRules;
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Origin};
use crate::load::{RawApi, RawSchema, json_type};

/// Deeper nesting than this is rejected rather than risking the stack.
const MAX_DEPTH: usize = 64;

/// The names used in one module: types share one namespace, files (and submodules) another.
#[derive(Default)]
struct ModuleNames {
    types: Namespace,
    files: Namespace,
}

struct Builder<'a> {
    ids: BTreeMap<&'a str, TypeId>,
    schemas: BTreeMap<&'a str, &'a RawSchema>,
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
    raw: &RawApi,
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
        for depth in 0..module.len() {
            let names = builder.modules.entry(module[..depth].to_vec()).or_default();
            names.files.reserve(&module[depth]);
        }
        let names = builder.modules.entry(module.clone()).or_default();
        // `mod.rs` and `lib.rs` are the module files themselves.
        names.files.reserve("mod");
        names.files.reserve("lib");
    }

    // Then every named type claims its name, before any nested type can take it.
    for (schema, (module, base)) in schemas.iter().zip(placed) {
        let names = builder.modules.entry(module.clone()).or_default();
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
        builder.define(TypeId(index), &schema.value, &schema.origin);
    }
    let Builder {
        types, diagnostics, ..
    } = builder;
    diagnostics.finish(types)
}

impl<'a> Builder<'a> {
    /// Fills in the body of the named type `id`.
    fn define(&mut self, id: TypeId, schema: &'a Value, origin: &Origin) {
        let Some(object) = self.schema_object(schema, origin) else {
            return;
        };
        let description = self.description(object, origin);
        let gvks = self.gvks(object, origin);
        let name = self.types[id.0].schema_name.clone();
        let kind = match wellknown::lookup(&name) {
            Some(WellKnown::Runtime(runtime)) => TypeKind::Alias(Shape::Runtime(runtime)),
            Some(WellKnown::WatchEvent) => TypeKind::WatchEvent {
                status: self.ids.get(wellknown::STATUS).copied(),
            },
            None => match self.body(id, object, origin, 0) {
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
        object: &'a Map<String, Value>,
        origin: &Origin,
        depth: usize,
    ) -> Option<TypeKind> {
        if !nullable(object) && may_be_struct(object) {
            let merged = self.merge(object, origin, depth)?;
            // A named schema with `properties`, even none, is a struct (with its extra keys).
            if merged.is_struct() || (merged.fits_struct() && object.contains_key("properties")) {
                return self.fields(id, &merged, depth).map(TypeKind::Struct);
            }
        }
        if let Some(values) = self.string_enum(object, origin)
            && !nullable(object)
        {
            return values.map(|values| TypeKind::Enum(variants(values)));
        }
        let shape = self.shape(id, object, origin, "", depth);
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
            let Some(schema) = self.schema_object(property.schema, field_origin) else {
                ok = false;
                continue;
            };
            let description = self.description(schema, field_origin);
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
                default: schema.get("default").cloned(),
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
    fn merge(
        &mut self,
        object: &'a Map<String, Value>,
        origin: &Origin,
        depth: usize,
    ) -> Option<Merged<'a>> {
        let mut merged = Merged {
            properties: Vec::new(),
            required: Vec::new(),
            extra: None,
            origin: origin.clone(),
            conflict: None,
            non_object: None,
            visiting: Vec::new(),
        };
        self.collect(object, origin, &mut merged, true, depth)?;
        Some(merged)
    }

    fn collect(
        &mut self,
        object: &'a Map<String, Value>,
        origin: &Origin,
        merged: &mut Merged<'a>,
        all: bool,
        depth: usize,
    ) -> Option<()> {
        if depth > MAX_DEPTH {
            self.too_deep(origin);
            return None;
        }
        if let Some(reference) = object.get("$ref") {
            let id = self.reference(reference, &origin.child("$ref"))?;
            let name = self.types[id.0].schema_name.clone();
            if merged.visiting.contains(&name) {
                merged.conflict = Some(format!("`{name}` includes itself through `allOf`"));
                return Some(());
            }
            let target = self.schemas.get(name.as_str()).copied();
            if let Some(target) = target {
                let target_object = self.schema_object(&target.value, &target.origin)?;
                if wellknown::lookup(&name).is_some() {
                    merged.non_object = Some(format!("`{name}`"));
                } else {
                    merged.visiting.push(name);
                    self.collect(target_object, &target.origin, merged, all, depth + 1)?;
                    merged.visiting.pop();
                }
            }
        }
        match object.get("type") {
            Some(Value::String(ty)) if ty != "object" => {
                merged.non_object = Some(format!("`{ty}`"))
            }
            _ => {}
        }
        if object.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
            merged.non_object = Some("an int-or-string".to_owned());
        }
        for keyword in ["allOf", "oneOf", "anyOf"] {
            let Some(list) = object.get(keyword) else {
                continue;
            };
            let list_origin = origin.child(keyword);
            let Some(list) = list.as_array() else {
                self.diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidSchema,
                    &list_origin,
                    format!("expected an array of schemas, found {}", json_type(list)),
                ));
                return None;
            };
            for (i, branch) in list.iter().enumerate() {
                let branch_origin = list_origin.child(&i.to_string());
                let branch = self.schema_object(branch, &branch_origin)?;
                if keyword != "allOf" && constraint_only(branch) {
                    continue;
                }
                // A `oneOf`/`anyOf` branch's properties are all optional: which branch a
                // value matches is seen from which of them it has.
                let all = all && keyword == "allOf";
                self.collect(branch, &branch_origin, merged, all, depth + 1)?;
            }
        }
        if let Some(properties) = self.properties(object, origin).ok()? {
            let properties_origin = origin.child("properties");
            for (name, schema) in properties {
                merged.add(name, schema, properties_origin.child(name));
            }
        }
        if all {
            for name in self.required(object, origin)? {
                if !merged.required.contains(&name) {
                    merged.required.push(name);
                }
            }
        }
        let extra = self.extra(object, origin)?;
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

    /// What an object schema says about keys beyond its properties.
    fn extra(
        &mut self,
        object: &'a Map<String, Value>,
        origin: &Origin,
    ) -> Option<Option<Extra<'a>>> {
        if object.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
            return Some(Some(Extra::Preserved(
                origin.child("x-kubernetes-preserve-unknown-fields"),
            )));
        }
        let additional_origin = origin.child("additionalProperties");
        let additional = match object.get("additionalProperties") {
            None => None,
            Some(Value::Bool(false)) => Some(None),
            Some(Value::Bool(true)) => Some(Some(Extra::Any(additional_origin.clone()))),
            Some(Value::Object(schema)) => {
                Some(Some(Extra::Typed(schema, additional_origin.clone())))
            }
            Some(other) => {
                self.diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidSchema,
                    &additional_origin,
                    format!(
                        "expected a schema object or a boolean, found {}",
                        json_type(other)
                    ),
                ));
                return None;
            }
        };
        let pattern_origin = origin.child("patternProperties");
        let patterns = match object.get("patternProperties") {
            None => return Some(additional.flatten()),
            Some(Value::Object(patterns)) => patterns,
            Some(other) => {
                self.diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidSchema,
                    &pattern_origin,
                    format!(
                        "expected an object of pattern schemas, found {}",
                        json_type(other)
                    ),
                ));
                return None;
            }
        };
        // Without matching the patterns, a key's schema is known only when one pattern
        // is all that other keys may match.
        Some(match (patterns.iter().next(), patterns.len(), additional) {
            (None, _, additional) => additional.flatten(),
            (Some((pattern, Value::Object(schema))), 1, Some(None)) => {
                Some(Extra::Typed(schema, pattern_origin.child(pattern)))
            }
            _ => Some(Extra::Any(pattern_origin)),
        })
    }

    fn too_deep(&mut self, origin: &Origin) {
        self.diagnostics.push(
            Diagnostic::new(
                ErrorKind::UnsupportedSchema,
                origin,
                format!("expected schemas nested at most {MAX_DEPTH} levels deep"),
            )
            .with_hint("give deeply nested schemas names of their own and use `$ref`"),
        );
    }

    /// The shape of a value schema. Nested objects and enums become new types named after
    /// `parent` and `property`.
    fn shape(
        &mut self,
        parent: TypeId,
        object: &'a Map<String, Value>,
        origin: &Origin,
        property: &str,
        depth: usize,
    ) -> Option<Shape> {
        if depth > MAX_DEPTH {
            self.too_deep(origin);
            return None;
        }
        let shape = self.value_shape(parent, object, origin, property, depth)?;
        Some(match shape {
            Shape::Nullable(_) => shape,
            _ if nullable(object) => Shape::Nullable(Box::new(shape)),
            _ => shape,
        })
    }

    /// [`shape`](Self::shape) without `null`.
    fn value_shape(
        &mut self,
        parent: TypeId,
        object: &'a Map<String, Value>,
        origin: &Origin,
        property: &str,
        depth: usize,
    ) -> Option<Shape> {
        let has_properties = object
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        if let Some(reference) = object.get("$ref")
            && !has_properties
        {
            return self
                .reference(reference, &origin.child("$ref"))
                .map(Shape::Ref);
        }
        if let Some(Value::Array(list)) = object.get("allOf")
            && let [single] = list.as_slice()
            && !has_properties
            && !object.contains_key("oneOf")
            && !object.contains_key("anyOf")
        {
            let inner_origin = origin.child("allOf").child("0");
            let inner = self.schema_object(single, &inner_origin)?;
            return self.shape(parent, inner, &inner_origin, property, depth + 1);
        }
        let format = self.string_keyword(object, "format", origin);
        let int_or_string = object.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
        if int_or_string || format == Some("int-or-string") {
            return Some(Shape::Runtime(RuntimeType::IntOrString));
        }
        if may_be_struct(object) {
            let merged = self.merge(object, origin, depth)?;
            if merged.is_struct() {
                let placeholder = TypeKind::Struct(Vec::new());
                let id = self.nested(parent, property, origin, placeholder, object);
                let fields = self.fields(id, &merged, depth)?;
                self.types[id.0].kind = TypeKind::Struct(fields);
                return Some(Shape::Ref(id));
            }
            let combined = ["allOf", "oneOf", "anyOf"]
                .into_iter()
                .filter(|k| object.contains_key(*k))
                .find(|k| {
                    object
                        .get(*k)
                        .and_then(Value::as_array)
                        .is_some_and(|list| {
                            !list
                                .iter()
                                .all(|b| b.as_object().is_some_and(constraint_only))
                        })
                });
            match combined {
                // Only constraints besides the schema's own type: map that.
                None => {}
                Some("allOf") => {
                    // `allOf` of one schema and constraints on it is that schema.
                    let list = object.get("allOf").and_then(Value::as_array);
                    let typed: Vec<(usize, &'a Map<String, Value>)> = list
                        .into_iter()
                        .flatten()
                        .enumerate()
                        .filter_map(|(i, b)| b.as_object().map(|b| (i, b)))
                        .filter(|(_, b)| !constraint_only(b))
                        .collect();
                    if let [(i, single)] = typed.as_slice()
                        && !object.contains_key("type")
                    {
                        let inner_origin = origin.child("allOf").child(&i.to_string());
                        return self.shape(parent, single, &inner_origin, property, depth + 1);
                    }
                    self.note = Some(merged.why_json("allOf"));
                    return Some(Shape::Json);
                }
                Some(keyword) => {
                    if merged.conflict.is_none()
                        && !object.contains_key("type")
                        && let Some(branches) = self.union_branches(object, keyword, origin)
                    {
                        return self.union(parent, object, origin, property, &branches, depth);
                    }
                    self.note = Some(merged.why_json(keyword));
                    return Some(Shape::Json);
                }
            }
        }
        let ty = self.type_keyword(object, origin)?;
        match ty.as_deref() {
            Some("string") => {
                if let Some(values) = self.string_enum(object, origin) {
                    let values = values?;
                    return Some(Shape::Ref(self.nested(
                        parent,
                        property,
                        origin,
                        TypeKind::Enum(variants(values)),
                        object,
                    )));
                }
                scalar_shape("string", format)
            }
            Some(scalar @ ("integer" | "number" | "boolean")) => scalar_shape(scalar, format),
            Some("array") => {
                let items_origin = origin.child("items");
                let item = match object.get("items") {
                    None => Shape::Json,
                    Some(items) => {
                        let items = self.schema_object(items, &items_origin)?;
                        self.shape(parent, items, &items_origin, property, depth + 1)?
                    }
                };
                Some(Shape::Vec(Box::new(item)))
            }
            Some("object") | None => {
                // An empty property list says nothing about the value; keep it whole.
                self.properties(object, origin).ok()?;
                if object.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
                    return Some(Shape::Json);
                }
                match self.extra(object, origin)? {
                    Some(Extra::Typed(values, values_origin)) => {
                        let value =
                            self.shape(parent, values, &values_origin, property, depth + 1)?;
                        Some(Shape::Map(Box::new(value)))
                    }
                    Some(Extra::Any(_)) => Some(Shape::Map(Box::new(Shape::Json))),
                    Some(Extra::Preserved(_)) | None => Some(Shape::Json),
                }
            }
            Some(other) => {
                self.diagnostics.push(
                    Diagnostic::new(
                        ErrorKind::UnsupportedSchema,
                        &origin.child("type"),
                        format!(
                            "expected one of the types string, integer, number, boolean, array or object, found {other:?}"
                        ),
                    ),
                );
                None
            }
        }
    }

    /// The branches of a `oneOf`/`anyOf` (constraints aside) by the JSON type each admits,
    /// when every branch admits exactly one and no two the same (nor `integer` beside
    /// `number`, which admits integers too): then a value's JSON type picks its branch.
    fn union_branches(
        &mut self,
        object: &'a Map<String, Value>,
        keyword: &str,
        origin: &Origin,
    ) -> Option<Vec<Branch<'a>>> {
        let list = object.get(keyword)?.as_array()?;
        let mut branches = Vec::new();
        for (i, branch) in list.iter().enumerate() {
            let branch = branch.as_object()?;
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
    fn json_type_of(&self, object: &'a Map<String, Value>, depth: usize) -> Option<&'static str> {
        const TYPES: [&str; 6] = ["string", "integer", "number", "boolean", "array", "object"];
        if depth > MAX_DEPTH
            || [
                "oneOf",
                "anyOf",
                "x-kubernetes-int-or-string",
                "x-kubernetes-preserve-unknown-fields",
            ]
            .iter()
            .any(|k| object.contains_key(*k))
            || object.get("format").and_then(Value::as_str) == Some("int-or-string")
        {
            return None;
        }
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            let name = crate::load::schema_ref_name(reference)?;
            let target = self.schemas.get(name.as_str())?;
            return match wellknown::lookup(&name) {
                Some(WellKnown::Runtime(
                    RuntimeType::Time | RuntimeType::MicroTime | RuntimeType::ByteString,
                )) => Some("string"),
                Some(_) => None,
                None => self.json_type_of(target.value.as_object()?, depth + 1),
            };
        }
        match object.get("type") {
            Some(Value::String(ty)) => TYPES.iter().find(|t| **t == ty).copied(),
            None if object.contains_key("properties") || object.contains_key("allOf") => {
                Some("object")
            }
            _ => None,
        }
    }

    /// An enum with one variant per branch, named after the branch's JSON type.
    fn union(
        &mut self,
        parent: TypeId,
        object: &'a Map<String, Value>,
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
            object,
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
        object: &Map<String, Value>,
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
        let description = self.description(object, origin);
        let id = TypeId(self.types.len());
        self.types.push(TypeDef {
            name,
            module,
            file,
            schema_name,
            origin: origin.clone(),
            description,
            kind,
            gvk: None,
            gvks: Vec::new(),
            derive_default: false,
            derive_eq: false,
        });
        id
    }

    fn reference(&mut self, reference: &Value, origin: &Origin) -> Option<TypeId> {
        let Some(text) = reference.as_str() else {
            self.diagnostics.push(Diagnostic::new(
                ErrorKind::InvalidSchema,
                origin,
                format!(
                    "expected `$ref` to be a string, found {}",
                    json_type(reference)
                ),
            ));
            return None;
        };
        let Some(name) = crate::load::schema_ref_name(text) else {
            self.diagnostics.push(
                Diagnostic::new(
                    ErrorKind::UnsupportedSchema,
                    origin,
                    format!("expected a reference to a named schema, found {text:?}"),
                )
                .with_hint("references must look like `#/components/schemas/<name>` or `#/definitions/<name>`"),
            );
            return None;
        };
        match self.ids.get(name.as_str()) {
            Some(id) => Some(*id),
            None => {
                self.diagnostics.push(
                    Diagnostic::new(
                        ErrorKind::DanglingRef,
                        origin,
                        format!(
                            "expected `{text}` to name a schema, but there is no schema `{name}`"
                        ),
                    )
                    .with_hint("add the schema to an input document, or fix the reference"),
                );
                None
            }
        }
    }

    fn schema_object<'v>(
        &mut self,
        value: &'v Value,
        origin: &Origin,
    ) -> Option<&'v Map<String, Value>> {
        match value {
            Value::Object(object) => Some(object),
            other => {
                self.diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidSchema,
                    origin,
                    format!("expected a schema object, found {}", json_type(other)),
                ));
                None
            }
        }
    }

    /// `Ok(None)` when there are no properties, `Err(())` when they are malformed (reported).
    fn properties<'v>(
        &mut self,
        object: &'v Map<String, Value>,
        origin: &Origin,
    ) -> Result<Option<&'v Map<String, Value>>, ()> {
        match object.get("properties") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(properties)) => Ok(Some(properties)),
            Some(other) => {
                self.diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidSchema,
                    &origin.child("properties"),
                    format!(
                        "expected an object of property schemas, found {}",
                        json_type(other)
                    ),
                ));
                Err(())
            }
        }
    }

    fn required(&mut self, object: &Map<String, Value>, origin: &Origin) -> Option<Vec<String>> {
        let required_origin = origin.child("required");
        match object.get("required") {
            None | Some(Value::Null) => Some(Vec::new()),
            Some(Value::Array(list)) => {
                let mut names = Vec::with_capacity(list.len());
                for (i, item) in list.iter().enumerate() {
                    match item.as_str() {
                        Some(name) => names.push(name.to_owned()),
                        None => {
                            self.diagnostics.push(Diagnostic::new(
                                ErrorKind::InvalidSchema,
                                &required_origin.child(&i.to_string()),
                                format!("expected a property name, found {}", json_type(item)),
                            ));
                            return None;
                        }
                    }
                }
                Some(names)
            }
            Some(other) => {
                self.diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidSchema,
                    &required_origin,
                    format!(
                        "expected an array of property names, found {}",
                        json_type(other)
                    ),
                ));
                None
            }
        }
    }

    /// `Some(Some(values))` for a string enum, `Some(None)` for an invalid one (reported),
    /// `None` when the schema has no `enum` or is not a string schema.
    fn string_enum(
        &mut self,
        object: &Map<String, Value>,
        origin: &Origin,
    ) -> Option<Option<Vec<String>>> {
        let list = object.get("enum")?;
        if object.get("type").and_then(Value::as_str) != Some("string") {
            return None;
        }
        let enum_origin = origin.child("enum");
        let Some(list) = list.as_array() else {
            self.diagnostics.push(Diagnostic::new(
                ErrorKind::InvalidSchema,
                &enum_origin,
                format!("expected an array of values, found {}", json_type(list)),
            ));
            return Some(None);
        };
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

    /// The `type` keyword: a string, or an array of at most one type besides `"null"`.
    fn type_keyword(
        &mut self,
        object: &Map<String, Value>,
        origin: &Origin,
    ) -> Option<Option<String>> {
        let type_origin = origin.child("type");
        match object.get("type") {
            None => Some(None),
            Some(Value::String(ty)) => Some(Some(ty.clone())),
            Some(Value::Array(list)) => {
                let non_null: Vec<&str> = list
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|t| *t != "null")
                    .collect();
                match non_null.as_slice() {
                    [] => Some(None),
                    [one]
                        if non_null.len() + usize::from(list.iter().any(|t| t == "null"))
                            == list.len() =>
                    {
                        Some(Some((*one).to_owned()))
                    }
                    _ => {
                        self.diagnostics.push(Diagnostic::new(
                            ErrorKind::UnsupportedSchema,
                            &type_origin,
                            "expected one type, optionally with \"null\"",
                        ));
                        None
                    }
                }
            }
            Some(other) => {
                self.diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidSchema,
                    &type_origin,
                    format!("expected a type name, found {}", json_type(other)),
                ));
                None
            }
        }
    }

    fn string_keyword<'v>(
        &mut self,
        object: &'v Map<String, Value>,
        key: &str,
        origin: &Origin,
    ) -> Option<&'v str> {
        match object.get(key) {
            None => None,
            Some(Value::String(value)) => Some(value),
            Some(other) => {
                self.diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidSchema,
                    &origin.child(key),
                    format!(
                        "expected `{key}` to be a string, found {}",
                        json_type(other)
                    ),
                ));
                None
            }
        }
    }

    fn description(&mut self, object: &Map<String, Value>, origin: &Origin) -> Option<String> {
        self.string_keyword(object, "description", origin)
            .map(str::to_owned)
    }

    /// The type's group-version-kinds. Types registered in many groups (`DeleteOptions`)
    /// have no single apiVersion, so they get no `gvk` from them.
    fn gvks(&mut self, object: &Map<String, Value>, origin: &Origin) -> Vec<Gvk> {
        let key = "x-kubernetes-group-version-kind";
        let Some(list) = object.get(key) else {
            return Vec::new();
        };
        let gvk_origin = origin.child(key);
        let parse = |item: &Value| -> Option<Gvk> {
            let field = |name: &str| item.get(name).and_then(Value::as_str).map(str::to_owned);
            Some(Gvk {
                group: field("group")?,
                version: field("version")?,
                kind: field("kind")?,
            })
        };
        let items: Vec<&Value> = match list {
            Value::Array(items) => items.iter().collect(),
            Value::Object(_) => vec![list],
            other => {
                self.diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidSchema,
                    &gvk_origin,
                    format!(
                        "expected an array of {{group, version, kind}} objects, found {}",
                        json_type(other)
                    ),
                ));
                return Vec::new();
            }
        };
        let mut gvks = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match parse(item) {
                Some(gvk) => gvks.push(gvk),
                None => {
                    self.diagnostics.push(Diagnostic::new(
                        ErrorKind::InvalidSchema,
                        &gvk_origin.child(&i.to_string()),
                        "expected an object with string `group`, `version` and `kind`",
                    ));
                    return Vec::new();
                }
            }
        }
        gvks
    }
}

/// Enum variants for the values, in schema order, with unique names.
/// The shape of a scalar schema from its `type` and `format`: the one mapping of scalars,
/// for fields, and for the parameters and bodies of operations (`operations/read.rs`).
/// `None` for a type that is no scalar.
pub(crate) fn scalar_shape(ty: &str, format: Option<&str>) -> Option<Shape> {
    Some(match (ty, format) {
        ("string", Some("byte")) => Shape::Runtime(RuntimeType::ByteString),
        // The text as written: `meta/v1.Time` (second precision) is a named schema.
        ("string", Some("date-time")) => Shape::Runtime(RuntimeType::DateTime),
        ("string", _) => Shape::String,
        ("integer", Some("int32")) => Shape::I32,
        ("integer", Some("uint32")) => Shape::U32,
        ("integer", Some("uint64")) => Shape::U64,
        // The API server reads JSON integers as int64, so no larger value can be stored.
        ("integer", _) => Shape::I64,
        // The integer or float form as written (`3` stays `3`).
        ("number", _) => Shape::Runtime(RuntimeType::Number),
        ("boolean", _) => Shape::Bool,
        _ => return None,
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
                // Another crate's type promises no `Eq` (k8s-openapi's `ObjectMeta` has none).
                TypeKind::WatchEvent { .. } | TypeKind::Extern(_) => false,
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

/// The keywords that say what a value is; a schema with none of them only constrains it
/// (`required`, `pattern`, `minimum`, `enum`, …).
const STRUCTURAL: [&str; 12] = [
    "type",
    "$ref",
    "properties",
    "additionalProperties",
    "patternProperties",
    "items",
    "allOf",
    "oneOf",
    "anyOf",
    "nullable",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
];

fn constraint_only(object: &Map<String, Value>) -> bool {
    !STRUCTURAL.iter().any(|k| object.contains_key(*k))
}

/// Whether the schema admits `null`: `nullable: true` (OpenAPI v3, CRDs), `x-nullable: true`
/// (Swagger 2.0), `"null"` among its types, or `null` among its `enum` values.
fn nullable(object: &Map<String, Value>) -> bool {
    let flag = |key: &str| object.get(key) == Some(&Value::Bool(true));
    let lists_null = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|list| list.iter().any(|v| v.is_null() || v == "null"))
    };
    flag("nullable") || flag("x-nullable") || lists_null("type") || {
        object
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|list| list.iter().any(Value::is_null))
    }
}

/// Whether the schema can map to a struct: it has `properties`, or combines schemas.
fn may_be_struct(object: &Map<String, Value>) -> bool {
    ["properties", "allOf", "oneOf", "anyOf"]
        .iter()
        .any(|k| object.contains_key(*k))
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
type Branch<'a> = (&'static str, &'a Map<String, Value>, Origin);

/// A property gathered into a struct.
struct Property<'a> {
    name: &'a String,
    schema: &'a Value,
    origin: Origin,
}

/// Where the keys beyond a struct's properties come from, and what they hold.
enum Extra<'a> {
    /// `additionalProperties: {schema}`, or one pattern of `patternProperties` that every
    /// other key must match.
    Typed(&'a Map<String, Value>, Origin),
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
    fn add(&mut self, name: &'a String, schema: &'a Value, origin: Origin) {
        let Some(existing) = self.properties.iter_mut().find(|p| p.name == name) else {
            self.properties.push(Property {
                name,
                schema,
                origin,
            });
            return;
        };
        let bare = |schema: &Value| -> Value {
            let mut schema = schema.clone();
            if let Value::Object(object) = &mut schema {
                for key in ["description", "default", "example", "title"] {
                    object.remove(key);
                }
            }
            schema
        };
        let only_constrains = |schema: &Value| schema.as_object().is_some_and(constraint_only);
        if only_constrains(schema) || bare(existing.schema) == bare(schema) {
            return;
        }
        if only_constrains(existing.schema) {
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
