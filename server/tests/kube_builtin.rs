//! kube-rs against the in-process server (no socket) for Kubernetes' built-in kinds, with
//! the catalog made from Kubernetes 1.36's `swagger.json` in the corpus: namespaces as
//! objects (the four a cluster starts with, refusals, cascading deletion), garbage
//! collection by `ownerReferences` with each propagation policy, Tables, protobuf bodies and
//! answers, and `resourceVersionMatch`. One server (the catalog of the whole API takes a
//! few seconds to build in a debug build) serves every step.

use std::collections::BTreeMap;

use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use kube::Client;
use kube::api::{Api, DeleteParams, ListParams, PostParams, VersionMatch};
use kubeforge_server::{Catalog, Server};
use serde_json::{Value, json};

fn server() -> Option<Server> {
    let corpus = kubeforge_tests::corpus("kube_builtin", &["kubernetes/swagger.json"])?;
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    Some(Server::new(catalog))
}

fn config_map(name: &str, owner: Option<&ConfigMap>) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            owner_references: owner.map(|o| {
                vec![OwnerReference {
                    api_version: "v1".into(),
                    kind: "ConfigMap".into(),
                    name: o.metadata.name.clone().unwrap(),
                    uid: o.metadata.uid.clone().unwrap(),
                    block_owner_deletion: Some(true),
                    controller: None,
                }]
            }),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([("k".to_owned(), "v".to_owned())])),
        ..ConfigMap::default()
    }
}

fn api_error(error: kube::Error) -> (u16, String, String) {
    match error {
        kube::Error::Api(status) => (status.code, status.reason, status.message),
        other => panic!("not an API error: {other}"),
    }
}

async fn raw(
    server: &Server,
    method: Method,
    uri: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> (u16, String, Vec<u8>) {
    let mut request = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = server
        .call_async(request.body(Full::new(bytes::Bytes::from(body))).unwrap())
        .await;
    let code = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let bytes = response
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec();
    (code, content_type, bytes)
}

#[tokio::test]
async fn built_in_kinds_behave_as_on_a_real_api_server() {
    let Some(server) = server() else {
        return;
    };
    let client = Client::new(server.clone(), "default");

    // The namespaces a cluster starts with, and namespaces as objects.
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let names: Vec<String> = namespaces
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|n| n.metadata.name.unwrap())
        .collect();
    assert_eq!(
        names,
        ["default", "kube-node-lease", "kube-public", "kube-system"]
    );
    let created = namespaces
        .create(
            &PostParams::default(),
            &Namespace {
                metadata: ObjectMeta {
                    name: Some("team".into()),
                    ..ObjectMeta::default()
                },
                ..Namespace::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(created.status.unwrap().phase.as_deref(), Some("Active"));
    assert_eq!(created.spec.unwrap().finalizers.unwrap(), ["kubernetes"]);
    assert_eq!(
        created.metadata.labels.unwrap()["kubernetes.io/metadata.name"],
        "team"
    );
    let team: Api<ConfigMap> = Api::namespaced(client.clone(), "team");
    team.create(&PostParams::default(), &config_map("settings", None))
        .await
        .unwrap();
    let nowhere: Api<ConfigMap> = Api::namespaced(client.clone(), "nowhere");
    let refused = nowhere
        .create(&PostParams::default(), &config_map("x", None))
        .await
        .unwrap_err();
    assert_eq!(
        api_error(refused),
        (
            404,
            "NotFound".into(),
            "namespaces \"nowhere\" not found".into()
        )
    );

    // A finalizer holds one object: the namespace stays Terminating and refuses new content.
    let mut held = config_map("held", None);
    held.metadata.finalizers = Some(vec!["example.com/hold".into()]);
    team.create(&PostParams::default(), &held).await.unwrap();
    namespaces
        .delete("team", &DeleteParams::background())
        .await
        .unwrap();
    let terminating = namespaces.get("team").await.unwrap();
    assert_eq!(
        terminating.status.unwrap().phase.as_deref(),
        Some("Terminating")
    );
    assert!(team.get_opt("settings").await.unwrap().is_none());
    let refused = team
        .create(&PostParams::default(), &config_map("late", None))
        .await
        .unwrap_err();
    assert_eq!(
        api_error(refused),
        (
            403,
            "Forbidden".into(),
            "configmaps \"late\" is forbidden: unable to create new content in namespace team because it is being terminated".into()
        )
    );
    // The `Status` names the cause, as the NamespaceLifecycle admission plugin writes it.
    let (code, _, body) = raw(
        &server,
        Method::POST,
        "/api/v1/namespaces/team/configmaps",
        &[("content-type", "application/json")],
        serde_json::to_vec(&config_map("late", None)).unwrap(),
    )
    .await;
    assert_eq!(code, 403);
    let status: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        status["details"],
        json!({"name": "late", "kind": "configmaps", "causes": [{
            "reason": "NamespaceTerminating",
            "message": "namespace team is being terminated",
            "field": "metadata.namespace"
        }]}),
        "{status}"
    );
    // Releasing the finalizer lets the namespace controller finish.
    team.patch(
        "held",
        &kube::api::PatchParams::default(),
        &kube::api::Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
    assert!(team.get_opt("held").await.unwrap().is_none());
    assert!(namespaces.get_opt("team").await.unwrap().is_none());
    let refused = namespaces
        .delete("kube-system", &DeleteParams::default())
        .await
        .unwrap_err();
    assert_eq!(
        api_error(refused),
        (
            403,
            "Forbidden".into(),
            "namespaces \"kube-system\" is forbidden: this namespace may not be deleted".into()
        )
    );

    // Garbage collection by ownerReferences, with each propagation policy.
    let maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    for (policy, params) in [
        ("background", DeleteParams::background()),
        ("foreground", DeleteParams::foreground()),
        ("orphan", DeleteParams::orphan()),
    ] {
        let owner = maps
            .create(
                &PostParams::default(),
                &config_map(&format!("{policy}-owner"), None),
            )
            .await
            .unwrap();
        let child = maps
            .create(
                &PostParams::default(),
                &config_map(&format!("{policy}-child"), Some(&owner)),
            )
            .await
            .unwrap();
        let grandchild = maps
            .create(
                &PostParams::default(),
                &config_map(&format!("{policy}-grandchild"), Some(&child)),
            )
            .await
            .unwrap();
        let answer = maps
            .delete(owner.metadata.name.as_deref().unwrap(), &params)
            .await
            .unwrap();
        let after = |name: &Option<String>| {
            let maps = maps.clone();
            let name = name.clone().unwrap();
            async move { maps.get_opt(&name).await.unwrap() }
        };
        assert!(after(&owner.metadata.name).await.is_none(), "{policy}");
        match policy {
            "orphan" => {
                // The answer is the owner with its orphan finalizer; the child loses its
                // reference and stays, and so does the grandchild.
                let marked = answer.left().unwrap();
                assert_eq!(marked.metadata.finalizers.unwrap(), ["orphan"]);
                let child = after(&child.metadata.name).await.unwrap();
                assert!(child.metadata.owner_references.is_none());
                assert!(after(&grandchild.metadata.name).await.is_some());
            }
            "foreground" => {
                let marked = answer.left().unwrap();
                assert_eq!(marked.metadata.finalizers.unwrap(), ["foregroundDeletion"]);
                assert!(after(&child.metadata.name).await.is_none());
                assert!(after(&grandchild.metadata.name).await.is_none());
            }
            _ => {
                assert!(answer.right().is_some());
                assert!(after(&child.metadata.name).await.is_none());
                assert!(after(&grandchild.metadata.name).await.is_none());
            }
        }
    }
    // A dependent whose owner does not exist is collected.
    let orphaned = maps
        .create(
            &PostParams::default(),
            &config_map(
                "dangling",
                Some(&with_uid(
                    config_map("ghost", None),
                    "00000000-0000-4000-8000-000000000000",
                )),
            ),
        )
        .await
        .unwrap();
    assert!(
        maps.get_opt(orphaned.metadata.name.as_deref().unwrap())
            .await
            .unwrap()
            .is_none()
    );

    // A Secret's type defaults to Opaque; Deployments take their documents' types.
    let secrets: Api<Secret> = Api::default_namespaced(client.clone());
    let secret = secrets
        .create(
            &PostParams::default(),
            &Secret {
                metadata: ObjectMeta {
                    name: Some("db".into()),
                    ..ObjectMeta::default()
                },
                ..Secret::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(secret.type_.as_deref(), Some("Opaque"));
    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    let deployment: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "web"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}
    }))
    .unwrap();
    deployments
        .create(&PostParams::default(), &deployment)
        .await
        .unwrap();

    // A Table with the printer's columns.
    let (code, content_type, body) = raw(
        &server,
        Method::GET,
        "/apis/apps/v1/namespaces/default/deployments",
        &[(
            "accept",
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
        )],
        Vec::new(),
    )
    .await;
    assert_eq!((code, content_type.as_str()), (200, "application/json"));
    let table: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(table["kind"], "Table");
    let columns: Vec<&str> = table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        columns,
        [
            "Name",
            "Ready",
            "Up-to-date",
            "Available",
            "Age",
            "Containers",
            "Images",
            "Selector"
        ]
    );
    assert_eq!(
        table["columnDefinitions"][0]["description"]
            .as_str()
            .unwrap()
            .split('.')
            .next(),
        Some("Name must be unique within a namespace")
    );
    let cells = &table["rows"][0]["cells"];
    assert_eq!(cells[0], "web");
    assert_eq!(cells[1], "0/2");
    assert_eq!(cells[7], "app=web");
    assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");

    // Protobuf, as client-go's typed clients speak it: the answer to a protobuf create is
    // protobuf when preferred, and reads back the same.
    let (code, content_type, body) = raw(
        &server,
        Method::GET,
        "/api/v1/namespaces/default/secrets/db",
        &[(
            "accept",
            "application/vnd.kubernetes.protobuf,application/json",
        )],
        Vec::new(),
    )
    .await;
    assert_eq!(
        (code, content_type.as_str()),
        (200, "application/vnd.kubernetes.protobuf")
    );
    assert!(body.starts_with(b"k8s\0"));
    let mut copy = body.clone();
    // Change the name inside the message: "db" → "dc".
    let at = copy
        .windows(4)
        .position(|w| w == [0x0a, 0x02, b'd', b'b'])
        .unwrap();
    copy[at + 3] = b'c';
    let (code, _, _) = raw(
        &server,
        Method::POST,
        "/api/v1/namespaces/default/secrets",
        &[
            ("content-type", "application/vnd.kubernetes.protobuf"),
            ("accept", "application/json"),
        ],
        copy,
    )
    .await;
    assert_eq!(code, 201);
    let copied = secrets.get("dc").await.unwrap();
    assert_eq!(copied.type_.as_deref(), Some("Opaque"));

    // resourceVersionMatch=Exact reads the list as it was.
    let before = maps.list(&ListParams::default()).await.unwrap();
    let version = before.metadata.resource_version.clone().unwrap();
    maps.create(&PostParams::default(), &config_map("later", None))
        .await
        .unwrap();
    let exact = maps
        .list(&ListParams {
            resource_version: Some(version),
            version_match: Some(VersionMatch::Exact),
            ..ListParams::default()
        })
        .await
        .unwrap();
    assert_eq!(exact.items.len(), before.items.len());
    let now = maps.list(&ListParams::default()).await.unwrap();
    assert_eq!(now.items.len(), before.items.len() + 1);
    let refused = maps
        .list(&ListParams {
            resource_version: Some("999999".into()),
            version_match: Some(VersionMatch::NotOlderThan),
            ..ListParams::default()
        })
        .await
        .unwrap_err();
    assert_eq!(api_error(refused).0, 504);
}

/// `object` as if it had been stored with `uid`.
fn with_uid(mut object: ConfigMap, uid: &str) -> ConfigMap {
    object.metadata.uid = Some(uid.to_owned());
    object
}
