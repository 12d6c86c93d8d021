//! The endpoint table in a resource's docs, like the reference pages.

use crate::emit::Context;
use crate::emit::docs::doc_lines;
use crate::model::TypeId;
use crate::model::operations::Operation;

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
