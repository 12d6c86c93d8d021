//! The stages import nothing above them. Every path that names another module of the crate
//! (`crate::…`, or `super::…` leaving the stage) is an edge from the file's stage to that
//! module's; this test lists them and fails on one that runs upward:
//!
//! ```text
//! diagnostics, timings ─ ground ─ load ─ model ─ emit ─ write ─ the facade (lib.rs, view,
//!                                                               compile, package, cli, diff)
//! ```
//!
//! Each stage may use those to its left (the ground floor only what is left of it), never
//! one to its right. A name the facade re-exports (`crate::Error`, `crate::ModuleRules`)
//! counts as the module it comes from. Tests (`#[cfg(test)]` items) may use anything.
//! Comments and string literals are not code: the generator spells `crate::…` paths in text.
//! `cargo test -p kubeforge --test stages -- --nocapture` prints the edges.
//!
//! And no circle, within a stage or across: in each folder, no two modules (files or
//! subfolders) import each other, directly or through others; what both sides use lives
//! below both. A module and its own children are one unit (they use what its `mod.rs`
//! defines, it uses what they do). The scanner is `kubeforge_tests::imports`
//! (`tests/src/imports.rs`), shared with the runtime's and the server's tests of the kind.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use kubeforge_tests::imports::{Sources, code_only, crate_circles, name, rust_files};

/// The stages, bottom up; a module not listed is the facade, above them all.
const STAGES: &[(&str, usize)] = &[
    ("diagnostics", 0),
    ("timings", 0),
    ("ground", 1),
    ("load", 2),
    ("model", 3),
    ("emit", 4),
    ("write", 5),
];
const FACADE: usize = 6;

fn rank(module: &str) -> usize {
    STAGES
        .iter()
        .find(|(name, _)| *name == module)
        .map_or(FACADE, |(_, rank)| *rank)
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The stage of a module: its first segment (`lib` for the facade's own items).
fn stage(path: &[String]) -> String {
    path.first().cloned().unwrap_or_else(|| "lib".to_owned())
}

#[test]
fn no_stage_imports_one_above_it() {
    let sources = Sources::read(&src());
    let mut edges: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut upward = Vec::new();
    for edge in sources.edges() {
        let (from_stage, to_stage) = (stage(&edge.from), stage(&edge.to));
        if from_stage == to_stage {
            continue;
        }
        *edges
            .entry((from_stage.clone(), to_stage.clone()))
            .or_default() += 1;
        let (from, to) = (rank(&from_stage), rank(&to_stage));
        // The ground floor's own modules rank alike but must not import each other.
        if to > from || (to == from && from < FACADE) {
            upward.push(format!(
                "{}:{}: {from_stage} (stage {from}) imports {to_stage} (stage {to})",
                edge.file.display(),
                edge.line
            ));
        }
    }
    println!("imports between stages (from → to: lines):");
    for ((from, to), count) in &edges {
        println!("  {from} → {to}: {count}");
    }
    assert!(
        edges.contains_key(&("model".to_owned(), "load".to_owned())),
        "the scan finds no edge at all: is it reading the sources?"
    );
    assert!(
        upward.is_empty(),
        "imports that run upward:\n{}",
        upward.join("\n")
    );
}

/// No circle between the modules of one folder, at any depth (`emit::routes::{decoders,
/// requests, table, watch}` and `model::operations::{conventions, names}` once were).
#[test]
fn no_circle_between_modules() {
    let edges = Sources::read(&src()).edges();
    assert!(
        edges
            .iter()
            .any(|e| name(&e.from) == "emit::routes::table" && name(&e.to) == "model"),
        "the scan finds a known import no more: is it reading the sources?"
    );
    let circles = crate_circles(&edges);
    assert!(circles.is_empty(), "circles:\n{}", circles.join("\n"));
}

/// Emit writes text only (issue 32): no token stream is built in it and no formatter
/// reads what it writes. A user's attributes, which Rust's own parser checks and
/// prettyplease prints, are parsed and spelled when they are configured
/// (`ground/attribute.rs`); emit places the lines.
#[test]
fn emit_builds_no_token_streams() {
    let mut all = Vec::new();
    rust_files(&src().join("emit"), &mut all);
    let mut found = Vec::new();
    for file in &all {
        // A `tests.rs` holds a module declared `#[cfg(test)] mod tests;`: tests only.
        if file.ends_with("tests.rs") {
            continue;
        }
        let code = code_only(&fs::read_to_string(file).expect("readable"));
        for (number, line) in code.lines().enumerate() {
            for word in [
                "proc_macro2",
                "quote::",
                "quote!",
                "TokenStream",
                "prettyplease",
                "syn::",
            ] {
                if line.contains(word) {
                    found.push(format!("{}:{}: {word}", file.display(), number + 1));
                }
            }
        }
    }
    assert!(all.len() > 10, "the scan reads no emit file");
    assert!(
        found.is_empty(),
        "token streams or a formatter in emit:\n{}",
        found.join("\n")
    );
}
