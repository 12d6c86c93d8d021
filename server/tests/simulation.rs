//! The simulated cluster (`Options::simulation`) through kube-rs, in process, with the
//! catalog of Kubernetes 1.36's `swagger.json`: Nodes with their Leases renewed on the
//! server's clock, the scheduler (binding, or `PodScheduled=False` with its message), the
//! kubelet (Running and Ready, Jobs' Pods ending), Deployments rolling out through
//! ReplicaSets, Jobs completing and failing, EndpointSlices of ready Pods, a CronJob firing
//! when the test advances the clock; and the plain server, where nothing runs.

use std::time::Duration;

use k8s_openapi::api::apps::v1::{ControllerRevision, Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::authentication::v1::TokenReview;
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{
    Endpoints, Event, Node, PersistentVolumeClaim, Pod, Secret, Service, ServiceAccount,
};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use kube::api::{Api, DeleteParams, ListParams, LogParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::{await_condition, conditions};
use kube::{Client, Resource};
use kubeforge_server::{Catalog, Options, Server, SimulatedNode, Simulation};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn catalog(test: &str) -> Option<Catalog> {
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
    Some(Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap())
}

fn simulated(test: &str, simulation: Simulation) -> Option<(Server, Client)> {
    let options = Options {
        simulation: Some(simulation),
        ..Options::default()
    };
    let server = Server::with_options(catalog(test)?, options);
    let client = Client::new(server.clone(), "default");
    Some((server, client))
}

fn object<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).unwrap()
}

/// Waits (10 s at most) until `check` holds for the object.
async fn until<K>(api: &Api<K>, name: &str, what: &str, check: impl Fn(&K) -> bool)
where
    K: Resource + Clone + std::fmt::Debug + DeserializeOwned + Send + 'static,
{
    let wait = await_condition(api.clone(), name, move |o: Option<&K>| {
        o.is_some_and(&check)
    });
    match tokio::time::timeout(Duration::from_secs(10), wait).await {
        Ok(Ok(_)) => {}
        _ => panic!(
            "{name}: {what}: not after 10 s: {:#?}",
            api.get_opt(name).await
        ),
    }
}

fn pod(name: &str, spec: Value) -> Pod {
    object(json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": spec,
    }))
}

fn condition<'a>(pod: &'a Pod, kind: &str) -> Option<&'a k8s_openapi::api::core::v1::PodCondition> {
    pod.status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == kind)
}

#[tokio::test]
async fn nodes_run_scheduled_pods_and_refuse_what_does_not_fit() {
    let Some((server, client)) = simulated("simulation", Simulation::default()) else {
        return;
    };
    let nodes: Api<Node> = Api::all(client.clone());
    let list = nodes.list(&ListParams::default()).await.unwrap();
    let names: Vec<_> = list
        .items
        .iter()
        .map(|n| n.metadata.name.clone().unwrap())
        .collect();
    assert_eq!(
        names,
        ["kubeforge-control-plane", "node-1", "node-2", "node-3"]
    );
    for node in &list.items {
        let ready = node.status.as_ref().unwrap().conditions.as_ref().unwrap();
        assert!(
            ready
                .iter()
                .any(|c| c.type_ == "Ready" && c.status == "True")
        );
    }
    // The Lease is renewed as the clock moves.
    server.freeze();
    let leases: Api<Lease> = Api::namespaced(client.clone(), "kube-node-lease");
    let before = leases
        .get("node-1")
        .await
        .unwrap()
        .spec
        .unwrap()
        .renew_time
        .unwrap();
    server.advance(Duration::from_secs(15));
    let after = leases
        .get("node-1")
        .await
        .unwrap()
        .spec
        .unwrap()
        .renew_time
        .unwrap();
    // Renewed at the advanced clock: 15 s after the clock stopped, which is at most one
    // renewal period (10 s) after the last renewal.
    let gap = after.0.as_millisecond() - before.0.as_millisecond();
    assert!((15_000..25_000).contains(&gap), "{before:?} {after:?}");
    server.resume();

    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let spec = json!({
        "initContainers": [{"name": "init", "image": "busybox"}],
        "containers": [{"name": "web", "image": "nginx", "resources": {"requests": {"cpu": "500m"}}}],
    });
    pods.create(&PostParams::default(), &pod("web", spec))
        .await
        .unwrap();
    until(&pods, "web", "running", |p| {
        p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
    })
    .await;
    until(&pods, "web", "ready", |p| {
        condition(p, "Ready").is_some_and(|c| c.status == "True")
    })
    .await;
    let web = pods.get("web").await.unwrap();
    let status = web.status.clone().unwrap();
    assert!(status.pod_ip.as_deref().unwrap().starts_with("10.244."));
    assert!(status.host_ip.as_deref().unwrap().starts_with("172.18.0."));
    assert!(status.start_time.is_some());
    assert_eq!(
        status.init_container_statuses.unwrap()[0]
            .state
            .as_ref()
            .unwrap()
            .terminated
            .as_ref()
            .unwrap()
            .reason
            .as_deref(),
        Some("Completed")
    );
    assert!(status.container_statuses.unwrap()[0].ready);
    for kind in ["PodScheduled", "Initialized", "ContainersReady", "Ready"] {
        assert_eq!(
            condition(&web, kind).map(|c| c.status.as_str()),
            Some("True"),
            "{kind}"
        );
    }
    assert!(web.spec.unwrap().node_name.unwrap().starts_with("node-"));

    // Nothing fits: the scheduler's reasons, node by node.
    let spec = json!({
        "nodeSelector": {"disk": "ssd"},
        "containers": [{"name": "c", "image": "nginx"}],
    });
    pods.create(&PostParams::default(), &pod("picky", spec))
        .await
        .unwrap();
    until(&pods, "picky", "unschedulable", |p| {
        condition(p, "PodScheduled").is_some_and(|c| c.status == "False")
    })
    .await;
    let picky = pods.get("picky").await.unwrap();
    let scheduled = condition(&picky, "PodScheduled").unwrap();
    assert_eq!(scheduled.reason.as_deref(), Some("Unschedulable"));
    assert_eq!(
        scheduled.message.as_deref(),
        Some(
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
        )
    );
    let spec = json!({"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "5"}}}]});
    pods.create(&PostParams::default(), &pod("big", spec))
        .await
        .unwrap();
    until(&pods, "big", "unschedulable", |p| {
        condition(p, "PodScheduled").is_some_and(|c| c.status == "False")
    })
    .await;
    let big = pods.get("big").await.unwrap();
    assert_eq!(
        condition(&big, "PodScheduled").unwrap().message.as_deref(),
        Some(
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod."
        )
    );
    // A node labelled to fit: the picky Pod is placed once it exists.
    nodes
        .patch(
            "node-2",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"disk": "ssd"}}})),
        )
        .await
        .unwrap();
    until(&pods, "picky", "running on node-2", |p| {
        p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some("node-2")
            && p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
    })
    .await;

    // A running Pod's delete is graceful: it stays, marked, until its kubelet stops it.
    let deleted = pods.delete("web", &DeleteParams::default()).await.unwrap();
    let marked = deleted.left().expect("the Pod, marked");
    assert_eq!(marked.metadata.deletion_grace_period_seconds, Some(30));
    let uid = marked.metadata.uid.clone().unwrap();
    let at = marked.metadata.deletion_timestamp.unwrap().0;
    let created = marked.metadata.creation_timestamp.unwrap().0;
    assert!(at.as_second() - created.as_second() >= 30, "{at} {created}");
    let gone = await_condition(pods.clone(), "web", conditions::is_deleted(&uid));
    tokio::time::timeout(Duration::from_secs(10), gone)
        .await
        .unwrap()
        .unwrap();
    // An unscheduled one goes at once.
    let deleted = pods.delete("big", &DeleteParams::default()).await.unwrap();
    assert!(
        deleted
            .left()
            .unwrap()
            .metadata
            .deletion_grace_period_seconds
            == Some(0)
    );
    assert!(pods.get_opt("big").await.unwrap().is_none());
}

fn deployment(name: &str, replicas: i32, image: &str) -> Deployment {
    object(json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": image, "ports": [{"name": "http", "containerPort": 8080}]}]},
            },
        },
    }))
}

fn value<T: serde::Serialize>(object: &T) -> Value {
    serde_json::to_value(object).unwrap()
}

/// The condition of `kind` in the object's `status.conditions`, as JSON.
fn condition_of(object: &Value, kind: &str) -> Value {
    object
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|list| list.iter().find(|c| c["type"] == kind))
        .cloned()
        .unwrap_or(Value::Null)
}

fn available(d: &Deployment, replicas: i32) -> bool {
    let d = value(d);
    let status = &d["status"];
    status["observedGeneration"] == d["metadata"]["generation"]
        && status["updatedReplicas"] == replicas
        && status["replicas"] == replicas
        && status["availableReplicas"] == replicas
        && condition_of(&d, "Available")["status"] == "True"
}

#[tokio::test]
async fn deployments_roll_out_and_services_get_their_endpoints() {
    let Some((_server, client)) = simulated("simulation", Simulation::default()) else {
        return;
    };
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    deployments
        .create(&PostParams::default(), &deployment("web", 3, "nginx:1"))
        .await
        .unwrap();
    until(&deployments, "web", "available", |d| available(d, 3)).await;
    let web = deployments.get("web").await.unwrap();
    assert_eq!(
        condition_of(&value(&web), "Progressing")["reason"],
        "NewReplicaSetAvailable"
    );

    let services: Api<Service> = Api::namespaced(client.clone(), "default");
    let service: Service = object(json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
    }));
    services
        .create(&PostParams::default(), &service)
        .await
        .unwrap();
    let slices: Api<EndpointSlice> = Api::namespaced(client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let mut slice = Value::Null;
    for _ in 0..100 {
        let list = slices
            .list(&ListParams::default().labels("kubernetes.io/service-name=web"))
            .await
            .unwrap();
        slice = list.items.first().map(value).unwrap_or(Value::Null);
        if slice["endpoints"].as_array().is_some_and(|e| e.len() == 3) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(slice["ports"][0]["port"], 8080, "{slice:#}");
    let endpoints = slice["endpoints"].as_array().unwrap();
    let mut addresses: Vec<String> = endpoints
        .iter()
        .map(|e| e["addresses"][0].as_str().unwrap().to_owned())
        .collect();
    let mut ips: Vec<String> = pods
        .list(&ListParams::default().labels("app=web"))
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|p| p.status?.pod_ip)
        .collect();
    addresses.sort();
    ips.sort();
    assert_eq!(addresses, ips);
    assert!(endpoints.iter().all(|e| e["conditions"]["ready"] == true));

    // A new image: a new ReplicaSet takes over, the old one goes to 0.
    deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Strategic(json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:2"}]}}}})),
        )
        .await
        .unwrap();
    until(&deployments, "web", "rolled out", |d| {
        available(d, 3)
            && d.metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get("deployment.kubernetes.io/revision"))
                .map(String::as_str)
                == Some("2")
    })
    .await;
    let sets: Api<ReplicaSet> = Api::namespaced(client.clone(), "default");
    let mut replicas: Vec<(String, i64)> = sets
        .list(&ListParams::default().labels("app=web"))
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|rs| {
            let rs = value(&rs);
            let image = rs["spec"]["template"]["spec"]["containers"][0]["image"]
                .as_str()
                .unwrap()
                .to_owned();
            (image, rs["spec"]["replicas"].as_i64().unwrap())
        })
        .collect();
    replicas.sort();
    assert_eq!(
        replicas,
        [("nginx:1".to_owned(), 0), ("nginx:2".to_owned(), 3)]
    );
    let running: Vec<String> = pods
        .list(&ListParams::default().labels("app=web"))
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|p| p.spec.unwrap().containers[0].image.clone().unwrap())
        .collect();
    assert_eq!(running, ["nginx:2", "nginx:2", "nginx:2"]);
}

fn job(name: &str, completions: i32, annotations: Value) -> Job {
    object(json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            "completions": completions,
            "backoffLimit": 1,
            "template": {
                "metadata": {"annotations": annotations},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl"}]},
            },
        },
    }))
}

fn job_condition(job: &Job, kind: &str) -> bool {
    job.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == kind && c.status == "True"))
}

#[tokio::test]
async fn jobs_complete_or_fail_and_cron_jobs_fire_on_the_servers_clock() {
    let simulation = Simulation {
        run_for: Duration::from_secs(30),
        ..Simulation::with_nodes(1)
    };
    let Some((server, client)) = simulated("simulation", simulation) else {
        return;
    };
    server.freeze();
    let jobs: Api<Job> = Api::namespaced(client.clone(), "default");
    jobs.create(&PostParams::default(), &job("pi", 2, json!({})))
        .await
        .unwrap();
    until(&jobs, "pi", "one active", |j| {
        j.status.as_ref().and_then(|s| s.active) == Some(1)
    })
    .await;
    // Its Pods run for 30 s of the server's clock: nothing ends until the test says so.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!job_condition(&jobs.get("pi").await.unwrap(), "Complete"));
    for _ in 0..4 {
        server.advance(Duration::from_secs(31));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    until(&jobs, "pi", "complete", |j| job_condition(j, "Complete")).await;
    let done = jobs.get("pi").await.unwrap().status.unwrap();
    assert_eq!((done.succeeded, done.active), (Some(2), None));
    assert!(done.completion_time.is_some() && done.start_time.is_some());

    jobs.create(
        &PostParams::default(),
        &job(
            "crash",
            1,
            json!({"simulation.kubeforge.dev/exit-code": "1"}),
        ),
    )
    .await
    .unwrap();
    for _ in 0..6 {
        server.advance(Duration::from_secs(31));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    until(&jobs, "crash", "failed", |j| job_condition(j, "Failed")).await;
    let crash = jobs.get("crash").await.unwrap().status.unwrap();
    assert_eq!(crash.failed, Some(2));
    let failed = crash
        .conditions
        .unwrap()
        .into_iter()
        .find(|c| c.type_ == "Failed")
        .unwrap();
    assert_eq!(failed.reason.as_deref(), Some("BackoffLimitExceeded"));

    let cron_jobs: Api<CronJob> = Api::namespaced(client.clone(), "default");
    let cron: CronJob = object(json!({
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "hourly"},
        "spec": {
            "schedule": "@hourly",
            "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}}},
        },
    }));
    cron_jobs
        .create(&PostParams::default(), &cron)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let owned = |jobs: Vec<Job>| {
        jobs.into_iter()
            .filter(|j| {
                j.metadata
                    .name
                    .as_deref()
                    .unwrap_or("")
                    .starts_with("hourly-")
            })
            .count()
    };
    assert_eq!(
        owned(jobs.list(&ListParams::default()).await.unwrap().items),
        0
    );
    server.advance(Duration::from_secs(3600));
    let fired = jobs.list(&ListParams::default()).await.unwrap().items;
    assert_eq!(owned(fired), 1);
    until(&cron_jobs, "hourly", "scheduled", |c| {
        c.status
            .as_ref()
            .and_then(|s| s.last_schedule_time.as_ref())
            .is_some()
    })
    .await;
}

#[tokio::test]
async fn the_plain_server_runs_nothing() {
    let Some(catalog) = catalog("simulation") else {
        return;
    };
    let server = Server::new(catalog);
    let client = Client::new(server.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    pods.create(
        &PostParams::default(),
        &pod(
            "idle",
            json!({"containers": [{"name": "c", "image": "nginx"}]}),
        ),
    )
    .await
    .unwrap();
    let before = server.len();
    server.advance(Duration::from_secs(3600));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let idle = pods.get("idle").await.unwrap();
    assert_eq!(idle.spec.unwrap().node_name, None);
    assert_eq!(idle.status.unwrap().phase.as_deref(), Some("Pending"));
    assert!(
        Api::<Node>::all(client)
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
    assert_eq!(server.len(), before);
    let _ = conditions::is_pod_running();
}

#[tokio::test]
async fn taints_keep_out_the_pods_that_do_not_tolerate_them() {
    let mut gpu = SimulatedNode::named("gpu");
    gpu.taints = vec![json!({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"})];
    gpu.labels.insert("accelerator".into(), "yes".into());
    let simulation = Simulation {
        nodes: vec![gpu],
        ..Simulation::default()
    };
    let Some((_server, client)) = simulated("simulation", simulation) else {
        return;
    };
    let pods: Api<Pod> = Api::namespaced(client, "default");
    let container = json!([{"name": "c", "image": "cuda"}]);
    pods.create(
        &PostParams::default(),
        &pod("plain", json!({"containers": container})),
    )
    .await
    .unwrap();
    until(&pods, "plain", "unschedulable", |p| {
        condition(p, "PodScheduled").is_some_and(|c| c.status == "False")
    })
    .await;
    let plain = pods.get("plain").await.unwrap();
    assert_eq!(
        condition(&plain, "PodScheduled")
            .unwrap()
            .message
            .as_deref(),
        Some(
            "0/1 nodes are available: 1 node(s) had untolerated taint(s). preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
        )
    );
    let spec = json!({
        "containers": container,
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}],
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "accelerator", "operator": "In", "values": ["yes"]}]}],
        }}},
    });
    pods.create(&PostParams::default(), &pod("tolerant", spec))
        .await
        .unwrap();
    until(&pods, "tolerant", "running on gpu", |p| {
        p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some("gpu")
            && p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
    })
    .await;
}

fn stateful_set(name: &str, replicas: i32, policy: &str, image: &str) -> StatefulSet {
    object(json!({
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "serviceName": name,
            "podManagementPolicy": policy,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "db", "image": image}]},
            },
            "volumeClaimTemplates": [{
                "metadata": {"name": "data"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
            }],
        },
    }))
}

/// The Pods of `app`, by name, with their `controller-revision-hash` and readiness.
async fn members(pods: &Api<Pod>, app: &str) -> Vec<(String, String, bool)> {
    let list = pods
        .list(&ListParams::default().labels(&format!("app={app}")))
        .await
        .unwrap();
    let mut members: Vec<_> = list
        .items
        .iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .map(|p| {
            let labels = p.metadata.labels.clone().unwrap_or_default();
            (
                p.metadata.name.clone().unwrap(),
                labels
                    .get("controller-revision-hash")
                    .cloned()
                    .unwrap_or_default(),
                condition(p, "Ready").is_some_and(|c| c.status == "True"),
            )
        })
        .collect();
    members.sort();
    members
}

/// Waits (10 s at most) until the Pods of `app` are as `check` wants them.
async fn until_members(
    pods: &Api<Pod>,
    app: &str,
    what: &str,
    check: impl Fn(&[(String, String, bool)]) -> bool,
) {
    for _ in 0..1000 {
        if check(&members(pods, app).await) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!(
        "{app}: {what}: not after 10 s: {:?}",
        members(pods, app).await
    );
}

/// Waits (10 s at most) until `count` Pods of `app` run (so that advancing the clock makes
/// them ready).
async fn until_running(pods: &Api<Pod>, app: &str, count: usize) {
    for _ in 0..1000 {
        let list = pods
            .list(&ListParams::default().labels(&format!("app={app}")))
            .await
            .unwrap();
        let running = list
            .items
            .iter()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .filter(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"))
            .count();
        if running == count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!(
        "{app}: {count} running: not after 10 s: {:?}",
        members(pods, app).await
    );
}

#[tokio::test]
async fn stateful_sets_make_their_pods_in_order_and_update_them_in_reverse() {
    let simulation = Simulation {
        ready_after: Duration::from_secs(10),
        ..Simulation::default()
    };
    let Some((server, client)) = simulated("simulation", simulation) else {
        return;
    };
    server.freeze();
    let sets: Api<StatefulSet> = Api::namespaced(client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    sets.create(
        &PostParams::default(),
        &stateful_set("db", 3, "OrderedReady", "postgres:17"),
    )
    .await
    .unwrap();

    // OrderedReady: the next Pod once the previous one is Running and Ready.
    until_members(&pods, "db", "db-0", |m| m.len() == 1 && m[0].0 == "db-0").await;
    until_running(&pods, "db", 1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        members(&pods, "db").await.len(),
        1,
        "db-1 before db-0 is ready"
    );
    server.advance(Duration::from_secs(10));
    until_members(&pods, "db", "db-1", |m| m.len() == 2 && m[0].2 && !m[1].2).await;
    until_running(&pods, "db", 2).await;
    server.advance(Duration::from_secs(10));
    until_members(&pods, "db", "db-2", |m| m.len() == 3).await;
    until_running(&pods, "db", 3).await;
    server.advance(Duration::from_secs(10));
    until(&sets, "db", "ready", |s| {
        s.status
            .as_ref()
            .is_some_and(|s| s.ready_replicas == Some(3))
    })
    .await;
    let db = value(&sets.get("db").await.unwrap());
    let revision = db["status"]["updateRevision"].as_str().unwrap().to_owned();
    assert!(revision.starts_with("db-"), "{db:#}");
    assert_eq!(
        db["status"],
        json!({
            "observedGeneration": 1,
            "replicas": 3,
            "readyReplicas": 3,
            "availableReplicas": 3,
            "currentReplicas": 3,
            "updatedReplicas": 3,
            "currentRevision": revision,
            "updateRevision": revision,
            "collisionCount": 0,
        })
    );
    let db_1 = value(&pods.get("db-1").await.unwrap());
    assert_eq!(
        db_1["metadata"]["labels"],
        json!({
            "app": "db",
            "apps.kubernetes.io/pod-index": "1",
            "controller-revision-hash": revision,
            "statefulset.kubernetes.io/pod-name": "db-1",
        })
    );
    assert_eq!(db_1["spec"]["hostname"], "db-1");
    assert_eq!(db_1["spec"]["subdomain"], "db");
    assert_eq!(
        db_1["spec"]["volumes"][0],
        json!({"name": "data", "persistentVolumeClaim": {"claimName": "data-db-1"}})
    );
    let claims: Api<PersistentVolumeClaim> = Api::namespaced(client.clone(), "default");
    let claim = value(&claims.get("data-db-2").await.unwrap());
    assert_eq!(claim["metadata"]["labels"], json!({"app": "db"}));
    let revisions: Api<ControllerRevision> = Api::namespaced(client.clone(), "default");
    let first = value(&revisions.get(&revision).await.unwrap());
    assert_eq!(first["revision"], 1);
    assert_eq!(
        first["data"]["spec"]["template"]["spec"]["containers"][0]["image"],
        "postgres:17"
    );

    // RollingUpdate: from the highest ordinal down, each once the ones above are ready.
    let image = json!({"spec": {"template": {"spec": {"containers": [{"name": "db", "image": "postgres:18"}]}}}});
    sets.patch("db", &PatchParams::default(), &Patch::Strategic(image))
        .await
        .unwrap();
    until(&sets, "db", "a new revision", |s| {
        s.status
            .as_ref()
            .and_then(|s| s.update_revision.as_deref())
            .is_some_and(|r| r != revision)
    })
    .await;
    until_members(&pods, "db", "db-2 updated", |m| {
        m.len() == 3 && m[2].1 != revision
    })
    .await;
    until_running(&pods, "db", 3).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let now = members(&pods, "db").await;
    assert_eq!(
        (
            now[0].1 == revision,
            now[1].1 == revision,
            now[2].1 == revision
        ),
        (true, true, false),
        "{now:?}"
    );
    for ordinal in [1, 0] {
        server.advance(Duration::from_secs(10));
        until_members(&pods, "db", "the next one updated", |m| {
            m.len() == 3 && m[ordinal].1 != revision
        })
        .await;
        until_running(&pods, "db", 3).await;
    }
    server.advance(Duration::from_secs(10));
    until(&sets, "db", "updated", |s| {
        let s = s.status.as_ref().unwrap();
        s.current_revision == s.update_revision && s.updated_replicas == Some(3)
    })
    .await;
    let updated = sets.get("db").await.unwrap().status.unwrap();
    let second = value(
        &revisions
            .get(updated.update_revision.as_deref().unwrap())
            .await
            .unwrap(),
    );
    assert_eq!(second["revision"], 2);
    assert_eq!(
        pods.get("db-0").await.unwrap().spec.unwrap().containers[0]
            .image
            .as_deref(),
        Some("postgres:18")
    );

    // Scaling down: the highest ordinal first, one at a time. Read from a watch, which
    // sees every step however fast the simulation takes them (sampling the list could miss
    // one on a loaded machine).
    use futures::{StreamExt, TryStreamExt};
    use kube::api::{WatchEvent, WatchParams};
    let version = pods
        .list(&ListParams::default().labels("app=db"))
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let mut events = pods
        .watch(&WatchParams::default().labels("app=db"), &version)
        .await
        .unwrap()
        .boxed();
    server.resume();
    sets.patch(
        "db",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"replicas": 1}})),
    )
    .await
    .unwrap();
    // Each step: which Pod began to go (its deletionTimestamp set) or went, in order.
    let mut steps: Vec<(&str, String)> = Vec::new();
    while steps.iter().filter(|s| s.0 == "gone").count() < 2 {
        let event = tokio::time::timeout(Duration::from_secs(10), events.try_next())
            .await
            .expect("an event within 10 s")
            .unwrap()
            .expect("the watch goes on");
        let (step, pod) = match event {
            WatchEvent::Modified(pod) if pod.metadata.deletion_timestamp.is_some() => {
                ("going", pod)
            }
            WatchEvent::Deleted(pod) => ("gone", pod),
            _ => continue,
        };
        let step = (step, pod.metadata.name.unwrap());
        if !steps.contains(&step) {
            steps.push(step);
        }
    }
    let step = |what: &'static str, name: &str| (what, name.to_owned());
    assert_eq!(
        steps,
        [
            step("going", "db-2"),
            step("gone", "db-2"),
            step("going", "db-1"),
            step("gone", "db-1"),
        ],
    );
    assert_eq!(
        members(&pods, "db")
            .await
            .into_iter()
            .map(|m| m.0)
            .collect::<Vec<_>>(),
        ["db-0"]
    );
    // The claims stay (`whenScaled: Retain`).
    assert!(claims.get_opt("data-db-2").await.unwrap().is_some());
}

#[tokio::test]
async fn parallel_stateful_sets_make_their_pods_at_once() {
    let simulation = Simulation {
        ready_after: Duration::from_secs(10),
        ..Simulation::default()
    };
    let Some((server, client)) = simulated("simulation", simulation) else {
        return;
    };
    server.freeze();
    let sets: Api<StatefulSet> = Api::namespaced(client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    sets.create(
        &PostParams::default(),
        &stateful_set("cache", 3, "Parallel", "redis"),
    )
    .await
    .unwrap();
    until_members(&pods, "cache", "three Pods, none ready", |m| {
        m.len() == 3 && m.iter().all(|p| !p.2)
    })
    .await;
    until_running(&pods, "cache", 3).await;
    server.advance(Duration::from_secs(10));
    until(&sets, "cache", "ready", |s| {
        s.status
            .as_ref()
            .is_some_and(|s| s.ready_replicas == Some(3))
    })
    .await;
}

/// A TokenReview of `token`: whether it authenticated, its username, its error.
async fn review(client: &Client, token: &str) -> (bool, String, String) {
    let reviews: Api<TokenReview> = Api::all(client.clone());
    let review: TokenReview = object(json!({
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenReview",
        "spec": {"token": token},
    }));
    let status = reviews
        .create(&PostParams::default(), &review)
        .await
        .unwrap()
        .status
        .unwrap();
    (
        status.authenticated == Some(true),
        status.user.and_then(|u| u.username).unwrap_or_default(),
        status.error.unwrap_or_default(),
    )
}

#[tokio::test]
async fn service_account_token_secrets_get_a_token_the_server_accepts() {
    let Some((_server, client)) = simulated("simulation", Simulation::default()) else {
        return;
    };
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), "default");
    let builder = accounts
        .create(
            &PostParams::default(),
            &object(json!({"metadata": {"name": "builder"}})),
        )
        .await
        .unwrap();
    let secrets: Api<Secret> = Api::namespaced(client.clone(), "default");
    let token_secret = |name: &str, account: &str| -> Secret {
        object(json!({
            "metadata": {"name": name, "annotations": {"kubernetes.io/service-account.name": account}},
            "type": "kubernetes.io/service-account-token",
        }))
    };
    secrets
        .create(
            &PostParams::default(),
            &token_secret("builder-token", "builder"),
        )
        .await
        .unwrap();
    until(&secrets, "builder-token", "a token", |s| {
        s.data.as_ref().is_some_and(|d| d.contains_key("token"))
    })
    .await;
    let secret = secrets.get("builder-token").await.unwrap();
    let data = secret.data.clone().unwrap();
    let mut keys: Vec<_> = data.keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, ["ca.crt", "namespace", "token"]);
    assert_eq!(data["namespace"].0, b"default");
    assert!(
        String::from_utf8_lossy(&data["ca.crt"].0).starts_with("-----BEGIN CERTIFICATE-----"),
        "{:?}",
        data["ca.crt"]
    );
    assert_eq!(
        secret.metadata.annotations.unwrap()["kubernetes.io/service-account.uid"],
        builder.metadata.uid.clone().unwrap()
    );
    let token = String::from_utf8(data["token"].0.clone()).unwrap();
    assert_eq!(
        review(&client, &token).await,
        (
            true,
            "system:serviceaccount:default:builder".to_owned(),
            String::new()
        )
    );
    // The token is good while the Secret holds it.
    secrets
        .delete("builder-token", &DeleteParams::default())
        .await
        .unwrap();
    assert_eq!(
        review(&client, &token).await,
        (
            false,
            String::new(),
            "Token has been invalidated".to_owned()
        )
    );

    // A Secret for a ServiceAccount that is not there is deleted.
    secrets
        .create(
            &PostParams::default(),
            &token_secret("ghost-token", "ghost"),
        )
        .await
        .unwrap();
    for _ in 0..200 {
        if secrets.get_opt("ghost-token").await.unwrap().is_none() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("ghost-token: not deleted after 2 s");
}

#[tokio::test]
async fn services_get_endpoints_of_their_ready_and_not_ready_pods() {
    let simulation = Simulation {
        ready_after: Duration::from_secs(10),
        ..Simulation::default()
    };
    let Some((server, client)) = simulated("simulation", simulation) else {
        return;
    };
    server.freeze();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    deployments
        .create(&PostParams::default(), &deployment("web", 2, "nginx:1"))
        .await
        .unwrap();
    let services: Api<Service> = Api::namespaced(client.clone(), "default");
    let service: Service = object(json!({
        "metadata": {"name": "web", "labels": {"tier": "front"}},
        "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
    }));
    services
        .create(&PostParams::default(), &service)
        .await
        .unwrap();
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let all: Api<Endpoints> = Api::namespaced(client.clone(), "default");
    let subsets = |e: &Endpoints| value(e)["subsets"].clone();
    until(&all, "web", "two not ready", |e| {
        subsets(e)[0]["notReadyAddresses"]
            .as_array()
            .is_some_and(|a| a.len() == 2)
    })
    .await;
    let mut ips: Vec<(String, String)> = pods
        .list(&ListParams::default().labels("app=web"))
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|p| (p.status.unwrap().pod_ip.unwrap(), p.metadata.name.unwrap()))
        .collect();
    ips.sort();
    let web = value(&all.get("web").await.unwrap());
    assert_eq!(
        web["metadata"]["labels"],
        json!({"tier": "front", "endpoints.kubernetes.io/managed-by": "endpoint-controller"})
    );
    let trigger =
        web["metadata"]["annotations"]["endpoints.kubernetes.io/last-change-trigger-time"]
            .as_str()
            .unwrap()
            .to_owned();
    assert!(web["metadata"].get("ownerReferences").is_none());
    assert_eq!(
        web["subsets"][0]["ports"],
        json!([{"name": "http", "port": 8080, "protocol": "TCP"}])
    );
    let listed: Vec<(String, String)> = web["subsets"][0]["notReadyAddresses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["ip"].as_str().unwrap().to_owned(),
                a["targetRef"]["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(listed, ips);
    // Nothing changes, nothing is written.
    let version = web["metadata"]["resourceVersion"].clone();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        value(&all.get("web").await.unwrap())["metadata"]["resourceVersion"],
        version
    );

    // Ready, they move to `addresses`, and the trigger time is the time they became so.
    server.advance(Duration::from_secs(10));
    until(&all, "web", "two ready", |e| {
        subsets(e)[0]["addresses"]
            .as_array()
            .is_some_and(|a| a.len() == 2)
            && subsets(e)[0].get("notReadyAddresses").is_none()
    })
    .await;
    let web = value(&all.get("web").await.unwrap());
    let later = web["metadata"]["annotations"]["endpoints.kubernetes.io/last-change-trigger-time"]
        .as_str()
        .unwrap();
    let seconds = |t: &str| t.parse::<jiff::Timestamp>().unwrap().as_second();
    assert_eq!(seconds(later) - seconds(&trigger), 10, "{trigger} {later}");

    // The Service gone, its Endpoints go.
    services
        .delete("web", &DeleteParams::default())
        .await
        .unwrap();
    for _ in 0..200 {
        if all.get_opt("web").await.unwrap().is_none() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("web: Endpoints not deleted after 2 s");
}

/// The Events of the object named `name`, as `(reason, source or reporting component,
/// message)`, oldest first.
async fn events_of(client: &Client, name: &str) -> Vec<(String, String, String)> {
    let events: Api<Event> = Api::namespaced(client.clone(), "default");
    let list = events.list(&ListParams::default()).await.unwrap();
    list.items
        .into_iter()
        .filter(|e| e.involved_object.name.as_deref() == Some(name))
        .map(|e| {
            let from = e
                .source
                .and_then(|s| s.component)
                .or(e.reporting_component)
                .unwrap_or_default();
            (
                e.reason.unwrap_or_default(),
                from,
                e.message.unwrap_or_default(),
            )
        })
        .collect()
}

/// Waits (10 s at most) until the object named `name` has an Event with `reason`.
async fn until_event(client: &Client, name: &str, reason: &str) -> Vec<(String, String, String)> {
    for _ in 0..500 {
        let events = events_of(client, name).await;
        if events.iter().any(|e| e.0 == reason) {
            return events;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "{name}: no {reason} Event after 10 s: {:?}",
        events_of(client, name).await
    );
}

#[tokio::test]
async fn the_simulated_components_record_events() {
    let Some((_server, client)) = simulated("simulation", Simulation::default()) else {
        return;
    };
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    deployments
        .create(&PostParams::default(), &deployment("web", 2, "nginx:1"))
        .await
        .unwrap();
    until(&deployments, "web", "available", |d| available(d, 2)).await;
    let sets: Api<ReplicaSet> = Api::namespaced(client.clone(), "default");
    let set = sets
        .list(&ListParams::default().labels("app=web"))
        .await
        .unwrap()
        .items
        .remove(0)
        .metadata
        .name
        .unwrap();
    let scaled = until_event(&client, "web", "ScalingReplicaSet").await;
    assert_eq!(
        scaled,
        [(
            "ScalingReplicaSet".to_owned(),
            "deployment-controller".to_owned(),
            format!("Scaled up replica set {set} from 0 to 2")
        )]
    );
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let first = pods
        .list(&ListParams::default().labels("app=web"))
        .await
        .unwrap()
        .items
        .remove(0);
    let pod_name = first.metadata.name.clone().unwrap();
    let node = first.spec.unwrap().node_name.unwrap();
    let created = until_event(&client, &set, "SuccessfulCreate").await;
    assert!(
        created.contains(&(
            "SuccessfulCreate".to_owned(),
            "replicaset-controller".to_owned(),
            format!("Created pod: {pod_name}")
        )),
        "{created:?}"
    );
    let _ = until_event(&client, &pod_name, "Started").await;
    let mut told = events_of(&client, &pod_name).await;
    told.sort();
    assert_eq!(
        told,
        [
            (
                "Created".to_owned(),
                "kubelet".to_owned(),
                "Created container: web".to_owned()
            ),
            (
                "Pulled".to_owned(),
                "kubelet".to_owned(),
                "Container image \"nginx:1\" already present on machine".to_owned()
            ),
            (
                "Scheduled".to_owned(),
                "default-scheduler".to_owned(),
                format!("Successfully assigned default/{pod_name} to {node}")
            ),
            (
                "Started".to_owned(),
                "kubelet".to_owned(),
                "Started container web".to_owned()
            ),
        ]
    );
    let events: Api<Event> = Api::namespaced(client.clone(), "default");
    let started = events
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .find(|e| {
            e.involved_object.name.as_deref() == Some(&pod_name)
                && e.reason.as_deref() == Some("Started")
        })
        .unwrap();
    let started = value(&started);
    assert_eq!(
        started["involvedObject"]["fieldPath"],
        "spec.containers{web}"
    );
    assert_eq!(
        started["source"],
        json!({"component": "kubelet", "host": node})
    );
    assert_eq!(started["count"], 1);
    assert_eq!(started["type"], "Normal");

    // Scaled down: the Deployment scales its ReplicaSet, which deletes a Pod.
    deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 1}})),
        )
        .await
        .unwrap();
    let deleted = until_event(&client, &set, "SuccessfulDelete").await;
    assert!(
        deleted
            .iter()
            .any(|e| e.1 == "replicaset-controller" && e.2.starts_with("Deleted pod: web-")),
        "{deleted:?}"
    );
    let scaled = events_of(&client, "web").await;
    assert!(
        scaled.contains(&(
            "ScalingReplicaSet".to_owned(),
            "deployment-controller".to_owned(),
            format!("Scaled down replica set {set} from 2 to 1")
        )),
        "{scaled:?}"
    );

    // A Pod that fits nowhere, a Job that completes, a StatefulSet's Pod.
    let spec =
        json!({"containers": [{"name": "c", "image": "nginx"}], "nodeSelector": {"disk": "ssd"}});
    pods.create(&PostParams::default(), &pod("picky", spec))
        .await
        .unwrap();
    let failed = until_event(&client, "picky", "FailedScheduling").await;
    assert_eq!(failed[0].1, "default-scheduler");
    assert!(
        failed[0].2.starts_with(
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 node(s) didn't match Pod's node affinity/selector."
        ),
        "{failed:?}"
    );
    let jobs: Api<Job> = Api::namespaced(client.clone(), "default");
    jobs.create(&PostParams::default(), &job("pi", 1, json!({})))
        .await
        .unwrap();
    let completed = until_event(&client, "pi", "Completed").await;
    assert!(
        completed.contains(&(
            "Completed".to_owned(),
            "job-controller".to_owned(),
            "Job completed".to_owned()
        )),
        "{completed:?}"
    );
    let sets: Api<StatefulSet> = Api::namespaced(client.clone(), "default");
    sets.create(
        &PostParams::default(),
        &stateful_set("db", 1, "OrderedReady", "postgres"),
    )
    .await
    .unwrap();
    let made = until_event(&client, "db", "SuccessfulCreate").await;
    assert!(
        made.contains(&(
            "SuccessfulCreate".to_owned(),
            "statefulset-controller".to_owned(),
            "create Pod db-0 in StatefulSet db successful".to_owned()
        )),
        "{made:?}"
    );
}

#[tokio::test]
async fn containers_print_what_the_simulation_was_told() {
    let mut simulation = Simulation::default();
    simulation
        .logs
        .insert("busybox".into(), "one\ntwo\nthree\n".into());
    let Some((_server, client)) = simulated("simulation", simulation) else {
        return;
    };
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let spec = json!({"containers": [
        {"name": "box", "image": "busybox:1.36"},
        {"name": "web", "image": "nginx"},
        {"name": "told", "image": "nginx"},
    ]});
    let mut talker = pod("talker", spec);
    talker.metadata.annotations = Some(
        [(
            "simulation.kubeforge.dev/logs.told".to_owned(),
            "from the annotation\n".to_owned(),
        )]
        .into(),
    );
    pods.create(&PostParams::default(), &talker).await.unwrap();
    until(&pods, "talker", "running", |p| {
        p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
    })
    .await;
    let logs = |container: &str| LogParams {
        container: Some(container.to_owned()),
        ..LogParams::default()
    };
    assert_eq!(
        pods.logs("talker", &logs("box")).await.unwrap(),
        "one\ntwo\nthree\n"
    );
    assert_eq!(
        pods.logs("talker", &logs("told")).await.unwrap(),
        "from the annotation\n"
    );
    let tail = LogParams {
        tail_lines: Some(2),
        timestamps: true,
        ..logs("box")
    };
    let started = pods
        .get("talker")
        .await
        .unwrap()
        .status
        .unwrap()
        .container_statuses
        .unwrap()[0]
        .state
        .clone()
        .unwrap()
        .running
        .unwrap()
        .started_at
        .unwrap();
    let stamp = started
        .0
        .strftime("%Y-%m-%dT%H:%M:%S.000000000Z")
        .to_string();
    assert_eq!(
        pods.logs("talker", &tail).await.unwrap(),
        format!("{stamp} two\n{stamp} three\n")
    );
    let previous = LogParams {
        previous: true,
        ..logs("box")
    };
    let refused = pods.logs("talker", &previous).await.unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("previous terminated container \"box\" in pod \"talker\" not found"),
        "{refused}"
    );
    // What nothing was said of gets the refusal a plain server gives, at once.
    let unscripted = pods.logs("talker", &logs("web")).await.unwrap_err();
    assert!(
        unscripted
            .to_string()
            .contains("connect: connection refused"),
        "{unscripted}"
    );
}

/// A deleted Pod as a kubelet ends it: it runs on with its `deletionTimestamp` while its
/// containers stop (`stop_after` of the server's clock here), then its status says they
/// stopped (terminated with exit code 0, `Ready=False`, `Succeeded`), and only then is it
/// removed, which a watch sees in that order; a container still running when the grace
/// period ends is killed (137, `Failed`).
#[tokio::test]
async fn a_deleted_pod_stops_its_containers_before_it_goes() {
    use futures::{StreamExt, TryStreamExt};
    use kube::api::{WatchEvent, WatchParams};
    let simulation = Simulation {
        stop_after: Duration::from_secs(20),
        ..Simulation::with_nodes(1)
    };
    let Some((server, client)) = simulated("simulation", simulation) else {
        return;
    };
    server.freeze();
    let pods: Api<Pod> = Api::default_namespaced(client);
    let spec = json!({"containers": [{"name": "c", "image": "nginx"}]});
    for name in ["calm", "stubborn"] {
        pods.create(&PostParams::default(), &pod(name, spec.clone()))
            .await
            .unwrap();
        until(&pods, name, "ready", |p| {
            condition(p, "Ready").is_some_and(|c| c.status == "True")
        })
        .await;
    }
    let watch = |name: &'static str| {
        let pods = pods.clone();
        let params = WatchParams::default().fields(&format!("metadata.name={name}"));
        async move {
            let version = pods
                .get(name)
                .await
                .unwrap()
                .metadata
                .resource_version
                .unwrap();
            pods.watch(&params, &version).await.unwrap().boxed()
        }
    };
    let mut calm = watch("calm").await;
    let mut stubborn = watch("stubborn").await;
    pods.delete("calm", &DeleteParams::default()).await.unwrap();
    pods.delete("stubborn", &DeleteParams::default().grace_period(10))
        .await
        .unwrap();
    // Nothing stops before the clock moves: both still run, Ready, being deleted.
    tokio::time::sleep(Duration::from_millis(300)).await;
    for name in ["calm", "stubborn"] {
        let marked = pods.get(name).await.unwrap();
        assert!(marked.metadata.deletion_timestamp.is_some(), "{name}");
        assert_eq!(
            condition(&marked, "Ready").unwrap().status,
            "True",
            "{name}"
        );
    }
    // At 10 s the stubborn one's grace period ends: killed. At 20 s the calm one exits.
    for (stream, seconds, code, phase) in [
        (&mut stubborn, 10, 137, "Failed"),
        (&mut calm, 10, 0, "Succeeded"),
    ] {
        server.advance(Duration::from_secs(seconds));
        let mut seen = Vec::new();
        while let Some(event) = tokio::time::timeout(Duration::from_secs(10), stream.try_next())
            .await
            .expect("an event within 10 s")
            .unwrap()
        {
            match event {
                WatchEvent::Modified(pod) => {
                    let status = pod.status.clone().unwrap();
                    let state = status.container_statuses.unwrap()[0].state.clone().unwrap();
                    seen.push((
                        condition(&pod, "Ready").unwrap().status.clone(),
                        state.terminated.map(|t| t.exit_code),
                        status.phase.unwrap(),
                    ));
                }
                WatchEvent::Deleted(_) => break,
                other => panic!("{other:?}"),
            }
        }
        // The delete's own event (marked, still running), then the stopped containers.
        assert_eq!(
            seen.last(),
            Some(&("False".to_owned(), Some(code), phase.to_owned())),
            "{seen:?}"
        );
    }
}

/// A Node's labels agree with its status, as a kubelet writes both: `kubernetes.io/os` and
/// `kubernetes.io/arch` (and their deprecated `beta.` forms) are
/// `status.nodeInfo.operatingSystem` and `architecture`, for a node configured as arm64 too.
#[tokio::test]
async fn node_labels_agree_with_their_status() {
    let mut arm = SimulatedNode::named("arm");
    arm.labels
        .insert("kubernetes.io/arch".into(), "arm64".into());
    let simulation = Simulation {
        nodes: vec![SimulatedNode::named("plain"), arm],
        ..Simulation::default()
    };
    let Some((_server, client)) = simulated("simulation", simulation) else {
        return;
    };
    let nodes: Api<Node> = Api::all(client);
    for (name, arch) in [("plain", "amd64"), ("arm", "arm64")] {
        until(&nodes, name, "registered", |n| n.status.is_some()).await;
        let node = nodes.get(name).await.unwrap();
        let labels = node.metadata.labels.unwrap();
        let info = node.status.unwrap().node_info.unwrap();
        assert_eq!(info.architecture, arch, "{name}");
        assert_eq!(info.operating_system, "linux", "{name}");
        for prefix in ["", "beta."] {
            assert_eq!(
                labels[&format!("{prefix}kubernetes.io/arch")],
                info.architecture
            );
            assert_eq!(
                labels[&format!("{prefix}kubernetes.io/os")],
                info.operating_system
            );
        }
    }
}
