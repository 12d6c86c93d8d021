//! `cargo bench -p kubeforge-server --bench crds [-- [--json] RUNS]`: how long a
//! CustomResourceDefinition created through the API takes to be served, on a server of the
//! whole Kubernetes 1.36 API (`swagger.json` through the generator's model), for each CRD of
//! the corpus and the extra CRDs (Argo's Workflow, prometheus-operator's Prometheus,
//! tekton's Pipeline): from the `POST` of the CRD to the first `200` on a list of its
//! resource, in wall time and in the process's CPU time (user + system: the figure a busy
//! machine moves least). Each run is a fresh server; RUNS (5) runs per CRD.
//!
//! Prints a Markdown table, or with `--json` the `ServerCrds` report of
//! `xtask/bench-harness/protocol.rs` that `cargo xtask bench --only server` reads.

use std::path::{Path, PathBuf};
use std::time::Instant;

use bytes::Bytes;
use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use kubeforge_server::{Catalog, Server};
use serde_json::Value;

#[path = "../../xtask/bench-harness/protocol.rs"]
#[allow(dead_code)] // the harness's other reports
mod protocol;

fn request(method: Method, uri: &str, body: Vec<u8>) -> Request<Full<Bytes>> {
    Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body)))
        .unwrap()
}

/// User + system CPU seconds of this process so far (every thread).
fn cpu_seconds() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

/// The list URL of the CRD's storage version's resource (in `default` when namespaced).
fn list_url(crd: &Value) -> String {
    let spec = &crd["spec"];
    let group = spec["group"].as_str().unwrap();
    let plural = spec["names"]["plural"].as_str().unwrap();
    let version = spec["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["served"] == Value::Bool(true))
        .and_then(|v| v["name"].as_str())
        .unwrap();
    if spec["scope"] == "Namespaced" {
        format!("/apis/{group}/{version}/namespaces/default/{plural}")
    } else {
        format!("/apis/{group}/{version}/{plural}")
    }
}

/// One run: a fresh server, the CRD created, its resource listed until it answers.
async fn once(catalog: &Catalog, body: &[u8], url: &str) -> (f64, f64) {
    let server = Server::new(catalog.clone());
    let (start, cpu) = (Instant::now(), cpu_seconds());
    let response = server
        .call_async(request(
            Method::POST,
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            body.to_vec(),
        ))
        .await;
    assert_eq!(response.status(), 201, "creating the CRD for {url}");
    loop {
        let response = server
            .call_async(request(Method::GET, url, Vec::new()))
            .await;
        let status = response.status();
        let _ = response.into_body().collect().await.unwrap();
        if status == 200 {
            break;
        }
        assert_eq!(status, 404, "{url}");
        tokio::task::yield_now().await;
    }
    (
        start.elapsed().as_secs_f64() * 1000.0,
        (cpu_seconds() - cpu) * 1000.0,
    )
}

fn read_crd(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let runs: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(5).max(1);
    let Some(corpus) = kubeforge_tests::corpus("crds bench", &["kubernetes/swagger.json", "crds"])
    else {
        return;
    };
    let mut inputs: Vec<(&str, PathBuf)> = std::fs::read_dir(corpus.join("crds"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| ("corpus", p))
        .collect();
    inputs.sort();
    let extra = [
        "tekton-Pipeline.yaml",
        "prometheus-operator-Prometheus.yaml",
        "argo-Workflow.yaml",
    ];
    if let Some(dir) = kubeforge_tests::extra_crds("crds bench", &extra) {
        inputs.extend(extra.iter().map(|name| ("extra", dir.join(name))));
    }
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut report = protocol::ServerCrds { crds: Vec::new() };
    for (source, path) in &inputs {
        let crd = read_crd(path);
        let body = serde_json::to_vec(&crd).unwrap();
        let url = list_url(&crd);
        let (mut wall_ms, mut cpu_ms) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let (wall, cpu) = runtime.block_on(once(&catalog, &body, &url));
            wall_ms.push(wall);
            cpu_ms.push(cpu);
        }
        report.crds.push(protocol::ServerCrd {
            file: path.file_name().unwrap().to_string_lossy().into_owned(),
            source: (*source).to_owned(),
            bytes: body.len() as u64,
            wall_ms,
            cpu_ms,
        });
    }
    if json {
        println!("{}", serde_json::to_string(&report).unwrap());
        return;
    }
    println!("| CRD | JSON | served after (wall, median) | CPU (median) |");
    println!("|---|---|---|---|");
    for crd in &report.crds {
        println!(
            "| {} ({}) | {:.0} KB | {:.1} ms | {:.1} ms |",
            crd.file,
            crd.source,
            crd.bytes as f64 / 1000.0,
            median(&crd.wall_ms),
            median(&crd.cpu_ms)
        );
    }
}
