//! `kubectl apply --server-side` against the `kubeforge-server` binary, serving Kubernetes'
//! own `api/v1` and `apis/apps/v1` documents from the corpus: the scenarios of the
//! Kubernetes "Server-Side Apply" documentation page (its ConfigMap example and
//! `--show-managed-fields`, conflicts and their three resolutions, transferring ownership
//! between managers and to the HPA, merge strategies, the upgrade from client-side apply),
//! `--force-conflicts`, `--dry-run=server`, `--subresource=status` and `kubectl diff`, each
//! checked against what kubectl prints with a real API server.
//!
//! kubectl is looked for on `PATH`: without it the tests say `SKIPPED` (and fail under `CI`).

use std::path::PathBuf;

use kubeforge_tests::kubectl_server::KubectlServer;

use serde_json::{Value, json};

/// kubectl's advice after a conflict (`kubectl apply`'s `conflictErrString`).
const CONFLICT_ADVICE: &str =
    "Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
";

/// The documents a scenario's server serves: Kubernetes 1.36's `swagger.json`, whose schemas
/// carry no `default` (a map list's key takes the Go defaulters' then, as `protocol: TCP`),
/// or the OpenAPI v3 documents, which carry them. Every scenario runs on both, so the two
/// cannot differ unnoticed.
#[derive(Clone, Copy)]
enum Documents {
    Swagger,
    V3,
}

/// Runs `scenario` on a server for `documents`.
fn run(test: &str, documents: Documents, scenario: fn(&Cluster)) {
    if let Some(cluster) = Cluster::start(test, documents) {
        scenario(&cluster);
    }
}

/// Each scenario as two tests, `<scenario>::on_swagger` and `<scenario>::on_v3`.
macro_rules! on_both_documents {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[test]
            fn on_swagger() {
                super::run(
                    concat!(stringify!($scenario), "::on_swagger"),
                    super::Documents::Swagger,
                    super::$scenario,
                );
            }

            #[test]
            fn on_v3() {
                super::run(
                    concat!(stringify!($scenario), "::on_v3"),
                    super::Documents::V3,
                    super::$scenario,
                );
            }
        }
    )*};
}

/// The server binary on a loopback port, and a kubeconfig for it; killed on drop.
struct Cluster {
    server: KubectlServer,
}

impl Cluster {
    fn start(test: &str, documents: Documents) -> Option<Cluster> {
        let kubectl = kubeforge_tests::kubectl(test)?;
        let documents: &[&str] = match documents {
            Documents::Swagger => &["kubernetes/swagger.json"],
            Documents::V3 => &[
                "kubernetes/v3/api__v1_openapi.json",
                "kubernetes/v3/apis__apps__v1_openapi.json",
            ],
        };
        let corpus = kubeforge_tests::corpus(test, documents)?;
        let inputs: Vec<PathBuf> = documents.iter().map(|d| corpus.join(d)).collect();
        let server = KubectlServer::start(env!("CARGO_BIN_EXE_kubeforge-server"), kubectl, &inputs);
        Some(Cluster { server })
    }

    /// Runs kubectl with `args` and `stdin`: its exit success, stdout and stderr.
    fn run(&self, args: &[&str], stdin: &str) -> (bool, String, String) {
        self.server.run(args, stdin)
    }

    /// kubectl that must succeed: its stdout.
    fn ok(&self, args: &[&str], stdin: &str) -> String {
        self.server.ok(args, stdin)
    }

    /// `kubectl apply --server-side -f -` with `extra` flags; its stdout.
    fn apply(&self, manifest: &str, extra: &[&str]) -> String {
        let mut args = vec!["apply", "--server-side", "-f", "-"];
        args.extend(extra);
        self.ok(&args, manifest)
    }

    /// An apply that must fail: its stderr.
    fn apply_fails(&self, manifest: &str, extra: &[&str]) -> String {
        let mut args = vec!["apply", "--server-side", "-f", "-"];
        args.extend(extra);
        let (success, stdout, stderr) = self.run(&args, manifest);
        assert!(!success, "kubectl {args:?} succeeded:\n{stdout}");
        stderr
    }

    fn json(&self, kind: &str, name: &str) -> Value {
        let out = self.ok(
            &["get", kind, name, "-o", "json", "--show-managed-fields"],
            "",
        );
        serde_json::from_str(&out).unwrap()
    }
}

on_both_documents!(
    the_documentations_configmap_and_show_managed_fields,
    two_managers_conflict_force_and_transfer_ownership,
    the_documentations_hpa_handover,
    upgrading_from_client_side_apply,
    merge_strategies_with_two_appliers,
    dry_runs_diff_and_the_status_subresource,
    the_same_deployment_applied_twice_changes_nothing,
);

/// Each manager of an object and what it owns, as `(manager, operation, subresource, fields)`.
fn managers(object: &Value) -> Vec<(String, String, String, Value)> {
    object["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let text = |k: &str| e[k].as_str().unwrap_or("").to_owned();
            (
                text("manager"),
                text("operation"),
                text("subresource"),
                e["fieldsV1"].clone(),
            )
        })
        .collect()
}

fn owned(object: &Value, manager: &str) -> Value {
    managers(object)
        .into_iter()
        .find(|(m, ..)| m == manager)
        .map_or(Value::Null, |(.., fields)| fields)
}

/// The documentation's example: a ConfigMap applied by kubectl, and `--show-managed-fields`.
fn the_documentations_configmap_and_show_managed_fields(cluster: &Cluster) {
    let manifest = "apiVersion: v1
kind: ConfigMap
metadata:
  name: test-cm
  namespace: default
  labels:
    test-label: test
data:
  key: some value
";
    assert_eq!(
        cluster.apply(manifest, &[]),
        "configmap/test-cm serverside-applied\n"
    );
    let shown = cluster.ok(
        &[
            "get",
            "configmap",
            "test-cm",
            "-o",
            "yaml",
            "--show-managed-fields",
        ],
        "",
    );
    let object: Value =
        serde_json::from_str(&cluster.ok(&["get", "configmap", "test-cm", "-o", "json"], ""))
            .unwrap();
    let meta = &object["metadata"];
    let time = shown
        .lines()
        .find_map(|l| l.strip_prefix("    time: "))
        .unwrap()
        .to_owned();
    // What a real server shows (a ConfigMap's strategy keeps no `generation`).
    let expected = format!(
        "apiVersion: v1
data:
  key: some value
kind: ConfigMap
metadata:
  creationTimestamp: {created}
  labels:
    test-label: test
  managedFields:
  - apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1:
      f:data:
        f:key: {{}}
      f:metadata:
        f:labels:
          f:test-label: {{}}
    manager: kubectl
    operation: Apply
    time: {time}
  name: test-cm
  namespace: default
  resourceVersion: \"{rv}\"
  uid: {uid}
",
        created = format_args!("\"{}\"", meta["creationTimestamp"].as_str().unwrap()),
        rv = meta["resourceVersion"].as_str().unwrap(),
        uid = meta["uid"].as_str().unwrap(),
    );
    assert_eq!(shown, expected);
    // Without the flag, kubectl leaves them out.
    let plain = cluster.ok(&["get", "configmap", "test-cm", "-o", "yaml"], "");
    assert!(!plain.contains("managedFields"), "{plain}");
    // Applying the same manifest again changes nothing.
    cluster.apply(manifest, &[]);
    let again: Value =
        serde_json::from_str(&cluster.ok(&["get", "configmap", "test-cm", "-o", "json"], ""))
            .unwrap();
    assert_eq!(again, object);
}

fn configmap(name: &str, data: &[(&str, &str)]) -> String {
    let mut text = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n");
    for (key, value) in data {
        text.push_str(&format!("  {key}: \"{value}\"\n"));
    }
    text
}

/// Two managers: a conflict and its three resolutions (force, give up, share), and a
/// transfer of ownership by sharing then dropping the field.
fn two_managers_conflict_force_and_transfer_ownership(cluster: &Cluster) {
    let alice = ["--field-manager=alice"];
    let bob = ["--field-manager=bob"];
    cluster.apply(&configmap("cm", &[("a", "1"), ("shared", "one")]), &alice);
    let stderr = cluster.apply_fails(&configmap("cm", &[("shared", "two"), ("b", "2")]), &bob);
    assert_eq!(
        stderr,
        format!(
            "error: Apply failed with 1 conflict: conflict with \"alice\": .data.shared\n{CONFLICT_ADVICE}"
        )
    );
    // Nothing changed.
    let object = cluster.json("configmap", "cm");
    assert_eq!(object["data"], json!({"a": "1", "shared": "one"}));
    // Resolution 3: share the field by applying the value it has.
    cluster.apply(&configmap("cm", &[("shared", "one"), ("b", "2")]), &bob);
    let object = cluster.json("configmap", "cm");
    assert_eq!(
        owned(&object, "alice"),
        json!({"f:data": {"f:a": {}, "f:shared": {}}})
    );
    assert_eq!(
        owned(&object, "bob"),
        json!({"f:data": {"f:b": {}, "f:shared": {}}})
    );
    // A shared field cannot be changed by either without a conflict, with both owners named.
    let stderr = cluster.apply_fails(&configmap("cm", &[("a", "1"), ("shared", "three")]), &alice);
    assert_eq!(
        stderr,
        format!(
            "error: Apply failed with 1 conflict: conflict with \"bob\": .data.shared\n{CONFLICT_ADVICE}"
        )
    );
    // Transfer: alice gives the field up by no longer applying it; bob keeps it and the value.
    cluster.apply(&configmap("cm", &[("a", "1")]), &alice);
    let object = cluster.json("configmap", "cm");
    assert_eq!(object["data"]["shared"], "one");
    assert_eq!(owned(&object, "alice"), json!({"f:data": {"f:a": {}}}));
    assert_eq!(
        owned(&object, "bob"),
        json!({"f:data": {"f:b": {}, "f:shared": {}}})
    );
    // Resolution 1: force takes the field and changes the value.
    let stderr = cluster.apply_fails(&configmap("cm", &[("a", "2")]), &bob);
    assert_eq!(
        stderr,
        format!(
            "error: Apply failed with 1 conflict: conflict with \"alice\": .data.a\n{CONFLICT_ADVICE}"
        )
    );
    assert_eq!(
        cluster.apply(
            &configmap("cm", &[("a", "2")]),
            &["--field-manager=bob", "--force-conflicts"]
        ),
        "configmap/cm serverside-applied\n"
    );
    let object = cluster.json("configmap", "cm");
    // Bob applied only `a` this time: `b` and `shared` were his alone, so they are gone.
    assert_eq!(object["data"], json!({"a": "2"}));
    assert_eq!(owned(&object, "bob"), json!({"f:data": {"f:a": {}}}));
    // Alice owned nothing else, so her entry is gone.
    assert_eq!(owned(&object, "alice"), Value::Null);
    // Several conflicts, grouped by manager.
    cluster.apply(&configmap("cm", &[("a", "2"), ("c", "3")]), &bob);
    let stderr = cluster.apply_fails(&configmap("cm", &[("a", "9"), ("c", "9")]), &alice);
    assert_eq!(
        stderr,
        format!(
            "error: Apply failed with 2 conflicts: conflicts with \"bob\":\n- .data.a\n- .data.c\n{CONFLICT_ADVICE}"
        )
    );
}

const NGINX: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
";

/// The documentation's HPA example: handing `replicas` over through a private manager.
fn the_documentations_hpa_handover(cluster: &Cluster) {
    assert_eq!(
        cluster.apply(NGINX, &[]),
        "deployment.apps/nginx-deployment serverside-applied\n"
    );
    let replicas_only = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
spec:
  replicas: 3
";
    cluster.apply(
        replicas_only,
        &["--field-manager=handover-to-hpa", "--validate=false"],
    );
    let object = cluster.json("deployment", "nginx-deployment");
    assert_eq!(
        owned(&object, "handover-to-hpa"),
        json!({"f:spec": {"f:replicas": {}}})
    );
    // The user removes replicas from the manifest: the value stays (handover-to-hpa owns it).
    let no_replicas = NGINX.replace("  replicas: 3\n", "");
    cluster.apply(&no_replicas, &[]);
    let object = cluster.json("deployment", "nginx-deployment");
    assert_eq!(object["spec"]["replicas"], 3);
    assert!(
        owned(&object, "kubectl")
            .pointer("/f:spec/f:replicas")
            .is_none()
    );
    // The autoscaler sets replicas through the scale subresource: the temporary manager
    // owns nothing any more and is gone.
    assert_eq!(
        cluster.ok(
            &["scale", "deployment", "nginx-deployment", "--replicas=5"],
            ""
        ),
        "deployment.apps/nginx-deployment scaled\n"
    );
    let object = cluster.json("deployment", "nginx-deployment");
    assert_eq!(object["spec"]["replicas"], 5);
    assert_eq!(owned(&object, "handover-to-hpa"), Value::Null);
    let scaler = managers(&object)
        .into_iter()
        .find(|(_, _, sub, _)| sub == "scale")
        .expect("a manager of the scale subresource");
    assert_eq!(
        (scaler.0.as_str(), scaler.1.as_str(), &scaler.3),
        ("kubectl", "Update", &json!({"f:spec": {"f:replicas": {}}}))
    );
    // Applying the manifest with replicas again now conflicts with the scaler.
    let stderr = cluster.apply_fails(NGINX, &[]);
    assert_eq!(
        stderr,
        format!(
            "error: Apply failed with 1 conflict: conflict with \"kubectl\" with subresource \"scale\" using apps/v1: .spec.replicas\n{CONFLICT_ADVICE}"
        )
    );
}

/// The documentation's migration section: `kubectl apply` then `kubectl apply
/// --server-side` takes over without conflicts; a field someone else changed in between
/// (`kubectl scale`) conflicts.
fn upgrading_from_client_side_apply(cluster: &Cluster) {
    assert_eq!(
        cluster.ok(&["apply", "-f", "-"], NGINX),
        "deployment.apps/nginx-deployment created\n"
    );
    let object = cluster.json("deployment", "nginx-deployment");
    let names: Vec<(String, String)> = managers(&object)
        .into_iter()
        .map(|(m, op, ..)| (m, op))
        .collect();
    assert_eq!(
        names,
        [("kubectl-client-side-apply".into(), "Update".into())]
    );
    let changed = NGINX.replace("nginx:1.14.2", "nginx:1.16.1");
    assert_eq!(
        cluster.apply(&changed, &[]),
        "deployment.apps/nginx-deployment serverside-applied\n"
    );
    let object = cluster.json("deployment", "nginx-deployment");
    assert_eq!(
        object["spec"]["template"]["spec"]["containers"][0]["image"],
        "nginx:1.16.1"
    );
    // kubectl moved the client-side apply's fields to its server-side apply.
    let kubectl = owned(&object, "kubectl");
    assert!(kubectl.pointer("/f:spec/f:replicas").is_some(), "{object}");
    assert!(
        managers(&object)
            .iter()
            .all(|(m, ..)| m != "kubectl-client-side-apply"),
        "{object}"
    );
    // The caution: a field changed after the client-side apply (`kubectl scale`) conflicts;
    // the one the client-side apply set (the image) does not.
    let other = NGINX.replace("nginx-deployment", "other");
    cluster.ok(&["apply", "-f", "-"], &other);
    cluster.ok(&["scale", "deployment", "other", "--replicas=4"], "");
    let other_changed = other.replace("nginx:1.14.2", "nginx:1.16.1");
    let stderr = cluster.apply_fails(&other_changed, &[]);
    assert_eq!(
        stderr,
        format!(
            "error: Apply failed with 1 conflict: conflict with \"kubectl\" with subresource \"scale\" using apps/v1: .spec.replicas\n{CONFLICT_ADVICE}"
        )
    );
    // Another field manager opts out of the takeover: the image conflicts too.
    let stderr = cluster.apply_fails(&other_changed, &["--field-manager=my-manager"]);
    assert_eq!(
        stderr,
        format!(
            "error: Apply failed with 2 conflicts: conflicts with \"kubectl\" with subresource \"scale\" using apps/v1:\n- .spec.replicas\nconflicts with \"kubectl-client-side-apply\" using apps/v1:\n- .spec.template.spec.containers[name=\"nginx\"].image\n{CONFLICT_ADVICE}"
        )
    );
    cluster.apply(&other_changed, &["--force-conflicts"]);
    let object = cluster.json("deployment", "other");
    assert_eq!(object["spec"]["replicas"], 3);
}

/// Merge strategies: two appliers each own their container of a map list, their labels of
/// a granular map; the selector (an atomic struct) is one field.
fn merge_strategies_with_two_appliers(cluster: &Cluster) {
    cluster.apply(NGINX, &[]);
    let sidecar = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    team: logging
spec:
  template:
    spec:
      containers:
      - name: logger
        image: fluent-bit:3
";
    cluster.apply(
        sidecar,
        &["--field-manager=sidecar-injector", "--validate=false"],
    );
    let object = cluster.json("deployment", "nginx-deployment");
    let containers: Vec<&str> = object["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(containers, ["nginx", "logger"]);
    assert_eq!(
        object["metadata"]["labels"],
        json!({"app": "nginx", "team": "logging"})
    );
    assert_eq!(
        owned(&object, "sidecar-injector"),
        json!({
            "f:metadata": {"f:labels": {"f:team": {}}},
            "f:spec": {"f:template": {"f:spec": {"f:containers": {
                "k:{\"name\":\"logger\"}": {".": {}, "f:image": {}, "f:name": {}},
            }}}},
        })
    );
    // kubectl's next apply leaves the sidecar's container and label alone.
    cluster.apply(&NGINX.replace("nginx:1.14.2", "nginx:1.16.1"), &[]);
    let object = cluster.json("deployment", "nginx-deployment");
    assert_eq!(
        object["spec"]["template"]["spec"]["containers"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // The selector is atomic: changing one label of it conflicts on the whole selector.
    let selector = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
spec:
  selector:
    matchLabels:
      app: nginx
      team: logging
";
    let stderr = cluster.apply_fails(
        selector,
        &["--field-manager=sidecar-injector", "--validate=false"],
    );
    assert_eq!(
        stderr,
        format!(
            "error: Apply failed with 1 conflict: conflict with \"kubectl\": .spec.selector\n{CONFLICT_ADVICE}"
        )
    );
    // The injector removes its container: it goes; kubectl's stays.
    let without = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    team: logging
";
    cluster.apply(
        without,
        &["--field-manager=sidecar-injector", "--validate=false"],
    );
    let object = cluster.json("deployment", "nginx-deployment");
    assert_eq!(
        object["spec"]["template"]["spec"]["containers"],
        json!([{"name": "nginx", "image": "nginx:1.16.1", "imagePullPolicy": "IfNotPresent",
                "resources": {}, "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File"}])
    );
}

/// `--dry-run=server`, `kubectl diff` (client-side and `--server-side`) and
/// `--subresource=status`.
fn dry_runs_diff_and_the_status_subresource(cluster: &Cluster) {
    assert_eq!(
        cluster.apply(NGINX, &["--dry-run=server"]),
        "deployment.apps/nginx-deployment serverside-applied (server dry run)\n"
    );
    let (found, _, stderr) = cluster.run(&["get", "deployment", "nginx-deployment"], "");
    assert!(!found);
    assert_eq!(
        stderr,
        "Error from server (NotFound): deployments.apps \"nginx-deployment\" not found\n"
    );
    cluster.apply(NGINX, &[]);
    let before = cluster.json("deployment", "nginx-deployment");
    let changed = NGINX.replace("nginx:1.14.2", "nginx:1.16.1");
    for flags in [
        &["diff", "--server-side", "-f", "-"][..],
        &["diff", "-f", "-"][..],
    ] {
        let (same, diff, stderr) = cluster.run(flags, &changed);
        // kubectl diff exits 1 when there are differences.
        assert!(!same && stderr.is_empty(), "{flags:?}: {stderr}");
        let changes: Vec<&str> = diff
            .lines()
            .filter(|l| {
                (l.starts_with('+') || l.starts_with('-'))
                    && !l.starts_with("+++")
                    && !l.starts_with("---")
            })
            .collect();
        // The client-side diff adds the last-applied annotation, which kubectl hides,
        // leaving the map it was in.
        let annotations: &[&str] = if flags.contains(&"--server-side") {
            &[]
        } else {
            &["+  annotations: {}"]
        };
        assert_eq!(
            changes,
            [
                annotations,
                &[
                    "-  generation: 1",
                    "+  generation: 2",
                    "-      - image: nginx:1.14.2",
                    "+      - image: nginx:1.16.1",
                ],
            ]
            .concat(),
            "{flags:?}:\n{diff}"
        );
    }
    // Nothing was written.
    assert_eq!(cluster.json("deployment", "nginx-deployment"), before);
    let (same, diff, _) = cluster.run(&["diff", "--server-side", "-f", "-"], NGINX);
    assert!(same && diff.is_empty(), "{diff}");
    // The status subresource: the status applier owns only the status.
    let status = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
status:
  replicas: 3
  readyReplicas: 3
";
    assert_eq!(
        cluster.apply(
            status,
            &[
                "--subresource=status",
                "--field-manager=controller",
                "--validate=false"
            ]
        ),
        "deployment.apps/nginx-deployment serverside-applied\n"
    );
    let object = cluster.json("deployment", "nginx-deployment");
    assert_eq!(object["status"], json!({"replicas": 3, "readyReplicas": 3}));
    let entry = managers(&object)
        .into_iter()
        .find(|(m, ..)| m == "controller")
        .unwrap();
    assert_eq!(
        entry,
        (
            "controller".into(),
            "Apply".into(),
            "status".into(),
            json!({"f:status": {"f:readyReplicas": {}, "f:replicas": {}}})
        )
    );
}

/// The everyday apply: a container port with `containerPort` but no `protocol`, applied twice.
/// The stored port has `protocol: TCP` (its default); the second apply's port is the same
/// item, since a map list's key takes its default before items are matched, so nothing
/// changes (no new resource version), and the managed fields name the port by both keys.
fn the_same_deployment_applied_twice_changes_nothing(cluster: &Cluster) {
    const APP: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-app
spec:
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
";
    assert_eq!(
        cluster.apply(APP, &[]),
        "deployment.apps/nginx-app serverside-applied\n"
    );
    let first = cluster.json("deployment", "nginx-app");
    let port = &first["spec"]["template"]["spec"]["containers"][0]["ports"];
    assert_eq!(port, &json!([{"containerPort": 80, "protocol": "TCP"}]));
    assert!(
        owned(&first, "kubectl")
            .pointer("/f:spec/f:template/f:spec/f:containers/k:{\"name\":\"nginx\"}/f:ports/k:{\"containerPort\":80,\"protocol\":\"TCP\"}")
            .is_some(),
        "{first}"
    );
    assert_eq!(
        cluster.apply(APP, &[]),
        "deployment.apps/nginx-app serverside-applied\n"
    );
    let second = cluster.json("deployment", "nginx-app");
    assert_eq!(second, first);
}
