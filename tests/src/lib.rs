//! Integration and golden tests for kubeforge and the generated crate.
//!
//! The tests themselves are in `tests/`; this library holds what they share, and compiles
//! every golden output (`golden/<case>.rs`) so that a golden that does not build, or does
//! not pass the workspace's lints, fails the build.

pub mod golden;
pub mod instances;
pub mod json_diff;
pub mod scale;

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

/// `../shared/corpus` beside the workspace, or `None` after printing a visible skip notice
/// for `test`. Tests over the real corpus skip, not fail, where it is absent.
pub fn corpus_dir(test: &str) -> Option<PathBuf> {
    let dir = workspace_root().join("../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("SKIPPED: {test}: {} is absent", dir.display());
        None
    }
}

/// Builds `modules` (name → generated code) as the modules of one throwaway crate under
/// `target/<name>`, with warnings denied, and panics with the compiler's output on failure.
/// Each module is generated with the root path `crate::<module>`.
pub fn build_modules_as_crate(name: &str, modules: &[(String, String)]) {
    use std::fmt::Write as _;
    let dir = workspace_root().join("target").join(name);
    let src = dir.join("crate/src");
    std::fs::create_dir_all(&src).expect("crate dir");
    let mut lib = format!("//! Generated code built by the `{name}` test.\n");
    for (module, code) in modules {
        std::fs::write(src.join(format!("{module}.rs")), code).expect("write module");
        writeln!(lib, "pub mod {module};").expect("write to string");
    }
    std::fs::write(src.join("lib.rs"), lib).expect("write lib");
    let manifest = format!(
        "[package]\nname = {name:?}\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nkubeforge-runtime = {{ path = {:?} }}\nserde = {{ version = \"1\", features = [\"derive\"] }}\n\
         serde_json = \"1\"\n\n[workspace]\n",
        workspace_root().join("runtime").display().to_string()
    );
    std::fs::write(dir.join("crate/Cargo.toml"), manifest).expect("write manifest");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["build", "--quiet"])
        .current_dir(dir.join("crate"))
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env("RUSTFLAGS", "-D warnings")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{name}: generated code does not compile:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Whether goldens should be rewritten instead of compared (`KUBEFORGE_BLESS=1`).
pub fn bless() -> bool {
    std::env::var_os("KUBEFORGE_BLESS").is_some_and(|v| v == "1")
}
