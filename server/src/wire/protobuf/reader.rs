//! The protobuf wire format: reading a message's fields (`Reader`, `Wire`) and writing
//! varints and length-delimited fields, as the descriptors' transcoding uses them.

use super::ty;

/// A field's wire type.
pub(super) const VARINT: u8 = 0;
pub(super) const FIXED64: u8 = 1;
pub(super) const LEN: u8 = 2;
pub(super) const FIXED32: u8 = 5;

#[derive(Clone, Copy, Debug)]
pub(super) enum Wire<'a> {
    Varint(u64),
    Fixed64(u64),
    Len(&'a [u8]),
    Fixed32(u32),
}

pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    pub(super) fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    pub(super) fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = *self.bytes.get(self.at).ok_or("truncated varint")?;
            self.at += 1;
            value |= u64::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("varint longer than 10 bytes".to_owned())
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|e| *e <= self.bytes.len())
            .ok_or("truncated field")?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    pub(super) fn fixed64(&mut self) -> Result<u64, String> {
        let bytes: [u8; 8] = self.take(8)?.try_into().map_err(|_| "truncated fixed64")?;
        Ok(u64::from_le_bytes(bytes))
    }

    pub(super) fn fixed32(&mut self) -> Result<u32, String> {
        let bytes: [u8; 4] = self.take(4)?.try_into().map_err(|_| "truncated fixed32")?;
        Ok(u32::from_le_bytes(bytes))
    }

    /// Every field, in order.
    pub(super) fn fields(mut self) -> Result<Vec<(u64, Wire<'a>)>, String> {
        let mut fields = Vec::new();
        while !self.done() {
            let tag = self.varint()?;
            let number = tag >> 3;
            let wire = match (tag & 7) as u8 {
                VARINT => Wire::Varint(self.varint()?),
                FIXED64 => Wire::Fixed64(self.fixed64()?),
                LEN => {
                    let len = usize::try_from(self.varint()?).map_err(|_| "length too large")?;
                    Wire::Len(self.take(len)?)
                }
                FIXED32 => Wire::Fixed32(self.fixed32()?),
                other => return Err(format!("unsupported wire type {other}")),
            };
            fields.push((number, wire));
        }
        Ok(fields)
    }
}

pub(super) fn is_scalar(ty: u8) -> bool {
    ty != ty::MESSAGE
}

pub(super) fn wire_of(ty: u8) -> u8 {
    match ty {
        ty::DOUBLE | ty::FIXED64 | ty::SFIXED64 => FIXED64,
        ty::FLOAT | ty::FIXED32 | ty::SFIXED32 => FIXED32,
        ty::STRING | ty::BYTES | ty::MESSAGE => LEN,
        _ => VARINT,
    }
}

pub(super) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

pub(super) fn put_varint_field(out: &mut Vec<u8>, number: u64, value: u64) {
    put_varint(out, number << 3);
    put_varint(out, value);
}

pub(super) fn put_len(out: &mut Vec<u8>, number: u64, bytes: &[u8]) {
    put_varint(out, (number << 3) | u64::from(LEN));
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

pub(super) fn utf8(bytes: &[u8]) -> Result<String, String> {
    String::from_utf8(bytes.to_vec()).map_err(|_| "a string field is not UTF-8".to_owned())
}
