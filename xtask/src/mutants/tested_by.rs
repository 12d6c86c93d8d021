//! `cargo xtask mutants --in-place --tested-by LOG`: the baseline without running again what
//! a test step has just proven.
//!
//! The baseline (every target run with no bug planted, which must pass) exists so that a
//! target that fails anyway cannot pass for one that caught a mutant. CI's test step
//! (`cargo xtask times -- cargo test --workspace`) has just run every one of those targets:
//! its log (`<target dir>/test-times/log.tsv`, written by `xtask/src/times.rs`) holds a line
//! for each test binary it ran, with the binary's file name, its arguments, the environment
//! that decides what its tests do, when it started and its exit code.
//!
//! A target counts as passed without running again only when all of this holds, and runs
//! in the baseline as before otherwise:
//! - the executable the runner would run now (`cargo test … --no-run`, which builds it if
//!   anything changed) is the one the log names: the same file name (cargo's hash of the
//!   package, target, features, profile and dependencies), not written since that run
//!   started;
//! - that run exited with 0, was given no test filter (only flags that select no tests) and
//!   saw the same `CI`, `TRYBUILD` and `KUBEFORGE_*` variables as the runner's targets will;
//! - no file of the workspace (those git tracks or would track: the goldens and documents
//!   the tests read at run time) was written after that run started.
//!
//! The goldens' own check (re-blessing must change nothing) likewise counts as done when
//! the tests' `golden` binary passed so, since it fails on a stale golden.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{Selection, Target, TestNames, cargo};

/// The separator of the items of one field of the times log (never in a path or a
/// variable's value that matters here).
const SEPARATOR: char = '\u{1f}';

/// Arguments of a test binary that choose no tests: a run given only these ran every test.
const FLAGS_THAT_SELECT_NOTHING: &[&str] = &["--quiet", "-q", "--nocapture", "--show-output"];

/// One field of the times log from a list: its items joined by [`SEPARATOR`], with tabs and
/// line breaks (the log's own separators) replaced by spaces.
pub fn log_field<I, S>(items: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    items
        .into_iter()
        .map(|item| item.as_ref().replace(['\t', '\n', '\r', SEPARATOR], " "))
        .collect::<Vec<_>>()
        .join(&SEPARATOR.to_string())
}

/// The variables of this process that decide what a test of the workspace does, sorted as
/// `NAME=value`: `CI` (skips fail), `TRYBUILD` and every `KUBEFORGE_…` but the times stand-ins'
/// own (`KUBEFORGE_TIMES_…`).
pub fn test_environment() -> Vec<String> {
    let mut variables: Vec<String> = std::env::vars()
        .filter(|(name, _)| {
            name == "CI"
                || name == "TRYBUILD"
                || (name.starts_with("KUBEFORGE_") && !name.starts_with("KUBEFORGE_TIMES_"))
        })
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    variables.sort();
    variables
}

/// A target's package and name (`lib` for unit tests): what one test binary runs.
pub(super) type TargetKey = (String, String);

/// One test binary's run in the log.
#[derive(Debug)]
struct Run {
    package: String,
    binary: String,
    arguments: Vec<String>,
    environment: Vec<String>,
    start: f64,
    code: String,
}

fn split(field: &str) -> Vec<String> {
    if field.is_empty() {
        Vec::new()
    } else {
        field.split(SEPARATOR).map(str::to_owned).collect()
    }
}

/// The test binaries the test step itself ran (not those its tests ran), in log order.
fn runs(log: &str) -> Vec<Run> {
    log.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            // run, for_test, package, binary, arguments, environment, start, wall, cpu, code
            if fields.len() != 10 || fields[0] != "run" || !fields[1].is_empty() {
                return None;
            }
            Some(Run {
                package: fields[2].to_owned(),
                binary: fields[3].to_owned(),
                arguments: split(fields[4]),
                environment: split(fields[5]),
                start: fields[6].parse().ok()?,
                code: fields[9].to_owned(),
            })
        })
        .collect()
}

fn seconds(time: SystemTime) -> f64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

fn modified(path: &Path) -> Option<f64> {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .map(seconds)
}

/// The workspace's newest file (of those git tracks or would track) and when it was written.
fn newest_file(root: &Path) -> Result<(f64, PathBuf), String> {
    let mut newest = (f64::NEG_INFINITY, PathBuf::new());
    for name in super::workspace_files(root)? {
        let path = root.join(name);
        if let Some(time) = modified(&path).filter(|t| *t > newest.0) {
            newest = (time, path);
        }
    }
    Ok(newest)
}

/// The executable of each target, as the runner builds it (`cargo test … --no-run`): the
/// workspace's variant for the targets selected among the workspace, each package's own for
/// the others. `None` when a build fails (the baseline then runs and reports it).
fn executables(
    root: &Path,
    cargo_target: &Path,
    names: &TestNames,
    targets: &[&Target<'_>],
) -> Result<BTreeMap<TargetKey, PathBuf>, String> {
    let mut builds: BTreeMap<Option<&str>, BTreeSet<&str>> = BTreeMap::new();
    for target in targets {
        let key = if names.selection(target) == Selection::Package {
            Some(target.package)
        } else {
            None
        };
        builds.entry(key).or_default().insert(target.target);
    }
    let mut found = BTreeMap::new();
    for (package, tests) in builds {
        let mut args = vec![
            "test",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ];
        match package {
            Some(package) => args.extend(["-p", package]),
            None => args.push("--workspace"),
        }
        for test in &tests {
            if *test == "lib" {
                args.push("--lib");
            } else {
                args.extend(["--test", test]);
            }
        }
        let build = cargo(root, cargo_target)
            .args(&args)
            .output()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !build.status.success() {
            eprintln!(
                "mutants: cargo {} failed; those targets run in the baseline",
                args.join(" ")
            );
            continue;
        }
        for message in String::from_utf8_lossy(&build.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|m| m["reason"] == "compiler-artifact" && m["profile"]["test"] == true)
        {
            let (Some(manifest), Some(executable)) = (
                message["manifest_path"].as_str(),
                message["executable"].as_str(),
            ) else {
                continue;
            };
            let Some(package) = names
                .dirs
                .iter()
                .find(|(_, dir)| dir.join("Cargo.toml") == Path::new(manifest))
                .map(|(package, _)| package.clone())
            else {
                continue;
            };
            found.insert(
                (package, super::artifact_target(&message)),
                PathBuf::from(executable),
            );
        }
    }
    Ok(found)
}

/// The targets (package, target) whose every test passed in the test step that `log`
/// records, by the rules at the top of this file; a line for each of the others says why not.
pub(super) fn proven(
    root: &Path,
    cargo_target: &Path,
    names: &TestNames,
    targets: &[&Target<'_>],
    log: &Path,
) -> Result<(BTreeSet<TargetKey>, Vec<String>), String> {
    let text = fs::read_to_string(log).map_err(|e| {
        format!(
            "--tested-by {}: {e} (the log of `cargo xtask times -- cargo test --workspace`)",
            log.display()
        )
    })?;
    let runs = runs(&text);
    let (newest, newest_path) = newest_file(root)?;
    let executables = executables(root, cargo_target, names, targets)?;
    // What the runner's targets will see: its own variables, but the blessing ones, which
    // it removes.
    let expected: Vec<String> = test_environment()
        .into_iter()
        .filter(|v| !v.starts_with("KUBEFORGE_BLESS=") && !v.starts_with("TRYBUILD="))
        .collect();
    let mut proven = BTreeSet::new();
    let mut not = Vec::new();
    for target in targets {
        let key = (target.package.to_owned(), target.target.to_owned());
        if proven.contains(&key) {
            continue;
        }
        let why = match executables.get(&key) {
            None => Some("its build failed or named no executable".to_owned()),
            Some(executable) => {
                let binary = executable
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                match runs
                    .iter()
                    .rev()
                    .find(|r| r.package == target.package && r.binary == binary)
                {
                    None => Some(format!("the log has no run of {binary}")),
                    Some(run) => refuted(run, executable, &expected, (newest, &newest_path)),
                }
            }
        };
        match why {
            None => {
                proven.insert(key);
            }
            Some(why) => not.push(format!("{}:{}: {why}", target.package, target.target)),
        }
    }
    Ok((proven, not))
}

/// Why `run` does not prove that `executable` passes now, or `None` when it does.
fn refuted(
    run: &Run,
    executable: &Path,
    expected: &[String],
    (newest, newest_path): (f64, &Path),
) -> Option<String> {
    if run.code != "0" {
        return Some(format!("it exited with {} in the test step", run.code));
    }
    if let Some(argument) = run
        .arguments
        .iter()
        .find(|a| !FLAGS_THAT_SELECT_NOTHING.contains(&a.as_str()))
    {
        return Some(format!("the test step gave it {argument:?}"));
    }
    if run.environment != expected {
        return Some(format!(
            "the test step's environment differs ({} there, {} here)",
            run.environment.join(" "),
            expected.join(" ")
        ));
    }
    match modified(executable) {
        Some(time) if time <= run.start => {}
        _ => return Some("it was built again since the test step ran it".to_owned()),
    }
    if newest > run.start {
        return Some(format!(
            "{} was written after the test step ran it",
            newest_path.display()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_and_keep_the_log_one_line_per_run() {
        let field = log_field(["--quiet", "a\tb\nc"]);
        assert_eq!(split(&field), ["--quiet", "a b c"]);
        assert!(split("").is_empty());
        let log = format!(
            "run\t\tkubeforge-tests\tgolden-1\t{field}\tCI=true\t10.5\t1\t1\t0\n\
             run\tgolden-1\tx\ty-2\t\t\t11\t1\t1\t0\n\
             run\t\tkubeforge\tcli-3\t10\t1\t1\t0\n"
        );
        let runs = runs(&log);
        // The nested run and the old-format line are not the test step's own runs.
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].binary, "golden-1");
        assert_eq!(runs[0].environment, ["CI=true"]);
        assert!((runs[0].start - 10.5).abs() < 1e-9);
    }

    /// Each rule on its own refutes a run; the binary itself, not written since, passes.
    #[test]
    fn a_run_proves_a_target_only_when_every_rule_holds() {
        let dir = std::env::temp_dir().join(format!("tested-by-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("temp dir");
        let executable = dir.join("golden-1");
        fs::write(&executable, "").expect("write");
        let built = modified(&executable).expect("mtime");
        let run = || Run {
            package: "kubeforge-tests".to_owned(),
            binary: "golden-1".to_owned(),
            arguments: vec!["--quiet".to_owned()],
            environment: vec!["CI=true".to_owned()],
            start: built + 5.0,
            code: "0".to_owned(),
        };
        let expected = ["CI=true".to_owned()];
        let old_file = (built - 10.0, Path::new("README.md"));
        assert_eq!(refuted(&run(), &executable, &expected, old_file), None);
        let failed = Run {
            code: "101".to_owned(),
            ..run()
        };
        assert!(refuted(&failed, &executable, &expected, old_file).is_some());
        let filtered = Run {
            arguments: vec!["goldens_match".to_owned()],
            ..run()
        };
        assert!(refuted(&filtered, &executable, &expected, old_file).is_some());
        let other_environment = Run {
            environment: vec![
                "CI=true".to_owned(),
                "KUBEFORGE_LOSSLESS_INSTANCES=16".to_owned(),
            ],
            ..run()
        };
        assert!(refuted(&other_environment, &executable, &expected, old_file).is_some());
        let before_the_build = Run {
            start: built - 5.0,
            ..run()
        };
        assert!(refuted(&before_the_build, &executable, &expected, old_file).is_some());
        let edited = (built + 6.0, Path::new("tests/golden/a.rs"));
        assert!(refuted(&run(), &executable, &expected, edited).is_some());
        let _ = fs::remove_dir_all(&dir);
    }
}
