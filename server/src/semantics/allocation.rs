//! What the Service REST storage allocates (kubernetes/kubernetes
//! pkg/registry/core/service/storage/alloc.go, with the allocators of
//! pkg/registry/core/service/ipallocator and portallocator): a cluster IP from the service
//! CIDR, node ports, a health check node port, and the IP family fields; on an update, the
//! values already allocated are carried over (`patchAllocatedValues`). An IP or port another
//! Service holds is refused with the allocators' messages. What is taken is read from the
//! Services stored, so any Service the server starts with counts.
//!
//! The cluster runs single-stack IPv4 with kube-apiserver's default ranges:
//! `--service-cluster-ip-range=10.96.0.0/12` (what kubeadm and kind configure) and
//! `--service-node-port-range=30000-32767`. Go picks a free value at random, first in the
//! upper band of a range (the lower one is kept for values users choose); here the lowest
//! free value of the upper band is taken, then of the lower, so a test sees the same IPs on
//! every run.

use std::collections::HashSet;
use std::net::Ipv4Addr;

use kubeforge_runtime::schema::gofmt::quote;
use kubeforge_runtime::schema::{BadValue, FieldError};
use serde_json::{Value, json};

/// The service CIDR: 10.96.0.0/12.
const CIDR: &str = "10.96.0.0/12";
const NETWORK: u32 = u32::from_be_bytes([10, 96, 0, 0]);
const PREFIX: u32 = 12;
/// The node port range, 30000-32767.
const PORTS: (i64, i64) = (30000, 32767);

/// The addresses the allocator hands out: the range without its network and broadcast
/// addresses.
fn ip_band() -> (u32, u32) {
    let size = 1u32 << (32 - PREFIX);
    (NETWORK + 1, NETWORK + size - 2)
}

/// `calculateRangeOffset`: the size of the lower band kept for chosen values, a sixteenth
/// of the range between 16 and 256 for IPs, a thirty-second between 16 and 128 for ports.
fn offset(size: u64, step: u64, max: u64) -> u64 {
    (size / step).clamp(16, max)
}

/// Fills in what the storage allocates for `service` (created when `old` is `None`),
/// checking that what it asks for is free among `others`; the errors as the API server
/// reports them (`spec.clusterIPs`, `spec.ports[i].nodePort`).
pub(crate) fn allocate<'a>(
    service: &mut Value,
    old: Option<&Value>,
    others: impl Iterator<Item = &'a Value>,
) -> Result<(), Vec<FieldError>> {
    let others: Vec<&Value> = others.collect();
    let Some(spec) = service.get_mut("spec").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    let ty = spec
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("ClusterIP")
        .to_owned();
    if let Some(old) = old.and_then(|o| o.get("spec")) {
        carry_over(spec, old, &ty);
    }
    let mut errors = Vec::new();
    if ty != "ExternalName" {
        cluster_ip(spec, old.is_none(), &others, &mut errors);
    }
    if matches!(ty.as_str(), "NodePort" | "LoadBalancer") {
        node_ports(spec, &others, &mut errors);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Whether `service` holds a cluster IP or node port one of `others` holds: what a commit
/// checks under the store's lock when the values were allocated outside it.
pub(crate) fn clashes<'a>(
    service: &Value,
    others: impl Iterator<Item = &'a std::sync::Arc<Value>>,
) -> bool {
    let (ips, ports) = held(service);
    if ips.is_empty() && ports.is_empty() {
        return false;
    }
    others.into_iter().any(|other| {
        let (other_ips, other_ports) = held(other);
        other_ips.iter().any(|ip| ips.contains(ip)) || other_ports.iter().any(|p| ports.contains(p))
    })
}

/// The cluster IPs and node ports (the health check's included) a Service holds.
fn held(service: &Value) -> (Vec<&str>, Vec<i64>) {
    let Some(spec) = service.get("spec") else {
        return (Vec::new(), Vec::new());
    };
    let ips = spec
        .get("clusterIPs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .chain(spec.get("clusterIP").and_then(Value::as_str))
        .filter(|ip| !ip.is_empty() && *ip != "None")
        .collect();
    let ports = ports(spec)
        .iter()
        .filter_map(|p| p.get("nodePort").and_then(Value::as_i64))
        .chain(spec.get("healthCheckNodePort").and_then(Value::as_i64))
        .filter(|p| *p != 0)
        .collect();
    (ips, ports)
}

/// `patchAllocatedValues`: what the stored Service holds and the new one leaves empty.
fn carry_over(spec: &mut serde_json::Map<String, Value>, old: &Value, ty: &str) {
    let old_ty = old
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("ClusterIP");
    if ty != "ExternalName" && old_ty != "ExternalName" {
        let old_ip = old.get("clusterIP").cloned();
        let ip_empty = spec
            .get("clusterIP")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty);
        if ip_empty && let Some(ip) = old_ip.clone() {
            spec.insert("clusterIP".into(), ip);
        }
        let ips_empty = spec
            .get("clusterIPs")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty);
        if ips_empty
            && spec.get("clusterIP") == old_ip.as_ref()
            && let Some(ips) = old.get("clusterIPs")
        {
            spec.insert("clusterIPs".into(), ips.clone());
        }
        for key in ["ipFamilies", "ipFamilyPolicy"] {
            if spec.get(key).is_none_or(Value::is_null)
                && let Some(value) = old.get(key)
            {
                spec.insert(key.into(), value.clone());
            }
        }
    }
    let needs_ports = |t: &str| matches!(t, "NodePort" | "LoadBalancer");
    if needs_ports(ty) && needs_ports(old_ty) {
        let by_name: Vec<(String, i64)> = ports(old)
            .iter()
            .filter_map(|p| Some((name_of(p), p.get("nodePort")?.as_i64()?)))
            .collect();
        let in_new: HashSet<i64> = spec
            .get("ports")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| p.get("nodePort").and_then(Value::as_i64))
            .collect();
        for port in spec
            .get_mut("ports")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if port.get("nodePort").and_then(Value::as_i64).unwrap_or(0) != 0 {
                continue;
            }
            let name = name_of(port);
            if let Some((_, n)) = by_name
                .iter()
                .find(|(n, p)| *n == name && !in_new.contains(p))
                && let Some(port) = port.as_object_mut()
            {
                port.insert("nodePort".into(), Value::from(*n));
            }
        }
    }
    if spec.get("healthCheckNodePort").is_none()
        && let Some(port) = old.get("healthCheckNodePort")
        && needs_health_check(spec)
    {
        spec.insert("healthCheckNodePort".into(), port.clone());
    }
}

fn ports(spec: &Value) -> Vec<&Value> {
    spec.get("ports")
        .and_then(Value::as_array)
        .map(|p| p.iter().collect())
        .unwrap_or_default()
}

fn name_of(port: &Value) -> String {
    port.get("name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

/// The cluster IP fields: none for a headless Service but its families; the requested IP
/// (refused when taken or out of range) or the first free one.
fn cluster_ip(
    spec: &mut serde_json::Map<String, Value>,
    created: bool,
    others: &[&Value],
    errors: &mut Vec<FieldError>,
) {
    let requested = spec
        .get("clusterIP")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let headless = requested == "None";
    if headless {
        spec.insert("clusterIPs".into(), json!(["None"]));
    } else {
        let taken: HashSet<u32> = others
            .iter()
            .filter_map(|s| s.pointer("/spec/clusterIP").and_then(Value::as_str))
            .filter_map(|ip| ip.parse::<Ipv4Addr>().ok())
            .map(u32::from)
            .collect();
        let ip = if requested.is_empty() {
            match free_ip(&taken) {
                Some(ip) => ip,
                None => {
                    errors.push(ip_error(&requested, "range is full".to_owned()));
                    return;
                }
            }
        } else {
            match requested.parse::<Ipv4Addr>().map(u32::from) {
                Ok(ip) if !created && !taken.contains(&ip) => ip,
                Ok(ip) => {
                    let (first, last) = ip_band();
                    if !(first..=last).contains(&ip) {
                        errors.push(ip_error(
                            &requested,
                            format!(
                                "the provided IP ({requested}) is not in the valid range. The range of valid IPs is {CIDR}"
                            ),
                        ));
                        return;
                    }
                    if taken.contains(&ip) {
                        errors.push(ip_error(
                            &requested,
                            "provided IP is already allocated".to_owned(),
                        ));
                        return;
                    }
                    ip
                }
                // Validation reports an IP that does not parse.
                Err(_) => return,
            }
        };
        let ip = Ipv4Addr::from(ip).to_string();
        spec.insert("clusterIP".into(), Value::from(ip.clone()));
        spec.insert("clusterIPs".into(), json!([ip]));
    }
    if spec.get("ipFamilies").is_none_or(Value::is_null) {
        spec.insert("ipFamilies".into(), json!(["IPv4"]));
    }
    if spec.get("ipFamilyPolicy").is_none_or(Value::is_null) {
        // A headless Service without a selector may have endpoints of every family the
        // cluster has (`initIPFamilyFields`).
        let selector = spec
            .get("selector")
            .and_then(Value::as_object)
            .is_some_and(|s| !s.is_empty());
        let policy = if headless && !selector {
            "RequireDualStack"
        } else {
            "SingleStack"
        };
        spec.insert("ipFamilyPolicy".into(), Value::from(policy));
    }
}

fn ip_error(requested: &str, why: String) -> FieldError {
    // The value is the Go slice `service.Spec.ClusterIPs`, printed with `%#v`.
    let shown = if requested.is_empty() {
        "[]string(nil)".to_owned()
    } else {
        format!("[]string{{{}}}", quote(requested))
    };
    FieldError::invalid(
        "spec.clusterIPs",
        BadValue::Omitted,
        format!("{shown}: failed to allocate IP {requested}: {why}"),
    )
}

fn free_ip(taken: &HashSet<u32>) -> Option<u32> {
    let (first, last) = ip_band();
    let lower = u32::try_from(offset(u64::from(last - first + 1), 16, 256)).unwrap_or(256);
    (first + lower..=last)
        .chain(first..first + lower)
        .find(|ip| !taken.contains(ip))
}

/// A node port for every port without one, and the health check node port where it is
/// needed; the requested ones refused when taken or out of range.
fn node_ports(
    spec: &mut serde_json::Map<String, Value>,
    others: &[&Value],
    errors: &mut Vec<FieldError>,
) {
    let mut taken: HashSet<i64> = HashSet::new();
    for other in others {
        let spec = other.get("spec").unwrap_or(&Value::Null);
        taken.extend(
            ports(spec)
                .iter()
                .filter_map(|p| p.get("nodePort").and_then(Value::as_i64)),
        );
        taken.extend(spec.get("healthCheckNodePort").and_then(Value::as_i64));
    }
    let mut wanted: Vec<(String, Option<i64>)> = Vec::new();
    for (i, port) in spec
        .get("ports")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let field = format!("spec.ports[{i}].nodePort");
        wanted.push((
            field,
            port.get("nodePort")
                .and_then(Value::as_i64)
                .filter(|p| *p != 0),
        ));
    }
    if needs_health_check(spec) {
        wanted.push((
            "spec.healthCheckNodePort".to_owned(),
            spec.get("healthCheckNodePort")
                .and_then(Value::as_i64)
                .filter(|p| *p != 0),
        ));
    }
    let mut chosen = Vec::new();
    for (field, requested) in &wanted {
        let port = match requested {
            Some(port) => {
                let why = if !(PORTS.0..=PORTS.1).contains(port) {
                    Some(format!(
                        "provided port is not in the valid range. The range of valid ports is {}-{}",
                        PORTS.0, PORTS.1
                    ))
                } else if taken.contains(port) {
                    Some("provided port is already allocated".to_owned())
                } else {
                    None
                };
                if let Some(why) = why {
                    errors.push(FieldError::invalid(
                        field.clone(),
                        BadValue::Int(*port),
                        why,
                    ));
                    continue;
                }
                *port
            }
            None => match free_port(&taken) {
                Some(port) => port,
                None => {
                    errors.push(FieldError::invalid(
                        field.clone(),
                        BadValue::Int(0),
                        "range is full",
                    ));
                    continue;
                }
            },
        };
        taken.insert(port);
        chosen.push(port);
    }
    if !errors.is_empty() {
        return;
    }
    let mut chosen = chosen.into_iter();
    for port in spec
        .get_mut("ports")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        if let (Some(map), Some(n)) = (port.as_object_mut(), chosen.next()) {
            map.insert("nodePort".into(), Value::from(n));
        }
    }
    if let Some(n) = chosen.next() {
        spec.insert("healthCheckNodePort".into(), Value::from(n));
    }
}

/// `needsHCNodePort`: a LoadBalancer whose external traffic stays on the node.
fn needs_health_check(spec: &serde_json::Map<String, Value>) -> bool {
    spec.get("type").and_then(Value::as_str) == Some("LoadBalancer")
        && spec.get("externalTrafficPolicy").and_then(Value::as_str) == Some("Local")
}

fn free_port(taken: &HashSet<i64>) -> Option<i64> {
    let size = u64::try_from(PORTS.1 - PORTS.0 + 1).unwrap_or(0);
    let lower = i64::try_from(offset(size, 32, 128)).unwrap_or(128);
    (PORTS.0 + lower..=PORTS.1)
        .chain(PORTS.0..PORTS.0 + lower)
        .find(|p| !taken.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_ip_is_in_the_upper_band_and_taken_ones_are_skipped() {
        let kubernetes = json!({"spec": {"clusterIP": "10.96.0.1"}});
        let mut service = json!({"spec": {"ports": [{"port": 80}]}});
        allocate(&mut service, None, [&kubernetes].into_iter()).unwrap();
        assert_eq!(service["spec"]["clusterIP"], "10.96.1.1");
        assert_eq!(service["spec"]["clusterIPs"], json!(["10.96.1.1"]));
        let mut next = json!({"spec": {"type": "NodePort", "ports": [{"port": 80}]}});
        allocate(&mut next, None, [&kubernetes, &service].into_iter()).unwrap();
        assert_eq!(next["spec"]["clusterIP"], "10.96.1.2");
        assert_eq!(next["spec"]["ports"][0]["nodePort"], 30086);
    }

    #[test]
    fn a_taken_ip_is_refused_as_the_allocator_refuses_it() {
        let kubernetes = json!({"spec": {"clusterIP": "10.96.0.1"}});
        let mut service = json!({"spec": {"clusterIP": "10.96.0.1"}});
        let errors = allocate(&mut service, None, [&kubernetes].into_iter()).unwrap_err();
        assert_eq!(
            errors[0].to_string(),
            "spec.clusterIPs: Invalid value: []string{\"10.96.0.1\"}: failed to allocate IP 10.96.0.1: provided IP is already allocated"
        );
    }
}
