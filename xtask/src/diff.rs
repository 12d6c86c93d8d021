//! `cargo xtask diff`: the semantic API diff (`kubeforge diff`) of `schemas/` between a git
//! revision and the working tree, or of any two sets of documents; and the summary that
//! `regen` prints.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kubeforge::cli::diff::{Format, config_of};

/// Prints the changes from `old` to `new` when both are given, otherwise those of
/// `schemas/` from `base` (default `HEAD`) to the working tree.
pub(crate) fn run(
    root: &Path,
    old: &[PathBuf],
    new: &[PathBuf],
    base: Option<&str>,
    format: Format,
) -> ExitCode {
    let report = match (old.is_empty(), new.is_empty()) {
        (true, true) => xtask::schema_changes(root, base.unwrap_or("HEAD")),
        (false, false) if base.is_none() => {
            kubeforge::diff::configs(&config_of(old), &config_of(new)).map_err(|e| e.to_string())
        }
        (false, false) => Err("expected either `--base REV` or `OLD… -- NEW…`, not both".into()),
        _ => Err("expected `OLD… -- NEW…`: documents on both sides of `--`".into()),
    };
    match report {
        Ok(report) => {
            print!("{}", format.render(&report));
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The summary `regen` prints: what changed in the API of `schemas/` since the last commit,
/// or why it cannot say (no git, no commit).
pub(crate) fn regen_summary(root: &Path) -> String {
    match xtask::schema_changes(root, "HEAD") {
        Ok(report) => format!(
            "API changes in schemas/ since HEAD: {}",
            kubeforge::diff::text(&report)
        ),
        Err(message) => format!("no API summary: {message}\n"),
    }
}
