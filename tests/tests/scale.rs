//! Real-world inputs at scale: every corpus document generates a crate that really builds
//! with no warnings, and Kubernetes' own round-trip fixtures survive the generated types.
//!
//! These tests run when `../shared/corpus` exists and print `SKIPPED: …` otherwise. They
//! share one target directory (`target/scale`), so dependencies build once.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use kubeforge::Config;
use kubeforge::package::{CrateOptions, RuntimeDependency, write_crate};
use kubeforge_tests::{corpus_dir, workspace_root};

fn scale_dir() -> PathBuf {
    workspace_root().join("target/scale")
}

/// Generates a crate named `name` from `inputs` under `target/scale/crates/<name>`.
fn generate(name: &str, config: Config) -> PathBuf {
    let output = config
        .generate()
        .unwrap_or_else(|e| panic!("{name} does not generate:\n{e}"));
    let dir = scale_dir().join("crates").join(name);
    let options = CrateOptions {
        name: name.to_owned(),
        runtime: RuntimeDependency::Path(workspace_root().join("runtime")),
        ..CrateOptions::default()
    };
    write_crate(&output, &dir, &options).unwrap_or_else(|e| panic!("{name} does not write:\n{e}"));
    dir
}

/// Runs `cargo <args>` in `dir` with warnings denied, and panics with its output on failure.
fn cargo(dir: &Path, args: &[&str]) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", scale_dir().join("target"))
        .env("RUSTFLAGS", "-D warnings")
        .output()
        .expect("cargo runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "cargo {} failed in {}:\n{text}",
        args.join(" "),
        dir.display()
    );
    text
}

fn build(name: &str, config: Config) {
    let dir = generate(name, config);
    cargo(&dir, &["build", "--quiet"]);
}

fn sorted_files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    files
}

#[test]
fn kubernetes_v3_all_group_versions_build() {
    let Some(corpus) = corpus_dir("scale: Kubernetes 1.35 OpenAPI v3") else {
        return;
    };
    let files = sorted_files(&corpus.join("kubernetes/v3"), "json");
    assert_eq!(files.len(), 36, "the corpus has 36 group-versions");
    let config = files
        .iter()
        .fold(Config::new(), |config, file| config.input(file));
    build("scale-kubernetes-v3", config);
}

#[test]
fn openshift_definitions_build() {
    let Some(corpus) = corpus_dir("scale: OpenShift openapi.json") else {
        return;
    };
    build(
        "scale-openshift",
        Config::new().input(corpus.join("openshift/openapi.json")),
    );
}

#[test]
fn every_crd_builds() {
    let Some(corpus) = corpus_dir("scale: CRDs") else {
        return;
    };
    let files = sorted_files(&corpus.join("crds"), "yaml");
    assert_eq!(files.len(), 5, "the corpus has five CRDs");
    // One crate for all of them, which also shows that CRDs from different projects merge.
    let config = files
        .iter()
        .fold(Config::new(), |config, file| config.input(file));
    build("scale-crds", config);
}

/// Generates the full Kubernetes 1.36 API from swagger.json, builds it, and round-trips every
/// fixture in `testdata/` whose apiVersion/kind the swagger defines, through a test program
/// generated for the purpose: deserialize, serialize, compare as JSON values.
#[test]
fn kubernetes_swagger_builds_and_round_trips_every_fixture() {
    let Some(corpus) = corpus_dir("scale: Kubernetes 1.36 swagger.json") else {
        return;
    };
    let config = Config::new()
        .input(corpus.join("kubernetes/swagger.json"))
        .features(true);
    let api = config
        .model()
        .unwrap_or_else(|e| panic!("swagger.json does not model:\n{e}"));
    let dir = generate("scale-kubernetes-swagger", config);

    // One API group alone, with the groups it needs worked out by the generator.
    cargo(
        &dir,
        &[
            "build",
            "--quiet",
            "--no-default-features",
            "--features",
            "coordination.k8s.io",
        ],
    );
    let manifest = fs::read_to_string(dir.join("Cargo.toml")).expect("manifest");
    assert!(
        manifest.contains("\"coordination.k8s.io\" = []"),
        "coordination needs no other group:\n{manifest}"
    );
    assert!(
        manifest.contains("\"apps\" = [\"core\"]"),
        "apps needs core (PodTemplateSpec):\n{manifest}"
    );

    // The dispatch table: (apiVersion, kind) → the generated type.
    let mut arms = String::new();
    for ty in &api.types {
        let (Some(gvk), kubeforge::model::TypeKind::Struct(_)) = (&ty.gvk, &ty.kind) else {
            continue;
        };
        let path = ty
            .module
            .iter()
            .chain([&ty.name])
            .cloned()
            .collect::<Vec<_>>()
            .join("::");
        writeln!(
            arms,
            "        ({:?}, {:?}) => check::<scale_kubernetes_swagger::{path}>(&value),",
            gvk.api_version(),
            gvk.kind
        )
        .expect("write to string");
    }
    let program = format!(
        r#"//! Written by kubeforge's scale test: round-trips every fixture it is given.
use serde::{{de::DeserializeOwned, Serialize}};
use serde_json::Value;

fn check<T: DeserializeOwned + Serialize>(value: &Value) -> Result<(), String> {{
    let text = serde_json::to_string(value).map_err(|e| e.to_string())?;
    let typed: T = serde_json::from_str(&text).map_err(|e| format!("does not deserialize: {{e}}"))?;
    let back = serde_json::to_value(&typed).map_err(|e| format!("does not serialize: {{e}}"))?;
    if back == *value {{ Ok(()) }} else {{ Err(format!("differs after the round trip:\n  was {{value}}\n  now {{back}}")) }}
}}

fn dispatch(value: Value) -> Option<Result<(), String>> {{
    let api_version = value.get("apiVersion")?.as_str()?.to_owned();
    let kind = value.get("kind")?.as_str()?.to_owned();
    Some(match (api_version.as_str(), kind.as_str()) {{
{arms}        _ => return None,
    }})
}}

fn main() {{
    let (mut matched, mut passed, mut unmatched) = (0, 0, 0);
    for path in std::env::args().skip(1) {{
        let text = std::fs::read_to_string(&path).expect("fixture readable");
        let value: Value = serde_json::from_str(&text).expect("fixture is JSON");
        match dispatch(value) {{
            None => unmatched += 1,
            Some(result) => {{
                matched += 1;
                match result {{
                    Ok(()) => passed += 1,
                    Err(e) => println!("FAIL {{path}}: {{e}}"),
                }}
            }}
        }}
    }}
    println!("round-trip: {{passed}} of {{matched}} matched fixtures lossless ({{unmatched}} not in this API)");
}}
"#
    );
    fs::create_dir_all(dir.join("examples")).expect("examples dir");
    fs::write(dir.join("examples/round_trip.rs"), program).expect("write program");

    let fixtures: Vec<String> = sorted_files(&corpus.join("kubernetes/testdata"), "json")
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let mut args = vec!["run", "--quiet", "--example", "round_trip", "--"];
    args.extend(fixtures.iter().map(String::as_str));
    let report = cargo(&dir, &args);
    eprintln!("{report}");
    let summary = report
        .lines()
        .find(|l| l.starts_with("round-trip:"))
        .expect("summary line");
    let numbers: Vec<usize> = summary
        .split_whitespace()
        .filter_map(|w| w.trim_start_matches('(').parse().ok())
        .collect();
    let [passed, matched, unmatched] = numbers[..] else {
        panic!("unexpected summary {summary:?}")
    };
    assert_eq!(matched + unmatched, fixtures.len());
    assert!(
        matched >= 95,
        "expected about 100 fixtures to match the 1.36 API, got {matched}"
    );
    assert_eq!(
        passed, matched,
        "every matched fixture must round-trip:\n{report}"
    );
}

/// Selecting one group generates it plus exactly what it references, and the subset builds.
#[test]
fn a_selected_group_builds_alone() {
    let Some(corpus) = corpus_dir("scale: selecting coordination.k8s.io") else {
        return;
    };
    let config = Config::new()
        .input(corpus.join("kubernetes/swagger.json"))
        .select("group=coordination.k8s.io".parse().expect("selector"));
    let api = config.model().unwrap_or_else(|e| panic!("{e}"));
    let kinds: Vec<String> = api
        .resources
        .values()
        .map(|r| format!("{}/{} {}", r.gvk.group, r.gvk.version, r.gvk.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            "coordination.k8s.io/v1 Lease",
            "coordination.k8s.io/v1alpha2 LeaseCandidate",
            "coordination.k8s.io/v1beta1 LeaseCandidate"
        ],
        "exactly the group's resources"
    );
    let modules: std::collections::BTreeSet<String> =
        api.types.iter().map(|t| t.module.join("::")).collect();
    assert!(
        modules
            .iter()
            .all(|m| m.starts_with("api::coordination") || m.starts_with("apimachinery")),
        "{modules:?}"
    );
    assert!(
        api.types.iter().any(|t| t.name == "ObjectMeta"),
        "references are followed"
    );
    assert!(
        !api.types.iter().any(|t| t.name == "Pod"),
        "nothing unreferenced comes along"
    );
    build("scale-coordination-only", config);
}
