//! What every write is checked with before it is stored: the body's `apiVersion` and
//! `kind`, the built-in defaults and the kind's validator, decoding as the kind's type
//! with `fieldValidation`, and the namespace of the request.

use serde_json::{Map, Value};

use crate::objects::catalog::{Catalog, ResourceDef};
use crate::semantics::directive::Directive;
use crate::semantics::validation::{self, Source};
use crate::verbs::Shared;
use crate::wire::status::Failure;

impl Shared {
    /// Checks a body's `apiVersion` and `kind` (filling them in when absent) and runs the
    /// kind's validator.
    pub(super) fn check(
        &self,
        catalog: &Catalog,
        index: usize,
        mut object: Value,
    ) -> Result<Value, Failure> {
        let def = &catalog.resources[index];
        let name = object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let Some(map) = object.as_object_mut() else {
            return Err(Failure::invalid(
                &def.kind,
                &name,
                "the body must be a JSON object",
            ));
        };
        let api_version = def.api_version();
        for (field, expected) in [
            ("apiVersion", api_version.as_str()),
            ("kind", def.kind.as_str()),
        ] {
            match map.get(field) {
                None | Some(Value::Null) => {
                    map.insert(field.into(), Value::from(expected));
                }
                Some(Value::String(actual)) if actual == expected => {}
                Some(actual) => {
                    return Err(Failure::invalid(
                        &def.kind,
                        &name,
                        format!(
                            "{field}: Invalid value: {actual}: must be {expected:?} for {}",
                            def.plural
                        ),
                    ));
                }
            }
        }
        let Some(map) = object.as_object_mut() else {
            return Err(Failure::internal("the body stopped being an object"));
        };
        if !map.get("metadata").is_none_or(Value::is_object) {
            return Err(Failure::invalid(
                &def.kind,
                &name,
                "metadata: must be an object",
            ));
        }
        match catalog.validator_for(def) {
            Some(validator) => {
                validator(object).map_err(|message| Failure::invalid(&def.kind, &name, message))
            }
            None => Ok(object),
        }
    }

    /// A body (or patched object) as the API server decodes it: its kind checked
    /// ([`Shared::check`]), then decoded as its type (unknown fields dropped; a custom
    /// resource pruned and defaulted, `validation::decode`); the strict decoding `errors`
    /// found before (duplicate keys) and the unknown fields are refused, warned about or
    /// ignored as `directive` says, worded for their `source`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn decoded(
        &self,
        catalog: &Catalog,
        index: usize,
        object: Value,
        mut errors: Vec<String>,
        directive: Directive,
        source: impl FnOnce() -> Source,
        warnings: &mut Vec<String>,
    ) -> Result<Value, Failure> {
        let def = &catalog.resources[index];
        let mut object = self.check(catalog, index, object)?;
        errors.extend(validation::decode(catalog, def, &mut object));
        if !errors.is_empty() {
            validation::strict(directive, def, errors, source(), warnings)?;
        }
        Ok(object)
    }

    /// The object an apply made, decoded: unknown fields cannot reach it (the apply refuses
    /// them), and its defaults are set after the apply has recorded what the applier owns,
    /// so nobody owns them, as on a real server.
    pub(super) fn applied(
        &self,
        catalog: &Catalog,
        index: usize,
        object: Value,
    ) -> Result<Value, Failure> {
        let mut object = self.check(catalog, index, object)?;
        validation::decode(catalog, &catalog.resources[index], &mut object);
        Ok(object)
    }

    /// Puts the namespace of the request into the object's metadata; a different one in the
    /// body is an error, as on a real server.
    pub(super) fn place(
        &self,
        def: &ResourceDef,
        meta: &mut Map<String, Value>,
        namespace: &str,
    ) -> Result<(), Failure> {
        if def.namespaced {
            match meta.get("namespace").and_then(Value::as_str) {
                Some(ns) if !ns.is_empty() && ns != namespace => {
                    return Err(Failure::bad_request(format!(
                        "the namespace of the provided object ({ns}) does not match the namespace sent on the request ({namespace})"
                    )));
                }
                _ => {
                    meta.insert("namespace".into(), Value::from(namespace));
                }
            }
        } else {
            meta.remove("namespace");
        }
        Ok(())
    }
}
