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

/// Appends the schema names `value` references, in document order.
pub(super) fn collect_refs(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                match (key.as_str(), child) {
                    ("$ref", Value::String(target)) => {
                        if let Some(name) = target
                            .strip_prefix("#/components/schemas/")
                            .or_else(|| target.strip_prefix("#/definitions/"))
                        {
                            into.push(name.replace("~1", "/").replace("~0", "~"));
                        }
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
            return Err(Diagnostic::new(
                ErrorKind::EmptySelection,
                &Origin::root(Path::new("<config>")),
                format!("expected the selector `{selector}` to match at least one schema, but it matches none"),
            )
            .with_hint("selectors match x-kubernetes-group-version-kind entries, or exact schema names")
            .into());
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
        notes: raw.notes,
    })
}
