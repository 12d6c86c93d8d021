//! `apiVersion` and `kind` field markers.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::TypeMeta;

/// Reads one string that must equal `expected` exactly.
struct ConstStrVisitor {
    field: &'static str,
    expected: &'static str,
}

impl Visitor<'_> for ConstStrVisitor {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the string {:?}", self.expected)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        if v == self.expected {
            Ok(())
        } else {
            Err(E::custom(format_args!(
                "invalid {} {:?}: expected {:?}",
                self.field, v, self.expected
            )))
        }
    }
}

/// Reads `null` as absent (`false`), or the constant string as present (`true`).
struct OptionalConstStr(ConstStrVisitor);

impl<'de> Visitor<'de> for OptionalConstStr {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)?;
        f.write_str(" or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_str(self.0).map(|()| true)
    }
}

macro_rules! type_marker {
    (
        $(#[$meta:meta])*
        $name:ident, field = $field:literal, constant = $constant:ident $(,)?
    ) => {
        $(#[$meta])*
        pub struct $name<T> {
            present: bool,
            _type: PhantomData<fn() -> T>,
        }

        impl<T> $name<T> {
            /// The field as present: it is written on serialization.
            pub const fn present() -> Self {
                Self { present: true, _type: PhantomData }
            }

            /// The field as absent: it is skipped on serialization (through
            /// `skip_serializing_if = "…::is_absent"`).
            pub const fn absent() -> Self {
                Self { present: false, _type: PhantomData }
            }

            /// Whether the field was missing from the input (or built absent).
            pub const fn is_absent(&self) -> bool {
                !self.present
            }

            /// Whether the field is present.
            pub const fn is_present(&self) -> bool {
                self.present
            }
        }

        impl<T: TypeMeta> $name<T> {
            #[doc = concat!("The constant written on the wire: `T::", stringify!($constant), "`.")]
            pub const fn as_str(&self) -> &'static str {
                T::$constant
            }
        }

        impl<T> Default for $name<T> {
            /// Present, so `#[derive(Default)]` resources carry their type.
            fn default() -> Self {
                Self::present()
            }
        }

        impl<T> Clone for $name<T> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<T> Copy for $name<T> {}

        impl<T> fmt::Debug for $name<T> {
            /// `ApiVersion(present)` or `ApiVersion(absent)` (and so for `Kind`).
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let state = if self.present { "present" } else { "absent" };
                write!(f, concat!(stringify!($name), "({})"), state)
            }
        }

        impl<T> PartialEq for $name<T> {
            fn eq(&self, other: &Self) -> bool {
                self.present == other.present
            }
        }

        impl<T> Eq for $name<T> {}

        impl<T> PartialOrd for $name<T> {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }

        impl<T> Ord for $name<T> {
            /// Absent sorts before present.
            fn cmp(&self, other: &Self) -> Ordering {
                self.present.cmp(&other.present)
            }
        }

        impl<T> Hash for $name<T> {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.present.hash(state);
            }
        }

        impl<T: TypeMeta> Serialize for $name<T> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(T::$constant)
            }
        }

        impl<'de, T: TypeMeta> de::Deserialize<'de> for $name<T> {
            /// `null` reads as absent, like a missing key (the one normalization of optional
            /// fields); any string but the constant is an error.
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let present = deserializer.deserialize_option(OptionalConstStr(ConstStrVisitor {
                    field: $field,
                    expected: T::$constant,
                }))?;
                Ok(if present { Self::present() } else { Self::absent() })
            }
        }
    };
}

type_marker! {
    /// The `apiVersion` field of a generated kind `T`: a presence flag, no data.
    ///
    /// Wire form: the JSON string `T::API_VERSION`, e.g.
    /// `"coordination.k8s.io/v1"`. Reading any other string is an error such
    /// as `invalid apiVersion "v2": expected "coordination.k8s.io/v1"`.
    /// Generated fields use
    /// `default = "::kubeforge_runtime::ApiVersion::absent"` and
    /// `skip_serializing_if = "::kubeforge_runtime::ApiVersion::is_absent"`, so
    /// a missing key reads as absent and stays missing when written back.
    /// [`Default`] is present, so constructed values carry their apiVersion.
    ApiVersion, field = "apiVersion", constant = API_VERSION,
}

type_marker! {
    /// The `kind` field of a generated kind `T`: a presence flag, no data.
    ///
    /// Wire form: the JSON string `T::KIND`, e.g. `"Lease"`. Reading any other
    /// string is an error such as `invalid kind "Pod": expected "Lease"`.
    /// Generated fields use `default = "::kubeforge_runtime::Kind::absent"` and
    /// `skip_serializing_if = "::kubeforge_runtime::Kind::is_absent"`, so a
    /// missing key reads as absent and stays missing when written back.
    /// [`Default`] is present, so constructed values carry their kind.
    Kind, field = "kind", constant = KIND,
}
