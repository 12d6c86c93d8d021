//! kube-rs, a client none of us wrote, against the in-process server (no socket): CRUD with
//! optimistic concurrency, merge/JSON/strategic patches, selectors and paging, finalizers,
//! the status subresource, and a `kube::runtime::watcher` that sees every change across a
//! forced 410 Gone and its relist. The server learns the API from the committed crate's
//! route table with its generated types as validators, or from `schemas/` through the model.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::api::core::v1::{Container, Pod, PodSpec, PodStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Client;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::watcher;
use kubeforge_server::{Catalog, Options, Server};
use serde_json::json;

fn routes_server() -> Server {
    let catalog = Catalog::from_routes(&kubeforge_api::routes::ROUTES)
        .typed::<kubeforge_api::api::coordination::v1::Lease>()
        .typed::<kubeforge_api::api::core::v1::Pod>()
        .typed::<kubeforge_api::api::core::v1::Endpoints>()
        .typed::<kubeforge_api::openshift::image::v1::ImageStream>();
    Server::with_options(catalog, fast())
}

fn fast() -> Options {
    Options {
        bookmark_interval: Duration::from_millis(50),
        ..Options::default()
    }
}

fn schemas() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn model_server() -> Server {
    Server::with_options(Catalog::from_documents(&schemas()).unwrap(), fast())
}

fn lease(name: &str, holder: &str) -> Lease {
    Lease {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some(holder.into()),
            ..LeaseSpec::default()
        }),
    }
}

fn pod(name: &str, labels: &[(&str, &str)]) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect(),
            ),
            ..ObjectMeta::default()
        },
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "app".into(),
                image: Some("nginx:1".into()),
                ..Container::default()
            }],
            ..PodSpec::default()
        }),
        status: None,
    }
}

fn api_error(error: kube::Error) -> (u16, String) {
    match error {
        kube::Error::Api(status) => (status.code, status.reason),
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn crud_with_optimistic_concurrency() {
    for server in [routes_server(), model_server()] {
        // What the cluster starts with (namespaces, the kubernetes Service, …).
        let started = server.len();
        let leases: Api<Lease> = Api::default_namespaced(Client::new(server.clone(), "default"));
        let created = leases
            .create(&PostParams::default(), &lease("lock", "a"))
            .await
            .unwrap();
        let meta = &created.metadata;
        assert_eq!(meta.namespace.as_deref(), Some("default"));
        // A Lease's strategy keeps no generation.
        assert_eq!(meta.generation, None);
        assert!(meta.uid.as_ref().is_some_and(|u| u.len() == 36), "{meta:?}");
        assert!(meta.creation_timestamp.is_some());
        let rv1 = meta.resource_version.clone().unwrap();
        assert_eq!(leases.get("lock").await.unwrap(), created);

        let again = leases
            .create(&PostParams::default(), &lease("lock", "b"))
            .await
            .unwrap_err();
        assert_eq!(api_error(again), (409, "AlreadyExists".into()));

        let mut changed = created.clone();
        changed.spec.as_mut().unwrap().holder_identity = Some("b".into());
        let replaced = leases
            .replace("lock", &PostParams::default(), &changed)
            .await
            .unwrap();
        assert_eq!(replaced.metadata.generation, None);
        assert_eq!(replaced.metadata.uid, created.metadata.uid);
        assert_ne!(
            replaced.metadata.resource_version.as_deref(),
            Some(rv1.as_str())
        );

        // The stale copy still carries rv1.
        let stale = leases
            .replace("lock", &PostParams::default(), &changed)
            .await
            .unwrap_err();
        assert_eq!(api_error(stale), (409, "Conflict".into()));

        // Writing what is stored changes nothing, not even the resource version.
        let same = leases
            .replace("lock", &PostParams::default(), &replaced)
            .await
            .unwrap();
        assert_eq!(same, replaced);

        let list = leases.list(&ListParams::default()).await.unwrap();
        assert_eq!(list.items, vec![replaced.clone()]);

        let deleted = leases
            .delete("lock", &DeleteParams::default())
            .await
            .unwrap();
        assert!(
            deleted.is_right(),
            "a delete without finalizers answers a Status"
        );
        assert_eq!(
            api_error(leases.get("lock").await.unwrap_err()),
            (404, "NotFound".into())
        );
        assert_eq!(
            api_error(
                leases
                    .delete("lock", &DeleteParams::default())
                    .await
                    .unwrap_err()
            )
            .0,
            404
        );
        assert_eq!(server.len(), started);
    }
}

#[tokio::test]
async fn merge_json_and_strategic_patches() {
    let server = model_server();
    let pods: Api<Pod> = Api::default_namespaced(Client::new(server, "default"));
    pods.create(&PostParams::default(), &pod("web", &[("app", "web")]))
        .await
        .unwrap();
    let params = PatchParams::default();

    let merged = pods
        .patch(
            "web",
            &params,
            &Patch::Merge(json!({"metadata": {"labels": {"tier": "front", "app": null}}})),
        )
        .await
        .unwrap();
    assert_eq!(
        merged.metadata.labels,
        Some(BTreeMap::from([("tier".into(), "front".into())]))
    );

    let patch = serde_json::from_value(json!([
        {"op": "add", "path": "/metadata/annotations", "value": {"note": "x"}},
        {"op": "replace", "path": "/spec/containers/0/image", "value": "nginx:2"}
    ]))
    .unwrap();
    let jsoned = pods
        .patch("web", &params, &Patch::<()>::Json(patch))
        .await
        .unwrap();
    assert_eq!(jsoned.metadata.annotations.unwrap()["note"], "x");
    assert_eq!(
        jsoned.spec.as_ref().unwrap().containers[0].image.as_deref(),
        Some("nginx:2")
    );
    assert_eq!(jsoned.metadata.generation, Some(2));

    // containers merge by name (x-kubernetes-patch-merge-key in core_v1.json); a Pod may
    // change only their images, and may not gain one (`ValidatePodUpdate`).
    let strategic = pods
        .patch(
            "web",
            &params,
            &Patch::Strategic(
                json!({"spec": {"containers": [{"name": "app", "image": "nginx:3"}]}}),
            ),
        )
        .await
        .unwrap();
    let containers: Vec<(String, Option<String>)> = strategic
        .spec
        .unwrap()
        .containers
        .into_iter()
        .map(|c| (c.name, c.image))
        .collect();
    assert_eq!(containers, [("app".into(), Some("nginx:3".into()))]);
    let added = pods
        .patch(
            "web",
            &params,
            &Patch::Strategic(json!({"spec": {"containers": [{"name": "side", "image": "busybox"}, {"name": "app", "image": "nginx:3"}]}})),
        )
        .await
        .unwrap_err();
    assert_eq!(api_error(added), (422, "Invalid".into()));
    // A status's conditions merge by type.
    for ty in ["Ready", "Initialized"] {
        pods.patch_status(
            "web",
            &params,
            &Patch::Strategic(json!({"status": {"conditions": [{"type": ty, "status": "True"}]}})),
        )
        .await
        .unwrap();
    }
    let conditions: Vec<String> = pods
        .get_status("web")
        .await
        .unwrap()
        .status
        .unwrap()
        .conditions
        .unwrap()
        .into_iter()
        .map(|c| c.type_)
        .collect();
    assert_eq!(conditions, ["Ready", "Initialized"]);

    let failed = pods
        .patch(
            "web",
            &params,
            &Patch::<()>::Json(
                serde_json::from_value(
                    json!([{"op": "test", "path": "/metadata/name", "value": "other"}]),
                )
                .unwrap(),
            ),
        )
        .await
        .unwrap_err();
    assert_eq!(api_error(failed).0, 422);
    let apply = pods
        .patch("web", &PatchParams::apply("test"), &Patch::Apply(json!({})))
        .await
        .unwrap_err();
    // An apply without apiVersion and kind: the API server's 400 (server-side apply itself
    // is tested in server_side_apply.rs).
    assert_eq!(api_error(apply), (400, "BadRequest".into()));
}

#[tokio::test]
async fn list_with_selectors_and_pages() {
    let server = routes_server();
    let pods: Api<Pod> = Api::default_namespaced(Client::new(server.clone(), "default"));
    let other: Api<Pod> = Api::namespaced(Client::new(server.clone(), "default"), "other");
    let labels: [(&str, &[(&str, &str)]); 5] = [
        ("p1", &[("app", "web"), ("tier", "a")]),
        ("p2", &[("app", "web"), ("tier", "b")]),
        ("p3", &[("app", "db"), ("legacy", "yes")]),
        ("p4", &[("app", "db"), ("tier", "c")]),
        ("p5", &[]),
    ];
    for (name, labels) in labels {
        pods.create(&PostParams::default(), &pod(name, labels))
            .await
            .unwrap();
    }
    other
        .create(&PostParams::default(), &pod("p1", &[("app", "web")]))
        .await
        .unwrap();
    let names = |list: kube::core::ObjectList<Pod>| -> Vec<String> {
        list.items
            .into_iter()
            .map(|p| p.metadata.name.unwrap())
            .collect()
    };
    for (selector, expected) in [
        ("app=web", &["p1", "p2"][..]),
        ("app!=web", &["p3", "p4", "p5"]),
        ("tier in (a,c)", &["p1", "p4"]),
        ("tier notin (a,c)", &["p2", "p3", "p5"]),
        ("legacy", &["p3"]),
        ("!tier,app", &["p3"]),
    ] {
        let list = pods
            .list(&ListParams::default().labels(selector))
            .await
            .unwrap();
        assert_eq!(names(list), expected, "{selector}");
    }
    let by_name = pods
        .list(&ListParams::default().fields("metadata.name=p2"))
        .await
        .unwrap();
    assert_eq!(names(by_name), ["p2"]);
    let all: Api<Pod> = Api::all(Client::new(server.clone(), "default"));
    let everywhere = all
        .list(&ListParams::default().fields("metadata.name=p1"))
        .await
        .unwrap();
    assert_eq!(everywhere.items.len(), 2);
    let outside = all
        .list(&ListParams::default().fields("metadata.namespace!=default"))
        .await
        .unwrap();
    assert_eq!(names(outside), ["p1"]);
    // A pod's own field labels select; others are refused as the API server refuses them.
    let unscheduled = pods
        .list(&ListParams::default().fields("spec.nodeName="))
        .await
        .unwrap();
    assert_eq!(names(unscheduled).len(), 5);
    let on_n1 = pods
        .list(&ListParams::default().fields("spec.nodeName=n1"))
        .await
        .unwrap();
    assert!(on_n1.items.is_empty());
    let refused = pods
        .list(&ListParams::default().fields("spec.containers=x"))
        .await
        .unwrap_err();
    match refused {
        kube::Error::Api(status) => {
            assert_eq!(status.code, 400);
            assert_eq!(status.message, "field label not supported: spec.containers");
        }
        other => panic!("expected an API error, got {other:?}"),
    }

    let mut seen = Vec::new();
    let mut params = ListParams::default().limit(2);
    loop {
        let page = pods.list(&params).await.unwrap();
        assert!(page.items.len() <= 2);
        let token = page.metadata.continue_.clone();
        seen.extend(names(page));
        match token {
            Some(token) if !token.is_empty() => params = params.continue_token(&token),
            _ => break,
        }
    }
    assert_eq!(seen, ["p1", "p2", "p3", "p4", "p5"]);
}

#[tokio::test]
async fn finalizers_hold_an_object_until_removed() {
    let server = routes_server();
    let leases: Api<Lease> = Api::default_namespaced(Client::new(server.clone(), "default"));
    let mut held = lease("held", "a");
    held.metadata.finalizers = Some(vec!["example.com/cleanup".into()]);
    leases.create(&PostParams::default(), &held).await.unwrap();
    let answer = leases
        .delete("held", &DeleteParams::default())
        .await
        .unwrap();
    let object = answer
        .left()
        .expect("deletion only begins: the answer is the object");
    assert!(object.metadata.deletion_timestamp.is_some());
    assert!(
        leases
            .get("held")
            .await
            .unwrap()
            .metadata
            .deletion_timestamp
            .is_some()
    );
    leases
        .patch(
            "held",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"finalizers": null}})),
        )
        .await
        .unwrap();
    assert_eq!(api_error(leases.get("held").await.unwrap_err()).0, 404);
}

#[tokio::test]
async fn status_subresource_and_main_resource_ignore_each_other() {
    let server = routes_server();
    let pods: Api<Pod> = Api::default_namespaced(Client::new(server, "default"));
    let mut with_status = pod("web", &[]);
    with_status.status = Some(PodStatus {
        phase: Some("Running".into()),
        ..PodStatus::default()
    });
    let created = pods
        .create(&PostParams::default(), &with_status)
        .await
        .unwrap();
    // PrepareForCreate replaces the status: a Pod starts `Pending`, with its QoS class.
    let status = created.status.unwrap();
    assert_eq!(status.phase.as_deref(), Some("Pending"));
    assert_eq!(status.qos_class.as_deref(), Some("BestEffort"));

    let patched = pods
        .patch_status(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": "Running"}, "spec": {"containers": [{"name": "x", "image": "y"}]}})),
        )
        .await
        .unwrap();
    assert_eq!(
        patched.status.as_ref().unwrap().phase.as_deref(),
        Some("Running")
    );
    assert_eq!(patched.spec, created.spec, "status writes ignore the spec");
    assert_eq!(patched.metadata.generation, Some(1));

    let mut changed = patched.clone();
    changed.status.as_mut().unwrap().phase = Some("Failed".into());
    changed.spec.as_mut().unwrap().containers[0].image = Some("nginx:2".into());
    let replaced = pods
        .replace("web", &PostParams::default(), &changed)
        .await
        .unwrap();
    assert_eq!(
        replaced.status.unwrap().phase.as_deref(),
        Some("Running"),
        "main writes ignore the status"
    );
    assert_eq!(
        replaced.spec.unwrap().containers[0].image.as_deref(),
        Some("nginx:2")
    );
    assert_eq!(replaced.metadata.generation, Some(2));
}

/// Folds watcher events into the objects a reflector would hold.
fn apply_event(
    state: &mut BTreeMap<String, String>,
    buffer: &mut Option<BTreeMap<String, String>>,
    event: watcher::Event<Lease>,
) {
    let key_value = |lease: &Lease| {
        (
            lease.metadata.name.clone().unwrap(),
            lease
                .spec
                .as_ref()
                .and_then(|s| s.holder_identity.clone())
                .unwrap_or_default(),
        )
    };
    match event {
        watcher::Event::Apply(lease) => {
            let (k, v) = key_value(&lease);
            state.insert(k, v);
        }
        watcher::Event::Delete(lease) => {
            state.remove(&key_value(&lease).0);
        }
        watcher::Event::Init => *buffer = Some(BTreeMap::new()),
        watcher::Event::InitApply(lease) => {
            let (k, v) = key_value(&lease);
            buffer.get_or_insert_default().insert(k, v);
        }
        watcher::Event::InitDone => *state = buffer.take().unwrap_or_default(),
    }
}

async fn wait_for(
    stream: &mut (impl futures::Stream<Item = Result<watcher::Event<Lease>, watcher::Error>> + Unpin),
    state: &mut BTreeMap<String, String>,
    buffer: &mut Option<BTreeMap<String, String>>,
    errors: &mut usize,
    expected: &BTreeMap<String, String>,
) {
    tokio::time::timeout(Duration::from_secs(10), async {
        while state != expected {
            match stream.next().await.expect("the watcher ended") {
                Ok(event) => apply_event(state, buffer, event),
                Err(_) => *errors += 1,
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("the watcher's view {state:?} never became {expected:?}"));
}

#[tokio::test]
async fn watcher_sees_every_change_across_a_410_and_relist() {
    let server = routes_server();
    let started = server.len();
    let client = Client::new(server.clone(), "default");
    let leases: Api<Lease> = Api::default_namespaced(client.clone());
    for config in [
        watcher::Config::default(),
        watcher::Config::default().streaming_lists(),
    ] {
        for lease_name in ["a", "b"] {
            leases
                .create(&PostParams::default(), &lease(lease_name, "1"))
                .await
                .unwrap();
        }
        let mut stream = watcher(leases.clone(), config).boxed();
        let (mut state, mut buffer, mut errors) = (BTreeMap::new(), None, 0);
        let mut expected = BTreeMap::from([
            ("a".to_owned(), "1".to_owned()),
            ("b".to_owned(), "1".to_owned()),
        ]);
        wait_for(&mut stream, &mut state, &mut buffer, &mut errors, &expected).await;

        leases
            .patch(
                "a",
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"holderIdentity": "2"}})),
            )
            .await
            .unwrap();
        expected.insert("a".into(), "2".into());
        wait_for(&mut stream, &mut state, &mut buffer, &mut errors, &expected).await;
        assert_eq!(errors, 0);

        // Compaction: the open watch ends with 410, the watcher lists again.
        server.compact();
        leases
            .create(&PostParams::default(), &lease("c", "1"))
            .await
            .unwrap();
        leases.delete("b", &DeleteParams::default()).await.unwrap();
        expected.insert("c".into(), "1".into());
        expected.remove("b");
        wait_for(&mut stream, &mut state, &mut buffer, &mut errors, &expected).await;
        assert!(errors >= 1, "the 410 reached the watcher as an error");

        // And it keeps watching after the relist.
        leases.delete("a", &DeleteParams::default()).await.unwrap();
        expected.remove("a");
        wait_for(&mut stream, &mut state, &mut buffer, &mut errors, &expected).await;
        drop(stream);
        leases
            .delete_collection(&DeleteParams::default(), &ListParams::default())
            .await
            .unwrap();
        assert_eq!(server.len(), started);
    }
}

/// A status patch as the kubelet sends it: `status.conditions` merge by `type`, and
/// `$setElementOrder/conditions` puts them in its order, the live-only ones kept among them
/// where the API server's strategic merge puts them (apimachinery's `normalizeElementOrder`).
#[tokio::test]
async fn strategic_merge_honours_set_element_order() {
    let server = model_server();
    let pods: Api<Pod> = Api::default_namespaced(Client::new(server.clone(), "default"));
    pods.create(&PostParams::default(), &pod("ordered", &[]))
        .await
        .unwrap();
    let condition = |kind: &str| json!({"type": kind, "status": "True"});
    pods.patch_status(
        "ordered",
        &PatchParams::default(),
        &Patch::Strategic(json!({"status": {"conditions": [
            condition("PodScheduled"),
            condition("Initialized"),
            condition("DisruptionTarget"),
            condition("Ready"),
        ]}})),
    )
    .await
    .unwrap();
    let patched = pods
        .patch_status(
            "ordered",
            &PatchParams::default(),
            &Patch::Strategic(json!({"status": {
                "$setElementOrder/conditions": [
                    {"type": "Initialized"},
                    {"type": "Ready"},
                    {"type": "ContainersReady"},
                    {"type": "PodScheduled"}
                ],
                "conditions": [condition("ContainersReady")]
            }})),
        )
        .await
        .unwrap();
    let kinds: Vec<String> = patched
        .status
        .unwrap()
        .conditions
        .unwrap()
        .into_iter()
        .map(|c| c.type_)
        .collect();
    // DisruptionTarget, which only the live list has, stays after Initialized, which
    // preceded it there, and before Ready, which followed it.
    assert_eq!(
        kinds,
        [
            "Initialized",
            "DisruptionTarget",
            "Ready",
            "ContainersReady",
            "PodScheduled"
        ]
    );
}
