//! User attributes on generated types and fields (`Config::type_attribute`,
//! `Config::field_attribute`, `Config::derive`), resolved against the model once.
//!
//! Types are named by a [`Pattern`] (the one pattern language, `pattern.rs`), matched
//! against every struct and enum (string enums and unions); aliases and extern types take
//! no attributes. A field is named by its JSON name, its Rust name, or `*` for every field.
//! A derive the model says is elided on a type (`TypeDef::elides_derive`: already derived,
//! or `Default`/`Eq` where it does not hold) is left out there. A pattern that matches
//! nothing is an error (`error[empty-selection]`) naming the near matches, as is an
//! attribute that does not parse.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use syn::parse::Parser as _;

use super::{Options, TypeAttribute};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Origin};
use crate::ground::pattern::Pattern;
use crate::model::{ApiSet, TypeDef, TypeId, TypeKind};

/// The resolved attributes: for each type, and for each field of a struct (by index), as
/// formatted lines at indentation zero ([`spell`]).
#[derive(Default)]
pub(crate) struct Attributes {
    types: BTreeMap<TypeId, String>,
    fields: BTreeMap<(TypeId, usize), String>,
    /// The structs that have a `#[serde(…)]` attribute, on themselves or a field.
    serde: BTreeSet<TypeId>,
}

/// Where an attribute goes: on an item, or on a struct's field.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    Item,
    Field,
}

/// The one spelling of a user's attributes (`text`, which [`parse_attribute`] checked):
/// formatted by prettyplease as it formats them on an item or a field (so a long attribute
/// wraps as it always has, and any attribute Rust accepts is written), as lines at
/// indentation zero, each ending with a newline.
pub(crate) fn spell(text: &str, place: Place) -> String {
    let source = match place {
        Place::Item => format!("{text}\nstruct S;"),
        Place::Field => format!("struct S {{\n{text}\nf: () }}"),
    };
    let Ok(file) = syn::parse_file(&source) else {
        // Checked to be attributes; never reached.
        return format!("{text}\n");
    };
    let printed = prettyplease::unparse(&file);
    let mut out = String::new();
    for line in printed.lines() {
        let line = match place {
            Place::Item if line == "struct S;" => break,
            Place::Item => line,
            Place::Field if line == "struct S {" => continue,
            Place::Field if line == "    f: ()," => break,
            Place::Field => line.strip_prefix("    ").unwrap_or(line),
        };
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// An attribute the generator writes (`#[derive(…)]`, `#[serde(…)]`) as lines at
/// indentation zero: on one line when it fits at indentation `indent` by prettyplease's
/// measure, and otherwise broken as prettyplease breaks it on an item (or a field) at
/// indentation zero (`pretty::attribute`), the place [`spell`] formats a user's attributes.
pub(crate) fn spell_text(text: &str, indent: usize, place: Place) -> String {
    if super::text::fits_at(indent, text.len()) {
        return format!("{text}\n");
    }
    let at = match place {
        Place::Item => 0,
        Place::Field => 4,
    };
    match super::pretty::attribute(text, at) {
        Some(lines) => lines
            .lines()
            .map(|line| format!("{}\n", line.get(at..).unwrap_or_default()))
            .collect(),
        // Made of checked names and literals, one `#[path(…)]`; never reached.
        None => format!("{text}\n"),
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

fn parse_attribute(text: &str, diagnostics: &mut Diagnostics) -> Option<Vec<syn::Attribute>> {
    let problem = match syn::Attribute::parse_outer.parse_str(text) {
        Ok(attributes) if !attributes.is_empty() => return Some(attributes),
        Ok(_) => String::new(),
        Err(e) => format!(": {e}"),
    };
    diagnostics.push(config_error(
        format!("expected an attribute such as `#[derive(Hash)]`, found {text:?}{problem}"),
        "write the attribute with `#[…]`",
    ));
    None
}

/// The types that take attributes.
fn candidates(api: &ApiSet) -> impl Iterator<Item = (TypeId, &TypeDef)> {
    api.types
        .iter()
        .enumerate()
        .filter(|(_, ty)| {
            matches!(
                ty.kind,
                TypeKind::Struct(_) | TypeKind::Enum(_) | TypeKind::Union(_)
            )
        })
        .map(|(i, ty)| (TypeId(i), ty))
}

fn parse_pattern(text: &str, diagnostics: &mut Diagnostics) -> Option<Pattern> {
    match text.parse() {
        Ok(pattern) => Some(pattern),
        Err(e) => {
            diagnostics.push(config_error(e, "see `kubeforge::Pattern` for the syntax"));
            None
        }
    }
}

impl Attributes {
    /// Resolves the options' patterns, reporting every problem.
    pub(crate) fn resolve(api: &ApiSet, options: &Options) -> Result<Attributes, Error> {
        let mut attributes = Attributes::default();
        let mut diagnostics = Diagnostics::default();
        let targets: Vec<_> = candidates(api).map(|(_, ty)| ty.target()).collect();
        for (pattern_text, wanted) in &options.type_attributes {
            let (text, derive) = match wanted {
                TypeAttribute::Attribute(text) => (text.clone(), None),
                TypeAttribute::Derive(path) => (format!("#[derive({path})]"), Some(path)),
            };
            let Some(attribute) = parse_attribute(&text, &mut diagnostics) else {
                continue;
            };
            let is_serde = has_serde(&attribute);
            let attribute = spell(&text, Place::Item);
            let Some(pattern) = parse_pattern(pattern_text, &mut diagnostics) else {
                continue;
            };
            let mut any = false;
            for (id, ty) in candidates(api) {
                if !pattern.matches(&ty.target()) {
                    continue;
                }
                any = true;
                if derive.is_some_and(|path| ty.elides_derive(path)) {
                    continue;
                }
                attributes.types.entry(id).or_default().push_str(&attribute);
                if is_serde {
                    attributes.serde.insert(id);
                }
            }
            if !any {
                diagnostics.push(pattern.miss(
                    "<config>",
                    "struct or enum for an attribute",
                    &targets,
                ));
            }
        }
        for (pattern_text, field, attribute) in &options.field_attributes {
            let Some(parsed) = parse_attribute(attribute, &mut diagnostics) else {
                continue;
            };
            let is_serde = has_serde(&parsed);
            let attribute = spell(attribute, Place::Field);
            let Some(pattern) = parse_pattern(pattern_text, &mut diagnostics) else {
                continue;
            };
            let mut any_type = false;
            let mut any = false;
            for (id, ty) in candidates(api) {
                let TypeKind::Struct(fields) = &ty.kind else {
                    continue;
                };
                if !pattern.matches(&ty.target()) {
                    continue;
                }
                any_type = true;
                for (index, f) in fields.iter().enumerate() {
                    if field == "*" || f.json_name == *field || f.rust_name == *field {
                        any = true;
                        attributes
                            .fields
                            .entry((id, index))
                            .or_default()
                            .push_str(&attribute);
                        if is_serde {
                            attributes.serde.insert(id);
                        }
                    }
                }
            }
            if !any_type {
                diagnostics.push(pattern.miss(
                    "<config>",
                    "struct for a field attribute",
                    &targets,
                ));
            } else if !any {
                diagnostics.push(no_field(&pattern, field));
            }
        }
        diagnostics.finish(attributes)
    }

    /// Whether the user gave the struct `id` or one of its fields a `#[serde(…)]` attribute,
    /// which only serde's derive reads.
    pub(crate) fn has_serde(&self, id: TypeId) -> bool {
        self.serde.contains(&id)
    }

    /// The attributes of the type `id`, as lines at indentation zero.
    pub(crate) fn of_type(&self, id: TypeId) -> &str {
        self.types.get(&id).map_or("", String::as_str)
    }

    /// The attributes of field `index` of the struct `id`, as lines at indentation zero.
    pub(crate) fn of_field(&self, id: TypeId, index: usize) -> &str {
        self.fields.get(&(id, index)).map_or("", String::as_str)
    }
}

fn has_serde(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|a| a.path().is_ident("serde"))
}

fn no_field(pattern: &Pattern, field: &str) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::EmptySelection,
        &Origin::root(Path::new("<config>")),
        format!(
            "expected an attribute to apply to a field {field:?} of a struct that `{pattern}` names, but there is none"
        ),
    )
    .with_hint("name fields by their JSON name (`importPolicy`) or Rust name (`import_policy`), or `*`")
}

#[cfg(test)]
mod tests {
    use super::{Place, spell, spell_text};

    /// A long attribute the generator writes breaks as a user's does (prettyplease's
    /// lines), on items and on fields.
    #[test]
    fn long_generated_attributes_break_as_users_attributes_do() {
        for length in [1, 20, 40, 60, 80] {
            let name = "N".repeat(length);
            for text in [
                format!("#[derive(Clone, Debug, Default, PartialEq, Eq, ::my::{name})]"),
                format!("#[serde(rename = \"{name}\", default, with = \"::my::{name}\")]"),
            ] {
                for place in [Place::Item, Place::Field] {
                    assert_eq!(spell_text(&text, 200, place), spell(&text, place), "{text}");
                }
            }
        }
    }
}
