//! `cargo xtask routes [--json]`: the whole route table of `schemas/*.json` (the same
//! configuration as `regen`), for review and diffs; `kubeforge routes` prints it for any
//! input. It does not build the generated crate, so it works while that crate is broken.

use std::path::Path;
use std::process::ExitCode;

/// Prints every operation: one JSON object per line with `--json`, a table otherwise.
pub(crate) fn run(root: &Path, as_json: bool) -> ExitCode {
    let text = xtask::regen_config(root)
        .map_err(|e| format!("error: {e}"))
        .and_then(|c| kubeforge::cli::routes(&c, as_json).map_err(|e| e.to_string()));
    match text {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}
