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
//! What kubeforge generates goes further than this example: the struct implements
//! [`ReadFields`] (its name, its fields' names, which are required, a `match` from a key to
//! its field's index, and one function that reads one field's value into the struct) and
//! [`Empty`] (the struct built of placeholders, `None` for every optional field), and so
//! [`InPlace`]: the loop over the keys, duplicate and missing fields are one generic body here
//! ([`read_fields`]), and each value is read straight into its field ([`read`],
//! [`read_optional_struct`], [`read_struct_list`], …), a struct field of another struct or an
//! item of a list of structs in place instead of being returned and moved at every level.
//! `Deserialize` is [`deserialize`] over it. A struct with a required field whose type has
//! no placeholder (a union, a user's type, a boxed struct) keeps the shape of the example,
//! reading into slots ([`Fields`], [`NamedKey`], [`value`], [`struct_value`], …) in its own
//! [`InPlace::visit_map`].
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
/// reads it (the same errors), into a `Vec` whose capacity is its length.
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
                Some(item) => {
                    // Room for exactly one at first (`push` would make room for four), and
                    // the list's spare room given back at the end: the list holds what it
                    // read and no more. Most of an object's lists hold one item, and a
                    // decoded object whose lists carry no empty room is smaller and lies
                    // closer together in memory, which serializing it runs faster over
                    // (BENCHMARKS.md, section c).
                    if list.capacity() == 0 {
                        list.reserve_exact(1);
                    }
                    list.push(item);
                }
                None => return Err(de::Error::custom("the deserializer did not read a struct")),
            }
        }
        list.shrink_to_fit();
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

/// A value to build a struct with before its fields are read: `None` for an optional field,
/// and this for a required one, overwritten when the field is read (a required field the
/// input lacks is an error, so the placeholder is never handed out). Implemented for the
/// types a required field has, and by every struct that reads field by field
/// ([`ReadFields`]).
pub trait Empty {
    /// The placeholder.
    fn empty() -> Self;
}

macro_rules! empty_by_default {
    ($($ty:ty),* $(,)?) => {$(
        impl Empty for $ty {
            #[inline]
            fn empty() -> Self {
                <$ty>::default()
            }
        }
    )*};
}

empty_by_default!(
    bool,
    i32,
    i64,
    u32,
    u64,
    f64,
    String,
    serde_json::Value,
    crate::IntOrString,
    crate::Quantity,
    crate::Time,
    crate::MicroTime,
    crate::ByteString,
    crate::DateTime,
    crate::Number,
);

impl<T> Empty for Vec<T> {
    #[inline]
    fn empty() -> Self {
        Vec::new()
    }
}

impl<K: Ord, V> Empty for std::collections::BTreeMap<K, V> {
    #[inline]
    fn empty() -> Self {
        std::collections::BTreeMap::new()
    }
}

impl<T> Empty for Option<T> {
    #[inline]
    fn empty() -> Self {
        None
    }
}

/// A struct whose `Default` is its placeholder ([`Empty`]): every field optional and none
/// an apiVersion/kind marker (a marker's default is present, its placeholder absent). Its
/// impl has no body, where an `Empty` impl of its own is one more body per struct for
/// rustc to check and keep (246 of the 738 structs of Kubernetes 1.36 read field by field).
pub trait DefaultIsEmpty: Default {}

impl<T: DefaultIsEmpty> Empty for T {
    #[inline]
    fn empty() -> Self {
        T::default()
    }
}

/// What the runtime needs to know of a struct read field by field ([`ReadFields::TABLE`]).
#[derive(Debug)]
pub struct Table {
    /// The struct's name, as `deserialize_struct` takes it.
    pub name: &'static str,
    /// The JSON names of the fields, in declaration order: a field is its index here.
    pub names: &'static [&'static str],
    /// The indexes in `names` of the required fields, in declaration order: the first one
    /// the input lacks is the error (`missing field `name``).
    pub required: &'static [usize],
}

/// A struct read field by field, in place: what kubeforge generates for each struct is this
/// table (its name, its fields' names, which are required) and one function that reads the
/// value of one field into the struct; the loop over the keys, the lookup of a key among
/// [`Table::names`], duplicate and missing fields are the runtime's
/// ([`read_fields`]), compiled once per map access and struct where a document is read, not
/// type-checked once per struct where the struct is defined. Every such struct reads in
/// place ([`InPlace`]).
pub trait ReadFields<'de>: Empty {
    /// The struct's name, its fields' names and which are required: one constant, where
    /// three cost rustc two more bodies to check and evaluate for every struct.
    const TABLE: Table;

    /// Reads the value of the field named `name` into `self`, marking it in `seen` first
    /// (a field read twice is an error, found before its value is read, as the derive's); a
    /// name the struct does not have is kept ([`extra_named`]) or skipped ([`skip`]).
    /// Generated as a `match` on the names, whose arms each call one reader with the field's
    /// index in [`Table::names`]: the key is compared with constants inline (a
    /// search of the table in the runtime called `memcmp` for every name of the key's
    /// length: +7 to +11% instructions to read a Pod, BENCHMARKS.md g), and the lookup and
    /// the read are one body per struct.
    ///
    /// # Errors
    ///
    /// The map's, and the field value's.
    fn read_field<A: MapAccess<'de>>(
        &mut self,
        name: &str,
        map: &mut A,
        seen: &mut Seen,
    ) -> Result<(), A::Error>;
}

impl<'de, T: ReadFields<'de>> InPlace<'de> for T {
    const NAME: &'static str = <T as ReadFields<'de>>::TABLE.name;
    const NAMES: &'static [&'static str] = <T as ReadFields<'de>>::TABLE.names;

    #[inline]
    fn visit_map<A: MapAccess<'de>>(map: A, place: &mut Option<Self>) -> Result<(), A::Error> {
        read_fields(map, place)
    }
}

/// The fields of a struct already read, one bit each, with their names: a field read twice
/// is `duplicate field `name``. Made by [`read_fields`]; the readers mark their field.
pub struct Seen {
    bits: Bits,
    names: &'static [&'static str],
}

enum Bits {
    Few(u128),
    Many(Vec<u64>),
}

impl Seen {
    #[inline]
    fn new(names: &'static [&'static str]) -> Self {
        let bits = if names.len() <= 128 {
            Bits::Few(0)
        } else {
            Bits::Many(vec![0; names.len().div_ceil(64)])
        };
        Seen { bits, names }
    }

    /// Marks `field` read; `duplicate field `name`` when it already was.
    #[inline]
    fn mark<E: de::Error>(&mut self, field: usize) -> Result<(), E> {
        let fresh = match &mut self.bits {
            Bits::Few(bits) => {
                let bit = 1u128 << field;
                let fresh = *bits & bit == 0;
                *bits |= bit;
                fresh
            }
            Bits::Many(words) => {
                let (word, bit) = (field / 64, 1u64 << (field % 64));
                let fresh = words[word] & bit == 0;
                words[word] |= bit;
                fresh
            }
        };
        if fresh {
            Ok(())
        } else {
            Err(E::duplicate_field(self.names[field]))
        }
    }

    #[inline]
    fn contains(&self, field: usize) -> bool {
        match &self.bits {
            Bits::Few(bits) => *bits & (1u128 << field) != 0,
            Bits::Many(words) => words[field / 64] & (1u64 << (field % 64)) != 0,
        }
    }
}

/// The visitor's `visit_map` of every struct that reads field by field ([`ReadFields`]):
/// builds the struct into `place` from its placeholders ([`Empty`]), then reads each key's
/// value into its field; a field read twice is `duplicate field `name``, a required field
/// never read `missing field `name``, in the order of the fields, as the derive's.
///
/// # Errors
///
/// The map's, and the fields'.
pub fn read_fields<'de, T, A>(mut map: A, place: &mut Option<T>) -> Result<(), A::Error>
where
    T: ReadFields<'de>,
    A: MapAccess<'de>,
{
    let this = place.insert(T::empty());
    let mut seen = Seen::new(T::TABLE.names);
    let mut buffer = String::new();
    while let Some(borrowed) = map.next_key_seed(KeyName(&mut buffer))? {
        let name = borrowed.unwrap_or(buffer.as_str());
        this.read_field(name, &mut map, &mut seen)?;
    }
    for &field in T::TABLE.required {
        if !seen.contains(field) {
            return Err(de::Error::missing_field(T::TABLE.names[field]));
        }
    }
    Ok(())
}

/// Reads an object key as the input's own text where the deserializer lends it (a JSON
/// key without escapes read from a slice or string), else into the buffer it borrows
/// (`None`): no copy of a key in the common case.
struct KeyName<'a>(&'a mut String);

impl<'de> DeserializeSeed<'de> for KeyName<'_> {
    type Value = Option<&'de str>;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Option<&'de str>, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for KeyName<'_> {
    type Value = Option<&'de str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<Option<&'de str>, E> {
        Ok(Some(name))
    }

    #[inline]
    fn visit_str<E: de::Error>(self, name: &str) -> Result<Option<&'de str>, E> {
        name.clone_into(self.0);
        Ok(None)
    }

    #[inline]
    fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<Option<&'de str>, E> {
        match std::str::from_utf8(name) {
            Ok(name) => self.visit_str(name),
            Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(name), &self)),
        }
    }
}

/// Reads a field's value into the field ([`ReadFields::read_field`]): `T` is the field's
/// type, so an optional field (`Option<T>`) reads `null` as `None`.
///
/// # Errors
///
/// When the value does not deserialize as `T`.
///
/// Not inlined, as [`value`]: one copy per map access and field type.
#[inline(never)]
pub fn read<'de, A, T>(
    map: &mut A,
    field: &mut T,
    seen: &mut Seen,
    index: usize,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    seen.mark(index)?;
    *field = map.next_value()?;
    Ok(())
}

/// [`read`] for a field of `type: integer` without a format (see [`integral_value`]).
///
/// # Errors
///
/// When the value does not deserialize as `T`.
///
/// Not inlined, as [`value`].
#[inline(never)]
pub fn read_integral<'de, A, T>(
    map: &mut A,
    field: &mut T,
    seen: &mut Seen,
    index: usize,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    seen.mark(index)?;
    *field = map.next_value_seed(crate::integer::Integral::new())?;
    Ok(())
}

/// [`read`] for a field whose type admits `null` (`nullable: true`): `T` is the value's type
/// (itself an `Option`), kept as `Some`, so that `null` and absent stay apart.
///
/// # Errors
///
/// When the value does not deserialize as `T`.
///
/// Not inlined, as [`value`].
#[inline(never)]
pub fn read_some<'de, A, T>(
    map: &mut A,
    field: &mut Option<T>,
    seen: &mut Seen,
    index: usize,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    seen.mark(index)?;
    *field = Some(map.next_value()?);
    Ok(())
}

/// [`read_some`] for a field of `type: integer` without a format (see [`integral_value`]).
///
/// # Errors
///
/// When the value does not deserialize as `T`.
///
/// Not inlined, as [`value`].
#[inline(never)]
pub fn read_some_integral<'de, A, T>(
    map: &mut A,
    field: &mut Option<T>,
    seen: &mut Seen,
    index: usize,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    seen.mark(index)?;
    *field = Some(map.next_value_seed(crate::integer::Integral::new())?);
    Ok(())
}

/// [`read`] for a required field whose type is a generated struct, read in place
/// ([`InPlace`]) and moved once into the field.
///
/// # Errors
///
/// When the value does not deserialize as `T`.
///
/// Not inlined, as [`value`].
#[inline(never)]
pub fn read_struct<'de, A, T>(
    map: &mut A,
    field: &mut T,
    seen: &mut Seen,
    index: usize,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: InPlace<'de>,
{
    seen.mark(index)?;
    let mut place = None;
    map.next_value_seed(Slot(&mut place))?;
    match place {
        Some(value) => {
            *field = value;
            Ok(())
        }
        None => Err(de::Error::custom("the deserializer did not read a struct")),
    }
}

/// [`read`] for an optional field whose type is a generated struct: `null` reads as `None`,
/// anything else in place ([`InPlace`]) into the field itself.
///
/// # Errors
///
/// When the value does not deserialize as `T`.
///
/// Not inlined, as [`value`].
#[inline(never)]
pub fn read_optional_struct<'de, A, T>(
    map: &mut A,
    field: &mut Option<T>,
    seen: &mut Seen,
    index: usize,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: InPlace<'de>,
{
    seen.mark(index)?;
    map.next_value_seed(OptionField(field))
}

/// Reads `null` as `None` and a struct in place into the `Option` it borrows.
struct OptionField<'a, T>(&'a mut Option<T>);

impl<'de, T: InPlace<'de>> DeserializeSeed<'de> for OptionField<'_, T> {
    type Value = ();

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, T: InPlace<'de>> Visitor<'de> for OptionField<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option")
    }

    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        *self.0 = None;
        Ok(())
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.visit_none()
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        T::deserialize_into(deserializer, self.0)
    }
}

/// [`read`] for a required field whose type is a list of generated structs, each read in
/// place ([`InPlace`]).
///
/// # Errors
///
/// When the value does not deserialize as a list of `T`.
///
/// Not inlined, as [`value`].
#[inline(never)]
pub fn read_struct_list<'de, A, T>(
    map: &mut A,
    field: &mut Vec<T>,
    seen: &mut Seen,
    index: usize,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: InPlace<'de>,
{
    seen.mark(index)?;
    *field = map.next_value_seed(List(PhantomData))?;
    Ok(())
}

/// [`read_struct_list`] for an optional field: `null` reads as `None`.
///
/// # Errors
///
/// When the value does not deserialize as a list of `T`.
///
/// Not inlined, as [`value`].
#[inline(never)]
pub fn read_optional_struct_list<'de, A, T>(
    map: &mut A,
    field: &mut Option<Vec<T>>,
    seen: &mut Seen,
    index: usize,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: InPlace<'de>,
{
    seen.mark(index)?;
    *field = map.next_value_seed(OptionalList(PhantomData))?;
    Ok(())
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

/// [`extra`] for a struct read field by field ([`ReadFields::read_field`]), whose key is
/// not in a buffer of its own.
///
/// # Errors
///
/// When the value does not deserialize as `T`.
///
/// Cold and out of line, as [`extra`].
#[cold]
#[inline(never)]
pub fn extra_named<'de, A, T>(
    map: &mut A,
    extra: &mut crate::ExtraFields<T>,
    name: &str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    let value = map.next_value()?;
    extra.insert(name.to_owned(), value);
    Ok(())
}

/// [`extra_named`] for values of `type: integer` without a format (see [`integral_extra`]).
///
/// # Errors
///
/// When the value does not deserialize as `T`.
///
/// Cold and out of line, as [`extra`].
#[cold]
#[inline(never)]
pub fn integral_extra_named<'de, A, T>(
    map: &mut A,
    extra: &mut crate::ExtraFields<T>,
    name: &str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    let value = map.next_value_seed(crate::integer::Integral::new())?;
    extra.insert(name.to_owned(), value);
    Ok(())
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

/// A struct whose `Serialize` kubeforge writes: its fields, each written into the map with
/// one call of [`Entries`]. The generated `Serialize` is [`serialize`] over it.
pub trait WriteFields {
    /// Writes the struct's fields into `state`, in order, up to the first that fails:
    ///
    /// ```text
    /// 'entries: {
    ///     if state.optional("name", self.name.as_ref()) {
    ///         break 'entries;
    ///     }
    ///     …
    /// }
    /// ```
    fn write_fields<M: SerializeMap>(&self, state: &mut Entries<M>);
}

/// The `Serialize` of every struct that writes its fields with [`WriteFields`]: a map of
/// its fields. A human-readable format (JSON, YAML) writes a map's entries as they come and
/// is not told their number, as serde's derive does for a struct with a flattened field; a
/// compact one (bincode, MessagePack, CBOR) is told the exact number, counted by writing the
/// fields once into a counter, so that the length and the entries come from the same calls.
///
/// # Errors
///
/// The serializer's, and those of the fields' values.
#[inline]
pub fn serialize<T, S>(value: &T, serializer: S) -> Result<S::Ok, S::Error>
where
    T: WriteFields + ?Sized,
    S: serde::Serializer,
{
    let len = if serializer.is_human_readable() {
        None
    } else {
        let mut counter = Entries::new(Counter(0));
        value.write_fields(&mut counter);
        counter.end().ok()
    };
    let mut state = Entries::new(serializer.serialize_map(len)?);
    value.write_fields(&mut state);
    state.end()
}

/// The `Debug` of every generated struct: its name, then the object as JSON, as the API
/// server would send it (`Pod {"apiVersion":"v1","kind":"Pod",…}`); `{:#?}` indents it
/// by four spaces, as `Debug` indents. Absent fields are left out, where a derived `Debug`
/// spells every `None` of a Kubernetes object. The derive was the dearest derive for rustc
/// (an inline body with a `&dyn Debug` per field): this one generic body is compiled only
/// where an object is printed (BENCHMARKS.md b).
///
/// # Errors
///
/// When the formatter fails, or (never for a generated struct) when the value is not
/// representable as JSON.
pub fn debug<T: Serialize + ?Sized>(
    value: &T,
    name: &str,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    let mut text = Vec::with_capacity(128);
    let written = if f.alternate() {
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
        value.serialize(&mut serde_json::Serializer::with_formatter(
            &mut text, formatter,
        ))
    } else {
        value.serialize(&mut serde_json::Serializer::new(&mut text))
    };
    written.map_err(|_| fmt::Error)?;
    f.write_str(name)?;
    f.write_str(" ")?;
    f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
}

/// A map that only counts its entries, for [`serialize`]'s compact formats.
struct Counter(usize);

/// [`Counter`]'s error, which it never returns.
#[derive(Debug)]
struct Uncounted;

impl fmt::Display for Uncounted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an entry that was not counted")
    }
}

impl std::error::Error for Uncounted {}

impl serde::ser::Error for Uncounted {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Uncounted
    }
}

impl SerializeMap for Counter {
    type Ok = usize;
    type Error = Uncounted;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, _: &T) -> Result<(), Uncounted> {
        self.0 += 1;
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, _: &T) -> Result<(), Uncounted> {
        Ok(())
    }

    fn serialize_entry<K, V>(&mut self, _: &K, _: &V) -> Result<(), Uncounted>
    where
        K: Serialize + ?Sized,
        V: Serialize + ?Sized,
    {
        self.0 += 1;
        Ok(())
    }

    fn end(self) -> Result<usize, Uncounted> {
        Ok(self.0)
    }
}

/// A struct's map being written, entry by entry: what each generated [`WriteFields`] writes
/// its fields into, one call per field, each returning whether it failed, in place of a `?`
/// (each `?` of a generic body is `Try` and `From` obligations to type-check over the
/// serializer's error type: the entries' `?` were 7% of a CRD crate's rustc instructions;
/// BENCHMARKS.md, section g). An entry that fails keeps its error, which
/// [`end`](Self::end) returns; the generated code writes no entry after it, as with `?`.
pub struct Entries<M: SerializeMap> {
    map: M,
    error: Option<M::Error>,
}

impl<M: SerializeMap> Entries<M> {
    /// Writes into `map`, as `serialize_map` returned it.
    #[inline]
    pub fn new(map: M) -> Self {
        Entries { map, error: None }
    }

    /// Writes a required entry; whether it failed.
    #[inline]
    #[must_use = "an entry that failed ends the map: `return state.end()`"]
    pub fn entry<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) -> bool {
        let result = self.map.serialize_entry(name, value);
        self.failed(result)
    }

    /// Writes an optional entry: its value when `Some`, nothing when `None`; whether it
    /// failed.
    #[inline]
    #[must_use = "an entry that failed ends the map: `return state.end()`"]
    pub fn optional<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: Option<&T>,
    ) -> bool {
        match value {
            Some(value) => self.entry(name, value),
            None => false,
        }
    }

    /// Writes an entry only when `present` (the `apiVersion` and `kind` markers); whether it
    /// failed.
    #[inline]
    #[must_use = "an entry that failed ends the map: `return state.end()`"]
    pub fn entry_if<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
        present: bool,
    ) -> bool {
        present && self.entry(name, value)
    }

    /// Writes the entries of an [`ExtraFields`](crate::ExtraFields) field as the struct's
    /// own keys, in order; whether one failed.
    #[inline]
    #[must_use = "an entry that failed ends the map: `return state.end()`"]
    pub fn extra<T: Serialize>(&mut self, extra: &crate::ExtraFields<T>) -> bool {
        let result = extra_entries(&mut self.map, extra);
        self.failed(result)
    }

    /// Keeps `result`'s error; whether there was one.
    #[inline]
    fn failed(&mut self, result: Result<(), M::Error>) -> bool {
        match result {
            Ok(()) => false,
            Err(error) => self.keep(error),
        }
    }

    /// Keeps the error of the entry that failed (out of line: the path of every entry that
    /// succeeds stays as short as a `?`).
    #[cold]
    #[inline(never)]
    fn keep(&mut self, error: M::Error) -> bool {
        self.error = Some(error);
        true
    }

    /// Ends the map, or returns the error of the entry that failed.
    ///
    /// # Errors
    ///
    /// The serializer's: the failed entry's, else the map's end's.
    #[inline]
    pub fn end(self) -> Result<M::Ok, M::Error> {
        match self.error {
            None => self.map.end(),
            Some(error) => Err(error),
        }
    }
}

/// Writes the entries of an [`ExtraFields`](crate::ExtraFields) field as the struct's own
/// keys, in order, up to the first error (an apply configuration's `Serialize`, and
/// [`Entries::extra`]).
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

#[cfg(test)]
mod tests {
    use super::{
        Empty, ReadFields, Seen, Table, extra_named, read, read_optional_struct, read_struct,
    };
    use serde::de::MapAccess;

    /// A struct as kubeforge generates it, read field by field.
    #[derive(Debug, PartialEq)]
    struct Inner {
        name: String,
        unknown_fields: crate::UnknownFields,
    }

    impl Empty for Inner {
        fn empty() -> Self {
            Inner {
                name: Empty::empty(),
                unknown_fields: crate::ExtraFields::new(),
            }
        }
    }

    impl<'de> ReadFields<'de> for Inner {
        const TABLE: Table = Table {
            name: "Inner",
            names: &["name"],
            required: &[0],
        };

        fn read_field<A: MapAccess<'de>>(
            &mut self,
            name: &str,
            map: &mut A,
            seen: &mut Seen,
        ) -> Result<(), A::Error> {
            match name {
                "name" => read(map, &mut self.name, seen, 0),
                _ => extra_named(map, &mut self.unknown_fields, name),
            }
        }
    }

    /// Its fields in declaration order: `inner`, `port` (both required), `spare`, `tag`.
    #[derive(Debug, PartialEq)]
    struct Outer {
        inner: Inner,
        port: i32,
        spare: Option<Inner>,
        tag: Option<String>,
    }

    impl Empty for Outer {
        fn empty() -> Self {
            Outer {
                inner: Empty::empty(),
                port: Empty::empty(),
                spare: None,
                tag: None,
            }
        }
    }

    impl<'de> ReadFields<'de> for Outer {
        const TABLE: Table = Table {
            name: "Outer",
            names: &["inner", "port", "spare", "tag"],
            required: &[0, 1],
        };

        fn read_field<A: MapAccess<'de>>(
            &mut self,
            name: &str,
            map: &mut A,
            seen: &mut Seen,
        ) -> Result<(), A::Error> {
            match name {
                "inner" => read_struct(map, &mut self.inner, seen, 0),
                "port" => read(map, &mut self.port, seen, 1),
                "spare" => read_optional_struct(map, &mut self.spare, seen, 2),
                "tag" => read(map, &mut self.tag, seen, 3),
                _ => super::skip(map),
            }
        }
    }

    fn outer(text: &str) -> Result<Outer, String> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        super::deserialize(&mut deserializer).map_err(|e| e.to_string())
    }

    /// What the generated structs rely on: each value lands in its field (a nested struct in
    /// place, not left at its placeholder), `null` is an absent optional field but counts as
    /// seen, unknown keys are kept in order or skipped, the first required field missing in
    /// declaration order is the error, and a field read twice is a duplicate.
    #[test]
    fn structs_are_read_field_by_field_with_the_derives_errors() {
        let read = outer(
            r#"{"port": 80, "x": [1], "inner": {"name": "a", "z": 1, "y": null}, "spare": null, "tag": "t"}"#,
        )
        .unwrap();
        assert_eq!((read.port, read.tag.as_deref()), (80, Some("t")));
        assert_eq!(read.inner.name, "a");
        let kept: Vec<&str> = read.inner.unknown_fields.keys().collect();
        assert_eq!(kept, ["z", "y"]);
        assert_eq!(read.spare, None);
        let spare = outer(r#"{"port": 1, "inner": {"name": "a"}, "spare": {"name": "b"}}"#);
        assert_eq!(spare.unwrap().spare.unwrap().name, "b");

        for (text, error) in [
            (r#"{}"#, "missing field `inner`"),
            (r#"{"port": 1}"#, "missing field `inner`"),
            (r#"{"inner": {"name": "a"}}"#, "missing field `port`"),
            (r#"{"port": 1, "inner": {}}"#, "missing field `name`"),
            (r#"{"port": 1, "port": 2}"#, "duplicate field `port`"),
            (r#"{"tag": null, "tag": "t"}"#, "duplicate field `tag`"),
            (
                r#"{"inner": {"name": "a"}, "inner": {"name": "b"}}"#,
                "duplicate field `inner`",
            ),
            (
                r#"{"port": "80"}"#,
                "invalid type: string \"80\", expected i32",
            ),
            (
                r#"{"inner": 1}"#,
                "invalid type: integer `1`, expected struct Inner",
            ),
            (r#"[]"#, "invalid type: sequence, expected struct Outer"),
        ] {
            let e = outer(text).unwrap_err();
            assert!(e.starts_with(error), "{text}: {e}");
        }
    }

    /// Past 128 fields the seen fields are words on the heap: each bit is its own field's.
    #[test]
    fn seen_fields_are_kept_one_bit_each_past_128() {
        let names: Vec<&'static str> = (0..200)
            .map(|i| &*Box::leak(format!("f{i}").into_boxed_str()))
            .collect();
        let names: &'static [&'static str] = names.leak();
        let mark = |seen: &mut Seen, field| seen.mark::<serde_json::Error>(field);
        for fields in [2, 64, 128, 129, 200] {
            let mut seen = Seen::new(&names[..fields]);
            let last = fields - 1;
            assert!(
                mark(&mut seen, last).is_ok() && !seen.contains(0),
                "{fields}"
            );
            assert!(
                mark(&mut seen, 0).is_ok() && seen.contains(0) && seen.contains(last),
                "{fields}"
            );
            let again = mark(&mut seen, last).unwrap_err().to_string();
            assert_eq!(again, format!("duplicate field `f{last}`"));
            assert!(mark(&mut seen, 0).is_err(), "{fields}");
            if fields > 2 {
                assert!(!seen.contains(fields / 2), "{fields}");
            }
        }
    }
}
