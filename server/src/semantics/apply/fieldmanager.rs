//! The API server's field manager around structured-merge-diff (apimachinery's
//! `managedfields/internal`, the chain `NewDefaultFieldManager` builds), for one write:
//!
//! - managers are named by `fieldManager` (or the User-Agent), operation, API version (for
//!   updates) and subresource; an update's fields join what the same manager owned before;
//! - `metadata` identity fields (`name`, `namespace`, `uid`, …), `apiVersion` and `kind` are
//!   nobody's;
//! - at most ten update managers are kept: the oldest are merged into `ancient-changes`;
//! - an object whose managed fields were cleared is not tracked by updates; its first apply
//!   gives what it has to `before-first-apply`;
//! - managed fields sent with a create or update are taken (the empty list or one empty
//!   entry clears them); the applier's `metadata.managedFields` must be absent;
//! - `kubectl` server-side apply takes over, without conflicts, the fields its client-side
//!   apply set (the `last-applied-configuration` annotation) and keeps that annotation up
//!   to date.

use serde_json::{Map, Value};

use super::managed::{self, Managed, Owned};
use super::path::Element;
use super::set::Set;
use super::typed;
use super::updater::{ApplyError, Conflicts, Managers, Scope};

/// The annotation client-side apply keeps.
pub(crate) const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

const MAX_UPDATE_MANAGERS: usize = 10;

/// One write: where it goes and when.
pub(crate) struct Write<'s> {
    pub(crate) scope: Scope<'s>,
    /// `""` for the main resource.
    pub(crate) subresource: &'s str,
    /// The empty object of the kind.
    pub(crate) empty: &'s Value,
    /// Now, as `meta/v1.Time` writes it.
    pub(crate) now: &'s str,
}

fn managed_fields(object: &Value) -> Option<&Value> {
    object.pointer("/metadata/managedFields")
}

/// `object` without `metadata.managedFields`.
pub(crate) fn without_managed_fields(object: &Value) -> Value {
    let mut object = object.clone();
    set_managed_fields(&mut object, &Managed::default());
    object
}

fn set_managed_fields(object: &mut Value, managed: &Managed) {
    let Some(map) = object.as_object_mut() else {
        return;
    };
    match managed.encode() {
        Some(entries) => {
            let meta = map
                .entry("metadata")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert("managedFields".into(), entries);
            }
        }
        None => {
            if let Some(meta) = map.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove("managedFields");
            }
        }
    }
}

/// The fields nobody owns (`stripMetaManager`).
fn strip_set() -> Set {
    let mut set = Set::new();
    let field = |name: &str| Element::Field(name.to_owned());
    for top in ["apiVersion", "kind", "metadata"] {
        set.insert(&[field(top)]);
    }
    for meta in [
        "name",
        "namespace",
        "creationTimestamp",
        "selfLink",
        "uid",
        "clusterName",
        "generation",
        "managedFields",
        "resourceVersion",
    ] {
        set.insert(&[field("metadata"), field(meta)]);
    }
    set
}

fn strip(managers: &mut Managers, manager: &str) {
    if let Some(owned) = managers.get_mut(manager) {
        owned.set = owned.set.difference(&strip_set());
        if owned.set.is_empty() {
            managers.remove(manager);
        }
    }
}

impl Write<'_> {
    fn update_id(&self, manager: &str) -> String {
        let manager = if manager.is_empty() {
            "unknown"
        } else {
            manager
        };
        managed::identifier(manager, "Update", self.scope.api_version, self.subresource)
    }

    /// `managedFieldsUpdater.Update` and what it wraps: `manager` wrote `new` over `live`.
    fn track_update(&self, live: &Value, new: &Value, managed: &mut Managed, manager: &str) {
        const CURRENT: &str = "current-operation";
        let id = self.update_id(manager);
        self.scope.updated(live, new, &mut managed.fields, CURRENT);
        strip(&mut managed.fields, CURRENT);
        if let Some(current) = managed.fields.remove(CURRENT) {
            let owned = match managed.fields.remove(&id) {
                Some(previous) => Owned {
                    set: current.set.union(&previous.set),
                    ..current
                },
                None => current,
            };
            managed.fields.insert(id.clone(), owned);
            managed.times.insert(id, Some(self.now.to_owned()));
        }
        self.cap(managed);
    }

    /// `capManagersManager`: at most ten update managers; the oldest are merged, by API
    /// version, into `ancient-changes`.
    fn cap(&self, managed: &mut Managed) {
        let mut updaters: Vec<String> = managed
            .fields
            .iter()
            .filter(|(_, owned)| !owned.applied)
            .map(|(id, _)| id.clone())
            .collect();
        if updaters.len() <= MAX_UPDATE_MANAGERS {
            return;
        }
        let time = |id: &String| managed::seconds(managed.times.get(id).and_then(Option::as_ref));
        updaters.sort_by(|a, b| time(a).cmp(&time(b)).then_with(|| a.cmp(b)));
        let mut first_of_version: std::collections::BTreeMap<String, String> =
            std::collections::BTreeMap::new();
        let mut length = updaters.len();
        for id in updaters {
            if length <= MAX_UPDATE_MANAGERS {
                break;
            }
            let Some(owned) = managed.fields.get(&id).cloned() else {
                continue;
            };
            let version = owned.api_version.clone();
            let bucket = managed::identifier("ancient-changes", "Update", &version, "");
            let Some(first) = first_of_version.get(&version).cloned() else {
                first_of_version.insert(version, id);
                continue;
            };
            if !managed.fields.contains_key(&bucket)
                && let Some(first_owned) = managed.fields.remove(&first)
            {
                managed.fields.insert(bucket.clone(), first_owned);
            }
            let merged = managed
                .fields
                .get(&bucket)
                .map(|b| b.set.union(&owned.set))
                .unwrap_or_else(|| owned.set.clone());
            managed.fields.insert(
                bucket.clone(),
                Owned {
                    set: merged,
                    api_version: owned.api_version.clone(),
                    applied: owned.applied,
                },
            );
            let when = managed.times.get(&id).cloned().flatten();
            managed.fields.remove(&id);
            length -= 1;
            managed.times.insert(bucket, when);
        }
    }

    /// A create, update or non-apply patch: records `manager` as the updater of what changed
    /// from `live` to `new` (`live` is the empty object for a create), in `new`'s
    /// `metadata.managedFields`.
    pub(crate) fn update(&self, live: &Value, new: &mut Value, manager: &str, creating: bool) {
        let live_managed = || Managed::decode(managed_fields(live)).unwrap_or_default();
        let mut managed = if !self.subresource.is_empty() {
            live_managed()
        } else if managed::is_reset(managed_fields(new)) {
            Managed::default()
        } else {
            match Managed::decode(managed_fields(new)) {
                Ok(managed) if !managed.fields.is_empty() => managed,
                _ => live_managed(),
            }
        };
        let plain = without_managed_fields(new);
        // An object whose managed fields were cleared is not tracked until it is applied.
        if !managed.fields.is_empty() || creating {
            self.track_update(&without_managed_fields(live), &plain, &mut managed, manager);
        }
        *new = plain;
        set_managed_fields(new, &managed);
    }

    /// An apply of `config` by `manager` to `live` (the empty object when it creates): the
    /// object it makes, with its managed fields.
    pub(crate) fn apply(
        &self,
        live: &Value,
        config: &Value,
        manager: &str,
        force: bool,
    ) -> Result<Value, Failed> {
        let managed = Managed::decode(managed_fields(live))
            .map_err(|e| Failed::Internal(format!("failed to decode managed fields: {e}")))?;
        if config.pointer("/metadata/managedFields").is_some() {
            return Err(Failed::BadRequest(
                "metadata.managedFields must be nil".to_owned(),
            ));
        }
        let problems = typed::validate(self.scope.schemas, config, self.scope.root, false);
        if !problems.is_empty() {
            return Err(Failed::Typed(typed::describe(&problems)));
        }
        let mut result = self.apply_upgrading(live, config, &managed, manager, force)?;
        // `lastAppliedUpdater`: kubectl's apply keeps client-side apply's annotation current.
        if manager == "kubectl" && last_applied(&result.0).is_some() {
            set_last_applied(&mut result.0, config);
        }
        let (mut object, managed) = result;
        set_managed_fields(&mut object, &managed);
        Ok(object)
    }

    /// `lastAppliedManager`: a `kubectl` apply that conflicts only on fields its client-side
    /// apply set (and that still have the values it set) is forced.
    fn apply_upgrading(
        &self,
        live: &Value,
        config: &Value,
        managed: &Managed,
        manager: &str,
        force: bool,
    ) -> Result<(Value, Managed), Failed> {
        match self.apply_tracked(live, config, managed.clone(), manager, force) {
            Err(Failed::Conflicts(conflicts)) if manager == "kubectl" => {
                let Some(allowed) = self.allowed_by_last_applied(live) else {
                    return Err(Failed::Conflicts(conflicts));
                };
                let rest: Conflicts = conflicts
                    .into_iter()
                    .filter_map(|(id, set)| {
                        let left = set.difference(&allowed);
                        (!left.is_empty()).then_some((id, left))
                    })
                    .collect();
                if rest.is_empty() {
                    self.apply_tracked(live, config, managed.clone(), manager, true)
                } else {
                    Err(Failed::Conflicts(rest))
                }
            }
            other => other,
        }
    }

    /// The fields of the client-side apply annotation whose values are still what it set.
    fn allowed_by_last_applied(&self, live: &Value) -> Option<Set> {
        let text = last_applied(live)?;
        let last: Value = serde_json::from_str(text).ok()?;
        if last.get("apiVersion").and_then(Value::as_str) != Some(self.scope.api_version) {
            return None;
        }
        let schemas = self.scope.schemas;
        let root = self.scope.root;
        if !typed::validate(schemas, &last, root, false).is_empty() {
            return None;
        }
        let set = typed::field_set(schemas, &last, root);
        let compare = typed::compare(schemas, &last, &without_managed_fields(live), root);
        Some(
            set.difference(&compare.modified)
                .difference(&compare.added)
                .difference(&compare.removed),
        )
    }

    /// `skipNonAppliedManager` and what it wraps: an object without managed fields first has
    /// what it holds recorded for `before-first-apply`.
    fn apply_tracked(
        &self,
        live: &Value,
        config: &Value,
        mut managed: Managed,
        manager: &str,
        force: bool,
    ) -> Result<(Value, Managed), Failed> {
        let plain_live = without_managed_fields(live);
        if managed.fields.is_empty() {
            self.track_update(self.empty, &plain_live, &mut managed, "before-first-apply");
        }
        let id = managed::identifier(manager, "Apply", "", self.subresource);
        let applied = self
            .scope
            .applied(&plain_live, config, &mut managed.fields, &id, force)
            .map_err(|error| match error {
                ApplyError::Conflicts(conflicts) => Failed::Conflicts(conflicts),
                ApplyError::Merge(problems) => Failed::Internal(format!(
                    "failed to merge config: {}",
                    typed::describe(&problems)
                )),
            })?;
        strip(&mut managed.fields, &id);
        let object = match applied {
            Some(object) => {
                managed.times.insert(id, Some(self.now.to_owned()));
                object
            }
            None => plain_live,
        };
        Ok((object, managed))
    }
}

/// Why an apply was refused.
#[derive(Debug)]
pub(crate) enum Failed {
    /// 409: fields other managers own.
    Conflicts(Conflicts),
    /// 400.
    BadRequest(String),
    /// The configuration does not fit the schema (a 500 on a real server).
    Typed(String),
    /// 500.
    Internal(String),
}

fn last_applied(object: &Value) -> Option<&str> {
    object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(LAST_APPLIED))
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
}

/// The limit of all annotations together (`ValidateAnnotationsSize`).
const ANNOTATIONS_LIMIT: usize = 256 * 1024;

/// Sets the client-side apply annotation to `config` (without that annotation), written as
/// Go writes an unstructured object: keys sorted, compact, a newline at the end.
fn set_last_applied(object: &mut Value, config: &Value) {
    let mut config = config.clone();
    if let Some(annotations) = config
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    {
        annotations.remove(LAST_APPLIED);
    }
    let text = format!("{}\n", sorted(&config));
    let Some(annotations) = object
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    annotations.insert(LAST_APPLIED.into(), Value::from(text));
    let size: usize = annotations
        .iter()
        .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
        .sum();
    if size > ANNOTATIONS_LIMIT {
        annotations.remove(LAST_APPLIED);
    }
}

/// `value` with every object's keys in sorted order.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}
