//! kube-rs's `Patch::Apply`, as controllers use it (kube-rs recommends server-side apply for
//! every write), against the in-process server: a controller's forced apply of the object
//! and of its status, a second manager's conflict as a `kube::Error`, a dry run, and a
//! field given up. The server learns the API from `schemas/` through the model (merging by
//! the schemas' list and map types), or from the committed crate's route table (no schema:
//! every map granular, every list atomic, as for a custom resource without one).

use std::path::PathBuf;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Pod;
use kube::Client;
use kube::api::{Api, Patch, PatchParams};
use kubeforge_server::{Catalog, Server};
use serde_json::{Value, json};

fn model_server() -> Server {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    Server::new(Catalog::from_documents(&files).unwrap())
}

fn routes_server() -> Server {
    Server::new(
        Catalog::from_routes(&kubeforge_api::routes::ROUTES)
            .typed::<kubeforge_api::api::coordination::v1::Lease>(),
    )
}

fn managers(
    managed: Option<&Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry>>,
) -> Vec<(String, String, String)> {
    managed
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e.manager.clone().unwrap_or_default(),
                e.operation.clone().unwrap_or_default(),
                e.subresource.clone().unwrap_or_default(),
            )
        })
        .collect()
}

fn fields_of(pod: &Pod, manager: &str) -> Value {
    pod.metadata
        .managed_fields
        .iter()
        .flatten()
        .find(|e| e.manager.as_deref() == Some(manager))
        .and_then(|e| e.fields_v1.as_ref())
        .map_or(Value::Null, |f| f.0.clone())
}

#[tokio::test]
async fn a_controller_applies_an_object_and_its_status() {
    let server = model_server();
    let pods: Api<Pod> = Api::default_namespaced(Client::new(server.clone(), "default"));
    let intent = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "app", "image": "nginx:1"}]},
    });
    let params = PatchParams::apply("web-controller").force();
    let pod = pods
        .patch("web", &params, &Patch::Apply(&intent))
        .await
        .unwrap();
    assert_eq!(pod.metadata.labels.as_ref().unwrap()["app"], "web");
    assert_eq!(
        managers(pod.metadata.managed_fields.as_ref()),
        [("web-controller".into(), "Apply".into(), String::new())]
    );
    assert_eq!(
        fields_of(&pod, "web-controller"),
        json!({
            "f:metadata": {"f:labels": {"f:app": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:name": {}}}},
        })
    );
    // The same intent again: nothing changes, not even the resource version.
    let again = pods
        .patch("web", &params, &Patch::Apply(&intent))
        .await
        .unwrap();
    assert_eq!(again, pod);
    // Its status, through the subresource.
    let status = json!({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
    });
    let pod = pods
        .patch_status("web", &params, &Patch::Apply(&status))
        .await
        .unwrap();
    assert_eq!(
        pod.status.as_ref().unwrap().phase.as_deref(),
        Some("Running")
    );
    assert_eq!(
        managers(pod.metadata.managed_fields.as_ref()),
        [
            ("web-controller".into(), "Apply".into(), String::new()),
            ("web-controller".into(), "Apply".into(), "status".into()),
        ]
    );
    // A second controller without force gets the conflict as an API error.
    let other = json!({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "spec": {"containers": [{"name": "app", "image": "nginx:2"}]},
    });
    let error = pods
        .patch("web", &PatchParams::apply("other"), &Patch::Apply(&other))
        .await
        .unwrap_err();
    let kube::Error::Api(status) = error else {
        panic!("expected an API error, got {error:?}");
    };
    assert_eq!((status.code, status.reason.as_str()), (409, "Conflict"));
    assert_eq!(
        status.message,
        "Apply failed with 1 conflict: conflict with \"web-controller\": .spec.containers[name=\"app\"].image"
    );
    // A dry run answers the result and stores nothing.
    let dry = pods
        .patch(
            "web",
            &PatchParams::apply("other").force().dry_run(),
            &Patch::Apply(&other),
        )
        .await
        .unwrap();
    assert_eq!(
        dry.spec.unwrap().containers[0].image.as_deref(),
        Some("nginx:2")
    );
    let stored = pods.get("web").await.unwrap();
    assert_eq!(
        stored.spec.unwrap().containers[0].image.as_deref(),
        Some("nginx:1")
    );
    // The controller stops applying the label: it goes, as no one else owns it.
    let without = json!({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "spec": {"containers": [{"name": "app", "image": "nginx:1"}]},
    });
    let pod = pods
        .patch("web", &params, &Patch::Apply(&without))
        .await
        .unwrap();
    assert!(pod.metadata.labels.is_none_or(|l| l.is_empty()));
}

#[tokio::test]
async fn apply_without_a_schema_merges_maps_and_replaces_lists() {
    for server in [routes_server(), model_server()] {
        let leases: Api<Lease> = Api::default_namespaced(Client::new(server.clone(), "default"));
        let holder = json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": "lock", "annotations": {"a": "1"}},
            "spec": {"holderIdentity": "a", "leaseDurationSeconds": 10},
        });
        let lease = leases
            .patch("lock", &PatchParams::apply("a"), &Patch::Apply(&holder))
            .await
            .unwrap();
        assert_eq!(
            lease.spec.as_ref().unwrap().holder_identity.as_deref(),
            Some("a")
        );
        let renew = json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": "lock", "annotations": {"b": "2"}},
            "spec": {"renewTime": "2024-01-01T00:00:00.000000Z"},
        });
        let lease = leases
            .patch("lock", &PatchParams::apply("b"), &Patch::Apply(&renew))
            .await
            .unwrap();
        let annotations = lease.metadata.annotations.unwrap();
        assert_eq!(annotations.len(), 2, "{annotations:?}");
        assert_eq!(
            lease.spec.as_ref().unwrap().lease_duration_seconds,
            Some(10)
        );
        let takeover = json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": "lock"},
            "spec": {"holderIdentity": "b"},
        });
        let error = leases
            .patch("lock", &PatchParams::apply("b"), &Patch::Apply(&takeover))
            .await
            .unwrap_err();
        assert!(
            matches!(error, kube::Error::Api(ref s) if s.code == 409),
            "{error:?}"
        );
        let lease = leases
            .patch(
                "lock",
                &PatchParams::apply("b").force(),
                &Patch::Apply(&takeover),
            )
            .await
            .unwrap();
        assert_eq!(
            lease.spec.as_ref().unwrap().holder_identity.as_deref(),
            Some("b")
        );
        // b no longer applies its renewTime and annotation: they go.
        assert!(lease.spec.as_ref().unwrap().renew_time.is_none());
        assert_eq!(lease.metadata.annotations.unwrap().len(), 1);
    }
}

/// A client library's apply of the same Deployment twice, its container port without a
/// `protocol`, against the server of Kubernetes' `swagger.json` (no schema `default`s: the
/// key takes the Go defaulters' `TCP`): the second apply matches the stored port and
/// changes nothing.
#[tokio::test]
async fn the_same_deployment_applied_twice_changes_nothing() {
    use k8s_openapi::api::apps::v1::Deployment;
    let test = "the_same_deployment_applied_twice_changes_nothing";
    let Some(corpus) = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"]) else {
        return;
    };
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    let client = Client::new(Server::new(catalog), "default");
    let deployments: Api<Deployment> = Api::default_namespaced(client);
    let config = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "nginx-app"},
        "spec": {
            "selector": {"matchLabels": {"app": "nginx"}},
            "template": {
                "metadata": {"labels": {"app": "nginx"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27",
                    "ports": [{"containerPort": 80}]}]},
            },
        },
    });
    let params = PatchParams::apply("my-controller");
    let first = deployments
        .patch("nginx-app", &params, &Patch::Apply(&config))
        .await
        .unwrap();
    let second = deployments
        .patch("nginx-app", &params, &Patch::Apply(&config))
        .await
        .unwrap();
    assert_eq!(
        second.metadata.resource_version,
        first.metadata.resource_version
    );
    let second = serde_json::to_value(&second).unwrap();
    assert_eq!(
        second.pointer("/spec/template/spec/containers/0/ports"),
        Some(&json!([{"containerPort": 80, "protocol": "TCP"}]))
    );
}
