//! How Go prints the values that end up in the API server's messages: `%q` (strconv.Quote),
//! `%v` of a float64, and `json.Marshal` of a decoded JSON value. Error texts are compared
//! by people and tools against a real server's, so the bytes must match.

use std::fmt::Write as _;

use serde_json::Value;

/// Go's `strconv.Quote`: a double-quoted string with Go escapes. Printable runes stay as
/// they are; control and format characters become `\a`, `\n`, `\x00`, `\u200b`, ….
///
/// "Printable" is Go's `unicode.IsPrint` for the characters Kubernetes values carry; the
/// difference (unassigned code points, which Go escapes and this keeps) is not reachable
/// from valid JSON text.
#[must_use]
pub fn quote(s: &str) -> String {
    quote_bytes(s.as_bytes())
}

/// Go's `strconv.Quote` of a Go string, which may hold any bytes: as [`quote`], and each
/// byte that does not start valid UTF-8 written `\xNN`, as Go writes it (Go decodes an
/// invalid sequence one byte at a time).
#[must_use]
pub fn quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            quote_char(&mut out, c);
        }
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out.push('"');
    out
}

/// Go's `%q` of a `[]string`: each string quoted, space-separated, in brackets
/// (`["a" "b"]`).
#[must_use]
pub fn quote_list<S: AsRef<str>>(list: &[S]) -> String {
    let items: Vec<String> = list.iter().map(|s| quote(s.as_ref())).collect();
    format!("[{}]", items.join(" "))
}

fn quote_char(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        c if is_print(c) => out.push(c),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c if (c as u32) < 0x10000 => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\U{:08x}", c as u32);
        }
    }
}

/// Go's `unicode.IsPrint`, for assigned characters: not a control, not a space other than
/// U+0020, not a format character, not private use, not a noncharacter.
fn is_print(c: char) -> bool {
    let u = c as u32;
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(u,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x890..=0x891 | 0x8E2 | 0x180E
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F
        | 0xD800..=0xF8FF | 0xFEFF | 0xFFF9..=0xFFFB | 0xFFFE..=0xFFFF
        | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0001 | 0xE0020..=0xE007F | 0xF0000..)
        && (u & 0xFFFE) != 0xFFFE
}

/// Go's `%v` of a `float64` (`strconv.FormatFloat(f, 'g', -1, 64)`): the shortest text that
/// reads back as the same value, in exponent form (`1e+06`, `1.5e-07`) when the decimal
/// exponent is below -4 or 6 and above.
#[must_use]
pub fn float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    let (neg, digits, exp) = decompose(f);
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    // Shortest `%g` uses the exponent form below 1e-4 and from 1e+06 (eprec 6).
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
        return out;
    }
    plain(&mut out, &digits, exp);
    out
}

/// The sign, the shortest round-trip decimal digits and the exponent of the first digit
/// (`1500.0` is `(false, "15", 3)`), from Rust's `{:e}`, which gives exactly those.
fn decompose(f: f64) -> (bool, String, i32) {
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    (
        neg,
        mantissa.chars().filter(char::is_ascii_digit).collect(),
        exp,
    )
}

fn plain(out: &mut String, digits: &str, exp: i32) {
    let n = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(digits);
    } else if exp + 1 >= n {
        out.push_str(digits);
        for _ in 0..(exp + 1 - n) {
            out.push('0');
        }
    } else {
        let point = usize::try_from(exp + 1).unwrap_or(0);
        out.push_str(&digits[..point]);
        out.push('.');
        out.push_str(&digits[point..]);
    }
}

/// Go's `json.Marshal` of a float64: plain decimal unless the exponent is below -6 or at
/// least 21, then `1e+21`, `1e-07` with the exponent's leading zero dropped (`1e-7`).
#[must_use]
pub fn json_float(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    let abs = f.abs();
    if !(1e-6..1e21).contains(&abs) {
        let sci = format!("{f:e}");
        let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        return format!(
            "{mantissa}e{}{}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        );
    }
    let (neg, digits, exp) = decompose(f);
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    plain(&mut out, &digits, exp);
    out
}

/// Go's `json.Marshal` of a value decoded from JSON (`map[string]interface{}` and friends):
/// object keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped, floats as Go writes them.
#[must_use]
pub fn json(value: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, value);
    out
}

fn write_json(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                let _ = write!(out, "{i}");
            } else if let Some(u) = n.as_u64() {
                // Go decodes integers beyond int64 as float64.
                out.push_str(&json_float(u as f64));
            } else {
                out.push_str(&json_float(n.as_f64().unwrap_or(0.0)));
            }
        }
        Value::String(s) => json_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_string(out, key);
                out.push(':');
                write_json(out, &map[key]);
            }
            out.push('}');
        }
    }
}

/// Go's `%#v` of a value decoded from JSON into `interface{}`, as a `field.Error` shows a
/// bad value that is a map or a slice: `map[string]interface {}{"a":1, "b":"x"}` (keys
/// sorted), `[]interface {}{1, "x"}`; a `nil` inside one is `interface {}(nil)`.
#[must_use]
pub fn go_syntax(value: &Value) -> String {
    match value {
        Value::Null => "interface {}(nil)".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => float(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => quote(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(go_syntax).collect();
            format!("[]interface {{}}{{{}}}", items.join(", "))
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let entries: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", quote(k), go_syntax(&map[k.as_str()])))
                .collect();
            format!("map[string]interface {{}}{{{}}}", entries.join(", "))
        }
    }
}

fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each string with what Go's `strconv.Quote` (and `%q`) makes of it: ASCII escapes,
    /// control characters of both C0 and C1, spaces other than U+0020, format characters,
    /// private use and noncharacters escaped; letters, marks, symbols and emoji of every
    /// plane kept; each byte of invalid UTF-8 (a stray continuation byte, a truncated
    /// sequence, an encoded surrogate, an overlong form) as `\xNN`.
    #[test]
    fn quote_is_strconv_quote_on_unicode_controls_and_invalid_utf8() {
        let cases: &[(&[u8], &str)] = &[
            (b"", r#""""#),
            (b"plain text", r#""plain text""#),
            (b"\"\\", r#""\"\\""#),
            (b"\x07\x08\x0c\n\r\t\x0b", r#""\a\b\f\n\r\t\v""#),
            (b"\x00\x01\x1b\x7f", r#""\x00\x01\x1b\x7f""#),
            ("\u{80}\u{85}\u{9f}".as_bytes(), r#""\u0080\u0085\u009f""#),
            (
                "a\u{a0}b\u{3000}c\u{2028}\u{2029}\u{1680}".as_bytes(),
                r#""a\u00a0b\u3000c\u2028\u2029\u1680""#,
            ),
            (
                "\u{ad}\u{200b}\u{200e}\u{feff}\u{2060}".as_bytes(),
                r#""\u00ad\u200b\u200e\ufeff\u2060""#,
            ),
            (
                "\u{e000}\u{fffe}\u{10ffff}\u{e0001}".as_bytes(),
                r#""\ue000\ufffe\U0010ffff\U000e0001""#,
            ),
            ("héllo wörld".as_bytes(), r#""héllo wörld""#),
            (
                "日本語 ελληνικά עברית".as_bytes(),
                r#""日本語 ελληνικά עברית""#,
            ),
            (
                "e\u{301} 😀 𝔘 \u{1f1fa}".as_bytes(),
                "\"e\u{301} 😀 𝔘 \u{1f1fa}\"",
            ),
            ("\u{fffd}".as_bytes(), "\"\u{fffd}\""),
            (b"\xff", r#""\xff""#),
            (b"a\x80b", r#""a\x80b""#),
            (b"a\xc3", r#""a\xc3""#),
            (b"\xe2\x82", r#""\xe2\x82""#),
            (b"\xed\xa0\x80", r#""\xed\xa0\x80""#),
            (b"\xc0\xaf", r#""\xc0\xaf""#),
            (b"\xf4\x90\x80\x80", r#""\xf4\x90\x80\x80""#),
            (b"ok\xff\xe6\x97\xa5", r#""ok\xff日""#),
        ];
        for (bytes, go) in cases {
            assert_eq!(quote_bytes(bytes), *go, "{bytes:?}");
            if let Ok(text) = std::str::from_utf8(bytes) {
                assert_eq!(quote(text), *go, "{text:?}");
            }
        }
        assert_eq!(quote_list(&["a", "b c", "\n"]), r#"["a" "b c" "\n"]"#);
        assert_eq!(quote_list::<&str>(&[]), "[]");
    }

    #[test]
    fn quote_is_strconv_quote() {
        assert_eq!(quote("NOTREAL"), r#""NOTREAL""#);
        assert_eq!(
            quote("a\"b\\c\n\t\u{1}é😀\u{200b}"),
            r#""a\"b\\c\n\t\x01é😀\u200b""#
        );
    }

    #[test]
    fn floats_print_as_go_v() {
        for (f, want) in [
            (65535.0, "65535"),
            (1e6, "1e+06"),
            (123_456.0, "123456"),
            (1_234_567.0, "1.234567e+06"),
            (0.5, "0.5"),
            (0.0001, "0.0001"),
            (0.000_01, "1e-05"),
            (-2.5, "-2.5"),
            (1.5e-7, "1.5e-07"),
            (1e21, "1e+21"),
            (100.0, "100"),
        ] {
            assert_eq!(float(f), want, "{f}");
        }
    }

    #[test]
    fn json_is_go_json_marshal() {
        assert_eq!(
            json(&json!({"b": 1, "a": [1.5, 1e21, 1e-7, "<&>"], "c": null})),
            r#"{"a":[1.5,1e+21,1e-7,"\u003c\u0026\u003e"],"b":1,"c":null}"#
        );
        assert_eq!(json_float(100_000_000_000.0), "100000000000");
    }

    #[test]
    fn go_syntax_is_go_sharp_v() {
        assert_eq!(
            go_syntax(&json!({"proto": "TCP", "name": "a", "n": null})),
            r#"map[string]interface {}{"n":interface {}(nil), "name":"a", "proto":"TCP"}"#
        );
        assert_eq!(
            go_syntax(&json!([1, 1.5, "x", {}])),
            r#"[]interface {}{1, 1.5, "x", map[string]interface {}{}}"#
        );
    }
}
