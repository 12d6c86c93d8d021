//! `meta/v1.Time` and `meta/v1.MicroTime`.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use jiff::Timestamp;
use serde::de::{self, Deserializer, Visitor};
use serde::ser::{self, Serializer};

/// Go's zero `time.Time`, 0001-01-01T00:00:00Z, as seconds since the Unix epoch.
const GO_ZERO_SECONDS: i64 = -62_135_596_800;
/// 0000-01-01T00:00:00Z: the earliest instant Go's JSON encoder will write.
const YEAR_ZERO: Timestamp = Timestamp::constant(-62_167_219_200, 0);
/// Most fractional digits jiff's parser accepts (nanoseconds).
const MAX_FRACTION_DIGITS: usize = 9;

/// The error returned when a string is not a valid [`Time`] or [`MicroTime`].
///
/// Its message names the type, echoes the input and shows an example, e.g.
/// `invalid Time "xyz": expected an RFC 3339 timestamp such as "2006-01-02T15:04:05Z"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeParseError {
    type_name: &'static str,
    example: &'static str,
    input: String,
}

impl fmt::Display for TimeParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {} {:?}: expected an RFC 3339 timestamp such as {:?}",
            self.type_name, self.input, self.example
        )
    }
}

impl std::error::Error for TimeParseError {}

/// Rounds `ts` down (towards the past) to a multiple of `unit_ns` nanoseconds.
fn floor_to(ts: Timestamp, unit_ns: i128) -> Timestamp {
    let ns = ts.as_nanosecond();
    // `Timestamp::MIN` is a whole second, so flooring never leaves the range;
    // keep the original instant rather than fail if that ever changed.
    Timestamp::from_nanosecond(ns - ns.rem_euclid(unit_ns)).unwrap_or(ts)
}

/// Cuts a fraction of seconds longer than nine digits down to nine, the way
/// Go's `time.Parse` drops digits past nanoseconds.
fn clamp_fraction(s: &str) -> Cow<'_, str> {
    let Some(dot) = s.find(['.', ',']) else {
        return Cow::Borrowed(s);
    };
    let digits_start = dot + 1;
    let rest = s.get(digits_start..).unwrap_or("");
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits <= MAX_FRACTION_DIGITS {
        return Cow::Borrowed(s);
    }
    // Every byte cut here is an ASCII digit, so both ends are char boundaries.
    match (
        s.get(..digits_start + MAX_FRACTION_DIGITS),
        s.get(digits_start + digits..),
    ) {
        (Some(head), Some(tail)) => Cow::Owned(format!("{head}{tail}")),
        _ => Cow::Borrowed(s),
    }
}

/// Parses any RFC 3339 timestamp (any offset, any fraction length).
fn parse_rfc3339(
    s: &str,
    type_name: &'static str,
    example: &'static str,
) -> Result<Timestamp, TimeParseError> {
    if let Some(ts) = crate::rfc3339::parse(s.as_bytes()) {
        return Ok(ts);
    }
    clamp_fraction(s)
        .parse::<Timestamp>()
        .map_err(|_| TimeParseError {
            type_name,
            example,
            input: s.to_owned(),
        })
}

macro_rules! time_type {
    (
        $(#[$meta:meta])*
        $name:ident,
        type_name = $type_name:literal,
        example = $example:literal,
        unit_ns = $unit_ns:expr,
        precision = $precision:literal,
        micros = $micros:literal $(,)?
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub Timestamp);

        impl $name {
            /// Go's zero time, `0001-01-01T00:00:00Z`; its wire form is JSON `null`.
            pub const ZERO: Self = Self(Timestamp::constant(GO_ZERO_SECONDS, 0));

            /// The current time, at full precision (truncated only when written).
            pub fn now() -> Self {
                Self(Timestamp::now())
            }

            /// Whether this is exactly [`Self::ZERO`] (Go's `IsZero`).
            pub fn is_zero(&self) -> bool {
                *self == Self::ZERO
            }

            /// The instant as written on the wire: rounded down to the wire precision.
            pub fn truncated(&self) -> Timestamp {
                floor_to(self.0, $unit_ns)
            }
        }

        impl Default for $name {
            /// [`Self::ZERO`], like Go's zero value.
            fn default() -> Self {
                Self::ZERO
            }
        }

        impl From<Timestamp> for $name {
            fn from(ts: Timestamp) -> Self {
                Self(ts)
            }
        }

        impl From<$name> for Timestamp {
            fn from(t: $name) -> Self {
                t.0
            }
        }

        impl fmt::Display for $name {
            /// Writes the wire form (without JSON quotes). [`Self::ZERO`] is
            /// written as a timestamp here; only serialization turns it into `null`.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let mut buffer = crate::rfc3339::Buffer::default();
                match crate::rfc3339::print(self.0, $micros, &mut buffer) {
                    Some(text) => f.write_str(text),
                    None => write!(f, concat!("{:.", $precision, "}"), self.truncated()),
                }
            }
        }

        impl FromStr for $name {
            type Err = TimeParseError;

            /// Parses any RFC 3339 timestamp, keeping full precision.
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                parse_rfc3339(s, $type_name, $example).map(Self)
            }
        }

        impl ser::Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                if self.is_zero() {
                    return serializer.serialize_none();
                }
                if self.0 < YEAR_ZERO {
                    return Err(ser::Error::custom(format_args!(
                        concat!($type_name, " {}: year outside of range [0,9999]"),
                        self
                    )));
                }
                let mut buffer = crate::rfc3339::Buffer::default();
                match crate::rfc3339::print(self.0, $micros, &mut buffer) {
                    Some(text) => serializer.serialize_some(text),
                    None => serializer.serialize_some(&WireStr(self)),
                }
            }
        }

        impl<'de> de::Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct TimeVisitor;

                impl<'de> Visitor<'de> for TimeVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(concat!(
                            "an RFC 3339 timestamp string such as \"",
                            $example,
                            "\", or null"
                        ))
                    }

                    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                        Ok($name::ZERO)
                    }

                    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                        Ok($name::ZERO)
                    }

                    fn visit_some<D: Deserializer<'de>>(
                        self,
                        deserializer: D,
                    ) -> Result<Self::Value, D::Error> {
                        deserializer.deserialize_str(self)
                    }

                    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                        v.parse().map_err(E::custom)
                    }
                }

                deserializer.deserialize_option(TimeVisitor)
            }
        }
    };
}

/// Serializes a value through its `Display` impl, without allocating.
struct WireStr<'a, T>(&'a T);

impl<T: fmt::Display> ser::Serialize for WireStr<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self.0)
    }
}

time_type! {
    /// Kubernetes `meta/v1.Time`: an instant, written to whole seconds.
    ///
    /// Wire form: an RFC 3339 string in UTC truncated to whole seconds, e.g.
    /// `"2024-01-02T03:04:05Z"` (what Go's `metav1.Time` marshals).
    /// [`Time::ZERO`] (Go's zero time) is written as `null`, and `null` reads
    /// as [`Time::ZERO`]. Reading accepts any RFC 3339 timestamp (any offset,
    /// any number of fractional digits) and keeps full precision in memory.
    Time,
    type_name = "Time",
    example = "2006-01-02T15:04:05Z",
    unit_ns = 1_000_000_000,
    precision = "0",
    micros = false,
}

time_type! {
    /// Kubernetes `meta/v1.MicroTime`: an instant, written to microseconds.
    ///
    /// Wire form: an RFC 3339 string in UTC with exactly six fractional digits
    /// (truncated to microseconds, zero-padded), e.g.
    /// `"2024-01-02T03:04:05.123456Z"`. [`MicroTime::ZERO`] is written as
    /// `null`, and `null` reads as [`MicroTime::ZERO`]. Reading accepts any
    /// RFC 3339 timestamp and keeps full precision in memory.
    MicroTime,
    type_name = "MicroTime",
    example = "2006-01-02T15:04:05.000000Z",
    unit_ns = 1_000,
    precision = "6",
    micros = true,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamp_fraction_keeps_short_fractions() {
        for s in [
            "2024-01-02T03:04:05Z",
            "2024-01-02T03:04:05.1Z",
            "2024-01-02T03:04:05.123456789Z",
            "2024-01-02T03:04:05,123456789+01:00",
            "",
            ".",
        ] {
            assert!(
                matches!(clamp_fraction(s), Cow::Borrowed(b) if b == s),
                "{s}"
            );
        }
    }

    #[test]
    fn clamp_fraction_cuts_long_fractions() {
        assert_eq!(
            clamp_fraction("2024-01-02T03:04:05.1234567891Z"),
            "2024-01-02T03:04:05.123456789Z"
        );
        assert_eq!(
            clamp_fraction("2024-01-02T03:04:05,99999999999999-07:00"),
            "2024-01-02T03:04:05,999999999-07:00"
        );
        assert_eq!(clamp_fraction(".0000000000"), ".000000000");
        assert_eq!(clamp_fraction(".0000000000€"), ".000000000€");
    }

    #[test]
    fn floor_to_rounds_towards_the_past() {
        let t = Timestamp::new(-1, -500_000_000).unwrap(); // 1969-12-31T23:59:58.5Z
        assert_eq!(floor_to(t, 1_000_000_000), Timestamp::new(-2, 0).unwrap());
        let t = Timestamp::new(1, 999_999_999).unwrap();
        assert_eq!(floor_to(t, 1_000_000_000), Timestamp::new(1, 0).unwrap());
        assert_eq!(floor_to(t, 1_000), Timestamp::new(1, 999_999_000).unwrap());
        assert_eq!(floor_to(Timestamp::MIN, 1_000_000_000), Timestamp::MIN);
        assert_eq!(
            floor_to(Timestamp::MAX, 1_000),
            Timestamp::new(Timestamp::MAX.as_second(), 999_999_000).unwrap()
        );
    }

    #[test]
    fn zero_constants_match_go() {
        assert_eq!(
            Time::ZERO.0,
            "0001-01-01T00:00:00Z".parse::<Timestamp>().unwrap()
        );
        assert_eq!(
            YEAR_ZERO,
            "0000-01-01T00:00:00Z".parse::<Timestamp>().unwrap()
        );
    }
}
