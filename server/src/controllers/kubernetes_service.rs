//! The API server's `kubernetesservice` controller and its endpoint reconciler
//! (kubernetes/kubernetes `pkg/controlplane/controller/kubernetesservice` and
//! `pkg/controlplane/reconcilers`): the `default/kubernetes` Service, through which the
//! cluster reaches the API server, its `Endpoints` and its `EndpointSlice`, each pointing at
//! the address the server is reached on. Made when the server starts, made again when
//! deleted, and pointed at the server's port when it is served on one.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::controllers::cluster::Cluster;
use crate::controllers::queue::{Work, create, write};
use crate::objects::catalog::Catalog;
use crate::objects::store::{Key, State};

/// The Service's name and namespace.
const NAME: &str = "kubernetes";
const NAMESPACE: &str = "default";

/// The first address of kubeadm's (and kind's) default service range, 10.96.0.0/12, which
/// the API server gives its own Service.
const CLUSTER_IP: &str = "10.96.0.1";

/// Makes the Service, its Endpoints and its EndpointSlice where missing (for the resources
/// the API serves; none without Services), and points the endpoints at the server's
/// address.
pub(crate) fn reconcile(
    state: &mut State,
    catalog: &Catalog,
    cluster: &Cluster,
    queue: &mut VecDeque<Work>,
) {
    let (ip, port) = cluster.endpoint();
    let key: Key = (NAMESPACE.to_owned(), NAME.to_owned());
    // The endpoints are the Service's: an API without Services has neither.
    let Some((index, _)) = catalog.find("", "v1", "services") else {
        return;
    };
    {
        let wanted = service(port);
        match state.objects[index].get(&key).cloned() {
            None => create(state, index, &key, wanted, queue),
            Some(current) => {
                // The reconciler keeps the ports (and so the target port) as it wants them.
                let mut updated = (*current).clone();
                if let Some(spec) = updated.get_mut("spec").and_then(Value::as_object_mut) {
                    spec.insert("ports".into(), wanted["spec"]["ports"].clone());
                }
                write(state, catalog, index, &key, updated, queue);
            }
        }
    }
    if let Some((index, _)) = catalog.find("", "v1", "endpoints") {
        put(
            state,
            catalog,
            index,
            &key,
            endpoints(&ip, port),
            &["subsets"],
            queue,
        );
    }
    if let Some((index, _)) = catalog.find("discovery.k8s.io", "v1", "endpointslices") {
        let wanted = endpoint_slice(&ip, port);
        put(
            state,
            catalog,
            index,
            &key,
            wanted,
            &["endpoints", "ports"],
            queue,
        );
    }
}

/// Something was removed: if it is one of the three, make it again.
pub(crate) fn removed(
    state: &mut State,
    catalog: &Catalog,
    cluster: &Cluster,
    index: usize,
    object: &Arc<Value>,
    queue: &mut VecDeque<Work>,
) {
    let def = &catalog.resources[index];
    let ours = matches!(
        (def.group.as_str(), def.plural.as_str()),
        ("", "services" | "endpoints") | ("discovery.k8s.io", "endpointslices")
    );
    let named = |pointer: &str, wanted: &str| {
        object.pointer(pointer).and_then(Value::as_str) == Some(wanted)
    };
    if ours && named("/metadata/name", NAME) && named("/metadata/namespace", NAMESPACE) {
        reconcile(state, catalog, cluster, queue);
    }
}

/// Creates `wanted` at `key`, or sets its `fields` to `wanted`'s.
fn put(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    key: &Key,
    wanted: Value,
    fields: &[&str],
    queue: &mut VecDeque<Work>,
) {
    match state.objects[index].get(key).cloned() {
        None => create(state, index, key, wanted, queue),
        Some(current) => {
            let mut updated = (*current).clone();
            for field in fields {
                updated[*field] = wanted[*field].clone();
            }
            write(state, catalog, index, key, updated, queue);
        }
    }
}

/// The Service as `createOrUpdateMasterServiceIfNeeded` writes it, with what the service
/// registry and its defaults add (the cluster IP, `ipFamilies`, `sessionAffinity`, …), in
/// the order Go writes the fields.
fn service(port: u16) -> Value {
    json!({
        "kind": "Service",
        "apiVersion": "v1",
        "metadata": {
            "name": NAME,
            "namespace": NAMESPACE,
            "labels": {"component": "apiserver", "provider": "kubernetes"},
        },
        "spec": {
            "ports": [{"name": "https", "protocol": "TCP", "port": 443, "targetPort": port}],
            "clusterIP": CLUSTER_IP,
            "clusterIPs": [CLUSTER_IP],
            "type": "ClusterIP",
            "sessionAffinity": "None",
            "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack",
            "internalTrafficPolicy": "Cluster",
        },
        "status": {"loadBalancer": {}},
    })
}

/// The Endpoints the lease reconciler writes (`endpointslice.kubernetes.io/skip-mirror`, so
/// the mirroring controller leaves it to the reconciler).
fn endpoints(ip: &str, port: u16) -> Value {
    json!({
        "kind": "Endpoints",
        "apiVersion": "v1",
        "metadata": {
            "name": NAME,
            "namespace": NAMESPACE,
            "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"},
        },
        "subsets": [{
            "addresses": [{"ip": ip}],
            "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
        }],
    })
}

/// The EndpointSlice the reconciler writes beside the Endpoints.
fn endpoint_slice(ip: &str, port: u16) -> Value {
    json!({
        "kind": "EndpointSlice",
        "apiVersion": "discovery.k8s.io/v1",
        "metadata": {
            "name": NAME,
            "namespace": NAMESPACE,
            "labels": {"kubernetes.io/service-name": NAME},
        },
        "addressType": "IPv4",
        "endpoints": [{"addresses": [ip], "conditions": {"ready": true}}],
        "ports": [{"name": "https", "protocol": "TCP", "port": port}],
    })
}
