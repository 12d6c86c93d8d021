//! A tiny controller: for each value of the `app` label on the Pods of a namespace, it keeps
//! an Endpoints object of that name listing the Pods' IPs (`status.podIP`), and deletes the
//! Endpoints it made when no such Pod is left. Level-triggered: every change to a Pod
//! recomputes the whole desired state from a reflector's cache.
//!
//! It writes with server-side apply, as kube-rs recommends for controllers: each Endpoints is
//! sent as a generated apply configuration (`kubeforge-api`'s `EndpointsApply`, feature
//! `apply`) holding only the fields this controller manages, with kube's `Patch::Apply`.
//! Applying the same state again changes nothing, and a field it stops applying is removed
//! unless another manager owns it; it reads with kube and k8s-openapi's types.

use std::collections::BTreeMap;
use std::pin::pin;

use futures::TryStreamExt;
use k8s_openapi::api::core::v1::{Endpoints, Pod};
use kube::Client;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use kube::runtime::{WatchStreamExt, reflector, watcher};
use kubeforge_api::api::core::v1 as apply;

/// The label that marks the Endpoints this controller owns.
pub const MANAGED_BY: (&str, &str) = ("app.kubernetes.io/managed-by", "endpoints-controller");

/// The field manager this controller applies as.
pub const FIELD_MANAGER: &str = "endpoints-controller";

/// Runs the controller in `namespace` until the watch fails for good.
///
/// # Errors
///
/// A failed write to the API, or a watch that ends with an error.
pub async fn run(client: Client, namespace: &str) -> Result<(), kube::Error> {
    let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let endpoints: Api<Endpoints> = Api::namespaced(client, namespace);
    let (reader, writer) = reflector::store();
    let mut events =
        pin!(reflector(writer, watcher(pods, watcher::Config::default())).default_backoff());
    while let Some(event) = events
        .try_next()
        .await
        .map_err(|e| kube::Error::Service(Box::new(e)))?
    {
        if matches!(event, watcher::Event::Init | watcher::Event::InitApply(_)) {
            continue;
        }
        let desired = desired(reader.state().iter().map(|pod| &**pod));
        sync(&endpoints, namespace, &desired).await?;
    }
    Ok(())
}

/// App name → the IPs of its Pods, sorted.
pub fn desired<'a>(pods: impl Iterator<Item = &'a Pod>) -> BTreeMap<String, Vec<String>> {
    let mut apps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for pod in pods {
        let Some(app) = pod.metadata.labels.as_ref().and_then(|l| l.get("app")) else {
            continue;
        };
        let ips = apps.entry(app.clone()).or_default();
        if let Some(ip) = pod.status.as_ref().and_then(|s| s.pod_ip.clone()) {
            ips.push(ip);
        }
    }
    for ips in apps.values_mut() {
        ips.sort();
    }
    apps
}

/// The apply configuration of the Endpoints of `app`: the label that marks it as this
/// controller's, and one subset with the Pods' IPs (none when no Pod has one yet).
pub fn configuration(namespace: &str, app: &str, ips: &[String]) -> apply::EndpointsApply {
    let endpoints = apply::Endpoints::apply(app, namespace).metadata_with(|meta| {
        meta.labels
            .get_or_insert_default()
            .insert(MANAGED_BY.0.to_owned(), MANAGED_BY.1.to_owned());
    });
    if ips.is_empty() {
        return endpoints;
    }
    endpoints.subset(
        apply::EndpointSubset::apply().addresses(
            ips.iter()
                .map(|ip| apply::EndpointAddress::apply().ip(ip.as_str())),
        ),
    )
}

async fn sync(
    api: &Api<Endpoints>,
    namespace: &str,
    desired: &BTreeMap<String, Vec<String>>,
) -> Result<(), kube::Error> {
    for (app, ips) in desired {
        let configuration = configuration(namespace, app, ips);
        api.patch(
            app,
            &PatchParams::apply(FIELD_MANAGER),
            &Patch::Apply(&configuration),
        )
        .await?;
    }
    let owned = api
        .list(&ListParams::default().labels(&format!("{}={}", MANAGED_BY.0, MANAGED_BY.1)))
        .await?;
    for stale in owned.items {
        let name = stale.metadata.name.unwrap_or_default();
        if !desired.contains_key(&name) {
            api.delete(&name, &DeleteParams::default()).await?;
        }
    }
    Ok(())
}
