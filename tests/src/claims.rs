//! Every count the guide (`docs/src`) states about the corpus and the tests, in one place.
//! The tests that check a count use these constants with `assert_eq!`, and
//! `tests/tests/guide_claims.rs` checks that the page that states each one states it exactly, so
//! neither can drift from the other.

/// Kubernetes 1.35 OpenAPI v3 group-version documents in the corpus, all generated and built.
pub const V3_GROUP_VERSIONS: usize = 36;
/// Definitions in OpenShift's `openapi.json`.
pub const OPENSHIFT_DEFINITIONS: usize = 1790;
/// CustomResourceDefinitions in the corpus.
pub const CRDS: usize = 5;
/// Kubernetes' `testdata/` fixtures whose apiVersion/kind the 1.36 swagger serves; every one
/// round-trips losslessly.
pub const ROUND_TRIPPED_FIXTURES: usize = 99;
/// Kubernetes' `testdata/` fixtures whose apiVersion/kind one of the 1.36 swagger's
/// definitions names (the meta kinds' many group-versions included): the in-memory server's
/// protobuf transcoder writes every one as its `.pb` and reads it as its `.json`.
pub const TRANSCODED_FIXTURES: usize = 100;
/// Operations of Kubernetes 1.36 with optional query parameters…
pub const OPTIONAL_QUERY_OPERATIONS: usize = 1058;
/// …those whose parameters are one of the shared structs…
pub const SHARED_QUERY_OPERATIONS: usize = 1057;
/// …and how many shared structs there are.
pub const SHARED_QUERY_SETS: usize = 10;
/// Malformed or hostile documents committed in `tests/hostile/`.
pub const HOSTILE_DOCUMENTS: usize = 58;
/// How deep the generated deeply nested hostile inputs are.
pub const HOSTILE_DEPTH: usize = 10_000;
/// The size of the generated hostile description, in MiB.
pub const HOSTILE_DESCRIPTION_MB: usize = 10;
/// Cases each property test runs by default.
pub const PROPERTY_CASES: u32 = 64;
/// Types Argo's Workflow CRD (`tests/extra-crds/SOURCE.md`) generates with one type per
/// shape, besides the meta types (`dedup.rs`, when the extra CRDs are present)…
pub const ARGO_TYPES: usize = 216;
/// …with `--no-dedup`…
pub const ARGO_TYPES_NO_DEDUP: usize = 2424;
/// …and how many of the first are named after a Kubernetes type.
pub const ARGO_KNOWN: usize = 60;
/// Istio's invalid example objects (`../shared/validation/istio/testdata`): every one is
/// refused with the text a real API server gave, through the model's nodes
/// (`validation_istio.rs`)…
pub const ISTIO_INVALID: usize = 76;
/// …and its valid ones, every one accepted.
pub const ISTIO_VALID: usize = 35;
/// Of the invalid ones, through a generated crate (`validation_generated.rs`): refused by
/// `validate()` with the API server's text…
pub const ISTIO_REFUSED_BY_VALIDATE: usize = 64;
/// …and already when read into the typed value.
pub const ISTIO_REFUSED_WHEN_READ: usize = 12;
/// Fixups for known upstream bugs (`codegen/src/load/fixups.rs`).
pub const FIXUPS: usize = 1;
/// The oldest Rust toolchain the workspace supports (`rust-version`).
pub const RUST_VERSION: &str = "1.89";

/// `1790` → `1,790`, as the guide writes large numbers.
#[must_use]
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `5` → `five`, as the guide writes small numbers.
#[must_use]
pub fn spelled(n: usize) -> String {
    const WORDS: [&str; 11] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| (*w).to_owned())
}

/// The phrases the guide must contain (whitespace-normalized), one per claim, each with the
/// page that states it (below `docs/src`).
#[must_use]
pub fn page_phrases() -> Vec<(&'static str, String)> {
    vec![
        (
            "reference/shared-types.md",
            format!(
                "For Argo's Workflow this makes {ARGO_TYPES} types instead of {} ({ARGO_KNOWN} of them Kubernetes types)",
                thousands(ARGO_TYPES_NO_DEDUP)
            ),
        ),
        (
            "contributing/tests.md",
            format!("every corpus input ({V3_GROUP_VERSIONS} v3 group-versions"),
        ),
        (
            "contributing/tests.md",
            format!(
                "OpenShift's {} definitions",
                thousands(OPENSHIFT_DEFINITIONS)
            ),
        ),
        ("contributing/tests.md", format!("{} CRDs)", spelled(CRDS))),
        (
            "contributing/tests.md",
            format!("all {ROUND_TRIPPED_FIXTURES} fixtures whose kind the 1.36 API serves"),
        ),
        (
            "guide/protobuf.md",
            format!(
                "each of the {TRANSCODED_FIXTURES} fixtures of `testdata/` whose kind `swagger.json` names"
            ),
        ),
        (
            "guide/requests.md",
            format!(
                "of the {} operations of Kubernetes 1.36 with optional parameters, {} take one of \
                 {SHARED_QUERY_SETS} shared structs; only `pods/log` has its own",
                thousands(OPTIONAL_QUERY_OPERATIONS),
                thousands(SHARED_QUERY_OPERATIONS)
            ),
        ),
        (
            "reference/errors-and-writes.md",
            format!("`tests/hostile/` holds {HOSTILE_DOCUMENTS} malformed or hostile documents"),
        ),
        (
            "reference/errors-and-writes.md",
            format!(
                "the test adds {}-deep nesting and a {HOSTILE_DESCRIPTION_MB} MB description",
                thousands(HOSTILE_DEPTH)
            ),
        ),
        (
            "reference/errors-and-writes.md",
            format!("{PROPERTY_CASES} cases by default"),
        ),
        (
            "reference/fixups.md",
            format!("There is {} today", spelled(FIXUPS)),
        ),
        ("guide/install.md", format!("({RUST_VERSION} or newer)")),
        (
            "reference/validation.md",
            format!(
                "all {ISTIO_INVALID} invalid objects are refused with the text a real API server \
                 gave and all {ISTIO_VALID} valid ones accepted"
            ),
        ),
        (
            "reference/validation.md",
            format!(
                "{ISTIO_REFUSED_BY_VALIDATE} are refused by `validate()` with that text and \
                 {ISTIO_REFUSED_WHEN_READ} already when read into the typed value"
            ),
        ),
        (
            "reference/validation.md",
            format!("and all {ISTIO_VALID} valid ones pass"),
        ),
    ]
}
