//! Every `x-kubernetes-validations` rule (and `messageExpression`) of Istio's published CRDs
//! (`../shared/validation/istio/customresourcedefinitions.gen.yaml`, or under
//! `$KUBEFORGE_VALIDATION`) compiles with the
//! evaluator, and each runs on a value of its schema's type without an evaluation error.
//! The rule texts are read from the YAML as plain strings: turning documents into nodes is
//! the generator's job, not this test's.

use kubeforge_runtime::schema::cel::check_rule;
use kubeforge_runtime::schema::{JsonType, NoReferences, Node, Rule, validate};
use serde_json::{Value, json};

/// The CRDs' text; `None` after a visible `SKIPPED` when the validation data is missing (a
/// failure in CI: [`kubeforge_tests::validation_data`]).
fn istio_crds(test: &str) -> Option<String> {
    let file = "istio/customresourcedefinitions.gen.yaml";
    let dir = kubeforge_tests::validation_data(test, &[file])?;
    Some(std::fs::read_to_string(dir.join(file)).expect("the Istio CRDs read"))
}

/// Every rule object under an `x-kubernetes-validations` key, with its JSON pointer and the
/// `type` of the schema it sits in.
fn rules(value: &Value, pointer: &str, out: &mut Vec<(String, Value, Option<String>)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let here = format!("{pointer}/{k}");
                if k == "x-kubernetes-validations"
                    && let Some(list) = v.as_array()
                {
                    let ty = map.get("type").and_then(Value::as_str).map(str::to_owned);
                    for (i, rule) in list.iter().enumerate() {
                        out.push((format!("{here}/{i}"), rule.clone(), ty.clone()));
                    }
                }
                rules(v, &here, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                rules(v, &format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_istio_rule_compiles() {
    let Some(text) = istio_crds("every_istio_rule_compiles") else {
        return;
    };
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).expect("the Istio CRDs parse");
    let mut found = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        rules(doc, &format!("doc{i}"), &mut found);
    }
    assert!(found.len() >= 390, "only {} rules found", found.len());
    let mut failures = Vec::new();
    for (pointer, rule, _) in &found {
        let text = rule["rule"].as_str().expect("a rule has a rule");
        if let Err(e) = check_rule(text) {
            failures.push(format!("{pointer}: {text:?}: {e}"));
        }
        if let Some(m) = rule.get("messageExpression").and_then(Value::as_str)
            && let Err(e) = check_rule(m)
        {
            failures.push(format!("{pointer}/messageExpression: {m:?}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rules do not compile:\n{}",
        failures.len(),
        found.len(),
        failures.join("\n")
    );
    println!("{} Istio rules compile", found.len());
}

/// Each rule also runs, on a plain value of its schema's type: it may hold or not, or fail
/// on data (`no such key` for an absent field, as in the API server), but never for want
/// of a function, an overload or a macro.
#[test]
fn every_istio_rule_runs() {
    let Some(text) = istio_crds("every_istio_rule_runs") else {
        return;
    };
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).expect("the Istio CRDs parse");
    let mut found = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        rules(doc, &format!("doc{i}"), &mut found);
    }
    let mut failures = Vec::new();
    for (pointer, rule, ty) in &found {
        let (ty, value) = match ty.as_deref() {
            Some("string") => (JsonType::String, json!("1ms")),
            Some("integer") => (JsonType::Integer, json!(80)),
            Some("number") => (JsonType::Number, json!(1.5)),
            Some("boolean") => (JsonType::Boolean, json!(true)),
            Some("array") => (JsonType::Array, json!([])),
            _ => (JsonType::Object, json!({})),
        };
        let node = Node {
            ty: Some(ty),
            items: (ty == JsonType::Array).then(|| Box::new(Node::default())),
            rules: vec![Rule {
                rule: rule["rule"].as_str().unwrap_or_default().to_owned(),
                ..Rule::default()
            }],
            ..Node::default()
        };
        for error in validate(&node, &NoReferences, &value, None) {
            let detail = &error.detail;
            if detail.contains("compile error")
                || detail.contains("undeclared")
                || detail.contains("did not match a supported")
            {
                failures.push(format!("{pointer}: {error}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_rule_the_evaluator_cannot_run_is_an_error_naming_it() {
    for (rule, reason) in [
        ("self.size() >", "compilation failed"),
        (
            "self.noSuchFunction()",
            "undeclared reference to 'noSuchFunction'",
        ),
        (
            "noSuchVariable > 1",
            "undeclared reference to 'noSuchVariable'",
        ),
        // `cel.bind` (cel-go's ext.Bindings) is not in the Kubernetes environment.
        ("cel.bind(x, 1, x > 0)", "undeclared reference to 'bind'"),
    ] {
        let e = check_rule(rule).expect_err(rule);
        assert!(e.contains(reason), "{rule}: {e}");
    }
}
