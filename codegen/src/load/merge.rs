//! Merging documents into one API set. Real inputs repeat definitions (every Kubernetes
//! OpenAPI v3 document carries its own copy of the meta types), so identical definitions
//! are kept once; different definitions under one name are an error naming both places.

use super::{Document, RawApi};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind};

/// Merges documents in the order given.
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
    }
    diagnostics.finish(api)
}
