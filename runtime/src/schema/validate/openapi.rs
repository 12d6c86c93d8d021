//! The OpenAPI keywords, checked as kube-openapi's `validate.SchemaValidator` checks a
//! custom resource (`pkg/validation/validate`), and its errors turned into field errors as
//! apiextensions-apiserver's `kubeOpenAPIResultToFieldErrors` does.
//!
//! The walk keeps kube-openapi's order (type, `allOf`/`oneOf`/`anyOf`/`not`, string
//! keywords, format, number keywords, array keywords, `enum`, object keywords), its
//! message texts (`spec.url in body should be at least 1 chars long`), its de-duplication
//! of equal messages, and its "match count", by which `oneOf` and `anyOf` pick the errors
//! of the alternative that came closest. Properties are walked in name order (Go walks
//! them in map order, which varies from run to run).

use serde_json::Value;

use crate::schema::JsonType;
use crate::schema::correlate::{correlated_item, deep_equal};
use crate::schema::error::{BadValue, FieldError, FieldPath};
use crate::schema::view::View;
use crate::schema::{formats, gofmt, pattern};

/// kube-openapi's error codes, as far as they choose the field error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Code {
    InvalidType,
    Required,
    TooLong,
    Enum,
    MaxItems,
    TooManyProperties,
    /// Every other `*errors.Validation` (turned into `field.Invalid`).
    Other,
}

#[derive(Clone, Debug)]
enum Raw {
    /// An `*errors.Validation`.
    Validation {
        code: Code,
        name: String,
        value: Option<BadValue>,
        values: Vec<Value>,
        valid: Option<u64>,
        actual: Option<u64>,
        message: String,
    },
    /// Any other error (`oneOf` and friends, range checks of the bounds themselves).
    Plain(String),
}

impl Raw {
    fn message(&self) -> &str {
        match self {
            Raw::Validation { message, .. } | Raw::Plain(message) => message,
        }
    }

    fn validation(code: Code, name: &str, value: Option<BadValue>, message: String) -> Raw {
        Raw::Validation {
            code,
            name: name.to_owned(),
            value,
            values: Vec::new(),
            valid: None,
            actual: None,
            message,
        }
    }
}

/// A `validate.Result`: errors (equal messages once) and the match count.
#[derive(Default)]
struct Res {
    errors: Vec<Raw>,
    matches: usize,
}

impl Res {
    fn err(e: Raw) -> Res {
        Res {
            errors: vec![e],
            matches: 0,
        }
    }

    fn add(&mut self, e: Raw) {
        if !self.errors.iter().any(|x| x.message() == e.message()) {
            self.errors.push(e);
        }
    }

    fn merge(&mut self, other: Res) {
        for e in other.errors {
            self.add(e);
        }
        self.matches += other.matches;
    }

    fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}

/// The kind of a JSON value as Go's decoder gives it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    String,
    Int,
    Float,
    Slice,
    Map,
}

fn kind(value: &Value) -> Option<Kind> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(_) => Kind::Bool,
        Value::String(_) => Kind::String,
        Value::Number(n) if n.is_i64() => Kind::Int,
        Value::Number(_) => Kind::Float,
        Value::Array(_) => Kind::Slice,
        Value::Object(_) => Kind::Map,
    })
}

fn as_f64(value: &Value) -> f64 {
    value.as_f64().unwrap_or(0.0)
}

/// The types a schema admits, as kube-openapi sees them (`x-kubernetes-int-or-string`
/// is `["integer", "string"]`).
fn types(v: &View<'_>) -> Vec<&'static str> {
    if v.int_or_string() {
        vec!["integer", "string"]
    } else {
        v.ty().map(|t| vec![t.as_str()]).unwrap_or_default()
    }
}

/// Validates `value` against the schema of `view` and returns the field errors, under
/// `base` (the root, or `status` for the status subresource).
///
/// On update (`old` given), errors of a part of the value that equals the part of the old
/// value it correlates with are dropped: the API server's validation ratcheting
/// (`CRDValidationRatcheting`, on by default since v1.30), which lets an object whose
/// schema got stricter be updated as long as the invalid parts are left as they were.
pub(crate) fn validate(
    view: &View<'_>,
    value: &Value,
    old: Option<&Value>,
    base: &FieldPath,
) -> Vec<FieldError> {
    let res = schema(view, value, "", old);
    res.errors
        .into_iter()
        .map(|e| to_field_error(e, base))
        .collect()
}

fn to_field_error(e: Raw, base: &FieldPath) -> FieldError {
    match e {
        Raw::Plain(message) => FieldError::invalid(base.render(), BadValue::from(""), message),
        Raw::Validation {
            code,
            name,
            value,
            values,
            valid,
            actual,
            message,
        } => {
            let path = if name.is_empty() || name == "." {
                base.render()
            } else {
                base.child(name.trim_start_matches('.')).render()
            };
            let value = value.unwrap_or_else(|| BadValue::from(""));
            match code {
                Code::Required => FieldError::required(path, ""),
                Code::Enum => {
                    let supported: Vec<String> = values
                        .iter()
                        .map(|v| match v {
                            Value::String(s) => s.clone(),
                            other => gofmt::json(other),
                        })
                        .collect();
                    FieldError::not_supported(path, value, &supported)
                }
                Code::TooLong => FieldError::too_long(path, valid),
                Code::MaxItems | Code::TooManyProperties => {
                    FieldError::too_many(path, actual, valid)
                }
                Code::InvalidType => FieldError::type_invalid(path, value, message),
                Code::Other => FieldError::invalid(path, value, message),
            }
        }
    }
}

/// `SchemaValidator.Validate`, ratcheted against `old` (`ratchetingValueValidator`): the
/// errors of a value equal to its correlated old value do not count.
fn schema(v: &View<'_>, value: &Value, path: &str, old: Option<&Value>) -> Res {
    let mut res = schema_at(v, value, path, old);
    if !res.is_valid() && old.is_some_and(|o| deep_equal(value, o)) {
        res.errors.clear();
    }
    res
}

fn schema_at(v: &View<'_>, value: &Value, path: &str, old: Option<&Value>) -> Res {
    let mut res = Res::default();
    let Some(k) = kind(value) else {
        // null: the type and enum checks only, and no match counted for them.
        if v.nullable() {
            // A nullable schema admits null (kube-openapi's type validator).
            res.matches += 1;
        } else {
            res.merge(type_check(v, None, value, path));
        }
        res.merge(enum_check(v, value, path));
        return res;
    };
    let format = formats::effective(v.format(), v.ty(), v.int_or_string());
    let tys = types(v);
    if !tys.is_empty() || format.is_some() {
        res.merge(type_check(v, Some(k), value, path));
        res.matches += 1;
    }
    res.merge(combinators(v, value, path, old));
    res.matches += 1;
    if k == Kind::String {
        res.merge(string_checks(v, value, path));
        res.matches += 1;
        if let Some(f) = format.as_deref().filter(|f| formats::is_known(f)) {
            let s = value.as_str().unwrap_or("");
            if !formats::validates(f, s) {
                res.add(Raw::validation(
                    Code::InvalidType,
                    path,
                    Some(BadValue::from(s)),
                    format!("{path} in body must be of type {f}: {}", gofmt::quote(s)),
                ));
            }
            res.matches += 1;
        }
    }
    if matches!(k, Kind::Int | Kind::Float) {
        res.merge(number_checks(v, value, k, format.as_deref(), path));
        res.matches += 1;
    }
    if k == Kind::Slice {
        res.merge(array_checks(v, value, path, old));
        res.matches += 1;
    }
    res.merge(enum_check(v, value, path));
    res.matches += 1;
    if k == Kind::Map {
        res.merge(object_checks(v, value, path, old));
        res.matches += 1;
    }
    res.matches += 1;
    res
}

/// `typeValidator.Validate`; `k` is `None` for null.
fn type_check(v: &View<'_>, k: Option<Kind>, value: &Value, path: &str) -> Res {
    let tys = types(v);
    let Some(k) = k else {
        if !tys.is_empty() {
            return Res::err(invalid_type(path, &tys.join(","), "null"));
        }
        return Res {
            errors: vec![],
            matches: 1,
        };
    };
    let format = formats::effective(v.format(), v.ty(), v.int_or_string()).unwrap_or_default();
    let (sch_type, data_format) = match k {
        Kind::Bool => ("boolean", ""),
        Kind::String => ("string", ""),
        Kind::Int => ("integer", "int64"),
        Kind::Float => ("number", "float64"),
        Kind::Slice => ("array", ""),
        Kind::Map => ("object", ""),
    };
    let contains = |t: &str| tys.contains(&t);
    let is_float_int = k == Kind::Float && as_f64(value).fract() == 0.0 && contains("integer");
    let is_int_float = k == Kind::Int && contains("number");
    if k != Kind::String
        && k != Kind::Slice
        && !format.is_empty()
        && !(contains(sch_type) || data_format == format || is_float_int || is_int_float)
    {
        return Res::err(invalid_type(path, &format, data_format));
    }
    if !(contains("number") || contains("integer") || format.is_empty())
        && matches!(k, Kind::String | Kind::Slice)
    {
        return Res {
            errors: vec![],
            matches: 1,
        };
    }
    if !(contains(sch_type) || is_float_int || is_int_float) {
        return Res::err(invalid_type(path, &tys.join(","), sch_type));
    }
    Res {
        errors: vec![],
        matches: 1,
    }
}

fn invalid_type(path: &str, ty: &str, data: &str) -> Raw {
    Raw::validation(
        Code::InvalidType,
        path,
        Some(BadValue::from(data)),
        format!(
            "{path} in body must be of type {ty}: {}",
            gofmt::quote(data)
        ),
    )
}

/// `schemaPropsValidator.Validate`: `anyOf`, `oneOf`, `allOf`, `not`, over every layer.
fn combinators(v: &View<'_>, value: &Value, path: &str, old: Option<&Value>) -> Res {
    let mut main = Res::default();
    for (node, resolve) in v.layers() {
        if !node.any_of.is_empty() {
            let mut best: Option<Res> = None;
            let mut first_success: Option<Res> = None;
            let mut succeeded = false;
            for alt in &node.any_of {
                let r = schema(&View::new(alt, *resolve), value, path, old);
                if r.is_valid() {
                    best = None;
                    succeeded = true;
                    first_success.get_or_insert(r);
                    break;
                }
                if best.as_ref().is_none_or(|b| r.matches > b.matches) {
                    best = Some(r);
                }
            }
            if !succeeded {
                main.add(Raw::Plain(format!(
                    "{} must validate at least one schema (anyOf)",
                    gofmt::quote(path)
                )));
            }
            if let Some(b) = best {
                main.merge(b);
            } else if let Some(s) = first_success {
                main.merge(s);
            }
        }
        if !node.one_of.is_empty() {
            let mut best: Option<Res> = None;
            let mut first_success: Option<Res> = None;
            let mut validated = 0;
            for alt in &node.one_of {
                let r = schema(&View::new(alt, *resolve), value, path, old);
                if r.is_valid() {
                    validated += 1;
                    best = None;
                    if first_success.is_none() {
                        first_success = Some(r);
                    }
                    continue;
                }
                if validated == 0 && best.as_ref().is_none_or(|b| r.matches > b.matches) {
                    best = Some(r);
                }
            }
            if validated == 1 {
                if let Some(s) = first_success {
                    main.merge(s);
                }
            } else {
                let more = if validated == 0 {
                    "Found none valid".to_owned()
                } else {
                    format!("Found {validated} valid alternatives")
                };
                main.add(Raw::Plain(format!(
                    "{} must validate one and only one schema (oneOf). {more}",
                    gofmt::quote(path)
                )));
                if let Some(b) = best {
                    main.merge(b);
                }
            }
        }
        if !node.all_of.is_empty() {
            let mut validated = 0;
            for alt in &node.all_of {
                let r = schema(&View::new(alt, *resolve), value, path, old);
                if r.is_valid() {
                    validated += 1;
                }
                main.merge(r);
            }
            if validated != node.all_of.len() {
                let more = if validated == 0 {
                    ". None validated"
                } else {
                    ""
                };
                main.add(Raw::Plain(format!(
                    "{} must validate all the schemas (allOf){more}",
                    gofmt::quote(path)
                )));
            }
        }
        if let Some(not) = &node.not
            && schema(&View::new(not, *resolve), value, path, old).is_valid()
        {
            main.add(Raw::Plain(format!(
                "{} must not validate the schema (not)",
                gofmt::quote(path)
            )));
        }
    }
    main
}

fn first_u64(v: &View<'_>, f: impl Fn(&crate::schema::Node) -> Option<u64>) -> Option<u64> {
    v.layers().iter().find_map(|(n, _)| f(n))
}

/// `stringValidator.Validate`: the first of `maxLength`, `minLength`, `pattern` to fail.
fn string_checks(v: &View<'_>, value: &Value, path: &str) -> Res {
    let s = value.as_str().unwrap_or("");
    let len = s.chars().count() as u64;
    if let Some(max) = first_u64(v, |n| n.max_length)
        && len > max
    {
        let mut e = Raw::validation(
            Code::TooLong,
            path,
            Some(BadValue::from(s)),
            format!("{path} in body should be at most {max} chars long"),
        );
        if let Raw::Validation { valid, .. } = &mut e {
            *valid = Some(max);
        }
        return Res::err(e);
    }
    if let Some(min) = first_u64(v, |n| n.min_length)
        && len < min
    {
        return Res::err(Raw::validation(
            Code::Other,
            path,
            Some(BadValue::from(s)),
            format!("{path} in body should be at least {min} chars long"),
        ));
    }
    if let Some(p) = v
        .layers()
        .iter()
        .find_map(|(n, _)| n.pattern.as_deref())
        .filter(|p| !p.is_empty())
    {
        match pattern::compile(p) {
            Ok(re) => {
                if !re.is_match(s) {
                    return Res::err(Raw::validation(
                        Code::Other,
                        path,
                        Some(BadValue::from(s)),
                        format!("{path} in body should match '{p}'"),
                    ));
                }
            }
            Err(e) => {
                return Res::err(Raw::validation(
                    Code::Other,
                    path,
                    Some(BadValue::from(s)),
                    format!("{path} in body should match '{p}, but pattern is invalid: {e}'"),
                ));
            }
        }
    }
    Res::default()
}

/// A bound as Go holds it (`float64`), and whether it is valid for the schema's type and
/// format (`IsValueValidAgainstRange`); the error text when not.
fn range_error(
    x: f64,
    is_int_value: bool,
    ty: &str,
    format: &str,
    prefix: &str,
    path: &str,
) -> Option<String> {
    let ok = match ty {
        "integer" => {
            // The text Go builds for the value, parsed as an integer of the format.
            let text_ok = is_int_value || (x.fract() == 0.0 && x.abs() < 9.3e18);
            match format {
                "int32" => text_ok && x >= f64::from(i32::MIN) && x <= f64::from(i32::MAX),
                _ => {
                    text_ok
                        && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x)
                }
            }
        }
        _ => match format {
            "float" => x.is_finite() && x.abs() <= f64::from(f32::MAX),
            _ => true,
        },
    };
    if ok {
        None
    } else if format.is_empty() {
        Some(format!(
            "{prefix} value must be of type {ty} (default format) in {path}"
        ))
    } else {
        Some(format!(
            "{prefix} value must be of type {ty} with format {format} in {path}"
        ))
    }
}

/// `numberValidator.Validate`: the range of the value itself, `multipleOf`, `minimum`,
/// `maximum`.
#[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)] // Go's int64(f) and float64(i)
fn number_checks(v: &View<'_>, value: &Value, k: Kind, format: Option<&str>, path: &str) -> Res {
    let mut res = Res::default();
    // The type and format only count when the type is one, unambiguous.
    let (ty, fmt) = match (v.int_or_string(), v.ty()) {
        (false, Some(JsonType::Integer)) => (
            "integer",
            format
                .filter(|f| matches!(*f, "int32" | "int64"))
                .unwrap_or(""),
        ),
        (false, Some(JsonType::Number)) => (
            "number",
            format
                .filter(|f| matches!(*f, "float" | "double"))
                .unwrap_or(""),
        ),
        _ => ("", ""),
    };
    let data = as_f64(value);
    let int_data = value.as_i64();
    let is_int = k == Kind::Int;
    if let Some(e) = range_error(data, is_int, ty, fmt, "Checked", path) {
        res.add(Raw::Plain(e));
    }
    let bad = BadValue::of(value);
    let first =
        |f: &dyn Fn(&crate::schema::Node) -> Option<f64>| v.layers().iter().find_map(|(n, _)| f(n));
    let exclusive_max = v.layers().iter().any(|(n, _)| n.exclusive_maximum);
    let exclusive_min = v.layers().iter().any(|(n, _)| n.exclusive_minimum);
    if let Some(factor) = first(&|n| n.multiple_of.as_ref().and_then(serde_json::Number::as_f64)) {
        let bound_error = range_error(factor, false, ty, fmt, "MultipleOf", path);
        let native_int = bound_error.is_none() && is_int;
        if let Some(e) = bound_error {
            res.add(Raw::Plain(e));
        }
        if native_int {
            let f = factor as i64;
            let d = int_data.unwrap_or(0);
            if f <= 0 {
                res.add(Raw::validation(
                    Code::Other,
                    path,
                    Some(BadValue::Int(f)),
                    format!("factor MultipleOf declared for {path} must be positive: {f}"),
                ));
            } else if d % f != 0 {
                res.add(Raw::validation(
                    Code::Other,
                    path,
                    Some(bad.clone()),
                    format!("{path} in body should be a multiple of {f}"),
                ));
            }
        } else if factor <= 0.0 {
            res.add(Raw::validation(
                Code::Other,
                path,
                Some(BadValue::Float(factor)),
                format!(
                    "factor MultipleOf declared for {path} must be positive: {}",
                    gofmt::float(factor)
                ),
            ));
        } else {
            let mult = if factor < 1.0 {
                1.0 / factor * data
            } else {
                data / factor
            };
            if mult.fract() != 0.0 || !mult.is_finite() {
                res.add(Raw::validation(
                    Code::Other,
                    path,
                    Some(bad.clone()),
                    format!(
                        "{path} in body should be a multiple of {}",
                        gofmt::float(factor)
                    ),
                ));
            }
        }
    }
    for (is_min, bound, exclusive) in [
        (
            true,
            first(&|n| n.minimum.as_ref().and_then(serde_json::Number::as_f64)),
            exclusive_min,
        ),
        (
            false,
            first(&|n| n.maximum.as_ref().and_then(serde_json::Number::as_f64)),
            exclusive_max,
        ),
    ] {
        let Some(bound) = bound else { continue };
        let prefix = if is_min {
            "Minimum boundary"
        } else {
            "Maximum boundary"
        };
        let bound_error = range_error(bound, false, ty, fmt, prefix, path);
        let native_int = bound_error.is_none() && is_int;
        if let Some(e) = bound_error {
            res.add(Raw::Plain(e));
        }
        let (fails, shown) = if native_int {
            let b = bound as i64;
            let d = int_data.unwrap_or(0);
            let fails = if is_min {
                if exclusive { d <= b } else { d < b }
            } else if exclusive {
                d >= b
            } else {
                d > b
            };
            (fails, b.to_string())
        } else {
            let fails = if is_min {
                if exclusive {
                    data <= bound
                } else {
                    data < bound
                }
            } else if exclusive {
                data >= bound
            } else {
                data > bound
            };
            (fails, gofmt::float(bound))
        };
        if fails {
            let words = match (is_min, exclusive) {
                (true, false) => "greater than or equal to",
                (true, true) => "greater than",
                (false, false) => "less than or equal to",
                (false, true) => "less than",
            };
            res.add(Raw::validation(
                Code::Other,
                path,
                Some(bad.clone()),
                format!("{path} in body should be {words} {shown}"),
            ));
        }
    }
    res.matches += 1;
    res
}

/// `schemaSliceValidator.Validate`: `items`, `minItems`, `maxItems`, `uniqueItems`.
fn array_checks(v: &View<'_>, value: &Value, path: &str, old: Option<&Value>) -> Res {
    let mut res = Res::default();
    let items = value.as_array().map(Vec::as_slice).unwrap_or(&[]);
    if let Some(item_schema) = v.items() {
        for (i, item) in items.iter().enumerate() {
            let old_item = correlated_item(v, old, item);
            res.merge(schema(
                &item_schema,
                item,
                &format!("{path}[{i}]"),
                old_item,
            ));
        }
    }
    let size = items.len() as u64;
    if let Some(min) = first_u64(v, |n| n.min_items)
        && size < min
    {
        res.add(Raw::validation(
            Code::Other,
            path,
            Some(BadValue::Int(i64::try_from(size).unwrap_or(i64::MAX))),
            format!("{path} in body should have at least {min} items"),
        ));
    }
    if let Some(max) = first_u64(v, |n| n.max_items)
        && size > max
    {
        let mut e = Raw::validation(
            Code::MaxItems,
            path,
            None,
            format!("{path} in body should have at most {max} items"),
        );
        if let Raw::Validation { valid, actual, .. } = &mut e {
            *valid = Some(max);
            *actual = Some(size);
        }
        res.add(e);
    }
    if v.layers().iter().any(|(n, _)| n.unique_items) {
        let duplicate = items
            .iter()
            .enumerate()
            .any(|(i, a)| items[..i].iter().any(|b| deep_equal(a, b)));
        if duplicate {
            res.add(Raw::validation(
                Code::Other,
                path,
                None,
                format!("{path} in body shouldn't contain duplicates"),
            ));
        }
    }
    res.matches += 1;
    res
}

/// `basicCommonValidator.Validate`: `enum`. The value matches an entry of the same Go
/// type (an integer matches an integral float entry, as Go converts it).
fn enum_check(v: &View<'_>, value: &Value, path: &str) -> Res {
    let Some(values) = v
        .layers()
        .iter()
        .find_map(|(n, _)| n.enum_values.as_ref())
        .filter(|e| !e.is_empty())
    else {
        return Res::default();
    };
    if !value.is_null() && values.iter().any(|e| enum_matches(value, e)) {
        return Res::default();
    }
    let rendered: Vec<String> = values.iter().map(go_v).collect();
    let e = Raw::Validation {
        code: Code::Enum,
        name: path.to_owned(),
        value: Some(if value.is_null() {
            BadValue::Json(Value::Null)
        } else {
            BadValue::of(value)
        }),
        values: values.clone(),
        valid: None,
        actual: None,
        message: format!("{path} in body should be one of [{}]", rendered.join(" ")),
    };
    Res::err(e)
}

fn enum_matches(value: &Value, entry: &Value) -> bool {
    match (value, entry) {
        // Go converts the value to the entry's type before comparing: int64 → float64.
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(a), Some(b)) => a == b,
            #[allow(clippy::cast_precision_loss, clippy::float_cmp)]
            (Some(a), None) => Some(a as f64) == y.as_f64(),
            (None, Some(_)) => false,
            #[allow(clippy::float_cmp)]
            (None, None) => x.as_f64() == y.as_f64(),
        },
        _ => deep_equal(value, entry),
    }
}

/// Go's `%v` of a decoded JSON value (inside the enum message).
fn go_v(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".to_owned(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.as_i64().map_or_else(
            || gofmt::float(n.as_f64().unwrap_or(0.0)),
            |i| i.to_string(),
        ),
        Value::Array(items) => {
            format!("[{}]", items.iter().map(go_v).collect::<Vec<_>>().join(" "))
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{k}:{}", go_v(&map[*k])))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
    }
}

/// `objectValidator.Validate`: `minProperties`, `maxProperties`, `additionalProperties`,
/// the properties, `required`.
fn object_checks(v: &View<'_>, value: &Value, path: &str, old: Option<&Value>) -> Res {
    let mut res = Res::default();
    let Some(map) = value.as_object() else {
        return res;
    };
    let n = map.len() as u64;
    if let Some(min) = first_u64(v, |n| n.min_properties)
        && n < min
    {
        res.add(Raw::validation(
            Code::Other,
            path,
            Some(BadValue::Int(i64::try_from(n).unwrap_or(i64::MAX))),
            format!("{path} in body should have at least {min} properties"),
        ));
    }
    if let Some(max) = first_u64(v, |n| n.max_properties)
        && n > max
    {
        let mut e = Raw::validation(
            Code::TooManyProperties,
            path,
            None,
            format!("{path} in body should have at most {max} properties"),
        );
        if let Raw::Validation { valid, actual, .. } = &mut e {
            *valid = Some(max);
            *actual = Some(n);
        }
        res.add(e);
    }
    let properties = v.properties();
    let is_property = |k: &str| properties.iter().any(|(name, _)| *name == k);
    match v.additional() {
        Some(Err(false)) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            for key in keys {
                if !is_property(key) {
                    res.add(Raw::validation(
                        Code::Other,
                        path,
                        Some(BadValue::from(key.as_str())),
                        format!("{path}.{key} in body is a forbidden property"),
                    ));
                }
            }
        }
        Some(Ok(additional)) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            for key in keys {
                if !is_property(key) {
                    res.merge(schema(
                        &additional,
                        &map[key.as_str()],
                        &format!("{path}.{key}"),
                        old.and_then(|o| o.get(key.as_str())),
                    ));
                }
            }
        }
        _ => {}
    }
    for (name, prop) in &properties {
        if let Some(item) = map.get(*name) {
            let child = if path.is_empty() {
                (*name).to_owned()
            } else {
                format!("{path}.{name}")
            };
            // apiVersion and kind of the root are not correlated.
            let old_item = if path.is_empty() && matches!(*name, "apiVersion" | "kind") {
                None
            } else {
                old.and_then(|o| o.get(*name))
            };
            res.merge(schema(prop, item, &child, old_item));
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for (node, _) in v.layers() {
        for key in &node.required {
            if seen.contains(&key.as_str()) {
                continue;
            }
            seen.push(key);
            if !map.contains_key(key) {
                let name = format!("{path}.{key}");
                res.add(Raw::validation(
                    Code::Required,
                    &name,
                    None,
                    format!("{name} in body is required"),
                ));
            }
        }
    }
    res
}
