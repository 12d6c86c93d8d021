//! The bytes being decoded, with their offset in the whole buffer.

use prost::encoding::{WireType, decode_varint};

use super::DecodeError;

/// The rest of a message's bytes, and where they start in the buffer decoding began with
/// (for the offsets of errors).
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    rest: &'a [u8],
    /// The offset of the end of `rest` in the whole buffer.
    end: usize,
}

impl<'a> Input<'a> {
    /// The whole of `bytes`, from offset 0.
    pub fn new(bytes: &'a [u8]) -> Self {
        Input {
            rest: bytes,
            end: bytes.len(),
        }
    }

    /// `bytes`, which start at `offset` of the buffer decoding began with.
    pub fn with_offset(bytes: &'a [u8], offset: usize) -> Self {
        Input {
            rest: bytes,
            end: offset + bytes.len(),
        }
    }

    /// The offset of the next byte.
    pub fn offset(&self) -> usize {
        self.end - self.rest.len()
    }

    /// Whether every byte is read.
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// An error at the next byte.
    pub fn error(&self, message: impl Into<String>) -> DecodeError {
        DecodeError::new(self.offset(), message)
    }

    /// Reads a varint.
    ///
    /// # Errors
    /// A varint cut short or longer than ten bytes.
    pub fn varint(&mut self) -> Result<u64, DecodeError> {
        let offset = self.offset();
        decode_varint(&mut self.rest).map_err(|_| {
            DecodeError::new(
                offset,
                "expected a varint, but the bytes end or run past ten bytes",
            )
        })
    }

    /// Reads `N` bytes of a fixed-width value.
    ///
    /// # Errors
    /// Fewer than `N` bytes left.
    pub fn fixed<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let Some((head, tail)) = self.rest.split_first_chunk::<N>() else {
            return Err(self.error(format!(
                "expected {N} bytes of a fixed-width value, but {} are left",
                self.rest.len()
            )));
        };
        self.rest = tail;
        Ok(*head)
    }

    /// Reads a key: the field number and the wire type.
    ///
    /// # Errors
    /// A bad varint, field number 0 or a wire type that does not exist.
    pub fn key(&mut self) -> Result<(u32, WireType), DecodeError> {
        let offset = self.offset();
        let key = self.varint()?;
        let wire = WireType::try_from(key & 7).map_err(|_| {
            DecodeError::new(
                offset,
                format!(
                    "expected a field key, but wire type {} does not exist",
                    key & 7
                ),
            )
        })?;
        match u32::try_from(key >> 3) {
            Ok(number) if number > 0 && number <= 536_870_911 => Ok((number, wire)),
            _ => Err(DecodeError::new(
                offset,
                format!(
                    "expected a field key, but field number {} is out of range",
                    key >> 3
                ),
            )),
        }
    }

    /// Reads a length and returns the value it delimits, leaving `self` after it.
    ///
    /// # Errors
    /// A length past the end of the bytes.
    pub fn delimited(&mut self) -> Result<Input<'a>, DecodeError> {
        let offset = self.offset();
        let len = self.varint()?;
        match usize::try_from(len) {
            Ok(len) if len <= self.rest.len() => {
                let (head, tail) = self.rest.split_at(len);
                self.rest = tail;
                Ok(Input {
                    rest: head,
                    end: self.offset(),
                })
            }
            _ => Err(DecodeError::new(
                offset,
                format!(
                    "expected a length of at most the {} bytes left, but it is {len}",
                    self.rest.len()
                ),
            )),
        }
    }

    /// Skips a value of wire type `wire`.
    ///
    /// # Errors
    /// A value cut short, or a group (Kubernetes writes none).
    pub fn skip(&mut self, wire: WireType) -> Result<(), DecodeError> {
        match wire {
            WireType::Varint => self.varint().map(drop),
            WireType::SixtyFourBit => self.fixed::<8>().map(drop),
            WireType::ThirtyTwoBit => self.fixed::<4>().map(drop),
            WireType::LengthDelimited => self.delimited().map(drop),
            WireType::StartGroup | WireType::EndGroup => Err(self.error(
                "expected no groups (deprecated, and never written by Kubernetes), but found one",
            )),
        }
    }

    /// The rest as UTF-8 text, all consumed.
    ///
    /// # Errors
    /// Bytes that are not UTF-8.
    pub fn text(&mut self) -> Result<&'a str, DecodeError> {
        let offset = self.offset();
        let text = std::str::from_utf8(self.rest).map_err(|e| {
            DecodeError::new(
                offset + e.valid_up_to(),
                "expected UTF-8 text, but the bytes are not",
            )
        })?;
        self.rest = &[];
        Ok(text)
    }

    /// The rest as bytes, all consumed.
    pub fn bytes(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.rest)
    }
}
