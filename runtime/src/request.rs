//! Building requests, sans-io: generated request functions assemble an
//! [`http::Request<Vec<u8>>`](http::Request) from a path template, percent-encoded path
//! segments, a query string and a body, and any HTTP client can send it.
//!
//! Path parameters are encoded so that they always stay one path segment: every byte except
//! the unreserved `A-Z a-z 0-9 - . _ ~` is percent-encoded, so a `/`, `?`, `%`, `#` or space in a
//! name can never change the path, and empty, `.` and `..` values are refused. Query values
//! are encoded the same way (a space is `%20`), and are only written when set.

use std::fmt;

use http::{Method, Request, header};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Serialize;

/// Every byte except RFC 3986's unreserved characters is encoded, in path segments and in
/// query names and values alike.
const ENCODED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The media type of JSON bodies and of the responses requested.
pub const JSON: &str = "application/json";

/// A request path with its query string, built piece by piece.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathAndQuery {
    text: String,
    has_query: bool,
}

impl PathAndQuery {
    /// Starts with the constant beginning of a path template, e.g. `/api/v1/namespaces/`.
    pub fn new(literal: &str) -> Self {
        PathAndQuery {
            text: literal.to_owned(),
            has_query: false,
        }
    }

    /// Appends a constant part of the path template, as it is.
    pub fn push_literal(&mut self, literal: &str) {
        self.text.push_str(literal);
    }

    /// Appends the value of the path parameter `name` as one percent-encoded segment.
    ///
    /// # Errors
    ///
    /// [`RequestError::InvalidPathParam`] when the value is empty, `.` or `..`, which no
    /// encoding can keep from changing the path.
    pub fn push_segment(&mut self, name: &'static str, value: &str) -> Result<(), RequestError> {
        let reason = match value {
            "" => Some("it is empty"),
            "." | ".." => Some("`.` and `..` are not names"),
            _ => None,
        };
        if let Some(reason) = reason {
            return Err(RequestError::InvalidPathParam {
                name,
                value: value.to_owned(),
                reason,
            });
        }
        self.text.extend(utf8_percent_encode(value, ENCODED));
        Ok(())
    }

    /// Appends `name=value` to the query string, both percent-encoded.
    pub fn push_query<V: QueryValue + ?Sized>(&mut self, name: &str, value: &V) {
        value.append_to(name, self);
    }

    /// Appends `name=value` when the value is set.
    pub fn push_optional_query<V: QueryValue + ?Sized>(&mut self, name: &str, value: Option<&V>) {
        if let Some(value) = value {
            value.append_to(name, self);
        }
    }

    /// Appends every set parameter of a query struct.
    pub fn push_params<Q: QueryParams + ?Sized>(&mut self, params: &Q) {
        params.append_to(self);
    }

    /// Appends one `name=value` pair whose value is already text.
    pub fn push_pair(&mut self, name: &str, value: &str) {
        self.text.push(if self.has_query { '&' } else { '?' });
        self.has_query = true;
        self.text.extend(utf8_percent_encode(name, ENCODED));
        self.text.push('=');
        self.text.extend(utf8_percent_encode(value, ENCODED));
    }

    /// The path and query as built so far.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for PathAndQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A value that can be written into a query string.
pub trait QueryValue {
    /// Appends `name=value` (or, for lists, one pair per item) to `target`.
    fn append_to(&self, name: &str, target: &mut PathAndQuery);
}

impl QueryValue for str {
    fn append_to(&self, name: &str, target: &mut PathAndQuery) {
        target.push_pair(name, self);
    }
}

impl QueryValue for String {
    fn append_to(&self, name: &str, target: &mut PathAndQuery) {
        target.push_pair(name, self);
    }
}

impl QueryValue for bool {
    fn append_to(&self, name: &str, target: &mut PathAndQuery) {
        target.push_pair(name, if *self { "true" } else { "false" });
    }
}

impl QueryValue for i32 {
    fn append_to(&self, name: &str, target: &mut PathAndQuery) {
        target.push_pair(name, &self.to_string());
    }
}

impl QueryValue for i64 {
    fn append_to(&self, name: &str, target: &mut PathAndQuery) {
        target.push_pair(name, &self.to_string());
    }
}

impl QueryValue for f64 {
    fn append_to(&self, name: &str, target: &mut PathAndQuery) {
        target.push_pair(name, &self.to_string());
    }
}

/// A list is written as the name repeated once per item: `dryRun=All&dryRun=x`.
impl<T: QueryValue> QueryValue for [T] {
    fn append_to(&self, name: &str, target: &mut PathAndQuery) {
        for item in self {
            item.append_to(name, target);
        }
    }
}

impl<T: QueryValue + ?Sized> QueryValue for &T {
    fn append_to(&self, name: &str, target: &mut PathAndQuery) {
        (**self).append_to(name, target);
    }
}

impl<T: QueryValue> QueryValue for Vec<T> {
    fn append_to(&self, name: &str, target: &mut PathAndQuery) {
        self.as_slice().append_to(name, target);
    }
}

/// A struct of query parameters (generated per operation) that writes the ones that are set.
pub trait QueryParams {
    /// Appends every set parameter to `target`, in name order.
    fn append_to(&self, target: &mut PathAndQuery);
}

/// No query parameters: the query of an operation that has none.
impl QueryParams for () {
    fn append_to(&self, _target: &mut PathAndQuery) {}
}

/// Parameters an operation always sends (`watch=true` on a list's watch, the required
/// parameters of an operation), written before those of its query struct.
pub struct With<'a>(
    /// The pairs, written in order.
    pub &'a [(&'a str, &'a dyn QueryValue)],
    /// The operation's query struct.
    pub &'a dyn QueryParams,
);

impl QueryParams for With<'_> {
    fn append_to(&self, target: &mut PathAndQuery) {
        for (name, value) in self.0 {
            value.append_to(name, target);
        }
        self.1.append_to(target);
    }
}

/// A serialized request body and its content type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Body {
    content_type: &'static str,
    bytes: Vec<u8>,
}

impl Body {
    /// `value` as JSON.
    ///
    /// # Errors
    ///
    /// [`RequestError::Body`] when `value` cannot be serialized.
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<Body, RequestError> {
        serde_json::to_vec(value)
            .map(|bytes| Body {
                content_type: JSON,
                bytes,
            })
            .map_err(RequestError::Body)
    }

    /// The content type.
    pub fn content_type(&self) -> &'static str {
        self.content_type
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// The body of a PATCH request; the variant chooses the content type.
#[derive(Clone, Debug, PartialEq)]
pub enum Patch {
    /// A JSON Patch (RFC 6902), a list of operations: `application/json-patch+json`.
    Json(serde_json::Value),
    /// A JSON Merge Patch (RFC 7386): `application/merge-patch+json`.
    Merge(serde_json::Value),
    /// A Kubernetes strategic merge patch: `application/strategic-merge-patch+json`.
    StrategicMerge(serde_json::Value),
    /// A server-side apply configuration: `application/apply-patch+yaml`, sent as JSON
    /// (which is YAML). The request's `fieldManager` query parameter is required.
    Apply(serde_json::Value),
}

impl Patch {
    /// An apply patch from any serializable object, e.g. a partly filled resource.
    ///
    /// # Errors
    ///
    /// [`RequestError::Body`] when `value` cannot be serialized.
    pub fn apply<T: Serialize + ?Sized>(value: &T) -> Result<Patch, RequestError> {
        serde_json::to_value(value)
            .map(Patch::Apply)
            .map_err(RequestError::Body)
    }

    /// The content type this patch is sent with.
    pub fn content_type(&self) -> &'static str {
        match self {
            Patch::Json(_) => "application/json-patch+json",
            Patch::Merge(_) => "application/merge-patch+json",
            Patch::StrategicMerge(_) => "application/strategic-merge-patch+json",
            Patch::Apply(_) => "application/apply-patch+yaml",
        }
    }

    /// The body, when the operation accepts this kind of patch.
    ///
    /// # Errors
    ///
    /// [`RequestError::UnsupportedPatch`] when `accepted` does not list the patch's content
    /// type, [`RequestError::Body`] when it cannot be serialized.
    pub fn to_body(&self, accepted: &'static [&'static str]) -> Result<Body, RequestError> {
        let content_type = self.content_type();
        if !accepted.contains(&content_type) {
            return Err(RequestError::UnsupportedPatch {
                content_type,
                accepted,
            });
        }
        let (Patch::Json(value)
        | Patch::Merge(value)
        | Patch::StrategicMerge(value)
        | Patch::Apply(value)) = self;
        serde_json::to_vec(value)
            .map(|bytes| Body {
                content_type,
                bytes,
            })
            .map_err(RequestError::Body)
    }
}

impl PathAndQuery {
    /// The path of `template` (`/api/v1/namespaces/{namespace}/pods/{name}`) with each
    /// `{parameter}` replaced by the next of `values`, as one percent-encoded segment.
    ///
    /// # Errors
    ///
    /// [`RequestError::InvalidPathParam`], naming the parameter, when a value is empty, `.`
    /// or `..` (or missing).
    pub fn from_template(template: &'static str, values: &[&str]) -> Result<Self, RequestError> {
        let mut target = PathAndQuery {
            text: String::with_capacity(template.len() + 16),
            has_query: false,
        };
        let mut values = values.iter();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}').map(|close| open + close) else {
                break;
            };
            target.push_literal(&rest[..open]);
            target.push_segment(&rest[open + 1..close], values.next().copied().unwrap_or(""))?;
            rest = &rest[close + 1..];
        }
        target.push_literal(rest);
        Ok(target)
    }
}

/// The one request every generated request function makes: the path of `template` filled
/// with the path parameters' `values` (in the template's order), then `query`'s parameters,
/// the media type asked for, and the body.
///
/// The values come by value (`[namespace, name]`, `[]`), not as a slice: a borrowed `&[]`
/// in a generated function is promoted to a constant, a MIR body of its own that rustc
/// builds, checks and keeps for each of the crate's request functions.
///
/// # Errors
///
/// [`RequestError::InvalidPathParam`] when a path parameter is empty, `.` or `..`; then the
/// body's error ([`RequestError::Body`], [`RequestError::UnsupportedPatch`]).
#[inline]
pub fn send<const N: usize>(
    method: Method,
    template: &'static str,
    values: [&str; N],
    query: &dyn QueryParams,
    accept: Option<&'static str>,
    body: Result<Option<Body>, RequestError>,
) -> Result<Request<Vec<u8>>, RequestError> {
    send_values(method, template, &values, query, accept, body)
}

/// [`send`] with the values as a slice: compiled once, here.
fn send_values(
    method: Method,
    template: &'static str,
    values: &[&str],
    query: &dyn QueryParams,
    accept: Option<&'static str>,
    body: Result<Option<Body>, RequestError>,
) -> Result<Request<Vec<u8>>, RequestError> {
    let mut target = PathAndQuery::from_template(template, values)?;
    query.append_to(&mut target);
    build(method, target, accept, body?)
}

/// Assembles the request. `accept` is the media type asked for (JSON for every operation
/// whose responses are JSON), `body` the serialized body, if any.
///
/// # Errors
///
/// [`RequestError::Http`] when `http` refuses the parts; with paths built by
/// [`PathAndQuery`] this does not happen.
pub fn build(
    method: Method,
    target: PathAndQuery,
    accept: Option<&'static str>,
    body: Option<Body>,
) -> Result<Request<Vec<u8>>, RequestError> {
    let mut builder = Request::builder().method(method).uri(target.text);
    if let Some(accept) = accept {
        builder = builder.header(header::ACCEPT, accept);
    }
    let bytes = match body {
        Some(body) => {
            builder = builder.header(header::CONTENT_TYPE, body.content_type);
            body.bytes
        }
        None => Vec::new(),
    };
    builder.body(bytes).map_err(RequestError::Http)
}

/// Why a request could not be built.
#[derive(Debug)]
#[non_exhaustive]
pub enum RequestError {
    /// A path parameter's value cannot be a path segment.
    InvalidPathParam {
        /// The parameter, e.g. `name`.
        name: &'static str,
        /// The value given.
        value: String,
        /// Why it was refused.
        reason: &'static str,
    },
    /// The operation does not accept this kind of patch.
    UnsupportedPatch {
        /// The patch's content type.
        content_type: &'static str,
        /// The content types the operation accepts.
        accepted: &'static [&'static str],
    },
    /// The body could not be serialized.
    Body(serde_json::Error),
    /// `http` refused the request's parts.
    Http(http::Error),
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::InvalidPathParam {
                name,
                value,
                reason,
            } => write!(
                f,
                "invalid value {value:?} for the path parameter `{name}`: {reason}"
            ),
            RequestError::UnsupportedPatch {
                content_type,
                accepted,
            } => write!(
                f,
                "this operation does not accept {content_type} patches (it accepts {})",
                accepted.join(", ")
            ),
            RequestError::Body(e) => write!(f, "cannot serialize the request body: {e}"),
            RequestError::Http(e) => write!(f, "cannot build the request: {e}"),
        }
    }
}

impl std::error::Error for RequestError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RequestError::Body(e) => Some(e),
            RequestError::Http(e) => Some(e),
            _ => None,
        }
    }
}
