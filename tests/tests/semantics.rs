//! The model's schema semantics (`Type::node`, `Model::nodes`) on real documents: every type made
//! from a schema knows where its node is, every nested type's place resolves in its named
//! type's node, and what the documents say (rules, constraints, list types) arrives in the
//! nodes, counted against the documents themselves.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kubeforge::view::{Kind, Model};
use kubeforge_runtime::schema::{Additional, ListType, Node};
use serde_json::Value;

fn model(inputs: &[PathBuf]) -> Model {
    let mut config = kubeforge::Config::new();
    for input in inputs {
        config = config.input(input);
    }
    config.model().expect("the documents model")
}

/// Every node below `node` (itself included).
fn walk<'n>(node: &'n Node, out: &mut Vec<&'n Node>) {
    out.push(node);
    for child in node.properties.values() {
        walk(child, out);
    }
    if let Some(Additional::Schema(child)) = node.additional_properties.as_deref() {
        walk(child, out);
    }
    for child in node
        .items
        .iter()
        .chain(node.not.iter())
        .map(|b| &**b)
        .chain(&node.all_of)
        .chain(&node.one_of)
        .chain(&node.any_of)
    {
        walk(child, out);
    }
}

/// Checks that every type has semantics and every nested place resolves; returns the nodes
/// of the named types.
fn check_places(api: &Model) -> BTreeMap<usize, &Node> {
    let mut roots = BTreeMap::new();
    for ty in api.types() {
        // A nested type's node is the part of its named type's node at its place.
        let node = ty.node().unwrap_or_else(|| {
            panic!(
                "`{}` ({}) has no node, or its place does not resolve",
                ty.schema_name(),
                ty.origin().pointer
            )
        });
        match ty.nested_in() {
            None => {
                roots.insert(ty.index(), node);
            }
            Some(root) => {
                assert!(
                    root.nested_in().is_none(),
                    "`{}`: its root has no node of its own",
                    ty.schema_name()
                );
                assert_ne!(ty.kind(), Kind::Extern);
            }
        }
    }
    roots
}

/// Every value of `key` anywhere in a JSON document.
fn count_key(value: &Value, key: &str, found: &mut Vec<Value>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if k == key {
                    found.push(v.clone());
                }
                count_key(v, key, found);
            }
        }
        Value::Array(items) => {
            for item in items {
                count_key(item, key, found);
            }
        }
        _ => {}
    }
}

fn yaml_documents(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("read the CRDs");
    serde_saphyr::from_multiple(&text).expect("YAML")
}

#[test]
fn istio_rules_and_constraints_arrive_in_the_nodes() {
    let Some(dir) = kubeforge_tests::validation_data(
        "semantics",
        &["istio/customresourcedefinitions.gen.yaml"],
    ) else {
        return;
    };
    let file = dir.join("istio/customresourcedefinitions.gen.yaml");
    let api = model(std::slice::from_ref(&file));
    let roots = check_places(&api);
    let mut nodes = Vec::new();
    // The CRDs' own nodes (the built-in meta types they reference have some too).
    for (id, node) in &roots {
        let origin = api
            .type_at(*id)
            .expect("a type")
            .origin()
            .file
            .to_string_lossy();
        if origin.contains("customresourcedefinitions.gen.yaml") {
            walk(node, &mut nodes);
        }
    }
    let rules: usize = nodes.iter().map(|n| n.rules.len()).sum();
    let patterns = nodes.iter().filter(|n| n.pattern.is_some()).count();
    let maps = nodes
        .iter()
        .filter(|n| n.list_type == Some(ListType::Map))
        .count();
    // The same counts, read off the served versions of the documents themselves.
    let (mut want_rules, mut want_patterns, mut want_maps) = (0, 0, 0);
    for crd in yaml_documents(&file) {
        for version in crd
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(schema) = version.pointer("/schema/openAPIV3Schema") else {
                continue;
            };
            let mut found = Vec::new();
            count_key(schema, "x-kubernetes-validations", &mut found);
            want_rules += found
                .iter()
                .filter_map(Value::as_array)
                .map(Vec::len)
                .sum::<usize>();
            let mut found = Vec::new();
            count_key(schema, "pattern", &mut found);
            want_patterns += found.iter().filter(|v| v.is_string()).count();
            let mut found = Vec::new();
            count_key(schema, "x-kubernetes-list-type", &mut found);
            want_maps += found.iter().filter(|v| *v == "map").count();
        }
    }
    assert!(want_rules > 300, "{want_rules}");
    assert_eq!(rules, want_rules);
    assert_eq!(patterns, want_patterns);
    assert_eq!(maps, want_maps);
}

#[test]
fn every_type_of_the_corpus_knows_its_node() {
    let Some(corpus) = kubeforge_tests::corpus(
        "semantics",
        &[
            "kubernetes/swagger.json",
            "crds/gateway-api-HTTPRoute.yaml",
            "crds/cert-manager-Certificate.yaml",
            "openshift/openapi.json",
        ],
    ) else {
        return;
    };
    for inputs in [
        vec![corpus.join("kubernetes/swagger.json")],
        vec![corpus.join("crds/gateway-api-HTTPRoute.yaml")],
        vec![corpus.join("crds/cert-manager-Certificate.yaml")],
    ] {
        let api = model(&inputs);
        let roots = check_places(&api);
        assert!(!roots.is_empty());
    }
    // Kubernetes' merge semantics arrive: a Pod's containers are a map list keyed by name.
    let api = model(&[corpus.join("kubernetes/swagger.json")]);
    let spec = api.schema("io.k8s.api.core.v1.PodSpec").expect("PodSpec");
    assert!(spec.nested_in().is_none());
    let node = spec.node().expect("PodSpec has a node");
    let containers = &node.properties["containers"];
    assert_eq!(containers.list_type, Some(ListType::Map));
    assert_eq!(containers.list_map_keys, ["name"]);
    assert_eq!(containers.patch_merge_key.as_deref(), Some("name"));
    let item = containers.items.as_ref().expect("items");
    let container = item.reference.expect("a reference to Container");
    assert_eq!(
        api.type_at(container).expect("a type").schema_name(),
        "io.k8s.api.core.v1.Container"
    );
}
