//! The defaults kube-apiserver's Go code gives the built-in kinds (`server/data/builtin-defaults.txt`),
//! seen as a user sees them: objects created with `kubectl` against the binary serving the
//! whole Kubernetes 1.36 API (`swagger.json`, and the OpenAPI v3 documents) read back with
//! the fields a real 1.36 API server adds. The expected `spec`s are what a real server
//! answers to the same commands, its default admission plugins' additions included (a
//! Pod's service account and its token volume, tolerations, priority). kubectl is found on
//! `PATH`; without it or the corpus the tests print `SKIPPED: …`, and fail in CI.

use std::path::PathBuf;

use kubeforge_tests::kubectl_server::KubectlServer;
use serde_json::{Value, json};

fn start(
    test: &str,
    inputs: impl FnOnce(&std::path::Path) -> Vec<PathBuf>,
) -> Option<KubectlServer> {
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json", "kubernetes/v3"])?;
    let kubectl = kubeforge_tests::kubectl(test)?;
    Some(KubectlServer::start(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &inputs(&corpus),
    ))
}

fn json_of(server: &KubectlServer, args: &[&str]) -> Value {
    let text = server.ok(args, "");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("kubectl {args:?}: {e}: {text}"))
}

/// `kubectl create deployment web --image=nginx`: a real 1.36 server's `spec` and `status`.
fn deployment() -> Value {
    json!({
        "spec": {
            "progressDeadlineSeconds": 600,
            "replicas": 1,
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": {"app": "web"}},
            "strategy": {
                "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
                "type": "RollingUpdate"
            },
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [{
                        "image": "nginx",
                        "imagePullPolicy": "Always",
                        "name": "nginx",
                        "resources": {},
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File"
                    }],
                    "dnsPolicy": "ClusterFirst",
                    "restartPolicy": "Always",
                    "schedulerName": "default-scheduler",
                    "securityContext": {},
                    "terminationGracePeriodSeconds": 30
                }
            }
        },
        "status": {}
    })
}

/// `kubectl run web --image=nginx:1.27 --port=80`: a real server's container and the
/// `spec` fields its defaulters set.
fn pod_spec(volume: &str) -> Value {
    json!({
        "containers": [{
            "image": "nginx:1.27",
            "imagePullPolicy": "IfNotPresent",
            "name": "web",
            "ports": [{"containerPort": 80, "protocol": "TCP"}],
            "resources": {},
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
            "volumeMounts": [{
                "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                "name": volume,
                "readOnly": true
            }]
        }],
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": true,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "serviceAccount": "default",
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
        "tolerations": [
            {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
            {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300}
        ],
        "volumes": [{
            "name": volume,
            "projected": {
                "defaultMode": 420,
                "sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                    {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
                    {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}, "path": "namespace"}]}}
                ]
            }
        }]
    })
}

/// `kubectl create service clusterip web --tcp=80:8080`: a real server's `spec` (its cluster
/// IP the first the server allocates, where Go's is random); its `status`.
fn service() -> Value {
    json!({
        "spec": {
            "clusterIP": "10.96.1.1",
            "clusterIPs": ["10.96.1.1"],
            "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack",
            "internalTrafficPolicy": "Cluster",
            "ports": [{"name": "80-8080", "port": 80, "protocol": "TCP", "targetPort": 8080}],
            "selector": {"app": "web"},
            "sessionAffinity": "None",
            "type": "ClusterIP"
        },
        "status": {"loadBalancer": {}}
    })
}

/// The object at `path` as the server writes it (`kubectl get --raw`: kubectl's own
/// rendering would add what its Go structs write, such as a template's
/// `creationTimestamp: null` before 1.33).
fn raw(server: &KubectlServer, path: &str) -> Value {
    json_of(server, &["get", "--raw", path])
}

fn check(server: &KubectlServer) {
    let _ = server.ok(&["create", "deployment", "web", "--image=nginx"], "");
    let expected = deployment();
    let read = raw(server, "/apis/apps/v1/namespaces/default/deployments/web");
    assert_eq!(read["spec"], expected["spec"], "read back: {read:#}");
    assert_eq!(read["status"], expected["status"]);

    let _ = server.ok(&["run", "web", "--image=nginx:1.27", "--port=80"], "");
    let pod = raw(server, "/api/v1/namespaces/default/pods/web");
    // The token volume's name ends in five random characters, as the API server makes it.
    let volume = pod["spec"]["volumes"][0]["name"].as_str().unwrap_or("");
    assert!(
        volume.len() == "kube-api-access-".len() + 5 && volume.starts_with("kube-api-access-"),
        "{pod:#}"
    );
    assert_eq!(pod["spec"], pod_spec(volume), "pod: {pod:#}");

    let _ = server.ok(
        &["create", "service", "clusterip", "web", "--tcp=80:8080"],
        "",
    );
    let created = raw(server, "/api/v1/namespaces/default/services/web");
    let expected = service();
    assert_eq!(created["spec"], expected["spec"], "service: {created:#}");
    assert_eq!(created["status"], expected["status"]);

    // A user's own values stay, and an update is defaulted as a create is.
    let _ = server.ok(
        &[
            "patch",
            "deployment",
            "web",
            "--type=merge",
            "-p",
            r#"{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null},"revisionHistoryLimit":3}}"#,
        ],
        "",
    );
    let patched = raw(server, "/apis/apps/v1/namespaces/default/deployments/web");
    assert_eq!(patched["spec"]["strategy"], json!({"type": "Recreate"}));
    assert_eq!(patched["spec"]["revisionHistoryLimit"], 3);
    let _ = server.ok(
        &[
            "patch",
            "deployment",
            "web",
            "--type=json",
            "-p",
            r#"[{"op":"remove","path":"/spec/template/spec/dnsPolicy"}]"#,
        ],
        "",
    );
    let patched = raw(server, "/apis/apps/v1/namespaces/default/deployments/web");
    assert_eq!(
        patched["spec"]["template"]["spec"]["dnsPolicy"],
        "ClusterFirst"
    );

    // Applying the same manifest again finds nothing to change: what the server added is
    // what it adds every time.
    let manifest = server.ok(
        &[
            "create",
            "deployment",
            "again",
            "--image=nginx",
            "--dry-run=client",
            "-o",
            "yaml",
        ],
        "",
    );
    let file = server.file("again.yaml", &manifest);
    let _ = server.ok(&["apply", "--server-side", "-f", &file], "");
    let (same, stdout, stderr) = server.run(&["diff", "--server-side", "-f", &file], "");
    assert!(same, "kubectl diff found a change:\n{stdout}{stderr}");
}

#[test]
fn built_in_kinds_read_back_with_their_defaults_on_the_swagger_document() {
    let test = "built_in_kinds_read_back_with_their_defaults_on_the_swagger_document";
    let Some(server) = start(test, |corpus| vec![corpus.join("kubernetes/swagger.json")]) else {
        return;
    };
    check(&server);
}

#[test]
fn built_in_kinds_read_back_with_their_defaults_on_the_openapi_v3_documents() {
    let test = "built_in_kinds_read_back_with_their_defaults_on_the_openapi_v3_documents";
    let Some(server) = start(test, |corpus| {
        kubeforge_tests::sorted_files(&corpus.join("kubernetes/v3"), "json")
    }) else {
        return;
    };
    check(&server);
}
