//! The generation this crate's build script runs, shared with the test that runs it again.

use std::path::Path;

/// The schema, relative to the package (cargo runs build scripts and tests there).
pub(crate) const SCHEMA: &str = "../../schemas/image.openshift.io_v1.json";

/// Every option that changes the code, at once: included as `crate::custom` from
/// `OUT_DIR/nested/custom.rs`.
pub(crate) fn custom() -> kubeforge::Config {
    kubeforge::Config::new()
        .input(SCHEMA)
        .select(kubeforge::Pattern::Kind("ImageStream".into()))
        .root_path("crate::custom")
        .include_file("nested/custom.rs")
        .map_type("::std::collections::HashMap")
        // The meta types generated here, so that the map type (`ObjectMeta`'s labels) and the
        // field attribute (`ObjectMeta`'s generation) reach them too.
        .companion_meta(false)
        .extern_type("io.k8s.api.core.v1.ObjectReference", "crate::ObjectRef")
        .derive(
            "com.github.openshift.api.image.v1.TagReferencePolicy",
            "Hash",
        )
        .derive("openshift::image::v1::TagImportPolicy", "Hash")
        .type_attribute(
            "com.github.openshift.api.image.v1.*",
            "#[allow(clippy::struct_field_names)]",
        )
        .field_attribute(
            "openshift::image::v1::TagReference",
            "importPolicy",
            "#[serde(alias = \"import\")]",
        )
        .field_attribute("*", "generation", "#[doc(alias = \"revision\")]")
        .docs(false)
}

/// Everything optional off: included as `crate::lean` from `OUT_DIR/lean.rs`.
pub(crate) fn lean() -> kubeforge::Config {
    kubeforge::Config::new()
        .input(SCHEMA)
        .select(kubeforge::Pattern::Kind("ImageStream".into()))
        .root_path("crate::lean")
        .include_file("lean.rs")
        .builders(false)
        .routes(false)
        .docs(false)
}

/// Runs both into `out_dir`.
///
/// # Errors
///
/// Any generator error.
pub(crate) fn run(out_dir: &Path) -> Result<Vec<kubeforge::WriteReport>, kubeforge::Error> {
    Ok(vec![
        custom().compile_to(out_dir)?,
        lean().compile_to(out_dir)?,
    ])
}
