//! Hostile input: mutated JSON fed to every deserializer must produce a
//! value or an error, never a panic.

use kubeforge_runtime::{ByteString, IntOrString, MicroTime, Quantity, Time, WatchEvent};
use serde::Deserialize;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SEEDS: &[&str] = &[
    r#""2024-01-02T03:04:05.123456789+05:30""#,
    r#""0001-01-01T00:00:00Z""#,
    "null",
    "2147483647",
    "-0.5e-3",
    r#""aGVsbG8=""#,
    r#""100m""#,
    r#"{"type":"ADDED","object":{"a":[1,2,{"b":null}]}}"#,
    r#"{"object":{"a":1},"type":"MODIFIED"}"#,
    r#"{"type":"BOOKMARK","object":{"apiVersion":"v1","kind":"Pod","metadata":{"resourceVersion":"1","annotations":{"k":"v"}}}}"#,
    r#"{"type":"ERROR","object":{"code":410}}"#,
];

const ALPHABET: &[u8] = b"{}[]\":,.0123456789-+eEZT tnull\\u00aGVsbG8=/+ADEBKMRO\xc3\xa9";

fn mutate(rng: &mut Rng, seed: &str) -> Vec<u8> {
    let mut bytes = seed.as_bytes().to_vec();
    for _ in 0..=rng.below(4) {
        let pos = if bytes.is_empty() {
            0
        } else {
            rng.below(bytes.len() + 1)
        };
        let byte = ALPHABET[rng.below(ALPHABET.len())];
        match rng.below(3) {
            0 => bytes.insert(pos, byte),
            1 if pos < bytes.len() => {
                bytes.remove(pos);
            }
            _ if pos < bytes.len() => bytes[pos] = byte,
            _ => bytes.push(byte),
        }
    }
    bytes
}

fn try_all(input: &[u8]) {
    fn one<T: for<'de> Deserialize<'de>>(input: &[u8]) {
        let _ = serde_json::from_slice::<T>(input);
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(input) {
            let _ = serde_json::from_value::<T>(value);
        }
    }
    one::<Time>(input);
    one::<MicroTime>(input);
    one::<Quantity>(input);
    one::<IntOrString>(input);
    one::<ByteString>(input);
    one::<WatchEvent<serde_json::Value>>(input);
    one::<WatchEvent<std::collections::BTreeMap<String, i64>, String>>(input);
}

#[test]
fn mutated_inputs_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for seed in SEEDS {
        try_all(seed.as_bytes());
        for _ in 0..1500 {
            try_all(&mutate(&mut rng, seed));
        }
    }
}

#[test]
fn deeply_nested_objects_are_errors() {
    let deep = format!(
        r#"{{"type":"ADDED","object":{}1{}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert!(serde_json::from_str::<WatchEvent<serde_json::Value>>(&deep).is_err());
    let deep_first = format!(
        r#"{{"object":{}1{},"type":"ADDED"}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert!(serde_json::from_str::<WatchEvent<serde_json::Value>>(&deep_first).is_err());
}

#[test]
fn long_inputs_are_handled() {
    let long_fraction = format!(r#""2024-01-02T03:04:05.{}Z""#, "9".repeat(100_000));
    let t: Time = serde_json::from_str(&long_fraction).unwrap();
    assert_eq!(t.to_string(), "2024-01-02T03:04:05Z");
    let long_garbage = format!(r#""{}""#, "!".repeat(100_000));
    assert!(serde_json::from_str::<Time>(&long_garbage).is_err());
    assert!(serde_json::from_str::<ByteString>(&long_garbage).is_err());
    // Beyond f64's range serde_json itself refuses the number.
    let huge = "9".repeat(400);
    assert!(serde_json::from_str::<Quantity>(&huge).is_err());
    assert!(serde_json::from_str::<IntOrString>(&huge).is_err());
    // Beyond u64 but within f64: read as a float (digits past f64 precision
    // are lost; serde_json's arbitrary_precision is not enabled).
    let big = "1".repeat(30);
    let q: Quantity = serde_json::from_str(&big).unwrap();
    assert_eq!(q.as_str().len(), 30, "{q}");
    assert!(q.as_str().starts_with("1111111111111111"), "{q}");
    assert!(serde_json::from_str::<IntOrString>(&big).is_err());
}
