//! Builders: for every struct `T`, `T::builder(required…)`, a `TBuilder` whose methods set,
//! append to, insert into and edit fields, an infallible `build()`, and `From` both ways.
//! Every decision (names, arguments, defaults, which methods) is the model's
//! (`model/builders.rs`); this only spells it.
//!
//! Compile time is a budget (at most 25% on a clean debug build of the generated crate;
//! `cargo xtask bench-builders` measures it), so: the builder wraps the struct itself
//! rather than mirroring its fields as `Option`s; setters are generic only through
//! `impl Into`, so no machine code is generated for them until a user calls them; and the
//! few non-generic functions (`builder`, `build`, the `From` conversions) are `#[inline]`,
//! which likewise leaves their code generation to the crates that use them. (Methods that
//! take a closure cost several times a setter to check, so the model makes only one kind,
//! a resource's `metadata_with`.)

use super::docs::{doc_lines, paragraphs};
use super::pretty::{self, Expr};
use super::text::{Code, byte_str_literal, str_literal};
use super::{Context, Parts, item_path, shape_text, type_path};
use crate::model::builders::{Builder, Literal, MethodKind, resolve};
use crate::model::{Field, FieldRole, RuntimeType, Shape, TypeDef, TypeId, TypeKind};

/// More constructor arguments than this trip `clippy::too_many_arguments`.
const MAX_ARGUMENTS: usize = 7;

/// The name of the one generic builder type at the generated crate's root, which every
/// builder is an alias of.
const GENERIC: &str = crate::ground::naming::GENERIC_BUILDER;

/// The generic builder at the root, once: the derives, `build` and `From<T>`, which every
/// builder shares, are checked and compiled once instead of once per struct. Each struct's
/// builder is an alias (`pub type LeaseBuilder = crate::Builder<Lease>;`) with an inherent
/// impl of its setters; rustdoc shows them on the alias. The field is private to the root
/// module, so every generated module can reach it and nothing outside can.
pub(crate) fn generic_builder(context: &Context<'_>) -> String {
    if context.api.builders.is_empty() {
        return String::new();
    }
    let mut code = Code::new();
    if context.docs {
        code.docs([
            "Builds values of the generated struct `T`: start with `T::builder`, chain the",
            "setters (each struct's builder alias, `TBuilder`, lists them), finish",
            "with [`build`](Self::build). `into()` turns an existing `T` back into its builder.",
        ]);
    }
    code.line("#[derive(Clone, Debug)]");
    code.line("#[must_use = \"a builder does nothing until `build()` is called\"]");
    code.open(&format!("pub struct {GENERIC}<T> {{"));
    code.line("inner: T,");
    code.close("}");
    code.blank();
    code.open(&format!("impl<T> {GENERIC}<T> {{"));
    if context.docs {
        code.docs(["The finished value."]);
    }
    code.line("#[inline]");
    code.line("#[must_use]");
    code.open("pub fn build(self) -> T {");
    code.line("self.inner");
    code.close("}");
    code.close("}");
    code.blank();
    code.open(&format!("impl<T> From<T> for {GENERIC}<T> {{"));
    code.line("#[inline]");
    code.open("fn from(value: T) -> Self {");
    code.line("Self { inner: value }");
    code.close("}");
    code.close("}");
    code.finish()
}

/// The constructor, the builder type and its impls for the struct `id`; nothing for other
/// types.
pub(crate) fn builder_items(context: &Context<'_>, id: TypeId) -> Parts {
    let ty = context.api.get(id);
    let mut parts = Parts::default();
    let (TypeKind::Struct(fields), Some(plan)) = (&ty.kind, context.api.builders.get(&id)) else {
        return parts;
    };
    parts.text(constructor(context, ty, fields, plan));
    parts.text(builder_text(context, ty, fields, plan));
    parts
}

fn builder_text(context: &Context<'_>, ty: &TypeDef, fields: &[Field], plan: &Builder) -> String {
    let name = &ty.name;
    let builder = &plan.name;
    let mut code = Code::new();
    if context.docs {
        code.docs([format!(
            "Builds [`{name}`] values: start with [`{name}::builder`], chain the setters, finish \
             with [`build`]({}::{GENERIC}::build). `into()` turns an existing `{name}` back into \
             its builder.",
            context.root
        )
        .as_str()]);
    }
    code.line(&format!(
        "pub type {builder} = {}::{GENERIC}<{name}>;",
        context.root
    ));
    code.blank();
    if !plan.methods.is_empty() {
        code.open(&format!("impl {builder} {{"));
    }
    for (index, method) in plan.methods.iter().enumerate() {
        if index > 0 {
            code.blank();
        }
        let field = &fields[method.field];
        if context.docs {
            let lines = method_doc_lines(context, plan, field, method.field, method.kind);
            code.docs(lines.iter().map(String::as_str));
        }
        code.lines(&super::attributes::field_release_attribute(
            context, ty, field,
        ));
        let mut params = vec!["mut self".to_owned()];
        params.extend(method_params(context, field, method.kind));
        let params: Vec<&str> = params.iter().map(String::as_str).collect();
        code.list(
            &format!("pub fn {}(", method.name),
            &params,
            ")",
            " -> Self {",
        );
        code.deeper();
        method_body(&mut code, context, field, method.kind);
        code.line("self");
        code.close("}");
    }
    if !plan.methods.is_empty() {
        code.close("}");
        code.blank();
    }
    code.open(&format!("impl From<{builder}> for {name} {{"));
    code.line("#[inline]");
    code.open(&format!("fn from(builder: {builder}) -> Self {{"));
    code.line("builder.inner");
    code.close("}");
    code.close("}");
    code.finish()
}

/// `impl T { pub fn builder(…) -> TBuilder }`.
fn constructor(context: &Context<'_>, ty: &TypeDef, fields: &[Field], plan: &Builder) -> String {
    let runtime = &context.runtime;
    // Each parameter's name and type.
    let mut args: Vec<(String, String)> = Vec::new();
    let mut values: Vec<Option<Expr>> = vec![None; fields.len()];
    let mut doc = format!("The [`{}`] of a new `{}`", plan.name, ty.name);

    if let Some(metadata) = &plan.metadata {
        let meta = type_path(context, metadata.ty);
        let (name_arg, name_setter) = (&metadata.name.0, &metadata.name.1);
        args.push((name_arg.clone(), "impl Into<String>".to_owned()));
        doc.push_str(&format!(" named `{name_arg}`"));
        if let Some((arg, _)) = &metadata.namespace {
            args.push((arg.clone(), "impl Into<String>".to_owned()));
            doc.push_str(&format!(" in the namespace `{arg}`"));
        }
        let value = if metadata.extern_struct {
            let mut members = vec![(
                name_setter.clone(),
                Expr::call("Some", vec![into(name_arg)]),
            )];
            members.extend(
                metadata
                    .namespace
                    .iter()
                    .map(|(arg, field)| (field.clone(), Expr::call("Some", vec![into(arg)]))),
            );
            Expr::Struct(
                meta,
                members,
                Some(Box::new(Expr::call(
                    "::core::default::Default::default",
                    vec![],
                ))),
            )
        } else {
            let named = Expr::method(
                Expr::call(format!("{meta}::builder"), vec![]),
                name_setter,
                vec![Expr::word(name_arg)],
            );
            let named = match &metadata.namespace {
                Some((arg, setter)) => Expr::method(named, setter, vec![Expr::word(arg)]),
                None => named,
            };
            Expr::method(named, "build", vec![])
        };
        values[metadata.field] = Some(wrap(&fields[metadata.field], value));
    }
    if ty.gvk.is_some() && fields.iter().any(|f| f.role != FieldRole::Plain) {
        doc.push_str(", with `apiVersion` and `kind` set");
    }
    doc.push('.');

    let mut arg_lines = Vec::new();
    for param in &plan.params {
        let field = &fields[param.field];
        args.push((param.name.clone(), value_type(context, &field.shape)));
        values[param.field] = Some(wrap(field, convert(context, field, &param.name)));
        let setter = plan
            .methods
            .iter()
            .find(|m| m.field == param.field && m.kind == MethodKind::Set)
            .map_or_else(String::new, |m| {
                format!(" (see [`{}`]({}::{}))", m.name, plan.name, m.name)
            });
        arg_lines.push(format!("- `{}`{setter}", param.name));
    }
    let mut presets = Vec::new();
    for preset in &plan.presets {
        let field = &fields[preset.field];
        let value = boxed(field, literal(context, &field.shape, &preset.value));
        values[preset.field] = Some(wrap(field, value));
        presets.push(format!("`{}`", field.rust_name));
    }

    let explicit = values.iter().filter(|v| v.is_some()).count();
    let value = if ty.derive_default {
        let set: Vec<(String, Expr)> = fields
            .iter()
            .zip(&values)
            .filter_map(|(field, value)| {
                value.clone().map(|value| (field.rust_name.clone(), value))
            })
            .collect();
        match explicit {
            0 => Expr::call("Self::default", vec![]),
            n if n == fields.len() => Expr::Struct("Self".to_owned(), set, None),
            _ => Expr::Struct(
                "Self".to_owned(),
                set,
                Some(Box::new(Expr::call("Self::default", vec![]))),
            ),
        }
    } else {
        let all = fields
            .iter()
            .zip(values)
            .map(|(field, value)| {
                let value = match (value, field.role) {
                    (Some(value), _) => value,
                    (None, FieldRole::ApiVersion) => {
                        Expr::call(format!("{runtime}::ApiVersion::present"), vec![])
                    }
                    (None, FieldRole::Kind) => {
                        Expr::call(format!("{runtime}::Kind::present"), vec![])
                    }
                    (None, FieldRole::Plain) => Expr::word("None"),
                    (None, FieldRole::Extra) => {
                        Expr::call(format!("{runtime}::ExtraFields::new"), vec![])
                    }
                };
                (field.rust_name.clone(), value)
            })
            .collect();
        Expr::Struct("Self".to_owned(), all, None)
    };

    let mut code = Code::new();
    code.open(&format!("impl {} {{", ty.name));
    if context.docs {
        let mut lines = vec![doc];
        if !arg_lines.is_empty() {
            lines.push(String::new());
            lines.push("The required fields are its arguments:".to_owned());
            lines.push(String::new());
            lines.extend(arg_lines);
        }
        if !presets.is_empty() {
            lines.push(String::new());
            lines.push(format!(
                "The schema's defaults are filled in: {}.",
                presets.join(", ")
            ));
        }
        code.docs(lines.iter().map(String::as_str));
    }
    if args.len() > MAX_ARGUMENTS {
        let allow = "#[allow(clippy::too_many_arguments, reason = \"every required field is an \
                     argument, so none can be forgotten\")]";
        match pretty::attribute(allow, code.indent_width()) {
            Some(lines) => code.raw(&lines),
            None => code.line(allow),
        }
    }
    code.line("#[inline]");
    code.signature("pub fn builder(", &args, &format!(") -> {} {{", plan.name));
    code.deeper();
    let body = Expr::Struct(plan.name.clone(), vec![("inner".to_owned(), value)], None);
    code.raw(&pretty::tail_expression(&body, code.indent_width()));
    code.close("}");
    code.close("}");
    code.finish()
}

/// The doc of a method: the field's description, then what the method does.
fn method_doc_lines(
    context: &Context<'_>,
    plan: &Builder,
    field: &Field,
    index: usize,
    kind: MethodKind,
) -> Vec<String> {
    let description = field
        .description
        .clone()
        .unwrap_or_else(|| format!("Sets `{}`.", field.rust_name));
    let preset = kind == MethodKind::Set && plan.presets.iter().any(|p| p.field == index);
    let default = field
        .default
        .as_ref()
        .filter(|_| preset)
        .map(|value| format!("A new builder starts with the schema's default, `{value}`."));
    let mut lines = doc_lines(&paragraphs([
        description.as_str(),
        default.as_deref().unwrap_or_default(),
    ]));
    let sibling = |wanted: MethodKind| {
        plan.methods
            .iter()
            .find(|m| m.field == index && m.kind == wanted)
            .map(|m| format!("[`{0}`](Self::{0})", m.name))
            .unwrap_or_default()
    };
    let shape = resolve(&context.api.types, &field.shape);
    let note = match (kind, shape) {
        (MethodKind::Set, Shape::Vec(_)) => Some(format!(
            "Replaces the whole list; {} appends one item.",
            sibling(MethodKind::Push)
        )),
        (MethodKind::Set, Shape::Map(_)) => Some(format!(
            "Replaces the whole map; {} inserts one entry.",
            sibling(MethodKind::Insert)
        )),
        (MethodKind::Push, _) => Some(format!(
            "Appends one item to `{}`; {} replaces the whole list.",
            field.rust_name,
            sibling(MethodKind::Set)
        )),
        (MethodKind::Insert, _) => Some(format!(
            "Inserts one entry into `{}`, replacing any value under the same key; {} replaces \
             the whole map.",
            field.rust_name,
            sibling(MethodKind::Set)
        )),
        (MethodKind::Edit(target), _) => {
            let target_def = context.api.get(target);
            let builder = context
                .api
                .builders
                .get(&target)
                .map_or("", |b| b.name.as_str());
            let unset = if field.required {
                String::new()
            } else {
                format!(", or `{}::builder()` when unset", target_def.name)
            };
            Some(format!(
                "Edits `{}` in place: `edit` receives the `{builder}` of the current value{unset}.",
                field.rust_name
            ))
        }
        (MethodKind::EditInPlace(target), _) => {
            let unset = if field.required {
                String::new()
            } else {
                format!(", a default `{}` when unset", context.api.get(target).name)
            };
            Some(format!(
                "Edits `{}` in place: `edit` receives a mutable reference to the current value{unset}.",
                field.rust_name
            ))
        }
        (MethodKind::Set, _) => None,
    };
    if let Some(note) = note {
        lines.push(String::new());
        lines.push(note);
    }
    lines
}

/// A method's parameters after `mut self`.
fn method_params(context: &Context<'_>, field: &Field, kind: MethodKind) -> Vec<String> {
    match (kind, resolve(&context.api.types, &field.shape)) {
        (MethodKind::Set, Shape::Vec(_)) => {
            vec![format!("items: {}", value_type(context, &field.shape))]
        }
        (MethodKind::Set, Shape::Map(_)) => {
            vec![format!("entries: {}", value_type(context, &field.shape))]
        }
        (MethodKind::Push, Shape::Vec(item)) => {
            vec![format!("item: impl Into<{}>", shape_text(context, item))]
        }
        (MethodKind::Insert, Shape::Map(value)) => vec![
            "key: impl Into<String>".to_owned(),
            format!("value: impl Into<{}>", shape_text(context, value)),
        ],
        (MethodKind::Edit(target), _) => {
            let builder = builder_path(context, target);
            vec![format!("edit: impl FnOnce({builder}) -> {builder}")]
        }
        (MethodKind::EditInPlace(target), _) => {
            vec![format!(
                "edit: impl FnOnce(&mut {})",
                type_path(context, target)
            )]
        }
        _ => vec![format!("value: {}", value_type(context, &field.shape))],
    }
}

/// A method's statements before `self`.
fn method_body(code: &mut Code, context: &Context<'_>, field: &Field, kind: MethodKind) {
    let name = &field.rust_name;
    let unwrapped = if field.required {
        format!("self.inner.{name}")
    } else {
        format!("self.inner.{name}.get_or_insert_default()")
    };
    match kind {
        MethodKind::Set => {
            let argument = match resolve(&context.api.types, &field.shape) {
                Shape::Vec(_) => "items",
                Shape::Map(_) => "entries",
                _ => "value",
            };
            let value = convert(context, field, argument).one_line();
            if field.required {
                code.line(&format!("self.inner.{name} = {value};"));
            } else {
                code.list(&format!("self.inner.{name} = Some("), &[&value], ")", ";");
            }
        }
        MethodKind::Push if field.required => {
            code.line(&format!("self.inner.{name}.push(item.into());"));
        }
        MethodKind::Push => code.line(&format!(
            "{}::builder::push(&mut self.inner.{name}, item);",
            context.runtime
        )),
        MethodKind::Insert => {
            code.line(&format!("{unwrapped}.insert(key.into(), value.into());"));
        }
        MethodKind::Edit(target) => {
            let target = type_path(context, target);
            let (current, build) = if field.boxed {
                ("(*value).into()", "Box::new(edit(current).build())")
            } else {
                ("value.into()", "edit(current).build()")
            };
            match (field.required, field.boxed) {
                (true, false) => {
                    code.line(&format!(
                        "self.inner.{name} = edit(self.inner.{name}.into()).build();"
                    ));
                }
                (true, true) => code.line(&format!(
                    "self.inner.{name} = Box::new(edit((*self.inner.{name}).into()).build());"
                )),
                (false, _) => {
                    code.open(&format!("let current = match self.inner.{name}.take() {{"));
                    code.line(&format!("Some(value) => {current},"));
                    code.line(&format!("None => {target}::builder(),"));
                    code.close("};");
                    code.line(&format!("self.inner.{name} = Some({build});"));
                }
            }
        }
        MethodKind::EditInPlace(_) => match (field.required, field.boxed) {
            (true, false) => code.line(&format!("edit(&mut self.inner.{name});")),
            (true, true) => code.line(&format!("edit(&mut *self.inner.{name});")),
            (false, _) => code.line(&format!("edit({unwrapped});")),
        },
    }
}

/// The argument type that sets a whole field: `impl Into<T>`, or an iterator of them for
/// lists and maps.
fn value_type(context: &Context<'_>, shape: &Shape) -> String {
    match resolve(&context.api.types, shape) {
        Shape::Vec(item) => format!(
            "impl IntoIterator<Item = impl Into<{}>>",
            shape_text(context, item)
        ),
        Shape::Map(value) => format!(
            "impl IntoIterator<Item = (impl Into<String>, impl Into<{}>)>",
            shape_text(context, value)
        ),
        _ => format!("impl Into<{}>", shape_text(context, shape)),
    }
}

/// `argument` (of [`value_type`]) converted to the field's unwrapped type.
fn convert(context: &Context<'_>, field: &Field, argument: &str) -> Expr {
    let collect = |map: &str| {
        let items = Expr::method(Expr::word(argument), "into_iter", vec![]);
        let items = Expr::method(items, "map", vec![Expr::word(map)]);
        Expr::method(items, "collect", vec![])
    };
    match resolve(&context.api.types, &field.shape) {
        Shape::Vec(_) => Expr::call(
            format!("{}::builder::list", context.runtime),
            vec![Expr::word(argument)],
        ),
        Shape::Map(_) => collect("|(key, value)| (key.into(), value.into())"),
        _ if field.boxed => Expr::call("Box::new", vec![into(argument)]),
        _ => into(argument),
    }
}

/// `argument.into()`.
fn into(argument: &str) -> Expr {
    Expr::method(Expr::word(argument), "into", vec![])
}

/// `text.to_owned()` for a string literal `text`.
fn owned(text: String) -> Expr {
    Expr::method(Expr::word(text), "to_owned", vec![])
}

/// `Some(value)` for optional fields.
fn wrap(field: &Field, value: Expr) -> Expr {
    if field.required {
        value
    } else {
        Expr::call("Some", vec![value])
    }
}

/// A schema default as a Rust expression of the field's type.
fn literal(context: &Context<'_>, shape: &Shape, value: &Literal) -> Expr {
    let runtime = &context.runtime;
    let resolved = resolve(&context.api.types, shape);
    match (value, resolved) {
        (Literal::Null, _) => Expr::word("None"),
        (_, Shape::Nullable(inner)) => Expr::call("Some", vec![literal(context, inner, value)]),
        (Literal::Bool(value), _) => Expr::word(value.to_string()),
        (Literal::Int(value), Shape::Runtime(RuntimeType::IntOrString)) => Expr::call(
            format!("{runtime}::IntOrString::from"),
            vec![Expr::word(int(*value))],
        ),
        (Literal::Int(value), Shape::Runtime(RuntimeType::Number)) => {
            let value = suffixed(
                &grouped(&value.unsigned_abs().to_string()),
                "i64",
                *value < 0,
            );
            Expr::call(format!("{runtime}::Number::from"), vec![Expr::word(value)])
        }
        (Literal::UInt(value), Shape::Runtime(RuntimeType::Number)) => {
            let value = suffixed(&grouped(&value.to_string()), "u64", false);
            Expr::call(format!("{runtime}::Number::from"), vec![Expr::word(value)])
        }
        (Literal::Float(value), Shape::Runtime(RuntimeType::Number)) => Expr::call(
            format!("{runtime}::Number::from"),
            vec![Expr::word(float(*value))],
        ),
        (Literal::Int(value), _) => Expr::word(int(*value)),
        (Literal::UInt(value), _) => Expr::word(suffixed(&grouped(&value.to_string()), "", false)),
        (Literal::Float(value), _) => Expr::word(float(*value)),
        (Literal::Bytes(bytes), _) => Expr::call(
            format!("{runtime}::ByteString"),
            vec![Expr::method(
                Expr::word(byte_str_literal(bytes)),
                "to_vec",
                vec![],
            )],
        ),
        (Literal::Str(value), Shape::Runtime(runtime_type)) => Expr::call(
            format!("{runtime}::{}::from", runtime_type.name()),
            vec![Expr::word(str_literal(value))],
        ),
        (Literal::Str(value), Shape::Ref(id)) => Expr::call(
            format!("{}::from", type_path(context, *id)),
            vec![Expr::word(str_literal(value))],
        ),
        (Literal::Str(value), _) => owned(str_literal(value)),
        (Literal::Variant(variant), Shape::Ref(id)) => {
            Expr::word(format!("{}::{variant}", type_path(context, *id)))
        }
        (Literal::Json(value), _) => json(value),
        (Literal::List(items), Shape::Vec(item)) => Expr::Vec(
            items
                .iter()
                .map(|value| literal(context, item, value))
                .collect(),
        ),
        (Literal::Map(entries), Shape::Map(inner)) => collected(
            entries
                .iter()
                .map(|(key, value)| {
                    Expr::Tuple(vec![
                        owned(str_literal(key)),
                        literal(context, inner, value),
                    ])
                })
                .collect(),
        ),
        (Literal::Struct(values), Shape::Ref(id)) => struct_literal(context, *id, values),
        // The model matches every literal to its shape; nothing else reaches here.
        _ => Expr::call("::core::default::Default::default", vec![]),
    }
}

/// `[entries].into_iter().collect()`.
fn collected(entries: Vec<Expr>) -> Expr {
    let entries = Expr::method(Expr::Array(entries), "into_iter", vec![]);
    Expr::method(entries, "collect", vec![])
}

/// A struct default as a struct expression: the given fields, the others unset.
fn struct_literal(context: &Context<'_>, id: TypeId, values: &[(usize, Literal)]) -> Expr {
    let runtime = &context.runtime;
    let TypeKind::Struct(fields) = &context.api.get(id).kind else {
        return Expr::call("::core::default::Default::default", vec![]);
    };
    let members = fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let given = values.iter().find(|(i, _)| *i == index).map(|(_, v)| v);
            let value = match (field.role, given) {
                (FieldRole::Extra, Some(Literal::Map(entries))) => collected(
                    entries
                        .iter()
                        .map(|(key, value)| {
                            Expr::Tuple(vec![
                                Expr::word(str_literal(key)),
                                literal(context, &field.shape, value),
                            ])
                        })
                        .collect(),
                ),
                (FieldRole::Extra, _) => Expr::call(format!("{runtime}::ExtraFields::new"), vec![]),
                (FieldRole::ApiVersion, _) => {
                    Expr::call(format!("{runtime}::ApiVersion::absent"), vec![])
                }
                (FieldRole::Kind, _) => Expr::call(format!("{runtime}::Kind::absent"), vec![]),
                (FieldRole::Plain, Some(value)) => {
                    wrap(field, boxed(field, literal(context, &field.shape, value)))
                }
                (FieldRole::Plain, None) => Expr::word("None"),
            };
            (field.rust_name.clone(), value)
        })
        .collect();
    Expr::Struct(type_path(context, id), members, None)
}

/// `Box::new(value)` for boxed fields.
fn boxed(field: &Field, value: Expr) -> Expr {
    if field.boxed {
        Expr::call("Box::new", vec![value])
    } else {
        value
    }
}

/// Any JSON value as a `serde_json::Value` expression.
fn json(value: &serde_json::Value) -> Expr {
    use serde_json::Value;
    let call =
        |variant: &str, arg: Expr| Expr::call(format!("::serde_json::Value::{variant}"), vec![arg]);
    match value {
        Value::Null => Expr::word("::serde_json::Value::Null"),
        Value::Bool(value) => call("Bool", Expr::word(value.to_string())),
        Value::Number(number) => {
            let value = if let Some(n) = number.as_i64() {
                suffixed(&grouped(&n.unsigned_abs().to_string()), "i64", n < 0)
            } else if let Some(n) = number.as_u64() {
                suffixed(&grouped(&n.to_string()), "u64", false)
            } else {
                float(number.as_f64().unwrap_or_default())
            };
            call("from", Expr::word(value))
        }
        Value::String(text) => call("String", owned(str_literal(text))),
        Value::Array(items) => call("Array", Expr::Vec(items.iter().map(json).collect())),
        Value::Object(entries) => call(
            "Object",
            collected(
                entries
                    .iter()
                    .map(|(key, value)| Expr::Tuple(vec![owned(str_literal(key)), json(value)]))
                    .collect(),
            ),
        ),
    }
}

/// An `f64` literal in the form Rust's `Debug` writes it (`3.0`, `1e300`), its digits
/// grouped as `clippy::unreadable_literal` asks, suffixed `_f64`.
fn float(value: f64) -> String {
    let text = format!("{value:?}");
    let (mantissa, exponent) = match text.split_once('e') {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (text.as_str(), None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let negative = whole.starts_with('-');
    let whole = grouped(whole.trim_start_matches('-'));
    let mut out = whole;
    if !fraction.is_empty() {
        out.push('.');
        // Fractions are grouped from the left.
        let reversed: String = fraction.chars().rev().collect();
        let grouped_fraction: String = grouped(&reversed).chars().rev().collect();
        out.push_str(&grouped_fraction);
    }
    if let Some(exponent) = exponent {
        out.push('e');
        out.push_str(exponent);
    }
    suffixed(&out, "f64", negative)
}

/// Digits grouped by `_` in threes from the right, from five digits on.
fn grouped(digits: &str) -> String {
    if digits.len() < 5 {
        return digits.to_owned();
    }
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('_');
        }
        out.push(c);
    }
    out
}

/// A numeric literal with an optional `_suffix`, negated when `negative`.
fn suffixed(digits: &str, suffix: &str, negative: bool) -> String {
    let sign = if negative { "-" } else { "" };
    if suffix.is_empty() {
        format!("{sign}{digits}")
    } else {
        format!("{sign}{digits}_{suffix}")
    }
}

/// An integer literal, its digits grouped by `_` from five digits on, as
/// `clippy::unreadable_literal` asks.
fn int(value: i64) -> String {
    suffixed(&grouped(&value.unsigned_abs().to_string()), "", value < 0)
}

/// The full path of the builder of the struct `id`.
fn builder_path(context: &Context<'_>, id: TypeId) -> String {
    let ty = context.api.get(id);
    item_path(
        context,
        id,
        context.api.builders.get(&id).map_or(&ty.name, |b| &b.name),
    )
}
