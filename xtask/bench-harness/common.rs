//! What both harness programs share (`main.rs`, the JSON and everything else, and
//! `protobuf.rs`, the protobuf contenders, built as a second package so that the JSON
//! contenders' `kubeforge-runtime` is built without its `protobuf` feature): the one line
//! of output, numbers from arguments, the fixtures' names, the timed decode/encode loop and
//! the calls callgrind counts.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::protocol;

pub fn number<T: std::str::FromStr>(text: &str, what: &str) -> T {
    text.parse()
        .unwrap_or_else(|_| panic!("{what}: expected a number, got {text:?}"))
}

/// The one line of output: `value` as JSON.
pub fn report<T: serde::Serialize>(value: &T) {
    println!("{}", serde_json::to_string(value).expect("report"));
}

/// The fixture's file name (`core.v1.Pod.json`), which picks the types.
pub fn kind(fixture: &str) -> &str {
    std::path::Path::new(fixture)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
}

/// Whether `what` asks for the serializing call (`serialize`) or the deserializing one.
pub fn serializing(what: &str) -> bool {
    match what {
        "deserialize" => false,
        "serialize" => true,
        _ => panic!("expected deserialize or serialize, got {what:?}"),
    }
}

/// Bytes the allocator holds (glibc's arenas and its mmapped chunks).
fn heap_held() -> usize {
    // SAFETY: mallinfo2 only reads the allocator's counters.
    let info = unsafe { libc::mallinfo2() };
    info.uordblks + info.hblkhd
}

/// What [`timed`] measured.
pub struct Timed {
    /// Mean time of one decode.
    pub de: Duration,
    /// Mean time of one encode.
    pub ser: Duration,
    /// The last encode's output.
    pub out: Vec<u8>,
    /// Heap bytes the first decoded value held.
    pub held: usize,
}

/// Decodes `input` and encodes it back, `iterations` times each (mean times; dropping a
/// value is not timed), after one decode that measures the heap bytes the decoded value
/// holds, [`protocol::WARM_UP`] decodes and one encode that touches the output buffer's pages, none
/// of them timed.
pub fn timed<T>(
    input: &[u8],
    iterations: usize,
    decode: impl Fn(&[u8]) -> T,
    encode: impl Fn(&T, &mut Vec<u8>),
) -> Timed {
    let before = heap_held();
    let first = black_box(decode(input));
    let held = heap_held().saturating_sub(before);
    drop(first);
    let mut kept: Option<T> = None;
    for _ in 0..protocol::WARM_UP {
        let value = decode(black_box(input));
        drop(kept.replace(black_box(value)));
    }
    let mut de = Duration::ZERO;
    for _ in 0..iterations {
        let start = Instant::now();
        let value = decode(black_box(input));
        de += start.elapsed();
        drop(kept.replace(black_box(value)));
    }
    let value = kept.expect("at least one iteration");
    let mut out = Vec::with_capacity(input.len() * 2);
    // One encode not timed, as the decode above that measures the heap is not: the reserved
    // buffer's pages are untouched until written, and the first encode into them would time
    // the kernel's page faults (some 15,000 for the 62 MB of 2000 Pods) with the encoding.
    encode(&value, &mut out);
    let mut ser = Duration::ZERO;
    for _ in 0..iterations {
        out.clear();
        let start = Instant::now();
        encode(black_box(&value), &mut out);
        ser += start.elapsed();
        black_box(&out);
    }
    let n = u32::try_from(iterations).expect("iterations");
    Timed {
        de: de / n,
        ser: ser / n,
        out,
        held,
    }
}

/// `harness protobuf …`: [`timed`] as objects per second and heap per object; `same`
/// judges the output against the input.
pub fn codec<T>(
    input: &[u8],
    objects: usize,
    iterations: usize,
    decode: impl Fn(&[u8]) -> T,
    encode: impl Fn(&T, &mut Vec<u8>),
    same: impl Fn(&[u8], &[u8]) -> bool,
) -> protocol::Codec {
    let t = timed(input, iterations, decode, encode);
    protocol::Codec {
        objects: objects as u64,
        in_bytes: input.len() as u64,
        out_bytes: t.out.len() as u64,
        decode_per_s: objects as f64 / t.de.as_secs_f64(),
        encode_per_s: objects as f64 / t.ser.as_secs_f64(),
        heap_per_object: t.held as f64 / objects as f64,
        round_trip: same(input, &t.out),
    }
}

/// Decodes `input` once, and encodes it back when `serialize`; only the one call the
/// measurement is about happens inside a `counted_` function, which the xtask runs under
/// callgrind collecting only inside it (`--toggle-collect`), so reading the fixture and
/// dropping the values count for nothing. The output's length.
pub fn counted<T>(
    input: &[u8],
    serialize: bool,
    decode: impl Fn(&[u8]) -> T,
    encode: impl Fn(&T, &mut Vec<u8>),
) -> usize {
    if serialize {
        let value = decode(input);
        let mut out = Vec::with_capacity(input.len() * 2);
        counted_serialize(&encode, &value, &mut out);
        out.len()
    } else {
        let value = counted_deserialize(&decode, input);
        black_box(&value);
        0
    }
}

#[inline(never)]
fn counted_deserialize<T>(decode: &impl Fn(&[u8]) -> T, input: &[u8]) -> T {
    decode(black_box(input))
}

#[inline(never)]
fn counted_serialize<T>(encode: &impl Fn(&T, &mut Vec<u8>), value: &T, out: &mut Vec<u8>) {
    encode(black_box(value), black_box(out));
}
