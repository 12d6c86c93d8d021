//! Each comparison's measurement loop: which processes run, in what order, how often. The
//! results are typed (the harness's `protocol` types) and go to `report` unchanged.

use std::path::Path;
use std::time::Duration;

use super::measure::{Output, Stages, Usage, order, path_str};
use super::protocol;
use super::setup::{self, CrdFile, OURS, OURS_DROP, OURS_FEATURES, Paths};

/// How much each measurement does.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Effort {
    pub runs: usize,
    pub quick: bool,
}

impl Effort {
    /// Deserialize/serialize iterations per serde run.
    pub(crate) fn serde_iterations(self) -> usize {
        if self.quick { 1 } else { 5 }
    }
    /// Timed iterations and processes per contender per run of serde fixture `name` (c).
    /// A Node's list is a tenth of a Pod's, so its process times 25 iterations to a Pod's 5
    /// (about the same timed span), and its processes' figures differ more from one process
    /// to the next than its iterations within one (measured on 2000 Nodes, 10 processes of
    /// 30 iterations: 3–5% across processes against 1% within; on 2000 Pods, under 1%
    /// both), so each run starts three pairs of them, alternated, and the median is over all.
    pub(crate) fn serde_shape(self, name: &str) -> (usize, usize) {
        match (self.quick, name) {
            (true, _) => (1, 1),
            (false, "Node") => (25, 3),
            (false, _) => (self.serde_iterations(), 1),
        }
    }
    /// Passes over the requests per routes run.
    pub(crate) fn route_passes(self) -> usize {
        if self.quick { 3 } else { 20 }
    }
}

/// Copies of a fixture in the JSON array of the serde comparison.
pub(crate) const COPIES: usize = 2000;
/// Requests per routes workload, drawn with a fixed seed.
pub(crate) const REQUESTS: usize = 100_000;
const SEED: u64 = 0x006b_7562_6567_656e;

/// The fixtures of the serde comparison, under `kubernetes/testdata/`: two ordinary objects
/// and one with a large `status` (a Node: images, conditions, addresses, capacity).
pub(crate) const FIXTURES: [(&str, &str); 3] = [
    ("Pod", "core.v1.Pod.json"),
    ("Deployment", "apps.v1.Deployment.json"),
    ("Node", "core.v1.Node.json"),
];

/// The fixtures of the unknown-fields comparison.
pub(crate) const UNKNOWN_FIELDS_FIXTURES: [(&str, &str); 2] = [FIXTURES[0], FIXTURES[1]];

/// a. Generating the full API against the serde_json parse floor.
pub(crate) struct Generation {
    pub ours: Vec<Usage>,
    /// The generator's own split of each of `ours` into stages (`--timings`).
    pub stages: Vec<Stages>,
    pub floor: Vec<Usage>,
    pub output: Output,
    pub bytes: u64,
}

pub(crate) fn generation(paths: &Paths, effort: Effort) -> Result<Generation, String> {
    let out = paths.bench.join("generation-output");
    let runs = effort.runs;
    let timings = paths.bench.join("generation-timings.json");
    let (mut ours, mut floor, mut stages) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..runs {
        for contender in order(run, true, false) {
            if contender {
                let _ = std::fs::remove_dir_all(&out);
                let args = [
                    path_str(&paths.swagger)?,
                    "--out",
                    path_str(&out)?,
                    "--crate-name",
                    "generation-output",
                ];
                let (usage, split) = paths.harness.generate(&paths.generator, &args, &timings)?;
                eprintln!(
                    "bench: generation run {}/{runs}: kubeforge {:.2}s, {:.0} MiB",
                    run + 1,
                    usage.wall_s,
                    usage.maxrss_mib()
                );
                ours.push(usage);
                stages.push(split);
            } else {
                let usage = paths.harness.rusage(
                    &paths.harness.bin,
                    &["parse", path_str(&paths.swagger)?],
                    None,
                )?;
                eprintln!(
                    "bench: generation run {}/{runs}: parse floor {:.3}s, {:.0} MiB",
                    run + 1,
                    usage.wall_s,
                    usage.maxrss_mib()
                );
                floor.push(usage);
            }
        }
    }
    let bytes = std::fs::metadata(&paths.swagger)
        .map_err(|e| format!("{}: {e}", paths.swagger.display()))?
        .len();
    Ok(Generation {
        ours,
        stages,
        floor,
        output: Output::of_dir(&out.join("src"))?,
        bytes,
    })
}

/// b. Clean builds, by profile: ours, then k8s-openapi.
pub(crate) struct Builds {
    pub dev: [Vec<Usage>; 2],
    pub release: [Vec<Usage>; 2],
    /// Dev builds of the parts (`setup::OURS_PARTS`), in its order.
    pub parts: [Vec<Usage>; setup::PARTS],
    /// Dev builds of the crate of five releases merged (`setup::OURS_MERGED`), with its
    /// lines and the one-release crate's; `None` when the generator has no `--releases`.
    pub merged: Option<Merged>,
}

/// The crate of five releases merged, in b.
pub(crate) struct Merged {
    pub dev: Vec<Usage>,
    /// Lines of its `.rs` files.
    pub lines: usize,
    /// Lines of the one-release crate's (the default, from `swagger.json`).
    pub one_release_lines: usize,
}

pub(crate) fn builds(paths: &Paths, effort: Effort) -> Result<Builds, String> {
    let mut result = Builds {
        dev: Default::default(),
        release: Default::default(),
        parts: Default::default(),
        merged: match &paths.ours_merged {
            Some(dir) => Some(Merged {
                dev: Vec::new(),
                lines: Output::of_dir(&dir.join("src"))?.lines,
                one_release_lines: Output::of_dir(&paths.ours.join("src"))?.lines,
            }),
            None => None,
        },
    };
    let contenders = [
        (&paths.ours, OURS, "kubeforge"),
        (&paths.peer, "k8s-openapi", "k8s-openapi"),
    ];
    let runs = effort.runs;
    for run in 0..runs {
        for release in [false, true] {
            for index in order(run, 0, 1) {
                let (dir, package, label) = contenders[index];
                let extra: &[&str] = if release { &["--release"] } else { &[] };
                let usage = paths
                    .harness
                    .clean_build(dir, package, &paths.build_target, extra)?;
                eprintln!(
                    "bench: build run {}/{runs}: {label} {} {:.1}s wall, {:.1}s CPU, {:.0} MiB",
                    run + 1,
                    if release { "release" } else { "dev" },
                    usage.wall_s,
                    usage.cpu(),
                    usage.maxrss_mib()
                );
                let by_profile = if release {
                    &mut result.release
                } else {
                    &mut result.dev
                };
                by_profile[index].push(usage);
            }
        }
        // The parts in turns, starting one further each run, so none always goes first.
        for step in 0..setup::PARTS {
            let index = (run + step) % setup::PARTS;
            let part = &setup::OURS_PARTS[index];
            let usage = paths.harness.clean_build(
                &paths.ours_parts[index],
                part.name,
                &paths.build_target,
                part.build,
            )?;
            eprintln!(
                "bench: build run {}/{runs}: {} dev {:.1}s wall, {:.1}s CPU",
                run + 1,
                part.name,
                usage.wall_s,
                usage.cpu()
            );
            result.parts[index].push(usage);
        }
        if let (Some(dir), Some(merged)) = (&paths.ours_merged, &mut result.merged) {
            let usage =
                paths
                    .harness
                    .clean_build(dir, setup::OURS_MERGED, &paths.build_target, &[])?;
            eprintln!(
                "bench: build run {}/{runs}: {} dev {:.1}s wall, {:.1}s CPU, {:.0} MiB",
                run + 1,
                setup::OURS_MERGED,
                usage.wall_s,
                usage.cpu(),
                usage.maxrss_mib()
            );
            merged.dev.push(usage);
        }
    }
    Ok(result)
}

/// b, the `protobuf` feature's cost (issue 49): clean dev builds of the crate generated with
/// `--proto`, without the feature and with it.
pub(crate) struct ProtobufBuild {
    /// `[without, with]`, one entry per run.
    pub dev: [Vec<Usage>; 2],
}

/// The cargo flags of [`ProtobufBuild`]'s two builds.
pub(crate) const PROTOBUF_BUILDS: [&[&str]; 2] = [&[], &["--features", "protobuf"]];

pub(crate) fn protobuf_build(paths: &Paths, effort: Effort) -> Result<ProtobufBuild, String> {
    let mut result = ProtobufBuild {
        dev: Default::default(),
    };
    let runs = effort.runs;
    for run in 0..runs {
        for index in order(run, 0, 1) {
            let usage = paths.harness.clean_build(
                &paths.ours_proto,
                setup::OURS_PROTO,
                &paths.build_target,
                PROTOBUF_BUILDS[index],
            )?;
            eprintln!(
                "bench: build run {}/{runs}: {} dev {} {:.1}s wall, {:.1}s CPU, {:.0} MiB",
                run + 1,
                setup::OURS_PROTO,
                PROTOBUF_BUILDS[index].join(" "),
                usage.wall_s,
                usage.cpu(),
                usage.maxrss_mib()
            );
            result.dev[index].push(usage);
        }
    }
    Ok(result)
}

/// One fixture of c: ours, k8s-openapi and the floor, one entry per run.
pub(crate) struct SerdeFixture {
    pub name: &'static str,
    /// Timed iterations per process, and processes per contender per run
    /// ([`Effort::serde_shape`]).
    pub iterations: usize,
    pub processes: usize,
    pub ours: Vec<protocol::Serde>,
    pub peer: Vec<protocol::Serde>,
    pub floor: Vec<protocol::SerdeFloor>,
}

/// c. Serde throughput.
pub(crate) struct Serde {
    pub fixtures: Vec<SerdeFixture>,
    pub iterations: usize,
    /// Per fixture, in `FIXTURES`' order.
    pub instructions: Vec<Instructions>,
    /// The same lists in protobuf (issue 49), per fixture in `FIXTURES`' order.
    pub protobuf: Vec<CodecFixture>,
}

/// The contenders of c's protobuf comparison, as the harness names them: the generated code
/// in protobuf, k8s-pb's prost types, the generated code in JSON, k8s-openapi in JSON.
pub(crate) const CODECS: [&str; 4] = ["ours-pb", "k8s-pb", "ours-json", "peer-json"];

/// The harness that measures contender `who` of [`CODECS`]: the protobuf ones are the
/// second harness's (`harness-pb`), built with the runtime's `protobuf` feature; the JSON ones
/// the main harness's, built without it.
fn harness_of(paths: &Paths, who: &str) -> super::measure::Harness {
    if who.ends_with("-pb") {
        paths.harness.protobuf()
    } else {
        super::measure::Harness {
            bin: paths.harness.bin.clone(),
        }
    }
}

/// One fixture of c's protobuf comparison.
pub(crate) struct CodecFixture {
    pub name: &'static str,
    /// Per contender of [`CODECS`], one entry per run.
    pub runs: [Vec<protocol::Codec>; 4],
    /// `[decode, encode]` instructions over [`COUNTED_COPIES`] copies: ours, k8s-pb.
    pub instructions: [[u64; 2]; 2],
}

/// c's protobuf comparison: each run measures the four contenders in a rotated order; the
/// instructions of the two protobuf contenders are counted once (the JSON ones are
/// [`Instructions`]').
fn protobuf(
    paths: &Paths,
    effort: Effort,
    name: &'static str,
    file: &str,
) -> Result<CodecFixture, String> {
    let fixture = paths.corpus.join("testdata").join(file);
    let iterations = effort.serde_iterations().to_string();
    let copies = COPIES.to_string();
    let mut runs: [Vec<protocol::Codec>; 4] = Default::default();
    for run in 0..effort.runs {
        let mut order: Vec<usize> = (0..CODECS.len()).collect();
        order.rotate_left(run % CODECS.len());
        for index in order {
            let who = CODECS[index];
            let args = ["protobuf", who, path_str(&fixture)?, &copies, &iterations];
            let result: protocol::Codec = harness_of(paths, who).run(&args)?;
            eprintln!(
                "bench: protobuf {file} {who}: decode {:.0}/s, encode {:.0}/s, heap {:.0} B/object",
                result.decode_per_s, result.encode_per_s, result.heap_per_object
            );
            runs[index].push(result);
        }
    }
    let counted = COUNTED_COPIES.to_string();
    let mut instructions = [[0; 2]; 2];
    for (who, counts) in ["ours-pb", "k8s-pb"].into_iter().zip(&mut instructions) {
        for (what, count) in ["deserialize", "serialize"]
            .into_iter()
            .zip(counts.iter_mut())
        {
            let out = paths.bench.join(format!("callgrind.{who}.{what}.out"));
            let args = ["instructions", who, path_str(&fixture)?, &counted, what];
            let (total, stdout) = super::measure::callgrind(
                &paths.harness.protobuf().bin,
                &args,
                &format!("*counted_{what}*"),
                &out,
            )?;
            let _: protocol::Counted = super::measure::parse_report(&args.join(" "), &stdout)?;
            *count = total;
            eprintln!("bench: instructions {file} {who} {what}: {total}");
        }
    }
    Ok(CodecFixture {
        name,
        runs,
        instructions,
    })
}

/// Copies of a fixture in the array whose instructions are counted (a count is the same in
/// every run, so one run of fewer copies tells it).
pub(crate) const COUNTED_COPIES: usize = 100;

/// The instructions of one fixture's `[deserialize, serialize]`, counted by callgrind inside
/// the one call: kubeforge's crate (unknown fields kept, the default), k8s-openapi's, and
/// kubeforge's with `--drop-unknown-fields`.
pub(crate) struct Instructions {
    pub name: &'static str,
    pub in_bytes: u64,
    pub ours: [u64; 2],
    pub peer: [u64; 2],
    pub ours_drop: [u64; 2],
}

fn count_instructions(
    paths: &Paths,
    name: &'static str,
    file: &str,
) -> Result<Instructions, String> {
    let fixture = paths.corpus.join("testdata").join(file);
    let copies = COUNTED_COPIES.to_string();
    let mut counts = [[0; 2]; 3];
    let mut in_bytes = 0;
    for (who, counts) in ["ours", "peer", "ours-drop"].into_iter().zip(&mut counts) {
        for (what, count) in ["deserialize", "serialize"]
            .into_iter()
            .zip(counts.iter_mut())
        {
            let out = paths.bench.join(format!("callgrind.{who}.{what}.out"));
            let args = ["instructions", who, path_str(&fixture)?, &copies, what];
            let (total, stdout) = super::measure::callgrind(
                &paths.harness.bin,
                &args,
                &format!("*counted_{what}*"),
                &out,
            )?;
            let counted: protocol::Counted =
                super::measure::parse_report(&args.join(" "), &stdout)?;
            in_bytes = counted.in_bytes;
            *count = total;
            eprintln!("bench: instructions {file} {who} {what}: {total}");
        }
    }
    let [ours, peer, ours_drop] = counts;
    Ok(Instructions {
        name,
        in_bytes,
        ours,
        peer,
        ours_drop,
    })
}

fn serde_args(
    paths: &Paths,
    who: &str,
    file: &str,
    iterations: usize,
) -> Result<Vec<String>, String> {
    let fixture = paths.corpus.join("testdata").join(file);
    Ok(vec![
        "serde".into(),
        who.into(),
        path_str(&fixture)?.into(),
        COPIES.to_string(),
        iterations.to_string(),
    ])
}

fn serde_run(
    paths: &Paths,
    who: &str,
    file: &str,
    iterations: usize,
) -> Result<protocol::Serde, String> {
    let args = serde_args(paths, who, file, iterations)?;
    let result: protocol::Serde = paths
        .harness
        .run(&args.iter().map(String::as_str).collect::<Vec<_>>())?;
    eprintln!(
        "bench: serde {file} {who}: de {:.0} MB/s, ser {:.0} MB/s",
        result.de_mbps, result.ser_mbps
    );
    Ok(result)
}

pub(crate) fn serde(paths: &Paths, effort: Effort) -> Result<Serde, String> {
    let iterations = effort.serde_iterations();
    let mut fixtures = Vec::new();
    for (name, file) in FIXTURES {
        let (iterations, processes) = effort.serde_shape(name);
        let mut fixture = SerdeFixture {
            name,
            iterations,
            processes,
            ours: Vec::new(),
            peer: Vec::new(),
            floor: Vec::new(),
        };
        for run in 0..effort.runs {
            for process in 0..processes {
                for who in order(run * processes + process, "ours", "peer") {
                    let result = serde_run(paths, who, file, iterations)?;
                    let runs = if who == "ours" {
                        &mut fixture.ours
                    } else {
                        &mut fixture.peer
                    };
                    runs.push(result);
                }
            }
            let args = serde_args(paths, "floor", file, iterations)?;
            fixture.floor.push(
                paths
                    .harness
                    .run(&args.iter().map(String::as_str).collect::<Vec<_>>())?,
            );
        }
        fixtures.push(fixture);
    }
    let instructions = FIXTURES
        .iter()
        .map(|(name, file)| count_instructions(paths, name, file))
        .collect::<Result<_, _>>()?;
    let protobuf = FIXTURES
        .iter()
        .map(|(name, file)| protobuf(paths, effort, name, file))
        .collect::<Result<_, _>>()?;
    Ok(Serde {
        fixtures,
        iterations,
        instructions,
        protobuf,
    })
}

/// f. What keeping unknown fields costs: the default crate against `--drop-unknown-fields`.
pub(crate) struct UnknownFields {
    /// Kept (the default), dropped.
    pub output: [Output; 2],
    pub builds: [Vec<Usage>; 2],
    /// Per fixture: kept, dropped.
    pub serde: Vec<(&'static str, [Vec<protocol::Serde>; 2])>,
    pub iterations: usize,
}

pub(crate) fn unknown_fields(paths: &Paths, effort: Effort) -> Result<UnknownFields, String> {
    let contenders = [
        (&paths.ours, OURS, "ours"),
        (&paths.ours_drop, OURS_DROP, "ours-drop"),
    ];
    let output = [
        Output::of_dir(&paths.ours.join("src"))?,
        Output::of_dir(&paths.ours_drop.join("src"))?,
    ];
    let mut builds: [Vec<Usage>; 2] = Default::default();
    let iterations = effort.serde_iterations();
    let mut serde: Vec<(&'static str, [Vec<protocol::Serde>; 2])> = UNKNOWN_FIELDS_FIXTURES
        .iter()
        .map(|(name, _)| (*name, Default::default()))
        .collect();
    let runs = effort.runs;
    for run in 0..runs {
        for index in order(run, 0, 1) {
            let (dir, package, who) = contenders[index];
            let usage = paths
                .harness
                .clean_build(dir, package, &paths.build_target, &[])?;
            eprintln!(
                "bench: unknown-fields run {}/{runs}: {package} dev {:.1}s wall, {:.1}s CPU",
                run + 1,
                usage.wall_s,
                usage.cpu()
            );
            builds[index].push(usage);
            for ((_, file), (_, results)) in UNKNOWN_FIELDS_FIXTURES.iter().zip(&mut serde) {
                results[index].push(serde_run(paths, who, file, iterations)?);
            }
        }
    }
    Ok(UnknownFields {
        output,
        builds,
        serde,
        iterations,
    })
}

/// The workloads of d.
pub(crate) const WORKLOADS: [&str; 2] = ["uniform", "common"];

/// d. Route matching: per workload, ours and matchit.
pub(crate) struct Routes {
    pub workloads: Vec<(&'static str, [Vec<protocol::Routes>; 2])>,
    pub passes: usize,
}

pub(crate) fn routes(paths: &Paths, effort: Effort) -> Result<Routes, String> {
    let passes = effort.route_passes();
    let mut workloads = Vec::new();
    for workload in WORKLOADS {
        let mut results: [Vec<protocol::Routes>; 2] = Default::default();
        for run in 0..effort.runs {
            for index in order(run, 0, 1) {
                let who = ["ours", "matchit"][index];
                let result: protocol::Routes = paths.harness.run(&[
                    "routes",
                    who,
                    workload,
                    path_str(&paths.swagger)?,
                    &REQUESTS.to_string(),
                    &SEED.to_string(),
                    &passes.to_string(),
                ])?;
                eprintln!(
                    "bench: routes {workload} run {}/{}: {who} {:.1} ns/match",
                    run + 1,
                    effort.runs,
                    result.ns_per_match
                );
                results[index].push(result);
            }
        }
        workloads.push((workload, results));
    }
    Ok(Routes { workloads, passes })
}

/// The feature sets of e: label and `--features` (none: the defaults, every group).
pub(crate) const FEATURE_SETS: [(&str, Option<&str>); 3] = [
    ("only `core`", Some("core")),
    ("`core` + `apps`", Some("core,apps")),
    ("every group (default features)", None),
];

/// e. Clean dev builds of the `--group-features` crate, by feature set, and of k8s-openapi.
pub(crate) struct Features {
    pub ours: [Vec<Usage>; 3],
    pub peer: Vec<Usage>,
}

pub(crate) fn features(paths: &Paths, effort: Effort) -> Result<Features, String> {
    let mut result = Features {
        ours: Default::default(),
        peer: Vec::new(),
    };
    let runs = effort.runs;
    for run in 0..runs {
        // Ours (each feature set) and the peer alternate which goes first.
        for ours in order(run, true, false) {
            if ours {
                for (index, (label, features)) in FEATURE_SETS.iter().enumerate() {
                    let extra: Vec<&str> = features
                        .map_or_else(Vec::new, |f| vec!["--no-default-features", "--features", f]);
                    let usage = paths.harness.clean_build(
                        &paths.ours_features,
                        OURS_FEATURES,
                        &paths.build_target,
                        &extra,
                    )?;
                    eprintln!(
                        "bench: feature build run {}/{runs}: kubeforge {label} {:.1}s wall, {:.1}s CPU",
                        run + 1,
                        usage.wall_s,
                        usage.cpu()
                    );
                    result.ours[index].push(usage);
                }
            } else {
                let usage = paths.harness.clean_build(
                    &paths.peer,
                    "k8s-openapi",
                    &paths.build_target,
                    &[],
                )?;
                eprintln!(
                    "bench: feature build run {}/{runs}: k8s-openapi {:.1}s wall, {:.1}s CPU",
                    run + 1,
                    usage.wall_s,
                    usage.cpu()
                );
                result.peer.push(usage);
            }
        }
    }
    Ok(result)
}

/// One CRD file of g: kubeforge (index 0) against kopium (index 1).
pub(crate) struct CrdRow {
    pub file: CrdFile,
    /// Generation, one per run; kopium's is the sum of its processes (one per CRD version),
    /// with the largest peak.
    pub generation: [Vec<Usage>; 2],
    pub output: [Output; 2],
    pub build: [Vec<Usage>; 2],
}

/// g. CRDs against kopium.
pub(crate) struct Crds {
    pub rows: Vec<CrdRow>,
    /// A build script's rerun with no change (when the project could be set up).
    pub rerun: Option<Rerun>,
    pub extra_dir: String,
    pub missing: Vec<String>,
}

/// Several processes as one: times add up, the peak is the largest.
fn combine(a: Usage, b: Usage) -> Usage {
    Usage {
        wall_s: a.wall_s + b.wall_s,
        user_s: a.user_s + b.user_s,
        sys_s: a.sys_s + b.sys_s,
        maxrss_kib: a.maxrss_kib.max(b.maxrss_kib),
    }
}

pub(crate) fn crds(paths: &Paths, effort: Effort) -> Result<Crds, String> {
    let mut rows = Vec::new();
    let scratch = paths.bench.join("crds/scratch");
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let runs = effort.runs;
    for file in &paths.crds.files {
        let crates = setup::crd_crates(paths, file);
        let mut generation: [Vec<Usage>; 2] = Default::default();
        let mut build: [Vec<Usage>; 2] = Default::default();
        for run in 0..runs {
            for index in order(run, 0, 1) {
                let usage = if index == 0 {
                    let out = scratch.join("kubeforge");
                    let _ = std::fs::remove_dir_all(&out);
                    let args = [
                        path_str(&file.path)?,
                        "--out",
                        path_str(&out)?,
                        "--crate-name",
                        "scratch",
                        "--runtime-path",
                        path_str(&paths.runtime)?,
                    ];
                    let timings = scratch.join("kubeforge-timings.json");
                    // The split into stages is section a's business; here only the process.
                    paths.harness.generate(&paths.generator, &args, &timings)?.0
                } else {
                    let out = scratch.join("kopium.rs");
                    let mut total: Option<Usage> = None;
                    for crd in &file.crds {
                        for version in &crd.versions {
                            let usage = paths.harness.rusage(
                                &paths.kopium,
                                &setup::kopium_args(crd, version)?,
                                Some(&out),
                            )?;
                            total = Some(total.map_or(usage, |t| combine(t, usage)));
                        }
                    }
                    total.ok_or_else(|| format!("{}: no CRD version to generate", file.label))?
                };
                let (dir, package) = &crates[index];
                let built = paths
                    .harness
                    .clean_build(dir, package, &paths.build_target, &[])?;
                eprintln!(
                    "bench: crds run {}/{runs}: {} {}: generate {:.3}s {:.0} MiB, dev build {:.1}s",
                    run + 1,
                    file.label,
                    ["kubeforge", "kopium"][index],
                    usage.wall_s,
                    usage.maxrss_mib(),
                    built.wall_s
                );
                generation[index].push(usage);
                build[index].push(built);
            }
        }
        let output = [
            Output::of_dir(&crates[0].0.join("src"))?,
            Output::of_dir(&crates[1].0.join("src"))?,
        ];
        rows.push(CrdRow {
            file: file.clone(),
            generation,
            output,
            build,
        });
    }
    let rerun = paths
        .rerun
        .as_ref()
        .map(|project| rerun(paths, project, effort))
        .transpose()?;
    Ok(Crds {
        rows,
        rerun,
        extra_dir: paths.crds.extra_dir.clone(),
        missing: paths.crds.missing.clone(),
    })
}

/// What a user feels when a build script's input is touched but not changed: one per run.
pub(crate) struct Rerun {
    /// The CRD file's name.
    pub label: String,
    /// `touch` the CRD, then `cargo build`: the build script reruns, and cargo rebuilds
    /// what it decides to.
    pub touched: Vec<Usage>,
    /// The same `cargo build` with nothing touched: cargo's own floor.
    pub noop: Vec<Usage>,
    /// The build script binary alone, run as cargo runs it (in the package's directory, with
    /// `OUT_DIR`, `CARGO_MANIFEST_DIR` and `CARGO` set).
    pub script: Vec<Usage>,
    /// Runs of the touched build in which cargo recompiled the crate itself.
    pub recompiled: usize,
    /// Times the include file's modification time changed, over every touched build and
    /// every run of the build script alone (the product's promise is 0).
    pub rewritten: usize,
    /// The include file the build script writes.
    pub output: Output,
}

fn modified(path: &Path) -> Result<std::time::SystemTime, String> {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether cargo's JSON messages say it compiled the library of the package in `dir` anew
/// (`"fresh": false`) rather than reusing it.
pub(crate) fn recompiled(messages: &str, dir: &Path) -> bool {
    let package = format!("{}#", dir.display());
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| {
            m.get("reason").and_then(serde_json::Value::as_str) == Some("compiler-artifact")
                && m.get("package_id")
                    .and_then(serde_json::Value::as_str)
                    .is_some_and(|id| id.contains(&package))
                && m.pointer("/target/kind/0")
                    .and_then(serde_json::Value::as_str)
                    == Some("lib")
        })
        .any(|m| m.get("fresh") == Some(&serde_json::Value::Bool(false)))
}

fn rerun(paths: &Paths, project: &setup::RerunProject, effort: Effort) -> Result<Rerun, String> {
    let include = project.out_dir.join(setup::RERUN_INCLUDE);
    // cargo writes the build script's standard output here on every run of it.
    let script_output = project
        .out_dir
        .parent()
        .ok_or("OUT_DIR has no parent")?
        .join("output");
    let scratch = paths.bench.join("crds/scratch");
    let messages = scratch.join("rerun-messages.json");
    let manifest = project.dir.join("Cargo.toml");
    let cargo = super::measure::which_cargo()?;
    let args = [
        "build",
        "--quiet",
        "--message-format=json",
        "--manifest-path",
        path_str(&manifest)?,
        "--target-dir",
        path_str(&paths.build_target)?,
    ];
    let build = |touch: bool| -> Result<(Usage, bool, bool), String> {
        let (before, ran_before) = (modified(&include)?, modified(&script_output)?);
        if touch {
            std::fs::File::options()
                .write(true)
                .open(&project.input)
                .and_then(|f| f.set_modified(std::time::SystemTime::now()))
                .map_err(|e| format!("cannot touch {}: {e}", project.input.display()))?;
        }
        let usage = paths.harness.rusage(&cargo, &args, Some(&messages))?;
        let ran = modified(&script_output)? != ran_before;
        if ran != touch {
            return Err(format!(
                "the build script of {} {} after {}: the figures would not be what they say",
                project.dir.display(),
                if ran { "ran" } else { "did not run" },
                if touch {
                    "touching its input"
                } else {
                    "no change"
                },
            ));
        }
        let text = std::fs::read_to_string(&messages)
            .map_err(|e| format!("{}: {e}", messages.display()))?;
        Ok((
            usage,
            recompiled(&text, &project.dir),
            modified(&include)? != before,
        ))
    };
    let script_stdout = scratch.join("rerun-script-stdout.txt");
    let env = [
        ("OUT_DIR", project.out_dir.as_path()),
        ("CARGO_MANIFEST_DIR", project.dir.as_path()),
        ("CARGO", cargo.as_path()),
    ];
    let mut result = Rerun {
        label: project.label.clone(),
        touched: Vec::new(),
        noop: Vec::new(),
        script: Vec::new(),
        recompiled: 0,
        rewritten: 0,
        output: Output::default(),
    };
    let runs = effort.runs;
    for run in 0..runs {
        for cargo_first in order(run, true, false) {
            if cargo_first {
                let (usage, recompiled, rewritten) = build(true)?;
                eprintln!(
                    "bench: rerun {}/{runs}: touched {}, cargo build {:.2}s wall, {:.2}s CPU{}{}",
                    run + 1,
                    project.label,
                    usage.wall_s,
                    usage.cpu(),
                    if recompiled { ", crate recompiled" } else { "" },
                    if rewritten {
                        ", include file REWRITTEN"
                    } else {
                        ""
                    },
                );
                result.touched.push(usage);
                result.recompiled += usize::from(recompiled);
                result.rewritten += usize::from(rewritten);
            } else {
                let before = modified(&include)?;
                let usage =
                    paths
                        .harness
                        .rusage_in(&project.dir, &env, &project.script, &script_stdout)?;
                let rewritten = modified(&include)? != before;
                eprintln!(
                    "bench: rerun {}/{runs}: build script alone {:.3}s wall{}",
                    run + 1,
                    usage.wall_s,
                    if rewritten {
                        ", include file REWRITTEN"
                    } else {
                        ""
                    },
                );
                result.script.push(usage);
                result.rewritten += usize::from(rewritten);
            }
        }
        let (usage, ..) = build(false)?;
        result.noop.push(usage);
    }
    result.output.add(
        &std::fs::read_to_string(&include).map_err(|e| format!("{}: {e}", include.display()))?,
    );
    Ok(result)
}

/// i. The simulated cluster: the server's own `simulated_cluster` bench.
pub(crate) struct Simulated {
    pub report: protocol::ServerSimulation,
    /// Runs, each on fresh servers.
    pub runs: usize,
}

/// Runs of section i in one run of the bench (a run is about ten seconds).
const SIMULATION_RUNS: usize = 3;

pub(crate) fn simulation(paths: &Paths, effort: Effort) -> Result<Simulated, String> {
    let runs = if effort.quick {
        1
    } else {
        SIMULATION_RUNS * effort.runs
    };
    let report: protocol::ServerSimulation = server_bench(paths, "simulated_cluster", runs)?;
    let ready = super::stats::Stat::of("ready", &report.ready_wall_ms)?;
    eprintln!(
        "bench: simulation: {} Pods all Ready after {} ms wall",
        report.deployments * report.replicas,
        ready.show(0)
    );
    Ok(Simulated { report, runs })
}

/// The JSON report of `kubeforge-server`'s own bench `bench`, run in release with `--json
/// runs`: the server's benches measure inside their process, and print one report.
fn server_bench<T: serde::de::DeserializeOwned>(
    paths: &Paths,
    bench: &str,
    runs: usize,
) -> Result<T, String> {
    let runs_arg = runs.to_string();
    let args = [
        "bench",
        "--quiet",
        "--package",
        "kubeforge-server",
        "--bench",
        bench,
        "--",
        "--json",
        &runs_arg,
    ];
    let output = std::process::Command::new(env!("CARGO"))
        .current_dir(&paths.root)
        .args(args)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let what = format!("cargo {}", args.join(" "));
    if !output.status.success() {
        return Err(format!("`{what}` failed ({})", output.status));
    }
    let stdout = String::from_utf8(output.stdout)
        .map_err(|e| format!("`{what}` printed non-UTF-8 output: {e}"))?;
    super::measure::parse_report(&what, &stdout)
}

/// h. The in-memory server: each corpus and extra CRD created through its API, until served.
pub(crate) struct Server {
    pub crds: protocol::ServerCrds,
    /// Runs per CRD, each on a fresh server.
    pub runs: usize,
    /// The throughput line the concurrency stress test prints (`server/tests/stress.rs`).
    pub stress: String,
}

/// Runs per CRD of section h in one run of the bench (a run is a fraction of a second).
const SERVER_CRD_RUNS: usize = 5;

pub(crate) fn server(paths: &Paths, effort: Effort) -> Result<Server, String> {
    let runs = if effort.quick {
        1
    } else {
        SERVER_CRD_RUNS * effort.runs
    };
    let crds: protocol::ServerCrds = server_bench(paths, "crds", runs)?;
    for crd in &crds.crds {
        let wall = super::stats::Stat::of(&crd.file, &crd.wall_ms)?;
        eprintln!(
            "bench: server {}: served after {} ms wall",
            crd.file,
            wall.show(1)
        );
    }
    let stress = stress(paths)?;
    eprintln!("bench: {stress}");
    Ok(Server { crds, runs, stress })
}

/// The concurrency stress test's throughput, built as the bench builds (`--profile bench`):
/// 8 writers over HTTP against the binary on loopback, with watchers.
fn stress(paths: &Paths) -> Result<String, String> {
    let args = [
        "test",
        "--quiet",
        "--profile",
        "bench",
        "--package",
        "kubeforge-server",
        "--test",
        "stress",
        "--",
        "--nocapture",
        "eight_writers",
    ];
    let output = std::process::Command::new(env!("CARGO"))
        .current_dir(&paths.root)
        .args(args)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let what = format!("cargo {}", args.join(" "));
    let stdout = String::from_utf8_lossy(&output.stdout);
    match stdout.lines().find(|line| line.starts_with("stress: ")) {
        Some(line) if output.status.success() => Ok(line.trim_start_matches("stress: ").to_owned()),
        _ => Err(format!(
            "`{what}` failed ({}) or printed no throughput",
            output.status
        )),
    }
}

/// Everything one run measured.
#[derive(Default)]
pub(crate) struct Report {
    pub runs: usize,
    pub quick: bool,
    pub generation: Option<Generation>,
    pub builds: Option<Builds>,
    pub protobuf_build: Option<ProtobufBuild>,
    pub serde: Option<Serde>,
    pub routes: Option<Routes>,
    pub features: Option<Features>,
    pub unknown_fields: Option<UnknownFields>,
    pub crds: Option<Crds>,
    pub server: Option<Server>,
    pub simulation: Option<Simulated>,
    /// How long setup and each section took.
    pub durations: Vec<(String, Duration)>,
}
