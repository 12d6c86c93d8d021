//! The three patch types a Kubernetes server takes: JSON Patch (RFC 6902) and JSON merge
//! patch (RFC 7386), both through the `json-patch` crate, and strategic merge patch, written
//! here from the `x-kubernetes-patch-strategy`/`x-kubernetes-patch-merge-key` metadata
//! ([`PatchSchema`]): lists whose strategy is `merge` merge by their merge key (or as sets of
//! primitives), every other list is replaced, maps merge recursively, `null` deletes, and
//! the directives `$patch` (`replace`, `delete`, `merge`), `$retainKeys`,
//! `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` are honoured.

use serde_json::{Map, Value};

use crate::objects::catalog::{PatchField, PatchSchema};

/// A patch's content type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchKind {
    /// `application/json-patch+json`.
    Json,
    /// `application/merge-patch+json`.
    Merge,
    /// `application/strategic-merge-patch+json`.
    Strategic,
    /// `application/apply-patch+yaml` (server-side apply, which the server runs through its
    /// field management rather than `patch::apply`).
    Apply,
}

impl PatchKind {
    /// The patch type of a `Content-Type` header value.
    pub fn from_content_type(content_type: &str) -> Option<PatchKind> {
        let essence = content_type.split(';').next().unwrap_or("").trim();
        Some(match essence {
            "application/json-patch+json" => PatchKind::Json,
            "application/merge-patch+json" => PatchKind::Merge,
            "application/strategic-merge-patch+json" => PatchKind::Strategic,
            // CBOR applies are behind a feature gate a real server has off by default.
            "application/apply-patch+yaml" => PatchKind::Apply,
            _ => return None,
        })
    }
}

/// Applies a patch to `target`. `ty` names `target`'s type in `schema` (strategic only).
pub fn apply(
    kind: PatchKind,
    target: &mut Value,
    patch: &[u8],
    schema: &PatchSchema,
    ty: Option<&str>,
) -> Result<(), String> {
    match kind {
        PatchKind::Json => {
            let patch: json_patch::Patch =
                serde_json::from_slice(patch).map_err(|e| format!("invalid JSON patch: {e}"))?;
            json_patch::patch(target, &patch).map_err(|e| e.to_string())
        }
        PatchKind::Merge => {
            let patch: Value =
                serde_json::from_slice(patch).map_err(|e| format!("invalid merge patch: {e}"))?;
            json_patch::merge(target, &patch);
            Ok(())
        }
        PatchKind::Strategic => {
            let patch: Value = serde_json::from_slice(patch)
                .map_err(|e| format!("invalid strategic merge patch: {e}"))?;
            if !patch.is_object() {
                return Err("a strategic merge patch must be a JSON object".to_owned());
            }
            strategic(target, &patch, schema, ty);
            Ok(())
        }
        PatchKind::Apply => {
            Err("a server-side apply is merged by field management, not as a patch".to_owned())
        }
    }
}

/// Strategic merge of `patch` into `target`.
pub fn strategic(target: &mut Value, patch: &Value, schema: &PatchSchema, ty: Option<&str>) {
    let Some(patch_map) = patch.as_object() else {
        *target = patch.clone();
        return;
    };
    if patch_map.get("$patch").and_then(Value::as_str) == Some("replace") {
        let mut replaced = Value::Object(Map::new());
        let mut rest = patch_map.clone();
        rest.remove("$patch");
        strategic(&mut replaced, &Value::Object(rest), schema, ty);
        *target = replaced;
        return;
    }
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let fields = ty.and_then(|ty| schema.types.get(ty));
    let Some(target_map) = target.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(retain)) = patch_map.get("$retainKeys") {
        let keep: Vec<&str> = retain.iter().filter_map(Value::as_str).collect();
        target_map.retain(|key, _| keep.contains(&key.as_str()));
    }
    // The lists a `$setElementOrder` ordered, merged already.
    let mut ordered: Vec<&str> = Vec::new();
    for (key, order) in patch_map {
        let (Some(field), Value::Array(order)) = (key.strip_prefix("$setElementOrder/"), order)
        else {
            continue;
        };
        let meta = fields
            .and_then(|f| f.get(field))
            .cloned()
            .unwrap_or_default();
        let merged = match (target_map.get(field), patch_map.get(field)) {
            (current, Some(Value::Array(items))) => {
                merged_list(current.cloned(), items, &meta, schema)
            }
            (Some(Value::Array(current)), None) => current.clone(),
            _ => continue,
        };
        let live = match target_map.get(field) {
            Some(Value::Array(live)) => live.as_slice(),
            _ => &[],
        };
        let list = in_order(merged, order, live, meta.merge_key.as_deref());
        target_map.insert(field.to_owned(), Value::Array(list));
        ordered.push(field);
    }
    for (key, value) in patch_map {
        if key == "$patch"
            || key == "$retainKeys"
            || key.starts_with("$setElementOrder/")
            || ordered.contains(&key.as_str())
        {
            continue;
        }
        if let Some(field) = key.strip_prefix("$deleteFromPrimitiveList/") {
            if let (Some(Value::Array(list)), Value::Array(remove)) =
                (target_map.get_mut(field), value)
            {
                list.retain(|item| !remove.contains(item));
            }
            continue;
        }
        let meta = fields.and_then(|f| f.get(key)).cloned().unwrap_or_default();
        match value {
            Value::Null => {
                target_map.remove(key);
            }
            Value::Object(inner)
                if inner.get("$patch").and_then(Value::as_str) == Some("delete") =>
            {
                target_map.remove(key);
            }
            Value::Object(_) => {
                let slot = target_map.entry(key.clone()).or_insert(Value::Null);
                strategic(slot, value, schema, meta.ty.as_deref());
            }
            Value::Array(items) => {
                let merged = merged_list(target_map.remove(key), items, &meta, schema);
                target_map.insert(key.clone(), Value::Array(merged));
            }
            _ => {
                target_map.insert(key.clone(), value.clone());
            }
        }
    }
}

/// A list of the patch merged into the target's (`current`): by the merge key (or as a set
/// of primitives) where the field's strategy is `merge`, replaced otherwise.
fn merged_list(
    current: Option<Value>,
    items: &[Value],
    meta: &PatchField,
    schema: &PatchSchema,
) -> Vec<Value> {
    match current {
        Some(Value::Array(current)) if meta.strategy.iter().any(|s| s == "merge") => {
            merge_lists(current, items, meta, schema)
        }
        _ => items
            .iter()
            .filter(|item| !is_delete_directive(item))
            .map(|item| cleaned(item, schema, meta.ty.as_deref()))
            .collect(),
    }
}

/// A merged list in the order `$setElementOrder` gives, as apimachinery's
/// `normalizeElementOrder` puts it: the items the order names (by merge key, or by value in
/// a list of primitives) in that order, and the items only the live list (`live`) has
/// placed among them by their order there, each before the first item named in the order
/// that follows it in `live`.
fn in_order(merged: Vec<Value>, order: &[Value], live: &[Value], key: Option<&str>) -> Vec<Value> {
    let id = |item: &Value| -> Option<Value> {
        match key {
            Some(key) => item.get(key).cloned(),
            None => Some(item.clone()),
        }
    };
    let index = |list: &[Value], item: &Value| {
        let wanted = id(item);
        list.iter().position(|other| id(other) == wanted)
    };
    let (mut named, mut server_only): (Vec<Value>, Vec<Value>) = merged
        .into_iter()
        .partition(|item| index(order, item).is_some());
    named.sort_by_key(|item| index(order, item));
    server_only.sort_by_key(|item| index(live, item));
    // `mergeSortedSlice`: a server-only item goes first when both are in the live list and
    // it comes first there; otherwise the named item does.
    let mut out = Vec::with_capacity(named.len() + server_only.len());
    let (mut left, mut right) = (
        server_only.into_iter().peekable(),
        named.into_iter().peekable(),
    );
    loop {
        let take_left = match (left.peek(), right.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(l), Some(r)) => matches!(
                (index(live, l), index(live, r)),
                (Some(li), Some(ri)) if li < ri
            ),
        };
        let next = if take_left { left.next() } else { right.next() };
        out.extend(next);
    }
    out
}

fn is_delete_directive(item: &Value) -> bool {
    item.get("$patch").and_then(Value::as_str) == Some("delete")
}

/// A patch value with its directives applied to nothing: what is inserted when the target
/// has no such value.
fn cleaned(value: &Value, schema: &PatchSchema, ty: Option<&str>) -> Value {
    if value.is_object() {
        let mut out = Value::Object(Map::new());
        strategic(&mut out, value, schema, ty);
        out
    } else {
        value.clone()
    }
}

fn merge_lists(
    mut current: Vec<Value>,
    patch: &[Value],
    meta: &PatchField,
    schema: &PatchSchema,
) -> Vec<Value> {
    let key = meta.merge_key.as_deref();
    for item in patch {
        match (key, item) {
            (Some(key), Value::Object(fields)) => {
                let id = fields.get(key);
                let position =
                    id.and_then(|id| current.iter().position(|c| c.get(key) == Some(id)));
                if is_delete_directive(item) {
                    if let Some(i) = position {
                        current.remove(i);
                    }
                    continue;
                }
                match position {
                    Some(i) => strategic(&mut current[i], item, schema, meta.ty.as_deref()),
                    None => current.push(cleaned(item, schema, meta.ty.as_deref())),
                }
            }
            _ => {
                if !current.contains(item) {
                    current.push(item.clone());
                }
            }
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::{PatchKind, apply};
    use crate::objects::catalog::{PatchField, PatchSchema};
    use serde_json::{Value, json};

    fn pod_schema() -> PatchSchema {
        let mut schema = PatchSchema::default();
        schema.types.entry("Pod".into()).or_default().insert(
            "spec".into(),
            PatchField {
                ty: Some("PodSpec".into()),
                ..PatchField::default()
            },
        );
        schema.types.entry("PodSpec".into()).or_default().insert(
            "containers".into(),
            PatchField {
                ty: Some("Container".into()),
                strategy: vec!["merge".into()],
                merge_key: Some("name".into()),
            },
        );
        schema.types.entry("Container".into()).or_default().insert(
            "ports".into(),
            PatchField {
                ty: None,
                strategy: vec!["merge".into()],
                merge_key: Some("containerPort".into()),
            },
        );
        schema
    }

    fn smp(target: Value, patch: Value) -> Value {
        let mut target = target;
        apply(
            PatchKind::Strategic,
            &mut target,
            patch.to_string().as_bytes(),
            &pod_schema(),
            Some("Pod"),
        )
        .unwrap();
        target
    }

    #[test]
    fn strategic_lists_merge_by_key_and_others_are_replaced() {
        let pod = json!({"metadata": {"labels": {"a": "1", "b": "2"}, "finalizers": ["x"]},
            "spec": {"containers": [{"name": "app", "image": "v1"}, {"name": "side", "image": "s"}]}});
        let patched = smp(
            pod.clone(),
            json!({
                "metadata": {"labels": {"b": null, "c": "3"}, "finalizers": ["y"]},
                "spec": {"containers": [{"name": "app", "image": "v2"}, {"name": "new", "image": "n"}]}
            }),
        );
        assert_eq!(
            patched,
            json!({"metadata": {"labels": {"a": "1", "c": "3"}, "finalizers": ["y"]},
            "spec": {"containers": [{"name": "app", "image": "v2"}, {"name": "side", "image": "s"}, {"name": "new", "image": "n"}]}})
        );
        let deleted = smp(
            pod,
            json!({"spec": {"containers": [{"name": "side", "$patch": "delete"}]}}),
        );
        assert_eq!(
            deleted["spec"]["containers"],
            json!([{"name": "app", "image": "v1"}])
        );
    }

    #[test]
    fn strategic_directives() {
        let pod = json!({"spec": {"containers": [{"name": "app", "image": "v1", "args": ["a"]}]}});
        let replaced = smp(
            pod.clone(),
            json!({"spec": {"$patch": "replace", "containers": []}}),
        );
        assert_eq!(replaced, json!({"spec": {"containers": []}}));
        let retained = smp(
            pod,
            json!({"spec": {"containers": [{"name": "app", "$retainKeys": ["name", "image"], "image": "v3"}]}}),
        );
        assert_eq!(
            retained["spec"]["containers"],
            json!([{"name": "app", "image": "v3"}])
        );
    }

    #[test]
    fn merge_and_json_patch() {
        let mut object = json!({"a": {"b": 1, "c": [1, 2]}});
        apply(
            PatchKind::Merge,
            &mut object,
            br#"{"a": {"b": null, "c": [3]}}"#,
            &PatchSchema::default(),
            None,
        )
        .unwrap();
        assert_eq!(object, json!({"a": {"c": [3]}}));
        apply(
            PatchKind::Json,
            &mut object,
            br#"[{"op": "add", "path": "/a/c/-", "value": 4}]"#,
            &PatchSchema::default(),
            None,
        )
        .unwrap();
        assert_eq!(object, json!({"a": {"c": [3, 4]}}));
        assert!(
            apply(
                PatchKind::Json,
                &mut object,
                br#"[{"op": "test", "path": "/a/c/0", "value": 9}]"#,
                &PatchSchema::default(),
                None
            )
            .is_err()
        );
    }

    /// apimachinery's `mergingList` (merged by `name`) and `mergingIntList` (a set of
    /// integers), as in its strategicpatch tests.
    fn ordered_schema() -> PatchSchema {
        let mut schema = PatchSchema::default();
        let root = schema.types.entry("Root".into()).or_default();
        root.insert(
            "mergingList".into(),
            PatchField {
                ty: None,
                strategy: vec!["merge".into()],
                merge_key: Some("name".into()),
            },
        );
        root.insert(
            "mergingIntList".into(),
            PatchField {
                ty: None,
                strategy: vec!["merge".into()],
                merge_key: None,
            },
        );
        schema
    }

    fn ordered(target: Value, patch: Value) -> Value {
        let mut target = target;
        apply(
            PatchKind::Strategic,
            &mut target,
            patch.to_string().as_bytes(),
            &ordered_schema(),
            Some("Root"),
        )
        .unwrap();
        target
    }

    /// The three-way patches and results of apimachinery's `TestStrategicMergePatch` cases
    /// ("merge lists of maps", "set elements order in a list with server-only items" 1 to 3,
    /// "set elements order in a int list with server-only items"): the order the API
    /// server gives.
    #[test]
    fn set_element_order_puts_items_where_the_api_server_does() {
        let names = |list: &Value| -> Vec<i64> {
            list["mergingList"]
                .as_array()
                .unwrap()
                .iter()
                .map(|item| item["name"].as_i64().unwrap())
                .collect()
        };
        let merged = ordered(
            json!({"mergingList": [{"name": 1, "other": "a"}, {"name": 2, "value": 2, "other": "b"}]}),
            json!({
                "$setElementOrder/mergingList": [{"name": 4}, {"name": 1}, {"name": 2}, {"name": 3}],
                "mergingList": [{"name": 4, "value": 4}, {"name": 3, "value": 3}]
            }),
        );
        assert_eq!(
            merged,
            json!({"mergingList": [
                {"name": 4, "value": 4},
                {"name": 1, "other": "a"},
                {"name": 2, "value": 2, "other": "b"},
                {"name": 3, "value": 3}
            ]})
        );
        let live = |names: &[i64]| json!({"mergingList": names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()});
        let order = |names: &[i64]| json!({"$setElementOrder/mergingList": names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()});
        for (current, wanted, result) in [
            (
                &[1, 3, 4, 2, 9][..],
                &[4, 2, 3, 1][..],
                &[4, 2, 3, 1, 9][..],
            ),
            (&[1, 2, 9, 3, 4], &[2, 1, 4, 3], &[2, 1, 9, 4, 3]),
            (
                &[1, 2, 7, 9, 8, 3, 4],
                &[2, 1, 4, 3],
                &[2, 1, 7, 9, 8, 4, 3],
            ),
        ] {
            assert_eq!(
                names(&ordered(live(current), order(wanted))),
                result,
                "{current:?} in the order {wanted:?}"
            );
        }
        let ints = ordered(
            json!({"mergingIntList": [1, 3, 4, 2, 9]}),
            json!({"$setElementOrder/mergingIntList": [4, 2, 3, 1]}),
        );
        assert_eq!(ints, json!({"mergingIntList": [4, 2, 3, 1, 9]}));
    }
}
