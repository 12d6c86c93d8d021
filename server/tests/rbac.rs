//! Who may do what, as the API server decides it: identities (the administrator, static
//! users, ServiceAccount tokens, anonymous requests, impersonation), RBAC (roles, bindings,
//! aggregation, the escalation check) and the reviews, through kube-rs in process and
//! through `kubectl` against the binary, with the catalog of Kubernetes 1.36's
//! `swagger.json`. The expected messages are the API server's (each says where in the Go
//! code it comes from).

use std::io::{Read as _, Write as _};

use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::Client;
use kube::api::{Api, ListParams, PostParams};
use kubeforge_server::{Catalog, Server};
use serde_json::{Value, json};

/// A controller's RBAC manifests, as it ships them: its ServiceAccount, a Role on Pods in
/// its namespace and a ClusterRole to list ConfigMaps everywhere, each bound to it.
const CONTROLLER_RBAC: &str = "
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ctrl
  namespace: default
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ctrl
  namespace: default
rules:
- apiGroups: [\"\"]
  resources: [pods]
  verbs: [get, list, watch]
- apiGroups: [\"\"]
  resources: [pods/status]
  verbs: [patch]
- apiGroups: [\"\"]
  resources: [configmaps]
  resourceNames: [ctrl-settings]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ctrl
  namespace: default
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ctrl
subjects:
- kind: ServiceAccount
  name: ctrl
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ctrl-configmaps
rules:
- apiGroups: [\"\"]
  resources: [configmaps]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ctrl-configmaps
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ctrl-configmaps
subjects:
- kind: ServiceAccount
  name: ctrl
  namespace: default
";

const SA: &str = "system:serviceaccount:default:ctrl";

fn catalog(test: &str) -> Option<Catalog> {
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
    Some(Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap())
}

fn api_error(error: kube::Error) -> (u16, String, String) {
    match error {
        kube::Error::Api(status) => (status.code, status.reason, status.message),
        other => panic!("not an API error: {other}"),
    }
}

/// One request in process: the status code and the body as JSON (`Null` when it is none).
async fn call(
    server: &Server,
    method: Method,
    uri: &str,
    headers: &[(&str, &str)],
    body: Value,
) -> (u16, Value) {
    let mut request = Request::builder().method(method).uri(uri);
    if !headers.iter().any(|(name, _)| *name == "content-type") {
        request = request.header("content-type", "application/json");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let bytes = if body.is_null() {
        Vec::new()
    } else {
        serde_json::to_vec(&body).unwrap()
    };
    let response = server
        .call_async(request.body(Full::new(bytes::Bytes::from(bytes))).unwrap())
        .await;
    let code = response.status().as_u16();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (code, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

fn message(body: &Value) -> &str {
    body["message"].as_str().unwrap_or("")
}

#[tokio::test]
async fn a_service_account_may_do_what_its_roles_allow_and_nothing_else() {
    let Some(catalog) = catalog("rbac_service_account") else {
        return;
    };
    let server = Server::new(catalog);
    let as_ctrl = server.with_rbac(CONTROLLER_RBAC).unwrap();
    let ctrl = Client::new(as_ctrl.clone(), "default");

    // What its Role and ClusterRole allow.
    let pods: Api<Pod> = Api::namespaced(ctrl.clone(), "default");
    pods.list(&ListParams::default()).await.unwrap();
    let all_config_maps: Api<ConfigMap> = Api::all(ctrl.clone());
    assert!(
        !all_config_maps
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );

    // Nothing else, with the API server's message (`responsewriters.forbiddenMessage`,
    // `apierrors.NewForbidden`).
    let elsewhere: Api<Pod> = Api::namespaced(ctrl.clone(), "kube-system");
    assert_eq!(
        api_error(elsewhere.list(&ListParams::default()).await.unwrap_err()),
        (
            403,
            "Forbidden".to_owned(),
            format!(
                "pods is forbidden: User \"{SA}\" cannot list resource \"pods\" in API group \"\" in the namespace \"kube-system\""
            )
        )
    );
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }))
    .unwrap();
    assert_eq!(
        api_error(pods.create(&PostParams::default(), &pod).await.unwrap_err()).2,
        format!(
            "pods is forbidden: User \"{SA}\" cannot create resource \"pods\" in API group \"\" in the namespace \"default\""
        )
    );
    // Its one ConfigMap by name, and no other.
    let settings: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "ctrl-settings"}})).unwrap();
    let admin_config_maps: Api<ConfigMap> =
        Api::namespaced(Client::new(server.clone(), "default"), "default");
    admin_config_maps
        .create(&PostParams::default(), &settings)
        .await
        .unwrap();
    let config_maps: Api<ConfigMap> = Api::namespaced(ctrl.clone(), "default");
    config_maps.get("ctrl-settings").await.unwrap();
    assert_eq!(
        api_error(config_maps.get("kube-root-ca.crt").await.unwrap_err()).2,
        format!(
            "configmaps \"kube-root-ca.crt\" is forbidden: User \"{SA}\" cannot get resource \"configmaps\" in API group \"\" in the namespace \"default\""
        )
    );
    let (code, body) = call(
        &as_ctrl,
        Method::GET,
        "/apis/apps/v1/deployments",
        &[],
        Value::Null,
    )
    .await;
    assert_eq!(
        (code, message(&body)),
        (
            403,
            &*format!(
                "deployments.apps is forbidden: User \"{SA}\" cannot list resource \"deployments\" in API group \"apps\" at the cluster scope"
            )
        )
    );
    assert_eq!(
        body["details"],
        json!({"group": "apps", "kind": "deployments"})
    );

    // The subresource it may patch, and the one it may not.
    let admin_pods: Api<Pod> = Api::namespaced(Client::new(server.clone(), "default"), "default");
    admin_pods
        .create(&PostParams::default(), &pod)
        .await
        .unwrap();
    let status = json!({"status": {"message": "seen"}});
    pods.patch_status(
        "p",
        &kube::api::PatchParams::default(),
        &kube::api::Patch::Merge(&status),
    )
    .await
    .unwrap();
    assert_eq!(
        api_error(
            pods.patch(
                "p",
                &kube::api::PatchParams::default(),
                &kube::api::Patch::Merge(&status)
            )
            .await
            .unwrap_err()
        )
        .2,
        format!(
            "pods \"p\" is forbidden: User \"{SA}\" cannot patch resource \"pods\" in API group \"\" in the namespace \"default\""
        )
    );

    // Manifests the server cannot take are refused, with the server's reason.
    let unknown =
        server.with_rbac("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n");
    assert_eq!(unknown.unwrap_err().code, 400);
    let invalid = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: bad}\nrules: [{resources: [pods]}]\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: other}\n";
    let refused = server.with_rbac(invalid).unwrap_err();
    assert_eq!(refused.code, 422, "{refused:?}");
    assert!(
        refused.message.starts_with("creating Role \"bad\": "),
        "{refused:?}"
    );

    // Discovery is every authenticated user's (`system:discovery`).
    ctrl.apiserver_version().await.unwrap();
    let (code, _) = call(&as_ctrl, Method::GET, "/apis", &[], Value::Null).await;
    assert_eq!(code, 200);
}

#[tokio::test]
async fn requests_are_authenticated_by_bearer_token_or_anonymous() {
    let Some(catalog) = catalog("rbac_tokens") else {
        return;
    };
    let server = Server::new(catalog);
    server.with_rbac(CONTROLLER_RBAC).unwrap();
    // As over a socket: no credentials is `system:anonymous`.
    let socket = server.as_anonymous();
    let (code, body) = call(
        &socket,
        Method::GET,
        "/api/v1/namespaces/default/configmaps",
        &[],
        Value::Null,
    )
    .await;
    assert_eq!(
        (code, message(&body)),
        (
            403,
            "configmaps is forbidden: User \"system:anonymous\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\""
        )
    );
    let (code, body) = call(&socket, Method::GET, "/api", &[], Value::Null).await;
    assert_eq!(
        (code, message(&body)),
        (
            403,
            "forbidden: User \"system:anonymous\" cannot get path \"/api\""
        )
    );
    assert_eq!(body["details"], json!({}));
    // What `system:public-info-viewer` lets anyone read.
    for path in ["/version", "/healthz", "/readyz", "/livez"] {
        assert_eq!(
            call(&socket, Method::GET, path, &[], Value::Null).await.0,
            200,
            "{path}"
        );
    }
    let (code, body) = call(
        &socket,
        Method::POST,
        "/api/v1/namespaces/default/configmaps",
        &[],
        json!({"metadata": {"name": "x"}}),
    )
    .await;
    assert_eq!((code, body["reason"].as_str()), (403, Some("Forbidden")));

    // A token nobody issued: 401 (`union.NewFailOnError`: a bad token is never anonymous).
    let bad = [("authorization", "Bearer not-a-token")];
    let (code, body) = call(&socket, Method::GET, "/version", &bad, Value::Null).await;
    assert_eq!(
        body,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "Unauthorized", "reason": "Unauthorized", "code": 401})
    );
    assert_eq!(code, 401);

    // The administrator's token.
    let admin = format!("Bearer {}", server.admin_token());
    let (code, _) = call(
        &socket,
        Method::GET,
        "/api/v1/namespaces/default/configmaps",
        &[("authorization", &admin)],
        Value::Null,
    )
    .await;
    assert_eq!(code, 200);

    // A ServiceAccount's token from TokenRequest, with the API server's audience.
    let (code, request) = call(
        &socket,
        Method::POST,
        "/api/v1/namespaces/default/serviceaccounts/ctrl/token",
        &[("authorization", &admin)],
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}),
    )
    .await;
    assert_eq!(code, 201, "{request}");
    let token = format!("Bearer {}", request["status"]["token"].as_str().unwrap());
    let sa = [("authorization", token.as_str())];
    let (code, _) = call(
        &socket,
        Method::GET,
        "/api/v1/namespaces/default/pods",
        &sa,
        Value::Null,
    )
    .await;
    assert_eq!(code, 200);
    let (code, body) = call(
        &socket,
        Method::GET,
        "/api/v1/namespaces/default/secrets",
        &sa,
        Value::Null,
    )
    .await;
    assert_eq!(
        (code, message(&body)),
        (
            403,
            &*format!(
                "secrets is forbidden: User \"{SA}\" cannot list resource \"secrets\" in API group \"\" in the namespace \"default\""
            )
        )
    );
    // A token for another audience is not the API server's.
    let (_, other) = call(
        &socket,
        Method::POST,
        "/api/v1/namespaces/default/serviceaccounts/ctrl/token",
        &[("authorization", &admin)],
        json!({"spec": {"audiences": ["vault"]}}),
    )
    .await;
    let other = format!("Bearer {}", other["status"]["token"].as_str().unwrap());
    assert_eq!(
        call(
            &socket,
            Method::GET,
            "/version",
            &[("authorization", &other)],
            Value::Null
        )
        .await
        .0,
        401
    );

    // A static user, and who it is (`kubectl auth whoami`).
    let alice = format!("Bearer {}", server.add_user("alice", &["devs"]));
    let (code, review) = call(
        &socket,
        Method::POST,
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        &[("authorization", &alice)],
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}),
    )
    .await;
    assert_eq!(code, 201);
    assert_eq!(
        review["status"]["userInfo"],
        json!({"username": "alice", "groups": ["devs", "system:authenticated"]})
    );
}

#[tokio::test]
async fn impersonation_needs_the_impersonate_verb() {
    let Some(catalog) = catalog("rbac_impersonation") else {
        return;
    };
    let server = Server::new(catalog);
    let as_ctrl = server.with_rbac(CONTROLLER_RBAC).unwrap();
    // The administrator may act as the ServiceAccount (as `kubectl --as` asks).
    let as_sa = [("impersonate-user", SA)];
    let (code, body) = call(
        &server,
        Method::GET,
        "/api/v1/namespaces/kube-system/pods",
        &as_sa,
        Value::Null,
    )
    .await;
    assert_eq!(
        (code, message(&body)),
        (
            403,
            &*format!(
                "pods is forbidden: User \"{SA}\" cannot list resource \"pods\" in API group \"\" in the namespace \"kube-system\""
            )
        )
    );
    assert_eq!(
        call(
            &server,
            Method::GET,
            "/api/v1/namespaces/default/pods",
            &as_sa,
            Value::Null
        )
        .await
        .0,
        200
    );
    // The groups a ServiceAccount has, and `system:authenticated`.
    let (_, review) = call(
        &server,
        Method::POST,
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        &as_sa,
        json!({}),
    )
    .await;
    assert_eq!(
        review["status"]["userInfo"],
        json!({"username": SA, "groups": ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]})
    );
    // The ServiceAccount may not act as anyone (`impersonation.go`: the refused attributes).
    let (code, body) = call(
        &as_ctrl,
        Method::GET,
        "/api/v1/namespaces/default/pods",
        &[("impersonate-user", "bob")],
        Value::Null,
    )
    .await;
    assert_eq!(
        (code, message(&body)),
        (
            403,
            &*format!(
                "users \"bob\" is forbidden: User \"{SA}\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope"
            )
        )
    );
    let (code, _) = call(
        &server,
        Method::GET,
        "/version",
        &[("impersonate-group", "devs")],
        Value::Null,
    )
    .await;
    assert_eq!(code, 400);
}

#[tokio::test]
async fn roles_and_bindings_cannot_grant_what_their_writer_does_not_hold() {
    let Some(catalog) = catalog("rbac_escalation") else {
        return;
    };
    let server = Server::new(catalog);
    let writer = "
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: rbac-writer, namespace: default}
rules:
- {apiGroups: [rbac.authorization.k8s.io], resources: [roles, rolebindings], verbs: [create, update, patch]}
- {apiGroups: [\"\"], resources: [pods], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rbac-writer, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: rbac-writer}
subjects: [{kind: ServiceAccount, name: writer, namespace: default}]
";
    let as_writer = server.with_rbac(writer).unwrap();
    let role = |name: &str, resource: &str, verbs: Value| {
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": name},
            "rules": [{"apiGroups": [""], "resources": [resource], "verbs": verbs}],
        })
    };
    let roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles";
    // What it holds, it may grant.
    let (code, _) = call(
        &as_writer,
        Method::POST,
        roles,
        &[],
        role("pod-reader", "pods", json!(["get"])),
    )
    .await;
    assert_eq!(code, 201);
    // What it does not, it may not (`ConfirmNoEscalation`, `CompactString`).
    let (code, body) = call(
        &as_writer,
        Method::POST,
        roles,
        &[],
        role("grab", "secrets", json!(["get", "list"])),
    )
    .await;
    assert_eq!(
        (code, message(&body)),
        (
            403,
            "roles.rbac.authorization.k8s.io \"grab\" is forbidden: user \"system:serviceaccount:default:writer\" (groups=[\"system:serviceaccounts\" \"system:serviceaccounts:default\" \"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" \"list\"]}"
        )
    );
    // Nor by a patch of a role it may patch.
    let patch =
        json!({"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "delete"]}]});
    let (code, body) = call(
        &as_writer,
        Method::PATCH,
        &format!("{roles}/pod-reader"),
        &[("content-type", "application/merge-patch+json")],
        patch,
    )
    .await;
    assert_eq!(code, 403, "{body}");
    assert!(
        message(&body).ends_with("{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}"),
        "{body}"
    );
    // Nor bind a role with more than it holds.
    let binding = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "admins"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
        "subjects": [{"kind": "User", "name": "mallory"}],
    });
    let bindings = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings";
    let (code, body) = call(&as_writer, Method::POST, bindings, &[], binding.clone()).await;
    assert_eq!(code, 403);
    assert!(message(&body).starts_with("rolebindings.rbac.authorization.k8s.io \"admins\" is forbidden: user \"system:serviceaccount:default:writer\""), "{body}");
    // Unless it may `bind` that role (or `escalate` roles).
    let allow_bind = "
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: binder, namespace: default}
rules:
- {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [bind], resourceNames: [cluster-admin]}
- {apiGroups: [rbac.authorization.k8s.io], resources: [roles], verbs: [escalate]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: binder, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: binder}
subjects: [{kind: ServiceAccount, name: writer, namespace: default}]
";
    server.with_rbac(allow_bind).unwrap();
    assert_eq!(
        call(&as_writer, Method::POST, bindings, &[], binding)
            .await
            .0,
        201
    );
    assert_eq!(
        call(
            &as_writer,
            Method::POST,
            roles,
            &[],
            role("grab", "secrets", json!(["get", "list"]))
        )
        .await
        .0,
        201
    );
}

#[tokio::test]
async fn aggregated_roles_and_access_reviews() {
    let Some(catalog) = catalog("rbac_reviews") else {
        return;
    };
    let server = Server::new(catalog);
    let as_ctrl = server.with_rbac(CONTROLLER_RBAC).unwrap();
    // A ClusterRole labelled to aggregate into `view` (and so `edit` and `admin`).
    let widgets = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "widgets-view", "labels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
        "rules": [{"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get"]}],
    });
    assert_eq!(
        call(
            &server,
            Method::POST,
            "/apis/rbac.authorization.k8s.io/v1/clusterroles",
            &[],
            widgets
        )
        .await
        .0,
        201
    );
    for role in ["view", "edit", "admin"] {
        let (_, object) = call(
            &server,
            Method::GET,
            &format!("/apis/rbac.authorization.k8s.io/v1/clusterroles/{role}"),
            &[],
            Value::Null,
        )
        .await;
        let rules = object["rules"].as_array().unwrap();
        assert!(
            rules.contains(
                &json!({"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get"]})
            ),
            "{role}: {rules:?}"
        );
    }
    let (_, admin) = call(
        &server,
        Method::GET,
        "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin",
        &[],
        Value::Null,
    )
    .await;
    assert!(admin["rules"].as_array().unwrap().contains(&json!({"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["rolebindings", "roles"], "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]})));
    // Dynamic resource allocation's claims, which `edit` writes and `view` reads since 1.34
    // (DynamicResourceAllocation on by default; the policy's golden
    // `cluster-roles-featuregates.yaml`).
    let (_, edit) = call(
        &server,
        Method::GET,
        "/apis/rbac.authorization.k8s.io/v1/clusterroles/edit",
        &[],
        Value::Null,
    )
    .await;
    assert!(edit["rules"].as_array().unwrap().contains(&json!({"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims", "resourceclaimtemplates"], "verbs": ["create", "delete", "deletecollection", "patch", "update"]})), "{edit}");
    let (_, view) = call(
        &server,
        Method::GET,
        "/apis/rbac.authorization.k8s.io/v1/clusterroles/view",
        &[],
        Value::Null,
    )
    .await;
    assert!(view["rules"].as_array().unwrap().contains(&json!({"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims", "resourceclaims/status", "resourceclaimtemplates"], "verbs": ["get", "list", "watch"]})), "{view}");

    // SelfSubjectAccessReview: the caller's own, with RBAC's reason (`rbac.go`, the binding's
    // describer in `rule.go`).
    let review = |attributes: Value| json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": attributes});
    let ssar = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    let (code, answer) = call(&as_ctrl, Method::POST, ssar, &[], review(json!({"resourceAttributes": {"namespace": "default", "verb": "list", "resource": "pods"}}))).await;
    assert_eq!(code, 201);
    assert_eq!(
        answer["status"],
        json!({"allowed": true, "reason": "RBAC: allowed by RoleBinding \"ctrl/default\" of Role \"ctrl\" to ServiceAccount \"ctrl/default\""})
    );
    let (_, answer) = call(
        &as_ctrl,
        Method::POST,
        ssar,
        &[],
        review(json!({"resourceAttributes": {"verb": "list", "resource": "configmaps"}})),
    )
    .await;
    assert_eq!(
        answer["status"]["reason"],
        "RBAC: allowed by ClusterRoleBinding \"ctrl-configmaps\" of ClusterRole \"ctrl-configmaps\" to ServiceAccount \"ctrl/default\""
    );
    let (_, answer) = call(&as_ctrl, Method::POST, ssar, &[], review(json!({"resourceAttributes": {"namespace": "default", "verb": "delete", "resource": "pods"}}))).await;
    assert_eq!(answer["status"], json!({"allowed": false}));
    let (_, answer) = call(
        &as_ctrl,
        Method::POST,
        ssar,
        &[],
        review(json!({"nonResourceAttributes": {"verb": "get", "path": "/apis/apps"}})),
    )
    .await;
    assert_eq!(answer["status"]["allowed"], true);

    // SubjectAccessReview: someone else's; only for who may create it.
    let sar = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    let subject = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": {"user": "alice", "groups": ["system:authenticated"], "resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "default"}}});
    let (code, answer) = call(&server, Method::POST, sar, &[], subject.clone()).await;
    assert_eq!((code, &answer["status"]), (201, &json!({"allowed": false})));
    assert_eq!(call(&as_ctrl, Method::POST, sar, &[], subject).await.0, 403);

    // SelfSubjectRulesReview: every rule that applies, from the bindings in name order.
    let (code, rules) = call(
        &as_ctrl,
        Method::POST,
        "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
        &[],
        json!({"spec": {"namespace": "default"}}),
    )
    .await;
    assert_eq!(code, 201);
    assert_eq!(rules["status"]["incomplete"], false);
    let resource_rules = rules["status"]["resourceRules"].as_array().unwrap();
    assert_eq!(
        resource_rules[0],
        json!({"verbs": ["list", "watch"], "apiGroups": [""], "resources": ["configmaps"]})
    );
    assert!(resource_rules.contains(
        &json!({"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["pods"]})
    ));
    // A binding to a role that is not there is an evaluation error, as the API server says it.
    let dangling = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "dangling"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "missing"},
        "subjects": [{"kind": "ServiceAccount", "name": "ctrl"}],
    });
    assert_eq!(
        call(
            &server,
            Method::POST,
            "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
            &[],
            dangling
        )
        .await
        .0,
        201
    );
    let (_, rules) = call(
        &as_ctrl,
        Method::POST,
        "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
        &[],
        json!({"spec": {"namespace": "default"}}),
    )
    .await;
    assert_eq!(rules["status"]["incomplete"], true);
    assert_eq!(
        rules["status"]["evaluationError"],
        "roles.rbac.authorization.k8s.io \"missing\" not found"
    );
    let (_, body) = call(
        &as_ctrl,
        Method::GET,
        "/api/v1/namespaces/default/secrets",
        &[],
        Value::Null,
    )
    .await;
    assert_eq!(
        message(&body),
        format!(
            "secrets is forbidden: User \"{SA}\" cannot list resource \"secrets\" in API group \"\" in the namespace \"default\": RBAC: roles.rbac.authorization.k8s.io \"missing\" not found"
        )
    );
}

/// What a real API server's `rbac/bootstrap-roles` hook leaves in `kube-system` and
/// `kube-public`, transcribed from the policy's golden files
/// (kubernetes/kubernetes@008b3652959ca58af8be3fb5b6ecfe9ae7638282:
/// `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/namespace-roles.yaml` and
/// `namespace-role-bindings.yaml`), in their order (by namespace, then name); every item
/// also has the label `kubernetes.io/bootstrapping: rbac-defaults` and the annotation
/// `rbac.authorization.kubernetes.io/autoupdate: "true"`.
fn golden_namespace_roles() -> Vec<Value> {
    let rule = |groups: &[&str], resources: &[&str], names: &[&str], verbs: &[&str]| {
        let mut rule = json!({"apiGroups": groups, "resources": resources, "verbs": verbs});
        if !names.is_empty() {
            rule["resourceNames"] = json!(names);
        }
        rule
    };
    let events = rule(
        &["", "events.k8s.io"],
        &["events"],
        &[],
        &["create", "patch", "update"],
    );
    let leader = |_: ()| {
        vec![
            rule(
                &["coordination.k8s.io"],
                &["leases"],
                &[],
                &["create", "get", "list", "update", "watch"],
            ),
            rule(
                &["coordination.k8s.io"],
                &["leasecandidates"],
                &[],
                &["create", "get", "list", "update", "watch"],
            ),
        ]
    };
    [
        (
            "kube-public",
            "system:controller:bootstrap-signer",
            vec![
                rule(&[""], &["configmaps"], &[], &["get", "list", "watch"]),
                rule(&[""], &["configmaps"], &["cluster-info"], &["update"]),
                events.clone(),
            ],
        ),
        (
            "kube-system",
            "extension-apiserver-authentication-reader",
            vec![rule(
                &[""],
                &["configmaps"],
                &["extension-apiserver-authentication"],
                &["get", "list", "watch"],
            )],
        ),
        (
            "kube-system",
            "system::leader-locking-kube-controller-manager",
            leader(()),
        ),
        (
            "kube-system",
            "system::leader-locking-kube-scheduler",
            leader(()),
        ),
        (
            "kube-system",
            "system:controller:bootstrap-signer",
            vec![rule(&[""], &["secrets"], &[], &["get", "list", "watch"])],
        ),
        (
            "kube-system",
            "system:controller:cloud-provider",
            vec![rule(
                &[""],
                &["configmaps"],
                &[],
                &["create", "get", "list", "watch"],
            )],
        ),
        (
            "kube-system",
            "system:controller:token-cleaner",
            vec![
                rule(
                    &[""],
                    &["secrets"],
                    &[],
                    &["delete", "get", "list", "watch"],
                ),
                events,
            ],
        ),
    ]
    .into_iter()
    .map(|(namespace, name, rules)| {
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": golden_metadata(namespace, name),
            "rules": rules,
        })
    })
    .collect()
}

/// The golden `namespace-role-bindings.yaml` (see [`golden_namespace_roles`]).
fn golden_namespace_role_bindings() -> Vec<Value> {
    let user =
        |name: &str| json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": name});
    let account =
        |name: &str| json!({"kind": "ServiceAccount", "name": name, "namespace": "kube-system"});
    [
        (
            "kube-public",
            "system:controller:bootstrap-signer",
            "system:controller:bootstrap-signer",
            vec![account("bootstrap-signer")],
        ),
        (
            "kube-system",
            "system::extension-apiserver-authentication-reader",
            "extension-apiserver-authentication-reader",
            vec![
                user("system:kube-controller-manager"),
                user("system:kube-scheduler"),
            ],
        ),
        (
            "kube-system",
            "system::leader-locking-kube-controller-manager",
            "system::leader-locking-kube-controller-manager",
            vec![
                user("system:kube-controller-manager"),
                account("kube-controller-manager"),
                account("leader-election-controller"),
            ],
        ),
        (
            "kube-system",
            "system::leader-locking-kube-scheduler",
            "system::leader-locking-kube-scheduler",
            vec![user("system:kube-scheduler"), account("kube-scheduler")],
        ),
        (
            "kube-system",
            "system:controller:bootstrap-signer",
            "system:controller:bootstrap-signer",
            vec![account("bootstrap-signer")],
        ),
        (
            "kube-system",
            "system:controller:cloud-provider",
            "system:controller:cloud-provider",
            vec![account("cloud-provider")],
        ),
        (
            "kube-system",
            "system:controller:token-cleaner",
            "system:controller:token-cleaner",
            vec![account("token-cleaner")],
        ),
    ]
    .into_iter()
    .map(|(namespace, name, role, subjects)| {
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": golden_metadata(namespace, name),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role},
            "subjects": subjects,
        })
    })
    .collect()
}

fn golden_metadata(namespace: &str, name: &str) -> Value {
    json!({
        "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"},
        "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"},
        "name": name,
        "namespace": namespace,
    })
}

#[tokio::test]
async fn the_namespaced_default_roles_are_the_policys() {
    let Some(catalog) = catalog("rbac_namespace_roles") else {
        return;
    };
    let server = Server::new(catalog);
    for (plural, golden) in [
        ("roles", golden_namespace_roles()),
        ("rolebindings", golden_namespace_role_bindings()),
    ] {
        let (code, list) = call(
            &server,
            Method::GET,
            &format!("/apis/rbac.authorization.k8s.io/v1/{plural}"),
            &[],
            Value::Null,
        )
        .await;
        assert_eq!(code, 200);
        let key = |item: &Value| {
            let metadata = &item["metadata"];
            format!(
                "{}/{}",
                metadata["namespace"].as_str().unwrap(),
                metadata["name"].as_str().unwrap()
            )
        };
        let listed: Vec<String> = list["items"].as_array().unwrap().iter().map(key).collect();
        let wanted: Vec<String> = golden.iter().map(key).collect();
        assert_eq!(listed, wanted, "{plural}");
        for item in golden {
            let (namespace, name) = (
                item["metadata"]["namespace"].as_str().unwrap(),
                item["metadata"]["name"].as_str().unwrap(),
            );
            let uri = format!(
                "/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/{plural}/{name}"
            );
            let (code, mut object) = call(&server, Method::GET, &uri, &[], Value::Null).await;
            assert_eq!(code, 200, "{uri}");
            // What the golden files leave out: what the store gives every object.
            let metadata = object["metadata"].as_object_mut().unwrap();
            for field in ["uid", "resourceVersion", "creationTimestamp"] {
                assert!(metadata.remove(field).is_some(), "{field} in {uri}");
            }
            assert_eq!(object, item, "{uri}");
        }
    }
    // They count: the leader-election ServiceAccount may take a lease in kube-system, and
    // only there (kube-scheduler's ClusterRole lets it take its own lease anywhere).
    let account = "system:serviceaccount:kube-system:leader-election-controller";
    let review = |namespace: &str| json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": {"user": account, "groups": ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"], "resourceAttributes": {"namespace": namespace, "verb": "update", "group": "coordination.k8s.io", "resource": "leases", "name": "kube-controller-manager"}}});
    let sar = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    let (code, answer) = call(&server, Method::POST, sar, &[], review("kube-system")).await;
    assert_eq!(code, 201);
    assert_eq!(
        answer["status"],
        json!({"allowed": true, "reason": format!("RBAC: allowed by RoleBinding \"system::leader-locking-kube-controller-manager/kube-system\" of Role \"system::leader-locking-kube-controller-manager\" to ServiceAccount \"leader-election-controller/kube-system\"")})
    );
    let (_, answer) = call(&server, Method::POST, sar, &[], review("default")).await;
    assert_eq!(answer["status"], json!({"allowed": false}));
}

/// `kubectl auth can-i --list` as the controller's ServiceAccount prints what a 1.36 API
/// server answers for the same roles: the SelfSubjectRulesReview holds the rules of its
/// Role and ClusterRole and of the default roles every ServiceAccount holds
/// (`system:basic-user`, `system:discovery`, `system:public-info-viewer`,
/// `system:service-account-issuer-discovery`, from `bootstrappolicy/policy.go`); kubectl
/// breaks them down, compacts and sorts them (`cmd/auth/cani.go`, `printStatus`: rules
/// sorted by their Go `String()`, which starts with the verbs).
const CAN_I_LIST: &str = "\
Resources                                       Non-Resource URLs                      Resource Names    Verbs
selfsubjectreviews.authentication.k8s.io        []                                     []                [create]
selfsubjectaccessreviews.authorization.k8s.io   []                                     []                [create]
selfsubjectrulesreviews.authorization.k8s.io    []                                     []                [create]
pods                                            []                                     []                [get list watch]
                                                [/.well-known/openid-configuration/]   []                [get]
                                                [/.well-known/openid-configuration]    []                [get]
                                                [/api/*]                               []                [get]
                                                [/api]                                 []                [get]
                                                [/apis/*]                              []                [get]
                                                [/apis]                                []                [get]
                                                [/healthz]                             []                [get]
                                                [/healthz]                             []                [get]
                                                [/livez]                               []                [get]
                                                [/livez]                               []                [get]
                                                [/openapi/*]                           []                [get]
                                                [/openapi]                             []                [get]
                                                [/openid/v1/jwks/]                     []                [get]
                                                [/openid/v1/jwks]                      []                [get]
                                                [/readyz]                              []                [get]
                                                [/readyz]                              []                [get]
                                                [/version/]                            []                [get]
                                                [/version/]                            []                [get]
                                                [/version]                             []                [get]
                                                [/version]                             []                [get]
configmaps                                      []                                     [ctrl-settings]   [get]
configmaps                                      []                                     []                [list watch]
pods/status                                     []                                     []                [patch]
";

#[test]
fn kubectl_auth_can_i_as_a_service_account() {
    let (Some(kubectl), Some(corpus)) = (
        kubeforge_tests::kubectl("kubectl_auth_can_i"),
        kubeforge_tests::corpus("kubectl_auth_can_i", &["kubernetes/swagger.json"]),
    ) else {
        return;
    };
    // The binary serves TLS unless asked for plain HTTP.
    let server = kubeforge_tests::kubectl_server::KubectlServer::start(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &[corpus.join("kubernetes/swagger.json")],
    );
    // The kubeconfig's user is the administrator (kubectl sends its token, and `--as`,
    // only over TLS).
    let _ = server.ok(&["apply", "-f", "-"], CONTROLLER_RBAC);
    let as_sa = format!("--as={SA}");
    let listed = server.ok(&["auth", "can-i", "--list", &as_sa, "-n", "default"], "");
    assert_eq!(listed, CAN_I_LIST);
    assert_eq!(
        server
            .ok(&["auth", "can-i", "list", "pods", &as_sa], "")
            .trim(),
        "yes"
    );
    let (ok, stdout, _) = server.run(
        &["auth", "can-i", "list", "pods", &as_sa, "-n", "kube-system"],
        "",
    );
    assert!(!ok);
    assert_eq!(stdout.trim(), "no");
    let (ok, _, stderr) = server.run(&["get", "pods", "-n", "kube-system", &as_sa], "");
    assert!(!ok);
    assert_eq!(
        stderr.trim(),
        format!(
            "Error from server (Forbidden): pods is forbidden: User \"{SA}\" cannot list resource \"pods\" in API group \"\" in the namespace \"kube-system\""
        )
    );
    assert_eq!(
        server.ok(
            &[
                "auth",
                "whoami",
                "-o",
                "jsonpath={.status.userInfo.username}"
            ],
            ""
        ),
        "kubernetes-admin"
    );

    // Without the kubeconfig's credentials, a client reads and writes nothing.
    let (address, ca) = served_address(&server);
    let http = |method: &str, path: &str, token: Option<&str>, body: &str| {
        https(&address, &ca, method, path, token, body)
    };
    for (method, path, body) in [
        ("GET", "/api/v1/namespaces/default/configmaps", ""),
        (
            "GET",
            "/api/v1/namespaces/default/configmaps/kube-root-ca.crt",
            "",
        ),
        ("GET", "/api/v1/namespaces", ""),
        ("GET", "/apis", ""),
        (
            "POST",
            "/api/v1/namespaces/default/configmaps",
            "{\"metadata\":{\"name\":\"x\"}}",
        ),
        (
            "DELETE",
            "/api/v1/namespaces/default/configmaps/kube-root-ca.crt",
            "",
        ),
        (
            "GET",
            "/api/v1/namespaces/default/configmaps?watch=true",
            "",
        ),
    ] {
        assert_eq!(http(method, path, None, body), 403, "{method} {path}");
        assert_eq!(
            http(method, path, Some("wrong"), body),
            401,
            "{method} {path}"
        );
    }
    assert_eq!(http("GET", "/version", None, ""), 200);
    // Plain HTTP on the TLS port is told so, as Go's `http.Server` tells it, and answered
    // nothing else.
    for request in [
        "GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
    ] {
        let mut stream = std::net::TcpStream::connect(&address).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        assert_eq!(
            answer,
            "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"
        );
    }
    let config = std::fs::read_to_string(server.dir().join("config")).unwrap();
    let token = config
        .lines()
        .find_map(|l| l.trim().strip_prefix("token: "))
        .unwrap();
    assert_eq!(
        http(
            "GET",
            "/api/v1/namespaces/default/configmaps",
            Some(token),
            ""
        ),
        200
    );
    assert_eq!(
        server.ok(
            &["get", "configmap", "x", "--ignore-not-found", "-o", "name"],
            ""
        ),
        ""
    );
}

/// The kubeconfig the binary writes holds, as kind's and kubeadm's `admin.conf` do, a client
/// certificate for `kubernetes-admin` in `system:masters` signed by the cluster's CA: a
/// client that sends no token (kube-rs's own `custom_client_openssl_tls_configuration`
/// builds one) is the administrator by it alone; since the API server's x509 authenticator
/// comes before its token authenticators, a wrong token beside the certificate changes
/// nothing. (Without either, a client is `system:anonymous`:
/// `kubectl_auth_can_i_as_a_service_account`.)
#[test]
fn the_kubeconfig_client_certificate_authenticates_the_administrator() {
    let test = "the_kubeconfig_client_certificate_authenticates_the_administrator";
    let (Some(kubectl), Some(corpus)) = (
        kubeforge_tests::kubectl(test),
        kubeforge_tests::corpus(test, &["kubernetes/swagger.json"]),
    ) else {
        return;
    };
    let server = kubeforge_tests::kubectl_server::KubectlServer::start(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &[corpus.join("kubernetes/swagger.json")],
    );
    let config = std::fs::read_to_string(server.dir().join("config")).unwrap();
    let without = |prefixes: &[&str], name: &str| {
        let text: String = config
            .lines()
            .filter(|l| !prefixes.iter().any(|p| l.trim().starts_with(p)))
            .map(|l| format!("{l}\n"))
            .collect();
        server.file(name, &text)
    };
    let certificate_only = without(&["token: "], "certificate-only");
    let wrong_token = server.file(
        "wrong-token",
        &config
            .lines()
            .map(|l| {
                if l.trim().starts_with("token: ") {
                    "    token: wrong\n".to_owned()
                } else {
                    format!("{l}\n")
                }
            })
            .collect::<String>(),
    );
    let whoami = [
        "auth",
        "whoami",
        "-o",
        "jsonpath={.status.userInfo.username} {.status.userInfo.groups}",
    ];
    for (kubeconfig, name) in [
        (&certificate_only, "by-certificate"),
        (&wrong_token, "by-certificate-and-wrong-token"),
    ] {
        let flag = format!("--kubeconfig={kubeconfig}");
        let mut args = vec![flag.as_str()];
        args.extend(whoami);
        assert_eq!(
            server.ok(&args, ""),
            r#"kubernetes-admin ["system:masters","system:authenticated"]"#,
            "{kubeconfig}"
        );
        assert_eq!(
            server.ok(&[&flag, "create", "configmap", name], ""),
            format!("configmap/{name} created\n")
        );
    }
}

/// A client certificate the cluster's CA did not sign (here another cluster's: a fresh
/// `Server`'s CA, for the same `kubernetes-admin` in `system:masters`), or one expired on
/// the server's clock, passes the TLS handshake, as the API server asks for one with Go's
/// `tls.RequestClientCert` (`server/secure_serving.go`), and its x509 authenticator refuses
/// it (`request/x509/x509.go`): 401 with the Status a wrong token gets, for every path,
/// unless a bearer token authenticates the request instead (`request/union/union.go`
/// tries the next authenticator; the anonymous one comes after a failure only by
/// `NewFailOnError`, so never).
#[test]
fn a_client_certificate_that_does_not_verify_is_401() {
    let test = "a_client_certificate_that_does_not_verify_is_401";
    let (Some(kubectl), Some(corpus)) = (
        kubeforge_tests::kubectl(test),
        kubeforge_tests::corpus(test, &["kubernetes/swagger.json"]),
    ) else {
        return;
    };
    // Simulating, for a clock the test moves.
    let server = kubeforge_tests::kubectl_server::KubectlServer::start_with(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &["--simulate", "--nodes", "1"],
        &[corpus.join("kubernetes/swagger.json")],
    );
    let (address, ca) = served_address(&server);
    let config = std::fs::read_to_string(server.dir().join("config")).unwrap();
    let token = kubeconfig_field(&config, "token: ");
    let own = client_identity(&config);
    let other_cluster = Server::new(Catalog::default())
        .admin_kubeconfig("127.0.0.1:6443".parse().unwrap(), true)
        .unwrap();
    let foreign = client_identity(&other_cluster);
    const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
    let get = |path: &str, identity: &Identity, token: Option<&str>| {
        exchange(&address, &ca, Some(identity), "GET", path, token, "")
    };
    assert_eq!(get(CONFIGMAPS, &own, None).0, 200);
    // `responsewriters.Unauthorized`, as for a wrong token.
    let (code, body) = get(CONFIGMAPS, &foreign, None);
    assert_eq!(code, 401);
    let unauthorized = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "Unauthorized", "reason": "Unauthorized", "code": 401});
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        unauthorized,
        "{body}"
    );
    let (code, wrong_token) = exchange(&address, &ca, None, "GET", CONFIGMAPS, Some("wrong"), "");
    assert_eq!((code, &wrong_token), (401, &body));
    // Authentication fails before any path is looked at, public ones too.
    assert_eq!(get("/version", &foreign, None).0, 401);
    assert_eq!(get("/version", &own, None).0, 200);
    // A token that authenticates decides instead; a wrong one is 401 all the same.
    assert_eq!(get(CONFIGMAPS, &foreign, Some(&token)).0, 200);
    assert_eq!(get(CONFIGMAPS, &foreign, Some("wrong")).0, 401);
    // kubectl with the other cluster's certificate says what it says to a 401.
    let foreign_config = server.file(
        "foreign",
        &config
            .lines()
            .filter(|l| !l.trim().starts_with("token: "))
            .map(|l| {
                let field = l.trim().split(' ').next().unwrap_or("");
                match field {
                    "client-certificate-data:" | "client-key-data:" => {
                        let value = kubeconfig_field(&other_cluster, &format!("{field} "));
                        format!("    {field} {value}\n")
                    }
                    _ => format!("{l}\n"),
                }
            })
            .collect::<String>(),
    );
    let (ok, _, stderr) = server.run(&["--kubeconfig", &foreign_config, "get", "configmaps"], "");
    assert!(!ok);
    assert_eq!(
        stderr.trim().lines().last(),
        Some(
            "error: You must be logged in to the server (the server has asked for the client to provide credentials)"
        ),
        "{stderr}"
    );

    // The cluster's certificates are valid for ten years (as kubeadm's CA is): past them on
    // the server's clock, the administrator's certificate has expired.
    let (code, _) = exchange(
        &address,
        &ca,
        None,
        "POST",
        "/simulation/clock?advance=400000000",
        Some(&token),
        "",
    );
    assert_eq!(code, 200);
    let (code, body) = get(CONFIGMAPS, &own, None);
    assert_eq!(
        (code, serde_json::from_str::<Value>(&body).unwrap()),
        (401, unauthorized)
    );
    assert_eq!(get(CONFIGMAPS, &own, Some(&token)).0, 200);
}

/// A client certificate chain and its key (DER).
type Identity = (
    Vec<tokio_rustls::rustls::pki_types::CertificateDer<'static>>,
    tokio_rustls::rustls::pki_types::PrivateKeyDer<'static>,
);

/// The value of a kubeconfig's `field` (`token: `).
fn kubeconfig_field(config: &str, field: &str) -> String {
    config
        .lines()
        .find_map(|l| l.trim().strip_prefix(field))
        .unwrap()
        .trim()
        .to_owned()
}

/// The client certificate and key a kubeconfig holds.
fn client_identity(config: &str) -> Identity {
    use base64::Engine as _;
    use tokio_rustls::rustls::pki_types::pem::PemObject as _;
    use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let pem = |field: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(kubeconfig_field(config, field))
            .unwrap()
    };
    let chain = CertificateDer::pem_slice_iter(&pem("client-certificate-data: "))
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_slice(&pem("client-key-data: ")).unwrap();
    (chain, key)
}

/// The server's address and CA certificate (DER), from the kubeconfig the binary wrote.
fn served_address(server: &kubeforge_tests::kubectl_server::KubectlServer) -> (String, Vec<u8>) {
    use base64::Engine as _;
    let config = std::fs::read_to_string(server.dir().join("config")).unwrap();
    let field = |key: &str| {
        config
            .lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .unwrap()
            .trim()
            .to_owned()
    };
    let url = field("server: ");
    let pem = base64::engine::general_purpose::STANDARD
        .decode(field("certificate-authority-data: "))
        .unwrap();
    let pem = String::from_utf8(pem).unwrap();
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(body)
        .unwrap();
    (
        url.trim_start_matches("https://")
            .trim_end_matches('/')
            .to_owned(),
        der,
    )
}

/// One HTTP/1.1 request over TLS (trusting the cluster's CA `ca`) on its own connection,
/// with `token` as its bearer token: the status code.
fn https(
    address: &str,
    ca: &[u8],
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> u16 {
    exchange(address, ca, None, method, path, token, body).0
}

/// [`https`] with the client certificate `identity`, if any: the status code and the body.
fn exchange(
    address: &str,
    ca: &[u8],
    identity: Option<&Identity>,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (u16, String) {
    use tokio_rustls::rustls;
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(rustls::pki_types::CertificateDer::from(ca.to_vec()))
        .unwrap();
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    let config = match identity {
        Some((chain, key)) => config
            .with_client_auth_cert(chain.clone(), key.clone_key())
            .unwrap(),
        None => config.with_no_client_auth(),
    };
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let connection = rustls::ClientConnection::new(std::sync::Arc::new(config), name).unwrap();
    let mut stream =
        rustls::StreamOwned::new(connection, std::net::TcpStream::connect(address).unwrap());
    let authorization = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\n{authorization}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut text = Vec::new();
    // The server may close without a TLS close_notify once it has answered.
    let _ = stream.read_to_end(&mut text);
    let text = String::from_utf8_lossy(&text);
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let (head, mut chunks) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    if !head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return (code, chunks.to_owned());
    }
    // The body's chunks, joined.
    let mut body = String::new();
    while let Some((size, rest)) = chunks.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || rest.len() < size {
            break;
        }
        body.push_str(&rest[..size]);
        chunks = rest[size..].trim_start_matches("\r\n");
    }
    (code, body)
}

/// Where the server's bootstrap policy differs from a golden file of Kubernetes' own
/// (`../shared/corpus/kubernetes-rbac`, whose SOURCE.md names the commits), and why: `(file,
/// name, why)`, a name the file has whose object differs or is missing here, or, with `+`,
/// one the server has that no golden file of its kind has. The guide lists the same in
/// server-differences.md.
const POLICY_DIFFERENCES: &[(&str, &str, &str)] = &[
    (
        "cluster-roles.yaml",
        "system:aggregate-to-edit",
        "DRA's rules (GA, on by default since 1.34; the file is older)",
    ),
    (
        "cluster-roles.yaml",
        "system:aggregate-to-view",
        "DRA's rules, likewise",
    ),
    (
        "cluster-roles.yaml",
        "system:kube-scheduler",
        "DRA's rules, likewise",
    ),
    ("cluster-roles.yaml", "system:node", "DRA's rules, likewise"),
    (
        "cluster-roles-featuregates.yaml",
        "system:cluster-trust-bundle-discovery",
        "ClusterTrustBundle is off by default",
    ),
    (
        "cluster-roles-featuregates.yaml",
        "system:kube-scheduler",
        "no rules of gates off by default (devicetaintrules, pods/finalizers)",
    ),
    (
        "cluster-roles-featuregates.yaml",
        "system:node",
        "no rules of gates off by default (clustertrustbundles)",
    ),
    (
        "cluster-roles-featuregates.yaml",
        "system:monitoring",
        "no /flagz, /statusz (alpha gates); nodes/metrics, newer than the file",
    ),
    (
        "cluster-role-bindings.yaml",
        "+system:monitoring",
        "added since the file (about 2020)",
    ),
    (
        "cluster-role-bindings.yaml",
        "+system:service-account-issuer-discovery",
        "added since the file",
    ),
    (
        "controller-role-bindings.yaml",
        "system:controller:podcertificaterequestcleaner",
        "controller-roles.yaml has no such role",
    ),
    (
        "controller-role-bindings.yaml",
        "+system:controller:device-taint-eviction-controller",
        "the binding of a role controller-roles.yaml has, newer than this file",
    ),
    (
        "controller-role-bindings.yaml",
        "+system:controller:resource-claim-controller",
        "likewise",
    ),
    (
        "controller-role-bindings.yaml",
        "+system:controller:volumeattributesclass-protection-controller",
        "likewise",
    ),
];

/// An object as the golden files show it: its name, namespace, labels and annotations, and
/// its rules (not an aggregated role's, which the aggregation controller computes) or its
/// subjects and role.
fn policy_form(mut object: Value) -> Value {
    let metadata = object["metadata"].as_object_mut().unwrap();
    metadata.retain(|k, _| matches!(k.as_str(), "name" | "namespace" | "labels" | "annotations"));
    let map = object.as_object_mut().unwrap();
    if map.contains_key("aggregationRule") {
        map.remove("rules");
    }
    if map
        .get("subjects")
        .is_some_and(|s| s.as_array().is_none_or(Vec::is_empty))
    {
        map.remove("subjects");
    }
    map.retain(|k, v| k != "kind" && k != "apiVersion" && !v.is_null());
    object
}

/// Every role and binding of the policy's golden files is on a new server as the file has
/// it, but for the differences [`POLICY_DIFFERENCES`] names; and the server has none of
/// its own but those.
#[tokio::test]
async fn the_bootstrap_policy_is_kubernetes_own() {
    let test = "the_bootstrap_policy_is_kubernetes_own";
    let files = [
        ("cluster-roles.yaml", "clusterroles"),
        ("cluster-roles-featuregates.yaml", "clusterroles"),
        ("controller-roles.yaml", "clusterroles"),
        ("cluster-role-bindings.yaml", "clusterrolebindings"),
        ("controller-role-bindings.yaml", "clusterrolebindings"),
        ("namespace-roles.yaml", "roles"),
        ("namespace-role-bindings.yaml", "rolebindings"),
    ];
    let needed: Vec<String> = files
        .iter()
        .map(|(file, _)| format!("kubernetes-rbac/{file}"))
        .collect();
    let needed: Vec<&str> = needed.iter().map(String::as_str).collect();
    let Some(corpus) = kubeforge_tests::corpus(test, &needed) else {
        return;
    };
    let Some(catalog) = catalog(test) else {
        return;
    };
    let server = Server::new(catalog);
    let key = |object: &Value| {
        let namespace = object["metadata"]["namespace"].as_str().unwrap_or("");
        let name = object["metadata"]["name"].as_str().unwrap_or("");
        if namespace.is_empty() {
            name.to_owned()
        } else {
            format!("{namespace}/{name}")
        }
    };
    let mut served = std::collections::BTreeMap::new();
    for plural in [
        "clusterroles",
        "clusterrolebindings",
        "roles",
        "rolebindings",
    ] {
        let uri = format!("/apis/rbac.authorization.k8s.io/v1/{plural}");
        let (code, list) = call(&server, Method::GET, &uri, &[], Value::Null).await;
        assert_eq!(code, 200);
        let objects: std::collections::BTreeMap<String, Value> = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (key(o), policy_form(o.clone())))
            .collect();
        served.insert(plural, objects);
    }
    let mut found = std::collections::BTreeSet::new();
    let mut golden_names: std::collections::BTreeMap<&str, std::collections::BTreeSet<String>> =
        std::collections::BTreeMap::new();
    for (file, plural) in files {
        let text = std::fs::read_to_string(corpus.join("kubernetes-rbac").join(file)).unwrap();
        let list: Value = serde_saphyr::from_str(&text).unwrap();
        let items = list["items"].as_array().unwrap();
        assert!(!items.is_empty(), "{file}");
        for item in items {
            let name = key(item);
            golden_names.entry(plural).or_default().insert(name.clone());
            if served[plural].get(&name) != Some(&policy_form(item.clone())) {
                found.insert((file, name));
            }
        }
    }
    // What the server has beyond every golden file of its kind, named after the bindings'
    // file it would be in.
    for (plural, objects) in &served {
        for name in objects.keys() {
            if golden_names[plural].contains(name) {
                continue;
            }
            let file = match *plural {
                "clusterrolebindings" if name.starts_with("system:controller:") => {
                    "controller-role-bindings.yaml"
                }
                "clusterrolebindings" => "cluster-role-bindings.yaml",
                "clusterroles" => "cluster-roles.yaml",
                _ => "namespace files",
            };
            found.insert((file, format!("+{name}")));
        }
    }
    let expected: std::collections::BTreeSet<(&str, String)> = POLICY_DIFFERENCES
        .iter()
        .map(|(file, name, _)| (*file, (*name).to_owned()))
        .collect();
    assert_eq!(found, expected, "differences from the golden files");
    // `system:auth-delegator`, which a ServiceAccount needs for TokenReviews.
    assert!(served["clusterroles"].contains_key("system:auth-delegator"));
}
