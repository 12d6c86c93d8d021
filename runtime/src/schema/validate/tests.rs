//! Each OpenAPI keyword with the exact text kube-openapi and apiextensions-apiserver give
//! (`pkg/validation/errors/schema.go` message formats, `kubeOpenAPIResultToFieldErrors`).

use serde_json::{Value, json};

use super::*;
use crate::schema::{Errors, NoReferences, SchemaSet};

fn node(v: Value) -> Node {
    serde_json::from_value(v).expect("a node")
}

/// The errors of `value` under `{"properties": {"f": schema}}`, as the aggregate text.
fn field(schema: Value, value: Value) -> String {
    let n = node(json!({"type": "object", "properties": {"f": schema}}));
    Errors(validate(&n, &NoReferences, &json!({ "f": value }), None)).to_string()
}

#[test]
fn numbers() {
    assert_eq!(
        field(json!({"type": "integer", "minimum": 1}), json!(0)),
        "f: Invalid value: 0: f in body should be greater than or equal to 1"
    );
    assert_eq!(
        field(
            json!({"type": "integer", "minimum": 1, "exclusiveMinimum": true}),
            json!(1)
        ),
        "f: Invalid value: 1: f in body should be greater than 1"
    );
    assert_eq!(
        field(json!({"type": "integer", "maximum": 65535}), json!(70000)),
        "f: Invalid value: 70000: f in body should be less than or equal to 65535"
    );
    assert_eq!(
        field(
            json!({"type": "integer", "maximum": 10, "exclusiveMaximum": true}),
            json!(10)
        ),
        "f: Invalid value: 10: f in body should be less than 10"
    );
    assert_eq!(
        field(json!({"type": "number", "maximum": 1.5}), json!(2.5)),
        "f: Invalid value: 2.5: f in body should be less than or equal to 1.5"
    );
    assert_eq!(
        field(json!({"type": "number", "minimum": 1000000}), json!(2.5)),
        "f: Invalid value: 2.5: f in body should be greater than or equal to 1e+06"
    );
    assert_eq!(
        field(json!({"type": "integer", "multipleOf": 5}), json!(12)),
        "f: Invalid value: 12: f in body should be a multiple of 5"
    );
    assert_eq!(
        field(json!({"type": "number", "multipleOf": 0.5}), json!(0.75)),
        "f: Invalid value: 0.75: f in body should be a multiple of 0.5"
    );
    assert_eq!(
        field(json!({"type": "number", "multipleOf": 0.5}), json!(1.5)),
        ""
    );
    assert_eq!(
        field(
            json!({"type": "integer", "format": "int32"}),
            json!(3_000_000_000_i64)
        ),
        r#"<nil>: Invalid value: "": Checked value must be of type integer with format int32 in f"#
    );
    // An integral float is an integer; a fraction is not.
    assert_eq!(field(json!({"type": "integer"}), json!(3.0)), "");
    assert_eq!(
        field(json!({"type": "integer"}), json!(3.5)),
        r#"[f: Invalid value: "number": f in body must be of type integer: "number", <nil>: Invalid value: "": Checked value must be of type integer (default format) in f]"#
    );
    assert_eq!(field(json!({"type": "number"}), json!(3)), "");
}

#[test]
fn strings() {
    assert_eq!(
        field(json!({"type": "string", "minLength": 1}), json!("")),
        r#"f: Invalid value: "": f in body should be at least 1 chars long"#
    );
    assert_eq!(
        field(json!({"type": "string", "maxLength": 3}), json!("abcd")),
        "f: Too long: may not be more than 3 bytes"
    );
    assert_eq!(
        field(json!({"type": "string", "maxLength": 3}), json!("äöü")),
        "",
        "code points, not bytes"
    );
    assert_eq!(
        field(
            json!({"type": "string", "pattern": "^[a-f0-9]{64}$"}),
            json!("foo")
        ),
        r#"f: Invalid value: "foo": f in body should match '^[a-f0-9]{64}$'"#
    );
    // Only the first failing string keyword is reported.
    assert_eq!(
        field(
            json!({"type": "string", "minLength": 5, "pattern": "^x"}),
            json!("abc")
        ),
        r#"f: Invalid value: "abc": f in body should be at least 5 chars long"#
    );
    assert_eq!(
        field(json!({"type": "string", "format": "uuid"}), json!("nope")),
        r#"f: Invalid value: "nope": f in body must be of type uuid: "nope""#
    );
    assert_eq!(
        field(
            json!({"type": "string", "format": "date-time"}),
            json!("2024-01-01")
        ),
        r#"f: Invalid value: "2024-01-01": f in body must be of type datetime: "2024-01-01""#
    );
    assert_eq!(
        field(
            json!({"type": "string", "format": "int-or-string"}),
            json!("anything")
        ),
        "",
        "an unknown format is not checked"
    );
    assert_eq!(
        field(
            json!({"type": "string", "enum": ["GET", "POST"]}),
            json!("NOTREAL")
        ),
        r#"f: Unsupported value: "NOTREAL": supported values: "GET", "POST""#
    );
    assert_eq!(
        field(json!({"type": "integer", "enum": [1, 2]}), json!(3)),
        r#"f: Unsupported value: 3: supported values: "1", "2""#
    );
}

#[test]
fn types() {
    assert_eq!(
        field(json!({"type": "object"}), json!(null)),
        r#"f: Invalid value: "null": f in body must be of type object: "null""#
    );
    assert_eq!(
        field(json!({"type": "object", "nullable": true}), json!(null)),
        ""
    );
    assert_eq!(
        field(json!({"type": "object"}), json!("x")),
        r#"f: Invalid value: "string": f in body must be of type object: "string""#
    );
    assert_eq!(
        field(
            json!({"type": "array", "items": {"type": "object"}}),
            json!(["x"])
        ),
        r#"f[0]: Invalid value: "string": f[0] in body must be of type object: "string""#
    );
    assert_eq!(
        field(
            json!({"x-kubernetes-int-or-string": true, "intOrString": true}),
            json!(true)
        ),
        r#"f: Invalid value: "boolean": f in body must be of type integer,string: "boolean""#
    );
    assert_eq!(field(json!({"intOrString": true}), json!("50%")), "");
    assert_eq!(field(json!({"intOrString": true}), json!(5)), "");
    let n = node(json!({"type": "object", "required": ["spec"]}));
    assert_eq!(
        Errors(validate(&n, &NoReferences, &json!({}), None)).to_string(),
        "spec: Required value"
    );
}

#[test]
fn arrays_and_objects() {
    assert_eq!(
        field(json!({"type": "array", "maxItems": 2}), json!([1, 2, 3])),
        "f: Too many: 3: must have at most 2 items"
    );
    assert_eq!(
        field(json!({"type": "array", "maxItems": 1}), json!([1, 2])),
        "f: Too many: 2: must have at most 1 item"
    );
    assert_eq!(
        field(json!({"type": "array", "minItems": 2}), json!([1])),
        "f: Invalid value: 1: f in body should have at least 2 items"
    );
    assert_eq!(
        field(json!({"type": "array", "uniqueItems": true}), json!([1, 1])),
        r#"f: Invalid value: "": f in body shouldn't contain duplicates"#
    );
    assert_eq!(
        field(json!({"type": "object", "minProperties": 1}), json!({})),
        "f: Invalid value: 0: f in body should have at least 1 properties"
    );
    assert_eq!(
        field(
            json!({"type": "object", "maxProperties": 1}),
            json!({"a": 1, "b": 2})
        ),
        "f: Too many: 2: must have at most 1 item"
    );
    assert_eq!(
        field(
            json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false}),
            json!({"a": 1, "b": 2})
        ),
        r#"f: Invalid value: "b": f.b in body is a forbidden property"#
    );
    assert_eq!(
        field(
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"k": 1})
        ),
        r#"f.k: Invalid value: "integer": f.k in body must be of type string: "integer""#
    );
}

#[test]
fn combinators_as_istio_uses_them() {
    // Istio's "at most one of" pattern.
    let one_of = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "oneOf": [{"not": {"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}}, {"required": ["a"]}, {"required": ["b"]}]});
    assert_eq!(field(one_of.clone(), json!({})), "");
    assert_eq!(field(one_of.clone(), json!({"a": "x"})), "");
    assert_eq!(
        field(one_of, json!({"a": "x", "b": "y"})),
        r#"<nil>: Invalid value: "": "f" must validate one and only one schema (oneOf). Found 2 valid alternatives"#
    );
    let any_of = json!({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]});
    assert_eq!(
        field(any_of, json!({})),
        r#"[<nil>: Invalid value: "": "f" must validate at least one schema (anyOf), f.a: Required value]"#
    );
    let all_of = json!({"allOf": [{"type": "string"}, {"minLength": 2}]});
    assert_eq!(
        field(all_of, json!("x")),
        r#"[f: Invalid value: "x": f in body should be at least 2 chars long, <nil>: Invalid value: "": "f" must validate all the schemas (allOf)]"#
    );
    let not = json!({"not": {"type": "string"}});
    assert_eq!(
        field(not, json!("x")),
        r#"<nil>: Invalid value: "": "f" must not validate the schema (not)"#
    );
}

#[test]
fn list_types_and_embedded_resources() {
    assert_eq!(
        field(
            json!({"type": "array", "listType": "set", "items": {"type": "string"}}),
            json!(["a", "b", "a", "a"])
        ),
        r#"f[2]: Duplicate value: "a""#
    );
    assert_eq!(
        field(
            json!({"type": "array", "listType": "map", "listMapKeys": ["name", "proto"], "items": {"type": "object"}}),
            json!([{"name": "a", "proto": "TCP"}, {"name": "a", "proto": "UDP"}, {"name": "a", "proto": "TCP"}])
        ),
        r#"f[2]: Duplicate value: map[string]interface {}{"name":"a", "proto":"TCP"}"#
    );
    assert_eq!(
        field(
            json!({"type": "array", "listType": "map", "listMapKeys": ["name"], "items": {}}),
            json!([{"name": "a"}, "x"])
        ),
        r#"f[1]: Invalid value: "x": must be an object for an array of list-type map"#
    );
    let embedded =
        json!({"type": "object", "embeddedResource": true, "preserveUnknownFields": true});
    assert_eq!(
        field(embedded.clone(), json!({"apiVersion": "v1", "kind": "Pod"})),
        ""
    );
    assert_eq!(
        field(embedded.clone(), json!({})),
        "[f.apiVersion: Required value, f.kind: Required value]"
    );
    assert_eq!(
        field(embedded, json!({"apiVersion": "a/b/c", "kind": "Pod_X"})),
        r#"[f.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c, f.kind: Invalid value: "Pod_X": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')]"#
    );
}

#[test]
fn list_uniqueness_already_broken_is_not_reported_again_on_update() {
    let n = node(
        json!({"type": "object", "properties": {"l": {"type": "array", "listType": "set", "items": {"type": "string"}}}}),
    );
    let bad = json!({"l": ["a", "a"]});
    assert_eq!(validate(&n, &NoReferences, &bad, None).len(), 1);
    assert!(validate(&n, &NoReferences, &bad, Some(&bad)).is_empty());
    assert_eq!(
        validate(&n, &NoReferences, &bad, Some(&json!({"l": ["a"]}))).len(),
        1
    );
}

#[test]
fn references_resolve_through_a_schema_set() {
    let set = SchemaSet::new(vec![
        node(json!({"type": "object", "properties": {"port": {"$ref": 1}}, "required": ["port"]})),
        node(json!({"type": "integer", "minimum": 1, "maximum": 65535})),
    ]);
    let n = node(json!({"type": "object", "properties": {"spec": {"$ref": 0}}}));
    assert_eq!(
        Errors(validate(&n, &set, &json!({"spec": {"port": 0}}), None)).to_string(),
        "spec.port: Invalid value: 0: spec.port in body should be greater than or equal to 1"
    );
    assert_eq!(
        Errors(validate(&n, &set, &json!({"spec": {}}), None)).to_string(),
        "spec.port: Required value"
    );
}

#[test]
fn the_status_subresource_reports_under_status() {
    let n = node(
        json!({"type": "object", "properties": {"replicas": {"type": "integer", "minimum": 0}}}),
    );
    let options = Options {
        base: FieldPath::new("status"),
    };
    let errors = validate_with(&n, &NoReferences, &json!({"replicas": -1}), None, &options);
    assert_eq!(
        Errors(errors).to_string(),
        "status.replicas: Invalid value: -1: replicas in body should be greater than or equal to 0"
    );
}

#[test]
fn updates_ratchet_errors_of_unchanged_parts() {
    let n = node(json!({"type": "object", "properties": {
        "a": {"type": "string", "minLength": 2, "rules": [{"rule": "self != 'x'", "message": "not x"}]},
        "b": {"type": "string"},
        "set": {"type": "array", "listType": "set", "items": {"type": "string", "minLength": 2}},
        "atomic": {"type": "array", "items": {"type": "string", "minLength": 2}}
    }}));
    let old = json!({"a": "x", "set": ["x"], "atomic": ["x"]});
    // The invalid parts are as they were: no error.
    assert_eq!(
        Errors(validate(
            &n,
            &NoReferences,
            &json!({"a": "x", "b": "new", "set": ["x", "yy"], "atomic": ["x"]}),
            Some(&old)
        ))
        .to_string(),
        ""
    );
    // A changed atomic list does not correlate its items; a changed field is checked.
    assert_eq!(
        Errors(validate(
            &n,
            &NoReferences,
            &json!({"a": "y", "set": ["x"], "atomic": ["x", "yy"]}),
            Some(&old)
        ))
        .to_string(),
        r#"[a: Invalid value: "y": a in body should be at least 2 chars long, atomic[0]: Invalid value: "x": atomic[0] in body should be at least 2 chars long]"#
    );
    // On create nothing ratchets.
    assert_eq!(validate(&n, &NoReferences, &old, None).len(), 4);
}

/// `JSONSchemaProps` refers to itself from many places: a walk of the schema (not the
/// value) must not branch at every level, or validating a CRD never ends.
#[test]
fn a_recursive_schema_is_walked_once() {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let recursive = json!({"$ref": 0});
        let props: serde_json::Map<String, Value> = ["a", "b", "c", "d", "e", "f", "g", "h"]
            .iter()
            .map(|k| ((*k).to_owned(), recursive.clone()))
            .collect();
        let set = SchemaSet::new(vec![
            node(
                json!({"type": "object", "properties": props, "items": {"$ref": 0},
                        "additionalProperties": {"$ref": 0}}),
            ),
            node(
                json!({"type": "object", "properties": {"x": {"$ref": 0}, "n": {"type": "integer",
                        "rules": [{"rule": "self > 0", "message": "positive"}]}}}),
            ),
        ]);
        let plain = node(json!({"type": "object", "properties": {"spec": {"$ref": 0}}}));
        let plain = Errors(validate(
            &plain,
            &set,
            &json!({"spec": {"a": {"b": {}}}}),
            None,
        ));
        // A rule reachable through the cycle is still found and run.
        let ruled = node(json!({"type": "object", "properties": {"spec": {"$ref": 1}}}));
        let ruled = Errors(validate(&ruled, &set, &json!({"spec": {"n": 0}}), None));
        let _ = done.send((plain.to_string(), ruled.to_string()));
    });
    let (plain, ruled) = finished
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("validation against a recursive schema ends");
    assert_eq!(plain, "");
    assert_eq!(ruled, "spec.n: Invalid value: \"integer\": positive");
}
