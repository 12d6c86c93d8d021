//! The `.proto` inputs (`Config::proto`, `--proto`) in the model: messages matched to
//! schemas by name, fields by name, mismatches as warnings that name the `.proto` file and
//! line and the schema's place, several releases with one set of files (a property only an
//! older release has is such a warning), and no protobuf for
//! a schema without a message. (The generated code's behaviour on Kubernetes' fixtures is
//! `tests/tests/protobuf.rs`.)

use std::path::Path;

use kubeforge::Config;

const PROTO: &str = "kubernetes/proto";

/// A model's types with a protobuf message, by schema name.
fn with_messages(config: &Config) -> Vec<(String, String)> {
    let model = config
        .model()
        .unwrap_or_else(|e| panic!("does not model:\n{e}"));
    model
        .types()
        .filter_map(|ty| {
            Some((
                ty.schema_name().to_owned(),
                ty.protobuf_message()?.to_owned(),
            ))
        })
        .collect()
}

#[test]
fn releases_merged_take_one_set_of_proto_files() {
    let Some(corpus) = kubeforge_tests::corpus(
        "protobuf: releases 1.35 and 1.36 with the 1.36 .proto files",
        &[
            "kubernetes/swagger-1.35.json",
            "kubernetes/swagger.json",
            PROTO,
        ],
    ) else {
        return;
    };
    let config = Config::new()
        .release_input("1.35", corpus.join("kubernetes/swagger-1.35.json"))
        .release_input("1.36", corpus.join("kubernetes/swagger.json"))
        .select("kind=Pod".parse().expect("pattern"))
        .proto(corpus.join(PROTO));
    let messages = with_messages(&config);
    assert!(
        messages.contains(&(
            "io.k8s.api.core.v1.Pod".to_owned(),
            "k8s.io.api.core.v1.Pod".to_owned()
        )),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|(s, _)| s == "io.k8s.api.core.v1.Volume")
    );
    let output = config.generate().expect("generates");
    let warnings: Vec<String> = output.warnings().iter().map(ToString::to_string).collect();
    // Pod and what it references match 1.36's messages, but for the one property 1.35 has
    // and 1.36 dropped (`PodSpec.workloadRef`, alpha): not in the message, so a warning.
    let mismatches: Vec<&String> = warnings
        .iter()
        .filter(|w| w.contains("protobuf-mismatch"))
        .collect();
    assert_eq!(mismatches.len(), 1, "{mismatches:#?}");
    assert!(
        mismatches[0].contains("property `workloadRef` of `io.k8s.api.core.v1.PodSpec`"),
        "{mismatches:#?}"
    );
    assert!(output.protobuf_feature());
}

#[test]
fn a_crd_gets_no_protobuf() {
    let Some(corpus) = kubeforge_tests::corpus(
        "protobuf: a CRD with Kubernetes' .proto files",
        &["crds/cert-manager-Certificate.yaml", PROTO],
    ) else {
        return;
    };
    let config = Config::new()
        .input(corpus.join("crds/cert-manager-Certificate.yaml"))
        .proto(corpus.join(PROTO));
    let messages = with_messages(&config);
    // The companion's ObjectMeta has its message; the CRD's own types have none.
    assert!(
        messages
            .iter()
            .all(|(schema, _)| schema.starts_with("io.k8s.apimachinery.")),
        "{messages:?}"
    );
    let output = config.generate().expect("generates");
    assert!(!output.protobuf_feature(), "no feature without a message");
}

/// A message and a schema that disagree: a property the message lacks, a field the schema
/// lacks, a field of another type; each a warning naming the `.proto` file and line, at the
/// schema's pointer (located to its line).
#[test]
fn mismatches_are_warnings_with_both_places() {
    let dir = tempfile::tempdir().expect("temp dir");
    let proto = dir.path().join("proto");
    std::fs::create_dir_all(proto.join("k8s.io/api/demo/v1")).expect("dirs");
    std::fs::write(
        proto.join("k8s.io/api/demo/v1/generated.proto"),
        "syntax = \"proto2\";\n\
         package k8s.io.api.demo.v1;\n\
         \n\
         message Widget {\n\
         \x20 optional string name = 1;\n\
         \x20 optional int32 size = 2;\n\
         \x20 optional string color = 3;\n\
         }\n",
    )
    .expect("write the .proto");
    let schema = r#"{
  "swagger": "2.0",
  "info": {"title": "demo", "version": "v1"},
  "paths": {},
  "definitions": {
    "io.k8s.api.demo.v1.Widget": {
      "type": "object",
      "properties": {
        "name": {"type": "string"},
        "size": {"type": "string"},
        "shape": {"type": "string"}
      }
    }
  }
}
"#;
    let config = Config::new()
        .input_bytes("demo.json", schema.as_bytes().to_vec())
        .proto(&proto);
    let output = config.generate().expect("generates, with warnings");
    let warnings: Vec<String> = output.warnings().iter().map(ToString::to_string).collect();
    let text = warnings.join("\n");
    let file = Path::new("k8s.io/api/demo/v1/generated.proto");
    let at = |line: usize| format!("{}:{line}", proto.join(file).display());
    assert_eq!(warnings.len(), 3, "{text}");
    assert!(
        text.contains(&format!(
            "field `size` of message `k8s.io.api.demo.v1.Widget` ({})",
            at(6)
        )) && text.contains("the field is a protobuf `int32`")
            && text.contains("#/definitions/io.k8s.api.demo.v1.Widget/properties/size"),
        "{text}"
    );
    assert!(
        text.contains("property `shape` of `io.k8s.api.demo.v1.Widget`")
            && text.contains(&at(4))
            && text.contains("demo.json:11:"),
        "the schema's line too:\n{text}"
    );
    assert!(
        text.contains(&format!(
            "field `color` of message `k8s.io.api.demo.v1.Widget` ({})",
            at(7)
        )),
        "{text}"
    );
    // The matched field is written; the others are not.
    let code: String = output.files().values().map(String::as_str).collect();
    assert!(
        code.contains("pb::encode_optional(1, self.name.as_ref(), buf);"),
        "{code}"
    );
    assert!(!code.contains("self.size.as_ref(), buf"), "{code}");

    // A directory without .proto files, or one protox cannot compile, is an error.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).expect("dir");
    let e = Config::new()
        .input_bytes("demo.json", schema.as_bytes().to_vec())
        .proto(&empty)
        .generate()
        .expect_err("no .proto files");
    assert!(e.to_string().contains("error[protobuf]"), "{e}");
}
