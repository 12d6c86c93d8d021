//! `kubeforge diff OLD… -- NEW…`: what changed in the API between two sets of documents (or,
//! `kubeforge diff --releases … --release R INPUTS…`, between one release of a merge and the
//! release before it),
//! each change with its semver effect (see [`crate::diff`]), as text, Markdown or JSON.
//! `cargo xtask diff` runs it on `schemas/`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::Config;
use crate::diff::{self, Report};

/// How to print a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Lines for a terminal.
    Text,
    /// A pull-request description.
    Markdown,
    /// One JSON object.
    Json,
}

impl Format {
    /// The format the flags ask for (JSON wins over Markdown).
    pub fn from_flags(markdown: bool, json: bool) -> Format {
        match (markdown, json) {
            (_, true) => Format::Json,
            (true, false) => Format::Markdown,
            (false, false) => Format::Text,
        }
    }

    /// The report in this format.
    pub fn render(self, report: &Report) -> String {
        match self {
            Format::Text => diff::text(report),
            Format::Markdown => diff::markdown(report),
            Format::Json => diff::json(report),
        }
    }
}

/// A configuration reading `inputs`, named as given.
pub fn config_of(inputs: &[PathBuf]) -> Config {
    inputs
        .iter()
        .fold(Config::new(), |config, input| config.input(input))
}

/// `kubeforge diff --releases … --release R INPUTS…`: prints what `release` of the releases
/// merged from `inputs` (the i-th input the i-th of `releases`) changes against the release
/// before it ([`diff::release`]).
pub(super) fn run_release(
    inputs: &[PathBuf],
    releases: &[String],
    release: &str,
    format: Format,
) -> ExitCode {
    if releases.len() != inputs.len() {
        eprintln!(
            "error: expected one release per input with `--releases`, but there are {} releases and {} inputs",
            releases.len(),
            inputs.len()
        );
        return ExitCode::from(2);
    }
    let config = inputs
        .iter()
        .zip(releases)
        .fold(Config::new(), |config, (input, name)| {
            config.release_input(name, input)
        });
    print(diff::release(&config, release), format)
}

/// Runs the command: prints the report on standard output; errors in either set of inputs
/// are diagnostics on standard error and a failure.
pub(super) fn run(old: &[PathBuf], new: &[PathBuf], format: Format) -> ExitCode {
    print(diff::configs(&config_of(old), &config_of(new)), format)
}

/// The report on standard output, or the diagnostics on standard error and a failure.
fn print(report: Result<Report, crate::Error>, format: Format) -> ExitCode {
    match report {
        Ok(report) => {
            print!("{}", format.render(&report));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprint!("{}", super::render(&e, None));
            ExitCode::FAILURE
        }
    }
}
