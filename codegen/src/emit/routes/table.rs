//! The crate-wide `routes` module: the `Route` enum, the route table (`ROUTES`), the
//! shared query parameter constants, the `ResponseError` alias, the free functions of
//! operations on no resource, and the matcher.

use super::decoders::operation_types;
use super::display::{response_type_display, shape_display};
use super::query::shared_query_structs;
use super::{Local, operation_functions, status_type_text, write_docs};
use crate::diagnostics::Origin;
use crate::emit::text::{Code, str_literal};
use crate::emit::{Context, File, Module, Parts};
use crate::model::Scope;
use crate::model::operations::{self, BodyKind, Operation, QueryParam};

/// The crate-wide `routes` module: route enum and table, the error alias, free request
/// functions for operations on no resource, and the matcher.
pub(crate) fn routes_module(context: &Context<'_>) -> Option<Module> {
    let api = context.api;
    if api.operations.is_empty() {
        return None;
    }
    let runtime = &context.runtime;
    let source = api
        .operations
        .first()
        .map(|op| Origin {
            file: op.origin.file.clone(),
            pointer: "/paths".to_owned(),
        })
        .unwrap_or_else(|| Origin::root(std::path::Path::new("")));

    let mut code = Code::new();
    write_docs(
        &mut code,
        context,
        "Every operation of the API, one variant per `operationId`. [`resolve`](super::resolve)\n\
         finds one from a method and path; [`Route::info`] tells everything about it.",
    );
    code.line("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]");
    code.line("#[allow(clippy::enum_variant_names)]");
    code.open("pub enum Route {");
    for op in &api.operations {
        write_docs(
            &mut code,
            context,
            &format!("`{} {}`", op.method.as_str(), op.path.text),
        );
        code.line(&format!("{},", op.names.variant));
    }
    code.close("}");
    code.blank();
    code.open("impl Route {");
    write_docs(&mut code, context, "Every route, in table order.");
    let all: Vec<String> = api
        .operations
        .iter()
        .map(|op| format!("Route::{}", op.names.variant))
        .collect();
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    code.array("pub const ALL: &'static [Route] = &[", &all, "];");
    code.blank();
    write_docs(&mut code, context, "The route's entry in [`ROUTES`].");
    code.line("#[must_use]");
    code.open(&format!(
        "pub fn info(self) -> &'static {runtime}::RouteInfo {{"
    ));
    code.line("&ROUTES[self as usize]");
    code.close("}");
    code.close("}");
    code.blank();
    // The table, the bulk of the file.
    write_docs(
        &mut code,
        context,
        "The route table: every operation of the API, with its method, path template,\n\
         action, resource, parameters, body and responses. Indexed by [`Route`].",
    );
    code.open(&format!(
        "pub static ROUTES: [{runtime}::RouteInfo; {}] = [",
        api.operations.len()
    ));
    for op in &api.operations {
        route_info(&mut code, context, op);
    }
    code.close("];");
    SharedQueryParams::new(api).constants(&mut code, context);
    code.blank();
    write_docs(
        &mut code,
        context,
        "The error of every response decoder: a `Status` from the server, an undeclared\n\
         status with a body that is not one, or a body that is not the declared type.",
    );
    code.typed(
        "pub type ResponseError = ",
        &format!("{runtime}::ResponseError<{}>", status_type_text(context)),
        ";",
    );
    crate::emit::releases::route_releases(&mut code, context);
    let mut module = Module::default();
    module.files.insert(
        "route".to_owned(),
        File {
            parts: Parts(vec![code.finish()]),
            exports: vec![
                "ROUTES".to_owned(),
                "ResponseError".to_owned(),
                "Route".to_owned(),
            ],
            source: source.clone(),
            export_cfgs: std::collections::BTreeMap::new(),
        },
    );
    module.files.insert(
        "matcher".to_owned(),
        File {
            parts: Parts(vec![crate::emit::matcher::matcher(context)]),
            exports: vec!["resolve".to_owned()],
            source: source.clone(),
            export_cfgs: std::collections::BTreeMap::new(),
        },
    );

    if let Some(file) = shared_query_structs(context) {
        module.files.insert("query".to_owned(), file);
    }

    // Operations on no resource: free functions.
    let free: Vec<&Operation> = api
        .operations
        .iter()
        .filter(|op| op.resource.as_ref().and_then(|r| r.id).is_none())
        .collect();
    if !free.is_empty() {
        let mut parts = Parts::default();
        let mut exports = Vec::new();
        let mut export_cfgs = std::collections::BTreeMap::new();
        for op in free {
            let mut code = Code::new();
            operation_functions(&mut code, context, op, "", &Local::none());
            parts.text(code.finish());
            let (types, names) = operation_types(context, op, "", &Local::none());
            parts.text(types);
            exports.push(op.names.function.clone());
            exports.push(op.names.decoder.clone());
            exports.extend(names);
            if let Some(cfg) = context.operation_cfg(op) {
                let gated = [&op.names.function, &op.names.decoder];
                for name in gated.into_iter().chain(&op.names.response) {
                    export_cfgs.insert(name.clone(), cfg.clone());
                }
            }
        }
        module.files.insert(
            "operations".to_owned(),
            File {
                parts,
                exports,
                source,
                export_cfgs,
            },
        );
    }
    Some(module)
}

/// The distinct query parameters of the table, each spelled once as a constant in a private
/// `params` module (named by the model: `QueryParam::constant`): most operations share most
/// of theirs (`pretty`, `dryRun`, the list parameters), and spelling each with its
/// description in every entry would make the table ten times larger, to read, to generate
/// and to compile.
pub(super) struct SharedQueryParams<'a> {
    /// Each distinct parameter by its constant's name.
    params: std::collections::BTreeMap<&'a str, &'a QueryParam>,
}

impl<'a> SharedQueryParams<'a> {
    fn new(api: &'a crate::model::ApiSet) -> Self {
        let params = api
            .operations
            .iter()
            .flat_map(|op| &op.query_params)
            .map(|q| (q.constant.as_str(), q))
            .collect();
        Self { params }
    }

    /// The path of the constant for `q`, as text.
    fn path(q: &QueryParam) -> String {
        format!("params::{}", q.constant)
    }

    /// The private `params` module of the constants, after a blank line.
    fn constants(&self, code: &mut Code, context: &Context<'_>) {
        if self.params.is_empty() {
            return;
        }
        code.blank();
        write_docs(
            code,
            context,
            "The query parameters of the table, each spelled once.",
        );
        code.open("mod params {");
        code.line(&format!("use {}::route::QueryParamInfo;", context.runtime));
        for (constant, q) in &self.params {
            code.open(&format!(
                "pub(super) const {constant}: QueryParamInfo = QueryParamInfo {{"
            ));
            code.line(&format!("name: {},", str_literal(&q.name)));
            code.line(&format!("ty: {},", str_literal(q.type_name())));
            code.line(&format!(
                "description: {},",
                str_literal(q.description.as_deref().unwrap_or_default())
            ));
            code.line(&format!("required: {},", q.required));
            code.close("};");
        }
        code.close("}");
    }
}

/// One `RouteInfo` literal of the route table, as text.
pub(super) fn route_info(code: &mut Code, context: &Context<'_>, op: &Operation) {
    let runtime = &context.runtime;
    let quoted =
        |items: &[String]| -> Vec<String> { items.iter().map(|i| str_literal(i)).collect() };
    code.open(&format!("{runtime}::RouteInfo {{"));
    code.line(&format!("operation_id: {},", str_literal(&op.id)));
    code.line(&format!(
        "method: {runtime}::http::Method::{},",
        op.method.as_str()
    ));
    code.line(&format!("path: {},", str_literal(&op.path.text)));
    let action = match &op.action {
        operations::Action::Other(text) => format!("Other({})", str_literal(text)),
        other => other.variant().to_owned(),
    };
    code.line(&format!("action: {runtime}::Action::{action},"));
    match &op.resource {
        Some(r) => {
            code.open(&format!("resource: Some({runtime}::route::ResourceInfo {{"));
            code.line(&format!("group: {},", str_literal(&r.gvk.group)));
            code.line(&format!("version: {},", str_literal(&r.gvk.version)));
            code.line(&format!("kind: {},", str_literal(&r.gvk.kind)));
            code.line(&format!("plural: {},", str_literal(&r.plural)));
            match &r.subresource {
                Some(sub) => code.line(&format!("subresource: Some({}),", str_literal(sub))),
                None => code.line("subresource: None,"),
            }
            let scope = match r.scope {
                Scope::Namespaced => "Namespaced",
                Scope::Cluster => "Cluster",
            };
            code.line(&format!("scope: {runtime}::Scope::{scope},"));
            code.close("}),");
        }
        None => code.line("resource: None,"),
    }
    let path_params: Vec<String> = op.path_params.iter().map(|p| p.name.clone()).collect();
    let path_params = quoted(&path_params);
    let path_params: Vec<&str> = path_params.iter().map(String::as_str).collect();
    code.list("path_params: &[", &path_params, "]", ",");
    let query: Vec<String> = op
        .query_params
        .iter()
        .map(SharedQueryParams::path)
        .collect();
    let query: Vec<&str> = query.iter().map(String::as_str).collect();
    code.list("query: &[", &query, "]", ",");
    match &op.body {
        Some(body) => {
            let ty = match body.kind {
                BodyKind::Patch => "Patch".to_owned(),
                BodyKind::Json => shape_display(context, &body.shape),
            };
            code.open(&format!("body: Some({runtime}::route::BodyInfo {{"));
            code.line(&format!("ty: {},", str_literal(&ty)));
            let types = quoted(&body.content_types);
            let types: Vec<&str> = types.iter().map(String::as_str).collect();
            code.list("content_types: &[", &types, "]", ",");
            code.line(&format!("required: {},", body.required));
            code.close("}),");
        }
        None => code.line("body: None,"),
    }
    if op.responses.is_empty() {
        code.line("responses: &[],");
    } else {
        code.open("responses: &[");
        for r in &op.responses {
            code.open(&format!("{runtime}::route::ResponseInfo {{"));
            code.line(&format!("status: {},", r.status));
            code.line(&format!("description: {},", str_literal(&r.description)));
            match response_type_display(context, &r.body) {
                Some(ty) => code.line(&format!("ty: Some({}),", str_literal(&ty))),
                None => code.line("ty: None,"),
            }
            code.close("},");
        }
        code.close("],");
    }
    code.line(&format!("deprecated: {},", op.deprecated));
    code.line(&format!(
        "description: {},",
        str_literal(op.description.as_deref().unwrap_or_default())
    ));
    code.close("},");
}
