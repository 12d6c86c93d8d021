//! What the harness reports: one JSON object on standard output per invocation, one type per
//! command. The same file is compiled into the harness (which serializes) and into the xtask
//! (which parses strictly: every field required, no other field accepted, so a missing or
//! misspelled value is an error naming it, never a silent default).

use serde::{Deserialize, Serialize};

/// Untimed decodes before the timed ones, so that they run on the heap a long-running
/// client decodes on. glibc gives a freed heap top back to the system and adjusts its
/// thresholds over the first frees: measured on 2,000 Nodes a decode (branch `pbspeed2`,
/// page faults and CPU time per decode), the first two decodes after the heap measurement
/// fault in the whole decoded value and the next two the list's `Vec`, then none do; those
/// faults cost every contender about the same milliseconds, which a mean of cold decodes
/// adds to each.
pub const WARM_UP: usize = 4;

/// `harness rusage …`: one finished process and everything it waited for.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// Wall-clock seconds from spawning to exit.
    pub wall_s: f64,
    /// User CPU seconds of the process and its waited-for descendants.
    pub user_s: f64,
    /// System CPU seconds of the same.
    pub sys_s: f64,
    /// The largest resident set among them, in KiB (`ru_maxrss`).
    pub maxrss_kib: u64,
}

/// `harness serde <ours|ours-drop|peer> …`: a typed contender on one fixture.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Serde {
    /// Bytes of the JSON array deserialized.
    pub in_bytes: u64,
    /// Bytes the contender serialized it back to.
    pub out_bytes: u64,
    /// Deserializing throughput, MB/s of input, of the process's figure (the median timed
    /// decode: `common::figure`).
    pub de_mbps: f64,
    /// Serializing throughput, MB/s of output, of the median timed encode.
    pub ser_mbps: f64,
    /// Seconds of each timed decode, in order.
    pub de_s: Vec<f64>,
    /// Seconds of each timed encode, in order.
    pub ser_s: Vec<f64>,
    /// Whether the output equals the input as `serde_json::Value`s.
    pub round_trip: bool,
}

/// `harness serde floor …`: `serde_json::from_slice::<IgnoredAny>` over the same bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SerdeFloor {
    /// Bytes of the JSON array.
    pub in_bytes: u64,
    /// Throughput, MB/s of input, of the median timed parse.
    pub de_mbps: f64,
    /// Seconds of each timed parse, in order.
    pub de_s: Vec<f64>,
}

/// `harness instructions …`: what the counted call read or wrote.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counted {
    /// Bytes of the JSON array.
    pub in_bytes: u64,
    /// Bytes serialized (0 when only deserializing).
    pub out_bytes: u64,
}

/// `harness protobuf <ours-pb|k8s-pb|ours-json|peer-json> …`: a list of one fixture decoded
/// and encoded, in protobuf or JSON.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Codec {
    /// Objects in the list.
    pub objects: u64,
    /// Bytes of the input (the list in its envelope, or the JSON array).
    pub in_bytes: u64,
    /// Bytes encoded back.
    pub out_bytes: u64,
    /// Objects decoded per second.
    pub decode_per_s: f64,
    /// Objects encoded per second.
    pub encode_per_s: f64,
    /// Heap bytes the decoded list holds, per object (glibc's `mallinfo2`, after one decode
    /// against before it).
    pub heap_per_object: f64,
    /// Whether the output is the input (the same message in protobuf, the same JSON value).
    pub round_trip: bool,
}

/// `harness routes …`: one matcher over one workload.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Routes {
    /// Path templates the matcher holds (every template of the document).
    pub templates: u64,
    /// Distinct (method, template) shapes the requests were drawn from.
    pub shapes: u64,
    /// Requests per pass.
    pub requests: u64,
    /// Matches per second over every pass.
    pub matches_per_s: f64,
    /// Nanoseconds per match.
    pub ns_per_match: f64,
}

/// `cargo bench -p kubeforge-server --bench crds -- --json`: each CRD created through the
/// in-memory server's API and served (not a harness command: the server's own bench prints
/// it, with this same file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerCrds {
    /// One per CRD file, in the order measured.
    pub crds: Vec<ServerCrd>,
}

/// One CRD's runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerCrd {
    /// The file's name.
    pub file: String,
    /// `corpus` (the corpus's CRDs) or `extra` (the extra CRDs).
    pub source: String,
    /// Bytes of the CRD as the JSON body sent.
    pub bytes: u64,
    /// Per run: milliseconds from the create's `POST` to the first `200` on its resource.
    pub wall_ms: Vec<f64>,
    /// Per run: the process's CPU milliseconds over the same span.
    pub cpu_ms: Vec<f64>,
}

/// `cargo bench -p kubeforge-server --bench simulated_cluster -- --json`: the simulated cluster
/// (the server's own bench, like `ServerCrds`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSimulation {
    /// Simulated nodes.
    pub nodes: u64,
    /// Deployments created.
    pub deployments: u64,
    /// Replicas of each.
    pub replicas: u64,
    /// Per run: milliseconds from the first Deployment's `POST` to every Deployment's
    /// `readyReplicas` at its `replicas`.
    pub ready_wall_ms: Vec<f64>,
    /// Per run: the process's CPU milliseconds over the same span.
    pub ready_cpu_ms: Vec<f64>,
    /// ConfigMaps created, one after the other, in each throughput run.
    pub creates: u64,
    /// Per run: creates per second with the simulation off.
    pub off_per_s: Vec<f64>,
    /// Per run: the process's CPU milliseconds for them, simulation off.
    pub off_cpu_ms: Vec<f64>,
    /// Per run: creates per second with the simulation on (its nodes idle).
    pub on_per_s: Vec<f64>,
    /// Per run: the process's CPU milliseconds for them, simulation on.
    pub on_cpu_ms: Vec<f64>,
}
