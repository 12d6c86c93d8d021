//! `cargo xtask bench`: kubeforge against its peers, on the real Kubernetes 1.36 corpus, all in
//! one run, written to `BENCHMARKS.md`.
//!
//! - **generation**: the release `kubeforge` binary generating the whole of `swagger.json`
//!   (types, builders, routes, formatted, written) against serde_json parsing the same file
//!   into a `Value`, both as fresh processes;
//! - **builds**: a clean `cargo build` (dev and release) of the generated crate against
//!   k8s-openapi 0.29 with feature `v1_36`;
//! - **serde**: 2,000 copies of the Pod and Deployment fixtures in one minified JSON array,
//!   deserialized and serialized with the generated types and with k8s-openapi's, against
//!   `serde_json::from_slice::<IgnoredAny>`;
//! - **features**: a clean dev build of the crate generated with `--group-features`, with
//!   only `core`, with `core` and `apps`, and with every group, against k8s-openapi's;
//! - **routes**: every path template of the API, 100,000 concrete requests drawn uniformly
//!   across them with a fixed seed, the generated matcher against matchit 0.9; the answers
//!   are checked to be identical before anything is timed.
//!
//! The peers never become dependencies of the workspace: everything is measured from a
//! throwaway cargo project under `target/bench-peers/` (its own lock files and target
//! directories, built in release), whose program is `xtask/bench-harness/main.rs`. Each
//! measurement is a fresh process; the contenders alternate within every run, and the
//! report gives medians with min–max. Peak memory is the largest resident set among the
//! measured process and its descendants (`getrusage(RUSAGE_CHILDREN)` in the harness).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The program the harness project is built from.
const HARNESS: &str = include_str!("../bench-harness/main.rs");

/// The fixtures of the serde comparison, under `kubernetes/testdata/`.
const FIXTURES: [(&str, &str); 2] = [
    ("Pod", "core.v1.Pod.json"),
    ("Deployment", "apps.v1.Deployment.json"),
];
const COPIES: usize = 2000;
const REQUESTS: usize = 100_000;
const SEED: u64 = 0x006b_7562_6567_656e;

/// Targets of issue 8.
const TARGET_GENERATION: f64 = 10.0;
const TARGET_DEV_BUILD: f64 = 0.8;
const TARGET_SERDE: f64 = 1.2;
const TARGET_ROUTES: f64 = 1.5;

/// The four comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub(crate) enum Section {
    Generation,
    Builds,
    Serde,
    Routes,
    Features,
}

pub(crate) struct Options {
    pub runs: usize,
    pub quick: bool,
    pub only: Vec<Section>,
    pub output: Option<PathBuf>,
}

pub(crate) fn run(root: &Path, options: &Options) -> ExitCode {
    match bench(root, options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Where things are.
struct Paths {
    root: PathBuf,
    corpus: PathBuf,
    swagger: PathBuf,
    bench: PathBuf,
    generator: PathBuf,
    ours: PathBuf,
    /// The crate generated with `--group-features`.
    ours_features: PathBuf,
    peer: PathBuf,
    harness: PathBuf,
    harness_bin: PathBuf,
    /// The target directory of the timed builds, apart from the harness's.
    build_target: PathBuf,
}

/// One measured process: what the harness's `rusage` printed.
#[derive(Clone, Copy, Default)]
struct Usage {
    wall: f64,
    cpu: f64,
    maxrss_mib: f64,
}

/// Median and range of several runs.
#[derive(Clone, Copy)]
struct Stat {
    median: f64,
    min: f64,
    max: f64,
}

impl Stat {
    fn of(values: &[f64]) -> Stat {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let median = match v.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        };
        Stat {
            median,
            min: v.first().copied().unwrap_or(f64::NAN),
            max: v.last().copied().unwrap_or(f64::NAN),
        }
    }

    /// `12.3 (12.1–12.9)` with `digits` decimals.
    fn show(&self, digits: usize) -> String {
        if self.min == self.max {
            format!("{:.digits$}", self.median)
        } else {
            format!(
                "{:.digits$} ({:.digits$}–{:.digits$})",
                self.median, self.min, self.max
            )
        }
    }
}

fn bench(root: &Path, options: &Options) -> Result<(), String> {
    let runs = if options.quick {
        1
    } else {
        options.runs.max(1)
    };
    let sections: Vec<Section> = if options.only.is_empty() {
        vec![
            Section::Generation,
            Section::Builds,
            Section::Serde,
            Section::Routes,
            Section::Features,
        ]
    } else {
        let mut only = options.only.clone();
        only.sort();
        only.dedup();
        only
    };
    let complete = sections.len() == 5;
    let output = options.output.clone().unwrap_or_else(|| {
        if complete && !options.quick {
            root.join("BENCHMARKS.md")
        } else {
            root.join("target/bench-peers/BENCHMARKS.md")
        }
    });
    let paths = setup(root, &sections)?;

    let mut report = Report::new(runs, options.quick);
    for section in &sections {
        match section {
            Section::Generation => report.generation = Some(generation(&paths, runs)?),
            Section::Builds => report.builds = Some(builds(&paths, runs)?),
            Section::Serde => report.serde = Some(serde(&paths, runs, options.quick)?),
            Section::Routes => report.routes = Some(routes(&paths, runs, options.quick)?),
            Section::Features => report.features = Some(feature_builds(&paths, runs)?),
        }
    }
    let text = report.render(&paths)?;
    print!("{text}");
    std::fs::write(&output, &text)
        .map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    eprintln!("bench: wrote {}", output.display());
    Ok(())
}

/// Builds the generator, generates the crate, writes the peer and harness projects and
/// builds what the sections need.
fn setup(root: &Path, sections: &[Section]) -> Result<Paths, String> {
    let corpus = root.join("../shared/corpus/kubernetes");
    let swagger = corpus.join("swagger.json");
    if !swagger.is_file() {
        return Err(format!("the corpus is missing: {}", swagger.display()));
    }
    let bench = root.join("target/bench-peers");
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let paths = Paths {
        root: root.to_path_buf(),
        corpus: corpus.clone(),
        swagger: swagger.clone(),
        generator: target.join("release/kubeforge"),
        ours: bench.join("kube-api-gen"),
        ours_features: bench.join("kube-api-features"),
        peer: bench.join("peer-k8s-openapi"),
        harness: bench.join("harness"),
        harness_bin: bench.join("target/release/harness"),
        build_target: bench.join("target-builds"),
        bench,
    };

    eprintln!("bench: building the generator (release)");
    cargo(
        root,
        &[
            "build",
            "--release",
            "--package",
            "kubeforge",
            "--bin",
            "kubeforge",
        ],
    )?;

    eprintln!("bench: generating the full Kubernetes crate");
    let status = Command::new(&paths.generator)
        .arg(&swagger)
        .arg("--out")
        .arg(&paths.ours)
        .args(["--crate-name", "kube-api-gen", "--runtime-path"])
        .arg(root.join("runtime"))
        .status()
        .map_err(|e| format!("cannot run {}: {e}", paths.generator.display()))?;
    if !status.success() {
        return Err("the generator failed on swagger.json".to_owned());
    }

    if sections.contains(&Section::Features) {
        eprintln!("bench: generating the full Kubernetes crate with --group-features");
        let status = Command::new(&paths.generator)
            .arg(&swagger)
            .arg("--out")
            .arg(&paths.ours_features)
            .args([
                "--group-features",
                "--crate-name",
                "kube-api-features",
                "--runtime-path",
            ])
            .arg(root.join("runtime"))
            .status()
            .map_err(|e| format!("cannot run {}: {e}", paths.generator.display()))?;
        if !status.success() {
            return Err("the generator failed on swagger.json".to_owned());
        }
    }

    write(
        &paths.peer.join("Cargo.toml"),
        r#"# Written by `cargo xtask bench`: k8s-openapi as a user builds it.
[package]
name = "peer-k8s-openapi"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
k8s-openapi = { version = "=0.29.0", features = ["v1_36"] }

[workspace]
"#,
    )?;
    write(&paths.peer.join("src/lib.rs"), "pub use k8s_openapi;\n")?;
    write(
        &paths.harness.join("Cargo.toml"),
        r#"# Written by `cargo xtask bench`.
[package]
name = "harness"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
kube-api-gen = { path = "../kube-api-gen" }
k8s-openapi = { version = "=0.29.0", features = ["v1_36"] }
matchit = "=0.9"
http = "1"
libc = "0.2"
serde = "1"
serde_json = "1"

[profile.release]
# Symbols for perf and callgrind; no effect on the code.
debug = "line-tables-only"

[workspace]
"#,
    )?;
    write(&paths.harness.join("src/main.rs"), HARNESS)?;
    // The workspace's lock file, so every project builds the same dependency versions.
    for dir in [
        &paths.ours,
        &paths.ours_features,
        &paths.peer,
        &paths.harness,
    ] {
        if !dir.is_dir() {
            continue;
        }
        let lock = dir.join("Cargo.lock");
        if !lock.exists() {
            std::fs::copy(root.join("Cargo.lock"), &lock)
                .map_err(|e| format!("cannot copy Cargo.lock: {e}"))?;
        }
    }

    eprintln!("bench: building the harness (release; the generated crate, k8s-openapi, matchit)");
    cargo_in(
        &paths.harness,
        &paths.bench.join("target"),
        &["build", "--release"],
    )?;

    if sections.contains(&Section::Builds) {
        eprintln!("bench: building the dependencies of the timed builds");
        for profile in [Profile::Dev, Profile::Release] {
            for dir in [&paths.ours, &paths.peer] {
                let mut args = vec!["build"];
                args.extend(profile.flag());
                cargo_in(dir, &paths.build_target, &args)?;
            }
        }
    }
    if sections.contains(&Section::Features) {
        eprintln!("bench: building the dependencies of the per-group builds");
        for dir in [&paths.ours_features, &paths.peer] {
            cargo_in(dir, &paths.build_target, &["build"])?;
        }
    }
    Ok(paths)
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn cargo_program() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

fn cargo(dir: &Path, args: &[&str]) -> Result<(), String> {
    let status = Command::new(cargo_program())
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

/// `cargo <args>` of the project in `dir`, with its own target directory.
fn cargo_in(dir: &Path, target: &Path, args: &[&str]) -> Result<(), String> {
    let mut full: Vec<&str> = args.to_vec();
    let manifest = dir.join("Cargo.toml");
    let manifest = manifest.to_str().ok_or("non-UTF-8 path")?;
    let target = target.to_str().ok_or("non-UTF-8 path")?;
    full.extend(["--manifest-path", manifest, "--target-dir", target]);
    cargo(dir, &full)
}

/// Runs `program args` under the harness's `rusage` and returns what it measured.
fn measured(paths: &Paths, program: &Path, args: &[&str]) -> Result<Usage, String> {
    let fields = harness(paths, &[&["rusage", path_str(program)?], args].concat())?;
    let number = |key: &str| -> Result<f64, String> {
        fields
            .get(key)
            .and_then(|v| v.parse::<f64>().ok())
            .ok_or_else(|| format!("the harness printed no {key}"))
    };
    Ok(Usage {
        wall: number("wall")?,
        cpu: number("user")? + number("sys")?,
        maxrss_mib: number("maxrss_kib")? / 1024.0,
    })
}

/// Runs the harness and parses its last line of `key=value` pairs.
fn harness(paths: &Paths, args: &[&str]) -> Result<BTreeMap<String, String>, String> {
    let output = Command::new(&paths.harness_bin)
        .args(args)
        // Timed builds compile both crates the same way: k8s-openapi, a registry dependency,
        // is never built incrementally, while cargo would build the generated crate (a path
        // package) incrementally, which costs it more on a clean build.
        .env("CARGO_INCREMENTAL", "0")
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run the harness: {e}"))?;
    if !output.status.success() {
        return Err(format!("`harness {}` failed", args.join(" ")));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    Ok(line
        .split_whitespace()
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect())
}

fn path_str(path: &Path) -> Result<&str, String> {
    path.to_str()
        .ok_or_else(|| format!("non-UTF-8 path {}", path.display()))
}

/// Alternates: even runs `[a, b]`, odd runs `[b, a]`.
fn order<T: Copy>(run: usize, a: T, b: T) -> [T; 2] {
    if run.is_multiple_of(2) {
        [a, b]
    } else {
        [b, a]
    }
}

struct Generation {
    ours: Vec<Usage>,
    floor: Vec<Usage>,
    files: usize,
    lines: usize,
    bytes: u64,
}

fn generation(paths: &Paths, runs: usize) -> Result<Generation, String> {
    let out = paths.bench.join("generation-output");
    let (mut ours, mut floor) = (Vec::new(), Vec::new());
    for run in 0..runs {
        for contender in order(run, true, false) {
            if contender {
                let _ = std::fs::remove_dir_all(&out);
                let usage = measured(
                    paths,
                    &paths.generator,
                    &[
                        path_str(&paths.swagger)?,
                        "--out",
                        path_str(&out)?,
                        "--crate-name",
                        "generation-output",
                    ],
                )?;
                eprintln!(
                    "bench: generation run {}/{runs}: kubeforge {:.2}s, {:.0} MiB",
                    run + 1,
                    usage.wall,
                    usage.maxrss_mib
                );
                ours.push(usage);
            } else {
                let usage = measured(
                    paths,
                    &paths.harness_bin,
                    &["parse", path_str(&paths.swagger)?],
                )?;
                eprintln!(
                    "bench: generation run {}/{runs}: parse floor {:.3}s, {:.0} MiB",
                    run + 1,
                    usage.wall,
                    usage.maxrss_mib
                );
                floor.push(usage);
            }
        }
    }
    let (mut files, mut lines) = (0, 0);
    walk(&out.join("src"), &mut |text| {
        files += 1;
        lines += text.lines().count();
    })?;
    let bytes = std::fs::metadata(&paths.swagger)
        .map_err(|e| e.to_string())?
        .len();
    Ok(Generation {
        ours,
        floor,
        files,
        lines,
        bytes,
    })
}

fn walk(dir: &Path, each: &mut dyn FnMut(&str)) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            walk(&path, each)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            each(&std::fs::read_to_string(&path).map_err(|e| e.to_string())?);
        }
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Profile {
    Dev,
    Release,
}

impl Profile {
    fn flag(self) -> Option<&'static str> {
        match self {
            Profile::Dev => None,
            Profile::Release => Some("--release"),
        }
    }
    fn name(self) -> &'static str {
        match self {
            Profile::Dev => "dev",
            Profile::Release => "release",
        }
    }
}

/// Clean builds, by profile: ours, then k8s-openapi.
struct Builds {
    dev: [Vec<Usage>; 2],
    release: [Vec<Usage>; 2],
}

fn builds(paths: &Paths, runs: usize) -> Result<Builds, String> {
    let mut result = Builds {
        dev: [Vec::new(), Vec::new()],
        release: [Vec::new(), Vec::new()],
    };
    let contenders = [
        (&paths.ours, "kube-api-gen", "kubeforge"),
        (&paths.peer, "k8s-openapi", "k8s-openapi"),
    ];
    let cargo = which_cargo()?;
    for run in 0..runs {
        for profile in [Profile::Dev, Profile::Release] {
            for index in order(run, 0, 1) {
                let (dir, package, label) = contenders[index];
                let manifest = dir.join("Cargo.toml");
                let mut clean = vec!["clean", "--package", package];
                if profile == Profile::Release {
                    clean.push("--release");
                }
                cargo_in(dir, &paths.build_target, &clean)?;
                let mut args = vec![
                    "build",
                    "--quiet",
                    "--manifest-path",
                    path_str(&manifest)?,
                    "--target-dir",
                    path_str(&paths.build_target)?,
                ];
                args.extend(profile.flag());
                let usage = measured(paths, &cargo, &args)?;
                eprintln!(
                    "bench: build run {}/{runs}: {label} {} {:.1}s wall, {:.1}s CPU, {:.0} MiB",
                    run + 1,
                    profile.name(),
                    usage.wall,
                    usage.cpu,
                    usage.maxrss_mib
                );
                match profile {
                    Profile::Dev => result.dev[index].push(usage),
                    Profile::Release => result.release[index].push(usage),
                }
            }
        }
    }
    Ok(result)
}

/// The feature sets of the per-group builds: label and `--features` (none: the defaults,
/// every group).
const FEATURE_SETS: [(&str, Option<&str>); 3] = [
    ("only `core`", Some("core")),
    ("`core` + `apps`", Some("core,apps")),
    ("every group (default features)", None),
];

/// Clean dev builds of the `--group-features` crate, by feature set, and of k8s-openapi.
struct FeatureBuilds {
    ours: [Vec<Usage>; 3],
    peer: Vec<Usage>,
}

fn feature_builds(paths: &Paths, runs: usize) -> Result<FeatureBuilds, String> {
    let mut result = FeatureBuilds {
        ours: [Vec::new(), Vec::new(), Vec::new()],
        peer: Vec::new(),
    };
    let cargo = which_cargo()?;
    let target = path_str(&paths.build_target)?;
    for run in 0..runs {
        // Ours (each feature set) and the peer alternate which goes first.
        for first in order(run, true, false) {
            if first {
                for (index, (label, features)) in FEATURE_SETS.iter().enumerate() {
                    cargo_in(
                        &paths.ours_features,
                        &paths.build_target,
                        &["clean", "--package", "kube-api-features"],
                    )?;
                    let manifest = paths.ours_features.join("Cargo.toml");
                    let mut args = vec![
                        "build",
                        "--quiet",
                        "--manifest-path",
                        path_str(&manifest)?,
                        "--target-dir",
                        target,
                    ];
                    if let Some(features) = features {
                        args.extend(["--no-default-features", "--features", features]);
                    }
                    let usage = measured(paths, &cargo, &args)?;
                    eprintln!(
                        "bench: feature build run {}/{runs}: kubeforge {label} {:.1}s wall, {:.1}s CPU",
                        run + 1,
                        usage.wall,
                        usage.cpu
                    );
                    result.ours[index].push(usage);
                }
            } else {
                cargo_in(
                    &paths.peer,
                    &paths.build_target,
                    &["clean", "--package", "k8s-openapi"],
                )?;
                let manifest = paths.peer.join("Cargo.toml");
                let args = [
                    "build",
                    "--quiet",
                    "--manifest-path",
                    path_str(&manifest)?,
                    "--target-dir",
                    target,
                ];
                let usage = measured(paths, &cargo, &args)?;
                eprintln!(
                    "bench: feature build run {}/{runs}: k8s-openapi {:.1}s wall, {:.1}s CPU",
                    run + 1,
                    usage.wall,
                    usage.cpu
                );
                result.peer.push(usage);
            }
        }
    }
    Ok(result)
}

fn render_feature_builds(w: &mut String, f: &FeatureBuilds) {
    let _ = writeln!(
        w,
        "## e. Compile time by API group\n\n\
         The crate generated from `swagger.json` with `--group-features` (one cargo feature per \
         API group; operations whose body or response lives in another group compile only \
         with both), built clean in the dev profile (`cargo clean -p`, then `cargo build`, \
         dependencies built, `CARGO_INCREMENTAL=0`) with `default-features = false` and only \
         some groups, against k8s-openapi 0.29 with feature `v1_36`, which cannot leave groups \
         out, in the same run. CPU time is user + system of cargo and every process it ran.\n"
    );
    let _ = writeln!(
        w,
        "| build | wall (s) | CPU (s) | ratio to k8s-openapi (wall) | ratio (CPU) |"
    );
    let _ = writeln!(w, "|---|---|---|---|---|");
    let stat = |v: &[Usage], f: fn(&Usage) -> f64| Stat::of(&v.iter().map(f).collect::<Vec<_>>());
    let (pw, pc) = (stat(&f.peer, |u| u.wall), stat(&f.peer, |u| u.cpu));
    for ((label, _), ours) in FEATURE_SETS.iter().zip(&f.ours) {
        let (ow, oc) = (stat(ours, |u| u.wall), stat(ours, |u| u.cpu));
        let _ = writeln!(
            w,
            "| kubeforge, {label} | {} | {} | {:.2}× | {:.2}× |",
            ow.show(1),
            oc.show(1),
            ow.median / pw.median,
            oc.median / pc.median
        );
    }
    let _ = writeln!(
        w,
        "| k8s-openapi, `v1_36` | {} | {} | 1.00× | 1.00× |\n",
        pw.show(1),
        pc.show(1)
    );
}

/// The cargo that runs this xtask, as a path (the harness runs it).
fn which_cargo() -> Result<PathBuf, String> {
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

/// The harness's fields, one map per run.
type Runs = Vec<BTreeMap<String, String>>;

/// Per fixture: ours, k8s-openapi, floor, as harness fields.
struct Serde {
    fixtures: Vec<(&'static str, [Runs; 3])>,
    iterations: usize,
}

fn serde(paths: &Paths, runs: usize, quick: bool) -> Result<Serde, String> {
    let iterations = if quick { 1 } else { 5 };
    let mut fixtures = Vec::new();
    for (name, file) in FIXTURES {
        let fixture = paths.corpus.join("testdata").join(file);
        let mut results: [Vec<BTreeMap<String, String>>; 3] = Default::default();
        for run in 0..runs {
            let [first, second] = order(run, 0, 1);
            for index in [first, second, 2] {
                let who = ["ours", "peer", "floor"][index];
                let fields = harness(
                    paths,
                    &[
                        "serde",
                        who,
                        path_str(&fixture)?,
                        &COPIES.to_string(),
                        &iterations.to_string(),
                    ],
                )?;
                eprintln!(
                    "bench: serde run {}/{runs}: {name} {who}: de {} MB/s, ser {} MB/s",
                    run + 1,
                    field(&fields, "de_mbps"),
                    field(&fields, "ser_mbps"),
                );
                results[index].push(fields);
            }
        }
        fixtures.push((name, results));
    }
    Ok(Serde {
        fixtures,
        iterations,
    })
}

fn field<'a>(fields: &'a BTreeMap<String, String>, key: &str) -> &'a str {
    fields.get(key).map_or("?", String::as_str)
}

fn numbers(runs: &[BTreeMap<String, String>], key: &str) -> Vec<f64> {
    runs.iter()
        .filter_map(|f| f.get(key)?.parse().ok())
        .collect()
}

/// Ours, matchit, as harness fields.
struct Routes {
    results: [Vec<BTreeMap<String, String>>; 2],
    passes: usize,
}

fn routes(paths: &Paths, runs: usize, quick: bool) -> Result<Routes, String> {
    let passes = if quick { 3 } else { 20 };
    let mut results: [Vec<BTreeMap<String, String>>; 2] = Default::default();
    for run in 0..runs {
        for index in order(run, 0, 1) {
            let who = ["ours", "matchit"][index];
            let fields = harness(
                paths,
                &[
                    "routes",
                    who,
                    path_str(&paths.swagger)?,
                    &REQUESTS.to_string(),
                    &SEED.to_string(),
                    &passes.to_string(),
                ],
            )?;
            eprintln!(
                "bench: routes run {}/{runs}: {who} {} ns/match",
                run + 1,
                field(&fields, "ns_per_match")
            );
            results[index].push(fields);
        }
    }
    Ok(Routes { results, passes })
}

struct Report {
    runs: usize,
    quick: bool,
    generation: Option<Generation>,
    builds: Option<Builds>,
    serde: Option<Serde>,
    routes: Option<Routes>,
    features: Option<FeatureBuilds>,
}

fn verdict(met: bool) -> &'static str {
    if met { "**met**" } else { "**not met**" }
}

impl Report {
    fn new(runs: usize, quick: bool) -> Self {
        Report {
            runs,
            quick,
            generation: None,
            builds: None,
            serde: None,
            routes: None,
            features: None,
        }
    }

    fn render(&self, paths: &Paths) -> Result<String, String> {
        let mut s = String::new();
        let w = &mut s;
        let _ = writeln!(w, "# Benchmarks against the peers\n");
        let _ = writeln!(
            w,
            "Written by `cargo xtask bench{}` (issue 8); do not edit by hand, rerun it. \
             Every figure is the median of {} run{} with the range (min–max) in brackets; \
             in each run the contenders alternate in order, each measured in a fresh process. \
             The machine is shared with CI builds, so expect noise in the ranges, wall-clock \
             times most of all.{}\n",
            if self.quick { " --quick" } else { "" },
            self.runs,
            if self.runs == 1 { "" } else { "s" },
            if self.quick {
                " **Quick mode: one run and few iterations, for development only.**"
            } else {
                ""
            }
        );
        machine(w, paths);
        if let Some(g) = &self.generation {
            self.render_generation(w, g);
        }
        if let Some(b) = &self.builds {
            render_builds(w, b);
        }
        if let Some(serde) = &self.serde {
            render_serde(w, serde);
        }
        if let Some(r) = &self.routes {
            render_routes(w, r);
        }
        if let Some(f) = &self.features {
            render_feature_builds(w, f);
        }
        Ok(s)
    }

    fn render_generation(&self, w: &mut String, g: &Generation) {
        let ours = Stat::of(&g.ours.iter().map(|u| u.wall).collect::<Vec<_>>());
        let floor = Stat::of(&g.floor.iter().map(|u| u.wall).collect::<Vec<_>>());
        let ours_cpu = Stat::of(&g.ours.iter().map(|u| u.cpu).collect::<Vec<_>>());
        let ours_mem = Stat::of(&g.ours.iter().map(|u| u.maxrss_mib).collect::<Vec<_>>());
        let floor_mem = Stat::of(&g.floor.iter().map(|u| u.maxrss_mib).collect::<Vec<_>>());
        let ratio = ours.median / floor.median;
        let _ = writeln!(
            w,
            "## a. Generation\n\n\
             The full Kubernetes 1.36 API (`kubernetes/swagger.json`, {:.1} MB): the release \
             `kubeforge` binary loads it, builds the model, emits types, builders and routes, \
             formats them with prettyplease and writes the crate ({} files, {} lines) into an \
             empty directory. The floor is a process that reads the file and parses it with \
             serde_json into a `Value` (feature `preserve_order`, as the generator uses). Peak \
             memory is the maximum resident set of the process.\n",
            g.bytes as f64 / 1e6,
            g.files,
            g.lines
        );
        let _ = writeln!(w, "| | wall time (s) | CPU time (s) | peak memory (MiB) |");
        let _ = writeln!(w, "|---|---|---|---|");
        let _ = writeln!(
            w,
            "| kubeforge (types, builders, routes, formatted, written) | {} | {} | {} |",
            ours.show(3),
            ours_cpu.show(3),
            ours_mem.show(0)
        );
        let _ = writeln!(
            w,
            "| floor: `serde_json::from_slice::<Value>` | {} | {} | {} |",
            floor.show(3),
            Stat::of(&g.floor.iter().map(|u| u.cpu).collect::<Vec<_>>()).show(3),
            floor_mem.show(0)
        );
        let _ = writeln!(
            w,
            "\nRatio to the floor (medians): **{ratio:.1}×**. Target ≤ {TARGET_GENERATION}×: {}.\n",
            verdict(ratio <= TARGET_GENERATION)
        );
    }
}

fn render_builds(w: &mut String, b: &Builds) {
    let _ = writeln!(
        w,
        "## b. Compile time\n\n\
         A clean `cargo build` of the crate alone (`cargo clean -p` of it, then `cargo build`; \
         its dependencies stay built, as they would in a user's project), both without \
         incremental compilation (`CARGO_INCREMENTAL=0`, as cargo builds registry \
         dependencies such as k8s-openapi): the crate kubeforge \
         generates from `swagger.json` (types, builders and routes, every group) against \
         k8s-openapi 0.29 with only feature `v1_36` (types only). CPU time is user + system \
         of cargo and every process it ran; peak memory is the largest resident set among \
         them, which is rustc compiling the crate.\n"
    );
    let _ = writeln!(
        w,
        "| build | kubeforge wall (s) | k8s-openapi wall (s) | ratio (wall) | kubeforge CPU (s) | k8s-openapi CPU (s) | ratio (CPU) | kubeforge peak (MiB) | k8s-openapi peak (MiB) |"
    );
    let _ = writeln!(w, "|---|---|---|---|---|---|---|---|---|");
    let mut dev_ratio = f64::NAN;
    for (name, [ours, peer]) in [("dev", &b.dev), ("release", &b.release)] {
        let get =
            |v: &Vec<Usage>, f: fn(&Usage) -> f64| Stat::of(&v.iter().map(f).collect::<Vec<_>>());
        let (ow, pw) = (get(ours, |u| u.wall), get(peer, |u| u.wall));
        let (oc, pc) = (get(ours, |u| u.cpu), get(peer, |u| u.cpu));
        let (om, pm) = (get(ours, |u| u.maxrss_mib), get(peer, |u| u.maxrss_mib));
        if name == "dev" {
            dev_ratio = ow.median / pw.median;
        }
        let _ = writeln!(
            w,
            "| {name} | {} | {} | {:.2}× | {} | {} | {:.2}× | {} | {} |",
            ow.show(1),
            pw.show(1),
            ow.median / pw.median,
            oc.show(1),
            pc.show(1),
            oc.median / pc.median,
            om.show(0),
            pm.show(0)
        );
    }
    let _ = writeln!(
        w,
        "\nDev build, kubeforge ÷ k8s-openapi (wall medians): **{dev_ratio:.2}×**. Target ≤ {TARGET_DEV_BUILD}×: {}.\n",
        verdict(dev_ratio <= TARGET_DEV_BUILD)
    );
}

fn render_serde(w: &mut String, serde: &Serde) {
    let _ = writeln!(
        w,
        "## c. Serde\n\n\
         {COPIES} copies of a fixture from `kubernetes/testdata/`, minified, in one JSON array, \
         deserialized as `Vec<T>` with `serde_json::from_slice` and serialized with \
         `serde_json::to_writer` into a reserved buffer (mean of {} iterations per run; \
         dropping is not timed). Throughput is in MB/s of the input for deserializing and of \
         the output for serializing. The floor is `serde_json::from_slice::<IgnoredAny>` over \
         the same bytes. \"Round trip\" says whether the serialized output equals the input as \
         JSON.\n",
        serde.iterations
    );
    let _ = writeln!(
        w,
        "| fixture | contender | deserialize (MB/s) | serialize (MB/s) | output bytes | round trip |"
    );
    let _ = writeln!(w, "|---|---|---|---|---|---|");
    let mut summary = Vec::new();
    for (name, [ours, peer, floor]) in &serde.fixtures {
        let input = field(&floor[0], "in_bytes").to_owned();
        for (label, runs) in [("kubeforge", ours), ("k8s-openapi 0.29", peer)] {
            let _ = writeln!(
                w,
                "| {name} ({input} bytes) | {label} | {} | {} | {} | {} |",
                Stat::of(&numbers(runs, "de_mbps")).show(0),
                Stat::of(&numbers(runs, "ser_mbps")).show(0),
                field(&runs[0], "out_bytes"),
                if field(&runs[0], "round_trip") == "true" {
                    "yes"
                } else {
                    "no"
                },
            );
        }
        let _ = writeln!(
            w,
            "| {name} | floor: `IgnoredAny` | {} | | | |",
            Stat::of(&numbers(floor, "de_mbps")).show(0)
        );
        let de =
            Stat::of(&numbers(ours, "de_mbps")).median / Stat::of(&numbers(peer, "de_mbps")).median;
        let ser = Stat::of(&numbers(ours, "ser_mbps")).median
            / Stat::of(&numbers(peer, "ser_mbps")).median;
        let floor_share = Stat::of(&numbers(ours, "de_mbps")).median
            / Stat::of(&numbers(floor, "de_mbps")).median;
        summary.push((*name, de, ser, floor_share));
    }
    let _ = writeln!(
        w,
        "\n| fixture | deserialize, kubeforge ÷ k8s-openapi | serialize, kubeforge ÷ k8s-openapi | kubeforge deserialize ÷ floor | target ≥ {TARGET_SERDE}× both |"
    );
    let _ = writeln!(w, "|---|---|---|---|---|");
    for (name, de, ser, floor_share) in summary {
        let _ = writeln!(
            w,
            "| {name} | **{de:.2}×** | **{ser:.2}×** | {floor_share:.2}× | {} |",
            verdict(de >= TARGET_SERDE && ser >= TARGET_SERDE)
        );
    }
    let _ = writeln!(w);
}

fn render_routes(w: &mut String, r: &Routes) {
    let [ours, theirs] = &r.results;
    let _ = writeln!(
        w,
        "## d. Route matching\n\n\
         All {} path templates of `swagger.json`; {REQUESTS} concrete requests (method and \
         path) drawn uniformly across them with a fixed seed, parameters filled with random \
         names; {} passes over them per run. kubeforge's generated `routes::resolve(&Method, \
         path)` against matchit 0.9 holding the same templates, followed by a lookup of the \
         method among the template's (what the generated matcher's leaves do). Before \
         timing, both answers (template and parameter values) were asserted identical on \
         every request.\n",
        field(&ours[0], "templates"),
        r.passes
    );
    let _ = writeln!(w, "| matcher | matches/s (millions) | ns per match |");
    let _ = writeln!(w, "|---|---|---|");
    let per_s = |runs: &[BTreeMap<String, String>]| {
        Stat::of(
            &numbers(runs, "matches_per_s")
                .iter()
                .map(|v| v / 1e6)
                .collect::<Vec<_>>(),
        )
    };
    for (label, runs) in [
        ("kubeforge `routes::resolve`", ours),
        ("matchit 0.9", theirs),
    ] {
        let _ = writeln!(
            w,
            "| {label} | {} | {} |",
            per_s(runs).show(2),
            Stat::of(&numbers(runs, "ns_per_match")).show(1)
        );
    }
    let ratio = per_s(ours).median / per_s(theirs).median;
    let _ = writeln!(
        w,
        "\nkubeforge ÷ matchit (medians): **{ratio:.2}×**. Target ≥ {TARGET_ROUTES}×: {}.\n",
        verdict(ratio >= TARGET_ROUTES)
    );
}

/// The machine and the versions.
fn machine(w: &mut String, paths: &Paths) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!("{:.1} GiB", kib / 1024.0 / 1024.0))
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let rustc = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned());
    let commit = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(&paths.root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned());
    let lock = std::fs::read_to_string(paths.harness.join("Cargo.lock")).unwrap_or_default();
    let version = |name: &str| -> String {
        let needle = format!("name = \"{name}\"\nversion = \"");
        lock.find(&needle)
            .and_then(|at| {
                let rest = &lock[at + needle.len()..];
                rest.split('"').next().map(str::to_owned)
            })
            .unwrap_or_else(|| "?".to_owned())
    };
    let _ = writeln!(w, "| machine | |\n|---|---|");
    let _ = writeln!(w, "| CPU | {cpu}, {cores} cores (`nproc`) |");
    let _ = writeln!(w, "| memory | {memory} |");
    let _ = writeln!(w, "| compiler | {rustc} |");
    let _ = writeln!(
        w,
        "| kubeforge | this repository at commit {commit} (with the working tree's changes), kubeforge-runtime {} |",
        version("kubeforge-runtime")
    );
    let _ = writeln!(
        w,
        "| peers | k8s-openapi {} (feature `v1_36`), matchit {} |",
        version("k8s-openapi"),
        version("matchit")
    );
    let _ = writeln!(
        w,
        "| shared | serde {}, serde_json {} |\n",
        version("serde"),
        version("serde_json")
    );
}
