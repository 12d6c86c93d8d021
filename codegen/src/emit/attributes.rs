//! User attributes on generated types and fields (`Config::type_attribute`,
//! `Config::field_attribute`, `Config::derive`), resolved against the model once.
//!
//! Types are named by a [`Pattern`] (the one pattern language, `pattern.rs`), matched
//! against every struct and enum (string enums and unions); aliases and extern types take
//! no attributes. A field is named by its JSON name, its Rust name, or `*` for every field.
//! A derive the model says is elided on a type (`TypeDef::elides_derive`: already derived,
//! or `Default`/`Eq` where it does not hold) is left out there. A pattern that matches
//! nothing is an error (`error[empty-selection]`) naming the near matches, as is an
//! attribute that does not parse (`Config` parsed and spelled it: `ground::attribute`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{Options, TypeAttribute};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Origin};
use crate::ground::attribute::{Place, UserAttribute};
use crate::ground::pattern::Pattern;
use crate::model::{ApiSet, TypeDef, TypeId, TypeKind};

/// The resolved attributes: for each type, and for each field of a struct (by index), as
/// formatted lines at indentation zero (`ground::attribute::spell`).
#[derive(Default)]
pub(crate) struct Attributes {
    types: BTreeMap<TypeId, String>,
    fields: BTreeMap<(TypeId, usize), String>,
    /// The structs that have a `#[serde(…)]` attribute, on themselves or a field.
    serde: BTreeSet<TypeId>,
}

/// An attribute the generator writes (`#[derive(…)]`, `#[serde(…)]`) as lines at
/// indentation zero: on one line when it fits at indentation `indent` by prettyplease's
/// measure, and otherwise broken as prettyplease breaks it on an item (or a field) at
/// indentation zero (`pretty::attribute`), the place `ground::attribute::spell` formats a user's attributes.
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

/// The attribute's lines, or an error naming what was given (`Config` parsed it).
fn checked<'a>(attribute: &'a UserAttribute, diagnostics: &mut Diagnostics) -> Option<&'a str> {
    match attribute.lines() {
        Ok(lines) => Some(lines),
        Err(problem) => {
            diagnostics.push(config_error(
                format!(
                    "expected an attribute such as `#[derive(Hash)]`, found {:?}{problem}",
                    attribute.text()
                ),
                "write the attribute with `#[…]`",
            ));
            None
        }
    }
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
            let (user, derive) = match wanted {
                TypeAttribute::Attribute(user) => (user, None),
                TypeAttribute::Derive { path, attribute } => (attribute, Some(path)),
            };
            let Some(attribute) = checked(user, &mut diagnostics) else {
                continue;
            };
            let is_serde = user.is_serde();
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
                attributes.types.entry(id).or_default().push_str(attribute);
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
        for (pattern_text, field, user) in &options.field_attributes {
            let Some(attribute) = checked(user, &mut diagnostics) else {
                continue;
            };
            let is_serde = user.is_serde();
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
                            .push_str(attribute);
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

/// The cargo feature that says a build supports the Kubernetes release `release`:
/// `k8s-1.32` (cargo allows `.` in feature names).
pub(crate) fn release_feature(release: &str) -> String {
    format!("k8s-{release}")
}

/// For an item that only some of the merged releases have (`mask`; `None` when the inputs
/// are not releases): the attribute that deprecates it in a build supporting a release that
/// lacks it, `#[cfg_attr(any(feature = "k8s-1.32", …), deprecated(note = "not in Kubernetes
/// 1.32, 1.33 (since 1.34)"))]`, as lines at indentation `indent`. A deprecation is a
/// warning, so features stay additive (see the guide's `releases.md`).
pub(crate) fn release_attribute(
    api: &ApiSet,
    mask: Option<crate::model::releases::Mask>,
    indent: usize,
) -> String {
    release_attribute_text(api, mask)
        .map_or_else(String::new, |text| spell_text(&text, indent, Place::Item))
}

/// [`release_attribute`] on one line, `None` for an item every release has.
fn release_attribute_text(
    api: &ApiSet,
    mask: Option<crate::model::releases::Mask>,
) -> Option<String> {
    let (Some(releases), Some(mask)) = (&api.releases, mask) else {
        return None;
    };
    let lacking = crate::model::releases::Mask(releases.all().0 & !mask.0);
    if lacking.is_empty() || mask.is_empty() {
        return None;
    }
    let names = releases.names_of(lacking);
    let features: Vec<String> = names
        .iter()
        .map(|name| format!("feature = {:?}", release_feature(name)))
        .collect();
    let condition = match &features[..] {
        [one] => one.clone(),
        _ => format!("any({})", features.join(", ")),
    };
    let mut when = Vec::new();
    if let Some(since) = releases.since(mask) {
        when.push(format!("since {since}"));
    }
    if let Some(removed) = releases.removed_in(mask) {
        when.push(format!("removed in {removed}"));
    }
    let note = format!(
        "not in Kubernetes {} ({})",
        names.join(", "),
        when.join(", ")
    );
    Some(format!(
        "#[cfg_attr({condition}, deprecated(note = {note:?}))]"
    ))
}

/// `cfg`, the `#[cfg(…)]` of the functions of the operation `op`, followed by their
/// deprecation in builds supporting a release that lacks the operation, on the same line
/// (the functions' emitters write `cfg` as one line).
pub(crate) fn with_release(
    context: &super::Context<'_>,
    op: &crate::model::operations::Operation,
    cfg: Option<String>,
) -> Option<String> {
    let deprecation = release_attribute_text(context.api, context.api.operation_releases(op));
    match (cfg, deprecation) {
        (cfg, None) => cfg,
        (None, Some(deprecation)) => Some(deprecation),
        (Some(cfg), Some(deprecation)) => Some(format!("{cfg} {deprecation}")),
    }
}

/// The deprecation of a builder's setter of `field` of the struct `ty` (at indentation 4).
pub(crate) fn field_release_attribute(
    context: &super::Context<'_>,
    ty: &TypeDef,
    field: &crate::model::Field,
) -> String {
    release_attribute(context.api, context.api.field_mask(ty, field), 4)
}

/// The rustdoc sentence of an item that only some of the merged releases have: "Since
/// Kubernetes 1.33." / "Removed in Kubernetes 1.35."; empty otherwise.
pub(crate) fn release_doc(api: &ApiSet, mask: Option<crate::model::releases::Mask>) -> String {
    match (&api.releases, mask) {
        (Some(releases), Some(mask)) => releases.doc_line(mask).unwrap_or_default(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::spell_text;
    use crate::ground::attribute::{Place, spell};

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
