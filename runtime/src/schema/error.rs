//! Field errors in the API server's form: apimachinery's `field.Error` (its `Error()` text,
//! its `Type` as the `reason` of a `details.causes` entry) and the aggregate of a list of
//! them, as `NewInvalid` writes it into a 422 `Status`.

use std::fmt;

use serde_json::Value;

use super::gofmt;

/// `field.ErrorType`: why a field is refused. [`ErrorType::reason`] is the `reason` of a
/// `Status` cause; [`ErrorType::as_str`] the words of the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorType {
    /// `FieldValueNotFound`.
    NotFound,
    /// `FieldValueRequired`: "Required value".
    Required,
    /// `FieldValueDuplicate`: "Duplicate value".
    Duplicate,
    /// `FieldValueInvalid`: "Invalid value".
    Invalid,
    /// `FieldValueNotSupported`: "Unsupported value".
    NotSupported,
    /// `FieldValueForbidden`: "Forbidden".
    Forbidden,
    /// `FieldValueTooLong`: "Too long".
    TooLong,
    /// `FieldValueTooMany`: "Too many".
    TooMany,
    /// `FieldValueTooFew`: "Too few".
    TooFew,
    /// `InternalError`: "Internal error".
    Internal,
    /// `FieldValueTypeInvalid`: "Invalid value" (the value is not of the schema's type).
    TypeInvalid,
    /// `FieldValueTooShort`: "Too short".
    TooShort,
}

impl ErrorType {
    /// The cause type of a `Status` (`FieldValueInvalid`, …).
    #[must_use]
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::TooFew => "FieldValueTooFew",
            ErrorType::Internal => "InternalError",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
            ErrorType::TooShort => "FieldValueTooShort",
        }
    }

    /// The words of the message (`ErrorType.String()`): "Invalid value", "Required value", …
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorType::NotFound => "Not found",
            ErrorType::Required => "Required value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::TooFew => "Too few",
            ErrorType::Internal => "Internal error",
            ErrorType::TooShort => "Too short",
        }
    }

    /// Whether the message shows the bad value (`Invalid value: "x"`); the others show
    /// the words alone (`Required value`).
    fn shows_value(self) -> bool {
        !matches!(
            self,
            ErrorType::Required
                | ErrorType::Forbidden
                | ErrorType::TooLong
                | ErrorType::TooShort
                | ErrorType::Internal
        )
    }
}

/// The value an error shows, printed as apimachinery prints the Go value it would hold.
#[derive(Clone, Debug, PartialEq)]
pub enum BadValue {
    /// Not shown (`field.OmitValueType`): `"Invalid value: <detail>"`.
    Omitted,
    /// A Go string: `"text"`, quoted as `%q`.
    String(String),
    /// A Go `int64`: `5`.
    Int(i64),
    /// A Go `float64`: `%v` (`1.5`, `1e+06`).
    Float(f64),
    /// A Go `bool`: `true`.
    Bool(bool),
    /// A value decoded from JSON, printed as `ErrorBody` prints the Go value it decodes
    /// to: `nil` as `"null"`, a string quoted, a number or boolean plain, a map or slice
    /// with `%#v` (`map[string]interface {}{"name":"a"}`).
    Json(Value),
}

impl BadValue {
    /// The bad value for a JSON value as Go decodes it (`int64`, `float64`, `string`,
    /// `bool`, maps and slices).
    #[must_use]
    pub fn of(value: &Value) -> BadValue {
        match value {
            Value::String(s) => BadValue::String(s.clone()),
            Value::Bool(b) => BadValue::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => BadValue::Int(i),
                #[allow(clippy::cast_precision_loss)] // Go decodes them as float64 too
                None => BadValue::Float(n.as_f64().unwrap_or(0.0)),
            },
            other => BadValue::Json(other.clone()),
        }
    }

    /// The text after "Invalid value: ", `None` when omitted.
    fn render(&self) -> Option<String> {
        match self {
            BadValue::Omitted => None,
            BadValue::String(s) => Some(gofmt::quote(s)),
            BadValue::Int(i) => Some(i.to_string()),
            BadValue::Float(f) => Some(gofmt::float(*f)),
            BadValue::Bool(b) => Some(b.to_string()),
            BadValue::Json(v) => Some(match v {
                Value::Null => gofmt::quote("null"),
                Value::String(s) => gofmt::quote(s),
                Value::Number(n) => match n.as_i64() {
                    Some(i) => i.to_string(),
                    None => gofmt::float(n.as_f64().unwrap_or(0.0)),
                },
                other => gofmt::go_syntax(other),
            }),
        }
    }
}

impl From<&str> for BadValue {
    fn from(s: &str) -> Self {
        BadValue::String(s.to_owned())
    }
}

/// One refused field, as apimachinery's `field.Error`: its `Display` is `Error()`
/// (`spec.replicas: Invalid value: -1: must be greater than or equal to 0`).
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// The field path as the API server writes it (`spec.rules[0].matches[0].method`;
    /// `<nil>` for an error about the whole object).
    pub field: String,
    /// Why.
    pub error_type: ErrorType,
    /// The value shown.
    pub bad_value: BadValue,
    /// The detail after the value (may be empty).
    pub detail: String,
}

impl FieldError {
    /// An error of any type.
    #[must_use]
    pub fn new(
        field: impl Into<String>,
        error_type: ErrorType,
        bad_value: BadValue,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            field: field.into(),
            error_type,
            bad_value,
            detail: detail.into(),
        }
    }

    /// `field.Invalid`.
    #[must_use]
    pub fn invalid(field: impl Into<String>, value: BadValue, detail: impl Into<String>) -> Self {
        Self::new(field, ErrorType::Invalid, value, detail)
    }

    /// `field.Required`.
    #[must_use]
    pub fn required(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(field, ErrorType::Required, BadValue::from(""), detail)
    }

    /// `field.Forbidden`.
    #[must_use]
    pub fn forbidden(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(field, ErrorType::Forbidden, BadValue::from(""), detail)
    }

    /// `field.Duplicate`.
    #[must_use]
    pub fn duplicate(field: impl Into<String>, value: BadValue) -> Self {
        Self::new(field, ErrorType::Duplicate, value, "")
    }

    /// `field.NotSupported`: `supported values: "a", "b"`.
    #[must_use]
    pub fn not_supported(field: impl Into<String>, value: BadValue, supported: &[String]) -> Self {
        let detail = if supported.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = supported.iter().map(|s| gofmt::quote(s)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(field, ErrorType::NotSupported, value, detail)
    }

    /// `field.TooLong` (bytes): `may not be more than 5 bytes`.
    #[must_use]
    pub fn too_long(field: impl Into<String>, max: Option<u64>) -> Self {
        let detail = match max {
            Some(1) => "may not be more than 1 byte".to_owned(),
            Some(n) => format!("may not be more than {n} bytes"),
            None => "value is too long".to_owned(),
        };
        Self::new(
            field,
            ErrorType::TooLong,
            BadValue::from("<value omitted>"),
            detail,
        )
    }

    /// `field.TooMany`: `must have at most 3 items`.
    #[must_use]
    pub fn too_many(field: impl Into<String>, actual: Option<u64>, max: Option<u64>) -> Self {
        let detail = match max {
            Some(1) => "must have at most 1 item".to_owned(),
            Some(n) => format!("must have at most {n} items"),
            None => "has too many items".to_owned(),
        };
        let value = match actual.and_then(|a| i64::try_from(a).ok()) {
            Some(a) => BadValue::Int(a),
            None => BadValue::Omitted,
        };
        Self::new(field, ErrorType::TooMany, value, detail)
    }

    /// `field.TypeInvalid`.
    #[must_use]
    pub fn type_invalid(
        field: impl Into<String>,
        value: BadValue,
        detail: impl Into<String>,
    ) -> Self {
        Self::new(field, ErrorType::TypeInvalid, value, detail)
    }

    /// `field.InternalError`.
    #[must_use]
    pub fn internal(field: impl Into<String>, detail: impl Into<String>) -> Self {
        let detail = detail.into();
        Self::new(
            field,
            ErrorType::Internal,
            BadValue::String(detail.clone()),
            detail,
        )
    }

    /// The `reason` of its `details.causes` entry (`FieldValueInvalid`, …).
    #[must_use]
    pub fn reason(&self) -> &'static str {
        self.error_type.reason()
    }

    /// The message without the field (`ErrorBody()`), the `message` of its cause.
    #[must_use]
    pub fn body(&self) -> String {
        let mut s = self.error_type.as_str().to_owned();
        if self.error_type.shows_value()
            && let Some(value) = self.bad_value.render()
        {
            s.push_str(": ");
            s.push_str(&value);
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

impl std::error::Error for FieldError {}

/// All the errors of one validation, in order: apimachinery's `ErrorList`, whose
/// `Display` is its aggregate (`ToAggregate().Error()`): one error alone, several as
/// `[a, b]`, repeated messages once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Errors(pub Vec<FieldError>);

impl Errors {
    /// The errors.
    #[must_use]
    pub fn as_slice(&self) -> &[FieldError] {
        &self.0
    }

    /// Whether there is none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `Ok(())` when empty.
    ///
    /// # Errors
    /// Itself when it holds an error.
    pub fn into_result(self) -> Result<(), Errors> {
        if self.0.is_empty() { Ok(()) } else { Err(self) }
    }

    /// The `message` of the 422 `Status` the API server answers with (`NewInvalid`):
    /// `Widget.example.com "w1" is invalid: [spec.a: Required value, …]`. `group` is
    /// empty for the core group.
    #[must_use]
    pub fn status_message(&self, group: &str, kind: &str, name: &str) -> String {
        let qualified = if group.is_empty() {
            kind.to_owned()
        } else {
            format!("{kind}.{group}")
        };
        let name = gofmt::quote(name);
        if self.0.is_empty() {
            format!("{qualified} {name} is invalid")
        } else {
            format!("{qualified} {name} is invalid: {self}")
        }
    }
}

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut seen: Vec<String> = Vec::with_capacity(self.0.len());
        for error in &self.0 {
            let msg = error.to_string();
            if !seen.contains(&msg) {
                seen.push(msg);
            }
        }
        match seen.as_slice() {
            [] => Ok(()),
            [one] => f.write_str(one),
            many => write!(f, "[{}]", many.join(", ")),
        }
    }
}

impl std::error::Error for Errors {}

impl From<Vec<FieldError>> for Errors {
    fn from(errors: Vec<FieldError>) -> Self {
        Errors(errors)
    }
}

impl IntoIterator for Errors {
    type Item = FieldError;
    type IntoIter = std::vec::IntoIter<FieldError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// A field path being built while walking a value: `spec.rules[0]`, `spec.labels[key]`
/// (a map key, as `field.Path.Key` writes it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldPath(String);

impl FieldPath {
    /// The root (`<nil>` when an error is about it).
    #[must_use]
    pub fn root() -> Self {
        Self(String::new())
    }

    /// A path from its text (`status`).
    #[must_use]
    pub fn new(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    /// `.name` (no dot at the root).
    #[must_use]
    pub fn child(&self, name: &str) -> Self {
        if self.0.is_empty() {
            Self(name.to_owned())
        } else {
            Self(format!("{}.{name}", self.0))
        }
    }

    /// `[i]`.
    #[must_use]
    pub fn index(&self, i: usize) -> Self {
        Self(format!("{}[{i}]", self.0))
    }

    /// `[key]`, unquoted.
    #[must_use]
    pub fn key(&self, key: &str) -> Self {
        Self(format!("{}[{key}]", self.0))
    }

    /// The text; `<nil>` for the root, as apimachinery prints a nil path.
    #[must_use]
    pub fn render(&self) -> String {
        if self.0.is_empty() {
            "<nil>".to_owned()
        } else {
            self.0.clone()
        }
    }

    /// The text, empty at the root.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_are_apimachinery_field_errors() {
        let e = FieldError::not_supported(
            "spec.rules[0].matches[0].method",
            BadValue::from("NOTREAL"),
            &["GET".to_owned(), "POST".to_owned()],
        );
        assert_eq!(
            e.to_string(),
            r#"spec.rules[0].matches[0].method: Unsupported value: "NOTREAL": supported values: "GET", "POST""#
        );
        assert_eq!(e.reason(), "FieldValueNotSupported");
        assert_eq!(
            FieldError::required("spec", "").to_string(),
            "spec: Required value"
        );
        assert_eq!(
            FieldError::invalid("spec.x", BadValue::Omitted, "no").to_string(),
            "spec.x: Invalid value: no"
        );
        assert_eq!(
            FieldError::too_many("spec.l", Some(4), Some(3)).to_string(),
            "spec.l: Too many: 4: must have at most 3 items"
        );
        assert_eq!(
            FieldError::too_long("spec.s", Some(1)).to_string(),
            "spec.s: Too long: may not be more than 1 byte"
        );
        assert_eq!(
            FieldError::duplicate("spec.l[1]", BadValue::of(&json!({"name": "a"}))).to_string(),
            r#"spec.l[1]: Duplicate value: map[string]interface {}{"name":"a"}"#
        );
        assert_eq!(
            FieldError::invalid("<nil>", BadValue::Json(Value::Null), "x").to_string(),
            r#"<nil>: Invalid value: "null": x"#
        );
    }

    #[test]
    fn the_aggregate_lists_distinct_messages() {
        let a = FieldError::required("spec.a", "");
        let b = FieldError::required("spec.b", "");
        assert_eq!(
            Errors(vec![a.clone()]).to_string(),
            "spec.a: Required value"
        );
        assert_eq!(
            Errors(vec![a.clone(), b, a]).to_string(),
            "[spec.a: Required value, spec.b: Required value]"
        );
        assert_eq!(
            Errors(vec![FieldError::required("spec", "")]).status_message(
                "networking.istio.io",
                "ServiceEntry",
                "no-spec"
            ),
            r#"ServiceEntry.networking.istio.io "no-spec" is invalid: spec: Required value"#
        );
    }

    #[test]
    fn paths_render_as_field_path() {
        let p = FieldPath::root()
            .child("spec")
            .child("rules")
            .index(0)
            .key("a.b");
        assert_eq!(p.render(), "spec.rules[0][a.b]");
        assert_eq!(FieldPath::root().render(), "<nil>");
    }
}
