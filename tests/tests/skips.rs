//! The lookups of what tests need from outside the repository (`kubeforge-testenv`: the
//! corpus, and `kubectl` on `PATH`) never let a test pass silently: outside CI a missing
//! corpus file or program is a visible `SKIPPED` line (shown by `cargo test` without
//! `--nocapture`), in CI it is a failure that names what is missing. The process-level checks
//! run this test binary again as a child, with `KUBEFORGE_CORPUS` pointing at an empty
//! directory or `PATH` at one without `kubectl`, and look at what the user would see.

use std::path::Path;
use std::process::{Command, Output};

use kubeforge_tests::{corpus_in, program_in};

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

/// Runs the ignored test `child` of this binary with `variable` set to `value`, and `CI` as
/// given.
fn run_child_test(child: &str, variable: &str, value: &Path, ci: Option<&str>) -> Output {
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command
        .args([child, "--exact", "--ignored"])
        .env(variable, value)
        .env_remove("CI");
    if let Some(ci) = ci {
        command.env("CI", ci);
    }
    command.output().expect("the test binary runs")
}

fn run_child(corpus: &Path, ci: Option<&str>) -> Output {
    run_child_test("child_needs_the_corpus", "KUBEFORGE_CORPUS", corpus, ci)
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

/// The test the `kubectl` child processes run: `PATH` has no `kubectl`.
#[test]
#[ignore = "run by the other tests of this file as a child process, without kubectl on PATH"]
fn child_needs_kubectl() {
    let found = kubeforge_tests::kubectl("child_needs_kubectl");
    assert!(found.is_none(), "kubectl was expected to be missing");
}

fn run_kubectl_child(path: &Path, ci: Option<&str>) -> Output {
    run_child_test("child_needs_kubectl", "PATH", path, ci)
}

#[test]
fn without_kubectl_a_skip_outside_ci_and_a_failure_in_ci() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A `kubectl` that cannot be run is not one.
    std::fs::write(dir.path().join("kubectl"), "not a program").expect("write");
    let output = run_kubectl_child(dir.path(), None);
    let all = text(&output);
    assert!(output.status.success(), "a skip passes:\n{all}");
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("SKIPPED: child_needs_kubectl: `kubectl` is not installed"),
        "the skip is on stderr although the harness captures output:\n{all}"
    );
    let output = run_kubectl_child(dir.path(), Some("true"));
    let all = text(&output);
    assert!(!output.status.success(), "CI=true: must fail:\n{all}");
    assert!(
        all.contains("`kubectl` is not installed and CI is set")
            && all.contains(&dir.path().display().to_string()),
        "CI=true: names the program and where it was looked for:\n{all}"
    );
    assert!(!all.contains("SKIPPED"), "no skip in CI:\n{all}");
}

#[cfg(unix)]
#[test]
fn a_program_is_found_on_path_in_order_and_through_links() {
    use std::os::unix::fs::PermissionsExt as _;
    let (first, second) = (
        tempfile::tempdir().expect("temp dir"),
        tempfile::tempdir().expect("temp dir"),
    );
    let real = second.path().join("real-kubectl");
    std::fs::write(&real, "#!/bin/sh\n").expect("write");
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::os::unix::fs::symlink(&real, second.path().join("kubectl")).expect("link");
    // Not executable: passed over.
    std::fs::write(first.path().join("kubectl"), "").expect("write");
    let path = std::env::join_paths([first.path(), second.path()]).expect("PATH");
    for ci in [false, true] {
        assert_eq!(
            program_in("kubectl", Some(&path), "found", ci),
            Some(second.path().join("kubectl"))
        );
    }
}

/// The only places of the workspace's sources that may write a skip line, each with why it
/// cannot pass silently in CI. Every other test skips through `kubeforge_tests::corpus` and
/// its siblings (`shared_data`, `kubectl`), which fail under `CI`.
const SKIP_WRITERS: &[(&str, &str)] = &[
    (
        "tests/src/lib.rs",
        "the rule itself: `corpus_in` and `program_in` fail under CI before they print",
    ),
    (
        "xtask/src/main.rs",
        "`cargo xtask regen` without the corpus: a command, not a test; it fails under CI",
    ),
    (
        "xtask/src/bench/report.rs",
        "`cargo xtask bench`'s report: a measurement CI does not run",
    ),
    (
        "xtask/src/bench/setup.rs",
        "`cargo xtask bench`'s setup: a measurement CI does not run",
    ),
    (
        "tests/tests/skips.rs",
        "this file: it checks the skip lines the rule writes",
    ),
];

/// Every Rust source of the workspace that can write a skip line (the word in a string
/// literal, not in a comment) is one of [`SKIP_WRITERS`], and each of those still does: a
/// new test that prints its own skip instead of going through the CI rule fails here.
#[test]
fn every_skip_goes_through_the_ci_rule() {
    let root = kubeforge_tests::workspace_root();
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
            "*.rs",
        ])
        .current_dir(&root)
        .output()
        .expect("git runs");
    assert!(listed.status.success(), "git ls-files failed");
    let word = ["SKIP", "PED"].concat();
    let mut writers = Vec::new();
    for name in listed.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        let Ok(text) = std::fs::read_to_string(root.join(&name)) else {
            continue; // deleted in the work tree
        };
        let writes = text
            .lines()
            .map(str::trim_start)
            .filter(|line| !line.starts_with("//"))
            .any(|line| line.contains(&word));
        if writes {
            writers.push(name);
        }
    }
    writers.sort();
    let mut allowed: Vec<String> = SKIP_WRITERS.iter().map(|(f, _)| (*f).to_owned()).collect();
    allowed.sort();
    assert_eq!(
        writers, allowed,
        "the sources that can write a skip line changed: a test must skip through \
         kubeforge_tests::corpus (or shared_data, kubectl), which fails under CI; \
         update SKIP_WRITERS only for what is not a test"
    );
}
