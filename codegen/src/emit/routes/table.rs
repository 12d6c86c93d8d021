//! The crate-wide `routes` module: the `Route` enum, the route table (`ROUTES`), the
//! shared query parameter constants, the `ResponseError` alias, the free functions of
//! operations on no resource, and the matcher.

use proc_macro2::TokenStream;
use quote::quote;

use super::decoders::operation_types;
use super::query::shared_query_structs;
use super::requests::operation_functions;
use super::{Local, doc_text, status_type};
use crate::diagnostics::Origin;
use crate::emit::text::{Code, str_literal};
use crate::emit::{Context, File, Module, Parts, ident, shape_type};
use crate::model::Scope;
use crate::model::Shape;
use crate::model::operations::{self, BodyKind, Operation, QueryParam, ResponseBody};

/// A response body type as text, for docs and the route table.
pub(super) fn body_display(context: &Context<'_>, body: &ResponseBody) -> String {
    match body {
        ResponseBody::Empty => "empty".to_owned(),
        ResponseBody::Text => "`String` (text/plain)".to_owned(),
        ResponseBody::Json(shape) => format!("`{}`", shape_display(context, shape)),
        ResponseBody::Watch(shape) => {
            format!("`WatchEvent<{}>` stream", shape_display(context, shape))
        }
        ResponseBody::StatusOr(shape) => format!(
            "`Status` or `{}`, by the body's `kind`",
            shape_display(context, shape)
        ),
    }
}

/// A shape as a short Rust type: the type's module path below the root and its name.
pub(crate) fn shape_display(context: &Context<'_>, shape: &Shape) -> String {
    match shape {
        Shape::Ref(id) => {
            let ty = context.api.get(*id);
            if let Some(path) = ty.kind.extern_path() {
                return path.trim_start_matches("::").to_owned();
            }
            let mut path = ty.module.join("::");
            if !path.is_empty() {
                path.push_str("::");
            }
            path.push_str(&ty.name);
            path
        }
        Shape::Vec(inner) => format!("Vec<{}>", shape_display(context, inner)),
        Shape::Map(inner) => {
            let map = context.map.to_string();
            let map = map.rsplit("::").next().unwrap_or_default().trim();
            format!("{map}<String, {}>", shape_display(context, inner))
        }
        Shape::Json => "serde_json::Value".to_owned(),
        other => shape_type(context, other).to_string().replace(' ', ""),
    }
}

pub(super) fn response_type_display(context: &Context<'_>, body: &ResponseBody) -> Option<String> {
    match body {
        ResponseBody::Empty => None,
        ResponseBody::Text => Some("String".to_owned()),
        ResponseBody::Json(shape) => Some(shape_display(context, shape)),
        ResponseBody::Watch(shape) => {
            Some(format!("WatchEvent<{}>", shape_display(context, shape)))
        }
        ResponseBody::StatusOr(shape) => {
            Some(format!("StatusOr<{}>", shape_display(context, shape)))
        }
    }
}

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

    let variants: Vec<_> = api
        .operations
        .iter()
        .map(|op| ident(&op.names.variant))
        .collect();
    let variant_docs = api
        .operations
        .iter()
        .map(|op| doc_text(&format!("`{} {}`", op.method.as_str(), op.path.text)));
    let query_params = SharedQueryParams::new(api);
    let query_consts = query_params.constants(context);
    let status = status_type(context);
    let route_tokens = quote! {
        /// Every operation of the API, one variant per `operationId`. [`resolve`](super::resolve)
        /// finds one from a method and path; [`Route::info`] tells everything about it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(clippy::enum_variant_names)]
        pub enum Route {
            #(#variant_docs #variants,)*
        }

        impl Route {
            /// Every route, in table order.
            pub const ALL: &'static [Route] = &[#(Route::#variants),*];

            /// The route's entry in [`ROUTES`].
            #[must_use]
            pub fn info(self) -> &'static #runtime::RouteInfo {
                &ROUTES[self as usize]
            }
        }

    };
    // The table, the bulk of the file, as text.
    let mut table = Code::new();
    if context.docs {
        table.docs([
            "The route table: every operation of the API, with its method, path template,",
            "action, resource, parameters, body and responses. Indexed by [`Route`].",
        ]);
    }
    table.open(&format!(
        "pub static ROUTES: [{}::RouteInfo; {}] = [",
        context.runtime_text,
        api.operations.len()
    ));
    for op in &api.operations {
        route_info(&mut table, context, op);
    }
    table.close("];");
    let rest_tokens = quote! {
        #query_consts

        /// The error of every response decoder: a `Status` from the server, an undeclared
        /// status with a body that is not one, or a body that is not the declared type.
        pub type ResponseError = #runtime::ResponseError<#status>;
    };
    let mut module = Module::default();
    module.files.insert(
        "route".to_owned(),
        File {
            parts: Parts(vec![
                crate::emit::Part::Tokens(route_tokens),
                crate::emit::Part::Text(table.finish()),
                crate::emit::Part::Tokens(rest_tokens),
            ]),
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
            parts: Parts(vec![crate::emit::Part::Text(
                crate::emit::matcher::matcher(context),
            )]),
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
            parts.tokens(types);
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

    /// The `query` module.
    fn constants(&self, context: &Context<'_>) -> TokenStream {
        if self.params.is_empty() {
            return TokenStream::new();
        }
        let runtime = &context.runtime;
        let constants = self.params.iter().map(|(constant, q)| {
            let constant = ident(constant);
            let (name, ty, required) = (&q.name, q.type_name(), q.required);
            let description = q.description.as_deref().unwrap_or_default();
            quote! {
                pub(super) const #constant: QueryParamInfo = QueryParamInfo {
                    name: #name,
                    ty: #ty,
                    description: #description,
                    required: #required,
                };
            }
        });
        quote! {
            /// The query parameters of the table, each spelled once.
            mod params {
                use #runtime::route::QueryParamInfo;

                #(#constants)*
            }
        }
    }
}

/// One `RouteInfo` literal of the route table, as text.
pub(super) fn route_info(code: &mut Code, context: &Context<'_>, op: &Operation) {
    let runtime = &context.runtime_text;
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
