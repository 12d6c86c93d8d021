//! The string formats the API server checks for CRDs: kube-openapi's `strfmt` registry as
//! apiextensions-apiserver uses it (`pkg/apiserver/validation/formats.go`,
//! `supportedVersionedFormats`), with go-openapi's name normalization (dashes dropped:
//! `date-time` is `datetime`).
//!
//! Checked, each as its Go function does: `bsonobjectid`, `uri` (`url.ParseRequestURI`),
//! `email` (`net/mail.ParseAddress`, see [`is_email`]), `hostname`, `ipv4`, `ipv6`, `cidr`
//! (`net.ParseIP`/`ParseCIDR`, IPv4 octets with leading zeros accepted as the "sloppy"
//! parsers do), `mac` (`net.ParseMAC`), `uuid`, `uuid3`, `uuid4`, `uuid5`, `isbn`,
//! `isbn10`, `isbn13`, `creditcard`, `ssn`, `hexcolor`, `rgbcolor`, `byte` (standard
//! base64), `password` (anything), `date`, `datetime`, `duration`.
//!
//! Not checked: every other format name (`int-or-string`, `quantity`, `k8s-short-name`,
//! …): the API server strips formats it does not support before validating, and at the
//! compatibility version this project's server speaks (v1.32) the `k8s-short-name` and
//! `k8s-long-name` formats (added in v1.34) are among them. Integer formats other than
//! `int32`/`int64` and number formats other than `float`/`double` are stripped too.

use std::sync::OnceLock;

use regex::Regex;

use crate::schema::JsonType;
use crate::schema::gourl;

/// The format apiextensions keeps for a schema of `ty` (`StripUnsupportedFormatsPostProcess`),
/// normalized (dashes dropped), or `None` when it is stripped.
pub(crate) fn effective(
    format: Option<&str>,
    ty: Option<JsonType>,
    int_or_string: bool,
) -> Option<String> {
    let format = format.filter(|f| !f.is_empty())?;
    // int-or-string schemas have two types, so the string rules apply.
    let ty = if int_or_string { None } else { ty };
    match ty {
        None | Some(JsonType::String) => {
            let normalized = format.replace('-', "");
            SUPPORTED
                .contains(&normalized.as_str())
                .then_some(normalized)
        }
        Some(JsonType::Integer) => matches!(format, "int32" | "int64").then(|| format.to_owned()),
        Some(JsonType::Number) => matches!(format, "float" | "double").then(|| format.to_owned()),
        Some(_) => None,
    }
}

/// The string formats of `strfmt.Default` that CRDs may use (normalized names).
const SUPPORTED: &[&str] = &[
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
];

/// Whether the registry knows the (normalized) format: only those are checked on strings.
pub(crate) fn is_known(format: &str) -> bool {
    SUPPORTED.contains(&format)
}

/// Whether `s` is valid for the (normalized, known) format.
pub(crate) fn validates(format: &str, s: &str) -> bool {
    match format {
        "bsonobjectid" => s.len() == 24 && s.bytes().all(|b| b.is_ascii_hexdigit()),
        "uri" => gourl::parse_request_uri(s).is_ok(),
        "email" => is_email(s),
        "hostname" => is_hostname(s),
        "ipv4" => parse_ip_sloppy(s).is_some() && s.contains('.'),
        "ipv6" => parse_ip(s).is_some() && s.contains(':'),
        "cidr" => parse_cidr_sloppy(s).is_some(),
        "mac" => is_mac(s),
        "uuid" => is_uuid(s, None),
        "uuid3" => is_uuid(s, Some(b'3')),
        "uuid4" => is_uuid(s, Some(b'4')),
        "uuid5" => is_uuid(s, Some(b'5')),
        "isbn" => is_isbn(s, 10) || is_isbn(s, 13),
        "isbn10" => is_isbn(s, 10),
        "isbn13" => is_isbn(s, 13),
        "creditcard" => is_credit_card(s),
        "ssn" => is_ssn(s),
        "hexcolor" => is_hex_color(s),
        "rgbcolor" => is_rgb_color(s),
        "byte" => is_base64(s),
        "date" => is_date(s),
        "datetime" => is_date_time(s),
        "duration" => parse_duration(s).is_some(),
        // "password" and anything else
        _ => true,
    }
}

fn regex(cell: &'static OnceLock<Option<Regex>>, pattern: &str) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(pattern).ok()).as_ref()
}

/// `strfmt.IsHostname`: the RFC 1034 pattern (letters and symbols of any script allowed),
/// at most 255 bytes, labels of at most 63.
pub(crate) fn is_hostname(s: &str) -> bool {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    let pattern = r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$";
    regex(&RE, pattern).is_some_and(|re| re.is_match(s))
        && s.len() <= 255
        && s.split('.').all(|label| label.len() <= 63)
}

/// The UUID patterns (`(?i)^[0-9a-f]{8}-?…$`), with the version digit (and the variant
/// for versions 4 and 5) when given.
fn is_uuid(s: &str, version: Option<u8>) -> bool {
    let hex: Vec<u8> = {
        // Dashes are optional at the four group boundaries only.
        let b = s.as_bytes();
        let mut out = Vec::with_capacity(32);
        let mut i = 0;
        for (group, len) in [8usize, 4, 4, 4, 12].into_iter().enumerate() {
            if group > 0 && b.get(i) == Some(&b'-') {
                i += 1;
            }
            for _ in 0..len {
                match b.get(i) {
                    Some(c) if c.is_ascii_hexdigit() => out.push(c.to_ascii_lowercase()),
                    _ => return false,
                }
                i += 1;
            }
        }
        if i != b.len() {
            return false;
        }
        out
    };
    match version {
        None => true,
        Some(v) => hex[12] == v && (v == b'3' || matches!(hex[16], b'8' | b'9' | b'a' | b'b')),
    }
}

/// govalidator's `IsISBN` (blanks and dashes removed, then the checksum).
fn is_isbn(s: &str, version: u8) -> bool {
    let digits: Vec<u8> = s
        .bytes()
        .filter(|b| !matches!(b, b'-' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'))
        .collect();
    if version == 10 {
        if digits.len() != 10
            || !digits[..9].iter().all(u8::is_ascii_digit)
            || !(digits[9].is_ascii_digit() || digits[9] == b'X')
        {
            return false;
        }
        let mut sum: u32 = 0;
        for (i, d) in digits[..9].iter().enumerate() {
            sum += (u32::try_from(i).unwrap_or(0) + 1) * u32::from(d - b'0');
        }
        sum += 10
            * if digits[9] == b'X' {
                10
            } else {
                u32::from(digits[9] - b'0')
            };
        sum.is_multiple_of(11)
    } else {
        if digits.len() != 13 || !digits.iter().all(u8::is_ascii_digit) {
            return false;
        }
        let sum: u32 = digits[..12]
            .iter()
            .enumerate()
            .map(|(i, d)| u32::from(d - b'0') * if i % 2 == 0 { 1 } else { 3 })
            .sum();
        u32::from(digits[12] - b'0') == (10 - sum % 10) % 10
    }
}

/// govalidator's `IsCreditCard`: digits only (others dropped), a known issuer's pattern,
/// then the Luhn checksum.
fn is_credit_card(s: &str) -> bool {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    let digits: String = s.chars().filter(char::is_ascii_digit).collect();
    let pattern = r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})$";
    if !regex(&RE, pattern).is_some_and(|re| re.is_match(&digits)) {
        return false;
    }
    let mut sum = 0;
    let mut double = false;
    for d in digits.bytes().rev() {
        let mut n = u32::from(d - b'0');
        if double {
            n *= 2;
            if n >= 10 {
                n = n % 10 + 1;
            }
        }
        sum += n;
        double = !double;
    }
    sum % 10 == 0
}

/// `^\d{3}[- ]?\d{2}[- ]?\d{4}$`, 11 bytes long.
fn is_ssn(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 11
        && b[..3].iter().all(u8::is_ascii_digit)
        && matches!(b[3], b'-' | b' ')
        && b[4..6].iter().all(u8::is_ascii_digit)
        && matches!(b[6], b'-' | b' ')
        && b[7..].iter().all(u8::is_ascii_digit)
}

/// `^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`.
fn is_hex_color(s: &str) -> bool {
    let h = s.strip_prefix('#').unwrap_or(s);
    matches!(h.len(), 3 | 6) && h.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `rgb(R, G, B)` with each part 0..=255 written without leading zeros.
fn is_rgb_color(s: &str) -> bool {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    let part = r"\s*(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])\s*";
    let pattern = format!(r"^rgb\({part},{part},{part}\)$");
    regex(&RE, &pattern).is_some_and(|re| re.is_match(s))
}

/// govalidator's base64 pattern: whole groups of four, padded.
fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() || !b.len().is_multiple_of(4) {
        return false;
    }
    let body = |c: &u8| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/';
    let (head, tail) = b.split_at(b.len() - 4);
    head.iter().all(body)
        && match tail {
            [a, c, b'=', b'='] => body(a) && body(c),
            [a, c, d, b'='] => body(a) && body(c) && body(d),
            t => t.iter().all(body),
        }
}

/// `time.Parse("2006-01-02", s)`: four-digit year, two-digit month and day, a real date.
pub(crate) fn is_date(s: &str) -> bool {
    parse_date(s).is_some()
}

/// (year, month, day) of a `2006-01-02` date.
pub(crate) fn parse_date(s: &str) -> Option<(i32, u8, u8)> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        b[r.clone()].iter().all(u8::is_ascii_digit).then(|| {
            b[r].iter()
                .fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0'))
        })
    };
    let year = i32::try_from(num(0..4)?).ok()?;
    let month = u8::try_from(num(5..7)?).ok()?;
    let day = u8::try_from(num(8..10)?).ok()?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    Some((year, month, day))
}

pub(crate) fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

/// `strfmt.IsDateTime`: a date, `t` (any case), `hh:mm:ss`, an optional fraction, and `z`
/// or a `±hh:mm` offset.
fn is_date_time(s: &str) -> bool {
    if s.len() < 4 {
        return false;
    }
    let lower = s.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let t = time.as_bytes();
    if t.len() < 9 || t[2] != b':' || t[5] != b':' {
        return false;
    }
    let two = |i: usize| t[i].is_ascii_digit() && t[i + 1].is_ascii_digit();
    if !(two(0) && two(3) && two(6)) {
        return false;
    }
    if &time[0..2] > "23" || &time[3..5] > "59" || &time[6..8] > "59" {
        return false;
    }
    let mut rest = &time[8..];
    // `(.[0-9]+)?`: any one character, then digits.
    if let Some(c) = rest.chars().next()
        && c != 'z'
        && c != '+'
        && c != '-'
    {
        let after = &rest[c.len_utf8()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return false;
        }
        rest = &after[digits..];
    }
    let o = rest.as_bytes();
    rest == "z"
        || (o.len() == 6
            && matches!(o[0], b'+' | b'-')
            && o[1].is_ascii_digit()
            && o[2].is_ascii_digit()
            && o[3] == b':'
            && o[4].is_ascii_digit()
            && o[5].is_ascii_digit())
}

/// `strfmt.ParseDuration`: Go's `time.ParseDuration`, else the Scala-like form
/// (`3 days`, `1 hour 2 minutes`), in nanoseconds.
pub(crate) fn parse_duration(s: &str) -> Option<i128> {
    if let Ok(d) = crate::duration::parse(s) {
        return Some(i128::from(d));
    }
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    let re = regex(&RE, r"(([0-9]+)\s*([A-Za-zµ]+))")?;
    let units: [(&[&str], i128); 8] = [
        (&["ns", "nano"], 1),
        (&["us", "µs", "micro"], 1_000),
        (&["ms", "milli"], 1_000_000),
        (&["s", "sec"], 1_000_000_000),
        (&["m", "min"], 60_000_000_000),
        (&["h", "hr", "hour"], 3_600_000_000_000),
        (&["d", "day"], 86_400_000_000_000),
        (&["w", "wk", "week"], 604_800_000_000_000),
    ];
    let mut total: i128 = 0;
    let mut ok = false;
    for cap in re.captures_iter(s) {
        // strconv.Atoi: an int that fits.
        let factor: i64 = cap.get(2)?.as_str().parse().ok()?;
        let unit = cap.get(3)?.as_str().trim().to_lowercase();
        for (variants, mult) in units {
            let last = variants.len() - 1;
            for (i, v) in variants.iter().enumerate() {
                if (i == last && unit.starts_with(v)) || v.eq_ignore_ascii_case(&unit) {
                    ok = true;
                    total += i128::from(factor) * mult;
                }
            }
        }
    }
    ok.then_some(total)
}

/// `net.ParseMAC`: six, eight or twenty octets as `xx:xx…`, `xx-xx…` or `xxxx.xxxx…`.
fn is_mac(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 14 {
        return false;
    }
    if b[2] == b':' || b[2] == b'-' {
        let sep = b[2];
        if !(b.len() + 1).is_multiple_of(3) {
            return false;
        }
        let n = (b.len() + 1) / 3;
        if !matches!(n, 6 | 8 | 20) {
            return false;
        }
        (0..n).all(|i| {
            let x = i * 3;
            b[x].is_ascii_hexdigit()
                && b[x + 1].is_ascii_hexdigit()
                && (i + 1 == n || b[x + 2] == sep)
        })
    } else if b[4] == b'.' {
        if !(b.len() + 1).is_multiple_of(5) {
            return false;
        }
        let n = 2 * (b.len() + 1) / 5;
        if !matches!(n, 6 | 8 | 20) {
            return false;
        }
        (0..(b.len() + 1) / 5).all(|i| {
            let x = i * 5;
            b[x..x + 4].iter().all(u8::is_ascii_hexdigit) && (x + 4 == b.len() || b[x + 4] == b'.')
        })
    } else {
        false
    }
}

/// Go's `net.ParseIP`: an IPv4 address (no leading zeros) or an IPv6 address (an IPv4
/// tail allowed, no zone).
pub(crate) fn parse_ip(s: &str) -> Option<std::net::IpAddr> {
    s.parse().ok()
}

/// `netutils.ParseIPSloppy`: as [`parse_ip`], but IPv4 octets may have leading zeros (read
/// as decimal).
pub(crate) fn parse_ip_sloppy(s: &str) -> Option<std::net::IpAddr> {
    if let Some(ip) = parse_ip(s) {
        return Some(ip);
    }
    if s.contains(':') {
        // An IPv6 address with a sloppy IPv4 tail.
        let (head, tail) = s.rsplit_once(':')?;
        let v4 = sloppy_v4(tail)?;
        return format!("{head}:{v4}").parse().ok();
    }
    sloppy_v4(s).map(std::net::IpAddr::V4)
}

fn sloppy_v4(s: &str) -> Option<std::net::Ipv4Addr> {
    let mut octets = [0u8; 4];
    let mut parts = s.split('.');
    for o in &mut octets {
        let p = parts.next()?;
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *o = p.parse().ok()?;
    }
    parts
        .next()
        .is_none()
        .then_some(std::net::Ipv4Addr::from(octets))
}

/// `netutils.ParseCIDRSloppy`: an address (sloppy IPv4) and a prefix length within its
/// family, written in decimal without sign or leading zeros.
fn parse_cidr_sloppy(s: &str) -> Option<(std::net::IpAddr, u8)> {
    let (addr, bits) = s.split_once('/')?;
    let ip = parse_ip_sloppy(addr)?;
    if bits.is_empty()
        || !bits.bytes().all(|b| b.is_ascii_digit())
        || (bits.len() > 1 && bits.starts_with('0'))
    {
        return None;
    }
    let n: u8 = bits.parse().ok()?;
    let max = if addr.contains(':') { 128 } else { 32 };
    (n <= max).then_some((ip, n))
}

/// `net/mail.ParseAddress` with a non-empty address: `local@domain` or
/// `Display Name <local@domain>`. The local part is a dot-atom or a quoted string, the
/// domain a dot-atom or a `[literal]`. Comments (`(…)`) and obsolete syntax, which Go
/// also partly accepts, are refused.
pub(crate) fn is_email(s: &str) -> bool {
    let s = s.trim_matches(|c| c == ' ' || c == '\t');
    let spec = match (s.rfind('<'), s.ends_with('>')) {
        (Some(open), true) => {
            let name = s[..open].trim_end();
            if !name.is_empty() && !is_display_name(name) {
                return false;
            }
            &s[open + 1..s.len() - 1]
        }
        (None, false) => s,
        _ => return false,
    };
    is_addr_spec(spec)
}

fn is_atext(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || (c as u32) >= 0x80
}

fn is_dot_atom(s: &str) -> bool {
    !s.is_empty()
        && s.split('.')
            .all(|a| !a.is_empty() && a.chars().all(is_atext))
}

fn is_quoted(s: &str) -> bool {
    let Some(inner) = s.strip_prefix('"').and_then(|r| r.strip_suffix('"')) else {
        return false;
    };
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.next().is_none() => return false,
            '"' => return false,
            c if (c as u32) < 0x20 && c != '\t' => return false,
            _ => {}
        }
    }
    true
}

fn is_display_name(s: &str) -> bool {
    is_quoted(s)
        || s.split([' ', '\t'])
            .filter(|w| !w.is_empty())
            .all(|w| w.chars().all(|c| is_atext(c) || c == '.'))
}

fn is_addr_spec(s: &str) -> bool {
    let Some(at) = s.rfind('@') else {
        return false;
    };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    (is_dot_atom(local) || is_quoted(local))
        && (is_dot_atom(domain)
            || (domain.starts_with('[')
                && domain.ends_with(']')
                && domain.len() >= 2
                && domain[1..domain.len() - 1]
                    .chars()
                    .all(|c| c.is_ascii_graphic() && c != '[' && c != ']' && c != '\\')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_check_as_strfmt_does() {
        let cases: &[(&str, &str, bool)] = &[
            ("uuid", "123e4567-e89b-12d3-a456-426614174000", true),
            ("uuid", "123E4567E89B12D3A456426614174000", true),
            ("uuid", "123e4567-e89b-12d3-a456-42661417400", false),
            ("uuid4", "123e4567-e89b-42d3-a456-426614174000", true),
            ("uuid4", "123e4567-e89b-42d3-c456-426614174000", false),
            ("uuid3", "123e4567-e89b-32d3-c456-426614174000", true),
            ("ipv4", "1.2.3.4", true),
            ("ipv4", "01.2.3.4", true),
            ("ipv4", "1.2.3.256", false),
            ("ipv4", "::1", false),
            ("ipv6", "::1", true),
            ("ipv6", "fe80::1%eth0", false),
            ("cidr", "10.0.0.0/8", true),
            ("cidr", "10.0.0.1/33", false),
            ("cidr", "::/0", true),
            ("mac", "01:23:45:67:89:ab", true),
            ("mac", "01-23-45-67-89-ab-cd-ef", true),
            ("mac", "0123.4567.89ab", true),
            ("mac", "01:23:45:67:89", false),
            ("hostname", "example.com", true),
            ("hostname", "a", true),
            ("hostname", "-bad.com", false),
            ("hostname", "exa_mple.com", false),
            ("email", "a@b.c", true),
            ("email", "Jane Doe <jane@example.com>", true),
            ("email", "not-an-email", false),
            ("date", "2024-02-29", true),
            ("date", "2023-02-29", false),
            ("date", "2024-1-01", false),
            ("datetime", "2014-12-15T19:30:20.000Z", true),
            ("datetime", "2014-12-15t19:30:20+01:00", true),
            ("datetime", "2014-12-15T24:30:20Z", false),
            ("datetime", "2014-12-15", false),
            ("duration", "1h30m", true),
            ("duration", "3 days", true),
            ("duration", "1.5s", true),
            ("duration", "forever", false),
            ("byte", "aGVsbG8=", true),
            ("byte", "aGVsbG8", false),
            ("isbn10", "0321751043", true),
            ("isbn13", "978-0321751041", true),
            ("isbn", "0321751044", false),
            ("creditcard", "4111 1111 1111 1111", true),
            ("creditcard", "4111 1111 1111 1112", false),
            ("ssn", "123-45-6789", true),
            ("hexcolor", "#FFF", true),
            ("rgbcolor", "rgb(255, 0, 10)", true),
            ("rgbcolor", "rgb(256, 0, 10)", false),
            ("bsonobjectid", "507f1f77bcf86cd799439011", true),
            ("uri", "https://example.com/a?b#c", true),
            ("uri", "/absolute", true),
            ("uri", "relative/path", false),
        ];
        for (format, value, want) in cases {
            assert_eq!(validates(format, value), *want, "{format} {value:?}");
        }
    }

    #[test]
    fn unsupported_formats_are_stripped() {
        assert_eq!(
            effective(Some("date-time"), Some(JsonType::String), false).as_deref(),
            Some("datetime")
        );
        assert_eq!(
            effective(Some("int32"), Some(JsonType::Integer), false).as_deref(),
            Some("int32")
        );
        assert_eq!(
            effective(Some("int32"), Some(JsonType::String), false),
            None
        );
        assert_eq!(effective(Some("quantity"), None, false), None);
        assert_eq!(effective(Some("uuid"), Some(JsonType::Object), false), None);
    }
}
