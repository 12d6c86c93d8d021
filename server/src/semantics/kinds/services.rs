//! A Service's hand-written validation (`ValidateService`, `validateServicePort` and
//! `ValidateServiceUpdate`'s `validateUpgradeDowngradeClusterIPs`,
//! pkg/apis/core/validation/validation.go), in Go's order: ports required unless headless
//! or `ExternalName`, the type's rules for `clusterIPs` and `externalName`, each port (a
//! name, required when there are several, a DNS label once; the port, protocol and target
//! port), the selector's labels, session affinity, the type, node ports only where they
//! are allocated and once per protocol, a port once per protocol, the fields only a
//! `LoadBalancer` has, the internal traffic policy; on update, the cluster IPs kept.

use std::collections::HashSet;

use kubeforge_runtime::schema::{BadValue, ErrorType, FieldError, gofmt};
use serde_json::Value;

use super::common::{
    Errors, at, dns1123_label, dns1123_subdomain, go_strings, int, labels, list, not_supported,
    object, opt_text, port_num_errors, port_num_or_name, shown, text,
};

const TYPES: &[&str] = &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];

/// `ValidateServiceCreate`, or `ValidateServiceUpdate` against `old`.
pub(super) fn service(object: &Value, old: Option<&Value>, errors: &mut Errors) {
    let spec = at(object, "spec");
    if let Some(old) = old {
        cluster_ips_kept(spec, at(old, "spec"), errors);
    }
    // The strategy normalizes `clusterIPs` from `clusterIP` before validation.
    let first_ip = list(spec, "clusterIPs")
        .first()
        .and_then(Value::as_str)
        .or_else(|| opt_text(spec, "clusterIP"));
    let headless = first_ip == Some("None");
    // An absent type was defaulted (or is the schema's to report).
    let ty = opt_text(spec, "type").unwrap_or("ClusterIP");
    let ports = list(spec, "ports");
    if ports.is_empty() && !headless && ty != "ExternalName" {
        errors.push(FieldError::required("spec.ports", ""));
    }
    match ty {
        "LoadBalancer" | "NodePort" if headless => errors.push(FieldError::invalid(
            "spec.clusterIPs[0]",
            BadValue::from("None"),
            format!("may not be set to 'None' for {ty} services"),
        )),
        "ExternalName" => {
            for key in ["clusterIPs", "ipFamilies"] {
                if !list(spec, key).is_empty() {
                    errors.push(FieldError::forbidden(
                        format!("spec.{key}"),
                        "may not be set for ExternalName services",
                    ));
                }
            }
            if spec.get("ipFamilyPolicy").is_some_and(|v| !v.is_null()) {
                errors.push(FieldError::forbidden(
                    "spec.ipFamilyPolicy",
                    "may not be set for ExternalName services",
                ));
            }
            let name = text(spec, "externalName");
            let cname = name.strip_suffix('.').unwrap_or(name);
            if cname.is_empty() {
                errors.push(FieldError::required("spec.externalName", ""));
            } else {
                dns1123_subdomain(cname, "spec.externalName", errors);
            }
        }
        _ => {}
    }
    let mut names = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        service_port(
            port,
            ports.len() > 1,
            &mut names,
            &format!("spec.ports[{i}]"),
            errors,
        );
    }
    labels(object_at(spec, "selector"), "spec.selector", errors);
    match opt_text(spec, "sessionAffinity") {
        None => {}
        Some("") => errors.push(FieldError::required("spec.sessionAffinity", "")),
        Some("None")
            if spec
                .get("sessionAffinityConfig")
                .is_some_and(|v| !v.is_null()) =>
        {
            errors.push(FieldError::forbidden(
                "spec.sessionAffinityConfig",
                "must not be set when session affinity is None",
            ));
        }
        Some("ClientIP" | "None") => {}
        Some(other) => errors.push(not_supported(
            "spec.sessionAffinity",
            other,
            &["ClientIP", "None"],
        )),
    }
    match opt_text(spec, "type") {
        Some("") => errors.push(FieldError::required("spec.type", "")),
        Some(other) if !TYPES.contains(&other) => {
            errors.push(not_supported("spec.type", other, TYPES));
        }
        _ => {}
    }
    if ty == "ClusterIP" {
        for (i, port) in ports.iter().enumerate() {
            if int(port, "nodePort").unwrap_or(0) != 0 {
                errors.push(FieldError::forbidden(
                    format!("spec.ports[{i}].nodePort"),
                    "may not be used when `type` is 'ClusterIP'",
                ));
            }
        }
    }
    let mut node_ports = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        let node_port = int(port, "nodePort").unwrap_or(0);
        if node_port != 0 && !node_ports.insert((text(port, "protocol"), node_port)) {
            errors.push(FieldError::duplicate(
                format!("spec.ports[{i}].nodePort"),
                BadValue::Int(node_port),
            ));
        }
    }
    let mut seen = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        let protocol = text(port, "protocol");
        let number = int(port, "port").unwrap_or(0);
        if !seen.insert((protocol, number)) {
            // The key Go compares is a `core.ServicePort` with only these two set.
            let key = format!(
                "core.ServicePort{{Name:\"\", Protocol:{}, AppProtocol:(*string)(nil), Port:{number}, TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:\"\"}}, NodePort:0}}",
                gofmt::quote(protocol)
            );
            errors.push(shown(
                format!("spec.ports[{i}]"),
                ErrorType::Duplicate,
                &key,
                "",
            ));
        }
    }
    if !list(spec, "loadBalancerSourceRanges").is_empty() && ty != "LoadBalancer" {
        errors.push(FieldError::forbidden(
            "spec.LoadBalancerSourceRanges",
            "may only be used when `type` is 'LoadBalancer'",
        ));
    }
    if spec
        .get("allocateLoadBalancerNodePorts")
        .is_some_and(|v| !v.is_null())
        && ty != "LoadBalancer"
    {
        errors.push(FieldError::forbidden(
            "spec.allocateLoadBalancerNodePorts",
            "may only be used when `type` is 'LoadBalancer'",
        ));
    }
    if let Some(policy) = opt_text(spec, "internalTrafficPolicy")
        && !matches!(policy, "Cluster" | "Local")
    {
        errors.push(not_supported(
            "spec.internalTrafficPolicy",
            policy,
            &["Cluster", "Local"],
        ));
    }
}

fn object_at<'a>(value: &'a Value, key: &str) -> Option<&'a serde_json::Map<String, Value>> {
    object(value, key)
}

/// `validateServicePort`.
fn service_port<'a>(
    port: &'a Value,
    require_name: bool,
    names: &mut HashSet<&'a str>,
    path: &str,
    errors: &mut Errors,
) {
    let name = text(port, "name");
    if require_name && name.is_empty() {
        errors.push(FieldError::required(format!("{path}.name"), ""));
    } else if !name.is_empty() {
        dns1123_label(name, &format!("{path}.name"), errors);
        if !names.insert(name) {
            errors.push(FieldError::duplicate(
                format!("{path}.name"),
                BadValue::from(name),
            ));
        }
    }
    let number = int(port, "port").unwrap_or(0);
    for message in port_num_errors(number) {
        errors.push(FieldError::invalid(
            format!("{path}.port"),
            BadValue::Int(number),
            message,
        ));
    }
    match opt_text(port, "protocol") {
        None => {}
        Some("") => errors.push(FieldError::required(format!("{path}.protocol"), "")),
        Some("SCTP" | "TCP" | "UDP") => {}
        Some(p) => errors.push(not_supported(
            format!("{path}.protocol"),
            p,
            &["SCTP", "TCP", "UDP"],
        )),
    }
    // An absent target port was defaulted to the port.
    if let Some(target) = port.get("targetPort").filter(|v| !v.is_null()) {
        port_num_or_name(target, &format!("{path}.targetPort"), errors);
    }
}

/// `validateUpgradeDowngradeClusterIPs`: the primary cluster IP (and a secondary one kept)
/// stays what it was, but for a Service that is or was `ExternalName`, or headless before
/// and after.
fn cluster_ips_kept(new: &Value, old: &Value, errors: &mut Errors) {
    let ty = |s: &Value| opt_text(s, "type").unwrap_or("ClusterIP").to_owned();
    if ty(new) == "ExternalName" || ty(old) == "ExternalName" {
        return;
    }
    let ips = |s: &Value| -> Vec<String> {
        let ips: Vec<String> = list(s, "clusterIPs")
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        if ips.is_empty() {
            opt_text(s, "clusterIP")
                .filter(|ip| !ip.is_empty())
                .map(|ip| vec![ip.to_owned()])
                .unwrap_or_default()
        } else {
            ips
        }
    };
    let (now, before) = (ips(new), ips(old));
    let headless = |ips: &[String]| ips.first().is_some_and(|ip| ip == "None");
    if headless(&now) && headless(&before) {
        return;
    }
    let values: Vec<Value> = now.iter().map(|ip| Value::from(ip.as_str())).collect();
    let shown_ips = go_strings(if values.is_empty() {
        None
    } else {
        Some(&values)
    });
    let invalid = |i: usize, detail: &str| {
        shown(
            format!("spec.clusterIPs[{i}]"),
            ErrorType::Invalid,
            &shown_ips,
            detail,
        )
    };
    if now.len() == before.len() {
        for (i, ip) in before.iter().enumerate() {
            if *ip != now[i] {
                errors.push(invalid(i, "may not change once set"));
            }
        }
    } else if now.is_empty() {
        errors.push(invalid(0, "primary clusterIP can not be unset"));
    } else if now[0] != before.first().cloned().unwrap_or_default() && !before.is_empty() {
        errors.push(invalid(0, "may not change once set"));
    }
}
