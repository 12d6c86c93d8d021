//! Kubernetes' protobuf encoding of the generated types: each struct whose schema has a
//! message among the `.proto` files (`Config::proto`) gets the message's name, and each
//! field its number and how Go writes it. Everything is decided here; emit spells it
//! (`emit/protobuf.rs`).
//!
//! A message is matched to its schema by name (`k8s.io.api.core.v1.Pod` ↔
//! `io.k8s.api.core.v1.Pod`), a field by name (Kubernetes' protobuf names are the JSON
//! names). A field on one side only, or of a type the schema's shape cannot hold, is a
//! warning (`protobuf-mismatch`) at the schema, naming the `.proto` file and line: a field
//! only the message has is kept as unknown bytes when decoding, a field only the schema has
//! is not written.
//!
//! How each field is written follows Go (`go-to-protobuf`) where the `.proto` files tell:
//! a required field is always written; an optional one is written when set and reads back
//! as set, zero or not (`replicas: 0` stays 0); `Time`, bytes and raw JSON read back as unset
//! when zero (Go's zero time and nil bytes are what JSON leaves out). The files do not say
//! which optional scalars are Go values (always written, zero included) and which are
//! pointers (written when set): every one is taken as a pointer, the choice that never
//! changes what Go reads. Writing a value field's zero could set a pointer Go defaults
//! (`replicas`, `automountServiceAccountToken`), and reading a zero as unset could drop an
//! explicit `0` or `false`; as taken, an unset value field is left out where Go writes its
//! zero (Go reads the same zero), and a zero Go wrote reads as set (`Some("")`) where JSON
//! leaves it out.

use std::collections::{BTreeMap, BTreeSet};

use super::builders::resolve;
use super::{Field, FieldRole, RuntimeType, Shape, TypeDef, TypeId, TypeKind};
use crate::diagnostics::{Diagnostic, ErrorKind};
use crate::load::proto::{ProtoField, ProtoSet, ProtoType};

/// A struct's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The message's full name (`k8s.io.api.core.v1.Pod`).
    pub name: String,
    /// The fields written, in field-number order (as Go writes them).
    pub fields: Vec<Item>,
    /// The struct's field that keeps unknown fields (`ExtraFields`), if it has one.
    pub unknown: Option<usize>,
}

/// One field of a message: a property's, or an embedded struct's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A property.
    Field(FieldCodec),
    /// A Go struct embedded in the struct (`VolumeSource` in `Volume`): its properties are
    /// the struct's own in JSON, and one message field in protobuf, always written.
    Embedded {
        /// The field number.
        number: u32,
        /// The message field's name (`volumeSource`).
        name: String,
        /// Its fields, in field-number order.
        fields: Vec<Item>,
    },
}

impl Item {
    /// The field number.
    pub fn number(&self) -> u32 {
        match self {
            Item::Field(codec) => codec.number,
            Item::Embedded { number, .. } => *number,
        }
    }
}

/// One property's field of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldCodec {
    /// The struct field's index.
    pub field: usize,
    /// The field number.
    pub number: u32,
    /// How it is written and read.
    pub encoding: Encoding,
}

/// How a field is written and read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// A required field (`T`): always written, read into.
    Required,
    /// A Go pointer or struct (`Option<T>`): written when set; present reads as `Some`.
    Pointer,
    /// `Time`, bytes, raw JSON (`Option<T>`): written when set; the zero reads as `None`.
    NonZero,
    /// A list, one key per element; `optional`: `Option<Vec<T>>`, no element reads as `None`.
    Repeated {
        /// Whether the field is an `Option`.
        optional: bool,
    },
    /// A map, as entries in key order.
    Map {
        /// Whether the field is an `Option`.
        optional: bool,
    },
    /// A map whose values are lists, each in a one-field wrapper message (`ExtraValue`).
    ItemsMap,
    /// An empty object (`Option<serde_json::Value>`, a schema without properties) as a
    /// message without fields: written when set, read as `{}`.
    Empty,
}

/// The messages of the structs that have one, and the warnings of matching them.
pub fn plan(types: &[TypeDef], protos: &ProtoSet) -> (BTreeMap<TypeId, Message>, Vec<Diagnostic>) {
    // Every type with a message first, so that a field can refer to any of them.
    let named: BTreeMap<TypeId, String> = types
        .iter()
        .enumerate()
        .filter(|(_, ty)| match &ty.kind {
            TypeKind::Struct(_) => true,
            TypeKind::Extern(e) => e.companion,
            _ => false,
        })
        .filter_map(|(index, ty)| {
            let name = ProtoSet::message_name(&ty.schema_name)?;
            protos.get(&name).map(|_| (TypeId(index), name))
        })
        .collect();
    let mut named = named;
    loop {
        let (messages, mut warnings) = plan_once(types, protos, &named);
        // A struct with a required property no field holds cannot be decoded: it gets no
        // protobuf code, and neither do the fields that refer to it (planned again).
        let dropped: Vec<TypeId> = messages
            .iter()
            .filter(|(id, message)| {
                let TypeKind::Struct(fields) = &types[id.0].kind else {
                    return false;
                };
                let mut held = BTreeSet::new();
                collect(&message.fields, &mut held);
                fields.iter().enumerate().any(|(index, f)| {
                    f.role == FieldRole::Plain && f.required && !held.contains(&index)
                })
            })
            .map(|(id, _)| *id)
            .collect();
        if dropped.is_empty() {
            return (messages, warnings);
        }
        for id in dropped {
            named.remove(&id);
        }
        warnings.clear();
    }
}

/// The struct fields `items` hold.
fn collect(items: &[Item], held: &mut BTreeSet<usize>) {
    for item in items {
        match item {
            Item::Field(codec) => {
                held.insert(codec.field);
            }
            Item::Embedded { fields, .. } => collect(fields, held),
        }
    }
}

fn plan_once(
    types: &[TypeDef],
    protos: &ProtoSet,
    named: &BTreeMap<TypeId, String>,
) -> (BTreeMap<TypeId, Message>, Vec<Diagnostic>) {
    let mut messages = BTreeMap::new();
    let mut warnings = Vec::new();
    for (id, name) in named {
        let ty = &types[id.0];
        let TypeKind::Struct(fields) = &ty.kind else {
            // The companion's type: its impl is there.
            messages.insert(
                *id,
                Message {
                    name: name.clone(),
                    fields: Vec::new(),
                    unknown: None,
                },
            );
            continue;
        };
        let Some(proto) = protos.get(name) else {
            continue;
        };
        let unknown = fields.iter().position(|f| f.role == FieldRole::Extra);
        let mut open: BTreeSet<usize> = fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.role == FieldRole::Plain)
            .map(|(index, _)| index)
            .collect();
        let mut context = Matching {
            types,
            protos,
            named,
            ty,
            warnings: &mut warnings,
        };
        let codecs = context.items(name, fields, &mut open);
        for index in open {
            let field = &fields[index];
            warnings.push(Diagnostic::new(
                ErrorKind::ProtobufMismatch,
                &field.origin,
                format!(
                    "expected property `{}` of `{}` to be a field of message `{name}` ({}:{}), but the message has no such field; the property is left out of the protobuf encoding",
                    field.json_name,
                    ty.schema_name,
                    proto.file.display(),
                    proto.line
                ),
            ));
        }
        messages.insert(
            *id,
            Message {
                name: name.clone(),
                fields: codecs,
                unknown,
            },
        );
    }
    (messages, warnings)
}

fn super_shape(types: &[TypeDef], shape: &Shape) -> String {
    match resolve(types, shape) {
        Shape::Ref(id) => types[id.0].schema_name.clone(),
        Shape::Vec(_) => "a list".into(),
        Shape::Map(_) => "a map".into(),
        Shape::Json => "any JSON".into(),
        Shape::Runtime(r) => r.name().into(),
        Shape::Nullable(_) => "a nullable value".into(),
        other => format!("{other:?}").to_lowercase(),
    }
}

/// What a single value (no list or map) of `shape` is written as, if it fits `ty`; `Err`
/// says why not.
fn single(
    types: &[TypeDef],
    named: &BTreeMap<TypeId, String>,
    shape: &Shape,
    ty: &ProtoType,
) -> Result<Encoding, String> {
    let shape = resolve(types, shape);
    let fits = match (shape, ty) {
        (Shape::String, ProtoType::Scalar("string"))
        | (Shape::Bool, ProtoType::Scalar("bool"))
        | (Shape::I32 | Shape::I64 | Shape::Integer, ProtoType::Scalar("int32" | "int64"))
        | (Shape::U32 | Shape::U64, ProtoType::Scalar("uint32" | "uint64"))
        | (Shape::Runtime(RuntimeType::Number), ProtoType::Scalar("double")) => {
            Some(Encoding::Pointer)
        }
        (Shape::Runtime(RuntimeType::ByteString), ProtoType::Scalar("bytes")) => {
            Some(Encoding::NonZero)
        }
        (Shape::Runtime(RuntimeType::Time), ProtoType::Message(m))
            if m == "k8s.io.apimachinery.pkg.apis.meta.v1.Time" =>
        {
            Some(Encoding::NonZero)
        }
        (Shape::Runtime(RuntimeType::MicroTime), ProtoType::Message(m))
            if m == "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime" =>
        {
            Some(Encoding::NonZero)
        }
        (Shape::Runtime(RuntimeType::Quantity), ProtoType::Message(m))
            if m == "k8s.io.apimachinery.pkg.api.resource.Quantity" =>
        {
            Some(Encoding::Pointer)
        }
        (Shape::Runtime(RuntimeType::IntOrString), ProtoType::Message(m))
            if m == "k8s.io.apimachinery.pkg.util.intstr.IntOrString" =>
        {
            Some(Encoding::Pointer)
        }
        (Shape::Json, ProtoType::Message(m)) if is_raw(m) => Some(Encoding::NonZero),
        (Shape::Ref(id), ProtoType::Message(m)) => match &types[id.0].kind {
            TypeKind::Extern(e) if e.companion && is_raw(m) => Some(Encoding::NonZero),
            _ if named.get(id) == Some(m) => Some(Encoding::Pointer),
            _ => None,
        },
        _ => None,
    };
    fits.ok_or_else(|| match ty {
        ProtoType::Scalar(s) => format!("the field is a protobuf `{s}`"),
        ProtoType::Message(m) => format!("the field is message `{m}`"),
    })
}

/// The messages that carry JSON text in `raw`.
fn is_raw(message: &str) -> bool {
    matches!(
        message,
        "k8s.io.apimachinery.pkg.runtime.RawExtension"
            | "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1"
            | "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON"
            | "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1beta1.JSON"
    )
}

/// How field `shape` (required or not) is written as `proto`.
fn encoding(
    types: &[TypeDef],
    protos: &ProtoSet,
    named: &BTreeMap<TypeId, String>,
    shape: &Shape,
    required: bool,
    proto: &ProtoField,
) -> Result<Encoding, String> {
    let shape = resolve(types, shape);
    if let Shape::Nullable(_) = shape {
        return Err("a nullable property has no protobuf form here".into());
    }
    if proto.repeated {
        if let ProtoType::Message(entry) = &proto.ty
            && let Some(value) = protos.map_value(entry)
        {
            let Shape::Map(inner) = shape else {
                return Err("the field is a map and the property is not".into());
            };
            if let ProtoType::Message(wrapper) = value
                && let Some(items) = wrapper_items(protos, wrapper)
            {
                let Shape::Vec(element) = resolve(types, inner) else {
                    return Err(format!(
                        "the map's values are lists in `{wrapper}` and the property's are not"
                    ));
                };
                single(types, named, element, &items.ty)?;
                return if required {
                    Err("a required map of lists has no protobuf form here".into())
                } else {
                    Ok(Encoding::ItemsMap)
                };
            }
            single(types, named, inner, value)?;
            return Ok(Encoding::Map {
                optional: !required,
            });
        }
        let Shape::Vec(inner) = shape else {
            return Err("the field is repeated and the property is no list".into());
        };
        single(types, named, inner, &proto.ty)?;
        return Ok(Encoding::Repeated {
            optional: !required,
        });
    }
    if let (Shape::Json, ProtoType::Message(m)) = (shape, &proto.ty)
        && protos.get(m).is_some_and(|m| m.fields.is_empty())
        && !required
    {
        return Ok(Encoding::Empty);
    }
    let encoding = single(types, named, shape, &proto.ty)?;
    Ok(if required {
        Encoding::Required
    } else {
        encoding
    })
}

/// The one repeated field of a wrapper message (`ExtraValue`: `repeated string items = 1`).
fn wrapper_items<'a>(protos: &'a ProtoSet, name: &str) -> Option<&'a ProtoField> {
    let message = protos.get(name)?;
    match &message.fields[..] {
        [only] if only.repeated && only.name == "items" => Some(only),
        _ => None,
    }
}

/// What matching a message's fields needs.
struct Matching<'a, 'w> {
    types: &'a [TypeDef],
    protos: &'a ProtoSet,
    named: &'a BTreeMap<TypeId, String>,
    ty: &'a TypeDef,
    warnings: &'w mut Vec<Diagnostic>,
}

/// A name as compared: letters and digits, lower case (`aPIGroup` and `apiGroup`,
/// `$ref` and `ref`, `x-kubernetes-embedded-resource` and `xKubernetesEmbeddedResource`).
fn loose(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

impl Matching<'_, '_> {
    /// The items of message `name` over the properties still `open` (which it takes).
    fn items(&mut self, name: &str, fields: &[Field], open: &mut BTreeSet<usize>) -> Vec<Item> {
        let Some(proto) = self.protos.get(name) else {
            return Vec::new();
        };
        let mut items = Vec::new();
        for proto_field in &proto.fields {
            let found = open
                .iter()
                .copied()
                .find(|i| fields[*i].json_name == proto_field.name)
                .or_else(|| {
                    open.iter()
                        .copied()
                        .find(|i| loose(&fields[*i].json_name) == loose(&proto_field.name))
                });
            if let Some(index) = found {
                open.remove(&index);
                let field = &fields[index];
                match encoding(
                    self.types,
                    self.protos,
                    self.named,
                    &field.shape,
                    field.required,
                    proto_field,
                ) {
                    Ok(encoding) => items.push(Item::Field(FieldCodec {
                        field: index,
                        number: proto_field.number,
                        encoding,
                    })),
                    Err(why) => self.warnings.push(Diagnostic::new(
                        ErrorKind::ProtobufMismatch,
                        &field.origin,
                        format!(
                            "expected field `{}` of message `{name}` ({}:{}) to fit property `{}` of `{}` ({}), but {why}; it is read as an unknown field and the property is left out of the protobuf encoding",
                            proto_field.name,
                            proto.file.display(),
                            proto_field.line,
                            field.json_name,
                            self.ty.schema_name,
                            super_shape(self.types, &field.shape),
                        ),
                    )),
                }
                continue;
            }
            // A Go struct embedded in this one: its message's fields are properties here.
            if let ProtoType::Message(inner) = &proto_field.ty
                && !proto_field.repeated
                && let Some(inner_message) = self.protos.get(inner)
                && inner_message.fields.iter().any(|f| {
                    open.iter().any(|i| {
                        fields[*i].json_name == f.name
                            || loose(&fields[*i].json_name) == loose(&f.name)
                    })
                })
            {
                let inner_items = self.items(inner, fields, open);
                items.push(Item::Embedded {
                    number: proto_field.number,
                    name: proto_field.name.clone(),
                    fields: inner_items,
                });
                continue;
            }
            self.warnings.push(Diagnostic::new(
                ErrorKind::ProtobufMismatch,
                &self.ty.origin,
                format!(
                    "expected field `{}` of message `{name}` ({}:{}) to be a property of `{}`, but the schema has no such property; the field is kept as an unknown field when decoding",
                    proto_field.name,
                    proto.file.display(),
                    proto_field.line,
                    self.ty.schema_name
                ),
            ));
        }
        items.sort_by_key(Item::number);
        items
    }
}
