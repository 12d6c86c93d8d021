//! Generated `image.openshift.io/v1` types that work with kube: `ObjectMeta` and the other
//! meta types are k8s-openapi's, and `ImageStream` implements `k8s_openapi::Resource` and
//! `Metadata`, so `kube::Api::<ImageStream>::namespaced(client, "ns")` takes it.

/// The generated API.
pub mod k8s {
    include!(concat!(env!("OUT_DIR"), "/openshift.rs"));
}
