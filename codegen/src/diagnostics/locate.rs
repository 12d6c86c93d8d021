//! JSON pointer → line and column in the source text, for JSON and YAML alike (so a
//! semantic error in a YAML CRD points at its line as one in JSON does). serde_json keeps no
//! positions, so for JSON this scanner walks the text itself: only along the pointer's path,
//! skipping other values without recursion (hostile nesting cannot overflow the stack) and
//! without allocating them. YAML is parsed again (only on the error path) into a tree of
//! spans by serde-saphyr, with its budgets.

use super::LineColumn;

/// The byte offset of the value at `pointer` in the JSON `text`, if the text is JSON and
/// has that value.
pub fn offset(text: &str, pointer: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = skip_ws(bytes, 0);
    if pointer.is_empty() {
        return Some(at);
    }
    for raw_token in pointer.strip_prefix('/')?.split('/') {
        let token = raw_token.replace("~1", "/").replace("~0", "~");
        match bytes.get(at)? {
            b'{' => {
                at = skip_ws(bytes, at + 1);
                loop {
                    if bytes.get(at)? == &b'}' {
                        return None;
                    }
                    let (key, after_key) = read_string(bytes, at)?;
                    at = skip_ws(bytes, after_key);
                    if bytes.get(at)? != &b':' {
                        return None;
                    }
                    at = skip_ws(bytes, at + 1);
                    if key == token {
                        break;
                    }
                    at = skip_ws(bytes, skip_value(bytes, at)?);
                    match bytes.get(at)? {
                        b',' => at = skip_ws(bytes, at + 1),
                        _ => return None,
                    }
                }
            }
            b'[' => {
                let index: usize = token.parse().ok()?;
                at = skip_ws(bytes, at + 1);
                for _ in 0..index {
                    at = skip_ws(bytes, skip_value(bytes, at)?);
                    match bytes.get(at)? {
                        b',' => at = skip_ws(bytes, at + 1),
                        _ => return None,
                    }
                }
                if bytes.get(at)? == &b']' {
                    return None;
                }
            }
            _ => return None,
        }
    }
    Some(at)
}

/// The line and column of the value at `pointer` in `text`, JSON or YAML (the first
/// document of a YAML stream).
#[cfg(test)]
pub fn line_column(text: &str, pointer: &str) -> Option<LineColumn> {
    line_column_in(text, 0, pointer)
}

/// The line and column of the value at `pointer` in document `document` (from 0) of `text`.
/// Text that starts with `{` is JSON (one document), anything else YAML, as the loader
/// reads them.
#[cfg(test)]
pub fn line_column_in(text: &str, document: usize, pointer: &str) -> Option<LineColumn> {
    Locator::new(text).line_column(document, pointer)
}

/// Answers many pointers into one text: a YAML text is parsed once, on the first question.
pub struct Locator<'a> {
    text: &'a str,
    yaml: std::cell::OnceCell<Option<Vec<yaml::Node>>>,
}

impl<'a> Locator<'a> {
    /// A locator over `text`, JSON or YAML.
    pub fn new(text: &'a str) -> Locator<'a> {
        Locator {
            text,
            yaml: std::cell::OnceCell::new(),
        }
    }

    /// As [`line_column_in`].
    pub fn line_column(&self, document: usize, pointer: &str) -> Option<LineColumn> {
        let text = self.text;
        if text.trim_start().starts_with('{') {
            if document > 0 {
                return None;
            }
            return at_offset(text, offset(text, pointer)?);
        }
        let documents = self.yaml.get_or_init(|| yaml::parse(text)).as_ref()?;
        yaml::offset(text, documents.get(document)?, pointer)
            .and_then(|offset| at_offset(text, offset))
    }
}

pub(crate) use yaml::line_start;

/// The line and column of the byte `offset` in `text`.
pub fn at_offset(text: &str, offset: usize) -> Option<LineColumn> {
    let before = text.get(..offset)?;
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    Some(LineColumn {
        line,
        column,
        offset,
    })
}

/// The end of the JSON value that starts at byte `offset`, clipped to its first line, for
/// underlining it.
#[cfg(feature = "cli")]
pub fn value_end_on_line(text: &str, offset: usize) -> usize {
    let end = skip_value(text.as_bytes(), offset).unwrap_or(text.len());
    let line_end = text[offset..].find('\n').map_or(text.len(), |n| offset + n);
    end.min(line_end).max((offset + 1).min(text.len()))
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace()) {
        at += 1;
    }
    at
}

/// A JSON string starting at `at` (decoding the escapes that matter for keys) and the
/// offset after it.
fn read_string(bytes: &[u8], at: usize) -> Option<(String, usize)> {
    if bytes.get(at)? != &b'"' {
        return None;
    }
    let mut out = Vec::new();
    let mut i = at + 1;
    loop {
        match *bytes.get(i)? {
            b'"' => return Some((String::from_utf8(out).ok()?, i + 1)),
            b'\\' => {
                let escaped = *bytes.get(i + 1)?;
                match escaped {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b'b' => out.push(8),
                    b'f' => out.push(12),
                    b'u' => {
                        let hex = std::str::from_utf8(bytes.get(i + 2..i + 6)?).ok()?;
                        let code = u32::from_str_radix(hex, 16).ok()?;
                        let c = char::from_u32(code).unwrap_or('\u{fffd}');
                        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                        i += 4;
                    }
                    other => out.push(other),
                }
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
}

/// The offset after the value starting at `at`, found by counting brackets outside strings.
fn skip_value(bytes: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    loop {
        match *bytes.get(i)? {
            b'"' => {
                i += 1;
                loop {
                    match *bytes.get(i)? {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            b',' if depth == 0 => return Some(i),
            _ => i += 1,
        }
        if depth == 0
            && !bytes
                .get(i)
                .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+'))
        {
            return Some(i);
        }
    }
}

/// Positions in YAML: the document re-read as a tree of spans.
mod yaml {
    use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use serde_saphyr::Spanned;

    /// A node and where it starts.
    pub(super) type Node = Spanned<Tree>;

    pub(super) enum Tree {
        Map(Vec<(String, Node)>),
        Seq(Vec<Node>),
        Leaf,
    }

    /// A mapping key as the loader sees it: scalars as their text.
    struct Key(String);

    impl<'de> Deserialize<'de> for Key {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl Visitor<'_> for V {
                type Value = Key;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a scalar key")
                }
                fn visit_str<E>(self, v: &str) -> Result<Key, E> {
                    Ok(Key(v.to_owned()))
                }
                fn visit_bool<E>(self, v: bool) -> Result<Key, E> {
                    Ok(Key(v.to_string()))
                }
                fn visit_i64<E>(self, v: i64) -> Result<Key, E> {
                    Ok(Key(v.to_string()))
                }
                fn visit_u64<E>(self, v: u64) -> Result<Key, E> {
                    Ok(Key(v.to_string()))
                }
                fn visit_f64<E>(self, v: f64) -> Result<Key, E> {
                    Ok(Key(v.to_string()))
                }
                fn visit_unit<E>(self) -> Result<Key, E> {
                    Ok(Key("null".to_owned()))
                }
            }
            d.deserialize_any(V)
        }
    }

    impl<'de> Deserialize<'de> for Tree {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Tree;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("any YAML node")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
                    let mut entries = Vec::new();
                    while let Some(Key(key)) = map.next_key()? {
                        entries.push((key, map.next_value()?));
                    }
                    Ok(Tree::Map(entries))
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
                    let mut items = Vec::new();
                    while let Some(item) = seq.next_element()? {
                        items.push(item);
                    }
                    Ok(Tree::Seq(items))
                }
                fn visit_bool<E>(self, _: bool) -> Result<Tree, E> {
                    Ok(Tree::Leaf)
                }
                fn visit_i64<E>(self, _: i64) -> Result<Tree, E> {
                    Ok(Tree::Leaf)
                }
                fn visit_u64<E>(self, _: u64) -> Result<Tree, E> {
                    Ok(Tree::Leaf)
                }
                fn visit_f64<E>(self, _: f64) -> Result<Tree, E> {
                    Ok(Tree::Leaf)
                }
                fn visit_str<E>(self, _: &str) -> Result<Tree, E> {
                    Ok(Tree::Leaf)
                }
                fn visit_bytes<E>(self, _: &[u8]) -> Result<Tree, E> {
                    Ok(Tree::Leaf)
                }
                fn visit_unit<E>(self) -> Result<Tree, E> {
                    Ok(Tree::Leaf)
                }
                fn visit_none<E>(self) -> Result<Tree, E> {
                    Ok(Tree::Leaf)
                }
                fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Tree, D::Error> {
                    IgnoredAny::deserialize(d).map(|_| Tree::Leaf)
                }
            }
            d.deserialize_any(V)
        }
    }

    /// The documents of the YAML `text` as trees of positions.
    pub(super) fn parse(text: &str) -> Option<Vec<Node>> {
        serde_saphyr::from_multiple(text).ok()
    }

    /// The byte offset in `text` of the node at `pointer` below `root`.
    pub(super) fn offset(text: &str, root: &Node, pointer: &str) -> Option<usize> {
        let mut node = root;
        if !pointer.is_empty() {
            for raw in pointer.strip_prefix('/')?.split('/') {
                let token = raw.replace("~1", "/").replace("~0", "~");
                node = match &node.value {
                    Tree::Map(entries) => &entries.iter().rev().find(|(k, _)| *k == token)?.1,
                    Tree::Seq(items) => items.get(token.parse::<usize>().ok()?)?,
                    Tree::Leaf => return None,
                };
            }
        }
        let location = node.referenced;
        let from_span = location.span().byte_offset();
        let offset = match from_span {
            Some(offset) => usize::try_from(offset).ok()?,
            None => {
                line_start(text, usize::try_from(location.line()).ok()?)?
                    + usize::try_from(location.column()).ok()?.checked_sub(1)?
            }
        };
        text.is_char_boundary(offset).then_some(offset)
    }

    /// The byte offset where line `line` (from 1) starts.
    pub(crate) fn line_start(text: &str, line: usize) -> Option<usize> {
        if line == 1 {
            return Some(0);
        }
        text.match_indices('\n')
            .nth(line.checked_sub(2)?)
            .map(|(i, _)| i + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::{LineColumn, line_column, line_column_in};

    #[test]
    fn finds_yaml_nodes_along_the_pointer() {
        let text = "---\na: 1\n---\nspec:\n  items:\n  - x: 1\n    \"y/z\": [2, 3]\n";
        let at = |d: usize, p: &str| line_column_in(text, d, p).map(|l| (l.line, l.column));
        assert_eq!(at(0, "/a"), Some((2, 4)));
        assert_eq!(at(1, "/spec/items/0/x"), Some((6, 8)));
        assert_eq!(at(1, "/spec/items/0/y~1z/1"), Some((7, 16)));
        assert_eq!(at(1, "/spec/missing"), None);
        assert_eq!(at(2, ""), None);
    }

    #[test]
    fn finds_values_along_the_pointer() {
        let text = "{\n  \"a\": {\"x\": [1, {\"y\": \"z\"}]},\n  \"b~/c\": [true, \"s\\\"]\"],\n  \"d\": 2\n}";
        assert_eq!(
            line_column(text, ""),
            Some(LineColumn {
                line: 1,
                column: 1,
                offset: 0
            })
        );
        let at = |p: &str| line_column(text, p).map(|l| (l.line, l.column));
        assert_eq!(at("/a"), Some((2, 8)));
        assert_eq!(at("/a/x/1/y"), Some((2, 24)));
        assert_eq!(at("/b~0~1c/1"), Some((3, 18)));
        assert_eq!(at("/d"), Some((4, 8)));
        assert_eq!(line_column(text, "/missing"), None);
        assert_eq!(line_column(text, "/a/x/7"), None);
        assert_eq!(line_column("not json", "/a"), None);
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let deep = format!(
            "{{\"a\": {}{}, \"b\": 1}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert_eq!(line_column(&deep, "/b").map(|l| l.line), Some(1));
    }
}
