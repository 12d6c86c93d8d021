//! Tests for `kubeforge_runtime::string_enum`, with an enum written exactly as
//! the generator emits it.

use std::cell::Cell;

use serde::Deserialize;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReferencePolicyType {
    Local,
    Source,
    /// A value this version does not know.
    Other(String),
}

thread_local! {
    static UNKNOWN_CONVERSIONS: Cell<usize> = const { Cell::new(0) };
}

impl ReferencePolicyType {
    pub fn as_str(&self) -> &str {
        match self {
            Self::Local => "Local",
            Self::Source => "Source",
            Self::Other(s) => s,
        }
    }
}

impl From<&str> for ReferencePolicyType {
    fn from(s: &str) -> Self {
        match s {
            "Local" => Self::Local,
            "Source" => Self::Source,
            _ => {
                UNKNOWN_CONVERSIONS.with(|c| c.set(c.get() + 1));
                Self::Other(s.to_owned())
            }
        }
    }
}

impl ::serde::Serialize for ReferencePolicyType {
    fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> ::serde::Deserialize<'de> for ReferencePolicyType {
    fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ::kubeforge_runtime::string_enum::deserialize(d)
    }
}

fn from_json<T: for<'de> Deserialize<'de>>(s: &str) -> Result<T, String> {
    serde_json::from_str(s).map_err(|e| e.to_string())
}

#[test]
fn known_values() {
    assert_eq!(
        from_json::<ReferencePolicyType>(r#""Local""#).unwrap(),
        ReferencePolicyType::Local
    );
    assert_eq!(
        from_json::<ReferencePolicyType>(r#""Source""#).unwrap(),
        ReferencePolicyType::Source
    );
    assert_eq!(
        serde_json::to_string(&ReferencePolicyType::Local).unwrap(),
        r#""Local""#
    );
}

#[test]
fn unknown_values_are_kept() {
    let v: ReferencePolicyType = from_json(r#""Remote""#).unwrap();
    assert_eq!(v, ReferencePolicyType::Other("Remote".into()));
    assert_eq!(serde_json::to_string(&v).unwrap(), r#""Remote""#);
    // Case-sensitive, like Kubernetes.
    assert_eq!(
        from_json::<ReferencePolicyType>(r#""local""#).unwrap(),
        ReferencePolicyType::Other("local".into())
    );
    assert_eq!(
        from_json::<ReferencePolicyType>(r#""""#).unwrap(),
        ReferencePolicyType::Other(String::new())
    );
}

#[test]
fn escaped_and_owned_strings_work() {
    // An escape makes serde_json hand over a transient `&str`, not a borrow.
    assert_eq!(
        from_json::<ReferencePolicyType>(r#""Loc\u0061l""#).unwrap(),
        ReferencePolicyType::Local
    );
    // `from_value` hands over an owned `String`.
    assert_eq!(
        serde_json::from_value::<ReferencePolicyType>(serde_json::json!("Source")).unwrap(),
        ReferencePolicyType::Source
    );
    assert_eq!(
        serde_json::from_value::<ReferencePolicyType>(serde_json::json!("X")).unwrap(),
        ReferencePolicyType::Other("X".into())
    );
    // From a reader: no borrowing possible at all.
    assert_eq!(
        serde_json::from_reader::<_, ReferencePolicyType>(&br#""Local""#[..]).unwrap(),
        ReferencePolicyType::Local
    );
}

#[test]
fn each_value_is_converted_once() {
    UNKNOWN_CONVERSIONS.with(|c| c.set(0));
    let _: ReferencePolicyType = from_json(r#""Remote""#).unwrap();
    let _: ReferencePolicyType = serde_json::from_value(serde_json::json!("Remote")).unwrap();
    assert_eq!(UNKNOWN_CONVERSIONS.with(Cell::get), 2);
}

#[test]
fn non_strings_are_rejected() {
    for bad in [
        "5",
        "1.5",
        "null",
        "true",
        "[]",
        r#"["Local"]"#,
        r#"{"Local":null}"#,
    ] {
        let err = from_json::<ReferencePolicyType>(bad).unwrap_err();
        assert!(err.contains("expected a string"), "{bad}: {err}");
    }
}

#[test]
fn inside_containers() {
    #[derive(Debug, Deserialize)]
    struct Spec {
        policies: Vec<ReferencePolicyType>,
        #[serde(default)]
        single: Option<ReferencePolicyType>,
    }
    let spec: Spec = from_json(r#"{"policies":["Local","Future"],"single":null}"#).unwrap();
    assert_eq!(
        spec.policies,
        [
            ReferencePolicyType::Local,
            ReferencePolicyType::Other("Future".into())
        ]
    );
    assert_eq!(spec.single, None);
    assert!(from_json::<Spec>(r#"{"policies":[1]}"#).is_err());
}
