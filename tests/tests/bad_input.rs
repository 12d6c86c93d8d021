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
    assert_single(
        &e,
        ErrorKind::Syntax,
        "input/a.json",
        "",
        "key must be a string",
    );
    let at = e.diagnostics()[0].location.expect("located");
    assert_eq!((at.line, at.column), (2, 3), "{e}");
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

/// The hostile cases about where an error is: each gives its kind at exactly this place
/// (file, line, column: the first diagnostic), and the rendered message names the file,
/// puts its marker there and nowhere else, and gives no advice of a third party's.
const LOCATED: &[(&str, ErrorKind, usize, usize, &str)] = &[
    (
        "yaml_duplicate_key.yaml",
        ErrorKind::Syntax,
        6,
        3,
        "the key `group` appears again",
    ),
    (
        "yaml_unclosed_flow_sequence.yaml",
        ErrorKind::Syntax,
        9,
        17,
        "illegal placement",
    ),
    (
        "yaml_unclosed_quote.yaml",
        ErrorKind::Syntax,
        8,
        20,
        "expected a closing quote",
    ),
    (
        "yaml_unclosed_quote_far.yaml",
        ErrorKind::Syntax,
        2,
        15,
        "runs on to line 19",
    ),
    (
        "json_key_not_a_string.json",
        ErrorKind::Syntax,
        3,
        26,
        "key must be a string",
    ),
    (
        "crd_dangling_ref.yaml",
        ErrorKind::DanglingRef,
        17,
        19,
        "no schema `Nope`",
    ),
    (
        "crd_kind_clashes_with_generated_list.yaml",
        ErrorKind::ConflictingDefinition,
        19,
        71,
        "the list type generated for the CRD at",
    ),
    (
        "dangling_ref.json",
        ErrorKind::DanglingRef,
        14,
        21,
        "no schema",
    ),
];

#[test]
fn hostile_errors_point_at_the_right_place() {
    let dir = kubeforge_tests::workspace_root().join("tests/hostile");
    let mut failures = Vec::new();
    for &(file, kind, line, column, text) in LOCATED {
        let path = dir.join(file);
        let e = Config::new()
            .input_named(&path, &path)
            .generate()
            .expect_err(file);
        let d = &e.diagnostics()[0];
        let at = d.location.map(|l| (l.line, l.column));
        let (shown, _) = kubeforge::diagnostics::split_document(&d.origin.file);
        if d.kind != kind
            || at != Some((line, column))
            || shown != path
            || !d.message.contains(text)
        {
            failures.push(format!(
                "{file}: expected {kind} at {line}:{column} with {text:?}, got {} at {at:?}:\n{e}",
                d.kind
            ));
            continue;
        }
        let rendered = kubeforge::cli::render(&e, None);
        let first = rendered.lines().take(2).collect::<Vec<_>>().join("\n");
        if !first.contains(&format!("{file}:{line}:{column}"))
            && !first.contains(&format!("{file} (document 2):{line}:{column}"))
        {
            failures.push(format!(
                "{file}: the rendered error does not point at {line}:{column}:\n{rendered}"
            ));
        }
        for wrong in ["<input>", ":1:1", "DuplicateKeyPolicy", "Options"] {
            if rendered.contains(wrong) {
                failures.push(format!(
                    "{file}: the rendered error holds {wrong:?}:\n{rendered}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A selector that matches nothing says what there is, nearest first, a different case
/// included.
#[test]
fn selector_misses_name_the_near_matches() {
    let crd = fs::read_to_string(
        kubeforge_tests::workspace_root().join("tests/hostile/crd_dangling_ref.yaml"),
    )
    .expect("read")
    .replace(
        "            $ref: \"#/components/schemas/Nope\"\n",
        "            type: object\n",
    );
    let miss = |selector: &str| {
        let dir = tempfile::tempdir().expect("temp dir");
        fs::write(dir.path().join("w.yaml"), &crd).expect("write");
        Config::new()
            .input_named(dir.path().join("w.yaml"), "w.yaml")
            .select(selector.parse().expect("selector"))
            .generate()
            .expect_err(selector)
    };
    let e = miss("kind=w");
    assert_eq!(e.kinds(), [ErrorKind::EmptySelection]);
    let d = &e.diagnostics()[0];
    assert!(d.message.contains("did you mean `kind=W`?"), "{e}");
    assert_eq!(
        d.hint.as_deref(),
        Some("the inputs have 2 kinds: `W`, `WList`"),
        "{e}"
    );
    assert!(!e.to_string().contains("<config>"), "{e}");
    let e = miss("kind=NoSuchKind");
    assert!(!e.to_string().contains("did you mean"), "{e}");
    assert!(e.to_string().contains("`W`, `WList`"), "{e}");
    let e = miss("group=b.ioo");
    assert!(e.to_string().contains("did you mean `group=b.io`?"), "{e}");
    let e = miss("group-version=b.io/v2");
    assert!(
        e.to_string()
            .contains("did you mean `group-version=b.io/v1`?"),
        "{e}"
    );
}

/// Names that collide after conversion are numbered with a warning naming both schemas;
/// unicode names become readable identifiers; an over-long schema name gets a short file.
#[test]
fn naming_edge_cases_are_visible_and_valid() {
    let dir = kubeforge_tests::workspace_root().join("tests/hostile");
    let output = Config::new()
        .input(dir.join("names_collide_types_and_packages.json"))
        .generate()
        .expect("generates");
    let warnings: Vec<&str> = output
        .warnings()
        .iter()
        .map(|w| {
            assert_eq!(w.kind, kubeforge::ErrorKind::NumberedName);
            w.message.as_str()
        })
        .collect();
    assert_eq!(
        warnings,
        [
            "the schemas `io.x.v1.FooBar` and `io.x.v1.Foo_Bar` both become the Rust type `io::x::v1::FooBar`; `io.x.v1.Foo_Bar` is generated as `io::x::v1::FooBar2`",
            "the schemas `io.x-y.v1.A` and `io.x_y.v1.A` both become the Rust type `io::x_y::v1::A`; `io.x_y.v1.A` is generated as `io::x_y::v1::A2`",
        ]
    );
    let foo_bar2 = &output.files()[Path::new("io/x/v1/foo_bar2.rs")];
    assert!(
        foo_bar2.contains("/// Schema: `io.x.v1.Foo_Bar`.\npub type FooBar2 ="),
        "{foo_bar2}"
    );
    let output = Config::new()
        .input(dir.join("unicode_names.json"))
        .generate()
        .expect("generates");
    let unit = &output.files()[Path::new("io/x/v1/unit.rs")];
    for variant in ["Um,", "A,", "E,", "E2,", "Omega,", "U4e2d,"] {
        assert!(
            unit.contains(&format!("    {variant}\n")),
            "{variant} missing:\n{unit}"
        );
    }
    let measure = &output.files()[Path::new("io/x/v1/measure.rs")];
    for field in ["pub e:", "pub grosse:", "pub us:", "pub u540d_u524d:"] {
        assert!(measure.contains(field), "{field} missing:\n{measure}");
    }
    assert!(output.warnings().is_empty());

    let output = Config::new()
        .input(dir.join("schema_name_300_chars.json"))
        .generate()
        .expect("generates");
    let out = tempfile::tempdir().expect("temp dir");
    output
        .write(out.path().join("src"))
        .expect("a long schema name writes");
    let longest = output
        .files()
        .keys()
        .filter_map(|p| p.file_name())
        .map(|n| n.len())
        .max()
        .expect("files");
    assert!(longest <= 103, "a file name of {longest} bytes");
    let entries: Vec<_> = fs::read_dir(out.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(entries, ["src"], "no staging directory may be left behind");
}

/// A CRD whose one version's schema has the given `x-kubernetes-validations` on `spec`.
fn crd_with_rules(rules: &Value) -> String {
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}},
                             "x-kubernetes-validations": rules}
                }}}
            }]
        }
    });
    serde_json::to_string_pretty(&crd).expect("serializes")
}

#[test]
fn a_cel_rule_the_evaluator_cannot_run_is_an_error_naming_it() {
    for (rule, reason) in [
        ("self.replicas <", "syntax"),
        ("self.replicas.frobnicate() > 1", "frobnicate"),
    ] {
        let text = crd_with_rules(&json!([{"rule": "self.replicas >= 0"}, {"rule": rule}]));
        let e = error_of(&[("widget.json", &text)]);
        assert_single(
            &e,
            ErrorKind::UnsupportedSchema,
            "input/widget.json",
            "/spec/versions/0/schema/openAPIV3Schema/properties/spec/x-kubernetes-validations/1/rule",
            rule,
        );
        let message = &e.diagnostics()[0].message;
        assert!(
            message.to_lowercase().contains(reason),
            "{reason:?} not in {message:?}"
        );
    }
    // A message expression is a program too.
    let text = crd_with_rules(&json!([{"rule": "true", "messageExpression": "'x' +"}]));
    let e = error_of(&[("widget.json", &text)]);
    assert_eq!(
        e.diagnostics()[0].origin.pointer,
        "/spec/versions/0/schema/openAPIV3Schema/properties/spec/x-kubernetes-validations/0/messageExpression",
        "{e}"
    );
    // Rules it can run generate.
    let text = crd_with_rules(&json!([{"rule": "self.replicas >= 0 && self.replicas <= 10"}]));
    assert!(generate(&[("widget.json", &text)]).is_ok());
}
