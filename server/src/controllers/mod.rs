//! The control loops a real cluster runs beside the API server and whose effects a client of
//! the API sees: the garbage collector (`gc`), the namespace controller (`namespaces`) and
//! the disruption controller (`disruption`, a PodDisruptionBudget's status), one file each;
//! none imports another. What they share is the work queue (`queue`): what
//! happened to the store, and the update and delete every controller writes with.
//!
//! Here they run in the request that caused the work, under the store's lock, until nothing
//! is left to do, so a client that deletes an owner finds its dependents gone when the
//! response arrives (on a real cluster this happens moments later). Every change they make
//! is an ordinary write: a new resource version and a watch event.

pub(crate) mod disruption;
pub(crate) mod gc;
pub(crate) mod namespaces;
pub(crate) mod queue;

use std::collections::{BTreeSet, VecDeque};

use serde_json::Value;

use crate::controllers::queue::Work;
use crate::objects::catalog::Catalog;
use crate::objects::store::State;

/// Runs the controllers until they have nothing left to do.
pub(crate) fn settle(state: &mut State, catalog: &Catalog, work: Vec<Work>) {
    let mut queue: VecDeque<Work> = work.into();
    // Every step either removes an object, removes a finalizer or an owner reference, or
    // marks an object deleted, so the loop ends; the bound is a guard against a bug.
    let mut budget = 1_000_000usize;
    // The namespaces whose Pods or PodDisruptionBudgets changed, for the disruption
    // controller once the others are done.
    let mut disrupted = BTreeSet::new();
    loop {
        let Some(item) = queue.pop_front() else {
            if disrupted.is_empty() {
                break;
            }
            disruption::sync(state, catalog, &std::mem::take(&mut disrupted), &mut queue);
            continue;
        };
        budget = budget.saturating_sub(1);
        if budget == 0 {
            break;
        }
        let concerns_budgets = match &item {
            Work::Written(index, key) | Work::Marked(index, key) => {
                disruption::watches(catalog, *index).then(|| key.0.clone())
            }
            Work::Removed(index, object) => disruption::watches(catalog, *index).then(|| {
                object
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned()
            }),
        };
        // Its own status writes bring it back once, to find nothing left to change.
        if let Some(namespace) = concerns_budgets {
            disrupted.insert(namespace);
        }
        match item {
            Work::Written(index, key) => {
                gc::written(state, catalog, index, &key, &mut queue);
                namespaces::content_changed(state, catalog, &key.0, &mut queue);
            }
            Work::Marked(index, key) => {
                gc::marked(state, catalog, index, &key, &mut queue);
                namespaces::marked(state, catalog, index, &key, &mut queue);
            }
            Work::Removed(index, object) => {
                gc::removed(state, catalog, &object, &mut queue);
                let namespace = object
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                namespaces::content_changed(state, catalog, namespace, &mut queue);
                let _ = index;
            }
        }
    }
}
