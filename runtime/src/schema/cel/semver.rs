//! Kubernetes' CEL `semver` library (apiserver's `pkg/cel/library/semverlib.go`): versions
//! parsed as `blang/semver/v4` parses them, with the library's optional normalization.

use std::cmp::Ordering;

/// A semantic version: the numbers and the pre-release identifiers (build metadata does
/// not order, so it is not kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Semver {
    pub(crate) major: u64,
    pub(crate) minor: u64,
    pub(crate) patch: u64,
    pre: Vec<Pre>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Pre {
    Num(u64),
    Alpha(String),
}

fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn ident(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

fn number(s: &str, what: &str) -> Result<u64, String> {
    if !digits(s) {
        return Err(format!(
            "Invalid character(s) found in {what} number {}",
            crate::schema::gofmt::quote(s)
        ));
    }
    if s.len() > 1 && s.starts_with('0') {
        return Err(format!(
            "{} number must not contain leading zeroes {}",
            capitalize(what),
            crate::schema::gofmt::quote(s)
        ));
    }
    s.parse().map_err(|e| format!("{e}"))
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// `semver.Parse`.
pub(crate) fn parse(s: &str) -> Result<Semver, String> {
    if s.is_empty() {
        return Err("Version string empty".to_owned());
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    if parts.len() != 3 {
        return Err("No Major.Minor.Patch elements found".to_owned());
    }
    let major = number(parts[0], "major")?;
    let minor = number(parts[1], "minor")?;
    let mut patch = parts[2];
    if let Some(i) = patch.find('+') {
        for b in patch[i + 1..].split('.') {
            if !ident(b) {
                return Err(format!(
                    "Invalid character(s) found in build meta data {}",
                    crate::schema::gofmt::quote(b)
                ));
            }
        }
        patch = &patch[..i];
    }
    let mut pre = Vec::new();
    if let Some(i) = patch.find('-') {
        for p in patch[i + 1..].split('.') {
            if p.is_empty() {
                return Err("Prerelease is empty".to_owned());
            }
            if digits(p) {
                if p.len() > 1 && p.starts_with('0') {
                    return Err(format!(
                        "Numeric PreRelease version must not contain leading zeroes {}",
                        crate::schema::gofmt::quote(p)
                    ));
                }
                pre.push(Pre::Num(p.parse().map_err(|e| format!("{e}"))?));
            } else if ident(p) {
                pre.push(Pre::Alpha(p.to_owned()));
            } else {
                return Err(format!(
                    "Invalid character(s) found in prerelease {}",
                    crate::schema::gofmt::quote(p)
                ));
            }
        }
        patch = &patch[..i];
    }
    let patch = number(patch, "patch")?;
    Ok(Semver {
        major,
        minor,
        patch,
        pre,
    })
}

/// `normalizeAndParse`: a leading `v` dropped, leading zeros removed, missing minor and
/// patch filled with 0.
pub(crate) fn parse_normalized(s: &str) -> Result<Semver, String> {
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s
        .splitn(3, '.')
        .map(|p| {
            if p.len() > 1 {
                let t = p.trim_start_matches('0');
                if t.is_empty() || !t.as_bytes()[0].is_ascii_digit() {
                    return format!("0{t}");
                }
                return t.to_owned();
            }
            p.to_owned()
        })
        .collect();
    if parts.len() < 3 {
        if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
            return Err("short version cannot contain PreRelease/Build meta data".to_owned());
        }
        while parts.len() < 3 {
            parts.push("0".to_owned());
        }
    }
    parse(&parts.join("."))
}

impl Ord for Semver {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                // A pre-release orders before its release.
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => {
                    for (a, b) in self.pre.iter().zip(&other.pre) {
                        let o = match (a, b) {
                            (Pre::Num(x), Pre::Num(y)) => x.cmp(y),
                            (Pre::Num(_), Pre::Alpha(_)) => Ordering::Less,
                            (Pre::Alpha(_), Pre::Num(_)) => Ordering::Greater,
                            (Pre::Alpha(x), Pre::Alpha(y)) => x.cmp(y),
                        };
                        if o != Ordering::Equal {
                            return o;
                        }
                    }
                    self.pre.len().cmp(&other.pre.len())
                }
            })
    }
}

impl PartialOrd for Semver {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
