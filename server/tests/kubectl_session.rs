//! An everyday `kubectl` session against the `kubeforge-server` binary serving the whole
//! Kubernetes API, once from Kubernetes 1.36's `swagger.json` and once from the OpenAPI v3
//! documents (with cert-manager's Certificate CRD), both from the corpus, and once as release
//! 1.32 of the five releases' documents merged (`--releases … --release 1.32`): each step
//! asserts what kubectl prints on a real API server. kubectl is found on `PATH`; without it or the
//! corpus the tests print `SKIPPED: …`, and fail in CI.
//!
//! The steps: apply a Deployment; get it by short name with the printer's columns (and
//! `-o wide`); `create configmap`, `create secret`, `create service` (protobuf bodies);
//! namespaces (the four a cluster starts with, create, create in a missing one, delete and
//! see its objects go, the immortal `default`); owner references with each
//! `propagationPolicy`; scale, explain, diff, wait, `get all`, `api-resources`; a custom
//! resource's `additionalPrinterColumns`; `get -w` as a Table; delete.

use std::path::{Path, PathBuf};

use kubeforge_tests::kubectl_server::KubectlServer;

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  labels: {app: nginx}
spec:
  replicas: 2
  selector:
    matchLabels: {app: nginx}
  template:
    metadata:
      labels: {app: nginx}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
";

/// The server binary on a loopback port, and kubectl configured for it.
struct Session {
    server: KubectlServer,
}

impl Session {
    fn start(test: &str, inputs: &[PathBuf]) -> Option<Session> {
        let kubectl = kubeforge_tests::kubectl(test)?;
        let server = KubectlServer::start(env!("CARGO_BIN_EXE_kubeforge-server"), kubectl, inputs);
        Some(Session { server })
    }

    fn run(&self, args: &[&str]) -> (bool, String, String) {
        self.server.run(args, "")
    }

    /// Runs kubectl; its standard output, or a panic with everything it said.
    fn ok(&self, args: &[&str]) -> String {
        self.server.ok(args, "")
    }

    /// Runs kubectl, which must fail; its standard error.
    fn fails(&self, args: &[&str]) -> String {
        self.server.fails(args, "")
    }

    fn file(&self, name: &str, text: &str) -> String {
        self.server.file(name, text)
    }

    fn uid(&self, kind_name: &str) -> String {
        self.ok(&["get", kind_name, "-o", "jsonpath={.metadata.uid}"])
    }

    /// A ConfigMap `name` owned by the ConfigMap `owner`.
    fn owned(&self, name: &str, owner: &str) {
        let uid = self.uid(&format!("configmap/{owner}"));
        let manifest = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: {owner}\n    uid: {uid}\n    blockOwnerDeletion: true\ndata: {{k: v}}\n"
        );
        let path = self.file(&format!("{name}.yaml"), &manifest);
        assert_eq!(
            self.ok(&["apply", "-f", &path]),
            format!("configmap/{name} created\n")
        );
    }
}

/// A printed table's rows, cells split where kubectl puts at least two spaces.
fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|line| {
            line.split("  ")
                .map(str::trim)
                .filter(|cell| !cell.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

/// Whether a cell is an age as the API server's printers write it (`7s`, `2m5s`).
fn is_age(cell: &str) -> bool {
    !cell.is_empty()
        && cell
            .trim_end_matches(['s', 'm', 'h', 'd', 'y'])
            .chars()
            .all(|c| c.is_ascii_alphanumeric())
        && cell.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// Asserts a table: its header, and each row's cells (`AGE` cells must be ages).
fn assert_table(text: &str, header: &[&str], expected: &[&[&str]]) {
    let rows = rows(text);
    assert_eq!(
        rows.first().map(Vec::as_slice),
        Some(&header.iter().map(|h| (*h).to_owned()).collect::<Vec<_>>()[..]),
        "{text}"
    );
    assert_eq!(rows.len() - 1, expected.len(), "{text}");
    for (row, want) in rows[1..].iter().zip(expected) {
        assert_eq!(row.len(), want.len(), "{text}");
        for ((cell, want), column) in row.iter().zip(*want).zip(header) {
            if *want == "<age>" {
                assert!(is_age(cell), "{column} is {cell:?}, no age:\n{text}");
            } else {
                assert_eq!(cell, want, "{column}:\n{text}");
            }
        }
    }
}

/// The session every input must pass.
fn session(server: &Session, crd: bool) {
    // Apply (validated on the server, which the served OpenAPI v3 declares), then get it
    // by its short name with the columns of the API server's printer.
    let deployment = server.file("deployment.yaml", DEPLOYMENT);
    assert_eq!(
        server.ok(&["apply", "-f", &deployment]),
        "deployment.apps/nginx created\n"
    );
    assert_table(
        &server.ok(&["get", "deploy"]),
        &["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
        &[&["nginx", "0/2", "0", "0", "<age>"]],
    );
    assert_table(
        &server.ok(&["get", "deployments", "-o", "wide"]),
        &[
            "NAME",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "AGE",
            "CONTAINERS",
            "IMAGES",
            "SELECTOR",
        ],
        &[&[
            "nginx",
            "0/2",
            "0",
            "0",
            "<age>",
            "nginx",
            "nginx:1.27",
            "app=nginx",
        ]],
    );

    // kubectl's typed clients send protobuf bodies.
    assert_eq!(
        server.ok(&[
            "create",
            "configmap",
            "app-config",
            "--from-literal=color=blue"
        ]),
        "configmap/app-config created\n"
    );
    assert_table(
        &server.ok(&["get", "cm", "app-config"]),
        &["NAME", "DATA", "AGE"],
        &[&["app-config", "1", "<age>"]],
    );
    assert_eq!(
        server.ok(&["get", "cm", "app-config", "-o", "jsonpath={.data.color}"]),
        "blue"
    );
    assert_eq!(
        server.ok(&[
            "create",
            "secret",
            "generic",
            "db",
            "--from-literal=password=s3cret"
        ]),
        "secret/db created\n"
    );
    assert_table(
        &server.ok(&["get", "secret", "db"]),
        &["NAME", "TYPE", "DATA", "AGE"],
        &[&["db", "Opaque", "1", "<age>"]],
    );
    assert_eq!(
        server.ok(&["get", "secret", "db", "-o", "jsonpath={.data.password}"]),
        "czNjcmV0"
    );
    assert_eq!(
        server.ok(&["create", "service", "clusterip", "web", "--tcp=80:8080"]),
        "service/web created\n"
    );
    assert_eq!(
        server.ok(&[
            "get",
            "svc",
            "web",
            "-o",
            "jsonpath={.spec.ports[0].targetPort}"
        ]),
        "8080"
    );

    // Namespaces are objects.
    assert_eq!(
        server.ok(&["create", "namespace", "team-a"]),
        "namespace/team-a created\n"
    );
    assert_table(
        &server.ok(&["get", "ns"]),
        &["NAME", "STATUS", "AGE"],
        &[
            &["default", "Active", "<age>"],
            &["kube-node-lease", "Active", "<age>"],
            &["kube-public", "Active", "<age>"],
            &["kube-system", "Active", "<age>"],
            &["team-a", "Active", "<age>"],
        ],
    );
    assert_eq!(
        server.ok(&[
            "create",
            "configmap",
            "settings",
            "-n",
            "team-a",
            "--from-literal=a=b"
        ]),
        "configmap/settings created\n"
    );
    assert_eq!(
        server.fails(&[
            "create",
            "configmap",
            "x",
            "-n",
            "nowhere",
            "--from-literal=a=b"
        ]),
        "error: failed to create configmap: namespaces \"nowhere\" not found\n"
    );
    assert_eq!(
        server.ok(&["delete", "namespace", "team-a"]),
        "namespace \"team-a\" deleted\n"
    );
    let (_, stdout, stderr) = server.run(&["get", "cm", "-n", "team-a"]);
    assert_eq!(
        (stdout.as_str(), stderr.as_str()),
        ("", "No resources found in team-a namespace.\n")
    );
    assert_eq!(
        server.fails(&["get", "ns", "team-a"]),
        "Error from server (NotFound): namespaces \"team-a\" not found\n"
    );
    assert_eq!(
        server.fails(&["delete", "namespace", "default"]),
        "Error from server (Forbidden): namespaces \"default\" is forbidden: this namespace may not be deleted\n"
    );

    // Owner references and each propagation policy.
    server.ok(&["create", "configmap", "owner1", "--from-literal=a=b"]);
    server.owned("dep1", "owner1");
    server.ok(&["delete", "configmap", "owner1"]);
    assert_eq!(
        server.fails(&["get", "cm", "dep1"]),
        "Error from server (NotFound): configmaps \"dep1\" not found\n"
    );
    server.ok(&["create", "configmap", "owner2", "--from-literal=a=b"]);
    server.owned("dep2", "owner2");
    assert_eq!(
        server.ok(&["delete", "configmap", "owner2", "--cascade=foreground"]),
        "configmap \"owner2\" deleted\n"
    );
    assert_eq!(
        server.fails(&["get", "cm", "dep2", "owner2"]),
        "Error from server (NotFound): configmaps \"dep2\" not found\nError from server (NotFound): configmaps \"owner2\" not found\n"
    );
    server.ok(&["create", "configmap", "owner3", "--from-literal=a=b"]);
    server.owned("dep3", "owner3");
    server.ok(&["delete", "configmap", "owner3", "--cascade=orphan"]);
    assert_eq!(
        server.ok(&[
            "get",
            "cm",
            "dep3",
            "-o",
            "jsonpath={.metadata.name}:{.metadata.ownerReferences}"
        ]),
        "dep3:"
    );

    // Scale, explain, diff, wait.
    assert_eq!(
        server.ok(&["scale", "deploy", "nginx", "--replicas=3"]),
        "deployment.apps/nginx scaled\n"
    );
    assert_eq!(
        server.ok(&["get", "deploy", "nginx", "-o", "jsonpath={.spec.replicas}"]),
        "3"
    );
    let explain = server.ok(&["explain", "deployment.spec.replicas"]);
    assert!(
        explain.starts_with("GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\nFIELD: replicas <integer>\n"),
        "{explain}"
    );
    let changed = server.file(
        "deployment-v2.yaml",
        &DEPLOYMENT.replace("nginx:1.27", "nginx:1.28"),
    );
    let (same, diff, _) = server.run(&["diff", "-f", &changed]);
    assert!(!same, "kubectl diff exits 1 when there are differences");
    assert!(
        diff.contains("-  generation: 2\n+  generation: 3\n"),
        "{diff}"
    );
    assert!(
        diff.contains("-      - image: nginx:1.27\n+      - image: nginx:1.28\n"),
        "{diff}"
    );
    assert_eq!(
        server.ok(&[
            "wait",
            "--for=jsonpath={.status.phase}=Active",
            "namespace/default",
            "--timeout=30s"
        ]),
        "namespace/default condition met\n"
    );

    // `all` is a category of the built-in workloads.
    let all = server.ok(&["get", "all"]);
    assert!(
        all.contains("service/web ") && all.contains("deployment.apps/nginx "),
        "{all}"
    );
    let resources = rows(&server.ok(&["api-resources"]));
    for expected in [
        ["deployments", "deploy", "apps/v1", "true", "Deployment"],
        ["namespaces", "ns", "v1", "false", "Namespace"],
        [
            "customresourcedefinitions",
            "crd,crds",
            "apiextensions.k8s.io/v1",
            "false",
            "CustomResourceDefinition",
        ],
    ] {
        assert!(
            resources.iter().any(|r| r == &expected),
            "{expected:?} is not listed"
        );
    }

    if crd {
        // A custom resource prints its CRD's additionalPrinterColumns.
        let certificate = server.file(
            "certificate.yaml",
            "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: site\nspec:\n  secretName: site-tls\n  dnsNames: [a.example.com]\n  issuerRef: {name: letsencrypt}\n",
        );
        server.ok(&["apply", "-f", &certificate]);
        server.ok(&[
            "patch", "certificate", "site", "--subresource=status", "--type=merge", "-p",
            r#"{"status":{"conditions":[{"type":"Ready","status":"True","message":"Certificate is up to date"}]}}"#,
        ]);
        assert_table(
            &server.ok(&["get", "cert"]),
            &["NAME", "READY", "SECRET", "AGE"],
            &[&["site", "True", "site-tls", "<age>"]],
        );
        assert_table(
            &server.ok(&["get", "cert", "-o", "wide"]),
            &["NAME", "READY", "SECRET", "ISSUER", "STATUS", "AGE"],
            &[&[
                "site",
                "True",
                "site-tls",
                "letsencrypt",
                "Certificate is up to date",
                "<age>",
            ]],
        );
    }

    // A watch prints the printer's columns too (ends after the timeout, with no change).
    let watched = server.ok(&["get", "cm", "app-config", "-w", "--request-timeout=2s"]);
    assert_table(
        &watched,
        &["NAME", "DATA", "AGE"],
        &[&["app-config", "1", "<age>"]],
    );

    assert_eq!(
        server.ok(&["delete", "-f", &deployment]),
        "deployment.apps \"nginx\" deleted\n"
    );
    let (_, stdout, stderr) = server.run(&["get", "deploy"]);
    assert_eq!(
        (stdout.as_str(), stderr.as_str()),
        ("", "No resources found in default namespace.\n")
    );
}

#[test]
fn kubectl_session_on_the_kubernetes_swagger_document() {
    let test = "kubectl_session_on_the_kubernetes_swagger_document";
    let Some(corpus) = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"]) else {
        return;
    };
    let Some(server) = Session::start(test, &[corpus.join("kubernetes/swagger.json")]) else {
        return;
    };
    session(&server, false);
}

#[test]
fn kubectl_session_on_the_kubernetes_openapi_v3_documents() {
    let test = "kubectl_session_on_the_kubernetes_openapi_v3_documents";
    let Some(corpus) = kubeforge_tests::corpus(
        test,
        &["kubernetes/v3", "crds/cert-manager-Certificate.yaml"],
    ) else {
        return;
    };
    let mut inputs = kubeforge_tests::sorted_files(&corpus.join("kubernetes/v3"), "json");
    inputs.push(corpus.join("crds/cert-manager-Certificate.yaml"));
    let Some(server) = Session::start(test, &inputs) else {
        return;
    };
    session(&server, true);
}

#[test]
fn ages_are_recognised() {
    assert!(is_age("0s") && is_age("59s") && is_age("2m5s") && is_age("3d"));
    assert!(!is_age("") && !is_age("<none>") && !is_age("s"));
    let _ = Path::new("");
}

/// The five releases of the corpus, oldest first, as `--releases` names them.
const RELEASES: [(&str, &str); 5] = [
    ("1.32", "kubernetes/swagger-1.32.json"),
    ("1.33", "kubernetes/swagger-1.33.json"),
    ("1.34", "kubernetes/swagger-1.34.json"),
    ("1.35", "kubernetes/swagger-1.35.json"),
    ("1.36", "kubernetes/swagger.json"),
];

/// The server of one release of the five merged (`--releases … --release <release>`).
fn release_session(test: &str, release: &str) -> Option<(Session, PathBuf)> {
    let files: Vec<&str> = RELEASES.iter().map(|(_, file)| *file).collect();
    let corpus = kubeforge_tests::corpus(test, &files)?;
    let kubectl = kubeforge_tests::kubectl(test)?;
    let names = RELEASES.map(|(name, _)| name).join(",");
    let inputs: Vec<PathBuf> = files.iter().map(|file| corpus.join(file)).collect();
    let server = KubectlServer::start_with(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &["--releases", &names, "--release", release],
        &inputs,
    );
    Some((Session { server }, corpus))
}

/// The group-versions a Swagger 2.0 document serves (`/api/v1/…`, `/apis/<group>/<version>/…`),
/// as `kubectl api-versions` prints them.
fn served_group_versions(document: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(document).unwrap();
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut versions: Vec<String> = document["paths"]
        .as_object()
        .unwrap()
        .keys()
        .filter_map(|path| {
            let parts: Vec<&str> = path.split('/').collect();
            match parts.as_slice() {
                ["", "api", "v1", _, ..] => Some("v1".to_owned()),
                ["", "apis", group, version, _, ..] => Some(format!("{group}/{version}")),
                _ => None,
            }
        })
        .collect();
    versions.sort();
    versions.dedup();
    versions
}

const HOSTNAME_OVERRIDE: &str = "apiVersion: v1
kind: Pod
metadata:
  name: renamed
spec:
  hostnameOverride: renamed-host
  containers:
  - name: app
    image: nginx:1.27
";

/// The oldest of the five releases, served from the five documents merged: the everyday
/// session passes; `kubectl api-versions` lists exactly the group-versions 1.32's own
/// document serves (not 1.36's `resource.k8s.io/v1`); and a Pod field 1.32 lacks
/// (`hostnameOverride`, since 1.34) is an unknown field there, refused by kubectl's strict
/// validation as a 1.32 server refuses it, while 1.36 keeps it.
#[test]
fn kubectl_session_on_release_1_32_of_five_merged_releases() {
    let test = "kubectl_session_on_release_1_32_of_five_merged_releases";
    let Some((server, corpus)) = release_session(test, "1.32") else {
        return;
    };
    session(&server, false);

    let listed: Vec<String> = server
        .ok(&["api-versions"])
        .lines()
        .map(str::to_owned)
        .collect();
    let expected = served_group_versions(&corpus.join("kubernetes/swagger-1.32.json"));
    assert_eq!(listed, expected);
    assert!(
        !listed.iter().any(|v| v == "resource.k8s.io/v1"),
        "{listed:?}"
    );

    let pod = server.file("pod.yaml", HOSTNAME_OVERRIDE);
    assert_eq!(
        server.fails(&["create", "-f", &pod]),
        format!(
            "Error from server (BadRequest): error when creating \"{pod}\": Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.hostnameOverride\"\n"
        )
    );
}

/// The newest of the five merged releases serves what 1.36's document serves, fields
/// included: the Pod 1.32 refuses is created, its `hostnameOverride` kept.
#[test]
fn kubectl_on_release_1_36_of_five_merged_releases() {
    let test = "kubectl_on_release_1_36_of_five_merged_releases";
    let Some((server, corpus)) = release_session(test, "1.36") else {
        return;
    };
    let listed: Vec<String> = server
        .ok(&["api-versions"])
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        listed,
        served_group_versions(&corpus.join("kubernetes/swagger.json"))
    );
    let pod = server.file("pod.yaml", HOSTNAME_OVERRIDE);
    assert_eq!(server.ok(&["create", "-f", &pod]), "pod/renamed created\n");
    assert_eq!(
        server.ok(&[
            "get",
            "pod",
            "renamed",
            "-o",
            "jsonpath={.spec.hostnameOverride}"
        ]),
        "renamed-host"
    );
}
