//! kube-controller-manager's EndpointSlice controller: for each Service with a selector,
//! one slice (`<service>-<hash>`, `kubernetes.io/service-name`, managed by
//! `endpointslice-controller.k8s.io`, owned by the Service) listing the selected Pods that
//! have an IP, with their readiness (`ready`, `serving`, `terminating`), node and
//! reference, and the Service's ports with each target port resolved (a named one by the
//! first Pod's container port of that name).

use serde_json::{Value, json};

use crate::controllers::simulation::{
    Action, Kinds, hashed_suffix, named_port, pod_ready, service_pods, text,
};
use crate::objects::store::State;

const MANAGED_BY: &str = "endpointslice-controller.k8s.io";

pub(crate) fn plan(state: &State, kinds: &Kinds) -> Vec<Action> {
    let (Some(services), Some(slices), Some(pods)) =
        (kinds.services, kinds.endpoint_slices, kinds.pods)
    else {
        return Vec::new();
    };
    let mut actions = Vec::new();
    for (key, service) in &state.objects[services] {
        let Some(selected) = service_pods(state, pods, key, service) else {
            continue;
        };
        let selected: Vec<&Value> = selected
            .filter(|pod| {
                !text(pod, "/status/podIP").is_empty()
                    && !matches!(text(pod, "/status/phase"), "Succeeded" | "Failed")
            })
            .collect();
        let endpoints: Vec<Value> = selected
            .iter()
            .map(|pod| {
                let terminating = pod.pointer("/metadata/deletionTimestamp").is_some();
                let ready = pod_ready(pod);
                json!({
                    "addresses": [text(pod, "/status/podIP")],
                    "conditions": {
                        "ready": ready && !terminating,
                        "serving": ready,
                        "terminating": terminating,
                    },
                    "nodeName": text(pod, "/spec/nodeName"),
                    "targetRef": {
                        "kind": "Pod",
                        "namespace": key.0,
                        "name": text(pod, "/metadata/name"),
                        "uid": text(pod, "/metadata/uid"),
                    },
                })
            })
            .collect();
        let ports: Vec<Value> = service
            .pointer("/spec/ports")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|port| {
                let number = match port.get("targetPort") {
                    Some(Value::Number(n)) => n.as_i64(),
                    Some(Value::String(name)) => {
                        selected.first().and_then(|pod| named_port(pod, name))
                    }
                    _ => port.get("port").and_then(Value::as_i64),
                };
                json!({
                    "name": port.get("name").and_then(Value::as_str).unwrap_or(""),
                    "port": number,
                    "protocol": port.get("protocol").and_then(Value::as_str).unwrap_or("TCP"),
                })
            })
            .collect();
        let name = format!(
            "{}-{}",
            key.1,
            hashed_suffix(text(service, "/metadata/uid"), 5)
        );
        let slice_key = (key.0.clone(), name.clone());
        let existing = state.objects[slices].get(&slice_key);
        let mut object = match existing {
            Some(stored) => (**stored).clone(),
            None => json!({
                "apiVersion": "discovery.k8s.io/v1",
                "kind": "EndpointSlice",
                "metadata": {
                    "name": name,
                    "labels": {
                        "kubernetes.io/service-name": key.1,
                        "endpointslice.kubernetes.io/managed-by": MANAGED_BY,
                    },
                    "ownerReferences": [{
                        "apiVersion": "v1",
                        "kind": "Service",
                        "name": key.1,
                        "uid": text(service, "/metadata/uid"),
                        "controller": true,
                        "blockOwnerDeletion": true,
                    }],
                },
                "addressType": "IPv4",
            }),
        };
        object["endpoints"] = Value::from(endpoints);
        object["ports"] = Value::from(ports);
        match existing {
            None => actions.push(Action::Create {
                index: slices,
                namespace: key.0.clone(),
                object,
            }),
            Some(stored) if **stored != object => actions.push(Action::Write {
                index: slices,
                key: slice_key,
                object,
            }),
            Some(_) => {}
        }
    }
    actions
}
