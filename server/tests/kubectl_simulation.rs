//! `kubeforge-server serve --simulate` through kubectl, against Kubernetes 1.36's
//! `swagger.json`: a Deployment rolls out (`rollout status`, `wait --for=condition=Available`,
//! `set image` making a new ReplicaSet), a Job completes (`wait --for=condition=complete`),
//! a Service's EndpointSlice lists the ready Pods' IPs, a Pod is Ready, and a CronJob fires
//! when the test advances the clock (`POST /simulation/clock`), a StatefulSet rolls out in
//! order and updates in reverse, and `kubectl events` and `describe` show what the
//! simulated components did. kubectl is found on `PATH`;
//! without it or the corpus the test prints `SKIPPED: …`, and fails in CI.

use kubeforge_tests::kubectl_server::KubectlServer;

fn start(test: &str, flags: &[&str]) -> Option<KubectlServer> {
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
    let kubectl = kubeforge_tests::kubectl(test)?;
    Some(KubectlServer::start_with(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        flags,
        &[corpus.join("kubernetes/swagger.json")],
    ))
}

#[test]
fn deployments_roll_out_and_jobs_complete() {
    let Some(server) = start("kubectl_simulation", &["--simulate"]) else {
        return;
    };
    let nodes = server.ok(&["get", "nodes", "-o", "name"], "");
    assert_eq!(
        nodes,
        "node/kubeforge-control-plane\nnode/node-1\nnode/node-2\nnode/node-3\n"
    );
    let _ = server.ok(
        &[
            "create",
            "deployment",
            "web",
            "--image=nginx",
            "--replicas=3",
            "--port=80",
        ],
        "",
    );
    let status = server.ok(
        &["rollout", "status", "deployment/web", "--timeout=30s"],
        "",
    );
    assert!(status.contains("successfully rolled out"), "{status}");
    let _ = server.ok(
        &[
            "wait",
            "--for=condition=Available",
            "deployment/web",
            "--timeout=30s",
        ],
        "",
    );
    let ready = server.ok(
        &[
            "get",
            "deployment",
            "web",
            "-o",
            "jsonpath={.status.readyReplicas}/{.status.replicas}",
        ],
        "",
    );
    assert_eq!(ready, "3/3");
    let _ = server.ok(
        &[
            "wait",
            "--for=condition=Ready",
            "pod",
            "-l",
            "app=web",
            "--timeout=30s",
        ],
        "",
    );

    // A new image rolls out through a second ReplicaSet; the first is scaled to 0.
    let _ = server.ok(&["set", "image", "deployment/web", "nginx=nginx:1.27"], "");
    let status = server.ok(
        &["rollout", "status", "deployment/web", "--timeout=30s"],
        "",
    );
    assert!(status.contains("successfully rolled out"), "{status}");
    let sets = server.ok(
        &[
            "get", "rs", "-l", "app=web", "--sort-by=.metadata.annotations.deployment\\.kubernetes\\.io/revision",
            "-o", "jsonpath={range .items[*]}{.spec.template.spec.containers[0].image}={.spec.replicas} {end}",
        ],
        "",
    );
    assert_eq!(sets, "nginx=0 nginx:1.27=3 ");
    let history = server.ok(&["rollout", "history", "deployment/web"], "");
    assert!(
        history.contains("1 ") && history.contains("2 "),
        "{history}"
    );

    // A Service gets the ready Pods' IPs in its EndpointSlice.
    // `items[*]`, not `items[0]`: until the controller has written the slice the list is
    // empty, and kubectl refuses an index out of range where a range prints nothing.
    let _ = server.ok(&["expose", "deployment", "web", "--port=80"], "");
    let mut addresses = String::new();
    for _ in 0..100 {
        addresses = server.ok(
            &[
                "get",
                "endpointslices",
                "-l",
                "kubernetes.io/service-name=web",
                "-o",
                "jsonpath={.items[*].endpoints[*].addresses[0]}",
            ],
            "",
        );
        if addresses.split(' ').count() == 3 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let mut ips: Vec<&str> = addresses.split(' ').collect();
    ips.sort_unstable();
    let pods = server.ok(
        &[
            "get",
            "pods",
            "-l",
            "app=web",
            "-o",
            "jsonpath={.items[*].status.podIP}",
        ],
        "",
    );
    let mut expected: Vec<&str> = pods.split(' ').collect();
    expected.sort_unstable();
    assert_eq!(ips, expected);

    let _ = server.ok(&["create", "job", "pi", "--image=perl"], "");
    let _ = server.ok(
        &[
            "wait",
            "--for=condition=complete",
            "job/pi",
            "--timeout=30s",
        ],
        "",
    );
    let succeeded = server.ok(
        &["get", "job", "pi", "-o", "jsonpath={.status.succeeded}"],
        "",
    );
    assert_eq!(succeeded, "1");
}

const DAEMON_SET: &str = "apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - {name: agent, image: busybox}
";

#[test]
fn daemon_sets_run_one_pod_per_node() {
    let Some(server) = start("kubectl_simulation", &["--simulate"]) else {
        return;
    };
    let _ = server.ok(&["apply", "-f", "-"], DAEMON_SET);
    let status = server.ok(
        &["rollout", "status", "daemonset/agent", "--timeout=30s"],
        "",
    );
    assert!(status.contains("successfully rolled out"), "{status}");
    let nodes = |server: &KubectlServer| {
        let text = server.ok(
            &[
                "get",
                "pods",
                "-l",
                "app=agent",
                "-o",
                "jsonpath={range .items[*]}{.spec.nodeName}={.spec.containers[0].image} {end}",
            ],
            "",
        );
        let mut nodes: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        nodes.sort();
        nodes
    };
    assert_eq!(
        nodes(&server),
        ["node-1=busybox", "node-2=busybox", "node-3=busybox"]
    );
    let _ = server.ok(&["set", "image", "daemonset/agent", "agent=busybox:2"], "");
    let status = server.ok(
        &["rollout", "status", "daemonset/agent", "--timeout=30s"],
        "",
    );
    assert!(status.contains("successfully rolled out"), "{status}");
    let mut updated = Vec::new();
    for _ in 0..100 {
        updated = nodes(&server);
        if updated == ["node-1=busybox:2", "node-2=busybox:2", "node-3=busybox:2"] {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(
        updated,
        ["node-1=busybox:2", "node-2=busybox:2", "node-3=busybox:2"]
    );
}

#[test]
fn cron_jobs_fire_when_the_clock_is_advanced() {
    let Some(server) = start(
        "kubectl_simulation",
        &["--simulate", "--nodes=1", "--frozen"],
    ) else {
        return;
    };
    let _ = server.ok(
        &[
            "create",
            "cronjob",
            "tick",
            "--image=busybox",
            "--schedule=*/5 * * * *",
        ],
        "",
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(server.ok(&["get", "jobs", "-o", "name"], ""), "");
    let clock = server.ok(
        &["create", "--raw", "/simulation/clock?advance=5m", "-f", "-"],
        "{}",
    );
    assert!(clock.contains("\"frozen\":true"), "{clock}");
    let jobs = server.ok(&["get", "jobs", "-o", "name"], "");
    assert!(jobs.starts_with("job.batch/tick-"), "{jobs}");
    let _ = server.ok(
        &[
            "wait",
            "--for=condition=complete",
            jobs.trim(),
            "--timeout=30s",
        ],
        "",
    );
}

const STATEFUL_SET: &str = "
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - {name: db, image: postgres:17}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
";

#[test]
fn stateful_sets_roll_out_in_order() {
    // Each Pod is ready a second after it starts, so each of an ordered set's Pods is made
    // in a later second than the one before it.
    let Some(server) = start("kubectl_simulation", &["--simulate", "--ready-after=1"]) else {
        return;
    };
    let _ = server.ok(&["apply", "-f", "-"], STATEFUL_SET);
    let status = server.ok(
        &["rollout", "status", "statefulset/db", "--timeout=30s"],
        "",
    );
    // The defaulted `partition: 0` makes it a partitioned roll out, to kubectl too.
    assert!(
        status.ends_with("partitioned roll out complete: 3 new pods have been updated...\n"),
        "{status}"
    );
    // The Pods in the order they were made, each in a later second than the one before.
    let order = |server: &KubectlServer| {
        let text = server.ok(
            &[
                "get",
                "pods",
                "-l",
                "app=db",
                "--sort-by=.metadata.creationTimestamp",
                "-o",
                "jsonpath={range .items[*]}{.metadata.name}={.spec.containers[0].image}@{.metadata.creationTimestamp} {end}",
            ],
            "",
        );
        let made: Vec<(&str, &str)> = text
            .split_whitespace()
            .map(|p| p.split_once('@').unwrap())
            .collect();
        assert!(made.windows(2).all(|w| w[0].1 < w[1].1), "{text}");
        made.iter()
            .map(|(pod, _)| format!("{pod} "))
            .collect::<String>()
    };
    assert_eq!(
        order(&server),
        "db-0=postgres:17 db-1=postgres:17 db-2=postgres:17 "
    );
    let claims = server.ok(&["get", "pvc", "-o", "name"], "");
    assert_eq!(
        claims,
        "persistentvolumeclaim/data-db-0\npersistentvolumeclaim/data-db-1\npersistentvolumeclaim/data-db-2\n"
    );

    // A new image: the Pods are replaced from the highest ordinal down.
    let _ = server.ok(&["set", "image", "statefulset/db", "db=postgres:18"], "");
    let status = server.ok(
        &["rollout", "status", "statefulset/db", "--timeout=30s"],
        "",
    );
    // The defaulted `partition: 0` makes it a partitioned roll out, to kubectl too.
    assert!(
        status.ends_with("partitioned roll out complete: 3 new pods have been updated...\n"),
        "{status}"
    );
    assert_eq!(
        order(&server),
        "db-2=postgres:18 db-1=postgres:18 db-0=postgres:18 "
    );
    let history = server.ok(&["rollout", "history", "statefulset/db"], "");
    assert!(
        history.contains("1 ") && history.contains("2 "),
        "{history}"
    );
    let revisions = server.ok(&["get", "controllerrevisions", "-o", "name"], "");
    assert_eq!(revisions.lines().count(), 2, "{revisions}");
}

#[test]
fn events_tell_what_the_components_did() {
    let Some(server) = start("kubectl_simulation", &["--simulate", "--nodes=1"]) else {
        return;
    };
    let _ = server.ok(&["run", "web", "--image=nginx"], "");
    let _ = server.ok(
        &["wait", "--for=condition=Ready", "pod/web", "--timeout=30s"],
        "",
    );
    let mut events = String::new();
    for _ in 0..100 {
        events = server.ok(&["events", "--for", "pod/web"], "");
        if events.contains("Started") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // In the order kubectl sorts them, which depends on the second they fall in (the
    // scheduler's have microseconds, the kubelet's whole seconds): compared sorted.
    let mut lines: Vec<String> = events
        .lines()
        .skip(1)
        .map(|line| {
            line.split_whitespace()
                .skip(1)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "Normal Created Pod/web Created container: web",
            "Normal Pulled Pod/web Container image \"nginx\" already present on machine",
            "Normal Scheduled Pod/web Successfully assigned default/web to node-1",
            "Normal Started Pod/web Started container web",
        ],
        "{events}"
    );
    let described = server.ok(&["describe", "pod", "web"], "");
    assert!(
        described.contains("default-scheduler  Successfully assigned default/web to node-1"),
        "{described}"
    );
}

#[test]
fn logs_are_what_the_pod_says_its_containers_print() {
    let Some(server) = start("kubectl_simulation", &["--simulate", "--nodes=1"]) else {
        return;
    };
    let _ = server.ok(
        &[
            "run",
            "talker",
            "--image=busybox",
            "--annotations=simulation.kubeforge.dev/logs=hello\nworld\n",
        ],
        "",
    );
    let _ = server.ok(
        &[
            "wait",
            "--for=condition=Ready",
            "pod/talker",
            "--timeout=30s",
        ],
        "",
    );
    assert_eq!(server.ok(&["logs", "talker"], ""), "hello\nworld\n");
    assert_eq!(server.ok(&["logs", "talker", "--tail=1"], ""), "world\n");
    // A Pod that says nothing keeps the refused connection of a plain server.
    let _ = server.ok(&["run", "quiet", "--image=busybox"], "");
    let _ = server.ok(
        &[
            "wait",
            "--for=condition=Ready",
            "pod/quiet",
            "--timeout=30s",
        ],
        "",
    );
    let refused = server.fails(&["logs", "quiet"], "");
    assert!(refused.contains("connection refused"), "{refused}");
}

/// `kubectl delete pod --grace-period=10` on a Pod a simulated kubelet runs: with its
/// container ignoring `SIGTERM` (`--stop-after` past the grace period) and the clock frozen,
/// the Pod stays, Ready, with its `deletionTimestamp`, until the clock passes its grace
/// period; then its container is killed and it goes.
#[test]
fn a_pod_is_deleted_when_its_grace_period_ends() {
    let Some(server) = start(
        "kubectl_simulation",
        &["--simulate", "--nodes=1", "--frozen", "--stop-after=3600"],
    ) else {
        return;
    };
    let _ = server.ok(&["run", "web", "--image=nginx"], "");
    let _ = server.ok(&["wait", "--for=condition=Ready", "pod/web"], "");
    let _ = server.ok(
        &["delete", "pod", "web", "--grace-period=10", "--wait=false"],
        "",
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    let shown = |server: &KubectlServer| {
        server.ok(
            &[
                "get",
                "pod",
                "web",
                "-o",
                r#"jsonpath={.metadata.deletionGracePeriodSeconds} {.status.conditions[?(@.type=="Ready")].status} {.status.phase}"#,
            ],
            "",
        )
    };
    assert_eq!(shown(&server), "10 True Running");
    let _ = server.ok(
        &["create", "--raw", "/simulation/clock?advance=9s", "-f", "-"],
        "{}",
    );
    assert_eq!(shown(&server), "10 True Running");
    let _ = server.ok(
        &["create", "--raw", "/simulation/clock?advance=1s", "-f", "-"],
        "{}",
    );
    let _ = server.ok(&["wait", "--for=delete", "pod/web", "--timeout=30s"], "");
}
