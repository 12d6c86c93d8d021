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

/// The committed table of known Kubernetes shapes, relative to the workspace root.
pub const KNOWN_SHAPES: &str = "codegen/src/model/known_shapes.tsv";

/// The document the known-shapes table is built from, relative to the corpus.
pub const KNOWN_SHAPES_SOURCE: &str = "kubernetes/swagger.json";

/// The known-shapes table built from the corpus's Kubernetes swagger
/// (`$KUBEFORGE_CORPUS`, or `../shared/corpus` beside the workspace); `Ok(None)` when that
/// document is absent.
pub fn known_shapes(root: &Path) -> Result<Option<String>, String> {
    let corpus = std::env::var_os("KUBEFORGE_CORPUS")
        .map_or_else(|| root.join("../shared/corpus"), PathBuf::from);
    let swagger = corpus.join(KNOWN_SHAPES_SOURCE);
    if !swagger.is_file() {
        return Ok(None);
    }
    let api = kubeforge::Config::new()
        .input(&swagger)
        .dedup(false)
        .model()
        .map_err(|e| e.to_string())?;
    Ok(Some(kubeforge::model::known::table_text(&api)))
}
