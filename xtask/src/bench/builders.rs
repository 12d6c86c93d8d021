//! `cargo xtask bench-builders`: what builders cost at compile time.
//!
//! Generates the API twice, with and without builders, as two standalone crates under
//! `target/bench-builders/` (their own target directory, so the workspace's build is left
//! alone), builds their dependencies once, then times a clean debug build of each generated
//! crate: `cargo clean -p <crate>` followed by `cargo build`, alternating the two variants
//! for every run and reporting the medians of wall-clock and CPU time. The budget is 25%
//! extra. It is checked on CPU time (user + system of the build, read from
//! `/proc/self/stat`, so Linux only; elsewhere wall-clock time), because on a shared machine
//! wall-clock time mostly measures the neighbours.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use super::measure::{children_cpu, order};
use super::stats::{Stat, show_change};

/// The largest accepted slowdown from builders, in percent.
const BUDGET_PERCENT: f64 = 25.0;

struct Variant {
    package: &'static str,
    builders: bool,
    dir: PathBuf,
    lines: usize,
    times: Vec<Duration>,
    cpu: Vec<Duration>,
}

/// Runs the measurement over `inputs` (or `schemas/*.json` when empty), `runs` times;
/// `routes: false` leaves the route tables out of both variants, to compare types alone.
pub(crate) fn run(root: &Path, inputs: &[PathBuf], runs: usize, routes: bool) -> ExitCode {
    match measure(root, inputs, runs.max(1), routes) {
        Ok(within_budget) if within_budget => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn measure(root: &Path, inputs: &[PathBuf], runs: usize, routes: bool) -> Result<bool, String> {
    let config = if inputs.is_empty() {
        xtask::regen_config(root)?
    } else {
        inputs
            .iter()
            .fold(kubeforge::Config::new(), |config, input| {
                config.input(input)
            })
    }
    .generated_by("cargo xtask bench-builders")
    .routes(routes);
    let bench_dir = root.join("target/bench-builders");
    let target_dir = bench_dir.join("target");
    let mut variants = [
        ("kubeforge-api-with-builders", true),
        ("kubeforge-api-without-builders", false),
    ]
    .map(|(package, builders)| Variant {
        package,
        builders,
        dir: bench_dir.join(package),
        lines: 0,
        times: Vec::new(),
        cpu: Vec::new(),
    });

    for variant in &mut variants {
        let output = config
            .clone()
            .builders(variant.builders)
            .generate()
            .map_err(|e| e.to_string())?;
        output
            .write(variant.dir.join("src"))
            .map_err(|e| e.to_string())?;
        variant.lines = output
            .files()
            .values()
            .map(|text| text.lines().count())
            .sum();
        let manifest = manifest(variant.package, &root.join("runtime"));
        std::fs::write(variant.dir.join("Cargo.toml"), manifest)
            .map_err(|e| format!("cannot write {}: {e}", variant.dir.display()))?;
        // The workspace's lock file, so both variants build the same dependency versions.
        std::fs::copy(root.join("Cargo.lock"), variant.dir.join("Cargo.lock"))
            .map_err(|e| format!("cannot copy Cargo.lock: {e}"))?;
        eprintln!(
            "bench-builders: {} ({} lines); building its dependencies",
            variant.package, variant.lines
        );
        cargo(variant, &target_dir, "build")?;
    }

    for run in 0..runs {
        // Alternate the order, so that neither variant always runs on a warmer machine.
        for index in order(run, 0, 1) {
            let variant = &mut variants[index];
            cargo(variant, &target_dir, "clean")?;
            let (start, cpu_start) = (Instant::now(), children_cpu());
            cargo(variant, &target_dir, "build")?;
            let elapsed = start.elapsed();
            let cpu = children_cpu()
                .zip(cpu_start)
                .map(|(end, start)| end - start);
            eprintln!(
                "bench-builders: run {}/{runs}: {} {:.2}s wall, {} CPU",
                run + 1,
                variant.package,
                elapsed.as_secs_f64(),
                cpu.map_or_else(|| "?".to_owned(), |t| format!("{:.2}s", t.as_secs_f64()))
            );
            variant.times.push(elapsed);
            variant.cpu.extend(cpu);
        }
    }

    let [with, without] = &variants;
    let use_cpu = with.cpu.len() == runs && without.cpu.len() == runs;
    let seconds = |times: &[Duration]| times.iter().map(Duration::as_secs_f64).collect::<Vec<_>>();
    println!(
        "clean debug build of the generated crate, dependencies prebuilt (median of {runs} runs):"
    );
    for variant in [with, without] {
        let wall = Stat::of(variant.package, &seconds(&variant.times))?;
        let cpu = if use_cpu {
            format!(
                "{} s CPU",
                Stat::of(variant.package, &seconds(&variant.cpu))?.show(2)
            )
        } else {
            "CPU unknown".to_owned()
        };
        println!(
            "  {:<30} {} s wall  {cpu}  ({} lines of Rust)",
            variant.package,
            wall.show(2),
            variant.lines,
        );
    }
    let (measure, with_times, without_times) = if use_cpu {
        ("CPU", &with.cpu, &without.cpu)
    } else {
        ("wall-clock", &with.times, &without.times)
    };
    let with_median = Stat::of(with.package, &seconds(with_times))?.median;
    let without_median = Stat::of(without.package, &seconds(without_times))?.median;
    let overhead = (with_median / without_median - 1.0) * 100.0;
    let within = overhead <= BUDGET_PERCENT;
    println!(
        "  builders add {} {measure} time (budget {BUDGET_PERCENT}%): {}",
        show_change(with_median, without_median),
        if within {
            "within budget"
        } else {
            "OVER BUDGET"
        }
    );
    Ok(within)
}

/// The variant crate's manifest: the dependencies of `generated/Cargo.toml`, outside any
/// workspace. Not its lints: they do not change the build time, CI holds `generated/` to
/// them, and other inputs (`--input`) may not meet them yet.
fn manifest(package: &str, runtime: &Path) -> String {
    format!(
        r#"# Written by `cargo xtask bench-builders`.
[package]
name = "{package}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
kubeforge-meta = {{ path = {meta:?} }}
kubeforge-runtime = {{ path = {runtime:?} }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = {{ version = "1", features = ["preserve_order"] }}

[workspace]
"#,
        runtime = runtime.display().to_string(),
        meta = runtime.with_file_name("meta").display().to_string()
    )
}

/// `cargo build` or `cargo clean -p` of the variant, in the bench's own target directory.
fn cargo(variant: &Variant, target_dir: &Path, action: &str) -> Result<(), String> {
    let mut command = xtask::cargo::command();
    command
        .arg(action)
        .arg("--quiet")
        .arg("--manifest-path")
        .arg(variant.dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir);
    if action == "clean" {
        command.args(["--package", variant.package]);
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {action}` of {} failed", variant.package))
    }
}
