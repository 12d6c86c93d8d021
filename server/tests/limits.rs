//! The server's limits at their defaults (`Options::default()`), as the guide states them
//! (docs/src/guide/server.md): a request body of at most 3 MiB (the API server's
//! `maxRequestBodyBytes`, larger is 413), a history of 1,024 events for watches that resume
//! from a resource version (older is 410), and a YAML body answered 415 (a listed
//! difference: docs/src/guide/server-differences.md).

use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use kubeforge_server::{Catalog, Server};
use serde_json::{Value, json};
use tower::ServiceExt;

const LEASES: &str = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

/// The server with its default options, serving `schemas/`.
fn server() -> Server {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    Server::new(Catalog::from_documents(&files).unwrap())
}

async fn send(
    server: &Server,
    method: Method,
    uri: &str,
    content_type: &str,
    body: impl Into<Bytes>,
) -> (u16, Value) {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", content_type)
        .body(Full::new(body.into()))
        .unwrap();
    let response = server.clone().oneshot(request).await.unwrap();
    let code = response.status().as_u16();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (code, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

fn lease(name: &str) -> String {
    json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name}})
        .to_string()
}

#[tokio::test]
async fn a_body_of_3_mib_is_taken_and_one_byte_more_is_413() {
    const LIMIT: usize = 3 * 1024 * 1024;
    let server = server();
    // A Lease padded with whitespace (which JSON allows after the value) to the limit.
    let padded = |name: &str, size: usize| {
        let mut body = lease(name);
        body.push_str(&" ".repeat(size - body.len()));
        body
    };
    let (code, body) = send(
        &server,
        Method::POST,
        LEASES,
        "application/json",
        padded("at-limit", LIMIT),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let (code, body) = send(
        &server,
        Method::POST,
        LEASES,
        "application/json",
        padded("over-limit", LIMIT + 1),
    )
    .await;
    assert_eq!(code, 413, "{body}");
    assert_eq!(body["reason"], "RequestEntityTooLarge", "{body}");
}

#[tokio::test]
async fn the_history_keeps_the_last_1024_events() {
    let server = server();
    // The objects a cluster starts with took the versions up to `start`.
    let (_, list) = send(&server, Method::GET, LEASES, "application/json", "").await;
    let start: u64 = list["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|rv| rv.parse().ok())
        .expect("a list's resourceVersion");
    // Versions start+1 to start+1,025: the history holds the last 1,024, every event after
    // version start+1.
    for i in 1..=1025 {
        let (code, body) = send(
            &server,
            Method::POST,
            LEASES,
            "application/json",
            lease(&format!("l{i}")),
        )
        .await;
        assert_eq!(code, 201, "{body}");
    }
    let first_event = |server: Server| async move {
        let request = Request::builder()
            .uri(format!("{LEASES}?watch=true&resourceVersion={}", start + 1))
            .body(Full::new(Bytes::new()))
            .unwrap();
        let mut body = server.oneshot(request).await.unwrap().into_body();
        let mut text = Vec::new();
        while !text.contains(&b'\n') {
            let frame = tokio::time::timeout(Duration::from_secs(30), body.frame())
                .await
                .expect("an event")
                .expect("the stream goes on")
                .unwrap();
            if let Ok(data) = frame.into_data() {
                text.extend_from_slice(&data);
            }
        }
        let line = text.split(|b| *b == b'\n').next().unwrap().to_vec();
        serde_json::from_slice::<Value>(&line).unwrap()
    };
    let event = first_event(server.clone()).await;
    assert_eq!(event["type"], "ADDED", "{event}");
    assert_eq!(event["object"]["metadata"]["name"], "l2", "{event}");
    // One more write drops l2's event: a watch from l1's version is 410 Gone.
    let (code, _) = send(
        &server,
        Method::POST,
        LEASES,
        "application/json",
        lease("l1026"),
    )
    .await;
    assert_eq!(code, 201);
    let event = first_event(server).await;
    assert_eq!(event["type"], "ERROR", "{event}");
    assert_eq!(event["object"]["code"], 410, "{event}");
}

#[tokio::test]
async fn a_yaml_body_is_answered_415() {
    let server = server();
    let yaml = "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: from-yaml\n";
    for content_type in ["application/yaml", "application/cbor"] {
        let (code, body) = send(&server, Method::POST, LEASES, content_type, yaml).await;
        assert_eq!(code, 415, "{content_type}: {body}");
        assert_eq!(body["reason"], "UnsupportedMediaType", "{body}");
        assert_eq!(
            body["message"],
            "the body of the request was in an unknown format - accepted media types include: application/json, application/vnd.kubernetes.protobuf",
            "{body}"
        );
    }
    let (code, _) = send(
        &server,
        Method::GET,
        &format!("{LEASES}/from-yaml"),
        "application/json",
        "",
    )
    .await;
    assert_eq!(code, 404, "nothing was created");
}
