//! `server/data/builtin-value-structs.txt` lists the fields the built-in types hold by value
//! (Go writes them as `{}` when empty): it is derived from Kubernetes' OpenAPI v3 documents
//! in the corpus, where such a property has `default: {}`, and this test fails with the
//! difference when the file and the documents disagree. `KUBEFORGE_BLESS=1` rewrites the
//! file (its `#` header kept). Without the corpus the test prints `SKIPPED: …`, and fails in
//! CI.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

const API_PREFIX: &str = "io.k8s.api.";

fn derived(corpus: &Path) -> BTreeSet<(String, String)> {
    let mut pairs = BTreeSet::new();
    for file in kubeforge_tests::sorted_files(&corpus.join("kubernetes/v3"), "json") {
        let text = std::fs::read_to_string(&file).expect("a corpus document");
        let document: Value = serde_json::from_str(&text).expect("JSON");
        let Some(schemas) = document
            .pointer("/components/schemas")
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (name, schema) in schemas {
            let name = name.strip_prefix(API_PREFIX).unwrap_or(name);
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                continue;
            };
            for (field, property) in properties {
                if property
                    .get("default")
                    .and_then(Value::as_object)
                    .is_some_and(serde_json::Map::is_empty)
                {
                    pairs.insert((name.to_owned(), field.clone()));
                }
            }
        }
    }
    pairs
}

#[test]
fn value_structs_match_the_openapi_v3_documents() {
    let test = "value_structs_match_the_openapi_v3_documents";
    let Some(corpus) = kubeforge_tests::corpus(test, &["kubernetes/v3"]) else {
        return;
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/builtin-value-structs.txt");
    let text = std::fs::read_to_string(&path).expect("the data file");
    let listed: BTreeSet<(String, String)> = text
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            Some((words.next()?.to_owned(), words.next()?.to_owned()))
        })
        .collect();
    let derived = derived(&corpus);
    assert!(
        derived.len() > 300,
        "the documents name {} fields",
        derived.len()
    );
    if listed == derived {
        return;
    }
    if std::env::var_os("KUBEFORGE_BLESS").is_some() {
        let width = derived.iter().map(|(ty, _)| ty.len()).max().unwrap_or(0);
        let mut out: String = text
            .lines()
            .take_while(|line| line.starts_with('#'))
            .map(|line| format!("{line}\n"))
            .collect();
        for (ty, field) in &derived {
            out.push_str(&format!("{ty:width$}  {field}\n"));
        }
        std::fs::write(&path, out).expect("the data file is writable");
        return;
    }
    let missing: Vec<_> = derived.difference(&listed).collect();
    let extra: Vec<_> = listed.difference(&derived).collect();
    panic!(
        "{} disagrees with the documents (KUBEFORGE_BLESS=1 rewrites it):\nmissing {missing:#?}\nnot in the documents {extra:#?}",
        path.display()
    );
}
