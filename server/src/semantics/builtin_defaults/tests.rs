use kubeforge_runtime::schema::{Node, SchemaSet};
use serde_json::{Value, json};

use super::{DATA, image_tag, parse};

#[test]
fn every_line_of_the_data_parses() {
    let problems: Vec<String> = parse(DATA).into_iter().filter_map(Result::err).collect();
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(parse(DATA).len() > 100);
}

#[test]
fn a_bad_line_says_why() {
    let results = parse("core.v1.Pod spec/x sometimes 1\ncore.v1.Pod - do @nothing\n");
    let errors: Vec<String> = results.into_iter().filter_map(Result::err).collect();
    assert_eq!(errors.len(), 2);
    assert!(
        errors[0].contains("unknown <when> \"sometimes\""),
        "{}",
        errors[0]
    );
    assert!(
        errors[1].contains("unknown rule \"@nothing\""),
        "{}",
        errors[1]
    );
}

#[test]
fn image_tags_as_go_parses_them() {
    assert_eq!(image_tag("nginx"), Some("latest"));
    assert_eq!(image_tag("nginx:latest"), Some("latest"));
    assert_eq!(image_tag("nginx:1.27"), Some("1.27"));
    assert_eq!(
        image_tag("registry.example.com:5000/team/app"),
        Some("latest")
    );
    assert_eq!(
        image_tag("registry.example.com:5000/team/app:v2"),
        Some("v2")
    );
    assert_eq!(image_tag("nginx@sha256:abcd"), None);
    assert_eq!(image_tag("nginx:1.27@sha256:abcd"), Some("1.27"));
}

/// A node that names a type: a `$ref` to `index`.
fn to(index: usize) -> Node {
    Node {
        reference: Some(index),
        ..Node::default()
    }
}

fn object(properties: &[(&str, Node)]) -> Node {
    Node {
        properties: properties
            .iter()
            .map(|(k, n)| ((*k).to_owned(), n.clone()))
            .collect(),
        ..Node::default()
    }
}

fn list_of(node: Node) -> Node {
    Node {
        items: Some(Box::new(node)),
        ..Node::default()
    }
}

/// Pod, Deployment and their parts, by the definition names of the built-in documents.
fn workloads() -> (SchemaSet, Vec<String>) {
    let names = [
        "io.k8s.api.core.v1.Pod",             // 0
        "io.k8s.api.core.v1.PodSpec",         // 1
        "io.k8s.api.core.v1.Container",       // 2
        "io.k8s.api.core.v1.ContainerPort",   // 3
        "io.k8s.api.apps.v1.Deployment",      // 4
        "io.k8s.api.apps.v1.DeploymentSpec",  // 5
        "io.k8s.api.core.v1.PodTemplateSpec", // 6
        "io.k8s.api.core.v1.Probe",           // 7
        "io.k8s.api.core.v1.Volume",          // 8
    ];
    let nodes = vec![
        object(&[("spec", to(1))]),
        object(&[
            ("containers", list_of(to(2))),
            ("initContainers", list_of(to(2))),
            ("volumes", list_of(to(8))),
        ]),
        object(&[("ports", list_of(to(3))), ("livenessProbe", to(7))]),
        object(&[]),
        object(&[("spec", to(5))]),
        object(&[("template", to(6))]),
        object(&[("spec", to(1))]),
        object(&[]),
        object(&[]),
    ];
    (
        SchemaSet::new(nodes),
        names.iter().map(|n| (*n).to_owned()).collect(),
    )
}

fn defaulted(root: usize, mut value: Value) -> Value {
    let (nodes, names) = workloads();
    super::apply(&nodes, &names, root, &mut value);
    value
}

#[test]
fn a_pod_gets_the_defaults_of_every_type_in_it() {
    let pod = defaulted(
        0,
        json!({"spec": {
            "containers": [{"name": "web", "image": "nginx", "ports": [{"containerPort": 80}],
                            "livenessProbe": {"httpGet": {"port": 80}, "periodSeconds": 5}}],
            "volumes": [{"name": "scratch"}, {"name": "cfg", "configMap": {"name": "c"}}]
        }}),
    );
    // The structs Go holds by value are there (builtin-value-structs.txt), then the defaults.
    assert_eq!(
        pod,
        json!({"metadata": {}, "status": {}, "spec": {
            "containers": [{"name": "web", "image": "nginx",
                            "resources": {},
                            "imagePullPolicy": "Always",
                            "terminationMessagePath": "/dev/termination-log",
                            "terminationMessagePolicy": "File",
                            "ports": [{"containerPort": 80, "protocol": "TCP"}],
                            "livenessProbe": {"httpGet": {"port": 80}, "periodSeconds": 5,
                                              "timeoutSeconds": 1, "successThreshold": 1,
                                              "failureThreshold": 3}}],
            "volumes": [{"name": "scratch", "emptyDir": {}},
                        {"name": "cfg", "configMap": {"name": "c"}}],
            "enableServiceLinks": true,
            "dnsPolicy": "ClusterFirst",
            "restartPolicy": "Always",
            "securityContext": {},
            "terminationGracePeriodSeconds": 30,
            "schedulerName": "default-scheduler"
        }})
    );
}

#[test]
fn a_deployment_defaults_its_template_but_not_as_a_pod() {
    let deployment = defaulted(
        4,
        json!({"spec": {"template": {"spec": {"containers": [
            {"name": "web", "image": "nginx:1.27",
             "resources": {"limits": {"cpu": "1"}}}
        ]}}}}),
    );
    assert_eq!(
        deployment.pointer("/spec/strategy"),
        Some(&json!({"type": "RollingUpdate",
                     "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}))
    );
    assert_eq!(deployment.pointer("/spec/replicas"), Some(&json!(1)));
    assert_eq!(
        deployment.pointer("/spec/revisionHistoryLimit"),
        Some(&json!(10))
    );
    assert_eq!(
        deployment.pointer("/spec/progressDeadlineSeconds"),
        Some(&json!(600))
    );
    let container = deployment
        .pointer("/spec/template/spec/containers/0")
        .unwrap();
    assert_eq!(container["imagePullPolicy"], "IfNotPresent");
    // Requests default to limits in a Pod only (SetDefaults_Pod), not in a template.
    assert_eq!(container.pointer("/resources/requests"), None);
    assert_eq!(
        deployment.pointer("/spec/template/spec/dnsPolicy"),
        Some(&json!("ClusterFirst"))
    );
    // What a user set stays.
    let kept = defaulted(
        4,
        json!({"spec": {"replicas": 0, "strategy": {"type": "Recreate"}}}),
    );
    assert_eq!(kept.pointer("/spec/replicas"), Some(&json!(0)));
    assert_eq!(
        kept.pointer("/spec/strategy"),
        Some(&json!({"type": "Recreate"}))
    );
}

#[test]
fn a_pod_takes_requests_from_limits() {
    let pod = defaulted(
        0,
        json!({"spec": {"containers": [{"name": "a", "image": "x",
            "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}}]}}),
    );
    assert_eq!(
        pod.pointer("/spec/containers/0/resources/requests"),
        Some(&json!({"cpu": "500m", "memory": "1Gi"}))
    );
}

fn one_type(name: &str, value: Value) -> Value {
    let nodes = SchemaSet::new(vec![object(&[])]);
    let mut value = value;
    super::apply(&nodes, &[name.to_owned()], 0, &mut value);
    value
}

#[test]
fn conditions_follow_the_go_code() {
    let service = |spec: Value| one_type("io.k8s.api.core.v1.Service", json!({"spec": spec}));
    let plain = service(json!({}));
    assert_eq!(
        plain["spec"],
        json!({"sessionAffinity": "None", "type": "ClusterIP", "internalTrafficPolicy": "Cluster"})
    );
    let client_ip = service(json!({"sessionAffinity": "ClientIP", "type": "LoadBalancer"}));
    assert_eq!(
        client_ip.pointer("/spec/sessionAffinityConfig/clientIP/timeoutSeconds"),
        Some(&json!(10800))
    );
    assert_eq!(
        client_ip.pointer("/spec/externalTrafficPolicy"),
        Some(&json!("Cluster"))
    );
    assert_eq!(
        client_ip.pointer("/spec/allocateLoadBalancerNodePorts"),
        Some(&json!(true))
    );
    let none = service(json!({"sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 5}}}));
    assert_eq!(none.pointer("/spec/sessionAffinityConfig"), None);
    let external = service(json!({"externalIPs": ["192.0.2.1"]}));
    assert_eq!(
        external.pointer("/spec/externalTrafficPolicy"),
        Some(&json!("Cluster"))
    );

    let job = |spec: Value| one_type("io.k8s.api.batch.v1.Job", json!({"spec": spec}));
    assert_eq!(job(json!({}))["spec"]["completions"], 1);
    assert_eq!(
        job(json!({"parallelism": 3})).pointer("/spec/completions"),
        None
    );
    assert_eq!(
        job(json!({}))["spec"]["podReplacementPolicy"],
        "TerminatingOrFailed"
    );
    assert_eq!(
        job(json!({"podFailurePolicy": {"rules": []}}))["spec"]["podReplacementPolicy"],
        "Failed"
    );

    let sts = |spec: Value| one_type("io.k8s.api.apps.v1.StatefulSet", json!({"spec": spec}));
    assert_eq!(
        sts(json!({}))["spec"]["updateStrategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
    );
    assert_eq!(
        sts(json!({"updateStrategy": {"type": "RollingUpdate"}}))["spec"]["updateStrategy"],
        json!({"type": "RollingUpdate"})
    );
    assert_eq!(
        sts(json!({"updateStrategy": {"type": "OnDelete"}}))["spec"]["updateStrategy"],
        json!({"type": "OnDelete"})
    );

    let namespace = one_type(
        "io.k8s.api.core.v1.Namespace",
        json!({"metadata": {"name": "team"}}),
    );
    assert_eq!(
        namespace.pointer("/metadata/labels/kubernetes.io~1metadata.name"),
        Some(&json!("team"))
    );
    assert_eq!(namespace.pointer("/status/phase"), Some(&json!("Active")));

    let crd = one_type(
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
        json!({"spec": {"names": {"kind": "Widget", "plural": "widgets"},
                        "versions": [{"name": "v1", "storage": false}, {"name": "v2", "storage": true}]}}),
    );
    assert_eq!(crd.pointer("/spec/names/singular"), Some(&json!("widget")));
    assert_eq!(
        crd.pointer("/spec/names/listKind"),
        Some(&json!("WidgetList"))
    );
    assert_eq!(
        crd.pointer("/spec/conversion"),
        Some(&json!({"strategy": "None"}))
    );
    assert_eq!(crd.pointer("/status/storedVersions"), Some(&json!(["v2"])));
}

#[test]
fn a_port_targets_itself_and_a_subject_gets_its_group() {
    let port = one_type("io.k8s.api.core.v1.ServicePort", json!({"port": 80}));
    assert_eq!(
        port,
        json!({"port": 80, "protocol": "TCP", "targetPort": 80})
    );
    let named = one_type(
        "io.k8s.api.core.v1.ServicePort",
        json!({"port": 80, "targetPort": "http"}),
    );
    assert_eq!(named["targetPort"], "http");
    let user = one_type(
        "io.k8s.api.rbac.v1.Subject",
        json!({"kind": "User", "name": "a"}),
    );
    assert_eq!(user["apiGroup"], "rbac.authorization.k8s.io");
    let sa = one_type(
        "io.k8s.api.rbac.v1.Subject",
        json!({"kind": "ServiceAccount", "name": "a", "namespace": "n"}),
    );
    assert_eq!(sa.get("apiGroup"), None);
}

#[test]
fn a_value_of_the_wrong_shape_is_left_for_validation() {
    let pod = defaulted(0, json!({"spec": "not an object"}));
    assert_eq!(
        pod,
        json!({"spec": "not an object", "metadata": {}, "status": {}})
    );
    let deployment = defaulted(4, json!({"spec": {"strategy": "RollingUpdate"}}));
    assert_eq!(
        deployment.pointer("/spec/strategy"),
        Some(&json!("RollingUpdate"))
    );
}

#[test]
fn scalars_without_omitempty_are_written_at_their_zero() {
    // The schema need not say it (swagger.json has no `required` on a status).
    let group = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1";
    let nodes = SchemaSet::new(vec![
        object(&[("status", to(1))]),
        object(&[("acceptedNames", to(2))]),
        object(&[]),
    ]);
    let type_names: Vec<String> = [
        "CustomResourceDefinition",
        "CustomResourceDefinitionStatus",
        "CustomResourceDefinitionNames",
    ]
    .iter()
    .map(|n| format!("{group}.{n}"))
    .collect();
    let mut crd = json!({});
    super::apply(&nodes, &type_names, 0, &mut crd);
    assert_eq!(
        crd["status"]["acceptedNames"],
        json!({"plural": "", "kind": ""})
    );
    // Not only in an empty struct: Go writes the zero wherever the field is missing, and
    // leaves a value, and the fields with `omitempty` (`singular`), alone.
    let mut named = json!({"status": {"acceptedNames": {"plural": "foos"}}});
    super::apply(&nodes, &type_names, 0, &mut named);
    assert_eq!(
        named["status"]["acceptedNames"],
        json!({"plural": "foos", "kind": ""})
    );
    let status = one_type("io.k8s.api.apps.v1.StatefulSetStatus", json!({}));
    assert_eq!(status, json!({"replicas": 0, "availableReplicas": 0}));
}

#[test]
fn every_line_of_the_value_scalars_is_read() {
    let lines = super::VALUE_SCALARS
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .count();
    let read: Vec<_> = super::value_scalars(super::VALUE_SCALARS).collect();
    assert_eq!(read.len(), lines);
    assert!(lines > 400, "{lines}");
    assert!(
        read.iter()
            .all(|(_, _, zero)| [json!(""), json!(0), json!(false)].contains(zero))
    );
}
