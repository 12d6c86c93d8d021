//! Expressions broken into lines as prettyplease breaks them: the builder constructors'
//! values (a struct literal of arguments, schema defaults nested to any depth, `vec![…]`),
//! which were token streams formatted by prettyplease before they were text.
//!
//! [`Printer`] is Oppen's pretty-printing algorithm as prettyplease implements it (its
//! `algorithm.rs`, itself adapted from rustc's `pp.rs`): boxes that break all their breaks
//! (consistent) or only those that must (inconsistent), sized as they are scanned. The
//! `Expr` printers feed it the boxes and breaks prettyplease feeds it for the same
//! expressions, so the lines come out the same; a test compares the two on many shapes.

mod expr;
mod printer;
mod tokens;

use printer::{Break, Printer};
use tokens::{AttrState, MacroToken, lex};

/// prettyplease's margin, least room per line and indentation step.
const MARGIN: isize = 89;
const MIN_SPACE: isize = 60;
const INDENT: isize = 4;
const SIZE_INFINITY: isize = 0xffff;

/// An expression of a builder constructor.
#[derive(Clone, Debug)]
pub(crate) enum Expr {
    /// Text without a place to break: a path, a literal, or a closure short enough never
    /// to be broken (`|(key, value)| (key.into(), value.into())`).
    Word(String),
    /// `func(args)`, `func` a path.
    Call(String, Vec<Expr>),
    /// `receiver.method(args)`.
    Method(Box<Expr>, String, Vec<Expr>),
    /// `path { name: value, …, ..rest }`.
    Struct(String, Vec<(String, Expr)>, Option<Box<Expr>>),
    /// `(a, b)`.
    Tuple(Vec<Expr>),
    /// `[a, b]` of elements that are not all integer or `bool` literals.
    Array(Vec<Expr>),
    /// `vec![a, b]`, printed as the tokens of a macro call are.
    Vec(Vec<Expr>),
}

impl Expr {
    pub(crate) fn word(text: impl Into<String>) -> Expr {
        Expr::Word(text.into())
    }

    pub(crate) fn call(func: impl Into<String>, args: Vec<Expr>) -> Expr {
        Expr::Call(func.into(), args)
    }

    pub(crate) fn method(receiver: Expr, method: &str, args: Vec<Expr>) -> Expr {
        Expr::Method(Box::new(receiver), method.to_owned(), args)
    }

    /// The expression on one line, as Rust source.
    pub(crate) fn one_line(&self) -> String {
        let list = |items: &[Expr]| {
            items
                .iter()
                .map(Expr::one_line)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Expr::Word(text) => text.clone(),
            Expr::Call(func, args) => format!("{func}({})", list(args)),
            Expr::Method(receiver, method, args) => {
                format!("{}.{method}({})", receiver.one_line(), list(args))
            }
            Expr::Struct(path, fields, rest) => {
                let mut members: Vec<String> = fields
                    .iter()
                    .map(|(name, value)| format!("{name}: {}", value.one_line()))
                    .collect();
                members.extend(rest.iter().map(|rest| format!("..{}", rest.one_line())));
                if members.is_empty() {
                    format!("{path} {{}}")
                } else {
                    format!("{path} {{ {} }}", members.join(", "))
                }
            }
            Expr::Tuple(items) if items.len() == 1 => format!("({},)", items[0].one_line()),
            Expr::Tuple(items) => format!("({})", list(items)),
            Expr::Array(items) => format!("[{}]", list(items)),
            Expr::Vec(items) => format!("vec![{}]", list(items)),
        }
    }

    /// Whether a call with this one argument puts it right after the `(` (prettyplease's
    /// `is_blocklike`).
    fn is_blocklike(&self) -> bool {
        match self {
            Expr::Struct(..) | Expr::Tuple(_) | Expr::Array(_) => true,
            Expr::Word(text) => text.starts_with('|'),
            _ => false,
        }
    }
}

/// The lines of `expr` as the tail expression of a block at indentation `indent` (in
/// columns), each indented and ending with a newline.
pub(crate) fn tail_expression(expr: &Expr, indent: usize) -> String {
    let mut p = Printer::new(indent);
    p.ibox(0);
    p.expr(expr);
    p.end();
    p.scan_break(Break {
        blank_space: SIZE_INFINITY,
        ..Break::default()
    });
    p.finish()
}

/// The lines of the statement `left = right;` at indentation `indent` (in columns),
/// `left` a field of a name (`self.0.limit`).
pub(crate) fn assignment(left: &str, right: &Expr, indent: usize) -> String {
    let mut p = Printer::new(indent);
    p.ibox(0);
    p.ibox(0);
    // A field access breaks before each `.` (prettyplease's `expr_field`).
    let mut members = left.split('.');
    p.cbox(INDENT);
    p.cbox(-INDENT);
    p.word(members.next().unwrap_or_default());
    p.end();
    for member in members {
        p.zerobreak();
        p.word(".");
        p.word(member);
    }
    p.end();
    p.word(" = ");
    p.scan_break(Break {
        never_break: true,
        ..Break::default()
    });
    p.expr(right);
    p.end();
    p.word(";");
    p.end();
    p.scan_break(Break {
        blank_space: SIZE_INFINITY,
        ..Break::default()
    });
    p.finish()
}

/// The lines of one outer attribute the generator spells (`#[derive(…)]`,
/// `#[serde(…)]`) on an item or field at indentation `indent`, broken as prettyplease
/// breaks it: on one line when it fits, otherwise one list item per line. `None` for text
/// that is not one `#[path(…)]` attribute.
pub(crate) fn attribute(text: &str, indent: usize) -> Option<String> {
    let tokens = lex(text);
    let [MacroToken::Punct('#', false), MacroToken::Group('[', inner)] = tokens.as_slice() else {
        return None;
    };
    let (list, path) = inner.split_last()?;
    if !matches!(list, MacroToken::Group('(', _))
        || !path
            .iter()
            .all(|t| matches!(t, MacroToken::Ident(_) | MacroToken::Punct(':', _)))
    {
        return None;
    }
    let mut p = Printer::new(indent);
    p.word("#");
    p.word("[");
    for token in path {
        match token {
            MacroToken::Ident(text) => p.word(text),
            _ => p.word(":"),
        }
    }
    let mut state = AttrState::Word;
    let mut breaking = false;
    p.attr_tokens(std::slice::from_ref(list), None, &mut state, &mut breaking);
    p.word("]");
    p.scan_break(Break {
        blank_space: SIZE_INFINITY,
        ..Break::default()
    });
    Some(p.finish())
}
#[cfg(test)]
mod tests;
