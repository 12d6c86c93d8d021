//! `TokenReview` goes through the authenticator chain that serves requests: every kind of
//! token the server accepts (the administrator's the kubeconfig carries, a static user's, a
//! ServiceAccount's legacy Secret token and its bound token) and revoked ones (the legacy
//! token's Secret deleted, a bound token's Secret deleted) are reviewed, and each review
//! agrees with what a request carrying the token gets: the user a `SelfSubjectReview`
//! names, or 401 and the API server's message for the refused.

use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use kubeforge_server::{Catalog, Options, Server, Simulation};
use serde_json::{Value, json};
use tower::ServiceExt;

/// One JSON request with `token` (none: the in-process administrator); the status and body.
async fn send(
    server: &Server,
    method: Method,
    uri: &str,
    token: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    let mut request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let response = server.clone().oneshot(request).await.unwrap();
    let code = response.status().as_u16();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (code, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// A review of `token`: whether it authenticated, the user, the audiences and the error.
async fn review(server: &Server, token: &str) -> (bool, Value, Value, String) {
    let (code, review) = send(
        server,
        Method::POST,
        "/apis/authentication.k8s.io/v1/tokenreviews",
        None,
        &json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}}),
    )
    .await;
    assert_eq!(code, 201, "{review}");
    let status = &review["status"];
    (
        status["authenticated"] == true,
        status["user"].clone(),
        status["audiences"].clone(),
        status["error"].as_str().unwrap_or("").to_owned(),
    )
}

/// What a request carrying `token` gets: its user (`SelfSubjectReview`), or the refusal.
async fn whoami(server: &Server, token: &str) -> Result<Value, (u16, String)> {
    let (code, body) = send(
        server,
        Method::POST,
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        Some(token),
        &json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}),
    )
    .await;
    if code == 201 {
        Ok(body["status"]["userInfo"].clone())
    } else {
        Err((code, body["message"].as_str().unwrap_or("").to_owned()))
    }
}

/// The review of `token` and a request carrying it agree: the same user, or both refuse.
async fn agree(server: &Server, what: &str, token: &str) -> (bool, Value, String) {
    let (authenticated, user, audiences, error) = review(server, token).await;
    match whoami(server, token).await {
        Ok(served) => {
            assert!(
                authenticated,
                "{what}: served as {served} but the review refused it: {error}"
            );
            assert_eq!(user, served, "{what}");
            assert_eq!(
                audiences,
                json!(["https://kubernetes.default.svc.cluster.local"]),
                "{what}"
            );
        }
        Err((code, message)) => {
            assert!(
                !authenticated,
                "{what}: refused ({code}) but the review accepted {user}"
            );
            assert_eq!((code, message.as_str()), (401, "Unauthorized"), "{what}");
            assert_eq!(user, json!({}), "{what}");
        }
    }
    (authenticated, user, error)
}

#[tokio::test(flavor = "multi_thread")]
async fn every_kind_of_token_is_reviewed_as_requests_are_served() {
    let test = "every_kind_of_token_is_reviewed_as_requests_are_served";
    let Some(corpus) = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"]) else {
        return;
    };
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    let options = Options {
        simulation: Some(Simulation::default()),
        ..Options::default()
    };
    let server = Server::with_options(catalog, options);
    const NS: &str = "/api/v1/namespaces/default";

    // The kubeconfig's administrator.
    let (_, user, _) = agree(&server, "the administrator's token", &server.admin_token()).await;
    assert_eq!(
        user,
        json!({"username": "kubernetes-admin", "groups": ["system:masters", "system:authenticated"]})
    );
    // A static user's.
    let jane = server.add_user("jane", &["developers"]);
    let (_, user, _) = agree(&server, "a static user's token", &jane).await;
    assert_eq!(
        user,
        json!({"username": "jane", "groups": ["developers", "system:authenticated"]})
    );

    // A ServiceAccount's legacy token, which the token controller writes into its Secret.
    let (code, _) = send(
        &server,
        Method::POST,
        &format!("{NS}/serviceaccounts"),
        None,
        &json!({"metadata": {"name": "builder"}}),
    )
    .await;
    assert_eq!(code, 201);
    let secret = |name: &str| {
        json!({
            "metadata": {"name": name, "annotations": {"kubernetes.io/service-account.name": "builder"}},
            "type": "kubernetes.io/service-account-token",
        })
    };
    for name in ["builder-token", "bound-to"] {
        let (code, body) = send(
            &server,
            Method::POST,
            &format!("{NS}/secrets"),
            None,
            &secret(name),
        )
        .await;
        assert_eq!(code, 201, "{body}");
    }
    let mut legacy = String::new();
    for _ in 0..200 {
        let (_, secret) = send(
            &server,
            Method::GET,
            &format!("{NS}/secrets/builder-token"),
            None,
            &Value::Null,
        )
        .await;
        if let Some(token) = secret.pointer("/data/token").and_then(Value::as_str) {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(token)
                .unwrap();
            legacy = String::from_utf8(bytes).unwrap();
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!legacy.is_empty(), "the token controller wrote no token");
    let (authenticated, user, _) = agree(&server, "a legacy token", &legacy).await;
    assert!(authenticated);
    assert_eq!(user["username"], "system:serviceaccount:default:builder");
    assert_eq!(
        user["groups"],
        json!([
            "system:serviceaccounts",
            "system:serviceaccounts:default",
            "system:authenticated"
        ])
    );

    // A bound token (TokenRequest), bound to a Secret.
    let (_, bound_to) = send(
        &server,
        Method::GET,
        &format!("{NS}/secrets/bound-to"),
        None,
        &Value::Null,
    )
    .await;
    let (code, request) = send(&server, Method::POST, &format!("{NS}/serviceaccounts/builder/token"), None,
        &json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {
            "boundObjectRef": {"kind": "Secret", "apiVersion": "v1", "name": "bound-to", "uid": bound_to["metadata"]["uid"]},
        }})).await;
    assert_eq!(code, 201, "{request}");
    let bound = request["status"]["token"].as_str().unwrap().to_owned();
    let (authenticated, user, _) = agree(&server, "a bound token", &bound).await;
    assert!(authenticated);
    assert_eq!(user["username"], "system:serviceaccount:default:builder");

    // Revoked: the legacy token's Secret deleted, the bound token's object deleted.
    for name in ["builder-token", "bound-to"] {
        let (code, _) = send(
            &server,
            Method::DELETE,
            &format!("{NS}/secrets/{name}"),
            None,
            &Value::Null,
        )
        .await;
        assert_eq!(code, 200);
    }
    let (authenticated, _, error) = agree(&server, "a revoked legacy token", &legacy).await;
    assert!(!authenticated);
    assert_eq!(error, "Token has been invalidated");
    let (authenticated, _, error) = agree(&server, "a revoked bound token", &bound).await;
    assert!(!authenticated);
    assert_eq!(error, "service account token has been invalidated");
    // And one the server never issued.
    let (_, _, error) = agree(&server, "an unknown token", "not-a-token").await;
    assert_eq!(error, "invalid bearer token");
}
