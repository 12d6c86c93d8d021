//! Selecting a subset of the API: the schemas a selector names, their operations, and the
//! transitive closure of everything they reference, so the subset always compiles.

use std::collections::{BTreeSet, VecDeque};
use std::path::Path;

use serde_json::Value;

use super::RawApi;
use crate::diagnostics::{Diagnostic, Error, ErrorKind, Origin};
use crate::ground::ModuleRules;
use crate::ground::naming;
use crate::ground::pattern::{Pattern, Target};

type Gvk = (String, String, String);

fn gvks(value: &Value) -> Vec<Gvk> {
    let list = match value.get("x-kubernetes-group-version-kind") {
        Some(Value::Array(list)) => list.iter().collect(),
        Some(single @ Value::Object(_)) => vec![single],
        _ => Vec::new(),
    };
    list.into_iter()
        .filter_map(super::schema::gvk)
        .map(|gvk| (gvk.group, gvk.version, gvk.kind))
        .collect()
}

/// A named schema as a pattern sees it: its schema name, the module and type name the
/// model will give it (`ModuleRules::place`, `naming::type_name`; a name numbered for a
/// collision is not known yet), and its group-version-kinds. The sort of item is not known
/// before the model, so `@struct` and `@enum` select nothing.
struct Named {
    schema: String,
    module: Vec<String>,
    name: String,
    gvks: Vec<Gvk>,
}

impl Named {
    fn target(&self) -> Target<'_> {
        Target {
            schema: &self.schema,
            module: &self.module,
            name: &self.name,
            item: None,
            gvks: self
                .gvks
                .iter()
                .map(|(g, v, k)| (g.as_str(), v.as_str(), k.as_str()))
                .collect(),
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

/// Keeps what `patterns` name plus their closure. A pattern that matches nothing is an
/// error, so a typo never silently generates an empty crate.
pub(crate) fn select(
    raw: RawApi,
    patterns: &[Pattern],
    rules: &ModuleRules,
) -> Result<RawApi, Error> {
    if patterns.is_empty() {
        return Ok(raw);
    }
    let named: Vec<Named> = raw
        .schemas
        .iter()
        .map(|(name, schema)| {
            let (module, base) = rules.place(name);
            Named {
                schema: name.clone(),
                module,
                name: naming::type_name(&base),
                gvks: gvks(&schema.value),
            }
        })
        .collect();
    let targets: Vec<Target<'_>> = named.iter().map(Named::target).collect();
    let mut seeds: Vec<String> = Vec::new();
    let mut selected_gvks: BTreeSet<Gvk> = BTreeSet::new();
    for pattern in patterns {
        let option = format!("--select {pattern}");
        if pattern.needs_item() {
            return Err(Diagnostic::new(
                ErrorKind::EmptySelection,
                &Origin::root(Path::new(&option)),
                format!("expected a selection by name, package, module or kind, found `{pattern}`"),
            )
            .with_hint("which schemas become structs or enums is decided after selection")
            .into());
        }
        let before = seeds.len();
        for (schema, target) in named.iter().zip(&targets) {
            if pattern.matches(target) {
                seeds.push(schema.schema.clone());
                // Selecting a kind by its group, version or kind selects that kind's
                // operations only; any other pattern selects all of the schema's kinds.
                selected_gvks.extend(
                    schema
                        .gvks
                        .iter()
                        .filter(|(g, v, k)| match pattern {
                            Pattern::Group(_) | Pattern::GroupVersion { .. } | Pattern::Kind(_) => {
                                pattern.matches(&Target {
                                    gvks: vec![(g.as_str(), v.as_str(), k.as_str())],
                                    ..target.clone()
                                })
                            }
                            _ => true,
                        })
                        .cloned(),
                );
            }
        }
        if seeds.len() == before {
            return Err(pattern.miss(&option, "schema", &targets).into());
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
        builtin: raw.builtin,
    })
}
