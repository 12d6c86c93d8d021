//! Discovery documents: `/api`, `/apis`, `/apis/<group>`, the `APIResourceList` of each
//! group-version, the aggregated `apidiscovery.k8s.io/v2` `APIGroupDiscoveryList` of `/api`
//! and `/apis`, `/version` and the `/openapi/v3` index. Every document is made from the
//! catalog when it is asked for, so it follows the catalog as it changes. Clients that ask
//! for protobuf get these documents in JSON.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha512};

use crate::objects::builtin;
use crate::objects::catalog::{Catalog, ResourceDef};

/// The verbs of a custom resource, in the order the API server lists them
/// (`customresource_discovery_controller.go`), where a built-in resource's are sorted.
const CUSTOM_VERBS: [&str; 8] = [
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];

/// `/version`.
pub fn version() -> Value {
    json!({
        "major": "1",
        "minor": "32",
        "gitVersion": "v1.32.0+kubeforge",
        "gitCommit": "",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "",
        "compiler": "rustc",
        "platform": "linux/amd64",
    })
}

/// `/api`: the core group's versions.
pub fn core_versions(catalog: &Catalog) -> Option<Value> {
    let versions = versions_of(catalog, "");
    Some(json!({
        "kind": "APIVersions",
        "versions": versions,
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": ""}],
    }))
}

/// `/apis`: every named group, in the API server's order.
pub fn groups(catalog: &Catalog) -> Value {
    let groups: Vec<Value> = group_names(catalog)
        .iter()
        .filter_map(|g| group(catalog, g))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// The named groups, in the order the API server lists them: by priority
/// (`data/api-group-priorities.txt`; a custom resource's group has 1000), then by name.
fn group_names(catalog: &Catalog) -> Vec<&str> {
    let mut names: Vec<&str> = catalog
        .served()
        .map(|r| r.group.as_str())
        .filter(|g| !g.is_empty())
        .collect();
    names.sort_unstable();
    names.dedup();
    names.sort_by_key(|g| std::cmp::Reverse(builtin::group_priority(g)));
    names
}

/// Whether a resource is a custom resource (its schema came from a
/// CustomResourceDefinition), whose discovery entries the apiextensions server writes.
fn is_custom(catalog: &Catalog, def: &ResourceDef) -> bool {
    catalog.is_custom(def)
}

/// A resource's verbs as discovery lists them: sorted for a built-in resource, in the
/// apiextensions server's order for a custom one.
fn verbs_of(custom: bool, def: &ResourceDef) -> Vec<&str> {
    if !custom {
        return def.verbs.iter().map(String::as_str).collect();
    }
    let mut verbs: Vec<&str> = CUSTOM_VERBS
        .into_iter()
        .filter(|v| def.verbs.contains(*v))
        .collect();
    verbs.extend(
        def.verbs
            .iter()
            .map(String::as_str)
            .filter(|v| !CUSTOM_VERBS.contains(v)),
    );
    verbs
}

/// The group, version and kind a subresource answers with: `scale` an autoscaling/v1
/// `Scale`, `eviction` a policy/v1 `Eviction`, … (`data/builtin-subresource-kinds.txt`),
/// the others the resource's own kind. A built-in resource's own kind has no group or
/// version in discovery; a custom resource's has its own.
fn subresource_kind(custom: bool, def: &ResourceDef, sub: &str) -> (String, String, String) {
    if let Some(kind) = builtin::subresource_kind(&def.group, &def.plural, sub)
        .filter(|_| !custom || sub == "scale")
    {
        return (kind.group.clone(), kind.version.clone(), kind.kind.clone());
    }
    own_kind(custom, def)
}

/// A resource's `responseKind`: the kind alone for a built-in resource (its storage names
/// no group or version), the group, version and kind for a custom one.
fn own_kind(custom: bool, def: &ResourceDef) -> (String, String, String) {
    if custom {
        (def.group.clone(), def.version.clone(), def.kind.clone())
    } else {
        (String::new(), String::new(), def.kind.clone())
    }
}

fn gvk_json((group, version, kind): (String, String, String)) -> Value {
    json!({"group": group, "version": version, "kind": kind})
}

/// The aggregated discovery document (`apidiscovery.k8s.io/v2` `APIGroupDiscoveryList`) of
/// `/api` (`core`: the core group alone) or `/apis` (every named group), as the API
/// server's aggregated discovery manager writes it: the groups in its order, each
/// group's versions most preferred first, each version's resources by name with their
/// subresources, `freshness: Current`.
pub fn aggregated(catalog: &Catalog, core: bool) -> Value {
    let names = if core { vec![""] } else { group_names(catalog) };
    let items: Vec<Value> = names
        .into_iter()
        .filter_map(|name| aggregated_group(catalog, name))
        .collect();
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items,
    })
}

fn aggregated_group(catalog: &Catalog, name: &str) -> Option<Value> {
    let versions: Vec<Value> = versions_of(catalog, name)
        .iter()
        .map(|version| {
            let mut defs: Vec<&ResourceDef> = catalog
                .served()
                .filter(|r| r.group == name && r.version == *version)
                .collect();
            defs.sort_by(|a, b| a.plural.cmp(&b.plural));
            let resources: Vec<Value> = defs
                .into_iter()
                .map(|def| aggregated_resource(catalog, def))
                .collect();
            let mut entry = Map::new();
            entry.insert("version".into(), Value::from(version.as_str()));
            if !resources.is_empty() {
                entry.insert("resources".into(), Value::Array(resources));
            }
            entry.insert("freshness".into(), Value::from("Current"));
            Value::Object(entry)
        })
        .collect();
    if versions.is_empty() {
        return None;
    }
    let metadata = if name.is_empty() {
        json!({})
    } else {
        json!({"name": name})
    };
    Some(json!({"metadata": metadata, "versions": versions}))
}

/// One `APIResourceDiscovery`, with its fields in the API server's order.
fn aggregated_resource(catalog: &Catalog, def: &ResourceDef) -> Value {
    let custom = is_custom(catalog, def);
    let mut entry = Map::new();
    entry.insert("resource".into(), Value::from(def.plural.as_str()));
    entry.insert("responseKind".into(), gvk_json(own_kind(custom, def)));
    entry.insert(
        "scope".into(),
        Value::from(if def.namespaced {
            "Namespaced"
        } else {
            "Cluster"
        }),
    );
    entry.insert(
        "singularResource".into(),
        Value::from(def.singular.as_str()),
    );
    entry.insert("verbs".into(), json!(verbs_of(custom, def)));
    if !def.short_names.is_empty() {
        entry.insert("shortNames".into(), json!(def.short_names));
    }
    if !def.categories.is_empty() {
        entry.insert("categories".into(), json!(def.categories));
    }
    let mut subs: Vec<(&String, _)> = def.subresources.iter().collect();
    if custom {
        // The apiextensions server lists `status` before `scale`.
        subs.sort_by_key(|(sub, _)| (sub.as_str() != "status", sub.as_str() != "scale"));
    }
    let subresources: Vec<Value> = subs
        .into_iter()
        .map(|(sub, verbs)| {
            json!({
                "subresource": sub,
                "responseKind": gvk_json(subresource_kind(custom, def, sub)),
                "verbs": verbs,
            })
        })
        .collect();
    if !subresources.is_empty() {
        entry.insert("subresources".into(), Value::Array(subresources));
    }
    Value::Object(entry)
}

/// The `ETag` the API server sends with an aggregated document: the SHA-512, in upper-case
/// hexadecimal and quoted, of the document's JSON without its `kind` and `apiVersion`
/// (`calculateETag` hashes the list before the codec sets them).
pub fn etag(document: &Value) -> String {
    let mut hashed = document.clone();
    if let Some(map) = hashed.as_object_mut() {
        map.remove("kind");
        map.remove("apiVersion");
    }
    let digest = Sha512::digest(hashed.to_string().as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02X}")).collect();
    format!("\"{hex}\"")
}

/// `/apis/<group>`.
pub fn group(catalog: &Catalog, name: &str) -> Option<Value> {
    let versions = versions_of(catalog, name);
    let preferred = versions.first()?;
    let entry = |v: &String| json!({"groupVersion": format!("{name}/{v}"), "version": v});
    Some(json!({
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": name,
        "versions": versions.iter().map(entry).collect::<Vec<_>>(),
        "preferredVersion": entry(preferred),
    }))
}

/// The `APIResourceList` of a group-version: each resource by name, followed by its
/// subresources (the installer's sorted paths), with their fields in the API server's order.
pub fn resources(catalog: &Catalog, group: &str, version: &str) -> Option<Value> {
    let mut defs: Vec<&ResourceDef> = catalog
        .served()
        .filter(|r| r.group == group && r.version == version)
        .collect();
    defs.sort_by(|a, b| a.plural.cmp(&b.plural));
    let mut list = Vec::new();
    for def in defs {
        let custom = is_custom(catalog, def);
        let mut entry = Map::new();
        entry.insert("name".into(), Value::from(def.plural.as_str()));
        entry.insert("singularName".into(), Value::from(def.singular.as_str()));
        entry.insert("namespaced".into(), Value::from(def.namespaced));
        entry.insert("kind".into(), Value::from(def.kind.as_str()));
        entry.insert("verbs".into(), json!(verbs_of(custom, def)));
        if !def.short_names.is_empty() {
            entry.insert("shortNames".into(), json!(def.short_names));
        }
        if !def.categories.is_empty() {
            entry.insert("categories".into(), json!(def.categories));
        }
        list.push(Value::Object(entry));
        let mut subs: Vec<(&String, _)> = def.subresources.iter().collect();
        if custom {
            subs.sort_by_key(|(sub, _)| (sub.as_str() != "status", sub.as_str() != "scale"));
        }
        for (sub, verbs) in subs {
            // The plain list names a group and version only where the storage does.
            let (g, v, kind) = match builtin::subresource_kind(&def.group, &def.plural, sub)
                .filter(|_| !custom || sub == "scale")
            {
                Some(k) => (k.group.clone(), k.version.clone(), k.kind.clone()),
                None => own_kind(false, def),
            };
            let mut entry = Map::new();
            entry.insert("name".into(), Value::from(format!("{}/{sub}", def.plural)));
            entry.insert("singularName".into(), Value::from(""));
            entry.insert("namespaced".into(), Value::from(def.namespaced));
            if !g.is_empty() || !v.is_empty() {
                entry.insert("group".into(), Value::from(g));
                entry.insert("version".into(), Value::from(v));
            }
            entry.insert("kind".into(), Value::from(kind));
            entry.insert("verbs".into(), json!(verbs));
            list.push(Value::Object(entry));
        }
    }
    if list.is_empty() {
        return None;
    }
    let group_version = if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    Some(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": list,
    }))
}

/// `/openapi/v3`: where each group-version's document is, with a hash of its content.
pub fn openapi_index(catalog: &Catalog) -> Value {
    let paths: BTreeMap<&String, Value> = catalog
        .openapi
        .iter()
        .map(|(key, document)| {
            let mut hasher = DefaultHasher::new();
            document.to_string().hash(&mut hasher);
            let url = format!("/openapi/v3/{key}?hash={:016X}", hasher.finish());
            (key, json!({"serverRelativeURL": url}))
        })
        .collect();
    json!({"paths": paths})
}

/// The versions of a group, most preferred first (Kubernetes' version priority: GA before
/// beta before alpha, higher numbers first).
fn versions_of(catalog: &Catalog, group: &str) -> Vec<String> {
    let mut versions: Vec<String> = catalog
        .served()
        .filter(|r| r.group == group)
        .map(|r| r.version.clone())
        .collect();
    versions.sort_by(|a, b| priority(b).cmp(&priority(a)).then_with(|| a.cmp(b)));
    versions.dedup();
    versions
}

/// A sort key: `(stability, major, minor)`, higher is preferred; versions that do not look
/// like Kubernetes versions sort last.
fn priority(version: &str) -> (u8, u64, u64) {
    let Some(rest) = version.strip_prefix('v') else {
        return (0, 0, 0);
    };
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let Ok(major) = rest[..digits].parse::<u64>() else {
        return (0, 0, 0);
    };
    let tail = &rest[digits..];
    let (stability, minor) = if tail.is_empty() {
        (3, 0)
    } else if let Some(n) = tail.strip_prefix("beta") {
        (2, n.parse().unwrap_or(0))
    } else if let Some(n) = tail.strip_prefix("alpha") {
        (1, n.parse().unwrap_or(0))
    } else {
        (0, 0)
    };
    (stability, major, minor)
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_priority_follows_kubernetes() {
        let mut versions = vec![
            "v1alpha1", "v2beta1", "v1", "v1beta2", "v2", "foo", "v1beta1",
        ];
        versions.sort_by(|a, b| {
            super::priority(b)
                .cmp(&super::priority(a))
                .then_with(|| a.cmp(b))
        });
        assert_eq!(
            versions,
            [
                "v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v1alpha1", "foo"
            ]
        );
    }
}
