//! The `fieldValidation` directive of a write: what to do with unknown and duplicate
//! fields, and the refusal of a value the API server does not know.

use kubeforge_runtime::schema::{BadValue, FieldError};

/// The `fieldValidation` directive of a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Directive {
    /// Unknown and duplicate fields are dropped without a word.
    Ignore,
    /// Each is a `Warning` header (the API server's default).
    Warn,
    /// They refuse the write.
    Strict,
}

/// The values `fieldValidation` takes (`ValidateFieldValidation`'s set, sorted).
const DIRECTIVES: [&str; 4] = ["", "Ignore", "Strict", "Warn"];

impl Directive {
    /// The directive a request's `fieldValidation` names (absent or empty: `Warn`); `None`
    /// for a value the API server refuses (see [`check_directive`]).
    pub(crate) fn of(value: Option<&str>) -> Option<Directive> {
        match value.unwrap_or("") {
            "" | "Warn" => Some(Directive::Warn),
            "Ignore" => Some(Directive::Ignore),
            "Strict" => Some(Directive::Strict),
            _ => None,
        }
    }
}

/// The `fieldValidation` error of the request options (`ValidateFieldValidation`), as the
/// `(reason, message)` of a cause on the field `fieldValidation`.
pub(crate) fn check_directive(value: Option<&str>) -> Option<(&'static str, String)> {
    let value = value.unwrap_or("");
    if DIRECTIVES.contains(&value) {
        return None;
    }
    let supported: Vec<String> = DIRECTIVES.iter().map(|d| (*d).to_owned()).collect();
    let error = FieldError::not_supported("fieldValidation", BadValue::from(value), &supported);
    Some((error.reason(), error.body()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_and_their_refusal() {
        assert_eq!(Directive::of(None), Some(Directive::Warn));
        assert_eq!(Directive::of(Some("Strict")), Some(Directive::Strict));
        assert_eq!(Directive::of(Some("strict")), None);
        assert_eq!(check_directive(Some("Ignore")), None);
        assert_eq!(
            check_directive(Some("strict")),
            Some((
                "FieldValueNotSupported",
                r#"Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn""#
                    .to_owned()
            ))
        );
    }
}
