//! `cargo bench -p kubeforge-server --bench simulated_cluster [-- [--json] RUNS]`: the simulated
//! cluster (`Options::simulation`) on a server of the whole Kubernetes 1.36 API
//! (`swagger.json`), in process with one client:
//!
//! - 10 Deployments of 100 replicas on 10 simulated nodes, from the first `POST` to every
//!   Deployment's `readyReplicas` at 100 (1,000 Pods created, scheduled, run and ready);
//! - the server's throughput: 500 ConfigMaps created one after the other, with the
//!   simulation off and on (its nodes idle, its thread looking for work every 50 ms).
//!
//! Wall time, and the process's CPU time (user + system, every thread: the simulation's
//! included). Each run is a fresh server; RUNS (3) runs.
//!
//! Prints a Markdown table, or with `--json` the `ServerSimulation` report of
//! `xtask/bench-harness/protocol.rs` that `cargo xtask bench --only simulation` reads.

use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use kubeforge_server::{Catalog, Options, Server, Simulation};
use serde_json::{Value, json};

#[path = "../../xtask/bench-harness/protocol.rs"]
#[allow(dead_code)] // the harness's other reports
mod protocol;

const NODES: usize = 10;
const DEPLOYMENTS: usize = 10;
const REPLICAS: usize = 100;
const CREATES: usize = 500;

/// User + system CPU seconds of this process so far (every thread).
fn cpu_seconds() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

async fn call(server: &Server, method: Method, uri: &str, body: &Value) -> (u16, Value) {
    let body = if body.is_null() {
        Vec::new()
    } else {
        serde_json::to_vec(body).unwrap()
    };
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body)))
        .unwrap();
    let response = server.call_async(request).await;
    let status = response.status().as_u16();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn simulated(catalog: &Catalog, nodes: usize) -> Server {
    let options = Options {
        simulation: Some(Simulation::with_nodes(nodes)),
        ..Options::default()
    };
    Server::with_options(catalog.clone(), options)
}

/// One run of the rollout: (wall ms, CPU ms).
async fn rollout(catalog: &Catalog) -> (f64, f64) {
    let server = simulated(catalog, NODES);
    let (start, cpu) = (Instant::now(), cpu_seconds());
    for n in 0..DEPLOYMENTS {
        let name = format!("web-{n}");
        let deployment = json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name},
            "spec": {
                "replicas": REPLICAS,
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {"containers": [{"name": "web", "image": "nginx"}]},
                },
            },
        });
        let (status, body) = call(
            &server,
            Method::POST,
            "/apis/apps/v1/namespaces/default/deployments",
            &deployment,
        )
        .await;
        assert_eq!(status, 201, "{body}");
    }
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let (_, list) = call(
            &server,
            Method::GET,
            "/apis/apps/v1/namespaces/default/deployments",
            &Value::Null,
        )
        .await;
        let ready = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["status"]["readyReplicas"] == REPLICAS)
            .count();
        if ready == DEPLOYMENTS {
            break;
        }
        assert!(Instant::now() < deadline, "not ready after 10 minutes");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let result = (
        start.elapsed().as_secs_f64() * 1000.0,
        (cpu_seconds() - cpu) * 1000.0,
    );
    let (_, pods) = call(
        &server,
        Method::GET,
        "/api/v1/namespaces/default/pods",
        &Value::Null,
    )
    .await;
    let running = pods["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["status"]["phase"] == "Running")
        .count();
    assert_eq!(running, DEPLOYMENTS * REPLICAS);
    result
}

/// One throughput run: (creates per second, CPU ms).
async fn creates(server: &Server) -> (f64, f64) {
    let (start, cpu) = (Instant::now(), cpu_seconds());
    for n in 0..CREATES {
        let map = json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": format!("settings-{n}")},
            "data": {"key": "value"},
        });
        let (status, body) = call(
            server,
            Method::POST,
            "/api/v1/namespaces/default/configmaps",
            &map,
        )
        .await;
        assert_eq!(status, 201, "{body}");
    }
    let seconds = start.elapsed().as_secs_f64();
    (CREATES as f64 / seconds, (cpu_seconds() - cpu) * 1000.0)
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let runs: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(3).max(1);
    let Some(corpus) = kubeforge_tests::corpus("simulation bench", &["kubernetes/swagger.json"])
    else {
        return;
    };
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut report = protocol::ServerSimulation {
        nodes: NODES as u64,
        deployments: DEPLOYMENTS as u64,
        replicas: REPLICAS as u64,
        ready_wall_ms: Vec::new(),
        ready_cpu_ms: Vec::new(),
        creates: CREATES as u64,
        off_per_s: Vec::new(),
        off_cpu_ms: Vec::new(),
        on_per_s: Vec::new(),
        on_cpu_ms: Vec::new(),
    };
    // The throughput first, off and on in turn, each on a fresh server: a run right after
    // the rollout would pay for dropping its 1,000 Pods.
    for _ in 0..runs {
        let (rate, cpu) = runtime.block_on(creates(&Server::new(catalog.clone())));
        report.off_per_s.push(rate);
        report.off_cpu_ms.push(cpu);
        let (rate, cpu) = runtime.block_on(creates(&simulated(&catalog, 3)));
        report.on_per_s.push(rate);
        report.on_cpu_ms.push(cpu);
    }
    for _ in 0..runs {
        let (wall, cpu) = runtime.block_on(rollout(&catalog));
        report.ready_wall_ms.push(wall);
        report.ready_cpu_ms.push(cpu);
    }
    if json {
        println!("{}", serde_json::to_string(&report).unwrap());
        return;
    }
    println!("| measure | median |");
    println!("|---|---|");
    println!(
        "| {DEPLOYMENTS} Deployments × {REPLICAS} Pods on {NODES} nodes, all Ready (wall) | {:.0} ms |",
        median(&report.ready_wall_ms)
    );
    println!("| the same, CPU | {:.0} ms |", median(&report.ready_cpu_ms));
    println!(
        "| {CREATES} ConfigMap creates, simulation off | {:.0}/s, {:.0} ms CPU |",
        median(&report.off_per_s),
        median(&report.off_cpu_ms)
    );
    println!(
        "| {CREATES} ConfigMap creates, simulation on | {:.0}/s, {:.0} ms CPU |",
        median(&report.on_per_s),
        median(&report.on_cpu_ms)
    );
}
