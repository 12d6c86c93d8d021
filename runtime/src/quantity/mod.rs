//! `api/resource.Quantity`: the text as written, and its value (see `decimal`).

mod decimal;

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use serde::de::{self, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

/// Kubernetes `api/resource.Quantity`: the text it was written as, and the number it
/// means.
///
/// Wire form: a JSON string such as `"100m"`, `"1Gi"` or `"0.5"`. The schema also admits
/// a JSON number (`cpu: 2` in YAML), which CRDs store as given: it is read as its text,
/// integers exactly as written (`5` → `"5"`), other numbers in their shortest round-trip
/// decimal form (`0.5` → `"0.5"`), and written back as a number, so a read-modify-write
/// does not change the form. The text is written back exactly as read.
///
/// # The number
///
/// The text is parsed as apimachinery's `resource.ParseQuantity` parses it: an optional
/// sign, a decimal number, and a suffix — binary (`Ki` … `Ei`), decimal (`n`, `u`, `m`,
/// `k`, `M`, `G`, `T`, `P`, `E`) or an exponent (`e3`, `E-2`). The value is exact (any
/// number of digits), rounded up to a multiple of `1n` as Kubernetes rounds it; binary
/// quantities are capped at 2⁶³−1 as Kubernetes caps them.
///
/// Equality, ordering and hashing are by value: `1Gi == 1024Mi`, `1 == 1000m`,
/// `"10" > "9"`. A text that is not a quantity still reads and writes back (the wire is
/// lossless), but has no value: such quantities are equal when their texts are, and
/// order after every valid quantity, by text among themselves, so that `Ord` stays a
/// total order; [`Quantity::cmp_value`] and [`Quantity::is_valid`] tell them apart.
///
/// ```
/// use kubeforge_runtime::Quantity;
///
/// let gi: Quantity = "1Gi".parse()?;
/// assert_eq!(gi, Quantity::from("1024Mi"));
/// assert!(Quantity::from("10") > Quantity::from("9"));
/// assert_eq!(Quantity::from("1"), Quantity::from("1000m"));
/// assert_eq!(gi.to_i64(), Some(1_073_741_824));
/// let sum = gi.checked_add(&"512Mi".parse()?).unwrap();
/// assert_eq!(sum.as_str(), "1536Mi");
/// assert_eq!(serde_json::to_string(&Quantity::from("1.0Gi"))?, r#""1.0Gi""#);
/// assert!(!Quantity::from("lots").is_valid());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The number is not kept beside the text: it is parsed from the text when asked for (a
/// comparison, arithmetic, a conversion), so reading a quantity from JSON costs one string,
/// as k8s-openapi's `Quantity(String)` does, and the type is 40 bytes rather than 72 (it
/// sits inline in `ResourceFieldSelector`, `EmptyDirVolumeSource` and the maps of every
/// Pod's resources and every Node's capacity). Only the result of arithmetic keeps its
/// exact value, which its canonical text may not read back as (a binary sum beyond 2⁶³−1).
#[derive(Clone, Debug, Default)]
pub struct Quantity {
    text: String,
    form: Form,
    /// The exact value of an arithmetic result; `None` for a quantity read or parsed, whose
    /// value is its text's.
    exact: Option<Box<Decimal>>,
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
        Self {
            text,
            form,
            exact: None,
        }
    }

    /// The value: the exact one of an arithmetic result, else the text's, `None` when the
    /// text is not a quantity.
    fn value(&self) -> Option<std::borrow::Cow<'_, Decimal>> {
        match &self.exact {
            Some(exact) => Some(std::borrow::Cow::Borrowed(&**exact)),
            None => decimal::parse(&self.text).ok().map(std::borrow::Cow::Owned),
        }
    }

    /// Parses a quantity, refusing text that is not one (`resource.ParseQuantity`).
    ///
    /// # Errors
    /// apimachinery's message: `quantities must match the regular expression …`,
    /// `unable to parse quantity's suffix` or `unable to parse numeric part of quantity`.
    pub fn parse(text: &str) -> Result<Quantity, QuantityError> {
        decimal::parse(text)?;
        Ok(Self::read(text.to_owned(), Form::String))
    }

    /// Whether the text is a quantity.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        match self.exact {
            Some(_) => true,
            None => decimal::parse(&self.text).is_ok(),
        }
    }

    /// The numeric order, `None` when either is not a quantity.
    #[must_use]
    pub fn cmp_value(&self, other: &Quantity) -> Option<Ordering> {
        if self.exact.is_none() && other.exact.is_none() && self.text == other.text {
            // The same text is the same value, if it is one.
            return self.is_valid().then_some(Ordering::Equal);
        }
        Some(self.value()?.cmp(&other.value()?))
    }

    /// -1, 0 or 1 (`Quantity.Sign`), `None` when not a quantity.
    #[must_use]
    pub fn signum(&self) -> Option<i32> {
        if self.exact.is_none()
            && let Some(signum) = decimal::simple_signum(&self.text)
        {
            return Some(signum);
        }
        self.value().map(|v| v.signum())
    }

    /// `self + other`, written canonically in `self`'s format; `None` when either is not
    /// a quantity, or when their exponents are thousands of digits apart.
    #[must_use]
    pub fn checked_add(&self, other: &Quantity) -> Option<Quantity> {
        let sum = self.value()?.add(&*other.value()?)?;
        Some(self.derived(sum))
    }

    /// `self - other`; `None` as for [`Quantity::checked_add`].
    #[must_use]
    pub fn checked_sub(&self, other: &Quantity) -> Option<Quantity> {
        let diff = self.value()?.add(&other.value()?.neg())?;
        Some(self.derived(diff))
    }

    /// `self × n`; `None` when not a quantity.
    #[must_use]
    pub fn checked_mul(&self, n: i64) -> Option<Quantity> {
        let product = self.value()?.mul_int(n);
        Some(self.derived(product))
    }

    /// `-self`; `None` when not a quantity.
    #[must_use]
    pub fn checked_neg(&self) -> Option<Quantity> {
        let neg = self.value()?.neg();
        Some(self.derived(neg))
    }

    /// The value as an `i64` when it is an integer that fits (`Quantity.AsInt64`).
    #[must_use]
    pub fn to_i64(&self) -> Option<i64> {
        self.value()?.to_i64()
    }

    /// The value as the nearest `f64` (`AsApproximateFloat64`; ±infinity beyond its
    /// range).
    #[must_use]
    pub fn to_f64(&self) -> Option<f64> {
        self.value().map(|v| v.to_f64())
    }

    /// The value in thousandths, rounded up (away from zero) as `MilliValue` rounds, when
    /// it fits an `i64`.
    #[must_use]
    pub fn milli_value(&self) -> Option<i64> {
        self.value()?.scaled_ceil(3)
    }

    /// The canonical text (`Quantity.String()` of a parsed quantity): `1536Mi`, `1500m`,
    /// `1e3`; `None` when not a quantity.
    #[must_use]
    pub fn canonical(&self) -> Option<String> {
        self.value().map(|v| v.canonical())
    }

    fn derived(&self, value: Decimal) -> Quantity {
        let value = value.with_format(
            self.value()
                .map_or(decimal::Format::DecimalSi, |v| v.format),
        );
        Quantity {
            text: value.canonical(),
            form: Form::String,
            exact: Some(Box::new(value)),
        }
    }
}

use decimal::Decimal;
pub use decimal::QuantityError;

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Quantity {}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    /// By value; texts that are not quantities after every quantity, by text.
    fn cmp(&self, other: &Self) -> Ordering {
        if self.exact.is_none() && other.exact.is_none() && self.text == other.text {
            // The same text is the same value, or the same invalid text.
            return Ordering::Equal;
        }
        match (self.value(), other.value()) {
            (Some(a), Some(b)) => a.cmp(&b),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => self.text.cmp(&other.text),
        }
    }
}

impl Hash for Quantity {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self.value() {
            Some(v) => v.hash(state),
            None => self.text.hash(state),
        }
    }
}

impl std::str::FromStr for Quantity {
    type Err = QuantityError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Quantity::parse(s)
    }
}

impl From<&str> for Quantity {
    /// Any text; one that is not a quantity keeps no value (see the type's docs).
    fn from(s: &str) -> Self {
        Self::read(s.to_owned(), Form::String)
    }
}

impl From<String> for Quantity {
    fn from(text: String) -> Self {
        Self::read(text, Form::String)
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
