//! Support for generated forward-compatible string enums.
//!
//! A generated enum such as
//! `enum ReferencePolicyType { Local, Source, Other(String) }` is written as
//! its string (`"Local"`), and reads any string: unknown values land in
//! `Other`. Its `Deserialize` impl calls [`deserialize`].

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, Visitor};

/// Reads a JSON string and converts it with `T::from(&str)`.
///
/// Known values are converted from the borrowed text without allocating.
/// Any non-string input is an error (`invalid type: …, expected a string`).
pub fn deserialize<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: for<'a> From<&'a str>,
{
    d.deserialize_str(StringEnumVisitor(PhantomData))
}

struct StringEnumVisitor<T>(PhantomData<fn() -> T>);

impl<'de, T> Visitor<'de> for StringEnumVisitor<T>
where
    T: for<'a> From<&'a str>,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        Ok(T::from(v))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<T, E> {
        Ok(T::from(v))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<T, E> {
        Ok(T::from(v.as_str()))
    }
}
