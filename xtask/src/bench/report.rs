//! The Markdown of BENCHMARKS.md, from the typed results. Every figure goes through `stats`;
//! nothing is measured here.

use std::fmt::Write as _;
use std::process::Command;
use std::time::Duration;

use super::Section;
use super::measure::{Usage, cpu, wall};
use super::sections::{
    Builds, COPIES, COUNTED_COPIES, Crds, FEATURE_SETS, Features, Generation, ProtobufBuild,
    REQUESTS, Report, Rerun, Routes, Serde, UnknownFields,
};
use super::setup::{EXTRA_CRDS, HARNESS_PB, K8S_OPENAPI, K8S_PB, KOPIUM, KUBE, Paths, RERUN};
use super::stats::{Stat, show_change, show_ratio};

use super::targets::{
    DEV_BUILD as TARGET_DEV_BUILD, GENERATION as TARGET_GENERATION, PB_OVER_JSON, Protobuf,
    ROUTES as TARGET_ROUTES, SERDE_DE, SERDE_INSTRUCTIONS as TARGET_SERDE_INSTRUCTIONS, SERDE_SER,
    UNKNOWN_FIELDS_INSTRUCTIONS as TARGET_UNKNOWN_FIELDS_INSTRUCTIONS,
};

/// `3 min 05 s`, or `42 s`.
fn minutes(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if seconds < 60 {
        format!("{seconds} s")
    } else {
        format!("{} min {:02} s", seconds / 60, seconds % 60)
    }
}

/// `1 iteration`, `5 iterations`.
fn plural(count: usize, noun: &str) -> String {
    match (count, noun.ends_with('s')) {
        (1, _) => format!("1 {noun}"),
        (_, true) => format!("{count} {noun}es"),
        (_, false) => format!("{count} {noun}s"),
    }
}

fn verdict(met: bool) -> &'static str {
    if met { "**met**" } else { "**not met**" }
}

type Out = Result<(), String>;

fn stat(what: &str, runs: &[Usage], field: fn(&Usage) -> f64) -> Result<Stat, String> {
    Stat::field(what, runs, field)
}

fn mib(u: &Usage) -> f64 {
    u.maxrss_mib()
}

impl Report {
    pub(crate) fn render(&self, paths: &Paths, sections: &[Section]) -> Result<String, String> {
        let mut s = String::new();
        let w = &mut s;
        let _ = writeln!(w, "# Benchmarks against the peers\n");
        let _ = writeln!(
            w,
            "Written by `cargo xtask bench{}`; do not edit by hand, rerun it. Every figure is the \
             median of {} run{} with the range (min–max) in brackets; in each run the contenders \
             alternate in order, each measured in a fresh process. Wall-clock times on a shared \
             machine mostly measure the neighbours: compare CPU times where they are given.{}\n",
            if self.quick { " --quick" } else { "" },
            self.runs,
            if self.runs == 1 { "" } else { "s" },
            if self.quick {
                " **Quick mode: one run and few iterations, for development only.**"
            } else {
                ""
            }
        );
        if sections.len() < Section::ALL.len() {
            let names: Vec<String> = sections.iter().map(|s| format!("`{}`", s.name())).collect();
            let _ = writeln!(w, "**Partial report: only {}.**\n", names.join(", "));
        }
        machine(w, paths);
        super::targets::render(w, self)?;
        if let Some(g) = &self.generation {
            render_generation(w, g)?;
        }
        if let Some(b) = &self.builds {
            render_builds(w, b)?;
        }
        if let Some(p) = &self.protobuf_build {
            render_protobuf_build(w, p, self.builds.is_some())?;
        }
        if let Some(serde) = &self.serde {
            render_serde(w, serde)?;
        }
        if let Some(r) = &self.routes {
            render_routes(w, r)?;
        }
        if let Some(f) = &self.features {
            render_features(w, f)?;
        }
        if let Some(u) = &self.unknown_fields {
            render_unknown_fields(w, u)?;
        }
        if let Some(c) = &self.crds {
            render_crds(w, c)?;
        }
        if let Some(server) = &self.server {
            render_server(w, server)?;
        }
        if let Some(simulated) = &self.simulation {
            render_simulation(w, simulated)?;
        }
        let total: Duration = self.durations.iter().map(|(_, d)| *d).sum();
        let _ = writeln!(w, "## How long this run took\n");
        let _ = writeln!(w, "| step | time |\n|---|---|");
        for (name, duration) in &self.durations {
            let _ = writeln!(w, "| {name} | {} |", minutes(*duration));
        }
        let _ = writeln!(w, "| total | {} |", minutes(total));
        Ok(s)
    }
}

fn render_generation(w: &mut String, g: &Generation) -> Out {
    let (ours, floor) = (
        stat("generation wall", &g.ours, wall)?,
        stat("floor wall", &g.floor, wall)?,
    );
    #[allow(clippy::cast_precision_loss)]
    let megabytes = g.bytes as f64 / 1e6;
    let _ = writeln!(
        w,
        "## a. Generation\n\n\
         The full Kubernetes 1.36 API (`kubernetes/swagger.json`, {megabytes:.1} MB): the release \
         `kubeforge` binary loads it, builds the model, emits types, builders and routes, \
         formats them and writes the crate ({} files, {} lines, {} types) into an empty \
         directory. The floor is a process that reads the file and parses it with serde_json \
         into a `Value` (feature `preserve_order`, as the generator uses). Peak memory is the \
         maximum resident set of the process.\n",
        g.output.files, g.output.lines, g.output.types
    );
    let _ = writeln!(
        w,
        "| | wall time (s) | CPU time (s) | peak memory (MiB) |\n|---|---|---|---|"
    );
    for (label, runs) in [
        (
            "kubeforge (types, builders, routes, formatted, written)",
            &g.ours,
        ),
        ("floor: `serde_json::from_slice::<Value>`", &g.floor),
    ] {
        let _ = writeln!(
            w,
            "| {label} | {} | {} | {} |",
            stat(label, runs, wall)?.show(3),
            stat(label, runs, cpu)?.show(3),
            stat(label, runs, mib)?.show(0)
        );
    }
    let ratio = ours.ratio(&floor);
    let _ = writeln!(
        w,
        "\nRatio to the floor (wall medians): **{}**. Target ≤ {TARGET_GENERATION}×: {}.\n",
        show_ratio(ratio),
        verdict(ratio <= TARGET_GENERATION)
    );
    Ok(())
}

/// b's part for issue 49: what the generated crate's `protobuf` feature costs to compile.
fn render_protobuf_build(w: &mut String, p: &ProtobufBuild, in_b: bool) -> Out {
    let _ = writeln!(
        w,
        "{}\n\n\
         The crate generated from `swagger.json` with `--proto` (Kubernetes 1.36's `.proto` \
         files), built clean in the dev profile as above (`cargo clean -p`, then `cargo build`, \
         its dependencies built), without and with its cargo feature `protobuf` (the \
         `Message` impls of every type with a message, and the runtime's protobuf module); \
         the default build, without the feature, is what a user of JSON compiles.\n",
        if in_b {
            "### The `protobuf` feature"
        } else {
            "## b. Compile time: the `protobuf` feature"
        }
    );
    let _ = writeln!(
        w,
        "| build | wall (s) | CPU (s) | peak memory (MiB) |\n|---|---|---|---|"
    );
    let mut medians = Vec::new();
    for (label, runs) in ["default features (no `protobuf`)", "`--features protobuf`"]
        .into_iter()
        .zip(&p.dev)
    {
        let (wl, c, m) = (
            stat(label, runs, wall)?,
            stat(label, runs, cpu)?,
            stat(label, runs, mib)?,
        );
        let _ = writeln!(
            w,
            "| {label} | {} | {} | {} |",
            wl.show(1),
            c.show(1),
            m.show(0)
        );
        medians.push([wl.median, c.median, m.median]);
    }
    let _ = writeln!(
        w,
        "| the feature's cost | {} | {} | {} |\n",
        show_change(medians[1][0], medians[0][0]),
        show_change(medians[1][1], medians[0][1]),
        show_change(medians[1][2], medians[0][2]),
    );
    Ok(())
}

fn render_builds(w: &mut String, b: &Builds) -> Out {
    let _ = writeln!(
        w,
        "## b. Compile time\n\n\
         A clean `cargo build` of the crate alone (`cargo clean -p` of it, then `cargo build`; \
         its dependencies stay built, as they would in a user's project), both without \
         incremental compilation (`CARGO_INCREMENTAL=0`, as cargo builds registry \
         dependencies such as k8s-openapi) and with the profiles' default settings (debug \
         info in dev; a `CARGO_PROFILE_*` of the shell is removed): the crate kubeforge \
         generates from `swagger.json` with the defaults (types, builders, routes and \
         validation, every group) against k8s-openapi {K8S_OPENAPI} with only \
         feature `v1_36` (types only). CPU time is user + system of cargo and every process it \
         ran; peak memory is the largest resident set among them, which is rustc compiling \
         the crate.\n"
    );
    let _ = writeln!(
        w,
        "| build | kubeforge wall (s) | k8s-openapi wall (s) | ratio (wall) | kubeforge CPU (s) | k8s-openapi CPU (s) | ratio (CPU) | kubeforge peak (MiB) | k8s-openapi peak (MiB) |\n|---|---|---|---|---|---|---|---|---|"
    );
    let mut dev_ratio = f64::NAN;
    for (name, [ours, peer]) in [("dev", &b.dev), ("release", &b.release)] {
        let (ow, pw) = (stat(name, ours, wall)?, stat(name, peer, wall)?);
        let (oc, pc) = (stat(name, ours, cpu)?, stat(name, peer, cpu)?);
        if name == "dev" {
            dev_ratio = ow.ratio(&pw);
        }
        let _ = writeln!(
            w,
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} |",
            ow.show(1),
            pw.show(1),
            show_ratio(ow.ratio(&pw)),
            oc.show(1),
            pc.show(1),
            show_ratio(oc.ratio(&pc)),
            stat(name, ours, mib)?.show(0),
            stat(name, peer, mib)?.show(0)
        );
    }
    let _ = writeln!(
        w,
        "\nDev build, kubeforge ÷ k8s-openapi (wall medians): **{}**. Target ≤ {TARGET_DEV_BUILD}×: {}.\n",
        show_ratio(dev_ratio),
        verdict(dev_ratio <= TARGET_DEV_BUILD)
    );
    let _ = writeln!(
        w,
        "What the parts cost, in the same run: the crate generated with fewer or more of its \
         parts, each built as above in the dev profile. Validation (`Validate` on every type) \
         and apply configurations (behind the cargo feature `apply`) are the parts the default \
         crate has or can have beyond k8s-openapi's.\n\n\
         | dev build | wall (s) | CPU (s) | ratio to k8s-openapi (wall) | ratio (CPU) |\n|---|---|---|---|---|"
    );
    let (pw, pc) = (stat("dev", &b.dev[1], wall)?, stat("dev", &b.dev[1], cpu)?);
    let mut rows: Vec<(&str, &Vec<Usage>)> = super::setup::OURS_PARTS
        .iter()
        .zip(&b.parts)
        .map(|(part, usages)| (part.label, usages))
        .collect();
    rows.push((
        "kubeforge, the default (types, builders, routes, validation)",
        &b.dev[0],
    ));
    rows.push(("k8s-openapi, types only", &b.dev[1]));
    for (label, usages) in rows {
        let (ow, oc) = (stat(label, usages, wall)?, stat(label, usages, cpu)?);
        let _ = writeln!(
            w,
            "| {label} | {} | {} | {} | {} |",
            ow.show(1),
            oc.show(1),
            show_ratio(ow.ratio(&pw)),
            show_ratio(oc.ratio(&pc))
        );
    }
    let _ = writeln!(w);
    render_merged(w, b)
}

/// b's crate of five releases merged, beside the one-release crate and k8s-openapi's.
fn render_merged(w: &mut String, b: &Builds) -> Out {
    let releases = super::setup::RELEASES.map(|(release, _)| release).join(",");
    let files = super::setup::RELEASES
        .map(|(_, file)| format!("`{file}`"))
        .join(", ");
    let Some(merged) = &b.merged else {
        let _ = writeln!(
            w,
            "The crate of five releases merged (`--releases {releases}`) is left out: the \
             generator of this commit has no `--releases`.\n"
        );
        return Ok(());
    };
    let _ = writeln!(
        w,
        "Five releases in one crate: the crate kubeforge generates from {files} merged \
         (`--releases {releases}`, every type, field and operation once with the releases \
         that have it; the defaults otherwise), built as the default above in the dev \
         profile, in the same run: {} lines against the one-release crate's {} ({}).\n\n\
         | dev build | wall (s) | CPU (s) | peak (MiB) | ratio to k8s-openapi: wall | CPU | peak |\n|---|---|---|---|---|---|---|",
        merged.lines,
        merged.one_release_lines,
        show_ratio(super::stats::ratio(
            merged.lines as f64,
            merged.one_release_lines as f64
        )),
    );
    let peer = &b.dev[1];
    let (pw, pc, pm) = (
        stat("dev", peer, wall)?,
        stat("dev", peer, cpu)?,
        stat("dev", peer, mib)?,
    );
    for (label, usages) in [
        ("kubeforge, five releases merged (the default)", &merged.dev),
        ("kubeforge, 1.36 alone (the default)", &b.dev[0]),
        ("k8s-openapi, `v1_36`", peer),
    ] {
        let (ow, oc, om) = (
            stat(label, usages, wall)?,
            stat(label, usages, cpu)?,
            stat(label, usages, mib)?,
        );
        let _ = writeln!(
            w,
            "| {label} | {} | {} | {} | {} | {} | {} |",
            ow.show(1),
            oc.show(1),
            om.show(0),
            show_ratio(ow.ratio(&pw)),
            show_ratio(oc.ratio(&pc)),
            show_ratio(om.ratio(&pm))
        );
    }
    let _ = writeln!(w);
    Ok(())
}

fn render_serde(w: &mut String, serde: &Serde) -> Out {
    let shape = serde
        .fixtures
        .iter()
        .map(|f| {
            format!(
                "{} ({}, {} per run)",
                plural(f.iterations, "iteration"),
                f.name,
                plural(f.processes, "process")
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let _ = writeln!(
        w,
        "## c. Serde\n\n\
         {COPIES} copies of a fixture from `kubernetes/testdata/`, minified, in one JSON array, \
         deserialized as `Vec<T>` with `serde_json::from_slice` and serialized with \
         `serde_json::to_writer` into a reserved buffer. Each process times {shape}, one at \
         a time in the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`: on a shared machine the \
         wall clock also counts the waits for a core), after one decode that measures the heap, {} more decodes and one encode, none \
         timed, so that the timed ones run on a warm heap and buffer as a long-running \
         client's do; dropping is not timed. A process's figure is the median of its timed \
         iterations (it repeats best: a mean takes in every iteration a neighbour slowed, and \
         the fastest picks each process's luckiest iteration); the table gives the median over \
         the processes, kubeforge's and k8s-openapi's alternated, with their range. The \
         fixtures are a Pod, a Deployment and a Node (whose large `status` holds images, \
         conditions, addresses and capacity). Throughput is in MB/s of the input for \
         deserializing and of the output for serializing. The floor is \
         `serde_json::from_slice::<IgnoredAny>` over the same bytes. \"Round trip\" says \
         whether the serialized output equals the input as JSON.\n",
        super::protocol::WARM_UP
    );
    let _ = writeln!(
        w,
        "| fixture | contender | deserialize (MB/s) | serialize (MB/s) | output bytes | round trip |\n|---|---|---|---|---|---|"
    );
    let mut summary = Vec::new();
    for f in &serde.fixtures {
        let input = f.floor.first().map_or(0, |r| r.in_bytes);
        for (label, runs) in [("kubeforge", &f.ours), ("k8s-openapi", &f.peer)] {
            let first = runs
                .first()
                .ok_or_else(|| format!("serde {}: no runs", f.name))?;
            let _ = writeln!(
                w,
                "| {} ({input} bytes) | {label} | {} | {} | {} | {} |",
                f.name,
                Stat::field("de_mbps", runs, |r| r.de_mbps)?.show(0),
                Stat::field("ser_mbps", runs, |r| r.ser_mbps)?.show(0),
                first.out_bytes,
                if runs.iter().all(|r| r.round_trip) {
                    "yes"
                } else {
                    "no"
                },
            );
        }
        let floor = Stat::field("floor de_mbps", &f.floor, |r| r.de_mbps)?;
        let _ = writeln!(
            w,
            "| {} | floor: `IgnoredAny` | {} | | | |",
            f.name,
            floor.show(0)
        );
        let de = |runs| Stat::field("de_mbps", runs, |r: &super::protocol::Serde| r.de_mbps);
        let ser = |runs| Stat::field("ser_mbps", runs, |r: &super::protocol::Serde| r.ser_mbps);
        summary.push((
            f.name,
            de(&f.ours)?.ratio(&de(&f.peer)?),
            ser(&f.ours)?.ratio(&ser(&f.peer)?),
            de(&f.ours)?.ratio(&floor),
        ));
    }
    let _ = writeln!(
        w,
        "\n| fixture | deserialize, kubeforge ÷ k8s-openapi | serialize, kubeforge ÷ k8s-openapi | kubeforge deserialize ÷ floor | target ≥ {SERDE_DE}×, ≥ {SERDE_SER}× |\n|---|---|---|---|---|"
    );
    for (name, de, ser, floor_share) in summary {
        let _ = writeln!(
            w,
            "| {name} | **{}** | **{}** | {} | {} |",
            show_ratio(de),
            show_ratio(ser),
            show_ratio(floor_share),
            verdict(de >= SERDE_DE && ser >= SERDE_SER)
        );
    }
    let _ = writeln!(w);
    render_instructions(w, serde);
    render_protobuf(w, serde)
}

/// Section c's protobuf comparison (issue 49).
fn render_protobuf(w: &mut String, serde: &Serde) -> Out {
    if serde.protobuf.is_empty() {
        return Ok(());
    }
    let _ = writeln!(
        w,
        "### Protobuf\n\n\
         The same {COPIES} copies as a list in Kubernetes' protobuf: the fixture's own `.pb` \
         message {COPIES} times as the items (field 2) of its `…List`, in the `k8s\\0` \
         envelope. kubeforge decodes it with `kubeforge_runtime::protobuf::decode_object` into \
         the generated list type (a crate generated with `--proto` and `--select` of the three \
         kinds, feature `protobuf`) and encodes it with `encode_object`; k8s-pb {K8S_PB}'s prost \
         types decode the envelope's message (the runtime's borrowing `decode_envelope` \
         unwraps it: k8s-pb has none) and encode with `encode_to_vec` then `encode_envelope`, \
         as ours does. The JSON contenders decode and encode the JSON array of the table \
         above. A process's figure is the median of its {}, timed in its thread's CPU time as \
         above, after the same untimed decodes and encode; heap is what \
         glibc's `mallinfo2` holds after one decode against before it, divided by the objects. \"Round trip\": the encoded message is \
         the input's, byte for byte (protobuf), or the same JSON value.\n",
        plural(serde.iterations, "iteration")
    );
    let _ = writeln!(
        w,
        "| fixture | contender | decode (objects/s) | encode (objects/s) | heap per decoded object (bytes) | input bytes | round trip |\n|---|---|---|---|---|---|---|"
    );
    let labels = [
        "kubeforge, protobuf",
        "k8s-pb, protobuf",
        "kubeforge, JSON",
        "k8s-openapi, JSON",
    ];
    let mut verdicts = Vec::new();
    for f in &serde.protobuf {
        for (label, runs) in labels.iter().zip(&f.runs) {
            let first = runs.first().ok_or("protobuf: no runs")?;
            let de = Stat::field("decode_per_s", runs, |r| r.decode_per_s)?;
            let en = Stat::field("encode_per_s", runs, |r| r.encode_per_s)?;
            let heap = Stat::field("heap_per_object", runs, |r| r.heap_per_object)?;
            let _ = writeln!(
                w,
                "| {} | {label} | {} | {} | {} | {} | {} |",
                f.name,
                de.show(0),
                en.show(0),
                heap.show(0),
                first.in_bytes,
                if runs.iter().all(|r| r.round_trip) {
                    "yes"
                } else {
                    "no"
                },
            );
        }
        verdicts.push(Protobuf::of(f)?);
    }
    let _ = writeln!(
        w,
        "\nInstructions per object, counted by callgrind inside the one decoding or encoding \
         call over {COUNTED_COPIES} copies (the JSON ones are the table above's, divided).\n\n\
         | fixture | decode: kubeforge protobuf | k8s-pb | kubeforge JSON | k8s-openapi JSON | encode: kubeforge protobuf | k8s-pb | kubeforge JSON | k8s-openapi JSON |\n|---|---|---|---|---|---|---|---|---|"
    );
    #[allow(clippy::cast_precision_loss)]
    let per = |n: u64| n as f64 / COUNTED_COPIES as f64;
    for (f, json) in serde.protobuf.iter().zip(&serde.instructions) {
        let [ours, peer] = f.instructions;
        let _ = writeln!(
            w,
            "| {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} |",
            f.name,
            per(ours[0]),
            per(peer[0]),
            per(json.ours[0]),
            per(json.peer[0]),
            per(ours[1]),
            per(peer[1]),
            per(json.ours[1]),
            per(json.peer[1]),
        );
    }
    let _ = writeln!(
        w,
        "\nTargets (issue 49), on the medians above.\n\n\
         | fixture | decode ÷ k8s-openapi JSON (≥ {PB_OVER_JSON:.0}×) | decode ÷ k8s-pb (≥ 1.0×) | encode ÷ k8s-pb (≥ 1.0×) | heap ÷ k8s-openapi (≤ 1.0×) | verdict |\n|---|---|---|---|---|---|"
    );
    for p in verdicts {
        let [de_pb, en_pb] = p.over_k8s_pb();
        let _ = writeln!(
            w,
            "| {} | **{}** | **{}** | **{}** | **{}** | {} |",
            p.name,
            show_ratio(p.decode_over_json()),
            show_ratio(de_pb),
            show_ratio(en_pb),
            show_ratio(p.heap_over_json()),
            verdict(p.met())
        );
    }
    let _ = writeln!(w);
    Ok(())
}

/// The instruction counts of section c.
fn render_instructions(w: &mut String, serde: &Serde) {
    let _ = writeln!(
        w,
        "Instructions, counted by callgrind inside the one deserializing or serializing call \
         alone (`--toggle-collect`: reading the fixture and dropping the values are not \
         counted), over {COUNTED_COPIES} copies. A count repeats exactly whatever else the \
         machine is doing, so one run tells it. \"Unknown fields kept\" is what kubeforge's \
         default crate counts more than the same crate generated with \
         `--drop-unknown-fields`. Targets: ≤ {TARGET_SERDE_INSTRUCTIONS}× k8s-openapi's \
         instructions, and keeping unknown fields ≤ {TARGET_UNKNOWN_FIELDS_INSTRUCTIONS}% \
         more.\n"
    );
    let _ = writeln!(
        w,
        "| fixture | deserialize: kubeforge | k8s-openapi | ratio | serialize: kubeforge | k8s-openapi | ratio | unknown fields kept: deserialize, serialize |\n|---|---|---|---|---|---|---|---|"
    );
    for i in &serde.instructions {
        #[allow(clippy::cast_precision_loss)]
        let r = |a: u64, b: u64| a as f64 / b as f64;
        let _ = writeln!(
            w,
            "| {} ({} bytes) | {} | {} | **{}** | {} | {} | **{}** | {:+.1}%, {:+.1}% |",
            i.name,
            i.in_bytes,
            i.ours[0],
            i.peer[0],
            show_ratio(r(i.ours[0], i.peer[0])),
            i.ours[1],
            i.peer[1],
            show_ratio(r(i.ours[1], i.peer[1])),
            (r(i.ours[0], i.ours_drop[0]) - 1.0) * 100.0,
            (r(i.ours[1], i.ours_drop[1]) - 1.0) * 100.0,
        );
    }
    let _ = writeln!(w);
}

fn render_server(w: &mut String, server: &super::sections::Server) -> Out {
    let _ = writeln!(
        w,
        "## h. The in-memory server: a CRD served after its create\n\n\
         `kubeforge-server`'s own bench (`cargo bench -p kubeforge-server --bench crds`, \
         release): a server of the whole Kubernetes 1.36 API (`swagger.json` through the \
         generator's model), in process with one client; each CRD is `POST`ed, then its \
         resource is listed until it answers `200`. {} per CRD, each on a fresh server. CPU \
         is the process's user + system time over the same span. No peer runs in process \
         (envtest starts etcd and a real API server).\n",
        plural(server.runs, "run")
    );
    let _ = writeln!(
        w,
        "| CRD | JSON body | served after, wall (ms) | CPU (ms) |\n|---|---|---|---|"
    );
    for crd in &server.crds.crds {
        #[allow(clippy::cast_precision_loss)] // a CRD is far below 2^52 bytes
        let kb = crd.bytes as f64 / 1000.0;
        let _ = writeln!(
            w,
            "| {} ({}) | {kb:.0} KB | {} | {} |",
            crd.file,
            crd.source,
            Stat::of(&crd.file, &crd.wall_ms)?.show(1),
            Stat::of(&crd.file, &crd.cpu_ms)?.show(1)
        );
    }
    let _ = writeln!(
        w,
        "\nUnder concurrency (`server/tests/stress.rs`, `--profile bench`, one run): the binary \
         on loopback, 8 writers over HTTP and a watcher per resource: {}.",
        server.stress
    );
    let _ = writeln!(w);
    Ok(())
}

fn render_simulation(w: &mut String, simulated: &super::sections::Simulated) -> Out {
    let s = &simulated.report;
    let _ = writeln!(
        w,
        "## i. The simulated cluster\n\n\
         `kubeforge-server`'s own bench (`cargo bench -p kubeforge-server --bench \
         simulated_cluster`, release): a server of the whole Kubernetes 1.36 API with the \
         simulation on (`Options::simulation`), in process with one client. {} Deployments \
         of {} replicas are `POST`ed on {} simulated nodes; the time runs until every \
         Deployment's `readyReplicas` is {}: every Pod made by its ReplicaSet, bound by the \
         scheduler, run and made ready by its kubelet. Then {} ConfigMaps are created one \
         after the other on a fresh server with the simulation off, and on one with it on \
         (three idle nodes, its thread looking for work every 50 ms). CPU is the process's \
         user + system time, every thread. {}, each on fresh servers.\n",
        s.deployments,
        s.replicas,
        s.nodes,
        s.replicas,
        s.creates,
        plural(simulated.runs, "run")
    );
    let _ = writeln!(w, "| measure | wall | CPU (ms) |\n|---|---|---|");
    let _ = writeln!(
        w,
        "| {} Pods of {} Deployments on {} nodes, created to all Ready | {} ms | {} |",
        s.deployments * s.replicas,
        s.deployments,
        s.nodes,
        Stat::of("ready wall", &s.ready_wall_ms)?.show(0),
        Stat::of("ready CPU", &s.ready_cpu_ms)?.show(0)
    );
    let _ = writeln!(
        w,
        "| {} ConfigMap creates, simulation off | {} creates/s | {} |",
        s.creates,
        Stat::of("off", &s.off_per_s)?.show(0),
        Stat::of("off CPU", &s.off_cpu_ms)?.show(0)
    );
    let _ = writeln!(
        w,
        "| {} ConfigMap creates, simulation on | {} creates/s | {} |",
        s.creates,
        Stat::of("on", &s.on_per_s)?.show(0),
        Stat::of("on CPU", &s.on_cpu_ms)?.show(0)
    );
    let _ = writeln!(w);
    Ok(())
}

fn render_routes(w: &mut String, r: &Routes) -> Out {
    let templates = r
        .workloads
        .first()
        .and_then(|(_, [ours, _])| ours.first())
        .map_or(0, |x| x.templates);
    let _ = writeln!(
        w,
        "## d. Route matching\n\n\
         Both matchers hold all {templates} path templates of `swagger.json`. Two workloads of \
         {REQUESTS} concrete requests (method and path, parameters filled with random names, \
         fixed seed), {} over them per run: **uniform** draws a template uniformly and \
         one of its methods; **common** draws uniformly among the 20 request shapes that \
         dominate a real cluster's traffic (list, get and watch of pods, nodes, leases, config \
         maps, secrets, services, endpoint slices, deployments and replica sets; status \
         patches; lease renewals; events; service-account tokens; the list is `COMMON` in \
         `xtask/bench-harness/main.rs`). kubeforge's generated `routes::resolve(&Method, path)` \
         against matchit 0.9 holding the same templates, followed by a lookup of the method \
         among the template's (what the generated matcher's leaves do). Before timing, both \
         answers (template and parameter values) were asserted identical on every request.\n",
        plural(r.passes, "pass")
    );
    let _ = writeln!(
        w,
        "| workload | matcher | matches/s (millions) | ns per match |\n|---|---|---|---|"
    );
    let mut ratios = Vec::new();
    for (workload, [ours, theirs]) in &r.workloads {
        let shapes = ours.first().map_or(0, |x| x.shapes);
        let per_s = |runs| {
            Stat::field("matches_per_s", runs, |x: &super::protocol::Routes| {
                x.matches_per_s / 1e6
            })
        };
        for (label, runs) in [
            ("kubeforge `routes::resolve`", ours),
            ("matchit 0.9", theirs),
        ] {
            let _ = writeln!(
                w,
                "| {workload} ({shapes} shapes) | {label} | {} | {} |",
                per_s(runs)?.show(2),
                Stat::field("ns_per_match", runs, |x| x.ns_per_match)?.show(1)
            );
        }
        ratios.push((*workload, per_s(ours)?.ratio(&per_s(theirs)?)));
    }
    let _ = writeln!(w);
    for (workload, ratio) in ratios {
        let _ = writeln!(
            w,
            "kubeforge ÷ matchit, {workload} (medians): **{}**. Target ≥ {TARGET_ROUTES}×: {}.\n",
            show_ratio(ratio),
            verdict(ratio >= TARGET_ROUTES)
        );
    }
    Ok(())
}

fn render_features(w: &mut String, f: &Features) -> Out {
    let _ = writeln!(
        w,
        "## e. Compile time by API group\n\n\
         The crate generated from `swagger.json` with `--group-features` (one cargo feature per \
         API group; operations whose body or response lives in another group compile only \
         with both), built clean in the dev profile (`cargo clean -p`, then `cargo build`, \
         dependencies built, `CARGO_INCREMENTAL=0`) with `default-features = false` and only \
         some groups, against k8s-openapi {K8S_OPENAPI} with feature `v1_36`, which cannot \
         leave groups out, in the same run. CPU time is user + system of cargo and every \
         process it ran.\n"
    );
    let _ = writeln!(
        w,
        "| build | wall (s) | CPU (s) | ratio to k8s-openapi (wall) | ratio (CPU) |\n|---|---|---|---|---|"
    );
    let (pw, pc) = (
        stat("k8s-openapi", &f.peer, wall)?,
        stat("k8s-openapi", &f.peer, cpu)?,
    );
    for ((label, _), ours) in FEATURE_SETS.iter().zip(&f.ours) {
        let (ow, oc) = (stat(label, ours, wall)?, stat(label, ours, cpu)?);
        let _ = writeln!(
            w,
            "| kubeforge, {label} | {} | {} | {} | {} |",
            ow.show(1),
            oc.show(1),
            show_ratio(ow.ratio(&pw)),
            show_ratio(oc.ratio(&pc))
        );
    }
    let _ = writeln!(
        w,
        "| k8s-openapi, `v1_36` | {} | {} | 1.00× | 1.00× |\n",
        pw.show(1),
        pc.show(1)
    );
    Ok(())
}

fn render_unknown_fields(w: &mut String, u: &UnknownFields) -> Out {
    let _ = writeln!(
        w,
        "## f. What keeping unknown fields costs\n\n\
         The crate generated from `swagger.json` with the defaults (every struct keeps the keys \
         it does not know in `unknown_fields` and writes them back) against the same with \
         `--drop-unknown-fields` (`Config::unknown_fields(false)`), in the same run: a clean \
         dev build of each (as in b), and serde throughput on the fixtures of c (as in c, the \
         median of {} per run; the fixtures hold no unknown fields, so this is the cost of \
         being able to keep them).\n",
        plural(u.iterations, "iteration")
    );
    let _ = writeln!(
        w,
        "| | kept (default) | dropped | change |\n|---|---|---|---|"
    );
    let [kept, dropped] = &u.output;
    #[allow(clippy::cast_precision_loss)]
    let _ = writeln!(
        w,
        "| generated lines | {} | {} | {} |",
        kept.lines,
        dropped.lines,
        show_change(kept.lines as f64, dropped.lines as f64)
    );
    let [bk, bd] = &u.builds;
    for (label, field) in [
        ("clean dev build, wall (s)", wall as fn(&Usage) -> f64),
        ("clean dev build, CPU (s)", cpu),
    ] {
        let (k, d) = (stat(label, bk, field)?, stat(label, bd, field)?);
        let _ = writeln!(
            w,
            "| {label} | {} | {} | {} |",
            k.show(2),
            d.show(2),
            show_change(k.median, d.median)
        );
    }
    for (name, [k, d]) in &u.serde {
        for (label, field) in [
            (
                "deserialize (MB/s)",
                (|r: &super::protocol::Serde| r.de_mbps) as fn(&super::protocol::Serde) -> f64,
            ),
            ("serialize (MB/s)", |r| r.ser_mbps),
        ] {
            let (ks, ds) = (Stat::field(label, k, field)?, Stat::field(label, d, field)?);
            let _ = writeln!(
                w,
                "| {name}, {label} | {} | {} | {} |",
                ks.show(0),
                ds.show(0),
                show_change(ks.median, ds.median)
            );
        }
    }
    let _ = writeln!(w);
    Ok(())
}

fn render_crds(w: &mut String, c: &Crds) -> Out {
    let _ = writeln!(
        w,
        "## g. CRDs against kopium\n\n\
         Each CRD file of the corpus (`../shared/corpus/crds/`, provenance in its `SOURCE.md`) \
         and the extra CRDs below, generated by the release `kubeforge` binary (every served \
         version of every CRD in the file, one process, a crate with types, builders and \
         serde impls) and by kopium {KOPIUM} from crates.io (`cargo install kopium --version \
         ={KOPIUM}` into the throwaway project; `--docs`, once per CRD version with \
         `--api-version`, since kopium writes one version per process: its times are the sum \
         of its processes and its peak the largest). Generation is the whole process, wall \
         time, with its peak resident set. Lines and types count the `.rs` files written \
         (`pub struct` and `pub enum` lines; kopium's `CustomResource` derive adds the root \
         kind's struct unseen). The dev build is a clean `cargo build` of the crate alone, \
         dependencies built, `CARGO_INCREMENTAL=0`: kubeforge's crate against one holding \
         kopium's output, which depends on kube {KUBE} (derive) and k8s-openapi {K8S_OPENAPI}. \
         Generation is reported as information: issue 32 retired its target (tens of \
         milliseconds per process, which no user feels) in favour of the dev build's and of \
         a build script's rerun with no change (below).\n"
    );
    if !c.missing.is_empty() {
        let list: Vec<String> = c.missing.iter().map(|f| format!("`{f}`")).collect();
        let _ = writeln!(
            w,
            "**SKIPPED: the extra CRDs are missing from {}: {}.** Fetch them (provenance below) \
             and set `KUBEFORGE_EXTRA_CRDS` to their directory.\n",
            c.extra_dir,
            list.join(", ")
        );
    }
    let _ = writeln!(
        w,
        "| CRD file | CRDs / versions | lines, kubeforge | lines, kopium | types, kubeforge | types, kopium | generate, kubeforge (s) | generate, kopium (s) | ratio | peak, kubeforge (MiB) | peak, kopium (MiB) | dev build, kubeforge (s) | dev build, kopium (s) | ratio |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for row in &c.rows {
        let [gk, gc] = &row.generation;
        let [bk, bc] = &row.build;
        let label = &row.file.label;
        let (gks, gcs) = (stat(label, gk, wall)?, stat(label, gc, wall)?);
        let (bks, bcs) = (stat(label, bk, wall)?, stat(label, bc, wall)?);
        let [ok, oc] = &row.output;
        let _ = writeln!(
            w,
            "| {label}{} | {} / {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            if row.file.extra { " (extra)" } else { "" },
            row.file.crds.len(),
            row.file.versions(),
            ok.lines,
            oc.lines,
            ok.types,
            oc.types,
            gks.show(3),
            gcs.show(3),
            show_ratio(gks.ratio(&gcs)),
            stat(label, gk, mib)?.show(0),
            stat(label, gc, mib)?.show(0),
            bks.show(1),
            bcs.show(1),
            show_ratio(bks.ratio(&bcs)),
        );
    }
    let _ = writeln!(
        w,
        "\nThe ratios are kubeforge ÷ kopium (medians). The extra CRDs (read from {}: \
         `$KUBEFORGE_EXTRA_CRDS` if set, else `../shared/extra-crds/`; not committed) come \
         from:\n",
        c.extra_dir
    );
    let _ = writeln!(
        w,
        "| file | repository | commit | path |\n|---|---|---|---|"
    );
    for (file, repo, commit, path) in EXTRA_CRDS {
        let _ = writeln!(w, "| {file} | {repo} | {commit} | {path} |");
    }
    let _ = writeln!(w);
    if let Some(r) = &c.rerun {
        render_rerun(w, r)?;
    }
    Ok(())
}

/// The build script's rerun of g.
fn render_rerun(w: &mut String, r: &Rerun) -> Out {
    let _ = writeln!(
        w,
        "### A build script's rerun with no change\n\n\
         What a user feels when a build script's input is touched but not changed (a checkout, \
         a formatter, an editor saving): a throwaway crate (`target/bench-peers/{RERUN}/`) \
         whose `build.rs` generates `{}` with the `kubeforge` library of this repository \
         (`Config::compile` into `OUT_DIR`, `include!`d in `src/lib.rs`, as the guide's \
         build-script page shows; types, builders, routes, validation), built as in b \
         (profiles' defaults, `CARGO_INCREMENTAL=0`; so the build script and the `kubeforge` \
         library it links are unoptimized, as cargo builds build dependencies by default). Each run gives the CRD a new \
         modification time, same content, and runs `cargo build`: cargo reruns the build \
         script, which generates again and finds the include file unchanged, then rebuilds \
         what it decides to. The build script alone is its compiled binary run directly as \
         cargo runs it (in the package's directory, with `OUT_DIR`, `CARGO_MANIFEST_DIR` and \
         `CARGO` set, the variables it reads), alternating with the touched build; the \
         untouched `cargo build` is cargo's own floor. CPU time is user + system of the \
         process and every process it ran.\n",
        r.label
    );
    let _ = writeln!(
        w,
        "| | wall (s) | CPU (s) | peak (MiB) |\n|---|---|---|---|"
    );
    for (label, runs) in [
        ("`touch` the CRD, then `cargo build`", &r.touched),
        ("the build script alone", &r.script),
        ("`cargo build` with nothing changed", &r.noop),
    ] {
        let _ = writeln!(
            w,
            "| {label} | {} | {} | {} |",
            stat(label, runs, wall)?.show(3),
            stat(label, runs, cpu)?.show(3),
            stat(label, runs, mib)?.show(0)
        );
    }
    let (touched, script, noop) = (
        stat("touched", &r.touched, wall)?.median,
        stat("script", &r.script, wall)?.median,
        stat("noop", &r.noop, wall)?.median,
    );
    let _ = writeln!(
        w,
        "\nOf the touched build's {touched:.3} s (wall medians), the build script takes \
         {script:.3} s and cargo's own floor {noop:.3} s; the rest, {:.3} s, is what cargo \
         rebuilds after the script ran.",
        touched - script - noop
    );
    let reruns = r.touched.len() + r.script.len();
    let _ = writeln!(
        w,
        "The include file ({} lines) was rewritten in {} of {reruns} reruns of the build \
         script{}. cargo recompiled the crate itself in {} of {} touched builds{}.\n",
        r.output.lines,
        r.rewritten,
        if r.rewritten == 0 {
            " (kubeforge writes a file only when its content changed, so it keeps its \
             modification time)"
        } else {
            ": **kubeforge promises never to rewrite an unchanged file**"
        },
        r.recompiled,
        r.touched.len(),
        if r.recompiled == 0 {
            ""
        } else {
            " (cargo recompiles a package whose build script ran, whatever the script wrote)"
        },
    );
    Ok(())
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
    let rustc = command_output(
        Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into())).arg("--version"),
    );
    let commit = command_output(
        Command::new("git")
            .args(["rev-parse", "--short", "HEAD"])
            .current_dir(&paths.root),
    );
    let lock = std::fs::read_to_string(paths.harness_dir.join("Cargo.lock")).unwrap_or_default();
    let pb_lock = std::fs::read_to_string(paths.bench.join(HARNESS_PB).join("Cargo.lock"))
        .unwrap_or_default();
    let version = |name: &str| {
        let found = locked_version(&lock, name);
        if found == "unknown" {
            locked_version(&pb_lock, name)
        } else {
            found
        }
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
        "| peers | k8s-openapi {} (feature `v1_36`), k8s-pb {}, matchit {}, kopium {KOPIUM} |",
        version("k8s-openapi"),
        version("k8s-pb"),
        version("matchit")
    );
    let _ = writeln!(
        w,
        "| shared | serde {}, serde_json {} |\n",
        version("serde"),
        version("serde_json")
    );
}

fn command_output(command: &mut Command) -> String {
    command
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or_else(
            || "unknown".to_owned(),
            |o| String::from_utf8_lossy(&o.stdout).trim().to_owned(),
        )
}

/// The version of `name` in a Cargo.lock, or `unknown`.
fn locked_version(lock: &str, name: &str) -> String {
    let needle = format!("name = \"{name}\"\nversion = \"");
    lock.find(&needle)
        .and_then(|at| {
            lock[at + needle.len()..]
                .split('"')
                .next()
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(wall_s: f64) -> Usage {
        Usage {
            wall_s,
            user_s: wall_s,
            sys_s: 0.0,
            maxrss_kib: 1024,
        }
    }

    fn codec(
        decode_per_s: f64,
        encode_per_s: f64,
        heap_per_object: f64,
    ) -> super::super::protocol::Codec {
        super::super::protocol::Codec {
            objects: 2000,
            in_bytes: 1000,
            out_bytes: 1000,
            decode_per_s,
            encode_per_s,
            heap_per_object,
            round_trip: true,
        }
    }

    #[test]
    fn protobuf_is_judged_against_k8s_openapis_json_and_k8s_pb() {
        let fixture = |k8s_pb_decode: f64| super::super::sections::CodecFixture {
            name: "Pod",
            runs: [
                vec![codec(30_000.0, 50_000.0, 900.0)],
                vec![codec(k8s_pb_decode, 40_000.0, 800.0)],
                vec![codec(9_000.0, 30_000.0, 1000.0)],
                vec![codec(10_000.0, 30_000.0, 1000.0)],
            ],
            instructions: [[100_000, 50_000], [110_000, 60_000]],
        };
        let serde = |k8s_pb_decode| Serde {
            fixtures: Vec::new(),
            iterations: 1,
            instructions: vec![super::super::sections::Instructions {
                name: "Pod",
                in_bytes: 1000,
                ours: [300_000, 200_000],
                peer: [400_000, 210_000],
                ours_drop: [300_000, 200_000],
            }],
            protobuf: vec![fixture(k8s_pb_decode)],
        };
        let mut w = String::new();
        render_protobuf(&mut w, &serde(25_000.0)).unwrap();
        assert!(
            w.contains("| Pod | kubeforge, protobuf | 30000 | 50000 | 900 | 1000 | yes |"),
            "{w}"
        );
        assert!(
            w.contains("| Pod | 1000 | 1100 | 3000 | 4000 | 500 | 600 | 2000 | 2100 |"),
            "{w}"
        );
        assert!(
            w.contains("| Pod | **3.00×** | **1.20×** | **1.25×** | **0.90×** | **met** |"),
            "{w}"
        );
        let mut w = String::new();
        render_protobuf(&mut w, &serde(31_000.0)).unwrap();
        assert!(
            w.contains("| **0.97×** | **1.25×** | **0.90×** | **not met** |"),
            "{w}"
        );
    }

    #[test]
    fn the_simulated_cluster_section_gives_the_rollout_and_both_throughputs() {
        let simulated = super::super::sections::Simulated {
            report: super::super::protocol::ServerSimulation {
                nodes: 10,
                deployments: 10,
                replicas: 100,
                ready_wall_ms: vec![900.0, 1100.0, 1000.0],
                ready_cpu_ms: vec![700.0, 700.0, 700.0],
                creates: 500,
                off_per_s: vec![5000.0, 5000.0, 5000.0],
                off_cpu_ms: vec![100.0, 100.0, 100.0],
                on_per_s: vec![4000.0, 4000.0, 4000.0],
                on_cpu_ms: vec![125.0, 125.0, 125.0],
            },
            runs: 3,
        };
        let mut w = String::new();
        render_simulation(&mut w, &simulated).unwrap();
        assert!(w.starts_with("## i. The simulated cluster\n"), "{w}");
        assert!(
            w.contains("10 Deployments of 100 replicas are `POST`ed on 10 simulated nodes"),
            "{w}"
        );
        assert!(
            w.contains("| 1000 Pods of 10 Deployments on 10 nodes, created to all Ready | 1000"),
            "{w}"
        );
        assert!(
            w.contains("| 500 ConfigMap creates, simulation off | 5000 creates/s | 100 |"),
            "{w}"
        );
        assert!(
            w.contains("| 500 ConfigMap creates, simulation on | 4000 creates/s | 125 |"),
            "{w}"
        );
    }

    #[test]
    fn a_build_scripts_rerun_says_what_was_rewritten_and_recompiled() {
        let mut rerun = Rerun {
            label: "cert-manager-Certificate.yaml".to_owned(),
            touched: vec![usage(1.5), usage(1.25)],
            noop: vec![usage(0.125), usage(0.125)],
            script: vec![usage(0.0625), usage(0.0625)],
            recompiled: 2,
            rewritten: 0,
            output: super::super::measure::Output {
                files: 1,
                lines: 9000,
                types: 60,
            },
        };
        let mut w = String::new();
        render_rerun(&mut w, &rerun).unwrap();
        assert!(
            w.contains("generates `cert-manager-Certificate.yaml`"),
            "{w}"
        );
        assert!(
            w.contains("| `touch` the CRD, then `cargo build` | 1.375 (1.250–1.500) | 1.375 (1.250–1.500) | 1 |"),
            "{w}"
        );
        assert!(
            w.contains("| the build script alone | 0.062 | 0.062 | 1 |"),
            "{w}"
        );
        assert!(
            w.contains("| `cargo build` with nothing changed | 0.125 |"),
            "{w}"
        );
        assert!(
            w.contains("Of the touched build's 1.375 s (wall medians), the build script takes 0.062 s and cargo's own floor 0.125 s; the rest, 1.188 s, is what cargo rebuilds"),
            "{w}"
        );
        assert!(
            w.contains("The include file (9000 lines) was rewritten in 0 of 4 reruns of the build script (kubeforge writes"),
            "{w}"
        );
        assert!(
            w.contains("recompiled the crate itself in 2 of 2 touched builds (cargo recompiles"),
            "{w}"
        );
        rerun.rewritten = 1;
        let mut w = String::new();
        render_rerun(&mut w, &rerun).unwrap();
        assert!(
            w.contains("rewritten in 1 of 4 reruns of the build script: **kubeforge promises"),
            "{w}"
        );
    }

    #[test]
    fn words_and_durations() {
        assert_eq!(plural(1, "pass"), "1 pass");
        assert_eq!(plural(20, "pass"), "20 passes");
        assert_eq!(plural(5, "iteration"), "5 iterations");
        assert_eq!(minutes(Duration::from_secs(42)), "42 s");
        assert_eq!(minutes(Duration::from_secs(185)), "3 min 05 s");
        let lock = "[[package]]\nname = \"matchit\"\nversion = \"0.9.2\"\n";
        assert_eq!(locked_version(lock, "matchit"), "0.9.2");
        assert_eq!(locked_version(lock, "kopium"), "unknown");
    }
}
