//! kube-rs's own cluster tests (the `#[ignore]`d library tests of kube, kube-client and
//! kube-runtime, at the release `kubeforge_tests::kube_rs::VERSION`, from their published
//! packages) against `kubeforge-server serve kubernetes/swagger.json`, then against the
//! server of the OpenAPI v3 documents (`kubernetes/v3/*.json`): each test alone, in order,
//! against one server for each form of the API, with the same expectations for both.
//!
//! Then the tests that need a kubelet (those listed in `kube_rs_simulated.txt`) run once
//! more, against `serve --simulate kubernetes/swagger.json`, whose simulated nodes run
//! Pods (told what the busybox container of the log test prints: `--container-log`, and
//! running the exec test's commands on this machine: `--exec-on-host`), with the
//! expectations of that file.
//!
//! Every test is listed in `kube_rs_expected.txt`, as passing or as failing with the reason:
//! this test fails when one that passed fails, when one that failed passes (move it), and
//! when a test is missing from the list, so the count cannot drift. `cargo xtask kube-tests`
//! runs it and prints each test's result.
//!
//! The first run fetches the packages (crates.io) and builds them with every feature under
//! cargo's `CARGO_TARGET_TMPDIR` (`kube-tests/`); later runs reuse both.

use std::path::Path;
use std::time::Duration;

use kubeforge_tests::kube_rs;
use kubeforge_tests::kubectl_server::KubectlServer;

/// Longer than any passing test takes (the slowest waits about 15 s for a condition that
/// never comes); a test still running then has hung.
const LIMIT: Duration = Duration::from_secs(40);

#[test]
fn kube_rs_cluster_tests() {
    let Some(corpus) = kubeforge_tests::corpus(
        "kube_rs_cluster_tests",
        &["kubernetes/swagger.json", "kubernetes/v3"],
    ) else {
        return;
    };
    let expected = kube_rs::parse_expected(include_str!("kube_rs_expected.txt"))
        .unwrap_or_else(|e| panic!("kube_rs_expected.txt: {e}"));
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kube-tests");
    std::fs::create_dir_all(&scratch).expect("the scratch directory");
    kube_rs::prepare(&scratch).unwrap_or_else(|e| panic!("{e}"));
    let binaries = kube_rs::build(&scratch).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        binaries.len(),
        kube_rs::PACKAGES.len(),
        "one test binary per package"
    );
    // The same expectations for both forms of the API: what the server serves must not
    // depend on the form of the documents it was given.
    let mut problems = String::new();
    for (documents, logs, inputs) in [
        (
            "swagger.json",
            "swagger",
            vec![corpus.join("kubernetes/swagger.json")],
        ),
        (
            "the v3 documents",
            "v3",
            kubeforge_tests::sorted_files(&corpus.join("kubernetes/v3"), "json"),
        ),
    ] {
        let logs = scratch.join("logs").join(logs);
        let found = run_all(&logs, &binaries, &[], &inputs, &expected, documents);
        if !found.is_empty() {
            problems.push_str(&format!("against {documents}:\n{found}\n"));
        }
    }
    let simulated = kube_rs::parse_expected(include_str!("kube_rs_simulated.txt"))
        .unwrap_or_else(|e| panic!("kube_rs_simulated.txt: {e}"));
    // The simulation is told what `can_get_pod_logs_and_evict`'s busybox container prints
    // (its command is `for i in $(seq 1 5); do echo kube $i; sleep 0.1; done`), as a test of
    // one's own controller tells it what its images print; and that Pods which end run 30
    // s first (the tests' containers `sleep 20` or `30`), so that a client watching a Pod
    // it has just created sees it running before it ends. The commands its exec test runs
    // (`sh -c 'for i in $(seq 1 3); do echo $i; done'`, `sh` reading stdin) run as
    // processes on this machine (`--exec-on-host`).
    let busybox = scratch.join("busybox.log");
    std::fs::write(&busybox, "kube 1\nkube 2\nkube 3\nkube 4\nkube 5\n").expect("the log file");
    let container_log = format!("busybox={}", busybox.display());
    let found = run_all(
        &scratch.join("logs").join("simulated"),
        &binaries,
        &[
            "--simulate",
            "--run-for",
            "30",
            "--container-log",
            &container_log,
            "--exec-on-host",
        ],
        &[corpus.join("kubernetes/swagger.json")],
        &simulated,
        "swagger.json, simulating",
    );
    if !found.is_empty() {
        problems.push_str(&format!("simulating:\n{found}\n"));
    }
    assert!(
        problems.is_empty(),
        "kube-rs's cluster tests differ from kube_rs_expected.txt (logs in {}):\n{problems}",
        scratch.join("logs").display()
    );
}

/// Runs the tests of `binaries` against a server of `inputs` started with `flags`: every
/// test without flags, only the tests `expected` lists with them; what differs from
/// `expected`.
fn run_all(
    logs: &Path,
    binaries: &[kube_rs::Binary],
    flags: &[&str],
    inputs: &[std::path::PathBuf],
    expected: &kube_rs::Expected,
    documents: &str,
) -> String {
    let server = KubectlServer::start_with(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        "kubectl".into(),
        flags,
        inputs,
    );
    let kubeconfig = server.dir().join("config");
    std::fs::create_dir_all(logs).expect("the log directory");
    let mut outcomes = Vec::new();
    for binary in binaries {
        for test in kube_rs::ignored_tests(binary).unwrap_or_else(|e| panic!("{e}")) {
            let name = format!("{}::{test}", binary.package);
            let listed =
                expected.pass.contains(&name) || expected.fail.iter().any(|(n, _)| *n == name);
            if !flags.is_empty() && !listed {
                continue;
            }
            let log = logs.join(format!(
                "{}-{}.log",
                binary.package,
                test.replace("::", "-")
            ));
            let outcome = kube_rs::run_test(binary, &test, &kubeconfig, LIMIT, &log)
                .unwrap_or_else(|e| panic!("{e}"));
            let reason = expected
                .fail
                .iter()
                .find(|(n, _)| *n == outcome.name)
                .map_or("", |(_, r)| r.as_str());
            kubeforge_tests::notice(&format!(
                "{:<4} {:>5.1}s {}{}",
                if outcome.passed { "ok" } else { "FAIL" },
                outcome.elapsed.as_secs_f64(),
                outcome.name,
                if outcome.passed || reason.is_empty() {
                    String::new()
                } else {
                    format!("  ({reason})")
                }
            ));
            outcomes.push(outcome);
        }
    }
    let passed = outcomes.iter().filter(|o| o.passed).count();
    kubeforge_tests::notice(&format!(
        "kube-rs {} cluster tests against {documents}: {passed} of {} pass (expected {} of {})",
        kube_rs::VERSION,
        outcomes.len(),
        expected.pass.len(),
        expected.pass.len() + expected.fail.len()
    ));
    kube_rs::compare(&outcomes, expected)
}
