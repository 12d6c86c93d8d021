//! kube-scheduler's filters, in its order, for the Pods of the default scheduler that have
//! no node yet: `NodeUnschedulable`, `TaintToleration` (`NoSchedule` and `NoExecute`
//! taints), `NodeAffinity` (`nodeSelector` and the required terms of node affinity) and
//! `NodeResourcesFit` (requests against what the node's other Pods leave of its
//! allocatable). A Pod that fits is bound to the fitting node with the fewest Pods; one
//! that fits nowhere gets `PodScheduled=False` with the reason `Unschedulable` and the
//! message the scheduler writes (`FitError.Error`).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::controllers::simulation::events::{self, Recorded};
use crate::controllers::simulation::{
    Action, Kinds, objects, record, requirement, set_condition, text, tolerates,
};
use crate::objects::store::State;

/// Why a node does not fit, as the scheduler's plugins say it, and whether preemption
/// could help (it cannot for the `UnschedulableAndUnresolvable` ones).
struct Misfit {
    reason: String,
    resolvable: bool,
}

/// What a node has left for Pods, in thousandths of each resource.
struct Room {
    name: String,
    node: Value,
    free: BTreeMap<String, i64>,
    pods: i64,
}

pub(crate) fn plan(state: &State, kinds: &Kinds, now: &str) -> Vec<Action> {
    let (Some(pods), Some(nodes)) = (kinds.pods, kinds.nodes) else {
        return Vec::new();
    };
    let waiting: Vec<_> = state.objects[pods]
        .iter()
        .filter(|(_, pod)| waits(pod))
        .collect();
    if waiting.is_empty() {
        return Vec::new();
    }
    let mut rooms: Vec<Room> = state.objects[nodes]
        .values()
        .map(|node| Room {
            name: text(node, "/metadata/name").to_owned(),
            node: (**node).clone(),
            free: quantities(node.pointer("/status/allocatable")),
            pods: 0,
        })
        .collect();
    for (_, pod) in objects(state, Some(pods)) {
        let node = text(pod, "/spec/nodeName");
        let phase = text(pod, "/status/phase");
        if node.is_empty() || phase == "Succeeded" || phase == "Failed" {
            continue;
        }
        if let Some(room) = rooms.iter_mut().find(|r| r.name == node) {
            take(room, &requests(pod));
        }
    }
    let mut actions = Vec::new();
    for (key, pod) in waiting {
        let wanted = requests(pod);
        let mut misfits = Vec::new();
        let mut best: Option<usize> = None;
        for (i, room) in rooms.iter().enumerate() {
            match fits(pod, room, &wanted) {
                Ok(()) => {
                    if best.is_none_or(|b| rooms[b].pods > room.pods) {
                        best = Some(i);
                    }
                }
                Err(misfit) => misfits.push(misfit),
            }
        }
        match best {
            Some(i) => {
                take(&mut rooms[i], &wanted);
                actions.push(Action::Bind {
                    key: key.clone(),
                    node: rooms[i].name.clone(),
                });
            }
            None => {
                let mut object = (**pod).clone();
                set_condition(
                    &mut object,
                    json!({
                        "type": "PodScheduled",
                        "status": "False",
                        "lastProbeTime": null,
                        "reason": "Unschedulable",
                        "message": message(rooms.len(), &misfits),
                    }),
                    now,
                );
                if object != **pod {
                    let event = Recorded {
                        involved: pod,
                        field_path: None,
                        kind: "Warning",
                        reason: "FailedScheduling",
                        message: message(rooms.len(), &misfits),
                    };
                    actions.extend(record(
                        kinds,
                        &key.0,
                        events::scheduler(&event, "Scheduling"),
                    ));
                    actions.push(Action::Write {
                        index: pods,
                        key: key.clone(),
                        object,
                    });
                }
            }
        }
    }
    actions
}

/// Whether the default scheduler should place the Pod now.
fn waits(pod: &Value) -> bool {
    text(pod, "/spec/nodeName").is_empty()
        && pod.pointer("/metadata/deletionTimestamp").is_none()
        && matches!(text(pod, "/spec/schedulerName"), "" | "default-scheduler")
        && pod
            .pointer("/spec/schedulingGates")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty)
        && !matches!(text(pod, "/status/phase"), "Succeeded" | "Failed")
}

/// `FitError.Error`: the nodes' reasons counted and sorted, then what preemption found.
fn message(nodes: usize, misfits: &[Misfit]) -> String {
    if nodes == 0 {
        return "no nodes available to schedule pods".to_owned();
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for misfit in misfits {
        *counts.entry(&misfit.reason).or_default() += 1;
    }
    let mut reasons: Vec<String> = counts.iter().map(|(r, n)| format!("{n} {r}")).collect();
    reasons.sort();
    let resolvable = misfits.iter().filter(|m| m.resolvable).count();
    let unresolvable = misfits.len() - resolvable;
    let mut preemption = Vec::new();
    if resolvable > 0 {
        preemption.push(format!(
            "{resolvable} No preemption victims found for incoming pod"
        ));
    }
    if unresolvable > 0 {
        preemption.push(format!(
            "{unresolvable} Preemption is not helpful for scheduling"
        ));
    }
    // Preemption's `FitError` sorts its reasons too.
    preemption.sort();
    format!(
        "0/{nodes} nodes are available: {}. preemption: 0/{nodes} nodes are available: {}.",
        reasons.join(", "),
        preemption.join(", ")
    )
}

fn fits(pod: &Value, room: &Room, wanted: &BTreeMap<String, i64>) -> Result<(), Misfit> {
    let unresolvable = |reason: &str| Misfit {
        reason: reason.to_owned(),
        resolvable: false,
    };
    let node = &room.node;
    if node.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true)
        && !tolerates(
            pod,
            &json!({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}),
        )
    {
        return Err(unresolvable("node(s) were unschedulable"));
    }
    // A node that is not Ready has the taint the node lifecycle controller gives it
    // (`TaintNodesByCondition`): a Node the test made itself gets no Pods unless they
    // tolerate it.
    let ready = node
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|c| {
            c.iter()
                .any(|c| text(c, "/type") == "Ready" && text(c, "/status") == "True")
        });
    if !ready
        && !tolerates(
            pod,
            &json!({"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}),
        )
    {
        return Err(unresolvable("node(s) had untolerated taint(s)"));
    }
    let taints = node.pointer("/spec/taints").and_then(Value::as_array);
    if taints.is_some_and(|taints| {
        taints.iter().any(|taint| {
            matches!(text(taint, "/effect"), "NoSchedule" | "NoExecute") && !tolerates(pod, taint)
        })
    }) {
        return Err(unresolvable("node(s) had untolerated taint(s)"));
    }
    if !affinity_matches(pod, node) {
        return Err(unresolvable(
            "node(s) didn't match Pod's node affinity/selector",
        ));
    }
    if room.free.get("pods").is_some_and(|free| *free < 1000) {
        return Err(Misfit {
            reason: "Too many pods".to_owned(),
            resolvable: true,
        });
    }
    for (resource, amount) in wanted {
        if *amount > 0 && room.free.get(resource).copied().unwrap_or(0) < *amount {
            return Err(Misfit {
                reason: format!("Insufficient {resource}"),
                resolvable: true,
            });
        }
    }
    Ok(())
}

/// `nodeSelector` and `requiredDuringSchedulingIgnoredDuringExecution`'s terms (any term,
/// every expression of it).
fn affinity_matches(pod: &Value, node: &Value) -> bool {
    let labels = node.pointer("/metadata/labels");
    let label = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
    let selector_ok = pod
        .pointer("/spec/nodeSelector")
        .and_then(Value::as_object)
        .is_none_or(|wanted| wanted.iter().all(|(k, v)| label(k) == v.as_str()));
    let name = text(node, "/metadata/name");
    let field = |key: &str| (key == "metadata.name").then_some(name);
    let terms = pod
        .pointer("/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms")
        .and_then(Value::as_array);
    let terms_ok = terms.is_none_or(|terms| {
        terms.iter().any(|term| {
            let expressions = term.get("matchExpressions").and_then(Value::as_array);
            let fields = term.get("matchFields").and_then(Value::as_array);
            // A term with no requirements matches nothing.
            (expressions.is_some_and(|e| !e.is_empty()) || fields.is_some_and(|f| !f.is_empty()))
                && expressions.is_none_or(|e| e.iter().all(|e| requirement(e, &label)))
                && fields.is_none_or(|f| f.iter().all(|e| requirement(e, &field)))
        })
    });
    selector_ok && terms_ok
}

/// The Pod's requests (`resource.PodRequests`): its containers' sum, or its largest init
/// container's when larger, plus its overhead; and one `pods`.
fn requests(pod: &Value) -> BTreeMap<String, i64> {
    let sum = |pointer: &str| {
        let mut total = BTreeMap::new();
        for container in pod
            .pointer(pointer)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for (resource, amount) in quantities(container.pointer("/resources/requests")) {
                *total.entry(resource).or_insert(0) += amount;
            }
        }
        total
    };
    let mut total = sum("/spec/containers");
    for container in pod
        .pointer("/spec/initContainers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for (resource, amount) in quantities(container.pointer("/resources/requests")) {
            let entry = total.entry(resource).or_insert(0);
            *entry = (*entry).max(amount);
        }
    }
    for (resource, amount) in quantities(pod.pointer("/spec/overhead")) {
        *total.entry(resource).or_insert(0) += amount;
    }
    total.insert("pods".to_owned(), 1000);
    total
}

fn take(room: &mut Room, wanted: &BTreeMap<String, i64>) {
    for (resource, amount) in wanted {
        if let Some(free) = room.free.get_mut(resource) {
            *free -= amount;
        }
    }
    room.pods += 1;
}

/// A map of quantities, in thousandths.
fn quantities(map: Option<&Value>) -> BTreeMap<String, i64> {
    map.and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| {
            let q = kubeforge_runtime::Quantity::parse(v.as_str()?).ok()?;
            Some((k.clone(), q.milli_value()?))
        })
        .collect()
}
