//! The admission plugins that change a created Pod on a real 1.36 API server
//! (`semantics::admission`: ServiceAccount, DefaultTolerationSeconds, Priority), seen as a
//! kubectl user sees them against the binary serving Kubernetes' `swagger.json`: the refusals
//! in the API server's words, and what each plugin leaves alone.

use kubeforge_tests::kubectl_server::KubectlServer;
use serde_json::Value;

fn start(test: &str) -> Option<KubectlServer> {
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
    let kubectl = kubeforge_tests::kubectl(test)?;
    Some(KubectlServer::start(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &[corpus.join("kubernetes/swagger.json")],
    ))
}

fn pod(server: &KubectlServer, name: &str) -> Value {
    let text = server.ok(&["get", "pod", name, "-o", "json"], "");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_pods_service_account_priority_and_tolerations_are_admitted_as_the_api_server_admits_them() {
    let Some(server) = start(
        "a_pods_service_account_priority_and_tolerations_are_admitted_as_the_api_server_admits_them",
    ) else {
        return;
    };
    // A service account that does not exist: the plugin's 403.
    let refused = server.fails(
        &[
            "run",
            "lost",
            "--image=nginx",
            r#"--overrides={"spec":{"serviceAccountName":"nope"}}"#,
        ],
        "",
    );
    assert_eq!(
        refused.trim_end(),
        r#"Error from server (Forbidden): pods "lost" is forbidden: error looking up service account default/nope: serviceaccount "nope" not found"#
    );
    // A PriorityClass that does not exist.
    let refused = server.fails(
        &[
            "run",
            "unknown",
            "--image=nginx",
            r#"--overrides={"spec":{"priorityClassName":"gold"}}"#,
        ],
        "",
    );
    assert_eq!(
        refused.trim_end(),
        r#"Error from server (Forbidden): pods "unknown" is forbidden: no PriorityClass with name gold was found"#
    );

    // A service account that does not automount its token: no volume; a built-in class's
    // priority; a toleration of every NoExecute taint keeps the defaults out.
    let _ = server.ok(
        &["apply", "-f", "-"],
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: quiet}\nautomountServiceAccountToken: false\nimagePullSecrets: [{name: registry}]\n",
    );
    let _ = server.ok(
        &[
            "run",
            "calm",
            "--image=nginx",
            r#"--overrides={"spec":{"serviceAccountName":"quiet","priorityClassName":"system-cluster-critical","tolerations":[{"operator":"Exists","effect":"NoExecute"}]}}"#,
        ],
        "",
    );
    let calm = pod(&server, "calm");
    let spec = &calm["spec"];
    assert!(spec.get("volumes").is_none(), "{calm:#}");
    assert!(
        spec["containers"][0].get("volumeMounts").is_none(),
        "{calm:#}"
    );
    assert_eq!(spec["serviceAccount"], "quiet");
    assert_eq!(
        spec["imagePullSecrets"],
        serde_json::json!([{"name": "registry"}])
    );
    assert_eq!(spec["priority"], 2_000_000_000);
    assert_eq!(spec["preemptionPolicy"], "PreemptLowerPriority");
    assert_eq!(
        spec["tolerations"],
        serde_json::json!([{"effect": "NoExecute", "operator": "Exists"}])
    );

    // A global default PriorityClass gives its value to Pods that name none; a container
    // that mounts something at the token's path keeps it, and the others get the token.
    let _ = server.ok(
        &["apply", "-f", "-"],
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: standard}\nvalue: 1000\nglobalDefault: true\npreemptionPolicy: Never\n",
    );
    let _ = server.ok(
        &["apply", "-f", "-"],
        "apiVersion: v1\nkind: Pod\nmetadata: {name: two}\nspec:\n  containers:\n  - {name: own, image: a, volumeMounts: [{name: mine, mountPath: /var/run/secrets/kubernetes.io/serviceaccount}]}\n  - {name: plain, image: b}\n  volumes: [{name: mine, emptyDir: {}}]\n",
    );
    let two = pod(&server, "two");
    let spec = &two["spec"];
    assert_eq!(
        (spec["priority"].clone(), spec["preemptionPolicy"].clone()),
        (1000.into(), "Never".into())
    );
    assert_eq!(
        spec["containers"][0]["volumeMounts"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "{two:#}"
    );
    let token = spec["containers"][1]["volumeMounts"][0]["name"]
        .as_str()
        .unwrap();
    assert!(token.starts_with("kube-api-access-"), "{two:#}");
    assert_eq!(spec["volumes"][1]["name"], token, "{two:#}");
    assert_eq!(spec["serviceAccountName"], "default");
}
