//! Fuzzes the protobuf decoder of the generated types (`kubeforge_runtime::protobuf`, the
//! `Message` impls kubeforge-meta is generated with): any bytes must decode or give an error
//! with a byte offset, never panic; and what decodes must encode to bytes that decode to the
//! same value (unknown fields included).
#![no_main]

use kubeforge_meta::api::autoscaling::v1::Scale;
use kubeforge_meta::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Status};
use kubeforge_runtime::protobuf::{Message, decode_object, encode_object};
use libfuzzer_sys::fuzz_target;

fn round_trip<T: Message + PartialEq + std::fmt::Debug>(data: &[u8]) {
    match T::decode(data) {
        Ok(value) => {
            let bytes = value.encode_to_vec();
            let again = T::decode(&bytes).expect("what was encoded decodes");
            assert_eq!(again, value, "decode → encode → decode changes the value");
        }
        Err(e) => assert!(e.offset() <= data.len(), "offset {} past the end", e.offset()),
    }
}

fuzz_target!(|data: &[u8]| {
    round_trip::<ObjectMeta>(data);
    round_trip::<Status>(data);
    if let Ok(scale) = decode_object::<Scale>(data) {
        let again = decode_object::<Scale>(&encode_object(&scale)).expect("what was encoded decodes");
        assert_eq!(again, scale);
    }
});
