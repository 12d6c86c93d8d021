//! Apply configurations (server-side apply): for every struct the model planned one for
//! (`model/apply.rs`), `<Name>Apply` with every field optional but a map list item's keys,
//! `T::apply(…)`, the builder's setters, a `Serialize` that writes only what was set, and
//! `From<T>`. Everything is behind the cargo feature [`FEATURE`], so a crate that does not
//! apply compiles none of it. Written as text (`text.rs`).

use std::fmt::Write as _;

use super::docs::doc_lines;
use super::text::{Code, str_literal};
use super::{Context, extra_text, item_path, shape_text};
use crate::model::apply::Apply;
use crate::model::builders::{MethodKind, resolve};
use crate::model::{Field, FieldRole, Shape, TypeDef, TypeId, TypeKind};

/// The cargo feature apply configurations are compiled with.
pub(crate) const FEATURE: &str = "apply";

/// The attribute on every item of an apply configuration.
pub(crate) fn cfg() -> String {
    format!("#[cfg(feature = {})]", str_literal(FEATURE))
}

/// The apply type, its constructor, setters, `Serialize` and `From` for the struct `id`;
/// nothing for a type without an apply configuration.
pub(crate) fn items(context: &Context<'_>, id: TypeId) -> String {
    let ty = context.api.get(id);
    let (TypeKind::Struct(fields), Some(plan)) = (&ty.kind, context.api.apply_of(id)) else {
        return String::new();
    };
    let mut code = Code::new();
    struct_item(&mut code, context, ty, fields, plan);
    code.blank();
    constructor(&mut code, context, ty, fields, plan);
    if !plan.methods.is_empty() {
        code.blank();
        methods(&mut code, context, ty, fields, plan);
    }
    code.blank();
    serialize(&mut code, context, ty, fields, plan);
    code.blank();
    from_full(&mut code, context, ty, fields, plan);
    code.finish()
}

fn struct_item(
    code: &mut Code,
    context: &Context<'_>,
    ty: &TypeDef,
    fields: &[Field],
    plan: &Apply,
) {
    if context.docs {
        let text = format!(
            "The apply configuration of [`{0}`] for server-side apply: every field is optional{1}, \
             and serializing writes exactly what was set{2}, so an apply claims only the fields it \
             names. Start with [`{0}::apply`]; `From<{0}>` converts a whole object.",
            ty.name,
            if plan.params.is_empty() {
                ""
            } else {
                " but the keys that identify it in its list"
            },
            if ty.gvk.is_some() {
                " (and `apiVersion` and `kind`)"
            } else {
                ""
            },
        );
        code.docs(doc_lines(&text).iter().map(String::as_str));
    }
    code.line(&cfg());
    let default = if plan.params.is_empty() {
        ", Default"
    } else {
        ""
    };
    code.line(&format!("#[derive(Clone, Debug{default}, PartialEq)]"));
    code.line("#[must_use = \"an apply configuration does nothing until it is applied\"]");
    code.open(&format!("pub struct {} {{", plan.name));
    for (field, required) in fields.iter().zip(&plan.required) {
        let Some(required) = required else { continue };
        if context.docs
            && let Some(description) = &field.description
        {
            code.docs(doc_lines(description).iter().map(String::as_str));
        }
        code.lines(&super::attributes::field_release_attribute(
            context, ty, field,
        ));
        let rust_type = field_type(context, field, *required);
        code.typed(&format!("pub {}: ", field.rust_name), &rust_type, ",");
    }
    code.close("}");
}

/// The Rust type of a field of an apply type.
fn field_type(context: &Context<'_>, field: &Field, required: bool) -> String {
    if field.role == FieldRole::Extra {
        return extra_text(context, &field.shape);
    }
    let mut inner = apply_shape(context, &field.shape);
    if field.boxed {
        inner = format!("Box<{inner}>");
    }
    if required {
        inner
    } else {
        format!("Option<{inner}>")
    }
}

/// The type of a value in an apply configuration: the apply type where a struct has one,
/// through lists, maps, nullability and aliases; otherwise the full type.
fn apply_shape(context: &Context<'_>, shape: &Shape) -> String {
    if !needs_conversion(context, shape) {
        return shape_text(context, shape);
    }
    match resolve(&context.api.types, shape) {
        Shape::Vec(inner) => format!("Vec<{}>", apply_shape(context, inner)),
        Shape::Map(inner) => format!("{}<String, {}>", context.map, apply_shape(context, inner)),
        Shape::Nullable(inner) => format!("Option<{}>", apply_shape(context, inner)),
        Shape::Ref(id) => apply_path(context, *id),
        other => shape_text(context, other),
    }
}

/// Whether a value of `shape` holds an apply type, so converting it from the full type
/// takes more than a move.
fn needs_conversion(context: &Context<'_>, shape: &Shape) -> bool {
    match resolve(&context.api.types, shape) {
        Shape::Vec(inner) | Shape::Map(inner) | Shape::Nullable(inner) => {
            needs_conversion(context, inner)
        }
        Shape::Ref(id) => context.api.apply_of(*id).is_some(),
        _ => false,
    }
}

/// The full path of the apply type of `id`.
fn apply_path(context: &Context<'_>, id: TypeId) -> String {
    let ty = context.api.get(id);
    item_path(
        context,
        id,
        context.api.apply_of(id).map_or(&ty.name, |a| &a.name),
    )
}

/// `value`, a full type's value of `shape`, as the apply type's value.
fn convert(context: &Context<'_>, shape: &Shape, value: &str, depth: usize) -> String {
    if !needs_conversion(context, shape) {
        return value.to_owned();
    }
    match resolve(&context.api.types, shape) {
        Shape::Vec(inner) => format!(
            "{value}.into_iter().map({}).collect()",
            mapper(context, inner, depth)
        ),
        Shape::Map(inner) => format!(
            "{value}.into_iter().map(|(key{depth}, item{depth})| (key{depth}, {})).collect()",
            convert(context, inner, &format!("item{depth}"), depth + 1)
        ),
        Shape::Nullable(inner) => format!("{value}.map({})", mapper(context, inner, depth)),
        _ => format!("{value}.into()"),
    }
}

/// The function that converts a full value of `shape`: `Into::into`, or a closure.
fn mapper(context: &Context<'_>, shape: &Shape, depth: usize) -> String {
    let item = format!("item{depth}");
    let body = convert(context, shape, &item, depth + 1);
    if body == format!("{item}.into()") {
        "Into::into".to_owned()
    } else {
        format!("|{item}| {body}")
    }
}

/// `impl T { pub fn apply(…) -> TApply }`.
fn constructor(
    code: &mut Code,
    context: &Context<'_>,
    ty: &TypeDef,
    fields: &[Field],
    plan: &Apply,
) {
    let mut args: Vec<String> = Vec::new();
    let mut values: Vec<(String, String)> = Vec::new();
    let mut metadata_value: Option<(String, Vec<String>)> = None;
    let mut doc = format!("A new apply configuration of a `{}`", ty.name);
    if let Some(metadata) = &plan.metadata {
        let field = &fields[metadata.field];
        let meta = super::type_path(context, metadata.ty);
        let (name_arg, name_setter) = &metadata.name;
        args.push(format!("{name_arg}: impl Into<String>"));
        let _ = write!(doc, " named `{name_arg}`");
        if let Some((namespace_arg, _)) = &metadata.namespace {
            args.push(format!("{namespace_arg}: impl Into<String>"));
            let _ = write!(doc, " in the namespace `{namespace_arg}`");
        }
        // The value's lines: a struct literal over several lines, or a setter chain.
        let mut lines = Vec::new();
        if metadata.extern_struct || context.api.apply_of(metadata.ty).is_none() {
            lines.push(format!("{meta} {{"));
            lines.push(format!("    {name_setter}: Some({name_arg}.into()),"));
            if let Some((arg, setter)) = &metadata.namespace {
                lines.push(format!("    {setter}: Some({arg}.into()),"));
            }
            lines.push("    ..::core::default::Default::default()".to_owned());
            lines.push("}".to_owned());
        } else {
            let namespace = metadata
                .namespace
                .as_ref()
                .map(|(arg, setter)| format!(".{setter}({arg})"))
                .unwrap_or_default();
            // Through the trait: a field named `default` makes an inherent setter of that
            // name, which `Type::default()` would call instead.
            lines.push(format!(
                "<{} as ::core::default::Default>::default().{name_setter}({name_arg}){namespace}",
                apply_path(context, metadata.ty)
            ));
        }
        let (open, close) = if field.boxed {
            ("Some(Box::new(", "))")
        } else {
            ("Some(", ")")
        };
        if let Some(first) = lines.first_mut() {
            first.insert_str(0, open);
        }
        if let Some(last) = lines.last_mut() {
            last.push_str(close);
        }
        metadata_value = Some((field.rust_name.clone(), lines));
    }
    for param in &plan.params {
        let field = &fields[param.field];
        args.push(format!(
            "{}: impl Into<{}>",
            param.name,
            apply_shape(context, &field.shape)
        ));
        let value = if field.boxed {
            format!("Box::new({}.into())", param.name)
        } else {
            format!("{}.into()", param.name)
        };
        values.push((field.rust_name.clone(), value));
        let _ = write!(doc, ", `{}`", param.name);
    }
    doc.push('.');
    code.line(&cfg());
    code.open(&format!("impl {} {{", ty.name));
    if context.docs {
        code.docs([doc.as_str()]);
    }
    if args.len() > 7 {
        code.line("#[allow(clippy::too_many_arguments, reason = \"every key is an argument, so none can be forgotten\")]");
    }
    code.line("#[inline]");
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    code.list(
        "pub fn apply(",
        &arg_refs,
        ")",
        &format!(" -> {} {{", plan.name),
    );
    code.deeper();
    let set = values.len() + usize::from(metadata_value.is_some());
    if set == 0 {
        code.line(&format!(
            "<{} as ::core::default::Default>::default()",
            plan.name
        ));
    } else {
        code.open(&format!("{} {{", plan.name));
        if let Some((name, lines)) = &metadata_value
            && let Some((first, rest)) = lines.split_first()
        {
            if rest.is_empty() {
                code.line(&format!("{name}: {first},"));
            } else {
                code.open(&format!("{name}: {first}"));
                for line in &rest[..rest.len() - 1] {
                    code.line(line.strip_prefix("    ").unwrap_or(line));
                }
                code.close(&format!("{},", rest[rest.len() - 1]));
            }
        }
        for (name, value) in &values {
            code.line(&format!("{name}: {value},"));
        }
        if plan.params.is_empty() {
            code.line("..::core::default::Default::default()");
        } else {
            // A type with keys has no `Default`: the rest is spelled out.
            let metadata_field = metadata_value.as_ref().map(|(name, _)| name);
            for (field, required) in fields.iter().zip(&plan.required) {
                if metadata_field == Some(&field.rust_name) {
                    continue;
                }
                match (field.role, required) {
                    (FieldRole::Extra, _) => code.line(&format!(
                        "{}: {}::ExtraFields::new(),",
                        field.rust_name, context.runtime
                    )),
                    (_, Some(false)) => code.line(&format!("{}: None,", field.rust_name)),
                    _ => {}
                }
            }
        }
        code.close("}");
    }
    code.close("}");
    code.close("}");
}

fn methods(code: &mut Code, context: &Context<'_>, ty: &TypeDef, fields: &[Field], plan: &Apply) {
    code.line(&cfg());
    code.open(&format!("impl {} {{", plan.name));
    for (index, method) in plan.methods.iter().enumerate() {
        if index > 0 {
            code.blank();
        }
        let field = &fields[method.field];
        let required = plan.required[method.field] == Some(true);
        let name = &field.rust_name;
        let shape = resolve(&context.api.types, &field.shape);
        let (param, body) = match (method.kind, shape) {
            (MethodKind::Set, Shape::Vec(item)) => (
                format!(
                    "items: impl IntoIterator<Item = impl Into<{}>>",
                    apply_shape(context, item)
                ),
                "items.into_iter().map(Into::into).collect()".to_owned(),
            ),
            (MethodKind::Set, Shape::Map(value)) => (
                format!(
                    "entries: impl IntoIterator<Item = (impl Into<String>, impl Into<{}>)>",
                    apply_shape(context, value)
                ),
                "entries.into_iter().map(|(key, value)| (key.into(), value.into())).collect()"
                    .to_owned(),
            ),
            (MethodKind::Push, Shape::Vec(item)) => (
                format!("item: impl Into<{}>", apply_shape(context, item)),
                String::new(),
            ),
            (MethodKind::Insert, Shape::Map(value)) => (
                format!(
                    "key: impl Into<String>, value: impl Into<{}>",
                    apply_shape(context, value)
                ),
                String::new(),
            ),
            (MethodKind::Edit(target), _) => {
                let apply = apply_path(context, target);
                (
                    format!("edit: impl FnOnce({apply}) -> {apply}"),
                    String::new(),
                )
            }
            (MethodKind::EditInPlace(target), _) => (
                format!(
                    "edit: impl FnOnce(&mut {})",
                    super::type_path(context, target)
                ),
                String::new(),
            ),
            _ => (
                format!("value: impl Into<{}>", apply_shape(context, &field.shape)),
                "value.into()".to_owned(),
            ),
        };
        if context.docs {
            let what = match method.kind {
                MethodKind::Push => format!("Appends one item to `{name}`."),
                MethodKind::Insert => {
                    format!("Inserts one entry into `{name}`, replacing any under the same key.")
                }
                MethodKind::Edit(_) | MethodKind::EditInPlace(_) => format!(
                    "Edits `{name}` in place, starting from an empty value when it is unset."
                ),
                _ => field
                    .description
                    .clone()
                    .unwrap_or_else(|| format!("Sets `{name}`.")),
            };
            code.docs(doc_lines(&what).iter().map(String::as_str));
        }
        // As the builders' setters: using a field a supported release lacks warns.
        code.lines(&super::attributes::field_release_attribute(
            context, ty, field,
        ));
        code.list(
            &format!("pub fn {}(", method.name),
            &["mut self", param.as_str()],
            ")",
            " -> Self {",
        );
        code.deeper();
        match method.kind {
            MethodKind::Push => {
                code.line(&format!(
                    "self.{name}.get_or_insert_default().push(item.into());"
                ));
            }
            MethodKind::Insert => code.line(&format!(
                "self.{name}.get_or_insert_default().insert(key.into(), value.into());"
            )),
            MethodKind::Edit(_) => {
                let current = if field.boxed {
                    "Box::new(edit(*self.{name}.take().unwrap_or_default()))"
                } else {
                    "edit(self.{name}.take().unwrap_or_default())"
                };
                code.line(&format!(
                    "self.{name} = Some({});",
                    current.replace("{name}", name)
                ));
            }
            MethodKind::EditInPlace(_) => {
                let deref = if field.boxed { "&mut **" } else { "" };
                code.line(&format!(
                    "edit({deref}self.{name}.get_or_insert_default());"
                ));
            }
            _ => {
                let value = if field.boxed {
                    format!("Box::new({body})")
                } else {
                    body
                };
                if required {
                    code.line(&format!("self.{name} = {value};"));
                } else {
                    code.list(&format!("self.{name} = Some("), &[&value], ")", ";");
                }
            }
        }
        code.line("self");
        code.close("}");
    }
    code.close("}");
}

fn serialize(code: &mut Code, context: &Context<'_>, ty: &TypeDef, fields: &[Field], plan: &Apply) {
    code.line(&cfg());
    code.open_impl("impl ::serde::Serialize", &plan.name);
    code.line("#[allow(clippy::too_many_lines)]");
    code.open(
        "fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {",
    );
    code.line("use ::serde::ser::SerializeMap as _;");
    code.line("let mut state = serializer.serialize_map(None)?;");
    for (field, required) in fields.iter().zip(&plan.required) {
        let json = str_literal(&field.json_name);
        match (field.role, required) {
            (FieldRole::ApiVersion | FieldRole::Kind, _) => {
                let Some(gvk) = &ty.gvk else { continue };
                let value = if field.role == FieldRole::ApiVersion {
                    gvk.api_version()
                } else {
                    gvk.kind.clone()
                };
                code.line(&format!(
                    "state.serialize_entry({json}, {})?;",
                    str_literal(&value)
                ));
            }
            (FieldRole::Extra, _) => code.line(&format!(
                "{}::serde_struct::extra_entries(&mut state, &self.{})?;",
                context.runtime, field.rust_name
            )),
            (FieldRole::Plain, Some(true)) => code.line(&format!(
                "state.serialize_entry({json}, &self.{})?;",
                field.rust_name
            )),
            (FieldRole::Plain, _) => {
                code.open(&format!(
                    "if let Some(value) = &self.{} {{",
                    field.rust_name
                ));
                code.line(&format!("state.serialize_entry({json}, value)?;"));
                code.close("}");
            }
        }
    }
    code.line("state.end()");
    code.close("}");
    code.close("}");
}

fn from_full(code: &mut Code, context: &Context<'_>, ty: &TypeDef, fields: &[Field], plan: &Apply) {
    code.line(&cfg());
    code.open(&format!("impl From<{}> for {} {{", ty.name, plan.name));
    code.line("#[allow(clippy::too_many_lines)]");
    code.open(&format!("fn from(value: {}) -> Self {{", ty.name));
    let kept: Vec<(&Field, bool)> = fields
        .iter()
        .zip(&plan.required)
        .filter_map(|(field, required)| required.map(|required| (field, required)))
        .collect();
    if kept.is_empty() {
        code.line("let _ = value;");
        code.line("Self {}");
    } else {
        code.open("Self {");
        for (field, required) in kept {
            let name = &field.rust_name;
            let source = format!("value.{name}");
            let value = if field.role == FieldRole::Extra {
                source
            } else {
                let one = |from: &str| {
                    if field.boxed {
                        let inner = convert(context, &field.shape, &format!("(*{from})"), 0);
                        format!("Box::new({inner})")
                    } else {
                        convert(context, &field.shape, from, 0)
                    }
                };
                match (field.required, required) {
                    _ if !needs_conversion(context, &field.shape) => {
                        match (field.required, required) {
                            (true, false) => format!("Some({source})"),
                            _ => source,
                        }
                    }
                    (true, true) => one(&source),
                    (true, false) => format!("Some({})", one(&source)),
                    (false, _) if !field.boxed => {
                        format!("{source}.map({})", mapper(context, &field.shape, 0))
                    }
                    (false, _) => format!("{source}.map(|value| {})", one("value")),
                }
            };
            code.line(&format!("{name}: {value},"));
        }
        code.close("}");
    }
    code.close("}");
    code.close("}");
}
