//! Resources whose objects the API server computes when asked rather than stores: core/v1
//! `componentstatuses` (kubernetes/kubernetes `pkg/registry/core/componentstatus/rest.go`),
//! the health of the scheduler, the controller manager and etcd, read and listed only, with
//! the deprecation warning every request on them gets (the resource is deprecated since
//! 1.19). Here every component is healthy, as on a cluster that works.

use http::StatusCode;
use serde_json::{Value, json};

use crate::objects::catalog::Catalog;
use crate::objects::select::Filter;
use crate::verbs::Shared;
use crate::wire::query::Query;
use crate::wire::status::Failure;

/// The components the registry checks (`GetServersToValidate`), in the order it lists
/// them (by name).
const COMPONENTS: [&str; 3] = ["controller-manager", "etcd-0", "scheduler"];

/// The `Warning` the API server sends with every request on a deprecated resource.
const DEPRECATED: &str = "v1 ComponentStatus is deprecated in v1.19+";

impl Shared {
    /// Answers `verb` on a computed resource, or `None` when `index` is stored.
    pub(crate) fn computed(
        &self,
        catalog: &Catalog,
        index: usize,
        verb: &str,
        name: Option<&str>,
        query: &Query,
        warnings: &mut Vec<String>,
    ) -> Option<Result<(StatusCode, Value), Failure>> {
        let def = &catalog.resources[index];
        if !(def.group.is_empty() && def.version == "v1" && def.plural == "componentstatuses") {
            return None;
        }
        warnings.push(DEPRECATED.to_owned());
        Some(match (verb, name) {
            ("get", Some(name)) => COMPONENTS
                .contains(&name)
                .then(|| (StatusCode::OK, component(name, true)))
                .ok_or_else(|| Failure::not_found("", "componentstatuses", name)),
            ("list", _) => Filter::new(catalog, index, None, query).map(|filter| {
                let items: Vec<Value> = COMPONENTS
                    .iter()
                    .map(|name| component(name, false))
                    .filter(|item| filter.matches(item))
                    .collect();
                let list = json!({
                    "kind": "ComponentStatusList",
                    "apiVersion": "v1",
                    "metadata": {},
                    "items": items,
                });
                (StatusCode::OK, list)
            }),
            _ => Err(Failure::method_not_allowed(verb, &def.plural)),
        })
    }
}

/// A healthy component as the registry writes it (`ToConditionStatus`); an item of a list
/// has no `kind` or `apiVersion`, as Go encodes a typed list.
fn component(name: &str, typed: bool) -> Value {
    let mut object = json!({
        "metadata": {"name": name},
        "conditions": [{"type": "Healthy", "status": "True", "message": "ok"}],
    });
    if typed {
        object = json!({
            "kind": "ComponentStatus",
            "apiVersion": "v1",
            "metadata": object["metadata"],
            "conditions": object["conditions"],
        });
    }
    object
}
