//! Known Kubernetes shapes: the struct types of the Kubernetes API, each as the key
//! `dedup.rs` spells (its properties' JSON names, requiredness and value shapes), in a
//! committed table (`known_shapes.tsv`: schema name, tab, key). `cargo xtask regen`
//! rebuilds it from the 1.36 swagger with [`table_text`], and `--check` fails when it is
//! stale. It is derived data: names and shapes, no descriptions.
//!
//! Only types with at least `MIN_PROPERTIES` properties are listed, so a one-field
//! object (`{name}`) is not named after whichever type happens to have it. Where several
//! types have one shape (`ConfigMapKeySelector`, `SecretKeySelector`), an occurrence takes
//! the one sharing most words with its property name (`configMapKeyRef`, `secretKeyRef`),
//! and none on a tie.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::ground::naming;
use std::sync::OnceLock;

use super::dedup::{body_key, spell_named};
use super::{ApiSet, Field, FieldRole, TypeId, TypeKind};

/// The committed table.
const TABLE: &str = include_str!("known_shapes.tsv");

/// Fewer properties than this say too little to name a type after Kubernetes'.
const MIN_PROPERTIES: usize = 2;

/// The most differences a near miss may have.
const NEAR: usize = 2;

/// The parsed table.
pub(crate) struct Table {
    by_key: HashMap<&'static str, Vec<&'static str>>,
    entries: Vec<Entry>,
}

struct Entry {
    schema: &'static str,
    /// Property name → its field key, and whether it is required.
    fields: Fields<'static>,
}

/// The table, parsed once.
pub(crate) fn table() -> &'static Table {
    static PARSED: OnceLock<Table> = OnceLock::new();
    PARSED.get_or_init(|| parse(TABLE))
}

fn parse(text: &'static str) -> Table {
    let mut by_key = HashMap::new();
    let mut entries = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let Some((schema, key)) = line.split_once('\t') else {
            continue;
        };
        by_key.entry(key).or_insert_with(Vec::new).push(schema);
        entries.push(Entry {
            schema,
            fields: named_fields(key),
        });
    }
    Table { by_key, entries }
}

impl Table {
    /// The Kubernetes types that share the key `key`, when there are several.
    pub(crate) fn candidates(&self, key: &str) -> &[&'static str] {
        match self.by_key.get(key) {
            Some(several) if several.len() > 1 => several,
            _ => &[],
        }
    }

    /// The schema name of the Kubernetes type whose key is `key`, for a value of the
    /// property `property`.
    pub(crate) fn lookup(&self, key: &str, property: &str) -> Option<&'static str> {
        match self.by_key.get(key)?.as_slice() {
            [one] => Some(one),
            several => pick(several, property),
        }
    }

    /// Why a struct is nearly, but not exactly, a known type: the closest one's name and
    /// the differences, when there are at most [`NEAR`] and every property one side lacks is
    /// optional on the other.
    pub(crate) fn near_miss(&self, fields: &[Field], key: &str) -> Option<String> {
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

/// A struct key's properties: JSON name → the property's field key, and whether it is
/// required. Borrowed from the key (a name is unescaped only when it has an escape).
type Fields<'k> = BTreeMap<Cow<'k, str>, (&'k str, bool)>;

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
fn differences<'a>(ours: &'a Fields<'_>, entry: &'a Entry) -> impl Iterator<Item = Difference<'a>> {
    let mine = ours.iter().map(
        |(name, (field, required))| match entry.fields.get(name.as_ref()) {
            Some((theirs, _)) if theirs == field => Difference::Same,
            Some(_) => Difference::OtherShape(name),
            None if *required => Difference::RequiredMissing,
            None => Difference::Adds(name),
        },
    );
    let theirs = entry
        .fields
        .iter()
        .filter(|(name, _)| !ours.contains_key(name.as_ref()))
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

/// A schema name without the `io.k8s.` every Kubernetes name starts with.
pub(crate) fn short(schema: &str) -> &str {
    schema.strip_prefix("io.k8s.").unwrap_or(schema)
}

/// The top-level fields of a struct key `(a,b,…)`; `None` for another kind of key.
pub(crate) fn split_fields(key: &str) -> Option<Vec<&str>> {
    let inner = key.strip_prefix('(')?.strip_suffix(')')?;
    let mut fields = Vec::new();
    let (mut depth, mut in_string, mut escaped, mut start) = (0_i32, false, false, 0);
    for (i, c) in inner.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                fields.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !inner.is_empty() {
        fields.push(&inner[start..]);
    }
    Some(fields)
}

/// Whether a field key is a required property's (`"name"!:…`).
pub(crate) fn field_required(field: &str) -> bool {
    field_name(field).is_some_and(|(_, required)| required)
}

/// A field key's JSON name and requiredness; `None` for the field of other keys. The name
/// is a JSON string; one without escapes is borrowed as it is.
fn field_name(field: &str) -> Option<(Cow<'_, str>, bool)> {
    let quoted = field.strip_prefix('"')?;
    let end = quoted.find('"')?;
    if !quoted[..end].contains('\\') {
        let rest = &quoted[end + 1..];
        return Some((Cow::Borrowed(&quoted[..end]), rest.starts_with('!')));
    }
    let mut stream = serde_json::Deserializer::from_str(field).into_iter::<String>();
    let name = stream.next()?.ok()?;
    let rest = &field[stream.byte_offset()..];
    Some((Cow::Owned(name), rest.starts_with('!')))
}

/// The properties of a struct key by name (the field of other keys under `..`).
fn named_fields(key: &str) -> Fields<'_> {
    split_fields(key)
        .unwrap_or_default()
        .into_iter()
        .map(|field| match field_name(field) {
            Some((name, required)) => (name, (field, required)),
            None => (Cow::Borrowed(".."), (field, true)),
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
    fn key_of(api: &ApiSet, id: TypeId, named: &dyn Fn(TypeId) -> bool) -> String {
        body_key(&api.get(id).kind, &|r| {
            if named(r) {
                spell_named(api.get(r))
            } else {
                key_of(api, r, named)
            }
        })
    }
    let mut lines: BTreeMap<&str, String> = BTreeMap::new();
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
        "# Known Kubernetes shapes: schema name, tab, key (see codegen/src/model/dedup.rs).\n\
         # Generated by `cargo xtask regen` from ../shared/corpus/kubernetes/swagger.json; do not edit.\n",
    );
    for (schema, key) in lines {
        out.push_str(schema);
        out.push('\t');
        out.push_str(&key);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The borrowed reading of a field key's name agrees with reading it as JSON, escapes
    /// and all.
    #[test]
    fn field_names_read_as_json() {
        for field in [
            r#""apiVersion":s"#,
            r#""name"!:s"#,
            r#""a\"b"!:s"#,
            r#""x\\y":j"#,
            r#""caf\u00e9":[s]"#,
            r#""""!:s"#,
        ] {
            let mut stream = serde_json::Deserializer::from_str(field).into_iter::<String>();
            let name = stream.next().unwrap().unwrap();
            let required = field[stream.byte_offset()..].starts_with('!');
            let (ours, ours_required) = field_name(field).unwrap();
            assert_eq!(
                (ours.as_ref(), ours_required),
                (name.as_str(), required),
                "{field}"
            );
        }
        assert!(field_name("..unknown_fields:j").is_none());
    }
}
