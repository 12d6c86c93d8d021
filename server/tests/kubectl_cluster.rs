//! What a cluster has before anyone writes to it, and field selectors per kind, through
//! `kubectl` against the `kubeforge-server` binary serving Kubernetes 1.36's `swagger.json`:
//! the `default/kubernetes` Service and its endpoints (pointing at the server), the
//! `default` ServiceAccount and `kube-root-ca.crt` ConfigMap in every namespace (made again
//! when deleted, and in every new namespace), `cluster-admin`, `kubectl get cs` with its
//! deprecation warning; and each kind's own field labels in lists and watches, with the API
//! server's refusals. kubectl is found on `PATH`; without it or the corpus the test prints
//! `SKIPPED: …`, and fails in CI.

use std::io::Read;
use std::process::Stdio;

use kubeforge_tests::kubectl_server::KubectlServer;

fn start(test: &str) -> Option<KubectlServer> {
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
    let kubectl = kubeforge_tests::kubectl(test)?;
    Some(KubectlServer::start(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &[corpus.join("kubernetes/swagger.json")],
    ))
}

/// `text` with the values that differ between runs (uid, resourceVersion, creation time,
/// the server's port) replaced by `*`.
fn masked(text: &str, port: &str) -> String {
    text.lines()
        .map(|line| {
            let trimmed = line.trim_start();
            for key in ["creationTimestamp: ", "resourceVersion: ", "uid: "] {
                if trimmed.starts_with(key) {
                    return format!("{}{key}*", &line[..line.len() - trimmed.len()]);
                }
            }
            line.replace(port, "PORT")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The port the server listens on, from its kubeconfig.
fn port(server: &KubectlServer) -> String {
    let config = std::fs::read_to_string(server.dir().join("config")).unwrap();
    let url = config
        .lines()
        .find_map(|l| l.trim().strip_prefix("server: https://127.0.0.1:"))
        .unwrap();
    url.to_owned()
}

const KUBERNETES_SERVICE: &str = "apiVersion: v1
kind: Service
metadata:
  creationTimestamp: *
  labels:
    component: apiserver
    provider: kubernetes
  name: kubernetes
  namespace: default
  resourceVersion: *
  uid: *
spec:
  clusterIP: 10.96.0.1
  clusterIPs:
  - 10.96.0.1
  internalTrafficPolicy: Cluster
  ipFamilies:
  - IPv4
  ipFamilyPolicy: SingleStack
  ports:
  - name: https
    port: 443
    protocol: TCP
    targetPort: PORT
  sessionAffinity: None
  type: ClusterIP
status:
  loadBalancer: {}";

#[test]
fn a_new_cluster_has_what_kubeadm_makes() {
    let Some(server) = start("a_new_cluster_has_what_kubeadm_makes") else {
        return;
    };
    let port = port(&server);
    let ok = |args: &[&str]| server.ok(args, "");

    let service = ok(&["get", "svc", "kubernetes", "-o", "yaml"]);
    assert_eq!(masked(service.trim_end(), &port), KUBERNETES_SERVICE);
    assert_eq!(
        ok(&[
            "get",
            "endpointslice",
            "kubernetes",
            "-o",
            "jsonpath={.metadata.labels.kubernetes\\.io/service-name} {.endpoints[0].addresses[0]}:{.ports[0].port} {.ports[0].name}"
        ]),
        format!("kubernetes 127.0.0.1:{port} https")
    );
    assert_eq!(
        ok(&[
            "get",
            "endpoints",
            "kubernetes",
            "-o",
            "jsonpath={.subsets[0].addresses[0].ip}:{.subsets[0].ports[0].port}"
        ]),
        format!("127.0.0.1:{port}")
    );

    // Every namespace has its ServiceAccount and the CA, the same CA everywhere.
    for namespace in ["default", "kube-node-lease", "kube-public", "kube-system"] {
        assert_eq!(
            ok(&["get", "sa,cm", "-n", namespace, "-o", "name"]),
            "serviceaccount/default\nconfigmap/kube-root-ca.crt\n",
            "{namespace}"
        );
    }
    let ca = |namespace: &str| {
        ok(&[
            "get",
            "cm",
            "kube-root-ca.crt",
            "-n",
            namespace,
            "-o",
            "jsonpath={.data.ca\\.crt}",
        ])
    };
    let pem = ca("kube-system");
    assert!(pem.starts_with("-----BEGIN CERTIFICATE-----\n"), "{pem}");
    assert_eq!(ca("kube-public"), pem);
    check_authority(&server, &pem);
    assert_eq!(
        ok(&[
            "get",
            "cm",
            "kube-root-ca.crt",
            "-o",
            "jsonpath={.metadata.annotations.kubernetes\\.io/description}"
        ]),
        "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."
    );

    // A new namespace gets both; deleted, they come back; changed, the CA is put back.
    assert_eq!(ok(&["create", "ns", "x"]), "namespace/x created\n");
    assert_eq!(
        ok(&["get", "sa", "default", "-n", "x", "-o", "name"]),
        "serviceaccount/default\n"
    );
    let uid = ok(&[
        "get",
        "sa",
        "default",
        "-n",
        "x",
        "-o",
        "jsonpath={.metadata.uid}",
    ]);
    ok(&["delete", "sa", "default", "-n", "x"]);
    let again = ok(&[
        "get",
        "sa",
        "default",
        "-n",
        "x",
        "-o",
        "jsonpath={.metadata.uid}",
    ]);
    assert!(!again.is_empty() && again != uid, "{uid} {again}");
    ok(&["delete", "cm", "kube-root-ca.crt", "-n", "x"]);
    assert_eq!(ca("x"), pem);
    ok(&[
        "patch",
        "cm",
        "kube-root-ca.crt",
        "-n",
        "x",
        "-p",
        r#"{"data":{"ca.crt":"mine"}}"#,
    ]);
    assert_eq!(ca("x"), pem);

    // The whole bootstrap policy: `system:auth-delegator`, which a ServiceAccount needs
    // for TokenReviews, and the controllers' roles and bindings.
    assert_eq!(
        ok(&["get", "clusterrole", "system:auth-delegator", "-o", "name"]),
        "clusterrole.rbac.authorization.k8s.io/system:auth-delegator\n"
    );
    assert_eq!(
        ok(&[
            "get",
            "clusterrolebinding",
            "system:controller:job-controller",
            "-o",
            "jsonpath={.subjects[0].namespace}/{.subjects[0].name}"
        ]),
        "kube-system/job-controller"
    );
    // The bootstrap policy's cluster-admin.
    assert_eq!(
        ok(&[
            "get",
            "clusterrolebinding",
            "cluster-admin",
            "-o",
            "jsonpath={.roleRef.name} {.subjects[0].kind}/{.subjects[0].name}"
        ]),
        "cluster-admin Group/system:masters"
    );
    assert_eq!(
        ok(&[
            "get",
            "clusterrole",
            "cluster-admin",
            "-o",
            "jsonpath={.rules[0]}"
        ]),
        r#"{"apiGroups":["*"],"resources":["*"],"verbs":["*"]}"#
    );

    // Component statuses: computed, with the deprecation warning.
    let (passed, out, err) = server.run(&["get", "cs"], "");
    assert!(passed, "{err}");
    assert_eq!(
        out,
        "NAME                 STATUS    MESSAGE   ERROR\n\
         controller-manager   Healthy   ok        \n\
         etcd-0               Healthy   ok        \n\
         scheduler            Healthy   ok        \n"
    );
    assert_eq!(err, "Warning: v1 ComponentStatus is deprecated in v1.19+\n");
    assert!(
        server
            .fails(&["get", "cs", "nope"], "")
            .contains(r#"componentstatuses "nope" not found"#)
    );
}

/// The CA is one: `CN=kubernetes`, `CA:TRUE`, as openssl reads it (when installed).
fn check_authority(server: &KubectlServer, pem: &str) {
    let path = server.file("ca.crt", pem);
    let Ok(output) = std::process::Command::new("openssl")
        .args([
            "x509",
            "-noout",
            "-subject",
            "-ext",
            "basicConstraints",
            "-in",
            &path,
        ])
        .output()
    else {
        return;
    };
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("CN = kubernetes") || text.contains("CN=kubernetes"),
        "{text}"
    );
    assert!(text.contains("CA:TRUE"), "{text}");
}

const OBJECTS: &str = "apiVersion: v1
kind: Pod
metadata: {name: scheduled}
spec:
  nodeName: n1
  containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: waiting}
spec:
  containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Secret
metadata: {name: tls}
type: kubernetes.io/tls
data: {tls.crt: eA==, tls.key: eA==}
";

#[test]
fn field_selectors_take_each_kinds_labels() {
    let Some(server) = start("field_selectors_take_each_kinds_labels") else {
        return;
    };
    let ok = |args: &[&str]| server.ok(args, "");
    let fails = |args: &[&str]| server.fails(args, "");
    let path = server.file("objects.yaml", OBJECTS);
    ok(&["apply", "-f", &path]);

    let names = |resource: &str, selector: &str| {
        ok(&["get", resource, "--field-selector", selector, "-o", "name"])
    };
    assert_eq!(names("pods", "spec.nodeName=n1"), "pod/scheduled\n");
    assert_eq!(names("pods", "spec.host=n1"), "pod/scheduled\n");
    assert_eq!(names("pods", "spec.nodeName!=n1"), "pod/waiting\n");
    assert_eq!(
        names("pods", "spec.hostNetwork=false,spec.restartPolicy!=Never"),
        "pod/scheduled\npod/waiting\n"
    );
    assert_eq!(names("pods", "status.phase=Running"), "");
    assert_eq!(names("secrets", "type=kubernetes.io/tls"), "secret/tls\n");
    assert_eq!(
        names("svc", "spec.clusterIP=10.96.0.1"),
        "service/kubernetes\n"
    );
    assert_eq!(
        names("ns", "status.phase=Active,metadata.name=kube-public"),
        "namespace/kube-public\n"
    );

    assert_eq!(names("nodes", "spec.unschedulable=true"), "");
    ok(&["cordon", "n1"]);
    assert_eq!(names("nodes", "spec.unschedulable=true"), "node/n1\n");

    // A watch sees a node that stops matching go.
    let mut watch = server
        .command(&[
            "get",
            "--raw",
            "/api/v1/nodes?watch=1&fieldSelector=spec.unschedulable%3Dtrue&timeoutSeconds=3",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    ok(&["uncordon", "n1"]);
    let mut events = String::new();
    watch
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut events)
        .unwrap();
    watch.wait().unwrap();
    let types: Vec<&str> = events
        .lines()
        .filter_map(|line| line.split('"').nth(3))
        .collect();
    assert_eq!(types, ["ADDED", "DELETED"], "{events}");

    // The API server's refusals, each kind's own.
    assert_eq!(
        fails(&["get", "pods", "--field-selector", "spec.containers=x"]),
        "Error from server (BadRequest): Unable to find \"/v1, Resource=pods\" that match label selector \"\", field selector \"spec.containers=x\": field label not supported: spec.containers\n"
    );
    assert!(
        fails(&["get", "nodes", "--field-selector", "metadata.namespace=x"])
            .ends_with(": field label not supported: metadata.namespace\n")
    );
    assert!(
        fails(&["get", "rs", "--field-selector", "status.replicas=0"]).ends_with(
            ": \"status.replicas\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"\n"
        )
    );
    assert!(
        fails(&["get", "jobs", "--field-selector", "status.failed=0"])
            .ends_with(": field label \"status.failed\" not supported for batchv1.Job\n")
    );
    assert!(
        fails(&["get", "pods", "--field-selector", "spec.nodeName"])
            .ends_with(": invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'\n")
    );
}

const WIDGETS: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    selectableFields:
    - jsonPath: .spec.color
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string}
              size: {type: integer}
";

const TWO_WIDGETS: &str = "apiVersion: example.com/v1
kind: Widget
metadata: {name: red}
spec: {color: red, size: 1}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: blue}
spec: {color: blue, size: 2}
";

#[test]
fn a_custom_resource_is_selected_by_its_selectable_fields() {
    let test = "a_custom_resource_is_selected_by_its_selectable_fields";
    let (Some(corpus), Some(kubectl)) = (
        kubeforge_tests::corpus(test, &["kubernetes/swagger.json"]),
        kubeforge_tests::kubectl(test),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let crd = dir.path().join("widgets.yaml");
    std::fs::write(&crd, WIDGETS).unwrap();
    let server = KubectlServer::start(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &[corpus.join("kubernetes/swagger.json"), crd],
    );
    let path = server.file("widgets.yaml", TWO_WIDGETS);
    assert_eq!(
        server.ok(&["apply", "-f", &path], ""),
        "widget.example.com/red created\nwidget.example.com/blue created\n"
    );
    assert_eq!(
        server.ok(
            &[
                "get",
                "widgets",
                "--field-selector",
                "spec.color=blue",
                "-o",
                "name"
            ],
            ""
        ),
        "widget.example.com/blue\n"
    );
    assert!(
        server
            .fails(&["get", "widgets", "--field-selector", "spec.size=1"], "")
            .ends_with(": field label not supported: spec.size\n")
    );
}

/// What Python 3.13's `ssl.create_default_context()` sets: OpenSSL's strict X.509 checks
/// (an Authority Key Identifier on every certificate a CA signed, a Subject Key Identifier
/// on the CA, `basicConstraints` critical on it) and partial chains. The script connects to
/// the server with the kubeconfig's CA and sends `GET /version` with its token.
const STRICT_CLIENT: &str = r#"
import http.client, json, ssl, sys
ca, port, token = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ctx = ssl.create_default_context(cafile=ca)
ctx.verify_flags |= ssl.VERIFY_X509_STRICT | ssl.VERIFY_X509_PARTIAL_CHAIN
for host in ("127.0.0.1", "localhost"):
    conn = http.client.HTTPSConnection(host, port, context=ctx)
    conn.request("GET", "/version", headers={"Authorization": "Bearer " + token})
    response = conn.getresponse()
    print(host, response.status, json.loads(response.read())["major"])
"#;

/// A client with strict X.509 checks connects, as kubeadm's certificates let it: the CA
/// with its Subject Key Identifier, the serving certificate with the CA's key as its
/// Authority Key Identifier, `CA:FALSE`, its key usages and the loopback names (which
/// `openssl x509 -text` shows, checked too when openssl is installed). Needs python3 (3.11
/// has `VERIFY_X509_STRICT`), found on `PATH`.
#[test]
fn a_strict_tls_client_connects() {
    let test = "a_strict_tls_client_connects";
    let Some(python) = kubeforge_tests::program_in(
        "python3",
        std::env::var_os("PATH").as_deref(),
        test,
        kubeforge_tests::in_ci(),
    ) else {
        return;
    };
    let Some(server) = start(test) else {
        return;
    };
    let config = std::fs::read_to_string(server.dir().join("config")).unwrap();
    let field = |key: &str| {
        config
            .lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .unwrap()
            .trim()
            .to_owned()
    };
    use base64::Engine as _;
    let ca = base64::engine::general_purpose::STANDARD
        .decode(field("certificate-authority-data:"))
        .unwrap();
    let ca = server.file("strict-ca.crt", &String::from_utf8(ca).unwrap());
    let output = std::process::Command::new(python)
        .args(["-c", STRICT_CLIENT, &ca, &port(&server), &field("token:")])
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{out}{err}");
    assert_eq!(out, "127.0.0.1 200 1\nlocalhost 200 1\n");

    // What the serving certificate carries, as openssl prints it.
    let Ok(shown) = std::process::Command::new("openssl")
        .args([
            "s_client",
            "-connect",
            &format!("127.0.0.1:{}", port(&server)),
        ])
        .stdin(Stdio::null())
        .output()
    else {
        return;
    };
    let text = String::from_utf8_lossy(&shown.stdout);
    let begin = text.find("-----BEGIN CERTIFICATE-----").unwrap();
    let end = text.find("-----END CERTIFICATE-----").unwrap();
    let leaf = server.file(
        "serving.crt",
        &format!("{}-----END CERTIFICATE-----\n", &text[begin..end]),
    );
    let decoded = std::process::Command::new("openssl")
        .args(["x509", "-noout", "-text", "-in", &leaf])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&decoded.stdout);
    for expected in [
        "X509v3 Key Usage: critical\n                Digital Signature, Key Encipherment",
        "X509v3 Extended Key Usage: \n                TLS Web Server Authentication",
        "X509v3 Basic Constraints: critical\n                CA:FALSE",
        "X509v3 Authority Key Identifier",
        "DNS:kubernetes.default.svc.cluster.local",
        "IP Address:127.0.0.1",
    ] {
        assert!(text.contains(expected), "{expected:?} in {text}");
    }
}
