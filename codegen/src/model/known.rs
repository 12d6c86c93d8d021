//! Known Kubernetes shapes: the struct types of the Kubernetes API, each as its key
//! (`key.rs`: its properties' JSON names, requiredness and value shapes), in a
//! committed table (`known_shapes.tsv`: schema name, tab, key as JSON). `cargo xtask regen`
//! rebuilds it from the 1.36 swagger with [`table_text`] (through
//! `kubeforge::known_shapes_table`), and `--check` fails when it is stale. It is derived
//! data: names and shapes, no descriptions.
//!
//! Only types with at least `MIN_PROPERTIES` properties are listed, so a one-field
//! object (`{name}`) is not named after whichever type happens to have it. Where several
//! types have one shape (`ConfigMapKeySelector`, `SecretKeySelector`), an occurrence takes
//! the one sharing most words with its property name (`configMapKeyRef`, `secretKeyRef`),
//! and none on a tie.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;

use super::key::{self, FieldKey, FieldName, Key, body_key};
use super::{ApiSet, Field, FieldRole, TypeId, TypeKind};
use crate::ground::naming;

/// The committed table.
const TABLE: &str = include_str!("known_shapes.tsv");

/// Fewer properties than this say too little to name a type after Kubernetes'.
const MIN_PROPERTIES: usize = 2;

/// The most differences a near miss may have.
const NEAR: usize = 2;

/// The parsed table.
pub(crate) struct Table {
    by_key: HashMap<Key, Vec<&'static str>>,
    entries: Vec<Entry>,
}

struct Entry {
    schema: &'static str,
    /// Property name → its field key, and whether it counts as required.
    fields: Fields,
}

/// The table, parsed once.
pub(crate) fn table() -> &'static Table {
    static PARSED: OnceLock<Table> = OnceLock::new();
    PARSED.get_or_init(|| parse(TABLE))
}

/// The table's lines: schema name, tab, the key as JSON. The table is generated and tested
/// to read; a line that does not is left out.
fn parse(text: &'static str) -> Table {
    let mut by_key: HashMap<Key, Vec<&'static str>> = HashMap::new();
    let mut entries = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let Some((schema, key)) = line.split_once('\t') else {
            continue;
        };
        let Ok(key) = serde_json::from_str::<Key>(key) else {
            continue;
        };
        entries.push(Entry {
            schema,
            fields: named_fields(&key),
        });
        by_key.entry(key).or_default().push(schema);
    }
    Table { by_key, entries }
}

impl Table {
    /// The Kubernetes types that share the key `key`, when there are several.
    pub(crate) fn candidates(&self, key: &Key) -> &[&'static str] {
        match self.by_key.get(key) {
            Some(several) if several.len() > 1 => several,
            _ => &[],
        }
    }

    /// The schema name of the Kubernetes type whose key is `key`, for a value of the
    /// property `property`.
    pub(crate) fn lookup(&self, key: &Key, property: &str) -> Option<&'static str> {
        match self.by_key.get(key)?.as_slice() {
            [one] => Some(one),
            several => pick(several, property),
        }
    }

    /// Why a struct is nearly, but not exactly, a known type: the closest one's name and
    /// the differences, when there are at most [`NEAR`] and every property one side lacks is
    /// optional on the other.
    pub(crate) fn near_miss(&self, fields: &[Field], key: &Key) -> Option<String> {
        let plain = fields.iter().filter(|f| f.role != FieldRole::Extra).count();
        if plain < MIN_PROPERTIES {
            return None;
        }
        let ours = named_fields(key);
        // Counted first, spelled out only for the closest entry: most entries are far off.
        let mut best: Option<(usize, &Entry)> = None;
        for entry in &self.entries {
            if entry.fields.len() > 2 * ours.len() {
                continue; // fewer than half of its properties could be in common
            }
            let mut count = 0;
            let mut common = 0;
            let mut fits = true;
            for difference in differences(&ours, entry) {
                match difference {
                    Difference::Same => common += 1,
                    Difference::RequiredMissing => fits = false,
                    _ => count += 1,
                }
                if !fits || count > NEAR {
                    fits = false;
                    break;
                }
            }
            let fits =
                fits && count > 0 && common * 2 >= entry.fields.len() && common >= MIN_PROPERTIES;
            if fits && best.is_none_or(|(n, _)| count < n) {
                best = Some((count, entry));
            }
        }
        let (_, entry) = best?;
        let spelled: Vec<String> = differences(&ours, entry)
            .filter_map(|difference| match difference {
                Difference::OtherShape(name) => Some(format!("`{name}` has another shape")),
                Difference::Adds(name) => Some(format!("adds `{name}`")),
                Difference::Lacks(name) => Some(format!("lacks `{name}`")),
                Difference::Same | Difference::RequiredMissing => None,
            })
            .collect();
        Some(format!(
            "is nearly Kubernetes' `{}` ({}), so it is generated as a type of its own",
            entry.schema,
            spelled.join(", ")
        ))
    }
}

/// A struct key's properties: JSON name → the property's field key, and whether it counts as
/// required. The field of other keys is under `..`, and counts as required: a type that keeps
/// unknown fields is never nearly one that does not.
type Fields = BTreeMap<String, (FieldKey, bool)>;

/// How one property compares between a struct and a known type.
enum Difference<'a> {
    /// On both sides, with the same shape.
    Same,
    /// On both sides, with another shape.
    OtherShape(&'a str),
    /// Only on the struct, optional there.
    Adds(&'a str),
    /// Only on the known type, optional there.
    Lacks(&'a str),
    /// On one side only, and required there: no near miss.
    RequiredMissing,
}

/// Each property of `ours`, then each of `entry` that `ours` lacks, compared: the one rule
/// both counting and spelling out a near miss use.
fn differences<'a>(ours: &'a Fields, entry: &'a Entry) -> impl Iterator<Item = Difference<'a>> {
    let mine = ours
        .iter()
        .map(|(name, (field, required))| match entry.fields.get(name) {
            Some((theirs, _)) if theirs == field => Difference::Same,
            Some(_) => Difference::OtherShape(name),
            None if *required => Difference::RequiredMissing,
            None => Difference::Adds(name),
        });
    let theirs = entry
        .fields
        .iter()
        .filter(|(name, _)| !ours.contains_key(*name))
        .map(|(name, (_, required))| {
            if *required {
                Difference::RequiredMissing
            } else {
                Difference::Lacks(name)
            }
        });
    mine.chain(theirs)
}

/// Of several Kubernetes types, the one whose name shares most words with `property`
/// (`configMapKeyRef` → `ConfigMapKeySelector`); none on a tie or without a shared word.
pub(crate) fn pick<'s>(schemas: &[&'s str], property: &str) -> Option<&'s str> {
    let words = |name: &str| -> BTreeSet<String> {
        naming::snake_name(name)
            .split('_')
            .map(str::to_owned)
            .collect()
    };
    let ours = words(property);
    let mut scored: Vec<(usize, &'s str)> = schemas
        .iter()
        .map(|schema| {
            let base = schema.rsplit('.').next().unwrap_or(schema);
            (words(base).intersection(&ours).count(), *schema)
        })
        .collect();
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    match scored.as_slice() {
        [(best, schema), rest @ ..]
            if *best > 0 && rest.first().is_none_or(|(next, _)| next < best) =>
        {
            Some(schema)
        }
        _ => None,
    }
}

/// The properties of a struct key by name (see [`Fields`]).
fn named_fields(key: &Key) -> Fields {
    key.fields()
        .unwrap_or_default()
        .iter()
        .map(|field| match &field.name {
            FieldName::Json(name) => (name.clone(), (field.clone(), field.required)),
            FieldName::Extra(_) => ("..".to_owned(), (field.clone(), true)),
        })
        .collect()
}

/// The table for the Kubernetes API in `api` (built without dedup): every named struct of
/// an `io.k8s.` schema that is no resource, one line each, sorted by schema name.
pub fn table_text(api: &ApiSet) -> String {
    let rules = crate::ground::ModuleRules::default();
    let named = |id: TypeId| {
        let ty = api.get(id);
        rules.place(&ty.schema_name).0 == ty.module
    };
    fn key_of(api: &ApiSet, id: TypeId, named: &dyn Fn(TypeId) -> bool) -> Key {
        body_key(&api.get(id).kind, &|r| {
            if named(r) {
                key::named(api.get(r))
            } else {
                key::ShapeKey::Nested(std::sync::Arc::new(key_of(api, r, named)))
            }
        })
    }
    let mut lines: BTreeMap<&str, Key> = BTreeMap::new();
    for (i, ty) in api.types.iter().enumerate() {
        let id = TypeId(i);
        let TypeKind::Struct(fields) = &ty.kind else {
            continue;
        };
        let plain = fields.iter().filter(|f| f.role == FieldRole::Plain).count();
        if !ty.schema_name.starts_with("io.k8s.")
            || ty.gvk.is_some()
            || !named(id)
            || plain < MIN_PROPERTIES
        {
            continue;
        }
        lines.insert(&ty.schema_name, key_of(api, id, &named));
    }
    let mut out = String::from(
        "# Known Kubernetes shapes: schema name, tab, key as JSON (codegen/src/model/key.rs).\n\
         # Generated by `cargo xtask regen` from ../shared/corpus/kubernetes/swagger.json; do not edit.\n",
    );
    for (schema, key) in lines {
        out.push_str(schema);
        out.push('\t');
        // A key is plain data: it always serializes.
        out.push_str(&serde_json::to_string(&key).unwrap_or_default());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    /// Every line of the committed table reads as a key (a line that did not would be left
    /// out silently), and the keys write back as they are written.
    #[test]
    fn the_committed_table_reads_whole() {
        let lines: Vec<&str> = super::TABLE
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        assert!(lines.len() > 400, "{} lines", lines.len());
        assert_eq!(super::table().entries.len(), lines.len());
        for line in lines {
            let (_, text) = line.split_once('\t').expect("a tab");
            let key: super::Key = serde_json::from_str(text).expect("a key");
            assert_eq!(serde_json::to_string(&key).expect("it writes"), text);
        }
    }
}
