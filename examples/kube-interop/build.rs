// Generates ImageStream for kube: k8s-openapi's meta types, k8s-openapi's resource traits.
fn main() {
    let schema = "../../schemas/image.openshift.io_v1.json";
    println!("cargo::rerun-if-changed={schema}");
    kubeforge::Config::new()
        .input(schema)
        .select(kubeforge::Pattern::Kind("ImageStream".into()))
        .extern_type(
            "io.k8s.apimachinery.pkg.apis.meta.v1.*",
            "::k8s_openapi::apimachinery::pkg::apis::meta::v1::*",
        )
        .extern_type(
            "io.k8s.api.core.v1.ObjectReference",
            "::k8s_openapi::api::core::v1::ObjectReference",
        )
        .k8s_openapi_traits(true)
        // `ImageStream::apply(…)` and `ImageStreamApply`, compiled with this crate's feature
        // `apply` (declared in Cargo.toml).
        .apply_types(true)
        .root_path("crate::k8s")
        .include_file("openshift.rs")
        .compile()
        .unwrap_or_else(|e| panic!("{e}"));
}
