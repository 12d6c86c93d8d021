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
