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

/// The request's `Accept`, its headers joined.
fn accept_header(parts: &http::request::Parts) -> String {
    parts
        .headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",")
}

/// The media ranges of the request's `Accept`, best first as goautoneg orders them (by `q`,
/// then a range without wildcards before one with, then as written); `*/*` when there is
/// none.
pub(crate) fn accepted(parts: &http::request::Parts) -> Vec<Media> {
    let text = accept_header(parts);
    let mut list: Vec<Media> = text.split(',').filter_map(Media::parse).collect();
    if list.is_empty() {
        list.push(Media {
            essence: "*/*".to_owned(),
            params: Vec::new(),
            quality: 1.0,
        });
    }
    list.retain(|m| m.quality > 0.0);
    let wild = |m: &Media| {
        let (ty, sub) = m.essence.split_once('/').unwrap_or((&m.essence, ""));
        (ty == "*", sub == "*")
    };
    list.sort_by(|a, b| {
        b.quality
            .total_cmp(&a.quality)
            .then_with(|| wild(a).cmp(&wild(b)))
    });
    list
}

/// Whether a plain JSON answer is acceptable.
pub(crate) fn accepts_json(parts: &http::request::Parts) -> bool {
    accepted(parts)
        .iter()
        .any(|m| m.param("as").is_none() && m.matches(JSON))
}

/// The media types the API server's serializers offer, in its order, as its 406 lists them
/// (`negotiation.NewNotAcceptableError` over the codec factory's `SupportedMediaTypes`; CBOR
/// only behind its alpha feature gate). This server writes no YAML: a range that only YAML
/// would satisfy is passed over.
const OFFERED: [&str; 3] = [JSON, "application/yaml", PROTOBUF];

/// The 406 the API server answers when no range of the `Accept` can be served.
pub(crate) fn not_acceptable() -> Failure {
    Failure::not_acceptable(format!(
        "only the following media types are accepted: {}",
        OFFERED.join(", ")
    ))
}

/// Which `meta.k8s.io` object a request asked its answer to be turned into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Partial {
    /// `PartialObjectMetadata`: one object's metadata.
    Object,
    /// `PartialObjectMetadataList`: a list's.
    List,
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
    /// The metadata alone, as a `meta.k8s.io` `PartialObjectMetadata` or
    /// `PartialObjectMetadataList` of the given version (`v1` or `v1beta1`), in JSON or in
    /// protobuf.
    Metadata {
        /// What the client asked for (`as=`), which may not fit the answer: a get asked for
        /// a list is answered 406, as the API server's `transformObject` does.
        partial: Partial,
        /// `v1` or `v1beta1`.
        version: &'static str,
        /// In protobuf rather than JSON.
        protobuf: bool,
    },
}

/// The `meta.k8s.io` versions a `Table` or `PartialObjectMetadata` comes in.
fn meta_version(media: &Media) -> Option<&'static str> {
    if media.param("g") != Some("meta.k8s.io") {
        return None;
    }
    match media.param("v") {
        Some("v1") => Some("v1"),
        Some("v1beta1") => Some("v1beta1"),
        _ => None,
    }
}

/// What one media range asks of a resource endpoint, if the server can answer it in
/// `offered`: the API server's `acceptMediaTypeOptions` with the `RequestScope`'s
/// restrictions (`AllowsMediaTypeTransform`: a `Table` in JSON or YAML, a
/// `PartialObjectMetadata(List)` in any encoding, no other conversion; `stream=watch` only).
fn answer_of(media: &Media, offered: &str, protobuf: bool) -> Option<Answer> {
    if media
        .param("stream")
        .is_some_and(|s| !s.is_empty() && s != "watch")
    {
        return None;
    }
    let converts = ["as", "g", "v"].iter().any(|k| media.param(k).is_some());
    let in_protobuf = offered == PROTOBUF;
    if !converts {
        return match offered {
            JSON => Some(Answer::Json),
            PROTOBUF if protobuf => Some(Answer::Protobuf),
            _ => None,
        };
    }
    let version = meta_version(media)?;
    let partial = match media.param("as") {
        Some("Table") => {
            return (offered == JSON).then_some(Answer::Table(version));
        }
        Some("PartialObjectMetadata") => Partial::Object,
        Some("PartialObjectMetadataList") => Partial::List,
        _ => return None,
    };
    if in_protobuf && !cfg!(feature = "protobuf") || offered == "application/yaml" {
        return None;
    }
    Some(Answer::Metadata {
        partial,
        version,
        protobuf: in_protobuf,
    })
}

/// What to answer: the first acceptable media range the server can serve, tried against
/// each media type the server offers, in the API server's order (`NegotiateMediaTypeOptions`).
/// `protobuf` says whether the kind has a protobuf encoding (built-in kinds do, custom
/// resources do not; their metadata does).
pub(crate) fn negotiate(parts: &http::request::Parts, protobuf: bool) -> Result<Answer, Failure> {
    if accept_header(parts).trim().is_empty() {
        return Ok(Answer::Json);
    }
    for media in &accepted(parts) {
        for offered in OFFERED {
            if !media.matches(offered) {
                continue;
            }
            if let Some(answer) = answer_of(media, offered, protobuf) {
                return Ok(answer);
            }
        }
    }
    Err(not_acceptable())
}

/// Whether an error's `Status` goes out in protobuf: the API server writes a failure with
/// `responsewriters.ErrorNegotiated`, which negotiates like an object
/// (`WriteObjectNegotiated`) with the default restrictions (no `as=` conversion, a `stream`
/// only of `watch`) over serializers that all offer protobuf (`Status` has a message,
/// whatever the resource), so the first range the server can answer decides; when none
/// can, the error is written in JSON anyway (`WriteRawJSON`), never refused with 406.
#[cfg(feature = "protobuf")]
pub(crate) fn error_in_protobuf(parts: &http::request::Parts) -> bool {
    if accept_header(parts).trim().is_empty() {
        return false;
    }
    for media in &accepted(parts) {
        let converts = ["as", "g", "v"].iter().any(|k| media.param(k).is_some());
        let streams = media
            .param("stream")
            .is_some_and(|s| !s.is_empty() && s != "watch");
        if converts || streams {
            continue;
        }
        if let Some(offered) = OFFERED.iter().find(|offered| media.matches(offered)) {
            return *offered == PROTOBUF;
        }
    }
    false
}

/// What a discovery request (`/api`, `/apis`) asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Discovery {
    /// The plain documents (`APIVersions`, `APIGroupList`).
    Plain,
    /// The aggregated `apidiscovery.k8s.io/v2` `APIGroupDiscoveryList`, in JSON or (with
    /// the `protobuf` feature) in protobuf.
    Aggregated {
        /// In protobuf rather than JSON.
        protobuf: bool,
    },
}

/// The aggregated discovery profile's parameters, as the answer's `Content-Type` names
/// them after its media type (`responsewriters.WriteObjectNegotiated` with the
/// group-version-kind in the content type).
pub(crate) const AGGREGATED_V2: &str = ";g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// Whether a discovery request gets the aggregated document, and in which encoding: the
/// API server's `WrappedHandler` hands it to the aggregated handler when a range of the
/// `Accept` asks for `apidiscovery.k8s.io/v2` `APIGroupDiscoveryList` (its restrictions
/// pass over every range that does not, plain ones included), which answers in the first
/// such range's encoding. `v2beta1` is no longer served (the
/// `AggregatedDiscoveryRemoveBetaType` gate is locked on since 1.35), so such a range
/// falls through to the plain documents like any other.
pub(crate) fn discovery(parts: &http::request::Parts) -> Discovery {
    if accept_header(parts).trim().is_empty() {
        return Discovery::Plain;
    }
    for media in &accepted(parts) {
        let aggregated = media.param("g") == Some("apidiscovery.k8s.io")
            && media.param("v") == Some("v2")
            && media.param("as") == Some("APIGroupDiscoveryList")
            && media
                .param("stream")
                .is_none_or(|s| s.is_empty() || s == "watch");
        if !aggregated {
            continue;
        }
        for offered in OFFERED {
            if !media.matches(offered) {
                continue;
            }
            match offered {
                JSON => return Discovery::Aggregated { protobuf: false },
                PROTOBUF if cfg!(feature = "protobuf") => {
                    return Discovery::Aggregated { protobuf: true };
                }
                _ => {}
            }
        }
    }
    Discovery::Plain
}

/// Whether a plain discovery document may answer: some range of the `Accept` asks for no
/// conversion (the API server's discovery handlers negotiate with the default
/// restrictions, which refuse every `as=`); it is written in JSON whatever the range.
pub(crate) fn accepts_plain(parts: &http::request::Parts) -> bool {
    accept_header(parts).trim().is_empty()
        || accepted(parts).iter().any(|media| {
            ["as", "g", "v"].iter().all(|k| media.param(k).is_none())
                && OFFERED.iter().any(|offered| media.matches(offered))
        })
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
    use super::{Answer, Discovery, Partial, discovery, negotiate};

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
        assert_eq!(
            refused.message,
            "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
        );
    }

    #[test]
    fn metadata_is_asked_for_in_any_encoding() {
        let kube_rs = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
        let json = |partial, version| Answer::Metadata {
            partial,
            version,
            protobuf: false,
        };
        assert_eq!(
            negotiate(&parts(kube_rs), false),
            Ok(json(Partial::Object, "v1"))
        );
        let list = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1";
        assert_eq!(
            negotiate(&parts(list), true),
            Ok(json(Partial::List, "v1beta1"))
        );
        // client-go's metadata client: protobuf first, JSON as the fallback.
        let client_go = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
        assert_eq!(
            negotiate(&parts(client_go), false),
            Ok(Answer::Metadata {
                partial: Partial::List,
                version: "v1",
                protobuf: cfg!(feature = "protobuf"),
            })
        );
        // Another group or version is passed over, to the next range or to 406.
        let other = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2";
        assert_eq!(negotiate(&parts(other), true).unwrap_err().code, 406);
        let fallback = format!("{other},application/json");
        assert_eq!(negotiate(&parts(&fallback), true), Ok(Answer::Json));
        // A Table is JSON only.
        let table = "application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1";
        assert_eq!(negotiate(&parts(table), true).unwrap_err().code, 406);
    }

    #[test]
    fn aggregated_discovery_is_asked_for_with_v2() {
        let kubectl = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
        let json = Discovery::Aggregated { protobuf: false };
        assert_eq!(discovery(&parts(kubectl)), json);
        // Any range asking for it wins, even after a plain one.
        let late =
            "application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
        assert_eq!(discovery(&parts(late)), json);
        // client-go with protobuf: the first aggregated range's encoding.
        let client_go = "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
        assert_eq!(
            discovery(&parts(client_go)),
            Discovery::Aggregated {
                protobuf: cfg!(feature = "protobuf")
            }
        );
        let beta = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
        assert_eq!(discovery(&parts(beta)), Discovery::Plain);
        assert!(!super::accepts_plain(&parts(beta)));
        assert!(super::accepts_plain(&parts("")));
        assert_eq!(discovery(&parts("application/json")), Discovery::Plain);
        assert_eq!(discovery(&parts("")), Discovery::Plain);
    }
}
