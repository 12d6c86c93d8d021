//! Every mapping rule of the guide's table (`docs/src/reference/mapping.md`) keeps what its schema admits: values deserialize into
//! the golden types (`tests/golden/<case>.rs`, compiled into this crate) and serialize back to
//! the same JSON value. The one normalization allowed is documented: `null` on an optional
//! field that is not nullable reads as absent.

use kubeforge_tests::golden;
use kubeforge_tests::json_diff::differences;
use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Value, json};

/// Deserializes `value` as `T` and serializes it back.
fn through<T: DeserializeOwned + Serialize>(value: &Value) -> Value {
    let text = serde_json::to_string(value).expect("serializes");
    let typed: T = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "{value} does not deserialize as {}: {e}",
            std::any::type_name::<T>()
        )
    });
    serde_json::to_value(&typed).expect("serializes back")
}

/// Each value survives deserialize → serialize unchanged.
fn assert_lossless<T: DeserializeOwned + Serialize>(values: &[Value]) {
    for value in values {
        let back = through::<T>(value);
        let diffs = differences(value, &back, 20);
        assert!(
            diffs.is_empty(),
            "{} loses data of {value}:\n{}",
            std::any::type_name::<T>(),
            diffs.join("\n")
        );
    }
}

fn refused<T: DeserializeOwned>(value: &Value) -> String {
    match serde_json::from_value::<T>(value.clone()) {
        Ok(_) => panic!(
            "{value} should not deserialize as {}",
            std::any::type_name::<T>()
        ),
        Err(e) => e.to_string(),
    }
}

#[test]
fn integer_formats_keep_their_range() {
    use golden::integer_formats::io::example::v1::Counters;
    assert_lossless::<Counters>(&[
        json!({"bytes": u64::MAX, "small": u32::MAX, "count": i32::MIN, "total": i64::MIN, "plain": i64::MAX}),
        json!({"bytes": 9_223_372_036_854_775_808_u64, "sizes": [0, u64::MAX]}),
        json!({"bytes": 0, "unknownCounter": 18_446_744_073_709_551_615_u64}),
    ]);
    let c: Counters = serde_json::from_value(json!({"bytes": u64::MAX})).expect("u64");
    assert_eq!(c.bytes, u64::MAX);
    // Outside the format's range is refused, not wrapped.
    refused::<Counters>(&json!({"bytes": -1}));
    refused::<Counters>(&json!({"bytes": 1, "small": 4_294_967_296_u64}));
}

/// An integer without a format (a CRD's Go `int`) reads a whole number written with a
/// fraction or exponent as the integer, as the API server's validation of custom resources
/// takes it, and writes it back as the server stores it (`1.0` → `1`): in a field, a list of
/// nullable items and extra keys alike. Formatted integers read as Go reads Kubernetes' own
/// types, which refuses `1.0`.
#[test]
fn an_integer_without_format_reads_whole_floats_as_the_api_server_does() {
    use golden::extra_keys::io::example::v1::Patterned;
    use golden::integer_formats::io::example::v1::Counters;
    use golden::nullable::io::example::v1::Nullables;
    for (written, read) in [
        (json!(1.0), json!(1)),
        (json!(-0.0), json!(0)),
        (json!(1e3), json!(1000)),
        (json!(-2.5e2), json!(-250)),
        (
            json!(9_007_199_254_740_991.0),
            json!(9_007_199_254_740_991_i64),
        ),
    ] {
        assert_eq!(
            through::<Counters>(&json!({"bytes": 1, "plain": written})),
            json!({"bytes": 1, "plain": read}),
            "{written}"
        );
    }
    for fraction in [json!(1.5), json!(9_007_199_254_740_992.0), json!(1e300)] {
        refused::<Counters>(&json!({"bytes": 1, "plain": fraction}));
    }
    for formatted in ["bytes", "small", "count", "total"] {
        refused::<Counters>(&json!({"bytes": 1, formatted: 1.0}));
    }
    assert_eq!(
        through::<Nullables>(&json!({"name": "a", "child": null, "scores": [1.0, null, 2e0]})),
        json!({"name": "a", "child": null, "scores": [1, null, 2]})
    );
    assert_eq!(
        through::<Patterned>(&json!({"name": "p", "x-a": 4.0})),
        json!({"name": "p", "x-a": 4})
    );
    refused::<Patterned>(&json!({"name": "p", "x-a": 4.5}));
}

#[test]
fn nullable_fields_items_and_values_keep_null() {
    use golden::nullable::io::example::v1::{Child, Nullables};
    assert_lossless::<Nullables>(&[
        json!({"name": null, "child": null}),
        json!({"name": "a", "child": {"a": "x", "next": null}}),
        json!({"name": null, "child": {"next": {"next": null}}, "note": null, "count": null, "parent": null, "mode": null, "tags": null}),
        json!({"name": "a", "child": {}, "note": "n", "count": 3, "parent": {"a": "p"}, "mode": "Fast", "tags": ["t"]}),
        json!({"name": "a", "child": {}, "mode": "Unlisted"}),
        json!({"name": "a", "child": {}, "labels": {"a": "x", "b": null}, "scores": [1, null, 3]}),
    ]);
    // Absent, null and a value are three states of an optional nullable field.
    let absent: Nullables =
        serde_json::from_value(json!({"name": null, "child": null})).expect("reads");
    let null: Nullables =
        serde_json::from_value(json!({"name": null, "child": null, "note": null})).expect("reads");
    assert_eq!(absent.note, None);
    assert_eq!(null.note, Some(None));
    assert_eq!(null.child, None::<Child>);
    // A required nullable field is still required.
    assert!(refused::<Nullables>(&json!({"child": null})).contains("missing field `name`"));
    // The one normalization: `null` on an optional field that is not nullable is absent.
    let back = through::<Nullables>(&json!({"name": "a", "child": null, "plain": null}));
    assert_eq!(back, json!({"name": "a", "child": null}));
}

#[test]
fn extra_keys_are_kept_in_order() {
    use golden::extra_keys::io::example::v1::{
        Annotated, Clash, Open, Patterned, PatternedLoose, Release,
    };
    assert_lossless::<Annotated>(&[json!({"name": "n", "b": "2", "a": "1"})]);
    assert_lossless::<Open>(&[json!({"name": "n", "x": {"deep": [1, null]}, "y": 2.5})]);
    assert_lossless::<Patterned>(&[json!({"name": "n", "x-a": 1, "x-b": -2})]);
    assert_lossless::<PatternedLoose>(&[json!({"x-a": 1, "y-b": "s", "other": [true]})]);
    assert_lossless::<Release>(&[json!({
        "chart": "nginx",
        "values": {"replicaCount": 3, "image": {"tag": "1.27"}, "ingress": {"enabled": false}},
        "unknownTopLevel": "kept"
    })]);
    assert_lossless::<Clash>(&[
        json!({"additional_properties": "p", "unknownFields": "q", "z": 1, "a": 2}),
    ]);

    let annotated: Annotated =
        serde_json::from_value(json!({"name": "n", "zeta": "1", "alpha": "2"})).expect("reads");
    assert_eq!(
        annotated
            .additional_properties
            .get("alpha")
            .map(String::as_str),
        Some("2")
    );
    // The order of the other keys is kept (serde_json::Value would sort them).
    let text = r#"{"name":"n","zeta":"1","alpha":"2","mid":"3"}"#;
    let annotated: Annotated = serde_json::from_str(text).expect("reads");
    assert_eq!(serde_json::to_string(&annotated).expect("writes"), text);
    // Typed extra keys are checked against their schema.
    refused::<Annotated>(&json!({"name": "n", "count": 1}));
    refused::<Patterned>(&json!({"x-a": "not an integer"}));
    // A property is never an extra key, so it cannot be written twice.
    let clash: Clash =
        serde_json::from_value(json!({"unknownFields": "q", "z": 1})).expect("reads");
    assert_eq!(clash.unknown_fields.as_deref(), Some("q"));
    assert_eq!(
        clash.additional_properties_2.keys().collect::<Vec<_>>(),
        ["z"]
    );
}

#[test]
fn unknown_fields_survive_an_update() {
    use golden::combined_schemas::io::example::v1::Base;
    let from_newer_server = json!({
        "name": "a",
        "size": 3,
        "newField": {"enabled": true},
        "anotherNewField": [1, 2]
    });
    let mut base: Base = serde_json::from_value(from_newer_server.clone()).expect("reads");
    assert_eq!(base.unknown_fields.len(), 2);
    base.size = Some(4);
    let mut expected = from_newer_server;
    expected["size"] = json!(4);
    assert_eq!(serde_json::to_value(&base).expect("writes"), expected);
    // Builders and Default still work, and start without unknown fields.
    let built = Base::builder("b").size(1).build();
    assert!(built.unknown_fields.is_empty());
    assert_eq!(
        serde_json::to_value(&built).expect("writes"),
        json!({"name": "b", "size": 1})
    );
    let other = golden::combined_schemas::io::example::v1::Other::default();
    assert_eq!(serde_json::to_value(&other).expect("writes"), json!({}));
}

#[test]
fn unknown_fields_can_be_dropped() {
    use golden::drop_unknown_fields::io::example::v1::{Plain, Values};
    let back = through::<Plain>(&json!({"name": "a", "newField": 1}));
    assert_eq!(back, json!({"name": "a"}));
    // What the schema admits is kept all the same.
    assert_lossless::<Values>(&[json!({"name": "a", "anything": {"x": 1}})]);
}

#[test]
fn crd_root_that_preserves_unknown_fields_keeps_spec_and_status() {
    use golden::crd_preserve_unknown::io::example::v1::Workflow;
    use golden::crd_preserve_unknown::io::example::v1alpha1::Workflow as WorkflowAlpha;
    let object = json!({
        "apiVersion": "example.io/v1alpha1",
        "kind": "Workflow",
        "metadata": {"name": "hello", "namespace": "argo", "labels": {"a": "b"}},
        "spec": {"entrypoint": "main", "templates": [{"name": "main", "container": {"image": "busybox"}}]},
        "status": {"phase": "Running"}
    });
    assert_lossless::<WorkflowAlpha>(std::slice::from_ref(&object));
    let mut v1 = object;
    v1["apiVersion"] = json!("example.io/v1");
    v1["extraRoot"] = json!({"kept": true});
    assert_lossless::<Workflow>(&[v1]);
}

#[test]
fn crd_version_without_schema_is_an_error() {
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.io"},
        "spec": {
            "group": "example.io",
            "scope": "Namespaced",
            "names": {"kind": "Gadget", "plural": "gadgets"},
            "versions": [
                {"name": "v1", "served": true, "storage": true}
            ]
        }
    });
    let text = serde_json::to_string_pretty(&crd).expect("serializes");
    let Err(error) = kubeforge::Config::new()
        .input_bytes("crds/gadget.json", text)
        .generate()
    else {
        panic!("a version without a schema is refused");
    };
    assert_eq!(
        error.kinds(),
        [kubeforge::ErrorKind::InvalidSchema],
        "{error}"
    );
    let diagnostic = &error.diagnostics()[0];
    assert_eq!(diagnostic.origin.pointer, "/spec/versions/0", "{error}");
    assert!(
        diagnostic.message.contains("schema.openAPIV3Schema"),
        "{error}"
    );
    let rendered = error.to_string();
    assert!(
        rendered.contains("crds/gadget.json:"),
        "names the file and line: {rendered}"
    );
}

#[test]
fn all_of_and_one_of_merge_into_structs() {
    use golden::combined_schemas::io::example::v1::{
        Holder, HolderMixed, HolderScalarOrList, HolderWeightOrFlag, Merged,
    };
    assert_lossless::<Merged>(&[json!({"name": "a", "size": 1, "extra": "e", "later": true})]);
    assert!(refused::<Merged>(&json!({"name": "a"})).contains("missing field `extra`"));
    assert_lossless::<Holder>(&[
        json!({"extended": {"name": "a", "size": 2, "more": true}}),
        json!({"either": {"name": "a", "size": 2}}),
        json!({"either": {"url": "https://example.com"}}),
        json!({"exclusive": {"a": "x"}}),
        json!({"mixed": "text"}),
        json!({"mixed": {"x": "y", "z": 1}}),
        json!({"conflict": {"a": 1}}),
        json!({"constrained": "2024-05-01"}),
        json!({"refined": {"url": "u"}}),
        json!({"scalarOrList": "one", "weightOrFlag": 3}),
        json!({"scalarOrList": ["a", "b"], "weightOrFlag": 2.5}),
        json!({"weightOrFlag": true, "ambiguous": 3}),
        json!({"weightOrFlag": {"url": "u", "more": [1]}, "ambiguous": 3.0}),
    ]);
    // Branches that a value's JSON type tells apart are a typed union.
    let holder: Holder = serde_json::from_value(json!({
        "mixed": {"x": "y"},
        "scalarOrList": ["a"],
        "weightOrFlag": false
    }))
    .expect("reads");
    assert!(
        matches!(holder.mixed, Some(HolderMixed::Object(ref o)) if o.x.as_deref() == Some("y"))
    );
    assert_eq!(
        holder.scalar_or_list,
        Some(HolderScalarOrList::Array(vec!["a".to_owned()]))
    );
    assert_eq!(
        holder.weight_or_flag,
        Some(HolderWeightOrFlag::Boolean(false))
    );
    let wrong = refused::<Holder>(&json!({"mixed": 3}));
    assert!(
        wrong.contains("expected string or object, found an integer"),
        "{wrong}"
    );
    let holder: Holder =
        serde_json::from_value(json!({"extended": {"name": "a", "more": true}})).expect("reads");
    let extended = holder.extended.expect("present");
    assert_eq!((extended.name.as_str(), extended.more), ("a", Some(true)));
}

#[test]
fn date_times_keep_their_text_and_meta_time_its_precision() {
    use golden::date_times::io::example::v1::Condition;
    assert_lossless::<Condition>(&[
        json!({"lastTransitionTime": "2024-05-01T12:00:00.123456+02:00"}),
        json!({"lastTransitionTime": "2024-05-01T12:00:00Z", "observed": ["2024-05-01T12:00:00.5-07:00", "2024-05-01t12:00:00z"]}),
    ]);
    let condition: Condition = serde_json::from_value(json!({
        "lastTransitionTime": "2024-05-01T12:00:00.123456+02:00",
        "created": "2024-05-01T12:00:00.123456+02:00"
    }))
    .expect("reads");
    assert_eq!(
        condition
            .last_transition_time
            .timestamp()
            .expect("parses")
            .to_string(),
        "2024-05-01T10:00:00.123456Z"
    );
    // meta/v1.Time is defined to the second, in UTC.
    assert_eq!(
        serde_json::to_value(&condition).expect("writes")["created"],
        json!("2024-05-01T10:00:00Z")
    );
}

#[test]
fn numbers_keep_their_form() {
    use golden::numbers::io::example::v1::Weights;
    assert_lossless::<Weights>(&[
        json!({"factor": 3, "ratio": 3.0, "samples": [1, 1.5, -2, 1e300], "limits": {"a": 0, "b": 0.0}}),
        json!({"factor": 18_446_744_073_709_551_615_u64, "ratio": -9_223_372_036_854_775_808_i64}),
    ]);
    let text = r#"{"factor":3,"ratio":3.0}"#;
    let weights: Weights = serde_json::from_str(text).expect("reads");
    assert_eq!(serde_json::to_string(&weights).expect("writes"), text);
    assert!((weights.ratio.expect("present").as_f64() - 3.0).abs() < f64::EPSILON);
}

#[test]
fn builders_start_with_defaults_of_every_kind() {
    use golden::builder_defaults::io::example::v1::{Limits, Settings};
    let settings = Settings::builder().build();
    assert_eq!(
        serde_json::to_value(&settings).expect("writes"),
        json!({
            "mode": "Slow",
            "name": "main",
            "retries": 3,
            "budget": u64::MAX,
            "ratio": 0.75,
            "scale": 2,
            "enabled": true,
            "since": "2024-01-01T00:00:00.5+01:00",
            "key": "aGVsbG8=",
            "args": ["--verbose", "--color=auto"],
            "ports": {"http": 80, "https": 443},
            "limits": {"cpu": "500m", "burst": 2, "extraKey": {"a": [1, null]}},
            "policy": {"rules": [{"allow": true}], "weight": 1.5}
        })
    );
    // Zero values, `null` and an object default missing a required field are not applied.
    assert_eq!(settings.zero, None);
    assert_eq!(settings.empty, None);
    assert_eq!(settings.label, None);
    assert_eq!(settings.incomplete, None::<Limits>);
    // The exact form of each default: `2` stays an integer, `0.75` a float.
    assert_eq!(serde_json::to_string(&settings.scale).expect("writes"), "2");
    assert_eq!(
        serde_json::to_string(&settings.ratio).expect("writes"),
        "0.75"
    );
    // Defaults are a start: setters replace them, and a round trip keeps them.
    let changed = Settings::builder().retries(5).build();
    assert_eq!(changed.retries, Some(5));
    assert_lossless::<Settings>(&[serde_json::to_value(&settings).expect("writes")]);
}
