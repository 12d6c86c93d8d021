//! The guide's Rust examples as doc-tests: each page of `docs/src` is the documentation of
//! one item here, so `cargo test -p kubeforge-tests --doc` compiles (and runs) every `rust`
//! block of the guide against the workspace's crates, as rustdoc does for any doc comment
//! (lines starting with `# ` are hidden in the book too). A block marked `ignore` must be a
//! verbatim copy of code the workspace compiles (`tests/tests/docs.rs` checks both rules).
//! Compiled only for doc-tests, so nothing here costs a normal build.

macro_rules! pages {
    ($($item:ident = $path:literal;)*) => {
        $(
            #[doc = include_str!(concat!("../../docs/src/", $path))]
            pub struct $item;
        )*
        /// Every page included above, for the test that checks none is missing.
        pub const PAGES: &[&str] = &[$($path),*];
    };
}

pages! {
    Introduction = "introduction.md";
    Install = "guide/install.md";
    Cli = "guide/cli.md";
    BuildRs = "guide/build-rs.md";
    Kube = "guide/kube.md";
    CrdRoundtrip = "guide/crd-roundtrip.md";
    OpenShift = "guide/openshift.md";
    Builders = "guide/builders.md";
    Requests = "guide/requests.md";
    Server = "guide/server.md";
    ServerValidation = "guide/server-validation.md";
    ServerApply = "guide/server-apply.md";
    ServerRbac = "guide/server-rbac.md";
    ServerSimulation = "guide/server-simulation.md";
    ServerDifferences = "guide/server-differences.md";
    Diff = "guide/diff.md";
    Mapping = "reference/mapping.md";
    Naming = "reference/naming.md";
    SharedTypes = "reference/shared-types.md";
    MetaTypes = "reference/meta-types.md";
    Inputs = "reference/inputs.md";
    Patterns = "reference/patterns.md";
    Selection = "reference/selection.md";
    Merging = "reference/merging.md";
    Fixups = "reference/fixups.md";
    Options = "reference/options.md";
    Kopium = "reference/kopium.md";
    Validation = "reference/validation.md";
    Apply = "reference/apply.md";
    GeneratedCrate = "reference/generated-crate.md";
    ErrorsAndWrites = "reference/errors-and-writes.md";
    Architecture = "design/architecture.md";
    Decisions = "design/decisions.md";
    Tests = "contributing/tests.md";
    AddingASchema = "contributing/adding-a-schema.md";
    Benchmarks = "contributing/benchmarks.md";
    Mutants = "contributing/mutants.md";
    Releases = "guide/releases.md";
    Protobuf = "guide/protobuf.md";
}
