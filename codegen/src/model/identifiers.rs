//! The one check that every name the model made is a Rust identifier emit can write as it
//! is (`naming::is_identifier`: ASCII, not a keyword). The naming functions make them so by
//! construction (`ground/naming.rs`); this check, run once at the end of the model, turns
//! a bug there into an error naming the schema or operation instead of code that does not
//! compile. Emit checks nothing: it only spells.

use super::operations::QueryParam;
use super::{ApiSet, TypeKind};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Origin};
use crate::ground::naming::{GENERIC_BUILDER, is_identifier};

/// Every name of `api`: types (module, name, file, fields, variants), builders, apply
/// configurations, operations and query structs.
pub(super) fn check(api: &ApiSet) -> Result<(), Error> {
    let mut diagnostics = Diagnostics::default();
    let mut check = |origin: &Origin, what: &str, names: &mut dyn Iterator<Item = &String>| {
        for name in names {
            if !is_identifier(name) {
                diagnostics.push(Diagnostic::new(
                    ErrorKind::Output,
                    origin,
                    format!("internal error: the name {name:?} made for {what} is not a valid identifier"),
                ));
            }
        }
    };
    for ty in &api.types {
        let what = format!("`{}`", ty.schema_name);
        let inner: Vec<&String> = match &ty.kind {
            TypeKind::Struct(fields) => fields.iter().map(|f| &f.rust_name).collect(),
            TypeKind::Enum(variants) => variants.iter().map(|v| &v.rust_name).collect(),
            TypeKind::Union(variants) => variants.iter().map(|v| &v.rust_name).collect(),
            _ => Vec::new(),
        };
        check(
            &ty.origin,
            &what,
            &mut ty.module.iter().chain([&ty.name, &ty.file]).chain(inner),
        );
    }
    for (id, builder) in &api.builders {
        let ty = api.get(*id);
        check(
            &ty.origin,
            &format!("the builder of `{}`", ty.schema_name),
            &mut std::iter::once(&builder.name)
                .chain(builder.params.iter().map(|p| &p.name))
                .chain(builder.methods.iter().map(|m| &m.name))
                .chain(builder.metadata.iter().flat_map(|m| {
                    [&m.name.0, &m.name.1]
                        .into_iter()
                        .chain(m.namespace.iter().flat_map(|(a, s)| [a, s]))
                })),
        );
    }
    for (id, apply) in &api.apply {
        let ty = api.get(*id);
        check(
            &ty.origin,
            &format!("the apply configuration of `{}`", ty.schema_name),
            &mut std::iter::once(&apply.name)
                .chain(apply.params.iter().map(|p| &p.name))
                .chain(apply.methods.iter().map(|m| &m.name)),
        );
    }
    for op in &api.operations {
        let names = &op.names;
        check(
            &op.origin,
            &format!("the operation `{}`", op.id),
            &mut [&names.variant, &names.function, &names.decoder]
                .into_iter()
                .chain(&names.query)
                .chain(&names.query_builder)
                .chain(&names.response)
                .chain(&names.body_arg)
                .chain(&names.query_arg)
                .chain(
                    names
                        .apply
                        .iter()
                        .flat_map(|a| [&a.function, &a.body_arg, &a.field_manager_arg]),
                )
                .chain(op.path_params.iter().map(|p| &p.rust_name))
                .chain(op.query_params.iter().map(|q| &q.constant))
                .chain(query_names(&op.query_params))
                .chain(op.responses.iter().map(|r| &r.variant))
                .chain(op.watch.iter().flat_map(|w| {
                    [&w.function, &w.decoder, &w.query_arg]
                        .into_iter()
                        .chain(&w.query)
                        .chain(&w.query_builder)
                        .chain(query_names(&w.query_params))
                })),
        );
    }
    let paths = Origin::root(std::path::Path::new("<paths>"));
    for shared in &api.query_structs {
        let origin = api.operations.first().map_or(&paths, |op| &op.origin);
        check(
            origin,
            &format!("the query struct of the {} operations", shared.kind),
            &mut [&shared.name, &shared.builder]
                .into_iter()
                .chain(query_names(&shared.params)),
        );
    }
    // The generic builder is declared at the root, where `naming` keeps its name free.
    if let Some(ty) = api
        .types
        .iter()
        .find(|ty| ty.module.is_empty() && ty.name == GENERIC_BUILDER)
        .filter(|_| !api.builders.is_empty())
    {
        diagnostics.push(
            Diagnostic::new(
                ErrorKind::Output,
                &ty.origin,
                format!(
                    "internal error: expected the root name `{GENERIC_BUILDER}` to be free for the generic builder, but `{}` is generated there",
                    ty.schema_name
                ),
            ),
        );
    }
    diagnostics.finish(())
}

/// A query struct's field names, and the builder's setter of each optional one.
fn query_names(params: &[QueryParam]) -> impl Iterator<Item = &String> {
    params
        .iter()
        .flat_map(|q| std::iter::once(&q.rust_name).chain((!q.required).then_some(&q.setter)))
}

#[cfg(test)]
mod tests {
    use crate::model::TypeKind;

    /// A name that is no identifier is an error naming its schema; the model's own names
    /// pass.
    #[test]
    fn a_bad_name_is_an_error_naming_its_schema() {
        let document =
            br#"{"openapi": "3.0.0", "info": {"title": "t", "version": "v1"}, "paths": {},
          "components": {"schemas": {"com.example.v1.Thing": {"type": "object",
            "properties": {"type": {"type": "string"}, "class": {"type": "string"}}}}}}"#;
        let mut api = crate::Config::new()
            .input_bytes("a.json", document.to_vec())
            .api()
            .expect("it models");
        assert!(super::check(&api).is_ok());
        let thing = api
            .types
            .iter_mut()
            .find(|ty| ty.name == "Thing")
            .expect("Thing");
        let TypeKind::Struct(fields) = &mut thing.kind else {
            panic!("a struct");
        };
        fields[0].rust_name = "type".to_owned();
        let error = super::check(&api).expect_err("`type` is a keyword");
        assert!(
            error
                .to_string()
                .contains("\"type\" made for `com.example.v1.Thing`"),
            "{error}"
        );
    }
}
