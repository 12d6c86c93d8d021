//! Query structs: the optional query parameters of an operation (or of the operations of
//! one kind, shared in the routes module), with their `QueryParams` impl and builder.

use super::{escaped, write_docs};
use crate::diagnostics::Origin;
use crate::emit::pretty::{Expr, assignment};
use crate::emit::text::{Code, str_literal};
use crate::emit::{Context, File, Parts, shape_text};
use crate::model::Shape;
use crate::model::operations::{ListWatch, Operation, QueryParam};

/// The builder of a query struct: one setter per parameter, taking `impl Into<…>` (lists
/// take any iterator of items), and `build`, like the builders of schema types.
fn query_builder(
    code: &mut Code,
    context: &Context<'_>,
    query: &str,
    builder: &str,
    params: &[&QueryParam],
) {
    code.blank();
    code.open(&format!("impl {query} {{"));
    write_docs(code, context, "A builder with no parameter set.");
    code.line("#[inline]");
    code.open(&format!("pub fn builder() -> {builder} {{"));
    code.line(&format!("{builder}::default()"));
    code.close("}");
    code.close("}");
    code.blank();
    write_docs(
        code,
        context,
        &format!("Builds [`{query}`]: each setter sets one parameter; unset ones are not sent."),
    );
    code.line("#[derive(Clone, Debug, Default)]");
    code.line("#[must_use]");
    code.line(&format!("pub struct {builder}({query});"));
    code.blank();
    code.open(&format!("impl {builder} {{"));
    for q in params {
        write_docs(
            code,
            context,
            &escaped(q.description.as_deref().unwrap_or_default()),
        );
        let (field, setter) = (&q.rust_name, &q.setter);
        match &q.shape {
            Shape::Vec(inner) => {
                let inner = shape_text(context, inner);
                code.signature(
                    &format!("pub fn {setter}("),
                    &[
                        ("mut self".to_owned(), String::new()),
                        (
                            "values".to_owned(),
                            format!("impl IntoIterator<Item = impl Into<{inner}>>"),
                        ),
                    ],
                    ") -> Self {",
                );
                code.deeper();
                let values = Expr::method(Expr::word("values"), "into_iter", vec![]);
                let values = Expr::method(values, "map", vec![Expr::word("Into::into")]);
                let values = Expr::method(values, "collect", vec![]);
                let value = Expr::call("Some", vec![values]);
                code.raw(&assignment(
                    &format!("self.0.{field}"),
                    &value,
                    code.indent_width(),
                ));
            }
            shape => {
                let ty = shape_text(context, shape);
                code.signature(
                    &format!("pub fn {setter}("),
                    &[
                        ("mut self".to_owned(), String::new()),
                        ("value".to_owned(), format!("impl Into<{ty}>")),
                    ],
                    ") -> Self {",
                );
                code.deeper();
                let value = Expr::method(Expr::word("value"), "into", vec![]);
                code.raw(&assignment(
                    &format!("self.0.{field}"),
                    &Expr::call("Some", vec![value]),
                    code.indent_width(),
                ));
            }
        }
        code.line("self");
        code.close("}");
        code.blank();
    }
    write_docs(code, context, "The parameters.");
    code.line("#[inline]");
    code.line("#[must_use]");
    code.open(&format!("pub fn build(self) -> {query} {{"));
    code.line("self.0");
    code.close("}");
    code.close("}");
    code.blank();
    code.open_impl(&format!("impl From<{builder}>"), query);
    code.open(&format!("fn from(builder: {builder}) -> Self {{"));
    code.line("builder.0");
    code.close("}");
    code.close("}");
    code.blank();
    code.open_impl(&format!("impl From<{query}>"), builder);
    code.open(&format!("fn from(query: {query}) -> Self {{"));
    code.line("Self(query)");
    code.close("}");
    code.close("}");
}

/// A struct of optional query parameters, with its `QueryParams` impl and builder.
pub(super) struct QueryStruct<'a> {
    pub(super) name: &'a str,
    pub(super) builder: Option<&'a String>,
    params: &'a [QueryParam],
    eq: bool,
}

impl<'a> QueryStruct<'a> {
    pub(super) fn of(op: &'a Operation) -> Option<Self> {
        Some(QueryStruct {
            name: op.names.query.as_deref()?,
            builder: op.names.query_builder.as_ref(),
            params: &op.query_params,
            eq: op.names.query_eq,
        })
    }

    pub(super) fn of_watch(watch: &'a ListWatch) -> Option<Self> {
        Some(QueryStruct {
            name: watch.query.as_deref()?,
            builder: watch.query_builder.as_ref(),
            params: &watch.query_params,
            eq: watch.query_eq,
        })
    }
}

/// The struct of optional query parameters, with its `QueryParams` impl and builder.
pub(super) fn query_struct(
    code: &mut Code,
    context: &Context<'_>,
    query: &QueryStruct<'_>,
    doc: &str,
) {
    query_struct_with_notes(code, context, query, doc, &[]);
}

/// [`query_struct`] with a paragraph added to the docs of some fields (by wire name).
fn query_struct_with_notes(
    code: &mut Code,
    context: &Context<'_>,
    query: &QueryStruct<'_>,
    doc: &str,
    notes: &[(String, String)],
) {
    let runtime = &context.runtime;
    let optional: Vec<&QueryParam> = query.params.iter().filter(|q| !q.required).collect();
    let name = query.name;
    write_docs(code, context, doc);
    code.line(if query.eq {
        "#[derive(Clone, Debug, Default, PartialEq, Eq)]"
    } else {
        "#[derive(Clone, Debug, Default, PartialEq)]"
    });
    if optional.is_empty() {
        code.line(&format!("pub struct {name} {{}}"));
    } else {
        code.open(&format!("pub struct {name} {{"));
        for q in &optional {
            let mut text = escaped(q.description.as_deref().unwrap_or_default());
            if let Some((_, note)) = notes.iter().find(|(name, _)| *name == q.name) {
                if !text.is_empty() {
                    text.push_str("\n\n");
                }
                text.push_str(note);
            }
            write_docs(code, context, &text);
            let ty = format!("Option<{}>", shape_text(context, &q.shape));
            code.typed(&format!("pub {}: ", q.rust_name), &ty, ",");
        }
        code.close("}");
    }
    code.blank();
    code.open_impl(&format!("impl {runtime}::request::QueryParams"), name);
    code.line("#[inline]");
    let target = if optional.is_empty() {
        "_target"
    } else {
        "target"
    };
    code.signature(
        "fn append_to(",
        &[
            ("&self".to_owned(), String::new()),
            (
                target.to_owned(),
                format!("&mut {runtime}::request::PathAndQuery"),
            ),
        ],
        ") {",
    );
    code.deeper();
    for q in &optional {
        let access = match q.shape {
            Shape::String | Shape::Vec(_) => "as_deref",
            _ => "as_ref",
        };
        code.method_statement(
            "target",
            "push_optional_query",
            &[
                &str_literal(&q.name),
                &format!("self.{}.{access}()", q.rust_name),
            ],
            ";",
        );
    }
    code.close("}");
    code.close("}");
    if let Some(builder) = query.builder.filter(|_| context.builders) {
        query_builder(code, context, name, builder, &optional);
    }
}

/// The query structs shared by the operations of one kind (`model::operations::SharedQuery`),
/// for the routes module.
pub(super) fn shared_query_structs(context: &Context<'_>) -> Option<File> {
    let api = context.api;
    let first = api.operations.first()?;
    if api.query_structs.is_empty() {
        return None;
    }
    let source = Origin {
        file: first.origin.file.clone(),
        pointer: "/paths".to_owned(),
    };
    let mut code = Code::new();
    let mut exports = Vec::new();
    // Whether every struct is one the runtime already compiled (a CRD crate's, whose
    // parameters are the conventions'): then the file re-exports them.
    let mut in_runtime = true;
    for shared in &api.query_structs {
        if !exports.is_empty() {
            code.blank();
        }
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
        query_struct_with_notes(&mut code, context, &query, &doc, &notes);
        in_runtime &= notes.is_empty() && in_runtime_query(context, &query, shared.kind);
        exports.push(shared.name.clone());
        if context.builders {
            exports.push(shared.builder.clone());
        }
    }
    let text = if in_runtime {
        // The same structs, compiled once in the runtime instead of in every CRD crate
        // (docs/src/design/decisions.md, "A CRD crate's query structs").
        // Filled as prettyplease fills a use list: as many names per line as fit.
        let mut text = format!("pub use {}::crd_query::{{\n", context.runtime);
        let mut line = String::new();
        for name in &exports {
            if !line.is_empty() && 4 + line.len() + 1 + name.len() + 1 > 100 {
                text.push_str(&format!("    {}\n", line.trim_end()));
                line.clear();
            }
            line.push_str(name);
            line.push_str(", ");
        }
        text.push_str(&format!(
            "    {},\n}};\n",
            line.trim_end().trim_end_matches(',')
        ));
        text
    } else {
        code.finish()
    };
    Some(File {
        parts: Parts(vec![text]),
        exports,
        source,
        export_cfgs: std::collections::BTreeMap::new(),
    })
}

/// The beginning of the runtime's `crd_query` module (`runtime/src/crd_query.rs`), before
/// the structs.
const RUNTIME_QUERY_HEADER: &str = "\
//! The optional query parameters of a custom resource's operations, as every CRD crate
//! kubeforge generates would write them: compiled once here, and re-exported by the
//! crates (their `routes` module) instead of compiled in each (docs/src/design/decisions.md,
//! \"A CRD crate's query structs\"). The generator re-exports them only when its own text
//! of every struct is the text below (`SOURCE`) token for token.
//!
//! Written by `cargo xtask regen` from the generator (`kubeforge::crd_query_module`), laid
//! out as the generator lays out a crate (so `runtime/src/lib.rs` keeps rustfmt off it);
//! `regen --check` and `codegen`'s cli tests fail when it is stale. Do not edit by hand.

/// This module's text, which the generator compares its own with.
#[doc(hidden)]
pub const SOURCE: &str = include_str!(\"crd_query.rs\");
";

/// The runtime's `crd_query` module, whole: every query struct of `context`'s API (a
/// CRD's, whose operations take the conventions' parameters) as [`in_runtime_query`]
/// compares it, with the runtime's docs and the runtime's own paths (`crate::`).
pub(crate) fn runtime_query_module(context: &Context<'_>) -> String {
    let mut text = String::from(RUNTIME_QUERY_HEADER);
    for shared in &context.api.query_structs {
        let query = QueryStruct {
            name: &shared.name,
            builder: Some(&shared.builder),
            params: &shared.params,
            eq: shared.eq,
        };
        text.push('\n');
        text.push_str(&runtime_query_text(context, &query, shared.kind));
    }
    text
}

/// One query struct as the runtime's `crd_query` module holds it.
fn runtime_query_text(context: &Context<'_>, query: &QueryStruct<'_>, kind: &str) -> String {
    let mut code = Code::new();
    query_struct_with_notes(&mut code, context, query, &runtime_query_doc(kind), &[]);
    code.finish()
        .replace(&format!("{}::", context.runtime), "crate::")
}

/// The doc of a query struct in the runtime's `crd_query` module.
pub(crate) fn runtime_query_doc(kind: &str) -> String {
    format!(
        "The optional query parameters of a custom resource's {kind} operations; only those set are sent. \
         The name says what the operations do, never which parameters they take, so a release that adds a parameter \
         adds a field here and renames nothing."
    )
}

/// Whether the runtime's `crd_query` module holds `query` as this crate would write it
/// (with the runtime's own doc): the same name, fields, docs, derives and builder, token
/// for token.
fn in_runtime_query(context: &Context<'_>, query: &QueryStruct<'_>, kind: &str) -> bool {
    if !context.docs || !context.builders {
        return false;
    }
    let text = runtime_query_text(context, query, kind);
    // Compared without whitespace and trailing commas: the runtime's copy (written by
    // `runtime_query_module`) is laid out with `crate::` where a crate has the runtime's path,
    // which can break a long line elsewhere, with or without a comma.
    let tokens = |text: &str| -> String {
        text.split_whitespace()
            .collect::<String>()
            .replace(",)", ")")
    };
    tokens(kubeforge_runtime::crd_query::SOURCE).contains(&tokens(&text))
}
