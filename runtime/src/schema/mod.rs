//! Schema semantics beyond shape: the [`Node`] form of a schema (constraints, CEL rules,
//! defaults, list and map merge semantics), the [`Resolve`] of the references between
//! nodes, and what reads them:
//!
//! * errors in the API server's form ([`FieldError`], [`Errors`]);
//! * [`apply_defaults`] and [`prune`], structural defaulting and pruning;
//! * [`StaticSchema`], [`SchemaSet`] and the [`Validate`] trait, which generated code
//!   and the in-memory server build on;
//! * [`names`], apimachinery's name and label checks;
//! * with the `validate` feature: [`validate()`], the OpenAPI keywords, formats, list
//!   types and `x-kubernetes-validations` CEL rules ([`cel`]), evaluated as the API
//!   server evaluates them.

#[cfg(feature = "validate")]
pub mod cel;
#[cfg(feature = "validate")]
mod correlate;
mod defaults;
mod error;
#[cfg(feature = "validate")]
mod formats;
pub mod gofmt;
#[cfg(feature = "validate")]
pub mod gourl;
pub mod names;
mod node;
#[cfg(feature = "validate")]
mod pattern;
mod static_schema;
mod strict;
#[cfg(feature = "validate")]
mod validate;
mod view;

pub use defaults::{apply_defaults, is_go_zero, prune, prune_nulls, unknown_field_message};
pub use error::{BadValue, ErrorType, Errors, FieldError, FieldPath};
pub use node::{Additional, ElementType, JsonType, ListType, Node, Rule};
pub use static_schema::{SchemaSet, SchemaTable, StaticSchema, Validate};
pub use strict::{parse_strict, strict_decoding_message, strict_errors};
#[cfg(feature = "validate")]
pub use validate::{Options, validate, validate_with};

/// Resolves the references of a node (`$ref` indexes) to the nodes they name. Generated
/// code resolves through a table of functions, one per referenced type; the in-memory
/// server through one table of every schema of its API.
pub trait Resolve {
    /// The node at `index`, and the resolver of that node's own references; `None` when
    /// the index names nothing (the reference is then not checked).
    fn resolve(&self, index: usize) -> Option<(&Node, &dyn Resolve)>;
}

/// A resolver without references: every `$ref` names nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoReferences;

impl Resolve for NoReferences {
    fn resolve(&self, _index: usize) -> Option<(&Node, &dyn Resolve)> {
        None
    }
}
