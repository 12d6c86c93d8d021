//! CustomResourceDefinitions created through the API, as a user creates them: `kubectl
//! apply` against the binary serving the whole Kubernetes 1.36 API (`swagger.json`), then
//! everything a real API server does with the CRD at once: `NamesAccepted` and
//! `Established`, `acceptedNames`, discovery with its short name, `kubectl explain` from the
//! OpenAPI v3 document, validation and defaulting from its schema, the printer columns, the
//! `scale` and `status` subresources, server-side apply; names another CRD of the group
//! holds refused in the conditions as the naming controller refuses them; a changed schema
//! served at once; and the CRD's delete taking its objects with it. Real projects' CRDs
//! (`../shared/extra-crds`) are served the same way.

use std::path::PathBuf;

use kubeforge_tests::kubectl_server::KubectlServer;
use serde_json::Value;

fn start(test: &str) -> Option<(KubectlServer, PathBuf)> {
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
    let kubectl = kubeforge_tests::kubectl(test)?;
    let server = KubectlServer::start(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &[corpus.join("kubernetes/swagger.json")],
    );
    Some((server, corpus))
}

fn json_of(server: &KubectlServer, args: &[&str]) -> Value {
    let text = server.ok(args, "");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("kubectl {args:?}: {e}: {text}"))
}

const WIDGETS: &str = r"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Color, type: string, jsonPath: .spec.color}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What a widget should be.
            properties:
              size: {type: integer, minimum: 1, default: 3}
              replicas: {type: integer}
              color: {type: string, enum: [red, blue]}
          status:
            type: object
            properties:
              replicas: {type: integer}
";

/// The condition `ty` of a CRD: (status, reason, message).
fn condition(crd: &Value, ty: &str) -> (String, String, String) {
    let found = crd["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == ty)
        .unwrap_or_else(|| panic!("no {ty} condition: {crd}"));
    let text = |key: &str| found[key].as_str().unwrap_or("").to_owned();
    (text("status"), text("reason"), text("message"))
}

#[test]
fn a_crd_applied_with_kubectl_is_served_at_once() {
    let Some((server, _)) = start("a_crd_applied_with_kubectl_is_served_at_once") else {
        return;
    };
    let file = server.file("widgets.yaml", WIDGETS);
    let _ = server.ok(&["apply", "-f", &file], "");
    // No wait: established when the apply has answered.
    let crd = json_of(
        &server,
        &["get", "crd", "widgets.example.com", "-o", "json"],
    );
    assert_eq!(
        condition(&crd, "NamesAccepted"),
        (
            "True".into(),
            "NoConflicts".into(),
            "no conflicts found".into()
        )
    );
    assert_eq!(
        condition(&crd, "Established"),
        (
            "True".into(),
            "InitialNamesAccepted".into(),
            "the initial names have been accepted".into()
        )
    );
    assert_eq!(
        crd["status"]["acceptedNames"],
        serde_json::json!({"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "shortNames": ["wd"], "singular": "widget"})
    );
    assert_eq!(crd["status"]["storedVersions"], serde_json::json!(["v1"]));
    let _ = server.ok(
        &[
            "wait",
            "--for=condition=Established",
            "crd/widgets.example.com",
            "--timeout=5s",
        ],
        "",
    );
    let resources = server.ok(&["api-resources", "--api-group=example.com"], "");
    assert!(
        resources
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == ["widgets", "wd", "example.com/v1", "true", "Widget"]),
        "{resources}"
    );
    let explained = server.ok(&["explain", "widgets.spec"], "");
    assert!(
        explained.contains("What a widget should be."),
        "{explained}"
    );
    assert!(
        explained.contains("color\t<string>") || explained.contains("color"),
        "{explained}"
    );

    // Validated and defaulted by its schema; the printer columns.
    let _ = server.ok(
        &["apply", "-f", "-"],
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {color: red}\n",
    );
    let w1 = json_of(&server, &["get", "wd", "w1", "-o", "json"]);
    assert_eq!(w1["spec"]["size"], 3, "{w1}");
    let refused = server.fails(
        &["apply", "-f", "-"],
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\nspec: {color: green, size: 0}\n",
    );
    assert!(
        refused.contains(r#"The Widget "w2" is invalid: "#)
            && refused.contains(r#"spec.color: Unsupported value: "green": supported values: "red", "blue""#)
            && refused.contains("spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1"),
        "{refused}"
    );
    let table = server.ok(&["get", "widgets"], "");
    assert_eq!(
        table
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .collect::<Vec<_>>(),
        [vec!["NAME", "SIZE", "COLOR"], vec!["w1", "3", "red"]],
        "{table}"
    );

    // The scale and status subresources.
    let _ = server.ok(&["scale", "widget", "w1", "--replicas=4"], "");
    let _ = server.ok(
        &[
            "patch",
            "widget",
            "w1",
            "--subresource=status",
            "--type=merge",
            "-p",
            r#"{"status":{"replicas":2}}"#,
        ],
        "",
    );
    let scale = json_of(
        &server,
        &[
            "get",
            "--raw",
            "/apis/example.com/v1/namespaces/default/widgets/w1/scale",
        ],
    );
    assert_eq!(
        (
            scale["spec"]["replicas"].clone(),
            scale["status"]["replicas"].clone()
        ),
        (4.into(), 2.into()),
        "{scale}"
    );

    // Server-side apply merges by the CRD's schema and records the manager.
    let _ = server.ok(
        &["apply", "--server-side", "--field-manager=team", "-f", "-"],
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w3}\nspec: {color: blue}\n",
    );
    let w3 = json_of(
        &server,
        &["get", "widget", "w3", "-o", "json", "--show-managed-fields"],
    );
    assert_eq!(w3["spec"]["size"], 3, "{w3}");
    assert!(
        w3["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["manager"] == "team" && m["operation"] == "Apply"),
        "{w3}"
    );

    // A changed schema is served at once: `green` becomes valid.
    let changed = WIDGETS.replace("enum: [red, blue]", "enum: [red, blue, green]");
    let file = server.file("widgets.yaml", &changed);
    let _ = server.ok(&["apply", "-f", &file], "");
    let _ = server.ok(
        &["apply", "-f", "-"],
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\nspec: {color: green}\n",
    );

    // Deleting the CRD deletes its objects and stops serving it.
    // `--wait=false`: the answer is the CRD marked for deletion, as a real server's is.
    let _ = server.ok(
        &["delete", "crd", "widgets.example.com", "--wait=false"],
        "",
    );
    let gone = server.fails(&["get", "--raw", "/apis/example.com/v1/widgets"], "");
    assert!(
        gone.contains("NotFound") || gone.contains("not found"),
        "{gone}"
    );
    let crds = server.ok(&["get", "crd", "-o", "name"], "");
    assert!(crds.trim().is_empty(), "{crds}");
    let groups = server.ok(&["get", "--raw", "/apis"], "");
    assert!(!groups.contains("example.com"), "{groups}");
    // Created again, it starts empty.
    let _ = server.ok(&["apply", "-f", &file], "");
    let listed = json_of(&server, &["get", "widgets", "-A", "-o", "json"]);
    assert_eq!(listed["items"], serde_json::json!([]), "{listed}");
}

#[test]
fn names_another_crd_holds_are_refused_in_its_conditions() {
    let Some((server, _)) = start("names_another_crd_holds_are_refused_in_its_conditions") else {
        return;
    };
    let file = server.file("widgets.yaml", WIDGETS);
    let _ = server.ok(&["apply", "-f", &file], "");
    let gadgets = WIDGETS
        .replace("widgets.example.com", "gadgets.example.com")
        .replace(
            "plural: widgets, singular: widget, kind: Widget",
            "plural: gadgets, singular: gadget, kind: Gadget",
        );
    let file = server.file("gadgets.yaml", &gadgets);
    let _ = server.ok(&["apply", "-f", &file], "");
    let crd = json_of(
        &server,
        &["get", "crd", "gadgets.example.com", "-o", "json"],
    );
    assert_eq!(
        condition(&crd, "NamesAccepted"),
        (
            "False".into(),
            "ShortNamesConflict".into(),
            "\"wd\" is already in use".into()
        )
    );
    assert_eq!(
        condition(&crd, "Established"),
        (
            "False".into(),
            "NotAccepted".into(),
            "not all names are accepted".into()
        )
    );
    let resources = server.ok(&["api-resources", "--api-group=example.com"], "");
    assert!(!resources.contains("gadgets"), "{resources}");
    // The other CRD goes: its names are free, and the waiting one is served.
    let _ = server.ok(&["delete", "crd", "widgets.example.com"], "");
    let crd = json_of(
        &server,
        &["get", "crd", "gadgets.example.com", "-o", "json"],
    );
    assert_eq!(condition(&crd, "Established").0, "True", "{crd}");
    let _ = server.ok(&["get", "gadgets"], "");
}

#[test]
fn real_projects_crds_are_served_when_created() {
    let test = "real_projects_crds_are_served_when_created";
    let Some((server, _)) = start(test) else {
        return;
    };
    let Some(dir) = kubeforge_tests::extra_crds(
        test,
        &[
            "argo-Workflow.yaml",
            "prometheus-operator-Prometheus.yaml",
            "tekton-Pipeline.yaml",
        ],
    ) else {
        return;
    };
    for (file, resource, short) in [
        ("argo-Workflow.yaml", "workflows.argoproj.io", "wf"),
        (
            "prometheus-operator-Prometheus.yaml",
            "prometheuses.monitoring.coreos.com",
            "prom",
        ),
        ("tekton-Pipeline.yaml", "pipelines.tekton.dev", ""),
    ] {
        let path = dir.join(file).display().to_string();
        let _ = server.ok(&["apply", "--server-side", "-f", &path], "");
        let crd = json_of(&server, &["get", "crd", resource, "-o", "json"]);
        assert_eq!(
            condition(&crd, "Established").0,
            "True",
            "{resource}: {crd}"
        );
        let plural = resource.split('.').next().unwrap();
        let _ = server.ok(&["get", plural, "-A"], "");
        if !short.is_empty() {
            let _ = server.ok(&["get", short, "-A"], "");
        }
    }
}

/// A CRD's served versions read and write the same objects (`conversion: None`: only
/// `apiVersion` differs), and a version added later reads the objects already stored.
#[test]
fn a_crds_versions_share_their_objects() {
    let Some((server, _)) = start("a_crds_versions_share_their_objects") else {
        return;
    };
    let two = WIDGETS.replace(
        "  versions:\n  - name: v1\n    served: true\n    storage: true\n",
        "  versions:\n  - name: v1beta1\n    served: true\n    storage: false\n    schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-preserve-unknown-fields: true\n  - name: v1\n    served: true\n    storage: true\n",
    );
    let file = server.file("widgets.yaml", &two);
    let _ = server.ok(&["apply", "-f", &file], "");
    let _ = server.ok(
        &["apply", "-f", "-"],
        "apiVersion: example.com/v1beta1\nkind: Widget\nmetadata: {name: w1}\nspec: {color: red}\n",
    );
    let through_v1 = json_of(
        &server,
        &["get", "widgets.v1.example.com", "w1", "-o", "json"],
    );
    assert_eq!(through_v1["apiVersion"], "example.com/v1", "{through_v1}");
    assert_eq!(through_v1["spec"]["color"], "red", "{through_v1}");
    let through_beta = json_of(
        &server,
        &[
            "get",
            "--raw",
            "/apis/example.com/v1beta1/namespaces/default/widgets/w1",
        ],
    );
    assert_eq!(
        through_beta["apiVersion"], "example.com/v1beta1",
        "{through_beta}"
    );
    assert_eq!(
        through_beta["metadata"]["resourceVersion"], through_v1["metadata"]["resourceVersion"],
        "one object: {through_beta}"
    );
    // A version added later reads what is stored.
    let three = two.replace(
        "  - name: v1\n    served: true\n    storage: true\n",
        "  - name: v2\n    served: true\n    storage: false\n    schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-preserve-unknown-fields: true\n  - name: v1\n    served: true\n    storage: true\n",
    );
    let file = server.file("widgets.yaml", &three);
    let _ = server.ok(&["apply", "-f", &file], "");
    let through_v2 = json_of(
        &server,
        &[
            "get",
            "--raw",
            "/apis/example.com/v2/namespaces/default/widgets/w1",
        ],
    );
    assert_eq!(through_v2["apiVersion"], "example.com/v2", "{through_v2}");
    // Deleted through one version, it is gone from all.
    let _ = server.ok(&["delete", "widgets.v1.example.com", "w1"], "");
    for version in ["v1beta1", "v2"] {
        let gone = server.fails(
            &[
                "get",
                "--raw",
                &format!("/apis/example.com/{version}/namespaces/default/widgets/w1"),
            ],
            "",
        );
        assert!(
            gone.contains("NotFound") || gone.contains("not found"),
            "{version}: {gone}"
        );
    }
}

/// What the CRD's schema cannot say, refused as `ValidateCustomResourceDefinition` refuses
/// it; the expected text is a real server's answer to the same CRD (a name that is not
/// `<plural>.<group>`, a protected group without its approval annotation).
#[test]
fn a_crd_is_validated_as_the_api_server_validates_it() {
    let Some((server, _)) = start("a_crd_is_validated_as_the_api_server_validates_it") else {
        return;
    };
    let crd = WIDGETS
        .replace("name: widgets.example.com", "name: foos.stable.example.com")
        .replace("group: example.com", "group: samplecontroller.k8s.io")
        .replace(
            "plural: widgets, singular: widget, kind: Widget",
            "plural: foos, singular: foo, kind: Foo",
        );
    let file = server.file("foos.yaml", &crd);
    let refused = server.fails(&["create", "-f", &file], "");
    assert_eq!(
        refused.trim_end(),
        "The CustomResourceDefinition \"foos.stable.example.com\" is invalid: \n\
         * metadata.name: Invalid value: \"foos.stable.example.com\": must be spec.names.plural+\".\"+spec.group\n\
         * metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation \"api-approved.kubernetes.io\", see https://github.com/kubernetes/enhancements/pull/1111",
    );
    let approved = crd
        .replace("name: foos.stable.example.com", "name: foos.samplecontroller.k8s.io\n  annotations: {api-approved.kubernetes.io: \"https://github.com/kubernetes/kubernetes/pull/78458\"}");
    let file = server.file("foos.yaml", &approved);
    let _ = server.ok(&["create", "-f", &file], "");
    let _ = server.ok(&["get", "foos"], "");
}

/// A CRD whose schema is not structural is refused, as `kubectl create` shows a real
/// server's answer: the schema of its one version is checked as the internal version's
/// `spec.validation` (where Go's conversion moves a schema every version shares), the
/// errors sorted by their text. The CRD is the kind real projects wrote before
/// `apiextensions.k8s.io/v1` required structural schemas (rook's, cephobjectstores: fields
/// without a type), and the m3db operator's move to v1 shows the same answer's form.
#[test]
fn a_crd_whose_schema_is_not_structural_is_refused() {
    let Some((server, _)) = start("a_crd_whose_schema_is_not_structural_is_refused") else {
        return;
    };
    let crd = r"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: objectstores.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: objectstores, singular: objectstore, kind: ObjectStore}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          metadata:
            type: object
            properties:
              labels: {type: object}
          spec:
            properties:
              pools: {type: array}
              gateway:
                type: object
                anyOf:
                - properties:
                    port: {type: integer}
              port:
                x-kubernetes-int-or-string: true
                anyOf: [{type: integer}, {type: string}]
";
    let file = server.file("objectstores.yaml", crd);
    let refused = server.fails(&["create", "-f", &file], "");
    let p = "spec.validation.openAPIV3Schema";
    assert_eq!(
        refused.trim_end(),
        format!(
            "The CustomResourceDefinition \"objectstores.example.com\" is invalid: \n\
             * {p}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified\n\
             * {p}.properties[spec].properties[gateway].anyOf[0].properties[port].type: Forbidden: must be empty to be structural\n\
             * {p}.properties[spec].properties[pools].items: Required value: must be specified\n\
             * {p}.properties[spec].type: Required value: must not be empty for specified object fields"
        ),
    );
    let _ = server.fails(&["get", "objectstores"], "");
    let fixed = crd
        .replace(
            "            properties:\n              labels: {type: object}\n",
            "",
        )
        .replace(
            "          spec:\n            properties:",
            "          spec:\n            type: object\n            properties:",
        )
        .replace(
            "pools: {type: array}",
            "pools: {type: array, items: {type: string}}",
        )
        .replace("port: {type: integer}", "port: {minimum: 1}");
    let file = server.file("objectstores.yaml", &fixed);
    let _ = server.ok(&["create", "-f", &file], "");
    let _ = server.ok(&["get", "objectstores"], "");
}
