//! The simulated cluster (`Options::simulation`, off by default): what a cluster's nodes and
//! kube-controller-manager do that a test waits for, as plans over the store that the
//! verbs carry out (`verbs::simulate`). `nodes` (the Nodes and their Leases), `scheduler`
//! (kube-scheduler's filters), `kubelet` (a Pod's status from Pending to Running or
//! Succeeded, and its removal once it is deleted), and kube-controller-manager's
//! `deployments`, `replicasets`, `statefulsets`, `daemonsets`, `jobs`, `cronjobs`,
//! `endpoint_slices`, `endpoints` and the ServiceAccount token controller (`tokens`);
//! what a kind cluster runs in `kube-system` (`kube_system`: the control plane's static
//! Pods, CoreDNS, kube-proxy, metrics-server and its APIService) and the metrics API
//! metrics-server serves (`metrics`).
//! None imports another (what two share is here: a node's address, a Pod made from a
//! template, label selectors, conditions, availability); each reads the store and returns
//! [`Action`]s, and runs on the server's clock.

pub mod containers;
pub(crate) mod cronjobs;
pub(crate) mod daemonsets;
pub(crate) mod deployments;
pub(crate) mod endpoint_slices;
pub(crate) mod endpoints;
pub(crate) mod events;
pub(crate) mod jobs;
pub(crate) mod kube_system;
pub(crate) mod kubelet;
pub(crate) mod metrics;
pub(crate) mod nodes;
pub(crate) mod replicasets;
pub(crate) mod scheduler;
pub(crate) mod statefulsets;
pub(crate) mod tokens;

use std::collections::BTreeMap;
use std::time::Duration;

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::objects::catalog::Catalog;
use crate::objects::store::{Key, State};

/// What the simulated cluster is made of, and how fast its containers go.
#[derive(Clone, Debug)]
pub struct Simulation {
    /// The Nodes, made when the server starts: by default the control plane's
    /// ([`SimulatedNode::control_plane`], named [`CONTROL_PLANE`]) and three workers.
    pub nodes: Vec<SimulatedNode>,
    /// How long a started container takes to become ready (its readiness probe passing),
    /// by the server's clock.
    pub ready_after: Duration,
    /// How long a Pod whose `restartPolicy` is `Never` or `OnFailure` runs before it
    /// succeeds, by the server's clock.
    pub run_for: Duration,
    /// How long a container takes to stop once its Pod is deleted (after the `SIGTERM` its
    /// kubelet sends), by the server's clock: it exits with code 0 then. One still running
    /// when the Pod's grace period ends is killed (`SIGKILL`, exit code 137), as a process
    /// that ignores `SIGTERM` is.
    pub stop_after: Duration,
    /// How often the simulation looks for work, in real time.
    pub tick: Duration,
    /// What a container prints (its log, for `kubectl logs`), by image: `busybox:1.36`, or
    /// `busybox` for every tag of it. A Pod's annotation `simulation.kubeforge.dev/logs`
    /// (every container) or `simulation.kubeforge.dev/logs.<container>` says it for its own
    /// containers. A container nothing is said of has no log to give, as without the
    /// simulation.
    pub logs: BTreeMap<String, String>,
    /// Whether the cluster starts with what a kind cluster runs in `kube-system`: the
    /// control plane's static Pods on the control-plane Node, CoreDNS's Deployment and its
    /// `kube-dns` Service, and the kube-proxy DaemonSet (on by default).
    pub kube_system: bool,
    /// Whether metrics-server runs (its Deployment, Service and `APIService` in
    /// `kube-system`, with `kube_system`) and `metrics.k8s.io/v1beta1` serves `PodMetrics`
    /// and `NodeMetrics`, so `kubectl top` works (on by default).
    pub metrics: bool,
    /// What a container uses, for the metrics API, by image (`nginx:1.27`, or `nginx` for
    /// every tag), as [`Simulation::with_usage`] sets it. A Pod's annotation
    /// `simulation.kubeforge.dev/usage` (every container) or
    /// `simulation.kubeforge.dev/usage.<container>` says it for its own containers, as
    /// `<cpu>,<memory>` (`250m,64Mi`). A container nothing is said of uses its requests.
    pub usage: BTreeMap<String, Usage>,
    /// What runs the commands exec'd into a container (`pods/exec`), by image as
    /// [`Simulation::logs`] (see [`ExecHandler`](containers::ExecHandler)).
    pub exec: BTreeMap<String, containers::ExecHandler>,
    /// Where commands run as processes on this machine, for containers no handler is
    /// registered for (`--exec-on-host`); `None` (the default): such a command is not
    /// found (exit code 127).
    pub exec_on_host: Option<std::path::PathBuf>,
    /// What answers HTTP on a container's port, by image and port (see
    /// [`Simulation::port`]).
    pub ports: BTreeMap<(String, u16), containers::PortHandler>,
}

/// What a container uses: CPU and memory, as quantities (`250m`, `64Mi`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Usage {
    /// CPU, in cores (`250m`, `1`, `1500000n`).
    pub cpu: String,
    /// Memory, in bytes (`64Mi`, `100M`).
    pub memory: String,
}

impl Usage {
    /// `<cpu>,<memory>` (`250m,64Mi`), both quantities; `None` otherwise.
    pub fn parse(text: &str) -> Option<Usage> {
        let (cpu, memory) = text.split_once(',')?;
        let (cpu, memory) = (cpu.trim(), memory.trim());
        let valid = |q: &str| kubeforge_runtime::Quantity::parse(q).is_ok_and(|q| q.is_valid());
        (valid(cpu) && valid(memory)).then(|| Usage {
            cpu: cpu.to_owned(),
            memory: memory.to_owned(),
        })
    }
}

impl Default for Simulation {
    fn default() -> Self {
        Simulation {
            nodes: Vec::new(),
            ready_after: Duration::ZERO,
            run_for: Duration::ZERO,
            stop_after: Duration::ZERO,
            tick: Duration::from_millis(50),
            logs: BTreeMap::new(),
            kube_system: true,
            metrics: true,
            usage: BTreeMap::new(),
            exec: BTreeMap::new(),
            exec_on_host: None,
            ports: BTreeMap::new(),
        }
        .nodes_named(3)
    }
}

/// The control-plane Node's name (kind's is `<cluster>-control-plane`).
pub const CONTROL_PLANE: &str = "kubeforge-control-plane";

impl Simulation {
    /// Whether the simulation has a Node named `name`.
    pub(crate) fn has_node(&self, name: &str) -> bool {
        self.nodes.iter().any(|n| n.name == name)
    }

    /// Whether a simulated kubelet runs `pod`: its `spec.nodeName` is one of the nodes.
    pub(crate) fn runs(&self, pod: &Value) -> bool {
        self.has_node(
            pod.pointer("/spec/nodeName")
                .and_then(Value::as_str)
                .unwrap_or(""),
        )
    }

    /// A simulation with the control-plane Node and `count` worker nodes named `node-1`…,
    /// each with the default capacity.
    pub fn with_nodes(count: usize) -> Simulation {
        Simulation::default().nodes_named(count)
    }

    /// The control-plane Node and `count` workers `node-1`….
    fn nodes_named(self, count: usize) -> Simulation {
        Simulation {
            nodes: std::iter::once(SimulatedNode::control_plane(CONTROL_PLANE))
                .chain((1..=count).map(|n| SimulatedNode::named(&format!("node-{n}"))))
                .collect(),
            ..self
        }
    }

    /// The containers of `image` (`nginx:1.27`, or `nginx` for every tag) use `cpu` and
    /// `memory` (quantities: `250m`, `64Mi`), as the metrics API reports them.
    #[must_use]
    pub fn with_usage(mut self, image: &str, cpu: &str, memory: &str) -> Simulation {
        self.usage.insert(
            image.to_owned(),
            Usage {
                cpu: cpu.to_owned(),
                memory: memory.to_owned(),
            },
        );
        self
    }
}

/// One simulated Node.
#[derive(Clone, Debug)]
pub struct SimulatedNode {
    /// `metadata.name` (and the `kubernetes.io/hostname` label).
    pub name: String,
    /// `status.capacity` (and `allocatable`): `cpu`, `memory`, `pods`, … as quantities.
    pub capacity: BTreeMap<String, String>,
    /// Labels besides the ones every node has (`kubernetes.io/hostname`, `kubernetes.io/os`,
    /// `kubernetes.io/arch`).
    pub labels: BTreeMap<String, String>,
    /// `spec.taints`, as `{"key", "value", "effect"}` objects.
    pub taints: Vec<Value>,
}

impl SimulatedNode {
    /// A node with 4 CPUs, 16Gi of memory and room for 110 Pods.
    pub fn named(name: &str) -> SimulatedNode {
        SimulatedNode {
            name: name.to_owned(),
            capacity: [("cpu", "4"), ("memory", "16Gi"), ("pods", "110")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            labels: BTreeMap::new(),
            taints: Vec::new(),
        }
    }

    /// A control-plane node as kubeadm (and so kind) makes one: a worker's capacity, the
    /// `node-role.kubernetes.io/control-plane` label (and
    /// `node.kubernetes.io/exclude-from-external-load-balancers`), and the
    /// `node-role.kubernetes.io/control-plane:NoSchedule` taint. The control plane's
    /// static Pods run on the first such node.
    pub fn control_plane(name: &str) -> SimulatedNode {
        let mut node = SimulatedNode::named(name);
        for label in [
            CONTROL_PLANE_LABEL,
            "node.kubernetes.io/exclude-from-external-load-balancers",
        ] {
            node.labels.insert(label.to_owned(), String::new());
        }
        node.taints
            .push(json!({"key": CONTROL_PLANE_LABEL, "effect": "NoSchedule"}));
        node
    }
}

/// The label (and taint key) of a control-plane node.
pub(crate) const CONTROL_PLANE_LABEL: &str = "node-role.kubernetes.io/control-plane";

/// What a simulated controller wants done.
#[derive(Debug)]
pub(crate) enum Action {
    /// Create this object (through the API's create: defaults, admission, a generated
    /// name), as a controller's client does.
    Create {
        index: usize,
        namespace: String,
        object: Value,
    },
    /// Write this object over the one stored (an update or a status update).
    Write {
        index: usize,
        key: Key,
        object: Value,
    },
    /// Delete the object (a controller's delete, background propagation; a Pod a
    /// simulated kubelet runs, gracefully).
    Delete { index: usize, key: Key },
    /// Bind the Pod to the node (`pods/binding`, as the scheduler does).
    Bind { key: Key, node: String },
}

/// The built-in resources the simulation works on, where the catalog serves them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Kinds {
    pub(crate) pods: Option<usize>,
    pub(crate) nodes: Option<usize>,
    pub(crate) leases: Option<usize>,
    pub(crate) services: Option<usize>,
    pub(crate) endpoint_slices: Option<usize>,
    pub(crate) deployments: Option<usize>,
    pub(crate) replica_sets: Option<usize>,
    pub(crate) daemon_sets: Option<usize>,
    pub(crate) jobs: Option<usize>,
    pub(crate) cron_jobs: Option<usize>,
    pub(crate) stateful_sets: Option<usize>,
    pub(crate) controller_revisions: Option<usize>,
    pub(crate) persistent_volume_claims: Option<usize>,
    pub(crate) secrets: Option<usize>,
    pub(crate) service_accounts: Option<usize>,
    pub(crate) endpoints: Option<usize>,
    pub(crate) events: Option<usize>,
}

impl Kinds {
    pub(crate) fn of(catalog: &Catalog) -> Kinds {
        let find = |group: &str, plural: &str| catalog.find(group, "v1", plural).map(|(i, _)| i);
        Kinds {
            pods: find("", "pods"),
            nodes: find("", "nodes"),
            leases: find("coordination.k8s.io", "leases"),
            services: find("", "services"),
            endpoint_slices: find("discovery.k8s.io", "endpointslices"),
            deployments: find("apps", "deployments"),
            replica_sets: find("apps", "replicasets"),
            daemon_sets: find("apps", "daemonsets"),
            jobs: find("batch", "jobs"),
            cron_jobs: find("batch", "cronjobs"),
            stateful_sets: find("apps", "statefulsets"),
            controller_revisions: find("apps", "controllerrevisions"),
            persistent_volume_claims: find("", "persistentvolumeclaims"),
            secrets: find("", "secrets"),
            service_accounts: find("", "serviceaccounts"),
            endpoints: find("", "endpoints"),
            events: find("", "events"),
        }
    }
}

/// The objects of resource `index` (none when it is not served).
pub(crate) fn objects(state: &State, index: Option<usize>) -> impl Iterator<Item = (&Key, &Value)> {
    index
        .and_then(|i| state.objects.get(i))
        .into_iter()
        .flat_map(|objects| objects.iter().map(|(k, v)| (k, &**v)))
}

/// The string at `pointer`, or "".
pub(crate) fn text<'a>(object: &'a Value, pointer: &str) -> &'a str {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The integer at `pointer`, or `default`.
pub(crate) fn int(object: &Value, pointer: &str, default: i64) -> i64 {
    object
        .pointer(pointer)
        .and_then(Value::as_i64)
        .unwrap_or(default)
}

/// An Event to create, when the API serves Events.
pub(crate) fn record(kinds: &Kinds, namespace: &str, event: Value) -> Option<Action> {
    Some(Action::Create {
        index: kinds.events?,
        namespace: namespace.to_owned(),
        object: event,
    })
}

/// Whether `dependent` names `owner` (by uid) as its controller.
pub(crate) fn controlled_by(dependent: &Value, owner: &Value) -> bool {
    let uid = text(owner, "/metadata/uid");
    dependent
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .is_some_and(|refs| {
            refs.iter().any(|r| {
                r.get("controller").and_then(Value::as_bool) == Some(true)
                    && r.get("uid").and_then(Value::as_str) == Some(uid)
            })
        })
}

/// The owner reference a controller puts on what it makes (`metav1.NewControllerRef`).
pub(crate) fn controller_ref(owner: &Value, api_version: &str, kind: &str) -> Value {
    json!({
        "apiVersion": api_version,
        "kind": kind,
        "name": text(owner, "/metadata/name"),
        "uid": text(owner, "/metadata/uid"),
        "controller": true,
        "blockOwnerDeletion": true,
    })
}

/// The Pods of a Service's namespace that its `spec.selector` (a plain label map) selects;
/// none for a Service without a selector or being deleted: the Pods the endpoints and
/// EndpointSlice controllers keep endpoints for.
pub(crate) fn service_pods<'a>(
    state: &'a State,
    pods: usize,
    key: &'a Key,
    service: &'a Value,
) -> Option<impl Iterator<Item = &'a Value>> {
    let selector = service
        .pointer("/spec/selector")
        .and_then(Value::as_object)
        .filter(|s| !s.is_empty())?;
    if service.pointer("/metadata/deletionTimestamp").is_some() {
        return None;
    }
    Some(
        objects(state, Some(pods))
            .filter(move |(k, pod)| {
                k.0 == key.0
                    && selector.iter().all(|(label, value)| {
                        pod.pointer("/metadata/labels").and_then(|l| l.get(label)) == Some(value)
                    })
            })
            .map(|(_, pod)| pod),
    )
}

/// The `containerPort` of the port of one of a Pod's containers named `name`: what a
/// Service's `targetPort` by name resolves to for that Pod, in its endpoints and
/// EndpointSlices alike.
pub(crate) fn named_port(pod: &Value, name: &str) -> Option<i64> {
    pod.pointer("/spec/containers")
        .and_then(Value::as_array)?
        .iter()
        .flat_map(|c| {
            c.get("ports")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
        .and_then(|p| p.get("containerPort").and_then(Value::as_i64))
}

/// Whether a `metav1.LabelSelector` selects `labels`; an empty one selects everything
/// (`LabelSelectorAsSelector`), an absent one nothing.
pub(crate) fn selects(selector: Option<&Value>, labels: Option<&Value>) -> bool {
    let Some(selector) = selector.and_then(Value::as_object) else {
        return false;
    };
    let get = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
    let labels_match = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .is_none_or(|wanted| wanted.iter().all(|(k, v)| get(k) == v.as_str()));
    let expressions_match = selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .is_none_or(|list| list.iter().all(|e| requirement(e, &get)));
    labels_match && expressions_match
}

/// One `matchExpressions` requirement (labels' `In`, `NotIn`, `Exists`, `DoesNotExist`;
/// a node selector's `Gt` and `Lt` too) against the value `get` finds for its key.
pub(crate) fn requirement<'a>(expression: &Value, get: &impl Fn(&str) -> Option<&'a str>) -> bool {
    let key = text(expression, "/key");
    let values: Vec<&str> = expression
        .get("values")
        .and_then(Value::as_array)
        .map(|v| v.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let value = get(key);
    let number = |v: &str| v.parse::<i64>().ok();
    match text(expression, "/operator") {
        "In" => value.is_some_and(|v| values.contains(&v)),
        "NotIn" => value.is_none_or(|v| !values.contains(&v)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        "Gt" => {
            matches!((value.and_then(number), values.first().and_then(|v| number(v))), (Some(a), Some(b)) if a > b)
        }
        "Lt" => {
            matches!((value.and_then(number), values.first().and_then(|v| number(v))), (Some(a), Some(b)) if a < b)
        }
        _ => false,
    }
}

/// Whether one of the Pod's tolerations tolerates `taint` (`Toleration.ToleratesTaint`).
pub(crate) fn tolerates(pod: &Value, taint: &Value) -> bool {
    let tolerations = pod.pointer("/spec/tolerations").and_then(Value::as_array);
    tolerations.is_some_and(|list| {
        list.iter().any(|t| {
            let effect = text(t, "/effect");
            if !effect.is_empty() && effect != text(taint, "/effect") {
                return false;
            }
            let key = text(t, "/key");
            if !key.is_empty() && key != text(taint, "/key") {
                return false;
            }
            match text(t, "/operator") {
                "Exists" => true,
                "" | "Equal" => text(t, "/value") == text(taint, "/value"),
                _ => false,
            }
        })
    })
}

/// Sets the condition of `type` in `status.conditions`, as the controllers' `SetCondition`
/// helpers do: one with the same status, reason and message stays as it is; a changed
/// status gets `now` as its `lastTransitionTime`, an unchanged one keeps its own. Any
/// `lastUpdateTime` or `lastProbeTime` the condition has is as given.
pub(crate) fn set_condition(object: &mut Value, mut condition: Value, now: &str) {
    let kind = text(&condition, "/type").to_owned();
    if !object.get("status").is_some_and(Value::is_object) {
        object["status"] = json!({});
    }
    let list = &mut object["status"]["conditions"];
    if !list.is_array() {
        *list = json!([]);
    }
    let Some(list) = list.as_array_mut() else {
        return;
    };
    match list.iter_mut().find(|c| text(c, "/type") == kind) {
        Some(old) => {
            let same = |field: &str| old.get(field) == condition.get(field);
            if same("status") && same("reason") && same("message") {
                return;
            }
            condition["lastTransitionTime"] = if same("status") {
                old.get("lastTransitionTime")
                    .cloned()
                    .unwrap_or(Value::from(now))
            } else {
                Value::from(now)
            };
            *old = condition;
        }
        None => {
            condition["lastTransitionTime"] = Value::from(now);
            list.push(condition);
        }
    }
}

/// The condition of `type` in `status.conditions`, if any.
pub(crate) fn condition<'a>(object: &'a Value, kind: &str) -> Option<&'a Value> {
    object
        .pointer("/status/conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| text(c, "/type") == kind)
}

/// Whether a Pod is `Ready` (its condition `True`).
pub(crate) fn pod_ready(pod: &Value) -> bool {
    condition(pod, "Ready").is_some_and(|c| text(c, "/status") == "True")
}

/// Whether a Pod counts for its controller: not finished and not being deleted
/// (`controller.IsPodActive`).
pub(crate) fn pod_active(pod: &Value) -> bool {
    let phase = text(pod, "/status/phase");
    phase != "Succeeded"
        && phase != "Failed"
        && pod.pointer("/metadata/deletionTimestamp").is_none()
}

/// A name's suffix from a hash of `seed`, in the alphabet `rand.SafeEncodeString` uses.
pub(crate) fn hashed_suffix(seed: &str, length: usize) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    // FNV-1a, as the controllers hash a Pod template (`ComputeHash` uses FNV-32a).
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in seed.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (0..length)
        .map(|_| {
            let c = ALPHABET[(hash % ALPHABET.len() as u64) as usize];
            hash /= ALPHABET.len() as u64;
            char::from(c)
        })
        .collect()
}

/// The node's internal IP (also the `hostIP` of its Pods).
pub(crate) fn address(position: usize) -> String {
    format!("172.18.0.{}", position + 2)
}

/// The simulated nodes present in the store, with their position in the configuration.
pub(crate) fn present<'a>(
    state: &'a State,
    kinds: &Kinds,
    simulation: &'a Simulation,
) -> Vec<(usize, &'a Value)> {
    simulation
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(position, node)| {
            objects(state, kinds.nodes)
                .find(|(key, _)| key.1 == node.name)
                .map(|(_, object)| (position, object))
        })
        .collect()
}

/// A Pod from the owner's template, controlled by it, named after it.
pub(crate) fn pod_from(owner: &Value, api_version: &str, kind: &str) -> Value {
    let template = owner
        .pointer("/spec/template")
        .cloned()
        .unwrap_or(json!({}));
    let mut pod = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": template.get("metadata").cloned().unwrap_or(json!({})),
        "spec": template.get("spec").cloned().unwrap_or(json!({})),
    });
    let meta = &mut pod["metadata"];
    if !meta.is_object() {
        *meta = json!({});
    }
    meta["generateName"] = Value::from(format!("{}-", text(owner, "/metadata/name")));
    meta["ownerReferences"] = json!([controller_ref(owner, api_version, kind)]);
    if let Some(map) = meta.as_object_mut() {
        map.remove("name");
        map.remove("creationTimestamp");
    }
    pod
}

/// Whether a Pod is available: ready for `min_ready` seconds (`podutil.IsPodAvailable`).
pub(crate) fn pod_available(pod: &Value, min_ready: i64, now: Timestamp) -> bool {
    if !pod_ready(pod) {
        return false;
    }
    if min_ready <= 0 {
        return true;
    }
    condition(pod, "Ready")
        .and_then(|c| c.get("lastTransitionTime"))
        .and_then(Value::as_str)
        .and_then(|t| t.parse::<Timestamp>().ok())
        .is_some_and(|since| now.as_second() - since.as_second() >= min_ready)
}
