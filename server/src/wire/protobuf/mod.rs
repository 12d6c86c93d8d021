//! Kubernetes' protobuf encoding ("Kubernetes API Concepts", Protobuf encoding), which real
//! `kubectl` and client-go's typed clients use for built-in kinds: a body is `k8s\0` and a
//! `runtime.Unknown` whose `typeMeta` names the kind and whose `raw` is the object's message.
//!
//! The messages are the upstream `generated.proto` descriptors of Kubernetes 1.35, which the
//! build script takes from the `k8s-rs-pb` crate (protoc's descriptors of the `.proto` files
//! of k8s.io/api, apimachinery, apiextensions-apiserver and kube-aggregator) and writes as a
//! `FileDescriptorSet`; this module reads that set and transcodes between the wire format and
//! the JSON the server stores, with Kubernetes' JSON conventions: `Time` as RFC 3339,
//! `IntOrString` as a number or a string, `Quantity` as a string, `RawExtension` and
//! `FieldsV1` as embedded JSON, bytes as base64, maps as objects, wrapper messages of one
//! repeated `items` field (`ExtraValue`) as arrays. A server given the `.proto` files of the
//! release it serves (`Schema::from_proto_dir`, `serve --proto`) uses theirs instead.
//!
//! It writes what Go's generated `Marshal` writes, byte for byte: fields by number, map
//! entries by key, Go's zero `Time` of a value field as the empty message; the test
//! `every_served_fixture_transcodes_as_go_encodes_it` holds it to every fixture of
//! Kubernetes 1.36 whose kind `swagger.json` names, both ways.
//!
//! Go writes every field of a non-pointer type, zero or not, and JSON leaves the zero ones
//! out (`omitempty`): a decoded singular scalar that is zero (`""`, `0`, `false`) is left
//! out likewise. A pointer field set to its zero value (`replicas: 0`) therefore reads as
//! unset: the descriptors cannot tell the two apart.

use std::collections::HashMap;
use std::sync::OnceLock;

use base64::Engine;
use kubeforge_runtime::{duration, group_version};
use serde_json::{Map, Value};

mod reader;
use reader::{
    FIXED32, FIXED64, Reader, VARINT, Wire, is_scalar, put_len, put_varint, put_varint_field, utf8,
    wire_of,
};

/// The envelope's magic prefix.
const MAGIC: &[u8] = b"k8s\0";

const DESCRIPTORS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/kubernetes.protoset"));

const META: &str = "apimachinery.pkg.apis.meta.v1";

/// Descriptor field types (descriptor.proto `FieldDescriptorProto.Type`).
mod ty {
    pub(super) const DOUBLE: u8 = 1;
    pub(super) const FLOAT: u8 = 2;
    pub(super) const INT64: u8 = 3;
    pub(super) const UINT64: u8 = 4;
    pub(super) const INT32: u8 = 5;
    pub(super) const FIXED64: u8 = 6;
    pub(super) const FIXED32: u8 = 7;
    pub(super) const BOOL: u8 = 8;
    pub(super) const STRING: u8 = 9;
    pub(super) const MESSAGE: u8 = 11;
    pub(super) const BYTES: u8 = 12;
    pub(super) const UINT32: u8 = 13;
    pub(super) const ENUM: u8 = 14;
    pub(super) const SFIXED32: u8 = 15;
    pub(super) const SFIXED64: u8 = 16;
    pub(super) const SINT32: u8 = 17;
    pub(super) const SINT64: u8 = 18;
}

#[derive(Debug, Default)]
struct Field {
    number: u64,
    name: String,
    ty: u8,
    repeated: bool,
    /// The message type, without the leading dot.
    type_name: String,
}

#[derive(Debug, Default)]
struct Message {
    /// In the `.proto` file's order, which is the Go struct's and so the JSON's.
    fields: Vec<Field>,
    /// The indexes of `fields` by field number: the order Go's generated `Marshal` writes
    /// them in, whatever order the `.proto` file declares them in (`PodSpec` declares
    /// `initContainers = 20` before `containers = 2`; `OwnerReference` `apiVersion = 5`
    /// first).
    by_number: Vec<usize>,
    map_entry: bool,
}

/// Every message of the descriptor set, by full name without the `k8s.io.` prefix
/// (`api.core.v1.ConfigMap`).
#[derive(Debug, Default)]
pub(crate) struct Schema {
    messages: HashMap<String, Message>,
}

/// The built-in messages (Kubernetes 1.35's, from `k8s-rs-pb`).
pub(crate) fn builtin() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| Schema::parse(DESCRIPTORS).unwrap_or_default())
}

impl Schema {
    /// Reads a `FileDescriptorSet` (descriptor.proto): files (1) with a package (2) and
    /// messages (4); messages with a name (1), fields (2), nested messages (3) and options
    /// (7, `map_entry` = 7); fields with a name (1), number (3), label (4), type (5) and
    /// type name (6).
    fn parse(bytes: &[u8]) -> Result<Schema, String> {
        let mut schema = Schema::default();
        for (number, value) in Reader::new(bytes).fields()? {
            if let (1, Wire::Len(file)) = (number, value) {
                let mut package = String::new();
                let mut messages = Vec::new();
                for (number, value) in Reader::new(file).fields()? {
                    match (number, value) {
                        (2, Wire::Len(text)) => package = unprefixed(&utf8(text)?).to_owned(),
                        (4, Wire::Len(message)) => messages.push(message),
                        _ => {}
                    }
                }
                for message in messages {
                    schema.message(&package, message)?;
                }
            }
        }
        Ok(schema)
    }

    fn message(&mut self, scope: &str, bytes: &[u8]) -> Result<(), String> {
        let mut name = String::new();
        let mut message = Message::default();
        let mut nested = Vec::new();
        for (number, value) in Reader::new(bytes).fields()? {
            match (number, value) {
                (1, Wire::Len(text)) => name = utf8(text)?,
                (2, Wire::Len(field)) => message.fields.push(Self::field(field)?),
                (3, Wire::Len(inner)) => nested.push(inner),
                (7, Wire::Len(options)) => {
                    for (number, value) in Reader::new(options).fields()? {
                        if let (7, Wire::Varint(flag)) = (number, value) {
                            message.map_entry = flag != 0;
                        }
                    }
                }
                _ => {}
            }
        }
        let full = format!("{scope}.{name}");
        message.by_number = (0..message.fields.len()).collect();
        message.by_number.sort_by_key(|&i| message.fields[i].number);
        for inner in nested {
            self.message(&full, inner)?;
        }
        self.messages.insert(full, message);
        Ok(())
    }

    fn field(bytes: &[u8]) -> Result<Field, String> {
        let mut field = Field::default();
        for (number, value) in Reader::new(bytes).fields()? {
            match (number, value) {
                (1, Wire::Len(text)) => field.name = utf8(text)?,
                (3, Wire::Varint(n)) => field.number = n,
                (4, Wire::Varint(label)) => field.repeated = label == 3,
                (5, Wire::Varint(t)) => field.ty = u8::try_from(t).unwrap_or(0),
                (6, Wire::Len(text)) => {
                    field.type_name = unprefixed(utf8(text)?.trim_start_matches('.')).to_owned();
                }
                _ => {}
            }
        }
        Ok(field)
    }
}

/// A package or message name without the `k8s.io.` that Kubernetes' own `.proto` files
/// start their packages with and `k8s-rs-pb`'s copies leave out.
fn unprefixed(name: &str) -> &str {
    name.strip_prefix("k8s.io.").unwrap_or(name)
}

impl Schema {
    /// The messages of every `.proto` file under `dir` (laid out by import path, as
    /// `k8s.io/api/core/v1/generated.proto`), compiled with protox.
    pub(crate) fn from_proto_dir(dir: &std::path::Path) -> Result<Schema, String> {
        use protox::prost::Message as _;
        fn collect(
            dir: &std::path::Path,
            out: &mut Vec<std::path::PathBuf>,
        ) -> std::io::Result<()> {
            for entry in std::fs::read_dir(dir)? {
                let path = entry?.path();
                if path.is_dir() {
                    collect(&path, out)?;
                } else if path.extension().is_some_and(|e| e == "proto") {
                    out.push(path);
                }
            }
            Ok(())
        }
        let mut files = Vec::new();
        collect(dir, &mut files).map_err(|e| format!("{}: {e}", dir.display()))?;
        files.sort();
        if files.is_empty() {
            return Err(format!("{}: no .proto files", dir.display()));
        }
        let set = protox::compile(&files, [dir]).map_err(|e| e.to_string())?;
        Schema::parse(&set.encode_to_vec())
    }

    /// How many messages it holds.
    pub(crate) fn message_count(&self) -> usize {
        self.messages.len()
    }
}

/// The protobuf message of a kind, if it has one: the built-in kinds and the `meta.k8s.io`
/// kinds (`Status`, `DeleteOptions`, …) do, custom resources do not.
pub(crate) fn message_of(
    schema: &Schema,
    group: &str,
    version: &str,
    kind: &str,
) -> Option<String> {
    let package = match group {
        "" => format!("api.core.{version}"),
        "apiextensions.k8s.io" => {
            format!("apiextensions_apiserver.pkg.apis.apiextensions.{version}")
        }
        "apiregistration.k8s.io" => {
            format!("kube_aggregator.pkg.apis.apiregistration.{version}")
        }
        "internal.apiserver.k8s.io" => format!("api.apiserverinternal.{version}"),
        "meta.k8s.io" => format!("apimachinery.pkg.apis.meta.{version}"),
        "metrics.k8s.io" => format!("metrics.pkg.apis.metrics.{version}"),
        _ => format!("api.{}.{version}", group.split('.').next().unwrap_or(group)),
    };
    [format!("{package}.{kind}"), format!("{META}.{kind}")]
        .into_iter()
        .find(|name| schema.messages.contains_key(name))
}

/// Whether `body` is in the envelope.
pub(crate) fn is_envelope(body: &[u8]) -> bool {
    body.starts_with(MAGIC)
}

/// Decodes an enveloped body into the JSON object it stands for (with its `apiVersion` and
/// `kind` from the envelope).
pub(crate) fn decode(schema: &Schema, body: &[u8]) -> Result<Value, String> {
    let inner = body
        .strip_prefix(MAGIC)
        .ok_or("the body does not start with the protobuf envelope's magic number \"k8s\\x00\"")?;
    let mut api_version = String::new();
    let mut kind = String::new();
    let mut raw: &[u8] = &[];
    for (number, value) in Reader::new(inner).fields()? {
        match (number, value) {
            (1, Wire::Len(type_meta)) => {
                for (number, value) in Reader::new(type_meta).fields()? {
                    match (number, value) {
                        (1, Wire::Len(text)) => api_version = utf8(text)?,
                        (2, Wire::Len(text)) => kind = utf8(text)?,
                        _ => {}
                    }
                }
            }
            (2, Wire::Len(bytes)) => raw = bytes,
            _ => {}
        }
    }
    let (group, version) = group_version(&api_version);
    let name = message_of(schema, group, version, &kind)
        .ok_or_else(|| format!("no protobuf message is known for {api_version}, Kind={kind}"))?;
    let mut object = Map::new();
    if !api_version.is_empty() {
        object.insert("apiVersion".into(), Value::from(api_version.as_str()));
    }
    if !kind.is_empty() {
        object.insert("kind".into(), Value::from(kind.as_str()));
    }
    if let Value::Object(fields) = decode_message(schema, &name, raw)? {
        object.extend(fields);
    }
    Ok(Value::Object(object))
}

/// Encodes a JSON object (which names its `apiVersion` and `kind`) in the envelope.
pub(crate) fn encode(schema: &Schema, object: &Value) -> Result<Vec<u8>, String> {
    let text = |key: &str| object.get(key).and_then(Value::as_str).unwrap_or("");
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    let (group, version) = group_version(api_version);
    let name = message_of(schema, group, version, kind)
        .ok_or_else(|| format!("no protobuf message is known for {api_version}, Kind={kind}"))?;
    let mut type_meta = Vec::new();
    put_len(&mut type_meta, 1, api_version.as_bytes());
    put_len(&mut type_meta, 2, kind.as_bytes());
    let mut unknown = Vec::new();
    put_len(&mut unknown, 1, &type_meta);
    put_len(&mut unknown, 2, &encode_message(schema, &name, object)?);
    put_len(&mut unknown, 3, b"");
    put_len(&mut unknown, 4, b"");
    let mut out = MAGIC.to_vec();
    out.extend(unknown);
    Ok(out)
}

/// A watch event frame of the protobuf watch stream: a 4-byte big-endian length and a
/// `meta.v1.WatchEvent` whose object is the enveloped object.
pub(crate) fn watch_frame(schema: &Schema, kind: &str, object: &Value) -> Result<Vec<u8>, String> {
    let mut raw = Vec::new();
    put_len(&mut raw, 1, &encode(schema, object)?);
    let mut event = Vec::new();
    put_len(&mut event, 1, kind.as_bytes());
    put_len(&mut event, 2, &raw);
    let length = u32::try_from(event.len()).map_err(|_| "a watch event over 4 GiB")?;
    let mut frame = length.to_be_bytes().to_vec();
    frame.extend(event);
    Ok(frame)
}

// ---- messages ↔ JSON ----

/// The JSON name of a field: the `.proto` name, which go-to-protobuf takes from the JSON
/// tag, except where it took the Go name (`Webhooks`, `Expression`, `Name`, `uID`,
/// `aPIGroup`, whose JSON names are in lower camel case) and in `JSONSchemaProps`, whose `$ref`, `$schema` and
/// `x-kubernetes-*` are no protobuf identifiers. A test checks every field of every message
/// of Kubernetes 1.36's kinds against its schema.
fn json_name<'a>(message: &str, field: &'a str) -> std::borrow::Cow<'a, str> {
    match field {
        "uID" => return "uid".into(),
        "aPIGroup" => return "apiGroup".into(),
        "Webhooks" => return "webhooks".into(),
        "Expression" => return "expression".into(),
        "Name" => return "name".into(),
        // DaemonEndpoint's JSON name is `Port`, as its Go name.
        _ => {}
    }
    if !message.ends_with(".JSONSchemaProps") {
        return field.into();
    }
    match field {
        "ref" => "$ref".into(),
        "schema" => "$schema".into(),
        _ => match field.strip_prefix("xKubernetes") {
            Some(rest) => {
                let mut name = String::from("x-kubernetes");
                for c in rest.chars() {
                    if c.is_ascii_uppercase() {
                        name.push('-');
                        name.push(c.to_ascii_lowercase());
                    } else {
                        name.push(c);
                    }
                }
                name.into()
            }
            None => field.into(),
        },
    }
}

/// The fields of Go structs embedded with `json:",inline"`: a message of their own in
/// protobuf, their fields in the JSON object that embeds them.
const INLINE: [(&str, &str); 16] = [
    ("ConfigMapEnvSource", "localObjectReference"),
    ("ConfigMapKeySelector", "localObjectReference"),
    ("ConfigMapProjection", "localObjectReference"),
    ("ConfigMapVolumeSource", "localObjectReference"),
    ("SecretEnvSource", "localObjectReference"),
    ("SecretKeySelector", "localObjectReference"),
    ("SecretProjection", "localObjectReference"),
    ("EphemeralContainer", "ephemeralContainerCommon"),
    ("PersistentVolumeSpec", "persistentVolumeSource"),
    ("Probe", "handler"),
    ("Volume", "volumeSource"),
    ("NamedRuleWithOperations", "ruleWithOperations"),
    ("RuleWithOperations", "rule"),
    ("IngressRule", "ingressRuleValue"),
    ("DeviceAllocationConfiguration", "deviceConfiguration"),
    ("DeviceClaimConfiguration", "deviceConfiguration"),
];

fn is_inline(message: &str, field: &str) -> bool {
    let short = message.rsplit('.').next().unwrap_or(message);
    INLINE.contains(&(short, field))
        || (short == "DeviceClassConfiguration" && field == "deviceConfiguration")
}

/// A message whose JSON is an array: one repeated scalar field named `items`, as
/// go-to-protobuf writes a named slice type (`ExtraValue`, `meta.v1.Verbs`); not
/// `DownwardAPIProjection`, a struct whose one field is a list of messages.
fn is_array_wrapper(message: &Message) -> bool {
    message.fields.len() == 1
        && message.fields[0].repeated
        && message.fields[0].name == "items"
        && message.fields[0].ty != ty::MESSAGE
}

fn decode_message(schema: &Schema, name: &str, bytes: &[u8]) -> Result<Value, String> {
    if let Some(value) = decode_special(schema, name, bytes)? {
        return Ok(value);
    }
    let message = schema
        .messages
        .get(name)
        .ok_or_else(|| format!("unknown protobuf message {name}"))?;
    let mut values: Vec<Option<Value>> = vec![None; message.fields.len()];
    for (number, wire) in Reader::new(bytes).fields()? {
        let Some(index) = message.fields.iter().position(|f| f.number == number) else {
            continue;
        };
        let field = &message.fields[index];
        let entry_message = (field.ty == ty::MESSAGE)
            .then(|| schema.messages.get(&field.type_name))
            .flatten();
        if let Some(entry) = entry_message.filter(|m| m.map_entry) {
            let Wire::Len(bytes) = wire else {
                return Err(format!(
                    "{name}.{}: a map entry must be length-delimited",
                    field.name
                ));
            };
            let (key, value) = decode_entry(schema, &field.type_name, entry, bytes)?;
            let map = values[index].get_or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(map) = map {
                map.insert(key, value);
            }
        } else if field.repeated {
            let list = values[index].get_or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = list {
                match wire {
                    Wire::Len(packed)
                        if is_scalar(field.ty)
                            && field.ty != ty::STRING
                            && field.ty != ty::BYTES =>
                    {
                        let mut reader = Reader::new(packed);
                        while !reader.done() {
                            let wire = match wire_of(field.ty) {
                                VARINT => Wire::Varint(reader.varint()?),
                                FIXED64 => Wire::Fixed64(reader.fixed64()?),
                                _ => Wire::Fixed32(reader.fixed32()?),
                            };
                            list.push(decode_value(schema, name, field, wire)?);
                        }
                    }
                    wire => list.push(decode_value(schema, name, field, wire)?),
                }
            }
        } else {
            values[index] = Some(decode_value(schema, name, field, wire)?);
        }
    }
    if is_array_wrapper(message) {
        return Ok(values.pop().flatten().unwrap_or(Value::Array(Vec::new())));
    }
    let mut object = Map::new();
    for (field, value) in message.fields.iter().zip(values) {
        let Some(value) = value else {
            continue;
        };
        if is_inline(name, &field.name) {
            if let Value::Object(inner) = value {
                object.extend(inner);
            }
            continue;
        }
        let scalar_zero = !field.repeated
            && field.ty != ty::MESSAGE
            && (matches!(&value, Value::String(s) if s.is_empty())
                || matches!(&value, Value::Bool(false))
                || value.as_f64() == Some(0.0));
        if scalar_zero || value.is_null() {
            continue;
        }
        object.insert(json_name(name, &field.name).into_owned(), value);
    }
    Ok(Value::Object(object))
}

fn decode_entry(
    schema: &Schema,
    name: &str,
    entry: &Message,
    bytes: &[u8],
) -> Result<(String, Value), String> {
    let mut key = String::new();
    let mut value = Value::Null;
    for (number, wire) in Reader::new(bytes).fields()? {
        let Some(field) = entry.fields.iter().find(|f| f.number == number) else {
            continue;
        };
        let decoded = decode_value(schema, name, field, wire)?;
        if number == 1 {
            key = match decoded {
                Value::String(s) => s,
                other => other.to_string(),
            };
        } else {
            value = decoded;
        }
    }
    if value.is_null()
        && let Some(field) = entry.fields.iter().find(|f| f.number == 2)
    {
        // An entry whose value is empty leaves it out on the wire.
        value = match field.ty {
            ty::STRING | ty::BYTES => Value::from(""),
            ty::BOOL => Value::Bool(false),
            ty::MESSAGE => decode_message(schema, &field.type_name, &[])?,
            _ => Value::from(0),
        };
    }
    Ok((key, value))
}

fn decode_value(
    schema: &Schema,
    message: &str,
    field: &Field,
    wire: Wire<'_>,
) -> Result<Value, String> {
    let mismatch = || format!("{message}.{}: unexpected wire type", field.name);
    Ok(match (field.ty, wire) {
        (ty::MESSAGE, Wire::Len(bytes)) => decode_message(schema, &field.type_name, bytes)?,
        (ty::STRING, Wire::Len(bytes)) => Value::from(utf8(bytes)?),
        (ty::BYTES, Wire::Len(bytes)) => {
            Value::from(base64::engine::general_purpose::STANDARD.encode(bytes))
        }
        (ty::BOOL, Wire::Varint(n)) => Value::Bool(n != 0),
        (ty::INT64 | ty::INT32 | ty::ENUM, Wire::Varint(n)) => Value::from(n as i64),
        (ty::UINT64 | ty::UINT32, Wire::Varint(n)) => Value::from(n),
        (ty::SINT32 | ty::SINT64, Wire::Varint(n)) => {
            Value::from(((n >> 1) as i64) ^ -((n & 1) as i64))
        }
        (ty::FIXED64, Wire::Fixed64(n)) => Value::from(n),
        (ty::SFIXED64, Wire::Fixed64(n)) => Value::from(n as i64),
        (ty::DOUBLE, Wire::Fixed64(n)) => Value::from(f64::from_bits(n)),
        (ty::FIXED32, Wire::Fixed32(n)) => Value::from(n),
        (ty::SFIXED32, Wire::Fixed32(n)) => Value::from(n as i32),
        (ty::FLOAT, Wire::Fixed32(n)) => Value::from(f64::from(f32::from_bits(n))),
        _ => return Err(mismatch()),
    })
}

/// The messages whose JSON is not their fields.
fn decode_special(schema: &Schema, name: &str, bytes: &[u8]) -> Result<Option<Value>, String> {
    let short = name.rsplit('.').next().unwrap_or(name);
    let fields = || Reader::new(bytes).fields();
    Ok(Some(match name {
        n if n == format!("{META}.Time") || n == format!("{META}.MicroTime") => {
            // Go writes its zero time as an empty message (`Time.Marshal`), and reads one
            // back as the zero time: JSON null.
            if bytes.is_empty() {
                return Ok(Some(Value::Null));
            }
            let (mut seconds, mut nanos) = (0i64, 0i64);
            for (number, wire) in fields()? {
                match (number, wire) {
                    (1, Wire::Varint(n)) => seconds = n as i64,
                    (2, Wire::Varint(n)) => nanos = n as i64,
                    _ => {}
                }
            }
            // Go's zero time, which a value-typed `metav1.Time` writes: JSON null.
            if seconds == -62_135_596_800 && nanos == 0 {
                return Ok(Some(Value::Null));
            }
            let time = jiff::Timestamp::new(seconds, i32::try_from(nanos).unwrap_or(0))
                .map_err(|e| format!("{name}: {e}"))?;
            let format = if short == "MicroTime" {
                "%Y-%m-%dT%H:%M:%S%.6fZ"
            } else {
                "%Y-%m-%dT%H:%M:%SZ"
            };
            Value::from(time.strftime(format).to_string())
        }
        n if n == format!("{META}.Duration") => {
            let mut nanos = 0i64;
            for (number, wire) in fields()? {
                if let (1, Wire::Varint(n)) = (number, wire) {
                    nanos = n as i64;
                }
            }
            Value::from(duration::format(nanos))
        }
        "apimachinery.pkg.util.intstr.IntOrString" => {
            let (mut kind, mut int, mut text) = (0u64, 0i64, String::new());
            for (number, wire) in fields()? {
                match (number, wire) {
                    (1, Wire::Varint(n)) => kind = n,
                    (2, Wire::Varint(n)) => int = i64::from(n as i32),
                    (3, Wire::Len(s)) => text = utf8(s)?,
                    _ => {}
                }
            }
            if kind == 1 {
                Value::from(text)
            } else {
                Value::from(int)
            }
        }
        "apimachinery.pkg.api.resource.Quantity" => {
            let mut text = String::new();
            for (number, wire) in fields()? {
                if let (1, Wire::Len(s)) = (number, wire) {
                    text = utf8(s)?;
                }
            }
            Value::from(text)
        }
        n if n == "apimachinery.pkg.runtime.RawExtension"
            || n == format!("{META}.FieldsV1")
            || n.ends_with(".apiextensions.v1.JSON")
            || n.ends_with(".apiextensions.v1beta1.JSON") =>
        {
            let mut raw: &[u8] = &[];
            for (number, wire) in fields()? {
                if let (1, Wire::Len(bytes)) = (number, wire) {
                    raw = bytes;
                }
            }
            if raw.is_empty() {
                Value::Null
            } else if is_envelope(raw) {
                decode(schema, raw)?
            } else {
                serde_json::from_slice(raw).map_err(|e| format!("{name}: {e}"))?
            }
        }
        n if n.ends_with(".JSONSchemaPropsOrArray")
            || n.ends_with(".JSONSchemaPropsOrBool")
            || n.ends_with(".JSONSchemaPropsOrStringArray") =>
        {
            let package = &n[..n.rfind('.').unwrap_or(0)];
            let props = format!("{package}.JSONSchemaProps");
            let mut schema_value = None;
            let mut array = Vec::new();
            let mut allows = None;
            for (number, wire) in fields()? {
                match (short, number, wire) {
                    ("JSONSchemaPropsOrBool", 1, Wire::Varint(b)) => allows = Some(b != 0),
                    ("JSONSchemaPropsOrBool", 2, Wire::Len(b)) | (_, 1, Wire::Len(b)) => {
                        schema_value = Some(decode_message(schema, &props, b)?);
                    }
                    ("JSONSchemaPropsOrArray", 2, Wire::Len(b)) => {
                        array.push(decode_message(schema, &props, b)?)
                    }
                    ("JSONSchemaPropsOrStringArray", 2, Wire::Len(b)) => {
                        array.push(Value::from(utf8(b)?))
                    }
                    _ => {}
                }
            }
            match (schema_value, allows) {
                (Some(props_value), _) => props_value,
                (None, Some(allows)) => Value::Bool(allows),
                (None, None) => Value::Array(array),
            }
        }
        _ => return Ok(None),
    }))
}

fn encode_message(schema: &Schema, name: &str, value: &Value) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    if encode_special(schema, name, value, &mut out)? {
        return Ok(out);
    }
    let message = schema
        .messages
        .get(name)
        .ok_or_else(|| format!("unknown protobuf message {name}"))?;
    if is_array_wrapper(message) {
        let field = &message.fields[0];
        for item in value.as_array().into_iter().flatten() {
            encode_value(schema, name, field, item, &mut out)?;
        }
        return Ok(out);
    }
    let Some(object) = value.as_object() else {
        return Err(format!("{name}: expected an object, found {value}"));
    };
    for field in message.by_number.iter().map(|&i| &message.fields[i]) {
        if is_inline(name, &field.name) {
            put_len(
                &mut out,
                field.number,
                &encode_message(schema, &field.type_name, value)?,
            );
            continue;
        }
        let Some(value) = object.get(json_name(name, &field.name).as_ref()) else {
            continue;
        };
        // JSON's `null` is a nil pointer, slice or map, which Go does not write; or Go's
        // zero `Time` of a value field (`creationTimestamp: null`), which it writes as an
        // empty message.
        if value.is_null() && (field.repeated || !is_time(&field.type_name)) {
            continue;
        }
        let entry = (field.ty == ty::MESSAGE)
            .then(|| schema.messages.get(&field.type_name))
            .flatten()
            .filter(|m| m.map_entry);
        if let Some(entry) = entry {
            let Some(map) = value.as_object() else {
                return Err(format!("{name}.{}: expected an object", field.name));
            };
            // Go's generated `Marshal` writes a map's entries in the order of its keys.
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by_key(|(key, _)| *key);
            for (key, item) in entries {
                let mut bytes = Vec::new();
                for part in &entry.fields {
                    let part_value = if part.number == 1 {
                        Value::from(key.as_str())
                    } else {
                        item.clone()
                    };
                    encode_value(schema, &field.type_name, part, &part_value, &mut bytes)?;
                }
                put_len(&mut out, field.number, &bytes);
            }
        } else if field.repeated {
            for item in value.as_array().into_iter().flatten() {
                encode_value(schema, name, field, item, &mut out)?;
            }
        } else {
            encode_value(schema, name, field, value, &mut out)?;
        }
    }
    Ok(out)
}

fn encode_value(
    schema: &Schema,
    message: &str,
    field: &Field,
    value: &Value,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let wrong = || {
        format!(
            "{message}.{}: cannot encode {value} as protobuf type {}",
            field.name, field.ty
        )
    };
    let number = field.number;
    let int = || {
        value
            .as_i64()
            .or_else(|| value.as_f64().map(|f| f as i64))
            .ok_or_else(wrong)
    };
    match field.ty {
        ty::MESSAGE => put_len(
            out,
            number,
            &encode_message(schema, &field.type_name, value)?,
        ),
        ty::STRING => put_len(out, number, value.as_str().ok_or_else(wrong)?.as_bytes()),
        ty::BYTES => {
            let text = value.as_str().ok_or_else(wrong)?;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|e| format!("{message}.{}: {e}", field.name))?;
            put_len(out, number, &bytes);
        }
        ty::BOOL => put_varint_field(out, number, u64::from(value.as_bool().ok_or_else(wrong)?)),
        ty::INT64 | ty::INT32 | ty::ENUM => put_varint_field(out, number, int()? as u64),
        ty::UINT64 | ty::UINT32 => {
            put_varint_field(out, number, value.as_u64().ok_or_else(wrong)?);
        }
        ty::SINT32 | ty::SINT64 => {
            let n = int()?;
            put_varint_field(out, number, ((n << 1) ^ (n >> 63)) as u64);
        }
        ty::FIXED64 | ty::SFIXED64 | ty::DOUBLE => {
            put_varint(out, (number << 3) | u64::from(FIXED64));
            let bits = if field.ty == ty::DOUBLE {
                value.as_f64().ok_or_else(wrong)?.to_bits()
            } else {
                int()? as u64
            };
            out.extend(bits.to_le_bytes());
        }
        ty::FIXED32 | ty::SFIXED32 | ty::FLOAT => {
            put_varint(out, (number << 3) | u64::from(FIXED32));
            let bits = if field.ty == ty::FLOAT {
                (value.as_f64().ok_or_else(wrong)? as f32).to_bits()
            } else {
                int()? as u32
            };
            out.extend(bits.to_le_bytes());
        }
        _ => return Err(wrong()),
    }
    Ok(())
}

/// Whether a message is `meta.v1.Time` or `MicroTime`.
fn is_time(name: &str) -> bool {
    name.strip_prefix(META)
        .is_some_and(|rest| rest == ".Time" || rest == ".MicroTime")
}

fn encode_special(
    schema: &Schema,
    name: &str,
    value: &Value,
    out: &mut Vec<u8>,
) -> Result<bool, String> {
    match name {
        n if is_time(n) => {
            if value.is_null() {
                // Go's zero time: the empty message (`Time.MarshalToSizedBuffer`).
                return Ok(true);
            }
            let text = value
                .as_str()
                .ok_or_else(|| format!("{name}: expected a string"))?;
            let time: jiff::Timestamp =
                text.parse().map_err(|e| format!("{name}: {text:?}: {e}"))?;
            put_varint_field(out, 1, time.as_second() as u64);
            put_varint_field(out, 2, u64::from(time.subsec_nanosecond().unsigned_abs()));
        }
        n if n == format!("{META}.Duration") => {
            let text = value
                .as_str()
                .ok_or_else(|| format!("{name}: expected a string"))?;
            let nanos = duration::parse(text).map_err(|e| format!("{name}: {e}"))?;
            put_varint_field(out, 1, nanos as u64);
        }
        "apimachinery.pkg.util.intstr.IntOrString" => match value {
            Value::String(text) => {
                put_varint_field(out, 1, 1);
                put_varint_field(out, 2, 0);
                put_len(out, 3, text.as_bytes());
            }
            other => {
                let n = other
                    .as_i64()
                    .ok_or_else(|| format!("{name}: expected an integer or a string"))?;
                put_varint_field(out, 1, 0);
                put_varint_field(out, 2, n as u64);
                put_len(out, 3, b"");
            }
        },
        "apimachinery.pkg.api.resource.Quantity" => {
            let text = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            put_len(out, 1, text.as_bytes());
        }
        n if n == "apimachinery.pkg.runtime.RawExtension"
            || n == format!("{META}.FieldsV1")
            || n.ends_with(".apiextensions.v1.JSON")
            || n.ends_with(".apiextensions.v1beta1.JSON") =>
        {
            put_len(out, 1, value.to_string().as_bytes());
        }
        n if n.ends_with(".JSONSchemaPropsOrArray")
            || n.ends_with(".JSONSchemaPropsOrBool")
            || n.ends_with(".JSONSchemaPropsOrStringArray") =>
        {
            let package = &n[..n.rfind('.').unwrap_or(0)];
            let props = format!("{package}.JSONSchemaProps");
            match value {
                Value::Bool(b) => put_varint_field(out, 1, u64::from(*b)),
                Value::Array(items) => {
                    for item in items {
                        match item {
                            Value::String(s) => put_len(out, 2, s.as_bytes()),
                            other => put_len(out, 2, &encode_message(schema, &props, other)?),
                        }
                    }
                }
                other => {
                    let number = if n.ends_with("OrBool") {
                        put_varint_field(out, 1, 1);
                        2
                    } else {
                        1
                    };
                    put_len(out, number, &encode_message(schema, &props, other)?);
                }
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

#[cfg(test)]
mod tests;
