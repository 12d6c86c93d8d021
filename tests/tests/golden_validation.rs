//! The `validation` golden's generated `validate()` and `validate_update(&old)`, as a user
//! calls them on a custom resource read from JSON: bounds, patterns, formats, list types,
//! CEL rules, transition rules and ratcheting, each with the API server's text
//! (docs/src/reference/validation.md).

use kubeforge_runtime::schema::Validate;
use kubeforge_tests::golden::validation::io::example::v1::Gadget;
use serde_json::{Value, json};

fn gadget(spec: Value) -> Gadget {
    serde_json::from_value(json!({
        "apiVersion": "example.io/v1",
        "kind": "Gadget",
        "metadata": {"name": "g", "namespace": "default"},
        "spec": spec,
    }))
    .expect("a Gadget")
}

/// `validate()` of a new object: `""` when it passes, else the errors' text.
fn create(spec: Value) -> String {
    gadget(spec)
        .validate()
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

/// `validate_update(&old)`: `""` when it passes, else the errors' text.
fn update(old: Value, new: Value) -> String {
    gadget(new)
        .validate_update(&gadget(old))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

#[test]
fn bounds_admit_their_own_value_unless_exclusive() {
    for replicas in [1, 10] {
        assert_eq!(create(json!({"replicas": replicas})), "", "{replicas}");
    }
    assert_eq!(
        create(json!({"replicas": 0})),
        "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1"
    );
    assert_eq!(
        create(json!({"replicas": 11})),
        "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"
    );
    for ratio in [0.5, 2.5] {
        assert_eq!(
            create(json!({"replicas": 1, "ratio": ratio})),
            "",
            "{ratio}"
        );
    }
    assert_eq!(
        create(json!({"replicas": 1, "ratio": 2.6})),
        "spec.ratio: Invalid value: 2.6: spec.ratio in body should be less than or equal to 2.5"
    );
    assert_eq!(
        create(json!({"replicas": 1, "ports": [{"name": "a", "protocol": "TCP", "port": 65535}]})),
        ""
    );
}

#[test]
fn patterns_match_the_whole_value_and_formats_are_checked() {
    assert_eq!(create(json!({"replicas": 1, "name": "abc"})), "");
    assert_eq!(
        create(json!({"replicas": 1, "name": "abc-DEF"})),
        r#"spec.name: Invalid value: "abc-DEF": spec.name in body should match '^[a-z]+$'"#
    );
    assert_eq!(
        create(json!({"replicas": 1, "uid": "123e4567-e89b-12d3-a456-426614174000"})),
        ""
    );
    assert_eq!(
        create(json!({"replicas": 1, "uid": "123e4567"})),
        // A type error (as the API server counts a format's) holds the CEL rules back.
        r#"[spec.uid: Invalid value: "123e4567": spec.uid in body must be of type uuid: "123e4567", <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"#
    );
}

#[test]
fn set_and_map_lists_refuse_duplicates_by_value_and_by_key() {
    assert_eq!(create(json!({"replicas": 1, "tags": ["a", "b"]})), "");
    assert_eq!(
        create(json!({"replicas": 1, "tags": ["a", "b", "a"]})),
        r#"spec.tags[2]: Duplicate value: "a""#
    );
    // Keyed by name and protocol together: one name, two protocols are two items.
    let ports = json!([
        {"name": "dns", "protocol": "UDP", "port": 53},
        {"name": "dns", "protocol": "TCP", "port": 53}
    ]);
    assert_eq!(create(json!({"replicas": 1, "ports": ports})), "");
    let ports = json!([
        {"name": "dns", "protocol": "UDP", "port": 53},
        {"name": "dns", "protocol": "UDP", "port": 5353}
    ]);
    assert_eq!(
        create(json!({"replicas": 1, "ports": ports})),
        r#"spec.ports[1]: Duplicate value: map[string]interface {}{"name":"dns", "protocol":"UDP"}"#
    );
}

#[test]
fn cel_rules_run_and_transition_rules_only_on_update() {
    assert_eq!(
        create(json!({"replicas": 3, "maxSurge": 5})),
        r#"spec: Invalid value: "object": maxSurge may not exceed replicas"#
    );
    // `self.mode == oldSelf.mode` has no old value on create: it does not run.
    assert_eq!(create(json!({"replicas": 3, "mode": "fast"})), "");
    assert_eq!(
        update(
            json!({"replicas": 3, "mode": "fast"}),
            json!({"replicas": 4, "mode": "fast"})
        ),
        ""
    );
    assert_eq!(
        update(
            json!({"replicas": 3, "mode": "fast"}),
            json!({"replicas": 3, "mode": "slow"})
        ),
        r#"spec: Invalid value: "object": mode is immutable"#
    );
}

#[test]
fn updates_ratchet_what_did_not_change_and_check_what_did() {
    let old = json!({"replicas": 3, "maxSurge": 5, "mode": "m", "legacy": "abcd"});
    // Invalid before, unchanged now: accepted, the schema's errors and the rule's alike.
    assert_eq!(update(old.clone(), old.clone()), "");
    // The same object is refused on create (a value too long holds the CEL rules back).
    assert_eq!(
        create(old.clone()),
        r#"[spec.legacy: Too long: may not be more than 3 bytes, <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"#
    );
    assert_eq!(
        create(json!({"replicas": 3, "maxSurge": 5, "mode": "m"})),
        r#"spec: Invalid value: "object": maxSurge may not exceed replicas"#
    );
    // `legacy` unchanged still ratchets while `tags` changes; the spec's rule now runs.
    assert_eq!(
        update(
            old.clone(),
            json!({"replicas": 3, "maxSurge": 5, "mode": "m", "legacy": "abcd", "tags": ["x"]})
        ),
        r#"spec: Invalid value: "object": maxSurge may not exceed replicas"#
    );
    // A changed invalid value is refused.
    assert_eq!(
        update(
            old,
            json!({"replicas": 3, "maxSurge": 3, "mode": "m", "legacy": "abcde"})
        ),
        r#"[spec.legacy: Too long: may not be more than 3 bytes, <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"#
    );
    let valid_old = json!({"replicas": 3, "mode": "m"});
    assert_eq!(
        update(
            valid_old,
            json!({"replicas": 3, "maxSurge": 4, "mode": "m"})
        ),
        r#"spec: Invalid value: "object": maxSurge may not exceed replicas"#
    );
}
