//! What the generated crate knows of the releases merged into it at run time
//! (`Config::release_input`): every resource's `RELEASES`, and `Route::releases` for every
//! operation, from the one table the model holds (`model/releases.rs`).

use super::Context;
use super::text::{Code, str_literal};
use crate::model::TypeId;

/// `impl Pod { pub const RELEASES: &'static [&'static str] = &["1.32", …]; }` for the
/// resource `id`, when the inputs are several releases.
pub(crate) fn resource_releases(context: &Context<'_>, id: TypeId) -> String {
    let api = context.api;
    let (Some(releases), Some(mask)) = (&api.releases, api.type_releases(id)) else {
        return String::new();
    };
    if releases.names.len() < 2 || !api.resources.contains_key(&id) {
        return String::new();
    }
    let names: Vec<String> = releases
        .names_of(mask)
        .into_iter()
        .map(str_literal)
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut code = Code::new();
    code.open(&format!("impl {} {{", api.get(id).name));
    if context.docs {
        code.docs(["The Kubernetes releases that serve this resource, oldest first."]);
    }
    code.array(
        "pub const RELEASES: &'static [&'static str] = &[",
        &names,
        "];",
    );
    code.close("}");
    code.finish()
}

/// `impl Route { pub const RELEASES; pub fn releases(self); pub fn served_in(self, …) }`
/// in the routes module, when the inputs are several releases: the releases merged, and
/// for each route those that serve it (a bit set per route, in table order).
pub(crate) fn route_releases(code: &mut Code, context: &Context<'_>) {
    let api = context.api;
    let Some(releases) = &api.releases else {
        return;
    };
    if releases.names.len() < 2 {
        return;
    }
    let names: Vec<String> = releases.names.iter().map(|n| str_literal(n)).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let masks: Vec<String> = api
        .operations
        .iter()
        .map(|op| format!("{:#x}", api.operation_releases(op).unwrap_or_default().0))
        .collect();
    let masks: Vec<&str> = masks.iter().map(String::as_str).collect();
    code.blank();
    code.open("impl Route {");
    if context.docs {
        code.docs(["The Kubernetes releases merged into this crate, oldest first."]);
    }
    code.array(
        "pub const RELEASES: &'static [&'static str] = &[",
        &names,
        "];",
    );
    code.blank();
    if context.docs {
        code.docs([
            "The releases that serve this route, oldest first (bit `i` of its entry is",
            "[`Route::RELEASES`]`[i]`).",
        ]);
    }
    code.open("pub fn releases(self) -> impl Iterator<Item = &'static str> {");
    code.array(
        &format!("const SERVED: [u64; {}] = [", masks.len()),
        &masks,
        "];",
    );
    code.line("let served = SERVED[self as usize];");
    code.line("let serves = move |i: &usize| (served >> i) & 1 == 1;");
    code.line("(0..Self::RELEASES.len()).filter(serves).map(|i| Self::RELEASES[i])");
    code.close("}");
    code.blank();
    if context.docs {
        code.docs(["Whether the release `release` (`\"1.33\"`) serves this route."]);
    }
    code.line("#[must_use]");
    code.open("pub fn served_in(self, release: &str) -> bool {");
    code.line("self.releases().any(|name| name == release)");
    code.close("}");
    code.close("}");
}
