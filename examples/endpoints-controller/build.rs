// Generates the controller's custom resource from its CRD (`crd/appendpoints.yaml`) for kube:
// k8s-openapi's meta types and resource traits, and kube's `CustomResourceExt`, so that
// `AppEndpoints::crd()` gives the CRD back for the tests to install.
fn main() {
    let crd = "crd/appendpoints.yaml";
    println!("cargo::rerun-if-changed={crd}");
    kubeforge::Config::new()
        .input(crd)
        .extern_type(
            "io.k8s.apimachinery.pkg.apis.meta.v1.*",
            "::k8s_openapi::apimachinery::pkg::apis::meta::v1::*",
        )
        .k8s_openapi_traits(true)
        .custom_resource_ext(Some("::kube::core"))
        .routes(false)
        .root_path("crate::crd")
        .include_file("crd.rs")
        .compile()
        .unwrap_or_else(|e| panic!("{e}"));
}
