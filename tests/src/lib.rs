//! Integration and golden tests for kubegen and the generated crate.
//!
//! The tests themselves are in `tests/`; this library holds what they share, and compiles
//! every golden output (`golden/<case>.rs`) so that a golden that does not build, or does
//! not pass the workspace's lints, fails the build.

pub mod golden;
pub mod json_diff;

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

/// Whether goldens should be rewritten instead of compared (`KUBEGEN_BLESS=1`).
pub fn bless() -> bool {
    std::env::var_os("KUBEGEN_BLESS").is_some_and(|v| v == "1")
}
