//! Kubernetes' conventions: the table Kubernetes serves for a resource that no path
//! describes (a CRD), the standard query parameters, and the group-version token of its
//! operation IDs (`readCoordinationV1NamespacedLease`).

use super::{
    Action, Body, BodyKind, Index, ListWatch, Method, Operation, OperationNames, OperationResource,
    PathParam, PathPart, PathTemplate, QueryParam, Response, ResponseBody, STATUS, accept_for,
};
use crate::diagnostics::Origin;
use crate::ground::naming::{self, status_variant};
use crate::model::{Resource, Scope, Shape, TypeId};

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

/// What synthesizing one resource's table needs: the resource, its path prefix and the
/// group-version token of its operation IDs.
struct Synth<'a> {
    index: &'a Index<'a>,
    id: TypeId,
    resource: &'a Resource,
    origin: Origin,
    gv: String,
    prefix: String,
}

pub(super) fn synthesize_with(
    index: &Index<'_>,
    id: TypeId,
    resource: &Resource,
) -> Vec<Operation> {
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
        // Made from a plural and fixed words, the template always parses; a plural that
        // breaks it would have been refused with its resource.
        let path = PathTemplate::parse(&text).unwrap_or_else(|_| PathTemplate {
            text: text.clone(),
            parts: Vec::new(),
            segments: Vec::new(),
        });
        let kind = &self.resource.gvk.kind;
        let path_params = path
            .parts
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
                constant: String::new(),
            })
            .collect();
        let mut all_responses: Vec<Response> = responses
            .iter()
            .map(|(status, description, body, types)| Response {
                status: *status,
                description: (*description).to_owned(),
                body: body.clone(),
                content_types: types.iter().map(|t| (*t).to_owned()).collect(),
                variant: status_variant(*status),
                declared: None,
            })
            .collect();
        all_responses.push(Response {
            status: 401,
            description: "Unauthorized".to_owned(),
            body: ResponseBody::Empty,
            content_types: Vec::new(),
            variant: status_variant(401),
            declared: None,
        });
        let accept = accept_for(&all_responses);
        Operation {
            id: id.replace("{gv}", &self.gv),
            method,
            deprecated: text.contains("/watch/"),
            path,
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
            watch: None,
            slash_optional: false,
            names: OperationNames::default(),
            origin: self.origin.clone(),
        }
    }
}

/// The parameters of a watch on a list path: the list's without `watch` and paging.
const WATCH_PARAMS: &[&str] = &[
    "allowWatchBookmarks",
    "fieldSelector",
    "labelSelector",
    "pretty",
    "resourceVersion",
    "resourceVersionMatch",
    "sendInitialEvents",
    "timeoutSeconds",
];
/// The parameters Kubernetes' get operations have had (`exact` and `export` until 1.18).
const GET_PARAMS: &[&str] = &["exact", "export", "pretty"];

/// The convention class a set of optional query parameters (sorted names) belongs to, and
/// the class's standard set, the one synthesized routes take: what names a shared query
/// struct (`names::SharedQuery`). Each class is recognised by a parameter only it has, so a
/// set older or newer than the standard one stays in its class, as long as it has at least
/// half of the standard set (an exec's lone `tty` is no attach set); a get's set has only
/// a get's parameters (`pods/log`'s is none).
pub(super) fn query_class(names: &[&str]) -> Option<(&'static str, &'static [&'static str])> {
    let (class, standard) = query_class_by_signature(names)?;
    let common = standard.iter().filter(|n| names.contains(n)).count();
    (common * 2 >= standard.len()).then_some((class, standard))
}

fn query_class_by_signature(names: &[&str]) -> Option<(&'static str, &'static [&'static str])> {
    let has = |name: &str| names.contains(&name);
    let deletes = has("gracePeriodSeconds") || has("propagationPolicy") || has("orphanDependents");
    Some(if deletes && has("labelSelector") {
        ("DeleteCollection", DELETE_COLLECTION_PARAMS)
    } else if deletes {
        ("Delete", DELETE_PARAMS)
    } else if has("watch") {
        ("ListOrWatch", LIST_PARAMS)
    } else if has("allowWatchBookmarks") || has("timeoutSeconds") || has("sendInitialEvents") {
        ("Watch", WATCH_PARAMS)
    } else if has("force") {
        ("Patch", PATCH_PARAMS)
    } else if has("fieldManager") || has("dryRun") {
        ("CreateOrReplace", WRITE_PARAMS)
    } else if has("command") {
        (
            "Exec",
            &["command", "container", "stderr", "stdin", "stdout", "tty"],
        )
    } else if has("tty") || has("stdin") {
        ("Attach", &["container", "stderr", "stdin", "stdout", "tty"])
    } else if has("ports") {
        ("PortForward", &["ports"])
    } else if names == ["path"] {
        ("Proxy", &["path"])
    } else if !names.is_empty() && names.iter().all(|n| GET_PARAMS.contains(n)) {
        ("Get", &["pretty"])
    } else {
        return None;
    })
}

/// What the operations of a class do, in words, for docs: `list`, `delete-collection`.
pub(super) fn query_class_words(class: &str) -> &'static str {
    match class {
        "DeleteCollection" => "delete-collection",
        "Delete" => "delete",
        "ListOrWatch" => "list",
        "Watch" => "watch",
        "Patch" => "patch",
        "CreateOrReplace" => "create and replace",
        "Exec" => "exec",
        "Attach" => "attach",
        "PortForward" => "port-forward",
        "Proxy" => "proxy",
        _ => "get",
    }
}

/// The docs of an operation whose `x-kubernetes-action` has no convention.
pub(super) fn other_action_note(description: Option<&str>, action: &str) -> String {
    let note = format!(
        "Its `x-kubernetes-action` is `{action}`, which is not one of Kubernetes' current actions (a legacy one such as `proxy`, or a newer one): the request and its decoder follow the declared path, parameters and responses, and the route table gives `Action::Other({action:?})`."
    );
    match description.map(str::trim).filter(|d| !d.is_empty()) {
        Some(description) => format!("{description}\n\n{note}"),
        None => note,
    }
}

/// The query parameters a list takes that make no sense for a watch of it: `watch` (the
/// watch function always sends it), and paging.
const NOT_FOR_WATCH: &[&str] = &["continue", "limit", "watch"];

/// Applies the conventions real API servers follow where the documents say otherwise or
/// nothing (the guide, `docs/src/guide/requests.md`, "Kubernetes conventions"):
///
/// - a delete answers a `Status` or the object, a delete-collection a `Status` or the list,
///   chosen by the body's `kind` (the documents declare only `Status`);
/// - a list that takes `watch` also serves a watch on its own path;
/// - the discovery paths resolve with and without their trailing slash.
pub(super) fn apply(op: &mut Operation, index: &Index<'_>) {
    delete_results(op, index);
    op.watch = list_watch(op);
    op.slash_optional = op.method == Method::Get && is_discovery_path(&op.path.text);
}

fn delete_results(op: &mut Operation, index: &Index<'_>) {
    let Some(id) = op
        .resource
        .as_ref()
        .filter(|r| r.subresource.is_none())
        .and_then(|r| r.id)
    else {
        return;
    };
    let result = match op.action {
        Action::Delete => Shape::Ref(id),
        Action::DeleteCollection => match index.list_of.get(&id) {
            Some(list) => Shape::Ref(*list),
            None => return,
        },
        _ => return,
    };
    let status = index.named(STATUS);
    if status == Shape::Json {
        return;
    }
    for response in op.responses.iter_mut().filter(|r| r.is_success()) {
        let declared = match &response.body {
            ResponseBody::Json(shape) => shape,
            _ => continue,
        };
        if *declared == status || *declared == result {
            response.declared = Some(declared.clone());
            response.body = ResponseBody::StatusOr(result.clone());
        }
    }
}

fn list_watch(op: &Operation) -> Option<ListWatch> {
    let object = op
        .resource
        .as_ref()
        .filter(|r| r.subresource.is_none())
        .and_then(|r| r.id)?;
    let takes_watch = op
        .query_params
        .iter()
        .any(|q| q.name == "watch" && !q.required);
    let required = op.query_params.iter().any(|q| q.required);
    if op.action != Action::List || op.method != Method::Get || !takes_watch || required {
        return None;
    }
    Some(ListWatch {
        query_params: op
            .query_params
            .iter()
            .filter(|q| !NOT_FOR_WATCH.contains(&q.name.as_str()))
            .cloned()
            .collect(),
        object: Shape::Ref(object),
        function: String::new(),
        decoder: String::new(),
        query: None,
        query_builder: None,
        query_arg: String::new(),
        query_shared: false,
        query_eq: true,
    })
}

/// `/api`, `/apis`, `/api/<version>`, `/apis/<group>` and `/apis/<group>/<version>`, each
/// with or without a trailing slash: the discovery documents, which the API server serves
/// either way (its mux registers both forms).
fn is_discovery_path(path: &str) -> bool {
    let path = path.strip_suffix('/').unwrap_or(path);
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let plain = |s: &&str| !s.is_empty() && !s.contains(['{', '}']);
    match segments.as_slice() {
        ["api"] | ["apis"] => true,
        ["api", version] => plain(version),
        ["apis", group] => plain(group),
        ["apis", group, version] => plain(group) && plain(version),
        _ => false,
    }
}

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

pub(super) fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::{group_version_token, is_discovery_path};

    #[test]
    fn discovery_paths() {
        for path in [
            "/api",
            "/api/",
            "/apis/",
            "/api/v1/",
            "/apis/apps/",
            "/apis/apps/v1/",
            "/apis/apps/v1",
        ] {
            assert!(is_discovery_path(path), "{path}");
        }
        for path in [
            "/",
            "/version/",
            "/api/v1/pods",
            "/apis/apps/v1/deployments",
            "/apis/{group}/",
            "/openapi/v2",
        ] {
            assert!(!is_discovery_path(path), "{path}");
        }
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
