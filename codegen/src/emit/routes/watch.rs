//! The watch on a list's path: its request function and its incremental decoder.

use super::requests::{
    RequestFunction, path_arguments, query_expression, query_type, request_function,
};
use super::{Local, local_type_text, status_type_text, write_docs};
use crate::emit::Context;
use crate::emit::text::Code;
use crate::model::operations::{ListWatch, Operation};

/// The watch on a list's path: the request function (`?watch=true` and the watch
/// parameters) and the function making its incremental decoder.
pub(super) fn watch_functions(
    code: &mut Code,
    context: &Context<'_>,
    op: &Operation,
    watch: &ListWatch,
    owner: &str,
    local: &Local,
    cfg: Option<&str>,
) {
    let runtime = &context.runtime;
    let mut params = path_arguments(op);
    let query_arg = watch.query.as_ref().map(|query| {
        let arg = &watch.query_arg;
        params.push(format!(
            "{arg}: &{}",
            query_type(context, query, watch.query_shared)
        ));
        arg.clone()
    });
    let query = query_expression(
        context,
        &["(\"watch\", &true)".to_owned()],
        query_arg.as_deref(),
    );
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
    request_function(
        code,
        context,
        &RequestFunction {
            name: &watch.function,
            cfg,
            params: &params,
            accepted: &[],
            op,
            query: &query,
            method: "GET",
            accept: "Some(\"application/json\")",
            body: "Ok(None)",
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
