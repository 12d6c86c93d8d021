//! A downstream crate using kubeforge from `build.rs`: the generated `image.openshift.io/v1`
//! types are included as the module `k8s`, with builders and request functions.

/// The generated API: `k8s::openshift::image::v1::ImageStream` and what it references.
pub mod k8s {
    include!(concat!(env!("OUT_DIR"), "/openshift.rs"));
}

use k8s::openshift::image::v1::{ImageStream, ImageStreamSpec, TagReference};

/// An image stream that follows one upstream image under the tag `latest`.
#[must_use]
pub fn mirror(name: &str, namespace: &str, image: &str) -> ImageStream {
    ImageStream::builder(name, namespace)
        .spec(
            ImageStreamSpec::builder().tag(
                TagReference::builder("latest").from(
                    k8s::api::core::v1::ObjectReference::builder()
                        .kind("DockerImage")
                        .name(image),
                ),
            ),
        )
        .build()
}
