//! Request functions: an operation's arguments → `http::Request<Vec<u8>>` (and the
//! server-side apply function beside a patch).

use super::{Local, escaped, local_type_text, routes_path_text, write_docs};
use crate::emit::Context;
use crate::emit::text::{Code, WIDTH, str_literal};
use crate::model::Shape;
use crate::model::operations::{BodyKind, Operation, PathPart};

/// The request function of `op`, as text. `owner` is `Type::` for associated functions,
/// empty for free ones (used in doc links); `cfg` is the operation's feature gate.
pub(super) fn operation_request(
    code: &mut Code,
    context: &Context<'_>,
    op: &Operation,
    owner: &str,
    local: &Local,
    cfg: Option<&str>,
) {
    let runtime = &context.runtime;

    // Arguments: path parameters, required query parameters, the body, optional queries.
    let mut params = path_arguments(op);
    let mut pairs = Vec::new();
    // The patch types the operation accepts, as a constant (a name no argument can have).
    let mut accepted: Vec<String> = Vec::new();
    for query in op.query_params.iter().filter(|q| q.required) {
        let arg = &query.rust_name;
        let ty = borrowed_type_text(context, &query.shape, local);
        params.push(format!("{arg}: {ty}"));
        pairs.push(format!("({}, &{arg})", str_literal(&query.name)));
    }
    let body = match op.body.as_ref() {
        None => "Ok(None)".to_owned(),
        Some(body) => {
            let arg = op.names.body_arg.as_deref().unwrap_or("body");
            match body.kind {
                BodyKind::Patch => {
                    params.push(format!("{arg}: &{runtime}::Patch"));
                    accepted = body.content_types.iter().map(|c| str_literal(c)).collect();
                    format!("{arg}.to_body(ACCEPTED).map(Some)")
                }
                BodyKind::Json => {
                    let ty = local_type_text(context, &body.shape, local);
                    if body.required {
                        params.push(format!("{arg}: &{ty}"));
                        format!("{runtime}::request::Body::json({arg}).map(Some)")
                    } else {
                        params.push(format!("{arg}: Option<&{ty}>"));
                        format!("{arg}.map({runtime}::request::Body::json).transpose()")
                    }
                }
            }
        }
    };
    let query_arg = op.names.query.as_ref().map(|query| {
        let arg = op.names.query_arg.as_deref().unwrap_or("query");
        params.push(format!(
            "{arg}: &{}",
            query_type(context, query, op.names.query_shared)
        ));
        arg.to_owned()
    });
    let query = query_expression(context, &pairs, query_arg.as_deref());
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
    request_function(
        code,
        context,
        &RequestFunction {
            name: &op.names.function,
            cfg,
            params: &params,
            accepted: &accepted,
            op,
            query: &query,
            method: op.method.as_str(),
            accept: &accept,
            body: &body,
        },
    );
}

/// The server-side apply function beside a patch function (`OperationNames::apply`), when
/// the resource has an apply configuration: it sends the configuration as an apply patch
/// with the field manager, and its response is the patch's.
pub(super) fn apply_function(
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
    let runtime = &context.runtime;
    let mut params = path_arguments(op);
    params.push(format!("{}: &{}", names.body_arg, apply.name));
    params.push(format!("{}: &str", names.field_manager_arg));
    let pairs = [format!(
        "({}, &{})",
        str_literal("fieldManager"),
        names.field_manager_arg
    )];
    let mut rest = None;
    if let (Some(query), Some(arg)) = (&op.names.query, &op.names.query_arg) {
        let ty = query_type(context, query, op.names.query_shared);
        params.push(format!("{arg}: &{ty}"));
        // The field manager is the argument's, whatever the query says.
        rest = Some(
            match op.query_params.iter().find(|q| q.name == "fieldManager") {
                Some(field) => format!("&{ty} {{ {}: None, ..{arg}.clone() }}", field.rust_name),
                None => arg.clone(),
            },
        );
    }
    let query = query_expression(context, &pairs, rest.as_deref());
    let accepted: Vec<String> = op
        .body
        .iter()
        .flat_map(|b| &b.content_types)
        .map(|c| str_literal(c))
        .collect();
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
        Some(cfg) => format!("{}\n{cfg}", crate::emit::apply::cfg()),
        None => crate::emit::apply::cfg(),
    };
    let body = format!(
        "{runtime}::Patch::apply({}).and_then(|patch| patch.to_body(ACCEPTED)).map(Some)",
        names.body_arg
    );
    let accepted: Vec<&str> = accepted.iter().map(String::as_str).collect();
    request_function(
        code,
        context,
        &RequestFunction {
            name: &names.function,
            cfg: Some(&cfg),
            params: &params,
            accepted: &accepted,
            op,
            query: &query,
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
pub(super) fn signature(
    code: &mut Code,
    head: &str,
    params: &[&str],
    result: &str,
    arguments: &[&str],
) {
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
pub(super) struct RequestFunction<'a> {
    pub(super) name: &'a str,
    pub(super) cfg: Option<&'a str>,
    pub(super) params: &'a [String],
    /// The patch types accepted, as string literals (a local `ACCEPTED` constant).
    pub(super) accepted: &'a [&'a str],
    /// The operation: its path template and path parameters.
    pub(super) op: &'a Operation,
    /// The query, a `&dyn QueryParams` expression ([`query_expression`]).
    pub(super) query: &'a str,
    pub(super) method: &'a str,
    pub(super) accept: &'a str,
    /// The body, a `Result<Option<Body>, RequestError>` expression.
    pub(super) body: &'a str,
}

/// A request function: the one spelling both an operation's and its list's watch use. Its
/// body is one call of the runtime's `request::send`, which fills the path template, writes
/// the query and assembles the request: every request function is the same few lines.
pub(super) fn request_function(code: &mut Code, context: &Context<'_>, f: &RequestFunction<'_>) {
    let runtime = &context.runtime;
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
    let method = format!("{runtime}::http::Method::{}", f.method);
    let (template, values) = path_template(f.op);
    // The values by value, not borrowed: `&[]` (an operation without path parameters)
    // would be promoted to a constant, a MIR body of its own in every function.
    let values = format!("[{}]", values.join(", "));
    code.list(
        &format!("{runtime}::request::send("),
        &[
            &method,
            &str_literal(&template),
            &values,
            f.query,
            f.accept,
            f.body,
        ],
        ")",
        "",
    );
    code.close("}");
}

/// The type of a query struct: in `routes` when operations share it, beside the function
/// otherwise.
pub(super) fn query_type(context: &Context<'_>, query: &str, shared: bool) -> String {
    if shared {
        format!("{}::{query}", routes_path_text(context))
    } else {
        query.to_owned()
    }
}

/// The query argument of `request::send`: the query struct `query` (`&()` when there is
/// none), after the pairs every request sends (`("watch", &true)`), if any.
pub(super) fn query_expression(
    context: &Context<'_>,
    pairs: &[String],
    query: Option<&str>,
) -> String {
    let query = query.unwrap_or("&()");
    if pairs.is_empty() {
        query.to_owned()
    } else {
        format!(
            "&{}::request::With(&[{}], {query})",
            context.runtime,
            pairs.join(", ")
        )
    }
}

/// The path parameters' arguments.
pub(super) fn path_arguments(op: &Operation) -> Vec<String> {
    op.path_params
        .iter()
        .map(|param| format!("{}: &str", param.rust_name))
        .collect()
}

/// The path template (`/api/v1/namespaces/{namespace}/pods/{name}`) and the arguments that
/// fill its parameters, in order.
pub(super) fn path_template(op: &Operation) -> (String, Vec<&str>) {
    let mut template = String::new();
    let mut values = Vec::new();
    for part in &op.path.parts {
        match part {
            PathPart::Literal(text) => template.push_str(text),
            PathPart::Param(name) => {
                template.push('{');
                template.push_str(name);
                template.push('}');
                values.push(
                    op.path_params
                        .iter()
                        .find(|p| &p.name == name)
                        .map_or(name.as_str(), |p| p.rust_name.as_str()),
                );
            }
        }
    }
    (template, values)
}

/// An argument type for a required query parameter.
pub(super) fn borrowed_type_text(context: &Context<'_>, shape: &Shape, local: &Local) -> String {
    match shape {
        Shape::String => "&str".to_owned(),
        Shape::Vec(inner) => format!("&[{}]", local_type_text(context, inner, local)),
        other => local_type_text(context, other, local),
    }
}
