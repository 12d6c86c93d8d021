//! The generated request builders and response decoders, for every action on Lease and Pod
//! (with Pod's `log`, `status` and `ephemeralcontainers` subresources): method, path,
//! query string, headers and body of each request; each decoder on its declared statuses,
//! on a `Status` error, on a non-Status error page and on a body of the wrong type.

use kubeforge_api::api::coordination::v1 as coordination;
use kubeforge_api::api::core::v1 as core;
use kubeforge_api::apimachinery::pkg::apis::meta::v1::{DeleteOptions, Status};
use kubeforge_api::routes::{self, ResponseError};
use kubeforge_runtime::http::{Method, Request, StatusCode, header};
use kubeforge_runtime::{Patch, RequestError, WatchEvent};
use serde_json::{Value, json};

use coordination::Lease;
use core::Pod;

fn check(
    request: &Request<Vec<u8>>,
    method: &Method,
    uri: &str,
    content_type: Option<&str>,
    body: Option<Value>,
) {
    assert_eq!(request.method(), method);
    assert_eq!(request.uri().to_string(), uri);
    let header = |name| request.headers().get(name).map(|v| v.to_str().unwrap());
    assert_eq!(header(header::CONTENT_TYPE), content_type, "{uri}");
    match body {
        Some(expected) => {
            let actual: Value = serde_json::from_slice(request.body()).expect("a JSON body");
            assert_eq!(actual, expected, "{uri}");
        }
        None => assert!(request.body().is_empty(), "{uri}: no body"),
    }
}

fn accepts_json(request: &Request<Vec<u8>>) {
    assert_eq!(
        request.headers().get(header::ACCEPT).unwrap(),
        "application/json"
    );
}

const STATUS_404: &str = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"leases \"x\" not found","reason":"NotFound","details":{"name":"x","group":"coordination.k8s.io","kind":"leases"},"code":404}"#;

/// The errors every decoder gives: a `Status`, an undeclared status with an HTML page, and a
/// declared status whose body is not the declared type.
fn check_status_errors<T: std::fmt::Debug>(
    decode: fn(StatusCode, &[u8]) -> Result<T, ResponseError>,
) {
    match decode(StatusCode::NOT_FOUND, STATUS_404.as_bytes()) {
        Err(ResponseError::Status { status, body }) => {
            assert_eq!(status, StatusCode::NOT_FOUND);
            assert_eq!(body.reason.as_deref(), Some("NotFound"));
            assert_eq!(body.code, Some(404));
        }
        other => panic!("expected a Status error, got {other:?}"),
    }
    let page = b"<html><body>502 Bad Gateway</body></html>";
    match decode(StatusCode::BAD_GATEWAY, page) {
        Err(e @ ResponseError::UnexpectedStatus { .. }) => {
            let text = e.to_string();
            assert!(text.contains("502 Bad Gateway"), "{text}");
            assert!(text.contains("not a Status"), "{text}");
        }
        other => panic!("expected an unexpected-status error, got {other:?}"),
    }
    match decode(StatusCode::UNAUTHORIZED, b"") {
        Err(ResponseError::UnexpectedStatus { status, body }) => {
            assert_eq!((status, body.as_str()), (StatusCode::UNAUTHORIZED, ""));
        }
        other => panic!("401 with an empty body: got {other:?}"),
    }
    // Garbage never panics: with an error status it is an error.
    for junk in JUNK {
        assert!(decode(StatusCode::INTERNAL_SERVER_ERROR, junk).is_err());
    }
}

/// Bodies no JSON decoder accepts.
const JUNK: [&[u8]; 5] = [
    b"\xff\xfe",
    b"{",
    b"[1,2",
    b"null",
    b"{\"kind\":\"Status\",\"code\":\"x\"}",
];

/// [`check_status_errors`], and with 200 garbage is a decode error that keeps the status.
fn check_errors<T: std::fmt::Debug>(decode: fn(StatusCode, &[u8]) -> Result<T, ResponseError>) {
    check_status_errors(decode);
    for junk in JUNK {
        match decode(StatusCode::OK, junk) {
            Err(ResponseError::Decode { status, .. }) => assert_eq!(status, StatusCode::OK),
            other => panic!(
                "200 with {:?}: expected a decode error, got {other:?}",
                String::from_utf8_lossy(junk)
            ),
        }
    }
}

/// [`check_status_errors`] for a plain-text decoder: with 200 any UTF-8 is the text itself,
/// and anything else a decode error.
fn check_text_errors(decode: fn(StatusCode, &[u8]) -> Result<String, ResponseError>) {
    check_status_errors(decode);
    for junk in JUNK {
        match (std::str::from_utf8(junk), decode(StatusCode::OK, junk)) {
            (Ok(text), Ok(decoded)) => assert_eq!(decoded, text),
            (Err(_), Err(ResponseError::Decode { status, .. })) => {
                assert_eq!(status, StatusCode::OK);
            }
            (_, other) => panic!(
                "200 with {:?}: got {other:?}",
                String::from_utf8_lossy(junk)
            ),
        }
    }
}

fn lease_json(name: &str) -> Value {
    json!({
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": name, "namespace": "kube-system"},
        "spec": {"holderIdentity": "node-1", "leaseDurationSeconds": 40}
    })
}

fn lease(name: &str) -> Lease {
    serde_json::from_value(lease_json(name)).unwrap()
}

fn bytes(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap()
}

#[test]
fn lease_list_and_watch() {
    let request = Lease::list_lease_for_all_namespaces(&routes::ListOrWatchQuery {
        label_selector: Some("app in (web,api)".into()),
        limit: Some(50),
        watch: Some(false),
        ..Default::default()
    })
    .unwrap();
    check(
        &request,
        &Method::GET,
        "/apis/coordination.k8s.io/v1/leases?labelSelector=app%20in%20%28web%2Capi%29&limit=50&watch=false",
        None,
        None,
    );
    accepts_json(&request);

    let request = Lease::list_namespaced_lease(
        "kube-system",
        &routes::ListOrWatchQuery {
            continue_: Some("eyJ2Ijoi+/=".into()),
            ..Default::default()
        },
    )
    .unwrap();
    check(
        &request,
        &Method::GET,
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?continue=eyJ2Ijoi%2B%2F%3D",
        None,
        None,
    );
    let list = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "LeaseList", "metadata": {"resourceVersion": "7"},
        "items": [lease_json("a"), lease_json("b")]});
    let decoded = Lease::list_namespaced_lease_response(StatusCode::OK, &bytes(&list)).unwrap();
    assert_eq!(decoded.items.len(), 2);
    assert_eq!(decoded.items[1], lease("b"));
    check_errors(Lease::list_namespaced_lease_response);
    check_errors(Lease::list_lease_for_all_namespaces_response);

    // The deprecated /watch/ paths.
    let request = Lease::watch_namespaced_lease_list(
        "kube-system",
        &routes::ListOrWatchQuery {
            resource_version: Some("7".into()),
            allow_watch_bookmarks: Some(true),
            ..Default::default()
        },
    )
    .unwrap();
    check(
        &request,
        &Method::GET,
        "/apis/coordination.k8s.io/v1/watch/namespaces/kube-system/leases?allowWatchBookmarks=true&resourceVersion=7",
        None,
        None,
    );
    let stream = format!(
        "{}\n{}\n{}\n",
        json!({"type": "ADDED", "object": lease_json("a")}),
        json!({"type": "BOOKMARK", "object": {"kind": "Lease", "apiVersion": "coordination.k8s.io/v1", "metadata": {"resourceVersion": "9"}}}),
        json!({"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1", "code": 410, "reason": "Expired"}}),
    );
    let events =
        Lease::watch_namespaced_lease_list_response(StatusCode::OK, stream.as_bytes()).unwrap();
    assert_eq!(events.len(), 3);
    assert_eq!(events[0], WatchEvent::Added(lease("a")));
    assert!(matches!(&events[1], WatchEvent::Bookmark(b) if b.resource_version == "9"));
    assert!(matches!(&events[2], WatchEvent::Error(s) if s.code == Some(410)));
    assert!(
        Lease::watch_namespaced_lease_list_response(StatusCode::OK, &stream.as_bytes()[..40])
            .is_err(),
        "a truncated stream is an error, not a panic"
    );
    check_errors(Lease::watch_namespaced_lease_list_response);

    let request =
        Lease::watch_namespaced_lease("kube-system", "a", &routes::ListOrWatchQuery::default())
            .unwrap();
    check(
        &request,
        &Method::GET,
        "/apis/coordination.k8s.io/v1/watch/namespaces/kube-system/leases/a",
        None,
        None,
    );
    let request =
        Lease::watch_lease_list_for_all_namespaces(&routes::ListOrWatchQuery::default()).unwrap();
    check(
        &request,
        &Method::GET,
        "/apis/coordination.k8s.io/v1/watch/leases",
        None,
        None,
    );
    check_errors(Lease::watch_namespaced_lease_response);
    check_errors(Lease::watch_lease_list_for_all_namespaces_response);
}

#[test]
fn lease_create_read_replace_patch_delete() {
    let body = lease("a");
    let request = Lease::create_namespaced_lease(
        "kube-system",
        &body,
        &routes::CreateOrReplaceQuery {
            dry_run: Some("All".into()),
            field_manager: Some("kubeforge tests".into()),
            ..Default::default()
        },
    )
    .unwrap();
    check(
        &request,
        &Method::POST,
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?dryRun=All&fieldManager=kubeforge%20tests",
        Some("application/json"),
        Some(lease_json("a")),
    );
    accepts_json(&request);
    for status in [StatusCode::OK, StatusCode::CREATED, StatusCode::ACCEPTED] {
        let decoded =
            Lease::create_namespaced_lease_response(status, &bytes(&lease_json("a"))).unwrap();
        assert_eq!(decoded, body);
    }
    // 204 is not declared for create.
    assert!(matches!(
        Lease::create_namespaced_lease_response(StatusCode::NO_CONTENT, b""),
        Err(ResponseError::UnexpectedStatus { .. })
    ));
    match Lease::create_namespaced_lease_response(StatusCode::CREATED, br#"{"kind":"Pod"}"#) {
        Err(e @ ResponseError::Decode { .. }) => {
            assert!(e.to_string().contains("201 Created"), "{e}");
        }
        other => panic!("a Pod is not a Lease: {other:?}"),
    }
    check_errors(Lease::create_namespaced_lease_response);

    let request =
        Lease::read_namespaced_lease("kube-system", "a", &routes::GetQuery::default()).unwrap();
    check(
        &request,
        &Method::GET,
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/a",
        None,
        None,
    );
    accepts_json(&request);
    assert_eq!(
        Lease::read_namespaced_lease_response(StatusCode::OK, &bytes(&lease_json("a"))).unwrap(),
        body
    );
    check_errors(Lease::read_namespaced_lease_response);

    let request = Lease::replace_namespaced_lease(
        "kube-system",
        "a",
        &body,
        &routes::CreateOrReplaceQuery {
            field_validation: Some("Strict".into()),
            ..Default::default()
        },
    )
    .unwrap();
    check(
        &request,
        &Method::PUT,
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/a?fieldValidation=Strict",
        Some("application/json"),
        Some(lease_json("a")),
    );
    for status in [StatusCode::OK, StatusCode::CREATED] {
        assert_eq!(
            Lease::replace_namespaced_lease_response(status, &bytes(&lease_json("a"))).unwrap(),
            body
        );
    }
    check_errors(Lease::replace_namespaced_lease_response);

    // Each patch kind is sent with its content type.
    let patches = [
        (
            Patch::Json(
                json!([{"op": "replace", "path": "/spec/holderIdentity", "value": "node-2"}]),
            ),
            "application/json-patch+json",
        ),
        (
            Patch::Merge(json!({"spec": {"holderIdentity": "node-2"}})),
            "application/merge-patch+json",
        ),
        (
            Patch::StrategicMerge(json!({"spec": {"holderIdentity": "node-2"}})),
            "application/strategic-merge-patch+json",
        ),
        (Patch::apply(&body).unwrap(), "application/apply-patch+yaml"),
    ];
    for (patch, content_type) in patches {
        let request = Lease::patch_namespaced_lease(
            "kube-system",
            "a",
            &patch,
            &routes::PatchQuery {
                field_manager: Some("me".into()),
                force: Some(true),
                ..Default::default()
            },
        )
        .unwrap();
        let expected = match &patch {
            Patch::Json(v) | Patch::Merge(v) | Patch::StrategicMerge(v) | Patch::Apply(v) => {
                v.clone()
            }
        };
        check(
            &request,
            &Method::PATCH,
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/a?fieldManager=me&force=true",
            Some(content_type),
            Some(expected),
        );
    }
    for status in [StatusCode::OK, StatusCode::CREATED] {
        assert_eq!(
            Lease::patch_namespaced_lease_response(status, &bytes(&lease_json("a"))).unwrap(),
            body
        );
    }
    check_errors(Lease::patch_namespaced_lease_response);

    let options: DeleteOptions =
        serde_json::from_value(json!({"propagationPolicy": "Foreground"})).unwrap();
    let request = Lease::delete_namespaced_lease(
        "kube-system",
        "a",
        Some(&options),
        &routes::DeleteQuery {
            grace_period_seconds: Some(0),
            ..Default::default()
        },
    )
    .unwrap();
    check(
        &request,
        &Method::DELETE,
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/a?gracePeriodSeconds=0",
        Some("application/json"),
        Some(json!({"propagationPolicy": "Foreground"})),
    );
    let request =
        Lease::delete_namespaced_lease("kube-system", "a", None, &routes::DeleteQuery::default())
            .unwrap();
    check(
        &request,
        &Method::DELETE,
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/a",
        None,
        None,
    );
    let success =
        br#"{"kind":"Status","apiVersion":"v1","status":"Success","details":{"name":"a"}}"#;
    for status in [StatusCode::OK, StatusCode::ACCEPTED] {
        let decoded: Status = Lease::delete_namespaced_lease_response(status, success)
            .unwrap()
            .status()
            .expect("a Status");
        assert_eq!(decoded.status.as_deref(), Some("Success"));
    }
    check_errors(Lease::delete_namespaced_lease_response);

    let request = Lease::delete_collection_namespaced_lease(
        "kube-system",
        None,
        &routes::DeleteCollectionQuery {
            label_selector: Some("a=b".into()),
            send_initial_events: Some(false),
            ..Default::default()
        },
    )
    .unwrap();
    check(
        &request,
        &Method::DELETE,
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=a%3Db&sendInitialEvents=false",
        None,
        None,
    );
    let decoded = Lease::delete_collection_namespaced_lease_response(StatusCode::OK, success)
        .unwrap()
        .status()
        .expect("a Status");
    assert_eq!(decoded.status.as_deref(), Some("Success"));
    check_errors(Lease::delete_collection_namespaced_lease_response);
}

#[test]
fn path_parameters_can_never_change_the_path() {
    let query = routes::GetQuery::default();
    let cases = [
        ("a/b", "a%2Fb"),
        ("a?watch=true", "a%3Fwatch%3Dtrue"),
        ("100%", "100%25"),
        ("with space", "with%20space"),
        ("frag#ment", "frag%23ment"),
        ("../..", "..%2F.."),
        ("system:node:x", "system%3Anode%3Ax"),
        ("ünïcode", "%C3%BCn%C3%AFcode"),
        ("a.b-c_d~e", "a.b-c_d~e"),
    ];
    for (name, encoded) in cases {
        let request = Lease::read_namespaced_lease("ns", name, &query).unwrap();
        assert_eq!(
            request.uri().path(),
            format!("/apis/coordination.k8s.io/v1/namespaces/ns/leases/{encoded}"),
            "{name:?}"
        );
        assert_eq!(request.uri().query(), None, "{name:?}");
    }
    for bad in ["", ".", ".."] {
        match Lease::read_namespaced_lease("ns", bad, &query) {
            Err(e @ RequestError::InvalidPathParam { name: "name", .. }) => {
                assert!(e.to_string().contains("`name`"), "{e}");
            }
            other => panic!("{bad:?} must be refused, got {other:?}"),
        }
        assert!(Lease::read_namespaced_lease(bad, "a", &query).is_err());
    }
    // Query values are escaped too, and unset ones are not sent.
    let request = Lease::list_namespaced_lease(
        "ns",
        &routes::ListOrWatchQuery {
            field_selector: Some("metadata.name=a&b#c".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        request.uri().query(),
        Some("fieldSelector=metadata.name%3Da%26b%23c")
    );
}

#[test]
fn pod_every_action() {
    let pod_json = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"containers": [{"name": "app", "image": "nginx"}]}});
    let pod: Pod = serde_json::from_value(pod_json.clone()).unwrap();
    let ns = "default";

    let request = Pod::list_pod_for_all_namespaces(&routes::ListOrWatchQuery {
        field_selector: Some("spec.nodeName=node-1".into()),
        ..Default::default()
    })
    .unwrap();
    check(
        &request,
        &Method::GET,
        "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1",
        None,
        None,
    );
    let list = json!({"apiVersion": "v1", "kind": "PodList", "metadata": {}, "items": [pod_json]});
    assert_eq!(
        Pod::list_pod_for_all_namespaces_response(StatusCode::OK, &bytes(&list))
            .unwrap()
            .items,
        vec![pod.clone()]
    );
    check_errors(Pod::list_pod_for_all_namespaces_response);

    let request = Pod::list_namespaced_pod(ns, &routes::ListOrWatchQuery::default()).unwrap();
    check(
        &request,
        &Method::GET,
        "/api/v1/namespaces/default/pods",
        None,
        None,
    );
    assert_eq!(
        Pod::list_namespaced_pod_response(StatusCode::OK, &bytes(&list))
            .unwrap()
            .items
            .len(),
        1
    );
    check_errors(Pod::list_namespaced_pod_response);

    let request =
        Pod::watch_pod_list_for_all_namespaces(&routes::ListOrWatchQuery::default()).unwrap();
    check(&request, &Method::GET, "/api/v1/watch/pods", None, None);
    let request = Pod::watch_namespaced_pod_list(ns, &routes::ListOrWatchQuery::default()).unwrap();
    check(
        &request,
        &Method::GET,
        "/api/v1/watch/namespaces/default/pods",
        None,
        None,
    );
    let request =
        Pod::watch_namespaced_pod(ns, "web", &routes::ListOrWatchQuery::default()).unwrap();
    check(
        &request,
        &Method::GET,
        "/api/v1/watch/namespaces/default/pods/web",
        None,
        None,
    );
    let stream = format!(
        "{}{}",
        json!({"type": "MODIFIED", "object": pod_json}),
        json!({"type": "DELETED", "object": pod_json})
    );
    let events = Pod::watch_namespaced_pod_response(StatusCode::OK, stream.as_bytes()).unwrap();
    assert_eq!(
        events,
        vec![
            WatchEvent::Modified(pod.clone()),
            WatchEvent::Deleted(pod.clone())
        ]
    );
    check_errors(Pod::watch_namespaced_pod_response);
    check_errors(Pod::watch_namespaced_pod_list_response);
    check_errors(Pod::watch_pod_list_for_all_namespaces_response);

    let request =
        Pod::create_namespaced_pod(ns, &pod, &routes::CreateOrReplaceQuery::default()).unwrap();
    check(
        &request,
        &Method::POST,
        "/api/v1/namespaces/default/pods",
        Some("application/json"),
        Some(pod_json.clone()),
    );
    assert_eq!(
        Pod::create_namespaced_pod_response(StatusCode::ACCEPTED, &bytes(&pod_json)).unwrap(),
        pod
    );
    check_errors(Pod::create_namespaced_pod_response);

    let request = Pod::read_namespaced_pod(
        ns,
        "web",
        &routes::GetQuery {
            pretty: Some("true".into()),
        },
    )
    .unwrap();
    check(
        &request,
        &Method::GET,
        "/api/v1/namespaces/default/pods/web?pretty=true",
        None,
        None,
    );
    assert_eq!(
        Pod::read_namespaced_pod_response(StatusCode::OK, &bytes(&pod_json)).unwrap(),
        pod
    );
    check_errors(Pod::read_namespaced_pod_response);

    let request =
        Pod::replace_namespaced_pod(ns, "web", &pod, &routes::CreateOrReplaceQuery::default())
            .unwrap();
    check(
        &request,
        &Method::PUT,
        "/api/v1/namespaces/default/pods/web",
        Some("application/json"),
        Some(pod_json.clone()),
    );
    assert_eq!(
        Pod::replace_namespaced_pod_response(StatusCode::CREATED, &bytes(&pod_json)).unwrap(),
        pod
    );
    check_errors(Pod::replace_namespaced_pod_response);

    let patch = Patch::StrategicMerge(json!({"metadata": {"labels": {"app": "web"}}}));
    let request =
        Pod::patch_namespaced_pod(ns, "web", &patch, &routes::PatchQuery::default()).unwrap();
    check(
        &request,
        &Method::PATCH,
        "/api/v1/namespaces/default/pods/web",
        Some("application/strategic-merge-patch+json"),
        Some(json!({"metadata": {"labels": {"app": "web"}}})),
    );
    assert_eq!(
        Pod::patch_namespaced_pod_response(StatusCode::OK, &bytes(&pod_json)).unwrap(),
        pod
    );
    check_errors(Pod::patch_namespaced_pod_response);

    // Deleting a pod answers with the pod (200 or 202), not a Status.
    let request = Pod::delete_namespaced_pod(
        ns,
        "web",
        None,
        &routes::DeleteQuery {
            propagation_policy: Some("Background".into()),
            ..Default::default()
        },
    )
    .unwrap();
    check(
        &request,
        &Method::DELETE,
        "/api/v1/namespaces/default/pods/web?propagationPolicy=Background",
        None,
        None,
    );
    assert_eq!(
        Pod::delete_namespaced_pod_response(StatusCode::ACCEPTED, &bytes(&pod_json)).unwrap(),
        kubeforge_runtime::StatusOr::Object(pod)
    );
    check_errors(Pod::delete_namespaced_pod_response);

    let request =
        Pod::delete_collection_namespaced_pod(ns, None, &routes::DeleteCollectionQuery::default())
            .unwrap();
    check(
        &request,
        &Method::DELETE,
        "/api/v1/namespaces/default/pods",
        None,
        None,
    );
    let success = br#"{"kind":"Status","apiVersion":"v1","status":"Success"}"#;
    assert!(Pod::delete_collection_namespaced_pod_response(StatusCode::OK, success).is_ok());
    check_errors(Pod::delete_collection_namespaced_pod_response);
}

#[test]
fn pod_subresources_log_status_ephemeral_containers() {
    let pod_json = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "status": {"phase": "Running"}});
    let pod: Pod = serde_json::from_value(pod_json.clone()).unwrap();

    // log: plain text, with its own query parameters.
    let request = Pod::read_namespaced_pod_log(
        "default",
        "web",
        &core::ReadNamespacedPodLogQuery {
            container: Some("app".into()),
            follow: Some(true),
            insecure_skip_tls_verify_backend: Some(false),
            limit_bytes: Some(1024),
            previous: Some(true),
            since_seconds: Some(60),
            tail_lines: Some(10),
            timestamps: Some(true),
            pretty: None,
        },
    )
    .unwrap();
    check(
        &request,
        &Method::GET,
        "/api/v1/namespaces/default/pods/web/log?container=app&follow=true&insecureSkipTLSVerifyBackend=false&limitBytes=1024&previous=true&sinceSeconds=60&tailLines=10&timestamps=true",
        None,
        None,
    );
    assert!(
        request.headers().get(header::ACCEPT).is_none(),
        "a log is not JSON"
    );
    let log = "2024-01-02T03:04:05Z started\n{\"not\": \"json\"}\n";
    assert_eq!(
        Pod::read_namespaced_pod_log_response(StatusCode::OK, log.as_bytes()).unwrap(),
        log
    );
    assert!(matches!(
        Pod::read_namespaced_pod_log_response(StatusCode::OK, b"\xff\xfe"),
        Err(ResponseError::Decode { .. })
    ));
    check_text_errors(Pod::read_namespaced_pod_log_response);

    // status
    let request =
        Pod::read_namespaced_pod_status("default", "web", &routes::GetQuery::default()).unwrap();
    check(
        &request,
        &Method::GET,
        "/api/v1/namespaces/default/pods/web/status",
        None,
        None,
    );
    assert_eq!(
        Pod::read_namespaced_pod_status_response(StatusCode::OK, &bytes(&pod_json)).unwrap(),
        pod
    );
    check_errors(Pod::read_namespaced_pod_status_response);
    let request = Pod::replace_namespaced_pod_status(
        "default",
        "web",
        &pod,
        &routes::CreateOrReplaceQuery::default(),
    )
    .unwrap();
    check(
        &request,
        &Method::PUT,
        "/api/v1/namespaces/default/pods/web/status",
        Some("application/json"),
        Some(pod_json.clone()),
    );
    assert_eq!(
        Pod::replace_namespaced_pod_status_response(StatusCode::OK, &bytes(&pod_json)).unwrap(),
        pod
    );
    check_errors(Pod::replace_namespaced_pod_status_response);
    let patch = Patch::Merge(json!({"status": {"phase": "Failed"}}));
    let request =
        Pod::patch_namespaced_pod_status("default", "web", &patch, &routes::PatchQuery::default())
            .unwrap();
    check(
        &request,
        &Method::PATCH,
        "/api/v1/namespaces/default/pods/web/status",
        Some("application/merge-patch+json"),
        Some(json!({"status": {"phase": "Failed"}})),
    );
    assert_eq!(
        Pod::patch_namespaced_pod_status_response(StatusCode::CREATED, &bytes(&pod_json)).unwrap(),
        pod
    );
    check_errors(Pod::patch_namespaced_pod_status_response);

    // ephemeralcontainers
    let request = Pod::read_namespaced_pod_ephemeralcontainers(
        "default",
        "web",
        &routes::GetQuery::default(),
    )
    .unwrap();
    check(
        &request,
        &Method::GET,
        "/api/v1/namespaces/default/pods/web/ephemeralcontainers",
        None,
        None,
    );
    assert_eq!(
        Pod::read_namespaced_pod_ephemeralcontainers_response(StatusCode::OK, &bytes(&pod_json))
            .unwrap(),
        pod
    );
    check_errors(Pod::read_namespaced_pod_ephemeralcontainers_response);
    let request = Pod::replace_namespaced_pod_ephemeralcontainers(
        "default",
        "web",
        &pod,
        &routes::CreateOrReplaceQuery::default(),
    )
    .unwrap();
    check(
        &request,
        &Method::PUT,
        "/api/v1/namespaces/default/pods/web/ephemeralcontainers",
        Some("application/json"),
        Some(pod_json.clone()),
    );
    check_errors(Pod::replace_namespaced_pod_ephemeralcontainers_response);
    let patch = Patch::Json(
        json!([{"op": "add", "path": "/spec/ephemeralContainers/-", "value": {"name": "debug", "image": "busybox"}}]),
    );
    let request = Pod::patch_namespaced_pod_ephemeralcontainers(
        "default",
        "web",
        &patch,
        &routes::PatchQuery::default(),
    )
    .unwrap();
    assert_eq!(
        request.headers()[header::CONTENT_TYPE],
        "application/json-patch+json"
    );
    check_errors(Pod::patch_namespaced_pod_ephemeralcontainers_response);
}

#[test]
fn requests_can_be_sent_by_any_client() {
    // The parts an HTTP client needs; nothing is sent here (sans-io).
    let request = Lease::read_namespaced_lease("kube-system", "a", &Default::default()).unwrap();
    let (parts, body) = request.into_parts();
    assert_eq!(
        parts.uri.path(),
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/a"
    );
    assert!(body.is_empty());
    // An operation that does not take a patch kind refuses it without panicking.
    let only_merge: &'static [&'static str] = &["application/merge-patch+json"];
    assert!(matches!(
        Patch::Json(json!([])).to_body(only_merge),
        Err(RequestError::UnsupportedPatch { .. })
    ));
}

#[test]
fn required_and_list_query_parameters_text_and_enum_responses() {
    // The golden `route_table`.
    use kubeforge_runtime::StatusOr;
    use kubeforge_tests::golden::route_table::com::example::v1::{
        ConnectWidgetExecQuery, DeleteWidgetResponse, Widget,
    };
    use kubeforge_tests::golden::route_table::routes;

    let command = [
        "sh".to_owned(),
        "-c".to_owned(),
        "echo hi && exit".to_owned(),
    ];
    let request =
        Widget::connect_widget_exec("w", &command, &ConnectWidgetExecQuery { tty: Some(true) })
            .unwrap();
    check(
        &request,
        &Method::POST,
        "/apis/example.com/v1/widgets/w/exec?command=sh&command=-c&command=echo%20hi%20%26%26%20exit&tty=true",
        None,
        None,
    );
    assert_eq!(
        Widget::connect_widget_exec_response(StatusCode::OK, b"hi\n").unwrap(),
        "hi\n"
    );

    let widget = br#"{"apiVersion":"example.com/v1","kind":"Widget","size":3}"#;
    let status = br#"{"apiVersion":"v1","kind":"Status","message":"deleting"}"#;
    // A delete answers the object or a Status whatever the document declares, by `kind`.
    assert!(matches!(
        Widget::delete_widget_response(StatusCode::OK, widget),
        Ok(DeleteWidgetResponse::Ok(StatusOr::Object(w))) if w.size == Some(3)
    ));
    assert!(matches!(
        Widget::delete_widget_response(StatusCode::ACCEPTED, status),
        Ok(DeleteWidgetResponse::Accepted(StatusOr::Status(s))) if s.message.as_deref() == Some("deleting")
    ));
    assert_eq!(
        Widget::delete_widget_response(StatusCode::NO_CONTENT, b"").unwrap(),
        DeleteWidgetResponse::NoContent
    );
    assert!(matches!(
        Widget::delete_widget_response(StatusCode::ACCEPTED, widget),
        Ok(DeleteWidgetResponse::Accepted(StatusOr::Object(_)))
    ));
    assert!(
        Widget::delete_widget_response(StatusCode::OK, br#"{"kind":"Widget","size":"x"}"#).is_err()
    );

    // Operations on no resource are free functions of the routes module.
    let request = routes::read_example_com_v1_widget_stats().unwrap();
    check(
        &request,
        &Method::GET,
        "/apis/example.com/v1/widgets/special/stats",
        None,
        None,
    );
    assert_eq!(
        routes::read_example_com_v1_widget_stats_response(StatusCode::OK, b"3 widgets").unwrap(),
        "3 widgets"
    );
    let request = routes::get_example_com_v1api_resources().unwrap();
    assert_eq!(request.uri(), "/apis/example.com/v1/");
}
