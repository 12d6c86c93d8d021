//! Nothing: the package exists for its test, `tests/builders_compile_fail.rs`, whose cases
//! (`ui/`) use the generated crate, its one dependency.
