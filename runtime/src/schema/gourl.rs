//! Go's `net/url` parser, as far as Kubernetes uses it: `url.ParseRequestURI` (the `uri`
//! format and CEL's `isURL`/`url()`), `url.Parse`, and the parts CEL's URL library reads
//! (`EscapedPath`, `Hostname`, `Port`, `Query`). The WHATWG parser of the `url` crate
//! accepts and normalizes differently, so the Go rules are ported here.

use std::collections::BTreeMap;

/// A parsed URL (Go's `url.URL`, the fields CEL reads).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoUrl {
    /// The scheme, lower-cased.
    pub scheme: String,
    /// The opaque part of `scheme:opaque`.
    pub opaque: String,
    /// `host` or `host:port`, unescaped.
    pub host: String,
    /// The path, unescaped.
    pub path: String,
    /// The path as written, when it differs from the default escaping of `path`.
    pub raw_path: String,
    /// The query, without `?`.
    pub raw_query: String,
    /// The fragment, unescaped.
    pub fragment: String,
}

/// Go's `url.Error` text: `parse "x": reason`.
fn error(url: &str, reason: &str) -> String {
    format!("parse {}: {reason}", crate::schema::gofmt::quote(url))
}

/// `url.ParseRequestURI`: an absolute URI or an absolute path, no fragment.
///
/// # Errors
/// Go's error text (`parse "x": invalid URI for request`).
pub fn parse_request_uri(raw: &str) -> Result<GoUrl, String> {
    parse(raw, true).map_err(|e| error(raw, &e))
}

/// `url.Parse`: any URL reference, with a fragment.
///
/// # Errors
/// Go's error text.
pub fn parse_url(raw: &str) -> Result<GoUrl, String> {
    let (u, frag) = raw.split_once('#').unwrap_or((raw, ""));
    let mut url = parse(u, false).map_err(|e| error(u, &e))?;
    if !frag.is_empty() {
        url.fragment = unescape(frag, Mode::Fragment).map_err(|e| error(raw, &e))?;
    }
    Ok(url)
}

fn parse(raw: &str, via_request: bool) -> Result<GoUrl, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_owned());
    }
    if raw.is_empty() && via_request {
        return Err("empty url".to_owned());
    }
    let mut url = GoUrl::default();
    if raw == "*" {
        url.path = "*".to_owned();
        return Ok(url);
    }
    let (scheme, rest) = scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let mut rest = rest.to_owned();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest.pop();
    } else if let Some((r, q)) = rest.clone().split_once('?') {
        rest = r.to_owned();
        url.raw_query = q.to_owned();
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest;
            return Ok(url);
        }
        if via_request {
            return Err("invalid URI for request".to_owned());
        }
        let segment = rest.split('/').next().unwrap_or("");
        if segment.contains(':') {
            return Err("first path segment in URL cannot contain colon".to_owned());
        }
    }
    if (!url.scheme.is_empty() || (!via_request && !rest.starts_with("///")))
        && rest.starts_with("//")
    {
        let after = &rest[2..];
        let (authority, path) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        url.host = authority_host(authority)?;
        rest = path.to_owned();
    }
    url.path = unescape(&rest, Mode::Path)?;
    if escape(&url.path, Mode::Path) != rest {
        url.raw_path = rest;
    }
    Ok(url)
}

fn scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' => {
                if i == 0 {
                    return Ok(("", raw));
                }
            }
            b':' => {
                if i == 0 {
                    return Err("missing protocol scheme".to_owned());
                }
                return Ok((&raw[..i], &raw[i + 1..]));
            }
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

fn authority_host(authority: &str) -> Result<String, String> {
    let (userinfo, host) = match authority.rfind('@') {
        Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
        None => (None, authority),
    };
    let host = parse_host(host)?;
    if let Some(userinfo) = userinfo {
        let valid = userinfo
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&c));
        if !valid {
            return Err("net/url: invalid userinfo".to_owned());
        }
        let (user, pass) = userinfo.split_once(':').unwrap_or((userinfo, ""));
        unescape(user, Mode::UserPassword)?;
        unescape(pass, Mode::UserPassword)?;
    }
    Ok(host)
}

fn valid_optional_port(port: &str) -> bool {
    port.is_empty() || (port.starts_with(':') && port[1..].bytes().all(|b| b.is_ascii_digit()))
}

fn parse_host(host: &str) -> Result<String, String> {
    if host.starts_with('[') {
        let Some(i) = host.rfind(']') else {
            return Err("missing ']' in host".to_owned());
        };
        let port = &host[i + 1..];
        if !valid_optional_port(port) {
            return Err(format!(
                "invalid port {} after host",
                crate::schema::gofmt::quote(port)
            ));
        }
        // A zone (`%25…`) may hold any escaped byte.
        if let Some(z) = host[..i].find("%25") {
            let h1 = unescape(&host[..z], Mode::Host)?;
            let h2 = unescape(&host[z..i], Mode::Zone)?;
            let h3 = unescape(&host[i..], Mode::Host)?;
            return Ok(h1 + &h2 + &h3);
        }
    } else if let Some(i) = host.rfind(':') {
        let port = &host[i..];
        if !valid_optional_port(port) {
            return Err(format!(
                "invalid port {} after host",
                crate::schema::gofmt::quote(port)
            ));
        }
    }
    unescape(host, Mode::Host)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone) && b"!$&'()*+,;=:[]<>\"".contains(&c) {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => {
            return match mode {
                Mode::Path => c == b'?',
                Mode::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
                Mode::QueryComponent => true,
                Mode::Fragment => false,
                Mode::Host | Mode::Zone => true,
            };
        }
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

fn unhex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

fn unescape(s: &str, mode: Mode) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let (Some(h), Some(l)) = (
                    b.get(i + 1).copied().and_then(unhex),
                    b.get(i + 2).copied().and_then(unhex),
                ) else {
                    let end = (i + 3).min(b.len());
                    let bad = String::from_utf8_lossy(&b[i..end]).into_owned();
                    return Err(format!(
                        "invalid URL escape {}",
                        crate::schema::gofmt::quote(&bad)
                    ));
                };
                if mode == Mode::Host && h < 8 && &s[i..i + 3] != "%25" {
                    return Err(format!(
                        "invalid URL escape {}",
                        crate::schema::gofmt::quote(&s[i..i + 3])
                    ));
                }
                if mode == Mode::Zone {
                    let v = h << 4 | l;
                    if &s[i..i + 3] != "%25" && v != b' ' && should_escape(v, Mode::Host) {
                        return Err(format!(
                            "invalid URL escape {}",
                            crate::schema::gofmt::quote(&s[i..i + 3])
                        ));
                    }
                }
                out.push(h << 4 | l);
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!(
                        "invalid character {} in host name",
                        crate::schema::gofmt::quote(&(c as char).to_string())
                    ));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn escape(s: &str, mode: Mode) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if should_escape(c, mode) {
            out.push_str(&format!("%{c:02X}"));
        } else {
            out.push(c as char);
        }
    }
    out
}

fn valid_encoded(s: &str, mode: Mode) -> bool {
    s.bytes()
        .all(|c| b"!$&'()*+,;=:@[]%".contains(&c) || !should_escape(c, mode))
}

impl GoUrl {
    /// `URL.EscapedPath`.
    #[must_use]
    pub fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path, Mode::Path)
            && unescape(&self.raw_path, Mode::Path).as_deref() == Ok(self.path.as_str())
        {
            return self.raw_path.clone();
        }
        if self.path == "*" {
            return "*".to_owned();
        }
        escape(&self.path, Mode::Path)
    }

    fn split_host_port(&self) -> (&str, &str) {
        let mut host = self.host.as_str();
        let mut port = "";
        if let Some(colon) = host.rfind(':')
            && valid_optional_port(&host[colon..])
        {
            port = &host[colon + 1..];
            host = &host[..colon];
        }
        if host.starts_with('[') && host.ends_with(']') && host.len() >= 2 {
            host = &host[1..host.len() - 1];
        }
        (host, port)
    }

    /// `URL.Hostname`: the host without port or IPv6 brackets.
    #[must_use]
    pub fn hostname(&self) -> &str {
        self.split_host_port().0
    }

    /// `URL.Port`.
    #[must_use]
    pub fn port(&self) -> &str {
        self.split_host_port().1
    }

    /// `URL.Query`: keys and values unescaped (`+` is a space), repeated keys kept in
    /// order; pairs with a semicolon or a bad escape are dropped, as Go does.
    #[must_use]
    pub fn query(&self) -> BTreeMap<String, Vec<String>> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for pair in self.raw_query.split('&') {
            if pair.is_empty() || pair.contains(';') {
                continue;
            }
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let (Ok(k), Ok(v)) = (
                unescape(k, Mode::QueryComponent),
                unescape(v, Mode::QueryComponent),
            ) else {
                continue;
            };
            out.entry(k).or_default().push(v);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_as_go_does() {
        // The examples of Kubernetes' CEL URL library (apiserver pkg/cel/library/urls.go).
        let u = parse_url("https://user:pass@example.com:80/path?query=val#fragment").unwrap();
        assert_eq!(
            (u.scheme.as_str(), u.host.as_str()),
            ("https", "example.com:80")
        );
        assert!(parse_request_uri("/absolute-path").is_ok());
        assert_eq!(
            parse_request_uri("https://a:b:c/").unwrap_err(),
            r#"parse "https://a:b:c/": invalid port ":c" after host"#
        );
        assert!(parse_request_uri("../relative-path").is_err());
        assert_eq!(parse_url("https://[::1]:80/").unwrap().hostname(), "::1");
        assert_eq!(parse_url("https://[::1]:80/").unwrap().host, "[::1]:80");
        assert_eq!(parse_url("https://example.com:80/").unwrap().port(), "80");
        assert_eq!(parse_url("https://example.com/").unwrap().port(), "");
        assert_eq!(
            parse_url("https://example.com/path with spaces/")
                .unwrap()
                .escaped_path(),
            "/path%20with%20spaces/"
        );
        assert_eq!(parse_url("https://example.com").unwrap().escaped_path(), "");
        let q = parse_url("https://example.com/path?k1=a&k2=b&k2=c")
            .unwrap()
            .query();
        assert_eq!(q["k2"], vec!["b".to_owned(), "c".to_owned()]);
        let q = parse_url("https://example.com/path?key with spaces=value with spaces")
            .unwrap()
            .query();
        assert_eq!(q["key with spaces"], vec!["value with spaces".to_owned()]);
        assert!(
            parse_url("https://example.com/path?")
                .unwrap()
                .query()
                .is_empty()
        );
        assert_eq!(parse_url("/path").unwrap().scheme, "");
        assert!(parse_request_uri("").is_err());
        assert!(parse_request_uri("http://exa mple.com/").is_err());
    }
}
