//! Golden tests: each `golden/<case>.json` generates `golden/<case>.rs` exactly. Bless new
//! output with `KUBEFORGE_BLESS=1 cargo test -p kubeforge-tests --test golden`; the outputs are
//! compiled as modules of this crate (src/golden.rs), so every golden also builds. A case
//! named `drop_unknown_fields…` is generated with `Config::unknown_fields(false)`.

use std::fs;
use std::path::Path;

use kubeforge::{Config, Layout};
use kubeforge_tests::{bless, workspace_root};

fn cases() -> Vec<String> {
    let dir = workspace_root().join("tests/golden");
    let mut cases: Vec<String> = fs::read_dir(&dir)
        .expect("tests/golden exists")
        .filter_map(Result::ok)
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".json"))
                .map(str::to_owned)
        })
        .collect();
    cases.sort();
    cases
}

fn generate(case: &str) -> String {
    let root = workspace_root();
    let input = Path::new("tests/golden").join(format!("{case}.json"));
    let output = Config::new()
        .input_named(root.join(&input), &input)
        .layout(Layout::SingleFile)
        .root_path(format!("crate::golden::{case}"))
        .generated_by("KUBEFORGE_BLESS=1 cargo test -p kubeforge-tests --test golden")
        .unknown_fields(!case.starts_with("drop_unknown_fields"))
        .generate()
        .unwrap_or_else(|e| panic!("golden case {case} does not generate:\n{e}"));
    output
        .files()
        .values()
        .next()
        .cloned()
        .expect("single-file layout has one file")
}

#[test]
fn goldens_match() {
    let dir = workspace_root().join("tests/golden");
    let mut failures = Vec::new();
    for case in cases() {
        let actual = generate(&case);
        let path = dir.join(format!("{case}.rs"));
        if bless() {
            fs::write(&path, &actual).expect("write golden");
            continue;
        }
        let expected = fs::read_to_string(&path).unwrap_or_default();
        if expected != actual {
            let diff = similar::TextDiff::from_lines(&expected, &actual)
                .unified_diff()
                .header(&format!("golden/{case}.rs"), "generated")
                .to_string();
            failures.push(format!("{case}:\n{diff}"));
        }
    }
    assert!(
        failures.is_empty(),
        "golden outputs differ; if the change is intended, run\n    KUBEFORGE_BLESS=1 cargo test -p kubeforge-tests --test golden\n\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_golden_is_compiled() {
    let listed =
        fs::read_to_string(workspace_root().join("tests/src/golden.rs")).expect("src/golden.rs");
    for case in cases() {
        let declaration =
            format!("#[rustfmt::skip]\n#[path = \"../golden/{case}.rs\"]\npub mod {case};");
        assert!(
            listed.contains(&declaration),
            "add the golden `{case}` to tests/src/golden.rs:\n{declaration}"
        );
    }
}

#[test]
fn generation_is_deterministic() {
    for case in cases() {
        assert_eq!(
            generate(&case),
            generate(&case),
            "{case} differs between two runs"
        );
    }
}
