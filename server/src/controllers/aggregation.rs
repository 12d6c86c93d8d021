//! kube-controller-manager's `clusterrole-aggregation` controller
//! (`pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go`): a
//! ClusterRole with an `aggregationRule` gets the rules of every other ClusterRole its
//! selectors match, taken in name order, each rule once.

use std::collections::VecDeque;

use serde_json::Value;

use crate::controllers::queue::{Work, write};
use crate::objects::catalog::Catalog;
use crate::objects::select::LabelSelector;
use crate::objects::store::State;
use crate::semantics::rbac::GROUP;

/// The catalog index of ClusterRoles.
fn index(catalog: &Catalog) -> Option<usize> {
    catalog.find(GROUP, "v1", "clusterroles").map(|(i, _)| i)
}

/// Whether a change to resource `index` concerns aggregation.
pub(crate) fn watches(catalog: &Catalog, resource: usize) -> bool {
    index(catalog) == Some(resource)
}

/// Brings every aggregated ClusterRole's rules up to date.
pub(crate) fn sync(state: &mut State, catalog: &Catalog, queue: &mut VecDeque<Work>) {
    let Some(index) = index(catalog) else {
        return;
    };
    let aggregated: Vec<(String, Value)> = state.objects[index]
        .iter()
        .filter_map(|((_, name), role)| {
            role.get("aggregationRule")
                .filter(|rule| !rule.is_null())
                .map(|rule| (name.clone(), rule.clone()))
        })
        .collect();
    for (name, rule) in aggregated {
        let selectors: Vec<LabelSelector> = rule
            .get("clusterRoleSelectors")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|s| LabelSelector::parse(&selector_text(s)).ok())
            .collect();
        let mut rules: Vec<Value> = Vec::new();
        // The store keeps ClusterRoles in name order; a role two selectors match counts once
        // (its rules would be met twice and kept once anyway).
        for ((_, other), role) in &state.objects[index] {
            if *other == name {
                continue;
            }
            let labels = role.pointer("/metadata/labels");
            if !selectors.iter().any(|s| s.matches(labels)) {
                continue;
            }
            for rule in role
                .get("rules")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if !rules.contains(rule) {
                    rules.push(rule.clone());
                }
            }
        }
        let key = (String::new(), name);
        let Some(current) = state.objects[index].get(&key) else {
            continue;
        };
        let now: &[Value] = current
            .get("rules")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        if now == rules.as_slice() {
            continue;
        }
        let mut updated = (**current).clone();
        updated["rules"] = Value::Array(rules);
        write(state, catalog, index, &key, updated, queue);
    }
}

/// `metav1.LabelSelectorAsSelector` as selector text: `matchLabels` and `matchExpressions`.
fn selector_text(selector: &Value) -> String {
    let mut terms = Vec::new();
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
        for (key, value) in labels {
            terms.push(format!("{key}={}", value.as_str().unwrap_or("")));
        }
    }
    for expression in selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = expression.get("key").and_then(Value::as_str).unwrap_or("");
        let values: Vec<&str> = expression
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        match expression.get("operator").and_then(Value::as_str) {
            Some("In") => terms.push(format!("{key} in ({})", values.join(","))),
            Some("NotIn") => terms.push(format!("{key} notin ({})", values.join(","))),
            Some("Exists") => terms.push(key.to_owned()),
            Some("DoesNotExist") => terms.push(format!("!{key}")),
            _ => {}
        }
    }
    terms.join(",")
}
