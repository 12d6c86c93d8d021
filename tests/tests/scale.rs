//! Real-world inputs at scale: every corpus document generates a crate that really builds
//! with no warnings, and Kubernetes' own round-trip fixtures survive the generated types.
//!
//! Each test names the corpus files it needs: when one is missing it prints `SKIPPED: …`
//! (and fails in CI, see `kubeforge_tests::corpus`). The counts the guide states are the
//! constants of `kubeforge_tests::claims`, asserted exactly. The tests share one target
//! directory under cargo's `CARGO_TARGET_TMPDIR`, so dependencies build once.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use kubeforge::Config;
use kubeforge_tests::claims;
use kubeforge_tests::corpus;
use kubeforge_tests::scale::{cargo, generate};
use kubeforge_tests::sorted_files;

/// The Kubernetes 1.35 OpenAPI v3 documents, one per group-version.
const V3_FILES: [&str; claims::V3_GROUP_VERSIONS] = [
    "api__v1_openapi.json",
    "apis__admissionregistration.k8s.io__v1_openapi.json",
    "apis__admissionregistration.k8s.io__v1alpha1_openapi.json",
    "apis__admissionregistration.k8s.io__v1beta1_openapi.json",
    "apis__apiextensions.k8s.io__v1_openapi.json",
    "apis__apiregistration.k8s.io__v1_openapi.json",
    "apis__apps__v1_openapi.json",
    "apis__authentication.k8s.io__v1_openapi.json",
    "apis__authorization.k8s.io__v1_openapi.json",
    "apis__autoscaling__v1_openapi.json",
    "apis__autoscaling__v2_openapi.json",
    "apis__batch__v1_openapi.json",
    "apis__certificates.k8s.io__v1_openapi.json",
    "apis__certificates.k8s.io__v1alpha1_openapi.json",
    "apis__certificates.k8s.io__v1beta1_openapi.json",
    "apis__coordination.k8s.io__v1_openapi.json",
    "apis__coordination.k8s.io__v1alpha2_openapi.json",
    "apis__coordination.k8s.io__v1beta1_openapi.json",
    "apis__discovery.k8s.io__v1_openapi.json",
    "apis__events.k8s.io__v1_openapi.json",
    "apis__flowcontrol.apiserver.k8s.io__v1_openapi.json",
    "apis__internal.apiserver.k8s.io__v1alpha1_openapi.json",
    "apis__networking.k8s.io__v1_openapi.json",
    "apis__networking.k8s.io__v1beta1_openapi.json",
    "apis__node.k8s.io__v1_openapi.json",
    "apis__policy__v1_openapi.json",
    "apis__rbac.authorization.k8s.io__v1_openapi.json",
    "apis__resource.k8s.io__v1_openapi.json",
    "apis__resource.k8s.io__v1alpha3_openapi.json",
    "apis__resource.k8s.io__v1beta1_openapi.json",
    "apis__resource.k8s.io__v1beta2_openapi.json",
    "apis__scheduling.k8s.io__v1_openapi.json",
    "apis__scheduling.k8s.io__v1alpha1_openapi.json",
    "apis__storage.k8s.io__v1_openapi.json",
    "apis__storage.k8s.io__v1beta1_openapi.json",
    "apis__storagemigration.k8s.io__v1beta1_openapi.json",
];

/// The CustomResourceDefinitions.
const CRD_FILES: [&str; claims::CRDS] = [
    "cert-manager-Certificate.yaml",
    "crossplane-CompositeResourceDefinition.yaml",
    "gateway-api-HTTPRoute.yaml",
    "knative-Service.yaml",
    "prometheus-operator-ServiceMonitor.yaml",
];

const SWAGGER: &str = "kubernetes/swagger.json";
const OPENSHIFT: &str = "openshift/openapi.json";
const TESTDATA: &str = "kubernetes/testdata";

/// `names` as paths relative to the corpus, under `dir`.
fn under(dir: &str, names: &[&str]) -> Vec<String> {
    names.iter().map(|n| format!("{dir}/{n}")).collect()
}

/// The file names in `dir` with `extension`, sorted.
fn names_in(dir: &Path, extension: &str) -> Vec<String> {
    sorted_files(dir, extension)
        .iter()
        .filter_map(|p| p.file_name()?.to_str().map(str::to_owned))
        .collect()
}

fn build(name: &str, config: Config) {
    let dir = generate(name, &config);
    cargo(&dir, &["build", "--quiet"]);
}

#[test]
fn kubernetes_v3_all_group_versions_build() {
    let needed = under("kubernetes/v3", &V3_FILES);
    let needed: Vec<&str> = needed.iter().map(String::as_str).collect();
    let Some(corpus) = corpus("scale: Kubernetes 1.35 OpenAPI v3", &needed) else {
        return;
    };
    let dir = corpus.join("kubernetes/v3");
    assert_eq!(
        names_in(&dir, "json"),
        V3_FILES,
        "exactly the {} group-versions the guide counts",
        claims::V3_GROUP_VERSIONS
    );
    let files = sorted_files(&dir, "json");
    let config = files
        .iter()
        .fold(Config::new(), |config, file| config.input(file));
    build("scale-kubernetes-v3", config);
}

#[test]
fn openshift_definitions_build() {
    let Some(corpus) = corpus("scale: OpenShift openapi.json", &[OPENSHIFT]) else {
        return;
    };
    let text = fs::read_to_string(corpus.join(OPENSHIFT)).expect("openapi.json is readable");
    let document: serde_json::Value = serde_json::from_str(&text).expect("openapi.json is JSON");
    let definitions = document["definitions"]
        .as_object()
        .map_or(0, serde_json::Map::len);
    assert_eq!(
        definitions,
        claims::OPENSHIFT_DEFINITIONS,
        "OpenShift's definitions, as the guide counts them"
    );
    build(
        "scale-openshift",
        Config::new().input(corpus.join(OPENSHIFT)),
    );
}

#[test]
fn every_crd_builds() {
    let needed = under("crds", &CRD_FILES);
    let needed: Vec<&str> = needed.iter().map(String::as_str).collect();
    let Some(corpus) = corpus("scale: CRDs", &needed) else {
        return;
    };
    let dir = corpus.join("crds");
    assert_eq!(
        names_in(&dir, "yaml"),
        CRD_FILES,
        "exactly the {} CRDs the guide counts",
        claims::CRDS
    );
    let files = sorted_files(&dir, "yaml");
    // One crate for all of them, which also shows that CRDs from different projects merge.
    let config = files
        .iter()
        .fold(Config::new(), |config, file| config.input(file));
    build("scale-crds", config);
}

/// Generates the full Kubernetes 1.36 API from swagger.json, builds it, and round-trips every
/// fixture in `testdata/` whose apiVersion/kind the swagger defines, through a test program
/// generated for the purpose: deserialize, serialize, compare as JSON values.
#[test]
fn kubernetes_swagger_builds_and_round_trips_every_fixture() {
    let Some(corpus) = corpus(
        "scale: Kubernetes 1.36 swagger.json",
        &[SWAGGER, TESTDATA, "kubernetes/proto"],
    ) else {
        return;
    };
    let config = kubeforge_tests::scale::kubernetes_swagger_config(&corpus);
    let api = config
        .model()
        .unwrap_or_else(|e| panic!("swagger.json does not model:\n{e}"));
    let dir = generate("scale-kubernetes-swagger", &config);

    // One API group alone, with the groups it needs worked out by the generator.
    cargo(
        &dir,
        &[
            "build",
            "--quiet",
            "--no-default-features",
            "--features",
            "coordination.k8s.io",
        ],
    );
    let manifest = fs::read_to_string(dir.join("Cargo.toml")).expect("manifest");
    assert!(
        manifest.contains("\"coordination.k8s.io\" = []"),
        "coordination needs no other group:\n{manifest}"
    );
    assert!(
        manifest.contains("\"apps\" = [\"core\"]"),
        "apps needs core (PodTemplateSpec):\n{manifest}"
    );

    // The dispatch table: (apiVersion, kind) → the generated type, or the companion crate's
    // (`autoscaling/v1` `Scale`), re-exported at the same path.
    let mut arms = String::new();
    for ty in api.types() {
        let Some(gvk) = ty.gvk() else { continue };
        if !matches!(
            ty.kind(),
            kubeforge::view::Kind::Struct | kubeforge::view::Kind::Extern
        ) {
            continue;
        }
        let path = ty.path();
        writeln!(
            arms,
            "        ({:?}, {:?}) => check::<scale_kubernetes_swagger::{path}>(&value),",
            gvk.api_version(),
            gvk.kind
        )
        .expect("write to string");
    }
    let program = format!(
        r#"//! Written by kubeforge's scale test: round-trips every fixture it is given.
use serde::{{de::DeserializeOwned, Serialize}};
use serde_json::Value;

fn check<T: DeserializeOwned + Serialize>(value: &Value) -> Result<(), String> {{
    let text = serde_json::to_string(value).map_err(|e| e.to_string())?;
    let typed: T = serde_json::from_str(&text).map_err(|e| format!("does not deserialize: {{e}}"))?;
    let back = serde_json::to_value(&typed).map_err(|e| format!("does not serialize: {{e}}"))?;
    if back == *value {{ Ok(()) }} else {{ Err(format!("differs after the round trip:\n  was {{value}}\n  now {{back}}")) }}
}}

fn dispatch(value: Value) -> Option<Result<(), String>> {{
    let api_version = value.get("apiVersion")?.as_str()?.to_owned();
    let kind = value.get("kind")?.as_str()?.to_owned();
    Some(match (api_version.as_str(), kind.as_str()) {{
{arms}        _ => return None,
    }})
}}

fn main() {{
    let (mut matched, mut passed, mut unmatched) = (0, 0, 0);
    for path in std::env::args().skip(1) {{
        let text = std::fs::read_to_string(&path).expect("fixture readable");
        let value: Value = serde_json::from_str(&text).expect("fixture is JSON");
        match dispatch(value) {{
            None => unmatched += 1,
            Some(result) => {{
                matched += 1;
                match result {{
                    Ok(()) => passed += 1,
                    Err(e) => println!("FAIL {{path}}: {{e}}"),
                }}
            }}
        }}
    }}
    println!("round-trip: {{passed}} of {{matched}} matched fixtures lossless ({{unmatched}} not in this API)");
}}
"#
    );
    fs::create_dir_all(dir.join("examples")).expect("examples dir");
    fs::write(dir.join("examples/round_trip.rs"), program).expect("write program");

    let fixtures: Vec<String> = sorted_files(&corpus.join(TESTDATA), "json")
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let mut args = vec!["run", "--quiet", "--example", "round_trip", "--"];
    args.extend(fixtures.iter().map(String::as_str));
    let report = cargo(&dir, &args);
    let summary = report
        .lines()
        .find(|l| l.starts_with("round-trip:"))
        .expect("summary line");
    let numbers: Vec<usize> = summary
        .split_whitespace()
        .filter_map(|w| w.trim_start_matches('(').parse().ok())
        .collect();
    let [passed, matched, unmatched] = numbers[..] else {
        panic!("unexpected summary {summary:?}")
    };
    assert_eq!(matched + unmatched, fixtures.len());
    assert_eq!(
        matched,
        claims::ROUND_TRIPPED_FIXTURES,
        "fixtures whose kind the 1.36 API serves, as the guide counts them:\n{report}"
    );
    assert_eq!(
        passed, matched,
        "every matched fixture must round-trip:\n{report}"
    );
    // The generated matcher over the document's 1,100 path templates: every template, filled
    // in, resolves to its own route with every method the document serves there, and to
    // `MethodNotAllowed` with one it does not; a last segment made longer finds nothing, or
    // a parameter route (never the route whose static segment it extends).
    fs::write(dir.join("examples/resolve.rs"), RESOLVE_PROGRAM).expect("write program");
    let swagger = corpus.join(SWAGGER).display().to_string();
    let report = cargo(
        &dir,
        &["run", "--quiet", "--example", "resolve", "--", &swagger],
    );
    let summary = report
        .lines()
        .find(|l| l.starts_with("resolve:"))
        .unwrap_or_else(|| panic!("no summary:\n{report}"));
    assert_eq!(
        summary, "resolve: 1123 requests found, 0 failures",
        "every operation of the document resolves:\n{report}"
    );
}

/// The program the scale test runs to resolve every path of swagger.json (its argument).
const RESOLVE_PROGRAM: &str = r#"//! Written by kubeforge's scale test: resolves every path of the document it is given.
use scale_kubernetes_swagger::routes::resolve;
use kubeforge_runtime::{http::Method, Resolution};

fn main() {
    let path = std::env::args().nth(1).expect("swagger.json");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON");
    let (mut found, mut failures) = (0, 0);
    let mut fail = |what: String| {
        failures += 1;
        println!("FAIL {what}");
    };
    for (template, item) in doc["paths"].as_object().expect("paths") {
        let mut filled = String::new();
        let mut values = Vec::new();
        for (i, part) in template.split('/').enumerate() {
            if i > 0 {
                filled.push('/');
            }
            if part.starts_with('{') {
                let value = format!("v-{i}%2Fx");
                filled.push_str(&value);
                values.push(value);
            } else {
                filled.push_str(part);
            }
        }
        let methods: Vec<Method> = item
            .as_object()
            .expect("path item")
            .keys()
            .filter(|k| *k != "parameters")
            .map(|k| k.to_uppercase().parse().expect("method"))
            .collect();
        for method in &methods {
            match resolve(method, &filled) {
                Resolution::Found { route, params } => {
                    let got: Vec<&str> = params.iter().map(|(_, v)| v).collect();
                    if route.info().path != template || route.info().method != method || got != values {
                        fail(format!("{method} {filled}: {} {} {got:?}", route.info().method, route.info().path));
                    } else {
                        found += 1;
                    }
                }
                other => fail(format!("{method} {filled}: {other:?}")),
            }
        }
        if !methods.contains(&Method::TRACE) {
            match resolve(&Method::TRACE, &filled) {
                Resolution::MethodNotAllowed { .. } => {}
                other => fail(format!("TRACE {filled}: {other:?}")),
            }
        }
        let longer = format!("{filled}x");
        if !template.ends_with('}') && !template.ends_with('/') {
            if let Resolution::Found { route, .. } = resolve(&Method::GET, &longer) {
                if route.info().path == template || !route.info().path.ends_with('}') {
                    fail(format!("GET {longer}: {}", route.info().path));
                }
            }
        }
    }
    println!("resolve: {found} requests found, {failures} failures");
}
"#;

/// Selecting one group generates it plus exactly what it references, and the subset builds.
#[test]
fn a_selected_group_builds_alone() {
    let Some(corpus) = corpus("scale: selecting coordination.k8s.io", &[SWAGGER]) else {
        return;
    };
    let config = Config::new()
        .input(corpus.join(SWAGGER))
        .select("group=coordination.k8s.io".parse().expect("selector"));
    let api = config.model().unwrap_or_else(|e| panic!("{e}"));
    let kinds: Vec<String> = api
        .resources()
        .map(|r| format!("{}/{} {}", r.gvk().group, r.gvk().version, r.gvk().kind))
        .collect();
    assert_eq!(
        kinds,
        [
            "coordination.k8s.io/v1 Lease",
            "coordination.k8s.io/v1alpha2 LeaseCandidate",
            "coordination.k8s.io/v1beta1 LeaseCandidate"
        ],
        "exactly the group's resources"
    );
    let modules: std::collections::BTreeSet<String> =
        api.types().map(|t| t.module().join("::")).collect();
    assert!(
        modules
            .iter()
            .all(|m| m.starts_with("api::coordination") || m.starts_with("apimachinery")),
        "{modules:?}"
    );
    assert!(
        api.types().any(|t| t.name() == "ObjectMeta"),
        "references are followed"
    );
    assert!(
        !api.types().any(|t| t.name() == "Pod"),
        "nothing unreferenced comes along"
    );
    build("scale-coordination-only", config);
}

/// Operations that take the same optional query parameters share one struct in `routes`:
/// the guide counts them for Kubernetes 1.36.
#[test]
fn kubernetes_operations_share_few_query_structs() {
    let Some(corpus) = corpus("scale: query structs of Kubernetes 1.36", &[SWAGGER]) else {
        return;
    };
    let api = Config::new()
        .input(corpus.join(SWAGGER))
        .model()
        .unwrap_or_else(|e| panic!("swagger.json does not model:\n{e}"));
    let with_optional: Vec<kubeforge::view::Operation<'_>> = api
        .operations()
        .filter(|op| op.query_params().any(|q| !q.required()))
        .collect();
    let own: Vec<String> = with_optional
        .iter()
        .filter(|op| !op.query_shared())
        .map(|op| op.id().to_owned())
        .collect();
    let sets: std::collections::BTreeSet<&str> = with_optional
        .iter()
        .filter(|op| op.query_shared())
        .filter_map(|op| op.query_type())
        .collect();
    assert_eq!(
        (
            with_optional.len(),
            with_optional.len() - own.len(),
            sets.len()
        ),
        (
            claims::OPTIONAL_QUERY_OPERATIONS,
            claims::SHARED_QUERY_OPERATIONS,
            claims::SHARED_QUERY_SETS
        ),
        "operations with optional query parameters, those sharing a struct, and the shared \
         structs {sets:?}; operations with their own: {own:?}"
    );
    assert_eq!(
        own,
        ["readCoreV1NamespacedPodLog"],
        "only pods/log has its own"
    );
}

/// The old documents' directory: `$KUBEFORGE_OLD_DOCUMENTS` if set, otherwise
/// `../shared/old-documents` beside the workspace. They are data fetched from other projects,
/// which the steering repository's `shared/` holds, never this repository (see
/// `tests/old-documents/SOURCE.md` for what belongs there and where each comes from).
/// Every (method, path) of a document's `paths`, counted from the document itself.
fn document_operations(path: &Path) -> std::collections::BTreeSet<(String, String)> {
    let document: serde_json::Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    let mut operations = std::collections::BTreeSet::new();
    for (template, item) in document["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            if method != "parameters" {
                operations.insert((method.to_ascii_uppercase(), template.clone()));
            }
        }
    }
    operations
}

/// Documents of older clusters (Kubernetes 1.9 and 1.13, OpenShift 3.6; provenance in
/// `tests/old-documents/SOURCE.md`) generate, build with warnings denied, and keep every
/// operation: legacy `proxy` actions, HEAD and OPTIONS included. Where the documents are not
/// there, the test fails in CI and says `SKIPPED` otherwise, as for the corpus.
#[test]
fn old_documents_keep_every_operation() {
    let documents = [
        ("kubernetes-1.9.4-swagger.json", 958),
        ("kubernetes-1.13.0-swagger.json", 991),
        ("openshift-3.6-dev-openapi-spec.json", 1396),
    ];
    let names: Vec<&str> = documents.iter().map(|(name, _)| *name).collect();
    let Some(dir) = kubeforge_tests::old_documents("old_documents_keep_every_operation", &names)
    else {
        return;
    };
    for (name, expected) in documents {
        let path = dir.join(name);
        let declared = document_operations(&path);
        assert_eq!(declared.len(), expected, "{name}");
        let api = Config::new()
            .input(&path)
            .model()
            .unwrap_or_else(|e| panic!("{name}:\n{e}"));
        let table: std::collections::BTreeSet<(String, String)> = api
            .operations()
            .map(|op| (op.method().to_owned(), op.path().to_owned()))
            .collect();
        assert_eq!(
            table, declared,
            "{name}: the route table holds every operation"
        );
        assert_eq!(api.operations().len(), declared.len(), "{name}");
        build(
            &format!(
                "scale-old-{}",
                name.trim_end_matches(".json").replace('.', "-")
            ),
            Config::new().input(&path),
        );
    }
}
