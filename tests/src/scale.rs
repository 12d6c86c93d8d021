//! Generated crates built for tests. Every crate a test builds with cargo is built by
//! [`command`]: in one target directory (`scale/target` in cargo's `CARGO_TARGET_TMPDIR`)
//! with one `RUSTFLAGS`, so the dependencies (serde, the runtime, the companion crate, …) and
//! a crate two tests generate alike compile once per run, not once per test (each test with a
//! target directory of its own built them again: 7 of them did).

use std::path::{Path, PathBuf};
use std::process::Command;

use kubeforge::Config;
use kubeforge::package::{CrateOptions, RuntimeDependency, write_crate};

use crate::workspace_root;

/// `scale` in cargo's `CARGO_TARGET_TMPDIR` (`<target dir>/tmp`) of the test binary that
/// calls this: tests write only under the target directory cargo gives them.
pub fn dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    // <target dir>/<profile>/deps/<test binary>
    let target = exe
        .ancestors()
        .nth(3)
        .expect("the test binary lives in <target dir>/<profile>/deps");
    target.join("tmp").join("scale")
}

/// Generates a crate named `name` from `config` under `target/tmp/scale/crates/<name>`.
pub fn generate(name: &str, config: &Config) -> PathBuf {
    let output = config
        .generate()
        .unwrap_or_else(|e| panic!("{name} does not generate:\n{e}"));
    let dir = dir().join("crates").join(name);
    let options = CrateOptions {
        name: name.to_owned(),
        runtime: RuntimeDependency::Path(workspace_root().join("runtime")),
        ..CrateOptions::default()
    };
    write_crate(&output, &dir, &options).unwrap_or_else(|e| panic!("{name} does not write:\n{e}"));
    dir
}

/// The configuration of the full Kubernetes 1.36 crate the scale and protobuf tests share
/// (`scale-kubernetes-swagger`): `swagger.json` with its `.proto` files (under `corpus`),
/// one cargo feature per group. Both tests generate the same text, so the crate is written
/// and built once for both.
pub fn kubernetes_swagger_config(corpus: &Path) -> Config {
    Config::new()
        .input(corpus.join("kubernetes/swagger.json"))
        .proto(corpus.join("kubernetes/proto"))
        .features(true)
}

/// The `RUSTFLAGS` of every crate built in [`dir_target`]: warnings denied. One value for all,
/// since artifacts built with other flags are not shared.
pub const RUSTFLAGS: &str = "-D warnings";

/// `cargo` (the one running the tests) in `dir`, building into the shared target directory
/// ([`dir_target`]) with the shared flags ([`RUSTFLAGS`]) and without incremental state
/// ([`INCREMENTAL`]) or debug info ([`DEBUG`]); the caller adds the arguments.
pub fn command(dir: &Path) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir_target())
        .env("RUSTFLAGS", RUSTFLAGS)
        .env("CARGO_INCREMENTAL", INCREMENTAL)
        .env("CARGO_PROFILE_DEV_DEBUG", DEBUG)
        .env("CARGO_PROFILE_TEST_DEBUG", DEBUG);
    command
}

/// `CARGO_INCREMENTAL` of every crate built in [`dir_target`]: off, whatever the tests' own
/// build uses. The setting is part of cargo's hash of an artifact, so a generated crate built
/// under an outer `CARGO_INCREMENTAL=1` (`cargo xtask mutants` sets it, and CI's test step, so
/// that the mutants reuse its test binaries) and again under `0` was built twice; and a
/// generated crate is written once per run, so incremental state would only cost time and
/// disk.
pub const INCREMENTAL: &str = "0";

/// The debug info of every crate built in [`dir_target`] (`CARGO_PROFILE_DEV_DEBUG` and
/// `CARGO_PROFILE_TEST_DEBUG`): none, as CI builds them (`.ci/run`), whatever the shell has.
/// A generated crate is built to be checked, never debugged, and with the default full debug
/// info the crates the tests build took most of the 267 s by which a contributor's `cargo
/// test --workspace` trailed CI's on a fresh clone (docs/src/contributing/tests.md).
pub const DEBUG: &str = "0";

/// Runs `cargo <args>` in `dir` with warnings denied, and panics with its output on failure.
pub fn cargo(dir: &Path, args: &[&str]) -> String {
    let output = command(dir).args(args).output().expect("cargo runs");
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

/// The shared target directory.
pub fn dir_target() -> PathBuf {
    dir().join("target")
}

/// The crate the guide's OpenShift recipe writes (`docs/src/guide/openshift.md`: Kubernetes
/// 1.36, OpenShift's `openapi.json` and the `image.openshift.io/v1` document, `--out api`),
/// as `codegen/tests/docs_examples.rs` runs the page: in `crates/guide/<page>/`. The merge
/// test (`tests/tests/merge_releases.rs`) generates the same crate into the same directory
/// under the same package name, with its inputs named as the command line names them
/// ([`source_name`]), so that the two write one text and the second build finds the crate
/// built: one build of it per run, not two (about 43 s of CPU each).
pub fn openshift_recipe_crate() -> PathBuf {
    dir().join("crates/guide/docs-src-guide-openshift-md/api")
}

/// The package name of [`openshift_recipe_crate`]: the command line's default.
pub const OPENSHIFT_RECIPE_NAME: &str = "kube-api";

/// The OpenShift recipe's configuration, as its second command line gives it (`kubeforge
/// swagger.json openapi.json image.openshift.io_v1.json --out api`, without its `--prefer`):
/// the crate name, and the inputs named as the command line names them in
/// [`openshift_recipe_crate`]'s headers (`swagger.json` and `openapi.json` link into the
/// corpus; the recipe's `image.openshift.io_v1.json` is `schemas/`'s, copied beside `api/`).
/// `codegen/tests/docs_examples.rs` checks that it generates the recipe's crate exactly.
pub fn openshift_recipe_config(corpus: &Path) -> Config {
    let out = openshift_recipe_crate();
    let named = |path: PathBuf| {
        let name = source_name(&path, &out);
        (path, name)
    };
    let (swagger, swagger_name) = named(corpus.join("kubernetes/swagger.json"));
    let (openapi, openapi_name) = named(corpus.join("openshift/openapi.json"));
    Config::new()
        .input_named(swagger, swagger_name)
        .input_named(openapi, openapi_name)
        .input_named(
            workspace_root().join("schemas/image.openshift.io_v1.json"),
            "../image.openshift.io_v1.json",
        )
        .crate_name(OPENSHIFT_RECIPE_NAME)
}

/// The OpenShift recipe's crate options: its package name, and the command line's runtime
/// (`RuntimeDependency::default()`, the runtime beside the generator).
pub fn openshift_recipe_options() -> CrateOptions {
    CrateOptions {
        name: OPENSHIFT_RECIPE_NAME.to_owned(),
        runtime: RuntimeDependency::default(),
        ..CrateOptions::default()
    }
}

/// How the command line names `input` in the headers of a crate written to `out` (as
/// `codegen/src/cli.rs` does): the real path of the input, symbolic links resolved, relative
/// to the real path of `out` (which need not exist yet).
pub fn source_name(input: &Path, out: &Path) -> PathBuf {
    let real = |path: &Path| -> PathBuf {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let existing = absolute
            .ancestors()
            .find(|a| a.exists())
            .unwrap_or(Path::new("/"));
        let rest = absolute.strip_prefix(existing).unwrap_or(Path::new(""));
        std::fs::canonicalize(existing)
            .unwrap_or_else(|_| existing.to_path_buf())
            .join(rest)
    };
    let (input, out) = (real(input), real(out));
    let base: Vec<_> = out.components().collect();
    let target: Vec<_> = input.components().collect();
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut relative = PathBuf::new();
    for _ in common..base.len() {
        relative.push("..");
    }
    for component in &target[common..] {
        relative.push(component);
    }
    relative
}

/// The dependencies of the programs that use kube-rs's client with a generated crate (the
/// `kubeforge:cli` test's program, `kubeforge --kube`'s crate with `kube::Api`, and the
/// `kubeforge-server:protobuf_routes` test's, which sends a request with `Client::send`):
/// one list, so that kube, k8s-openapi, tokio, hyper and the rest compile once, with the
/// same features, for both (other features are other artifacts).
pub const KUBE_CLIENT_DEPENDENCIES: &[&str] = &[
    r#"http = "1""#,
    // kube's own types need a Kubernetes release chosen, as in any binary using it.
    r#"k8s-openapi = { version = "0.29", features = ["latest"] }"#,
    r#"kube = { version = "5", default-features = false, features = ["client"] }"#,
    r#"serde_json = "1""#,
    r#"tokio = { version = "1", features = ["macros", "rt"] }"#,
    r#"tower = { version = "0.5", default-features = false, features = ["util"] }"#,
];

/// `cargo test` of a crate built here: `cargo test --profile dev`. Cargo builds the
/// dependencies of a `cargo test` in the `test` profile, and a profile's name is part of
/// every artifact's hash: a dependency that one test compiles with `cargo build` or `cargo
/// run` and another with `cargo test` (serde, the runtime, kube and the hundred crates under
/// it) was compiled twice, alike. The `test` profile is the `dev` profile under another name
/// (it inherits it, and nothing here sets either apart), so the tests run as before.
pub const TEST: [&str; 3] = ["test", "--profile", "dev"];

/// Copies the workspace's `Cargo.lock` into `dir`, a crate built here that depends on
/// registry crates the workspace also uses (kube, k8s-openapi, tokio, …): the same versions
/// as the workspace, and as every other such crate, so that they are compiled once.
pub fn workspace_lock(dir: &Path) {
    std::fs::copy(workspace_root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap_or_else(
        |e| {
            panic!(
                "copy the workspace's Cargo.lock into {}: {e}",
                dir.display()
            )
        },
    );
}
