// The builder's only field is private: there is no way around the constructor.
use kubeforge_api::openshift::image::v1::{TagReference, TagReferenceBuilder};

fn main() {
    let tag: TagReference = serde_json::from_str(r#"{"name": "latest"}"#).unwrap();
    let _builder = TagReferenceBuilder { inner: tag };
}
