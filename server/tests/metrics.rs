//! The simulated cluster's `kube-system` and metrics-server (`Simulation::kube_system`,
//! `Simulation::metrics`), against Kubernetes 1.36's `swagger.json`: in process through
//! kube-rs, `PodMetrics` and `NodeMetrics` from containers' requests and from a scripted
//! usage (by image, by annotation), with metrics-server's answers and selectors; what a
//! kind cluster runs in `kube-system`; and through the real kubectl against the binary,
//! `kubectl top pods -A`, `kubectl top nodes`, `kubectl top pod --containers` and `kubectl
//! get pods -n kube-system`. Without the corpus or kubectl the tests print `SKIPPED: …`,
//! and fail in CI.

use std::time::Duration;

use k8s_openapi::api::core::v1::{Node, Pod, Service};
use kube::api::{Api, DeleteParams, PostParams};
use kube::runtime::wait::await_condition;
use kube::{Client, Resource};
use kubeforge_server::{CONTROL_PLANE, Catalog, Options, Server, Simulation};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn simulated(test: &str, simulation: Simulation) -> Option<(Server, Client)> {
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    let options = Options {
        simulation: Some(simulation),
        ..Options::default()
    };
    let server = Server::with_options(catalog, options);
    let client = Client::new(server.clone(), "default");
    Some((server, client))
}

/// `GET path`: the status code and the body as JSON.
async fn get(client: &Client, path: &str) -> (u16, Value) {
    let request = http::Request::get(path).body(Vec::new()).unwrap();
    match client.request::<Value>(request).await {
        Ok(value) => (200, value),
        Err(kube::Error::Api(status)) => (status.code, json!({"message": status.message})),
        Err(e) => panic!("{path}: {e}"),
    }
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

fn running(pod: &Pod) -> bool {
    pod.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
}

async fn run(pods: &Api<Pod>, pod: Value) {
    let name = pod["metadata"]["name"].as_str().unwrap().to_owned();
    pods.create(
        &PostParams::default(),
        &serde_json::from_value(pod).unwrap(),
    )
    .await
    .unwrap();
    until(pods, &name, "running", running).await;
}

fn usage(containers: &Value) -> Vec<(String, String, String)> {
    containers
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_owned(),
                c["usage"]["cpu"].as_str().unwrap().to_owned(),
                c["usage"]["memory"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn triple(name: &str, cpu: &str, memory: &str) -> (String, String, String) {
    (name.to_owned(), cpu.to_owned(), memory.to_owned())
}

const PODS: &str = "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods";

#[tokio::test]
async fn pod_metrics_are_what_the_containers_request() {
    let Some((_server, client)) = simulated("metrics", Simulation::default()) else {
        return;
    };
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    run(
        &pods,
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "web", "labels": {"app": "web"}},
            "spec": {
                "nodeSelector": {"kubernetes.io/hostname": "node-2"},
                "containers": [
                    {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}},
                    {"name": "big", "image": "nginx", "resources": {"requests": {"cpu": "1", "memory": "1G"}}},
                    {"name": "idle", "image": "nginx"},
                ],
            },
        }),
    )
    .await;
    let (code, web) = get(&client, &format!("{PODS}/web")).await;
    assert_eq!(code, 200, "{web}");
    assert_eq!(web["kind"], "PodMetrics");
    assert_eq!(web["apiVersion"], "metrics.k8s.io/v1beta1");
    assert_eq!(web["metadata"]["name"], "web");
    assert_eq!(web["metadata"]["namespace"], "default");
    assert_eq!(web["metadata"]["labels"], json!({"app": "web"}));
    assert_eq!(web["window"], "15s");
    assert!(web["timestamp"].as_str().unwrap().ends_with('Z'), "{web}");
    assert_eq!(
        usage(&web["containers"]),
        [
            triple("app", "250m", "64Mi"),
            triple("big", "1", "1000000000"),
            triple("idle", "0", "0"),
        ]
    );

    // A Pod that is not running has no sample; one that does not exist is the Pod's 404.
    pods.create(
        &PostParams::default(),
        &serde_json::from_value(json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "picky", "labels": {"app": "picky"}},
            "spec": {"nodeSelector": {"disk": "ssd"}, "containers": [{"name": "c", "image": "nginx"}]},
        }))
        .unwrap(),
    )
    .await
    .unwrap();
    let (code, missing) = get(&client, &format!("{PODS}/picky")).await;
    assert_eq!(code, 404);
    assert_eq!(
        missing["message"],
        "podmetrics.metrics.k8s.io \"default/picky\" not found"
    );
    let (code, missing) = get(&client, &format!("{PODS}/nope")).await;
    assert_eq!(code, 404);
    assert_eq!(missing["message"], "pods \"nope\" not found");

    // Lists: a namespace's, all namespaces', by label and by field.
    let names = |list: &Value| -> Vec<String> {
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                format!(
                    "{}/{}",
                    i["metadata"]["namespace"].as_str().unwrap(),
                    i["metadata"]["name"].as_str().unwrap()
                )
            })
            .collect()
    };
    let (_, list) = get(&client, PODS).await;
    assert_eq!(list["kind"], "PodMetricsList");
    assert_eq!(names(&list), ["default/web"]);
    let (_, all) = get(&client, "/apis/metrics.k8s.io/v1beta1/pods").await;
    let all = names(&all);
    assert!(all.contains(&"default/web".to_owned()), "{all:?}");
    assert!(
        all.iter()
            .any(|n| n.starts_with("kube-system/metrics-server-")),
        "{all:?}"
    );
    let (_, selected) = get(
        &client,
        "/apis/metrics.k8s.io/v1beta1/pods?labelSelector=app%3Dweb",
    )
    .await;
    assert_eq!(names(&selected), ["default/web"]);
    let (_, none) = get(&client, &format!("{PODS}?labelSelector=app%3Dother")).await;
    assert_eq!(names(&none), Vec::<String>::new());
    let (_, by_field) = get(
        &client,
        "/apis/metrics.k8s.io/v1beta1/pods?fieldSelector=metadata.namespace%3Dkube-system",
    )
    .await;
    let by_field = names(&by_field);
    assert!(!by_field.is_empty());
    assert!(by_field.iter().all(|n| n.starts_with("kube-system/")));

    // A Node's usage is its Pods' sum: node-2 runs web, kube-proxy and whatever else the
    // scheduler placed there.
    let (code, node) = get(&client, "/apis/metrics.k8s.io/v1beta1/nodes/node-2").await;
    assert_eq!(code, 200, "{node}");
    assert_eq!(node["kind"], "NodeMetrics");
    assert_eq!(
        node["metadata"]["labels"]["kubernetes.io/hostname"],
        "node-2"
    );
    let on_node: Vec<Pod> = Api::<Pod>::all(client.clone())
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|p| {
            p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some("node-2") && running(p)
        })
        .collect();
    let (mut cpu, mut memory) = (0.0, 0.0);
    for pod in &on_node {
        let path = format!(
            "/apis/metrics.k8s.io/v1beta1/namespaces/{}/pods/{}",
            pod.metadata.namespace.as_deref().unwrap(),
            pod.metadata.name.as_deref().unwrap()
        );
        let (_, metrics) = get(&client, &path).await;
        for (_, c, m) in usage(&metrics["containers"]) {
            cpu += quantity(&c);
            memory += quantity(&m);
        }
    }
    assert!(cpu >= 1.25, "{cpu}");
    assert_eq!(quantity(node["usage"]["cpu"].as_str().unwrap()), cpu);
    assert_eq!(quantity(node["usage"]["memory"].as_str().unwrap()), memory);
    let (_, nodes) = get(&client, "/apis/metrics.k8s.io/v1beta1/nodes").await;
    assert_eq!(nodes["kind"], "NodeMetricsList");
    assert_eq!(nodes["items"].as_array().unwrap().len(), 4);
    let (_, workers) = get(
        &client,
        "/apis/metrics.k8s.io/v1beta1/nodes?labelSelector=!node-role.kubernetes.io%2Fcontrol-plane",
    )
    .await;
    assert_eq!(workers["items"].as_array().unwrap().len(), 3);
    let (code, missing) = get(&client, "/apis/metrics.k8s.io/v1beta1/nodes/nope").await;
    assert_eq!(
        (code, &missing["message"]),
        (404, &json!("nodes \"nope\" not found"))
    );
}

/// A quantity's value, as kubectl adds them.
fn quantity(text: &str) -> f64 {
    kubeforge_runtime::Quantity::parse(text)
        .unwrap()
        .to_f64()
        .unwrap()
}

#[tokio::test]
async fn scripted_usage_is_what_the_metrics_say() {
    let simulation = Simulation::with_nodes(1).with_usage("busybox", "1500u", "1536Ki");
    let Some((_server, client)) = simulated("metrics", simulation) else {
        return;
    };
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let requests = json!({"requests": {"cpu": "100m", "memory": "10Mi"}});
    run(
        &pods,
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": "scripted",
                "annotations": {
                    "simulation.kubeforge.dev/usage": "2195445n,100M",
                    "simulation.kubeforge.dev/usage.sidecar": "5m,8Mi",
                },
            },
            "spec": {"containers": [
                {"name": "main", "image": "nginx", "resources": requests},
                {"name": "sidecar", "image": "nginx", "resources": requests},
                {"name": "shell", "image": "busybox:1.36", "resources": requests},
            ]},
        }),
    )
    .await;
    run(
        &pods,
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "by-image", "annotations": {"simulation.kubeforge.dev/usage": "not a usage"}},
            "spec": {"containers": [
                {"name": "shell", "image": "busybox:1.36", "resources": requests},
                {"name": "web", "image": "nginx", "resources": requests},
            ]},
        }),
    )
    .await;
    let (_, scripted) = get(&client, &format!("{PODS}/scripted")).await;
    assert_eq!(
        usage(&scripted["containers"]),
        [
            triple("main", "2195445n", "100000000"),
            triple("sidecar", "5m", "8Mi"),
            triple("shell", "2195445n", "100000000"),
        ]
    );
    let (_, by_image) = get(&client, &format!("{PODS}/by-image")).await;
    assert_eq!(
        usage(&by_image["containers"]),
        [
            triple("shell", "1500u", "1536Ki"),
            triple("web", "100m", "10Mi"),
        ]
    );
}

#[tokio::test]
async fn the_cluster_starts_with_what_kind_runs_in_kube_system() {
    let Some((server, client)) = simulated("metrics", Simulation::default()) else {
        return;
    };
    server.freeze();
    let pods: Api<Pod> = Api::namespaced(client.clone(), "kube-system");
    let statics: Vec<String> = [
        "etcd",
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
    ]
    .iter()
    .map(|c| format!("{c}-{CONTROL_PLANE}"))
    .collect();
    for name in &statics {
        until(&pods, name, "running", running).await;
    }
    // The metrics-server's readiness probe waits 20 s; its APIService is not Available until
    // then.
    let api_services: Api<kube::api::DynamicObject> = Api::all_with(
        client.clone(),
        &kube::api::ApiResource {
            group: "apiregistration.k8s.io".into(),
            version: "v1".into(),
            api_version: "apiregistration.k8s.io/v1".into(),
            kind: "APIService".into(),
            plural: "apiservices".into(),
        },
    );
    let available = |o: &kube::api::DynamicObject| {
        o.data["status"]["conditions"].as_array().is_some_and(|c| {
            c.iter()
                .any(|c| c["type"] == "Available" && c["status"] == "True")
        })
    };
    until(
        &api_services,
        "v1beta1.metrics.k8s.io",
        "not available",
        |o| o.data["status"]["conditions"][0]["reason"] == "MissingEndpoints",
    )
    .await;
    server.advance(Duration::from_secs(20));
    until(
        &api_services,
        "v1beta1.metrics.k8s.io",
        "available",
        available,
    )
    .await;

    let list = pods.list(&Default::default()).await.unwrap();
    let on = |prefix: &str| -> Vec<(String, String)> {
        list.items
            .iter()
            .filter(|p| p.metadata.name.as_deref().unwrap().starts_with(prefix))
            .map(|p| {
                (
                    p.metadata.name.clone().unwrap(),
                    p.spec
                        .as_ref()
                        .unwrap()
                        .node_name
                        .clone()
                        .unwrap_or_default(),
                )
            })
            .collect()
    };
    for name in &statics {
        let pod = list
            .items
            .iter()
            .find(|p| p.metadata.name.as_ref() == Some(name))
            .unwrap();
        assert_eq!(
            pod.spec.as_ref().unwrap().node_name.as_deref(),
            Some(CONTROL_PLANE)
        );
        let owner = &pod.metadata.owner_references.as_ref().unwrap()[0];
        assert_eq!(
            (owner.kind.as_str(), owner.name.as_str()),
            ("Node", CONTROL_PLANE)
        );
        assert_eq!(
            pod.metadata.labels.as_ref().unwrap()["tier"],
            "control-plane"
        );
        // On the host's network: the node's address.
        assert_eq!(
            pod.status.as_ref().unwrap().pod_ip.as_deref(),
            Some("172.18.0.2")
        );
    }
    assert_eq!(on("coredns-").len(), 2, "{:?}", on("coredns-"));
    assert_eq!(on("metrics-server-").len(), 1);
    let mut proxies: Vec<String> = on("kube-proxy-").into_iter().map(|(_, n)| n).collect();
    proxies.sort();
    assert_eq!(proxies, [CONTROL_PLANE, "node-1", "node-2", "node-3"]);
    assert!(list.items.iter().all(running));

    // A mirror Pod deleted is made again by its kubelet.
    let etcd = &statics[0];
    let uid = pods.get(etcd).await.unwrap().metadata.uid.unwrap();
    pods.delete(etcd, &DeleteParams::default()).await.unwrap();
    until(&pods, etcd, "made again", move |p| {
        p.metadata.uid.as_deref() != Some(uid.as_str()) && running(p)
    })
    .await;

    let services: Api<Service> = Api::namespaced(client.clone(), "kube-system");
    let dns = services.get("kube-dns").await.unwrap().spec.unwrap();
    assert_eq!(dns.cluster_ip.as_deref(), Some("10.96.0.10"));
    let ports: Vec<(i32, String)> = dns
        .ports
        .unwrap()
        .into_iter()
        .map(|p| (p.port, p.protocol.unwrap()))
        .collect();
    assert_eq!(
        ports,
        [(53, "UDP".into()), (53, "TCP".into()), (9153, "TCP".into())]
    );

    // The control-plane Node: its role's label and taint, its labels agreeing with its status.
    let nodes: Api<Node> = Api::all(client.clone());
    let node = nodes.get(CONTROL_PLANE).await.unwrap();
    let labels = node.metadata.labels.clone().unwrap();
    assert_eq!(labels["node-role.kubernetes.io/control-plane"], "");
    let info = node.status.as_ref().unwrap().node_info.as_ref().unwrap();
    assert_eq!(labels["kubernetes.io/os"], info.operating_system);
    assert_eq!(labels["kubernetes.io/arch"], info.architecture);
    assert_eq!(labels["kubernetes.io/hostname"], CONTROL_PLANE);
    let taints = node.spec.unwrap().taints.unwrap();
    assert_eq!(taints.len(), 1);
    assert_eq!(
        (taints[0].key.as_str(), taints[0].effect.as_str()),
        ("node-role.kubernetes.io/control-plane", "NoSchedule")
    );

    // Discovery has the metrics API, as its APIService adds it.
    let (code, resources) = get(&client, "/apis/metrics.k8s.io/v1beta1").await;
    assert_eq!(code, 200, "{resources}");
    let served: Vec<(String, String, bool, Value)> = resources["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["kind"].as_str().unwrap().to_owned(),
                r["namespaced"].as_bool().unwrap(),
                r["verbs"].clone(),
            )
        })
        .collect();
    assert_eq!(
        served,
        [
            (
                "nodes".into(),
                "NodeMetrics".into(),
                false,
                json!(["get", "list"])
            ),
            (
                "pods".into(),
                "PodMetrics".into(),
                true,
                json!(["get", "list"])
            ),
        ]
    );
}

#[tokio::test]
async fn without_metrics_there_is_no_metrics_server_and_no_metrics_api() {
    let simulation = Simulation {
        metrics: false,
        ..Simulation::with_nodes(1)
    };
    let Some((_server, client)) = simulated("metrics", simulation) else {
        return;
    };
    let pods: Api<Pod> = Api::namespaced(client.clone(), "kube-system");
    until(&pods, &format!("etcd-{CONTROL_PLANE}"), "running", running).await;
    let names: Vec<String> = pods
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|p| p.metadata.name)
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with("metrics-server")),
        "{names:?}"
    );
    let (code, _) = get(&client, "/apis/metrics.k8s.io/v1beta1").await;
    assert_eq!(code, 404);
}

/// The binary with the simulation, through kubectl.
fn kubectl_server(
    test: &str,
    flags: &[&str],
) -> Option<kubeforge_tests::kubectl_server::KubectlServer> {
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
    let kubectl = kubeforge_tests::kubectl(test)?;
    Some(kubeforge_tests::kubectl_server::KubectlServer::start_with(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        flags,
        &[corpus.join("kubernetes/swagger.json")],
    ))
}

/// The rows of a table kubectl printed, each split into its columns.
fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|line| line.split_whitespace().map(str::to_owned).collect())
        .collect()
}

#[test]
fn kubectl_top_prints_what_metrics_server_would() {
    let Some(server) = kubectl_server(
        "kubectl_top",
        &[
            "--simulate",
            "--nodes=2",
            "--container-usage=busybox=1500u,1536Ki",
        ],
    ) else {
        return;
    };
    let _ = server.ok(&["run", "shell", "--image=busybox:1.36"], "");
    let _ = server.ok(
        &[
            "run",
            "web",
            "--image=nginx",
            "--annotations=simulation.kubeforge.dev/usage=2195445n,100M",
        ],
        "",
    );
    for pod in ["shell", "web"] {
        let _ = server.ok(
            &[
                "wait",
                "--for=condition=Ready",
                &format!("pod/{pod}"),
                "--timeout=30s",
            ],
            "",
        );
    }
    // kubectl rounds CPU up to millicores and memory down to Mi.
    let top = server.ok(&["top", "pods"], "");
    assert_eq!(
        rows(&top),
        [
            vec!["NAME", "CPU(cores)", "MEMORY(bytes)"],
            vec!["shell", "2m", "1Mi"],
            vec!["web", "3m", "95Mi"],
        ],
        "{top}"
    );
    let containers = server.ok(&["top", "pod", "web", "--containers"], "");
    assert_eq!(
        rows(&containers),
        [
            vec!["POD", "NAME", "CPU(cores)", "MEMORY(bytes)"],
            vec!["web", "web", "3m", "95Mi"],
        ],
        "{containers}"
    );

    // Every namespace: the control plane's and the add-ons' Pods, from their requests.
    let all = server.ok(&["top", "pods", "-A", "--no-headers"], "");
    let all = rows(&all);
    let find = |prefix: &str| -> Vec<&Vec<String>> {
        all.iter()
            .filter(|row| row[0] == "kube-system" && row[1].starts_with(prefix))
            .collect()
    };
    let apiserver = find(&format!("kube-apiserver-{CONTROL_PLANE}"));
    assert_eq!(apiserver.len(), 1, "{all:?}");
    assert_eq!(apiserver[0][2..], ["250m", "0Mi"]);
    let etcd = find("etcd-");
    assert_eq!(etcd[0][2..], ["100m", "100Mi"], "{all:?}");
    let coredns = find("coredns-");
    assert_eq!(coredns.len(), 2, "{all:?}");
    assert!(coredns.iter().all(|row| row[2..] == ["100m", "70Mi"]));
    assert_eq!(find("metrics-server-")[0][2..], ["100m", "200Mi"]);
    assert!(all.iter().any(|row| row[..2] == ["default", "web"]));

    // Nodes: each its Pods' sum, and its share of its allocatable (4 CPUs, 16Gi).
    let nodes = server.ok(&["top", "nodes"], "");
    let nodes = rows(&nodes);
    assert_eq!(
        nodes[0],
        ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]
    );
    let names: Vec<&str> = nodes[1..].iter().map(|row| row[0].as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [CONTROL_PLANE, "node-1", "node-2"]);
    let control_plane = nodes.iter().find(|row| row[0] == CONTROL_PLANE).unwrap();
    // etcd, kube-apiserver, kube-controller-manager and kube-scheduler request 650m and
    // 100Mi; kube-proxy nothing; CoreDNS tolerates the control plane's taint and may run
    // there too.
    let cpu: i64 = control_plane[1].trim_end_matches('m').parse().unwrap();
    assert!(cpu == 650 || cpu == 750 || cpu == 850, "{control_plane:?}");
    assert_eq!(control_plane[2], format!("{}%", cpu * 100 / 4000));

    // The Pods kube-system runs, as `kubectl get pods` lists them.
    let listed = server.ok(&["get", "pods", "-n", "kube-system", "-o", "name"], "");
    let listed: Vec<&str> = listed.lines().collect();
    for name in [
        format!("pod/etcd-{CONTROL_PLANE}"),
        format!("pod/kube-apiserver-{CONTROL_PLANE}"),
        format!("pod/kube-controller-manager-{CONTROL_PLANE}"),
        format!("pod/kube-scheduler-{CONTROL_PLANE}"),
    ] {
        assert!(listed.contains(&name.as_str()), "{listed:?}");
    }
    let count = |prefix: &str| listed.iter().filter(|n| n.starts_with(prefix)).count();
    assert_eq!(count("pod/coredns-"), 2, "{listed:?}");
    assert_eq!(count("pod/kube-proxy-"), 3, "{listed:?}");
    assert_eq!(count("pod/metrics-server-"), 1, "{listed:?}");
    assert_eq!(listed.len(), 10, "{listed:?}");
    let table = server.ok(&["get", "pods", "-n", "kube-system"], "");
    assert!(table.starts_with("NAME"), "{table}");
    assert!(
        rows(&table)[1..].iter().all(|row| row[2] == "Running"),
        "{table}"
    );
}

#[test]
fn kubectl_top_without_metrics_says_the_api_is_not_available() {
    let Some(server) = kubectl_server("kubectl_top", &["--simulate", "--nodes=1", "--no-metrics"])
    else {
        return;
    };
    let refused = server.fails(&["top", "nodes"], "");
    assert!(refused.contains("Metrics API not available"), "{refused}");
}
