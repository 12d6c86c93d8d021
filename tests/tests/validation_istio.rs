//! Istio's own valid and invalid objects (`../shared/validation/istio`), validated with the
//! nodes the model makes of Istio's published CRDs and the runtime's evaluator: what the
//! in-memory server does. Every invalid object must be refused with the text a real API
//! server gave (its `_err`), every valid one accepted. (`validation_generated.rs` does the
//! same through a generated crate's `validate()`.)

use std::collections::BTreeMap;

use kubeforge::view::Model;
use kubeforge_runtime::schema::{Errors, SchemaSet, validate};
use kubeforge_tests::claims;
use kubeforge_tests::examples::examples;

/// The type of each served kind: (apiVersion, kind) → its index, which the nodes use.
fn kinds(api: &Model) -> BTreeMap<(String, String), usize> {
    api.resources()
        .map(|resource| {
            let gvk = resource.gvk();
            ((gvk.api_version(), gvk.kind.clone()), resource.ty().index())
        })
        .collect()
}

#[test]
fn istio_examples_are_judged_as_the_api_server_judges_them() {
    let Some(dir) = kubeforge_tests::validation_data(
        "validation_istio",
        &["istio/customresourcedefinitions.gen.yaml", "istio/testdata"],
    ) else {
        return;
    };
    let api = kubeforge::Config::new()
        .input(dir.join("istio/customresourcedefinitions.gen.yaml"))
        .model()
        .expect("Istio's CRDs model");
    let set = SchemaSet::new(api.nodes());
    let kinds = kinds(&api);
    let mut files: Vec<_> = std::fs::read_dir(dir.join("istio/testdata"))
        .expect("list the examples")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    files.sort();
    let (mut refused, mut accepted, mut invalid, mut valid) = (0, 0, 0, 0);
    let mut wrong = Vec::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        for (index, (expected, object)) in examples(&file).into_iter().enumerate() {
            let api_version = object["apiVersion"].as_str().unwrap_or_default().to_owned();
            let kind = object["kind"].as_str().unwrap_or_default().to_owned();
            let id = kinds
                .get(&(api_version.clone(), kind.clone()))
                .unwrap_or_else(|| panic!("{name} #{index}: no kind {api_version} {kind}"));
            let node = &set.nodes[*id];
            let errors = Errors(validate(node, &set, &object, None));
            let text = errors.to_string();
            let is_invalid = name.contains("-invalid");
            match &expected {
                // Istio leaves the examples it has no text for commented out (`#_err: "TODO"`):
                // an invalid one without its text would be checked for nothing.
                None if is_invalid => {
                    wrong.push(format!(
                        "{name} #{index}: an invalid example without `_err`"
                    ));
                }
                None => {
                    valid += 1;
                    if errors.is_empty() {
                        accepted += 1;
                    } else {
                        wrong.push(format!("{name} #{index}: refused a valid object: {text}"));
                    }
                }
                Some(expected) => {
                    invalid += 1;
                    if !errors.is_empty() && text.contains(expected.as_str()) {
                        refused += 1;
                    } else {
                        wrong.push(format!(
                            "{name} #{index}: expected {expected:?}, got {text:?}"
                        ));
                    }
                }
            }
        }
    }
    kubeforge_tests::notice(&format!(
        "validation_istio: {refused} of {invalid} invalid examples refused with the expected text, {accepted} of {valid} valid ones accepted"
    ));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The counts docs/src/reference/validation.md states.
    assert_eq!(
        (refused, accepted),
        (claims::ISTIO_INVALID, claims::ISTIO_VALID),
        "{invalid} invalid, {valid} valid"
    );
}
