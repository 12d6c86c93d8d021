//! The `kubeforge` binary, as a user without this workspace runs it: a CRD file in, a crate
//! out (in a directory outside the workspace), and the crate builds and works.

use std::process::Command;

#[test]
fn generates_a_working_crate_from_a_crd_outside_the_workspace() {
    let work = tempfile::tempdir().expect("temp dir");
    let crd = work.path().join("widgets.yaml");
    std::fs::write(
        &crd,
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, format: int32}
              color: {type: string, enum: [red, green]}
          status:
            type: object
            properties:
              ready: {type: boolean}
"#,
    )
    .expect("write CRD");
    let out = work.path().join("widgets");
    let status = Command::new(env!("CARGO_BIN_EXE_kubeforge"))
        .arg(&crd)
        .args(["--out"])
        .arg(&out)
        .args(["--crate-name", "widgets"])
        .status()
        .expect("kubeforge runs");
    assert!(status.success());

    // A test of the user's own, using the generated crate.
    std::fs::create_dir_all(out.join("tests")).expect("tests dir");
    std::fs::write(
        out.join("tests/use.rs"),
        r#"use widgets::com::example::v1::{Widget, WidgetSpec, WidgetSpecColor};
#[test]
fn works() {
    let widget = Widget::builder("w", "default").spec(WidgetSpec::builder(3).color(WidgetSpecColor::Red)).build();
    let json = serde_json::to_value(&widget).unwrap();
    assert_eq!(json["apiVersion"], "example.com/v1");
    assert_eq!(json["spec"], serde_json::json!({"size": 3, "color": "red"}));
    let request = Widget::create_namespaced_widget("default", &widget, &Default::default()).unwrap();
    assert_eq!(request.uri().path(), "/apis/example.com/v1/namespaces/default/widgets");
    let back: Widget = serde_json::from_value(json).unwrap();
    assert_eq!(back, widget);
}
"#,
    )
    .expect("write test");
    let output = kubeforge_tests::scale::command(&out)
        .args(kubeforge_tests::scale::TEST)
        .arg("--quiet")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "the generated crate does not build or its test fails:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs `cargo test` in `dir` with the workspace's lockfile (so the versions are the ones this
/// workspace tested), in the tests' shared target directory (`kubeforge_tests::scale::command`,
/// warnings denied), and panics with the output on failure.
fn cargo_test(dir: &std::path::Path) {
    kubeforge_tests::scale::workspace_lock(dir);
    let output = kubeforge_tests::scale::command(dir)
        .args(kubeforge_tests::scale::TEST)
        .arg("--quiet")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo test fails in {}:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `kubeforge --kube` on a real CRD (cert-manager's Certificate, read from standard input),
/// outside the workspace: a program of the user's that depends on the generated crate, kube
/// and k8s-openapi uses `kube::Api::<Certificate>` with no further setup, against a mock
/// tower service (no cluster, no network): list and get send the right requests and decode.
#[test]
fn kube_api_takes_a_crate_generated_with_kube() {
    let Some(corpus) = kubeforge_tests::corpus(
        "cli --kube with kube::Api",
        &["crds/cert-manager-Certificate.yaml"],
    ) else {
        return;
    };
    let work = tempfile::tempdir().expect("temp dir");
    let crd = std::fs::File::open(corpus.join("crds/cert-manager-Certificate.yaml")).expect("CRD");
    let output = Command::new(env!("CARGO_BIN_EXE_kubeforge"))
        .args(["-", "--kube", "--crate-name", "certs", "--out"])
        .arg(work.path().join("certs"))
        .stdin(crd)
        .output()
        .expect("kubeforge runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    // The last line says where the resource is.
    assert_eq!(
        stderr.lines().last(),
        Some("1 resource in: certs::io::cert_manager::v1::Certificate"),
        "{stderr}"
    );
    let app = work.path().join("app");
    std::fs::create_dir_all(app.join("src")).expect("app dir");
    std::fs::write(
        app.join("Cargo.toml"),
        format!(
            "[package]\nname = \"app\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\ncerts = {{ path = \"../certs\" }}\n{}\n\n[workspace]\n",
            kubeforge_tests::scale::KUBE_CLIENT_DEPENDENCIES.join("\n")
        ),
    )
    .expect("write manifest");
    std::fs::write(
        app.join("src/main.rs"),
        r#"use std::sync::{Arc, Mutex};

use certs::io::cert_manager::v1::{Certificate, CertificateSpec, CertificateSpecIssuerRef};
use kube::api::{Api, ListParams};
use kube::client::{Body, Client};

fn certificate() -> Certificate {
    Certificate::builder("web", "shop")
        .metadata_with(|meta| meta.resource_version = Some("7".into()))
        .spec(
            CertificateSpec::builder(CertificateSpecIssuerRef::builder("letsencrypt"), "web-tls")
                .dns_name("shop.example.com"),
        )
        .build()
}

fn main() {}

#[tokio::test(flavor = "current_thread")]
async fn list_and_get() {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&seen);
    let service = tower::service_fn(move |request: http::Request<Body>| {
        let log = Arc::clone(&log);
        async move {
            let line = format!("{} {}", request.method(), request.uri());
            let answer = if request.uri().path().ends_with("/certificates") {
                serde_json::json!({
                    "apiVersion": "cert-manager.io/v1",
                    "kind": "CertificateList",
                    "metadata": {"resourceVersion": "9"},
                    "items": [serde_json::to_value(certificate()).unwrap()],
                })
            } else {
                serde_json::to_value(certificate()).unwrap()
            };
            log.lock().unwrap().push(line);
            Ok::<_, std::convert::Infallible>(
                http::Response::new(Body::from(serde_json::to_vec(&answer).unwrap())),
            )
        }
    });
    let client = Client::new(service, "default");
    let api = Api::<Certificate>::namespaced(client, "shop");
    let list = api.list(&ListParams::default()).await.unwrap();
    assert_eq!(list.items, [certificate()]);
    assert_eq!(list.metadata.resource_version.as_deref(), Some("9"));
    let got = api.get("web").await.unwrap();
    assert_eq!(got, certificate());
    assert_eq!(got.spec.unwrap().dns_names, Some(vec!["shop.example.com".to_owned()]));
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "GET /apis/cert-manager.io/v1/namespaces/shop/certificates?",
            "GET /apis/cert-manager.io/v1/namespaces/shop/certificates/web",
        ]
    );
}

// Written against kopium's output (`#[derive(CustomResource)]`): kube's `CustomResourceExt`
// as a controller uses it, unchanged.
#[tokio::test(flavor = "current_thread")]
async fn custom_resource_ext() {
    use kube::CustomResourceExt;
    use kube::api::{ApiResource, DynamicObject};

    let crd = Certificate::crd();
    assert_eq!(crd.metadata.name.as_deref(), Some(Certificate::crd_name()));
    assert_eq!(Certificate::crd_name(), "certificates.cert-manager.io");
    assert_eq!(crd.spec.group, "cert-manager.io");
    assert_eq!(crd.spec.names.kind, "Certificate");
    assert!(crd.spec.versions.iter().any(|v| v.name == "v1" && v.storage));
    assert_eq!(Certificate::shortnames(), &["cert", "certs"]);
    let resource: ApiResource = Certificate::api_resource();
    assert_eq!(resource.api_version, "cert-manager.io/v1");
    assert_eq!(resource.plural, "certificates");
    let client = Client::new(
        tower::service_fn(|_: http::Request<Body>| async {
            Ok::<_, std::convert::Infallible>(http::Response::new(Body::empty()))
        }),
        "default",
    );
    let _dynamic: Api<DynamicObject> = Api::namespaced_with(client, "shop", &resource);
    // The bundle: every CRD of the crate, the one this kind gives among them.
    assert_eq!(certs::crds(), [crd.clone()]);
    let yaml_or_json = serde_json::to_string(&crd).unwrap();
    assert!(yaml_or_json.contains("certificates.cert-manager.io"));
}
"#,
    )
    .expect("write program");
    cargo_test(&app);
}

/// Runs the binary with `args` and `stdin`, returning (success, stdout, stderr).
fn kubeforge(args: &[&str], stdin: &str) -> (bool, String, String) {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubeforge"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("kubeforge runs");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("write stdin");
    drop(input);
    let output = child.wait_with_output().expect("kubeforge ends");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

const GADGETS: &str = r#"apiVersion: v1
kind: List
items:
- apiVersion: apiextensions.k8s.io/v1
  kind: CustomResourceDefinition
  metadata: {name: gadgets.example.com}
  spec:
    group: example.com
    names: {kind: Gadget, plural: gadgets}
    scope: Cluster
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
                labels: {type: object, additionalProperties: {type: string}}
                owner: {type: object, properties: {name: {type: string}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: gadget-operator}
"#;

/// Every generation flag reaches the code: standard input (a `kind: List` with a stray
/// Deployment), `--derive` plain and with a pattern, `--type-attribute`, `--map-type`,
/// `--extern`, and `--kube`'s k8s-openapi meta types, traits and dependency.
#[test]
fn flags_reach_the_generated_code() {
    let work = tempfile::tempdir().expect("temp dir");
    let out = work.path().join("gadgets");
    let out_arg = out.to_str().expect("UTF-8 temp dir");
    let (ok, _, stderr) = kubeforge(
        &[
            "-",
            "--out",
            out_arg,
            "--crate-name",
            "gadgets",
            "--kube",
            "--derive",
            "Hash",
            "--derive",
            "com.example.v1.Gadget=::core::cmp::PartialOrd",
            // kopium's form: a type by its Rust name.
            "--derive",
            "GadgetSpec=::core::cmp::PartialOrd",
            "--type-attribute",
            "com::example::v1::GadgetSpec=#[serde(rename_all = \"camelCase\")]",
            "--map-type",
            "HashMap",
            "--extern",
            "com.example.v1.Gadget.spec.owner=::my_crate::Owner",
            "--extern",
            "io.example.v9.Nothing=::my_crate::Nothing",
        ],
        GADGETS,
    );
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains(
            "note: skipped apps/v1 Deployment \"gadget-operator\": not a CustomResourceDefinition or an OpenAPI document\n  --> <stdin>#/items/1"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("note: the extern type \"::my_crate::Nothing\" is unused"),
        "{stderr}"
    );
    assert_eq!(
        stderr.lines().last(),
        Some("1 resource in: gadgets::com::example::v1::Gadget")
    );
    let code =
        std::fs::read_to_string(out.join("src/com/example/v1/gadget.rs")).expect("gadget.rs");
    let flat = code.split_whitespace().collect::<Vec<_>>().join(" ");
    for expected in [
        "#[derive(Hash)] #[derive(::core::cmp::PartialOrd)] pub struct Gadget {",
        "#[derive(Hash)] #[derive(::core::cmp::PartialOrd)] #[serde(rename_all = \"camelCase\")] pub struct GadgetSpec {",
        "pub labels: Option<::std::collections::HashMap<String, String>>,",
        "pub owner: Option<::my_crate::Owner>,",
        "pub metadata: Option<::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta>,",
        "impl ::k8s_openapi::Resource for Gadget {",
        "type Scope = ::k8s_openapi::ClusterResourceScope;",
        "pub fn builder(name: impl Into<String>) -> GadgetBuilder {",
    ] {
        assert!(flat.contains(expected), "missing {expected}:\n{code}");
    }
    assert!(!flat.contains("pub struct GadgetSpecOwner"));
    let manifest = std::fs::read_to_string(out.join("Cargo.toml")).expect("Cargo.toml");
    assert!(
        manifest.contains("\nk8s-openapi = \"0.29\"\n"),
        "{manifest}"
    );
    assert!(
        manifest.contains(
            "[dev-dependencies]\nk8s-openapi = { version = \"0.29\", features = [\"latest\"] }"
        ),
        "{manifest}"
    );

    // Usage errors name the flag.
    let (ok, _, stderr) = kubeforge(&["-", "--out", out_arg, "--extern", "NoEquals"], GADGETS);
    assert!(!ok);
    assert!(
        stderr.contains("expected `--extern PATTERN=VALUE`"),
        "{stderr}"
    );
    // Errors in standard input are shown with their line.
    let (ok, _, stderr) = kubeforge(
        &["-", "--out", out_arg],
        "{\"openapi\": \"3.0.0\",\n  oops}",
    );
    assert!(!ok);
    assert!(
        stderr.contains("<stdin>:2:3") && stderr.contains("oops}"),
        "{stderr}"
    );
}

/// `kubeforge routes` reads any input (here all of Kubernetes 1.36 and a CRD) and prints a
/// table no wider than 100 columns with every operation once, and `--json` one object per
/// operation.
#[test]
fn routes_prints_any_input_in_100_columns() {
    let Some(corpus) = kubeforge_tests::corpus(
        "cli routes",
        &[
            "kubernetes/swagger.json",
            "crds/cert-manager-Certificate.yaml",
        ],
    ) else {
        return;
    };
    for (input, operations) in [
        ("kubernetes/swagger.json", 1123),
        ("crds/cert-manager-Certificate.yaml", 14),
    ] {
        let path = corpus.join(input);
        let path = path.to_str().expect("UTF-8 path");
        let (ok, table, stderr) = kubeforge(&["routes", path], "");
        assert!(ok, "{stderr}");
        let too_wide: Vec<&str> = table.lines().filter(|l| l.chars().count() > 100).collect();
        assert!(
            too_wide.is_empty(),
            "{input}: lines over 100 columns: {too_wide:#?}"
        );
        let rows = table
            .lines()
            .filter(|l| {
                l.starts_with("    ")
                    && [
                        "GET ", "PUT ", "POST ", "PATCH ", "DELETE ", "HEAD ", "OPTIONS ",
                    ]
                    .iter()
                    .any(|m| l[4..].starts_with(m))
            })
            .count();
        assert_eq!(rows, operations, "{input}:\n{table}");
        assert!(
            table.contains(&format!("\n\n{operations} operations on ")),
            "{input}: the summary counts the operations"
        );
        let (ok, json, stderr) = kubeforge(&["routes", "--json", path], "");
        assert!(ok, "{stderr}");
        let routes: Vec<serde_json::Value> = json
            .lines()
            .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
            .collect();
        assert_eq!(routes.len(), operations, "{input}");
        assert!(
            routes
                .iter()
                .all(|r| r["method"].is_string() && r["path"].is_string())
        );
    }
    let certificate = corpus.join("crds/cert-manager-Certificate.yaml");
    let (_, table, _) = kubeforge(&["routes", certificate.to_str().expect("UTF-8")], "");
    assert!(table.starts_with(
        "cert-manager.io/v1  /apis/cert-manager.io/v1\n  Certificate (certificates, namespaced)\n"
    ), "{table}");
    assert!(
        table.contains("    GET     /namespaces/{namespace}/certificates/{name}/status"),
        "{table}"
    );
}

/// kopium's `--derive` forms: `@struct=`, `@enum=`, `@enum:simple=` and `Type=`, on a CRD
/// with a string enum and a union, compiled and used by a program of the user's. A trait
/// the generator derives already is not derived twice (string enums are `PartialOrd`), and
/// `Default` is derived only where it holds (not on `WidgetSpec`, whose `size` is required):
/// `@struct=Default` compiles rather than inventing a size.
#[test]
fn kopium_derive_forms_land_on_the_right_items() {
    let work = tempfile::tempdir().expect("temp dir");
    let out = work.path().join("kopium-derives");
    let out_arg = out.to_str().expect("UTF-8 temp dir");
    let crd = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
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
            required: [size]
            properties:
              size: {type: integer, format: int32}
              color: {type: string, enum: [red, green]}
              selector:
                oneOf:
                - {type: string}
                - {type: array, items: {type: string}}
          status:
            type: object
            properties:
              ready: {type: boolean}
"#;
    let (ok, _, stderr) = kubeforge(
        &[
            "-",
            "--out",
            out_arg,
            "--crate-name",
            "kopium-derives",
            "--drop-unknown-fields",
            "--derive",
            "@struct=Default",
            "--derive",
            "@enum=PartialOrd",
            "--derive",
            "@enum:simple=::core::hash::Hash",
            "--derive",
            "WidgetStatus=Hash",
        ],
        crd,
    );
    assert!(ok, "{stderr}");
    let code =
        std::fs::read_to_string(out.join("src/com/example/v1/widget.rs")).expect("widget.rs");
    let flat = code.split_whitespace().collect::<Vec<_>>().join(" ");
    for (item, derives) in [
        // `Eq` is an empty impl after the type (`impl Eq for T {}`), not a derive; so is a
        // struct's `Debug` (`impl Debug for T`, the runtime's JSON).
        ("pub struct WidgetSpec {", "#[derive(Clone, PartialEq)]"),
        (
            "pub struct WidgetStatus {",
            "#[derive(Clone, Default, PartialEq)] #[derive(Hash)]",
        ),
        (
            "pub enum WidgetSpecColor {",
            "#[derive(Clone, Debug, PartialEq, Hash, PartialOrd, Ord)]",
        ),
        (
            "pub enum WidgetSpecSelector {",
            "#[derive(Clone, Debug, PartialEq)] #[derive(PartialOrd)]",
        ),
    ] {
        let at = flat
            .find(item)
            .unwrap_or_else(|| panic!("no {item}:\n{code}"));
        let before = &flat[..at];
        let attributes = before[before.rfind("#[derive(Clone").expect("derives")..].trim();
        assert_eq!(attributes, derives, "{item}");
    }
    for name in [
        "WidgetSpec",
        "WidgetStatus",
        "WidgetSpecColor",
        "WidgetSpecSelector",
    ] {
        assert!(
            flat.contains(&format!("impl Eq for {name} {{}}")),
            "no Eq for {name}:\n{code}"
        );
    }
    for name in ["WidgetSpec", "WidgetStatus"] {
        assert!(
            flat.contains(&format!("impl ::std::fmt::Debug for {name} {{")),
            "no Debug for {name}:\n{code}"
        );
    }

    // The user's program relies on each derive.
    std::fs::create_dir_all(out.join("tests")).expect("tests dir");
    std::fs::write(
        out.join("tests/derives.rs"),
        r#"use kopium_derives::com::example::v1::{WidgetSpecColor, WidgetSpecSelector, WidgetStatus};
#[test]
fn derives_work() {
    let mut seen = std::collections::HashSet::new();
    seen.insert(WidgetStatus::default());
    assert!(!seen.insert(WidgetStatus::default()));
    assert!(WidgetSpecSelector::String("a".into()) < WidgetSpecSelector::String("b".into()));
    assert!(WidgetSpecColor::Red < WidgetSpecColor::Green);
    assert_eq!(format!("{:?}", WidgetStatus::default()), "WidgetStatus {}");
    assert_eq!(format!("{:?}", WidgetSpecColor::Red), "Red");
}
"#,
    )
    .expect("write test");
    let output = kubeforge_tests::scale::command(&out)
        .args(kubeforge_tests::scale::TEST)
        .arg("--quiet")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "the generated crate does not build or its test fails:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `kubeforge diff OLD… -- NEW…`: text by default, `--markdown`, `--json`; a missing `--`
/// or an unreadable side is an error, not a report.
#[test]
fn diff_prints_what_changed_between_two_inputs() {
    let work = tempfile::tempdir().expect("temp dir");
    let old = work.path().join("old.yaml");
    let new = work.path().join("new.yaml");
    std::fs::write(&old, GADGETS).expect("write old");
    // The new release: `owner` gone, `labels` required, a new optional `size`.
    let changed = GADGETS
        .replace(
            "owner: {type: object, properties: {name: {type: string}}}",
            "size: {type: integer}",
        )
        .replace(
            "            spec:\n              type: object\n",
            "            spec:\n              type: object\n              required: [labels]\n",
        );
    assert_ne!(changed, GADGETS);
    std::fs::write(&new, changed).expect("write new");
    let (old, new) = (old.to_str().expect("UTF-8"), new.to_str().expect("UTF-8"));

    let (ok, text, stderr) = kubeforge(&["diff", old, "--", new], "");
    assert!(ok, "{stderr}");
    assert!(
        text.starts_with("4 changes: 3 breaking, 1 additive, 0 compatible (semver: major)\n"),
        "{text}"
    );
    assert!(text.contains("  breaking    v1::GadgetSpec.owner: field removed (was Option<com::example::v1::GadgetSpecOwner>)\n"), "{text}");
    assert!(text.contains("  breaking    v1::GadgetSpec.labels: optional → required: Option<BTreeMap<String, String>> → BTreeMap<String, String>\n"), "{text}");
    assert!(
        text.contains("  additive    v1::GadgetSpec.size: new optional field: Option<i64>\n"),
        "{text}"
    );

    let (ok, markdown, _) = kubeforge(&["diff", "--markdown", old, "--", new], "");
    assert!(ok);
    assert!(markdown.starts_with("### API changes\n"), "{markdown}");
    assert!(
        markdown.contains("| `com::example` | 3 | 1 | 0 |"),
        "{markdown}"
    );

    let (ok, json, _) = kubeforge(&["diff", "--json", old, "--", new], "");
    assert!(ok);
    let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(json["bump"], "major");
    assert_eq!(json["changes"].as_array().map(Vec::len), Some(4));

    let (ok, same, _) = kubeforge(&["diff", old, "--", old], "");
    assert!(ok);
    assert_eq!(same, "no API changes\n");

    let (ok, _, stderr) = kubeforge(&["diff", old, new], "");
    assert!(!ok, "without `--` there is no new side");
    assert!(stderr.contains("<NEW>"), "{stderr}");
    let missing = work.path().join("missing.json");
    let (ok, _, stderr) = kubeforge(&["diff", old, "--", missing.to_str().expect("UTF-8")], "");
    assert!(!ok);
    assert!(stderr.contains("missing.json"), "{stderr}");
}

/// `runtime/src/crd_query.rs` is exactly what the generator writes for it (`cargo xtask regen`
/// writes it with `kubeforge::crd_query_module`): hand edits, or a change to how query structs
/// are written without a regen, fail here.
#[test]
fn the_runtimes_query_structs_are_the_generators() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/src/crd_query.rs");
    let committed = std::fs::read_to_string(&path).expect("runtime/src/crd_query.rs");
    let text = kubeforge::crd_query_module().expect("the query structs generate");
    assert!(
        committed == text,
        "runtime/src/crd_query.rs is stale: run `cargo xtask regen` and commit the result"
    );
}

/// A CRD crate's query structs are the runtime's (`kubeforge_runtime::crd_query`, compiled
/// once) re-exported, for every corpus CRD: the generator re-exports them only when its own
/// text of each struct is the runtime's, so a change to how query structs are written must
/// rewrite `runtime/src/crd_query.rs` too, or every CRD crate quietly compiles its own copy
/// again. The default Kubernetes crate, whose parameters carry the document's own
/// descriptions, keeps its own.
#[test]
fn crd_crates_re_export_the_runtimes_query_structs() {
    let inputs = [
        "crds/cert-manager-Certificate.yaml",
        "crds/crossplane-CompositeResourceDefinition.yaml",
        "crds/gateway-api-HTTPRoute.yaml",
        "crds/knative-Service.yaml",
        "crds/prometheus-operator-ServiceMonitor.yaml",
    ];
    let Some(corpus) = kubeforge_tests::corpus("cli CRD query structs", &inputs) else {
        return;
    };
    let work = tempfile::tempdir().expect("temp dir");
    for input in inputs {
        let out = work.path().join(input.replace(['/', '.'], "_"));
        let output = Command::new(env!("CARGO_BIN_EXE_kubeforge"))
            .arg(corpus.join(input))
            .args(["--crate-name", "crd", "--out"])
            .arg(&out)
            .output()
            .expect("kubeforge runs");
        assert!(
            output.status.success(),
            "{input}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let query = std::fs::read_to_string(out.join("src/routes/query.rs")).expect("query.rs");
        assert!(
            query.contains("pub use ::kubeforge_runtime::crd_query::{"),
            "{input}: the query structs are compiled in the crate, not re-exported from the \
             runtime; regenerate runtime/src/crd_query.rs from a CRD crate's query.rs:\n{query}"
        );
        for name in ["ListOrWatchQuery", "WatchQuery", "PatchQueryBuilder"] {
            assert!(
                query.contains(name),
                "{input}: {name} not re-exported:\n{query}"
            );
            assert!(
                kubeforge_runtime::crd_query::SOURCE.contains(&format!("pub struct {name}")),
                "the runtime has no {name}"
            );
        }
    }
}
