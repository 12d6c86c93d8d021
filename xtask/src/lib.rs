//! What `cargo xtask regen` generates, shared with the tests so that their up-to-date check
//! regenerates exactly what `regen` writes.

use std::path::{Path, PathBuf};

pub mod cargo;
pub mod mutants;

/// The directory of input documents, relative to the workspace root.
pub const SCHEMAS_DIR: &str = "schemas";

/// The committed output directory, relative to the workspace root.
pub const OUTPUT_DIR: &str = "generated/src";

/// The document of the built-in meta types, relative to the workspace root: the source of
/// the companion crate `kubeforge-meta` (`meta/`), the same document that fills in the meta
/// types an input references without defining them.
pub const META_SOURCE: &str = "codegen/src/load/builtin.json";

/// The companion crate's committed output directory, relative to the workspace root.
pub const META_OUTPUT_DIR: &str = "meta/src";

/// The configuration that generates `meta/src`, the companion crate `kubeforge-meta`: the
/// built-in meta types, generated as a crate would have them locally (default options, and
/// no companion of their own).
///
/// Its source is the built-in document rather than `schemas/`: it is exactly what a CRD's
/// crate used to copy, so the companion holds what every crate needs and nothing of one
/// Kubernetes release's other groups, and it does not change when `schemas/` gains a group.
/// `generated/` (from `schemas/`) uses the companion for every meta type whose definition
/// there makes the same type (all of them, for the 1.36 documents; `regen --check` and the
/// tests see it).
pub fn meta_config(root: &Path) -> kubeforge::Config {
    kubeforge::Config::new()
        .generated_by("cargo xtask regen")
        .crate_name("kubeforge-meta")
        .companion_meta(false)
        .builtin_protobuf(true)
        .input_named(root.join(META_SOURCE), META_SOURCE)
}

/// The configuration that generates `generated/src` from every `schemas/*.json`, in file
/// name order, named by their paths relative to the workspace root.
pub fn regen_config(root: &Path) -> Result<kubeforge::Config, String> {
    let dir = root.join(SCHEMAS_DIR);
    let entries =
        std::fs::read_dir(&dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let names = json_names(
        entries
            .filter_map(Result::ok)
            .map(|entry| PathBuf::from(entry.file_name())),
    );
    if names.is_empty() {
        return Err(format!("no *.json documents in {}", dir.display()));
    }
    Ok(names.into_iter().fold(base_config(), |config, name| {
        config.input_named(dir.join(&name), Path::new(SCHEMAS_DIR).join(&name))
    }))
}

/// The configuration `regen` would have used at git revision `rev`: every `schemas/*.json`
/// as committed there (read with `git show`), named as in [`regen_config`], so the two
/// compare name for name.
pub fn regen_config_at(root: &Path, rev: &str) -> Result<kubeforge::Config, String> {
    let listing = git(
        root,
        &[
            "ls-tree",
            "--name-only",
            "-z",
            &format!("{rev}:{SCHEMAS_DIR}"),
        ],
    )?;
    let names = json_names(
        listing
            .split(|&b| b == 0)
            .filter(|name| !name.is_empty())
            .map(|name| PathBuf::from(String::from_utf8_lossy(name).into_owned())),
    );
    if names.is_empty() {
        return Err(format!("no *.json documents in {SCHEMAS_DIR}/ at {rev}"));
    }
    let mut config = base_config();
    for name in names {
        let path = Path::new(SCHEMAS_DIR).join(&name);
        let bytes = git(
            root,
            &["show", &format!("{rev}:{SCHEMAS_DIR}/{}", name.display())],
        )?;
        config = config.input_bytes(path, bytes);
    }
    Ok(config)
}

/// What changed in the API of `schemas/` from git revision `rev` to the working tree.
pub fn schema_changes(root: &Path, rev: &str) -> Result<kubeforge::diff::Report, String> {
    let old = regen_config_at(root, rev)?;
    let new = regen_config(root)?;
    kubeforge::diff::configs(&old, &new).map_err(|e| e.to_string())
}

/// The `*.json` names among `names`, sorted.
fn json_names(names: impl Iterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut names: Vec<PathBuf> = names
        .filter(|name| name.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    names
}

fn base_config() -> kubeforge::Config {
    kubeforge::Config::new()
        .generated_by("cargo xtask regen")
        .crate_name("kubeforge-api")
        .apply_types(true)
}

/// Runs git in `root` and returns its standard output.
fn git(root: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let output = std::process::Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// The runtime's query structs of every CRD crate, which `regen` writes from the generator
/// (`kubeforge::crd_query_module`), relative to the workspace root.
pub const CRD_QUERY: &str = "runtime/src/crd_query.rs";

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
    kubeforge::known_shapes_table(&swagger)
        .map(Some)
        .map_err(|e| e.to_string())
}
