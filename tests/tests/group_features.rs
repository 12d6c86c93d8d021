//! Per-group cargo features (`--group-features`, `Config::features`): every API group of the
//! Kubernetes 1.36 swagger builds alone with warnings denied, so do the usual combinations
//! and no group at all, and operations whose body or response lives in another group are
//! compiled only with both features.
//!
//! The generated crate is built once per feature set with `cargo build` (what users run;
//! `cargo check` saves only about a quarter here, since request functions are `#[inline]`
//! and the crate emits little machine code), sharing `target/tmp/scale` with the scale tests so
//! dependencies build once. Runs when `../shared/corpus` exists and prints `SKIPPED: …`
//! otherwise.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use kubeforge::Config;
use kubeforge::package::{CrateOptions, RuntimeDependency, write_crate};
use kubeforge_tests::{corpus_dir, workspace_root};

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

/// `cargo build` of the crate in `dir` with exactly `features`, warnings denied; the
/// compiler's output on failure.
fn build(dir: &Path, features: &[&str]) -> Result<(), String> {
    let joined = features.join(",");
    let output = kubeforge_tests::scale::command(dir)
        .args(["build", "--quiet", "--no-default-features"])
        .args(
            (!features.is_empty())
                .then_some(["--features", joined.as_str()])
                .into_iter()
                .flatten(),
        )
        .output()
        .expect("cargo runs");
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

#[test]
fn every_group_builds_alone_and_in_combination() {
    let Some(corpus) = corpus_dir("group features: Kubernetes 1.36 swagger.json") else {
        return;
    };
    let config = Config::new()
        .input(corpus.join("kubernetes/swagger.json"))
        .features(true);
    let output = config
        .generate()
        .unwrap_or_else(|e| panic!("swagger.json does not generate:\n{e}"));
    let features = output.features().expect("features were asked for").clone();

    // Operations across groups need both features; their own group's dependencies do not
    // count (`apps` enables `core`, so a Deployment's `Status` responses need nothing more).
    let gated = |id: &str| features.operations.get(id).cloned().unwrap_or_default();
    assert_eq!(
        gated("replaceAppsV1NamespacedDeploymentScale"),
        set(&["apps", "autoscaling"])
    );
    assert_eq!(
        gated("readCoreV1NamespacedReplicationControllerScale"),
        set(&["autoscaling", "core"])
    );
    assert_eq!(
        gated("createCoreV1NamespacedPodEviction"),
        set(&["core", "policy"])
    );
    assert_eq!(
        gated("createCoreV1NamespacedServiceAccountToken"),
        set(&["authentication.k8s.io", "core"])
    );
    assert!(gated("readAppsV1NamespacedDeployment").is_empty());
    assert!(gated("listCoreV1NamespacedPod").is_empty());
    // Gating operations adds no dependency between groups.
    assert_eq!(features.requires["apps"], set(&["core"]));
    assert_eq!(features.requires["core"], set(&[]));
    assert_eq!(features.requires["autoscaling"], set(&[]));

    // The route table and the matcher are never gated: under every feature set they list
    // every endpoint, and `Kind::ROUTES` only names their variants.
    let route = &output.files()[&PathBuf::from("routes/route.rs")];
    assert!(!route.contains("cfg("), "the route table is not gated");
    assert!(route.contains("ReplaceAppsV1NamespacedDeploymentScale"));
    let matcher = &output.files()[&PathBuf::from("routes/matcher.rs")];
    assert!(!matcher.contains("cfg("), "the matcher is not gated");
    let deployment = &output.files()[&PathBuf::from("api/apps/v1/deployment.rs")];
    assert!(
        deployment.contains(
            "#[cfg(all(feature = \"apps\", feature = \"autoscaling\"))]\n    #[inline]\n    pub fn replace_namespaced_deployment_scale("
        ),
        "the scale function is gated"
    );
    let dir = kubeforge_tests::scale::dir().join("crates/group-features");
    let options = CrateOptions {
        name: "group-features".to_owned(),
        runtime: RuntimeDependency::Path(workspace_root().join("runtime")),
        ..CrateOptions::default()
    };
    write_crate(&output, &dir, &options).unwrap_or_else(|e| panic!("does not write:\n{e}"));

    let groups: Vec<&str> = features.requires.keys().map(String::as_str).collect();
    assert_eq!(
        groups.len(),
        23,
        "the 1.36 swagger has 23 groups: {groups:?}"
    );
    let mut sets: Vec<Vec<&str>> = vec![Vec::new()];
    sets.extend(groups.iter().map(|g| vec![*g]));
    sets.extend([
        vec!["core", "apps"],
        vec!["core", "batch"],
        vec!["core", "networking.k8s.io"],
        // The gated operations themselves: `apps` with `autoscaling` has the scale functions.
        vec!["apps", "autoscaling"],
        vec!["core", "autoscaling", "policy", "authentication.k8s.io"],
    ]);
    let mut failures = Vec::new();
    for features in &sets {
        let start = Instant::now();
        let result = build(&dir, features);
        eprintln!(
            "group features [{}]: {} in {:.1} s",
            features.join(", "),
            if result.is_ok() { "builds" } else { "FAILS" },
            start.elapsed().as_secs_f64()
        );
        if let Err(e) = result {
            failures.push(format!("[{}]:\n{e}", features.join(", ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} feature sets do not build:\n{}",
        failures.len(),
        sets.len(),
        failures.join("\n")
    );
}

/// A v3 document with two groups: `a.example` Widget, whose `convert` subresource answers
/// 200 with a Widget and 201 with a `b.example` Gadget (a response enum across groups), and
/// `b.example` Gadget with an operation on no resource that returns one.
fn two_groups() -> serde_json::Value {
    use serde_json::json;
    let schema = |name: &str| json!({"$ref": format!("#/components/schemas/{name}")});
    let ok = |name: &str| json!({"description": "OK", "content": {"application/json": {"schema": schema(name)}}});
    let params = json!([
        {"name": "namespace", "in": "path", "required": true, "schema": {"type": "string"}},
        {"name": "name", "in": "path", "required": true, "schema": {"type": "string"}},
    ]);
    let gvk = |group: &str, kind: &str| json!({"group": group, "version": "v1", "kind": kind});
    let kind = |group: &str, kind: &str, field: &str| {
        json!({
            "type": "object",
            "properties": {
                "apiVersion": {"type": "string"},
                "kind": {"type": "string"},
                "metadata": schema("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
                field: {"type": "string"},
            },
            "x-kubernetes-group-version-kind": [gvk(group, kind)],
        })
    };
    json!({
        "openapi": "3.0.0",
        "info": {"title": "two groups", "version": "v1"},
        "paths": {
            "/apis/a.example/v1/namespaces/{namespace}/widgets/{name}": {
                "parameters": params,
                "get": {
                    "operationId": "readAV1NamespacedWidget",
                    "x-kubernetes-action": "get",
                    "x-kubernetes-group-version-kind": gvk("a.example", "Widget"),
                    "responses": {"200": ok("io.x.a.v1.Widget")},
                },
            },
            "/apis/a.example/v1/namespaces/{namespace}/widgets/{name}/convert": {
                "parameters": params,
                "post": {
                    "operationId": "createAV1NamespacedWidgetConvert",
                    "x-kubernetes-action": "create",
                    "x-kubernetes-group-version-kind": gvk("b.example", "Gadget"),
                    "requestBody": {"required": true, "content": {"application/json": {"schema": schema("io.x.a.v1.Widget")}}},
                    "responses": {"200": ok("io.x.a.v1.Widget"), "201": ok("io.x.b.v1.Gadget")},
                },
            },
            "/apis/b.example/v1/namespaces/{namespace}/gadgets/{name}": {
                "parameters": params,
                "get": {
                    "operationId": "readBV1NamespacedGadget",
                    "x-kubernetes-action": "get",
                    "x-kubernetes-group-version-kind": gvk("b.example", "Gadget"),
                    "responses": {"200": ok("io.x.b.v1.Gadget")},
                },
            },
            "/apis/b.example/v1/gadget-info": {
                "get": {"operationId": "getBV1GadgetInfo", "responses": {"200": ok("io.x.b.v1.Gadget")}},
            },
        },
        "components": {"schemas": {
            "io.x.a.v1.Widget": kind("a.example", "Widget", "size"),
            "io.x.b.v1.Gadget": kind("b.example", "Gadget", "color"),
        }},
    })
}

/// Gated response types and operations on no resource: their re-exports are gated too, the
/// endpoint table links only what is always there, and every feature set builds.
#[test]
fn gated_response_types_and_free_operations_build_under_every_feature_set() {
    let output = Config::new()
        .input_bytes(
            "two_groups.json",
            serde_json::to_vec(&two_groups()).expect("serializes"),
        )
        .features(true)
        .generate()
        .unwrap_or_else(|e| panic!("{e}"));
    let features = output.features().expect("features");
    assert_eq!(
        features.operations.keys().collect::<Vec<_>>(),
        ["createAV1NamespacedWidgetConvert", "getBV1GadgetInfo"]
    );
    let file = |path: &str| output.files()[&PathBuf::from(path)].as_str();
    assert!(
        file("io/x/a/v1/mod.rs").contains(
            "#[cfg(all(feature = \"a.example\", feature = \"b.example\"))]\npub use self::widget::CreateAv1NamespacedWidgetConvertResponse;"
        ),
        "{}",
        file("io/x/a/v1/mod.rs")
    );
    assert!(
        file("routes/mod.rs").contains(
            "#[cfg(feature = \"b.example\")]\npub use self::operations::get_bv1_gadget_info;"
        ),
        "{}",
        file("routes/mod.rs")
    );
    let widget = file("io/x/a/v1/widget.rs");
    assert!(widget.contains("[`read_av1_namespaced_widget`](Self::read_av1_namespaced_widget)"));
    assert!(
        widget.contains(
            "`create_av1_namespaced_widget_convert` (features `a.example` + `b.example`)"
        ),
        "no link to a function that may be compiled out"
    );

    let dir = kubeforge_tests::scale::dir().join("crates/group-features-two-groups");
    let options = CrateOptions {
        name: "group-features-two-groups".to_owned(),
        runtime: RuntimeDependency::Path(workspace_root().join("runtime")),
        ..CrateOptions::default()
    };
    write_crate(&output, &dir, &options).unwrap_or_else(|e| panic!("does not write:\n{e}"));
    let failures: Vec<String> = [
        vec![],
        vec!["a.example"],
        vec!["b.example"],
        vec!["a.example", "b.example"],
    ]
    .iter()
    .filter_map(|features| {
        build(&dir, features)
            .err()
            .map(|e| format!("[{}]:\n{e}", features.join(", ")))
    })
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
