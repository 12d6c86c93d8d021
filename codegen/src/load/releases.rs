//! Merging several releases of one API into one input, each part knowing its releases
//! (`Config::release_input`, `--releases`; the guide's `docs/src/guide/releases.md`).
//!
//! Each release's documents first merge among themselves by the ordinary rules
//! (`merge.rs`). Then the releases merge, newest first, so the newest release's definition is
//! the base (its documentation, its order), and:
//!
//! - a schema, property, string enum value or operation exists once, with the set of
//!   releases that have it ([`Releases`]);
//! - a property is required only where every release that has the schema requires it:
//!   anything else (required in one release, optional or absent in another) is optional,
//!   which reads every release's objects, and a warning names each release's place;
//! - a property whose definitions make different types in two releases (beyond what
//!   `merge.rs` merges: documentation, zero defaults, enum unions) becomes free-form JSON
//!   (`serde_json::Value`), which reads both, and a warning names each release's shape;
//!   the same for any other keyword of a schema, where the newest definition is kept.
//!
//! [`project`] is the other direction: the merged input as one release has it.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::release_set::{Mask, Releases};
use super::{RawApi, RawSchema};
use crate::diagnostics::{Diagnostic, ErrorKind, Origin};

/// The merged input of several releases, with each release's own input for projecting.
#[derive(Clone, Debug)]
pub(crate) struct Merged {
    /// Every release's input in one.
    pub api: RawApi,
    /// Which release has what.
    pub releases: Releases,
    /// Each release's own input, oldest first.
    pub each: Vec<RawApi>,
    /// The properties made free-form JSON, by schema and property name: a projection takes
    /// the release's own definition for them.
    pub loosened: BTreeSet<(String, String)>,
    /// The warnings of shapes that change between releases, each with the schema it is
    /// about: only those of the schemas selection keeps are shown.
    pub shape_warnings: Vec<(String, Diagnostic)>,
}

/// Merges the releases `each` (name and merged input, oldest first).
pub(crate) fn merge(each: Vec<(String, RawApi)>) -> Merged {
    let names: Vec<String> = each.iter().map(|(name, _)| name.clone()).collect();
    let each: Vec<RawApi> = each.into_iter().map(|(_, api)| api).collect();
    let mut releases = Releases {
        names,
        ..Releases::default()
    };
    let mut api = RawApi::default();
    let mut loosened = BTreeSet::new();
    let mut shape_warnings = Vec::new();
    // Masks, and the order: the newest release's, then what only older ones have.
    let mut order: Vec<String> = Vec::new();
    for (index, release) in each.iter().enumerate().rev() {
        let bit = Mask::one(index);
        for (name, schema) in &release.schemas {
            let mask = releases.schemas.entry(name.clone()).or_default();
            if mask.is_empty() {
                order.push(name.clone());
            }
            *mask = mask.with(bit);
            if let Some(Value::Object(properties)) = schema.value.get("properties") {
                for (property, node) in properties {
                    let key = (name.clone(), property.clone());
                    let mask = releases.properties.entry(key).or_default();
                    *mask = mask.with(bit);
                    record_values(&mut releases, &format!("{name}.{property}"), node, bit);
                }
            }
            record_values(&mut releases, name, &schema.value, bit);
        }
        for operation in &release.operations {
            let key = (operation.path.clone(), operation.method.to_uppercase());
            let mask = releases.operations.entry(key).or_default();
            *mask = mask.with(bit);
        }
    }
    for name in order {
        let definitions: Vec<(usize, &RawSchema)> = each
            .iter()
            .enumerate()
            .filter_map(|(i, release)| release.schemas.get(&name).map(|s| (i, s)))
            .collect();
        let mut warnings = Vec::new();
        let schema = merge_schema(&releases, &definitions, &mut warnings, &mut loosened);
        shape_warnings.extend(warnings.into_iter().map(|w| (name.clone(), w)));
        api.schemas.insert(name, schema);
    }
    // Operations, resources and CRDs: the newest release's, then what older ones add.
    let mut seen_operations: BTreeSet<(String, String)> = BTreeSet::new();
    let mut seen_resources = BTreeSet::new();
    let mut seen_crds = BTreeSet::new();
    let mut seen_notes = BTreeSet::new();
    for release in each.iter().rev() {
        for operation in &release.operations {
            if seen_operations.insert((operation.path.clone(), operation.method.to_uppercase())) {
                api.operations.push(operation.clone());
            }
        }
        for resource in &release.resources {
            let key = (
                resource.group.clone(),
                resource.version.clone(),
                resource.kind.clone(),
            );
            if seen_resources.insert(key) {
                api.resources.push(resource.clone());
            }
        }
        for crd in &release.crds {
            if seen_crds.insert(crd.name.clone()) {
                api.crds.push(crd.clone());
            }
        }
        for note in &release.notes {
            if seen_notes.insert(note.to_string()) {
                api.notes.push(note.clone());
            }
        }
    }
    for release in &each {
        api.warnings.extend(release.warnings.iter().cloned());
    }
    api.builtin = super::merge::builtin_matches(&api);
    Merged {
        api,
        releases,
        each,
        loosened,
        shape_warnings,
    }
}

/// Records the releases of the string enum values of `node` (the enum made from `schema`).
fn record_values(releases: &mut Releases, schema: &str, node: &Value, bit: Mask) {
    let values = node
        .get("enum")
        .or_else(|| node.pointer("/allOf/0/enum"))
        .and_then(Value::as_array);
    for value in values.into_iter().flatten().filter_map(Value::as_str) {
        let mask = releases
            .values
            .entry((schema.to_owned(), value.to_owned()))
            .or_default();
        *mask = mask.with(bit);
    }
}

/// How a release's definition says it, for messages: `1.32 (file#pointer)`.
fn place(releases: &Releases, index: usize, origin: &Origin) -> String {
    format!("{} ({origin})", releases.names[index])
}

/// The merge of one schema's definitions (release index and definition, oldest first).
fn merge_schema(
    releases: &Releases,
    definitions: &[(usize, &RawSchema)],
    warnings: &mut Vec<Diagnostic>,
    loosened: &mut BTreeSet<(String, String)>,
) -> RawSchema {
    let (newest_index, newest) = definitions[definitions.len() - 1];
    let name = &newest.name;
    if definitions.iter().all(|(_, d)| d.value == newest.value) {
        return newest.clone();
    }
    let files = |a: &RawSchema, b: &RawSchema| (a.origin.file.clone(), b.origin.file.clone());
    // The schema's keywords besides its properties and required list.
    let rest = |value: &Value| -> Value {
        let mut map = value.as_object().cloned().unwrap_or_default();
        map.remove("properties");
        map.remove("required");
        Value::Object(map)
    };
    let mut merged_rest = rest(&newest.value);
    for (index, definition) in definitions.iter().rev().skip(1) {
        let (a, b) = files(newest, definition);
        match super::merge::schema(
            &merged_rest,
            &rest(&definition.value),
            &mut String::new(),
            (a.as_path(), b.as_path()),
        ) {
            Ok(value) => merged_rest = value,
            Err(pointer) => warnings.push(
                Diagnostic::new(
                    ErrorKind::ReleaseShapeChange,
                    &at(&newest.origin, &pointer),
                    format!(
                        "`{name}` differs between releases at #{pointer}: `{}` in {}, `{}` in {}; generated as the newest release has it",
                        brief(definition.value.pointer(&pointer)),
                        place(releases, *index, &at(&definition.origin, &pointer)),
                        brief(newest.value.pointer(&pointer)),
                        place(releases, newest_index, &at(&newest.origin, &pointer)),
                    ),
                ),
            ),
        }
    }
    // Properties: the newest order, then those only older releases have.
    let mut order: Vec<String> = Vec::new();
    for (_, definition) in definitions.iter().rev() {
        if let Some(Value::Object(properties)) = definition.value.get("properties") {
            for key in properties.keys() {
                if !order.contains(key) {
                    order.push(key.clone());
                }
            }
        }
    }
    let required_in = |definition: &RawSchema, property: &str| {
        definition
            .value
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|names| names.iter().any(|n| n == property))
    };
    let mut properties = Map::new();
    let mut required = Vec::new();
    for property in &order {
        let having: Vec<(usize, &RawSchema, &Value)> = definitions
            .iter()
            .filter_map(|(i, d)| Some((*i, *d, d.value.get("properties")?.get(property)?)))
            .collect();
        let pointer = format!(
            "/properties/{}",
            property.replace('~', "~0").replace('/', "~1")
        );
        let (base_index, base_definition, base) = having[having.len() - 1];
        let mut node = base.clone();
        let mut differs: Option<(usize, &RawSchema, &Value)> = None;
        for &(index, definition, other) in having.iter().rev().skip(1) {
            let (a, b) = files(base_definition, definition);
            match super::merge::schema(&node, other, &mut String::new(), (a.as_path(), b.as_path()))
            {
                Ok(value) => node = value,
                Err(_) => {
                    differs = Some((index, definition, other));
                    break;
                }
            }
        }
        if let Some((index, definition, other)) = differs {
            let mut shapes: Vec<String> = Vec::new();
            for (i, d, value) in [
                (index, definition, other),
                (base_index, base_definition, base),
            ] {
                shapes.push(format!(
                    "`{}` in {}",
                    brief(Some(&shape_only(value))),
                    place(releases, i, &at(&d.origin, &pointer))
                ));
            }
            warnings.push(
                Diagnostic::new(
                    ErrorKind::ReleaseShapeChange,
                    &at(&base_definition.origin, &pointer),
                    format!(
                        "the property `{property}` of `{name}` changes type between releases: {}; generated as free-form JSON (`serde_json::Value`), which reads both",
                        shapes.join(", ")
                    ),
                )
                .with_hint("a projection onto one release (`Config::only_release`, `--release`) keeps that release's type"),
            );
            let mut free = Map::new();
            if let Some(description) = base.get("description") {
                free.insert("description".to_owned(), description.clone());
            }
            node = Value::Object(free);
            loosened.insert((name.clone(), property.clone()));
        }
        properties.insert(property.clone(), node);
        // Required only where every release with the schema requires it.
        let requiring: Vec<usize> = definitions
            .iter()
            .filter(|(_, d)| required_in(d, property))
            .map(|(i, _)| *i)
            .collect();
        if requiring.len() == definitions.len() {
            required.push(Value::String(property.clone()));
        } else if !requiring.is_empty() {
            let describe = |(_, definition): &(usize, &RawSchema)| {
                let state = if required_in(definition, property) {
                    "required"
                } else if definition
                    .value
                    .get("properties")
                    .and_then(|p| p.get(property))
                    .is_some()
                {
                    "optional"
                } else {
                    "absent"
                };
                let pointer = if state == "absent" { "" } else { "/required" };
                (state, at(&definition.origin, pointer).to_string())
            };
            // Runs of releases in one state, each with the place in its newest release.
            let mut runs: Vec<(&str, Vec<&str>, String)> = Vec::new();
            for definition in definitions {
                let (state, place) = describe(definition);
                let release = releases.names[definition.0].as_str();
                match runs.last_mut() {
                    Some((last, names, at)) if *last == state => {
                        names.push(release);
                        *at = place;
                    }
                    _ => runs.push((state, vec![release], place)),
                }
            }
            let states: Vec<String> = runs
                .iter()
                .map(|(state, names, place)| format!("{state} in {} ({place})", names.join(", ")))
                .collect();
            warnings.push(
                Diagnostic::new(
                    ErrorKind::ReleaseShapeChange,
                    &at(&newest.origin, "/required"),
                    format!(
                        "the property `{property}` of `{name}` is not required in every release: {}; generated optional, which reads every release's objects",
                        states.join(", ")
                    ),
                ),
            );
        }
    }
    let mut value = merged_rest.as_object().cloned().unwrap_or_default();
    if !properties.is_empty() {
        value.insert("properties".to_owned(), Value::Object(properties));
    }
    if !required.is_empty() {
        value.insert("required".to_owned(), Value::Array(required));
    }
    RawSchema {
        name: name.clone(),
        value: Value::Object(value),
        origin: newest.origin.clone(),
    }
}

/// A property's definition without its documentation, for messages.
fn shape_only(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !super::merge::IGNORED.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), shape_only(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The node `pointer` below `origin`.
fn at(origin: &Origin, pointer: &str) -> Origin {
    Origin {
        file: origin.file.clone(),
        pointer: format!("{}{pointer}", origin.pointer),
    }
}

/// A short rendering of a value for messages.
fn brief(value: Option<&Value>) -> String {
    let Some(value) = value else {
        return "absent".to_owned();
    };
    let text = value.to_string();
    if text.chars().count() > 80 {
        format!("{}…", text.chars().take(80).collect::<String>())
    } else {
        text
    }
}

/// The merged input as the release at `index` has it: only its schemas, properties, enum
/// values and operations, each property required as that release requires it (a property
/// made free-form JSON takes the release's own definition back), its own operations (their
/// parameters as it declares them), resources, CRDs and notes.
pub(crate) fn project(merged: &Merged, index: usize) -> RawApi {
    let releases = &merged.releases;
    let own = &merged.each[index];
    let mut api = RawApi::default();
    for (name, schema) in &merged.api.schemas {
        if !releases.schema(name).has(index) {
            continue;
        }
        let Some(mine) = own.schemas.get(name) else {
            continue;
        };
        let mut value = schema.value.clone();
        if let Some(map) = value.as_object_mut() {
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                properties.retain(|property, _| releases.property(name, property).has(index));
                for (property, node) in properties.iter_mut() {
                    if merged.loosened.contains(&(name.clone(), property.clone())) {
                        if let Some(theirs) = mine.value.pointer(&format!(
                            "/properties/{}",
                            property.replace('~', "~0").replace('/', "~1")
                        )) {
                            *node = theirs.clone();
                        }
                    } else {
                        keep_values(node, &format!("{name}.{property}"), releases, index);
                    }
                }
            }
            map.remove("required");
            if let Some(required) = mine.value.get("required") {
                map.insert("required".to_owned(), required.clone());
            }
        }
        keep_values(&mut value, name, releases, index);
        api.schemas.insert(
            name.clone(),
            RawSchema {
                name: name.clone(),
                value,
                origin: mine.origin.clone(),
            },
        );
    }
    api.operations = own.operations.clone();
    api.resources = own.resources.clone();
    api.crds = own.crds.clone();
    api.notes = own.notes.clone();
    api.warnings = own.warnings.clone();
    api.builtin = super::merge::builtin_matches(&api);
    api
}

/// Leaves in the string enum of `node` only the values the release at `index` has.
fn keep_values(node: &mut Value, schema: &str, releases: &Releases, index: usize) {
    let values = match node.get_mut("enum") {
        Some(Value::Array(values)) => values,
        _ => return,
    };
    values.retain(|value| {
        value
            .as_str()
            .is_none_or(|v| releases.value(schema, v).has(index))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn schema(file: &str, name: &str, value: Value) -> RawSchema {
        RawSchema {
            name: name.to_owned(),
            value,
            origin: Origin {
                file: Path::new(file).to_path_buf(),
                pointer: format!("/definitions/{name}"),
            },
        }
    }

    fn release(file: &str, schemas: Vec<(&str, Value)>) -> RawApi {
        let mut api = RawApi::default();
        for (name, value) in schemas {
            api.schemas
                .insert(name.to_owned(), schema(file, name, value));
        }
        api
    }

    #[test]
    fn properties_carry_their_releases_and_requiredness_narrows() {
        let old = release(
            "old.json",
            vec![(
                "a.B",
                json!({"type": "object", "required": ["x", "y"], "properties": {
                    "x": {"type": "string"}, "y": {"type": "string"}}}),
            )],
        );
        let new = release(
            "new.json",
            vec![(
                "a.B",
                json!({"type": "object", "required": ["x"], "properties": {
                    "x": {"type": "string"}, "y": {"type": "string"}, "z": {"type": "integer"}}}),
            )],
        );
        let merged = merge(vec![("1.1".into(), old), ("1.2".into(), new)]);
        let r = &merged.releases;
        let warnings: Vec<&Diagnostic> = merged.shape_warnings.iter().map(|(_, w)| w).collect();
        assert_eq!(r.property("a.B", "x"), Mask(0b11));
        assert_eq!(r.property("a.B", "z"), Mask(0b10));
        let value = &merged.api.schemas["a.B"].value;
        assert_eq!(value["required"], json!(["x"]));
        assert_eq!(warnings.len(), 1);
        let message = &warnings[0].message;
        assert!(message.contains("`y`"), "{message}");
        assert!(
            message.contains("required in 1.1 (old.json#/definitions/a.B/required)"),
            "{message}"
        );
        assert!(message.contains("optional in 1.2"), "{message}");
        // The projection onto the old release has its fields and its required list.
        let old = project(&merged, 0);
        assert_eq!(
            old.schemas["a.B"].value,
            json!({"type": "object", "required": ["x", "y"], "properties": {
                "x": {"type": "string"}, "y": {"type": "string"}}})
        );
        assert_eq!(old.schemas["a.B"].origin.file, Path::new("old.json"));
    }

    #[test]
    fn a_changed_type_reads_both_and_says_so() {
        let old = release(
            "old.json",
            vec![(
                "a.B",
                json!({"type": "object", "properties": {"x": {"type": "string"}}}),
            )],
        );
        let new = release(
            "new.json",
            vec![(
                "a.B",
                json!({"type": "object", "properties": {"x": {"type": "integer"}}}),
            )],
        );
        let merged = merge(vec![("1.1".into(), old), ("1.2".into(), new)]);
        assert_eq!(
            merged.api.schemas["a.B"].value["properties"]["x"],
            json!({})
        );
        let message = &merged.shape_warnings[0].1.message;
        assert!(
            message
                .contains(r#"`{"type":"string"}` in 1.1 (old.json#/definitions/a.B/properties/x)"#),
            "{message}"
        );
        assert!(
            message.contains(r#"`{"type":"integer"}` in 1.2"#),
            "{message}"
        );
        assert_eq!(
            project(&merged, 0).schemas["a.B"].value["properties"]["x"],
            json!({"type": "string"})
        );
    }

    #[test]
    fn enum_values_carry_their_releases() {
        let old = release(
            "old.json",
            vec![(
                "a.B",
                json!({"type": "object", "properties": {"x": {"type": "string", "enum": ["A"]}}}),
            )],
        );
        let new = release(
            "new.json",
            vec![(
                "a.B",
                json!({"type": "object", "properties": {"x": {"type": "string", "enum": ["A", "B"]}}}),
            )],
        );
        let merged = merge(vec![("1.1".into(), old), ("1.2".into(), new)]);
        assert_eq!(merged.releases.value("a.B.x", "B"), Mask(0b10));
        assert_eq!(merged.releases.value("a.B.x", "A"), Mask(0b11));
        assert_eq!(
            project(&merged, 0).schemas["a.B"].value["properties"]["x"]["enum"],
            json!(["A"])
        );
    }
}
