//! The measurement program of `cargo xtask bench`. It is not part of the workspace: the xtask
//! copies it (with `protocol.rs` and `common.rs`) into a throwaway cargo project under
//! `target/bench-peers/harness/`, next to the peers it measures (k8s-openapi, matchit) and the
//! generated full-Kubernetes crates, and builds it in release. Each invocation measures one
//! thing for one contender and prints exactly one JSON object (a type of `protocol.rs`) on
//! standard output, which the xtask parses strictly; the xtask alternates the contenders.
//! The protobuf contenders are a second program (`protobuf.rs`, the project `harness-pb`),
//! so that this one's `kubeforge-runtime`, and so the JSON contenders, are built without the
//! runtime's `protobuf` feature, as a user of JSON builds them.
//!
//! harness rusage [--stdout FILE] <program> <args…>   run a program (its stdout to FILE, else
//!                                                      to stderr); wall/CPU seconds, peak RSS
//! harness parse <file>                                the floor of generation: serde_json into a Value
//! harness serde <ours|ours-drop|peer|floor> <fixture> <copies> <iterations>
//! harness routes <ours|table|matchit> <uniform|common> <swagger.json> <requests> <seed> <passes>
//!                                                      `table`: the runtime's trie of the
//!                                                      route table (`ROUTES.resolve`), not
//!                                                      in section d's report
//! harness instructions <ours|ours-drop|peer> <fixture> <copies> <deserialize|serialize>
//!                                                      one call of `counted_<what>`, for
//!                                                      callgrind's `--toggle-collect`
//! harness protobuf <ours-json|peer-json> <fixture> <copies> <iterations>
//!                                                      the JSON side of the protobuf
//!                                                      comparison: objects/s, heap held per object

mod common;
mod protocol;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::{codec, counted, figure, kind, number, report, serializing, timed};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["rusage", "--stdout", file, program, rest @ ..] => rusage(Some(file), program, rest),
        ["rusage", program, rest @ ..] => rusage(None, program, rest),
        ["parse", file] => parse(file),
        ["serde", who, fixture, copies, iterations] => serde_bench(
            who,
            fixture,
            number(copies, "copies"),
            number(iterations, "iterations"),
        ),
        ["instructions", who, fixture, copies, what] => {
            instructions(who, fixture, number(copies, "copies"), what);
        }
        ["protobuf", who, fixture, copies, iterations] => protobuf_json(
            who,
            fixture,
            number(copies, "copies"),
            number(iterations, "iterations"),
        ),
        ["routes", who, workload, swagger, requests, seed, passes] => routes(
            who,
            workload,
            swagger,
            number(requests, "requests"),
            number(seed, "seed"),
            number(passes, "passes"),
        ),
        _ => {
            eprintln!("usage: see the doc comment of bench-harness/main.rs; got {args:?}");
            std::process::exit(2);
        }
    }
}

/// Runs `program` and reports its wall time, CPU time and the peak resident set of it and
/// every descendant it waited for (`RUSAGE_CHILDREN` of this fresh process). The program's
/// standard output goes to `stdout` or to this process's standard error, never into the report.
fn rusage(stdout: Option<&str>, program: &str, args: &[&str]) {
    let out = match stdout {
        Some(file) => std::process::Stdio::from(std::fs::File::create(file).expect("stdout file")),
        None => std::process::Stdio::from(std::io::stderr()),
    };
    let start = Instant::now();
    let status = std::process::Command::new(program)
        .args(args)
        .stdout(out)
        .status()
        .expect("cannot run the program");
    let wall = start.elapsed();
    assert!(status.success(), "{program} failed: {status}");
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage), 0);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    report(&protocol::Usage {
        wall_s: wall.as_secs_f64(),
        user_s: seconds(usage.ru_utime),
        sys_s: seconds(usage.ru_stime),
        maxrss_kib: u64::try_from(usage.ru_maxrss).expect("ru_maxrss"),
    });
}

fn parse(file: &str) {
    let bytes = std::fs::read(file).expect("read");
    let value: serde_json::Value = serde_json::from_slice(&bytes).expect("parse");
    black_box(&value);
}

/// The fixture, minified, `copies` times in one JSON array.
fn list_of(fixture: &str, copies: usize) -> Vec<u8> {
    let value: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture).expect("read fixture")).expect("fixture");
    let one = serde_json::to_vec(&value).expect("minify");
    let mut list = Vec::with_capacity((one.len() + 1) * copies + 2);
    list.push(b'[');
    for i in 0..copies {
        if i > 0 {
            list.push(b',');
        }
        list.extend_from_slice(&one);
    }
    list.push(b']');
    list
}

/// `$call::<Vec<T>>($args…)` with `T` the fixture's kind in `$who`'s crate: `ours` (the
/// default crate), `ours-drop` (`--drop-unknown-fields`) or `peer` (k8s-openapi).
macro_rules! with_json_type {
    ($who:expr, $kind:expr, $call:ident($($arg:expr),*)) => {
        match ($who, $kind) {
            ("ours", "core.v1.Pod.json") => $call::<Vec<kube_api_gen::api::core::v1::Pod>>($($arg),*),
            ("ours", "apps.v1.Deployment.json") => $call::<Vec<kube_api_gen::api::apps::v1::Deployment>>($($arg),*),
            ("ours", "core.v1.Node.json") => $call::<Vec<kube_api_gen::api::core::v1::Node>>($($arg),*),
            ("ours-drop", "core.v1.Pod.json") => $call::<Vec<kube_api_drop::api::core::v1::Pod>>($($arg),*),
            ("ours-drop", "apps.v1.Deployment.json") => $call::<Vec<kube_api_drop::api::apps::v1::Deployment>>($($arg),*),
            ("ours-drop", "core.v1.Node.json") => $call::<Vec<kube_api_drop::api::core::v1::Node>>($($arg),*),
            ("peer", "core.v1.Pod.json") => $call::<Vec<k8s_openapi::api::core::v1::Pod>>($($arg),*),
            ("peer", "apps.v1.Deployment.json") => $call::<Vec<k8s_openapi::api::apps::v1::Deployment>>($($arg),*),
            ("peer", "core.v1.Node.json") => $call::<Vec<k8s_openapi::api::core::v1::Node>>($($arg),*),
            (who, kind) => panic!("no type for {who} {kind}"),
        }
    };
}

fn json_decode<T: serde::de::DeserializeOwned>(input: &[u8]) -> T {
    serde_json::from_slice(input).expect("deserialize")
}

fn json_encode<T: serde::Serialize>(value: &T, out: &mut Vec<u8>) {
    serde_json::to_writer(out, value).expect("serialize");
}

fn same_json(a: &[u8], b: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(a).ok()
        == serde_json::from_slice::<serde_json::Value>(b).ok()
}

fn serde_bench(who: &str, fixture: &str, copies: usize, iterations: usize) {
    let input = list_of(fixture, copies);
    if who == "floor" {
        let de = time(iterations, || {
            serde_json::from_slice::<serde::de::IgnoredAny>(&input).expect("floor")
        });
        return report(&protocol::SerdeFloor {
            in_bytes: input.len() as u64,
            de_mbps: mb(input.len(), figure(&de)),
            de_s: seconds(&de),
        });
    }
    let t = with_json_type!(who, kind(fixture), typed(&input, iterations));
    report(&protocol::Serde {
        in_bytes: input.len() as u64,
        out_bytes: t.out.len() as u64,
        de_mbps: mb(input.len(), figure(&t.de)),
        ser_mbps: mb(t.out.len(), figure(&t.ser)),
        de_s: seconds(&t.de),
        ser_s: seconds(&t.ser),
        round_trip: same_json(&input, &t.out),
    });
}

/// Deserializes `input` as `T` and serializes it back, `iterations` times each.
fn typed<T>(input: &[u8], iterations: usize) -> common::Timed
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    timed(input, iterations, json_decode::<T>, json_encode::<T>)
}

/// Deserializes or serializes `copies` of `fixture` once, as `who`'s type, inside
/// `counted_deserialize` or `counted_serialize` (see `common::counted`).
fn instructions(who: &str, fixture: &str, copies: usize, what: &str) {
    let input = list_of(fixture, copies);
    let serialize = serializing(what);
    let out_bytes = with_json_type!(who, kind(fixture), counted_json(&input, serialize));
    report(&protocol::Counted {
        in_bytes: input.len() as u64,
        out_bytes: out_bytes as u64,
    });
}

fn counted_json<T>(input: &[u8], serialize: bool) -> usize
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    counted(input, serialize, json_decode::<T>, json_encode::<T>)
}

/// The JSON contenders of the protobuf comparison: the fixture's JSON list, decoded and
/// encoded as in `serde`, reported as objects per second with the heap held per object.
fn protobuf_json(who: &str, fixture: &str, copies: usize, iterations: usize) {
    let input = list_of(fixture, copies);
    let who = match who {
        "ours-json" => "ours",
        "peer-json" => "peer",
        _ => panic!("expected ours-json or peer-json (the protobuf contenders are harness-pb's), got {who}"),
    };
    let result = with_json_type!(who, kind(fixture), json_codec(&input, copies, iterations));
    report(&result);
}

fn json_codec<T>(input: &[u8], objects: usize, iterations: usize) -> protocol::Codec
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    codec(input, objects, iterations, json_decode::<T>, json_encode::<T>, same_json)
}

/// Megabytes per second.
fn mb(bytes: usize, t: Duration) -> f64 {
    bytes as f64 / 1e6 / t.as_secs_f64()
}

/// Each time in seconds, in order (the report's record of every iteration).
fn seconds(times: &[Duration]) -> Vec<f64> {
    times.iter().map(Duration::as_secs_f64).collect()
}

/// Each of `iterations` calls of `f`, timed alone in the thread's CPU time.
fn time<R>(iterations: usize, mut f: impl FnMut() -> R) -> Vec<Duration> {
    (0..iterations)
        .map(|_| {
            let start = common::cpu_now();
            black_box(f());
            common::cpu_now() - start
        })
        .collect()
}

/// One concrete request: its method and path.
struct Request {
    method: http::Method,
    path: String,
}

/// A path template and the methods served there.
struct Template {
    path: String,
    methods: Vec<http::Method>,
}

fn templates(swagger: &str) -> Vec<Template> {
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(swagger).expect("read swagger")).expect("swagger");
    let paths = doc["paths"].as_object().expect("paths");
    let mut templates: Vec<Template> = paths
        .iter()
        .map(|(path, item)| {
            let methods = item
                .as_object()
                .expect("path item")
                .keys()
                .filter(|k| *k != "parameters")
                .map(|k| k.to_uppercase().parse().expect("method"))
                .collect();
            Template {
                path: path.clone(),
                methods,
            }
        })
        .collect();
    templates.sort_by(|a, b| a.path.cmp(&b.path));
    templates
}

/// splitmix64: a fixed, dependency-free generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The second workload: the request shapes (method, template) that dominate a real
/// cluster's traffic, from kubelets, controllers, leader election and `kubectl`: list, get
/// and watch (a watch is a GET of the list path) of pods, nodes, leases, config maps, secrets,
/// services, endpoint slices, deployments and replica sets; status patches; lease renewals;
/// events; service-account tokens.
const COMMON: [(&str, &str); 20] = [
    ("GET", "/api/v1/namespaces/{namespace}/pods"),
    ("GET", "/api/v1/namespaces/{namespace}/pods/{name}"),
    ("GET", "/api/v1/pods"),
    ("PATCH", "/api/v1/namespaces/{namespace}/pods/{name}/status"),
    ("GET", "/api/v1/nodes"),
    ("GET", "/api/v1/nodes/{name}"),
    ("PATCH", "/api/v1/nodes/{name}/status"),
    ("GET", "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}"),
    ("PUT", "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}"),
    ("GET", "/api/v1/namespaces/{namespace}/configmaps"),
    ("GET", "/api/v1/namespaces/{namespace}/configmaps/{name}"),
    ("GET", "/api/v1/namespaces/{namespace}/secrets/{name}"),
    ("GET", "/api/v1/services"),
    ("GET", "/apis/discovery.k8s.io/v1/endpointslices"),
    ("GET", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"),
    ("GET", "/apis/apps/v1/replicasets"),
    ("GET", "/api/v1/namespaces"),
    ("POST", "/api/v1/namespaces/{namespace}/events"),
    ("POST", "/apis/events.k8s.io/v1/namespaces/{namespace}/events"),
    ("POST", "/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token"),
];

/// What requests are drawn from: a template (by index) and the methods to draw among.
fn shapes(templates: &[Template], workload: &str) -> Vec<(usize, Vec<http::Method>)> {
    match workload {
        "uniform" => templates
            .iter()
            .enumerate()
            .map(|(index, t)| (index, t.methods.clone()))
            .collect(),
        "common" => COMMON
            .iter()
            .map(|(method, path)| {
                let index = templates
                    .iter()
                    .position(|t| t.path == *path)
                    .unwrap_or_else(|| panic!("{path}: not a template of the document"));
                let method: http::Method = method.parse().expect("method");
                assert!(
                    templates[index].methods.contains(&method),
                    "{method} {path}: not served"
                );
                (index, vec![method])
            })
            .collect(),
        _ => panic!("unknown workload {workload}: expected uniform or common"),
    }
}

/// `count` requests, each a shape drawn uniformly with one of its methods, its parameters
/// filled with short random names.
fn requests(
    templates: &[Template],
    shapes: &[(usize, Vec<http::Method>)],
    count: usize,
    seed: u64,
) -> Vec<Request> {
    let mut rng = Rng(seed);
    (0..count)
        .map(|_| {
            let (index, methods) = &shapes[rng.below(shapes.len())];
            let template = &templates[*index];
            let method = methods[rng.below(methods.len())].clone();
            let mut path = String::with_capacity(template.path.len() + 16);
            let mut rest = template.path.as_str();
            while let Some(open) = rest.find('{') {
                path.push_str(&rest[..open]);
                let close = rest[open..].find('}').expect("closing brace") + open;
                let len = 3 + rng.below(14);
                path.push_str("v-");
                for _ in 0..len {
                    path.push(char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.below(36)]));
                }
                rest = &rest[close + 1..];
            }
            path.push_str(rest);
            Request { method, path }
        })
        .collect()
}

/// What a matcher answered: the template and the parameter values, or nothing.
type Answer<'p> = Option<(&'static str, Vec<&'p str>)>;

fn ours(request: &Request) -> Answer<'_> {
    kube_api_gen::routes::resolve(&request.method, &request.path)
        .found()
        .map(|(route, params)| (route.info().path, params.iter().map(|(_, v)| v).collect()))
}

fn routes(who: &str, workload: &str, swagger: &str, count: usize, seed: u64, passes: usize) {
    let templates = templates(swagger);
    let shapes = shapes(&templates, workload);
    let shape_count = shapes.iter().map(|(_, methods)| methods.len()).sum::<usize>();
    let requests: &'static [Request] =
        Box::leak(requests(&templates, &shapes, count, seed).into_boxed_slice());
    // matchit's value is the template's index; the method is then looked up among the
    // template's methods, which is what the generated matcher's leaves do.
    let mut router = matchit::Router::new();
    for (index, template) in templates.iter().enumerate() {
        router.insert(template.path.as_str(), index).expect("matchit insert");
    }
    let leaked: &'static [Template] = Box::leak(templates.into_boxed_slice());
    let theirs = |request: &'static Request| -> Answer<'static> {
        let matched = router.at(&request.path).ok()?;
        let template = &leaked[*matched.value];
        let params = matched.params.iter().map(|(_, v)| v).collect();
        template
            .methods
            .contains(&request.method)
            .then(|| (template.path.as_str(), params))
    };
    // Identical results on every request, and every request found.
    let table = |request: &'static Request| -> Answer<'static> {
        kube_api_gen::routes::ROUTES
            .resolve(&request.method, &request.path, kube_api_gen::routes::Route::ALL)
            .found()
            .map(|(route, params)| (route.info().path, params.iter().map(|(_, v)| v).collect()))
    };
    for request in requests {
        let (a, b) = (ours(request), theirs(request));
        assert_eq!(a, b, "{} {}", request.method, request.path);
        assert_eq!(table(request), a, "{} {}", request.method, request.path);
        assert!(a.is_some(), "{} {} not found", request.method, request.path);
    }
    let start = Instant::now();
    let mut found = 0usize;
    for _ in 0..passes {
        match who {
            "ours" => {
                for request in requests {
                    let resolution = kube_api_gen::routes::resolve(
                        black_box(&request.method),
                        black_box(&request.path),
                    );
                    found += usize::from(black_box(resolution).found().is_some());
                }
            }
            "table" => {
                for request in requests {
                    let resolution = kube_api_gen::routes::ROUTES.resolve(
                        black_box(&request.method),
                        black_box(&request.path),
                        kube_api_gen::routes::Route::ALL,
                    );
                    found += usize::from(black_box(resolution).found().is_some());
                }
            }
            "matchit" => {
                for request in requests {
                    let matched = router.at(black_box(&request.path));
                    let hit = matched.is_ok_and(|m| {
                        let template = &leaked[*m.value];
                        // The route: the index of the method among the template's.
                        black_box(&m.params);
                        template
                            .methods
                            .iter()
                            .position(|method| method == black_box(&request.method))
                            .is_some()
                    });
                    found += usize::from(black_box(hit));
                }
            }
            _ => panic!("unknown matcher {who}"),
        }
    }
    let elapsed = start.elapsed();
    assert_eq!(found, count * passes);
    let per_second = (count * passes) as f64 / elapsed.as_secs_f64();
    report(&protocol::Routes {
        templates: leaked.len() as u64,
        shapes: shape_count as u64,
        requests: count as u64,
        matches_per_s: per_second,
        ns_per_match: 1e9 / per_second,
    });
}
