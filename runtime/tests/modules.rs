//! No circle in the runtime: in each folder, no two modules (files or subfolders) import
//! each other, directly or through others (`schema::cel` and `schema::validate` once did):
//! what both use lives below both. A module and its own children are one unit (they use
//! what it defines, it uses what they do), as `tests/src/imports.rs`, the scanner shared
//! with the generator's `stages.rs` and the server's layers, explains.
//! `cargo test -p kubeforge-runtime --test modules -- --nocapture` prints the imports.

// A dev-dependency on kubeforge-tests, where the scanner is, would build the generator
// and the generated API for the runtime's tests (and be a cycle): its one file is
// included instead.
#[path = "../../tests/src/imports.rs"]
#[allow(dead_code)]
mod imports;

use std::path::Path;

use imports::{Sources, crate_circles, name};

#[test]
fn no_circle_between_modules() {
    let sources = Sources::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let edges = sources.edges();
    println!("imports between files (from → to):");
    for edge in &edges {
        println!(
            "  {}:{}: {} → {}",
            edge.file.display(),
            edge.line,
            name(&edge.from),
            name(&edge.to)
        );
    }
    assert!(
        edges
            .iter()
            .any(|e| name(&e.from) == "schema::validate::openapi" && name(&e.to) == "schema::view"),
        "the scan finds a known import no more: is it reading the sources?"
    );
    let circles = crate_circles(&edges);
    assert!(circles.is_empty(), "circles:\n{}", circles.join("\n"));
}
