//! Istio's own valid and invalid objects through a generated crate, as a user checks them:
//! each object is read into its generated type and `validate()` is called (the embedded
//! nodes, parsed once, and the runtime's evaluator). An invalid object is refused either by
//! `validate()`, with the text a real API server gave (its `_err`), or already when read,
//! where the typed value cannot hold it (a required field missing, `null` for an object),
//! with the message `READ_REFUSALS` names; every
//! valid object reads and validates.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Stdio;

use kubeforge_tests::claims;

/// The invalid examples the typed value cannot hold, each with serde's message: reading
/// refuses them before `validate()` can (a required field missing, where the API server
/// says `Required value`; `null` for an object or a string, where it says `must be of type`).
const READ_REFUSALS: &[(&str, &str)] = &[
    (
        "destinationrule-invalid.yaml #1",
        "missing field `duration`",
    ),
    ("reqauth-invalid.yaml #2", "missing field `name`"),
    (
        "reqauth-invalid.yaml #6",
        "invalid type: null, expected struct RequestAuthenticationSpecJwtRules",
    ),
    ("reqauth-invalid.yaml #9", "missing field `name`"),
    (
        "reqauth-invalid.yaml #13",
        "invalid type: null, expected struct RequestAuthenticationSpecJwtRulesOutputClaimToHeaders",
    ),
    ("serviceentry-invalid.yaml #0", "missing field `spec`"),
    ("serviceentry-invalid.yaml #1", "missing field `hosts`"),
    ("wasm-invalid.yaml #0", "missing field `number`"),
    (
        "wasm-invalid.yaml #11",
        "invalid type: null, expected struct WasmPluginSpec",
    ),
    (
        "wasm-invalid.yaml #12",
        "invalid type: null, expected a string",
    ),
    ("workloadentry-invalid.yaml #0", "missing field `spec`"),
    ("workloadgroup-invalid.yaml #0", "missing field `spec`"),
];

#[test]
fn istio_examples_through_generated_validate() {
    let Some(dir) = kubeforge_tests::validation_data(
        "validation_generated",
        &["istio/customresourcedefinitions.gen.yaml", "istio/testdata"],
    ) else {
        return;
    };
    let config = kubeforge::Config::new()
        .input(dir.join("istio/customresourcedefinitions.gen.yaml"))
        .builders(false)
        .routes(false)
        .docs(false);
    let api = config.model().expect("Istio's CRDs model");
    let output = config.generate().expect("Istio's CRDs generate");
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("validation_generated");
    let crate_dir = scratch.join("crate");
    output
        .write(crate_dir.join("src"))
        .expect("write the crate");

    // The objects, read as in the other test, one JSON array for the program.
    let mut files = kubeforge_tests::sorted_files(&dir.join("istio/testdata"), "yaml");
    files.retain(|f| !f.to_string_lossy().ends_with("~"));
    let mut objects = Vec::new();
    let mut expectations = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        for (index, (expected, object)) in kubeforge_tests::examples::examples(file)
            .into_iter()
            .enumerate()
        {
            let invalid = name.contains("-invalid");
            assert!(
                !invalid || expected.is_some(),
                "{name} #{index}: an invalid example without `_err` would be checked for nothing"
            );
            objects.push(object);
            expectations.push((format!("{name} #{index}"), expected));
        }
    }

    let mut arms = String::new();
    for resource in api.resources() {
        let _ = writeln!(
            arms,
            "            ({:?}, {:?}) => check::<istio_validate::{}>(object),",
            resource.gvk().api_version(),
            resource.gvk().kind,
            resource.ty().path()
        );
    }
    let main = format!(
        r#"use kubeforge_runtime::schema::Validate;

fn check<T: serde::de::DeserializeOwned + serde::Serialize + Validate>(object: serde_json::Value) -> (String, String) {{
    match serde_json::from_value::<T>(object) {{
        Err(e) => ("decode".to_owned(), e.to_string()),
        Ok(value) => match value.validate() {{
            Ok(()) => ("ok".to_owned(), String::new()),
            Err(errors) => ("invalid".to_owned(), errors.to_string()),
        }},
    }}
}}

fn main() {{
    let objects: Vec<serde_json::Value> = serde_json::from_reader(std::io::stdin()).expect("objects");
    for object in objects {{
        let api_version = object["apiVersion"].as_str().unwrap_or_default().to_owned();
        let kind = object["kind"].as_str().unwrap_or_default().to_owned();
        let result = match (api_version.as_str(), kind.as_str()) {{
{arms}            _ => ("unknown".to_owned(), format!("{{api_version}} {{kind}}")),
        }};
        println!("{{}}", serde_json::to_string(&result).expect("JSON"));
    }}
}}
"#
    );
    std::fs::write(crate_dir.join("src/main.rs"), main).expect("write main.rs");
    let root = kubeforge_tests::workspace_root();
    let manifest = format!(
        "[package]\nname = \"istio-validate\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nkubeforge-meta = {{ path = {:?} }}\n\
         kubeforge-runtime = {{ path = {:?}, features = [\"validate\"] }}\n\
         serde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n\n[workspace]\n",
        root.join("meta").display().to_string(),
        root.join("runtime").display().to_string(),
    );
    std::fs::write(crate_dir.join("Cargo.toml"), manifest).expect("write the manifest");

    let mut child = kubeforge_tests::scale::command(&crate_dir)
        .args(["run", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cargo runs");
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(serde_json::to_string(&objects).unwrap().as_bytes())
            .expect("send the objects");
    }
    let out = child.wait_with_output().expect("the program ends");
    assert!(
        out.status.success(),
        "the program failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Vec<(String, String)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a result"))
        .collect();
    assert_eq!(results.len(), expectations.len());

    let (mut by_validate, mut by_decode, mut accepted, mut invalid, mut valid) = (0, 0, 0, 0, 0);
    let mut wrong = Vec::new();
    for ((what, expected), (outcome, text)) in expectations.iter().zip(&results) {
        match expected {
            None => {
                valid += 1;
                if outcome == "ok" {
                    accepted += 1;
                } else {
                    wrong.push(format!("{what}: a valid object: {outcome}: {text}"));
                }
            }
            Some(expected) => {
                invalid += 1;
                let read_as = READ_REFUSALS
                    .iter()
                    .find(|(id, _)| id == what)
                    .map(|(_, message)| *message);
                match (outcome.as_str(), read_as) {
                    ("invalid", None) if text.contains(expected.as_str()) => by_validate += 1,
                    ("decode", Some(message)) if text == message => by_decode += 1,
                    _ => wrong.push(format!(
                        "{what}: expected {:?}, got {outcome}: {text:?}",
                        read_as.unwrap_or(expected)
                    )),
                }
            }
        }
    }
    kubeforge_tests::notice(&format!(
        "validation_generated: of {invalid} invalid examples, {by_validate} refused by validate() with the expected text and {by_decode} already when read into the typed value; {accepted} of {valid} valid ones accepted"
    ));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Reading refuses only what the typed value cannot hold; validate() does the rest. The
    // counts docs/src/reference/validation.md states.
    assert_eq!(
        (by_validate, by_decode, accepted),
        (
            claims::ISTIO_REFUSED_BY_VALIDATE,
            claims::ISTIO_REFUSED_WHEN_READ,
            claims::ISTIO_VALID
        ),
        "by validate(), when read, valid ones accepted"
    );
}
