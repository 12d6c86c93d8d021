//! Regular expressions as the API server runs them: Go's RE2 syntax (the `regexp`
//! package) for `pattern` and for CEL's `matches`, `find` and `findAll`, compiled once per
//! process and kept by their text.
//!
//! The `regex` crate speaks nearly the same language as RE2; the differences that change
//! a match are translated: Go's `\d`, `\w`, `\s` and `\b` are ASCII-only where the crate's
//! are Unicode-aware. Like Go (and unlike ECMA-262, which OpenAPI names), neither supports
//! look-around or backreferences: such a pattern is an error, as it is in the API server.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use regex::Regex;

type Cache = Mutex<HashMap<String, Result<Arc<Regex>, String>>>;

/// The compiled expression for `pattern` (cached by text), or the compile error.
///
/// # Errors
/// The reason the pattern does not compile.
pub fn compile(pattern: &str) -> Result<Arc<Regex>, String> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    if let Ok(map) = cache.lock()
        && let Some(found) = map.get(pattern)
    {
        return found.clone();
    }
    let compiled = Regex::new(&translate(pattern))
        .map(Arc::new)
        .map_err(|e| e.to_string());
    if let Ok(mut map) = cache.lock() {
        map.insert(pattern.to_owned(), compiled.clone());
    }
    compiled
}

/// Rewrites the Perl classes to their ASCII meaning in Go.
fn translate(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let class = match (next, in_class) {
                    ('d', false) => Some("[0-9]"),
                    ('D', false) => Some("[^0-9]"),
                    ('w', false) => Some("[0-9A-Za-z_]"),
                    ('W', false) => Some("[^0-9A-Za-z_]"),
                    ('s', false) => Some(r"[\t\n\f\r ]"),
                    ('S', false) => Some(r"[^\t\n\f\r ]"),
                    ('b', false) => Some(r"(?-u:\b)"),
                    ('B', false) => Some(r"(?-u:\B)"),
                    ('d', true) => Some("0-9"),
                    ('w', true) => Some("0-9A-Za-z_"),
                    ('s', true) => Some(r"\t\n\f\r "),
                    _ => None,
                };
                match class {
                    Some(text) => out.push_str(text),
                    None => {
                        out.push('\\');
                        out.push(next);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                // `[]…]` and `[^]…]`: a leading `]` is a literal.
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    out.push_str(r"\]");
                    chars.next();
                }
            }
            '[' if in_class => {
                // `[:alpha:]` stays as it is; a lone `[` is a literal in Go.
                if chars.peek() == Some(&':') {
                    out.push('[');
                } else {
                    out.push_str(r"\[");
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_are_ascii_as_in_go() {
        let re = compile(r"^\d+$").unwrap();
        assert!(re.is_match("123"));
        assert!(!re.is_match("١٢٣"), "Arabic-Indic digits are not \\d in Go");
        assert!(compile(r"^[\w.-]+$").unwrap().is_match("a_b.c-d"));
        assert!(!compile(r"^\w+$").unwrap().is_match("é"));
        assert!(compile(r"(?=x)").is_err(), "look-ahead is not RE2");
        assert!(
            compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
                .unwrap()
                .is_match("a-b")
        );
        assert!(compile(r"^\.[/]$").unwrap().is_match("./"));
    }

    #[test]
    fn compiled_once_per_text() {
        let a = compile("^cache-me$").unwrap();
        let b = compile("^cache-me$").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
    }
}
