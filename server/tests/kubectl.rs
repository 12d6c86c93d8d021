//! Real `kubectl` (v1.32 on the project's machines) against the `kubeforge-server` binary on
//! 127.0.0.1:0, serving `schemas/` and cert-manager's Certificate CRD from the corpus:
//! create, get (JSON, YAML, table, label selectors), client-side apply twice, patches of
//! every type, label, annotate, delete with and without a finalizer, `get -w` while another
//! process writes, api-resources, api-versions and explain. `kubectl` is the one on `PATH`:
//! without it the tests say `SKIPPED`, and fail in CI.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use kubeforge_tests::kubectl_server::KubectlServer;
use serde_json::Value;

/// The running binary and kubectl for it.
struct Running {
    server: KubectlServer,
}

impl Running {
    fn start(test: &str) -> Option<Running> {
        let kubectl = kubeforge_tests::kubectl(test)?;
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut inputs: Vec<PathBuf> = std::fs::read_dir(root.join("schemas"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        inputs.sort();
        if let Some(corpus) = kubeforge_tests::corpus(test, &["crds/cert-manager-Certificate.yaml"])
        {
            inputs.push(corpus.join("crds/cert-manager-Certificate.yaml"));
        }
        let server = KubectlServer::start(env!("CARGO_BIN_EXE_kubeforge-server"), kubectl, &inputs);
        Some(Running { server })
    }

    fn crd(&self) -> bool {
        kubeforge_tests::corpus_root()
            .join("crds/cert-manager-Certificate.yaml")
            .exists()
    }

    fn command(&self, args: &[&str]) -> Command {
        self.server.command(args)
    }

    /// Runs kubectl; panics with its output when it fails.
    fn ok(&self, args: &[&str]) -> String {
        self.server.ok(args, "")
    }

    fn fails(&self, args: &[&str]) -> String {
        self.server.fails(args, "")
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.extend(["-o", "json"]);
        serde_json::from_str(&self.ok(&all)).unwrap()
    }

    fn file(&self, name: &str, text: &str) -> String {
        self.server.file(name, text)
    }

    /// SIGTERM, and the process exits successfully.
    fn stop(mut self) {
        let exit = self.server.terminate();
        assert!(exit.success(), "the server exited with {exit} on SIGTERM");
    }
}

/// One resource's manifests: the first version, the second (for apply), and what to check.
struct Case {
    resource: &'static str,
    name: &'static str,
    v1: &'static str,
    v2: &'static str,
    /// A JSON pointer and the value it has after v1, then after v2.
    field: (&'static str, &'static str, &'static str),
}

const CASES: [Case; 5] = [
    Case {
        resource: "leases",
        name: "lock",
        v1: "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: lock\n  labels: {app: demo}\nspec:\n  holderIdentity: node-a\n  leaseDurationSeconds: 15\n",
        v2: "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: lock\n  labels: {app: demo}\nspec:\n  holderIdentity: node-b\n",
        field: ("/spec/holderIdentity", "node-a", "node-b"),
    },
    Case {
        resource: "pods",
        name: "web",
        v1: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: demo}\nspec:\n  containers:\n  - name: app\n    image: nginx:1\n    ports:\n    - containerPort: 80\n",
        v2: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: demo}\nspec:\n  containers:\n  - name: app\n    image: nginx:2\n    ports:\n    - containerPort: 80\n",
        field: ("/spec/containers/0/image", "nginx:1", "nginx:2"),
    },
    Case {
        resource: "endpoints",
        name: "svc",
        // `protocol` given: the server defaults it (SetDefaults_Endpoints), and `subsets` is an
        // atomic list, so a manifest without it differs from the live object on every apply
        // (kubectl says "configured" each time, as against a real server).
        v1: "apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: svc\n  labels: {app: demo}\nsubsets:\n- addresses:\n  - ip: 10.0.0.1\n  ports:\n  - port: 80\n    protocol: TCP\n",
        v2: "apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: svc\n  labels: {app: demo}\nsubsets:\n- addresses:\n  - ip: 10.0.0.2\n  ports:\n  - port: 80\n    protocol: TCP\n",
        field: ("/subsets/0/addresses/0/ip", "10.0.0.1", "10.0.0.2"),
    },
    Case {
        resource: "imagestreams",
        name: "ruby",
        v1: "apiVersion: image.openshift.io/v1\nkind: ImageStream\nmetadata:\n  name: ruby\n  labels: {app: demo}\nspec:\n  lookupPolicy:\n    local: false\n",
        v2: "apiVersion: image.openshift.io/v1\nkind: ImageStream\nmetadata:\n  name: ruby\n  labels: {app: demo}\nspec:\n  lookupPolicy:\n    local: true\n",
        field: ("/spec/lookupPolicy/local", "false", "true"),
    },
    Case {
        resource: "certificates",
        name: "site",
        v1: "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: site\n  labels: {app: demo}\nspec:\n  secretName: site-tls\n  dnsNames: [a.example.com]\n  issuerRef: {name: letsencrypt}\n",
        v2: "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: site\n  labels: {app: demo}\nspec:\n  secretName: site-tls-2\n  dnsNames: [a.example.com]\n  issuerRef: {name: letsencrypt}\n",
        field: ("/spec/secretName", "site-tls", "site-tls-2"),
    },
];

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[test]
fn kubectl_create_get_apply_patch_label_delete() {
    let Some(server) = Running::start("kubectl_create_get_apply_patch_label_delete") else {
        return;
    };
    let crd = server.crd();
    for case in CASES.iter().filter(|c| crd || c.resource != "certificates") {
        let (resource, name) = (case.resource, case.name);
        let file = server.file(&format!("{resource}.yaml"), case.v1);
        assert_eq!(
            server.ok(&["create", "-f", &file]).trim(),
            format!("{}/{name} created", kind_name(resource))
        );
        assert!(
            server
                .fails(&["create", "-f", &file])
                .contains("AlreadyExists")
        );

        let object = server.json(&["get", resource, name]);
        assert_eq!(object["metadata"]["name"], name);
        assert_eq!(object["metadata"]["namespace"], "default");
        assert_eq!(
            object["metadata"]["resourceVersion"]
                .as_str()
                .map(|rv| rv.parse::<u64>().is_ok()),
            Some(true)
        );
        assert_eq!(
            text(object.pointer(case.field.0).unwrap()),
            case.field.1,
            "{resource}"
        );
        let yaml = server.ok(&["get", resource, name, "-o", "yaml"]);
        assert!(
            yaml.contains(&format!("  name: {name}\n")) && yaml.contains("  uid: "),
            "{yaml}"
        );
        // By label: the cluster starts with objects of some of these kinds (the
        // `kubernetes` Service and Endpoints, `default` ServiceAccounts, …).
        let table = server.ok(&["get", resource, "-l", "app=demo"]);
        let lines: Vec<Vec<&str>> = table
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        // The server's Table: the printer's columns, from NAME to AGE.
        assert_eq!(lines[0].first(), Some(&"NAME"), "{table}");
        assert_eq!(lines[0].last(), Some(&"AGE"), "{table}");
        assert_eq!(lines[1][0], name, "{table}");
        assert_eq!(lines.len(), 2, "{table}");
        assert_eq!(
            server
                .ok(&["get", resource, "-l", "app=demo", "-o", "name"])
                .trim(),
            format!("{}/{name}", kind_name(resource))
        );
        assert_eq!(
            server
                .ok(&["get", resource, "-l", "app in (other)", "-o", "name"])
                .trim(),
            ""
        );

        // Client-side apply: the first adds the last-applied annotation, the second patches.
        let applied = server.ok(&["apply", "-f", &file]);
        assert!(applied.contains(&format!("{name} configured")), "{applied}");
        let file2 = server.file(&format!("{resource}-2.yaml"), case.v2);
        assert!(
            server
                .ok(&["apply", "-f", &file2])
                .contains(&format!("{name} configured"))
        );
        let object = server.json(&["get", resource, name]);
        assert_eq!(
            text(object.pointer(case.field.0).unwrap()),
            case.field.2,
            "{resource}"
        );
        let last: Value = serde_json::from_str(
            object["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(text(last.pointer(case.field.0).unwrap()), case.field.2);
        assert!(server.ok(&["apply", "-f", &file2]).contains("unchanged"));

        // Patches of every type, label and annotate.
        server.ok(&[
            "patch",
            resource,
            name,
            "--type",
            "merge",
            "-p",
            r#"{"metadata":{"labels":{"merge":"yes"}}}"#,
        ]);
        server.ok(&[
            "patch",
            resource,
            name,
            "--type",
            "json",
            "-p",
            r#"[{"op":"add","path":"/metadata/labels/json","value":"yes"}]"#,
        ]);
        server.ok(&[
            "patch",
            resource,
            name,
            "--type",
            "strategic",
            "-p",
            r#"{"metadata":{"labels":{"strategic":"yes","merge":null}}}"#,
        ]);
        assert!(
            server
                .ok(&["label", resource, name, "tier=front"])
                .contains("labeled")
        );
        assert!(
            server
                .ok(&["annotate", resource, name, "note=hello"])
                .contains("annotated")
        );
        let object = server.json(&["get", resource, name]);
        let labels = &object["metadata"]["labels"];
        assert_eq!(
            labels,
            &serde_json::json!({"app": "demo", "json": "yes", "strategic": "yes", "tier": "front"}),
            "{resource}"
        );
        assert_eq!(object["metadata"]["annotations"]["note"], "hello");
        assert_eq!(
            server
                .ok(&["get", resource, "-l", "tier,!merge", "-o", "name"])
                .trim(),
            format!("{}/{name}", kind_name(resource))
        );

        // Delete with a finalizer: it stays, marked; removing the finalizer deletes it.
        server.ok(&[
            "patch",
            resource,
            name,
            "--type",
            "merge",
            "-p",
            r#"{"metadata":{"finalizers":["example.com/hold"]}}"#,
        ]);
        server.ok(&["delete", resource, name, "--wait=false"]);
        let held = server.json(&["get", resource, name]);
        assert!(held["metadata"]["deletionTimestamp"].is_string(), "{held}");
        server.ok(&[
            "patch",
            resource,
            name,
            "--type",
            "json",
            "-p",
            r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
        ]);
        assert!(server.fails(&["get", resource, name]).contains("NotFound"));
        // Delete without one.
        server.ok(&["create", "-f", &file]);
        assert_eq!(
            server.ok(&["delete", resource, name]).trim(),
            format!("{} \"{name}\" deleted", kind_name(resource))
        );
        assert!(server.fails(&["get", resource, name]).contains("NotFound"));
    }
    // Strategic merge of a Pod's containers by name: a patch and an apply each change one
    // container's image (all a Pod's update may change) and keep the other container.
    let pod = server.file(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: demo}\nspec:\n  containers:\n  - name: app\n    image: nginx:1\n    ports:\n    - containerPort: 80\n  - name: side\n    image: busybox\n",
    );
    server.ok(&["create", "-f", &pod]);
    server.ok(&[
        "patch",
        "pod",
        "web",
        "--type",
        "strategic",
        "-p",
        r#"{"spec":{"containers":[{"name":"side","image":"busybox:2"}]}}"#,
    ]);
    let two = server.file("pod2.yaml", CASES[1].v2);
    server.ok(&["apply", "-f", &two]);
    let images = server.ok(&[
        "get",
        "pod",
        "web",
        "-o",
        "jsonpath={range .spec.containers[*]}{.name}={.image} {end}",
    ]);
    assert_eq!(images.trim(), "app=nginx:2 side=busybox:2");
    server.stop();
}

fn kind_name(resource: &str) -> &'static str {
    match resource {
        "leases" => "lease.coordination.k8s.io",
        "pods" => "pod",
        "endpoints" => "endpoints",
        "imagestreams" => "imagestream.image.openshift.io",
        "certificates" => "certificate.cert-manager.io",
        _ => unreachable!(),
    }
}

#[test]
fn kubectl_discovery_and_explain() {
    let Some(server) = Running::start("kubectl_discovery_and_explain") else {
        return;
    };
    let mut expected_versions = vec!["coordination.k8s.io/v1", "image.openshift.io/v1", "v1"];
    if server.crd() {
        expected_versions.insert(0, "cert-manager.io/v1");
    }
    let versions: Vec<String> = server
        .ok(&["api-versions"])
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(versions, expected_versions);
    let resources = server.ok(&["api-resources", "--no-headers"]);
    let mut rows: Vec<Vec<&str>> = resources
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    rows.sort();
    let mut expected = vec![
        vec!["endpoints", "ep", "v1", "true", "Endpoints"],
        vec![
            "imagestreams",
            "image.openshift.io/v1",
            "true",
            "ImageStream",
        ],
        vec!["leases", "coordination.k8s.io/v1", "true", "Lease"],
        vec!["pods", "po", "v1", "true", "Pod"],
    ];
    if server.crd() {
        expected.insert(
            0,
            vec![
                "certificates",
                "cert,certs",
                "cert-manager.io/v1",
                "true",
                "Certificate",
            ],
        );
    }
    assert_eq!(rows, expected, "{resources}");
    let verbs = server.ok(&[
        "api-resources",
        "-o",
        "wide",
        "--api-group",
        "coordination.k8s.io",
    ]);
    assert!(
        verbs.contains(" create,delete,deletecollection,get,list,patch,update,watch "),
        "{verbs}"
    );

    let explained = server.ok(&["explain", "leases.spec.holderIdentity"]);
    assert!(
        explained.contains("KIND:       Lease")
            && explained.contains("FIELD: holderIdentity <string>"),
        "{explained}"
    );
    let pods = server.ok(&["explain", "pods.spec.containers.image"]);
    assert!(pods.contains("FIELD: image <string>"), "{pods}");
    if server.crd() {
        let certificate = server.ok(&["explain", "certificates.spec.secretName"]);
        assert!(
            certificate.contains("FIELD: secretName <string>"),
            "{certificate}"
        );
        // The short name resolves (an empty list prints nothing on stdout).
        assert_eq!(server.ok(&["get", "certs"]).trim(), "");
    }
    server.stop();
}

#[test]
fn kubectl_get_watch_sees_another_process_create_and_delete() {
    let Some(server) = Running::start("kubectl_get_watch_sees_another_process_create_and_delete")
    else {
        return;
    };
    // An object that exists before the watch: kubectl lists it (`ADDED first`) and then
    // watches from the list's resource version, so every write after that line is in the
    // watch, however long kubectl takes to open it. No sleep: the line is the signal.
    let first = server.file(
        "first.yaml",
        &CASES[0].v1.replace("name: lock", "name: first"),
    );
    server.ok(&["create", "-f", &first]);
    let mut watch = server
        .command(&[
            "get",
            "leases",
            "--watch",
            "--output-watch-events",
            "--no-headers",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (sender, receiver) = mpsc::channel();
    let stdout = watch.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    let next = || {
        let line = receiver
            .recv_timeout(Duration::from_secs(30))
            .expect("kubectl get -w printed too little");
        let words: Vec<String> = line.split_whitespace().take(2).map(str::to_owned).collect();
        words.join(" ")
    };
    assert_eq!(next(), "ADDED first");
    let file = server.file("lease.yaml", CASES[0].v1);
    server.ok(&["create", "-f", &file]);
    server.ok(&["label", "lease", "lock", "x=y"]);
    server.ok(&["delete", "lease", "lock"]);
    let events: Vec<String> = (0..3).map(|_| next()).collect();
    assert_eq!(events, ["ADDED lock", "MODIFIED lock", "DELETED lock"]);
    let _ = watch.kill();
    let _ = watch.wait();
    server.stop();
}
