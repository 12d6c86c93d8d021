//! Types → items: structs, forward-compatible string enums, unions, aliases, written as
//! formatted text (`text.rs`) in the shape prettyplease gave them.

use super::attributes::{member_releases, release_attribute, release_doc, spell_text};
use super::docs::{doc_lines, paragraphs};
use super::text::{Code, push_str_literal, str_literal};
use super::{
    Context, Parts, builders, extra_text, kube, resource, routes, serde_impls, shape_text,
    type_path,
};
use crate::ground::attribute::Place;
use crate::model::{Field, FieldRole, Shape, TypeDef, TypeId, TypeKind, UnionVariant, Variant};

/// The item (and its impls) for the type `id`, as formatted text, with its builder's.
pub(crate) fn type_item(context: &Context<'_>, id: TypeId) -> Parts {
    let ty = context.api.get(id);
    let mut parts = Parts::default();
    if let TypeKind::Struct(fields) = &ty.kind {
        parts.extend(struct_item(context, id, ty, fields));
        parts.text(resource::impls(context, id));
        parts.text(super::releases::resource_releases(context, id));
        parts.text(kube::impls(context, id));
        if context.builders {
            parts.extend(builders::builder_items(context, id));
        }
        if context.apply {
            parts.text(super::apply::items(context, id));
        }
    } else {
        parts.text(other_item(context, id, ty));
    }
    parts
}

/// Doc comment lines for `text` (escaped, `docs::doc_lines`), unless docs are off.
fn docs(code: &mut Code, context: &Context<'_>, text: &str) {
    if context.docs {
        code.docs(doc_lines(text).iter().map(String::as_str));
    }
}

/// The deprecation of the type `id` in builds supporting a release that lacks it, then
/// `#[derive(…)]` of `derives`, then the user's attributes of the type `id`.
fn derive_and_attributes(code: &mut Code, context: &Context<'_>, id: TypeId, derives: &[&str]) {
    code.lines(&release_attribute(
        context.api,
        context.api.type_releases(id),
        code.indent_width(),
    ));
    let derive = format!("#[derive({})]", derives.join(", "));
    code.lines(&spell_text(&derive, code.indent_width(), Place::Item));
    code.lines(context.attributes.of_type(id));
}

/// Takes `Eq` out of `derives` (a struct's, an enum's or a union's), saying whether it
/// was there: the type then gets [`eq_impl`] instead. `derive(Eq)` writes a hidden
/// `assert_receiver_is_total_eq` body per type, which rustc type-checks, borrow-checks and
/// compiles to machine code in every clean build (748 bodies in the 1.36 crate); the empty
/// impl is the same trait with no body (`Eq` has nothing to implement), and the model
/// already decided it holds (`TypeDef::derive_eq`).
fn written_eq(derives: &mut Vec<&str>) -> bool {
    taken(derives, "Eq")
}

/// Takes `name` out of `derives`, saying whether it was there.
fn taken(derives: &mut Vec<&str>, name: &str) -> bool {
    let before = derives.len();
    derives.retain(|derive| *derive != name);
    derives.len() != before
}

/// An enum's or a union's derives and attributes (see [`derive_and_attributes`]) without
/// `Eq`, saying whether the type then needs [`eq_impl`].
fn derives_but_eq(code: &mut Code, context: &Context<'_>, id: TypeId, ty: &TypeDef) -> bool {
    let mut derives = ty.derives();
    let eq = written_eq(&mut derives);
    derive_and_attributes(code, context, id, &derives);
    eq
}

/// Takes `Debug` out of a struct's `derives`, saying whether it was there: the struct then
/// gets [`debug_impl`] instead. A derived `Debug` is an inline body with a `&dyn Debug` per
/// field, which rustc checks and keeps in the metadata: the five releases merged built at
/// 847 MB of peak with it, 821 with [`debug_impl`] (BENCHMARKS.md b). Every struct has a
/// `Serialize` (written or derived), which the runtime's `debug` prints as JSON.
fn written_debug(derives: &mut Vec<&str>) -> bool {
    taken(derives, "Debug")
}

/// `impl Debug for name`, one call of the runtime's `serde_struct::debug`, after a struct
/// whose derives [`written_debug`] took `Debug` out of.
fn debug_impl(code: &mut Code, context: &Context<'_>, name: &str) {
    code.blank();
    code.open(&format!("impl ::std::fmt::Debug for {name} {{"));
    code.line("#[inline]");
    code.open("fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {");
    code.line_with(|out| {
        out.push_str(&context.runtime);
        out.push_str("::serde_struct::debug(self, ");
        push_str_literal(out, name);
        out.push_str(", f)");
    });
    code.close("}");
    code.close("}");
}

/// `impl Eq for name {}` after a type whose derives [`written_eq`] took `Eq` out of.
fn eq_impl(code: &mut Code, name: &str) {
    code.blank();
    code.line(&format!("impl Eq for {name} {{}}"));
}

/// The item of a type that is no struct.
fn other_item(context: &Context<'_>, id: TypeId, ty: &TypeDef) -> String {
    let mut code = Code::new();
    match &ty.kind {
        // Structs are `struct_item`'s; extern types are defined elsewhere, and `emit`
        // never asks for them.
        TypeKind::Struct(_) | TypeKind::Extern(_) => {}
        TypeKind::Enum(variants) => enum_item(&mut code, context, id, ty, variants),
        TypeKind::Union(variants) => union_item(&mut code, context, id, ty, variants),
        TypeKind::Alias(shape) => {
            docs(&mut code, context, &type_docs(context, id, ty, ""));
            code.lines(&release_attribute(
                context.api,
                context.api.type_releases(id),
                code.indent_width(),
            ));
            code.typed(
                &format!("pub type {} = ", ty.name),
                &shape_text(context, shape),
                ";",
            );
        }
        TypeKind::WatchEvent { status } => {
            docs(
                &mut code,
                context,
                &type_docs(
                    context,
                    id,
                    ty,
                    "`T` is the type of the watched object; error events carry a `Status`.",
                ),
            );
            let status = match status {
                Some(status) => type_path(context, *status),
                None => "::serde_json::Value".to_owned(),
            };
            code.typed(
                &format!("pub type {}<T> = ", ty.name),
                &format!("{}::WatchEvent<T, {status}>", context.runtime),
                ";",
            );
        }
    }
    code.finish()
}

/// A type's docs: its description, `extra`, the releases it came and went in, and one line
/// naming the schema it comes from.
fn type_docs(context: &Context<'_>, id: TypeId, ty: &TypeDef, extra: &str) -> String {
    paragraphs([
        ty.description.as_deref().unwrap_or_default(),
        extra,
        &release_doc(context.api, context.api.type_releases(id)),
        &format!("Schema: `{}`.", ty.schema_name),
    ])
}

fn struct_item(context: &Context<'_>, id: TypeId, ty: &TypeDef, fields: &[Field]) -> Parts {
    let mut code = Code::new();
    if context.docs {
        let mut lines = doc_lines(&type_docs(context, id, ty, ""));
        if context.routes {
            lines.extend(routes::endpoint_docs(context, id));
        }
        code.docs(lines.iter().map(String::as_str));
    }
    let mut derives = ty.derives();
    // Serde impls are written out (see `serde_impls`) unless the user's attributes need the
    // derive to read them.
    let derive_serde = context.attributes.has_serde(id);
    if derive_serde {
        derives.extend(["::serde::Deserialize", "::serde::Serialize"]);
    }
    let eq = written_eq(&mut derives);
    let debug = written_debug(&mut derives);
    derive_and_attributes(&mut code, context, id, &derives);
    if fields.is_empty() {
        code.line(&format!("pub struct {} {{}}", ty.name));
    } else {
        code.open(&format!("pub struct {} {{", ty.name));
        for (index, field) in fields.iter().enumerate() {
            field_text(
                &mut code,
                context,
                (id, ty),
                field,
                derive_serde,
                context.attributes.of_field(id, index),
            );
        }
        code.close("}");
    }
    if eq {
        eq_impl(&mut code, &ty.name);
    }
    if debug {
        debug_impl(&mut code, context, &ty.name);
    }
    let mut parts = Parts::default();
    parts.text(code.finish());
    if !derive_serde {
        parts.text(serde_impls::impls(context, ty, fields));
    }
    if let Some(message) = context.api.protobuf.get(&id) {
        parts.text(super::protobuf::impls(context, ty, fields, message));
    }
    parts
}

fn field_text(
    code: &mut Code,
    context: &Context<'_>,
    (id, ty): (TypeId, &TypeDef),
    field: &Field,
    derive_serde: bool,
    attributes: &str,
) {
    let mut serde_args: Vec<String> = Vec::new();
    if field.rust_name != field.json_name && field.role != FieldRole::Extra {
        serde_args.push(format!("rename = {}", str_literal(&field.json_name)));
    }
    let runtime = &context.runtime;
    let (rust_type, note) = match field.role {
        FieldRole::ApiVersion | FieldRole::Kind => {
            let (marker, constant) = match field.role {
                FieldRole::ApiVersion => (
                    "ApiVersion",
                    ty.gvk.as_ref().map(crate::model::Gvk::api_version),
                ),
                _ => ("Kind", ty.gvk.as_ref().map(|g| g.kind.clone())),
            };
            let absent = str_literal(&format!("{runtime}::{marker}::absent"));
            let is_absent = str_literal(&format!("{runtime}::{marker}::is_absent"));
            serde_args.push(format!("default = {absent}"));
            serde_args.push(format!("skip_serializing_if = {is_absent}"));
            let note = format!(
                "Always `{}`: set on construction, checked when deserializing, and omitted when absent from the input.",
                constant.unwrap_or_default()
            );
            (format!("{runtime}::{marker}<{}>", ty.name), Some(note))
        }
        FieldRole::Extra => {
            serde_args.push("flatten".to_owned());
            if field.shape.reads_whole_floats(&context.api.types) {
                serde_args.push(format!(
                    "deserialize_with = {}",
                    str_literal(&format!("{runtime}::integer::deserialize"))
                ));
            }
            (extra_text(context, &field.shape), None)
        }
        FieldRole::Plain => {
            let mut inner = shape_text(context, &field.shape);
            if field.boxed {
                inner = format!("Box<{inner}>");
            }
            if field.shape.reads_whole_floats(&context.api.types) {
                serde_args.push(format!(
                    "deserialize_with = {}",
                    str_literal(&format!("{runtime}::integer::deserialize"))
                ));
                if !field.required {
                    serde_args.push("default".to_owned());
                }
            }
            if field.required {
                (inner, None)
            } else {
                serde_args.push("skip_serializing_if = \"Option::is_none\"".to_owned());
                (format!("Option<{inner}>"), None)
            }
        }
    };
    let (releases, beyond) = member_releases(
        context.api,
        context.api.type_releases(id),
        context.api.field_releases(id, field),
    );
    docs(
        code,
        context,
        &paragraphs([
            field.description.as_deref().unwrap_or_default(),
            note.as_deref().unwrap_or_default(),
            &release_doc(context.api, releases),
        ]),
    );
    code.lines(&release_attribute(context.api, beyond, code.indent_width()));
    if derive_serde && !serde_args.is_empty() {
        let serde = format!("#[serde({})]", serde_args.join(", "));
        code.lines(&spell_text(&serde, code.indent_width(), Place::Field));
    }
    code.lines(attributes);
    code.typed(&format!("pub {}: ", field.rust_name), &rust_type, ",");
}

fn enum_item(
    code: &mut Code,
    context: &Context<'_>,
    id: TypeId,
    ty: &TypeDef,
    variants: &[Variant],
) {
    let name = &ty.name;
    docs(code, context, &type_docs(context, id, ty, ""));
    let eq = derives_but_eq(code, context, id, ty);
    code.open(&format!("pub enum {name} {{"));
    for variant in variants {
        let (releases, beyond) = member_releases(
            context.api,
            context.api.type_releases(id),
            context.api.value_releases(id, &variant.value),
        );
        if context.docs {
            code.docs([format!("`{:?}`", variant.value).as_str()]);
            let since = release_doc(context.api, releases);
            if !since.is_empty() {
                code.docs(["", since.as_str()]);
            }
        }
        code.lines(&release_attribute(context.api, beyond, code.indent_width()));
        code.line(&format!("{},", variant.rust_name));
    }
    if context.docs {
        code.docs([
            "A value this version of the API does not know, kept as received so that",
            "a newer server never breaks an older client.",
        ]);
    }
    code.line("Other(String),");
    code.close("}");
    if eq {
        eq_impl(code, name);
    }
    // The three functions below are `#[inline]` so that a clean build compiles none of
    // them to machine code here, only where a caller uses them (cert-manager's crate:
    // rustc 2.7% fewer instructions, BENCHMARKS.md g).
    code.blank();
    code.open(&format!("impl {name} {{"));
    if context.docs {
        code.docs(["The value as it is on the wire."]);
    }
    code.line("#[inline]");
    code.line("#[must_use]");
    code.open("pub fn as_str(&self) -> &str {");
    code.open("match self {");
    for variant in variants {
        code.arm_expr(
            &format!("Self::{}", variant.rust_name),
            &str_literal(&variant.value),
        );
    }
    code.line("Self::Other(value) => value,");
    code.close("}");
    code.close("}");
    code.close("}");
    code.blank();
    code.open_impl("impl From<&str>", name);
    code.line("#[inline]");
    code.open("fn from(value: &str) -> Self {");
    code.open("match value {");
    for variant in variants {
        code.arm_expr(
            &str_literal(&variant.value),
            &format!("Self::{}", variant.rust_name),
        );
    }
    code.line("other => Self::Other(other.to_owned()),");
    code.close("}");
    code.close("}");
    code.close("}");
    code.blank();
    code.open_impl("impl ::std::fmt::Display", name);
    code.line("#[inline]");
    code.open("fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {");
    code.line("f.write_str(self.as_str())");
    code.close("}");
    code.close("}");
    code.blank();
    serialize_head(code, name);
    code.line("serializer.serialize_str(self.as_str())");
    code.close("}");
    code.close("}");
    code.blank();
    deserialize_head(code, name);
    code.line(&format!(
        "{}::string_enum::deserialize(deserializer)",
        context.runtime
    ));
    code.close("}");
    code.close("}");
}

/// `impl ::serde::Serialize for {name} {` and the `serialize` signature, opening its body.
fn serialize_head(code: &mut Code, name: &str) {
    code.open_impl("impl ::serde::Serialize", name);
    code.list_at_margin(
        "fn serialize<S: ::serde::Serializer>(",
        &["&self", "serializer: S"],
        ")",
        " -> Result<S::Ok, S::Error> {",
    );
    code.deeper();
}

/// `impl<'de> ::serde::Deserialize<'de> for {name} {` and the `deserialize` signature,
/// opening its body.
fn deserialize_head(code: &mut Code, name: &str) {
    code.open_impl("impl<'de> ::serde::Deserialize<'de>", name);
    code.list_at_margin(
        "fn deserialize<D: ::serde::Deserializer<'de>>(",
        &["deserializer: D"],
        ")",
        " -> Result<Self, D::Error> {",
    );
    code.deeper();
}

/// A `oneOf`/`anyOf` whose branches a value's JSON type tells apart: one variant per JSON
/// type. Read through a `serde_json::Value` (whose JSON type picks the variant), written as
/// the variant's value.
fn union_item(
    code: &mut Code,
    context: &Context<'_>,
    id: TypeId,
    ty: &TypeDef,
    variants: &[UnionVariant],
) {
    let name = &ty.name;
    docs(
        code,
        context,
        &paragraphs([
            ty.description.as_deref().unwrap_or_default(),
            "One of several JSON types; the type of a value picks its variant.",
        ]),
    );
    let eq = derives_but_eq(code, context, id, ty);
    code.open(&format!("pub enum {name} {{"));
    for variant in variants {
        let inner = shape_text(context, &variant.shape);
        // A struct or union may contain this union again; the box keeps the size finite.
        let inner = match &variant.shape {
            Shape::Ref(target)
                if matches!(
                    context.api.get(*target).kind,
                    TypeKind::Struct(_) | TypeKind::Union(_)
                ) =>
            {
                format!("Box<{inner}>")
            }
            _ => inner,
        };
        if context.docs {
            code.docs([format!("A JSON {}.", variant.json_type).as_str()]);
        }
        code.typed(&format!("{}(", variant.rust_name), &inner, "),");
    }
    code.close("}");
    if eq {
        eq_impl(code, name);
    }
    code.blank();
    serialize_head(code, name);
    code.open("match self {");
    for variant in variants {
        code.arm_expr(
            &format!("Self::{}(value)", variant.rust_name),
            "::serde::Serialize::serialize(value, serializer)",
        );
    }
    code.close("}");
    code.close("}");
    code.close("}");
    code.blank();
    deserialize_head(code, name);
    code.list_at_margin(
        "let value = <::serde_json::Value as ::serde::Deserialize>::deserialize(",
        &["deserializer"],
        ")",
        "?;",
    );
    code.open("let read = match value {");
    let runtime = &context.runtime;
    for variant in variants {
        // An integer without a format takes whole-number floats too (`1.0`).
        let whole = variant.shape.reads_whole_floats(&context.api.types);
        let integer_pattern;
        let pattern = match variant.json_type {
            "string" => "::serde_json::Value::String(_)",
            "boolean" => "::serde_json::Value::Bool(_)",
            "array" => "::serde_json::Value::Array(_)",
            "object" => "::serde_json::Value::Object(_)",
            "integer" if whole => {
                integer_pattern = format!(
                    "::serde_json::Value::Number(ref n) if {runtime}::integer::is_integer(n)"
                );
                &integer_pattern
            }
            "integer" => "::serde_json::Value::Number(ref n) if !n.is_f64()",
            _ => "::serde_json::Value::Number(_)",
        };
        let read = if whole {
            format!("{runtime}::integer::from_value(value)")
        } else {
            "::serde_json::from_value(value)".to_owned()
        };
        code.arm_expr(pattern, &format!("{read}.map(Self::{})", variant.rust_name));
    }
    let expecting: Vec<&str> = variants.iter().map(|v| v.json_type).collect();
    // `{found}` inline: generated code passes pedantic clippy (`uninlined_format_args`).
    let expecting = format!("expected {}, found {{found}}", expecting.join(" or "));
    code.open("other => {");
    code.line(&format!(
        "let found = {}::serde_struct::json_type(&other);",
        context.runtime
    ));
    code.list(
        "return Err(<D::Error as ::serde::de::Error>::custom(format_args!(",
        &[&str_literal(&expecting)],
        ")))",
        ";",
    );
    code.close("}");
    code.close("};");
    code.line("read.map_err(<D::Error as ::serde::de::Error>::custom)");
    code.close("}");
    code.close("}");
}
