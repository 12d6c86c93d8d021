//! The crate-wide `routes` module: the `Route` enum, the route table (`ROUTES`, a
//! `RouteTable` of data the runtime reads at first use), the `ResponseError` alias, the free
//! functions of operations on no resource, and the matcher.

use super::decoders::operation_types;
use super::display::{response_type_display, shape_display};
use super::query::shared_query_structs;
use super::{Local, operation_functions, status_type_text, write_docs};
use crate::diagnostics::Origin;
use crate::emit::text::{Code, str_literal};
use crate::emit::{Context, File, Module, Parts};
use crate::model::Scope;
use crate::model::operations::{BodyKind, Operation};
use kubeforge_runtime::route::{
    BodyData, QueryParamData, ResourceData, ResponseData, RouteData, TableWriter,
};

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
    // The table, the bulk of the file: data read at first use (see `route_table`).
    write_docs(
        &mut code,
        context,
        "The route table: every operation of the API, with its method, path template,\n\
         action, resource, parameters, body and responses. Indexed by [`Route`]; built from\n\
         its data the first time it is read.",
    );
    route_table(&mut code, context);
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

/// `pub static ROUTES`: a `RouteTable` of the operations' records, one a line, each
/// distinct query parameter, resource, body and response once (`kubeforge_runtime::route`'s
/// `TableWriter` writes them and documents the format). A `static` array of `RouteInfo`
/// literals cost the full Kubernetes crate's build 0.6 s to evaluate and borrow-check its
/// initializer; a string literal costs nothing, and the runtime reads it once per process.
pub(super) fn route_table(code: &mut Code, context: &Context<'_>) {
    let runtime = &context.runtime;
    let mut writer = TableWriter::new();
    for op in &context.api.operations {
        writer.route(&route_data(context, op).as_data());
    }
    let data = writer.finish();
    let table = format!("{runtime}::route::RouteTable");
    code.open(&format!("pub static ROUTES: {table} = {table}::new("));
    code.line("\"\\");
    for record in data.lines() {
        let literal = str_literal(&format!("{record}\n"));
        // A record per line: `\` at the end of a line skips the break and the indent.
        code.line(&format!("{}\\", &literal[1..literal.len() - 1]));
    }
    code.line("\",");
    code.close(");");
}

/// The texts of one entry, owned; [`OwnedRoute::as_data`] lends them to the writer.
struct OwnedRoute<'a> {
    op: &'a Operation,
    body_ty: Option<String>,
    content_types: Vec<&'a str>,
    response_tys: Vec<Option<String>>,
}

impl OwnedRoute<'_> {
    fn as_data(&self) -> RouteData<'_> {
        let op = self.op;
        let resource = op.resource.as_ref().map(|r| ResourceData {
            group: &r.gvk.group,
            version: &r.gvk.version,
            kind: &r.gvk.kind,
            plural: &r.plural,
            subresource: r.subresource.as_deref(),
            scope: match r.scope {
                Scope::Namespaced => kubeforge_runtime::Scope::Namespaced,
                Scope::Cluster => kubeforge_runtime::Scope::Cluster,
            },
        });
        let body = op
            .body
            .as_ref()
            .zip(self.body_ty.as_deref())
            .map(|(b, ty)| BodyData {
                ty,
                content_types: &self.content_types,
                required: b.required,
            });
        RouteData {
            operation_id: &op.id,
            method: op.method.as_str(),
            path: &op.path.text,
            action: op.action.as_str(),
            resource,
            path_params: op.path_params.iter().map(|p| p.name.as_str()).collect(),
            query: op
                .query_params
                .iter()
                .map(|q| QueryParamData {
                    name: &q.name,
                    ty: q.type_name(),
                    description: q.description.as_deref().unwrap_or_default(),
                    required: q.required,
                })
                .collect(),
            body,
            responses: op
                .responses
                .iter()
                .zip(&self.response_tys)
                .map(|(r, ty)| ResponseData {
                    status: r.status,
                    description: &r.description,
                    ty: ty.as_deref(),
                })
                .collect(),
            deprecated: op.deprecated,
            description: op.description.as_deref().unwrap_or_default(),
            slash_optional: op.slash_optional,
        }
    }
}

fn route_data<'a>(context: &Context<'_>, op: &'a Operation) -> OwnedRoute<'a> {
    OwnedRoute {
        op,
        body_ty: op.body.as_ref().map(|body| match body.kind {
            BodyKind::Patch => "Patch".to_owned(),
            BodyKind::Json => shape_display(context, &body.shape),
        }),
        content_types: op
            .body
            .iter()
            .flat_map(|b| &b.content_types)
            .map(String::as_str)
            .collect(),
        response_tys: op
            .responses
            .iter()
            .map(|r| response_type_display(context, &r.body))
            .collect(),
    }
}
