//! What a CustomResourceDefinition created through the API adds to the catalog, and takes
//! away when it goes: its resources (one per served version), their schemas (validation,
//! defaulting, pruning, field management), strategic merge metadata and OpenAPI documents.
//!
//! The part is read from the CRD object the same way a CRD file given at start is read
//! (`Catalog::of_crd`, through the generator's model) and kept whole beside the catalog's
//! own schemas ([`Catalog::schemas_for`] finds a resource's), so adding one costs the part,
//! not a copy of the catalog. Its resources take their old places when they had one (so
//! stored objects and watch events keep meaning the same resource). A resource whose CRD
//! went, or no longer serves its version, stays in its place with no verbs: retired,
//! served by nothing (`Catalog::find` and discovery skip it) until a CRD serves it again.

use std::sync::Arc;

use serde_json::Value;

use crate::objects::catalog::{Catalog, CustomPart};

impl Catalog {
    /// The catalog with `part`, read from the CRD `name` whose spec is `spec`, replacing
    /// what that CRD added before.
    pub(crate) fn with_custom(&self, name: &str, spec: &Value, part: Catalog) -> Catalog {
        let mut next = self.without_custom(name);
        let mut custom = CustomPart {
            spec: spec.clone(),
            schemas: part.schemas,
            patch: part.patch,
            ..CustomPart::default()
        };
        for def in part.resources {
            let index = match next.resources.iter().position(|r| {
                r.group == def.group && r.version == def.version && r.plural == def.plural
            }) {
                Some(index) => {
                    next.resources[index] = def;
                    index
                }
                None => {
                    next.resources.push(def);
                    next.resources.len() - 1
                }
            };
            custom.resources.insert(index);
        }
        next.deleted_object.extend(part.deleted_object);
        custom.documents = part
            .openapi
            .into_iter()
            .map(|(key, document)| (key, Arc::unwrap_or_clone(document)))
            .collect();
        let keys: Vec<String> = custom.documents.keys().cloned().collect();
        next.custom.insert(name.to_owned(), Arc::new(custom));
        next.rebuild_documents(&keys);
        next
    }

    /// The catalog without what the CRD `name` added: its resources retired, its documents
    /// gone.
    pub(crate) fn without_custom(&self, name: &str) -> Catalog {
        let mut next = self.clone();
        if next.openapi_base.is_none() {
            next.openapi_base = Some(next.openapi.clone());
        }
        let Some(part) = next.custom.remove(name) else {
            return next;
        };
        for index in &part.resources {
            if let Some(def) = next.resources.get_mut(*index) {
                def.verbs.clear();
                def.subresources.clear();
            }
        }
        let keys: Vec<String> = part.documents.keys().cloned().collect();
        next.rebuild_documents(&keys);
        next
    }

    /// The part of the CRD serving the resource at `index`, with the CRD's name.
    pub(crate) fn custom_of(&self, index: usize) -> Option<(&str, &CustomPart)> {
        self.custom
            .iter()
            .find(|(_, part)| part.resources.contains(&index))
            .map(|(name, part)| (name.as_str(), &**part))
    }

    /// The resources the CRD `name` serves.
    pub(crate) fn custom_resources(&self, name: &str) -> Vec<usize> {
        self.custom
            .get(name)
            .map(|part| part.resources.iter().copied().collect())
            .unwrap_or_default()
    }

    /// Whether the CRD `name` is served from `spec`.
    pub(crate) fn serves_custom(&self, name: &str, spec: &Value) -> bool {
        self.custom.get(name).is_some_and(|part| part.spec == *spec)
    }

    /// The documents at `keys`: the one the catalog started with, if any, with every CRD
    /// part's schemas and paths for that key added.
    fn rebuild_documents(&mut self, keys: &[String]) {
        for key in keys {
            let base = self.openapi_base.as_ref().and_then(|b| b.get(key)).cloned();
            let mut document: Option<Value> = base.map(Arc::unwrap_or_clone);
            for part in self.custom.values() {
                let Some(piece) = part.documents.get(key) else {
                    continue;
                };
                match &mut document {
                    None => document = Some(piece.clone()),
                    Some(document) => {
                        for section in ["/paths", "/components/schemas"] {
                            if let (Some(Value::Object(into)), Some(Value::Object(from))) =
                                (document.pointer_mut(section), piece.pointer(section))
                            {
                                into.extend(from.iter().map(|(k, v)| (k.clone(), v.clone())));
                            }
                        }
                    }
                }
            }
            match document {
                Some(document) => {
                    self.openapi.insert(key.clone(), Arc::new(document));
                }
                None => {
                    self.openapi.remove(key);
                }
            }
        }
    }
}
