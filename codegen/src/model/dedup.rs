//! One type per shape: anonymous nested types (objects, string enums, unions) that would
//! generate the same Rust become one type, and a shape that is exactly a known Kubernetes
//! type becomes that type (see the guide, `docs/src/reference/shared-types.md`).
//!
//! A type's *key* (`key.rs`, a typed value) holds everything that makes its generated code: for a struct each
//! property's JSON name, requiredness, value shape and a default that carries information
//! (not a zero value), and the field for other keys; for an enum its values; for a union its
//! branches. Descriptions are left out. A reference to a named schema is keyed by its
//! name, one to a nested type by that type's key (or by the Kubernetes type it matched), so
//! two keys are equal exactly when the types are the same all the way down. The committed
//! table of known shapes (`known.rs`) holds keys of the same type.
//!
//! The rules, decided here once:
//!
//! - nested types with equal keys in one module are one type;
//! - when the key is that of a Kubernetes type the inputs include (a named `io.k8s.` schema
//!   with the same key), every copy refers to it;
//! - otherwise, when the key is in the known-shapes table, the type is named after that
//!   Kubernetes type (`ConfigMapKeySelector`) and carries its schema name, so extern rules
//!   for its package (`--kube`: meta/v1) make it the other crate's type;
//! - otherwise it keeps the name of its shallowest occurrence, ties broken by the
//!   occurrence's schema path (`….spec.container` before `….spec.initContainers`): both
//!   come from content, so a change elsewhere in the input never renames it;
//! - with [`Options::known_subset`], a struct whose properties are all a Kubernetes type's
//!   (the inputs include it), with the same shapes and requiredness, the type's other
//!   properties optional, refers to that type: every value of the narrower shape reads and
//!   writes back through it (the type keeps unknown fields either way);
//! - a struct that is nearly a known type (a few optional properties more or fewer, or a
//!   property of another shape) gets a [`Note`] naming the differences.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use super::key::{self, Key, ShapeKey, body_key};
use super::{Options, Shape, TypeDef, TypeId, TypeKind, known};
use crate::diagnostics::Note;
use crate::ground::naming::{self, Namespace};

/// How many uses a shared type's doc lists before it only counts the rest.
const LISTED_USES: usize = 5;

/// At most this many ways to read a type's ambiguous children are tried against the table.
const MAX_COMBINATIONS: usize = 64;

/// A group of equal nested types: module, key and the Kubernetes type it is.
type GroupKey<'a> = (&'a [String], &'a Key, Option<&'static str>);

/// Merges nested types of equal shape and applies known Kubernetes shapes. `named` is the
/// number of named types, which come first in `types`; nested types follow, each after
/// the type that contains it.
pub(super) fn apply(types: &mut Vec<TypeDef>, named: usize, options: Options) -> Vec<Note> {
    if !options.dedup {
        return Vec::new();
    }
    let n = types.len();
    let table = known::table();

    // Depth below the named type, and each nested type's key, children first.
    let mut depth = vec![0_usize; n];
    for id in 0..n {
        for child in children(&types[id].kind) {
            if child.0 >= named && child.0 > id {
                depth[child.0] = depth[id] + 1;
            }
        }
    }
    let mut spelled: Vec<ShapeKey> = vec![ShapeKey::Json; n];
    let mut keys: Vec<Key> = vec![Key::WatchEvent; n];
    let mut table_match: Vec<Option<&'static str>> = vec![None; n];
    // The Kubernetes types a shape several of them share could be, when its property name
    // does not decide: its parent's match decides.
    let mut candidates: Vec<&'static [&'static str]> = vec![&[]; n];
    for id in (named..n).rev() {
        let kind = &types[id].kind;
        let mut key = body_key(kind, &|r: TypeId| spell_ref(types, named, &spelled, r));
        let property = types[id].schema_name.rsplit('.').next().unwrap_or_default();
        let mut matched = table.lookup(&key, property);
        if matched.is_none() {
            candidates[id] = table.candidates(&key);
            let open: Vec<usize> = children(kind)
                .into_iter()
                .map(|c| c.0)
                .filter(|&c| c >= named && !candidates[c].is_empty())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let combinations = open
                .iter()
                .try_fold(1_usize, |n, &c| n.checked_mul(candidates[c].len()))
                .unwrap_or(usize::MAX);
            if !open.is_empty() && combinations <= MAX_COMBINATIONS {
                for index in 0..combinations {
                    let mut rest = index;
                    let choice: BTreeMap<usize, &'static str> = open
                        .iter()
                        .map(|&c| {
                            let options = candidates[c];
                            let pick = options[rest % options.len()];
                            rest /= options.len();
                            (c, pick)
                        })
                        .collect();
                    let chosen = body_key(kind, &|r: TypeId| match choice.get(&r.0) {
                        Some(schema) => ShapeKey::Named(key::short(schema).to_owned()),
                        None => spell_ref(types, named, &spelled, r),
                    });
                    if let Some(schema) = table.lookup(&chosen, property) {
                        matched = Some(schema);
                        key = chosen;
                        for (c, pick) in choice {
                            table_match[c] = Some(pick);
                        }
                        break;
                    }
                }
            }
        }
        spelled[id] = match matched {
            Some(schema) => ShapeKey::Named(key::short(schema).to_owned()),
            None => ShapeKey::Nested(Arc::new(key.clone())),
        };
        table_match[id] = matched;
        keys[id] = key;
    }
    // The Kubernetes types among the inputs, by key.
    let mut inputs: BTreeMap<Key, Vec<TypeId>> = BTreeMap::new();
    for id in 0..named {
        let ty = &types[id];
        if ty.schema_name.starts_with("io.k8s.") && matches!(ty.kind, TypeKind::Struct(_)) {
            let key = body_key(&ty.kind, &|r: TypeId| spell_ref(types, named, &spelled, r));
            inputs.entry(key).or_default().push(TypeId(id));
        }
    }

    let mut groups: BTreeMap<GroupKey<'_>, Vec<usize>> = BTreeMap::new();
    for id in named..n {
        if matches!(
            types[id].kind,
            TypeKind::Struct(_) | TypeKind::Enum(_) | TypeKind::Union(_)
        ) {
            groups
                .entry((types[id].module.as_slice(), &keys[id], table_match[id]))
                .or_default()
                .push(id);
        }
    }

    let mut canon: Vec<usize> = (0..n).collect();
    let mut notes = Vec::new();
    let mut renames: Vec<(usize, &'static str)> = Vec::new();
    let mut docs: Vec<(usize, String)> = Vec::new();
    for ((_, key, _), members) in &groups {
        let order = |&id: &usize| (depth[id], types[id].schema_name.as_str(), id);
        let rep = members
            .iter()
            .copied()
            .min_by_key(order)
            .unwrap_or(members[0]);
        let target = input_target(types, inputs.get(*key), table_match[rep]).or_else(|| {
            if options.known_subset {
                let property = types[rep]
                    .schema_name
                    .rsplit('.')
                    .next()
                    .unwrap_or_default();
                subset_target(types, named, &keys[rep], property, &inputs)
            } else {
                None
            }
        });
        if let Some(target) = target {
            for &id in members {
                canon[id] = target;
            }
            continue;
        }
        for &id in members {
            canon[id] = rep;
        }
        if let Some(schema) = table_match[rep] {
            renames.push((rep, schema));
        } else if let TypeKind::Struct(fields) = &types[rep].kind
            && let Some(message) = table.near_miss(fields, key)
        {
            notes.push(Note::new(
                &types[rep].origin,
                format!("`{}` {message}", types[rep].schema_name),
            ));
        }
        if members.len() > 1 {
            let mut uses: Vec<usize> = members.clone();
            uses.sort_by_key(order);
            docs.push((rep, uses_doc(types, &uses)));
        }
    }

    for (rep, doc) in docs {
        let ty = &mut types[rep];
        ty.description = Some(match ty.description.take() {
            Some(description) => format!("{description}\n\n{doc}"),
            None => doc,
        });
    }
    // Kubernetes names are claimed after every kept name, in key order.
    let mut namespaces: BTreeMap<Vec<String>, Namespace> = BTreeMap::new();
    let renamed: Vec<usize> = renames.iter().map(|(id, _)| *id).collect();
    for (id, ty) in types.iter().enumerate() {
        if canon[id] == id && !renamed.contains(&id) {
            namespaces
                .entry(ty.module.clone())
                .or_insert_with_key(|module| naming::ModuleNames::new(module).types)
                .reserve(&ty.name);
        }
    }
    for (rep, schema) in renames {
        let ty = &mut types[rep];
        let base = schema.rsplit('.').next().unwrap_or(schema);
        ty.name = namespaces
            .entry(ty.module.clone())
            .or_insert_with_key(|module| naming::ModuleNames::new(module).types)
            .claim(&naming::type_name(base));
        let doc = format!(
            "The shape of Kubernetes' `{schema}`, generated here because the inputs do not include it."
        );
        ty.description = Some(match ty.description.take() {
            Some(description) => format!("{description}\n\n{doc}"),
            None => doc,
        });
        schema.clone_into(&mut ty.schema_name);
    }

    // Drop the merged copies and renumber.
    let mut new_index = vec![usize::MAX; n];
    let mut next = 0;
    for id in 0..n {
        if canon[id] == id {
            new_index[id] = next;
            next += 1;
        }
    }
    let map = |id: TypeId| TypeId(new_index[canon[id.0]]);
    let mut kept = Vec::with_capacity(next);
    for (id, mut ty) in std::mem::take(types).into_iter().enumerate() {
        if canon[id] == id {
            remap_kind(&mut ty.kind, &map);
            kept.push(ty);
        }
    }
    *types = kept;
    notes
}

/// The doc paragraph of a type used in several places.
fn uses_doc(types: &[TypeDef], uses: &[usize]) -> String {
    let mut doc = format!("Used in {} places:", uses.len());
    for &id in uses.iter().take(LISTED_USES) {
        let _ = write!(doc, "\n- `{}`", types[id].schema_name);
    }
    if uses.len() > LISTED_USES {
        let _ = write!(doc, "\n- and {} more", uses.len() - LISTED_USES);
    }
    let first = &types[uses[0]].description;
    if uses.iter().any(|&id| types[id].description != *first) {
        doc.push_str("\n\nThe copies' descriptions differ; this is the first one's.");
    }
    doc
}

/// The Kubernetes type of the inputs that a shape is: the one the table names for it, or
/// the only one of that shape.
fn input_target(
    types: &[TypeDef],
    same_key: Option<&Vec<TypeId>>,
    known: Option<&str>,
) -> Option<usize> {
    let same_key = same_key?;
    let named = same_key
        .iter()
        .find(|id| Some(types[id.0].schema_name.as_str()) == known);
    match (named, same_key.as_slice()) {
        (Some(id), _) | (None, [id]) => Some(id.0),
        _ => None,
    }
}

/// The named Kubernetes type of the inputs whose properties include every one of the
/// struct's with the same shape, the rest optional.
fn subset_target(
    types: &[TypeDef],
    named: usize,
    key: &Key,
    property: &str,
    inputs: &BTreeMap<Key, Vec<TypeId>>,
) -> Option<usize> {
    let fields = key.fields()?;
    if fields.len() < 2 {
        return None;
    }
    // (how many properties it adds, its id), fewest first.
    let mut fits: Vec<(usize, usize)> = Vec::new();
    for (candidate, ids) in inputs {
        let Some(wider) = candidate.fields() else {
            continue;
        };
        let covered = fields.iter().all(|f| wider.contains(f));
        let rest_optional = wider
            .iter()
            .filter(|f| !fields.contains(f))
            .all(|f| !f.is_required_property());
        if covered && rest_optional && wider.len() > fields.len() {
            fits.extend(
                ids.iter()
                    .filter(|id| id.0 < named)
                    .map(|id| (wider.len(), id.0)),
            );
        }
    }
    let fewest = fits.iter().map(|(n, _)| *n).min()?;
    let closest: Vec<&str> = fits
        .iter()
        .filter(|(n, _)| *n == fewest)
        .map(|(_, id)| types[*id].schema_name.as_str())
        .collect();
    let chosen = match closest.as_slice() {
        [one] => *one,
        several => known::pick(several, property)?,
    };
    fits.iter()
        .map(|(_, id)| *id)
        .find(|id| types[*id].schema_name == chosen)
}

/// How a reference to `r` is keyed.
fn spell_ref(types: &[TypeDef], named: usize, spelled: &[ShapeKey], r: TypeId) -> ShapeKey {
    if r.0 < named {
        key::named(&types[r.0])
    } else {
        spelled[r.0].clone()
    }
}

/// The types a type's body refers to.
fn children(kind: &TypeKind) -> Vec<TypeId> {
    let mut out = Vec::new();
    let mut visit = |shape: &Shape| refs(shape, &mut out);
    match kind {
        TypeKind::Struct(fields) => fields.iter().for_each(|f| visit(&f.shape)),
        TypeKind::Union(variants) => variants.iter().for_each(|v| visit(&v.shape)),
        TypeKind::Alias(shape) => visit(shape),
        TypeKind::Enum(_) | TypeKind::WatchEvent { .. } | TypeKind::Extern(_) => {}
    }
    out
}

fn refs(shape: &Shape, out: &mut Vec<TypeId>) {
    match shape {
        Shape::Ref(id) => out.push(*id),
        Shape::Vec(inner) | Shape::Map(inner) | Shape::Nullable(inner) => refs(inner, out),
        _ => {}
    }
}

fn remap_kind(kind: &mut TypeKind, map: &impl Fn(TypeId) -> TypeId) {
    match kind {
        TypeKind::Struct(fields) => fields.iter_mut().for_each(|f| remap(&mut f.shape, map)),
        TypeKind::Union(variants) => variants.iter_mut().for_each(|v| remap(&mut v.shape, map)),
        TypeKind::Alias(shape) => remap(shape, map),
        TypeKind::WatchEvent { status } => {
            if let Some(id) = status {
                *id = map(*id);
            }
        }
        TypeKind::Enum(_) | TypeKind::Extern(_) => {}
    }
}

fn remap(shape: &mut Shape, map: &impl Fn(TypeId) -> TypeId) {
    match shape {
        Shape::Ref(id) => *id = map(*id),
        Shape::Vec(inner) | Shape::Map(inner) | Shape::Nullable(inner) => remap(inner, map),
        _ => {}
    }
}
