//! Kubernetes' protobuf encoding of the generated types, on Kubernetes' own fixtures: the
//! full 1.36 crate generated from `swagger.json` with the 1.36 `.proto` files (the crate the
//! scale test builds, `kubeforge_tests::scale::kubernetes_swagger_config`), built with its
//! `protobuf` feature, reads every fixture of `testdata/` whose kind it has in both
//! encodings: the `.pb` (the `k8s\0` envelope and `runtime.Unknown`) decodes to a value equal
//! to the `.json` decoded, and encoding that value gives the `.pb`'s bytes exactly.
//!
//! The faster tests read the companion crate's types (`kubeforge-meta`, whose `protobuf`
//! feature this crate turns on): `autoscaling/v1` `Scale`'s fixture (every `ObjectMeta`
//! field: times, owner references, managed fields, maps), unknown fields kept through a
//! read-modify-write, Go's zero values, and bad input named by byte offset and field path.

use std::fmt::Write as _;
use std::fs;

use kubeforge_meta::api::autoscaling::v1::{Scale, ScaleSpec};
use kubeforge_meta::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubeforge_meta::apimachinery::pkg::apis::meta::v1::Status;
use kubeforge_runtime::WatchEvent;
use kubeforge_runtime::protobuf::{
    Message, WatchFrames, decode_object, encode_envelope, encode_object, encode_watch_frame,
};
use kubeforge_tests::scale::{cargo, generate, kubernetes_swagger_config};
use kubeforge_tests::sorted_files;
use kubeforge_tests::{claims, corpus};

const TESTDATA: &str = "kubernetes/testdata";

#[test]
fn every_fixture_reads_and_writes_protobuf_as_go_does() {
    let Some(corpus) = corpus(
        "protobuf: Kubernetes 1.36 swagger.json, .proto files and fixtures",
        &["kubernetes/swagger.json", "kubernetes/proto", TESTDATA],
    ) else {
        return;
    };
    let config = kubernetes_swagger_config(&corpus);
    let api = config
        .model()
        .unwrap_or_else(|e| panic!("swagger.json does not model:\n{e}"));
    let dir = generate("scale-kubernetes-swagger", &config);

    let mut arms = String::new();
    for ty in api.types() {
        let (Some(gvk), Some(_)) = (ty.gvk(), ty.protobuf_message()) else {
            continue;
        };
        writeln!(
            arms,
            "        ({:?}, {:?}) => check::<scale_kubernetes_swagger::{}>(json, pb),",
            gvk.api_version(),
            gvk.kind,
            ty.path()
        )
        .expect("write to string");
    }
    let program = PROGRAM.replace("ARMS\n", &arms);
    fs::create_dir_all(dir.join("examples")).expect("examples dir");
    fs::write(dir.join("examples/protobuf_fixtures.rs"), program).expect("write program");

    let fixtures: Vec<String> = sorted_files(&corpus.join(TESTDATA), "json")
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let mut args = vec![
        "run",
        "--quiet",
        "--features",
        "protobuf",
        "--example",
        "protobuf_fixtures",
        "--",
    ];
    args.extend(fixtures.iter().map(String::as_str));
    let report = cargo(&dir, &args);
    let summary = report
        .lines()
        .find(|l| l.starts_with("protobuf:"))
        .unwrap_or_else(|| panic!("no summary:\n{report}"));
    let numbers: Vec<usize> = summary
        .split_whitespace()
        .filter_map(|w| w.trim_start_matches('(').parse().ok())
        .collect();
    let [passed, matched, unmatched] = numbers[..] else {
        panic!("unexpected summary {summary:?}")
    };
    assert_eq!(matched + unmatched, fixtures.len());
    // Every fixture whose kind the 1.36 API serves (those the JSON round trip counts) has a
    // message, and every one passes both ways.
    assert_eq!(
        matched,
        claims::ROUND_TRIPPED_FIXTURES,
        "fixtures with a message:\n{report}"
    );
    assert_eq!(passed, matched, "fixtures passing both ways:\n{report}");
}

/// The `Scale` fixture both ways, with the companion crate's types alone.
#[test]
fn the_scale_fixture_reads_and_writes_as_go_does() {
    let Some(corpus) = corpus("protobuf: the autoscaling/v1 Scale fixture", &[TESTDATA]) else {
        return;
    };
    let dir = corpus.join(TESTDATA);
    let json = fs::read_to_string(dir.join("autoscaling.v1.Scale.json")).expect("fixture");
    let pb = fs::read(dir.join("autoscaling.v1.Scale.pb")).expect("fixture");
    let from_json: Scale = serde_json::from_str(&json).expect("the JSON reads");
    let from_pb: Scale = decode_object(&pb).expect("the protobuf decodes");
    assert_eq!(from_pb, from_json);
    assert_eq!(
        from_pb.metadata.as_ref().and_then(|m| m.generation),
        Some(7),
        "the fixture sets every field"
    );
    assert!(
        encode_object(&from_json) == pb,
        "the encoding is Go's, byte for byte"
    );
}

/// A field a newer server sends (number 99 of `ObjectMeta`, 42 of `ScaleSpec`) survives a
/// read-modify-write in protobuf, where it was, after the known fields.
#[test]
fn unknown_fields_survive_a_read_modify_write() {
    let scale = Scale {
        metadata: Some(ObjectMeta {
            name: Some("web".into()),
            ..ObjectMeta::default()
        }),
        spec: Some(ScaleSpec {
            replicas: Some(2),
            ..ScaleSpec::default()
        }),
        ..Scale::default()
    };
    let mut raw = scale.encode_to_vec();
    // metadata (field 1) gets field 99, a string, inside it: rewrite field 1 by hand.
    let meta = scale.metadata.as_ref().expect("set").encode_to_vec();
    let mut meta_newer = meta.clone();
    meta_newer.extend([0x9a, 0x06, 3, b'n', b'e', b'w']); // 99, LEN, "new"
    let spec = scale.spec.as_ref().expect("set").encode_to_vec();
    let mut spec_newer = spec.clone();
    spec_newer.extend([0xd0, 0x02, 0x05]); // 42, varint 5
    raw.clear();
    raw.push(0x0a);
    raw.push(u8::try_from(meta_newer.len()).expect("short"));
    raw.extend(&meta_newer);
    raw.push(0x12);
    raw.push(u8::try_from(spec_newer.len()).expect("short"));
    raw.extend(&spec_newer);

    let mut read = Scale::decode(&raw).expect("decodes");
    read.spec.as_mut().expect("spec").replicas = Some(3);
    let written = read.encode_to_vec();
    let again = Scale::decode(&written).expect("decodes");
    assert_eq!(again.spec.as_ref().and_then(|s| s.replicas), Some(3));
    assert!(
        written
            .windows(6)
            .any(|w| w == [0x9a, 0x06, 3, b'n', b'e', b'w']),
        "ObjectMeta's unknown field is written back: {written:02x?}"
    );
    assert!(
        written.ends_with(&[0xd0, 0x02, 0x05]),
        "ScaleSpec's unknown field is written back after its known ones: {written:02x?}"
    );
    assert_eq!(again, read, "and reads back the same");
    // JSON knows nothing of them: they are no JSON keys.
    let json = serde_json::to_value(&read).expect("JSON");
    assert_eq!(json["metadata"], serde_json::json!({"name": "web"}));
}

/// Zero is not unset: an optional field set to zero (`deletionGracePeriodSeconds: 0`, a Go
/// pointer) is written and reads back set, and an unset one is not written (what Go reads
/// for a missing field is its zero, for a value field and a pointer alike); a message set to
/// an empty message stays set.
#[test]
fn zero_is_not_unset() {
    let meta = ObjectMeta {
        deletion_grace_period_seconds: Some(0),
        name: Some(String::new()),
        ..ObjectMeta::default()
    };
    let bytes = meta.encode_to_vec();
    assert_eq!(
        bytes,
        [0x0a, 0, 0x50, 0],
        "name (1) \"\" and deletionGracePeriodSeconds (10) 0"
    );
    assert_eq!(ObjectMeta::decode(&bytes).expect("decodes"), meta);
    assert_eq!(ObjectMeta::default().encode_to_vec(), [0u8; 0]);
    let scale = Scale {
        spec: Some(ScaleSpec::default()),
        ..Scale::default()
    };
    let read = Scale::decode(&scale.encode_to_vec()).expect("decodes");
    assert_eq!(
        read.spec,
        Some(ScaleSpec::default()),
        "an empty message stays set"
    );
    assert_eq!(read.metadata, None, "an absent message stays unset");
}

/// Bad input is an error naming the byte offset and the field path, never a panic: every
/// truncation of the fixture, a wrong envelope, a wrong kind and a wire-type mismatch.
#[test]
fn bad_input_names_the_byte_and_the_field() {
    let Some(corpus) = corpus("protobuf: the autoscaling/v1 Scale fixture", &[TESTDATA]) else {
        return;
    };
    let pb = fs::read(corpus.join(TESTDATA).join("autoscaling.v1.Scale.pb")).expect("fixture");
    let mut errors = 0;
    for cut in 0..pb.len() {
        if let Err(e) = decode_object::<Scale>(&pb[..cut]) {
            assert!(e.offset() <= cut, "{e} past the end {cut}");
            errors += 1;
        }
    }
    assert!(
        errors > pb.len() / 2,
        "truncations fail: {errors} of {}",
        pb.len()
    );
    // A length inside metadata.ownerReferences[0] past the end of its message.
    let start = pb
        .windows(15)
        .position(|w| w == b"apiVersionValue")
        .expect("the owner reference's apiVersion");
    let mut corrupt = pb.clone();
    corrupt[start - 1] = 0x7f;
    let e = decode_object::<Scale>(&corrupt).expect_err("a length past the end");
    assert_eq!(e.offset(), start - 1, "{e}");
    assert_eq!(e.path(), "metadata.ownerReferences[0].apiVersion", "{e}");
    let e = decode_object::<Scale>(b"{\"kind\":\"Scale\"}").expect_err("JSON is no envelope");
    assert_eq!(e.offset(), 0);
    assert!(e.to_string().contains("k8s\\x00"), "{e}");
    let other = kubeforge_runtime::protobuf::encode_envelope("v1", "Pod", &[]);
    let e = decode_object::<Scale>(&other).expect_err("a Pod is no Scale");
    assert!(e.to_string().contains("holds a v1 Pod"), "{e}");
    // metadata (1) as a varint.
    let e = Scale::decode(&[0x08, 0x01]).expect_err("wire type");
    assert_eq!((e.offset(), e.path().as_str()), (1, "metadata"), "{e}");
    assert!(e.to_string().contains("wire type"), "{e}");
}

/// What the fuzz target (`fuzz/fuzz_targets/protobuf.rs`) checks, on every one-byte change
/// of the `Scale` fixture: any bytes decode or give an error inside them, never a panic, and
/// what decodes encodes to bytes that decode to the same value.
#[test]
fn every_one_byte_change_decodes_or_errs_and_round_trips() {
    let Some(corpus) = corpus("protobuf: the autoscaling/v1 Scale fixture", &[TESTDATA]) else {
        return;
    };
    let pb = fs::read(corpus.join(TESTDATA).join("autoscaling.v1.Scale.pb")).expect("fixture");
    let (mut decoded, mut failed) = (0, 0);
    for at in 0..pb.len() {
        for byte in [0x00, 0x01, 0x07, 0x0a, 0x12, 0x7f, 0x80, 0xff] {
            let mut changed = pb.clone();
            changed[at] = byte;
            for bytes in [&changed[..], &changed[4.min(at)..]] {
                match decode_object::<Scale>(bytes) {
                    Ok(scale) => {
                        decoded += 1;
                        let again = decode_object::<Scale>(&encode_object(&scale))
                            .expect("what was encoded decodes");
                        assert_eq!(again, scale, "byte {at} as {byte:#04x}");
                    }
                    Err(e) => {
                        failed += 1;
                        assert!(e.offset() <= bytes.len(), "{e}");
                    }
                }
                if let Ok(meta) = ObjectMeta::decode(bytes) {
                    assert_eq!(ObjectMeta::decode(&meta.encode_to_vec()), Ok(meta));
                }
            }
        }
    }
    assert!(
        decoded > 0 && failed > 0,
        "{decoded} decoded, {failed} failed"
    );
}

/// The watch stream's protobuf frames decode as their bytes arrive, one byte at a time:
/// objects, a bookmark, an error `Status`; a corrupt object names its offset in the stream.
#[test]
fn watch_frames_decode_as_they_arrive() {
    let scale = |replicas| Scale {
        metadata: Some(ObjectMeta {
            name: Some("web".into()),
            ..ObjectMeta::default()
        }),
        spec: Some(ScaleSpec {
            replicas: Some(replicas),
            ..ScaleSpec::default()
        }),
        ..Scale::default()
    };
    let bookmark = ObjectMeta {
        resource_version: Some("12".into()),
        annotations: Some([("k8s.io/initial-events-end".to_owned(), "true".to_owned())].into()),
        ..ObjectMeta::default()
    };
    let mut bookmark_raw = Vec::new();
    bookmark_raw.push(0x0a);
    let meta = bookmark.encode_to_vec();
    bookmark_raw.push(u8::try_from(meta.len()).expect("short"));
    bookmark_raw.extend(meta);
    let status = Status {
        code: Some(410),
        reason: Some("Expired".into()),
        ..Status::default()
    };
    let mut stream = Vec::new();
    stream.extend(encode_watch_frame("ADDED", &encode_object(&scale(1))));
    stream.extend(encode_watch_frame("MODIFIED", &encode_object(&scale(0))));
    stream.extend(encode_watch_frame(
        "BOOKMARK",
        &encode_envelope("autoscaling/v1", "Scale", &bookmark_raw),
    ));
    stream.extend(encode_watch_frame(
        "ERROR",
        &encode_envelope("v1", "Status", &status.encode_to_vec()),
    ));
    let mut frames = WatchFrames::new();
    let mut events: Vec<WatchEvent<Scale, Status>> = Vec::new();
    for byte in &stream {
        frames.push(&[*byte]);
        while let Some(event) = frames.next_event::<Scale, Status>() {
            events.push(event.expect("decodes"));
        }
    }
    assert!(!frames.is_partial());
    let mut added = scale(1);
    added.api_version = kubeforge_runtime::ApiVersion::present();
    added.kind = kubeforge_runtime::Kind::present();
    let mut modified = scale(0);
    modified.api_version = added.api_version;
    modified.kind = added.kind;
    assert_eq!(events.len(), 4);
    assert_eq!(events[0], WatchEvent::Added(added));
    assert_eq!(
        events[1],
        WatchEvent::Modified(modified),
        "replicas 0 stays set"
    );
    let WatchEvent::Bookmark(mark) = &events[2] else {
        panic!("{:?}", events[2]);
    };
    assert_eq!(mark.resource_version, "12");
    assert_eq!(mark.annotations["k8s.io/initial-events-end"], "true");
    assert_eq!(mark.kind.as_deref(), Some("Scale"));
    assert_eq!(events[3], WatchEvent::Error(status));

    // An object whose envelope names another kind, after a good frame.
    let good = encode_watch_frame("ADDED", &encode_object(&scale(1)));
    let bad = encode_watch_frame("ADDED", &encode_envelope("v1", "Pod", &[]));
    let mut frames = WatchFrames::new();
    frames.push(&good);
    frames.push(&bad);
    assert!(
        frames
            .next_event::<Scale, Status>()
            .expect("a frame")
            .is_ok()
    );
    let e = frames
        .next_event::<Scale, Status>()
        .expect("a frame")
        .expect_err("a Pod is no Scale");
    assert!(e.offset() > good.len(), "{e}");
    assert_eq!(e.path(), "object", "{e}");
}

/// The program the test runs over the fixtures (`ARMS` becomes the dispatch table).
const PROGRAM: &str = r#"//! Written by kubeforge's protobuf test: each fixture's .pb decodes to its .json decoded,
//! and encodes back to the same bytes.
use kubeforge_runtime::TypeMeta;
use kubeforge_runtime::protobuf::{Message, decode_object, encode_object};
use serde::de::DeserializeOwned;

fn check<T: DeserializeOwned + serde::Serialize + Message + TypeMeta + PartialEq>(
    json: &str,
    pb: &[u8],
) -> Result<(), String> {
    let from_json: T = serde_json::from_str(json).map_err(|e| format!("the .json does not read: {e}"))?;
    let from_pb: T = decode_object(pb).map_err(|e| format!("the .pb does not decode: {e}"))?;
    let mut problems = Vec::new();
    if from_pb != from_json {
        let json = serde_json::to_string(&from_json).unwrap_or_default();
        let pb = serde_json::to_string(&from_pb).unwrap_or_default();
        problems.push(format!("decoded differs:\n  json {json}\n  pb   {pb}"));
    }
    let bytes = encode_object(&from_json);
    if bytes != pb {
        let at = bytes.iter().zip(pb).position(|(a, b)| a != b).unwrap_or(bytes.len().min(pb.len()));
        let window = |b: &[u8]| format!("{:02x?}", &b[at.saturating_sub(8)..(at + 16).min(b.len())]);
        problems.push(format!(
            "encoding differs at byte {at} ({} bytes, the .pb {}): {} vs {}",
            bytes.len(),
            pb.len(),
            window(&bytes),
            window(pb)
        ));
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n")) }
}

fn dispatch(json: &str, pb: &[u8]) -> Option<Result<(), String>> {
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    let api_version = value.get("apiVersion")?.as_str()?;
    let kind = value.get("kind")?.as_str()?;
    Some(match (api_version, kind) {
ARMS
        _ => return None,
    })
}

fn main() {
    let (mut matched, mut passed, mut unmatched) = (0, 0, 0);
    for path in std::env::args().skip(1) {
        let json = std::fs::read_to_string(&path).expect("fixture readable");
        let pb = std::fs::read(path.replace(".json", ".pb")).expect("the .pb beside it");
        match dispatch(&json, &pb) {
            None => unmatched += 1,
            Some(result) => {
                matched += 1;
                match result {
                    Ok(()) => passed += 1,
                    Err(e) => println!("FAIL {path}: {e}"),
                }
            }
        }
    }
    println!("protobuf: {passed} of {matched} matched fixtures pass both ways ({unmatched} not in this API)");
}
"#;

/// The route helpers (`protobuf::routes`) with the companion crate's `Scale` and `Status`:
/// protobuf asked for as client-go asks; a response read by its `Content-Type`, an error
/// status's `Status` in protobuf as in JSON, a delete's `Status` or object by the
/// envelope's kind; a watch's protobuf frames taken as they arrive, a cut one an error.
/// `server/tests/protobuf_routes.rs` runs them on a generated crate against the server.
#[test]
fn route_helpers_read_by_content_type() {
    use kubeforge_runtime::http::{Request, StatusCode};
    use kubeforge_runtime::protobuf::routes;
    use kubeforge_runtime::{ResponseError, StatusOr, WatchDecoder, response};

    const PROTOBUF: Option<&str> = Some("application/vnd.kubernetes.protobuf");
    let json_request = |accept: &str| {
        Request::builder()
            .header("accept", accept)
            .body(Vec::new())
            .expect("a request")
    };
    let asked = routes::accept(json_request("application/json"));
    assert_eq!(
        asked.headers()["accept"],
        "application/vnd.kubernetes.protobuf, application/json"
    );
    let text = routes::accept(json_request("text/plain"));
    assert_eq!(text.headers()["accept"], "text/plain", "a log stays text");

    let scale = Scale {
        metadata: Some(ObjectMeta {
            name: Some("web".into()),
            ..ObjectMeta::default()
        }),
        spec: Some(ScaleSpec {
            replicas: Some(0),
            ..ScaleSpec::default()
        }),
        ..Scale::default()
    };
    let sent = routes::with_body(json_request("application/json"), &scale);
    assert_eq!(
        sent.headers()["content-type"],
        "application/vnd.kubernetes.protobuf"
    );
    assert_eq!(decode_object::<Scale>(sent.body()).expect("decodes"), scale);

    // What a generated decoder is: `response::decode` with the success statuses.
    fn read_scale(status: StatusCode, body: &[u8]) -> Result<Scale, ResponseError<Status>> {
        response::decode(status, body, [200], response::json)
    }
    let read = |status, content_type, body: &[u8]| {
        routes::decode::<Scale, Status>(status, content_type, body, read_scale)
    };
    let pb = encode_object(&scale);
    let json = serde_json::to_vec(&scale).expect("JSON");
    assert_eq!(
        read(StatusCode::OK, PROTOBUF, &pb).expect("protobuf"),
        scale
    );
    assert_eq!(
        read(StatusCode::OK, Some("application/json"), &json).expect("JSON"),
        scale
    );
    // The body is not sniffed: protobuf is what the Content-Type says.
    assert!(matches!(
        read(StatusCode::OK, Some("application/json"), &pb),
        Err(ResponseError::Decode { .. })
    ));
    let cut = read(StatusCode::OK, PROTOBUF, &pb[..pb.len() / 2]).expect_err("cut");
    assert!(cut.to_string().contains("at byte"), "{cut}");

    let not_found = Status {
        code: Some(404),
        reason: Some("NotFound".into()),
        ..Status::default()
    };
    let status_pb = encode_envelope("v1", "Status", &not_found.encode_to_vec());
    match read(StatusCode::NOT_FOUND, PROTOBUF, &status_pb) {
        Err(ResponseError::Status { status, body }) => {
            assert_eq!(status, StatusCode::NOT_FOUND);
            assert_eq!(body.reason.as_deref(), Some("NotFound"));
        }
        other => panic!("expected a Status, got {other:?}"),
    }
    let status_json = serde_json::to_vec(&serde_json::json!(
        {"kind": "Status", "apiVersion": "v1", "code": 404, "reason": "NotFound"}
    ))
    .expect("JSON");
    assert!(matches!(
        read(
            StatusCode::NOT_FOUND,
            Some("application/json"),
            &status_json
        ),
        Err(ResponseError::Status { .. })
    ));
    assert!(matches!(
        read(StatusCode::BAD_GATEWAY, PROTOBUF, b"<html>"),
        Err(ResponseError::UnexpectedStatus { .. })
    ));

    let deleted = routes::decode::<StatusOr<Scale, Status>, Status>(
        StatusCode::OK,
        PROTOBUF,
        &status_pb,
        response::status_or,
    );
    assert!(matches!(deleted, Ok(StatusOr::Status(_))), "{deleted:?}");
    let deleting = routes::decode::<StatusOr<Scale, Status>, Status>(
        StatusCode::OK,
        PROTOBUF,
        &pb,
        response::status_or,
    );
    assert_eq!(deleting.expect("the object").object(), Some(scale.clone()));

    let mut stream = encode_watch_frame("ADDED", &pb);
    stream.extend(encode_watch_frame("DELETED", &pb));
    let json_decoder: fn(StatusCode) -> WatchDecoder<Scale, Status> = WatchDecoder::new;
    let mut watch = routes::watch(
        StatusCode::OK,
        Some("application/vnd.kubernetes.protobuf;stream=watch"),
        json_decoder,
    );
    let mut events = Vec::new();
    for byte in &stream {
        events.extend(watch.feed(&[*byte]));
    }
    assert_eq!(events.len(), 2);
    assert!(matches!(&events[1], Ok(WatchEvent::Deleted(s)) if *s == scale));
    watch.finish().expect("the stream ended between frames");
    let mut cut = routes::watch(StatusCode::OK, PROTOBUF, json_decoder);
    assert_eq!(cut.feed(&stream[..7]).len(), 0);
    assert!(cut.finish().is_err(), "a stream cut inside a frame");
    let mut refused = routes::watch(StatusCode::GONE, PROTOBUF, json_decoder);
    assert!(refused.feed(&status_pb).is_empty());
    assert!(matches!(
        refused.finish(),
        Err(ResponseError::Status { .. })
    ));
}
