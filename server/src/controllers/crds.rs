//! The apiextensions-apiserver's CustomResourceDefinition controllers, as one: naming
//! (`status.acceptedNames` and `NamesAccepted`, refusing names another CRD of the group
//! holds: `pkg/controller/status/naming_controller.go`), establishing (`Established`:
//! `pkg/controller/establish`), serving (the CRD's part of the catalog, `objects::custom`:
//! what `pkg/apiserver/customresource_handler.go` serves once a CRD is established) and
//! finalizing (a deleted CRD's objects go, then its cleanup finalizer:
//! `pkg/controller/finalizer/crd_finalizer.go`).
//!
//! On a real server these run moments after the write; here they run before the answer,
//! so a CRD is served when its create returns (the status a client then reads has
//! `Established`).

use kubeforge_runtime::schema::gofmt::quote;
use std::collections::{BTreeSet, VecDeque};

use serde_json::{Value, json};

use crate::controllers::queue::{Work, delete, write};
use crate::objects::catalog::Catalog;
use crate::objects::meta::{metadata_mut, text};
use crate::objects::store::{Key, State};
use crate::semantics::crds::{CLEANUP, condition_true, is_crds, set_condition};
use crate::semantics::deletion::Policy;

/// A CRD was created or changed: name it, establish it and serve it; or, being deleted,
/// go on finalizing it.
pub(crate) fn written(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    key: &Key,
    queue: &mut VecDeque<Work>,
) {
    if is_crds(catalog, index) {
        reconcile(state, catalog, index, key, queue);
    }
}

/// An object was marked deleted: a CRD starts finalizing.
pub(crate) fn marked(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    key: &Key,
    queue: &mut VecDeque<Work>,
) {
    if is_crds(catalog, index) {
        finalize(state, catalog, index, key, queue);
    }
}

/// An object went: a CRD stops being served (and frees its names for the others of its
/// group); a custom resource's going may let its terminating CRD go.
pub(crate) fn removed(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    object: &Value,
    queue: &mut VecDeque<Work>,
) {
    if is_crds(catalog, index) {
        let name = text(object, "/metadata/name");
        if catalog.custom.contains_key(&name) {
            let next = catalog.without_custom(&name);
            state.replace_catalog(next);
        }
        let group = text(object, "/spec/group");
        for other in group_crds(state, index, &group) {
            queue.push_back(Work::Written(index, other));
        }
    } else if let Some((crd, _)) = catalog.custom_of(index) {
        let key = (String::new(), crd.to_owned());
        let Some(crds) = (0..catalog.resources.len()).find(|i| is_crds(catalog, *i)) else {
            return;
        };
        let terminating = state.objects[crds]
            .get(&key)
            .is_some_and(|crd| crd.pointer("/metadata/deletionTimestamp").is_some());
        if terminating {
            finalize(state, catalog, crds, &key, queue);
        }
    }
}

fn reconcile(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    key: &Key,
    queue: &mut VecDeque<Work>,
) {
    let Some(current) = state.objects[index].get(key).cloned() else {
        return;
    };
    if current.pointer("/metadata/deletionTimestamp").is_some() {
        return;
    }
    let mut crd = (*current).clone();
    if name(state, index, &mut crd) {
        let spec = crd.get("spec").cloned().unwrap_or(Value::Null);
        if state.catalog.serves_custom(&key.1, &spec) {
            establish(&mut crd);
        } else {
            if !condition_true(&crd, "Established") {
                set_condition(
                    &mut crd,
                    "Established",
                    "False",
                    "Installing",
                    "the initial names have been accepted",
                );
            }
            // Reading the schemas takes the generator's model: the caller does it after
            // the store's lock is released, then calls `install`.
            state.unserved.push(crd.clone());
        }
    }
    write(state, catalog, index, key, crd, queue);
}

/// Serves `crd` (as it was when `reconcile` left it for the caller) with `part`, read from
/// it outside the lock, unless it changed since (its own write queued that version), and
/// marks it `Established`; or says why its schemas cannot be served.
pub(crate) fn install(
    state: &mut State,
    crd: &Value,
    part: Result<Catalog, String>,
    queue: &mut VecDeque<Work>,
) {
    let catalog = state.catalog.clone();
    let Some(index) = (0..catalog.resources.len()).find(|i| is_crds(&catalog, *i)) else {
        return;
    };
    let key = (String::new(), text(crd, "/metadata/name"));
    let Some(current) = state.objects[index].get(&key).cloned() else {
        return;
    };
    if current.get("spec") != crd.get("spec")
        || current.pointer("/metadata/deletionTimestamp").is_some()
    {
        return;
    }
    let spec = crd.get("spec").cloned().unwrap_or(Value::Null);
    let mut crd = (*current).clone();
    match part {
        Ok(part) => {
            let next = catalog.with_custom(&key.1, &spec, part);
            state.replace_catalog(next);
            let served = state.catalog.custom_resources(&key.1);
            state.share_versions(&served);
            establish(&mut crd);
        }
        Err(error) => {
            set_condition(&mut crd, "Established", "False", "Installing", &error);
        }
    }
    write(state, &catalog, index, &key, crd, queue);
}

/// The establishing controller: a served CRD is `Established`.
fn establish(crd: &mut Value) {
    if !condition_true(crd, "Established") {
        set_condition(
            crd,
            "Established",
            "True",
            "InitialNamesAccepted",
            "the initial names have been accepted",
        );
    }
}

/// The naming controller's `calculateNamesAndConditions`: each requested name is accepted
/// when it is the one already accepted or no CRD of the group holds it. Sets
/// `status.acceptedNames` and `NamesAccepted`, and `Established` to `False` while names
/// are refused; whether every name was accepted.
fn name(state: &State, index: usize, crd: &mut Value) -> bool {
    let group = text(crd, "/spec/group");
    let mut resources = BTreeSet::new();
    let mut kinds = BTreeSet::new();
    for key in group_crds(state, index, &group) {
        let Some(other) = state.objects[index].get(&key) else {
            continue;
        };
        let accepted = other.pointer("/status/acceptedNames");
        let get = |field: &str| {
            accepted
                .and_then(|a| a.get(field))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        resources.insert(get("plural"));
        resources.insert(get("singular"));
        for short in strings(accepted, "shortNames") {
            resources.insert(short);
        }
        kinds.insert(get("kind"));
        kinds.insert(get("listKind"));
    }
    let requested = crd.pointer("/spec/names").cloned().unwrap_or(json!({}));
    let accepted = crd
        .pointer("/status/acceptedNames")
        .cloned()
        .unwrap_or(json!({}));
    let field = |names: &Value, key: &str| {
        names
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let mut names = accepted.clone();
    if !names.is_object() {
        names = json!({});
    }
    let mut refused: Option<(&str, String)> = None;
    for (key, used, reason) in [
        ("plural", &resources, "PluralConflict"),
        ("singular", &resources, "SingularConflict"),
    ] {
        let want = field(&requested, key);
        match fresh(&want, &field(&accepted, key), used) {
            Ok(()) => names[key] = Value::from(want),
            Err(message) => refused = Some((reason, message)),
        }
    }
    let want_short = strings(Some(&requested), "shortNames");
    let had_short = strings(Some(&accepted), "shortNames");
    if want_short != had_short {
        let (plural, singular) = (field(&accepted, "plural"), field(&accepted, "singular"));
        let errors: Vec<String> = want_short
            .iter()
            .filter(|s| !had_short.contains(s) && **s != plural && **s != singular)
            .filter_map(|s| fresh(s, "", &resources).err())
            .collect();
        if errors.is_empty() {
            names["shortNames"] = json!(want_short);
        } else {
            refused = Some(("ShortNamesConflict", aggregate(&errors)));
        }
    }
    for (key, reason) in [("kind", "KindConflict"), ("listKind", "ListKindConflict")] {
        let want = field(&requested, key);
        match fresh(&want, &field(&accepted, key), &kinds) {
            Ok(()) => names[key] = Value::from(want),
            Err(message) => refused = Some((reason, message)),
        }
    }
    match requested.get("categories") {
        Some(categories) => names["categories"] = categories.clone(),
        None => {
            if let Some(map) = names.as_object_mut() {
                map.remove("categories");
            }
        }
    }
    if let Some(status) = crd
        .as_object_mut()
        .map(|m| m.entry("status").or_insert_with(|| json!({})))
        .and_then(Value::as_object_mut)
    {
        status.insert("acceptedNames".into(), names);
    }
    match refused {
        None => {
            set_condition(
                crd,
                "NamesAccepted",
                "True",
                "NoConflicts",
                "no conflicts found",
            );
            true
        }
        Some((reason, message)) => {
            set_condition(crd, "NamesAccepted", "False", reason, &message);
            if !condition_true(crd, "Established") {
                set_condition(
                    crd,
                    "Established",
                    "False",
                    "NotAccepted",
                    "not all names are accepted",
                );
            }
            false
        }
    }
}

/// `equalToAcceptedOrFresh`.
fn fresh(requested: &str, accepted: &str, used: &BTreeSet<String>) -> Result<(), String> {
    if requested == accepted || !used.contains(requested) {
        Ok(())
    } else {
        Err(format!("{} is already in use", quote(requested)))
    }
}

/// `utilerrors.NewAggregate(errs).Error()`.
fn aggregate(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// The finalizer controller: marks the CRD `InstanceDeletionInProgress`, deletes its
/// objects, and when none is left removes the cleanup finalizer (which lets it go).
fn finalize(
    state: &mut State,
    catalog: &Catalog,
    index: usize,
    key: &Key,
    queue: &mut VecDeque<Work>,
) {
    let Some(current) = state.objects[index].get(key).cloned() else {
        return;
    };
    let holds = current
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|f| f.iter().any(|f| f.as_str() == Some(CLEANUP)));
    if !holds {
        return;
    }
    let resources = state.catalog.custom_resources(&key.1);
    for resource in &resources {
        let keys: Vec<Key> = state.objects[*resource].keys().cloned().collect();
        for object in keys {
            delete(
                state,
                catalog,
                *resource,
                &object,
                Policy::Background,
                queue,
            );
        }
    }
    let remaining = resources
        .iter()
        .any(|resource| !state.objects[*resource].is_empty());
    let mut crd = (*current).clone();
    if remaining {
        set_condition(
            &mut crd,
            "Terminating",
            "True",
            "InstanceDeletionInProgress",
            "CustomResource deletion is in progress",
        );
    } else {
        set_condition(
            &mut crd,
            "Terminating",
            "False",
            "InstanceDeletionCompleted",
            "removed all instances",
        );
        if let Some(Value::Array(list)) = metadata_mut(&mut crd).get_mut("finalizers") {
            list.retain(|f| f.as_str() != Some(CLEANUP));
        }
    }
    write(state, catalog, index, key, crd, queue);
}

/// The CRDs of `group`, by key.
fn group_crds(state: &State, index: usize, group: &str) -> Vec<Key> {
    state.objects[index]
        .iter()
        .filter(|(_, crd)| crd.pointer("/spec/group").and_then(Value::as_str) == Some(group))
        .map(|(key, _)| key.clone())
        .collect()
}

fn strings(names: Option<&Value>, key: &str) -> Vec<String> {
    kubeforge_runtime::json::strings(names.and_then(|n| n.get(key)))
}
