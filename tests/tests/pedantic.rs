//! Generated code is a guest in the user's crate: `cargo clippy --all-targets -- -D warnings
//! -W clippy::pedantic` passes on the crates generated from every corpus CRD (plus
//! `tests/pedantic/warning_bait.yaml`, which holds in small each construct that once warned)
//! and from the whole Kubernetes 1.36 swagger. The crates are built in the scale test's target
//! directory, so the dependencies are checked once for both.

use std::time::Instant;

use kubeforge::Config;
use kubeforge::package::{CrateOptions, RuntimeDependency, write_crate};
use kubeforge_tests::{corpus_dir, workspace_root};

/// Generates the crate `name` under the scale tests' `crates/` and runs pedantic clippy on it,
/// with the crate name set (so the crate docs' example is the one a user gets).
fn clippy_pedantic(name: &str, config: Config) {
    let output = config
        .crate_name(name)
        .generate()
        .unwrap_or_else(|e| panic!("{name} does not generate:\n{e}"));
    let scale = kubeforge_tests::scale::dir();
    let dir = scale.join("crates").join(name);
    let options = CrateOptions {
        name: name.to_owned(),
        runtime: RuntimeDependency::Path(workspace_root().join("runtime")),
        ..CrateOptions::default()
    };
    write_crate(&output, &dir, &options).unwrap_or_else(|e| panic!("{name} does not write:\n{e}"));
    let started = Instant::now();
    let result = kubeforge_tests::scale::command(&dir)
        .args(["clippy", "--quiet", "--all-targets", "--"])
        .args(["-D", "warnings", "-W", "clippy::pedantic"])
        .output()
        .expect("cargo runs");
    eprintln!("{name}: clippy took {:.1?}", started.elapsed());
    assert!(
        result.status.success(),
        "pedantic clippy fails on {}:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    );
}

#[test]
fn crds_and_warning_bait_pass_pedantic_clippy() {
    let bait = workspace_root().join("tests/pedantic/warning_bait.yaml");
    let mut config = Config::new().input(&bait);
    if let Some(corpus) = corpus_dir("pedantic clippy: corpus CRDs") {
        for crd in kubeforge_tests::sorted_files(&corpus.join("crds"), "yaml") {
            config = config.input(crd);
        }
    }
    clippy_pedantic("pedantic-crds", config);
}

#[test]
fn kubernetes_swagger_passes_pedantic_clippy() {
    let Some(corpus) = corpus_dir("pedantic clippy: Kubernetes 1.36 swagger.json") else {
        return;
    };
    clippy_pedantic(
        "pedantic-kubernetes",
        Config::new().input(corpus.join("kubernetes/swagger.json")),
    );
}

/// The lossless mapping's constructs (nullable fields, merged and union `oneOf`s, numbers,
/// date-times, extra and unknown keys, every integer format, builder defaults of every kind,
/// a CRD that preserves unknown fields) pass pedantic clippy too: the golden inputs of those
/// rules, generated as one crate.
#[test]
fn lossless_mapping_goldens_pass_pedantic_clippy() {
    let golden = workspace_root().join("tests/golden");
    let mut config = Config::new();
    for case in [
        "builder_defaults",
        "combined_schemas",
        "crd_preserve_unknown",
        "date_times",
        "extra_keys",
        "int_or_string",
        "integer_formats",
        "nullable",
        "numbers",
    ] {
        config = config.input(golden.join(format!("{case}.json")));
    }
    clippy_pedantic("pedantic-lossless-goldens", config);
}
