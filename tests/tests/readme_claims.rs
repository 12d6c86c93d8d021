//! README.md states counts about the corpus and the tests; each is a constant in
//! `kubeforge_tests::claims`, asserted exactly by the test that measures it (`scale.rs`,
//! `hostile.rs`, `properties.rs`, and here). This checks that README.md states exactly those
//! constants, so that a README number cannot be changed, or go stale, without a test noticing.
//! Likewise README's table of mutants lists exactly the mutants `cargo xtask mutants` plants,
//! each with its file and the test targets that must catch it.

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

/// README's "Mutants" table: one row per mutant of `xtask/src/mutants.rs`, naming its file and
/// every test target the runner runs for it, and nothing else.
#[test]
fn readme_lists_every_mutant_as_the_runner_plants_it() {
    use xtask::mutants::MUTANTS;
    let readme = fs::read_to_string(workspace_root().join("README.md")).expect("README.md");
    let start = readme.find("### Mutants").expect("a Mutants section");
    let section = &readme[start..];
    let end = section[3..].find("\n#").map_or(section.len(), |i| i + 3);
    let rows: Vec<&str> = section[..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .collect();
    let names: Vec<&str> = MUTANTS.iter().map(|m| m.name).collect();
    assert_eq!(
        rows.len(),
        MUTANTS.len(),
        "README's table has {} rows for the mutants {names:?}",
        rows.len()
    );
    for mutant in MUTANTS {
        let row = rows
            .iter()
            .find(|r| r.starts_with(&format!("| `{}` |", mutant.name)))
            .unwrap_or_else(|| panic!("README's table has no row for {}", mutant.name));
        for needed in std::iter::once(&mutant.file).chain(mutant.tests) {
            assert!(
                row.contains(&format!("`{needed}`")),
                "README's row for {} does not name `{needed}`:\n{row}",
                mutant.name
            );
        }
    }
    assert!(
        readme.contains(&format!("{} mutants", MUTANTS.len())),
        "README does not say how many mutants there are ({})",
        MUTANTS.len()
    );
}
