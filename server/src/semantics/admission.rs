//! The mutating admission plugins a 1.36 API server runs by default that change a created
//! Pod (kube-apiserver's `--enable-admission-plugins` defaults), each as its Go code does it:
//!
//! - `ServiceAccount` (`plugin/pkg/admission/serviceaccount/admission.go`): the Pod runs as
//!   `default` unless it names a service account, which must exist (else 403 `error looking
//!   up service account <ns>/<name>: serviceaccount "<name>" not found`); unless the Pod or
//!   its service account turns automounting off, a projected `kube-api-access-<suffix>`
//!   volume (`TokenVolumeSource`: a token of 3607 s, the `kube-root-ca.crt` CA, the
//!   namespace) mounted read-only at `/var/run/secrets/kubernetes.io/serviceaccount` in every
//!   container and init container that mounts nothing there; the service account's
//!   `imagePullSecrets` when the Pod has none.
//! - `DefaultTolerationSeconds` (`plugin/pkg/admission/defaulttolerationseconds`): 300 s
//!   `NoExecute` tolerations of the `not-ready` and `unreachable` taints, unless the Pod
//!   tolerates them already.
//! - `Priority` (`plugin/pkg/admission/priority`): the priority and preemption policy of the
//!   Pod's PriorityClass, of the global default one without a name, else 0 and
//!   `PreemptLowerPriority`; a class that does not exist is refused (403 `no PriorityClass
//!   with name <name> was found`).
//!
//! The deprecated `serviceAccount` field follows `serviceAccountName`, as the v1 conversion
//! writes it.

use kubeforge_runtime::schema::gofmt::quote;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::objects::store::Key;

/// Where the token volume is mounted (`DefaultAPITokenMountPath`).
const TOKEN_MOUNT_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// The built-in PriorityClasses every cluster has (`scheduling.SystemPriorityClasses`).
const SYSTEM_CLASSES: [(&str, i64); 2] = [
    ("system-node-critical", 2_000_001_000),
    ("system-cluster-critical", 2_000_000_000),
];

/// What admission reads from the store for one Pod.
pub(crate) struct Lookups<'a> {
    /// The stored ServiceAccounts, when the API serves them and namespaces (whose
    /// controller makes each one's `default`); `None`: the `ServiceAccount` plugin does
    /// nothing.
    pub(crate) service_accounts: Option<&'a BTreeMap<Key, Arc<Value>>>,
    /// The stored PriorityClasses (none when the API does not serve them).
    pub(crate) priority_classes: Vec<&'a Value>,
    /// Five characters for the token volume's name (`names.SimpleNameGenerator`).
    pub(crate) suffix: &'a str,
}

/// Admits a created Pod: the changes above, or why it is forbidden (the message after
/// `pods "<name>" is forbidden: `).
pub(crate) fn admit_pod(
    pod: &mut Value,
    namespace: &str,
    lookups: &Lookups<'_>,
) -> Result<(), String> {
    if pod
        .pointer("/metadata/annotations/kubernetes.io~1config.mirror")
        .is_some()
    {
        // Mirror Pods (a kubelet's static Pods) are left as they are.
        return Ok(());
    }
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    if let Some(accounts) = lookups.service_accounts {
        let name = spec
            .get("serviceAccountName")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .unwrap_or("default")
            .to_owned();
        let Some(account) = accounts.get(&(namespace.to_owned(), name.clone())) else {
            return Err(format!(
                "error looking up service account {namespace}/{name}: serviceaccount {} not found",
                quote(&name)
            ));
        };
        spec.insert("serviceAccountName".into(), Value::from(name.as_str()));
        spec.insert("serviceAccount".into(), Value::from(name.as_str()));
        let automount = spec
            .get("automountServiceAccountToken")
            .and_then(Value::as_bool)
            .or_else(|| {
                account
                    .get("automountServiceAccountToken")
                    .and_then(Value::as_bool)
            })
            .unwrap_or(true);
        if automount {
            mount_token(spec, lookups.suffix);
        }
        let has_pull_secrets = spec
            .get("imagePullSecrets")
            .and_then(Value::as_array)
            .is_some_and(|s| !s.is_empty());
        if let Some(secrets) = account.get("imagePullSecrets").and_then(Value::as_array)
            && !has_pull_secrets
            && !secrets.is_empty()
        {
            spec.insert("imagePullSecrets".into(), Value::Array(secrets.clone()));
        }
    }
    default_tolerations(spec);
    priority(spec, &lookups.priority_classes)
}

/// `mountServiceAccountToken`: the projected volume, mounted in each container (init
/// containers first) that mounts nothing at the token's path.
fn mount_token(spec: &mut serde_json::Map<String, Value>, suffix: &str) {
    let existing = spec
        .get("volumes")
        .and_then(Value::as_array)
        .and_then(|volumes| {
            volumes.iter().find_map(|v| {
                let name = v.get("name").and_then(Value::as_str)?;
                name.starts_with("kube-api-access-")
                    .then(|| name.to_owned())
            })
        });
    let volume = existing
        .clone()
        .unwrap_or_else(|| format!("kube-api-access-{suffix}"));
    let mount = json!({"mountPath": TOKEN_MOUNT_PATH, "name": volume, "readOnly": true});
    let mut needed = false;
    for list in ["initContainers", "containers"] {
        for container in spec
            .get_mut(list)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            let Some(container) = container.as_object_mut() else {
                continue;
            };
            let mounts = container
                .entry("volumeMounts")
                .or_insert_with(|| Value::Array(Vec::new()));
            let Some(mounts) = mounts.as_array_mut() else {
                continue;
            };
            if mounts
                .iter()
                .any(|m| m.get("mountPath").and_then(Value::as_str) == Some(TOKEN_MOUNT_PATH))
            {
                continue;
            }
            mounts.push(mount.clone());
            needed = true;
        }
    }
    if needed && existing.is_none() {
        let volumes = spec
            .entry("volumes")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Some(volumes) = volumes.as_array_mut() {
            volumes.push(json!({
                "name": volume,
                "projected": {
                    "defaultMode": 420,
                    "sources": [
                        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                        {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
                        {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}, "path": "namespace"}]}},
                    ],
                },
            }));
        }
    }
}

/// `DefaultTolerationSeconds`.
fn default_tolerations(spec: &mut serde_json::Map<String, Value>) {
    let tolerations = spec
        .entry("tolerations")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Some(tolerations) = tolerations.as_array_mut() else {
        return;
    };
    for taint in [
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
    ] {
        let tolerated = tolerations.iter().any(|t| {
            let text = |key: &str| t.get(key).and_then(Value::as_str).unwrap_or("");
            (text("key") == taint || text("key").is_empty())
                && (text("effect") == "NoExecute" || text("effect").is_empty())
        });
        if !tolerated {
            tolerations.push(json!({
                "effect": "NoExecute",
                "key": taint,
                "operator": "Exists",
                "tolerationSeconds": 300,
            }));
        }
    }
}

/// The `Priority` plugin.
fn priority(spec: &mut serde_json::Map<String, Value>, classes: &[&Value]) -> Result<(), String> {
    let name = spec
        .get("priorityClassName")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let (value, policy) = if name.is_empty() {
        classes
            .iter()
            .find(|c| c.get("globalDefault").and_then(Value::as_bool) == Some(true))
            .map_or((0, None), |c| class_values(c))
    } else if let Some(class) = classes
        .iter()
        .find(|c| c.pointer("/metadata/name").and_then(Value::as_str) == Some(name.as_str()))
    {
        class_values(class)
    } else if let Some((_, value)) = SYSTEM_CLASSES.iter().find(|(n, _)| *n == name) {
        (*value, None)
    } else {
        return Err(format!("no PriorityClass with name {name} was found"));
    };
    spec.insert("priority".into(), Value::from(value));
    spec.insert(
        "preemptionPolicy".into(),
        Value::from(policy.unwrap_or_else(|| "PreemptLowerPriority".to_owned())),
    );
    Ok(())
}

fn class_values(class: &Value) -> (i64, Option<String>) {
    (
        class.get("value").and_then(Value::as_i64).unwrap_or(0),
        class
            .get("preemptionPolicy")
            .and_then(Value::as_str)
            .map(str::to_owned),
    )
}
