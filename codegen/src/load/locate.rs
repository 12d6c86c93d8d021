//! JSON pointer → line and column in the source text. serde_json keeps no positions, so
//! this scanner walks the text itself: only along the pointer's path, skipping other values
//! without recursion (hostile nesting cannot overflow the stack) and without allocating them.

pub use crate::diagnostics::LineColumn;

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

/// The line and column of the value at `pointer` in the JSON `text`.
pub fn line_column(text: &str, pointer: &str) -> Option<LineColumn> {
    let offset = offset(text, pointer)?;
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

#[cfg(test)]
mod tests {
    use super::{LineColumn, line_column};

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
