//! `kubeforge diff OLD… -- NEW…`: what changed in the API between two sets of documents,
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

/// Runs the command: prints the report on standard output; errors in either set of inputs
/// are diagnostics on standard error and a failure.
pub(super) fn run(old: &[PathBuf], new: &[PathBuf], format: Format) -> ExitCode {
    match diff::configs(&config_of(old), &config_of(new)) {
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
