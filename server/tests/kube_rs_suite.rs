//! kube-rs's own cluster tests (the `#[ignore]`d library tests of kube, kube-client and
//! kube-runtime, at the release `kubeforge_tests::kube_rs::VERSION`, from their published
//! packages) against `kubeforge-server serve kubernetes/swagger.json`, then against the
//! server of the OpenAPI v3 documents (`kubernetes/v3/*.json`), one server for each form of
//! the API, with the same expectations for both.
//!
//! And the tests that need a kubelet (those listed in `kube_rs_simulated.txt`) run once
//! more, against `serve --simulate kubernetes/swagger.json`, whose simulated nodes run
//! Pods (told what the busybox container of the log test prints: `--container-log`, and
//! running the exec test's commands on this machine: `--exec-on-host`), with the
//! expectations of that file.
//!
//! Each test runs as a process of its own, several at once against a server and the three
//! servers at once ([`AT_ONCE`]), as kube-rs runs them with libtest's threads against one
//! cluster: most of their time is spent waiting (the tests that fail wait about 15 s each for
//! a condition that never comes), which costs no CPU. The servers start while kube-rs
//! builds. Each test's line, then each server's count, are printed in kube-rs's order
//! whatever order they end in.
//!
//! Every test is listed in `kube_rs_expected.txt`, as passing or as failing with the reason:
//! this test fails when one that passed fails, when one that failed passes (move it), and
//! when a test is missing from the list, so the count cannot drift. `cargo xtask kube-tests`
//! runs it and prints each test's result.
//!
//! The first run fetches the packages (crates.io) and builds them with every feature under
//! cargo's `CARGO_TARGET_TMPDIR` (`kube-tests/`); later runs reuse both.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kubeforge_tests::kube_rs;
use kubeforge_tests::kubectl_server::KubectlServer;

/// Longer than any passing test takes (the slowest waits about 15 s for a condition that
/// never comes); a test still running then has hung.
const LIMIT: Duration = Duration::from_secs(40);

/// How many tests run at once against each server. Five of each non-simulated server's 31
/// wait about 15 s (a watch's timeout, a Pod that never runs), so with fewer than five at
/// once two of them run one after the other; the waits cost no CPU, and the rest take a
/// tenth of a second each.
const AT_ONCE: usize = 8;

/// One server and the tests run against it.
struct Round<'a> {
    /// What it serves, as the summary line says it.
    documents: &'static str,
    /// The directory of its tests' logs, under `logs/`.
    logs: &'static str,
    /// The flags of `serve`.
    flags: Vec<String>,
    /// The documents it serves.
    inputs: Vec<PathBuf>,
    /// What each test is expected to do.
    expected: &'a kube_rs::Expected,
}

/// What a round found: its lines, in kube-rs's order, and what differs from its
/// expectations.
struct Found {
    lines: Vec<String>,
    problems: String,
    /// How many tests ran, and their times added up.
    ran: usize,
    took: Duration,
}

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
    let simulated = kube_rs::parse_expected(include_str!("kube_rs_simulated.txt"))
        .unwrap_or_else(|e| panic!("kube_rs_simulated.txt: {e}"));
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kube-tests");
    std::fs::create_dir_all(&scratch).expect("the scratch directory");
    // The simulation is told what `can_get_pod_logs_and_evict`'s busybox container prints
    // (its command is `for i in $(seq 1 5); do echo kube $i; sleep 0.1; done`), as a test of
    // one's own controller tells it what its images print; and that Pods which end run 30
    // s first (the tests' containers `sleep 20` or `30`), so that a client watching a Pod
    // it has just created sees it running before it ends. The commands its exec test runs
    // (`sh -c 'for i in $(seq 1 3); do echo $i; done'`, `sh` reading stdin) run as
    // processes on this machine (`--exec-on-host`).
    let busybox = scratch.join("busybox.log");
    std::fs::write(&busybox, "kube 1\nkube 2\nkube 3\nkube 4\nkube 5\n").expect("the log file");
    let swagger = corpus.join("kubernetes/swagger.json");
    // The same expectations for both forms of the API: what the server serves must not
    // depend on the form of the documents it was given.
    let rounds = [
        Round {
            documents: "swagger.json",
            logs: "swagger",
            flags: Vec::new(),
            inputs: vec![swagger.clone()],
            expected: &expected,
        },
        Round {
            documents: "the v3 documents",
            logs: "v3",
            flags: Vec::new(),
            inputs: kubeforge_tests::sorted_files(&corpus.join("kubernetes/v3"), "json"),
            expected: &expected,
        },
        Round {
            documents: "swagger.json, simulating",
            logs: "simulated",
            flags: [
                "--simulate",
                "--run-for",
                "30",
                "--container-log",
                &format!("busybox={}", busybox.display()),
                "--exec-on-host",
            ]
            .map(str::to_owned)
            .to_vec(),
            inputs: vec![swagger],
            expected: &simulated,
        },
    ];
    // The servers start while kube-rs builds, but for the simulated one: its simulation looks
    // for work every 50 ms, which costs a tenth of a core while it waits (2.2 s of CPU in 20
    // s, measured), so it starts once kube-rs is built.
    let (binaries, servers) = std::thread::scope(|scope| {
        let starting: Vec<_> = rounds
            .iter()
            .map(|round| (!round.simulates()).then(|| scope.spawn(move || round.start())))
            .collect();
        kube_rs::prepare(&scratch).unwrap_or_else(|e| panic!("{e}"));
        let binaries = kube_rs::build(&scratch).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            binaries.len(),
            kube_rs::PACKAGES.len(),
            "one test binary per package"
        );
        let servers: Vec<Option<KubectlServer>> = starting
            .into_iter()
            .map(|server| {
                server.map(|server| {
                    server
                        .join()
                        .unwrap_or_else(|e| std::panic::resume_unwind(e))
                })
            })
            .collect();
        (binaries, servers)
    });
    let tests: Vec<(&kube_rs::Binary, Vec<String>)> = binaries
        .iter()
        .map(|binary| {
            let tests = kube_rs::ignored_tests(binary).unwrap_or_else(|e| panic!("{e}"));
            (binary, tests)
        })
        .collect();
    let started = Instant::now();
    let mut problems = String::new();
    let (mut ran, mut took) = (0, Duration::ZERO);
    std::thread::scope(|scope| {
        let running: Vec<_> = rounds
            .iter()
            .zip(servers)
            .map(|(round, server)| {
                let logs = scratch.join("logs").join(round.logs);
                let tests = &tests;
                (
                    round,
                    scope.spawn(move || {
                        let server = server.unwrap_or_else(|| round.start());
                        run_all(&logs, tests, round, &server)
                    }),
                )
            })
            .collect();
        // Each round's lines once it has ended, in order.
        for (round, running) in running {
            let found = running
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            ran += found.ran;
            took += found.took;
            for line in &found.lines {
                kubeforge_tests::notice(line);
            }
            if !found.problems.is_empty() {
                problems.push_str(&format!(
                    "against {}:\n{}\n",
                    round.documents, found.problems
                ));
            }
        }
    });
    kubeforge_tests::notice(&format!(
        "kube-rs's cluster tests: {ran} runs against {} servers in {:.1} s (their own times add up to {:.1} s)",
        rounds.len(),
        started.elapsed().as_secs_f64(),
        took.as_secs_f64()
    ));
    assert!(
        problems.is_empty(),
        "kube-rs's cluster tests differ from kube_rs_expected.txt (logs in {}):\n{problems}",
        scratch.join("logs").display()
    );
}

impl Round<'_> {
    /// Whether its server simulates a cluster's nodes.
    fn simulates(&self) -> bool {
        self.flags.iter().any(|flag| flag == "--simulate")
    }

    /// Its server: `kubeforge-server serve` of its inputs, with its flags.
    fn start(&self) -> KubectlServer {
        let flags: Vec<&str> = self.flags.iter().map(String::as_str).collect();
        KubectlServer::start_with(
            env!("CARGO_BIN_EXE_kubeforge-server"),
            "kubectl".into(),
            &flags,
            &self.inputs,
        )
    }
}

/// Runs the tests of `tests` (each binary's, as listed) against the round's `server`,
/// [`AT_ONCE`] at a time: every test without flags, only the tests its expectations list with
/// them. A line for each test and the count, and what differs from the expectations.
fn run_all(
    logs: &Path,
    tests: &[(&kube_rs::Binary, Vec<String>)],
    round: &Round<'_>,
    server: &KubectlServer,
) -> Found {
    let expected = round.expected;
    let kubeconfig = server.dir().join("config");
    std::fs::create_dir_all(logs).expect("the log directory");
    let mut runs = Vec::new();
    for (binary, tests) in tests {
        for test in tests {
            let name = format!("{}::{test}", binary.package);
            let listed =
                expected.pass.contains(&name) || expected.fail.iter().any(|(n, _)| *n == name);
            if !round.flags.is_empty() && !listed {
                continue;
            }
            runs.push(kube_rs::Run {
                binary,
                test: test.clone(),
                log: logs.join(format!(
                    "{}-{}.log",
                    binary.package,
                    test.replace("::", "-")
                )),
            });
        }
    }
    let outcomes =
        kube_rs::run_tests(&runs, &kubeconfig, LIMIT, AT_ONCE).unwrap_or_else(|e| panic!("{e}"));
    let mut lines: Vec<String> = outcomes
        .iter()
        .map(|outcome| {
            let reason = expected
                .fail
                .iter()
                .find(|(n, _)| *n == outcome.name)
                .map_or("", |(_, r)| r.as_str());
            format!(
                "{:<4} {:>5.1}s {}{}",
                if outcome.passed { "ok" } else { "FAIL" },
                outcome.elapsed.as_secs_f64(),
                outcome.name,
                if outcome.passed || reason.is_empty() {
                    String::new()
                } else {
                    format!("  ({reason})")
                }
            )
        })
        .collect();
    let passed = outcomes.iter().filter(|o| o.passed).count();
    lines.push(format!(
        "kube-rs {} cluster tests against {}: {passed} of {} pass (expected {} of {})",
        kube_rs::VERSION,
        round.documents,
        outcomes.len(),
        expected.pass.len(),
        expected.pass.len() + expected.fail.len()
    ));
    Found {
        lines,
        problems: kube_rs::compare(&outcomes, expected),
        ran: outcomes.len(),
        took: outcomes.iter().map(|o| o.elapsed).sum(),
    }
}
