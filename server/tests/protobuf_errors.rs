//! The `Status` of a failure in the encoding the client negotiated, as kube-apiserver's
//! `responsewriters.ErrorNegotiated` writes it: a client that asks for protobuf first gets
//! its error in protobuf too (`k8s\0`, a `runtime.Unknown` naming `v1` `Status`, then the
//! `meta.v1.Status` message by field number), one that asks for JSON first gets JSON, and a
//! 406 (the negotiation itself failed) is JSON whatever was asked. Raw HTTP against the
//! server in process; `protobuf_routes.rs` decodes the same with the generated decoders.

use std::path::PathBuf;

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use kubeforge_server::{Catalog, Server};
use tower::ServiceExt;

const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";
const LEASES: &str = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
const LEASE: &str =
    r#"{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"held"}}"#;

fn server() -> Server {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    Server::new(Catalog::from_documents(&files).unwrap())
}

/// The status, the `Content-Type` and the body of a request.
async fn send(
    server: &Server,
    method: Method,
    uri: &str,
    accept: &str,
    content_type: &str,
    body: &str,
) -> (StatusCode, String, Bytes) {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("accept", accept)
        .header("content-type", content_type)
        .body(Full::new(Bytes::from(body.to_owned())))
        .unwrap();
    let response = server.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, content_type, body)
}

/// The message of a `v1` `Status` in its envelope: `k8s\0`, then `runtime.Unknown`'s
/// `typeMeta` (field 1: apiVersion `v1`, kind `Status`), its `raw` (field 2) and its empty
/// `contentEncoding` and `contentType` (fields 3 and 4), as Go writes them; the message
/// starts with `metadata` (field 1, an empty `ListMeta`) and `status` (field 2, `Failure`).
fn status_message(body: &[u8]) -> &[u8] {
    let head = b"k8s\0\x0a\x0c\x0a\x02v1\x12\x06Status\x12";
    assert!(body.starts_with(head), "not a protobuf Status: {body:02x?}");
    let rest = &body[head.len()..];
    // The length of `raw`, a varint.
    let (mut length, mut read) = (0usize, 0);
    for (i, byte) in rest.iter().enumerate() {
        length |= usize::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            read = i + 1;
            break;
        }
    }
    let (raw, tail) = rest[read..].split_at(length);
    assert_eq!(tail, b"\x1a\x00\x22\x00", "the envelope's last two fields");
    assert!(raw.starts_with(b"\x0a\x00\x12\x07Failure"), "{raw:02x?}");
    raw
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[tokio::test]
async fn errors_come_in_the_encoding_the_client_asked_for() {
    let server = server();
    let missing = format!("{LEASES}/missing");
    let message = br#"leases.coordination.k8s.io "missing" not found"#;

    // Protobuf first, as client-go asks: 404 in protobuf, `code` (field 6) last.
    let accept = format!("{PROTOBUF}, application/json");
    let (status, content_type, body) = send(&server, Method::GET, &missing, &accept, "", "").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(content_type, PROTOBUF);
    let raw = status_message(&body);
    assert!(contains(raw, message), "{raw:02x?}");
    assert!(contains(raw, b"\x22\x08NotFound"), "reason, field 4");
    assert!(
        raw.ends_with(b"\x30\x94\x03"),
        "code 404, field 6: {raw:02x?}"
    );

    // JSON first, or nothing said: JSON.
    for accept in [format!("application/json, {PROTOBUF}"), String::new()] {
        let (status, content_type, body) =
            send(&server, Method::GET, &missing, &accept, "", "").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(content_type, "application/json", "{accept:?}");
        let status: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(status["reason"], "NotFound");
    }

    // A conflict, and a body in a media type the kind has no decoder for, the same way.
    let (status, _, _) = send(&server, Method::POST, LEASES, "", "application/json", LEASE).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, content_type, body) = send(
        &server,
        Method::POST,
        LEASES,
        PROTOBUF,
        "application/json",
        LEASE,
    )
    .await;
    assert_eq!(
        (status, content_type.as_str()),
        (StatusCode::CONFLICT, PROTOBUF)
    );
    assert!(contains(status_message(&body), b"\x22\x0dAlreadyExists"));
    let (status, content_type, body) =
        send(&server, Method::POST, LEASES, PROTOBUF, "text/plain", "x").await;
    assert_eq!(
        (status, content_type.as_str()),
        (StatusCode::UNSUPPORTED_MEDIA_TYPE, PROTOBUF)
    );
    assert!(contains(
        status_message(&body),
        b"\x22\x14UnsupportedMediaType"
    ));

    // 406: the negotiation failed, so the error is JSON (`WriteRawJSON`).
    let table = format!("{PROTOBUF};as=Table;g=meta.k8s.io;v=v1");
    let (status, content_type, _) = send(&server, Method::GET, &missing, &table, "", "").await;
    assert_eq!(
        (status, content_type.as_str()),
        (StatusCode::NOT_ACCEPTABLE, "application/json")
    );
}
