//! The corpus helper never lets a test pass silently: outside CI a missing corpus file is a
//! visible `SKIPPED` line (shown by `cargo test` without `--nocapture`), in CI it is a failure
//! that names the file. The process-level checks run this test binary again as a child, with
//! `KUBEFORGE_CORPUS` pointing at an empty directory, and look at what the user would see.

use std::path::Path;
use std::process::{Command, Output};

use kubeforge_tests::corpus_in;

const NEEDED: &str = "kubernetes/swagger.json";

#[test]
fn a_complete_corpus_is_returned() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("kubernetes")).expect("mkdir");
    std::fs::write(dir.path().join(NEEDED), "{}").expect("write");
    for ci in [false, true] {
        assert_eq!(
            corpus_in(dir.path(), "complete", &[NEEDED], ci).as_deref(),
            Some(dir.path())
        );
    }
}

#[test]
fn outside_ci_a_missing_file_is_a_skip() {
    let dir = tempfile::tempdir().expect("temp dir");
    assert_eq!(
        corpus_in(
            dir.path(),
            "skips.rs self-test (a partial corpus)",
            &[NEEDED],
            false
        ),
        None
    );
    let absent = dir.path().join("absent");
    assert_eq!(
        corpus_in(&absent, "skips.rs self-test (no corpus)", &[], false),
        None
    );
}

#[test]
fn in_ci_a_missing_file_fails_and_is_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("other.json"), "{}").expect("write");
    let path = dir.path().to_path_buf();
    let panic = std::panic::catch_unwind(|| corpus_in(&path, "partial", &[NEEDED], true))
        .expect_err("a missing file in CI is a failure");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains(&dir.path().join(NEEDED).display().to_string()),
        "{message}"
    );
    assert!(message.contains("partial"), "{message}");
}

/// The test the child processes run: it needs a file the empty corpus lacks.
#[test]
#[ignore = "run by the other tests of this file as a child process, with an empty corpus"]
fn child_needs_the_corpus() {
    let found = kubeforge_tests::corpus("child_needs_the_corpus", &[NEEDED]);
    assert!(found.is_none(), "the corpus was expected to be empty");
}

fn run_child(corpus: &Path, ci: Option<&str>) -> Output {
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command
        .args(["child_needs_the_corpus", "--exact", "--ignored"])
        .env("KUBEFORGE_CORPUS", corpus)
        .env_remove("CI");
    if let Some(ci) = ci {
        command.env("CI", ci);
    }
    command.output().expect("the test binary runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn a_skip_is_visible_without_nocapture() {
    let dir = tempfile::tempdir().expect("temp dir");
    for ci in [None, Some(""), Some("false"), Some("0")] {
        let output = run_child(dir.path(), ci);
        let text = text(&output);
        assert!(output.status.success(), "CI={ci:?}: a skip passes:\n{text}");
        let missing = dir.path().join(NEEDED);
        assert!(
            String::from_utf8_lossy(&output.stderr).contains(&format!(
                "SKIPPED: child_needs_the_corpus: missing {}",
                missing.display()
            )),
            "CI={ci:?}: the skip must be on stderr although the harness captures output:\n{text}"
        );
    }
}

#[test]
fn in_ci_the_child_fails_naming_the_missing_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    for ci in ["true", "1", "yes"] {
        let output = run_child(dir.path(), Some(ci));
        let text = text(&output);
        assert!(!output.status.success(), "CI={ci}: must fail:\n{text}");
        assert!(
            text.contains(&dir.path().join(NEEDED).display().to_string()),
            "CI={ci}: names the missing file:\n{text}"
        );
        assert!(!text.contains("SKIPPED"), "CI={ci}: no skip in CI:\n{text}");
    }
}
