//! The server's limits at their defaults (`Options::default()`), as the guide states them
//! (docs/src/guide/server.md): a request body of at most 3 MiB (the API server's
//! `maxRequestBodyBytes`, larger is 413), a history of 1,024 events for watches that resume
//! from a resource version (older is 410), and a YAML body answered 415 (a listed
//! difference: docs/src/guide/server-differences.md). Then each identity's limits, set low:
//! its request rate and its open watches, over them 429 as the API server's flow control
//! answers (`filters/maxinflight.go`, `tooManyRequests`), while other identities and the
//! administrator go on; the requests in flight of all identities together, over their cap
//! 429 as the max-in-flight filter answers; and the binary, over TLS, with the limits as
//! flags.

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
    answered(server.clone().oneshot(request)).await
}

/// The response, which must come while other requests are in flight: a request over a cap
/// is refused, never made to wait for one to end.
async fn answered(
    response: impl Future<
        Output = Result<http::Response<kubeforge_server::Body>, std::convert::Infallible>,
    >,
) -> http::Response<kubeforge_server::Body> {
    tokio::time::timeout(Duration::from_secs(30), response)
        .await
        .expect("an answer, without waiting for other requests")
        .unwrap()
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

/// A request of `token`'s whose body arrives only when the returned sender is used (or
/// dropped): until then the server is reading it, and the request is in flight.
fn held(
    method: Method,
    uri: &str,
    token: &str,
    body: String,
) -> (
    Request<impl http_body::Body<Data = Bytes, Error = std::convert::Infallible>>,
    tokio::sync::oneshot::Sender<()>,
) {
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let frames = futures::stream::once(async move {
        let _ = released.await;
        Ok(http_body::Frame::data(Bytes::from(body)))
    });
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .body(http_body_util::StreamBody::new(frames))
        .unwrap();
    (request, release)
}

/// A request with `token` (none: the administrator) and a whole body.
async fn with_body(
    server: &Server,
    method: Method,
    uri: &str,
    token: Option<&str>,
    body: String,
) -> http::Response<kubeforge_server::Body> {
    let mut request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let request = request.body(Full::new(Bytes::from(body))).unwrap();
    answered(server.clone().oneshot(request)).await
}

#[tokio::test]
async fn requests_in_flight_over_the_cap_are_answered_429_until_one_ends() {
    use std::task::Poll;
    let server = server_with(Options {
        max_requests_inflight: 2,
        max_mutating_requests_inflight: 3,
        ..Options::default()
    });
    // `schemas/` serves no RBAC: Alice's and Bob's requests that get through are 403, their
    // refusals by the cap 429 (the max-in-flight filter stands before authorization).
    let alice = server.add_user("alice", &[]);
    let bob = server.add_user("bob", &[]);
    // Three of Alice's creates whose bodies have not arrived: each, polled once, has taken
    // its place and waits for its body (the cap only counts, it never makes one wait).
    let mut creates = Vec::new();
    let mut releases = Vec::new();
    for i in 0..3 {
        let (request, release) = held(Method::POST, LEASES, &alice, lease(&format!("a{i}")));
        let mut create = Box::pin(server.call_async(request));
        assert!(matches!(futures::poll!(create.as_mut()), Poll::Pending));
        creates.push(create);
        releases.push(release);
    }
    // A fourth mutating request, anyone's, is one too many; a read-only one has its own cap,
    // and the others go on meanwhile.
    assert_too_many_requests(
        with_body(&server, Method::POST, LEASES, Some(&bob), lease("b")).await,
    )
    .await;
    assert_too_many_requests(
        with_body(
            &server,
            Method::DELETE,
            &format!("{LEASES}/a0"),
            Some(&bob),
            String::new(),
        )
        .await,
    )
    .await;
    assert_eq!(get(&server, LEASES, Some(&bob)).await.status(), 403);
    // The administrator (`system:masters`) is served over the cap, as `WithMaxInFlightLimit`
    // serves it.
    let created = with_body(&server, Method::POST, LEASES, None, lease("admin")).await;
    assert_eq!(created.status(), 201);
    // One create that ends gives its place back.
    let first = creates.remove(0);
    releases.remove(0).send(()).unwrap();
    assert_eq!(first.await.status(), 403);
    assert_eq!(
        with_body(&server, Method::POST, LEASES, Some(&bob), lease("b"))
            .await
            .status(),
        403
    );
    // So does one whose client goes.
    let (request, release) = held(Method::POST, LEASES, &alice, lease("a3"));
    let mut create = Box::pin(server.call_async(request));
    assert!(matches!(futures::poll!(create.as_mut()), Poll::Pending));
    assert_too_many_requests(
        with_body(&server, Method::POST, LEASES, Some(&bob), lease("b")).await,
    )
    .await;
    drop((create, release));
    assert_eq!(
        with_body(&server, Method::POST, LEASES, Some(&bob), lease("b"))
            .await
            .status(),
        403
    );

    // Two reads in flight fill the read-only cap; watches are long-running, not counted.
    let mut reads = Vec::new();
    for _ in 0..2 {
        let (request, release) = held(Method::GET, LEASES, &alice, String::new());
        let mut read = Box::pin(server.call_async(request));
        assert!(matches!(futures::poll!(read.as_mut()), Poll::Pending));
        reads.push((read, release));
    }
    assert_too_many_requests(get(&server, LEASES, Some(&bob)).await).await;
    assert_too_many_requests(get(&server, "/version", Some(&bob)).await).await;
    assert_eq!(
        get(&server, &format!("{LEASES}?watch=true"), Some(&bob))
            .await
            .status(),
        403
    );
    assert_eq!(get(&server, LEASES, None).await.status(), 200);
    for (read, release) in reads {
        release.send(()).unwrap();
        assert_eq!(read.await.status(), 403);
    }
    assert_eq!(get(&server, LEASES, Some(&bob)).await.status(), 403);
    for (create, release) in creates.into_iter().zip(releases) {
        release.send(()).unwrap();
        assert_eq!(create.await.status(), 403);
    }
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

/// The binary takes the limits as flags, and answers them over TLS as in process: a body
/// over `--max-request-body-bytes` is 413, a request over an identity's
/// `--requests-per-second` and `--request-burst` 429 (here the administrator impersonating
/// Alice: impersonation comes before the flow control, so Alice's bucket pays), and one
/// over `--max-mutating-requests-inflight` 429.
#[test]
fn the_binary_takes_the_limits_as_flags() {
    let schemas = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let server = kubeforge_tests::kubectl_server::KubectlServer::start_with(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        "kubectl".into(),
        &[
            "--max-request-body-bytes",
            "1000",
            "--requests-per-second",
            "1",
            "--request-burst",
            "2",
            "--max-mutating-requests-inflight",
            "1",
        ],
        &kubeforge_tests::sorted_files(&schemas, "json"),
    );
    let config = std::fs::read_to_string(server.dir().join("config")).unwrap();
    let field = |key: &str| {
        config
            .lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .unwrap()
            .trim()
            .to_owned()
    };
    let token = field("token: ");
    let address = field("server: ").trim_start_matches("https://").to_owned();
    let ca = {
        use base64::Engine as _;
        let engine = base64::engine::general_purpose::STANDARD;
        let pem = String::from_utf8(
            engine
                .decode(field("certificate-authority-data: "))
                .unwrap(),
        )
        .unwrap();
        let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
        engine.decode(body).unwrap()
    };
    let send = |method: &str, extra: &str, body: &str| {
        https(
            &address,
            &ca,
            &format!(
                "{method} {LEASES} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    // The body limit, for the administrator too.
    let mut big = lease("big");
    big.push_str(&" ".repeat(1001 - big.len()));
    let answer = send("POST", "", &big);
    assert!(answer.starts_with("HTTP/1.1 413 "), "{answer}");
    assert!(
        answer.contains("\"message\":\"Request entity too large: limit is 1000\""),
        "{answer}"
    );
    // The administrator is exempt from the rate.
    for _ in 0..5 {
        let answer = send("GET", "", "");
        assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    }
    // Alice (no RBAC here: 403) has a burst of 2.
    let alice = "Impersonate-User: alice\r\n";
    for _ in 0..2 {
        let answer = send("GET", alice, "");
        assert!(answer.starts_with("HTTP/1.1 403 "), "{answer}");
    }
    let answer = send("GET", alice, "");
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 429 "), "{answer}");
    let head = head.to_ascii_lowercase();
    assert!(head.contains("\r\nretry-after: 1\r\n"), "{answer}");
    assert!(
        head.contains("\r\ncontent-type: text/plain; charset=utf-8\r\n"),
        "{answer}"
    );
    assert_eq!(
        dechunk(body),
        "Too many requests, please try again later.\n"
    );

    // `--max-mutating-requests-inflight 1`: a create whose body is on its way holds the one
    // place; the administrator's requests are served over the cap, another user's are 429
    // (each a new user, with a full bucket of its own).
    use std::io::{Read as _, Write as _};
    let mut held = tls(&address, &ca);
    let body = lease("held");
    let (first, rest) = body.split_at(10);
    write!(
        held,
        "POST {LEASES} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{first}",
        body.len()
    )
    .unwrap();
    held.flush().unwrap();
    let as_user = |user: &str| {
        send(
            "POST",
            &format!("Impersonate-User: {user}\r\n"),
            &lease(user),
        )
    };
    // The held request takes its place once the server has read its head.
    let refused = (0..100).any(|i| {
        std::thread::sleep(Duration::from_millis(100));
        as_user(&format!("user-{i}")).starts_with("HTTP/1.1 429 ")
    });
    assert!(refused, "{}", as_user("carol"));
    let answer = send("POST", "", &lease("by-admin"));
    assert!(answer.starts_with("HTTP/1.1 201 "), "{answer}");
    held.write_all(rest.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = held.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 201 "), "{answer}");
    let answer = as_user("dave");
    assert!(answer.starts_with("HTTP/1.1 403 "), "{answer}");
}

/// A chunked body's data (how the server sends every body).
fn dechunk(mut body: &str) -> String {
    let mut data = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        data.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
    data
}

/// One HTTP/1.1 exchange over TLS (trusting the cluster's CA `ca`, DER) on its own
/// connection: everything the server answered.
fn https(address: &str, ca: &[u8], request: &str) -> String {
    use std::io::{Read as _, Write as _};
    let mut stream = tls(address, ca);
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    // The server may close without a TLS close_notify once it has answered.
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// A TLS connection to `address`, trusting the cluster's CA `ca` (DER).
fn tls(
    address: &str,
    ca: &[u8],
) -> tokio_rustls::rustls::StreamOwned<tokio_rustls::rustls::ClientConnection, std::net::TcpStream>
{
    use tokio_rustls::rustls;
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(rustls::pki_types::CertificateDer::from(ca.to_vec()))
        .unwrap();
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let connection = rustls::ClientConnection::new(std::sync::Arc::new(config), name).unwrap();
    rustls::StreamOwned::new(connection, std::net::TcpStream::connect(address).unwrap())
}
