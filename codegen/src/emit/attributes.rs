//! User attributes on generated types and fields (`Config::type_attribute`,
//! `Config::field_attribute`, `Config::derive`), resolved against the model once.
//!
//! Which types a pattern names:
//!
//! | pattern | matches |
//! |---|---|
//! | `*` | every generated struct and enum |
//! | `com.github.openshift.api.image.v1.ImageStream` | the type made from that schema (a nested type by its schema name, `Parent.property`) |
//! | `com.github.openshift.api.image.v1.*` | every type whose schema name starts with the package (nested types and sub-packages included) |
//! | `openshift::image::v1::ImageStream` | the type with that Rust path below the generated root |
//! | `openshift::image::*` | every type in that module or below it |
//! | `TagReferencePolicy` | every type of that Rust name, in any module (kopium's `--derive NAME=TRAIT`) |
//!
//! A pattern is a Rust path when it contains `::`, a schema name otherwise. A field is named
//! by its JSON name or its Rust name, or `*` for every field. Aliases and extern types take
//! no attributes. A pattern that matches nothing is an error (`error[empty-selection]`), as
//! is an attribute that does not parse.

use std::collections::BTreeMap;
use std::path::Path;

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::Parser as _;

use super::Options;
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Origin};
use crate::model::{ApiSet, TypeDef, TypeId, TypeKind};

/// The resolved attributes: for each type, and for each field of a struct (by index).
#[derive(Default)]
pub(crate) struct Attributes {
    types: BTreeMap<TypeId, TokenStream>,
    fields: BTreeMap<(TypeId, usize), TokenStream>,
}

enum Pattern {
    All,
    Schema(String),
    SchemaPackage(String),
    Rust(Vec<String>),
    RustModule(Vec<String>),
}

impl Pattern {
    fn parse(text: &str) -> Pattern {
        let segments = |path: &str| path.split("::").map(str::to_owned).collect();
        if text == "*" {
            Pattern::All
        } else if let Some(module) = text.strip_suffix("::*") {
            Pattern::RustModule(segments(module))
        } else if text.contains("::") {
            Pattern::Rust(segments(text))
        } else if let Some(package) = text.strip_suffix('*') {
            Pattern::SchemaPackage(package.to_owned())
        } else {
            Pattern::Schema(text.to_owned())
        }
    }

    fn matches(&self, ty: &TypeDef) -> bool {
        match self {
            Pattern::All => true,
            // A plain name (no package) also names types by their Rust name, as kopium does.
            Pattern::Schema(name) => {
                ty.schema_name == *name || (!name.contains('.') && ty.name == *name)
            }
            Pattern::SchemaPackage(prefix) => ty.schema_name.starts_with(prefix.as_str()),
            Pattern::Rust(path) => {
                path.len() == ty.module.len() + 1
                    && path[..ty.module.len()] == ty.module[..]
                    && path[ty.module.len()] == ty.name
            }
            Pattern::RustModule(module) => ty.module.starts_with(module),
        }
    }
}

fn config_error(message: String, hint: &str) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::Output,
        &Origin::root(Path::new("<config>")),
        message,
    )
    .with_hint(hint)
}

fn parse_attribute(text: &str, diagnostics: &mut Diagnostics) -> Option<TokenStream> {
    let problem = match syn::Attribute::parse_outer.parse_str(text) {
        Ok(attributes) if !attributes.is_empty() => return Some(quote!(#(#attributes)*)),
        Ok(_) => String::new(),
        Err(e) => format!(": {e}"),
    };
    diagnostics.push(config_error(
        format!("expected an attribute such as `#[derive(Hash)]`, found {text:?}{problem}"),
        "write the attribute with `#[…]`",
    ));
    None
}

/// The types that take attributes and that `pattern` matches.
fn matching<'a>(api: &'a ApiSet, pattern: &Pattern) -> impl Iterator<Item = (TypeId, &'a TypeDef)> {
    api.types
        .iter()
        .enumerate()
        .filter(|(_, ty)| matches!(ty.kind, TypeKind::Struct(_) | TypeKind::Enum(_)))
        .filter(move |(_, ty)| pattern.matches(ty))
        .map(|(i, ty)| (TypeId(i), ty))
}

impl Attributes {
    /// Resolves the options' patterns, reporting every problem.
    pub(crate) fn resolve(api: &ApiSet, options: &Options) -> Result<Attributes, Error> {
        let mut attributes = Attributes::default();
        let mut diagnostics = Diagnostics::default();
        for (pattern_text, attribute) in &options.type_attributes {
            let Some(attribute) = parse_attribute(attribute, &mut diagnostics) else {
                continue;
            };
            let pattern = Pattern::parse(pattern_text);
            let mut any = false;
            for (id, _) in matching(api, &pattern) {
                any = true;
                attributes
                    .types
                    .entry(id)
                    .or_default()
                    .extend(attribute.clone());
            }
            if !any {
                diagnostics.push(empty(pattern_text, None));
            }
        }
        for (pattern_text, field, attribute) in &options.field_attributes {
            let Some(attribute) = parse_attribute(attribute, &mut diagnostics) else {
                continue;
            };
            let pattern = Pattern::parse(pattern_text);
            let mut any = false;
            for (id, ty) in matching(api, &pattern) {
                let TypeKind::Struct(fields) = &ty.kind else {
                    continue;
                };
                for (index, f) in fields.iter().enumerate() {
                    if field == "*" || f.json_name == *field || f.rust_name == *field {
                        any = true;
                        attributes
                            .fields
                            .entry((id, index))
                            .or_default()
                            .extend(attribute.clone());
                    }
                }
            }
            if !any {
                diagnostics.push(empty(pattern_text, Some(field)));
            }
        }
        diagnostics.finish(attributes)
    }

    /// Whether the user gave the struct `id` or one of its fields a `#[serde(…)]` attribute,
    /// which only serde's derive reads.
    pub(crate) fn has_serde(&self, id: TypeId) -> bool {
        let is_serde = |tokens: &TokenStream| {
            syn::Attribute::parse_outer
                .parse2(tokens.clone())
                .is_ok_and(|attributes| attributes.iter().any(|a| a.path().is_ident("serde")))
        };
        self.types.get(&id).is_some_and(is_serde)
            || self
                .fields
                .range((id, 0)..=(id, usize::MAX))
                .any(|(_, tokens)| is_serde(tokens))
    }

    /// The attributes of the type `id`.
    pub(crate) fn of_type(&self, id: TypeId) -> Option<&TokenStream> {
        self.types.get(&id)
    }

    /// The attributes of field `index` of the struct `id`.
    pub(crate) fn of_field(&self, id: TypeId, index: usize) -> Option<&TokenStream> {
        self.fields.get(&(id, index))
    }
}

fn empty(pattern: &str, field: Option<&str>) -> Diagnostic {
    let what = match field {
        Some(field) => format!("a field {field:?} of a struct that {pattern:?} names"),
        None => format!("a struct or enum that {pattern:?} names"),
    };
    Diagnostic::new(
        ErrorKind::EmptySelection,
        &Origin::root(Path::new("<config>")),
        format!("expected an attribute to apply to {what}, but there is none"),
    )
    .with_hint(
        "name types by schema name (`io.k8s.api.core.v1.Pod`, `io.k8s.api.core.v1.*`), by Rust path below the generated root (`api::core::v1::Pod`, `api::core::*`), or `*`; fields by JSON or Rust name",
    )
}
