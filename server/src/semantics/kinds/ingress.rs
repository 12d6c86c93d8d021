//! An Ingress (pkg/apis/networking/validation/validation.go, `ValidateIngressSpec`):
//! rules or a default backend; each rule's host a DNS name (a wildcard only as its first
//! label), never an IP; each path with a `pathType`, absolute and without `//`, `/./`,
//! `/../` or an encoded slash where the type is `Exact` or `Prefix`; each backend a
//! service (a name, and a port's name or number) or a resource, not both; the class name.

use kubeforge_runtime::schema::{BadValue, ErrorType, FieldError, names};
use serde_json::Value;

use super::common::{
    Errors, at, dns1123_subdomain, int, list, opt_text, port_name_errors, port_num_errors, shown,
    text,
};

const INVALID_SEQUENCES: &[&str] = &["//", "/./", "/../", "%2f", "%2F"];
const INVALID_SUFFIXES: &[&str] = &["/..", "/."];

/// `ValidateIngressCreate` / `ValidateIngressUpdate` (the spec's rules; nothing is fixed).
pub(super) fn ingress(object: &Value, errors: &mut Errors) {
    let spec = at(object, "spec");
    let rules = list(spec, "rules");
    let default = spec.get("defaultBackend").filter(|v| !v.is_null());
    if rules.is_empty() && default.is_none() {
        let shown_rules = if spec.get("rules").is_some_and(Value::is_array) {
            "[]networking.IngressRule{}"
        } else {
            "[]networking.IngressRule(nil)"
        };
        errors.push(shown(
            "spec",
            ErrorType::Invalid,
            shown_rules,
            "either `defaultBackend` or `rules` must be specified",
        ));
    }
    if let Some(backend) = default {
        self::backend(backend, "spec.defaultBackend", errors);
    }
    for (i, rule) in rules.iter().enumerate() {
        let path = format!("spec.rules[{i}]");
        let host = text(rule, "host");
        if !host.is_empty() {
            let field = format!("{path}.host");
            if host.parse::<std::net::IpAddr>().is_ok() {
                errors.push(FieldError::invalid(
                    &field,
                    BadValue::from(host),
                    "must be a DNS name, not an IP address",
                ));
            }
            if host.contains('*') {
                for message in wildcard_errors(host) {
                    errors.push(FieldError::invalid(&field, BadValue::from(host), message));
                }
            } else {
                dns1123_subdomain(host, &field, errors);
            }
        }
        if let Some(http) = rule.get("http").filter(|v| !v.is_null()) {
            let paths = list(http, "paths");
            if paths.is_empty() {
                errors.push(FieldError::required(format!("{path}.http.paths"), ""));
            }
            for (j, p) in paths.iter().enumerate() {
                http_path(p, &format!("{path}.http.paths[{j}]"), errors);
            }
        }
    }
    if let Some(class) = opt_text(spec, "ingressClassName") {
        dns1123_subdomain(class, "spec.ingressClassName", errors);
    }
}

/// `IsWildcardDNS1123Subdomain`.
fn wildcard_errors(host: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if host.len() > 253 {
        errors.push("must be no more than 253 characters".to_owned());
    }
    let ok = host
        .strip_prefix("*.")
        .is_some_and(|rest| names::is_dns1123_subdomain(rest).is_empty());
    if !ok {
        errors.push("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_owned());
    }
    errors
}

/// `validateHTTPIngressPath`.
fn http_path(p: &Value, path: &str, errors: &mut Errors) {
    let Some(ty) = opt_text(p, "pathType") else {
        errors.push(FieldError::required(
            format!("{path}.pathType"),
            "pathType must be specified",
        ));
        return;
    };
    let value = text(p, "path");
    let field = format!("{path}.path");
    match ty {
        "Exact" | "Prefix" => {
            if !value.starts_with('/') {
                errors.push(FieldError::invalid(
                    &field,
                    BadValue::from(value),
                    "must be an absolute path",
                ));
            }
            for sequence in INVALID_SEQUENCES.iter().filter(|s| value.contains(**s)) {
                errors.push(FieldError::invalid(
                    &field,
                    BadValue::from(value),
                    format!("must not contain '{sequence}'"),
                ));
            }
            for suffix in INVALID_SUFFIXES.iter().filter(|s| value.ends_with(**s)) {
                errors.push(FieldError::invalid(
                    &field,
                    BadValue::from(value),
                    format!("cannot end with '{suffix}'"),
                ));
            }
        }
        "ImplementationSpecific" => {
            if !value.is_empty() && !value.starts_with('/') {
                errors.push(FieldError::invalid(
                    &field,
                    BadValue::from(value),
                    "must be an absolute path",
                ));
            }
        }
        other => errors.push(super::common::not_supported(
            format!("{path}.pathType"),
            other,
            &["Exact", "ImplementationSpecific", "Prefix"],
        )),
    }
    backend(at(p, "backend"), &format!("{path}.backend"), errors);
}

/// `validateIngressBackend`.
fn backend(backend: &Value, path: &str, errors: &mut Errors) {
    let resource = backend.get("resource").filter(|v| !v.is_null());
    let service = backend.get("service").filter(|v| !v.is_null());
    match (resource, service) {
        (Some(_), Some(_)) => errors.push(FieldError::invalid(
            path,
            BadValue::from(""),
            "cannot set both resource and service backends",
        )),
        (Some(resource), None) => {
            if let Some(group) = opt_text(resource, "apiGroup") {
                dns1123_subdomain(group, &format!("{path}.resource.apiGroup"), errors);
            }
            for key in ["kind", "name"] {
                let value = text(resource, key);
                if value.is_empty() {
                    errors.push(FieldError::required(
                        format!("{path}.resource.{key}"),
                        format!("{key} is required"),
                    ));
                } else {
                    for message in names::is_valid_path_segment_name(value) {
                        errors.push(FieldError::invalid(
                            format!("{path}.resource.{key}"),
                            BadValue::from(value),
                            message,
                        ));
                    }
                }
            }
        }
        (None, Some(service)) => {
            let name = text(service, "name");
            if name.is_empty() {
                errors.push(FieldError::required(format!("{path}.service.name"), ""));
            } else {
                for message in names::is_dns1035_label(name) {
                    errors.push(FieldError::invalid(
                        format!("{path}.service.name"),
                        BadValue::from(name),
                        message,
                    ));
                }
            }
            let port = at(service, "port");
            let port_name = text(port, "name");
            let number = int(port, "number").unwrap_or(0);
            match (port_name.is_empty(), number == 0) {
                (false, false) => errors.push(FieldError::invalid(
                    path,
                    BadValue::from(""),
                    "cannot set both port name & port number",
                )),
                (false, true) => {
                    for message in port_name_errors(port_name) {
                        errors.push(FieldError::invalid(
                            format!("{path}.service.port.name"),
                            BadValue::from(port_name),
                            message,
                        ));
                    }
                }
                (true, false) => {
                    for message in port_num_errors(number) {
                        errors.push(FieldError::invalid(
                            format!("{path}.service.port.number"),
                            BadValue::Int(number),
                            message,
                        ));
                    }
                }
                (true, true) => errors.push(FieldError::required(
                    path,
                    "port name or number is required",
                )),
            }
        }
        (None, None) => errors.push(FieldError::invalid(
            path,
            BadValue::from(""),
            "resource or service backend is required",
        )),
    }
}
