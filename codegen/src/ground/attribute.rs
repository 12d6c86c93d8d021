//! A user's attributes (`Config::type_attribute`, `Config::field_attribute`,
//! `Config::derive`), parsed when they are configured, as typify parses its settings: Rust's
//! own parser (syn) checks the text once, and prettyplease spells it once, as it prints
//! attributes on an item or a field (so a long attribute wraps as it always has, and any
//! attribute Rust accepts is written). Emit then only places the spelled lines: it holds no
//! token streams.

use syn::parse::Parser as _;

/// Where an attribute goes: on an item, or on a struct's field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Item,
    Field,
}

/// One attribute text a user gave, checked and spelled for its place.
#[derive(Clone, Debug)]
pub struct UserAttribute {
    text: String,
    parsed: Result<Spelled, String>,
}

#[derive(Clone, Debug)]
struct Spelled {
    /// Lines at indentation zero, each ending with a newline.
    lines: String,
    /// Whether one of the attributes is `#[serde(…)]`, which only serde's derive reads.
    serde: bool,
}

impl UserAttribute {
    /// Parses `text` (one or more outer attributes) for `place`. A text that is not an
    /// attribute is kept with syn's reason, reported when the configuration is used.
    pub fn parse(text: impl Into<String>, place: Place) -> UserAttribute {
        let text = text.into();
        let parsed = match syn::Attribute::parse_outer.parse_str(&text) {
            Ok(attributes) if !attributes.is_empty() => Ok(Spelled {
                lines: spell(&text, place),
                serde: attributes.iter().any(|a| a.path().is_ident("serde")),
            }),
            Ok(_) => Err(String::new()),
            Err(e) => Err(format!(": {e}")),
        };
        UserAttribute { text, parsed }
    }

    /// The text as the user gave it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The attribute's lines at indentation zero, each ending with a newline; or, when the
    /// text is not an attribute, why (empty, or `": "` and syn's reason).
    pub fn lines(&self) -> Result<&str, &str> {
        match &self.parsed {
            Ok(spelled) => Ok(&spelled.lines),
            Err(problem) => Err(problem),
        }
    }

    /// Whether it holds a `#[serde(…)]` attribute.
    pub fn is_serde(&self) -> bool {
        self.parsed.as_ref().is_ok_and(|spelled| spelled.serde)
    }
}

/// The one spelling of attributes `text` (checked to parse): formatted by prettyplease as it
/// formats them on an item or a field, as lines at indentation zero, each ending with a
/// newline.
pub fn spell(text: &str, place: Place) -> String {
    let source = match place {
        Place::Item => format!("{text}\nstruct S;"),
        Place::Field => format!("struct S {{\n{text}\nf: () }}"),
    };
    let Ok(file) = syn::parse_file(&source) else {
        // Checked to be attributes; never reached.
        return format!("{text}\n");
    };
    let printed = prettyplease::unparse(&file);
    let mut out = String::new();
    for line in printed.lines() {
        let line = match place {
            Place::Item if line == "struct S;" => break,
            Place::Item => line,
            Place::Field if line == "struct S {" => continue,
            Place::Field if line == "    f: ()," => break,
            Place::Field => line.strip_prefix("    ").unwrap_or(line),
        };
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Place, UserAttribute};

    #[test]
    fn attributes_are_checked_and_spelled_once() {
        let derive = UserAttribute::parse("#[derive( Hash )]", Place::Item);
        assert_eq!(derive.lines(), Ok("#[derive(Hash)]\n"));
        assert!(!derive.is_serde());
        let serde = UserAttribute::parse("#[serde(default)]", Place::Field);
        assert_eq!(serde.lines(), Ok("#[serde(default)]\n"));
        assert!(serde.is_serde());
        assert_eq!(UserAttribute::parse("", Place::Item).lines(), Err(""));
        let broken = UserAttribute::parse("derive(Hash)", Place::Item);
        assert!(broken.lines().unwrap_err().starts_with(": "), "{broken:?}");
        assert_eq!(broken.text(), "derive(Hash)");
    }
}
