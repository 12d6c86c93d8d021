//! The simulated Nodes, as their kubelets register them: the labels every node has, the
//! configured capacity (allocatable the same), the four conditions with `Ready` `True`, an
//! internal address, and the node's Lease in `kube-node-lease`, renewed every 10 seconds
//! of the server's clock (the kubelet's `nodeLeaseDurationSeconds` is 40, renewed at a
//! quarter of it).

use jiff::Timestamp;
use serde_json::{Map, Value, json};

use crate::controllers::simulation::{Action, Kinds, SimulatedNode, Simulation, address, text};
use crate::objects::clock;
use crate::objects::store::State;

/// How often a kubelet renews its Lease, in seconds.
const RENEW_SECONDS: i64 = 10;

/// The first Pod IP of the node's range (`spec.podCIDR`).
pub(crate) fn pod_cidr(position: usize) -> String {
    format!("10.244.{position}.0/24")
}

pub(crate) fn plan(
    state: &State,
    kinds: &Kinds,
    simulation: &Simulation,
    now: Timestamp,
) -> Vec<Action> {
    let mut actions = Vec::new();
    let Some(nodes) = kinds.nodes else {
        return actions;
    };
    let time = clock::format(now);
    for (position, node) in simulation.nodes.iter().enumerate() {
        let key = (String::new(), node.name.clone());
        match state.objects[nodes].get(&key) {
            None => actions.push(Action::Create {
                index: nodes,
                namespace: String::new(),
                object: registered(node, position),
            }),
            Some(stored) if stored.pointer("/status/nodeInfo").is_none() => {
                let mut object = (**stored).clone();
                object["status"] = status(node, position, &time);
                actions.push(Action::Write {
                    index: nodes,
                    key,
                    object,
                });
            }
            Some(_) => {}
        }
        lease(state, kinds, node, now, &mut actions);
    }
    actions
}

fn registered(node: &SimulatedNode, position: usize) -> Value {
    let mut labels = Map::new();
    let (os, arch) = platform(node);
    labels.insert("kubernetes.io/arch".into(), arch.into());
    labels.insert("kubernetes.io/hostname".into(), node.name.clone().into());
    labels.insert("kubernetes.io/os".into(), os.into());
    for (k, v) in &node.labels {
        labels.insert(k.clone(), v.clone().into());
    }
    // The kubelet's deprecated labels say what the current ones say.
    labels.insert("beta.kubernetes.io/arch".into(), arch.into());
    labels.insert("beta.kubernetes.io/os".into(), os.into());
    let mut spec = json!({
        "podCIDR": pod_cidr(position),
        "podCIDRs": [pod_cidr(position)],
    });
    if !node.taints.is_empty() {
        spec["taints"] = Value::from(node.taints.clone());
    }
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": node.name,
            "labels": labels,
            "annotations": {"node.alpha.kubernetes.io/ttl": "0", "kubeforge.dev/simulated": "true"},
        },
        "spec": spec,
    })
}

/// The node's operating system and architecture: what its labels say (a node configured
/// with `kubernetes.io/arch: arm64` is an arm64 node), else `linux` and `amd64`; its
/// labels and its `status.nodeInfo` agree, as a kubelet writes both from `runtime.GOOS`
/// and `runtime.GOARCH`.
fn platform(node: &SimulatedNode) -> (&str, &str) {
    let label = |key: &str, default| node.labels.get(key).map_or(default, String::as_str);
    (
        label("kubernetes.io/os", "linux"),
        label("kubernetes.io/arch", "amd64"),
    )
}

fn status(node: &SimulatedNode, position: usize, now: &str) -> Value {
    let (os, arch) = platform(node);
    let condition = |kind: &str, status: &str, reason: &str, message: &str| {
        json!({
            "type": kind,
            "status": status,
            "lastHeartbeatTime": now,
            "lastTransitionTime": now,
            "reason": reason,
            "message": message,
        })
    };
    json!({
        "capacity": node.capacity,
        "allocatable": node.capacity,
        "conditions": [
            condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        ],
        "addresses": [
            {"type": "InternalIP", "address": address(position)},
            {"type": "Hostname", "address": node.name},
        ],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {
            "architecture": arch,
            "bootID": "",
            "containerRuntimeVersion": "kubeforge://simulated",
            "kernelVersion": "",
            "kubeProxyVersion": "",
            "kubeletVersion": "v1.36.0",
            "machineID": "",
            "operatingSystem": os,
            "osImage": "kubeforge simulated node",
            "systemUUID": "",
        },
    })
}

/// The node's Lease: made when missing, renewed when its `renewTime` is 10 seconds old.
fn lease(
    state: &State,
    kinds: &Kinds,
    node: &SimulatedNode,
    now: Timestamp,
    actions: &mut Vec<Action>,
) {
    let (Some(leases), Some(nodes)) = (kinds.leases, kinds.nodes) else {
        return;
    };
    let renew_time = now.strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string();
    let key = ("kube-node-lease".to_owned(), node.name.clone());
    match state.objects[leases].get(&key) {
        None => {
            let Some(owner) = state.objects[nodes].get(&(String::new(), node.name.clone())) else {
                return;
            };
            actions.push(Action::Create {
                index: leases,
                namespace: key.0,
                object: json!({
                    "apiVersion": "coordination.k8s.io/v1",
                    "kind": "Lease",
                    "metadata": {
                        "name": node.name,
                        "ownerReferences": [{
                            "apiVersion": "v1",
                            "kind": "Node",
                            "name": node.name,
                            "uid": text(owner, "/metadata/uid"),
                        }],
                    },
                    "spec": {
                        "holderIdentity": node.name,
                        "leaseDurationSeconds": 40,
                        "renewTime": renew_time,
                    },
                }),
            });
        }
        Some(lease) => {
            let renewed = text(lease, "/spec/renewTime")
                .parse::<Timestamp>()
                .map(|t| now.as_second() - t.as_second())
                .unwrap_or(RENEW_SECONDS);
            if renewed >= RENEW_SECONDS {
                let mut object = (**lease).clone();
                object["spec"]["renewTime"] = Value::from(renew_time);
                actions.push(Action::Write {
                    index: leases,
                    key,
                    object,
                });
            }
        }
    }
}
