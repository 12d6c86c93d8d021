//! Watch stream events.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::response::{DecodeError, ResponseError};

/// One event of a Kubernetes watch stream, for objects of type `T` and error
/// payloads of type `S` (usually `meta/v1.Status`; raw JSON by default).
///
/// Wire form: `{"type":"ADDED","object":{…}}`, with `type` one of `ADDED`,
/// `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`. The schema makes `type` a plain
/// string, so any other `type` is kept as [`WatchEvent::Other`] with its object as
/// raw JSON and written back unchanged, the way generated enums keep values they do
/// not know. A missing `type` or `object` is an error. Other keys are ignored, and
/// `object` may come before `type` (it is then buffered as a `serde_json::Value`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchEvent<T, S = serde_json::Value> {
    /// `"ADDED"`: the object was created (or listed at the start of a watch).
    Added(T),
    /// `"MODIFIED"`: the object changed.
    Modified(T),
    /// `"DELETED"`: the object was deleted; this is its last state.
    Deleted(T),
    /// `"BOOKMARK"`: a resource version to resume the watch from.
    Bookmark(Bookmark),
    /// `"ERROR"`: the watch failed; the payload is usually a `Status`.
    Error(S),
    /// An event type this runtime does not know (no Kubernetes release sends one today),
    /// kept as it came.
    Other {
        /// The event's `type`.
        event_type: String,
        /// The event's `object`, undecoded.
        object: serde_json::Value,
    },
}

impl<T: Serialize, S: Serialize> Serialize for WatchEvent<T, S> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        use serde::ser::SerializeStruct;

        fn event<Z: Serializer, O: Serialize + ?Sized>(
            serializer: Z,
            event_type: &str,
            object: &O,
        ) -> Result<Z::Ok, Z::Error> {
            let mut map = serializer.serialize_struct("WatchEvent", 2)?;
            map.serialize_field("type", event_type)?;
            map.serialize_field("object", object)?;
            map.end()
        }

        match self {
            Self::Added(object) => event(serializer, "ADDED", object),
            Self::Modified(object) => event(serializer, "MODIFIED", object),
            Self::Deleted(object) => event(serializer, "DELETED", object),
            Self::Bookmark(bookmark) => event(serializer, "BOOKMARK", bookmark),
            Self::Error(status) => event(serializer, "ERROR", status),
            Self::Other { event_type, object } => event(serializer, event_type, object),
        }
    }
}

/// The object of a `BOOKMARK` watch event: only a resource version (and
/// possibly annotations) of an otherwise empty object.
///
/// Wire form: `{"apiVersion":"v1","kind":"Pod","metadata":{"resourceVersion":"12746",
/// "annotations":{"k8s.io/initial-events-end":"true"}}}`. Absent `apiVersion`
/// and `kind` and empty `annotations` are omitted when written. Reading ignores
/// every other field (servers send e.g. `"spec":{}`); `metadata.resourceVersion`
/// is required.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bookmark {
    /// The object's `apiVersion`, if sent.
    pub api_version: Option<String>,
    /// The object's `kind`, if sent.
    pub kind: Option<String>,
    /// `metadata.resourceVersion`: where to resume the watch.
    pub resource_version: String,
    /// `metadata.annotations`, e.g. `k8s.io/initial-events-end: "true"`.
    pub annotations: BTreeMap<String, String>,
}

#[derive(Serialize)]
struct BookmarkOut<'a> {
    #[serde(rename = "apiVersion", skip_serializing_if = "Option::is_none")]
    api_version: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'a str>,
    metadata: BookmarkMetaOut<'a>,
}

#[derive(Serialize)]
struct BookmarkMetaOut<'a> {
    #[serde(rename = "resourceVersion")]
    resource_version: &'a str,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    annotations: &'a BTreeMap<String, String>,
}

/// Private wire shapes, named so that serde's messages read
/// "expected struct Bookmark" / "expected struct ObjectMeta".
mod wire {
    use std::collections::BTreeMap;

    use serde::Deserialize;

    #[derive(Deserialize)]
    pub(super) struct Bookmark {
        #[serde(rename = "apiVersion", default)]
        pub(super) api_version: Option<String>,
        #[serde(default)]
        pub(super) kind: Option<String>,
        pub(super) metadata: ObjectMeta,
    }

    #[derive(Deserialize)]
    pub(super) struct ObjectMeta {
        #[serde(rename = "resourceVersion")]
        pub(super) resource_version: String,
        #[serde(default)]
        pub(super) annotations: Option<BTreeMap<String, String>>,
    }
}

impl Serialize for Bookmark {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        BookmarkOut {
            api_version: self.api_version.as_deref(),
            kind: self.kind.as_deref(),
            metadata: BookmarkMetaOut {
                resource_version: &self.resource_version,
                annotations: &self.annotations,
            },
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Bookmark {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire::Bookmark {
            api_version,
            kind,
            metadata,
        } = wire::Bookmark::deserialize(deserializer)?;
        Ok(Self {
            api_version,
            kind,
            resource_version: metadata.resource_version,
            annotations: metadata.annotations.unwrap_or_default(),
        })
    }
}

/// A watch event's `type`.
#[derive(Clone)]
enum EventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
    Other(String),
}

impl<'de> Deserialize<'de> for EventType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EventTypeVisitor;

        impl Visitor<'_> for EventTypeVisitor {
            type Value = EventType;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a watch event type string such as \"ADDED\"")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<EventType, E> {
                match v {
                    "ADDED" => Ok(EventType::Added),
                    "MODIFIED" => Ok(EventType::Modified),
                    "DELETED" => Ok(EventType::Deleted),
                    "BOOKMARK" => Ok(EventType::Bookmark),
                    "ERROR" => Ok(EventType::Error),
                    other => Ok(EventType::Other(other.to_owned())),
                }
            }
        }

        deserializer.deserialize_str(EventTypeVisitor)
    }
}

/// A key of the event object.
enum EventKey {
    Type,
    Object,
    Other,
}

impl<'de> Deserialize<'de> for EventKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EventKeyVisitor;

        impl Visitor<'_> for EventKeyVisitor {
            type Value = EventKey;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<EventKey, E> {
                Ok(match v {
                    "type" => EventKey::Type,
                    "object" => EventKey::Object,
                    _ => EventKey::Other,
                })
            }
        }

        deserializer.deserialize_identifier(EventKeyVisitor)
    }
}

/// Reads an event's `object` once its `type` is known.
struct ObjectSeed<T, S> {
    event_type: EventType,
    _types: PhantomData<fn() -> (T, S)>,
}

impl<'de, T: Deserialize<'de>, S: Deserialize<'de>> DeserializeSeed<'de> for ObjectSeed<T, S> {
    type Value = WatchEvent<T, S>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        Ok(match self.event_type {
            EventType::Added => WatchEvent::Added(T::deserialize(d)?),
            EventType::Modified => WatchEvent::Modified(T::deserialize(d)?),
            EventType::Deleted => WatchEvent::Deleted(T::deserialize(d)?),
            EventType::Bookmark => WatchEvent::Bookmark(Bookmark::deserialize(d)?),
            EventType::Error => WatchEvent::Error(S::deserialize(d)?),
            EventType::Other(event_type) => WatchEvent::Other {
                event_type,
                object: serde_json::Value::deserialize(d)?,
            },
        })
    }
}

struct EventVisitor<T, S>(PhantomData<fn() -> (T, S)>);

impl<'de, T: Deserialize<'de>, S: Deserialize<'de>> Visitor<'de> for EventVisitor<T, S> {
    type Value = WatchEvent<T, S>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a watch event object {\"type\": …, \"object\": …}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut event_type: Option<EventType> = None;
        let mut event: Option<WatchEvent<T, S>> = None;
        let mut buffered: Option<serde_json::Value> = None;
        while let Some(key) = map.next_key::<EventKey>()? {
            match key {
                EventKey::Type => {
                    if event_type.is_some() {
                        return Err(de::Error::duplicate_field("type"));
                    }
                    event_type = Some(map.next_value()?);
                }
                EventKey::Object => {
                    if event.is_some() || buffered.is_some() {
                        return Err(de::Error::duplicate_field("object"));
                    }
                    match &event_type {
                        Some(event_type) => {
                            event = Some(map.next_value_seed(ObjectSeed {
                                event_type: event_type.clone(),
                                _types: PhantomData,
                            })?);
                        }
                        None => buffered = Some(map.next_value()?),
                    }
                }
                EventKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let event_type = event_type.ok_or_else(|| de::Error::missing_field("type"))?;
        if let Some(event) = event {
            return Ok(event);
        }
        let object = buffered.ok_or_else(|| de::Error::missing_field("object"))?;
        ObjectSeed {
            event_type,
            _types: PhantomData,
        }
        .deserialize(object)
        .map_err(de::Error::custom)
    }
}

impl<'de, T: Deserialize<'de>, S: Deserialize<'de>> Deserialize<'de> for WatchEvent<T, S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EventVisitor(PhantomData))
    }
}

impl Bookmark {
    /// The annotation a server puts on the bookmark that ends the initial events of a watch
    /// with `sendInitialEvents=true`.
    pub const INITIAL_EVENTS_END: &'static str = "k8s.io/initial-events-end";

    /// Whether this bookmark ends the initial events (the current state, sent first when
    /// the watch asked for `sendInitialEvents=true`): from here on, events are changes.
    ///
    /// See <https://kubernetes.io/docs/reference/using-api/api-concepts/#streaming-lists>.
    #[must_use]
    pub fn is_initial_events_end(&self) -> bool {
        self.annotations
            .get(Self::INITIAL_EVENTS_END)
            .is_some_and(|value| value == "true")
    }
}

/// Decodes a watch response as it arrives: feed it each chunk of the body, get the events
/// completed so far. A server writes one JSON object per event (with a newline after each,
/// which is not relied upon), and chunks split them anywhere, inside a string or an escape
/// included: the decoder keeps the unfinished tail and scans each byte once, so a long
/// watch costs time in proportion to its bytes and memory in proportion to its largest
/// event.
///
/// Made with the response's status: for an error status the body is not a stream but one
/// `Status` (or a proxy's text), which [`finish`](Self::finish) returns as the error.
/// An expired resource version comes as an `ERROR` event carrying a `Status` with code 410
/// (`Expired`) inside a 200 stream, since the status line is already sent; relist then.
///
/// ```
/// use kubeforge_runtime::http::StatusCode;
/// use kubeforge_runtime::{WatchDecoder, WatchEvent};
///
/// let mut decoder = WatchDecoder::<serde_json::Value, serde_json::Value>::new(StatusCode::OK);
/// assert!(decoder.feed(br#"{"type":"ADDED","object":{"kind":"Pod","metadata":{"na"#).is_empty());
/// for event in decoder.feed(b"me\":\"a\"}}}\n") {
///     assert!(matches!(event?, WatchEvent::Added(_)));
/// }
/// decoder.finish()?;
/// # Ok::<(), kubeforge_runtime::ResponseError<serde_json::Value>>(())
/// ```
#[derive(Debug)]
pub struct WatchDecoder<T, S = serde_json::Value> {
    status: http::StatusCode,
    buffer: Vec<u8>,
    /// How much of `buffer` has been scanned.
    scanned: usize,
    /// Where the event being read starts in `buffer`, once its `{` is seen.
    start: Option<usize>,
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// Whether the last byte between events was neither whitespace nor `{`.
    stray: bool,
    _types: PhantomData<fn() -> (T, S)>,
}

impl<T: de::DeserializeOwned, S: de::DeserializeOwned> WatchDecoder<T, S> {
    /// A decoder for a response with this status.
    #[must_use]
    pub fn new(status: http::StatusCode) -> Self {
        WatchDecoder {
            status,
            buffer: Vec::new(),
            scanned: 0,
            start: None,
            depth: 0,
            in_string: false,
            escaped: false,
            stray: false,
            _types: PhantomData,
        }
    }

    /// Reads the next chunk of the body and returns what it completes, in order: each event,
    /// or [`ResponseError::Decode`] for a complete event that is not a `WatchEvent<T, S>`
    /// and for anything between events that is not whitespace (one error per stray byte
    /// run). Decoding goes on after an error.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Result<WatchEvent<T, S>, ResponseError<S>>> {
        self.buffer.extend_from_slice(chunk);
        if !self.status.is_success() {
            self.scanned = self.buffer.len();
            return Vec::new();
        }
        let status = self.status;
        let decode = |error| ResponseError::Decode { status, error };
        let mut events = Vec::new();
        let mut consumed = 0;
        let mut i = self.scanned;
        while i < self.buffer.len() {
            let byte = self.buffer[i];
            match self.start {
                None => match byte {
                    b' ' | b'\t' | b'\r' | b'\n' => {
                        consumed = i + 1;
                        self.stray = false;
                    }
                    b'{' => {
                        self.start = Some(i);
                        self.depth = 1;
                        self.stray = false;
                    }
                    _ => {
                        // Not an object: let serde_json say what it is, once per run of
                        // such bytes, and skip the byte.
                        if !self.stray {
                            let error =
                                serde_json::from_slice::<WatchEvent<T, S>>(&self.buffer[i..])
                                    .err()
                                    .map_or(DecodeError::Incomplete(0), DecodeError::Json);
                            events.push(Err(decode(error)));
                        }
                        self.stray = true;
                        consumed = i + 1;
                    }
                },
                Some(_) if self.in_string => {
                    if self.escaped {
                        self.escaped = false;
                    } else if byte == b'\\' {
                        self.escaped = true;
                    } else if byte == b'"' {
                        self.in_string = false;
                    }
                }
                Some(start) => match byte {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => {
                        self.depth -= 1;
                        if self.depth == 0 {
                            events.push(
                                serde_json::from_slice(&self.buffer[start..=i])
                                    .map_err(|e| decode(DecodeError::Json(e))),
                            );
                            self.start = None;
                            consumed = i + 1;
                        }
                    }
                    _ => {}
                },
            }
            i += 1;
        }
        self.buffer.drain(..consumed);
        self.scanned = self.buffer.len();
        if let Some(start) = &mut self.start {
            *start -= consumed;
        }
        events
    }

    /// Ends the stream.
    ///
    /// # Errors
    ///
    /// For an error status, the error its body holds ([`ResponseError::Status`] with the
    /// server's `Status`, or [`ResponseError::UnexpectedStatus`] with the body as text);
    /// for a success, [`ResponseError::Decode`] with [`DecodeError::Incomplete`] when the
    /// stream ended inside an event.
    pub fn finish(self) -> Result<(), ResponseError<S>> {
        if !self.status.is_success() {
            return Err(crate::response::error(self.status, &self.buffer));
        }
        match self.start {
            None => Ok(()),
            Some(start) => Err(ResponseError::Decode {
                status: self.status,
                error: DecodeError::Incomplete(self.buffer.len() - start),
            }),
        }
    }
}
