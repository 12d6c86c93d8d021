//! `server/data/builtin-value-scalars.txt` lists the scalar fields of the built-in types that
//! Go writes at their zero value (no `omitempty`), derived from the Go types of Kubernetes
//! 1.36 (its header names the commits). The Go sources are not in the corpus, so this test
//! holds the file to the two documents that are, which say the same thing in their own way:
//!
//! - Kubernetes 1.36's `swagger.json`: each listed field is a property of its type there, of
//!   the JSON type of its zero (so the server never adds a field the schema lacks);
//! - Kubernetes 1.35's OpenAPI v3 documents, where openapi-gen's `mustEnforceDefault` gives
//!   exactly these fields a `default` that is their zero: a listed field has one, and a
//!   field with one is listed, unless 1.36 no longer has it or it is one of the fields with
//!   `omitempty` whose `+default` marker names the zero ([`EXPLICIT`]).
//!
//! A new release that adds such a field fails here until the file lists it. Without the
//! corpus the test prints `SKIPPED: …`, and fails in CI.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

const API_PREFIX: &str = "io.k8s.api.";

/// Fields with `omitempty` and a `+default` marker that names the zero value (`+default=""`,
/// `+default=0`, `+default=false`): openapi-gen writes the marker's `default`, and Go leaves
/// the field out when it holds it.
const EXPLICIT: &[(&str, &str)] = &[
    ("autoscaling.v1.ScaleSpec", "replicas"),
    ("core.v1.AzureDiskVolumeSource", "readOnly"),
    ("core.v1.ConfigMapEnvSource", "name"),
    ("core.v1.ConfigMapKeySelector", "name"),
    ("core.v1.ConfigMapProjection", "name"),
    ("core.v1.ConfigMapVolumeSource", "name"),
    ("core.v1.FileKeySelector", "optional"),
    ("core.v1.GRPCAction", "service"),
    ("core.v1.LocalObjectReference", "name"),
    ("core.v1.ReplicationControllerSpec", "minReadySeconds"),
    ("core.v1.SecretEnvSource", "name"),
    ("core.v1.SecretKeySelector", "name"),
    ("core.v1.SecretProjection", "name"),
];

type Field = (String, String);

fn short(name: &str) -> &str {
    name.strip_prefix(API_PREFIX).unwrap_or(name)
}

fn full(name: &str) -> String {
    if name.starts_with("io.k8s.") {
        name.to_owned()
    } else {
        format!("{API_PREFIX}{name}")
    }
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("a corpus document");
    serde_json::from_str(&text).expect("JSON")
}

/// The listed `(type, field, zero)` triples.
fn listed() -> Vec<(String, String, Value)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/builtin-value-scalars.txt");
    let text = std::fs::read_to_string(&path).expect("the data file");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let [ty, field, zero] = words[..] else {
                panic!("{line:?}: expected <type> <field> <zero>");
            };
            let zero = serde_json::from_str(zero).unwrap_or_else(|e| panic!("{line:?}: {e}"));
            (ty.to_owned(), field.to_owned(), zero)
        })
        .collect()
}

/// The properties of the v3 documents whose `default` is a scalar zero.
fn zero_defaults(corpus: &Path) -> BTreeSet<Field> {
    let mut fields = BTreeSet::new();
    for file in kubeforge_tests::sorted_files(&corpus.join("kubernetes/v3"), "json") {
        let document = read_json(&file);
        let Some(schemas) = document
            .pointer("/components/schemas")
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (name, schema) in schemas {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                continue;
            };
            for (field, property) in properties {
                let zero = matches!(
                    property.get("default"),
                    Some(Value::String(s)) if s.is_empty()
                ) || matches!(property.get("default"), Some(Value::Bool(false)))
                    || property
                        .get("default")
                        .and_then(Value::as_f64)
                        .is_some_and(|n| n == 0.0);
                if zero {
                    fields.insert((short(name).to_owned(), field.clone()));
                }
            }
        }
    }
    fields
}

#[test]
fn value_scalars_match_the_documents() {
    let test = "value_scalars_match_the_documents";
    let Some(corpus) = kubeforge_tests::corpus(test, &["kubernetes/v3", "kubernetes/swagger.json"])
    else {
        return;
    };
    let swagger = read_json(&corpus.join("kubernetes/swagger.json"));
    let definitions = &swagger["definitions"];
    let listed = listed();
    assert!(listed.len() > 400, "{} fields", listed.len());
    let mut problems = Vec::new();
    for (ty, field, zero) in &listed {
        let property = definitions
            .get(full(ty))
            .and_then(|d| d.pointer(&format!("/properties/{field}")));
        let ty_ok = matches!(
            (property.and_then(|p| p["type"].as_str()), zero),
            (Some("string"), Value::String(_))
                | (Some("boolean"), Value::Bool(_))
                | (Some("integer" | "number"), Value::Number(_))
        );
        if !ty_ok {
            problems.push(format!(
                "{ty} {field} {zero}: swagger.json has {}",
                property.map_or("no such property".into(), Value::to_string)
            ));
        }
    }
    let v3 = zero_defaults(&corpus);
    let mut v3_properties = BTreeSet::new();
    for file in kubeforge_tests::sorted_files(&corpus.join("kubernetes/v3"), "json") {
        let document = read_json(&file);
        for (name, schema) in document
            .pointer("/components/schemas")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            for field in schema["properties"].as_object().into_iter().flatten() {
                v3_properties.insert((short(name).to_owned(), field.0.clone()));
            }
        }
    }
    let listed: BTreeSet<Field> = listed
        .into_iter()
        .map(|(ty, field, _)| (ty, field))
        .collect();
    for field in &listed {
        if v3_properties.contains(field) && !v3.contains(field) {
            problems.push(format!(
                "{} {}: listed, but the v3 documents give it no zero default",
                field.0, field.1
            ));
        }
    }
    let explicit: BTreeSet<Field> = EXPLICIT
        .iter()
        .map(|(ty, field)| ((*ty).to_owned(), (*field).to_owned()))
        .collect();
    for field in v3.difference(&listed) {
        let in_136 = definitions
            .get(full(&field.0))
            .and_then(|d| d.pointer(&format!("/properties/{}", field.1)))
            .is_some();
        if in_136 && !explicit.contains(field) {
            problems.push(format!(
                "{} {}: a zero default in the v3 documents, not listed",
                field.0, field.1
            ));
        }
    }
    for field in explicit.difference(&v3) {
        problems.push(format!(
            "{} {}: in EXPLICIT, but the v3 documents give it no zero default",
            field.0, field.1
        ));
    }
    assert!(
        problems.is_empty(),
        "server/data/builtin-value-scalars.txt disagrees with the documents:\n{}",
        problems.join("\n")
    );
}
