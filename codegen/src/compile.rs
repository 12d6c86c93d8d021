//! The `build.rs` path: [`Config::compile`] renders everything into one include file (the
//! single-file layout: modules nested inline, so `include!` works anywhere) and writes it
//! into `OUT_DIR`.
//!
//! It never writes outside the output directory: the include file's name must be a
//! relative path of plain components (no `..`, not absolute), every directory on the way
//! must be a real directory inside the output directory (no symbolic link out of it), an
//! existing include file must be a regular file with the generated header (never a link,
//! never a hand-written file), and the new content is staged in a temporary file beside it,
//! inside the output directory, then renamed over it in one step, all under `write.rs`'s
//! policy (the same lock, staging names and cleanup as every other write). When the content
//! is unchanged nothing is written at all, so the file keeps its modification time and
//! nothing downstream rebuilds.

use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::Config;
use crate::diagnostics::{Diagnostic, Error, ErrorKind, Origin};
use crate::write::{
    DirLock, Fate, Layout, WriteReport, clean_leftovers, fate, hand_written, not_a_file,
    replace_file,
};

/// The include file's name unless [`Config::include_file`] says otherwise.
pub(crate) const DEFAULT_INCLUDE_FILE: &str = "kubeforge.rs";

fn error(path: &Path, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(ErrorKind::Output, &Origin::root(path), message)
}

impl Config {
    /// Generates the include file into the output directory ([`Config::out_dir`], by
    /// default `OUT_DIR`), for a build script:
    ///
    /// ```no_run
    /// // In build.rs's `main`:
    /// println!("cargo::rerun-if-changed=schemas/image.openshift.io_v1.json");
    /// kubeforge::Config::new()
    ///     .input("schemas/image.openshift.io_v1.json")
    ///     .root_path("crate::k8s")
    ///     .include_file("k8s.rs")
    ///     .compile()
    ///     .unwrap_or_else(|e| panic!("{e}"));
    /// ```
    ///
    /// and in the crate, `pub mod k8s { include!(concat!(env!("OUT_DIR"), "/k8s.rs")); }`
    /// ([`Config::root_path`] names where the file is included).
    ///
    /// Writes only when the content changed, never outside the output directory, never
    /// needs rustfmt, and prints nothing but a `cargo::warning` per numbered name collision (see
    /// [`Output::warnings`](crate::Output::warnings)); errors carry the same diagnostics as the command
    /// line. The layout set with [`Config::layout`] does not apply: the include file always
    /// nests every module inline.
    ///
    /// # Errors
    ///
    /// Every problem in the inputs or the configuration, `OUT_DIR` unset without
    /// [`Config::out_dir`], and an include file that would land outside the output
    /// directory, replace something that is no generated file, or cannot be written.
    pub fn compile(&self) -> Result<WriteReport, Error> {
        let dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    error(Path::new("OUT_DIR"), "expected the environment variable `OUT_DIR` to name the output directory, but it is not set")
                        .with_hint("call `compile()` from a build script, where cargo sets `OUT_DIR`, or set `Config::out_dir`")
                })?,
        };
        self.compile_to(dir)
    }

    /// [`Config::compile`] into `out_dir` instead of the configured output directory.
    ///
    /// # Errors
    ///
    /// As for [`Config::compile`].
    pub fn compile_to(&self, out_dir: impl AsRef<Path>) -> Result<WriteReport, Error> {
        let out_dir = out_dir.as_ref();
        let relative = checked_relative(&self.include_file)?;
        let mut config = self.clone();
        config.layout = Layout::SingleFile;
        let output = config.generate()?;
        let content = output.files().values().next().map_or("", String::as_str);
        let report = write_include(out_dir, &relative, content.as_bytes())?;
        // The one thing a build script prints: what cargo shows as a warning of the build.
        if std::env::var_os("CARGO").is_some() && std::env::var_os("OUT_DIR").is_some() {
            for warning in output.warnings() {
                // cargo reads one warning a line.
                for line in warning.to_string().lines() {
                    println!("cargo::warning=kubeforge: {line}");
                }
            }
        }
        Ok(report)
    }
}

/// The include file's path when it is relative and made of plain names only.
fn checked_relative(path: &Path) -> Result<PathBuf, Error> {
    let plain = !path.as_os_str().is_empty()
        && path.components().all(|c| matches!(c, Component::Normal(_)));
    if plain {
        Ok(path.to_path_buf())
    } else {
        Err(error(
            path,
            format!(
                "expected the include file to be a relative path inside the output directory, found {}",
                path.display()
            ),
        )
        .with_hint("name a file such as `k8s.rs`, optionally in subdirectories, without `..` and not absolute")
        .into())
    }
}

/// Writes `content` to `out_dir/relative` unless it is already there, never outside
/// `out_dir`.
fn write_include(out_dir: &Path, relative: &Path, content: &[u8]) -> Result<WriteReport, Error> {
    let root = fs::canonicalize(out_dir).map_err(|e| {
        error(
            out_dir,
            format!("expected the output directory to exist: {e}"),
        )
        .with_hint("create it first; cargo creates `OUT_DIR` for build scripts")
    })?;
    if !root.is_dir() {
        return Err(error(out_dir, "expected the output directory to be a directory").into());
    }

    // Every directory on the way: created inside, or an existing real directory.
    let mut parent = root.clone();
    let components: Vec<&std::ffi::OsStr> = relative.iter().collect();
    let (file_name, directories) = components
        .split_last()
        .ok_or_else(|| error(relative, "expected a file name"))?;
    for directory in directories {
        parent.push(directory);
        match fs::symlink_metadata(&parent) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(error(
                    &parent,
                    "expected a directory inside the output directory, but this is a file or a symbolic link",
                )
                .with_hint("kubeforge writes only inside the output directory; remove the link or choose another include file name")
                .into());
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                fs::create_dir(&parent)
                    .map_err(|e| error(&parent, format!("cannot create the directory: {e}")))?;
            }
            Err(e) => {
                return Err(error(&parent, format!("cannot inspect the directory: {e}")).into());
            }
        }
    }
    // Defence in depth: whatever the file system did, the parent is inside the root.
    let resolved = fs::canonicalize(&parent)
        .map_err(|e| error(&parent, format!("cannot resolve the directory: {e}")))?;
    if !resolved.starts_with(&root) {
        return Err(error(
            &parent,
            "expected the include file's directory to be inside the output directory",
        )
        .into());
    }

    let target = resolved.join(file_name);
    let mut report = WriteReport::default();
    let _lock = DirLock::acquire(&target, None)?;
    clean_leftovers(&target)?;
    match fate(&target, content)? {
        Fate::Unchanged => {
            report.unchanged.push(relative.to_path_buf());
            return Ok(report);
        }
        Fate::Write => replace_file(&target, content)?,
        Fate::HandWritten => return Err(hand_written(&target).into()),
        Fate::NotAFile => return Err(not_a_file(&target).into()),
    }
    report.written.push(relative.to_path_buf());
    Ok(report)
}
