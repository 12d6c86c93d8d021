//! kube-controller-manager's DaemonSet controller: one Pod per Node whose labels the
//! template's `nodeSelector` matches, made with the node affinity (`matchFields`
//! `metadata.name`) and the tolerations the controller adds, for the scheduler to bind;
//! a Pod of an older template is replaced one at a time (`RollingUpdate` with one
//! unavailable) once every Pod is available; and the status it writes.

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::controllers::simulation::{
    Action, Kinds, controlled_by, int, objects, pod_active, pod_available, pod_from, pod_ready,
    text, tolerates,
};
use crate::objects::store::State;

/// The label a DaemonSet's Pods carry their template's generation in.
const GENERATION: &str = "pod-template-generation";

pub(crate) fn plan(state: &State, kinds: &Kinds, now: Timestamp) -> Vec<Action> {
    let (Some(sets), Some(pods), Some(nodes)) = (kinds.daemon_sets, kinds.pods, kinds.nodes) else {
        return Vec::new();
    };
    let mut actions = Vec::new();
    for (key, set) in &state.objects[sets] {
        if set.pointer("/metadata/deletionTimestamp").is_some() {
            continue;
        }
        let generation = int(set, "/metadata/generation", 1);
        let selector = set
            .pointer("/spec/template/spec/nodeSelector")
            .and_then(Value::as_object);
        // `NodeShouldRunDaemonPod`: the node's labels match, and the Pod tolerates its
        // `NoSchedule` and `NoExecute` taints (a control-plane node's, unless the template
        // tolerates them).
        let wanted: Vec<&str> = state.objects[nodes]
            .values()
            .filter(|node| {
                selector.is_none_or(|s| {
                    s.iter().all(|(k, v)| {
                        node.pointer("/metadata/labels").and_then(|l| l.get(k)) == Some(v)
                    })
                })
            })
            .filter(|node| {
                let pod = pod_for(set, text(node, "/metadata/name"), generation);
                node.pointer("/spec/taints")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .all(|taint| {
                        !matches!(text(taint, "/effect"), "NoSchedule" | "NoExecute")
                            || tolerates(&pod, taint)
                    })
            })
            .map(|node| text(node, "/metadata/name"))
            .collect();
        let owned: Vec<(&_, &Value)> = objects(state, Some(pods))
            .filter(|(k, pod)| k.0 == key.0 && controlled_by(pod, set) && pod_active(pod))
            .collect();
        let min_ready = int(set, "/spec/minReadySeconds", 0);
        let mut scheduled = 0;
        let mut ready = 0;
        let mut updated = 0;
        let mut ready_count = 0;
        let mut old = Vec::new();
        for node in &wanted {
            let on_node: Vec<_> = owned
                .iter()
                .filter(|(_, pod)| target(pod) == *node)
                .collect();
            let Some((pod_key, pod)) = on_node.first() else {
                actions.push(Action::Create {
                    index: pods,
                    namespace: key.0.clone(),
                    object: pod_for(set, node, generation),
                });
                continue;
            };
            scheduled += 1;
            ready_count += i64::from(pod_ready(pod));
            ready += i64::from(pod_available(pod, min_ready, now));
            let current = pod
                .pointer(&format!("/metadata/labels/{GENERATION}"))
                .and_then(Value::as_str)
                == Some(generation.to_string().as_str());
            if current {
                updated += 1;
            } else {
                old.push((*pod_key).clone());
            }
        }
        let desired = wanted.len() as i64;
        if ready == desired
            && let Some(first) = old.first()
        {
            actions.push(Action::Delete {
                index: pods,
                key: first.clone(),
            });
        }
        let mut object = (**set).clone();
        object["status"] = json!({
            "currentNumberScheduled": scheduled,
            "desiredNumberScheduled": desired,
            "numberMisscheduled": 0,
            "numberReady": ready_count,
            "numberAvailable": ready,
            "numberUnavailable": (desired - ready).max(0),
            "updatedNumberScheduled": updated,
            "observedGeneration": generation,
        });
        if let Some(status) = object["status"].as_object_mut() {
            for field in [
                "numberAvailable",
                "numberUnavailable",
                "updatedNumberScheduled",
            ] {
                if status.get(field).and_then(Value::as_i64) == Some(0) {
                    status.remove(field);
                }
            }
        }
        if object != **set {
            actions.push(Action::Write {
                index: sets,
                key: key.clone(),
                object,
            });
        }
    }
    actions
}

/// The node a DaemonSet's Pod is for: its `nodeName`, or the node its affinity names.
fn target(pod: &Value) -> &str {
    let name = text(pod, "/spec/nodeName");
    if !name.is_empty() {
        return name;
    }
    pod.pointer("/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchFields/0/values/0")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The Pod for `node` (`ReplaceDaemonSetPodNodeNameNodeAffinity`, `AddOrUpdateDaemonPodTolerations`).
fn pod_for(set: &Value, node: &str, generation: i64) -> Value {
    let mut pod = pod_from(set, "apps/v1", "DaemonSet");
    if !pod["metadata"]["labels"].is_object() {
        pod["metadata"]["labels"] = json!({});
    }
    pod["metadata"]["labels"][GENERATION] = Value::from(generation.to_string());
    let spec = &mut pod["spec"];
    if !spec["affinity"].is_object() {
        spec["affinity"] = json!({});
    }
    if !spec["affinity"]["nodeAffinity"].is_object() {
        spec["affinity"]["nodeAffinity"] = json!({});
    }
    spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json!({
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}],
    });
    let mut tolerations = spec["tolerations"].as_array().cloned().unwrap_or_default();
    for (key, effect) in [
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ] {
        if !tolerations
            .iter()
            .any(|t| text(t, "/key") == key && text(t, "/effect") == effect)
        {
            tolerations.push(json!({"key": key, "operator": "Exists", "effect": effect}));
        }
    }
    spec["tolerations"] = Value::from(tolerations);
    pod
}
