//! Merging documents into one API set. Real inputs repeat definitions (every Kubernetes
//! OpenAPI v3 document carries its own copy of the meta types), so identical definitions
//! are kept once; different definitions under one name are an error naming both places.

use super::{Document, RawApi};
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
                Some(existing) => diagnostics.push(
                    Diagnostic::new(
                        ErrorKind::ConflictingDefinition,
                        &schema.origin,
                        format!(
                            "expected this definition of `{}` to equal the one at {}, but they differ",
                            schema.name, existing.origin
                        ),
                    )
                    .with_hint("generate the two documents separately, or make the definitions identical"),
                ),
            }
        }
        api.operations.extend(document.operations);
        api.resources.extend(document.resources);
        api.notes.extend(document.notes);
    }
    let mut api = diagnostics.finish(api)?;
    super::fixups::apply(&mut api)?;
    fill_from_builtin(&mut api);
    Ok(api)
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
