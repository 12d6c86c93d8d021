//! Wire-form tests for `WatchEvent` and `Bookmark`.

use std::collections::BTreeMap;

use kubeforge_runtime::{Bookmark, WatchEvent};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Pod {
    name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Status {
    code: u16,
    message: String,
}

type Event = WatchEvent<Pod, Status>;

fn from_json<T: for<'de> Deserialize<'de>>(s: &str) -> Result<T, String> {
    serde_json::from_str(s).map_err(|e| e.to_string())
}

fn pod(name: &str) -> Pod {
    Pod { name: name.into() }
}

#[test]
fn object_events_round_trip() {
    for (ty, event) in [
        ("ADDED", Event::Added(pod("a"))),
        ("MODIFIED", Event::Modified(pod("b"))),
        ("DELETED", Event::Deleted(pod("c"))),
    ] {
        let json = serde_json::to_string(&event).unwrap();
        let name = match &event {
            WatchEvent::Added(p) | WatchEvent::Modified(p) | WatchEvent::Deleted(p) => &p.name,
            _ => unreachable!(),
        };
        assert_eq!(
            json,
            format!(r#"{{"type":"{ty}","object":{{"name":"{name}"}}}}"#)
        );
        assert_eq!(from_json::<Event>(&json).unwrap(), event);
    }
}

#[test]
fn object_before_type_is_accepted() {
    let event: Event = from_json(r#"{"object":{"name":"a"},"type":"ADDED"}"#).unwrap();
    assert_eq!(event, WatchEvent::Added(pod("a")));
}

#[test]
fn error_event_round_trips() {
    let json = r#"{"type":"ERROR","object":{"code":410,"message":"too old resource version"}}"#;
    let event: Event = from_json(json).unwrap();
    assert_eq!(
        event,
        WatchEvent::Error(Status {
            code: 410,
            message: "too old resource version".into()
        })
    );
    assert_eq!(serde_json::to_string(&event).unwrap(), json);

    // The default error payload is raw JSON.
    let event: WatchEvent<Pod> = from_json(json).unwrap();
    assert_eq!(
        event,
        WatchEvent::Error(json!({"code":410,"message":"too old resource version"}))
    );
    assert_eq!(serde_json::to_string(&event).unwrap(), json);
}

#[test]
fn bookmark_reads_real_server_output() {
    // What kube-apiserver sends: the full kind with everything but the
    // resource version empty.
    let json = r#"{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12746","creationTimestamp":null,"annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}}"#;
    let event: Event = from_json(json).unwrap();
    let WatchEvent::Bookmark(bookmark) = &event else {
        panic!("not a bookmark: {event:?}");
    };
    assert_eq!(bookmark.api_version.as_deref(), Some("v1"));
    assert_eq!(bookmark.kind.as_deref(), Some("Pod"));
    assert_eq!(bookmark.resource_version, "12746");
    assert_eq!(
        bookmark.annotations,
        BTreeMap::from([("k8s.io/initial-events-end".to_owned(), "true".to_owned())])
    );
    assert_eq!(
        serde_json::to_string(&event).unwrap(),
        r#"{"type":"BOOKMARK","object":{"apiVersion":"v1","kind":"Pod","metadata":{"resourceVersion":"12746","annotations":{"k8s.io/initial-events-end":"true"}}}}"#
    );
    assert_eq!(
        from_json::<Event>(&serde_json::to_string(&event).unwrap()).unwrap(),
        event
    );
}

#[test]
fn minimal_bookmark_omits_absent_and_empty_parts() {
    let event = Event::Bookmark(Bookmark {
        resource_version: "7".into(),
        ..Bookmark::default()
    });
    let json = serde_json::to_string(&event).unwrap();
    assert_eq!(
        json,
        r#"{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"7"}}}"#
    );
    assert_eq!(from_json::<Event>(&json).unwrap(), event);

    // Null annotations read as empty.
    let event: Event = from_json(
        r#"{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"7","annotations":null}}}"#,
    )
    .unwrap();
    assert_eq!(
        event,
        WatchEvent::Bookmark(Bookmark {
            resource_version: "7".into(),
            ..Bookmark::default()
        })
    );
}

#[test]
fn event_types_are_case_sensitive() {
    // Case matters: `added` is not `ADDED`, so it is kept as another type.
    let event = from_json::<Event>(r#"{"type":"added","object":{"name":"a"}}"#).unwrap();
    assert!(matches!(event, WatchEvent::Other { ref event_type, .. } if event_type == "added"));
}

#[test]
fn missing_parts_are_errors() {
    let err = from_json::<Event>(r#"{"type":"ADDED"}"#).unwrap_err();
    assert!(err.contains("object"), "{err}");
    let err = from_json::<Event>(r#"{"object":{"name":"a"}}"#).unwrap_err();
    assert!(err.contains("type"), "{err}");
    let err = from_json::<Event>(r#"{"type":"BOOKMARK","object":{}}"#).unwrap_err();
    assert!(err.contains("metadata"), "{err}");
    let err = from_json::<Event>(r#"{"type":"BOOKMARK","object":{"metadata":{}}}"#).unwrap_err();
    assert!(err.contains("resourceVersion"), "{err}");
}

#[test]
fn hostile_events_are_errors_not_panics() {
    for bad in [
        "null",
        "5",
        r#""ADDED""#,
        "[]",
        "{}",
        r#"{"type":null,"object":{"name":"a"}}"#,
        r#"{"type":5,"object":{"name":"a"}}"#,
        r#"{"type":"ADDED","object":null}"#,
        r#"{"type":"ADDED","object":5}"#,
        r#"{"type":"ADDED","object":{"name":5}}"#,
        r#"{"type":"ADDED","object":{}}"#,
        r#"{"type":"ERROR","object":"boom"}"#,
        r#"{"type":"BOOKMARK","object":null}"#,
        r#"{"type":"BOOKMARK","object":[]}"#,
        r#"{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":12}}}"#,
        r#"{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"1","annotations":{"a":1}}}}"#,
        r#"{"type":"BOOKMARK","object":{"kind":5,"metadata":{"resourceVersion":"1"}}}"#,
        r#"{"type":"BOOKMARK","object":{"metadata":[]}}"#,
        r#"["ADDED",{"name":"a"}]"#,
        r#"{"object":{"name":"a"},"type":["RENAMED"]}"#,
        r#"{"object":{"name":5},"type":"ADDED"}"#,
    ] {
        assert!(from_json::<Event>(bad).is_err(), "{bad} was accepted");
        let value: Value = serde_json::from_str(bad).unwrap_or(Value::Null);
        assert!(
            serde_json::from_value::<Event>(value).is_err(),
            "{bad} was accepted as Value"
        );
    }
}

#[test]
fn duplicate_keys_are_errors() {
    for bad in [
        r#"{"type":"ADDED","object":{"name":"a"},"type":"DELETED"}"#,
        r#"{"type":"ADDED","object":{"name":"a"},"object":{"name":"b"}}"#,
        r#"{"object":{"name":"a"},"object":{"name":"b"},"type":"ADDED"}"#,
    ] {
        let err = from_json::<Event>(bad).unwrap_err();
        assert!(err.starts_with("duplicate field"), "{bad}: {err}");
    }
}

#[test]
fn unknown_keys_are_ignored() {
    let event: Event =
        from_json(r#"{"kind":"WatchEvent","type":"DELETED","object":{"name":"a"},"extra":[1,{}]}"#)
            .unwrap();
    assert_eq!(event, WatchEvent::Deleted(pod("a")));
}

/// The schema's `type` is a plain string: an event type no release sends today is kept, with
/// its object as raw JSON, and written back as it came (object first or type first).
#[test]
fn unknown_event_types_are_kept() {
    for text in [
        r#"{"type":"RENAMED","object":{"name":"a","x":[1.5,null]}}"#,
        r#"{"object":{"name":"a","x":[1.5,null]},"type":"RENAMED"}"#,
    ] {
        let event: Event = from_json(text).unwrap();
        assert_eq!(
            event,
            WatchEvent::Other {
                event_type: "RENAMED".to_owned(),
                object: serde_json::json!({"name":"a","x":[1.5,null]}),
            }
        );
        assert_eq!(
            serde_json::to_string(&event).unwrap(),
            r#"{"type":"RENAMED","object":{"name":"a","x":[1.5,null]}}"#
        );
    }
}

#[test]
fn error_messages_are_readable() {
    let err = from_json::<Event>(r#"{"type":"ADDED"}"#).unwrap_err();
    assert!(err.starts_with("missing field `object`"), "{err}");
    let err = from_json::<Event>(r#"{"object":{}}"#).unwrap_err();
    assert!(err.starts_with("missing field `type`"), "{err}");
    let err = from_json::<Event>(r#"{"type":7}"#).unwrap_err();
    assert!(err.contains("expected a watch event type string"), "{err}");
    let err = from_json::<Event>("[]").unwrap_err();
    assert!(err.contains("expected a watch event object"), "{err}");
    let err = from_json::<Event>(r#"{"type":"BOOKMARK","object":null}"#).unwrap_err();
    assert!(err.contains("expected struct Bookmark "), "{err}");
    let err = from_json::<Event>(r#"{"type":"BOOKMARK","object":{"metadata":5}}"#).unwrap_err();
    assert!(err.contains("expected struct ObjectMeta "), "{err}");
}

#[test]
fn borrowed_objects_can_be_read_when_type_comes_first() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct Borrowing<'a> {
        name: &'a str,
    }
    let json = String::from(r#"{"type":"ADDED","object":{"name":"a"}}"#);
    let event: WatchEvent<Borrowing<'_>> = serde_json::from_str(&json).unwrap();
    assert_eq!(event, WatchEvent::Added(Borrowing { name: "a" }));
}

#[test]
fn events_through_json_value() {
    let event = Event::Modified(pod("x"));
    let value = serde_json::to_value(&event).unwrap();
    assert_eq!(value, json!({"type":"MODIFIED","object":{"name":"x"}}));
    assert_eq!(serde_json::from_value::<Event>(value).unwrap(), event);
}

#[test]
fn stream_of_events() {
    let stream = concat!(
        r#"{"type":"ADDED","object":{"name":"a"}}"#,
        "\n",
        r#"{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"2"}}}"#,
        "\n",
        r#"{"type":"DELETED","object":{"name":"a"}}"#,
        "\n",
    );
    let events: Vec<Event> = serde_json::Deserializer::from_str(stream)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(events.len(), 3);
    assert!(matches!(&events[1], WatchEvent::Bookmark(b) if b.resource_version == "2"));
}
