//! Which rule each resource's object names follow, from `data/object-names.txt` (its header
//! names the sources): most names are DNS-1123 subdomains, a namespace's and a
//! StatefulSet's a DNS-1123 label, a Service's a DNS-1035 label, RBAC objects' anything that
//! is one path segment (`system:aggregate-to-admin`).

use std::collections::HashMap;
use std::sync::OnceLock;

use kubeforge_runtime::schema::names;

const DATA: &str = include_str!("../../data/object-names.txt");

/// A name rule: apimachinery's `ValidateNameFunc`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameRule {
    Dns1123Subdomain,
    Dns1123Label,
    Dns1035Label,
    PathSegment,
    /// No rule (a CertificateSigningRequest's name).
    Any,
    /// A rule of the kind's own the server does not check.
    Unchecked,
}

impl NameRule {
    fn parse(text: &str) -> Option<NameRule> {
        Some(match text {
            "dns1123-subdomain" => NameRule::Dns1123Subdomain,
            "dns1123-label" => NameRule::Dns1123Label,
            "dns1035-label" => NameRule::Dns1035Label,
            "path-segment" => NameRule::PathSegment,
            "any" => NameRule::Any,
            "unchecked" => NameRule::Unchecked,
            _ => return None,
        })
    }

    /// What is wrong with `name` (`prefix`: a `generateName`), in apimachinery's words.
    pub(crate) fn check(self, name: &str, prefix: bool) -> Vec<String> {
        match self {
            NameRule::Dns1123Subdomain => names::name_is_dns_subdomain(name, prefix),
            NameRule::Dns1123Label => names::name_is_dns_label(name, prefix),
            NameRule::Dns1035Label => names::name_is_dns1035_label(name, prefix),
            NameRule::PathSegment => names::is_valid_path_segment_name(name),
            NameRule::Any | NameRule::Unchecked => Vec::new(),
        }
    }
}

/// The name rule of the objects of `plural` in `group` (`""`: the core group).
pub(crate) fn rule(group: &str, plural: &str) -> NameRule {
    static TABLE: OnceLock<HashMap<(String, String), NameRule>> = OnceLock::new();
    TABLE
        .get_or_init(|| parse(DATA))
        .get(&(group.to_owned(), plural.to_owned()))
        .copied()
        .unwrap_or(NameRule::Dns1123Subdomain)
}

fn parse(text: &str) -> HashMap<(String, String), NameRule> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (group, plural, rule) = (fields.next()?, fields.next()?, fields.next()?);
            let group = if group == "core" { "" } else { group };
            Some((
                (group.to_owned(), plural.to_owned()),
                NameRule::parse(rule)?,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_data_parses() {
        let lines = DATA
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .count();
        assert_eq!(parse(DATA).len(), lines);
        assert_eq!(rule("", "namespaces"), NameRule::Dns1123Label);
        assert_eq!(rule("", "services"), NameRule::Dns1035Label);
        assert_eq!(rule("", "configmaps"), NameRule::Dns1123Subdomain);
        assert_eq!(rule("example.com", "widgets"), NameRule::Dns1123Subdomain);
        assert_eq!(
            rule("rbac.authorization.k8s.io", "clusterroles"),
            NameRule::PathSegment
        );
        assert!(
            NameRule::PathSegment
                .check("system:aggregate-to-admin", false)
                .is_empty()
        );
        assert!(!NameRule::Dns1035Label.check("1web", false).is_empty());
        assert!(NameRule::Dns1123Label.check("web-", true).is_empty());
    }
}
