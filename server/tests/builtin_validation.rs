//! The built-in kinds' hand-written validation (`server/src/semantics/kinds/`), as a
//! client sees it: each request refused with the 422 a real API server answers, its whole
//! message (`Pod "p" is invalid: [a, b]`) and its causes' fields, through raw HTTP against
//! the in-process server serving Kubernetes 1.36's `swagger.json`, through kube-rs, and
//! through `kubectl apply` against the binary. The expected texts are the API server's
//! (pkg/apis/{core,apps,batch,rbac,networking}/validation/validation.go, robfig/cron).

use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use k8s_openapi::api::core::v1::Service;
use kube::Client;
use kube::api::{Api, PostParams};
use kubeforge_server::{Catalog, Server};
use kubeforge_tests::kubectl_server::KubectlServer;
use serde_json::{Value, json};

fn server(test: &str) -> Option<Server> {
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    Some(Server::new(catalog))
}

/// The status code and the body of a request.
async fn call(server: &Server, method: Method, uri: &str, body: &Value) -> (u16, Value) {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(Full::new(bytes::Bytes::from(body.to_string())))
        .unwrap();
    let response = server.call_async(request).await;
    let code = response.status().as_u16();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (code, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// Creates `body` in `collection`, which must succeed; the created object.
async fn created(server: &Server, collection: &str, body: &Value) -> Value {
    let (code, object) = call(server, Method::POST, collection, body).await;
    assert_eq!(code, 201, "{object}");
    object
}

/// Sends `body`, which must be refused with a 422; its message, after checking that each
/// cause's message is the message's part for its field.
async fn refused(server: &Server, method: Method, uri: &str, body: &Value) -> String {
    let (code, status) = call(server, method, uri, body).await;
    assert_eq!(code, 422, "{status}");
    assert_eq!(status["reason"], "Invalid");
    let message = status["message"].as_str().unwrap().to_owned();
    for cause in status["details"]["causes"].as_array().unwrap() {
        let part = format!(
            "{}: {}",
            cause["field"].as_str().unwrap(),
            cause["message"].as_str().unwrap()
        );
        assert!(message.contains(&part), "{message}\n lacks {part}");
    }
    message
}

const PODS: &str = "/api/v1/namespaces/default/pods";

fn pod(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})
}

#[tokio::test]
async fn pods_are_checked_as_validate_pod_spec_checks_them() {
    let Some(server) = server("pods_are_checked_as_validate_pod_spec_checks_them") else {
        return;
    };
    let cases = [
        (
            json!({"containers": [{"name": "a", "image": "nginx"}, {"name": "a"}]}),
            r#"Pod "p" is invalid: [spec.containers[1].image: Required value, spec.containers[1].name: Duplicate value: "a"]"#,
        ),
        (
            json!({"containers": [{"name": "Web_1", "image": "nginx"}]}),
            r#"Pod "p" is invalid: spec.containers[0].name: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"#,
        ),
        (
            json!({"containers": [{"name": "a", "image": "nginx", "ports": [
                {"name": "web", "containerPort": 70000, "protocol": "HTTP"},
                {"name": "web", "containerPort": 8080},
            ]}]}),
            r#"Pod "p" is invalid: [spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP", spec.containers[0].ports[1].name: Duplicate value: "web"]"#,
        ),
        (
            json!({"containers": [{"name": "a", "image": "nginx", "env": [{"name": "A=B", "value": "1"}]}]}),
            r#"Pod "p" is invalid: spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='"#,
        ),
        (
            json!({"volumes": [{"name": "data", "emptyDir": {}}, {"name": "data", "emptyDir": {}}],
                   "containers": [{"name": "a", "image": "nginx", "volumeMounts": [{"name": "cache", "mountPath": "/c"}]}]}),
            r#"Pod "p" is invalid: [spec.volumes[1].name: Duplicate value: "data", spec.containers[0].volumeMounts[0].name: Not found: "cache"]"#,
        ),
        (
            json!({"restartPolicy": "Sometimes", "dnsPolicy": "Google", "containers": [{"name": "a", "image": "nginx"}]}),
            r#"Pod "p" is invalid: [spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never", spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]"#,
        ),
        (
            json!({"containers": [{"name": "a", "image": "nginx", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}]}),
            r#"Pod "p" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1"#,
        ),
        (
            json!({"containers": [{"name": "a", "image": " nginx"}]}),
            r#"Pod "p" is invalid: spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace"#,
        ),
        (
            json!({"initContainers": [{"name": "a", "image": "busybox"}], "containers": [{"name": "a", "image": "nginx"}]}),
            r#"Pod "p" is invalid: spec.initContainers[0].name: Duplicate value: "a""#,
        ),
    ];
    for (spec, expected) in cases {
        assert_eq!(
            refused(&server, Method::POST, PODS, &pod("p", spec)).await,
            expected
        );
    }
}

#[tokio::test]
async fn a_pod_update_changes_only_what_validate_pod_update_allows() {
    let Some(server) = server("a_pod_update_changes_only_what_validate_pod_update_allows") else {
        return;
    };
    let spec =
        json!({"containers": [{"name": "a", "image": "nginx", "ports": [{"containerPort": 80}]}]});
    let mut stored = created(&server, PODS, &pod("web", spec)).await;
    let uri = format!("{PODS}/web");
    // The image may change.
    stored["spec"]["containers"][0]["image"] = json!("nginx:2");
    let (code, updated) = call(&server, Method::PUT, &uri, &stored).await;
    assert_eq!(code, 200, "{updated}");
    let mut changed = updated.clone();
    changed["spec"]["containers"][0]["ports"][0]["containerPort"] = json!(8080);
    assert_eq!(
        refused(&server, Method::PUT, &uri, &changed).await,
        "Pod \"web\" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
    );
    let mut more = updated.clone();
    more["spec"]["containers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "b", "image": "busybox"}));
    assert_eq!(
        refused(&server, Method::PUT, &uri, &more).await,
        "Pod \"web\" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers"
    );
    // Through `ephemeralcontainers`, one may be added, and not removed afterwards.
    let mut debugged = updated.clone();
    debugged["spec"]["ephemeralContainers"] =
        json!([{"name": "debug", "image": "busybox", "targetContainerName": "a"}]);
    let ephemeral = format!("{uri}/ephemeralcontainers");
    let (code, with) = call(&server, Method::PUT, &ephemeral, &debugged).await;
    assert_eq!(code, 200, "{with}");
    let mut without = with.clone();
    without["spec"]["ephemeralContainers"] = json!([]);
    assert_eq!(
        refused(&server, Method::PUT, &ephemeral, &without).await,
        "Pod \"web\" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers \"debug\" may not be removed\n"
    );
    // kube-rs's `replace_ephemeral_containers` sends only them: the rest of the Pod stays.
    let only = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {"ephemeralContainers": [
        {"name": "debug", "image": "busybox", "targetContainerName": "a"},
        {"name": "debug2", "image": "busybox"},
    ]}});
    let (code, with) = call(&server, Method::PUT, &ephemeral, &only).await;
    assert_eq!(code, 200, "{with}");
    assert_eq!(with["spec"]["containers"][0]["image"], "nginx:2");
    assert_eq!(with["spec"]["ephemeralContainers"][1]["name"], "debug2");
    let updated = with;
    // A toleration may be added, not removed.
    let mut tolerated = updated.clone();
    tolerated["spec"]["tolerations"] = json!([]);
    assert_eq!(
        refused(&server, Method::PUT, &uri, &tolerated).await,
        "Pod \"web\" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"
    );
}

const SERVICES: &str = "/api/v1/namespaces/default/services";

fn service(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec})
}

#[tokio::test]
async fn services_are_checked_as_validate_service_checks_them() {
    let Some(server) = server("services_are_checked_as_validate_service_checks_them") else {
        return;
    };
    let cases = [
        (
            json!({"selector": {"app": "a"}}),
            r#"Service "s" is invalid: spec.ports: Required value"#,
        ),
        (
            json!({"ports": [{"port": 80}, {"port": 80}]}),
            r#"Service "s" is invalid: [spec.ports[0].name: Required value, spec.ports[1].name: Required value, spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}]"#,
        ),
        (
            json!({"ports": [{"name": "Web", "port": 0, "targetPort": "HTTP"}]}),
            r#"Service "s" is invalid: [spec.ports[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-), spec.ports[0].targetPort: Invalid value: "HTTP": must contain at least one letter (a-z)]"#,
        ),
        (
            json!({"ports": [{"port": 80, "nodePort": 30080}]}),
            "Service \"s\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
        ),
        (
            json!({"type": "Internal", "ports": [{"port": 80}]}),
            r#"Service "s" is invalid: spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort""#,
        ),
        (
            json!({"type": "ExternalName"}),
            r#"Service "s" is invalid: spec.externalName: Required value"#,
        ),
    ];
    for (spec, expected) in cases {
        assert_eq!(
            refused(&server, Method::POST, SERVICES, &service("s", spec)).await,
            expected
        );
    }
}

/// kube-rs replacing a Service with another cluster IP: refused as
/// `validateUpgradeDowngradeClusterIPs` refuses it.
#[tokio::test]
async fn a_service_keeps_its_cluster_ip() {
    let Some(server) = server("a_service_keeps_its_cluster_ip") else {
        return;
    };
    let services: Api<Service> = Api::default_namespaced(Client::new(server.clone(), "default"));
    let wanted: Service =
        serde_json::from_value(service("db", json!({"ports": [{"port": 5432}]}))).unwrap();
    let mut stored = services
        .create(&PostParams::default(), &wanted)
        .await
        .unwrap();
    let spec = stored.spec.as_mut().unwrap();
    spec.cluster_ip = Some("10.96.200.200".to_owned());
    spec.cluster_ips = Some(vec!["10.96.200.200".to_owned()]);
    let kube::Error::Api(status) = services
        .replace("db", &PostParams::default(), &stored)
        .await
        .unwrap_err()
    else {
        panic!("not an API error");
    };
    assert_eq!(status.code, 422);
    assert_eq!(
        status.message,
        r#"Service "db" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.200.200"}: may not change once set"#
    );
}

const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";

fn deployment(name: &str, spec: Value) -> Value {
    let mut full = json!({
        "replicas": 1,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}},
    });
    for (key, value) in spec.as_object().unwrap() {
        full[key] = value.clone();
    }
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}, "spec": full})
}

#[tokio::test]
async fn workloads_are_checked_as_the_apps_validation_checks_them() {
    let Some(server) = server("workloads_are_checked_as_the_apps_validation_checks_them") else {
        return;
    };
    let cases = [
        (
            json!({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}}),
            r#"Deployment.apps "d" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0"#,
        ),
        (
            json!({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "5", "maxUnavailable": "150%"}}}),
            r#"Deployment.apps "d" is invalid: [spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"5"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%',  regex used for validation is '[0-9]+%'), spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%]"#,
        ),
        (
            json!({"replicas": -1, "revisionHistoryLimit": -2}),
            r#"Deployment.apps "d" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0]"#,
        ),
        (
            json!({"template": {"metadata": {"labels": {"app": "web"}}, "spec": {"restartPolicy": "Never", "containers": [{"name": "web", "image": "nginx"}]}}}),
            r#"Deployment.apps "d" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always""#,
        ),
        (
            json!({"selector": {}}),
            r#"Deployment.apps "d" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment"#,
        ),
    ];
    for (spec, expected) in cases {
        assert_eq!(
            refused(&server, Method::POST, DEPLOYMENTS, &deployment("d", spec)).await,
            expected
        );
    }
    // apps/v1 fixes the selector.
    let mut stored = created(&server, DEPLOYMENTS, &deployment("app", json!({}))).await;
    stored["spec"]["selector"] = json!({"matchLabels": {"app": "api"}});
    stored["spec"]["template"]["metadata"]["labels"] = json!({"app": "api"});
    assert_eq!(
        refused(&server, Method::PUT, &format!("{DEPLOYMENTS}/app"), &stored).await,
        r#"Deployment.apps "app" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"api"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"#
    );
    // A StatefulSet may change its replicas, not its service name.
    let sets = "/apis/apps/v1/namespaces/default/statefulsets";
    let mut set = deployment("db", json!({"serviceName": "db"}));
    set["kind"] = json!("StatefulSet");
    let mut stored = created(&server, sets, &set).await;
    stored["spec"]["serviceName"] = json!("other");
    assert_eq!(
        refused(&server, Method::PUT, &format!("{sets}/db"), &stored).await,
        "StatefulSet.apps \"db\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
    );
    let mut daemons = deployment(
        "agent",
        json!({"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 0}}}),
    );
    daemons["kind"] = json!("DaemonSet");
    daemons["spec"].as_object_mut().unwrap().remove("replicas");
    assert_eq!(
        refused(
            &server,
            Method::POST,
            "/apis/apps/v1/namespaces/default/daemonsets",
            &daemons
        )
        .await,
        r#"DaemonSet.apps "agent" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"#
    );
}

#[tokio::test]
async fn jobs_and_cronjobs_are_checked_as_the_batch_validation_checks_them() {
    let Some(server) = server("jobs_and_cronjobs_are_checked_as_the_batch_validation_checks_them")
    else {
        return;
    };
    let jobs = "/apis/batch/v1/namespaces/default/jobs";
    let job = |spec: Value| {
        let mut full = json!({"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}});
        for (key, value) in spec.as_object().unwrap() {
            full[key] = value.clone();
        }
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": full})
    };
    assert_eq!(
        refused(
            &server,
            Method::POST,
            jobs,
            &job(
                json!({"template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}})
            )
        )
        .await,
        r#"Job.batch "j" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never""#
    );
    assert_eq!(
        refused(
            &server,
            Method::POST,
            jobs,
            &job(json!({"backoffLimit": -1, "parallelism": -2}))
        )
        .await,
        r#"Job.batch "j" is invalid: [spec.parallelism: Invalid value: -2: must be greater than or equal to 0, spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0]"#
    );
    let mut stored = created(&server, jobs, &job(json!({}))).await;
    stored["spec"]["template"]["spec"]["containers"][0]["image"] = json!("busybox:2");
    let message = refused(&server, Method::PUT, &format!("{jobs}/j"), &stored).await;
    assert!(
        message.starts_with(r#"Job.batch "j" is invalid: spec.template: Invalid value: "#),
        "{message}"
    );
    assert!(message.ends_with(": field is immutable"), "{message}");

    let cronjobs = "/apis/batch/v1/namespaces/default/cronjobs";
    let cronjob = |schedule: &str, zone: Option<&str>| {
        json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"}, "spec": {
            "schedule": schedule, "timeZone": zone,
            "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}}},
        }})
    };
    for (schedule, zone, expected) in [
        (
            "* * * *",
            None,
            r#"CronJob.batch "c" is invalid: spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]"#,
        ),
        (
            "*/5 25 * * *",
            None,
            r#"CronJob.batch "c" is invalid: spec.schedule: Invalid value: "*/5 25 * * *": end of range (25) above maximum (23): 25"#,
        ),
        (
            "CRON_TZ=UTC 0 * * * *",
            None,
            r#"CronJob.batch "c" is invalid: spec.schedule: Invalid value: "CRON_TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead"#,
        ),
        (
            "@daily",
            Some("Local"),
            r#"CronJob.batch "c" is invalid: spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"#,
        ),
    ] {
        assert_eq!(
            refused(&server, Method::POST, cronjobs, &cronjob(schedule, zone)).await,
            expected
        );
    }
    created(&server, cronjobs, &cronjob("0 9 * * MON-FRI", Some("UTC"))).await;
}

#[tokio::test]
async fn rbac_objects_are_checked_as_the_rbac_validation_checks_them() {
    let Some(server) = server("rbac_objects_are_checked_as_the_rbac_validation_checks_them") else {
        return;
    };
    let roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles";
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r"},
        "rules": [{"nonResourceURLs": ["/healthz"]}, {"verbs": ["get"]}]});
    assert_eq!(
        refused(&server, Method::POST, roles, &role).await,
        r#"Role.rbac.authorization.k8s.io "r" is invalid: [rules[0].verbs: Required value: verbs must contain at least one value, rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs, rules[1].apiGroups: Required value: resource rules must supply at least one api group, rules[1].resources: Required value: resource rules must supply at least one resource]"#
    );
    let bindings = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings";
    let binding = |kind: &str, role: &str| {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "b"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": [{"kind": kind, "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]})
    };
    assert_eq!(
        refused(&server, Method::POST, bindings, &binding("Robot", "view")).await,
        r#"RoleBinding.rbac.authorization.k8s.io "b" is invalid: subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group""#
    );
    let mut stored = created(&server, bindings, &binding("User", "view")).await;
    stored["roleRef"]["name"] = json!("edit");
    assert_eq!(
        refused(&server, Method::PUT, &format!("{bindings}/b"), &stored).await,
        r#"RoleBinding.rbac.authorization.k8s.io "b" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef"#
    );
}

#[tokio::test]
async fn ingresses_namespaces_config_maps_and_secrets_are_checked() {
    let Some(server) = server("ingresses_namespaces_config_maps_and_secrets_are_checked") else {
        return;
    };
    let ingress = json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "i"}, "spec": {"rules": [
        {"host": "*.*.example.com", "http": {"paths": [
            {"path": "/a//b", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {}}}},
            {"path": "/", "pathType": "Exact", "backend": {"service": {"name": "web", "port": {"number": 80}}, "resource": {"kind": "Bucket", "name": "b"}}},
        ]}},
    ]}});
    assert_eq!(
        refused(
            &server,
            Method::POST,
            "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
            &ingress
        )
        .await,
        r#"Ingress.networking.k8s.io "i" is invalid: [spec.rules[0].host: Invalid value: "*.*.example.com": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.rules[0].http.paths[0].path: Invalid value: "/a//b": must not contain '//', spec.rules[0].http.paths[0].backend: Required value: port name or number is required, spec.rules[0].http.paths[1].backend: Invalid value: "": cannot set both resource and service backends]"#
    );
    let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}, "spec": {"finalizers": ["foo"]}});
    assert_eq!(
        refused(&server, Method::POST, "/api/v1/namespaces", &namespace).await,
        r#"Namespace "n" is invalid: spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified"#
    );
    let maps = "/api/v1/namespaces/default/configmaps";
    let both = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "both"}, "data": {"a": "1"}, "binaryData": {"a": "MQ=="}});
    assert_eq!(
        refused(&server, Method::POST, maps, &both).await,
        r#"ConfigMap "both" is invalid: data[a]: Invalid value: "a": duplicate of key present in binaryData"#
    );
    let mut stored = created(&server, maps, &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "frozen"}, "immutable": true, "data": {"a": "1"}})).await;
    stored["data"]["a"] = json!("2");
    assert_eq!(
        refused(&server, Method::PUT, &format!("{maps}/frozen"), &stored).await,
        "ConfigMap \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` is set"
    );
    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "tls"}, "type": "kubernetes.io/tls", "stringData": {"tls.crt": "x"}});
    assert_eq!(
        refused(
            &server,
            Method::POST,
            "/api/v1/namespaces/default/secrets",
            &secret
        )
        .await,
        r#"Secret "tls" is invalid: data[tls.key]: Required value"#
    );
}

/// `kubectl apply` of a changed Pod and a changed Deployment selector against the binary:
/// kubectl prints the API server's refusal.
#[test]
fn kubectl_apply_prints_the_api_servers_refusals() {
    let test = "kubectl_apply_prints_the_api_servers_refusals";
    let Some(corpus) = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"]) else {
        return;
    };
    let Some(kubectl) = kubeforge_tests::kubectl(test) else {
        return;
    };
    let server = KubectlServer::start(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &[corpus.join("kubernetes/swagger.json")],
    );
    let pod = |port: u16| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: web\n    image: nginx\n    ports:\n    - containerPort: {port}\n"
        )
    };
    let file = server.file("pod.yaml", &pod(80));
    assert_eq!(server.ok(&["apply", "-f", &file], ""), "pod/web created\n");
    let file = server.file("pod.yaml", &pod(8080));
    let stderr = server.fails(&["apply", "-f", &file], "");
    assert!(
        stderr.contains("The Pod \"web\" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"),
        "{stderr}"
    );
    let deployment = |app: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  selector:\n    matchLabels:\n      app: {app}\n  template:\n    metadata:\n      labels:\n        app: {app}\n    spec:\n      containers:\n      - name: app\n        image: nginx\n"
        )
    };
    let file = server.file("deployment.yaml", &deployment("web"));
    assert_eq!(
        server.ok(&["apply", "-f", &file], ""),
        "deployment.apps/app created\n"
    );
    let file = server.file("deployment.yaml", &deployment("api"));
    let stderr = server.fails(&["apply", "-f", &file], "");
    assert!(
        stderr.contains(r#"The Deployment "app" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"api"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"#),
        "{stderr}"
    );
}
