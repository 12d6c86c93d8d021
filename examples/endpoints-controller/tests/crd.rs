//! A controller's tests install its CRD before anything else, as kube-rs's own tests do:
//! here from the crate (`AppEndpoints::crd()`), through the API of the in-memory server,
//! waiting for `Established` before using the resource.

use std::time::Duration;

use endpoints_controller::crd::com::example::endpoints::v1::AppEndpoints;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use kube::runtime::wait::{await_condition, conditions};
use kube::{Client, CustomResourceExt};
use kubeforge_server::{Catalog, Server};

/// The core group (namespaces) and apiextensions.k8s.io, which serves CRDs, from the
/// corpus's OpenAPI v3 documents.
fn catalog(test: &str) -> Option<Catalog> {
    let documents = [
        "kubernetes/v3/api__v1_openapi.json",
        "kubernetes/v3/apis__apiextensions.k8s.io__v1_openapi.json",
    ];
    let corpus = kubeforge_tests::corpus(test, &documents)?;
    let paths: Vec<_> = documents.iter().map(|d| corpus.join(d)).collect();
    Some(Catalog::from_documents(&paths).unwrap())
}

#[tokio::test]
async fn the_crd_is_installed_from_the_crate() {
    let Some(catalog) = catalog("the_crd_is_installed_from_the_crate") else {
        return;
    };
    let client = Client::new(Server::new(catalog), "default");

    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    crds.create(&PostParams::default(), &AppEndpoints::crd())
        .await
        .unwrap();
    let established = await_condition(
        crds.clone(),
        AppEndpoints::crd_name(),
        conditions::is_crd_established(),
    );
    let crd = tokio::time::timeout(Duration::from_secs(10), established)
        .await
        .expect("the CRD is established")
        .unwrap()
        .expect("the CRD exists");
    assert_eq!(crd.spec.names.short_names, Some(vec!["ape".to_owned()]));
    assert_eq!(AppEndpoints::shortnames(), ["ape"]);

    // The resource is served: its objects are validated by the CRD's schema and its CEL rule.
    let apps: Api<AppEndpoints> = Api::default_namespaced(client);
    let web: AppEndpoints = serde_json::from_value(serde_json::json!({
        "apiVersion": "endpoints.example.com/v1",
        "kind": "AppEndpoints",
        "metadata": {"name": "web"},
        "spec": {"app": "web"}
    }))
    .unwrap();
    apps.create(&PostParams::default(), &web).await.unwrap();
    let mut renamed = apps.get("web").await.unwrap();
    let spec = renamed.spec.as_mut().expect("a spec");
    assert_eq!(spec.app, "web");
    spec.app = "api".to_owned();
    let refused = apps
        .replace("web", &PostParams::default(), &renamed)
        .await
        .expect_err("app is immutable");
    assert!(
        refused.to_string().contains("app is immutable"),
        "{refused}"
    );
}

/// The same from the library, before any client: `Server::install_crds` with the crate's
/// `crds()` (every CRD it was generated from), which returns once they are served.
#[tokio::test]
async fn the_crates_crds_are_installed_when_the_server_starts() {
    let Some(catalog) = catalog("the_crates_crds_are_installed_when_the_server_starts") else {
        return;
    };
    let server = Server::new(catalog);
    let crds: Vec<serde_json::Value> = endpoints_controller::crd::crds()
        .iter()
        .map(|crd| serde_json::to_value(crd).unwrap())
        .collect();
    server.install_crds(&crds).unwrap();

    let client = Client::new(server.clone(), "default");
    let crd = Api::<CustomResourceDefinition>::all(client.clone())
        .get(AppEndpoints::crd_name())
        .await
        .unwrap();
    let established = crd.status.and_then(|s| s.conditions).is_some_and(|c| {
        c.iter()
            .any(|c| c.type_ == "Established" && c.status == "True")
    });
    assert!(
        established,
        "the CRD is established when install_crds returns"
    );
    let apps: Api<AppEndpoints> = Api::default_namespaced(client);
    assert!(
        apps.list(&Default::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );

    // Installing it again is the API server's 409.
    let again = server.install_crds(&crds).expect_err("already exists");
    assert_eq!(
        (again.code, again.reason),
        (409, "AlreadyExists"),
        "{again:?}"
    );
}
