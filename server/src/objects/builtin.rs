//! The discovery data of Kubernetes' built-in resources that no OpenAPI document carries:
//! short names and categories, from `data/builtin-discovery.txt` (its header names the
//! sources). Any catalog that serves a built-in resource advertises them, as kube-apiserver
//! does, so `kubectl get deploy` and `kubectl get all` work.

use std::collections::HashMap;
use std::sync::OnceLock;

const DATA: &str = include_str!("../../data/builtin-discovery.txt");

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
}
