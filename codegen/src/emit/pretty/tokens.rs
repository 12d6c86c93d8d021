//! Token-level printing: a macro's arguments (`vec![…]`) and an attribute's list, as
//! prettyplease prints the tokens of what it does not parse, and the lexer that turns the
//! emitters' text into those tokens.

use super::INDENT;
use super::printer::Printer;

/// What an attribute's last token was, for the spacing of the next.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum AttrState {
    Word,
    Punct,
    TrailingComma,
}

impl Printer {
    /// `macro_rules_tokens` does for a macro it does not parse.
    pub(super) fn macro_tokens(&mut self, tokens: &[MacroToken]) {
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
    pub(super) fn attr_tokens(
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
pub(super) enum MacroToken {
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
pub(super) fn lex(source: &str) -> Vec<MacroToken> {
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
