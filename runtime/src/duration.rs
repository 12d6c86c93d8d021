//! Go's `time.Duration` as text: [`parse`] is `time.ParseDuration` and [`format()`] is
//! `Duration.String`, over integer nanoseconds in an `i64` as Go holds them. Kubernetes
//! writes durations this way in JSON (`metav1.Duration`), checks the `duration` format
//! with the parser and its CEL library prints them with `String`.
//!
//! Both follow Go's code step by step, including its one use of floating point: the
//! fraction of a number (`1.5h`) is scaled as `float64(f) * (float64(unit) / scale)`, as
//! Go does, so that `0.3333333333333333333h` is 20m there and here; the whole part is
//! exact (`9007199254740993ns` stays odd).

use std::fmt;

const SECOND: u128 = 1_000_000_000;

/// Why a text is not a Go duration; its message is Go's, byte for byte
/// (`time: invalid duration "1.2.3s"`, `time: unknown unit "d" in duration "1d"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseDurationError {
    message: String,
}

impl fmt::Display for ParseDurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseDurationError {}

/// `time.ParseDuration`: a possibly signed sequence of decimal numbers, each with an
/// optional fraction and a unit (`ns`, `us`, `µs`, `μs`, `ms`, `s`, `m`, `h`), or `0`;
/// in nanoseconds, an error past the range of an `i64`.
///
/// # Errors
///
/// When `text` is not of that form, names an unknown unit or overflows, with Go's
/// message.
///
/// ```
/// use kubeforge_runtime::duration;
///
/// assert_eq!(duration::parse("1h2m3.5s"), Ok(3_723_500_000_000));
/// assert_eq!(duration::parse("-1.5µs"), Ok(-1_500));
/// assert_eq!(
///     duration::parse("1d").unwrap_err().to_string(),
///     r#"time: unknown unit "d" in duration "1d""#
/// );
/// ```
pub fn parse(text: &str) -> Result<i64, ParseDurationError> {
    let invalid = |message: &str| ParseDurationError {
        message: format!("time: {message} {}", quote(text)),
    };
    let mut rest = text;
    let mut negative = false;
    if let Some(sign @ (b'-' | b'+')) = rest.bytes().next() {
        negative = sign == b'-';
        rest = &rest[1..];
    }
    // "0" alone needs no unit.
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid("invalid duration"));
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        if !rest.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
            return Err(invalid("invalid duration"));
        }
        let (whole, after) = leading_int(rest).ok_or_else(|| invalid("invalid duration"))?;
        let has_whole = after.len() != rest.len();
        rest = after;
        let (mut fraction, mut scale, mut has_fraction) = (0, 1.0, false);
        if let Some(after_point) = rest.strip_prefix('.') {
            let (f, s, after) = leading_fraction(after_point);
            has_fraction = after.len() != after_point.len();
            (fraction, scale, rest) = (f, s, after);
        }
        if !has_whole && !has_fraction {
            // No digits: ".s", "-.s".
            return Err(invalid("invalid duration"));
        }
        let unit_end = rest
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(rest.len());
        if unit_end == 0 {
            return Err(invalid("missing unit in duration"));
        }
        let unit_text = &rest[..unit_end];
        rest = &rest[unit_end..];
        let unit: u64 = match unit_text {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000, // U+00B5 micro sign, U+03BC Greek mu
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(invalid(&format!(
                    "unknown unit {} in duration",
                    quote(unit_text)
                )));
            }
        };
        if whole > (1 << 63) / unit {
            return Err(invalid("invalid duration"));
        }
        let mut value = whole * unit;
        if fraction > 0 {
            // Go's float64 step: at most 3.6e12 (an hour), so it does not overflow.
            let part = (fraction as f64 * (unit as f64 / scale)) as u64;
            value += part;
            if value > 1 << 63 {
                return Err(invalid("invalid duration"));
            }
        }
        total += value;
        if total > 1 << 63 {
            return Err(invalid("invalid duration"));
        }
    }
    if negative {
        // 1 << 63 is i64::MIN's magnitude.
        return Ok((total as i64).wrapping_neg());
    }
    i64::try_from(total).map_err(|_| invalid("invalid duration"))
}

/// `leadingInt`: the leading digits of `s` as a number up to 1 << 63, and the rest; `None`
/// past it.
fn leading_int(s: &str) -> Option<(u64, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let mut x: u64 = 0;
    for b in s[..digits].bytes() {
        if x > (1 << 63) / 10 {
            return None;
        }
        x = x * 10 + u64::from(b - b'0');
        if x > 1 << 63 {
            return None;
        }
    }
    Some((x, &s[digits..]))
}

/// `leadingFraction`: the leading digits of `s` as a number and its scale (10 to the number
/// of digits kept), and the rest. Digits past what a u64 holds are dropped, not an error.
fn leading_fraction(s: &str) -> (u64, f64, &str) {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let (mut x, mut scale, mut overflow) = (0u64, 1.0f64, false);
    for b in s[..digits].bytes() {
        if overflow {
            continue;
        }
        if x > ((1 << 63) - 1) / 10 {
            overflow = true;
            continue;
        }
        let y = x * 10 + u64::from(b - b'0');
        if y > 1 << 63 {
            overflow = true;
            continue;
        }
        x = y;
        scale *= 10.0;
    }
    (x, scale, &s[digits..])
}

/// The `quote` of Go's time package (not `strconv.Quote`): a byte outside printable ASCII
/// is written `\xNN`.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for b in text.bytes() {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(char::from(b));
            }
            b' '..=0x7f => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
    out
}

/// `Duration.String`: `0s`, `1.5µs`, `2.2ms`, `1h2m3.5s`, `-2m0s`; hours are the largest
/// unit and the sign comes first.
///
/// ```
/// use kubeforge_runtime::duration;
///
/// assert_eq!(duration::format(3_723_500_000_000), "1h2m3.5s");
/// assert_eq!(duration::format(-120_000_000_000), "-2m0s");
/// assert_eq!(duration::format(1_500), "1.5µs");
/// ```
#[must_use]
pub fn format(nanos: i64) -> String {
    format_magnitude(nanos < 0, u128::from(nanos.unsigned_abs()))
}

/// [`format()`] over CEL's range of durations (±10000 years), wider than an `i64`: Go's
/// digits, further.
#[cfg(feature = "validate")]
pub(crate) fn format_wide(nanos: i128) -> String {
    format_magnitude(nanos < 0, nanos.unsigned_abs())
}

fn format_magnitude(negative: bool, magnitude: u128) -> String {
    if magnitude == 0 {
        return "0s".to_owned();
    }
    let mut out = String::from(if negative { "-" } else { "" });
    if magnitude < SECOND {
        let (unit, scale) = match magnitude {
            0..1_000 => ("ns", 1),
            1_000..1_000_000 => ("µs", 1_000), // U+00B5, as Go writes it
            _ => ("ms", 1_000_000),
        };
        out.push_str(&decimal(magnitude, scale));
        out.push_str(unit);
        return out;
    }
    let hours = magnitude / (3600 * SECOND);
    let minutes = magnitude / (60 * SECOND) % 60;
    if hours > 0 {
        out.push_str(&format!("{hours}h{minutes}m"));
    } else if minutes > 0 {
        out.push_str(&format!("{minutes}m"));
    }
    out.push_str(&decimal(magnitude % (60 * SECOND), SECOND));
    out.push('s');
    out
}

/// `n / scale` with its fraction's trailing zeros, and its point, left out (`fmtFrac`).
fn decimal(n: u128, scale: u128) -> String {
    let (whole, rest) = (n / scale, n % scale);
    if rest == 0 {
        return whole.to_string();
    }
    let width = scale.ilog10() as usize;
    let fraction = format!("{rest:0width$}");
    format!("{whole}.{}", fraction.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::{format, parse};

    const NS: i64 = 1;
    const US: i64 = 1_000;
    const MS: i64 = 1_000_000;
    const S: i64 = 1_000_000_000;
    const MIN: i64 = 60 * S;
    const H: i64 = 60 * MIN;

    /// Go's own table: `parseDurationTests` of `src/time/time_test.go` (golang/go, read at
    /// f7396aaea0297a2e95b502a4075b0aed6efda89f), the expected values as Go computes them.
    #[test]
    fn parses_as_go_parses() {
        for (text, nanos) in [
            // simple
            ("0", 0),
            ("5s", 5 * S),
            ("30s", 30 * S),
            ("1478s", 1478 * S),
            // sign
            ("-5s", -5 * S),
            ("+5s", 5 * S),
            ("-0", 0),
            ("+0", 0),
            // decimal
            ("5.0s", 5 * S),
            ("5.6s", 5 * S + 600 * MS),
            ("5.s", 5 * S),
            (".5s", 500 * MS),
            ("1.0s", S),
            ("1.00s", S),
            ("1.004s", S + 4 * MS),
            ("1.0040s", S + 4 * MS),
            ("100.00100s", 100 * S + MS),
            // units
            ("10ns", 10 * NS),
            ("11us", 11 * US),
            ("12µs", 12 * US), // U+00B5
            ("12μs", 12 * US), // U+03BC
            ("13ms", 13 * MS),
            ("14s", 14 * S),
            ("15m", 15 * MIN),
            ("16h", 16 * H),
            // composite
            ("3h30m", 3 * H + 30 * MIN),
            ("10.5s4m", 4 * MIN + 10 * S + 500 * MS),
            ("-2m3.4s", -(2 * MIN + 3 * S + 400 * MS)),
            (
                "1h2m3s4ms5us6ns",
                H + 2 * MIN + 3 * S + 4 * MS + 5 * US + 6 * NS,
            ),
            ("39h9m14.425s", 39 * H + 9 * MIN + 14 * S + 425 * MS),
            // large value
            ("52763797000ns", 52_763_797_000),
            // more than 9 digits after the point (Go's float64 step makes this 20m)
            ("0.3333333333333333333h", 20 * MIN),
            // 1<<53 + 1: not exact in a float64
            ("9007199254740993ns", (1 << 53) + 1),
            // the extremes of an int64
            ("9223372036854775807ns", i64::MAX),
            ("9223372036854775.807us", i64::MAX),
            ("9223372036s854ms775us807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            ("-9223372036854775.808us", i64::MIN),
            ("-9223372036s854ms775us808ns", i64::MIN),
            ("-2562047h47m16.854775808s", i64::MIN),
            // a long fraction; the first overflow check of leadingFraction
            ("0.100000000000000000000h", 6 * MIN),
            ("0.830103483285477580700h", 49 * MIN + 48 * S + 372_539_827),
        ] {
            assert_eq!(parse(text), Ok(nanos), "{text}");
        }
    }

    /// Go's `parseDurationErrorTests` (same file), with the whole message Go writes; the
    /// table's inputs that are not UTF-8 cannot be a `&str`.
    #[test]
    fn refuses_what_go_refuses_with_its_message() {
        for (text, message) in [
            ("", r#"time: invalid duration """#),
            ("3", r#"time: missing unit in duration "3""#),
            ("-", r#"time: invalid duration "-""#),
            ("s", r#"time: invalid duration "s""#),
            (".", r#"time: invalid duration ".""#),
            ("-.", r#"time: invalid duration "-.""#),
            (".s", r#"time: invalid duration ".s""#),
            ("+.s", r#"time: invalid duration "+.s""#),
            ("1d", r#"time: unknown unit "d" in duration "1d""#),
            ("\u{FFFD}", r#"time: invalid duration "\xef\xbf\xbd""#),
            (
                "\u{FFFD} hello \u{FFFD} world",
                r#"time: invalid duration "\xef\xbf\xbd hello \xef\xbf\xbd world""#,
            ),
            // overflow
            (
                "9223372036854775810ns",
                r#"time: invalid duration "9223372036854775810ns""#,
            ),
            (
                "9223372036854775808ns",
                r#"time: invalid duration "9223372036854775808ns""#,
            ),
            (
                "-9223372036854775809ns",
                r#"time: invalid duration "-9223372036854775809ns""#,
            ),
            (
                "9223372036854776us",
                r#"time: invalid duration "9223372036854776us""#,
            ),
            ("3000000h", r#"time: invalid duration "3000000h""#),
            (
                "9223372036854775.808us",
                r#"time: invalid duration "9223372036854775.808us""#,
            ),
            (
                "9223372036854ms775us808ns",
                r#"time: invalid duration "9223372036854ms775us808ns""#,
            ),
            // a unit in another case, a quote in the input
            ("1S", r#"time: unknown unit "S" in duration "1S""#),
            ("1\"s", r#"time: unknown unit "\"s" in duration "1\"s""#),
        ] {
            assert_eq!(
                parse(text).map_err(|e| e.to_string()),
                Err(message.to_owned()),
                "{text:?}"
            );
        }
    }

    /// Go's `durationTests` (same file): each positive one also negated, as Go's test does.
    #[test]
    fn formats_as_go_formats() {
        for (text, nanos) in [
            ("0s", 0),
            ("1ns", NS),
            ("1.1µs", 1100 * NS),
            ("2.2ms", 2200 * US),
            ("3.3s", 3300 * MS),
            ("4m5s", 4 * MIN + 5 * S),
            ("4m5.001s", 4 * MIN + 5001 * MS),
            ("5h6m7.001s", 5 * H + 6 * MIN + 7001 * MS),
            ("8m0.000000001s", 8 * MIN + NS),
            ("2562047h47m16.854775807s", i64::MAX),
            ("-2562047h47m16.854775808s", i64::MIN),
            // and the shapes the brief of this module names
            ("1h2m3.5s", H + 2 * MIN + 3500 * MS),
            ("1h0m0s", H),
            ("1.5µs", 1500 * NS),
        ] {
            assert_eq!(format(nanos), text, "{nanos}");
            if nanos > 0 {
                assert_eq!(format(-nanos), format!("-{text}"), "{}", -nanos);
            }
        }
        assert_eq!(format(-2 * MIN), "-2m0s");
    }

    /// `TestParseDurationRoundTrip`: the extremes and whole milliseconds read back.
    #[test]
    fn what_it_writes_reads_back() {
        for nanos in [i64::MAX, i64::MIN, 0, 1, -1, 999_999_999, 86_400 * S + 1] {
            assert_eq!(parse(&format(nanos)), Ok(nanos), "{nanos}");
        }
        let mut ms: i64 = 1;
        while ms < i64::from(i32::MAX) {
            assert_eq!(parse(&format(ms * MS)), Ok(ms * MS));
            ms = ms * 7 + 3;
        }
    }
}
