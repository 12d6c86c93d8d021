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

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::naming::{self, Namespace};
use super::resources::parse_path;
use super::{Gvk, Resource, Scope, Shape, TypeDef, TypeId, TypeKind};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Origin};
use crate::load::{RawApi, RawOperation, json_type};

/// The most path parameters one operation can have (the matcher keeps them in a fixed array).
pub const MAX_PATH_PARAMS: usize = 8;

const STATUS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
const DELETE_OPTIONS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
const PATCH: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";
const SCALE: &str = "io.k8s.api.autoscaling.v1.Scale";

/// The content types of PATCH bodies that select a patch strategy.
pub const PATCH_CONTENT_TYPES: [&str; 4] = [
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
];

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
}

impl Action {
    /// The name used in route listings and the runtime's `Action`.
    pub fn as_str(self) -> &'static str {
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
        }
    }

    /// The runtime enum variant's name.
    pub fn variant(self) -> &'static str {
        match self {
            Action::Get => "Get",
            Action::List => "List",
            Action::Watch => "Watch",
            Action::Create => "Create",
            Action::Replace => "Replace",
            Action::Patch => "Patch",
            Action::Delete => "Delete",
            Action::DeleteCollection => "DeleteCollection",
            Action::Connect => "Connect",
        }
    }

    /// `x-kubernetes-action`'s value.
    fn parse(text: &str) -> Option<Action> {
        Some(match text {
            "get" => Action::Get,
            "list" => Action::List,
            "watch" | "watchlist" => Action::Watch,
            "post" | "create" => Action::Create,
            "put" | "replace" | "update" => Action::Replace,
            "patch" => Action::Patch,
            "delete" => Action::Delete,
            "deletecollection" => Action::DeleteCollection,
            "connect" => Action::Connect,
            _ => return None,
        })
    }
}

/// A path template: the text and its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathTemplate {
    /// As written, e.g. `/api/v1/namespaces/{namespace}/pods/{name}/log`.
    pub text: String,
    /// Constant text and parameters, alternating as they appear.
    pub parts: Vec<PathPart>,
}

/// A part of a path template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathPart {
    /// Constant text, e.g. `/api/v1/namespaces/`.
    Literal(String),
    /// A parameter that fills one whole segment, e.g. `namespace`.
    Param(String),
}

/// One `/`-separated segment of a path template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Segment<'a> {
    /// Constant text.
    Static(&'a str),
    /// A parameter.
    Param(&'a str),
}

impl PathTemplate {
    /// The segments after the leading `/`.
    pub fn segments(&self) -> Vec<Segment<'_>> {
        let rest = self.text.strip_prefix('/').unwrap_or(&self.text);
        rest.split('/')
            .map(
                |segment| match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    Some(name) => Segment::Param(name),
                    None => Segment::Static(segment),
                },
            )
            .collect()
    }

    /// The parameter names in order.
    pub fn params(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            PathPart::Param(name) => Some(name.as_str()),
            PathPart::Literal(_) => None,
        })
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
        Shape::I32 | Shape::I64 | Shape::U32 | Shape::U64 => "integer",
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
/// and names everything.
pub(super) fn build(
    raw: &RawApi,
    types: &[TypeDef],
    resources: &BTreeMap<TypeId, Resource>,
    lists: &BTreeMap<TypeId, TypeId>,
) -> Result<Vec<Operation>, Error> {
    let index = Index::new(types, resources, lists);
    let mut diagnostics = Diagnostics::default();
    let mut operations: Vec<Operation> = Vec::new();
    let mut seen: Vec<&RawOperation> = Vec::new();
    for raw_op in &raw.operations {
        // The same operation in two documents (each carries its own copy) is kept once.
        if seen
            .iter()
            .any(|s| s.path == raw_op.path && s.method == raw_op.method && s.value == raw_op.value)
        {
            continue;
        }
        seen.push(raw_op);
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

    sort(&mut operations);
    check_unique(&operations, &mut diagnostics);
    assign_names(&mut operations, types);
    diagnostics.finish(operations)
}

/// The table Kubernetes serves for `resource` (the type `id`), following its conventions:
/// list, watch, create and delete-collection on the collection (across all namespaces too,
/// for namespaced resources), get, replace, patch, delete and watch on one object, and get,
/// replace and patch on the `status` and `scale` subresources. Other subresources (`log`,
/// `exec`, …) have no convention and are left out. Names are not assigned.
pub fn synthesize(api: &super::ApiSet, id: TypeId) -> Vec<Operation> {
    let Some(resource) = api.resources.get(&id) else {
        return Vec::new();
    };
    let index = Index::new(&api.types, &api.resources, &api.lists);
    let mut operations = synthesize_with(&index, id, resource);
    sort(&mut operations);
    assign_names(&mut operations, &api.types);
    operations
}

const JSON_TYPES: [&str; 4] = [
    "application/cbor",
    "application/json",
    "application/vnd.kubernetes.protobuf",
    "application/yaml",
];
const STREAM_TYPES: [&str; 7] = [
    "application/cbor",
    "application/cbor-seq",
    "application/json",
    "application/json;stream=watch",
    "application/vnd.kubernetes.protobuf",
    "application/vnd.kubernetes.protobuf;stream=watch",
    "application/yaml",
];
const PATCH_BODY_TYPES: [&str; 5] = [
    "application/apply-patch+cbor",
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
];

const LIST_PARAMS: &[&str] = &[
    "allowWatchBookmarks",
    "continue",
    "fieldSelector",
    "labelSelector",
    "limit",
    "pretty",
    "resourceVersion",
    "resourceVersionMatch",
    "sendInitialEvents",
    "timeoutSeconds",
    "watch",
];
const DELETE_COLLECTION_PARAMS: &[&str] = &[
    "continue",
    "dryRun",
    "fieldSelector",
    "gracePeriodSeconds",
    "labelSelector",
    "limit",
    "orphanDependents",
    "pretty",
    "propagationPolicy",
    "resourceVersion",
    "resourceVersionMatch",
    "sendInitialEvents",
    "timeoutSeconds",
];
const WRITE_PARAMS: &[&str] = &["dryRun", "fieldManager", "fieldValidation", "pretty"];
const PATCH_PARAMS: &[&str] = &[
    "dryRun",
    "fieldManager",
    "fieldValidation",
    "force",
    "pretty",
];
const DELETE_PARAMS: &[&str] = &[
    "dryRun",
    "gracePeriodSeconds",
    "orphanDependents",
    "pretty",
    "propagationPolicy",
];

/// The standard query parameters: name, type, description.
const STANDARD_PARAMS: &[(&str, &str, &str)] = &[
    (
        "allowWatchBookmarks",
        "boolean",
        "Asks for BOOKMARK watch events; servers may ignore it.",
    ),
    (
        "continue",
        "string",
        "Continue token returned by a previous paged list call.",
    ),
    (
        "dryRun",
        "string",
        "When set to `All`, the request is fully processed but nothing is persisted.",
    ),
    (
        "fieldManager",
        "string",
        "Name of the actor making the change, at most 128 printable characters.",
    ),
    (
        "fieldSelector",
        "string",
        "Only return objects whose fields match, e.g. `metadata.name=<name>`.",
    ),
    (
        "fieldValidation",
        "string",
        "How unknown or duplicate fields are handled: Ignore, Warn or Strict.",
    ),
    (
        "force",
        "boolean",
        "Let an apply request take over fields owned by other managers; unset for other patch types.",
    ),
    (
        "gracePeriodSeconds",
        "integer",
        "Seconds to wait before deletion; 0 deletes immediately.",
    ),
    (
        "labelSelector",
        "string",
        "Only return objects whose labels match, e.g. `app in (web,api)`.",
    ),
    (
        "limit",
        "integer",
        "Maximum number of items to return in one page.",
    ),
    (
        "orphanDependents",
        "boolean",
        "Deprecated: whether dependents are orphaned; use propagationPolicy instead.",
    ),
    (
        "pretty",
        "string",
        "Pretty-print the output when set to 'true'.",
    ),
    (
        "propagationPolicy",
        "string",
        "Garbage collection policy: Orphan, Background or Foreground.",
    ),
    (
        "resourceVersion",
        "string",
        "Resource version the request must be served from; see https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions.",
    ),
    (
        "resourceVersionMatch",
        "string",
        "How resourceVersion applies to a list call: Exact or NotOlderThan.",
    ),
    (
        "sendInitialEvents",
        "boolean",
        "With `watch=true`, first stream the current state as synthetic events, then a bookmark.",
    ),
    (
        "timeoutSeconds",
        "integer",
        "Time limit for the list or watch call, in seconds.",
    ),
    (
        "watch",
        "boolean",
        "Stream changes as added, modified and deleted events instead of returning a list.",
    ),
];

/// The `GroupVersion` part of Kubernetes operation IDs: `Core` + `V1`,
/// `coordination.k8s.io` → `Coordination`, `image.openshift.io` → `ImageOpenshiftIo`.
pub fn group_version_token(group: &str, version: &str) -> String {
    let group = group.strip_suffix(".k8s.io").unwrap_or(group);
    let mut token = String::new();
    if group.is_empty() {
        token.push_str("Core");
    }
    for word in group.split(['.', '-']).filter(|w| !w.is_empty()) {
        token.push_str(&capitalize(word));
    }
    token.push_str(&capitalize(version));
    token
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

struct Synth<'a> {
    index: &'a Index<'a>,
    id: TypeId,
    resource: &'a Resource,
    origin: Origin,
    gv: String,
    prefix: String,
}

fn synthesize_with(index: &Index<'_>, id: TypeId, resource: &Resource) -> Vec<Operation> {
    let gvk = &resource.gvk;
    let prefix = if gvk.group.is_empty() {
        format!("/api/{}", gvk.version)
    } else {
        format!("/apis/{}/{}", gvk.group, gvk.version)
    };
    let synth = Synth {
        index,
        id,
        resource,
        origin: index.types[id.0].origin.clone(),
        gv: group_version_token(&gvk.group, &gvk.version),
        prefix,
    };
    let kind = &gvk.kind;
    let plural = &resource.plural;
    let object = Shape::Ref(id);
    let list = index
        .list_of
        .get(&id)
        .map_or(Shape::Json, |list| Shape::Ref(*list));
    let status = index.named(STATUS);
    let namespaced = resource.scope == Scope::Namespaced;
    let (ns_path, ns_word, in_ns) = if namespaced {
        ("/namespaces/{namespace}", "Namespaced", " in a namespace")
    } else {
        ("", "", "")
    };
    let mut ops = Vec::new();

    // The collection.
    if namespaced {
        ops.push(synth.op(
            Method::Get,
            Action::List,
            &format!("/{plural}"),
            None,
            &format!("list{{gv}}{kind}ForAllNamespaces"),
            &format!("List or watch {kind} objects across all namespaces."),
            LIST_PARAMS,
            None,
            &[(200, "OK", ResponseBody::Json(list.clone()), &STREAM_TYPES)],
        ));
        ops.push(synth.op(
            Method::Get,
            Action::Watch,
            &format!("/watch/{plural}"),
            None,
            &format!("watch{{gv}}{kind}ListForAllNamespaces"),
            &format!(
                "Watch {kind} objects across all namespaces; deprecated, use a list call with `watch=true`."
            ),
            LIST_PARAMS,
            None,
            &[(200, "OK", ResponseBody::Watch(object.clone()), &STREAM_TYPES)],
        ));
    }
    let collection = format!("{ns_path}/{plural}");
    ops.push(synth.op(
        Method::Delete,
        Action::DeleteCollection,
        &collection,
        None,
        &format!("delete{{gv}}Collection{ns_word}{kind}"),
        &format!("Delete a collection of {kind} objects{in_ns}."),
        DELETE_COLLECTION_PARAMS,
        Some(synth.json_body(index.named(DELETE_OPTIONS), false)),
        &[(200, "OK", ResponseBody::Json(status.clone()), &JSON_TYPES)],
    ));
    ops.push(synth.op(
        Method::Get,
        Action::List,
        &collection,
        None,
        &format!("list{{gv}}{ns_word}{kind}"),
        &format!("List or watch {kind} objects{in_ns}."),
        LIST_PARAMS,
        None,
        &[(200, "OK", ResponseBody::Json(list.clone()), &STREAM_TYPES)],
    ));
    let created = ResponseBody::Json(object.clone());
    ops.push(synth.op(
        Method::Post,
        Action::Create,
        &collection,
        None,
        &format!("create{{gv}}{ns_word}{kind}"),
        &format!("Create a new {kind} object{in_ns}."),
        WRITE_PARAMS,
        Some(synth.json_body(object.clone(), true)),
        &[
            (200, "OK", created.clone(), &JSON_TYPES),
            (201, "Created", created.clone(), &JSON_TYPES),
            (202, "Accepted", created.clone(), &JSON_TYPES),
        ],
    ));
    ops.push(synth.op(
        Method::Get,
        Action::Watch,
        &format!("/watch{collection}"),
        None,
        &format!("watch{{gv}}{ns_word}{kind}List"),
        &format!("Watch {kind} objects{in_ns}; deprecated, use a list call with `watch=true`."),
        LIST_PARAMS,
        None,
        &[(
            200,
            "OK",
            ResponseBody::Watch(object.clone()),
            &STREAM_TYPES,
        )],
    ));

    // One object.
    let item = format!("{collection}/{{name}}");
    ops.extend(synth.item_ops(&item, "", "", &object, &object));
    ops.push(synth.op(
        Method::Delete,
        Action::Delete,
        &item,
        None,
        &format!("delete{{gv}}{ns_word}{kind}"),
        &format!("Delete the specified {kind}."),
        DELETE_PARAMS,
        Some(synth.json_body(index.named(DELETE_OPTIONS), false)),
        &[
            (200, "OK", ResponseBody::Json(status.clone()), &JSON_TYPES),
            (202, "Accepted", ResponseBody::Json(status), &JSON_TYPES),
        ],
    ));
    ops.push(synth.op(
        Method::Get,
        Action::Watch,
        &format!("/watch{item}"),
        None,
        &format!("watch{{gv}}{ns_word}{kind}"),
        &format!(
            "Watch one {kind}; deprecated, use a list call with `watch=true` and a `fieldSelector`."
        ),
        LIST_PARAMS,
        None,
        &[(
            200,
            "OK",
            ResponseBody::Watch(object.clone()),
            &STREAM_TYPES,
        )],
    ));

    for sub in &resource.subresources {
        let shape = match sub.as_str() {
            "status" => object.clone(),
            "scale" => index.named(SCALE),
            _ => continue,
        };
        ops.extend(synth.item_ops(
            &format!("{item}/{sub}"),
            sub,
            &capitalize(sub),
            &shape,
            &shape,
        ));
    }
    ops
}

type SynthResponse<'a> = (u16, &'a str, ResponseBody, &'a [&'a str]);

impl Synth<'_> {
    /// get, patch and put on one object or one of its subresources.
    fn item_ops(
        &self,
        path: &str,
        sub: &str,
        sub_word: &str,
        body: &Shape,
        result: &Shape,
    ) -> Vec<Operation> {
        let kind = &self.resource.gvk.kind;
        let ns_word = if self.resource.scope == Scope::Namespaced {
            "Namespaced"
        } else {
            ""
        };
        let what = if sub.is_empty() {
            format!("the specified {kind}")
        } else {
            format!("the {sub} of the specified {kind}")
        };
        let subresource = (!sub.is_empty()).then_some(sub);
        let ok = ResponseBody::Json(result.clone());
        vec![
            self.op(
                Method::Get,
                Action::Get,
                path,
                subresource,
                &format!("read{{gv}}{ns_word}{kind}{sub_word}"),
                &format!("Read {what}."),
                &["pretty"],
                None,
                &[(200, "OK", ok.clone(), &JSON_TYPES)],
            ),
            self.op(
                Method::Patch,
                Action::Patch,
                path,
                subresource,
                &format!("patch{{gv}}{ns_word}{kind}{sub_word}"),
                &format!("Partially update {what}."),
                PATCH_PARAMS,
                Some(Body {
                    shape: self.index.named(PATCH),
                    kind: BodyKind::Patch,
                    content_types: PATCH_BODY_TYPES.iter().map(|t| (*t).to_owned()).collect(),
                    required: true,
                }),
                &[
                    (200, "OK", ok.clone(), &JSON_TYPES),
                    (201, "Created", ok.clone(), &JSON_TYPES),
                ],
            ),
            self.op(
                Method::Put,
                Action::Replace,
                path,
                subresource,
                &format!("replace{{gv}}{ns_word}{kind}{sub_word}"),
                &format!("Replace {what}."),
                WRITE_PARAMS,
                Some(self.json_body(body.clone(), true)),
                &[
                    (200, "OK", ok.clone(), &JSON_TYPES),
                    (201, "Created", ok, &JSON_TYPES),
                ],
            ),
        ]
    }

    fn json_body(&self, shape: Shape, required: bool) -> Body {
        Body {
            shape,
            kind: BodyKind::Json,
            content_types: vec!["*/*".to_owned()],
            required,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn op(
        &self,
        method: Method,
        action: Action,
        path: &str,
        subresource: Option<&str>,
        id: &str,
        description: &str,
        query: &[&str],
        body: Option<Body>,
        responses: &[SynthResponse<'_>],
    ) -> Operation {
        let text = format!("{}{path}", self.prefix);
        let parts = parse_template(&text).unwrap_or_default();
        let kind = &self.resource.gvk.kind;
        let path_params = parts
            .iter()
            .filter_map(|part| match part {
                PathPart::Param(name) => Some(PathParam {
                    name: name.clone(),
                    rust_name: naming::field_name(name),
                    description: Some(match name.as_str() {
                        "namespace" => "Namespace of the object, e.g. `default`.".to_owned(),
                        _ => format!("Name of the {kind}."),
                    }),
                }),
                PathPart::Literal(_) => None,
            })
            .collect();
        let query_params = query
            .iter()
            .filter_map(|name| STANDARD_PARAMS.iter().find(|(n, _, _)| n == name))
            .map(|(name, ty, description)| QueryParam {
                name: (*name).to_owned(),
                rust_name: naming::field_name(name),
                shape: match *ty {
                    "boolean" => Shape::Bool,
                    "integer" => Shape::I64,
                    _ => Shape::String,
                },
                description: Some((*description).to_owned()),
                required: false,
                setter: String::new(),
            })
            .collect();
        let mut all_responses: Vec<Response> = responses
            .iter()
            .map(|(status, description, body, types)| Response {
                status: *status,
                description: (*description).to_owned(),
                body: body.clone(),
                content_types: types.iter().map(|t| (*t).to_owned()).collect(),
            })
            .collect();
        all_responses.push(Response {
            status: 401,
            description: "Unauthorized".to_owned(),
            body: ResponseBody::Empty,
            content_types: Vec::new(),
        });
        let accept = accept_for(&all_responses);
        Operation {
            id: id.replace("{gv}", &self.gv),
            method,
            deprecated: text.contains("/watch/"),
            path: PathTemplate { text, parts },
            action,
            resource: Some(OperationResource {
                id: Some(self.id),
                gvk: self.resource.gvk.clone(),
                plural: self.resource.plural.clone(),
                subresource: subresource.map(str::to_owned),
                scope: self.resource.scope,
            }),
            path_params,
            query_params,
            body,
            responses: all_responses,
            accept,
            description: Some(description.to_owned()),
            names: OperationNames::default(),
            origin: self.origin.clone(),
        }
    }
}

/// `application/json` when a success response is JSON or a watch stream.
fn accept_for(responses: &[Response]) -> Option<String> {
    responses
        .iter()
        .filter(|r| r.is_success())
        .any(|r| matches!(r.body, ResponseBody::Json(_) | ResponseBody::Watch(_)))
        .then(|| "application/json".to_owned())
}

/// Splits a path template into literal text and parameters; `Err` with what is wrong.
fn parse_template(text: &str) -> Result<Vec<PathPart>, String> {
    if !text.starts_with('/') {
        return Err("expected the path to start with `/`".to_owned());
    }
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut names = BTreeSet::new();
    for (i, segment) in text.split('/').enumerate() {
        if i > 0 {
            literal.push('/');
        }
        if let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            if name.is_empty() || name.contains(['{', '}']) {
                return Err(format!("expected a parameter name in `{segment}`"));
            }
            if !names.insert(name) {
                return Err(format!(
                    "expected the parameter `{name}` once, found it twice"
                ));
            }
            if !literal.is_empty() {
                parts.push(PathPart::Literal(std::mem::take(&mut literal)));
            }
            parts.push(PathPart::Param(name.to_owned()));
        } else if segment.contains(['{', '}']) {
            return Err(format!(
                "expected each parameter to fill a whole path segment, found `{segment}`"
            ));
        } else if segment == "." || segment == ".." {
            // A dot segment would let the template step out of its API prefix once a
            // client or proxy normalizes the path.
            return Err(format!("expected no `{segment}` segment in the path"));
        } else if segment.contains(['?', '#', '%', '\\']) {
            return Err(format!("expected a plain path segment, found `{segment}`"));
        } else {
            literal.push_str(segment);
        }
    }
    if !literal.is_empty() {
        parts.push(PathPart::Literal(literal));
    }
    if names.len() > MAX_PATH_PARAMS {
        return Err(format!(
            "expected at most {MAX_PATH_PARAMS} path parameters, found {}",
            names.len()
        ));
    }
    Ok(parts)
}

fn invalid(origin: &Origin, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(ErrorKind::InvalidOperation, origin, message)
}

/// One parameter, from the path item or the operation.
struct RawParam<'v> {
    name: &'v str,
    location: &'v str,
    object: &'v Map<String, Value>,
    origin: Origin,
}

fn read_params<'v>(
    list: &'v [Value],
    origin: &Origin,
    diagnostics: &mut Diagnostics,
) -> Vec<RawParam<'v>> {
    let mut params = Vec::new();
    for (i, value) in list.iter().enumerate() {
        let param_origin = origin.child(&i.to_string());
        let Some(object) = value.as_object() else {
            diagnostics.push(invalid(
                &param_origin,
                format!("expected a parameter object, found {}", json_type(value)),
            ));
            continue;
        };
        if object.contains_key("$ref") {
            diagnostics.push(
                invalid(
                    &param_origin,
                    "expected a parameter object, found an unresolved `$ref`",
                )
                .with_hint("the loader resolves references to shared parameters; check that the target exists"),
            );
            continue;
        }
        let name = object.get("name").and_then(Value::as_str);
        let location = object.get("in").and_then(Value::as_str);
        let (Some(name), Some(location)) = (name, location) else {
            diagnostics.push(invalid(
                &param_origin,
                "expected a parameter with string `name` and `in`",
            ));
            continue;
        };
        params.push(RawParam {
            name,
            location,
            object,
            origin: param_origin,
        });
    }
    params
}

fn read_operation(
    raw: &RawOperation,
    index: &Index<'_>,
    diagnostics: &mut Diagnostics,
) -> Option<Operation> {
    let origin = &raw.origin;
    let Some(method) = Method::parse(&raw.method) else {
        diagnostics.push(invalid(
            origin,
            format!("expected an HTTP method, found {:?}", raw.method),
        ));
        return None;
    };
    let parts = match parse_template(&raw.path) {
        Ok(parts) => parts,
        Err(message) => {
            diagnostics.push(invalid(
                origin,
                format!("in the path `{}`: {message}", raw.path),
            ));
            return None;
        }
    };
    let template = PathTemplate {
        text: raw.path.clone(),
        parts,
    };
    let value = raw.value.as_object()?;
    let parsed = parse_path(&raw.path);

    let id = match value.get("operationId") {
        Some(Value::String(id)) if !id.is_empty() => id.clone(),
        None => fallback_id(method, &raw.path),
        Some(other) => {
            diagnostics.push(invalid(
                &origin.child("operationId"),
                format!("expected a non-empty string, found {}", json_type(other)),
            ));
            return None;
        }
    };

    let action_value = value.get("x-kubernetes-action");
    let action = match action_value {
        Some(Value::String(text)) => match Action::parse(text) {
            Some(action) => action,
            None => {
                diagnostics.push(invalid(
                    &origin.child("x-kubernetes-action"),
                    format!(
                        "expected one of get, list, watch, watchlist, post, put, patch, delete, deletecollection or connect, found {text:?}"
                    ),
                ));
                return None;
            }
        },
        _ => infer_action(method, parsed.as_ref()),
    };

    // Parameters: the path item's, overridden by the operation's of the same name and place.
    let empty = Vec::new();
    let op_list = match value.get("parameters") {
        None | Some(Value::Null) => &empty,
        Some(Value::Array(list)) => list,
        Some(other) => {
            diagnostics.push(invalid(
                &origin.child("parameters"),
                format!(
                    "expected an array of parameters, found {}",
                    json_type(other)
                ),
            ));
            return None;
        }
    };
    let item_origin = parent_origin(origin).child("parameters");
    let mut params: BTreeMap<(&str, &str), RawParam<'_>> = BTreeMap::new();
    for param in read_params(&raw.path_parameters, &item_origin, diagnostics) {
        params.insert((param.location, param.name), param);
    }
    let mut own = BTreeSet::new();
    for param in read_params(op_list, &origin.child("parameters"), diagnostics) {
        if !own.insert((param.location, param.name)) {
            diagnostics.push(invalid(
                &param.origin,
                format!(
                    "expected each parameter once, found `{}` ({}) twice",
                    param.name, param.location
                ),
            ));
            continue;
        }
        params.insert((param.location, param.name), param);
    }

    let template_params: Vec<&str> = template.params().collect();
    let mut ok = true;
    let mut query_params = Vec::new();
    let mut query_names = Namespace::default();
    let mut path_descriptions: BTreeMap<&str, Option<String>> = BTreeMap::new();
    for ((location, name), param) in &params {
        let description = param
            .object
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match *location {
            "path" => {
                if template_params.contains(name) {
                    path_descriptions.insert(name, description);
                } else {
                    diagnostics.push(
                        invalid(
                            &param.origin,
                            format!(
                                "expected the path parameter `{name}` to appear in the path `{}`, but it does not",
                                raw.path
                            ),
                        )
                        .with_hint(format!("add `{{{name}}}` to the path, or remove the parameter")),
                    );
                    ok = false;
                }
            }
            "query" => {
                let Some(shape) = param_shape(param, diagnostics) else {
                    ok = false;
                    continue;
                };
                query_params.push(QueryParam {
                    name: (*name).to_owned(),
                    rust_name: query_names.claim(&naming::field_name(name)),
                    shape,
                    description,
                    required: param.object.get("required") == Some(&Value::Bool(true)),
                    setter: String::new(),
                });
            }
            // Headers and cookies are the transport's business; Kubernetes declares none.
            "header" | "cookie" => {}
            other => {
                diagnostics.push(
                    invalid(
                        &param.origin.child("in"),
                        format!(
                            "expected a parameter in path, query, header or cookie, found {other:?}"
                        ),
                    )
                    .with_hint("OpenAPI v3 bodies are `requestBody`, not parameters"),
                );
                ok = false;
            }
        }
    }
    let path_params = template_params
        .iter()
        .map(|name| PathParam {
            name: (*name).to_owned(),
            rust_name: naming::field_name(name),
            description: path_descriptions.get(name).cloned().flatten(),
        })
        .collect();

    let resource = parsed.as_ref().and_then(|p| {
        let gvk_kind = value
            .get("x-kubernetes-group-version-kind")
            .and_then(|g| g.get("kind"))
            .and_then(Value::as_str);
        match index
            .by_plural
            .get(&(p.group.as_str(), p.version.as_str(), p.plural.as_str()))
        {
            Some(id) => {
                let r = &index.resources[id];
                Some(OperationResource {
                    id: Some(*id),
                    gvk: r.gvk.clone(),
                    plural: r.plural.clone(),
                    subresource: p.subresource.clone(),
                    scope: r.scope,
                })
            }
            None => gvk_kind.map(|kind| OperationResource {
                id: None,
                gvk: Gvk {
                    group: p.group.clone(),
                    version: p.version.clone(),
                    kind: kind.to_owned(),
                },
                plural: p.plural.clone(),
                subresource: p.subresource.clone(),
                scope: if p.namespaced {
                    Scope::Namespaced
                } else {
                    Scope::Cluster
                },
            }),
        }
    });
    let object = resource
        .as_ref()
        .and_then(|r| r.id)
        .map_or(Shape::Json, Shape::Ref);

    let body = match value.get("requestBody") {
        None | Some(Value::Null) => None,
        Some(request_body) => {
            let body_origin = origin.child("requestBody");
            match read_body(request_body, &body_origin, index, diagnostics) {
                Some(body) => Some(body),
                None => {
                    ok = false;
                    None
                }
            }
        }
    };

    let responses = read_responses(value, origin, index, &object, diagnostics)?;

    let deprecated = value.get("deprecated") == Some(&Value::Bool(true))
        || parsed.as_ref().is_some_and(|p| p.watch);
    let description = value
        .get("description")
        .or_else(|| value.get("summary"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let accept = accept_for(&responses);
    ok.then(|| Operation {
        id,
        method,
        path: template,
        action,
        resource,
        path_params,
        query_params,
        body,
        responses,
        accept,
        deprecated,
        description,
        names: OperationNames::default(),
        origin: origin.clone(),
    })
}

/// The origin of the path item an operation belongs to.
fn parent_origin(origin: &Origin) -> Origin {
    let pointer = origin
        .pointer
        .rsplit_once('/')
        .map_or_else(String::new, |(parent, _)| parent.to_owned());
    Origin {
        file: origin.file.clone(),
        pointer,
    }
}

/// An operation ID for operations without one: the method and the path's words.
fn fallback_id(method: Method, path: &str) -> String {
    let mut id = method.as_str().to_ascii_lowercase();
    for word in path.split(|c: char| !c.is_ascii_alphanumeric()) {
        id.push_str(&capitalize(word));
    }
    id
}

fn infer_action(method: Method, path: Option<&super::resources::ResourcePath>) -> Action {
    let named = path.is_some_and(|p| p.named);
    let watch = path.is_some_and(|p| p.watch);
    match method {
        Method::Get if watch => Action::Watch,
        Method::Get if named || path.is_none() => Action::Get,
        Method::Get => Action::List,
        Method::Post if named => Action::Connect,
        Method::Post => Action::Create,
        Method::Put => Action::Replace,
        Method::Patch => Action::Patch,
        Method::Delete if named || path.is_none() => Action::Delete,
        Method::Delete => Action::DeleteCollection,
        Method::Head | Method::Options | Method::Trace => Action::Connect,
    }
}

/// The type of a query parameter (v3 `schema`, or a Swagger-style `type` left in place).
fn param_shape(param: &RawParam<'_>, diagnostics: &mut Diagnostics) -> Option<Shape> {
    let (schema, origin) = match param.object.get("schema") {
        Some(Value::Object(schema)) => (schema, param.origin.child("schema")),
        _ => (param.object, param.origin.clone()),
    };
    let shape = scalar_shape(schema).or_else(|| {
        (schema.get("type").and_then(Value::as_str) == Some("array"))
            .then(|| {
                schema
                    .get("items")
                    .and_then(Value::as_object)
                    .map_or(Some(Shape::String), scalar_shape)
            })
            .flatten()
            .map(|item| Shape::Vec(Box::new(item)))
    });
    if shape.is_none() {
        diagnostics.push(
            Diagnostic::new(
                ErrorKind::UnsupportedSchema,
                &origin,
                format!(
                    "expected the query parameter `{}` to be a string, integer, number, boolean or an array of them",
                    param.name
                ),
            ),
        );
    }
    shape
}

fn scalar_shape(schema: &Map<String, Value>) -> Option<Shape> {
    let format = schema.get("format").and_then(Value::as_str);
    match schema.get("type").and_then(Value::as_str) {
        Some("string") | None => Some(Shape::String),
        Some("integer") if format == Some("int32") => Some(Shape::I32),
        Some("integer") => Some(Shape::I64),
        Some("number") => Some(Shape::F64),
        Some("boolean") => Some(Shape::Bool),
        _ => None,
    }
}

/// The shape of a body or response schema: a named type, or an inline scalar or list.
fn schema_shape(
    schema: &Value,
    origin: &Origin,
    index: &Index<'_>,
    diagnostics: &mut Diagnostics,
) -> Option<Shape> {
    let Some(object) = schema.as_object() else {
        diagnostics.push(invalid(
            origin,
            format!("expected a schema object, found {}", json_type(schema)),
        ));
        return None;
    };
    if let Some(reference) = object.get("$ref") {
        let text = reference.as_str().unwrap_or_default();
        let name = ["#/components/schemas/", "#/definitions/"]
            .iter()
            .find_map(|prefix| text.strip_prefix(prefix))
            .map(|name| name.replace("~1", "/").replace("~0", "~"));
        return match name.as_deref().and_then(|n| index.by_schema.get(n)) {
            Some(id) => Some(Shape::Ref(*id)),
            None => {
                diagnostics.push(
                    Diagnostic::new(
                        ErrorKind::DanglingRef,
                        &origin.child("$ref"),
                        format!("expected `{text}` to name a schema, but there is no such schema"),
                    )
                    .with_hint("add the schema to an input document, or fix the reference"),
                );
                None
            }
        };
    }
    Some(match object.get("type").and_then(Value::as_str) {
        Some("array") => {
            let item = match object.get("items") {
                Some(items) => schema_shape(items, &origin.child("items"), index, diagnostics)?,
                None => Shape::Json,
            };
            Shape::Vec(Box::new(item))
        }
        _ => scalar_shape(object)
            .filter(|_| object.contains_key("type"))
            .unwrap_or(Shape::Json),
    })
}

/// A content map's media types, sorted, and the schema of the preferred one with its origin.
type Content<'v> = (Vec<String>, Option<(&'v Value, Origin)>);

/// The content map's types, sorted, and the schema of the preferred one (JSON, else the first).
fn content<'v>(
    node: &'v Map<String, Value>,
    origin: &Origin,
    diagnostics: &mut Diagnostics,
) -> Option<Content<'v>> {
    let content_origin = origin.child("content");
    let map = match node.get("content") {
        None | Some(Value::Null) => return Some((Vec::new(), None)),
        Some(Value::Object(map)) => map,
        Some(other) => {
            diagnostics.push(invalid(
                &content_origin,
                format!(
                    "expected an object of media types, found {}",
                    json_type(other)
                ),
            ));
            return None;
        }
    };
    let mut types: Vec<String> = map.keys().cloned().collect();
    types.sort();
    let preferred = map
        .get_key_value("application/json")
        .or_else(|| map.iter().next());
    let schema = preferred.and_then(|(media, entry)| {
        entry
            .get("schema")
            .map(|schema| (schema, content_origin.child(media).child("schema")))
    });
    Some((types, schema))
}

fn read_body(
    value: &Value,
    origin: &Origin,
    index: &Index<'_>,
    diagnostics: &mut Diagnostics,
) -> Option<Body> {
    let Some(object) = value.as_object() else {
        diagnostics.push(invalid(
            origin,
            format!("expected a request body object, found {}", json_type(value)),
        ));
        return None;
    };
    let (content_types, schema) = content(object, origin, diagnostics)?;
    let shape = match schema {
        Some((schema, schema_origin)) => schema_shape(schema, &schema_origin, index, diagnostics)?,
        None => Shape::Json,
    };
    let kind = if content_types
        .iter()
        .any(|t| PATCH_CONTENT_TYPES.contains(&t.as_str()))
    {
        BodyKind::Patch
    } else {
        BodyKind::Json
    };
    Some(Body {
        shape,
        kind,
        content_types,
        required: object.get("required") == Some(&Value::Bool(true)),
    })
}

fn read_responses(
    value: &Map<String, Value>,
    origin: &Origin,
    index: &Index<'_>,
    object: &Shape,
    diagnostics: &mut Diagnostics,
) -> Option<Vec<Response>> {
    let responses_origin = origin.child("responses");
    let map = match value.get("responses") {
        None | Some(Value::Null) => return Some(Vec::new()),
        Some(Value::Object(map)) => map,
        Some(other) => {
            diagnostics.push(invalid(
                &responses_origin,
                format!(
                    "expected an object of responses, found {}",
                    json_type(other)
                ),
            ));
            return None;
        }
    };
    let mut responses = Vec::new();
    let mut ok = true;
    for (code, response) in map {
        let response_origin = responses_origin.child(code);
        // `default` and ranges (`2XX`) describe no particular status; decoders treat
        // undeclared statuses as errors, which is what they mean in Kubernetes.
        if code == "default" || code.ends_with("XX") {
            continue;
        }
        let Some(status) = code.parse::<u16>().ok().filter(|s| (100..600).contains(s)) else {
            diagnostics.push(invalid(
                &response_origin,
                format!("expected an HTTP status code, found {code:?}"),
            ));
            ok = false;
            continue;
        };
        let Some(response) = response.as_object() else {
            diagnostics.push(invalid(
                &response_origin,
                format!("expected a response object, found {}", json_type(response)),
            ));
            ok = false;
            continue;
        };
        let Some((content_types, schema)) = content(response, &response_origin, diagnostics) else {
            ok = false;
            continue;
        };
        let body = match schema {
            None => ResponseBody::Empty,
            Some((schema, schema_origin)) => {
                let Some(shape) = schema_shape(schema, &schema_origin, index, diagnostics) else {
                    ok = false;
                    continue;
                };
                let textual = content_types
                    .iter()
                    .any(|t| t == "text/plain" || t == "*/*")
                    || !content_types.iter().any(|t| t == "application/json");
                if index.is_watch_event(&shape) {
                    ResponseBody::Watch(object.clone())
                } else if shape == Shape::String && textual {
                    ResponseBody::Text
                } else {
                    ResponseBody::Json(shape)
                }
            }
        };
        responses.push(Response {
            status,
            description: response
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            body,
            content_types,
        });
    }
    responses.sort_by_key(|r| r.status);
    ok.then_some(responses)
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

/// The operation ID without its group-version part, the way Kubernetes clients name
/// operations: `readCoordinationV1NamespacedLease` → `readNamespacedLease`.
fn short_id(op: &Operation) -> String {
    let verb_len = op
        .id
        .find(|c: char| c.is_ascii_uppercase())
        .unwrap_or(op.id.len());
    let (verb, rest) = op.id.split_at(verb_len);
    if let Some(resource) = &op.resource {
        let token = group_version_token(&resource.gvk.group, &resource.gvk.version);
        if let Some(rest) = rest.strip_prefix(&token).filter(|r| !r.is_empty()) {
            return format!("{verb}{rest}");
        }
    }
    op.id.clone()
}

/// The names of the query structs shared by operations, by operation index: operations
/// whose optional query parameters are the same (names, types) take one struct, in the routes
/// module. Kubernetes 1.36 has 1,058 operations with optional parameters but 10 distinct sets
/// of them; one struct per operation was most of the generated routes code.
///
/// A struct is named after the actions of its operations (`ListOrWatchQuery`,
/// `CreateOrReplaceQuery`, `PatchQuery`); the largest set claims that name first, and a set
/// whose name is taken gets a number (`ConnectQuery2`): documents that differ, such as
/// OpenShift's and Kubernetes' list parameters, give one action several sets.
fn shared_query_names(
    operations: &[Operation],
    names: &mut Namespace,
) -> BTreeMap<usize, (String, String)> {
    type Key<'a> = Vec<(&'a str, &'a Shape)>;
    let mut sets: indexmap::IndexMap<Key<'_>, Vec<usize>> = indexmap::IndexMap::new();
    for (index, op) in operations.iter().enumerate() {
        let key: Key<'_> = op
            .query_params
            .iter()
            .filter(|q| !q.required)
            .map(|q| (q.name.as_str(), &q.shape))
            .collect();
        if !key.is_empty() {
            sets.entry(key).or_default().push(index);
        }
    }
    let mut shared: Vec<Vec<usize>> = sets.into_values().filter(|ops| ops.len() > 1).collect();
    // Largest first, then in order of first use: a stable order for claiming names.
    shared.sort_by_key(|ops| std::cmp::Reverse(ops.len()));
    let mut result = BTreeMap::new();
    for ops in shared {
        let actions: std::collections::BTreeSet<Action> =
            ops.iter().map(|&i| operations[i].action).collect();
        let by_action = format!(
            "{}Query",
            actions
                .iter()
                .map(|a| a.variant())
                .collect::<Vec<_>>()
                .join("Or")
        );
        let query = names.claim(&by_action);
        let builder = names.claim(&naming::builder_type_name(&query));
        for index in ops {
            result.insert(index, (query.clone(), builder.clone()));
        }
    }
    result
}

/// Names every operation: route variants are unique in the API, functions per owner (the
/// resource type, or the routes module), query and response types per module, next to the
/// types already there.
fn assign_names(operations: &mut [Operation], types: &[TypeDef]) {
    let mut variants = Namespace::default();
    let mut functions: BTreeMap<Option<TypeId>, Namespace> = BTreeMap::new();
    let mut modules: BTreeMap<Option<Vec<String>>, Namespace> = BTreeMap::new();
    let mut routes_names = Namespace::default();
    for name in ["Route", "ROUTES", "ResponseError", "resolve"] {
        routes_names.reserve(name);
    }
    let shared = shared_query_names(operations, &mut routes_names);
    modules.insert(None, routes_names);
    for (index, op) in operations.iter_mut().enumerate() {
        let owner = op.resource.as_ref().and_then(|r| r.id);
        let module = owner.map(|id| types[id.0].module.clone());
        // The routes module's namespace (`None`) was made above.
        let type_names = modules.entry(module.clone()).or_insert_with(|| {
            let mut names = Namespace::default();
            if let Some(module) = &module {
                for ty in types.iter().filter(|t| &t.module == module) {
                    names.reserve(&ty.name);
                }
            }
            names
        });
        let short = short_id(op);
        let camel = naming::type_name(&short);
        if let Some((query, builder)) = shared.get(&index) {
            op.names.query = Some(query.clone());
            op.names.query_builder = Some(builder.clone());
            op.names.query_shared = true;
        } else {
            op.names.query = op
                .query_params
                .iter()
                .any(|q| !q.required)
                .then(|| type_names.claim(&format!("{}Query", camel.trim_end_matches('_'))));
            op.names.query_builder = op
                .names
                .query
                .as_ref()
                .map(|query| type_names.claim(&naming::builder_type_name(query)));
        }
        let optional: Vec<String> = op
            .query_params
            .iter()
            .filter(|q| !q.required)
            .map(|q| q.rust_name.clone())
            .collect();
        let setters = super::builders::setter_names(&optional);
        for (param, setter) in op
            .query_params
            .iter_mut()
            .filter(|q| !q.required)
            .zip(setters)
        {
            param.setter = setter;
        }
        let successes: Vec<&ResponseBody> = op
            .responses
            .iter()
            .filter(|r| r.is_success())
            .map(|r| &r.body)
            .collect();
        op.names.response = successes
            .iter()
            .any(|b| *b != successes[0])
            .then(|| type_names.claim(&format!("{}Response", camel.trim_end_matches('_'))));
        op.names.variant = variants.claim(&naming::type_name(&op.id));
        let functions = functions.entry(owner).or_default();
        let function = functions.claim(&naming::snake_name(&short));
        op.names.decoder = functions.claim(&format!("{}_response", function.trim_end_matches('_')));
        op.names.function = function;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates() {
        let parts = parse_template("/api/v1/namespaces/{namespace}/pods/{name}/log").unwrap();
        assert_eq!(
            parts,
            vec![
                PathPart::Literal("/api/v1/namespaces/".into()),
                PathPart::Param("namespace".into()),
                PathPart::Literal("/pods/".into()),
                PathPart::Param("name".into()),
                PathPart::Literal("/log".into()),
            ]
        );
        assert!(parse_template("/a/{x}.json").is_err());
        assert!(parse_template("/a/{x}/{x}").is_err());
        assert!(parse_template("/a/{}").is_err());
        assert!(parse_template("a/b").is_err());
        assert_eq!(
            parse_template("/").unwrap(),
            vec![PathPart::Literal("/".into())]
        );
    }

    #[test]
    fn group_version_tokens() {
        assert_eq!(group_version_token("", "v1"), "CoreV1");
        assert_eq!(
            group_version_token("coordination.k8s.io", "v1"),
            "CoordinationV1"
        );
        assert_eq!(
            group_version_token("image.openshift.io", "v1"),
            "ImageOpenshiftIoV1"
        );
        assert_eq!(
            group_version_token("rbac.authorization.k8s.io", "v1beta1"),
            "RbacAuthorizationV1beta1"
        );
    }
}
