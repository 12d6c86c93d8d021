use super::{META, decode, decode_message, encode, encode_message, schema};
use serde_json::json;

#[test]
fn the_descriptors_hold_the_built_in_kinds() {
    let messages = &schema().messages;
    assert!(messages.len() > 1000, "{}", messages.len());
    for name in [
        "api.core.v1.ConfigMap",
        "api.apps.v1.Deployment",
        "apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "apimachinery.pkg.apis.meta.v1.Status",
        "apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
    ] {
        assert!(messages.contains_key(name), "{name}");
    }
    assert!(messages["api.core.v1.ConfigMap.DataEntry"].map_entry);
}

#[test]
fn objects_survive_a_round_trip_through_the_envelope() {
    let deployment = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "default",
            "labels": {"app": "web"},
            "creationTimestamp": "2024-05-01T12:00:00Z",
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "u-1", "blockOwnerDeletion": true}],
            "managedFields": [{"manager": "kubectl", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}, "time": "2024-05-01T12:00:00Z"}]
        },
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{
                    "name": "web",
                    "image": "nginx:1.27",
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                    "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}},
                    "livenessProbe": {"httpGet": {"path": "/", "port": "http"}}
                }]}
            },
            "strategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": "25%"}}
        },
        "status": {}
    });
    let bytes = encode(&deployment).unwrap();
    assert!(bytes.starts_with(b"k8s\0"));
    assert_eq!(decode(&bytes).unwrap(), deployment);
    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"password": "czNjcmV0", "empty": ""}, "type": "Opaque"});
    assert_eq!(decode(&encode(&secret).unwrap()).unwrap(), secret);
}

/// A `metav1.Duration` travels as its nanoseconds and reads back as Go writes it, to the
/// nanosecond (`1<<53 + 1` is not exact in a float64).
#[test]
fn durations_keep_every_nanosecond() {
    let name = format!("{META}.Duration");
    for (text, written) in [
        ("1h2m3.5s", "1h2m3.5s"),
        ("-2m", "-2m0s"),
        ("9007199254740993ns", "2501h59m59.254740993s"),
        ("1.5µs", "1.5µs"),
    ] {
        let bytes = encode_message(&name, &json!(text)).unwrap();
        assert_eq!(
            decode_message(&name, &bytes).unwrap(),
            json!(written),
            "{text}"
        );
    }
    let refused = encode_message(&name, &json!("1d")).unwrap_err();
    assert!(
        refused.ends_with(r#"time: unknown unit "d" in duration "1d""#),
        "{refused}"
    );
}

/// Every field of every message of a definition of Kubernetes 1.36's `swagger.json`
/// reads as one of the definition's properties, or is inlined, or is one of the messages
/// whose JSON is not their fields.
#[test]
fn every_field_maps_to_the_json_of_kubernetes_1_36() {
    let Some(corpus) = kubeforge_tests::corpus(
        "every_field_maps_to_the_json_of_kubernetes_1_36",
        &["kubernetes/swagger.json"],
    ) else {
        return;
    };
    let text = std::fs::read_to_string(corpus.join("kubernetes/swagger.json")).unwrap();
    let swagger: serde_json::Value = serde_json::from_str(&text).unwrap();
    let definitions = swagger["definitions"].as_object().unwrap();
    let mut unmapped = Vec::new();
    let mut checked = 0;
    for (name, message) in &schema().messages {
        let definition = format!(
            "io.k8s.{}",
            name.replace("apiextensions_apiserver", "apiextensions-apiserver")
                .replace("kube_aggregator", "kube-aggregator")
        );
        let Some(definition) = definitions.get(&definition) else {
            continue;
        };
        if super::decode_special(name, &[]).ok().flatten().is_some() || message.map_entry {
            continue;
        }
        let properties = definition.get("properties").and_then(|p| p.as_object());
        for field in &message.fields {
            checked += 1;
            let json = super::json_name(name, &field.name);
            let known = properties.is_some_and(|p| p.contains_key(json.as_ref()));
            // 1.35's alpha PodSpec.workloadRef left the API before 1.36.
            let gone = name == "api.core.v1.PodSpec" && field.name == "workloadRef";
            if !known && !super::is_inline(name, &field.name) && !gone {
                unmapped.push(format!("{name}.{}", field.name));
            }
        }
    }
    assert!(checked > 2000, "{checked}");
    assert!(unmapped.is_empty(), "{unmapped:#?}");
}
