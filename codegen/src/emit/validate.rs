//! `Validate` for every generated struct, enum and union: one function returning the type's
//! schema node (`model::semantics`), embedded as JSON text and parsed once per process by the
//! runtime, which also evaluates it (constraints, formats, CEL rules), as the in-memory
//! server does with the same nodes. A nested type names its place in its parent's node
//! instead of repeating it. Written as text (`text.rs`).

use super::text::{Code, raw_str_literal, str_literal};
use super::{Context, type_path};
use crate::model::TypeId;
use crate::model::semantics::Embedded;

/// `impl Validate for T`, or nothing for a type without semantics.
pub(crate) fn impl_text(context: &Context<'_>, id: TypeId) -> String {
    let Some(embedded) = context.api.embedded_schema(id) else {
        return String::new();
    };
    let runtime = &context.runtime;
    let schema = format!("{runtime}::schema::StaticSchema");
    let name = &context.api.get(id).name;
    let mut code = Code::new();
    code.open_impl(&format!("impl {runtime}::schema::Validate"), name);
    code.open(&format!("fn schema() -> &'static {schema} {{"));
    match embedded {
        Embedded::Node { node, refs } => {
            // The node is the model's, serialized by the runtime's own form.
            let json = serde_json::to_string(&node).unwrap_or_default();
            let refs: Vec<String> = refs
                .iter()
                .map(|target| schema_fn(context, *target))
                .collect();
            let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
            code.open(&format!("static SCHEMA: {schema} = {schema}::new("));
            code.line(&format!("{},", raw_str_literal(&json)));
            code.array("&[", &refs, "],");
            code.close(");");
        }
        Embedded::Within { root, path } => {
            let path: Vec<String> = path.iter().map(|p| str_literal(p)).collect();
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            code.open(&format!("static SCHEMA: {schema} = {schema}::within("));
            code.line(&format!("{},", schema_fn(context, root)));
            code.array("&[", &path, "],");
            code.close(");");
        }
    }
    code.line("&SCHEMA");
    code.close("}");
    code.close("}");
    code.finish()
}

/// The function that gives the schema of the type `id`.
fn schema_fn(context: &Context<'_>, id: TypeId) -> String {
    format!(
        "<{} as {}::schema::Validate>::schema",
        type_path(context, id),
        context.runtime
    )
}
