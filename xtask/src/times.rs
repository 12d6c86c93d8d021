//! `cargo xtask times -- cargo test --workspace`: where a test run's time goes, per test
//! binary, its build against its run, in CPU seconds as well as wall-clock seconds (CPU time
//! does not grow when other work shares the machine; wall-clock time does).
//!
//! The command runs as given, with three stand-ins that cargo calls instead of the real
//! tools: `RUSTC_WRAPPER` (every `rustc` cargo runs: the workspace's crates, their
//! dependencies, and the crates the tests themselves build with cargo), the test runner
//! (`CARGO_TARGET_<host>_RUNNER`: every test binary) and `RUSTDOC` (the doc-tests). Each runs
//! the real tool as its child, waits for it, and appends one line to a log: what ran, its
//! wall-clock time, and the CPU time of the child and everything under it (`cutime` +
//! `cstime` of `/proc/self/stat`; on other systems, wall-clock time only). A test binary's
//! children are told its name, so what it builds with cargo is counted as its run and shown
//! apart ("nested build"). Nothing else changes: the same cargo, the same flags, the same
//! target directory, so the stand-ins cost no rebuild and the tests see what they see in a
//! plain run (`current_exe` is still the test binary).
//!
//! The report goes to standard error and to `<target dir>/test-times/report.txt`: the
//! totals, then every test binary and doc-test crate by run time, and last the five slowest
//! (`.ci/run` runs its `cargo test --workspace` so, and the five slowest are the last lines
//! of CI's test step).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The log the stand-ins append to.
const LOG: &str = "KUBEFORGE_TIMES_LOG";
/// The test binary a child of the runner works for.
const FOR_TEST: &str = "KUBEFORGE_TIMES_TEST";
/// The rustdoc the `rustdoc` stand-in runs.
const REAL_RUSTDOC: &str = "KUBEFORGE_TIMES_RUSTDOC";
/// A `RUSTC_WRAPPER` that was set before (sccache, say): the wrapper stand-in runs it.
const INNER_WRAPPER: &str = "KUBEFORGE_TIMES_WRAPPER";

/// The stand-ins are this program under other names (links to one copy of it, so that cargo
/// rebuilding xtask during the run does not touch them).
const WRAPPER_NAME: &str = "times-rustc-wrapper";
const RUNNER_NAME: &str = "times-test-runner";
const RUSTDOC_NAME: &str = "times-rustdoc";

/// When this program was started as one of the stand-ins, does that job and returns its exit
/// code; `None` for a normal `cargo xtask` call.
pub fn as_stand_in() -> Option<ExitCode> {
    let argv0 = std::env::args_os().next()?;
    let name = Path::new(&argv0).file_name()?.to_str()?.to_owned();
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match name.as_str() {
        WRAPPER_NAME => Some(wrap_rustc(&args)),
        RUNNER_NAME => Some(run_test(&args)),
        RUSTDOC_NAME => Some(wrap_rustdoc(&args)),
        _ => None,
    }
}

/// `cargo xtask times --report`: the report of the last run's log again (of a run that was
/// stopped, say), without running anything.
pub fn report_again(root: &Path, most: usize) -> ExitCode {
    let log = target_dir(root).join("test-times").join("log.tsv");
    let Ok(text) = std::fs::read_to_string(&log) else {
        eprintln!("cargo xtask times: no log at {}", log.display());
        return ExitCode::FAILURE;
    };
    let entries: Vec<Entry> = text.lines().filter_map(Entry::parse).collect();
    let first = entries
        .iter()
        .map(|e| e.start)
        .fold(f64::INFINITY, f64::min);
    let last = entries
        .iter()
        .map(|e| e.start + e.wall)
        .fold(f64::NEG_INFINITY, f64::max);
    let wall = if first.is_finite() { last - first } else { 0.0 };
    eprint!(
        "{}",
        Report::read(&text, wall, None).render(most, &format!("(the log {})", log.display()))
    );
    ExitCode::SUCCESS
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

/// `cargo xtask times [--most N] -- COMMAND…`.
pub fn run(root: &Path, most: usize, command: &[OsString]) -> ExitCode {
    let Some((program, args)) = command.split_first() else {
        eprintln!("cargo xtask times: name the command, e.g. `-- cargo test --workspace`");
        return ExitCode::FAILURE;
    };
    let dir = target_dir(root).join("test-times");
    let prepared = prepare(&dir).and_then(|bin| {
        let host = host_triple()?;
        let rustdoc = real_rustdoc()?;
        Ok((bin, host, rustdoc))
    });
    let (bin, host, rustdoc) = match prepared {
        Ok(prepared) => prepared,
        Err(e) => {
            eprintln!("cargo xtask times: {e}");
            return ExitCode::FAILURE;
        }
    };
    let log = dir.join("log.tsv");
    let _ = std::fs::remove_file(&log);
    let runner_var = format!(
        "CARGO_TARGET_{}_RUNNER",
        host.to_uppercase().replace(['-', '.'], "_")
    );
    let mut cmd = Command::new(program);
    xtask::cargo::as_from_a_shell(&mut cmd)
        .args(args)
        .current_dir(root)
        .env(LOG, &log)
        .env("RUSTC_WRAPPER", bin.join(WRAPPER_NAME))
        .env(&runner_var, bin.join(RUNNER_NAME))
        .env("RUSTDOC", bin.join(RUSTDOC_NAME))
        .env(REAL_RUSTDOC, rustdoc)
        .env_remove(FOR_TEST);
    if let Some(inner) = std::env::var_os("RUSTC_WRAPPER").filter(|w| !w.is_empty()) {
        cmd.env(INNER_WRAPPER, inner);
    }
    let started = Instant::now();
    let cpu_before = children_cpu();
    let status = cmd.status();
    let wall = started.elapsed().as_secs_f64();
    let cpu = children_cpu()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    let status = match status {
        Ok(status) => status,
        Err(e) => {
            eprintln!("cargo xtask times: cannot run {}: {e}", program.display());
            return ExitCode::FAILURE;
        }
    };
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let report = Report::read(&text, wall, cpu);
    let rendered = report.render(most, &command_line(command));
    eprint!("{rendered}");
    let _ = std::fs::write(dir.join("report.txt"), &rendered);
    if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(u8::try_from(status.code().unwrap_or(1)).unwrap_or(1))
    }
}

fn command_line(command: &[OsString]) -> String {
    command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// One copy of this program in `<dir>/bin`, and the stand-ins' names linked to it.
fn prepare(dir: &Path) -> Result<PathBuf, String> {
    let bin = dir.join("bin");
    let _ = std::fs::remove_dir_all(&bin);
    std::fs::create_dir_all(&bin).map_err(|e| format!("cannot create {}: {e}", bin.display()))?;
    let exe = std::env::current_exe().map_err(|e| format!("no path to this program: {e}"))?;
    let copy = bin.join("xtask");
    std::fs::copy(&exe, &copy)
        .map_err(|e| format!("cannot copy {} to {}: {e}", exe.display(), copy.display()))?;
    for name in [WRAPPER_NAME, RUNNER_NAME, RUSTDOC_NAME] {
        let link = bin.join(name);
        std::fs::hard_link(&copy, &link)
            .or_else(|_| std::fs::copy(&copy, &link).map(drop))
            .map_err(|e| format!("cannot make {}: {e}", link.display()))?;
    }
    Ok(bin)
}

fn host_triple() -> Result<String, String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .arg("-vV")
        .output()
        .map_err(|e| format!("cannot run rustc -vV: {e}"))?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_owned)
        .ok_or_else(|| "rustc -vV names no host".to_owned())
}

/// The rustdoc cargo would run: `$RUSTDOC`, else the one beside `rustc` in its sysroot.
fn real_rustdoc() -> Result<OsString, String> {
    if let Some(rustdoc) = std::env::var_os("RUSTDOC").filter(|r| !r.is_empty()) {
        return Ok(rustdoc);
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| format!("cannot run rustc --print sysroot: {e}"))?;
    let sysroot = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let rustdoc = Path::new(&sysroot).join("bin").join("rustdoc");
    if rustdoc.is_file() {
        Ok(rustdoc.into_os_string())
    } else {
        Ok("rustdoc".into())
    }
}

/// The CPU time (user + system, seconds) of this process's children that have ended and
/// been waited for, and of theirs: `cutime` + `cstime` of `/proc/self/stat`.
fn children_cpu() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // Fields 16 and 17 of proc(5); the list starts at field 3 (state).
    let cutime: f64 = fields.get(13)?.parse().ok()?;
    let cstime: f64 = fields.get(14)?.parse().ok()?;
    Some((cutime + cstime) / clock_ticks())
}

/// `sysconf(_SC_CLK_TCK)`: the kernel's `AT_CLKTCK` in `/proc/self/auxv` (100 where it cannot
/// be read, as on every Linux this runs on).
fn clock_ticks() -> f64 {
    const AT_CLKTCK: u64 = 17;
    let Ok(auxv) = std::fs::read("/proc/self/auxv") else {
        return 100.0;
    };
    auxv.chunks_exact(16)
        .map(|pair| {
            let word =
                |at: usize| u64::from_ne_bytes(pair[at..at + 8].try_into().expect("eight bytes"));
            (word(0), word(8))
        })
        .find(|(key, _)| *key == AT_CLKTCK)
        .and_then(|(_, value)| u32::try_from(value).ok())
        .filter(|ticks| *ticks > 0)
        .map_or(100.0, f64::from)
}

fn now_seconds() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Runs `program args`, waits, and appends `fields` + start, wall and CPU to the log.
fn timed(mut command: Command, fields: &[String]) -> ExitCode {
    let start = now_seconds();
    let started = Instant::now();
    let cpu_before = children_cpu();
    let status = command.status();
    let wall = started.elapsed().as_secs_f64();
    let cpu = children_cpu()
        .zip(cpu_before)
        .map_or(-1.0, |(after, before)| after - before);
    let code = match &status {
        Ok(status) => status.code().unwrap_or(101),
        Err(e) => {
            eprintln!("kubeforge times: cannot run {command:?}: {e}");
            101
        }
    };
    if let Some(log) = std::env::var_os(LOG) {
        let mut line = fields.join("\t");
        let _ = write!(line, "\t{start:.3}\t{wall:.3}\t{cpu:.2}\t{code}");
        line.push('\n');
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            // One write per line, appended: lines of concurrent stand-ins do not interleave.
            let _ = file.write_all(line.as_bytes());
        }
    }
    ExitCode::from(u8::try_from(code).unwrap_or(101))
}

fn arg_after<'a>(args: &'a [OsString], flag: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .and_then(|a| a.to_str())
}

fn for_test() -> String {
    std::env::var(FOR_TEST).unwrap_or_default()
}

/// `RUSTC_WRAPPER`: `args` is the rustc cargo would run, then its arguments.
fn wrap_rustc(args: &[OsString]) -> ExitCode {
    let Some((rustc, rest)) = args.split_first() else {
        eprintln!("kubeforge times: the rustc wrapper got no rustc to run");
        return ExitCode::FAILURE;
    };
    let mut command = match std::env::var_os(INNER_WRAPPER) {
        Some(inner) => {
            let mut command = Command::new(inner);
            command.arg(rustc);
            command
        }
        None => Command::new(rustc),
    };
    command.args(rest);
    let Some(crate_name) = arg_after(rest, "--crate-name") else {
        // `rustc -vV` and other questions cargo asks: not a build.
        return timed_quietly(command);
    };
    let extra = rest
        .iter()
        .filter_map(|a| a.to_str())
        .find_map(|a| a.strip_prefix("extra-filename="))
        .unwrap_or_default();
    let kind = if rest.iter().any(|a| a == "--test") {
        "test"
    } else {
        arg_after(rest, "--crate-type").unwrap_or("bin")
    };
    let out_dir = arg_after(rest, "--out-dir").unwrap_or_default();
    let package = std::env::var("CARGO_PKG_NAME").unwrap_or_default();
    timed(
        command,
        &[
            "rustc".to_owned(),
            for_test(),
            package,
            format!("{crate_name}{extra}"),
            kind.to_owned(),
            out_dir.to_owned(),
        ],
    )
}

fn timed_quietly(mut command: Command) -> ExitCode {
    match command.status() {
        Ok(status) => ExitCode::from(u8::try_from(status.code().unwrap_or(101)).unwrap_or(101)),
        Err(e) => {
            eprintln!("kubeforge times: cannot run {command:?}: {e}");
            ExitCode::from(101)
        }
    }
}

/// The test runner: `args` is the test binary, then its arguments.
fn run_test(args: &[OsString]) -> ExitCode {
    let Some((binary, rest)) = args.split_first() else {
        eprintln!("kubeforge times: the test runner got no binary to run");
        return ExitCode::FAILURE;
    };
    let name = Path::new(binary)
        .file_name()
        .map(OsStr::to_string_lossy)
        .unwrap_or_default()
        .into_owned();
    let mut command = Command::new(binary);
    command.args(rest).env(FOR_TEST, &name);
    // What the test runs with cargo runs its own binaries as a plain cargo would.
    for (key, _) in std::env::vars_os() {
        if key
            .to_str()
            .is_some_and(|k| k.starts_with("CARGO_TARGET_") && k.ends_with("_RUNNER"))
        {
            command.env_remove(key);
        }
    }
    let package = std::env::var("CARGO_PKG_NAME").unwrap_or_default();
    // Its arguments and the environment that chooses what its tests do, so that `cargo
    // xtask mutants --tested-by` can tell a run of every test, as the mutants' baseline
    // would run it, from a filtered one (xtask/src/mutants.rs, `TestedBy`).
    let arguments = xtask::mutants::log_field(rest.iter().map(|a| a.to_string_lossy()));
    let environment = xtask::mutants::log_field(xtask::mutants::test_environment());
    timed(
        command,
        &[
            "run".to_owned(),
            for_test(),
            package,
            name,
            arguments,
            environment,
        ],
    )
}

/// `RUSTDOC`: the real rustdoc; a `--test` run is a crate's doc-tests.
fn wrap_rustdoc(args: &[OsString]) -> ExitCode {
    let rustdoc = std::env::var_os(REAL_RUSTDOC).unwrap_or_else(|| "rustdoc".into());
    let mut command = Command::new(rustdoc);
    command.args(args);
    let Some(crate_name) = arg_after(args, "--crate-name") else {
        return timed_quietly(command);
    };
    let kind = if args.iter().any(|a| a == "--test") {
        "doctest"
    } else {
        "doc"
    };
    if std::env::var_os(FOR_TEST).is_none() {
        // The doc-tests' programs (run through the test runner too) are the crate's
        // doc-tests, not test binaries of their own.
        command.env(FOR_TEST, format!("{crate_name}-doctests"));
    }
    let package = std::env::var("CARGO_PKG_NAME").unwrap_or_default();
    timed(
        command,
        &[
            "rustdoc".to_owned(),
            for_test(),
            package,
            crate_name.to_owned(),
            kind.to_owned(),
        ],
    )
}

/// One line of the log.
#[derive(Debug)]
struct Entry {
    tool: String,
    for_test: String,
    package: String,
    name: String,
    kind: String,
    start: f64,
    wall: f64,
    cpu: f64,
}

impl Entry {
    fn parse(line: &str) -> Option<Entry> {
        let fields: Vec<&str> = line.split('\t').collect();
        let (tool, rest) = fields.split_first()?;
        // rustc: for_test package name kind out_dir; run: for_test package name arguments
        // environment; rustdoc: for_test package name kind; then start wall cpu code.
        let named = match *tool {
            "rustc" => 5,
            // A log written before the arguments and environment were (`--report`).
            "run" if rest.len() == 3 + 4 => 3,
            "run" => 5,
            "rustdoc" => 4,
            _ => return None,
        };
        if rest.len() != named + 4 {
            return None;
        }
        let number = |i: usize| rest.get(i).and_then(|f| f.parse::<f64>().ok());
        Some(Entry {
            tool: (*tool).to_owned(),
            for_test: rest[0].to_owned(),
            package: rest[1].to_owned(),
            name: rest[2].to_owned(),
            kind: if *tool != "run" && named > 3 {
                rest[3].to_owned()
            } else {
                String::new()
            },
            start: number(named)?,
            wall: number(named + 1)?,
            cpu: number(named + 2)?,
        })
    }
}

/// A test binary's or a doc-test crate's row.
#[derive(Debug, Default)]
struct Row {
    label: String,
    build_cpu: f64,
    run_wall: f64,
    run_cpu: f64,
    nested_cpu: f64,
}

/// What the log says.
#[derive(Debug, Default)]
struct Report {
    wall: f64,
    cpu: Option<f64>,
    build_wall: f64,
    build_cpu: f64,
    units: usize,
    nested_units: usize,
    run_wall: f64,
    run_cpu: f64,
    rows: Vec<Row>,
}

impl Report {
    fn read(log: &str, wall: f64, cpu: Option<f64>) -> Report {
        let entries: Vec<Entry> = log.lines().filter_map(Entry::parse).collect();
        let top = |e: &&Entry| e.for_test.is_empty();
        let first_run = entries
            .iter()
            .filter(top)
            .filter(|e| e.tool == "run" || e.kind == "doctest")
            .map(|e| e.start)
            .fold(f64::INFINITY, f64::min);
        let first = entries
            .iter()
            .map(|e| e.start)
            .fold(f64::INFINITY, f64::min);
        let mut report = Report {
            wall,
            cpu,
            build_wall: if first_run.is_finite() && first.is_finite() {
                first_run - first
            } else {
                wall
            },
            ..Report::default()
        };
        // Test binaries by file name (`<crate>-<hash>`), from the rustc that built them.
        let mut built: BTreeMap<&str, f64> = BTreeMap::new();
        let mut nested: BTreeMap<&str, f64> = BTreeMap::new();
        for entry in &entries {
            match (entry.tool.as_str(), entry.for_test.is_empty()) {
                ("rustc", true) => {
                    report.build_cpu += entry.cpu;
                    report.units += 1;
                    *built.entry(&entry.name).or_default() += entry.cpu;
                }
                ("rustc" | "rustdoc", false) => {
                    report.nested_units += 1;
                    *nested.entry(&entry.for_test).or_default() += entry.cpu;
                }
                _ => {}
            }
        }
        for entry in entries.iter().filter(top) {
            let label = match (entry.tool.as_str(), entry.kind.as_str()) {
                ("run", _) => format!(
                    "{}:{}",
                    entry.package,
                    entry.name.rsplit_once('-').map_or(&*entry.name, |(n, _)| n)
                ),
                ("rustdoc", "doctest") => format!("{}:doc-tests", entry.package),
                _ => continue,
            };
            report.run_wall += entry.wall;
            report.run_cpu += entry.cpu;
            report.rows.push(Row {
                label,
                build_cpu: built.get(entry.name.as_str()).copied().unwrap_or(0.0),
                run_wall: entry.wall,
                run_cpu: entry.cpu,
                nested_cpu: nested.get(entry.name.as_str()).copied().unwrap_or(0.0),
            });
        }
        // Every doc-test is built at run time: its CPU is all in `run_cpu`.
        report.rows.sort_by(|a, b| {
            b.run_wall
                .total_cmp(&a.run_wall)
                .then(a.label.cmp(&b.label))
        });
        report
    }

    fn render(&self, most: usize, command: &str) -> String {
        let mut out = String::new();
        let cpu = self
            .cpu
            .map_or_else(|| "CPU unknown".to_owned(), |c| format!("{c:.0} s CPU"));
        let _ = writeln!(out, "\n== times of `{command}`");
        let _ = writeln!(out, "total: {:.0} s wall, {cpu}", self.wall);
        let _ = writeln!(
            out,
            "build (until the first test ran): {:.0} s wall, {:.0} s CPU in {} rustc runs",
            self.build_wall, self.build_cpu, self.units
        );
        let nested: f64 = self.rows.iter().map(|r| r.nested_cpu).sum();
        let _ = writeln!(
            out,
            "run: {:.0} s wall, {:.0} s CPU in {} test binaries and doc-test crates \
             ({:.0} s CPU of it in {} rustc/rustdoc runs of crates the tests build)",
            self.run_wall,
            self.run_cpu,
            self.rows.len(),
            nested,
            self.nested_units
        );
        let table = |out: &mut String, rows: &[&Row]| {
            let _ = writeln!(
                out,
                "{:>8} {:>8} {:>8} {:>8}  binary",
                "run s", "run CPU", "nested", "build"
            );
            for row in rows {
                let _ = writeln!(
                    out,
                    "{:>8.1} {:>8.1} {:>8.1} {:>8.1}  {}",
                    row.run_wall, row.run_cpu, row.nested_cpu, row.build_cpu, row.label
                );
            }
        };
        let _ = writeln!(
            out,
            "\nby run time (run: wall s; run CPU: s, with what it builds; nested: CPU s of \
             the crates it builds with cargo; build: CPU s of its own compile):"
        );
        let rows: Vec<&Row> = self.rows.iter().take(most).collect();
        table(&mut out, &rows);
        if self.rows.len() > most {
            let _ = writeln!(out, "(+{} more)", self.rows.len() - most);
        }
        let _ = writeln!(out, "\nthe five slowest:");
        let rows: Vec<&Row> = self.rows.iter().take(5).collect();
        table(&mut out, &rows);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "\
rustc\t\tserde\tserde-1\tlib\t/t/debug/deps\t100.0\t2.0\t1.9\t0
rustc\t\tkubeforge-tests\tscale-aa\ttest\t/t/debug/deps\t102.0\t5.0\t4.5\t0
rustc\t\tkubeforge\tcli-bb\ttest\t/t/debug/deps\t102.5\t3.0\t2.5\t0
run\t\tkubeforge-tests\tscale-aa\t\tCI=true\t110.0\t60.0\t80.0\t0
rustc\tscale-aa\tscale_crate\tscale_crate-cc\tlib\t/t/tmp/scale/target/debug/deps\t111.0\t30.0\t29.0\t0
run\t\tkubeforge\tcli-bb\t170.0\t1.0\t0.8\t0
rustdoc\t\tkubeforge-runtime\tkubeforge_runtime\tdoctest\t171.0\t9.0\t8.0\t0
run\tkubeforge_runtime-doctests\tkubeforge-runtime\trust_out\t175.0\t1.0\t0.5\t0
";

    #[test]
    fn the_report_splits_build_from_run_and_ranks_binaries() {
        let report = Report::read(LOG, 90.0, Some(130.0));
        assert_eq!(report.units, 3);
        assert!((report.build_cpu - 8.9).abs() < 1e-9);
        assert!((report.build_wall - 10.0).abs() < 1e-9);
        assert_eq!(report.nested_units, 1);
        let labels: Vec<&str> = report.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "kubeforge-tests:scale",
                "kubeforge-runtime:doc-tests",
                "kubeforge:cli"
            ]
        );
        let scale = &report.rows[0];
        assert!((scale.build_cpu - 4.5).abs() < 1e-9);
        assert!((scale.nested_cpu - 29.0).abs() < 1e-9);
        let text = report.render(2, "cargo test --workspace");
        assert!(text.contains("total: 90 s wall, 130 s CPU"), "{text}");
        assert!(text.contains("(+1 more)"), "{text}");
        let slowest = text
            .split("the five slowest:")
            .nth(1)
            .expect("five slowest");
        assert_eq!(
            slowest.lines().filter(|l| l.contains(':')).count(),
            3,
            "{text}"
        );
    }

    #[test]
    fn a_malformed_line_is_passed_over() {
        let report = Report::read(
            "rustc\tonly\n\nrun\t\tp\tx-1\t1\t2\tnot a number\t0\n",
            1.0,
            None,
        );
        assert!(report.rows.is_empty());
        assert!(report.render(5, "x").contains("CPU unknown"));
    }
}
