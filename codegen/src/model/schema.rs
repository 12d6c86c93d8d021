//! Schemas → types. The mapping rules, in order of precedence:
//!
//! | schema | Rust |
//! |---|---|
//! | a well-known Kubernetes name (`wellknown.rs`) | runtime type / `WatchEvent<T>` |
//! | `$ref`, or `allOf` of one schema | the referenced type |
//! | `format: int-or-string`, `x-kubernetes-int-or-string` | `IntOrString` |
//! | `oneOf` / `anyOf` / `allOf` of several | `serde_json::Value` |
//! | object with `properties` | struct (nested ones named `Parent` + `Property`) |
//! | object with `additionalProperties` | `BTreeMap<String, T>` |
//! | object with neither, `x-kubernetes-preserve-unknown-fields`, no type | `serde_json::Value` |
//! | array | `Vec<T>` |
//! | string: `byte` / `date-time` / `enum` / other | `ByteString` / `Time` / enum / `String` |
//! | integer `int32` / other, number, boolean | `i32` / `i64`, `f64`, `bool` |
//!
//! Optional fields become `Option<T>`; which ones are boxed is decided in `cycles.rs`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::naming::{self, Namespace};
use super::wellknown::{self, WellKnown};
use super::{Field, FieldRole, Gvk, RuntimeType, Shape, TypeDef, TypeId, TypeKind, Variant};
use crate::ModuleRules;
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Origin};
use crate::load::{RawApi, json_type};

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
    types: Vec<TypeDef>,
    modules: BTreeMap<Vec<String>, ModuleNames>,
    diagnostics: Diagnostics,
}

/// Creates one type per named schema (plus nested anonymous types), with names and modules
/// assigned and `$ref`s resolved to [`TypeId`]s.
pub(super) fn build_types(raw: &RawApi, rules: &ModuleRules) -> Result<Vec<TypeDef>, Error> {
    let mut schemas: Vec<_> = raw.schemas.values().collect();
    schemas.sort_by(|a, b| a.name.cmp(&b.name));

    let mut builder = Builder {
        ids: BTreeMap::new(),
        types: Vec::with_capacity(schemas.len()),
        modules: BTreeMap::new(),
        diagnostics: Diagnostics::default(),
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
    fn define(&mut self, id: TypeId, schema: &Value, origin: &Origin) {
        let Some(object) = self.schema_object(schema, origin) else {
            return;
        };
        let description = self.description(object, origin);
        let gvk = self.gvk(object, origin);
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
        let ty = &mut self.types[id.0];
        ty.description = description;
        ty.gvk = gvk;
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
        object: &Map<String, Value>,
        origin: &Origin,
        depth: usize,
    ) -> Option<TypeKind> {
        if let Some(properties) = self.properties(object, origin).ok()? {
            return self
                .fields(id, object, properties, origin, depth)
                .map(TypeKind::Struct);
        }
        if let Some(values) = self.string_enum(object, origin) {
            return values.map(|values| TypeKind::Enum(variants(values)));
        }
        let shape = self.shape(id, object, origin, "", depth);
        shape.map(TypeKind::Alias)
    }

    fn fields(
        &mut self,
        id: TypeId,
        object: &Map<String, Value>,
        properties: &Map<String, Value>,
        origin: &Origin,
        depth: usize,
    ) -> Option<Vec<Field>> {
        let required = self.required(object, origin)?;
        let properties_origin = origin.child("properties");
        let mut names = Namespace::default();
        // Of several properties that map to one Rust name, the one whose JSON name already
        // is that name keeps it; the rest are numbered in sorted JSON order, so the result
        // does not depend on document order.
        let mut sorted: Vec<(&String, String)> = properties
            .keys()
            .map(|json| (json, naming::field_name(json)))
            .collect();
        sorted.sort_by(|(a_json, a), (b_json, b)| {
            ((a != *a_json), a_json).cmp(&((b != *b_json), b_json))
        });
        let rust_names: BTreeMap<&String, String> = sorted
            .into_iter()
            .map(|(json, candidate)| (json, names.claim(&candidate)))
            .collect();
        let mut fields = Vec::with_capacity(properties.len());
        let mut ok = true;
        for (json_name, schema) in properties {
            let field_origin = properties_origin.child(json_name);
            let Some(property) = self.schema_object(schema, &field_origin) else {
                ok = false;
                continue;
            };
            let description = self.description(property, &field_origin);
            let Some(shape) = self.shape(id, property, &field_origin, json_name, depth + 1) else {
                ok = false;
                continue;
            };
            fields.push(Field {
                json_name: json_name.clone(),
                rust_name: rust_names.get(json_name).cloned().unwrap_or_default(),
                shape,
                required: required.iter().any(|r| r == json_name),
                boxed: false,
                description,
                default: property.get("default").cloned(),
                role: FieldRole::Plain,
                origin: field_origin,
            });
        }
        ok.then_some(fields)
    }

    /// The shape of a value schema. Nested objects and enums become new types named after
    /// `parent` and `property`.
    fn shape(
        &mut self,
        parent: TypeId,
        object: &Map<String, Value>,
        origin: &Origin,
        property: &str,
        depth: usize,
    ) -> Option<Shape> {
        if depth > MAX_DEPTH {
            self.diagnostics.push(
                Diagnostic::new(
                    ErrorKind::UnsupportedSchema,
                    origin,
                    format!("expected schemas nested at most {MAX_DEPTH} levels deep"),
                )
                .with_hint("give deeply nested schemas names of their own and use `$ref`"),
            );
            return None;
        }
        if let Some(reference) = object.get("$ref") {
            return self
                .reference(reference, &origin.child("$ref"))
                .map(Shape::Ref);
        }
        if let Some(all_of) = object.get("allOf") {
            let all_origin = origin.child("allOf");
            let Some(list) = all_of.as_array() else {
                self.diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidSchema,
                    &all_origin,
                    format!("expected an array of schemas, found {}", json_type(all_of)),
                ));
                return None;
            };
            if let [single] = list.as_slice() {
                let inner_origin = all_origin.child("0");
                let inner = self.schema_object(single, &inner_origin)?;
                return self.shape(parent, inner, &inner_origin, property, depth + 1);
            }
        }
        let format = self.string_keyword(object, "format", origin);
        let int_or_string = object.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
        if int_or_string || format == Some("int-or-string") {
            return Some(Shape::Runtime(RuntimeType::IntOrString));
        }
        if ["allOf", "oneOf", "anyOf"]
            .iter()
            .any(|k| object.contains_key(*k))
        {
            return Some(Shape::Json);
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
                if let Some(properties) = self.properties(object, origin).ok()? {
                    // An empty property list says nothing about the value; keep it whole.
                    if properties.is_empty() {
                        return Some(Shape::Json);
                    }
                    let placeholder = TypeKind::Struct(Vec::new());
                    let id = self.nested(parent, property, origin, placeholder, object);
                    let fields = self.fields(id, object, properties, origin, depth)?;
                    self.types[id.0].kind = TypeKind::Struct(fields);
                    return Some(Shape::Ref(id));
                }
                let additional_origin = origin.child("additionalProperties");
                match object.get("additionalProperties") {
                    Some(Value::Object(values)) => {
                        let value =
                            self.shape(parent, values, &additional_origin, property, depth + 1)?;
                        Some(Shape::Map(Box::new(value)))
                    }
                    Some(Value::Bool(true)) => Some(Shape::Map(Box::new(Shape::Json))),
                    Some(Value::Bool(false)) | None => Some(Shape::Json),
                    Some(other) => {
                        self.diagnostics.push(Diagnostic::new(
                            ErrorKind::InvalidSchema,
                            &additional_origin,
                            format!(
                                "expected a schema object or a boolean, found {}",
                                json_type(other)
                            ),
                        ));
                        None
                    }
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
                // Kubernetes marks nullable enums by listing `null`; `Option` covers it.
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

    /// The type's group-version-kind when it has exactly one. Types registered in many
    /// groups (`DeleteOptions`) have no single apiVersion, so they get none.
    fn gvk(&mut self, object: &Map<String, Value>, origin: &Origin) -> Option<Gvk> {
        let key = "x-kubernetes-group-version-kind";
        let list = object.get(key)?;
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
                return None;
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
                    return None;
                }
            }
        }
        match <[Gvk; 1]>::try_from(gvks) {
            Ok([gvk]) => Some(gvk),
            Err(_) => None,
        }
    }
}

/// Enum variants for the values, in schema order, with unique names.
/// The shape of a scalar schema from its `type` and `format`: the one mapping of scalars,
/// for fields, and for the parameters and bodies of operations (`operations/read.rs`).
/// `None` for a type that is no scalar.
pub(crate) fn scalar_shape(ty: &str, format: Option<&str>) -> Option<Shape> {
    Some(match (ty, format) {
        ("string", Some("byte")) => Shape::Runtime(RuntimeType::ByteString),
        ("string", Some("date-time")) => Shape::Runtime(RuntimeType::Time),
        ("string", _) => Shape::String,
        ("integer", Some("int32")) => Shape::I32,
        ("integer", _) => Shape::I64,
        ("number", _) => Shape::F64,
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
        Shape::F64 => false,
        Shape::Vec(inner) | Shape::Map(inner) => shape_is_eq(inner, eq),
        Shape::Ref(id) => eq[id.0],
        Shape::Bool | Shape::I32 | Shape::I64 | Shape::String | Shape::Runtime(_) | Shape::Json => {
            true
        }
    }
}
