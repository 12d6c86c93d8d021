// A Pod and an ImageStream built with the builders, serialized: included by
// `merge_releases.rs` with `krate` = `kubeforge_api` (generated/, from schemas/), and
// compiled into the Kubernetes + OpenShift crate as an example, so both make the same calls.

/// The Pod and the ImageStream, as JSON.
pub fn objects() -> (serde_json::Value, serde_json::Value) {
    use krate::api::core::v1::{Container, EnvVar, ObjectReference, Pod, PodSpec};
    use krate::openshift::image::v1::{
        ImageStream, ImageStreamSpec, TagImportPolicy, TagReference, TagReferencePolicy,
    };

    let pod = Pod::builder("web", "shop")
        .metadata_with(|meta| {
            meta.labels
                .get_or_insert_default()
                .insert("app".into(), "web".into());
        })
        .spec(PodSpec::builder([Container::builder("app")
            .image("nginx:1.27")
            .args(["-g", "daemon off;"])
            .env([EnvVar::builder("MODE").value("production")])])
        .node_name("node-a"))
        .build();
    let stream = ImageStream::builder("ruby", "ci")
        .spec(
            ImageStreamSpec::builder().tag(
                TagReference::builder("3.3")
                    .from(
                        ObjectReference::builder()
                            .kind("DockerImage")
                            .name("docker.io/library/ruby:3.3"),
                    )
                    .import_policy(TagImportPolicy::builder().scheduled(true))
                    .reference_policy(TagReferencePolicy::builder("Local")),
            ),
        )
        .build();
    (
        serde_json::to_value(&pod).expect("a Pod serializes"),
        serde_json::to_value(&stream).expect("an ImageStream serializes"),
    )
}
