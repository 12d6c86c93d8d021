//! Watches on a list path (`?watch=true`): from a resource version or from now, with the
//! initial state as `ADDED` events, bookmarks when asked, `sendInitialEvents` ending in a
//! bookmark annotated `k8s.io/initial-events-end`, and an `ERROR` event with a 410 `Status`
//! when the history no longer holds the events after the requested version. Each watch is
//! one task that ends when its client goes away (the body is dropped), when
//! `timeoutSeconds` pass, or after a 410.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::objects::catalog::Catalog;
use crate::objects::select::Filter;
use crate::objects::store::EventType;
use crate::objects::{partial, table};
use crate::verbs::Shared;
use crate::wire::encoding;
use crate::wire::media;
use crate::wire::query::Query;
use crate::wire::status::Failure;

/// Where a watch starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Start {
    /// With the current state as `ADDED` events (no resource version, `0`, or
    /// `sendInitialEvents=true`).
    WithState,
    /// After this resource version.
    After(u64),
}

/// A parsed watch request.
#[derive(Debug)]
pub(crate) struct Request {
    /// The request's own catalog snapshot, which `index` points into: a watch streams on
    /// after its request, and a CRD created meanwhile must not change what it answers with.
    catalog: Arc<Catalog>,
    index: usize,
    filter: Filter,
    start: Start,
    bookmarks: bool,
    initial_events_end: bool,
    timeout: Option<Duration>,
    /// Send each object as a one-row Table of this version (`kubectl get -w`).
    table: Option<(&'static str, table::Include)>,
    /// Send protobuf frames (`application/vnd.kubernetes.protobuf;stream=watch`).
    protobuf: bool,
    /// Send each object's metadata alone, as a `PartialObjectMetadata` of this version
    /// (`Partial::Object`). Asked for as a list, the API server's transform fails on each
    /// object and it sends the object as it is (`watchEmbeddedEncoder.doEncode` logs the
    /// error and encodes the original); so does this server.
    metadata: Option<(media::Partial, &'static str)>,
}

impl Request {
    pub(crate) fn new(
        catalog: Arc<Catalog>,
        index: usize,
        filter: Filter,
        query: &Query,
        answer: media::Answer,
    ) -> Result<Request, Failure> {
        let send_initial = query.flag("sendInitialEvents");
        let start = match query
            .get("resourceVersion")
            .filter(|rv| !rv.is_empty() && *rv != "0")
        {
            _ if send_initial => Start::WithState,
            None => Start::WithState,
            Some(rv) => Start::After(rv.parse().map_err(|_| {
                Failure::bad_request(format!(
                    "invalid resourceVersion {rv:?}: this server's versions are integers"
                ))
            })?),
        };
        let timeout = query
            .get("timeoutSeconds")
            .and_then(|t| t.parse::<u64>().ok())
            .filter(|t| *t > 0)
            .map(Duration::from_secs);
        Ok(Request {
            catalog,
            index,
            filter,
            start,
            bookmarks: query.flag("allowWatchBookmarks"),
            initial_events_end: send_initial,
            timeout,
            table: match answer {
                media::Answer::Table(version) => {
                    Some((version, table::Include::of(query.get("includeObject"))))
                }
                _ => None,
            },
            protobuf: matches!(
                answer,
                media::Answer::Protobuf | media::Answer::Metadata { protobuf: true, .. }
            ),
            metadata: match answer {
                media::Answer::Metadata {
                    partial, version, ..
                } => Some((partial, version)),
                _ => None,
            },
        })
    }

    /// The response's content type.
    pub(crate) fn content_type(&self) -> &'static str {
        if self.protobuf {
            "application/vnd.kubernetes.protobuf;stream=watch"
        } else {
            "application/json"
        }
    }
}

/// Counts the task as an open watch while it lives.
struct Open(Arc<Shared>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.watches.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Starts the watch's task; its events arrive on the receiver.
pub(crate) fn start(shared: Arc<Shared>, request: Request) -> mpsc::Receiver<Bytes> {
    let (sender, receiver) = mpsc::channel(256);
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => {
            shared.watches.fetch_add(1, Ordering::SeqCst);
            let open = Open(shared.clone());
            handle.spawn(async move {
                let _open = open;
                run(&shared, &request, &sender).await;
            });
        }
        Err(_) => {
            let failure = Failure::internal("a watch needs a tokio runtime");
            let _ = sender.try_send(event_line("ERROR", &failure.to_status()));
        }
    }
    receiver
}

fn event_line(kind: &str, object: &Value) -> Bytes {
    let mut line = json!({"type": kind, "object": object}).to_string();
    line.push('\n');
    Bytes::from(line)
}

async fn run(shared: &Shared, request: &Request, sender: &mpsc::Sender<Bytes>) {
    let catalog = &*request.catalog;
    let def = &catalog.resources[request.index];
    // The first object sent as a Table carries the column definitions, as on a real server.
    let headers = std::sync::atomic::AtomicBool::new(true);
    let line = |kind: &str, object: &Value| match request.table {
        Some((version, include)) => {
            let metadata = json!({"resourceVersion": object.pointer("/metadata/resourceVersion").cloned().unwrap_or(Value::from(""))});
            let first = headers.swap(false, Ordering::SeqCst);
            let table = table::table(catalog, def, version, &[object], include, metadata, first);
            event_line(kind, &table)
        }
        None => {
            let object = match request.metadata {
                Some((media::Partial::Object, version)) => &partial::object(object, version),
                _ => object,
            };
            if request.protobuf {
                encoding::watch_frame(&shared.options.protobuf, kind, object)
            } else {
                event_line(kind, object)
            }
        }
    };
    let bookmark = |rv: u64, end: bool| {
        let mut metadata = json!({"resourceVersion": rv.to_string()});
        if end {
            metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        let mut object =
            json!({"kind": def.kind, "apiVersion": def.api_version(), "metadata": metadata});
        if let Some((media::Partial::Object, version)) = request.metadata {
            object = partial::object(&object, version);
        }
        if request.protobuf {
            encoding::watch_frame(&shared.options.protobuf, "BOOKMARK", &object)
        } else {
            event_line("BOOKMARK", &object)
        }
    };
    let mut changed = shared.changed.subscribe();
    changed.borrow_and_update();
    let (mut cursor, epoch, initial) = {
        let state = shared.lock();
        match request.start {
            Start::WithState => {
                let initial: Vec<Bytes> = state.objects[request.index]
                    .values()
                    .filter(|object| request.filter.matches(object))
                    .map(|object| line("ADDED", object))
                    .collect();
                (state.rv, state.epoch, initial)
            }
            Start::After(rv) => (rv, state.epoch, Vec::new()),
        }
    };
    for line in initial {
        if sender.send(line).await.is_err() {
            return;
        }
    }
    if request.initial_events_end
        && request.bookmarks
        && sender.send(bookmark(cursor, true)).await.is_err()
    {
        return;
    }
    let deadline = request.timeout.map(|t| Instant::now() + t);
    let mut bookmarked = cursor;
    loop {
        changed.borrow_and_update();
        let batch = {
            let state = shared.lock();
            let events = if state.epoch == epoch {
                state.since(cursor)
            } else {
                None
            };
            match events {
                None => Err(Failure::gone(format!(
                    "too old resource version: {cursor} ({})",
                    state.compacted + 1
                ))),
                Some(events) => {
                    let lines: Vec<Bytes> = events
                        .filter(|event| event.resource == request.index)
                        .filter_map(|event| {
                            let now = request.filter.matches(&event.object);
                            let before = event
                                .old
                                .as_deref()
                                .is_some_and(|old| request.filter.matches(old));
                            let kind = match (event.kind, before, now) {
                                (EventType::Deleted, true, _) => "DELETED",
                                (EventType::Added, _, true) => "ADDED",
                                (EventType::Modified, true, true) => "MODIFIED",
                                (EventType::Modified, false, true) => "ADDED",
                                (EventType::Modified, true, false) => "DELETED",
                                _ => return None,
                            };
                            Some(line(kind, &event.object))
                        })
                        .collect();
                    cursor = cursor.max(state.rv);
                    Ok(lines)
                }
            }
        };
        match batch {
            Err(gone) => {
                let status = gone.to_status();
                let line = if request.protobuf {
                    encoding::watch_frame(&shared.options.protobuf, "ERROR", &status)
                } else {
                    event_line("ERROR", &status)
                };
                let _ = sender.send(line).await;
                return;
            }
            Ok(lines) => {
                for line in lines {
                    if sender.send(line).await.is_err() {
                        return;
                    }
                }
            }
        }
        let interval = shared.options.bookmark_interval;
        tokio::select! {
            result = changed.changed() => {
                if result.is_err() {
                    return;
                }
            }
            () = sender.closed() => return,
            () = sleep_until(deadline) => return,
            () = tokio::time::sleep(interval), if request.bookmarks => {
                if cursor != bookmarked {
                    bookmarked = cursor;
                    if sender.send(bookmark(cursor, false)).await.is_err() {
                        return;
                    }
                }
            }
        }
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
