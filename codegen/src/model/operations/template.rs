//! Path templates: `/api/v1/namespaces/{namespace}/pods/{name}/log`, parsed once into
//! constant text and parameters, each parameter filling one whole segment.

use std::collections::BTreeSet;

/// The most path parameters one operation can have: the runtime's `route::MAX_PATH_PARAMS`,
/// the size of the array the matcher keeps them in.
pub const MAX_PATH_PARAMS: usize = 4;

/// A path template: the text, parsed once ([`PathTemplate::parse`]) into parts and
/// segments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathTemplate {
    /// As written, e.g. `/api/v1/namespaces/{namespace}/pods/{name}/log`.
    pub text: String,
    /// Constant text and parameters, alternating as they appear.
    pub parts: Vec<PathPart>,
    /// The `/`-separated segments after the leading `/`: `true` for a parameter.
    pub(super) segments: Vec<(String, bool)>,
}

/// A part of a path template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathPart {
    /// Constant text, e.g. `/api/v1/namespaces/`.
    Literal(String),
    /// A parameter that fills one whole segment, e.g. `namespace`.
    Param(String),
}

/// One `/`-separated segment of a path template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Segment<'a> {
    /// Constant text.
    Static(&'a str),
    /// A parameter.
    Param(&'a str),
}

impl PathTemplate {
    /// Parses a template; `Err` with what is wrong (see [`parse_template`]).
    ///
    /// # Errors
    ///
    /// When a parameter does not fill a whole segment, appears twice or has no name, the
    /// path does not start with `/`, has a dot segment or a `?`, `#`, `%` or `\\`, or has
    /// more than [`MAX_PATH_PARAMS`] parameters.
    pub fn parse(text: &str) -> Result<PathTemplate, String> {
        let parts = parse_template(text)?;
        let rest = text.strip_prefix('/').unwrap_or(text);
        let segments = rest
            .split('/')
            .map(
                |segment| match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    Some(name) => (name.to_owned(), true),
                    None => (segment.to_owned(), false),
                },
            )
            .collect();
        Ok(PathTemplate {
            text: text.to_owned(),
            parts,
            segments,
        })
    }

    /// The segments after the leading `/`.
    pub fn segments(&self) -> Vec<Segment<'_>> {
        self.segments
            .iter()
            .map(|(text, param)| {
                if *param {
                    Segment::Param(text)
                } else {
                    Segment::Static(text)
                }
            })
            .collect()
    }

    /// The segments of the same path with its trailing slash removed, or added when it has
    /// none: the other form a discovery path is served under.
    pub fn segments_slash_toggled(&self) -> Vec<Segment<'_>> {
        let mut segments = self.segments();
        if segments.len() > 1 && segments.last() == Some(&Segment::Static("")) {
            segments.pop();
        } else if segments.last() != Some(&Segment::Static("")) {
            segments.push(Segment::Static(""));
        }
        segments
    }

    /// The parameter names in order.
    pub fn params(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            PathPart::Param(name) => Some(name.as_str()),
            PathPart::Literal(_) => None,
        })
    }
}

/// Splits a path template into literal text and parameters; `Err` with what is wrong.
fn parse_template(text: &str) -> Result<Vec<PathPart>, String> {
    if !text.starts_with('/') {
        return Err("expected the path to start with `/`".to_owned());
    }
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut names = BTreeSet::new();
    for (i, segment) in text.split('/').enumerate() {
        if i > 0 {
            literal.push('/');
        }
        if let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            if name.is_empty() || name.contains(['{', '}']) {
                return Err(format!("expected a parameter name in `{segment}`"));
            }
            if !names.insert(name) {
                return Err(format!(
                    "expected the parameter `{name}` once, found it twice"
                ));
            }
            if !literal.is_empty() {
                parts.push(PathPart::Literal(std::mem::take(&mut literal)));
            }
            parts.push(PathPart::Param(name.to_owned()));
        } else if segment.contains(['{', '}']) {
            return Err(format!(
                "expected each parameter to fill a whole path segment, found `{segment}`"
            ));
        } else if segment == "." || segment == ".." {
            // A dot segment would let the template step out of its API prefix once a
            // client or proxy normalizes the path.
            return Err(format!("expected no `{segment}` segment in the path"));
        } else if segment.contains(['?', '#', '%', '\\']) {
            return Err(format!("expected a plain path segment, found `{segment}`"));
        } else {
            literal.push_str(segment);
        }
    }
    if !literal.is_empty() {
        parts.push(PathPart::Literal(literal));
    }
    if names.len() > MAX_PATH_PARAMS {
        return Err(format!(
            "expected at most {MAX_PATH_PARAMS} path parameters, found {}",
            names.len()
        ));
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_parsed_once() {
        let template = PathTemplate::parse("/apis/{group}/v1/").unwrap();
        assert_eq!(
            template.segments(),
            [
                Segment::Static("apis"),
                Segment::Param("group"),
                Segment::Static("v1"),
                Segment::Static(""),
            ]
        );
        assert_eq!(
            template.segments_slash_toggled(),
            [
                Segment::Static("apis"),
                Segment::Param("group"),
                Segment::Static("v1"),
            ]
        );
        let apis = PathTemplate::parse("/apis").unwrap();
        assert_eq!(
            apis.segments_slash_toggled(),
            [Segment::Static("apis"), Segment::Static("")]
        );
        assert!(PathTemplate::parse("/a/{x}.json").is_err());
    }

    #[test]
    fn templates() {
        let parts = parse_template("/api/v1/namespaces/{namespace}/pods/{name}/log").unwrap();
        assert_eq!(
            parts,
            vec![
                PathPart::Literal("/api/v1/namespaces/".into()),
                PathPart::Param("namespace".into()),
                PathPart::Literal("/pods/".into()),
                PathPart::Param("name".into()),
                PathPart::Literal("/log".into()),
            ]
        );
        assert!(parse_template("/a/{x}.json").is_err());
        assert!(parse_template("/a/{x}/{x}").is_err());
        assert!(parse_template("/a/{}").is_err());
        assert!(parse_template("a/b").is_err());
        assert_eq!(
            parse_template("/").unwrap(),
            vec![PathPart::Literal("/".into())]
        );
    }
}
