//! The one place where JSON names become Rust names. Every identifier in generated code
//! comes from a function here, so the rules are audited once:
//!
//! - fields and modules are `snake_case`, types and variants `UpperCamelCase`;
//! - a Rust keyword gets a trailing `_` (`type` → `type_`), never a raw identifier, so
//!   fields read the same everywhere (`self`, `super` and `crate` cannot be raw anyway);
//! - characters that cannot appear in an identifier separate words (`x-kubernetes-list-type`
//!   → `x_kubernetes_list_type`, `$ref` → `ref_`);
//! - a name that would start with a digit gets a prefix (`_` for snake case, `V` for
//!   variants, `T` for types);
//! - an acronym's plural stays one word (`podIPs` → `pod_ips`, not `pod_i_ps`).
//!
//! Uniqueness is not decided here: [`Namespace`] hands out names within one scope and
//! disambiguates deterministically with numeric suffixes.

use std::collections::BTreeSet;

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Strict and reserved keywords of Rust 2024, plus the weak keywords that cannot be used as
/// plain identifiers in all positions.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Names that would shadow the prelude or std items that generated code refers to
/// unqualified inside derives; types with these names get a trailing `_`.
const RESERVED_TYPE_NAMES: &[&str] = &[
    "Option", "Result", "Some", "None", "Ok", "Err", "Box", "Vec", "String",
];

fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// Splits `name` into words for case conversion: non-identifier characters separate words,
/// and an upper-case run followed by a lone `s` (an acronym's plural) keeps the `s`.
fn prepare(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len());
    for (i, &c) in chars.iter().enumerate() {
        if c.is_alphanumeric() {
            let acronym_plural = c == 's'
                && i >= 2
                && chars[i - 1].is_uppercase()
                && chars[i - 2].is_uppercase()
                && chars.get(i + 1).is_none_or(|n| !n.is_lowercase());
            out.push(if acronym_plural { 'S' } else { c });
        } else {
            out.push(' ');
        }
    }
    out
}

/// Restricts to characters valid in identifiers: heck keeps non-ASCII letters, which Rust
/// accepts in identifiers but which are hard to type; they are transliterated away.
fn ascii_only(name: String) -> String {
    if name.is_ascii() {
        name
    } else {
        name.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    }
}

/// The snake-case form used for fields and modules.
pub fn snake_name(json_name: &str) -> String {
    let mut name = ascii_only(prepare(json_name).to_snake_case());
    name = name.trim_matches('_').to_owned();
    if name.is_empty() {
        name.push_str("value");
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    if is_keyword(&name) {
        name.push('_');
    }
    name
}

/// The field name for a JSON property.
pub fn field_name(json_name: &str) -> String {
    snake_name(json_name)
}

/// The module name for one segment of a schema's package (`coordination`, `v1`, `kube-aggregator`).
pub fn module_name(segment: &str) -> String {
    snake_name(segment)
}

/// The type name for a schema's last name segment. Kubernetes names are already
/// `UpperCamelCase` with acronyms kept (`APIService`, `CSIDriver`); they are kept as they
/// are when valid, so users find the names they know from the API reference.
pub fn type_name(name: &str) -> String {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric());
    let mut out = if valid {
        name.to_owned()
    } else {
        ascii_only(prepare(name).to_upper_camel_case())
    };
    if out.is_empty() {
        out.push_str("Unnamed");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'T');
    }
    if is_keyword(&out) || RESERVED_TYPE_NAMES.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// The name of an anonymous type nested in `parent` under the property `json_name`.
pub fn nested_type_name(parent: &str, json_name: &str) -> String {
    let suffix = ascii_only(prepare(json_name).to_upper_camel_case());
    type_name(&format!("{parent}{suffix}"))
}

/// The variant name for a string enum value (`Always`, `""` → `Empty`, `1.0` → `V1_0`).
pub fn variant_name(value: &str) -> String {
    if value.is_empty() {
        return "Empty".to_owned();
    }
    // Keep a separator between digits that would otherwise run together ("1.0" vs "10").
    let mut words: Vec<String> = Vec::new();
    for word in prepare(value).split(' ').filter(|w| !w.is_empty()) {
        let camel = ascii_only(word.to_upper_camel_case());
        if camel.is_empty() {
            continue;
        }
        match words.last_mut() {
            Some(last)
                if last.ends_with(|c: char| c.is_ascii_digit())
                    && camel.starts_with(|c: char| c.is_ascii_digit()) =>
            {
                last.push('_');
                last.push_str(&camel);
            }
            _ => words.push(camel),
        }
    }
    let mut out = words.concat();
    if out.is_empty() {
        out.push_str("Symbol");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    if is_keyword(&out) || out == "Other" {
        // `Other` is the fallback variant that keeps unknown values.
        out.push('_');
    }
    out
}

/// Hands out unique names within one scope (a struct's fields, an enum's variants, a
/// module's types or files). The first claimant of a name gets it as is; later ones get
/// `2`, `3`, … appended (after `_` for snake-case names). Callers claim in a stable order
/// (sorted input), so the result is deterministic.
#[derive(Debug, Default)]
pub struct Namespace {
    taken: BTreeSet<String>,
}

impl Namespace {
    /// Reserves `name` without checking; for names the scope already has.
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_owned());
    }

    /// Claims `name`, or the first free suffixed form of it.
    pub fn claim(&mut self, name: &str) -> String {
        if self.taken.insert(name.to_owned()) {
            return name.to_owned();
        }
        let separator = if name.contains(|c: char| c.is_ascii_uppercase()) {
            ""
        } else {
            "_"
        };
        let base = name.trim_end_matches('_');
        (2..)
            .map(|n| format!("{base}{separator}{n}"))
            .find(|candidate| self.taken.insert(candidate.clone()))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names() {
        let cases = [
            ("apiVersion", "api_version"),
            ("type", "type_"),
            ("continue", "continue_"),
            ("$ref", "ref_"),
            ("$schema", "schema"),
            ("x-kubernetes-list-type", "x_kubernetes_list_type"),
            ("podIPs", "pod_ips"),
            ("externalIPs", "external_ips"),
            ("clusterIPs", "cluster_ips"),
            ("hostIPC", "host_ipc"),
            (
                "targetCPUUtilizationPercentage",
                "target_cpu_utilization_percentage",
            ),
            ("2fa", "_2fa"),
            ("self", "self_"),
            ("-", "value"),
            ("names", "names"),
            ("ipFamilyPolicy", "ip_family_policy"),
        ];
        for (json, rust) in cases {
            assert_eq!(field_name(json), rust, "field name of {json:?}");
        }
    }

    #[test]
    fn type_names() {
        assert_eq!(type_name("APIService"), "APIService");
        assert_eq!(type_name("Pod"), "Pod");
        assert_eq!(type_name("pod-spec"), "PodSpec");
        assert_eq!(type_name("3d"), "T3d");
        assert_eq!(type_name("Option"), "Option_");
        assert_eq!(
            nested_type_name("TagReferencePolicy", "type"),
            "TagReferencePolicyType"
        );
        assert_eq!(
            nested_type_name("Spec", "x-kubernetes-foo"),
            "SpecXKubernetesFoo"
        );
    }

    #[test]
    fn variant_names() {
        assert_eq!(variant_name("Always"), "Always");
        assert_eq!(variant_name(""), "Empty");
        assert_eq!(variant_name("1.0"), "V1_0");
        assert_eq!(variant_name("10"), "V10");
        assert_eq!(variant_name("IfNotPresent"), "IfNotPresent");
        assert_eq!(variant_name("application/json"), "ApplicationJson");
        assert_eq!(variant_name("Other"), "Other_");
        assert_eq!(variant_name("Self"), "Self_");
        assert_eq!(variant_name("*"), "Symbol");
    }

    #[test]
    fn namespace_disambiguates_in_claim_order() {
        let mut ns = Namespace::default();
        assert_eq!(ns.claim("foo_bar"), "foo_bar");
        assert_eq!(ns.claim("foo_bar"), "foo_bar_2");
        assert_eq!(ns.claim("foo_bar"), "foo_bar_3");
        assert_eq!(ns.claim("Pod"), "Pod");
        assert_eq!(ns.claim("Pod"), "Pod2");
        assert_eq!(ns.claim("type_"), "type_");
        assert_eq!(ns.claim("type_"), "type_2");
    }
}
