//! Descriptions → doc comments that rustdoc renders as the text it is: no accidental
//! doctests (indented or fenced code), intra-doc links, HTML tags or headings. Inline code
//! spans are kept as they are (nothing inside them needs escaping); bare URLs become
//! autolinks.

use proc_macro2::TokenStream;
use quote::quote;

/// `#[doc = "…"]` attributes for `text`, one per line, so prettyplease prints `///` lines.
pub(crate) fn doc_attrs(text: &str) -> TokenStream {
    raw_doc_attrs(doc_lines(text).iter().map(String::as_str))
}

/// `#[doc]` attributes for lines that are already markdown (prose the generator writes
/// itself), one per line, without escaping.
pub(crate) fn raw_doc_attrs<'a>(lines: impl IntoIterator<Item = &'a str>) -> TokenStream {
    let attrs = lines.into_iter().map(|line| {
        let line = if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        };
        quote!(#[doc = #line])
    });
    quote!(#(#attrs)*)
}

/// Joins paragraphs into one doc text with a blank line between them.
pub(crate) fn paragraphs<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The escaped lines of `text`: blank-line runs folded to one, none at either end.
pub(crate) fn doc_lines(text: &str) -> Vec<String> {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut lines: Vec<String> = Vec::new();
    for raw in normalized.split('\n') {
        let mut cleaned = String::with_capacity(raw.len());
        for c in raw.chars() {
            match c {
                '\t' => cleaned.push(' '),
                // Characters that change the visible direction of text are refused in
                // comments by rustc (they can disguise code); they are shown by name.
                '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
                    cleaned.push_str(&format!("U+{:04X}", u32::from(c)));
                }
                c if c.is_control() => {}
                c => cleaned.push(c),
            }
        }
        let line = escape_line(cleaned.trim());
        if line.is_empty() && lines.last().is_none_or(String::is_empty) {
            continue;
        }
        lines.push(line);
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// Escapes one line, which has no leading white space (so it can never be an indented
/// code block).
fn escape_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '`' {
            let run = chars[i..].iter().take_while(|&&c| c == '`').count();
            // A code span: the same run of backticks closes it on this line. Fences
            // (three or more) are never kept, since they would start a doctest.
            if run < 3
                && let Some(end) = closing_backticks(&chars, i + run, run)
            {
                out.extend(&chars[i..end + run]);
                i = end + run;
                continue;
            }
            for _ in 0..run {
                out.push_str("\\`");
            }
            i += run;
            continue;
        }
        if let Some(len) = url_at(&chars, i) {
            out.push('<');
            out.extend(&chars[i..i + len]);
            out.push('>');
            i += len;
            continue;
        }
        let at_line_start = out.is_empty();
        let entity = c == '&'
            && chars
                .get(i + 1)
                .is_some_and(|n| n.is_ascii_alphanumeric() || *n == '#');
        // Headings and `~~~` fences only start a line; `&` only matters before an entity name.
        if matches!(c, '\\' | '[' | ']' | '<' | '>')
            || entity
            || (at_line_start && matches!(c, '#' | '~'))
        {
            out.push('\\');
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Where a run of exactly `run` backticks starts at or after `from`, on this line.
fn closing_backticks(chars: &[char], from: usize, run: usize) -> Option<usize> {
    let mut j = from;
    while j < chars.len() {
        if chars[j] == '`' {
            let len = chars[j..].iter().take_while(|&&c| c == '`').count();
            if len == run {
                return Some(j);
            }
            j += len;
        } else {
            j += 1;
        }
    }
    None
}

/// The length of a bare `http(s)://` URL starting at `i`, without trailing punctuation.
fn url_at(chars: &[char], i: usize) -> Option<usize> {
    let rest: String = chars[i..chars.len().min(i + 8)].iter().collect();
    if !(rest.starts_with("https://") || rest.starts_with("http://")) {
        return None;
    }
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '<' || chars[i - 1] == '(') {
        // `(https://…)` is left to the generic path below, which keeps parentheses balanced.
        if chars[i - 1] != '(' {
            return None;
        }
    }
    let mut len = chars[i..]
        .iter()
        .take_while(|c| !c.is_whitespace() && !matches!(c, '<' | '>' | '"' | '`' | '\\'))
        .count();
    while len > 0
        && matches!(
            chars[i + len - 1],
            '.' | ',' | ';' | ':' | '!' | '?' | '\'' | ')' | ']'
        )
    {
        let end = chars[i + len - 1];
        let url: String = chars[i..i + len].iter().collect();
        // Keep a closing parenthesis that belongs to the URL (wikipedia-style links).
        if end == ')' && url.matches('(').count() >= url.matches(')').count() {
            break;
        }
        len -= 1;
    }
    let scheme_len = if rest.starts_with("https://") { 8 } else { 7 };
    (len > scheme_len).then_some(len)
}

#[cfg(test)]
mod tests {
    use super::doc_lines;

    fn one(text: &str) -> String {
        doc_lines(text).join("\n")
    }

    #[test]
    fn escapes_markdown_that_would_change_meaning() {
        assert_eq!(
            one("a [link] and <b>html</b>"),
            "a \\[link\\] and \\<b\\>html\\</b\\>"
        );
        assert_eq!(one("    indented code"), "indented code");
        assert_eq!(
            one("```\nfn main() {}\n```"),
            "\\`\\`\\`\nfn main() {}\n\\`\\`\\`"
        );
        assert_eq!(one("# not a heading"), "\\# not a heading");
        assert_eq!(one("snake_case and a & b"), "snake_case and a & b");
        assert_eq!(one("&lt; is an entity"), "\\&lt; is an entity");
        assert_eq!(one("regex ^[a-z]\\.$"), "regex ^\\[a-z\\]\\\\.$");
        assert_eq!(
            one("#[derive] */ <script>"),
            "\\#\\[derive\\] */ \\<script\\>"
        );
    }

    #[test]
    fn keeps_code_spans_and_links_urls() {
        assert_eq!(one("use `[]string` here"), "use `[]string` here");
        assert_eq!(one("unbalanced ` tick"), "unbalanced \\` tick");
        assert_eq!(
            one("More info: https://kubernetes.io/docs/x#y."),
            "More info: <https://kubernetes.io/docs/x#y>."
        );
        assert_eq!(one("(see https://a.io/b)"), "(see <https://a.io/b>)");
        assert_eq!(one("https://"), "https://");
    }

    #[test]
    fn folds_blank_lines_and_keeps_unicode() {
        assert_eq!(doc_lines("\n\na\n\n\n\nb\n\n"), vec!["a", "", "b"]);
        assert_eq!(one("租期定义租期概念。"), "租期定义租期概念。");
        assert_eq!(one("tab\there\u{7}bell"), "tab herebell");
        assert_eq!(
            one("bidi \u{202e}override\u{2066}"),
            "bidi U+202EoverrideU+2066"
        );
    }
}
