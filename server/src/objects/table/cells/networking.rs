//! Networking: Services and their endpoints, Ingresses and their classes, network
//! policies, service CIDRs and IP addresses.

use serde_json::{Value, json};

use super::super::fields::{count, field, list, strings, text};
use super::super::format::{format_label_selector, format_labels, more, or};
use super::common::{Cells, age, name, string};

pub(super) const PRINTERS: &[(&str, Cells)] = &[
    ("/Service", service),
    ("/Endpoints", endpoints),
    ("discovery.k8s.io/EndpointSlice", endpoint_slice),
    ("networking.k8s.io/Ingress", ingress),
    ("networking.k8s.io/IngressClass", ingress_class),
    ("networking.k8s.io/NetworkPolicy", network_policy),
    ("networking.k8s.io/ServiceCIDR", service_cidr),
    ("networking.k8s.io/IPAddress", ip_address),
];

fn service(o: &Value) -> Vec<Value> {
    let cluster_ip = list(o, "/spec/clusterIPs")
        .first()
        .and_then(|v| v.as_str())
        .unwrap_or("<none>")
        .to_owned();
    let ports: Vec<String> = list(o, "/spec/ports")
        .into_iter()
        .map(|p| {
            let port = p.get("port").and_then(Value::as_i64).unwrap_or(0);
            let protocol = field(p, "protocol");
            match p.get("nodePort").and_then(Value::as_i64).filter(|n| *n > 0) {
                Some(node) => format!("{port}:{node}/{protocol}"),
                None => format!("{port}/{protocol}"),
            }
        })
        .collect();
    vec![
        name(o),
        string(o, "/spec/type"),
        Value::from(cluster_ip),
        Value::from(external_ip(o)),
        Value::from(or(&ports.join(","), "<none>")),
        age(o),
        Value::from(format_labels(o.pointer("/spec/selector"))),
    ]
}

/// A Service's external IPs, by its type (`getServiceExternalIP`).
fn external_ip(o: &Value) -> String {
    let external = strings(o, "/spec/externalIPs");
    match text(o, "/spec/type") {
        "ClusterIP" | "NodePort" => or(&external.join(","), "<none>").to_owned(),
        "LoadBalancer" => {
            let lb = load_balancer(o.pointer("/status/loadBalancer/ingress"));
            let mut all: Vec<String> = if lb.is_empty() {
                Vec::new()
            } else {
                lb.split(',').map(str::to_owned).collect()
            };
            all.extend(external.iter().map(|s| (*s).to_owned()));
            if all.is_empty() {
                "<pending>".to_owned()
            } else {
                all.join(",")
            }
        }
        "ExternalName" => text(o, "/spec/externalName").to_owned(),
        _ => "<unknown>".to_owned(),
    }
}

/// The load balancer's IPs or host names, sorted (`loadBalancerStatusStringer`).
fn load_balancer(ingress: Option<&Value>) -> String {
    let mut found: Vec<String> = ingress
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|i| {
                    i.get("ip")
                        .and_then(Value::as_str)
                        .filter(|s| !s.is_empty())
                        .or_else(|| {
                            i.get("hostname")
                                .and_then(Value::as_str)
                                .filter(|s| !s.is_empty())
                        })
                        .map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found.dedup();
    // The API server prints wide tables, so the address is never cut.
    found.join(",")
}

fn endpoints(o: &Value) -> Vec<Value> {
    vec![name(o), Value::from(endpoint_addresses(o)), age(o)]
}

/// `ip:port` of each address and port, three at most (`formatEndpoints`).
fn endpoint_addresses(o: &Value) -> String {
    let subsets = list(o, "/subsets");
    if subsets.is_empty() {
        return "<none>".to_owned();
    }
    let mut shown = Vec::new();
    let mut total = 0;
    for subset in subsets {
        let addresses: Vec<&str> = list(subset, "/addresses")
            .into_iter()
            .filter_map(|x| x.get("ip").and_then(Value::as_str))
            .collect();
        let ports = list(subset, "/ports");
        if ports.is_empty() {
            total += addresses.len();
            shown.extend(addresses.iter().map(|a| (*a).to_owned()));
            continue;
        }
        for port in ports {
            let number = port.get("port").and_then(Value::as_i64).unwrap_or(0);
            total += addresses.len();
            for address in &addresses {
                shown.push(if address.contains(':') {
                    format!("[{address}]:{number}")
                } else {
                    format!("{address}:{number}")
                });
            }
        }
    }
    shown.truncate(3);
    let text = shown.join(",");
    if total > 3 {
        format!("{text} + {} more...", total - 3)
    } else {
        text
    }
}

fn endpoint_slice(o: &Value) -> Vec<Value> {
    let ports: Vec<String> = list(o, "/ports")
        .into_iter()
        .map(|p| {
            match (
                p.get("port").and_then(Value::as_i64),
                p.get("name").and_then(Value::as_str),
            ) {
                (Some(port), _) => port.to_string(),
                (None, Some(name)) => name.to_owned(),
                (None, None) => "*".to_owned(),
            }
        })
        .collect();
    let addresses: Vec<String> = list(o, "/endpoints")
        .into_iter()
        .flat_map(|e| strings(e, "/addresses"))
        .map(str::to_owned)
        .collect();
    vec![
        name(o),
        string(o, "/addressType"),
        Value::from(more(&ports, 3)),
        Value::from(more(&addresses, 3)),
        age(o),
    ]
}

fn ingress(o: &Value) -> Vec<Value> {
    let ports = if count(o, "/spec/tls") > 0 {
        "80, 443"
    } else {
        "80"
    };
    vec![
        name(o),
        Value::from(or(text(o, "/spec/ingressClassName"), "<none>")),
        Value::from(ingress_hosts(o)),
        Value::from(load_balancer(o.pointer("/status/loadBalancer/ingress"))),
        Value::from(ports),
        age(o),
    ]
}

/// The rules' hosts, three at most; `*` when no rule names one.
fn ingress_hosts(o: &Value) -> String {
    let rules = list(o, "/spec/rules");
    let hosts: Vec<&str> = rules
        .iter()
        .filter_map(|r| r.get("host").and_then(Value::as_str))
        .filter(|h| !h.is_empty())
        .collect();
    if hosts.is_empty() {
        "*".to_owned()
    } else if rules.len() > 3 {
        format!(
            "{} + {} more...",
            hosts[..hosts.len().min(3)].join(","),
            rules.len() - 3
        )
    } else {
        hosts.join(",")
    }
}

fn ingress_class(o: &Value) -> Vec<Value> {
    let parameters = match o.pointer("/spec/parameters") {
        Some(p) => {
            let mut kind = field(p, "kind").to_owned();
            if let Some(group) = p.get("apiGroup").and_then(Value::as_str) {
                kind = format!("{kind}.{group}");
            }
            format!("{kind}/{}", field(p, "name"))
        }
        None => "<none>".to_owned(),
    };
    vec![
        name(o),
        string(o, "/spec/controller"),
        Value::from(parameters),
        age(o),
    ]
}

fn network_policy(o: &Value) -> Vec<Value> {
    vec![
        name(o),
        Value::from(format_label_selector(Some(
            o.pointer("/spec/podSelector").unwrap_or(&json!({})),
        ))),
        age(o),
    ]
}

fn service_cidr(o: &Value) -> Vec<Value> {
    let cidrs = strings(o, "/spec/cidrs");
    vec![name(o), Value::from(cidrs.join(",")), age(o)]
}

fn ip_address(o: &Value) -> Vec<Value> {
    let parent = match o.pointer("/spec/parentRef") {
        Some(p) => {
            let mut text = if field(p, "group").is_empty() {
                field(p, "resource").to_lowercase()
            } else {
                format!("{}.{}", field(p, "resource"), field(p, "group")).to_lowercase()
            };
            if !field(p, "namespace").is_empty() {
                text = format!("{text}/{}", field(p, "namespace"));
            }
            format!("{text}/{}", field(p, "name"))
        }
        None => "<none>".to_owned(),
    };
    // printers.go appends the age too, for a column it does not define.
    vec![name(o), Value::from(parent)]
}
