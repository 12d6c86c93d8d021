//! Forgetting a required field does not compile: required fields are the constructor's
//! arguments, and a builder cannot be made any other way. The expected errors are
//! `ui/*.stderr`; regenerate them with `TRYBUILD=overwrite cargo test -p kubeforge-compile-fail
//! --test builders_compile_fail` when the compiler's wording changes. Such a run names every file it
//! rewrote (visible without `--nocapture`), and `TRYBUILD` is refused in CI.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

// The same file as `kubeforge_tests::{in_ci, notice}`: this package does not depend on
// kubeforge-tests, whose dependencies trybuild would check too.
#[path = "../../src/ci.rs"]
mod ci;
use ci::{in_ci, notice};

/// Every file trybuild may write (`ui/` and its `wip/` directory), with its content.
fn snapshot() -> BTreeMap<PathBuf, Vec<u8>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = BTreeMap::new();
    for dir in ["ui", "wip"] {
        let Ok(entries) = fs::read_dir(root.join(dir)) else {
            continue;
        };
        for path in entries.filter_map(Result::ok).map(|e| e.path()) {
            if let Ok(content) = fs::read(&path) {
                let name = path.strip_prefix(&root).unwrap_or(&path).to_path_buf();
                files.insert(name, content);
            }
        }
    }
    files
}

#[test]
fn forgetting_a_required_field_does_not_compile() {
    let mode = std::env::var("TRYBUILD").ok();
    assert!(
        mode.is_none() || !in_ci(),
        "TRYBUILD={mode:?} is set in CI: CI compares the expected errors, it never rewrites them"
    );
    let before = snapshot();
    {
        let cases = trybuild::TestCases::new();
        cases.compile_fail("ui/missing_required_field.rs");
        cases.compile_fail("ui/missing_namespace.rs");
        cases.compile_fail("ui/builder_without_constructor.rs");
        // The cases run when `cases` is dropped, here.
    }
    let after = snapshot();
    let rewritten: Vec<String> = after
        .iter()
        .filter(|(path, content)| before.get(*path) != Some(*content))
        .map(|(path, _)| format!("\n  tests/{}", path.display()))
        .collect();
    if !rewritten.is_empty() {
        notice(&format!(
            "TRYBUILD={}: rewrote {} file(s){}",
            mode.as_deref().unwrap_or_default(),
            rewritten.len(),
            rewritten.concat()
        ));
    }
}
