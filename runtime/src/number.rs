//! `type: number`: a JSON number that keeps its integer or float form.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

/// A JSON number as read: `3` stays `3` and `3.0` stays `3.0`.
///
/// A schema's `type: number` admits both forms, and `f64` would write `3` back as `3.0`.
/// Integers are kept exactly up to the full `i64`/`u64` range; other numbers are `f64`.
/// Equality compares the form too (`3` ≠ `3.0`), as `serde_json::Number` does; compare
/// [`as_f64`](Self::as_f64) to compare values. A non-finite `f64` is written as `null`,
/// as `serde_json` writes one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Number(Form);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    Unsigned(u64),
    Signed(i64),
    Float(f64),
}

impl Number {
    /// The value as an `f64` (large integers lose precision).
    #[must_use]
    #[allow(
        clippy::cast_precision_loss,
        reason = "documented: large integers round"
    )]
    pub fn as_f64(self) -> f64 {
        match self.0 {
            Form::Unsigned(n) => n as f64,
            Form::Signed(n) => n as f64,
            Form::Float(n) => n,
        }
    }

    /// The value as an `i64`, when it was written as an integer that fits.
    #[must_use]
    pub fn as_i64(self) -> Option<i64> {
        match self.0 {
            Form::Unsigned(n) => i64::try_from(n).ok(),
            Form::Signed(n) => Some(n),
            Form::Float(_) => None,
        }
    }

    /// The value as a `u64`, when it was written as an integer that fits.
    #[must_use]
    pub fn as_u64(self) -> Option<u64> {
        match self.0 {
            Form::Unsigned(n) => Some(n),
            Form::Signed(n) => u64::try_from(n).ok(),
            Form::Float(_) => None,
        }
    }

    /// Whether it was written as an integer (`3`, not `3.0`).
    #[must_use]
    pub fn is_integer(self) -> bool {
        !matches!(self.0, Form::Float(_))
    }
}

impl Default for Number {
    /// `0`.
    fn default() -> Self {
        Self(Form::Unsigned(0))
    }
}

macro_rules! from_integer {
    ($($ty:ty => $form:ident),*) => {$(
        impl From<$ty> for Number {
            fn from(n: $ty) -> Self {
                Self(Form::$form(n.into()))
            }
        }
    )*};
}

from_integer!(u8 => Unsigned, u16 => Unsigned, u32 => Unsigned, u64 => Unsigned);

macro_rules! from_signed {
    ($($ty:ty),*) => {$(
        impl From<$ty> for Number {
            fn from(n: $ty) -> Self {
                let n = i64::from(n);
                Self(u64::try_from(n).map_or(Form::Signed(n), Form::Unsigned))
            }
        }
    )*};
}

from_signed!(i8, i16, i32, i64);

impl From<f64> for Number {
    /// Written in float form (`3.0`).
    fn from(n: f64) -> Self {
        Self(Form::Float(n))
    }
}

impl From<f32> for Number {
    /// Written in float form (`3.0`).
    fn from(n: f32) -> Self {
        Self(Form::Float(n.into()))
    }
}

impl From<Number> for serde_json::Value {
    fn from(n: Number) -> Self {
        match n.0 {
            Form::Unsigned(n) => n.into(),
            Form::Signed(n) => n.into(),
            Form::Float(n) => n.into(),
        }
    }
}

impl fmt::Display for Number {
    /// The JSON text (`3`, `3.0`, `1e300`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match serde_json::to_string(self) {
            Ok(text) => f.write_str(&text),
            Err(_) => Err(fmt::Error),
        }
    }
}

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Form::Unsigned(n) => serializer.serialize_u64(n),
            Form::Signed(n) => serializer.serialize_i64(n),
            Form::Float(n) => serializer.serialize_f64(n),
        }
    }
}

impl<'de> de::Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NumberVisitor;

        impl Visitor<'_> for NumberVisitor {
            type Value = Number;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number")
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Number, E> {
                Ok(Number(Form::Unsigned(v)))
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Number, E> {
                Ok(Number::from(v))
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Number, E> {
                Ok(Number(Form::Float(v)))
            }
        }

        deserializer.deserialize_any(NumberVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_form() {
        for text in [
            "3",
            "3.0",
            "-7",
            "18446744073709551615",
            "-9223372036854775808",
            "0.25",
            "1e300",
        ] {
            let number: Number = serde_json::from_str(text).unwrap();
            let back = serde_json::to_value(number).unwrap();
            assert_eq!(
                back,
                serde_json::from_str::<serde_json::Value>(text).unwrap(),
                "{text}"
            );
        }
        assert_eq!(serde_json::to_string(&Number::from(3)).unwrap(), "3");
        assert_eq!(serde_json::to_string(&Number::from(3.0)).unwrap(), "3.0");
        assert_ne!(Number::from(3), Number::from(3.0));
        assert!(serde_json::from_str::<Number>("\"3\"").is_err());
    }
}
