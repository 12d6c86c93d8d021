//! Content negotiation: what a request's `Accept` asks for and what its body is in, as the
//! API server reads them ("Kubernetes API Concepts": alternate representations, Tables,
//! Protobuf encoding). The first media range (by `q`, then by order) that the server can
//! answer wins; none answers 406.

use http::header;

use crate::wire::status::Failure;

/// JSON.
pub(crate) const JSON: &str = "application/json";
/// Kubernetes' protobuf encoding (the `k8s\0` envelope).
pub(crate) const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

/// One media range of an `Accept` header.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Media {
    /// `type/subtype`, lower case.
    pub(crate) essence: String,
    /// Parameters (`as`, `g`, `v`, `stream`), keys lower case.
    pub(crate) params: Vec<(String, String)>,
    quality: f32,
}

impl Media {
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Parses one media type (`application/json;as=Table;g=meta.k8s.io;v=v1`).
    pub(crate) fn parse(text: &str) -> Option<Media> {
        let mut parts = text.split(';');
        let essence = parts.next()?.trim().to_ascii_lowercase();
        if essence.is_empty() {
            return None;
        }
        let mut params = Vec::new();
        let mut quality = 1.0;
        for part in parts {
            let Some((key, value)) = part.split_once('=') else {
                continue;
            };
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim().trim_matches('"').to_owned();
            if key == "q" {
                quality = value.parse().unwrap_or(1.0);
            } else {
                params.push((key, value));
            }
        }
        Some(Media {
            essence,
            params,
            quality,
        })
    }

    fn matches(&self, essence: &str) -> bool {
        if self.essence == essence || self.essence == "*/*" {
            return true;
        }
        match (self.essence.split_once('/'), essence.split_once('/')) {
            (Some((a, "*")), Some((b, _))) => a == b,
            _ => false,
        }
    }
}

/// The media ranges of the request's `Accept`, best first; `*/*` when there is none.
pub(crate) fn accepted(parts: &http::request::Parts) -> Vec<Media> {
    let text = parts
        .headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",");
    let mut list: Vec<Media> = text.split(',').filter_map(Media::parse).collect();
    if list.is_empty() {
        list.push(Media {
            essence: "*/*".to_owned(),
            params: Vec::new(),
            quality: 1.0,
        });
    }
    list.retain(|m| m.quality > 0.0);
    list.sort_by(|a, b| b.quality.total_cmp(&a.quality));
    list
}

/// Whether a plain JSON answer is acceptable.
pub(crate) fn accepts_json(parts: &http::request::Parts) -> bool {
    accepted(parts)
        .iter()
        .any(|m| m.param("as").is_none() && m.matches(JSON))
}

/// How to answer a request for an object or a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// The object (or list) as JSON.
    Json,
    /// The object (or list) in Kubernetes' protobuf encoding.
    Protobuf,
    /// A `meta.k8s.io` `Table` of the given version (`v1` or `v1beta1`), as JSON.
    Table(&'static str),
}

/// What to answer: the first acceptable media range the server can serve. `protobuf` says
/// whether the kind has a protobuf encoding (built-in kinds do, custom resources do not).
pub(crate) fn negotiate(parts: &http::request::Parts, protobuf: bool) -> Result<Answer, Failure> {
    let list = accepted(parts);
    for media in &list {
        match media.param("as") {
            Some("Table") => {
                let group_ok = media.param("g") == Some("meta.k8s.io");
                let version = match media.param("v") {
                    Some("v1") => Some("v1"),
                    Some("v1beta1") => Some("v1beta1"),
                    _ => None,
                };
                if let (true, Some(version), true) = (group_ok, version, media.matches(JSON)) {
                    return Ok(Answer::Table(version));
                }
            }
            Some(_) => {}
            None if media.essence == PROTOBUF && protobuf => return Ok(Answer::Protobuf),
            None if media.matches(JSON) => return Ok(Answer::Json),
            None => {}
        }
    }
    let asked: Vec<String> = list
        .iter()
        .map(|m| {
            let mut text = m.essence.clone();
            for (k, v) in &m.params {
                text.push_str(&format!(";{k}={v}"));
            }
            text
        })
        .collect();
    Err(Failure::not_acceptable(format!(
        "only the following media types are accepted: application/json, application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1beta1;g=meta.k8s.io{}; asked for {}",
        if protobuf {
            ", application/vnd.kubernetes.protobuf"
        } else {
            ""
        },
        asked.join(", ")
    )))
}

/// The request body's media type (`Content-Type` without parameters), lower case.
pub(crate) fn content_type(parts: &http::request::Parts) -> String {
    parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::{Answer, negotiate};

    fn parts(accept: &str) -> http::request::Parts {
        let mut builder = http::Request::builder();
        if !accept.is_empty() {
            builder = builder.header("accept", accept);
        }
        builder.body(()).unwrap().into_parts().0
    }

    #[test]
    fn kubectl_and_client_go_accept_headers() {
        let kubectl_get = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
        assert_eq!(
            negotiate(&parts(kubectl_get), true),
            Ok(Answer::Table("v1"))
        );
        let typed = "application/vnd.kubernetes.protobuf,application/json";
        assert_eq!(negotiate(&parts(typed), true), Ok(Answer::Protobuf));
        assert_eq!(negotiate(&parts(typed), false), Ok(Answer::Json));
        assert_eq!(negotiate(&parts(""), true), Ok(Answer::Json));
        assert_eq!(negotiate(&parts("*/*"), true), Ok(Answer::Json));
        assert_eq!(
            negotiate(
                &parts("application/json;q=0.5, application/json;as=Table;v=v1beta1;g=meta.k8s.io"),
                true
            ),
            Ok(Answer::Table("v1beta1"))
        );
        let refused =
            negotiate(&parts("application/json;as=Widget;v=v1;g=x.io"), true).unwrap_err();
        assert_eq!((refused.code, refused.reason), (406, "NotAcceptable"));
    }
}
