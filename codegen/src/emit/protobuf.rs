//! Structs with a protobuf message → their `kubeforge_runtime::protobuf::Message` impl,
//! behind the generated crate's cargo feature `protobuf`: one helper call per field, as the
//! model decided (`model/protobuf.rs`). A Go struct embedded in the struct (its properties
//! the struct's own in JSON, one message field in protobuf) gets three private methods of
//! the same form, for its length, its fields and its decoding.

use super::Context;
use super::text::{Code, str_literal};
use crate::model::protobuf::{Encoding, Item, Message};
use crate::model::{Field, FieldRole, TypeDef};

/// The cargo feature that gates the impls.
pub(crate) const FEATURE: &str = "protobuf";

/// The number of fields past which a function may pass clippy's 100 lines (a merge arm takes
/// up to six).
const LONG: usize = 90;

/// What the three bodies are written for: the message itself, or an embedded struct.
struct Body<'a> {
    items: &'a [Item],
    /// The field that keeps unknown fields (the message's own only).
    unknown: Option<&'a Field>,
}

/// The impls of struct `ty` with message `message`, as formatted text.
pub(crate) fn impls(
    context: &Context<'_>,
    ty: &TypeDef,
    fields: &[Field],
    message: &Message,
) -> String {
    let runtime = &context.runtime;
    let name = &ty.name;
    let cfg = format!("#[cfg(feature = {})]", str_literal(FEATURE));
    let mut embedded = Vec::new();
    number_embedded(&message.fields, &mut embedded);
    let mut code = Code::new();
    code.line(&cfg);
    code.open(&format!("impl {runtime}::protobuf::Message for {name} {{"));
    code.line(&format!(
        "const NAME: &'static str = {};",
        str_literal(&message.name)
    ));
    code.blank();
    zero(&mut code, context, fields, message);
    if fields
        .iter()
        .any(|f| matches!(f.role, FieldRole::ApiVersion | FieldRole::Kind))
    {
        code.blank();
        code.open("fn set_type_meta(&mut self) {");
        for field in fields {
            match field.role {
                FieldRole::ApiVersion => code.line(&format!(
                    "self.{} = {runtime}::ApiVersion::present();",
                    field.rust_name
                )),
                FieldRole::Kind => code.line(&format!(
                    "self.{} = {runtime}::Kind::present();",
                    field.rust_name
                )),
                _ => {}
            }
        }
        code.close("}");
    }
    let body = Body {
        items: &message.fields,
        unknown: message.unknown.map(|index| &fields[index]),
    };
    code.blank();
    encoded_len(
        &mut code,
        context,
        fields,
        &body,
        &embedded,
        "fn encoded_len(&self) -> usize {",
    );
    code.blank();
    encode_raw(
        &mut code,
        context,
        fields,
        &body,
        &embedded,
        "fn encode_raw",
    );
    code.blank();
    merge_field(
        &mut code,
        context,
        fields,
        &body,
        &embedded,
        "fn merge_field(",
    );
    code.close("}");
    if !embedded.is_empty() {
        code.blank();
        code.line(&cfg);
        code.open(&format!("impl {name} {{"));
        for (index, items) in embedded.iter().enumerate() {
            let body = Body {
                items,
                unknown: None,
            };
            if index > 0 {
                code.blank();
            }
            encoded_len(
                &mut code,
                context,
                fields,
                &body,
                &embedded,
                &format!("fn protobuf_len_{index}(&self) -> usize {{"),
            );
            code.blank();
            encode_raw(
                &mut code,
                context,
                fields,
                &body,
                &embedded,
                &format!("fn protobuf_encode_{index}"),
            );
            code.blank();
            merge_field(
                &mut code,
                context,
                fields,
                &body,
                &embedded,
                &format!("fn protobuf_merge_{index}("),
            );
        }
        code.close("}");
    }
    code.blank();
    code.line(&cfg);
    code.line(&format!("{runtime}::protobuf_message_field!({name});"));
    code.finish()
}

/// Every embedded struct's fields, in a fixed order (depth first), so that each has an index.
fn number_embedded<'a>(items: &'a [Item], out: &mut Vec<&'a [Item]>) {
    for item in items {
        if let Item::Embedded { fields, .. } = item {
            out.push(fields);
            number_embedded(fields, out);
        }
    }
}

fn embedded_index(embedded: &[&[Item]], fields: &[Item]) -> usize {
    embedded
        .iter()
        .position(|e| std::ptr::eq(*e, fields))
        .unwrap_or_default()
}

fn zero(code: &mut Code, context: &Context<'_>, fields: &[Field], message: &Message) {
    let runtime = &context.runtime;
    code.open("fn zero() -> Self {");
    if fields.is_empty() {
        code.line("Self {}");
        code.close("}");
        return;
    }
    let mut encodings = std::collections::BTreeMap::new();
    field_encodings(&message.fields, &mut encodings);
    code.open("Self {");
    for (index, field) in fields.iter().enumerate() {
        let member = &field.rust_name;
        let value = match field.role {
            FieldRole::ApiVersion => format!("{runtime}::ApiVersion::absent()"),
            FieldRole::Kind => format!("{runtime}::Kind::absent()"),
            FieldRole::Extra => format!("{runtime}::ExtraFields::new()"),
            FieldRole::Plain if !field.required => "None".to_owned(),
            FieldRole::Plain => match encodings.get(&index) {
                Some(Encoding::Repeated { .. }) => "::std::vec::Vec::new()".to_owned(),
                Some(Encoding::Map { .. }) => format!("{}::new()", context.map),
                _ => format!("{runtime}::protobuf::Field::zero()"),
            },
        };
        code.line(&format!("{member}: {value},"));
    }
    code.close("}");
    code.close("}");
}

/// Each field's encoding, by field index.
fn field_encodings(items: &[Item], out: &mut std::collections::BTreeMap<usize, Encoding>) {
    for item in items {
        match item {
            Item::Field(codec) => {
                out.insert(codec.field, codec.encoding);
            }
            Item::Embedded { fields, .. } => field_encodings(fields, out),
        }
    }
}

/// The argument of a length or encode helper for the field.
fn argument(field: &Field, encoding: Encoding) -> String {
    let member = &field.rust_name;
    match encoding {
        Encoding::Required | Encoding::Repeated { optional: false } => format!("&self.{member}"),
        Encoding::Pointer | Encoding::NonZero => {
            format!("self.{member}.as_ref()")
        }
        Encoding::Repeated { optional: true } => {
            format!("self.{member}.as_deref().unwrap_or_default()")
        }
        Encoding::Map { optional: false } => format!("Some(&self.{member})"),
        Encoding::Map { optional: true } | Encoding::ItemsMap | Encoding::Empty => {
            format!("self.{member}.as_ref()")
        }
    }
}

fn helper(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::Required => "required",
        Encoding::Pointer | Encoding::NonZero => "optional",
        Encoding::Repeated { .. } => "repeated",
        Encoding::Map { .. } => "map",
        Encoding::ItemsMap => "items_map",
        Encoding::Empty => "empty",
    }
}

fn merge_helper(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::Required => "merge_required",
        Encoding::Pointer => "merge_optional",
        Encoding::NonZero => "merge_nonzero",
        Encoding::Repeated { optional: false } => "merge_repeated",
        Encoding::Repeated { optional: true } => "merge_repeated_optional",
        Encoding::Map { optional: false } => "merge_map",
        Encoding::Map { optional: true } => "merge_map_optional",
        Encoding::ItemsMap => "merge_items_map",
        Encoding::Empty => "merge_empty",
    }
}

fn encoded_len(
    code: &mut Code,
    context: &Context<'_>,
    fields: &[Field],
    body: &Body<'_>,
    embedded: &[&[Item]],
    signature: &str,
) {
    let runtime = &context.runtime;
    if body.items.len() > LONG {
        code.line("#[allow(clippy::too_many_lines)]");
    }
    code.open(signature);
    if body.items.is_empty() && body.unknown.is_none() {
        code.line("0");
        code.close("}");
        return;
    }
    code.line(&format!("use {runtime}::protobuf as pb;"));
    let mut terms: Vec<(String, Vec<String>)> = Vec::new();
    for item in body.items {
        match item {
            Item::Field(codec) => {
                let field = &fields[codec.field];
                terms.push((
                    format!("pb::len_{}(", helper(codec.encoding)),
                    vec![codec.number.to_string(), argument(field, codec.encoding)],
                ));
            }
            Item::Embedded { number, fields, .. } => {
                let index = embedded_index(embedded, fields);
                terms.push((
                    "pb::len_embedded(".to_owned(),
                    vec![number.to_string(), format!("self.protobuf_len_{index}()")],
                ));
            }
        }
    }
    if let Some(extra) = body.unknown {
        terms.push((
            "pb::len_unknown(".to_owned(),
            vec![format!("&self.{}", extra.rust_name)],
        ));
    }
    let last = terms.len() - 1;
    for (index, (head, args)) in terms.iter().enumerate() {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (head, tail) = match (index, index == last) {
            (0, true) => (head.clone(), ""),
            (0, false) if last == 1 => (format!("let len = {head}"), ";"),
            (0, false) => (format!("let mut len = {head}"), ";"),
            (_, false) => (format!("len += {head}"), ";"),
            (_, true) => (format!("len + {head}"), ""),
        };
        code.list(&head, &args, ")", tail);
    }
    code.close("}");
}

fn encode_raw(
    code: &mut Code,
    context: &Context<'_>,
    fields: &[Field],
    body: &Body<'_>,
    embedded: &[&[Item]],
    name: &str,
) {
    let runtime = &context.runtime;
    if body.items.is_empty() && body.unknown.is_none() {
        code.line(&format!("{name}(&self, _: &mut Vec<u8>) {{}}"));
        return;
    }
    if body.items.len() > LONG {
        code.line("#[allow(clippy::too_many_lines)]");
    }
    code.open(&format!("{name}(&self, buf: &mut Vec<u8>) {{"));
    code.line(&format!("use {runtime}::protobuf as pb;"));
    for item in body.items {
        match item {
            Item::Field(codec) => {
                let field = &fields[codec.field];
                let number = codec.number.to_string();
                let argument = argument(field, codec.encoding);
                code.list(
                    &format!("pb::encode_{}(", helper(codec.encoding)),
                    &[&number, &argument, "buf"],
                    ")",
                    ";",
                );
            }
            Item::Embedded { number, fields, .. } => {
                let index = embedded_index(embedded, fields);
                code.line(&format!(
                    "pb::encode_embedded({number}, self.protobuf_len_{index}(), buf);"
                ));
                code.line(&format!("self.protobuf_encode_{index}(buf);"));
            }
        }
    }
    if let Some(extra) = body.unknown {
        code.line(&format!(
            "pb::encode_unknown(&self.{}, buf);",
            extra.rust_name
        ));
    }
    code.close("}");
}

fn merge_field(
    code: &mut Code,
    context: &Context<'_>,
    fields: &[Field],
    body: &Body<'_>,
    embedded: &[&[Item]],
    head: &str,
) {
    let runtime = &context.runtime;
    let wire = format!("wire: {runtime}::protobuf::WireType");
    let input = format!("input: &mut {runtime}::protobuf::Input<'_>");
    if body.items.len() > LONG / 4 {
        code.line("#[allow(clippy::too_many_lines)]");
    }
    code.line("#[inline]");
    code.list(
        head,
        &["&mut self", "number: u32", &wire, &input],
        ")",
        &format!(" -> Result<(), {runtime}::protobuf::DecodeError> {{"),
    );
    code.deeper();
    code.line(&format!("use {runtime}::protobuf as pb;"));
    code.open("match number {");
    for item in body.items {
        match item {
            Item::Field(codec) => {
                let field = &fields[codec.field];
                let member = format!("&mut self.{}", field.rust_name);
                let json = str_literal(&field.json_name);
                let number = codec.number.to_string();
                // A repeated field's helper counts the elements that follow under its key.
                let args: &[&str] = match codec.encoding {
                    Encoding::Repeated { .. } => &[&member, &number, "wire", "input", &json],
                    _ => &[&member, "wire", "input", &json],
                };
                code.arm(
                    &number,
                    &format!("pb::{}(", merge_helper(codec.encoding)),
                    args,
                    ")",
                );
            }
            Item::Embedded { number, fields, .. } => {
                let index = embedded_index(embedded, fields);
                let closure = format!(
                    "|number, wire, input| self.protobuf_merge_{index}(number, wire, input)"
                );
                code.arm(
                    &number.to_string(),
                    "pb::merge_embedded(",
                    &["wire", "input", &closure],
                    ")",
                );
            }
        }
    }
    match body.unknown {
        Some(extra) => code.arm(
            "_",
            "pb::merge_unknown(",
            &[
                &format!("&mut self.{}", extra.rust_name),
                "number",
                "wire",
                "input",
            ],
            ")",
        ),
        None => code.arm_expr("_", "pb::skip_unknown(wire, input)"),
    }
    code.close("}");
    code.close("}");
}
