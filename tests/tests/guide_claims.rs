//! The guide (`docs/src`) states counts about the corpus and the tests; each is a constant in
//! `kubeforge_tests::claims`, asserted exactly by the test that measures it (`scale.rs`,
//! `hostile.rs`, `properties.rs`, and here). This checks that each page states exactly those
//! constants, so that a stated number cannot be changed, or go stale, without a test
//! noticing. Likewise the guide's table of mutants (`contributing/mutants.md`) lists exactly
//! the mutants `cargo xtask mutants` plants, each with its file and the test targets that must
//! catch it.

use std::fs;

use kubeforge_tests::claims::{self, page_phrases};
use kubeforge_tests::{docs, workspace_root};

/// Whitespace runs (lines wrap anywhere) become one space.
fn normalized(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_guide_states_every_asserted_count_exactly() {
    let missing: Vec<String> = page_phrases()
        .into_iter()
        .filter(|(page, phrase)| !normalized(&docs::page(page).text).contains(&normalized(phrase)))
        .map(|(page, phrase)| format!("docs/src/{page}: {phrase}"))
        .collect();
    assert!(
        missing.is_empty(),
        "the guide no longer states these counts (update the page or tests/src/claims.rs, \
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
fn numbers_are_spelled_as_the_guide_spells_them() {
    assert_eq!(claims::thousands(1790), "1,790");
    assert_eq!(claims::thousands(10_000), "10,000");
    assert_eq!(claims::thousands(999), "999");
    assert_eq!(claims::thousands(1_234_567), "1,234,567");
    assert_eq!(claims::spelled(5), "five");
    assert_eq!(claims::spelled(12), "12");
}

/// The guide's table of mutants (`contributing/mutants.md`): one row per mutant of
/// `xtask/src/mutants.rs`, naming its file, and in its last column exactly the test targets
/// the runner runs for it: none left out, none it does not run.
#[test]
fn the_guide_lists_every_mutant_as_the_runner_plants_it() {
    use xtask::mutants::{MUTANTS, PACKAGE_DIRS};
    let page = docs::page("contributing/mutants.md").text;
    let rows: Vec<&str> = page.lines().filter(|l| l.starts_with("| `")).collect();
    let names: Vec<&str> = MUTANTS.iter().map(|m| m.name).collect();
    assert_eq!(
        rows.len(),
        MUTANTS.len(),
        "the guide's table has {} rows for the mutants {names:?}",
        rows.len()
    );
    let mut wrong = Vec::new();
    for mutant in MUTANTS {
        let row = rows
            .iter()
            .find(|r| r.starts_with(&format!("| `{}` |", mutant.name)))
            .unwrap_or_else(|| panic!("the guide's table has no row for {}", mutant.name));
        if !row.contains(&format!("`{}`", mutant.file)) {
            wrong.push(format!(
                "{}: the row does not name `{}`",
                mutant.name, mutant.file
            ));
        }
        // The targets the row names: every code span of its last column that starts with a
        // package of the workspace and a colon.
        let caught_by = row.trim_end_matches('|').rsplit(" | ").next().unwrap_or("");
        let named: std::collections::BTreeSet<&str> = caught_by
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|span| {
                PACKAGE_DIRS
                    .iter()
                    .any(|(package, _)| span.starts_with(&format!("{package}:")))
            })
            .collect();
        let run: std::collections::BTreeSet<&str> = mutant.tests.iter().copied().collect();
        if named != run {
            wrong.push(format!(
                "{}: the row names {named:?}, the runner runs {run:?}",
                mutant.name
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "the guide's table of mutants differs from xtask/src/mutants.rs:\n  {}",
        wrong.join("\n  ")
    );
    assert!(
        page.contains(&format!("{} mutants", MUTANTS.len())),
        "the guide does not say how many mutants there are ({})",
        MUTANTS.len()
    );
}
