//! Real projects' example objects, read as kubectl reads them.

use std::path::Path;

use serde_json::Value;

/// Plain scalars that YAML 1.2 (serde-saphyr) and Go's YAML 1.1 reader (sigs.k8s.io/yaml,
/// which kubectl and Istio's own test use) read differently: in a flow sequence, Go ends a
/// plain scalar at `:` only before a space, so `[1.2.3.4, 001:db8::]` holds the string
/// `001:db8::`, where YAML 1.2 reads `001:db8:` as a key. Quoted here, so each object is
/// what kubectl would send.
const GO_YAML_SCALARS: &[(&str, &str)] = &[("serviceentry-valid.yaml", "001:db8::")];

/// The objects of a YAML file of examples, each with its expected error (its `_err` key,
/// taken out): `None` for an object a real API server accepts.
///
/// # Panics
///
/// When the file cannot be read or parsed.
pub fn examples(path: &Path) -> Vec<(Option<String>, Value)> {
    let mut text = std::fs::read_to_string(path).expect("read the examples");
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    for (file, scalar) in GO_YAML_SCALARS.iter().filter(|(file, _)| *file == name) {
        let quoted = format!("\"{scalar}\"");
        assert!(
            text.contains(&format!(", {scalar}]")),
            "{file} no longer holds `{scalar}` in a flow sequence: update GO_YAML_SCALARS"
        );
        text = text.replace(&format!(", {scalar}]"), &format!(", {quoted}]"));
    }
    let documents: Vec<Value> = serde_saphyr::from_multiple(&text).expect("the examples parse");
    documents
        .into_iter()
        .filter(|d| !d.is_null())
        .map(|mut document| {
            let expected = document
                .as_object_mut()
                .and_then(|map| map.remove("_err"))
                .and_then(|e| e.as_str().map(str::to_owned));
            (expected, document)
        })
        .collect()
}

/// The examples whose `_err` a real API server does not give, with the text it gives
/// instead: `(file, Istio's _err, the API server's)`. Istio's texts come from Istio's own
/// validator (`tests/validation_test.go` in istio/api), which validates the object as read;
/// the API server decodes it first, and its decoder removes a `null` whose schema is not
/// `nullable` and has no `default` (`PruneNonNullableNullsWithoutDefaults`, called from
/// apiextensions-apiserver's `unstructuredSchemaCoercer.apply`), so the field is missing
/// rather than null when it is validated. What validates the object as read (the runtime's
/// `validate()`) gives Istio's text; what decodes it first (the in-memory server) the API
/// server's.
pub const DECODED_DIFFERENTLY: &[(&str, &str, &str)] = &[
    (
        "wasm-invalid.yaml",
        "spec in body must be of type object: \"null\"",
        "spec: Required value",
    ),
    (
        "wasm-invalid.yaml",
        "spec.url in body must be of type string: \"null\"",
        "spec.url: Required value",
    ),
];

/// The text an API server's refusal of the example holds: its `_err`, or what
/// [`DECODED_DIFFERENTLY`] says the API server gives instead.
#[must_use]
pub fn api_server_error<'a>(file: &str, expected: &'a str) -> &'a str {
    DECODED_DIFFERENTLY
        .iter()
        .find(|(f, istio, _)| *f == file && *istio == expected)
        .map_or(expected, |(_, _, api_server)| api_server)
}
