//! The generated types deserialize and re-serialize real objects losslessly, compared as
//! JSON values: Kubernetes' own round-trip fixtures (including fields newer than the
//! schema, kept as unknown fields) and the example of seed page 002.

use kubeforge_api::api::coordination::v1::Lease;
use kubeforge_api::api::core::v1::{Endpoints, Pod};
use kubeforge_tests::{corpus, json_diff::differences};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Value, json};

fn round_trip<T: DeserializeOwned + Serialize>(original: &Value) -> Result<Value, String> {
    let text = serde_json::to_string(original).map_err(|e| e.to_string())?;
    let typed: T = serde_json::from_str(&text).map_err(|e| format!("does not deserialize: {e}"))?;
    serde_json::to_value(&typed).map_err(|e| format!("does not serialize: {e}"))
}

fn assert_lossless<T: DeserializeOwned + Serialize>(name: &str, original: &Value) {
    let back = round_trip::<T>(original).unwrap_or_else(|e| panic!("{name}: {e}"));
    let diffs = differences(original, &back, 20);
    assert!(
        diffs.is_empty(),
        "{name} is not lossless:\n{}",
        diffs.join("\n")
    );
}

/// The corpus fixture `name`, or `None` after a visible `SKIPPED` (a failure in CI).
fn fixture(name: &str) -> Option<Value> {
    let relative = format!("kubernetes/testdata/{name}");
    let dir = corpus(&format!("round trip of {name}"), &[&relative])?;
    let path = dir.join(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(serde_json::from_str(&text).expect("fixture is JSON"))
}

#[test]
fn lease_fixture_round_trips() {
    if let Some(value) = fixture("coordination.k8s.io.v1.Lease.json") {
        assert_lossless::<Lease>("coordination.k8s.io.v1.Lease.json", &value);
    }
}

#[test]
fn endpoints_fixture_round_trips() {
    if let Some(value) = fixture("core.v1.Endpoints.json") {
        assert_lossless::<Endpoints>("core.v1.Endpoints.json", &value);
    }
}

/// Fields of the fixture newer than `schemas/core_v1.json`: the types do not know them, and
/// keep them in `unknown_fields` all the same (`Config::unknown_fields`).
const POD_FIELDS_NEW_IN_1_36: &[&str] = &[
    "/spec/schedulingGroup",
    "/status/initContainerStatuses/0/volumeMounts/0/volumeStatus",
    "/status/initContainerStatuses/0/allocatedResourcesStatus/0/resources/0/message",
    "/status/containerStatuses/0/volumeMounts/0/volumeStatus",
    "/status/containerStatuses/0/allocatedResourcesStatus/0/resources/0/message",
    "/status/ephemeralContainerStatuses/0/volumeMounts/0/volumeStatus",
    "/status/ephemeralContainerStatuses/0/allocatedResourcesStatus/0/resources/0/message",
    "/status/nodeAllocatableResourceClaimStatuses",
];

#[test]
fn pod_fixture_round_trips_with_fields_newer_than_the_schema() {
    let Some(value) = fixture("core.v1.Pod.json") else {
        return;
    };
    assert_lossless::<Pod>("core.v1.Pod.json", &value);
    let pod: Pod = serde_json::from_value(value.clone()).expect("reads");
    let unknown_field = |pointer: &str| {
        let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
        let parent = value.pointer(parent).expect("in the fixture");
        let reread = serde_json::to_value(&pod).expect("writes");
        (parent.get(key).is_some(), reread.pointer(pointer).is_some())
    };
    for pointer in POD_FIELDS_NEW_IN_1_36 {
        assert_eq!(unknown_field(pointer), (true, true), "{pointer}");
    }
    let spec = pod.spec.expect("spec");
    assert!(
        spec.unknown_fields.get("schedulingGroup").is_some(),
        "a field newer than the schema is kept as an unknown field"
    );
}

/// The example in the description of Endpoints on seed page 002, written as JSON.
#[test]
fn seed_endpoints_example_round_trips() {
    let example = json!({
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": {"name": "mysvc"},
        "subsets": [
            {
                "addresses": [{"ip": "10.10.1.1"}, {"ip": "10.10.2.2"}],
                "ports": [{"name": "a", "port": 8675}, {"name": "b", "port": 309}]
            },
            {
                "addresses": [{"ip": "10.10.3.3"}],
                "ports": [{"name": "a", "port": 93}, {"name": "b", "port": 76}]
            }
        ]
    });
    assert_lossless::<Endpoints>("the seed 002 example", &example);
    let endpoints: Endpoints = serde_json::from_value(example).expect("deserializes");
    let subsets = endpoints.subsets.expect("subsets");
    assert_eq!(subsets[1].ports.as_ref().expect("ports")[1].port, 76);
}

/// A list item without apiVersion/kind stays without them, as Kubernetes sends it.
#[test]
fn absent_type_meta_stays_absent() {
    let item = json!({"metadata": {"name": "a"}, "spec": {"holderIdentity": "me"}});
    assert_lossless::<Lease>("a list item", &item);
}

#[test]
fn wrong_api_version_or_kind_is_rejected() {
    let wrong_version = json!({"apiVersion": "coordination.k8s.io/v1beta1", "kind": "Lease"});
    let e = serde_json::from_value::<Lease>(wrong_version).expect_err("v1beta1 is not v1");
    assert!(e.to_string().contains("coordination.k8s.io/v1"), "{e}");
    let wrong_kind = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Pod"});
    let e = serde_json::from_value::<Lease>(wrong_kind).expect_err("a Pod is not a Lease");
    assert!(e.to_string().contains("Lease"), "{e}");
}

#[test]
fn construction_fills_api_version_and_kind() {
    let lease = Lease::default();
    assert_eq!(
        serde_json::to_value(&lease).expect("serializes"),
        json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease"})
    );
}
