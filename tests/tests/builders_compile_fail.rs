//! Forgetting a required field does not compile: required fields are the constructor's
//! arguments, and a builder cannot be made any other way. The expected errors are
//! `ui/*.stderr`; regenerate them with `TRYBUILD=overwrite cargo test -p kubeforge-tests --test
//! builders_compile_fail` when the compiler's wording changes.

#[test]
fn forgetting_a_required_field_does_not_compile() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/missing_required_field.rs");
    cases.compile_fail("ui/missing_namespace.rs");
    cases.compile_fail("ui/builder_without_constructor.rs");
}
