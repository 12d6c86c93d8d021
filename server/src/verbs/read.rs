//! The reading verbs: get, list (selectors, paging with continue tokens, a resource version
//! to read at) and watch (its stream is `watch`).

use kubeforge_runtime::schema::gofmt::quote;
use std::sync::Arc;

use base64::Engine;
use http::{HeaderValue, Response, StatusCode, header};
use serde_json::{Value, json};

use crate::objects::catalog::Catalog;
use crate::objects::select::Filter;
use crate::objects::store::Key;
use crate::objects::versions;
use crate::verbs::watch;
use crate::verbs::{Shared, scale_of};
use crate::wire::body::Body;
use crate::wire::media;
use crate::wire::query::Query;
use crate::wire::status::Failure;

impl Shared {
    /// `GET` of one object (its `Scale` on the `scale` subresource).
    pub(crate) fn get(
        &self,
        index: usize,
        namespace: &str,
        name: &str,
        sub: Option<&str>,
    ) -> Result<(StatusCode, Value), Failure> {
        let object = self.stored(index, namespace, name)?;
        let object = if sub == Some("scale") {
            scale_of(&object)
        } else {
            (*object).clone()
        };
        Ok((StatusCode::OK, object))
    }

    /// The stored object at `namespace`/`name`.
    pub(super) fn stored(
        &self,
        index: usize,
        namespace: &str,
        name: &str,
    ) -> Result<Arc<Value>, Failure> {
        // Under the lock, the catalog is the store's own: no snapshot of its own.
        let state = self.lock();
        state.objects[index]
            .get(&(namespace.to_owned(), name.to_owned()))
            .cloned()
            .ok_or_else(|| {
                let def = &state.catalog.resources[index];
                Failure::not_found(&def.group, &def.plural, name)
            })
    }

    pub(crate) fn list(
        &self,
        catalog: &Catalog,
        index: usize,
        namespace: Option<&str>,
        query: &Query,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = &catalog.resources[index];
        let filter = Filter::new(catalog, index, namespace, query)?;
        let limit = query
            .get("limit")
            .and_then(|l| l.parse::<usize>().ok())
            .filter(|l| *l > 0);
        let state = self.lock();
        let (start, continued): (Option<Key>, Option<u64>) = match query
            .get("continue")
            .filter(|c| !c.is_empty())
        {
            None => (None, None),
            Some(token) => {
                let (rv, key) = decode_continue(token).ok_or_else(|| {
                    Failure::bad_request(format!("invalid continue token {}", quote(token)))
                })?;
                if rv < state.compacted {
                    return Err(Failure::gone(
                        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
                    ));
                }
                (Some(key), Some(rv))
            }
        };
        let (snapshot, at) = match versions::list_read(&state, query, continued)? {
            versions::Read::Latest => (None, state.rv),
            versions::Read::Exact(rv) => (Some(versions::objects_at(&state, index, rv)?), rv),
        };
        let objects = snapshot.as_ref().unwrap_or(&state.objects[index]);
        let range = match &start {
            Some(key) => objects
                .range::<Key, _>((std::ops::Bound::Excluded(key), std::ops::Bound::Unbounded)),
            None => objects.range::<Key, _>(..),
        };
        // Under the lock, only what the list reads is taken (the namespace's keys and their
        // objects' `Arc`s); filtering and copying the objects happen after it is released.
        let candidates: Vec<(Key, Arc<Value>)> = range
            .skip_while(|((ns, _), _)| namespace.is_some_and(|n| ns.as_str() < n))
            .take_while(|((ns, _), _)| namespace.is_none_or(|n| ns == n))
            .map(|(key, object)| (key.clone(), object.clone()))
            .collect();
        drop(state);
        let typed = !catalog.is_custom(def);
        let mut items = Vec::new();
        let mut last = None;
        let mut remaining = 0usize;
        for (key, object) in &candidates {
            if !filter.matches(object) {
                continue;
            }
            if limit.is_some_and(|limit| items.len() >= limit) {
                remaining += 1;
                continue;
            }
            items.push(list_item(object, typed));
            last = Some(key.clone());
        }
        let mut metadata = json!({"resourceVersion": at.to_string()});
        if remaining > 0
            && let Some(last) = last
        {
            metadata["continue"] = Value::from(encode_continue(at, &last));
            metadata["remainingItemCount"] = Value::from(remaining);
        }
        let list = json!({
            "kind": def.list_kind(),
            "apiVersion": def.api_version(),
            "metadata": metadata,
            "items": items,
        });
        Ok((StatusCode::OK, list))
    }

    pub(crate) fn watch(
        self: &Arc<Self>,
        catalog: &Arc<Catalog>,
        index: usize,
        namespace: Option<&str>,
        query: &Query,
        answer: media::Answer,
    ) -> Result<Response<Body>, Failure> {
        let filter = Filter::new(catalog, index, namespace, query)?;
        let request = watch::Request::new(catalog.clone(), index, filter, query, answer)?;
        let content_type = request.content_type();
        let receiver = watch::start(self.clone(), request);
        let mut response = Response::new(Body::stream(receiver));
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        Ok(response)
    }
}

/// One item of a list as the API server writes it: a built-in kind's list is a typed list
/// (`PodList`) whose items the API server converts without their `apiVersion` and `kind`
/// (only the list's own are set on encoding), which is why client-go's unstructured decoder
/// sets them back ("For typed lists, e.g., a PodList, API server doesn't set each item's
/// APIVersion and Kind", unstructured/helpers.go's decodeToList); a custom resource's items are
/// stored as they were written, with both.
fn list_item(object: &Value, typed: bool) -> Value {
    let mut item = object.clone();
    if typed && let Some(fields) = item.as_object_mut() {
        fields.remove("apiVersion");
        fields.remove("kind");
    }
    item
}

fn encode_continue(rv: u64, key: &Key) -> String {
    let text = json!({"rv": rv, "namespace": key.0, "name": key.1}).to_string();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

fn decode_continue(token: &str) -> Option<(u64, Key)> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token)
        .ok()?;
    let value: Value = serde_json::from_slice(&bytes).ok()?;
    Some((
        value.get("rv")?.as_u64()?,
        (
            value.get("namespace")?.as_str()?.to_owned(),
            value.get("name")?.as_str()?.to_owned(),
        ),
    ))
}
