//! `Validate` for every generated struct, enum and union: one function returning the type's
//! schema node (`model::semantics`), embedded as JSON text and parsed once per process by the
//! runtime, which also evaluates it (constraints, formats, CEL rules), as the in-memory
//! server does with the same nodes. A nested type names its place in its parent's node
//! instead of repeating it. Written as text (`text.rs`).

use super::text::{Code, str_literal};
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

/// A raw string literal of `text` (`r#"…"#`, with as many `#` as it needs), so that the
/// embedded JSON reads as JSON.
fn raw_str_literal(text: &str) -> String {
    let mut hashes = 1;
    while text.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let hashes = "#".repeat(hashes);
    format!("r{hashes}\"{text}\"{hashes}")
}

/// The function that gives the schema of the type `id`.
fn schema_fn(context: &Context<'_>, id: TypeId) -> String {
    format!(
        "<{} as {}::schema::Validate>::schema",
        type_path(context, id),
        context.runtime
    )
}

#[cfg(test)]
mod tests {
    use super::raw_str_literal;

    #[test]
    fn raw_literals_take_as_many_hashes_as_the_text_needs() {
        assert_eq!(raw_str_literal(r#"{"a":1}"#), r##"r#"{"a":1}"#"##);
        // A pattern holding `"#` (escaped in JSON as `\"#`) needs two.
        let json = r##"{"pattern":"\"#"}"##;
        let literal = raw_str_literal(json);
        assert!(literal.starts_with("r##\""), "{literal}");
        let parsed: syn::LitStr = syn::parse_str(&literal).expect("a string literal");
        assert_eq!(parsed.value(), json);
    }
}
