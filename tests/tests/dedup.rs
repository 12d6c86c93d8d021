//! One type per shape (the guide, `docs/src/reference/shared-types.md`): the type counts of the corpus CRDs,
//! the golden `shared_shapes` on its generated code, the naming rule's stability, the
//! Kubernetes types of the inputs and of `--kube`, the subset rule, near misses, and
//! `--no-dedup`.

use std::path::{Path, PathBuf};

use kubeforge::Config;
use kubeforge::view::{Model, Type};
use kubeforge_tests::{claims, corpus, workspace_root};
use serde_json::{Value, json};

/// The types a CRD generates, beside the meta types every CRD brings along.
fn crd_types(api: &Model) -> Vec<Type<'_>> {
    api.types()
        .filter(|t| t.module().first().is_none_or(|m| m != "apimachinery"))
        .collect()
}

fn model_of(path: &Path, dedup: bool) -> Model {
    Config::new()
        .input(path)
        .dedup(dedup)
        .model()
        .unwrap_or_else(|e| panic!("{} does not model:\n{e}", path.display()))
}

#[test]
fn corpus_crd_type_counts() {
    let files = [
        "crds/cert-manager-Certificate.yaml",
        "crds/crossplane-CompositeResourceDefinition.yaml",
        "crds/gateway-api-HTTPRoute.yaml",
        "crds/knative-Service.yaml",
        "crds/prometheus-operator-ServiceMonitor.yaml",
    ];
    let Some(dir) = corpus("corpus_crd_type_counts", &files) else {
        return;
    };
    // (file, types with dedup, types without): enums, unions and list kinds included.
    let expected = [
        ("crds/cert-manager-Certificate.yaml", 31, 33),
        ("crds/crossplane-CompositeResourceDefinition.yaml", 48, 54),
        ("crds/gateway-api-HTTPRoute.yaml", 64, 124),
        ("crds/knative-Service.yaml", 44, 60),
        ("crds/prometheus-operator-ServiceMonitor.yaml", 30, 56),
    ];
    let mut actual = Vec::new();
    for (file, _, _) in expected {
        let path = dir.join(file);
        let on = crd_types(&model_of(&path, true)).len();
        let off = crd_types(&model_of(&path, false)).len();
        actual.push((file, on, off));
    }
    assert_eq!(actual, expected);
}

/// The CRDs of `tests/extra-crds/SOURCE.md` (a failure in CI when missing, as the corpus).
fn extra_crds(test: &str) -> Option<PathBuf> {
    kubeforge_tests::extra_crds(test, &["argo-Workflow.yaml"])
}

#[test]
fn extra_crd_type_counts() {
    let Some(dir) = extra_crds("extra_crd_type_counts") else {
        return;
    };
    // (file, types with dedup, types without, Kubernetes-named types among them)
    let expected = [
        (
            "argo-Workflow.yaml",
            claims::ARGO_TYPES,
            claims::ARGO_TYPES_NO_DEDUP,
            claims::ARGO_KNOWN,
        ),
        ("prometheus-operator-Prometheus.yaml", 188, 506, 57),
        ("istio-crd-all.gen.yaml", 483, 1033, 6),
    ];
    let mut actual = Vec::new();
    for (file, _, _, _) in expected {
        let path = dir.join(file);
        let api = model_of(&path, true);
        let types = crd_types(&api);
        let known = types
            .iter()
            .filter(|t| t.schema_name().starts_with("io.k8s."))
            .count();
        let off = crd_types(&model_of(&path, false)).len();
        actual.push((file, types.len(), off, known));
    }
    assert_eq!(actual, expected);
}

/// The golden input with two identical nested objects (`primary`, `backup`, `status.active`,
/// `stages[].target`), an enum in each, and embedded core types.
fn golden_crd() -> Value {
    let path = workspace_root().join("tests/golden/shared_shapes.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("golden input")).expect("JSON")
}

fn model_of_value(crd: &Value, extra: &[&str], configure: impl Fn(Config) -> Config) -> Model {
    let mut config = Config::new().input_bytes("relay.json", crd.to_string());
    for input in extra {
        config = config.input(workspace_root().join(input));
    }
    configure(config)
        .model()
        .unwrap_or_else(|e| panic!("does not model:\n{e}"))
}

/// The Rust names of the types in the CRD's module, sorted.
fn crd_names(api: &Model) -> Vec<String> {
    let mut names: Vec<String> = api
        .types()
        .filter(|t| t.module().first().is_some_and(|m| m == "io"))
        .map(|t| t.name().to_owned())
        .collect();
    names.sort();
    names
}

/// The type of property `path` (dotted, through lists and options) below the type `root`.
fn type_at<'a>(api: &'a Model, root: &str, path: &str) -> Type<'a> {
    let mut ty = api
        .types()
        .find(|t| t.name() == root)
        .unwrap_or_else(|| panic!("no type {root}"));
    for property in path.split('.') {
        let field = ty
            .field(property)
            .unwrap_or_else(|| panic!("{ty:?} has no property {property}"));
        let mut shape = field.shape();
        ty = loop {
            if let Some(ty) = shape.ty() {
                break ty;
            }
            shape = shape
                .item()
                .unwrap_or_else(|| panic!("{property} is a {shape}"));
        };
    }
    ty
}

fn spec(crd: &mut Value) -> &mut serde_json::Map<String, Value> {
    crd.pointer_mut("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties")
        .and_then(Value::as_object_mut)
        .expect("spec properties")
}

const SHARED: [&str; 8] = [
    "ConfigMapKeySelector",
    "LabelSelector",
    "LabelSelectorRequirement",
    "RelaySpecBackup",
    "RelaySpecBackupProtocol",
    "RelaySpecEnv",
    "RelaySpecEnvValueFrom",
    "SecretKeySelector",
];

#[test]
fn one_type_per_shape_named_by_the_shallowest_occurrence() {
    let api = model_of_value(&golden_crd(), &[], |c| c);
    let names = crd_names(&api);
    for name in SHARED {
        assert!(
            names.contains(&name.to_owned()),
            "{name} missing: {names:?}"
        );
    }
    for path in ["primary", "backup", "stages.target"] {
        assert_eq!(type_at(&api, "RelaySpec", path).name(), "RelaySpecBackup");
    }
    assert_eq!(
        type_at(&api, "RelayStatus", "active").name(),
        "RelaySpecBackup"
    );
    assert_eq!(
        type_at(&api, "RelaySpec", "stages.env").name(),
        "RelaySpecEnv"
    );
    let shared = type_at(&api, "RelaySpec", "primary");
    let doc = shared.description().unwrap_or_default();
    assert!(doc.contains("Used in 4 places:"), "{doc}");
    assert!(
        doc.contains("- `io.example.v1.Relay.status.active`"),
        "{doc}"
    );
    assert!(doc.contains("The copies' descriptions differ"), "{doc}");
    // Kubernetes' shapes, told apart by property name where two types share one.
    let value_from = "env.valueFrom";
    assert_eq!(
        type_at(&api, "RelaySpec", &format!("{value_from}.configMapKeyRef")).name(),
        "ConfigMapKeySelector"
    );
    assert_eq!(
        type_at(&api, "RelaySpec", &format!("{value_from}.secretKeyRef")).name(),
        "SecretKeySelector"
    );
    // A shape that is exactly Kubernetes' `LabelSelector` is the companion crate's.
    assert!(
        type_at(&api, "RelaySpec", "selector").extern_path()
            == Some("::kubeforge_meta::apimachinery::pkg::apis::meta::v1::LabelSelector"),
        "{:?}",
        type_at(&api, "RelaySpec", "selector")
    );
    // With local meta types, it is generated here, under Kubernetes' names.
    let local = model_of_value(&golden_crd(), &[], |c| c.companion_meta(false));
    assert_eq!(
        type_at(&local, "RelaySpec", "selector.matchExpressions").name(),
        "LabelSelectorRequirement"
    );
}

#[test]
fn unrelated_changes_rename_no_shared_type() {
    let before = model_of_value(&golden_crd(), &[], |c| c);
    let mut crd = golden_crd();
    let properties = spec(&mut crd);
    // A new shape first in document order, at the shallowest depth.
    let mut reordered = serde_json::Map::new();
    reordered.insert(
        "aardvark".to_owned(),
        json!({"type": "object", "properties": {"host": {"type": "string"}}}),
    );
    // The rest in reverse order, a property added to the stages' items.
    for (name, schema) in properties.iter().rev() {
        reordered.insert(name.clone(), schema.clone());
    }
    reordered["stages"]["items"]["properties"]["weight"] = json!({"type": "integer"});
    *properties = reordered;
    let after = model_of_value(&crd, &[], |c| c);
    let names = crd_names(&after);
    for name in SHARED {
        assert!(
            names.contains(&name.to_owned()),
            "{name} renamed: {names:?}"
        );
    }
    assert_eq!(
        crd_names(&before)
            .into_iter()
            .filter(|n| !n.starts_with("RelaySpecStages"))
            .collect::<Vec<_>>(),
        names
            .into_iter()
            .filter(|n| !n.starts_with("RelaySpecStages") && !n.starts_with("RelaySpecAardvark"))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_shallower_occurrence_names_the_shared_type() {
    // The documented rule: shallowest first, then by schema path (`spec.alpha` before
    // `spec.backup`), so the name follows the occurrences' content, not their order.
    let mut crd = golden_crd();
    let properties = spec(&mut crd);
    let endpoint = properties["primary"].clone();
    properties.insert("alpha".to_owned(), endpoint);
    let api = model_of_value(&crd, &[], |c| c);
    assert_eq!(
        type_at(&api, "RelaySpec", "primary").name(),
        "RelaySpecAlpha"
    );
    assert_eq!(
        type_at(&api, "RelayStatus", "active").name(),
        "RelaySpecAlpha"
    );
}

#[test]
fn no_dedup_names_every_path() {
    let api = model_of_value(&golden_crd(), &[], |c| c.dedup(false));
    let names = crd_names(&api);
    for name in [
        "RelaySpecPrimary",
        "RelaySpecBackup",
        "RelayStatusActive",
        "RelaySpecStagesTarget",
        "RelaySpecEnvValueFromConfigMapKeyRef",
        "RelaySpecStagesEnvValueFromSecretKeyRef",
    ] {
        assert!(
            names.contains(&name.to_owned()),
            "{name} missing: {names:?}"
        );
    }
    assert!(!names.contains(&"ConfigMapKeySelector".to_owned()));
    assert_eq!(names.len(), 23, "{names:?}");
    assert_eq!(
        crd_names(&model_of_value(&golden_crd(), &[], |c| c)).len(),
        13
    );
}

#[test]
fn the_inputs_kubernetes_types_are_used() {
    let api = model_of_value(&golden_crd(), &["schemas/core_v1.json"], |c| c);
    for (path, schema) in [
        (
            "env.valueFrom.configMapKeyRef",
            "io.k8s.api.core.v1.ConfigMapKeySelector",
        ),
        (
            "env.valueFrom.secretKeyRef",
            "io.k8s.api.core.v1.SecretKeySelector",
        ),
        (
            "selector",
            "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
        ),
        (
            "stages.env.valueFrom.secretKeyRef",
            "io.k8s.api.core.v1.SecretKeySelector",
        ),
    ] {
        let ty = type_at(&api, "RelaySpec", path);
        assert_eq!(ty.schema_name(), schema, "{path}");
        assert_ne!(
            ty.module().first().map(String::as_str),
            Some("io"),
            "{path}"
        );
    }
    let names = crd_names(&api);
    assert!(
        !names.iter().any(|n| n.ends_with("KeySelector")),
        "{names:?}"
    );
    // The crate references them by path.
    let output = Config::new()
        .input_bytes("relay.json", golden_crd().to_string())
        .input(workspace_root().join("schemas/core_v1.json"))
        .generate()
        .expect("generates");
    let code: String = output.files().values().cloned().collect();
    assert!(code.contains("crate::api::core::v1::ConfigMapKeySelector"));
}

#[test]
fn kube_makes_meta_shapes_k8s_openapi_types() {
    let api = model_of_value(&golden_crd(), &[], |c| {
        c.extern_type(
            "io.k8s.apimachinery.pkg.apis.meta.v1.*",
            "::k8s_openapi::apimachinery::pkg::apis::meta::v1::*",
        )
    });
    let spec = api.types().find(|t| t.name() == "RelaySpec").unwrap();
    let selector = spec.field("selector").expect("RelaySpec.selector");
    let Some(ty) = selector.shape().ty() else {
        panic!("{:?}", selector.shape())
    };
    assert_eq!(
        ty.extern_path(),
        Some("::k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector"),
        "{ty:?}"
    );
}

#[test]
fn the_subset_rule_is_opt_in_and_near_misses_are_noted() {
    let mut crd = golden_crd();
    let properties = spec(&mut crd);
    properties["env"]["items"]["properties"]["valueFrom"]["properties"]["configMapKeyRef"]
        ["properties"]
        .as_object_mut()
        .unwrap()
        .remove("optional");
    let plain = model_of_value(&crd, &["schemas/core_v1.json"], |c| c);
    let ty = type_at(&plain, "RelaySpec", "env.valueFrom.configMapKeyRef");
    assert_eq!(ty.module().first().map(String::as_str), Some("io"));
    assert!(
        plain.notes().iter().any(|n| n.message.contains(
            "is nearly Kubernetes' `io.k8s.api.core.v1.ConfigMapKeySelector` (lacks `optional`)"
        )),
        "{:?}",
        plain.notes()
    );
    let subset = model_of_value(&crd, &["schemas/core_v1.json"], |c| c.known_subset(true));
    let ty = type_at(&subset, "RelaySpec", "env.valueFrom.configMapKeyRef");
    assert_eq!(ty.schema_name(), "io.k8s.api.core.v1.ConfigMapKeySelector");
    assert_eq!(ty.module(), ["api", "core", "v1"]);
}

#[test]
fn known_shapes_table_is_current() {
    let Some(_) = corpus(
        "known_shapes_table_is_current",
        &[xtask::KNOWN_SHAPES_SOURCE],
    ) else {
        return;
    };
    let root = workspace_root();
    let table = xtask::known_shapes(&root)
        .expect("the swagger models")
        .expect("present");
    let committed = std::fs::read_to_string(root.join(xtask::KNOWN_SHAPES)).expect("committed");
    assert!(
        committed == table,
        "{} is stale: run `cargo xtask regen` and commit it",
        xtask::KNOWN_SHAPES
    );
}

#[test]
fn shapes_differing_in_requiredness_or_defaults_stay_apart() {
    let mut crd = golden_crd();
    let status = crd
        .pointer_mut("/spec/versions/0/schema/openAPIV3Schema/properties/status/properties")
        .and_then(Value::as_object_mut)
        .expect("status properties");
    status["active"]["required"] = json!([]);
    let properties = spec(&mut crd);
    // A zero default and another description change nothing; a default that carries
    // information does.
    properties["primary"]["properties"]["host"]["default"] = json!("");
    properties["primary"]["properties"]["host"]["description"] = json!("Another text.");
    properties["stages"]["items"]["properties"]["target"]["properties"]["protocol"]["default"] =
        json!("UDP");
    let api = model_of_value(&crd, &[], |c| c);
    let name = |root: &str, path: &str| type_at(&api, root, path).name().to_owned();
    assert_eq!(name("RelaySpec", "primary"), name("RelaySpec", "backup"));
    assert_ne!(name("RelayStatus", "active"), name("RelaySpec", "backup"));
    assert_ne!(
        name("RelaySpec", "stages.target"),
        name("RelaySpec", "backup")
    );
    assert_eq!(name("RelayStatus", "active"), "RelayStatusActive");
    assert_eq!(name("RelaySpec", "stages.target"), "RelaySpecStagesTarget");
}
