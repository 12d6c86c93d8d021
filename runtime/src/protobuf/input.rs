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
    #[inline]
    pub fn offset(&self) -> usize {
        self.end - self.rest.len()
    }

    /// Whether every byte is read.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// An error at the next byte.
    #[cold]
    pub fn error(&self, message: impl Into<String>) -> DecodeError {
        DecodeError::new(self.offset(), message)
    }

    /// Reads a varint.
    ///
    /// # Errors
    /// A varint cut short or longer than ten bytes.
    #[inline]
    pub fn varint(&mut self) -> Result<u64, DecodeError> {
        // Most varints (keys, lengths, small numbers) are one byte.
        if let Some((&byte, tail)) = self.rest.split_first()
            && byte < 0x80
        {
            self.rest = tail;
            return Ok(u64::from(byte));
        }
        self.varint_slow()
    }

    #[inline(never)]
    fn varint_slow(&mut self) -> Result<u64, DecodeError> {
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
    #[inline]
    pub fn fixed<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let Some((head, tail)) = self.rest.split_first_chunk::<N>() else {
            return Err(self.fixed_error(N));
        };
        self.rest = tail;
        Ok(*head)
    }

    #[cold]
    #[inline(never)]
    fn fixed_error(&self, n: usize) -> DecodeError {
        self.error(format!(
            "expected {n} bytes of a fixed-width value, but {} are left",
            self.rest.len()
        ))
    }

    /// Reads a key: the field number and the wire type.
    ///
    /// # Errors
    /// A bad varint, field number 0 or a wire type that does not exist.
    #[inline]
    pub fn key(&mut self) -> Result<(u32, WireType), DecodeError> {
        // A one-byte key (fields 1 to 15) with a wire type that exists.
        if let Some((&byte, tail)) = self.rest.split_first()
            && (8..0x80).contains(&byte)
        {
            let wire = match byte & 7 {
                0 => Some(WireType::Varint),
                1 => Some(WireType::SixtyFourBit),
                2 => Some(WireType::LengthDelimited),
                3 => Some(WireType::StartGroup),
                4 => Some(WireType::EndGroup),
                5 => Some(WireType::ThirtyTwoBit),
                _ => None,
            };
            if let Some(wire) = wire {
                self.rest = tail;
                return Ok((u32::from(byte >> 3), wire));
            }
        }
        self.key_slow()
    }

    #[inline(never)]
    fn key_slow(&mut self) -> Result<(u32, WireType), DecodeError> {
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
    #[inline]
    pub fn delimited(&mut self) -> Result<Input<'a>, DecodeError> {
        let offset = self.offset();
        let len = self.varint()?;
        match usize::try_from(len) {
            Ok(len) if len <= self.rest.len() => {
                let (head, tail) = self.rest.split_at(len);
                self.rest = tail;
                Ok(Input {
                    rest: head,
                    end: self.end - tail.len(),
                })
            }
            _ => Err(self.length_error(offset, len)),
        }
    }

    #[cold]
    #[inline(never)]
    fn length_error(&self, offset: usize, len: u64) -> DecodeError {
        DecodeError::new(
            offset,
            format!(
                "expected a length of at most the {} bytes left, but it is {len}",
                self.rest.len()
            ),
        )
    }

    /// Skips a value of wire type `wire`.
    ///
    /// # Errors
    /// A value cut short, or a group (Kubernetes writes none).
    #[inline]
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

    /// How many fields with key `number` and `wire` come next, one after the other: the
    /// count stops at the first other key, or at bytes that do not read (decoding them
    /// then says what is wrong). Reads nothing.
    #[inline]
    pub fn count_following(&self, number: u32, wire: WireType) -> usize {
        let mut probe = *self;
        let mut count = 0;
        while !probe.is_empty() {
            match probe.key() {
                Ok(key) if key == (number, wire) => {}
                _ => break,
            }
            if probe.skip(wire).is_err() {
                break;
            }
            count += 1;
        }
        count
    }

    /// The rest as UTF-8 text, all consumed.
    ///
    /// # Errors
    /// Bytes that are not UTF-8.
    #[inline]
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

    /// The rest as an owned UTF-8 string, all consumed. The bytes are copied first and
    /// validated in their new allocation: its start is aligned, so std's validation reads
    /// whole words from the first byte (a dozen bytes validate in about 85 instructions, not
    /// 112 at an odd offset of the input).
    ///
    /// # Errors
    /// Bytes that are not UTF-8 (the same error as [`Input::text`]'s).
    #[inline]
    pub fn string(&mut self) -> Result<String, DecodeError> {
        let offset = self.offset();
        let text = String::from_utf8(self.rest.to_vec()).map_err(|e| {
            DecodeError::new(
                offset + e.utf8_error().valid_up_to(),
                "expected UTF-8 text, but the bytes are not",
            )
        })?;
        self.rest = &[];
        Ok(text)
    }

    /// The rest as bytes, all consumed.
    #[inline]
    pub fn bytes(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.rest)
    }
}

#[cfg(test)]
mod tests {
    use prost::encoding::{decode_key, encode_varint};

    use super::*;

    #[test]
    fn an_error_is_one_pointer_so_results_stay_small() {
        assert_eq!(size_of::<DecodeError>(), size_of::<usize>());
        assert!(size_of::<Result<u64, DecodeError>>() <= 2 * size_of::<usize>());
    }

    #[test]
    fn the_one_byte_paths_read_as_prost_does() {
        // Every one-byte key, and a few longer ones, through the fast and the slow path.
        let mut keys: Vec<Vec<u8>> = (0..=0xffu8).map(|b| vec![b]).collect();
        for value in [
            0x80_u64,
            0x81,
            0x7ff,
            1 << 32,
            (536_870_911 << 3) | 2,
            1 << 35,
        ] {
            let mut buf = Vec::new();
            encode_varint(value, &mut buf);
            keys.push(buf);
        }
        for bytes in keys {
            let ours = Input::new(&bytes).key();
            let prost = decode_key(&mut bytes.as_slice());
            match (&ours, &prost) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{bytes:?}"),
                (Err(e), Err(_)) => assert_eq!(e.offset(), 0, "{bytes:?}"),
                _ => panic!("{bytes:?}: {ours:?} against {prost:?}"),
            }
            let mut input = Input::new(&bytes);
            let varint = input.varint();
            let prost = decode_varint(&mut bytes.as_slice());
            assert_eq!(varint.ok(), prost.ok(), "{bytes:?}");
        }
        let e = Input::new(&[0x06]).key().unwrap_err();
        assert_eq!(
            e.message(),
            "expected a field key, but wire type 6 does not exist"
        );
        let e = Input::new(&[0x02]).key().unwrap_err();
        assert_eq!(
            e.message(),
            "expected a field key, but field number 0 is out of range"
        );
    }
}
