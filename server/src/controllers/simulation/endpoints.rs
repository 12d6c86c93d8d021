//! kube-controller-manager's Endpoints controller (`endpoints_controller.go`,
//! `syncService`), beside the EndpointSlices: for each Service with a selector, the
//! Endpoints of its name listing the selected Pods that have an IP, in `addresses` when
//! ready (or when the Service has `publishNotReadyAddresses`), in `notReadyAddresses`
//! otherwise (not a finished Pod, not one being deleted), each with its `nodeName`, its
//! `targetRef` and, for a Pod whose `subdomain` is the Service, its `hostname`; each port
//! of the Service with its target port as the Pod resolves it (a Pod without the named port
//! is left out of that port's subset), repacked into subsets of the addresses that share
//! their ports (`RepackSubsets`). Labelled as the Service is, with
//! `endpoints.kubernetes.io/managed-by: endpoint-controller` (and
//! `service.kubernetes.io/headless` for a headless Service); annotated with
//! `endpoints.kubernetes.io/last-change-trigger-time` when it changes. Such Endpoints whose
//! Service is gone are deleted.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::controllers::simulation::{
    Action, Kinds, condition, named_port, pod_ready, service_pods, text,
};
use crate::objects::store::State;

const MANAGED_BY: &str = "endpoints.kubernetes.io/managed-by";
const CONTROLLER: &str = "endpoint-controller";
const TRIGGER: &str = "endpoints.kubernetes.io/last-change-trigger-time";
const HEADLESS: &str = "service.kubernetes.io/headless";

pub(crate) fn plan(state: &State, kinds: &Kinds) -> Vec<Action> {
    let (Some(services), Some(endpoints), Some(pods)) =
        (kinds.services, kinds.endpoints, kinds.pods)
    else {
        return Vec::new();
    };
    let mut actions = Vec::new();
    for (key, service) in &state.objects[services] {
        if text(service, "/spec/type") == "ExternalName" {
            continue;
        }
        let Some(selected) = service_pods(state, pods, key, service) else {
            continue;
        };
        let tolerate = service
            .pointer("/spec/publishNotReadyAddresses")
            .and_then(Value::as_bool)
            == Some(true);
        let headless = text(service, "/spec/clusterIP") == "None";
        let ports: Vec<&Value> = service
            .pointer("/spec/ports")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .collect();
        // Each address with its readiness and the ports it is listed on.
        let mut listed: Vec<(Value, bool, Vec<Value>)> = Vec::new();
        let mut trigger = text(service, "/metadata/creationTimestamp").to_owned();
        for pod in selected {
            let terminating = pod.pointer("/metadata/deletionTimestamp").is_some();
            if text(pod, "/status/podIP").is_empty() || (!tolerate && terminating) {
                continue;
            }
            let ready = tolerate || pod_ready(pod);
            if !ready && matches!(text(pod, "/status/phase"), "Succeeded" | "Failed") {
                continue;
            }
            if let Some(since) = condition(pod, "Ready")
                .and_then(|c| c.get("lastTransitionTime"))
                .and_then(Value::as_str)
                && since > trigger.as_str()
            {
                since.clone_into(&mut trigger);
            }
            let address = address(key, service, pod);
            let resolved: Vec<Value> = ports
                .iter()
                .filter_map(|port| {
                    let number = match port.get("targetPort") {
                        Some(Value::Number(n)) => n.as_i64(),
                        Some(Value::String(name)) => named_port(pod, name),
                        _ => port.get("port").and_then(Value::as_i64),
                    }?;
                    let mut listed = json!({
                        "name": text(port, "/name"),
                        "port": number,
                        "protocol": port.get("protocol").and_then(Value::as_str).unwrap_or("TCP"),
                    });
                    if text(port, "/name").is_empty() {
                        listed.as_object_mut().map(|m| m.remove("name"));
                    }
                    if let Some(protocol) = port.get("appProtocol") {
                        listed["appProtocol"] = protocol.clone();
                    }
                    Some(listed)
                })
                .collect();
            if resolved.is_empty() && !(ports.is_empty() && headless) {
                continue;
            }
            listed.push((address, ready, resolved));
        }
        let subsets = repack(listed);

        let existing = state.objects[endpoints].get(key);
        let mut labels: Map<String, Value> = service
            .pointer("/metadata/labels")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if headless {
            labels.insert(HEADLESS.into(), Value::from(""));
        } else {
            labels.remove(HEADLESS);
        }
        labels.insert(MANAGED_BY.into(), Value::from(CONTROLLER));
        let unchanged = existing.is_some_and(|stored| {
            stored.get("subsets").cloned().unwrap_or(json!([])) == json!(subsets)
                && stored.pointer("/metadata/labels") == Some(&Value::Object(labels.clone()))
        });
        if unchanged {
            continue;
        }
        let mut object = match existing {
            Some(stored) => (**stored).clone(),
            None => json!({
                "apiVersion": "v1",
                "kind": "Endpoints",
                "metadata": {"name": key.1},
            }),
        };
        object["metadata"]["labels"] = Value::Object(labels);
        if !object["metadata"]["annotations"].is_object() {
            object["metadata"]["annotations"] = json!({});
        }
        object["metadata"]["annotations"][TRIGGER] = Value::from(trigger);
        match object.as_object_mut() {
            Some(map) if subsets.is_empty() => {
                map.remove("subsets");
            }
            _ => object["subsets"] = Value::from(subsets),
        }
        match existing {
            None => actions.push(Action::Create {
                index: endpoints,
                namespace: key.0.clone(),
                object,
            }),
            Some(_) => actions.push(Action::Write {
                index: endpoints,
                key: key.clone(),
                object,
            }),
        }
    }
    // The controller's Endpoints whose Service is gone.
    for (key, object) in &state.objects[endpoints] {
        let ours = object
            .pointer("/metadata/labels")
            .and_then(|l| l.get(MANAGED_BY))
            .and_then(Value::as_str)
            == Some(CONTROLLER);
        if ours && !state.objects[services].contains_key(key) {
            actions.push(Action::Delete {
                index: endpoints,
                key: key.clone(),
            });
        }
    }
    actions
}

/// A Pod's address (`podToEndpointAddressForService`).
fn address(key: &(String, String), service: &Value, pod: &Value) -> Value {
    let mut address = json!({
        "ip": text(pod, "/status/podIP"),
        "nodeName": text(pod, "/spec/nodeName"),
        "targetRef": {
            "kind": "Pod",
            "namespace": key.0,
            "name": text(pod, "/metadata/name"),
            "uid": text(pod, "/metadata/uid"),
        },
    });
    let hostname = text(pod, "/spec/hostname");
    if !hostname.is_empty() && text(pod, "/spec/subdomain") == text(service, "/metadata/name") {
        address["hostname"] = Value::from(hostname);
    }
    if text(pod, "/spec/nodeName").is_empty() {
        address.as_object_mut().map(|m| m.remove("nodeName"));
    }
    address
}

/// A subset as it is gathered: its ready addresses, its not ready ones, its ports.
type Subset = (Vec<Value>, Vec<Value>, Vec<Value>);

/// `RepackSubsets`: one subset per set of ports, its ready and not ready addresses sorted by
/// IP (then uid), its ports sorted.
fn repack(listed: Vec<(Value, bool, Vec<Value>)>) -> Vec<Value> {
    let mut by_ports: BTreeMap<String, Subset> = BTreeMap::new();
    for (address, ready, mut ports) in listed {
        ports.sort_by_key(Value::to_string);
        let entry = by_ports
            .entry(Value::from(ports.clone()).to_string())
            .or_insert_with(|| (Vec::new(), Vec::new(), ports));
        if ready {
            entry.0.push(address);
        } else {
            entry.1.push(address);
        }
    }
    by_ports
        .into_values()
        .map(|(mut ready, mut not_ready, ports)| {
            let order = |a: &Value| {
                (
                    ip_order(text(a, "/ip")),
                    text(a, "/targetRef/uid").to_owned(),
                )
            };
            ready.sort_by_key(order);
            not_ready.sort_by_key(order);
            let mut subset = json!({});
            if !ready.is_empty() {
                subset["addresses"] = Value::from(ready);
            }
            if !not_ready.is_empty() {
                subset["notReadyAddresses"] = Value::from(not_ready);
            }
            if !ports.is_empty() {
                subset["ports"] = Value::from(ports);
            }
            subset
        })
        .collect()
}

/// An IP in the order Go compares them (`bytes.Compare` of the parsed address).
fn ip_order(ip: &str) -> (Option<std::net::IpAddr>, String) {
    (ip.parse().ok(), ip.to_owned())
}
