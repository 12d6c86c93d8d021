//! kube-controller-manager's ReplicaSet controller: as many active Pods as `spec.replicas`,
//! made from the template with the ReplicaSet as their controller (the ones being deleted
//! and the finished ones do not count), the surplus deleted (unscheduled first, then not
//! running, then not ready, then the newest); and the status it writes: `replicas`,
//! `fullyLabeledReplicas`, `readyReplicas`, `availableReplicas` (ready for
//! `minReadySeconds`), `terminatingReplicas`, `observedGeneration`.

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::controllers::simulation::events::{self, Recorded};
use crate::controllers::simulation::{
    Action, Kinds, controlled_by, int, objects, pod_active, pod_available, pod_from, pod_ready,
    record, selects, text,
};
use crate::objects::store::State;

pub(crate) fn plan(state: &State, kinds: &Kinds, now: Timestamp) -> Vec<Action> {
    let (Some(sets), Some(pods)) = (kinds.replica_sets, kinds.pods) else {
        return Vec::new();
    };
    let mut actions = Vec::new();
    for (key, set) in &state.objects[sets] {
        if set.pointer("/metadata/deletionTimestamp").is_some() {
            continue;
        }
        let owned: Vec<(&_, &Value)> = objects(state, Some(pods))
            .filter(|(k, pod)| {
                k.0 == key.0
                    && controlled_by(pod, set)
                    && selects(
                        set.pointer("/spec/selector"),
                        pod.pointer("/metadata/labels"),
                    )
            })
            .collect();
        let active: Vec<_> = owned.iter().filter(|(_, p)| pod_active(p)).collect();
        let wanted = int(set, "/spec/replicas", 1).max(0) as usize;
        if active.len() < wanted {
            for _ in active.len()..wanted {
                actions.push(Action::Create {
                    index: pods,
                    namespace: key.0.clone(),
                    object: pod_from(set, "apps/v1", "ReplicaSet"),
                });
            }
        } else if active.len() > wanted {
            let mut doomed = active.clone();
            doomed.sort_by_key(|(_, pod)| std::cmp::Reverse(deletion_rank(pod)));
            for (pod_key, _) in doomed.into_iter().take(active.len() - wanted) {
                actions.push(Action::Delete {
                    index: pods,
                    key: (*pod_key).clone(),
                });
                let event = Recorded {
                    involved: set,
                    field_path: None,
                    kind: "Normal",
                    reason: "SuccessfulDelete",
                    message: format!("Deleted pod: {}", pod_key.1),
                };
                actions.extend(record(
                    kinds,
                    &key.0,
                    events::legacy(&event, "replicaset-controller", None),
                ));
            }
        }
        let min_ready = int(set, "/spec/minReadySeconds", 0);
        let template_labels = set.pointer("/spec/template/metadata/labels");
        let labelled = active
            .iter()
            .filter(|(_, pod)| {
                template_labels
                    .and_then(Value::as_object)
                    .is_none_or(|wanted| {
                        wanted.iter().all(|(k, v)| {
                            pod.pointer("/metadata/labels").and_then(|l| l.get(k)) == Some(v)
                        })
                    })
            })
            .count();
        let ready = active.iter().filter(|(_, p)| pod_ready(p)).count();
        let available = active
            .iter()
            .filter(|(_, p)| pod_available(p, min_ready, now))
            .count();
        let terminating = owned
            .iter()
            .filter(|(_, p)| p.pointer("/metadata/deletionTimestamp").is_some())
            .count();
        let mut object = (**set).clone();
        let status = json!({
            "replicas": active.len(),
            "fullyLabeledReplicas": labelled,
            "readyReplicas": ready,
            "availableReplicas": available,
            "terminatingReplicas": terminating,
            "observedGeneration": int(set, "/metadata/generation", 1),
        });
        object["status"] = without_zeros(status);
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

/// The status as Go writes it: its `omitempty` counts are left out when 0 (`replicas` is
/// always written).
pub(crate) fn without_zeros(mut status: Value) -> Value {
    if let Some(map) = status.as_object_mut() {
        map.retain(|k, v| k == "replicas" || v.as_i64() != Some(0));
    }
    status
}

/// The order the controller deletes Pods in (`ActivePodsWithRanks`, simplified): higher
/// goes first.
fn deletion_rank(pod: &Value) -> (u8, u8, u8, String) {
    (
        u8::from(text(pod, "/spec/nodeName").is_empty()),
        u8::from(text(pod, "/status/phase") != "Running"),
        u8::from(!pod_ready(pod)),
        text(pod, "/metadata/creationTimestamp").to_owned(),
    )
}
