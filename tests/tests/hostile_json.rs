//! Generated types and the runtime on hostile JSON: every malformed document is an error,
//! never a panic or a stack overflow; and the code that handles network data contains no
//! `unwrap`, `expect` or `panic!` to begin with.

use std::fs;
use std::path::Path;

use kubeforge_api::api::coordination::v1::Lease;
use kubeforge_api::api::core::v1::{Endpoints, Pod, WeightedPodAffinityTerm};
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

/// `{…}` around 100,000 nested arrays.
fn deep(prefix: &str, suffix: &str) -> String {
    format!(
        "{prefix}{}1{}{suffix}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    )
}

/// Deep nesting where the types accept nesting (free-form JSON) reaches serde_json's
/// recursion limit (128) and is rejected with exactly that error: no stack overflow, and no
/// type error that stops before the depth matters.
#[test]
fn deep_nesting_reaches_the_recursion_limit() {
    let e = rejects::<Pod>(
        "deep free-form JSON in a Pod (managedFields[].fieldsV1)",
        &deep(r#"{"metadata": {"managedFields": [{"fieldsV1": "#, "}]}}"),
    );
    assert!(e.contains("recursion limit exceeded"), "{e}");
    // An `object` before its `type` is buffered as free-form JSON: the limit applies there.
    let e = rejects::<WatchEvent<Pod>>(
        "a deep watch object before its type",
        &deep(r#"{"object": "#, r#", "type": "ADDED"}"#),
    );
    assert!(e.contains("recursion limit exceeded"), "{e}");
    // After its type, the object is read as a Pod: deep free-form JSON inside it.
    let e = rejects::<WatchEvent<Pod>>(
        "a watch event whose Pod holds deep JSON",
        &deep(
            r#"{"type": "ADDED", "object": {"metadata": {"managedFields": [{"fieldsV1": "#,
            "}]}}}",
        ),
    );
    assert!(e.contains("recursion limit exceeded"), "{e}");
}

/// Unknown fields are kept (so an update does not delete them), read as free-form JSON: a
/// 100,000-deep one reaches serde_json's recursion limit and is an error, not a stack
/// overflow; a shallow one survives the round trip.
#[test]
fn deep_unknown_fields_reach_the_recursion_limit() {
    let text = deep(r#"{"spec": {"containers": [], "fromTheFuture": "#, "}}");
    let e = rejects::<Pod>("a deep unknown field", &text);
    assert!(e.contains("recursion limit exceeded"), "{e}");
    let text = r#"{"spec": {"containers": [], "fromTheFuture": [[{"a": 1}]]}}"#;
    let pod: Pod = serde_json::from_str(text).expect("a shallow unknown field is kept");
    assert_eq!(
        serde_json::to_value(&pod).expect("serializes"),
        serde_json::json!({"spec": {"containers": [], "fromTheFuture": [[{"a": 1}]]}})
    );
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
            "number for string in a list item",
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
    // An unknown event type is kept (`WatchEvent::Other`); a `type` that is no string is not.
    rejects::<WatchEvent<Lease>>(
        "watch type of the wrong type",
        r#"{"type": ["EXPLODED"], "object": {}}"#,
    );
    rejects::<WatchEvent<Lease>>(
        "known watch type, object of the wrong type",
        r#"{"type": "ADDED", "object": []}"#,
    );
}

/// Byte strings (`format: byte`) must be base64; `generated/` has none, so the golden
/// `byte_strings` case's generated type is used.
#[test]
fn bad_base64_is_an_error() {
    use kubeforge_tests::golden::byte_strings::io::example::v1::Secretish;
    for (name, text) in [
        ("not base64 at all", r#"{"checksum": "***"}"#),
        ("a lone base64 digit", r#"{"checksum": "a"}"#),
        ("data after the padding", r#"{"checksum": "aGk=aGk"}"#),
        (
            "bad base64 in a map",
            r#"{"checksum": "", "data": {"k": "%%"}}"#,
        ),
        (
            "bad base64 in a list",
            r#"{"checksum": "", "chunks": ["aGk=", "!"]}"#,
        ),
    ] {
        let e = rejects::<Secretish>(name, text);
        assert!(e.contains("base64"), "{name}: {e}");
    }
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

/// A struct field of a struct, and each struct of a list, is read in place into its
/// parent's slot (`serde_struct::InPlace`): it reads as a value returned by `Deserialize`
/// would, with the derive's errors. `null` is an absent optional struct or list, yet counts
/// as seen: a second key is a duplicate.
#[test]
fn structs_read_in_place_keep_the_derives_behaviour() {
    let pod: Pod = serde_json::from_str(
        r#"{"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "n", "uid": "u"}]},
            "spec": {"containers": [{"name": "a"}, {"name": "b", "ports": [{"containerPort": 80}]}],
                     "volumes": null, "affinity": null}}"#,
    )
    .unwrap();
    let spec = pod.spec.as_ref().unwrap();
    let names: Vec<&str> = spec.containers.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(
        spec.containers[1].ports.as_ref().unwrap()[0].container_port,
        80
    );
    assert!(spec.volumes.is_none() && spec.affinity.is_none() && pod.status.is_none());
    let owners = pod
        .metadata
        .as_ref()
        .unwrap()
        .owner_references
        .as_ref()
        .unwrap();
    assert_eq!(owners[0].name, "n");
    let pod: Pod = serde_json::from_str(r#"{"spec": null}"#).unwrap();
    assert!(pod.spec.is_none());

    for (what, text, error) in [
        (
            "a struct twice",
            r#"{"spec": {"containers": []}, "spec": {"containers": []}}"#,
            "duplicate field `spec`",
        ),
        (
            "a struct after null",
            r#"{"spec": null, "spec": {"containers": []}}"#,
            "duplicate field `spec`",
        ),
        (
            "a list twice",
            r#"{"spec": {"containers": [], "containers": []}}"#,
            "duplicate field `containers`",
        ),
        (
            "a list after null",
            r#"{"spec": {"containers": [], "volumes": null, "volumes": []}}"#,
            "duplicate field `volumes`",
        ),
        (
            "a required list missing",
            r#"{"spec": {}}"#,
            "missing field `containers`",
        ),
        (
            "a required list null",
            r#"{"spec": {"containers": null}}"#,
            "invalid type: null, expected a sequence",
        ),
        (
            "a list that is an object",
            r#"{"spec": {"containers": {}}}"#,
            "invalid type: map, expected a sequence",
        ),
        (
            "an item that is no struct",
            r#"{"spec": {"containers": [1]}}"#,
            "invalid type: integer `1`, expected struct Container",
        ),
        (
            "a struct that is a number",
            r#"{"spec": 1}"#,
            "invalid type: integer `1`, expected struct PodSpec",
        ),
        (
            "a bad field inside an item",
            r#"{"spec": {"containers": [{"name": 1}]}}"#,
            "invalid type: integer `1`, expected a string",
        ),
    ] {
        let e = rejects::<Pod>(what, text);
        assert!(e.starts_with(error), "{what}: {e}");
    }
}

/// A struct is read field by field (`serde_struct::ReadFields`): built from placeholders,
/// each key's value read into its field in place, the runtime keeping which fields were
/// seen. A required field the input lacks is still the derive's error, the first one in
/// declaration order; a field read twice is a duplicate, even when it is required, and a
/// required struct field is read, not left at its placeholder.
#[test]
fn structs_read_field_by_field_keep_the_derives_behaviour() {
    let term: WeightedPodAffinityTerm = serde_json::from_str(
        r#"{"weight": 7, "podAffinityTerm": {"topologyKey": "zone", "namespaces": ["a", "b"]},
            "later": {"x": 1}, "earlier": null}"#,
    )
    .unwrap();
    assert_eq!(term.weight, 7);
    assert_eq!(term.pod_affinity_term.topology_key, "zone");
    assert_eq!(
        term.pod_affinity_term.namespaces.as_deref(),
        Some(&["a".to_owned(), "b".to_owned()][..])
    );
    let unknown: Vec<&str> = term.unknown_fields.keys().collect();
    assert_eq!(unknown, ["later", "earlier"]);

    for (what, text, error) in [
        (
            "both required missing",
            r#"{}"#,
            "missing field `podAffinityTerm`",
        ),
        (
            "the second required missing",
            r#"{"podAffinityTerm": {"topologyKey": "zone"}}"#,
            "missing field `weight`",
        ),
        (
            "a required field missing inside the required struct",
            r#"{"weight": 1, "podAffinityTerm": {}}"#,
            "missing field `topologyKey`",
        ),
        (
            "a required scalar twice",
            r#"{"weight": 1, "weight": 2, "podAffinityTerm": {"topologyKey": "zone"}}"#,
            "duplicate field `weight`",
        ),
        (
            "a required struct twice",
            r#"{"podAffinityTerm": {"topologyKey": "a"}, "podAffinityTerm": {"topologyKey": "b"}}"#,
            "duplicate field `podAffinityTerm`",
        ),
        (
            "a required struct null",
            r#"{"weight": 1, "podAffinityTerm": null}"#,
            "invalid type: null, expected struct PodAffinityTerm",
        ),
        (
            "an optional field twice inside the struct",
            r#"{"weight": 1, "podAffinityTerm": {"topologyKey": "a", "namespaces": null, "namespaces": []}}"#,
            "duplicate field `namespaces`",
        ),
    ] {
        let e = rejects::<WeightedPodAffinityTerm>(what, text);
        assert!(e.starts_with(error), "{what}: {e}");
    }
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
            // A module's unit tests in a file of their own (`#[cfg(test)] mod tests;` in
            // the module beside it) may unwrap too.
            if path.file_name().is_some_and(|n| n == "tests.rs")
                && fs::read_to_string(path.with_file_name("mod.rs"))
                    .is_ok_and(|module| module.contains("#[cfg(test)]\nmod tests;"))
            {
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
