//! The apps/v1 workloads (pkg/apis/apps/validation/validation.go and the registry
//! strategies' `ValidateUpdate`): `ValidateDeploymentSpec`, `ValidateReplicaSetSpec`,
//! `ValidateStatefulSetSpec`, `ValidateDaemonSetSpec` (replicas and durations not negative;
//! a selector given, not empty, selecting the template's labels; the pod template's spec
//! with `restartPolicy: Always` and no `activeDeadlineSeconds`; the update strategies), and
//! on update the selector fixed (apps/v1), a StatefulSet's spec but for the fields it may
//! change, a DaemonSet's `templateGeneration`.

use kubeforge_runtime::schema::{BadValue, ErrorType, FieldError};
use serde_json::Value;

use super::common::{
    Errors, PERCENT_MESSAGE, at, empty_selector, go_int_or_string, go_label_selector,
    go_string_map, immutable, int, int_or_percent, non_negative, normalized, not_supported,
    opt_text, percent, same, selects, shown,
};
use super::pods::pod_spec;

/// Which workload, for the words that differ between them.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Workload {
    Deployment,
    ReplicaSet,
    StatefulSet,
    DaemonSet,
}

impl Workload {
    fn noun(self) -> &'static str {
        match self {
            Workload::Deployment | Workload::ReplicaSet => "deployment",
            Workload::StatefulSet => "statefulset",
            Workload::DaemonSet => "daemonset",
        }
    }

    /// The kind named by "activeDeadlineSeconds in … is not Supported"
    /// (`ValidatePodTemplateSpecForReplicaSet` serves Deployments too).
    fn template_owner(self) -> &'static str {
        match self {
            Workload::Deployment | Workload::ReplicaSet => "ReplicaSet",
            Workload::StatefulSet => "StatefulSet",
            Workload::DaemonSet => "DaemonSet",
        }
    }
}

/// A workload's spec (and its update from `old`).
pub(super) fn workload(kind: Workload, object: &Value, old: Option<&Value>, errors: &mut Errors) {
    let spec = at(object, "spec");
    let old_spec = old.map(|o| at(o, "spec"));
    match kind {
        Workload::Deployment => {
            replicas_and_selector(kind, spec, errors);
            deployment_strategy(at(spec, "strategy"), errors);
            non_negative(spec, "minReadySeconds", "spec", errors);
            non_negative(spec, "revisionHistoryLimit", "spec", errors);
            if let Some(deadline) = int(spec, "progressDeadlineSeconds") {
                non_negative(spec, "progressDeadlineSeconds", "spec", errors);
                if deadline <= int(spec, "minReadySeconds").unwrap_or(0) {
                    errors.push(FieldError::invalid(
                        "spec.progressDeadlineSeconds",
                        BadValue::Int(deadline),
                        "must be greater than minReadySeconds",
                    ));
                }
            }
        }
        Workload::ReplicaSet => {
            non_negative(spec, "replicas", "spec", errors);
            non_negative(spec, "minReadySeconds", "spec", errors);
            selector_and_template(kind, spec, errors);
        }
        Workload::StatefulSet => statefulset(spec, old_spec, errors),
        Workload::DaemonSet => daemonset(spec, errors),
    }
    // The strategies' `ValidateUpdate`: apps/v1 may not change a selector.
    if let Some(old_spec) = old_spec {
        let selector = at(spec, "selector");
        immutable(
            selector,
            at(old_spec, "selector"),
            "spec.selector",
            &go_selector(selector),
            errors,
        );
    }
}

/// A selector printed as Go prints the `*metav1.LabelSelector` (`null` when absent).
fn go_selector(selector: &Value) -> String {
    if selector.is_null() {
        "\"null\"".to_owned()
    } else {
        go_label_selector(selector)
    }
}

/// `ValidateDeploymentSpec`'s replicas, then the selector and template.
fn replicas_and_selector(kind: Workload, spec: &Value, errors: &mut Errors) {
    non_negative(spec, "replicas", "spec", errors);
    selector_and_template(kind, spec, errors);
}

/// The selector (required, not empty) and `ValidatePodTemplateSpecForReplicaSet`.
fn selector_and_template(kind: Workload, spec: &Value, errors: &mut Errors) {
    selector_required(kind, spec, errors);
    template_labels(spec, errors);
    template(kind, spec, true, errors);
}

fn selector_required(kind: Workload, spec: &Value, errors: &mut Errors) {
    let selector = at(spec, "selector");
    if selector.is_null() {
        errors.push(FieldError::required("spec.selector", ""));
    } else if empty_selector(selector) {
        errors.push(shown(
            "spec.selector",
            ErrorType::Invalid,
            &go_label_selector(selector),
            &format!("empty selector is invalid for {}", kind.noun()),
        ));
    }
}

/// ``spec.template.metadata.labels: Invalid value: map[string]string{…}: `selector` does
/// not match template `labels` ``: the selector selects the template's labels (an empty
/// one selects everything; a missing one, `LabelSelectorAsSelector(nil)`, nothing).
fn template_labels(spec: &Value, errors: &mut Errors) {
    let selector = at(spec, "selector");
    let labels = spec
        .pointer("/template/metadata/labels")
        .and_then(Value::as_object);
    if !selector.is_null() && (empty_selector(selector) || selects(selector, labels)) {
        return;
    }
    errors.push(shown(
        "spec.template.metadata.labels",
        ErrorType::Invalid,
        &go_string_map(labels),
        "`selector` does not match template `labels`",
    ));
}

/// The template's pod spec (`ValidatePodTemplateSpec`, but for a StatefulSet, whose
/// template Go does not validate), `restartPolicy: Always`, no `activeDeadlineSeconds`.
fn template(kind: Workload, spec: &Value, pod: bool, errors: &mut Errors) {
    let template_spec = spec.pointer("/template/spec").unwrap_or(&Value::Null);
    if pod {
        pod_spec(template_spec, "spec.template.spec", errors);
    }
    if let Some(policy) = opt_text(template_spec, "restartPolicy").filter(|p| *p != "Always") {
        errors.push(not_supported(
            "spec.template.spec.restartPolicy",
            policy,
            &["Always"],
        ));
    }
    if template_spec
        .get("activeDeadlineSeconds")
        .is_some_and(|v| !v.is_null())
    {
        errors.push(FieldError::forbidden(
            "spec.template.spec.activeDeadlineSeconds",
            format!(
                "activeDeadlineSeconds in {} is not Supported",
                kind.template_owner()
            ),
        ));
    }
}

/// `ValidatePositiveIntOrPercent`.
fn positive_int_or_percent(value: &Value, field: &str, errors: &mut Errors) {
    match value {
        Value::String(s) if percent(s).is_none() => {
            errors.push(shown(
                field,
                ErrorType::Invalid,
                &go_int_or_string(value),
                PERCENT_MESSAGE,
            ));
        }
        Value::Number(n) => {
            if let Some(n) = n.as_i64().filter(|n| *n < 0) {
                errors.push(FieldError::invalid(
                    field,
                    BadValue::Int(n),
                    super::common::NEGATIVE,
                ));
            }
        }
        _ => {}
    }
}

/// `IsNotMoreThan100Percent`.
fn not_more_than_100(value: &Value, field: &str, errors: &mut Errors) {
    if let Some(p) = value.as_str().and_then(percent).filter(|p| *p > 100) {
        let _ = p;
        errors.push(shown(
            field,
            ErrorType::Invalid,
            &go_int_or_string(value),
            "must not be greater than 100%",
        ));
    }
}

/// `ValidateDeploymentStrategy` and `ValidateRollingUpdateDeployment`.
fn deployment_strategy(strategy: &Value, errors: &mut Errors) {
    let rolling = strategy.get("rollingUpdate").filter(|v| !v.is_null());
    match opt_text(strategy, "type") {
        Some("Recreate") if rolling.is_some() => {
            errors.push(FieldError::forbidden(
                "spec.strategy.rollingUpdate",
                "may not be specified when strategy `type` is 'Recreate'",
            ));
        }
        // An absent type was defaulted to `RollingUpdate`.
        None | Some("Recreate") => {}
        Some("RollingUpdate") => {
            let Some(rolling) = rolling else {
                errors.push(FieldError::required(
                    "spec.strategy.rollingUpdate",
                    "this should be defaulted and never be nil",
                ));
                return;
            };
            let path = "spec.strategy.rollingUpdate";
            let unavailable = at(rolling, "maxUnavailable");
            let surge = at(rolling, "maxSurge");
            positive_int_or_percent(unavailable, &format!("{path}.maxUnavailable"), errors);
            positive_int_or_percent(surge, &format!("{path}.maxSurge"), errors);
            if int_or_percent(unavailable) == 0 && int_or_percent(surge) == 0 {
                errors.push(shown(
                    format!("{path}.maxUnavailable"),
                    ErrorType::Invalid,
                    &go_int_or_string(unavailable),
                    "may not be 0 when `maxSurge` is 0",
                ));
            }
            not_more_than_100(unavailable, &format!("{path}.maxUnavailable"), errors);
        }
        Some(other) => {
            // Go shows the whole `apps.DeploymentStrategy`.
            let rolling = if rolling.is_some() {
                "(*apps.RollingUpdateDeployment)(0xc000000000)"
            } else {
                "(*apps.RollingUpdateDeployment)(nil)"
            };
            let value = format!(
                "apps.DeploymentStrategy{{Type:{}, RollingUpdate:{rolling}}}",
                kubeforge_runtime::schema::gofmt::quote(other)
            );
            errors.push(shown(
                "spec.strategy",
                ErrorType::NotSupported,
                &value,
                "supported values: \"Recreate\", \"RollingUpdate\"",
            ));
        }
    }
}

/// `ValidateStatefulSetSpec`, and `ValidateStatefulSetUpdate`'s fixed fields.
fn statefulset(spec: &Value, old: Option<&Value>, errors: &mut Errors) {
    if let Some(policy) = opt_text(spec, "podManagementPolicy")
        && !matches!(policy, "OrderedReady" | "Parallel")
    {
        errors.push(FieldError::invalid(
            "spec.podManagementPolicy",
            BadValue::from(policy),
            "must be 'OrderedReady' or 'Parallel'",
        ));
    }
    let strategy = at(spec, "updateStrategy");
    let rolling = strategy.get("rollingUpdate").filter(|v| !v.is_null());
    match opt_text(strategy, "type") {
        None | Some("RollingUpdate") => {
            if let Some(rolling) = rolling {
                let path = "spec.updateStrategy.rollingUpdate";
                non_negative(rolling, "partition", path, errors);
                if let Some(unavailable) = rolling.get("maxUnavailable").filter(|v| !v.is_null()) {
                    let field = format!("{path}.maxUnavailable");
                    positive_int_or_percent(unavailable, &field, errors);
                    if int_or_percent(unavailable) == 0 {
                        errors.push(shown(
                            &field,
                            ErrorType::Invalid,
                            &go_int_or_string(unavailable),
                            "cannot be 0",
                        ));
                    }
                    not_more_than_100(unavailable, &field, errors);
                }
            }
        }
        Some("OnDelete") => {
            if rolling.is_some() {
                errors.push(FieldError::invalid(
                    "spec.updateStrategy.rollingUpdate",
                    BadValue::Omitted,
                    "only allowed for updateStrategy 'RollingUpdate'",
                ));
            }
        }
        Some(_) => errors.push(FieldError::invalid(
            "spec.updateStrategy",
            BadValue::Omitted,
            "must be 'RollingUpdate' or 'OnDelete'",
        )),
    }
    non_negative(spec, "replicas", "spec", errors);
    non_negative(spec, "minReadySeconds", "spec", errors);
    if let Some(start) = spec
        .pointer("/ordinals/start")
        .and_then(Value::as_i64)
        .filter(|s| *s < 0)
    {
        errors.push(FieldError::invalid(
            "spec.ordinals.start",
            BadValue::Int(start),
            super::common::NEGATIVE,
        ));
    }
    selector_required(Workload::StatefulSet, spec, errors);
    template_labels(spec, errors);
    template(Workload::StatefulSet, spec, false, errors);
    let Some(old) = old else { return };
    // What an update may change takes its old value; the rest must be equal.
    let fixed = |s: &Value| {
        let mut s = normalized(s);
        if let Some(map) = s.as_object_mut() {
            for key in [
                "replicas",
                "template",
                "updateStrategy",
                "minReadySeconds",
                "ordinals",
                "persistentVolumeClaimRetentionPolicy",
                "revisionHistoryLimit",
            ] {
                map.remove(key);
            }
        }
        s
    };
    if !same(&fixed(spec), &fixed(old)) {
        errors.push(FieldError::forbidden(
            "spec",
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ));
    }
}

/// `ValidateDaemonSetSpecUpdate` (on update) and `ValidateDaemonSetSpec`.
/// `ValidateDaemonSetSpecUpdate`'s `templateGeneration` rules hold by construction: the
/// strategy sets it (`semantics::strategy`, kept in an annotation by apps/v1, which has no
/// such field for a client to send).
fn daemonset(spec: &Value, errors: &mut Errors) {
    let selector = at(spec, "selector");
    template_labels(spec, errors);
    if !selector.is_null() && empty_selector(selector) {
        errors.push(shown(
            "spec.selector",
            ErrorType::Invalid,
            &go_label_selector(selector),
            "empty selector is invalid for daemonset",
        ));
    }
    template(Workload::DaemonSet, spec, true, errors);
    non_negative(spec, "minReadySeconds", "spec", errors);
    non_negative(spec, "templateGeneration", "spec", errors);
    let strategy = at(spec, "updateStrategy");
    match opt_text(strategy, "type") {
        None | Some("OnDelete") => {}
        Some("RollingUpdate") => match strategy.get("rollingUpdate").filter(|v| !v.is_null()) {
            None => errors.push(FieldError::required(
                "spec.updateStrategy.rollingUpdate",
                "",
            )),
            Some(rolling) => {
                let path = "spec.updateStrategy.rollingUpdate";
                let unavailable = at(rolling, "maxUnavailable");
                let surge = at(rolling, "maxSurge");
                positive_int_or_percent(unavailable, &format!("{path}.maxUnavailable"), errors);
                positive_int_or_percent(surge, &format!("{path}.maxSurge"), errors);
                not_more_than_100(unavailable, &format!("{path}.maxUnavailable"), errors);
                not_more_than_100(surge, &format!("{path}.maxSurge"), errors);
                match (int_or_percent(unavailable) != 0, int_or_percent(surge) != 0) {
                    (true, true) => errors.push(shown(
                        format!("{path}.maxSurge"),
                        ErrorType::Invalid,
                        &go_int_or_string(surge),
                        "may not be set when maxUnavailable is non-zero",
                    )),
                    (false, false) => errors.push(FieldError::required(
                        format!("{path}.maxUnavailable"),
                        "cannot be 0 when maxSurge is 0",
                    )),
                    _ => {}
                }
            }
        },
        Some(other) => {
            let value = format!(
                "apps.DaemonSetUpdateStrategy{{Type:{}, RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}}",
                kubeforge_runtime::schema::gofmt::quote(other)
            );
            errors.push(shown(
                "spec.updateStrategy",
                ErrorType::NotSupported,
                &value,
                "supported values: \"RollingUpdate\", \"OnDelete\"",
            ));
        }
    }
    non_negative(spec, "revisionHistoryLimit", "spec", errors);
}
