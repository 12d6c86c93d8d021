//! Jobs and CronJobs (pkg/apis/batch/validation/validation.go): `validateJobSpec`
//! (counts and durations not negative, the completion mode, the selector selecting the
//! template's labels, the pod template with `restartPolicy` `OnFailure` or `Never`),
//! `ValidateJobSpecUpdate` (the selector, the template and the modes fixed), and
//! `validateCronJobSpec` (the schedule as robfig/cron parses it, no `TZ` in it, the time
//! zone, the concurrency policy, the job template, the history limits).
//!
//! The API server's job strategy generates a Job's selector and its
//! `batch.kubernetes.io/controller-uid` label; this server does not, so a Job without a
//! selector is not refused for it.

use kubeforge_runtime::schema::{BadValue, ErrorType, FieldError};
use serde_json::Value;

use super::common::{
    Errors, at, empty_selector, go_label_selector, go_string_map, non_negative, not_supported,
    opt_text, same, selects, shown,
};
use super::cron;
use super::pods::pod_spec;

/// `ValidateJob`, or `ValidateJobUpdate` against `old`.
pub(super) fn job(object: &Value, old: Option<&Value>, errors: &mut Errors) {
    let spec = at(object, "spec");
    job_spec(spec, "spec", errors);
    let Some(old) = old else { return };
    let old_spec = at(old, "spec");
    // Completions are fixed but for an Indexed Job (elastic indexed Jobs).
    if opt_text(spec, "completionMode") != Some("Indexed") {
        fixed(spec, old_spec, "completions", errors);
    }
    let selector = at(spec, "selector");
    if !same(selector, at(old_spec, "selector")) {
        let value = if selector.is_null() {
            "\"null\"".to_owned()
        } else {
            go_label_selector(selector)
        };
        errors.push(shown(
            "spec.selector",
            ErrorType::Invalid,
            &value,
            super::common::FIELD_IMMUTABLE,
        ));
    }
    // A suspended Job that never started may change its scheduling directives.
    let mut template = at(spec, "template").clone();
    let mut before = at(old_spec, "template").clone();
    let never_started = old.pointer("/status/startTime").is_none_or(Value::is_null);
    if spec.get("suspend") == Some(&Value::Bool(true)) && never_started {
        for t in [&mut template, &mut before] {
            if let Some(meta) = t.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove("labels");
                meta.remove("annotations");
            }
            if let Some(pod) = t.get_mut("spec").and_then(Value::as_object_mut) {
                for key in ["nodeSelector", "tolerations", "schedulingGates", "affinity"] {
                    pod.remove(key);
                }
            }
        }
    }
    if !same(&template, &before) {
        // Go shows the whole `core.PodTemplateSpec` with `%#v`; not reproduced.
        errors.push(shown(
            "spec.template",
            ErrorType::Invalid,
            "core.PodTemplateSpec{…}",
            super::common::FIELD_IMMUTABLE,
        ));
    }
    for key in [
        "completionMode",
        "podFailurePolicy",
        "backoffLimitPerIndex",
        "managedBy",
        "successPolicy",
    ] {
        fixed(spec, old_spec, key, errors);
    }
}

/// `ValidateImmutableField` on `key`, the value shown as Go prints the pointer's target.
fn fixed(spec: &Value, old: &Value, key: &str, errors: &mut Errors) {
    let (now, then) = (at(spec, key), at(old, key));
    if same(now, then) {
        return;
    }
    let value = match now {
        Value::String(s) => kubeforge_runtime::schema::gofmt::quote(s),
        Value::Number(n) => n.to_string(),
        Value::Null => "\"null\"".to_owned(),
        other => kubeforge_runtime::schema::gofmt::go_syntax(other),
    };
    errors.push(shown(
        format!("spec.{key}"),
        ErrorType::Invalid,
        &value,
        super::common::FIELD_IMMUTABLE,
    ));
}

/// `validateJobSpec` at `path` (`spec`, or a CronJob's `spec.jobTemplate.spec`).
fn job_spec(spec: &Value, path: &str, errors: &mut Errors) {
    for key in [
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "backoffLimit",
        "ttlSecondsAfterFinished",
    ] {
        non_negative(spec, key, path, errors);
    }
    if let Some(mode) = opt_text(spec, "completionMode") {
        if !matches!(mode, "NonIndexed" | "Indexed") {
            errors.push(not_supported(
                format!("{path}.completionMode"),
                mode,
                &["NonIndexed", "Indexed"],
            ));
        }
        if mode == "Indexed" && spec.get("completions").is_none_or(Value::is_null) {
            errors.push(FieldError::required(
                format!("{path}.completions"),
                "when completion mode is Indexed",
            ));
        }
    }
    let selector = at(spec, "selector");
    let labels = spec
        .pointer("/template/metadata/labels")
        .and_then(Value::as_object);
    if !selector.is_null() && !empty_selector(selector) && !selects(selector, labels) {
        errors.push(shown(
            format!("{path}.template.metadata.labels"),
            ErrorType::Invalid,
            &go_string_map(labels),
            "`selector` does not match template `labels`",
        ));
    }
    let template_spec = spec.pointer("/template/spec").unwrap_or(&Value::Null);
    let template_path = format!("{path}.template.spec");
    pod_spec(template_spec, &template_path, errors);
    if let Some(policy) = opt_text(template_spec, "restartPolicy")
        && !matches!(policy, "OnFailure" | "Never")
    {
        errors.push(not_supported(
            format!("{template_path}.restartPolicy"),
            policy,
            &["OnFailure", "Never"],
        ));
    }
}

/// `ValidateCronJobCreate`, or `ValidateCronJobUpdate` against `old` (whose job template
/// is checked as a new one's: Go's `ValidateJobTemplateSpec`).
pub(super) fn cronjob(object: &Value, old: Option<&Value>, errors: &mut Errors) {
    let spec = at(object, "spec");
    let old_spec = old.map(|o| at(o, "spec"));
    let schedule = opt_text(spec, "schedule").unwrap_or("");
    if schedule.is_empty() {
        errors.push(FieldError::required("spec.schedule", ""));
    } else {
        if let Err(message) = cron::parse_standard(schedule) {
            errors.push(FieldError::invalid(
                "spec.schedule",
                BadValue::from(schedule),
                message,
            ));
        }
        let allow_tz =
            old_spec.is_some_and(|o| opt_text(o, "schedule").unwrap_or("").contains("TZ"));
        let zone = spec.get("timeZone").filter(|v| !v.is_null());
        if allow_tz && schedule.contains("TZ") && zone.is_some() {
            errors.push(FieldError::invalid(
                "spec.schedule",
                BadValue::from(schedule),
                "cannot use both timeZone field and TZ or CRON_TZ in schedule",
            ));
        } else if !allow_tz && schedule.contains("TZ") {
            errors.push(FieldError::invalid(
                "spec.schedule",
                BadValue::from(schedule),
                "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
            ));
        }
    }
    non_negative(spec, "startingDeadlineSeconds", "spec", errors);
    let zone = at(spec, "timeZone");
    if old_spec.is_none_or(|o| at(o, "timeZone") != zone) {
        time_zone(zone, errors);
    }
    match opt_text(spec, "concurrencyPolicy") {
        None | Some("Allow" | "Forbid" | "Replace") => {}
        Some("") => errors.push(FieldError::required("spec.concurrencyPolicy", "")),
        Some(other) => errors.push(not_supported(
            "spec.concurrencyPolicy",
            other,
            &["Allow", "Forbid", "Replace"],
        )),
    }
    job_spec(
        at(at(spec, "jobTemplate"), "spec"),
        "spec.jobTemplate.spec",
        errors,
    );
    non_negative(spec, "successfulJobsHistoryLimit", "spec", errors);
    non_negative(spec, "failedJobsHistoryLimit", "spec", errors);
}

/// `validateTimeZone`: a name of the time zone database (read from the system's, as
/// `time.LoadLocation` does; every name passes where the system has none).
fn time_zone(zone: &Value, errors: &mut Errors) {
    let Some(zone) = zone.as_str() else { return };
    let invalid =
        |detail: String| FieldError::invalid("spec.timeZone", BadValue::from(zone), detail);
    if zone.is_empty() {
        errors.push(invalid(
            "timeZone must be nil or non-empty string".to_owned(),
        ));
        return;
    }
    let part_ok = |part: &str| {
        part != "."
            && part != ".."
            && !part.starts_with('-')
            && !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+'))
    };
    if !zone.split('/').all(part_ok) {
        errors.push(invalid(format!("unknown time zone {zone}")));
        return;
    }
    if zone.eq_ignore_ascii_case("Local") {
        errors.push(invalid(
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
                .to_owned(),
        ));
    }
    if !cron::zone_exists(zone) {
        errors.push(invalid(format!("unknown time zone {zone}")));
    }
}
