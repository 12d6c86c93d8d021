//! kube-controller-manager's `serviceaccount` controller
//! (kubernetes/kubernetes `pkg/controller/serviceaccount/serviceaccounts_controller.go`):
//! every active namespace has a `default` ServiceAccount, made when the namespace is and
//! made again when deleted.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::controllers::cluster::active_namespace;
use crate::controllers::queue::{Work, create};
use crate::objects::catalog::Catalog;
use crate::objects::store::State;

/// The ServiceAccount every namespace has.
const NAME: &str = "default";

/// A namespace was written: make its `default` ServiceAccount if it is active and has none.
pub(crate) fn namespace_written(
    state: &mut State,
    catalog: &Catalog,
    namespace: &str,
    queue: &mut VecDeque<Work>,
) {
    ensure(state, catalog, namespace, queue);
}

/// Something was removed: if it was a `default` ServiceAccount, make it again.
pub(crate) fn removed(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    object: &Arc<Value>,
    queue: &mut VecDeque<Work>,
) {
    let def = &catalog.resources[index];
    if def.group.is_empty()
        && def.plural == "serviceaccounts"
        && object.pointer("/metadata/name").and_then(Value::as_str) == Some(NAME)
        && let Some(namespace) = object
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
    {
        ensure(state, catalog, namespace, queue);
    }
}

fn ensure(state: &mut State, catalog: &Catalog, namespace: &str, queue: &mut VecDeque<Work>) {
    let Some((index, _)) = catalog.find("", "v1", "serviceaccounts") else {
        return;
    };
    if !active_namespace(state, catalog, namespace) {
        return;
    }
    let account = json!({
        "kind": "ServiceAccount",
        "apiVersion": "v1",
        "metadata": {"name": NAME, "namespace": namespace},
    });
    create(
        state,
        index,
        &(namespace.to_owned(), NAME.to_owned()),
        account,
        queue,
    );
}
