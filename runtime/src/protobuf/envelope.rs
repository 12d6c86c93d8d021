//! The envelope every protobuf body travels in: the magic `k8s\0`, then a `runtime.Unknown`
//! `{typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3, contentType = 4}`
//! whose `raw` is the object's message.

use prost::encoding::WireType;

use super::{DecodeError, Input, Message, encode_field, field_len, merge_into};
use crate::TypeMeta;

/// The envelope's magic prefix.
pub const MAGIC: &[u8] = b"k8s\0";

/// The media type of Kubernetes' protobuf encoding.
pub const CONTENT_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// A body's envelope, read: the type it names and the message it carries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Envelope<'a> {
    /// `typeMeta.apiVersion`.
    pub api_version: String,
    /// `typeMeta.kind`.
    pub kind: String,
    /// The object's message.
    pub raw: &'a [u8],
    /// Where `raw` starts in the body (for the offsets of errors).
    pub raw_offset: usize,
    /// `contentEncoding` (empty: none).
    pub content_encoding: String,
    /// `contentType` (empty: protobuf).
    pub content_type: String,
}

/// Reads the envelope of `body`.
///
/// # Errors
/// A body without the magic prefix, or a `runtime.Unknown` that does not read.
pub fn decode_envelope(body: &[u8]) -> Result<Envelope<'_>, DecodeError> {
    let Some(inner) = body.strip_prefix(MAGIC) else {
        return Err(DecodeError::new(
            0,
            "expected the protobuf envelope's magic number \"k8s\\x00\", but the body does not start with it",
        ));
    };
    let mut input = Input::new(body);
    input.fixed::<4>()?;
    debug_assert_eq!(input.rest().len(), inner.len());
    let mut envelope = Envelope::default();
    while !input.is_empty() {
        match input.key()? {
            (1, WireType::LengthDelimited) => {
                let mut meta = input.delimited()?;
                while !meta.is_empty() {
                    match meta.key()? {
                        (1, wire) => merge_into(&mut envelope.api_version, wire, &mut meta)
                            .map_err(|e| e.field("apiVersion").field("typeMeta"))?,
                        (2, wire) => merge_into(&mut envelope.kind, wire, &mut meta)
                            .map_err(|e| e.field("kind").field("typeMeta"))?,
                        (_, wire) => meta.skip(wire)?,
                    }
                }
            }
            (2, WireType::LengthDelimited) => {
                let mut raw = input.delimited()?;
                envelope.raw_offset = raw.offset();
                envelope.raw = raw.bytes();
            }
            (3, wire) => merge_into(&mut envelope.content_encoding, wire, &mut input)
                .map_err(|e| e.field("contentEncoding"))?,
            (4, wire) => merge_into(&mut envelope.content_type, wire, &mut input)
                .map_err(|e| e.field("contentType"))?,
            (number @ (1 | 2), wire) => {
                return Err(input.error(format!(
                    "expected field {number} of runtime.Unknown to be length-delimited, but the key says {wire:?}"
                )));
            }
            (_, wire) => input.skip(wire)?,
        }
    }
    Ok(envelope)
}

/// Writes the envelope around a message's bytes.
pub fn encode_envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let api_version = api_version.to_owned();
    let kind = kind.to_owned();
    let meta_len = field_len(1, &api_version) + field_len(2, &kind);
    let empty = String::new();
    let mut out = Vec::with_capacity(MAGIC.len() + meta_len + raw.len() + 16);
    out.extend_from_slice(MAGIC);
    prost::encoding::encode_key(1, WireType::LengthDelimited, &mut out);
    prost::encoding::encode_varint(meta_len as u64, &mut out);
    encode_field(1, &api_version, &mut out);
    encode_field(2, &kind, &mut out);
    prost::encoding::encode_key(2, WireType::LengthDelimited, &mut out);
    prost::encoding::encode_varint(raw.len() as u64, &mut out);
    out.extend_from_slice(raw);
    encode_field(3, &empty, &mut out);
    encode_field(4, &empty, &mut out);
    out
}

/// An object of type `T` in its envelope, as the API server writes it.
pub fn encode_object<T: Message + TypeMeta>(object: &T) -> Vec<u8> {
    encode_envelope(T::API_VERSION, T::KIND, &object.encode_to_vec())
}

/// Reads an object of type `T` from its envelope, checking that the envelope names `T`.
/// The object's `apiVersion` and `kind` are the envelope's, set by `set_type_meta` (a
/// generated type's markers; the message itself has no such fields).
///
/// # Errors
/// A bad envelope, one that names another kind, or a message that does not read as `T`.
pub fn decode_object<T: Message + TypeMeta>(body: &[u8]) -> Result<T, DecodeError> {
    let envelope = decode_envelope(body)?;
    if envelope.api_version != T::API_VERSION || envelope.kind != T::KIND {
        return Err(DecodeError::new(
            MAGIC.len(),
            format!(
                "expected the envelope to hold a {} {}, but it holds a {} {}",
                T::API_VERSION,
                T::KIND,
                if envelope.api_version.is_empty() {
                    "(no apiVersion)"
                } else {
                    &envelope.api_version
                },
                if envelope.kind.is_empty() {
                    "(no kind)"
                } else {
                    &envelope.kind
                },
            ),
        ));
    }
    if !envelope.content_encoding.is_empty() {
        return Err(DecodeError::new(
            MAGIC.len(),
            format!(
                "expected no content encoding, but the envelope says `{}`",
                envelope.content_encoding
            ),
        ));
    }
    let mut value = T::zero();
    let mut input = Input::with_offset(envelope.raw, envelope.raw_offset);
    super::merge_message(&mut value, &mut input)?;
    value.set_type_meta();
    Ok(value)
}
