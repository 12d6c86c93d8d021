//! structured-merge-diff's `merge.Updater`: how each write changes who owns which fields.
//!
//! - An update (create, `PUT`, a non-apply patch) takes every field it added or changed
//!   from the other managers and gives it to the updater; removed fields leave every manager.
//! - An apply merges the configuration into the live object, makes the applier own exactly
//!   the fields of its configuration, removes the fields it applied last time and no longer
//!   applies when no one else owns them, and fails with the conflicts when it changes a field
//!   another manager owns (unless forced, which takes the fields from them).

use std::collections::BTreeMap;

use serde_json::Value;

use super::managed::Owned;
use super::set::Set;
use super::typed::{self, Comparison, Problem};
use super::value;
use crate::objects::schema::{Schemas, Ty};

/// What the write is about: the type, its API version, and the fields the endpoint resets
/// (and so are nobody's to own through it).
pub(crate) struct Scope<'s> {
    pub(crate) schemas: &'s Schemas,
    pub(crate) root: Ty<'s>,
    pub(crate) api_version: &'s str,
    pub(crate) reset: Reset,
}

/// The fields an endpoint resets, as the API server's strategies declare them
/// (`GetResetFields`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reset {
    /// Nothing.
    Nothing,
    /// `status` (the main resource of a kind with a `status` subresource).
    Status,
    /// Everything but `status` (the `status` subresource).
    AllButStatus,
    /// Everything but `spec.replicas` (the `scale` subresource).
    AllButReplicas,
}

impl Reset {
    pub(crate) fn filter(self, set: &Set) -> Set {
        let field = |name: &str| super::path::Element::Field(name.to_owned());
        match self {
            Reset::Nothing => set.clone(),
            Reset::Status => set.recursive_difference(&Set::of(&[field("status")])),
            Reset::AllButStatus => only(set, &[field("status")]),
            Reset::AllButReplicas => only(set, &[field("spec"), field("replicas")]),
        }
    }
}

/// The part of `set` at and below `path`.
fn only(set: &Set, path: &[super::path::Element]) -> Set {
    let mut out = Set::new();
    match path {
        [] => {}
        [last] => {
            if set.members.contains(last) {
                out.members.insert(last.clone());
            }
            if let Some(child) = set.children.get(last) {
                out.children.insert(last.clone(), child.clone());
            }
        }
        [first, rest @ ..] => {
            if let Some(child) = set.children.get(first) {
                let inner = only(child, rest);
                if !inner.is_empty() {
                    out.children.insert(first.clone(), inner);
                }
            }
        }
    }
    out
}

/// The managers' sets by identifier.
pub(crate) type Managers = BTreeMap<String, Owned>;

/// The fields an apply would take from each other manager.
pub(crate) type Conflicts = BTreeMap<String, Set>;

/// Why an apply failed.
#[derive(Debug)]
pub(crate) enum ApplyError {
    Conflicts(Conflicts),
    /// The configuration could not be merged (an internal error on a real server).
    Merge(Vec<Problem>),
}

impl Scope<'_> {
    fn compare(&self, old: &Value, new: &Value) -> Comparison {
        typed::compare(self.schemas, old, new, self.root).filtered(&|s| self.reset.filter(s))
    }

    /// SMD's `update`: what the change from `old` to `new` takes from every manager but
    /// `workflow`; the conflicts unless `force`.
    fn update(
        &self,
        old: &Value,
        new: &Value,
        managers: &mut Managers,
        workflow: &str,
        force: bool,
    ) -> Result<Comparison, Conflicts> {
        let compare = self.compare(old, new);
        let changed = compare.modified.union(&compare.added);
        let mut conflicts = Conflicts::new();
        for (manager, owned) in managers.iter() {
            if manager == workflow {
                continue;
            }
            let conflict = owned.set.intersection(&changed);
            if !conflict.is_empty() {
                conflicts.insert(manager.clone(), conflict);
            }
        }
        if !force && !conflicts.is_empty() {
            return Err(conflicts);
        }
        for (manager, owned) in managers.iter_mut() {
            if manager == workflow {
                continue;
            }
            if let Some(conflict) = conflicts.get(manager) {
                owned.set = owned.set.difference(conflict);
            }
            if !compare.removed.is_empty() {
                owned.set = owned.set.difference(&compare.removed);
            }
        }
        managers.retain(|_, owned| !owned.set.is_empty());
        Ok(compare)
    }

    /// SMD's `Updater.Update`: `manager` wrote `new` over `old`.
    pub(crate) fn updated(&self, old: &Value, new: &Value, managers: &mut Managers, manager: &str) {
        let Ok(compare) = self.update(old, new, managers, manager, true) else {
            return;
        };
        let previous = managers.remove(manager).map(|o| o.set).unwrap_or_default();
        let set = previous
            .difference(&compare.removed)
            .union(&compare.modified)
            .union(&compare.added);
        let set = self.reset.filter(&set);
        if !set.is_empty() {
            managers.insert(
                manager.to_owned(),
                Owned {
                    set,
                    api_version: self.api_version.to_owned(),
                    applied: false,
                },
            );
        }
    }

    /// SMD's `Updater.Apply`: `manager` applied `config` to `live`. The object that results,
    /// or `None` when it is the live object unchanged.
    pub(crate) fn applied(
        &self,
        live: &Value,
        config: &Value,
        managers: &mut Managers,
        manager: &str,
        force: bool,
    ) -> Result<Option<Value>, ApplyError> {
        let merged =
            typed::merge(self.schemas, live, config, self.root).map_err(ApplyError::Merge)?;
        let last = managers.get(manager).map(|o| o.set.clone());
        let set = self
            .reset
            .filter(&typed::field_set(self.schemas, config, self.root));
        managers.insert(
            manager.to_owned(),
            Owned {
                set,
                api_version: self.api_version.to_owned(),
                applied: true,
            },
        );
        let new = match last {
            Some(last) if !last.is_empty() => self.prune(&merged, managers, &last),
            _ => merged,
        };
        self.update(live, &new, managers, manager, force)
            .map_err(ApplyError::Conflicts)?;
        Ok((!value::equals(live, &new)).then_some(new))
    }

    fn ensure(&self, set: &Set) -> Set {
        typed::ensure_named_fields_are_members(self.schemas, set, Some(self.root))
    }

    fn fields(&self, value: &Value) -> Set {
        typed::field_set(self.schemas, value, self.root)
    }

    fn remove(&self, value: &Value, set: &Set) -> Value {
        typed::remove(self.schemas, value, set, self.root)
    }

    /// SMD's `prune`: removes what the applier applied last time and no longer applies,
    /// unless another manager (or the new configuration) owns it.
    fn prune(&self, merged: &Value, managers: &Managers, last: &Set) -> Value {
        let last = self.ensure(last);
        let pruned = self.remove(merged, &last);
        // Add back what any manager owns.
        let owned = managers
            .values()
            .fold(Set::new(), |all, owned| all.union(&owned.set));
        let merged_set = self.ensure(&self.fields(merged));
        let pruned_set = self.ensure(&self.fields(&pruned));
        let pruned = self.remove(
            merged,
            &merged_set.difference(&pruned_set.union(&self.ensure(&owned))),
        );
        // Remove only what the applier owned last time (not what nobody owned).
        let pruned_set = self.ensure(&self.fields(&pruned));
        self.remove(
            merged,
            &merged_set.difference(&pruned_set).intersection(&last),
        )
    }
}
