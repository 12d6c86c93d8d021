//! Per-group cargo features (`--group-features`, `Config::features`): every API group of the
//! Kubernetes 1.36 swagger builds alone with warnings denied, so do the usual combinations
//! and no group at all, and operations whose body or response lives in another group are
//! compiled only with both features.
//!
//! The generated crate is built once per feature set with `cargo build` (what users run;
//! `cargo check` saves only about a quarter here, since request functions are `#[inline]`
//! and the crate emits little machine code), sharing `target/tmp/scale` with the scale tests so
//! dependencies build once, and all feature sets in one `cargo build`, two at a time
//! ([`build_sets`]). Runs when `../shared/corpus` exists and prints `SKIPPED: …`
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
    let start = Instant::now();
    let result = build_sets(&dir, "group-features", &sets);
    eprintln!(
        "group features: {} feature sets: {} in {:.1} s",
        sets.len(),
        match &result {
            Ok(builds) => format!("{builds} builds, all pass"),
            Err(_) => "FAIL".to_owned(),
        },
        start.elapsed().as_secs_f64()
    );
    // `core` + `apps` is `apps` (which enables `core`), and so for `batch` and
    // `networking.k8s.io`: one build each.
    assert_eq!(result.unwrap_or_else(|e| panic!("{e}")), 26);
}

/// Builds the crate in `dir` (named `name`) with each feature set of `sets` and no default
/// features, warnings denied, all in one `cargo build`, and returns how many builds that was.
///
/// Each set is a package of its own in a workspace beside the crate (`<name>-sets/`), whose
/// manifest is the crate's and whose library is the crate's `src/lib.rs`, so that cargo
/// builds two sets at a time, where one cargo per set built one after another (the shared
/// target directory takes one cargo at a time) and a core sat idle. The packages' names
/// differ, so each set is an artifact of its own, compiled as before. A set that enables
/// what an earlier one does, once the manifest's `[features]` have added what each feature
/// implies, is the earlier one's build (cargo gave both one artifact before, too), and is
/// given to cargo as the earlier set names it. With `--keep-going` every set builds, and the
/// error names each set that fails, with the compiler's output.
fn build_sets(dir: &Path, name: &str, sets: &[Vec<&str>]) -> Result<usize, String> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("the crate's manifest");
    let implies = manifest_features(&manifest);
    let closure = |set: &[&str]| -> BTreeSet<String> {
        let mut all = BTreeSet::new();
        let mut todo: Vec<String> = set.iter().map(|s| (*s).to_owned()).collect();
        while let Some(feature) = todo.pop() {
            if let Some(implied) = implies.get(&feature) {
                todo.extend(implied.iter().cloned());
            }
            all.insert(feature);
        }
        all
    };
    // (the features cargo enables, the sets that enable them, the first of which is built)
    let mut builds: Vec<(BTreeSet<String>, Vec<&[&str]>)> = Vec::new();
    for set in sets {
        let enabled = closure(set);
        match builds.iter_mut().find(|(other, _)| *other == enabled) {
            Some((_, same)) => same.push(set),
            None => builds.push((enabled, vec![set])),
        }
    }

    let (package, _) = manifest
        .split_once("\n[workspace]")
        .expect("a generated crate is a workspace of its own");
    // Without the comment above the generated `[workspace]` table, which it explains.
    let mut lines: Vec<&str> = package.lines().collect();
    while lines
        .last()
        .is_some_and(|l| l.is_empty() || l.starts_with('#'))
    {
        lines.pop();
    }
    let package = lines.join("\n") + "\n";
    let root = dir.with_file_name(format!("{name}-sets"));
    let member = |i: usize| format!("{name}-set-{i:02}");
    let mut args: Vec<String> = ["build", "--quiet", "--keep-going", "--no-default-features"]
        .map(str::to_owned)
        .to_vec();
    for (i, (_, named)) in builds.iter().enumerate() {
        // One directory deeper than the crate: its path dependencies go one `..` further.
        let text = package
            .replacen(
                &format!("name = \"{name}\""),
                &format!("name = \"{}\"", member(i)),
                1,
            )
            .replace("path = \"../", "path = \"../../")
            + &format!("\n[lib]\npath = \"../../{name}/src/lib.rs\"\n");
        let member_dir = root.join(member(i));
        std::fs::create_dir_all(&member_dir).expect("a set's directory");
        write_if_changed(&member_dir.join("Cargo.toml"), &text);
        args.extend(["-p".to_owned(), member(i)]);
        if !named[0].is_empty() {
            let list: Vec<String> = named[0]
                .iter()
                .map(|f| format!("{}/{f}", member(i)))
                .collect();
            args.extend(["--features".to_owned(), list.join(",")]);
        }
    }
    let members: Vec<String> = (0..builds.len())
        .map(|i| format!("\"{}\"", member(i)))
        .collect();
    write_if_changed(
        &root.join("Cargo.toml"),
        &format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
            members.join(", ")
        ),
    );
    let output = kubeforge_tests::scale::command(&root)
        .args(&args)
        .output()
        .expect("cargo runs");
    if output.status.success() {
        return Ok(builds.len());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let failed: Vec<String> = builds
        .iter()
        .enumerate()
        .filter(|(i, _)| stderr.contains(&format!("could not compile `{}`", member(*i))))
        .map(|(i, (_, named))| {
            let named: Vec<String> = named
                .iter()
                .map(|set| format!("[{}]", set.join(", ")))
                .collect();
            format!("{} (package {})", named.join(" = "), member(i))
        })
        .collect();
    Err(format!(
        "{} of {} builds fail: {}\ncargo build in {}:\n{stderr}",
        failed.len(),
        builds.len(),
        failed.join("; "),
        root.display()
    ))
}

/// The `[features]` table of a generated manifest: each feature and the features it enables
/// (`"apps" = ["core"]`; a dependency's feature, `kubeforge-runtime/validate`, left out).
fn manifest_features(manifest: &str) -> std::collections::BTreeMap<String, Vec<String>> {
    let table = manifest
        .split_once("\n[features]\n")
        .map_or("", |(_, rest)| rest);
    table
        .lines()
        .take_while(|line| !line.starts_with('['))
        .filter_map(|line| line.split_once(" = "))
        .map(|(feature, implied)| {
            let implied = implied
                .trim_matches(|c| c == '[' || c == ']')
                .split(',')
                .map(|f| f.trim().trim_matches('"').to_owned())
                .filter(|f| !f.is_empty() && !f.contains('/'))
                .collect();
            (feature.trim_matches('"').to_owned(), implied)
        })
        .collect()
}

/// Writes `text` to `path` unless it holds it already (cargo rebuilds what is newer).
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
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
    let sets = [
        vec![],
        vec!["a.example"],
        vec!["b.example"],
        vec!["a.example", "b.example"],
    ];
    assert_eq!(
        build_sets(&dir, "group-features-two-groups", &sets).unwrap_or_else(|e| panic!("{e}")),
        4
    );
}
