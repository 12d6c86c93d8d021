//! `metrics.k8s.io/v1beta1` when the simulation runs metrics-server
//! (`Simulation::metrics`): `get` and `list` of `pods` (`PodMetrics`, in a namespace or in
//! all) and `nodes` (`NodeMetrics`), computed from the store on each request
//! (`controllers::simulation::metrics`), with label and field selectors as metrics-server
//! takes them (its lister's labels, then `metadata.name` and `metadata.namespace`), and
//! its answers where there is nothing to read: the Pod's or Node's own 404 when it does not
//! exist, `podmetrics.metrics.k8s.io "<namespace>/<name>" not found` when it has no sample.

use http::StatusCode;
use serde_json::{Value, json};

use crate::controllers::simulation::metrics::{self, GROUP, VERSION};
use crate::controllers::simulation::{Kinds, objects, text};
use crate::objects::catalog::Catalog;
use crate::objects::clock;
use crate::objects::select::Filter;
use crate::verbs::Shared;
use crate::wire::query::Query;
use crate::wire::status::Failure;

impl Shared {
    /// Answers a `get` or `list` on the metrics API's resource at `index`; `None` when the
    /// simulation does not run metrics-server or `index` is not one of its resources.
    pub(crate) fn metrics(
        &self,
        catalog: &Catalog,
        index: usize,
        namespace: &str,
        name: Option<&str>,
        query: &Query,
    ) -> Option<Result<(StatusCode, Value), Failure>> {
        let simulation = self.options.simulation.as_ref().filter(|s| s.metrics)?;
        let def = &catalog.resources[index];
        if def.group != GROUP || def.version != VERSION {
            return None;
        }
        let kinds = Kinds::of(catalog);
        let now = clock::format(clock::now());
        let state = self.lock();
        let pods = || objects(&state, kinds.pods).map(|(_, pod)| pod);
        let answer = match (def.plural.as_str(), name) {
            ("pods", Some(name)) => {
                let key = (namespace.to_owned(), name.to_owned());
                match objects(&state, kinds.pods).find(|(k, _)| **k == key) {
                    None => Err(Failure::not_found("", "pods", name)),
                    Some((_, pod)) => {
                        metrics::pod_metrics(pod, simulation, &now, true).ok_or_else(|| {
                            Failure::not_found(GROUP, "podmetrics", &format!("{namespace}/{name}"))
                        })
                    }
                }
            }
            ("pods", None) => Filter::new(catalog, index, None, query).map(|filter| {
                list(
                    "PodMetricsList",
                    pods()
                        .filter(|pod| {
                            namespace.is_empty() || text(pod, "/metadata/namespace") == namespace
                        })
                        .filter_map(|pod| metrics::pod_metrics(pod, simulation, &now, false))
                        .filter(|item| filter.matches(item)),
                )
            }),
            ("nodes", Some(name)) => {
                match objects(&state, kinds.nodes).find(|(k, _)| k.1 == name) {
                    None => Err(Failure::not_found("", "nodes", name)),
                    Some((_, node)) => metrics::node_metrics(node, pods(), simulation, &now, true)
                        .ok_or_else(|| Failure::not_found(GROUP, "nodemetrics", name)),
                }
            }
            ("nodes", None) => Filter::new(catalog, index, None, query).map(|filter| {
                list(
                    "NodeMetricsList",
                    objects(&state, kinds.nodes)
                        .filter_map(|(_, node)| {
                            metrics::node_metrics(node, pods(), simulation, &now, false)
                        })
                        .filter(|item| filter.matches(item)),
                )
            }),
            _ => return None,
        };
        Some(answer.map(|value| (StatusCode::OK, value)))
    }
}

fn list(kind: &str, items: impl Iterator<Item = Value>) -> Value {
    json!({
        "kind": kind,
        "apiVersion": format!("{GROUP}/{VERSION}"),
        "metadata": {},
        "items": items.collect::<Vec<_>>(),
    })
}
