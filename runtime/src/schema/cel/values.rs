//! JSON values as CEL sees them under a schema (apiserver's `UnstructuredToVal`), and the
//! Kubernetes types CEL rules compute with: durations and timestamps (without chrono:
//! see the module docs of [`super`]), quantities, URLs, IP addresses, CIDRs and formats.

use std::any::Any;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::net::IpAddr;

use cel::ExecutionError;
use cel::common::traits::{
    Adder, Comparer, Container, Indexer, Iterable, Negator, Sizer, Subtractor,
};
use cel::common::types::{
    CelBool, CelBytes, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, Type,
};
use cel::common::value::{BuiltinRef, CowVal, StaticVal, Val};
use serde_json::Value;

use crate::Quantity;
use crate::schema::gourl::GoUrl;
use crate::schema::view::View;
use crate::schema::{JsonType, ListType};

macro_rules! static_val {
    ($ty:ident, $cel:ident, $name:literal) => {
        pub(crate) static $cel: Type = Type::new_unspecified_type($name);
        impl Val for $ty {
            fn get_type(&self) -> &Type {
                &$cel
            }
            fn cel_type() -> &'static Type {
                &$cel
            }
            fn equals(&self, other: &dyn Val) -> bool {
                other.downcast_ref::<$ty>().is_some_and(|o| o == self)
            }
            fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
                Box::new(self.clone())
            }
            fn as_any(&self) -> Option<&dyn Any> {
                Some(self)
            }
            static_val!(@extra $ty);
        }
        impl StaticVal for $ty {}
    };
    (@extra Duration) => {
        fn as_comparer(&self) -> Option<&dyn Comparer> { Some(self) }
        fn as_adder<'b, 'v>(&'b self) -> Option<&'b (dyn Adder + 'v)> where Self: 'v { Some(self) }
        fn as_subtractor<'b, 'v>(&'b self) -> Option<&'b (dyn Subtractor + 'v)> where Self: 'v { Some(self) }
        fn as_negator<'b, 'v>(&'b self) -> Option<&'b (dyn Negator + 'v)> where Self: 'v { Some(self) }
    };
    (@extra Timestamp) => {
        fn as_comparer(&self) -> Option<&dyn Comparer> { Some(self) }
        fn as_adder<'b, 'v>(&'b self) -> Option<&'b (dyn Adder + 'v)> where Self: 'v { Some(self) }
        fn as_subtractor<'b, 'v>(&'b self) -> Option<&'b (dyn Subtractor + 'v)> where Self: 'v { Some(self) }
    };
    (@extra $other:ident) => {};
}

/// `google.protobuf.Duration`: nanoseconds, within ±10000 years as CEL requires.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Duration(pub(crate) i128);
static_val!(Duration, DURATION, "google.protobuf.Duration");

/// `google.protobuf.Timestamp`: nanoseconds since the Unix epoch, in UTC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Timestamp(pub(crate) i128);
static_val!(Timestamp, TIMESTAMP, "google.protobuf.Timestamp");

/// `kubernetes.Quantity`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CelQuantity(pub(crate) Quantity);
static_val!(CelQuantity, QUANTITY, "kubernetes.Quantity");

/// `kubernetes.URL`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Url(pub(crate) GoUrl);
static_val!(Url, URL, "kubernetes.URL");

/// `net.IP`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Ip(pub(crate) IpAddr);
static_val!(Ip, IP, "net.IP");

/// `net.CIDR`: the address as written and the prefix length.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Cidr(pub(crate) IpAddr, pub(crate) u8);
static_val!(Cidr, CIDR, "net.CIDR");

/// `kubernetes.Semver`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CelSemver(pub(crate) super::semver::Semver);
static_val!(CelSemver, SEMVER, "kubernetes.Semver");

/// `kubernetes.NamedFormat`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Format(pub(crate) &'static str);
static_val!(Format, FORMAT, "kubernetes.NamedFormat");

const MAX_DURATION: i128 = 315_576_000_000 * 1_000_000_000;
/// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999999Z, in nanoseconds.
const MIN_TIMESTAMP: i128 = -62_135_596_800 * 1_000_000_000;
const MAX_TIMESTAMP: i128 = 253_402_300_800 * 1_000_000_000 - 1;

fn overflow(op: &str) -> ExecutionError {
    ExecutionError::function_error(op, "range error")
}

pub(crate) fn duration(nanos: i128) -> Result<Duration, ExecutionError> {
    if nanos.abs() > MAX_DURATION {
        return Err(overflow("duration"));
    }
    Ok(Duration(nanos))
}

pub(crate) fn timestamp(nanos: i128) -> Result<Timestamp, ExecutionError> {
    if !(MIN_TIMESTAMP..=MAX_TIMESTAMP).contains(&nanos) {
        return Err(overflow("timestamp"));
    }
    Ok(Timestamp(nanos))
}

fn not_comparable(a: &dyn Val, b: &dyn Val) -> ExecutionError {
    ExecutionError::no_such_overload(
        "_<_",
        vec![
            a.get_type().name().to_owned(),
            b.get_type().name().to_owned(),
        ],
    )
}

impl Comparer for Duration {
    fn compare(&self, rhs: &dyn Val) -> Result<Ordering, ExecutionError> {
        rhs.downcast_ref::<Duration>()
            .map(|o| self.0.cmp(&o.0))
            .ok_or_else(|| not_comparable(self, rhs))
    }
}

impl Comparer for Timestamp {
    fn compare(&self, rhs: &dyn Val) -> Result<Ordering, ExecutionError> {
        rhs.downcast_ref::<Timestamp>()
            .map(|o| self.0.cmp(&o.0))
            .ok_or_else(|| not_comparable(self, rhs))
    }
}

fn binary_error(op: &'static str, a: &dyn Val, b: &dyn Val) -> ExecutionError {
    ExecutionError::no_such_overload(
        op,
        vec![
            a.get_type().name().to_owned(),
            b.get_type().name().to_owned(),
        ],
    )
}

impl Adder for Duration {
    fn add<'b, 'v>(&'b self, rhs: &(dyn Val + 'v)) -> Result<CowVal<'b, 'v>, ExecutionError>
    where
        Self: 'v,
    {
        if let Some(d) = rhs.downcast_ref::<Duration>() {
            return Ok(CowVal::owned(duration(self.0 + d.0)?));
        }
        if let Some(t) = rhs.downcast_ref::<Timestamp>() {
            return Ok(CowVal::owned(timestamp(t.0 + self.0)?));
        }
        Err(binary_error("_+_", self, rhs))
    }
}

impl Subtractor for Duration {
    fn sub<'b, 'v>(&'b self, rhs: &(dyn Val + 'v)) -> Result<CowVal<'b, 'v>, ExecutionError>
    where
        Self: 'v,
    {
        match rhs.downcast_ref::<Duration>() {
            Some(d) => Ok(CowVal::owned(duration(self.0 - d.0)?)),
            None => Err(binary_error("_-_", self, rhs)),
        }
    }
}

impl Negator for Duration {
    fn negate<'v>(&self) -> Result<Box<dyn Val + 'v>, ExecutionError>
    where
        Self: 'v,
    {
        Ok(Box::new(Duration(-self.0)))
    }
}

impl Adder for Timestamp {
    fn add<'b, 'v>(&'b self, rhs: &(dyn Val + 'v)) -> Result<CowVal<'b, 'v>, ExecutionError>
    where
        Self: 'v,
    {
        match rhs.downcast_ref::<Duration>() {
            Some(d) => Ok(CowVal::owned(timestamp(self.0 + d.0)?)),
            None => Err(binary_error("_+_", self, rhs)),
        }
    }
}

impl Subtractor for Timestamp {
    fn sub<'b, 'v>(&'b self, rhs: &(dyn Val + 'v)) -> Result<CowVal<'b, 'v>, ExecutionError>
    where
        Self: 'v,
    {
        if let Some(d) = rhs.downcast_ref::<Duration>() {
            return Ok(CowVal::owned(timestamp(self.0 - d.0)?));
        }
        if let Some(t) = rhs.downcast_ref::<Timestamp>() {
            return Ok(CowVal::owned(duration(self.0 - t.0)?));
        }
        Err(binary_error("_-_", self, rhs))
    }
}

/// RFC 3339 text of a timestamp, as CEL's `string(timestamp)` writes it.
pub(crate) fn timestamp_text(t: &Timestamp) -> String {
    let secs = i64::try_from(t.0.div_euclid(1_000_000_000)).unwrap_or(0);
    let nanos = i32::try_from(t.0.rem_euclid(1_000_000_000)).unwrap_or(0);
    jiff::Timestamp::new(secs, nanos)
        .map(|ts| ts.to_string())
        .unwrap_or_default()
}

/// Parses RFC 3339 text (`timestamp('2023-01-01T00:00:00Z')`).
pub(crate) fn parse_timestamp(s: &str) -> Option<Timestamp> {
    let ts: jiff::Timestamp = s.parse().ok()?;
    timestamp(i128::from(ts.as_second()) * 1_000_000_000 + i128::from(ts.subsec_nanosecond())).ok()
}

/// Go's `time.Duration.String()` (`1h0m0s`, `1.5s`, `0s`), as CEL writes a duration.
pub(crate) fn duration_text(d: &Duration) -> String {
    crate::duration::format_wide(d.0)
}

/// apiserver's `cel.Escape`: a property name as a CEL identifier (`a-b` → `a__dash__b`),
/// or `None` when it cannot be one (such properties are not visible to rules).
pub(crate) fn escape(name: &str) -> Option<String> {
    const RESERVED: &[&str] = &[
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ];
    let first = name.chars().next()?;
    if first.is_ascii_digit() {
        return None;
    }
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '_' if chars.peek() == Some(&'_') => {
                chars.next();
                out.push_str("__underscores__");
            }
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            c if c.is_ascii_alphanumeric() || c == '_' => out.push(c),
            _ => return None,
        }
    }
    Some(out)
}

/// The CEL value of `value` under `view` (`None`: no schema, the value as JSON says).
pub(crate) fn to_cel(view: Option<&View<'_>>, value: &Value) -> Box<dyn Val> {
    let Some(view) = view else {
        return untyped(value);
    };
    if value.is_null() {
        return Box::new(CelNull);
    }
    if view.int_or_string() {
        return untyped(value);
    }
    match (view.ty(), value) {
        (Some(JsonType::Object), Value::Object(map)) => {
            let mut out: HashMap<CelMapKey<'static>, Box<dyn Val>> =
                HashMap::with_capacity(map.len());
            if view.has_properties() || view.embedded_resource() {
                for (k, v) in map {
                    // Null-valued fields are absent to rules (`has()` is false).
                    if v.is_null() {
                        continue;
                    }
                    if let Some(prop) = view.property(k) {
                        if let Some(escaped) = escape(k) {
                            out.insert(CelMapKey::from(escaped), to_cel(Some(&prop), v));
                        }
                    } else if view.embedded_resource()
                        && matches!(k.as_str(), "apiVersion" | "kind")
                    {
                        out.insert(CelMapKey::from(k.clone()), untyped(v));
                    } else if view.embedded_resource() && k == "metadata" {
                        out.insert(CelMapKey::from(k.clone()), metadata(v));
                    }
                }
            } else if let Some(Ok(additional)) = view.additional() {
                for (k, v) in map.iter().filter(|(_, v)| !v.is_null()) {
                    out.insert(CelMapKey::from(k.clone()), to_cel(Some(&additional), v));
                }
            } else {
                for (k, v) in map {
                    out.insert(CelMapKey::from(k.clone()), untyped(v));
                }
            }
            Box::new(CelMap::from(out))
        }
        (Some(JsonType::Array), Value::Array(items)) => {
            let item = view.items();
            let list: Vec<Box<dyn Val>> = items.iter().map(|v| to_cel(item.as_ref(), v)).collect();
            let list = CelList::from(list);
            match view.list_type() {
                Some(ListType::Set) => Box::new(TypedList { list, keys: None }),
                Some(ListType::Map) => {
                    let keys = view
                        .list_map_keys()
                        .iter()
                        .filter_map(|k| escape(k))
                        .collect();
                    Box::new(TypedList {
                        list,
                        keys: Some(keys),
                    })
                }
                _ => Box::new(list),
            }
        }
        (Some(JsonType::String), Value::String(s)) => {
            match view.format() {
                Some("duration") => {
                    if let Some(d) =
                        crate::schema::formats::parse_duration(s).and_then(|n| duration(n).ok())
                    {
                        return Box::new(d);
                    }
                }
                Some("date") => {
                    if let Some((y, m, d)) = crate::schema::formats::parse_date(s)
                        && let Some(t) = parse_timestamp(&format!("{y:04}-{m:02}-{d:02}T00:00:00Z"))
                    {
                        return Box::new(t);
                    }
                }
                Some("date-time") => {
                    if let Some(t) = parse_timestamp(s) {
                        return Box::new(t);
                    }
                }
                Some("byte") => {
                    use base64::Engine as _;
                    if let Ok(bytes) = base64::engine::general_purpose::URL_SAFE.decode(s) {
                        return Box::new(CelBytes::from(bytes));
                    }
                }
                _ => {}
            }
            Box::new(CelString::from(s.clone()))
        }
        #[allow(clippy::cast_precision_loss)]
        (Some(JsonType::Number), Value::Number(n)) => {
            Box::new(CelDouble::from(n.as_f64().unwrap_or(0.0)))
        }
        #[allow(clippy::cast_possible_truncation)]
        (Some(JsonType::Integer), Value::Number(n)) => match n.as_i64() {
            Some(i) => Box::new(CelInt::from(i)),
            None => Box::new(CelInt::from(n.as_f64().unwrap_or(0.0) as i64)),
        },
        _ => untyped(value),
    }
}

/// `metadata` of an embedded resource: only `name` and `generateName` are visible.
fn metadata(value: &Value) -> Box<dyn Val> {
    let mut out: HashMap<CelMapKey<'static>, Box<dyn Val>> = HashMap::new();
    if let Some(map) = value.as_object() {
        for key in ["name", "generateName"] {
            if let Some(v) = map.get(key) {
                out.insert(CelMapKey::from(key.to_owned()), untyped(v));
            }
        }
    }
    Box::new(CelMap::from(out))
}

/// A JSON value without a schema: numbers are `int` when integral and in range.
pub(crate) fn untyped(value: &Value) -> Box<dyn Val> {
    match value {
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Box::new(CelInt::from(i)),
            None => Box::new(CelDouble::from(n.as_f64().unwrap_or(0.0))),
        },
        Value::String(s) => Box::new(CelString::from(s.clone())),
        Value::Array(items) => {
            Box::new(CelList::from(items.iter().map(untyped).collect::<Vec<_>>()))
        }
        Value::Object(map) => {
            let out: HashMap<CelMapKey<'static>, Box<dyn Val>> = map
                .iter()
                .map(|(k, v)| (CelMapKey::from(k.clone()), untyped(v)))
                .collect();
            Box::new(CelMap::from(out))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_is_apiservers() {
        // Cases from apiserver's pkg/cel/escaping.go documentation.
        assert_eq!(escape("a-b").as_deref(), Some("a__dash__b"));
        assert_eq!(escape("a.b/c").as_deref(), Some("a__dot__b__slash__c"));
        assert_eq!(escape("a__b").as_deref(), Some("a__underscores__b"));
        assert_eq!(escape("namespace").as_deref(), Some("__namespace__"));
        assert_eq!(escape("x_y").as_deref(), Some("x_y"));
        assert_eq!(escape("1a"), None);
        assert_eq!(escape("a b"), None);
    }

    #[test]
    fn durations_print_as_go() {
        assert_eq!(duration_text(&Duration(3_600_000_000_000)), "1h0m0s");
        assert_eq!(duration_text(&Duration(1_500_000_000)), "1.5s");
        assert_eq!(duration_text(&Duration(1_000_000)), "1ms");
        assert_eq!(duration_text(&Duration(0)), "0s");
        assert_eq!(duration_text(&Duration(-90_000_000_000)), "-1m30s");
        // Past an int64, within CEL's ±10000 years: Go's digits, further.
        assert_eq!(
            duration_text(&Duration(i128::from(i64::MAX) + 1)),
            "2562047h47m16.854775808s"
        );
    }
}

/// A list of `x-kubernetes-list-type: set` (`keys: None`) or `map` (the escaped map keys):
/// a list to every function, but `==` ignores order, and `+` is a union (set) or a merge by
/// key (map), as the API server's CEL values behave.
#[derive(Debug)]
pub(crate) struct TypedList<'v> {
    list: CelList<'v>,
    keys: Option<Vec<String>>,
}

impl<'v> TypedList<'v> {
    fn items(&self) -> &[Box<dyn Val + 'v>] {
        self.list.inner()
    }

    /// Whether two items of a map list have the same key.
    fn same_key(&self, a: &dyn Val, b: &dyn Val) -> bool {
        let Some(keys) = &self.keys else {
            return a.equals(b);
        };
        let (Some(a), Some(b)) = (a.as_indexer(), b.as_indexer()) else {
            return false;
        };
        keys.iter().all(|k| {
            let key = CelString::from(k.clone());
            match (a.get(&key), b.get(&key)) {
                (Ok(x), Ok(y)) => x.equals(&*y),
                (Err(_), Err(_)) => true,
                _ => false,
            }
        })
    }
}

impl<'v> Val for TypedList<'v> {
    fn get_type(&self) -> &Type {
        &cel::common::types::LIST_TYPE
    }
    fn cel_type() -> &'static Type {
        &cel::common::types::LIST_TYPE
    }
    fn as_adder<'b, 'w>(&'b self) -> Option<&'b (dyn Adder + 'w)>
    where
        Self: 'w,
    {
        Some(self)
    }
    fn as_container(&self) -> Option<&dyn Container> {
        self.list.as_container()
    }
    fn as_indexer<'b, 'w>(&'b self) -> Option<&'b (dyn Indexer + 'w)>
    where
        Self: 'w,
    {
        self.list.as_indexer()
    }
    fn as_iterable<'b, 'w>(&'b self) -> Option<&'b (dyn Iterable + 'w)>
    where
        Self: 'w,
    {
        self.list.as_iterable()
    }
    fn as_sizer(&self) -> Option<&dyn Sizer> {
        self.list.as_sizer()
    }
    fn equals(&self, other: &dyn Val) -> bool {
        let Some(other) = other.downcast_ref::<CelList<'_>>() else {
            return false;
        };
        let (mine, theirs) = (self.items(), other.inner());
        mine.len() == theirs.len()
            && mine.iter().all(|a| {
                theirs
                    .iter()
                    .any(|b| self.same_key(&**a, &**b) && a.equals(&**b))
            })
    }
    fn clone_as_boxed<'w>(&self) -> Box<dyn Val + 'w>
    where
        Self: 'w,
    {
        Box::new(TypedList {
            list: self.list.clone(),
            keys: self.keys.clone(),
        })
    }
    fn as_builtin<'b, 'w>(&'b self) -> BuiltinRef<'b, 'w>
    where
        Self: 'w,
    {
        BuiltinRef::List(&self.list)
    }
}

impl<'v> Adder for TypedList<'v> {
    fn add<'b, 'w>(&'b self, rhs: &(dyn Val + 'w)) -> Result<CowVal<'b, 'w>, ExecutionError>
    where
        Self: 'w,
    {
        let Some(other) = rhs.downcast_ref::<CelList<'_>>() else {
            return Err(binary_error("_+_", self, rhs));
        };
        let mut out: Vec<Box<dyn Val + 'w>> =
            self.items().iter().map(|i| i.clone_as_boxed()).collect();
        for item in other.inner() {
            match out.iter().position(|o| self.same_key(&**o, &**item)) {
                // A map list's item with a key already there replaces it; a set keeps one.
                Some(i) if self.keys.is_some() => out[i] = item.clone_as_boxed(),
                Some(_) => {}
                None => out.push(item.clone_as_boxed()),
            }
        }
        Ok(CowVal::owned(TypedList {
            list: CelList::from(out),
            keys: self.keys.clone(),
        }))
    }
}
