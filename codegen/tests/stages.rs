//! The stages import nothing above them. Every path that names another module of the crate
//! (`crate::…`, `super::…` leaving the stage, a `use` group's; read by
//! `kubeforge_tests::imports`, the scanner the server's `layers.rs` uses too) is an edge from
//! the file's stage to that module's; this test lists them and fails on one that runs upward:
//!
//! ```text
//! diagnostics, timings ─ ground ─ load ─ model ─ emit ─ write ─ the facade (lib.rs, compile,
//!                                                               package, cli, diff)
//! ```
//!
//! Each stage may use those to its left (the ground floor only what is left of it), never
//! one to its right. A name the facade re-exports (`crate::Error`, `crate::ModuleRules`)
//! counts as the module it comes from. Tests (`#[cfg(test)]` items) may use anything.
//! Comments and string literals are not code: the generator spells `crate::…` paths in text.
//! `cargo test -p kubeforge --test stages -- --nocapture` prints the edges.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use kubeforge_tests::imports::{self, code_only, rust_files};

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

#[test]
fn no_stage_imports_one_above_it() {
    let mut edges: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut upward = Vec::new();
    for edge in imports::edges(&src()) {
        let name = |module: &[String]| module.first().cloned().unwrap_or_else(|| "lib".to_owned());
        let (stage, target) = (name(&edge.from), name(&edge.to));
        if target == stage {
            continue;
        }
        *edges.entry((stage.clone(), target.clone())).or_default() += 1;
        let (from, to) = (rank(&stage), rank(&target));
        // The ground floor's own modules rank alike but must not import each other.
        if to > from || (to == from && from < FACADE) {
            upward.push(format!(
                "{}:{}: {stage} (stage {from}) imports {target} (stage {to})",
                edge.file.display(),
                edge.line
            ));
        }
    }
    println!("imports between stages (from → to: references):");
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
