//! The one pattern language that names generated types, for every option that names some:
//! selection (`Config::select`, `--select`), extern types (`Config::extern_type`,
//! `--extern`), attributes and derives (`Config::type_attribute`, `Config::field_attribute`,
//! `Config::derive`, `--type-attribute`, `--derive`). Modelled on prost-build's `PathMap`:
//! one syntax, one matching function ([`Pattern::matches`]), and when several patterns name
//! one type for an option that takes one value (an extern path), the most specific wins
//! ([`Pattern::specificity`]).
//!
//! | pattern | names |
//! |---|---|
//! | `*` | every type |
//! | `io.k8s.api.core.v1.Pod` | the type made from that schema; a nested anonymous type by its parent's schema name and property path (`io.k8s.api.core.v1.PodSpec.restartPolicy`) |
//! | `io.k8s.api.core.v1.*` | every schema directly in the package (not sub-packages, not nested types: one more dotted segment) |
//! | `io.k8s.api.core.**` | everything below the package: sub-packages and nested types too |
//! | `api::core::v1::Pod` | the type with that Rust path below the generated root |
//! | `api::core::v1::*`, `api::core::**` | the types directly in that module; in it and below |
//! | `Pod` | every type of that Rust name, in any module (kopium's `--derive NAME=TRAIT`) |
//! | `kind=Pod`, `group=apps`, `group-version=apps/v1` | the kinds that `x-kubernetes-group-version-kind` declares so (`core` or `""` is the core group; `gv=` for short) |
//! | `schema=NAME` | the same as `NAME`, spelled out |
//! | `@struct`, `@enum`, `@enum:simple` | every struct; every enum; every string enum (kopium's forms; plurals accepted) |
//!
//! A pattern with `::` is a Rust path, one with `.` a schema name, a `*` only ends one. A
//! struct field (`Config::field_attribute`) is named by its JSON name, its Rust name or `*`.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use crate::diagnostics::{Diagnostic, ErrorKind, Origin};

/// A pattern naming generated types; see the guide's `docs/src/reference/patterns.md` for the syntax. Parse one
/// with [`str::parse`]; [`fmt::Display`] writes it back in the same syntax.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pattern {
    /// `*`: every type.
    All,
    /// `@struct`: every struct.
    Structs,
    /// `@enum` (every enum), `@enum:simple` (only string enums).
    Enums {
        /// Only string enums, not unions of JSON types.
        simple: bool,
    },
    /// `group=G`: every kind of an API group (`""` for the core group).
    Group(String),
    /// `group-version=G/V`: every kind of one group-version.
    GroupVersion {
        /// The group, `""` for core.
        group: String,
        /// The version.
        version: String,
    },
    /// `kind=K`: every kind with this name, in any group.
    Kind(String),
    /// `io.k8s.api.core.v1.Pod` or `schema=…`: one schema by its full name.
    Schema(String),
    /// `PACKAGE.*` (directly in it) or `PACKAGE.**` (below it): schemas by package.
    SchemaPackage {
        /// The dotted package, without the `.*`.
        package: String,
        /// Whether sub-packages and nested types match too (`**`).
        deep: bool,
    },
    /// `a::b::Type`: one type by its Rust path below the generated root.
    Path(Vec<String>),
    /// `a::b::*` (directly in it) or `a::b::**` (in it and below): types by Rust module.
    Module {
        /// The module path.
        module: Vec<String>,
        /// Whether child modules match too (`**`).
        deep: bool,
    },
    /// `Type`: every type of this Rust name, in any module.
    Name(String),
}

/// What sort of item a type becomes, for `@struct` and `@enum`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    /// A struct.
    Struct,
    /// A string enum.
    Enum,
    /// An enum of JSON types.
    Union,
    /// An alias, extern type or watch event.
    Other,
}

/// What a pattern is matched against: one type as the option sees it.
#[derive(Clone, Debug)]
pub(crate) struct Target<'a> {
    /// The schema name (a nested type's: its parent's plus the property path).
    pub schema: &'a str,
    /// The Rust module path below the generated root.
    pub module: &'a [String],
    /// The Rust type name.
    pub name: &'a str,
    /// The sort of item, when known (selection runs before the model knows it).
    pub item: Option<Item>,
    /// The group-version-kinds the schema declares.
    pub gvks: Vec<(&'a str, &'a str, &'a str)>,
}

fn core(group: &str) -> String {
    if group == "core" {
        String::new()
    } else {
        group.to_owned()
    }
}

fn shown_group(group: &str) -> &str {
    if group.is_empty() { "core" } else { group }
}

const SYNTAX: &str = "`*`, a schema name (`io.k8s.api.core.v1.Pod`) or package (`io.k8s.api.core.v1.*`, `io.k8s.api.**`), a Rust path (`api::core::v1::Pod`) or module (`api::core::v1::*`, `api::**`), a type name (`Pod`), `kind=K`, `group=G`, `group-version=G/V`, `@struct`, `@enum` or `@enum:simple`";

impl FromStr for Pattern {
    type Err = String;

    fn from_str(text: &str) -> Result<Pattern, String> {
        let bad = |why: &str| {
            Err(format!(
                "expected a pattern ({SYNTAX}), found {text:?}: {why}"
            ))
        };
        if text == "*" {
            return Ok(Pattern::All);
        }
        if text.is_empty() || text.chars().any(char::is_whitespace) {
            return bad("patterns are not empty and have no spaces");
        }
        if let Some(class) = text.strip_prefix('@') {
            return match class {
                "struct" | "structs" => Ok(Pattern::Structs),
                "enum" | "enums" => Ok(Pattern::Enums { simple: false }),
                "enum:simple" | "enums:simple" => Ok(Pattern::Enums { simple: true }),
                _ => bad("the `@` forms are `@struct`, `@enum` and `@enum:simple`"),
            };
        }
        if let Some((key, value)) = text.split_once('=') {
            if value.is_empty() || value.contains('=') {
                return bad("one `KEY=VALUE`");
            }
            return match key {
                "group" => Ok(Pattern::Group(core(value))),
                "group-version" | "gv" => {
                    let (group, version) = kubeforge_runtime::group_version(value);
                    Ok(Pattern::GroupVersion {
                        group: core(group),
                        version: version.to_owned(),
                    })
                }
                "kind" => Ok(Pattern::Kind(value.to_owned())),
                "schema" => Ok(Pattern::Schema(value.to_owned())),
                _ => bad("the keys are `group`, `group-version`, `kind` and `schema`"),
            };
        }
        let (separator, rust) = if text.contains("::") {
            ("::", true)
        } else {
            (".", false)
        };
        let mut segments: Vec<&str> = text.split(separator).collect();
        let last = *segments.last().unwrap_or(&"");
        let deep = match last {
            "*" | "**" if segments.len() > 1 => {
                segments.pop();
                Some(last == "**")
            }
            _ => None,
        };
        if segments.iter().any(|s| s.is_empty() || s.contains('*')) {
            return bad("a `*` or `**` only as the last segment, after a package or module");
        }
        if rust && segments.iter().any(|s| s.contains(['.', ':'])) {
            return bad("a Rust path is `::`-separated identifiers");
        }
        let owned = || segments.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        Ok(match (rust, deep) {
            (true, Some(deep)) => Pattern::Module {
                module: owned(),
                deep,
            },
            (true, None) => Pattern::Path(owned()),
            (false, Some(deep)) => Pattern::SchemaPackage {
                package: segments.join("."),
                deep,
            },
            (false, None) if segments.len() > 1 => Pattern::Schema(text.to_owned()),
            (false, None) => Pattern::Name(text.to_owned()),
        })
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let star = |deep: bool| if deep { "**" } else { "*" };
        match self {
            Pattern::All => write!(f, "*"),
            Pattern::Structs => write!(f, "@struct"),
            Pattern::Enums { simple: false } => write!(f, "@enum"),
            Pattern::Enums { simple: true } => write!(f, "@enum:simple"),
            Pattern::Group(group) => write!(f, "group={}", shown_group(group)),
            Pattern::GroupVersion { group, version } => {
                write!(f, "group-version={}/{version}", shown_group(group))
            }
            Pattern::Kind(kind) => write!(f, "kind={kind}"),
            Pattern::Schema(name) if name.contains('.') => write!(f, "{name}"),
            Pattern::Schema(name) => write!(f, "schema={name}"),
            Pattern::SchemaPackage { package, deep } => write!(f, "{package}.{}", star(*deep)),
            Pattern::Path(path) => write!(f, "{}", path.join("::")),
            Pattern::Module { module, deep } => write!(f, "{}::{}", module.join("::"), star(*deep)),
            Pattern::Name(name) => write!(f, "{name}"),
        }
    }
}

impl Pattern {
    /// Splits an option's `PATTERN=VALUE` text (`--derive`, `--extern`, `--type-attribute`)
    /// into the pattern and the value: at the first `=`, or at the second for the
    /// `KEY=VALUE` patterns (`kind=Widget=Hash`). Attributes may contain `=`; patterns have
    /// at most one.
    pub fn split_value(text: &str) -> Option<(&str, &str)> {
        let keyed = ["group=", "group-version=", "gv=", "kind=", "schema="]
            .iter()
            .any(|key| text.starts_with(key));
        let skip = if keyed { text.find('=')? + 1 } else { 0 };
        let at = skip + text[skip..].find('=')?;
        let (pattern, value) = (&text[..at], &text[at + 1..]);
        (!pattern.is_empty() && !value.is_empty()).then_some((pattern, value))
    }

    /// Whether the pattern names `target` (the one matching function of every option).
    pub(crate) fn matches(&self, target: &Target<'_>) -> bool {
        let below = |package: &str| {
            target
                .schema
                .strip_prefix(package)
                .and_then(|rest| rest.strip_prefix('.'))
        };
        match self {
            Pattern::All => true,
            Pattern::Structs => target.item == Some(Item::Struct),
            Pattern::Enums { simple } => match target.item {
                Some(Item::Enum) => true,
                Some(Item::Union) => !simple,
                _ => false,
            },
            Pattern::Group(group) => target.gvks.iter().any(|(g, _, _)| g == group),
            Pattern::GroupVersion { group, version } => target
                .gvks
                .iter()
                .any(|(g, v, _)| g == group && v == version),
            Pattern::Kind(kind) => target.gvks.iter().any(|(_, _, k)| k == kind),
            Pattern::Schema(name) => target.schema == name,
            Pattern::SchemaPackage { package, deep } => {
                below(package).is_some_and(|rest| *deep || !rest.contains('.'))
            }
            Pattern::Path(path) => {
                path.len() == target.module.len() + 1
                    && path[..target.module.len()] == *target.module
                    && path[target.module.len()] == target.name
            }
            Pattern::Module { module, deep } => {
                if *deep {
                    target.module.starts_with(module)
                } else {
                    target.module == module.as_slice()
                }
            }
            Pattern::Name(name) => target.name == name || target.schema == name,
        }
    }

    /// How specific the pattern is, higher first: where several patterns of one option
    /// name a type and only one can apply (extern paths), the most specific wins — an exact
    /// schema or path, then a type or kind name, then packages and modules (longer first,
    /// a shallow one before a deep one), group-versions and groups, item sorts, `*`.
    pub(crate) fn specificity(&self) -> (u8, usize, bool) {
        match self {
            Pattern::Schema(_) | Pattern::Path(_) => (6, 0, false),
            Pattern::Name(_) | Pattern::Kind(_) => (5, 0, false),
            Pattern::SchemaPackage { package, deep } => (4, package.split('.').count(), !deep),
            Pattern::Module { module, deep } => (4, module.len(), !deep),
            Pattern::GroupVersion { .. } => (3, 0, false),
            Pattern::Group(_) => (2, 0, false),
            Pattern::Structs | Pattern::Enums { .. } => (1, 0, false),
            Pattern::All => (0, 0, false),
        }
    }

    /// Whether the pattern can name several types of different names, so that an extern
    /// path for it must end in `::*` (exact names, kinds and Rust paths name one).
    pub(crate) fn is_wildcard(&self) -> bool {
        !matches!(
            self,
            Pattern::Schema(_) | Pattern::Path(_) | Pattern::Name(_) | Pattern::Kind(_)
        )
    }

    /// Whether the pattern needs to know the sort of item (`@struct`, `@enum`).
    pub(crate) fn needs_item(&self) -> bool {
        matches!(self, Pattern::Structs | Pattern::Enums { .. })
    }

    /// What the pattern compares, in words, and the values of that sort the targets have
    /// (to suggest near matches): `("schema", {…})`, `("kind", {…})`, …
    fn sort_and_values(&self, targets: &[Target<'_>]) -> (&'static str, BTreeSet<String>) {
        let gvks = || targets.iter().flat_map(|t| t.gvks.iter().copied());
        let modules = |deep: bool| {
            let mut set = BTreeSet::new();
            for t in targets {
                let depth = if deep { 1 } else { t.module.len() };
                for end in depth..=t.module.len() {
                    set.insert(t.module[..end].join("::"));
                }
            }
            set
        };
        match self {
            Pattern::All | Pattern::Structs | Pattern::Enums { .. } => ("type", BTreeSet::new()),
            Pattern::Group(_) => (
                "group",
                gvks().map(|(g, _, _)| shown_group(g).to_owned()).collect(),
            ),
            Pattern::GroupVersion { .. } => (
                "group-version",
                gvks()
                    .map(|(g, v, _)| format!("{}/{v}", shown_group(g)))
                    .collect(),
            ),
            Pattern::Kind(_) => ("kind", gvks().map(|(_, _, k)| k.to_owned()).collect()),
            Pattern::Schema(_) => (
                "schema",
                targets.iter().map(|t| t.schema.to_owned()).collect(),
            ),
            Pattern::SchemaPackage { deep, .. } => (
                "package",
                targets
                    .iter()
                    .flat_map(|t| {
                        let segments: Vec<&str> = t.schema.split('.').collect();
                        let from = if *deep { 1 } else { segments.len() - 1 };
                        (from..segments.len())
                            .map(move |end| segments[..end].join("."))
                            .collect::<Vec<_>>()
                    })
                    .collect(),
            ),
            Pattern::Path(_) => (
                "Rust path",
                targets
                    .iter()
                    .map(|t| {
                        let mut path = t.module.to_vec();
                        path.push(t.name.to_owned());
                        path.join("::")
                    })
                    .collect(),
            ),
            Pattern::Module { deep, .. } => ("module", modules(*deep)),
            Pattern::Name(_) => (
                "type name",
                targets.iter().map(|t| t.name.to_owned()).collect(),
            ),
        }
    }

    /// The compared value itself (what near matches are measured against).
    fn wanted(&self) -> String {
        match self {
            Pattern::Group(group) => shown_group(group).to_owned(),
            Pattern::GroupVersion { group, version } => format!("{}/{version}", shown_group(group)),
            Pattern::Kind(value) | Pattern::Schema(value) | Pattern::Name(value) => value.clone(),
            Pattern::SchemaPackage { package, .. } => package.clone(),
            Pattern::Path(path) => path.join("::"),
            Pattern::Module { module, .. } => module.join("::"),
            Pattern::All | Pattern::Structs | Pattern::Enums { .. } => self.to_string(),
        }
    }

    /// This pattern with its compared value replaced by `value` (a suggestion).
    fn with_value(&self, value: &str) -> String {
        let star = |deep: bool| if deep { "**" } else { "*" };
        match self {
            Pattern::Group(_) => format!("group={value}"),
            Pattern::GroupVersion { .. } => format!("group-version={value}"),
            Pattern::Kind(_) => format!("kind={value}"),
            Pattern::SchemaPackage { deep, .. } => format!("{value}.{}", star(*deep)),
            Pattern::Module { deep, .. } => format!("{value}::{}", star(*deep)),
            _ => value.to_owned(),
        }
    }

    /// The error for a pattern that names none of `targets`: what there is of its sort,
    /// the near matches first (a different case, then small edits, then containment).
    /// `option` names the option (`--select …`, `type_attribute`), `what` what it wanted.
    pub(crate) fn miss(&self, option: &str, what: &str, targets: &[Target<'_>]) -> Diagnostic {
        let (absent, hint) = self.absent(targets);
        let mut diagnostic = Diagnostic::new(
            ErrorKind::EmptySelection,
            &Origin::root(Path::new(option)),
            format!("expected the pattern `{self}` to name at least one {what}, but {absent}"),
        );
        if let Some(hint) = hint {
            diagnostic = diagnostic.with_hint(hint);
        }
        diagnostic
    }

    /// Why the pattern names none of `targets`, in words (`the inputs have no kind `W`;
    /// did you mean `kind=w`?`), and a hint listing what there is of its sort, near matches
    /// first (a different case, then small edits, then containment).
    pub(crate) fn absent(&self, targets: &[Target<'_>]) -> (String, Option<String>) {
        let (sort, there) = self.sort_and_values(targets);
        if self.needs_item() || matches!(self, Pattern::All) {
            return ("there is none".to_owned(), None);
        }
        let wanted = self.wanted();
        let near = near_matches(&wanted, &there);
        let mut absent = format!("the inputs have no {sort} `{wanted}`");
        if let Some(best) = near.first() {
            absent.push_str(&format!("; did you mean `{}`?", self.with_value(best)));
        }
        let hint = if there.is_empty() {
            matches!(sort, "group" | "group-version" | "kind").then(|| format!(
                "the inputs declare no {sort} at all (kinds, groups and versions come from `x-kubernetes-group-version-kind`)"
            ))
        } else {
            const SHOWN: usize = 12;
            let mut listed: Vec<&String> = near.iter().collect();
            listed.extend(there.iter().filter(|t| !near.contains(t)));
            let mut list = listed
                .iter()
                .take(SHOWN)
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ");
            if there.len() > SHOWN {
                list.push_str(&format!(" and {} more", there.len() - SHOWN));
            }
            let plural = if there.len() == 1 { "" } else { "s" };
            Some(format!(
                "the inputs have {} {sort}{plural}: {list}",
                there.len()
            ))
        };
        (absent, hint)
    }
}

/// The names in `there` close to `wanted`, best first: equal but for case, then within a
/// few edits, then containing it or contained in it (case ignored).
fn near_matches(wanted: &str, there: &BTreeSet<String>) -> Vec<String> {
    let lower = wanted.to_lowercase();
    let mut scored: Vec<(usize, &String)> = there
        .iter()
        .filter_map(|t| {
            let t_lower = t.to_lowercase();
            let score = if t_lower == lower {
                0
            } else {
                let distance = edit_distance(&lower, &t_lower);
                if distance <= (lower.chars().count() / 3).max(1) {
                    distance
                } else if t_lower.contains(&lower) || lower.contains(&t_lower) {
                    100 + t.len().abs_diff(wanted.len())
                } else {
                    return None;
                }
            };
            Some((score, t))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(5).map(|(_, t)| t.clone()).collect()
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Types of every sort: named and nested, in a package and its sub-package, with and
    /// without a kind.
    fn targets() -> Vec<(Vec<String>, Target<'static>)> {
        type Row = (
            &'static str,
            &'static [&'static str],
            &'static str,
            Item,
            &'static [(&'static str, &'static str, &'static str)],
        );
        let modules: &[Row] = &[
            (
                "io.k8s.api.core.v1.Pod",
                &["api", "core", "v1"],
                "Pod",
                Item::Struct,
                &[("", "v1", "Pod")],
            ),
            (
                "io.k8s.api.core.v1.PodSpec",
                &["api", "core", "v1"],
                "PodSpec",
                Item::Struct,
                &[],
            ),
            (
                "io.k8s.api.core.v1.PodSpec.restartPolicy",
                &["api", "core", "v1"],
                "PodSpecRestartPolicy",
                Item::Enum,
                &[],
            ),
            (
                "io.k8s.api.apps.v1.Deployment",
                &["api", "apps", "v1"],
                "Deployment",
                Item::Struct,
                &[("apps", "v1", "Deployment")],
            ),
            (
                "io.k8s.api.apps.v1beta1.Deployment",
                &["api", "apps", "v1beta1"],
                "Deployment",
                Item::Struct,
                &[("apps", "v1beta1", "Deployment")],
            ),
            (
                "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
                &["apimachinery", "pkg", "util", "intstr"],
                "IntOrString",
                Item::Other,
                &[],
            ),
            (
                "com.example.v1.Gadget.spec.size",
                &["com", "example", "v1"],
                "GadgetSpecSize",
                Item::Union,
                &[],
            ),
        ];
        modules
            .iter()
            .map(|(schema, module, name, item, gvks)| {
                let module: Vec<String> = module.iter().map(|s| (*s).to_owned()).collect();
                let leaked: &'static [String] = Box::leak(module.clone().into_boxed_slice());
                (
                    module,
                    Target {
                        schema,
                        module: leaked,
                        name,
                        item: Some(*item),
                        gvks: gvks.to_vec(),
                    },
                )
            })
            .collect()
    }

    fn named(pattern: &str) -> Vec<&'static str> {
        let pattern: Pattern = pattern.parse().unwrap_or_else(|e| panic!("{e}"));
        targets()
            .into_iter()
            .filter(|(_, t)| pattern.matches(t))
            .map(|(_, t)| t.schema)
            .collect()
    }

    const POD: &str = "io.k8s.api.core.v1.Pod";
    const POD_SPEC: &str = "io.k8s.api.core.v1.PodSpec";
    const RESTART: &str = "io.k8s.api.core.v1.PodSpec.restartPolicy";
    const DEPLOYMENT: &str = "io.k8s.api.apps.v1.Deployment";
    const DEPLOYMENT_BETA: &str = "io.k8s.api.apps.v1beta1.Deployment";
    const INT_OR_STRING: &str = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
    const SIZE: &str = "com.example.v1.Gadget.spec.size";

    #[test]
    fn every_form_names_exactly_its_types() {
        let all = vec![
            POD,
            POD_SPEC,
            RESTART,
            DEPLOYMENT,
            DEPLOYMENT_BETA,
            INT_OR_STRING,
            SIZE,
        ];
        let cases: Vec<(&str, Vec<&str>)> = vec![
            ("*", all),
            // Exact schema names, nested types by property path.
            (POD, vec![POD]),
            ("schema=io.k8s.api.core.v1.Pod", vec![POD]),
            (RESTART, vec![RESTART]),
            ("io.k8s.api.core.v1.Po", vec![]),
            // `*`: one more segment (no nested types, no sub-packages); `**`: all below.
            ("io.k8s.api.core.v1.*", vec![POD, POD_SPEC]),
            ("io.k8s.api.core.v1.PodSpec.*", vec![RESTART]),
            ("io.k8s.api.core.v1.**", vec![POD, POD_SPEC, RESTART]),
            ("io.k8s.api.*", vec![]),
            (
                "io.k8s.api.**",
                vec![POD, POD_SPEC, RESTART, DEPLOYMENT, DEPLOYMENT_BETA],
            ),
            ("io.k8s.api.co.**", vec![]),
            // Rust paths and modules below the generated root.
            ("api::core::v1::PodSpecRestartPolicy", vec![RESTART]),
            ("api::core::v1::*", vec![POD, POD_SPEC, RESTART]),
            ("api::core::*", vec![]),
            (
                "api::**",
                vec![POD, POD_SPEC, RESTART, DEPLOYMENT, DEPLOYMENT_BETA],
            ),
            ("api::apps::v1::**", vec![DEPLOYMENT]),
            // A type name in any module (kopium's `NAME=TRAIT`).
            ("Deployment", vec![DEPLOYMENT, DEPLOYMENT_BETA]),
            ("GadgetSpecSize", vec![SIZE]),
            ("deployment", vec![]),
            // Kinds, groups and versions.
            ("kind=Deployment", vec![DEPLOYMENT, DEPLOYMENT_BETA]),
            ("group=apps", vec![DEPLOYMENT, DEPLOYMENT_BETA]),
            ("group=core", vec![POD]),
            ("group=", vec![]),
            ("group-version=apps/v1", vec![DEPLOYMENT]),
            ("gv=v1", vec![POD]),
            ("group-version=core/v1", vec![POD]),
            // kopium's sorts of item.
            ("@struct", vec![POD, POD_SPEC, DEPLOYMENT, DEPLOYMENT_BETA]),
            ("@structs", vec![POD, POD_SPEC, DEPLOYMENT, DEPLOYMENT_BETA]),
            ("@enum", vec![RESTART, SIZE]),
            ("@enum:simple", vec![RESTART]),
        ];
        let mut failures = Vec::new();
        for (pattern, expected) in cases {
            if pattern == "group=" {
                assert!(pattern.parse::<Pattern>().is_err());
                continue;
            }
            let got = named(pattern);
            if got != expected {
                failures.push(format!("{pattern}: expected {expected:?}, got {got:?}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn patterns_print_as_parsed_and_bad_ones_say_why() {
        for text in [
            "*",
            "@struct",
            "@enum",
            "@enum:simple",
            "group=apps",
            "group=core",
            "group-version=apps/v1",
            "group-version=core/v1",
            "kind=Pod",
            POD,
            "schema=Pod",
            "io.k8s.api.core.v1.*",
            "io.k8s.**",
            "api::core::v1::Pod",
            "api::core::v1::*",
            "api::**",
            "Pod",
        ] {
            let pattern: Pattern = text.parse().expect(text);
            assert_eq!(
                pattern.to_string().parse::<Pattern>(),
                Ok(pattern.clone()),
                "{text}"
            );
        }
        assert_eq!(
            "gv=v1".parse::<Pattern>().unwrap().to_string(),
            "group-version=core/v1"
        );
        for (bad, why) in [
            ("", "not empty"),
            ("a b", "no spaces"),
            ("@union", "`@struct`, `@enum` and `@enum:simple`"),
            ("color=red", "the keys are"),
            ("kind=a=b", "one `KEY=VALUE`"),
            ("io.k8s.*.v1.Pod", "only as the last segment"),
            ("io.k8s.api.v1.Pod*", "only as the last segment"),
            ("api::core::", "only as the last segment"),
            ("*.Pod", "only as the last segment"),
            ("api::v1.Pod", "`::`-separated"),
        ] {
            let e = bad.parse::<Pattern>().expect_err(bad);
            assert!(
                e.contains(why) && e.contains(&format!("{bad:?}")),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn values_split_after_the_pattern() {
        assert_eq!(Pattern::split_value("Pod=Hash"), Some(("Pod", "Hash")));
        assert_eq!(
            Pattern::split_value("kind=Pod=#[serde(rename_all = \"camelCase\")]"),
            Some(("kind=Pod", "#[serde(rename_all = \"camelCase\")]"))
        );
        assert_eq!(
            Pattern::split_value("@enum:simple=Hash"),
            Some(("@enum:simple", "Hash"))
        );
        assert_eq!(Pattern::split_value("Hash"), None);
        assert_eq!(Pattern::split_value("=Hash"), None);
        assert_eq!(Pattern::split_value("Pod="), None);
        assert_eq!(Pattern::split_value("kind=Pod"), None);
    }

    #[test]
    fn the_most_specific_pattern_wins() {
        let ranked = |texts: &[&str]| {
            let mut patterns: Vec<Pattern> = texts.iter().map(|t| t.parse().unwrap()).collect();
            patterns.sort_by_key(|p| std::cmp::Reverse(p.specificity()));
            patterns.iter().map(ToString::to_string).collect::<Vec<_>>()
        };
        assert_eq!(
            ranked(&[
                "*",
                "io.k8s.**",
                "io.k8s.api.core.v1.**",
                "io.k8s.api.core.v1.*",
                POD,
                "Pod",
                "group=core",
                "@struct"
            ]),
            [
                POD,
                "Pod",
                "io.k8s.api.core.v1.*",
                "io.k8s.api.core.v1.**",
                "io.k8s.**",
                "group=core",
                "@struct",
                "*"
            ]
        );
    }

    #[test]
    fn misses_suggest_near_matches_of_the_same_sort() {
        let owned = targets();
        let targets: Vec<Target<'_>> = owned.iter().map(|(_, t)| t.clone()).collect();
        let absent = |text: &str| text.parse::<Pattern>().unwrap().absent(&targets);
        let (message, hint) = absent("kind=deployment");
        assert_eq!(
            message,
            "the inputs have no kind `deployment`; did you mean `kind=Deployment`?"
        );
        assert_eq!(
            hint.as_deref(),
            Some("the inputs have 2 kinds: `Deployment`, `Pod`")
        );
        let (message, _) = absent("io.k8s.api.core.v2.Pod");
        assert!(
            message.ends_with("did you mean `io.k8s.api.core.v1.Pod`?"),
            "{message}"
        );
        let (message, _) = absent("io.k8s.api.cor.v1.*");
        assert!(
            message
                .contains("no package `io.k8s.api.cor.v1`; did you mean `io.k8s.api.core.v1.*`?"),
            "{message}"
        );
        let (message, _) = absent("api::core::v2::**");
        assert!(
            message.contains("no module `api::core::v2`; did you mean `api::core::v1::**`?"),
            "{message}"
        );
        let (message, _) = absent("api::core::v1::Podd");
        assert!(
            message.contains("did you mean `api::core::v1::Pod`?"),
            "{message}"
        );
        let (message, _) = absent("Deploymnet");
        assert!(
            message.contains("no type name `Deploymnet`; did you mean `Deployment`?"),
            "{message}"
        );
        let (message, _) = absent("group-version=apps/v2");
        assert!(
            message.contains("did you mean `group-version=apps/v1`?"),
            "{message}"
        );
        let (message, hint) = absent("kind=Zebra");
        assert!(!message.contains("did you mean"), "{message}");
        assert!(hint.unwrap().contains("`Deployment`, `Pod`"));
    }
}
