//! The ground floor: what every stage may use and what uses nothing of theirs. Names
//! ([`naming`]: the one place JSON names become Rust names), where types go
//! ([`ModuleRules`]), Kubernetes' group-version-kind ([`Gvk`]), and the pattern language that
//! names types ([`pattern`]). Only [`crate::diagnostics`] is below it.
//!
//! The stages are stacked: load, model, emit, write, each importing only what is below it
//! (`codegen/tests/stages.rs` fails on an import that runs upward).

pub mod attribute;
mod gvk;
mod modules;
pub mod naming;
pub mod pattern;
pub mod rust_path;

pub use gvk::Gvk;
pub use modules::ModuleRules;
