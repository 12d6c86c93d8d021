//! Subresources with behaviour of their own, used as users use them: `kubectl` against the
//! binary on Kubernetes' `swagger.json`. A service account token from `kubectl create token`
//! that a TokenReview accepts (and one signed by another server that it refuses); a CSR
//! approved with `kubectl certificate approve`; an eviction that a PodDisruptionBudget
//! allows once and then refuses with 429; a binding; and what needs a kubelet, answered at
//! once.

use std::time::{Duration, Instant};

use kubeforge_tests::kubectl_server::KubectlServer;
use serde_json::Value;

const CSR: &str = "apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: fake
spec:
  request: REQUEST
  signerName: kubernetes.io/kube-apiserver-client
  usages: [client auth]
";

fn start(test: &str) -> Option<KubectlServer> {
    let kubectl = kubeforge_tests::kubectl(test)?;
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
    Some(KubectlServer::start(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &[corpus.join("kubernetes/swagger.json")],
    ))
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn review(server: &KubectlServer, token: &str) -> Value {
    let file = server.file(
        "review.yaml",
        &format!(
            "apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: {token}\n  audiences: [api]\n"
        ),
    );
    json(&server.ok(
        &["create", "--validate=false", "-f", &file, "-o", "json"],
        "",
    ))
}

#[test]
fn a_created_token_is_accepted_by_the_server_that_signed_it() {
    let (Some(server), Some(other)) = (
        start("a_created_token_is_accepted_by_the_server_that_signed_it"),
        start("a_created_token_is_accepted_by_the_server_that_signed_it"),
    ) else {
        return;
    };
    let _ = server.ok(&["create", "serviceaccount", "robot"], "");
    let token = server.ok(&["create", "token", "robot", "--audience", "api"], "");
    let token = token.trim();
    let status = &review(&server, token)["status"];
    assert_eq!(status["authenticated"], true, "{status}");
    assert_eq!(status["audiences"], serde_json::json!(["api"]), "{status}");
    assert_eq!(
        status["user"]["username"], "system:serviceaccount:default:robot",
        "{status}"
    );
    assert_eq!(
        status["user"]["groups"],
        serde_json::json!([
            "system:serviceaccounts",
            "system:serviceaccounts:default",
            "system:authenticated"
        ])
    );
    // Another server's key does not verify it.
    let status = &review(&other, token)["status"];
    assert_eq!(status.get("authenticated"), None, "{status}");
    assert_eq!(
        status["error"], "go-jose/go-jose: error in cryptographic primitive",
        "{status}"
    );
    // A token for a ServiceAccount that is gone is refused.
    let _ = server.ok(&["delete", "serviceaccount", "robot"], "");
    let status = &review(&server, token)["status"];
    assert_eq!(
        status["error"], "serviceaccounts \"robot\" not found",
        "{status}"
    );
    // A token for a ServiceAccount that does not exist is not made.
    let refused = server.fails(&["create", "token", "nobody"], "");
    assert!(
        refused.contains("serviceaccounts \"nobody\" not found"),
        "{refused}"
    );
    let _ = server.ok(&["create", "serviceaccount", "short"], "");
    let refused = server.fails(&["create", "token", "short", "--duration", "1m"], "");
    assert!(
        refused.contains("spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes"),
        "{refused}"
    );
    let jwks = json(&server.ok(&["get", "--raw", "/openid/v1/jwks"], ""));
    assert_eq!(jwks["keys"][0]["alg"], "ES256", "{jwks}");
}

#[test]
fn a_csr_is_approved_through_its_approval_subresource() {
    let Some(server) = start("a_csr_is_approved_through_its_approval_subresource") else {
        return;
    };
    let file = server.file("csr.yaml", &CSR.replace("REQUEST", "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlJQ1ZqQ0NBVDRDQVFBd0VURVBNQTBHQTFVRUF3d0dZVzVuWld4aE1JSUJJakFOQmdrcWhraUc5dzBCQVFFRgpBQU9DQVE4QU1JSUJDZ0tDQVFFQTByczhJTHRHdTYxakx2dHhWTTJSVlRWMDNHWlJTWWw0dWluVWo4RElaWjBOCnR2MUZtRVFSd3VoaUZsOFEzcWl0Qm0wMUFSMkNJVXBGd2ZzSjZ4MXF3ckJzVkhZbGlBNVhwRVpZM3ExcGswSDQKM3Z3aGJlK1o2MVNrVHF5SVBYUUwrTWM5T1Nsbm0xb0R2N0NtSkZNMUlMRVI3QTVGZnZKOEdFRjJ6dHBoaUlFMwpub1dtdHNZb3JuT2wzc2lHQ2ZGZzR4Zmd4eW8ybmlneFNVekl1bXNnVm9PM2ttT0x1RVF6cXpkakJ3TFJXbWlECklmMXBMWnoyalVnald4UkhCM1gyWnVVV1d1T09PZnpXM01LaE8ybHEvZi9DdS8wYk83c0x0MCt3U2ZMSU91TFcKcW90blZtRmxMMytqTy82WDNDKzBERHk5aUtwbXJjVDBnWGZLemE1dHJRSURBUUFCb0FBd0RRWUpLb1pJaHZjTgpBUUVMQlFBRGdnRUJBR05WdmVIOGR4ZzNvK21VeVRkbmFjVmQ1N24zSkExdnZEU1JWREkyQTZ1eXN3ZFp1L1BVCkkwZXpZWFV0RVNnSk1IRmQycVVNMjNuNVJsSXJ3R0xuUXFISUh5VStWWHhsdnZsRnpNOVpEWllSTmU3QlJvYXgKQVlEdUI5STZXT3FYbkFvczFqRmxNUG5NbFpqdU5kSGxpT1BjTU1oNndLaTZzZFhpVStHYTJ2RUVLY01jSVUyRgpvU2djUWdMYTk0aEpacGk3ZnNMdm1OQUxoT045UHdNMGM1dVJVejV4T0dGMUtCbWRSeEgvbUNOS2JKYjFRQm1HCkkwYitEUEdaTktXTU0xMzhIQXdoV0tkNjVoVHdYOWl4V3ZHMkh4TG1WQzg0L1BHT0tWQW9FNkpsYWFHdTlQVmkKdjlOSjVaZlZrcXdCd0hKbzZXdk9xVlA3SVFjZmg3d0drWm89Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo="));
    let _ = server.ok(&["create", "-f", &file], "");
    let csr = json(&server.ok(&["get", "csr", "fake", "-o", "json"], ""));
    assert_eq!(csr["spec"]["username"], "kubernetes-admin", "{csr}");
    let _ = server.ok(&["certificate", "approve", "fake"], "");
    let csr = json(&server.ok(&["get", "csr", "fake", "-o", "json"], ""));
    let condition = &csr["status"]["conditions"][0];
    assert_eq!(condition["type"], "Approved", "{csr}");
    assert!(condition["lastUpdateTime"].is_string(), "{csr}");
    // Approved and Denied cannot both be set.
    let mut denied = csr.clone();
    denied["status"]["conditions"]
        .as_array_mut()
        .expect("conditions")
        .push(serde_json::json!({"type": "Denied", "status": "True"}));
    let file = server.file("denied.json", &denied.to_string());
    let path = "/apis/certificates.k8s.io/v1/certificatesigningrequests/fake/approval";
    let refused = server.fails(&["replace", "--raw", path, "-f", &file], "");
    assert!(
        refused.contains("Approved and Denied conditions are mutually exclusive"),
        "{refused}"
    );
    // An update of the object does not change its conditions.
    let _ = server.ok(&["label", "csr", "fake", "a=b"], "");
    let csr = json(&server.ok(&["get", "csr", "fake", "-o", "json"], ""));
    assert_eq!(csr["status"]["conditions"][0]["type"], "Approved", "{csr}");
}

#[test]
fn an_eviction_honours_the_disruption_budget() {
    let Some(server) = start("an_eviction_honours_the_disruption_budget") else {
        return;
    };
    for pod in ["p1", "p2"] {
        let _ = server.ok(&["run", pod, "--image=x", "--labels=app=a"], "");
        let _ = server.ok(
            &[
                "patch",
                "pod",
                pod,
                "--subresource=status",
                "--type=merge",
                "-p",
                r#"{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}"#,
            ],
            "",
        );
    }
    let _ = server.ok(
        &[
            "create",
            "pdb",
            "budget",
            "--selector=app=a",
            "--min-available=1",
        ],
        "",
    );
    let pdb = json(&server.ok(&["get", "pdb", "budget", "-o", "json"], ""));
    assert_eq!(pdb["status"]["disruptionsAllowed"], 1, "{pdb}");
    assert_eq!(pdb["status"]["currentHealthy"], 2, "{pdb}");
    let evict = |pod: &str| {
        let file = server.file(
            "eviction.json",
            &format!(
                r#"{{"apiVersion":"policy/v1","kind":"Eviction","metadata":{{"name":"{pod}"}}}}"#
            ),
        );
        server.run(
            &[
                "create",
                "--raw",
                &format!("/api/v1/namespaces/default/pods/{pod}/eviction"),
                "-f",
                &file,
            ],
            "",
        )
    };
    let (ok, out, err) = evict("p1");
    assert!(ok, "{out}{err}");
    assert_eq!(json(&out)["code"], 201, "{out}");
    let pods = server.ok(&["get", "pods", "-o", "name"], "");
    assert_eq!(pods.trim(), "pod/p2");
    let (ok, _, err) = evict("p2");
    assert!(!ok);
    assert!(
        err.contains("Cannot evict pod as it would violate the pod's disruption budget."),
        "{err}"
    );
    // Binding puts the Pod on a node, once.
    let file = server.file(
        "binding.json",
        r#"{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p2"},"target":{"name":"n1"}}"#,
    );
    let path = "/api/v1/namespaces/default/pods/p2/binding";
    let _ = server.ok(&["create", "--raw", path, "-f", &file], "");
    let pod = json(&server.ok(&["get", "pod", "p2", "-o", "json"], ""));
    assert_eq!(pod["spec"]["nodeName"], "n1", "{pod}");
    let refused = server.fails(&["create", "--raw", path, "-f", &file], "");
    assert!(
        refused.contains("pod p2 is already assigned to node \"n1\""),
        "{refused}"
    );
}

#[test]
fn what_needs_a_kubelet_is_answered_at_once() {
    let Some(server) = start("what_needs_a_kubelet_is_answered_at_once") else {
        return;
    };
    let _ = server.ok(&["run", "p", "--image=x"], "");
    let started = Instant::now();
    let refused = server.fails(&["exec", "p", "--", "ls"], "");
    assert!(
        refused.contains("pod p does not have a host assigned"),
        "{refused}"
    );
    assert_eq!(server.ok(&["logs", "p"], ""), "");
    assert!(started.elapsed() < Duration::from_secs(10));
}
