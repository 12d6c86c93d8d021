//! Property tests over random valid schemas: generation always succeeds, the output always
//! parses as Rust, every named schema becomes one struct whose fields are its properties
//! (JSON names exact and in order, required exactly where the schema says, Rust names
//! unique identifiers), and a sample of the outputs compiles and round-trips instances of
//! every schema losslessly (`kubeforge_tests::instances`, through the round-trip harness the
//! lossless test uses, the order of unknown keys included). The number of cases is bounded
//! (`PROPTEST_CASES` overrides it) so CI stays fast.

use std::fs;

use kubeforge::view::{Field, Kind, Role};
use kubeforge::{Config, Layout};
use kubeforge_tests::instances::{self, Options, SchemaSet};
use kubeforge_tests::{build_modules_as_crate, claims, harness};
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

/// The generated code of `document` as the module `module`, and the Rust path of each named
/// schema's type below the module, by schema name.
fn generate(document: &Value, module: &str) -> Result<(String, Vec<(String, String)>), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = dir.path().join("random.json");
    fs::write(&path, document.to_string()).map_err(|e| e.to_string())?;
    let config = Config::new()
        .input(&path)
        .layout(Layout::SingleFile)
        .root_path(format!("crate::{module}"));
    let output = config
        .generate()
        .map_err(|e| format!("generation failed for\n{document:#}\n{e}"))?;
    let api = config
        .model()
        .map_err(|e| format!("the model failed for\n{document:#}\n{e}"))?;
    let mut types = Vec::new();
    for (name, schema) in schemas(document) {
        let found: Vec<_> = api
            .types()
            // By where it is defined: a nested type's `schema_name` is its parent's plus the
            // property path, which for a property named "" is the parent's own.
            .filter(|t| t.origin().pointer == format!("/components/schemas/{name}"))
            .collect();
        let [ty] = found[..] else {
            return Err(format!(
                "{name}: {} types, not one, in\n{document:#}",
                found.len()
            ));
        };
        if ty.kind() != Kind::Struct {
            return Err(format!("{name}: not a struct ({ty:?}) in\n{document:#}"));
        }
        let fields: Vec<Field<'_>> = ty.fields().collect();
        check_fields(name, schema, &fields).map_err(|e| format!("{e} in\n{document:#}"))?;
        types.push((name.clone(), ty.path()));
    }
    let code = output.files().values().next().cloned().unwrap_or_default();
    Ok((code, types))
}

/// The named schemas of a random document.
fn schemas(document: &Value) -> impl Iterator<Item = (&String, &Value)> {
    document["components"]["schemas"]
        .as_object()
        .into_iter()
        .flatten()
}

/// A struct's fields are the schema's properties: one each, with the exact JSON name, in the
/// schema's order, required exactly when the schema requires it, with a Rust name that is an
/// identifier and unique; then one field for the other keys (unknown fields are kept).
fn check_fields(name: &str, schema: &Value, fields: &[Field<'_>]) -> Result<(), String> {
    let properties: Vec<&str> = schema["properties"]
        .as_object()
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let (plain, extra): (Vec<&Field<'_>>, Vec<_>) =
        fields.iter().partition(|f| f.role() != Role::Extra);
    let json_names: Vec<&str> = plain.iter().map(|f| f.json_name()).collect();
    if json_names != properties {
        return Err(format!(
            "{name}: fields {json_names:?} for properties {properties:?}"
        ));
    }
    for field in &plain {
        if field.required() != required.contains(&field.json_name()) {
            return Err(format!(
                "{name}.{:?}: required is {}, the schema's list is {required:?}",
                field.json_name(),
                field.required()
            ));
        }
    }
    let mut rust_names = std::collections::BTreeSet::new();
    for field in fields {
        if syn::parse_str::<syn::Ident>(field.rust_name()).is_err() {
            return Err(format!("{name}: {:?} is no identifier", field.rust_name()));
        }
        if !rust_names.insert(field.rust_name()) {
            return Err(format!(
                "{name}: the field name {:?} twice",
                field.rust_name()
            ));
        }
    }
    if extra.len() != 1 || fields.last().map(|f| f.role()) != Some(Role::Extra) {
        return Err(format!(
            "{name}: {} fields for unknown keys, not one last",
            extra.len()
        ));
    }
    Ok(())
}

/// `claims::PROPERTY_CASES` (the guide's count), or `PROPTEST_CASES` when set: an explicit
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
        let (code, _) = generate(&document, "sample").map_err(TestCaseError::fail)?;
        syn::parse_file(&code).map_err(|e| TestCaseError::fail(format!("output does not parse: {e}\n{code}")))?;
    }
}

/// Instances of each schema the sample's round trip sends, and as many again with fields
/// unknown to the types.
const INSTANCES: usize = 32;

/// Compiles the sample of random outputs as one crate (warnings denied), and round-trips
/// instances of every schema of every sample through its type: each comes back as sent (the
/// one normalization: `null` on a non-nullable optional field reads as absent), unknown keys
/// included and in order.
#[test]
fn a_sample_of_random_outputs_compiles_and_round_trips() {
    // A fixed seed, so the sample is the same on every run.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut modules = Vec::new();
    let mut sets = Vec::new();
    let mut arms = String::new();
    let mut roots: Vec<(usize, String)> = Vec::new();
    for i in 0..SAMPLE_SIZE {
        let module = format!("case{i}");
        let document = document().new_tree(&mut runner).expect("value").current();
        let (code, types) = generate(&document, &module).expect("generates");
        for (schema, path) in types {
            arms.push_str(&harness::arm(
                &format!("{module}#{schema}"),
                &format!("random_outputs::{module}::{path}"),
            ));
            roots.push((i, schema));
        }
        let mut set = SchemaSet::new();
        set.add_document(&document, &module).expect("a document");
        sets.push(set);
        modules.push((module, code));
    }
    let scratch = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    build_modules_as_crate(scratch, "random-outputs", &modules);
    let binary = kubeforge_tests::build_program(
        scratch,
        "random-outputs",
        "round-trip",
        &harness::program(&arms),
    );
    let sent: Vec<(usize, &str, bool, usize)> = roots
        .iter()
        .flat_map(|(i, schema)| {
            [false, true].into_iter().flat_map(move |unknown| {
                (0..INSTANCES).map(move |n| (*i, schema.as_str(), unknown, n))
            })
        })
        .collect();
    let instance = |number: usize| {
        let (i, schema, unknown, n) = sent[number];
        let options = Options {
            unknown_fields: unknown,
            ..Options::default()
        };
        let seed = instances::seed_for(&format!("case{i}{unknown}"), schema, n);
        let instance = instances::generate(&sets[i], schema, &options, seed);
        (format!("case{i}#{schema}"), instance)
    };
    let failures = harness::run(&binary, sent.len(), instance);
    let shown: Vec<String> = failures
        .iter()
        .take(10)
        .map(|(number, message)| {
            let (key, instance) = instance(*number);
            format!("{key}: {message}\n  input: {}", instance.input)
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} instances do not round-trip:\n{}",
        failures.len(),
        sent.len(),
        shown.join("\n")
    );
    // The sample is no vacuous one: it has schemas, and keys whose order is checked.
    assert!(roots.len() >= SAMPLE_SIZE, "{} schemas", roots.len());
    let ordered = (0..sent.len())
        .filter(|n| !instance(*n).1.order.is_empty())
        .count();
    assert!(
        ordered > sent.len() / 4,
        "{ordered} of {} instances check an order",
        sent.len()
    );
}
