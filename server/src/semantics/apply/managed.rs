//! `metadata.managedFields` read and written as the API server does (apimachinery's
//! `managedfields/internal/managedfields.go`): each entry is one manager — identified by its
//! name, operation, subresource and, for updates, API version — with the time of its last
//! change and the `FieldsV1` set of fields it owns; entries are sorted by operation, time,
//! manager, API version and subresource.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::set::Set;

/// A manager's fields, at the API version they were written in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Owned {
    pub(crate) set: Set,
    pub(crate) api_version: String,
    /// Whether the manager applied (`Apply`) rather than updated (`Update`).
    pub(crate) applied: bool,
}

/// Every manager's fields and times, by manager identifier.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Managed {
    pub(crate) fields: BTreeMap<String, Owned>,
    /// The time of each manager's last change, as written (`None`: the entry has none).
    pub(crate) times: BTreeMap<String, Option<String>>,
}

/// A manager's identifier: the JSON of its entry without fields, time and (for appliers)
/// API version, as `BuildManagerIdentifier` writes it.
pub(crate) fn identifier(
    manager: &str,
    operation: &str,
    api_version: &str,
    subresource: &str,
) -> String {
    let mut entry = Map::new();
    if !manager.is_empty() {
        entry.insert("manager".into(), Value::from(manager));
    }
    if !operation.is_empty() {
        entry.insert("operation".into(), Value::from(operation));
    }
    if operation != "Apply" && !api_version.is_empty() {
        entry.insert("apiVersion".into(), Value::from(api_version));
    }
    if !subresource.is_empty() {
        entry.insert("subresource".into(), Value::from(subresource));
    }
    Value::Object(entry).to_string()
}

/// The parts of an identifier.
pub(crate) struct Identity {
    pub(crate) manager: String,
    pub(crate) operation: String,
    pub(crate) api_version: String,
    pub(crate) subresource: String,
}

pub(crate) fn parse_identifier(id: &str) -> Option<Identity> {
    let value: Value = serde_json::from_str(id).ok()?;
    let text = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    Some(Identity {
        manager: text("manager"),
        operation: text("operation"),
        api_version: text("apiVersion"),
        subresource: text("subresource"),
    })
}

impl Managed {
    /// Reads an object's `metadata.managedFields`; an error says which entry is wrong.
    pub(crate) fn decode(entries: Option<&Value>) -> Result<Managed, String> {
        let mut managed = Managed::default();
        let Some(entries) = entries.filter(|e| !e.is_null()) else {
            return Ok(managed);
        };
        let Value::Array(entries) = entries else {
            return Err("managedFields must be a list".to_owned());
        };
        for (i, entry) in entries.iter().enumerate() {
            let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or("");
            let operation = text("operation");
            if operation != "Apply" && operation != "Update" {
                return Err("operation must be `Apply` or `Update`".to_owned());
            }
            if text("apiVersion").is_empty() {
                return Err("apiVersion must not be empty".to_owned());
            }
            match text("fieldsType") {
                "FieldsV1" => {}
                "" => return Err(format!("missing fieldsType in managed fields entry {i}")),
                other => {
                    return Err(format!(
                        "invalid fieldsType {other:?} in managed fields entry {i}"
                    ));
                }
            }
            let id = identifier(
                text("manager"),
                operation,
                text("apiVersion"),
                text("subresource"),
            );
            let set = match entry.get("fieldsV1") {
                None | Some(Value::Null) => Set::new(),
                Some(fields) => Set::from_fields_v1(fields)
                    .map_err(|e| format!("error decoding versioned set from entry {i}: {e}"))?,
            };
            managed.fields.insert(
                id.clone(),
                Owned {
                    set,
                    api_version: text("apiVersion").to_owned(),
                    applied: operation == "Apply",
                },
            );
            managed.times.insert(
                id,
                entry.get("time").and_then(Value::as_str).map(str::to_owned),
            );
        }
        Ok(managed)
    }

    /// The `managedFields` entries, sorted as the API server sorts them; `None` when no
    /// manager is left (the field is then absent).
    pub(crate) fn encode(&self) -> Option<Value> {
        if self.fields.is_empty() {
            return None;
        }
        let mut entries: Vec<(Identity, Option<&String>, &Owned)> = self
            .fields
            .iter()
            .filter_map(|(id, owned)| {
                let identity = parse_identifier(id)?;
                Some((identity, self.times.get(id).and_then(Option::as_ref), owned))
            })
            .collect();
        entries.sort_by(|(a, at, ao), (b, bt, bo)| {
            let operation = |applied: bool| if applied { "Apply" } else { "Update" };
            operation(ao.applied)
                .cmp(operation(bo.applied))
                .then_with(|| seconds(*at).cmp(&seconds(*bt)))
                .then_with(|| a.manager.cmp(&b.manager))
                .then_with(|| ao.api_version.cmp(&bo.api_version))
                .then_with(|| a.subresource.cmp(&b.subresource))
        });
        let list = entries
            .into_iter()
            .map(|(identity, time, owned)| {
                let mut entry = Map::new();
                if !identity.manager.is_empty() {
                    entry.insert("manager".into(), Value::from(identity.manager));
                }
                entry.insert(
                    "operation".into(),
                    Value::from(if owned.applied { "Apply" } else { "Update" }),
                );
                entry.insert("apiVersion".into(), Value::from(owned.api_version.clone()));
                if let Some(time) = time {
                    entry.insert("time".into(), Value::from(time.clone()));
                }
                entry.insert("fieldsType".into(), json!("FieldsV1"));
                entry.insert("fieldsV1".into(), owned.set.to_fields_v1());
                if !identity.subresource.is_empty() {
                    entry.insert("subresource".into(), Value::from(identity.subresource));
                }
                Value::Object(entry)
            })
            .collect();
        Some(Value::Array(list))
    }
}

/// The seconds of a `meta/v1.Time` (0 when absent or unreadable), for sorting.
pub(crate) fn seconds(time: Option<&String>) -> i64 {
    time.and_then(|t| t.parse::<jiff::Timestamp>().ok())
        .map_or(0, jiff::Timestamp::as_second)
}

/// Whether a request's `managedFields` ask for a reset: an empty list, or one empty entry.
pub(crate) fn is_reset(entries: Option<&Value>) -> bool {
    match entries {
        Some(Value::Array(list)) => match list.as_slice() {
            [] => true,
            [only] => only.as_object().is_some_and(Map::is_empty),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_the_api_servers() {
        assert_eq!(
            identifier("kubectl", "Apply", "apps/v1", ""),
            r#"{"manager":"kubectl","operation":"Apply"}"#
        );
        assert_eq!(
            identifier("kubelet", "Update", "v1", "status"),
            r#"{"manager":"kubelet","operation":"Update","apiVersion":"v1","subresource":"status"}"#
        );
    }

    #[test]
    fn entries_round_trip_in_the_servers_order() {
        let entries = json!([
            {"manager": "b", "operation": "Update", "apiVersion": "v1", "time": "2024-01-01T00:00:02Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:b": {}}}},
            {"manager": "z", "operation": "Apply", "apiVersion": "v1", "time": "2024-01-01T00:00:09Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:z": {}}}},
            {"manager": "a", "operation": "Update", "apiVersion": "v1", "time": "2024-01-01T00:00:01Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}}, "subresource": "status"},
        ]);
        let managed = Managed::decode(Some(&entries)).unwrap();
        let encoded = managed.encode().unwrap();
        let managers: Vec<&str> = encoded
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["manager"].as_str().unwrap())
            .collect();
        assert_eq!(managers, ["z", "a", "b"]);
        assert_eq!(encoded[1], entries[2]);
        assert!(Managed::decode(Some(&json!([{"manager": "x", "operation": "Patch", "apiVersion": "v1", "fieldsType": "FieldsV1"}]))).is_err());
        assert!(is_reset(Some(&json!([{}]))));
        assert!(is_reset(Some(&json!([]))));
        assert!(!is_reset(None));
    }
}
