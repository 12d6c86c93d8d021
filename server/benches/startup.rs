//! `cargo bench -p kubeforge-server --bench startup [-- RUNS]`: how long the server takes to
//! start on the whole Kubernetes API, from Kubernetes 1.36's `swagger.json` and from the 36
//! OpenAPI v3 documents of the corpus: the catalog through the generator's model
//! (`Catalog::from_documents`), the server (its four namespaces), and the first answers
//! kubectl asks for (discovery, the OpenAPI v3 index and the apps/v1 document, a Table of
//! namespaces). Prints a Markdown table for BENCHMARKS.md: the median of RUNS (3) runs.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full};
use kubeforge_server::{Catalog, Server};

async fn get(server: &Server, uri: &str, accept: &str) -> usize {
    let request = Request::builder()
        .uri(uri)
        .header("accept", accept)
        .body(Full::new(Bytes::new()))
        .unwrap();
    let response = server.call_async(request).await;
    assert_eq!(response.status(), 200, "{uri}");
    response
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .len()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let runs: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(3);
    // The one corpus lookup of the workspace: a failure under `CI`, a `SKIPPED` otherwise.
    let Some(corpus) = kubeforge_tests::corpus(
        "startup bench",
        &["kubernetes/swagger.json", "kubernetes/v3"],
    ) else {
        return;
    };
    let swagger = corpus.join("kubernetes/swagger.json");
    let v3_dir = corpus.join("kubernetes/v3");
    let mut v3: Vec<PathBuf> = std::fs::read_dir(&v3_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v3.sort();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    println!("| input | resources | catalog (model) | server | first answers | total |");
    println!("|---|---|---|---|---|---|");
    for (label, inputs) in [
        ("Kubernetes 1.36 swagger.json", vec![swagger.clone()]),
        ("36 OpenAPI v3 documents (1.35)", v3.clone()),
    ] {
        let mut catalogs = Vec::new();
        let mut servers = Vec::new();
        let mut answers = Vec::new();
        let mut resources = 0;
        for _ in 0..runs {
            let start = Instant::now();
            let catalog = Catalog::from_documents(&inputs).unwrap();
            catalogs.push(start.elapsed());
            resources = catalog.resources().len();
            let start = Instant::now();
            let server = Server::new(catalog);
            servers.push(start.elapsed());
            let start = Instant::now();
            runtime.block_on(async {
                get(&server, "/apis", "application/json").await;
                get(&server, "/apis/apps/v1", "application/json").await;
                get(&server, "/openapi/v3", "application/json").await;
                get(&server, "/openapi/v3/apis/apps/v1", "application/json").await;
                get(
                    &server,
                    "/api/v1/namespaces",
                    "application/json;as=Table;v=v1;g=meta.k8s.io",
                )
                .await;
            });
            answers.push(start.elapsed());
        }
        let (catalog, server, answer) = (median(catalogs), median(servers), median(answers));
        println!(
            "| {label} | {resources} | {} | {} | {} | {} |",
            ms(catalog),
            ms(server),
            ms(answer),
            ms(catalog + server + answer)
        );
    }
}
