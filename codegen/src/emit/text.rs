//! Formatted text for the regular, bulky items (serde impls, builders): written straight
//! into a `String` in its final shape instead of token streams that `write` would parse
//! and print again, which was most of the generator's time.
//!
//! The rules are few and deterministic: four spaces per level; a call, parameter list or
//! array is written on one line when that line fits in [`WIDTH`] columns, and otherwise with
//! one element per line, each followed by a comma; a blank line between items. Names are
//! written as the model made them: `emit` checks every one is a valid, non-keyword
//! identifier before anything is emitted (`check_identifiers`), the same check the token
//! emitters rely on for `ident`. String literals are spelled by [`push_str_literal`],
//! exactly as `proc_macro2::Literal::string` spells them.

use std::fmt::Write as _;

/// The column a line should not pass (prettyplease's margin, so text and token parts
/// wrap alike).
pub(crate) const WIDTH: usize = 100;

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
            '\'' => out.push('\''),
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

/// The spelling of a path given as tokens (`::kubeforge_runtime`, `crate::k8s`,
/// `a::B<c::D, E>`): the token stream's own spelling without the spaces it puts around
/// `::`, `<`, `>` and before `,`.
pub(crate) fn path_text(tokens: &proc_macro2::TokenStream) -> String {
    let spaced = tokens.to_string();
    let mut out = String::with_capacity(spaced.len());
    let mut chars = spaced.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ' ' {
            let prev = out.chars().last();
            let next = chars.peek().copied();
            let glued =
                matches!(prev, Some(':' | '<')) || matches!(next, Some(':' | '<' | '>' | ','));
            if glued {
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn paths_are_spelled_without_token_spaces() {
        for path in [
            "::kubeforge_runtime",
            "crate::k8s",
            "a::B<c::D, E>",
            "crate",
        ] {
            let tokens: proc_macro2::TokenStream = path.parse().expect("a path");
            assert_eq!(path_text(&tokens), path);
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

    /// Every text part of a real generation is valid Rust on its own (the compile tests
    /// then check it type-checks and passes clippy).
    #[test]
    fn text_parts_of_real_documents_parse() {
        use std::io::Write as _;
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
        let documents = [
            "crds/cert-manager-Certificate.yaml",
            "kubernetes/v3/apis__coordination.k8s.io__v1_openapi.json",
            "kubernetes/v3/apis__apps__v1_openapi.json",
        ];
        let mut checked = 0;
        for document in documents {
            let path = corpus.join(document);
            if !path.exists() {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "corpus file {} is missing",
                    path.display()
                );
                let _ = std::io::stderr()
                    .write_all(format!("SKIPPED: {} is missing\n", path.display()).as_bytes());
                continue;
            }
            for docs in [true, false] {
                let config = crate::Config::new().input(&path).docs(docs);
                let api = config.model().expect("the corpus document models");
                let tree = crate::emit::emit(&api, &config.options).expect("it emits");
                checked += check_module(&tree, document);
            }
        }
        fn check_module(module: &crate::emit::Module, document: &str) -> usize {
            let mut checked = 0;
            for (stem, file) in &module.files {
                for part in &file.parts.0 {
                    if let crate::emit::Part::Text(text) = part {
                        if let Err(e) = syn::parse_file(text) {
                            panic!("{document}: a text part of {stem} does not parse: {e}\n{text}");
                        }
                        checked += 1;
                    }
                }
            }
            checked
                + module
                    .children
                    .values()
                    .map(|child| check_module(child, document))
                    .sum::<usize>()
        }
        assert!(checked > 0 || std::env::var_os("CI").is_none());
    }
}
