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
    let mut shared = SharedValues::default();
    for op in &api.operations {
        route_info(&mut code, context, op, &mut shared);
    }
    code.close("];");
    SharedQueryParams::new(api).constants(&mut code, context);
    shared.constants(&mut code, context);
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

/// The nested values of the table's entries (a resource, its path parameters, a list of
/// query parameters, a body, a list of responses), each distinct one spelled once as a constant in a private
/// `shared` module, which the entries name: most operations of a resource share its
/// resource, its responses and their query parameters (the list operations all take the
/// same ten), and spelling each in every entry made the table's one initializer the largest
/// body of the crate, for rustc to build, check and evaluate. A constant's name is its
/// kind and a number, in the order the table first uses it.
#[derive(Default)]
pub(super) struct SharedValues {
    /// Each distinct value, by its kind and its items' text, → its constant's name.
    names: std::collections::BTreeMap<(&'static str, Vec<String>), String>,
    /// The constants in the order of first use: name, type, items.
    constants: Vec<SharedValue>,
}

/// One constant of [`SharedValues`].
pub(super) struct SharedValue {
    name: String,
    /// `struct`: a struct literal of `ty` whose items are field lines; `list`: a slice
    /// `&[ty]` whose items are elements (each one or more lines).
    list: bool,
    ty: &'static str,
    items: Vec<String>,
}

impl SharedValues {
    /// The path of the shared constant of kind `kind` (a struct literal of `ty` with the
    /// field lines `items`, or a `&[ty]` of the elements `items` when `list`), added when
    /// new.
    fn get(
        &mut self,
        kind: &'static str,
        ty: &'static str,
        list: bool,
        items: Vec<String>,
    ) -> String {
        let key = (kind, items);
        if let Some(name) = self.names.get(&key) {
            return format!("shared::{name}");
        }
        let count = self
            .constants
            .iter()
            .filter(|c| c.name.starts_with(kind))
            .count();
        let name = format!("{kind}_{count}");
        self.constants.push(SharedValue {
            name: name.clone(),
            list,
            ty,
            items: key.1.clone(),
        });
        self.names.insert(key, name.clone());
        format!("shared::{name}")
    }

    /// The private `shared` module of the constants, after a blank line.
    fn constants(&self, code: &mut Code, context: &Context<'_>) {
        if self.constants.is_empty() {
            return;
        }
        code.blank();
        write_docs(
            code,
            context,
            "The values the table's entries share, each spelled once.",
        );
        code.open("mod shared {");
        // The runtime's types (not `&str`).
        let mut types: Vec<&str> = self
            .constants
            .iter()
            .map(|c| c.ty)
            .filter(|ty| !ty.starts_with('&'))
            .collect();
        types.sort_unstable();
        types.dedup();
        let runtime = &context.runtime;
        code.list(&format!("use {runtime}::route::{{"), &types, "}", ";");
        for value in &self.constants {
            let name = &value.name;
            let ty = value.ty;
            let (head, close) = if value.list {
                (format!("pub(super) const {name}: &[{ty}] = &["), "];")
            } else {
                (format!("pub(super) const {name}: {ty} = {ty} {{"), "};")
            };
            code.open(&head);
            for line in value.items.iter().flat_map(|item| item.lines()) {
                code.line(line);
            }
            code.close(close);
        }
        code.close("}");
    }
}

/// One `RouteInfo` literal of the route table, as text.
pub(super) fn route_info(
    code: &mut Code,
    context: &Context<'_>,
    op: &Operation,
    shared: &mut SharedValues,
) {
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
            let subresource = match &r.subresource {
                Some(sub) => format!("subresource: Some({}),", str_literal(sub)),
                None => "subresource: None,".to_owned(),
            };
            let scope = match r.scope {
                Scope::Namespaced => "Namespaced",
                Scope::Cluster => "Cluster",
            };
            let fields = vec![
                format!("group: {},", str_literal(&r.gvk.group)),
                format!("version: {},", str_literal(&r.gvk.version)),
                format!("kind: {},", str_literal(&r.gvk.kind)),
                format!("plural: {},", str_literal(&r.plural)),
                subresource,
                format!("scope: {runtime}::Scope::{scope},"),
            ];
            let path = shared.get("RESOURCE", "ResourceInfo", false, fields);
            code.line(&format!("resource: Some({path}),"));
        }
        None => code.line("resource: None,"),
    }
    let path_params: Vec<String> = op.path_params.iter().map(|p| p.name.clone()).collect();
    if path_params.is_empty() {
        code.line("path_params: &[],");
    } else {
        let items = quoted(&path_params)
            .into_iter()
            .map(|p| format!("{p},"))
            .collect();
        let path = shared.get("PATH_PARAMS", "&str", true, items);
        code.line(&format!("path_params: {path},"));
    }
    let query: Vec<String> = op
        .query_params
        .iter()
        .map(SharedQueryParams::path)
        .collect();
    if query.is_empty() {
        code.line("query: &[],");
    } else {
        let items = query.iter().map(|q| format!("super::{q},")).collect();
        let path = shared.get("QUERY", "QueryParamInfo", true, items);
        code.line(&format!("query: {path},"));
    }
    match &op.body {
        Some(body) => {
            let ty = match body.kind {
                BodyKind::Patch => "Patch".to_owned(),
                BodyKind::Json => shape_display(context, &body.shape),
            };
            let types = quoted(&body.content_types);
            let types: Vec<&str> = types.iter().map(String::as_str).collect();
            // Spelled at the depth of the constant's fields, then moved to the margin.
            let mut list = Code::new();
            list.deeper();
            list.deeper();
            list.list("content_types: &[", &types, "]", ",");
            let list = list.finish();
            let list: Vec<&str> = list.lines().map(|l| &l[8..]).collect();
            let fields = vec![
                format!("ty: {},", str_literal(&ty)),
                list.join("\n"),
                format!("required: {},", body.required),
            ];
            let path = shared.get("BODY", "BodyInfo", false, fields);
            code.line(&format!("body: Some({path}),"));
        }
        None => code.line("body: None,"),
    }
    if op.responses.is_empty() {
        code.line("responses: &[],");
    } else {
        let items = op
            .responses
            .iter()
            .map(|r| {
                let ty = match response_type_display(context, &r.body) {
                    Some(ty) => format!("Some({})", str_literal(&ty)),
                    None => "None".to_owned(),
                };
                format!(
                    "ResponseInfo {{\n    status: {},\n    description: {},\n    ty: {ty},\n}},",
                    r.status,
                    str_literal(&r.description)
                )
            })
            .collect();
        let path = shared.get("RESPONSES", "ResponseInfo", true, items);
        code.line(&format!("responses: {path},"));
    }
    code.line(&format!("deprecated: {},", op.deprecated));
    code.line(&format!(
        "description: {},",
        str_literal(op.description.as_deref().unwrap_or_default())
    ));
    code.close("},");
}
