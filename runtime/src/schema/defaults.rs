//! Structural defaulting and pruning, as apiextensions-apiserver applies them to custom
//! resources (`pkg/apiserver/schema/defaulting/algorithm.go`, `prunenulls.go` and
//! `pkg/apiserver/schema/pruning/algorithm.go`).

use serde_json::Value;

use super::view::View;
use super::{Node, Resolve};

/// How deep defaulting and pruning go (recursive `$ref`s end there).
const MAX_DEPTH: usize = 128;

/// Whether `value` is a Go zero value (`null`, `false`, `0`, `""`, `[]`, `{}`): what a Go
/// field holds when nothing set it. Kubernetes publishes it as the default of every
/// non-pointer field, which says nothing an absent field does not (so the generator neither
/// applies nor merges it), and the API server's defaulters test a value field against it
/// (`if obj.Type == ""`).
#[must_use]
pub fn is_go_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// Sets the `default` of every absent property, and of every `null` whose schema is not
/// `nullable`, recursively: into the defaults just set, into list items and map values
/// (a non-nullable `null` item or map value takes its schema's default; the default set
/// there is not defaulted further, as in the API server).
pub fn apply_defaults(node: &Node, resolve: &dyn Resolve, value: &mut Value) {
    default_at(&View::new(node, resolve), value, 0);
}

fn is_non_nullable_null(v: &Value, view: &View<'_>) -> bool {
    v.is_null() && !view.nullable()
}

fn default_of<'a>(view: &View<'a>) -> Option<&'a Value> {
    view.layers().iter().find_map(|(n, _)| n.default.as_ref())
}

fn default_at(view: &View<'_>, value: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            for (name, prop) in view.properties() {
                let Some(default) = default_of(&prop) else {
                    continue;
                };
                let absent = map.get(name).is_none_or(|v| is_non_nullable_null(v, &prop));
                if absent {
                    map.insert(name.to_owned(), default.clone());
                }
            }
            let additional = match view.additional() {
                Some(Ok(a)) => Some(a),
                _ => None,
            };
            for (k, v) in map.iter_mut() {
                if let Some(prop) = view.property(k) {
                    default_at(&prop, v, depth + 1);
                } else if let Some(additional) = &additional {
                    if is_non_nullable_null(v, additional) {
                        if let Some(d) = default_of(additional) {
                            *v = d.clone();
                        }
                        continue;
                    }
                    default_at(additional, v, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            let Some(item) = view.items() else { return };
            for v in items.iter_mut() {
                if is_non_nullable_null(v, &item) {
                    if let Some(d) = default_of(&item) {
                        *v = d.clone();
                    }
                    continue;
                }
                default_at(&item, v, depth + 1);
            }
        }
        _ => {}
    }
}

/// Removes the keys no property or `additionalProperties` admits, except below
/// `x-kubernetes-preserve-unknown-fields` and the `apiVersion`, `kind` and `metadata` of
/// embedded resources and of the root (a resource). Returns the paths of what it removed
/// (`spec.foo`, `spec.items[0].bar`), sorted, as the API server records them for
/// `fieldValidation` ([`unknown_field_message`]).
pub fn prune(node: &Node, resolve: &dyn Resolve, value: &mut Value) -> Vec<String> {
    let mut removed = Vec::new();
    let view = View::new(node, resolve);
    prune_at(Some(&view), value, "", true, &mut removed, 0);
    removed.sort();
    removed
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn prune_at(
    view: Option<&View<'_>>,
    value: &mut Value,
    path: &str,
    root: bool,
    removed: &mut Vec<String>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let preserve = view.is_some_and(View::preserve_unknown_fields);
    let embedded = root || view.is_some_and(View::embedded_resource);
    match value {
        Value::Object(map) => {
            let Some(view) = view else {
                if !preserve {
                    let mut keys: Vec<String> = map.keys().cloned().collect();
                    keys.sort();
                    for k in keys {
                        removed.push(join(path, &k));
                    }
                    map.clear();
                }
                return;
            };
            let additional = match view.additional() {
                Some(Ok(a)) => Some(a),
                _ => None,
            };
            // additionalProperties: true keeps unknown keys too (no schema below them).
            let allow_any = matches!(view.additional(), Some(Err(true)));
            let mut drop = Vec::new();
            for (k, v) in map.iter_mut() {
                if embedded && matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                if let Some(prop) = view.property(k) {
                    prune_at(Some(&prop), v, &join(path, k), false, removed, depth + 1);
                } else if let Some(additional) = &additional {
                    prune_at(
                        Some(additional),
                        v,
                        &join(path, k),
                        false,
                        removed,
                        depth + 1,
                    );
                } else if !preserve && !allow_any {
                    removed.push(join(path, k));
                    drop.push(k.clone());
                }
            }
            for k in drop {
                map.remove(&k);
            }
        }
        Value::Array(items) => {
            let item = view.and_then(View::items);
            if view.is_some() && item.is_none() {
                return;
            }
            for (i, v) in items.iter_mut().enumerate() {
                prune_at(
                    item.as_ref(),
                    v,
                    &format!("{path}[{i}]"),
                    false,
                    removed,
                    depth + 1,
                );
            }
        }
        _ => {}
    }
}

/// Removes `null` values whose schema is neither `nullable` nor has a `default`
/// (`PruneNonNullableNullsWithoutDefaults`, applied to objects read from storage).
pub fn prune_nulls(node: &Node, resolve: &dyn Resolve, value: &mut Value) {
    prune_nulls_at(Some(&View::new(node, resolve)), value, 0);
}

fn prune_nulls_at(view: Option<&View<'_>>, value: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            let mut drop = Vec::new();
            for (k, v) in map.iter_mut() {
                let schema = view.and_then(|view| {
                    view.property(k).or_else(|| match view.additional() {
                        Some(Ok(a)) => Some(a),
                        _ => None,
                    })
                });
                if v.is_null()
                    && schema
                        .as_ref()
                        .is_some_and(|s| !s.nullable() && default_of(s).is_none())
                {
                    drop.push(k.clone());
                } else {
                    prune_nulls_at(schema.as_ref(), v, depth + 1);
                }
            }
            for k in drop {
                map.remove(&k);
            }
        }
        Value::Array(items) => {
            let item = view.and_then(View::items);
            for v in items {
                prune_nulls_at(item.as_ref(), v, depth + 1);
            }
        }
        _ => {}
    }
}

/// The API server's answer to `fieldValidation=Strict` for the paths [`prune`] returned:
/// `strict decoding error: unknown field "spec.foo", unknown field "spec.bar"`
/// (apimachinery's `NewStrictDecodingError`; see [`super::strict_decoding_message`] for
/// duplicate fields too). With `Warn`, each `unknown field "…"` is one `Warning` header.
#[must_use]
pub fn unknown_field_message(paths: &[String]) -> String {
    super::strict_decoding_message(&[], paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::NoReferences;
    use serde_json::json;

    fn node(v: Value) -> Node {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn defaults_fill_absent_and_non_nullable_null_properties() {
        let n = node(json!({
            "type": "object",
            "properties": {
                "spec": {"type": "object", "default": {}, "properties": {
                    "replicas": {"type": "integer", "default": 1},
                    "mode": {"type": "string", "nullable": true, "default": "a"},
                    "ports": {"type": "array", "items": {"type": "object", "properties": {
                        "protocol": {"type": "string", "default": "TCP"}}}},
                    "labels": {"type": "object", "additionalProperties": {"type": "string", "default": "x"}}
                }}
            }
        }));
        let mut v = json!({});
        apply_defaults(&n, &NoReferences, &mut v);
        assert_eq!(v, json!({"spec": {"replicas": 1, "mode": "a"}}));
        let mut v = json!({"spec": {"replicas": null, "mode": null, "ports": [{}, {"protocol": "UDP"}], "labels": {"a": null}}});
        apply_defaults(&n, &NoReferences, &mut v);
        assert_eq!(
            v,
            json!({"spec": {"replicas": 1, "mode": null, "ports": [{"protocol": "TCP"}, {"protocol": "UDP"}], "labels": {"a": "x"}}})
        );
    }

    #[test]
    fn prune_removes_unknown_fields_and_reports_their_paths() {
        let n = node(json!({
            "type": "object",
            "properties": {
                "spec": {"type": "object", "properties": {
                    "items": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "preserveUnknownFields": true},
                    "pod": {"type": "object", "embeddedResource": true, "properties": {"spec": {"type": "object"}}}
                }}
            }
        }));
        let mut v = json!({
            "apiVersion": "v1", "kind": "K", "metadata": {"name": "x"},
            "spec": {"foo": 1, "items": [{"a": "x", "b": 2}], "free": {"anything": 1},
                     "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "bar": 1}},
            "status": {}
        });
        let removed = prune(&n, &NoReferences, &mut v);
        assert_eq!(
            removed,
            vec!["spec.foo", "spec.items[0].b", "spec.pod.bar", "status"]
        );
        assert_eq!(v["spec"]["free"], json!({"anything": 1}));
        assert_eq!(v["spec"]["pod"]["kind"], json!("Pod"));
        assert_eq!(
            unknown_field_message(&removed[..1]),
            r#"strict decoding error: unknown field "spec.foo""#
        );
    }
}
