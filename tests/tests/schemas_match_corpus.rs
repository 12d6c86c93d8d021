//! Checks the hand-written input documents in `schemas/` against the real API definitions.
//!
//! * Every schema in our documents must equal the real definition once all `description`
//!   keys are removed. Kubernetes types are compared with the Kubernetes 1.35 OpenAPI v3
//!   documents; OpenShift types (`com.github.openshift.*`) with the Swagger 2.0 definitions
//!   of `openshift/openapi.json`, converted to the OpenAPI v3 form a cluster serves
//!   (`#/components/schemas/` refs, a `$ref` with sibling keys wrapped in `allOf`, and
//!   `x-kubernetes-group-version-kind` on the top-level kinds).
//! * A schema that appears in several of our documents must be the same JSON value in each.
//! * Every `$ref` must resolve inside its own document.
//!
//! The corpus lives outside the repository (`../shared/corpus` beside the workspace); when a
//! file the comparison needs is missing, it prints `SKIPPED: …` naming the file (visible
//! without `--nocapture`), or fails in CI (`kubeforge_tests::corpus`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

const DOCUMENTS: [&str; 3] = [
    "core_v1.json",
    "coordination.k8s.io_v1.json",
    "image.openshift.io_v1.json",
];

const K8S_V3: [&str; 2] = [
    "kubernetes/v3/api__v1_openapi.json",
    "kubernetes/v3/apis__coordination.k8s.io__v1_openapi.json",
];

const OPENSHIFT: &str = "openshift/openapi.json";
const OPENSHIFT_PREFIX: &str = "com.github.openshift.";
const OPENSHIFT_IMAGE_PREFIX: &str = "com.github.openshift.api.image.v1.";
/// Kinds a cluster's `/openapi/v3/apis/image.openshift.io/v1` tags with a group-version-kind.
const OPENSHIFT_IMAGE_KINDS: [&str; 2] = ["ImageStream", "ImageStreamList"];

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn schemas_dir() -> PathBuf {
    manifest_dir().join("../schemas")
}

fn load(path: &Path) -> Value {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("cannot parse {}: {e}", path.display()))
}

fn load_documents() -> Vec<(&'static str, Value)> {
    DOCUMENTS
        .iter()
        .map(|name| (*name, load(&schemas_dir().join(name))))
        .collect()
}

fn schemas_of<'a>(doc: &'a Value, name: &str) -> &'a Map<String, Value> {
    doc.pointer("/components/schemas")
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("{name}: no components.schemas object"))
}

/// Removes every `description` keyword, keeping properties that happen to be named so.
fn strip_descriptions(value: &Value) -> Value {
    strip(value, false)
}

fn strip(value: &Value, is_properties_map: bool) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| is_properties_map || k.as_str() != "description")
                .map(|(k, v)| (k.clone(), strip(v, !is_properties_map && k == "properties")))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| strip(v, false)).collect()),
        other => other.clone(),
    }
}

/// Swagger 2.0 definition -> the OpenAPI v3 form served by a cluster: refs point into
/// `#/components/schemas/`, and a `$ref` with sibling keys becomes `allOf: [{$ref}]`.
fn to_v3(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut out: Map<String, Value> =
                map.iter().map(|(k, v)| (k.clone(), to_v3(v))).collect();
            if let Some(Value::String(target)) = out.remove("$ref") {
                let target =
                    Value::String(target.replace("#/definitions/", "#/components/schemas/"));
                if out.is_empty() {
                    out.insert("$ref".to_owned(), target);
                } else {
                    let mut reference = Map::new();
                    reference.insert("$ref".to_owned(), target);
                    out.insert(
                        "allOf".to_owned(),
                        Value::Array(vec![Value::Object(reference)]),
                    );
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(to_v3).collect()),
        other => other.clone(),
    }
}

fn openshift_v3(name: &str, swagger: &Value) -> Value {
    let mut value = to_v3(swagger);
    if let Some(kind) = name.strip_prefix(OPENSHIFT_IMAGE_PREFIX)
        && OPENSHIFT_IMAGE_KINDS.contains(&kind)
        && let Value::Object(map) = &mut value
    {
        map.insert(
            "x-kubernetes-group-version-kind".to_owned(),
            serde_json::json!([{"group": "image.openshift.io", "kind": kind, "version": "v1"}]),
        );
    }
    value
}

fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn short(value: Option<&Value>) -> String {
    match value {
        None => "<absent>".to_owned(),
        Some(v) => {
            let text = v.to_string();
            if text.chars().count() > 120 {
                let cut: String = text.chars().take(117).collect();
                format!("{cut}...")
            } else {
                text
            }
        }
    }
}

/// First place where two JSON values differ: a JSON pointer and the value on each side.
struct Difference {
    pointer: String,
    left: String,
    right: String,
}

impl Difference {
    fn describe(&self, left: &str, right: &str) -> String {
        let pointer = if self.pointer.is_empty() {
            "/"
        } else {
            self.pointer.as_str()
        };
        format!(
            "{pointer}: {left} = {}, {right} = {}",
            self.left, self.right
        )
    }
}

fn first_difference(left: &Value, right: &Value, pointer: &str) -> Option<Difference> {
    let here = |l: Option<&Value>, r: Option<&Value>, at: String| Difference {
        pointer: at,
        left: short(l),
        right: short(r),
    };
    match (left, right) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            keys.into_iter().find_map(|key| {
                let at = format!("{pointer}/{}", escape_pointer_token(key));
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => first_difference(x, y, &at),
                    (x, y) => Some(here(x, y, at)),
                }
            })
        }
        (Value::Array(a), Value::Array(b)) => {
            let common = a
                .iter()
                .zip(b)
                .enumerate()
                .find_map(|(i, (x, y))| first_difference(x, y, &format!("{pointer}/{i}")));
            common.or_else(|| {
                (a.len() != b.len()).then(|| Difference {
                    pointer: pointer.to_owned(),
                    left: format!("{} items", a.len()),
                    right: format!("{} items", b.len()),
                })
            })
        }
        _ if left == right => None,
        _ => Some(here(Some(left), Some(right), pointer.to_owned())),
    }
}

fn collect_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("$ref", Value::String(target)) => out.push(target.clone()),
                    _ => collect_refs(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

#[test]
fn schemas_match_corpus() {
    let needed: Vec<&str> = K8S_V3
        .iter()
        .chain(std::iter::once(&OPENSHIFT))
        .copied()
        .collect();
    let Some(corpus) = kubeforge_tests::corpus("schemas_match_corpus", &needed) else {
        return;
    };

    let mut kubernetes: BTreeMap<String, Value> = BTreeMap::new();
    for rel in K8S_V3 {
        let doc = load(&corpus.join(rel));
        for (name, schema) in schemas_of(&doc, rel) {
            if let Some(previous) = kubernetes.get(name) {
                assert_eq!(previous, schema, "{name} differs between corpus v3 files");
            }
            kubernetes.insert(name.clone(), schema.clone());
        }
    }
    let openshift_doc = load(&corpus.join(OPENSHIFT));
    let openshift = openshift_doc
        .get("definitions")
        .and_then(Value::as_object)
        .expect("openshift/openapi.json has no definitions");

    let mut failures = Vec::new();
    let mut checked = 0usize;
    for (doc_name, doc) in load_documents() {
        for (name, ours) in schemas_of(&doc, doc_name) {
            let real = if name.starts_with(OPENSHIFT_PREFIX) {
                openshift.get(name).map(|def| openshift_v3(name, def))
            } else {
                kubernetes.get(name).cloned()
            };
            let Some(real) = real else {
                failures.push(format!(
                    "{doc_name}: schema {name} does not exist in the corpus"
                ));
                continue;
            };
            checked += 1;
            let (ours, real) = (strip_descriptions(ours), strip_descriptions(&real));
            if let Some(diff) = first_difference(&ours, &real, "") {
                failures.push(format!(
                    "{doc_name}: schema {name} differs from the corpus at {}",
                    diff.describe("ours", "corpus")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} schemas do not match the corpus:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
    assert!(checked > 0, "no schema was compared");
}

#[test]
fn shared_schemas_are_identical_and_refs_resolve() {
    let documents = load_documents();
    let mut failures = Vec::new();

    let mut seen: BTreeMap<&str, (&str, &Value)> = BTreeMap::new();
    for (doc_name, doc) in &documents {
        for (name, schema) in schemas_of(doc, doc_name) {
            match seen.get(name.as_str()) {
                Some((first_doc, first)) => {
                    if let Some(diff) = first_difference(schema, first, "") {
                        failures.push(format!(
                            "shared schema {name} differs between {doc_name} and {first_doc} at {}",
                            diff.describe(doc_name, first_doc)
                        ));
                    }
                }
                None => {
                    seen.insert(name, (doc_name, schema));
                }
            }
        }
    }

    for (doc_name, doc) in &documents {
        let schemas = schemas_of(doc, doc_name);
        let mut refs = Vec::new();
        collect_refs(doc, &mut refs);
        for target in refs {
            let resolved = target
                .strip_prefix("#/components/schemas/")
                .is_some_and(|name| schemas.contains_key(name));
            if !resolved {
                failures.push(format!("{doc_name}: $ref {target} does not resolve"));
            }
        }
    }

    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
