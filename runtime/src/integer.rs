//! Reading `type: integer` without a `format` as the Kubernetes API server does.
//!
//! An integer without a format is what a CustomResourceDefinition's schema has for a Go
//! `int` (controller-gen writes `format: int32`/`int64` only for the sized types). The API
//! server reads a custom resource into untyped JSON (apimachinery's `UnmarshalCaseSensitivePreserveInts`:
//! a number with a `.` or an exponent is a `float64`), and its structural schema validation
//! (kube-openapi's type validator) accepts a `float64` for `type: integer` when it is a whole
//! number within ±(2⁵³ − 1) (`swag.IsFloat64AJSONInteger`); the object is then stored and
//! served with the number as Go writes a whole `float64`, `1`. So `1.0`, `1e3` and `-2.0E2`
//! are integers there, and `1.5` or `1e300` are not.
//!
//! Generated code reads such a field through [`Integral`]: a whole number written with a
//! fraction or exponent within that range is read as the integer (and written back as one,
//! `1.0` as `1`, as the server stores it); every other value reads as plain serde would. A
//! formatted integer (`int32`, `int64`) is read as Go's typed decoding of Kubernetes' own
//! types reads it, which refuses `1.0`. Unlike the validator, a number with a fraction that
//! is not zero is refused even where its relative difference from a whole number is below
//! 10⁻⁹: no integer holds it.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

/// The largest whole `f64` the API server's validation takes for an integer, 2⁵³ − 1
/// (JavaScript's `Number.MAX_SAFE_INTEGER`).
const MAX_WHOLE: f64 = 9_007_199_254_740_991.0;

/// The integer a JSON number read as a float stands for, when the API server would take it
/// as one: a whole number within ±(2⁵³ − 1).
#[must_use]
pub fn whole(value: f64) -> Option<i64> {
    // Every whole f64 in range converts exactly.
    #[allow(clippy::cast_possible_truncation)]
    (value.is_finite() && value.abs() <= MAX_WHOLE && value.fract() == 0.0).then_some(value as i64)
}

/// Whether a JSON number is an integer as the API server reads one for `type: integer`:
/// written as one, or a whole number written with a fraction or exponent ([`whole`]).
#[must_use]
pub fn is_integer(number: &serde_json::Number) -> bool {
    !number.is_f64() || number.as_f64().and_then(whole).is_some()
}

/// Deserializes `T` with every whole-number float read as an integer ([`whole`]): the seed
/// generated code reads a field of `type: integer` without a format through (also inside a
/// list, map or `Option` of them).
pub struct Integral<T>(PhantomData<fn() -> T>);

impl<T> Integral<T> {
    /// The seed.
    #[must_use]
    pub fn new() -> Self {
        Integral(PhantomData)
    }
}

impl<T> Default for Integral<T> {
    fn default() -> Self {
        Integral::new()
    }
}

impl<T> fmt::Debug for Integral<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Integral")
    }
}

impl<'de, T: de::Deserialize<'de>> DeserializeSeed<'de> for Integral<T> {
    type Value = T;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        T::deserialize(Lenient(deserializer))
    }
}

/// [`Integral`] as a function, for `#[serde(deserialize_with = "…")]` on a field of a struct
/// that keeps serde's derive.
///
/// # Errors
///
/// When the value does not deserialize as `T`, whole-number floats read as integers.
#[inline]
pub fn deserialize<'de, D: Deserializer<'de>, T: de::Deserialize<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    Integral::new().deserialize(deserializer)
}

/// [`Integral`] from a `serde_json::Value` (the branch of a one-of enum).
///
/// # Errors
///
/// When the value does not deserialize as `T`, whole-number floats read as integers.
#[inline]
pub fn from_value<T: de::DeserializeOwned>(
    value: serde_json::Value,
) -> Result<T, serde_json::Error> {
    Integral::new().deserialize(value)
}

/// A deserializer whose visitors see a whole-number float as an integer.
struct Lenient<D>(D);

/// A visitor that turns a whole-number float into an integer and keeps doing so inside.
struct Visit<V>(V);

macro_rules! forward {
    ($($method:ident)*) => {
        $(
            #[inline]
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
                self.0.$method(Visit(visitor))
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Lenient<D> {
    type Error = D::Error;

    forward! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_identifier deserialize_ignored_any
    }

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_unit_struct(name, Visit(visitor))
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, Visit(visitor))
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Visit(visitor))
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple_struct(name, len, Visit(visitor))
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_struct(name, fields, Visit(visitor))
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_enum(name, variants, Visit(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

macro_rules! pass {
    ($($method:ident($ty:ty))*) => {
        $(
            #[inline]
            fn $method<E: de::Error>(self, value: $ty) -> Result<V::Value, E> {
                self.0.$method(value)
            }
        )*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Visit<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    pass! {
        visit_bool(bool) visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64)
        visit_i128(i128) visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64)
        visit_u128(u128) visit_f32(f32) visit_char(char) visit_str(&str)
        visit_string(String) visit_bytes(&[u8]) visit_byte_buf(Vec<u8>)
        visit_borrowed_str(&'de str) visit_borrowed_bytes(&'de [u8])
    }

    #[inline]
    fn visit_f64<E: de::Error>(self, value: f64) -> Result<V::Value, E> {
        match whole(value) {
            Some(integer) => self.0.visit_i64(integer),
            None => self.0.visit_f64(value),
        }
    }

    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_none()
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.0.visit_some(Lenient(deserializer))
    }

    #[inline]
    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<V::Value, D::Error> {
        self.0.visit_newtype_struct(Lenient(deserializer))
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(Lenient(seq))
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(Lenient(map))
    }

    #[inline]
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        // No integer is read from an enum's variant name; its content is left as it is.
        self.0.visit_enum(data)
    }
}

/// A seed that deserializes what the inner one does, through [`Lenient`].
struct Seed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Lenient(deserializer))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Lenient<A> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        self.0.next_element_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Lenient<A> {
    type Error = A::Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        // Keys are strings; nothing to read leniently.
        self.0.next_key_seed(seed)
    }

    #[inline]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.0.next_value_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn read<T: de::DeserializeOwned>(json: &str) -> Result<T, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(json);
        Integral::new().deserialize(&mut deserializer)
    }

    #[test]
    fn whole_floats_read_as_integers_as_the_api_server_takes_them() {
        for (json, expected) in [
            ("1", 1),
            ("1.0", 1),
            ("-0.0", 0),
            ("1e3", 1000),
            ("-2.0E2", -200),
            ("9007199254740991.0", 9_007_199_254_740_991),
            ("9223372036854775807", i64::MAX),
        ] {
            assert_eq!(read::<i64>(json).expect(json), expected, "{json}");
        }
        for json in ["1.5", "1e300", "9007199254740992.0", "\"1\"", "true"] {
            assert!(read::<i64>(json).is_err(), "{json}");
        }
        // Inside lists, maps and options, also from a `serde_json::Value`.
        assert_eq!(read::<Vec<i64>>("[1.0, 2, 3e0]").unwrap(), [1, 2, 3]);
        assert_eq!(
            read::<BTreeMap<String, Option<i64>>>(r#"{"a": 4.0, "b": null}"#).unwrap(),
            BTreeMap::from([("a".to_owned(), Some(4)), ("b".to_owned(), None)])
        );
        assert_eq!(
            from_value::<Option<Vec<i64>>>(serde_json::json!([5.0])).unwrap(),
            Some(vec![5])
        );
        // Other numbers and other types are read as serde reads them.
        assert_eq!(read::<f64>("1.5").unwrap(), 1.5);
        assert_eq!(read::<String>(r#""1.0""#).unwrap(), "1.0");
    }

    #[test]
    fn which_numbers_are_integers() {
        let number = |json: &str| serde_json::from_str::<serde_json::Number>(json).unwrap();
        assert!(is_integer(&number("7")));
        assert!(is_integer(&number("7.0")));
        assert!(!is_integer(&number("7.5")));
        assert_eq!(whole(f64::NAN), None);
        assert_eq!(whole(f64::INFINITY), None);
        assert_eq!(
            whole(-9_007_199_254_740_991.0),
            Some(-9_007_199_254_740_991)
        );
    }
}
