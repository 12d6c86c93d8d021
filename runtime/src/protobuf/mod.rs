//! Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`) of the generated
//! types, behind the feature `protobuf`: the same struct reads and writes JSON and protobuf.
//!
//! Generated code implements [`Message`] for every struct whose schema has a protobuf
//! message (the `--proto` input), with one call per field into the helpers here; the
//! decisions (field numbers, how each field is written) are the generator's. The wire
//! primitives (varints, keys, wire types) are prost's `encoding` module, the one the Rust
//! protobuf crates share.
//!
//! Go's conventions, as `go-to-protobuf` writes them:
//! - a required field is always written ([`encode_required`]); an optional one when set,
//!   and it reads back as set, zero or not ([`encode_optional`], [`merge_optional`]): the
//!   `.proto` files do not say which scalars are Go pointers, and this is the choice that
//!   never changes what Go reads (see the generator's `model/protobuf.rs`);
//! - `Time`, bytes and raw JSON read back as `None` when zero ([`merge_nonzero`]), as JSON
//!   leaves Go's zero time and nil bytes out;
//! - `Time` and `MicroTime` are `{seconds, nanos}`, Go's zero time the empty message;
//!   `Quantity` is `{string}`, `IntOrString` `{type, intVal, strVal}`, `RawExtension`,
//!   `FieldsV1` and `JSON` `{raw}` with the JSON text;
//! - maps are entries `{key, value}` in key order, and the one-field wrapper messages
//!   (`ExtraValue`) hold a list as `{items}`;
//! - a field the struct does not know (a newer server's) is kept as its bytes in the
//!   struct's `ExtraFields` and written back after the known ones.

mod envelope;
mod input;
pub mod routes;
mod scalars;
mod watch;

use std::collections::BTreeMap;

pub use crate::protobuf_error::DecodeError;
pub use envelope::{
    CONTENT_TYPE, Envelope, MAGIC, decode_envelope, decode_object, encode_envelope, encode_object,
};
pub use input::Input;
pub use prost::encoding::WireType;
pub use watch::{WatchFrames, encode_watch_frame};

use prost::encoding::{encoded_len_varint, key_len};

use crate::ExtraFields;

/// A value of one protobuf field: a scalar, a runtime type, or a generated message.
pub trait Field: Sized {
    /// The wire type one value is written with.
    const WIRE: WireType;

    /// Go's zero value.
    fn zero() -> Self;

    /// Whether this is Go's zero value (JSON's `omitempty` leaves it out).
    fn is_zero(&self) -> bool;

    /// The bytes of the value: its varint or fixed bytes, or the content of a
    /// length-delimited value without its length.
    fn payload_len(&self) -> usize;

    /// Writes the bytes [`Field::payload_len`] counts.
    fn encode_payload(&self, buf: &mut Vec<u8>);

    /// Reads one value into `self` (a message merges, a scalar replaces): the varint or
    /// fixed bytes from `input`, or, for a length-delimited value, all of `input`, which
    /// the caller has cut to the value's length.
    ///
    /// # Errors
    /// When the bytes are not a value of this type.
    fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError>;

    /// The value a field not set before is read into with [`Field::merge`]: the zero, or,
    /// for a type whose `merge` replaces the whole value, anything cheaper to make (a
    /// `Quantity`'s zero is an allocated and parsed `"0"`).
    #[inline]
    fn placeholder() -> Self {
        Self::zero()
    }
}

/// A generated struct with a protobuf message.
pub trait Message: Sized {
    /// The full name of the message (`k8s.io.api.core.v1.Pod`).
    const NAME: &'static str;

    /// A value with every field at Go's zero (what decoding starts from).
    fn zero() -> Self;

    /// The length of the encoded fields.
    fn encoded_len(&self) -> usize;

    /// Writes the fields, unknown ones last.
    fn encode_raw(&self, buf: &mut Vec<u8>);

    /// Reads one field whose key was read.
    ///
    /// # Errors
    /// When the value does not read as the field's type; the error names the field.
    fn merge_field(
        &mut self,
        number: u32,
        wire: WireType,
        input: &mut Input<'_>,
    ) -> Result<(), DecodeError>;

    /// Marks `apiVersion` and `kind` present, for an object read from an envelope (which
    /// carries them in place of the message); nothing for a type without them.
    fn set_type_meta(&mut self) {}

    /// The message's bytes.
    fn encode_to_vec(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(self.encoded_len());
        self.encode_raw(&mut buf);
        buf
    }

    /// Reads a message from its bytes.
    ///
    /// # Errors
    /// A [`DecodeError`] with the byte offset and the field path where the bytes went
    /// wrong.
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut value = Self::zero();
        merge_message(&mut value, &mut Input::new(bytes))?;
        Ok(value)
    }
}

/// Reads every field of `input` into `message`.
///
/// # Errors
/// See [`Message::decode`].
#[inline]
pub fn merge_message<M: Message>(
    message: &mut M,
    input: &mut Input<'_>,
) -> Result<(), DecodeError> {
    while !input.is_empty() {
        let (number, wire) = input.key()?;
        message.merge_field(number, wire, input)?;
    }
    Ok(())
}

/// Implements [`Field`] for a generated struct through its [`Message`] impl.
#[macro_export]
macro_rules! protobuf_message_field {
    ($ty:ty) => {
        impl $crate::protobuf::Field for $ty {
            const WIRE: $crate::protobuf::WireType = $crate::protobuf::WireType::LengthDelimited;

            fn zero() -> Self {
                <Self as $crate::protobuf::Message>::zero()
            }

            fn is_zero(&self) -> bool {
                false
            }

            fn payload_len(&self) -> usize {
                $crate::protobuf::Message::encoded_len(self)
            }

            fn encode_payload(&self, buf: &mut Vec<u8>) {
                $crate::protobuf::Message::encode_raw(self, buf);
            }

            #[inline]
            fn merge(
                &mut self,
                input: &mut $crate::protobuf::Input<'_>,
            ) -> Result<(), $crate::protobuf::DecodeError> {
                $crate::protobuf::merge_message(self, input)
            }
        }
    };
}

/// prost's `encode_varint`, with a one-byte value (most keys, lengths and small numbers)
/// written inline.
#[inline]
fn encode_varint(value: u64, buf: &mut Vec<u8>) {
    match u8::try_from(value) {
        Ok(byte) if byte < 0x80 => buf.push(byte),
        _ => prost::encoding::encode_varint(value, buf),
    }
}

/// prost's `encode_key`, through [`encode_varint`]'s one-byte path (fields 1 to 15).
#[inline]
fn encode_key(number: u32, wire: WireType, buf: &mut Vec<u8>) {
    encode_varint(u64::from((number << 3) | wire as u32), buf);
}

#[inline]
fn value_len<T: Field>(value: &T) -> usize {
    let payload = value.payload_len();
    match T::WIRE {
        WireType::LengthDelimited => encoded_len_varint(payload as u64) + payload,
        _ => payload,
    }
}

#[inline]
fn encode_value_payload<T: Field>(value: &T, buf: &mut Vec<u8>) {
    if T::WIRE == WireType::LengthDelimited {
        encode_varint(value.payload_len() as u64, buf);
    }
    value.encode_payload(buf);
}

/// The length of field `number` holding `value`, key included.
#[inline]
pub fn field_len<T: Field>(number: u32, value: &T) -> usize {
    key_len(number) + value_len(value)
}

/// Writes field `number` holding `value`.
#[inline]
pub fn encode_field<T: Field>(number: u32, value: &T, buf: &mut Vec<u8>) {
    encode_key(number, T::WIRE, buf);
    encode_value_payload(value, buf);
}

#[cold]
#[inline(never)]
fn wire_error(input: &Input<'_>, expected: WireType, wire: WireType) -> DecodeError {
    input.error(format!(
        "expected wire type {expected:?}, but the key says {wire:?}"
    ))
}

/// Reads one value of type `T` whose key said `wire`.
///
/// # Errors
/// A wire type that is not `T`'s, or bytes that do not read as `T`.
#[inline]
pub fn merge_into<T: Field>(
    value: &mut T,
    wire: WireType,
    input: &mut Input<'_>,
) -> Result<(), DecodeError> {
    if wire != T::WIRE {
        return Err(wire_error(input, T::WIRE, wire));
    }
    if T::WIRE == WireType::LengthDelimited {
        let mut inner = input.delimited()?;
        value.merge(&mut inner)
    } else {
        value.merge(input)
    }
}

/// Length of a required field (see [`encode_required`]).
#[inline]
pub fn len_required<T: Field>(number: u32, value: &T) -> usize {
    field_len(number, value)
}

/// Writes a required field: always.
#[inline]
pub fn encode_required<T: Field>(number: u32, value: &T, buf: &mut Vec<u8>) {
    encode_field(number, value, buf);
}

/// Reads a required field.
///
/// # Errors
/// See [`merge_into`]; the error names the field `name`.
#[inline]
pub fn merge_required<T: Field>(
    value: &mut T,
    wire: WireType,
    input: &mut Input<'_>,
    name: &'static str,
) -> Result<(), DecodeError> {
    merge_into(value, wire, input).map_err(|e| e.field(name))
}

/// Reads a field whose zero JSON leaves out: the zero reads as `None`.
#[inline]
fn merge_value<T: Field>(
    slot: &mut Option<T>,
    wire: WireType,
    input: &mut Input<'_>,
    name: &'static str,
) -> Result<(), DecodeError> {
    let mut value = slot.take().unwrap_or_else(T::zero);
    merge_into(&mut value, wire, input).map_err(|e| e.field(name))?;
    if !value.is_zero() {
        *slot = Some(value);
    }
    Ok(())
}

/// Length of a pointer field (see [`encode_optional`]).
#[inline]
pub fn len_optional<T: Field>(number: u32, value: Option<&T>) -> usize {
    value.map_or(0, |value| field_len(number, value))
}

/// Writes a Go pointer or message field: when set.
#[inline]
pub fn encode_optional<T: Field>(number: u32, value: Option<&T>, buf: &mut Vec<u8>) {
    if let Some(value) = value {
        encode_field(number, value, buf);
    }
}

/// Reads a Go pointer or message field: present is `Some`, zero or not.
///
/// # Errors
/// See [`merge_into`]; the error names the field `name`.
#[inline]
pub fn merge_optional<T: Field>(
    slot: &mut Option<T>,
    wire: WireType,
    input: &mut Input<'_>,
    name: &'static str,
) -> Result<(), DecodeError> {
    merge_into(slot.get_or_insert_with(T::placeholder), wire, input).map_err(|e| e.field(name))
}

/// Reads a field that Go writes when set and whose zero JSON leaves out (`Time`, bytes,
/// `RawExtension`): present and not zero is `Some`.
///
/// # Errors
/// See [`merge_into`]; the error names the field `name`.
#[inline]
pub fn merge_nonzero<T: Field>(
    slot: &mut Option<T>,
    wire: WireType,
    input: &mut Input<'_>,
    name: &'static str,
) -> Result<(), DecodeError> {
    merge_value(slot, wire, input, name)
}

/// Length of a repeated field.
#[inline]
pub fn len_repeated<T: Field>(number: u32, values: &[T]) -> usize {
    values.iter().map(|value| field_len(number, value)).sum()
}

/// Writes a repeated field, one key per element (proto2's unpacked form, as Go writes it).
#[inline]
pub fn encode_repeated<T: Field>(number: u32, values: &[T], buf: &mut Vec<u8>) {
    for value in values {
        encode_field(number, value, buf);
    }
}

/// Reads one element of field `number` (or, for scalars, a packed run of them) into
/// `values`. The first element reserves room for exactly the elements that follow it under
/// the same key (Go writes a repeated field's elements one after the other), so a decoded
/// list holds no spare capacity: a list of one small struct takes one element's bytes, not
/// the four a growing `Vec` starts with.
#[inline]
fn merge_element<T: Field>(
    values: &mut Vec<T>,
    number: u32,
    wire: WireType,
    input: &mut Input<'_>,
) -> Result<(), DecodeError> {
    if wire == WireType::LengthDelimited && T::WIRE != WireType::LengthDelimited {
        let mut packed = input.delimited()?;
        while !packed.is_empty() {
            let mut value = T::zero();
            value
                .merge(&mut packed)
                .map_err(|e| e.index(values.len()))?;
            values.push(value);
        }
        return Ok(());
    }
    let mut value = T::placeholder();
    merge_into(&mut value, wire, input).map_err(|e| e.index(values.len()))?;
    if values.capacity() == 0 {
        values.reserve_exact(1 + input.count_following(number, wire));
    }
    values.push(value);
    Ok(())
}

/// Reads one element of repeated field `number` (or, for scalars, a packed run of them).
///
/// # Errors
/// See [`merge_into`]; the error names the field `name` and the element.
#[inline]
pub fn merge_repeated<T: Field>(
    values: &mut Vec<T>,
    number: u32,
    wire: WireType,
    input: &mut Input<'_>,
    name: &'static str,
) -> Result<(), DecodeError> {
    merge_element(values, number, wire, input).map_err(|e| e.field(name))
}

/// [`merge_repeated`] into an optional list: no element reads as `None`.
///
/// # Errors
/// See [`merge_into`]; the error names the field `name` and the element.
#[inline]
pub fn merge_repeated_optional<T: Field>(
    values: &mut Option<Vec<T>>,
    number: u32,
    wire: WireType,
    input: &mut Input<'_>,
    name: &'static str,
) -> Result<(), DecodeError> {
    merge_repeated(
        values.get_or_insert_with(Vec::new),
        number,
        wire,
        input,
        name,
    )
}

/// One map entry's content: `{key = 1, value = 2}`, both always written as Go does.
#[inline]
fn entry_len<V: Field>(key: &String, value: &V) -> usize {
    field_len(1, key) + field_len(2, value)
}

/// Length of a map field.
#[inline]
pub fn len_map<V: Field>(number: u32, map: Option<&BTreeMap<String, V>>) -> usize {
    map.into_iter()
        .flatten()
        .map(|(key, value)| {
            let entry = entry_len(key, value);
            key_len(number) + encoded_len_varint(entry as u64) + entry
        })
        .sum()
}

/// Writes a map field: one entry message per key, in key order (Go sorts the keys).
#[inline]
pub fn encode_map<V: Field>(number: u32, map: Option<&BTreeMap<String, V>>, buf: &mut Vec<u8>) {
    for (key, value) in map.into_iter().flatten() {
        encode_key(number, WireType::LengthDelimited, buf);
        encode_varint(entry_len(key, value) as u64, buf);
        encode_field(1, key, buf);
        encode_field(2, value, buf);
    }
}

/// The bytes of one map entry (a length-delimited message of key 1 and value 2), shared by
/// plain maps and maps of wrapped lists.
#[inline]
fn map_entry<'a>(wire: WireType, input: &mut Input<'a>) -> Result<Input<'a>, DecodeError> {
    if wire != WireType::LengthDelimited {
        return Err(input.error(format!(
            "expected a map entry (wire type LengthDelimited), but the key says {wire:?}"
        )));
    }
    input.delimited()
}

#[inline]
fn merge_entry<V: Field>(
    map: &mut BTreeMap<String, V>,
    wire: WireType,
    input: &mut Input<'_>,
) -> Result<(), DecodeError> {
    let mut entry = map_entry(wire, input)?;
    let mut key = String::new();
    let mut value = V::placeholder();
    let mut has_value = false;
    while !entry.is_empty() {
        match entry.key()? {
            (1, wire) => merge_into(&mut key, wire, &mut entry)?,
            (2, wire) => {
                merge_into(&mut value, wire, &mut entry).map_err(|e| e.key(&key))?;
                has_value = true;
            }
            (_, wire) => entry.skip(wire)?,
        }
    }
    map.insert(key, if has_value { value } else { V::zero() });
    Ok(())
}

/// Reads one entry of a map field.
///
/// # Errors
/// See [`merge_into`]; the error names the field `name` and the key.
#[inline]
pub fn merge_map<V: Field>(
    map: &mut BTreeMap<String, V>,
    wire: WireType,
    input: &mut Input<'_>,
    name: &'static str,
) -> Result<(), DecodeError> {
    merge_entry(map, wire, input).map_err(|e| e.field(name))
}

/// [`merge_map`] into an optional map: no entry reads as `None`.
///
/// # Errors
/// See [`merge_map`].
#[inline]
pub fn merge_map_optional<V: Field>(
    map: &mut Option<BTreeMap<String, V>>,
    wire: WireType,
    input: &mut Input<'_>,
    name: &'static str,
) -> Result<(), DecodeError> {
    merge_map(map.get_or_insert_with(BTreeMap::new), wire, input, name)
}

#[inline]
fn items_entry_len<T: Field>(key: &String, items: &[T]) -> (usize, usize) {
    let inner = len_repeated(1, items);
    let entry = field_len(1, key) + key_len(2) + encoded_len_varint(inner as u64) + inner;
    (entry, inner)
}

/// Length of a map whose values are lists in one-field wrapper messages (`ExtraValue`:
/// `{repeated string items = 1}`).
#[inline]
pub fn len_items_map<T: Field>(number: u32, map: Option<&BTreeMap<String, Vec<T>>>) -> usize {
    map.into_iter()
        .flatten()
        .map(|(key, items)| {
            let (entry, _) = items_entry_len(key, items);
            key_len(number) + encoded_len_varint(entry as u64) + entry
        })
        .sum()
}

/// Writes a map whose values are lists in wrapper messages.
#[inline]
pub fn encode_items_map<T: Field>(
    number: u32,
    map: Option<&BTreeMap<String, Vec<T>>>,
    buf: &mut Vec<u8>,
) {
    for (key, items) in map.into_iter().flatten() {
        let (entry, inner) = items_entry_len(key, items);
        encode_key(number, WireType::LengthDelimited, buf);
        encode_varint(entry as u64, buf);
        encode_field(1, key, buf);
        encode_key(2, WireType::LengthDelimited, buf);
        encode_varint(inner as u64, buf);
        encode_repeated(1, items, buf);
    }
}

/// Reads one entry of a map whose values are lists in wrapper messages.
///
/// # Errors
/// See [`merge_into`]; the error names the field `name` and the key.
#[inline]
pub fn merge_items_map<T: Field>(
    map: &mut Option<BTreeMap<String, Vec<T>>>,
    wire: WireType,
    input: &mut Input<'_>,
    name: &'static str,
) -> Result<(), DecodeError> {
    merge_items_entry(map.get_or_insert_with(BTreeMap::new), wire, input).map_err(|e| e.field(name))
}

#[inline]
fn merge_items_entry<T: Field>(
    map: &mut BTreeMap<String, Vec<T>>,
    wire: WireType,
    input: &mut Input<'_>,
) -> Result<(), DecodeError> {
    let mut entry = map_entry(wire, input)?;
    let mut key = String::new();
    let mut items = Vec::new();
    while !entry.is_empty() {
        match entry.key()? {
            (1, wire) => merge_into(&mut key, wire, &mut entry)?,
            (2, WireType::LengthDelimited) => {
                let mut wrapper = entry.delimited()?;
                while !wrapper.is_empty() {
                    match wrapper.key()? {
                        (1, wire) => merge_element(&mut items, 1, wire, &mut wrapper)
                            .map_err(|e| e.field("items").key(&key))?,
                        (_, wire) => wrapper.skip(wire)?,
                    }
                }
            }
            (_, wire) => entry.skip(wire)?,
        }
    }
    map.insert(key, items);
    Ok(())
}

/// The length of the protobuf fields `extra` keeps.
#[inline]
pub fn len_unknown<T>(extra: &ExtraFields<T>) -> usize {
    extra.protobuf_unknown().len()
}

/// Writes the protobuf fields `extra` keeps, as they were read.
#[inline]
pub fn encode_unknown<T>(extra: &ExtraFields<T>, buf: &mut Vec<u8>) {
    buf.extend_from_slice(extra.protobuf_unknown());
}

/// Keeps a field the message does not know, key and value, as read.
///
/// # Errors
/// When the value's bytes are cut short.
#[inline]
pub fn merge_unknown<T>(
    extra: &mut ExtraFields<T>,
    number: u32,
    wire: WireType,
    input: &mut Input<'_>,
) -> Result<(), DecodeError> {
    let start = input.rest();
    input.skip(wire)?;
    let value = &start[..start.len() - input.rest().len()];
    let mut bytes = Vec::with_capacity(key_len(number) + value.len());
    encode_key(number, wire, &mut bytes);
    bytes.extend_from_slice(value);
    extra.push_protobuf_unknown(&bytes);
    Ok(())
}

/// Skips a field the message does not know, for a struct that keeps no unknown fields.
///
/// # Errors
/// When the value's bytes are cut short.
#[inline]
pub fn skip_unknown(wire: WireType, input: &mut Input<'_>) -> Result<(), DecodeError> {
    input.skip(wire)
}

/// The length of an embedded Go struct's field whose content is `len` bytes long.
#[inline]
pub fn len_embedded(number: u32, len: usize) -> usize {
    key_len(number) + encoded_len_varint(len as u64) + len
}

/// Writes the key and length of an embedded Go struct's field (always written, as Go
/// writes a value field); its content follows.
#[inline]
pub fn encode_embedded(number: u32, len: usize, buf: &mut Vec<u8>) {
    encode_key(number, WireType::LengthDelimited, buf);
    encode_varint(len as u64, buf);
}

/// Reads an embedded Go struct's field, each of its fields through `merge` (its fields are
/// the struct's own properties in JSON, so the path names them without the embedding).
///
/// # Errors
/// A wire type other than length-delimited, or what `merge` says.
#[inline]
pub fn merge_embedded(
    wire: WireType,
    input: &mut Input<'_>,
    mut merge: impl FnMut(u32, WireType, &mut Input<'_>) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    if wire != WireType::LengthDelimited {
        return Err(input.error(format!(
            "expected an embedded message (wire type LengthDelimited), but the key says {wire:?}"
        )));
    }
    let mut inner = input.delimited()?;
    while !inner.is_empty() {
        let (number, wire) = inner.key()?;
        merge(number, wire, &mut inner)?;
    }
    Ok(())
}

/// The length of an empty object's field (a schema without properties, a message without
/// fields): written when set.
#[inline]
pub fn len_empty(number: u32, value: Option<&serde_json::Value>) -> usize {
    value.map_or(0, |_| key_len(number) + 1)
}

/// Writes an empty object's field when set: an empty message.
#[inline]
pub fn encode_empty(number: u32, value: Option<&serde_json::Value>, buf: &mut Vec<u8>) {
    if value.is_some() {
        encode_key(number, WireType::LengthDelimited, buf);
        buf.push(0);
    }
}

/// Reads an empty object's field: `{}`, its content skipped.
///
/// # Errors
/// A wire type other than length-delimited, or content cut short.
#[inline]
pub fn merge_empty(
    slot: &mut Option<serde_json::Value>,
    wire: WireType,
    input: &mut Input<'_>,
    name: &'static str,
) -> Result<(), DecodeError> {
    if wire != WireType::LengthDelimited {
        return Err(input
            .error(format!(
                "expected a message (wire type LengthDelimited), but the key says {wire:?}"
            ))
            .field(name));
    }
    input.delimited().map_err(|e| e.field(name))?;
    *slot = Some(serde_json::Value::Object(serde_json::Map::new()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Field `number` holding `text`, as Go writes a string.
    fn string_field(number: u32, text: &str, buf: &mut Vec<u8>) {
        encode_field(number, &text.to_owned(), buf);
    }

    #[test]
    fn a_map_entry_without_a_value_reads_as_the_zero() {
        // `limits` (field 7): {key = "cpu"} without a value, then {key = "memory", value =
        // {string = "1Gi"}}. A `Quantity` is read into a placeholder, not its zero; an entry
        // that never reads a value still holds the zero, `"0"`.
        let mut bytes = Vec::new();
        for (key, value) in [("cpu", None), ("memory", Some("1Gi"))] {
            let mut entry = Vec::new();
            string_field(1, key, &mut entry);
            if let Some(value) = value {
                encode_field(2, &crate::Quantity::from(value), &mut entry);
            }
            encode_key(7, WireType::LengthDelimited, &mut bytes);
            encode_varint(entry.len() as u64, &mut bytes);
            bytes.extend_from_slice(&entry);
        }
        let mut map: Option<BTreeMap<String, crate::Quantity>> = None;
        let mut input = Input::new(&bytes);
        while !input.is_empty() {
            let (_, wire) = input.key().unwrap();
            merge_map_optional(&mut map, wire, &mut input, "limits").unwrap();
        }
        let map = map.unwrap();
        assert_eq!(map["cpu"].as_str(), "0");
        assert!(map["cpu"].is_valid());
        assert_eq!(map["memory"].as_str(), "1Gi");
        // An optional one reads as what it says, and a second value replaces the first.
        let mut one = Vec::new();
        encode_field(3, &crate::Quantity::from("500m"), &mut one);
        encode_field(3, &crate::Quantity::from("2"), &mut one);
        let mut input = Input::new(&one);
        let mut slot: Option<crate::Quantity> = None;
        let mut texts = Vec::new();
        while !input.is_empty() {
            let (_, wire) = input.key().unwrap();
            merge_optional(&mut slot, wire, &mut input, "cpu").unwrap();
            texts.push(slot.as_ref().map(|q| q.as_str().to_owned()));
        }
        assert_eq!(texts, [Some("500m".to_owned()), Some("2".to_owned())]);
    }

    #[test]
    fn a_decoded_list_holds_exactly_the_elements_written_one_after_the_other() {
        // Field 3 three times, field 4, then field 3 once more (not next to the others).
        let mut bytes = Vec::new();
        for text in ["a", "bb", "ccc"] {
            string_field(3, text, &mut bytes);
        }
        encode_field(4, &7_i64, &mut bytes);
        string_field(3, "d", &mut bytes);
        let mut input = Input::new(&bytes);
        let mut values: Vec<String> = Vec::new();
        let mut capacities = Vec::new();
        while !input.is_empty() {
            match input.key().unwrap() {
                (3, wire) => merge_repeated(&mut values, 3, wire, &mut input, "x").unwrap(),
                (_, wire) => input.skip(wire).unwrap(),
            }
            capacities.push(values.capacity());
        }
        assert_eq!(values, ["a", "bb", "ccc", "d"]);
        // Room for the three adjacent ones at the first; the fourth grows the list.
        assert_eq!(capacities[..4], [3, 3, 3, 3]);
        assert!(capacities[4] >= 4);
        // One element alone takes one element's room, not the four of a growing `Vec`.
        let mut one = Vec::new();
        string_field(3, "only", &mut one);
        encode_field(4, &7_i64, &mut one);
        let mut input = Input::new(&one);
        let mut values: Option<Vec<String>> = None;
        let (number, wire) = input.key().unwrap();
        merge_repeated_optional(&mut values, number, wire, &mut input, "x").unwrap();
        assert_eq!(values.as_ref().map(Vec::capacity), Some(1));
        // A cut-short element after the first is counted out, and its error is the decode's.
        let mut cut = Vec::new();
        string_field(3, "a", &mut cut);
        cut.extend_from_slice(&[0x1a, 0x05, b'x']);
        let mut input = Input::new(&cut);
        let mut values: Vec<String> = Vec::new();
        let (number, wire) = input.key().unwrap();
        merge_repeated(&mut values, number, wire, &mut input, "x").unwrap();
        assert_eq!(values.capacity(), 1);
        let (number, wire) = input.key().unwrap();
        let error = merge_repeated(&mut values, number, wire, &mut input, "x").unwrap_err();
        assert_eq!(error.offset(), 4, "{error}");
    }
}
