//! What the kinds' rules share: reading a decoded object (an absent field reads as Go's
//! zero value), apimachinery's field checks (`ValidateDNS1123Label`,
//! `ValidateNonnegativeField`, `IsValidPortNum`, `IsValidPortName`, `ValidateImmutableField`,
//! `ValidateLabels`) and how Go's `%#v` prints the few typed values the API server shows in
//! its messages (a `LabelSelector`, an `IntOrString`, a `map[string]string`).

use kubeforge_runtime::schema::{BadValue, ErrorType, FieldError, gofmt, names};
use serde_json::{Map, Value};

pub(super) type Errors = Vec<FieldError>;

/// `null`, for an absent object.
pub(super) static NULL: Value = Value::Null;

/// The string at `key`, `""` when absent (Go's zero value).
pub(super) fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The string at `key`, `None` when absent or not a string.
pub(super) fn opt_text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The list at `key`, empty when absent.
pub(super) fn list<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The integer at `key`, `None` when absent.
pub(super) fn int(value: &Value, key: &str) -> Option<i64> {
    value.get(key).and_then(Value::as_i64)
}

/// The object at `key`, `None` when absent or `null`.
pub(super) fn object<'a>(value: &'a Value, key: &str) -> Option<&'a Map<String, Value>> {
    value.get(key).and_then(Value::as_object)
}

/// The value at `key`, `null` when absent.
pub(super) fn at<'a>(value: &'a Value, key: &str) -> &'a Value {
    value.get(key).unwrap_or(&NULL)
}

/// An error whose value Go prints with `%#v` from a typed value (`shown`), which the
/// runtime's `BadValue` cannot hold: the message reads the same (`<Type>: <shown>: <detail>`).
pub(super) fn shown(
    field: impl Into<String>,
    error_type: ErrorType,
    shown: &str,
    detail: &str,
) -> FieldError {
    let detail = if detail.is_empty() {
        shown.to_owned()
    } else {
        format!("{shown}: {detail}")
    };
    FieldError::new(field, error_type, BadValue::Omitted, detail)
}

/// `field.NotSupported` with Go's list of supported values, in Go's order.
pub(super) fn not_supported(
    field: impl Into<String>,
    value: &str,
    supported: &[&str],
) -> FieldError {
    let supported: Vec<String> = supported.iter().map(|s| (*s).to_owned()).collect();
    FieldError::not_supported(field, BadValue::from(value), &supported)
}

/// A string field that must be one of `supported` (`switch` in Go): `""` is `Required`;
/// an absent one was defaulted (or is checked by the schema), so passes.
pub(super) fn one_of(
    object: &Value,
    key: &str,
    path: &str,
    supported: &[&str],
    errors: &mut Errors,
) {
    match opt_text(object, key) {
        None => {}
        Some("") => errors.push(FieldError::required(format!("{path}.{key}"), "")),
        Some(value) if supported.contains(&value) => {}
        Some(value) => errors.push(not_supported(format!("{path}.{key}"), value, supported)),
    }
}

/// `ValidateDNS1123Label`.
pub(super) fn dns1123_label(value: &str, field: &str, errors: &mut Errors) {
    for message in names::is_dns1123_label(value) {
        errors.push(FieldError::invalid(field, BadValue::from(value), message));
    }
}

/// `ValidateDNS1123Subdomain` (and `NameIsDNSSubdomain` for a reference's name).
pub(super) fn dns1123_subdomain(value: &str, field: &str, errors: &mut Errors) {
    for message in names::is_dns1123_subdomain(value) {
        errors.push(FieldError::invalid(field, BadValue::from(value), message));
    }
}

/// `IsNegativeErrorMsg`.
pub(super) const NEGATIVE: &str = "must be greater than or equal to 0";

/// `ValidateNonnegativeField` on an integer field of `object`, when set.
pub(super) fn non_negative(object: &Value, key: &str, path: &str, errors: &mut Errors) {
    if let Some(value) = int(object, key).filter(|v| *v < 0) {
        errors.push(FieldError::invalid(
            format!("{path}.{key}"),
            BadValue::Int(value),
            NEGATIVE,
        ));
    }
}

/// `InclusiveRangeError`.
pub(super) fn inclusive_range(lo: i64, hi: i64) -> String {
    format!("must be between {lo} and {hi}, inclusive")
}

/// `IsValidPortNum`.
pub(super) fn port_num_errors(port: i64) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec![inclusive_range(1, 65535)]
    }
}

/// `IsValidPortName`.
pub(super) fn port_name_errors(port: &str) -> Vec<&'static str> {
    let mut errors = Vec::new();
    if port.len() > 15 {
        errors.push("must be no more than 15 characters");
    }
    if port.is_empty()
        || !port
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        errors.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if !port.bytes().any(|b| b.is_ascii_lowercase()) {
        errors.push("must contain at least one letter (a-z)");
    }
    if port.contains("--") {
        errors.push("must not contain consecutive hyphens");
    }
    if port.starts_with('-') || port.ends_with('-') {
        errors.push("must not begin or end with a hyphen");
    }
    errors
}

/// `ValidatePortNumOrName` for an `IntOrString` port.
pub(super) fn port_num_or_name(port: &Value, field: &str, errors: &mut Errors) {
    match port {
        Value::String(name) => {
            for message in port_name_errors(name) {
                errors.push(FieldError::invalid(
                    field,
                    BadValue::from(name.as_str()),
                    message,
                ));
            }
        }
        Value::Number(n) => {
            let n = n.as_i64().unwrap_or(0);
            for message in port_num_errors(n) {
                errors.push(FieldError::invalid(field, BadValue::Int(n), message));
            }
        }
        _ => {}
    }
}

/// `ValidateLabels` on a `map[string]string` field (a selector, a template's labels).
pub(super) fn labels(map: Option<&Map<String, Value>>, field: &str, errors: &mut Errors) {
    for (key, value) in map.into_iter().flatten() {
        for message in names::is_qualified_name(key) {
            errors.push(FieldError::invalid(
                field,
                BadValue::from(key.as_str()),
                message,
            ));
        }
        let value = value.as_str().unwrap_or("");
        for message in names::is_valid_label_value(value) {
            errors.push(FieldError::invalid(field, BadValue::from(value), message));
        }
    }
}

/// `ValidateImmutableField` (`field is immutable`), the new value shown as Go prints it.
pub(super) fn immutable(
    new: &Value,
    old: &Value,
    field: &str,
    shown_new: &str,
    errors: &mut Errors,
) {
    if !same(new, old) {
        errors.push(shown(field, ErrorType::Invalid, shown_new, FIELD_IMMUTABLE));
    }
}

/// `FieldImmutableErrorMsg`.
pub(super) const FIELD_IMMUTABLE: &str = "field is immutable";

/// `apiequality.Semantic.DeepEqual` on decoded values: an absent field, `null`, `""` and an
/// empty list or map are all Go's zero value, equal to each other.
pub(super) fn same(a: &Value, b: &Value) -> bool {
    normalized(a) == normalized(b)
}

/// `value` without the zero values `same` treats as absent.
pub(super) fn normalized(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), normalized(v)))
                .filter(|(_, v)| !is_empty(v))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalized).collect()),
        other => other.clone(),
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// A Go `map[string]string` printed with `%#v`: keys sorted, strings quoted; `nil` as
/// `map[string]string(nil)`.
pub(super) fn go_string_map(map: Option<&Map<String, Value>>) -> String {
    let Some(map) = map else {
        return "map[string]string(nil)".to_owned();
    };
    let mut entries: Vec<(&String, &str)> = map
        .iter()
        .map(|(k, v)| (k, v.as_str().unwrap_or("")))
        .collect();
    entries.sort();
    let body: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{}:{}", gofmt::quote(k), gofmt::quote(v)))
        .collect();
    format!("map[string]string{{{}}}", body.join(", "))
}

/// A Go `[]string` printed with `%#v` (`[]string{"a", "b"}`, `[]string(nil)`).
pub(super) fn go_strings(items: Option<&[Value]>) -> String {
    match items {
        None => "[]string(nil)".to_owned(),
        Some(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|v| gofmt::quote(v.as_str().unwrap_or("")))
                .collect();
            format!("[]string{{{}}}", items.join(", "))
        }
    }
}

/// A `metav1.LabelSelector` printed with `%#v`, as `ValidateImmutableField` and the empty
/// selector's error show it.
pub(super) fn go_label_selector(selector: &Value) -> String {
    let expressions = match selector.get("matchExpressions").and_then(Value::as_array) {
        None => "[]v1.LabelSelectorRequirement(nil)".to_owned(),
        Some(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|r| {
                    format!(
                        "v1.LabelSelectorRequirement{{Key:{}, Operator:{}, Values:{}}}",
                        gofmt::quote(text(r, "key")),
                        gofmt::quote(text(r, "operator")),
                        go_strings(r.get("values").and_then(Value::as_array).map(Vec::as_slice)),
                    )
                })
                .collect();
            format!("[]v1.LabelSelectorRequirement{{{}}}", items.join(", "))
        }
    };
    format!(
        "v1.LabelSelector{{MatchLabels:{}, MatchExpressions:{expressions}}}",
        go_string_map(object(selector, "matchLabels"))
    )
}

/// An `intstr.IntOrString` printed with `%#v` (`intstr.IntOrString{Type:1, IntVal:0,
/// StrVal:"5%"}`); absent is the zero value.
pub(super) fn go_int_or_string(value: &Value) -> String {
    match value {
        Value::String(s) => format!(
            "intstr.IntOrString{{Type:1, IntVal:0, StrVal:{}}}",
            gofmt::quote(s)
        ),
        other => format!(
            "intstr.IntOrString{{Type:0, IntVal:{}, StrVal:\"\"}}",
            other.as_i64().unwrap_or(0)
        ),
    }
}

/// `getIntOrPercentValue`: a percent's number, an integer's value, else 0.
pub(super) fn int_or_percent(value: &Value) -> i64 {
    match value {
        Value::String(s) => percent(s).unwrap_or(0),
        other => other.as_i64().unwrap_or(0),
    }
}

/// The number of a valid percent string (`IsValidPercent`: `[0-9]+%`).
pub(super) fn percent(s: &str) -> Option<i64> {
    let digits = s.strip_suffix('%')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.parse().unwrap_or(i64::MAX))
}

/// `IsValidPercent`'s message.
pub(super) const PERCENT_MESSAGE: &str = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%',  regex used for validation is '[0-9]+%')";

/// Whether a `LabelSelector` selects `labels` (`matchLabels` and every `matchExpressions`
/// requirement).
pub(super) fn selects(selector: &Value, labels: Option<&Map<String, Value>>) -> bool {
    let value = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
    let match_labels = object(selector, "matchLabels")
        .into_iter()
        .flatten()
        .all(|(k, v)| value(k) == v.as_str());
    let expressions = list(selector, "matchExpressions")
        .iter()
        .all(|requirement| {
            let key = text(requirement, "key");
            let values: Vec<&str> = list(requirement, "values")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            match opt_text(requirement, "operator") {
                Some("In") => value(key).is_some_and(|v| values.contains(&v)),
                Some("NotIn") => value(key).is_none_or(|v| !values.contains(&v)),
                Some("Exists") => value(key).is_some(),
                Some("DoesNotExist") => value(key).is_none(),
                _ => false,
            }
        });
    match_labels && expressions
}

/// Whether a selector has neither `matchLabels` nor `matchExpressions` (it selects
/// everything).
pub(super) fn empty_selector(selector: &Value) -> bool {
    object(selector, "matchLabels").is_none_or(Map::is_empty)
        && list(selector, "matchExpressions").is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_prints_typed_values() {
        assert_eq!(
            go_label_selector(&json!({"matchLabels": {"app": "b"}})),
            r#"v1.LabelSelector{MatchLabels:map[string]string{"app":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}"#
        );
        assert_eq!(
            go_int_or_string(&json!(0)),
            r#"intstr.IntOrString{Type:0, IntVal:0, StrVal:""}"#
        );
        assert_eq!(
            go_int_or_string(&json!("5")),
            r#"intstr.IntOrString{Type:1, IntVal:0, StrVal:"5"}"#
        );
    }

    #[test]
    fn port_names_as_is_valid_port_name() {
        assert!(port_name_errors("http").is_empty());
        assert_eq!(
            port_name_errors("HTTP"),
            [
                "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                "must contain at least one letter (a-z)"
            ]
        );
    }

    #[test]
    fn zero_values_are_equal() {
        assert!(same(&json!({"a": [], "b": "", "c": null}), &json!({})));
        assert!(!same(&json!({"a": 1}), &json!({})));
    }
}
