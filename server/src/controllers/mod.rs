//! The control loops a real cluster runs beside the API server and whose effects a client of
//! the API sees, one file each; none imports another. The garbage collector (`gc`), the
//! namespace controller (`namespaces`), the disruption controller (`disruption`, a
//! PodDisruptionBudget's status) and the apiextensions controllers (`crds`); the API
//! server's own `kubernetesservice` controller (`kubernetes_service`: the
//! `default/kubernetes` Service and its endpoints) and RBAC bootstrap policy
//! (`bootstrap_policy`); kube-controller-manager's `clusterrole-aggregation`
//! (`aggregation`), `serviceaccount` (`service_accounts`)
//! and `root-ca-cert-publisher` (`root_ca`) controllers. What they share is the work queue
//! (`queue`): what happened to the store, and the create, update and delete every
//! controller writes with; and `cluster`, what they know beyond the store (the certificate
//! authority, the server's address).
//!
//! Here they run in the request that caused the work, under the store's lock, until nothing
//! is left to do, so a client that deletes an owner finds its dependents gone when the
//! response arrives (on a real cluster this happens moments later). Every change they make
//! is an ordinary write: a new resource version and a watch event. [`start`] runs them once
//! on the objects a server starts with, as a new cluster's do.

pub(crate) mod aggregation;
pub(crate) mod bootstrap_policy;
pub(crate) mod cluster;
#[cfg(feature = "model")]
pub(crate) mod crds;
pub(crate) mod disruption;
pub(crate) mod gc;
pub(crate) mod kubernetes_service;
pub(crate) mod namespaces;
pub(crate) mod queue;
pub(crate) mod root_ca;
pub(crate) mod service_accounts;
pub(crate) mod simulation;

use std::collections::{BTreeSet, VecDeque};
use std::net::SocketAddr;

use serde_json::Value;

use crate::controllers::cluster::Cluster;
use crate::controllers::queue::Work;
use crate::objects::catalog::Catalog;
use crate::objects::store::State;
use crate::semantics::namespaces::{index as namespaces_index, is_namespaces};

/// Runs the controllers once on the store a server starts with (its namespaces), as a new
/// cluster's controllers do when they start: the `kubernetes` Service and its endpoints,
/// the bootstrap roles, and each namespace's ServiceAccount and CA ConfigMap.
pub(crate) fn start(state: &mut State, catalog: &Catalog, cluster: &Cluster) {
    let mut work = VecDeque::new();
    kubernetes_service::reconcile(state, catalog, cluster, &mut work);
    bootstrap_policy::reconcile(state, catalog, &mut work);
    if let Some(index) = namespaces_index(catalog) {
        for key in state.objects[index].keys() {
            work.push_back(Work::Written(index, key.clone()));
        }
    }
    settle(state, cluster, work.into());
}

/// The server is now reached on `address`: the endpoints say so.
pub(crate) fn advertise(
    state: &mut State,
    catalog: &Catalog,
    cluster: &Cluster,
    address: SocketAddr,
) {
    cluster.advertise(address);
    let mut work = VecDeque::new();
    kubernetes_service::reconcile(state, catalog, cluster, &mut work);
    settle(state, cluster, work.into());
}

/// Runs the controllers until they have nothing left to do.
pub(crate) fn settle(state: &mut State, cluster: &Cluster, work: Vec<Work>) {
    let mut queue: VecDeque<Work> = work.into();
    // Every step either removes an object, removes a finalizer or an owner reference, marks
    // an object deleted, or creates an object that was missing (which the next steps find
    // present), so the loop ends; the bound is a guard against a bug.
    let mut budget = 1_000_000usize;
    // The namespaces whose Pods or PodDisruptionBudgets changed, for the disruption
    // controller once the others are done.
    let mut disrupted = BTreeSet::new();
    loop {
        let Some(item) = queue.pop_front() else {
            if disrupted.is_empty() {
                break;
            }
            let catalog = state.catalog.clone();
            disruption::sync(state, &catalog, &std::mem::take(&mut disrupted), &mut queue);
            continue;
        };
        budget = budget.saturating_sub(1);
        if budget == 0 {
            break;
        }
        // A controller may change the catalog (a CRD established): each step reads it anew.
        let catalog = state.catalog.clone();
        let catalog: &Catalog = &catalog;
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
                #[cfg(feature = "model")]
                crds::written(state, catalog, index, &key, &mut queue);
                gc::written(state, catalog, index, &key, &mut queue);
                namespaces::content_changed(state, catalog, &key.0, &mut queue);
                if is_namespaces(catalog, index) {
                    service_accounts::namespace_written(state, catalog, &key.1, &mut queue);
                    root_ca::namespace_written(state, catalog, cluster, &key.1, &mut queue);
                }
                root_ca::written(state, catalog, cluster, index, &key, &mut queue);
                if aggregation::watches(catalog, index) {
                    aggregation::sync(state, catalog, &mut queue);
                }
            }
            Work::Marked(index, key) => {
                gc::marked(state, catalog, index, &key, &mut queue);
                namespaces::marked(state, catalog, index, &key, &mut queue);
                #[cfg(feature = "model")]
                crds::marked(state, catalog, index, &key, &mut queue);
            }
            Work::Removed(index, object) => {
                gc::removed(state, catalog, &object, &mut queue);
                let namespace = object
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                namespaces::content_changed(state, catalog, namespace, &mut queue);
                #[cfg(feature = "model")]
                crds::removed(state, catalog, index, &object, &mut queue);
                kubernetes_service::removed(state, catalog, cluster, index, &object, &mut queue);
                service_accounts::removed(state, catalog, index, &object, &mut queue);
                root_ca::removed(state, catalog, cluster, index, &object, &mut queue);
                if aggregation::watches(catalog, index) {
                    aggregation::sync(state, catalog, &mut queue);
                }
            }
        }
    }
}
