//! The simulated nodes' kubelets: a Pod bound to one starts at once (its init containers
//! run to completion first, then its containers start: phase `Running`, `hostIP`, `podIP`,
//! `startTime`, container statuses, the `PodReadyToStartContainers`, `Initialized`,
//! `ContainersReady` and `Ready` conditions); its containers become ready `ready_after`
//! later by the server's clock (or their readiness probe's `initialDelaySeconds`, when
//! longer); a Pod whose `restartPolicy` is `Never` or `OnFailure` ends `run_for` after it
//! started, `Succeeded`, or `Failed` when its annotation
//! `simulation.kubeforge.dev/exit-code` is not `0`. A Pod it runs is deleted gracefully
//! ([`terminate`]): it keeps running with its `deletionTimestamp` until its containers stop,
//! `stop_after` after the delete (exit code 0), or when its grace period ends (killed, exit
//! code 137); then its status says so (the containers terminated, `Ready` and
//! `ContainersReady` `False`, the phase `Succeeded` or `Failed`, as a kubelet ends a deleted
//! Pod), and on the next step its kubelet removes it.

use kubeforge_runtime::schema::gofmt::quote;
use std::collections::{BTreeMap, BTreeSet};

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use crate::controllers::simulation::events::{self, Recorded};
use crate::controllers::simulation::{
    Action, Kinds, Simulation, address, present, record, set_condition, text,
};
use crate::objects::clock;
use crate::objects::store::State;

/// The annotation that tells a simulated container's exit code.
pub(crate) const EXIT_CODE: &str = "simulation.kubeforge.dev/exit-code";

pub(crate) fn plan(
    state: &State,
    kinds: &Kinds,
    simulation: &Simulation,
    now: Timestamp,
) -> Vec<Action> {
    let Some(pods) = kinds.pods else {
        return Vec::new();
    };
    let nodes: BTreeMap<&str, usize> = present(state, kinds, simulation)
        .into_iter()
        .map(|(position, node)| (text(node, "/metadata/name"), position))
        .collect();
    // The Pod IPs in use, per node.
    let mut used: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for pod in state.objects[pods].values() {
        let ip = text(pod, "/status/podIP");
        if !ip.is_empty() {
            used.entry(text(pod, "/spec/nodeName"))
                .or_default()
                .insert(ip.to_owned());
        }
    }
    let time = clock::format(now);
    let mut actions = Vec::new();
    for (key, pod) in &state.objects[pods] {
        let node = text(pod, "/spec/nodeName");
        let Some(position) = nodes.get(node).copied() else {
            continue;
        };
        if let Some(deadline) = pod.pointer("/metadata/deletionTimestamp") {
            let deadline = deadline
                .as_str()
                .and_then(|t| t.parse::<Timestamp>().ok())
                .unwrap_or(now);
            if running(pod) {
                // SIGTERM at the delete; SIGKILL when the grace period ends.
                let grace = pod
                    .pointer("/metadata/deletionGracePeriodSeconds")
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                let exits = deadline
                    .checked_sub(SignedDuration::from_secs(grace))
                    .unwrap_or(deadline)
                    .checked_add(
                        SignedDuration::try_from(simulation.stop_after)
                            .unwrap_or(SignedDuration::MAX),
                    )
                    .unwrap_or(Timestamp::MAX);
                if now >= exits || now >= deadline {
                    let mut object = (**pod).clone();
                    finish(&mut object, if now >= exits { 0 } else { 137 }, &time);
                    actions.push(Action::Write {
                        index: pods,
                        key: key.clone(),
                        object,
                    });
                }
            } else if crate::objects::meta::finalizers(pod).is_empty() {
                actions.push(Action::Write {
                    index: pods,
                    key: key.clone(),
                    object: stopped(pod),
                });
            }
            continue;
        }
        let phase = text(pod, "/status/phase");
        if phase == "Succeeded" || phase == "Failed" {
            continue;
        }
        let mut object = (**pod).clone();
        let fresh = pod.pointer("/status/startTime").is_none();
        if fresh {
            let taken = used.entry(node).or_default();
            // A Pod on the host's network has the node's address.
            let ip = if pod.pointer("/spec/hostNetwork") == Some(&Value::Bool(true)) {
                address(position)
            } else {
                (2..255)
                    .map(|n| format!("10.244.{position}.{n}"))
                    .find(|ip| !taken.contains(ip))
                    .unwrap_or_default()
            };
            taken.insert(ip.clone());
            start(&mut object, &address(position), &ip, &time);
            // `Pulled`, `Created` and `Started` for each container, init containers first.
            for (list, path) in [
                ("initContainers", "initContainers"),
                ("containers", "containers"),
            ] {
                for (name, image) in names(pod, list) {
                    let field_path = format!("spec.{path}{{{name}}}");
                    for (reason, message) in [
                        (
                            "Pulled",
                            format!(
                                "Container image {} already present on machine",
                                quote(&image)
                            ),
                        ),
                        ("Created", format!("Created container: {name}")),
                        ("Started", format!("Started container {name}")),
                    ] {
                        let event = Recorded {
                            involved: pod,
                            field_path: Some(&field_path),
                            kind: "Normal",
                            reason,
                            message,
                        };
                        actions.extend(record(
                            kinds,
                            &key.0,
                            events::legacy(&event, "kubelet", Some(node)),
                        ));
                    }
                }
            }
        }
        let started = text(&object, "/status/startTime")
            .parse::<Timestamp>()
            .unwrap_or(now);
        let since = now.duration_since(started);
        ready(&mut object, simulation, since, &time);
        let restarts = text(&object, "/spec/restartPolicy");
        // A Pod is seen running before it ends, even when it ends at once.
        if !fresh
            && matches!(restarts, "Never" | "OnFailure")
            && since >= SignedDuration::try_from(simulation.run_for).unwrap_or(SignedDuration::MAX)
        {
            let code = pod
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(EXIT_CODE))
                .and_then(Value::as_str)
                .and_then(|c| c.parse::<i64>().ok())
                .unwrap_or(0);
            finish(&mut object, code, &time);
        }
        if object != **pod {
            actions.push(Action::Write {
                index: pods,
                key: key.clone(),
                object,
            });
        }
    }
    actions
}

/// The annotation that says what every container of a Pod prints; with `.<container>`,
/// what that container prints.
const LOGS: &str = "simulation.kubeforge.dev/logs";

/// What `container` of `pod` prints, as the simulation was told: the Pod's annotation for
/// it, the Pod's annotation for all its containers, or the image's log (with its tag, then
/// without); `None` when nothing was said.
pub(crate) fn script<'a>(
    pod: &'a Value,
    container: &str,
    simulation: &'a Simulation,
) -> Option<&'a str> {
    let annotations = pod.pointer("/metadata/annotations");
    let annotation = |key: &str| annotations.and_then(|a| a.get(key)).and_then(Value::as_str);
    if let Some(text) = annotation(&format!("{LOGS}.{container}")).or_else(|| annotation(LOGS)) {
        return Some(text);
    }
    let image = ["initContainers", "containers", "ephemeralContainers"]
        .iter()
        .flat_map(|list| names(pod, list))
        .find(|(name, _)| name == container)
        .map(|(_, image)| image)?;
    let untagged = match image.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => name,
        _ => image.as_str(),
    };
    simulation
        .logs
        .get(&image)
        .or_else(|| simulation.logs.get(untagged))
        .map(String::as_str)
}

/// When `container` of `pod` started (`state.running` or `state.terminated`'s `startedAt`);
/// `None` while it has not.
pub(crate) fn started_at<'a>(pod: &'a Value, container: &str) -> Option<&'a str> {
    [
        "initContainerStatuses",
        "containerStatuses",
        "ephemeralContainerStatuses",
    ]
    .iter()
    .filter_map(|list| {
        pod.pointer(&format!("/status/{list}"))
            .and_then(Value::as_array)
    })
    .flatten()
    .find(|status| text(status, "/name") == container)
    .and_then(|status| {
        status
            .pointer("/state/running/startedAt")
            .or_else(|| status.pointer("/state/terminated/startedAt"))
    })
    .and_then(Value::as_str)
}

fn names(pod: &Value, list: &str) -> Vec<(String, String)> {
    pod.pointer(&format!("/spec/{list}"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| (text(c, "/name").to_owned(), text(c, "/image").to_owned()))
        .collect()
}

/// A container ID, as a runtime names one: 64 hex digits from the Pod's uid and the
/// container's name.
fn container_id(pod: &Value, name: &str) -> String {
    let seed = format!("{}/{name}", text(pod, "/metadata/uid"));
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut out = String::from("containerd://");
    for round in 0..4u8 {
        for byte in seed.bytes().chain([round]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        out.push_str(&format!("{hash:016x}"));
    }
    out
}

/// The Pod started on its node: init containers done, containers running, not ready yet.
fn start(pod: &mut Value, host: &str, ip: &str, now: &str) {
    let init: Vec<Value> = names(pod, "initContainers")
        .into_iter()
        .map(|(name, image)| {
            json!({
                "name": name,
                "image": image,
                "imageID": "",
                "containerID": container_id(pod, &name),
                "ready": true,
                "restartCount": 0,
                "started": false,
                "state": {"terminated": {
                    "exitCode": 0,
                    "reason": "Completed",
                    "startedAt": now,
                    "finishedAt": now,
                    "containerID": container_id(pod, &name),
                }},
            })
        })
        .collect();
    let containers: Vec<Value> = names(pod, "containers")
        .into_iter()
        .map(|(name, image)| {
            json!({
                "name": name,
                "image": image,
                "imageID": "",
                "containerID": container_id(pod, &name),
                "ready": false,
                "restartCount": 0,
                "started": true,
                "state": {"running": {"startedAt": now}},
            })
        })
        .collect();
    let status = &mut pod["status"];
    if !status.is_object() {
        *status = json!({});
    }
    status["phase"] = json!("Running");
    status["hostIP"] = json!(host);
    status["hostIPs"] = json!([{"ip": host}]);
    status["podIP"] = json!(ip);
    status["podIPs"] = json!([{"ip": ip}]);
    status["startTime"] = json!(now);
    if !init.is_empty() {
        status["initContainerStatuses"] = Value::from(init);
    }
    status["containerStatuses"] = Value::from(containers);
    for kind in ["PodReadyToStartContainers", "Initialized"] {
        set_condition(
            pod,
            json!({"type": kind, "status": "True", "lastProbeTime": null}),
            now,
        );
    }
}

/// Each running container is ready once `ready_after` (or its readiness probe's initial
/// delay) has passed since the Pod started; then the Pod's `ContainersReady` and `Ready`.
fn ready(pod: &mut Value, simulation: &Simulation, since: SignedDuration, now: &str) {
    let delays: BTreeMap<String, SignedDuration> = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            let probe = c
                .pointer("/readinessProbe/initialDelaySeconds")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            let delay = SignedDuration::try_from(simulation.ready_after)
                .unwrap_or(SignedDuration::MAX)
                .max(SignedDuration::from_secs(probe));
            (text(c, "/name").to_owned(), delay)
        })
        .collect();
    let mut unready = Vec::new();
    if let Some(statuses) = pod
        .pointer_mut("/status/containerStatuses")
        .and_then(Value::as_array_mut)
    {
        for status in statuses {
            let name = text(status, "/name").to_owned();
            if status.pointer("/state/running").is_none() {
                continue;
            }
            let ready = delays.get(&name).is_none_or(|delay| since >= *delay);
            status["ready"] = Value::from(ready);
            if !ready {
                unready.push(name);
            }
        }
    }
    let condition = |kind: &str| {
        if unready.is_empty() {
            json!({"type": kind, "status": "True", "lastProbeTime": null})
        } else {
            json!({
                "type": kind,
                "status": "False",
                "lastProbeTime": null,
                "reason": "ContainersNotReady",
                "message": format!("containers with unready status: [{}]", unready.join(" ")),
            })
        }
    };
    let (containers_ready, ready) = (condition("ContainersReady"), condition("Ready"));
    set_condition(pod, containers_ready, now);
    set_condition(pod, ready, now);
}

/// Whether a container of the Pod is running.
fn running(pod: &Value) -> bool {
    pod.pointer("/status/containerStatuses")
        .and_then(Value::as_array)
        .is_some_and(|statuses| {
            statuses
                .iter()
                .any(|s| s.pointer("/state/running").is_some())
        })
}

/// The Pod's running containers exit with `code` and it ends: `Succeeded` when the code is
/// 0, `Failed` otherwise (as the kubelet also ends a deleted Pod, since Kubernetes 1.27).
fn finish(pod: &mut Value, code: i64, now: &str) {
    let reason = if code == 0 { "Completed" } else { "Error" };
    if let Some(statuses) = pod
        .pointer_mut("/status/containerStatuses")
        .and_then(Value::as_array_mut)
    {
        for status in statuses {
            if status.pointer("/state/running").is_none() {
                continue;
            }
            let started = status
                .pointer("/state/running/startedAt")
                .cloned()
                .unwrap_or(Value::from(now));
            let id = status.get("containerID").cloned().unwrap_or(Value::Null);
            status["ready"] = Value::from(false);
            status["started"] = Value::from(false);
            status["state"] = json!({"terminated": {
                "exitCode": code,
                "reason": reason,
                "startedAt": started,
                "finishedAt": now,
                "containerID": id,
            }});
        }
    }
    pod["status"]["phase"] = Value::from(if code == 0 { "Succeeded" } else { "Failed" });
    set_condition(
        pod,
        json!({"type": "PodReadyToStartContainers", "status": "False", "lastProbeTime": null}),
        now,
    );
    for kind in ["ContainersReady", "Ready"] {
        set_condition(
            pod,
            json!({"type": kind, "status": "False", "lastProbeTime": null, "reason": "PodCompleted"}),
            now,
        );
    }
}

/// A delete of a Pod a simulated kubelet runs, as the API server's graceful delete makes
/// it (`CheckGracefulDelete`): the Pod stays, with `deletionTimestamp` `grace` seconds
/// from now and `deletionGracePeriodSeconds`, until its kubelet has stopped its containers
/// and removes it. `None` (delete it at once) for a Pod no simulated kubelet runs, one that
/// has ended, one already being deleted, or a grace period of 0.
pub(crate) fn terminate(
    state: &mut State,
    kinds: &Kinds,
    simulation: &Simulation,
    key: &crate::objects::store::Key,
    grace: Option<i64>,
    queue: &mut std::collections::VecDeque<crate::controllers::queue::Work>,
) -> Option<std::sync::Arc<Value>> {
    let pods = kinds.pods?;
    let old = state.objects[pods].get(key)?.clone();
    let ended = matches!(text(&old, "/status/phase"), "Succeeded" | "Failed");
    if ended || old.pointer("/metadata/deletionTimestamp").is_some() || !simulation.runs(&old) {
        return None;
    }
    let grace = grace
        .or_else(|| {
            old.pointer("/spec/terminationGracePeriodSeconds")
                .and_then(Value::as_i64)
        })
        .unwrap_or(30);
    if grace <= 0 {
        return None;
    }
    let at = clock::now()
        .checked_add(SignedDuration::from_secs(grace))
        .unwrap_or(Timestamp::MAX);
    let mut object = (*old).clone();
    let rv = state.next_rv();
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("deletionTimestamp".into(), Value::from(clock::format(at)));
        meta.insert("deletionGracePeriodSeconds".into(), Value::from(grace));
        meta.insert("resourceVersion".into(), Value::from(rv.to_string()));
    }
    let object = std::sync::Arc::new(object);
    state.put(pods, key.clone(), object.clone(), Some(old));
    queue.push_back(crate::controllers::queue::Work::Marked(pods, key.clone()));
    Some(object)
}

/// The Pod its kubelet has stopped, to be written so that the store removes it (its grace
/// period ended: `deletionGracePeriodSeconds` 0).
fn stopped(pod: &Value) -> Value {
    let mut object = pod.clone();
    object["metadata"]["deletionGracePeriodSeconds"] = Value::from(0);
    object
}
