//! What both harness programs share (`main.rs`, the JSON and everything else, and
//! `protobuf.rs`, the protobuf contenders, built as a second package so that the JSON
//! contenders' `kubeforge-runtime` is built without its `protobuf` feature): the one line
//! of output, numbers from arguments, the fixtures' names, the timed decode/encode loop and
//! the calls callgrind counts.

use std::hint::black_box;
use std::time::Duration;

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

/// The CPU time this thread has run (`CLOCK_THREAD_CPUTIME_ID`, user and system). Each timed
/// iteration is measured on it rather than on the wall clock: on a machine shared with other
/// work, the wall clock also counts the time the thread waited for a core, which on 2000
/// Nodes with a load average of 4 on 2 cores made iterations of one process differ by 20%.
pub fn cpu_now() -> Duration {
    // SAFETY: clock_gettime only writes the struct it is given.
    let time = unsafe {
        let mut time: libc::timespec = std::mem::zeroed();
        assert_eq!(
            libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time),
            0
        );
        time
    };
    Duration::new(
        u64::try_from(time.tv_sec).expect("tv_sec"),
        u32::try_from(time.tv_nsec).expect("tv_nsec"),
    )
}

/// Bytes the allocator holds (glibc's arenas and its mmapped chunks).
fn heap_held() -> usize {
    // SAFETY: mallinfo2 only reads the allocator's counters.
    let info = unsafe { libc::mallinfo2() };
    info.uordblks + info.hblkhd
}

/// What [`timed`] measured.
pub struct Timed {
    /// Each timed decode, in order.
    pub de: Vec<Duration>,
    /// Each timed encode, in order.
    pub ser: Vec<Duration>,
    /// The last encode's output.
    pub out: Vec<u8>,
    /// Heap bytes the first decoded value held.
    pub held: usize,
}

/// Decodes `input` and encodes it back, `iterations` times each (each timed alone, in the
/// thread's CPU time: [`cpu_now`]; dropping
/// a value is not timed), after one decode that measures the heap bytes the decoded value
/// holds, [`protocol::WARM_UP`] decodes and one encode that touches the output buffer's pages,
/// none of them timed.
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
    let mut de = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let start = cpu_now();
        let value = decode(black_box(input));
        de.push(cpu_now() - start);
        drop(kept.replace(black_box(value)));
    }
    let value = kept.expect("at least one iteration");
    let mut out = Vec::with_capacity(input.len() * 2);
    // One encode not timed, as the decode above that measures the heap is not: the reserved
    // buffer's pages are untouched until written, and the first encode into them would time
    // the kernel's page faults (some 15,000 for the 62 MB of 2000 Pods) with the encoding.
    encode(&value, &mut out);
    let mut ser = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        out.clear();
        let start = cpu_now();
        encode(black_box(&value), &mut out);
        ser.push(cpu_now() - start);
        black_box(&out);
    }
    Timed { de, ser, out, held }
}

/// The one figure of a process's timed iterations, from which its throughput is reported:
/// their median (the mean of the middle two of an even count). Chosen because it repeats
/// (BENCHMARKS.md, section c, branch `sernoise`): on 2000 Nodes, the 90% range of the
/// serialize and deserialize ratios of three process pairs was 0.070 and 0.028 wide with it
/// (wall clock, quiet machine; 0.031 and 0.025 in CPU time at a load of 4 on 2 cores),
/// against 0.067 and 0.064 (0.036, 0.045) for the mean of five, the figure before, and 0.113
/// and 0.020 (0.028, 0.026) for the fastest, which picks each process's luckiest iteration.
pub fn figure(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort_unstable();
    let n = sorted.len();
    assert!(n > 0, "at least one iteration");
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2
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
        decode_per_s: objects as f64 / figure(&t.de).as_secs_f64(),
        encode_per_s: objects as f64 / figure(&t.ser).as_secs_f64(),
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
