//! Merging documents into one API set.
//!
//! Real inputs repeat definitions: every Kubernetes OpenAPI v3 document carries its own copy
//! of the meta types, and OpenShift's `openapi.json` carries copies of 314 `io.k8s.*`
//! definitions from another Kubernetes release. Two definitions of one name merge when they
//! make the same model: the same Rust shape, fields, requiredness and formats. They may
//! differ in what the generator does not read or deliberately ignores:
//!
//! - documentation (`description`, `title`, `example`, `externalDocs`) and the list, map
//!   and patch annotations (`x-kubernetes-list-type`, …, see [`IGNORED`]);
//! - Go zero values as `default` (`""`, `0`, `false`, `{}`, `[]`), which the generator never
//!   applies (the guide's "Defaults", `docs/src/guide/builders.md`);
//! - the order of `required` and of `properties`;
//! - the `x-kubernetes-group-version-kind` list: the merged list is the union;
//! - a string `enum`: the merged list is the union (generated enums keep unknown values
//!   anyway), and the description says so.
//!
//! The merged definition's documentation is the *base* definition's: the preferred
//! document's (below), or else the first input's; a description only the other definition
//! has fills the gap.
//!
//! Anything else that differs is a real conflict (another field, type, format, `$ref`, a
//! non-zero default that builders would start with, …). Without a precedence it is an
//! error naming both places and the first differing JSON pointer. With one
//! (`Config::prefer`, `--prefer <document>`), the preferred document's definition wins, and
//! each override is a warning naming both places and the pointer.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{Document, RawApi, RawSchema};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Origin};

/// Schema keywords the generator does not read, so two definitions may differ in them.
pub const IGNORED: [&str; 12] = [
    "description",
    "title",
    "example",
    "externalDocs",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-validations",
    "x-kubernetes-unions",
    "x-kubernetes-selectable-fields",
];

/// Merges documents in the order given; `prefer` ranks documents (by the name they are
/// given under) for definitions that really conflict, first wins. Where a schema or
/// operation references a built-in meta type that no document defines (CRDs reference
/// `ObjectMeta`), the built-in definition fills the gap, with what it references in turn; a
/// definition from the inputs always wins over a built-in one.
pub(crate) fn merge(documents: Vec<Document>, prefer: &[PathBuf]) -> Result<RawApi, Error> {
    let mut api = RawApi::default();
    let mut diagnostics = Diagnostics::default();
    let rank = |origin: &Origin| prefer.iter().position(|p| p == &origin.file);
    for document in documents {
        for schema in document.schemas {
            let Some(existing) = api.schemas.get_mut(&schema.name) else {
                api.schemas.insert(schema.name.clone(), schema);
                continue;
            };
            if existing.value == schema.value {
                continue;
            }
            // The base is the preferred definition, or the first one.
            let new_wins = match (rank(&existing.origin), rank(&schema.origin)) {
                (Some(old), Some(new)) => new < old,
                (None, Some(_)) => true,
                _ => false,
            };
            let decided = rank(&existing.origin) != rank(&schema.origin);
            let (base, other) = if new_wins {
                (schema, existing.clone())
            } else {
                (existing.clone(), schema)
            };
            match same_model(&base, &other) {
                Ok(value) => {
                    *existing = RawSchema { value, ..base };
                }
                Err(pointer) if decided => {
                    api.warnings.push(
                        Diagnostic::new(
                            ErrorKind::OverriddenDefinition,
                            &base.origin,
                            format!(
                                "this definition of `{}` overrides the one at {}, as the preferred document's; they first differ at #{pointer}",
                                base.name, other.origin
                            ),
                        )
                        .with_hint(format!(
                            "the definitions differ at {} and {}",
                            join(&base, &pointer),
                            join(&other, &pointer)
                        )),
                    );
                    *existing = base;
                }
                Err(_) if let Some(error) = generated_list_conflict(&base, &other) => {
                    diagnostics.push(error);
                }
                Err(pointer) => diagnostics.push(
                    Diagnostic::new(
                        ErrorKind::ConflictingDefinition,
                        &join(&other, &pointer),
                        format!(
                            "expected this definition of `{}` to make the same type as the one at {}, but they first differ at #{pointer} (`{}` against `{}`)",
                            base.name,
                            base.origin,
                            brief(other.value.pointer(&pointer)),
                            brief(base.value.pointer(&pointer)),
                        ),
                    )
                    .with_hint(format!(
                        "choose the document that wins with `--prefer {}` (or `--prefer {}`; `Config::prefer` in a build script), or generate the documents separately",
                        base.origin.file.display(),
                        other.origin.file.display()
                    )),
                ),
            }
        }
        api.operations.extend(document.operations);
        api.resources.extend(document.resources);
        api.crds.extend(document.crds);
        api.notes.extend(document.notes);
    }
    let mut api = diagnostics.finish(api)?;
    super::fixups::apply(&mut api)?;
    fill_from_builtin(&mut api);
    api.builtin = builtin_matches(&api);
    Ok(api)
}

/// When one of two different definitions of one name is the list type generated for a CRD
/// kind, the error that explains why the two cannot simply be made identical.
fn generated_list_conflict(existing: &RawSchema, schema: &RawSchema) -> Option<Diagnostic> {
    let generated_list = |s: &RawSchema| {
        s.origin.pointer.ends_with("/spec/names/kind")
            || s.origin.pointer.ends_with("/spec/names/listKind")
    };
    if generated_list(existing) || generated_list(schema) {
        let (list, other) = if generated_list(schema) {
            (schema, existing)
        } else {
            (existing, schema)
        };
        let base = list.name.rsplit('.').next().unwrap_or(&list.name);
        return Some(Diagnostic::new(
            ErrorKind::ConflictingDefinition,
            &other.origin,
            format!(
                "expected `{}` to be defined once, but it is both this schema and the list type generated for the CRD at {} (a CRD's list type is its kind + `List` unless `spec.names.listKind` names it)",
                list.name, list.origin
            ),
        )
        .with_hint(format!(
            "give the CRD at {} a `spec.names.listKind` other than `{base}`, or rename one of the kinds",
            list.origin
        )));
    }
    None
}

/// The node `pointer` (relative to the definition) of `schema`, or its nearest ancestor that
/// the file has (the comparison reads a one-element `allOf` through).
fn join(schema: &RawSchema, pointer: &str) -> Origin {
    let mut pointer = pointer;
    while schema.value.pointer(pointer).is_none() {
        pointer = pointer.rsplit_once('/').map_or("", |(parent, _)| parent);
    }
    Origin {
        file: schema.origin.file.clone(),
        pointer: format!("{}{pointer}", schema.origin.pointer),
    }
}

/// A short rendering of a value for messages.
fn brief(value: Option<&Value>) -> String {
    let Some(value) = value else {
        return "absent".to_owned();
    };
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

/// The merge of two definitions that make the same model (see the module docs), or the
/// first JSON pointer, relative to the definition, where they do not.
fn same_model(base: &RawSchema, other: &RawSchema) -> Result<Value, String> {
    let files = (base.origin.file.as_path(), other.origin.file.as_path());
    let mut pointer = String::new();
    schema(&base.value, &other.value, &mut pointer, files)
}

/// Appends `token` to `pointer` (RFC 6901 escaped), runs `f`, and restores `pointer` when
/// `f` succeeds, so that on failure it names the differing node.
fn at<T>(
    pointer: &mut String,
    token: &str,
    f: impl FnOnce(&mut String) -> Result<T, ()>,
) -> Result<T, ()> {
    let len = pointer.len();
    pointer.push('/');
    pointer.push_str(&token.replace('~', "~0").replace('/', "~1"));
    let result = f(pointer)?;
    pointer.truncate(len);
    Ok(result)
}

/// One schema node.
pub(super) fn schema(
    base: &Value,
    other: &Value,
    pointer: &mut String,
    files: (&Path, &Path),
) -> Result<Value, String> {
    let mut inner = || -> Result<Value, ()> { schema_node(base, other, pointer, files) };
    match inner() {
        Ok(value) => Ok(value),
        Err(()) => Err(pointer.clone()),
    }
}

fn schema_node(
    base: &Value,
    other: &Value,
    pointer: &mut String,
    files: (&Path, &Path),
) -> Result<Value, ()> {
    let (Some(b), Some(o)) = (base.as_object(), other.as_object()) else {
        return if base == other {
            Ok(base.clone())
        } else {
            Err(())
        };
    };
    let (b, o) = (&flatten(b), &flatten(o));
    let mut merged = Map::new();
    let mut enum_note = false;
    let keys: Vec<&String> = b
        .keys()
        .chain(o.keys().filter(|k| !b.contains_key(*k)))
        .collect();
    for key in keys {
        let (bv, ov) = (b.get(key), o.get(key));
        let value = match key.as_str() {
            k if IGNORED.contains(&k) => bv.or(ov).cloned(),
            "default" => match (bv, ov) {
                (Some(x), Some(y)) if x == y => Some(x.clone()),
                (Some(x), None) | (None, Some(x)) if is_zero(x) => bv.cloned(),
                (Some(x), Some(y)) if is_zero(x) && is_zero(y) => Some(x.clone()),
                _ => return at(pointer, key, |_| Err(())),
            },
            "enum" => match (bv, ov) {
                (Some(Value::Array(x)), Some(Value::Array(y))) => {
                    let mut union = x.clone();
                    union.extend(y.iter().filter(|v| !x.contains(v)).cloned());
                    if union.len() != x.len() || union.len() != y.len() {
                        enum_note = true;
                    }
                    Some(Value::Array(union))
                }
                // No enum means any string: the merged type is the enum, which keeps
                // unknown values.
                (Some(x @ Value::Array(_)), None) | (None, Some(x @ Value::Array(_))) => {
                    enum_note = true;
                    Some(x.clone())
                }
                _ if bv == ov => bv.cloned(),
                _ => return at(pointer, key, |_| Err(())),
            },
            "x-kubernetes-group-version-kind" => match (bv, ov) {
                (Some(Value::Array(x)), Some(Value::Array(y))) => {
                    let mut union = x.clone();
                    union.extend(y.iter().filter(|v| !x.contains(v)).cloned());
                    Some(Value::Array(union))
                }
                (Some(x), None) | (None, Some(x)) => Some(x.clone()),
                _ if bv == ov => bv.cloned(),
                _ => return at(pointer, key, |_| Err(())),
            },
            "required" => {
                let set = |v: Option<&Value>| -> Vec<String> {
                    let mut names: Vec<String> = v
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .map(ToString::to_string)
                        .collect();
                    names.sort();
                    names
                };
                if set(bv) != set(ov)
                    || bv.is_some_and(|v| !v.is_array())
                    || ov.is_some_and(|v| !v.is_array())
                {
                    return at(pointer, key, |_| Err(()));
                }
                bv.or(ov).cloned()
            }
            "properties" => match (bv, ov) {
                (Some(Value::Object(x)), Some(Value::Object(y))) => {
                    let value = at(pointer, key, |pointer| {
                        if let Some(name) = y.keys().find(|k| !x.contains_key(*k)) {
                            return at(pointer, name, |_| Err(()));
                        }
                        let mut fields = Map::new();
                        for (name, xv) in x {
                            let Some(yv) = y.get(name) else {
                                return at(pointer, name, |_| Err(()));
                            };
                            let field =
                                at(pointer, name, |pointer| schema_node(xv, yv, pointer, files))?;
                            fields.insert(name.clone(), field);
                        }
                        Ok(Value::Object(fields))
                    })?;
                    Some(value)
                }
                _ if bv == ov => bv.cloned(),
                _ => return at(pointer, key, |_| Err(())),
            },
            "items" | "additionalProperties" | "not" => match (bv, ov) {
                (Some(x), Some(y)) => Some(at(pointer, key, |pointer| {
                    schema_node(x, y, pointer, files)
                })?),
                _ => return at(pointer, key, |_| Err(())),
            },
            "allOf" | "oneOf" | "anyOf" => match (bv, ov) {
                (Some(Value::Array(x)), Some(Value::Array(y))) if x.len() == y.len() => {
                    let value = at(pointer, key, |pointer| {
                        let mut items = Vec::with_capacity(x.len());
                        for (i, (xv, yv)) in x.iter().zip(y).enumerate() {
                            items.push(at(pointer, &i.to_string(), |pointer| {
                                schema_node(xv, yv, pointer, files)
                            })?);
                        }
                        Ok(Value::Array(items))
                    })?;
                    Some(value)
                }
                _ if bv == ov => bv.cloned(),
                _ => return at(pointer, key, |_| Err(())),
            },
            _ if bv == ov => bv.cloned(),
            _ => return at(pointer, key, |_| Err(())),
        };
        if let Some(value) = value {
            merged.insert(key.clone(), value);
        }
    }
    if enum_note {
        let note = format!(
            "The values are the union of this schema's `enum` in {} and in {}.",
            files.0.display(),
            files.1.display()
        );
        let description = match merged.get("description").and_then(Value::as_str) {
            Some(text) if !text.trim().is_empty() => format!("{text}\n\n{note}"),
            _ => note,
        };
        merged.insert("description".to_owned(), Value::String(description));
    }
    Ok(Value::Object(merged))
}

/// The node with an `allOf` of one schema replaced by that schema's keywords, which the model
/// reads as the same thing (v3 documents wrap every `$ref` with a default as
/// `{"allOf": [{"$ref": …}], "default": {}}`, Swagger 2.0 documents do not).
fn flatten(node: &Map<String, Value>) -> Map<String, Value> {
    let mut out = node.clone();
    if let Some(Value::Array(all)) = node.get("allOf")
        && let [Value::Object(inner)] = all.as_slice()
        && inner
            .keys()
            .all(|k| !node.contains_key(k) || IGNORED.contains(&k.as_str()))
    {
        out.remove("allOf");
        for (k, v) in inner {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    out
}

pub(crate) use kubeforge_runtime::schema::is_go_zero as is_zero;

fn fill_from_builtin(api: &mut RawApi) {
    // Only a built-in definition can fill a gap: when the inputs define every one (a
    // Kubernetes document does), there is none to fill, and no reason to walk every node.
    if super::builtin()
        .schemas
        .iter()
        .all(|s| api.schemas.contains_key(&s.name))
    {
        return;
    }
    let mut wanted = Vec::new();
    for schema in api.schemas.values() {
        collect_refs(&schema.value, &mut wanted);
    }
    for operation in &api.operations {
        collect_refs(&operation.value, &mut wanted);
    }
    wanted.retain(|name| !api.schemas.contains_key(name));
    if wanted.is_empty() {
        return;
    }
    let builtin: indexmap::IndexMap<&str, &RawSchema> = super::builtin()
        .schemas
        .iter()
        .map(|s| (s.name.as_str(), s))
        .collect();
    while let Some(name) = wanted.pop() {
        if api.schemas.contains_key(&name) {
            continue;
        }
        if let Some(schema) = builtin.get(name.as_str()) {
            collect_refs(&schema.value, &mut wanted);
            api.schemas.insert(name, (*schema).clone());
        }
    }
}

/// The built-in definition without the properties `input` lacks, when all of those are
/// optional: then an older release's definition (a `ListMeta` from before `shardInfo`)
/// reads into the companion's type, whose extra fields stay `None` and are not written,
/// so the input's objects round-trip through it unchanged. `None` when there is nothing to
/// narrow or a lacking property is required.
fn narrowed(builtin: &RawSchema, input: &RawSchema) -> Option<RawSchema> {
    let known = |schema: &RawSchema| -> Option<Vec<String>> {
        Some(
            schema
                .value
                .get("properties")?
                .as_object()?
                .keys()
                .cloned()
                .collect(),
        )
    };
    let (ours, theirs) = (known(builtin)?, known(input)?);
    let lacking: Vec<&String> = ours.iter().filter(|k| !theirs.contains(k)).collect();
    let required = |name: &str| {
        builtin
            .value
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|names| names.iter().any(|n| n == name))
    };
    if lacking.is_empty() || lacking.iter().any(|name| required(name)) {
        return None;
    }
    let mut narrow = builtin.clone();
    narrow
        .value
        .get_mut("properties")?
        .as_object_mut()?
        .retain(|name, _| theirs.contains(name));
    Some(narrow)
}

/// How the merged input defines each built-in meta type: alike (the same model, as two
/// documents' copies merge), differently (with the first differing pointer), or not at all
/// (filled in from the built-in document, or absent).
pub(super) fn builtin_matches(api: &RawApi) -> super::BuiltinMatches {
    let mut matches = super::BuiltinMatches::default();
    for builtin in &super::builtin().schemas {
        let mut refs = Vec::new();
        collect_refs(&builtin.value, &mut refs);
        refs.sort();
        refs.dedup();
        matches.refs.insert(builtin.name.clone(), refs);
        let Some(input) = api.schemas.get(&builtin.name) else {
            continue;
        };
        if input.origin.file == Path::new(super::BUILTIN_FILE) {
            continue;
        }
        let covered = |pointer| match narrowed(builtin, input) {
            Some(narrow) => same_model(&narrow, input).map_err(|_| pointer),
            None => Err(pointer),
        };
        match same_model(builtin, input).or_else(covered) {
            Ok(_) => {
                matches.alike.insert(builtin.name.clone());
            }
            Err(pointer) => {
                matches
                    .differs
                    .insert(builtin.name.clone(), (input.origin.clone(), pointer));
            }
        }
    }
    matches
}

/// Appends the schema names `value` references, in document order.
fn collect_refs(value: &Value, into: &mut Vec<String>) {
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
