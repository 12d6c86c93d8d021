//! Operations → request functions, query structs, response decoders, the route table and the
//! endpoint tables in docs. Every decision (names, types, order) is the model's
//! (`model/operations/`: argument, variant and query struct names, the query
//! structs' `Eq`); these modules only spell it: `requests.rs` (request functions),
//! `decoders.rs` (response decoders and enums), `watch.rs` (a list's watch), `query.rs`
//! (query structs), `display.rs` (types as docs and the route table write them),
//! `table.rs` (the crate-wide `routes` module: the route table, the route enum, the free
//! functions) and `endpoints.rs` (the endpoint tables in docs). This module puts one
//! operation's functions together (`operation_functions`), for a resource's file and for
//! the `routes` module alike.
//!
//! Per resource, in the resource's file: `impl Lease { pub const ROUTES; pub fn
//! read_namespaced_lease(…) -> Result<http::Request<Vec<u8>>, RequestError>; pub fn
//! read_namespaced_lease_response(status, body) -> Result<Lease, ResponseError>; … }`, plus a
//! `…Query` struct for an operation whose optional query parameters no other operation takes.
//! Crate-wide, in the `routes` module: the `Route` enum, the `ROUTES` table, the
//! `ResponseError` alias, the query structs operations share (`query.rs`), request functions
//! of operations on no resource, and the matcher (`matcher.rs`).
//!
//! Request functions, decoders and query serialization are `#[inline]`. They are not generic,
//! so rustc would otherwise compile every operation, and every serde impl its body and response
//! reach, into the API crate; inline, only the operations a program calls are compiled, in it.

mod decoders;
mod display;
mod endpoints;
mod query;
mod requests;
mod table;
mod watch;

use super::docs::doc_lines;
use super::text::Code;
use super::{Context, Parts, shape_text};
use crate::model::operations::{self, Operation};
use crate::model::{Shape, TypeId};
use decoders::{decoder_function, operation_types};
use requests::{apply_function, operation_request};
use watch::watch_functions;

/// The name of the crate-wide routes module.
pub(crate) const MODULE: &str = crate::ground::naming::ROUTES_MODULE;

/// The items added to the file of the resource `id`: its request functions and decoders
/// (an impl block, as text: the bulk of a resource's file), then their query structs and
/// response enums; with the names to re-export.
pub(crate) fn resource_items(context: &Context<'_>, id: TypeId) -> (Parts, Vec<String>) {
    let operations: Vec<&Operation> = context.api.operations_of(id).collect();
    if operations.is_empty() {
        return (Parts::default(), Vec::new());
    }
    let ty = context.api.get(id);
    let routes = routes_path_text(context);
    let owner = format!("{}::", ty.name);
    let in_impl = Local {
        id: Some(id),
        name: "Self".to_owned(),
    };
    let in_file = Local {
        id: Some(id),
        name: ty.name.clone(),
    };
    let mut code = Code::new();
    code.open(&format!("impl {} {{", ty.name));
    if context.docs {
        code.docs(["The operations on this resource, in the order of the endpoint table above."]);
    }
    let variants: Vec<String> = operations
        .iter()
        .map(|op| format!("{routes}::Route::{}", op.names.variant))
        .collect();
    let variants: Vec<&str> = variants.iter().map(String::as_str).collect();
    code.list(
        &format!("pub const ROUTES: &'static [{routes}::Route] = &["),
        &variants,
        "]",
        ";",
    );
    for op in &operations {
        code.blank();
        operation_functions(&mut code, context, op, &owner, &in_impl);
    }
    code.close("}");
    let mut parts = Parts::default();
    parts.text(code.finish());
    let mut exports = Vec::new();
    for op in &operations {
        let (types, names) = operation_types(context, op, &owner, &in_file);
        parts.text(types);
        exports.extend(names);
    }
    (parts, exports)
}

/// The functions of `op`, in order: its request function, the apply function beside a
/// patch, its response decoder and a list's watch functions. `owner` is `Type::` for
/// associated functions, empty for free ones (used in doc links).
fn operation_functions(
    code: &mut Code,
    context: &Context<'_>,
    op: &Operation,
    owner: &str,
    local: &Local,
) {
    let cfg = crate::emit::attributes::with_release(context, op, context.operation_cfg(op));
    operation_request(code, context, op, owner, local, cfg.as_deref());
    code.blank();

    if context.apply {
        apply_function(code, context, op, owner, cfg.as_deref());
    }

    decoder_function(code, context, op, owner, local, cfg.as_deref());

    if let Some(watch) = &op.watch {
        code.blank();
        watch_functions(code, context, op, watch, owner, local, cfg.as_deref());
    }
}

/// How a file names its own resource type: `Self` inside the type's impl, the bare name
/// elsewhere in its file (a full path there is an unnecessary qualification).
pub(super) struct Local {
    id: Option<TypeId>,
    name: String,
}

impl Local {
    fn none() -> Local {
        Local {
            id: None,
            name: String::new(),
        }
    }
}

/// The Rust type of a shape, as the file being generated spells it.
pub(super) fn local_type_text(context: &Context<'_>, shape: &Shape, local: &Local) -> String {
    match shape {
        Shape::Ref(id) if Some(*id) == local.id => local.name.clone(),
        Shape::Vec(inner) => format!("Vec<{}>", local_type_text(context, inner, local)),
        Shape::Map(inner) => format!(
            "{}<String, {}>",
            context.map,
            local_type_text(context, inner, local)
        ),
        other => shape_text(context, other),
    }
}

/// Doc lines the generator wrote itself (already markdown), when docs are on.
pub(super) fn write_docs(code: &mut Code, context: &Context<'_>, text: &str) {
    if context.docs {
        code.docs(text.split('\n'));
    }
}

/// The path of the routes module, as text.
pub(super) fn routes_path_text(context: &Context<'_>) -> String {
    format!("{}::{MODULE}", context.root)
}

/// The API's `Status` type, or JSON when it has none.
pub(super) fn status_type_text(context: &Context<'_>) -> String {
    match operations::status_type(&context.api.types) {
        Some(id) => crate::emit::type_path(context, id),
        None => "::serde_json::Value".to_owned(),
    }
}

/// A description from the input, escaped like schema descriptions (`docs.rs`).
pub(super) fn escaped(text: &str) -> String {
    doc_lines(text).join("\n")
}

pub(crate) use endpoints::endpoint_docs;
pub(crate) use query::runtime_query_module;
pub(crate) use table::routes_module;
