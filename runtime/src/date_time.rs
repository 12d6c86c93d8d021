//! `format: date-time` outside `meta/v1.Time`: the text exactly as written.

use std::fmt;
use std::str::FromStr;

use jiff::Timestamp;
use serde::de::{self, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::time::{Time, TimeParseError};

/// An RFC 3339 date-time kept exactly as written: `"2024-05-01T12:00:00.123456+02:00"` is
/// written back as `"2024-05-01T12:00:00.123456+02:00"`, fraction and offset included.
///
/// Fields of `meta/v1.Time` use [`Time`], which Kubernetes defines to the second in UTC;
/// other `format: date-time` strings (a CRD condition's `lastTransitionTime`, a
/// certificate's `notAfter`) may be written by any client with any precision and offset, and
/// a read-modify-write must not rewrite them. The text is not checked when read (the API
/// server checks the format); [`timestamp`](Self::timestamp) parses it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DateTime(String);

impl DateTime {
    /// The text as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The instant, at full precision.
    ///
    /// # Errors
    ///
    /// When the text is not an RFC 3339 date-time.
    pub fn timestamp(&self) -> Result<Timestamp, TimeParseError> {
        self.0.parse::<Time>().map(|time| time.0)
    }
}

impl From<&str> for DateTime {
    fn from(text: &str) -> Self {
        Self(text.to_owned())
    }
}

impl From<String> for DateTime {
    fn from(text: String) -> Self {
        Self(text)
    }
}

/// RFC 3339 in UTC with as many fractional digits as needed (`2024-05-01T10:00:00.5Z`).
impl From<Timestamp> for DateTime {
    fn from(timestamp: Timestamp) -> Self {
        Self(timestamp.to_string())
    }
}

impl From<Time> for DateTime {
    fn from(time: Time) -> Self {
        Self(time.to_string())
    }
}

impl From<DateTime> for String {
    fn from(value: DateTime) -> Self {
        value.0
    }
}

impl FromStr for DateTime {
    type Err = TimeParseError;

    /// Accepts only RFC 3339 date-times, and keeps the text as given.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse::<Time>()?;
        Ok(Self(s.to_owned()))
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for DateTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> de::Deserialize<'de> for DateTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;

        impl Visitor<'_> for TextVisitor {
            type Value = DateTime;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an RFC 3339 date-time string")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<DateTime, E> {
                Ok(DateTime(v.to_owned()))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<DateTime, E> {
                Ok(DateTime(v))
            }
        }

        deserializer.deserialize_string(TextVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_text() {
        let text = r#""2024-05-01T12:00:00.123456+02:00""#;
        let value: DateTime = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&value).unwrap(), text);
        assert_eq!(
            value.timestamp().unwrap().to_string(),
            "2024-05-01T10:00:00.123456Z"
        );
        assert!("yesterday".parse::<DateTime>().is_err());
        assert!(DateTime::from("yesterday").timestamp().is_err());
    }
}
