//! The watch stream in protobuf: frames of a 4-byte big-endian length and a
//! `meta.v1.WatchEvent` `{type = 1, object = 2 {raw = 1}}` (no envelope around the event),
//! whose `raw` is the object in its envelope, as kube-apiserver writes them.

use std::collections::BTreeMap;

use prost::encoding::WireType;

use super::{
    DecodeError, Input, Message, decode_envelope, decode_object, encode_field, merge_into,
};
use crate::{Bookmark, TypeMeta, WatchEvent};

/// Decodes a protobuf watch stream as its bytes arrive: [`push`](Self::push) what was read,
/// then take every complete event with [`next_event`](Self::next_event).
#[derive(Clone, Debug, Default)]
pub struct WatchFrames {
    buf: Vec<u8>,
    /// The stream offset of `buf[0]`, for the offsets of errors.
    consumed: usize,
}

impl WatchFrames {
    /// A decoder at the start of a stream.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Whether a partial frame is waiting for more bytes.
    pub fn is_partial(&self) -> bool {
        !self.buf.is_empty()
    }

    /// How many bytes of a partial frame are waiting (0 between frames).
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// The next complete event, or `None` until its last byte has arrived. An event of
    /// type `ERROR` carries an `S` (the API's `Status`); `BOOKMARK` a [`Bookmark`].
    ///
    /// # Errors
    /// A frame that does not decode, with its offset in the stream; the frame is skipped.
    pub fn next_event<T: Message + TypeMeta, S: Message>(
        &mut self,
    ) -> Option<Result<WatchEvent<T, S>, DecodeError>> {
        let (head, rest) = self.buf.split_first_chunk::<4>()?;
        let len = usize::try_from(u32::from_be_bytes(*head)).unwrap_or(usize::MAX);
        if rest.len() < len {
            return None;
        }
        let frame: Vec<u8> = rest[..len].to_vec();
        let start = self.consumed + 4;
        self.buf.drain(..4 + len);
        self.consumed = start + len;
        Some(event(&frame, start))
    }
}

fn event<T: Message + TypeMeta, S: Message>(
    frame: &[u8],
    start: usize,
) -> Result<WatchEvent<T, S>, DecodeError> {
    let mut input = Input::with_offset(frame, start);
    let mut kind = String::new();
    let mut raw: Option<(usize, &[u8])> = None;
    while !input.is_empty() {
        match input.key()? {
            (1, wire) => merge_into(&mut kind, wire, &mut input).map_err(|e| e.field("type"))?,
            (2, WireType::LengthDelimited) => {
                let mut object = input.delimited()?;
                while !object.is_empty() {
                    match object.key()? {
                        (1, WireType::LengthDelimited) => {
                            let mut bytes = object.delimited()?;
                            raw = Some((bytes.offset(), bytes.bytes()));
                        }
                        (_, wire) => object.skip(wire)?,
                    }
                }
            }
            (_, wire) => input.skip(wire)?,
        }
    }
    let (offset, raw) = raw.unwrap_or((start, &[]));
    let shift = |e: DecodeError| e.shifted(offset).field("object");
    Ok(match kind.as_str() {
        "ADDED" => WatchEvent::Added(decode_object(raw).map_err(shift)?),
        "MODIFIED" => WatchEvent::Modified(decode_object(raw).map_err(shift)?),
        "DELETED" => WatchEvent::Deleted(decode_object(raw).map_err(shift)?),
        "ERROR" => {
            let envelope = decode_envelope(raw).map_err(shift)?;
            let mut status = S::decode(envelope.raw)
                .map_err(|e| e.shifted(envelope.raw_offset))
                .map_err(shift)?;
            status.set_type_meta();
            WatchEvent::Error(status)
        }
        "BOOKMARK" => WatchEvent::Bookmark(bookmark(raw).map_err(shift)?),
        _ => WatchEvent::Other {
            event_type: kind,
            object: serde_json::Value::Null,
        },
    })
}

/// A bookmark's object: its envelope's type, and `metadata` (field 1) with
/// `resourceVersion` (6) and `annotations` (12).
fn bookmark(raw: &[u8]) -> Result<Bookmark, DecodeError> {
    let envelope = decode_envelope(raw)?;
    let mut input = Input::with_offset(envelope.raw, envelope.raw_offset);
    let mut bookmark = Bookmark {
        api_version: Some(envelope.api_version).filter(|s| !s.is_empty()),
        kind: Some(envelope.kind).filter(|s| !s.is_empty()),
        ..Bookmark::default()
    };
    while !input.is_empty() {
        match input.key()? {
            (1, WireType::LengthDelimited) => {
                let mut meta = input.delimited()?;
                while !meta.is_empty() {
                    match meta.key()? {
                        (6, wire) => merge_into(&mut bookmark.resource_version, wire, &mut meta)
                            .map_err(|e| e.field("resourceVersion").field("metadata"))?,
                        (12, wire) => {
                            let mut map: BTreeMap<String, String> = BTreeMap::new();
                            super::merge_map(&mut map, wire, &mut meta, "annotations")
                                .map_err(|e| e.field("metadata"))?;
                            bookmark.annotations.extend(map);
                        }
                        (_, wire) => meta.skip(wire)?,
                    }
                }
            }
            (_, wire) => input.skip(wire)?,
        }
    }
    Ok(bookmark)
}

/// One frame of the watch stream: event `event_type` with `object` in its envelope (what
/// [`super::encode_object`] writes), as kube-apiserver writes it.
pub fn encode_watch_frame(event_type: &str, object: &[u8]) -> Vec<u8> {
    let mut raw = Vec::new();
    encode_field(1, &crate::ByteString(object.to_vec()), &mut raw);
    let mut event = Vec::new();
    encode_field(1, &event_type.to_owned(), &mut event);
    encode_field(2, &crate::ByteString(raw), &mut event);
    let len = u32::try_from(event.len()).unwrap_or(u32::MAX);
    let mut frame = len.to_be_bytes().to_vec();
    frame.extend(event);
    frame
}
