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
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-crd");
    let output = Command::new(cargo)
        .args(["test", "--quiet"])
        .current_dir(&out)
        .env("CARGO_TARGET_DIR", target)
        .env("RUSTFLAGS", "-D warnings")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "the generated crate does not build or its test fails:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
