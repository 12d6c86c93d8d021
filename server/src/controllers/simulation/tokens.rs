//! kube-controller-manager's ServiceAccount token controller (`tokens_controller.go`,
//! `syncSecret`): a Secret of type `kubernetes.io/service-account-token` whose
//! `kubernetes.io/service-account.name` annotation names a ServiceAccount gets what
//! `generateTokenIfNeeded` puts in it: `ca.crt` (the cluster's CA), `namespace`, a `token`
//! (`LegacyClaims`, signed with the server's service account key, which the API server
//! accepts for that ServiceAccount while the Secret holds it), and the
//! `kubernetes.io/service-account.uid` annotation. A Secret whose ServiceAccount is not
//! there (or has another uid than the annotation says) is deleted, as `deleteToken` does.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::controllers::simulation::{Action, Kinds, objects, text};
use crate::objects::store::State;
use crate::semantics::tokens::Keys;

/// `v1.SecretTypeServiceAccountToken`.
const TYPE: &str = "kubernetes.io/service-account-token";
/// `v1.ServiceAccountNameKey` and `v1.ServiceAccountUIDKey`.
const NAME_KEY: &str = "kubernetes.io/service-account.name";
const UID_KEY: &str = "kubernetes.io/service-account.uid";

pub(crate) fn plan(state: &State, kinds: &Kinds, keys: Option<&Keys>, ca: &str) -> Vec<Action> {
    let (Some(secrets), Some(accounts), Some(keys)) = (kinds.secrets, kinds.service_accounts, keys)
    else {
        return Vec::new();
    };
    let mut actions = Vec::new();
    for (key, secret) in &state.objects[secrets] {
        if text(secret, "/type") != TYPE || secret.pointer("/metadata/deletionTimestamp").is_some()
        {
            continue;
        }
        let annotation = |name: &str| {
            secret
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(name))
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        let (sa_name, sa_uid) = (annotation(NAME_KEY), annotation(UID_KEY));
        if sa_name.is_empty() {
            continue;
        }
        let account = objects(state, Some(accounts))
            .find(|(k, sa)| {
                k.0 == key.0
                    && k.1 == sa_name
                    && (sa_uid.is_empty() || text(sa, "/metadata/uid") == sa_uid)
            })
            .map(|(_, sa)| sa);
        let Some(account) = account else {
            actions.push(Action::Delete {
                index: secrets,
                key: key.clone(),
            });
            continue;
        };
        let data = |name: &str| {
            secret
                .pointer("/data")
                .and_then(|d| d.get(name))
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        let encoded_ca = STANDARD.encode(ca);
        let needs_ca = !ca.is_empty() && data("ca.crt") != encoded_ca;
        let needs_namespace = data("namespace").is_empty();
        let needs_token = data("token").is_empty();
        if !needs_ca && !needs_namespace && !needs_token {
            continue;
        }
        let mut object = (**secret).clone();
        if !object["data"].is_object() {
            object["data"] = json!({});
        }
        if needs_ca {
            object["data"]["ca.crt"] = Value::from(encoded_ca);
        }
        if needs_namespace {
            object["data"]["namespace"] = Value::from(STANDARD.encode(&key.0));
        }
        let uid = text(account, "/metadata/uid");
        if needs_token {
            let Ok(token) = keys.issue_legacy((&key.0, sa_name, uid), &key.1) else {
                continue;
            };
            object["data"]["token"] = Value::from(STANDARD.encode(token));
        }
        if !object["metadata"]["annotations"].is_object() {
            object["metadata"]["annotations"] = json!({});
        }
        object["metadata"]["annotations"][NAME_KEY] = Value::from(sa_name);
        object["metadata"]["annotations"][UID_KEY] = Value::from(uid);
        actions.push(Action::Write {
            index: secrets,
            key: key.clone(),
            object,
        });
    }
    actions
}
