//! Malformed or unsupported input gives an error naming the file, the JSON pointer of the
//! offending node and what was expected; never a panic, never a half-written output.

use std::fs;
use std::path::Path;

use kubeforge::{Config, Error, ErrorKind};
use serde_json::{Value, json};

fn generate(documents: &[(&str, &str)]) -> Result<kubeforge::Output, Error> {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = Config::new();
    for (name, text) in documents {
        let path = dir.path().join(name);
        fs::write(&path, text).expect("write input");
        config = config.input_named(&path, Path::new("input").join(name));
    }
    config.generate()
}

fn schemas(schemas: Value) -> String {
    let doc = json!({"openapi": "3.0.0", "info": {"title": "t", "version": "v1"}, "paths": {}, "components": {"schemas": schemas}});
    serde_json::to_string_pretty(&doc).expect("serializes")
}

fn error_of(documents: &[(&str, &str)]) -> Error {
    match generate(documents) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

fn assert_single(e: &Error, kind: ErrorKind, file: &str, pointer: &str, expected_text: &str) {
    assert_eq!(e.kinds(), [kind], "{e}");
    let d = &e.diagnostics()[0];
    assert_eq!(d.origin.file, Path::new(file), "{e}");
    assert_eq!(d.origin.pointer, pointer, "{e}");
    assert!(
        d.message.contains(expected_text),
        "message {:?} lacks {expected_text:?}",
        d.message
    );
}

#[test]
fn not_json() {
    let e = error_of(&[("a.json", "{\"openapi\": \"3.0.0\",\n  oops}")]);
    assert_single(&e, ErrorKind::Syntax, "input/a.json", "", "line 2");
}

#[test]
fn not_an_api_document() {
    let e = error_of(&[("a.json", "{\"kind\": \"Pod\"}")]);
    assert_single(
        &e,
        ErrorKind::UnknownDocument,
        "input/a.json",
        "",
        "expected an OpenAPI 3.x document",
    );
    let e = error_of(&[("a.json", "[1, 2]")]);
    assert_single(
        &e,
        ErrorKind::UnknownDocument,
        "input/a.json",
        "",
        "found an array",
    );
}

#[test]
fn dangling_ref() {
    let text = schemas(
        json!({"io.example.v1.A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/io.example.v1.B"}}}}),
    );
    let e = error_of(&[("a.json", &text)]);
    assert_single(
        &e,
        ErrorKind::DanglingRef,
        "input/a.json",
        "/components/schemas/io.example.v1.A/properties/b/$ref",
        "no schema `io.example.v1.B`",
    );
    let location = e.diagnostics()[0]
        .location
        .expect("JSON inputs have line and column");
    let line = text.lines().nth(location.line - 1).expect("line exists");
    assert!(
        line[location.column - 1..].starts_with("\"#/components/schemas/io.example.v1.B\""),
        "{line:?}"
    );
    let rendered = format!(
        "--> input/a.json:{}:{} at #/components/schemas/io.example.v1.A/properties/b/$ref",
        location.line, location.column
    );
    assert!(e.to_string().contains(&rendered), "{e}");
    assert!(e.to_string().starts_with("error[dangling-ref]: "), "{e}");
}

#[test]
fn keyword_with_the_wrong_json_type() {
    let text = schemas(json!({"io.example.v1.A": {"type": "object", "properties": []}}));
    let e = error_of(&[("a.json", &text)]);
    assert_single(
        &e,
        ErrorKind::InvalidSchema,
        "input/a.json",
        "/components/schemas/io.example.v1.A/properties",
        "expected an object of property schemas, found an array",
    );

    let text = schemas(
        json!({"io.example.v1.A": {"type": "object", "required": "a", "properties": {"a": {"type": "string"}}}}),
    );
    let e = error_of(&[("a.json", &text)]);
    assert_single(
        &e,
        ErrorKind::InvalidSchema,
        "input/a.json",
        "/components/schemas/io.example.v1.A/required",
        "expected an array of property names",
    );

    let text =
        schemas(json!({"io.example.v1.A": {"type": "object", "properties": {"a": {"type": 7}}}}));
    let e = error_of(&[("a.json", &text)]);
    assert_single(
        &e,
        ErrorKind::InvalidSchema,
        "input/a.json",
        "/components/schemas/io.example.v1.A/properties/a/type",
        "expected a type name, found a number",
    );
}

#[test]
fn unsupported_type() {
    let text = schemas(
        json!({"io.example.v1.A": {"type": "object", "properties": {"upload": {"type": "file"}}}}),
    );
    let e = error_of(&[("a.json", &text)]);
    assert_single(
        &e,
        ErrorKind::UnsupportedSchema,
        "input/a.json",
        "/components/schemas/io.example.v1.A/properties/upload/type",
        "found \"file\"",
    );
}

#[test]
fn enum_mixing_types() {
    let text = schemas(
        json!({"io.example.v1.A": {"type": "object", "properties": {"mode": {"type": "string", "enum": ["a", 1]}}}}),
    );
    let e = error_of(&[("a.json", &text)]);
    assert_single(
        &e,
        ErrorKind::InvalidSchema,
        "input/a.json",
        "/components/schemas/io.example.v1.A/properties/mode/enum/1",
        "expected every value of a string enum to be a string",
    );
}

#[test]
fn ref_cycle_through_aliases_only() {
    let text = schemas(json!({
        "io.example.v1.A": {"$ref": "#/components/schemas/io.example.v1.B"},
        "io.example.v1.B": {"$ref": "#/components/schemas/io.example.v1.A"}
    }));
    let e = error_of(&[("a.json", &text)]);
    assert_eq!(e.kinds(), [ErrorKind::RefCycle], "{e}");
    assert!(
        e.to_string().contains("io.example.v1.A → io.example.v1.B")
            || e.to_string().contains("io.example.v1.B → io.example.v1.A"),
        "{e}"
    );
}

#[test]
fn independent_errors_are_all_reported() {
    let text = schemas(json!({
        "io.example.v1.A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/Missing"}}},
        "io.example.v1.C": {"type": "object", "properties": {"d": {"type": "file"}}}
    }));
    let e = error_of(&[("a.json", &text), ("b.json", "{not json")]);
    assert_eq!(
        e.kinds(),
        [ErrorKind::Syntax],
        "a load error stops before modelling: {e}"
    );
    let e = error_of(&[("a.json", &text)]);
    assert_eq!(
        e.kinds(),
        [ErrorKind::DanglingRef, ErrorKind::UnsupportedSchema],
        "{e}"
    );
    assert!(e.to_string().ends_with("2 errors"), "{e}");
}

#[test]
fn conflicting_definitions_name_both_places() {
    let a = schemas(
        json!({"io.example.v1.A": {"type": "object", "properties": {"x": {"type": "string"}}}}),
    );
    let b = schemas(
        json!({"io.example.v1.A": {"type": "object", "properties": {"x": {"type": "integer"}}}}),
    );
    let e = error_of(&[("a.json", &a), ("b.json", &b)]);
    assert_single(
        &e,
        ErrorKind::ConflictingDefinition,
        "input/b.json",
        // The first differing node (`merge_releases.rs` tests the merge rules).
        "/components/schemas/io.example.v1.A/properties/x/type",
        "input/a.json#/components/schemas/io.example.v1.A",
    );
    // Identical definitions are merged silently.
    assert!(generate(&[("a.json", &a), ("c.json", &a)]).is_ok());
}

#[test]
fn missing_file() {
    let e = Config::new()
        .input("does/not/exist.json")
        .generate()
        .expect_err("no such file");
    assert_single(
        &e,
        ErrorKind::Io,
        "does/not/exist.json",
        "",
        "cannot read the file",
    );
}

/// A refused write changes nothing: every conflict is found before the first file is written.
#[test]
fn refused_write_leaves_the_directory_untouched() {
    let text = schemas(json!({
        "io.example.v1.A": {"type": "object", "properties": {"x": {"type": "string"}}},
        "io.example.v1.B": {"type": "object", "properties": {"y": {"type": "string"}}}
    }));
    let output = generate(&[("a.json", &text)]).expect("valid input");
    let out = tempfile::tempdir().expect("temp dir");
    let hand_written = out.path().join("io/example/v1/b.rs");
    fs::create_dir_all(hand_written.parent().expect("parent")).expect("mkdir");
    fs::write(&hand_written, "// mine\n").expect("write");
    let e = output
        .write(out.path())
        .expect_err("must not overwrite a hand-written file");
    assert_eq!(e.kinds(), [ErrorKind::Output]);
    assert!(
        !out.path().join("lib.rs").exists(),
        "nothing may be written after a refusal"
    );
    assert_eq!(
        fs::read_to_string(&hand_written).expect("read"),
        "// mine\n"
    );
}

/// In-memory inputs are named and located like files.
#[test]
fn in_memory_input_is_located() {
    let text = schemas(
        json!({"io.example.v1.A": {"type": "object", "properties": {"b": {"type": "file"}}}}),
    );
    let e = Config::new()
        .input_bytes("memory/a.json", text.clone())
        .generate()
        .expect_err("unsupported type");
    assert_single(
        &e,
        ErrorKind::UnsupportedSchema,
        "memory/a.json",
        "/components/schemas/io.example.v1.A/properties/b/type",
        "found \"file\"",
    );
    let at = e.diagnostics()[0].location.expect("located");
    assert!(
        text.lines()
            .nth(at.line - 1)
            .expect("line")
            .contains("\"file\"")
    );
    let ok = schemas(
        json!({"io.example.v1.A": {"type": "object", "properties": {"b": {"type": "string"}}}}),
    );
    assert!(
        Config::new()
            .input_bytes("memory/ok.json", ok)
            .generate()
            .is_ok()
    );
}
