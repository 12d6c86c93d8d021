//! Which state a list reads ("Resource versions" in the API concepts): the newest, or the
//! one at an exact resource version (`resourceVersionMatch=Exact`, and every page after the
//! first, whose continue token carries the version of the first), made from the current
//! objects by undoing the newer events the history still holds; `NotOlderThan` a version
//! the server has reached. The API server's validation of the parameters comes first.

use kubeforge_runtime::schema::gofmt::quote;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::objects::store::{EventType, Key, State};
use crate::wire::query::Query;
use crate::wire::status::Failure;

/// The version a list must read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Read {
    /// The newest state.
    Latest,
    /// Exactly this version.
    Exact(u64),
}

/// Checks `resourceVersion`, `resourceVersionMatch` and `continue` as the API server's
/// `ValidateListOptions` does, and says what to read.
pub(crate) fn list_read(
    state: &State,
    query: &Query,
    continued: Option<u64>,
) -> Result<Read, Failure> {
    let version = query.get("resourceVersion").unwrap_or("");
    let matching = query.get("resourceVersionMatch").unwrap_or("");
    let forbidden = |why: &str| {
        Failure::invalid(
            "ListOptions.meta.k8s.io",
            "",
            format!("resourceVersionMatch: Forbidden: {why}"),
        )
    };
    if !matching.is_empty() {
        if !matches!(matching, "Exact" | "NotOlderThan") {
            return Err(Failure::invalid(
                "ListOptions.meta.k8s.io",
                "",
                format!(
                    "resourceVersionMatch: Unsupported value: \"{matching}\": supported values: \"Exact\", \"NotOlderThan\""
                ),
            ));
        }
        if version.is_empty() {
            return Err(forbidden(
                "resourceVersionMatch is forbidden unless resourceVersion is provided",
            ));
        }
        if continued.is_some() {
            return Err(forbidden(
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
        if matching == "Exact" && version == "0" {
            return Err(forbidden(
                "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
            ));
        }
    }
    if let Some(rv) = continued {
        return Ok(Read::Exact(rv));
    }
    if version.is_empty() || version == "0" {
        return Ok(Read::Latest);
    }
    let rv: u64 = version.parse().map_err(|_| {
        Failure::bad_request(format!(
            "invalid resourceVersion {}: this server's versions are integers",
            quote(version)
        ))
    })?;
    if rv > state.rv {
        return Err(Failure::timeout(format!(
            "Too large resource version: {rv}, current: {}",
            state.rv
        ))
        .with_cause("ResourceVersionTooLarge", "Too large resource version", ""));
    }
    Ok(if matching == "Exact" {
        Read::Exact(rv)
    } else {
        Read::Latest
    })
}

/// The objects of resource `index` as they were at version `rv`, or 410 Gone when the
/// history no longer holds what happened since.
pub(crate) fn objects_at(
    state: &State,
    index: usize,
    rv: u64,
) -> Result<BTreeMap<Key, Arc<Value>>, Failure> {
    let events = state.since(rv).ok_or_else(|| {
        Failure::gone(format!(
            "The resourceVersion for the provided list is too old. (requested {rv}, oldest kept {})",
            state.compacted + 1
        ))
    })?;
    let mut objects = state.objects[index].clone();
    let newer: Vec<_> = events.filter(|e| e.resource == index).collect();
    for event in newer.into_iter().rev() {
        let key = key_of(&event.object);
        match (event.kind, &event.old) {
            (EventType::Added, _) => {
                objects.remove(&key);
            }
            (EventType::Modified | EventType::Deleted, Some(old)) => {
                objects.insert(key, old.clone());
            }
            (_, None) => {}
        }
    }
    Ok(objects)
}

fn key_of(object: &Value) -> Key {
    let text = |pointer: &str| {
        object
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    (text("/metadata/namespace"), text("/metadata/name"))
}
