//! The Events the simulated components record, as core/v1 Events, which is what
//! `kubectl describe` and `kubectl events` read. The kubelets and kube-controller-manager's
//! controllers record through client-go's legacy recorder (`record.EventRecorder`,
//! `makeEvent`): `source`, `firstTimestamp`, `lastTimestamp`, `count` and the reporting
//! fields from the source. The scheduler records through the events.k8s.io/v1 recorder
//! (`events.EventRecorder`), whose Events the API server stores as core/v1 ones with an
//! `eventTime`, an `action` and the reporting fields, and no `source`, timestamps or
//! count; this server stores the two APIs' Events apart, so the scheduler's are written as
//! the core/v1 Events the real server would show for them.

use std::sync::atomic::{AtomicI64, Ordering};

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::controllers::simulation::text;
use crate::objects::clock;

/// Told apart Events recorded in the same nanosecond of a frozen clock.
static SEQUENCE: AtomicI64 = AtomicI64::new(0);

/// An Event's name: the object's, then the time in hexadecimal nanoseconds (`makeEvent`'s
/// `fmt.Sprintf("%v.%x", ref.Name, t.UnixNano())`).
fn name(involved: &Value, now: Timestamp) -> String {
    let nanos = i64::try_from(now.as_nanosecond()).unwrap_or(i64::MAX);
    let nanos = nanos.wrapping_add(SEQUENCE.fetch_add(1, Ordering::Relaxed));
    format!("{}.{nanos:x}", text(involved, "/metadata/name"))
}

/// The `involvedObject` of an Event (`ref.GetReference`).
fn reference(involved: &Value, field_path: Option<&str>) -> Value {
    let mut reference = json!({
        "kind": text(involved, "/kind"),
        "namespace": text(involved, "/metadata/namespace"),
        "name": text(involved, "/metadata/name"),
        "uid": text(involved, "/metadata/uid"),
        "apiVersion": text(involved, "/apiVersion"),
        "resourceVersion": text(involved, "/metadata/resourceVersion"),
    });
    if let Some(path) = field_path {
        reference["fieldPath"] = Value::from(path);
    }
    if let Some(map) = reference.as_object_mut() {
        map.retain(|_, v| v.as_str() != Some(""));
    }
    reference
}

/// What is recorded: the object, the container field path if any, `Normal` or `Warning`,
/// the reason and the message.
pub(crate) struct Recorded<'a> {
    pub(crate) involved: &'a Value,
    pub(crate) field_path: Option<&'a str>,
    pub(crate) kind: &'a str,
    pub(crate) reason: &'a str,
    pub(crate) message: String,
}

/// An Event of the legacy recorder of `component` (on `host`, for a kubelet).
pub(crate) fn legacy(event: &Recorded<'_>, component: &str, host: Option<&str>) -> Value {
    let now = clock::now();
    let time = clock::format(now);
    let mut source = json!({"component": component});
    if let Some(host) = host {
        source["host"] = Value::from(host);
    }
    json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name(event.involved, now)},
        "involvedObject": reference(event.involved, event.field_path),
        "reason": event.reason,
        "message": event.message,
        "source": source,
        "firstTimestamp": time,
        "lastTimestamp": time,
        "count": 1,
        "type": event.kind,
        "eventTime": null,
        "reportingComponent": component,
        "reportingInstance": host.unwrap_or(""),
    })
}

/// An Event of the scheduler (events.k8s.io/v1's recorder), as core/v1 shows it.
pub(crate) fn scheduler(event: &Recorded<'_>, action: &str) -> Value {
    let now = clock::now();
    json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name(event.involved, now)},
        "involvedObject": reference(event.involved, None),
        "reason": event.reason,
        "message": event.message,
        "source": {},
        "firstTimestamp": null,
        "lastTimestamp": null,
        "type": event.kind,
        "eventTime": now.strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string(),
        "action": action,
        "reportingComponent": "default-scheduler",
        "reportingInstance": "default-scheduler-kubeforge",
    })
}
