//! Reading and writing an object's `metadata`: the map itself, its finalizers, and the
//! time as `meta/v1.Time` writes it.

use serde_json::{Map, Value};

pub(crate) fn metadata_mut(object: &mut Value) -> &mut Map<String, Value> {
    if !object.get("metadata").is_some_and(Value::is_object) {
        object["metadata"] = Value::Object(Map::new());
    }
    match object.get_mut("metadata") {
        Some(Value::Object(map)) => map,
        _ => unreachable!("metadata was just made an object"),
    }
}

/// Now by the server's clock (`clock`), as `meta/v1.Time` writes it.
pub(crate) fn now() -> String {
    crate::objects::clock::format(crate::objects::clock::now())
}

/// A new `metadata.uid` (a version 4 UUID's form), for every object the server creates,
/// through the API or by its own controllers: a hash of a process-wide random seed and a
/// counter.
pub(crate) fn new_uid() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEED: OnceLock<std::collections::hash_map::RandomState> = OnceLock::new();
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let mut hasher = SEED.get_or_init(Default::default).build_hasher();
    hasher.write_u64(COUNT.fetch_add(1, Ordering::Relaxed));
    let a = hasher.finish();
    hasher.write_u64(a);
    let b = hasher.finish();
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        b >> 52,
        b & 0xffff_ffff_ffff
    )
}

/// The object's `metadata.finalizers`.
pub(crate) fn finalizers(object: &Value) -> Vec<&str> {
    strings(object, "/metadata/finalizers")
}

/// The string at `pointer` in `object`, empty when there is none (Go's zero value).
pub(crate) fn text(object: &Value, pointer: &str) -> String {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

/// The strings of the list at `pointer`.
pub(crate) fn strings<'a>(object: &'a Value, pointer: &str) -> Vec<&'a str> {
    object
        .pointer(pointer)
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `object` without the finalizer `name`.
pub(crate) fn without_finalizer(object: &Value, name: &str) -> Value {
    let mut object = object.clone();
    let meta = metadata_mut(&mut object);
    if let Some(Value::Array(list)) = meta.get_mut("finalizers") {
        list.retain(|f| f.as_str() != Some(name));
        if list.is_empty() {
            meta.remove("finalizers");
        }
    }
    object
}
