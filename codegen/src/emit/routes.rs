//! Operations → request functions, query structs, response decoders, the route table and the
//! endpoint tables in docs. Every decision (names, types, order) is the model's
//! (`model/operations/`: argument, variant and query struct names, the query
//! structs' `Eq`); this file only spells it.
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

use proc_macro2::TokenStream;
use quote::quote;

use super::docs::doc_lines;
use super::text::{Code, WIDTH, str_literal};
use super::{Context, File, Module, Parts, ident, shape_text, shape_type};
use crate::diagnostics::Origin;
use crate::model::operations::{
    self, BodyKind, ListWatch, Operation, PathPart, QueryParam, ResponseBody,
};
use crate::model::{Scope, Shape, TypeId};

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
        let (tokens, names) = operation_types(context, op, &owner, &in_file);
        parts.tokens(tokens);
        exports.extend(names);
    }
    (parts, exports)
}

/// How a file names its own resource type: `Self` inside the type's impl, the bare name
/// elsewhere in its file (a full path there is an unnecessary qualification).
struct Local {
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
fn local_type_text(context: &Context<'_>, shape: &Shape, local: &Local) -> String {
    match shape {
        Shape::Ref(id) if Some(*id) == local.id => local.name.clone(),
        Shape::Vec(inner) => format!("Vec<{}>", local_type_text(context, inner, local)),
        Shape::Map(inner) => format!(
            "{}<String, {}>",
            context.map_text,
            local_type_text(context, inner, local)
        ),
        other => shape_text(context, other),
    }
}

/// Doc lines the generator wrote itself (already markdown), when docs are on.
fn write_docs(code: &mut Code, context: &Context<'_>, text: &str) {
    if context.docs {
        code.docs(text.split('\n'));
    }
}

/// The request function and the response decoder of `op`, as text. `owner` is `Type::` for
/// associated functions, empty for free ones (used in doc links).
fn operation_functions(
    code: &mut Code,
    context: &Context<'_>,
    op: &Operation,
    owner: &str,
    local: &Local,
) {
    let runtime = &context.runtime_text;
    let routes = routes_path_text(context);

    // Arguments: path parameters, required query parameters, the body, optional queries.
    let mut params = path_arguments(op);
    let mut required_query = Vec::new();
    // The patch types the operation accepts, as a constant (a name no argument can have).
    let mut accepted: Vec<String> = Vec::new();
    for query in op.query_params.iter().filter(|q| q.required) {
        let arg = &query.rust_name;
        let ty = borrowed_type_text(context, &query.shape, local);
        params.push(format!("{arg}: {ty}"));
        required_query.push(format!(
            "target.push_query({}, {arg});",
            str_literal(&query.name)
        ));
    }
    let body = match op.body.as_ref() {
        None => "None".to_owned(),
        Some(body) => {
            let arg = op.names.body_arg.as_deref().unwrap_or("body");
            match body.kind {
                BodyKind::Patch => {
                    params.push(format!("{arg}: &{runtime}::Patch"));
                    accepted = body.content_types.iter().map(|c| str_literal(c)).collect();
                    format!("Some({arg}.to_body(ACCEPTED)?)")
                }
                BodyKind::Json => {
                    let ty = local_type_text(context, &body.shape, local);
                    if body.required {
                        params.push(format!("{arg}: &{ty}"));
                        format!("Some({runtime}::request::Body::json({arg})?)")
                    } else {
                        params.push(format!("{arg}: Option<&{ty}>"));
                        format!("{arg}.map({runtime}::request::Body::json).transpose()?")
                    }
                }
            }
        }
    };
    let query_arg = op.names.query.as_ref().map(|query| {
        let arg = op.names.query_arg.as_deref().unwrap_or("query");
        let ty = if op.names.query_shared {
            format!("{routes}::{query}")
        } else {
            query.clone()
        };
        params.push(format!("{arg}: &{ty}"));
        format!("target.push_params({arg});")
    });

    let (first, steps) = path_steps(op);
    let accept = match &op.accept {
        Some(accept) => format!("Some({})", str_literal(accept)),
        None => "None".to_owned(),
    };

    let mut failures = Vec::new();
    if !op.path_params.is_empty() {
        failures.push("a path parameter is empty, `.` or `..`");
    }
    match op.body.as_ref().map(|b| b.kind) {
        Some(BodyKind::Patch) => {
            failures.push("the operation does not accept this kind of patch");
        }
        Some(BodyKind::Json) => failures.push("the body cannot be serialized"),
        None => {}
    }
    let errors = if failures.is_empty() {
        "Never in practice: the request is always well-formed.".to_owned()
    } else {
        format!("When {}.", failures.join(", or "))
    };
    let cfg = context.operation_cfg_text(op);

    if context.docs {
        let summary = escaped(op.description.as_deref().unwrap_or_default());
        write_docs(
            code,
            context,
            &format!(
                "{summary}\n\n`{} {}`{}. Decode the response with [`{owner}{}`].\n\n# Errors\n\n{errors}",
                op.method.as_str(),
                op.path.text,
                if op.deprecated { " (deprecated)" } else { "" },
                op.names.decoder,
            ),
        );
    }
    let accepted: Vec<&str> = accepted.iter().map(String::as_str).collect();
    let steps: Vec<&str> = steps
        .iter()
        .chain(&required_query)
        .chain(&query_arg)
        .map(String::as_str)
        .collect();
    request_function(
        code,
        context,
        &RequestFunction {
            name: &op.names.function,
            cfg: cfg.as_deref(),
            params: &params,
            accepted: &accepted,
            first,
            steps: &steps,
            method: op.method.as_str(),
            accept: &accept,
            body: &body,
        },
    );
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

/// The server-side apply function beside a patch function (`OperationNames::apply`), when
/// the resource has an apply configuration: it sends the configuration as an apply patch
/// with the field manager, and its response is the patch's.
fn apply_function(
    code: &mut Code,
    context: &Context<'_>,
    op: &Operation,
    owner: &str,
    cfg: Option<&str>,
) {
    let (Some(names), Some(id)) = (
        op.names.apply.as_ref(),
        op.resource.as_ref().and_then(|r| r.id),
    ) else {
        return;
    };
    let Some(apply) = context.api.apply_of(id) else {
        return;
    };
    let runtime = &context.runtime_text;
    let routes = routes_path_text(context);
    let mut params = path_arguments(op);
    params.push(format!("{}: &{}", names.body_arg, apply.name));
    params.push(format!("{}: &str", names.field_manager_arg));
    let mut steps: Vec<String> = Vec::new();
    steps.push(format!(
        "target.push_query({}, {});",
        str_literal("fieldManager"),
        names.field_manager_arg
    ));
    if let (Some(query), Some(arg)) = (&op.names.query, &op.names.query_arg) {
        let ty = if op.names.query_shared {
            format!("{routes}::{query}")
        } else {
            query.clone()
        };
        params.push(format!("{arg}: &{ty}"));
        // The field manager is the argument's, whatever the query says.
        match op.query_params.iter().find(|q| q.name == "fieldManager") {
            Some(field) => steps.push(format!(
                "target.push_params(&{ty} {{ {}: None, ..{arg}.clone() }});",
                field.rust_name
            )),
            None => steps.push(format!("target.push_params({arg});")),
        }
    }
    let accepted: Vec<String> = op
        .body
        .iter()
        .flat_map(|b| &b.content_types)
        .map(|c| str_literal(c))
        .collect();
    let (first, path_steps) = path_steps(op);
    let accept = match &op.accept {
        Some(accept) => format!("Some({})", str_literal(accept)),
        None => "None".to_owned(),
    };
    if context.docs {
        let what = match op.resource.as_ref().and_then(|r| r.subresource.as_deref()) {
            Some(sub) => format!("the `{sub}` of a `{}`", context.api.get(id).name),
            None => format!("a `{}`", context.api.get(id).name),
        };
        write_docs(
            code,
            context,
            &format!(
                "Server-side apply of {what}: `{} {}` with the apply configuration as an \
                 `application/apply-patch+yaml` body, as the field manager `{}`; the query adds \
                 `force`, `dryRun` and the rest. Decode the response with [`{owner}{}`].\n\n\
                 # Errors\n\nWhen a path parameter is empty, `.` or `..`, or the configuration \
                 cannot be serialized.",
                op.method.as_str(),
                op.path.text,
                names.field_manager_arg,
                op.names.decoder,
            ),
        );
    }
    let cfg = match cfg {
        Some(cfg) => format!("{}\n{cfg}", super::apply::cfg()),
        None => super::apply::cfg(),
    };
    let body = format!(
        "Some({runtime}::Patch::apply({})?.to_body(ACCEPTED)?)",
        names.body_arg
    );
    let accepted: Vec<&str> = accepted.iter().map(String::as_str).collect();
    let steps: Vec<&str> = path_steps
        .iter()
        .map(String::as_str)
        .chain(steps.iter().map(String::as_str))
        .collect();
    request_function(
        code,
        context,
        &RequestFunction {
            name: &names.function,
            cfg: Some(&cfg),
            params: &params,
            accepted: &accepted,
            first,
            steps: &steps,
            method: op.method.as_str(),
            accept: &accept,
            body: &body,
        },
    );
    code.blank();
}

/// A function's signature up to its opening brace: `head(params) -> result {`, with the
/// parameters one per line when the line would pass the margin, and the result's generic
/// arguments too when its own line would (`Result<`, `A,`, `B,`, `> {`).
fn signature(code: &mut Code, head: &str, params: &[&str], result: &str, arguments: &[&str]) {
    let whole = format!("{result}{}>", arguments.join(", "));
    if code.indent_width() + ") -> ".len() + whole.len() + 2 <= WIDTH || arguments.is_empty() {
        code.list(head, params, ")", &format!(" -> {whole} {{"));
    } else {
        code.list(head, params, ")", &format!(" -> {result}"));
        code.deeper();
        for argument in arguments {
            code.line(&format!("{argument},"));
        }
        code.close("> {");
    }
}

/// What a request function is made of (its docs are written before it).
struct RequestFunction<'a> {
    name: &'a str,
    cfg: Option<&'a str>,
    params: &'a [String],
    /// The patch types accepted, as string literals (a local `ACCEPTED` constant).
    accepted: &'a [&'a str],
    /// The path's first literal part, then the statements completing the target.
    first: &'a str,
    steps: &'a [&'a str],
    method: &'a str,
    accept: &'a str,
    body: &'a str,
}

/// A request function: the one spelling both an operation's and its list's watch use.
fn request_function(code: &mut Code, context: &Context<'_>, f: &RequestFunction<'_>) {
    let runtime = &context.runtime_text;
    if let Some(cfg) = f.cfg {
        code.lines(cfg);
    }
    code.line("#[inline]");
    let params: Vec<&str> = f.params.iter().map(String::as_str).collect();
    let request = format!("{runtime}::http::Request<Vec<u8>>");
    let error = format!("{runtime}::RequestError");
    signature(
        code,
        &format!("pub fn {}(", f.name),
        &params,
        "Result<",
        &[&request, &error],
    );
    code.deeper();
    if !f.accepted.is_empty() {
        code.list("const ACCEPTED: &[&str] = &[", f.accepted, "]", ";");
    }
    let binding = if f.steps.is_empty() {
        "let target"
    } else {
        "let mut target"
    };
    code.list(
        &format!("{binding} = {runtime}::request::PathAndQuery::new("),
        &[&str_literal(f.first)],
        ")",
        ";",
    );
    for step in f.steps {
        code.line(step);
    }
    let method = format!("{runtime}::http::Method::{}", f.method);
    code.list(
        &format!("{runtime}::request::build("),
        &[&method, "target", f.accept, f.body],
        ")",
        "",
    );
    code.close("}");
}

/// The path parameters' arguments.
fn path_arguments(op: &Operation) -> Vec<String> {
    op.path_params
        .iter()
        .map(|param| format!("{}: &str", param.rust_name))
        .collect()
}

/// The path's first literal part, and the statements pushing the rest: literals and
/// encoded segments.
fn path_steps(op: &Operation) -> (&str, Vec<String>) {
    let (first, rest) = match op.path.parts.split_first() {
        Some((PathPart::Literal(text), rest)) => (text.as_str(), rest),
        _ => ("", op.path.parts.as_slice()),
    };
    let mut steps = Vec::new();
    for part in rest {
        match part {
            PathPart::Literal(text) => {
                steps.push(format!("target.push_literal({});", str_literal(text)));
            }
            PathPart::Param(name) => {
                let arg = op
                    .path_params
                    .iter()
                    .find(|p| &p.name == name)
                    .map_or(name.as_str(), |p| p.rust_name.as_str());
                steps.push(format!(
                    "target.push_segment({}, {arg})?;",
                    str_literal(name)
                ));
            }
        }
    }
    (first, steps)
}

/// The watch on a list's path: the request function (`?watch=true` and the watch
/// parameters) and the function making its incremental decoder.
fn watch_functions(
    code: &mut Code,
    context: &Context<'_>,
    op: &Operation,
    watch: &ListWatch,
    owner: &str,
    local: &Local,
    cfg: Option<&str>,
) {
    let runtime = &context.runtime_text;
    let routes = routes_path_text(context);
    let mut params = path_arguments(op);
    let query_arg = watch.query.as_ref().map(|query| {
        let arg = &watch.query_arg;
        let ty = if watch.query_shared {
            format!("{routes}::{query}")
        } else {
            query.clone()
        };
        params.push(format!("{arg}: &{ty}"));
        format!("target.push_params({arg});")
    });
    let (first, steps) = path_steps(op);
    let object = local_type_text(context, &watch.object, local);
    let status = status_type_text(context);
    let errors = if op.path_params.is_empty() {
        "Never in practice: the request is always well-formed."
    } else {
        "When a path parameter is empty, `.` or `..`."
    };
    write_docs(
        code,
        context,
        &format!(
            "Watches what [`{owner}{}`] lists: `GET {}?watch=true`, with the watch parameters that are set. \
             The response is a stream of events; decode it as it arrives with [`{owner}{}`].\n\n\
             This is how Kubernetes clients watch a collection; the `/watch/` paths are deprecated. \
             See <https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes>.\n\n# Errors\n\n{errors}",
            op.names.function, op.path.text, watch.decoder,
        ),
    );
    // The watch takes and returns what its list does: gated by the same features.
    let steps: Vec<&str> = steps
        .iter()
        .map(String::as_str)
        .chain(["target.push_query(\"watch\", &true);"])
        .chain(query_arg.as_deref())
        .collect();
    request_function(
        code,
        context,
        &RequestFunction {
            name: &watch.function,
            cfg,
            params: &params,
            accepted: &[],
            first,
            steps: &steps,
            method: "GET",
            accept: "Some(\"application/json\")",
            body: "None",
        },
    );
    code.blank();

    write_docs(
        code,
        context,
        &format!(
            "A decoder for the response to [`{owner}{}`], made with its status: feed it the body's chunks as they \
             arrive and it returns the events they complete, each an event or the error decoding it (an event may span chunks). `ERROR` events carry a \
             `Status` (410 `Expired` when the resource version is too old: list again), and `BOOKMARK` events a \
             resource version (`Bookmark::is_initial_events_end` marks the end of the initial events asked for \
             with `sendInitialEvents`). For an error status, `finish` returns the error the body holds.",
            watch.function,
        ),
    );
    if let Some(cfg) = cfg {
        code.line(cfg);
    }
    code.line("#[inline]");
    code.line("#[must_use]");
    code.list(
        &format!("pub fn {}(", watch.decoder),
        &[&format!("status: {runtime}::http::StatusCode")],
        ")",
        &format!(" -> {runtime}::WatchDecoder<{object}, {status}> {{"),
    );
    code.deeper();
    code.line(&format!("{runtime}::WatchDecoder::new(status)"));
    code.close("}");
}

/// The response decoder of `op`: its docs, signature and body.
fn decoder_function(
    code: &mut Code,
    context: &Context<'_>,
    op: &Operation,
    owner: &str,
    local: &Local,
    cfg: Option<&str>,
) {
    let runtime = &context.runtime_text;
    let routes = routes_path_text(context);
    let successes: Vec<_> = op.responses.iter().filter(|r| r.is_success()).collect();
    if context.docs {
        let described: Vec<String> = successes
            .iter()
            .map(|r| {
                format!(
                    "{} {} → {}",
                    r.status,
                    escaped(&r.description),
                    body_display(context, &r.body)
                )
            })
            .collect();
        write_docs(
            code,
            context,
            &format!(
                "Decodes the response to [`{owner}{}`]: {}.\n\n# Errors\n\n[`ResponseError::Status`]({runtime}::ResponseError::Status) with the server's `Status` for other statuses, or \
                 [`ResponseError::Decode`]({runtime}::ResponseError::Decode) when the body is not the declared type.",
                op.names.function,
                if described.is_empty() {
                    "any success status, with the body ignored".to_owned()
                } else {
                    described.join(", ")
                },
            ),
        );
    }
    let (result, arms): (String, Vec<(String, String)>) = if successes.is_empty() {
        (
            "()".to_owned(),
            vec![(
                "200..=299".to_owned(),
                format!("{runtime}::response::empty(status, body)"),
            )],
        )
    } else {
        match &op.names.response {
            None => {
                let codes = status_patterns(successes.iter().map(|r| r.status));
                let (ty, call) = body_decoder_text(context, &successes[0].body, local);
                (ty, vec![(codes, call)])
            }
            Some(name) => {
                let arms = successes
                    .iter()
                    .map(|r| {
                        let (_, call) = body_decoder_text(context, &r.body, local);
                        let call = if matches!(r.body, ResponseBody::Empty) {
                            format!("{call}.map(|()| {name}::{})", r.variant)
                        } else {
                            format!("{call}.map({name}::{})", r.variant)
                        };
                        (r.status.to_string(), call)
                    })
                    .collect();
                (name.clone(), arms)
            }
        }
    };
    if let Some(cfg) = cfg {
        code.line(cfg);
    }
    code.line("#[inline]");
    let error = format!("{routes}::ResponseError");
    signature(
        code,
        &format!("pub fn {}(", op.names.decoder),
        &[
            &format!("status: {runtime}::http::StatusCode"),
            "body: &[u8]",
        ],
        "Result<",
        &[&result, &error],
    );
    code.deeper();
    code.open("match status.as_u16() {");
    for (pattern, call) in &arms {
        code.line(&format!("{pattern} => {call},"));
    }
    code.line(&format!(
        "_ => Err({runtime}::response::error(status, body)),"
    ));
    code.close("}");
    code.close("}");
}

/// A pattern matching the status codes: runs of three or more as ranges (`200..=202`).
fn status_patterns(codes: impl IntoIterator<Item = u16>) -> String {
    let mut runs: Vec<(u16, u16)> = Vec::new();
    for code in codes {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == code => *end = code,
            _ => runs.push((code, code)),
        }
    }
    let mut patterns = Vec::new();
    for (start, end) in runs {
        if end - start >= 2 {
            patterns.push(format!("{start}..={end}"));
        } else {
            patterns.extend((start..=end).map(|code| code.to_string()));
        }
    }
    patterns.join(" | ")
}

/// The path of the routes module, as text.
fn routes_path_text(context: &Context<'_>) -> String {
    format!("{}::{MODULE}", context.root_text)
}

/// The Rust type and the runtime call decoding a body.
fn body_decoder(
    context: &Context<'_>,
    body: &ResponseBody,
    local: &Local,
) -> (TokenStream, TokenStream) {
    let (ty, call) = body_decoder_text(context, body, local);
    (super::tokens_of(&ty), super::tokens_of(&call))
}

/// [`body_decoder`] as text.
fn body_decoder_text(
    context: &Context<'_>,
    body: &ResponseBody,
    local: &Local,
) -> (String, String) {
    let runtime = &context.runtime_text;
    match body {
        ResponseBody::Empty => (
            "()".to_owned(),
            format!("{runtime}::response::empty(status, body)"),
        ),
        ResponseBody::Text => (
            "String".to_owned(),
            format!("{runtime}::response::text(status, body)"),
        ),
        ResponseBody::Json(shape) => (
            local_type_text(context, shape, local),
            format!("{runtime}::response::json(status, body)"),
        ),
        ResponseBody::Watch(shape) => (
            format!(
                "Vec<{runtime}::WatchEvent<{}, {}>>",
                local_type_text(context, shape, local),
                status_type_text(context)
            ),
            format!("{runtime}::response::watch_events(status, body)"),
        ),
        ResponseBody::StatusOr(shape) => (
            format!(
                "{runtime}::StatusOr<{}, {}>",
                local_type_text(context, shape, local),
                status_type_text(context)
            ),
            format!("{runtime}::response::status_or(status, body)"),
        ),
    }
}

/// The API's `Status` type, or JSON when it has none.
fn status_type(context: &Context<'_>) -> TokenStream {
    super::tokens_of(&status_type_text(context))
}

/// [`status_type`] as text.
fn status_type_text(context: &Context<'_>) -> String {
    match operations::status_type(&context.api.types) {
        Some(id) => super::type_path_text(context, id),
        None => "::serde_json::Value".to_owned(),
    }
}

/// An argument type for a required query parameter.
fn borrowed_type_text(context: &Context<'_>, shape: &Shape, local: &Local) -> String {
    match shape {
        Shape::String => "&str".to_owned(),
        Shape::Vec(inner) => format!("&[{}]", local_type_text(context, inner, local)),
        other => local_type_text(context, other, local),
    }
}

/// The builder of a query struct: one setter per parameter, taking `impl Into<…>` (lists
/// take any iterator of items), and `build`, like the builders of schema types.
fn query_builder(
    context: &Context<'_>,
    query: &str,
    builder: &str,
    params: &[&crate::model::operations::QueryParam],
) -> TokenStream {
    let (query, builder) = (ident(query), ident(builder));
    let setters = params.iter().map(|q| {
        let doc = doc_text(&escaped(q.description.as_deref().unwrap_or_default()));
        let (field, setter) = (ident(&q.rust_name), ident(&q.setter));
        match &q.shape {
            Shape::Vec(inner) => {
                let inner = shape_type(context, inner.as_ref());
                quote! {
                    #doc
                    pub fn #setter(mut self, values: impl IntoIterator<Item = impl Into<#inner>>) -> Self {
                        self.0.#field = Some(values.into_iter().map(Into::into).collect());
                        self
                    }
                }
            }
            shape => {
                let ty = shape_type(context, shape);
                quote! {
                    #doc
                    pub fn #setter(mut self, value: impl Into<#ty>) -> Self {
                        self.0.#field = Some(value.into());
                        self
                    }
                }
            }
        }
    });
    let doc = doc_text(&format!(
        "Builds [`{query}`]: each setter sets one parameter; unset ones are not sent."
    ));
    quote! {
        impl #query {
            /// A builder with no parameter set.
            #[inline]
            pub fn builder() -> #builder {
                #builder::default()
            }
        }

        #doc
        #[derive(Clone, Debug, Default)]
        #[must_use]
        pub struct #builder(#query);

        impl #builder {
            #(#setters)*

            /// The parameters.
            #[inline]
            #[must_use]
            pub fn build(self) -> #query {
                self.0
            }
        }

        impl From<#builder> for #query {
            fn from(builder: #builder) -> Self {
                builder.0
            }
        }

        impl From<#query> for #builder {
            fn from(query: #query) -> Self {
                Self(query)
            }
        }
    }
}

/// The query struct and response enum of `op`, and their names.
fn operation_types(
    context: &Context<'_>,
    op: &Operation,
    owner: &str,
    local: &Local,
) -> (TokenStream, Vec<String>) {
    let mut tokens = TokenStream::new();
    let mut names = Vec::new();
    let own = [
        (
            QueryStruct::of(op).filter(|_| !op.names.query_shared),
            &op.names.function,
        ),
        op.watch
            .as_ref()
            .map_or((None, &op.names.function), |watch| {
                (
                    QueryStruct::of_watch(watch).filter(|_| !watch.query_shared),
                    &watch.function,
                )
            }),
    ];
    for (query, function) in own {
        let Some(query) = query else { continue };
        let doc = format!(
            "The optional query parameters of [`{owner}{function}`]; only those set are sent."
        );
        tokens.extend(query_struct(context, &query, &doc));
        names.push(query.name.to_owned());
        if let Some(builder) = query.builder.filter(|_| context.builders) {
            names.push(builder.clone());
        }
    }
    if let Some(response) = &op.names.response {
        let name = ident(response);
        let variants = op.responses.iter().filter(|r| r.is_success()).map(|r| {
            let variant = ident(&r.variant);
            let doc = doc_text(&format!("{} {}.", r.status, escaped(&r.description)));
            let (ty, _) = body_decoder(context, &r.body, local);
            if matches!(r.body, ResponseBody::Empty) {
                quote!(#doc #variant,)
            } else {
                quote!(#doc #variant(#ty),)
            }
        });
        let doc = doc_text(&format!(
            "The success responses of [`{owner}{}`], by status.",
            op.names.function
        ));
        let cfg = context.operation_cfg(op);
        tokens.extend(quote! {
            #doc
            #cfg
            #[derive(Clone, Debug, PartialEq)]
            pub enum #name {
                #(#variants)*
            }
        });
        names.push(response.clone());
    }
    (tokens, names)
}

/// A description from the input, escaped like schema descriptions (`docs.rs`).
fn escaped(text: &str) -> String {
    doc_lines(text).join("\n")
}

/// `#[doc]` attributes for generated prose, one per line, as written.
fn doc_text(text: &str) -> TokenStream {
    super::docs::raw_doc_attrs(text.split('\n'))
}

/// A response body type as text, for docs and the route table.
fn body_display(context: &Context<'_>, body: &ResponseBody) -> String {
    match body {
        ResponseBody::Empty => "empty".to_owned(),
        ResponseBody::Text => "`String` (text/plain)".to_owned(),
        ResponseBody::Json(shape) => format!("`{}`", shape_display(context, shape)),
        ResponseBody::Watch(shape) => {
            format!("`WatchEvent<{}>` stream", shape_display(context, shape))
        }
        ResponseBody::StatusOr(shape) => format!(
            "`Status` or `{}`, by the body's `kind`",
            shape_display(context, shape)
        ),
    }
}

/// A shape as a short Rust type: the type's module path below the root and its name.
pub(crate) fn shape_display(context: &Context<'_>, shape: &Shape) -> String {
    match shape {
        Shape::Ref(id) => {
            let ty = context.api.get(*id);
            if let Some(path) = ty.kind.extern_path() {
                return path.trim_start_matches("::").to_owned();
            }
            let mut path = ty.module.join("::");
            if !path.is_empty() {
                path.push_str("::");
            }
            path.push_str(&ty.name);
            path
        }
        Shape::Vec(inner) => format!("Vec<{}>", shape_display(context, inner)),
        Shape::Map(inner) => {
            let map = context.map.to_string();
            let map = map.rsplit("::").next().unwrap_or_default().trim();
            format!("{map}<String, {}>", shape_display(context, inner))
        }
        Shape::Json => "serde_json::Value".to_owned(),
        other => shape_type(context, other).to_string().replace(' ', ""),
    }
}

fn response_type_display(context: &Context<'_>, body: &ResponseBody) -> Option<String> {
    match body {
        ResponseBody::Empty => None,
        ResponseBody::Text => Some("String".to_owned()),
        ResponseBody::Json(shape) => Some(shape_display(context, shape)),
        ResponseBody::Watch(shape) => {
            Some(format!("WatchEvent<{}>", shape_display(context, shape)))
        }
        ResponseBody::StatusOr(shape) => {
            Some(format!("StatusOr<{}>", shape_display(context, shape)))
        }
    }
}

/// The endpoint table shown in a resource's docs, like the reference pages: method, path,
/// what it does, query parameters, and the Rust function: doc lines, already markdown.
pub(crate) fn endpoint_docs(context: &Context<'_>, id: TypeId) -> Vec<String> {
    let operations: Vec<&Operation> = context.api.operations_of(id).collect();
    if operations.is_empty() {
        return Vec::new();
    }
    let described = context
        .api
        .get(id)
        .description
        .as_deref()
        .is_some_and(|d| !d.trim().is_empty());
    let mut lines = vec![
        String::new(),
        "# Endpoints".to_owned(),
        String::new(),
        "| Method | Path | Description | Query parameters | Function |".to_owned(),
        "|---|---|---|---|---|".to_owned(),
    ];
    for op in operations {
        let description = doc_lines(op.description.as_deref().unwrap_or_default())
            .join(" ")
            .replace('|', "\\|");
        let query = op
            .query_params
            .iter()
            .map(|q| format!("`{}`", q.name))
            .collect::<Vec<_>>()
            .join(", ");
        // A function compiled out without some features gets no link, which would break.
        let function = match context
            .features
            .as_ref()
            .and_then(|f| f.operations.get(&op.id))
        {
            Some(needed) => format!(
                "`{}` (features {})",
                op.names.function,
                needed
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(" + ")
            ),
            None => format!("[`{0}`](Self::{0})", op.names.function),
        };
        lines.push(format!(
            "| `{}` | `{}` | {}{} | {} | {function} |",
            op.method.as_str(),
            op.path.text,
            description,
            if op.deprecated && !description.to_lowercase().contains("deprecated") {
                " (deprecated)"
            } else {
                ""
            },
            query,
        ));
        if let Some(watch) = &op.watch {
            let query = watch
                .query_params
                .iter()
                .map(|q| format!("`{}`", q.name))
                .collect::<Vec<_>>()
                .join(", ");
            lines.push(format!(
                "| `GET` | `{}?watch=true` | Watch what the list above lists: a stream of events. | {} | [`{}`](Self::{}) |",
                op.path.text, query, watch.function, watch.function,
            ));
        }
    }
    if !described {
        lines.remove(0);
    }
    lines
}

/// A struct of optional query parameters, with its `QueryParams` impl and builder.
struct QueryStruct<'a> {
    name: &'a str,
    builder: Option<&'a String>,
    params: &'a [QueryParam],
    eq: bool,
}

impl<'a> QueryStruct<'a> {
    fn of(op: &'a Operation) -> Option<Self> {
        Some(QueryStruct {
            name: op.names.query.as_deref()?,
            builder: op.names.query_builder.as_ref(),
            params: &op.query_params,
            eq: op.names.query_eq,
        })
    }

    fn of_watch(watch: &'a ListWatch) -> Option<Self> {
        Some(QueryStruct {
            name: watch.query.as_deref()?,
            builder: watch.query_builder.as_ref(),
            params: &watch.query_params,
            eq: watch.query_eq,
        })
    }
}

/// The struct of optional query parameters, with its `QueryParams` impl and builder.
fn query_struct(context: &Context<'_>, query: &QueryStruct<'_>, doc: &str) -> TokenStream {
    query_struct_with_notes(context, query, doc, &[])
}

/// [`query_struct`] with a paragraph added to the docs of some fields (by wire name).
fn query_struct_with_notes(
    context: &Context<'_>,
    query: &QueryStruct<'_>,
    doc: &str,
    notes: &[(String, String)],
) -> TokenStream {
    let runtime = &context.runtime;
    let (builder, eq) = (query.builder, query.eq);
    let optional: Vec<_> = query.params.iter().filter(|q| !q.required).collect();
    let query = query.name;
    let name = ident(query);
    let derives = if eq {
        quote!(Clone, Debug, Default, PartialEq, Eq)
    } else {
        quote!(Clone, Debug, Default, PartialEq)
    };
    let fields = optional.iter().map(|q| {
        let mut text = escaped(q.description.as_deref().unwrap_or_default());
        if let Some((_, note)) = notes.iter().find(|(name, _)| *name == q.name) {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(note);
        }
        let doc = doc_text(&text);
        let field = ident(&q.rust_name);
        let ty = shape_type(context, &q.shape);
        quote! {
            #doc
            pub #field: Option<#ty>,
        }
    });
    let pushes = optional.iter().map(|q| {
        let field = ident(&q.rust_name);
        let wire = &q.name;
        let access = match q.shape {
            Shape::String | Shape::Vec(_) => quote!(self.#field.as_deref()),
            _ => quote!(self.#field.as_ref()),
        };
        quote!(target.push_optional_query(#wire, #access);)
    });
    let doc = doc_text(doc);
    let mut tokens = quote! {
        #doc
        #[derive(#derives)]
        pub struct #name {
            #(#fields)*
        }

        impl #runtime::request::QueryParams for #name {
            #[inline]
            fn append_to(&self, target: &mut #runtime::request::PathAndQuery) {
                #(#pushes)*
            }
        }
    };
    if let Some(builder) = builder.filter(|_| context.builders) {
        tokens.extend(query_builder(context, query, builder, &optional));
    }
    tokens
}

/// The query structs shared by the operations of one kind (`model::operations::SharedQuery`),
/// for the routes module.
fn shared_query_structs(context: &Context<'_>) -> Option<File> {
    let api = context.api;
    let first = api.operations.first()?;
    if api.query_structs.is_empty() {
        return None;
    }
    let source = Origin {
        file: first.origin.file.clone(),
        pointer: "/paths".to_owned(),
    };
    let mut tokens = TokenStream::new();
    let mut exports = Vec::new();
    for shared in &api.query_structs {
        let uses = shared.operations.len();
        let example = shared.operations.first().map_or("", String::as_str);
        let which = if uses == 1 {
            format!("`{example}`")
        } else {
            format!("{uses} of them, such as `{example}`")
        };
        let doc = format!(
            "The optional query parameters of the API's {} operations ({which}); only those set are sent. \
             The name says what the operations do, never which parameters they take, so a release that adds a parameter \
             adds a field here and renames nothing.",
            shared.kind,
        );
        let notes: Vec<(String, String)> = shared
            .declared_by
            .iter()
            .map(|(param, declared)| {
                (
                    param.clone(),
                    format!(
                        "Declared by {declared} of the {uses} operations that take this struct; the others send it too when it is set, and a server that does not know it ignores it."
                    ),
                )
            })
            .collect();
        let query = QueryStruct {
            name: &shared.name,
            builder: Some(&shared.builder),
            params: &shared.params,
            eq: shared.eq,
        };
        tokens.extend(query_struct_with_notes(context, &query, &doc, &notes));
        exports.push(shared.name.clone());
        if context.builders {
            exports.push(shared.builder.clone());
        }
    }
    Some(File {
        parts: super::Parts(vec![super::Part::Tokens(tokens)]),
        exports,
        source,
        export_cfgs: std::collections::BTreeMap::new(),
    })
}

/// The crate-wide `routes` module: route enum and table, the error alias, free request
/// functions for operations on no resource, and the matcher.
pub(crate) fn routes_module(context: &Context<'_>) -> Option<Module> {
    let api = context.api;
    if api.operations.is_empty() {
        return None;
    }
    let runtime = &context.runtime;
    let source = api
        .operations
        .first()
        .map(|op| Origin {
            file: op.origin.file.clone(),
            pointer: "/paths".to_owned(),
        })
        .unwrap_or_else(|| Origin::root(std::path::Path::new("")));

    let variants: Vec<_> = api
        .operations
        .iter()
        .map(|op| ident(&op.names.variant))
        .collect();
    let variant_docs = api
        .operations
        .iter()
        .map(|op| doc_text(&format!("`{} {}`", op.method.as_str(), op.path.text)));
    let query_params = SharedQueryParams::new(api);
    let query_consts = query_params.constants(context);
    let status = status_type(context);
    let route_tokens = quote! {
        /// Every operation of the API, one variant per `operationId`. [`resolve`](super::resolve)
        /// finds one from a method and path; [`Route::info`] tells everything about it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(clippy::enum_variant_names)]
        pub enum Route {
            #(#variant_docs #variants,)*
        }

        impl Route {
            /// Every route, in table order.
            pub const ALL: &'static [Route] = &[#(Route::#variants),*];

            /// The route's entry in [`ROUTES`].
            #[must_use]
            pub fn info(self) -> &'static #runtime::RouteInfo {
                &ROUTES[self as usize]
            }
        }

    };
    // The table, the bulk of the file, as text.
    let mut table = Code::new();
    if context.docs {
        table.docs([
            "The route table: every operation of the API, with its method, path template,",
            "action, resource, parameters, body and responses. Indexed by [`Route`].",
        ]);
    }
    table.open(&format!(
        "pub static ROUTES: [{}::RouteInfo; {}] = [",
        context.runtime_text,
        api.operations.len()
    ));
    for op in &api.operations {
        route_info(&mut table, context, op);
    }
    table.close("];");
    let rest_tokens = quote! {
        #query_consts

        /// The error of every response decoder: a `Status` from the server, an undeclared
        /// status with a body that is not one, or a body that is not the declared type.
        pub type ResponseError = #runtime::ResponseError<#status>;
    };
    let mut module = Module::default();
    module.files.insert(
        "route".to_owned(),
        File {
            parts: super::Parts(vec![
                super::Part::Tokens(route_tokens),
                super::Part::Text(table.finish()),
                super::Part::Tokens(rest_tokens),
            ]),
            exports: vec![
                "ROUTES".to_owned(),
                "ResponseError".to_owned(),
                "Route".to_owned(),
            ],
            source: source.clone(),
            export_cfgs: std::collections::BTreeMap::new(),
        },
    );
    module.files.insert(
        "matcher".to_owned(),
        File {
            parts: super::Parts(vec![super::Part::Text(super::matcher::matcher(context))]),
            exports: vec!["resolve".to_owned()],
            source: source.clone(),
            export_cfgs: std::collections::BTreeMap::new(),
        },
    );

    if let Some(file) = shared_query_structs(context) {
        module.files.insert("query".to_owned(), file);
    }

    // Operations on no resource: free functions.
    let free: Vec<&Operation> = api
        .operations
        .iter()
        .filter(|op| op.resource.as_ref().and_then(|r| r.id).is_none())
        .collect();
    if !free.is_empty() {
        let mut parts = Parts::default();
        let mut exports = Vec::new();
        let mut export_cfgs = std::collections::BTreeMap::new();
        for op in free {
            let mut code = Code::new();
            operation_functions(&mut code, context, op, "", &Local::none());
            parts.text(code.finish());
            let (types, names) = operation_types(context, op, "", &Local::none());
            parts.tokens(types);
            exports.push(op.names.function.clone());
            exports.push(op.names.decoder.clone());
            exports.extend(names);
            if let Some(cfg) = context.operation_cfg(op) {
                let gated = [&op.names.function, &op.names.decoder];
                for name in gated.into_iter().chain(&op.names.response) {
                    export_cfgs.insert(name.clone(), cfg.clone());
                }
            }
        }
        module.files.insert(
            "operations".to_owned(),
            File {
                parts,
                exports,
                source,
                export_cfgs,
            },
        );
    }
    Some(module)
}

/// The distinct query parameters of the table, each spelled once as a constant in a private
/// `params` module (named by the model: `QueryParam::constant`): most operations share most
/// of theirs (`pretty`, `dryRun`, the list parameters), and spelling each with its
/// description in every entry would make the table ten times larger, to read, to generate
/// and to compile.
struct SharedQueryParams<'a> {
    /// Each distinct parameter by its constant's name.
    params: std::collections::BTreeMap<&'a str, &'a QueryParam>,
}

impl<'a> SharedQueryParams<'a> {
    fn new(api: &'a crate::model::ApiSet) -> Self {
        let params = api
            .operations
            .iter()
            .flat_map(|op| &op.query_params)
            .map(|q| (q.constant.as_str(), q))
            .collect();
        Self { params }
    }

    /// The path of the constant for `q`, as text.
    fn path(q: &QueryParam) -> String {
        format!("params::{}", q.constant)
    }

    /// The `query` module.
    fn constants(&self, context: &Context<'_>) -> TokenStream {
        if self.params.is_empty() {
            return TokenStream::new();
        }
        let runtime = &context.runtime;
        let constants = self.params.iter().map(|(constant, q)| {
            let constant = ident(constant);
            let (name, ty, required) = (&q.name, q.type_name(), q.required);
            let description = q.description.as_deref().unwrap_or_default();
            quote! {
                pub(super) const #constant: QueryParamInfo = QueryParamInfo {
                    name: #name,
                    ty: #ty,
                    description: #description,
                    required: #required,
                };
            }
        });
        quote! {
            /// The query parameters of the table, each spelled once.
            mod params {
                use #runtime::route::QueryParamInfo;

                #(#constants)*
            }
        }
    }
}

/// One `RouteInfo` literal of the route table, as text.
fn route_info(code: &mut Code, context: &Context<'_>, op: &Operation) {
    let runtime = &context.runtime_text;
    let quoted =
        |items: &[String]| -> Vec<String> { items.iter().map(|i| str_literal(i)).collect() };
    code.open(&format!("{runtime}::RouteInfo {{"));
    code.line(&format!("operation_id: {},", str_literal(&op.id)));
    code.line(&format!(
        "method: {runtime}::http::Method::{},",
        op.method.as_str()
    ));
    code.line(&format!("path: {},", str_literal(&op.path.text)));
    let action = match &op.action {
        operations::Action::Other(text) => format!("Other({})", str_literal(text)),
        other => other.variant().to_owned(),
    };
    code.line(&format!("action: {runtime}::Action::{action},"));
    match &op.resource {
        Some(r) => {
            code.open(&format!("resource: Some({runtime}::route::ResourceInfo {{"));
            code.line(&format!("group: {},", str_literal(&r.gvk.group)));
            code.line(&format!("version: {},", str_literal(&r.gvk.version)));
            code.line(&format!("kind: {},", str_literal(&r.gvk.kind)));
            code.line(&format!("plural: {},", str_literal(&r.plural)));
            match &r.subresource {
                Some(sub) => code.line(&format!("subresource: Some({}),", str_literal(sub))),
                None => code.line("subresource: None,"),
            }
            let scope = match r.scope {
                Scope::Namespaced => "Namespaced",
                Scope::Cluster => "Cluster",
            };
            code.line(&format!("scope: {runtime}::Scope::{scope},"));
            code.close("}),");
        }
        None => code.line("resource: None,"),
    }
    let path_params: Vec<String> = op.path_params.iter().map(|p| p.name.clone()).collect();
    let path_params = quoted(&path_params);
    let path_params: Vec<&str> = path_params.iter().map(String::as_str).collect();
    code.list("path_params: &[", &path_params, "]", ",");
    let query: Vec<String> = op
        .query_params
        .iter()
        .map(SharedQueryParams::path)
        .collect();
    let query: Vec<&str> = query.iter().map(String::as_str).collect();
    code.list("query: &[", &query, "]", ",");
    match &op.body {
        Some(body) => {
            let ty = match body.kind {
                BodyKind::Patch => "Patch".to_owned(),
                BodyKind::Json => shape_display(context, &body.shape),
            };
            code.open(&format!("body: Some({runtime}::route::BodyInfo {{"));
            code.line(&format!("ty: {},", str_literal(&ty)));
            let types = quoted(&body.content_types);
            let types: Vec<&str> = types.iter().map(String::as_str).collect();
            code.list("content_types: &[", &types, "]", ",");
            code.line(&format!("required: {},", body.required));
            code.close("}),");
        }
        None => code.line("body: None,"),
    }
    if op.responses.is_empty() {
        code.line("responses: &[],");
    } else {
        code.open("responses: &[");
        for r in &op.responses {
            code.open(&format!("{runtime}::route::ResponseInfo {{"));
            code.line(&format!("status: {},", r.status));
            code.line(&format!("description: {},", str_literal(&r.description)));
            match response_type_display(context, &r.body) {
                Some(ty) => code.line(&format!("ty: Some({}),", str_literal(&ty))),
                None => code.line("ty: None,"),
            }
            code.close("},");
        }
        code.close("],");
    }
    code.line(&format!("deprecated: {},", op.deprecated));
    code.line(&format!(
        "description: {},",
        str_literal(op.description.as_deref().unwrap_or_default())
    ));
    code.close("},");
}
