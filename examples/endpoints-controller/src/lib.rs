//! A tiny controller: for each value of the `app` label on the Pods of a namespace, it keeps
//! an Endpoints object of that name listing the Pods' IPs (`status.podIP`), and deletes the
//! Endpoints it made when no such Pod is left. Level-triggered: every change to a Pod
//! recomputes the whole desired state from a reflector's cache.

use std::collections::BTreeMap;
use std::pin::pin;

use futures::TryStreamExt;
use k8s_openapi::api::core::v1::{EndpointAddress, EndpointSubset, Endpoints, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Client;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use kube::runtime::{WatchStreamExt, reflector, watcher};

/// The label that marks the Endpoints this controller owns.
pub const MANAGED_BY: (&str, &str) = ("app.kubernetes.io/managed-by", "endpoints-controller");

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
        sync(&endpoints, &desired).await?;
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

async fn sync(
    api: &Api<Endpoints>,
    desired: &BTreeMap<String, Vec<String>>,
) -> Result<(), kube::Error> {
    for (app, ips) in desired {
        let subsets = (!ips.is_empty()).then(|| {
            vec![EndpointSubset {
                addresses: Some(
                    ips.iter()
                        .map(|ip| EndpointAddress {
                            ip: ip.clone(),
                            ..EndpointAddress::default()
                        })
                        .collect(),
                ),
                ..EndpointSubset::default()
            }]
        });
        match api.get_opt(app).await? {
            Some(current) if current.subsets == subsets => {}
            Some(mut current) => {
                current.subsets = subsets;
                api.replace(app, &PostParams::default(), &current).await?;
            }
            None => {
                let object = Endpoints {
                    metadata: ObjectMeta {
                        name: Some(app.clone()),
                        labels: Some(BTreeMap::from([(
                            MANAGED_BY.0.to_owned(),
                            MANAGED_BY.1.to_owned(),
                        )])),
                        ..ObjectMeta::default()
                    },
                    subsets,
                };
                api.create(&PostParams::default(), &object).await?;
            }
        }
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
