//! apimachinery's name and label checks (`pkg/util/validation`, `pkg/api/validation`), with
//! their exact messages: object names (DNS-1123 subdomain or label), label keys and
//! values. The in-memory server validates object names with them; CEL's `format` library
//! returns their messages.

const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

/// `MaxLenError`.
fn max_len(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `RegexError`.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    // Go appends "', " after each example and " or " before the next: two spaces.
    let quoted: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!(
        "{msg} (e.g. {}regex used for validation is '{fmt}')",
        quoted.join(" or ")
    )
}

/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$` (first: `[a-z]` for DNS-1035).
fn is_label(s: &str, letter_first: bool) -> bool {
    let b = s.as_bytes();
    let inner = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-';
    let end = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match b {
        [] => false,
        [only] => {
            if letter_first {
                only.is_ascii_lowercase()
            } else {
                end(only)
            }
        }
        [first, mid @ .., last] => {
            (if letter_first {
                first.is_ascii_lowercase()
            } else {
                end(first)
            }) && mid.iter().all(inner)
                && end(last)
        }
    }
}

fn is_subdomain(s: &str) -> bool {
    s.split('.').all(|l| is_label(l, false))
}

/// `IsDNS1123Label`.
#[must_use]
pub fn is_dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len(63));
    }
    if !is_label(value, false) {
        if is_subdomain(value) {
            errs.push("must not contain dots".to_owned());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_MSG,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `IsDNS1123Subdomain`.
#[must_use]
pub fn is_dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push(max_len(253));
    }
    if !is_subdomain(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `IsDNS1035Label`.
#[must_use]
pub fn is_dns1035_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len(63));
    }
    if !is_label(value, true) {
        errs.push(regex_error(
            DNS1035_LABEL_MSG,
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `maskTrailingDash`: a generated name's prefix may end with `-`.
fn mask_trailing_dash(name: &str) -> String {
    if name.len() > 1 && name.ends_with('-') {
        // Go cuts bytes (and so the character before the dash, which may be multi-byte).
        let cut = &name.as_bytes()[..name.len() - 2];
        format!("{}a", String::from_utf8_lossy(cut))
    } else {
        name.to_owned()
    }
}

/// `NameIsDNSLabel` (`prefix`: a `generateName`).
#[must_use]
pub fn name_is_dns_label(name: &str, prefix: bool) -> Vec<String> {
    is_dns1123_label(&if prefix {
        mask_trailing_dash(name)
    } else {
        name.to_owned()
    })
}

/// `NameIsDNSSubdomain`, the rule for most object names.
#[must_use]
pub fn name_is_dns_subdomain(name: &str, prefix: bool) -> Vec<String> {
    is_dns1123_subdomain(&if prefix {
        mask_trailing_dash(name)
    } else {
        name.to_owned()
    })
}

/// `NameIsDNS1035Label`.
#[must_use]
pub fn name_is_dns1035_label(name: &str, prefix: bool) -> Vec<String> {
    is_dns1035_label(&if prefix {
        mask_trailing_dash(name)
    } else {
        name.to_owned()
    })
}

fn is_label_key_name(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_alphanumeric();
    match b {
        [] => false,
        [only] => alnum(only),
        [first, mid @ .., last] => {
            alnum(first)
                && alnum(last)
                && mid
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
    }
}

/// `IsQualifiedName` (a label key): an optional DNS subdomain prefix and `/`, then a name.
#[must_use]
pub fn is_qualified_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_owned());
            } else {
                errs.extend(
                    is_dns1123_subdomain(prefix)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len(63)));
    }
    if !is_label_key_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                LABEL_KEY_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// `IsValidLabelValue`.
#[must_use]
pub fn is_valid_label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len(63));
    }
    if !value.is_empty() && !is_label_key_name(value) {
        errs.push(regex_error(
            LABEL_VALUE_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// `path.IsValidPathSegmentName`: a name that can be one segment of a path (the rule of
/// RBAC objects' names, `system:aggregate-to-admin`): not `.` or `..`, without `/` or `%`.
#[must_use]
pub fn is_valid_path_segment_name(name: &str) -> Vec<String> {
    if let Some(illegal) = [".", ".."].into_iter().find(|n| *n == name) {
        return vec![format!("may not be '{illegal}'")];
    }
    ["/", "%"]
        .into_iter()
        .filter(|c| name.contains(c))
        .map(|c| format!("may not contain '{c}'"))
        .collect()
}

/// `ValidateObjectMetaAccessor`'s checks of `metadata.generateName` and `metadata.name`
/// with the resource's name rule (`label`: DNS-1123 label, else subdomain): one error per
/// message. The server generates a name from `generateName` before validating.
#[must_use]
pub fn object_name_errors(name: &str, generate_name: &str, label: bool) -> Vec<super::FieldError> {
    object_name_errors_with(name, generate_name, &|n: &str, prefix: bool| {
        if label {
            name_is_dns_label(n, prefix)
        } else {
            name_is_dns_subdomain(n, prefix)
        }
    })
}

/// [`object_name_errors`] with any of apimachinery's name rules (`rule(name, prefix)`, a
/// `ValidateNameFunc`: [`name_is_dns_subdomain`], [`name_is_dns_label`],
/// [`name_is_dns1035_label`], …).
#[must_use]
pub fn object_name_errors_with(
    name: &str,
    generate_name: &str,
    rule: &dyn Fn(&str, bool) -> Vec<String>,
) -> Vec<super::FieldError> {
    let mut errors = Vec::new();
    if !generate_name.is_empty() {
        errors.extend(rule(generate_name, true).into_iter().map(|m| {
            super::FieldError::invalid(
                "metadata.generateName",
                super::BadValue::from(generate_name),
                m,
            )
        }));
    }
    if name.is_empty() {
        errors.push(super::FieldError::required(
            "metadata.name",
            "name or generateName is required",
        ));
    } else {
        errors.extend(
            rule(name, false).into_iter().map(|m| {
                super::FieldError::invalid("metadata.name", super::BadValue::from(name), m)
            }),
        );
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_apimachinery() {
        assert!(name_is_dns_subdomain("my-config.v1", false).is_empty());
        assert_eq!(
            name_is_dns_subdomain("BAD_NAME", false),
            vec!["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_owned()]
        );
        assert_eq!(
            is_dns1123_label("a.b"),
            vec!["must not contain dots".to_owned()]
        );
        assert!(is_dns1123_label("my-name").is_empty());
        assert!(name_is_dns_label("gen-", true).is_empty());
        assert_eq!(is_dns1123_label(&"a".repeat(64)), vec![max_len(63)]);
        assert!(is_qualified_name("example.com/MyName").is_empty());
        assert_eq!(
            is_qualified_name("/x"),
            vec!["prefix part must be non-empty".to_owned()]
        );
        assert!(is_valid_label_value("").is_empty());
        assert!(!is_valid_label_value("-x").is_empty());
        assert!(!is_dns1035_label("1abc").is_empty());
        assert_eq!(
            object_name_errors("BAD_NAME", "", false)[0].to_string(),
            "metadata.name: Invalid value: \"BAD_NAME\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
        );
        assert_eq!(
            object_name_errors("", "", true)[0].to_string(),
            "metadata.name: Required value: name or generateName is required"
        );
        assert!(object_name_errors("web-x1", "web-", true).is_empty());
        assert!(
            !name_is_dns_label("é-", true).is_empty(),
            "no panic on a multi-byte character"
        );
        assert_eq!(object_name_errors("", "Web-", true).len(), 2);
        assert!(is_valid_path_segment_name("system:aggregate-to-admin").is_empty());
        assert_eq!(is_valid_path_segment_name(".."), vec!["may not be '..'"]);
        assert_eq!(
            is_valid_path_segment_name("a/b%c"),
            vec!["may not contain '/'", "may not contain '%'"]
        );
        let dns1035 = object_name_errors_with("1abc", "", &name_is_dns1035_label);
        assert_eq!(
            dns1035[0].to_string(),
            "metadata.name: Invalid value: \"1abc\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
        );
    }
}
