//! Each option as the generated code shows it.

use std::collections::{HashMap, HashSet};

use build_options::custom::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use build_options::custom::openshift::image::v1::{
    ImageStream, TagImportPolicy, TagReference, TagReferencePolicy,
};
use build_options::{ObjectRef, lean};
use serde_json::json;

const CUSTOM: &str = include_str!(concat!(env!("OUT_DIR"), "/nested/custom.rs"));
const LEAN: &str = include_str!(concat!(env!("OUT_DIR"), "/lean.rs"));

#[test]
fn maps_are_the_configured_type() {
    let meta = ObjectMeta::builder().label("app", "web").build();
    let labels: &HashMap<String, String> = meta.labels.as_ref().unwrap();
    assert_eq!(labels["app"], "web");
    assert!(!CUSTOM.contains("BTreeMap"));
}

#[test]
fn extern_types_are_used_by_path_and_not_generated() {
    let tag = TagReference::builder("latest")
        .from(ObjectRef {
            kind: Some("DockerImage".into()),
            name: Some("ruby:3.3".into()),
        })
        .build();
    let from: &Option<ObjectRef> = &tag.from;
    assert_eq!(from.as_ref().unwrap().name.as_deref(), Some("ruby:3.3"));
    assert!(!CUSTOM.contains("pub struct ObjectReference"));
    assert!(CUSTOM.contains("crate::ObjectRef"));
}

#[test]
fn derives_and_attributes_are_applied() {
    let policies: HashSet<TagReferencePolicy> = [
        TagReferencePolicy::builder("Local").build(),
        TagReferencePolicy::builder("Local").build(),
    ]
    .into_iter()
    .collect();
    assert_eq!(policies.len(), 1);
    let imports: HashSet<TagImportPolicy> = [TagImportPolicy::builder().scheduled(true).build()]
        .into_iter()
        .collect();
    assert_eq!(imports.len(), 1);
    // The field attribute: `import` is accepted for `importPolicy`.
    let tag: TagReference =
        serde_json::from_value(json!({"name": "x", "import": {"scheduled": true}})).unwrap();
    assert_eq!(tag.import_policy.unwrap().scheduled, Some(true));
    assert!(CUSTOM.contains("#[doc(alias = \"revision\")]"));
    assert!(CUSTOM.contains("#[allow(clippy::struct_field_names)]"));
}

#[test]
fn docs_off_leaves_no_doc_comments() {
    for text in [CUSTOM, LEAN] {
        assert!(!text.lines().any(|l| l.trim_start().starts_with("///")));
        assert!(!text.contains("#[doc ="));
    }
    // Only docs went: the code is the same, builders and all.
    let stream = ImageStream::builder("ruby", "ci").build();
    assert_eq!(stream.metadata.unwrap().name.as_deref(), Some("ruby"));
}

#[test]
fn lean_has_types_only() {
    let stream: lean::openshift::image::v1::ImageStream =
        serde_json::from_value(json!({"kind": "ImageStream", "metadata": {"name": "ruby"}}))
            .unwrap();
    assert_eq!(stream.metadata.unwrap().name.as_deref(), Some("ruby"));
    assert!(!LEAN.contains("fn builder"));
    assert!(!LEAN.contains("pub mod routes"));
    assert!(!LEAN.contains("http::Request"));
}
