//! `util/intstr.IntOrString`.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

/// Kubernetes `util/intstr.IntOrString`: a 32-bit integer or a string.
///
/// Wire form: a JSON integer (`8080`) or a JSON string (`"http"`, `"25%"`).
/// An integer outside the `i32` range, a fraction or any other JSON type is
/// an error.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IntOrString {
    /// A JSON integer.
    Int(i32),
    /// A JSON string.
    String(String),
}

impl Default for IntOrString {
    /// `Int(0)`, like Go's zero value.
    fn default() -> Self {
        Self::Int(0)
    }
}

impl From<i32> for IntOrString {
    fn from(v: i32) -> Self {
        Self::Int(v)
    }
}

impl From<&str> for IntOrString {
    fn from(v: &str) -> Self {
        Self::String(v.to_owned())
    }
}

impl From<String> for IntOrString {
    fn from(v: String) -> Self {
        Self::String(v)
    }
}

impl fmt::Display for IntOrString {
    /// Writes the integer in decimal or the string as is (no JSON quotes).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Int(v) => fmt::Display::fmt(v, f),
            Self::String(s) => f.write_str(s),
        }
    }
}

impl Serialize for IntOrString {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Int(v) => serializer.serialize_i32(*v),
            Self::String(s) => serializer.serialize_str(s),
        }
    }
}

fn out_of_range<E: de::Error>(v: impl fmt::Display) -> E {
    E::custom(format_args!(
        "invalid IntOrString {v}: integer out of range for i32 ({}..={})",
        i32::MIN,
        i32::MAX
    ))
}

impl<'de> de::Deserialize<'de> for IntOrString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IntOrStringVisitor;

        impl Visitor<'_> for IntOrStringVisitor {
            type Value = IntOrString;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer or a string")
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<IntOrString, E> {
                i32::try_from(v)
                    .map(IntOrString::Int)
                    .map_err(|_| out_of_range(v))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<IntOrString, E> {
                i32::try_from(v)
                    .map(IntOrString::Int)
                    .map_err(|_| out_of_range(v))
            }

            fn visit_i128<E: de::Error>(self, v: i128) -> Result<IntOrString, E> {
                i32::try_from(v)
                    .map(IntOrString::Int)
                    .map_err(|_| out_of_range(v))
            }

            fn visit_u128<E: de::Error>(self, v: u128) -> Result<IntOrString, E> {
                i32::try_from(v)
                    .map(IntOrString::Int)
                    .map_err(|_| out_of_range(v))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<IntOrString, E> {
                Ok(IntOrString::String(v.to_owned()))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<IntOrString, E> {
                Ok(IntOrString::String(v))
            }
        }

        deserializer.deserialize_any(IntOrStringVisitor)
    }
}
