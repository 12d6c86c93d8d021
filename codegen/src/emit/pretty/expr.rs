//! The boxes and breaks prettyplease prints each expression of a constructor with.

use super::printer::Printer;
use super::tokens::lex;
use super::{Expr, INDENT};

/// The boxes and breaks prettyplease prints each expression with.
impl Printer {
    pub(super) fn expr(&mut self, expr: &Expr) {
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
}
