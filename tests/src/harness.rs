//! The round-trip harness: a program generated into a crate of generated types, which reads
//! instances on standard input and round-trips each through its type (deserialize →
//! serialize). The lossless test (`tests/lossless.rs`, over every schema of the corpus and the
//! goldens) and the property test (`tests/properties.rs`, over random schemas) both use it.
//!
//! Protocol: one line per instance, `key \t order \t input \t expected` (`key` names the type
//! in the program's `dispatch` arms, `order` is `1` when the instance has keys whose order to
//! check, see [`Instance::order`]); one line back per instance that needs a word:
//! `<line number> \t back <output>` when the output is not the expected value,
//! `<line number> \t order <output>` for the order check, or another message when the input
//! does not deserialize or the output does not serialize; `done \t <count>` last.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::instances::Instance;

/// One `dispatch` arm: instances sent with `key` are round-tripped through `rust_type`.
pub fn arm(key: &str, rust_type: &str) -> String {
    format!("        {key:?} => check::<{rust_type}>(input, expected, order),\n")
}

/// The harness program with these `dispatch` arms ([`arm`]).
pub fn program(arms: &str) -> String {
    format!(
        r#"//! Written by kubeforge's tests (kubeforge_tests::harness): round-trips the instances it is given on stdin.
use std::io::{{BufRead as _, Write as _}};

use serde::{{Serialize, de::DeserializeOwned}};
use serde_json::Value;

/// `None` when the round trip gives `expected` back (and the order of keys is not to be
/// checked here), otherwise what to report: a failure, or the output for the order check.
fn check<T: DeserializeOwned + Serialize>(input: &str, expected: &str, order: bool) -> Option<String> {{
    let typed: T = match serde_json::from_str(input) {{
        Ok(typed) => typed,
        Err(e) => return Some(format!("does not deserialize: {{e}}")),
    }};
    let text = match serde_json::to_string(&typed) {{
        Ok(text) => text,
        Err(e) => return Some(format!("does not serialize: {{e}}")),
    }};
    let back: Value = serde_json::from_str(&text).expect("output is JSON");
    let expected: Value = serde_json::from_str(expected).expect("expected is JSON");
    if back != expected {{
        Some(format!("back {{text}}"))
    }} else if order {{
        Some(format!("order {{text}}"))
    }} else {{
        None
    }}
}}

#[allow(clippy::match_single_binding)]
fn dispatch(key: &str, input: &str, expected: &str, order: bool) -> Option<String> {{
    match key {{
{arms}        _ => Some(format!("no type for {{key}}")),
    }}
}}

fn main() {{
    // Without `preserve_order` a `Value` sorts its keys, and the output the order check
    // reads would not be the type's.
    let probe = "{{\"b\":1,\"a\":2}}";
    assert_eq!(serde_json::from_str::<Value>(probe).expect("JSON").to_string(), probe, "serde_json without preserve_order");
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut count = 0usize;
    for (number, line) in std::io::stdin().lock().lines().enumerate() {{
        let line = line.expect("stdin readable");
        let mut fields = line.splitn(4, '\t');
        let (Some(key), Some(order), Some(input), Some(expected)) = (fields.next(), fields.next(), fields.next(), fields.next()) else {{
            panic!("line {{number}} is not key, order, input, expected");
        }};
        if let Some(failure) = dispatch(key, input, expected, order == "1") {{
            writeln!(out, "{{number}}\t{{}}", failure.replace('\n', " ")).expect("stdout");
        }}
        count += 1;
    }}
    writeln!(out, "done\t{{count}}").expect("stdout");
}}
"#
    )
}

/// Runs the built harness `binary` on the instances `instances` yields, each with its
/// `dispatch` key, and returns the failures by instance number: a message from the harness
/// (`back <output>`, `does not deserialize: …`), or `order <where>\t<output>` when the keys
/// beside the properties did not keep their order. Instances are generated as they are sent
/// (on another thread), so memory stays bounded by the failures.
///
/// # Panics
///
/// When the harness fails or does not read every instance.
pub fn run(
    binary: &Path,
    count: usize,
    instances: impl Fn(usize) -> (String, Instance) + Sync,
) -> Vec<(usize, String)> {
    let mut child = Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", binary.display()));
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (mut failures, done) = std::thread::scope(|scope| {
        // Keeps only what the order check needs of each instance; closes standard input
        // when done (the harness then ends).
        let instances = &instances;
        let writer = scope.spawn(move || {
            let mut stdin = std::io::BufWriter::new(stdin);
            let mut orders = Vec::with_capacity(count);
            for number in 0..count {
                let (key, instance) = instances(number);
                let order = u8::from(!instance.order.is_empty());
                writeln!(
                    stdin,
                    "{key}\t{order}\t{}\t{}",
                    instance.input, instance.expected
                )
                .expect("the harness reads its input");
                orders.push(instance.order);
            }
            orders
        });
        let mut failures: Vec<(usize, String)> = Vec::new();
        let mut outputs: Vec<(usize, String)> = Vec::new();
        let mut done = None;
        for line in BufReader::new(stdout).lines() {
            let line = line.expect("harness output");
            let (number, message) = line.split_once('\t').expect("harness line");
            if number == "done" {
                done = message.parse::<usize>().ok();
            } else if let Some(output) = message.strip_prefix("order ") {
                outputs.push((number.parse().expect("line number"), output.to_owned()));
            } else {
                failures.push((number.parse().expect("line number"), message.to_owned()));
            }
        }
        let orders = writer.join().expect("writer thread");
        for (number, output) in outputs {
            let back: Value = serde_json::from_str(&output).expect("harness JSON");
            let wrong = crate::instances::order_differences(&orders[number], &back);
            if !wrong.is_empty() {
                failures.push((number, format!("order {}\t{output}", wrong.join("; "))));
            }
        }
        (failures, done)
    });
    let status = child.wait().expect("the harness exits");
    assert!(status.success(), "the harness failed: {status}");
    assert_eq!(done, Some(count), "the harness read every instance");
    failures.sort();
    failures
}
