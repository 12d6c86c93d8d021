//! Expressions broken into lines as prettyplease breaks them: the builder constructors'
//! values (a struct literal of arguments, schema defaults nested to any depth, `vec![…]`),
//! which were token streams formatted by prettyplease before they were text.
//!
//! [`Printer`] is Oppen's pretty-printing algorithm as prettyplease implements it (its
//! `algorithm.rs`, itself adapted from rustc's `pp.rs`): boxes that break all their breaks
//! (consistent) or only those that must (inconsistent), sized as they are scanned. The
//! `Expr` printers feed it the boxes and breaks prettyplease feeds it for the same
//! expressions, so the lines come out the same; a test compares the two on many shapes.

use std::collections::VecDeque;

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

/// What an attribute's last token was, for the spacing of the next.
#[derive(Clone, Copy, PartialEq)]
enum AttrState {
    Word,
    Punct,
    TrailingComma,
}

#[derive(Clone, Copy, PartialEq)]
enum Breaks {
    Consistent,
    Inconsistent,
}

#[derive(Clone, Copy, Default)]
struct Break {
    offset: isize,
    blank_space: isize,
    pre_break: Option<char>,
    if_nonempty: bool,
    never_break: bool,
}

#[derive(Clone)]
enum Token {
    String(String),
    Break(Break),
    Begin(isize, Breaks),
    End,
}

#[derive(Clone, Copy)]
enum Frame {
    Fits,
    Broken(usize, Breaks),
}

struct Entry {
    token: Token,
    size: isize,
}

/// Oppen's printer: tokens are scanned into a buffer until the size of each box and break
/// is known (or known to be too big), then printed.
struct Printer {
    out: String,
    /// Columns left on the current line.
    space: isize,
    buf: VecDeque<Entry>,
    /// The index of `buf[0]` among all tokens scanned.
    offset: usize,
    left_total: isize,
    right_total: isize,
    /// Indices of the open boxes and pending breaks whose size is not known yet.
    scan_stack: VecDeque<usize>,
    print_stack: Vec<Frame>,
    indent: usize,
    pending_indentation: usize,
}

impl Printer {
    fn new(indent: usize) -> Self {
        Printer {
            out: String::new(),
            space: space_at(indent),
            buf: VecDeque::new(),
            offset: 0,
            left_total: 0,
            right_total: 0,
            scan_stack: VecDeque::new(),
            print_stack: Vec::new(),
            indent,
            pending_indentation: indent,
        }
    }

    fn finish(mut self) -> String {
        if !self.scan_stack.is_empty() {
            self.check_stack(0);
            self.advance_left();
        }
        self.out
    }

    fn entry(&mut self, index: usize) -> &mut Entry {
        &mut self.buf[index - self.offset]
    }

    fn push(&mut self, token: Token, size: isize) -> usize {
        self.buf.push_back(Entry { token, size });
        self.offset + self.buf.len() - 1
    }

    fn begin(&mut self, offset: isize, breaks: Breaks) {
        if self.scan_stack.is_empty() {
            self.left_total = 1;
            self.right_total = 1;
            self.offset += self.buf.len();
            self.buf.clear();
        }
        let index = self.push(Token::Begin(offset, breaks), -self.right_total);
        self.scan_stack.push_back(index);
    }

    fn cbox(&mut self, offset: isize) {
        self.begin(offset, Breaks::Consistent);
    }

    fn ibox(&mut self, offset: isize) {
        self.begin(offset, Breaks::Inconsistent);
    }

    fn end(&mut self) {
        if self.scan_stack.is_empty() {
            self.print_end();
            return;
        }
        if let Some(Entry {
            token: Token::Break(last),
            ..
        }) = self.buf.back()
        {
            let last = *last;
            if self.buf.len() >= 2 && matches!(self.buf[self.buf.len() - 2].token, Token::Begin(..))
            {
                // An empty box: it and its break go.
                self.buf.pop_back();
                self.buf.pop_back();
                self.scan_stack.pop_back();
                self.scan_stack.pop_back();
                self.right_total -= last.blank_space;
                return;
            }
            if last.if_nonempty {
                self.buf.pop_back();
                self.scan_stack.pop_back();
                self.right_total -= last.blank_space;
            }
        }
        let index = self.push(Token::End, -1);
        self.scan_stack.push_back(index);
    }

    /// Ends a box, which breaks when its contents are wider than `max` columns.
    fn end_with_max_width(&mut self, max: isize) {
        let mut depth = 1;
        for position in (0..self.scan_stack.len()).rev() {
            let index = self.scan_stack[position];
            let (is_begin, size) = {
                let entry = self.entry(index);
                (matches!(entry.token, Token::Begin(..)), entry.size)
            };
            if is_begin {
                depth -= 1;
                if depth == 0 {
                    if size < 0 && size + self.right_total > max {
                        self.push(Token::String(String::new()), SIZE_INFINITY);
                        self.right_total += SIZE_INFINITY;
                    }
                    break;
                }
            } else if matches!(self.entry(index).token, Token::End) {
                depth += 1;
            }
        }
        self.end();
    }

    fn scan_break(&mut self, token: Break) {
        if self.scan_stack.is_empty() {
            self.left_total = 1;
            self.right_total = 1;
            self.offset += self.buf.len();
            self.buf.clear();
        } else {
            self.check_stack(0);
        }
        let index = self.push(Token::Break(token), -self.right_total);
        self.scan_stack.push_back(index);
        self.right_total += token.blank_space;
    }

    fn zerobreak(&mut self) {
        self.scan_break(Break::default());
    }

    fn space(&mut self) {
        self.scan_break(Break {
            blank_space: 1,
            ..Break::default()
        });
    }

    fn space_if_nonempty(&mut self) {
        self.scan_break(Break {
            blank_space: 1,
            if_nonempty: true,
            ..Break::default()
        });
    }

    /// `,` and a break after an item, or after the last one a break that writes the
    /// comma only when it breaks.
    fn trailing_comma(&mut self, is_last: bool) {
        if is_last {
            self.scan_break(Break {
                pre_break: Some(','),
                ..Break::default()
            });
        } else {
            self.word(",");
            self.space();
        }
    }

    fn trailing_comma_or_space(&mut self, is_last: bool) {
        if is_last {
            self.scan_break(Break {
                blank_space: 1,
                pre_break: Some(','),
                ..Break::default()
            });
        } else {
            self.word(",");
            self.space();
        }
    }

    /// Adds `offset` to the indentation of the break just scanned.
    fn offset(&mut self, offset: isize) {
        if let Some(Entry {
            token: Token::Break(token),
            ..
        }) = self.buf.back_mut()
        {
            token.offset += offset;
        }
    }

    fn word(&mut self, text: &str) {
        if self.scan_stack.is_empty() {
            self.print_string(text);
            return;
        }
        let len = text.len() as isize;
        self.push(Token::String(text.to_owned()), len);
        self.right_total += len;
        self.check_stream();
    }

    fn check_stream(&mut self) {
        while self.right_total - self.left_total > self.space {
            if self.scan_stack.front() == Some(&self.offset) {
                self.scan_stack.pop_front();
                if let Some(first) = self.buf.front_mut() {
                    first.size = SIZE_INFINITY;
                }
            }
            self.advance_left();
            if self.buf.is_empty() {
                break;
            }
        }
    }

    fn advance_left(&mut self) {
        while self.buf.front().is_some_and(|first| first.size >= 0) {
            let Some(left) = self.buf.pop_front() else {
                break;
            };
            self.offset += 1;
            match left.token {
                Token::String(text) => {
                    self.left_total += left.size;
                    self.print_string(&text);
                }
                Token::Break(token) => {
                    self.left_total += token.blank_space;
                    self.print_break(token, left.size);
                }
                Token::Begin(offset, breaks) => self.print_begin(offset, breaks, left.size),
                Token::End => self.print_end(),
            }
        }
    }

    fn check_stack(&mut self, mut depth: usize) {
        while let Some(&index) = self.scan_stack.back() {
            let right_total = self.right_total;
            let entry = self.entry(index);
            match entry.token {
                Token::Begin(..) => {
                    if depth == 0 {
                        break;
                    }
                    entry.size += right_total;
                    self.scan_stack.pop_back();
                    depth -= 1;
                }
                Token::End => {
                    entry.size = 1;
                    self.scan_stack.pop_back();
                    depth += 1;
                }
                Token::Break(_) => {
                    entry.size += right_total;
                    self.scan_stack.pop_back();
                    if depth == 0 {
                        break;
                    }
                }
                Token::String(_) => break,
            }
        }
    }

    fn print_begin(&mut self, offset: isize, breaks: Breaks, size: isize) {
        if size > self.space {
            self.print_stack.push(Frame::Broken(self.indent, breaks));
            self.indent = usize::try_from(self.indent as isize + offset).unwrap_or_default();
        } else {
            self.print_stack.push(Frame::Fits);
        }
    }

    fn print_end(&mut self) {
        if let Some(Frame::Broken(indent, _)) = self.print_stack.pop() {
            self.indent = indent;
        }
    }

    fn print_break(&mut self, token: Break, size: isize) {
        let fits = token.never_break
            || match self.print_stack.last() {
                Some(Frame::Fits) => true,
                Some(Frame::Broken(_, Breaks::Consistent)) => false,
                Some(Frame::Broken(_, Breaks::Inconsistent)) | None => size <= self.space,
            };
        if fits {
            self.pending_indentation += token.blank_space as usize;
            self.space -= token.blank_space;
        } else {
            if let Some(pre_break) = token.pre_break {
                self.print_indent();
                self.out.push(pre_break);
            }
            self.out.push('\n');
            let indent = self.indent as isize + token.offset;
            self.pending_indentation = usize::try_from(indent).unwrap_or_default();
            self.space = space_at(self.pending_indentation);
        }
    }

    fn print_string(&mut self, text: &str) {
        self.print_indent();
        self.out.push_str(text);
        self.space -= text.len() as isize;
    }

    fn print_indent(&mut self) {
        for _ in 0..self.pending_indentation {
            self.out.push(' ');
        }
        self.pending_indentation = 0;
    }
}

/// The columns a line indented by `indent` has.
fn space_at(indent: usize) -> isize {
    (MARGIN - indent as isize).max(MIN_SPACE)
}

/// The boxes and breaks prettyplease prints each expression with.
impl Printer {
    fn expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Word(text) => self.word(text),
            Expr::Call(func, args) => {
                self.word(func);
                self.word("(");
                self.call_args(args);
                self.word(")");
            }
            Expr::Method(..) => {
                self.cbox(INDENT);
                self.method_chain(expr);
                self.end();
            }
            Expr::Struct(path, fields, rest) => {
                self.cbox(INDENT);
                self.ibox(-INDENT);
                self.word(path);
                self.end();
                self.word(" {");
                self.space_if_nonempty();
                for (index, (name, value)) in fields.iter().enumerate() {
                    self.word(name);
                    self.word(": ");
                    self.ibox(0);
                    self.expr(value);
                    self.end();
                    self.trailing_comma_or_space(index + 1 == fields.len() && rest.is_none());
                }
                if let Some(rest) = rest {
                    self.word("..");
                    self.expr(rest);
                    self.space();
                }
                self.offset(-INDENT);
                self.end_with_max_width(34);
                self.word("}");
            }
            Expr::Tuple(items) => {
                self.word("(");
                self.cbox(INDENT);
                self.zerobreak();
                for (index, item) in items.iter().enumerate() {
                    self.expr(item);
                    if items.len() == 1 {
                        self.word(",");
                        self.zerobreak();
                    } else {
                        self.trailing_comma(index + 1 == items.len());
                    }
                }
                self.offset(-INDENT);
                self.end();
                self.word(")");
            }
            Expr::Array(items) if items.is_empty() => self.word("[]"),
            Expr::Array(items) => {
                self.word("[");
                self.cbox(INDENT);
                self.zerobreak();
                for (index, item) in items.iter().enumerate() {
                    self.expr(item);
                    self.trailing_comma(index + 1 == items.len());
                }
                self.offset(-INDENT);
                self.end();
                self.word("]");
            }
            Expr::Vec(items) => {
                self.word("vec!");
                self.word("[");
                if !items.is_empty() {
                    let source = items
                        .iter()
                        .map(Expr::one_line)
                        .collect::<Vec<_>>()
                        .join(", ");
                    self.cbox(INDENT);
                    self.zerobreak();
                    self.ibox(0);
                    self.macro_tokens(&lex(&source));
                    self.end();
                    self.zerobreak();
                    self.offset(-INDENT);
                    self.end();
                }
                self.word("]");
            }
        }
    }

    /// A method call's receiver and the call, inside the chain's box (prettyplease's
    /// `prefix_subexpr_method_call`; never at the beginning of a line here).
    fn method_chain(&mut self, expr: &Expr) {
        let Expr::Method(receiver, method, args) = expr else {
            return;
        };
        match receiver.as_ref() {
            Expr::Method(..) => self.method_chain(receiver),
            Expr::Call(func, call_args) => {
                self.cbox(-INDENT);
                self.word(func);
                self.end();
                self.word("(");
                self.call_args(call_args);
                self.word(")");
            }
            other => {
                self.cbox(-INDENT);
                self.expr(other);
                self.end();
            }
        }
        self.zerobreak();
        self.word(".");
        self.word(method);
        self.cbox(0);
        self.word("(");
        self.call_args(args);
        self.word(")");
        self.end();
    }

    fn call_args(&mut self, args: &[Expr]) {
        if let [only] = args
            && only.is_blocklike()
        {
            self.expr(only);
            return;
        }
        self.cbox(INDENT);
        self.zerobreak();
        for (index, arg) in args.iter().enumerate() {
            self.expr(arg);
            self.trailing_comma(index + 1 == args.len());
        }
        self.offset(-INDENT);
        self.end();
    }

    /// The tokens of a macro call's arguments, spaced and broken as prettyplease's
    /// `macro_rules_tokens` does for a macro it does not parse.
    fn macro_tokens(&mut self, tokens: &[MacroToken]) {
        #[derive(PartialEq, Clone, Copy)]
        enum State {
            Start,
            Dot,
            Colon,
            Colon2,
            Ident,
            IdentBang,
            Delim,
            Other,
        }
        let mut state = State::Start;
        let mut previous_is_joint = true;
        for token in tokens {
            let (needs_space, next) = match (state, token) {
                (State::Ident, MacroToken::Group('(' | '[', _)) => (false, State::Delim),
                (State::Ident, MacroToken::Punct('!', false)) => (false, State::IdentBang),
                (State::IdentBang, MacroToken::Group('(' | '[', _)) => (false, State::Other),
                (State::Colon, MacroToken::Punct(':', _)) => (false, State::Colon2),
                (_, MacroToken::Group('(' | '[', _)) => (true, State::Delim),
                (_, MacroToken::Group(..)) => (true, State::Other),
                (_, MacroToken::Ident(ident)) if !is_keyword(ident) => {
                    (state != State::Dot && state != State::Colon2, State::Ident)
                }
                (_, MacroToken::Literal(literal)) if literal.ends_with('.') => {
                    (state != State::Dot, State::Other)
                }
                (_, MacroToken::Literal(_)) => (state != State::Dot, State::Ident),
                (_, MacroToken::Punct(',' | ';', _)) => (false, State::Other),
                (_, MacroToken::Punct('.', _)) => {
                    (state != State::Ident && state != State::Delim, State::Dot)
                }
                (_, MacroToken::Punct(':', true)) => (state != State::Ident, State::Colon),
                (_, _) => (true, State::Other),
            };
            if !previous_is_joint {
                if needs_space {
                    self.space();
                } else if matches!(token, MacroToken::Punct('.', _)) {
                    self.zerobreak();
                }
            }
            previous_is_joint = matches!(token, MacroToken::Punct(_, true));
            match token {
                MacroToken::Ident(text) | MacroToken::Literal(text) => self.word(text),
                MacroToken::Punct(c, _) => self.word(&c.to_string()),
                MacroToken::Group(open, inner) => {
                    let close = match open {
                        '(' => ")",
                        '[' => "]",
                        _ => "}",
                    };
                    self.word(&open.to_string());
                    if !inner.is_empty() {
                        let brace = *open == '{';
                        if brace {
                            self.space();
                        }
                        self.macro_tokens(inner);
                        if brace {
                            self.space();
                        }
                    }
                    self.word(close);
                }
            }
            state = next;
        }
    }
}

/// The tokens of an attribute's list, as prettyplease's `attr_tokens` prints them.
impl Printer {
    /// `tokens`, the contents of a group opened by `delimiter` (`None` for the list
    /// itself); `breaking` is whether a space between items may break, which it may from
    /// the first group on.
    fn attr_tokens(
        &mut self,
        tokens: &[MacroToken],
        delimiter: Option<char>,
        state: &mut AttrState,
        breaking: &mut bool,
    ) {
        let space = |p: &mut Printer, breaking: bool| {
            if breaking {
                p.space();
            } else {
                p.word(" ");
            }
        };
        for (index, token) in tokens.iter().enumerate() {
            match token {
                MacroToken::Ident(text) | MacroToken::Literal(text) => {
                    if *state == AttrState::Word {
                        space(self, *breaking);
                    }
                    self.word(text);
                    *state = AttrState::Word;
                }
                MacroToken::Punct(c, _) => {
                    if *state == AttrState::Word && *c == '=' {
                        self.word(" ");
                    }
                    if *c == ',' && index + 1 == tokens.len() {
                        self.trailing_comma(true);
                        *state = AttrState::TrailingComma;
                    } else {
                        self.word(&c.to_string());
                        if *c == '=' {
                            self.word(" ");
                        } else if *c == ',' {
                            space(self, *breaking);
                        }
                        *state = AttrState::Punct;
                    }
                }
                MacroToken::Group(open, inner) => {
                    self.word(&open.to_string());
                    if *open == '(' {
                        self.cbox(INDENT);
                        self.zerobreak();
                    }
                    *state = AttrState::Punct;
                    *breaking = true;
                    self.attr_tokens(inner, Some(*open), state, breaking);
                }
            }
        }
        match delimiter {
            Some('(') => {
                if *state != AttrState::TrailingComma {
                    self.zerobreak();
                }
                self.offset(-INDENT);
                self.end();
                self.word(")");
            }
            Some('[') => self.word("]"),
            Some(_) => self.word("}"),
            None => return,
        }
        *state = AttrState::Punct;
    }
}

/// A token of a macro's arguments.
#[derive(Debug, PartialEq)]
enum MacroToken {
    Ident(String),
    Literal(String),
    /// A punctuation character, and whether it is joined to the next one (`:` of `::`).
    Punct(char, bool),
    Group(char, Vec<MacroToken>),
}

/// Keywords, which a macro's tokens space as other punctuation (prettyplease's list).
fn is_keyword(ident: &str) -> bool {
    matches!(
        ident,
        "as" | "async"
            | "await"
            | "box"
            | "break"
            | "const"
            | "continue"
            | "crate"
            | "dyn"
            | "else"
            | "enum"
            | "extern"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "macro"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "return"
            | "static"
            | "struct"
            | "trait"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "yield"
    )
}

/// The tokens of `source`, an expression list the emitters spelled: identifiers, numeric,
/// string and byte string literals, punctuation and bracketed groups.
fn lex(source: &str) -> Vec<MacroToken> {
    let chars: Vec<char> = source.chars().collect();
    let mut position = 0;
    lex_until(&chars, &mut position, None)
}

fn lex_until(chars: &[char], position: &mut usize, close: Option<char>) -> Vec<MacroToken> {
    let mut tokens = Vec::new();
    while let Some(&c) = chars.get(*position) {
        if Some(c) == close {
            *position += 1;
            return tokens;
        }
        let start = *position;
        *position += 1;
        match c {
            ' ' | '\n' => {}
            '(' | '[' | '{' => {
                let closing = match c {
                    '(' => ')',
                    '[' => ']',
                    _ => '}',
                };
                let inner = lex_until(chars, position, Some(closing));
                tokens.push(MacroToken::Group(c, inner));
            }
            '"' => {
                skip_string(chars, position);
                tokens.push(MacroToken::Literal(
                    chars[start..*position].iter().collect(),
                ));
            }
            'b' if chars.get(*position) == Some(&'"') => {
                *position += 1;
                skip_string(chars, position);
                tokens.push(MacroToken::Literal(
                    chars[start..*position].iter().collect(),
                ));
            }
            c if c.is_ascii_digit() => {
                while let Some(&next) = chars.get(*position) {
                    let part = match next {
                        // A `.` belongs to the number only when a digit follows it.
                        '.' => chars.get(*position + 1).is_some_and(char::is_ascii_digit),
                        // The sign of an exponent (`1e-7`).
                        '-' | '+' => matches!(chars[*position - 1], 'e' | 'E'),
                        c => c.is_ascii_alphanumeric() || c == '_',
                    };
                    if !part {
                        break;
                    }
                    *position += 1;
                }
                tokens.push(MacroToken::Literal(
                    chars[start..*position].iter().collect(),
                ));
            }
            c if c.is_alphabetic() || c == '_' => {
                while chars
                    .get(*position)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_')
                {
                    *position += 1;
                }
                tokens.push(MacroToken::Ident(chars[start..*position].iter().collect()));
            }
            c => {
                let joint = chars.get(*position).is_some_and(|next| is_punct(*next));
                tokens.push(MacroToken::Punct(c, joint));
            }
        }
    }
    tokens
}

/// Skips the rest of a string literal whose opening quote was read.
fn skip_string(chars: &[char], position: &mut usize) {
    while let Some(&c) = chars.get(*position) {
        *position += 1;
        match c {
            '\\' => *position += 1,
            '"' => return,
            _ => {}
        }
    }
}

/// Punctuation characters that join with the one before them into one operator.
fn is_punct(c: char) -> bool {
    matches!(
        c,
        '!' | '#'
            | '$'
            | '%'
            | '&'
            | '*'
            | '+'
            | ','
            | '-'
            | '.'
            | '/'
            | ':'
            | ';'
            | '<'
            | '='
            | '>'
            | '?'
            | '@'
            | '^'
            | '|'
            | '~'
            | '\''
    )
}

#[cfg(test)]
mod tests {
    use super::{Expr, MacroToken, lex, tail_expression};

    use crate::emit::text::Code;

    fn word(text: &str) -> Expr {
        Expr::word(text)
    }

    fn into(name: &str) -> Expr {
        Expr::method(word(name), "into", vec![])
    }

    fn owned(text: &str) -> Expr {
        Expr::method(word(&format!("{text:?}")), "to_owned", vec![])
    }

    fn collected(entries: Vec<Expr>) -> Expr {
        let entries = Expr::method(Expr::Array(entries), "into_iter", vec![]);
        Expr::method(entries, "collect", vec![])
    }

    fn json(variant: &str, arg: Expr) -> Expr {
        Expr::call(format!("::serde_json::Value::{variant}"), vec![arg])
    }

    /// The shapes of the builder constructors' values, with names of `length` characters.
    fn shapes(length: usize) -> Vec<Expr> {
        let name = "n".repeat(length);
        let path = format!("crate::m::{}", "T".repeat(length));
        let list = |map: &str| {
            let items = Expr::method(word(&name), "into_iter", vec![]);
            let items = Expr::method(items, "map", vec![word(map)]);
            Expr::method(items, "collect", vec![])
        };
        let builder = Expr::method(
            Expr::method(
                Expr::method(
                    Expr::call(format!("{path}::builder"), vec![]),
                    "name",
                    vec![word("name")],
                ),
                "namespace",
                vec![word(&name)],
            ),
            "build",
            vec![],
        );
        let nested = json(
            "Object",
            collected(vec![
                Expr::Tuple(vec![
                    owned("rules"),
                    json(
                        "Array",
                        Expr::Vec(vec![json(
                            "Object",
                            collected(vec![Expr::Tuple(vec![
                                owned(&name),
                                json("Bool", word("true")),
                            ])]),
                        )]),
                    ),
                ]),
                Expr::Tuple(vec![owned("weight"), json("from", word("-1.5e-7_f64"))]),
            ]),
        );
        vec![
            Expr::call("Self::default", vec![]),
            Expr::Struct(
                "Self".to_owned(),
                vec![
                    (name.clone(), into(&name)),
                    ("list".to_owned(), list("Into::into")),
                    (
                        "map".to_owned(),
                        Expr::call(
                            "Some",
                            vec![list("|(key, value)| (key.into(), value.into())")],
                        ),
                    ),
                    ("metadata".to_owned(), builder),
                    ("plain".to_owned(), word("None")),
                ],
                Some(Box::new(Expr::call("Self::default", vec![]))),
            ),
            Expr::Struct(
                path.clone(),
                vec![
                    ("name".to_owned(), Expr::call("Some", vec![into("name")])),
                    ("policy".to_owned(), Expr::call("Some", vec![nested])),
                    (
                        "args".to_owned(),
                        Expr::call(
                            "Some",
                            vec![Expr::Vec(vec![owned("--verbose"), owned(&name)])],
                        ),
                    ),
                    (
                        "ports".to_owned(),
                        Expr::call(
                            "Some",
                            vec![collected(vec![
                                Expr::Tuple(vec![owned("http"), word("80")]),
                                Expr::Tuple(vec![owned(&name), word("-443")]),
                            ])],
                        ),
                    ),
                    (
                        "key".to_owned(),
                        Expr::call(
                            "::kubeforge_runtime::ByteString",
                            vec![Expr::method(word("b\"h\\x00\""), "to_vec", vec![])],
                        ),
                    ),
                    (
                        "mode".to_owned(),
                        Expr::Vec(vec![word(&format!("{path}::Slow")), word("crate::A")]),
                    ),
                    ("one".to_owned(), Expr::Tuple(vec![word(&name)])),
                    ("empty".to_owned(), Expr::Struct(path.clone(), vec![], None)),
                    (
                        "small".to_owned(),
                        Expr::Struct("A".to_owned(), vec![("a".to_owned(), word("1"))], None),
                    ),
                ],
                Some(Box::new(Expr::call(
                    "::core::default::Default::default",
                    vec![],
                ))),
            ),
        ]
    }

    /// Every shape comes out as prettyplease prints it, at lengths around the margin and
    /// at several depths: the printer and the boxes it is fed are prettyplease's.
    #[test]
    fn expressions_break_as_prettyplease_breaks_them() {
        for length in (1..90).step_by(3) {
            for depth in [0, 2, 5] {
                let mut code = Code::new();
                for level in 0..depth {
                    code.open(&format!("mod m{level} {{"));
                }
                code.open("impl S {");
                for (index, shape) in shapes(length).iter().enumerate() {
                    code.open(&format!("fn f{index}() -> T {{"));
                    let body = Expr::Struct(
                        "TBuilder".to_owned(),
                        vec![("inner".to_owned(), shape.clone())],
                        None,
                    );
                    code.raw(&tail_expression(&body, code.indent_width()));
                    code.close("}");
                    code.open(&format!("fn g{index}(mut self) -> Self {{"));
                    let left = format!("self.0.{}", "f".repeat(length));
                    code.raw(&super::assignment(&left, shape, code.indent_width()));
                    code.line("self");
                    code.close("}");
                }
                code.close("}");
                for _ in 0..depth {
                    code.close("}");
                }
                let ours = code.finish();
                let theirs = prettyplease::unparse(&syn::parse_file(&ours).expect("valid items"));
                assert_eq!(ours, theirs, "length {length} at depth {depth}");
            }
        }
    }

    /// The attributes the generator writes come out as prettyplease prints them, at every
    /// length around the margin and at several depths.
    #[test]
    fn attributes_break_as_prettyplease_breaks_them() {
        for length in 1..80 {
            let name = "D".repeat(length);
            for text in [
                format!("#[derive(Clone, Debug, PartialEq, ::my::{name})]"),
                format!("#[derive(crate::{name},)]"),
                format!(
                    "#[serde(rename = \"{name}\", default, skip_serializing_if = \"Option::is_none\")]"
                ),
                format!("#[serde(with = \"{name}\", bound(deserialize = \"T: A\"))]"),
                format!(
                    "#[allow(clippy::{name}, reason = \"every required field is an argument\")]"
                ),
            ] {
                for depth in [0, 3, 7] {
                    let mut code = Code::new();
                    for level in 0..depth {
                        code.open(&format!("mod m{level} {{"));
                    }
                    let spelled = super::attribute(&text, code.indent_width()).expect("spelled");
                    code.raw(&spelled);
                    code.open("pub struct S {");
                    let spelled = super::attribute(&text, code.indent_width()).expect("spelled");
                    code.raw(&spelled);
                    code.line("pub f: (),");
                    code.close("}");
                    for _ in 0..depth {
                        code.close("}");
                    }
                    let ours = code.finish();
                    let theirs =
                        prettyplease::unparse(&syn::parse_file(&ours).expect("valid items"));
                    assert_eq!(ours, theirs, "{text} at depth {depth}");
                }
            }
        }
        assert!(super::attribute("#[doc = \"x\"]", 0).is_none());
    }

    #[test]
    fn macro_arguments_lex_as_rust_tokens() {
        assert_eq!(
            lex("::a::B(-1e-7_f64), b\"\\\"\".x"),
            vec![
                MacroToken::Punct(':', true),
                MacroToken::Punct(':', false),
                MacroToken::Ident("a".into()),
                MacroToken::Punct(':', true),
                MacroToken::Punct(':', false),
                MacroToken::Ident("B".into()),
                MacroToken::Group(
                    '(',
                    vec![
                        MacroToken::Punct('-', false),
                        MacroToken::Literal("1e-7_f64".into()),
                    ]
                ),
                MacroToken::Punct(',', false),
                MacroToken::Literal("b\"\\\"\"".into()),
                MacroToken::Punct('.', false),
                MacroToken::Ident("x".into()),
            ]
        );
    }
}
