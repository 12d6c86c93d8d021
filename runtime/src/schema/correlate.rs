//! Old values beside new ones, as the API server compares them: `reflect.DeepEqual` of
//! decoded JSON, and the old item a new list item correlates with. Ratcheting (an unchanged
//! value keeps passing a rule it fails) uses both, in the OpenAPI keywords and in CEL
//! rules alike; uniqueness in a `set` and `enum` use the equality.

use serde_json::Value;

use super::ListType;
use super::view::View;

/// The old item an item correlates with for ratcheting (`CorrelatedObject.Index`): by key
/// in a `map` list, by value in a `set`; atomic lists do not correlate.
pub(crate) fn correlated_item<'a>(
    v: &View<'_>,
    old: Option<&'a Value>,
    item: &Value,
) -> Option<&'a Value> {
    let olds = old?.as_array()?;
    match v.list_type() {
        Some(ListType::Map) => {
            let keys = v.list_map_keys();
            (!keys.is_empty())
                .then(|| {
                    olds.iter()
                        .find(|o| keys.iter().all(|k| o.get(k) == item.get(k)))
                })
                .flatten()
        }
        Some(ListType::Set) => olds.iter().find(|o| deep_equal(o, item)),
        _ => None,
    }
}

/// `reflect.DeepEqual` of decoded JSON: `1` (int64) and `1.0` (float64) differ.
pub(crate) fn deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            (None, None) => x.as_f64() == y.as_f64(),
            _ => false,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| deep_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, a)| y.get(k).is_some_and(|b| deep_equal(a, b)))
        }
        _ => a == b,
    }
}
