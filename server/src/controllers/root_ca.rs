//! kube-controller-manager's `root-ca-cert-publisher` controller
//! (kubernetes/kubernetes `pkg/controller/certificates/rootcacertpublisher/publisher.go`):
//! every active namespace has the `kube-root-ca.crt` ConfigMap, whose `ca.crt` is the
//! cluster's certificate authority (`objects::authority`). Made when the namespace is, made
//! again when deleted, and put back when its data or its description is changed.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::controllers::cluster::{Cluster, active_namespace};
use crate::controllers::queue::{Work, create, write};
use crate::objects::catalog::Catalog;
use crate::objects::store::{Key, State};

/// The ConfigMap's name (`RootCACertConfigMapName`).
const NAME: &str = "kube-root-ca.crt";

/// The annotation the publisher sets (`DescriptionAnnotation`) and its text.
const DESCRIPTION_ANNOTATION: &str = "kubernetes.io/description";
const DESCRIPTION: &str = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

/// A namespace was written: publish the ConfigMap in it if it is active.
pub(crate) fn namespace_written(
    state: &mut State,
    catalog: &Catalog,
    cluster: &Cluster,
    namespace: &str,
    queue: &mut VecDeque<Work>,
) {
    sync(state, catalog, cluster, namespace, queue);
}

/// A ConfigMap was written: if it is the published one, put back what was changed.
pub(crate) fn written(
    state: &mut State,
    catalog: &Catalog,
    cluster: &Cluster,
    index: usize,
    key: &Key,
    queue: &mut VecDeque<Work>,
) {
    if is_ours(catalog, index, &key.1) {
        sync(state, catalog, cluster, &key.0, queue);
    }
}

/// Something was removed: if it was the published ConfigMap, publish it again.
pub(crate) fn removed(
    state: &mut State,
    catalog: &Catalog,
    cluster: &Cluster,
    index: usize,
    object: &Arc<Value>,
    queue: &mut VecDeque<Work>,
) {
    let name = object.pointer("/metadata/name").and_then(Value::as_str);
    if is_ours(catalog, index, name.unwrap_or(""))
        && let Some(namespace) = object
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
    {
        sync(state, catalog, cluster, namespace, queue);
    }
}

fn is_ours(catalog: &Catalog, index: usize, name: &str) -> bool {
    let def = &catalog.resources[index];
    def.group.is_empty() && def.plural == "configmaps" && name == NAME
}

/// The publisher's `syncNamespace`: create the ConfigMap, or update it when its data is
/// not the CA or its description annotation is missing.
fn sync(
    state: &mut State,
    catalog: &Catalog,
    cluster: &Cluster,
    namespace: &str,
    queue: &mut VecDeque<Work>,
) {
    let Some((index, _)) = catalog.find("", "v1", "configmaps") else {
        return;
    };
    if !active_namespace(state, catalog, namespace) {
        return;
    }
    let data = json!({"ca.crt": cluster.authority.certificate_pem});
    let key: Key = (namespace.to_owned(), NAME.to_owned());
    match state.objects[index].get(&key).cloned() {
        None => {
            let map = json!({
                "kind": "ConfigMap",
                "apiVersion": "v1",
                "metadata": {
                    "name": NAME,
                    "namespace": namespace,
                    "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION},
                },
                "data": data,
            });
            create(state, index, &key, map, queue);
        }
        Some(current) => {
            let described = current
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(DESCRIPTION_ANNOTATION))
                .and_then(Value::as_str)
                .is_some_and(|d| !d.is_empty());
            if current.get("data") == Some(&data) && described {
                return;
            }
            let mut updated = (*current).clone();
            updated["data"] = data;
            let meta = crate::objects::meta::metadata_mut(&mut updated);
            let annotations = meta
                .entry("annotations")
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if !annotations.is_object() {
                *annotations = Value::Object(serde_json::Map::new());
            }
            annotations[DESCRIPTION_ANNOTATION] = Value::from(DESCRIPTION);
            write(state, catalog, index, &key, updated, queue);
        }
    }
}
