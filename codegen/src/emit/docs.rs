//! Descriptions → doc comments that rustdoc renders as the text it is: no accidental
//! doctests (indented or fenced code), intra-doc links, HTML tags or headings. Inline code
//! spans are kept as they are (nothing inside them needs escaping); bare URLs become
//! autolinks.

use crate::model::{ApiSet, TypeDef};

/// Joins paragraphs into one doc text with a blank line between them.
pub(crate) fn paragraphs<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The escaped lines of `text`: blank-line runs folded to one, none at either end. A line
/// that continues a list item is indented to the item's text, which is how markdown reads it
/// anyway (clippy's `doc_lazy_continuation` asks for it to be spelled out).
pub(crate) fn doc_lines(text: &str) -> Vec<String> {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut lines: Vec<String> = Vec::new();
    // The width of the list item marker the previous lines belong to.
    let mut item: Option<usize> = None;
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
        let mut line = escape_line(cleaned.trim());
        if line.is_empty() && lines.last().is_none_or(String::is_empty) {
            continue;
        }
        if line.is_empty() {
            item = None;
        } else if let Some(width) = list_marker(&line) {
            item = Some(width);
        } else if let Some(width) = item {
            line.insert_str(0, &" ".repeat(width));
        }
        lines.push(line);
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// The width of the list item marker `line` starts with (`- `, `* `, `+ `, `1. `, `2) `), if
/// any: the indentation of the item's text.
fn list_marker(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    let marker = match bytes.first()? {
        b'-' | b'*' | b'+' => 1,
        _ if (1..=9).contains(&digits) && matches!(bytes.get(digits), Some(b'.' | b')')) => {
            digits + 1
        }
        _ => return None,
    };
    // The text starts after one to four spaces; after more, the first space is the marker's
    // and the rest an indented code block's (which the escaping never produces).
    let spaces = bytes[marker..].iter().take_while(|b| **b == b' ').count();
    match spaces {
        0 => None,
        1..=4 => Some(marker + spaces),
        _ => Some(marker + 1),
    }
}

/// Escapes one line, which has no leading white space (so it can never be an indented
/// code block).
fn escape_line(line: &str) -> String {
    // Most lines have no URL: looking for one at every letter was most of the escaping.
    let may_have_url = line.contains("://");
    // Nor anything to escape (`#` and `~` only matter first, so this is conservative).
    if !may_have_url
        && !line.bytes().any(|b| {
            matches!(
                b,
                b'`' | b'\\' | b'[' | b']' | b'<' | b'>' | b'&' | b'#' | b'~'
            )
        })
    {
        return line.to_owned();
    }
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
        if may_have_url && let Some(len) = url_at(&chars, i) {
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
    // A scheme (`https`, `containerd`, …) then `://`, as rustdoc and clippy recognize URLs.
    if !chars[i].is_ascii_alphabetic() {
        return None;
    }
    let scheme = chars[i..]
        .iter()
        .take(32)
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
        .count();
    if chars.get(i + scheme..i + scheme + 3) != Some(&[':', '/', '/'][..]) {
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
    (len > scheme + 3).then_some(len)
}

/// The generated root module's docs, in markdown: what it holds, where each group-version's
/// resources are (a table of links), where the meta types and the route table are, and one
/// example. `crate_name` is the name users write in paths (`None` in a build script's
/// output, whose example then uses `root` and is not compiled).
pub(crate) fn crate_docs(
    api: &ApiSet,
    root: &str,
    crate_name: Option<&str>,
    routes: bool,
    builders: bool,
) -> String {
    use std::collections::BTreeMap;
    use std::fmt::Write as _;

    let mut out = String::from(
        "Rust types for a Kubernetes-style API, generated by kubeforge: serde structs and \
         enums for every schema, one module per API group-version (below the schema's \
         package), with each resource's `apiVersion`/`kind` checked",
    );
    out.push_str(if builders { ", builders" } else { "" });
    out.push_str(if routes {
        ", and a request function and response decoder for every endpoint.\n"
    } else {
        ".\n"
    });
    // Group-version → (module, kinds), in module order.
    let mut groups: BTreeMap<(String, Vec<String>), Vec<&TypeDef>> = BTreeMap::new();
    for id in api.resources.keys() {
        let ty = api.get(*id);
        let api_version = api.resources[id].gvk.api_version();
        groups
            .entry((api_version, ty.module.clone()))
            .or_default()
            .push(ty);
    }
    let module_path = |module: &[String]| module.join("::");
    if !groups.is_empty() {
        out.push_str("\n| apiVersion | module | resources |\n|---|---|---|\n");
        for ((api_version, module), kinds) in &groups {
            let path = module_path(module);
            let kinds: Vec<String> = kinds
                .iter()
                .map(|ty| format!("[`{}`]({path}::{})", ty.name, ty.name))
                .collect();
            let _ = writeln!(
                out,
                "| `{api_version}` | [`{path}`] | {} |",
                kinds.join(", ")
            );
        }
    }
    let object_meta = api
        .types
        .iter()
        .enumerate()
        .find(|(_, ty)| ty.schema_name == "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    match object_meta {
        Some((_, meta)) if !matches!(meta.kind, crate::model::TypeKind::Extern(_)) => {
            let _ = write!(
                out,
                "\nThe meta types (`ObjectMeta`, `ListMeta`, `Status`, …) are in [`{}`].",
                module_path(&meta.module)
            );
        }
        Some((index, meta)) if meta.kind.is_companion_extern() => {
            let _ = write!(
                out,
                "\nThe meta types (`ObjectMeta`, `ListMeta`, `Status`, …) are those of the crate `kubeforge_meta`, which every crate kubeforge generates shares{}.",
                if api.reexports.contains(&crate::model::TypeId(index)) {
                    format!(", re-exported in [`{}`]", module_path(&meta.module))
                } else {
                    String::new()
                }
            );
        }
        _ => {}
    }
    if routes && !api.operations.is_empty() {
        out.push_str(
            " Every endpoint is in the route table [`routes::ROUTES`], and [`routes::resolve`] \
             matches a request's method and path to it.",
        );
    }
    if !api.crds.is_empty() {
        out.push_str(
            " Each kind made from a `CustomResourceDefinition` gives that CRD back, as the \
             input wrote it (`CRD_JSON`, `crd()`), and [`crds()`] returns every one of them, \
             for a test to install first.",
        );
    }
    out.push('\n');
    if let Some((id, _)) = api.resources.iter().next() {
        let ty = api.get(*id);
        let gvk = &api.resources[id].gvk;
        let (fence, prefix) = match crate_name {
            Some(name) => ("```no_run", name.replace('-', "_")),
            None => ("```ignore", root.to_owned()),
        };
        let path = std::iter::once(prefix.as_str())
            .chain(ty.module.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("::");
        let _ = write!(
            out,
            "\n# Example\n\nRead one `{kind}` as the API server sends it, and write it back:\n\n\
             {fence}\nuse {path}::{kind};\n\n\
             let json = r#\"{{\"apiVersion\": \"{api_version}\", \"kind\": \"{kind}\", \"metadata\": {{\"name\": \"example\"}}}}\"#;\n\
             let object: {kind} = serde_json::from_str(json)?;\n\
             let written = serde_json::to_string(&object)?;\n\
             # Ok::<(), serde_json::Error>(())\n```\n",
            kind = ty.name,
            api_version = gvk.api_version(),
        );
    }
    out
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
        // One character to escape and nothing else (no fast path may skip it).
        assert_eq!(one("a < b"), "a \\< b");
        assert_eq!(one("a > b"), "a \\> b");
        assert_eq!(one("only ] and a\\b"), "only \\] and a\\\\b");
        assert_eq!(one("~~~"), "\\~~~");
        assert_eq!(one("x &amp; y"), "x \\&amp; y");
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
        assert_eq!(
            one("reported as (e.g. containerd://1.4.2)."),
            "reported as (e.g. <containerd://1.4.2>)."
        );
        assert_eq!(one("a:// b"), "a:// b");
        assert_eq!(one("unbalanced ` tick"), "unbalanced \\` tick");
        assert_eq!(
            one("More info: https://kubernetes.io/docs/x#y."),
            "More info: <https://kubernetes.io/docs/x#y>."
        );
        assert_eq!(one("(see https://a.io/b)"), "(see <https://a.io/b>)");
        assert_eq!(one("https://"), "https://");
    }

    #[test]
    fn list_item_continuations_are_indented() {
        // As in Kubernetes' descriptions: items whose text wraps onto unindented lines.
        assert_eq!(
            doc_lines(
                "Values:\n- `Always` means\nevery time.\n10. ten\ncontinued\n* star\n\nAfter the list."
            ),
            vec![
                "Values:",
                "- `Always` means",
                "  every time.",
                "10. ten",
                "    continued",
                "* star",
                "",
                "After the list."
            ]
        );
        // The text of `2.  If` starts after both spaces.
        assert_eq!(
            doc_lines("2.  If set:\nthe rest"),
            vec!["2.  If set:", "    the rest"]
        );
        // Not list markers: no space after them, or a number that is too long.
        assert_eq!(
            doc_lines("-x\ny\n1234567890. n\nz"),
            vec!["-x", "y", "1234567890. n", "z"]
        );
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
