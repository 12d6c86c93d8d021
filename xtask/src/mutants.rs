//! `cargo xtask mutants`: shows that the behavioural tests, not only the golden text, catch
//! broken mapping rules.
//!
//! The workspace's files (those git tracks or would track) are copied to
//! `<target>/mutants/repo`, built with their own target directory `<target>/mutants/target`.
//! There, for each planted bug in turn: the pristine sources are restored, the bug is planted
//! (an exact edit that must apply exactly once), the goldens are re-blessed as a careless
//! developer would (`KUBEFORGE_BLESS=1 cargo test -p kubeforge-tests --test golden`), and
//! the behavioural tests of the golden cases run. A mutant is caught when one of them fails
//! (the report names the tests, or says that they no longer compile); any mutant that
//! survives makes the command fail. A baseline run without a bug must pass first, so a
//! broken copy cannot pass for a caught mutant. Nothing outside `<target>/mutants` is
//! touched, and nothing of it runs under `cargo test`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

/// One planted bug: in `file`, `find` (which must occur exactly once) becomes `replace`.
struct Mutant {
    name: &'static str,
    /// The mapping rule it breaks.
    breaks: &'static str,
    file: &'static str,
    find: &'static str,
    replace: &'static str,
}

const MUTANTS: &[Mutant] = &[
    Mutant {
        name: "unknown-enum-value-lost",
        breaks: "a string enum keeps an unknown value in `Other(String)`",
        file: "codegen/src/emit/types.rs",
        find: "other => Self::Other(other.to_owned()),",
        replace: "_ => Self::Other(String::new()),",
    },
    Mutant {
        name: "parameter-before-static",
        breaks: "the matcher tries static segments before a parameter",
        file: "codegen/src/emit/matcher.rs",
        find: "if found.is_not_found() {",
        replace: "if true {",
    },
    Mutant {
        name: "option-swapped",
        breaks: "a required property is `T`, an optional one `Option<T>`",
        file: "codegen/src/model/schema.rs",
        find: "required: merged.required.iter().any(|r| r == property.name),",
        replace: "required: !merged.required.iter().any(|r| r == property.name),",
    },
    Mutant {
        name: "wrong-json-rename",
        breaks: "fields serialize under their exact JSON name",
        file: "codegen/src/emit/serde_impls.rs",
        find: "let json = &field.json_name;\n        match presence(context, field) {\n            Presence::Required => {",
        replace: "let json = &field.rust_name;\n        match presence(context, field) {\n            Presence::Required => {",
    },
    Mutant {
        name: "percent-unencoded-in-path",
        breaks: "a path parameter's `%` is percent-encoded",
        file: "runtime/src/request.rs",
        find: "self.text.extend(utf8_percent_encode(value, ENCODED));\n        Ok(())",
        replace: "self.text.extend(utf8_percent_encode(value, {\n            const PLANTED: &AsciiSet = &ENCODED.remove(b'%');\n            PLANTED\n        }));\n        Ok(())",
    },
];

/// The behavioural test targets of the golden cases, each run on its own so that one that
/// no longer compiles does not hide the failures of the other.
const BEHAVIOUR_TESTS: &[&str] = &["golden_behaviour", "golden_builders_behaviour"];

const GOLDEN_DIR: &str = "tests/golden";

/// What the behavioural tests did with one source tree.
enum Outcome {
    Passed,
    Failed(Vec<String>),
    DoesNotCompile(String),
}

/// Runs the mutation check; `only` restricts it to the named mutants.
pub fn run(root: &Path, only: &[String]) -> ExitCode {
    match check(root, only) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn check(root: &Path, only: &[String]) -> Result<bool, String> {
    let started = Instant::now();
    for name in only {
        if !MUTANTS.iter().any(|m| m.name == name) {
            let known: Vec<&str> = MUTANTS.iter().map(|m| m.name).collect();
            return Err(format!("no mutant `{name}`; known: {}", known.join(", ")));
        }
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), PathBuf::from)
        .join("mutants");
    let scratch = target.join("repo");
    copy_workspace(root, &scratch)?;
    let pristine = pristine_files(&scratch)?;
    let cargo_target = target.join("target");
    eprintln!(
        "mutants: a copy of the workspace in {}, built in {}",
        scratch.display(),
        cargo_target.display()
    );

    eprintln!("mutants: baseline (no bug planted) …");
    let blessed = bless(&scratch, &cargo_target, &pristine)?;
    if !blessed.is_empty() {
        return Err(format!(
            "the goldens are stale before any bug is planted: {}",
            blessed.join(", ")
        ));
    }
    for test in BEHAVIOUR_TESTS {
        match behaviour(&scratch, &cargo_target, test)? {
            Outcome::Passed => {}
            Outcome::Failed(tests) => {
                return Err(format!(
                    "the baseline fails {test}: {}; fix that first",
                    tests.join(", ")
                ));
            }
            Outcome::DoesNotCompile(errors) => {
                return Err(format!("the baseline {test} does not compile:\n{errors}"));
            }
        }
    }

    let selected: Vec<&Mutant> = MUTANTS
        .iter()
        .filter(|m| only.is_empty() || only.iter().any(|o| o == m.name))
        .collect();
    let mut survivors = Vec::new();
    for mutant in &selected {
        let mutant_started = Instant::now();
        eprintln!("mutants: {} ({}) …", mutant.name, mutant.breaks);
        restore(&pristine)?;
        plant(&scratch, mutant)?;
        let blessed = bless(&scratch, &cargo_target, &pristine)?;
        let mut caught = Vec::new();
        for test in BEHAVIOUR_TESTS {
            match behaviour(&scratch, &cargo_target, test)? {
                Outcome::Passed => {}
                Outcome::Failed(tests) => {
                    caught.push(format!("{test} fails: {}", tests.join(", ")));
                }
                Outcome::DoesNotCompile(first_error) => {
                    caught.push(format!("{test} does not compile ({first_error})"));
                }
            }
        }
        let mut report = String::new();
        let verdict = if caught.is_empty() {
            survivors.push(mutant.name);
            "SURVIVED".to_owned()
        } else {
            "caught".to_owned()
        };
        writeln!(
            report,
            "{verdict:8} {}: {} [{:.0} s]\n         breaks: {}\n         re-blessed: {}",
            mutant.name,
            mutant.file,
            mutant_started.elapsed().as_secs_f64(),
            mutant.breaks,
            if blessed.is_empty() {
                "no golden changed".to_owned()
            } else {
                blessed.join(", ")
            }
        )
        .expect("write to string");
        for line in &caught {
            writeln!(report, "         {line}").expect("write to string");
        }
        if caught.is_empty() {
            writeln!(report, "         every behavioural test passed").expect("write to string");
        }
        println!("{report}");
    }
    restore(&pristine)?;
    println!(
        "mutants: {} planted, {} caught, {} survived, in {:.0} s",
        selected.len(),
        selected.len() - survivors.len(),
        survivors.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(survivors.is_empty())
}

/// Copies every file git tracks or would track (not ignored ones such as `target/`) into
/// `scratch`, replacing an earlier copy's files; stale files of an earlier copy are removed.
fn copy_workspace(root: &Path, scratch: &Path) -> Result<(), String> {
    let output = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "git ls-files failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    if scratch.exists() {
        fs::remove_dir_all(scratch)
            .map_err(|e| format!("cannot remove {}: {e}", scratch.display()))?;
    }
    for name in output.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name);
        let from = root.join(name.as_ref());
        if !from.is_file() {
            continue; // deleted in the work tree but still in the index
        }
        let to = scratch.join(name.as_ref());
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        fs::copy(&from, &to).map_err(|e| format!("cannot copy {}: {e}", from.display()))?;
    }
    Ok(())
}

/// The files a mutant or a bless may change, as copied: every mutated source and every
/// golden output.
fn pristine_files(scratch: &Path) -> Result<BTreeMap<PathBuf, String>, String> {
    let mut files = BTreeMap::new();
    for mutant in MUTANTS {
        let path = scratch.join(mutant.file);
        files.insert(path.clone(), read(&path)?);
    }
    for path in goldens(scratch)? {
        files.insert(path.clone(), read(&path)?);
    }
    Ok(files)
}

fn goldens(scratch: &Path) -> Result<Vec<PathBuf>, String> {
    let dir = scratch.join(GOLDEN_DIR);
    let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    paths.sort();
    Ok(paths)
}

fn read(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Writes back every pristine file whose content differs (so unchanged files keep their
/// modification time and cargo rebuilds only what a mutant touched).
fn restore(pristine: &BTreeMap<PathBuf, String>) -> Result<(), String> {
    for (path, text) in pristine {
        if read(path)? != *text {
            fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

fn plant(scratch: &Path, mutant: &Mutant) -> Result<(), String> {
    let path = scratch.join(mutant.file);
    let text = read(&path)?;
    let count = text.matches(mutant.find).count();
    if count != 1 {
        return Err(format!(
            "mutant {} no longer applies: its text occurs {count} times in {} (must be once); \
             update it in xtask/src/mutants.rs:\n{}",
            mutant.name, mutant.file, mutant.find
        ));
    }
    fs::write(&path, text.replacen(mutant.find, mutant.replace, 1))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn cargo(scratch: &Path, cargo_target: &Path) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .current_dir(scratch)
        .env("CARGO_TARGET_DIR", cargo_target)
        .env_remove("CI")
        .env_remove("KUBEFORGE_BLESS")
        .env_remove("TRYBUILD")
        .env_remove("RUSTFLAGS");
    command
}

/// Re-blesses the goldens, and names those whose text changed.
fn bless(
    scratch: &Path,
    cargo_target: &Path,
    pristine: &BTreeMap<PathBuf, String>,
) -> Result<Vec<String>, String> {
    let output = cargo(scratch, cargo_target)
        .args([
            "test",
            "--quiet",
            "-p",
            "kubeforge-tests",
            "--test",
            "golden",
            "--",
            "goldens_match",
        ])
        .env("KUBEFORGE_BLESS", "1")
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "blessing the goldens failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let mut changed = Vec::new();
    for path in goldens(scratch)? {
        if pristine.get(&path) != Some(&read(&path)?) {
            changed.push(
                path.strip_prefix(scratch)
                    .unwrap_or(&path)
                    .display()
                    .to_string(),
            );
        }
    }
    Ok(changed)
}

/// Runs one behavioural test target and says what happened.
fn behaviour(scratch: &Path, cargo_target: &Path, test: &str) -> Result<Outcome, String> {
    let output = cargo(scratch, cargo_target)
        .args(["test", "-p", "kubeforge-tests", "--test", test])
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if output.status.success() {
        return Ok(Outcome::Passed);
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let failed: Vec<String> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test ")?.strip_suffix(" ... FAILED"))
        .map(str::to_owned)
        .collect();
    if !failed.is_empty() {
        return Ok(Outcome::Failed(failed));
    }
    if stderr.contains("could not compile") {
        let first = stderr
            .lines()
            .find(|l| l.starts_with("error"))
            .unwrap_or("error")
            .to_owned();
        return Ok(Outcome::DoesNotCompile(first));
    }
    Err(format!(
        "cargo test --test {test} failed without a failing test or a compile error:\n{stdout}{stderr}"
    ))
}
