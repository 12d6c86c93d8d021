//! The server at the HTTP level, as `tower::Service`: bad input answered with a `Status`
//! (malformed JSON, wrong kind, a body that does not decode into the type, huge bodies,
//! unknown paths, wrong methods), discovery, OpenAPI, and watch semantics (initial events,
//! `sendInitialEvents` with its bookmark, 410 for a compacted resource version, no task
//! left behind when a client goes away).

use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use kubeforge_server::{Body, Catalog, Options, Server};
use serde_json::{Value, json};
use tower::ServiceExt;

fn server() -> Server {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let options = Options {
        body_limit: 64 * 1024,
        history: 8,
        bookmark_interval: Duration::from_millis(30),
        ..Options::default()
    };
    Server::with_options(Catalog::from_documents(&files).unwrap(), options)
}

async fn send(
    server: &Server,
    method: Method,
    uri: &str,
    content_type: &str,
    body: impl Into<Bytes>,
) -> http::Response<Body> {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", content_type)
        .body(Full::new(body.into()))
        .unwrap();
    server.clone().oneshot(request).await.unwrap()
}

async fn json_of(response: http::Response<Body>) -> (StatusCode, Value) {
    let status = response.status();
    assert_eq!(response.headers()["content-type"], "application/json");
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap())
}

async fn call(server: &Server, method: Method, uri: &str, body: &str) -> (StatusCode, Value) {
    json_of(send(server, method, uri, "application/json", body.to_owned()).await).await
}

const LEASES: &str = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

fn assert_status(answer: &(StatusCode, Value), code: u16, reason: &str) {
    assert_eq!(answer.0.as_u16(), code, "{}", answer.1);
    assert_eq!(answer.1["kind"], "Status", "{}", answer.1);
    assert_eq!(answer.1["code"], code);
    assert_eq!(answer.1["reason"], reason, "{}", answer.1);
    assert_eq!(answer.1["status"], "Failure");
}

#[tokio::test]
async fn bad_input_gets_a_status_and_the_server_stays_up() {
    let server = server();
    assert_status(
        &call(&server, Method::POST, LEASES, "{\"kind\": ").await,
        400,
        "BadRequest",
    );
    assert_status(
        &call(&server, Method::POST, LEASES, "[1, 2]").await,
        422,
        "Invalid",
    );
    let wrong_kind =
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}}).to_string();
    assert_status(
        &call(&server, Method::POST, LEASES, &wrong_kind).await,
        422,
        "Invalid",
    );
    let wrong_type =
        json!({"metadata": {"name": "x"}, "spec": {"leaseDurationSeconds": "long"}}).to_string();
    let answer = call(&server, Method::POST, LEASES, &wrong_type).await;
    assert_status(&answer, 422, "Invalid");
    assert!(
        answer.1["message"]
            .as_str()
            .unwrap()
            .contains("spec.leaseDurationSeconds"),
        "{}",
        answer.1
    );
    let no_name = json!({"metadata": {}}).to_string();
    assert_status(
        &call(&server, Method::POST, LEASES, &no_name).await,
        422,
        "Invalid",
    );
    let other_namespace = json!({"metadata": {"name": "x", "namespace": "other"}}).to_string();
    assert_status(
        &call(&server, Method::POST, LEASES, &other_namespace).await,
        400,
        "BadRequest",
    );

    let huge = format!(
        "{{\"metadata\": {{\"name\": \"x\", \"annotations\": {{\"a\": \"{}\"}}}}}}",
        "x".repeat(100_000)
    );
    assert_status(
        &call(&server, Method::POST, LEASES, &huge).await,
        413,
        "RequestEntityTooLarge",
    );

    assert_status(
        &call(&server, Method::GET, "/apis/nothing.example/v1/things", "").await,
        404,
        "NotFound",
    );
    assert_status(
        &call(&server, Method::GET, "/no/such/path", "").await,
        404,
        "NotFound",
    );
    assert_status(
        &call(&server, Method::GET, &format!("{LEASES}/x/status"), "").await,
        404,
        "NotFound",
    );
    assert_status(
        &call(&server, Method::GET, &format!("{LEASES}/missing"), "").await,
        404,
        "NotFound",
    );
    assert_status(
        &call(&server, Method::PUT, LEASES, "{}").await,
        405,
        "MethodNotAllowed",
    );
    assert_status(
        &call(&server, Method::POST, &format!("{LEASES}/x"), "{}").await,
        405,
        "MethodNotAllowed",
    );
    assert_status(
        &call(&server, Method::POST, "/apis", "{}").await,
        405,
        "MethodNotAllowed",
    );
    let answer = send(
        &server,
        Method::PATCH,
        &format!("{LEASES}/x"),
        "application/merge-patch+json",
        "{}",
    )
    .await;
    assert_status(&json_of(answer).await, 404, "NotFound");

    let created = call(
        &server,
        Method::POST,
        LEASES,
        &json!({"metadata": {"name": "x"}}).to_string(),
    )
    .await;
    assert_eq!(created.0, StatusCode::CREATED);
    let answer = send(
        &server,
        Method::PATCH,
        &format!("{LEASES}/x"),
        "text/plain",
        "x",
    )
    .await;
    assert_status(&json_of(answer).await, 415, "UnsupportedMediaType");
    let answer = send(
        &server,
        Method::PATCH,
        &format!("{LEASES}/x"),
        "application/merge-patch+json",
        "{",
    )
    .await;
    assert_status(&json_of(answer).await, 422, "Invalid");
    let answer = send(
        &server,
        Method::PATCH,
        &format!("{LEASES}/x"),
        "application/apply-patch+yaml",
        "{}",
    )
    .await;
    // An apply without `fieldManager` (see server_side_apply.rs for apply itself).
    assert_status(&json_of(answer).await, 422, "Invalid");
    // Still serving.
    assert_eq!(
        call(&server, Method::GET, &format!("{LEASES}/x"), "")
            .await
            .0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn discovery_and_openapi() {
    let server = server();
    for path in ["/api", "/api/"] {
        let (status, body) = call(&server, Method::GET, path, "").await;
        assert_eq!(
            (status, &body["kind"], &body["versions"]),
            (StatusCode::OK, &json!("APIVersions"), &json!(["v1"]))
        );
    }
    let (_, groups) = call(&server, Method::GET, "/apis/", "").await;
    let names: Vec<&str> = groups["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["coordination.k8s.io", "image.openshift.io"]);
    assert_eq!(
        groups["groups"][0]["preferredVersion"]["groupVersion"],
        "coordination.k8s.io/v1"
    );
    let (_, core) = call(&server, Method::GET, "/api/v1", "").await;
    assert_eq!(core["kind"], "APIResourceList");
    let pods = core["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "pods")
        .unwrap();
    assert_eq!(pods["kind"], "Pod");
    assert_eq!(pods["namespaced"], true);
    assert_eq!(
        pods["verbs"],
        json!([
            "create",
            "delete",
            "deletecollection",
            "get",
            "list",
            "patch",
            "update",
            "watch"
        ])
    );
    assert!(
        core["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "pods/status")
    );
    let (_, leases) = call(&server, Method::GET, "/apis/coordination.k8s.io/v1/", "").await;
    assert_eq!(leases["groupVersion"], "coordination.k8s.io/v1");
    let (_, index) = call(&server, Method::GET, "/openapi/v3", "").await;
    let url = index["paths"]["apis/coordination.k8s.io/v1"]["serverRelativeURL"]
        .as_str()
        .unwrap();
    let (status, document) = call(&server, Method::GET, url, "").await;
    assert_eq!(status, StatusCode::OK);
    assert!(document["components"]["schemas"]["io.k8s.api.coordination.v1.Lease"].is_object());
    let (_, version) = call(&server, Method::GET, "/version", "").await;
    assert_eq!(version["major"], "1");
}

/// Reads watch events until `n` have arrived.
async fn events(body: &mut Body, n: usize) -> Vec<Value> {
    let mut out = Vec::new();
    let mut pending = Vec::new();
    while out.len() < n {
        // A bound on a stuck test, not a timing expectation: events come at once.
        let frame = tokio::time::timeout(Duration::from_secs(30), body.frame())
            .await
            .expect("no event within 30 s")
            .expect("the watch ended")
            .unwrap();
        pending.extend_from_slice(&frame.into_data().unwrap());
        while let Some(end) = pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            out.push(serde_json::from_slice(&line).unwrap());
        }
    }
    out
}

/// Reads events until a bookmark at resource version `rv`; fails on any other event.
/// Returns the versions of the bookmarks read, `rv` last.
async fn bookmarks_until(body: &mut Body, rv: u64) -> Vec<u64> {
    let mut seen = Vec::new();
    while seen.last() != Some(&rv) {
        let event = events(body, 1).await.remove(0);
        assert_eq!(event["type"], "BOOKMARK", "{event}");
        let version = event["object"]["metadata"]["resourceVersion"]
            .as_str()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("a bookmark without a version: {event}"));
        assert!(version <= rv, "a bookmark beyond {rv}: {event}");
        seen.push(version);
    }
    seen
}

fn summary(events: &[Value]) -> Vec<(String, String)> {
    events
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_owned(),
                e["object"]["metadata"]["name"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn watch_semantics() {
    let server = server();
    for name in ["a", "b"] {
        call(
            &server,
            Method::POST,
            LEASES,
            &json!({"metadata": {"name": name, "labels": {"n": name}}}).to_string(),
        )
        .await;
    }
    // From now: the current objects as ADDED, then the changes.
    let mut now = send(
        &server,
        Method::GET,
        &format!("{LEASES}?watch=true"),
        "",
        "",
    )
    .await
    .into_body();
    let mut initial = send(
        &server,
        Method::GET,
        &format!("{LEASES}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&labelSelector=n%3Db"),
        "",
        "",
    )
    .await
    .into_body();
    let first = events(&mut now, 2).await;
    assert_eq!(
        summary(&first),
        [("ADDED".into(), "a".into()), ("ADDED".into(), "b".into())]
    );
    let streamed = events(&mut initial, 2).await;
    assert_eq!(streamed[0]["type"], "ADDED");
    assert_eq!(streamed[1]["type"], "BOOKMARK");
    assert_eq!(
        streamed[1]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
        "true"
    );
    assert_eq!(streamed[1]["object"]["metadata"]["resourceVersion"], "2");

    // Relabelling b out of the selector is a DELETED for the selective watch.
    let patch = send(
        &server,
        Method::PATCH,
        &format!("{LEASES}/b"),
        "application/merge-patch+json",
        r#"{"metadata":{"labels":{"n":"x"}}}"#,
    )
    .await;
    assert_eq!(patch.status(), StatusCode::OK);
    call(&server, Method::DELETE, &format!("{LEASES}/a"), "").await;
    assert_eq!(
        summary(&events(&mut now, 2).await),
        [
            ("MODIFIED".into(), "b".into()),
            ("DELETED".into(), "a".into())
        ]
    );
    // No bookmark comes before it: the last one (the initial events' end) is at the current
    // version.
    let next = events(&mut initial, 1).await;
    assert_eq!(summary(&next), [("DELETED".into(), "b".into())]);
    assert_eq!(next[0]["object"]["metadata"]["resourceVersion"], "3");
    // Bookmarks follow the resource version when nothing matches: whenever the interval
    // falls, the stream carries bookmarks of ever newer versions, and reaches 4 (the delete
    // of a) without another event. One at 3 may come first if the interval fell between the
    // two writes, so the test waits for the bookmark at 4 rather than for a time.
    let bookmarks = bookmarks_until(&mut initial, 4).await;
    assert!(
        bookmarks.iter().all(|rv| (3..=4).contains(rv)) && bookmarks.is_sorted(),
        "{bookmarks:?}"
    );

    // From a resource version: only what came after it.
    let mut after = send(
        &server,
        Method::GET,
        &format!("{LEASES}?watch=true&resourceVersion=3"),
        "",
        "",
    )
    .await
    .into_body();
    assert_eq!(
        summary(&events(&mut after, 1).await),
        [("DELETED".into(), "a".into())]
    );

    // The history keeps 8 events: a version older than that is 410 Gone.
    for i in 0..10 {
        call(
            &server,
            Method::POST,
            LEASES,
            &json!({"metadata": {"name": format!("n{i}")}}).to_string(),
        )
        .await;
    }
    let mut old = send(
        &server,
        Method::GET,
        &format!("{LEASES}?watch=true&resourceVersion=2"),
        "",
        "",
    )
    .await
    .into_body();
    let gone = events(&mut old, 1).await;
    assert_eq!(gone[0]["type"], "ERROR");
    assert_eq!(gone[0]["object"]["code"], 410);
    assert_eq!(gone[0]["object"]["reason"], "Expired");
    // A continue token from before the compaction is 410 as well.
    let (_, page) = call(&server, Method::GET, &format!("{LEASES}?limit=2"), "").await;
    let token = page["metadata"]["continue"].as_str().unwrap().to_owned();
    assert_eq!(page["metadata"]["remainingItemCount"], 9);
    call(
        &server,
        Method::POST,
        LEASES,
        &json!({"metadata": {"name": "late"}}).to_string(),
    )
    .await;
    server.compact();
    assert_status(
        &call(
            &server,
            Method::GET,
            &format!("{LEASES}?limit=2&continue={token}"),
            "",
        )
        .await,
        410,
        "Expired",
    );

    // Every watch that is dropped ends its task.
    drop((now, initial, after, old));
    tokio::time::timeout(Duration::from_secs(5), async {
        while server.open_watches() > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("watch tasks outlived their clients");
}

#[tokio::test]
async fn a_watch_whose_client_disappears_leaves_no_task() {
    let server = server();
    let mut bodies = Vec::new();
    for _ in 0..20 {
        bodies.push(
            send(
                &server,
                Method::GET,
                &format!("{LEASES}?watch=true&timeoutSeconds=600"),
                "",
                "",
            )
            .await
            .into_body(),
        );
    }
    tokio::task::yield_now().await;
    assert_eq!(server.open_watches(), 20);
    drop(bodies);
    // No write happens: the tasks notice the closed channel by themselves.
    tokio::time::timeout(Duration::from_secs(5), async {
        while server.open_watches() > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("watch tasks outlived their clients");
    let short = send(
        &server,
        Method::GET,
        &format!("{LEASES}?watch=true&timeoutSeconds=1"),
        "",
        "",
    )
    .await;
    let ended = tokio::time::timeout(Duration::from_secs(5), short.into_body().collect()).await;
    assert!(ended.is_ok(), "timeoutSeconds ends the watch");
}

/// Opens a watch on the leases of `default` with `query`.
async fn watch(server: &Server, query: &str) -> Body {
    send(server, Method::GET, &format!("{LEASES}?{query}"), "", "")
        .await
        .into_body()
}

async fn create(server: &Server, name: &str, labels: Value) {
    let (status, body) = call(
        server,
        Method::POST,
        LEASES,
        &json!({"metadata": {"name": name, "labels": labels}}).to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

async fn merge_patch(server: &Server, name: &str, patch: Value) {
    let response = send(
        server,
        Method::PATCH,
        &format!("{LEASES}/{name}"),
        "application/merge-patch+json",
        patch.to_string(),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
}

/// The history keeps the last 8 events. A watch from the version just before the oldest
/// kept event gets all of them; one from a version before that would miss an event, and
/// gets 410 Gone instead: never a silent gap.
#[tokio::test]
async fn a_watch_resumes_exactly_up_to_the_compaction_boundary() {
    let server = server();
    for i in 0..10 {
        create(&server, &format!("n{i}"), json!({})).await;
    }
    // Versions 1 to 10; the history holds 3 to 10, so version 2's event (n1) is gone.
    let mut at_boundary = watch(&server, "watch=true&resourceVersion=2").await;
    let names: Vec<String> = summary(&events(&mut at_boundary, 8).await)
        .into_iter()
        .map(|(kind, name)| format!("{kind} {name}"))
        .collect();
    assert_eq!(
        names,
        (2..10).map(|i| format!("ADDED n{i}")).collect::<Vec<_>>()
    );
    let mut past_boundary = watch(&server, "watch=true&resourceVersion=1").await;
    let gone = events(&mut past_boundary, 1).await;
    assert_eq!(gone[0]["type"], "ERROR", "{}", gone[0]);
    assert_eq!(gone[0]["object"]["code"], 410);
    assert_eq!(gone[0]["object"]["reason"], "Expired");
    // And the watch ends after it.
    let rest = tokio::time::timeout(Duration::from_secs(30), past_boundary.collect())
        .await
        .expect("the watch ends after 410")
        .unwrap()
        .to_bytes();
    assert!(rest.is_empty(), "{}", String::from_utf8_lossy(&rest));
}

/// A watch with a label selector sees an object as the API server shows it: `ADDED` when a
/// change brings it into the selection, `MODIFIED` while it stays, `DELETED` when a change
/// takes it out, and nothing while it is outside.
#[tokio::test]
async fn relabelling_moves_an_object_into_and_out_of_a_selective_watch() {
    let server = server();
    create(&server, "a", json!({"n": "a"})).await;
    // From version 1, so what follows is read from the history: the same events however
    // late the watch's task starts.
    let mut selective = watch(&server, "watch=true&resourceVersion=1&labelSelector=n%3Db").await;
    let mut everything = watch(&server, "watch=true&resourceVersion=1").await;
    merge_patch(&server, "a", json!({"metadata": {"labels": {"n": "b"}}})).await;
    merge_patch(
        &server,
        "a",
        json!({"metadata": {"annotations": {"k": "v"}}}),
    )
    .await;
    merge_patch(&server, "a", json!({"metadata": {"labels": {"n": "c"}}})).await;
    merge_patch(
        &server,
        "a",
        json!({"metadata": {"annotations": {"k": "w"}}}),
    )
    .await;
    call(&server, Method::DELETE, &format!("{LEASES}/a"), "").await;
    create(&server, "c", json!({"n": "b"})).await;
    let seen = events(&mut selective, 4).await;
    assert_eq!(
        summary(&seen),
        [
            ("ADDED".into(), "a".into()),
            ("MODIFIED".into(), "a".into()),
            ("DELETED".into(), "a".into()),
            ("ADDED".into(), "c".into()),
        ]
    );
    // Each carries the object as the change left it: in, then out of the selection.
    assert_eq!(seen[0]["object"]["metadata"]["labels"]["n"], "b");
    assert_eq!(seen[1]["object"]["metadata"]["annotations"]["k"], "v");
    assert_eq!(seen[2]["object"]["metadata"]["labels"]["n"], "c");
    assert_eq!(
        summary(&events(&mut everything, 6).await),
        [
            ("MODIFIED".into(), "a".into()),
            ("MODIFIED".into(), "a".into()),
            ("MODIFIED".into(), "a".into()),
            ("MODIFIED".into(), "a".into()),
            ("DELETED".into(), "a".into()),
            ("ADDED".into(), "c".into()),
        ]
    );
}

/// A built-in kind's list is a typed list (`LeaseList`): the API server converts its items
/// without their `apiVersion` and `kind`, which is why client-go's unstructured decoder
/// fills them in from the list's; a custom resource's list carries each item as stored,
/// with both. A single object has both either way.
#[tokio::test]
async fn a_typed_lists_items_carry_no_kind_and_a_custom_resources_do() {
    let server = server();
    create(&server, "a", json!({})).await;
    let (status, list) = call(&server, Method::GET, LEASES, "").await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(
        (&list["kind"], &list["apiVersion"]),
        (&json!("LeaseList"), &json!("coordination.k8s.io/v1"))
    );
    let item = &list["items"][0];
    assert_eq!(item["metadata"]["name"], "a", "{list}");
    assert!(
        item.get("kind").is_none() && item.get("apiVersion").is_none(),
        "{item}"
    );
    let (_, one) = call(&server, Method::GET, &format!("{LEASES}/a"), "").await;
    assert_eq!(
        (&one["kind"], &one["apiVersion"]),
        (&json!("Lease"), &json!("coordination.k8s.io/v1"))
    );

    let dir = tempfile::tempdir().unwrap();
    let crd = dir.path().join("widgets.yaml");
    std::fs::write(
        &crd,
        kubeforge_tests::open_crd("example.com", "Widget", "widgets"),
    )
    .unwrap();
    let custom = Server::new(Catalog::from_documents(&[crd]).unwrap());
    let widgets = "/apis/example.com/v1/namespaces/default/widgets";
    let widget = r#"{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}"#;
    let (status, created) = call(&custom, Method::POST, widgets, widget).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let (_, list) = call(&custom, Method::GET, widgets, "").await;
    assert_eq!(list["kind"], "WidgetList", "{list}");
    assert_eq!(
        (&list["items"][0]["kind"], &list["items"][0]["apiVersion"]),
        (&json!("Widget"), &json!("example.com/v1")),
        "{list}"
    );
}
