//! Several Kubernetes releases in one model (`Config::release_input`, `--releases`): every
//! type, field and operation once, knowing the releases that have it, and the projection
//! onto one release (`Config::only_release`) having exactly what that release's document
//! generated alone has. Over the corpus's five swagger documents (`kubeforge_tests::corpus`:
//! missing files fail in CI and print `SKIPPED` otherwise).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kubeforge::Config;
use kubeforge::view::Model;

const RELEASES: [(&str, &str); 5] = [
    ("1.32", "swagger-1.32.json"),
    ("1.33", "swagger-1.33.json"),
    ("1.34", "swagger-1.34.json"),
    ("1.35", "swagger-1.35.json"),
    ("1.36", "swagger.json"),
];

fn kubernetes(test: &str) -> Option<PathBuf> {
    let needed: Vec<String> = RELEASES
        .iter()
        .map(|(_, file)| format!("kubernetes/{file}"))
        .collect();
    let needed: Vec<&str> = needed.iter().map(String::as_str).collect();
    Some(kubeforge_tests::corpus(test, &needed)?.join("kubernetes"))
}

fn merged(dir: &Path) -> Config {
    RELEASES
        .iter()
        .fold(Config::new(), |config, (release, file)| {
            config.release_input(release, dir.join(file))
        })
}

/// What a model has, as names: types (with their fields), resources, operations.
#[derive(Debug, PartialEq, Eq)]
struct Listing {
    types: BTreeSet<String>,
    fields: BTreeSet<String>,
    required: BTreeSet<String>,
    resources: BTreeSet<String>,
    operations: BTreeSet<String>,
}

fn listing(model: &Model) -> Listing {
    let mut listing = Listing {
        types: BTreeSet::new(),
        fields: BTreeSet::new(),
        required: BTreeSet::new(),
        resources: BTreeSet::new(),
        operations: BTreeSet::new(),
    };
    for ty in model.types() {
        listing.types.insert(ty.schema_name().to_owned());
        for field in ty.fields() {
            let name = format!("{}.{}", ty.schema_name(), field.json_name());
            if field.required() {
                listing.required.insert(name.clone());
            }
            listing.fields.insert(name);
        }
    }
    for resource in model.resources() {
        listing.resources.insert(format!("{:?}", resource.gvk()));
    }
    for operation in model.operations() {
        listing
            .operations
            .insert(format!("{} {}", operation.method(), operation.path()));
    }
    listing
}

/// The differences of two sets, for a readable failure.
fn differences<'a>(
    a: &'a BTreeSet<String>,
    b: &'a BTreeSet<String>,
) -> (Vec<&'a String>, Vec<&'a String>) {
    (
        a.difference(b).take(5).collect(),
        b.difference(a).take(5).collect(),
    )
}

#[test]
fn the_projection_onto_a_release_has_exactly_what_the_release_alone_has() {
    let Some(dir) =
        kubernetes("the_projection_onto_a_release_has_exactly_what_the_release_alone_has")
    else {
        return;
    };
    for (release, file) in [RELEASES[0], RELEASES[4]] {
        let alone = Config::new().input(dir.join(file)).model().expect("alone");
        let projected = merged(&dir)
            .only_release(release)
            .model()
            .expect("projected");
        assert_eq!(projected.releases(), [release]);
        let (alone, projected) = (listing(&alone), listing(&projected));
        for (what, a, p) in [
            ("types", &alone.types, &projected.types),
            ("fields", &alone.fields, &projected.fields),
            ("required fields", &alone.required, &projected.required),
            ("resources", &alone.resources, &projected.resources),
            ("operations", &alone.operations, &projected.operations),
        ] {
            assert!(
                a == p,
                "{release}: the {what} differ (only alone, only projected): {:?}",
                differences(a, p)
            );
        }
    }
}

#[test]
fn every_item_of_the_merge_knows_the_releases_that_have_it() {
    let Some(dir) = kubernetes("every_item_of_the_merge_knows_the_releases_that_have_it") else {
        return;
    };
    let model = merged(&dir).model().expect("merged");
    assert_eq!(model.releases(), ["1.32", "1.33", "1.34", "1.35", "1.36"]);
    let all: Vec<&str> = RELEASES.iter().map(|(r, _)| *r).collect();
    // Every type, field and operation of each release alone is in the merge, and says so.
    let mut union = BTreeSet::new();
    for (release, file) in RELEASES {
        let alone = listing(&Config::new().input(dir.join(file)).model().expect("alone"));
        for name in &alone.types {
            let ty = model
                .schema(name)
                .expect("each release's type is in the merge");
            assert!(ty.releases().contains(&release), "{name} in {release}");
        }
        for name in &alone.fields {
            let (schema, field) = name.rsplit_once('.').expect("schema.field");
            let field = model
                .schema(schema)
                .and_then(|ty| ty.field(field))
                .expect("each release's field is in the merge");
            assert!(field.releases().contains(&release), "{name} in {release}");
        }
        union.extend(alone.operations.iter().map(|o| format!("{o} {release}")));
    }
    for operation in model.operations() {
        for release in operation.releases() {
            let key = format!("{} {} {release}", operation.method(), operation.path());
            assert!(union.contains(&key), "{key} is not in {release}'s document");
        }
    }
    // Known history: Pod is in every release; `resource.k8s.io/v1` came in 1.34; the
    // `resource.k8s.io/v1alpha3` DeviceClass went in 1.34; `PodSpec.hostnameOverride` came in
    // 1.34; `StatefulSetSpec.serviceName` is required in 1.32 only, so optional here.
    let pod = model.schema("io.k8s.api.core.v1.Pod").expect("Pod");
    assert_eq!(pod.releases(), all);
    assert_eq!(pod.resource().expect("served").releases(), all);
    let claim = model
        .schema("io.k8s.api.resource.v1.ResourceClaim")
        .expect("v1 ResourceClaim");
    assert_eq!(claim.releases(), ["1.34", "1.35", "1.36"]);
    let class = model
        .schema("io.k8s.api.resource.v1alpha3.DeviceClass")
        .expect("v1alpha3 DeviceClass");
    assert_eq!(class.releases(), ["1.32", "1.33"]);
    let list = model
        .operations()
        .find(|o| o.method() == "GET" && o.path() == "/apis/resource.k8s.io/v1/resourceclaims")
        .expect("the list of v1 ResourceClaims");
    assert_eq!(list.releases(), ["1.34", "1.35", "1.36"]);
    let spec = model.schema("io.k8s.api.core.v1.PodSpec").expect("PodSpec");
    assert_eq!(
        spec.field("hostnameOverride").expect("field").releases(),
        ["1.34", "1.35", "1.36"]
    );
    let stateful = model
        .schema("io.k8s.api.apps.v1.StatefulSetSpec")
        .expect("StatefulSetSpec");
    let service_name = stateful.field("serviceName").expect("serviceName");
    assert!(!service_name.required());
    assert_eq!(service_name.releases(), all);
    assert!(stateful.field("template").expect("template").required());
}

#[test]
fn a_requiredness_change_is_a_warning_naming_each_release() {
    let Some(dir) = kubernetes("a_requiredness_change_is_a_warning_naming_each_release") else {
        return;
    };
    let output = merged(&dir)
        .select("io.k8s.api.apps.v1.StatefulSet".parse().expect("pattern"))
        .routes(false)
        .generate()
        .expect("merged");
    let warnings: Vec<String> = output
        .warnings()
        .iter()
        .filter(|w| w.kind.as_str() == "release-shape-change")
        .map(ToString::to_string)
        .collect();
    let [warning] = &warnings[..] else {
        panic!("expected one warning, got {warnings:#?}");
    };
    for part in [
        "`serviceName` of `io.k8s.api.apps.v1.StatefulSetSpec`",
        "required in 1.32 (",
        "swagger-1.32.json#/definitions/io.k8s.api.apps.v1.StatefulSetSpec/required",
        "optional in 1.33, 1.34, 1.35, 1.36 (",
        "swagger.json#/definitions/io.k8s.api.apps.v1.StatefulSetSpec/required",
        "generated optional",
    ] {
        assert!(warning.contains(part), "{part:?} not in {warning}");
    }
}

#[test]
fn releases_that_do_not_fit_the_inputs_are_errors() {
    let error = Config::new()
        .release_input("1.33", "a.json")
        .release_input("1.32", "b.json")
        .model()
        .expect_err("decreasing");
    assert!(
        error.to_string().contains(
            "expected the releases to increase in the order given, but `1.33` comes before `1.32`"
        ),
        "{error}"
    );
    let error = Config::new()
        .release_input("1.32", "a.json")
        .input("b.json")
        .model()
        .expect_err("mixed");
    assert!(
        error.to_string().contains("`b.json` belong to none"),
        "{error}"
    );
    let error = Config::new()
        .input("a.json")
        .only_release("1.32")
        .model()
        .expect_err("no releases");
    assert!(
        error.to_string().contains("no input belongs to a release"),
        "{error}"
    );
}

/// The merged crate of a small selection: `resource.k8s.io/v1beta1`'s `DeviceConstraint`
/// (`distinctAttribute` since 1.34) and `DeviceAttribute` (`bools` since 1.36), and the kind
/// `CSIDriver` with its apply configurations (`nodeAllocatableUpdatePeriodSeconds` since
/// 1.33).
fn selection_crate(dir: &Path) -> PathBuf {
    let config = merged(dir)
        .select(
            "io.k8s.api.resource.v1beta1.DeviceConstraint"
                .parse()
                .expect("pattern"),
        )
        .select(
            "io.k8s.api.resource.v1beta1.DeviceAttribute"
                .parse()
                .expect("pattern"),
        )
        .select("kind=CSIDriver".parse().expect("pattern"))
        .apply_types(true);
    kubeforge_tests::scale::generate("releases_selection", &config)
}

/// A crate `name` beside the generated ones, depending on `deps` (manifest lines), with
/// `lib` as its `src/lib.rs`; its own workspace unless `members` names some.
fn write_crate(name: &str, deps: &[String], lib: &str, members: &[&str]) -> PathBuf {
    let dir = kubeforge_tests::scale::dir().join("crates").join(name);
    std::fs::create_dir_all(dir.join("src")).expect("mkdir");
    let workspace = if members.is_empty() {
        "[workspace]\n".to_owned()
    } else {
        format!(
            "[workspace]\nmembers = [{}]\nresolver = \"2\"\n",
            members
                .iter()
                .map(|m| format!("{m:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = {name:?}\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n{}\n\n{workspace}",
            deps.join("\n")
        ),
    )
    .expect("manifest");
    std::fs::write(dir.join("src/lib.rs"), lib).expect("lib.rs");
    dir
}

/// The dependency line of the generated crate at `dir` with `features`.
fn dependency(dir: &Path, features: &[&str]) -> String {
    format!(
        "releases_selection = {{ path = {:?}, features = {features:?} }}",
        dir.display().to_string()
    )
}

/// `cargo build` in `dir` with warnings denied, in the shared target directory: whether it
/// succeeded, and what it printed.
fn build(dir: &Path) -> (bool, String) {
    let output = kubeforge_tests::scale::command(dir)
        .args(["build", "--quiet"])
        .output()
        .expect("cargo runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

const USES_A_1_34_FIELD: &str = r#"
use releases_selection::api::resource::v1beta1::{DeviceConstraint, DeviceConstraintBuilder};

pub fn by_field() -> DeviceConstraint {
    let mut constraint = DeviceConstraint::default();
    constraint.distinct_attribute = Some("example.com/nic".to_owned());
    constraint
}

pub fn by_setter() -> DeviceConstraintBuilder {
    DeviceConstraint::builder().distinct_attribute("example.com/nic")
}

pub fn by_apply() -> releases_selection::api::storage::v1::CSIDriverSpecApply {
    releases_selection::api::storage::v1::CSIDriverSpec::apply()
        .node_allocatable_update_period_seconds(60)
}
"#;

#[test]
fn a_field_newer_than_the_minimum_release_is_a_deprecation() {
    let Some(dir) = kubernetes("a_field_newer_than_the_minimum_release_is_a_deprecation") else {
        return;
    };
    let generated = selection_crate(&dir);
    // A minimum of 1.32: the field and its setter are deprecated, with the note.
    let app = write_crate(
        "releases_min_1_32",
        &[dependency(&generated, &["min-k8s-1.32", "apply"])],
        USES_A_1_34_FIELD,
        &[],
    );
    let (success, text) = build(&app);
    assert!(
        !success,
        "expected the deprecation to fail the build:\n{text}"
    );
    for part in [
        "use of deprecated field `releases_selection::api::resource::v1beta1::DeviceConstraint::distinct_attribute`: not in Kubernetes 1.32, 1.33 (since 1.34)",
        "use of deprecated method",
        "distinct_attribute`: not in Kubernetes 1.32, 1.33 (since 1.34)",
        // The apply configuration's setter too.
        "node_allocatable_update_period_seconds`: not in Kubernetes 1.32 (since 1.33)",
    ] {
        assert!(text.contains(part), "{part:?} not in:\n{text}");
    }
    // A minimum of 1.34: clean.
    let app = write_crate(
        "releases_min_1_34",
        &[dependency(&generated, &["min-k8s-1.34", "apply"])],
        USES_A_1_34_FIELD,
        &[],
    );
    let (success, text) = build(&app);
    assert!(
        success,
        "expected a clean build with a minimum of 1.34:\n{text}"
    );
}

#[test]
fn a_library_for_1_32_and_an_application_using_1_36_build_together() {
    let Some(dir) = kubernetes("a_library_for_1_32_and_an_application_using_1_36_build_together")
    else {
        return;
    };
    let generated = selection_crate(&dir);
    let root = kubeforge_tests::scale::dir()
        .join("crates")
        .join("releases_two_crates");
    let _ = std::fs::remove_dir_all(&root);
    // The library supports 1.32 and uses what 1.32 has.
    let library = write_crate(
        "releases_two_crates/library",
        &[dependency(&generated, &["min-k8s-1.32"])],
        r#"
use releases_selection::api::resource::v1beta1::DeviceConstraint;

pub fn same_nic(attribute: &str) -> DeviceConstraint {
    DeviceConstraint::builder().match_attribute(attribute).build()
}
"#,
        &[],
    );
    std::fs::remove_file(library.join("Cargo.toml")).expect("rm");
    std::fs::write(
        library.join("Cargo.toml"),
        format!(
            "[package]\nname = \"library\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n{}\n",
            dependency(&generated, &["min-k8s-1.32"])
        ),
    )
    .expect("manifest");
    // The application uses a 1.36 field; features unify, so in this build the field is
    // deprecated for it too: a warning (here expected), never an error of the library's.
    let app = write_crate(
        "releases_two_crates",
        &[
            dependency(&generated, &[]),
            "library = { path = \"library\" }".to_owned(),
        ],
        r#"
use releases_selection::api::resource::v1beta1::DeviceAttribute;

#[expect(deprecated, reason = "the library's 1.32 support reaches this build")]
pub fn flags() -> DeviceAttribute {
    DeviceAttribute::builder().bools([true, false]).build()
}

pub fn both() -> (DeviceAttribute, usize) {
    let constraint = library::same_nic("example.com/nic");
    (flags(), constraint.match_attribute.map_or(0, |a| a.len()))
}
"#,
        &["library"],
    );
    let (success, text) = build(&app);
    assert!(
        success,
        "expected the two crates to build together:\n{text}"
    );
}

#[test]
fn the_merged_crate_builds_with_every_feature_combination_tried() {
    let Some(dir) = kubernetes("the_merged_crate_builds_with_every_feature_combination_tried")
    else {
        return;
    };
    let generated = selection_crate(&dir);
    for features in [
        &[][..],
        &["k8s-1.32"],
        &["min-k8s-1.33"],
        &["k8s-1.32", "k8s-1.36"],
        &["min-k8s-1.32", "validate"],
        &["min-k8s-1.32", "apply"],
    ] {
        let mut args = vec!["clippy", "--quiet", "--no-default-features"];
        let list = features.join(",");
        if !features.is_empty() {
            args.extend(["--features", &list]);
        }
        args.extend(["--", "-W", "clippy::pedantic"]);
        kubeforge_tests::scale::cargo(&generated, &args);
    }
}

#[test]
fn resources_and_routes_know_their_releases_at_run_time() {
    let Some(dir) = kubernetes("resources_and_routes_know_their_releases_at_run_time") else {
        return;
    };
    // `coordination.k8s.io/v1beta1` LeaseCandidate came in 1.33.
    let config = merged(&dir).select(
        "io.k8s.api.coordination.v1beta1.LeaseCandidate"
            .parse()
            .expect("pattern"),
    );
    let generated = kubeforge_tests::scale::generate("releases_routes", &config);
    std::fs::create_dir_all(generated.join("tests")).expect("mkdir");
    std::fs::write(
        generated.join("tests/releases.rs"),
        r#"
use releases_routes::api::coordination::v1beta1::LeaseCandidate;
use releases_routes::routes::Route;

#[test]
fn releases() {
    let since_1_33 = ["1.33", "1.34", "1.35", "1.36"];
    assert_eq!(LeaseCandidate::RELEASES, since_1_33);
    assert_eq!(Route::RELEASES, ["1.32", "1.33", "1.34", "1.35", "1.36"]);
    let candidates: Vec<Route> = Route::ALL
        .iter()
        .copied()
        .filter(|route| route.info().path.contains("/coordination.k8s.io/v1beta1/"))
        .collect();
    assert!(candidates.len() >= 6, "{candidates:?}");
    for route in candidates {
        assert_eq!(route.releases().collect::<Vec<_>>(), since_1_33, "{route:?}");
        assert!(!route.served_in("1.32") && route.served_in("1.36"), "{route:?}");
    }
}
"#,
    )
    .expect("test");
    kubeforge_tests::scale::cargo(
        &generated,
        &[
            &kubeforge_tests::scale::TEST[..],
            &["--quiet", "--test", "releases"],
        ]
        .concat(),
    );
    // The route table's release knowledge passes clippy's pedantic lints.
    kubeforge_tests::scale::cargo(
        &generated,
        &[
            "clippy",
            "--quiet",
            "--all-features",
            "--",
            "-W",
            "clippy::pedantic",
        ],
    );
}

#[test]
fn the_diff_of_a_release_is_the_diff_of_its_documents() {
    let Some(dir) = kubernetes("the_diff_of_a_release_is_the_diff_of_its_documents") else {
        return;
    };
    let merged = merged(&dir);
    let of_release = kubeforge::diff::release(&merged, "1.36").expect("1.36 against 1.35");
    let of_documents = kubeforge::diff::configs(
        &Config::new().input(dir.join("swagger-1.35.json")),
        &Config::new().input(dir.join("swagger.json")),
    )
    .expect("the documents");
    let subjects = |report: &kubeforge::diff::Report| -> BTreeSet<String> {
        report
            .changes
            .iter()
            .map(|c| format!("{} {} {}", c.effect.as_str(), c.kind, c.subject))
            .collect()
    };
    let (a, b) = (subjects(&of_release), subjects(&of_documents));
    assert!(!a.is_empty());
    assert!(
        a == b,
        "only the release's, only the documents': {:?}",
        differences(&a, &b)
    );
    let error = kubeforge::diff::release(&merged, "1.32").expect_err("the oldest");
    assert!(error.to_string().contains("`1.32`, the oldest"), "{error}");
}

#[test]
fn the_command_line_wants_one_release_per_input() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kubeforge"))
        .args([
            "--releases",
            "1.32,1.33",
            "a.json",
            "b.json",
            "c.json",
            "--out",
            "api",
        ])
        .output()
        .expect("kubeforge runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "expected one release per input with `--releases`, but there are 2 releases and 3 inputs"
        ),
        "{stderr}"
    );
}

/// `kubeforge diff --releases … --release 1.36` prints, as a user types it, exactly what
/// `kubeforge diff swagger-1.35.json -- swagger.json` prints; one release per input.
#[test]
fn the_diff_command_of_a_release_prints_the_diff_of_its_documents() {
    let Some(dir) = kubernetes("the_diff_command_of_a_release_prints_the_diff_of_its_documents")
    else {
        return;
    };
    let run = |args: &[&std::ffi::OsStr]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_kubeforge"))
            .args(args)
            .output()
            .expect("kubeforge runs")
    };
    let (old, new) = (dir.join("swagger-1.35.json"), dir.join("swagger.json"));
    let of_release = run(&[
        "diff".as_ref(),
        "--releases".as_ref(),
        "1.35,1.36".as_ref(),
        "--release".as_ref(),
        "1.36".as_ref(),
        old.as_os_str(),
        new.as_os_str(),
    ]);
    let of_documents = run(&[
        "diff".as_ref(),
        old.as_os_str(),
        "--".as_ref(),
        new.as_os_str(),
    ]);
    assert!(
        of_release.status.success(),
        "{}",
        String::from_utf8_lossy(&of_release.stderr)
    );
    assert!(of_documents.status.success());
    let printed = String::from_utf8_lossy(&of_release.stdout);
    assert!(printed.contains(" changes: "), "{printed}");
    assert_eq!(printed, String::from_utf8_lossy(&of_documents.stdout));

    let miscounted = run(&[
        "diff".as_ref(),
        "--releases".as_ref(),
        "1.35".as_ref(),
        "--release".as_ref(),
        "1.35".as_ref(),
        old.as_os_str(),
        new.as_os_str(),
    ]);
    assert_eq!(miscounted.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&miscounted.stderr).contains(
        "expected one release per input with `--releases`, but there are 1 releases and 2 inputs"
    ));
}
