//! The core group's kinds other than pods, services and volumes: nodes, events,
//! namespaces, configuration (ConfigMaps, Secrets, ServiceAccounts), quotas and component
//! statuses.

use serde_json::Value;

use super::super::fields::{condition, count, escape, field, list, text};
use super::super::format::{ago, or, parse_time, quantity};
use super::common::{Cells, age, length, name, string};

pub(super) const PRINTERS: &[(&str, Cells)] = &[
    ("/Node", node),
    ("/Event", event),
    ("/Namespace", namespace),
    ("/ConfigMap", config_map),
    ("/Secret", secret),
    ("/ServiceAccount", service_account),
    ("/ResourceQuota", resource_quota),
    ("/ComponentStatus", component_status),
];

fn namespace(o: &Value) -> Vec<Value> {
    vec![name(o), string(o, "/status/phase"), age(o)]
}

fn config_map(o: &Value) -> Vec<Value> {
    let data = count(o, "/data") + count(o, "/binaryData");
    vec![name(o), Value::from(data as i64), age(o)]
}

fn secret(o: &Value) -> Vec<Value> {
    vec![name(o), string(o, "/type"), length(o, "/data"), age(o)]
}

fn service_account(o: &Value) -> Vec<Value> {
    vec![name(o), length(o, "/secrets"), age(o)]
}

fn node(o: &Value) -> Vec<Value> {
    let info = |k: &str| or(text(o, &format!("/status/nodeInfo/{k}")), "<unknown>").to_owned();
    vec![
        name(o),
        Value::from(node_status(o)),
        Value::from(or(&node_roles(o).join(","), "<none>")),
        age(o),
        string(o, "/status/nodeInfo/kubeletVersion"),
        Value::from(node_address(o, "InternalIP")),
        Value::from(node_address(o, "ExternalIP")),
        Value::from(info("osImage")),
        Value::from(info("kernelVersion")),
        Value::from(info("containerRuntimeVersion")),
    ]
}

/// `Ready`, `NotReady` or `Unknown`, then `SchedulingDisabled` when cordoned.
fn node_status(o: &Value) -> String {
    let mut status: Vec<&str> = Vec::new();
    if let Some(c) = condition(o, "/status/conditions", "Ready") {
        status.push(if field(c, "status") == "True" {
            "Ready"
        } else {
            "NotReady"
        });
    }
    if status.is_empty() {
        status.push("Unknown");
    }
    if o.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        status.push("SchedulingDisabled");
    }
    status.join(",")
}

/// The roles of the `node-role.kubernetes.io/…` and `kubernetes.io/role` labels, sorted.
fn node_roles(o: &Value) -> Vec<String> {
    let mut roles: Vec<String> = o
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|labels| {
            labels
                .iter()
                .filter_map(|(k, v)| match k.strip_prefix("node-role.kubernetes.io/") {
                    Some(role) if !role.is_empty() => Some(role.to_owned()),
                    _ if k == "kubernetes.io/role" => {
                        v.as_str().filter(|v| !v.is_empty()).map(str::to_owned)
                    }
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    roles.sort();
    roles.dedup();
    roles
}

/// The node's first address of type `kind`.
fn node_address(o: &Value, kind: &str) -> String {
    list(o, "/status/addresses")
        .into_iter()
        .find(|a| a.get("type").and_then(Value::as_str) == Some(kind))
        .and_then(|a| a.get("address").and_then(Value::as_str))
        .unwrap_or("<none>")
        .to_owned()
}

/// A core/v1 Event, or an events.k8s.io Event read as the core one it converts to.
fn event(o: &Value) -> Vec<Value> {
    let events_api = o
        .get("apiVersion")
        .and_then(Value::as_str)
        .is_some_and(|v| v.starts_with("events.k8s.io/"));
    let at = |core: &'static str, events: &'static str| if events_api { events } else { core };
    let time = |pointer: &str| {
        o.pointer(pointer)
            .and_then(Value::as_str)
            .and_then(parse_time)
    };
    let first = time(at("/firstTimestamp", "/deprecatedFirstTimestamp"))
        .or_else(|| time("/eventTime"))
        .map_or_else(|| "<unknown>".to_owned(), ago);
    let mut last =
        time(at("/lastTimestamp", "/deprecatedLastTimestamp")).map_or_else(|| first.clone(), ago);
    let mut count = o
        .pointer(at("/count", "/deprecatedCount"))
        .and_then(Value::as_i64)
        .unwrap_or(0);
    if let Some(series) = o.get("series") {
        last = series
            .get("lastObservedTime")
            .and_then(Value::as_str)
            .and_then(parse_time)
            .map_or_else(|| "<unknown>".to_owned(), ago);
        count = series.get("count").and_then(Value::as_i64).unwrap_or(0);
    } else if count == 0 {
        count = 1;
    }
    let involved = at("/involvedObject", "/regarding");
    let component = or(
        text(o, at("/source/component", "/deprecatedSource/component")),
        text(o, "/reportingController"),
    );
    let host = or(
        text(o, at("/source/host", "/deprecatedSource/host")),
        text(o, "/reportingInstance"),
    );
    let source = if host.is_empty() {
        component.to_owned()
    } else {
        format!("{component}, {host}")
    };
    vec![
        Value::from(last),
        string(o, "/type"),
        string(o, "/reason"),
        Value::from(event_object(o, involved)),
        string(o, &format!("{involved}/fieldPath")),
        Value::from(source),
        Value::from(text(o, at("/message", "/note")).trim()),
        Value::from(first),
        Value::from(count),
        name(o),
    ]
}

/// The event's object, `kind/name` in lower case.
fn event_object(o: &Value, involved: &str) -> String {
    let kind = text(o, &format!("{involved}/kind")).to_lowercase();
    let object_name = text(o, &format!("{involved}/name"));
    if object_name.is_empty() {
        kind
    } else {
        format!("{kind}/{object_name}")
    }
}

/// Requests and limits, `resource: used/hard`, sorted by resource.
fn resource_quota(o: &Value) -> Vec<Value> {
    let mut requests = Vec::new();
    let mut limits = Vec::new();
    if let Some(hard) = o.pointer("/status/hard").and_then(Value::as_object) {
        let mut names: Vec<&String> = hard.keys().collect();
        names.sort();
        for resource in names {
            let used = quantity(o.pointer(&format!("/status/used/{}", escape(resource))));
            let entry = format!(
                "{resource}: {}/{}",
                or(&used, "0"),
                quantity(hard.get(resource))
            );
            if resource.split('.').next() == Some("limits") && resource.contains('.') {
                limits.push(entry);
            } else {
                requests.push(entry);
            }
        }
    }
    vec![
        name(o),
        Value::from(requests.join(", ")),
        Value::from(limits.join(", ")),
        age(o),
    ]
}

fn component_status(o: &Value) -> Vec<Value> {
    let (status, message, error) = match condition(o, "/conditions", "Healthy") {
        Some(c) => (
            if field(c, "status") == "True" {
                "Healthy"
            } else {
                "Unhealthy"
            },
            field(c, "message"),
            field(c, "error"),
        ),
        None => ("Unknown", "", ""),
    };
    vec![
        name(o),
        Value::from(status),
        Value::from(message),
        Value::from(error),
    ]
}
