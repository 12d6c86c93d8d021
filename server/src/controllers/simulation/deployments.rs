//! kube-controller-manager's Deployment controller: a ReplicaSet per Pod template (named
//! after the Deployment and a hash of the template, labelled and selected with it as
//! `pod-template-hash`, with the `deployment.kubernetes.io/revision` annotation), scaled
//! by the strategy: `Recreate` (the old ones to 0, then the new one up) or
//! `RollingUpdate` (`rolloutRolling`: the new one up within `maxSurge`, the old ones down
//! within `maxUnavailable`, unhealthy Pods first); and the status it writes (the Pods'
//! counts, `observedGeneration`, the `Available` and `Progressing` conditions).

use jiff::Timestamp;
use kubeforge_runtime::schema::gofmt::quote;
use serde_json::{Map, Value, json};

use crate::controllers::simulation::events::{self, Recorded};
use crate::controllers::simulation::{
    Action, Kinds, controlled_by, controller_ref, hashed_suffix, int, objects, record,
    set_condition, text,
};
use crate::objects::clock;
use crate::objects::store::{Key, State};

const REVISION: &str = "deployment.kubernetes.io/revision";
const HASH: &str = "pod-template-hash";

/// A ReplicaSet of the Deployment, as this step sees it.
struct Set {
    key: Option<Key>,
    object: Value,
    replicas: i64,
    changed: bool,
}

impl Set {
    fn available(&self) -> i64 {
        int(&self.object, "/status/availableReplicas", 0)
    }
    fn created(&self) -> &str {
        text(&self.object, "/metadata/creationTimestamp")
    }
}

pub(crate) fn plan(state: &State, kinds: &Kinds, now: Timestamp) -> Vec<Action> {
    let (Some(deployments), Some(sets)) = (kinds.deployments, kinds.replica_sets) else {
        return Vec::new();
    };
    let time = clock::format(now);
    let mut actions = Vec::new();
    for (key, deployment) in &state.objects[deployments] {
        if deployment.pointer("/metadata/deletionTimestamp").is_some() {
            continue;
        }
        let mut owned: Vec<Set> = objects(state, Some(sets))
            .filter(|(k, rs)| k.0 == key.0 && controlled_by(rs, deployment))
            .map(|(k, rs)| Set {
                key: Some(k.clone()),
                object: rs.clone(),
                replicas: int(rs, "/spec/replicas", 1),
                changed: false,
            })
            .collect();
        owned.sort_by(|a, b| a.created().cmp(b.created()));
        let desired = int(deployment, "/spec/replicas", 1).max(0);
        let (surge, unavailable) = limits(deployment, desired);
        let hash = template_hash(deployment);
        let name = format!("{}-{hash}", text(deployment, "/metadata/name"));
        let max_revision = owned
            .iter()
            .filter_map(|s| revision(&s.object))
            .max()
            .unwrap_or(0);
        let position = owned
            .iter()
            .position(|s| text(&s.object, "/metadata/name") == name);
        let created = position.is_none();
        let new = match position {
            Some(i) => i,
            None => {
                owned.push(Set {
                    key: None,
                    object: new_set(deployment, &name, &hash, max_revision + 1),
                    replicas: 0,
                    changed: true,
                });
                owned.len() - 1
            }
        };
        if revision(&owned[new].object).unwrap_or(0) < max_revision {
            // A rollback to an earlier template: it becomes the newest revision.
            annotate(
                &mut owned[new].object,
                REVISION,
                &(max_revision + 1).to_string(),
            );
            owned[new].changed = true;
        }
        let paused = deployment.pointer("/spec/paused").and_then(Value::as_bool) == Some(true);
        if !paused {
            if text(deployment, "/spec/strategy/type") == "Recreate" {
                recreate(&mut owned, new, desired);
            } else {
                rolling(&mut owned, new, desired, surge, unavailable);
            }
        }
        let revision_text = revision(&owned[new].object).unwrap_or(1).to_string();
        for set in &mut owned {
            let before = if set.key.is_none() {
                0
            } else {
                int(&set.object, "/spec/replicas", 1)
            };
            if set.replicas != before && (set.key.is_some() || set.replicas > 0) {
                // `scaleReplicaSet`, and `getNewReplicaSet` for a new one.
                let direction = if set.replicas > before { "up" } else { "down" };
                let event = Recorded {
                    involved: deployment,
                    field_path: None,
                    kind: "Normal",
                    reason: "ScalingReplicaSet",
                    message: format!(
                        "Scaled {direction} replica set {} from {before} to {}",
                        text(&set.object, "/metadata/name"),
                        set.replicas
                    ),
                };
                actions.extend(record(
                    kinds,
                    &key.0,
                    events::legacy(&event, "deployment-controller", None),
                ));
            }
            if set.replicas != int(&set.object, "/spec/replicas", 1) || set.key.is_none() {
                set.object["spec"]["replicas"] = Value::from(set.replicas);
                set.changed = true;
            }
            if text(
                &set.object,
                "/metadata/annotations/deployment.kubernetes.io~1desired-replicas",
            ) != desired.to_string()
            {
                annotate(
                    &mut set.object,
                    "deployment.kubernetes.io/desired-replicas",
                    &desired.to_string(),
                );
                annotate(
                    &mut set.object,
                    "deployment.kubernetes.io/max-replicas",
                    &(desired + surge).to_string(),
                );
                set.changed = true;
            }
        }
        let status = status(
            deployment,
            &owned,
            new,
            desired,
            unavailable,
            created,
            &time,
        );
        for set in owned.into_iter().filter(|s| s.changed) {
            match set.key {
                Some(key) => actions.push(Action::Write {
                    index: sets,
                    key,
                    object: set.object,
                }),
                None => actions.push(Action::Create {
                    index: sets,
                    namespace: key.0.clone(),
                    object: set.object,
                }),
            }
        }
        let mut object = (**deployment).clone();
        annotate(&mut object, REVISION, &revision_text);
        object["status"] = status;
        if object != **deployment {
            actions.push(Action::Write {
                index: deployments,
                key: key.clone(),
                object,
            });
        }
    }
    actions
}

/// `maxSurge` (rounded up) and `maxUnavailable` (rounded down) of a rolling update, 25%
/// each by default; both 0 is made 1 unavailable (`ResolveFenceposts`).
fn limits(deployment: &Value, desired: i64) -> (i64, i64) {
    let resolve = |field: &str, up: bool| {
        let value = deployment.pointer(&format!("/spec/strategy/rollingUpdate/{field}"));
        match value {
            Some(Value::Number(n)) => n.as_i64().unwrap_or(0),
            Some(Value::String(s)) if s.ends_with('%') => {
                let percent: i64 = s.trim_end_matches('%').parse().unwrap_or(25);
                let scaled = percent * desired;
                if up {
                    (scaled + 99) / 100
                } else {
                    scaled / 100
                }
            }
            Some(Value::String(s)) => s.parse().unwrap_or(0),
            _ => {
                let scaled = 25 * desired;
                if up {
                    (scaled + 99) / 100
                } else {
                    scaled / 100
                }
            }
        }
    };
    if text(deployment, "/spec/strategy/type") == "Recreate" {
        return (0, 0);
    }
    let surge = resolve("maxSurge", true);
    let unavailable = resolve("maxUnavailable", false);
    if surge == 0 && unavailable == 0 {
        (0, 1)
    } else {
        (surge, unavailable)
    }
}

fn recreate(sets: &mut [Set], new: usize, desired: i64) {
    let old_running = sets
        .iter()
        .enumerate()
        .any(|(i, s)| i != new && (s.replicas > 0 || int(&s.object, "/status/replicas", 0) > 0));
    for (i, set) in sets.iter_mut().enumerate() {
        if i != new {
            set.replicas = 0;
        }
    }
    if !old_running {
        sets[new].replicas = desired;
    }
}

fn rolling(sets: &mut [Set], new: usize, desired: i64, surge: i64, unavailable: i64) {
    let olds_left = sets
        .iter()
        .enumerate()
        .any(|(i, s)| i != new && s.replicas > 0);
    // Scale the new ReplicaSet up within the surge (`NewRSNewReplicas`).
    if !olds_left {
        sets[new].replicas = desired;
    } else if sets[new].replicas < desired {
        let total: i64 = sets.iter().map(|s| s.replicas).sum();
        let room = desired + surge - total;
        if room > 0 {
            sets[new].replicas += room.min(desired - sets[new].replicas);
        }
    } else {
        sets[new].replicas = desired;
    }
    // Scale the old ones down within what may be unavailable (`reconcileOldReplicaSets`).
    let min_available = desired - unavailable;
    let all: i64 = sets.iter().map(|s| s.replicas).sum();
    let new_unavailable = sets[new].replicas - sets[new].available();
    let mut budget = all - min_available - new_unavailable;
    if budget <= 0 {
        return;
    }
    // First the old ones' Pods that are not available (`cleanupUnhealthyReplicas`).
    for (i, set) in sets.iter_mut().enumerate() {
        if i == new || budget <= 0 {
            continue;
        }
        let unhealthy = (set.replicas - set.available()).max(0).min(budget);
        set.replicas -= unhealthy;
        budget -= unhealthy;
    }
    // Then available ones, down to the minimum available.
    let available: i64 = sets.iter().map(|s| s.available().min(s.replicas)).sum();
    let mut over = available - min_available;
    for (i, set) in sets.iter_mut().enumerate() {
        if i == new || over <= 0 {
            continue;
        }
        let down = set.replicas.min(over);
        set.replicas -= down;
        over -= down;
    }
}

#[allow(clippy::too_many_arguments)]
fn status(
    deployment: &Value,
    sets: &[Set],
    new: usize,
    desired: i64,
    unavailable: i64,
    created: bool,
    now: &str,
) -> Value {
    let sum = |field: &str| -> i64 {
        sets.iter()
            .map(|s| int(&s.object, &format!("/status/{field}"), 0))
            .sum()
    };
    let replicas = sum("replicas");
    let updated = int(&sets[new].object, "/status/replicas", 0);
    let ready = sum("readyReplicas");
    let available = sum("availableReplicas");
    let total: i64 = sets.iter().map(|s| s.replicas).sum();
    let generation = int(deployment, "/metadata/generation", 1);
    let mut holder = json!({"status": deployment.get("status").cloned().unwrap_or(json!({}))});
    let mut fields = Map::new();
    fields.insert("observedGeneration".into(), generation.into());
    for (name, value) in [
        ("replicas", replicas),
        ("updatedReplicas", updated),
        ("readyReplicas", ready),
        ("availableReplicas", available),
        ("unavailableReplicas", (total - available).max(0)),
    ] {
        if value != 0 {
            fields.insert(name.into(), value.into());
        }
    }
    let (status, reason, message) = if available >= desired - unavailable {
        (
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
        )
    } else {
        (
            "False",
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.",
        )
    };
    set_condition(
        &mut holder,
        json!({"type": "Available", "status": status, "lastUpdateTime": now, "reason": reason, "message": message}),
        now,
    );
    let name = text(&sets[new].object, "/metadata/name");
    let complete = updated == desired && replicas == desired && available == desired;
    let (reason, message) = if created {
        (
            "NewReplicaSetCreated",
            format!("Created new replica set {}", quote(name)),
        )
    } else if complete {
        (
            "NewReplicaSetAvailable",
            format!("ReplicaSet {} has successfully progressed.", quote(name)),
        )
    } else {
        (
            "ReplicaSetUpdated",
            format!("ReplicaSet {} is progressing.", quote(name)),
        )
    };
    set_condition(
        &mut holder,
        json!({"type": "Progressing", "status": "True", "lastUpdateTime": now, "reason": reason, "message": message}),
        now,
    );
    if let Some(conditions) = holder.pointer("/status/conditions") {
        fields.insert("conditions".into(), conditions.clone());
    }
    Value::Object(fields)
}

fn revision(set: &Value) -> Option<i64> {
    set.pointer("/metadata/annotations")
        .and_then(|a| a.get(REVISION))
        .and_then(Value::as_str)
        .and_then(|r| r.parse().ok())
}

fn annotate(object: &mut Value, name: &str, value: &str) {
    let annotations = &mut object["metadata"]["annotations"];
    if !annotations.is_object() {
        *annotations = json!({});
    }
    annotations[name] = Value::from(value);
}

/// The hash of the Pod template that names the new ReplicaSet (`ComputeHash`'s role; the
/// value differs from Go's).
fn template_hash(deployment: &Value) -> String {
    let template = deployment
        .pointer("/spec/template")
        .cloned()
        .unwrap_or(Value::Null);
    let collisions = int(deployment, "/status/collisionCount", 0);
    hashed_suffix(&format!("{template}{collisions}"), 10)
}

fn new_set(deployment: &Value, name: &str, hash: &str, revision: i64) -> Value {
    let mut template = deployment
        .pointer("/spec/template")
        .cloned()
        .unwrap_or(json!({}));
    template["metadata"]["labels"][HASH] = Value::from(hash);
    let mut selector = deployment
        .pointer("/spec/selector")
        .cloned()
        .unwrap_or(json!({}));
    selector["matchLabels"][HASH] = Value::from(hash);
    let mut labels = template["metadata"]["labels"].clone();
    labels[HASH] = Value::from(hash);
    json!({
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "labels": labels,
            "annotations": {REVISION: revision.to_string()},
            "ownerReferences": [controller_ref(deployment, "apps/v1", "Deployment")],
        },
        "spec": {
            "replicas": 0,
            "minReadySeconds": int(deployment, "/spec/minReadySeconds", 0),
            "selector": selector,
            "template": template,
        },
    })
}
