//! The server's limits at their defaults (`Options::default()`), as the guide states them
//! (docs/src/guide/server.md): a request body of at most 3 MiB (the API server's
//! `maxRequestBodyBytes`, larger is 413), a history of 1,024 events for watches that resume
//! from a resource version (older is 410), and a YAML body answered 415 (a listed
//! difference: docs/src/guide/server-differences.md). Then each identity's limits, set low:
//! its request rate and its open watches, over them 429 as the API server's flow control
//! answers (`filters/maxinflight.go`, `tooManyRequests`), while other identities and the
//! administrator go on.

use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use kubeforge_server::{Catalog, Options, Server};
use serde_json::{Value, json};
use tower::ServiceExt;

const LEASES: &str = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

/// The server with its default options, serving `schemas/`.
fn server() -> Server {
    server_with(Options::default())
}

/// The server with `options`, serving `schemas/`.
fn server_with(options: Options) -> Server {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    Server::with_options(Catalog::from_documents(&files).unwrap(), options)
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
    // `handlers/rest.go`, `limitedReadBody`: `NewRequestEntityTooLargeError("limit is N")`.
    assert_eq!(
        body["message"], "Request entity too large: limit is 3145728",
        "{body}"
    );
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

/// What the API server's `tooManyRequests` answers: 429, `Retry-After`, and Go's
/// `http.Error` text.
async fn assert_too_many_requests(response: http::Response<kubeforge_server::Body>) {
    assert_eq!(response.status(), 429);
    let headers = response.headers();
    assert_eq!(headers["retry-after"], "1");
    assert_eq!(headers["content-type"], "text/plain; charset=utf-8");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(&bytes[..], b"Too many requests, please try again later.\n");
}

/// A GET of `uri` with `token` as its bearer token (none: the server's default caller).
async fn get(
    server: &Server,
    uri: &str,
    token: Option<&str>,
) -> http::Response<kubeforge_server::Body> {
    let mut request = Request::builder().uri(uri);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let request = request.body(Full::new(Bytes::new())).unwrap();
    server.clone().oneshot(request).await.unwrap()
}

/// Binds the ClusterRole `view` to the user `name`.
async fn grant_view(server: &Server, name: &str) {
    let binding = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": format!("{name}-view")},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": name}],
    });
    let (code, body) = send(
        server,
        Method::POST,
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        "application/json",
        binding.to_string(),
    )
    .await;
    assert_eq!(code, 201, "{body}");
}

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

#[tokio::test]
async fn an_identity_over_its_rate_is_answered_429_and_others_go_on() {
    let server = server_with(Options {
        requests_per_second: 1,
        request_burst: 3,
        ..Options::default()
    });
    // `schemas/` serves no RBAC: Alice and Bob may do nothing (403), and the flow control
    // filter stands before authorization, so their refused requests count too.
    let alice = server.add_user("alice", &[]);
    let bob = server.add_user("bob", &[]);
    for _ in 0..3 {
        assert_eq!(get(&server, LEASES, Some(&alice)).await.status(), 403);
    }
    assert_too_many_requests(get(&server, LEASES, Some(&alice)).await).await;
    assert_too_many_requests(get(&server, "/version", Some(&alice)).await).await;
    // Bob has his own bucket.
    assert_eq!(get(&server, LEASES, Some(&bob)).await.status(), 403);
    // The administrator (system:masters) is exempt, as from the API server's flow control.
    for _ in 0..20 {
        assert_eq!(get(&server, LEASES, None).await.status(), 200);
    }
    // A wrong token is refused by authentication first.
    assert_eq!(get(&server, LEASES, Some("wrong")).await.status(), 401);
    // A second later Alice has one request again.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(get(&server, LEASES, Some(&alice)).await.status(), 403);
    assert_too_many_requests(get(&server, "/version", Some(&alice)).await).await;
}

#[tokio::test]
async fn an_identity_holds_at_most_its_cap_of_watches() {
    // Kubernetes' own API, for RBAC to grant the watches.
    let Some(corpus) = kubeforge_tests::corpus(
        "an_identity_holds_at_most_its_cap_of_watches",
        &["kubernetes/swagger.json"],
    ) else {
        return;
    };
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    let server = Server::with_options(
        catalog,
        Options {
            watches_per_identity: 2,
            ..Options::default()
        },
    );
    let alice = server.add_user("alice", &[]);
    let bob = server.add_user("bob", &[]);
    grant_view(&server, "alice").await;
    grant_view(&server, "bob").await;
    let watch = format!("{CONFIGMAPS}?watch=true");
    let first = get(&server, &watch, Some(&alice)).await;
    assert_eq!(first.status(), 200);
    let second = get(&server, &watch, Some(&alice)).await;
    assert_eq!(second.status(), 200);
    assert_too_many_requests(get(&server, &watch, Some(&alice)).await).await;
    // Lists and gets are no watches.
    assert_eq!(get(&server, CONFIGMAPS, Some(&alice)).await.status(), 200);
    // Another identity has its own; the administrator has no cap.
    let bobs = get(&server, &watch, Some(&bob)).await;
    assert_eq!(bobs.status(), 200);
    let admins: Vec<_> = admin_watches(&server, &watch, 5).await;
    assert!(admins.iter().all(|r| r.status() == 200));
    // A watch that ends (its client gone) gives its place back.
    drop(first);
    let again = get(&server, &watch, Some(&alice)).await;
    assert_eq!(again.status(), 200);
    assert_too_many_requests(get(&server, &watch, Some(&alice)).await).await;
    // A watch RBAC refuses holds no place.
    let carol = server.add_user("carol", &[]);
    for _ in 0..3 {
        assert_eq!(get(&server, &watch, Some(&carol)).await.status(), 403);
    }
    drop((second, again, bobs, admins));
}

/// `n` watches of `uri` by the administrator, held open.
async fn admin_watches(
    server: &Server,
    uri: &str,
    n: usize,
) -> Vec<http::Response<kubeforge_server::Body>> {
    let mut held = Vec::new();
    for _ in 0..n {
        held.push(get(server, uri, None).await);
    }
    held
}
