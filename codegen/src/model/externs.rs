//! Extern types: schemas that already have a Rust type elsewhere (k8s-openapi's meta
//! types, a shared crate's), so nothing is generated for them and every reference uses the
//! given path.
//!
//! The rule, decided here once:
//!
//! - `extern_type("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta")`
//!   maps exactly that schema to exactly that path;
//! - `extern_type("io.k8s.apimachinery.pkg.apis.meta.v1.*", "::k8s_openapi::apimachinery::pkg::apis::meta::v1::*")`
//!   maps every schema directly in the package (not in sub-packages, not nested anonymous
//!   types) to the path plus its name as the schema spells it (`ObjectMeta`, `APIGroup`):
//!   another crate names its types, not this generator;
//! - an exact mapping beats a package one, and a longer package beats a shorter one;
//! - `WatchEvent` is never extern through a package: routes decode watch streams with the
//!   runtime's event type, so it stays the generated alias (naming it exactly is an error);
//! - every path must be a Rust path; a mapping that matches no schema (after selection) is
//!   no error but a [`Note`]: it changes nothing in the output, and a recipe that maps, say,
//!   `ObjectReference` for the kinds that use it should not break for the ones that do not.
//!   (Attribute and derive patterns that match nothing stay errors: there the user asked for
//!   something in the output that would silently be missing.)
//!
//! An extern type becomes [`TypeKind::Extern`]: it has no fields the generator knows, so it
//! breaks cycles, is assumed to implement only what serde needs plus `Clone`, `Debug`,
//! `PartialEq` and `Default` (structs holding one derive no `Eq`), gets no builder, and is
//! no resource of this API (its operations, resource and list impls belong to the crate
//! that defines it).

use std::collections::BTreeSet;
use std::path::Path;

use super::{TypeDef, TypeId, TypeKind};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Note, Origin};

/// One mapping from schema names to a Rust path (see the module docs for the rule).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternType {
    /// A schema name, or a package followed by `.*`.
    pub schema: String,
    /// A Rust path, or a module path followed by `::*` when `schema` is a package.
    pub path: String,
}

fn config_origin() -> Origin {
    Origin::root(Path::new("<config>"))
}

/// Turns every type that a mapping names into [`TypeKind::Extern`]; returns a note for each
/// mapping that matches nothing.
pub(super) fn apply(types: &mut [TypeDef], externs: &[ExternType]) -> Result<Vec<Note>, Error> {
    if externs.is_empty() {
        return Ok(Vec::new());
    }
    let mut diagnostics = Diagnostics::default();
    // (package or exact name, module path or full path, is a package mapping)
    let mut rules: Vec<(&str, &str, bool)> = Vec::new();
    for (index, rule) in externs.iter().enumerate() {
        let package = rule.schema.strip_suffix(".*");
        let module = rule.path.strip_suffix("::*");
        let (schema, path) = match (package, module) {
            (Some(package), Some(module)) => (package, module),
            (None, None) => (rule.schema.as_str(), rule.path.as_str()),
            _ => {
                diagnostics.push(
                    Diagnostic::new(
                        ErrorKind::Output,
                        &config_origin(),
                        format!(
                            "expected extern type {index} to map a package (`….*`) to a module (`…::*`), or a schema to a path, found {:?} → {:?}",
                            rule.schema, rule.path
                        ),
                    )
                    .with_hint("write both sides with `*`, or neither"),
                );
                continue;
            }
        };
        if syn::parse_str::<syn::Path>(path).is_err() {
            diagnostics.push(
                Diagnostic::new(
                    ErrorKind::Output,
                    &config_origin(),
                    format!(
                        "expected the extern type path for {:?} to be a Rust path such as `::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta`, found {:?}",
                        rule.schema, rule.path
                    ),
                ),
            );
            continue;
        }
        rules.push((schema, path, package.is_some()));
    }

    let mut used: BTreeSet<usize> = BTreeSet::new();
    let mut paths: Vec<(TypeId, String)> = Vec::new();
    for (i, ty) in types.iter().enumerate() {
        let exact = rules
            .iter()
            .position(|(schema, _, package)| !package && *schema == ty.schema_name);
        let by_package = || {
            let (package, base) = ty.schema_name.rsplit_once('.')?;
            rules
                .iter()
                .enumerate()
                .filter(|(_, (schema, _, is_package))| *is_package && *schema == package)
                .max_by_key(|(_, (schema, _, _))| schema.len())
                .map(|(index, _)| (index, base))
        };
        let (index, path) = if let Some(index) = exact {
            used.insert(index);
            if matches!(ty.kind, TypeKind::WatchEvent { .. }) {
                diagnostics.push(
                    Diagnostic::new(
                        ErrorKind::Output,
                        &ty.origin,
                        format!(
                            "expected an extern type that the generator does not need itself, but `{}` is the watch event routes decode into",
                            ty.schema_name
                        ),
                    )
                    .with_hint("leave the watch event generated; it is an alias of the runtime's"),
                );
                continue;
            }
            (index, rules[index].1.to_owned())
        } else if let Some((index, base)) = by_package() {
            used.insert(index);
            if matches!(ty.kind, TypeKind::WatchEvent { .. }) {
                continue;
            }
            if syn::parse_str::<syn::Ident>(base).is_err() {
                diagnostics.push(
                    Diagnostic::new(
                        ErrorKind::Output,
                        &ty.origin,
                        format!(
                            "expected the schema name `{}` to end in a Rust identifier to append to `{}`, found {base:?}",
                            ty.schema_name, rules[index].1
                        ),
                    )
                    .with_hint("map this schema on its own with an exact extern type"),
                );
                continue;
            }
            (index, format!("{}::{base}", rules[index].1))
        } else {
            continue;
        };
        used.insert(index);
        paths.push((TypeId(i), path));
    }
    let mut notes = Vec::new();
    for (index, (schema, _, package)) in rules.iter().enumerate() {
        if !used.contains(&index) {
            let what = if *package {
                format!("no schema in the package `{schema}`")
            } else {
                format!("no schema `{schema}`")
            };
            notes.push(Note::new(
                &config_origin(),
                format!(
                    "the extern type {:?} is unused: the inputs (after selection) have {what}",
                    rules[index].1
                ),
            ));
        }
    }
    let paths = diagnostics.finish(paths)?;
    for (id, path) in paths {
        types[id.0].kind = TypeKind::Extern(path);
    }
    Ok(notes)
}

/// Whether `id` is extern.
pub(super) fn is_extern(types: &[TypeDef], id: TypeId) -> bool {
    matches!(types[id.0].kind, TypeKind::Extern(_))
}
