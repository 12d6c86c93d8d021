//! kube-controller-manager's StatefulSet controller (`stateful_set_control.go`): Pods named
//! `<set>-<ordinal>` (from `spec.ordinals.start`), each with the
//! `statefulset.kubernetes.io/pod-name`, `apps.kubernetes.io/pod-index` and
//! `controller-revision-hash` labels, its `hostname` and the set's `serviceName` as its
//! `subdomain`, and a PersistentVolumeClaim `<template>-<set>-<ordinal>` per
//! `volumeClaimTemplates` entry made before it; a ControllerRevision per Pod template
//! (`<set>-<hash>`, its `revision` one more than the newest); `OrderedReady` (one Pod at a
//! time, the next once the previous is Running and Ready; scaling down from the highest
//! ordinal, one at a time) or `Parallel`; `RollingUpdate` from the highest ordinal down to
//! the `partition`, a Pod at a time, each replaced once the ones above it are healthy; and
//! the status it writes (`replicas`, `readyReplicas`, `availableReplicas`,
//! `currentReplicas`, `updatedReplicas`, `currentRevision`, `updateRevision`,
//! `collisionCount`, `observedGeneration`).

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::controllers::simulation::{
    Action, Kinds, controlled_by, controller_ref, hashed_suffix, int, objects, pod_available,
    pod_from, pod_ready, text,
};
use crate::objects::store::{Key, State};

/// The label a Pod carries its ControllerRevision's name in.
const REVISION_HASH: &str = "controller-revision-hash";
/// The label a ControllerRevision carries its hash in.
const HASH: &str = "controller.kubernetes.io/hash";
const POD_NAME: &str = "statefulset.kubernetes.io/pod-name";
const POD_INDEX: &str = "apps.kubernetes.io/pod-index";

pub(crate) fn plan(state: &State, kinds: &Kinds, now: Timestamp) -> Vec<Action> {
    let (Some(sets), Some(pods), Some(revisions)) =
        (kinds.stateful_sets, kinds.pods, kinds.controller_revisions)
    else {
        return Vec::new();
    };
    let mut actions = Vec::new();
    for (key, set) in &state.objects[sets] {
        if set.pointer("/metadata/deletionTimestamp").is_some() {
            continue;
        }
        sync(
            state,
            kinds,
            (sets, pods, revisions),
            key,
            set,
            now,
            &mut actions,
        );
    }
    actions
}

/// One StatefulSet's sync (`updateStatefulSet`).
fn sync(
    state: &State,
    kinds: &Kinds,
    (sets, pods, revisions): (usize, usize, usize),
    key: &Key,
    set: &Value,
    now: Timestamp,
    actions: &mut Vec<Action>,
) {
    let name = text(set, "/metadata/name");
    let collisions = int(set, "/status/collisionCount", 0);

    // The revisions: the one of the current template (made, or moved to the newest
    // revision number when an older one matches it), and the one the Pods were made from.
    let owned_revisions: Vec<(&Key, &Value)> = objects(state, Some(revisions))
        .filter(|(k, r)| k.0 == key.0 && controlled_by(r, set))
        .collect();
    let newest = owned_revisions
        .iter()
        .map(|(_, r)| int(r, "/revision", 0))
        .max()
        .unwrap_or(0);
    let data = patch(set);
    let update = match owned_revisions
        .iter()
        .find(|(_, r)| r.get("data") == Some(&data))
    {
        Some((revision_key, revision)) => {
            if int(revision, "/revision", 0) < newest {
                let mut moved = (*revision).clone();
                moved["revision"] = Value::from(newest + 1);
                actions.push(Action::Write {
                    index: revisions,
                    key: (*revision_key).clone(),
                    object: moved,
                });
            }
            text(revision, "/metadata/name").to_owned()
        }
        None => {
            let hash = hashed_suffix(&format!("{data}{collisions}"), 10);
            let revision_name = format!("{name}-{hash}");
            actions.push(Action::Create {
                index: revisions,
                namespace: key.0.clone(),
                object: revision(set, &revision_name, &hash, data.clone(), newest + 1),
            });
            revision_name
        }
    };
    let current_name = text(set, "/status/currentRevision");
    let current = owned_revisions
        .iter()
        .find(|(_, r)| text(r, "/metadata/name") == current_name)
        .map_or_else(
            || (update.clone(), data.clone()),
            |(_, r)| {
                (
                    current_name.to_owned(),
                    r.get("data").cloned().unwrap_or(json!({})),
                )
            },
        );

    // The Pods, by ordinal.
    let start = int(set, "/spec/ordinals/start", 0).max(0);
    let replicas = int(set, "/spec/replicas", 1).max(0);
    let prefix = format!("{name}-");
    let owned: Vec<(i64, &Key, &Value)> = objects(state, Some(pods))
        .filter(|(k, pod)| k.0 == key.0 && controlled_by(pod, set))
        .filter_map(|(k, pod)| {
            let ordinal = k.1.strip_prefix(&prefix)?.parse::<i64>().ok()?;
            Some((ordinal, k, pod))
        })
        .collect();
    let at = |ordinal: i64| owned.iter().find(|(o, _, _)| *o == ordinal);
    let monotonic = text(set, "/spec/podManagementPolicy") != "Parallel";
    let rolling = text(set, "/spec/updateStrategy/type") != "OnDelete";
    let partition = int(set, "/spec/updateStrategy/rollingUpdate/partition", 0);
    let min_ready = int(set, "/spec/minReadySeconds", 0);
    let terminating = |pod: &Value| pod.pointer("/metadata/deletionTimestamp").is_some();
    let running_ready = |pod: &Value| text(pod, "/status/phase") == "Running" && pod_ready(pod);
    let finished = |pod: &Value| matches!(text(pod, "/status/phase"), "Succeeded" | "Failed");

    let mut blocked = false;
    for ordinal in start..start + replicas {
        match at(ordinal) {
            None => {
                let (revision_name, template) = if rolling && ordinal < partition {
                    (&current.0, &current.1)
                } else {
                    (&update, &data)
                };
                for claim in claims(set, ordinal) {
                    let claim_name = text(&claim, "/metadata/name").to_owned();
                    let exists = objects(state, kinds.persistent_volume_claims)
                        .any(|(k, _)| k.0 == key.0 && k.1 == claim_name);
                    if let (false, Some(index)) = (exists, kinds.persistent_volume_claims) {
                        actions.push(Action::Create {
                            index,
                            namespace: key.0.clone(),
                            object: claim,
                        });
                    }
                }
                actions.push(Action::Create {
                    index: pods,
                    namespace: key.0.clone(),
                    object: pod_for(set, ordinal, revision_name, template),
                });
                if monotonic {
                    blocked = true;
                    break;
                }
            }
            Some((_, pod_key, pod)) => {
                if finished(pod) && !terminating(pod) {
                    actions.push(Action::Delete {
                        index: pods,
                        key: (*pod_key).clone(),
                    });
                    if monotonic {
                        blocked = true;
                        break;
                    }
                } else if monotonic && (terminating(pod) || !running_ready(pod)) {
                    blocked = true;
                    break;
                }
            }
        }
    }
    if !blocked {
        // Scaling down: the highest ordinal first, one at a time when ordered.
        let mut condemned: Vec<_> = owned
            .iter()
            .filter(|(o, _, _)| *o < start || *o >= start + replicas)
            .collect();
        condemned.sort_by_key(|(o, _, _)| std::cmp::Reverse(*o));
        for (_, pod_key, pod) in condemned {
            if terminating(pod) {
                if monotonic {
                    blocked = true;
                    break;
                }
                continue;
            }
            actions.push(Action::Delete {
                index: pods,
                key: (*pod_key).clone(),
            });
            if monotonic {
                blocked = true;
                break;
            }
        }
    }
    if !blocked && rolling {
        // `RollingUpdate`: from the highest ordinal down to the partition, a Pod at a time.
        for ordinal in (start.max(partition)..start + replicas).rev() {
            let Some((_, pod_key, pod)) = at(ordinal) else {
                break;
            };
            if text(pod, &format!("/metadata/labels/{REVISION_HASH}")) != update
                && !terminating(pod)
            {
                actions.push(Action::Delete {
                    index: pods,
                    key: (*pod_key).clone(),
                });
                break;
            }
            if !running_ready(pod) || terminating(pod) {
                break;
            }
        }
    }

    // The status, of the Pods as this sync found them.
    let mut status = json!({
        "observedGeneration": int(set, "/metadata/generation", 1),
        "replicas": 0,
        "readyReplicas": 0,
        "currentReplicas": 0,
        "updatedReplicas": 0,
        "currentRevision": current.0,
        "updateRevision": update,
        "collisionCount": collisions,
        "availableReplicas": 0,
    });
    let mut count = |field: &str| {
        let n = status[field].as_i64().unwrap_or(0);
        status[field] = Value::from(n + 1);
    };
    for (_, _, pod) in &owned {
        if !text(pod, "/status/phase").is_empty() {
            count("replicas");
        }
        if running_ready(pod) {
            count("readyReplicas");
            if pod_available(pod, min_ready, now) {
                count("availableReplicas");
            }
        }
        if !text(pod, "/status/phase").is_empty() && !terminating(pod) {
            let revision = text(pod, &format!("/metadata/labels/{REVISION_HASH}"));
            if revision == current.0 {
                count("currentReplicas");
            }
            if revision == update {
                count("updatedReplicas");
            }
        }
    }
    // `completeRollingUpdate`: once every Pod is updated and ready, the update is current.
    if rolling
        && status["updatedReplicas"] == status["replicas"]
        && status["readyReplicas"] == status["replicas"]
    {
        status["currentRevision"] = Value::from(update.clone());
        status["currentReplicas"] = status["updatedReplicas"].clone();
    }
    if let Some(map) = status.as_object_mut() {
        for field in ["readyReplicas", "currentReplicas", "updatedReplicas"] {
            if map.get(field).and_then(Value::as_i64) == Some(0) {
                map.remove(field);
            }
        }
    }
    let mut object = set.clone();
    if let Some(conditions) = set.pointer("/status/conditions") {
        status["conditions"] = conditions.clone();
    }
    object["status"] = status;
    if object != *set {
        actions.push(Action::Write {
            index: sets,
            key: key.clone(),
            object,
        });
    }
}

/// What a ControllerRevision of the set holds (`getPatch`): its Pod template, to replace.
fn patch(set: &Value) -> Value {
    let mut template = set.pointer("/spec/template").cloned().unwrap_or(json!({}));
    if let Some(map) = template.as_object_mut() {
        map.insert("$patch".into(), Value::from("replace"));
    }
    json!({"spec": {"template": template}})
}

/// A new ControllerRevision (`history.NewControllerRevision`): the template's labels and
/// the hash, the set as its controller.
fn revision(set: &Value, name: &str, hash: &str, data: Value, number: i64) -> Value {
    let mut labels = set
        .pointer("/spec/template/metadata/labels")
        .cloned()
        .filter(Value::is_object)
        .unwrap_or(json!({}));
    labels[HASH] = Value::from(hash);
    json!({
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": name,
            "labels": labels,
            "ownerReferences": [controller_ref(set, "apps/v1", "StatefulSet")],
        },
        "data": data,
        "revision": number,
    })
}

/// The Pod of `ordinal` (`newVersionedStatefulSetPod`), from the revision's template.
fn pod_for(set: &Value, ordinal: i64, revision_name: &str, data: &Value) -> Value {
    let mut source = set.clone();
    if let Some(template) = data.pointer("/spec/template") {
        let mut template = template.clone();
        if let Some(map) = template.as_object_mut() {
            map.remove("$patch");
        }
        source["spec"]["template"] = template;
    }
    let mut pod = pod_from(&source, "apps/v1", "StatefulSet");
    let name = format!("{}-{ordinal}", text(set, "/metadata/name"));
    pod["metadata"]["name"] = Value::from(name.clone());
    if !pod["metadata"]["labels"].is_object() {
        pod["metadata"]["labels"] = json!({});
    }
    let labels = &mut pod["metadata"]["labels"];
    labels[POD_NAME] = Value::from(name.clone());
    labels[POD_INDEX] = Value::from(ordinal.to_string());
    labels[REVISION_HASH] = Value::from(revision_name);
    pod["spec"]["hostname"] = Value::from(name);
    let service = text(set, "/spec/serviceName");
    if !service.is_empty() {
        pod["spec"]["subdomain"] = Value::from(service);
    }
    // `updateStorage`: a volume per claim template, on the Pod's own claim, then the
    // template's other volumes.
    let mut volumes: Vec<Value> = claims(set, ordinal)
        .iter()
        .map(|claim| {
            json!({
                "name": claim_template_name(set, claim, ordinal),
                "persistentVolumeClaim": {"claimName": text(claim, "/metadata/name")},
            })
        })
        .collect();
    let own: Vec<String> = volumes
        .iter()
        .map(|v| text(v, "/name").to_owned())
        .collect();
    for volume in pod["spec"]["volumes"].as_array().into_iter().flatten() {
        if !own.iter().any(|n| n == text(volume, "/name")) {
            volumes.push(volume.clone());
        }
    }
    if !volumes.is_empty() {
        pod["spec"]["volumes"] = Value::from(volumes);
    }
    pod
}

/// The name of the template a claim was made from.
fn claim_template_name(set: &Value, claim: &Value, ordinal: i64) -> String {
    let suffix = format!("-{}-{ordinal}", text(set, "/metadata/name"));
    text(claim, "/metadata/name")
        .strip_suffix(&suffix)
        .unwrap_or("")
        .to_owned()
}

/// The PersistentVolumeClaims of `ordinal` (`getPersistentVolumeClaims`): each template
/// named `<template>-<set>-<ordinal>`, with the selector's `matchLabels` added to its
/// labels.
fn claims(set: &Value, ordinal: i64) -> Vec<Value> {
    let name = text(set, "/metadata/name");
    let selector = set
        .pointer("/spec/selector/matchLabels")
        .and_then(Value::as_object);
    set.pointer("/spec/volumeClaimTemplates")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|template| {
            let mut metadata = template.get("metadata").cloned().unwrap_or(json!({}));
            let claim_name = format!("{}-{name}-{ordinal}", text(template, "/metadata/name"));
            metadata["name"] = Value::from(claim_name);
            if let Some(map) = metadata.as_object_mut() {
                map.remove("namespace");
                map.remove("creationTimestamp");
            }
            if !metadata["labels"].is_object() {
                metadata["labels"] = json!({});
            }
            for (k, v) in selector.into_iter().flatten() {
                metadata["labels"][k] = v.clone();
            }
            json!({
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": metadata,
                "spec": template.get("spec").cloned().unwrap_or(json!({})),
            })
        })
        .collect()
}
