//! The request, response and route helpers that generated route code calls.

use kubeforge_runtime::http::{Method, StatusCode};
use kubeforge_runtime::request::{self, PathAndQuery};
use kubeforge_runtime::response::{self, DecodeError};
use kubeforge_runtime::route::{is_param_value, param_segment, strip_segments};
use kubeforge_runtime::{
    Bookmark, MethodSet, PathParams, RequestError, ResponseError, WatchDecoder, WatchEvent,
};
use serde_json::Value;

#[test]
fn path_segments_and_queries_are_encoded() {
    let mut target = PathAndQuery::new("/api/v1/namespaces/");
    target.push_segment("namespace", "a b/c?d#e%f").unwrap();
    target.push_literal("/pods");
    target.push_query("labelSelector", "app in (web,api)");
    target.push_optional_query::<bool>("watch", None);
    target.push_optional_query("limit", Some(&5i64));
    target.push_query("dryRun", &["All".to_owned(), "x&y=z".to_owned()][..]);
    assert_eq!(
        target.as_str(),
        "/api/v1/namespaces/a%20b%2Fc%3Fd%23e%25f/pods?labelSelector=app%20in%20%28web%2Capi%29&limit=5&dryRun=All&dryRun=x%26y%3Dz"
    );
    for bad in ["", ".", ".."] {
        let mut target = PathAndQuery::new("/x/");
        assert!(matches!(
            target.push_segment("name", bad),
            Err(RequestError::InvalidPathParam { name: "name", .. })
        ));
        assert_eq!(target.as_str(), "/x/", "nothing is written");
    }
    let request = request::build(
        Method::GET,
        PathAndQuery::new("/api/v1/pods"),
        Some(request::JSON),
        None,
    )
    .unwrap();
    assert_eq!(request.uri(), "/api/v1/pods");
    assert_eq!(request.headers()["accept"], "application/json");
}

/// A query struct as generated code writes one.
struct Limit(Option<i64>);

impl request::QueryParams for Limit {
    fn append_to(&self, target: &mut PathAndQuery) {
        target.push_optional_query("limit", self.0.as_ref());
    }
}

/// `request::send`, the one call every generated request function makes: the template's
/// parameters filled in order and encoded, the pairs before the query struct, the body's
/// content type; a bad path parameter is named, and comes before the body's error.
#[test]
fn send_fills_the_template_then_the_query_and_the_body() {
    let request = request::send(
        Method::GET,
        "/api/v1/namespaces/{namespace}/pods/{name}/log",
        ["kube system", "a/b"],
        &request::With(&[("watch", &true), ("container", &"c 1")], &Limit(Some(5))),
        Some(request::JSON),
        Ok(None),
    )
    .unwrap();
    assert_eq!(
        request.uri(),
        "/api/v1/namespaces/kube%20system/pods/a%2Fb/log?watch=true&container=c%201&limit=5"
    );
    assert_eq!(request.headers()["accept"], "application/json");
    assert!(request.headers().get("content-type").is_none());
    assert!(request.body().is_empty());

    let request = request::send(
        Method::POST,
        "/api/v1/namespaces",
        [],
        &(),
        None,
        request::Body::json(&serde_json::json!({"kind": "Namespace"})).map(Some),
    )
    .unwrap();
    assert_eq!(request.uri(), "/api/v1/namespaces");
    assert_eq!(request.headers()["content-type"], "application/json");
    assert_eq!(request.body(), br#"{"kind":"Namespace"}"#);

    for bad in ["", ".", ".."] {
        let error = request::send(
            Method::GET,
            "/api/v1/namespaces/{namespace}/pods/{name}",
            ["default", bad],
            &(),
            None,
            Err(RequestError::UnsupportedPatch {
                content_type: "x",
                accepted: &[],
            }),
        )
        .unwrap_err();
        assert!(
            matches!(error, RequestError::InvalidPathParam { name: "name", .. }),
            "{error:?}"
        );
    }
    let error = request::send(
        Method::PATCH,
        "/api/v1/namespaces/{namespace}",
        ["default"],
        &(),
        None,
        request::Patch::Merge(serde_json::json!({}))
            .to_body(&["application/json-patch+json"])
            .map(Some),
    )
    .unwrap_err();
    assert!(
        matches!(error, RequestError::UnsupportedPatch { .. }),
        "{error:?}"
    );
}

/// `response::decode`: the reader on a declared success, the body's `Status` otherwise;
/// `any_success` for operations that declare none.
#[test]
fn decode_reads_declared_successes_only() {
    let read: Result<u32, ResponseError<Value>> =
        response::decode(StatusCode::CREATED, b"7", [200, 201], response::json);
    assert_eq!(read.unwrap(), 7);
    let status = br#"{"kind":"Status","code":202,"reason":"Accepted"}"#;
    let other: Result<u32, ResponseError<Value>> =
        response::decode(StatusCode::ACCEPTED, status, [200, 201], response::json);
    assert!(
        matches!(other, Err(ResponseError::Status { .. })),
        "{other:?}"
    );
    assert!(response::any_success::<Value>(StatusCode::NO_CONTENT, b"junk").is_ok());
    assert!(matches!(
        response::any_success::<Value>(StatusCode::NOT_FOUND, status),
        Err(ResponseError::Status { .. })
    ));
}

#[test]
fn errors_are_statuses_or_text() {
    let status = br#"{"kind":"Status","apiVersion":"v1","code":409,"reason":"AlreadyExists"}"#;
    match response::error::<Value>(StatusCode::CONFLICT, status) {
        ResponseError::Status { status, body } => {
            assert_eq!(status, StatusCode::CONFLICT);
            assert_eq!(body["reason"], "AlreadyExists");
        }
        other => panic!("{other:?}"),
    }
    // Not a Status: the whole body as text, invalid UTF-8 replaced, never a panic.
    let mut page = "é".repeat(400).into_bytes();
    page.push(0xff);
    match response::error::<Value>(StatusCode::BAD_GATEWAY, &page) {
        ResponseError::UnexpectedStatus { body, .. } => {
            assert_eq!(body, format!("{}\u{fffd}", "é".repeat(400)));
        }
        other => panic!("{other:?}"),
    }
    let json_but_not_status = br#"{"kind":"Pod"}"#;
    assert!(matches!(
        response::error::<Value>(StatusCode::INTERNAL_SERVER_ERROR, json_but_not_status),
        ResponseError::UnexpectedStatus { .. }
    ));
    let e = response::json::<u32, Value>(StatusCode::OK, b"\"x\"").unwrap_err();
    assert_eq!(e.status(), StatusCode::OK);
    assert!(matches!(
        e,
        ResponseError::Decode {
            error: DecodeError::Json(_),
            ..
        }
    ));
}

#[test]
fn watch_streams_decode_as_they_arrive() {
    type Event = WatchEvent<Value, Value>;
    let stream = b"{\"type\":\"ADDED\",\"object\":{\"a\":1}}\n{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"5\"}}}\n{\"type\":\"DEL";
    let mut decoder = WatchDecoder::<Value, Value>::new(StatusCode::OK);
    let events: Vec<Event> = decoder
        .feed(stream)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(events.len(), 2);
    assert!(
        matches!(&events[1], WatchEvent::Bookmark(Bookmark { resource_version, .. }) if resource_version == "5")
    );
    assert!(decoder.feed(b"").is_empty());
    let events = decoder.feed(
        b"ETED\",\"object\":{}}\n{\"type\":\"NOPE\",\"object\":{}}\n{\"type\":7,\"object\":{}}",
    );
    assert!(matches!(events[0], Ok(WatchEvent::Deleted(_))));
    assert!(matches!(&events[1], Ok(WatchEvent::Other { event_type, .. }) if event_type == "NOPE"));
    assert!(matches!(events[2], Err(ResponseError::Decode { .. })));
    decoder.finish().unwrap();
}

#[test]
fn method_sets_and_params() {
    let set = MethodSet::PUT
        .union(MethodSet::GET)
        .union(MethodSet::DELETE);
    assert_eq!(set.to_string(), "DELETE, GET, PUT");
    assert!(set.contains(&Method::GET) && !set.contains(&Method::POST));
    assert!(!set.contains(&Method::from_bytes(b"get").unwrap()));
    assert!(MethodSet::EMPTY.is_empty());
    assert_eq!(set.iter().count(), 3);

    let mut params = PathParams::new();
    params.push("default");
    params.push("a%2Fb");
    let params = params.named(&["namespace", "name"]);
    assert_eq!(params.len(), 2);
    assert_eq!(params.get("name"), Some("a%2Fb"));
    assert_eq!(params.decoded("name").unwrap().unwrap(), "a/b");
    assert_eq!(
        format!("{params:?}"),
        r#"{"namespace": "default", "name": "a%2Fb"}"#
    );
    // Overflow drops values instead of panicking.
    let mut full = PathParams::new();
    for _ in 0..20 {
        full.push("x");
    }
    assert!(full.is_empty(), "unnamed parameters are not listed");

    for (segment, ok) in [
        ("a", true),
        ("", false),
        (".", false),
        ("..", false),
        ("...", true),
        ("a?b", false),
        ("a#", false),
        ("%2F", true),
    ] {
        assert_eq!(is_param_value(segment), ok, "{segment:?}");
    }
}

/// What `param_segment` must answer, written the slow way: the segment after the leading `/`
/// up to the next `/`, if it can be a parameter's value, and the rest from that `/`.
fn param_segment_reference(rest: &str) -> Option<(&str, &str)> {
    let after = rest.strip_prefix('/')?;
    let end = after.find('/').unwrap_or(after.len());
    let (segment, tail) = after.split_at(end);
    is_param_value(segment).then_some((segment, tail))
}

#[test]
fn parameter_segments_agree_with_the_slow_way() {
    // Every string over these bytes up to 6 long, behind every padding from 0 to 17 bytes, so
    // each byte lands at each position of the eight-byte words and of the tail.
    let alphabet = ['a', '/', '?', '#', '.'];
    let mut words = vec![String::new()];
    let mut all = Vec::new();
    for _ in 0..6 {
        words = words
            .iter()
            .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
            .collect();
        all.extend(words.iter().cloned());
    }
    let mut checked = 0;
    for pad in 0..18 {
        let padding = "x".repeat(pad);
        for word in &all {
            for path in [format!("/{padding}{word}"), format!("/{word}{padding}")] {
                assert_eq!(
                    param_segment(&path),
                    param_segment_reference(&path),
                    "{path:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 500_000, "{checked}");
    assert_eq!(param_segment("no-slash"), None);
    assert_eq!(param_segment("/%2Fa/b"), Some(("%2Fa", "/b")));
    assert_eq!(param_segment("/名前/x"), Some(("名前", "/x")));
}

#[test]
fn static_prefixes_end_at_whole_segments() {
    for (rest, prefix, expected) in [
        ("/api/v1/pods", "/api/v1", Some("/pods")),
        ("/api/v1", "/api/v1", Some("")),
        ("/api/v1/", "/api/v1", Some("/")),
        ("/api/v10", "/api/v1", None),
        ("/apis/apps", "/api", None),
        ("/api", "/api/v1", None),
        ("api/v1", "/api/v1", None),
        ("/", "/", Some("")),
        ("//", "/", Some("/")),
        ("/x", "/", None),
    ] {
        assert_eq!(
            strip_segments(rest, prefix),
            expected,
            "{rest:?} {prefix:?}"
        );
    }
}
