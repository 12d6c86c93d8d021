//! Reading loosely typed JSON (`serde_json::Value`) the one way kubeforge's crates read it.

use serde_json::Value;

/// The strings of a JSON array of strings: absent or not an array reads as none, and an
/// item that is not a string is skipped.
///
/// ```
/// use kubeforge_runtime::json::strings;
/// use serde_json::json;
///
/// let doc = json!({"consumes": ["application/json", 3, "application/yaml"], "produces": "x"});
/// assert_eq!(strings(doc.get("consumes")), ["application/json", "application/yaml"]);
/// assert!(strings(doc.get("produces")).is_empty());
/// assert!(strings(doc.get("absent")).is_empty());
/// ```
pub fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}
