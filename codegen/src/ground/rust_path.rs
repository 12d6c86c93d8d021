//! Rust paths a user gives (`Config::root_path`, `Config::runtime_path`,
//! `Config::map_type`, an extern type's path): checked to be a path once, and spelled the one
//! way the generated code writes them (`a::B<c::D, E>`, no spaces around `::`, `<`, `>`).

/// `text` spelled as generated code writes it, when it is a Rust path (generic arguments
/// allowed); `Err` with syn's reason otherwise.
pub fn spell(text: &str) -> Result<String, String> {
    // One made of plain segments (nearly every one) is spelled as it is.
    let plain = text
        .split("::")
        .enumerate()
        .all(|(i, segment)| (i == 0 && segment.is_empty()) || is_segment(segment));
    let parsed = syn::parse_str::<syn::Path>(text).map_err(|e| e.to_string())?;
    if plain {
        return Ok(text.to_owned());
    }
    Ok(unspaced(
        &quote::ToTokens::to_token_stream(&parsed).to_string(),
    ))
}

/// Whether `segment` is an identifier (keywords such as `crate` included: syn decides).
fn is_segment(segment: &str) -> bool {
    let mut chars = segment.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A token stream's spelling without the spaces it puts around `::`, `<`, `>` and before `,`.
fn unspaced(spaced: &str) -> String {
    let mut out = String::with_capacity(spaced.len());
    let mut chars = spaced.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ' ' {
            let prev = out.chars().last();
            let next = chars.peek().copied();
            let glued =
                matches!(prev, Some(':' | '<')) || matches!(next, Some(':' | '<' | '>' | ','));
            if glued {
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::spell;

    #[test]
    fn paths_are_spelled_without_token_spaces() {
        for (given, spelled) in [
            ("::kubeforge_runtime", "::kubeforge_runtime"),
            ("crate::k8s", "crate::k8s"),
            ("a::B<c::D, E>", "a::B<c::D, E>"),
            ("a :: B < c :: D ,E >", "a::B<c::D, E>"),
            ("crate", "crate"),
            ("::std::collections::HashMap", "::std::collections::HashMap"),
        ] {
            assert_eq!(spell(given).as_deref(), Ok(spelled), "{given}");
        }
        for bad in ["", "a::", "a b", "1a", "a::<"] {
            assert!(spell(bad).is_err(), "{bad}");
        }
    }
}
