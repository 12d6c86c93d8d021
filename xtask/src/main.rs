//! Project automation: `cargo xtask regen [--check]`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench;
mod diff;
mod routes;
mod serve;
mod times;

#[derive(Parser)]
#[command(about = "kubeforge project tasks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate a complete crate from any inputs (the same as the `kubeforge` binary; run
    /// `cargo xtask generate --help`).
    #[command(disable_help_flag = true)]
    Generate {
        /// Arguments for the generator.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Benchmark against the peers (k8s-openapi, matchit, kopium) on the Kubernetes corpus
    /// and real CRDs, and write BENCHMARKS.md: generation time, compile time, serde
    /// throughput, route matching, per-group builds, the cost of unknown fields, CRDs.
    Bench {
        /// How many runs of each measurement; medians and min–max are reported.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// One run with few iterations, for development; writes
        /// target/bench-peers/BENCHMARKS.md unless --output says otherwise.
        #[arg(long)]
        quick: bool,
        /// Measure only these comparisons (repeatable); a partial report goes to
        /// target/bench-peers/BENCHMARKS.md unless --output says otherwise.
        #[arg(long, value_enum)]
        only: Vec<bench::Section>,
        /// Where to write the report (default: BENCHMARKS.md for a full run).
        #[arg(long)]
        output: Option<PathBuf>,
    },
    /// Time a clean debug build of the generated crate with and without builders.
    BenchBuilders {
        /// How many times to build each variant; the median counts.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Input documents (default: schemas/*.json).
        #[arg(long = "input")]
        inputs: Vec<PathBuf>,
        /// Leave the route tables out of both variants, to compare the types alone.
        #[arg(long)]
        no_routes: bool,
    },
    /// Print the route table of schemas/*.json: every operation's method, path, action,
    /// resource and query parameters.
    Routes {
        /// One JSON object per line instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Plant known bugs in a scratch copy (target/mutants/repo), re-bless the goldens there
    /// when the bug is in the generator, and check that a test of the bug's test targets
    /// fails for each; fails if any bug survives or no longer applies.
    Mutants {
        /// Only these mutants (repeatable); all by default.
        #[arg(long = "only")]
        only: Vec<String>,
        /// Print each mutant (name, file, test targets, what it breaks) and plant nothing.
        #[arg(long)]
        list: bool,
        /// Plant in this workspace and build in its own target directory, instead of a copy
        /// with a target directory of its own: for a throwaway checkout (CI), where the
        /// workspace is already built. Every planted file is written back at the end, also
        /// on an error, but a killed run leaves its bug in place.
        #[arg(long)]
        in_place: bool,
        /// The log of the test step that has just run in this workspace (`cargo xtask times
        /// -- cargo test --workspace` writes <target dir>/test-times/log.tsv): the baseline
        /// leaves out the targets whose very binaries passed there, every test, in the same
        /// environment, with nothing written since; the others run as without it (CI).
        #[arg(long, value_name = "LOG", requires = "in_place")]
        tested_by: Option<PathBuf>,
    },
    /// Print what changed in the API (`kubeforge diff`): of schemas/ from `--base` (default
    /// HEAD) to the working tree, or from OLD documents to NEW ones.
    Diff {
        /// The old documents.
        #[arg(value_name = "OLD")]
        old: Vec<PathBuf>,
        /// The new documents, after `--`.
        #[arg(last = true, value_name = "NEW")]
        new: Vec<PathBuf>,
        /// The git revision whose schemas/ is the old API (default HEAD).
        #[arg(long, value_name = "REV")]
        base: Option<String>,
        /// Markdown for a pull-request description.
        #[arg(long, conflicts_with = "json")]
        markdown: bool,
        /// One JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Run the in-memory API server (`kubeforge-server serve`) on schemas/ or the documents
    /// given: `[--schemas DIR | inputs…] [--listen 127.0.0.1:0] [--kubeconfig FILE]`.
    #[command(disable_help_flag = true)]
    Serve {
        /// Arguments for `kubeforge-server serve`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Run kube-rs's own cluster tests (its `#[ignore]`d library tests, from the published
    /// packages) against `kubeforge-server serve kubernetes/swagger.json`, the v3 documents
    /// and a simulating server, several at once: each test's result, the counts, and whether
    /// they match server/tests/kube_rs_expected.txt and kube_rs_simulated.txt.
    KubeTests,
    /// Run a command (`cargo xtask times -- cargo test --workspace`) and report where its
    /// time goes: the build against the run, and each test binary's and doc-test crate's
    /// run, its own build and what it builds with cargo, in wall-clock and CPU seconds, the
    /// five slowest last (also in <target dir>/test-times/report.txt).
    Times {
        /// How many binaries the full table lists.
        #[arg(long, default_value_t = 40)]
        most: usize,
        /// Only print the report of the last run's log again (a stopped run's, say).
        #[arg(long, conflicts_with = "command")]
        report: bool,
        /// The command, after `--`.
        #[arg(
            last = true,
            required_unless_present = "report",
            value_name = "COMMAND"
        )]
        command: Vec<std::ffi::OsString>,
    },
    /// Regenerate generated/src from schemas/*.json (and meta/src, runtime/src/crd_query.rs),
    /// then build the generated crate.
    Regen {
        /// Write nothing; exit non-zero with a unified diff when generated/ is stale.
        #[arg(long)]
        check: bool,
        /// Only regenerate; do not build the generated crate afterwards.
        #[arg(long, conflicts_with = "check")]
        no_build: bool,
    },
}

fn main() -> ExitCode {
    // Started by cargo as one of `times`' stand-ins for rustc, rustdoc or the test runner.
    if let Some(code) = times::as_stand_in() {
        return code;
    }
    let cli = Cli::parse();
    let root = workspace_root();
    match cli.command {
        Command::Generate { args } => kubeforge::cli::run(
            std::iter::once(std::ffi::OsString::from("cargo xtask generate")).chain(args),
        ),
        Command::BenchBuilders {
            runs,
            inputs,
            no_routes,
        } => bench::builders::run(&root, &inputs, runs, !no_routes),
        Command::Bench {
            runs,
            quick,
            only,
            output,
        } => bench::run(
            &root,
            &bench::Options {
                runs,
                quick,
                only,
                output,
            },
        ),
        Command::Routes { json } => routes::run(&root, json),
        Command::Mutants {
            only,
            list,
            in_place,
            tested_by,
        } => xtask::mutants::run(&root, &only, list, in_place, tested_by.as_deref()),
        Command::Diff {
            old,
            new,
            base,
            markdown,
            json,
        } => diff::run(
            &root,
            &old,
            &new,
            base.as_deref(),
            kubeforge::cli::diff::Format::from_flags(markdown, json),
        ),
        Command::Serve { args } => serve::run(&root, args),
        Command::KubeTests => kube_tests(&root),
        Command::Times {
            most, report: true, ..
        } => times::report_again(&root, most),
        Command::Times { most, command, .. } => times::run(&root, most, &command),
        Command::Regen { check, no_build } => {
            let status = regen(&root, check);
            let status = if check || no_build || status != ExitCode::SUCCESS {
                status
            } else {
                build_generated(&root)
            };
            if !check {
                // The last word: what changed in the API since the last commit.
                eprint!("{}", diff::regen_summary(&root));
            }
            status
        }
    }
}

/// Rebuilds the known-shapes table from the corpus's swagger; with `check`, only compares.
/// Whether the committed table is current. Without the corpus it says so and keeps the
/// committed table (an error with `CI` set).
fn known_shapes(root: &Path, check: bool) -> Result<bool, String> {
    let Some(table) = xtask::known_shapes(root)? else {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
        eprintln!(
            "SKIPPED: known shapes: missing {} in the corpus; {} left as committed",
            xtask::KNOWN_SHAPES_SOURCE,
            xtask::KNOWN_SHAPES
        );
        return Ok(!ci);
    };
    Ok(
        match write_or_check(root, xtask::KNOWN_SHAPES, &table, check)? {
            Committed::Current => true,
            Committed::Stale => false,
            Committed::Written => {
                eprintln!(
                    "{} rewritten; run `cargo xtask regen` again so that generation uses it",
                    xtask::KNOWN_SHAPES
                );
                false
            }
        },
    )
}

/// Writes the runtime's CRD query structs (`runtime/src/crd_query.rs`) from the generator;
/// with `check`, only compares. Whether the committed file is current. The generator that
/// runs here was built with the committed file, which only decides whether a CRD crate
/// re-exports the structs: `generated/` and `meta/` do not depend on it.
fn crd_query(root: &Path, check: bool) -> Result<bool, String> {
    let text = kubeforge::crd_query_module().map_err(|e| e.to_string())?;
    Ok(
        match write_or_check(root, xtask::CRD_QUERY, &text, check)? {
            Committed::Current => true,
            Committed::Stale => false,
            Committed::Written => {
                eprintln!("{} rewritten", xtask::CRD_QUERY);
                true
            }
        },
    )
}

/// What [`write_or_check`] found of a file `regen` writes whole.
enum Committed {
    /// The committed file holds the text.
    Current,
    /// It does not, and only a check was asked for (said on stderr).
    Stale,
    /// It did not, and now does.
    Written,
}

/// Compares `text` with the committed file at `relative` (below `root`); when they differ,
/// says the file is stale with `check`, and writes it otherwise.
fn write_or_check(
    root: &Path,
    relative: &str,
    text: &str,
    check: bool,
) -> Result<Committed, String> {
    let path = root.join(relative);
    if std::fs::read_to_string(&path).is_ok_and(|committed| committed == text) {
        return Ok(Committed::Current);
    }
    if check {
        eprintln!("{relative} is stale. Run `cargo xtask regen` and commit the result.");
        return Ok(Committed::Stale);
    }
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(Committed::Written)
}

/// Builds the generated crate, so that `regen` alone shows whether the output compiles.
fn build_generated(root: &Path) -> ExitCode {
    let status = xtask::cargo::command()
        .args([
            "build",
            "--package",
            "kubeforge-meta",
            "--package",
            "kubeforge-api",
        ])
        .current_dir(root)
        .status();
    match status {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: cannot run cargo: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: xtask lives one level below it.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

fn regen(root: &Path, check: bool) -> ExitCode {
    match known_shapes(root, check) {
        Ok(true) => {}
        Ok(false) => return ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    }
    match crd_query(root, check) {
        Ok(true) => {}
        Ok(false) => return ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    }
    let config = match xtask::regen_config(root) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    };
    // The companion crate first: the generated crate depends on it.
    let meta = regen_one(
        root,
        &xtask::meta_config(root),
        xtask::META_OUTPUT_DIR,
        check,
    );
    let api = regen_one(root, &config, xtask::OUTPUT_DIR, check);
    if meta == ExitCode::SUCCESS { api } else { meta }
}

/// Generates `config` into `out` (relative to `root`), or with `check` compares.
fn regen_one(root: &Path, config: &kubeforge::Config, out: &str, check: bool) -> ExitCode {
    let output = match config.generate() {
        Ok(output) => output,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let out_dir = root.join(out);
    if check {
        match output.check(&out_dir) {
            Ok(report) if report.is_clean() => {
                eprintln!("{out} is up to date ({} files)", output.files().len());
                ExitCode::SUCCESS
            }
            Ok(report) => {
                print!("{}\n{}", diff::regen_summary(root), report.diff);
                eprintln!(
                    "{out} is stale: {} changed, {} stale file(s). Run `cargo xtask regen` and commit the result.",
                    report.changed.len(),
                    report.stale.len()
                );
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        }
    } else {
        match output.write(&out_dir) {
            Ok(report) => {
                eprintln!(
                    "{out}: {} written, {} unchanged, {} removed",
                    report.written.len(),
                    report.unchanged.len(),
                    report.removed.len()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        }
    }
}

/// `cargo xtask kube-tests`: the server's test that runs them (it prints each result and
/// the count, and compares them with the committed expectations).
fn kube_tests(root: &Path) -> ExitCode {
    let status = xtask::cargo::command()
        .args([
            "test",
            "--package",
            "kubeforge-server",
            "--test",
            "kube_rs_suite",
        ])
        .current_dir(root)
        .status();
    match status {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: cannot run cargo: {error}");
            ExitCode::FAILURE
        }
    }
}
