//! Each kind's registry strategy (`PrepareForCreate`, `PrepareForUpdate`): what happens to
//! an object's `status` and `metadata.generation` when it is created or updated, read from
//! `data/builtin-strategies.txt`, whose header says the format and names the sources. What
//! one line cannot say is a rule written here, named in the data by `create=@<name>`: a
//! created Pod's status (`Pending` and its QoS class, `qos.GetPodQOS`) and a created
//! PersistentVolume's; a Service's allocations are `allocation`'s.

use std::collections::HashMap;
use std::sync::OnceLock;

use kubeforge_runtime::Quantity;
use serde_json::{Map, Value, json};

use crate::objects::catalog::{Catalog, ResourceDef};
use crate::objects::meta::now;
use crate::semantics::deletion::mark_as_deleting;

const DATA: &str = include_str!("../../data/builtin-strategies.txt");

/// What a kind's strategy does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Strategy {
    /// The parts whose change bumps `metadata.generation` (each a path of keys; `*` alone
    /// for everything but `metadata` and `status`); `None` when the kind has no generation.
    generation: Option<Vec<Vec<String>>>,
    /// Whether `*` counts the status too (a custom resource without the status
    /// subresource).
    status_in_generation: bool,
    /// Whether a create keeps the status it was given.
    status_kept: bool,
    /// The rules written in code that run on create.
    create: Vec<String>,
    /// The rules written in code that run on an update of the main resource.
    update: Vec<String>,
    /// Whether a delete is graceful (`CheckGracefulDelete`).
    graceful: bool,
}

impl Strategy {
    /// The strategy of `def`: its line in the data for a built-in kind (none: no generation,
    /// the status reset on create), a custom resource's (`customresource/strategy.go`)
    /// otherwise.
    pub(crate) fn of(def: &ResourceDef, builtin: bool) -> Strategy {
        if !builtin {
            return Strategy {
                generation: Some(vec![vec!["*".to_owned()]]),
                status_in_generation: !def.has_status(),
                ..Strategy::default()
            };
        }
        table()
            .get(&(group_key(&def.group).to_owned(), def.plural.clone()))
            .cloned()
            .unwrap_or_default()
    }

    /// The strategy of `def` in `catalog`: a built-in kind's when its schema is a built-in
    /// one (or, in a catalog without schemas, when its group is Kubernetes' own: the core
    /// group, a group without a dot, or one of `*.k8s.io`, which custom resources may not
    /// take without approval).
    pub(crate) fn in_catalog(catalog: &Catalog, def: &ResourceDef) -> Strategy {
        let builtin = match catalog.schemas.root_of(&def.group, &def.version, &def.kind) {
            Some(root) => root.builtin,
            None => !def.group.contains('.') || def.group.ends_with(".k8s.io"),
        };
        Strategy::of(def, builtin)
    }

    /// Whether the REST storage allocates on create (a Service's IPs and ports).
    pub(crate) fn allocates(&self) -> bool {
        self.create.iter().any(|r| r == "@service-allocation")
    }

    /// `PrepareForCreate`: the status reset (when the kind has the status subresource and
    /// keeps none), the generation set to 1, and the rules in code. `defaults` gives a reset
    /// status its zero value (the built-in defaulters, which write Go's zero structs).
    pub(crate) fn prepare_for_create(
        &self,
        def: &ResourceDef,
        object: &mut Value,
        defaults: impl FnOnce(&mut Value),
    ) {
        if def.has_status()
            && !self.status_kept
            && let Some(map) = object.as_object_mut()
        {
            map.remove("status");
            defaults(object);
        }
        for rule in &self.create {
            match rule.as_str() {
                "@pod-status" => pod_status(object),
                "@volume-pending" => volume_pending(object),
                "@template-generation" => template_generation(None, object),
                _ => {}
            }
        }
        if self.generation.is_some()
            && let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut)
        {
            meta.insert("generation".into(), Value::from(1));
        }
    }

    /// The object a delete that removed it answers: as it was, or, for a kind deleted
    /// gracefully (with grace period 0: no kubelet runs it), as `rest.BeforeDelete` left it
    /// (`deletionTimestamp` now, `deletionGracePeriodSeconds` 0, the generation bumped).
    pub(crate) fn deleted(&self, object: &Value) -> Value {
        let mut object = object.clone();
        if self.graceful
            && let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut)
            && !meta.contains_key("deletionTimestamp")
        {
            mark_as_deleting(meta);
        }
        object
    }

    /// `PrepareForUpdate`'s generation: the stored one, plus one when a part the strategy
    /// compares changed; `None` for a kind without a generation.
    /// `PrepareForUpdate`'s rules in code, on an update of the main resource (`new` is
    /// what will be stored, `old` the stored object).
    pub(crate) fn prepare_for_update(&self, old: &Value, new: &mut Value) {
        for rule in &self.update {
            if rule == "@template-generation" {
                template_generation(Some(old), new);
            }
        }
    }

    pub(crate) fn generation(&self, old: &Value, new: &Value) -> Option<i64> {
        let parts = self.generation.as_ref()?;
        let stored = old
            .pointer("/metadata/generation")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let changed = parts.iter().any(|part| match part.as_slice() {
            [all] if all == "*" => self.rest(old) != self.rest(new),
            path => at(old, path) != at(new, path),
        });
        Some(stored + i64::from(changed))
    }

    /// The object without `metadata` (and `status`, unless it counts).
    fn rest(&self, object: &Value) -> Value {
        let mut object = object.clone();
        if let Some(map) = object.as_object_mut() {
            map.remove("metadata");
            if !self.status_in_generation {
                map.remove("status");
            }
        }
        object
    }
}

fn at<'v>(value: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter().try_fold(value, |v, key| v.get(key))
}

fn group_key(group: &str) -> &str {
    if group.is_empty() { "core" } else { group }
}

/// `(group, resource)`, the group `core` for the core group.
type Kind = (String, String);

fn table() -> &'static HashMap<Kind, Strategy> {
    static TABLE: OnceLock<HashMap<Kind, Strategy>> = OnceLock::new();
    TABLE.get_or_init(|| parse(DATA).into_iter().filter_map(Result::ok).collect())
}

/// The data's lines: `(group, resource)` and the strategy, or what is wrong with a line.
fn parse(text: &str) -> Vec<Result<(Kind, Strategy), String>> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut words = line.split_whitespace();
            let kind = words.next().unwrap_or_default();
            let (group, resource) = kind
                .split_once('/')
                .ok_or_else(|| format!("{line}: not <group>/<resource>"))?;
            let mut strategy = Strategy::default();
            for rule in words {
                match rule.split_once('=') {
                    Some(("generation", parts)) => {
                        strategy.generation = Some(
                            parts
                                .split(',')
                                .map(|p| p.split('/').map(str::to_owned).collect())
                                .collect(),
                        );
                    }
                    Some(("status", "kept")) => strategy.status_kept = true,
                    Some(("delete", "graceful")) => strategy.graceful = true,
                    Some(("create", name)) if name.starts_with('@') => {
                        strategy.create.push(name.to_owned());
                    }
                    Some(("update", name)) if name.starts_with('@') => {
                        strategy.update.push(name.to_owned());
                    }
                    _ => return Err(format!("{line}: unknown rule {rule}")),
                }
            }
            Ok(((group.to_owned(), resource.to_owned()), strategy))
        })
        .collect()
}

/// The annotation apps/v1 carries a DaemonSet's internal `spec.templateGeneration` in
/// (`appsv1.DeprecatedTemplateGeneration`, written by the conversion to apps/v1).
const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";

/// A DaemonSet's template generation (`daemonset/strategy.go`): 1 on create; on update the
/// stored one, plus one when the template changed. A client cannot set it: the strategy
/// overwrites what the conversion read from the annotation.
fn template_generation(old: Option<&Value>, new: &mut Value) {
    let generation = match old {
        None => 1,
        Some(old) => {
            let stored = old
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(TEMPLATE_GENERATION))
                .and_then(Value::as_str)
                .and_then(|g| g.parse::<i64>().ok())
                .unwrap_or(0);
            let changed = old.pointer("/spec/template") != new.pointer("/spec/template");
            stored + i64::from(changed)
        }
    };
    let Some(meta) = new.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
    if let Some(map) = annotations.as_object_mut() {
        map.insert(
            TEMPLATE_GENERATION.into(),
            Value::from(generation.to_string()),
        );
    }
}

/// A created Pod's status (`pod/strategy.go` `PrepareForCreate`): `Pending`, and the QoS
/// class of its requests and limits.
fn pod_status(pod: &mut Value) {
    let qos = qos_class(pod.get("spec").unwrap_or(&Value::Null));
    if let Some(map) = pod.as_object_mut() {
        map.insert(
            "status".into(),
            json!({"phase": "Pending", "qosClass": qos}),
        );
    }
}

/// `qos.GetPodQOS` (pkg/apis/core/helper/qos/qos.go): `BestEffort` when no container (init
/// or not) requests or limits CPU or memory; `Guaranteed` when every container limits both
/// and the requests equal the limits (summed by resource); `Burstable` otherwise. With
/// pod-level resources (`spec.resources`), those alone decide.
pub(crate) fn qos_class(spec: &Value) -> &'static str {
    let pod_level = spec
        .get("resources")
        .filter(|r| r.get("requests").is_some() || r.get("limits").is_some());
    let containers: Vec<&Value> = match pod_level {
        Some(resources) => vec![resources],
        None => ["containers", "initContainers"]
            .iter()
            .filter_map(|key| spec.get(*key).and_then(Value::as_array))
            .flatten()
            .filter_map(|c| c.get("resources"))
            .collect(),
    };
    let mut requests: HashMap<&str, Quantity> = HashMap::new();
    let mut limits: HashMap<&str, Quantity> = HashMap::new();
    let mut guaranteed = true;
    for resources in &containers {
        sum_positive(resources.get("requests"), &mut requests);
        let found = sum_positive(resources.get("limits"), &mut limits);
        if !(found.contains(&"cpu") && found.contains(&"memory")) {
            guaranteed = false;
        }
    }
    if pod_level.is_none() && containers.len() < count_containers(spec) {
        // A container without resources limits nothing.
        guaranteed = false;
    }
    if requests.is_empty() && limits.is_empty() {
        return "BestEffort";
    }
    if guaranteed {
        guaranteed = requests.iter().all(|(name, request)| {
            limits.get(name).and_then(|limit| limit.cmp_value(request))
                == Some(std::cmp::Ordering::Equal)
        });
    }
    if guaranteed && requests.len() == limits.len() {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

fn count_containers(spec: &Value) -> usize {
    ["containers", "initContainers"]
        .iter()
        .filter_map(|key| spec.get(*key).and_then(Value::as_array))
        .map(Vec::len)
        .sum()
}

/// Adds each positive CPU or memory quantity of `list` into `sums`; gives the names found.
fn sum_positive(
    list: Option<&Value>,
    sums: &mut HashMap<&'static str, Quantity>,
) -> Vec<&'static str> {
    let mut found = Vec::new();
    for name in ["cpu", "memory"] {
        let Some(quantity) = list
            .and_then(|l| l.get(name))
            .and_then(|q| match q {
                Value::String(s) => Quantity::parse(s).ok(),
                Value::Number(n) => Quantity::parse(&n.to_string()).ok(),
                _ => None,
            })
            .filter(|q| q.signum() == Some(1))
        else {
            continue;
        };
        found.push(name);
        let sum = match sums.get(name) {
            Some(sum) => sum.checked_add(&quantity).unwrap_or(quantity),
            None => quantity,
        };
        sums.insert(name, sum);
    }
    found
}

/// A created PersistentVolume's status (`persistentvolume/strategy.go`): `Pending` since
/// now.
fn volume_pending(volume: &mut Value) {
    if let Some(map) = volume.as_object_mut() {
        let mut status = Map::new();
        status.insert("phase".into(), Value::from("Pending"));
        status.insert("lastPhaseTransitionTime".into(), Value::from(now()));
        map.insert("status".into(), Value::Object(status));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_parses() {
        for line in parse(DATA) {
            line.unwrap();
        }
        assert!(table().contains_key(&("core".to_owned(), "pods".to_owned())));
    }

    #[test]
    fn qos_classes_as_get_pod_qos_computes_them() {
        let spec =
            |resources: Value| json!({"containers": [{"name": "a", "resources": resources}]});
        assert_eq!(qos_class(&spec(json!({}))), "BestEffort");
        assert_eq!(
            qos_class(&spec(json!({"requests": {"cpu": "100m"}}))),
            "Burstable"
        );
        let both = json!({"cpu": "1", "memory": "1Gi"});
        assert_eq!(
            qos_class(&spec(json!({"requests": both, "limits": both}))),
            "Guaranteed"
        );
        assert_eq!(
            qos_class(&spec(
                json!({"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": both})
            )),
            "Burstable"
        );
        // `1000m` and `1` are the same quantity.
        assert_eq!(
            qos_class(&spec(json!({
                "requests": {"cpu": "1000m", "memory": "1Gi"},
                "limits": both
            }))),
            "Guaranteed"
        );
        // A second container without limits makes the Pod Burstable.
        let mut two = spec(json!({"requests": both, "limits": both}));
        two["containers"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "b"}));
        assert_eq!(qos_class(&two), "Burstable");
    }
}
