//! The controller as its own ServiceAccount, with the RBAC it ships (`deploy/rbac.yaml`):
//! the in-memory server evaluates RBAC as the API server does, so the manifest is tested
//! before production. With one verb fewer, the controller fails with the API server's
//! `forbidden` answer.

use std::time::Duration;

use k8s_openapi::api::core::v1::{Endpoints, Pod};
use kube::Client;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kubeforge_server::{Catalog, Server};

const RBAC: &str = include_str!("../deploy/rbac.yaml");

/// The core group and RBAC, from the corpus's OpenAPI v3 documents.
fn server(test: &str) -> Option<Server> {
    let documents = [
        "kubernetes/v3/api__v1_openapi.json",
        "kubernetes/v3/apis__rbac.authorization.k8s.io__v1_openapi.json",
    ];
    let corpus = kubeforge_tests::corpus(test, &documents)?;
    let paths: Vec<_> = documents.iter().map(|d| corpus.join(d)).collect();
    Some(Server::new(Catalog::from_documents(&paths).unwrap()))
}

fn pod(name: &str) -> Pod {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "app", "image": "nginx"}]},
    }))
    .unwrap()
}

#[tokio::test]
async fn the_controller_runs_as_its_service_account() {
    let Some(server) = server("the_controller_runs_as_its_service_account") else {
        return;
    };
    let controller = server.with_rbac(RBAC).unwrap();
    let run = tokio::spawn(async move {
        endpoints_controller::run(Client::new(controller, "default"), "default").await
    });
    let admin = Client::new(server, "default");
    let pods: Api<Pod> = Api::default_namespaced(admin.clone());
    pods.create(&PostParams::default(), &pod("web-1"))
        .await
        .unwrap();
    let status = Patch::Merge(serde_json::json!({"status": {"podIP": "10.0.0.1"}}));
    pods.patch_status("web-1", &PatchParams::default(), &status)
        .await
        .unwrap();
    let endpoints: Api<Endpoints> = Api::default_namespaced(admin);
    let ips = |web: Endpoints| -> Vec<String> {
        web.subsets
            .unwrap_or_default()
            .into_iter()
            .flat_map(|s| s.addresses.unwrap_or_default())
            .map(|a| a.ip)
            .collect()
    };
    let followed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Some(web) = endpoints.get_opt("web").await.unwrap()
                && ips(web) == ["10.0.0.1"]
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(
        followed.is_ok(),
        "the controller, as its ServiceAccount, never wrote the Pod's IP to the Endpoints"
    );
    assert!(
        !run.is_finished(),
        "the controller stopped: {:?}",
        run.await
    );
}

/// Without `list` on Pods its watch cannot start: the API server's 403, word for word.
#[tokio::test]
async fn one_verb_fewer_is_forbidden() {
    let Some(server) = server("one_verb_fewer_is_forbidden") else {
        return;
    };
    let rbac = RBAC.replace("verbs: [get, list, watch]", "verbs: [get, watch]");
    assert_ne!(rbac, RBAC);
    let controller = server.with_rbac(&rbac).unwrap();
    let run = endpoints_controller::run(Client::new(controller, "default"), "default");
    let error = tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .expect("the controller fails at once")
        .expect_err("forbidden");
    let text = format!("{error:?}");
    assert!(
        text.contains(
            r#"pods is forbidden: User \"system:serviceaccount:default:endpoints-controller\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\""#
        ),
        "{text}"
    );
}
