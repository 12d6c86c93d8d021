//! The discovery data of Kubernetes' built-in resources that no OpenAPI document carries:
//! short names and categories, from `data/builtin-discovery.txt` (its header names the
//! sources); the order of the API groups (`data/api-group-priorities.txt`); the kind each
//! subresource answers with (`data/builtin-subresource-kinds.txt`). Any catalog that serves
//! a built-in resource advertises them, as kube-apiserver does, so `kubectl get deploy` and
//! `kubectl get all` work.

use std::collections::HashMap;
use std::sync::OnceLock;

const DATA: &str = include_str!("../../data/builtin-discovery.txt");
const PRIORITIES: &str = include_str!("../../data/api-group-priorities.txt");
const SUBRESOURCES: &str = include_str!("../../data/builtin-subresource-kinds.txt");

/// The priority of a group not listed: a CustomResourceDefinition's.
const CUSTOM_PRIORITY: u32 = 1000;

/// The lines of a data file that are not blank or comments, split into fields.
fn rows(text: &str) -> impl Iterator<Item = Vec<&str>> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| line.split_whitespace().collect())
}

/// A group's place in discovery: higher first (then by name).
pub(crate) fn group_priority(group: &str) -> u32 {
    static TABLE: OnceLock<HashMap<String, u32>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            rows(PRIORITIES)
                .filter_map(|fields| match fields[..] {
                    [group, priority] => Some((group.to_owned(), priority.parse().ok()?)),
                    _ => None,
                })
                .collect()
        })
        .get(group)
        .copied()
        .unwrap_or(CUSTOM_PRIORITY)
}

/// The group, version (empty when the storage names none) and kind a built-in
/// subresource answers with, where it is not the resource's own kind.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SubresourceKind {
    pub(crate) group: String,
    pub(crate) version: String,
    pub(crate) kind: String,
}

/// The kind the subresource `sub` of the built-in resource `plural` of `group` answers
/// with, if it is not the resource's own.
pub(crate) fn subresource_kind(
    group: &str,
    plural: &str,
    sub: &str,
) -> Option<&'static SubresourceKind> {
    type Key = (String, String, String);
    static TABLE: OnceLock<HashMap<Key, SubresourceKind>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let none = |field: &str| {
            if field == "-" {
                String::new()
            } else {
                field.to_owned()
            }
        };
        rows(SUBRESOURCES)
            .filter_map(|fields| match fields[..] {
                [group, resource, sub, g, v, kind] => Some((
                    (
                        if group == "core" { "" } else { group }.to_owned(),
                        resource.to_owned(),
                        sub.to_owned(),
                    ),
                    SubresourceKind {
                        group: none(g),
                        version: none(v),
                        kind: kind.to_owned(),
                    },
                )),
                _ => None,
            })
            .collect()
    });
    let key = |g: &str, r: &str| (g.to_owned(), r.to_owned(), sub.to_owned());
    table
        .get(&key(group, plural))
        .or_else(|| table.get(&key("*", "*")))
}

/// A built-in resource's short names and categories.
#[derive(Debug, Default)]
pub(crate) struct Names {
    pub(crate) short_names: Vec<String>,
    pub(crate) categories: Vec<String>,
}

/// The short names and categories of the built-in resource `plural` of `group` (`""` for the
/// core group), if it is one that has any.
pub(crate) fn names(group: &str, plural: &str) -> Option<&'static Names> {
    static TABLE: OnceLock<HashMap<(String, String), Names>> = OnceLock::new();
    TABLE
        .get_or_init(|| parse(DATA))
        .get(&(group.to_owned(), plural.to_owned()))
}

fn parse(text: &str) -> HashMap<(String, String), Names> {
    let list = |field: &str| -> Vec<String> {
        if field == "-" {
            Vec::new()
        } else {
            field.split(',').map(str::to_owned).collect()
        }
    };
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [group, resource, short, categories] = fields[..] else {
                return None;
            };
            let group = if group == "core" { "" } else { group };
            Some((
                (group.to_owned(), resource.to_owned()),
                Names {
                    short_names: list(short),
                    categories: list(categories),
                },
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_line_of_the_data_parses() {
        let lines = super::DATA
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .count();
        assert_eq!(super::parse(super::DATA).len(), lines);
        let deployments = super::names("apps", "deployments").unwrap();
        assert_eq!(deployments.short_names, ["deploy"]);
        assert_eq!(deployments.categories, ["all"]);
        assert_eq!(super::names("", "configmaps").unwrap().short_names, ["cm"]);
        let crds = super::names("apiextensions.k8s.io", "customresourcedefinitions").unwrap();
        assert_eq!(crds.short_names, ["crd", "crds"]);
        assert!(super::names("", "secrets").unwrap().short_names.is_empty());
        assert!(super::names("example.com", "widgets").is_none());
    }

    #[test]
    fn group_order_and_subresource_kinds() {
        assert_eq!(super::rows(super::PRIORITIES).count(), 23);
        assert!(super::group_priority("apiregistration.k8s.io") > super::group_priority("apps"));
        assert!(super::group_priority("apps") > super::group_priority("events.k8s.io"));
        assert_eq!(super::group_priority("example.com"), 1000);
        assert_eq!(super::rows(super::SUBRESOURCES).count(), 4);
        let eviction = super::subresource_kind("", "pods", "eviction").unwrap();
        assert_eq!(
            (
                eviction.group.as_str(),
                eviction.version.as_str(),
                eviction.kind.as_str()
            ),
            ("policy", "v1", "Eviction")
        );
        let scale = super::subresource_kind("apps", "deployments", "scale").unwrap();
        assert_eq!(scale.kind, "Scale");
        assert_eq!(
            super::subresource_kind("", "pods", "binding")
                .unwrap()
                .group,
            ""
        );
        assert!(super::subresource_kind("", "pods", "status").is_none());
    }
}
