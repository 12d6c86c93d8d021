//! Generated crates built for tests over the real corpus. They share one target directory
//! (`scale/target` in cargo's `CARGO_TARGET_TMPDIR`) and one `RUSTFLAGS`, so the scale and lossless tests build each
//! corpus crate and its dependencies once.

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

/// Runs `cargo <args>` in `dir` with warnings denied, and panics with its output on failure.
pub fn cargo(dir: &Path, args: &[&str]) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir_target())
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

/// The shared target directory.
pub fn dir_target() -> PathBuf {
    dir().join("target")
}
