//! Property tests over random valid schemas: generation always succeeds, the output always
//! parses as Rust, and a sample of the outputs compiles. The number of cases is bounded
//! (`PROPTEST_CASES` overrides it) so CI stays fast.

use std::fs;

use kubeforge::{Config, Layout};
use kubeforge_tests::{build_modules_as_crate, claims};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{Map, Value, json};

/// Property names: ordinary, keywords, odd characters, non-ASCII, and near-collisions.
fn property_name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-zA-Z0-9]{0,12}",
        Just("type".to_owned()),
        Just("self".to_owned()),
        Just("$ref".to_owned()),
        Just("x-kubernetes-list-type".to_owned()),
        Just("fooBar".to_owned()),
        Just("foo_bar".to_owned()),
        Just("FOO-BAR".to_owned()),
        Just("1st".to_owned()),
        Just("".to_owned()),
        Just("名前".to_owned()),
        "[ -~]{1,8}",
    ]
}

fn description() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop_oneof![
        "[ -~\n]{0,60}",
        Just("See <b>[link]</b> ```\ncode\n``` */ #[x] https://example.com/a_b.".to_owned()),
        Just("租期定义租期概念。\n\n    indented".to_owned()),
    ])
}

/// A value schema; `refs` are the names of the named schemas it may point at.
fn value_schema(refs: Vec<String>) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "string", "format": "byte"})),
        Just(json!({"type": "string", "format": "date-time"})),
        Just(json!({"type": "integer", "format": "int32"})),
        Just(json!({"type": "integer", "format": "int64"})),
        Just(json!({"type": "number"})),
        Just(json!({"type": "boolean"})),
        Just(json!({"x-kubernetes-int-or-string": true})),
        Just(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})),
        prop::collection::vec("[a-zA-Z0-9 ._/-]{0,8}", 1..5)
            .prop_map(|values| json!({"type": "string", "enum": values})),
        prop::sample::select(if refs.is_empty() {
            vec!["none".to_owned()]
        } else {
            refs
        })
        .prop_map(|name| if name == "none" {
            json!({"type": "string"})
        } else {
            json!({"$ref": format!("#/components/schemas/{name}")})
        }),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items})),
            inner
                .clone()
                .prop_map(|values| json!({"type": "object", "additionalProperties": values})),
            inner
                .clone()
                .prop_map(|schema| json!({"allOf": [schema], "description": "wrapped"})),
            prop::collection::btree_map(property_name(), inner, 1..4)
                .prop_map(|properties| json!({"type": "object", "properties": properties})),
        ]
    })
}

/// A document of up to six named object schemas that may reference each other (cycles
/// included), with random properties, required lists and descriptions.
fn document() -> impl Strategy<Value = Value> {
    let names = prop::collection::btree_set("[A-Z][a-zA-Z]{0,6}", 1..6);
    names.prop_flat_map(|names| {
        let names: Vec<String> = names.into_iter().map(|n| format!("io.example.v1.{n}")).collect();
        let schema = (
            prop::collection::btree_map(property_name(), (value_schema(names.clone()), description(), any::<bool>()), 0..6),
            description(),
        );
        prop::collection::vec(schema, names.len()).prop_map(move |schemas| {
            let mut all = Map::new();
            for (name, (properties, description)) in names.iter().zip(schemas) {
                let required: Vec<&String> = properties.iter().filter(|(_, (_, _, r))| *r).map(|(n, _)| n).collect();
                let properties: Map<String, Value> = properties
                    .iter()
                    .map(|(n, (schema, description, _))| {
                        let mut schema = schema.clone();
                        if let (Some(d), Value::Object(map)) = (description, &mut schema) {
                            map.insert("description".to_owned(), json!(d));
                        }
                        (n.clone(), schema)
                    })
                    .collect();
                let mut object = json!({"type": "object", "properties": properties, "required": required});
                if let Some(d) = description {
                    object["description"] = json!(d);
                }
                all.insert(name.clone(), object);
            }
            json!({"openapi": "3.0.0", "info": {"title": "random", "version": "v1"}, "paths": {}, "components": {"schemas": all}})
        })
    })
}

/// How many random outputs are compiled.
const SAMPLE_SIZE: usize = 8;

fn generate(document: &Value, module: &str) -> Result<String, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = dir.path().join("random.json");
    fs::write(&path, document.to_string()).map_err(|e| e.to_string())?;
    let output = Config::new()
        .input(&path)
        .layout(Layout::SingleFile)
        .root_path(format!("crate::{module}"))
        .generate()
        .map_err(|e| format!("generation failed for\n{document:#}\n{e}"))?;
    Ok(output.files().values().next().cloned().unwrap_or_default())
}

/// `claims::PROPERTY_CASES` (README.md's count), or `PROPTEST_CASES` when set: an explicit
/// `cases` would otherwise override proptest's own reading of that variable.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(claims::PROPERTY_CASES)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_valid_schemas_generate_parseable_rust(document in document()) {
        let code = generate(&document, "sample").map_err(TestCaseError::fail)?;
        syn::parse_file(&code).map_err(|e| TestCaseError::fail(format!("output does not parse: {e}\n{code}")))?;
    }
}

/// Compiles the sample of random outputs as one crate (warnings denied).
#[test]
fn a_sample_of_random_outputs_compiles() {
    // A fixed seed, so the sample is the same on every run.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut sample = Vec::new();
    for i in 0..SAMPLE_SIZE {
        let document = document().new_tree(&mut runner).expect("value").current();
        sample.push(generate(&document, &format!("case{i}")).expect("generates"));
    }
    let modules: Vec<(String, String)> = sample
        .into_iter()
        .enumerate()
        .map(|(i, code)| (format!("case{i}"), code))
        .collect();
    build_modules_as_crate(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")),
        "random-outputs",
        &modules,
    );
}
