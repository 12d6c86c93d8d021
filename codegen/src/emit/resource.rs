//! The runtime's resource traits for types with a fixed group-version-kind.

use super::text::{Code, str_literal};
use super::{Context, type_path};
use crate::model::{Scope, TypeId};

/// `TypeMeta` for every type with one GVK, `Resource` for served kinds, `ListResource`
/// for list kinds, as formatted text (`text.rs`).
pub(crate) fn impls(context: &Context<'_>, id: TypeId) -> String {
    let ty = context.api.get(id);
    let Some(gvk) = &ty.gvk else {
        return String::new();
    };
    let runtime = &context.runtime;
    let name = &ty.name;
    let mut code = Code::new();
    code.open_impl(&format!("impl {runtime}::TypeMeta"), name);
    // `GROUP` and `VERSION` are the trait's provided constants, split from
    // `API_VERSION` by the runtime: two constant bodies fewer per kind.
    for (constant, value) in [
        ("API_VERSION", gvk.api_version().as_str()),
        ("KIND", gvk.kind.as_str()),
    ] {
        code.line(&format!(
            "const {constant}: &'static str = {};",
            str_literal(value)
        ));
    }
    code.close("}");
    if let Some(resource) = context.api.resources.get(&id) {
        let scope = match resource.scope {
            Scope::Namespaced => "Namespaced",
            Scope::Cluster => "Cluster",
        };
        code.blank();
        code.open_impl(&format!("impl {runtime}::Resource"), name);
        code.line(&format!(
            "const PLURAL: &'static str = {};",
            str_literal(&resource.plural)
        ));
        code.line(&format!(
            "const SCOPE: {runtime}::Scope = {runtime}::Scope::{scope};"
        ));
        let subresources: Vec<String> = resource
            .subresources
            .iter()
            .map(|s| str_literal(s))
            .collect();
        let subresources: Vec<&str> = subresources.iter().map(String::as_str).collect();
        code.array(
            "const SUBRESOURCES: &'static [&'static str] = &[",
            &subresources,
            "];",
        );
        code.close("}");
    }
    if let Some(item) = context.api.lists.get(&id) {
        code.blank();
        code.open_impl(&format!("impl {runtime}::ListResource"), name);
        code.typed("type Item = ", &type_path(context, *item), ";");
        code.close("}");
    }
    code.finish()
}
