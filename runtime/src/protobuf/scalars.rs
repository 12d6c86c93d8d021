//! [`Field`] for the scalars and the runtime's special types, as Go writes them.

use jiff::Timestamp;
use prost::encoding::{WireType, encoded_len_varint, key_len};

use super::{
    DecodeError, Field, Input, encode_field, encode_key, encode_varint, field_len, merge_into,
};
use crate::{ByteString, IntOrString, MicroTime, Number, Quantity, Time};

/// A signed value as protobuf's `int32`/`int64` write it: two's complement in 64 bits.
#[allow(clippy::cast_sign_loss, reason = "the wire form is the bits")]
fn signed(value: i64) -> u64 {
    value as u64
}

#[allow(clippy::cast_possible_wrap, reason = "the wire form is the bits")]
fn unsigned_to_signed(value: u64) -> i64 {
    value as i64
}

impl Field for String {
    const WIRE: WireType = WireType::LengthDelimited;
    fn zero() -> Self {
        String::new()
    }
    fn is_zero(&self) -> bool {
        self.is_empty()
    }
    fn payload_len(&self) -> usize {
        self.len()
    }
    fn encode_payload(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(self.as_bytes());
    }
    fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
        // One allocation of exactly the text's length (a field is almost always read once,
        // into an empty string), not `clone_into`'s amortized growth.
        *self = input.string()?;
        Ok(())
    }
}

impl Field for bool {
    const WIRE: WireType = WireType::Varint;
    fn zero() -> Self {
        false
    }
    fn is_zero(&self) -> bool {
        !*self
    }
    fn payload_len(&self) -> usize {
        1
    }
    fn encode_payload(&self, buf: &mut Vec<u8>) {
        buf.push(u8::from(*self));
    }
    fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
        *self = input.varint()? != 0;
        Ok(())
    }
}

impl Field for i64 {
    const WIRE: WireType = WireType::Varint;
    fn zero() -> Self {
        0
    }
    fn is_zero(&self) -> bool {
        *self == 0
    }
    fn payload_len(&self) -> usize {
        encoded_len_varint(signed(*self))
    }
    fn encode_payload(&self, buf: &mut Vec<u8>) {
        encode_varint(signed(*self), buf);
    }
    fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
        *self = unsigned_to_signed(input.varint()?);
        Ok(())
    }
}

impl Field for i32 {
    const WIRE: WireType = WireType::Varint;
    fn zero() -> Self {
        0
    }
    fn is_zero(&self) -> bool {
        *self == 0
    }
    fn payload_len(&self) -> usize {
        encoded_len_varint(signed(i64::from(*self)))
    }
    fn encode_payload(&self, buf: &mut Vec<u8>) {
        encode_varint(signed(i64::from(*self)), buf);
    }
    fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
        // protobuf's int32 keeps the low 32 bits of the varint.
        #[allow(clippy::cast_possible_truncation, reason = "protobuf's int32 rule")]
        let value = input.varint()? as i32;
        *self = value;
        Ok(())
    }
}

impl Field for u32 {
    const WIRE: WireType = WireType::Varint;
    fn zero() -> Self {
        0
    }
    fn is_zero(&self) -> bool {
        *self == 0
    }
    fn payload_len(&self) -> usize {
        encoded_len_varint(u64::from(*self))
    }
    fn encode_payload(&self, buf: &mut Vec<u8>) {
        encode_varint(u64::from(*self), buf);
    }
    fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
        #[allow(clippy::cast_possible_truncation, reason = "protobuf's uint32 rule")]
        let value = input.varint()? as u32;
        *self = value;
        Ok(())
    }
}

impl Field for u64 {
    const WIRE: WireType = WireType::Varint;
    fn zero() -> Self {
        0
    }
    fn is_zero(&self) -> bool {
        *self == 0
    }
    fn payload_len(&self) -> usize {
        encoded_len_varint(*self)
    }
    fn encode_payload(&self, buf: &mut Vec<u8>) {
        encode_varint(*self, buf);
    }
    fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
        *self = input.varint()?;
        Ok(())
    }
}

/// `double`.
impl Field for Number {
    const WIRE: WireType = WireType::SixtyFourBit;
    fn zero() -> Self {
        Number::from(0.0)
    }
    fn is_zero(&self) -> bool {
        self.as_f64() == 0.0
    }
    fn payload_len(&self) -> usize {
        8
    }
    fn encode_payload(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&self.as_f64().to_le_bytes());
    }
    fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
        *self = Number::from(f64::from_le_bytes(input.fixed::<8>()?));
        Ok(())
    }
}

/// `bytes`.
impl Field for ByteString {
    const WIRE: WireType = WireType::LengthDelimited;
    fn zero() -> Self {
        ByteString(Vec::new())
    }
    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }
    fn payload_len(&self) -> usize {
        self.0.len()
    }
    fn encode_payload(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&self.0);
    }
    fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
        input.bytes().clone_into(&mut self.0);
        Ok(())
    }
}

/// `{seconds = 1, nanos = 2}`, both written; Go's zero time is the empty message.
fn time_len(ts: Timestamp, zero: bool) -> usize {
    if zero {
        return 0;
    }
    let nanos = i64::from(ts.subsec_nanosecond());
    1 + encoded_len_varint(signed(ts.as_second())) + 1 + encoded_len_varint(signed(nanos))
}

fn encode_time(ts: Timestamp, zero: bool, buf: &mut Vec<u8>) {
    if zero {
        return;
    }
    encode_key(1, WireType::Varint, buf);
    encode_varint(signed(ts.as_second()), buf);
    encode_key(2, WireType::Varint, buf);
    encode_varint(signed(i64::from(ts.subsec_nanosecond())), buf);
}

fn merge_time(input: &mut Input<'_>, zero: Timestamp) -> Result<Timestamp, DecodeError> {
    if input.is_empty() {
        return Ok(zero);
    }
    let start = input.offset();
    let mut seconds = 0i64;
    let mut nanos = 0i32;
    while !input.is_empty() {
        match input.key()? {
            (1, wire) => merge_into(&mut seconds, wire, input).map_err(|e| e.field("seconds"))?,
            (2, wire) => merge_into(&mut nanos, wire, input).map_err(|e| e.field("nanos"))?,
            (_, wire) => input.skip(wire)?,
        }
    }
    Timestamp::new(seconds, nanos).map_err(|_| {
        DecodeError::new(
            start,
            format!(
                "expected a time between the years 0 and 9999, but it is {seconds} s and {nanos} ns"
            ),
        )
    })
}

macro_rules! time_field {
    ($ty:ty) => {
        impl Field for $ty {
            const WIRE: WireType = WireType::LengthDelimited;
            fn zero() -> Self {
                <$ty>::ZERO
            }
            fn is_zero(&self) -> bool {
                <$ty>::is_zero(self)
            }
            fn payload_len(&self) -> usize {
                time_len(self.0, self.is_zero())
            }
            fn encode_payload(&self, buf: &mut Vec<u8>) {
                encode_time(self.0, self.is_zero(), buf);
            }
            fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
                self.0 = merge_time(input, <$ty>::ZERO.0)?;
                Ok(())
            }
        }
    };
}

time_field!(Time);
time_field!(MicroTime);

/// `{string = 1}`, always written.
impl Field for Quantity {
    const WIRE: WireType = WireType::LengthDelimited;
    fn zero() -> Self {
        Quantity::from("0")
    }
    /// `merge` replaces the whole value, so nothing is allocated or parsed for it to replace.
    fn placeholder() -> Self {
        Quantity::default()
    }
    fn is_zero(&self) -> bool {
        self.signum() == Some(0)
    }
    fn payload_len(&self) -> usize {
        key_len(1) + encoded_len_varint(self.as_str().len() as u64) + self.as_str().len()
    }
    fn encode_payload(&self, buf: &mut Vec<u8>) {
        encode_key(1, WireType::LengthDelimited, buf);
        encode_varint(self.as_str().len() as u64, buf);
        buf.extend_from_slice(self.as_str().as_bytes());
    }
    fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
        let mut text = String::new();
        while !input.is_empty() {
            match input.key()? {
                (1, wire) => merge_into(&mut text, wire, input).map_err(|e| e.field("string"))?,
                (_, wire) => input.skip(wire)?,
            }
        }
        *self = Quantity::from(text);
        Ok(())
    }
}

/// `{type = 1, intVal = 2, strVal = 3}`, all three written.
impl Field for IntOrString {
    const WIRE: WireType = WireType::LengthDelimited;
    fn zero() -> Self {
        IntOrString::Int(0)
    }
    fn is_zero(&self) -> bool {
        *self == IntOrString::Int(0)
    }
    fn payload_len(&self) -> usize {
        let (kind, int, string) = parts(self);
        field_len(1, &kind) + field_len(2, &int) + field_len(3, string)
    }
    fn encode_payload(&self, buf: &mut Vec<u8>) {
        let (kind, int, string) = parts(self);
        encode_field(1, &kind, buf);
        encode_field(2, &int, buf);
        encode_field(3, string, buf);
    }
    fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
        let start = input.offset();
        let (mut kind, mut int, mut string) = (0i64, 0i32, String::new());
        while !input.is_empty() {
            match input.key()? {
                (1, wire) => merge_into(&mut kind, wire, input).map_err(|e| e.field("type"))?,
                (2, wire) => merge_into(&mut int, wire, input).map_err(|e| e.field("intVal"))?,
                (3, wire) => merge_into(&mut string, wire, input).map_err(|e| e.field("strVal"))?,
                (_, wire) => input.skip(wire)?,
            }
        }
        *self = match kind {
            0 => IntOrString::Int(int),
            1 => IntOrString::String(string),
            other => {
                return Err(DecodeError::new(
                    start,
                    format!("expected IntOrString's type 0 (int) or 1 (string), but it is {other}"),
                ));
            }
        };
        Ok(())
    }
}

/// The three fields, the string borrowed (encoding clones nothing).
fn parts(value: &IntOrString) -> (i64, i32, &String) {
    static EMPTY: String = String::new();
    match value {
        IntOrString::Int(int) => (0, *int, &EMPTY),
        IntOrString::String(string) => (1, 0, string),
    }
}

/// `RawExtension`, `FieldsV1` and apiextensions' `JSON`: `{raw = 1}` with the JSON text
/// (compact, keys in order); `null` (Go's nil) is the empty message.
impl Field for serde_json::Value {
    const WIRE: WireType = WireType::LengthDelimited;
    fn zero() -> Self {
        serde_json::Value::Null
    }
    fn is_zero(&self) -> bool {
        self.is_null()
    }
    fn payload_len(&self) -> usize {
        if self.is_null() {
            return 0;
        }
        let len = json_len(self);
        key_len(1) + encoded_len_varint(len as u64) + len
    }
    fn encode_payload(&self, buf: &mut Vec<u8>) {
        if self.is_null() {
            return;
        }
        let text = serde_json::to_vec(self).unwrap_or_default();
        encode_key(1, WireType::LengthDelimited, buf);
        encode_varint(text.len() as u64, buf);
        buf.extend_from_slice(&text);
    }
    fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
        while !input.is_empty() {
            match input.key()? {
                (1, WireType::LengthDelimited) => {
                    let mut raw = input.delimited()?;
                    let offset = raw.offset();
                    let bytes = raw.bytes();
                    *self = if bytes.is_empty() {
                        serde_json::Value::Null
                    } else {
                        serde_json::from_slice(bytes).map_err(|e| {
                            DecodeError::new(offset, format!("expected JSON in `raw`, but {e}"))
                                .field("raw")
                        })?
                    };
                }
                (_, wire) => input.skip(wire)?,
            }
        }
        Ok(())
    }
}

/// The length of a value's compact JSON text, without writing it.
fn json_len(value: &serde_json::Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

impl<T: Field> Field for Box<T> {
    const WIRE: WireType = T::WIRE;
    fn zero() -> Self {
        Box::new(T::zero())
    }
    fn is_zero(&self) -> bool {
        (**self).is_zero()
    }
    fn payload_len(&self) -> usize {
        (**self).payload_len()
    }
    fn encode_payload(&self, buf: &mut Vec<u8>) {
        (**self).encode_payload(buf);
    }
    fn merge(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
        (**self).merge(input)
    }
}
