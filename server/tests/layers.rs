//! The server's layers import nothing above them, and no two of its modules import each
//! other, even through others (a module and its own children count as one, as
//! `kubeforge_tests::imports` explains). Every path that names another module of the crate is an edge
//! (read by `kubeforge_tests::imports`, the scanner the generator's `stages.rs` uses too);
//! this test lists the edges between layers and fails on one that runs upward, or on a
//! circle anywhere in the crate:
//!
//! ```text
//! wire ─ objects ─ semantics ─ controllers ─ verbs ─ router ─ the facade (lib.rs, bin/)
//! ```
//!
//! Each layer is a folder of `src/` and may use those to its left, never one to its right.
//! Tests (`#[cfg(test)]` items) may use anything.
//! `cargo test -p kubeforge-server --test layers -- --nocapture` prints the edges.

use std::collections::BTreeMap;
use std::path::Path;

use kubeforge_tests::imports::{self, Edge};

/// The layers, bottom up; a module not listed is the facade, above them all.
const LAYERS: &[(&str, usize)] = &[
    ("wire", 0),
    ("objects", 1),
    ("semantics", 2),
    ("controllers", 3),
    ("verbs", 4),
    ("router", 5),
];
const FACADE: usize = 6;

fn layer(module: &[String]) -> &str {
    module.first().map_or("lib", String::as_str)
}

fn rank(layer: &str) -> usize {
    LAYERS
        .iter()
        .find(|(name, _)| *name == layer)
        .map_or(FACADE, |(_, rank)| *rank)
}

fn edges() -> Vec<Edge> {
    imports::Sources::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src")).edges()
}

#[test]
fn no_layer_imports_one_above_it() {
    let edges = edges();
    let mut between: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut upward = Vec::new();
    for edge in &edges {
        let (from, to) = (layer(&edge.from), layer(&edge.to));
        if from == to {
            continue;
        }
        *between.entry((from, to)).or_default() += 1;
        if rank(to) > rank(from) {
            upward.push(format!(
                "{}:{}: {} ({from}, layer {}) imports {} ({to}, layer {})",
                edge.file.display(),
                edge.line,
                imports::name(&edge.from),
                rank(from),
                imports::name(&edge.to),
                rank(to),
            ));
        }
    }
    println!("imports between layers (from → to: references):");
    for ((from, to), count) in &between {
        println!("  {from} → {to}: {count}");
    }
    println!(
        "{} imports between layers, {} in all",
        between.values().sum::<usize>(),
        edges.len()
    );
    assert!(
        between.contains_key(&("verbs", "semantics")),
        "the scan finds no edge at all: is it reading the sources?"
    );
    for (name, _) in LAYERS {
        assert!(
            edges.iter().any(|e| layer(&e.from) == *name),
            "no module of layer {name} imports anything: is the layer still there?"
        );
    }
    assert!(
        upward.is_empty(),
        "imports that run upward:\n{}",
        upward.join("\n")
    );
}

#[test]
fn no_modules_import_each_other() {
    let circles = imports::crate_circles(&edges());
    assert!(
        circles.is_empty(),
        "modules that import each other:\n{}",
        circles.join("\n")
    );
}
