//! Operations: the API's endpoint tables as IR, in the spirit of progenitor. Everything the
//! emitters need is decided here: the path template split into constant and parameter parts,
//! the action, the resource, the parameters with their Rust names and types, the body and
//! its content types, the responses by status, and every generated name. Emit code only
//! translates.
//!
//! Operations are read from `paths` (always OpenAPI v3-shaped: parameters resolved, bodies as
//! `requestBody`, responses with `content`). A resource served by no path (a CRD, or a
//! document without paths) gets the table Kubernetes would serve for it, synthesized from
//! its group, version, plural, scope and subresources ([`synthesize`]).
//!
//! Order is deterministic: the operations of each resource follow the reference pages (the
//! collection across all namespaces, then in a namespace, then one object, then each
//! subresource; every `/watch/` path after its plain twin; methods alphabetically), resources
//! in type order, and operations on no resource last, by path.

mod conventions;
mod names;
mod read;
mod template;

use std::collections::{BTreeMap, BTreeSet};

use super::resources::parse_path;
use super::{Gvk, Resource, Scope, Shape, TypeDef, TypeId, TypeKind};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Origin};
use crate::load::LoadedApi;

use conventions::synthesize_with;
use names::assign_names;
use read::read_operation;

pub use conventions::PATCH_CONTENT_TYPES;
pub use names::SharedQuery;
pub use template::{PathPart, PathTemplate, Segment};

const STATUS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";

/// One HTTP operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// The `operationId`, e.g. `readCoordinationV1NamespacedLease`.
    pub id: String,
    /// The HTTP method.
    pub method: Method,
    /// The path template.
    pub path: PathTemplate,
    /// What the operation does.
    pub action: Action,
    /// The resource it acts on, if any.
    pub resource: Option<OperationResource>,
    /// Path parameters, in template order.
    pub path_params: Vec<PathParam>,
    /// Query parameters, sorted by name.
    pub query_params: Vec<QueryParam>,
    /// The request body, if any.
    pub body: Option<Body>,
    /// Declared responses, sorted by status.
    pub responses: Vec<Response>,
    /// The media type to ask for (`Accept`), when the responses are JSON.
    pub accept: Option<String>,
    /// Deprecated: marked so, or a `/watch/` path.
    pub deprecated: bool,
    /// What it does, in words.
    pub description: Option<String>,
    /// For a list that takes `watch`: the watch on the same path (Kubernetes' way to watch a
    /// collection since the `/watch/` paths were deprecated).
    pub watch: Option<ListWatch>,
    /// Whether the path also resolves with its trailing slash toggled, as the API server's
    /// discovery paths do (`/apis` and `/apis/`).
    pub slash_optional: bool,
    /// Generated names.
    pub names: OperationNames,
    /// Where the operation is (for synthesized ones: the resource's schema).
    pub origin: Origin,
}

/// The names generated for one operation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OperationNames {
    /// The variant of the generated route enum, e.g. `ReadCoordinationV1NamespacedLease`.
    pub variant: String,
    /// The request function, e.g. `read_namespaced_lease`: an associated function of the
    /// resource type, or a free function in the routes module for operations on no resource.
    pub function: String,
    /// The response decoder, e.g. `read_namespaced_lease_response`.
    pub decoder: String,
    /// The struct of optional query parameters, when there are any.
    pub query: Option<String>,
    /// The builder of that struct.
    pub query_builder: Option<String>,
    /// Whether that struct is shared with other operations that take exactly the same
    /// optional query parameters, and so lives in the routes module rather than next to
    /// the resource (see `assign_names`).
    pub query_shared: bool,
    /// The enum of responses, when the success responses have different types.
    pub response: Option<String>,
    /// The request function's arguments for the body and the query struct, when it takes
    /// them (path parameters and required query parameters are named by their `rust_name`,
    /// unique among the arguments).
    pub body_arg: Option<String>,
    /// See `body_arg`.
    pub query_arg: Option<String>,
    /// Whether the query struct can derive `Eq` (no parameter holds a float).
    pub query_eq: bool,
    /// For a PATCH of a resource or its status that takes `application/apply-patch+yaml`:
    /// the server-side apply function beside the patch function.
    pub apply: Option<ApplyNames>,
}

/// The names of an operation's server-side apply function: `apply_namespaced_deployment`
/// beside `patch_namespaced_deployment`, taking the resource's apply configuration and the
/// field manager, and decoded by the patch's decoder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApplyNames {
    /// The function.
    pub function: String,
    /// Its argument for the apply configuration.
    pub body_arg: String,
    /// Its argument for the field manager (the `fieldManager` query parameter, required
    /// for apply).
    pub field_manager_arg: String,
}

/// The content type of a server-side apply patch.
pub const APPLY_PATCH: &str = "application/apply-patch+yaml";

/// The watch that a list operation also serves: `GET <list path>?watch=true`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListWatch {
    /// The optional query parameters that apply to a watch: the list's, without `watch`
    /// (always sent), `limit` and `continue` (paging a list).
    pub query_params: Vec<QueryParam>,
    /// The type of the objects in the events.
    pub object: Shape,
    /// The request function, e.g. `watch_list_namespaced_lease`.
    pub function: String,
    /// The function making the stream decoder, e.g. `watch_list_namespaced_lease_decoder`.
    pub decoder: String,
    /// The query struct (always shared: its parameters are a known set), its builder, its
    /// argument name, and whether it can derive `Eq`.
    pub query: Option<String>,
    /// See `query`.
    pub query_builder: Option<String>,
    /// See `query`.
    pub query_arg: String,
    /// See `query`.
    pub query_shared: bool,
    /// See `query`.
    pub query_eq: bool,
}

/// An HTTP method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    /// `DELETE`
    Delete,
    /// `GET`
    Get,
    /// `HEAD`
    Head,
    /// `OPTIONS`
    Options,
    /// `PATCH`
    Patch,
    /// `POST`
    Post,
    /// `PUT`
    Put,
    /// `TRACE`
    Trace,
}

impl Method {
    /// The upper-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Delete => "DELETE",
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Options => "OPTIONS",
            Method::Patch => "PATCH",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Trace => "TRACE",
        }
    }

    fn parse(text: &str) -> Option<Method> {
        Some(match text.to_ascii_uppercase().as_str() {
            "DELETE" => Method::Delete,
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            "OPTIONS" => Method::Options,
            "PATCH" => Method::Patch,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "TRACE" => Method::Trace,
            _ => return None,
        })
    }
}

/// What an operation does, in Kubernetes' vocabulary.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// `get`: read one object.
    Get,
    /// `list`: list a collection.
    List,
    /// `watch` or `watchlist`: watch one object or a collection.
    Watch,
    /// `post`: create an object.
    Create,
    /// `put`: replace an object.
    Replace,
    /// `patch`: partially update an object.
    Patch,
    /// `delete`: delete one object.
    Delete,
    /// `deletecollection`: delete a collection.
    DeleteCollection,
    /// `connect`: exec, attach, port-forward, proxy.
    Connect,
    /// Any other `x-kubernetes-action`, as written: legacy (`proxy`, Kubernetes ≤ 1.9 and
    /// OpenShift 3) or newer than this generator.
    Other(String),
}

impl Action {
    /// The name used in route listings and the runtime's `Action`.
    pub fn as_str(&self) -> &str {
        match self {
            Action::Get => "get",
            Action::List => "list",
            Action::Watch => "watch",
            Action::Create => "create",
            Action::Replace => "replace",
            Action::Patch => "patch",
            Action::Delete => "delete",
            Action::DeleteCollection => "deletecollection",
            Action::Connect => "connect",
            Action::Other(action) => action,
        }
    }

    /// `x-kubernetes-action`'s value; one without a convention is kept as `Other`.
    fn parse(text: &str) -> Action {
        match text {
            "get" => Action::Get,
            "list" => Action::List,
            "watch" | "watchlist" => Action::Watch,
            "post" | "create" => Action::Create,
            "put" | "replace" | "update" => Action::Replace,
            "patch" => Action::Patch,
            "delete" => Action::Delete,
            "deletecollection" => Action::DeleteCollection,
            "connect" => Action::Connect,
            other => Action::Other(other.to_owned()),
        }
    }
}

/// The resource an operation acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperationResource {
    /// The resource's type, when the API defines it.
    pub id: Option<TypeId>,
    /// The resource's group, version and kind (also for its subresources).
    pub gvk: Gvk,
    /// The plural in paths.
    pub plural: String,
    /// The subresource, e.g. `status`.
    pub subresource: Option<String>,
    /// The resource's scope.
    pub scope: Scope,
}

/// A path parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathParam {
    /// The name in the template.
    pub name: String,
    /// The Rust argument name.
    pub rust_name: String,
    /// What it is.
    pub description: Option<String>,
}

/// A query parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryParam {
    /// The name on the wire.
    pub name: String,
    /// The Rust field (or argument, when required) name.
    pub rust_name: String,
    /// Its type: `String`, `I32`, `I64`, `F64`, `Bool`, or a `Vec` of one of them.
    pub shape: Shape,
    /// What it does.
    pub description: Option<String>,
    /// Whether it is required.
    pub required: bool,
    /// The name of its setter on the query builder (optional parameters only).
    pub setter: String,
    /// The constant spelling it in the route table's private `params` module: one per
    /// distinct parameter (name, type, description, required) of the whole API.
    pub constant: String,
}

impl QueryParam {
    /// The JSON type name shown in tables: `string`, `integer`, `number`, `boolean`, `array`.
    pub fn type_name(&self) -> &'static str {
        shape_type_name(&self.shape)
    }
}

fn shape_type_name(shape: &Shape) -> &'static str {
    match shape {
        Shape::Bool => "boolean",
        Shape::I32 | Shape::I64 | Shape::Integer | Shape::U32 | Shape::U64 => "integer",
        Shape::Nullable(inner) => shape_type_name(inner),
        Shape::F64 => "number",
        Shape::Vec(_) => "array",
        Shape::Map(_) | Shape::Json | Shape::Ref(_) => "object",
        Shape::String | Shape::Runtime(_) => "string",
    }
}

/// How a request body is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// The declared type as JSON.
    Json,
    /// A patch whose variant chooses the content type.
    Patch,
}

/// A request body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Body {
    /// The declared type.
    pub shape: Shape,
    /// How it is sent.
    pub kind: BodyKind,
    /// The accepted content types, sorted.
    pub content_types: Vec<String>,
    /// Whether it is required.
    pub required: bool,
}

/// A declared response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The description, e.g. `OK`.
    pub description: String,
    /// The body.
    pub body: ResponseBody,
    /// The content types, sorted.
    pub content_types: Vec<String>,
    /// Its variant in the operation's response enum: `Ok`, `Created`, …, `Status207`.
    pub variant: String,
    /// The body as the document declared it, where the model reads it otherwise: a delete
    /// declaring `Status` or the object is read as `StatusOr<object>` (a server answers
    /// either), and this keeps which one the document named.
    pub declared: Option<Shape>,
}

impl Response {
    /// Whether the status is a success (2xx).
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// What a response body holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResponseBody {
    /// Nothing (or nothing declared).
    Empty,
    /// JSON of a type.
    Json(Shape),
    /// Plain text (a `type: string` schema served as `text/plain`, such as a log).
    Text,
    /// A stream of watch events for objects of a type.
    Watch(Shape),
    /// JSON that is a `Status` or an object of the type, by its `kind`: what a delete
    /// answers (see `conventions::delete_results`).
    StatusOr(Shape),
}

impl ResponseBody {
    /// The body's Rust type as listings and reports write it (see [`ApiSet::shape_text`]);
    /// none for an empty body.
    pub fn type_text(&self, api: &super::ApiSet) -> Option<String> {
        match self {
            ResponseBody::Empty => None,
            ResponseBody::Text => Some("String".to_owned()),
            ResponseBody::Json(s) => Some(api.shape_text(s)),
            ResponseBody::Watch(s) => Some(format!("WatchEvent<{}>", api.shape_text(s))),
            ResponseBody::StatusOr(s) => Some(format!("StatusOr<{}>", api.shape_text(s))),
        }
    }
}

/// Schema names and resources, for resolving what operations refer to.
struct Index<'a> {
    types: &'a [TypeDef],
    by_schema: BTreeMap<&'a str, TypeId>,
    resources: &'a BTreeMap<TypeId, Resource>,
    by_plural: BTreeMap<(&'a str, &'a str, &'a str), TypeId>,
    list_of: BTreeMap<TypeId, TypeId>,
}

impl<'a> Index<'a> {
    fn new(
        types: &'a [TypeDef],
        resources: &'a BTreeMap<TypeId, Resource>,
        lists: &BTreeMap<TypeId, TypeId>,
    ) -> Self {
        let mut by_schema = BTreeMap::new();
        for (i, ty) in types.iter().enumerate() {
            by_schema
                .entry(ty.schema_name.as_str())
                .or_insert(TypeId(i));
        }
        let by_plural = resources
            .iter()
            .map(|(id, r)| {
                (
                    (
                        r.gvk.group.as_str(),
                        r.gvk.version.as_str(),
                        r.plural.as_str(),
                    ),
                    *id,
                )
            })
            .collect();
        let list_of = lists.iter().map(|(list, item)| (*item, *list)).collect();
        Index {
            types,
            by_schema,
            resources,
            by_plural,
            list_of,
        }
    }

    fn named(&self, schema: &str) -> Shape {
        self.by_schema
            .get(schema)
            .map_or(Shape::Json, |id| Shape::Ref(*id))
    }

    fn is_watch_event(&self, shape: &Shape) -> bool {
        matches!(shape, Shape::Ref(id) if matches!(self.types[id.0].kind, TypeKind::WatchEvent { .. }))
    }
}

/// The API's `meta/v1.Status` type, which error responses carry.
pub fn status_type(types: &[TypeDef]) -> Option<TypeId> {
    types
        .iter()
        .position(|ty| ty.schema_name == STATUS)
        .map(TypeId)
}

/// Reads every operation under `paths`, synthesizes the tables of resources served by none,
/// and names everything; with the query structs the operations share.
pub(super) fn build(
    raw: &LoadedApi,
    types: &[TypeDef],
    resources: &BTreeMap<TypeId, Resource>,
    lists: &BTreeMap<TypeId, TypeId>,
) -> Result<(Vec<Operation>, Vec<SharedQuery>), Error> {
    let index = Index::new(types, resources, lists);
    let mut diagnostics = Diagnostics::default();
    let mut operations: Vec<Operation> = Vec::new();
    // The same operation in two documents is kept once already (`load::typed`).
    for raw_op in &raw.operations {
        if let Some(op) = read_operation(raw_op, &index, &mut diagnostics) {
            operations.push(op);
        }
    }

    let served: BTreeSet<TypeId> = operations
        .iter()
        .filter_map(|op| op.resource.as_ref().and_then(|r| r.id))
        .collect();
    for (id, resource) in resources {
        if !served.contains(id) {
            operations.extend(synthesize_with(&index, *id, resource));
        }
    }

    for op in &mut operations {
        conventions::apply(op, &index);
    }
    // An extern resource's operations belong to the crate that defines it: they neither
    // get names nor add to a shared query struct.
    operations.retain(|op| {
        op.resource
            .as_ref()
            .and_then(|r| r.id)
            .is_none_or(|id| !matches!(types[id.0].kind, TypeKind::Extern(_)))
    });
    sort(&mut operations);
    check_unique(&operations, &mut diagnostics);
    let queries = assign_names(&mut operations, types);
    names::assign_query_constants(&mut operations);
    diagnostics.finish((operations, queries))
}

/// The table Kubernetes serves for `resource` (the type `id`), following its conventions:
/// list, watch, create and delete-collection on the collection (across all namespaces too,
/// for namespaced resources), get, replace, patch, delete and watch on one object, and get,
/// replace and patch on the `status` and `scale` subresources. Other subresources (`log`,
/// `exec`, …) have no convention and are left out. Names are not assigned.
#[cfg(test)]
pub fn synthesize(api: &super::ApiSet, id: TypeId) -> Vec<Operation> {
    let Some(resource) = api.resources.get(&id) else {
        return Vec::new();
    };
    let index = Index::new(&api.types, &api.resources, &api.lists);
    let mut operations = synthesize_with(&index, id, resource);
    for op in &mut operations {
        conventions::apply(op, &index);
    }
    sort(&mut operations);
    assign_names(&mut operations, &api.types);
    names::assign_query_constants(&mut operations);
    operations
}

/// `application/json` when a success response is JSON or a watch stream.
fn accept_for(responses: &[Response]) -> Option<String> {
    responses
        .iter()
        .filter(|r| r.is_success())
        .any(|r| {
            matches!(
                r.body,
                ResponseBody::Json(_) | ResponseBody::Watch(_) | ResponseBody::StatusOr(_)
            )
        })
        .then(|| "application/json".to_owned())
}

fn invalid(origin: &Origin, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(ErrorKind::InvalidOperation, origin, message)
}

/// The reference pages' order (see the module docs).
fn sort(operations: &mut [Operation]) {
    operations.sort_by_cached_key(|op| {
        let parsed = parse_path(&op.path.text);
        let owner = op.resource.as_ref().and_then(|r| r.id);
        let (named, subresource, namespaced, watch) = match (&parsed, owner) {
            (Some(p), Some(_)) => (p.named, p.subresource.clone(), p.namespaced, p.watch),
            _ => (false, None, false, false),
        };
        (
            owner.is_none(),
            owner,
            named,
            subresource,
            namespaced,
            watch,
            op.path.text.clone(),
            op.method.as_str(),
        )
    });
}

fn check_unique(operations: &[Operation], diagnostics: &mut Diagnostics) {
    let mut ids: BTreeMap<&str, &Origin> = BTreeMap::new();
    let mut routes: BTreeMap<(&str, Method), &Origin> = BTreeMap::new();
    for op in operations {
        if let Some(first) = ids.insert(&op.id, &op.origin) {
            diagnostics.push(
                invalid(
                    &op.origin.child("operationId"),
                    format!(
                        "expected each operationId once, but `{}` is also used at {first}",
                        op.id
                    ),
                )
                .with_hint("rename one of the operations"),
            );
        }
        if let Some(first) = routes.insert((&op.path.text, op.method), &op.origin) {
            diagnostics.push(invalid(
                &op.origin,
                format!(
                    "expected one {} operation on `{}`, but there is another at {first}",
                    op.method.as_str(),
                    op.path.text
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::synthesize;
    use crate::Config;

    /// A resource's operations as the document declares them and as the conventions make
    /// them are the same (where they come from aside).
    #[test]
    fn synthesized_lease_table_equals_the_one_read_from_paths() {
        let input = Path::new("schemas/coordination.k8s.io_v1.json");
        let api = Config::new()
            .input_named(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(input),
                input,
            )
            .api()
            .expect("model");
        let (id, _) = api
            .resources
            .iter()
            .find(|(_, r)| r.gvk.kind == "Lease")
            .expect("Lease is a resource");
        let read: Vec<_> = api.operations_of(*id).cloned().collect();
        let mut synthesized = synthesize(&api, *id);
        assert_eq!(read.len(), 11);
        assert_eq!(synthesized.len(), read.len());
        for (s, r) in synthesized.iter_mut().zip(&read) {
            s.origin = r.origin.clone();
            assert_eq!(s, r, "{} {}", r.method.as_str(), r.path.text);
        }
    }

    /// A resource whose document declares only some paths gets Kubernetes' whole table.
    #[test]
    fn a_resource_without_paths_gets_the_conventional_table() {
        let document = serde_json::json!({
            "openapi": "3.0.0",
            "info": {"title": "t", "version": "v1"},
            "paths": {
                "/apis/example.com/v1/gizmos": {"get": {"operationId": "listExampleComV1Gizmo", "x-kubernetes-action": "list",
                    "x-kubernetes-group-version-kind": {"group": "example.com", "version": "v1", "kind": "Gizmo"}, "responses": {}}},
                "/apis/example.com/v1/gizmos/{name}/status": {"get": {"operationId": "readExampleComV1GizmoStatus", "x-kubernetes-action": "get",
                    "x-kubernetes-group-version-kind": {"group": "example.com", "version": "v1", "kind": "Gizmo"}, "responses": {}}}
            },
            "components": {"schemas": {
                "com.example.v1.Gizmo": {"type": "object", "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}},
                    "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Gizmo"}]}
            }}
        });
        let api = Config::new()
            .input_bytes("gizmo.json", document.to_string())
            .api()
            .expect("model");
        let (id, _) = api.resources.iter().next().expect("a resource");
        let table: Vec<(&str, String, String)> = synthesize(&api, *id)
            .iter()
            .map(|op| {
                (
                    op.method.as_str(),
                    op.path.text.clone(),
                    op.action.as_str().to_owned(),
                )
            })
            .collect();
        let expected = [
            ("DELETE", "/apis/example.com/v1/gizmos", "deletecollection"),
            ("GET", "/apis/example.com/v1/gizmos", "list"),
            ("POST", "/apis/example.com/v1/gizmos", "create"),
            ("GET", "/apis/example.com/v1/watch/gizmos", "watch"),
            ("DELETE", "/apis/example.com/v1/gizmos/{name}", "delete"),
            ("GET", "/apis/example.com/v1/gizmos/{name}", "get"),
            ("PATCH", "/apis/example.com/v1/gizmos/{name}", "patch"),
            ("PUT", "/apis/example.com/v1/gizmos/{name}", "replace"),
            ("GET", "/apis/example.com/v1/watch/gizmos/{name}", "watch"),
            ("GET", "/apis/example.com/v1/gizmos/{name}/status", "get"),
            (
                "PATCH",
                "/apis/example.com/v1/gizmos/{name}/status",
                "patch",
            ),
            (
                "PUT",
                "/apis/example.com/v1/gizmos/{name}/status",
                "replace",
            ),
        ];
        let expected: Vec<(&str, String, String)> = expected
            .iter()
            .map(|(m, p, a)| (*m, (*p).to_owned(), (*a).to_owned()))
            .collect();
        assert_eq!(table, expected);
    }
}
