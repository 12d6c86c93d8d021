//! metrics-server's API, `metrics.k8s.io/v1beta1` (kubernetes-sigs/metrics-server
//! `pkg/api/pod.go` and `node.go`, read, not copied): `PodMetrics` of each Running Pod on a
//! simulated node, a container for each running container, and `NodeMetrics` of each
//! simulated node, the sum of its Pods'. A container uses what the simulation was told it
//! uses ([`usage`]), else its requests (0 where it requests nothing). The values are written
//! as metrics-server writes them: CPU as a quantity in cores scaled to nanocores (`100m`,
//! `1500u`, `2195445n`), memory in bytes as a binary quantity (`70Mi`, `1536Ki`), with the
//! `timestamp` of the sample (the server's clock) and its `window` (the 15-second
//! resolution of metrics-server's `--metric-resolution`). It is computed on every request;
//! nothing is stored.

use serde_json::{Map, Value, json};

use crate::controllers::simulation::{Simulation, Usage, text};
use crate::objects::catalog::Catalog;

/// The group.
pub(crate) const GROUP: &str = "metrics.k8s.io";
/// The version.
pub(crate) const VERSION: &str = "v1beta1";
/// The `window` every sample covers.
const WINDOW: &str = "15s";

/// The annotation that says what every container of a Pod uses; with `.<container>`, what
/// that container uses: `<cpu>,<memory>`.
const USAGE: &str = "simulation.kubeforge.dev/usage";

/// `catalog` with the metrics API's two resources, as metrics-server's `APIService` adds
/// them to discovery: `pods` (`PodMetrics`, namespaced) and `nodes` (`NodeMetrics`), both
/// `get` and `list` only.
pub(crate) fn serve(mut catalog: Catalog) -> Catalog {
    for (kind, plural, namespaced) in [
        ("PodMetrics", "pods", true),
        ("NodeMetrics", "nodes", false),
    ] {
        let def = catalog.entry(GROUP, VERSION, kind, plural, namespaced);
        def.serve(None, "get", false);
        def.serve(None, "list", false);
    }
    catalog
}

/// What `container` of `pod` uses: the Pod's annotation for it, the Pod's annotation for
/// all its containers, the image's usage (with its tag, then without), or its requests.
pub(crate) fn usage(pod: &Value, container: &Value, simulation: &Simulation) -> Usage {
    let name = text(container, "/name");
    let annotations = pod.pointer("/metadata/annotations");
    let annotation = |key: &str| annotations.and_then(|a| a.get(key)).and_then(Value::as_str);
    if let Some(usage) = annotation(&format!("{USAGE}.{name}"))
        .or_else(|| annotation(USAGE))
        .and_then(Usage::parse)
    {
        return usage;
    }
    let image = text(container, "/image");
    let untagged = match image.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => name,
        _ => image,
    };
    if let Some(usage) = simulation
        .usage
        .get(image)
        .or_else(|| simulation.usage.get(untagged))
    {
        return usage.clone();
    }
    let request = |resource: &str| {
        container
            .pointer(&format!("/resources/requests/{resource}"))
            .and_then(Value::as_str)
            .unwrap_or("0")
            .to_owned()
    };
    Usage {
        cpu: request("cpu"),
        memory: request("memory"),
    }
}

/// A usage in nanocores and bytes (0 for what is not a quantity).
fn amounts(usage: &Usage) -> (i64, i64) {
    let number = |q: &str, scale: f64| {
        kubeforge_runtime::Quantity::parse(q)
            .ok()
            .and_then(|q| q.to_f64())
            .filter(|v| v.is_finite() && *v >= 0.0)
            // Saturates at i64::MAX, as `as` does: a usage of exabytes is not one to sum.
            .map_or(0, |v| (v * scale).round() as i64)
    };
    (number(&usage.cpu, 1e9), number(&usage.memory, 1.0))
}

/// Nanocores as metrics-server writes them (`resource.NewScaledQuantity(n, resource.Nano)`,
/// canonical): `1`, `100m`, `1500u`, `2195445n`.
pub(crate) fn cpu_text(nanos: i64) -> String {
    if nanos == 0 {
        return "0".to_owned();
    }
    for (divisor, suffix) in [(1_000_000_000, ""), (1_000_000, "m"), (1_000, "u")] {
        if nanos % divisor == 0 {
            return format!("{}{suffix}", nanos / divisor);
        }
    }
    format!("{nanos}n")
}

/// Bytes as metrics-server writes them (`resource.NewQuantity(b, resource.BinarySI)`,
/// canonical): the largest power of 1024 that divides them (`70Mi`, `1536Ki`), else plain.
pub(crate) fn memory_text(bytes: i64) -> String {
    let mut value = bytes;
    let mut suffix = "";
    if value.abs() >= 1024 {
        for next in ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"] {
            if value % 1024 != 0 {
                break;
            }
            value /= 1024;
            suffix = next;
        }
    }
    format!("{value}{suffix}")
}

/// The running containers of a Pod, from its spec, with what each uses.
fn containers(pod: &Value, simulation: &Simulation) -> Vec<(String, (i64, i64))> {
    let running = |name: &str| {
        pod.pointer("/status/containerStatuses")
            .and_then(Value::as_array)
            .is_some_and(|statuses| {
                statuses
                    .iter()
                    .any(|s| text(s, "/name") == name && s.pointer("/state/running").is_some())
            })
    };
    pod.pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|c| running(text(c, "/name")))
        .map(|c| {
            (
                text(c, "/name").to_owned(),
                amounts(&usage(pod, c, simulation)),
            )
        })
        .collect()
}

/// Whether metrics-server has a sample of the Pod: `Running` on a simulated node.
fn sampled(pod: &Value, simulation: &Simulation) -> bool {
    text(pod, "/status/phase") == "Running" && simulation.runs(pod)
}

/// The metadata metrics-server writes: the object's name, namespace and labels, created now.
fn metadata(object: &Value, now: &str) -> Value {
    let mut meta = Map::new();
    meta.insert("name".into(), json!(text(object, "/metadata/name")));
    let namespace = text(object, "/metadata/namespace");
    if !namespace.is_empty() {
        meta.insert("namespace".into(), json!(namespace));
    }
    meta.insert("creationTimestamp".into(), json!(now));
    if let Some(labels) = object
        .pointer("/metadata/labels")
        .filter(|l| l.as_object().is_some_and(|l| !l.is_empty()))
    {
        meta.insert("labels".into(), labels.clone());
    }
    Value::Object(meta)
}

/// The `PodMetrics` of `pod` (an item of a list: no `kind`, no `apiVersion`, unless
/// `typed`), or `None` when metrics-server has no sample of it.
pub(crate) fn pod_metrics(
    pod: &Value,
    simulation: &Simulation,
    now: &str,
    typed: bool,
) -> Option<Value> {
    if !sampled(pod, simulation) {
        return None;
    }
    let containers: Vec<Value> = containers(pod, simulation)
        .into_iter()
        .map(|(name, (cpu, memory))| {
            json!({"name": name, "usage": {"cpu": cpu_text(cpu), "memory": memory_text(memory)}})
        })
        .collect();
    let mut object = Map::new();
    if typed {
        object.insert("kind".into(), json!("PodMetrics"));
        object.insert("apiVersion".into(), json!(format!("{GROUP}/{VERSION}")));
    }
    object.insert("metadata".into(), metadata(pod, now));
    object.insert("timestamp".into(), json!(now));
    object.insert("window".into(), json!(WINDOW));
    object.insert("containers".into(), Value::from(containers));
    Some(Value::Object(object))
}

/// The `NodeMetrics` of `node`, the sum of what the Pods sampled on it use, or `None` when
/// it is not a simulated node.
pub(crate) fn node_metrics<'a>(
    node: &Value,
    pods: impl Iterator<Item = &'a Value>,
    simulation: &Simulation,
    now: &str,
    typed: bool,
) -> Option<Value> {
    let name = text(node, "/metadata/name");
    if !simulation.has_node(name) {
        return None;
    }
    let (mut cpu, mut memory) = (0i64, 0i64);
    for pod in pods.filter(|p| text(p, "/spec/nodeName") == name && sampled(p, simulation)) {
        for (_, (c, m)) in containers(pod, simulation) {
            cpu = cpu.saturating_add(c);
            memory = memory.saturating_add(m);
        }
    }
    let mut object = Map::new();
    if typed {
        object.insert("kind".into(), json!("NodeMetrics"));
        object.insert("apiVersion".into(), json!(format!("{GROUP}/{VERSION}")));
    }
    object.insert("metadata".into(), metadata(node, now));
    object.insert("timestamp".into(), json!(now));
    object.insert("window".into(), json!(WINDOW));
    object.insert(
        "usage".into(),
        json!({"cpu": cpu_text(cpu), "memory": memory_text(memory)}),
    );
    Some(Value::Object(object))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_are_written_as_metrics_server_writes_them() {
        assert_eq!(cpu_text(0), "0");
        assert_eq!(cpu_text(100_000_000), "100m");
        assert_eq!(cpu_text(2_000_000_000), "2");
        assert_eq!(cpu_text(1_500_000), "1500u");
        assert_eq!(cpu_text(2_195_445), "2195445n");
        assert_eq!(memory_text(0), "0");
        assert_eq!(memory_text(70 * 1024 * 1024), "70Mi");
        assert_eq!(memory_text(1536 * 1024), "1536Ki");
        assert_eq!(memory_text(100_000_000), "100000000");
        assert_eq!(memory_text(512), "512");
        assert_eq!(
            amounts(&Usage::parse("250m,64Mi").unwrap()),
            (250_000_000, 64 << 20)
        );
        assert_eq!(
            amounts(&Usage::parse("1.5,1G").unwrap()),
            (1_500_000_000, 1_000_000_000)
        );
        assert!(Usage::parse("lots,64Mi").is_none());
        assert!(Usage::parse("250m").is_none());
    }
}
