//! What a kind cluster runs in `kube-system`, written from kubeadm's manifests (kubernetes
//! `cmd/kubeadm/app/phases/addons/dns/manifests.go` and `addons/proxy/manifests.go`, the
//! static Pods of `cmd/kubeadm/app/phases/controlplane`) and metrics-server's
//! (`manifests/base` of kubernetes-sigs/metrics-server), read, not copied, and trimmed to
//! what a client sees.
//!
//! - [`objects`]: what kubeadm's addons phase (and `kubectl apply` of metrics-server's
//!   manifest) creates once, when the cluster starts: CoreDNS's ServiceAccount, ConfigMap,
//!   RBAC, Deployment and its `kube-dns` Service at `10.96.0.10`, kube-proxy's
//!   ServiceAccount, ConfigMap and DaemonSet (on every node: it tolerates every taint), and
//!   with `Simulation::metrics` metrics-server's ServiceAccount, RBAC, Service, Deployment
//!   and its `APIService` `v1beta1.metrics.k8s.io`. A user may delete them; nothing makes
//!   them again, as on a real cluster.
//! - [`plan`]: what runs on every step: the control-plane node's kubelet keeps its static
//!   Pods' mirror Pods (`etcd-`, `kube-apiserver-`, `kube-controller-manager-`,
//!   `kube-scheduler-` suffixed with the node's name, owned by the Node), making one again
//!   when it is deleted; and kube-aggregator's availability controller writes the
//!   `APIService`'s `Available` condition from the endpoints of its Service.

use serde_json::{Value, json};

use crate::controllers::simulation::{
    Action, CONTROL_PLANE_LABEL, Kinds, Simulation, address, objects as stored, pod_ready, present,
    service_pods, set_condition, text,
};
use crate::objects::store::State;

/// The release the images are of (as the simulated kubelets report it).
const RELEASE: &str = "v1.36.0";

/// The namespace.
pub(crate) const NAMESPACE: &str = "kube-system";

/// The metrics API's `APIService`.
pub(crate) const METRICS_API_SERVICE: &str = "v1beta1.metrics.k8s.io";

/// One object to create when the simulation starts: the resource it is of (group,
/// version, plural), the field manager that writes it, and the object.
pub(crate) struct Seed {
    pub(crate) group: &'static str,
    pub(crate) version: &'static str,
    pub(crate) plural: &'static str,
    pub(crate) manager: &'static str,
    pub(crate) object: Value,
}

/// What the cluster starts with in `kube-system` (nothing without
/// `Simulation::kube_system`), in the order it is created.
pub(crate) fn objects(simulation: &Simulation) -> Vec<Seed> {
    if !simulation.kube_system {
        return Vec::new();
    }
    let mut seeds = Vec::new();
    let mut add = |group, version, plural, manager, object| {
        seeds.push(Seed {
            group,
            version,
            plural,
            manager,
            object,
        });
    };
    const RBAC: &str = "rbac.authorization.k8s.io";
    add("", "v1", "serviceaccounts", "kubeadm", account("coredns"));
    add("", "v1", "configmaps", "kubeadm", coredns_config());
    add(RBAC, "v1", "clusterroles", "kubeadm", coredns_role());
    add(
        RBAC,
        "v1",
        "clusterrolebindings",
        "kubeadm",
        cluster_binding("system:coredns", "system:coredns", "coredns"),
    );
    add("apps", "v1", "deployments", "kubeadm", coredns());
    add("", "v1", "services", "kubeadm", kube_dns());
    add(
        "",
        "v1",
        "serviceaccounts",
        "kubeadm",
        account("kube-proxy"),
    );
    add("", "v1", "configmaps", "kubeadm", proxy_config());
    add(
        RBAC,
        "v1",
        "clusterrolebindings",
        "kubeadm",
        cluster_binding("kubeadm:node-proxier", "system:node-proxier", "kube-proxy"),
    );
    add("apps", "v1", "daemonsets", "kubeadm", kube_proxy());
    if simulation.metrics {
        const KUBECTL: &str = "kubectl-client-side-apply";
        add(
            "",
            "v1",
            "serviceaccounts",
            KUBECTL,
            labelled(account("metrics-server")),
        );
        for role in metrics_roles() {
            add(RBAC, "v1", "clusterroles", KUBECTL, role);
        }
        add(
            RBAC,
            "v1",
            "clusterrolebindings",
            KUBECTL,
            labelled(cluster_binding(
                "metrics-server:system:auth-delegator",
                "system:auth-delegator",
                "metrics-server",
            )),
        );
        add(
            RBAC,
            "v1",
            "clusterrolebindings",
            KUBECTL,
            labelled(cluster_binding(
                "system:metrics-server",
                "system:metrics-server",
                "metrics-server",
            )),
        );
        add("", "v1", "services", KUBECTL, metrics_service());
        add("apps", "v1", "deployments", KUBECTL, metrics_server());
        add(
            "apiregistration.k8s.io",
            "v1",
            "apiservices",
            KUBECTL,
            metrics_api_service(),
        );
    }
    seeds
}

fn account(name: &str) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": name, "namespace": NAMESPACE},
    })
}

/// metrics-server's objects carry its `k8s-app` label.
fn labelled(mut object: Value) -> Value {
    object["metadata"]["labels"] = json!({"k8s-app": "metrics-server"});
    object
}

fn cluster_binding(name: &str, role: &str, account: &str) -> Value {
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
        "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": NAMESPACE}],
    })
}

fn coredns_config() -> Value {
    let corefile = ".:53 {\n    errors\n    health {\n       lameduck 5s\n    }\n    ready\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n       pods insecure\n       fallthrough in-addr.arpa ip6.arpa\n       ttl 30\n    }\n    prometheus :9153\n    forward . /etc/resolv.conf {\n       max_concurrent 1000\n    }\n    cache 30 {\n       disable success cluster.local\n       disable denial cluster.local\n    }\n    loop\n    reload\n    loadbalance\n}\n";
    json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "coredns", "namespace": NAMESPACE},
        "data": {"Corefile": corefile},
    })
}

fn coredns_role() -> Value {
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "system:coredns"},
        "rules": [
            {"apiGroups": [""], "resources": ["endpoints", "services", "pods", "namespaces"], "verbs": ["list", "watch"]},
            {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["list", "watch"]},
        ],
    })
}

fn coredns() -> Value {
    let port = |port: u16, name: &str, protocol: &str| json!({"containerPort": port, "name": name, "protocol": protocol});
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "coredns", "namespace": NAMESPACE, "labels": {"k8s-app": "kube-dns"}},
        "spec": {
            "replicas": 2,
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
            "selector": {"matchLabels": {"k8s-app": "kube-dns"}},
            "template": {
                "metadata": {"labels": {"k8s-app": "kube-dns"}},
                "spec": {
                    "priorityClassName": "system-cluster-critical",
                    "serviceAccountName": "coredns",
                    "tolerations": [
                        {"key": "CriticalAddonsOnly", "operator": "Exists"},
                        {"key": CONTROL_PLANE_LABEL, "effect": "NoSchedule"},
                    ],
                    "nodeSelector": {"kubernetes.io/os": "linux"},
                    "containers": [{
                        "name": "coredns",
                        "image": "registry.k8s.io/coredns/coredns:v1.12.1",
                        "imagePullPolicy": "IfNotPresent",
                        "resources": {"limits": {"memory": "170Mi"}, "requests": {"cpu": "100m", "memory": "70Mi"}},
                        "args": ["-conf", "/etc/coredns/Corefile"],
                        "volumeMounts": [{"name": "config-volume", "mountPath": "/etc/coredns", "readOnly": true}],
                        "ports": [
                            port(53, "dns", "UDP"),
                            port(53, "dns-tcp", "TCP"),
                            port(9153, "metrics", "TCP"),
                            port(8080, "liveness-probe", "TCP"),
                            port(8181, "readiness-probe", "TCP"),
                        ],
                        "readinessProbe": {"httpGet": {"path": "/ready", "port": "readiness-probe", "scheme": "HTTP"}},
                    }],
                    "dnsPolicy": "Default",
                    "volumes": [{"name": "config-volume", "configMap": {"name": "coredns", "items": [{"key": "Corefile", "path": "Corefile"}]}}],
                },
            },
        },
    })
}

fn kube_dns() -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": "kube-dns",
            "namespace": NAMESPACE,
            "labels": {"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true", "kubernetes.io/name": "CoreDNS"},
            "annotations": {"prometheus.io/port": "9153", "prometheus.io/scrape": "true"},
        },
        "spec": {
            "clusterIP": "10.96.0.10",
            "ports": [
                {"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
                {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53},
                {"name": "metrics", "port": 9153, "protocol": "TCP", "targetPort": 9153},
            ],
            "selector": {"k8s-app": "kube-dns"},
        },
    })
}

fn proxy_config() -> Value {
    let config = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: 10.244.0.0/16\nmode: iptables\n";
    json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "kube-proxy", "namespace": NAMESPACE, "labels": {"app": "kube-proxy"}},
        "data": {"config.conf": config},
    })
}

fn kube_proxy() -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "kube-proxy", "namespace": NAMESPACE, "labels": {"k8s-app": "kube-proxy"}},
        "spec": {
            "selector": {"matchLabels": {"k8s-app": "kube-proxy"}},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
            "template": {
                "metadata": {"labels": {"k8s-app": "kube-proxy"}},
                "spec": {
                    "priorityClassName": "system-node-critical",
                    "containers": [{
                        "name": "kube-proxy",
                        "image": format!("registry.k8s.io/kube-proxy:{RELEASE}"),
                        "imagePullPolicy": "IfNotPresent",
                        "command": [
                            "/usr/local/bin/kube-proxy",
                            "--config=/var/lib/kube-proxy/config.conf",
                            "--hostname-override=$(NODE_NAME)",
                        ],
                        "securityContext": {"privileged": true},
                        "volumeMounts": [{"mountPath": "/var/lib/kube-proxy", "name": "kube-proxy"}],
                        "env": [{"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
                    }],
                    "hostNetwork": true,
                    "serviceAccountName": "kube-proxy",
                    "volumes": [{"name": "kube-proxy", "configMap": {"name": "kube-proxy"}}],
                    "tolerations": [{"operator": "Exists"}],
                    "nodeSelector": {"kubernetes.io/os": "linux"},
                },
            },
        },
    })
}

fn metrics_roles() -> Vec<Value> {
    let reader = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {
            "name": "system:aggregated-metrics-reader",
            "labels": {
                "k8s-app": "metrics-server",
                "rbac.authorization.k8s.io/aggregate-to-admin": "true",
                "rbac.authorization.k8s.io/aggregate-to-edit": "true",
                "rbac.authorization.k8s.io/aggregate-to-view": "true",
            },
        },
        "rules": [{"apiGroups": ["metrics.k8s.io"], "resources": ["pods", "nodes"], "verbs": ["get", "list", "watch"]}],
    });
    let server = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "system:metrics-server", "labels": {"k8s-app": "metrics-server"}},
        "rules": [
            {"apiGroups": [""], "resources": ["nodes/metrics"], "verbs": ["get"]},
            {"apiGroups": [""], "resources": ["pods", "nodes"], "verbs": ["get", "list", "watch"]},
        ],
    });
    vec![reader, server]
}

fn metrics_service() -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "metrics-server", "namespace": NAMESPACE, "labels": {"k8s-app": "metrics-server"}},
        "spec": {
            "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": "https"}],
            "selector": {"k8s-app": "metrics-server"},
        },
    })
}

fn metrics_server() -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "metrics-server", "namespace": NAMESPACE, "labels": {"k8s-app": "metrics-server"}},
        "spec": {
            "selector": {"matchLabels": {"k8s-app": "metrics-server"}},
            "strategy": {"rollingUpdate": {"maxUnavailable": 0}},
            "template": {
                "metadata": {"labels": {"k8s-app": "metrics-server"}},
                "spec": {
                    "serviceAccountName": "metrics-server",
                    "priorityClassName": "system-cluster-critical",
                    "volumes": [{"name": "tmp-dir", "emptyDir": {}}],
                    "containers": [{
                        "name": "metrics-server",
                        "image": "registry.k8s.io/metrics-server/metrics-server:v0.8.0",
                        "imagePullPolicy": "IfNotPresent",
                        "args": [
                            "--cert-dir=/tmp",
                            "--secure-port=10250",
                            "--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname",
                            "--kubelet-use-node-status-port",
                            "--metric-resolution=15s",
                            "--kubelet-insecure-tls",
                        ],
                        "resources": {"requests": {"cpu": "100m", "memory": "200Mi"}},
                        "ports": [{"name": "https", "containerPort": 10250, "protocol": "TCP"}],
                        "readinessProbe": {
                            "httpGet": {"path": "/readyz", "port": "https", "scheme": "HTTPS"},
                            "periodSeconds": 10,
                            "failureThreshold": 3,
                            "initialDelaySeconds": 20,
                        },
                        "securityContext": {
                            "readOnlyRootFilesystem": true,
                            "runAsNonRoot": true,
                            "runAsUser": 1000,
                            "allowPrivilegeEscalation": false,
                        },
                        "volumeMounts": [{"name": "tmp-dir", "mountPath": "/tmp"}],
                    }],
                    "nodeSelector": {"kubernetes.io/os": "linux"},
                },
            },
        },
    })
}

fn metrics_api_service() -> Value {
    json!({
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": METRICS_API_SERVICE, "labels": {"k8s-app": "metrics-server"}},
        "spec": {
            "service": {"name": "metrics-server", "namespace": NAMESPACE, "port": 443},
            "group": "metrics.k8s.io",
            "version": "v1beta1",
            "insecureSkipTLSVerify": true,
            "groupPriorityMinimum": 100,
            "versionPriority": 100,
        },
    })
}

/// The control plane's static Pods: component, image, requests (kubeadm's), command.
const STATIC_PODS: [(&str, &str, &str, &str); 4] = [
    ("etcd", "registry.k8s.io/etcd:3.6.4-0", "100m", "etcd"),
    (
        "kube-apiserver",
        "registry.k8s.io/kube-apiserver",
        "250m",
        "kube-apiserver",
    ),
    (
        "kube-controller-manager",
        "registry.k8s.io/kube-controller-manager",
        "200m",
        "kube-controller-manager",
    ),
    (
        "kube-scheduler",
        "registry.k8s.io/kube-scheduler",
        "100m",
        "kube-scheduler",
    ),
];

pub(crate) fn plan(
    state: &State,
    kinds: &Kinds,
    simulation: &Simulation,
    now: &str,
) -> Vec<Action> {
    let mut actions = Vec::new();
    if !simulation.kube_system {
        return actions;
    }
    mirror_pods(state, kinds, simulation, &mut actions);
    available(state, kinds, now, &mut actions);
    actions
}

/// The first control-plane node's kubelet keeps a mirror Pod of each static Pod.
fn mirror_pods(state: &State, kinds: &Kinds, simulation: &Simulation, actions: &mut Vec<Action>) {
    let Some(pods) = kinds.pods else {
        return;
    };
    let Some((position, node)) = present(state, kinds, simulation)
        .into_iter()
        .find(|(_, node)| {
            node.pointer("/metadata/labels")
                .and_then(|l| l.get(CONTROL_PLANE_LABEL))
                .is_some()
        })
    else {
        return;
    };
    let node_name = text(node, "/metadata/name");
    let ip = address(position);
    for (component, image, cpu, command) in STATIC_PODS {
        let name = format!("{component}-{node_name}");
        if state.objects[pods].contains_key(&(NAMESPACE.to_owned(), name.clone())) {
            continue;
        }
        let image = if image.contains(':') {
            image.to_owned()
        } else {
            format!("{image}:{RELEASE}")
        };
        let mut requests = json!({"cpu": cpu});
        if component == "etcd" {
            requests["memory"] = json!("100Mi");
        }
        let hash = super::hashed_suffix(&format!("{component}/{node_name}"), 32);
        let mut annotations = json!({
            "kubernetes.io/config.hash": hash,
            "kubernetes.io/config.mirror": hash,
            "kubernetes.io/config.seen": "",
            "kubernetes.io/config.source": "file",
        });
        match component {
            "etcd" => {
                annotations["kubeadm.kubernetes.io/etcd.advertise-client-urls"] =
                    json!(format!("https://{ip}:2379"));
            }
            "kube-apiserver" => {
                annotations["kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint"] =
                    json!(format!("{ip}:6443"));
            }
            _ => {}
        }
        actions.push(Action::Create {
            index: pods,
            namespace: NAMESPACE.to_owned(),
            object: json!({
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": name,
                    "namespace": NAMESPACE,
                    "labels": {"component": component, "tier": "control-plane"},
                    "annotations": annotations,
                    "ownerReferences": [{
                        "apiVersion": "v1",
                        "kind": "Node",
                        "name": node_name,
                        "uid": text(node, "/metadata/uid"),
                        "controller": true,
                    }],
                },
                "spec": {
                    "nodeName": node_name,
                    "hostNetwork": true,
                    "priorityClassName": "system-node-critical",
                    "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": [{
                        "name": component,
                        "image": image,
                        "imagePullPolicy": "IfNotPresent",
                        "command": [command],
                        "resources": {"requests": requests},
                    }],
                    "tolerations": [{"operator": "Exists", "effect": "NoExecute"}],
                },
            }),
        });
    }
}

/// kube-aggregator's availability of the metrics `APIService`: `Available` when a ready
/// Pod backs its Service, else the aggregator's `MissingEndpoints`.
fn available(state: &State, kinds: &Kinds, now: &str, actions: &mut Vec<Action>) {
    let Some((index, _)) = state
        .catalog
        .find("apiregistration.k8s.io", "v1", "apiservices")
    else {
        return;
    };
    let key = (String::new(), METRICS_API_SERVICE.to_owned());
    let Some(api_service) = state.objects[index].get(&key) else {
        return;
    };
    let service_name = text(api_service, "/spec/service/name");
    let service_namespace = text(api_service, "/spec/service/namespace");
    let service_key = (service_namespace.to_owned(), service_name.to_owned());
    let service = stored(state, kinds.services).find(|(k, _)| **k == service_key);
    let ready = match (service, kinds.pods) {
        (Some((k, service)), Some(pods)) => {
            service_pods(state, pods, k, service).is_some_and(|mut p| p.any(pod_ready))
        }
        _ => false,
    };
    let condition = if ready {
        json!({"type": "Available", "status": "True", "reason": "Passed", "message": "all checks passed"})
    } else if service.is_none() {
        json!({
            "type": "Available",
            "status": "False",
            "reason": "ServiceNotFound",
            "message": format!("service/{service_name} in \"{service_namespace}\" is not present"),
        })
    } else {
        json!({
            "type": "Available",
            "status": "False",
            "reason": "MissingEndpoints",
            "message": format!("endpoints for service/{service_name} in \"{service_namespace}\" have no addresses with port name \"https\""),
        })
    };
    let mut object = (**api_service).clone();
    set_condition(&mut object, condition, now);
    if object != **api_service {
        actions.push(Action::Write { index, key, object });
    }
}
