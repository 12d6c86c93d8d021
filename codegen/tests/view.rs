//! The read-only view of the model (`kubeforge::view`), as a tool uses it: a CRD posted as
//! text (never a file) becomes a model whose resource, types, fields, operations and schema
//! nodes read as the generated crate has them.

use kubeforge::Config;
use kubeforge::view::{Kind, Model, Role};

const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.io
spec:
  group: example.io
  names: {kind: Widget, plural: widgets, singular: widget}
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
            apiVersion: {type: string}
            kind: {type: string}
            metadata: {type: object}
            spec:
              type: object
              required: [size]
              properties:
                size: {type: integer, format: int32, maximum: 10}
                ports:
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [name]
                  items:
                    type: object
                    required: [name]
                    properties:
                      name: {type: string}
                      port: {type: integer}
            status:
              type: object
              properties:
                ready: {type: boolean}
"#;

fn model() -> Model {
    Config::new()
        .input_bytes("widgets.yaml", CRD)
        .model()
        .expect("the CRD models")
}

#[test]
fn a_crd_in_memory_reads_as_its_resource_and_types() {
    let model = model();
    let [widget] = model.resources().collect::<Vec<_>>()[..] else {
        panic!("one resource: {:?}", model.resources().collect::<Vec<_>>())
    };
    assert_eq!(
        (widget.gvk().api_version(), widget.gvk().kind.as_str()),
        ("example.io/v1".to_owned(), "Widget")
    );
    assert_eq!(widget.plural(), "widgets");
    assert!(widget.namespaced());
    assert_eq!(widget.subresources(), ["status"]);
    let ty = widget.ty();
    assert_eq!(ty.path(), "io::example::v1::Widget");
    assert_eq!(ty.kind(), Kind::Struct);
    assert_eq!(ty.resource().map(|r| r.plural()), Some("widgets"));

    // Fields in schema order, the unknown keys' last; the nested types by their paths.
    let fields: Vec<(&str, Role)> = ty.fields().map(|f| (f.json_name(), f.role())).collect();
    assert_eq!(
        fields[..2],
        [("apiVersion", Role::ApiVersion), ("kind", Role::Kind)]
    );
    assert_eq!(fields.last().map(|f| f.1), Some(Role::Extra));
    let spec = ty
        .field("spec")
        .expect("spec")
        .shape()
        .named()
        .expect("a type");
    assert_eq!(spec.path(), "io::example::v1::WidgetSpec");
    let size = spec.field("size").expect("size");
    assert!(size.required());
    assert_eq!(size.shape().to_string(), "i32");
    let ports = spec.field("ports").expect("ports").shape();
    assert!(ports.is_list(), "{ports}");
    let port = ports.named().expect("the item type");
    assert_eq!(port.name(), "WidgetSpecPorts");
    assert_eq!(
        port.fields()
            .filter(|f| f.role() == Role::Plain)
            .map(|f| (f.json_name(), f.required()))
            .collect::<Vec<_>>(),
        [("name", true), ("port", false)]
    );

    // A nested type's node is the part of its named type's node at its place.
    assert_eq!(port.nested_in().map(|t| t.index()), Some(ty.index()));
    assert!(ty.nested_in().is_none());
    let spec_node = spec.node().expect("spec's node");
    assert_eq!(spec_node.properties["ports"].list_map_keys, ["name"]);
    assert!(spec_node.properties["size"].maximum.is_some());
    assert_eq!(
        port.node().map(|n| n.required.clone()),
        Some(vec!["name".to_owned()])
    );

    // The nodes by index: what a `SchemaSet` is made of, references included.
    let nodes = model.nodes();
    assert_eq!(nodes.len(), model.types().len());
    let metadata = nodes[ty.index()].properties["metadata"]
        .reference
        .expect("metadata refers to ObjectMeta");
    assert_eq!(
        model.type_at(metadata).map(|t| t.schema_name()),
        Some("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
    );
    assert!(model.type_at(metadata).is_some_and(|t| t.is_companion()));
}

#[test]
fn a_crds_operations_are_kubernetes_conventional_table() {
    let model = model();
    let ty = model.resources().next().expect("Widget").ty();
    let operations: Vec<(&str, &str, Option<&str>)> = ty
        .operations()
        .map(|op| {
            let target = op.target().expect("on Widget");
            assert_eq!(target.plural(), "widgets");
            assert_eq!(target.ty().map(|t| t.index()), Some(ty.index()));
            (op.method(), op.action(), target.subresource())
        })
        .collect();
    for expected in [
        ("GET", "list", None),
        ("POST", "create", None),
        ("DELETE", "deletecollection", None),
        ("PATCH", "patch", None),
        ("PUT", "replace", Some("status")),
    ] {
        assert!(
            operations.contains(&expected),
            "{expected:?} in {operations:?}"
        );
    }
    let list = ty
        .operations()
        .find(|op| op.action() == "list")
        .expect("a list");
    assert!(list.query_params().any(|q| q.name() == "watch"));
    assert!(list.path().starts_with("/apis/example.io/v1/"));
    let create = ty
        .operations()
        .find(|op| op.action() == "create")
        .expect("a create");
    let body = create.body().expect("a body");
    assert_eq!(body.shape().ty().map(|t| t.index()), Some(ty.index()));
    assert!(!body.is_patch());
    assert!(
        create
            .responses()
            .any(|r| r.status() == 201
                && r.body_type().as_deref() == Some("io::example::v1::Widget"))
    );
}
