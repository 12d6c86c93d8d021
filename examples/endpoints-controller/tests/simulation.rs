//! The controller against a simulated cluster (`Options::simulation`): a Deployment it did
//! not make rolls out through ReplicaSets to Pods that the simulated scheduler binds and the
//! simulated kubelets run, with the Pod IPs a kubelet reports; the Endpoints follow, as on a
//! cluster, with no test writing a Pod's status by hand.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Endpoints, Pod};
use kube::Client;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kubeforge_server::{Catalog, Options, Server, Simulation};

/// The Endpoints `web` once they list as many IPs as there are running `app=web` Pods, and
/// exactly theirs; panics after 10 s.
async fn followed(pods: &Api<Pod>, endpoints: &Api<Endpoints>, replicas: usize) {
    let result = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let mut running: Vec<String> = pods
                .list(&ListParams::default().labels("app=web"))
                .await
                .unwrap()
                .items
                .into_iter()
                .filter_map(|p| p.status.and_then(|s| s.pod_ip))
                .collect();
            running.sort();
            let listed: Option<Vec<String>> = endpoints.get_opt("web").await.unwrap().map(|e| {
                e.subsets
                    .unwrap_or_default()
                    .into_iter()
                    .flat_map(|s| s.addresses.unwrap_or_default())
                    .map(|a| a.ip)
                    .collect()
            });
            if running.len() == replicas && listed.as_ref() == Some(&running) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(
        result.is_ok(),
        "the Endpoints never listed the {replicas} running Pods' IPs: {:?}",
        endpoints.get_opt("web").await
    );
}

#[tokio::test]
async fn endpoints_follow_a_deployments_simulated_pods() {
    let Some(corpus) = kubeforge_tests::corpus(
        "endpoints_follow_a_deployments_simulated_pods",
        &["kubernetes/swagger.json"],
    ) else {
        return;
    };
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    let options = Options {
        simulation: Some(Simulation::with_nodes(2)),
        ..Options::default()
    };
    let client = Client::new(Server::with_options(catalog, options), "default");
    let controller = tokio::spawn(endpoints_controller::run(client.clone(), "default"));

    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    let web: Deployment = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            },
        },
    }))
    .unwrap();
    deployments
        .create(&PostParams::default(), &web)
        .await
        .unwrap();
    let pods: Api<Pod> = Api::default_namespaced(client.clone());
    let endpoints: Api<Endpoints> = Api::default_namespaced(client);
    followed(&pods, &endpoints, 2).await;

    let scale = Patch::Merge(serde_json::json!({"spec": {"replicas": 3}}));
    deployments
        .patch("web", &PatchParams::default(), &scale)
        .await
        .unwrap();
    followed(&pods, &endpoints, 3).await;
    assert!(
        !controller.is_finished(),
        "the controller stopped: {:?}",
        controller.await
    );
    controller.abort();
}
