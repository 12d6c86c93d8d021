//! `api/resource.Quantity`.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

/// Kubernetes `api/resource.Quantity`, kept as the text it was written as.
///
/// Wire form: a JSON string such as `"100m"`, `"1Gi"` or `"0.5"`. Reading
/// also accepts a JSON number: integers exactly as written (`5` → `"5"`),
/// other numbers in their shortest round-trip decimal form (`0.5` → `"0.5"`).
/// The text is not validated or canonicalised.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Quantity(pub String);

impl Quantity {
    /// The quantity's text, e.g. `"100m"`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Quantity {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

impl From<String> for Quantity {
    fn from(s: String) -> Self {
        Self(s)
    }
}

impl fmt::Display for Quantity {
    /// Writes the text as is (no JSON quotes).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> de::Deserialize<'de> for Quantity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct QuantityVisitor;

        impl Visitor<'_> for QuantityVisitor {
            type Value = Quantity;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a quantity string such as \"100m\", or a number")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Quantity, E> {
                Ok(Quantity(v.to_owned()))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Quantity, E> {
                Ok(Quantity(v))
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Quantity, E> {
                Ok(Quantity(v.to_string()))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Quantity, E> {
                Ok(Quantity(v.to_string()))
            }

            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Quantity, E> {
                Ok(Quantity(v.to_string()))
            }

            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Quantity, E> {
                Ok(Quantity(v.to_string()))
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Quantity, E> {
                if v.is_finite() {
                    // `Display` for f64 is the shortest text that reads back
                    // as the same value, never in exponent form.
                    Ok(Quantity(v.to_string()))
                } else {
                    Err(E::custom(format_args!(
                        "invalid Quantity {v}: expected a finite number"
                    )))
                }
            }
        }

        deserializer.deserialize_any(QuantityVisitor)
    }
}
