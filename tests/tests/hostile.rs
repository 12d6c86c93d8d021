//! Hostile and malformed input: every case in `tests/hostile/` (plus giants generated here:
//! 10,000-deep nesting, a 10 MB description) gives its expected error kind, or valid code
//! that parses and compiles. None may panic, overflow the stack or hang.

use std::fs;
use std::path::{Path, PathBuf};

use kubeforge::{Config, ErrorKind, Layout};
use kubeforge_tests::{build_modules_as_crate, claims, workspace_root};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    Error(ErrorKind),
    Valid,
}

use ErrorKind as K;
use Expect::{Error, Valid};

/// Every committed case and what it must produce.
const CASES: &[(&str, Expect)] = &[
    (
        "additional_properties_is_string.json",
        Error(K::InvalidSchema),
    ),
    ("crd_bad_scope.yaml", Error(K::InvalidSchema)),
    ("crd_dangling_ref.yaml", Error(K::DanglingRef)),
    ("crd_keywords_and_nesting.yaml", Valid),
    (
        "crd_kind_clashes_with_generated_list.yaml",
        Error(K::ConflictingDefinition),
    ),
    ("crd_method_names.yaml", Valid),
    ("crd_missing_group.yaml", Error(K::InvalidSchema)),
    // The Pod is skipped with a note, as in a Helm chart's rendered output.
    ("crd_multi_document_with_a_pod.yaml", Valid),
    ("crd_v1beta1.yaml", Error(K::UnknownDocument)),
    ("dangling_ref.json", Error(K::DanglingRef)),
    ("default_out_of_range.json", Valid),
    ("description_is_number.json", Error(K::InvalidSchema)),
    ("descriptions_that_break_comments.json", Valid),
    ("duplicate_operation_ids.json", Error(K::InvalidOperation)),
    ("empty.json", Error(K::UnknownDocument)),
    ("empty_object.json", Error(K::UnknownDocument)),
    ("empty_property_name.json", Valid),
    ("enum_mixing_types.json", Error(K::InvalidSchema)),
    ("enum_not_array.json", Error(K::InvalidSchema)),
    ("enum_out_of_range_integers.json", Valid),
    ("format_is_object.json", Error(K::InvalidSchema)),
    ("gvk_malformed.json", Error(K::InvalidSchema)),
    ("invalid_utf8.json", Error(K::Syntax)),
    ("json_key_not_a_string.json", Error(K::Syntax)),
    ("keywords_everywhere.json", Valid),
    ("many_properties.json", Valid),
    ("names_collide_after_conversion.json", Valid),
    ("names_collide_types_and_packages.json", Valid),
    ("not_an_api_document.json", Error(K::UnknownDocument)),
    ("openapi_version_2.json", Error(K::UnknownDocument)),
    ("path_escapes_prefix.json", Error(K::InvalidOperation)),
    (
        "path_param_missing_from_template.json",
        Error(K::InvalidOperation),
    ),
    ("paths_is_array.json", Error(K::InvalidOperation)),
    ("properties_is_array.json", Error(K::InvalidSchema)),
    ("property_is_null.json", Error(K::InvalidSchema)),
    ("ref_cycle_aliases.json", Error(K::RefCycle)),
    ("ref_cycle_self_alias.json", Error(K::RefCycle)),
    ("ref_cycle_through_arrays.json", Error(K::RefCycle)),
    ("ref_external.json", Error(K::UnsupportedSchema)),
    ("ref_not_a_string.json", Error(K::InvalidSchema)),
    ("required_has_number.json", Error(K::InvalidSchema)),
    ("required_is_string.json", Error(K::InvalidSchema)),
    ("schema_is_string.json", Error(K::InvalidSchema)),
    ("schema_name_300_chars.json", Valid),
    // The form operation is skipped with a note; the document's types are generated.
    ("swagger_form_data.json", Valid),
    ("swagger_param_ref_dangling.json", Error(K::DanglingRef)),
    ("swagger_version_3.json", Error(K::UnknownDocument)),
    ("top_level_array.json", Error(K::UnknownDocument)),
    ("type_is_number.json", Error(K::InvalidSchema)),
    ("type_list_of_two.json", Error(K::UnsupportedSchema)),
    ("type_unsupported.json", Error(K::UnsupportedSchema)),
    ("unicode_names.json", Valid),
    ("whitespace_only.yaml", Error(K::UnknownDocument)),
    ("yaml_alias_bomb.yaml", Error(K::Syntax)),
    ("yaml_duplicate_key.yaml", Error(K::Syntax)),
    ("yaml_unclosed_flow_sequence.yaml", Error(K::Syntax)),
    ("yaml_unclosed_quote.yaml", Error(K::Syntax)),
    ("yaml_unclosed_quote_far.yaml", Error(K::Syntax)),
];

/// The stack the generator gets for each case: fixed, so whether an input overflows it does
/// not depend on the harness (`RUST_MIN_STACK`) or on which thread runs the test.
const GENERATOR_STACK: usize = 8 * 1024 * 1024;

/// Generates `path` on a thread with a fixed stack, so a deep input either fits or aborts
/// the same way on every machine, and a panic is reported as such. There is no wall-clock
/// deadline: whether a test passes must not depend on the machine's speed or load. A hang
/// (which no case has) would show as cargo's "has been running for over 60 seconds" and
/// end at CI's job timeout.
fn generate(path: &Path, module: &str) -> Result<Result<String, kubeforge::Error>, String> {
    let input = path.to_path_buf();
    let root = format!("crate::{module}");
    let worker = std::thread::Builder::new()
        .name(format!("generate {module}"))
        .stack_size(GENERATOR_STACK)
        .spawn(move || {
            Config::new()
                .input(&input)
                .layout(Layout::SingleFile)
                .root_path(root)
                .apply_types(true)
                .generate()
                .map(|output| output.files().values().next().cloned().unwrap_or_default())
        })
        .map_err(|e| format!("cannot start a thread: {e}"))?;
    worker.join().map_err(|_| "panicked".to_owned())
}

fn module_name(file: &str) -> String {
    file.replace(['.', '-'], "_")
}

/// Giant inputs, made here rather than committed.
fn giants(dir: &Path) -> Vec<(PathBuf, Expect)> {
    let mut cases = Vec::new();

    let deep_json = format!(
        "{{\"openapi\": \"3.0.0\", \"x\": {}1{}}}",
        "[".repeat(claims::HOSTILE_DEPTH),
        "]".repeat(claims::HOSTILE_DEPTH)
    );
    cases.push((dir.join("deep_nesting.json"), deep_json, Error(K::Syntax)));

    let mut schema = String::from("{\"type\": \"string\"}");
    for _ in 0..claims::HOSTILE_DEPTH {
        schema = format!("{{\"type\": \"object\", \"properties\": {{\"a\": {schema}}}}}");
    }
    let deep_schema = format!(
        "{{\"openapi\": \"3.0.0\", \"components\": {{\"schemas\": {{\"io.x.v1.Deep\": {schema}}}}}}}"
    );
    cases.push((dir.join("deep_schema.json"), deep_schema, Error(K::Syntax)));

    let deep_yaml = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nx: {}1{}\n",
        "[".repeat(claims::HOSTILE_DEPTH),
        "]".repeat(claims::HOSTILE_DEPTH)
    );
    cases.push((dir.join("deep_nesting.yaml"), deep_yaml, Error(K::Syntax)));

    let sentence = "A very long description. ";
    let huge = sentence.repeat(claims::HOSTILE_DESCRIPTION_MB * 1024 * 1024 / sentence.len());
    let huge_doc = serde_json::json!({
        "openapi": "3.0.0",
        "components": {"schemas": {"io.x.v1.Huge": {"type": "object", "description": huge, "properties": {"a": {"type": "string"}}}}}
    });
    cases.push((
        dir.join("huge_description.json"),
        huge_doc.to_string(),
        Valid,
    ));

    let moderately_deep = {
        let mut schema = String::from("{\"type\": \"string\"}");
        for _ in 0..40 {
            schema = format!("{{\"type\": \"object\", \"properties\": {{\"a\": {schema}}}}}");
        }
        format!(
            "{{\"openapi\": \"3.0.0\", \"components\": {{\"schemas\": {{\"io.x.v1.Nest\": {schema}}}}}}}"
        )
    };
    cases.push((dir.join("nested_forty_levels.json"), moderately_deep, Valid));

    cases
        .into_iter()
        .map(|(path, text, expect)| {
            fs::write(&path, text).expect("write giant");
            (path, expect)
        })
        .collect()
}

#[test]
fn hostile_corpus() {
    let dir = workspace_root().join("tests/hostile");
    let mut on_disk: Vec<String> = fs::read_dir(&dir)
        .expect("tests/hostile")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let listed: Vec<String> = CASES.iter().map(|(f, _)| (*f).to_owned()).collect();
    assert_eq!(
        on_disk, listed,
        "every file in tests/hostile needs an expectation in CASES, and vice versa"
    );
    assert_eq!(
        CASES.len(),
        claims::HOSTILE_DOCUMENTS,
        "the committed hostile documents, as the guide counts them"
    );

    let scratch = tempfile::tempdir().expect("temp dir");
    let mut cases: Vec<(PathBuf, Expect)> = CASES.iter().map(|(f, e)| (dir.join(f), *e)).collect();
    cases.extend(giants(scratch.path()));

    let mut failures = Vec::new();
    let mut valid = Vec::new();
    for (path, expect) in &cases {
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let module = module_name(&file);
        match (generate(path, &module), expect) {
            (Err(problem), _) => failures.push(format!("{file}: {problem}")),
            (Ok(Err(e)), Error(kind)) if e.kinds().contains(kind) => {
                // Every diagnostic names the file it is about.
                if let Some(d) = e
                    .diagnostics()
                    .iter()
                    .find(|d| d.origin.file.as_os_str().is_empty())
                {
                    failures.push(format!("{file}: a diagnostic names no file: {d}"));
                }
            }
            (Ok(Err(e)), _) => failures.push(format!("{file}: expected {expect:?}, got:\n{e}")),
            (Ok(Ok(_)), Error(kind)) => {
                failures.push(format!("{file}: expected {kind:?}, but it generated code"))
            }
            (Ok(Ok(code)), Valid) => match syn::parse_file(&code) {
                Ok(_) => valid.push((module, code)),
                Err(e) => failures.push(format!("{file}: generated code does not parse: {e}")),
            },
        }
    }
    assert!(
        failures.is_empty(),
        "hostile cases failed:\n{}",
        failures.join("\n")
    );
    build_modules_as_crate(
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        "hostile-valid",
        &valid,
    );
}
