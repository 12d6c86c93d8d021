//! `Validate` for every generated struct, enum and union: one function returning the type's
//! schema node (`model::semantics`) from the crate's one `SchemaTable`, whose data holds
//! every node as JSON text; the runtime reads the table once per process, parses a node at
//! its first use, and evaluates it (constraints, formats, CEL rules), as the in-memory server
//! does with the same nodes. A nested type names its place in its parent's node instead of
//! repeating it. Written as text (`text.rs`).
//!
//! The table, not a `static` per type: rustc constant-evaluated 741 statics in every clean
//! build of the Kubernetes 1.36 crate (0.4 s); one string literal costs it nothing.

use std::fmt::Write as _;

use super::text::{Code, str_literal};
use super::{Context, type_path};
use crate::model::semantics::Embedded;
use crate::model::{TypeId, TypeKind};
use kubeforge_runtime::route::escape;

/// The name of the table in the generated root module (private: its children read it).
const TABLE: &str = "__SCHEMAS";

/// What the table says of one type, worked out with the type's other items (in parallel).
pub(crate) struct Record {
    index: usize,
    kind: RecordKind,
}

enum RecordKind {
    /// The node's JSON and the types its `$ref: i` name.
    Node { json: String, refs: Vec<Ref> },
    /// The node at `path` in the schema of the type at `parent`.
    Within { parent: usize, path: Vec<String> },
}

/// A type a node names: one of this crate's, by index, or another crate's, by the path of
/// its `Validate::schema`.
enum Ref {
    Local(usize),
    Foreign(String),
}

/// The table's record of `id`, when the crate validates and the type has semantics.
pub(crate) fn record(context: &Context<'_>, id: TypeId) -> Option<Record> {
    let api = context.api;
    let validated = matches!(
        api.get(id).kind,
        TypeKind::Struct(_) | TypeKind::Enum(_) | TypeKind::Union(_)
    );
    if !context.validation || !validated {
        return None;
    }
    let kind = match api.embedded_schema(id)? {
        Embedded::Node { node, refs } => RecordKind::Node {
            // The node is the model's, serialized by the runtime's own form.
            json: serde_json::to_string(&node).unwrap_or_default(),
            refs: refs
                .iter()
                .map(|&target| {
                    if api.get(target).kind.extern_path().is_none() {
                        Ref::Local(target.0)
                    } else {
                        Ref::Foreign(format!(
                            "<{} as {}::schema::Validate>::schema",
                            type_path(context, target),
                            context.runtime
                        ))
                    }
                })
                .collect(),
        },
        Embedded::Within { root, path } => RecordKind::Within {
            parent: root.0,
            path,
        },
    };
    Some(Record { index: id.0, kind })
}

/// `impl Validate for T` of the type whose record the table has: the table's entry.
pub(crate) fn impl_text(context: &Context<'_>, record: &Record) -> String {
    let runtime = &context.runtime;
    let name = &context.api.get(TypeId(record.index)).name;
    let mut code = Code::new();
    code.open_impl(&format!("impl {runtime}::schema::Validate"), name);
    // Inline, so that rustc keeps its MIR in the metadata instead of compiling 741 tiny
    // functions to machine code in every clean build of the crate (docs/src/design/decisions.md).
    code.line("#[inline]");
    code.open(&format!(
        "fn schema() -> &'static {runtime}::schema::StaticSchema {{"
    ));
    code.line(&format!("{}::{TABLE}.get({})", context.root, record.index));
    code.close("}");
    code.close("}");
    code.finish()
}

/// The crate's `SchemaTable` of `records` (in the model's order), for the root module;
/// nothing without records.
pub(crate) fn table_text(context: &Context<'_>, records: &[Record]) -> String {
    if records.is_empty() {
        return String::new();
    }
    let mut data = String::new();
    let mut foreign: Vec<&str> = Vec::new();
    for record in records {
        let index = record.index;
        match &record.kind {
            RecordKind::Node { json, refs } => {
                let refs: Vec<String> =
                    refs.iter()
                        .map(|r| match r {
                            Ref::Local(i) => format!("t{i}"),
                            Ref::Foreign(function) => {
                                let i = foreign.iter().position(|f| f == function).unwrap_or_else(
                                    || {
                                        foreign.push(function);
                                        foreign.len() - 1
                                    },
                                );
                                format!("f{i}")
                            }
                        })
                        .collect();
                let _ = writeln!(data, "J\t{index}\t{}\t{json}", refs.join(","));
            }
            RecordKind::Within { parent, path } => {
                let path: Vec<String> = path.iter().map(|p| escape(p)).collect();
                let _ = writeln!(data, "W\t{index}\t{parent}\t{}", path.join(","));
            }
        }
    }
    let table = format!("{}::schema::SchemaTable", context.runtime);
    let mut code = Code::new();
    if context.docs {
        code.docs([
            "Every type's schema, read at first use: the `Validate::schema` of the type at",
            "index `i` of the generator's model is `get(i)`.",
        ]);
    }
    code.line("#[allow(dead_code)]");
    // In the root module, which `cargo fmt` reads: the string's records are laid out here.
    code.line("#[rustfmt::skip]");
    code.open(&format!("static {TABLE}: {table} = {table}::new("));
    code.line("\"\\");
    for record in data.lines() {
        let literal = str_literal(&format!("{record}\n"));
        // A record per line: `\` at the end of a line skips the break and the indent.
        code.line(&format!("{}\\", &literal[1..literal.len() - 1]));
    }
    code.line("\",");
    code.array("&[", &foreign, "],");
    code.close(");");
    code.finish()
}
