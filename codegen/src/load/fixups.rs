//! Named fixes for known bugs in upstream documents. Each fixup says what is wrong and why
//! the fix is right, applies only to the input it targets, and fails loudly once the bug it
//! fixes is gone, so fixups never outlive their reason.

use serde_json::{Value, json};

use super::RawApi;
use crate::diagnostics::{Diagnostic, Error, ErrorKind};

/// One known upstream bug and its fix.
pub struct Fixup {
    /// A stable name, used in messages and docs.
    pub name: &'static str,
    /// What is wrong upstream, and why the fix is right.
    pub why: &'static str,
    apply: fn(&mut RawApi) -> Outcome,
}

/// What a fixup did to an input.
enum Outcome {
    /// The input is not the one the fixup targets.
    NotRelevant,
    /// The bug was there and is fixed.
    Applied,
    /// The targeted input no longer has the bug: the fixup must be removed.
    Stale(String),
}

/// Every fixup, in the order applied.
pub const FIXUPS: &[Fixup] = &[Fixup {
    name: "openshift-egress-router-missing-definitions",
    why: "openshift/api's openapi.json defines EgressRouter and EgressRouterSpec \
          (networkoperator.v1) but not the four types they reference (EgressRouterStatus, \
          EgressRouterAddress, EgressRouterInterface, RedirectConfig): openapi-gen skipped \
          them. The references become free-form JSON, which keeps every value losslessly.",
    apply: openshift_egress_router,
}];

const EGRESS_PACKAGE: &str = "com.github.openshift.api.networkoperator.v1.";
const EGRESS_MISSING: [&str; 4] = [
    "EgressRouterStatus",
    "EgressRouterAddress",
    "EgressRouterInterface",
    "RedirectConfig",
];

fn openshift_egress_router(api: &mut RawApi) -> Outcome {
    let spec = format!("{EGRESS_PACKAGE}EgressRouterSpec");
    if !api.schemas.contains_key(&spec) {
        return Outcome::NotRelevant;
    }
    let missing: Vec<String> = EGRESS_MISSING
        .iter()
        .map(|name| format!("{EGRESS_PACKAGE}{name}"))
        .filter(|name| !api.schemas.contains_key(name))
        .collect();
    if missing.len() < EGRESS_MISSING.len() {
        return Outcome::Stale(format!(
            "the input now defines {} of the four missing EgressRouter types",
            EGRESS_MISSING.len() - missing.len()
        ));
    }
    let targets: Vec<String> = missing
        .iter()
        .map(|name| format!("#/components/schemas/{name}"))
        .collect();
    for schema in api.schemas.values_mut() {
        replace_refs(&mut schema.value, &targets);
    }
    Outcome::Applied
}

/// Replaces every schema `{"$ref": target}` (keeping its siblings, such as a description)
/// with a free-form object.
fn replace_refs(value: &mut Value, targets: &[String]) {
    match value {
        Value::Object(map) => {
            let is_target = map
                .get("$ref")
                .and_then(Value::as_str)
                .is_some_and(|r| targets.iter().any(|t| t == r));
            if is_target {
                map.remove("$ref");
                map.insert("type".to_owned(), json!("object"));
                map.insert(
                    "x-kubernetes-preserve-unknown-fields".to_owned(),
                    json!(true),
                );
                return;
            }
            map.values_mut()
                .for_each(|child| replace_refs(child, targets));
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| replace_refs(item, targets)),
        _ => {}
    }
}

/// Applies every relevant fixup; a stale one is an error naming it.
pub(crate) fn apply(api: &mut RawApi) -> Result<(), Error> {
    for fixup in FIXUPS {
        if let Outcome::Stale(reason) = (fixup.apply)(api) {
            let origin = api
                .schemas
                .values()
                .next()
                .map(|s| s.origin.clone())
                .unwrap_or_else(|| {
                    crate::diagnostics::Origin::root(std::path::Path::new("<input>"))
                });
            return Err(Diagnostic::new(
                ErrorKind::StaleFixup,
                &origin,
                format!("expected the fixup `{}` to apply, but {reason}", fixup.name),
            )
            .with_hint(format!(
                "the upstream bug is fixed: remove the fixup from codegen/src/load/fixups.rs (it was there because {})",
                fixup.why
            ))
            .into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Origin;
    use crate::load::RawSchema;
    use std::path::Path;

    fn api(names: &[&str]) -> RawApi {
        let mut api = RawApi::default();
        for name in names {
            let value = json!({"type": "object", "properties": {
                "status": {"$ref": format!("#/components/schemas/{EGRESS_PACKAGE}EgressRouterStatus"), "description": "kept"},
                "addresses": {"type": "array", "items": {"$ref": format!("#/components/schemas/{EGRESS_PACKAGE}EgressRouterAddress")}}
            }});
            api.schemas.insert(
                (*name).to_owned(),
                RawSchema {
                    name: (*name).to_owned(),
                    value,
                    origin: Origin::root(Path::new("x.json")),
                },
            );
        }
        api
    }

    #[test]
    fn applies_only_where_relevant_and_fails_once_stale() {
        let mut unrelated = api(&["io.k8s.api.core.v1.Pod"]);
        assert!(apply(&mut unrelated).is_ok());
        assert!(
            unrelated.schemas[0]
                .value
                .pointer("/properties/status/$ref")
                .is_some()
        );

        let spec = format!("{EGRESS_PACKAGE}EgressRouterSpec");
        let mut buggy = api(&[&spec]);
        assert!(apply(&mut buggy).is_ok());
        let fixed = &buggy.schemas[&spec].value;
        assert_eq!(
            fixed.pointer("/properties/status/type"),
            Some(&json!("object"))
        );
        assert_eq!(
            fixed.pointer("/properties/status/description"),
            Some(&json!("kept"))
        );
        assert_eq!(
            fixed.pointer("/properties/addresses/items/x-kubernetes-preserve-unknown-fields"),
            Some(&json!(true))
        );

        let status = format!("{EGRESS_PACKAGE}EgressRouterStatus");
        let mut repaired_upstream = api(&[&spec, &status]);
        let e = apply(&mut repaired_upstream).expect_err("stale fixup");
        assert_eq!(e.kinds(), [ErrorKind::StaleFixup]);
        assert!(
            e.to_string()
                .contains("openshift-egress-router-missing-definitions"),
            "{e}"
        );
    }
}
