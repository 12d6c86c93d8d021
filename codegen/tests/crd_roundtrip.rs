//! From CRD to crate and back: for every CRD file of the corpus (`../shared/corpus/crds`) and
//! of `../shared/extra-crds`, the generated code embeds each CRD (`CRD_JSON`, what `crd()`
//! parses) equal to the input document after the normalization the guide states
//! (`docs/src/guide/crd-roundtrip.md`): YAML read as JSON, key order aside.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The YAML and JSON files directly in `dir`, sorted.
fn crd_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the directory reads")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| {
            path.extension()
                .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
        })
        .collect();
    files.sort();
    files
}

/// Every CRD document of a file, by `metadata.name`.
fn input_crds(path: &Path) -> Vec<(String, Value)> {
    let text = std::fs::read_to_string(path).expect("the file reads");
    let documents: Vec<Value> = if text.trim_start().starts_with('{') {
        vec![serde_json::from_str(&text).expect("JSON")]
    } else {
        serde_saphyr::from_multiple(&text).expect("YAML")
    };
    documents
        .into_iter()
        .filter(|d| d.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition"))
        .map(|d| {
            let name = d
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .expect("a named CRD")
                .to_owned();
            (name, d)
        })
        .collect()
}

/// The text of every `CRD_JSON` literal (the raw strings; the other kinds of a CRD name the
/// one that holds it) in the generated files.
fn embedded(files: &std::collections::BTreeMap<PathBuf, String>) -> Vec<String> {
    const HEAD: &str = "pub const CRD_JSON: &'static str = r";
    let mut out = Vec::new();
    for text in files.values() {
        let mut rest = text.as_str();
        while let Some(start) = rest.find(HEAD) {
            let after = &rest[start + HEAD.len()..];
            let hashes = after.bytes().take_while(|b| *b == b'#').count();
            let body = &after[hashes + 1..];
            let close = format!("\"{}", "#".repeat(hashes));
            let end = body.find(&close).expect("the raw string ends");
            out.push(body[..end].to_owned());
            rest = &body[end..];
        }
    }
    out
}

/// The first JSON pointer where `a` and `b` differ (object keys in any order).
fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, value) in x {
                let here = format!("{at}/{key}");
                match y.get(key) {
                    Some(other) => {
                        if let Some(found) = first_difference(value, other, &here) {
                            return Some(found);
                        }
                    }
                    None => return Some(here),
                }
            }
            y.keys()
                .find(|key| !x.contains_key(*key))
                .map(|key| format!("{at}/{key}"))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(x, y, &format!("{at}/{i}"))),
        _ => (a != b).then(|| at.to_owned()),
    }
}

#[test]
fn every_crd_comes_back_from_its_crate_as_it_went_in() {
    let test = "every_crd_comes_back_from_its_crate_as_it_went_in";
    let dirs = [
        kubeforge_tests::corpus(test, &["crds"]).map(|corpus| corpus.join("crds")),
        kubeforge_tests::extra_crds(test, &[]),
    ];
    let mut checked = 0;
    for dir in dirs.into_iter().flatten() {
        for path in crd_files(&dir) {
            let inputs = input_crds(&path);
            let output = kubeforge::Config::new()
                .input(&path)
                .routes(false)
                .builders(false)
                .validation(false)
                .generate()
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let embedded = embedded(output.files());
            assert_eq!(
                embedded.len(),
                inputs.len(),
                "{}: one embedded CRD per input CRD",
                path.display()
            );
            for text in embedded {
                let back: Value = serde_json::from_str(&text).expect("CRD_JSON is JSON");
                let name = back
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .expect("the embedded CRD is named");
                let (_, input) = inputs
                    .iter()
                    .find(|(n, _)| n == name)
                    .unwrap_or_else(|| panic!("{}: no input CRD `{name}`", path.display()));
                if let Some(pointer) = first_difference(input, &back, "") {
                    panic!(
                        "{}: the embedded CRD `{name}` differs from the input at {pointer}",
                        path.display()
                    );
                }
                checked += 1;
            }
        }
    }
    eprintln!("{checked} CRDs checked");
}

/// The same group-kind in two files: the crate gives back what the API server holds after
/// both are applied in order (the last one, whole), or an error where the last one drops a
/// version whose types were generated.
#[test]
fn a_crd_in_two_files_comes_back_as_applied_in_order() {
    let crd = |versions: &[&str], label: &str| {
        let versions: Vec<Value> = versions
            .iter()
            .enumerate()
            .map(|(i, v)| {
                serde_json::json!({
                    "name": v, "served": true, "storage": i == 0,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                        "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}
                    }}}
                })
            })
            .collect();
        serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com", "labels": {"release": label}},
            "spec": {
                "group": "example.com",
                "names": {"kind": "Widget", "plural": "widgets", "shortNames": ["wd"]},
                "scope": "Namespaced",
                "versions": versions
            }
        })
        .to_string()
    };
    let generate = |first: &str, second: &str| {
        kubeforge::Config::new()
            .input_bytes("a.json", first.as_bytes())
            .input_bytes("b.json", second.as_bytes())
            .routes(false)
            .generate()
    };
    // The later document serves every version: it is the CRD.
    let output = generate(&crd(&["v1"], "one"), &crd(&["v1", "v2"], "two")).expect("generates");
    let embedded = embedded(output.files());
    assert_eq!(embedded.len(), 1);
    let back: Value = serde_json::from_str(&embedded[0]).expect("JSON");
    assert_eq!(
        back.pointer("/metadata/labels/release"),
        Some(&Value::from("two"))
    );
    // The later one drops `v2`, whose types come from the first: no one CRD.
    let error = generate(&crd(&["v1", "v2"], "one"), &crd(&["v1"], "two"))
        .expect_err("v2 has no CRD")
        .to_string();
    assert!(
        error.contains("expected the CRD `widgets.example.com` to serve version `v2`"),
        "{error}"
    );
}
