//! Behaviour of every golden case, on the generated code itself (the modules in
//! `src/golden.rs`): deserialize, serialize, resolve, build requests. The text comparison in
//! `golden.rs` is the second line of defence; these tests are the first, and they still fail
//! after a careless bless. `cargo xtask mutants` plants bugs in the generator, re-blesses, and
//! checks that a test here fails for each.
//!
//! Everything here goes through JSON, the enums' `From<&str>`/`as_str`, the matcher and the
//! request functions, never through a struct's fields or builders (those are in
//! `golden_builders_behaviour.rs`), so that a generator bug that changes a field's Rust type
//! (a required field made optional) still compiles here and fails at run time, saying which
//! rule broke. One section per golden case, in the order of `src/golden.rs`.

use kubeforge_runtime::Resolution;
use kubeforge_runtime::http::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Deserializes `value` as a `T`, serializes it back and requires the same JSON.
fn lossless<T: DeserializeOwned + Serialize>(what: &str, value: &Value) -> T {
    let typed: T = serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("{what}: does not deserialize: {e}\n{value}"));
    let back =
        serde_json::to_value(&typed).unwrap_or_else(|e| panic!("{what}: does not serialize: {e}"));
    assert_eq!(&back, value, "{what}: not the same JSON after a round trip");
    typed
}

/// Requires `value` to be rejected as a `T`, and returns the error's text.
fn rejected<T: DeserializeOwned + Serialize>(what: &str, value: &Value) -> String {
    match serde_json::from_value::<T>(value.clone()) {
        Ok(typed) => panic!(
            "{what}: accepted, as {}",
            serde_json::to_value(&typed).unwrap_or_default()
        ),
        Err(e) => e.to_string(),
    }
}

/// Serializes `typed` to a JSON value.
fn to_json<T: Serialize>(typed: &T) -> Value {
    serde_json::to_value(typed).expect("serializes")
}

mod builder_collections {
    use super::{json, lossless, rejected};
    use kubeforge_tests::golden::builder_collections::com::example::v1::{Policy, Volume};

    #[test]
    fn lists_and_maps_round_trip_and_required_ones_are_required() {
        let full = json!({
            "mountOptions": ["ro", "noatime"],
            "attributes": {"a": "1", "b": "2"},
            "labels": {"app": "web"},
            "data": {"key": "AAEC"},
            "command": ["sh", "-c"],
            "podIPs": ["10.0.0.1"],
            "podIP": "10.0.0.1",
            "policies": [{"name": "p"}],
            "limits": {"cpu": "100m"},
            "matrix": [[1, 2], [], [3]]
        });
        lossless::<Volume>("a full Volume", &full);
        lossless::<Volume>(
            "a Volume with only its required fields",
            &json!({"mountOptions": [], "attributes": {}}),
        );
        let e = rejected::<Volume>("a Volume without attributes", &json!({"mountOptions": []}));
        assert!(e.contains("attributes"), "{e}");
        rejected::<Policy>("a Policy without its name", &json!({}));
    }

    #[test]
    fn debug_is_the_name_and_the_json() {
        let volume: Volume = lossless(
            "a Volume",
            &json!({"mountOptions": ["ro"], "attributes": {}, "podIP": "10.0.0.1"}),
        );
        assert_eq!(
            format!("{volume:?}"),
            r#"Volume {"mountOptions":["ro"],"attributes":{},"podIP":"10.0.0.1"}"#
        );
        let policy: Policy = lossless("a Policy", &json!({"name": "p"}));
        assert_eq!(
            format!("{:#?}", [policy]),
            "[\n    Policy {\n        \"name\": \"p\"\n    },\n]"
        );
    }
}

mod builder_fields {
    use super::{json, lossless, rejected, to_json};
    use kubeforge_tests::golden::builder_fields::com::example::v1::{Empty, Port};

    #[test]
    fn defaults_are_never_invented_on_deserialization() {
        // The schema's defaults are for builders only: absent stays absent.
        let port = lossless::<Port>(
            "a Port with its required fields",
            &json!({"port": 80, "protocol": "TCP", "mode": "Slow"}),
        );
        assert_eq!(
            to_json(&port),
            json!({"port": 80, "protocol": "TCP", "mode": "Slow"})
        );
        lossless::<Port>(
            "a full Port",
            &json!({
                "port": 443, "protocol": "SCTP", "mode": "Fast", "name": "https",
                "hostIP": "::", "weight": 0.5, "timeoutSeconds": 5, "enabled": true,
                "appProtocol": "h2c", "size": "2Gi", "isDefault": false, "build": "b"
            }),
        );
        for missing in ["port", "protocol", "mode"] {
            let mut value = json!({"port": 80, "protocol": "TCP", "mode": "Slow"});
            value.as_object_mut().expect("object").remove(missing);
            let e = rejected::<Port>(&format!("a Port without {missing}"), &value);
            assert!(e.contains(missing), "{e}");
        }
        lossless::<Empty>("an empty Empty", &json!({}));
        lossless::<Empty>("an Empty", &json!({"note": "n"}));
    }
}

mod builder_nested {
    use super::{json, lossless, rejected};
    use kubeforge_tests::golden::builder_nested::com::example::v1::Tag;

    #[test]
    fn nested_objects_round_trip() {
        lossless::<Tag>(
            "a full Tag",
            &json!({
                "name": "latest",
                "policy": {"type": "Local"},
                "importPolicy": {"scheduled": true, "insecure": false},
                "from": {"kind": "DockerImage", "name": "ruby"},
                "retry": {"limit": 3}
            }),
        );
        lossless::<Tag>(
            "a minimal Tag",
            &json!({"name": "t", "policy": {"type": "Source"}}),
        );
        rejected::<Tag>("a Tag without policy", &json!({"name": "t"}));
        rejected::<Tag>(
            "a Tag whose from lacks a kind",
            &json!({"name": "t", "policy": {"type": "Source"}, "from": {"name": "x"}}),
        );
    }
}

mod builder_resource {
    use super::{json, lossless, rejected};
    use kubeforge_runtime::{Resource, Scope, TypeMeta};
    use kubeforge_tests::golden::builder_resource::com::example::v1::{Gadget, Gizmo};

    #[test]
    fn resources_round_trip_with_their_type_meta() {
        let gadget = json!({
            "apiVersion": "example.com/v1", "kind": "Gadget",
            "metadata": {"name": "g", "namespace": "n"}, "spec": {"size": 1}
        });
        lossless::<Gadget>("a Gadget", &gadget);
        let gizmo = json!({
            "apiVersion": "example.com/v1", "kind": "Gizmo",
            "metadata": {"name": "z"}, "name": "the field called name"
        });
        lossless::<Gizmo>("a Gizmo", &gizmo);
        rejected::<Gizmo>("a Gizmo without metadata", &json!({"name": "x"}));
        assert_eq!(<Gadget as Resource>::SCOPE, Scope::Namespaced);
        assert_eq!(<Gizmo as Resource>::SCOPE, Scope::Cluster);
        assert_eq!(<Gizmo as TypeMeta>::API_VERSION, "example.com/v1");
        let request = Gizmo::read_gizmo("a b").expect("a request");
        assert_eq!(request.uri(), "/apis/example.com/v1/gizmos/a%20b");
    }

    /// A struct with no floating point or JSON value inside is `Eq` (an empty impl, not the
    /// derive, since the derive compiles a hidden body per type): `HashSet`, `assert_eq!` on
    /// collections and users' own `#[derive(Eq)]` over it need it.
    #[test]
    fn structs_without_floats_are_eq() {
        fn total<T: Eq>(value: &T) -> bool {
            value == value
        }
        let gadget: Gadget = lossless(
            "a Gadget",
            &json!({"apiVersion": "example.com/v1", "kind": "Gadget", "spec": {"size": 1}}),
        );
        assert!(total(&gadget) && total(&gadget.spec));
    }
}

mod byte_strings {
    use super::{json, lossless, rejected};
    use kubeforge_tests::golden::byte_strings::io::example::v1::Secretish;

    #[test]
    fn bytes_are_base64_on_the_wire() {
        lossless::<Secretish>(
            "a full Secretish",
            &json!({
                "checksum": "aGVsbG8=",
                "data": {"k": "AAEC/w=="},
                "chunks": ["", "/w=="],
                "stringData": {"k": "not base64 ***"}
            }),
        );
        // Unpadded base64 is accepted on input, as Go accepts it (the runtime's choice).
        let unpadded: Secretish =
            serde_json::from_value(json!({"checksum": "aGVsbG8"})).expect("unpadded base64");
        assert_eq!(
            serde_json::to_value(&unpadded).expect("serializes"),
            json!({"checksum": "aGVsbG8="})
        );
        for bad in ["***", "a", "aGVsbG8=x"] {
            let e =
                rejected::<Secretish>(&format!("checksum {bad:?}"), &json!({ "checksum": bad }));
            assert!(e.contains("base64"), "{bad:?}: {e}");
        }
        rejected::<Secretish>(
            "bad base64 inside a map",
            &json!({"checksum": "", "data": {"k": "!"}}),
        );
        rejected::<Secretish>("no checksum", &json!({"data": {}}));
    }
}

mod enums {
    use super::{json, lossless, rejected, to_json};
    use kubeforge_tests::golden::enums::io::example::v1::{
        Level, Policy, PolicyModes, PolicyOdd, PolicyRestartPolicy,
    };

    #[test]
    fn known_values_map_to_their_variants() {
        assert_eq!(
            PolicyRestartPolicy::from("Always"),
            PolicyRestartPolicy::Always
        );
        assert_eq!(
            PolicyRestartPolicy::from("OnFailure"),
            PolicyRestartPolicy::OnFailure
        );
        assert_eq!(Level::from("High"), Level::High);
        assert_eq!(PolicyModes::from("Write"), PolicyModes::Write);
        for (wire, variant) in [
            ("", PolicyOdd::Empty),
            ("1.0", PolicyOdd::V1_0),
            ("10", PolicyOdd::V10),
            ("Other", PolicyOdd::Other_),
            ("a-b", PolicyOdd::AB),
            ("a_b", PolicyOdd::AB2),
            ("application/json", PolicyOdd::ApplicationJson),
        ] {
            assert_eq!(PolicyOdd::from(wire), variant, "{wire:?}");
            assert_eq!(variant.as_str(), wire);
            assert_eq!(variant.to_string(), wire);
        }
    }

    /// The enums are `Eq` (an empty impl, as the structs'), `Hash` and `Ord`: in a `HashSet`,
    /// a `BTreeSet` and a user's own `#[derive(Eq, Hash, Ord)]`, ordered as the schema
    /// lists the values, with values the API does not know after them, by their text.
    #[test]
    fn enums_are_eq_hash_and_ordered_as_declared() {
        use std::collections::{BTreeSet, HashSet};
        let values = ["Sometimes", "Never", "Always", "OnFailure", "Never", "Also"];
        let ordered: BTreeSet<PolicyRestartPolicy> =
            values.into_iter().map(PolicyRestartPolicy::from).collect();
        let wire: Vec<&str> = ordered.iter().map(PolicyRestartPolicy::as_str).collect();
        assert_eq!(wire, ["Always", "OnFailure", "Never", "Also", "Sometimes"]);
        let distinct: HashSet<PolicyRestartPolicy> =
            values.into_iter().map(PolicyRestartPolicy::from).collect();
        assert_eq!(distinct.len(), 5);
        #[derive(PartialEq, Eq, Hash, PartialOrd, Ord)]
        struct Users(PolicyRestartPolicy, Level);
        assert!(
            Users(PolicyRestartPolicy::Always, Level::High)
                == Users("Always".into(), "High".into())
        );
    }

    #[test]
    fn unknown_values_are_kept_as_received() {
        assert_eq!(
            PolicyRestartPolicy::from("Sometimes"),
            PolicyRestartPolicy::Other("Sometimes".to_owned())
        );
        assert_eq!(Level::from("Medium").as_str(), "Medium");
        assert_eq!(PolicyOdd::from("other").as_str(), "other");
        // Case matters: "always" is not "Always".
        assert_eq!(PolicyRestartPolicy::from("always").as_str(), "always");
        let unknown = json!({
            "restartPolicy": "Sometimes", "odd": "2.0",
            "modes": ["Read", "Execute"], "level": "Medium"
        });
        let policy = lossless::<Policy>("unknown enum values", &unknown);
        assert_eq!(to_json(&policy)["modes"], json!(["Read", "Execute"]));
    }

    #[test]
    fn policies_round_trip_and_wrong_types_are_rejected() {
        lossless::<Policy>(
            "known values",
            &json!({"restartPolicy": "Never", "odd": "", "modes": [], "level": "Low", "count": 2}),
        );
        lossless::<Policy>(
            "only the required field",
            &json!({"restartPolicy": "Always"}),
        );
        rejected::<Policy>("no restartPolicy", &json!({"level": "Low"}));
        rejected::<Policy>("a number for an enum", &json!({"restartPolicy": 1}));
        rejected::<Policy>(
            "a string for the integer enum",
            &json!({"restartPolicy": "Always", "count": "2"}),
        );
    }
}

mod int_or_string {
    use super::{json, lossless, rejected};
    use kubeforge_tests::golden::int_or_string::io::example::v1::Port;

    #[test]
    fn ints_and_strings_both_round_trip() {
        lossless::<Port>(
            "ints",
            &json!({"target": 8080, "maxSurge": 1, "maxUnavailable": 0, "either": true}),
        );
        lossless::<Port>(
            "strings",
            &json!({"target": "http", "maxSurge": "25%", "maxUnavailable": "10%", "either": "x"}),
        );
        rejected::<Port>("a float", &json!({"target": 1.5}));
        rejected::<Port>("an object", &json!({"target": {}}));
        rejected::<Port>("out of range", &json!({"target": 4_294_967_296_i64}));
        rejected::<Port>("no target", &json!({"maxSurge": 1}));
    }
}

mod keywords {
    use super::{json, lossless, rejected};
    use kubeforge_tests::golden::keywords::io::example::async_api::v1::Option_;
    use kubeforge_tests::golden::keywords::io::example::v1::{Keywords, Type};

    #[test]
    fn every_odd_json_name_is_kept_exactly() {
        let full = json!({
            "$ref": "#/x", "$schema": "s", "1stPlace": "gold", "async": true,
            "continue": "token", "crate": "c", "dash-separated-name": "d",
            "externalIPs": ["1.2.3.4"], "fooBar": 1, "foo_bar": 2, "ref": "r",
            "self": "me", "type": "t", "x-kubernetes-list-type": "atomic"
        });
        lossless::<Keywords>("every keyword", &full);
        // fooBar and foo_bar are different fields of different types.
        rejected::<Keywords>("a float in foo_bar", &json!({"type": "t", "foo_bar": 1.5}));
        rejected::<Keywords>("no type", &json!({"ref": "r"}));
        // A Rust spelling is not a JSON name: `type_` is an unknown key, so `type` is missing.
        rejected::<Keywords>("Rust names", &json!({"type_": "t"}));
        lossless::<Type>("the type named type", &json!({"Self": "s"}));
        lossless::<Option_>("the type named Option", &json!({"value": "v"}));
    }
}

mod maps {
    use super::{json, lossless, rejected};
    use kubeforge_tests::golden::maps::io::example::v1::Maps;

    #[test]
    fn every_kind_of_map_round_trips() {
        lossless::<Maps>(
            "every map",
            &json!({
                "labels": {"b": "2", "a": "1"},
                "limits": {"cpu": "100m", "memory": "1Gi"},
                "groups": {"g": ["x", "y"], "h": []},
                "nested": {"outer": {"inner": 1}},
                "anything": {"k": [1, {"x": null}]},
                "free": {"any": {"thing": true}},
                "preserved": {"a": [1, "b"]},
                "untyped": [1, "two", null]
            }),
        );
        lossless::<Maps>("only labels", &json!({"labels": {}}));
        rejected::<Maps>("no labels", &json!({"free": {}}));
        rejected::<Maps>("a number in labels", &json!({"labels": {"a": 1}}));
        rejected::<Maps>(
            "a string in nested",
            &json!({"labels": {}, "nested": {"o": {"i": "1"}}}),
        );
    }
}

mod name_collisions {
    use super::{json, lossless};
    use kubeforge_tests::golden::name_collisions::io::example::v1::{Widget, Widget2, WidgetSpec};
    use kubeforge_tests::golden::name_collisions::io::example::v2::Widget as WidgetV2;

    #[test]
    fn colliding_names_keep_their_own_json() {
        let widget = json!({"Name": "a", "name": "b", "NAME": "c", "spec": {"size": 1}});
        lossless::<Widget>("three names", &widget);
        lossless::<Widget>("one name", &json!({"NAME": "only"}));
        lossless::<Widget2>("the second Widget", &json!({"other": widget}));
        lossless::<WidgetSpec>("the named WidgetSpec", &json!({"replicas": 2}));
        lossless::<WidgetV2>("v2", &json!({"v1": {"other": {"name": "x"}}}));
    }
}

mod recursion {
    use super::{json, lossless, rejected};
    use kubeforge_tests::golden::recursion::io::example::v1::{Even, Node, Odd, Props};

    #[test]
    fn recursive_values_round_trip() {
        lossless::<Node>(
            "a tree",
            &json!({
                "value": "root",
                "next": {"value": "n", "next": {"value": "nn"}},
                "children": [{"value": "c", "children": [{"value": "cc"}]}],
                "byName": {"x": {"value": "d", "byName": {}}}
            }),
        );
        lossless::<Even>(
            "mutual recursion",
            &json!({"odd": {"even": {"odd": {"leaf": {"name": "l"}}}}}),
        );
        lossless::<Odd>("an Odd", &json!({}));
        rejected::<Even>("an Even without odd", &json!({}));
        lossless::<Props>(
            "a schema of schemas",
            &json!({"not": {"items": {"properties": {"a": {}}}}}),
        );
    }
}

mod resource {
    use super::{Method, Resolution, StatusCode, json, lossless, rejected};
    use kubeforge_runtime::{ListResource, Resource, Scope, TypeMeta, WatchEvent};
    use kubeforge_tests::golden::resource::com::example::v1::{Gadget, GadgetList, Gizmo};
    use kubeforge_tests::golden::resource::routes::{Route, resolve};

    fn gadget() -> serde_json::Value {
        json!({
            "apiVersion": "example.com/v1", "kind": "Gadget",
            "metadata": {"name": "g", "namespace": "n"},
            "spec": {"size": 3, "color": "red"}
        })
    }

    #[test]
    fn type_meta_is_checked_and_kept() {
        lossless::<Gadget>("a Gadget", &gadget());
        // A list item without apiVersion/kind stays without them.
        lossless::<Gadget>("a list item", &json!({"spec": {"size": 1}}));
        let e = rejected::<Gadget>(
            "the wrong kind",
            &json!({"apiVersion": "example.com/v1", "kind": "Gizmo", "spec": {"size": 1}}),
        );
        assert!(e.contains("Gadget"), "{e}");
        rejected::<Gadget>(
            "the wrong version",
            &json!({"apiVersion": "example.com/v2", "spec": {"size": 1}}),
        );
        rejected::<Gadget>("a spec without size", &json!({"spec": {}}));
        lossless::<GadgetList>(
            "a list",
            &json!({"apiVersion": "example.com/v1", "kind": "GadgetList",
                    "metadata": {"continue": "c", "resourceVersion": "7"},
                    "items": [gadget(), {"spec": {"size": 1}}]}),
        );
        lossless::<Gizmo>(
            "a Gizmo",
            &json!({"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": {"name": "z"}}),
        );
    }

    #[test]
    fn resource_constants() {
        assert_eq!(<Gadget as TypeMeta>::API_VERSION, "example.com/v1");
        assert_eq!(<Gadget as TypeMeta>::KIND, "Gadget");
        // Provided by the trait from `API_VERSION`: the generated impl writes neither.
        assert_eq!(<Gadget as TypeMeta>::GROUP, "example.com");
        assert_eq!(<Gadget as TypeMeta>::VERSION, "v1");
        assert_eq!(<GadgetList as TypeMeta>::GROUP, "example.com");
        assert_eq!(<Gadget as Resource>::PLURAL, "gadgets");
        assert_eq!(<Gadget as Resource>::SCOPE, Scope::Namespaced);
        assert_eq!(<Gadget as Resource>::SUBRESOURCES, ["status"]);
        assert_eq!(<Gizmo as Resource>::PLURAL, "gizmos");
        assert_eq!(<Gizmo as Resource>::SCOPE, Scope::Cluster);
        assert_eq!(<GadgetList as TypeMeta>::KIND, "GadgetList");
        fn item_of<L: ListResource>() -> &'static str {
            <L::Item as TypeMeta>::KIND
        }
        assert_eq!(item_of::<GadgetList>(), "Gadget");
    }

    #[test]
    fn watch_events_carry_the_typed_object() {
        let event = json!({"type": "MODIFIED", "object": gadget()});
        lossless::<WatchEvent<Gadget>>("a watch event", &event);
        rejected::<WatchEvent<Gadget>>(
            "a watch event of the wrong kind",
            &json!({"type": "ADDED", "object": {"apiVersion": "example.com/v1", "kind": "Gizmo"}}),
        );
    }

    #[test]
    fn requests_encode_and_the_matcher_finds_them() {
        let request = Gadget::read_namespaced_gadget("team a", "g%1/x").expect("a request");
        assert_eq!(request.method(), Method::GET);
        let uri = request.uri().to_string();
        assert_eq!(
            uri,
            "/apis/example.com/v1/namespaces/team%20a/gadgets/g%251%2Fx"
        );
        let Resolution::Found { route, params } = resolve(&Method::GET, &uri) else {
            panic!("{uri} does not resolve");
        };
        assert_eq!(route, Route::ReadExampleComV1NamespacedGadget);
        assert_eq!(params.get("name"), Some("g%251%2Fx"));
        assert_eq!(
            params.decoded("name").expect("a name").expect("UTF-8"),
            "g%1/x"
        );
        assert_eq!(
            params
                .decoded("namespace")
                .expect("a namespace")
                .expect("UTF-8"),
            "team a"
        );
        for bad in ["", ".", ".."] {
            assert!(Gadget::read_namespaced_gadget("n", bad).is_err(), "{bad:?}");
        }
        assert!(Gadget::list_namespaced_gadget_response(StatusCode::OK, b"").is_ok());
        let status = resolve(
            &Method::GET,
            "/apis/example.com/v1/namespaces/n/gadgets/g/status",
        );
        assert!(
            matches!(
                status,
                Resolution::Found {
                    route: Route::ReadExampleComV1NamespacedGadgetStatus,
                    ..
                }
            ),
            "{status:?}"
        );
    }
}

mod special_types {
    use super::{json, lossless, rejected, to_json};
    use kubeforge_tests::golden::special_types::io::example::v1::Times;

    #[test]
    fn special_types_keep_their_wire_format() {
        lossless::<Times>(
            "every special type",
            &json!({
                "created": "2024-05-01T12:00:00Z",
                "renewed": "2024-05-01T12:00:00.250000Z",
                "anonymous": "1999-12-31T23:59:59Z",
                "ratio": 0.5,
                "capacity": "100m",
                "raw": {"apiVersion": "v1", "kind": "Anything", "x": [1, null]},
                "nullableName": "n"
            }),
        );
        // A quantity may arrive as a JSON number; it leaves as that number (lossless), and
        // reads as the same quantity as its string.
        let times: Times =
            serde_json::from_value(json!({"created": "2024-05-01T12:00:00Z", "capacity": 2}))
                .expect("a number quantity");
        assert_eq!(to_json(&times)["capacity"], json!(2));
        assert_eq!(
            times.capacity.as_ref().map(|q| q.as_str()),
            Some("2"),
            "{times:?}"
        );
        rejected::<Times>("a bad Time", &json!({"created": "yesterday"}));
        rejected::<Times>(
            "a MicroTime in a bad format",
            &json!({"created": "2024-05-01T12:00:00Z", "renewed": "noon"}),
        );
        rejected::<Times>("no created", &json!({"ratio": 1.0}));
    }
}

mod unicode_docs {
    use super::{json, lossless};
    use kubeforge_tests::golden::unicode_docs::com::example::docs::v1::Lease;

    #[test]
    fn unicode_values_round_trip() {
        lossless::<Lease>(
            "unicode and markup in values",
            &json!({
                "holderIdentity": "租期 리스 🚀",
                "script": "<script>alert(1)</script>",
                "fence": "```\nfn main() {}\n```",
                "links": "[a](b)",
                "comment": "*/ /* \\",
                "heading": "# h"
            }),
        );
    }
}

mod route_table {
    use super::{Method, Resolution, StatusCode, json, rejected, to_json};
    use kubeforge_tests::golden::route_table::com::example::v1::{
        ConnectWidgetExecQuery, DeleteWidgetResponse, ListWidgetQuery, Widget, WidgetList,
    };
    use kubeforge_tests::golden::route_table::routes::{self, Route, resolve};

    fn found(method: &Method, path: &str) -> (Route, Vec<(String, String)>) {
        match resolve(method, path) {
            Resolution::Found { route, params } => (
                route,
                params
                    .iter()
                    .map(|(n, v)| (n.to_owned(), v.to_owned()))
                    .collect(),
            ),
            other => panic!("{method} {path}: {other:?}"),
        }
    }

    #[test]
    fn static_segments_beat_parameters() {
        assert_eq!(
            found(&Method::GET, "/apis/example.com/v1/widgets/special/stats"),
            (Route::ReadExampleComV1WidgetStats, vec![])
        );
        // `special` alone is no static path, so it is a widget's name.
        assert_eq!(
            found(&Method::GET, "/apis/example.com/v1/widgets/special"),
            (
                Route::ReadExampleComV1Widget,
                vec![("name".to_owned(), "special".to_owned())]
            )
        );
        assert_eq!(
            found(&Method::POST, "/apis/example.com/v1/widgets/special/exec"),
            (
                Route::ConnectExampleComV1WidgetExec,
                vec![("name".to_owned(), "special".to_owned())]
            )
        );
        assert_eq!(
            found(&Method::GET, "/apis/example.com/v1/widgets/other"),
            (
                Route::ReadExampleComV1Widget,
                vec![("name".to_owned(), "other".to_owned())]
            )
        );
    }

    #[test]
    fn misses_and_wrong_methods() {
        let not_allowed = resolve(&Method::PUT, "/apis/example.com/v1/widgets/w");
        let Resolution::MethodNotAllowed { allowed } = not_allowed else {
            panic!("{not_allowed:?}");
        };
        assert!(allowed.contains(&Method::GET) && allowed.contains(&Method::DELETE));
        assert!(!allowed.contains(&Method::PUT));
        for path in [
            "/apis/example.com/v1/widgets/w/",
            "/apis/example.com/v1/widgets//exec",
            "/apis/example.com/v1/widgets/../exec",
            "/apis/example.com/v1/widgets/special/stats/x",
            "/apis/example.com/v2/widgets",
            "apis/example.com/v1/widgets",
        ] {
            assert!(resolve(&Method::GET, path).is_not_found(), "{path}");
        }
        assert_eq!(
            found(&Method::GET, "/apis/example.com/v1/"),
            (Route::GetExampleComV1apiResources, vec![])
        );
    }

    #[test]
    fn path_segments_are_percent_encoded_and_resolve_back() {
        for (name, encoded) in [
            ("w", "w"),
            ("100%", "100%25"),
            ("%2F", "%252F"),
            ("a/b", "a%2Fb"),
            ("a b?c#d", "a%20b%3Fc%23d"),
            ("special", "special"),
            ("é", "%C3%A9"),
        ] {
            let request = Widget::read_widget(name).expect("a request");
            let uri = request.uri().to_string();
            assert_eq!(
                uri,
                format!("/apis/example.com/v1/widgets/{encoded}"),
                "{name:?}"
            );
            let (route, params) = found(&Method::GET, &uri);
            assert_eq!(route, Route::ReadExampleComV1Widget, "{name:?}");
            assert_eq!(params, vec![("name".to_owned(), encoded.to_owned())]);
        }
        for bad in ["", ".", ".."] {
            assert!(Widget::read_widget(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn queries_are_encoded_and_only_when_set() {
        let request = Widget::list_widget(&ListWidgetQuery::default()).expect("a request");
        assert_eq!(request.uri(), "/apis/example.com/v1/widgets");
        let request =
            Widget::list_widget(&ListWidgetQuery::builder().limit(5).build()).expect("a request");
        assert_eq!(request.uri(), "/apis/example.com/v1/widgets?limit=5");
        let request = Widget::connect_widget_exec(
            "w",
            &["ls".to_owned(), "-l /".to_owned()],
            &ConnectWidgetExecQuery::builder().tty(true).build(),
        )
        .expect("a request");
        assert_eq!(request.method(), Method::POST);
        assert_eq!(
            request.uri(),
            "/apis/example.com/v1/widgets/w/exec?command=ls&command=-l%20%2F&tty=true"
        );
        let request = routes::read_example_com_v1_widget_stats().expect("a request");
        assert_eq!(request.uri(), "/apis/example.com/v1/widgets/special/stats");
    }

    #[test]
    fn responses_decode_by_status() {
        let widget = br#"{"apiVersion":"example.com/v1","kind":"Widget","size":3}"#;
        let read = Widget::read_widget_response(StatusCode::OK, widget).expect("a widget");
        assert_eq!(
            to_json(&read),
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "size": 3})
        );
        let deleted = Widget::delete_widget_response(StatusCode::OK, widget).expect("200");
        assert!(
            matches!(deleted, DeleteWidgetResponse::Ok(_)),
            "{deleted:?}"
        );
        let accepted = Widget::delete_widget_response(
            StatusCode::ACCEPTED,
            br#"{"apiVersion":"v1","kind":"Status","message":"later"}"#,
        )
        .expect("202");
        assert!(
            matches!(accepted, DeleteWidgetResponse::Accepted(_)),
            "{accepted:?}"
        );
        let gone = Widget::delete_widget_response(StatusCode::NO_CONTENT, b"").expect("204");
        assert!(matches!(gone, DeleteWidgetResponse::NoContent), "{gone:?}");
        let error = Widget::read_widget_response(
            StatusCode::NOT_FOUND,
            br#"{"apiVersion":"v1","kind":"Status","message":"not found","code":404}"#,
        )
        .expect_err("404 is an error");
        assert_eq!(error.status(), StatusCode::NOT_FOUND);
        let text = routes::read_example_com_v1_widget_stats_response(StatusCode::OK, b"3 widgets")
            .expect("text");
        assert_eq!(text, "3 widgets");
        let list = Widget::list_widget_response(StatusCode::OK, br#"{"items":[{"size":1}]}"#)
            .expect("a list");
        assert_eq!(to_json(&list), json!({"items": [{"size": 1}]}));
        rejected::<WidgetList>("a list without items", &json!({}));
    }
}

/// `wide_routes.json`: nodes with many static children, several of one length, one of them
/// beside a parameter: same-length names must be told apart, the parameter must still take
/// every other segment, a static branch that finds no path must give its parameters back,
/// and where a static path and a parameter's both match (`widgets/special/stats` and
/// `widgets/{name}/stats`) the static one wins.
mod wide_routes {
    use super::{Method, Resolution};
    use kubeforge_tests::golden::wide_routes::routes::{Route, resolve};

    fn found(path: &str) -> (Route, Vec<(String, String)>) {
        match resolve(&Method::GET, path) {
            Resolution::Found { route, params } => (
                route,
                params
                    .iter()
                    .map(|(n, v)| (n.to_owned(), v.to_owned()))
                    .collect(),
            ),
            other => panic!("{path}: {other:?}"),
        }
    }

    fn name(value: &str) -> Vec<(String, String)> {
        vec![("name".to_owned(), value.to_owned())]
    }

    #[test]
    fn every_subresource_of_one_length_is_its_own() {
        let cases = [
            ("exec", Route::ReadExampleComV1WidgetExec),
            ("logs", Route::ReadExampleComV1WidgetLogs),
            ("bind", Route::ReadExampleComV1WidgetBind),
            ("scale", Route::ReadExampleComV1WidgetScale),
            ("evict", Route::ReadExampleComV1WidgetEvict),
            ("audit", Route::ReadExampleComV1WidgetAudit),
            ("status", Route::ReadExampleComV1WidgetStatus),
        ];
        for (sub, route) in cases {
            assert_eq!(
                found(&format!("/apis/example.com/v1/widgets/w1/{sub}")),
                (route, name("w1")),
                "{sub}"
            );
        }
        assert_eq!(
            found("/apis/example.com/v1/widgets/w1"),
            (Route::ReadExampleComV1Widget, name("w1"))
        );
        // Same lengths as real ones, other text; longer and shorter; empty; and case.
        for sub in [
            "exit", "logz", "scalf", "statut", "exe", "execs", "", "EXEC",
        ] {
            let path = format!("/apis/example.com/v1/widgets/w1/{sub}");
            assert!(resolve(&Method::GET, &path).is_not_found(), "{path}");
        }
    }

    #[test]
    fn statics_beside_a_parameter() {
        for w in [
            "archive", "history", "metrics", "pending", "special", "summary",
        ] {
            // `widgets/{name}/stats` matches too: the static path wins.
            let (route, params) = found(&format!("/apis/example.com/v1/widgets/{w}/stats"));
            assert!(format!("{route:?}").ends_with("Stats"), "{w}: {route:?}");
            assert_ne!(route, Route::ReadExampleComV1WidgetStats, "{w}");
            assert!(params.is_empty(), "{w}: {params:?}");
            // Elsewhere the same segment is a widget's name.
            assert_eq!(
                found(&format!("/apis/example.com/v1/widgets/{w}/status")),
                (Route::ReadExampleComV1WidgetStatus, name(w))
            );
            assert_eq!(
                found(&format!("/apis/example.com/v1/widgets/{w}")),
                (Route::ReadExampleComV1Widget, name(w))
            );
        }
        assert_eq!(
            found("/apis/example.com/v1/widgets/special/stats"),
            (Route::ReadExampleComV1SpecialStats, vec![])
        );
        assert_eq!(
            found("/apis/example.com/v1/widgets/summary/stats"),
            (Route::ReadExampleComV1SummaryStats, vec![])
        );
        // A same-length name that is no static one is a widget.
        assert_eq!(
            found("/apis/example.com/v1/widgets/specia1/logs"),
            (Route::ReadExampleComV1WidgetLogs, name("specia1"))
        );
        assert_eq!(
            found("/apis/example.com/v1/widgets/specia1/stats"),
            (Route::ReadExampleComV1WidgetStats, name("specia1"))
        );
        assert!(
            resolve(&Method::GET, "/apis/example.com/v1/widgets/special/stats/x").is_not_found()
        );
    }
}

mod shared_shapes {
    use super::{json, lossless, rejected, to_json};
    use kubeforge_tests::golden::shared_shapes::io::example::v1::{
        ConfigMapKeySelector, Relay, RelaySpecBackup, RelaySpecBackupProtocol, SecretKeySelector,
    };

    #[test]
    fn every_copy_of_a_shape_reads_and_writes_through_one_type() {
        let endpoint = json!({"host": "a.example", "port": 53, "protocol": "UDP", "weight": 3});
        let key = json!({"key": "token", "name": "creds", "optional": true, "since": "1.36"});
        let relay = json!({
            "apiVersion": "example.io/v1",
            "kind": "Relay",
            "metadata": {"name": "r", "namespace": "ns"},
            "spec": {
                "primary": endpoint,
                "backup": {"host": "b.example"},
                "env": [{"name": "A", "valueFrom": {"configMapKeyRef": key, "secretKeyRef": {"key": "k"}}}],
                "selector": {
                    "matchLabels": {"app": "web"},
                    "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]
                },
                "stages": [{"name": "s", "target": {"host": "c", "protocol": "SCTP"}, "env": [{"name": "B"}]}]
            },
            "status": {"active": {"host": "a.example"}}
        });
        let typed: Relay = lossless("shared_shapes Relay", &relay);
        let spec = typed.spec.expect("spec");
        // One Rust type at every place the shape occurs (this compiles only so).
        let places: [&RelaySpecBackup; 4] = [
            spec.primary.as_ref().expect("primary"),
            spec.backup.as_ref().expect("backup"),
            spec.stages.as_ref().expect("stages")[0]
                .target
                .as_ref()
                .expect("target"),
            typed
                .status
                .as_ref()
                .and_then(|s| s.active.as_ref())
                .expect("active"),
        ];
        assert_eq!(places[0].protocol, Some(RelaySpecBackupProtocol::Udp));
        assert_eq!(
            to_json(places[2]),
            json!({"host": "c", "protocol": "SCTP"}),
            "an unknown enum value is kept by the shared enum"
        );
        let env = &spec.env.as_ref().expect("env")[0];
        let value_from = env.value_from.as_ref().expect("valueFrom");
        let config_map: &ConfigMapKeySelector = value_from.config_map_key_ref.as_ref().unwrap();
        let secret: &SecretKeySelector = value_from.secret_key_ref.as_ref().unwrap();
        assert_eq!(
            to_json(config_map),
            key,
            "unknown fields of a known shape are kept"
        );
        assert_eq!(secret.key, "k");
        // Required stays required in the shared and the known types.
        rejected::<RelaySpecBackup>("endpoint without host", &json!({"port": 1}));
        rejected::<ConfigMapKeySelector>("selector without key", &json!({"name": "n"}));
    }
}
