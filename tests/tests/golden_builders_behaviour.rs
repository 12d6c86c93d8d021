//! Behaviour of the builder golden cases, on the generated code itself: what each builder
//! produces, checked as the JSON it serializes to. `golden_behaviour.rs` covers the rest of
//! every golden case through JSON alone; these tests need the builders' typed API, so a
//! generator bug that changes a constructor's arguments fails them at compile time.

use serde::Serialize;
use serde_json::{Value, json};

fn to_json<T: Serialize>(typed: &T) -> Value {
    serde_json::to_value(typed).expect("serializes")
}

mod builder_fields {
    use super::{json, to_json};
    use kubeforge_tests::golden::builder_fields::com::example::v1::{Empty, Port, PortProtocol};

    #[test]
    fn required_fields_are_arguments_and_real_defaults_apply() {
        let port = Port::builder(8080, PortProtocol::Udp).build();
        assert_eq!(
            to_json(&port),
            json!({
                "port": 8080, "protocol": "UDP", "mode": "Fast",
                "hostIP": "0.0.0.0", "weight": 1.5, "timeoutSeconds": 86400,
                "appProtocol": "http", "size": "1Gi"
            })
        );
        let port = Port::builder(1, "SCTP")
            .mode("Slow")
            .name("n")
            .name("last wins")
            .enabled(true)
            .set_is_default(true)
            .set_build("b")
            .build();
        let value = to_json(&port);
        assert_eq!(value["protocol"], "SCTP");
        assert_eq!(value["mode"], "Slow");
        assert_eq!(value["name"], "last wins");
        assert_eq!(value["isDefault"], true);
        assert_eq!(value["build"], "b");
        assert_eq!(to_json(&Empty::builder().build()), json!({}));
        // `Default` only where no field is required, so it never invents a value.
        assert_eq!(to_json(&Empty::default()), json!({}));
        assert_eq!(
            to_json(&Empty::builder().note("x").build()),
            json!({"note": "x"})
        );
    }
}

mod builder_collections {
    use super::{json, to_json};
    use kubeforge_tests::golden::builder_collections::com::example::v1::{Policy, Volume};

    #[test]
    fn lists_replace_or_append_and_maps_replace_or_insert() {
        let volume = Volume::builder(["ro"], [("a", "1")])
            .mount_option("noatime")
            .attribute("b", "2")
            .attribute("a", "3")
            .labels([("x", "1")])
            .label("y", "2")
            .insert_data("k", vec![0_u8, 1, 2])
            .command(["sh"])
            .push_command("-c")
            .pod_ips(["10.0.0.1"])
            .push_pod_ips("10.0.0.2")
            .pod_ip("10.0.0.1")
            .policy(Policy::builder("p"))
            .push_matrix(vec![1, 2])
            .build();
        assert_eq!(
            to_json(&volume),
            json!({
                "mountOptions": ["ro", "noatime"],
                "attributes": {"a": "3", "b": "2"},
                "labels": {"x": "1", "y": "2"},
                "data": {"k": "AAEC"},
                "command": ["sh", "-c"],
                "podIPs": ["10.0.0.1", "10.0.0.2"],
                "podIP": "10.0.0.1",
                "policies": [{"name": "p"}],
                "matrix": [[1, 2]]
            })
        );
        let replaced = Volume::builder(Vec::<String>::new(), Vec::<(String, String)>::new())
            .command(["a"])
            .command(["b"])
            .build();
        assert_eq!(
            to_json(&replaced),
            json!({"mountOptions": [], "attributes": {}, "command": ["b"]})
        );
    }
}

mod builder_nested {
    use super::{json, to_json};
    use kubeforge_tests::golden::builder_nested::com::example::v1::{
        ImportPolicy, Reference, ReferencePolicy, Tag, TagRetry,
    };

    #[test]
    fn nested_builders_are_passed_as_they_are() {
        let tag = Tag::builder("latest", ReferencePolicy::builder("Local"))
            .import_policy(ImportPolicy::builder().scheduled(true))
            .from(Reference::builder("DockerImage", "ruby"))
            .retry(TagRetry::builder().limit(3))
            .build();
        assert_eq!(
            to_json(&tag),
            json!({
                "name": "latest",
                "policy": {"type": "Local"},
                "importPolicy": {"scheduled": true},
                "from": {"kind": "DockerImage", "name": "ruby"},
                "retry": {"limit": 3}
            })
        );
        // Go's `{}` zero-value default is not applied.
        let bare = Tag::builder("t", ReferencePolicy::builder("Source")).build();
        assert_eq!(
            to_json(&bare),
            json!({"name": "t", "policy": {"type": "Source"}})
        );
    }
}

mod resource {
    use super::{json, to_json};
    use kubeforge_tests::golden::resource::com::example::v1::Gizmo;

    #[test]
    fn a_resource_default_has_its_type_meta() {
        assert_eq!(
            to_json(&Gizmo::default()),
            json!({"apiVersion": "example.com/v1", "kind": "Gizmo"})
        );
    }
}

mod builder_resource {
    use super::{json, to_json};
    use kubeforge_tests::golden::builder_resource::com::example::v1::{
        Gadget, GadgetBuilder, GadgetList, GadgetSpec, Gizmo,
    };

    #[test]
    fn resources_take_their_name_and_namespace() {
        let gadget = Gadget::builder("g", "ns", GadgetSpec::builder(2))
            // The fixture's `ObjectMeta` is a subset of the companion's, so it is the
            // companion's, edited through `&mut`.
            .metadata_with(|m| {
                m.labels
                    .get_or_insert_default()
                    .insert("app".into(), "web".into());
            })
            .build();
        assert_eq!(
            to_json(&gadget),
            json!({
                "apiVersion": "example.com/v1", "kind": "Gadget",
                "metadata": {"name": "g", "namespace": "ns", "labels": {"app": "web"}},
                "spec": {"size": 2, "color": "blue"}
            })
        );
        let gizmo = Gizmo::builder("object name", "field name").build();
        assert_eq!(
            to_json(&gizmo),
            json!({
                "apiVersion": "example.com/v1", "kind": "Gizmo",
                "metadata": {"name": "object name"}, "name": "field name"
            })
        );
        let list = GadgetList::builder([gadget.clone()]).build();
        assert_eq!(to_json(&list)["items"][0]["metadata"]["name"], "g");
        assert_eq!(to_json(&list)["kind"], "GadgetList");
        // An existing object gives its builder back, unchanged where not set.
        let item: Gadget =
            serde_json::from_value(json!({"spec": {"size": 1}})).expect("a list item");
        let builder: GadgetBuilder = item.into();
        assert_eq!(
            to_json(&builder.spec(GadgetSpec::builder(5)).build()),
            json!({"spec": {"size": 5, "color": "blue"}})
        );
    }
}
