//! A semantic diff of two APIs: what changed between two models ([`crate::view::Model`])
//! as the user of the generated crate sees it, each change with its semver effect.
//!
//! A type either API takes from the companion crate `kubeforge-meta` is compared as its
//! definition there made it (`ApiSet::defined_kind`): the documents' changes show, and each
//! says the type is the companion's.
//!
//! Things are compared by stable identity, never by position: types by schema name (a type
//! removed in one place and added in another with the same name and fields is a move),
//! fields by JSON name, enum values by wire value, operations by method and path template.
//! Rust types are compared as they read in the generated code, so a change of format that
//! changes the Rust mapping (`int32` → `int64`) is a type change and one that does not is
//! nothing.
//!
//! The semver rules (also in the guide, `docs/src/guide/diff.md`):
//!
//! - **breaking**: a removed type, field, enum value, resource, subresource, operation or
//!   parameter; a moved or renamed type or field; a field's Rust type changed, including
//!   required ↔ optional; a new required field or any other change of a builder's
//!   constructor arguments; a new required query parameter; a function that takes another
//!   query struct, or one where it took none or none where it took one (its watch function
//!   alike); a query struct or one of its fields removed or retyped; a changed scope,
//!   plural, body or response type; a new branch of a one-of enum (it has no fallback
//!   variant).
//! - **additive**: a new type, optional field, enum value, resource, subresource, operation,
//!   watch function, optional query parameter, query struct or query struct field. A new enum value is additive because the enums are
//!   forward-compatible: the value already read as `Other("…")`, so a `match` with a `_`
//!   arm keeps compiling (one naming every variant without `_` does not).
//! - **compatible**: nothing a program names changed: a default a builder starts from, a
//!   deprecation.

mod compare;
mod render;

use serde::Serialize;

use crate::view::Model;
use crate::{Config, Error};

pub use render::{json, markdown, text};

/// What a change means for the generated crate's users.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Code using the old crate may stop compiling: a major version.
    Breaking,
    /// Something new; code using the old crate keeps compiling: a minor version.
    Additive,
    /// Nothing a program names changed (defaults, deprecations): a patch version.
    Compatible,
}

impl Effect {
    /// The word used in every output.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Breaking => "breaking",
            Effect::Additive => "additive",
            Effect::Compatible => "compatible",
        }
    }
}

/// One change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The API group it belongs to, as a module path without the version
    /// (`api::apps`, `apimachinery::pkg::apis::meta`); for operations on no resource,
    /// `operations`.
    pub section: String,
    /// Its semver effect.
    pub effect: Effect,
    /// What happened, in snake case (`field_removed`, `type_moved`, `operation_added`, …).
    pub kind: &'static str,
    /// What changed: a type's path below the crate root (`api::apps::v1::DeploymentSpec`),
    /// plus `.jsonName` for a field; for an operation, `METHOD /path`.
    pub subject: String,
    /// The old Rust type, value or name, where that says something.
    pub old: Option<String>,
    /// The new one.
    pub new: Option<String>,
    /// A few more words, where needed.
    pub detail: Option<String>,
}

/// Every change between two APIs, in a fixed order: by section, then effect (breaking
/// first), then subject and kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The changes.
    pub changes: Vec<Change>,
}

impl Report {
    /// The number of changes with `effect`.
    pub fn count(&self, effect: Effect) -> usize {
        self.changes.iter().filter(|c| c.effect == effect).count()
    }

    /// The strongest effect of any change, none when nothing changed.
    pub fn effect(&self) -> Option<Effect> {
        self.changes.iter().map(|c| c.effect).min()
    }

    /// The version bump the strongest effect asks for: `major`, `minor`, `patch` or `none`.
    pub fn bump(&self) -> &'static str {
        match self.effect() {
            Some(Effect::Breaking) => "major",
            Some(Effect::Additive) => "minor",
            Some(Effect::Compatible) => "patch",
            None => "none",
        }
    }

    /// The sections in order, each with its changes.
    pub fn sections(&self) -> Vec<(&str, Vec<&Change>)> {
        let mut sections: Vec<(&str, Vec<&Change>)> = Vec::new();
        for change in &self.changes {
            match sections.last_mut() {
                Some((section, changes)) if *section == change.section => changes.push(change),
                _ => sections.push((&change.section, vec![change])),
            }
        }
        sections
    }
}

/// The changes from `old` to `new`.
pub fn diff(old: &Model, new: &Model) -> Report {
    let mut changes = compare::changes(old.api(), new.api());
    changes.sort_by(|a, b| {
        (&a.section, a.effect, &a.subject, a.kind, &a.old, &a.new)
            .cmp(&(&b.section, b.effect, &b.subject, b.kind, &b.old, &b.new))
    });
    changes.dedup();
    Report { changes }
}

/// The changes from the API that `old` reads to the one `new` reads. The two models are
/// built at the same time, on two threads.
pub fn configs(old: &Config, new: &Config) -> Result<Report, Error> {
    let (old, new) = std::thread::scope(|scope| {
        let old = scope.spawn(|| old.model());
        let new = new.model();
        (
            old.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            new,
        )
    });
    Ok(diff(&old?, &new?))
}

/// What the release `release` of the releases merged in `config`
/// ([`Config::release_input`]) adds and removes against the release before it: the diff of
/// the merge's projections onto the two ([`Config::only_release`]), from the same knowledge of
/// which release has what that the generated crate's deprecations, rustdoc and
/// `Route::releases()` come from. An error when `release` is not one of the releases or is the
/// oldest.
pub fn release(config: &Config, release: &str) -> Result<Report, Error> {
    let names = config.release_names()?.unwrap_or_default();
    let previous = match names.iter().position(|name| name == release) {
        Some(index) if index > 0 => &names[index - 1],
        found => {
            return Err(crate::releases_error(format!(
                "expected a release after the oldest of the inputs' releases ({}), but it is `{release}`{}",
                names.join(", "),
                if found.is_some() { ", the oldest" } else { "" }
            )));
        }
    };
    configs(
        &config.clone().only_release(previous),
        &config.clone().only_release(release),
    )
}
