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

/// A compact format (`is_human_readable` false, as bincode's, MessagePack's or CBOR's) is
/// told the exact number of entries of every object: the generated `Serialize` tells a
/// human-readable format none (JSON and YAML write entries as they come; BENCHMARKS.md,
/// section c), and counts them for any other. [`Compact`] writes the same value tree as
/// `serde_json::to_value`, and fails on a map or list whose length it is not told, or is
/// told wrong.
#[test]
fn compact_formats_are_told_every_objects_exact_length() {
    fn check<T: DeserializeOwned + Serialize>(name: &str) {
        let Some(value) = fixture(name) else {
            return;
        };
        let typed: T = serde_json::from_value(value.clone()).expect("reads");
        let compact = typed
            .serialize(compact::Compact)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let diffs = differences(&value, &compact, 20);
        assert!(diffs.is_empty(), "{name}:\n{}", diffs.join("\n"));
    }
    check::<Pod>("core.v1.Pod.json");
    check::<Endpoints>("core.v1.Endpoints.json");
    check::<Lease>("coordination.k8s.io.v1.Lease.json");
}

/// A write that fails ends the object there: its error is the one returned, and nothing is
/// written after it (each field of a generated `Serialize` returns whether it failed, and
/// the struct writes no field after the one that did; `serde_struct::Entries`). Checked on
/// the Pod fixture, with the failure at every write of a whole object in turn, by a writer
/// that fails that once and would take whatever came after.
#[test]
fn a_failed_write_ends_the_object_with_its_error() {
    /// Fails the write numbered `fail_at` (from 0), once; counts the writes after it.
    struct FailsOnce {
        written: Vec<u8>,
        writes: usize,
        fail_at: usize,
        after: usize,
    }

    impl std::io::Write for FailsOnce {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let n = self.writes;
            self.writes += 1;
            if n == self.fail_at {
                return Err(std::io::Error::other("the disk is full"));
            }
            if n > self.fail_at {
                self.after += 1;
            }
            self.written.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    let Some(value) = fixture("core.v1.Pod.json") else {
        return;
    };
    let pod: Pod = serde_json::from_value(value).expect("reads");
    let whole = serde_json::to_vec(&pod).expect("writes");
    let mut counting = FailsOnce {
        written: Vec::new(),
        writes: 0,
        fail_at: usize::MAX,
        after: 0,
    };
    serde_json::to_writer(&mut counting, &pod).expect("writes");
    assert_eq!(counting.written, whole);
    let writes = counting.writes;
    assert!(writes > 100, "{writes} writes");
    for fail_at in 0..writes {
        let mut out = FailsOnce {
            written: Vec::new(),
            writes: 0,
            fail_at,
            after: 0,
        };
        let error = serde_json::to_writer(&mut out, &pod)
            .expect_err(&format!("the write numbered {fail_at} fails"));
        assert!(error.is_io(), "write {fail_at}: {error}");
        assert_eq!(error.to_string(), "the disk is full", "write {fail_at}");
        assert_eq!(
            out.after, 0,
            "write {fail_at}: {} writes after it",
            out.after
        );
        assert!(whole.starts_with(&out.written), "write {fail_at}");
    }
}

/// A serializer into `serde_json::Value` that says it is not human-readable and insists on
/// exact lengths.
mod compact {
    use serde::ser::{self, Error as _, Impossible, Serialize};
    use serde_json::{Error, Map, Value};

    pub struct Compact;

    fn told(what: &str, told: Option<usize>) -> Result<usize, Error> {
        told.ok_or_else(|| {
            Error::custom(format!("a {what} of a compact format without its length"))
        })
    }

    fn counted(what: &str, told: usize, written: usize) -> Result<(), Error> {
        if told == written {
            Ok(())
        } else {
            Err(Error::custom(format!(
                "a {what} told {told} entries, written {written}"
            )))
        }
    }

    macro_rules! scalars {
        ($($method:ident($ty:ty)),* $(,)?) => {
            $(fn $method(self, v: $ty) -> Result<Value, Error> {
                serde_json::value::Serializer.$method(v)
            })*
        };
    }

    impl ser::Serializer for Compact {
        type Ok = Value;
        type Error = Error;
        type SerializeSeq = Seq;
        type SerializeTuple = Impossible<Value, Error>;
        type SerializeTupleStruct = Impossible<Value, Error>;
        type SerializeTupleVariant = Impossible<Value, Error>;
        type SerializeMap = Entries;
        type SerializeStruct = Impossible<Value, Error>;
        type SerializeStructVariant = Impossible<Value, Error>;

        fn is_human_readable(&self) -> bool {
            false
        }

        scalars!(
            serialize_bool(bool),
            serialize_i8(i8),
            serialize_i16(i16),
            serialize_i32(i32),
            serialize_i64(i64),
            serialize_u8(u8),
            serialize_u16(u16),
            serialize_u32(u32),
            serialize_u64(u64),
            serialize_f32(f32),
            serialize_f64(f64),
            serialize_char(char),
            serialize_str(&str),
            serialize_bytes(&[u8]),
        );

        fn serialize_none(self) -> Result<Value, Error> {
            Ok(Value::Null)
        }

        fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, Error> {
            value.serialize(self)
        }

        fn serialize_unit(self) -> Result<Value, Error> {
            Ok(Value::Null)
        }

        fn serialize_unit_struct(self, _: &'static str) -> Result<Value, Error> {
            Ok(Value::Null)
        }

        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            variant: &'static str,
        ) -> Result<Value, Error> {
            Ok(Value::from(variant))
        }

        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            value: &T,
        ) -> Result<Value, Error> {
            value.serialize(self)
        }

        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Value, Error> {
            Err(Error::custom("no newtype variants in an object"))
        }

        fn serialize_seq(self, len: Option<usize>) -> Result<Seq, Error> {
            Ok(Seq(told("list", len)?, Vec::new()))
        }

        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
            Err(Error::custom("no tuples in an object"))
        }

        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, Error> {
            Err(Error::custom("no tuple structs in an object"))
        }

        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, Error> {
            Err(Error::custom("no tuple variants in an object"))
        }

        fn serialize_map(self, len: Option<usize>) -> Result<Entries, Error> {
            Ok(Entries(told("map", len)?, Map::new(), None))
        }

        fn serialize_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStruct, Error> {
            Err(Error::custom("objects are written as maps"))
        }

        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, Error> {
            Err(Error::custom("no struct variants in an object"))
        }
    }

    pub struct Seq(usize, Vec<Value>);

    impl ser::SerializeSeq for Seq {
        type Ok = Value;
        type Error = Error;

        fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
            self.1.push(value.serialize(Compact)?);
            Ok(())
        }

        fn end(self) -> Result<Value, Error> {
            counted("list", self.0, self.1.len())?;
            Ok(Value::Array(self.1))
        }
    }

    /// The length told, the entries written, and the key waiting for its value.
    pub struct Entries(usize, Map<String, Value>, Option<String>);

    impl ser::SerializeMap for Entries {
        type Ok = Value;
        type Error = Error;

        fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
            match key.serialize(Compact)? {
                Value::String(key) => {
                    self.2 = Some(key);
                    Ok(())
                }
                other => Err(Error::custom(format!("a key that is no string: {other}"))),
            }
        }

        fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
            let key = self
                .2
                .take()
                .ok_or_else(|| Error::custom("a value without its key"))?;
            let value = value.serialize(Compact)?;
            if self.1.insert(key.clone(), value).is_some() {
                return Err(Error::custom(format!("`{key}` written twice")));
            }
            Ok(())
        }

        fn end(self) -> Result<Value, Error> {
            counted("map", self.0, self.1.len())?;
            Ok(Value::Object(self.1))
        }
    }
}

/// A list of structs read from JSON holds exactly its items: room for one at its first item
/// (a `Vec` makes room for four), its spare room given back at the end. serde_json tells a
/// list's length only at its end, and most of an object's lists hold one item; a decoded Pod
/// with no empty room in its lists is 30% smaller (BENCHMARKS.md, section c).
#[test]
fn lists_of_structs_hold_no_spare_room() {
    for count in [1, 2, 3, 4, 5, 9] {
        let containers: Vec<Value> = (0..count)
            .map(|i| json!({"name": format!("c{i}"), "ports": [{"containerPort": 80}]}))
            .collect();
        let text = json!({"apiVersion": "v1", "kind": "Pod",
            "spec": {"containers": containers, "volumes": [{"name": "data"}]}})
        .to_string();
        let pod: Pod = serde_json::from_str(&text).expect("reads");
        let spec = pod.spec.expect("spec");
        assert_eq!(
            (spec.containers.len(), spec.containers.capacity()),
            (count, count),
            "containers"
        );
        let volumes = spec.volumes.expect("volumes");
        assert_eq!((volumes.len(), volumes.capacity()), (1, 1), "volumes");
        for container in &spec.containers {
            let ports = container.ports.as_ref().expect("ports");
            assert_eq!((ports.len(), ports.capacity()), (1, 1), "ports");
        }
    }
    let Some(value) = fixture("core.v1.Pod.json") else {
        return;
    };
    let pod: Pod = serde_json::from_slice(&serde_json::to_vec(&value).unwrap()).expect("reads");
    let status = pod.status.expect("status");
    let spec = pod.spec.expect("spec");
    let lists = [
        (
            "containers",
            spec.containers.len(),
            spec.containers.capacity(),
        ),
        (
            "conditions",
            status.conditions.as_ref().map_or(0, Vec::len),
            status.conditions.as_ref().map_or(0, Vec::capacity),
        ),
        (
            "containerStatuses",
            status.container_statuses.as_ref().map_or(0, Vec::len),
            status.container_statuses.as_ref().map_or(0, Vec::capacity),
        ),
    ];
    for (name, len, capacity) in lists {
        assert!(len > 0, "{name}: the fixture has some");
        assert_eq!(capacity, len, "{name}");
    }
}

/// A generated struct's `Debug` is its name and the object as JSON (absent fields left
/// out, unknown ones kept); `{:#?}` indents it by four spaces, nested in other `Debug`
/// output as `Debug` nests.
#[test]
fn debug_prints_the_object_as_json() {
    let pod: Pod = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27",
            "resources": {"limits": {"cpu": "500m"}}}]},
        "newerField": {"x": 1}
    }))
    .expect("reads");
    let compact = format!("{pod:?}");
    assert_eq!(
        compact,
        r#"Pod {"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"app":"web"},"name":"web"},"spec":{"containers":[{"image":"nginx:1.27","name":"nginx","resources":{"limits":{"cpu":"500m"}}}]},"newerField":{"x":1}}"#
    );
    let spec = pod.spec.as_ref().expect("spec");
    assert_eq!(
        format!("{:?}", spec.containers[0].resources),
        r#"Some(ResourceRequirements {"limits":{"cpu":"500m"}})"#
    );
    let pretty = format!("{:#?}", pod.metadata);
    assert_eq!(
        pretty,
        "Some(\n    ObjectMeta {\n        \"labels\": {\n            \"app\": \"web\"\n        },\n        \"name\": \"web\"\n    },\n)"
    );
    let empty = Pod::default();
    assert_eq!(
        format!("{empty:?}"),
        r#"Pod {"apiVersion":"v1","kind":"Pod"}"#
    );
}
