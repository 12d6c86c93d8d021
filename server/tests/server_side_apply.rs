//! Server-side apply and field management at the HTTP level, in process: applies that create,
//! merge and prune, conflicts and `force`, the request errors a real API server gives, the
//! merge strategies of the schemas (map, set and atomic lists; granular and atomic maps and
//! structs; untyped values), the `status` subresource, dry runs, and `managedFields` as
//! updates, patches and creates record them. The expected `managedFields` of the tests named
//! `*_as_a_real_server` are what real API servers (Kubernetes 1.36) wrote for the same
//! requests, in k8s-openapi's recorded test replays.

use std::path::PathBuf;

use bytes::Bytes;
use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use kubeforge_server::{Catalog, Server};
use serde_json::{Value, json};
use tower::ServiceExt;

const PODS: &str = "/api/v1/namespaces/default/pods";
const APPLY: &str = "application/apply-patch+yaml";
const MERGE: &str = "application/merge-patch+json";
const KUBECTL: &str = "kubectl/v1.32.4 (linux/amd64) kubernetes/2e4d3a0";

fn committed_schemas() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

fn server() -> Server {
    Server::new(Catalog::from_documents(&committed_schemas()).unwrap())
}

/// One request; the answer's code and JSON body.
async fn send(
    server: &Server,
    method: Method,
    uri: &str,
    content_type: &str,
    user_agent: Option<&str>,
    body: &str,
) -> (u16, Value) {
    let mut request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", content_type);
    if let Some(agent) = user_agent {
        request = request.header("user-agent", agent);
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_owned())))
        .unwrap();
    let response = server.clone().oneshot(request).await.unwrap();
    let code = response.status().as_u16();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (code, serde_json::from_slice(&bytes).unwrap())
}

/// An apply by `manager` of `config` to the pod `name`.
async fn apply(
    server: &Server,
    path: &str,
    manager: &str,
    force: bool,
    config: &Value,
) -> (u16, Value) {
    let uri = format!("{path}?fieldManager={manager}&force={force}");
    send(
        server,
        Method::PATCH,
        &uri,
        APPLY,
        None,
        &config.to_string(),
    )
    .await
}

/// A create (a POST to `uri`, which may carry a query) with a User-Agent.
async fn create(server: &Server, uri: &str, agent: Option<&str>, body: &Value) -> (u16, Value) {
    send(
        server,
        Method::POST,
        uri,
        "application/json",
        agent,
        &body.to_string(),
    )
    .await
}

/// A JSON merge patch of `uri` (which may carry a query) with a User-Agent.
async fn merge_patch(server: &Server, uri: &str, agent: Option<&str>, patch: &str) -> (u16, Value) {
    send(server, Method::PATCH, uri, MERGE, agent, patch).await
}

async fn get(server: &Server, path: &str) -> Value {
    let (code, object) = send(server, Method::GET, path, "application/json", None, "").await;
    assert_eq!(code, 200, "{object}");
    object
}

fn pod(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})
}

const TEMPLATES: &str = "/api/v1/namespaces/default/podtemplates";

/// A PodTemplate: a pod spec whose containers, unlike a Pod's, may be added, removed and
/// changed (`ValidatePodUpdate` refuses that for a Pod).
fn template(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": name}, "template": {"spec": spec}})
}

/// The fields `manager` owns (through `operation`), or null.
fn owned(object: &Value, manager: &str, operation: &str) -> Value {
    object
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|e| e["manager"] == manager && e["operation"] == operation)
        .map_or(Value::Null, |e| e["fieldsV1"].clone())
}

/// The managers of an object, as `(manager, operation, subresource)`, in the stored order.
fn managers(object: &Value) -> Vec<(String, String, String)> {
    object
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|e| {
            let text = |k: &str| e[k].as_str().unwrap_or("").to_owned();
            (text("manager"), text("operation"), text("subresource"))
        })
        .collect()
}

fn entry<'a>(object: &'a Value, manager: &str) -> &'a Value {
    object["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == manager)
        .unwrap_or_else(|| panic!("no manager {manager} in {object}"))
}

#[tokio::test]
async fn apply_creates_the_object_then_a_repeated_apply_changes_nothing() {
    let server = server();
    let config = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "nginx:1", "ports": [{"containerPort": 80}]}]}),
    );
    let (code, created) = apply(&server, &format!("{PODS}/web"), "alice", false, &config).await;
    assert_eq!(code, 201, "{created}");
    // The object is the configuration, the built-in defaults and what admission adds (the
    // default tolerations, the priority), which nobody owns.
    assert_eq!(
        created["spec"],
        json!({"containers": [{
                    "name": "app", "image": "nginx:1",
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                    "imagePullPolicy": "IfNotPresent", "resources": {},
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File"}],
               "dnsPolicy": "ClusterFirst", "enableServiceLinks": true,
               "preemptionPolicy": "PreemptLowerPriority", "priority": 0,
               "restartPolicy": "Always", "schedulerName": "default-scheduler",
               "securityContext": {}, "terminationGracePeriodSeconds": 30,
               "tolerations": [
                   {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
                   {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300}]})
    );
    let alice = entry(&created, "alice");
    assert_eq!(alice["operation"], "Apply");
    assert_eq!(alice["apiVersion"], "v1");
    assert_eq!(alice["fieldsType"], "FieldsV1");
    assert!(alice["time"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert!(alice.get("subresource").is_none());
    // The port's key includes the protocol's default, as the API server writes it.
    assert_eq!(
        alice["fieldsV1"],
        json!({"f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {
            ".": {}, "f:image": {}, "f:name": {},
            "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}}},
        }}}})
    );
    let (code, again) = apply(&server, &format!("{PODS}/web"), "alice", false, &config).await;
    assert_eq!(code, 200);
    assert_eq!(again, created, "a repeated apply made a new version");
    // YAML works as well as JSON.
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels:\n    tier: front\n";
    let (code, labelled) = send(
        &server,
        Method::PATCH,
        &format!("{PODS}/web?fieldManager=bob"),
        APPLY,
        None,
        yaml,
    )
    .await;
    assert_eq!(code, 200, "{labelled}");
    assert_eq!(labelled["metadata"]["labels"], json!({"tier": "front"}));
    assert_eq!(
        owned(&labelled, "bob", "Apply"),
        json!({"f:metadata": {"f:labels": {"f:tier": {}}}})
    );
}

#[tokio::test]
async fn apply_request_errors_are_the_api_servers() {
    let server = server();
    let config = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "nginx:1"}]}),
    );
    let uri = format!("{PODS}/web");
    let (code, status) = send(
        &server,
        Method::PATCH,
        &uri,
        APPLY,
        None,
        &config.to_string(),
    )
    .await;
    assert_eq!(code, 422);
    assert_eq!(
        status,
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
            "reason": "Invalid",
            "details": {"group": "meta.k8s.io", "kind": "PatchOptions", "causes": [
                {"reason": "FieldValueRequired", "message": "Required value: is required for apply patch", "field": "fieldManager"},
            ]},
            "code": 422,
        })
    );
    let long = "m".repeat(129);
    let (code, status) = apply(&server, &uri, &long, false, &config).await;
    assert_eq!(code, 422);
    assert_eq!(
        status["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be more than 128 bytes"
    );
    // Nothing was created by the refused requests.
    let (code, _) = send(&server, Method::GET, &uri, "", None, "").await;
    assert_eq!(code, 404);

    let (code, created) = apply(&server, &uri, "alice", false, &config).await;
    assert_eq!(code, 201, "{created}");
    let (code, status) = merge_patch(&server, &format!("{uri}?force=true"), None, "{}").await;
    assert_eq!(code, 422);
    assert_eq!(
        status["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch"
    );
    let mut with_fields = config.clone();
    with_fields["metadata"]["managedFields"] = json!([]);
    let (code, status) = apply(&server, &uri, "alice", false, &with_fields).await;
    assert_eq!((code, status["reason"].as_str()), (400, Some("BadRequest")));
    assert_eq!(status["message"], "metadata.managedFields must be nil");
    let lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "web"}});
    let (code, status) = apply(&server, &uri, "alice", false, &lease).await;
    assert_eq!(code, 400);
    assert_eq!(
        status["message"],
        "invalid object type: coordination.k8s.io/v1, Kind=Lease"
    );
    let (code, status) = apply(&server, &uri, "alice", false, &json!({})).await;
    assert_eq!(
        (code, status["message"].as_str()),
        (400, Some("invalid object type: /, Kind="))
    );
    // A field the schema does not declare, and a duplicated map-list key: the API server
    // answers 500 (its typed conversion fails), with no reason.
    let unknown = pod("web", json!({"bogus": 1}));
    let (code, status) = apply(&server, &uri, "alice", false, &unknown).await;
    assert_eq!(code, 500);
    assert!(status.get("reason").is_none(), "{status}");
    assert_eq!(
        status["message"],
        "failed to create typed patch object (/web; /v1, Kind=Pod): .spec.bogus: field not declared in schema"
    );
    let twice = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "a"}, {"name": "app", "image": "b"}]}),
    );
    let (code, status) = apply(&server, &uri, "alice", false, &twice).await;
    assert_eq!(code, 500);
    assert_eq!(
        status["message"],
        "failed to create typed patch object (/web; /v1, Kind=Pod): .spec.containers: duplicate entries for key [name=\"app\"]"
    );
    let mut elsewhere = config.clone();
    elsewhere["metadata"]["namespace"] = json!("elsewhere");
    let (code, status) = apply(&server, &uri, "alice", false, &elsewhere).await;
    assert_eq!(
        (code, status["reason"].as_str()),
        (400, Some("BadRequest")),
        "{status}"
    );
    let other = pod("other", json!({}));
    let (code, status) = apply(&server, &uri, "alice", false, &other).await;
    assert_eq!(code, 400);
    assert_eq!(
        status["message"],
        "the name of the object (other) does not match the name on the URL (web)"
    );
    let (code, status) = send(
        &server,
        Method::PATCH,
        &format!("{uri}?fieldManager=a"),
        APPLY,
        None,
        "[1]",
    )
    .await;
    assert_eq!(code, 400);
    assert_eq!(
        status["message"],
        "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}"
    );
    let (code, status) = send(
        &server,
        Method::PATCH,
        &format!("{uri}?fieldManager=a"),
        "application/apply-patch+cbor",
        None,
        "\u{a0}",
    )
    .await;
    assert_eq!(
        (code, status["reason"].as_str()),
        (415, Some("UnsupportedMediaType"))
    );
    // The status subresource of an object that does not exist is not created.
    let (code, _) = apply(
        &server,
        &format!("{PODS}/nothing/status"),
        "alice",
        false,
        &pod("nothing", json!({})),
    )
    .await;
    assert_eq!(code, 404);
    let mut with_uid = pod(
        "fresh",
        json!({"containers": [{"name": "a", "image": "a"}]}),
    );
    with_uid["metadata"]["uid"] = json!("1234");
    let (code, status) = apply(&server, &format!("{PODS}/fresh"), "alice", false, &with_uid).await;
    assert_eq!(code, 409);
    assert_eq!(
        status["message"],
        "Operation cannot be fulfilled on pods \"fresh\": uid mismatch: the provided object specified uid 1234, and no existing object was found"
    );
    // An apply with a stale resourceVersion is refused.
    let mut stale = config.clone();
    stale["metadata"]["resourceVersion"] = json!("1");
    let (code, _) = apply(&server, &uri, "alice", false, &config).await;
    assert_eq!(code, 200);
    let (code, _) = merge_patch(
        &server,
        &format!("{uri}?fieldManager=x"),
        None,
        r#"{"metadata":{"labels":{"a":"b"}}}"#,
    )
    .await;
    assert_eq!(code, 200);
    let (code, status) = apply(&server, &uri, "alice", false, &stale).await;
    assert_eq!((code, status["reason"].as_str()), (409, Some("Conflict")));
}

#[tokio::test]
async fn conflicts_name_each_field_and_its_manager_and_force_takes_them() {
    let server = server();
    let uri = format!("{PODS}/web");
    let body = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "nginx:1"}], "activeDeadlineSeconds": 30}),
    );
    // Created with kubectl's User-Agent and no fieldManager: the manager is `kubectl`.
    let (code, created) = create(&server, PODS, Some(KUBECTL), &body).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        managers(&created),
        [("kubectl".into(), "Update".into(), String::new())]
    );
    let change = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "nginx:2"}]}),
    );
    let (code, status) = apply(&server, &uri, "alice", false, &change).await;
    assert_eq!(code, 409);
    assert_eq!(
        status,
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "Apply failed with 1 conflict: conflict with \"kubectl\" using v1: .spec.containers[name=\"app\"].image",
            "reason": "Conflict",
            "details": {"causes": [{
                "reason": "FieldManagerConflict",
                "message": "conflict with \"kubectl\" using v1",
                "field": ".spec.containers[name=\"app\"].image",
            }]},
            "code": 409,
        })
    );
    let both = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "nginx:2"}], "activeDeadlineSeconds": 20}),
    );
    let (code, status) = apply(&server, &uri, "alice", false, &both).await;
    assert_eq!(code, 409);
    assert_eq!(
        status["message"],
        "Apply failed with 2 conflicts: conflicts with \"kubectl\" using v1:\n- .spec.activeDeadlineSeconds\n- .spec.containers[name=\"app\"].image"
    );
    assert_eq!(status["details"]["causes"].as_array().unwrap().len(), 2);
    // Applying the value that is there is no conflict: the field is shared.
    let same = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "nginx:1"}]}),
    );
    let (code, shared) = apply(&server, &uri, "alice", false, &same).await;
    assert_eq!(code, 200, "{shared}");
    let image = |object: &Value, manager: &str, operation: &str| {
        owned(object, manager, operation)
            .pointer("/f:spec/f:containers/k:{\"name\":\"app\"}/f:image")
            .is_some()
    };
    assert!(image(&shared, "alice", "Apply") && image(&shared, "kubectl", "Update"));
    // Forced, the value changes and only alice owns it.
    let (code, forced) = apply(&server, &uri, "alice", true, &both).await;
    assert_eq!(code, 200, "{forced}");
    assert_eq!(forced["spec"]["containers"][0]["image"], "nginx:2");
    assert_eq!(forced["spec"]["activeDeadlineSeconds"], 20);
    assert!(image(&forced, "alice", "Apply"));
    assert!(!image(&forced, "kubectl", "Update"));
    assert!(
        owned(&forced, "kubectl", "Update")
            .pointer("/f:spec/f:activeDeadlineSeconds")
            .is_none()
    );
    // An update is never refused: it takes the field from the applier.
    let (code, edited) = merge_patch(
        &server,
        &format!("{uri}?fieldManager=kubectl-edit"),
        None,
        r#"{"spec":{"activeDeadlineSeconds":15}}"#,
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(
        owned(&edited, "kubectl-edit", "Update"),
        json!({"f:spec": {"f:activeDeadlineSeconds": {}}})
    );
    assert!(
        owned(&edited, "alice", "Apply")
            .pointer("/f:spec/f:activeDeadlineSeconds")
            .is_none()
    );
}

#[tokio::test]
async fn a_field_no_longer_applied_is_removed_unless_another_manager_owns_it() {
    // The committed core/v1 document has no PodTemplates: the corpus's does.
    let Some(server) = corpus_server(
        "a_field_no_longer_applied_is_removed_unless_another_manager_owns_it",
        &["api__v1_openapi.json"],
    ) else {
        return;
    };
    let uri = format!("{PODS}/web");
    let labels = |labels: Value| {
        let mut config = pod(
            "web",
            json!({"containers": [{"name": "app", "image": "a"}]}),
        );
        config["metadata"]["labels"] = labels;
        config
    };
    let (code, _) = apply(
        &server,
        &uri,
        "alice",
        false,
        &labels(json!({"a": "1", "b": "2", "c": "3"})),
    )
    .await;
    assert_eq!(code, 201);
    // Bob shares `b`; a merge patch by `kubectl-label` takes `c`.
    let mut bob = pod("web", json!({}));
    bob["metadata"]["labels"] = json!({"b": "2"});
    let (code, _) = apply(&server, &uri, "bob", false, &bob).await;
    assert_eq!(code, 200);
    let (code, _) = merge_patch(
        &server,
        &format!("{uri}?fieldManager=kubectl-label"),
        None,
        r#"{"metadata":{"labels":{"c":"4"}}}"#,
    )
    .await;
    assert_eq!(code, 200);
    // Alice drops all three labels: `a` goes, `b` (Bob's) and `c` (the updater's) stay.
    let (code, object) = apply(&server, &uri, "alice", false, &labels(json!({}))).await;
    assert_eq!(code, 200, "{object}");
    assert_eq!(object["metadata"]["labels"], json!({"b": "2", "c": "4"}));
    // Bob drops `b`, the last owner: it goes.
    let nothing = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}});
    let (code, object) = apply(&server, &uri, "bob", false, &nothing).await;
    assert_eq!(code, 200);
    assert_eq!(object["metadata"]["labels"], json!({"c": "4"}));
    assert!(owned(&object, "bob", "Apply").is_null(), "{object}");
    // A container alice stops applying goes with everything in it (in a PodTemplate: a
    // Pod's containers may not be added or removed).
    let uri = format!("{TEMPLATES}/web");
    let two = template(
        "web",
        json!({"containers": [{"name": "app", "image": "a"}, {"name": "side", "image": "s", "args": ["x"]}]}),
    );
    let (code, object) = apply(&server, &uri, "alice", false, &two).await;
    assert_eq!(code, 201);
    assert_eq!(
        object["template"]["spec"]["containers"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let one = template(
        "web",
        json!({"containers": [{"name": "app", "image": "a"}]}),
    );
    let (code, object) = apply(&server, &uri, "alice", false, &one).await;
    assert_eq!(code, 200);
    assert_eq!(
        object["template"]["spec"]["containers"],
        json!([{"name": "app", "image": "a", "imagePullPolicy": "Always", "resources": {},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File"}])
    );
}

#[tokio::test]
async fn fields_nobody_owns_survive_a_prune() {
    let server = server();
    let uri = format!("{PODS}/web");
    let config = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "a"}], "hostname": "h"}),
    );
    let (code, object) = apply(&server, &uri, "alice", false, &config).await;
    assert_eq!(code, 201);
    // An update that rewrites the managed fields (as the documentation allows) leaves the
    // hostname to nobody, as a default the server filled in would be.
    let mut rewritten = object.clone();
    let fields = &mut rewritten["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"];
    fields.as_object_mut().unwrap().remove("f:hostname");
    let (code, object) = send(
        &server,
        Method::PUT,
        &format!("{uri}?fieldManager=editor"),
        "application/json",
        None,
        &rewritten.to_string(),
    )
    .await;
    assert_eq!(code, 200, "{object}");
    assert_eq!(
        managers(&object),
        [("alice".into(), "Apply".into(), String::new())]
    );
    assert!(
        owned(&object, "alice", "Apply")
            .pointer("/f:spec/f:hostname")
            .is_none()
    );
    // Alice's next apply prunes only what she applied before and gives up.
    let next = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "a"}], "activeDeadlineSeconds": 3}),
    );
    let (code, object) = apply(&server, &uri, "alice", false, &next).await;
    assert_eq!(code, 200, "{object}");
    assert_eq!(object["spec"]["hostname"], "h");
    assert_eq!(object["spec"]["activeDeadlineSeconds"], 3);
}

#[tokio::test]
async fn merge_strategies_follow_list_and_map_types() {
    // The committed core/v1 document has no PodTemplates: the corpus's does.
    let Some(server) = corpus_server(
        "merge_strategies_follow_list_and_map_types",
        &["api__v1_openapi.json"],
    ) else {
        return;
    };
    let uri = format!("{TEMPLATES}/web");
    let alice = template(
        "web",
        json!({
            "containers": [{"name": "app", "image": "a", "args": ["1", "2"], "ports": [{"containerPort": 80}]}],
            "nodeSelector": {"disk": "ssd"},
            "tolerations": [{"key": "a", "operator": "Exists"}],
        }),
    );
    let mut alice = alice;
    alice["metadata"]["finalizers"] = json!(["example.com/a"]);
    alice["metadata"]["labels"] = json!({"app": "web"});
    let (code, _) = apply(&server, &uri, "alice", false, &alice).await;
    assert_eq!(code, 201);
    // Bob adds a container, a port of alice's container (map lists, by key), a finalizer
    // (a set) and a label (a granular map): all merge item by item.
    let mut bob = template(
        "web",
        json!({
            "containers": [
                {"name": "app", "ports": [{"containerPort": 80, "protocol": "UDP"}]},
                {"name": "side", "image": "s"},
            ],
        }),
    );
    bob["metadata"]["finalizers"] = json!(["example.com/b"]);
    bob["metadata"]["labels"] = json!({"owner": "bob"});
    let (code, object) = apply(&server, &uri, "bob", false, &bob).await;
    assert_eq!(code, 200, "{object}");
    let defaults = json!({"imagePullPolicy": "Always", "resources": {},
                          "terminationMessagePath": "/dev/termination-log",
                          "terminationMessagePolicy": "File"});
    let mut app = json!({"name": "app", "image": "a", "args": ["1", "2"],
                         "ports": [{"containerPort": 80, "protocol": "TCP"},
                                   {"containerPort": 80, "protocol": "UDP"}]});
    let mut side = json!({"name": "side", "image": "s"});
    for container in [&mut app, &mut side] {
        for (k, v) in defaults.as_object().unwrap() {
            container[k] = v.clone();
        }
    }
    assert_eq!(object["template"]["spec"]["containers"], json!([app, side]));
    assert_eq!(
        object["metadata"]["finalizers"],
        json!(["example.com/a", "example.com/b"])
    );
    assert_eq!(
        object["metadata"]["labels"],
        json!({"app": "web", "owner": "bob"})
    );
    assert_eq!(
        owned(&object, "bob", "Apply"),
        json!({
            "f:metadata": {"f:finalizers": {"v:\"example.com/b\"": {}}, "f:labels": {"f:owner": {}}},
            "f:template": {"f:spec": {"f:containers": {
                "k:{\"name\":\"app\"}": {".": {}, "f:name": {}, "f:ports": {
                    "k:{\"containerPort\":80,\"protocol\":\"UDP\"}": {".": {}, "f:containerPort": {}, "f:protocol": {}},
                }},
                "k:{\"name\":\"side\"}": {".": {}, "f:image": {}, "f:name": {}},
            }}},
        })
    );
    // An atomic list (args), an atomic map (nodeSelector) and an atomic list of structs
    // (tolerations) are one field each: changing any part of them conflicts, and forcing
    // replaces them whole.
    let carol = template(
        "web",
        json!({
            "containers": [{"name": "app", "args": ["1"]}],
            "nodeSelector": {"zone": "b"},
            "tolerations": [{"key": "b", "operator": "Exists"}],
        }),
    );
    let (code, status) = apply(&server, &uri, "carol", false, &carol).await;
    assert_eq!(code, 409);
    assert_eq!(
        status["message"],
        "Apply failed with 3 conflicts: conflicts with \"alice\":\n- .template.spec.nodeSelector\n- .template.spec.tolerations\n- .template.spec.containers[name=\"app\"].args"
    );
    let (code, object) = apply(&server, &uri, "carol", true, &carol).await;
    assert_eq!(code, 200);
    assert_eq!(
        object["template"]["spec"]["containers"][0]["args"],
        json!(["1"])
    );
    assert_eq!(
        object["template"]["spec"]["nodeSelector"],
        json!({"zone": "b"})
    );
    assert_eq!(
        object["template"]["spec"]["tolerations"],
        json!([{"key": "b", "operator": "Exists"}])
    );
    assert_eq!(
        owned(&object, "carol", "Apply"),
        json!({"f:template": {"f:spec": {
            "f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:args": {}, "f:name": {}}},
            "f:nodeSelector": {},
            "f:tolerations": {},
        }}})
    );
    // An atomic struct (a volume's `configMap` is a LocalObjectReference-like struct with
    // `x-kubernetes-map-type: atomic` on its items' `secretKeyRef`) is one field too.
    let env = |value: &str| {
        template(
            "web",
            json!({"containers": [{"name": "app", "env": [
                {"name": "X", "valueFrom": {"secretKeyRef": {"name": value, "key": "k"}}},
            ]}]}),
        )
    };
    let (code, object) = apply(&server, &uri, "dave", false, &env("one")).await;
    assert_eq!(code, 200, "{object}");
    assert_eq!(
        owned(&object, "dave", "Apply").pointer(
            "/f:template/f:spec/f:containers/k:{\"name\":\"app\"}/f:env/k:{\"name\":\"X\"}/f:valueFrom"
        ),
        Some(&json!({"f:secretKeyRef": {}}))
    );
    let (code, status) = apply(&server, &uri, "erin", false, &env("two")).await;
    assert_eq!(code, 409);
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .ends_with(".valueFrom.secretKeyRef"),
        "{status}"
    );
}

#[tokio::test]
async fn the_status_subresource_owns_only_the_status() {
    let server = server();
    let uri = format!("{PODS}/web");
    let mut config = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "a"}]}),
    );
    config["status"] = json!({"phase": "Pending"});
    let (code, created) = apply(&server, &uri, "alice", false, &config).await;
    assert_eq!(code, 201);
    // The main resource neither takes nor owns the status: a created Pod's is what its
    // strategy gives it.
    assert_eq!(
        created["status"],
        json!({"phase": "Pending", "qosClass": "BestEffort"}),
        "{created}"
    );
    assert!(owned(&created, "alice", "Apply").get("f:status").is_none());
    let mut status = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "changed"}]}),
    );
    status["status"] =
        json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]});
    let (code, object) = apply(&server, &format!("{uri}/status"), "kubelet", false, &status).await;
    assert_eq!(code, 200, "{object}");
    assert_eq!(object["status"]["phase"], "Running");
    assert_eq!(object["spec"]["containers"][0]["image"], "a");
    let kubelet = entry(&object, "kubelet");
    assert_eq!(kubelet["subresource"], "status");
    assert_eq!(kubelet["operation"], "Apply");
    assert_eq!(
        kubelet["fieldsV1"],
        json!({"f:status": {"f:conditions": {"k:{\"type\":\"Ready\"}": {".": {}, "f:status": {}, "f:type": {}}}, "f:phase": {}}})
    );
    // Another status writer through the subresource conflicts with the kubelet's apply.
    let mut other = pod("web", json!({}));
    other["status"] = json!({"phase": "Failed"});
    let (code, answer) = apply(&server, &format!("{uri}/status"), "other", false, &other).await;
    assert_eq!(code, 409);
    assert_eq!(
        answer["message"],
        "Apply failed with 1 conflict: conflict with \"kubelet\" with subresource \"status\": .status.phase"
    );
}

#[tokio::test]
async fn a_dry_run_apply_answers_the_result_and_stores_nothing() {
    let server = server();
    let uri = format!("{PODS}/web");
    let config = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "a"}]}),
    );
    let (code, created) = send(
        &server,
        Method::PATCH,
        &format!("{uri}?fieldManager=a&dryRun=All"),
        APPLY,
        None,
        &config.to_string(),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    let (code, _) = send(&server, Method::GET, &uri, "", None, "").await;
    assert_eq!(code, 404);
    let (code, stored) = apply(&server, &uri, "a", false, &config).await;
    assert_eq!(code, 201);
    let changed = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "b"}]}),
    );
    let (code, answer) = send(
        &server,
        Method::PATCH,
        &format!("{uri}?fieldManager=a&dryRun=All"),
        APPLY,
        None,
        &changed.to_string(),
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(answer["spec"]["containers"][0]["image"], "b");
    assert_eq!(get(&server, &uri).await, stored);
}

#[tokio::test]
async fn updates_and_patches_are_recorded_as_update_managers() {
    let server = server();
    let uri = format!("{PODS}/web");
    let body = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "a"}]}),
    );
    // No fieldManager and no User-Agent: `unknown`.
    let (code, created) = create(&server, PODS, None, &body).await;
    assert_eq!(code, 201);
    // An update owns what the defaulters added too, as on a real server.
    assert_eq!(
        owned(&created, "unknown", "Update"),
        json!({"f:spec": {
            "f:containers": {"k:{\"name\":\"app\"}": {
                ".": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:resources": {},
                "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {}}},
            "f:dnsPolicy": {}, "f:enableServiceLinks": {}, "f:restartPolicy": {},
            "f:schedulerName": {}, "f:securityContext": {}, "f:terminationGracePeriodSeconds": {},
        }})
    );
    // The User-Agent up to its first slash.
    let (code, patched) = merge_patch(
        &server,
        &uri,
        Some(KUBECTL),
        r#"{"metadata":{"labels":{"a":"1"}}}"#,
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(
        owned(&patched, "kubectl", "Update"),
        json!({"f:metadata": {"f:labels": {".": {}, "f:a": {}}}})
    );
    // A second update by the same manager joins what it owned.
    let (code, patched) = send(
        &server,
        Method::PATCH,
        &uri,
        "application/strategic-merge-patch+json",
        Some(KUBECTL),
        r#"{"spec":{"containers":[{"name":"app","image":"b"}]}}"#,
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(
        owned(&patched, "kubectl", "Update"),
        json!({"f:metadata": {"f:labels": {".": {}, "f:a": {}}}, "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {"f:image": {}}}}})
    );
    assert!(
        owned(&patched, "unknown", "Update")
            .pointer("/f:spec/f:containers/k:{\"name\":\"app\"}/f:image")
            .is_none()
    );
    // A PUT by `kubectl-replace` removing the label: the field leaves every manager.
    let mut replaced = patched.clone();
    replaced["metadata"]["labels"] = json!({});
    replaced["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("labels");
    let (code, replaced) = send(
        &server,
        Method::PUT,
        &format!("{uri}?fieldManager=kubectl-replace"),
        "application/json",
        None,
        &replaced.to_string(),
    )
    .await;
    assert_eq!(code, 200, "{replaced}");
    assert_eq!(
        owned(&replaced, "kubectl", "Update"),
        json!({"f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {"f:image": {}}}}})
    );
    assert!(owned(&replaced, "kubectl-replace", "Update").is_null());
    // A write that changes nothing changes no managed fields (and makes no version).
    let (code, same) = merge_patch(&server, &format!("{uri}?fieldManager=idle"), None, "{}").await;
    assert_eq!(code, 200);
    assert_eq!(same, replaced);
    // Managers are sorted by operation, then time, then name.
    let (code, _) = apply(
        &server,
        &uri,
        "zed",
        false,
        &pod("web", json!({"activeDeadlineSeconds": 60})),
    )
    .await;
    assert_eq!(code, 200);
    let object = get(&server, &uri).await;
    let order = managers(&object);
    assert_eq!(order[0], ("zed".into(), "Apply".into(), String::new()));
    assert!(order[1..].iter().all(|(_, op, _)| op == "Update"));
}

#[tokio::test]
async fn cleared_managed_fields_stay_cleared_until_the_first_apply() {
    let server = server();
    let uri = format!("{PODS}/web");
    let body = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "a"}]}),
    );
    let (code, _) = create(&server, PODS, None, &body).await;
    assert_eq!(code, 201);
    // The documented reset: one empty entry (and so does an empty list).
    let (code, cleared) = merge_patch(
        &server,
        &uri,
        None,
        r#"{"metadata":{"managedFields":[{}]}}"#,
    )
    .await;
    assert_eq!(code, 200);
    assert!(
        cleared["metadata"].get("managedFields").is_none(),
        "{cleared}"
    );
    let (code, updated) = merge_patch(
        &server,
        &format!("{uri}?fieldManager=m"),
        None,
        r#"{"spec":{"activeDeadlineSeconds":60}}"#,
    )
    .await;
    assert_eq!(code, 200);
    assert!(
        updated["metadata"].get("managedFields").is_none(),
        "{updated}"
    );
    // The first apply records what was there for `before-first-apply`, so its conflicts
    // still protect those fields.
    let change = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "b"}]}),
    );
    let (code, status) = apply(&server, &uri, "alice", false, &change).await;
    assert_eq!(code, 409);
    assert_eq!(
        status["message"],
        "Apply failed with 1 conflict: conflict with \"before-first-apply\" using v1: .spec.containers[name=\"app\"].image"
    );
    let (code, applied) = apply(
        &server,
        &uri,
        "alice",
        false,
        &pod("web", json!({"activeDeadlineSeconds": 60})),
    )
    .await;
    assert_eq!(code, 200);
    // Everything the object held is `before-first-apply`'s, the untracked update included;
    // alice shares the deadline she applied with the value it has.
    assert_eq!(
        owned(&applied, "before-first-apply", "Update"),
        json!({"f:spec": {
            "f:containers": {"k:{\"name\":\"app\"}": {
                ".": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:resources": {},
                "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {}}},
            "f:activeDeadlineSeconds": {}, "f:dnsPolicy": {}, "f:enableServiceLinks": {},
            "f:preemptionPolicy": {}, "f:priority": {}, "f:restartPolicy": {},
            "f:schedulerName": {}, "f:securityContext": {}, "f:terminationGracePeriodSeconds": {},
            "f:tolerations": {},
        }})
    );
    assert_eq!(
        owned(&applied, "alice", "Apply"),
        json!({"f:spec": {"f:activeDeadlineSeconds": {}}})
    );
}

#[tokio::test]
async fn kubectl_takes_over_what_its_client_side_apply_set() {
    let server = server();
    let uri = format!("{PODS}/web");
    let mut body = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "a"}], "activeDeadlineSeconds": 9}),
    );
    let last = body.to_string();
    body["metadata"]["annotations"] =
        json!({"kubectl.kubernetes.io/last-applied-configuration": last});
    let (code, _) = create(
        &server,
        &format!("{PODS}?fieldManager=kubectl-client-side-apply"),
        None,
        &body,
    )
    .await;
    assert_eq!(code, 201);
    // Someone else changes the deadline after the client-side apply.
    let (code, _) = merge_patch(
        &server,
        &format!("{uri}?fieldManager=kubectl-edit"),
        None,
        r#"{"spec":{"activeDeadlineSeconds":8}}"#,
    )
    .await;
    assert_eq!(code, 200);
    let config = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "b"}], "activeDeadlineSeconds": 7}),
    );
    // Another manager conflicts on both fields.
    let (code, status) = apply(&server, &uri, "other", false, &config).await;
    assert_eq!(code, 409);
    assert_eq!(status["details"]["causes"].as_array().unwrap().len(), 2);
    // `kubectl` conflicts only on what the annotation does not account for.
    let (code, status) = apply(&server, &uri, "kubectl", false, &config).await;
    assert_eq!(code, 409);
    assert_eq!(
        status["message"],
        "Apply failed with 1 conflict: conflict with \"kubectl-edit\" using v1: .spec.activeDeadlineSeconds"
    );
    let without = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "b"}]}),
    );
    let (code, object) = apply(&server, &uri, "kubectl", false, &without).await;
    assert_eq!(code, 200, "{object}");
    assert_eq!(object["spec"]["containers"][0]["image"], "b");
    // The annotation now holds what kubectl applied, as Go writes it.
    assert_eq!(
        object["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"],
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\"},\"spec\":{\"containers\":[{\"image\":\"b\",\"name\":\"app\"}]}}\n"
    );
}

#[tokio::test]
async fn at_most_ten_update_managers_are_kept() {
    let server = server();
    let uri = format!("{PODS}/web");
    let body = pod(
        "web",
        json!({"containers": [{"name": "app", "image": "a"}]}),
    );
    let (code, _) = create(&server, &format!("{PODS}?fieldManager=m00"), None, &body).await;
    assert_eq!(code, 201);
    for i in 1..=11 {
        let patch = json!({"metadata": {"labels": {format!("l{i}"): "x"}}});
        let (code, _) = merge_patch(
            &server,
            &format!("{uri}?fieldManager=m{i:02}"),
            None,
            &patch.to_string(),
        )
        .await;
        assert_eq!(code, 200);
    }
    let object = get(&server, &uri).await;
    let names: Vec<String> = managers(&object).into_iter().map(|(m, _, _)| m).collect();
    assert_eq!(names.len(), 10, "{names:?}");
    // The oldest were merged (the times tie within a second, so by identifier).
    assert!(names.contains(&"ancient-changes".to_owned()), "{names:?}");
    let ancient = owned(&object, "ancient-changes", "Update");
    assert!(
        ancient.pointer("/f:metadata/f:labels/f:l1").is_some(),
        "{ancient}"
    );
    assert!(ancient.pointer("/f:spec").is_some(), "{ancient}");
}

/// A pod as a Job's controller (`kube-controller-manager`) creates it, defaults applied
/// (from a Kubernetes 1.36 server's replay).
fn job_pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "generateName": "create-job-",
            "labels": {
                "batch.kubernetes.io/controller-uid": "f2bd6b7a-351c-4667-9c48-a56f59473c5f",
                "batch.kubernetes.io/job-name": "create-job",
                "controller-uid": "f2bd6b7a-351c-4667-9c48-a56f59473c5f",
                "job-name": "create-job",
            },
            "ownerReferences": [{
                "apiVersion": "batch/v1", "kind": "Job", "name": "create-job",
                "uid": "f2bd6b7a-351c-4667-9c48-a56f59473c5f",
                "controller": true, "blockOwnerDeletion": true,
            }],
        },
        "spec": {
            "containers": [{
                "name": "create-job", "image": "alpine",
                "command": ["sh", "-c", "exit $TEST_ARG"],
                "env": [{"name": "TEST_ARG", "value": "5"}],
                "resources": {},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "imagePullPolicy": "Always",
            }],
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "securityContext": {},
            "schedulerName": "default-scheduler",
            "enableServiceLinks": true,
        },
    })
}

#[tokio::test]
async fn a_controllers_pod_and_the_kubelets_status_are_recorded_as_a_real_server() {
    let server = server();
    let (code, created) = create(&server, PODS, Some("kube-controller-manager/v1.36.0 (linux/amd64) kubernetes/abcdef0/system:serviceaccount:kube-system:job-controller"), &job_pod())
    .await;
    assert_eq!(code, 201, "{created}");
    let controller = entry(&created, "kube-controller-manager");
    assert_eq!(controller["operation"], "Update");
    assert_eq!(controller["apiVersion"], "v1");
    assert!(controller.get("subresource").is_none());
    assert_eq!(
        controller["fieldsV1"],
        json!({
            "f:metadata": {
                "f:generateName": {},
                "f:labels": {".": {}, "f:batch.kubernetes.io/controller-uid": {}, "f:batch.kubernetes.io/job-name": {}, "f:controller-uid": {}, "f:job-name": {}},
                "f:ownerReferences": {".": {}, "k:{\"uid\":\"f2bd6b7a-351c-4667-9c48-a56f59473c5f\"}": {}},
            },
            "f:spec": {
                "f:containers": {"k:{\"name\":\"create-job\"}": {
                    ".": {}, "f:command": {},
                    "f:env": {".": {}, "k:{\"name\":\"TEST_ARG\"}": {".": {}, "f:name": {}, "f:value": {}}},
                    "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:resources": {},
                    "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {},
                }},
                "f:dnsPolicy": {}, "f:enableServiceLinks": {}, "f:restartPolicy": {}, "f:schedulerName": {},
                "f:securityContext": {}, "f:terminationGracePeriodSeconds": {},
            },
        })
    );
    let name = created["metadata"]["name"].as_str().unwrap().to_owned();
    let status_uri = format!("{PODS}/{name}/status");
    // The scheduler's condition, then the kubelet's status, each written to the status
    // subresource whole (a null is kept, as Go writes a zero time).
    let put_status = |object: &Value, status: Value, agent: &'static str| {
        let mut object = object.clone();
        object["status"] = status;
        let server = server.clone();
        let uri = status_uri.clone();
        async move {
            send(
                &server,
                Method::PUT,
                &uri,
                "application/json",
                Some(agent),
                &object.to_string(),
            )
            .await
        }
    };
    let scheduled = json!({"conditions": [{
        "type": "PodScheduled", "status": "True", "lastProbeTime": null,
        "lastTransitionTime": "2026-06-15T04:15:57Z",
    }]});
    let (code, object) = put_status(
        &created,
        scheduled,
        "kube-scheduler/v1.36.0 (linux/amd64) kubernetes/abcdef0/scheduler",
    )
    .await;
    assert_eq!(code, 200, "{object}");
    let condition = |kind: &str, status: &str, reason: Option<&str>| {
        let mut c = json!({"type": kind, "observedGeneration": 1, "status": status, "lastProbeTime": null, "lastTransitionTime": "2026-06-15T04:16:01Z"});
        if let Some(reason) = reason {
            c["reason"] = json!(reason);
        }
        c
    };
    let kubelet = json!({
        "observedGeneration": 1,
        "phase": "Failed",
        "conditions": [
            condition("PodReadyToStartContainers", "False", None),
            condition("Initialized", "True", None),
            condition("Ready", "False", Some("PodFailed")),
            condition("ContainersReady", "False", Some("PodFailed")),
            {"type": "PodScheduled", "observedGeneration": 1, "status": "True", "lastProbeTime": null, "lastTransitionTime": "2026-06-15T04:15:57Z"},
        ],
        "hostIP": "172.18.0.2",
        "hostIPs": [{"ip": "172.18.0.2"}],
        "podIP": "10.244.0.5",
        "podIPs": [{"ip": "10.244.0.5"}],
        "startTime": "2026-06-15T04:15:57Z",
        "containerStatuses": [{"name": "create-job", "ready": false, "restartCount": 0, "image": "alpine", "imageID": "", "started": false, "state": {}}],
        "resources": {},
    });
    let (code, object) = put_status(
        &object,
        kubelet,
        "kubelet/v1.36.0 (linux/amd64) kubernetes/abcdef0",
    )
    .await;
    assert_eq!(code, 200, "{object}");
    let entry = entry(&object, "kubelet");
    assert_eq!(entry["subresource"], "status");
    assert_eq!(
        entry["fieldsV1"],
        json!({"f:status": {
            "f:conditions": {
                "k:{\"type\":\"ContainersReady\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:observedGeneration": {}, "f:reason": {}, "f:status": {}, "f:type": {}},
                "k:{\"type\":\"Initialized\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:observedGeneration": {}, "f:status": {}, "f:type": {}},
                "k:{\"type\":\"PodReadyToStartContainers\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:observedGeneration": {}, "f:status": {}, "f:type": {}},
                "k:{\"type\":\"PodScheduled\"}": {"f:observedGeneration": {}},
                "k:{\"type\":\"Ready\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:observedGeneration": {}, "f:reason": {}, "f:status": {}, "f:type": {}},
            },
            "f:containerStatuses": {}, "f:hostIP": {}, "f:hostIPs": {}, "f:observedGeneration": {},
            "f:phase": {}, "f:podIP": {},
            "f:podIPs": {".": {}, "k:{\"ip\":\"10.244.0.5\"}": {".": {}, "f:ip": {}}},
            "f:resources": {}, "f:startTime": {},
        }})
    );
    // An apply of another status field keeps the nulls the object holds.
    let message = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "status": {"message": "done"}});
    let (code, applied) = apply(&server, &status_uri, "reporter", false, &message).await;
    assert_eq!(code, 200, "{applied}");
    assert_eq!(applied["status"]["message"], "done");
    assert_eq!(
        applied["status"]["conditions"],
        object["status"]["conditions"]
    );
    // The controller's entry is untouched by status writes.
    assert_eq!(
        owned(&object, "kube-controller-manager", "Update"),
        controller["fieldsV1"]
    );
}

/// A CustomResourceDefinition like the one of k8s-openapi's custom resource test.
const FOOBAR_CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foobars.example.com
spec:
  group: example.com
  names: {kind: FooBar, plural: foobars, singular: foobar, shortNames: [fb]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [prop1, prop2, prop4, prop5]
            properties:
              prop1: {type: string}
              prop2: {type: array, items: {type: boolean}}
              prop3: {type: integer, format: int32}
              prop4: {x-kubernetes-int-or-string: true}
              prop5: {x-kubernetes-int-or-string: true}
              labels:
                type: object
                additionalProperties: {type: string}
                x-kubernetes-map-type: atomic
              tags:
                type: array
                items: {type: string}
                x-kubernetes-list-type: set
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port]
                items:
                  type: object
                  properties:
                    port: {type: integer}
                    name: {type: string}
              raw:
                type: object
                x-kubernetes-preserve-unknown-fields: true
"#;

fn foobar_server() -> (Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let crd = dir.path().join("foobar.yaml");
    std::fs::write(&crd, FOOBAR_CRD).unwrap();
    let server = Server::new(Catalog::from_documents(&[crd]).unwrap());
    (server, dir)
}

const FOOBARS: &str = "/apis/example.com/v1/namespaces/default/foobars";

#[tokio::test]
async fn a_custom_resource_is_recorded_as_a_real_server() {
    let (server, _dir) = foobar_server();
    let body = json!({"apiVersion": "example.com/v1", "kind": "FooBar", "metadata": {"name": "fb1"},
        "spec": {"prop1": "value1", "prop2": [true, false, true], "prop4": 6, "prop5": "7"}});
    let (code, created) = create(&server, FOOBARS, None, &body).await;
    assert_eq!(code, 201, "{created}");
    // A custom resource is unstructured: its creator owns `spec` itself (`"."`); a list
    // without a list type is atomic.
    let unknown = entry(&created, "unknown");
    assert_eq!(unknown["apiVersion"], "example.com/v1");
    assert_eq!(
        unknown["fieldsV1"],
        json!({"f:spec": {".": {}, "f:prop1": {}, "f:prop2": {}, "f:prop4": {}, "f:prop5": {}}})
    );
}

#[tokio::test]
async fn custom_resources_merge_by_their_schemas_types() {
    let (server, _dir) = foobar_server();
    let uri = format!("{FOOBARS}/fb");
    let config = |spec: Value| json!({"apiVersion": "example.com/v1", "kind": "FooBar", "metadata": {"name": "fb"}, "spec": spec});
    let alice = config(json!({
        "prop1": "a", "prop2": [true], "prop4": 1, "prop5": "x",
        "labels": {"a": "1"}, "tags": ["t1"], "ports": [{"port": 1, "name": "one"}],
        "raw": {"deep": {"a": 1}, "list": [1, 2]},
    }));
    let (code, created) = apply(&server, &uri, "alice", false, &alice).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        owned(&created, "alice", "Apply"),
        json!({"f:spec": {
            "f:labels": {}, "f:ports": {"k:{\"port\":1}": {".": {}, "f:name": {}, "f:port": {}}},
            "f:prop1": {}, "f:prop2": {}, "f:prop4": {}, "f:prop5": {},
            "f:raw": {"f:deep": {".": {}, "f:a": {}}, "f:list": {}},
            "f:tags": {"v:\"t1\"": {}},
        }})
    );
    // Bob: a tag and a port (merged), a key in the preserved object (granular, deduced),
    // and the atomic labels (a conflict, so not in this apply).
    let bob = config(json!({"tags": ["t2"], "ports": [{"port": 2}], "raw": {"deep": {"b": 2}}}));
    let (code, object) = apply(&server, &uri, "bob", false, &bob).await;
    assert_eq!(code, 200, "{object}");
    assert_eq!(object["spec"]["tags"], json!(["t1", "t2"]));
    assert_eq!(
        object["spec"]["ports"],
        json!([{"port": 1, "name": "one"}, {"port": 2}])
    );
    assert_eq!(
        object["spec"]["raw"],
        json!({"deep": {"a": 1, "b": 2}, "list": [1, 2]})
    );
    let labels = config(json!({"labels": {"b": "2"}, "raw": {"list": [3]}}));
    let (code, status) = apply(&server, &uri, "bob", false, &labels).await;
    assert_eq!(code, 409);
    assert_eq!(
        status["message"],
        "Apply failed with 2 conflicts: conflicts with \"alice\":\n- .spec.labels\n- .spec.raw.list"
    );
    // Unknown fields of a structural schema are refused as on a real server.
    let (code, status) = apply(&server, &uri, "bob", false, &config(json!({"bogus": 1}))).await;
    assert_eq!(code, 500);
    assert_eq!(
        status["message"],
        "failed to create typed patch object (/fb; example.com/v1, Kind=FooBar): .spec.bogus: field not declared in schema"
    );
}

fn corpus_server(test: &str, documents: &[&str]) -> Option<Server> {
    let needed: Vec<String> = documents
        .iter()
        .map(|d| format!("kubernetes/v3/{d}"))
        .collect();
    let needed: Vec<&str> = needed.iter().map(String::as_str).collect();
    let corpus = kubeforge_tests::corpus(test, &needed)?;
    let files: Vec<PathBuf> = needed.iter().map(|d| corpus.join(d)).collect();
    Some(Server::new(Catalog::from_documents(&files).unwrap()))
}

const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";

/// A Deployment as a 1.36 server stores it after defaulting (k8s-openapi's patch test).
fn defaulted_deployment() -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "patch-deployment"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"key": "value"}},
            "template": {
                "metadata": {"labels": {"key": "value"}},
                "spec": {
                    "containers": [{
                        "name": "patch-deployment", "image": "alpine:3.6", "resources": {},
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent",
                    }],
                    "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
                    "dnsPolicy": "ClusterFirst", "securityContext": {},
                    "schedulerName": "default-scheduler",
                },
            },
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
        },
    })
}

#[tokio::test]
async fn a_deployment_create_and_its_patches_are_recorded_as_a_real_server() {
    let Some(server) = corpus_server(
        "a_deployment_create_and_its_patches_are_recorded_as_a_real_server",
        &["apis__apps__v1_openapi.json"],
    ) else {
        return;
    };
    let (code, created) = create(&server, DEPLOYMENTS, None, &defaulted_deployment()).await;
    assert_eq!(code, 201, "{created}");
    // A built-in type's empty object already has the structs Go holds by value (spec,
    // strategy, template and its metadata and spec) and the required lists (containers):
    // the creator owns what is in them, not them. It does own the pointer struct
    // (rollingUpdate) and the map (labels) it set.
    let expected = json!({"f:spec": {
        "f:progressDeadlineSeconds": {}, "f:replicas": {}, "f:revisionHistoryLimit": {}, "f:selector": {},
        "f:strategy": {"f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}}, "f:type": {}},
        "f:template": {
            "f:metadata": {"f:labels": {".": {}, "f:key": {}}},
            "f:spec": {
                "f:containers": {"k:{\"name\":\"patch-deployment\"}": {
                    ".": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:resources": {},
                    "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {},
                }},
                "f:dnsPolicy": {}, "f:restartPolicy": {}, "f:schedulerName": {}, "f:securityContext": {},
                "f:terminationGracePeriodSeconds": {},
            },
        },
    }});
    assert_eq!(owned(&created, "unknown", "Update"), expected);
    let uri = format!("{DEPLOYMENTS}/patch-deployment");
    // The same manager's patches leave its fields as they are.
    let (code, patched) = send(&server, Method::PATCH, &uri, "application/json-patch+json", None,
        r#"[{"op":"test","path":"/spec/template/spec/containers/0/image","value":"alpine:3.6"},{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"alpine:3.7"}]"#).await;
    assert_eq!(code, 200, "{patched}");
    assert_eq!(owned(&patched, "unknown", "Update"), expected);
    let (code, patched) = send(&server, Method::PATCH, &uri, "application/strategic-merge-patch+json", None,
        r#"{"spec":{"template":{"spec":{"containers":[{"image":"alpine:3.9","name":"patch-deployment"}]}}}}"#).await;
    assert_eq!(code, 200);
    assert_eq!(owned(&patched, "unknown", "Update"), expected);
    assert_eq!(managers(&patched).len(), 1);
}

#[tokio::test]
async fn the_scale_subresource_and_an_hpa_take_over_replicas() {
    let Some(server) = corpus_server(
        "the_scale_subresource_and_an_hpa_take_over_replicas",
        &["apis__apps__v1_openapi.json"],
    ) else {
        return;
    };
    let uri = format!("{DEPLOYMENTS}/nginx");
    let config = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "nginx"}, "spec": {
        "replicas": 3, "selector": {"matchLabels": {"app": "nginx"}},
        "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [{"name": "nginx", "image": "nginx:1.14.2"}]}},
    }});
    let (code, _) = apply(&server, &uri, "kubectl", false, &config).await;
    assert_eq!(code, 201);
    // The autoscaler writes replicas through the scale subresource.
    let (code, scale) = send(&server, Method::PATCH, &format!("{uri}/scale"), MERGE,
        Some("kube-controller-manager/v1.36.0 (linux/amd64) kubernetes/abcdef0/system:serviceaccount:kube-system:horizontal-pod-autoscaler"),
        r#"{"spec":{"replicas":5}}"#).await;
    assert_eq!(code, 200, "{scale}");
    let object = get(&server, &uri).await;
    let hpa = entry(&object, "kube-controller-manager");
    assert_eq!(hpa["subresource"], "scale");
    assert_eq!(hpa["apiVersion"], "apps/v1");
    assert_eq!(hpa["fieldsV1"], json!({"f:spec": {"f:replicas": {}}}));
    assert!(
        owned(&object, "kubectl", "Apply")
            .pointer("/f:spec/f:replicas")
            .is_none()
    );
    // The user's apply with replicas now conflicts with the scale writer.
    let (code, status) = apply(&server, &uri, "kubectl", false, &config).await;
    assert_eq!(code, 409);
    assert_eq!(
        status["message"],
        "Apply failed with 1 conflict: conflict with \"kube-controller-manager\" with subresource \"scale\" using apps/v1: .spec.replicas"
    );
    // Without replicas, the user's apply leaves the autoscaler's value.
    let mut without = config.clone();
    without["spec"].as_object_mut().unwrap().remove("replicas");
    let (code, object) = apply(&server, &uri, "kubectl", false, &without).await;
    assert_eq!(code, 200, "{object}");
    assert_eq!(object["spec"]["replicas"], 5);
    // An apply of a Scale to the subresource owns the replicas of the object.
    let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "nginx"}, "spec": {"replicas": 7}});
    let (code, status) = apply(
        &server,
        &format!("{uri}/scale"),
        "autoscaler",
        false,
        &scale,
    )
    .await;
    assert_eq!(code, 409);
    assert_eq!(
        status["message"],
        "Apply failed with 1 conflict: conflict with \"kube-controller-manager\" with subresource \"scale\" using apps/v1: .spec.replicas"
    );
    let (code, answer) = apply(&server, &format!("{uri}/scale"), "autoscaler", true, &scale).await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(
        (answer["kind"].as_str(), answer["spec"]["replicas"].as_i64()),
        (Some("Scale"), Some(7))
    );
    let object = get(&server, &uri).await;
    assert_eq!(object["spec"]["replicas"], 7);
    let autoscaler = entry(&object, "autoscaler");
    assert_eq!(
        (
            &autoscaler["operation"],
            &autoscaler["subresource"],
            &autoscaler["fieldsV1"]
        ),
        (
            &json!("Apply"),
            &json!("scale"),
            &json!({"f:spec": {"f:replicas": {}}})
        )
    );
    assert!(
        object["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["manager"] != "kube-controller-manager")
    );
    let wrong =
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "nginx"}});
    let (code, status) = apply(&server, &format!("{uri}/scale"), "autoscaler", true, &wrong).await;
    assert_eq!(
        (code, status["message"].as_str()),
        (400, Some("invalid object type: apps/v1, Kind=Deployment"))
    );
}

/// A map list's items merge by key wherever they stand: an applier's item at another
/// position than the live one still merges with the live item of its key (SMD's
/// `mergeListByKey`), and the live order is kept.
#[tokio::test]
async fn map_list_items_merge_by_key_not_by_position() {
    // The committed core/v1 document has no PodTemplates: the corpus's does.
    let Some(server) = corpus_server(
        "map_list_items_merge_by_key_not_by_position",
        &["api__v1_openapi.json"],
    ) else {
        return;
    };
    let uri = format!("{TEMPLATES}/keyed");
    let alice = template(
        "keyed",
        json!({"containers": [{"name": "app", "image": "a"}, {"name": "side", "image": "s"}]}),
    );
    let (code, object) = apply(&server, &uri, "alice", false, &alice).await;
    assert_eq!(code, 201, "{object}");
    // A field no defaulter sets, so that only a merge by key puts it on `side`.
    let carol = template(
        "keyed",
        json!({"containers": [{"name": "side", "workingDir": "/srv"}]}),
    );
    let (code, object) = apply(&server, &uri, "carol", false, &carol).await;
    assert_eq!(code, 200, "{object}");
    let containers = &object["template"]["spec"]["containers"];
    assert_eq!(containers[0]["name"], "app");
    assert_eq!(containers[0].get("workingDir"), None, "{containers}");
    assert_eq!(containers[1]["name"], "side");
    assert_eq!(containers[1]["image"], "s");
    assert_eq!(containers[1]["workingDir"], "/srv", "{containers}");
    assert_eq!(containers.as_array().map(Vec::len), Some(2));
}

/// A CRD whose map list is keyed by `port` and `protocol`, `protocol` defaulted to `TCP`.
const ENDPOINTS_CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gateways.example.com
spec:
  group: example.com
  names: {kind: Gateway, plural: gateways, singular: gateway}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port, protocol]
                items:
                  type: object
                  required: [port]
                  properties:
                    port: {type: integer}
                    protocol: {type: string, default: TCP}
                    name: {type: string}
"#;

/// A map list's key with a schema `default` takes it before items are matched (SMD fills a
/// missing key field from the default): the same apply twice changes nothing, and another
/// manager naming the defaulted key shares the item instead of adding a duplicate.
#[tokio::test]
async fn a_custom_resources_defaulted_list_map_key_matches_its_default() {
    let dir = tempfile::tempdir().unwrap();
    let crd = dir.path().join("gateway.yaml");
    std::fs::write(&crd, ENDPOINTS_CRD).unwrap();
    let server = Server::new(Catalog::from_documents(&[crd]).unwrap());
    let uri = "/apis/example.com/v1/namespaces/default/gateways/gw";
    let config = |ports: Value| json!({"apiVersion": "example.com/v1", "kind": "Gateway", "metadata": {"name": "gw"}, "spec": {"ports": ports}});
    let alice = config(json!([{"port": 80, "name": "http"}]));
    let (code, first) = apply(&server, uri, "alice", false, &alice).await;
    assert_eq!(code, 201, "{first}");
    assert_eq!(
        first["spec"]["ports"],
        json!([{"port": 80, "name": "http", "protocol": "TCP"}])
    );
    assert_eq!(
        owned(&first, "alice", "Apply"),
        json!({"f:spec": {"f:ports": {"k:{\"port\":80,\"protocol\":\"TCP\"}": {".": {}, "f:name": {}, "f:port": {}}}}})
    );
    let (code, second) = apply(&server, uri, "alice", false, &alice).await;
    assert_eq!(code, 200, "{second}");
    assert_eq!(second, first);
    let bob = config(json!([{"port": 80, "protocol": "TCP", "name": "http"}]));
    let (code, shared) = apply(&server, uri, "bob", false, &bob).await;
    assert_eq!(code, 200, "{shared}");
    assert_eq!(shared["spec"]["ports"], first["spec"]["ports"]);
}
