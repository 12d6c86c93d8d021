//! Which kinds are REST resources, read off the paths: the plural and scope come from the
//! path template, the kind from the operation's `x-kubernetes-group-version-kind`.
//!
//! Kubernetes paths have the form
//! `/api/{version}` or `/apis/{group}/{version}`, then optionally `watch/`, then optionally
//! `namespaces/{namespace}/`, then `{plural}`, then optionally `{name}` and a subresource.

use std::collections::{BTreeMap, BTreeSet};

use super::{Gvk, Resource, Scope, Shape, TypeDef, TypeId, TypeKind};
use crate::load::LoadedApi;

/// A path template taken apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ResourcePath {
    /// The group from the path, `""` for `/api`.
    pub group: String,
    /// The version from the path.
    pub version: String,
    /// Whether the path is under `/watch/`.
    pub watch: bool,
    /// Whether the path is under `namespaces/{namespace}/`.
    pub namespaced: bool,
    /// The resource's plural.
    pub plural: String,
    /// Whether a `{name}` follows the plural.
    pub named: bool,
    /// The subresource after `{name}`, if any.
    pub subresource: Option<String>,
}

/// Parses a Kubernetes resource path; `None` for paths of another form (discovery, `/version`).
pub(crate) fn parse_path(path: &str) -> Option<ResourcePath> {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (group, version, mut rest) = match segments.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return None,
    };
    let watch = rest.first() == Some(&"watch");
    if watch {
        rest = &rest[1..];
    }
    let namespaced = rest.len() >= 3 && rest[0] == "namespaces" && rest[1] == "{namespace}";
    if namespaced {
        rest = &rest[2..];
    }
    let (plural, rest) = rest.split_first()?;
    if plural.is_empty() || plural.starts_with('{') {
        return None;
    }
    let (named, rest) = match rest.split_first() {
        Some((name, rest)) if name.starts_with('{') => (true, rest),
        Some(_) => return None,
        None => (false, rest),
    };
    let subresource = if rest.is_empty() {
        None
    } else {
        Some(rest.join("/"))
    };
    Some(ResourcePath {
        group: group.to_owned(),
        version: version.to_owned(),
        watch,
        namespaced,
        plural: (*plural).to_owned(),
        named,
        subresource,
    })
}

#[derive(Default)]
struct Seen {
    kind: Option<String>,
    namespaced: bool,
    subresources: BTreeSet<String>,
}

/// Finds the served resources and the list kinds among `types`.
pub(super) fn find(
    raw: &LoadedApi,
    types: &[TypeDef],
) -> (BTreeMap<TypeId, Resource>, BTreeMap<TypeId, TypeId>) {
    // (group, version, plural) → what the paths say about it.
    let mut seen: BTreeMap<(String, String, String), Seen> = BTreeMap::new();
    for operation in &raw.operations {
        let Some(path) = parse_path(&operation.path) else {
            continue;
        };
        let entry = seen
            .entry((
                path.group.clone(),
                path.version.clone(),
                path.plural.clone(),
            ))
            .or_default();
        entry.namespaced |= path.namespaced;
        match path.subresource {
            Some(sub) => {
                entry.subresources.insert(sub);
            }
            None => {
                if let (None, Some(kind)) = (&entry.kind, &operation.gvk_kind) {
                    entry.kind = Some(kind.clone());
                }
            }
        }
    }

    // Resources declared by their definitions (CRDs) need no paths.
    for declared in &raw.resources {
        let entry = seen
            .entry((
                declared.group.clone(),
                declared.version.clone(),
                declared.plural.clone(),
            ))
            .or_default();
        entry.kind.get_or_insert_with(|| declared.kind.clone());
        entry.namespaced |= declared.namespaced;
        entry
            .subresources
            .extend(declared.subresources.iter().cloned());
    }

    let by_gvk: BTreeMap<&Gvk, TypeId> = types
        .iter()
        .enumerate()
        .filter_map(|(i, ty)| ty.gvk.as_ref().map(|gvk| (gvk, TypeId(i))))
        .collect();

    let mut resources = BTreeMap::new();
    for ((group, version, plural), seen) in seen {
        let Some(kind) = seen.kind else { continue };
        let gvk = Gvk {
            group,
            version,
            kind,
        };
        let Some(&id) = by_gvk.get(&gvk) else {
            continue;
        };
        resources.insert(
            id,
            Resource {
                gvk,
                plural,
                scope: if seen.namespaced {
                    Scope::Namespaced
                } else {
                    Scope::Cluster
                },
                subresources: seen.subresources.into_iter().collect(),
                metadata: match &types[id.0].kind {
                    TypeKind::Struct(fields) => super::MetadataField::of(fields),
                    _ => None,
                },
            },
        );
    }

    let mut lists = BTreeMap::new();
    for (i, ty) in types.iter().enumerate() {
        let (Some(gvk), TypeKind::Struct(fields)) = (&ty.gvk, &ty.kind) else {
            continue;
        };
        if !gvk.kind.ends_with("List") {
            continue;
        }
        let item = fields.iter().find_map(|f| match (&*f.json_name, &f.shape) {
            ("items", Shape::Vec(inner)) => match **inner {
                Shape::Ref(item) => Some(item),
                _ => None,
            },
            _ => None,
        });
        if let Some(item) = item.filter(|item| resources.contains_key(item)) {
            lists.insert(TypeId(i), item);
        }
    }
    (resources, lists)
}

#[cfg(test)]
mod tests {
    use super::parse_path;

    #[test]
    fn paths() {
        let p = parse_path("/api/v1/namespaces/{namespace}/pods/{name}/log").unwrap();
        assert_eq!(
            (p.group.as_str(), p.plural.as_str(), p.namespaced, p.named),
            ("", "pods", true, true)
        );
        assert_eq!(p.subresource.as_deref(), Some("log"));

        let p =
            parse_path("/apis/coordination.k8s.io/v1/watch/namespaces/{namespace}/leases").unwrap();
        assert!(p.watch && p.namespaced && !p.named);
        assert_eq!(p.group, "coordination.k8s.io");

        let p = parse_path("/api/v1/namespaces/{name}/status").unwrap();
        assert_eq!((p.plural.as_str(), p.namespaced), ("namespaces", false));
        assert_eq!(p.subresource.as_deref(), Some("status"));

        let p = parse_path("/api/v1/pods").unwrap();
        assert!(!p.namespaced);
        assert!(parse_path("/apis/").is_none());
        assert!(parse_path("/version/").is_none());
    }
}
