//! The semantic API diff (`kubeforge diff`, `kubeforge::diff`): each semver rule on a small
//! hand-written pair of documents, golden text and Markdown reports, and the `schemas/`
//! summary of `cargo xtask diff` / `regen` against a git revision.

use kubeforge::Config;
use kubeforge::diff::{self, Effect, Report};
use serde_json::{Value, json};

/// A CRD with one namespaced version: a spec with a required integer, an enum with a
/// default, a plain string and a nested object; a status subresource.
fn widget() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1",
                "served": true,
                "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "spec": {
                            "type": "object",
                            "required": ["size"],
                            "properties": {
                                "size": {"type": "integer", "format": "int32"},
                                "color": {"type": "string", "enum": ["red", "blue"], "default": "red"},
                                "note": {"description": "A note.", "type": "string"},
                                "shape": {"type": "object", "properties": {"sides": {"type": "integer"}}}
                            }
                        },
                        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}
                    }
                }}
            }]
        }
    })
}

/// The spec's schema of the first version.
fn spec(crd: &mut Value) -> &mut Value {
    &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
}

fn config(name: &str, document: &Value) -> Config {
    Config::new().input_bytes(name, serde_json::to_vec(document).expect("JSON"))
}

fn report(old: &Value, new: &Value) -> Report {
    diff::configs(&config("old.json", old), &config("new.json", new)).expect("both documents load")
}

/// The changes to `widget()` that `edit` makes, as (effect, kind, subject) triples.
fn changes_of(edit: impl FnOnce(&mut Value)) -> Vec<(Effect, &'static str, String)> {
    let old = widget();
    let mut new = old.clone();
    edit(&mut new);
    report(&old, &new)
        .changes
        .into_iter()
        .map(|c| (c.effect, c.kind, c.subject))
        .collect()
}

const SPEC: &str = "com::example::v1::WidgetSpec";

fn one(effect: Effect, kind: &'static str, subject: &str) -> Vec<(Effect, &'static str, String)> {
    vec![(effect, kind, subject.to_owned())]
}

#[test]
fn the_same_document_has_no_changes() {
    let report = report(&widget(), &widget());
    assert_eq!(report.changes, []);
    assert_eq!(report.bump(), "none");
    assert_eq!(diff::text(&report), "no API changes\n");
}

#[test]
fn a_description_is_no_api_change() {
    let changes =
        changes_of(|crd| spec(crd)["properties"]["note"]["description"] = json!("Another note."));
    assert_eq!(changes, []);
}

#[test]
fn a_new_optional_field_is_additive() {
    let changes = changes_of(|crd| {
        spec(crd)["properties"]["label"] = json!({"type": "string"});
    });
    assert_eq!(
        changes,
        one(Effect::Additive, "field_added", &format!("{SPEC}.label"))
    );
}

#[test]
fn a_new_required_field_is_breaking_as_a_new_constructor_argument() {
    let old = widget();
    let mut new = old.clone();
    spec(&mut new)["properties"]["label"] = json!({"type": "string"});
    spec(&mut new)["required"] = json!(["size", "label"]);
    let report = report(&old, &new);
    let [change] = report.changes.as_slice() else {
        panic!(
            "expected one change (not also constructor_changed): {:?}",
            report.changes
        );
    };
    assert_eq!(
        (change.effect, change.kind, change.new.as_deref()),
        (Effect::Breaking, "required_field_added", Some("String"))
    );
    assert!(diff::text(&report).contains("new builder constructor argument"));
}

#[test]
fn a_removed_field_is_breaking() {
    let changes = changes_of(|crd| {
        spec(crd)["properties"]
            .as_object_mut()
            .expect("properties")
            .remove("note");
    });
    assert_eq!(
        changes,
        one(Effect::Breaking, "field_removed", &format!("{SPEC}.note"))
    );
}

#[test]
fn a_type_change_is_breaking_with_both_rust_types() {
    let old = widget();
    let mut new = old.clone();
    spec(&mut new)["properties"]["size"]["format"] = json!("int64");
    let report = report(&old, &new);
    let [change] = report.changes.as_slice() else {
        panic!("expected one change: {:?}", report.changes);
    };
    assert_eq!(
        (change.effect, change.kind, change.subject.as_str()),
        (
            Effect::Breaking,
            "field_type_changed",
            "com::example::v1::WidgetSpec.size"
        )
    );
    assert_eq!(
        (change.old.as_deref(), change.new.as_deref()),
        (Some("i32"), Some("i64"))
    );
}

#[test]
fn a_format_that_keeps_the_rust_type_is_no_change() {
    // `int64` and no format are both `i64`.
    let changes = changes_of(|crd| {
        spec(crd)["properties"]["shape"]["properties"]["sides"]["format"] = json!("int64")
    });
    assert_eq!(changes, []);
}

#[test]
fn optional_to_required_and_back_are_breaking() {
    let changes = changes_of(|crd| spec(crd)["required"] = json!(["size", "note"]));
    assert_eq!(
        changes,
        one(
            Effect::Breaking,
            "field_now_required",
            &format!("{SPEC}.note")
        )
    );
    let changes = changes_of(|crd| spec(crd)["required"] = json!([]));
    assert_eq!(
        changes,
        one(
            Effect::Breaking,
            "field_now_optional",
            &format!("{SPEC}.size")
        )
    );
}

#[test]
fn enum_values_added_are_additive_and_removed_are_breaking() {
    let color = "com::example::v1::WidgetSpecColor";
    let changes = changes_of(|crd| {
        spec(crd)["properties"]["color"]["enum"] = json!(["red", "blue", "green"])
    });
    assert_eq!(changes, one(Effect::Additive, "enum_value_added", color));
    let changes = changes_of(|crd| spec(crd)["properties"]["color"]["enum"] = json!(["red"]));
    assert_eq!(changes, one(Effect::Breaking, "enum_value_removed", color));
}

#[test]
fn defaults_and_deprecations_are_compatible() {
    let changes = changes_of(|crd| spec(crd)["properties"]["color"]["default"] = json!("blue"));
    assert_eq!(
        changes,
        one(
            Effect::Compatible,
            "default_changed",
            &format!("{SPEC}.color")
        )
    );
    let changes = changes_of(|crd| {
        spec(crd)["properties"]["note"]["description"] = json!("Deprecated: use label.");
    });
    assert_eq!(
        changes,
        one(
            Effect::Compatible,
            "field_deprecated",
            &format!("{SPEC}.note")
        )
    );
}

#[test]
fn new_types_are_additive_and_removed_types_breaking() {
    let changes = changes_of(|crd| {
        spec(crd)["properties"]["size2"] =
            json!({"type": "object", "properties": {"width": {"type": "integer"}}});
    });
    assert_eq!(
        changes,
        vec![
            (Effect::Additive, "field_added", format!("{SPEC}.size2")),
            (
                Effect::Additive,
                "type_added",
                "com::example::v1::WidgetSpecSize2".to_owned()
            ),
        ]
    );
    let changes = changes_of(|crd| {
        spec(crd)["properties"]
            .as_object_mut()
            .expect("properties")
            .remove("shape");
    });
    assert_eq!(
        changes,
        vec![
            (Effect::Breaking, "field_removed", format!("{SPEC}.shape")),
            (
                Effect::Breaking,
                "type_removed",
                "com::example::v1::WidgetSpecShape".to_owned()
            ),
        ]
    );
}

#[test]
fn a_renamed_version_moves_every_type_and_its_operations() {
    let old = widget();
    let mut new = old.clone();
    new["spec"]["versions"][0]["name"] = json!("v2");
    let report = report(&old, &new);
    let moved: Vec<(&str, Option<&str>)> = report
        .changes
        .iter()
        .filter(|c| c.kind == "type_moved")
        .map(|c| (c.subject.as_str(), c.old.as_deref()))
        .collect();
    assert!(
        moved.contains(&(
            "com::example::v2::WidgetSpec",
            Some("com::example::v1::WidgetSpec")
        )),
        "{moved:?}"
    );
    assert!(moved.contains(&("com::example::v2::Widget", Some("com::example::v1::Widget"))));
    let removed = report
        .changes
        .iter()
        .filter(|c| c.kind == "operation_removed")
        .count();
    let added = report
        .changes
        .iter()
        .filter(|c| c.kind == "operation_added")
        .count();
    assert!(
        removed > 0 && removed == added,
        "{removed} removed, {added} added"
    );
    assert!(
        report
            .changes
            .iter()
            .all(|c| c.effect != Effect::Compatible)
    );
    assert_eq!(report.bump(), "major");
}

#[test]
fn a_scope_change_is_breaking_and_a_new_subresource_additive() {
    let old = widget();
    let mut new = old.clone();
    new["spec"]["scope"] = json!("Cluster");
    let report = report(&old, &new);
    let widget = "com::example::v1::Widget";
    assert!(report.changes.iter().any(|c| c.kind == "scope_changed"
        && c.subject == widget
        && c.effect == Effect::Breaking
        && c.old.as_deref() == Some("Namespaced")));
    // Every operation's path changes, and the constructor loses its namespace.
    assert!(
        report
            .changes
            .iter()
            .any(|c| c.kind == "constructor_changed"
                && c.old.as_deref() == Some("builder(name, namespace)")
                && c.new.as_deref() == Some("builder(name)"))
    );
    assert!(
        report
            .changes
            .iter()
            .all(|c| c.effect == Effect::Breaking || c.kind == "operation_added")
    );

    let changes = changes_of(|crd| {
        crd["spec"]["versions"][0]["subresources"]["scale"] =
            json!({"specReplicasPath": ".spec.size", "statusReplicasPath": ".status.ready"});
    });
    assert!(
        changes.contains(&(Effect::Additive, "subresource_added", widget.to_owned())),
        "{changes:?}"
    );
    assert!(
        changes
            .iter()
            .all(|(effect, ..)| *effect == Effect::Additive),
        "{changes:?}"
    );
}

#[test]
fn a_new_version_adds_types_and_operations() {
    let old = widget();
    let mut new = old.clone();
    let mut v2 = new["spec"]["versions"][0].clone();
    v2["name"] = json!("v2");
    v2["storage"] = json!(false);
    new["spec"]["versions"]
        .as_array_mut()
        .expect("versions")
        .push(v2);
    let report = report(&old, &new);
    assert!(
        report.changes.iter().all(|c| c.effect == Effect::Additive),
        "{:?}",
        report.changes
    );
    let spec = report
        .changes
        .iter()
        .find(|c| c.subject == "com::example::v2::WidgetSpec")
        .expect("the v2 spec");
    assert_eq!(spec.kind, "type_added");
    assert_eq!(
        spec.detail.as_deref(),
        Some("same fields as `com::example::v1::WidgetSpec`")
    );
    assert!(report.changes.iter().any(|c| c.kind == "operation_added"
        && c.subject == "GET /apis/example.com/v2/namespaces/{namespace}/widgets/{name}"));
}

/// A document with one operation, `GET /apis/example.com/v1/things`, taking `params`.
fn things(params: &Value, response: &str) -> Value {
    json!({
        "openapi": "3.0.0",
        "info": {"title": "things", "version": "v1"},
        "paths": {"/apis/example.com/v1/things": {"get": {
            "operationId": "listThings",
            "parameters": params,
            "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{response}")}}}}}
        }}},
        "components": {"schemas": {
            "com.example.v1.Thing": {"type": "object", "properties": {"name": {"type": "string"}}},
            "com.example.v1.Other": {"type": "object", "properties": {"id": {"type": "string"}}}
        }}
    })
}

fn param(name: &str, required: bool, ty: &str) -> Value {
    json!({"name": name, "in": "query", "required": required, "schema": {"type": ty}})
}

#[test]
fn operations_parameters_and_responses() {
    let limit = param("limit", false, "integer");
    let base = things(&json!([limit]), "com.example.v1.Thing");
    let kinds = |new: &Value| -> Vec<(Effect, &'static str)> {
        report(&base, new)
            .changes
            .iter()
            .map(|c| (c.effect, c.kind))
            .collect()
    };
    let optional = things(
        &json!([limit, param("pretty", false, "string")]),
        "com.example.v1.Thing",
    );
    assert_eq!(kinds(&optional), [(Effect::Additive, "parameter_added")]);
    let required = things(
        &json!([limit, param("pretty", true, "string")]),
        "com.example.v1.Thing",
    );
    assert_eq!(
        kinds(&required),
        [(Effect::Breaking, "required_parameter_added")]
    );
    // The last optional parameter gone, the function loses its query argument; the first
    // one added, it gains one: either breaks every call.
    let none = things(&json!([]), "com.example.v1.Thing");
    assert_eq!(
        kinds(&none),
        [
            (Effect::Breaking, "parameter_removed"),
            (Effect::Breaking, "query_struct_removed")
        ]
    );
    assert_eq!(
        report(&none, &base)
            .changes
            .iter()
            .map(|c| (c.effect, c.kind, c.new.as_deref()))
            .collect::<Vec<_>>(),
        [
            (
                Effect::Breaking,
                "query_struct_added",
                Some("routes::ListThingsQuery")
            ),
            (Effect::Additive, "parameter_added", Some("limit: i64")),
        ]
    );
    assert_eq!(
        kinds(&things(
            &json!([param("limit", false, "string")]),
            "com.example.v1.Thing"
        )),
        [(Effect::Breaking, "parameter_changed")]
    );
    assert_eq!(
        kinds(&things(&json!([limit]), "com.example.v1.Other")),
        [(Effect::Breaking, "response_changed")]
    );
    let mut gone = base.clone();
    gone["paths"] = json!({});
    assert_eq!(kinds(&gone), [(Effect::Breaking, "operation_removed")]);
    assert_eq!(
        report(&gone, &base)
            .changes
            .iter()
            .map(|c| (c.effect, c.kind))
            .collect::<Vec<_>>(),
        [(Effect::Additive, "operation_added")]
    );
}

/// A parameter added to the operations of a kind adds a field to their shared struct
/// (additive: the struct keeps its name); a parameter that moves the set to another kind
/// makes the function take another struct, which breaks every call.
#[test]
fn query_structs_keep_their_names_and_another_struct_is_breaking() {
    let write = [
        param("dryRun", false, "string"),
        param("fieldManager", false, "string"),
        param("pretty", false, "string"),
    ];
    let base = things(&json!(write), "com.example.v1.Thing");
    let mut more = write.to_vec();
    more.push(param("fieldValidation", false, "string"));
    let added = report(&base, &things(&json!(more), "com.example.v1.Thing"));
    let changes: Vec<(Effect, &str, &str)> = added
        .changes
        .iter()
        .map(|c| (c.effect, c.kind, c.subject.as_str()))
        .collect();
    assert_eq!(
        changes,
        [
            (
                Effect::Additive,
                "parameter_added",
                "GET /apis/example.com/v1/things"
            ),
            (
                Effect::Additive,
                "query_field_added",
                "routes::CreateOrReplaceQuery.fieldValidation"
            ),
        ]
    );
    let mut patch = write.to_vec();
    patch.push(param("force", false, "boolean"));
    let moved = report(&base, &things(&json!(patch), "com.example.v1.Thing"));
    let renamed = moved
        .changes
        .iter()
        .find(|c| c.kind == "query_struct_changed")
        .unwrap_or_else(|| panic!("{:#?}", moved.changes));
    assert_eq!(renamed.effect, Effect::Breaking);
    assert_eq!(renamed.old.as_deref(), Some("routes::CreateOrReplaceQuery"));
    assert_eq!(renamed.new.as_deref(), Some("routes::PatchQuery"));
    assert!(moved.changes.iter().any(|c| c.kind == "query_type_removed"
        && c.effect == Effect::Breaking
        && c.subject == "routes::CreateOrReplaceQuery"));
}

#[test]
fn the_report_orders_sections_then_breaking_first() {
    let old = widget();
    let mut new = old.clone();
    spec(&mut new)["properties"]["label"] = json!({"type": "string"});
    spec(&mut new)["properties"]["color"]["enum"] = json!(["red"]);
    spec(&mut new)["properties"]["color"]["default"] = json!("blue");
    let report = report(&old, &new);
    let effects: Vec<Effect> = report.changes.iter().map(|c| c.effect).collect();
    assert_eq!(
        effects,
        [Effect::Breaking, Effect::Additive, Effect::Compatible]
    );
    let markdown = diff::markdown(&report);
    let (breaking, additive) = (
        markdown.find("Breaking:").expect("a breaking heading"),
        markdown.find("Additive:").expect("an additive heading"),
    );
    assert!(breaking < additive, "{markdown}");
    let json: Value = serde_json::from_str(&diff::json(&report)).expect("JSON output");
    assert_eq!(json["bump"], "major");
    assert_eq!(json["changes"][0]["kind"], "enum_value_removed");
    assert_eq!(json["changes"][0]["old"], "blue");
}

/// `tests/diff/old.json` → `new.json` (a resource with paths, a spec with one change of
/// every kind, a type moving from v1beta1 to v1), as text and Markdown, compared with
/// `tests/diff/report.txt` and `report.md`; `KUBEFORGE_BLESS=1` rewrites them.
#[test]
fn golden_text_and_markdown_reports() {
    let dir = kubeforge_tests::workspace_root().join("tests/diff");
    let old = Config::new().input_named(dir.join("old.json"), "tests/diff/old.json");
    let new = Config::new().input_named(dir.join("new.json"), "tests/diff/new.json");
    let report = diff::configs(&old, &new).expect("the golden documents load");
    let bless = kubeforge_tests::bless();
    let mut stale = Vec::new();
    for (name, text) in [
        ("report.txt", diff::text(&report)),
        ("report.md", diff::markdown(&report)),
    ] {
        let path = dir.join(name);
        let golden = std::fs::read_to_string(&path).unwrap_or_default();
        if golden == text {
            continue;
        }
        if bless {
            std::fs::write(&path, &text).expect("write golden");
            kubeforge_tests::notice(&format!("blessed tests/diff/{name}"));
        } else {
            stale.push(format!(
                "tests/diff/{name} differs (KUBEFORGE_BLESS=1 rewrites it):\n{}",
                similar::TextDiff::from_lines(&golden, &text)
                    .unified_diff()
                    .header("golden", "actual")
            ));
        }
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}
