//! Support for the `Serialize` and `Deserialize` impls that kubeforge writes for structs.
//!
//! kubeforge spells each struct's impls out instead of deriving them: the derive's output is
//! general (sequences, byte and integer field identifiers, a field enum with its own
//! `Deserialize` impl per struct) and costs most of the compile time of a generated API crate.
//! A generated impl is only what a Kubernetes object needs, and the generic parts live here,
//! compiled once:
//!
//! ```
//! use kubeforge_runtime::serde_struct::{self, Fields, Key};
//!
//! #[derive(Debug, PartialEq)]
//! pub struct Port {
//!     pub port: i32,
//!     pub name: Option<String>,
//! }
//!
//! impl<'de> serde::Deserialize<'de> for Port {
//!     fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
//!         struct Visitor;
//!
//!         enum Field {
//!             Port,
//!             Name,
//!         }
//!
//!         impl Fields for Visitor {
//!             const NAMES: &'static [&'static str] = &["port", "name"];
//!
//!             type Field = Field;
//!
//!             fn field(name: &str) -> Option<Field> {
//!                 match name {
//!                     "port" => Some(Field::Port),
//!                     "name" => Some(Field::Name),
//!                     _ => None,
//!                 }
//!             }
//!         }
//!
//!         impl<'de> serde::de::Visitor<'de> for Visitor {
//!             type Value = Port;
//!
//!             fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
//!                 f.write_str("a Port object")
//!             }
//!
//!             fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Port, A::Error> {
//!                 let (mut port, mut name) = (None, None);
//!                 while let Some(field) = map.next_key_seed(Key::<Self>::new())? {
//!                     match field {
//!                         Some(Field::Port) => serde_struct::value(&mut map, &mut port, "port")?,
//!                         Some(Field::Name) => serde_struct::value(&mut map, &mut name, "name")?,
//!                         None => serde_struct::skip(&mut map)?,
//!                     }
//!                 }
//!                 Ok(Port {
//!                     port: serde_struct::required(port, "port")?,
//!                     name: serde_struct::optional(name),
//!                 })
//!             }
//!         }
//!
//!         deserializer.deserialize_struct("Port", Visitor::NAMES, Visitor)
//!     }
//! }
//!
//! let port: Port = serde_json::from_str(r#"{"name":null,"port":80,"extra":[1]}"#)?;
//! assert_eq!(port, Port { port: 80, name: None });
//! let twice = serde_json::from_str::<Port>(r#"{"port":80,"port":81}"#).unwrap_err();
//! assert!(twice.to_string().starts_with("duplicate field `port`"));
//! let missing = serde_json::from_str::<Port>(r#"{"name":"http"}"#).unwrap_err();
//! assert!(missing.to_string().starts_with("missing field `port`"));
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
//! What kubeforge generates goes one step further than this example: the struct itself
//! implements [`Fields`] and [`InPlace`], whose `visit_map` builds it into a
//! `&mut Option<Port>`, so that a struct field of another struct, or an item of a list of
//! structs, is read straight into its parent's slot ([`struct_value`],
//! [`optional_struct_value`], [`struct_list_value`]) instead of being returned and moved at
//! every level; the visitor is the runtime's, and `Deserialize` is [`deserialize`] over it.
//!
//! Their behaviour is the derive's with `skip_serializing_if = "Option::is_none"` on optional
//! fields: unknown fields are skipped, a duplicate field or a missing required one is an
//! error, `null` reads as an absent optional field, and absent optional fields are not
//! written. Unlike the derive, a struct cannot be read from a sequence; JSON objects never are.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

/// The fields of one struct, implemented by its generated `Deserialize` impl.
pub trait Fields {
    /// The JSON names of the fields, in declaration order.
    const NAMES: &'static [&'static str];

    /// What names a field: a fieldless enum with one variant per field. Its variants are
    /// named after the fields, not numbered, so that adding or removing a field changes only
    /// that field's lines of the generated code.
    type Field;

    /// The field named `name`, `None` for a name the struct does not have.
    fn field(name: &str) -> Option<Self::Field>;
}

/// Reads an object key as the field it names (see [`Fields::field`]), without allocating:
/// the key is looked up where the deserializer hands it over, borrowed or not.
pub struct Key<F>(PhantomData<fn() -> F>);

impl<F: Fields> Key<F> {
    /// The seed for [`MapAccess::next_key_seed`].
    #[inline]
    #[must_use]
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<F: Fields> Default for Key<F> {
    #[inline]
    fn default() -> Self {
        Self::new()
    }
}

impl<'de, F: Fields> DeserializeSeed<'de> for Key<F> {
    type Value = Option<F::Field>;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Option<F::Field>, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<F: Fields> Visitor<'_> for Key<F> {
    type Value = Option<F::Field>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    #[inline]
    fn visit_str<E: de::Error>(self, name: &str) -> Result<Option<F::Field>, E> {
        Ok(F::field(name))
    }

    #[inline]
    fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<Option<F::Field>, E> {
        // A name that is not UTF-8 names no field.
        Ok(std::str::from_utf8(name).ok().and_then(F::field))
    }
}

/// Reads the value of a field into its slot; a field seen twice is an error, as with the
/// derive (`duplicate field `name``).
///
/// # Errors
///
/// When the field was already read, or its value does not deserialize as `T`.
///
/// Not inlined: one copy per map access and field type (every `Option<String>` field of
/// every struct calls the same one), so a struct's `visit_map` stays small and the code a
/// document runs through fits the instruction cache better. Measured on 100 Pods
/// (callgrind's cache simulation; BENCHMARKS.md, section c): 13% fewer instruction-cache
/// misses, 5% fewer mispredicted branches, 1.6% more instructions.
#[inline(never)]
pub fn value<'de, A, T>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    value_seed(map, slot, name, PhantomData)
}

/// [`value`] for a field of `type: integer` without a format (or a list, map or option of
/// them): a whole number written with a fraction or exponent (`1.0`) reads as the integer,
/// as the API server reads it (see [`crate::integer`]).
///
/// # Errors
///
/// When the field was already read, or its value does not deserialize as `T`.
///
/// Not inlined, as [`value`].
#[inline(never)]
pub fn integral_value<'de, A, T>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    value_seed(map, slot, name, crate::integer::Integral::new())
}

/// Reads the value of a field through `seed` into its slot, once.
#[inline]
fn value_seed<'de, A, S>(
    map: &mut A,
    slot: &mut Option<S::Value>,
    name: &'static str,
    seed: S,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    S: DeserializeSeed<'de>,
{
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value_seed(seed)?);
    Ok(())
}

/// A struct whose generated `Deserialize` reads it into a slot the caller owns: every struct
/// kubeforge spells the impls out for. A struct field of a struct is read through it
/// ([`struct_value`], [`optional_struct_value`]) straight into the parent's slot, so a nested
/// struct is moved once per level (into its parent when the parent is built), not three
/// times (out of its `visit_map`, out of the deserializer's `deserialize_struct`, into the
/// parent's slot) as a value returned by [`Deserialize::deserialize`] is.
pub trait InPlace<'de>: Sized {
    /// The struct's name, as `deserialize_struct` takes it; errors say "expected struct
    /// NAME".
    const NAME: &'static str;

    /// The JSON names of the struct's fields, as `deserialize_struct` takes them (its
    /// [`Fields::NAMES`]).
    const NAMES: &'static [&'static str];

    /// Reads the struct's fields from `map` into `place`, which is `Some` when this returns
    /// `Ok`: the generated part, the body of a visitor's `visit_map`.
    ///
    /// # Errors
    ///
    /// The map's, and those of the struct's fields.
    fn visit_map<A: MapAccess<'de>>(map: A, place: &mut Option<Self>) -> Result<(), A::Error>;

    /// Reads the struct into `place`, which is `Some` when this returns `Ok`.
    ///
    /// # Errors
    ///
    /// The deserializer's, and those of the struct's fields.
    #[inline]
    fn deserialize_into<D: Deserializer<'de>>(
        deserializer: D,
        place: &mut Option<Self>,
    ) -> Result<(), D::Error> {
        deserializer.deserialize_struct(Self::NAME, Self::NAMES, StructVisitor(place))
    }
}

/// The visitor of every struct that reads in place: its `visit_map` is the struct's
/// [`InPlace::visit_map`]. One generic body here instead of a visitor type, `expecting` and
/// `visit_map` in the generated code of each struct.
struct StructVisitor<'a, T>(&'a mut Option<T>);

impl<'de, T: InPlace<'de>> Visitor<'de> for StructVisitor<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {}", T::NAME)
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        T::visit_map(map, self.0)
    }
}

/// [`Deserialize::deserialize`] of a struct that reads in place ([`InPlace`]).
///
/// # Errors
///
/// The deserializer's, and those of the struct's fields.
#[inline]
pub fn deserialize<'de, T, D>(deserializer: D) -> Result<T, D::Error>
where
    T: InPlace<'de>,
    D: Deserializer<'de>,
{
    let mut place = None;
    T::deserialize_into(deserializer, &mut place)?;
    // A deserializer that returns `Ok` without visiting the map read nothing.
    place.ok_or_else(|| de::Error::custom("the deserializer did not read a struct"))
}

/// [`value`] for a required field whose type is a generated struct: read in place
/// ([`InPlace`]) into the parent's slot.
///
/// # Errors
///
/// When the field was already read, or its value does not deserialize as `T`.
///
/// Not inlined, as [`value`].
#[inline(never)]
pub fn struct_value<'de, A, T>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: InPlace<'de>,
{
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    map.next_value_seed(Slot(slot))
}

/// [`value`] for an optional field whose type is a generated struct: `null` reads as
/// absent, anything else in place ([`InPlace`]) into the parent's slot.
///
/// # Errors
///
/// When the field was already read, or its value does not deserialize as `T`.
///
/// Not inlined, as [`value`].
#[inline(never)]
pub fn optional_struct_value<'de, A, T>(
    map: &mut A,
    slot: &mut Option<Option<T>>,
    name: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: InPlace<'de>,
{
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    map.next_value_seed(OptionSlot(slot))
}

/// [`value`] for a required field whose type is a list of generated structs: each item is
/// read in place ([`InPlace`]) and moved once, into the list.
///
/// # Errors
///
/// When the field was already read, or its value does not deserialize as a list of `T`.
///
/// Not inlined, as [`value`].
#[inline(never)]
pub fn struct_list_value<'de, A, T>(
    map: &mut A,
    slot: &mut Option<Vec<T>>,
    name: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: InPlace<'de>,
{
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value_seed(List(PhantomData))?);
    Ok(())
}

/// [`struct_list_value`] for an optional field: `null` reads as absent.
///
/// # Errors
///
/// When the field was already read, or its value does not deserialize as a list of `T`.
///
/// Not inlined, as [`value`].
#[inline(never)]
pub fn optional_struct_list_value<'de, A, T>(
    map: &mut A,
    slot: &mut Option<Option<Vec<T>>>,
    name: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: InPlace<'de>,
{
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value_seed(OptionalList(PhantomData))?);
    Ok(())
}

/// Reads a list of structs, each in place ([`InPlace`]), as `Vec<T>`'s own `Deserialize`
/// reads it (the same errors and capacity).
struct List<T>(PhantomData<fn() -> T>);

impl<'de, T: InPlace<'de>> DeserializeSeed<'de> for List<T> {
    type Value = Vec<T>;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<T>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: InPlace<'de>> Visitor<'de> for List<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    #[inline]
    fn visit_seq<S: de::SeqAccess<'de>>(self, mut seq: S) -> Result<Vec<T>, S::Error> {
        // As serde's own: at most about 1 MiB reserved on the input's word.
        let cautious = seq
            .size_hint()
            .map_or(0, |n| n.min((1 << 20) / std::mem::size_of::<T>().max(1)));
        let mut list = Vec::with_capacity(cautious);
        let mut place = None;
        while seq.next_element_seed(Slot(&mut place))?.is_some() {
            match place.take() {
                Some(item) => list.push(item),
                None => return Err(de::Error::custom("the deserializer did not read a struct")),
            }
        }
        Ok(list)
    }
}

/// [`List`] behind `Option`: `null` reads as `None`.
struct OptionalList<T>(PhantomData<fn() -> T>);

impl<'de, T: InPlace<'de>> DeserializeSeed<'de> for OptionalList<T> {
    type Value = Option<Vec<T>>;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Option<Vec<T>>, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, T: InPlace<'de>> Visitor<'de> for OptionalList<T> {
    type Value = Option<Vec<T>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option")
    }

    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<Option<Vec<T>>, E> {
        Ok(None)
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<Option<Vec<T>>, E> {
        Ok(None)
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<Vec<T>>, D::Error> {
        List(PhantomData).deserialize(deserializer).map(Some)
    }
}

/// Reads a struct into the slot it borrows.
struct Slot<'a, T>(&'a mut Option<T>);

impl<'de, T: InPlace<'de>> DeserializeSeed<'de> for Slot<'_, T> {
    type Value = ();

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        T::deserialize_into(deserializer, self.0)
    }
}

/// Reads `null` as `Some(None)` and a struct into `Some(Some(…))` of the slot it borrows, as
/// `Option<T>`'s own `Deserialize` would read the value.
struct OptionSlot<'a, T>(&'a mut Option<Option<T>>);

impl<'de, T: InPlace<'de>> DeserializeSeed<'de> for OptionSlot<'_, T> {
    type Value = ();

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, T: InPlace<'de>> Visitor<'de> for OptionSlot<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option")
    }

    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        *self.0 = Some(None);
        Ok(())
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.visit_none()
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        T::deserialize_into(deserializer, self.0.insert(None))
    }
}

/// Skips the value of a key the struct does not have.
///
/// # Errors
///
/// When the value is not well-formed.
///
/// Cold and out of line, as [`extra`].
#[cold]
#[inline(never)]
pub fn skip<'de, A: MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    map.next_value::<IgnoredAny>().map(|IgnoredAny| ())
}

/// The value of a required field.
///
/// # Errors
///
/// `missing field `name`` when the input did not have it.
#[inline]
pub fn required<T, E: de::Error>(slot: Option<T>, name: &'static str) -> Result<T, E> {
    slot.ok_or_else(|| E::missing_field(name))
}

/// The value of an optional field: absent and `null` are both `None`.
#[inline]
#[must_use]
pub fn optional<T>(slot: Option<Option<T>>) -> Option<T> {
    slot.flatten()
}

/// The number of fields a struct writes: `always` plus one for each `true` in `present`
/// (a flat array rather than a sum, which for a struct with thousands of optional fields
/// would be an expression nested thousands deep).
#[inline]
#[must_use]
pub fn len(always: usize, present: &[bool]) -> usize {
    always + present.iter().filter(|&&present| present).count()
}

/// Like [`Key`], and for a name the struct does not have, stores the name in the buffer it
/// borrows (for a struct that keeps such keys in an [`ExtraFields`](crate::ExtraFields)
/// field; see [`extra`]). Known names are still matched without allocating.
pub struct NamedKey<'a, F> {
    name: &'a mut String,
    fields: PhantomData<fn() -> F>,
}

impl<'a, F: Fields> NamedKey<'a, F> {
    /// The seed for [`MapAccess::next_key_seed`], storing unknown names in `name`.
    #[inline]
    pub fn new(name: &'a mut String) -> Self {
        Self {
            name,
            fields: PhantomData,
        }
    }
}

impl<'de, F: Fields> DeserializeSeed<'de> for NamedKey<'_, F> {
    type Value = Option<F::Field>;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Option<F::Field>, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<F: Fields> Visitor<'_> for NamedKey<'_, F> {
    type Value = Option<F::Field>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    #[inline]
    fn visit_str<E: de::Error>(self, name: &str) -> Result<Option<F::Field>, E> {
        let field = F::field(name);
        if field.is_none() {
            name.clone_into(self.name);
        }
        Ok(field)
    }

    #[inline]
    fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<Option<F::Field>, E> {
        match std::str::from_utf8(name) {
            Ok(name) => self.visit_str(name),
            Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(name), &self)),
        }
    }
}

/// Reads the value of the key last stored by [`NamedKey`] into `extra`, under that key.
/// A key seen twice keeps its first position and its last value.
///
/// # Errors
///
/// When the value does not deserialize as `T`.
///
/// Cold and out of line: a key the struct does not know is rare in what the API server
/// writes, and inlined, reading a whole JSON value into every struct's `visit_map` would
/// sit between the arms that do run, in the instruction cache.
#[cold]
#[inline(never)]
pub fn extra<'de, A, T>(
    map: &mut A,
    extra: &mut crate::ExtraFields<T>,
    name: &mut String,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    extra_seed(map, extra, name, PhantomData)
}

/// [`extra`] for values of `type: integer` without a format: a whole number written with a
/// fraction or exponent reads as the integer (see [`crate::integer`]).
///
/// # Errors
///
/// When the value does not deserialize as `T`.
///
/// Cold and out of line, as [`extra`].
#[cold]
#[inline(never)]
pub fn integral_extra<'de, A, T>(
    map: &mut A,
    extra: &mut crate::ExtraFields<T>,
    name: &mut String,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    extra_seed(map, extra, name, crate::integer::Integral::new())
}

/// Reads the value of the key last stored by [`NamedKey`] through `seed` into `extra`.
#[inline]
fn extra_seed<'de, A, S>(
    map: &mut A,
    extra: &mut crate::ExtraFields<S::Value>,
    name: &mut String,
    seed: S,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    S: DeserializeSeed<'de>,
{
    let value = map.next_value_seed(seed)?;
    extra.insert(std::mem::take(name), value);
    Ok(())
}

/// Writes an entry that is only written when `present` (the `apiVersion` and `kind`
/// markers).
///
/// # Errors
///
/// The serializer's.
#[inline]
pub fn entry_if<S, T>(
    state: &mut S,
    name: &'static str,
    value: &T,
    present: bool,
) -> Result<(), S::Error>
where
    S: SerializeMap,
    T: Serialize + ?Sized,
{
    if present {
        state.serialize_entry(name, value)
    } else {
        Ok(())
    }
}

/// Writes an optional entry: its value when `Some`, nothing when `None`.
///
/// # Errors
///
/// The serializer's.
#[inline]
pub fn optional_entry<S, T>(
    state: &mut S,
    name: &'static str,
    value: Option<&T>,
) -> Result<(), S::Error>
where
    S: SerializeMap,
    T: Serialize + ?Sized,
{
    match value {
        Some(value) => state.serialize_entry(name, value),
        None => Ok(()),
    }
}

/// Writes the entries of an [`ExtraFields`](crate::ExtraFields) field as the struct's own
/// keys, in order.
///
/// # Errors
///
/// The serializer's.
#[inline]
pub fn extra_entries<S, T>(state: &mut S, extra: &crate::ExtraFields<T>) -> Result<(), S::Error>
where
    S: SerializeMap,
    T: Serialize,
{
    for (name, value) in extra {
        state.serialize_entry(name, value)?;
    }
    Ok(())
}

/// What a JSON value is, for error messages: `null`, `a boolean`, `an integer`, `a number`,
/// `a string`, `an array` or `an object`.
#[must_use]
pub fn json_type(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
