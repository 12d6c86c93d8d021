//! Structs → their `Serialize` and `Deserialize` impls, spelled out rather than derived.
//!
//! `#[derive(Deserialize)]` writes, per struct, a field enum with its own `Deserialize` impl
//! (string, byte and integer identifiers), a sequence visitor and a map visitor; type-checking
//! that is most of the compile time of a generated API crate (for the full Kubernetes API,
//! 22 of the 24 seconds its types take). The impls written here are only what an object
//! needs, and as little of it per struct as can be: a struct is read field by field
//! (`serde_struct::ReadFields`): its placeholders (`Empty`), a table of its field names and
//! required fields, and one function, a `match` on the key's name (constants compared
//! inline: a search of the table in the runtime cost 7-11% more instructions to read a Pod),
//! whose arms each read one field's value into the struct with one runtime call, marking the
//! field seen by its variant of the field enum (never a number: adding a field changes only
//! its own lines); the loop over the keys and missing fields are the runtime's
//! `read_fields`, compiled once. A struct field or a list of structs
//! is read in place into its parent (BENCHMARKS.md, section c: the moves of every level were
//! most of the data-cache write misses). A struct with a required field whose type has no
//! placeholder the generator knows (a union, a user's type, a boxed struct) is read into
//! slots by a `visit_map` of its own, matching each key to a field in a plain `match`.
//! Writing is one generic body for every struct (`serde_struct::serialize`, which also
//! counts the entries for a compact format) over the struct's `WriteFields`: one runtime call
//! per field, each saying whether it failed, with no `?` (each was obligations to type-check
//! in a body generic over the serializer). The generic steps are shared functions in
//! `kubeforge_runtime::serde_struct`. Behaviour is the derive's with our attributes (see
//! that module).
//!
//! A struct the user gives a `#[serde(…)]` attribute (`Config::type_attribute`,
//! `Config::field_attribute`) keeps the derive, so the attribute takes effect.

use std::fmt::Write as _;

use super::Context;
use super::text::{Code, push_str_literal, str_literal};
use crate::ground::naming::{self, Namespace};
use crate::model::builders::resolve;
use crate::model::{Field, FieldRole, Shape, TypeDef, TypeKind};

/// How a field is read and written.
enum Presence {
    /// Always written; missing on input is an error.
    Required,
    /// `Option<T>`: written when `Some`; `null` on input is absent.
    Optional,
    /// `Option<Option<T>>` of a nullable field: absent, `null` or a value, each kept.
    OptionalNullable,
    /// An `apiVersion`/`kind` marker: written when present, absent when missing on input.
    Marker(&'static str),
    /// The keys that are no property: every other key read goes in, and its entries are
    /// written after the properties, in order.
    Extra,
}

fn presence(context: &Context<'_>, field: &Field) -> Presence {
    match field.role {
        FieldRole::ApiVersion => Presence::Marker("ApiVersion"),
        FieldRole::Kind => Presence::Marker("Kind"),
        FieldRole::Extra => Presence::Extra,
        FieldRole::Plain if field.required => Presence::Required,
        FieldRole::Plain => match resolve(&context.api.types, &field.shape) {
            Shape::Nullable(_) => Presence::OptionalNullable,
            _ => Presence::Optional,
        },
    }
}

/// How a field's value is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    /// Through its type's `Deserialize`, returned by value.
    Value,
    /// A struct whose impls kubeforge writes, in place into the parent's slot
    /// (`serde_struct::InPlace`).
    Struct,
    /// A list of such structs, each read in place into the list's next slot.
    StructList,
}

/// How `field`'s value is read: in place when it is a struct whose impls kubeforge writes
/// (here, or in the companion crate `kubeforge-meta`, generated alike) or a list of them,
/// through aliases, required or optional; a boxed field (a recursive type) by value.
fn read_of(context: &Context<'_>, field: &Field) -> Read {
    if field.role != FieldRole::Plain || field.boxed {
        return Read::Value;
    }
    match resolve(&context.api.types, &field.shape) {
        shape if in_place(context, shape) => Read::Struct,
        Shape::Vec(item) if in_place(context, item) => Read::StructList,
        _ => Read::Value,
    }
}

/// Whether `shape` is a struct whose impls kubeforge writes (so implements `InPlace`).
fn in_place(context: &Context<'_>, shape: &Shape) -> bool {
    match resolve(&context.api.types, shape) {
        Shape::Ref(id) => {
            matches!(context.api.defined_kind(*id), TypeKind::Struct(_))
                && (context.api.is_companion(*id) || !context.attributes.has_serde(*id))
        }
        _ => false,
    }
}

/// The `Serialize` and `Deserialize` impls of the struct `ty`, as formatted text (see
/// `text.rs`).
pub(crate) fn impls(context: &Context<'_>, ty: &TypeDef, fields: &[Field]) -> String {
    let mut code = Code::new();
    serialize_impl(&mut code, context, ty, fields);
    code.blank();
    match placeholders(context, fields, 0) {
        Some(empty) => read_fields_impl(&mut code, context, ty, fields, &empty),
        None => deserialize_impl(&mut code, context, ty, fields),
    }
    code.finish()
}

/// How deep [`placeholders`] follows required struct fields into their types; a required,
/// unboxed field cannot make a cycle, so this only guards against surprises.
const PLACEHOLDER_DEPTH: usize = 64;

/// The placeholder each field of a struct is built with before its fields are read
/// (`serde_struct::Empty`), or `None` when one of its required fields' types has none that
/// the generator knows (a union, a user's type, a boxed struct): that struct is read by
/// slots instead ([`deserialize_impl`]).
fn placeholders(context: &Context<'_>, fields: &[Field], depth: usize) -> Option<Vec<String>> {
    let runtime = &context.runtime;
    fields
        .iter()
        .map(|field| match presence(context, field) {
            Presence::Optional | Presence::OptionalNullable => Some("None".to_owned()),
            Presence::Marker(marker) => Some(format!("{runtime}::{marker}::absent()")),
            Presence::Extra => Some(format!("{runtime}::ExtraFields::new()")),
            Presence::Required if field.boxed => None,
            Presence::Required => required_placeholder(context, &field.shape, depth),
        })
        .collect()
}

/// The placeholder of a required field of `shape` (see [`placeholders`]).
fn required_placeholder(context: &Context<'_>, shape: &Shape, depth: usize) -> Option<String> {
    match resolve(&context.api.types, shape) {
        Shape::Ref(id) => match context.api.defined_kind(*id) {
            TypeKind::Enum(_) => Some("::core::convert::From::from(\"\")".to_owned()),
            TypeKind::Struct(fields)
                if in_place(context, shape)
                    && depth < PLACEHOLDER_DEPTH
                    && placeholders(context, fields, depth + 1).is_some() =>
            {
                Some("serde_struct::Empty::empty()".to_owned())
            }
            _ => None,
        },
        _ => Some("serde_struct::Empty::empty()".to_owned()),
    }
}

/// A name for a generic parameter of the impls that is not the struct's own (`A` for the
/// map access, unless the struct is called `A`).
fn type_parameter(ty: &TypeDef, wanted: &str) -> String {
    let mut taken = Namespace::default();
    taken.reserve(&ty.name);
    taken.reserve(&naming::fields_type_name(&ty.name));
    taken.claim(wanted)
}

fn serialize_impl(code: &mut Code, context: &Context<'_>, ty: &TypeDef, fields: &[Field]) {
    let runtime = &context.runtime;
    let name = &ty.name;
    let s = type_parameter(ty, "S");
    let m = type_parameter(ty, "M");

    // `Serialize` is one generic body for every struct: the runtime's `serialize` opens the
    // map (told its length, counted by writing the entries once more into a counter, when
    // the format is compact) and writes the entries with the struct's `WriteFields`.
    code.open(&format!("impl ::serde::Serialize for {name} {{"));
    code.line("#[inline]");
    code.list(
        &format!("fn serialize<{s}: ::serde::Serializer>("),
        &["&self", &format!("serializer: {s}")],
        ")",
        &format!(" -> Result<{s}::Ok, {s}::Error> {{"),
    );
    code.deeper();
    code.line(&format!(
        "{runtime}::serde_struct::serialize(self, serializer)"
    ));
    code.close("}");
    code.close("}");
    code.blank();

    let state = if fields.is_empty() { "_" } else { "state" };
    code.open_impl(&format!("impl {runtime}::serde_struct::WriteFields"), name);
    code.line("#[allow(clippy::too_many_lines)]");
    code.list(
        &format!("fn write_fields<{m}: ::serde::ser::SerializeMap>("),
        &[
            "&self",
            &format!("{state}: &mut {runtime}::serde_struct::Entries<{m}>"),
        ],
        ")",
        " {",
    );
    code.deeper();
    // One call per field and no `?`: each returns whether it failed (`Entries`), since each
    // `?` of a generic body is obligations to type-check (BENCHMARKS.md, section g).
    if !fields.is_empty() {
        code.open("'entries: {");
    }
    for field in fields {
        let member = &field.rust_name;
        let json = str_literal(&field.json_name);
        let (head, items) = match presence(context, field) {
            Presence::Required => ("if state.entry(", vec![json, format!("&self.{member}")]),
            Presence::Optional | Presence::OptionalNullable => (
                "if state.optional(",
                vec![json, format!("self.{member}.as_ref()")],
            ),
            Presence::Marker(_) => (
                "if state.entry_if(",
                vec![
                    json,
                    format!("&self.{member}"),
                    format!("self.{member}.is_present()"),
                ],
            ),
            Presence::Extra => ("if state.extra(", vec![format!("&self.{member}")]),
        };
        let items: Vec<&str> = items.iter().map(String::as_str).collect();
        code.list(head, &items, ")", " {");
        code.deeper();
        code.line("break 'entries;");
        code.close("}");
    }
    if !fields.is_empty() {
        code.close("}");
    }
    code.close("}");
    code.close("}");
}

/// A struct's field that keeps unknown keys, if it has one, and the fields read by name, in
/// declaration order.
fn split_extra<'a>(
    context: &Context<'_>,
    fields: &'a [Field],
) -> (Option<&'a Field>, Vec<&'a Field>) {
    let (extra, read): (Vec<&Field>, Vec<&Field>) = fields
        .iter()
        .partition(|f| matches!(presence(context, f), Presence::Extra));
    (extra.into_iter().next(), read)
}

/// The enum that names a struct's fields by their Rust names (never by number, so that adding
/// or removing a field changes only its own lines), if it has any.
fn field_enum_decl(code: &mut Code, field_enum: &str, fields: &[&Field]) {
    if fields.is_empty() {
        return;
    }
    code.line("#[allow(non_camel_case_types, clippy::enum_variant_names)]");
    code.open(&format!("enum {field_enum} {{"));
    for field in fields {
        code.line_with(|out| {
            out.push_str(&field.rust_name);
            out.push(',');
        });
    }
    code.close("}");
    code.blank();
}

/// A struct's `Deserialize` impl (one call of the runtime's `serde_struct::deserialize`), then
/// the opening of the unnamed constant its reading impls sit in, so that their names cannot
/// clash with a type of the module; the caller closes it.
fn deserialize_and_open_const(code: &mut Code, context: &Context<'_>, ty: &TypeDef) {
    let runtime = &context.runtime;
    let name = &ty.name;
    let d = type_parameter(ty, "D");
    code.open(&format!(
        "impl<'de> ::serde::Deserialize<'de> for {name} {{"
    ));
    code.line("#[inline]");
    code.list(
        &format!("fn deserialize<{d}: ::serde::Deserializer<'de>>("),
        &[&format!("deserializer: {d}")],
        ")",
        &format!(" -> Result<Self, {d}::Error> {{"),
    );
    code.deeper();
    code.line(&format!(
        "{runtime}::serde_struct::deserialize(deserializer)"
    ));
    code.close("}");
    code.close("}");
    code.blank();
    code.open("const _: () = {");
    code.line(&format!("use {runtime}::serde_struct;"));
    code.blank();
}

#[allow(clippy::too_many_lines)]
fn deserialize_impl(code: &mut Code, context: &Context<'_>, ty: &TypeDef, fields: &[Field]) {
    let runtime = &context.runtime;
    let name = &ty.name;
    let a = type_parameter(ty, "A");
    let (extra, fields) = split_extra(context, fields);
    let json_names: Vec<String> = fields.iter().map(|f| str_literal(&f.json_name)).collect();

    // The visitor's own bindings must not be shadowed by a field's slot.
    let mut names = Namespace::default();
    for field in fields.iter().copied().chain(extra) {
        names.reserve(&field.rust_name);
    }
    let map = names.claim("map");
    let index = names.claim("field");
    let key = names.claim("key");
    let place = names.claim("place");
    // Fields are named by an enum whose variants are the fields' Rust names, never by
    // number: adding or removing a field changes only its own lines.
    let field_enum = naming::field_enum_name(&ty.name);
    let keys = naming::fields_type_name(&ty.name);

    // `deserialize` reads into a slot of its own and moves the value out; a struct field of
    // another generated struct is read straight into the parent's slot (`InPlace`).
    // The field enum, the type that names the fields and the impls that read the struct sit
    // in the unnamed constant. The visitor itself, its `expecting` and `deserialize_struct`'s
    // call are the runtime's (`InPlace`'s provided `deserialize_into`): one generic body for
    // every struct instead of two here.
    deserialize_and_open_const(code, context, ty);
    field_enum_decl(code, &field_enum, &fields);
    code.line(&format!("enum {keys} {{}}"));
    code.blank();
    // `field` is the reading code's only non-generic function: inline, it is compiled where
    // a reader is instantiated, not for every struct of the crate.
    code.open(&format!("impl serde_struct::Fields for {keys} {{"));
    let names: Vec<&str> = json_names.iter().map(String::as_str).collect();
    code.list(
        "const NAMES: &'static [&'static str] = &[",
        &names,
        "]",
        ";",
    );
    code.blank();
    if fields.is_empty() {
        code.line("type Field = ::std::convert::Infallible;");
        code.blank();
        code.line("#[inline]");
        code.open("fn field(_: &str) -> Option<Self::Field> {");
        code.line("None");
        code.close("}");
    } else {
        code.line(&format!("type Field = {field_enum};"));
        code.blank();
        code.line("#[inline]");
        code.open(&format!("fn field(name: &str) -> Option<{field_enum}> {{"));
        code.open("match name {");
        for (field, json) in fields.iter().zip(&json_names) {
            code.line_with(|out| {
                let _ = write!(out, "{json} => Some({field_enum}::{}),", field.rust_name);
            });
        }
        code.line("_ => None,");
        code.close("}");
        code.close("}");
    }
    code.close("}");
    code.blank();

    code.open(&format!(
        "impl<'de> serde_struct::InPlace<'de> for {name} {{"
    ));
    code.line_with(|out| {
        out.push_str("const NAME: &'static str = ");
        push_str_literal(out, name);
        out.push(';');
    });
    code.line(&format!(
        "const NAMES: &'static [&'static str] = <{keys} as serde_struct::Fields>::NAMES;"
    ));
    code.blank();
    code.line("#[allow(clippy::too_many_lines)]");
    code.list(
        &format!("fn visit_map<{a}: ::serde::de::MapAccess<'de>>("),
        &[
            &format!("mut {map}: {a}"),
            &format!("{place}: &mut Option<{name}>"),
        ],
        ")",
        &format!(" -> Result<(), {a}::Error> {{"),
    );
    code.deeper();
    for field in &fields {
        code.line(&format!("let mut {} = None;", field.rust_name));
    }
    let seed = if let Some(extra) = extra {
        code.line(&format!(
            "let mut {} = {runtime}::ExtraFields::new();",
            extra.rust_name
        ));
        code.line(&format!("let mut {key} = String::new();"));
        format!("serde_struct::NamedKey::<{keys}>::new(&mut {key})")
    } else {
        format!("serde_struct::Key::<{keys}>::new()")
    };
    // The extra keys' values: whole-number floats are integers for an integer without format.
    let read_extra = if extra.is_some_and(|f| f.shape.reads_whole_floats(&context.api.types)) {
        "serde_struct::integral_extra("
    } else {
        "serde_struct::extra("
    };
    let otherwise = extra.map(|extra| {
        [
            format!("&mut {map}"),
            format!("&mut {}", extra.rust_name),
            format!("&mut {key}"),
        ]
    });
    if fields.is_empty() {
        code.list(
            &format!("while {map}.next_key_seed("),
            &[&seed],
            ")",
            "?.is_some() {",
        );
        code.deeper();
        match &otherwise {
            Some(args) => code.list(read_extra, &[&args[0], &args[1], &args[2]], ")", "?;"),
            None => code.line(&format!("serde_struct::skip(&mut {map})?;")),
        }
        code.close("}");
    } else {
        code.list(
            &format!("while let Some({index}) = {map}.next_key_seed("),
            &[&seed],
            ")",
            "? {",
        );
        code.deeper();
        code.open(&format!("match {index} {{"));
        let map_arg = format!("&mut {map}");
        for (field, json) in fields.iter().zip(&json_names) {
            let required = matches!(presence(context, field), Presence::Required);
            let read = match (read_of(context, field), required) {
                (Read::Struct, true) => "serde_struct::struct_value(",
                (Read::Struct, false) => "serde_struct::optional_struct_value(",
                (Read::StructList, true) => "serde_struct::struct_list_value(",
                (Read::StructList, false) => "serde_struct::optional_struct_list_value(",
                (Read::Value, _) if field.shape.reads_whole_floats(&context.api.types) => {
                    "serde_struct::integral_value("
                }
                (Read::Value, _) => "serde_struct::value(",
            };
            code.arm(
                &format!("Some({field_enum}::{})", field.rust_name),
                read,
                &[&map_arg, &format!("&mut {}", field.rust_name), json],
                ")",
            );
        }
        match &otherwise {
            Some(args) => code.arm("None", read_extra, &[&args[0], &args[1], &args[2]], ")"),
            None => code.line(&format!("None => serde_struct::skip(&mut {map}),")),
        }
        code.close("}?;");
        code.close("}");
    }
    code.blank();
    // The required fields first, so that the struct is built with nothing left that can
    // fail, straight into the slot.
    for field in &fields {
        if matches!(presence(context, field), Presence::Required) {
            let member = &field.rust_name;
            let json = str_literal(&field.json_name);
            code.line(&format!(
                "let {member} = serde_struct::required({member}, {json})?;"
            ));
        }
    }
    if fields.is_empty() && extra.is_none() {
        code.line(&format!("*{place} = Some({name} {{}});"));
    } else {
        code.open(&format!("*{place} = Some({name} {{"));
        for field in fields.iter().copied().chain(extra) {
            let member = &field.rust_name;
            code.line_with(|out| {
                let _ = match presence(context, field) {
                    Presence::Required | Presence::OptionalNullable | Presence::Extra => {
                        write!(out, "{member},")
                    }
                    Presence::Optional => {
                        write!(out, "{member}: serde_struct::optional({member}),")
                    }
                    Presence::Marker(marker) => write!(
                        out,
                        "{member}: {member}.unwrap_or_else({runtime}::{marker}::absent),"
                    ),
                };
            });
        }
        code.close("});");
    }
    code.line("Ok(())");
    code.close("}");
    code.close("}");
    code.close("};");
}

/// The reading impls of a struct read field by field (`serde_struct::ReadFields`): its
/// placeholders (`Empty`), its table (name, field names, required fields) and one function
/// that reads one field's value into the struct, in place. The loop over the keys, the
/// lookup of a key, duplicate and missing fields are the runtime's `read_fields`.
fn read_fields_impl(
    code: &mut Code,
    context: &Context<'_>,
    ty: &TypeDef,
    fields: &[Field],
    empty: &[String],
) {
    let name = &ty.name;
    let a = type_parameter(ty, "A");
    // A field is its index in declaration order, in the table's names, in the seen bits
    // and in its required list (the first one missing is the error); the text names it by
    // its variant of the field enum (`XField::name as usize`), never by number, so that
    // adding or removing a field changes only its own lines.
    let (extra, read) = split_extra(context, fields);

    let field_enum = naming::field_enum_name(name);
    let index_of = |field: &Field| format!("{field_enum}::{} as usize", field.rust_name);
    deserialize_and_open_const(code, context, ty);
    field_enum_decl(code, &field_enum, &read);
    let markers = fields
        .iter()
        .any(|field| matches!(presence(context, field), Presence::Marker(_)));
    if ty.derive_default && !markers {
        // Its `Default` is its placeholder: no body of its own.
        code.line(&format!(
            "impl serde_struct::DefaultIsEmpty for {name} {{}}"
        ));
    } else {
        code.open(&format!("impl serde_struct::Empty for {name} {{"));
        code.line("#[inline]");
        code.open("fn empty() -> Self {");
        if fields.is_empty() {
            code.line(&format!("{name} {{}}"));
        } else {
            code.open(&format!("{name} {{"));
            for (field, empty) in fields.iter().zip(empty) {
                code.line(&format!("{}: {empty},", field.rust_name));
            }
            code.close("}");
        }
        code.close("}");
        code.close("}");
    }
    code.blank();

    code.open(&format!(
        "impl<'de> serde_struct::ReadFields<'de> for {name} {{"
    ));
    // One constant for the table: each constant is a body rustc checks and evaluates.
    code.open("const TABLE: serde_struct::Table = serde_struct::Table {");
    code.line_with(|out| {
        out.push_str("name: ");
        push_str_literal(out, name);
        out.push(',');
    });
    let json_names: Vec<String> = read.iter().map(|f| str_literal(&f.json_name)).collect();
    let names: Vec<&str> = json_names.iter().map(String::as_str).collect();
    code.list("names: &[", &names, "]", ",");
    let required: Vec<String> = read
        .iter()
        .filter(|f| matches!(presence(context, f), Presence::Required))
        .map(|f| index_of(f))
        .collect();
    let required: Vec<&str> = required.iter().map(String::as_str).collect();
    code.list("required: &[", &required, "]", ",");
    code.close("};");
    code.blank();
    code.line("#[allow(clippy::too_many_lines)]");
    let unused = |used: bool, name: &str| {
        if used {
            name.to_owned()
        } else {
            format!("_{name}")
        }
    };
    code.list(
        &format!("fn read_field<{a}: ::serde::de::MapAccess<'de>>("),
        &[
            "&mut self",
            &format!(
                "{}: &str",
                unused(!read.is_empty() || extra.is_some(), "name")
            ),
            &format!("map: &mut {a}"),
            &format!(
                "{}: &mut serde_struct::Seen",
                unused(!read.is_empty(), "seen")
            ),
        ],
        ")",
        &format!(" -> Result<(), {a}::Error> {{"),
    );
    code.deeper();
    let otherwise = match extra {
        Some(extra) if extra.shape.reads_whole_floats(&context.api.types) => format!(
            "serde_struct::integral_extra_named(map, &mut self.{}, name)",
            extra.rust_name
        ),
        Some(extra) => format!(
            "serde_struct::extra_named(map, &mut self.{}, name)",
            extra.rust_name
        ),
        None => "serde_struct::skip(map)".to_owned(),
    };
    if read.is_empty() {
        code.line(&otherwise);
    } else {
        // The names as the table spells them: one list, so a key and its field's name in an
        // error are the same text; the field's index in it marks the field seen.
        code.open("match name {");
        for (field, json) in read.iter().zip(&json_names) {
            let member = &field.rust_name;
            let required = matches!(presence(context, field), Presence::Required);
            let nullable = matches!(presence(context, field), Presence::OptionalNullable);
            let integral = field.shape.reads_whole_floats(&context.api.types);
            let reader = match (read_of(context, field), required) {
                (Read::Value, _) if nullable && integral => "serde_struct::read_some_integral",
                (Read::Value, _) if nullable => "serde_struct::read_some",
                (Read::Struct, true) => "serde_struct::read_struct",
                (Read::Struct, false) => "serde_struct::read_optional_struct",
                (Read::StructList, true) => "serde_struct::read_struct_list",
                (Read::StructList, false) => "serde_struct::read_optional_struct_list",
                (Read::Value, _) if integral => "serde_struct::read_integral",
                (Read::Value, _) => "serde_struct::read",
            };
            let place = format!("&mut self.{member}");
            let index = index_of(field);
            code.arm(
                json,
                &format!("{reader}("),
                &["map", &place, "seen", &index],
                ")",
            );
        }
        code.arm_expr("_", &otherwise);
        code.close("}");
    }
    code.close("}");
    code.close("}");
    code.close("};");
}
