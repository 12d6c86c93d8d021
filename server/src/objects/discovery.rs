//! Discovery documents: `/api`, `/apis`, `/apis/<group>`, the `APIResourceList` of each
//! group-version, `/version` and the `/openapi/v3` index. Clients that ask for aggregated
//! discovery or protobuf get these plain JSON documents, and fall back to them (kubectl
//! does, as it does against servers older than aggregated discovery).

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Value, json};

use crate::objects::catalog::Catalog;

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

/// `/apis`: every named group.
pub fn groups(catalog: &Catalog) -> Value {
    let mut names: Vec<&str> = catalog
        .served()
        .map(|r| r.group.as_str())
        .filter(|g| !g.is_empty())
        .collect();
    names.sort_unstable();
    names.dedup();
    let groups: Vec<Value> = names.iter().filter_map(|g| group(catalog, g)).collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
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

/// The `APIResourceList` of a group-version.
pub fn resources(catalog: &Catalog, group: &str, version: &str) -> Option<Value> {
    let mut list = Vec::new();
    for def in catalog
        .served()
        .filter(|r| r.group == group && r.version == version)
    {
        let mut entry = json!({
            "name": def.plural,
            "singularName": def.singular,
            "namespaced": def.namespaced,
            "kind": def.kind,
            "verbs": def.verbs,
        });
        if !def.short_names.is_empty() {
            entry["shortNames"] = json!(def.short_names);
        }
        if !def.categories.is_empty() {
            entry["categories"] = json!(def.categories);
        }
        list.push(entry);
        for (sub, verbs) in &def.subresources {
            let mut entry = json!({
                "name": format!("{}/{sub}", def.plural),
                "singularName": "",
                "namespaced": def.namespaced,
                "kind": def.kind,
                "verbs": verbs,
            });
            if sub == "scale" {
                entry["group"] = json!("autoscaling");
                entry["version"] = json!("v1");
                entry["kind"] = json!("Scale");
            }
            list.push(entry);
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
