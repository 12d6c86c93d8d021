//! What `cargo xtask regen` generates, shared with the tests so that their up-to-date check
//! regenerates exactly what `regen` writes.

use std::path::{Path, PathBuf};

/// The directory of input documents, relative to the workspace root.
pub const SCHEMAS_DIR: &str = "schemas";

/// The committed output directory, relative to the workspace root.
pub const OUTPUT_DIR: &str = "generated/src";

/// The configuration that generates `generated/src` from every `schemas/*.json`, in file
/// name order, named by their paths relative to the workspace root.
pub fn regen_config(root: &Path) -> Result<kubeforge::Config, String> {
    let dir = root.join(SCHEMAS_DIR);
    let entries =
        std::fs::read_dir(&dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut names: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| PathBuf::from(entry.file_name()))
        .filter(|name| name.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(format!("no *.json documents in {}", dir.display()));
    }
    let mut config = kubeforge::Config::new()
        .generated_by("cargo xtask regen")
        .crate_name("kubeforge-api");
    for name in names {
        config = config.input_named(dir.join(&name), Path::new(SCHEMAS_DIR).join(&name));
    }
    Ok(config)
}
