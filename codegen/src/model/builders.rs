//! How every struct is built: the builder's name, the constructor's arguments, the schema
//! defaults a new builder starts from, and every method with its name. `emit/builders.rs`
//! only spells these decisions in Rust.
//!
//! The rules:
//!
//! - **Required fields are constructor arguments**, so an object missing one cannot be
//!   built and `build()` cannot fail. A served resource's constructor takes the object's
//!   name (and namespace, when namespaced) first; they go into `metadata`.
//! - **Schema defaults** start a new builder when they carry information. Kubernetes
//!   publishes Go's zero value (`""`, `0`, `false`, `{}`) as the `default` of every
//!   non-pointer field; that says "absent means zero", which an unset field already says,
//!   so zero values are never applied (they would put `"name": ""` or `"resources": {}`
//!   into every object). A required field whose default is applied is no argument.
//! - **Methods**, one set per field except the fixed `apiVersion`/`kind` markers: a setter
//!   named after the field (for lists and maps it replaces the whole collection); for a
//!   list, one that appends an item, for a map, one that inserts an entry, named by the
//!   singular of the field (`tags` → `tag`) or, when the field is no plural or the singular
//!   is taken, `push_<field>` / `insert_<field>`. A resource's builder also has
//!   `metadata_with`, which edits the metadata its constructor filled in through the
//!   metadata's builder. (Only there: such a generic method costs several times what a
//!   setter costs to compile, and elsewhere a nested builder passed to the setter does
//!   the same.) When `metadata` is an extern `ObjectMeta` (k8s-openapi's, for kube), which
//!   has no builder here, the constructor still takes the name and namespace and sets the
//!   struct's public `name` and `namespace` fields (the rest `Default`), and
//!   `metadata_with` hands the closure a `&mut ObjectMeta`.
//! - Names: field setters claim their names first, then the other methods in field order;
//!   a setter whose name is reserved (`build`, `clone`, `into`, operator names such as
//!   `add`) or starts like a borrowing method (`is_`, `as_`, `to_`, `from_`) gets `set_` in
//!   front (`capabilities.add` → `set_add`, `push_add`).

use std::collections::BTreeMap;

use serde_json::Value;

use super::{FieldRole, Resource, RuntimeType, Scope, Shape, TypeDef, TypeId, TypeKind};
use crate::ground::naming::{self, Namespace};

/// The builder of one struct.
#[derive(Clone, Debug, PartialEq)]
pub struct Builder {
    /// The builder type's name (`LeaseBuilder`), unique among its module's types.
    pub name: String,
    /// For a served resource: the name (and namespace) its constructor puts into `metadata`.
    pub metadata: Option<MetadataArgs>,
    /// The constructor's other arguments, one per required field without an applied
    /// default, in field order.
    pub params: Vec<Param>,
    /// The fields a new builder starts with the schema's default in.
    pub presets: Vec<Preset>,
    /// The methods, in field order.
    pub methods: Vec<Method>,
}

/// A constructor argument that sets a required field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The argument's name, unique among the constructor's arguments.
    pub name: String,
    /// The index of the field it sets.
    pub field: usize,
}

/// How a resource's constructor fills in `metadata`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataArgs {
    /// The index of the `metadata` field.
    pub field: usize,
    /// The metadata type (`ObjectMeta`), whose builder takes no arguments.
    pub ty: TypeId,
    /// The constructor argument for the name, and the metadata builder's setter for it (the
    /// struct's field, when `extern_struct`).
    pub name: (String, String),
    /// The same for the namespace, for namespaced resources.
    pub namespace: Option<(String, String)>,
    /// Whether the metadata is an extern `ObjectMeta` without a builder here: a struct with
    /// public `name` and `namespace` fields of `Option<String>` and `Default`, as
    /// k8s-openapi's is. The constructor fills in its fields instead of its builder.
    pub extern_struct: bool,
}

/// A schema default a new builder starts with.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    /// The index of the field.
    pub field: usize,
    /// The value, checked to fit the field's shape.
    pub value: Literal,
}

/// A default value, already matched to the field's shape: an `Int` fits the field's
/// integer type, a `Variant` names a variant of the field's enum, a `Str` on a runtime type
/// is accepted by its `From<&str>`. Lists, maps and structs hold literals of their items.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// A boolean (only `true` at the top: `false` is the zero value).
    Bool(bool),
    /// An integer for an integer, `Number` or `IntOrString` field.
    Int(i64),
    /// An integer past `i64::MAX` (or of a `u32`/`u64` field).
    UInt(u64),
    /// A number for an `f64` or `Number` field, in float form.
    Float(f64),
    /// The decoded bytes of a `ByteString` field's base64 default.
    Bytes(Vec<u8>),
    /// `null` of a nullable value (`None`).
    Null,
    /// Any JSON, for a `serde_json::Value`.
    Json(Value),
    /// The items of a list.
    List(Vec<Literal>),
    /// The entries of a map (or of a struct's extra keys), in order.
    Map(Vec<(String, Literal)>),
    /// A struct's fields by index, in the default's order; the others are unset.
    Struct(Vec<(usize, Literal)>),
    /// A string for a `String`, `Quantity`, `IntOrString` or `DateTime` field, or an enum
    /// value this version of the API does not list.
    Str(String),
    /// The Rust name of the enum variant.
    Variant(String),
}

/// One builder method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Method {
    /// The method's name.
    pub name: String,
    /// The index of the field it changes.
    pub field: usize,
    /// What it does.
    pub kind: MethodKind,
}

/// What a builder method does to its field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodKind {
    /// Sets the field (a whole list or map for collections); the last call wins.
    Set,
    /// Appends one item to a list.
    Push,
    /// Inserts one entry into a map; a later entry under the same key replaces it.
    Insert,
    /// Edits the nested struct (of the `TypeId`) in place through its builder, starting
    /// from a new builder when the field is unset. Only a resource's `metadata` has one:
    /// it is the nested object the constructor fills in.
    Edit(TypeId),
    /// Edits the nested extern struct (of the `TypeId`, an extern `ObjectMeta`) in place
    /// through `&mut`, starting from its `Default` when the field is unset.
    EditInPlace(TypeId),
}

/// Plans the builder of every struct in `types`.
pub(super) fn plan(
    types: &[TypeDef],
    resources: &BTreeMap<TypeId, Resource>,
) -> BTreeMap<TypeId, Builder> {
    let names = builder_names(types);
    let mut builders: BTreeMap<TypeId, Builder> = BTreeMap::new();
    for (index, ty) in types.iter().enumerate() {
        let TypeKind::Struct(fields) = &ty.kind else {
            continue;
        };
        let id = TypeId(index);
        let presets: Vec<Preset> = fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.role == FieldRole::Plain)
            .filter_map(|(i, f)| {
                let value = literal(types, &f.shape, f.default.as_ref()?)?;
                Some(Preset { field: i, value })
            })
            .collect();
        let params = fields
            .iter()
            .enumerate()
            .filter(|(i, f)| {
                f.required && f.role == FieldRole::Plain && !presets.iter().any(|p| p.field == *i)
            })
            .map(|(i, f)| Param {
                name: f.rust_name.clone(),
                field: i,
            })
            .collect();
        builders.insert(
            id,
            Builder {
                name: names[&id].clone(),
                metadata: None,
                params,
                presets,
                methods: Vec::new(),
            },
        );
    }
    let mut method_names: BTreeMap<TypeId, Namespace> = BTreeMap::new();
    for (id, builder) in &mut builders {
        let TypeKind::Struct(fields) = &types[id.0].kind else {
            continue;
        };
        let (methods, names) = methods(types, fields);
        builder.methods = methods;
        method_names.insert(*id, names);
    }
    let metadata: Vec<(TypeId, MetadataArgs)> = resources
        .iter()
        .filter_map(|(id, resource)| metadata_args(types, &builders, resource).map(|m| (*id, m)))
        .collect();
    for (id, args) in metadata {
        if let Some(builder) = builders.get_mut(&id) {
            // A required `metadata` is filled in from the name, so it is no argument of its own.
            builder.params.retain(|param| param.field != args.field);
            let mut taken = Namespace::default();
            taken.reserve(&args.name.0);
            if let Some((namespace, _)) = &args.namespace {
                taken.reserve(namespace);
            }
            for param in &mut builder.params {
                param.name = taken.claim(&param.name);
            }
            // The constructor filled `metadata` in, so it can be edited in place.
            if let (Some(names), TypeKind::Struct(fields)) =
                (method_names.get_mut(&id), &types[id.0].kind)
            {
                let name = format!("{}_with", fields[args.field].rust_name);
                builder.methods.push(Method {
                    name: claim_first(names, &[name]),
                    field: args.field,
                    kind: if args.extern_struct {
                        MethodKind::EditInPlace(args.ty)
                    } else {
                        MethodKind::Edit(args.ty)
                    },
                });
                builder.methods.sort_by_key(|m| m.field);
            }
            builder.metadata = Some(args);
        }
    }
    builders
}

/// `<Type>Builder` for every struct, unique among the types of its module (a schema may
/// itself be called `…Builder`), claimed in type order.
fn builder_names(types: &[TypeDef]) -> BTreeMap<TypeId, String> {
    let mut modules: BTreeMap<&[String], Namespace> = BTreeMap::new();
    for ty in types {
        modules.entry(&ty.module).or_default().reserve(&ty.name);
    }
    types
        .iter()
        .enumerate()
        .filter(|(_, ty)| matches!(ty.kind, TypeKind::Struct(_)))
        .map(|(i, ty)| {
            let names = modules.entry(&ty.module).or_default();
            (TypeId(i), names.claim(&naming::builder_type_name(&ty.name)))
        })
        .collect()
}

/// Names no method takes: `build`; what users call on every builder (`clone`, `into`),
/// which a method would shadow; and the operator traits' method names, which clippy (and
/// readers) expect to mean the operator.
const RESERVED_METHODS: &[&str] = &[
    "build", "clone", "into", "add", "sub", "mul", "div", "rem", "neg", "not", "shl", "shr",
    "bitand", "bitor", "bitxor",
];

/// Prefixes whose methods Rust's naming conventions expect to borrow `self` or to take
/// none (`is_empty`, `as_str`, `to_string`, `from_str`), never to consume it as a builder
/// method does.
const SELF_CONVENTION_PREFIXES: &[&str] = &["as_", "from_", "is_", "to_"];

/// The setters, and the methods that append to lists and insert into maps, with the names
/// they took.
fn methods(types: &[TypeDef], fields: &[super::Field]) -> (Vec<Method>, Namespace) {
    let mut names = Namespace::default();
    for reserved in RESERVED_METHODS {
        names.reserve(reserved);
    }
    let plain = || {
        fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.role == FieldRole::Plain)
    };
    // Setters first, so each field keeps its own name whatever the other methods are called.
    let mut methods: Vec<Method> = plain()
        .map(|(i, f)| Method {
            name: claim_first(
                &mut names,
                &[
                    f.rust_name.clone(),
                    naming::prefixed_method_name("set", &f.rust_name),
                ],
            ),
            field: i,
            kind: MethodKind::Set,
        })
        .collect();
    for (i, field) in plain() {
        let singular = naming::singular_name(&field.rust_name);
        let (kind, fallback) = match resolve(types, &field.shape) {
            Shape::Vec(_) => (
                MethodKind::Push,
                naming::prefixed_method_name("push", &field.rust_name),
            ),
            Shape::Map(_) => (
                MethodKind::Insert,
                naming::prefixed_method_name("insert", &field.rust_name),
            ),
            _ => continue,
        };
        let candidates: Vec<String> = singular.into_iter().chain([fallback]).collect();
        methods.push(Method {
            name: claim_first(&mut names, &candidates),
            field: i,
            kind,
        });
    }
    // Group each field's methods together, setter first, in field order.
    methods.sort_by_key(|m| m.field);
    (methods, names)
}

/// Setter names for fields with these Rust names, by the same rules as struct builders'
/// (reserved names and the `self` conventions get a `set_` prefix).
pub(crate) fn setter_names(rust_names: &[String]) -> Vec<String> {
    let mut names = Namespace::default();
    for reserved in RESERVED_METHODS {
        names.reserve(reserved);
    }
    rust_names
        .iter()
        .map(|name| {
            claim_first(
                &mut names,
                &[name.clone(), naming::prefixed_method_name("set", name)],
            )
        })
        .collect()
}

/// The first free name of `candidates` that follows the `self` conventions, or the last
/// one numbered.
fn claim_first(names: &mut Namespace, candidates: &[String]) -> String {
    let conventional = |name: &str| SELF_CONVENTION_PREFIXES.iter().any(|p| name.starts_with(p));
    if let Some(free) = candidates
        .iter()
        .find(|c| !conventional(c) && names.try_claim(c))
    {
        return free.clone();
    }
    names.claim(candidates.last().map_or("value", String::as_str))
}

/// The shape behind any chain of aliases.
pub(crate) fn resolve<'a>(types: &'a [TypeDef], shape: &'a Shape) -> &'a Shape {
    let mut shape = shape;
    // Alias cycles are rejected by `cycles.rs`; the bound only guards against surprises.
    for _ in 0..types.len() {
        match shape {
            Shape::Ref(id) => match &types[id.0].kind {
                TypeKind::Alias(target) => shape = target,
                // The companion's alias of a runtime type is still that type (a user's
                // mapping, k8s-openapi's `Quantity`, is not).
                TypeKind::Extern(e) if e.companion => {
                    return super::wellknown::runtime_shape(&types[id.0].schema_name)
                        .unwrap_or(shape);
                }
                _ => return shape,
            },
            _ => return shape,
        }
    }
    shape
}

/// The default worth applying for a value of `shape`: `None` for zero values (`false`, `0`,
/// `""`, `[]`, `{}`) and for defaults that cannot be spelled as a literal of the field's type
/// (a value that does not fit it, an object without a required field, and `meta/v1.Time`
/// and `MicroTime`, which have no constant constructor).
fn literal(types: &[TypeDef], shape: &Shape, default: &Value) -> Option<Literal> {
    if crate::load::is_zero(default) {
        return None;
    }
    value_literal(types, shape, default, 0)
}

/// Any JSON value as a literal of `shape` (zero values included), if it fits.
fn value_literal(types: &[TypeDef], shape: &Shape, value: &Value, depth: usize) -> Option<Literal> {
    // Defaults are small; a deep one is not worth a deep literal.
    if depth > 16 {
        return None;
    }
    let int = value.as_i64();
    let string = value.as_str();
    match resolve(types, shape) {
        Shape::Nullable(_) if value.is_null() => Some(Literal::Null),
        Shape::Nullable(inner) => value_literal(types, inner, value, depth + 1),
        Shape::Bool => value.as_bool().map(Literal::Bool),
        Shape::I32 | Shape::Runtime(RuntimeType::IntOrString) if int.is_some() => {
            let n = int?;
            i32::try_from(n).ok().map(|_| Literal::Int(n))
        }
        Shape::U32 => u32::try_from(value.as_u64()?)
            .ok()
            .map(|n| Literal::UInt(n.into())),
        Shape::U64 => value.as_u64().map(Literal::UInt),
        Shape::I64 => int.map(Literal::Int),
        // A whole-number float is an integer here, as it is when read.
        Shape::Integer => int
            .or_else(|| value.as_f64().and_then(kubeforge_runtime::integer::whole))
            .map(Literal::Int),
        Shape::F64 => value.as_f64().filter(|n| n.is_finite()).map(Literal::Float),
        Shape::Runtime(RuntimeType::Number) => match value.as_number()? {
            n if n.is_f64() => n.as_f64().map(Literal::Float),
            n => n
                .as_i64()
                .map(Literal::Int)
                .or_else(|| n.as_u64().map(Literal::UInt)),
        },
        Shape::Runtime(RuntimeType::ByteString) => base64_decode(string?).map(Literal::Bytes),
        Shape::String
        | Shape::Runtime(
            RuntimeType::Quantity | RuntimeType::IntOrString | RuntimeType::DateTime,
        ) => string.map(|s| Literal::Str(s.to_owned())),
        Shape::Runtime(RuntimeType::Time | RuntimeType::MicroTime) | Shape::I32 => None,
        Shape::Json => Some(Literal::Json(value.clone())),
        Shape::Vec(item) => value
            .as_array()?
            .iter()
            .map(|v| value_literal(types, item, v, depth + 1))
            .collect::<Option<Vec<_>>>()
            .map(Literal::List),
        Shape::Map(inner) => value
            .as_object()?
            .iter()
            .map(|(k, v)| Some((k.clone(), value_literal(types, inner, v, depth + 1)?)))
            .collect::<Option<Vec<_>>>()
            .map(Literal::Map),
        Shape::Ref(id) => match &types[id.0].kind {
            TypeKind::Enum(variants) => {
                let value = string?;
                Some(match variants.iter().find(|v| v.value == value) {
                    Some(variant) => Literal::Variant(variant.rust_name.clone()),
                    None => Literal::Str(value.to_owned()),
                })
            }
            TypeKind::Struct(fields) => struct_literal(types, fields, value.as_object()?, depth),
            _ => None,
        },
    }
}

/// The schema of Kubernetes' object metadata, the one extern metadata type whose fields are known.
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// An object default as the struct's fields: every required field must be given, and keys
/// that are no property go to the extra-keys field (or the default is not applied).
fn struct_literal(
    types: &[TypeDef],
    fields: &[super::Field],
    object: &serde_json::Map<String, Value>,
    depth: usize,
) -> Option<Literal> {
    let mut values: Vec<(usize, Literal)> = Vec::new();
    let mut extra: Vec<(String, Literal)> = Vec::new();
    let extra_field = fields.iter().position(|f| f.role == FieldRole::Extra);
    for (key, value) in object {
        match fields
            .iter()
            .position(|f| f.role == FieldRole::Plain && f.json_name == *key)
        {
            Some(index) => {
                if value.is_null()
                    && !matches!(resolve(types, &fields[index].shape), Shape::Nullable(_))
                {
                    continue;
                }
                values.push((
                    index,
                    value_literal(types, &fields[index].shape, value, depth + 1)?,
                ));
            }
            None => {
                let field = &fields[extra_field?];
                extra.push((
                    key.clone(),
                    value_literal(types, &field.shape, value, depth + 1)?,
                ));
            }
        }
    }
    let complete = fields.iter().enumerate().all(|(i, f)| {
        !f.required || f.role != FieldRole::Plain || values.iter().any(|(v, _)| *v == i)
    });
    if !complete {
        return None;
    }
    if let Some(index) = extra_field.filter(|_| !extra.is_empty()) {
        values.push((index, Literal::Map(extra)));
    }
    Some(Literal::Struct(values))
}

/// Standard base64 (with or without padding), as Kubernetes writes `[]byte`.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut bits: u32 = 0;
    let mut count = 0;
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for c in text.trim_end_matches('=').bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(value);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push(u8::try_from((bits >> count) & 0xff).ok()?);
        }
    }
    Some(out)
}

/// The name (and namespace) arguments of a resource's constructor, when its `metadata` is
/// an extern `ObjectMeta` or a struct with `name` (and `namespace`) strings and a builder without arguments.
fn metadata_args(
    types: &[TypeDef],
    builders: &BTreeMap<TypeId, Builder>,
    resource: &Resource,
) -> Option<MetadataArgs> {
    let scope = resource.scope;
    let super::MetadataField {
        field, ty: meta, ..
    } = resource.metadata?;
    if matches!(types[meta.0].kind, TypeKind::Extern(_)) && types[meta.0].schema_name == OBJECT_META
    {
        return Some(MetadataArgs {
            field,
            ty: meta,
            name: ("name".to_owned(), "name".to_owned()),
            namespace: (scope == Scope::Namespaced)
                .then(|| ("namespace".to_owned(), "namespace".to_owned())),
            extern_struct: true,
        });
    }
    let meta_builder = builders.get(&meta).filter(|b| b.params.is_empty())?;
    let TypeKind::Struct(meta_fields) = &types[meta.0].kind else {
        return None;
    };
    let setter = |json: &str| -> Option<String> {
        let index = meta_fields
            .iter()
            .position(|f| f.json_name == json && f.shape == Shape::String)?;
        meta_builder
            .methods
            .iter()
            .find(|m| m.field == index && m.kind == MethodKind::Set)
            .map(|m| m.name.clone())
    };
    let name = ("name".to_owned(), setter("name")?);
    let namespace = match scope {
        Scope::Namespaced => Some(("namespace".to_owned(), setter("namespace")?)),
        Scope::Cluster => None,
    };
    Some(MetadataArgs {
        field,
        ty: meta,
        name,
        namespace,
        extern_struct: false,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::{Field, Gvk};
    use crate::{Origin, model::Variant};

    fn field(json: &str, shape: Shape, required: bool, default: Option<Value>) -> Field {
        Field {
            json_name: json.to_owned(),
            rust_name: naming::field_name(json),
            shape,
            required,
            boxed: false,
            description: None,
            default,
            role: FieldRole::Plain,
            patch: None,
            origin: Origin::root(std::path::Path::new("test.json")),
        }
    }

    fn ty(name: &str, kind: TypeKind) -> TypeDef {
        TypeDef {
            name: name.to_owned(),
            module: vec!["v1".to_owned()],
            file: naming::snake_name(name),
            schema_name: format!("v1.{name}"),
            origin: Origin::root(std::path::Path::new("test.json")),
            description: None,
            kind,
            gvk: None,
            gvks: Vec::new(),
            derive_default: false,
            derive_eq: false,
        }
    }

    #[test]
    fn zero_defaults_are_not_applied_and_required_fields_are_arguments() {
        let types = vec![ty(
            "Port",
            TypeKind::Struct(vec![
                field("containerPort", Shape::I32, true, Some(json!(0))),
                field("name", Shape::String, false, Some(json!(""))),
                field("protocol", Shape::String, false, Some(json!("TCP"))),
                field("hostIP", Shape::String, true, Some(json!("0.0.0.0"))),
                field("ready", Shape::Bool, false, Some(json!(false))),
                field("weight", Shape::I32, false, Some(json!(1_i64 << 40))),
            ]),
        )];
        let builders = plan(&types, &BTreeMap::new());
        let port = &builders[&TypeId(0)];
        assert_eq!(port.name, "PortBuilder");
        assert_eq!(
            port.params,
            vec![Param {
                name: "container_port".to_owned(),
                field: 0
            }]
        );
        assert_eq!(
            port.presets,
            vec![
                Preset {
                    field: 2,
                    value: Literal::Str("TCP".to_owned())
                },
                Preset {
                    field: 3,
                    value: Literal::Str("0.0.0.0".to_owned())
                },
            ]
        );
    }

    #[test]
    fn list_map_and_nested_methods_are_named_from_the_model() {
        let types = vec![
            ty(
                "Spec",
                TypeKind::Struct(vec![
                    field("tags", Shape::Vec(Box::new(Shape::String)), false, None),
                    field("tag", Shape::String, false, None),
                    field("env", Shape::Vec(Box::new(Shape::String)), false, None),
                    field("labels", Shape::Map(Box::new(Shape::String)), false, None),
                    field("data", Shape::Map(Box::new(Shape::String)), false, None),
                    field("policy", Shape::Ref(TypeId(1)), false, None),
                    field("build", Shape::Bool, false, None),
                    field("isDefault", Shape::Bool, false, None),
                    field("add", Shape::Vec(Box::new(Shape::String)), false, None),
                    field("mode", Shape::Ref(TypeId(2)), false, Some(json!("Fast"))),
                ]),
            ),
            ty("Policy", TypeKind::Struct(vec![])),
            ty(
                "Mode",
                TypeKind::Enum(vec![Variant {
                    value: "Fast".to_owned(),
                    rust_name: "Fast".to_owned(),
                }]),
            ),
            ty("SpecBuilder", TypeKind::Alias(Shape::String)),
        ];
        let builders = plan(&types, &BTreeMap::new());
        let spec = &builders[&TypeId(0)];
        assert_eq!(spec.name, "SpecBuilder2");
        let methods: Vec<(&str, usize, MethodKind)> = spec
            .methods
            .iter()
            .map(|m| (m.name.as_str(), m.field, m.kind))
            .collect();
        assert_eq!(
            methods,
            vec![
                ("tags", 0, MethodKind::Set),
                ("push_tags", 0, MethodKind::Push),
                ("tag", 1, MethodKind::Set),
                ("env", 2, MethodKind::Set),
                ("push_env", 2, MethodKind::Push),
                ("labels", 3, MethodKind::Set),
                ("label", 3, MethodKind::Insert),
                ("data", 4, MethodKind::Set),
                ("insert_data", 4, MethodKind::Insert),
                ("policy", 5, MethodKind::Set),
                ("set_build", 6, MethodKind::Set),
                ("set_is_default", 7, MethodKind::Set),
                ("set_add", 8, MethodKind::Set),
                ("push_add", 8, MethodKind::Push),
                ("mode", 9, MethodKind::Set),
            ]
        );
        assert_eq!(
            spec.presets,
            vec![Preset {
                field: 9,
                value: Literal::Variant("Fast".to_owned())
            }]
        );
    }

    #[test]
    fn resources_take_name_and_namespace_into_metadata() {
        let mut lease = ty(
            "Lease",
            TypeKind::Struct(vec![
                field("metadata", Shape::Ref(TypeId(1)), true, None),
                field("name", Shape::String, true, None),
            ]),
        );
        lease.gvk = Some(Gvk {
            group: "coordination.k8s.io".to_owned(),
            version: "v1".to_owned(),
            kind: "Lease".to_owned(),
        });
        let meta = ty(
            "ObjectMeta",
            TypeKind::Struct(vec![
                field("name", Shape::String, false, None),
                field("namespace", Shape::String, false, None),
            ]),
        );
        let resources = BTreeMap::from([(
            TypeId(0),
            Resource {
                gvk: lease.gvk.clone().unwrap_or_else(|| unreachable!()),
                plural: "leases".to_owned(),
                scope: Scope::Namespaced,
                subresources: Vec::new(),
                metadata: match &lease.kind {
                    TypeKind::Struct(fields) => crate::model::MetadataField::of(fields),
                    _ => None,
                },
            },
        )]);
        let builders = plan(&[lease, meta], &resources);
        let lease = &builders[&TypeId(0)];
        assert_eq!(
            lease.metadata,
            Some(MetadataArgs {
                field: 0,
                ty: TypeId(1),
                name: ("name".to_owned(), "name".to_owned()),
                namespace: Some(("namespace".to_owned(), "namespace".to_owned())),
                extern_struct: false,
            })
        );
        assert!(
            lease
                .methods
                .iter()
                .any(|m| m.name == "metadata_with" && m.kind == MethodKind::Edit(TypeId(1)))
        );
        // The required `metadata` comes from the name, so it is no argument; the required
        // field `name` must not shadow the object's name argument.
        assert_eq!(
            lease.params,
            vec![Param {
                name: "name_2".to_owned(),
                field: 1
            }]
        );
    }
}
