//! Recorded exchanges, in the form a real API server produces them (request line, status,
//! headers, body; watch streams cut at awkward byte boundaries), from the Kubernetes API
//! concepts documentation (<https://kubernetes.io/docs/reference/using-api/api-concepts/>):
//! the request functions must build the request line, the matcher must resolve it, and the
//! decoders must read the response.

use kubeforge_api::api::coordination::v1::{Lease, LeaseList};
use kubeforge_api::apimachinery::pkg::apis::meta::v1::Status;
use kubeforge_api::routes::{self, Route, resolve};
use kubeforge_runtime::http::{Method, StatusCode};
use kubeforge_runtime::{ResponseError, StatusOr, WatchEvent};

/// One exchange: what the client sends and what the server answers.
struct Exchange<'a> {
    request_line: &'a str,
    status: u16,
    headers: &'a [(&'a str, &'a str)],
    body: &'a str,
}

fn request_line(request: &kubeforge_runtime::http::Request<Vec<u8>>) -> String {
    format!("{} {}", request.method(), request.uri())
}

/// The route the matcher gives for an exchange's request line.
fn route_of(exchange: &Exchange<'_>) -> Route {
    let (method, target) = exchange.request_line.split_once(' ').unwrap();
    let path = target.split('?').next().unwrap();
    let method: Method = method.parse().unwrap();
    resolve(&method, path)
        .found()
        .map(|(route, _)| route)
        .unwrap()
}

fn status(exchange: &Exchange<'_>) -> StatusCode {
    StatusCode::from_u16(exchange.status).unwrap()
}

/// Deleting an object with a finalizer: the server answers 200 with the object, its
/// `deletionTimestamp` set (api-concepts, "Object lifetime"; finalizers docs).
#[test]
fn delete_with_finalizers_returns_the_object() {
    let exchange = Exchange {
        request_line: "DELETE /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/lock",
        status: 200,
        headers: &[("Content-Type", "application/json")],
        body: r#"{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"lock","namespace":"kube-system","resourceVersion":"42","deletionTimestamp":"2024-05-01T10:00:00Z","deletionGracePeriodSeconds":0,"finalizers":["example.com/keep"]},"spec":{"holderIdentity":"a"}}"#,
    };
    let request = Lease::delete_namespaced_lease(
        "kube-system",
        "lock",
        None,
        &routes::DeleteQuery::default(),
    )
    .unwrap();
    assert_eq!(request_line(&request), exchange.request_line);
    assert_eq!(
        route_of(&exchange),
        Route::DeleteCoordinationV1NamespacedLease
    );
    assert_eq!(exchange.headers[0].1, "application/json");
    let decoded =
        Lease::delete_namespaced_lease_response(status(&exchange), exchange.body.as_bytes())
            .unwrap();
    let StatusOr::Object(lease) = decoded else {
        panic!("expected the object, got {decoded:?}")
    };
    let metadata = lease.metadata.unwrap();
    assert!(metadata.deletion_timestamp.is_some());
    assert_eq!(metadata.finalizers.unwrap(), ["example.com/keep"]);
}

/// Deleting an object that is gone at once: 200 with a `Status` of `Success`.
#[test]
fn delete_that_completes_returns_a_status() {
    let body = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"lock","group":"coordination.k8s.io","kind":"leases","uid":"1b2c"}}"#;
    let decoded = Lease::delete_namespaced_lease_response(StatusCode::OK, body.as_bytes()).unwrap();
    let status: Status = decoded.status().expect("a Status");
    assert_eq!(status.status.as_deref(), Some("Success"));
}

/// Deleting a collection: the server answers with the list of what it deleted (or began
/// deleting), not a `Status`.
#[test]
fn delete_collection_returns_the_list() {
    let exchange = Exchange {
        request_line: "DELETE /apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=app%3Dweb",
        status: 200,
        headers: &[("Content-Type", "application/json")],
        body: r#"{"kind":"LeaseList","apiVersion":"coordination.k8s.io/v1","metadata":{"resourceVersion":"50"},"items":[{"metadata":{"name":"a","namespace":"kube-system"}},{"metadata":{"name":"b","namespace":"kube-system"}}]}"#,
    };
    let request = Lease::delete_collection_namespaced_lease(
        "kube-system",
        None,
        &routes::DeleteCollectionQuery::builder()
            .label_selector("app=web")
            .build(),
    )
    .unwrap();
    assert_eq!(request_line(&request), exchange.request_line);
    assert_eq!(
        route_of(&exchange),
        Route::DeleteCoordinationV1CollectionNamespacedLease
    );
    let decoded = Lease::delete_collection_namespaced_lease_response(
        status(&exchange),
        exchange.body.as_bytes(),
    )
    .unwrap();
    let list: LeaseList = decoded.object().expect("the list");
    assert_eq!(list.items.len(), 2);
}

/// The watch a client sends today (api-concepts, "Efficient detection of changes" and
/// "Streaming lists"): `GET <list path>?watch=1&…`, answered 200 with one JSON event per
/// line, as chunks that split events anywhere.
const WATCH_STREAM: &str = concat!(
    r#"{"type":"ADDED","object":{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"a","namespace":"kube-system","resourceVersion":"10245"},"spec":{"holderIdentity":"node-\"}\\"}}}"#,
    "\n",
    r#"{"type":"BOOKMARK","object":{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"resourceVersion":"10246","annotations":{"k8s.io/initial-events-end":"true"}}}}"#,
    "\n",
    r#"{"type":"MODIFIED","object":{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"a","namespace":"kube-system","resourceVersion":"11020"},"spec":{"holderIdentity":"{}[]"}}}"#,
    "\n",
    r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 10245 (11020)","reason":"Expired","code":410}}"#,
    "\n",
);

fn check_watch_events(events: &[WatchEvent<Lease, Status>]) {
    assert_eq!(events.len(), 4, "{events:?}");
    let WatchEvent::Added(added) = &events[0] else {
        panic!("{:?}", events[0])
    };
    assert_eq!(
        added.spec.as_ref().unwrap().holder_identity.as_deref(),
        Some("node-\"}\\")
    );
    let WatchEvent::Bookmark(bookmark) = &events[1] else {
        panic!("{:?}", events[1])
    };
    assert_eq!(bookmark.resource_version, "10246");
    assert!(bookmark.is_initial_events_end());
    assert!(matches!(&events[2], WatchEvent::Modified(_)));
    let WatchEvent::Error(status) = &events[3] else {
        panic!("{:?}", events[3])
    };
    assert_eq!(status.code, Some(410));
    assert_eq!(status.reason.as_deref(), Some("Expired"));
}

#[test]
fn watch_on_the_list_path() {
    let request = Lease::watch_list_namespaced_lease(
        "kube-system",
        &routes::WatchQuery::builder()
            .resource_version("10245")
            .allow_watch_bookmarks(true)
            .send_initial_events(true)
            .resource_version_match("NotOlderThan")
            .timeout_seconds(300)
            .label_selector("app=web")
            .build(),
    )
    .unwrap();
    let exchange = Exchange {
        request_line: "GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases?watch=true&allowWatchBookmarks=true&labelSelector=app%3Dweb&resourceVersion=10245&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=300",
        status: 200,
        headers: &[
            ("Content-Type", "application/json"),
            ("Transfer-Encoding", "chunked"),
        ],
        body: WATCH_STREAM,
    };
    assert_eq!(request_line(&request), exchange.request_line);
    // The watch is the list route: a server tells them apart by `watch`.
    assert_eq!(
        route_of(&exchange),
        Route::ListCoordinationV1NamespacedLease
    );
    assert_eq!(
        request.headers()["accept"].to_str().unwrap(),
        "application/json"
    );

    // Every split into two chunks, and one byte at a time.
    let bytes = exchange.body.as_bytes();
    for cut in 0..=bytes.len() {
        let mut decoder = Lease::watch_list_namespaced_lease_decoder(status(&exchange));
        let mut events = decoder.feed(&bytes[..cut]);
        events.extend(decoder.feed(&bytes[cut..]));
        let events: Vec<_> = events.into_iter().map(Result::unwrap).collect();
        decoder.finish().unwrap();
        check_watch_events(&events);
    }
    let mut decoder = Lease::watch_list_namespaced_lease_decoder(status(&exchange));
    let mut events = Vec::new();
    for byte in bytes {
        for event in decoder.feed(std::slice::from_ref(byte)) {
            events.push(event.unwrap());
        }
    }
    decoder.finish().unwrap();
    check_watch_events(&events);
}

#[test]
fn a_watch_cut_inside_an_event_is_an_error_at_the_end() {
    let mut decoder = Lease::watch_list_namespaced_lease_decoder(StatusCode::OK);
    assert!(decoder.feed(&WATCH_STREAM.as_bytes()[..40]).is_empty());
    let error = decoder.finish().unwrap_err();
    assert!(
        error.to_string().contains("ended inside an event"),
        "{error}"
    );
}

/// A watch refused before it starts: 410 with a `Status` body, not a stream.
#[test]
fn a_refused_watch_is_its_status() {
    let body = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}"#;
    let mut decoder = Lease::watch_list_namespaced_lease_decoder(StatusCode::GONE);
    let (head, tail) = body.as_bytes().split_at(17);
    assert!(decoder.feed(head).is_empty());
    assert!(decoder.feed(tail).is_empty());
    match decoder.finish() {
        Err(ResponseError::Status { status, body }) => {
            assert_eq!(status, StatusCode::GONE);
            assert_eq!(body.reason.as_deref(), Some("Expired"));
        }
        other => panic!("{other:?}"),
    }
}

/// Errors: a `Status` decodes to it; a proxy's HTML page is kept whole, as text.
#[test]
fn error_bodies() {
    let forbidden = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"leases.coordination.k8s.io \"lock\" is forbidden: User \"bob\" cannot get resource \"leases\"","reason":"Forbidden","details":{"name":"lock","group":"coordination.k8s.io","kind":"leases"},"code":403}"#;
    match Lease::read_namespaced_lease_response(StatusCode::FORBIDDEN, forbidden.as_bytes()) {
        Err(ResponseError::Status { body, .. }) => {
            assert_eq!(body.reason.as_deref(), Some("Forbidden"));
        }
        other => panic!("{other:?}"),
    }
    let page = format!(
        "<html><head><title>502 Bad Gateway</title></head><body>{}</body></html>",
        "x".repeat(2000)
    );
    match Lease::read_namespaced_lease_response(StatusCode::BAD_GATEWAY, page.as_bytes()) {
        Err(ResponseError::UnexpectedStatus { body, .. }) => assert_eq!(body, page),
        other => panic!("{other:?}"),
    }
}

/// `GET /apis` and `GET /apis/` are both discovery (a real server answers both); other
/// paths keep exact matching.
#[test]
fn discovery_paths_resolve_with_and_without_the_trailing_slash() {
    use kubeforge_tests::golden::route_table::routes::{Route as R, resolve as golden};
    let found = |path: &str| golden(&Method::GET, path).found().map(|(r, _)| r);
    assert_eq!(found("/apis/"), Some(R::GetApiVersions));
    assert_eq!(found("/apis"), Some(R::GetApiVersions));
    assert_eq!(found("/apis/example.com/"), Some(R::GetExampleComApiGroup));
    assert_eq!(found("/apis/example.com"), Some(R::GetExampleComApiGroup));
    assert_eq!(
        found("/apis/example.com/v1/"),
        Some(R::GetExampleComV1apiResources)
    );
    assert_eq!(
        found("/apis/example.com/v1"),
        Some(R::GetExampleComV1apiResources)
    );
    assert_eq!(found("/apis/example.com/v1/widgets/"), None);
    assert_eq!(
        found("/apis/example.com/v1/widgets"),
        Some(R::ListExampleComV1Widget)
    );
}

/// Something other than an event object is an error, once per run of such bytes, and
/// decoding goes on after it; whitespace between events (servers write a newline) is
/// skipped.
#[test]
fn a_watch_stream_recovers_after_garbage() {
    let mut decoder = kubeforge_runtime::WatchDecoder::<serde_json::Value, serde_json::Value>::new(
        StatusCode::OK,
    );
    let results = decoder.feed(b"xy");
    assert_eq!(results.len(), 1);
    assert!(matches!(results[0], Err(ResponseError::Decode { .. })));
    let results = decoder.feed(
        b"z{\"type\":\"ADDED\",\"object\":{}}\r\n\t {\"type\":\"DELETED\",\"object\":{\"a\":[1,{\"b\":\"]}\"}]}}\n{\"type\":\"RENAMED\",\"object\":{}}\n",
    );
    assert_eq!(results.len(), 3, "{results:?}");
    assert!(
        matches!(results[0], Ok(WatchEvent::Added(_))),
        "{results:?}"
    );
    assert!(
        matches!(results[1], Ok(WatchEvent::Deleted(_))),
        "{results:?}"
    );
    assert!(
        matches!(&results[2], Ok(WatchEvent::Other { event_type, .. }) if event_type == "RENAMED"),
        "{results:?}"
    );
    decoder.finish().unwrap();
}
