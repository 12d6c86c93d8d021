//! The generated crate (`kubeforge-api`, committed in `generated/`) against the bytes the
//! in-memory server really sends: requests built with its request functions, answered by
//! `kubeforge-server` in process, and decoded with its own decoders (`Lease::<op>_response`,
//! `Lease::watch_list_namespaced_lease_decoder`). Successes become the typed objects, every
//! error status a typed `Status` (never an unexpected body), and watch streams decode into
//! the same events whether the body arrives in the server's frames or one byte at a time,
//! with strings full of quotes, backslashes and braces.

use std::time::Duration;

use bytes::Bytes;
use http::StatusCode;
use http_body_util::{BodyExt, Full};
use kubeforge_api::api::coordination::v1::{Lease, LeaseList, LeaseSpec};
use kubeforge_api::apimachinery::pkg::apis::meta::v1::Status;
use kubeforge_api::routes::{
    CreateOrReplaceQuery, DeleteQuery, GetQuery, ListOrWatchQuery, PatchQuery, WatchQuery,
};
use kubeforge_runtime::{Patch, ResponseError, StatusOr, WatchEvent};
use kubeforge_server::{Body, Catalog, Options, Server};
use tower::ServiceExt;

/// The committed crate's route table, its `Lease` as the validator.
fn server() -> Server {
    let catalog = Catalog::from_routes(&kubeforge_api::routes::ROUTES)
        .typed::<kubeforge_api::api::coordination::v1::Lease>();
    Server::with_options(
        catalog,
        Options {
            history: 8,
            ..Options::default()
        },
    )
}

/// Sends a request the generated crate built; the answer's status and body as they came.
async fn respond(server: &Server, request: http::Request<Vec<u8>>) -> http::Response<Body> {
    let (parts, body) = request.into_parts();
    let request = http::Request::from_parts(parts, Full::new(Bytes::from(body)));
    server.clone().oneshot(request).await.unwrap()
}

async fn exchange(server: &Server, request: http::Request<Vec<u8>>) -> (StatusCode, Bytes) {
    let response = respond(server, request).await;
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, body)
}

/// Strings a JSON encoder must escape, and that a scanner looking for the end of an object
/// must not take for structure: quotes, backslashes before quotes, braces and brackets.
const TRICKY: &str = r#"say "hi" \"} ] { \\" end\"#;

fn lease(name: &str, holder: &str) -> Lease {
    let mut lease: Lease = Lease::builder(name, "default")
        .spec(LeaseSpec {
            holder_identity: Some(holder.to_owned()),
            lease_duration_seconds: Some(15),
            ..LeaseSpec::default()
        })
        .into();
    if let Some(metadata) = &mut lease.metadata {
        metadata.annotations = Some([("note".to_owned(), TRICKY.to_owned())].into());
        metadata.labels = Some([("app".to_owned(), "demo".to_owned())].into());
    }
    lease
}

/// The request that creates `lease` in `default`.
fn create(lease: &Lease) -> http::Request<Vec<u8>> {
    Lease::create_namespaced_lease("default", lease, &CreateOrReplaceQuery::default()).unwrap()
}

fn status_of<T: std::fmt::Debug>(result: Result<T, ResponseError<Status>>) -> (StatusCode, Status) {
    match result {
        Err(ResponseError::Status { status, body }) => (status, *body),
        other => panic!("expected a Status, got {other:?}"),
    }
}

fn metadata(lease: &Lease) -> &kubeforge_api::apimachinery::pkg::apis::meta::v1::ObjectMeta {
    lease.metadata.as_ref().expect("metadata")
}

#[tokio::test]
async fn responses_decode_into_the_generated_types_and_errors_into_status() {
    let server = server();
    // Created: the object as the server stored it, typed.
    let (status, body) = exchange(&server, create(&lease("lock", TRICKY))).await;
    assert_eq!(status, StatusCode::CREATED);
    let created = Lease::create_namespaced_lease_response(status, &body).unwrap();
    let meta = metadata(&created);
    assert_eq!(meta.name.as_deref(), Some("lock"));
    assert_eq!(meta.namespace.as_deref(), Some("default"));
    assert!(meta.uid.as_deref().is_some_and(|uid| !uid.is_empty()));
    assert!(meta.creation_timestamp.is_some());
    assert_eq!(
        meta.annotations
            .as_ref()
            .and_then(|a| a.get("note"))
            .map(String::as_str),
        Some(TRICKY)
    );
    let spec = created.spec.as_ref().expect("spec");
    assert_eq!(spec.holder_identity.as_deref(), Some(TRICKY));
    assert_eq!(spec.lease_duration_seconds, Some(15));
    let version = meta.resource_version.clone().expect("a resource version");

    // The same name again: 409 AlreadyExists, as a Status.
    let (status, body) = exchange(&server, create(&lease("lock", "b"))).await;
    let (code, answer) = status_of(Lease::create_namespaced_lease_response(status, &body));
    assert_eq!(code, StatusCode::CONFLICT);
    assert_eq!(answer.code, Some(409));
    assert_eq!(answer.reason.as_deref(), Some("AlreadyExists"));
    assert_eq!(answer.status.as_deref(), Some("Failure"));
    assert!(
        answer
            .message
            .as_deref()
            .is_some_and(|m| m.contains("lock")),
        "{answer:?}"
    );

    // Read it back, and a name that is not there: 404 NotFound.
    let read =
        |name: &str| Lease::read_namespaced_lease("default", name, &GetQuery::default()).unwrap();
    let (status, body) = exchange(&server, read("lock")).await;
    assert_eq!(
        Lease::read_namespaced_lease_response(status, &body).unwrap(),
        created
    );
    let (status, body) = exchange(&server, read("missing")).await;
    let (code, answer) = status_of(Lease::read_namespaced_lease_response(status, &body));
    assert_eq!(
        (code, answer.reason.as_deref()),
        (StatusCode::NOT_FOUND, Some("NotFound"))
    );
    let details = answer.details.expect("details name the object");
    assert_eq!(details.name.as_deref(), Some("missing"));
    assert_eq!(details.kind.as_deref(), Some("leases"));

    // A replace with a stale resource version: 409 Conflict; with the current one, the
    // new object and a newer version.
    let mut changed = created.clone();
    changed.spec.as_mut().unwrap().holder_identity = Some("c".to_owned());
    let replace = |lease: &Lease| {
        Lease::replace_namespaced_lease("default", "lock", lease, &CreateOrReplaceQuery::default())
            .unwrap()
    };
    let mut stale = changed.clone();
    stale.metadata.as_mut().unwrap().resource_version = Some("999".to_owned());
    let (status, body) = exchange(&server, replace(&stale)).await;
    let (code, answer) = status_of(Lease::replace_namespaced_lease_response(status, &body));
    assert_eq!(
        (code, answer.reason.as_deref()),
        (StatusCode::CONFLICT, Some("Conflict"))
    );
    let (status, body) = exchange(&server, replace(&changed)).await;
    let replaced = Lease::replace_namespaced_lease_response(status, &body).unwrap();
    assert_eq!(
        replaced.spec.as_ref().unwrap().holder_identity.as_deref(),
        Some("c")
    );
    assert_ne!(
        metadata(&replaced).resource_version.as_ref(),
        Some(&version)
    );

    // A merge patch, and one whose result the type refuses: 422 Invalid.
    let patch = |patch: serde_json::Value| {
        Lease::patch_namespaced_lease(
            "default",
            "lock",
            &Patch::Merge(patch),
            &PatchQuery::default(),
        )
        .unwrap()
    };
    let (status, body) = exchange(
        &server,
        patch(serde_json::json!({"metadata": {"finalizers": ["example.com/hold"]}})),
    )
    .await;
    let patched = Lease::patch_namespaced_lease_response(status, &body).unwrap();
    assert_eq!(
        metadata(&patched).finalizers.as_deref(),
        Some(&["example.com/hold".to_owned()][..])
    );
    let (status, body) = exchange(
        &server,
        patch(serde_json::json!({"spec": {"leaseDurationSeconds": "long"}})),
    )
    .await;
    let (code, answer) = status_of(Lease::patch_namespaced_lease_response(status, &body));
    assert_eq!(
        (code, answer.reason.as_deref()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("Invalid"))
    );

    // The list, in name order.
    let (status, body) = exchange(&server, create(&lease("alpha", "a"))).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let (status, body) = exchange(
        &server,
        Lease::list_namespaced_lease("default", &ListOrWatchQuery::default()).unwrap(),
    )
    .await;
    let list: LeaseList = Lease::list_namespaced_lease_response(status, &body).unwrap();
    let names: Vec<&str> = list
        .items
        .iter()
        .map(|l| metadata(l).name.as_deref().unwrap())
        .collect();
    assert_eq!(names, ["alpha", "lock"]);

    // Delete: with a finalizer the object comes back, marked; without, a Status.
    let delete = |name: &str| {
        Lease::delete_namespaced_lease("default", name, None, &DeleteQuery::default()).unwrap()
    };
    let (status, body) = exchange(&server, delete("lock")).await;
    match Lease::delete_namespaced_lease_response(status, &body).unwrap() {
        StatusOr::Object(held) => assert!(metadata(&held).deletion_timestamp.is_some()),
        StatusOr::Status(status) => panic!("a held object is returned, not {status:?}"),
    }
    let (status, body) = exchange(&server, delete("alpha")).await;
    match Lease::delete_namespaced_lease_response(status, &body).unwrap() {
        StatusOr::Status(status) => assert_eq!(status.status.as_deref(), Some("Success")),
        StatusOr::Object(object) => panic!("a deleted object answers a Status, not {object:?}"),
    }
    let (status, body) = exchange(&server, delete("alpha")).await;
    let (code, _) = status_of(Lease::delete_namespaced_lease_response(status, &body));
    assert_eq!(code, StatusCode::NOT_FOUND);
}

/// Every frame of a watch response's body until `events` events are complete, fed to the
/// generated decoder as it arrives; returns the events and the raw bytes.
async fn watch_frames(
    body: &mut Body,
    decoder: &mut kubeforge_runtime::WatchDecoder<Lease, Status>,
    events: usize,
) -> (Vec<WatchEvent<Lease, Status>>, Vec<u8>) {
    let mut decoded = Vec::new();
    let mut bytes = Vec::new();
    while decoded.len() < events {
        // A bound on a stuck test, not a timing expectation: the events are already due.
        let frame = tokio::time::timeout(Duration::from_secs(30), body.frame())
            .await
            .expect("no event within 30 s")
            .expect("the watch ended")
            .unwrap();
        let data = frame.into_data().unwrap();
        bytes.extend_from_slice(&data);
        for event in decoder.feed(&data) {
            decoded
                .push(event.unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&data))));
        }
    }
    (decoded, bytes)
}

fn name(lease: &Lease) -> &str {
    metadata(lease).name.as_deref().unwrap_or_default()
}

fn summary(events: &[WatchEvent<Lease, Status>]) -> Vec<String> {
    events
        .iter()
        .map(|event| match event {
            WatchEvent::Added(l) => format!("ADDED {}", name(l)),
            WatchEvent::Modified(l) => format!("MODIFIED {}", name(l)),
            WatchEvent::Deleted(l) => format!("DELETED {}", name(l)),
            WatchEvent::Bookmark(b) => format!(
                "BOOKMARK {}{}",
                b.resource_version,
                if b.is_initial_events_end() {
                    " end"
                } else {
                    ""
                }
            ),
            WatchEvent::Error(s) => format!("ERROR {:?} {:?}", s.code, s.reason),
            WatchEvent::Other { event_type, .. } => format!("OTHER {event_type}"),
        })
        .collect()
}

#[tokio::test]
async fn watch_streams_decode_as_they_arrive_and_byte_by_byte() {
    let server = server();
    let (status, created) = exchange(&server, create(&lease("a", TRICKY))).await;
    assert_eq!(status, StatusCode::CREATED);
    // The version after the objects the cluster starts with.
    let created: serde_json::Value = serde_json::from_slice(&created).unwrap();
    let version = created["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();

    let query = WatchQuery::builder()
        .send_initial_events(true)
        .allow_watch_bookmarks(true)
        .resource_version_match("NotOlderThan")
        .build();
    let response = respond(
        &server,
        Lease::watch_list_namespaced_lease("default", &query).unwrap(),
    )
    .await;
    let status = response.status();
    assert_eq!(status, StatusCode::OK);
    let mut body = response.into_body();
    let mut decoder = Lease::watch_list_namespaced_lease_decoder(status);
    let (initial, mut bytes) = watch_frames(&mut body, &mut decoder, 2).await;
    assert_eq!(
        summary(&initial),
        ["ADDED a".to_owned(), format!("BOOKMARK {version} end")]
    );

    // Changes with the tricky text in every place a string can be.
    let mut b = lease("b", &format!("{TRICKY}{TRICKY}"));
    b.metadata.as_mut().unwrap().labels = Some([("q".to_owned(), "x".to_owned())].into());
    exchange(&server, create(&b)).await;
    let patch = Patch::Merge(serde_json::json!({"metadata": {"annotations": {"other": "{\"}\\"}}}));
    exchange(
        &server,
        Lease::patch_namespaced_lease("default", "a", &patch, &PatchQuery::default()).unwrap(),
    )
    .await;
    exchange(
        &server,
        Lease::delete_namespaced_lease("default", "b", None, &DeleteQuery::default()).unwrap(),
    )
    .await;
    let (changes, more) = watch_frames(&mut body, &mut decoder, 3).await;
    bytes.extend_from_slice(&more);
    assert_eq!(summary(&changes), ["ADDED b", "MODIFIED a", "DELETED b"]);
    let WatchEvent::Modified(a) = &changes[1] else {
        unreachable!()
    };
    let annotations = metadata(a).annotations.as_ref().unwrap();
    assert_eq!(annotations["note"], TRICKY);
    assert_eq!(annotations["other"], "{\"}\\");
    let WatchEvent::Added(b) = &changes[0] else {
        unreachable!()
    };
    assert_eq!(
        b.spec.as_ref().unwrap().holder_identity.as_deref(),
        Some(format!("{TRICKY}{TRICKY}").as_str())
    );
    drop(body);

    // The same bytes, one at a time: the same events, none early, none lost.
    let mut bytewise = Lease::watch_list_namespaced_lease_decoder(StatusCode::OK);
    let mut again = Vec::new();
    for (i, byte) in bytes.iter().enumerate() {
        for event in bytewise.feed(std::slice::from_ref(byte)) {
            again.push(event.unwrap_or_else(|e| panic!("at byte {i}: {e}")));
        }
    }
    bytewise.finish().unwrap();
    let all: Vec<_> = initial.into_iter().chain(changes).collect();
    assert_eq!(again, all);
    // And the whole body at once, as the non-streaming decoder reads it.
    let (status, whole) = (
        StatusCode::OK,
        Lease::watch_namespaced_lease_list_response(StatusCode::OK, &bytes).unwrap(),
    );
    assert_eq!(status, StatusCode::OK);
    assert_eq!(whole, all);
}

#[tokio::test]
async fn watch_errors_decode_as_status() {
    let server = server();
    for i in 0..3 {
        exchange(&server, create(&lease(&format!("n{i}"), "x"))).await;
    }
    server.compact();
    // A version from before the compaction: a 200 stream whose one event is a 410 Status.
    let query = WatchQuery::builder().resource_version("1").build();
    let (status, body) = exchange(
        &server,
        Lease::watch_list_namespaced_lease("default", &query).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let mut decoder = Lease::watch_list_namespaced_lease_decoder(status);
    let events: Vec<_> = decoder
        .feed(&body)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    decoder.finish().unwrap();
    let [WatchEvent::Error(gone)] = &events[..] else {
        panic!("{:?}", summary(&events));
    };
    assert_eq!(
        (gone.code, gone.reason.as_deref()),
        (Some(410), Some("Expired"))
    );

    // A version that is no version: the request fails before any stream, with a Status the
    // decoder's `finish` returns.
    let query = WatchQuery::builder().resource_version("yesterday").build();
    let (status, body) = exchange(
        &server,
        Lease::watch_list_namespaced_lease("default", &query).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let mut decoder = Lease::watch_list_namespaced_lease_decoder(status);
    // Fed in two parts: an error body is not a stream and yields no event.
    let (first, second) = body.split_at(body.len() / 2);
    assert!(decoder.feed(first).is_empty() && decoder.feed(second).is_empty());
    let (code, answer) = status_of(decoder.finish());
    assert_eq!(
        (code, answer.code, answer.reason.as_deref()),
        (StatusCode::BAD_REQUEST, Some(400), Some("BadRequest"))
    );
    assert!(
        answer
            .message
            .as_deref()
            .is_some_and(|m| m.contains("yesterday")),
        "{answer:?}"
    );
}
