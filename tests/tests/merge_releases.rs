//! Merging documents from different releases (`load/merge.rs`): definitions that make the
//! same model merge silently, real conflicts need a stated precedence (`Config::prefer`,
//! `--prefer`), and Kubernetes 1.36 plus OpenShift's published `openapi.json` make one crate.

use std::collections::BTreeSet;

use kubeforge::package::write_crate;
use kubeforge::view::{Kind, Model, Operation, Role};
use kubeforge::{Config, ErrorKind};
use kubeforge_tests::{scale, workspace_root};
use serde_json::{Value, json};

/// A v3 document defining `io.x.v1.Widget` as `widget`, plus a `Thing` it references.
fn document(widget: &Value) -> Vec<u8> {
    serde_json::to_vec_pretty(&json!({
        "openapi": "3.0.0",
        "info": {"title": "x", "version": "v1"},
        "paths": {},
        "components": {"schemas": {
            "io.x.v1.Widget": widget,
            "io.x.v1.Thing": {"type": "object", "properties": {"a": {"type": "string"}}},
        }}
    }))
    .expect("serializes")
}

fn config(a: &Value, b: &Value) -> Config {
    Config::new()
        .input_bytes("a.json", document(a))
        .input_bytes("b.json", document(b))
}

/// The Widget's properties: name, Rust type, required.
fn widget_fields(api: &Model) -> Vec<(String, String, bool)> {
    let widget = api.schema("io.x.v1.Widget").expect("Widget");
    assert_eq!(widget.kind(), Kind::Struct, "Widget is a struct");
    widget
        .fields()
        // The properties: not the field that keeps unknown keys.
        .filter(|f| f.role() == Role::Plain)
        .map(|f| {
            (
                f.json_name().to_owned(),
                f.shape().to_string(),
                f.required(),
            )
        })
        .collect()
}

#[test]
fn definitions_that_make_the_same_model_merge_silently() {
    let a = json!({
        "description": "A widget, as release A documents it.",
        "type": "object",
        "required": ["name", "size"],
        "properties": {
            "name": {"type": "string", "description": "The name."},
            "size": {"type": "integer", "format": "int32"},
            "mode": {"type": "string", "enum": ["Fast", "Slow"]},
            "thing": {"$ref": "#/components/schemas/io.x.v1.Thing"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "x-kubernetes-group-version-kind": [{"group": "x", "version": "v1", "kind": "Widget"}],
    });
    // Release B: other descriptions, Go zero values as defaults, `required` in another
    // order, the reference wrapped as v3 documents do, a newer enum value, no GVK list.
    let b = json!({
        "description": "A widget, as release B documents it.",
        "type": "object",
        "required": ["size", "name"],
        "properties": {
            "name": {"type": "string", "default": ""},
            "size": {"type": "integer", "format": "int32", "default": 0},
            "mode": {"type": "string", "enum": ["Fast", "Slow", "Paused"]},
            "thing": {"allOf": [{"$ref": "#/components/schemas/io.x.v1.Thing"}], "default": {}},
            "tags": {"type": "array", "items": {"type": "string", "default": ""}},
        },
    });
    for (first, second) in [(&a, &b), (&b, &a)] {
        let output = config(first, second)
            .generate()
            .unwrap_or_else(|e| panic!("same model must merge:\n{e}"));
        assert!(output.warnings().is_empty(), "{:?}", output.warnings());
    }
    let api = config(&a, &b).model().expect("merges");
    let alone = Config::new()
        .input_bytes("a.json", document(&a))
        .model()
        .expect("a alone");
    let fields = widget_fields(&api);
    let names: Vec<&str> = fields.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, ["name", "size", "mode", "thing", "tags"]);
    assert_eq!(fields, widget_fields(&alone), "the merged type is A's type");

    // The enum is the union, and its docs say so.
    let mode = api.schema("io.x.v1.Widget.mode").expect("the mode enum");
    assert_eq!(mode.kind(), Kind::Enum, "mode is an enum");
    let values: Vec<&str> = mode.enum_values().collect();
    assert_eq!(values, ["Fast", "Slow", "Paused"]);
    assert!(
        mode.description()
            .is_some_and(|d| d.contains("union of this schema's `enum` in a.json and in b.json")),
        "{:?}",
        mode.description()
    );

    // Documentation: the first input's, by the stated rule; a gap is filled from the other.
    let widget = api.schema("io.x.v1.Widget").expect("Widget");
    assert_eq!(
        widget.description(),
        Some("A widget, as release A documents it.")
    );
    let reversed = config(&b, &a).model().expect("merges");
    let widget = reversed.schema("io.x.v1.Widget").expect("Widget");
    assert_eq!(
        widget.description(),
        Some("A widget, as release B documents it.")
    );
    let name = widget.field("name").expect("name");
    assert_eq!(name.description(), Some("The name."));
    // The GVK list is the union: with B first, Widget still is a kind.
    assert!(widget.gvk().is_some(), "GVK lists are merged");
}

#[test]
fn a_real_conflict_is_an_error_naming_the_flag_and_prefer_decides_it() {
    let a = json!({"type": "object", "properties": {
        "size": {"type": "integer", "format": "int32"},
        "mode": {"type": "string", "default": "Fast"},
    }});
    for (b, pointer) in [
        // Another format: another Rust type.
        (
            json!({"type": "object", "properties": {
                "size": {"type": "integer", "format": "int64"},
                "mode": {"type": "string", "default": "Fast"},
            }}),
            "/properties/size/format",
        ),
        // A default that builders start with.
        (
            json!({"type": "object", "properties": {
                "size": {"type": "integer", "format": "int32"},
                "mode": {"type": "string", "default": "Slow"},
            }}),
            "/properties/mode/default",
        ),
        // Another field.
        (
            json!({"type": "object", "properties": {
                "size": {"type": "integer", "format": "int32"},
                "mode": {"type": "string", "default": "Fast"},
                "extra": {"type": "boolean"},
            }}),
            "/properties/extra",
        ),
    ] {
        let error = config(&a, &b).generate().expect_err("a real conflict");
        assert_eq!(error.kinds(), [ErrorKind::ConflictingDefinition]);
        let d = &error.diagnostics()[0];
        assert_eq!(d.origin.file.to_str(), Some("b.json"));
        assert_eq!(
            d.origin.pointer,
            format!("/components/schemas/io.x.v1.Widget{pointer}")
        );
        assert!(
            d.message
                .contains("a.json#/components/schemas/io.x.v1.Widget"),
            "{d}"
        );
        let hint = d.hint.as_deref().unwrap_or_default();
        assert!(
            hint.contains("--prefer a.json") && hint.contains("Config::prefer"),
            "{hint}"
        );

        for (preferred, other) in [("a.json", "b.json"), ("b.json", "a.json")] {
            let output = config(&a, &b)
                .prefer(preferred)
                .generate()
                .unwrap_or_else(|e| panic!("prefer decides:\n{e}"));
            let [warning] = output.warnings() else {
                panic!("one override, one warning: {:?}", output.warnings())
            };
            assert_eq!(warning.kind, ErrorKind::OverriddenDefinition);
            assert_eq!(warning.origin.file.to_str(), Some(preferred));
            assert!(
                warning
                    .message
                    .contains(&format!("{other}#/components/schemas/io.x.v1.Widget")),
                "{warning}"
            );
            assert!(
                warning
                    .message
                    .contains(&format!("first differ at #{pointer}")),
                "{warning}"
            );
            assert!(
                warning
                    .to_string()
                    .starts_with("warning[overridden-definition]")
            );
            let api = config(&a, &b).prefer(preferred).model().expect("models");
            let expected = if preferred == "a.json" { &a } else { &b };
            let alone = Config::new()
                .input_bytes(preferred, document(expected))
                .model()
                .expect("alone");
            assert_eq!(
                widget_fields(&api),
                widget_fields(&alone),
                "{preferred} wins"
            );
        }
    }

    // A difference read through a one-element `allOf` is located at the nearest node the
    // file has.
    let thing = json!({"type": "object", "properties": {
        "t": {"$ref": "#/components/schemas/io.x.v1.Thing"},
    }});
    let widget = json!({"type": "object", "properties": {
        "t": {"allOf": [{"$ref": "#/components/schemas/io.x.v1.Widget"}]},
    }});
    let error = config(&thing, &widget)
        .generate()
        .expect_err("another $ref");
    let d = &error.diagnostics()[0];
    assert_eq!(
        d.origin.pointer,
        "/components/schemas/io.x.v1.Widget/properties/t"
    );
    assert!(
        d.message.contains("first differ at #/properties/t/$ref"),
        "{d}"
    );
    assert!(d.location.is_some(), "located in the file: {d}");

    let error = config(&a, &a)
        .prefer("c.json")
        .generate()
        .expect_err("c.json is no input");
    assert!(
        error
            .to_string()
            .contains("`c.json` to be one of the inputs"),
        "{error}"
    );
}

/// `Config::prefer` names an input however it was given or typed: files given absolute
/// are preferred by a path through `..` or a symbolic link to them, files given under a
/// display name (`input_named`, as the command line names them relative to `--out`) by
/// their real path and by that name, and in-memory inputs by their name with `./`.
#[test]
fn prefer_names_an_input_by_any_path_to_it() {
    let a =
        json!({"type": "object", "properties": {"size": {"type": "integer", "format": "int32"}}});
    let b = json!({"type": "object", "properties": {"size": {"type": "string"}}});
    let dir = tempfile::tempdir().expect("temp dir");
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).expect("docs");
    std::fs::write(docs.join("a.json"), document(&a)).expect("write a");
    std::fs::write(docs.join("b.json"), document(&b)).expect("write b");
    #[cfg(unix)]
    std::os::unix::fs::symlink(docs.join("b.json"), dir.path().join("link.json")).expect("link");
    let size = |config: Config| -> String {
        let api = config.model().unwrap_or_else(|e| panic!("{e}"));
        widget_fields(&api)
            .into_iter()
            .find(|(name, ..)| name == "size")
            .expect("size")
            .1
    };
    let files = || {
        Config::new()
            .input(docs.join("a.json"))
            .input(docs.join("b.json"))
    };
    assert_eq!(
        size(files().prefer(docs.join("../docs/./b.json"))),
        "String"
    );
    assert_eq!(size(files().prefer(docs.join("a.json"))), "i32");
    #[cfg(unix)]
    assert_eq!(size(files().prefer(dir.path().join("link.json"))), "String");
    let named = || {
        Config::new()
            .input_named(docs.join("a.json"), "../docs/a.json")
            .input_named(docs.join("b.json"), "../docs/b.json")
    };
    assert_eq!(size(named().prefer("../docs/b.json")), "String");
    assert_eq!(size(named().prefer(docs.join("b.json"))), "String");
    assert_eq!(size(config(&a, &b).prefer("./b.json")), "String");
    assert_eq!(size(config(&a, &b).prefer("a.json")), "i32");
    let error = files()
        .prefer(docs.join("c.json"))
        .model()
        .expect_err("no input is c.json");
    assert!(error.to_string().contains("c.json"), "{error}");
}

/// Kubernetes 1.36's swagger, OpenShift's `openapi.json` (a copy of 314 `io.k8s.*`
/// definitions from another release), and the seed `image.openshift.io/v1` document as a
/// cluster serves it (`schemas/`, which carries ImageStream's paths): the guide's OpenShift
/// recipe, as `scale::openshift_recipe_config` gives it.
fn openshift_config(corpus: &std::path::Path) -> Config {
    scale::openshift_recipe_config(corpus)
}

#[test]
fn kubernetes_and_openshift_merge_into_one_crate() {
    let Some(corpus) = kubeforge_tests::corpus_dir("merge: Kubernetes 1.36 + OpenShift") else {
        return;
    };
    let swagger = corpus.join("kubernetes/swagger.json");

    // Without a precedence, only the real conflicts are errors: non-zero defaults that one
    // release states and the other does not, and 1.36's new `ListMeta.shardInfo`.
    let error = openshift_config(&corpus)
        .generate()
        .expect_err("real conflicts");
    let conflicts: BTreeSet<String> = error
        .diagnostics()
        .iter()
        .map(|d| {
            assert_eq!(d.kind, ErrorKind::ConflictingDefinition, "{d}");
            assert!(
                d.hint.as_deref().unwrap_or_default().contains("--prefer"),
                "{d}"
            );
            let name = d
                .message
                .split('`')
                .nth(1)
                .expect("the message names the definition");
            format!(
                "{name}{}",
                d.message
                    .rsplit_once(" at #")
                    .map_or("", |(_, p)| p)
                    .split(' ')
                    .next()
                    .unwrap_or_default()
            )
        })
        .collect();
    let expected: BTreeSet<String> = [
        "io.k8s.api.core.v1.AzureDiskVolumeSource/properties/cachingMode/default",
        "io.k8s.api.core.v1.ContainerPort/properties/protocol/default",
        "io.k8s.api.core.v1.ISCSIPersistentVolumeSource/properties/iscsiInterface/default",
        "io.k8s.api.core.v1.ISCSIVolumeSource/properties/iscsiInterface/default",
        "io.k8s.api.core.v1.RBDPersistentVolumeSource/properties/keyring/default",
        "io.k8s.api.core.v1.RBDVolumeSource/properties/keyring/default",
        "io.k8s.api.core.v1.ReplicationControllerSpec/properties/replicas/default",
        "io.k8s.api.core.v1.ScaleIOPersistentVolumeSource/properties/fsType/default",
        "io.k8s.api.core.v1.ScaleIOVolumeSource/properties/fsType/default",
        "io.k8s.api.core.v1.ServicePort/properties/protocol/default",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta/properties/shardInfo",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(conflicts, expected, "{error}");

    let config = openshift_config(&corpus).prefer(&swagger);
    let api = config.model().unwrap_or_else(|e| panic!("{e}"));
    let output = config.generate().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.warnings().len(), expected.len());
    let swagger_name = scale::source_name(&swagger, &scale::openshift_recipe_crate());
    assert!(
        output
            .warnings()
            .iter()
            .all(|w| w.origin.file == swagger_name && w.kind == ErrorKind::OverriddenDefinition),
        "{:?}",
        output.warnings()
    );

    // Kubernetes' real routes, exactly as the swagger alone gives them.
    let k8s = Config::new()
        .input(&swagger)
        .model()
        .unwrap_or_else(|e| panic!("{e}"));
    let kubernetes = |api: &Model| -> Vec<String> {
        api.operations()
            .filter(|op| !op.path().contains("openshift.io"))
            .map(describe)
            .collect()
    };
    assert!(kubernetes(&k8s).len() > 1000);
    assert_eq!(kubernetes(&api), kubernetes(&k8s));

    // ImageStream's endpoints exactly as generated/ has them from schemas/.
    let seed = Config::new()
        .input(workspace_root().join("schemas/image.openshift.io_v1.json"))
        .model()
        .unwrap_or_else(|e| panic!("{e}"));
    let openshift = |api: &Model| -> Vec<String> {
        api.operations()
            .filter(|op| op.path().contains("openshift.io"))
            .map(describe)
            .collect()
    };
    assert_eq!(openshift(&api).len(), 14, "{:#?}", openshift(&api));
    // The route table's content, the functions' and decoders' names included (the query
    // structs' too: named after the kind of operation, they are the same whichever
    // documents come along).
    assert_eq!(openshift(&api), openshift(&seed));

    // One crate that builds with warnings denied; a Pod and an ImageStream built with its
    // builders serialize as generated/'s do. The crate is the OpenShift recipe's, where
    // `codegen/tests/docs_examples.rs` runs it: when that test ran first, no file changes and
    // only the program below is compiled.
    let dir = scale::openshift_recipe_crate();
    let report = write_crate(&output, &dir, &scale::openshift_recipe_options())
        .unwrap_or_else(|e| panic!("does not write:\n{e}"));
    eprintln!(
        "{}: {} files written, {} unchanged",
        dir.display(),
        report.written.len(),
        report.unchanged.len()
    );
    std::fs::create_dir_all(dir.join("examples")).expect("examples dir");
    let program = format!(
        "//! Written by kubeforge's merge test.\nuse {} as krate;\n\n{}\n\
         fn main() {{\n    let (pod, stream) = objects();\n    println!(\"{{pod}}\");\n    println!(\"{{stream}}\");\n}}\n",
        scale::OPENSHIFT_RECIPE_NAME.replace('-', "_"),
        include_str!("merge_releases/objects.rs")
    );
    std::fs::write(dir.join("examples/objects.rs"), program).expect("write program");
    let run = kubeforge_tests::scale::command(&dir)
        .args(["run", "--quiet", "--example", "objects"])
        .output()
        .expect("cargo runs");
    assert!(
        run.status.success(),
        "the merged crate does not build:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    let printed: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    let (pod, stream) = before::objects();
    assert_eq!(printed, [pod, stream]);
}

mod before {
    use kubeforge_api as krate;
    include!("merge_releases/objects.rs");
}

/// An operation as text, with types by their Rust paths.
fn describe(op: Operation<'_>) -> String {
    let resource = op.target().map(|r| {
        format!(
            "{:?} {} {:?} {:?}",
            r.gvk(),
            r.plural(),
            r.subresource(),
            r.namespaced()
        )
    });
    let query: Vec<String> = op
        .query_params()
        .map(|q| {
            format!(
                "{} {} {} {}",
                q.name(),
                q.rust_name(),
                q.shape(),
                q.required()
            )
        })
        .collect();
    let body = op.body().map(|b| {
        format!(
            "{} {:?} {:?} {}",
            b.shape(),
            b.is_patch(),
            b.content_types(),
            b.required()
        )
    });
    let responses: Vec<String> = op
        .responses()
        .map(|r| format!("{} {:?} {:?}", r.status(), r.body_type(), r.content_types()))
        .collect();
    let path_params: Vec<&str> = op.path_params().collect();
    format!(
        "{} {} {} {:?} {resource:?} path{path_params:?} query{query:?} body{body:?} responses{responses:?} accept {:?} deprecated {} {:?} {:?} {:?} {:?} {:?}",
        op.id(),
        op.method(),
        op.path(),
        op.action(),
        op.accept(),
        op.deprecated(),
        op.function(),
        op.decoder(),
        op.response_type(),
        op.query_type(),
        op.watch_query_type(),
    )
}
