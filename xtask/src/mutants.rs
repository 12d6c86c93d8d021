//! `cargo xtask mutants`: shows that behavioural tests, not only golden text or compile
//! errors, catch the bugs that would break the guide's promises.
//!
//! Each [`Mutant`] is one planted bug: an exact edit of one source file (its text must occur
//! exactly once), and the test targets that must catch it. The workspace's files (those git
//! tracks or would track) are copied to `<target>/mutants/repo`; there, for each mutant in
//! turn, the pristine sources are restored, the bug is planted, the goldens are re-blessed as
//! a careless developer would when the bug is in the generator
//! (`KUBEFORGE_BLESS=1 cargo test -p kubeforge-tests --test golden`), and the mutant's test
//! targets run, each on its own. A mutant is caught when a test of one of them fails; a
//! target that no longer compiles does not count (a compile error is not a behavioural
//! check), nor does a changed golden. A mutant that survives, or whose text no longer
//! occurs exactly once, makes the command fail. A baseline run without a bug must pass
//! first, so that a broken copy cannot pass for a caught mutant.
//!
//! The copy is built in a target directory of its own, `<target>/mutants/target` (cargo
//! names a workspace's artifacts by their paths inside the workspace, so the copy's would
//! replace the workspace's own in a shared one), incrementally, so that a mutant rebuilds
//! little. Both directories are kept between runs: a second run rebuilds only what changed.
//! The unit test below checks, in every `cargo test`, that each mutant still applies exactly
//! once and names test targets that exist.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

/// One planted bug: in `file`, `find` (which must occur exactly once) becomes `replace`.
#[derive(Debug)]
pub struct Mutant {
    /// Its name, for `--only` and the report.
    pub name: &'static str,
    /// The promise it breaks.
    pub breaks: &'static str,
    /// The file it edits, relative to the workspace root.
    pub file: &'static str,
    /// The text it replaces; it must occur exactly once in `file`.
    pub find: &'static str,
    /// What it puts there instead.
    pub replace: &'static str,
    /// The test targets that must catch it, each `package:target` or
    /// `package:target:filter` (`target` is an integration test's name, or `lib` for the
    /// package's unit tests; `filter` is passed to the test harness).
    pub tests: &'static [&'static str],
}

/// The planted bugs. A change that breaks a mutant's text updates the mutant (the unit test
/// below and the before-stop hook both check that each applies exactly once).
pub const MUTANTS: &[Mutant] = &[
    Mutant {
        name: "unknown-enum-value-lost",
        breaks: "a string enum keeps a value it does not list in `Other(String)`",
        file: "codegen/src/emit/types.rs",
        find: "other => Self::Other(other.to_owned()),",
        replace: "_ => Self::Other(String::new()),",
        tests: &["kubeforge-tests:golden_behaviour"],
    },
    Mutant {
        name: "parameter-before-static",
        breaks: "the route matcher tries static segments before a parameter",
        file: "codegen/src/emit/matcher.rs",
        find: "        let fallback = fallback || node.param.is_some();\n        self.statics(code, node, prefix, params, fallback);\n        if let Some(param) = &node.param {\n            self.uses.param_segment = true;\n            code.open(&format!(\n                \"if let Some((param{params}, rest)) = param_segment(rest) {{\"\n            ));\n            self.child(code, param, &format!(\"{prefix}/{{}}\"), params + 1, fallback);\n            code.close(\"}\");\n        }\n",
        replace: "        let fallback = true;\n        if let Some(param) = &node.param {\n            self.uses.param_segment = true;\n            code.open(&format!(\n                \"if let Some((param{params}, rest)) = param_segment(rest) {{\"\n            ));\n            self.child(code, param, &format!(\"{prefix}/{{}}\"), params + 1, fallback);\n            code.close(\"}\");\n        }\n        self.statics(code, node, prefix, params, fallback);\n",
        tests: &["kubeforge-tests:golden_behaviour"],
    },
    Mutant {
        name: "option-swapped",
        breaks: "a required property is `T`, an optional one `Option<T>`",
        file: "codegen/src/model/schema.rs",
        find: "required: merged.required.iter().any(|r| r == property.name),",
        replace: "required: !merged.required.iter().any(|r| r == property.name),",
        tests: &["kubeforge-tests:lossless:goldens_round_trip"],
    },
    Mutant {
        name: "json-name-not-written",
        breaks: "fields are written under their exact JSON name",
        file: "codegen/src/emit/serde_impls.rs",
        find: "    for field in fields {\n        let member = &field.rust_name;\n        let json = str_literal(&field.json_name);",
        replace: "    for field in fields {\n        let member = &field.rust_name;\n        let json = str_literal(&field.rust_name);",
        tests: &[
            "kubeforge-tests:golden_behaviour",
            "kubeforge-tests:mapping_round_trip",
            "kubeforge-tests:properties:a_sample_of_random_outputs_compiles_and_round_trips",
        ],
    },
    Mutant {
        name: "json-name-not-read",
        breaks: "fields are read from their exact JSON name (not kept as unknown fields)",
        file: "codegen/src/emit/serde_impls.rs",
        find: "let json_names: Vec<String> = fields.iter().map(|f| str_literal(&f.json_name)).collect();",
        replace: "let json_names: Vec<String> = fields.iter().map(|f| str_literal(&f.rust_name)).collect();",
        tests: &[
            "kubeforge-tests:golden_behaviour",
            "kubeforge-tests:mapping_round_trip",
        ],
    },
    Mutant {
        name: "preserved-fields-dropped",
        breaks: "with `--drop-unknown-fields`, keys the schema preserves (`x-kubernetes-preserve-unknown-fields`) are still kept",
        file: "codegen/src/model/schema.rs",
        find: "            Some(Extra::Preserved(origin)) => Some((\n                \"unknown_fields\",\n                Shape::Json,\n                EXTRA_PRESERVED,\n                origin.clone(),\n            )),",
        replace: "            Some(Extra::Preserved(origin)) => self.options.unknown_fields.then(|| (\n                \"unknown_fields\",\n                Shape::Json,\n                EXTRA_PRESERVED,\n                origin.clone(),\n            )),",
        tests: &["kubeforge-tests:mapping_round_trip"],
    },
    Mutant {
        name: "unknown-keys-reordered",
        breaks: "unknown and extra keys are written back in the order they were read",
        file: "runtime/src/extra_fields.rs",
        find: "self.entries.get_or_insert_default().push((key, value));",
        replace: "self.entries.get_or_insert_default().insert(0, (key, value));",
        tests: &[
            "kubeforge-runtime:lib",
            "kubeforge-tests:mapping_round_trip",
            "kubeforge-tests:lossless:goldens_round_trip",
        ],
    },
    Mutant {
        name: "percent-unencoded-in-path",
        breaks: "a path parameter's `%` is percent-encoded",
        file: "runtime/src/request.rs",
        find: "self.text.extend(utf8_percent_encode(value, ENCODED));\n        Ok(())",
        replace: "self.text.extend(utf8_percent_encode(value, {\n            const PLANTED: &AsciiSet = &ENCODED.remove(b'%');\n            PLANTED\n        }));\n        Ok(())",
        tests: &["kubeforge-runtime:routes"],
    },
    Mutant {
        name: "partial-static-segment",
        breaks: "a static segment matches only a whole segment (`/pods` is not `/podsx`)",
        file: "runtime/src/route.rs",
        find: "        .is_none_or(|&b| b == b'/')\n        .then_some(tail)",
        replace: "        .is_none_or(|&b| b != b'?')\n        .then_some(tail)",
        tests: &["kubeforge-runtime:routes"],
    },
    Mutant {
        name: "error-status-not-decoded",
        breaks: "an error response's `Status` is decoded as a `Status`, not left as text",
        file: "runtime/src/response.rs",
        find: ".is_ok_and(|probe| probe.kind.as_deref() == Some(\"Status\"));",
        replace: ".is_ok_and(|probe| probe.kind.as_deref() == Some(\"status\"));",
        tests: &[
            "kubeforge-runtime:routes",
            "kubeforge-server:generated_decoders",
        ],
    },
    Mutant {
        name: "watch-escape-ignored",
        breaks: "the incremental watch decoder skips escaped quotes inside strings",
        file: "runtime/src/watch.rs",
        find: "} else if byte == b'\\\\' {\n                        self.escaped = true;",
        replace: "} else if byte == b'\\\\' && false {\n                        self.escaped = true;",
        tests: &["kubeforge-server:generated_decoders"],
    },
    Mutant {
        name: "compaction-boundary",
        breaks: "a watch from a version whose next event is no longer kept gets 410 Gone, not a gap",
        file: "server/src/store.rs",
        find: "        if rv < self.compacted {\n            return None;\n        }",
        replace: "        if rv + 1 < self.compacted {\n            return None;\n        }",
        tests: &["kubeforge-server:raw_http"],
    },
    Mutant {
        name: "relabelled-in-not-added",
        breaks: "an object relabelled into a watch's selector arrives as `ADDED`",
        file: "server/src/watch.rs",
        find: "(EventType::Modified, false, true) => \"ADDED\",",
        replace: "(EventType::Modified, false, true) => \"MODIFIED\",",
        tests: &["kubeforge-server:raw_http"],
    },
    Mutant {
        name: "stale-replace-accepted",
        breaks: "a replace with an old `resourceVersion` is refused with 409 Conflict",
        file: "server/src/server.rs",
        find: "        {\n            return Err(stale(def, name));\n        }\n        self.commit(\n            index,\n            namespace,\n            name,\n            &old,\n            body,",
        replace: "        {\n            let _ = stale(def, name);\n        }\n        self.commit(\n            index,\n            namespace,\n            name,\n            &old,\n            body,",
        tests: &[
            "kubeforge-server:generated_decoders",
            "kubeforge-server:kube_client",
        ],
    },
    Mutant {
        name: "write-not-staged",
        breaks: "`Cargo.toml` and a build script's include file are staged and renamed into place, never left half-written",
        file: "codegen/src/write/disk.rs",
        find: "            .create_new(true)\n            .open(&staging)?;\n        fs_step();\n        file.write_all(content)?;\n        drop(file);\n        fs_step();\n        fs::rename(&staging, path)",
        replace: "            .create(true)\n            .truncate(true)\n            .open(path)?;\n        fs_step();\n        file.write_all(content)?;\n        drop(file);\n        fs_step();\n        Ok(())",
        tests: &["kubeforge:interrupted_write"],
    },
    Mutant {
        name: "recursive-schema-walked-every-path",
        breaks: "looking for CEL rules walks a recursive schema (a CRD's `JSONSchemaProps`) once per node, so creating a CRD answers",
        file: "runtime/src/schema/cel/mod.rs",
        find: "        Some(&before) if before <= depth => return false,",
        replace: "        Some(&before) if before <= depth && depth > MAX_DEPTH => return false,",
        tests: &["kubeforge-runtime:lib:a_recursive_schema_is_walked_once"],
    },
];

/// The goldens, relative to the workspace root.
const GOLDEN_DIR: &str = "tests/golden";

/// Files under this prefix are the generator's: a bug there changes generated text, so
/// the goldens are re-blessed before the tests run.
const GENERATOR: &str = "codegen/src/";

/// One test target to run: `cargo test -p <package> --lib|--test <target> [-- <filter>]`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Target<'a> {
    /// The package.
    pub package: &'a str,
    /// An integration test's name, or `lib`.
    pub target: &'a str,
    /// The test name filter, if any.
    pub filter: Option<&'a str>,
}

impl<'a> Target<'a> {
    /// Reads `package:target` or `package:target:filter`.
    ///
    /// # Errors
    ///
    /// When the text has another form.
    pub fn parse(text: &'a str) -> Result<Self, String> {
        let mut parts = text.split(':');
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(package), Some(target), filter, None)
                if !package.is_empty()
                    && !target.is_empty()
                    && filter.is_none_or(|f| !f.is_empty()) =>
            {
                Ok(Target {
                    package,
                    target,
                    filter,
                })
            }
            _ => Err(format!(
                "{text:?}: expected `package:target` or `package:target:filter`"
            )),
        }
    }

    /// The source file of the target, relative to the workspace root, given the package's
    /// directory: `src/lib.rs` for `lib`, `tests/<target>.rs` otherwise.
    pub fn source(&self, package_dir: &str) -> PathBuf {
        if self.target == "lib" {
            Path::new(package_dir).join("src/lib.rs")
        } else {
            Path::new(package_dir)
                .join("tests")
                .join(format!("{}.rs", self.target))
        }
    }

    fn cargo_args(&self) -> Vec<&'a str> {
        let mut args = vec!["test", "-p", self.package];
        if self.target == "lib" {
            args.push("--lib");
        } else {
            args.extend(["--test", self.target]);
        }
        if let Some(filter) = self.filter {
            args.extend(["--", filter]);
        }
        args
    }
}

impl std::fmt::Display for Target<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.package, self.target)?;
        if let Some(filter) = self.filter {
            write!(f, ":{filter}")?;
        }
        Ok(())
    }
}

/// The directory of each package a mutant names, relative to the workspace root.
pub const PACKAGE_DIRS: &[(&str, &str)] = &[
    ("kubeforge", "codegen"),
    ("kubeforge-runtime", "runtime"),
    ("kubeforge-server", "server"),
    ("kubeforge-tests", "tests"),
];

/// Every problem with the mutants as they stand against the workspace at `root`: a text
/// that does not occur exactly once, a test target that cannot be read or does not exist,
/// a name used twice. Empty when every mutant can run.
pub fn problems(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let mut names = BTreeSet::new();
    for mutant in MUTANTS {
        if !names.insert(mutant.name) {
            problems.push(format!("mutant {}: the name is used twice", mutant.name));
        }
        match fs::read_to_string(root.join(mutant.file)) {
            Ok(text) => {
                let count = text.matches(mutant.find).count();
                if count != 1 {
                    problems.push(format!(
                        "mutant {} no longer applies: its text occurs {count} times in {} (must be once); update it in xtask/src/mutants.rs:\n{}",
                        mutant.name, mutant.file, mutant.find
                    ));
                }
            }
            Err(e) => problems.push(format!("mutant {}: {}: {e}", mutant.name, mutant.file)),
        }
        if mutant.tests.is_empty() {
            problems.push(format!("mutant {}: no test target", mutant.name));
        }
        for test in mutant.tests {
            match Target::parse(test) {
                Ok(target) => {
                    let Some((_, dir)) = PACKAGE_DIRS.iter().find(|(p, _)| *p == target.package)
                    else {
                        problems.push(format!(
                            "mutant {}: unknown package {} (add it to PACKAGE_DIRS)",
                            mutant.name, target.package
                        ));
                        continue;
                    };
                    let source = target.source(dir);
                    if !root.join(&source).is_file() {
                        problems.push(format!(
                            "mutant {}: test target {target}: no {}",
                            mutant.name,
                            source.display()
                        ));
                    }
                }
                Err(e) => problems.push(format!("mutant {}: {e}", mutant.name)),
            }
        }
    }
    problems
}

/// What a test target did with one source tree.
enum Outcome {
    Passed,
    Failed(Vec<String>),
    DoesNotCompile(String),
}

/// Runs the mutation check; `only` restricts it to the named mutants, `list` prints them
/// instead.
pub fn run(root: &Path, only: &[String], list: bool, in_place: bool) -> ExitCode {
    if list {
        for mutant in MUTANTS {
            println!(
                "{}\t{}\t{}\t{}",
                mutant.name,
                mutant.file,
                mutant.tests.join(" "),
                mutant.breaks
            );
        }
        return ExitCode::SUCCESS;
    }
    match check(root, only, in_place) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

#[allow(clippy::too_many_lines)]
fn check(root: &Path, only: &[String], in_place: bool) -> Result<bool, String> {
    let started = Instant::now();
    for name in only {
        if !MUTANTS.iter().any(|m| m.name == name) {
            let known: Vec<&str> = MUTANTS.iter().map(|m| m.name).collect();
            return Err(format!("no mutant `{name}`; known: {}", known.join(", ")));
        }
    }
    let problems = problems(root);
    if !problems.is_empty() {
        return Err(format!(
            "{} problems with the mutants, nothing planted:\n{}",
            problems.len(),
            problems.join("\n")
        ));
    }
    let target_dir =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let (scratch, cargo_target) = if in_place {
        (root.to_path_buf(), target_dir)
    } else {
        let mutants = target_dir.join("mutants");
        let scratch = mutants.join("repo");
        copy_workspace(root, &scratch)?;
        (scratch, mutants.join("target"))
    };
    let pristine = pristine_files(&scratch)?;
    // Whatever happens from here on, the planted files and the goldens are written back.
    let _restore = Restore(&pristine);
    eprintln!(
        "mutants: {} {}, built in {}",
        if in_place {
            "planting in the workspace itself"
        } else {
            "a copy of the workspace in"
        },
        scratch.display(),
        cargo_target.display()
    );
    let selected: Vec<&Mutant> = MUTANTS
        .iter()
        .filter(|m| only.is_empty() || only.iter().any(|o| o == m.name))
        .collect();
    let targets: BTreeSet<Target<'_>> = selected
        .iter()
        .flat_map(|m| m.tests.iter())
        .map(|t| Target::parse(t))
        .collect::<Result<_, _>>()?;

    let baseline_started = Instant::now();
    eprintln!(
        "mutants: baseline (no bug planted): the goldens and {} test targets …",
        targets.len()
    );
    let blessed = bless(&scratch, &cargo_target, &pristine)?;
    if !blessed.is_empty() {
        return Err(format!(
            "the goldens are stale before any bug is planted: {}",
            blessed.join(", ")
        ));
    }
    for target in &targets {
        match run_target(&scratch, &cargo_target, target)? {
            Outcome::Passed => {}
            Outcome::Failed(tests) => {
                return Err(format!(
                    "the baseline fails {target}: {}; fix that first",
                    tests.join(", ")
                ));
            }
            Outcome::DoesNotCompile(errors) => {
                return Err(format!("the baseline {target} does not compile:\n{errors}"));
            }
        }
    }
    println!(
        "mutants: baseline passed in {:.0} s",
        baseline_started.elapsed().as_secs_f64()
    );

    let mut survivors = Vec::new();
    for mutant in &selected {
        let mutant_started = Instant::now();
        eprintln!("mutants: {} ({}) …", mutant.name, mutant.breaks);
        restore(&pristine)?;
        plant(&scratch, mutant)?;
        let blessed = if mutant.file.starts_with(GENERATOR) {
            Some(bless(&scratch, &cargo_target, &pristine)?)
        } else {
            None
        };
        let mut caught = Vec::new();
        let mut other = Vec::new();
        for test in mutant.tests {
            let target = Target::parse(test)?;
            match run_target(&scratch, &cargo_target, &target)? {
                Outcome::Passed => other.push(format!("{target} passes")),
                Outcome::Failed(tests) => {
                    caught.push(format!("{target} fails: {}", tests.join(", ")));
                }
                Outcome::DoesNotCompile(first_error) => other.push(format!(
                    "{target} does not compile, which does not count ({first_error})"
                )),
            }
        }
        let verdict = if caught.is_empty() {
            survivors.push(mutant.name);
            "SURVIVED"
        } else {
            "caught"
        };
        let mut report = String::new();
        writeln!(
            report,
            "{verdict:8} {}: {} [{:.0} s]\n         breaks: {}",
            mutant.name,
            mutant.file,
            mutant_started.elapsed().as_secs_f64(),
            mutant.breaks,
        )
        .expect("write to string");
        match blessed {
            Some(blessed) if blessed.is_empty() => {
                writeln!(report, "         re-blessed: no golden changed")
            }
            Some(blessed) => writeln!(report, "         re-blessed: {}", blessed.join(", ")),
            None => Ok(()),
        }
        .expect("write to string");
        for line in caught.iter().chain(&other) {
            writeln!(report, "         {line}").expect("write to string");
        }
        println!("{report}");
    }
    restore(&pristine)?;
    println!(
        "mutants: {} planted, {} caught, {} survived{}, in {:.0} s",
        selected.len(),
        selected.len() - survivors.len(),
        survivors.len(),
        if survivors.is_empty() {
            String::new()
        } else {
            format!(" ({})", survivors.join(", "))
        },
        started.elapsed().as_secs_f64()
    );
    Ok(survivors.is_empty())
}

/// Copies every file git tracks or would track (not ignored ones such as `target/`) into
/// `scratch`. Files whose content is unchanged since an earlier copy are left alone (so they
/// keep their modification time and cargo rebuilds nothing for them); stale files of an
/// earlier copy are removed.
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
    let mut wanted = BTreeSet::new();
    for name in output.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = PathBuf::from(String::from_utf8_lossy(name).as_ref());
        let from = root.join(&name);
        if !from.is_file() {
            continue; // deleted in the work tree but still in the index
        }
        let to = scratch.join(&name);
        let content =
            fs::read(&from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
        if fs::read(&to).ok().as_deref() != Some(content.as_slice()) {
            if let Some(parent) = to.parent() {
                fs::create_dir_all(parent)
                    .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
            }
            fs::write(&to, &content).map_err(|e| format!("cannot write {}: {e}", to.display()))?;
            let permissions = fs::metadata(&from)
                .map_err(|e| format!("cannot inspect {}: {e}", from.display()))?
                .permissions();
            fs::set_permissions(&to, permissions)
                .map_err(|e| format!("cannot set the mode of {}: {e}", to.display()))?;
        }
        wanted.insert(name);
    }
    remove_others(scratch, Path::new(""), &wanted)
}

/// Removes every file under `scratch` that is not in `wanted` (paths relative to it).
fn remove_others(
    scratch: &Path,
    relative: &Path,
    wanted: &BTreeSet<PathBuf>,
) -> Result<(), String> {
    let dir = scratch.join(relative);
    let Ok(entries) = fs::read_dir(&dir) else {
        return Ok(());
    };
    for entry in entries.filter_map(Result::ok) {
        let path = relative.join(entry.file_name());
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            remove_others(scratch, &path, wanted)?;
        } else if !wanted.contains(&path) {
            fs::remove_file(scratch.join(&path))
                .map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
        }
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

/// Writes the pristine files back when dropped: on success, on an error and on a panic.
struct Restore<'a>(&'a BTreeMap<PathBuf, String>);

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        if let Err(message) = restore(self.0) {
            eprintln!("error: the planted files could not be restored: {message}");
        }
    }
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

/// Cargo in the copy, building in its own target directory, incrementally (each mutant
/// changes one file). Blessing variables never leak into the test runs.
fn cargo(scratch: &Path, cargo_target: &Path) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .current_dir(scratch)
        .env("CARGO_TARGET_DIR", cargo_target)
        .env("CARGO_INCREMENTAL", "1")
        .env_remove("KUBEFORGE_BLESS")
        .env_remove("TRYBUILD");
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
        // Blessing is refused in CI; this copy is no CI run.
        .env_remove("CI")
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

/// Runs one test target and says what happened.
fn run_target(scratch: &Path, cargo_target: &Path, target: &Target<'_>) -> Result<Outcome, String> {
    let output = cargo(scratch, cargo_target)
        .args(target.cargo_args())
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
    // A test binary that crashed (an abort, a stack overflow) failed as well.
    if stderr.contains("process didn't exit successfully") {
        let line = stderr
            .lines()
            .find(|l| l.contains("process didn't exit successfully"))
            .unwrap_or_default();
        return Ok(Outcome::Failed(vec![format!(
            "the test binary crashed: {line}"
        )]));
    }
    Err(format!(
        "cargo test for {target} failed without a failing test or a compile error:\n{stdout}{stderr}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace")
            .to_path_buf()
    }

    /// Every mutant still applies exactly once and names test targets that exist, so that
    /// `cargo test` (and CI, before the full run) fails at once when a change breaks one.
    #[test]
    fn every_mutant_applies_exactly_once() {
        let problems = problems(&root());
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// The replacement really changes the text, and the count stays as the guide says.
    #[test]
    fn every_mutant_changes_something() {
        for mutant in MUTANTS {
            assert_ne!(mutant.find, mutant.replace, "{}", mutant.name);
        }
        assert!(MUTANTS.len() >= 14, "{} mutants", MUTANTS.len());
    }

    #[test]
    fn targets_read_back() {
        let target = Target::parse("kubeforge-tests:lossless:goldens_round_trip").unwrap();
        assert_eq!(
            target.cargo_args(),
            [
                "test",
                "-p",
                "kubeforge-tests",
                "--test",
                "lossless",
                "--",
                "goldens_round_trip"
            ]
        );
        assert_eq!(
            target.to_string(),
            "kubeforge-tests:lossless:goldens_round_trip"
        );
        let lib = Target::parse("kubeforge-runtime:lib").unwrap();
        assert_eq!(
            lib.cargo_args(),
            ["test", "-p", "kubeforge-runtime", "--lib"]
        );
        for bad in ["", "x", "x:", ":y", "x:y:", "x:y:z:w"] {
            assert!(Target::parse(bad).is_err(), "{bad:?}");
        }
    }
}
