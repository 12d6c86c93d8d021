//! The route matcher: `resolve`, one call of the runtime's matcher over the route table,
//! `ROUTES.resolve(method, path, Route::ALL)`. The runtime builds a trie of the table's path
//! templates at the first call (`kubeforge_runtime::route::RouteTable::resolve`); the table's
//! records say which routes are also served with their trailing slash toggled (the discovery
//! paths, `Operation::slash_optional`).
//!
//! It was a decision tree written out as code: for Kubernetes 1.36, 7,700 lines in 40
//! functions, which rustc type-checked, borrow-checked and kept as MIR in every clean build
//! of the crate (69 MiB of its peak memory). As data the same tree costs the build nothing;
//! the rules it follows, documented on `resolve`, are the runtime's, in one place.

use super::Context;
use super::text::Code;

/// The `resolve` function.
pub(crate) fn matcher(context: &Context<'_>) -> String {
    let runtime = &context.runtime;
    let mut code = Code::new();
    code.line(&format!("use {runtime}::Resolution;"));
    code.line(&format!("use {runtime}::http::Method;"));
    code.line("use super::{ROUTES, Route};");
    code.blank();
    if context.docs {
        code.docs([
            "Resolves a request's method and path to a route and its path parameters.",
            "",
            "`path` is the path without the query string, as `uri.path()` gives it. Matching",
            "is exact and case-sensitive; static segments beat parameters; a parameter is one",
            "non-empty segment, kept percent-encoded (an encoded `/` stays inside it; decode",
            "with `PathParams::decoded`). The discovery paths (`/api`, `/apis`, a group's, a",
            "group-version's) match with and without their trailing slash, as the API server",
            "serves them; elsewhere a trailing slash, an empty segment, a `.` or `..`",
            "parameter, or a `?` or `#` in the path never match. A known path with another",
            "method gives `MethodNotAllowed` with the methods it serves. Resolving allocates",
            "nothing (the matcher, a trie of [`ROUTES`]' path templates, is built at the first",
            "call).",
        ]);
    }
    code.line("#[must_use]");
    code.line("#[inline]");
    code.open("pub fn resolve<'p>(method: &Method, path: &'p str) -> Resolution<'p, Route> {");
    code.line("ROUTES.resolve(method, path, Route::ALL)");
    code.close("}");
    code.finish()
}
