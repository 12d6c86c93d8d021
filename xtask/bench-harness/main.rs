//! The measurement program of `cargo xtask bench`. It is not part of the workspace: the xtask
//! copies it into a throwaway cargo project under `target/bench-peers/harness/`, next to the
//! peers it measures (k8s-openapi, matchit) and the generated full-Kubernetes crate, and
//! builds it in release. Each invocation measures one thing for one contender and prints one
//! line of `key=value` pairs, which the xtask collects; the xtask alternates the contenders.
//!
//! harness rusage <program> <args…>        run a program, print wall/user/sys seconds and peak RSS
//! harness parse <file>                     the floor of generation: serde_json into a Value
//! harness serde <ours|peer|floor> <fixture> <copies> <iterations>
//! harness routes <ours|matchit> <swagger.json> <requests> <seed> <passes>

use std::hint::black_box;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["rusage", program, rest @ ..] => rusage(program, rest),
        ["parse", file] => parse(file),
        ["serde", who, fixture, copies, iterations] => serde_bench(
            who,
            fixture,
            copies.parse().expect("copies"),
            iterations.parse().expect("iterations"),
        ),
        ["routes", who, swagger, requests, seed, passes] => routes(
            who,
            swagger,
            requests.parse().expect("requests"),
            seed.parse().expect("seed"),
            passes.parse().expect("passes"),
        ),
        _ => {
            eprintln!("usage: see the doc comment of bench-harness/main.rs");
            std::process::exit(2);
        }
    }
}

/// Runs `program` and reports its wall time, CPU time and the peak resident set of it and
/// every descendant it waited for (`RUSAGE_CHILDREN` of this fresh process).
fn rusage(program: &str, args: &[&str]) {
    let start = Instant::now();
    let status = std::process::Command::new(program)
        .args(args)
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
    println!(
        "wall={:.4} user={:.4} sys={:.4} maxrss_kib={}",
        wall.as_secs_f64(),
        seconds(usage.ru_utime),
        seconds(usage.ru_stime),
        usage.ru_maxrss
    );
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

fn serde_bench(who: &str, fixture: &str, copies: usize, iterations: usize) {
    let input = list_of(fixture, copies);
    let kind = std::path::Path::new(fixture)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let (de, ser, out_len, round_trip) = match (who, kind) {
        ("floor", _) => {
            let de = time(iterations, || {
                serde_json::from_slice::<serde::de::IgnoredAny>(&input).expect("floor")
            });
            (de, Duration::ZERO, 0, true)
        }
        ("ours", "core.v1.Pod.json") => typed::<Vec<kube_api_gen::api::core::v1::Pod>>(&input, iterations),
        ("ours", "apps.v1.Deployment.json") => {
            typed::<Vec<kube_api_gen::api::apps::v1::Deployment>>(&input, iterations)
        }
        ("peer", "core.v1.Pod.json") => typed::<Vec<k8s_openapi::api::core::v1::Pod>>(&input, iterations),
        ("peer", "apps.v1.Deployment.json") => {
            typed::<Vec<k8s_openapi::api::apps::v1::Deployment>>(&input, iterations)
        }
        _ => panic!("no type for {who} {kind}"),
    };
    let mb = |bytes: usize, t: Duration| bytes as f64 / 1e6 / t.as_secs_f64();
    println!(
        "in_bytes={} out_bytes={} de_mbps={:.2} ser_mbps={:.2} round_trip={}",
        input.len(),
        out_len,
        mb(input.len(), de),
        if ser.is_zero() { 0.0 } else { mb(out_len, ser) },
        round_trip
    );
}

/// Deserializes `input` as `T` and serializes it back, `iterations` times each; the mean
/// times, the output length and whether the output is the input (as JSON values).
fn typed<T>(input: &[u8], iterations: usize) -> (Duration, Duration, usize, bool)
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    let mut kept: Option<T> = None;
    let mut de = Duration::ZERO;
    for _ in 0..iterations {
        let start = Instant::now();
        let value: T = serde_json::from_slice(input).expect("deserialize");
        de += start.elapsed();
        // Dropping is not part of deserializing.
        drop(kept.replace(black_box(value)));
    }
    let value = kept.expect("at least one iteration");
    let mut out = Vec::with_capacity(input.len() * 2);
    let mut ser = Duration::ZERO;
    for _ in 0..iterations {
        out.clear();
        let start = Instant::now();
        serde_json::to_writer(&mut out, &value).expect("serialize");
        ser += start.elapsed();
        black_box(&out);
    }
    let original: serde_json::Value = serde_json::from_slice(input).expect("input");
    let again: serde_json::Value = serde_json::from_slice(&out).expect("output");
    let n = iterations as u32;
    (de / n, ser / n, out.len(), original == again)
}

fn time<R>(iterations: usize, mut f: impl FnMut() -> R) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iterations {
        let start = Instant::now();
        black_box(f());
        total += start.elapsed();
    }
    total / iterations as u32
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

/// `count` requests, each a template drawn uniformly with one of its methods, its
/// parameters filled with short random names.
fn requests(templates: &[Template], count: usize, seed: u64) -> Vec<Request> {
    let mut rng = Rng(seed);
    (0..count)
        .map(|_| {
            let template = &templates[rng.below(templates.len())];
            let method = template.methods[rng.below(template.methods.len())].clone();
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

fn routes(who: &str, swagger: &str, count: usize, seed: u64, passes: usize) {
    let templates = templates(swagger);
    let requests: &'static [Request] =
        Box::leak(requests(&templates, count, seed).into_boxed_slice());
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
    for request in requests {
        let (a, b) = (ours(request), theirs(request));
        assert_eq!(a, b, "{} {}", request.method, request.path);
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
    println!(
        "templates={} requests={count} identical=true matches_per_s={per_second:.0} ns_per_match={:.1}",
        leaked.len(),
        1e9 / per_second
    );
}
