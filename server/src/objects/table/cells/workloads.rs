//! Workloads: the controllers that run pods (Deployments, ReplicaSets, StatefulSets,
//! DaemonSets, Jobs, CronJobs, ReplicationControllers), their templates and revisions,
//! disruption budgets and autoscalers.

use serde_json::Value;

use super::super::fields::{condition, deleting, field, int, list, text};
use super::super::format::{
    ago, format_label_selector, format_labels, human_duration, int_or_string, or, parse_time,
    quantity, selector_string, since,
};
use super::common::{Cells, age, integer, length, name, string};

pub(super) const PRINTERS: &[(&str, Cells)] = &[
    ("/PodTemplate", pod_template),
    ("/ReplicationController", replication_controller),
    ("apps/ReplicaSet", replica_set),
    ("apps/Deployment", deployment),
    ("apps/StatefulSet", stateful_set),
    ("apps/DaemonSet", daemon_set),
    ("apps/ControllerRevision", controller_revision),
    ("batch/Job", job),
    ("batch/CronJob", cron_job),
    ("policy/PodDisruptionBudget", pod_disruption_budget),
    (
        "autoscaling/HorizontalPodAutoscaler",
        horizontal_pod_autoscaler,
    ),
];

/// Container names and images, comma-separated (printers.go's `layoutContainerCells`).
fn containers(list: Option<&Value>) -> [Value; 2] {
    let items = list.and_then(Value::as_array).cloned().unwrap_or_default();
    let joined = |k: &str| {
        items
            .iter()
            .map(|c| field(c, k).to_owned())
            .collect::<Vec<_>>()
            .join(",")
    };
    [Value::from(joined("name")), Value::from(joined("image"))]
}

/// `ready/desired` replicas (Deployments, StatefulSets).
fn ready(o: &Value) -> Value {
    Value::from(format!(
        "{}/{}",
        int(o, "/status/readyReplicas"),
        int(o, "/spec/replicas")
    ))
}

fn pod_template(o: &Value) -> Vec<Value> {
    let [names, images] = containers(o.pointer("/template/spec/containers"));
    vec![
        name(o),
        names,
        images,
        Value::from(format_labels(o.pointer("/template/metadata/labels"))),
    ]
}

/// A ReplicationController's selector is a map of labels.
fn replication_controller(o: &Value) -> Vec<Value> {
    replicas(o, format_labels(o.pointer("/spec/selector")))
}

fn replica_set(o: &Value) -> Vec<Value> {
    replicas(o, format_label_selector(o.pointer("/spec/selector")))
}

/// The columns ReplicaSets and ReplicationControllers share.
fn replicas(o: &Value, selector: String) -> Vec<Value> {
    let [names, images] = containers(o.pointer("/spec/template/spec/containers"));
    vec![
        name(o),
        integer(o, "/spec/replicas"),
        integer(o, "/status/replicas"),
        integer(o, "/status/readyReplicas"),
        age(o),
        names,
        images,
        Value::from(selector),
    ]
}

fn deployment(o: &Value) -> Vec<Value> {
    let [names, images] = containers(o.pointer("/spec/template/spec/containers"));
    vec![
        name(o),
        ready(o),
        integer(o, "/status/updatedReplicas"),
        integer(o, "/status/availableReplicas"),
        age(o),
        names,
        images,
        Value::from(selector_string(o.pointer("/spec/selector"))),
    ]
}

fn stateful_set(o: &Value) -> Vec<Value> {
    let [names, images] = containers(o.pointer("/spec/template/spec/containers"));
    vec![name(o), ready(o), age(o), names, images]
}

fn daemon_set(o: &Value) -> Vec<Value> {
    let [names, images] = containers(o.pointer("/spec/template/spec/containers"));
    vec![
        name(o),
        integer(o, "/status/desiredNumberScheduled"),
        integer(o, "/status/currentNumberScheduled"),
        integer(o, "/status/numberReady"),
        integer(o, "/status/updatedNumberScheduled"),
        integer(o, "/status/numberAvailable"),
        Value::from(format_labels(o.pointer("/spec/template/spec/nodeSelector"))),
        age(o),
        names,
        images,
        Value::from(format_label_selector(o.pointer("/spec/selector"))),
    ]
}

fn controller_revision(o: &Value) -> Vec<Value> {
    let controller = list(o, "/metadata/ownerReferences")
        .into_iter()
        .find(|r| r.get("controller") == Some(&Value::Bool(true)))
        .map_or_else(|| "<none>".to_owned(), owner);
    vec![
        name(o),
        Value::from(controller),
        Value::from(int(o, "/revision").to_string()),
        age(o),
    ]
}

/// An owner reference as `kind.group/name`, lower case.
fn owner(reference: &Value) -> String {
    let group = field(reference, "apiVersion")
        .rsplit_once('/')
        .map_or("", |(g, _)| g);
    let kind = if group.is_empty() {
        field(reference, "kind").to_lowercase()
    } else {
        format!("{}.{group}", field(reference, "kind")).to_lowercase()
    };
    format!("{kind}/{}", field(reference, "name"))
}

fn job(o: &Value) -> Vec<Value> {
    let [names, images] = containers(o.pointer("/spec/template/spec/containers"));
    vec![
        name(o),
        Value::from(job_status(o)),
        Value::from(completions(o)),
        Value::from(job_duration(o)),
        age(o),
        names,
        images,
        Value::from(format_label_selector(o.pointer("/spec/selector"))),
    ]
}

/// `succeeded/completions`, or `/1` (`of parallelism`) for a job without completions.
fn completions(o: &Value) -> String {
    let succeeded = int(o, "/status/succeeded");
    match o.pointer("/spec/completions").and_then(Value::as_i64) {
        Some(c) => format!("{succeeded}/{c}"),
        None => {
            let parallelism = int(o, "/spec/parallelism");
            if parallelism > 1 {
                format!("{succeeded}/1 of {parallelism}")
            } else {
                format!("{succeeded}/1")
            }
        }
    }
}

/// From start to completion, or to now while the job runs.
fn job_duration(o: &Value) -> String {
    let time = |pointer: &str| {
        o.pointer(pointer)
            .and_then(Value::as_str)
            .and_then(parse_time)
    };
    match (time("/status/startTime"), time("/status/completionTime")) {
        (None, _) => String::new(),
        (Some(s), None) => ago(s),
        (Some(s), Some(e)) => human_duration(e - s),
    }
}

fn job_status(o: &Value) -> &'static str {
    let has = |t: &str| {
        condition(o, "/status/conditions", t)
            .is_some_and(|c| c.get("status").and_then(Value::as_str) == Some("True"))
    };
    if has("Complete") {
        "Complete"
    } else if has("Failed") {
        "Failed"
    } else if deleting(o) {
        "Terminating"
    } else if has("Suspended") {
        "Suspended"
    } else if has("FailureTarget") {
        "FailureTarget"
    } else {
        "Running"
    }
}

fn cron_job(o: &Value) -> Vec<Value> {
    let [names, images] = containers(o.pointer("/spec/jobTemplate/spec/template/spec/containers"));
    let last = match o
        .pointer("/status/lastScheduleTime")
        .and_then(Value::as_str)
    {
        Some(t) => since(t),
        None => "<none>".to_owned(),
    };
    let suspend = match o.pointer("/spec/suspend").and_then(Value::as_bool) {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    };
    vec![
        name(o),
        string(o, "/spec/schedule"),
        Value::from(or(text(o, "/spec/timeZone"), "<none>")),
        Value::from(suspend),
        length(o, "/status/active"),
        Value::from(last),
        age(o),
        names,
        images,
        Value::from(format_label_selector(
            o.pointer("/spec/jobTemplate/spec/selector"),
        )),
    ]
}

fn pod_disruption_budget(o: &Value) -> Vec<Value> {
    vec![
        name(o),
        Value::from(int_or_string(o.pointer("/spec/minAvailable"))),
        Value::from(int_or_string(o.pointer("/spec/maxUnavailable"))),
        integer(o, "/status/disruptionsAllowed"),
        age(o),
    ]
}

fn horizontal_pod_autoscaler(o: &Value) -> Vec<Value> {
    let reference = format!(
        "{}/{}",
        text(o, "/spec/scaleTargetRef/kind"),
        text(o, "/spec/scaleTargetRef/name")
    );
    let min = o
        .pointer("/spec/minReplicas")
        .and_then(Value::as_i64)
        .map_or_else(|| "<unset>".to_owned(), |n| n.to_string());
    vec![
        name(o),
        Value::from(reference),
        Value::from(hpa_metrics(o)),
        Value::from(min),
        integer(o, "/spec/maxReplicas"),
        integer(o, "/status/currentReplicas"),
        age(o),
    ]
}

/// `current/target` of each metric, two at most (`formatHPAMetrics`).
fn hpa_metrics(o: &Value) -> String {
    let specs = list(o, "/spec/metrics");
    if specs.is_empty() {
        return "<none>".to_owned();
    }
    let statuses = list(o, "/status/currentMetrics");
    let items: Vec<String> = specs
        .iter()
        .enumerate()
        .map(|(i, spec)| hpa_metric(spec, statuses.get(i).copied()))
        .collect();
    if items.len() > 2 {
        let extra = items.len() - 2;
        format!("{} + {extra} more...", items[..2].join(", "))
    } else {
        items.join(", ")
    }
}

/// One metric's `current/target`, from its spec and the status at the same index.
fn hpa_metric(spec: &Value, status: Option<&Value>) -> String {
    let q = |v: Option<&Value>, p: &str| v.and_then(|v| v.pointer(p)).map(|x| quantity(Some(x)));
    let current = |p: &str| q(status, p).unwrap_or_else(|| "<unknown>".to_owned());
    match field(spec, "type") {
        kind @ ("External" | "Object") => {
            let source = if kind == "External" {
                "external"
            } else {
                "object"
            };
            match q(Some(spec), &format!("/{source}/target/averageValue")) {
                Some(target) => format!(
                    "{}/{target} (avg)",
                    current(&format!("/{source}/current/averageValue"))
                ),
                None => format!(
                    "{}/{}",
                    current(&format!("/{source}/current/value")),
                    q(Some(spec), &format!("/{source}/target/value")).unwrap_or_default()
                ),
            }
        }
        "Pods" => format!(
            "{}/{}",
            current("/pods/current/averageValue"),
            q(Some(spec), "/pods/target/averageValue").unwrap_or_default()
        ),
        kind @ ("Resource" | "ContainerResource") => {
            let source = if kind == "Resource" {
                "resource"
            } else {
                "containerResource"
            };
            resource_metric(spec, status, source)
        }
        _ => "<unknown type>".to_owned(),
    }
}

/// A resource metric: `name: current/target`, as values or utilizations.
fn resource_metric(spec: &Value, status: Option<&Value>, source: &str) -> String {
    let resource = text(spec, &format!("/{source}/name"));
    let q = |v: Option<&Value>, p: &str| v.and_then(|v| v.pointer(p)).map(|x| quantity(Some(x)));
    match q(Some(spec), &format!("/{source}/target/averageValue")) {
        Some(target) => format!(
            "{resource}: {}/{target}",
            q(status, &format!("/{source}/current/averageValue"))
                .unwrap_or_else(|| "<unknown>".to_owned())
        ),
        None => {
            let now = status
                .and_then(|s| s.pointer(&format!("/{source}/current/averageUtilization")))
                .and_then(Value::as_i64)
                .map_or_else(|| "<unknown>".to_owned(), |u| format!("{u}%"));
            let target = spec
                .pointer(&format!("/{source}/target/averageUtilization"))
                .and_then(Value::as_i64)
                .map_or_else(|| "<auto>".to_owned(), |u| format!("{u}%"));
            format!("{resource}: {now}/{target}")
        }
    }
}
