//! `kubeforge routes`: the route table of any input, read from the model (nothing is
//! generated or built), for review and diffs. `cargo xtask routes` prints `schemas/`'s.
//!
//! The table fits in 100 columns: routes are grouped by group-version (whose path prefix is
//! printed once) and resource, and each line holds the method, the path below the prefix and
//! the action. What does not fit that (operation ids, query parameters, bodies, responses) is
//! in `--json`, one object per route.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::model::operations::Operation;
use crate::model::{ApiSet, Scope};
use crate::{Config, Error};

/// The widest line the table prints.
pub const WIDTH: usize = 100;

/// The route table of `config`'s inputs: one JSON object per line with `json`, the table
/// otherwise.
pub fn routes(config: &Config, json: bool) -> Result<String, Error> {
    let api = config.api()?;
    if json {
        let mut out = String::new();
        for op in &api.operations {
            out.push_str(&entry(&api, op).to_string());
            out.push('\n');
        }
        Ok(out)
    } else {
        Ok(table(&api))
    }
}

/// One route as JSON.
fn entry(api: &ApiSet, op: &Operation) -> Value {
    let resource = op.resource.as_ref();
    json!({
        "method": op.method.as_str(),
        "path": op.path.text,
        "operation": op.id,
        "action": op.action.as_str(),
        "group": resource.map(|r| r.gvk.group.as_str()),
        "version": resource.map(|r| r.gvk.version.as_str()),
        "kind": resource.map(|r| r.gvk.kind.as_str()),
        "plural": resource.map(|r| r.plural.as_str()),
        "subresource": resource.and_then(|r| r.subresource.as_deref()),
        "scope": resource.map(|r| match r.scope {
            Scope::Namespaced => "Namespaced",
            Scope::Cluster => "Cluster",
        }),
        "path_params": op.path_params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        "query": op.query_params.iter().map(|q| q.name.as_str()).collect::<Vec<_>>(),
        "body": op.body.as_ref().map(|b| json!({
            "type": api.shape_text(&b.shape),
            "content_types": b.content_types,
            "required": b.required,
        })),
        "responses": op.responses.iter().map(|r| json!({
            "status": r.status,
            "description": r.description,
            "type": r.body.type_text(api),
        })).collect::<Vec<_>>(),
        "deprecated": op.deprecated,
        "function": op.names.function,
        "watch_function": op.watch.as_ref().map(|w| w.function.as_str()),
    })
}

/// The heading a route is listed under: its group-version and path prefix, or none.
fn group_version(op: &Operation) -> Option<(String, String)> {
    let gvk = &op.resource.as_ref()?.gvk;
    let prefix = if gvk.group.is_empty() {
        format!("/api/{}", gvk.version)
    } else {
        format!("/apis/{}/{}", gvk.group, gvk.version)
    };
    op.path
        .text
        .starts_with(&format!("{prefix}/"))
        .then(|| (gvk.api_version(), prefix))
}

/// A group-version's heading (its apiVersion and path prefix; none for other operations) and
/// its routes.
type Section<'a> = (Option<(String, String)>, Vec<&'a Operation>);

/// One table line: method, path and action in columns, the action on a line of its own
/// (indented) when the path is too long for the width.
fn line(out: &mut String, method: &str, path: &str, action: &str, path_width: usize) {
    let row = format!("    {method:<7} {path:<path_width$}  {action}");
    if row.trim_end().chars().count() <= WIDTH {
        out.push_str(row.trim_end());
        out.push('\n');
    } else {
        let _ = writeln!(out, "    {method:<7} {path}");
        let _ = writeln!(out, "{:>WIDTH$}", action);
    }
}

/// The table for people (see the module docs).
fn table(api: &ApiSet) -> String {
    let mut out = String::new();
    let mut heading: Option<(String, String)> = None;
    let mut resource_heading = String::new();
    let mut other: Vec<&Operation> = Vec::new();
    let mut sections: Vec<Section<'_>> = Vec::new();
    for op in &api.operations {
        match group_version(op) {
            Some(gv) => {
                if heading.as_ref() != Some(&gv) {
                    heading = Some(gv.clone());
                    sections.push((Some(gv), Vec::new()));
                }
                if let Some((_, ops)) = sections.last_mut() {
                    ops.push(op);
                }
            }
            None => other.push(op),
        }
    }
    if !other.is_empty() {
        sections.push((None, other));
    }
    let action = |op: &Operation| {
        let mut action = op.action.as_str().to_owned();
        if op.deprecated {
            action.push('*');
        }
        action
    };
    for (gv, ops) in &sections {
        let prefix_len = gv.as_ref().map_or(0, |(_, prefix)| prefix.len());
        let path_of = |op: &Operation| op.path.text[prefix_len..].to_owned();
        let action_width = ops.iter().map(|op| action(op).len()).max().unwrap_or(0);
        let longest = ops
            .iter()
            .map(|op| path_of(op).chars().count())
            .max()
            .unwrap_or(0);
        // Align the actions where that fits the width; longer paths wrap.
        let path_width = longest.min(WIDTH.saturating_sub(4 + 8 + 2 + action_width));
        if !out.is_empty() {
            out.push('\n');
        }
        match gv {
            Some((api_version, prefix)) => {
                let _ = writeln!(out, "{api_version}  {prefix}");
            }
            None => out.push_str("other operations\n"),
        }
        resource_heading.clear();
        for op in ops {
            let this = op.resource.as_ref().map_or_else(String::new, |r| {
                let scope = match r.scope {
                    Scope::Namespaced => "namespaced",
                    Scope::Cluster => "cluster",
                };
                format!("  {} ({}, {scope})", r.gvk.kind, r.plural)
            });
            if this != resource_heading && !this.is_empty() {
                out.push_str(&this);
                out.push('\n');
                resource_heading = this;
            }
            line(
                &mut out,
                op.method.as_str(),
                &path_of(op),
                &action(op),
                path_width,
            );
        }
    }
    let paths: BTreeSet<&str> = api
        .operations
        .iter()
        .map(|op| op.path.text.as_str())
        .collect();
    let _ = writeln!(
        out,
        "\n{} operations on {} paths (* deprecated; --json for ids, parameters, bodies)",
        api.operations.len(),
        paths.len()
    );
    out
}
