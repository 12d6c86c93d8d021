//! Builders of the generated crate: the guide's example (`docs/src/guide/builders.md`; its
//! code is checked to be exactly what the guide shows), the semantics the guide promises, and that every generated
//! struct has a builder. The compile-fail half (a forgotten required field) is
//! `tests/compile-fail/tests/builders_compile_fail.rs`, a package of its own.

use std::fs;
use std::path::Path;

use kubeforge::view::Kind;

use kubeforge_api::api::coordination::v1::{Lease, LeaseSpec};
use kubeforge_api::api::core::v1::{
    ConfigMapEnvSource, Container, ContainerPort, ContainerPortBuilder, EnvVar, ObjectReference,
    ResourceRequirements,
};
use kubeforge_api::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kubeforge_api::openshift::image::v1::{
    ImageStream, ImageStreamSpec, TagImportPolicy, TagReference, TagReferenceBuilder,
    TagReferencePolicy,
};
use kubeforge_tests::workspace_root;
use serde_json::{Value, json};

// Guide example start
fn guide_example() -> Result<(ImageStream, Lease), Box<dyn std::error::Error>> {
    // Required fields are constructor arguments; a resource's constructor takes its name
    // and namespace and sets apiVersion and kind.
    let stream = ImageStream::builder("ruby", "ci")
        .spec(
            ImageStreamSpec::builder()
                // `tag` appends one item to `tags`; nested builders are passed as they are.
                .tag(
                    TagReference::builder("3.3")
                        .from(
                            ObjectReference::builder()
                                .kind("DockerImage")
                                .name("docker.io/library/ruby:3.3"),
                        )
                        .import_policy(TagImportPolicy::builder().scheduled(true))
                        .reference_policy(TagReferencePolicy::builder("Local")),
                )
                .tag(
                    TagReference::builder("latest").from(
                        ObjectReference::builder()
                            .kind("ImageStreamTag")
                            .name("ruby:3.3"),
                    ),
                ),
        )
        .build();

    let renewed: MicroTime = "2024-05-01T12:00:00.25Z".parse()?;
    let lease = Lease::builder("scheduler", "kube-system")
        // `metadata_with` edits the metadata the constructor filled in (the companion crate's
        // `ObjectMeta`, through `&mut`): name and namespace stay.
        .metadata_with(|meta| {
            meta.labels
                .get_or_insert_default()
                .insert("component".into(), "kube-scheduler".into());
        })
        .spec(
            LeaseSpec::builder()
                .holder_identity("node-a_4f8e")
                .lease_duration_seconds(15)
                .renew_time(renewed),
        )
        .build();
    Ok((stream, lease))
}
// Guide example end

fn expected_image_stream() -> Value {
    json!({
        "apiVersion": "image.openshift.io/v1",
        "kind": "ImageStream",
        "metadata": {"name": "ruby", "namespace": "ci"},
        "spec": {
            "tags": [
                {
                    "name": "3.3",
                    "from": {"kind": "DockerImage", "name": "docker.io/library/ruby:3.3"},
                    "importPolicy": {"scheduled": true},
                    "referencePolicy": {"type": "Local"}
                },
                {
                    "name": "latest",
                    "from": {"kind": "ImageStreamTag", "name": "ruby:3.3"}
                }
            ]
        }
    })
}

fn expected_lease() -> Value {
    json!({
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "name": "scheduler",
            "namespace": "kube-system",
            "labels": {"component": "kube-scheduler"}
        },
        "spec": {
            "holderIdentity": "node-a_4f8e",
            "leaseDurationSeconds": 15,
            "renewTime": "2024-05-01T12:00:00.250000Z"
        }
    })
}

#[test]
fn guide_example_serializes_to_the_expected_json() {
    let (stream, lease) = guide_example().expect("the example builds");
    assert_eq!(
        serde_json::to_value(&stream).expect("serializes"),
        expected_image_stream()
    );
    assert_eq!(
        serde_json::to_value(&lease).expect("serializes"),
        expected_lease()
    );
    // And the JSON reads back into equal objects.
    let stream_back: ImageStream =
        serde_json::from_value(expected_image_stream()).expect("deserializes");
    assert_eq!(stream_back, stream);
    let lease_back: Lease = serde_json::from_value(expected_lease()).expect("deserializes");
    assert_eq!(lease_back, lease);
}

/// The guide's example is this file's, word for word, so neither can drift.
#[test]
fn the_guide_shows_this_example() {
    let source = include_str!("builders.rs");
    let start = source
        .find("// Guide example start\n")
        .expect("start marker")
        + "// Guide example start\n".len();
    let end = source.find("// Guide example end").expect("end marker");
    let body = &source[start..end];
    // The guide shows the function's body, without the signature and the final `Ok`.
    let lines: Vec<&str> = body.lines().collect();
    let inner = &lines[1..lines.len() - 2];
    let example: String = inner
        .iter()
        .map(|line| line.strip_prefix("    ").unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n");
    let page = fs::read_to_string(workspace_root().join("docs/src/guide/builders.md"))
        .expect("docs/src/guide/builders.md");
    assert!(
        page.contains(&example),
        "docs/src/guide/builders.md must show the example of tests/tests/builders.rs exactly:\n\n{example}"
    );
}

#[test]
fn the_last_set_of_a_scalar_wins() {
    let spec = LeaseSpec::builder()
        .holder_identity("a")
        .lease_duration_seconds(10)
        .holder_identity("b")
        .lease_duration_seconds(20)
        .build();
    assert_eq!(spec.holder_identity.as_deref(), Some("b"));
    assert_eq!(spec.lease_duration_seconds, Some(20));

    // Required fields have setters too, and the last one wins over the constructor's value.
    let port = ContainerPort::builder(80).container_port(8080).build();
    assert_eq!(port.container_port, 8080);
}

#[test]
fn list_setters_append_one_item_or_replace_the_list() {
    let container = Container::builder("app")
        .arg("--verbose")
        .arg("--port=80")
        .build();
    assert_eq!(
        container.args,
        Some(vec!["--verbose".to_owned(), "--port=80".to_owned()])
    );

    // Replacing drops what was appended before; appending afterwards adds to the new list.
    let container = Container::builder("app")
        .arg("dropped")
        .args(["a", "b"])
        .arg("c")
        .build();
    assert_eq!(
        container.args,
        Some(vec!["a".to_owned(), "b".to_owned(), "c".to_owned()])
    );

    // Items may be builders; a field without a plural name appends with `push_<field>`.
    let container = Container::builder("app")
        .push_env(EnvVar::builder("A").value("1"))
        .push_env(EnvVar::builder("B").value("2"))
        .push_command("sh")
        .build();
    let json = serde_json::to_value(&container).expect("serializes");
    assert_eq!(
        json,
        json!({
            "name": "app",
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
            "command": ["sh"]
        })
    );

    // An explicitly empty list is kept, and serialized: it was asked for.
    let container = Container::builder("app").args(Vec::<String>::new()).build();
    assert_eq!(container.args, Some(Vec::new()));
}

#[test]
fn map_setters_insert_one_entry_or_replace_the_map() {
    let meta = ObjectMeta::builder()
        .label("app", "web")
        .label("tier", "front")
        .label("app", "api")
        .build();
    assert_eq!(
        serde_json::to_value(&meta).expect("serializes"),
        json!({"labels": {"app": "api", "tier": "front"}})
    );

    let meta = ObjectMeta::builder()
        .label("dropped", "yes")
        .labels([("a", "1"), ("b", "2")])
        .label("c", "3")
        .build();
    assert_eq!(
        serde_json::to_value(&meta).expect("serializes"),
        json!({"labels": {"a": "1", "b": "2", "c": "3"}})
    );

    // Values convert through `Into` as well: quantities from strings.
    let resources = ResourceRequirements::builder()
        .limit("cpu", "500m")
        .request("memory", "64Mi")
        .build();
    assert_eq!(
        serde_json::to_value(&resources).expect("serializes"),
        json!({"limits": {"cpu": "500m"}, "requests": {"memory": "64Mi"}})
    );
}

#[test]
fn schema_defaults_start_the_builder_and_zero_defaults_do_not() {
    // `protocol` has the schema default "TCP"; `containerPort` is required (its `0`
    // default is Go's zero value, so it is an argument, not a default).
    let port = ContainerPort::builder(8080).build();
    assert_eq!(
        serde_json::to_value(&port).expect("serializes"),
        json!({"containerPort": 8080, "protocol": "TCP"})
    );
    // A default is only a starting point.
    let port = ContainerPort::builder(53).protocol("UDP").build();
    assert_eq!(port.protocol.as_deref(), Some("UDP"));

    // `name` has the default "" and `Container.resources` the default {}: Go zero values,
    // so nothing is invented on the wire.
    let source = ConfigMapEnvSource::builder().build();
    assert_eq!(
        serde_json::to_value(&source).expect("serializes"),
        json!({})
    );
    let container = Container::builder("app").build();
    assert_eq!(
        serde_json::to_value(&container).expect("serializes"),
        json!({"name": "app"})
    );

    // Objects that are deserialized or converted keep exactly what they had: defaults are
    // for new builders only.
    let port: ContainerPort =
        serde_json::from_value(json!({"containerPort": 1})).expect("deserializes");
    let port = ContainerPortBuilder::from(port).build();
    assert_eq!(port.protocol, None);
}

#[test]
fn resource_constructors_set_type_name_and_namespace() {
    let lease = Lease::builder("a", "b").build();
    assert!(lease.api_version.is_present() && lease.kind.is_present());
    assert_eq!(
        serde_json::to_value(&lease).expect("serializes"),
        json!({
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": "a", "namespace": "b"}
        })
    );
}

#[test]
fn editing_nested_objects_keeps_what_is_there() {
    // `metadata_with` edits the metadata the constructor made, so the name stays; each call
    // continues from the last.
    let lease = Lease::builder("a", "b")
        .metadata_with(|meta| {
            meta.labels
                .get_or_insert_default()
                .insert("app".into(), "web".into());
        })
        .metadata_with(|meta| {
            meta.annotations
                .get_or_insert_default()
                .insert("note".into(), "kept".into());
        })
        .spec(
            LeaseSpec::builder()
                .holder_identity("x")
                .lease_transitions(2),
        )
        .build();
    assert_eq!(
        serde_json::to_value(&lease).expect("serializes"),
        json!({
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {
                "name": "a",
                "namespace": "b",
                "labels": {"app": "web"},
                "annotations": {"note": "kept"}
            },
            "spec": {"holderIdentity": "x", "leaseTransitions": 2}
        })
    );

    // A plain setter replaces the whole nested object, name included.
    let lease = Lease::builder("a", "b")
        .metadata(ObjectMeta::builder().name("c"))
        .build();
    assert_eq!(
        lease.metadata.and_then(|m| m.namespace),
        None,
        "metadata() replaces"
    );
}

#[test]
fn an_existing_object_gives_its_builder_back() {
    let original: Lease = serde_json::from_value(json!({
        "metadata": {"name": "a", "namespace": "b", "resourceVersion": "7"},
        "spec": {"holderIdentity": "x", "leaseDurationSeconds": 30}
    }))
    .expect("deserializes");
    // This object came without apiVersion and kind (as list items do); its builder keeps
    // them absent, and every field it does not touch.
    let changed = Lease::from(
        kubeforge_api::api::coordination::v1::LeaseBuilder::from(original.clone()).metadata_with(
            |meta| {
                meta.labels
                    .get_or_insert_default()
                    .insert("app".into(), "web".into());
            },
        ),
    );
    assert_eq!(
        serde_json::to_value(&changed).expect("serializes"),
        json!({
            "metadata": {
                "name": "a",
                "namespace": "b",
                "resourceVersion": "7",
                "labels": {"app": "web"}
            },
            "spec": {"holderIdentity": "x", "leaseDurationSeconds": 30}
        })
    );
    // A nested object's builder comes back the same way, to change one field of it.
    let spec = original.spec.clone().expect("has a spec");
    let spec = kubeforge_api::api::coordination::v1::LeaseSpecBuilder::from(spec)
        .holder_identity("y")
        .build();
    assert_eq!(
        (spec.holder_identity.as_deref(), spec.lease_duration_seconds),
        (Some("y"), Some(30))
    );
    // Without changes, the round trip is the identity.
    let builder: kubeforge_api::api::coordination::v1::LeaseBuilder = original.clone().into();
    assert_eq!(builder.build(), original);

    // `TagReferenceBuilder` has a `from` setter (for the field `from`), so `From` is
    // reached through `into()` or the trait path there.
    let tag = TagReference::builder("latest").build();
    let builder: TagReferenceBuilder = tag.clone().into();
    assert_eq!(builder.generation(3).build().generation, Some(3));
    assert_eq!(
        <TagReferenceBuilder as From<_>>::from(tag.clone()).build(),
        tag
    );
}

/// Every struct the schemas define has, in `generated/`, a constructor and a builder with
/// both `From` conversions, re-exported beside it. (The route emitter's `…Query` parameter
/// structs are not schema types: all their fields are optional, and they are built with
/// `..Default::default()`.)
#[test]
fn every_generated_struct_has_a_builder() {
    let root = workspace_root();
    let api = xtask::regen_config(&root)
        .expect("schemas")
        .model()
        .expect("the schemas load");
    let mut structs = 0;
    let mut missing = Vec::new();
    for ty in api.types() {
        if ty.kind() != Kind::Struct {
            continue;
        }
        structs += 1;
        let builder = ty.builder().expect("every struct has a builder");
        let dir = ty
            .module()
            .iter()
            .fold(root.join("generated/src"), |dir, m| dir.join(m));
        // Compared with white space squashed, since long lines are wrapped.
        let text = fs::read_to_string(dir.join(format!("{}.rs", ty.file())))
            .unwrap_or_default()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let module: String = fs::read_to_string(dir.join("mod.rs"))
            .unwrap_or_default()
            .split_whitespace()
            .collect();
        let name = ty.name();
        let expected = [
            format!("impl {name} {{"),
            format!(") -> {builder} {{"),
            format!("pub type {builder} = crate::Builder<{name}>;"),
            format!("impl From<{builder}> for {name} {{"),
        ];
        let absent: Vec<&String> = expected.iter().filter(|e| !text.contains(*e)).collect();
        let exported = [format!("{{{name},{builder}"), format!(",{name},{builder}")]
            .iter()
            .any(|e| module.contains(e.as_str()));
        if !absent.is_empty() || !exported {
            missing.push(format!("{}::{name}: {absent:?}", ty.module().join("::")));
        }
    }
    assert!(
        structs > 100,
        "expected the schemas' structs, found {structs}"
    );
    assert!(
        missing.is_empty(),
        "structs without a builder:\n{}",
        missing.join("\n")
    );
}

#[test]
fn builders_can_be_turned_off() {
    let root = workspace_root();
    let input = Path::new("tests/golden/builder_nested.json");
    let generate = |builders: bool| -> String {
        let output = kubeforge::Config::new()
            .input_named(root.join(input), input)
            .layout(kubeforge::Layout::SingleFile)
            .builders(builders)
            .generate()
            .expect("generates");
        output.files().values().cloned().collect()
    };
    let with = generate(true);
    let without = generate(false);
    assert!(
        with.contains("pub type TagBuilder = crate::Builder<Tag>;")
            && with.contains("pub fn builder(")
    );
    assert!(with.contains("pub struct Builder<T> {"));
    assert!(!without.contains("Builder") && !without.contains("pub fn builder("));
    // Turning builders off leaves the types: the same structs, minus the builders.
    let structs = |text: &str| {
        text.lines()
            .filter(|l| l.trim_start().starts_with("pub struct ") && !l.contains("Builder"))
            .count()
    };
    assert_eq!(structs(&with), structs(&without));
    assert_eq!(structs(&without), 5);
}

/// Every struct in generated/ (schema types and the routes' query structs alike) has a
/// builder: found by scanning the generated source, so nothing escapes the check.
#[test]
fn every_struct_in_generated_has_a_builder() {
    fn structs(dir: &std::path::Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir)
            .expect("readable")
            .filter_map(Result::ok)
        {
            let path = entry.path();
            if path.is_dir() {
                structs(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("readable");
                for line in text.lines() {
                    let line = line.trim_start();
                    // Structs, and the builder aliases of the generic `Builder<T>`.
                    let rest = line.strip_prefix("pub struct ").or_else(|| {
                        line.strip_prefix("pub type ")
                            .filter(|rest| rest.contains("Builder = "))
                    });
                    if let Some(rest) = rest {
                        let name: String = rest
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        found.push(name);
                    }
                }
            }
        }
    }
    let mut names = Vec::new();
    structs(
        &kubeforge_tests::workspace_root().join("generated/src"),
        &mut names,
    );
    let all: std::collections::BTreeSet<&str> = names.iter().map(String::as_str).collect();
    let missing: Vec<&&str> = all
        .iter()
        .filter(|name| {
            // An apply configuration (`PodApply` of `Pod`) is built by its own setters.
            let apply = name
                .strip_suffix("Apply")
                .is_some_and(|full| all.contains(full));
            !apply && !name.ends_with("Builder") && !all.contains(format!("{name}Builder").as_str())
        })
        .collect();
    assert!(all.len() > 200, "found only {} structs", all.len());
    assert!(missing.is_empty(), "structs without a builder: {missing:?}");
}

#[test]
fn query_parameters_have_builders_too() {
    use kubeforge_api::api::coordination::v1::Lease;
    use kubeforge_api::routes::ListOrWatchQuery;
    let query = ListOrWatchQuery::builder()
        .label_selector("app=web")
        .limit(10)
        .build();
    let request = Lease::list_namespaced_lease("default", &query).expect("request");
    assert_eq!(
        request.uri().to_string(),
        "/apis/coordination.k8s.io/v1/namespaces/default/leases?labelSelector=app%3Dweb&limit=10"
    );
    let again: ListOrWatchQuery =
        kubeforge_api::routes::ListOrWatchQueryBuilder::from(query.clone()).build();
    assert_eq!(again, query);
    // No float among its parameters, so `Eq` (an empty impl): a `HashSet` of queries, a
    // user's own `#[derive(Eq)]` over one.
    #[derive(PartialEq, Eq)]
    struct Users(ListOrWatchQuery);
    assert!(Users(again) == Users(query));
}
