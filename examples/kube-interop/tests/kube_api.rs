//! `kube::Api::<ImageStream>` against a mock tower service (no cluster, no network): list,
//! get, create, replace, patch and delete send the same method, path and query as the
//! generated request functions for the same operations, and kube decodes the generated type.

use std::sync::{Arc, Mutex};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{DeleteOptions, ObjectMeta};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::client::{Body, Client};
use kube_interop::k8s::openshift::image::v1::{ImageLookupPolicy, ImageStream, ImageStreamSpec};
use kube_interop::k8s::routes::{
    CreateOrReplaceQuery, DeleteQuery, GetQuery, ListOrWatchQuery, PatchQuery,
};
use serde_json::{Value, json};

/// What the mock saw of one request, and what the generated functions are compared on.
#[derive(Debug, PartialEq)]
struct Sent {
    method: String,
    path: String,
    /// Decoded query pairs, sorted: kube and the generated code may order them differently.
    query: Vec<(String, String)>,
    content_type: Option<String>,
    /// The body as JSON (`Null` when empty).
    body: Value,
}

impl Sent {
    fn new(parts: &http::request::Parts, body: &[u8]) -> Sent {
        let mut query: Vec<(String, String)> = parts
            .uri
            .query()
            .unwrap_or_default()
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                (decode(name), decode(value))
            })
            .collect();
        query.sort();
        Sent {
            method: parts.method.to_string(),
            path: parts.uri.path().to_owned(),
            query,
            content_type: parts
                .headers
                .get(http::header::CONTENT_TYPE)
                .map(|v| v.to_str().unwrap().to_owned()),
            body: if body.is_empty() {
                Value::Null
            } else {
                serde_json::from_slice(body).unwrap()
            },
        }
    }

    fn of(request: &http::Request<Vec<u8>>) -> Sent {
        let (parts, body) = request.clone().into_parts();
        Sent::new(&parts, &body)
    }
}

/// Percent-decoding, with `+` as a space (form encoding, as kube writes queries).
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            other => {
                out.push(other);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap()
}

fn stream() -> ImageStream {
    // The constructor fills k8s-openapi's `ObjectMeta` in with name and namespace, and
    // `metadata_with` edits it in place.
    ImageStream::builder("ruby", "ci")
        .metadata_with(|meta: &mut ObjectMeta| meta.resource_version = Some("7".into()))
        .spec(ImageStreamSpec::builder().lookup_policy(ImageLookupPolicy::builder(true)))
        .build()
}

/// A kube client whose every request lands in `seen`; it answers a list for collection
/// GETs and the image stream otherwise.
fn mock_client(seen: Arc<Mutex<Vec<Sent>>>) -> Client {
    let service = tower::service_fn(move |request: http::Request<Body>| {
        let seen = Arc::clone(&seen);
        async move {
            let (parts, body) = request.into_parts();
            let body = body.collect_bytes().await.unwrap();
            let sent = Sent::new(&parts, &body);
            let answer = if sent.method == "GET" && sent.path.ends_with("/imagestreams") {
                json!({
                    "apiVersion": "image.openshift.io/v1",
                    "kind": "ImageStreamList",
                    "metadata": {"resourceVersion": "9"},
                    "items": [serde_json::to_value(stream()).unwrap()],
                })
            } else {
                serde_json::to_value(stream()).unwrap()
            };
            seen.lock().unwrap().push(sent);
            Ok::<_, std::convert::Infallible>(http::Response::new(Body::from(
                serde_json::to_vec(&answer).unwrap(),
            )))
        }
    });
    Client::new(service, "default")
}

/// Runs `call` on `kube::Api::<ImageStream>::namespaced(mock, "ci")`: its result, and the
/// one request kube sent.
async fn through_kube<T, F>(call: impl FnOnce(Api<ImageStream>) -> F) -> (T, Sent)
where
    F: Future<Output = kube::Result<T>>,
{
    let seen = Arc::new(Mutex::new(Vec::new()));
    let api = Api::namespaced(mock_client(Arc::clone(&seen)), "ci");
    let result = call(api).await.expect("kube accepts the mock's answer");
    let mut seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "one request");
    (result, seen.pop().unwrap())
}

#[tokio::test]
async fn list_matches() {
    let (list, sent) = through_kube(|api| async move {
        let params = ListParams::default()
            .labels("app=web")
            .fields("metadata.name=ruby")
            .limit(10);
        api.list(&params).await
    })
    .await;
    assert_eq!(list.items, vec![stream()]);
    let ours = ImageStream::list_namespaced_image_stream(
        "ci",
        &ListOrWatchQuery {
            label_selector: Some("app=web".into()),
            field_selector: Some("metadata.name=ruby".into()),
            limit: Some(10),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(sent, Sent::of(&ours));
}

#[tokio::test]
async fn get_matches() {
    let (got, sent) = through_kube(|api| async move { api.get("ruby").await }).await;
    assert_eq!(got, stream());
    let ours =
        ImageStream::read_namespaced_image_stream("ci", "ruby", &GetQuery::default()).unwrap();
    assert_eq!(sent, Sent::of(&ours));
}

#[tokio::test]
async fn create_matches() {
    let (created, sent) = through_kube(|api| async move {
        let params = PostParams {
            dry_run: true,
            field_manager: Some("kubeforge-test".into()),
        };
        api.create(&params, &stream()).await
    })
    .await;
    assert_eq!(created, stream());
    let ours = ImageStream::create_namespaced_image_stream(
        "ci",
        &stream(),
        &CreateOrReplaceQuery {
            dry_run: Some("All".into()),
            field_manager: Some("kubeforge-test".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(sent, Sent::of(&ours));
}

#[tokio::test]
async fn replace_matches() {
    let (replaced, sent) =
        through_kube(
            |api| async move { api.replace("ruby", &PostParams::default(), &stream()).await },
        )
        .await;
    assert_eq!(replaced, stream());
    let ours = ImageStream::replace_namespaced_image_stream(
        "ci",
        "ruby",
        &stream(),
        &CreateOrReplaceQuery::default(),
    )
    .unwrap();
    assert_eq!(sent, Sent::of(&ours));
}

fn change() -> Value {
    json!({
        "apiVersion": "image.openshift.io/v1",
        "kind": "ImageStream",
        "spec": {"lookupPolicy": {"local": false}},
    })
}

#[tokio::test]
async fn apply_patch_matches() {
    let (patched, sent) = through_kube(|api| async move {
        let params = PatchParams::apply("kubeforge-test").force();
        api.patch("ruby", &params, &Patch::Apply(&change())).await
    })
    .await;
    assert_eq!(patched, stream());
    let ours = ImageStream::patch_namespaced_image_stream(
        "ci",
        "ruby",
        &kubeforge_runtime::Patch::Apply(change()),
        &PatchQuery {
            field_manager: Some("kubeforge-test".into()),
            force: Some(true),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(sent, Sent::of(&ours));
}

/// A generated apply configuration through kube's `Patch::Apply`: kube sends exactly what the
/// generated apply function sends, and only the fields that were set.
#[tokio::test]
async fn apply_configuration_through_kube_matches() {
    use kube_interop::k8s::openshift::image::v1::ImageStreamApply;
    let configuration = || -> ImageStreamApply {
        ImageStream::apply("ruby", "ci")
            .spec(ImageStreamSpec::apply().lookup_policy(ImageLookupPolicy::apply().local(true)))
    };
    let (patched, sent) = through_kube(|api| async move {
        let params = PatchParams::apply("kubeforge-test").force();
        api.patch("ruby", &params, &Patch::Apply(&configuration()))
            .await
    })
    .await;
    assert_eq!(patched, stream());
    assert_eq!(
        sent.body,
        json!({
            "apiVersion": "image.openshift.io/v1",
            "kind": "ImageStream",
            "metadata": {"name": "ruby", "namespace": "ci"},
            "spec": {"lookupPolicy": {"local": true}},
        })
    );
    let ours = ImageStream::apply_namespaced_image_stream(
        "ci",
        "ruby",
        &configuration(),
        "kubeforge-test",
        &PatchQuery {
            force: Some(true),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(sent, Sent::of(&ours));
}

#[tokio::test]
async fn merge_patch_matches() {
    let (_, sent) = through_kube(|api| async move {
        api.patch("ruby", &PatchParams::default(), &Patch::Merge(&change()))
            .await
    })
    .await;
    let ours = ImageStream::patch_namespaced_image_stream(
        "ci",
        "ruby",
        &kubeforge_runtime::Patch::Merge(change()),
        &PatchQuery::default(),
    )
    .unwrap();
    assert_eq!(sent, Sent::of(&ours));
}

#[tokio::test]
async fn delete_matches() {
    // kube puts its parameters into a DeleteOptions body, as the generated function takes it.
    let (deleted, sent) = through_kube(|api| async move {
        let params = DeleteParams::foreground().grace_period(5);
        api.delete("ruby", &params).await
    })
    .await;
    assert_eq!(deleted.left(), Some(stream()));
    let ours = ImageStream::delete_namespaced_image_stream(
        "ci",
        "ruby",
        Some(&DeleteOptions {
            grace_period_seconds: Some(5),
            propagation_policy: Some("Foreground".into()),
            ..DeleteOptions::default()
        }),
        &DeleteQuery::default(),
    )
    .unwrap();
    assert_eq!(sent, Sent::of(&ours));
}

#[test]
fn image_stream_is_a_kube_resource() {
    use kube::{Resource, ResourceExt};
    assert_eq!(ImageStream::kind(&()), "ImageStream");
    assert_eq!(ImageStream::api_version(&()), "image.openshift.io/v1");
    assert_eq!(ImageStream::plural(&()), "imagestreams");
    assert_eq!(
        ImageStream::url_path(&(), Some("ci")),
        "/apis/image.openshift.io/v1/namespaces/ci/imagestreams"
    );
    // The constructor's metadata is k8s-openapi's, with exactly name and namespace.
    let built = ImageStream::builder("ruby", "ci").build();
    assert_eq!(
        built.metadata,
        Some(ObjectMeta {
            name: Some("ruby".into()),
            namespace: Some("ci".into()),
            ..ObjectMeta::default()
        })
    );
    let mut object = ImageStream {
        metadata: None,
        ..built
    };
    // No metadata reads as empty metadata; writing fills it in.
    assert_eq!(object.name_any(), "");
    object.meta_mut().name = Some("ruby".into());
    assert_eq!(object.name_any(), "ruby");
    assert_eq!(
        serde_json::to_value(&object).unwrap()["metadata"],
        json!({"name": "ruby"})
    );
}

/// The guide's kube recipe (`docs/src/guide/kube.md`) is this crate's build script, exactly.
#[test]
fn the_guide_shows_this_build_script() {
    let build_script = include_str!("../build.rs");
    assert!(
        include_str!("../../../docs/src/guide/kube.md").contains(build_script),
        "docs/src/guide/kube.md must contain examples/kube-interop/build.rs verbatim:\n{build_script}"
    );
}
