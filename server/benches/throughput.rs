//! `cargo bench -p kubeforge-server --bench throughput [-- N]`: creates, gets, lists and
//! watch events per second on N (10,000) Leases with the in-process service, and the
//! resident memory the stored objects take. Prints a Markdown table for BENCHMARKS.md.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use kubeforge_server::{Catalog, Options, Server};
use serde_json::json;

const LEASES: &str = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

fn request(method: Method, uri: &str, content_type: &str, body: Vec<u8>) -> Request<Full<Bytes>> {
    Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", content_type)
        .body(Full::new(Bytes::from(body)))
        .unwrap()
}

fn lease(i: usize) -> Vec<u8> {
    json!({
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": format!("lease-{i:05}"), "labels": {"shard": (i % 10).to_string()}},
        "spec": {"holderIdentity": format!("node-{i}"), "leaseDurationSeconds": 15, "renewTime": "2024-05-01T12:00:00.250000Z"},
    })
    .to_string()
    .into_bytes()
}

#[global_allocator]
static GLOBAL: &stats_alloc::StatsAlloc<std::alloc::System> = &stats_alloc::INSTRUMENTED_SYSTEM;

/// Bytes allocated and not freed since `region` began.
fn live_bytes(region: &stats_alloc::Region<'_, std::alloc::System>) -> f64 {
    let change = region.change();
    change.bytes_allocated as f64 - change.bytes_deallocated as f64
        + change.bytes_reallocated as f64
}

fn rate(n: usize, elapsed: Duration) -> String {
    format!("{:.0}/s", n as f64 / elapsed.as_secs_f64())
}

async fn run(label: &str, server: Server, n: usize) {
    let region = stats_alloc::Region::new(GLOBAL);
    let start = Instant::now();
    for i in 0..n {
        let response = server
            .call_async(request(Method::POST, LEASES, "application/json", lease(i)))
            .await;
        assert_eq!(response.status(), 201);
    }
    let creates = start.elapsed();
    let stored = live_bytes(&region);

    let start = Instant::now();
    for i in 0..n {
        let response = server
            .call_async(request(
                Method::GET,
                &format!("{LEASES}/lease-{i:05}"),
                "",
                Vec::new(),
            ))
            .await;
        assert_eq!(response.status(), 200);
        let _ = response.into_body().collect().await.unwrap();
    }
    let gets = start.elapsed();

    let start = Instant::now();
    let response = server
        .call_async(request(Method::GET, LEASES, "", Vec::new()))
        .await;
    let list = response.into_body().collect().await.unwrap().to_bytes();
    let list_time = start.elapsed();

    let start = Instant::now();
    let response = server
        .call_async(request(
            Method::GET,
            &format!("{LEASES}?labelSelector=shard%3D3"),
            "",
            Vec::new(),
        ))
        .await;
    let selected = response.into_body().collect().await.unwrap().to_bytes();
    let selector_time = start.elapsed();
    assert!(selected.len() < list.len());

    // A watch from "now": the initial ADDED events, then one MODIFIED per patch.
    let response = server
        .call_async(request(
            Method::GET,
            &format!("{LEASES}?watch=true"),
            "",
            Vec::new(),
        ))
        .await;
    let mut body = response.into_body();
    let start = Instant::now();
    let mut seen = 0;
    let mut pending = 0usize;
    while seen < n {
        let frame = body.frame().await.unwrap().unwrap();
        let data = frame.into_data().unwrap();
        pending += data.iter().filter(|b| **b == b'\n').count();
        seen = pending;
    }
    let initial = start.elapsed();
    let writer = server.clone();
    let start = Instant::now();
    let patches = tokio::spawn(async move {
        for i in 0..n {
            let patch = br#"{"spec":{"holderIdentity":"moved"}}"#.to_vec();
            let response = writer
                .call_async(request(
                    Method::PATCH,
                    &format!("{LEASES}/lease-{i:05}"),
                    "application/merge-patch+json",
                    patch,
                ))
                .await;
            assert_eq!(response.status(), 200);
        }
    });
    let mut modified = 0;
    while modified < n {
        let Some(frame) = body.frame().await else {
            panic!("the watch ended after {modified} of {n} events");
        };
        let frame = frame.unwrap();
        modified += frame
            .into_data()
            .unwrap()
            .iter()
            .filter(|b| **b == b'\n')
            .count();
    }
    let live = start.elapsed();
    patches.await.unwrap();
    drop(body);

    println!(
        "| {label} | {} | {} | {:.1} ms ({:.1} MB) | {:.1} ms | {} | {} | {:.1} MB ({:.0} B/object) |",
        rate(n, creates),
        rate(n, gets),
        list_time.as_secs_f64() * 1000.0,
        list.len() as f64 / 1e6,
        selector_time.as_secs_f64() * 1000.0,
        rate(n, initial),
        rate(n, live),
        stored / 1e6,
        stored / n as f64,
    );
}

/// A history long enough that the watch, read while the patches run, is never 410'd: with
/// the default 1,024 events a reader that falls that far behind the writer is cut off.
fn options(n: usize) -> Options {
    Options {
        history: 2 * n,
        ..Options::default()
    }
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    println!(
        "{n} Leases, one client, release build; memory is what the creates left allocated (the objects, their keys and the history's events; counted with `stats_alloc`) (history: 2N events, so the live watch is never cut off).\n"
    );
    println!(
        "| catalog | creates | gets | list all | list, 1 in 10 by label | watch: initial events | watch: live MODIFIED (patch → event) | memory of the stored objects |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    runtime.block_on(async {
        let typed = Catalog::from_routes(&kubeforge_api::routes::ROUTES)
            .typed::<kubeforge_api::api::coordination::v1::Lease>();
        run(
            "route table + generated types",
            Server::with_options(typed, options(n)),
            n,
        )
        .await;
        let model = Catalog::from_documents(&files).unwrap();
        run(
            "documents through the model",
            Server::with_options(model, options(n)),
            n,
        )
        .await;
    });
}
