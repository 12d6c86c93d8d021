//! The binary as the guide shows it and as a user types it: each case runs `kubeforge` in a
//! directory of its own, with the paths a user would type (relative, absolute, through
//! `..`), and checks what it prints and writes; crates that must build are built.
//!
//! Tests over the real documents find them with `kubeforge_tests::corpus` (`../shared/corpus`
//! or `$KUBEFORGE_CORPUS`; missing files fail in CI and print `SKIPPED` otherwise), and build
//! in the shared target directory of the corpus tests (`kubeforge_tests::scale`), so
//! dependencies build once.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What a run of the binary did.
struct Run {
    success: bool,
    stdout: String,
    stderr: String,
}

/// Runs `kubeforge args…` in `dir`, with `stdin` as standard input.
fn kubeforge_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Run {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubeforge"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kubeforge runs");
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(stdin.unwrap_or_default())
        .expect("write stdin");
    drop(input);
    let output = child.wait_with_output().expect("kubeforge ends");
    Run {
        success: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `kubeforge args…` in `dir` and panics with its output unless it succeeds.
fn kubeforge_ok(dir: &Path, args: &[&str]) -> Run {
    let run = kubeforge_in(dir, args, None);
    assert!(
        run.success,
        "`kubeforge {}` fails in {}:\n{}",
        args.join(" "),
        dir.display(),
        run.stderr
    );
    run
}

/// `cargo <args>` in `dir` with warnings denied, in the corpus tests' shared target
/// directory; the compiler's output on failure.
fn cargo(dir: &Path, args: &[&str]) {
    kubeforge_tests::scale::cargo(dir, args);
}

/// A Swagger 2.0 document defining `io.example.v1.Widget` with `size` of JSON type `size`
/// (with a different description per document, which merges).
fn widget_document(size: &str) -> String {
    serde_json::json!({
        "swagger": "2.0",
        "info": {"title": format!("widgets with {size} sizes"), "version": "v1"},
        "paths": {},
        "definitions": {
            "io.example.v1.Widget": {
                "type": "object",
                "properties": {"size": {"type": size, "description": format!("a {size}")}},
            }
        }
    })
    .to_string()
}

/// The Rust type of `Widget.size` in the crate generated at `out`.
fn widget_size(out: &Path) -> String {
    let code = std::fs::read_to_string(out.join("src/io/example/v1/widget.rs")).expect("widget.rs");
    let line = code
        .lines()
        .find(|l| l.trim_start().starts_with("pub size:"))
        .expect("a `size` field");
    line.trim().to_owned()
}

/// `work/docs/{int,text}.json`, two documents that really conflict, under a fresh temporary
/// directory `work`.
fn conflicting_documents() -> tempfile::TempDir {
    let work = tempfile::tempdir().expect("temp dir");
    let docs = work.path().join("docs");
    std::fs::create_dir_all(&docs).expect("docs dir");
    std::fs::write(docs.join("int.json"), widget_document("integer")).expect("write");
    std::fs::write(docs.join("text.json"), widget_document("string")).expect("write");
    work
}

const INTEGER: &str = "pub size: Option<i64>,";
const STRING: &str = "pub size: Option<String>,";

/// `--prefer` names an input however it is typed: as given, with `./`, absolute, through
/// `..`, as another relative path to the same file, and for standard input as `-`; with
/// `--out` near and far (the CLI names inputs relative to the output directory in the
/// generated headers, which must not matter), and without `--out` (`kubeforge routes`).
#[test]
fn prefer_matches_an_input_however_it_is_typed() {
    let work = conflicting_documents();
    let root = work.path();
    let docs = root.join("docs");
    let abs = |name: &str| docs.join(name).display().to_string();
    let sub = root.join("sub");
    std::fs::create_dir_all(&sub).expect("sub dir");

    // (current directory, inputs, preference, output directory, the size type that wins)
    let strings = |list: &[&str]| -> Vec<String> { list.iter().map(|s| (*s).to_owned()).collect() };
    let cases: Vec<(&Path, Vec<String>, String, String, &str)> = vec![
        (
            &docs,
            strings(&["int.json", "text.json"]),
            "int.json".into(),
            "api".into(),
            INTEGER,
        ),
        (
            &docs,
            strings(&["int.json", "text.json"]),
            "text.json".into(),
            "api".into(),
            STRING,
        ),
        (
            &docs,
            strings(&["int.json", "text.json"]),
            "./text.json".into(),
            "../out/deeper/api".into(),
            STRING,
        ),
        (
            &docs,
            strings(&["int.json", "text.json"]),
            abs("text.json"),
            "api".into(),
            STRING,
        ),
        (
            root,
            vec![abs("int.json"), abs("text.json")],
            "docs/text.json".into(),
            "api".into(),
            STRING,
        ),
        (
            &sub,
            strings(&["../docs/int.json", "../docs/text.json"]),
            "../docs/../docs/text.json".into(),
            "api".into(),
            STRING,
        ),
        (
            &sub,
            strings(&["../docs/int.json", "../docs/text.json"]),
            abs("int.json"),
            root.join("elsewhere/api").display().to_string(),
            INTEGER,
        ),
    ];
    for (dir, inputs, prefer, out, expected) in cases {
        let out_dir = dir.join(&out);
        let mut args: Vec<&str> = inputs.iter().map(String::as_str).collect();
        args.extend(["--out", &out, "--prefer", &prefer]);
        let run = kubeforge_ok(dir, &args);
        assert_eq!(
            widget_size(&out_dir),
            expected,
            "`kubeforge {}` in {}",
            args.join(" "),
            dir.display()
        );
        // The override is a warning that names the input as it was typed.
        let winner = inputs
            .iter()
            .find(|i| {
                Path::new(i.as_str()).file_name() == Path::new(&prefer).file_name()
                    || std::fs::canonicalize(dir.join(i)).ok()
                        == std::fs::canonicalize(dir.join(&prefer)).ok()
            })
            .expect("the preferred input");
        assert!(
            run.stderr.contains(&format!("┌─ {winner}:1:")),
            "the warning names `{winner}` as typed:\n{}",
            run.stderr
        );

        // The same inputs and preference without `--out`.
        let mut args: Vec<&str> = vec!["routes"];
        args.extend(inputs.iter().map(String::as_str));
        args.extend(["--prefer", &prefer]);
        kubeforge_ok(dir, &args);
    }

    // Standard input is `-`.
    let text = std::fs::read(docs.join("text.json")).expect("read");
    let run = kubeforge_in(
        &docs,
        &["int.json", "-", "--out", "stdin-api", "--prefer", "-"],
        Some(&text),
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(widget_size(&docs.join("stdin-api")), STRING);

    // Without a preference the conflict is an error whose hint names the flag with the
    // inputs as typed, and the hint's command works as written.
    let run = kubeforge_in(
        &sub,
        &["../docs/int.json", "../docs/text.json", "--out", "api"],
        None,
    );
    assert!(!run.success);
    assert!(
        run.stderr.contains("--prefer ../docs/int.json"),
        "{}",
        run.stderr
    );
    kubeforge_ok(
        &sub,
        &[
            "../docs/int.json",
            "../docs/text.json",
            "--out",
            "api",
            "--prefer",
            "../docs/int.json",
        ],
    );

    // A preference that names no input is an error listing the inputs as typed.
    let run = kubeforge_in(
        &docs,
        &[
            "int.json",
            "text.json",
            "--out",
            "api",
            "--prefer",
            "other.json",
        ],
        None,
    );
    assert!(!run.success);
    assert!(
        run.stderr.contains("`other.json`") && run.stderr.contains("`int.json`, `text.json`"),
        "{}",
        run.stderr
    );
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Schemas named like what the crate root declares itself (`Routes`, `Lib`, `Builder`, and
/// packages `routes` and `lib`) beside a route table: the crate compiles, every type is
/// where its name says, and the renamed one is a warning.
#[test]
fn schema_names_never_clash_with_the_crate_roots_own() {
    let work = tempfile::tempdir().expect("temp dir");
    let document = serde_json::json!({
        "swagger": "2.0",
        "info": {"title": "names the crate root has", "version": "v1"},
        "paths": {
            "/apis/example.com/v1/routes": {
                "get": {
                    "operationId": "listRoutes",
                    "x-kubernetes-action": "list",
                    "parameters": [{"name": "limit", "in": "query", "type": "integer"}],
                    "responses": {"200": {"description": "OK", "schema": {"$ref": "#/definitions/Routes"}}}
                }
            }
        },
        "definitions": {
            "Routes": {"type": "object", "properties": {"hops": {"type": "array", "items": {"type": "string"}}}},
            "Lib": {"type": "object", "properties": {"name": {"type": "string"}}},
            "Builder": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
            "routes.v1.Table": {"type": "object", "properties": {"size": {"type": "integer", "format": "int32"}}},
            "lib.v1.Book": {"type": "object", "properties": {"title": {"type": "string"}}}
        }
    });
    std::fs::write(work.path().join("names.json"), document.to_string()).expect("write");
    let run = kubeforge_ok(
        work.path(),
        &["names.json", "--out", "names", "--crate-name", "names"],
    );
    assert!(
        run.stderr.contains(
            "the schema `Builder` becomes the Rust type `Builder`, which the generated crate declares itself; it is generated as `Builder2`"
        ),
        "{}",
        run.stderr
    );
    let crate_dir = work.path().join("names");
    std::fs::create_dir_all(crate_dir.join("tests")).expect("tests dir");
    std::fs::write(
        crate_dir.join("tests/names.rs"),
        r##"
#[test]
fn every_type_is_where_its_name_says() {
    let routes = names::Routes::builder().hop("a").build();
    assert_eq!(serde_json::to_string(&routes).unwrap(), r#"{"hops":["a"]}"#);
    let _lib: names::Lib = serde_json::from_str(r#"{"name":"x"}"#).unwrap();
    let built: names::Builder2 = names::Builder2::builder("b").build();
    assert_eq!(built.name, "b");
    let _table: names::routes_::v1::Table = serde_json::from_str(r#"{"size":1}"#).unwrap();
    let _book: names::lib_::v1::Book = serde_json::from_str(r#"{"title":"t"}"#).unwrap();
    let request = names::routes::list_routes(&names::routes::ListRoutesQuery::default()).unwrap();
    assert_eq!(request.uri(), "/apis/example.com/v1/routes");
}
"##,
    )
    .expect("write the test");
    std::fs::copy(workspace().join("Cargo.lock"), crate_dir.join("Cargo.lock")).expect("lock");
    cargo(
        &crate_dir,
        &[&kubeforge_tests::scale::TEST[..], &["--quiet"]].concat(),
    );
}

/// A Swagger 2.0 document with one operation taking a form field (`in: formData`, which
/// Kubernetes never declares and kubeforge has no body for): that operation is skipped with
/// a note naming it, and everything else is generated and builds, also with `--no-routes`
/// and with a `--select` that leaves the operation out. A form field at path level skips
/// every operation of the path.
#[test]
fn a_form_operation_is_skipped_with_a_note_and_the_rest_generates() {
    let work = tempfile::tempdir().expect("temp dir");
    let document = serde_json::json!({
        "swagger": "2.0",
        "info": {"title": "gadgets with a form upload", "version": "v1"},
        "paths": {
            "/apis/example.com/v1/gadgets": {
                "get": {
                    "operationId": "listExampleComV1Gadget",
                    "x-kubernetes-action": "list",
                    "x-kubernetes-group-version-kind": {"group": "example.com", "version": "v1", "kind": "Gadget"},
                    "parameters": [{"name": "limit", "in": "query", "type": "integer"}],
                    "responses": {"200": {"description": "OK", "schema": {"$ref": "#/definitions/com.example.v1.GadgetList"}}}
                },
                "post": {
                    "operationId": "uploadExampleComV1Gadget",
                    "consumes": ["multipart/form-data"],
                    "parameters": [
                        {"name": "pretty", "in": "query", "type": "string"},
                        {"name": "file", "in": "formData", "type": "file"}
                    ],
                    "responses": {"201": {"description": "Created", "schema": {"$ref": "#/definitions/com.example.v1.Gadget"}}}
                }
            },
            "/apis/example.com/v1/upload": {
                "parameters": [{"name": "name", "in": "formData", "type": "string"}],
                "put": {
                    "operationId": "putUpload",
                    "responses": {"200": {"description": "OK"}}
                }
            }
        },
        "definitions": {
            "com.example.v1.Gadget": {
                "type": "object",
                "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Gadget"}],
                "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "metadata": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
                    "size": {"type": "integer", "format": "int32"}
                }
            },
            "com.example.v1.GadgetList": {
                "type": "object",
                "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "GadgetList"}],
                "required": ["items"],
                "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "items": {"type": "array", "items": {"$ref": "#/definitions/com.example.v1.Gadget"}},
                    "metadata": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"}
                }
            }
        }
    });
    std::fs::write(work.path().join("gadgets.json"), document.to_string()).expect("write");
    for extra in [
        &[][..],
        &["--no-routes"][..],
        &["--select", "kind=Gadget"][..],
    ] {
        let mut args = vec![
            "gadgets.json",
            "--out",
            "gadgets",
            "--crate-name",
            "gadgets",
        ];
        args.extend(extra);
        let run = kubeforge_ok(work.path(), &args);
        assert!(
            run.stderr.contains(
                "note: skipped the operation POST /apis/example.com/v1/gadgets (`uploadExampleComV1Gadget`): its parameter `file` is a form field (`in: formData`)"
            ) && run
                .stderr
                .contains("--> gadgets.json#/paths/~1apis~1example.com~1v1~1gadgets/post/parameters/1/in"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr.contains(
                "note: skipped the operation PUT /apis/example.com/v1/upload (`putUpload`): its parameter `name` is a form field"
            ),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr
                .contains("1 resource in: gadgets::com::example::v1::Gadget"),
            "{}",
            run.stderr
        );
        let gadget =
            std::fs::read_to_string(work.path().join("gadgets/src/com/example/v1/gadget.rs"))
                .expect("Gadget's file");
        assert!(gadget.contains("pub struct Gadget {"));
        assert!(
            !gadget.contains("upload"),
            "the form operation has no function"
        );
        assert_eq!(
            gadget.contains("pub fn list_gadget("),
            extra.is_empty() || extra[0] == "--select",
            "the list operation is generated with the routes"
        );
    }
    std::fs::copy(
        workspace().join("Cargo.lock"),
        work.path().join("gadgets/Cargo.lock"),
    )
    .expect("lock");
    cargo(&work.path().join("gadgets"), &["build", "--quiet"]);
}

/// A CRD whose integers have no format (a Go `int`, as controller-gen writes it): the crate
/// the command line makes reads `1.0`, `1e3` and `-2.0` as integers, as the API server's
/// validation of custom resources takes them, and writes them back as the server stores
/// them; a fraction is refused, and so is `1.0` for a formatted integer (read as Go reads
/// Kubernetes' own types). The same with serde's derive kept (`--type-attribute` with a
/// `#[serde(…)]` attribute).
#[test]
fn an_integer_without_format_reads_whole_floats_as_the_api_server_does() {
    let work = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        work.path().join("widgets.yaml"),
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
              ports: {type: array, items: {type: integer}}
              limits: {type: object, additionalProperties: {type: integer}}
              weight: {type: integer, format: int32}
          status:
            type: object
            properties:
              ready: {type: integer}
"#,
    )
    .expect("write the CRD");
    for extra in [
        &[][..],
        &[
            "--type-attribute",
            "WidgetSpec=#[serde(expecting = \"a widget spec\")]",
        ][..],
    ] {
        let mut args = vec![
            "widgets.yaml",
            "--out",
            "widgets",
            "--crate-name",
            "widgets",
        ];
        args.extend(extra);
        kubeforge_ok(work.path(), &args);
        let crate_dir = work.path().join("widgets");
        std::fs::create_dir_all(crate_dir.join("tests")).expect("tests dir");
        std::fs::write(
            crate_dir.join("tests/integers.rs"),
            r##"
use widgets::com::example::v1::{Widget, WidgetSpec};

fn through(json: serde_json::Value) -> Result<serde_json::Value, serde_json::Error> {
    let spec: WidgetSpec = serde_json::from_value(json)?;
    Ok(serde_json::to_value(spec).unwrap())
}

#[test]
fn whole_floats_are_integers() {
    use serde_json::json;
    assert_eq!(
        through(json!({"replicas": 1.0, "ports": [80.0, 443, 8e3], "limits": {"a": -2.0}})).unwrap(),
        json!({"replicas": 1, "ports": [80, 443, 8000], "limits": {"a": -2}})
    );
    assert!(through(json!({"replicas": 1.5})).is_err());
    assert!(through(json!({"ports": [1.25]})).is_err());
    assert!(through(json!({"weight": 1.0})).is_err());
    assert_eq!(through(json!({"weight": 3})).unwrap(), json!({"weight": 3}));
    let widget: Widget = serde_json::from_str(
        r#"{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
            "spec": {"replicas": 2.0}, "status": {"ready": 1e0}}"#,
    )
    .unwrap();
    assert_eq!(widget.spec.unwrap().replicas, Some(2));
    assert_eq!(widget.status.unwrap().ready, Some(1));
}
"##,
        )
        .expect("write the test");
        std::fs::copy(workspace().join("Cargo.lock"), crate_dir.join("Cargo.lock")).expect("lock");
        cargo(
            &crate_dir,
            &[&kubeforge_tests::scale::TEST[..], &["--quiet"]].concat(),
        );
    }
}

/// The caller's code that must compile, unchanged, against the crates of Kubernetes 1.35
/// and 1.36: the query structs it names keep their names when a release adds a parameter
/// (1.36 adds `shardSelector` to lists, watches and delete-collections).
const QUERY_CALLER: &str = r#"//! A caller of the generated crate, compiled against two Kubernetes releases.
use k8s::api::core::v1::Pod;
use k8s::routes::{DeleteCollectionQuery, DeleteQuery, GetQuery, ListOrWatchQuery, WatchQuery};
use kubeforge_runtime::http::StatusCode;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Listing pods with the default query options, and with some set.
    let list = Pod::list_namespaced_pod("shop", &ListOrWatchQuery::default())?;
    let selected = ListOrWatchQuery::builder().label_selector("app=web").limit(10).build();
    let paged = Pod::list_namespaced_pod("shop", &selected)?;
    let everywhere = Pod::list_pod_for_all_namespaces(&ListOrWatchQuery::default())?;
    let one = Pod::read_namespaced_pod("web", "shop", &GetQuery::default())?;
    // A delete and a delete collection.
    let delete = Pod::delete_namespaced_pod("web", "shop", None, &DeleteQuery::default())?;
    let gone = Pod::delete_collection_namespaced_pod(
        "shop",
        None,
        &DeleteCollectionQuery::builder().label_selector("app=web").build(),
    )?;
    // A watch, decoded as it arrives.
    let watch = Pod::watch_list_namespaced_pod("shop", &WatchQuery::default())?;
    let mut decoder = Pod::watch_list_namespaced_pod_decoder(StatusCode::OK);
    for event in decoder.feed(b"") {
        let _event = event?;
    }
    decoder.finish()?;
    for request in [list, paged, everywhere, one, delete, gone, watch] {
        println!("{} {}", request.method(), request.uri());
    }
    Ok(())
}
"#;

/// Query struct names stay the same when a release adds a parameter: the crates `kubeforge`
/// makes from the corpus's Kubernetes 1.35 and 1.36 swagger documents both compile the same
/// caller's code ([`QUERY_CALLER`]); `diff_reports_meta_type_changes_and_keeps_query_structs`
/// checks that `kubeforge diff` calls the new parameter additive.
#[test]
fn a_caller_compiles_against_kubernetes_1_35_and_1_36_unchanged() {
    let Some(corpus) = kubeforge_tests::corpus(
        "query struct names across Kubernetes releases",
        &["kubernetes/swagger-1.35.json", "kubernetes/swagger.json"],
    ) else {
        return;
    };
    let work = kubeforge_tests::scale::dir().join("crates/query-names");
    std::fs::create_dir_all(&work).expect("work dir");
    let runtime = workspace().join("runtime").canonicalize().expect("runtime");
    for (release, document) in [("1.35", "swagger-1.35.json"), ("1.36", "swagger.json")] {
        let api = format!("k8s-{release}");
        let input = corpus.join("kubernetes").join(document);
        kubeforge_ok(
            &work,
            &[
                input.to_str().expect("UTF-8 path"),
                "--out",
                &api,
                "--crate-name",
                &format!("k8s-{}", release.replace('.', "-")),
            ],
        );
        let caller = work.join(format!("caller-{release}"));
        std::fs::create_dir_all(caller.join("src")).expect("caller dir");
        std::fs::write(caller.join("src/main.rs"), QUERY_CALLER).expect("write the caller");
        std::fs::write(
            caller.join("Cargo.toml"),
            format!(
                "[package]\nname = \"caller-{}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
                 [dependencies]\nk8s = {{ package = \"k8s-{}\", path = \"../{api}\" }}\n\
                 kubeforge-runtime = {{ path = {:?} }}\n\n[workspace]\n",
                release.replace('.', "-"),
                release.replace('.', "-"),
                runtime.display().to_string(),
            ),
        )
        .expect("write the manifest");
        std::fs::copy(workspace().join("Cargo.lock"), caller.join("Cargo.lock")).expect("lock");
        cargo(&caller, &["check", "--quiet"]);
    }
}

/// `kubeforge diff swagger-1.35.json -- swagger.json`, as the guide shows it, in the
/// corpus's Kubernetes directory: 1.36's `ListMeta.shardInfo` is reported though both crates
/// take `ListMeta` from the companion crate (and says so), `shardSelector` is a new field of
/// the query structs that keep their names (additive), and no function takes another query
/// struct. The Markdown form is what the guide's excerpt shows (`docs/src/guide/diff.md`).
#[test]
fn diff_reports_meta_type_changes_and_keeps_query_structs() {
    let Some(corpus) = kubeforge_tests::corpus(
        "kubeforge diff 1.35 → 1.36",
        &["kubernetes/swagger-1.35.json", "kubernetes/swagger.json"],
    ) else {
        return;
    };
    let dir = corpus.join("kubernetes");
    let run = kubeforge_ok(&dir, &["diff", "swagger-1.35.json", "--", "swagger.json"]);
    let text = &run.stdout;
    assert!(
        text.contains(
            "  additive    v1::ListMeta.shardInfo: new optional field: Option<apimachinery::pkg::apis::meta::v1::ShardInfo> (the type comes from the companion crate kubeforge-meta)"
        ),
        "{text}"
    );
    for name in ["ListOrWatchQuery", "WatchQuery", "DeleteCollectionQuery"] {
        assert!(
            text.contains(&format!(
                "  additive    {name}.shardSelector: new query parameter field: Option<String>"
            )),
            "{text}"
        );
    }
    assert!(!text.contains("takes another query struct"), "{text}");
    assert!(!text.contains("query struct removed"), "{text}");
    let markdown = kubeforge_ok(
        &dir,
        &[
            "diff",
            "--markdown",
            "swagger-1.35.json",
            "--",
            "swagger.json",
        ],
    );
    let page = std::fs::read_to_string(workspace().join("docs/src/guide/diff.md"))
        .expect("docs/src/guide/diff.md");
    assert!(
        page.contains(
            "An excerpt of `kubeforge diff --markdown swagger-1.35.json -- swagger.json`"
        ),
        "docs/src/guide/diff.md names the command"
    );
    let first = markdown.stdout.lines().nth(2).expect("the summary line");
    assert!(
        page.contains(first),
        "docs/src/guide/diff.md's excerpt starts with `{first}`"
    );
}

/// The rustdoc of a crate the command line makes from the corpus's CRDs builds with warnings
/// denied (broken intra-doc links, bare URLs, invalid HTML, unescaped brackets in the API's
/// prose): the crate's docs are part of what a user gets (docs.rs builds them).
#[test]
fn generated_rustdoc_builds_without_warnings() {
    let Some(corpus) = kubeforge_tests::corpus("rustdoc of a CRD crate", &["crds"]) else {
        return;
    };
    let work = kubeforge_tests::scale::dir().join("crates/rustdoc-crds");
    std::fs::create_dir_all(&work).expect("work dir");
    let mut crds: Vec<String> = std::fs::read_dir(corpus.join("crds"))
        .expect("crds")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| p.display().to_string())
        .collect();
    crds.sort();
    let mut args: Vec<&str> = crds.iter().map(String::as_str).collect();
    args.extend(["--out", "crds", "--crate-name", "crds"]);
    kubeforge_ok(&work, &args);
    let crate_dir = work.join("crds");
    std::fs::copy(workspace().join("Cargo.lock"), crate_dir.join("Cargo.lock")).expect("lock");
    let output = kubeforge_tests::scale::command(&crate_dir)
        .args(["doc", "--no-deps", "--quiet"])
        .env("RUSTDOCFLAGS", "-D warnings")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "rustdoc warns on the generated crate:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
