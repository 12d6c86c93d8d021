//! Merging documents into one API set. Real inputs repeat definitions (every Kubernetes
//! OpenAPI v3 document carries its own copy of the meta types), so identical definitions
//! are kept once; different definitions under one name are an error naming both places.

use serde_json::Value;

use super::{Document, RawApi, RawSchema};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind};

/// Merges documents in the order given. Where a schema or operation references a built-in
/// meta type that no document defines (CRDs reference `ObjectMeta`), the built-in
/// definition fills the gap, with what it references in turn; a definition from the inputs
/// always wins over a built-in one.
pub(crate) fn merge(documents: Vec<Document>) -> Result<RawApi, Error> {
    let mut api = RawApi::default();
    let mut diagnostics = Diagnostics::default();
    for document in documents {
        for schema in document.schemas {
            match api.schemas.get(&schema.name) {
                None => {
                    api.schemas.insert(schema.name.clone(), schema);
                }
                Some(existing) if existing.value == schema.value => {}
                Some(existing) => diagnostics.push(conflict(existing, &schema)),
            }
        }
        api.operations.extend(document.operations);
        api.resources.extend(document.resources);
    }
    let mut api = diagnostics.finish(api)?;
    super::fixups::apply(&mut api)?;
    fill_from_builtin(&mut api);
    Ok(api)
}

/// Two different definitions of one name: where they first differ, and, when one is the
/// list type generated for a CRD kind, why the two cannot simply be made identical.
fn conflict(existing: &RawSchema, schema: &RawSchema) -> Diagnostic {
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
        return Diagnostic::new(
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
        ));
    }
    let (pointer, here, there) = first_difference(&schema.value, &existing.value);
    let mut origin = schema.origin.clone();
    origin.pointer.push_str(&pointer);
    Diagnostic::new(
        ErrorKind::ConflictingDefinition,
        &origin,
        format!(
            "expected this definition of `{}` to equal the one at {}, but they first differ at `#{pointer}`: {here} here, {there} there",
            schema.name, existing.origin
        ),
    )
    .with_hint("generate the two documents separately, or make the definitions identical")
}

/// The JSON pointer (relative to both values) of the first place `a` and `b` differ, in
/// `a`'s key order, with a short description of each side there.
fn first_difference(a: &Value, b: &Value) -> (String, String, String) {
    let describe = |v: Option<&Value>| match v {
        None => "absent".to_owned(),
        Some(Value::Object(_)) => "an object".to_owned(),
        Some(Value::Array(items)) => format!("an array of {}", items.len()),
        Some(scalar) => {
            let text = scalar.to_string();
            if text.chars().count() > 40 {
                format!("{}…", text.chars().take(40).collect::<String>())
            } else {
                text
            }
        }
    };
    let (mut a, mut b) = (a, b);
    let mut pointer = String::new();
    loop {
        let next = match (a, b) {
            (Value::Object(x), Value::Object(y)) => x
                .iter()
                .map(|(k, v)| (k.clone(), Some(v), y.get(k)))
                .chain(
                    y.iter()
                        .filter(|(k, _)| !x.contains_key(*k))
                        .map(|(k, v)| (k.clone(), None, Some(v))),
                )
                .find(|(_, p, q)| p != q),
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
                .iter()
                .zip(y)
                .enumerate()
                .map(|(i, (p, q))| (i.to_string(), Some(p), Some(q)))
                .find(|(_, p, q)| p != q),
            _ => None,
        };
        match next {
            Some((token, Some(p), Some(q))) => {
                pointer.push('/');
                pointer.push_str(&token.replace('~', "~0").replace('/', "~1"));
                (a, b) = (p, q);
            }
            Some((token, p, q)) => {
                pointer.push('/');
                pointer.push_str(&token.replace('~', "~0").replace('/', "~1"));
                return (pointer, describe(p), describe(q));
            }
            None => return (pointer, describe(Some(a)), describe(Some(b))),
        }
    }
}

fn fill_from_builtin(api: &mut RawApi) {
    let mut wanted = Vec::new();
    for schema in api.schemas.values() {
        super::select::collect_refs(&schema.value, &mut wanted);
    }
    for operation in &api.operations {
        super::select::collect_refs(&operation.value, &mut wanted);
    }
    wanted.retain(|name| !api.schemas.contains_key(name));
    if wanted.is_empty() {
        return;
    }
    let builtin: indexmap::IndexMap<String, super::RawSchema> = super::builtin()
        .schemas
        .into_iter()
        .map(|s| (s.name.clone(), s))
        .collect();
    while let Some(name) = wanted.pop() {
        if api.schemas.contains_key(&name) {
            continue;
        }
        if let Some(schema) = builtin.get(&name) {
            super::select::collect_refs(&schema.value, &mut wanted);
            api.schemas.insert(name, schema.clone());
        }
    }
}
