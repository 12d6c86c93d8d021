//! The merge semantics on small schemas written as nodes: list types, map types, patch
//! strategies, untyped values, pruning and conflicts.

use serde_json::{Value, json};

use super::fieldmanager::Write;
use super::updater::{Reset, Scope};
use super::{managed, typed};
use crate::objects::schema::{Schemas, Ty};

/// A schema of one named type (index 0) and, at index 1, an atomic struct it refers to.
fn schemas() -> Schemas {
    let root: kubeforge_runtime::schema::Node = serde_json::from_value(json!({
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object", "properties": {
                "name": {"type": "string"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "managedFields": {"type": "array", "items": {"type": "object"}, "listType": "atomic"},
            }},
            "spec": {"type": "object", "properties": {
                "replicas": {"type": "integer"},
                "atomicList": {"type": "array", "items": {"type": "string"}},
                "set": {"type": "array", "items": {"type": "string"}, "listType": "set"},
                "ports": {"type": "array", "listType": "map", "listMapKeys": ["port", "protocol"],
                    "items": {"type": "object", "properties": {
                        "port": {"type": "integer"},
                        "protocol": {"type": "string", "default": "TCP"},
                        "name": {"type": "string"},
                    }}},
                "containers": {"type": "array", "patchStrategy": ["merge"], "patchMergeKey": "name",
                    "items": {"type": "object", "properties": {
                        "name": {"type": "string"},
                        "image": {"type": "string"},
                    }}},
                "selector": {"type": "object", "additionalProperties": {"type": "string"}, "mapType": "atomic"},
                "ref": {"allOf": [{"$ref": 1}]},
                "granularRef": {"$ref": 1, "mapType": "granular"},
                "json": {"x-kubernetes-preserve-unknown-fields": true},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            }},
        },
    }))
    .unwrap();
    let atomic: kubeforge_runtime::schema::Node = serde_json::from_value(json!({
        "type": "object",
        "mapType": "atomic",
        "properties": {"name": {"type": "string"}, "kind": {"type": "string"}},
    }))
    .unwrap();
    Schemas {
        set: kubeforge_runtime::schema::SchemaSet::new(vec![root, atomic]),
        ..Schemas::default()
    }
}

fn root(schemas: &Schemas) -> Ty<'_> {
    Ty::Node {
        node: &schemas.set.nodes[0],
        preserve: false,
        map_type: None,
    }
}

fn fields(schemas: &Schemas, value: &Value) -> Value {
    typed::field_set(schemas, value, root(schemas)).to_fields_v1()
}

#[test]
fn field_sets_follow_list_and_map_types() {
    let schemas = schemas();
    let object = json!({
        "apiVersion": "v1", "kind": "Thing",
        "metadata": {"name": "a", "labels": {"app": "x"}},
        "spec": {
            "replicas": 1,
            "atomicList": ["a", "b"],
            "set": ["x", "y"],
            "ports": [{"port": 80, "name": "http"}],
            "containers": [{"name": "app", "image": "nginx"}],
            "selector": {"a": "b"},
            "ref": {"name": "n"},
            "granularRef": {"name": "n"},
            "json": {"deep": {"x": [1]}},
            "free": {"a": {"b": 1}},
        },
    });
    assert_eq!(
        fields(&schemas, &object),
        json!({
            "f:apiVersion": {}, "f:kind": {},
            "f:metadata": {"f:labels": {"f:app": {}}, "f:name": {}},
            "f:spec": {
                "f:atomicList": {},
                "f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:name": {}}},
                "f:free": {"f:a": {".": {}, "f:b": {}}},
                "f:granularRef": {"f:name": {}},
                "f:json": {"f:deep": {".": {}, "f:x": {}}},
                "f:ports": {"k:{\"port\":80,\"protocol\":\"TCP\"}": {".": {}, "f:name": {}, "f:port": {}}},
                "f:ref": {},
                "f:replicas": {},
                "f:selector": {},
                "f:set": {"v:\"x\"": {}, "v:\"y\"": {}},
            },
        })
    );
}

#[test]
fn merges_lists_by_their_types() {
    let schemas = schemas();
    let live = json!({"spec": {
        "atomicList": ["a", "b"],
        "set": ["x", "y"],
        "containers": [{"name": "a", "image": "1"}, {"name": "b", "image": "2"}],
        "selector": {"a": "1", "b": "2"},
        "free": {"a": 1, "b": 2},
    }});
    let config = json!({"spec": {
        "atomicList": ["c"],
        "set": ["z", "x"],
        "containers": [{"name": "c", "image": "3"}, {"name": "a", "image": "9"}],
        "selector": {"c": "3"},
        "free": {"c": 3},
    }});
    let merged = typed::merge(&schemas, &live, &config, root(&schemas)).unwrap();
    assert_eq!(
        merged,
        json!({"spec": {
            "atomicList": ["c"],
            "set": ["z", "x", "y"],
            "containers": [{"name": "c", "image": "3"}, {"name": "a", "image": "9"}, {"name": "b", "image": "2"}],
            "selector": {"c": "3"},
            "free": {"a": 1, "b": 2, "c": 3},
        }})
    );
}

fn write<'s>(schemas: &'s Schemas, empty: &'s Value) -> Write<'s> {
    Write {
        scope: Scope {
            schemas,
            root: root(schemas),
            api_version: "v1",
            reset: Reset::Nothing,
        },
        subresource: "",
        empty,
        now: "2024-01-01T00:00:00Z",
    }
}

fn owned(object: &Value, manager: &str) -> Value {
    object["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["manager"] == manager)
        .map(|e| e["fieldsV1"].clone())
        .unwrap_or(Value::Null)
}

#[test]
fn apply_prunes_what_it_no_longer_applies_unless_someone_else_owns_it() {
    let schemas = schemas();
    let empty = json!({"apiVersion": "v1", "kind": "Thing"});
    let write = write(&schemas, &empty);
    let first = json!({"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "a"},
        "spec": {"replicas": 1, "set": ["x", "y"], "containers": [{"name": "a", "image": "1"}]}});
    let object = write.apply(&empty, &first, "alice", false).unwrap();
    assert_eq!(object["spec"], first["spec"]);
    // Bob shares `y` by applying the same value.
    let bob = json!({"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "a"}, "spec": {"set": ["y"]}});
    let object = write.apply(&object, &bob, "bob", false).unwrap();
    // Alice drops everything but `x`: replicas and the container go, `y` stays (Bob's).
    let second = json!({"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "a"}, "spec": {"set": ["x"]}});
    let object = write.apply(&object, &second, "alice", false).unwrap();
    assert_eq!(object["spec"], json!({"set": ["x", "y"]}));
    assert_eq!(
        owned(&object, "alice"),
        json!({"f:spec": {"f:set": {"v:\"x\"": {}}}})
    );
    assert_eq!(
        owned(&object, "bob"),
        json!({"f:spec": {"f:set": {"v:\"y\"": {}}}})
    );
}

#[test]
fn conflicts_name_the_owner_and_force_takes_the_field() {
    let schemas = schemas();
    let empty = json!({"apiVersion": "v1", "kind": "Thing"});
    let write = write(&schemas, &empty);
    let mut object = json!({"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "a"}, "spec": {"replicas": 1}});
    write.update(&empty, &mut object, "creator", true);
    // A custom resource's empty object has no spec: the creator owns the struct too.
    assert_eq!(
        owned(&object, "creator"),
        json!({"f:spec": {".": {}, "f:replicas": {}}})
    );
    let config = json!({"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "a"}, "spec": {"replicas": 2}});
    let Err(super::fieldmanager::Failed::Conflicts(conflicts)) =
        write.apply(&object, &config, "alice", false)
    else {
        panic!("no conflict");
    };
    assert_eq!(
        super::conflict::failure(&conflicts).message,
        r#"Apply failed with 1 conflict: conflict with "creator" using v1: .spec.replicas"#
    );
    // The same value is no conflict: the field is shared.
    let same = json!({"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "a"}, "spec": {"replicas": 1}});
    let shared = write.apply(&object, &same, "alice", false).unwrap();
    assert_eq!(
        owned(&shared, "alice"),
        json!({"f:spec": {"f:replicas": {}}})
    );
    assert_eq!(owned(&shared, "creator"), owned(&object, "creator"));
    let forced = write.apply(&object, &config, "alice", true).unwrap();
    assert_eq!(forced["spec"]["replicas"], 2);
    assert_eq!(owned(&forced, "creator"), json!({"f:spec": {}}));
}

#[test]
fn updates_join_the_managers_earlier_fields_and_cleared_objects_are_not_tracked() {
    let schemas = schemas();
    let empty = json!({"apiVersion": "v1", "kind": "Thing"});
    let write = write(&schemas, &empty);
    let mut object = json!({"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "a"}, "spec": {"replicas": 1}});
    write.update(&empty, &mut object, "m", true);
    let mut next = object.clone();
    next["spec"]["set"] = json!(["x"]);
    write.update(&object, &mut next, "m", false);
    assert_eq!(
        owned(&next, "m"),
        json!({"f:spec": {".": {}, "f:replicas": {}, "f:set": {".": {}, "v:\"x\"": {}}}})
    );
    // Cleared managed fields stay cleared through updates.
    let mut cleared = next.clone();
    cleared["metadata"]["managedFields"] = json!([{}]);
    write.update(&next, &mut cleared, "m", false);
    assert!(cleared["metadata"].get("managedFields").is_none());
    let mut again = cleared.clone();
    again["spec"]["replicas"] = json!(5);
    write.update(&cleared, &mut again, "m", false);
    assert!(again["metadata"].get("managedFields").is_none());
    // The first apply gives what is there to `before-first-apply`.
    let config = json!({"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "a"}, "spec": {"replicas": 5}});
    let applied = write.apply(&again, &config, "alice", false).unwrap();
    let entries = managed::Managed::decode(applied.pointer("/metadata/managedFields")).unwrap();
    assert!(
        entries
            .fields
            .keys()
            .any(|id| id.contains("before-first-apply"))
    );
}
