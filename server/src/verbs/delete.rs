//! The deleting verbs: delete (with preconditions, a propagation policy and finalizers)
//! and deletecollection.

use http::StatusCode;
use serde_json::{Value, json};

use crate::controllers::queue::{self, Outcome};
use crate::objects::catalog::Catalog;
use crate::objects::meta::finalizers;
use crate::objects::select::Filter;
use crate::objects::store::Key;
use crate::semantics::deletion::Policy;
use crate::semantics::namespaces;
use crate::semantics::strategy::Strategy;
use crate::verbs::Shared;
use crate::wire::query::Query;
use crate::wire::status::{self, Failure};

impl Shared {
    pub(crate) fn delete(
        &self,
        catalog: &Catalog,
        index: usize,
        namespace: &str,
        name: &str,
        body: &[u8],
        query: &Query,
    ) -> Result<(StatusCode, Value), Failure> {
        let options = if body.iter().all(u8::is_ascii_whitespace) {
            Value::Null
        } else {
            parse_body(body)?
        };
        self.delete_one(catalog, index, namespace, name, &options, query)
    }

    /// Deletes one object: with finalizers it only gets its `deletionTimestamp` (and the
    /// answer is the object); without, it is removed, and the answer is what the delete
    /// operation declares: the object for the kinds whose storage returns it (Pods,
    /// Services, …), a `Status` of success for the others. The answer is `202 Accepted` when
    /// the object stays and the deprecated `orphanDependents: false` was asked for, as
    /// Go's handler decides (`DeleteResource`); `200` otherwise.
    pub(super) fn delete_one(
        &self,
        catalog: &Catalog,
        index: usize,
        namespace: &str,
        name: &str,
        options: &Value,
        query: &Query,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = &catalog.resources[index];
        let key = (namespace.to_owned(), name.to_owned());
        let mut state = self.lock();
        let old = state.objects[index]
            .get(&key)
            .cloned()
            .ok_or_else(|| Failure::not_found(&def.group, &def.plural, name))?;
        for (field, what) in [("uid", "UID"), ("resourceVersion", "ResourceVersion")] {
            if let Some(expected) = options
                .pointer(&format!("/preconditions/{field}"))
                .and_then(Value::as_str)
            {
                let actual = old
                    .pointer(&format!("/metadata/{field}"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if expected != actual {
                    return Err(Failure::conflict(
                        &def.group,
                        &def.plural,
                        name,
                        &format!(
                            "Precondition failed: {what} in precondition: {expected}, {what} in object meta: {actual}"
                        ),
                    ));
                }
            }
        }
        let dry_run = query.dry_run()
            || options
                .get("dryRun")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty());
        namespaces::admit_delete(catalog, index, name)?;
        let policy = Policy::of(options, query, def)?;
        let uid = old
            .pointer("/metadata/uid")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let strategy = Strategy::in_catalog(catalog, def);
        let gone = |object: &Value| {
            if catalog.answers_deleted_object(def) {
                strategy.deleted(object)
            } else {
                status::success(&def.group, &def.plural, name, uid.as_deref())
            }
        };
        let accepted = if orphan_dependents(options, query) == Some(false) {
            StatusCode::ACCEPTED
        } else {
            StatusCode::OK
        };
        if dry_run {
            let held = !finalizers(&old).is_empty()
                || policy != Policy::Background
                || (namespaces::is_namespaces(catalog, index)
                    && !namespaces::spec_finalizers(&old).is_empty());
            return Ok(if held {
                (accepted, (*old).clone())
            } else {
                (StatusCode::OK, gone(&old))
            });
        }
        let mut queue = std::collections::VecDeque::new();
        // A Pod a simulated kubelet runs stays until the kubelet has stopped it.
        let grace = options
            .get("gracePeriodSeconds")
            .and_then(Value::as_i64)
            .or_else(|| query.get("gracePeriodSeconds").and_then(|g| g.parse().ok()));
        let outcome = match self.terminate(&mut state, index, &key, grace, &mut queue) {
            Some(marked) => Some(Outcome::Marked(marked)),
            None => queue::delete(&mut state, catalog, index, &key, policy, &mut queue),
        };
        self.settle(&mut state, queue.into());
        self.notify(state);
        match outcome {
            Some(Outcome::Marked(object)) => Ok((accepted, (*object).clone())),
            Some(Outcome::Removed(object)) => Ok((StatusCode::OK, gone(&object))),
            None => Ok((StatusCode::OK, gone(&old))),
        }
    }

    pub(crate) fn delete_collection(
        &self,
        catalog: &Catalog,
        index: usize,
        namespace: Option<&str>,
        body: &[u8],
        query: &Query,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = &catalog.resources[index];
        let options = if body.iter().all(u8::is_ascii_whitespace) {
            Value::Null
        } else {
            parse_body(body)?
        };
        let filter = Filter::new(catalog, index, namespace, query)?;
        // The answer is the list of what was listed for deletion, as `Store.DeleteCollection`
        // returns it.
        let listed: Vec<(Key, Value)> = self.lock().objects[index]
            .iter()
            .filter(|(_, object)| filter.matches(object))
            .map(|(key, object)| (key.clone(), (**object).clone()))
            .collect();
        let mut items = Vec::new();
        for ((namespace, name), object) in listed {
            match self.delete_one(catalog, index, &namespace, &name, &options, query) {
                Ok(_) => items.push(object),
                Err(failure) if failure.code == 404 => items.push(object),
                Err(failure) => return Err(failure),
            }
        }
        let rv = self.lock().rv;
        let list = json!({
            "kind": def.list_kind(),
            "apiVersion": def.api_version(),
            "metadata": {"resourceVersion": rv.to_string()},
            "items": items,
        });
        Ok((StatusCode::OK, list))
    }
}

/// The deprecated `orphanDependents` of a delete (body, then query).
fn orphan_dependents(options: &Value, query: &Query) -> Option<bool> {
    options
        .get("orphanDependents")
        .and_then(Value::as_bool)
        .or_else(|| query.get("orphanDependents").map(|v| v == "true"))
}

fn parse_body(body: &[u8]) -> Result<Value, Failure> {
    serde_json::from_slice(body).map_err(|e| {
        Failure::bad_request(format!("the body of the request is not valid JSON: {e}"))
    })
}
