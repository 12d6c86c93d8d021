//! `api/resource.Quantity`.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use serde::de::{self, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

/// Kubernetes `api/resource.Quantity`, kept as the text it was written as.
///
/// Wire form: a JSON string such as `"100m"`, `"1Gi"` or `"0.5"`. The schema also admits
/// a JSON number (`cpu: 2` in YAML), which CRDs store as given: it is read as its text,
/// integers exactly as written (`5` → `"5"`), other numbers in their shortest round-trip
/// decimal form (`0.5` → `"0.5"`), and written back as a number, so a read-modify-write
/// does not change the form. The text is not validated or canonicalised. Equality,
/// ordering and hashing look at the text only: `5` and `"5"` are the same quantity.
#[derive(Clone, Debug, Default)]
pub struct Quantity {
    text: String,
    form: Form,
}

/// The JSON form a quantity was read from, and is written back in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Form {
    #[default]
    String,
    Integer,
    /// A JSON number with a fraction or exponent, even when integral (`1.0`).
    Float,
}

impl Quantity {
    /// The quantity's text, e.g. `"100m"`.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether it was read from a JSON number (and will be written as one).
    #[must_use]
    pub fn is_number(&self) -> bool {
        self.form != Form::String
    }

    /// The quantity's text, owned.
    #[must_use]
    pub fn into_string(self) -> String {
        self.text
    }

    fn read(text: String, form: Form) -> Self {
        Self { text, form }
    }
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Quantity {}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    fn cmp(&self, other: &Self) -> Ordering {
        self.text.cmp(&other.text)
    }
}

impl Hash for Quantity {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl From<&str> for Quantity {
    fn from(s: &str) -> Self {
        Self {
            text: s.to_owned(),
            form: Form::String,
        }
    }
}

impl From<String> for Quantity {
    fn from(text: String) -> Self {
        Self {
            text,
            form: Form::String,
        }
    }
}

impl fmt::Display for Quantity {
    /// Writes the text as is (no JSON quotes).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The text of a number form came from a number, so it parses as one again.
        match self.form {
            Form::Integer => {
                if let Ok(v) = self.text.parse::<u64>() {
                    return serializer.serialize_u64(v);
                }
                if let Ok(v) = self.text.parse::<i64>() {
                    return serializer.serialize_i64(v);
                }
            }
            Form::Float => {
                if let Ok(v) = self.text.parse::<f64>() {
                    return serializer.serialize_f64(v);
                }
            }
            Form::String => {}
        }
        serializer.serialize_str(&self.text)
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
                Ok(Quantity::from(v))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Quantity, E> {
                Ok(Quantity::from(v))
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Quantity, E> {
                Ok(Quantity::read(v.to_string(), Form::Integer))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Quantity, E> {
                Ok(Quantity::read(v.to_string(), Form::Integer))
            }

            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Quantity, E> {
                Ok(Quantity::read(v.to_string(), Form::Integer))
            }

            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Quantity, E> {
                Ok(Quantity::read(v.to_string(), Form::Integer))
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Quantity, E> {
                if v.is_finite() {
                    // `Display` for f64 is the shortest text that reads back
                    // as the same value, never in exponent form.
                    Ok(Quantity::read(v.to_string(), Form::Float))
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
