use super::{META, Schema, builtin, decode, decode_message, encode, encode_message};
use serde_json::json;

#[test]
fn the_descriptors_hold_the_built_in_kinds() {
    let messages = &builtin().messages;
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
    let bytes = encode(builtin(), &deployment).unwrap();
    assert!(bytes.starts_with(b"k8s\0"));
    assert_eq!(decode(builtin(), &bytes).unwrap(), deployment);
    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"password": "czNjcmV0", "empty": ""}, "type": "Opaque"});
    assert_eq!(
        decode(builtin(), &encode(builtin(), &secret).unwrap()).unwrap(),
        secret
    );
}

/// Go's zero `Time` (JSON `null`) is the empty message where a value field holds it
/// (`creationTimestamp`, field 8 of `ObjectMeta`) and in a map's entry
/// (`PodDisruptionBudgetStatus.disruptedPods`), and nothing where a pointer is nil (JSON
/// leaves it out); it reads back as `null`.
#[test]
fn go_zero_time_is_the_empty_message() {
    let meta = json!({"name": "a", "creationTimestamp": null});
    let name = format!("{META}.ObjectMeta");
    let bytes = encode_message(builtin(), &name, &meta).unwrap();
    assert_eq!(bytes, b"\x0a\x01a\x42\x00");
    assert_eq!(
        decode_message(builtin(), &name, &bytes).unwrap(),
        json!({"name": "a"})
    );
    let status = json!({"disruptedPods": {"p": null}, "disruptionsAllowed": 1});
    let name = "api.policy.v1.PodDisruptionBudgetStatus";
    let bytes = encode_message(builtin(), name, &status).unwrap();
    assert!(
        bytes.starts_with(b"\x12\x05\x0a\x01p\x12\x00"),
        "{bytes:02x?}"
    );
    assert_eq!(
        decode_message(builtin(), name, &bytes).unwrap()["disruptedPods"],
        json!({"p": null})
    );
}

/// A zero the JSON holds is written, as Go writes a pointer set to zero and every value
/// field: `replicas: 0` (field 1 of `ScaleSpec`), an empty `name` and `generation: 0`
/// (fields 1 and 7 of `ObjectMeta`), `controller: false` (field 6 of `OwnerReference`).
#[test]
fn zeros_the_json_holds_are_written() {
    for (message, value, bytes) in [
        (
            "api.autoscaling.v1.ScaleSpec",
            json!({"replicas": 0}),
            &b"\x08\x00"[..],
        ),
        (
            "apimachinery.pkg.apis.meta.v1.ObjectMeta",
            json!({"name": "", "generation": 0}),
            b"\x0a\x00\x38\x00",
        ),
        (
            "apimachinery.pkg.apis.meta.v1.OwnerReference",
            json!({"controller": false}),
            b"\x30\x00",
        ),
    ] {
        assert_eq!(
            encode_message(builtin(), message, &value).unwrap(),
            bytes,
            "{message} {value}"
        );
    }
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
        let bytes = encode_message(builtin(), &name, &json!(text)).unwrap();
        assert_eq!(
            decode_message(builtin(), &name, &bytes).unwrap(),
            json!(written),
            "{text}"
        );
    }
    let refused = encode_message(builtin(), &name, &json!("1d")).unwrap_err();
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
    for (name, message) in &builtin().messages {
        let definition = format!(
            "io.k8s.{}",
            name.replace("apiextensions_apiserver", "apiextensions-apiserver")
                .replace("kube_aggregator", "kube-aggregator")
        );
        let Some(definition) = definitions.get(&definition) else {
            continue;
        };
        if super::decode_special(builtin(), name, &[])
            .ok()
            .flatten()
            .is_some()
            || message.map_entry
        {
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

/// Where two encodings of message `name` first differ: the field path, descending into
/// messages, or the field numbers at the first difference.
fn first_difference(schema: &Schema, name: &str, ours: &[u8], go: &[u8]) -> String {
    let (Ok(a), Ok(b)) = (
        super::Reader::new(ours).fields(),
        super::Reader::new(go).fields(),
    ) else {
        return format!("{name}: unreadable");
    };
    let message = schema.messages.get(name);
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i), b.get(i));
        let same = match (x, y) {
            (Some((n, super::Wire::Len(p))), Some((m, super::Wire::Len(q)))) => n == m && p == q,
            (Some((n, super::Wire::Varint(p))), Some((m, super::Wire::Varint(q)))) => {
                n == m && p == q
            }
            (Some((n, _)), Some((m, _))) => n == m,
            _ => false,
        };
        if same {
            continue;
        }
        let field_of = |n: u64| {
            message
                .and_then(|m| m.fields.iter().find(|f| f.number == n))
                .map_or(format!("#{n}"), |f| f.name.clone())
        };
        return match (x, y) {
            (Some((n, super::Wire::Len(p))), Some((m, super::Wire::Len(q)))) if n == m => {
                let field = message.and_then(|msg| msg.fields.iter().find(|f| f.number == *n));
                match field {
                    Some(f) if f.ty == super::ty::MESSAGE => format!(
                        "{}.{}",
                        field_of(*n),
                        first_difference(schema, &f.type_name, p, q)
                    ),
                    _ => format!(
                        "{}: {:?} vs {:?}",
                        field_of(*n),
                        String::from_utf8_lossy(p),
                        String::from_utf8_lossy(q)
                    ),
                }
            }
            (Some((n, p)), Some((m, q))) if n == m => format!("{}: {p:?} vs {q:?}", field_of(*n)),
            (x, y) => format!(
                "{name}: field {} vs {}",
                x.map_or("end".into(), |(n, _)| field_of(*n)),
                y.map_or("end".into(), |(n, _)| field_of(*n))
            ),
        };
    }
    format!("{name}: equal")
}

/// Every fixture of Kubernetes 1.36's `testdata/` whose kind `swagger.json` serves, through
/// the transcoder both ways: the `.json` encodes to the `.pb`'s bytes, and the `.pb` decodes
/// to the `.json`.
#[test]
fn every_served_fixture_transcodes_as_go_encodes_it() {
    let Some(corpus) = kubeforge_tests::corpus(
        "every_served_fixture_transcodes_as_go_encodes_it",
        &[
            "kubernetes/swagger.json",
            "kubernetes/testdata",
            "kubernetes/proto",
        ],
    ) else {
        return;
    };
    // The messages of the `.proto` files of the release the fixtures are of, as
    // `serve --proto` reads them.
    let schema = &Schema::from_proto_dir(&corpus.join("kubernetes/proto")).unwrap();
    let text = std::fs::read_to_string(corpus.join("kubernetes/swagger.json")).unwrap();
    let swagger: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut served = std::collections::BTreeSet::new();
    for definition in swagger["definitions"].as_object().unwrap().values() {
        for gvk in definition["x-kubernetes-group-version-kind"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let group = gvk["group"].as_str().unwrap_or_default();
            let version = gvk["version"].as_str().unwrap_or_default();
            let api_version = if group.is_empty() {
                version.to_owned()
            } else {
                format!("{group}/{version}")
            };
            served.insert((
                api_version,
                gvk["kind"].as_str().unwrap_or_default().to_owned(),
            ));
        }
    }
    let dir = corpus.join("kubernetes/testdata");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let (mut checked, mut failures) = (0, Vec::new());
    for path in paths {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let pb = std::fs::read(path.with_extension("pb")).unwrap();
        let key = (
            json["apiVersion"].as_str().unwrap_or_default().to_owned(),
            json["kind"].as_str().unwrap_or_default().to_owned(),
        );
        if !served.contains(&key) {
            continue;
        }
        checked += 1;
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        match encode(schema, &json) {
            Ok(bytes) if bytes == pb => {}
            Ok(bytes) => {
                let (group, version) = kubeforge_runtime::group_version(&key.0);
                let name = super::message_of(schema, group, version, &key.1).unwrap();
                let raw = |b: &[u8]| {
                    super::Reader::new(&b[4..])
                        .fields()
                        .unwrap()
                        .into_iter()
                        .find_map(|(n, w)| match (n, w) {
                            (2, super::Wire::Len(raw)) => Some(raw.to_vec()),
                            _ => None,
                        })
                        .unwrap_or_default()
                };
                failures.push(format!(
                    "{file}: encoding differs at {}",
                    first_difference(schema, &name, &raw(&bytes), &raw(&pb))
                ));
            }
            Err(e) => failures.push(format!("{file}: does not encode: {e}")),
        }
        match decode(schema, &pb) {
            Ok(value) if value == json => {}
            Ok(value) => failures.push(format!(
                "{file}: decoding differs at {}",
                json_difference("", &value, &json)
            )),
            Err(e) => failures.push(format!("{file}: does not decode: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Every fixture whose apiVersion and kind one of `swagger.json`'s definitions names.
    assert_eq!(checked, kubeforge_tests::claims::TRANSCODED_FIXTURES);
}

/// The JSON pointer of the first difference between two values, with both sides.
fn json_difference(at: &str, ours: &serde_json::Value, go: &serde_json::Value) -> String {
    use serde_json::Value;
    match (ours, go) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in b {
                match a.get(key) {
                    Some(mine) if mine == value => {}
                    Some(mine) => return json_difference(&format!("{at}/{key}"), mine, value),
                    None => return format!("{at}/{key}: missing (Go: {value})"),
                }
            }
            for key in a.keys() {
                if !b.contains_key(key) {
                    return format!("{at}/{key}: extra ({})", a[key]);
                }
            }
            format!("{at}: equal")
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if x != y {
                    return json_difference(&format!("{at}/{i}"), x, y);
                }
            }
            format!("{at}: equal")
        }
        _ => format!("{at}: {ours} vs {go}"),
    }
}
