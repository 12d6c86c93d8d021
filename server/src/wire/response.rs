//! Responses as the API server writes them: a JSON body, plain text, a failure's `Status`,
//! and the `Warning` header.

use http::{HeaderValue, Response, StatusCode, header};
use serde_json::Value;

use crate::wire::body::Body;
use crate::wire::status::Failure;

/// A JSON body as the API server's serializer writes it: Go's `json.Encoder`, which ends
/// the value with a newline.
pub(crate) fn json_response(code: StatusCode, value: &Value) -> Response<Body> {
    let mut text = value.to_string();
    text.push('\n');
    let mut response = Response::new(Body::full(text));
    *response.status_mut() = code;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

pub(crate) fn text_response(text: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::full(text));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    response
}

/// A failure as the `Status` response a real server sends.
pub(crate) fn failure_response(failure: &Failure) -> Response<Body> {
    let code = StatusCode::from_u16(failure.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = json_response(code, &failure.to_status());
    // `ErrorNegotiated`: a suggested wait is also a `Retry-After` header.
    if let Some(seconds) = failure
        .details
        .as_ref()
        .and_then(|d| d.get("retryAfterSeconds"))
        .and_then(serde_json::Value::as_i64)
        .filter(|s| *s > 0)
        && let Ok(value) = http::HeaderValue::from_str(&seconds.to_string())
    {
        response
            .headers_mut()
            .insert(http::header::RETRY_AFTER, value);
    }
    response
}

/// A `Warning` header's value: code 299, no agent, the text quoted (`"` and `\` escaped),
/// as apimachinery's `NewWarningHeader` writes it.
pub(crate) fn warning_header(text: &str) -> String {
    let mut out = String::from("299 - \"");
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}
