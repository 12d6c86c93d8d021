//! Generated types and the runtime on hostile JSON: every malformed document is an error,
//! never a panic or a stack overflow; and the code that handles network data contains no
//! `unwrap`, `expect` or `panic!` to begin with.

use std::fs;
use std::path::Path;

use kubeforge_api::api::coordination::v1::Lease;
use kubeforge_api::api::core::v1::{Endpoints, Pod};
use kubeforge_api::openshift::image::v1::ImageStream;
use kubeforge_runtime::WatchEvent;
use kubeforge_tests::workspace_root;
use serde::de::DeserializeOwned;

fn rejects<T: DeserializeOwned>(name: &str, text: &str) -> String {
    match std::panic::catch_unwind(|| serde_json::from_str::<T>(text)) {
        Ok(Ok(_)) => panic!("{name}: hostile input was accepted"),
        Ok(Err(e)) => e.to_string(),
        Err(_) => panic!("{name}: panicked"),
    }
}

#[test]
fn deep_nesting_is_an_error() {
    let deep = format!(
        "{{\"metadata\": {{\"labels\": {}1{}}}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let e = rejects::<Pod>("deep nesting", &deep);
    assert!(
        e.contains("recursion limit") || e.contains("invalid type"),
        "{e}"
    );
    // Deep nesting inside a free-form field (RawExtension-like `serde_json::Value`).
    let deep_value = format!(
        "{{\"type\": \"ADDED\", \"object\": {}1{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    rejects::<WatchEvent<Pod>>("deep watch object", &deep_value);
}

#[test]
fn huge_numbers_are_errors() {
    for (name, text) in [
        (
            "i32 overflow",
            r#"{"spec": {"leaseDurationSeconds": 2147483648}}"#,
        ),
        (
            "i32 underflow",
            r#"{"spec": {"leaseDurationSeconds": -2147483649}}"#,
        ),
        ("huge integer", r#"{"spec": {"leaseTransitions": 1e400}}"#),
        (
            "float for integer",
            r#"{"spec": {"leaseDurationSeconds": 1.5}}"#,
        ),
        ("number for string", r#"{"spec": {"holderIdentity": 12}}"#),
    ] {
        rejects::<Lease>(name, text);
    }
    let e = rejects::<Pod>(
        "IntOrString out of range",
        r#"{"spec": {"containers": [{"name": "c", "ports": [], "livenessProbe": {"httpGet": {"port": 99999999999}}}]}}"#,
    );
    assert!(e.contains("out of range") || e.contains("i32"), "{e}");
}

#[test]
fn wrong_types_are_errors() {
    for (name, text) in [
        ("array for object", r#"{"metadata": []}"#),
        ("string for array", r#"{"subsets": "nope"}"#),
        ("object for string", r#"{"metadata": {"name": {}}}"#),
        ("bool for map", r#"{"metadata": {"labels": true}}"#),
        (
            "null for required",
            r#"{"subsets": [{"addresses": [{"ip": null}]}]}"#,
        ),
        ("missing required", r#"{"subsets": [{"addresses": [{}]}]}"#),
        (
            "bad timestamp",
            r#"{"metadata": {"creationTimestamp": "yesterday"}}"#,
        ),
        (
            "bad base64",
            r#"{"metadata": {"managedFields": [{"fieldsV1": {}, "time": "2024-01-01T00:00:00Z", "subresource": 1}]}}"#,
        ),
        (
            "wrong apiVersion",
            r#"{"apiVersion": "v2", "kind": "Endpoints"}"#,
        ),
        ("wrong kind", r#"{"apiVersion": "v1", "kind": "Pod"}"#),
        ("not JSON", r#"{"metadata": "#),
        ("trailing garbage", r#"{} {}"#),
    ] {
        rejects::<Endpoints>(name, text);
    }
    rejects::<ImageStream>(
        "enum of the wrong type",
        r#"{"spec": {"tags": [{"name": "t", "referencePolicy": {"type": 7}}]}}"#,
    );
    rejects::<WatchEvent<Lease>>(
        "unknown watch type",
        r#"{"type": "EXPLODED", "object": {}}"#,
    );
}

#[test]
fn duplicate_keys_are_errors() {
    let e = rejects::<Lease>(
        "duplicate field",
        r#"{"spec": {"holderIdentity": "a", "holderIdentity": "b"}}"#,
    );
    assert!(e.contains("duplicate field"), "{e}");
    rejects::<Lease>(
        "duplicate apiVersion",
        r#"{"apiVersion": "coordination.k8s.io/v1", "apiVersion": "coordination.k8s.io/v1"}"#,
    );
}

/// Code that handles data from the network (every generated file, and the runtime's
/// non-test code) never unwraps, expects or panics.
#[test]
fn no_panicking_calls_in_generated_or_runtime_code() {
    fn scan(dir: &Path, found: &mut Vec<String>) {
        for entry in fs::read_dir(dir).expect("readable").filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                scan(&path, found);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = fs::read_to_string(&path).expect("readable");
            // Unit tests at the end of a runtime file may unwrap.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (i, line) in code.lines().enumerate() {
                let line = line.trim_start();
                if line.starts_with("//") {
                    continue;
                }
                for needle in [
                    ".unwrap()",
                    ".expect(",
                    "panic!(",
                    "unreachable!(",
                    "todo!(",
                    "unimplemented!(",
                ] {
                    if line.contains(needle) {
                        found.push(format!("{}:{}: {}", path.display(), i + 1, line));
                    }
                }
            }
        }
    }
    let root = workspace_root();
    let mut found = Vec::new();
    scan(&root.join("generated/src"), &mut found);
    scan(&root.join("runtime/src"), &mut found);
    assert!(
        found.is_empty(),
        "panicking calls in code that handles network data:\n{}",
        found.join("\n")
    );
}
