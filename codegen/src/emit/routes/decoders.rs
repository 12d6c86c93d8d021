//! Response decoders: a status and body → the operation's declared type, and the response
//! enums of operations whose successes differ in type.

use super::display::body_display;
use super::query::{QueryStruct, query_struct};
use super::requests::signature;
use super::{Local, escaped, local_type_text, routes_path_text, status_type_text, write_docs};
use crate::emit::Context;
use crate::emit::text::Code;
use crate::model::operations::{Operation, ResponseBody};

/// The response decoder of `op`: its docs, signature and body.
pub(super) fn decoder_function(
    code: &mut Code,
    context: &Context<'_>,
    op: &Operation,
    owner: &str,
    local: &Local,
    cfg: Option<&str>,
) {
    let runtime = &context.runtime;
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
    // One call of the runtime's `response::decode` (`any_success` when no success is
    // declared); a match only where the successes differ in type (a response enum).
    let (result, body): (String, Body) = if successes.is_empty() {
        (
            "()".to_owned(),
            Body::Call(format!("{runtime}::response::any_success(status, body)")),
        )
    } else {
        match &op.names.response {
            None => {
                let codes: Vec<String> = successes.iter().map(|r| r.status.to_string()).collect();
                let (ty, read) = body_reader(context, &successes[0].body, local);
                (ty, Body::Decode(codes, read))
            }
            Some(name) => {
                let arms = successes
                    .iter()
                    .map(|r| {
                        let (_, read) = body_reader(context, &r.body, local);
                        let call = if matches!(r.body, ResponseBody::Empty) {
                            format!("{read}(status, body).map(|()| {name}::{})", r.variant)
                        } else {
                            format!("{read}(status, body).map({name}::{})", r.variant)
                        };
                        (r.status.to_string(), call)
                    })
                    .collect();
                (name.clone(), Body::Match(arms))
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
    match body {
        Body::Call(call) => code.line(&call),
        Body::Decode(codes, read) => {
            // By value: `&[200]` would be promoted to a constant, a MIR body of its own
            // in every decoder (decisions page: constant arguments go by value).
            let codes = format!("[{}]", codes.join(", "));
            code.list(
                &format!("{runtime}::response::decode("),
                &["status", "body", &codes, &read],
                ")",
                "",
            );
        }
        Body::Match(arms) => {
            code.open("match status.as_u16() {");
            for (pattern, call) in &arms {
                code.line(&format!("{pattern} => {call},"));
            }
            code.line(&format!(
                "_ => Err({runtime}::response::error(status, body)),"
            ));
            code.close("}");
        }
    }
    code.close("}");
}

/// A decoder's body.
enum Body {
    /// One call.
    Call(String),
    /// `response::decode` with the success codes and the reader.
    Decode(Vec<String>, String),
    /// A match on the status, one arm per success (status, call).
    Match(Vec<(String, String)>),
}

/// The Rust type of a body and the runtime function reading it (`response::json`).
pub(super) fn body_reader(
    context: &Context<'_>,
    body: &ResponseBody,
    local: &Local,
) -> (String, String) {
    let runtime = &context.runtime;
    match body {
        ResponseBody::Empty => ("()".to_owned(), format!("{runtime}::response::empty")),
        ResponseBody::Text => ("String".to_owned(), format!("{runtime}::response::text")),
        ResponseBody::Json(shape) => (
            local_type_text(context, shape, local),
            format!("{runtime}::response::json"),
        ),
        ResponseBody::Watch(shape) => (
            format!(
                "Vec<{runtime}::WatchEvent<{}, {}>>",
                local_type_text(context, shape, local),
                status_type_text(context)
            ),
            format!("{runtime}::response::watch_events"),
        ),
        ResponseBody::StatusOr(shape) => (
            format!(
                "{runtime}::StatusOr<{}, {}>",
                local_type_text(context, shape, local),
                status_type_text(context)
            ),
            format!("{runtime}::response::status_or"),
        ),
    }
}

/// The query struct and response enum of `op`, as text, and their names.
pub(super) fn operation_types(
    context: &Context<'_>,
    op: &Operation,
    owner: &str,
    local: &Local,
) -> (String, Vec<String>) {
    let mut code = Code::new();
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
        if !names.is_empty() {
            code.blank();
        }
        query_struct(&mut code, context, &query, &doc);
        names.push(query.name.to_owned());
        if let Some(builder) = query.builder.filter(|_| context.builders) {
            names.push(builder.clone());
        }
    }
    if let Some(response) = &op.names.response {
        if !names.is_empty() {
            code.blank();
        }
        write_docs(
            &mut code,
            context,
            &format!(
                "The success responses of [`{owner}{}`], by status.",
                op.names.function
            ),
        );
        if let Some(cfg) = context.operation_cfg(op) {
            code.line(&cfg);
        }
        code.line("#[derive(Clone, Debug, PartialEq)]");
        code.open(&format!("pub enum {response} {{"));
        for r in op.responses.iter().filter(|r| r.is_success()) {
            write_docs(
                &mut code,
                context,
                &format!("{} {}.", r.status, escaped(&r.description)),
            );
            if matches!(r.body, ResponseBody::Empty) {
                code.line(&format!("{},", r.variant));
            } else {
                let (ty, _) = body_reader(context, &r.body, local);
                code.tuple_typed(&format!("{}(", r.variant), &ty, "),");
            }
        }
        code.close("}");
        names.push(response.clone());
    }
    (code.finish(), names)
}
