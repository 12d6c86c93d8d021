//! Small diffs by construction: a one-field change to a schema changes only the lines of
//! that field in the generated tree (its struct field and docs, its serde code, its builder
//! setter). Each edit is made to a copy of `schemas/` in memory, both trees are generated,
//! and the changed lines are counted file by file.

use std::collections::BTreeMap;
use std::path::PathBuf;

use kubeforge::Config;
use serde_json::{Value, json};

const SCHEMAS: [&str; 3] = [
    "coordination.k8s.io_v1.json",
    "core_v1.json",
    "image.openshift.io_v1.json",
];

fn documents() -> BTreeMap<&'static str, Value> {
    let dir = kubeforge_tests::workspace_root().join("schemas");
    SCHEMAS
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(dir.join(name)).expect("read schema");
            (*name, serde_json::from_str(&text).expect("schema is JSON"))
        })
        .collect()
}

fn generate(documents: &BTreeMap<&'static str, Value>) -> BTreeMap<PathBuf, String> {
    let config = documents.iter().fold(Config::new(), |config, (name, doc)| {
        config.input_bytes(
            PathBuf::from("schemas").join(name),
            serde_json::to_vec_pretty(doc).expect("JSON"),
        )
    });
    config.generate().expect("generates").files().clone()
}

/// Changed lines (removed plus inserted) per file that differs.
fn changed_lines(
    old: &BTreeMap<PathBuf, String>,
    new: &BTreeMap<PathBuf, String>,
) -> BTreeMap<PathBuf, (usize, String)> {
    let mut out = BTreeMap::new();
    for path in old.keys().chain(new.keys()) {
        let (a, b) = (
            old.get(path).map_or("", String::as_str),
            new.get(path).map_or("", String::as_str),
        );
        if a == b {
            continue;
        }
        let count = similar::TextDiff::from_lines(a, b)
            .iter_all_changes()
            .filter(|c| c.tag() != similar::ChangeTag::Equal)
            .count();
        let diff = similar::TextDiff::from_lines(a, b)
            .unified_diff()
            .context_radius(1)
            .to_string();
        out.insert(path.clone(), (count, diff));
    }
    out
}

/// PodSpec, in `core_v1.json`.
fn pod_spec<'a>(documents: &'a mut BTreeMap<&'static str, Value>) -> &'a mut Value {
    &mut documents.get_mut("core_v1.json").expect("core_v1.json")["components"]["schemas"]["io.k8s.api.core.v1.PodSpec"]
}

#[track_caller]
fn check(edit: &str, edit_fn: impl FnOnce(&mut Value), max_lines: usize) -> usize {
    let old_docs = documents();
    let mut new_docs = old_docs.clone();
    edit_fn(pod_spec(&mut new_docs));
    let mut changed = changed_lines(&generate(&old_docs), &generate(&new_docs));
    // The root's schema table (`__SCHEMAS`, data read at first use) holds each type's
    // validation schema on a line of its own: a change to PodSpec's schema replaces that one
    // line, and nothing else of lib.rs.
    if let Some((count, diff)) = changed.remove(&PathBuf::from("lib.rs")) {
        let lines: Vec<&str> = diff
            .lines()
            .filter(|l| l.starts_with(['-', '+']) && !l.starts_with("---") && !l.starts_with("+++"))
            .collect();
        assert!(
            count == 2 && lines.iter().all(|l| l[1..].starts_with("    J\\t")),
            "{edit}: lib.rs may change only in PodSpec's line of the schema table:\n{diff}"
        );
    }
    let files: Vec<&PathBuf> = changed.keys().collect();
    assert_eq!(
        files,
        [&PathBuf::from("api/core/v1/pod_spec.rs")],
        "{edit}: only PodSpec's file may change: {:?}",
        changed.keys().collect::<Vec<_>>()
    );
    let lines: usize = changed.values().map(|(count, _)| count).sum();
    let diff: String = changed.values().map(|(_, diff)| diff.as_str()).collect();
    assert!(
        lines <= max_lines,
        "{edit}: {lines} changed lines, at most {max_lines} expected:\n{diff}"
    );
    kubeforge_tests::notice(&format!("small_diffs: {edit}: {lines} changed lines"));
    lines
}

#[test]
fn one_field_changes_only_its_own_lines() {
    // A new optional field: its declaration and doc, a serialize and a deserialize arm, and
    // a builder setter.
    // It goes in the middle (after `nodeSelector`), where renumbering would show.
    check(
        "add PodSpec.nodeZone",
        |spec| {
            let properties = spec["properties"].as_object_mut().expect("properties");
            let mut rebuilt = serde_json::Map::new();
            for (name, value) in std::mem::take(properties) {
                let after = name == "nodeSelector";
                rebuilt.insert(name, value);
                if after {
                    rebuilt.insert(
                        "nodeZone".to_owned(),
                        json!({"description": "The zone to run in.", "type": "string"}),
                    );
                }
            }
            assert!(rebuilt.contains_key("nodeZone"));
            *properties = rebuilt;
        },
        24,
    );
    // A removed field: the same lines, gone.
    check(
        "remove PodSpec.hostname",
        |spec| {
            spec["properties"]
                .as_object_mut()
                .expect("properties")
                // `shift_remove` keeps the order of the others (`remove` swaps the last in).
                .shift_remove("hostname")
                .expect("PodSpec has a hostname");
        },
        24,
    );
    // A retyped field (int32 → int64): the lines that name its type.
    check(
        "retype PodSpec.priority",
        |spec| {
            assert_eq!(spec["properties"]["priority"]["format"], "int32");
            spec["properties"]["priority"]["format"] = json!("int64");
        },
        6,
    );
}
