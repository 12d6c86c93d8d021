//! Formatted text, the only thing emit produces: every item is written straight into a
//! `String` in its final shape (no token streams that `write` would parse and print again,
//! which was most of the generator's time). Expressions that need prettyplease's line
//! breaking exactly (the builder constructors) are printed by `pretty.rs`.
//!
//! The rules are few and deterministic: four spaces per level; a call, parameter list or
//! array is written on one line when that line fits in [`WIDTH`] columns, and otherwise with
//! one element per line, each followed by a comma; a blank line between items. Names are
//! written as the model made them, valid by construction and checked once there
//! (`model/identifiers.rs`). String literals are spelled by [`push_str_literal`],
//! exactly as `proc_macro2::Literal::string` spells them.

use std::fmt::Write as _;

/// The column a line of the serde impls and builders should not pass.
pub(crate) const WIDTH: usize = 100;

/// prettyplease's margin, and the least room it leaves a deeply indented line: the items
/// prettyplease formatted before they were text (type definitions, resource impls) keep
/// its line breaks ([`Code::fits`]).
const MARGIN: usize = 89;
const MIN_SPACE: usize = 60;

/// A text part being written: the text, and the current indentation level.
#[derive(Debug, Default)]
pub(crate) struct Code {
    text: String,
    level: usize,
}

impl Code {
    pub(crate) fn new() -> Self {
        Code {
            text: String::with_capacity(4096),
            level: 0,
        }
    }

    /// The text written so far.
    pub(crate) fn finish(self) -> String {
        self.text
    }

    /// The width of the current indentation.
    pub(crate) fn indent_width(&self) -> usize {
        self.level * 4
    }

    fn indent(&mut self) {
        for _ in 0..self.level {
            self.text.push_str("    ");
        }
    }

    /// Whether `len` more characters fit on a line at the current indentation, by
    /// prettyplease's measure.
    fn fits(&self, len: usize) -> bool {
        fits_at(self.indent_width(), len)
    }

    /// One line at the current indentation.
    pub(crate) fn line(&mut self, line: &str) {
        self.indent();
        self.text.push_str(line);
        self.text.push('\n');
    }

    /// One line built by `write`, at the current indentation.
    pub(crate) fn line_with(&mut self, write: impl FnOnce(&mut String)) {
        self.indent();
        write(&mut self.text);
        self.text.push('\n');
    }

    /// A line that opens a block (`… {`): what follows is indented one level more.
    pub(crate) fn open(&mut self, line: &str) {
        self.line(line);
        self.level += 1;
    }

    /// Indents what follows one level more (after a [`Code::list`] that opened a block).
    pub(crate) fn deeper(&mut self) {
        self.level += 1;
    }

    /// Indents what follows one level less (before a line that closes one block and opens
    /// another, such as `} else if … {`).
    pub(crate) fn shallower(&mut self) {
        self.level = self.level.saturating_sub(1);
    }

    /// Text already indented and ending with a newline, as it is.
    pub(crate) fn raw(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// A line that closes a block (`}`), one level less indented.
    pub(crate) fn close(&mut self, line: &str) {
        self.level = self.level.saturating_sub(1);
        self.line(line);
    }

    /// An empty line.
    pub(crate) fn blank(&mut self) {
        self.text.push('\n');
    }

    /// `///` lines for already escaped doc lines (`docs::doc_lines`); an empty line is a
    /// bare `///`. Spelled as prettyplease prints `#[doc = " …"]`.
    pub(crate) fn docs<'a>(&mut self, lines: impl IntoIterator<Item = &'a str>) {
        for line in lines {
            self.indent();
            let line = line.trim_end_matches(' ');
            if line.is_empty() {
                self.text.push_str("///\n");
            } else {
                self.text.push_str("/// ");
                self.text.push_str(line);
                self.text.push('\n');
            }
        }
    }

    /// Lines already formatted at indentation zero (an attribute, `attributes.rs`), each
    /// at the current indentation.
    pub(crate) fn lines(&mut self, text: &str) {
        for line in text.lines() {
            if line.is_empty() {
                self.blank();
            } else {
                self.line(line);
            }
        }
    }

    /// `prefix` + the type `ty` + `suffix` (a field `pub name: T,`, an alias
    /// `pub type A = T;`), broken at the type's generic arguments as prettyplease breaks
    /// them: on one line when it fits in [`WIDTH`], otherwise `Head<` with each argument
    /// on its own line followed by a comma, each broken the same way, and `>` + `suffix`.
    /// `ty` is a type as `shape_text` spells it.
    pub(crate) fn typed(&mut self, prefix: &str, ty: &str, suffix: &str) {
        self.typed_counting(prefix, ty, suffix, suffix.len());
    }

    /// A tuple variant or struct of one field, `head` + the type `ty` + `close`
    /// (`Ok(` … `),`): on one line when it fits, otherwise with the type on its own line,
    /// one level deeper and followed by a comma, broken as [`Code::typed`] breaks it.
    pub(crate) fn tuple_typed(&mut self, head: &str, ty: &str, close: &str) {
        if self.fits(head.len() + ty.len() + close.len()) {
            self.line_with(|out| {
                out.push_str(head);
                out.push_str(ty);
                out.push_str(close);
            });
        } else {
            self.line(head);
            self.level += 1;
            // The comma is the break's, not text that must fit.
            self.typed_counting("", ty, ",", 0);
            self.level -= 1;
            self.line(close);
        }
    }

    /// [`Code::typed`], where `counted` of the suffix counts for the fit: the comma after
    /// the last argument is not text to prettyplease but the break that follows it.
    fn typed_counting(&mut self, prefix: &str, ty: &str, suffix: &str, counted: usize) {
        let split = generic_arguments(ty);
        if split.is_none() || self.fits(prefix.len() + ty.len() + counted) {
            // A path without arguments has no place to break.
            self.line_with(|out| {
                out.push_str(prefix);
                out.push_str(ty);
                out.push_str(suffix);
            });
            return;
        }
        let Some((head, open, args)) = split else {
            return;
        };
        self.line_with(|out| {
            out.push_str(prefix);
            out.push_str(head);
            out.push(open);
        });
        self.level += 1;
        for (index, arg) in args.iter().enumerate() {
            let last = index + 1 == args.len();
            self.typed_counting("", arg, ",", if last { 0 } else { 1 });
        }
        self.level -= 1;
        self.line_with(|out| {
            out.push(if open == '<' { '>' } else { ')' });
            out.push_str(suffix);
        });
    }

    /// `{head} for {name} {` for a trait impl's `head` (`impl ::serde::Serialize`), opening
    /// a block: on one line when it fits, otherwise with `for {name} {` on a line of its
    /// own, as prettyplease writes long impl headers.
    pub(crate) fn open_impl(&mut self, head: &str, name: &str) {
        if self.fits(head.len() + 5 + name.len() + 2) {
            self.open(&format!("{head} for {name} {{"));
        } else {
            self.line(head);
            self.open(&format!("for {name} {{"));
        }
    }

    /// [`Code::list`] broken where prettyplease breaks it (at its margin, not [`WIDTH`]),
    /// for the items it formatted before they were text.
    pub(crate) fn list_at_margin(&mut self, head: &str, items: &[&str], close: &str, tail: &str) {
        let len = head.len()
            + close.len()
            + tail.len()
            + items.iter().map(|i| i.len()).sum::<usize>()
            + items.len().saturating_sub(1) * 2;
        if items.is_empty() || self.fits(len) {
            self.line_with(|out| {
                out.push_str(head);
                out.push_str(&items.join(", "));
                out.push_str(close);
                out.push_str(tail);
            });
        } else {
            self.open(head);
            for item in items {
                self.line_with(|out| {
                    out.push_str(item);
                    out.push(',');
                });
            }
            self.level = self.level.saturating_sub(1);
            self.line_with(|out| {
                out.push_str(close);
                out.push_str(tail);
            });
        }
    }

    /// A function's `head(` (`pub fn builder(`), its parameters (name and type; an empty
    /// type for a receiver such as `mut self`) and `tail` (`) -> T {`), as prettyplease
    /// writes a signature: on one line when it fits, otherwise one parameter per line,
    /// each followed by a comma and broken at its type's generic arguments as
    /// [`Code::typed`] breaks a field.
    pub(crate) fn signature(&mut self, head: &str, params: &[(String, String)], tail: &str) {
        let colon = |ty: &str| if ty.is_empty() { "" } else { ": " };
        let len = head.len()
            + tail.len()
            + params
                .iter()
                .map(|(name, ty)| name.len() + colon(ty).len() + ty.len())
                .sum::<usize>()
            + params.len().saturating_sub(1) * 2;
        if params.is_empty() || self.fits(len) {
            self.line_with(|out| {
                out.push_str(head);
                for (index, (name, ty)) in params.iter().enumerate() {
                    if index > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(name);
                    out.push_str(colon(ty));
                    out.push_str(ty);
                }
                out.push_str(tail);
            });
            return;
        }
        self.line(head);
        self.level += 1;
        for (index, (name, ty)) in params.iter().enumerate() {
            // The last comma is the break's, not text that must fit.
            let counted = usize::from(index + 1 < params.len());
            self.typed_counting(&format!("{name}{}", colon(ty)), ty, ",", counted);
        }
        self.level -= 1;
        self.line(tail);
    }

    /// A method call statement `receiver.method(items)tail` on a receiver that is a name of
    /// more than four characters (`target.push_optional_query(…);`), broken as prettyplease
    /// breaks it: on one line when it fits, otherwise with `.method(…)tail` one level deeper
    /// on the next line, itself a [`Code::list_at_margin`]. Each item is an atom that fits
    /// on a line of its own.
    pub(crate) fn method_statement(
        &mut self,
        receiver: &str,
        method: &str,
        items: &[&str],
        tail: &str,
    ) {
        let len = receiver.len()
            + 1
            + method.len()
            + 2
            + tail.len()
            + items.iter().map(|i| i.len()).sum::<usize>()
            + items.len().saturating_sub(1) * 2;
        if self.fits(len) {
            self.line_with(|out| {
                out.push_str(receiver);
                out.push('.');
                out.push_str(method);
                out.push('(');
                out.push_str(&items.join(", "));
                out.push(')');
                out.push_str(tail);
            });
        } else {
            self.line(receiver);
            self.level += 1;
            self.list_at_margin(&format!(".{method}("), items, ")", tail);
            self.level -= 1;
        }
    }

    /// An array `head` + items + `close` (`const A: &[&str] = &[`, `];`): `&[]` when
    /// empty, on one line when it has one item that fits, and otherwise one item per line,
    /// as prettyplease writes them.
    pub(crate) fn array(&mut self, head: &str, items: &[&str], close: &str) {
        self.list_at_margin(head, items, close, "");
    }

    /// A match arm `pattern => expression,` on one line when it fits, otherwise with the
    /// expression in a block (as prettyplease writes arms).
    pub(crate) fn arm_expr(&mut self, pattern: &str, expression: &str) {
        if self.fits(pattern.len() + 4 + expression.len() + 1) {
            self.line_with(|out| {
                out.push_str(pattern);
                out.push_str(" => ");
                out.push_str(expression);
                out.push(',');
            });
        } else {
            self.open(&format!("{pattern} => {{"));
            self.line(expression);
            self.close("}");
        }
    }

    /// A match arm `pattern => head(a, b)close,` on one line when it fits, otherwise as a
    /// block whose one expression is a [`Code::list`].
    pub(crate) fn arm(&mut self, pattern: &str, head: &str, items: &[&str], close: &str) {
        let one_line = pattern.len()
            + 4
            + head.len()
            + close.len()
            + 1
            + items.iter().map(|i| i.len()).sum::<usize>()
            + items.len().saturating_sub(1) * 2;
        if self.indent_width() + one_line <= WIDTH {
            self.list(&format!("{pattern} => {head}"), items, close, ",");
        } else {
            self.open(&format!("{pattern} => {{"));
            self.list(head, items, close, "");
            self.close("}");
        }
    }

    /// `head(a, b, c)tail` on one line when it fits, otherwise
    ///
    /// ```text
    /// head(
    ///     a,
    ///     b,
    /// )tail
    /// ```
    ///
    /// `head` ends with the opening delimiter and `tail` starts with the closing one, so the
    /// same rule serves calls, parameter lists and arrays (`&[`, `]`).
    pub(crate) fn list(&mut self, head: &str, items: &[&str], close: &str, tail: &str) {
        let one_line = head.len()
            + close.len()
            + tail.len()
            + items.iter().map(|i| i.len()).sum::<usize>()
            + items.len().saturating_sub(1) * 2;
        if self.indent_width() + one_line <= WIDTH || items.is_empty() {
            self.indent();
            self.text.push_str(head);
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    self.text.push_str(", ");
                }
                self.text.push_str(item);
            }
            self.text.push_str(close);
            self.text.push_str(tail);
            self.text.push('\n');
        } else {
            self.open(head);
            for item in items {
                self.indent();
                self.text.push_str(item);
                self.text.push_str(",\n");
            }
            self.level -= 1;
            self.indent();
            self.text.push_str(close);
            self.text.push_str(tail);
            self.text.push('\n');
        }
    }
}

/// Whether a line of `len` characters at indentation `indent` fits by prettyplease's
/// measure.
pub(crate) fn fits_at(indent: usize, len: usize) -> bool {
    len <= MARGIN.saturating_sub(indent).max(MIN_SPACE)
}

/// A type's last generic arguments, or the elements of a tuple type, split at their
/// top-level commas: `("a::B", '<', ["C", "D<E, F>"])` for `a::B<C, D<E, F>>`,
/// `("Item = ", '(', ["A", "B"])` for `Item = (A, B)`; `None` for a type that ends in
/// neither.
fn generic_arguments(ty: &str) -> Option<(&str, char, Vec<&str>)> {
    let (open, close) = match ty.chars().last()? {
        '>' => ('<', '>'),
        ')' => ('(', ')'),
        _ => return None,
    };
    let inner = ty.strip_suffix(close)?;
    // The opening delimiter that the last one closes.
    let mut depth = 0usize;
    let mut start = None;
    for (index, c) in inner.char_indices().rev() {
        match c {
            '>' | ')' => depth += 1,
            '<' | '(' if depth > 0 => depth -= 1,
            c if c == open => {
                start = Some(index);
                break;
            }
            _ => {}
        }
    }
    let start = start?;
    let (head, rest) = (&inner[..start], &inner[start + 1..]);
    let mut args = Vec::new();
    let (mut depth, mut from) = (0usize, 0);
    for (index, c) in rest.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth = depth.checked_sub(1)?,
            ',' if depth == 0 => {
                args.push(rest[from..index].trim());
                from = index + 1;
            }
            _ => {}
        }
    }
    (depth == 0).then_some(())?;
    args.push(rest[from..].trim());
    Some((head, open, args))
}

/// Appends `value` as a Rust string literal, spelled exactly as
/// `proc_macro2::Literal::string(value).to_string()` spells it.
pub(crate) fn push_str_literal(out: &mut String, value: &str) {
    out.reserve(value.len() + 2);
    out.push('"');
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            // `\0` before an octal digit would read as an octal escape to clippy.
            '\0' if chars
                .as_str()
                .starts_with(|n: char| ('0'..='7').contains(&n)) =>
            {
                out.push_str("\\x00");
            }
            '\0' => out.push_str("\\0"),
            // Most of the text: printable ASCII, as `escape_debug` leaves it, without its
            // per-character formatting (the route and schema tables are 0.7 MB of it).
            ' '..='~' if c != '"' && c != '\\' => out.push(c),
            c => {
                let _ = write!(out, "{}", c.escape_debug());
            }
        }
    }
    out.push('"');
}

/// `value` as a Rust string literal (see [`push_str_literal`]).
pub(crate) fn str_literal(value: &str) -> String {
    let mut out = String::new();
    push_str_literal(&mut out, value);
    out
}

/// `byte` as a Rust byte literal (`b'a'`, `b'\''`, `b'\x7F'`), spelled as
/// `proc_macro2::Literal::byte_character` spells it.
pub(crate) fn byte_char_literal(byte: u8) -> String {
    match byte {
        b'\0' => "b'\\0'".to_owned(),
        b'\t' => "b'\\t'".to_owned(),
        b'\n' => "b'\\n'".to_owned(),
        b'\r' => "b'\\r'".to_owned(),
        b'\'' => "b'\\''".to_owned(),
        b'\\' => "b'\\\\'".to_owned(),
        b' '..=b'~' => format!("b'{}'", char::from(byte)),
        _ => format!("b'\\x{byte:02X}'"),
    }
}

/// A raw string literal of `text` (`r#"…"#`, with as many `#` as it needs), so that embedded
/// JSON reads as JSON and its quotes need no escapes. One pass: a 1.2 MB CRD is read once.
pub(crate) fn raw_str_literal(text: &str) -> String {
    let mut longest = 0;
    for (i, _) in text.match_indices('"') {
        let run = text[i + 1..].bytes().take_while(|b| *b == b'#').count();
        longest = longest.max(run);
    }
    let hashes = "#".repeat(longest + 1);
    format!("r{hashes}\"{text}\"{hashes}")
}

/// Appends `value` as a Rust byte string literal (`b"…"`).
pub(crate) fn byte_str_literal(value: &[u8]) -> String {
    let mut out = String::with_capacity(value.len() + 3);
    out.push_str("b\"");
    for &byte in value {
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b' '..=b'~' => out.push(char::from(byte)),
            _ => {
                let _ = write!(out, "\\x{byte:02x}");
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_literals_take_as_many_hashes_as_the_text_needs() {
        assert_eq!(raw_str_literal(r#"{"a":1}"#), r##"r#"{"a":1}"#"##);
        assert_eq!(
            raw_str_literal(r##"{"$ref":"#/a"}"##),
            r###"r##"{"$ref":"#/a"}"##"###
        );
        // A pattern holding `"#` (escaped in JSON as `\"#`) needs two.
        let json = r##"{"pattern":"\"#"}"##;
        let literal = raw_str_literal(json);
        assert!(literal.starts_with("r##\""), "{literal}");
        let parsed: syn::LitStr = syn::parse_str(&literal).expect("a string literal");
        assert_eq!(parsed.value(), json);
    }

    #[test]
    fn string_literals_are_spelled_like_proc_macro2() {
        let nasty = [
            "",
            "plain",
            "quote \" and backslash \\ and apostrophe '",
            "tab\tnewline\ncarriage\r",
            "\u{0}",
            "\u{0}7 octal-looking",
            "\u{0}8 not octal",
            "\u{0}\u{0}0",
            "unicode é ß 日本 🦀",
            "zero width \u{200b} and bidi \u{202e} and bell \u{7}",
            "\u{7f} delete, \u{85} next line, \u{2028} line separator",
            "{braces} #[attr] /* comment */ // line",
            "combining e\u{301} and lone \u{301}",
        ];
        for value in nasty {
            assert_eq!(
                str_literal(value),
                proc_macro2::Literal::string(value).to_string(),
                "{value:?}"
            );
        }
    }

    #[test]
    fn byte_literals_are_spelled_like_proc_macro2() {
        for byte in 0..=u8::MAX {
            assert_eq!(
                byte_char_literal(byte),
                proc_macro2::Literal::byte_character(byte).to_string(),
                "{byte}"
            );
        }
    }

    #[test]
    fn lists_break_one_item_per_line_past_the_width() {
        let mut code = Code::new();
        code.list("f(", &["a", "b"], ")", ";");
        let long = "x".repeat(60);
        code.list("g(", &[&long, &long], ")", "?;");
        assert_eq!(
            code.finish(),
            format!("f(a, b);\ng(\n    {long},\n    {long},\n)?;\n")
        );
    }

    /// prettyplease's spelling of `items` (the format text parts keep).
    fn prettyplease(items: &str) -> String {
        prettyplease::unparse(&syn::parse_file(items).expect("valid items"))
    }

    /// Fields, aliases and arrays come out as prettyplease prints them, at every length
    /// around the margin.
    #[test]
    fn types_and_arrays_break_as_prettyplease_breaks_them() {
        for length in 1..120 {
            let name = "x".repeat(length);
            let long = format!("::a::B{}", "c".repeat(length));
            for ty in [
                format!("crate::{name}"),
                format!("Option<crate::{name}>"),
                format!("Option<Box<crate::{name}>>"),
                format!("Option<::std::collections::BTreeMap<String, {long}>>"),
                format!("Vec<::std::collections::BTreeMap<String, Vec<{long}>>>"),
                format!("{long}<T, crate::{name}>"),
            ] {
                let mut code = Code::new();
                code.open("pub struct S {");
                code.typed("pub field: ", &ty, ",");
                code.close("}");
                code.typed(&format!("pub type A{length} = "), &ty, ";");
                let ours = code.finish();
                assert_eq!(ours, prettyplease(&ours), "{ty}");
            }
            let mut code = Code::new();
            code.open_impl("impl<'de> ::serde::Deserialize<'de>", &format!("N{name}"));
            code.open("fn f(&self) -> &str {");
            code.open("match self {");
            code.arm_expr(&format!("Self::{name}"), &format!("\"{name}\""));
            code.arm_expr(&format!("\"{name}\""), &format!("Self::{name}"));
            code.close("}");
            code.close("}");
            code.close("}");
            let ours = code.finish();
            assert_eq!(ours, prettyplease(&ours), "{name}");
            let items: Vec<String> = (0..length % 7)
                .map(|i| format!("\"{}{i}\"", "s".repeat(length / 3)))
                .collect();
            let items: Vec<&str> = items.iter().map(String::as_str).collect();
            let mut code = Code::new();
            code.open("impl T for S {");
            code.array(
                "const SUBRESOURCES: &'static [&'static str] = &[",
                &items,
                "];",
            );
            code.close("}");
            let ours = code.finish();
            assert_eq!(ours, prettyplease(&ours), "{items:?}");
        }
    }

    /// Method call statements and one-field tuple variants come out as prettyplease prints
    /// them, at every length around the margin and at several depths.
    #[test]
    fn method_statements_and_tuple_variants_break_as_prettyplease_breaks_them() {
        for length in 1..120 {
            let name = "x".repeat(length);
            let long = format!("::a::B{}", "c".repeat(length));
            for depth in [0, 3, 6] {
                let mut code = Code::new();
                for level in 0..depth {
                    code.open(&format!("mod m{level} {{"));
                }
                code.open("impl S {");
                code.open("fn f(&self, target: &mut T) {");
                // Items are atoms: each fits on a line of its own (field names are far
                // shorter than 40 characters).
                let field = "x".repeat(length.min(40));
                code.method_statement(
                    "target",
                    "push_optional_query",
                    &["\"fieldSelector\"", &format!("self.{field}.as_deref()")],
                    ";",
                );
                code.method_statement("target", "push", &[&format!("self.{field}")], ";");
                code.close("}");
                code.close("}");
                code.open("pub enum E {");
                for ty in [
                    format!("crate::{name}"),
                    format!("Vec<crate::{name}>"),
                    format!("{long}<T, crate::{name}>"),
                ] {
                    code.tuple_typed("Accepted(", &ty, "),");
                }
                code.close("}");
                for _ in 0..depth {
                    code.close("}");
                }
                let ours = code.finish();
                assert_eq!(ours, prettyplease(&ours), "{length} at depth {depth}");
            }
        }
    }

    /// Signatures come out as prettyplease prints them, at every length around the margin.
    #[test]
    fn signatures_break_as_prettyplease_breaks_them() {
        for length in 1..100 {
            let path = format!("crate::m::{}", "T".repeat(length));
            for params in [
                vec![],
                vec![("name", "impl Into<String>".to_owned())],
                vec![
                    ("name", "impl Into<String>".to_owned()),
                    ("namespace", "impl Into<String>".to_owned()),
                ],
                vec![
                    ("policy", format!("impl Into<{path}>")),
                    (
                        "items",
                        format!("impl IntoIterator<Item = impl Into<{path}>>"),
                    ),
                ],
                vec![(
                    "entries",
                    format!("impl IntoIterator<Item = (impl Into<String>, impl Into<{path}>)>"),
                )],
                vec![
                    ("mut self", String::new()),
                    (
                        "values",
                        format!("impl IntoIterator<Item = impl Into<{path}>>"),
                    ),
                ],
            ] {
                let params: Vec<(String, String)> = params
                    .into_iter()
                    .map(|(name, ty)| (name.to_owned(), ty))
                    .collect();
                let mut code = Code::new();
                code.open("impl S {");
                code.signature("pub fn builder(", &params, ") -> SBuilder {");
                code.deeper();
                code.line("SBuilder::default()");
                code.close("}");
                code.close("}");
                let ours = code.finish();
                assert_eq!(ours, prettyplease(&ours), "{params:?}");
            }
        }
    }

    /// Every text part of a real generation is valid Rust on its own (the compile tests
    /// then check it type-checks and passes clippy).
    #[test]
    fn text_parts_of_real_documents_parse() {
        let documents = [
            "crds/cert-manager-Certificate.yaml",
            "kubernetes/v3/apis__coordination.k8s.io__v1_openapi.json",
            "kubernetes/v3/apis__apps__v1_openapi.json",
        ];
        let Some(corpus) =
            kubeforge_tests::corpus("text_parts_of_real_documents_parse", &documents)
        else {
            return;
        };
        let mut checked = 0;
        for document in documents {
            let path = corpus.join(document);
            for docs in [true, false] {
                let config = crate::Config::new().input(&path).docs(docs);
                let api = config.api().expect("the corpus document models");
                let tree = crate::emit::emit(&api, &config.options, None).expect("it emits");
                checked += check_module(&tree, document);
            }
        }
        fn check_module(module: &crate::emit::Module, document: &str) -> usize {
            let mut checked = 0;
            for (stem, file) in &module.files {
                for text in &file.parts.0 {
                    if let Err(e) = syn::parse_file(text) {
                        panic!("{document}: a text part of {stem} does not parse: {e}\n{text}");
                    }
                    checked += 1;
                }
            }
            checked
                + module
                    .children
                    .values()
                    .map(|child| check_module(child, document))
                    .sum::<usize>()
        }
        assert!(checked > 0, "no text part in {documents:?}");
    }
}
