//! Apply configurations (`Config::apply_types`) on the committed crate, built with its
//! `apply` feature: an apply sends exactly what was set plus what identifies the object,
//! a map list item's keys are required, and a whole object converts without loss.

use kubeforge_api::api::core::v1::{
    Container, ContainerPort, ContainerPortApply, Pod, PodSpec, PodSpecApply,
};
use serde_json::{Value, json};

#[test]
fn an_apply_sends_only_what_was_set_and_what_identifies_the_object() {
    let apply = Pod::apply("web", "default")
        .spec(PodSpec::apply().container(Container::apply("nginx").image("nginx:1.27")));
    assert_eq!(
        serde_json::to_value(&apply).unwrap(),
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]},
        })
    );
    // The full type's required `containers` would be written even when empty; the apply
    // type writes nothing it was not given.
    let empty = Pod::apply("web", "default").spec(PodSpec::apply());
    assert_eq!(
        serde_json::to_value(&empty).unwrap()["spec"],
        json!({}),
        "an apply of an empty spec claims no field"
    );
    let full_spec =
        serde_json::to_value(PodSpec::builder(Vec::<Container>::new()).build()).unwrap();
    assert_eq!(full_spec, json!({"containers": []}));
}

#[test]
fn a_map_list_items_keys_are_required_and_defaulted_keys_are_not() {
    // `containerPort` and `protocol` key the `ports` map list; `protocol` defaults to TCP,
    // so only `containerPort` is an argument.
    let port: ContainerPortApply = ContainerPort::apply(8080).name("http");
    assert_eq!(
        serde_json::to_value(&port).unwrap(),
        json!({"containerPort": 8080, "name": "http"})
    );
    let with_protocol = ContainerPort::apply(53).protocol("UDP");
    assert_eq!(
        serde_json::to_value(&with_protocol).unwrap(),
        json!({"containerPort": 53, "protocol": "UDP"})
    );
}

#[test]
fn setters_replace_append_insert_and_edit_like_the_builders() {
    let spec: PodSpecApply = PodSpec::apply()
        .containers([Container::apply("a")])
        .container(Container::apply("b").args(["x"]).arg("y"))
        .node_selector([("disk", "ssd")])
        .insert_node_selector("zone", "a");
    let value = serde_json::to_value(&spec).unwrap();
    assert_eq!(
        value,
        json!({
            "containers": [{"name": "a"}, {"name": "b", "args": ["x", "y"]}],
            "nodeSelector": {"disk": "ssd", "zone": "a"},
        })
    );
    let pod = Pod::apply("web", "default").metadata_with(|meta| {
        meta.labels
            .get_or_insert_default()
            .insert("app".into(), "web".into());
    });
    assert_eq!(
        serde_json::to_value(&pod).unwrap()["metadata"],
        json!({"name": "web", "namespace": "default", "labels": {"app": "web"}})
    );
}

#[test]
fn a_whole_object_converts_to_its_apply_configuration_unchanged() {
    let object: Value = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "containers": [{
                "name": "nginx",
                "image": "nginx:1.27",
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "resources": {"limits": {"cpu": "500m"}},
                "futureField": {"kept": true},
            }],
            "restartPolicy": "Always",
        },
        "status": {"phase": "Running"},
    });
    let pod: Pod = serde_json::from_value(object.clone()).unwrap();
    let apply: kubeforge_api::api::core::v1::PodApply = pod.into();
    assert_eq!(serde_json::to_value(&apply).unwrap(), object);
}

#[test]
fn the_apply_request_sends_the_configuration_as_an_apply_patch_with_its_field_manager() {
    use kubeforge_api::routes::PatchQuery;
    let apply = Pod::apply("web", "default")
        .spec(PodSpec::apply().container(Container::apply("nginx").image("nginx:1.27")));
    // The query's own field manager gives way to the argument; `force` is sent as set.
    let query = PatchQuery::builder()
        .field_manager("ignored")
        .force(true)
        .build();
    let request = Pod::apply_namespaced_pod("default", "web", &apply, "my-controller", &query)
        .expect("a request");
    assert_eq!(request.method(), "PATCH");
    assert_eq!(
        request.uri().to_string(),
        "/api/v1/namespaces/default/pods/web?fieldManager=my-controller&force=true"
    );
    assert_eq!(
        request.headers()["content-type"],
        "application/apply-patch+yaml"
    );
    let body: Value = serde_json::from_slice(request.body()).unwrap();
    assert_eq!(body, serde_json::to_value(&apply).unwrap());
    // The status subresource has its own.
    let status = Pod::apply_namespaced_pod_status(
        "default",
        "web",
        &Pod::apply("web", "default"),
        "kubelet",
        &PatchQuery::default(),
    )
    .expect("a request");
    assert_eq!(
        status.uri().to_string(),
        "/api/v1/namespaces/default/pods/web/status?fieldManager=kubelet"
    );
}
