//! The protobuf contenders of `cargo xtask bench` (section c, issue 49): the second
//! measurement program, built as the throwaway project `target/bench-peers/harness-pb/` with
//! the crate generated with `--proto` (feature `protobuf`) and k8s-pb's prost types. It is a
//! program of its own so that cargo does not unify `kubeforge-runtime`'s `protobuf` feature
//! into the JSON contenders of `main.rs`. Same protocol as `main.rs`: one JSON object on
//! standard output per invocation.
//!
//! harness-pb protobuf <ours-pb|k8s-pb> <fixture> <copies> <iterations>
//!                                                      the fixture's list in protobuf (its
//!                                                      `.pb`): objects/s, heap held per object
//! harness-pb instructions <ours-pb|k8s-pb> <fixture> <copies> <deserialize|serialize>
//!                                                      one call of `counted_<what>`, for
//!                                                      callgrind's `--toggle-collect`

mod common;
mod protocol;

use common::{codec, counted, kind, number, report, serializing};

/// `$body` with `$decode` and `$encode` the list type of the fixture's kind in `$who`'s
/// protobuf: `ours-pb` (the generated crate, `decode_object`/`encode_object`) or `k8s-pb`
/// (prost's `Message::decode` of the envelope's message, `encode_to_vec` wrapped in the
/// envelope as ours is: k8s-pb has no envelope, the runtime's borrowing reader unwraps it).
macro_rules! with_codec {
    ($who:expr, $kind:expr, |$decode:ident, $encode:ident| $body:expr) => {{
        use k8s_pb::api as pbapi;
        use kube_api_pb::api as our;
        match ($who, $kind) {
            ("ours-pb", "core.v1.Pod.json") => {
                let ($decode, $encode) = (ours_decode::<our::core::v1::PodList>, ours_encode);
                $body
            }
            ("ours-pb", "apps.v1.Deployment.json") => {
                let ($decode, $encode) = (ours_decode::<our::apps::v1::DeploymentList>, ours_encode);
                $body
            }
            ("ours-pb", "core.v1.Node.json") => {
                let ($decode, $encode) = (ours_decode::<our::core::v1::NodeList>, ours_encode);
                $body
            }
            ("k8s-pb", "core.v1.Pod.json") => {
                let $decode = prost_decode::<pbapi::core::v1::PodList>;
                let $encode = |v: &pbapi::core::v1::PodList, o: &mut Vec<u8>| {
                    prost_encode("v1", "PodList", v, o);
                };
                $body
            }
            ("k8s-pb", "apps.v1.Deployment.json") => {
                let $decode = prost_decode::<pbapi::apps::v1::DeploymentList>;
                let $encode = |v: &pbapi::apps::v1::DeploymentList, o: &mut Vec<u8>| {
                    prost_encode("apps/v1", "DeploymentList", v, o);
                };
                $body
            }
            ("k8s-pb", "core.v1.Node.json") => {
                let $decode = prost_decode::<pbapi::core::v1::NodeList>;
                let $encode = |v: &pbapi::core::v1::NodeList, o: &mut Vec<u8>| {
                    prost_encode("v1", "NodeList", v, o);
                };
                $body
            }
            (who, kind) => panic!("no type for {who} {kind}"),
        }
    }};
}
use with_codec;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["protobuf", who, fixture, copies, iterations] => {
            let copies = number(copies, "copies");
            let iterations = number(iterations, "iterations");
            let input = protobuf_list_of(fixture, copies);
            let result = with_codec!(*who, kind(fixture), |decode, encode| codec(
                &input,
                copies,
                iterations,
                decode,
                encode,
                same_message
            ));
            report(&result);
        }
        ["instructions", who, fixture, copies, what] => {
            let input = protobuf_list_of(fixture, number(copies, "copies"));
            let serialize = serializing(what);
            let out_bytes = with_codec!(*who, kind(fixture), |decode, encode| counted(
                &input, serialize, decode, encode
            ));
            report(&protocol::Counted {
                in_bytes: input.len() as u64,
                out_bytes: out_bytes as u64,
            });
        }
        _ => {
            eprintln!("usage: see the doc comment of bench-harness/protobuf.rs; got {args:?}");
            std::process::exit(2);
        }
    }
}

/// The fixture's `.pb` (beside its `.json`), `copies` times as the items of its kind's list
/// (`…List`, field 2; the list's metadata, field 1, left out), in the envelope. Written key by
/// key from the fixture's own message bytes, so the input owes nothing to either encoder.
fn protobuf_list_of(fixture: &str, copies: usize) -> Vec<u8> {
    use prost::Message as _;
    let pb = std::fs::read(std::path::Path::new(fixture).with_extension("pb")).expect("read .pb");
    let one = k8s_pb::apimachinery::pkg::runtime::Unknown::decode(&pb[4..]).expect("envelope");
    let meta = one.type_meta.clone().expect("typeMeta");
    let mut items = Vec::with_capacity((one.raw().len() + 4) * copies);
    for _ in 0..copies {
        prost::encoding::encode_key(2, prost::encoding::WireType::LengthDelimited, &mut items);
        prost::encoding::encode_varint(one.raw().len() as u64, &mut items);
        items.extend_from_slice(one.raw());
    }
    kubeforge_runtime::protobuf::encode_envelope(
        meta.api_version(),
        &format!("{}List", meta.kind()),
        &items,
    )
}

/// The same message in both envelopes.
fn same_message(a: &[u8], b: &[u8]) -> bool {
    use kubeforge_runtime::protobuf::decode_envelope;
    matches!((decode_envelope(a), decode_envelope(b)), (Ok(a), Ok(b)) if a.raw == b.raw)
}

/// Ours: the generated list type, `decode_object` and `encode_object`.
fn ours_decode<T: kubeforge_runtime::protobuf::Message + kubeforge_runtime::TypeMeta>(
    body: &[u8],
) -> T {
    kubeforge_runtime::protobuf::decode_object(body).expect("decode")
}

fn ours_encode<T: kubeforge_runtime::protobuf::Message + kubeforge_runtime::TypeMeta>(
    value: &T,
    out: &mut Vec<u8>,
) {
    *out = kubeforge_runtime::protobuf::encode_object(value);
}

/// k8s-pb: prost's `Message::decode` of the envelope's message.
fn prost_decode<T: prost::Message + Default>(body: &[u8]) -> T {
    let envelope = kubeforge_runtime::protobuf::decode_envelope(body).expect("envelope");
    T::decode(envelope.raw).expect("decode")
}

fn prost_encode<T: prost::Message>(api_version: &str, kind: &str, value: &T, out: &mut Vec<u8>) {
    *out = kubeforge_runtime::protobuf::encode_envelope(api_version, kind, &value.encode_to_vec());
}
