//! `[]byte` fields: base64 text on the wire.

use std::borrow::Cow;
use std::fmt;

use base64::Engine as _;
use base64::alphabet;
use base64::display::Base64Display;
use base64::engine::general_purpose::{GeneralPurpose, PAD, PAD_INDIFFERENT};
use serde::de::{self, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

/// Writes standard base64 with padding, as Go's `encoding/base64.StdEncoding`.
const ENCODE: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, PAD);
/// Reads standard base64 with or without padding, ignoring non-zero trailing
/// bits (Go's non-strict `StdEncoding` ignores them too).
const DECODE: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    PAD_INDIFFERENT.with_decode_allow_trailing_bits(true),
);

/// Bytes of a Go `[]byte` field, such as a Secret's `data` values.
///
/// Wire form: a JSON string holding standard base64 with padding, e.g.
/// `"aGVsbG8="` for `hello` (what Go's `encoding/json` writes for `[]byte`).
/// Reading also accepts unpadded base64 and ignores `\r` and `\n` as Go does;
/// JSON `null` (Go's nil slice) reads as empty bytes. Anything else that is
/// not valid standard base64 is an error.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ByteString(pub Vec<u8>);

impl From<Vec<u8>> for ByteString {
    fn from(v: Vec<u8>) -> Self {
        Self(v)
    }
}

impl From<&[u8]> for ByteString {
    fn from(v: &[u8]) -> Self {
        Self(v.to_vec())
    }
}

impl AsRef<[u8]> for ByteString {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<ByteString> for Vec<u8> {
    fn from(v: ByteString) -> Self {
        v.0
    }
}

impl Serialize for ByteString {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Written as `Some(text)` so that `null` (read via `deserialize_option`)
        // also round-trips through formats that are not self-describing.
        serializer.serialize_some(&Base64Text(&self.0))
    }
}

struct Base64Text<'a>(&'a [u8]);

impl Serialize for Base64Text<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&Base64Display::new(self.0, &ENCODE))
    }
}

/// Decodes standard base64, padded or not, ignoring line breaks.
fn decode(text: &str) -> Result<Vec<u8>, base64::DecodeError> {
    let text: Cow<'_, str> = if text.contains(['\r', '\n']) {
        Cow::Owned(text.chars().filter(|c| !matches!(c, '\r' | '\n')).collect())
    } else {
        Cow::Borrowed(text)
    };
    DECODE.decode(text.as_bytes())
}

impl<'de> de::Deserialize<'de> for ByteString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ByteStringVisitor;

        impl<'de> Visitor<'de> for ByteStringVisitor {
            type Value = ByteString;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a base64 string, or null")
            }

            fn visit_none<E: de::Error>(self) -> Result<ByteString, E> {
                Ok(ByteString::default())
            }

            fn visit_unit<E: de::Error>(self) -> Result<ByteString, E> {
                Ok(ByteString::default())
            }

            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<ByteString, D::Error> {
                d.deserialize_str(self)
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<ByteString, E> {
                decode(v)
                    .map(ByteString)
                    .map_err(|e| E::custom(format_args!("invalid base64 in ByteString: {e}")))
            }
        }

        deserializer.deserialize_option(ByteStringVisitor)
    }
}
