// Generates the image.openshift.io/v1 types into $OUT_DIR/openshift.rs.
fn main() {
    let schema = "../../schemas/image.openshift.io_v1.json";
    println!("cargo::rerun-if-changed={schema}");
    kubeforge::Config::new()
        .input(schema)
        .select(kubeforge::Pattern::Kind("ImageStream".into()))
        .root_path("crate::k8s") // where the file is included
        .derive(
            "com.github.openshift.api.image.v1.TagReferencePolicy",
            "Hash",
        )
        .include_file("openshift.rs")
        .compile()
        .unwrap_or_else(|e| panic!("{e}"));
}
