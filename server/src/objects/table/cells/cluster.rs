//! The cluster's own machinery: leases, API priority and fairness, storage versions and
//! their migrations, priority and runtime classes, and dynamic resource allocation.

use serde_json::Value;

use super::super::fields::{condition, count, deleting, field, flag, list, text};
use super::super::format::{more, or};
use super::common::{Cells, age, integer, name, name_age, string};

pub(super) const PRINTERS: &[(&str, Cells)] = &[
    ("coordination.k8s.io/Lease", lease),
    ("coordination.k8s.io/LeaseCandidate", lease_candidate),
    ("flowcontrol.apiserver.k8s.io/FlowSchema", flow_schema),
    (
        "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration",
        priority_level_configuration,
    ),
    ("internal.apiserver.k8s.io/StorageVersion", storage_version),
    (
        "storagemigration.k8s.io/StorageVersionMigration",
        storage_version_migration,
    ),
    ("scheduling.k8s.io/PriorityClass", priority_class),
    ("node.k8s.io/RuntimeClass", runtime_class),
    ("resource.k8s.io/DeviceClass", name_age),
    ("resource.k8s.io/ResourceClaimTemplate", name_age),
    ("resource.k8s.io/ResourceClaim", resource_claim),
    ("resource.k8s.io/ResourceSlice", resource_slice),
];

fn lease(o: &Value) -> Vec<Value> {
    vec![name(o), string(o, "/spec/holderIdentity"), age(o)]
}

fn lease_candidate(o: &Value) -> Vec<Value> {
    vec![
        name(o),
        string(o, "/spec/leaseName"),
        string(o, "/spec/binaryVersion"),
        string(o, "/spec/emulationVersion"),
        age(o),
    ]
}

fn flow_schema(o: &Value) -> Vec<Value> {
    let dangling = condition(o, "/status/conditions", "Dangling")
        .and_then(|c| c.get("status").and_then(Value::as_str))
        .unwrap_or("?");
    vec![
        name(o),
        string(o, "/spec/priorityLevelConfiguration/name"),
        integer(o, "/spec/matchingPrecedence"),
        Value::from(or(text(o, "/spec/distinguisherMethod/type"), "<none>")),
        age(o),
        Value::from(dangling),
    ]
}

/// Limited levels print their shares, and queuing ones their queues; `<none>` otherwise.
fn priority_level_configuration(o: &Value) -> Vec<Value> {
    let limited = o.pointer("/spec/limited");
    let queuing = limited.and_then(|l| l.pointer("/limitResponse/queuing"));
    let cell = |v: Option<&Value>, k: &str| match v {
        Some(v) => v.get(k).cloned().unwrap_or(Value::from(0)),
        None => Value::from("<none>"),
    };
    vec![
        name(o),
        string(o, "/spec/type"),
        cell(limited, "nominalConcurrencyShares"),
        cell(queuing, "queues"),
        cell(queuing, "handSize"),
        cell(queuing, "queueLengthLimit"),
        age(o),
    ]
}

fn storage_version(o: &Value) -> Vec<Value> {
    let versions: Vec<String> = list(o, "/status/storageVersions")
        .into_iter()
        .map(|v| {
            format!(
                "{}={}",
                field(v, "apiServerID"),
                field(v, "encodingVersion")
            )
        })
        .collect();
    vec![
        name(o),
        Value::from(or(text(o, "/status/commonEncodingVersion"), "<unset>")),
        Value::from(more(&versions, 3)),
        age(o),
    ]
}

fn storage_version_migration(o: &Value) -> Vec<Value> {
    vec![
        name(o),
        Value::from(format!(
            "{}.{}.{}",
            text(o, "/spec/resource/resource"),
            text(o, "/spec/resource/version"),
            text(o, "/spec/resource/group")
        )),
    ]
}

fn priority_class(o: &Value) -> Vec<Value> {
    vec![
        name(o),
        integer(o, "/value"),
        Value::Bool(flag(o, "/globalDefault", false)),
        age(o),
        string(o, "/preemptionPolicy"),
    ]
}

fn runtime_class(o: &Value) -> Vec<Value> {
    vec![name(o), string(o, "/handler"), age(o)]
}

/// The claim's state: `deleted`, `pending` or `allocated`, and `reserved`.
fn resource_claim(o: &Value) -> Vec<Value> {
    let mut states = Vec::new();
    let deleted = deleting(o);
    if deleted {
        states.push("deleted");
    }
    if o.pointer("/status/allocation").is_none() {
        if !deleted {
            states.push("pending");
        }
    } else {
        states.push("allocated");
        if count(o, "/status/reservedFor") > 0 {
            states.push("reserved");
        }
    }
    vec![name(o), Value::from(states.join(",")), age(o)]
}

fn resource_slice(o: &Value) -> Vec<Value> {
    vec![
        name(o),
        string(o, "/spec/nodeName"),
        string(o, "/spec/driver"),
        string(o, "/spec/pool/name"),
        age(o),
    ]
}
