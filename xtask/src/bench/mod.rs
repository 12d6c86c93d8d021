//! `cargo xtask bench`: kubeforge against its peers, on the real Kubernetes 1.36 corpus and on
//! real CRDs, all in one run, written to `BENCHMARKS.md`; and `cargo xtask bench-builders`.
//!
//! - **generation**: the release `kubeforge` binary generating the whole of `swagger.json`
//!   against serde_json parsing the same file into a `Value`, both as fresh processes;
//! - **builds**: a clean `cargo build` (dev and release) of the generated crate against
//!   k8s-openapi 0.29 with feature `v1_36`, and dev builds of its parts (types only; types
//!   and builders);
//! - **serde**: 2,000 copies of the Pod, Deployment and Node fixtures in one JSON array,
//!   deserialized and serialized with the generated types and with k8s-openapi's, against
//!   `serde_json::from_slice::<IgnoredAny>`;
//! - **routes**: every path template of the API, the generated matcher against matchit 0.9,
//!   over requests drawn uniformly across the templates and over the 20 most common shapes;
//! - **features**: a clean dev build of the crate generated with `--group-features`, with
//!   only `core`, with `core` and `apps`, and with every group, against k8s-openapi's;
//! - **unknown-fields**: the default crate against `--drop-unknown-fields`: dev build and
//!   serde throughput;
//! - **crds**: every corpus CRD and the extra CRDs (Argo, Prometheus, Istio), kubeforge
//!   against kopium: lines, types, generation time and memory, dev build.
//!
//! The code is split by job: `setup` (the throwaway projects under `target/bench-peers/`,
//! their manifests, installing the peers, generating), `measure` (running processes, the
//! harness's strictly parsed JSON reports), `sections` (each comparison's loop), `stats` (the
//! one statistics module), `report` (Markdown). The program measured in release,
//! `xtask/bench-harness/main.rs`, reports the types of `xtask/bench-harness/protocol.rs`.
//! The peers never become dependencies of the workspace, and nothing here runs under
//! `cargo test` except the unit tests of `stats` and `measure`.

pub(crate) mod builders;
mod measure;
#[path = "../../bench-harness/protocol.rs"]
mod protocol;
mod report;
mod sections;
mod setup;
mod stats;
mod targets;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use sections::Effort;

/// The comparisons, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub(crate) enum Section {
    Generation,
    Builds,
    Serde,
    Routes,
    Features,
    UnknownFields,
    Crds,
}

impl Section {
    pub(crate) const ALL: [Section; 7] = [
        Section::Generation,
        Section::Builds,
        Section::Serde,
        Section::Routes,
        Section::Features,
        Section::UnknownFields,
        Section::Crds,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Section::Generation => "generation",
            Section::Builds => "builds",
            Section::Serde => "serde",
            Section::Routes => "routes",
            Section::Features => "features",
            Section::UnknownFields => "unknown-fields",
            Section::Crds => "crds",
        }
    }

    /// A rough duration of one run of the section on two quiet cores, in seconds, worked
    /// out from the figures of an earlier BENCHMARKS.md (what each process measured there,
    /// plus cleaning and starting); the report records what the run really took.
    fn seconds_per_run(self) -> f64 {
        match self {
            Section::Generation => 10.0,
            Section::Builds => 160.0,
            Section::Serde => 45.0,
            Section::Routes => 10.0,
            Section::Features => 50.0,
            Section::UnknownFields => 55.0,
            Section::Crds => 150.0,
        }
    }
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

fn bench(root: &Path, options: &Options) -> Result<(), String> {
    let effort = Effort {
        runs: if options.quick {
            1
        } else {
            options.runs.max(1)
        },
        quick: options.quick,
    };
    let sections: Vec<Section> = if options.only.is_empty() {
        Section::ALL.to_vec()
    } else {
        let mut only = options.only.clone();
        only.sort();
        only.dedup();
        only
    };
    let complete = sections.len() == Section::ALL.len();
    let output = options.output.clone().unwrap_or_else(|| {
        if complete && !options.quick {
            root.join("BENCHMARKS.md")
        } else {
            root.join("target/bench-peers/BENCHMARKS.md")
        }
    });
    #[allow(clippy::cast_precision_loss)]
    let estimate: f64 = sections
        .iter()
        .map(|s| s.seconds_per_run() * effort.runs as f64)
        .sum::<f64>()
        + 600.0;
    eprintln!(
        "bench: {} section(s), {} run(s) each; expect about {:.0} minutes on two quiet cores \
         (about 10 of them building the peers the first time), more on a busy machine",
        sections.len(),
        effort.runs,
        estimate / 60.0
    );

    let mut report = report::Report {
        runs: effort.runs,
        quick: effort.quick,
        ..report::Report::default()
    };
    let started = Instant::now();
    let paths = setup::setup(root, &sections)?;
    report.durations.push((
        "setup (building the generator, the peers, the harness)".to_owned(),
        started.elapsed(),
    ));
    for &section in &sections {
        let start = Instant::now();
        eprintln!("bench: section {}", section.name());
        match section {
            Section::Generation => report.generation = Some(sections::generation(&paths, effort)?),
            Section::Builds => report.builds = Some(sections::builds(&paths, effort)?),
            Section::Serde => report.serde = Some(sections::serde(&paths, effort)?),
            Section::Routes => report.routes = Some(sections::routes(&paths, effort)?),
            Section::Features => report.features = Some(sections::features(&paths, effort)?),
            Section::UnknownFields => {
                report.unknown_fields = Some(sections::unknown_fields(&paths, effort)?);
            }
            Section::Crds => report.crds = Some(sections::crds(&paths, effort)?),
        }
        report
            .durations
            .push((format!("`{}`", section.name()), start.elapsed()));
    }
    let text = report.render(&paths, &sections)?;
    print!("{text}");
    std::fs::write(&output, &text)
        .map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    let total: Duration = started.elapsed();
    eprintln!(
        "bench: wrote {} after {:.1} minutes (estimated {:.0})",
        output.display(),
        total.as_secs_f64() / 60.0,
        estimate / 60.0
    );
    Ok(())
}
