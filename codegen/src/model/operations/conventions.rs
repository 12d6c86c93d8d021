//! Kubernetes' conventions: the table Kubernetes serves for a resource that no path
//! describes (a CRD), and the standard query parameters.

use super::names::{capitalize, group_version_token};
use super::template::parse_template;
use super::{
    Action, Body, BodyKind, Index, Method, Operation, OperationNames, OperationResource, PathParam,
    PathPart, PathTemplate, QueryParam, Response, ResponseBody, STATUS, accept_for,
};
use crate::diagnostics::Origin;
use crate::model::naming;
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

/// The `GroupVersion` part of Kubernetes operation IDs: `Core` + `V1`,

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
