//! The report in words: text for a terminal, Markdown for a pull request, JSON for tools.

use std::fmt::Write as _;

use serde_json::json;

use super::{Change, Effect, Report};

const EFFECTS: [Effect; 3] = [Effect::Breaking, Effect::Additive, Effect::Compatible];

/// What a change kind means, in words.
fn phrase(kind: &str) -> &'static str {
    match kind {
        "type_added" => "new type",
        "type_removed" => "type removed",
        "type_moved" => "type moved",
        "type_renamed" => "type renamed",
        "type_deprecated" | "field_deprecated" | "operation_deprecated" => "deprecated",
        "type_undeprecated" | "field_undeprecated" | "operation_undeprecated" => {
            "no longer deprecated"
        }
        "type_kind_changed" => "kind of type changed",
        "alias_changed" => "alias changed",
        "extern_changed" => "extern path changed",
        "enum_value_added" => "new enum value",
        "enum_value_removed" => "enum value removed",
        "union_variant_added" => "new one-of variant",
        "union_variant_removed" => "one-of variant removed",
        "field_added" => "new optional field",
        "required_field_added" => "new required field (a new builder constructor argument)",
        "field_removed" => "field removed",
        "field_type_changed" => "type changed",
        "field_now_required" => "optional → required",
        "field_now_optional" => "required → optional",
        "field_renamed" => "Rust name changed",
        "default_changed" => "default changed",
        "constructor_changed" => "builder constructor arguments changed",
        "resource_added" => "now a served resource",
        "resource_removed" => "no longer a served resource",
        "scope_changed" => "scope changed",
        "plural_changed" => "plural changed",
        "subresource_added" => "new subresource",
        "subresource_removed" => "subresource removed",
        "operation_added" => "new operation",
        "operation_removed" => "operation removed",
        "operation_renamed" => "function renamed",
        "action_changed" => "action changed",
        "required_parameter_added" => "new required query parameter",
        "parameter_added" => "new query parameter",
        "parameter_removed" => "query parameter removed",
        "parameter_changed" => "query parameter changed",
        "query_struct_changed" => "takes another query struct",
        "query_struct_added" => "takes a query struct now (a new argument)",
        "query_struct_removed" => "no longer takes a query struct",
        "watch_query_changed" => "its watch function takes another query struct",
        "watch_query_added" => "its watch function takes a query struct now (a new argument)",
        "watch_query_removed" => "its watch function no longer takes a query struct",
        "watch_added" => "new watch function",
        "watch_removed" => "watch function removed",
        "query_type_added" => "new query struct",
        "query_type_removed" => "query struct removed",
        "query_field_added" => "new query parameter field",
        "query_field_changed" => "query parameter field's type changed",
        "query_field_removed" => "query parameter field removed",
        "body_changed" => "request body changed",
        "response_changed" => "response changed",
        _ => "changed",
    }
}

/// A change's words after its subject; `code` quotes types and values (Markdown).
fn message(change: &Change, code: bool) -> String {
    let quote = |s: &str| {
        if code { format!("`{s}`") } else { s.to_owned() }
    };
    let mut text = phrase(change.kind).to_owned();
    match (&change.old, &change.new) {
        (Some(old), Some(new)) => {
            let _ = write!(text, ": {} → {}", quote(old), quote(new));
        }
        (Some(old), None) => {
            let _ = write!(text, " (was {})", quote(old));
        }
        (None, Some(new)) => {
            let _ = write!(text, ": {}", quote(new));
        }
        (None, None) => {}
    }
    if let Some(detail) = &change.detail {
        let detail = if code {
            detail.clone()
        } else {
            detail.replace('`', "")
        };
        let _ = write!(text, " ({detail})");
    }
    text
}

/// The subject below its section (`v1::LeaseSpec.holderIdentity` in `api::coordination`).
fn short_subject(change: &Change) -> &str {
    change
        .subject
        .strip_prefix(change.section.as_str())
        .and_then(|rest| rest.strip_prefix("::"))
        .unwrap_or(&change.subject)
}

/// One printed line: a change, or several changes to operations that say the same (a query
/// parameter added to every list, a resource's operations added), with their subjects.
struct Line<'a> {
    effect: Effect,
    subject: String,
    message: String,
    members: Vec<&'a str>,
}

/// Whether a change is to an operation (its subject is `METHOD /path`).
fn on_operation(change: &Change) -> bool {
    change
        .subject
        .split_once(' ')
        .is_some_and(|(method, path)| {
            path.starts_with('/') && method.bytes().all(|b| b.is_ascii_uppercase())
        })
}

/// The lines of one section's changes (sorted by effect), operations' alike changes
/// merged: the same change on several operations, or operations of one resource added or
/// removed together.
fn lines<'a>(changes: &[&'a Change], code: bool) -> Vec<Line<'a>> {
    let mut out: Vec<Line<'a>> = Vec::new();
    let mut groups: Vec<(Effect, String, Vec<&'a Change>)> = Vec::new();
    for &change in changes {
        if !on_operation(change) {
            out.push(Line {
                effect: change.effect,
                subject: quoted(short_subject(change), code),
                message: message(change, code),
                members: Vec::new(),
            });
            continue;
        }
        let key = match change.kind {
            "operation_added" | "operation_removed" => {
                let function = change.new.as_ref().or(change.old.as_ref());
                let owner = function
                    .and_then(|f| f.split_once("::"))
                    .map_or("", |(owner, _)| owner);
                format!("{}\0{owner}", change.kind)
            }
            _ => format!(
                "{}\0{:?}\0{:?}\0{:?}",
                change.kind, change.old, change.new, change.detail
            ),
        };
        match groups
            .iter_mut()
            .find(|(effect, k, _)| *effect == change.effect && *k == key)
        {
            Some((_, _, members)) => members.push(change),
            None => groups.push((change.effect, key, vec![change])),
        }
    }
    for (effect, _, members) in groups {
        let first = members[0];
        if members.len() == 1 {
            out.push(Line {
                effect,
                subject: quoted(&first.subject, code),
                message: message(first, code),
                members: Vec::new(),
            });
            continue;
        }
        let (subject, message) = match first.kind {
            "operation_added" | "operation_removed" => {
                let functions: Vec<&str> = members
                    .iter()
                    .filter_map(|c| c.new.as_deref().or(c.old.as_deref()))
                    .collect();
                let owner = functions
                    .first()
                    .and_then(|f| f.split_once("::"))
                    .map_or("", |(owner, _)| owner);
                let names: Vec<String> = functions
                    .iter()
                    .map(|f| {
                        let name = f.split_once("::").map_or(*f, |(_, name)| name);
                        if code {
                            format!("`{name}`")
                        } else {
                            name.to_owned()
                        }
                    })
                    .collect();
                let verb = if first.kind == "operation_added" {
                    "new operations"
                } else {
                    "operations removed"
                };
                let owner = if code {
                    format!("`{owner}`")
                } else {
                    owner.to_owned()
                };
                (
                    format!("{owner} ({} operations)", members.len()),
                    format!("{verb}: {}", names.join(", ")),
                )
            }
            _ => (
                format!("{} operations", members.len()),
                message(first, code),
            ),
        };
        out.push(Line {
            effect,
            subject,
            message,
            members: members.iter().map(|c| c.subject.as_str()).collect(),
        });
    }
    out.sort_by_key(|line| line.effect);
    out
}

/// `text` in backticks for Markdown.
fn quoted(text: &str, code: bool) -> String {
    if code {
        format!("`{text}`")
    } else {
        text.to_owned()
    }
}

fn totals(report: &Report) -> String {
    let total = report.changes.len();
    format!(
        "{total} change{}: {} breaking, {} additive, {} compatible",
        if total == 1 { "" } else { "s" },
        report.count(Effect::Breaking),
        report.count(Effect::Additive),
        report.count(Effect::Compatible)
    )
}

/// For a terminal: a summary line, then each section with one line per change.
pub fn text(report: &Report) -> String {
    if report.changes.is_empty() {
        return "no API changes\n".to_owned();
    }
    let mut out = format!("{} (semver: {})\n", totals(report), report.bump());
    for (section, changes) in report.sections() {
        let _ = writeln!(out, "\n{section}");
        for line in lines(&changes, false) {
            let _ = writeln!(
                out,
                "  {:<10}  {}: {}",
                line.effect.as_str(),
                line.subject,
                line.message
            );
        }
    }
    out
}

/// For a pull-request description: totals, a table of sections, then each section with its
/// breaking changes first.
pub fn markdown(report: &Report) -> String {
    if report.changes.is_empty() {
        return "### API changes\n\nNone.\n".to_owned();
    }
    let mut out = format!(
        "### API changes\n\n{}: the generated crate needs a **{}** version.\n\n",
        totals(report),
        report.bump()
    );
    out.push_str("| group | breaking | additive | compatible |\n|---|---:|---:|---:|\n");
    let sections = report.sections();
    for (section, changes) in &sections {
        let count = |e: Effect| changes.iter().filter(|c| c.effect == e).count();
        let _ = writeln!(
            out,
            "| `{section}` | {} | {} | {} |",
            count(Effect::Breaking),
            count(Effect::Additive),
            count(Effect::Compatible)
        );
    }
    for (section, changes) in &sections {
        let _ = writeln!(out, "\n#### `{section}`");
        let lines = lines(changes, true);
        for effect in EFFECTS {
            let of: Vec<&Line<'_>> = lines.iter().filter(|l| l.effect == effect).collect();
            if of.is_empty() {
                continue;
            }
            let title = match effect {
                Effect::Breaking => "Breaking",
                Effect::Additive => "Additive",
                Effect::Compatible => "Compatible",
            };
            let _ = writeln!(out, "\n{title}:\n");
            for line in of {
                let _ = writeln!(out, "- {}: {}", line.subject, line.message);
                if !line.members.is_empty() {
                    let _ = writeln!(
                        out,
                        "  <details><summary>operations</summary>\n\n  - `{}`\n\n  </details>",
                        line.members.join("`\n  - `")
                    );
                }
            }
        }
    }
    out
}

/// For tools: one JSON object with the totals, the semver bump and every change.
pub fn json(report: &Report) -> String {
    let value = json!({
        "bump": report.bump(),
        "breaking": report.count(Effect::Breaking),
        "additive": report.count(Effect::Additive),
        "compatible": report.count(Effect::Compatible),
        "changes": report.changes.iter().map(|c| json!({
            "section": c.section,
            "effect": c.effect,
            "kind": c.kind,
            "subject": c.subject,
            "old": c.old,
            "new": c.new,
            "detail": c.detail,
            "message": message(c, false),
        })).collect::<Vec<_>>(),
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}
