//! Storage: volumes and their claims, storage and volume-attributes classes, attachments
//! and the CSI kinds.

use serde_json::Value;

use super::super::fields::{annotation, deleting, field, flag, strings, text};
use super::super::format::{or, quantity};
use super::common::{Cells, age, length, name, string};

pub(super) const PRINTERS: &[(&str, Cells)] = &[
    ("/PersistentVolume", persistent_volume),
    ("/PersistentVolumeClaim", persistent_volume_claim),
    ("storage.k8s.io/StorageClass", storage_class),
    (
        "storage.k8s.io/VolumeAttributesClass",
        volume_attributes_class,
    ),
    ("storage.k8s.io/VolumeAttachment", volume_attachment),
    ("storage.k8s.io/CSINode", csi_node),
    ("storage.k8s.io/CSIDriver", csi_driver),
    ("storage.k8s.io/CSIStorageCapacity", csi_storage_capacity),
];

/// Access modes by their short names, in Go's order (`GetAccessModesAsString`).
fn access_modes(modes: Option<&Value>) -> String {
    let modes: Vec<&str> = modes
        .and_then(Value::as_array)
        .map(|m| m.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (mode, short) in [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ] {
        if modes.contains(&mode) {
            out.push(short);
        }
    }
    out.join(",")
}

/// The phase, or `Terminating` while the volume or claim is deleted.
fn phase(o: &Value) -> &str {
    if deleting(o) {
        "Terminating"
    } else {
        text(o, "/status/phase")
    }
}

/// The storage class, from the field or the beta annotation.
fn storage_class_name(o: &Value) -> &str {
    or(
        text(o, "/spec/storageClassName"),
        annotation(o, "volume.beta.kubernetes.io/storage-class"),
    )
}

/// A field that prints `<unset>` when empty.
fn unset(o: &Value, pointer: &str) -> Value {
    Value::from(or(text(o, pointer), "<unset>"))
}

fn persistent_volume(o: &Value) -> Vec<Value> {
    let claim = match o.pointer("/spec/claimRef") {
        Some(r) => format!("{}/{}", field(r, "namespace"), field(r, "name")),
        None => String::new(),
    };
    vec![
        name(o),
        Value::from(quantity(o.pointer("/spec/capacity/storage"))),
        Value::from(access_modes(o.pointer("/spec/accessModes"))),
        string(o, "/spec/persistentVolumeReclaimPolicy"),
        Value::from(phase(o)),
        Value::from(claim),
        Value::from(storage_class_name(o)),
        unset(o, "/spec/volumeAttributesClassName"),
        string(o, "/status/reason"),
        age(o),
        unset(o, "/spec/volumeMode"),
    ]
}

/// Capacity and access modes print only once the claim is bound.
fn persistent_volume_claim(o: &Value) -> Vec<Value> {
    let bound = !text(o, "/spec/volumeName").is_empty();
    let (capacity, modes) = if bound {
        (
            quantity(o.pointer("/status/capacity/storage")),
            access_modes(o.pointer("/status/accessModes")),
        )
    } else {
        (String::new(), String::new())
    };
    vec![
        name(o),
        Value::from(phase(o)),
        string(o, "/spec/volumeName"),
        Value::from(capacity),
        Value::from(modes),
        Value::from(storage_class_name(o)),
        unset(o, "/spec/volumeAttributesClassName"),
        age(o),
        unset(o, "/spec/volumeMode"),
    ]
}

/// The name, with ` (default)` when an annotation makes the class the default.
fn class_name(o: &Value, annotations: &[&str]) -> Value {
    let shown = text(o, "/metadata/name");
    if annotations.iter().any(|a| annotation(o, a) == "true") {
        Value::from(format!("{shown} (default)"))
    } else {
        Value::from(shown)
    }
}

fn storage_class(o: &Value) -> Vec<Value> {
    vec![
        class_name(
            o,
            &[
                "storageclass.kubernetes.io/is-default-class",
                "storageclass.beta.kubernetes.io/is-default-class",
            ],
        ),
        string(o, "/provisioner"),
        Value::from(or(text(o, "/reclaimPolicy"), "Delete")),
        Value::from(or(text(o, "/volumeBindingMode"), "Immediate")),
        Value::Bool(flag(o, "/allowVolumeExpansion", false)),
        age(o),
    ]
}

fn volume_attributes_class(o: &Value) -> Vec<Value> {
    vec![
        class_name(o, &["storage.kubernetes.io/is-default-class"]),
        string(o, "/driverName"),
        age(o),
    ]
}

fn volume_attachment(o: &Value) -> Vec<Value> {
    vec![
        name(o),
        string(o, "/spec/attacher"),
        string(o, "/spec/source/persistentVolumeName"),
        string(o, "/spec/nodeName"),
        Value::Bool(flag(o, "/status/attached", false)),
        age(o),
    ]
}

fn csi_node(o: &Value) -> Vec<Value> {
    vec![name(o), length(o, "/spec/drivers"), age(o)]
}

fn csi_driver(o: &Value) -> Vec<Value> {
    let tokens = match o.pointer("/spec/tokenRequests").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .map(|t| field(t, "audience"))
            .collect::<Vec<_>>()
            .join(","),
        None => "<unset>".to_owned(),
    };
    let modes = strings(o, "/spec/volumeLifecycleModes");
    let flag = |pointer: &str, default: bool| Value::Bool(flag(o, pointer, default));
    vec![
        name(o),
        flag("/spec/attachRequired", true),
        flag("/spec/podInfoOnMount", false),
        flag("/spec/storageCapacity", false),
        Value::from(tokens),
        flag("/spec/requiresRepublish", false),
        Value::from(or(&modes.join(","), "<none>")),
        age(o),
    ]
}

fn csi_storage_capacity(o: &Value) -> Vec<Value> {
    vec![
        name(o),
        string(o, "/storageClassName"),
        Value::from(or(&quantity(o.pointer("/capacity")), "<unset>")),
    ]
}
