//! Selecting a subset of the API: the schemas a selector names, their operations, and the
//! transitive closure of everything they reference, so the subset always compiles.

use std::collections::{BTreeSet, VecDeque};
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde_json::Value;

use super::RawApi;
use crate::diagnostics::{Diagnostic, Error, ErrorKind, Origin};

/// What to generate, when not everything.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Selector {
    /// Every kind of an API group (`""` or `core` for the core group).
    Group(String),
    /// Every kind of one group-version.
    GroupVersion {
        /// The group, `""` for core.
        group: String,
        /// The version.
        version: String,
    },
    /// Every kind with this name, in any group.
    Kind(String),
    /// One schema by its full name.
    Schema(String),
}

impl FromStr for Selector {
    type Err = String;

    /// Parses `group=apps`, `group-version=apps/v1` (`core/v1` or `v1` for core),
    /// `kind=Deployment` or `schema=io.k8s.api.apps.v1.Deployment`.
    fn from_str(text: &str) -> Result<Selector, String> {
        let core = |g: &str| {
            if g == "core" {
                String::new()
            } else {
                g.to_owned()
            }
        };
        let (key, value) = text.split_once('=').ok_or_else(|| {
            format!("expected `group=…`, `group-version=…`, `kind=…` or `schema=…`, found {text:?}")
        })?;
        match key {
            "group" => Ok(Selector::Group(core(value))),
            "group-version" | "gv" => {
                let (group, version) = value.rsplit_once('/').unwrap_or(("", value));
                Ok(Selector::GroupVersion {
                    group: core(group),
                    version: version.to_owned(),
                })
            }
            "kind" => Ok(Selector::Kind(value.to_owned())),
            "schema" => Ok(Selector::Schema(value.to_owned())),
            _ => Err(format!(
                "unknown selector {key:?}: expected group, group-version, kind or schema"
            )),
        }
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selector::Group(group) => write!(f, "group={group}"),
            Selector::GroupVersion { group, version } => {
                write!(f, "group-version={group}/{version}")
            }
            Selector::Kind(kind) => write!(f, "kind={kind}"),
            Selector::Schema(name) => write!(f, "schema={name}"),
        }
    }
}

type Gvk = (String, String, String);

fn gvks(value: &Value) -> Vec<Gvk> {
    let list = match value.get("x-kubernetes-group-version-kind") {
        Some(Value::Array(list)) => list.iter().collect(),
        Some(single @ Value::Object(_)) => vec![single],
        _ => Vec::new(),
    };
    list.into_iter()
        .filter_map(|gvk| {
            let field = |k: &str| gvk.get(k).and_then(Value::as_str).map(str::to_owned);
            Some((field("group")?, field("version")?, field("kind")?))
        })
        .collect()
}

impl Selector {
    fn matches(&self, name: &str, gvks: &[Gvk]) -> bool {
        match self {
            Selector::Schema(schema) => schema == name,
            Selector::Group(group) => gvks.iter().any(|(g, _, _)| g == group),
            Selector::GroupVersion { group, version } => {
                gvks.iter().any(|(g, v, _)| g == group && v == version)
            }
            Selector::Kind(kind) => gvks.iter().any(|(_, _, k)| k == kind),
        }
    }
}

/// The error for a selector that matches nothing: what there is of its sort, and the near
/// matches (a different case first, then small edits and containment).
fn miss(selector: &Selector, raw: &RawApi) -> Diagnostic {
    let mut there: BTreeSet<String> = BTreeSet::new();
    let (sort, wanted) = match selector {
        Selector::Schema(name) => {
            there.extend(raw.schemas.keys().cloned());
            ("schema", name.clone())
        }
        Selector::Group(group) => {
            let core = |g: &str| {
                if g.is_empty() {
                    "core".to_owned()
                } else {
                    g.to_owned()
                }
            };
            there.extend(
                raw.schemas
                    .values()
                    .flat_map(|s| gvks(&s.value))
                    .map(|(g, _, _)| core(&g)),
            );
            ("group", core(group))
        }
        Selector::GroupVersion { group, version } => {
            let gv = |g: &str, v: &str| {
                if g.is_empty() {
                    format!("core/{v}")
                } else {
                    format!("{g}/{v}")
                }
            };
            there.extend(
                raw.schemas
                    .values()
                    .flat_map(|s| gvks(&s.value))
                    .map(|(g, v, _)| gv(&g, &v)),
            );
            ("group-version", gv(group, version))
        }
        Selector::Kind(kind) => {
            there.extend(
                raw.schemas
                    .values()
                    .flat_map(|s| gvks(&s.value))
                    .map(|(_, _, k)| k),
            );
            ("kind", kind.clone())
        }
    };
    let near = near_matches(&wanted, &there);
    let mut message = format!(
        "expected the selector `{selector}` to match at least one schema, but the inputs have no {sort} `{wanted}`"
    );
    if let Some(best) = near.first() {
        message.push_str(&format!("; did you mean `{sort}={best}`?"));
    }
    let hint = if there.is_empty() {
        format!(
            "the inputs declare no {sort} at all (kinds, groups and versions come from `x-kubernetes-group-version-kind`)"
        )
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
        format!("the inputs have {} {sort}{plural}: {list}", there.len())
    };
    Diagnostic::new(
        ErrorKind::EmptySelection,
        &Origin::root(Path::new(&format!("--select {selector}"))),
        message,
    )
    .with_hint(hint)
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

/// Appends the schema names `value` references, in document order.
pub(super) fn collect_refs(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                match (key.as_str(), child) {
                    ("$ref", Value::String(target)) => {
                        into.extend(super::schema_ref_name(target));
                    }
                    _ => collect_refs(child, into),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_refs(item, into)),
        _ => {}
    }
}

/// Keeps what `selectors` name plus their closure. A selector that matches nothing is an
/// error, so a typo never silently generates an empty crate.
pub(crate) fn select(raw: RawApi, selectors: &[Selector]) -> Result<RawApi, Error> {
    if selectors.is_empty() {
        return Ok(raw);
    }
    let mut seeds: Vec<String> = Vec::new();
    let mut selected_gvks: BTreeSet<Gvk> = BTreeSet::new();
    for selector in selectors {
        let before = seeds.len();
        for (name, schema) in &raw.schemas {
            let gvks = gvks(&schema.value);
            if selector.matches(name, &gvks) {
                seeds.push(name.clone());
                selected_gvks.extend(gvks.into_iter().filter(|gvk| match selector {
                    Selector::Schema(_) => true,
                    _ => selector.matches("", std::slice::from_ref(gvk)),
                }));
            }
        }
        if seeds.len() == before {
            return Err(miss(selector, &raw).into());
        }
    }

    let operations: Vec<_> = raw
        .operations
        .into_iter()
        .filter(|op| {
            gvks(&op.value)
                .iter()
                .any(|gvk| selected_gvks.contains(gvk))
        })
        .collect();
    for op in &operations {
        collect_refs(&op.value, &mut seeds);
        op.path_parameters
            .iter()
            .for_each(|p| collect_refs(p, &mut seeds));
    }

    let mut keep: BTreeSet<String> = BTreeSet::new();
    let mut queue: VecDeque<String> = seeds.into();
    while let Some(name) = queue.pop_front() {
        if !keep.insert(name.clone()) {
            continue;
        }
        if let Some(schema) = raw.schemas.get(&name) {
            let mut refs = Vec::new();
            collect_refs(&schema.value, &mut refs);
            queue.extend(refs.into_iter().filter(|r| !keep.contains(r)));
        }
    }
    let schemas = raw
        .schemas
        .into_iter()
        .filter(|(name, _)| keep.contains(name))
        .collect();
    let resources = raw
        .resources
        .into_iter()
        .filter(|r| selected_gvks.contains(&(r.group.clone(), r.version.clone(), r.kind.clone())))
        .collect();
    Ok(RawApi {
        schemas,
        operations,
        resources,
        warnings: raw.warnings,
        notes: raw.notes,
    })
}
