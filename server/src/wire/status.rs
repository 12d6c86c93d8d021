//! Failures as the API server reports them: a `meta/v1.Status` with a code, a reason and a
//! message (API conventions, "Response Status Kind").

use serde_json::{Map, Value, json};

/// A failed request: what becomes a `Status` body with its HTTP code.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The HTTP status code.
    pub code: u16,
    /// The machine-readable reason (`NotFound`, `Conflict`, `Invalid`, …).
    pub reason: &'static str,
    /// What went wrong, for people.
    pub message: String,
    /// `details`: the object's name, group and kind, when there is one.
    pub details: Option<Value>,
}

impl Failure {
    fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            code,
            reason,
            message: message.into(),
            details: None,
        }
    }

    /// 400 BadRequest: a body that is no JSON, a namespace that does not match the path.
    pub fn bad_request(message: impl Into<String>) -> Failure {
        Failure::new(400, "BadRequest", message)
    }

    /// 404 NotFound for an object.
    pub fn not_found(group: &str, plural: &str, name: &str) -> Failure {
        let resource = qualified(group, plural);
        Failure::new(404, "NotFound", format!("{resource} \"{name}\" not found"))
            .with_details(name, group, plural)
    }

    /// 404 NotFound for a path nothing serves.
    pub fn no_route(path: &str) -> Failure {
        Failure::new(
            404,
            "NotFound",
            format!("the server could not find the requested resource ({path})"),
        )
    }

    /// 405 MethodNotAllowed.
    pub fn method_not_allowed(method: &str, what: &str) -> Failure {
        Failure::new(
            405,
            "MethodNotAllowed",
            format!(
                "the server does not allow this method on the requested resource ({method} {what})"
            ),
        )
    }

    /// 403 Forbidden for an object (`<resource> "<name>" is forbidden: <why>`), as admission
    /// refuses a request.
    pub fn forbidden(group: &str, plural: &str, name: &str, why: &str) -> Failure {
        let resource = qualified(group, plural);
        Failure::new(
            403,
            "Forbidden",
            format!("{resource} \"{name}\" is forbidden: {why}"),
        )
        .with_details(name, group, plural)
    }

    /// 403 Forbidden as the authorization filter answers (`apierrors.NewForbidden`): for a
    /// path, `forbidden: <why>`; for a collection, `<resource> is forbidden: <why>`; for an
    /// object, `<resource> "<name>" is forbidden: <why>`.
    pub fn forbidden_request(group: &str, plural: &str, name: &str, why: &str) -> Failure {
        let resource = qualified(group, plural);
        let message = if plural.is_empty() {
            format!("forbidden: {why}")
        } else if name.is_empty() {
            format!("{resource} is forbidden: {why}")
        } else {
            format!("{resource} \"{name}\" is forbidden: {why}")
        };
        Failure::new(403, "Forbidden", message).with_details(name, group, plural)
    }

    /// 401 Unauthorized: credentials that no authenticator accepts.
    pub fn unauthorized() -> Failure {
        Failure::new(401, "Unauthorized", "Unauthorized")
    }

    /// Adds a cause (`reason`, `message`, `field`) to the details.
    #[must_use]
    pub fn with_cause(mut self, reason: &str, message: &str, field: &str) -> Failure {
        let details = self.details.get_or_insert_with(|| json!({}));
        let cause = json!({"reason": reason, "message": message, "field": field});
        match details.get_mut("causes").and_then(Value::as_array_mut) {
            Some(causes) => causes.push(cause),
            None => details["causes"] = json!([cause]),
        }
        self
    }

    /// 409 AlreadyExists.
    pub fn already_exists(group: &str, plural: &str, name: &str) -> Failure {
        let resource = qualified(group, plural);
        Failure::new(
            409,
            "AlreadyExists",
            format!("{resource} \"{name}\" already exists"),
        )
        .with_details(name, group, plural)
    }

    /// 409 Conflict: a stale `resourceVersion` or a failed precondition.
    pub fn conflict(group: &str, plural: &str, name: &str, why: &str) -> Failure {
        let resource = qualified(group, plural);
        Failure::new(
            409,
            "Conflict",
            format!("Operation cannot be fulfilled on {resource} \"{name}\": {why}"),
        )
        .with_details(name, group, plural)
    }

    /// 410 Expired/Gone: a resource version or continue token older than the history kept.
    pub fn gone(message: impl Into<String>) -> Failure {
        Failure::new(410, "Expired", message)
    }

    /// 406 NotAcceptable: no media type in `Accept` can be served.
    pub fn not_acceptable(message: impl Into<String>) -> Failure {
        Failure::new(406, "NotAcceptable", message)
    }

    /// 504 Timeout: a resource version the server has not reached.
    pub fn timeout(message: impl Into<String>) -> Failure {
        Failure::new(504, "Timeout", message)
    }

    /// 413 RequestEntityTooLarge.
    pub fn too_large(limit: usize) -> Failure {
        Failure::new(
            413,
            "RequestEntityTooLarge",
            // `handlers/rest.go`, `limitedReadBody`, through `NewRequestEntityTooLargeError`.
            format!("Request entity too large: limit is {limit}"),
        )
    }

    /// 415 UnsupportedMediaType.
    pub fn unsupported_media_type(message: impl Into<String>) -> Failure {
        Failure::new(415, "UnsupportedMediaType", message)
    }

    /// 422 Invalid: a body that does not decode into the resource's type, or of another kind.
    pub fn invalid(kind: &str, name: &str, message: impl Into<String>) -> Failure {
        let message = message.into();
        Failure::new(
            422,
            "Invalid",
            format!("{kind} \"{name}\" is invalid: {message}"),
        )
        .with_details_kind(name, kind)
    }

    /// 422 Invalid with a cause per field error, as `NewInvalid` writes it: the message
    /// `Kind.group "name" is invalid: <the errors>` (`Kind` alone for the core group, and
    /// the errors' aggregate: one alone, several as `[a, b]`), and `details` with the name,
    /// group and kind (each left out when empty) and the causes (`reason`, `message`,
    /// `field`).
    pub(crate) fn invalid_fields(
        group: &str,
        kind: &str,
        name: &str,
        errors: Vec<kubeforge_runtime::schema::FieldError>,
    ) -> Failure {
        let errors = kubeforge_runtime::schema::Errors(errors);
        let mut details = serde_json::Map::new();
        for (key, value) in [("name", name), ("group", group), ("kind", kind)] {
            if !value.is_empty() {
                details.insert(key.into(), Value::from(value));
            }
        }
        let causes: Vec<Value> = errors
            .as_slice()
            .iter()
            .map(|e| json!({"reason": e.reason(), "message": e.body(), "field": e.field}))
            .collect();
        details.insert("causes".into(), Value::Array(causes));
        Failure {
            code: 422,
            reason: "Invalid",
            message: errors.status_message(group, kind, name),
            details: Some(Value::Object(details)),
        }
    }

    /// 500 InternalError.
    pub fn internal(message: impl Into<String>) -> Failure {
        Failure::new(500, "InternalError", message)
    }

    /// `StatusDetails`, whose fields are `omitempty`: the core group is left out.
    fn with_details(mut self, name: &str, group: &str, plural: &str) -> Failure {
        let mut details = serde_json::Map::new();
        for (key, value) in [("name", name), ("group", group), ("kind", plural)] {
            if !value.is_empty() {
                details.insert(key.into(), Value::from(value));
            }
        }
        self.details = Some(Value::Object(details));
        self
    }

    fn with_details_kind(mut self, name: &str, kind: &str) -> Failure {
        self.details = Some(json!({"name": name, "kind": kind}));
        self
    }

    /// The `Status` object, as Go's encoder writes a `metav1.Status`: its fields in the
    /// struct's order (`kind`, `apiVersion`, `metadata`, `status`, `message`, `reason`,
    /// `details`, `code`), each `omitempty` one left out when empty (an error the server did
    /// not classify has no reason: Go's `StatusReasonUnknown` is `""`).
    pub fn to_status(&self) -> Value {
        let mut status = Map::new();
        status.insert("kind".into(), Value::from("Status"));
        status.insert("apiVersion".into(), Value::from("v1"));
        status.insert("metadata".into(), json!({}));
        status.insert("status".into(), Value::from("Failure"));
        put_str(&mut status, "message", &self.message);
        put_str(&mut status, "reason", self.reason);
        if let Some(details) = self.details.as_ref().map(go_details) {
            status.insert("details".into(), details);
        }
        status.insert("code".into(), Value::from(self.code));
        Value::Object(status)
    }
}

/// A `Status` of success, as a delete of an object that is gone answers (the generic
/// registry's `finalizeDelete`: `details` with the name, the group, the resource as `kind`
/// and the uid; no message, reason or code).
pub fn success(group: &str, plural: &str, name: &str, uid: Option<&str>) -> Value {
    let details = json!({"name": name, "group": group, "kind": plural, "uid": uid.unwrap_or("")});
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": go_details(&details),
    })
}

/// `metav1.StatusDetails` as Go writes it: `name`, `group`, `kind`, `uid`, `causes`,
/// `retryAfterSeconds`, in that order, each left out when empty (all are `omitempty`), and
/// each cause as `reason`, `message`, `field`, likewise.
fn go_details(details: &Value) -> Value {
    let mut out = Map::new();
    for key in ["name", "group", "kind", "uid"] {
        put_str(
            &mut out,
            key,
            details.get(key).and_then(Value::as_str).unwrap_or(""),
        );
    }
    let causes: Vec<Value> = details
        .get("causes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|cause| {
            let mut out = Map::new();
            for key in ["reason", "message", "field"] {
                put_str(
                    &mut out,
                    key,
                    cause.get(key).and_then(Value::as_str).unwrap_or(""),
                );
            }
            Value::Object(out)
        })
        .collect();
    if !causes.is_empty() {
        out.insert("causes".into(), Value::Array(causes));
    }
    if let Some(seconds) = details
        .get("retryAfterSeconds")
        .and_then(Value::as_i64)
        .filter(|s| *s != 0)
    {
        out.insert("retryAfterSeconds".into(), Value::from(seconds));
    }
    Value::Object(out)
}

/// An `omitempty` string: written only when not empty.
fn put_str(map: &mut Map<String, Value>, key: &str, value: &str) {
    if !value.is_empty() {
        map.insert(key.into(), Value::from(value));
    }
}

fn qualified(group: &str, plural: &str) -> String {
    if group.is_empty() {
        plural.to_owned()
    } else {
        format!("{plural}.{group}")
    }
}
