//! Extern types: schemas that already have a Rust type elsewhere (k8s-openapi's meta
//! types, a shared crate's), so nothing is generated for them and every reference uses the
//! given path.
//!
//! The rule, decided here once:
//!
//! - the schema side is a [`Pattern`] (the one pattern language; see `pattern.rs`), the
//!   value a Rust path: `extern_type("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta")`
//!   maps exactly that schema to exactly that path, and so does a type name (`Condition`,
//!   in every package that has one) or a Rust path;
//! - a path ending in `::*` maps each type the pattern names to the module plus its name as
//!   the schema spells it (`ObjectMeta`, `APIGroup`): another crate names its types, not this
//!   generator. `extern_type("io.k8s.apimachinery.pkg.apis.meta.v1.*", "::k8s_openapi::apimachinery::pkg::apis::meta::v1::*")`
//!   maps every schema directly in the package (not sub-packages, not nested anonymous
//!   types). A pattern that can name several types of different names (a package, module,
//!   group, `*`, …) needs such a path;
//! - where several mappings name one type, the most specific pattern wins
//!   (`Pattern::specificity`: an exact name beats a package, a longer package a shorter
//!   one), and of equally specific ones the first given;
//! - `WatchEvent` is never extern through a wildcard: routes decode watch streams with the
//!   runtime's event type, so it stays the generated alias (naming it exactly is an error);
//! - every path must be a Rust path; a mapping that matches no schema (after selection) is
//!   no error but a [`Note`]: it changes nothing in the output, and a recipe that maps, say,
//!   `ObjectReference` for the kinds that use it should not break for the ones that do not.
//!   (Attribute and derive patterns that match nothing stay errors: there the user asked for
//!   something in the output that would silently be missing.)
//!
//! The companion crate `kubeforge-meta` holds the built-in meta types (`ObjectMeta`,
//! `ListMeta`, `Status`, …; `load::builtin`), generated from the same document by `cargo
//! xtask regen`. Unless [`super::Options::companion_meta`] is off, each of them is mapped
//! here to its path there, by the same rule as a user's mapping, with these differences:
//!
//! - a user's mapping that names the type wins, however unspecific (`--kube` maps the
//!   `meta/v1` package to k8s-openapi's), and an unused companion mapping is no note;
//! - a type the inputs define differently from the built-in definition (Kubernetes 1.9's
//!   `ObjectMeta` has `initializers`) stays generated here, and so does every built-in type
//!   that references such a one, however indirectly (a companion `ObjectMeta` holding the
//!   companion's `OwnerReference` would lose the input's other one); a note names each.
//!   An input that only lacks optional fields of the built-in definition (a release before
//!   `ListMeta.shardInfo`) defines it alike: its objects read into the companion's type and
//!   write back unchanged (`load::merge::narrowed`);
//! - since the companion's types are exactly what would be generated here, they keep what
//!   the model knows of them (`Eq`, `Default`), and one the inputs define (alike) is
//!   re-exported at its place ([`super::ApiSet::reexports`]), so
//!   `crate::apimachinery::pkg::apis::meta::v1::ObjectMeta` still names it;
//! - the aliases of the runtime's types (`Quantity`, `IntOrString`, `Time`, `MicroTime`)
//!   never differ, however an input defines them: their name makes them the runtime's type,
//!   and the model still sees through them to it (`builders::resolve`);
//! - the watch event stays generated, as for any wildcard.
//!
//! An extern type becomes [`TypeKind::Extern`]: it has no fields the generator knows, so it
//! breaks cycles, is assumed to implement only what serde needs plus `Clone`, `Debug`,
//! `PartialEq` and `Default` (structs holding one derive no `Eq`), gets no builder, and is
//! no resource of this API (its operations, resource and list impls belong to the crate
//! that defines it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{TypeDef, TypeId, TypeKind};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Note, Origin};
use crate::ground::pattern::Pattern;
use crate::load::BuiltinMatches;

/// One mapping from schema names to a Rust path (see the module docs for the rule).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternType {
    /// A pattern naming schemas.
    pub schema: String,
    /// A Rust path, or a module path followed by `::*`.
    pub path: String,
}

fn config_origin() -> Origin {
    Origin::root(Path::new("<config>"))
}

/// A parsed mapping: the pattern, the path or module, and whether the type's name is
/// appended (`::*`).
struct Rule<'a> {
    pattern: Pattern,
    /// The path or module, spelled as generated code writes it (`ground::rust_path`).
    path: String,
    append: bool,
    text: &'a ExternType,
}

fn parse(index: usize, rule: &ExternType) -> Result<Rule<'_>, Box<Diagnostic>> {
    let pattern: Pattern = rule.schema.parse().map_err(|e| {
        Box::new(Diagnostic::new(
            ErrorKind::Output,
            &config_origin(),
            format!("in extern type {index}: {e}"),
        ))
    })?;
    let module = rule.path.strip_suffix("::*");
    if pattern.is_wildcard() && module.is_none() {
        return Err(Box::new(Diagnostic::new(
            ErrorKind::Output,
            &config_origin(),
            format!(
                "expected extern type {index} to map the types `{pattern}` names to a module (`…::*`), since they have different names, found {:?}",
                rule.path
            ),
        )
        .with_hint("end the path with `::*`, or name one schema exactly")));
    }
    let Ok(path) = crate::ground::rust_path::spell(module.unwrap_or(&rule.path)) else {
        return Err(Box::new(Diagnostic::new(
            ErrorKind::Output,
            &config_origin(),
            format!(
                "expected the extern type path for {:?} to be a Rust path such as `::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta`, found {:?}",
                rule.schema, rule.path
            ),
        )));
    };
    Ok(Rule {
        pattern,
        path,
        append: module.is_some(),
        text: rule,
    })
}

/// The Rust path of the companion crate of the built-in meta types, `kubeforge-meta`.
pub const COMPANION: &str = "::kubeforge_meta";

/// How the inputs define the built-in meta types, as the model sees it: the aliases of the
/// runtime's types (`Quantity`, `IntOrString`, `Time`) name the runtime's type by their
/// schema name whatever an input's definition says (Swagger 2.0's `Quantity` is a plain
/// string, the v3 documents' a `oneOf`), so one the inputs define is always alike.
pub(super) fn builtin_as_modelled(builtin: &BuiltinMatches) -> BuiltinMatches {
    let mut modelled = builtin.clone();
    let runtime: Vec<String> = modelled
        .differs
        .keys()
        .filter(|name| super::wellknown::runtime_shape(name).is_some())
        .cloned()
        .collect();
    for name in runtime {
        modelled.differs.remove(&name);
        modelled.alike.insert(name);
    }
    modelled
}

/// The companion crate's mappings for these inputs (see the module docs): every built-in
/// meta type but the watch event, by its exact schema name, to its path in `kubeforge-meta`
/// (placed by the default module rules, as `cargo xtask regen` generates it), except those
/// the inputs define differently and those referencing them; a note for each of these.
pub(super) fn companion(builtin: &BuiltinMatches) -> (Vec<ExternType>, Vec<Note>) {
    // Local: the differing ones, then whatever references a local one, to a fixed point.
    let mut local: BTreeMap<&str, String> = builtin
        .differs
        .iter()
        .map(|(name, (origin, pointer))| {
            (
                name.as_str(),
                format!(
                    "the inputs define it differently from the built-in definition that `kubeforge-meta` holds (first at {}{pointer})",
                    origin
                ),
            )
        })
        .collect();
    loop {
        let more: Vec<(&str, String)> = builtin
            .refs
            .iter()
            .filter(|(name, _)| !local.contains_key(name.as_str()))
            .filter_map(|(name, refs)| {
                let local_ref = refs.iter().find(|r| local.contains_key(r.as_str()))?;
                Some((
                    name.as_str(),
                    format!("it references `{local_ref}`, which is generated here"),
                ))
            })
            .collect();
        if more.is_empty() {
            break;
        }
        local.extend(more);
    }
    let rules = crate::ground::ModuleRules::default();
    let mut externs = Vec::new();
    for name in builtin.refs.keys() {
        if local.contains_key(name.as_str())
            || super::wellknown::lookup(name) == Some(super::wellknown::WellKnown::WatchEvent)
        {
            continue;
        }
        let (modules, base) = rules.place(name);
        externs.push(ExternType {
            schema: name.clone(),
            path: format!("{COMPANION}::{}::{base}", modules.join("::")),
        });
    }
    let notes = local
        .into_iter()
        .map(|(name, why)| {
            Note::new(
                &config_origin(),
                format!("`{name}` is generated here, not taken from `kubeforge-meta`: {why}"),
            )
        })
        .collect();
    (externs, notes)
}

/// What [`apply`] did besides changing kinds: notes for unused mappings, the companion
/// types the inputs define (re-exported at their place), and the kind each companion type
/// had before it became the companion's.
pub(super) struct Applied {
    pub notes: Vec<Note>,
    pub reexports: BTreeSet<TypeId>,
    pub companion_kinds: BTreeMap<TypeId, TypeKind>,
}

/// Turns every type that a mapping names into [`TypeKind::Extern`]: `externs` (the user's)
/// first; `companion` (from [`companion`]) only for types no user mapping names. Returns a
/// note for each user mapping that matches nothing.
///
/// A user's extern type is assumed to derive neither `Eq` nor `Default`; a companion type
/// keeps what `types` says of it (computed before, on its own shape).
pub(super) fn apply(
    types: &mut [TypeDef],
    externs: &[ExternType],
    companion: &[ExternType],
    alike: &BTreeSet<String>,
) -> Result<Applied, Error> {
    let mut applied = Applied {
        notes: Vec::new(),
        reexports: BTreeSet::new(),
        companion_kinds: BTreeMap::new(),
    };
    if externs.is_empty() && companion.is_empty() {
        return Ok(applied);
    }
    let mut diagnostics = Diagnostics::default();
    let mut rules: Vec<Rule<'_>> = Vec::new();
    for (index, rule) in externs.iter().enumerate() {
        match parse(index, rule) {
            Ok(rule) => rules.push(rule),
            Err(d) => diagnostics.push(*d),
        }
    }
    // Built by this module, so they parse; a failure would be a defect, reported as one.
    let mut defaults: Vec<Rule<'_>> = Vec::new();
    for (index, rule) in companion.iter().enumerate() {
        match parse(index, rule) {
            Ok(rule) => defaults.push(rule),
            Err(d) => diagnostics.push(*d),
        }
    }

    let mut used: BTreeSet<usize> = BTreeSet::new();
    let mut paths: Vec<(TypeId, String, bool)> = Vec::new();
    for (i, ty) in types.iter().enumerate() {
        let target = ty.target();
        let mut all: Vec<(usize, &Rule<'_>)> = rules
            .iter()
            .enumerate()
            .filter(|(_, rule)| rule.pattern.matches(&target))
            .collect();
        let from_companion = all.is_empty();
        if from_companion {
            all = defaults
                .iter()
                .enumerate()
                .filter(|(_, rule)| rule.pattern.matches(&target))
                .collect();
            if all.is_empty() {
                continue;
            }
        } else {
            used.extend(all.iter().map(|(index, _)| *index));
        }
        // The most specific wins; of equals, the first given (a stable sort keeps order).
        all.sort_by_key(|(_, rule)| std::cmp::Reverse(rule.pattern.specificity()));
        let (_, rule) = all[0];
        if matches!(ty.kind, TypeKind::WatchEvent { .. }) {
            if !rule.pattern.is_wildcard() {
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
            }
            continue;
        }
        let path = if rule.append {
            let base = ty
                .schema_name
                .rsplit_once('.')
                .map_or(ty.schema_name.as_str(), |(_, base)| base);
            if syn::parse_str::<syn::Ident>(base).is_err() {
                diagnostics.push(
                    Diagnostic::new(
                        ErrorKind::Output,
                        &ty.origin,
                        format!(
                            "expected the schema name `{}` to end in a Rust identifier to append to `{}`, found {base:?}",
                            ty.schema_name, rule.path
                        ),
                    )
                    .with_hint("map this schema on its own with an exact extern type"),
                );
                continue;
            }
            format!("{}::{base}", rule.path)
        } else {
            rule.path.to_owned()
        };
        paths.push((TypeId(i), path, from_companion));
    }
    if rules.len() > used.len() {
        let targets: Vec<_> = types.iter().map(TypeDef::target).collect();
        for (index, rule) in rules.iter().enumerate() {
            if !used.contains(&index) {
                let (absent, _) = rule.pattern.absent(&targets);
                applied.notes.push(Note::new(
                    &config_origin(),
                    format!(
                        "the extern type {:?} is unused: after selection, {absent}",
                        rule.text.path
                    ),
                ));
            }
        }
    }
    let paths = diagnostics.finish(paths)?;
    for (id, path, from_companion) in paths {
        let ty = &mut types[id.0];
        if from_companion {
            if alike.contains(&ty.schema_name) {
                applied.reexports.insert(id);
            }
            applied.companion_kinds.insert(id, ty.kind.clone());
        } else {
            ty.derive_eq = false;
            ty.derive_default = false;
        }
        ty.kind = TypeKind::Extern(super::ExternRef {
            path,
            companion: from_companion,
        });
    }
    Ok(applied)
}

/// Whether `id` is extern.
pub(super) fn is_extern(types: &[TypeDef], id: TypeId) -> bool {
    matches!(types[id.0].kind, TypeKind::Extern(_))
}
