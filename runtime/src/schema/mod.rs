//! Schema semantics beyond shape: the [`Node`] form of a schema (constraints, CEL rules,
//! defaults, list and map merge semantics) and the [`Resolve`] of the references between
//! nodes. See `node.rs` for the form.

mod node;

pub use node::{Additional, ElementType, JsonType, ListType, Node, Rule};

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
