//! One pattern language for every option: the same pattern names the same types whether it
//! selects them (`Config::select`), maps them to extern types (`Config::extern_type`) or
//! gives them an attribute or derive (`Config::type_attribute`, `Config::derive`), checked
//! on the generated code and the model, not on the patterns' text.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kubeforge::view::{Kind, Type};
use kubeforge::{Config, Layout, Pattern};

fn schema() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/image.openshift.io_v1.json")
}

/// With the meta types generated here (not the companion crate's), so that every pattern
/// form has types of its own to name, meta's package included.
fn config() -> Config {
    Config::new()
        .input_named(schema(), "schemas/image.openshift.io_v1.json")
        .companion_meta(false)
}

/// Patterns of every form, each naming some but not all types of the input (the input has
/// no enums: every type is a struct).
const PATTERNS: &[&str] = &[
    "kind=ImageStream",
    "group=image.openshift.io",
    "group-version=image.openshift.io/v1",
    "com.github.openshift.api.image.v1.*",
    "com.github.openshift.api.image.v1.ImageStreamSpec",
    "io.k8s.apimachinery.pkg.apis.meta.v1.*",
    "io.k8s.apimachinery.**",
    "openshift::image::v1::*",
    "apimachinery::**",
    "apimachinery::pkg::apis::meta::v1::ObjectMeta",
    "TagReference",
    "@struct",
];

const MARK: &str = "#[doc(alias = \"kubeforge_marked\")]";

/// `module::Name` of every struct and enum that carries the marker attribute.
fn marked(config: Config, pattern: &str) -> BTreeSet<String> {
    let output = config
        .layout(Layout::Crate)
        .type_attribute(pattern, MARK)
        .generate()
        .unwrap_or_else(|e| panic!("{pattern}: {e}"));
    let mut names = BTreeSet::new();
    for (file, text) in output.files() {
        let module: Vec<String> = file
            .parent()
            .into_iter()
            .flat_map(Path::components)
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        for (at, _) in text.match_indices(MARK) {
            let item = text[at + MARK.len()..].trim_start();
            let name = item
                .strip_prefix("pub struct ")
                .or_else(|| item.strip_prefix("pub enum "))
                .unwrap_or_else(|| panic!("{pattern}: the marker is not on a type: {item:.80}"));
            let name: String = name
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let mut path = module.clone();
            path.push(name);
            names.insert(path.join("::"));
        }
    }
    names
}

fn is_item(kind: Kind) -> bool {
    matches!(kind, Kind::Struct | Kind::Enum | Kind::Union)
}

#[test]
fn one_pattern_names_the_same_types_for_every_option() {
    let all: BTreeSet<String> = config()
        .model()
        .expect("model")
        .types()
        .filter(|ty| is_item(ty.kind()))
        .map(Type::path)
        .collect();
    for pattern in PATTERNS {
        let attributed = marked(config(), pattern);
        assert!(
            !attributed.is_empty() && (attributed.len() < all.len() || *pattern == "@struct"),
            "{pattern} should name some types: {attributed:?}"
        );
        // The same pattern as a derive: the derive lands on exactly those types (a trait no
        // generated type derives, so nothing is elided).
        let derived = config()
            .derive(*pattern, "::kubeforge_test::Marked")
            .generate()
            .expect("generates");
        let derived: usize = derived
            .files()
            .values()
            .map(|text| text.matches("#[derive(::kubeforge_test::Marked)]").count())
            .sum();
        assert_eq!(derived, attributed.len(), "{pattern}: derive");

        // Extern: the structs and enums it makes extern are exactly those.
        let model = config()
            .extern_type(*pattern, "crate::elsewhere::*")
            .model()
            .unwrap_or_else(|e| panic!("{pattern}: {e}"));
        let before = config().model().expect("model");
        let external: BTreeSet<String> = model
            .types()
            .zip(before.types())
            .filter(|(after, before)| after.kind() == Kind::Extern && is_item(before.kind()))
            .map(|(_, before)| before.path())
            .collect();
        assert_eq!(external, attributed, "{pattern}: extern");

        // Selection keeps every type it names (and what they reference).
        if pattern.starts_with('@') {
            continue;
        }
        let selected: BTreeSet<String> = config()
            .select(pattern.parse().expect("pattern"))
            .model()
            .unwrap_or_else(|e| panic!("{pattern}: {e}"))
            .types()
            .map(Type::path)
            .collect();
        let missing: Vec<_> = attributed.difference(&selected).collect();
        assert!(missing.is_empty(), "{pattern}: select left out {missing:?}");
        let marked_after = marked(config().select(pattern.parse().expect("pattern")), pattern);
        assert_eq!(marked_after, attributed, "{pattern}: select then attribute");
    }
}

/// Where several extern mappings name a type, the most specific pattern wins, whatever the
/// order they are given in.
#[test]
fn the_most_specific_extern_mapping_wins() {
    for reversed in [false, true] {
        let mut rules = vec![
            ("io.k8s.**", "::wide::*"),
            ("io.k8s.apimachinery.pkg.apis.meta.v1.*", "::meta::*"),
            ("ObjectMeta", "::mine::Meta"),
            (
                "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
                "::exact::ObjectMeta",
            ),
        ];
        if reversed {
            rules.reverse();
        }
        let mut config = config().select(Pattern::Kind("ImageStream".into()));
        for (pattern, path) in rules {
            config = config.extern_type(pattern, path);
        }
        let model = config.model().expect("model");
        let extern_of = |schema: &str| {
            model
                .schema(schema)
                .map(|ty| ty.extern_path().unwrap_or_default().to_owned())
        };
        assert_eq!(
            extern_of("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta").as_deref(),
            Some("::exact::ObjectMeta")
        );
        assert_eq!(
            extern_of("io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry").as_deref(),
            Some("::meta::ManagedFieldsEntry")
        );
        assert_eq!(
            extern_of("io.k8s.api.core.v1.ObjectReference").as_deref(),
            Some("::wide::ObjectReference")
        );
    }
}

/// A type name maps every type of that name, in any package (kopium's `--no-condition`
/// with one's own `Condition`).
#[test]
fn an_extern_by_type_name_maps_it_in_every_package() {
    let model = config()
        .extern_type("ObjectReference", "::mine::Reference")
        .model()
        .expect("model");
    let mapped: Vec<_> = model
        .types()
        .filter(|ty| ty.extern_path() == Some("::mine::Reference"))
        .map(|ty| ty.schema_name())
        .collect();
    assert_eq!(mapped, ["io.k8s.api.core.v1.ObjectReference"]);
}
