//! Generated code refers to itself through `root_path`. Included as the module that path
//! names, it compiles; included anywhere else, it does not, and the first error names the
//! root path it was generated for (instead of only hundreds of unresolved paths).

use kubeforge::{Config, Layout};
use kubeforge_tests::workspace_root;

const SCHEMA: &str = r##"{"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {},
  "components": {"schemas": {
    "io.example.v1.Gadget": {"type": "object", "properties": {
      "part": {"$ref": "#/components/schemas/io.example.v1.Part"}}},
    "io.example.v1.Part": {"type": "object", "properties": {"name": {"type": "string"}}}}}}"##;

/// The test's own directory, under the target directory cargo gives it.
fn scratch() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("root-path-check")
}

/// `cargo check` of a crate whose `lib.rs` is `lib` beside the generated `gen.rs`; the
/// compiler's output on failure.
fn check(lib: &str) -> Result<(), String> {
    let dir = scratch();
    let src = dir.join("crate/src");
    std::fs::create_dir_all(&src).expect("crate dir");
    let output = Config::new()
        .input_bytes("gadgets.json", SCHEMA)
        .root_path("crate::k8s")
        .layout(Layout::SingleFile)
        .generate()
        .unwrap_or_else(|e| panic!("{e}"));
    let code = output.files().values().next().expect("one file");
    std::fs::write(src.join("gen.rs"), code).expect("write gen.rs");
    std::fs::write(src.join("lib.rs"), lib).expect("write lib.rs");
    let manifest = format!(
        "[package]\nname = \"root-path-check\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nkubeforge-runtime = {{ path = {:?} }}\nserde = {{ version = \"1\", features = [\"derive\"] }}\n\
         serde_json = \"1\"\n\n[workspace]\n",
        workspace_root().join("runtime").display().to_string()
    );
    std::fs::write(dir.join("crate/Cargo.toml"), manifest).expect("write manifest");
    let output = kubeforge_tests::scale::command(&dir.join("crate"))
        .args(["check", "--quiet", "--message-format", "short"])
        .output()
        .expect("cargo runs");
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

#[test]
fn code_included_elsewhere_than_its_root_path_says_where_it_belongs() {
    check("pub mod k8s {\n    include!(\"gen.rs\");\n}\n")
        .unwrap_or_else(|e| panic!("included as `crate::k8s`, the code compiles:\n{e}"));
    let errors = check("pub mod api {\n    include!(\"gen.rs\");\n}\n")
        .expect_err("included as `crate::api`, the code does not compile");
    let first = errors
        .lines()
        .find(|line| line.contains("error"))
        .unwrap_or_default();
    assert!(
        first.contains("unresolved import `crate::k8s`"),
        "the first error is about the root path:\n{errors}"
    );
    // The compiler shows the offending line, whose name says what to do.
    let full = check_full("pub mod api {\n    include!(\"gen.rs\");\n}\n");
    assert!(
        full.contains("crate_k8s_must_be_the_module_that_includes_this_code__see_root_path"),
        "{full}"
    );
}

/// The compiler's full (not short) output for `lib`.
fn check_full(lib: &str) -> String {
    let dir = scratch();
    std::fs::write(dir.join("crate/src/lib.rs"), lib).expect("write lib.rs");
    let output = kubeforge_tests::scale::command(&dir.join("crate"))
        .args(["check", "--quiet"])
        .output()
        .expect("cargo runs");
    String::from_utf8_lossy(&output.stderr).into_owned()
}
