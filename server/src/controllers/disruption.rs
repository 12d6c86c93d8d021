//! The disruption controller (`pkg/controller/disruption/disruption.go`): a
//! PodDisruptionBudget's status from the Pods it selects. `currentHealthy` counts the Ready
//! ones that are neither being deleted nor recorded in `disruptedPods`; `desiredHealthy` and
//! `expectedPods` come from `minAvailable` (an integer: that many of the Pods found) or from
//! the scale of the Pods' controllers (a percentage, or `maxUnavailable`: the `spec.replicas`
//! of each controller, a ReplicaSet's Deployment's when it has one; bare Pods count for
//! nothing there, as the controller's "unmanaged pods"); `disruptionsAllowed` is the
//! difference when Pods are expected, and the `DisruptionAllowed` condition follows it
//! (`component-helpers/apps/poddisruptionbudget`). It runs after every write to a Pod or a
//! PodDisruptionBudget, for the namespaces written.

use std::collections::{BTreeSet, VecDeque};

use serde_json::{Map, Value, json};

use crate::controllers::queue::{self, Work};
use crate::objects::catalog::Catalog;
use crate::objects::meta::now;
use crate::objects::store::State;

/// The catalog index of core/v1 Pods.
pub(crate) fn pods(catalog: &Catalog) -> Option<usize> {
    catalog.find("", "v1", "pods").map(|(i, _)| i)
}

/// The catalog index of policy/v1 PodDisruptionBudgets.
pub(crate) fn budgets(catalog: &Catalog) -> Option<usize> {
    catalog
        .find("policy", "v1", "poddisruptionbudgets")
        .map(|(i, _)| i)
}

/// Whether a write to resource `index` concerns the controller.
pub(crate) fn watches(catalog: &Catalog, index: usize) -> bool {
    Some(index) == pods(catalog) || Some(index) == budgets(catalog)
}

/// Brings the status of every PodDisruptionBudget in `namespaces` up to date.
pub(crate) fn sync(
    state: &mut State,
    catalog: &Catalog,
    namespaces: &BTreeSet<String>,
    queue: &mut VecDeque<Work>,
) {
    let (Some(pods), Some(budgets)) = (pods(catalog), budgets(catalog)) else {
        return;
    };
    for namespace in namespaces {
        let keys: Vec<_> = state.objects[budgets]
            .keys()
            .filter(|(ns, _)| ns == namespace)
            .cloned()
            .collect();
        for key in keys {
            let Some(pdb) = state.objects[budgets].get(&key).cloned() else {
                continue;
            };
            let selected: Vec<Value> = state.objects[pods]
                .iter()
                .filter(|((ns, _), pod)| {
                    ns == namespace && selects(pdb.pointer("/spec/selector"), pod)
                })
                .map(|(_, pod)| (**pod).clone())
                .collect();
            let status = status_of(state, &pdb, &selected);
            if pdb.get("status") == Some(&status) {
                continue;
            }
            let mut object = (*pdb).clone();
            object["status"] = status;
            queue::write(state, catalog, budgets, &key, object, queue);
        }
    }
}

/// The status the controller writes for `pdb` selecting `pods` (`updatePdbStatus`).
fn status_of(state: &State, pdb: &Value, pods: &[Value]) -> Value {
    let old = pdb.get("status");
    let generation = pdb
        .pointer("/metadata/generation")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    // `buildDisruptedPodMap`: an eviction's record stays while its Pod exists and is not
    // yet being deleted (the controller's two-minute timeout is not kept here).
    let mut disrupted = Map::new();
    if let Some(map) = old
        .and_then(|s| s.get("disruptedPods"))
        .and_then(Value::as_object)
    {
        for (name, at) in map {
            let pending = pods.iter().any(|p| {
                p.pointer("/metadata/name").and_then(Value::as_str) == Some(name)
                    && p.pointer("/metadata/deletionTimestamp").is_none()
            });
            if pending {
                disrupted.insert(name.clone(), at.clone());
            }
        }
    }
    let current = pods
        .iter()
        .filter(|p| {
            p.pointer("/metadata/deletionTimestamp").is_none()
                && !p
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| disrupted.contains_key(n))
                && is_ready(p)
        })
        .count() as i64;
    let (expected, desired) = expected_and_desired(state, pdb, pods);
    let allowed = if expected <= 0 {
        0
    } else {
        (current - desired).max(0)
    };
    let mut status = Map::new();
    if generation != 0 {
        status.insert("observedGeneration".into(), Value::from(generation));
    }
    if !disrupted.is_empty() {
        status.insert("disruptedPods".into(), Value::Object(disrupted));
    }
    status.insert("disruptionsAllowed".into(), Value::from(allowed));
    status.insert("currentHealthy".into(), Value::from(current));
    status.insert("desiredHealthy".into(), Value::from(desired));
    status.insert("expectedPods".into(), Value::from(expected));
    let conditions = old
        .and_then(|s| s.get("conditions"))
        .cloned()
        .unwrap_or_else(|| json!([]));
    let mut status = Value::Object(status);
    status["conditions"] = conditions;
    allowed_condition(&mut status);
    status
}

/// `UpdateDisruptionAllowedCondition`: `DisruptionAllowed` is `True` (`SufficientPods`)
/// while disruptions are allowed, `False` (`InsufficientPods`) otherwise; its transition
/// time changes only with its status (`meta.SetStatusCondition`).
pub(crate) fn allowed_condition(status: &mut Value) {
    let allowed = status
        .get("disruptionsAllowed")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let observed = status
        .get("observedGeneration")
        .cloned()
        .unwrap_or(Value::from(0));
    let (value, reason) = if allowed > 0 {
        ("True", "SufficientPods")
    } else {
        ("False", "InsufficientPods")
    };
    if !status.get("conditions").is_some_and(Value::is_array) {
        status["conditions"] = json!([]);
    }
    let Some(list) = status.get_mut("conditions").and_then(Value::as_array_mut) else {
        return;
    };
    let found = list
        .iter_mut()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("DisruptionAllowed"));
    match found {
        Some(condition) => {
            if condition.get("status").and_then(Value::as_str) != Some(value) {
                condition["status"] = Value::from(value);
                condition["lastTransitionTime"] = Value::from(now());
            }
            condition["reason"] = Value::from(reason);
            condition["observedGeneration"] = observed;
        }
        None => list.push(json!({
            "type": "DisruptionAllowed",
            "status": value,
            "observedGeneration": observed,
            "lastTransitionTime": now(),
            "reason": reason,
            "message": "",
        })),
    }
}

/// `getExpectedPodCount`: (`expectedPods`, `desiredHealthy`).
fn expected_and_desired(state: &State, pdb: &Value, pods: &[Value]) -> (i64, i64) {
    let spec = pdb.get("spec");
    if let Some(max) = spec.and_then(|s| s.get("maxUnavailable")) {
        let expected = expected_scale(state, pods);
        let desired = (expected - scaled(max, expected)).max(0);
        return (expected, desired);
    }
    match spec.and_then(|s| s.get("minAvailable")) {
        Some(Value::Number(n)) => (pods.len() as i64, n.as_i64().unwrap_or(0)),
        Some(percent @ Value::String(_)) => {
            let expected = expected_scale(state, pods);
            (expected, scaled(percent, expected))
        }
        _ => (0, 0),
    }
}

/// `getExpectedScale`: the sum of the `spec.replicas` of the Pods' controllers, each once.
fn expected_scale(state: &State, pods: &[Value]) -> i64 {
    let mut seen = BTreeSet::new();
    let mut total = 0;
    for pod in pods {
        let Some(mut owner) = controller_uid(pod).and_then(|uid| object(state, uid)) else {
            continue;
        };
        // A ReplicaSet a Deployment controls counts as the Deployment.
        if owner.get("kind").and_then(Value::as_str) == Some("ReplicaSet")
            && let Some(deployment) = controller_uid(&owner).and_then(|uid| object(state, uid))
        {
            owner = deployment;
        }
        let uid = owner
            .pointer("/metadata/uid")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if seen.insert(uid) {
            total += owner
                .pointer("/spec/replicas")
                .and_then(Value::as_i64)
                .unwrap_or(1);
        }
    }
    total
}

fn controller_uid(object: &Value) -> Option<&str> {
    object
        .pointer("/metadata/ownerReferences")?
        .as_array()?
        .iter()
        .find(|r| r.get("controller").and_then(Value::as_bool) == Some(true))?
        .get("uid")?
        .as_str()
}

fn object(state: &State, uid: &str) -> Option<Value> {
    let (index, key) = state.uids.get(uid)?;
    state.objects[*index].get(key).map(|o| (**o).clone())
}

/// `intstr.GetScaledValueFromIntOrPercent` rounding up.
fn scaled(value: &Value, total: i64) -> i64 {
    match value {
        Value::Number(n) => n.as_i64().unwrap_or(0),
        Value::String(text) => text
            .strip_suffix('%')
            .and_then(|p| p.parse::<i64>().ok())
            .map_or(0, |p| (p * total + 99) / 100),
        _ => 0,
    }
}

/// `podutil.IsPodReady`: the `Ready` condition is `True`.
pub(crate) fn is_ready(pod: &Value) -> bool {
    pod.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|list| {
            list.iter().any(|c| {
                c.get("type").and_then(Value::as_str) == Some("Ready")
                    && c.get("status").and_then(Value::as_str) == Some("True")
            })
        })
}

/// Whether a PodDisruptionBudget's `selector` (a `metav1.LabelSelector`) selects `pod`;
/// an absent or empty selector selects nothing, an invalid one nothing either.
pub(crate) fn selects(selector: Option<&Value>, pod: &Value) -> bool {
    let Some(selector) = selector.and_then(Value::as_object) else {
        return false;
    };
    let labels = pod.pointer("/metadata/labels").and_then(Value::as_object);
    let label = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
    let match_labels = selector.get("matchLabels").and_then(Value::as_object);
    let expressions = selector.get("matchExpressions").and_then(Value::as_array);
    if match_labels.is_none_or(Map::is_empty) && expressions.is_none_or(Vec::is_empty) {
        return false;
    }
    let labels_match = match_labels
        .into_iter()
        .flatten()
        .all(|(key, value)| label(key) == value.as_str());
    let expressions_match = expressions.into_iter().flatten().all(|expression| {
        let key = expression.get("key").and_then(Value::as_str).unwrap_or("");
        let values: Vec<&str> = expression
            .get("values")
            .and_then(Value::as_array)
            .map(|v| v.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        match expression.get("operator").and_then(Value::as_str) {
            Some("In") => label(key).is_some_and(|v| values.contains(&v)),
            Some("NotIn") => label(key).is_none_or(|v| !values.contains(&v)),
            Some("Exists") => label(key).is_some(),
            Some("DoesNotExist") => label(key).is_none(),
            _ => false,
        }
    });
    labels_match && expressions_match
}
