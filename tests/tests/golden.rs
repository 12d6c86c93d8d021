//! Golden tests: each `golden/<case>.json` generates `golden/<case>.rs` exactly. Bless new
//! output with `KUBEFORGE_BLESS=1 cargo test -p kubeforge-tests --test golden`; a bless names
//! every file it rewrote (visible without `--nocapture`), and is refused in CI. The outputs
//! are compiled as modules of this crate (src/golden.rs), so every golden also builds, and
//! their behaviour is tested in `golden_behaviour.rs`. A case named `drop_unknown_fields…`
//! is generated with `Config::unknown_fields(false)`.

use std::fs;
use std::path::Path;

use kubeforge::{Config, Layout};
use kubeforge_tests::{bless, notice, workspace_root};

/// The names in `tests/golden` that end with `.<extension>`, without it, sorted.
fn stems(extension: &str) -> Vec<String> {
    let dir = workspace_root().join("tests/golden");
    let suffix = format!(".{extension}");
    let mut stems: Vec<String> = fs::read_dir(&dir)
        .expect("tests/golden exists")
        .filter_map(Result::ok)
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(suffix.as_str()))
                .map(str::to_owned)
        })
        .collect();
    stems.sort();
    stems
}

/// The golden cases: one per input `golden/<case>.json`.
fn cases() -> Vec<String> {
    stems("json")
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
    let blessing = bless();
    let mut rewritten = Vec::new();
    for case in cases() {
        let actual = generate(&case);
        let path = dir.join(format!("{case}.rs"));
        let expected = fs::read_to_string(&path).ok();
        if blessing {
            if expected.as_deref() != Some(actual.as_str()) {
                fs::write(&path, &actual).expect("write golden");
                rewritten.push(format!("tests/golden/{case}.rs"));
            }
            continue;
        }
        let Some(expected) = expected else {
            failures.push(format!("{case}: golden/{case}.rs is missing"));
            continue;
        };
        if expected != actual {
            let diff = similar::TextDiff::from_lines(&expected, &actual)
                .unified_diff()
                .header(&format!("golden/{case}.rs"), "generated")
                .to_string();
            failures.push(format!("{case}:\n{diff}"));
        }
    }
    if blessing {
        notice(&format!(
            "KUBEFORGE_BLESS: rewrote {} golden file(s){}",
            rewritten.len(),
            rewritten
                .iter()
                .map(|f| format!("\n  {f}"))
                .collect::<String>()
        ));
    }
    assert!(
        failures.is_empty(),
        "golden outputs differ; if the change is intended, run\n    KUBEFORGE_BLESS=1 cargo test -p kubeforge-tests --test golden\n\n{}",
        failures.join("\n")
    );
}

/// A golden output whose input was deleted would still be compiled but never compared.
#[test]
fn every_golden_output_has_its_input() {
    let inputs = cases();
    let orphans: Vec<String> = stems("rs")
        .into_iter()
        .filter(|stem| !inputs.contains(stem))
        .map(|stem| format!("tests/golden/{stem}.rs"))
        .collect();
    assert!(
        orphans.is_empty(),
        "golden outputs without their input `.json` (delete them, or restore the input):\n  {}",
        orphans.join("\n  ")
    );
    let listed =
        fs::read_to_string(workspace_root().join("tests/src/golden.rs")).expect("src/golden.rs");
    let unlisted: Vec<&str> = listed
        .lines()
        .filter_map(|l| {
            l.strip_prefix("#[path = \"../golden/")?
                .strip_suffix(".rs\"]")
        })
        .filter(|stem| !inputs.iter().any(|i| i == stem))
        .collect();
    assert!(
        unlisted.is_empty(),
        "src/golden.rs compiles goldens that have no input `.json`: {unlisted:?}"
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
