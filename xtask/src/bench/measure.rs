//! Running and measuring processes: cargo, the harness (whose one line of JSON is parsed
//! strictly into a `protocol` type), clean builds, and what the generators wrote.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::de::DeserializeOwned;

pub(crate) use super::protocol::Usage;

impl Usage {
    /// User + system CPU seconds.
    pub(crate) fn cpu(&self) -> f64 {
        self.user_s + self.sys_s
    }

    /// Peak resident set in MiB.
    #[allow(clippy::cast_precision_loss)] // a resident set is far below 2^52 KiB
    pub(crate) fn maxrss_mib(&self) -> f64 {
        self.maxrss_kib as f64 / 1024.0
    }
}

/// A run's wall time in seconds (for `Stat::field`).
pub(crate) fn wall(u: &Usage) -> f64 {
    u.wall_s
}

/// A run's CPU time in seconds (for `Stat::field`).
pub(crate) fn cpu(u: &Usage) -> f64 {
    u.cpu()
}

/// Parses what the harness printed for `what`: exactly one JSON value of type `T`, every
/// field present and no other. The error names the command, the field (serde's message says
/// `missing field `x``, `unknown field `y``, `invalid type: … expected f64`), and quotes the
/// output.
pub(crate) fn parse_report<T: DeserializeOwned>(what: &str, stdout: &str) -> Result<T, String> {
    serde_json::from_str(stdout.trim()).map_err(|e| {
        format!(
            "`harness {what}` printed an unexpected report: {e}\n  its standard output was: {}",
            stdout.trim()
        )
    })
}

/// What the generator's `--timings FILE` wrote: the wall seconds of each stage of one
/// generation, parsed as strictly as the harness's reports.
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Stages {
    pub load_s: f64,
    pub model_s: f64,
    pub emit_s: f64,
    pub render_s: f64,
    pub write_s: f64,
}

impl Stages {
    /// The stages by name, in order.
    pub(crate) const NAMES: [&'static str; 5] = ["load", "model", "emit", "render", "write"];

    pub(crate) fn get(&self, index: usize) -> f64 {
        [
            self.load_s,
            self.model_s,
            self.emit_s,
            self.render_s,
            self.write_s,
        ][index]
    }
}

/// The release harness binary of the throwaway project.
pub(crate) struct Harness {
    pub bin: PathBuf,
}

impl Harness {
    /// The binary of the protobuf contenders' harness (`harness-pb`, beside `bin`), built
    /// apart so that the JSON contenders' runtime has no `protobuf` feature.
    pub(crate) fn protobuf(&self) -> Self {
        Harness {
            bin: self.bin.with_file_name(super::setup::HARNESS_PB),
        }
    }
}

impl Harness {
    /// Runs the harness with `args` and parses its report as `T`.
    pub(crate) fn run<T: DeserializeOwned>(&self, args: &[&str]) -> Result<T, String> {
        self.run_in(None, &[], args)
    }

    /// As [`Harness::run`], with the harness (and so what it runs) started in `dir` and with
    /// `env` added to its environment.
    fn run_in<T: DeserializeOwned>(
        &self,
        dir: Option<&Path>,
        env: &[(&str, &Path)],
        args: &[&str],
    ) -> Result<T, String> {
        let what = args.join(" ");
        let mut command = Command::new(&self.bin);
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        let output = as_built_for_timing(&mut command)
            .envs(env.iter().copied())
            .args(args)
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.bin.display()))?;
        if !output.status.success() {
            return Err(format!("`harness {what}` failed ({})", output.status));
        }
        let stdout = String::from_utf8(output.stdout)
            .map_err(|e| format!("`harness {what}` printed non-UTF-8 output: {e}"))?;
        parse_report(&what, &stdout)
    }

    /// Runs `program args` as a fresh process under the harness's `rusage`; its standard
    /// output goes to `stdout` when given.
    pub(crate) fn rusage(
        &self,
        program: &Path,
        args: &[&str],
        stdout: Option<&Path>,
    ) -> Result<Usage, String> {
        let mut full = vec!["rusage"];
        if let Some(file) = stdout {
            full.extend(["--stdout", path_str(file)?]);
        }
        full.push(path_str(program)?);
        full.extend(args);
        self.run(&full)
    }

    /// As [`Harness::rusage`], started in `dir` with `env` added: how cargo runs a build
    /// script (in its package's directory, with `OUT_DIR` and the like set).
    pub(crate) fn rusage_in(
        &self,
        dir: &Path,
        env: &[(&str, &Path)],
        program: &Path,
        stdout: &Path,
    ) -> Result<Usage, String> {
        self.run_in(
            Some(dir),
            env,
            &["rusage", "--stdout", path_str(stdout)?, path_str(program)?],
        )
    }

    /// Runs the generator with `args` under `rusage`, with `--timings FILE`, and reads what
    /// it wrote there.
    pub(crate) fn generate(
        &self,
        generator: &Path,
        args: &[&str],
        timings: &Path,
    ) -> Result<(Usage, Stages), String> {
        let _ = std::fs::remove_file(timings);
        let mut full = args.to_vec();
        full.extend(["--timings", path_str(timings)?]);
        let usage = self.rusage(generator, &full, None)?;
        let text = std::fs::read_to_string(timings).map_err(|e| {
            format!(
                "the generator wrote no timings to {}: {e}",
                timings.display()
            )
        })?;
        let stages = serde_json::from_str(text.trim()).map_err(|e| {
            format!(
                "the generator's timings in {} are not what `Stages` expects: {e}\n  the file holds: {}",
                timings.display(),
                text.trim()
            )
        })?;
        Ok((usage, stages))
    }

    /// A clean build of `package` in the project `dir`: `cargo clean -p`, then a measured
    /// `cargo build` with `extra` arguments, in the target directory `target`.
    pub(crate) fn clean_build(
        &self,
        dir: &Path,
        package: &str,
        target: &Path,
        extra: &[&str],
    ) -> Result<Usage, String> {
        let mut clean = vec!["clean", "--package", package];
        if extra.contains(&"--release") {
            clean.push("--release");
        }
        cargo_in(dir, target, &clean)?;
        let manifest = dir.join("Cargo.toml");
        let mut args = vec![
            "build",
            "--quiet",
            "--manifest-path",
            path_str(&manifest)?,
            "--target-dir",
            path_str(target)?,
        ];
        args.extend(extra);
        self.rusage(&which_cargo()?, &args, None)
    }
}

pub(crate) fn path_str(path: &Path) -> Result<&str, String> {
    path.to_str()
        .ok_or_else(|| format!("non-UTF-8 path {}", path.display()))
}

/// Alternates: even runs `[a, b]`, odd runs `[b, a]`, so that neither contender always runs
/// on a warmer (or busier) machine.
pub(crate) fn order<T: Copy>(run: usize, a: T, b: T) -> [T; 2] {
    if run.is_multiple_of(2) {
        [a, b]
    } else {
        [b, a]
    }
}

pub(crate) fn cargo_program() -> std::ffi::OsString {
    xtask::cargo::program()
}

/// The cargo that runs this xtask, as a path (the harness runs it).
pub(crate) fn which_cargo() -> Result<PathBuf, String> {
    let cargo = PathBuf::from(cargo_program());
    if cargo.is_absolute() {
        return Ok(cargo);
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(&cargo))
        .find(|p| p.is_file())
        .ok_or_else(|| "cannot find cargo".to_owned())
}

/// `cargo <args> --quiet` in `dir`.
/// Runs `program args` under callgrind, counting instructions only inside the functions
/// whose names match `toggle` (`--toggle-collect`), with callgrind's output in `out`: the
/// count, and what the program printed.
pub(crate) fn callgrind(
    program: &Path,
    args: &[&str],
    toggle: &str,
    out: &Path,
) -> Result<(u64, String), String> {
    let output = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", path_str(out)?))
        .arg(format!("--toggle-collect={toggle}"))
        .arg(program)
        .args(args)
        .output()
        .map_err(|e| {
            format!(
                "cannot run valgrind ({e}): the instruction counts need callgrind \
                 (Debian's package valgrind)"
            )
        })?;
    if !output.status.success() {
        return Err(format!(
            "callgrind of `{} {}` failed ({}):\n{}",
            program.display(),
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let text =
        std::fs::read_to_string(out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
    let total = callgrind_total(&text).ok_or_else(|| {
        format!(
            "{}: no `totals:` or `summary:` line, or a count of 0: callgrind collected \
             nothing inside `{toggle}` (renamed, or inlined?)",
            out.display()
        )
    })?;
    let stdout = String::from_utf8(output.stdout)
        .map_err(|e| format!("callgrind of {}: non-UTF-8 output: {e}", program.display()))?;
    Ok((total, stdout))
}

/// The instructions a callgrind output file counts (its `totals:` line, else `summary:`),
/// unless none.
fn callgrind_total(text: &str) -> Option<u64> {
    let line = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|rest| rest.split_whitespace().next()?.parse::<u64>().ok())
    };
    line("totals:")
        .or_else(|| line("summary:"))
        .filter(|n| *n > 0)
}

/// `command` with the environment of every build of the bench, the timed ones and those
/// that build their dependencies first (which must match, or the timed build would rebuild
/// them): the profiles as a user's project has them (debug info in dev, …), whatever this
/// shell sets to save time or disk; and no incremental compilation, so that every crate is
/// compiled the same way (a registry dependency such as k8s-openapi never is incremental,
/// while cargo would build a path package, the generated crate, incrementally, which costs
/// it more on a clean build).
pub(crate) fn as_built_for_timing(command: &mut Command) -> &mut Command {
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("CARGO_PROFILE_") {
            command.env_remove(key);
        }
    }
    command.env("CARGO_INCREMENTAL", "0")
}

pub(crate) fn cargo(dir: &Path, args: &[&str]) -> Result<(), String> {
    let status = as_built_for_timing(&mut xtask::cargo::command())
        .args(args)
        .arg("--quiet")
        .current_dir(dir)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`cargo {}` in {} failed",
            args.join(" "),
            dir.display()
        ))
    }
}

/// `cargo <args>` of the project in `dir`, in the target directory `target`.
pub(crate) fn cargo_in(dir: &Path, target: &Path, args: &[&str]) -> Result<(), String> {
    let manifest = dir.join("Cargo.toml");
    let mut full: Vec<&str> = args.to_vec();
    full.extend([
        "--manifest-path",
        path_str(&manifest)?,
        "--target-dir",
        path_str(target)?,
    ]);
    cargo(dir, &full)
}

/// Runs `program args` (stdout to `stdout` when given) and fails unless it succeeds.
pub(crate) fn run(program: &Path, args: &[&str], stdout: Option<&Path>) -> Result<(), String> {
    let mut command = Command::new(program);
    command.args(args);
    if let Some(file) = stdout {
        let file = std::fs::File::create(file)
            .map_err(|e| format!("cannot create {}: {e}", file.display()))?;
        command.stdout(file);
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{} {}` failed ({status})",
            program.display(),
            args.join(" ")
        ))
    }
}

/// The CPU time (user + system) of this process's finished children, from the `cutime`
/// and `cstime` fields of `/proc/self/stat`, which count in units of 1/100 s; `None` where
/// there is no `/proc` (not Linux).
pub(crate) fn children_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name may contain spaces; the fields after it are numbers.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // After the name, `state` is field 3 of proc(5), so `cutime` (16) and `cstime` (17)
    // are at positions 13 and 14.
    let ticks: u64 = fields.get(13)?.parse::<u64>().ok()? + fields.get(14)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// What generated Rust amounts to: files, lines, and declared types (`pub struct`,
/// `pub enum`, counted the same way for every generator).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Output {
    pub files: usize,
    pub lines: usize,
    pub types: usize,
}

impl Output {
    /// Adds one file's text.
    pub(crate) fn add(&mut self, text: &str) {
        self.files += 1;
        for line in text.lines() {
            self.lines += 1;
            let line = line.trim_start();
            if line.starts_with("pub struct ") || line.starts_with("pub enum ") {
                self.types += 1;
            }
        }
    }

    /// Every `.rs` file under `dir`.
    pub(crate) fn of_dir(dir: &Path) -> Result<Output, String> {
        let mut output = Output::default();
        walk(dir, &mut |text| output.add(text))?;
        Ok(output)
    }
}

fn walk(dir: &Path, each: &mut dyn FnMut(&str)) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            walk(&path, each)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            each(&std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::protocol::{Routes, Serde, SerdeFloor};
    use super::*;

    const USAGE: &str = r#"{"wall_s":1.5,"user_s":1.25,"sys_s":0.25,"maxrss_kib":2048}"#;

    #[test]
    fn callgrinds_total_is_read_and_nothing_counted_is_none() {
        let file = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nfn=(1) x\n3 12\nsummary: 987654\n\ntotals: 123456\n";
        assert_eq!(callgrind_total(file), Some(123_456));
        assert_eq!(callgrind_total("events: Ir\nsummary: 42\n"), Some(42));
        assert_eq!(callgrind_total("events: Ir\ntotals: 0\n"), None);
        assert_eq!(callgrind_total("events: Ir\n"), None);
    }

    #[test]
    fn a_complete_report_parses() {
        let usage: Usage = parse_report("rusage x", USAGE).unwrap();
        assert_eq!(usage.cpu(), 1.5);
        assert_eq!(usage.maxrss_mib(), 2.0);
        let serde: Serde = parse_report(
            "serde ours",
            r#"{"in_bytes":10,"out_bytes":10,"de_mbps":100.5,"ser_mbps":300.0,"de_s":[1e-7,2e-7],"ser_s":[3e-8,4e-8],"round_trip":true}"#,
        )
        .unwrap();
        assert!(serde.round_trip);
        assert_eq!(serde.ser_s, [3e-8, 4e-8]);
        let routes: Routes = parse_report(
            "routes ours common",
            r#"{"templates":562,"shapes":20,"requests":5,"matches_per_s":1e7,"ns_per_match":100.0}"#,
        )
        .unwrap();
        assert_eq!(routes.shapes, 20);
    }

    #[test]
    fn the_generators_timings_parse_as_stages() {
        // The generator's `--timings` JSON, from the function that writes it.
        let timings = kubeforge::Timings {
            load: std::time::Duration::from_millis(30),
            model: std::time::Duration::from_millis(100),
            ..Default::default()
        };
        let stages: Stages =
            serde_json::from_str(&timings.to_json(std::time::Duration::from_millis(7))).unwrap();
        assert_eq!(
            (0..5).map(|i| stages.get(i)).collect::<Vec<_>>(),
            [0.03, 0.1, 0.0, 0.0, 0.007]
        );
        assert!(serde_json::from_str::<Stages>(r#"{"load_s":1.0}"#).is_err());
    }

    #[test]
    fn a_missing_field_is_an_error_naming_it() {
        let error = parse_report::<Usage>(
            "rusage kubeforge",
            r#"{"wall_s":1.5,"user_s":1.0,"sys_s":0.1}"#,
        )
        .unwrap_err();
        assert!(error.contains("missing field `maxrss_kib`"), "{error}");
        assert!(error.contains("harness rusage kubeforge"), "{error}");
        let error = parse_report::<SerdeFloor>("serde floor", r#"{"in_bytes":3}"#).unwrap_err();
        assert!(error.contains("missing field `de_mbps`"), "{error}");
    }

    #[test]
    fn an_unknown_field_is_an_error_naming_it() {
        let error = parse_report::<SerdeFloor>(
            "serde floor",
            r#"{"in_bytes":3,"de_mbps":1.0,"de_s":[1.0],"ser_mbps":2.0}"#,
        )
        .unwrap_err();
        assert!(error.contains("unknown field `ser_mbps`"), "{error}");
    }

    #[test]
    fn a_bad_value_is_an_error_naming_the_field() {
        // A NaN is serialized by serde_json as `null`: never a silent figure.
        let error = parse_report::<Usage>(
            "rusage x",
            r#"{"wall_s":null,"user_s":1.0,"sys_s":0.1,"maxrss_kib":1}"#,
        )
        .unwrap_err();
        assert!(error.contains("null") && error.contains("f64"), "{error}");
        let error = parse_report::<Usage>(
            "rusage x",
            r#"{"wall_s":"?","user_s":1.0,"sys_s":0.1,"maxrss_kib":1}"#,
        )
        .unwrap_err();
        assert!(error.contains("invalid type: string \"?\""), "{error}");
        let error = parse_report::<Usage>(
            "rusage x",
            r#"{"wall_s":1.0,"user_s":1.0,"sys_s":0.1,"maxrss_kib":-1}"#,
        )
        .unwrap_err();
        assert!(error.contains("-1"), "{error}");
    }

    #[test]
    fn anything_besides_one_report_is_an_error() {
        // Stray output (a child writing to the harness's stdout) is not skipped over.
        let text = format!("generated 12 files\n{USAGE}");
        assert!(parse_report::<Usage>("rusage x", &text).is_err());
        let text = format!("{USAGE}\n{USAGE}");
        let error = parse_report::<Usage>("rusage x", &text).unwrap_err();
        assert!(error.contains("trailing characters"), "{error}");
        assert!(parse_report::<Usage>("rusage x", "").is_err());
        // The old `key=value` protocol is refused, not half-read.
        assert!(
            parse_report::<Usage>("rusage x", "wall=1.0 user=1.0 sys=0.1 maxrss_kib=1").is_err()
        );
    }

    #[test]
    fn output_counts_files_lines_and_types() {
        let mut output = Output::default();
        output.add("pub struct A {\n    pub b: B,\n}\n");
        output.add("/// doc\npub enum B {\n    X,\n}\npub type C = A;\n    pub struct D;\n");
        assert_eq!(
            output,
            Output {
                files: 2,
                lines: 9,
                types: 3
            }
        );
    }
}
