//! Names the model numbered: the one warning per schema whose Rust name collided with
//! another's (or with one the generated crate declares) and got a number.

use super::ApiSet;
use crate::diagnostics::{Diagnostic, ErrorKind};
use crate::ground::ModuleRules;
use crate::ground::naming::{ModuleNames, type_name};

/// The named schemas that collided after naming and were numbered (`Foo_Bar` and
/// `FooBar`, or packages `x-y` and `x_y` that become one module), one warning each naming
/// both schemas and the name each got. The numbering itself is deterministic (schemas
/// claim names in sorted order); the warning makes it visible.
pub fn collisions(api: &ApiSet, rules: &ModuleRules) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    for ty in &api.types {
        let (module, base) = rules.place(&ty.schema_name);
        if module != ty.module {
            continue; // a nested type: its schema name is its parent's plus a property path
        }
        let wanted = type_name(&base);
        let numbered = ty
            .name
            .strip_prefix(wanted.as_str())
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if !numbered {
            continue;
        }
        let path = |name: &str| {
            let mut segments = ty.module.clone();
            segments.push(name.to_owned());
            segments.join("::")
        };
        let message = if ModuleNames::new(&ty.module).types.is_taken(&wanted) {
            format!(
                "the schema `{}` becomes the Rust type `{}`, which the generated crate declares itself; it is generated as `{}`",
                ty.schema_name,
                path(&wanted),
                path(&ty.name)
            )
        } else {
            let holder = api
                .types
                .iter()
                .find(|other| other.module == ty.module && other.name == wanted)
                .map_or_else(
                    || "another type".to_owned(),
                    |other| format!("`{}`", other.schema_name),
                );
            format!(
                "the schemas {holder} and `{}` both become the Rust type `{}`; `{}` is generated as `{}`",
                ty.schema_name,
                path(&wanted),
                ty.schema_name,
                path(&ty.name)
            )
        };
        warnings.push(Diagnostic::new(
            ErrorKind::NumberedName,
            &ty.origin,
            message,
        ));
    }
    warnings
}
