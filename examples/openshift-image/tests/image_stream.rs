//! The types the build script generated, used as a downstream crate uses them.

use std::collections::HashSet;

use openshift_image::k8s::openshift::image::v1::{
    ImageStream, ImageStreamList, TagReferencePolicy,
};
use openshift_image::k8s::routes::CreateOrReplaceQuery;
use openshift_image::mirror;
use serde_json::json;

#[test]
fn builds_and_serializes_an_image_stream() {
    let stream = mirror("ruby", "ci", "docker.io/library/ruby:3.3");
    assert_eq!(
        serde_json::to_value(&stream).unwrap(),
        json!({
            "apiVersion": "image.openshift.io/v1",
            "kind": "ImageStream",
            "metadata": {"name": "ruby", "namespace": "ci"},
            "spec": {"tags": [{
                "name": "latest",
                "from": {"kind": "DockerImage", "name": "docker.io/library/ruby:3.3"}
            }]}
        })
    );
}

#[test]
fn round_trips_a_list_from_the_server() {
    let list = json!({
        "apiVersion": "image.openshift.io/v1",
        "kind": "ImageStreamList",
        "metadata": {"resourceVersion": "42"},
        "items": [{
            "metadata": {"name": "ruby", "namespace": "ci", "uid": "c0ffee"},
            "spec": {"lookupPolicy": {"local": true}},
            "status": {
                "dockerImageRepository": "image-registry.openshift-image-registry.svc:5000/ci/ruby",
                "tags": [{"tag": "latest", "items": [{
                    "created": "2024-05-01T12:00:00Z",
                    "dockerImageReference": "docker.io/library/ruby@sha256:00",
                    "image": "sha256:00",
                    "generation": 2
                }]}]
            }
        }]
    });
    let parsed: ImageStreamList = serde_json::from_value(list.clone()).unwrap();
    assert_eq!(parsed.items.len(), 1);
    assert_eq!(serde_json::to_value(&parsed).unwrap(), list);
}

#[test]
fn request_functions_build_the_create_call() {
    let stream = mirror("ruby", "ci", "docker.io/library/ruby:3.3");
    let request = ImageStream::create_namespaced_image_stream(
        "ci",
        &stream,
        &CreateOrReplaceQuery {
            field_manager: Some("example".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(request.method(), "POST");
    assert_eq!(
        request.uri(),
        "/apis/image.openshift.io/v1/namespaces/ci/imagestreams?fieldManager=example"
    );
    let body: serde_json::Value = serde_json::from_slice(request.body()).unwrap();
    assert_eq!(body, serde_json::to_value(&stream).unwrap());
}

#[test]
fn configured_derives_are_there() {
    // build.rs adds `Hash` to TagReferencePolicy.
    let local = TagReferencePolicy::builder("Local").build();
    let set: HashSet<TagReferencePolicy> = [local.clone(), local].into_iter().collect();
    assert_eq!(set.len(), 1);
}

/// The guide's build.rs recipe (`docs/src/guide/build-rs.md`) is this crate's build script
/// and include, exactly.
#[test]
fn the_guide_shows_this_build_script() {
    let page = include_str!("../../../docs/src/guide/build-rs.md");
    let build_script = include_str!("../build.rs");
    assert!(
        page.contains(build_script),
        "docs/src/guide/build-rs.md must contain examples/openshift-image/build.rs verbatim:\n{build_script}"
    );
    let include =
        "pub mod k8s {\n    include!(concat!(env!(\"OUT_DIR\"), \"/openshift.rs\"));\n}\n";
    assert!(include_str!("../src/lib.rs").contains(include));
    assert!(
        page.contains(include),
        "docs/src/guide/build-rs.md must show the include:\n{include}"
    );
}
