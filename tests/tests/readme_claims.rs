//! README.md states counts about the corpus and the tests; each is a constant in
//! `kubeforge_tests::claims`, asserted exactly by the test that measures it (`scale.rs`,
//! `hostile.rs`, `properties.rs`, and here). This checks that README.md states exactly those
//! constants, so that a README number cannot be changed, or go stale, without a test noticing.

use std::fs;

use kubeforge_tests::claims::{self, readme_phrases};
use kubeforge_tests::workspace_root;

/// Whitespace runs (README lines wrap anywhere) become one space.
fn normalized(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn readme_states_every_asserted_count_exactly() {
    let readme = normalized(
        &fs::read_to_string(workspace_root().join("README.md")).expect("README.md is readable"),
    );
    let missing: Vec<String> = readme_phrases()
        .into_iter()
        .filter(|phrase| !readme.contains(&normalized(phrase)))
        .collect();
    assert!(
        missing.is_empty(),
        "README.md no longer states these counts (update README.md or tests/src/claims.rs, \
         and the test that measures the count):\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn counts_checked_without_the_corpus() {
    assert_eq!(kubeforge::fixups().count(), claims::FIXUPS);
    let manifest =
        fs::read_to_string(workspace_root().join("Cargo.toml")).expect("Cargo.toml is readable");
    assert!(
        manifest.contains(&format!("rust-version = \"{}\"", claims::RUST_VERSION)),
        "the workspace's rust-version is not {}",
        claims::RUST_VERSION
    );
}

#[test]
fn numbers_are_spelled_as_the_readme_spells_them() {
    assert_eq!(claims::thousands(1790), "1,790");
    assert_eq!(claims::thousands(10_000), "10,000");
    assert_eq!(claims::thousands(999), "999");
    assert_eq!(claims::thousands(1_234_567), "1,234,567");
    assert_eq!(claims::spelled(5), "five");
    assert_eq!(claims::spelled(12), "12");
}
