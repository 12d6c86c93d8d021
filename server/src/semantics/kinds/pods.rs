//! A Pod's hand-written validation and the pod spec's that every workload's template
//! shares, from kubernetes/kubernetes pkg/apis/core/validation/validation.go:
//! `ValidatePodSpec` (volumes' names, containers and init containers with
//! `validateContainerCommon`: names, image, ports, env, volume mounts, pull policy,
//! resources; host port conflicts; `restartPolicy`, `dnsPolicy`, names of the service
//! account, node, host and subdomain; `activeDeadlineSeconds`; tolerations),
//! `ValidatePodCreate` and `ValidatePodUpdate` (what an update may change).

use std::collections::HashSet;

use kubeforge_runtime::Quantity;
use kubeforge_runtime::schema::{BadValue, FieldError};
use serde_json::{Map, Value};

use super::common::{
    Errors, NEGATIVE, at, dns1123_label, dns1123_subdomain, inclusive_range, int, list, normalized,
    not_supported, object, one_of, opt_text, port_name_errors, port_num_errors, same, text,
};
use super::config::config_key_errors;

/// `updatablePodSpecFields`, in the message of a refused update.
const UPDATABLE_POD_SPEC_FIELDS: &[&str] = &[
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
];

/// `relaxedEnvVarNameFmtErrMsg` (`RelaxedEnvironmentVariableValidation` is on by default
/// since 1.32, GA in 1.34).
const ENV_NAME_MESSAGE: &str = "a valid environment variable name must consist only of printable ASCII characters other than '='";

const MAX_INT32: i64 = 2_147_483_647;

/// `ValidatePodCreate`, and `ValidatePodUpdate` when `old` is the stored Pod (through the
/// main resource; `ValidatePodEphemeralContainersUpdate` through `ephemeralcontainers`;
/// through `resize`, the resources change as `ValidatePodResize` allows, unchecked here).
pub(super) fn pod(object: &Value, old: Option<&Value>, sub: Option<&str>, errors: &mut Errors) {
    let spec = at(object, "spec");
    pod_spec(spec, "spec", errors);
    // `validateContainersOnlyForPod`: a template's image may be padded, a Pod's not.
    for key in ["containers", "initContainers"] {
        for (i, container) in list(spec, key).iter().enumerate() {
            padded_image(container, &format!("spec.{key}[{i}]"), errors);
        }
    }
    match old {
        None => {
            if !list(spec, "ephemeralContainers").is_empty() {
                errors.push(FieldError::forbidden(
                    "spec.ephemeralContainers",
                    "cannot be set on create",
                ));
            }
            if !text(spec, "nodeName").is_empty() && !list(spec, "schedulingGates").is_empty() {
                errors.push(FieldError::forbidden(
                    "spec.nodeName",
                    "cannot be set until all schedulingGates have been cleared",
                ));
            }
        }
        Some(old) => match sub {
            Some("ephemeralcontainers") => ephemeral_update(spec, at(old, "spec"), errors),
            Some("resize") => {}
            _ => update(spec, at(old, "spec"), errors),
        },
    }
}

fn padded_image(container: &Value, path: &str, errors: &mut Errors) {
    let image = text(container, "image");
    if image.trim() != image {
        errors.push(FieldError::invalid(
            format!("{path}.image"),
            BadValue::from(image),
            "must not have leading or trailing whitespace",
        ));
    }
}

/// `ValidatePodSpec` at `path` (`spec`, `spec.template.spec`, `spec.jobTemplate.spec.template.spec`).
pub(super) fn pod_spec(spec: &Value, path: &str, errors: &mut Errors) {
    let volumes = volumes(spec, path, errors);
    containers(spec, path, &volumes, errors);
    init_containers(spec, path, &volumes, errors);
    one_of(
        spec,
        "restartPolicy",
        path,
        &["Always", "OnFailure", "Never"],
        errors,
    );
    one_of(
        spec,
        "dnsPolicy",
        path,
        &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"],
        errors,
    );
    for key in ["serviceAccountName", "nodeName"] {
        let name = text(spec, key);
        if !name.is_empty() {
            dns1123_subdomain(name, &format!("{path}.{key}"), errors);
        }
    }
    if let Some(seconds) = int(spec, "activeDeadlineSeconds")
        && !(1..=MAX_INT32).contains(&seconds)
    {
        errors.push(FieldError::invalid(
            format!("{path}.activeDeadlineSeconds"),
            BadValue::Int(seconds),
            inclusive_range(1, MAX_INT32),
        ));
    }
    for key in ["hostname", "subdomain"] {
        let name = text(spec, key);
        if !name.is_empty() {
            dns1123_label(name, &format!("{path}.{key}"), errors);
        }
    }
    tolerations(
        list(spec, "tolerations"),
        &format!("{path}.tolerations"),
        errors,
    );
}

/// `ValidateVolumes`: each name a DNS label, once; the names of the volumes without errors.
fn volumes(spec: &Value, path: &str, errors: &mut Errors) -> HashSet<String> {
    let mut names = HashSet::new();
    for (i, volume) in list(spec, "volumes").iter().enumerate() {
        let field = format!("{path}.volumes[{i}].name");
        let name = text(volume, "name");
        let mut own = Vec::new();
        if name.is_empty() {
            own.push(FieldError::required(&field, ""));
        } else {
            dns1123_label(name, &field, &mut own);
        }
        if names.contains(name) {
            own.push(FieldError::duplicate(&field, BadValue::from(name)));
        }
        if own.is_empty() {
            names.insert(name.to_owned());
        } else {
            errors.extend(own);
        }
    }
    names
}

/// `validateContainers`: at least one; each checked, names unique; host ports unique.
fn containers(spec: &Value, path: &str, volumes: &HashSet<String>, errors: &mut Errors) {
    let containers = list(spec, "containers");
    let path = format!("{path}.containers");
    if containers.is_empty() {
        errors.push(FieldError::required(path, ""));
        return;
    }
    let mut names = HashSet::new();
    for (i, container) in containers.iter().enumerate() {
        let at = format!("{path}[{i}]");
        container_common(container, &at, volumes, errors);
        let name = text(container, "name");
        if !names.insert(name) {
            errors.push(FieldError::duplicate(
                format!("{at}.name"),
                BadValue::from(name),
            ));
        }
    }
    host_ports(containers, &path, errors);
}

/// `validateInitContainers`: each checked, names unique among all containers, a
/// `restartPolicy` only `Always`, probes and lifecycle only for those.
fn init_containers(spec: &Value, path: &str, volumes: &HashSet<String>, errors: &mut Errors) {
    let mut names: HashSet<&str> = list(spec, "containers")
        .iter()
        .map(|c| text(c, "name"))
        .collect();
    let path = format!("{path}.initContainers");
    for (i, container) in list(spec, "initContainers").iter().enumerate() {
        let at = format!("{path}[{i}]");
        container_common(container, &at, volumes, errors);
        let restart = opt_text(container, "restartPolicy");
        if let Some(policy) = restart.filter(|p| *p != "Always") {
            errors.push(not_supported(
                format!("{at}.restartPolicy"),
                policy,
                &["Always"],
            ));
        }
        let name = text(container, "name");
        if names.contains(name) {
            errors.push(FieldError::duplicate(
                format!("{at}.name"),
                BadValue::from(name),
            ));
        } else if !name.is_empty() {
            names.insert(name);
        }
        host_ports(std::slice::from_ref(container), &path, errors);
        if restart != Some("Always") {
            for key in [
                "lifecycle",
                "livenessProbe",
                "readinessProbe",
                "startupProbe",
            ] {
                if container.get(key).is_some_and(|v| !v.is_null()) {
                    errors.push(FieldError::forbidden(
                        format!("{at}.{key}"),
                        "may not be set for init containers without restartPolicy=Always",
                    ));
                }
            }
        }
    }
}

/// `validateContainerCommon`.
fn container_common(container: &Value, path: &str, volumes: &HashSet<String>, errors: &mut Errors) {
    let name = text(container, "name");
    if name.is_empty() {
        errors.push(FieldError::required(format!("{path}.name"), ""));
    } else {
        dns1123_label(name, &format!("{path}.name"), errors);
    }
    if text(container, "image").is_empty() {
        errors.push(FieldError::required(format!("{path}.image"), ""));
    }
    one_of(
        container,
        "terminationMessagePolicy",
        path,
        &["File", "FallbackToLogsOnError"],
        errors,
    );
    ports(list(container, "ports"), &format!("{path}.ports"), errors);
    env(list(container, "env"), &format!("{path}.env"), errors);
    volume_mounts(
        list(container, "volumeMounts"),
        volumes,
        &format!("{path}.volumeMounts"),
        errors,
    );
    one_of(
        container,
        "imagePullPolicy",
        path,
        &["Always", "IfNotPresent", "Never"],
        errors,
    );
    resources(
        at(container, "resources"),
        &format!("{path}.resources"),
        errors,
    );
}

/// `validateContainerPorts`.
fn ports(ports: &[Value], path: &str, errors: &mut Errors) {
    let mut names = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let name = text(port, "name");
        if !name.is_empty() {
            let messages = port_name_errors(name);
            if !messages.is_empty() {
                for message in messages {
                    errors.push(FieldError::invalid(
                        format!("{at}.name"),
                        BadValue::from(name),
                        message,
                    ));
                }
            } else if !names.insert(name) {
                errors.push(FieldError::duplicate(
                    format!("{at}.name"),
                    BadValue::from(name),
                ));
            }
        }
        match int(port, "containerPort").unwrap_or(0) {
            0 => errors.push(FieldError::required(format!("{at}.containerPort"), "")),
            n => {
                for message in port_num_errors(n) {
                    errors.push(FieldError::invalid(
                        format!("{at}.containerPort"),
                        BadValue::Int(n),
                        message,
                    ));
                }
            }
        }
        if let Some(n) = int(port, "hostPort").filter(|n| *n != 0) {
            for message in port_num_errors(n) {
                errors.push(FieldError::invalid(
                    format!("{at}.hostPort"),
                    BadValue::Int(n),
                    message,
                ));
            }
        }
        one_of(port, "protocol", &at, &["SCTP", "TCP", "UDP"], errors);
    }
}

/// `checkHostPortConflicts`: one `protocol/hostIP/hostPort` once among `containers`.
fn host_ports(containers: &[Value], path: &str, errors: &mut Errors) {
    let mut seen = HashSet::new();
    for (c, container) in containers.iter().enumerate() {
        for (p, port) in list(container, "ports").iter().enumerate() {
            let host_port = int(port, "hostPort").unwrap_or(0);
            if host_port == 0 {
                continue;
            }
            let key = format!(
                "{}/{}/{host_port}",
                text(port, "protocol"),
                text(port, "hostIP")
            );
            if !seen.insert(key.clone()) {
                errors.push(FieldError::duplicate(
                    format!("{path}[{c}].ports[{p}].hostPort"),
                    BadValue::String(key),
                ));
            }
        }
    }
}

/// `ValidateEnv` with `IsRelaxedEnvVarName`, and `validateEnvVarValueFrom`'s sources.
fn env(vars: &[Value], path: &str, errors: &mut Errors) {
    for (i, var) in vars.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let name = text(var, "name");
        if name.is_empty() {
            errors.push(FieldError::required(format!("{at}.name"), ""));
        } else if name
            .chars()
            .any(|c| !c.is_ascii() || c.is_ascii_control() || c == '=')
        {
            errors.push(FieldError::invalid(
                format!("{at}.name"),
                BadValue::from(name),
                ENV_NAME_MESSAGE,
            ));
        }
        let Some(from) = var.get("valueFrom").filter(|v| v.is_object()) else {
            continue;
        };
        let from_path = format!("{at}.valueFrom");
        let sources = [
            "fieldRef",
            "resourceFieldRef",
            "configMapKeyRef",
            "secretKeyRef",
        ]
        .iter()
        .filter(|k| from.get(**k).is_some_and(|v| !v.is_null()))
        .count();
        for key in ["configMapKeyRef", "secretKeyRef"] {
            let Some(selector) = from.get(key).filter(|v| v.is_object()) else {
                continue;
            };
            dns1123_subdomain(
                text(selector, "name"),
                &format!("{from_path}.{key}.name"),
                errors,
            );
            let k = text(selector, "key");
            if k.is_empty() {
                errors.push(FieldError::required(format!("{from_path}.{key}.key"), ""));
            } else {
                for message in config_key_errors(k) {
                    errors.push(FieldError::invalid(
                        format!("{from_path}.{key}.key"),
                        BadValue::from(k),
                        message,
                    ));
                }
            }
        }
        let detail = match sources {
            0 => Some(
                "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
            ),
            _ if !text(var, "value").is_empty() => {
                Some("may not be specified when `value` is not empty")
            }
            1 => None,
            _ => Some("may not have more than one field specified at a time"),
        };
        if let Some(detail) = detail {
            errors.push(FieldError::invalid(from_path, BadValue::from(""), detail));
        }
    }
}

/// `ValidateVolumeMounts`: the volume exists, a mount path is given once.
fn volume_mounts(mounts: &[Value], volumes: &HashSet<String>, path: &str, errors: &mut Errors) {
    let mut paths = HashSet::new();
    for (i, mount) in mounts.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let name = text(mount, "name");
        if name.is_empty() {
            errors.push(FieldError::required(format!("{at}.name"), ""));
        }
        if !volumes.contains(name) {
            errors.push(FieldError::new(
                format!("{at}.name"),
                kubeforge_runtime::schema::ErrorType::NotFound,
                BadValue::from(name),
                "",
            ));
        }
        let mount_path = text(mount, "mountPath");
        if mount_path.is_empty() {
            errors.push(FieldError::required(format!("{at}.mountPath"), ""));
        }
        if !paths.insert(mount_path) {
            errors.push(FieldError::invalid(
                format!("{at}.mountPath"),
                BadValue::from(mount_path),
                "must be unique",
            ));
        }
    }
}

/// `ValidateContainerResourceRequirements`: quantities not negative; a request not above
/// its limit, and equal to it for a resource that cannot be overcommitted (extended and
/// huge page resources), which must have a limit. Go ranges over the maps in no fixed
/// order; sorted is one of its orders.
fn resources(resources: &Value, path: &str, errors: &mut Errors) {
    let quantities = |key: &str| -> Vec<(String, Option<Quantity>)> {
        let mut items: Vec<(String, Option<Quantity>)> = object(resources, key)
            .into_iter()
            .flatten()
            .map(|(name, value)| (name.clone(), quantity(value)))
            .collect();
        items.sort_by(|a, b| a.0.cmp(&b.0));
        items
    };
    let limits = quantities("limits");
    let zero = Quantity::parse("0").ok();
    for (name, q) in &limits {
        negative(
            q.as_ref(),
            zero.as_ref(),
            &format!("{path}.limits[{name}]"),
            errors,
        );
    }
    for (name, q) in quantities("requests") {
        negative(
            q.as_ref(),
            zero.as_ref(),
            &format!("{path}.requests[{name}]"),
            errors,
        );
        let overcommit = overcommit_allowed(&name);
        let Some(q) = q else { continue };
        let shown = q.canonical().unwrap_or_default();
        match limits.iter().find(|(n, _)| *n == name) {
            Some((_, Some(limit))) => {
                let order = q.cmp_value(limit);
                let limit = limit.canonical().unwrap_or_default();
                if !overcommit && order != Some(std::cmp::Ordering::Equal) {
                    errors.push(FieldError::invalid(
                        format!("{path}.requests"),
                        BadValue::String(shown),
                        format!("must be equal to {name} limit of {limit}"),
                    ));
                } else if order == Some(std::cmp::Ordering::Greater) {
                    errors.push(FieldError::invalid(
                        format!("{path}.requests"),
                        BadValue::String(shown),
                        format!("must be less than or equal to {name} limit of {limit}"),
                    ));
                }
            }
            Some((_, None)) => {}
            None if !overcommit => errors.push(FieldError::required(
                format!("{path}.limits"),
                "Limit must be set for non overcommitable resources",
            )),
            None => {}
        }
    }
}

fn quantity(value: &Value) -> Option<Quantity> {
    match value {
        Value::String(s) => Quantity::parse(s).ok(),
        Value::Number(n) => Quantity::parse(&n.to_string()).ok(),
        _ => None,
    }
}

fn negative(q: Option<&Quantity>, zero: Option<&Quantity>, field: &str, errors: &mut Errors) {
    if let (Some(q), Some(zero)) = (q, zero)
        && q.cmp_value(zero) == Some(std::cmp::Ordering::Less)
    {
        errors.push(FieldError::invalid(
            field,
            BadValue::String(q.canonical().unwrap_or_default()),
            NEGATIVE,
        ));
    }
}

/// `IsOvercommitAllowed`: a native resource (no domain, or a `kubernetes.io` one) that is
/// not a huge page size.
fn overcommit_allowed(name: &str) -> bool {
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    native && !name.starts_with("hugepages-")
}

/// `ValidateTolerations`.
fn tolerations(tolerations: &[Value], path: &str, errors: &mut Errors) {
    for (i, toleration) in tolerations.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let key = text(toleration, "key");
        let operator = text(toleration, "operator");
        let effect = text(toleration, "effect");
        if !key.is_empty() {
            for message in kubeforge_runtime::schema::names::is_qualified_name(key) {
                errors.push(FieldError::invalid(
                    format!("{at}.key"),
                    BadValue::from(key),
                    message,
                ));
            }
        }
        if key.is_empty() && operator != "Exists" {
            errors.push(FieldError::invalid(
                format!("{at}.operator"),
                BadValue::from(operator),
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        if toleration
            .get("tolerationSeconds")
            .is_some_and(|v| !v.is_null())
            && effect != "NoExecute"
        {
            errors.push(FieldError::invalid(
                format!("{at}.effect"),
                BadValue::from(effect),
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        let value = text(toleration, "value");
        match operator {
            "Equal" | "" => {
                let messages = kubeforge_runtime::schema::names::is_valid_label_value(value);
                if !messages.is_empty() {
                    errors.push(FieldError::invalid(
                        format!("{at}.operator"),
                        BadValue::from(value),
                        messages.join(";"),
                    ));
                }
            }
            "Exists" => {
                if !value.is_empty() {
                    errors.push(FieldError::invalid(
                        format!("{at}.operator"),
                        BadValue::from(value),
                        "value must be empty when `operator` is 'Exists'",
                    ));
                }
            }
            other => errors.push(not_supported(
                format!("{at}.operator"),
                other,
                &["Equal", "Exists"],
            )),
        }
        if !effect.is_empty() && !matches!(effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute")
        {
            errors.push(not_supported(
                format!("{at}.effect"),
                effect,
                &["NoSchedule", "PreferNoSchedule", "NoExecute"],
            ));
        }
    }
}

/// `ValidatePodUpdate`'s rules on the spec: the containers neither added nor removed, images
/// given, `activeDeadlineSeconds` only set or lowered, tolerations only added, scheduling
/// gates only removed, and nothing else changed. Go follows the refusal with a `cmp.Diff` of
/// its internal types, which is not reproduced: the message ends with the fields' list.
fn update(new: &Value, old: &Value, errors: &mut Errors) {
    for key in ["containers", "initContainers"] {
        let (now, before) = (list(new, key), list(old, key));
        if now.len() != before.len() {
            errors.push(FieldError::forbidden(
                format!("spec.{key}"),
                "pod updates may not add or remove containers",
            ));
            return;
        }
        for (i, container) in now.iter().enumerate() {
            if text(container, "image").is_empty() {
                errors.push(FieldError::required(format!("spec.{key}[{i}].image"), ""));
            }
            padded_image(container, &format!("spec.{key}[{i}]"), errors);
        }
    }
    match (
        int(new, "activeDeadlineSeconds"),
        int(old, "activeDeadlineSeconds"),
    ) {
        (Some(n), _) if !(0..=MAX_INT32).contains(&n) => {
            errors.push(FieldError::invalid(
                "spec.activeDeadlineSeconds",
                BadValue::Int(n),
                inclusive_range(0, MAX_INT32),
            ));
            return;
        }
        (Some(n), Some(o)) if o < n => {
            errors.push(FieldError::invalid(
                "spec.activeDeadlineSeconds",
                BadValue::Int(n),
                "must be less than or equal to previous value",
            ));
            return;
        }
        (None, Some(_)) => errors.push(FieldError::invalid(
            "spec.activeDeadlineSeconds",
            BadValue::Json(Value::Null),
            "must not update from a positive integer to nil value",
        )),
        _ => {}
    }
    // `validateOnlyAddedTolerations`: each old toleration is still there (but for its
    // `tolerationSeconds`).
    let without_seconds = |t: &Value| {
        let mut t = normalized(t);
        if let Some(map) = t.as_object_mut() {
            map.remove("tolerationSeconds");
        }
        t
    };
    let now: Vec<Value> = list(new, "tolerations")
        .iter()
        .map(without_seconds)
        .collect();
    if list(old, "tolerations")
        .iter()
        .any(|t| !now.contains(&without_seconds(t)))
    {
        errors.push(FieldError::forbidden(
            "spec.tolerations",
            "existing toleration can not be modified except its tolerationSeconds",
        ));
    }
    // `validateOnlyDeletedSchedulingGates`.
    let old_gates: HashSet<&str> = list(old, "schedulingGates")
        .iter()
        .map(|g| text(g, "name"))
        .collect();
    for (i, gate) in list(new, "schedulingGates").iter().enumerate() {
        let name = text(gate, "name");
        if !old_gates.contains(name) {
            errors.push(FieldError::forbidden(
                format!("spec.schedulingGates[{i}].name"),
                format!("only deletion is allowed, but found new scheduling gate '{name}'"),
            ));
        }
    }
    if same(new, old) {
        return;
    }
    // The fields an update may change take their old values; what is left must be equal.
    let mut munged = new.clone();
    if let Some(spec) = munged.as_object_mut() {
        for key in ["containers", "initContainers"] {
            if let Some(containers) = spec.get_mut(key).and_then(Value::as_array_mut) {
                for (container, before) in containers.iter_mut().zip(list(old, key)) {
                    set(container.as_object_mut(), "image", before.get("image"));
                }
            }
        }
        for key in ["activeDeadlineSeconds", "schedulingGates", "tolerations"] {
            set(Some(spec), key, old.get(key));
        }
        if int(old, "terminationGracePeriodSeconds").is_some_and(|s| s < 0)
            && int(new, "terminationGracePeriodSeconds") == Some(1)
        {
            set(
                Some(spec),
                "terminationGracePeriodSeconds",
                old.get("terminationGracePeriodSeconds"),
            );
        }
        // A gated Pod's node selector and node affinity may change (more than Go allows:
        // only additions).
        if !list(old, "schedulingGates").is_empty() {
            set(Some(spec), "nodeSelector", old.get("nodeSelector"));
            if let Some(affinity) = spec.get_mut("affinity").and_then(Value::as_object_mut) {
                set(
                    Some(affinity),
                    "nodeAffinity",
                    old.pointer("/affinity/nodeAffinity"),
                );
            }
        }
    }
    if !same(&munged, old) {
        errors.push(FieldError::forbidden(
            "spec",
            format!(
                "pod updates may not change fields other than {}",
                UPDATABLE_POD_SPEC_FIELDS.join(",")
            ),
        ));
    }
}

/// `ValidatePodEphemeralContainersUpdate`: an ephemeral container, once added, is neither
/// removed nor changed. Go follows a change with a `cmp.Diff`, not reproduced.
fn ephemeral_update(new: &Value, old: &Value, errors: &mut Errors) {
    let now = list(new, "ephemeralContainers");
    for before in list(old, "ephemeralContainers") {
        let name = text(before, "name");
        let quoted = kubeforge_runtime::schema::gofmt::quote(name);
        match now.iter().find(|c| text(c, "name") == name) {
            None => errors.push(FieldError::forbidden(
                "spec.ephemeralContainers",
                format!("existing ephemeral containers {quoted} may not be removed\n"),
            )),
            Some(now) if !same(now, before) => errors.push(FieldError::forbidden(
                "spec.ephemeralContainers",
                format!("existing ephemeral containers {quoted} may not be changed\n"),
            )),
            Some(_) => {}
        }
    }
}

/// Sets `key` of `map` to `value`, or removes it.
fn set(map: Option<&mut Map<String, Value>>, key: &str, value: Option<&Value>) {
    if let Some(map) = map {
        match value {
            Some(value) => map.insert(key.to_owned(), value.clone()),
            None => map.remove(key),
        };
    }
}
