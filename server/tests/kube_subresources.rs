//! kube-rs against the in-process server for the subresources with behaviour of their own,
//! as a client uses them: `create_token_request` and a `TokenReview` of the token,
//! `patch_approval` of a CertificateSigningRequest, and `evict` of Pods that a
//! PodDisruptionBudget guards (the first eviction allowed, the second refused with 429 and
//! its `DisruptionBudget` cause, as the disruption controller keeps the budget's status).

use k8s_openapi::api::authentication::v1::{
    TokenRequest, TokenRequestSpec, TokenReview, TokenReviewSpec,
};
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::core::v1::{Pod, ServiceAccount};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use kube::Client;
use kube::api::{Api, EvictParams, Patch, PatchParams, PostParams};
use kubeforge_server::{Catalog, Server};
use serde_json::json;

fn client(test: &str) -> Option<Client> {
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    Some(Client::new(Server::new(catalog), "default"))
}

#[tokio::test]
async fn subresources_with_behaviour_through_kube_rs() {
    let Some(client) = client("subresources_with_behaviour_through_kube_rs") else {
        return;
    };
    let post = PostParams::default();

    // A token for a ServiceAccount, which a TokenReview accepts.
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), "default");
    let account: ServiceAccount =
        serde_json::from_value(json!({"metadata": {"name": "robot"}})).unwrap();
    let account = accounts.create(&post, &account).await.unwrap();
    let request = TokenRequest {
        spec: Some(TokenRequestSpec {
            audiences: Some(vec!["api".into()]),
            ..TokenRequestSpec::default()
        }),
        ..TokenRequest::default()
    };
    let issued = accounts
        .create_token_request("robot", &post, &request)
        .await
        .unwrap();
    assert_eq!(issued.spec.unwrap().expiration_seconds, Some(3600));
    let token = issued.status.unwrap().token.unwrap();
    let reviews: Api<TokenReview> = Api::all(client.clone());
    let review = TokenReview {
        spec: TokenReviewSpec {
            audiences: Some(vec!["api".into()]),
            token,
        },
        ..TokenReview::default()
    };
    let status = reviews
        .create(&post, &review)
        .await
        .unwrap()
        .status
        .unwrap();
    assert_eq!(status.authenticated, Some(true), "{status:?}");
    let user = status.user.unwrap();
    assert_eq!(
        user.username.as_deref(),
        Some("system:serviceaccount:default:robot")
    );
    assert_eq!(user.uid, account.metadata.uid);
    let missing = accounts
        .create_token_request("nobody", &post, &request)
        .await
        .unwrap_err();
    assert!(
        matches!(missing, kube::Error::Api(ref s) if s.code == 404),
        "{missing}"
    );

    // A CSR approved through `approval`; its spec says who asked.
    let csrs: Api<CertificateSigningRequest> = Api::all(client.clone());
    let csr: CertificateSigningRequest = serde_json::from_value(json!({
        "metadata": {"name": "fake"},
        "spec": {
            "request": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K",
            "signerName": "kubernetes.io/kube-apiserver-client",
            "usages": ["client auth"],
            "username": "someone-else",
        },
    }))
    .unwrap();
    let created = csrs.create(&post, &csr).await.unwrap();
    assert_eq!(created.spec.username.as_deref(), Some("kubernetes-admin"));
    let approval = Patch::Merge(json!({"status": {"conditions": [
        {"type": "Approved", "status": "True", "reason": "Test", "message": "approved"}
    ]}}));
    csrs.patch_approval("fake", &PatchParams::default(), &approval)
        .await
        .unwrap();
    let approved = csrs.get_approval("fake").await.unwrap();
    let conditions = approved.status.unwrap().conditions.unwrap();
    assert_eq!(conditions[0].type_, "Approved");
    assert!(conditions[0].last_update_time.is_some());

    // Evictions a PodDisruptionBudget guards.
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    for name in ["p1", "p2"] {
        let pod: Pod = serde_json::from_value(json!({
            "metadata": {"name": name, "labels": {"app": "a"}},
            "spec": {"containers": [{"name": "c", "image": "x"}]},
        }))
        .unwrap();
        pods.create(&post, &pod).await.unwrap();
        let running = Patch::Merge(json!({"status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}],
        }}));
        pods.patch_status(name, &PatchParams::default(), &running)
            .await
            .unwrap();
    }
    let budgets: Api<PodDisruptionBudget> = Api::namespaced(client.clone(), "default");
    let budget: PodDisruptionBudget = serde_json::from_value(json!({
        "metadata": {"name": "budget"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "a"}}},
    }))
    .unwrap();
    budgets.create(&post, &budget).await.unwrap();
    let evicted = pods.evict("p1", &EvictParams::default()).await.unwrap();
    assert_eq!(evicted.code, 201);
    assert!(evicted.is_success());
    assert!(pods.get_opt("p1").await.unwrap().is_none());
    let status = budgets.get("budget").await.unwrap().status.unwrap();
    assert_eq!(
        (status.current_healthy, status.disruptions_allowed),
        (Some(1), Some(0))
    );
    let refused = pods.evict("p2", &EvictParams::default()).await.unwrap_err();
    let kube::Error::Api(refused) = refused else {
        panic!("not an API error: {refused}");
    };
    assert_eq!(
        (refused.code, refused.reason.as_str()),
        (429, "TooManyRequests")
    );
    assert_eq!(
        refused.message,
        "Cannot evict pod as it would violate the pod's disruption budget."
    );
    assert!(pods.get_opt("p2").await.unwrap().is_some());
}
