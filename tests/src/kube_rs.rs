//! kube-rs's own cluster tests: the `#[ignore]`d library tests of the `kube`,
//! `kube-client` and `kube-runtime` packages at one pinned version, built from the
//! packages published on crates.io (`cargo vendor` of a scratch manifest) and run as
//! kube-rs's justfile `test-integration` does (`cargo test --lib --all-features --
//! --ignored`), each test a process of its own with `KUBECONFIG` pointing at a server, several
//! at once ([`run_tests`]): kube-rs runs them with libtest's threads against one cluster.
//!
//! Everything fetched and built stays in the scratch directory the caller gives (under
//! cargo's target directory); nothing of it is committed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The kube-rs release whose tests are run.
pub const VERSION: &str = "4.2.0";

/// The packages whose ignored library tests are run, as their test names are prefixed.
pub const PACKAGES: [&str; 3] = ["kube", "kube-client", "kube-runtime"];

/// One test binary: the package and its executable.
pub struct Binary {
    /// `kube`, `kube-client` or `kube-runtime`.
    pub package: String,
    /// The built unit-test executable.
    pub path: PathBuf,
}

/// One test's result.
pub struct Outcome {
    /// `<package>::<test path>`, e.g. `kube-client::test::aggregated_discovery_apis`.
    pub name: String,
    /// Whether it passed within the time allowed.
    pub passed: bool,
    /// Whether it was stopped at the time limit.
    pub timed_out: bool,
    /// How long it ran.
    pub elapsed: Duration,
    /// The last lines of what it printed.
    pub output: String,
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn run(command: &mut Command, what: &str) -> Result<String, String> {
    let output = command
        .output()
        .map_err(|e| format!("{what}: cannot run: {e}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!(
            "{what} failed ({}):\n{}",
            output.status,
            tail(&String::from_utf8_lossy(&output.stderr), 40)
        ))
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Fetches the packages' sources into `scratch/vendor` (once) and writes the scratch
/// workspace `scratch/Cargo.toml` whose members are the three packages.
///
/// Publishing drops a package's path-only dev-dependencies, so `kube-client` and
/// `kube-runtime` lose the `kube` dev-dependency their tests use; it is put back as kube-rs's
/// own manifests at the release declare it.
///
/// # Errors
///
/// When cargo cannot fetch the packages or a file cannot be written.
pub fn prepare(scratch: &Path) -> Result<(), String> {
    let vendor = scratch.join("vendor");
    if !vendor.join(format!("kube-{VERSION}")).is_dir() {
        let fetch = scratch.join("fetch");
        std::fs::create_dir_all(fetch.join("src")).map_err(|e| e.to_string())?;
        let deps: String = PACKAGES
            .iter()
            .map(|p| format!("{p} = \"={VERSION}\"\n"))
            .collect();
        write(
            &fetch.join("Cargo.toml"),
            &format!(
                "[package]\nname = \"kube-tests-fetch\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\n{deps}\n[workspace]\n"
            ),
        )?;
        write(&fetch.join("src/lib.rs"), "")?;
        let partial = scratch.join("vendor.partial");
        let _ = std::fs::remove_dir_all(&partial);
        run(
            cargo()
                .args(["vendor", "--quiet", "--versioned-dirs"])
                .arg(&partial)
                .current_dir(&fetch),
            "cargo vendor",
        )?;
        for package in ["kube-client", "kube-runtime"] {
            let manifest = partial.join(format!("{package}-{VERSION}/Cargo.toml"));
            let text = std::fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
            write(
                &manifest,
                &format!(
                    "{text}\n[dev-dependencies.kube]\npath = \"../kube-{VERSION}\"\nfeatures = [\"derive\", \"client\", \"runtime\", \"ws\"]\n"
                ),
            )?;
        }
        std::fs::rename(&partial, &vendor).map_err(|e| e.to_string())?;
    }
    let members: Vec<String> = PACKAGES
        .iter()
        .map(|p| format!("\"vendor/{p}-{VERSION}\""))
        .collect();
    let patches: String = PACKAGES
        .iter()
        .map(|p| format!("{p} = {{ path = \"vendor/{p}-{VERSION}\" }}\n"))
        .collect();
    write(
        &scratch.join("Cargo.toml"),
        &format!(
            "[workspace]\nresolver = \"2\"\nmembers = [{}]\nexclude = [\"fetch\"]\n\n[patch.crates-io]\n{patches}",
            members.join(", ")
        ),
    )
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Builds the packages' library tests with every feature in `scratch/target`, and returns
/// their executables.
///
/// # Errors
///
/// When the build fails.
pub fn build(scratch: &Path) -> Result<Vec<Binary>, String> {
    let mut command = cargo();
    command
        .args(["test", "--lib", "--all-features", "--no-run"])
        .args(["--message-format", "json-render-diagnostics"])
        .env("CARGO_TARGET_DIR", scratch.join("target"))
        // Built once per target directory: incremental state (which CI's test step would
        // otherwise ask for, `.ci/run`) only costs time and disk (`crate::scale::INCREMENTAL`).
        .env("CARGO_INCREMENTAL", crate::scale::INCREMENTAL)
        .env("CARGO_PROFILE_DEV_DEBUG", crate::scale::DEBUG)
        .env("CARGO_PROFILE_TEST_DEBUG", crate::scale::DEBUG)
        .current_dir(scratch);
    for package in PACKAGES {
        command.args(["--package", package]);
    }
    let stdout = run(&mut command, "building kube-rs's tests")?;
    let mut binaries = Vec::new();
    for line in stdout.lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if message["reason"] == "compiler-artifact"
            && message["profile"]["test"] == true
            && let (Some(name), Some(path)) = (
                message["target"]["name"].as_str(),
                message["executable"].as_str(),
            )
        {
            binaries.push(Binary {
                package: name.replace('_', "-"),
                path: PathBuf::from(path),
            });
        }
    }
    binaries.sort_by(|a, b| a.package.cmp(&b.package));
    Ok(binaries)
}

/// The ignored tests of a binary, in the order libtest lists them.
///
/// # Errors
///
/// When the binary cannot list its tests.
pub fn ignored_tests(binary: &Binary) -> Result<Vec<String>, String> {
    let listed = run(
        Command::new(&binary.path).args(["--list", "--ignored", "--format", "terse"]),
        &format!("listing {}'s tests", binary.package),
    )?;
    Ok(listed
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .map(str::to_owned)
        .collect())
}

/// Runs one test alone against the cluster of `kubeconfig`, stopping it after `limit`.
/// Its output goes to `log` (a file), whose last lines the outcome keeps.
///
/// # Errors
///
/// When the binary cannot be run.
pub fn run_test(
    binary: &Binary,
    test: &str,
    kubeconfig: &Path,
    limit: Duration,
    log: &Path,
) -> Result<Outcome, String> {
    let file = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let err = file.try_clone().map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut child = Command::new(&binary.path)
        .args(["--ignored", "--exact", test, "--test-threads", "1"])
        .env("KUBECONFIG", kubeconfig)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("{}: {e}", binary.path.display()))?;
    let (passed, timed_out) = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break (status.success(), false);
        }
        if started.elapsed() >= limit {
            let _ = child.kill();
            let _ = child.wait();
            break (false, true);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = started.elapsed();
    let output = std::fs::read_to_string(log).unwrap_or_default();
    Ok(Outcome {
        name: format!("{}::{test}", binary.package),
        passed,
        timed_out,
        elapsed,
        output: tail(&output, 15),
    })
}

/// One test to run: its binary, its path in it (as [`ignored_tests`] lists it) and the file
/// its output goes to.
pub struct Run<'a> {
    /// The binary that holds it.
    pub binary: &'a Binary,
    /// The test's path, e.g. `test::aggregated_discovery_apis`.
    pub test: String,
    /// Where its output goes.
    pub log: PathBuf,
}

/// Runs every test of `runs` as [`run_test`] does, against the cluster of `kubeconfig`, at
/// most `at_once` at a time, each still stopped after `limit`: their outcomes, in the order of
/// `runs` whatever order they end in. Most of a test's time is spent waiting for the server
/// (a watch's timeout, a Pod's phase), not computing, so tests that wait overlap with each
/// other and with the rest.
///
/// # Errors
///
/// When a binary cannot be run (the first such error, once every test has ended).
pub fn run_tests(
    runs: &[Run<'_>],
    kubeconfig: &Path,
    limit: Duration,
    at_once: usize,
) -> Result<Vec<Outcome>, String> {
    let next = AtomicUsize::new(0);
    let ended: Mutex<Vec<Option<Result<Outcome, String>>>> =
        Mutex::new(runs.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..at_once.clamp(1, runs.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(run) = runs.get(index) else {
                        break;
                    };
                    let outcome = run_test(run.binary, &run.test, kubeconfig, limit, &run.log);
                    ended
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)[index] = Some(outcome);
                }
            });
        }
    });
    ended
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter()
        .map(|outcome| outcome.expect("every test ran"))
        .collect()
}

/// What the expectations file says: the tests expected to pass, and those expected to
/// fail with the reason.
pub struct Expected {
    /// Test names expected to pass.
    pub pass: Vec<String>,
    /// Test names expected to fail, each with why.
    pub fail: Vec<(String, String)>,
}

/// Reads an expectations file: `pass <test>` or `fail <test> <reason>` per line; `#`
/// starts a comment line.
///
/// # Errors
///
/// On a line that is neither, a `fail` without a reason, or a test named twice.
pub fn parse_expected(text: &str) -> Result<Expected, String> {
    let mut expected = Expected {
        pass: Vec::new(),
        fail: Vec::new(),
    };
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.splitn(3, char::is_whitespace);
        let (verdict, name, reason) = (words.next(), words.next(), words.next());
        let name = name
            .map(str::to_owned)
            .ok_or_else(|| format!("line {}: no test name: {line}", number + 1))?;
        if expected.pass.contains(&name) || expected.fail.iter().any(|(n, _)| *n == name) {
            return Err(format!("line {}: {name} is listed twice", number + 1));
        }
        match (verdict, reason.map(str::trim)) {
            (Some("pass"), None) => expected.pass.push(name),
            (Some("fail"), Some(reason)) if !reason.is_empty() => {
                expected.fail.push((name, reason.to_owned()));
            }
            _ => {
                return Err(format!(
                    "line {}: expected `pass <test>` or `fail <test> <reason>`: {line}",
                    number + 1
                ));
            }
        }
    }
    Ok(expected)
}

/// The differences between the outcomes and the expectations, one line each: a test
/// expected to pass that failed (with its output), one expected to fail that passed, a
/// test not listed, a listed test that does not exist. Empty when they agree.
#[must_use]
pub fn compare(outcomes: &[Outcome], expected: &Expected) -> String {
    let mut problems = String::new();
    for outcome in outcomes {
        let pass = expected.pass.contains(&outcome.name);
        let fail = expected.fail.iter().any(|(n, _)| *n == outcome.name);
        match (pass, fail, outcome.passed) {
            (true, _, false) => {
                let _ = writeln!(
                    problems,
                    "{} passed before and fails now{}:\n{}\n",
                    outcome.name,
                    if outcome.timed_out {
                        " (timed out)"
                    } else {
                        ""
                    },
                    outcome.output
                );
            }
            (_, true, true) => {
                let _ = writeln!(
                    problems,
                    "{} now passes: move it to `pass` in the expectations",
                    outcome.name
                );
            }
            (false, false, _) => {
                let _ = writeln!(
                    problems,
                    "{} is not in the expectations ({})",
                    outcome.name,
                    if outcome.passed { "passes" } else { "fails" }
                );
            }
            _ => {}
        }
    }
    let listed = expected
        .pass
        .iter()
        .chain(expected.fail.iter().map(|(n, _)| n));
    for name in listed {
        if !outcomes.iter().any(|o| o.name == *name) {
            let _ = writeln!(problems, "{name} is expected but kube-rs has no such test");
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(name: &str, passed: bool) -> Outcome {
        Outcome {
            name: name.to_owned(),
            passed,
            timed_out: false,
            elapsed: Duration::ZERO,
            output: String::new(),
        }
    }

    #[test]
    fn every_difference_is_reported() {
        let expected =
            parse_expected("# c\npass a::x\npass a::y\nfail a::z no kubelet\nfail a::gone why\n")
                .expect("valid");
        let problems = compare(
            &[
                outcome("a::x", true),
                outcome("a::y", false),
                outcome("a::z", true),
                outcome("a::new", false),
            ],
            &expected,
        );
        assert!(problems.contains("a::y passed before and fails now"));
        assert!(problems.contains("a::z now passes"));
        assert!(problems.contains("a::new is not in the expectations"));
        assert!(problems.contains("a::gone is expected but kube-rs has no such test"));
        assert!(!problems.contains("a::x"));
    }

    /// `run_tests` gives the outcomes in the order of the runs whatever order they end in,
    /// and never runs more than `at_once` at a time: each "test" of a stand-in binary marks
    /// itself running, notes how many are, sleeps as long as its name says and unmarks itself.
    #[cfg(unix)]
    #[test]
    fn runs_end_in_any_order_and_at_most_at_once_run() {
        use std::os::unix::fs::PermissionsExt as _;

        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir(dir.path().join("running")).expect("running/");
        let binary = Binary {
            package: "stand-in".to_owned(),
            path: dir.path().join("stand-in"),
        };
        // Called as libtest is: `--ignored --exact <test> --test-threads 1`.
        std::fs::write(
            &binary.path,
            "#!/bin/sh\ndir=$(dirname \"$0\")\ntouch \"$dir/running/$3\"\nls \"$dir/running\" | wc -l >> \"$dir/counts\"\nsleep \"$3\"\nrm \"$dir/running/$3\"\n",
        )
        .expect("the stand-in");
        std::fs::set_permissions(&binary.path, std::fs::Permissions::from_mode(0o755))
            .expect("executable");
        let names = ["0.4", "0.1", "0.3", "0.05", "0.2", "0.15"];
        let runs: Vec<Run<'_>> = names
            .iter()
            .map(|name| Run {
                binary: &binary,
                test: (*name).to_owned(),
                log: dir.path().join(format!("{name}.log")),
            })
            .collect();
        let outcomes = run_tests(
            &runs,
            &dir.path().join("config"),
            Duration::from_secs(30),
            2,
        )
        .expect("the stand-in runs");
        let ran: Vec<&str> = outcomes.iter().map(|o| o.name.as_str()).collect();
        let expected: Vec<String> = names.iter().map(|n| format!("stand-in::{n}")).collect();
        assert_eq!(ran, expected);
        assert!(outcomes.iter().all(|o| o.passed && !o.timed_out));
        let counts = std::fs::read_to_string(dir.path().join("counts")).expect("counts");
        let most = counts
            .lines()
            .map(|line| line.trim().parse::<usize>().expect("a count"))
            .max();
        assert!(matches!(most, Some(1 | 2)), "{counts}");
    }

    #[test]
    fn a_failure_needs_a_reason_and_a_test_one_line() {
        assert!(parse_expected("fail a::x\n").is_err());
        assert!(parse_expected("pass a::x\nfail a::x why\n").is_err());
        assert!(parse_expected("skip a::x\n").is_err());
    }
}
