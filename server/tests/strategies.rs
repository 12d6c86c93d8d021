//! Each built-in kind's registry strategy, its delete answer and the `Status` body, as kube-rs
//! and raw HTTP see them against the in-process server serving Kubernetes 1.36's
//! `swagger.json`, and as `kubectl` sees them against the binary (the objects the server
//! guide shows). What each case expects is what a real API server answers: the Go strategy
//! it comes from is named in `server/data/builtin-strategies.txt`. Also the hand-written
//! validation the schemas cannot say (`server/src/semantics/kinds/`).

use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment};
use k8s_openapi::api::core::v1::{ConfigMap, Node, Pod, Service};
use kube::Client;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kubeforge_server::{Catalog, Server};
use kubeforge_tests::kubectl_server::KubectlServer;
use serde_json::{Value, json};

fn server() -> Option<Server> {
    let corpus = kubeforge_tests::corpus("strategies", &["kubernetes/swagger.json"])?;
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    Some(Server::new(catalog))
}

/// The status code and the body's bytes of a request.
async fn raw(server: &Server, method: Method, uri: &str, body: &str) -> (u16, String) {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(Full::new(bytes::Bytes::from(body.to_owned())))
        .unwrap();
    let response = server.call_async(request).await;
    let code = response.status().as_u16();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (code, String::from_utf8(bytes.to_vec()).unwrap())
}

fn pod(name: &str, resources: Value) -> Pod {
    serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "app", "image": "nginx", "resources": resources}]},
        "status": {"phase": "Running", "podIP": "10.0.0.1"},
    }))
    .unwrap()
}

fn service(name: &str, spec: Value) -> Service {
    serde_json::from_value(json!({"metadata": {"name": name}, "spec": spec})).unwrap()
}

#[tokio::test]
async fn created_objects_carry_what_each_strategy_sets() {
    let Some(server) = server() else {
        return;
    };
    let client = Client::new(server.clone(), "default");
    let post = PostParams::default();

    // A Pod: the status it was sent is replaced by `Pending` and its QoS class.
    let pods: Api<Pod> = Api::default_namespaced(client.clone());
    for (name, resources, qos) in [
        ("best-effort", json!({}), "BestEffort"),
        (
            "burstable",
            json!({"requests": {"cpu": "100m"}}),
            "Burstable",
        ),
        (
            // Requests default to the limits (SetDefaults_Pod): the limits alone make it
            // Guaranteed.
            "guaranteed",
            json!({"limits": {"cpu": "500m", "memory": "128Mi"}}),
            "Guaranteed",
        ),
    ] {
        let created = pods.create(&post, &pod(name, resources)).await.unwrap();
        let status = created.status.unwrap();
        assert_eq!(status.phase.as_deref(), Some("Pending"), "{name}");
        assert_eq!(status.qos_class.as_deref(), Some(qos), "{name}");
        assert_eq!(status.pod_ip, None, "{name}");
        assert_eq!(created.metadata.generation, Some(1), "{name}");
    }
    // A Pod's generation follows its spec, not its labels.
    let patched = pods
        .patch(
            "best-effort",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"a": "b"}}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.metadata.generation, Some(1));
    let patched = pods
        .patch(
            "best-effort",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"activeDeadlineSeconds": 60}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.metadata.generation, Some(2));

    // A Deployment: generation 1, bumped by a change of its spec or of its annotations, not
    // by one of its labels or of its status.
    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    let deployment: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            },
        },
        "status": {"replicas": 3},
    }))
    .unwrap();
    let created = deployments.create(&post, &deployment).await.unwrap();
    assert_eq!(created.metadata.generation, Some(1));
    assert_eq!(
        serde_json::to_value(created.status).unwrap(),
        json!({}),
        "the status sent is dropped"
    );
    let generation = |patch: Value| {
        let deployments = deployments.clone();
        async move {
            deployments
                .patch("web", &PatchParams::default(), &Patch::Merge(patch))
                .await
                .unwrap()
                .metadata
                .generation
        }
    };
    assert_eq!(
        generation(json!({"metadata": {"labels": {"x": "y"}}})).await,
        Some(1)
    );
    assert_eq!(
        generation(json!({"metadata": {"annotations": {"x": "y"}}})).await,
        Some(2)
    );
    assert_eq!(generation(json!({"spec": {"replicas": 3}})).await, Some(3));
    let status = deployments
        .patch_status(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"replicas": 3}, "spec": {"replicas": 9}})),
        )
        .await
        .unwrap();
    assert_eq!(status.metadata.generation, Some(3));
    assert_eq!(status.spec.replicas, Some(3), "status keeps the spec");

    // A ConfigMap's strategy sets no generation.
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let config_map: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "c"}, "data": {"a": "b"}})).unwrap();
    let created = config_maps.create(&post, &config_map).await.unwrap();
    assert_eq!(created.metadata.generation, None);

    // A Node keeps the status it is created with.
    let nodes: Api<Node> = Api::all(client.clone());
    let node: Node = serde_json::from_value(json!({
        "metadata": {"name": "n1"},
        "status": {"capacity": {"cpu": "4"}},
    }))
    .unwrap();
    let created = nodes.create(&post, &node).await.unwrap();
    assert_eq!(
        created.status.unwrap().capacity.unwrap()["cpu"].0,
        "4",
        "a created Node keeps its status"
    );
    assert_eq!(created.metadata.generation, None);
}

/// A DaemonSet's template generation (`daemonset/strategy.go`), which apps/v1 carries in an
/// annotation: 1 on create, one more when an update changes the template, the same when it
/// does not; what a client sends for it is overwritten.
#[tokio::test]
async fn a_daemon_sets_template_generation_follows_its_template() {
    let Some(server) = server() else {
        return;
    };
    let daemonsets: Api<DaemonSet> = Api::default_namespaced(Client::new(server, "default"));
    let generation = |d: &DaemonSet| {
        d.metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get("deprecated.daemonset.template.generation"))
            .cloned()
    };
    let agent: DaemonSet = serde_json::from_value(json!({
        "metadata": {"name": "agent", "annotations": {"deprecated.daemonset.template.generation": "7"}},
        "spec": {
            "selector": {"matchLabels": {"app": "agent"}},
            "template": {
                "metadata": {"labels": {"app": "agent"}},
                "spec": {"containers": [{"name": "agent", "image": "busybox:1"}]},
            },
        },
    }))
    .unwrap();
    let created = daemonsets
        .create(&PostParams::default(), &agent)
        .await
        .unwrap();
    assert_eq!(generation(&created).as_deref(), Some("1"));
    let image = json!({"spec": {"template": {"spec": {"containers": [{"name": "agent", "image": "busybox:2"}]}}}});
    let patched = daemonsets
        .patch("agent", &PatchParams::default(), &Patch::Strategic(image))
        .await
        .unwrap();
    assert_eq!(generation(&patched).as_deref(), Some("2"));
    let other = json!({"spec": {"minReadySeconds": 5}});
    let patched = daemonsets
        .patch("agent", &PatchParams::default(), &Patch::Strategic(other))
        .await
        .unwrap();
    assert_eq!(generation(&patched).as_deref(), Some("2"));
    assert_eq!(patched.metadata.generation, Some(3));
}

#[tokio::test]
async fn services_get_their_cluster_ips_and_node_ports_allocated() {
    let Some(server) = server() else {
        return;
    };
    let client = Client::new(server.clone(), "default");
    let post = PostParams::default();
    let services: Api<Service> = Api::default_namespaced(client.clone());
    let ports = json!([{"port": 80, "targetPort": 8080}]);

    let first = services
        .create(&post, &service("first", json!({"ports": ports})))
        .await
        .unwrap();
    let spec = first.spec.unwrap();
    let ip = spec.cluster_ip.clone().unwrap();
    assert!(ip.starts_with("10.96."), "{ip}");
    assert_eq!(spec.cluster_ips, Some(vec![ip.clone()]));
    assert_eq!(spec.ip_families, Some(vec!["IPv4".to_owned()]));
    assert_eq!(spec.ip_family_policy.as_deref(), Some("SingleStack"));
    assert_eq!(
        serde_json::to_value(first.status).unwrap(),
        json!({"loadBalancer": {}})
    );
    assert_eq!(first.metadata.generation, None);

    let node_port = services
        .create(
            &post,
            &service(
                "np",
                json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local", "ports": ports}),
            ),
        )
        .await
        .unwrap()
        .spec
        .unwrap();
    assert_ne!(node_port.cluster_ip, Some(ip.clone()));
    let port = node_port.ports.unwrap()[0].node_port.unwrap();
    assert!((30000..=32767).contains(&port), "{port}");
    let health = node_port.health_check_node_port.unwrap();
    assert!((30000..=32767).contains(&health) && health != port);

    let headless = services
        .create(
            &post,
            &service(
                "headless",
                json!({"clusterIP": "None", "selector": {"a": "b"}, "ports": ports}),
            ),
        )
        .await
        .unwrap()
        .spec
        .unwrap();
    assert_eq!(headless.cluster_ips, Some(vec!["None".to_owned()]));
    assert_eq!(headless.ip_family_policy.as_deref(), Some("SingleStack"));
    let external = services
        .create(
            &post,
            &service(
                "external",
                json!({"type": "ExternalName", "externalName": "example.com"}),
            ),
        )
        .await
        .unwrap()
        .spec
        .unwrap();
    assert_eq!(external.cluster_ip, None);
    assert_eq!(external.ip_families, None);

    // What another Service holds is refused, in the allocators' words.
    let taken = services
        .create(
            &post,
            &service("taken", json!({"clusterIP": ip, "ports": ports})),
        )
        .await
        .unwrap_err();
    let kube::Error::Api(status) = taken else {
        panic!("{taken}")
    };
    assert_eq!(status.code, 422);
    assert_eq!(
        status.message,
        format!(
            "Service \"taken\" is invalid: spec.clusterIPs: Invalid value: []string{{\"{ip}\"}}: failed to allocate IP {ip}: provided IP is already allocated"
        )
    );
    let taken = services
        .create(
            &post,
            &service(
                "taken",
                json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": port}]}),
            ),
        )
        .await
        .unwrap_err();
    assert!(
        taken.to_string().contains(&format!(
            "spec.ports[0].nodePort: Invalid value: {port}: provided port is already allocated"
        )),
        "{taken}"
    );

    // An update that leaves the allocated values out keeps them.
    let mut replaced = service("first", json!({"ports": [{"port": 81}]}));
    replaced.metadata.resource_version = None;
    let replaced = services.replace("first", &post, &replaced).await.unwrap();
    assert_eq!(replaced.spec.unwrap().cluster_ip, Some(ip));
}

#[tokio::test]
async fn deletes_answer_what_each_operation_declares() {
    let Some(server) = server() else {
        return;
    };
    let client = Client::new(server.clone(), "default");
    let post = PostParams::default();

    // A Pod's delete answers the Pod (`Either::Left`), as deleted: no node runs it, so it
    // goes at once with grace period 0.
    let pods: Api<Pod> = Api::default_namespaced(client.clone());
    pods.create(&post, &pod("p", json!({}))).await.unwrap();
    let deleted = pods.delete("p", &DeleteParams::default()).await.unwrap();
    let deleted = deleted.left().expect("a Pod's delete answers the Pod");
    assert_eq!(deleted.metadata.name.as_deref(), Some("p"));
    assert_eq!(deleted.metadata.deletion_grace_period_seconds, Some(0));
    assert!(deleted.metadata.deletion_timestamp.is_some());
    assert_eq!(deleted.metadata.generation, Some(2));

    // So does a Service's.
    let services: Api<Service> = Api::default_namespaced(client.clone());
    services
        .create(&post, &service("s", json!({"ports": [{"port": 80}]})))
        .await
        .unwrap();
    let deleted = services
        .delete("s", &DeleteParams::default())
        .await
        .unwrap();
    assert!(deleted.is_left(), "a Service's delete answers the Service");

    // A ConfigMap's answers a `Status`, byte for byte as Go writes it: the core group and
    // the code left out (`omitempty`), a newline after the object.
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let created = config_maps
        .create(
            &post,
            &serde_json::from_value(json!({"metadata": {"name": "c"}})).unwrap(),
        )
        .await
        .unwrap();
    let uid = created.metadata.uid.unwrap();
    let (code, body) = raw(
        &server,
        Method::DELETE,
        "/api/v1/namespaces/default/configmaps/c",
        "",
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(
        body,
        format!(
            "{{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{{}},\"status\":\"Success\",\"details\":{{\"name\":\"c\",\"kind\":\"configmaps\",\"uid\":\"{uid}\"}}}}\n"
        )
    );

    // An object finalizers hold is answered, 202 when `orphanDependents: false` was asked.
    let held: ConfigMap = serde_json::from_value(
        json!({"metadata": {"name": "held", "finalizers": ["example.com/hold"]}}),
    )
    .unwrap();
    config_maps.create(&post, &held).await.unwrap();
    let (code, body) = raw(
        &server,
        Method::DELETE,
        "/api/v1/namespaces/default/configmaps/held",
        r#"{"orphanDependents": false}"#,
    )
    .await;
    assert_eq!(code, 202);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["kind"], "ConfigMap");

    // deletecollection answers the list of what it deleted.
    for name in ["a", "b"] {
        pods.create(&post, &pod(name, json!({}))).await.unwrap();
    }
    let (code, body) = raw(
        &server,
        Method::DELETE,
        "/api/v1/namespaces/default/pods",
        "",
    )
    .await;
    assert_eq!(code, 200);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["kind"], "PodList");
    let names: Vec<&str> = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.pointer("/metadata/name").and_then(Value::as_str))
        .collect();
    assert_eq!(names, ["a", "b"]);
}

/// The example of the API conventions ("Response Status Kind",
/// community/contributors/devel/sig-architecture/api-conventions.md): a 404 for the Pod
/// `grafana`, as the API server writes it (compact, with its trailing newline).
#[tokio::test]
async fn a_status_is_written_as_the_api_server_writes_it() {
    let Some(server) = server() else {
        return;
    };
    let (code, body) = raw(
        &server,
        Method::GET,
        "/api/v1/namespaces/default/pods/grafana",
        "",
    )
    .await;
    assert_eq!(code, 404);
    assert_eq!(
        body,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"pods \\\"grafana\\\" not found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"grafana\",\"kind\":\"pods\"},\"code\":404}\n"
    );
    // A group's resource names its group; a cause's empty field is left out.
    let (_, body) = raw(
        &server,
        Method::GET,
        "/apis/apps/v1/namespaces/default/deployments/web",
        "",
    )
    .await;
    assert_eq!(
        body,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"deployments.apps \\\"web\\\" not found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"web\",\"group\":\"apps\",\"kind\":\"deployments\"},\"code\":404}\n"
    );
}

/// The guide's session (docs/src/guide/server.md, "What a created object looks like"):
/// `kubectl run`, `create deployment` and `create service clusterip` against the binary,
/// read back with the fields the guide shows.
#[test]
fn kubectl_reads_back_what_the_guide_shows() {
    let Some(corpus) = kubeforge_tests::corpus(
        "kubectl_reads_back_what_the_guide_shows",
        &["kubernetes/swagger.json"],
    ) else {
        return;
    };
    let Some(kubectl) = kubeforge_tests::kubectl("kubectl_reads_back_what_the_guide_shows") else {
        return;
    };
    let server = KubectlServer::start(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &[corpus.join("kubernetes/swagger.json")],
    );
    for (args, printed) in [
        (&["run", "web", "--image=nginx"][..], "pod/web created\n"),
        (
            &["create", "deployment", "app", "--image=nginx"],
            "deployment.apps/app created\n",
        ),
        (
            &["create", "service", "clusterip", "app", "--tcp=80:8080"],
            "service/app created\n",
        ),
    ] {
        assert_eq!(server.ok(args, ""), printed);
    }
    let get = |what: &str| -> Value {
        serde_json::from_str(&server.ok(&["get", what, "-o", "json"], "")).unwrap()
    };
    let pod = get("pod/web");
    assert_eq!(
        pod["status"],
        json!({"phase": "Pending", "qosClass": "BestEffort"})
    );
    assert_eq!(pod["metadata"]["generation"], 1);
    assert_eq!(pod["spec"]["restartPolicy"], "Always");
    assert_eq!(pod["spec"]["containers"][0]["imagePullPolicy"], "Always");
    let deployment = get("deployment/app");
    assert_eq!(deployment["metadata"]["generation"], 1);
    assert_eq!(deployment["status"], json!({}));
    assert_eq!(deployment["spec"]["progressDeadlineSeconds"], 600);
    let service = get("service/app");
    let spec = &service["spec"];
    let ip = spec["clusterIP"].as_str().unwrap();
    assert!(ip.starts_with("10.96."), "{ip}");
    assert_eq!(spec["clusterIPs"], json!([ip]));
    assert_eq!(spec["ipFamilies"], json!(["IPv4"]));
    assert_eq!(spec["ipFamilyPolicy"], "SingleStack");
    assert_eq!(spec["internalTrafficPolicy"], "Cluster");
    assert_eq!(service["status"], json!({"loadBalancer": {}}));
    assert_eq!(service["metadata"].get("generation"), None);
}

/// `ValidateConfigMap` and `ValidateSecret` check every key with `IsConfigMapKey`; a
/// Secret's `stringData` keys are reported as `data`'s.
#[tokio::test]
async fn config_keys_are_checked_as_the_api_server_checks_them() {
    let Some(server) = server() else {
        return;
    };
    let rule = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
    let (code, body) = raw(
        &server,
        Method::POST,
        "/api/v1/namespaces/default/configmaps",
        r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bad"}, "data": {"a b": "c", "ok": "d"}}"#,
    )
    .await;
    assert_eq!(code, 422);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        body["message"],
        format!("ConfigMap \"bad\" is invalid: data[a b]: Invalid value: \"a b\": {rule}")
    );
    assert_eq!(
        body["details"]["causes"],
        json!([{"reason": "FieldValueInvalid", "message": format!("Invalid value: \"a b\": {rule}"), "field": "data[a b]"}])
    );
    let (code, body) = raw(
        &server,
        Method::POST,
        "/api/v1/namespaces/default/secrets",
        r#"{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "bad"}, "stringData": {"..x": "y"}}"#,
    )
    .await;
    assert_eq!(code, 422);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        body["message"],
        "Secret \"bad\" is invalid: data[..x]: Invalid value: \"..x\": must not start with '..'"
    );
}

/// A workload's selector must select its template's labels (`ValidateDeploymentSpec`).
#[tokio::test]
async fn a_deployments_selector_must_select_its_template() {
    let Some(server) = server() else {
        return;
    };
    let deployment = |selector: Value| {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "bad"},
            "spec": {
                "selector": selector,
                "template": {
                    "metadata": {"labels": {"app": "web", "tier": "front"}},
                    "spec": {"containers": [{"name": "web", "image": "nginx"}]},
                },
            },
        })
        .to_string()
    };
    let uri = "/apis/apps/v1/namespaces/default/deployments";
    let (code, body) = raw(
        &server,
        Method::POST,
        uri,
        &deployment(json!({"matchLabels": {"app": "other"}})),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        body["message"],
        "Deployment.apps \"bad\" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\", \"tier\":\"front\"}: `selector` does not match template `labels`"
    );
    let (code, body) = raw(
        &server,
        Method::POST,
        uri,
        &deployment(
            json!({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["front"]}]}),
        ),
    )
    .await;
    assert_eq!(code, 201, "{body}");
}

/// What Go's encoding writes that a schema does not say: the scalars without `omitempty` at
/// their zero (`builtin-value-scalars.txt`: a new StatefulSet's status, a metav1.Condition's
/// `reason`), and `[]byte` as `base64.StdEncoding` reads it (line breaks skipped) and
/// writes it (in one line).
#[tokio::test]
async fn objects_are_written_as_go_writes_them() {
    let Some(server) = server() else {
        return;
    };
    let statefulset = json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {"selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
                 "template": {"metadata": {"labels": {"app": "db"}},
                              "spec": {"containers": [{"name": "db", "image": "postgres"}]}}},
    });
    let (code, body) = raw(
        &server,
        Method::POST,
        "/apis/apps/v1/namespaces/default/statefulsets",
        &statefulset.to_string(),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let created: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        created["status"],
        json!({"replicas": 0, "availableReplicas": 0})
    );
    // A Secret's `data` with the line breaks `base64 -w 76` (or a YAML block) leaves in it.
    let secret = json!({
        "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "wrapped"},
        "data": {"key": "aGVsbG8g\r\nd29y\nbGQ=\n", "plain": "aGVsbG8="},
    });
    let (code, body) = raw(
        &server,
        Method::POST,
        "/api/v1/namespaces/default/secrets",
        &secret.to_string(),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let created: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        created["data"],
        json!({"key": "aGVsbG8gd29ybGQ=", "plain": "aGVsbG8="})
    );
    // What Go cannot decode is still refused.
    let bad = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "bad"},
                     "data": {"key": "aGVsbG8"}});
    let (code, body) = raw(
        &server,
        Method::POST,
        "/api/v1/namespaces/default/secrets",
        &bad.to_string(),
    )
    .await;
    assert_ne!(code, 201, "{body}");
}
