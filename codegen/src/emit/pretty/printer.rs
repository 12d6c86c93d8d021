//! Oppen's pretty-printing algorithm as prettyplease implements it (its `algorithm.rs`,
//! itself adapted from rustc's `pp.rs`): boxes that break all their breaks (consistent)
//! or only those that must (inconsistent), sized as they are scanned.

use std::collections::VecDeque;

use super::{MARGIN, MIN_SPACE, SIZE_INFINITY};

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Breaks {
    Consistent,
    Inconsistent,
}

#[derive(Clone, Copy, Default)]
pub(super) struct Break {
    pub(super) offset: isize,
    pub(super) blank_space: isize,
    pub(super) pre_break: Option<char>,
    pub(super) if_nonempty: bool,
    pub(super) never_break: bool,
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
pub(super) struct Printer {
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
    pub(super) fn new(indent: usize) -> Self {
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

    pub(super) fn finish(mut self) -> String {
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

    pub(super) fn cbox(&mut self, offset: isize) {
        self.begin(offset, Breaks::Consistent);
    }

    pub(super) fn ibox(&mut self, offset: isize) {
        self.begin(offset, Breaks::Inconsistent);
    }

    pub(super) fn end(&mut self) {
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
    pub(super) fn end_with_max_width(&mut self, max: isize) {
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

    pub(super) fn scan_break(&mut self, token: Break) {
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

    pub(super) fn zerobreak(&mut self) {
        self.scan_break(Break::default());
    }

    pub(super) fn space(&mut self) {
        self.scan_break(Break {
            blank_space: 1,
            ..Break::default()
        });
    }

    pub(super) fn space_if_nonempty(&mut self) {
        self.scan_break(Break {
            blank_space: 1,
            if_nonempty: true,
            ..Break::default()
        });
    }

    /// `,` and a break after an item, or after the last one a break that writes the
    /// comma only when it breaks.
    pub(super) fn trailing_comma(&mut self, is_last: bool) {
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

    pub(super) fn trailing_comma_or_space(&mut self, is_last: bool) {
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
    pub(super) fn offset(&mut self, offset: isize) {
        if let Some(Entry {
            token: Token::Break(token),
            ..
        }) = self.buf.back_mut()
        {
            token.offset += offset;
        }
    }

    pub(super) fn word(&mut self, text: &str) {
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
