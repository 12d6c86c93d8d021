//! The companion crate `kubeforge-meta`: every generated crate takes the built-in meta types
//! (`ObjectMeta`, `ListMeta`, `Status`, …) from it, so crates generated separately share
//! them; a user's extern mapping wins; an input's own, different definition stays local
//! (with a note), and so does every meta type that references it.

use std::path::{Path, PathBuf};

use kubeforge::Config;
use kubeforge::package::{CrateOptions, RuntimeDependency, write_crate};
use kubeforge::view::{Kind, Model, Type};
use kubeforge_tests::{scale, workspace_root};

const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1";
const COMPANION: &str = "::kubeforge_meta::apimachinery::pkg::apis::meta::v1";

fn type_of<'a>(api: &'a Model, schema: &str) -> Type<'a> {
    api.schema(schema)
        .unwrap_or_else(|| panic!("no type for {schema}"))
}

fn extern_path<'a>(api: &'a Model, schema: &str) -> Option<&'a str> {
    type_of(api, schema).extern_path()
}

fn notes(api: &Model) -> String {
    api.notes()
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

fn fixture() -> PathBuf {
    workspace_root().join("tests/companion/old-object-meta.json")
}

/// A CRD referencing `ObjectMeta` (and, through its list, `ListMeta`) without defining them.
fn crd(kind: &str) -> String {
    format!(
        r#"{{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {{"name": "{plural}.example.com"}},
  "spec": {{"group": "example.com", "names": {{"kind": "{kind}", "plural": "{plural}"}}, "scope": "Namespaced",
    "versions": [{{"name": "v1", "served": true, "storage": true,
      "schema": {{"openAPIV3Schema": {{"type": "object", "properties": {{"spec": {{"type": "object",
        "properties": {{"size": {{"type": "integer"}}}}}}}}}}}}}}]}}}}"#,
        plural = kind.to_lowercase() + "s"
    )
}

/// The built-in definition of `name`, as an input would copy it.
fn builtin_definition(name: &str) -> serde_json::Value {
    let document: serde_json::Value =
        serde_json::from_slice(kubeforge::builtin_meta_document()).expect("built-in JSON");
    document["components"]["schemas"][name].clone()
}

fn openapi(schemas: &serde_json::Value) -> String {
    serde_json::json!({"openapi": "3.0.0", "info": {"title": "t", "version": "v1"}, "paths": {},
        "components": {"schemas": schemas}})
    .to_string()
}

#[test]
fn a_crd_takes_every_meta_type_from_the_companion() {
    let config = Config::new().input_bytes("thing.json", crd("Thing"));
    let api = config.model().expect("models");
    for name in ["ObjectMeta", "ListMeta"] {
        assert_eq!(
            extern_path(&api, &format!("{META}.{name}")),
            Some(format!("{COMPANION}::{name}").as_str())
        );
    }
    // Nothing re-exported: the input does not define them.
    assert_eq!(api.reexports().count(), 0);
    let output = config.generate().expect("generates");
    assert!(output.uses_companion_meta());
    assert!(
        !output
            .files()
            .keys()
            .any(|p| p.to_string_lossy().contains("apimachinery")),
        "{:?}",
        output.files().keys().collect::<Vec<_>>()
    );
    // Eq still holds for the CRD's root, as with local copies (the companion's `ObjectMeta`
    // is `Eq`).
    let local = Config::new()
        .input_bytes("thing.json", crd("Thing"))
        .companion_meta(false)
        .model()
        .expect("models");
    let eq = |api: &Model| {
        api.schema("com.example.v1.Thing")
            .map(|t| t.derives().contains(&"Eq"))
    };
    assert_eq!(eq(&api), eq(&local));
    assert_eq!(eq(&api), Some(true));
    // Off: every meta type is generated here, and the crate needs no companion.
    assert_ne!(
        type_of(&local, &format!("{META}.ObjectMeta")).kind(),
        Kind::Extern
    );
    let output = Config::new()
        .input_bytes("thing.json", crd("Thing"))
        .companion_meta(false)
        .generate()
        .expect("generates");
    assert!(!output.uses_companion_meta());
}

#[test]
fn a_users_mapping_wins_over_the_companion() {
    // `--kube`'s mapping of the whole package, less specific than the companion's exact
    // names, still wins; what it does not name (the watch event aside) stays the companion's.
    let api = Config::new()
        .input_bytes("thing.json", crd("Thing"))
        .extern_type(
            format!("{META}.*"),
            "::k8s_openapi::apimachinery::pkg::apis::meta::v1::*",
        )
        .model()
        .expect("models");
    assert_eq!(
        extern_path(&api, &format!("{META}.ObjectMeta")),
        Some("::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta")
    );
    assert_eq!(
        extern_path(&api, &format!("{META}.ListMeta")),
        Some("::k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta")
    );
    // No note about an unused companion mapping.
    assert!(!notes(&api).contains("kubeforge_meta"), "{}", notes(&api));
}

#[test]
fn a_meta_type_defined_differently_is_generated_here() {
    // The fixture's ObjectMeta has Kubernetes 1.9's `clusterName`; it references
    // `OwnerReference`, which it does not define, and its list `ListMeta`.
    let api = Config::new().input(fixture()).model().expect("models");
    assert_ne!(
        type_of(&api, &format!("{META}.ObjectMeta")).kind(),
        Kind::Extern,
        "the input's own ObjectMeta"
    );
    for name in ["OwnerReference", "ListMeta"] {
        assert_eq!(
            extern_path(&api, &format!("{META}.{name}")),
            Some(format!("{COMPANION}::{name}").as_str())
        );
    }
    let notes = notes(&api);
    assert!(
        notes.contains(&format!("`{META}.ObjectMeta` is generated here, not taken from `kubeforge-meta`: the inputs define it differently"))
            && notes.contains("/properties/clusterName"),
        "{notes}"
    );

    // An input's `OwnerReference` that differs makes the companion's `ObjectMeta`, which
    // holds the companion's `OwnerReference`, unusable: both are local; `ListMeta` is not.
    let mut owner = builtin_definition(&format!("{META}.OwnerReference"));
    owner["properties"]["team"] = serde_json::json!({"type": "string"});
    let schemas = serde_json::json!({ format!("{META}.OwnerReference"): owner });
    let api = Config::new()
        .input_bytes("thing.json", crd("Thing"))
        .input_bytes("owner.json", openapi(&schemas))
        .model()
        .expect("models");
    for name in ["OwnerReference", "ObjectMeta"] {
        assert!(
            extern_path(&api, &format!("{META}.{name}")).is_none(),
            "{name} is local"
        );
    }
    assert!(extern_path(&api, &format!("{META}.ListMeta")).is_some());
    let notes = self::notes(&api);
    assert!(
        notes.contains(&format!(
            "`{META}.ObjectMeta` is generated here, not taken from `kubeforge-meta`: it references `{META}.OwnerReference`, which is generated here"
        )),
        "{notes}"
    );

    // Defined alike (the built-in copy itself): the companion's, re-exported at its place.
    let schemas = serde_json::json!({
        format!("{META}.OwnerReference"): builtin_definition(&format!("{META}.OwnerReference"))
    });
    let config = Config::new()
        .input_bytes("thing.json", crd("Thing"))
        .input_bytes("owner.json", openapi(&schemas));
    let api = config.model().expect("models");
    assert!(extern_path(&api, &format!("{META}.OwnerReference")).is_some());
    assert_eq!(api.reexports().count(), 1);
    let output = config.generate().expect("generates");
    let module = &output.files()[Path::new("apimachinery/pkg/apis/meta/v1/mod.rs")];
    assert!(
        module.contains(&format!("pub use {COMPANION}::OwnerReference;")),
        "{module}"
    );
}

/// Kubernetes 1.9's `ObjectMeta` (`initializers`, `clusterName`) is not the companion's: it
/// is generated here, with a note. The crate builds (`scale.rs`'s old-documents test).
#[test]
fn kubernetes_1_9_keeps_its_own_object_meta() {
    let Some(dir) = kubeforge_tests::old_documents(
        "kubernetes_1_9_keeps_its_own_object_meta",
        &["kubernetes-1.9.4-swagger.json"],
    ) else {
        return;
    };
    let path = dir.join("kubernetes-1.9.4-swagger.json");
    let api = Config::new().input(&path).model().expect("models");
    assert!(extern_path(&api, &format!("{META}.ObjectMeta")).is_none());
    let notes = notes(&api);
    assert!(
        notes.contains(&format!(
            "`{META}.ObjectMeta` is generated here, not taken from `kubeforge-meta`: the inputs define it differently"
        )),
        "{notes}"
    );
}

/// Writes a generated crate into the workspace at `root`.
fn member(root: &Path, name: &str, config: &Config) {
    let output = config
        .generate()
        .unwrap_or_else(|e| panic!("{name} does not generate:\n{e}"));
    let options = CrateOptions {
        name: name.to_owned(),
        runtime: RuntimeDependency::Path(workspace_root().join("runtime")),
        ..CrateOptions::default()
    };
    write_crate(&output, &root.join(name), &options)
        .unwrap_or_else(|e| panic!("{name} does not write:\n{e}"));
}

/// Two real CRDs generated separately into two crates, built in one workspace with a crate
/// that passes both resources' `ObjectMeta` and their lists' `ListMeta` to one function
/// taking the companion's types, and moves metadata from one to the other; beside them the
/// fixture (its own `ObjectMeta`, with `cluster_name`) and a CRD with local meta types.
#[test]
fn crates_generated_separately_share_the_meta_types() {
    let Some(corpus) = kubeforge_tests::corpus(
        "companion_meta",
        &[
            "crds/cert-manager-Certificate.yaml",
            "crds/gateway-api-HTTPRoute.yaml",
        ],
    ) else {
        return;
    };
    let root = scale::dir().join("companion");
    std::fs::create_dir_all(root.join("user/src")).expect("workspace dir");
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = [\"cert\", \"route\", \"gadget\", \"local\", \"user\"]\n",
    )
    .expect("workspace manifest");
    let cert = corpus.join("crds/cert-manager-Certificate.yaml");
    member(&root, "cert", &Config::new().input(&cert));
    member(
        &root,
        "route",
        &Config::new().input(corpus.join("crds/gateway-api-HTTPRoute.yaml")),
    );
    member(&root, "gadget", &Config::new().input(fixture()));
    member(
        &root,
        "local",
        &Config::new().input(&cert).companion_meta(false),
    );
    let manifest =
        |name: &str| std::fs::read_to_string(root.join(name).join("Cargo.toml")).unwrap();
    assert!(manifest("cert").contains("kubeforge-meta = { path = \""));
    assert!(!manifest("local").contains("kubeforge-meta"));
    assert!(
        root.join("local/src/apimachinery/pkg/apis/meta/v1/object_meta.rs")
            .is_file()
    );
    std::fs::write(
        root.join("user/Cargo.toml"),
        format!(
            "[package]\nname = \"user\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\ncert = {{ path = \"../cert\" }}\nroute = {{ path = \"../route\" }}\n\
             gadget = {{ path = \"../gadget\" }}\nlocal = {{ path = \"../local\" }}\n\
             kubeforge-meta = {{ path = {:?} }}\nserde_json = \"1\"\n",
            workspace_root().join("meta").display().to_string()
        ),
    )
    .expect("user manifest");
    std::fs::write(
        root.join("user/src/lib.rs"),
        r##"//! Uses the crates generated separately together.
use kubeforge_meta::apimachinery::pkg::apis::meta::v1::{ListMeta, ObjectMeta};

/// One function for both crates' metadata.
pub fn name(meta: Option<&ObjectMeta>) -> Option<&str> {
    meta?.name.as_deref()
}

/// One function for both crates' list metadata.
pub fn continue_token(meta: Option<&ListMeta>) -> Option<&str> {
    meta?.continue_.as_deref()
}

/// The certificate's metadata, given to a route.
pub fn adopt(
    certificate: &cert::io::cert_manager::v1::Certificate,
    route: &mut route::networking::gateway::v1::HTTPRoute,
) {
    route.metadata.clone_from(&certificate.metadata);
}

/// Both lists' metadata through one function.
pub fn tokens<'a>(
    a: &'a cert::io::cert_manager::v1::CertificateList,
    b: &'a route::networking::gateway::v1::HTTPRouteList,
) -> (Option<&'a str>, Option<&'a str>) {
    (continue_token(a.metadata.as_ref()), continue_token(b.metadata.as_ref()))
}

/// The fixture's own `ObjectMeta` (Kubernetes 1.9's shape) has `cluster_name`.
pub fn cluster(gadget: &gadget::io::example::v1::Gadget) -> Option<&str> {
    gadget.metadata.as_ref()?.cluster_name.as_deref()
}

/// With local meta types, the crate's own `ObjectMeta`.
pub fn local_name(certificate: &local::io::cert_manager::v1::Certificate) -> Option<&str> {
    certificate.metadata.as_ref()?.name.as_deref()
}

#[cfg(test)]
mod tests {
    #[test]
    fn metadata_moves_between_crates() {
        let certificate: cert::io::cert_manager::v1::Certificate = serde_json::from_str(
            r#"{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
                "metadata": {"name": "web", "namespace": "prod", "labels": {"a": "b"}, "futureField": 1},
                "spec": {"secretName": "web-tls", "issuerRef": {"name": "ca"}}}"#,
        )
        .unwrap();
        let mut route: route::networking::gateway::v1::HTTPRoute = serde_json::from_str(
            r#"{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "spec": {}}"#,
        )
        .unwrap();
        super::adopt(&certificate, &mut route);
        assert_eq!(super::name(route.metadata.as_ref()), Some("web"));
        assert_eq!(super::name(certificate.metadata.as_ref()), Some("web"));
        let json = serde_json::to_value(&route).unwrap();
        assert_eq!(json["metadata"]["labels"]["a"], "b");
        assert_eq!(json["metadata"]["futureField"], 1, "unknown fields kept");
        let gadget: gadget::io::example::v1::Gadget = serde_json::from_str(
            r#"{"apiVersion": "example.io/v1", "kind": "Gadget", "metadata": {"name": "g", "clusterName": "east"}}"#,
        )
        .unwrap();
        assert_eq!(super::cluster(&gadget), Some("east"));
    }
}
"##,
    )
    .expect("user lib");
    scale::cargo(
        &root,
        &[&scale::TEST[..], &["--quiet", "--package", "user"]].concat(),
    );
}

/// The two newest real releases both take every meta type from the companion: 1.36's
/// definitions are the companion's, and 1.35's only lack 1.36's optional
/// `ListMeta.shardInfo`, so a crate generated from either shares `ObjectMeta`, `ListMeta`
/// and `Status` with every other crate, and says nothing about defining them differently.
#[test]
fn the_newest_releases_share_every_meta_type() {
    let Some(corpus) = kubeforge_tests::corpus(
        "companion_meta: releases",
        &["kubernetes/swagger.json", "kubernetes/swagger-1.35.json"],
    ) else {
        return;
    };
    for document in ["swagger.json", "swagger-1.35.json"] {
        let api = Config::new()
            .input(corpus.join("kubernetes").join(document))
            .model()
            .expect("models");
        let shard = (document == "swagger.json").then_some("ShardInfo");
        for name in ["ObjectMeta", "ListMeta", "Status"]
            .into_iter()
            .chain(shard)
        {
            assert_eq!(
                extern_path(&api, &format!("{META}.{name}")),
                Some(format!("{COMPANION}::{name}").as_str()),
                "{document}: {name}"
            );
        }
        // Swagger 2.0 spells `Quantity` and `IntOrString` differently from the v3 documents
        // the companion comes from; they are the runtime's types by name all the same.
        for (package, name) in [("api.resource", "Quantity"), ("util.intstr", "IntOrString")] {
            let schema = format!("io.k8s.apimachinery.pkg.{package}.{name}");
            let path = format!(
                "::kubeforge_meta::apimachinery::pkg::{}::{name}",
                package.replace('.', "::")
            );
            assert_eq!(
                extern_path(&api, &schema),
                Some(path.as_str()),
                "{document}"
            );
            // Still named at its place in the crate, as before the companion.
            assert!(
                api.reexports().any(|ty| ty.schema_name() == schema),
                "{document}: {name} is re-exported"
            );
        }
        let notes = notes(&api);
        assert!(
            !notes.contains("define it differently"),
            "{document}: {notes}"
        );
    }
}

/// An input's `ListMeta` without `shardInfo` (1.35's) reads a list's metadata into the
/// companion's type, and writes it back unchanged; a 1.36 server's `shardInfo` is a field.
#[test]
fn an_older_list_meta_round_trips_through_the_companions() {
    let old =
        serde_json::json!({"resourceVersion": "42", "continue": "abc", "remainingItemCount": 7});
    let meta: kubeforge_meta::apimachinery::pkg::apis::meta::v1::ListMeta =
        serde_json::from_value(old.clone()).expect("reads");
    assert_eq!(serde_json::to_value(&meta).expect("writes"), old);
    let new = serde_json::json!({"resourceVersion": "42", "shardInfo": {"selector": "shard=1"}});
    let meta: kubeforge_meta::apimachinery::pkg::apis::meta::v1::ListMeta =
        serde_json::from_value(new.clone()).expect("reads");
    assert_eq!(
        meta.shard_info.as_ref().map(|s| s.selector.as_str()),
        Some("shard=1")
    );
    assert_eq!(serde_json::to_value(&meta).expect("writes"), new);
}

/// Lacking a field the companion requires is no subset: the companion's type could not read
/// the input's objects, so the input's own definition stays.
#[test]
fn lacking_a_required_field_keeps_the_inputs_definition() {
    let mut shard = builtin_definition(&format!("{META}.ShardInfo"));
    shard["properties"] = serde_json::json!({"other": {"type": "string"}});
    shard["required"] = serde_json::json!([]);
    let mut narrow = builtin_definition(&format!("{META}.ShardInfo"));
    narrow["properties"] = serde_json::json!({});
    narrow.as_object_mut().expect("object").remove("required");
    for (label, definition, local) in [("other fields", shard, true), ("no field", narrow, true)] {
        let schemas = serde_json::json!({ format!("{META}.ShardInfo"): definition });
        let api = Config::new()
            .input_bytes("thing.json", crd("Thing"))
            .input_bytes("shard.json", openapi(&schemas))
            .model()
            .expect("models");
        assert_eq!(
            extern_path(&api, &format!("{META}.ShardInfo")).is_none(),
            local,
            "{label}"
        );
    }
    // Lacking only optional fields (`ListMeta` without `shardInfo` and `continue`) is one.
    let mut list = builtin_definition(&format!("{META}.ListMeta"));
    let properties = list["properties"].as_object_mut().expect("properties");
    properties.remove("shardInfo");
    properties.remove("continue");
    let schemas = serde_json::json!({ format!("{META}.ListMeta"): list });
    let api = Config::new()
        .input_bytes("thing.json", crd("Thing"))
        .input_bytes("list.json", openapi(&schemas))
        .model()
        .expect("models");
    assert_eq!(
        extern_path(&api, &format!("{META}.ListMeta")),
        Some(format!("{COMPANION}::ListMeta").as_str())
    );
}
