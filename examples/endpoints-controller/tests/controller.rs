//! The controller against the in-memory server: Pods come and go, the Endpoints follow.

use std::time::Duration;

use k8s_openapi::api::core::v1::{Container, Endpoints, Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Client;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kubeforge_server::{Catalog, Server};

fn pod(name: &str, app: &str) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some([("app".to_owned(), app.to_owned())].into()),
            ..ObjectMeta::default()
        },
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "app".into(),
                image: Some("nginx".into()),
                ..Container::default()
            }],
            ..PodSpec::default()
        }),
        status: None,
    }
}

/// The IPs the Endpoints `name` lists, once they equal `expected` (`None`: once it is gone).
async fn eventually(endpoints: &Api<Endpoints>, name: &str, expected: Option<&[&str]>) {
    let result = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let current = endpoints.get_opt(name).await.unwrap().map(|e| {
                e.subsets
                    .unwrap_or_default()
                    .into_iter()
                    .flat_map(|s| s.addresses.unwrap_or_default())
                    .map(|a| a.ip)
                    .collect::<Vec<_>>()
            });
            if current
                .as_deref()
                .map(|ips| ips.iter().map(String::as_str).collect::<Vec<_>>())
                == expected.map(<[&str]>::to_vec)
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(result.is_ok(), "Endpoints {name} never became {expected:?}");
}

#[tokio::test]
async fn endpoints_follow_the_pods() {
    let catalog = Catalog::from_routes(&kubeforge_api::routes::ROUTES)
        .typed::<kubeforge_api::api::core::v1::Pod>()
        .typed::<kubeforge_api::api::core::v1::Endpoints>();
    let client = Client::new(Server::new(catalog), "default");
    let controller = tokio::spawn(endpoints_controller::run(client.clone(), "default"));
    let pods: Api<Pod> = Api::default_namespaced(client.clone());
    let endpoints: Api<Endpoints> = Api::default_namespaced(client);

    for (name, ip) in [("web-1", "10.0.0.1"), ("web-2", "10.0.0.2")] {
        pods.create(&PostParams::default(), &pod(name, "web"))
            .await
            .unwrap();
        let status = Patch::Merge(serde_json::json!({"status": {"podIP": ip}}));
        pods.patch_status(name, &PatchParams::default(), &status)
            .await
            .unwrap();
    }
    eventually(&endpoints, "web", Some(&["10.0.0.1", "10.0.0.2"])).await;

    // The controller owns what it applied, as an `Apply` manager; another manager's field
    // survives the controller's next apply.
    let web = endpoints.get("web").await.unwrap();
    let managers: Vec<(String, String)> = web
        .metadata
        .managed_fields
        .unwrap_or_default()
        .into_iter()
        .map(|m| {
            (
                m.manager.unwrap_or_default(),
                m.operation.unwrap_or_default(),
            )
        })
        .collect();
    assert!(
        managers.contains(&(
            endpoints_controller::FIELD_MANAGER.to_owned(),
            "Apply".to_owned()
        )),
        "{managers:?}"
    );
    let note = Patch::Merge(serde_json::json!({"metadata": {"annotations": {"team": "web"}}}));
    endpoints
        .patch("web", &PatchParams::default(), &note)
        .await
        .unwrap();

    pods.delete("web-1", &DeleteParams::default())
        .await
        .unwrap();
    eventually(&endpoints, "web", Some(&["10.0.0.2"])).await;
    let web = endpoints.get("web").await.unwrap();
    assert_eq!(
        web.metadata.annotations.unwrap_or_default().get("team"),
        Some(&"web".to_owned()),
        "the controller's apply removed a field another manager owns"
    );
    pods.delete("web-2", &DeleteParams::default())
        .await
        .unwrap();
    eventually(&endpoints, "web", None).await;
    assert!(
        !controller.is_finished(),
        "the controller stopped: {:?}",
        controller.await
    );
    controller.abort();
}
