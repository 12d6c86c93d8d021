//! Tables (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`), what `kubectl get`
//! prints: the API server's printers for the built-in kinds (columns as data in
//! `data/printers.json`, cells computed here as `printers.go` computes them), a custom
//! resource's `additionalPrinterColumns` evaluated as JSONPath, and `Name`/`Age` for the
//! rest. Every column is sent (the API server prints wide); `kubectl` hides those of
//! priority 1 unless `-o wide`.

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::catalog::{Catalog, ResourceDef};
use crate::jsonpath::{self, JsonPath};

const DATA: &str = include_str!("../../data/printers.json");

/// `[name, type, format, priority, description]`.
type ColumnData = (String, String, String, i64, String);

#[derive(Deserialize)]
struct Printers {
    default: Vec<ColumnData>,
    kinds: HashMap<String, Vec<ColumnData>>,
    aliases: HashMap<String, String>,
}

fn printers() -> &'static Printers {
    static PRINTERS: OnceLock<Printers> = OnceLock::new();
    PRINTERS.get_or_init(|| match serde_json::from_str(DATA) {
        Ok(printers) => printers,
        // The file is part of the crate and a unit test parses it.
        Err(_) => Printers {
            default: Vec::new(),
            kinds: HashMap::new(),
            aliases: HashMap::new(),
        },
    })
}

/// The printers' key of a resource: `group/Kind`, through the aliases.
fn key(def: &ResourceDef) -> String {
    let key = format!("{}/{}", def.group, def.kind);
    printers().aliases.get(&key).cloned().unwrap_or(key)
}

/// What each row carries besides its cells (`includeObject`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Include {
    None,
    Metadata,
    Object,
}

impl Include {
    pub(crate) fn of(query: Option<&str>) -> Include {
        match query {
            Some("None") => Include::None,
            Some("Object") => Include::Object,
            _ => Include::Metadata,
        }
    }
}

/// A `Table` of `objects` of `def`'s kind; `metadata` is the list's (resource version,
/// continue token); `headers` false leaves out the column definitions (watch events after
/// the first).
pub(crate) fn table(
    catalog: &Catalog,
    def: &ResourceDef,
    version: &str,
    objects: &[&Value],
    include: Include,
    metadata: Value,
    headers: bool,
) -> Value {
    let custom = !def.printer_columns.is_empty();
    let columns: Vec<Value> = if custom {
        let mut columns = vec![column(
            catalog,
            &(
                "Name".into(),
                "string".into(),
                "name".into(),
                0,
                "@meta.name".into(),
            ),
        )];
        columns.extend(def.printer_columns.iter().map(|c| {
            let description = if c.description.is_empty() {
                format!(
                    "Custom resource definition column (in JSONPath format): {}",
                    c.json_path
                )
            } else {
                c.description.clone()
            };
            json!({"name": c.name, "type": c.type_, "format": c.format, "description": description, "priority": c.priority})
        }));
        columns
    } else {
        let data = printers();
        data.kinds
            .get(&key(def))
            .unwrap_or(&data.default)
            .iter()
            .map(|c| column(catalog, c))
            .collect()
    };
    let paths: Vec<Option<JsonPath>> = def
        .printer_columns
        .iter()
        .map(|c| JsonPath::parse(&c.json_path).ok())
        .collect();
    let rows: Vec<Value> = objects
        .iter()
        .map(|object| {
            let cells = if custom {
                let mut cells = vec![name(object)];
                for (column, path) in def.printer_columns.iter().zip(&paths) {
                    let found = path.as_ref().and_then(|p| p.find(object).first().copied());
                    cells.push(match found {
                        None => Value::Null,
                        Some(value) if column.type_ == "string" => {
                            Value::from(jsonpath::print(value))
                        }
                        Some(value) => json_cell(&column.type_, value),
                    });
                }
                cells
            } else {
                cells(&key(def), object)
                    .filter(|c| c.len() == columns.len())
                    .unwrap_or_else(|| vec![name(object), Value::from(age(object))])
            };
            let mut row = json!({"cells": cells});
            match include {
                Include::None => {}
                Include::Object => row["object"] = (*object).clone(),
                Include::Metadata => {
                    row["object"] = json!({
                        "kind": "PartialObjectMetadata",
                        "apiVersion": format!("meta.k8s.io/{version}"),
                        "metadata": object.get("metadata").cloned().unwrap_or_else(|| json!({})),
                    });
                }
            }
            if let Some(conditions) = row_conditions(&key(def), object) {
                row["conditions"] = conditions;
            }
            row
        })
        .collect();
    let mut table = json!({
        "kind": "Table",
        "apiVersion": format!("meta.k8s.io/{version}"),
        "metadata": metadata,
    });
    if headers {
        table["columnDefinitions"] = Value::Array(columns);
    }
    table["rows"] = Value::Array(rows);
    table
}

fn column(catalog: &Catalog, (name, type_, format, priority, description): &ColumnData) -> Value {
    let description = match description.strip_prefix('@') {
        Some(reference) => field_description(catalog, reference),
        None => description.clone(),
    };
    json!({"name": name, "type": type_, "format": format, "description": description, "priority": priority})
}

/// The description the served documents give a field: `meta.name` (ObjectMeta's) or
/// `<definition>.<field>`.
fn field_description(catalog: &Catalog, reference: &str) -> String {
    let reference = match reference.strip_prefix("meta.") {
        Some(field) => format!("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta.{field}"),
        None => reference.to_owned(),
    };
    let Some((definition, field)) = reference.rsplit_once('.') else {
        return String::new();
    };
    let documents = catalog
        .openapi
        .values()
        .map(|d| d.pointer("/components/schemas"))
        .chain(std::iter::once(
            catalog
                .openapi_v2
                .as_deref()
                .and_then(|d| d.get("definitions")),
        ));
    for schemas in documents.flatten() {
        if let Some(text) = schemas
            .get(definition)
            .and_then(|d| d.pointer(&format!("/properties/{field}/description")))
            .and_then(Value::as_str)
        {
            return text.to_owned();
        }
    }
    String::new()
}

/// A custom column's cell of a type other than `string` (the CRD table convertor's
/// `cellForJSONValue`).
fn json_cell(type_: &str, value: &Value) -> Value {
    match (type_, value) {
        ("integer", Value::Number(n)) => n
            .as_i64()
            .map(Value::from)
            .or_else(|| n.as_f64().map(|f| Value::from(f as i64)))
            .unwrap_or(Value::Null),
        ("number", Value::Number(n)) => n.as_f64().map_or(Value::Null, Value::from),
        ("boolean", Value::Bool(b)) => Value::Bool(*b),
        ("string", Value::String(s)) => Value::from(s.as_str()),
        ("date", Value::String(s)) => Value::from(match parse_time(s) {
            Some(seconds) => human_duration(now_seconds() - seconds),
            None => "<invalid>".to_owned(),
        }),
        _ => Value::Null,
    }
}

/// `Completed` row conditions of pods that succeeded or failed.
fn row_conditions(key: &str, object: &Value) -> Option<Value> {
    if key != "/Pod" {
        return None;
    }
    match text(object, "/status/phase") {
        "Succeeded" => Some(
            json!([{"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}]),
        ),
        "Failed" => Some(
            json!([{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]),
        ),
        _ => None,
    }
}

/// The cells of one object, as the printer of its kind computes them.
fn cells(key: &str, o: &Value) -> Option<Vec<Value>> {
    let name = name(o);
    let age = Value::from(age(o));
    let int = |pointer: &str| Value::from(o.pointer(pointer).and_then(Value::as_i64).unwrap_or(0));
    let s = |pointer: &str| Value::from(text(o, pointer));
    let len = |pointer: &str| Value::from(count(o, pointer) as i64);
    Some(match key {
        "/Pod" => return Some(pod(o)),
        "/PodTemplate" => {
            let (names, images) = containers(o.pointer("/template/spec/containers"));
            vec![
                name,
                names,
                images,
                Value::from(format_labels(o.pointer("/template/metadata/labels"))),
            ]
        }
        "policy/PodDisruptionBudget" => vec![
            name,
            Value::from(int_or_string(o.pointer("/spec/minAvailable"))),
            Value::from(int_or_string(o.pointer("/spec/maxUnavailable"))),
            int("/status/disruptionsAllowed"),
            age,
        ],
        "/ReplicationController" | "apps/ReplicaSet" => {
            let (names, images) = containers(o.pointer("/spec/template/spec/containers"));
            let selector = if key == "apps/ReplicaSet" {
                format_label_selector(o.pointer("/spec/selector"))
            } else {
                format_labels(o.pointer("/spec/selector"))
            };
            vec![
                name,
                int("/spec/replicas"),
                int("/status/replicas"),
                int("/status/readyReplicas"),
                age,
                names,
                images,
                Value::from(selector),
            ]
        }
        "apps/DaemonSet" => {
            let (names, images) = containers(o.pointer("/spec/template/spec/containers"));
            vec![
                name,
                int("/status/desiredNumberScheduled"),
                int("/status/currentNumberScheduled"),
                int("/status/numberReady"),
                int("/status/updatedNumberScheduled"),
                int("/status/numberAvailable"),
                Value::from(format_labels(o.pointer("/spec/template/spec/nodeSelector"))),
                age,
                names,
                images,
                Value::from(format_label_selector(o.pointer("/spec/selector"))),
            ]
        }
        "batch/Job" => job(o),
        "batch/CronJob" => {
            let (names, images) =
                containers(o.pointer("/spec/jobTemplate/spec/template/spec/containers"));
            let last = match o
                .pointer("/status/lastScheduleTime")
                .and_then(Value::as_str)
            {
                Some(t) => since(t),
                None => "<none>".to_owned(),
            };
            let suspend = match o.pointer("/spec/suspend").and_then(Value::as_bool) {
                Some(true) => "True",
                Some(false) => "False",
                None => "<unset>",
            };
            vec![
                name,
                s("/spec/schedule"),
                Value::from(or(text(o, "/spec/timeZone"), "<none>")),
                Value::from(suspend),
                len("/status/active"),
                Value::from(last),
                age,
                names,
                images,
                Value::from(format_label_selector(
                    o.pointer("/spec/jobTemplate/spec/selector"),
                )),
            ]
        }
        "/Service" => service(o),
        "networking.k8s.io/Ingress" => {
            let rules = list(o, "/spec/rules");
            let hosts: Vec<&str> = rules
                .iter()
                .filter_map(|r| r.get("host").and_then(Value::as_str))
                .filter(|h| !h.is_empty())
                .collect();
            let hosts = if hosts.is_empty() {
                "*".to_owned()
            } else if rules.len() > 3 {
                format!(
                    "{} + {} more...",
                    hosts[..hosts.len().min(3)].join(","),
                    rules.len() - 3
                )
            } else {
                hosts.join(",")
            };
            let ports = if count(o, "/spec/tls") > 0 {
                "80, 443"
            } else {
                "80"
            };
            vec![
                name,
                Value::from(or(text(o, "/spec/ingressClassName"), "<none>")),
                Value::from(hosts),
                Value::from(load_balancer(o.pointer("/status/loadBalancer/ingress"))),
                Value::from(ports),
                age,
            ]
        }
        "networking.k8s.io/IngressClass" => {
            let parameters = match o.pointer("/spec/parameters") {
                Some(p) => {
                    let mut text = p
                        .get("kind")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned();
                    if let Some(group) = p.get("apiGroup").and_then(Value::as_str) {
                        text = format!("{text}.{group}");
                    }
                    format!(
                        "{text}/{}",
                        p.get("name").and_then(Value::as_str).unwrap_or("")
                    )
                }
                None => "<none>".to_owned(),
            };
            vec![name, s("/spec/controller"), Value::from(parameters), age]
        }
        "apps/StatefulSet" => {
            let (names, images) = containers(o.pointer("/spec/template/spec/containers"));
            vec![name, ready(o), age, names, images]
        }
        "/Endpoints" => vec![name, Value::from(endpoints(o)), age],
        "/Node" => node(o),
        "/Event" => event(o),
        "/Namespace" => vec![name, s("/status/phase"), age],
        "/Secret" => vec![name, s("/type"), len("/data"), age],
        "/ServiceAccount" => vec![name, len("/secrets"), age],
        "/PersistentVolume" => {
            let claim = match o.pointer("/spec/claimRef") {
                Some(r) => format!(
                    "{}/{}",
                    r.get("namespace").and_then(Value::as_str).unwrap_or(""),
                    r.get("name").and_then(Value::as_str).unwrap_or("")
                ),
                None => String::new(),
            };
            let phase = if o.pointer("/metadata/deletionTimestamp").is_some() {
                "Terminating"
            } else {
                text(o, "/status/phase")
            };
            let class = or(
                text(o, "/spec/storageClassName"),
                annotation(o, "volume.beta.kubernetes.io/storage-class"),
            );
            vec![
                name,
                Value::from(quantity(o.pointer("/spec/capacity/storage"))),
                Value::from(access_modes(o.pointer("/spec/accessModes"))),
                s("/spec/persistentVolumeReclaimPolicy"),
                Value::from(phase),
                Value::from(claim),
                Value::from(class),
                Value::from(or(text(o, "/spec/volumeAttributesClassName"), "<unset>")),
                s("/status/reason"),
                age,
                Value::from(or(text(o, "/spec/volumeMode"), "<unset>")),
            ]
        }
        "/PersistentVolumeClaim" => {
            let phase = if o.pointer("/metadata/deletionTimestamp").is_some() {
                "Terminating"
            } else {
                text(o, "/status/phase")
            };
            let bound = !text(o, "/spec/volumeName").is_empty();
            let class = or(
                text(o, "/spec/storageClassName"),
                annotation(o, "volume.beta.kubernetes.io/storage-class"),
            );
            vec![
                name,
                Value::from(phase),
                s("/spec/volumeName"),
                Value::from(if bound {
                    quantity(o.pointer("/status/capacity/storage"))
                } else {
                    String::new()
                }),
                Value::from(if bound {
                    access_modes(o.pointer("/status/accessModes"))
                } else {
                    String::new()
                }),
                Value::from(class),
                Value::from(or(text(o, "/spec/volumeAttributesClassName"), "<unset>")),
                age,
                Value::from(or(text(o, "/spec/volumeMode"), "<unset>")),
            ]
        }
        "/ComponentStatus" => {
            let healthy = list(o, "/conditions")
                .into_iter()
                .find(|c| c.get("type").and_then(Value::as_str) == Some("Healthy"));
            let field =
                |c: &Value, k: &str| c.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            let (status, message, error) = match healthy {
                Some(c) => (
                    if field(c, "status") == "True" {
                        "Healthy"
                    } else {
                        "Unhealthy"
                    }
                    .to_owned(),
                    field(c, "message"),
                    field(c, "error"),
                ),
                None => ("Unknown".to_owned(), String::new(), String::new()),
            };
            vec![
                name,
                Value::from(status),
                Value::from(message),
                Value::from(error),
            ]
        }
        "apps/Deployment" => {
            let (names, images) = containers(o.pointer("/spec/template/spec/containers"));
            vec![
                name,
                ready(o),
                int("/status/updatedReplicas"),
                int("/status/availableReplicas"),
                age,
                names,
                images,
                Value::from(selector_string(o.pointer("/spec/selector"))),
            ]
        }
        "autoscaling/HorizontalPodAutoscaler" => {
            let reference = format!(
                "{}/{}",
                text(o, "/spec/scaleTargetRef/kind"),
                text(o, "/spec/scaleTargetRef/name")
            );
            let min = o
                .pointer("/spec/minReplicas")
                .and_then(Value::as_i64)
                .map_or_else(|| "<unset>".to_owned(), |n| n.to_string());
            vec![
                name,
                Value::from(reference),
                Value::from(hpa_metrics(o)),
                Value::from(min),
                int("/spec/maxReplicas"),
                int("/status/currentReplicas"),
                age,
            ]
        }
        "/ConfigMap" => vec![
            name,
            Value::from((count(o, "/data") + count(o, "/binaryData")) as i64),
            age,
        ],
        "networking.k8s.io/NetworkPolicy" => vec![
            name,
            Value::from(format_label_selector(Some(
                o.pointer("/spec/podSelector").unwrap_or(&json!({})),
            ))),
            age,
        ],
        "rbac.authorization.k8s.io/RoleBinding"
        | "rbac.authorization.k8s.io/ClusterRoleBinding" => {
            let (users, groups, accounts) = subjects(o);
            vec![
                name,
                Value::from(format!(
                    "{}/{}",
                    text(o, "/roleRef/kind"),
                    text(o, "/roleRef/name")
                )),
                age,
                Value::from(users),
                Value::from(groups),
                Value::from(accounts),
            ]
        }
        "certificates.k8s.io/CertificateSigningRequest" => {
            let duration = o
                .pointer("/spec/expirationSeconds")
                .and_then(Value::as_i64)
                .map_or_else(|| "<none>".to_owned(), human_duration);
            vec![
                name,
                age,
                Value::from(or(text(o, "/spec/signerName"), "<none>")),
                s("/spec/username"),
                Value::from(duration),
                Value::from(csr_condition(o)),
            ]
        }
        "certificates.k8s.io/ClusterTrustBundle" => {
            vec![name, Value::from(or(text(o, "/spec/signerName"), "<none>"))]
        }
        "coordination.k8s.io/Lease" => vec![name, s("/spec/holderIdentity"), age],
        "coordination.k8s.io/LeaseCandidate" => vec![
            name,
            s("/spec/leaseName"),
            s("/spec/binaryVersion"),
            s("/spec/emulationVersion"),
            age,
        ],
        "storage.k8s.io/StorageClass" => {
            let default = annotation(o, "storageclass.kubernetes.io/is-default-class") == "true"
                || annotation(o, "storageclass.beta.kubernetes.io/is-default-class") == "true";
            let shown = if default {
                format!("{} (default)", text(o, "/metadata/name"))
            } else {
                text(o, "/metadata/name").to_owned()
            };
            vec![
                Value::from(shown),
                s("/provisioner"),
                Value::from(or(text(o, "/reclaimPolicy"), "Delete")),
                Value::from(or(text(o, "/volumeBindingMode"), "Immediate")),
                Value::Bool(
                    o.pointer("/allowVolumeExpansion")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                ),
                age,
            ]
        }
        "storage.k8s.io/VolumeAttributesClass" => {
            let default = annotation(o, "storage.kubernetes.io/is-default-class") == "true";
            let shown = if default {
                format!("{} (default)", text(o, "/metadata/name"))
            } else {
                text(o, "/metadata/name").to_owned()
            };
            vec![Value::from(shown), s("/driverName"), age]
        }
        "apps/ControllerRevision" => {
            let controller = list(o, "/metadata/ownerReferences")
                .into_iter()
                .find(|r| r.get("controller") == Some(&Value::Bool(true)))
                .map_or_else(
                    || "<none>".to_owned(),
                    |r| {
                        let field = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("");
                        let group = field("apiVersion").rsplit_once('/').map_or("", |(g, _)| g);
                        let kind = if group.is_empty() {
                            field("kind").to_lowercase()
                        } else {
                            format!("{}.{group}", field("kind")).to_lowercase()
                        };
                        format!("{kind}/{}", field("name"))
                    },
                );
            vec![
                name,
                Value::from(controller),
                Value::from(
                    o.pointer("/revision")
                        .and_then(Value::as_i64)
                        .unwrap_or(0)
                        .to_string(),
                ),
                age,
            ]
        }
        "/ResourceQuota" => {
            let hard = o.pointer("/status/hard").and_then(Value::as_object);
            let mut requests = Vec::new();
            let mut limits = Vec::new();
            if let Some(hard) = hard {
                let mut names: Vec<&String> = hard.keys().collect();
                names.sort();
                for resource in names {
                    let used = quantity(o.pointer(&format!("/status/used/{}", escape(resource))));
                    let entry = format!(
                        "{resource}: {}/{}",
                        or(&used, "0"),
                        quantity(hard.get(resource))
                    );
                    if resource.split('.').next() == Some("limits") && resource.contains('.') {
                        limits.push(entry);
                    } else {
                        requests.push(entry);
                    }
                }
            }
            vec![
                name,
                Value::from(requests.join(", ")),
                Value::from(limits.join(", ")),
                age,
            ]
        }
        "scheduling.k8s.io/PriorityClass" => vec![
            name,
            int("/value"),
            Value::Bool(
                o.pointer("/globalDefault")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            ),
            age,
            s("/preemptionPolicy"),
        ],
        "node.k8s.io/RuntimeClass" => vec![name, s("/handler"), age],
        "storage.k8s.io/VolumeAttachment" => vec![
            name,
            s("/spec/attacher"),
            s("/spec/source/persistentVolumeName"),
            s("/spec/nodeName"),
            Value::Bool(
                o.pointer("/status/attached")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            ),
            age,
        ],
        "discovery.k8s.io/EndpointSlice" => {
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
                .flat_map(|e| {
                    e.get("addresses")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default()
                })
                .filter_map(|a| a.as_str().map(str::to_owned))
                .collect();
            vec![
                name,
                s("/addressType"),
                Value::from(more(&ports, 3)),
                Value::from(more(&addresses, 3)),
                age,
            ]
        }
        "storage.k8s.io/CSINode" => vec![name, len("/spec/drivers"), age],
        "storage.k8s.io/CSIDriver" => {
            let flag = |p: &str, default: bool| {
                Value::Bool(o.pointer(p).and_then(Value::as_bool).unwrap_or(default))
            };
            let tokens = match o.pointer("/spec/tokenRequests").and_then(Value::as_array) {
                Some(list) => list
                    .iter()
                    .map(|t| t.get("audience").and_then(Value::as_str).unwrap_or(""))
                    .collect::<Vec<_>>()
                    .join(","),
                None => "<unset>".to_owned(),
            };
            let modes: Vec<&str> = list(o, "/spec/volumeLifecycleModes")
                .into_iter()
                .filter_map(Value::as_str)
                .collect();
            vec![
                name,
                flag("/spec/attachRequired", true),
                flag("/spec/podInfoOnMount", false),
                flag("/spec/storageCapacity", false),
                Value::from(tokens),
                flag("/spec/requiresRepublish", false),
                Value::from(or(&modes.join(","), "<none>")),
                age,
            ]
        }
        "storage.k8s.io/CSIStorageCapacity" => vec![
            name,
            s("/storageClassName"),
            Value::from(or(&quantity(o.pointer("/capacity")), "<unset>")),
        ],
        "admissionregistration.k8s.io/MutatingWebhookConfiguration"
        | "admissionregistration.k8s.io/ValidatingWebhookConfiguration" => {
            vec![name, len("/webhooks"), age]
        }
        "admissionregistration.k8s.io/ValidatingAdmissionPolicy"
        | "admissionregistration.k8s.io/MutatingAdmissionPolicy" => {
            let rules = if key.ends_with("ValidatingAdmissionPolicy") {
                "/spec/validations"
            } else {
                "/spec/mutations"
            };
            let param = match o.pointer("/spec/paramKind") {
                Some(p) => format!(
                    "{}/{}",
                    p.get("apiVersion").and_then(Value::as_str).unwrap_or(""),
                    p.get("kind").and_then(Value::as_str).unwrap_or("")
                ),
                None => "<unset>".to_owned(),
            };
            vec![name, len(rules), Value::from(param), age]
        }
        "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding"
        | "admissionregistration.k8s.io/MutatingAdmissionPolicyBinding" => {
            let param = match o.pointer("/spec/paramRef") {
                Some(p) => {
                    let field = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("");
                    if !field("name").is_empty() {
                        if field("namespace").is_empty() {
                            format!("*/{}", field("name"))
                        } else {
                            format!("{}/{}", field("namespace"), field("name"))
                        }
                    } else if let Some(selector) = p.get("selector") {
                        selector_string(Some(selector))
                    } else {
                        "<unset>".to_owned()
                    }
                }
                None => "<unset>".to_owned(),
            };
            vec![name, s("/spec/policyName"), Value::from(param), age]
        }
        "flowcontrol.apiserver.k8s.io/FlowSchema" => {
            let dangling = list(o, "/status/conditions")
                .into_iter()
                .find(|c| c.get("type").and_then(Value::as_str) == Some("Dangling"))
                .and_then(|c| c.get("status").and_then(Value::as_str))
                .unwrap_or("?")
                .to_owned();
            vec![
                name,
                s("/spec/priorityLevelConfiguration/name"),
                int("/spec/matchingPrecedence"),
                Value::from(or(text(o, "/spec/distinguisherMethod/type"), "<none>")),
                age,
                Value::from(dangling),
            ]
        }
        "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration" => {
            let none = || Value::from("<none>");
            let limited = o.pointer("/spec/limited");
            let queuing = limited.and_then(|l| l.pointer("/limitResponse/queuing"));
            let from = |v: Option<&Value>, k: &str| {
                v.and_then(|v| v.get(k)).cloned().unwrap_or(Value::from(0))
            };
            vec![
                name,
                s("/spec/type"),
                if limited.is_some() {
                    from(limited, "nominalConcurrencyShares")
                } else {
                    none()
                },
                if queuing.is_some() {
                    from(queuing, "queues")
                } else {
                    none()
                },
                if queuing.is_some() {
                    from(queuing, "handSize")
                } else {
                    none()
                },
                if queuing.is_some() {
                    from(queuing, "queueLengthLimit")
                } else {
                    none()
                },
                age,
            ]
        }
        "internal.apiserver.k8s.io/StorageVersion" => {
            let versions: Vec<String> = list(o, "/status/storageVersions")
                .into_iter()
                .map(|v| {
                    format!(
                        "{}={}",
                        v.get("apiServerID").and_then(Value::as_str).unwrap_or(""),
                        v.get("encodingVersion")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                    )
                })
                .collect();
            vec![
                name,
                Value::from(or(text(o, "/status/commonEncodingVersion"), "<unset>")),
                Value::from(more(&versions, 3)),
                age,
            ]
        }
        "resource.k8s.io/DeviceClass" | "resource.k8s.io/ResourceClaimTemplate" => vec![name, age],
        "resource.k8s.io/ResourceClaim" => {
            let mut states = Vec::new();
            let deleted = o.pointer("/metadata/deletionTimestamp").is_some();
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
            vec![name, Value::from(states.join(",")), age]
        }
        "resource.k8s.io/ResourceSlice" => vec![
            name,
            s("/spec/nodeName"),
            s("/spec/driver"),
            s("/spec/pool/name"),
            age,
        ],
        "networking.k8s.io/ServiceCIDR" => {
            let cidrs: Vec<&str> = list(o, "/spec/cidrs")
                .into_iter()
                .filter_map(Value::as_str)
                .collect();
            vec![name, Value::from(cidrs.join(",")), age]
        }
        "networking.k8s.io/IPAddress" => {
            let parent = match o.pointer("/spec/parentRef") {
                Some(p) => {
                    let field = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("");
                    let mut text = if field("group").is_empty() {
                        field("resource").to_lowercase()
                    } else {
                        format!("{}.{}", field("resource"), field("group")).to_lowercase()
                    };
                    if !field("namespace").is_empty() {
                        text = format!("{text}/{}", field("namespace"));
                    }
                    format!("{text}/{}", field("name"))
                }
                None => "<none>".to_owned(),
            };
            // printers.go appends the age too, for a column it does not define.
            vec![name, Value::from(parent)]
        }
        "storagemigration.k8s.io/StorageVersionMigration" => vec![
            name,
            Value::from(format!(
                "{}.{}.{}",
                text(o, "/spec/resource/resource"),
                text(o, "/spec/resource/version"),
                text(o, "/spec/resource/group")
            )),
        ],
        _ => return None,
    })
}

fn pod(o: &Value) -> Vec<Value> {
    let spec_containers = list(o, "/spec/containers");
    let init_specs = list(o, "/spec/initContainers");
    let restartable = |name: &str| {
        init_specs.iter().any(|c| {
            c.get("name").and_then(Value::as_str) == Some(name)
                && c.get("restartPolicy").and_then(Value::as_str) == Some("Always")
        })
    };
    let total = spec_containers.len()
        + init_specs
            .iter()
            .filter(|c| c.get("restartPolicy").and_then(Value::as_str) == Some("Always"))
            .count();
    let phase = text(o, "/status/phase");
    let mut reason = or(text(o, "/status/reason"), phase).to_owned();
    if list(o, "/status/conditions").iter().any(|c| {
        c.get("type").and_then(Value::as_str) == Some("PodScheduled")
            && c.get("reason").and_then(Value::as_str) == Some("SchedulingGated")
    }) {
        reason = "SchedulingGated".to_owned();
    }
    let mut restarts = 0i64;
    let mut restartable_restarts = 0i64;
    let mut ready = 0usize;
    let mut last_restart: Option<i64> = None;
    let mut last_restartable: Option<i64> = None;
    let finished = |c: &Value| {
        c.pointer("/lastState/terminated/finishedAt")
            .and_then(Value::as_str)
            .and_then(parse_time)
    };
    let mut initializing = false;
    let init_statuses = list(o, "/status/initContainerStatuses");
    for (i, c) in init_statuses.iter().enumerate() {
        let count = c.get("restartCount").and_then(Value::as_i64).unwrap_or(0);
        restarts += count;
        if let Some(t) = finished(c) {
            last_restart = Some(last_restart.map_or(t, |l| l.max(t)));
        }
        let cname = c.get("name").and_then(Value::as_str).unwrap_or("");
        let is_restartable = restartable(cname);
        if is_restartable {
            restartable_restarts += count;
            if let Some(t) = finished(c) {
                last_restartable = Some(last_restartable.map_or(t, |l| l.max(t)));
            }
        }
        let terminated = c.pointer("/state/terminated");
        let exit = terminated
            .and_then(|t| t.get("exitCode"))
            .and_then(Value::as_i64);
        let waiting_reason = c
            .pointer("/state/waiting/reason")
            .and_then(Value::as_str)
            .unwrap_or("");
        if terminated.is_some() && exit == Some(0) {
            continue;
        }
        if is_restartable && c.get("started") == Some(&Value::Bool(true)) {
            if c.get("ready") == Some(&Value::Bool(true)) {
                ready += 1;
            }
            continue;
        }
        if let Some(t) = terminated {
            let t_reason = t.get("reason").and_then(Value::as_str).unwrap_or("");
            reason = if t_reason.is_empty() {
                match t.get("signal").and_then(Value::as_i64).filter(|s| *s != 0) {
                    Some(signal) => format!("Init:Signal:{signal}"),
                    None => format!("Init:ExitCode:{}", exit.unwrap_or(0)),
                }
            } else {
                format!("Init:{t_reason}")
            };
        } else if !waiting_reason.is_empty() && waiting_reason != "PodInitializing" {
            reason = format!("Init:{waiting_reason}");
        } else {
            reason = format!("Init:{i}/{}", init_specs.len());
        }
        initializing = true;
        break;
    }
    let initialized = list(o, "/status/conditions").iter().any(|c| {
        c.get("type").and_then(Value::as_str) == Some("Initialized")
            && c.get("status").and_then(Value::as_str) == Some("True")
    });
    if !initializing || initialized {
        restarts = restartable_restarts;
        last_restart = last_restartable;
        let mut running = false;
        for c in list(o, "/status/containerStatuses").iter().rev() {
            restarts += c.get("restartCount").and_then(Value::as_i64).unwrap_or(0);
            if let Some(t) = finished(c) {
                last_restart = Some(last_restart.map_or(t, |l| l.max(t)));
            }
            let waiting = c
                .pointer("/state/waiting/reason")
                .and_then(Value::as_str)
                .unwrap_or("");
            let terminated = c.pointer("/state/terminated");
            let t_reason = terminated
                .and_then(|t| t.get("reason"))
                .and_then(Value::as_str)
                .unwrap_or("");
            if !waiting.is_empty() {
                reason = waiting.to_owned();
            } else if !t_reason.is_empty() {
                reason = t_reason.to_owned();
            } else if let Some(t) = terminated {
                reason = match t.get("signal").and_then(Value::as_i64).filter(|s| *s != 0) {
                    Some(signal) => format!("Signal:{signal}"),
                    None => format!(
                        "ExitCode:{}",
                        t.get("exitCode").and_then(Value::as_i64).unwrap_or(0)
                    ),
                };
            } else if c.get("ready") == Some(&Value::Bool(true))
                && c.pointer("/state/running").is_some()
            {
                running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && running {
            let pod_ready = list(o, "/status/conditions").iter().any(|c| {
                c.get("type").and_then(Value::as_str) == Some("Ready")
                    && c.get("status").and_then(Value::as_str) == Some("True")
            });
            reason = if pod_ready { "Running" } else { "NotReady" }.to_owned();
        }
    }
    if o.pointer("/metadata/deletionTimestamp").is_some() {
        if text(o, "/status/reason") == "NodeLost" {
            reason = "Unknown".to_owned();
        } else if phase != "Succeeded" && phase != "Failed" {
            reason = "Terminating".to_owned();
        }
    }
    let restarts = match last_restart {
        Some(t) if restarts != 0 => {
            format!("{restarts} ({} ago)", human_duration(now_seconds() - t))
        }
        _ => restarts.to_string(),
    };
    let ip = list(o, "/status/podIPs")
        .first()
        .and_then(|p| p.get("ip"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let gates = list(o, "/spec/readinessGates");
    let readiness = if gates.is_empty() {
        "<none>".to_owned()
    } else {
        let conditions = list(o, "/status/conditions");
        let met = gates
            .iter()
            .filter(|g| {
                let wanted = g.get("conditionType").and_then(Value::as_str);
                conditions
                    .iter()
                    .find(|c| c.get("type").and_then(Value::as_str) == wanted)
                    .is_some_and(|c| c.get("status").and_then(Value::as_str) == Some("True"))
            })
            .count();
        format!("{met}/{}", gates.len())
    };
    vec![
        name(o),
        Value::from(format!("{ready}/{total}")),
        Value::from(reason),
        Value::from(restarts),
        Value::from(age(o)),
        Value::from(or(&ip, "<none>")),
        Value::from(or(text(o, "/spec/nodeName"), "<none>")),
        Value::from(or(text(o, "/status/nominatedNodeName"), "<none>")),
        Value::from(readiness),
    ]
}

fn job(o: &Value) -> Vec<Value> {
    let succeeded = o
        .pointer("/status/succeeded")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let completions = match o.pointer("/spec/completions").and_then(Value::as_i64) {
        Some(c) => format!("{succeeded}/{c}"),
        None => {
            let parallelism = o
                .pointer("/spec/parallelism")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            if parallelism > 1 {
                format!("{succeeded}/1 of {parallelism}")
            } else {
                format!("{succeeded}/1")
            }
        }
    };
    let start = o
        .pointer("/status/startTime")
        .and_then(Value::as_str)
        .and_then(parse_time);
    let end = o
        .pointer("/status/completionTime")
        .and_then(Value::as_str)
        .and_then(parse_time);
    let duration = match (start, end) {
        (None, _) => String::new(),
        (Some(s), None) => human_duration(now_seconds() - s),
        (Some(s), Some(e)) => human_duration(e - s),
    };
    let has = |t: &str| {
        list(o, "/status/conditions")
            .into_iter()
            .find(|c| c.get("type").and_then(Value::as_str) == Some(t))
            .is_some_and(|c| c.get("status").and_then(Value::as_str) == Some("True"))
    };
    let status = if has("Complete") {
        "Complete"
    } else if has("Failed") {
        "Failed"
    } else if o.pointer("/metadata/deletionTimestamp").is_some() {
        "Terminating"
    } else if has("Suspended") {
        "Suspended"
    } else if has("FailureTarget") {
        "FailureTarget"
    } else {
        "Running"
    };
    let (names, images) = containers(o.pointer("/spec/template/spec/containers"));
    vec![
        name(o),
        Value::from(status),
        Value::from(completions),
        Value::from(duration),
        Value::from(age(o)),
        names,
        images,
        Value::from(format_label_selector(o.pointer("/spec/selector"))),
    ]
}

fn service(o: &Value) -> Vec<Value> {
    let kind = text(o, "/spec/type");
    let cluster_ip = list(o, "/spec/clusterIPs")
        .first()
        .and_then(|v| v.as_str())
        .unwrap_or("<none>")
        .to_owned();
    let external: Vec<&str> = list(o, "/spec/externalIPs")
        .into_iter()
        .filter_map(Value::as_str)
        .collect();
    let external_ip = match kind {
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
    };
    let ports: Vec<String> = list(o, "/spec/ports")
        .into_iter()
        .map(|p| {
            let port = p.get("port").and_then(Value::as_i64).unwrap_or(0);
            let protocol = p.get("protocol").and_then(Value::as_str).unwrap_or("");
            match p.get("nodePort").and_then(Value::as_i64).filter(|n| *n > 0) {
                Some(node) => format!("{port}:{node}/{protocol}"),
                None => format!("{port}/{protocol}"),
            }
        })
        .collect();
    vec![
        name(o),
        Value::from(kind),
        Value::from(cluster_ip),
        Value::from(external_ip),
        Value::from(or(&ports.join(","), "<none>")),
        Value::from(age(o)),
        Value::from(format_labels(o.pointer("/spec/selector"))),
    ]
}

fn node(o: &Value) -> Vec<Value> {
    let mut status: Vec<String> = Vec::new();
    if let Some(c) = list(o, "/status/conditions")
        .into_iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
    {
        status.push(
            if c.get("status").and_then(Value::as_str) == Some("True") {
                "Ready"
            } else {
                "NotReady"
            }
            .to_owned(),
        );
    }
    if status.is_empty() {
        status.push("Unknown".to_owned());
    }
    if o.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        status.push("SchedulingDisabled".to_owned());
    }
    let mut roles: Vec<String> = o
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|labels| {
            labels
                .iter()
                .filter_map(|(k, v)| match k.strip_prefix("node-role.kubernetes.io/") {
                    Some(role) if !role.is_empty() => Some(role.to_owned()),
                    _ if k == "kubernetes.io/role" => {
                        v.as_str().filter(|v| !v.is_empty()).map(str::to_owned)
                    }
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    roles.sort();
    roles.dedup();
    let address = |kind: &str| {
        list(o, "/status/addresses")
            .into_iter()
            .find(|a| a.get("type").and_then(Value::as_str) == Some(kind))
            .and_then(|a| a.get("address").and_then(Value::as_str))
            .unwrap_or("<none>")
            .to_owned()
    };
    let info = |k: &str| or(text(o, &format!("/status/nodeInfo/{k}")), "<unknown>").to_owned();
    vec![
        name(o),
        Value::from(status.join(",")),
        Value::from(or(&roles.join(","), "<none>")),
        Value::from(age(o)),
        Value::from(text(o, "/status/nodeInfo/kubeletVersion")),
        Value::from(address("InternalIP")),
        Value::from(address("ExternalIP")),
        Value::from(info("osImage")),
        Value::from(info("kernelVersion")),
        Value::from(info("containerRuntimeVersion")),
    ]
}

/// A core/v1 Event, or an events.k8s.io Event read as the core one it converts to.
fn event(o: &Value) -> Vec<Value> {
    let events_api = o
        .get("apiVersion")
        .and_then(Value::as_str)
        .is_some_and(|v| v.starts_with("events.k8s.io/"));
    let field = |core: &str, events: &str| {
        if events_api {
            events.to_owned()
        } else {
            core.to_owned()
        }
    };
    let time = |pointer: &str| {
        o.pointer(pointer)
            .and_then(Value::as_str)
            .and_then(parse_time)
    };
    let first = time(&field("/firstTimestamp", "/deprecatedFirstTimestamp"))
        .or_else(|| time("/eventTime"))
        .map_or_else(
            || "<unknown>".to_owned(),
            |t| human_duration(now_seconds() - t),
        );
    let mut last = time(&field("/lastTimestamp", "/deprecatedLastTimestamp"))
        .map_or_else(|| first.clone(), |t| human_duration(now_seconds() - t));
    let mut count = o
        .pointer(&field("/count", "/deprecatedCount"))
        .and_then(Value::as_i64)
        .unwrap_or(0);
    if let Some(series) = o.get("series") {
        last = series
            .get("lastObservedTime")
            .and_then(Value::as_str)
            .and_then(parse_time)
            .map_or_else(
                || "<unknown>".to_owned(),
                |t| human_duration(now_seconds() - t),
            );
        count = series.get("count").and_then(Value::as_i64).unwrap_or(0);
    } else if count == 0 {
        count = 1;
    }
    let involved = field("/involvedObject", "/regarding");
    let kind = text(o, &format!("{involved}/kind")).to_lowercase();
    let object_name = text(o, &format!("{involved}/name"));
    let target = if object_name.is_empty() {
        kind
    } else {
        format!("{kind}/{object_name}")
    };
    let component = or(
        text(
            o,
            &field("/source/component", "/deprecatedSource/component"),
        ),
        text(o, "/reportingController"),
    )
    .to_owned();
    let host = or(
        text(o, &field("/source/host", "/deprecatedSource/host")),
        text(o, "/reportingInstance"),
    )
    .to_owned();
    let source = if host.is_empty() {
        component
    } else {
        format!("{component}, {host}")
    };
    let message = text(o, &field("/message", "/note")).trim().to_owned();
    vec![
        Value::from(last),
        Value::from(text(o, "/type")),
        Value::from(text(o, "/reason")),
        Value::from(target),
        Value::from(text(o, &format!("{involved}/fieldPath"))),
        Value::from(source),
        Value::from(message),
        Value::from(first),
        Value::from(count),
        name(o),
    ]
}

fn hpa_metrics(o: &Value) -> String {
    let specs = list(o, "/spec/metrics");
    if specs.is_empty() {
        return "<none>".to_owned();
    }
    let statuses = list(o, "/status/currentMetrics");
    let mut items: Vec<String> = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let kind = spec.get("type").and_then(Value::as_str).unwrap_or("");
        let status = statuses.get(i).copied();
        let q =
            |v: Option<&Value>, p: &str| v.and_then(|v| v.pointer(p)).map(|x| quantity(Some(x)));
        let current = |p: &str| q(status, p).unwrap_or_else(|| "<unknown>".to_owned());
        let item = match kind {
            "External" | "Object" => {
                let source = if kind == "External" {
                    "external"
                } else {
                    "object"
                };
                match q(Some(spec), &format!("/{source}/target/averageValue")) {
                    Some(target) => format!(
                        "{}/{target} (avg)",
                        current(&format!("/{source}/current/averageValue"))
                    ),
                    None => format!(
                        "{}/{}",
                        current(&format!("/{source}/current/value")),
                        q(Some(spec), &format!("/{source}/target/value")).unwrap_or_default()
                    ),
                }
            }
            "Pods" => format!(
                "{}/{}",
                current("/pods/current/averageValue"),
                q(Some(spec), "/pods/target/averageValue").unwrap_or_default()
            ),
            "Resource" | "ContainerResource" => {
                let source = if kind == "Resource" {
                    "resource"
                } else {
                    "containerResource"
                };
                let resource = spec
                    .pointer(&format!("/{source}/name"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                match q(Some(spec), &format!("/{source}/target/averageValue")) {
                    Some(target) => format!(
                        "{resource}: {}/{target}",
                        current(&format!("/{source}/current/averageValue"))
                    ),
                    None => {
                        let now = status
                            .and_then(|s| {
                                s.pointer(&format!("/{source}/current/averageUtilization"))
                            })
                            .and_then(Value::as_i64)
                            .map_or_else(|| "<unknown>".to_owned(), |u| format!("{u}%"));
                        let target = spec
                            .pointer(&format!("/{source}/target/averageUtilization"))
                            .and_then(Value::as_i64)
                            .map_or_else(|| "<auto>".to_owned(), |u| format!("{u}%"));
                        format!("{resource}: {now}/{target}")
                    }
                }
            }
            _ => "<unknown type>".to_owned(),
        };
        items.push(item);
    }
    if items.len() > 2 {
        let extra = items.len() - 2;
        format!("{} + {extra} more...", items[..2].join(", "))
    } else {
        items.join(", ")
    }
}

fn csr_condition(o: &Value) -> String {
    let conditions = list(o, "/status/conditions");
    let has = |t: &str| {
        conditions
            .iter()
            .any(|c| c.get("type").and_then(Value::as_str) == Some(t))
    };
    let mut status = if has("Denied") {
        "Denied"
    } else if has("Approved") {
        "Approved"
    } else {
        "Pending"
    }
    .to_owned();
    if has("Failed") {
        status.push_str(",Failed");
    }
    if !text(o, "/status/certificate").is_empty() {
        status.push_str(",Issued");
    }
    status
}

fn subjects(o: &Value) -> (String, String, String) {
    let (mut users, mut groups, mut accounts) = (Vec::new(), Vec::new(), Vec::new());
    for subject in list(o, "/subjects") {
        let field = |k: &str| subject.get(k).and_then(Value::as_str).unwrap_or("");
        match field("kind") {
            "User" => users.push(field("name").to_owned()),
            "Group" => groups.push(field("name").to_owned()),
            "ServiceAccount" => accounts.push(format!("{}/{}", field("namespace"), field("name"))),
            _ => {}
        }
    }
    (users.join(", "), groups.join(", "), accounts.join(", "))
}

fn endpoints(o: &Value) -> String {
    let subsets = list(o, "/subsets");
    if subsets.is_empty() {
        return "<none>".to_owned();
    }
    let mut shown = Vec::new();
    let mut total = 0;
    for subset in subsets {
        let addresses: Vec<&str> = subset
            .get("addresses")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.get("ip").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default();
        let ports = subset
            .get("ports")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
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

fn more(items: &[String], max: usize) -> String {
    if items.is_empty() {
        return "<unset>".to_owned();
    }
    let shown = items[..items.len().min(max)].join(",");
    if items.len() > max {
        format!("{shown} + {} more...", items.len() - max)
    } else {
        shown
    }
}

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

/// Container names and images, comma-separated (printers.go's `layoutContainerCells`).
fn containers(list: Option<&Value>) -> (Value, Value) {
    let items = list.and_then(Value::as_array).cloned().unwrap_or_default();
    let field = |k: &str| {
        items
            .iter()
            .map(|c| c.get(k).and_then(Value::as_str).unwrap_or("").to_owned())
            .collect::<Vec<_>>()
            .join(",")
    };
    (Value::from(field("name")), Value::from(field("image")))
}

/// `labels.FormatLabels`: `k=v,…` sorted by key, `<none>` when empty.
fn format_labels(map: Option<&Value>) -> String {
    let pairs: BTreeMap<&String, String> = map
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k, v.as_str().unwrap_or("").to_owned()))
                .collect()
        })
        .unwrap_or_default();
    if pairs.is_empty() {
        return "<none>".to_owned();
    }
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// `metav1.FormatLabelSelector`: the selector's string, `<none>` when it selects everything.
fn format_label_selector(selector: Option<&Value>) -> String {
    match selector {
        None => "<none>".to_owned(),
        Some(selector) => or(&selector_string(Some(selector)), "<none>").to_owned(),
    }
}

/// A label selector as `labels.Selector.String()` writes it: requirements sorted by key.
fn selector_string(selector: Option<&Value>) -> String {
    let Some(selector) = selector else {
        return String::new();
    };
    let mut requirements: Vec<(String, String)> = Vec::new();
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
        for (key, value) in labels {
            requirements.push((
                key.clone(),
                format!("{key}={}", value.as_str().unwrap_or("")),
            ));
        }
    }
    for expression in selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = expression
            .get("key")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let mut values: Vec<&str> = expression
            .get("values")
            .and_then(Value::as_array)
            .map(|v| v.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        values.sort_unstable();
        let text = match expression
            .get("operator")
            .and_then(Value::as_str)
            .unwrap_or("")
        {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.clone(),
            "DoesNotExist" => format!("!{key}"),
            _ => continue,
        };
        requirements.push((key, text));
    }
    requirements.sort_by(|a, b| a.0.cmp(&b.0));
    requirements
        .into_iter()
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .join(",")
}

fn int_or_string(value: Option<&Value>) -> String {
    match value {
        None => "N/A".to_owned(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn quantity(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// `ready/desired` replicas (Deployments, StatefulSets).
fn ready(object: &Value) -> Value {
    let count = |pointer: &str| object.pointer(pointer).and_then(Value::as_i64).unwrap_or(0);
    Value::from(format!(
        "{}/{}",
        count("/status/readyReplicas"),
        count("/spec/replicas")
    ))
}

fn name(object: &Value) -> Value {
    Value::from(text(object, "/metadata/name"))
}

fn text<'a>(object: &'a Value, pointer: &str) -> &'a str {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn annotation<'a>(object: &'a Value, key: &str) -> &'a str {
    object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn list<'a>(object: &'a Value, pointer: &str) -> Vec<&'a Value> {
    object
        .pointer(pointer)
        .and_then(Value::as_array)
        .map(|l| l.iter().collect())
        .unwrap_or_default()
}

fn count(object: &Value, pointer: &str) -> usize {
    match object.pointer(pointer) {
        Some(Value::Array(a)) => a.len(),
        Some(Value::Object(m)) => m.len(),
        _ => 0,
    }
}

fn or<'a>(text: &'a str, fallback: &'a str) -> &'a str {
    if text.is_empty() { fallback } else { text }
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The object's age (`translateTimestampSince` of its creation).
fn age(object: &Value) -> String {
    object
        .pointer("/metadata/creationTimestamp")
        .and_then(Value::as_str)
        .map_or_else(|| "<unknown>".to_owned(), since)
}

fn since(time: &str) -> String {
    match parse_time(time) {
        Some(t) => human_duration(now_seconds() - t),
        None => "<unknown>".to_owned(),
    }
}

fn parse_time(text: &str) -> Option<i64> {
    text.parse::<jiff::Timestamp>().ok().map(|t| t.as_second())
}

fn now_seconds() -> i64 {
    jiff::Timestamp::now().as_second()
}

/// `k8s.io/apimachinery/pkg/util/duration.HumanDuration` of `seconds`.
pub(crate) fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".to_owned();
    }
    if seconds < 0 {
        return "0s".to_owned();
    }
    if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let days = (hours / 24) % 365;
        return if days == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{days}d", hours / 24 / 365)
        };
    }
    format!("{}y", hours / 24 / 365)
}

/// The list metadata of a Table answering a list.
pub(crate) fn list_metadata(list: &Value) -> Value {
    let mut metadata = Map::new();
    if let Some(meta) = list.get("metadata").and_then(Value::as_object) {
        for key in ["resourceVersion", "continue", "remainingItemCount"] {
            if let Some(value) = meta.get(key) {
                metadata.insert(key.into(), value.clone());
            }
        }
    }
    Value::Object(metadata)
}

#[cfg(test)]
mod tests {
    use super::{cells, human_duration, printers, selector_string};
    use serde_json::json;

    #[test]
    fn every_printer_has_cells_for_each_of_its_columns() {
        let data = printers();
        assert!(data.kinds.len() > 50);
        for (key, columns) in &data.kinds {
            let cells = cells(
                key,
                &json!({"metadata": {"name": "x", "creationTimestamp": "2020-01-01T00:00:00Z"}}),
            )
            .unwrap_or_else(|| panic!("{key} has columns but no cells"));
            assert_eq!(cells.len(), columns.len(), "{key}");
        }
        for target in data.aliases.values() {
            assert!(data.kinds.contains_key(target), "{target}");
        }
    }

    #[test]
    fn durations_read_as_kubectl_prints_them() {
        for (seconds, text) in [
            (-5, "<invalid>"),
            (-1, "0s"),
            (59, "59s"),
            (119, "119s"),
            (120, "2m"),
            (150, "2m30s"),
            (600, "10m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 120, "3h2m"),
            (9 * 3600, "9h"),
            (50 * 3600, "2d2h"),
            (10 * 86400, "10d"),
            (800 * 86400, "2y70d"),
            (3000 * 86400, "8y"),
        ] {
            assert_eq!(human_duration(seconds), text, "{seconds}");
        }
    }

    #[test]
    fn selectors_print_sorted() {
        let selector = json!({"matchLabels": {"tier": "web", "app": "x"}, "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]}, {"key": "legacy", "operator": "DoesNotExist"}]});
        assert_eq!(
            selector_string(Some(&selector)),
            "app=x,env in (dev,prod),!legacy,tier=web"
        );
    }

    #[test]
    fn a_deployment_prints_its_replicas_containers_and_selector() {
        let deployment = json!({
            "metadata": {"name": "nginx", "creationTimestamp": "2020-01-01T00:00:00Z"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "nginx"}}, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}, {"name": "log", "image": "busybox"}]}}},
            "status": {"readyReplicas": 1, "updatedReplicas": 2, "availableReplicas": 1}
        });
        let row = cells("apps/Deployment", &deployment).unwrap();
        assert_eq!(row[..4], [json!("nginx"), json!("1/3"), json!(2), json!(1)]);
        assert_eq!(
            row[5..],
            [
                json!("nginx,log"),
                json!("nginx:1.27,busybox"),
                json!("app=nginx")
            ]
        );
    }
}
