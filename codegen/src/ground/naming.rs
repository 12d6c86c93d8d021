//! The one place where JSON names become Rust names. Every identifier in generated code
//! comes from a function here, so the rules are audited once:
//!
//! - fields and modules are `snake_case`, types and variants `UpperCamelCase`;
//! - a Rust keyword gets a trailing `_` (`type` → `type_`), never a raw identifier, so
//!   fields read the same everywhere (`self`, `super` and `crate` cannot be raw anyway);
//! - characters that cannot appear in an identifier separate words (`x-kubernetes-list-type`
//!   → `x_kubernetes_list_type`, `$ref` → `ref_`);
//! - a name that would start with a digit gets a prefix (`_` for snake case, `V` for
//!   variants, `T` for types);
//! - an acronym's plural stays one word (`podIPs` → `pod_ips`, not `pod_i_ps`).
//!
//! Uniqueness is not decided here: [`Namespace`] hands out names within one scope and
//! disambiguates deterministically with numeric suffixes. What is decided here is which
//! names the generated tree declares itself, so that no schema can take them
//! ([`ModuleNames::new`], [`module_path`]).

use std::collections::BTreeSet;

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Strict and reserved keywords of Rust 2024, plus the weak keywords that cannot be used as
/// plain identifiers in all positions.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Names that would shadow the prelude or std items that generated code refers to
/// unqualified inside derives; types with these names get a trailing `_`.
const RESERVED_TYPE_NAMES: &[&str] = &[
    "Option", "Result", "Some", "None", "Ok", "Err", "Box", "Vec", "String",
];

/// The modules the generated root declares itself, besides those made from schemas: the
/// route table's `routes`, and `lib`, since `src/lib/mod.rs` beside a crate's `src/lib.rs`
/// would make `mod lib;` ambiguous. A schema package starting with one of them gets a
/// trailing `_` ([`module_path`]).
const ROOT_MODULES: &[&str] = &[ROUTES_MODULE, "lib"];

/// The module of the route table, at the generated root.
pub const ROUTES_MODULE: &str = "routes";

/// The file stems every module's own file takes (`mod.rs`; `lib.rs` at a crate's root), and
/// at the root also [`ROOT_MODULES`]: a schema's file never takes one (`Routes` is in
/// `routes_2.rs`).
const MODULE_FILES: &[&str] = &["mod", "lib"];

/// The generic builder every builder type is an alias of (`LeaseBuilder = Builder<Lease>`),
/// declared at the generated root.
pub const GENERIC_BUILDER: &str = "Builder";

/// The types the generated root declares itself: the generic builder.
const ROOT_TYPES: &[&str] = &[GENERIC_BUILDER];

fn is_keyword(name: &str) -> bool {
    // No keyword is longer than 8 bytes (`continue`, `abstract`, `override`).
    name.len() <= 8 && KEYWORDS.contains(&name)
}

/// Whether `name` is a plain identifier as this module makes them: ASCII letters, digits
/// and `_`, not starting with a digit, not `_` alone, not a keyword. The check the emitters
/// run over every name before writing it (cheaper than asking `syn`).
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && name != "_"
        && !is_keyword(name)
}

/// Splits `name` into words for case conversion: non-identifier characters separate words,
/// and an upper-case run followed by a lone `s` (an acronym's plural) keeps the `s`.
fn prepare(name: &str) -> String {
    if name.is_ascii() {
        prepare_ascii(name.as_bytes())
    } else {
        prepare_chars(name)
    }
}

/// [`prepare`] of any text, `char` by `char`.
fn prepare_chars(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len());
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii() && c.is_alphanumeric() {
            match transliterate(c) {
                Some(ascii) => out.push_str(ascii),
                // No ASCII reading: the code point, as a word of its own (`U4E2D`).
                None => out.push_str(&format!(" U{:04X} ", u32::from(c))),
            }
        } else if c.is_alphanumeric() {
            let acronym_plural = c == 's'
                && i >= 2
                && chars[i - 1].is_uppercase()
                && chars[i - 2].is_uppercase()
                && chars.get(i + 1).is_none_or(|n| !n.is_lowercase());
            out.push(if acronym_plural { 'S' } else { c });
        } else {
            out.push(' ');
        }
    }
    out
}

/// [`prepare`] of ASCII text, byte by byte (most names; the same result as the loop over
/// `char`s, which costs several times as much).
fn prepare_ascii(name: &[u8]) -> String {
    let mut out = Vec::with_capacity(name.len());
    for (i, &c) in name.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            let acronym_plural = c == b's'
                && i >= 2
                && name[i - 1].is_ascii_uppercase()
                && name[i - 2].is_ascii_uppercase()
                && name.get(i + 1).is_none_or(|n| !n.is_ascii_lowercase());
            out.push(if acronym_plural { b'S' } else { c });
        } else {
            out.push(b' ');
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The words of `text` as heck's case conversions split it (words are runs of
/// alphanumerics, split again before an upper-case letter that follows a lower-case one,
/// and before the last capital of a run of capitals followed by a lower-case letter:
/// `APIServiceList` → `API`, `Service`, `List`), for ASCII text.
fn ascii_words(text: &str) -> Vec<&str> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mode {
        Boundary,
        Lowercase,
        Uppercase,
    }
    let mut words = Vec::new();
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        let bytes = word.as_bytes();
        let mut init = 0;
        let mut mode = Mode::Boundary;
        for (i, &c) in bytes.iter().enumerate() {
            let Some(&next) = bytes.get(i + 1) else {
                words.push(&word[init..]);
                break;
            };
            let next_mode = if c.is_ascii_lowercase() {
                Mode::Lowercase
            } else if c.is_ascii_uppercase() {
                Mode::Uppercase
            } else {
                mode
            };
            if next_mode == Mode::Lowercase && next.is_ascii_uppercase() {
                words.push(&word[init..=i]);
                init = i + 1;
                mode = Mode::Boundary;
            } else if mode == Mode::Uppercase && c.is_ascii_uppercase() && next.is_ascii_lowercase()
            {
                words.push(&word[init..i]);
                init = i;
                mode = Mode::Boundary;
            } else {
                mode = next_mode;
            }
        }
    }
    words
}

/// heck's `to_snake_case`, without its formatting machinery for ASCII text.
fn snake_case(text: &str) -> String {
    if !text.is_ascii() {
        return text.to_snake_case();
    }
    let mut out = String::with_capacity(text.len() + 4);
    for (i, word) in ascii_words(text).into_iter().enumerate() {
        if i > 0 {
            out.push('_');
        }
        out.extend(word.chars().map(|c| c.to_ascii_lowercase()));
    }
    out
}

/// heck's `to_upper_camel_case`, without its formatting machinery for ASCII text.
fn upper_camel_case(text: &str) -> String {
    if !text.is_ascii() {
        return text.to_upper_camel_case();
    }
    let mut out = String::with_capacity(text.len());
    for word in ascii_words(text) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    out
}

/// The ASCII reading of a non-ASCII letter or digit, where there is a usual one: Latin
/// letters without their marks (`é` → `e`, `Å` → `A`, `ß` → `ss`), the micro sign as `u`
/// (`µm` → `um`), Greek letters by name, and the unit signs (`Ω` → `Ohm`, `Å` → `A`).
fn transliterate(c: char) -> Option<&'static str> {
    Some(match c {
        'À'..='Å' | 'Ā' | 'Ă' | 'Ą' | '\u{212B}' => "A",
        'à'..='å' | 'ā' | 'ă' | 'ą' | 'ª' => "a",
        'Æ' => "AE",
        'æ' => "ae",
        'Ç' | 'Ć' | 'Ĉ' | 'Ċ' | 'Č' => "C",
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => "c",
        'Ð' | 'Ď' | 'Đ' => "D",
        'ð' | 'ď' | 'đ' => "d",
        'È'..='Ë' | 'Ē' | 'Ĕ' | 'Ė' | 'Ę' | 'Ě' => "E",
        'è'..='ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => "e",
        'Ĝ' | 'Ğ' | 'Ġ' | 'Ģ' => "G",
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => "g",
        'Ĥ' | 'Ħ' => "H",
        'ĥ' | 'ħ' => "h",
        'Ì'..='Ï' | 'Ĩ' | 'Ī' | 'Ĭ' | 'Į' | 'İ' => "I",
        'ì'..='ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' | 'ı' => "i",
        'Ĵ' => "J",
        'ĵ' => "j",
        'Ķ' => "K",
        'ķ' => "k",
        'Ĺ' | 'Ļ' | 'Ľ' | 'Ŀ' | 'Ł' => "L",
        'ĺ' | 'ļ' | 'ľ' | 'ŀ' | 'ł' => "l",
        'Ñ' | 'Ń' | 'Ņ' | 'Ň' => "N",
        'ñ' | 'ń' | 'ņ' | 'ň' => "n",
        'Ò'..='Ö' | 'Ø' | 'Ō' | 'Ŏ' | 'Ő' => "O",
        'ò'..='ö' | 'ø' | 'ō' | 'ŏ' | 'ő' | 'º' => "o",
        'Œ' => "OE",
        'œ' => "oe",
        'Ŕ' | 'Ŗ' | 'Ř' => "R",
        'ŕ' | 'ŗ' | 'ř' => "r",
        'Ś' | 'Ŝ' | 'Ş' | 'Š' => "S",
        'ś' | 'ŝ' | 'ş' | 'š' => "s",
        'ß' => "ss",
        'Ţ' | 'Ť' | 'Ŧ' => "T",
        'ţ' | 'ť' | 'ŧ' => "t",
        'Þ' => "Th",
        'þ' => "th",
        'Ù'..='Ü' | 'Ũ' | 'Ū' | 'Ŭ' | 'Ů' | 'Ű' | 'Ų' => "U",
        'ù'..='ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => "u",
        'Ŵ' => "W",
        'ŵ' => "w",
        'Ý' | 'Ŷ' | 'Ÿ' => "Y",
        'ý' | 'ÿ' | 'ŷ' => "y",
        'Ź' | 'Ż' | 'Ž' => "Z",
        'ź' | 'ż' | 'ž' => "z",
        'µ' => "u",
        '\u{2126}' => "Ohm",
        'α' | 'Α' => "alpha",
        'β' | 'Β' => "beta",
        'γ' | 'Γ' => "gamma",
        'δ' | 'Δ' => "delta",
        'ε' | 'Ε' => "epsilon",
        'ζ' | 'Ζ' => "zeta",
        'η' | 'Η' => "eta",
        'θ' | 'Θ' => "theta",
        'ι' | 'Ι' => "iota",
        'κ' | 'Κ' => "kappa",
        'λ' | 'Λ' => "lambda",
        'μ' | 'Μ' => "mu",
        'ν' | 'Ν' => "nu",
        'ξ' | 'Ξ' => "xi",
        'ο' | 'Ο' => "omicron",
        'π' | 'Π' => "pi",
        'ρ' | 'Ρ' => "rho",
        'σ' | 'ς' | 'Σ' => "sigma",
        'τ' | 'Τ' => "tau",
        'υ' | 'Υ' => "upsilon",
        'φ' | 'Φ' => "phi",
        'χ' | 'Χ' => "chi",
        'ψ' | 'Ψ' => "psi",
        'ω' | 'Ω' => "omega",
        '²' => "2",
        '³' => "3",
        '¹' => "1",
        _ => return None,
    })
}

/// Restricts to characters valid in identifiers: heck keeps non-ASCII letters, which Rust
/// accepts in identifiers but which are hard to type; each run of them becomes one `_`
/// (`größe` → `gr_e`), since a doubled `_` is neither snake nor camel case to rustc's
/// `non_snake_case` and `non_camel_case_types` lints.
fn ascii_only(name: String) -> String {
    if name.is_ascii() {
        return name;
    }
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        let c = if c.is_ascii_alphanumeric() { c } else { '_' };
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
    }
    if out.chars().all(|c| c == '_') {
        out.clear();
    }
    out
}

/// [`ascii_only`] for camel-case names (types, variants): a run of non-ASCII characters is
/// dropped and the letter after it capitalized (`ÄrgerGrund` → `RgerGrund`, `Über` → `Ber`),
/// since an `_` next to a letter is not camel case to rustc's `non_camel_case_types`.
fn ascii_camel(name: String) -> String {
    if name.is_ascii() {
        return name;
    }
    let mut out = String::with_capacity(name.len());
    let mut dropped = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(if dropped { c.to_ascii_uppercase() } else { c });
            dropped = false;
        } else {
            dropped = true;
        }
    }
    out
}

/// The snake-case form used for fields and modules.
pub fn snake_name(json_name: &str) -> String {
    let mut name = ascii_only(snake_case(&prepare(json_name)));
    name = name.trim_matches('_').to_owned();
    if name.is_empty() {
        name.push_str("value");
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    if is_keyword(&name) {
        name.push('_');
    }
    name
}

/// A method name made of a verb and a field name (`push_` + `env` → `push_env`); a field
/// name's leading `_` (from a leading digit, `_1st`) does not double the separator.
pub fn prefixed_method_name(prefix: &str, field_rust_name: &str) -> String {
    format!("{prefix}_{}", field_rust_name.trim_start_matches('_'))
}

/// The `SCREAMING_SNAKE_CASE` name of a constant named after a JSON name (`labelSelector` →
/// `LABEL_SELECTOR`, `type` → `TYPE_`).
pub fn constant_name(json_name: &str) -> String {
    let snake = snake_name(json_name);
    // Upper-case names are never keywords: `continue` is `CONTINUE`, not `CONTINUE_`.
    let name = match snake.strip_suffix('_') {
        Some(keyword) if is_keyword(keyword) => keyword,
        _ => &snake,
    };
    name.to_ascii_uppercase()
}

/// The field name for a JSON property.
pub fn field_name(json_name: &str) -> String {
    snake_name(json_name)
}

/// The module name for one segment of a schema's package (`coordination`, `v1`,
/// `kube-aggregator`). It is also a directory name, so it is kept short (see
/// [`file_stem`]).
pub fn module_name(segment: &str) -> String {
    shortened(snake_name(segment))
}

/// The module path of a package's segments (`["io", "k8s-x", "v1"]` → `io::k8s_x::v1`):
/// each a [`module_name`], empty segments dropped, and a first one that the generated root
/// declares itself (`routes`, `lib`) given a trailing `_`, so that a schema module can
/// never clash with them.
pub fn module_path<'a>(segments: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut path: Vec<String> = segments
        .into_iter()
        .filter(|s| !s.is_empty())
        .map(module_name)
        .collect();
    if let Some(first) = path.first_mut()
        && ROOT_MODULES.contains(&first.as_str())
    {
        first.push('_');
    }
    path
}

/// The names of one module of the generated tree: its types share one namespace, its files
/// and submodules another.
#[derive(Debug, Default)]
pub struct ModuleNames {
    /// Type names.
    pub types: Namespace,
    /// File stems and submodule names.
    pub files: Namespace,
}

impl ModuleNames {
    /// The names of the module at `module` (empty for the root), with every name the
    /// generator declares there itself already taken: the module's own files, and at the
    /// root the route table's module and the generic builder.
    pub fn new(module: &[String]) -> ModuleNames {
        let mut names = ModuleNames::default();
        for file in MODULE_FILES {
            names.files.reserve(file);
        }
        if module.is_empty() {
            for name in ROOT_MODULES {
                names.files.reserve(name);
            }
            for name in ROOT_TYPES {
                names.types.reserve(name);
            }
        }
        names
    }
}

/// The name of the private function of a generated route matcher that resolves the paths
/// under `prefix`, a path template's leading segments with each parameter written `{}`:
/// `/apis/apps/v1` → `resolve_apis_apps_v1`, `/api/v1/namespaces/{}/pods` →
/// `resolve_api_v1_namespaces_param_pods`. Two prefixes can read alike (`/a.b` and `/a/b`);
/// `distinct` then appends a hash of the prefix itself.
pub fn matcher_function_name(prefix: &str, distinct: bool) -> String {
    let words = prefix.replace("{}", "param");
    let name = shortened(format!("resolve_{}", snake_name(&words)));
    if distinct {
        format!("{name}_{:016x}", fnv1a(prefix))
    } else {
        name
    }
}

/// FNV-1a: stable across platforms and releases, unlike std's hasher.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The longest file or directory name made from a schema name, in bytes, well below the
/// 255 bytes file systems allow, so that staging names and `.rs` fit too.
pub const MAX_FILE_NAME: usize = 100;

/// The name of the file (without `.rs`) of the type `type_name`: its snake case, shortened
/// when over [`MAX_FILE_NAME`] bytes.
pub fn file_stem(type_name: &str) -> String {
    shortened(snake_name(type_name))
}

/// `name` when it fits in [`MAX_FILE_NAME`] bytes; otherwise its start and a hash of the
/// whole name (`very_long_…_name_1a2b3c4d`), so it stays recognisable, deterministic and
/// distinct.
fn shortened(name: String) -> String {
    if name.len() <= MAX_FILE_NAME {
        return name;
    }
    let hash = fnv1a(&name);
    let mut keep = MAX_FILE_NAME - 17;
    while !name.is_char_boundary(keep) {
        keep -= 1;
    }
    format!("{}_{hash:016x}", name[..keep].trim_end_matches('_'))
}

/// The type name for a schema's last name segment. Kubernetes names are already
/// `UpperCamelCase` with acronyms kept (`APIService`, `CSIDriver`); they are kept as they
/// are when valid, so users find the names they know from the API reference.
pub fn type_name(name: &str) -> String {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric());
    let mut out = if valid {
        name.to_owned()
    } else {
        ascii_camel(upper_camel_case(&prepare(name)))
    };
    if out.is_empty() {
        out.push_str("Unnamed");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'T');
    }
    if is_keyword(&out) || RESERVED_TYPE_NAMES.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// The name of an anonymous type nested in `parent` under the property `json_name`.
pub fn nested_type_name(parent: &str, json_name: &str) -> String {
    let suffix = ascii_camel(upper_camel_case(&prepare(json_name)));
    type_name(&format!("{parent}{suffix}"))
}

/// The variant name for a string enum value (`Always`, `""` → `Empty`, `1.0` → `V1_0`).
pub fn variant_name(value: &str) -> String {
    if value.is_empty() {
        return "Empty".to_owned();
    }
    // Keep a separator between digits that would otherwise run together ("1.0" vs "10").
    let mut words: Vec<String> = Vec::new();
    for word in prepare(value).split(' ').filter(|w| !w.is_empty()) {
        let camel = ascii_camel(upper_camel_case(word));
        if camel.is_empty() {
            continue;
        }
        match words.last_mut() {
            Some(last)
                if last.ends_with(|c: char| c.is_ascii_digit())
                    && camel.starts_with(|c: char| c.is_ascii_digit()) =>
            {
                last.push('_');
                last.push_str(&camel);
            }
            _ => words.push(camel),
        }
    }
    let mut out = words.concat();
    if out.is_empty() {
        out.push_str("Symbol");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    if is_keyword(&out) || out == "Other" {
        // `Other` is the fallback variant that keeps unknown values.
        out.push('_');
    }
    out
}

/// The variant of a response enum for a status: `Ok`, `Created`, `Accepted`, `NoContent`, or
/// `Status207`.
pub fn status_variant(status: u16) -> String {
    match status {
        200 => "Ok".to_owned(),
        201 => "Created".to_owned(),
        202 => "Accepted".to_owned(),
        203 => "NonAuthoritativeInformation".to_owned(),
        204 => "NoContent".to_owned(),
        205 => "ResetContent".to_owned(),
        206 => "PartialContent".to_owned(),
        other => format!("Status{other}"),
    }
}

/// The name of the builder of the struct `type_name`: `Lease` → `LeaseBuilder`. A trailing
/// `_` (from a keyword or reserved name) is dropped, since `Option_Builder` is not camel
/// case and `OptionBuilder` shadows nothing.
pub fn builder_type_name(type_name: &str) -> String {
    format!("{}Builder", type_name.trim_end_matches('_'))
}

/// The name of a struct's apply configuration (`Deployment` → `DeploymentApply`), before
/// it is claimed in its module.
pub fn apply_type_name(type_name: &str) -> String {
    format!("{}Apply", type_name.trim_end_matches('_'))
}

/// The name of the serde visitor local to the `Deserialize` impl of `type_name`
/// (`Lease` → `LeaseVisitor`): never the type's own name, which the impl refers to.
pub fn visitor_type_name(type_name: &str) -> String {
    format!("{}Visitor", type_name.trim_end_matches('_'))
}

/// The name of the enum of a struct's fields in its generated `Deserialize` impl (local to
/// the impl, like the visitor), e.g. `PodSpecField`.
pub fn field_enum_name(type_name: &str) -> String {
    format!("{}Field", type_name.trim_end_matches('_'))
}

/// Plural words whose singular the suffix rules below would get wrong, and words ending in
/// `s` that are not plurals at all (`None`).
const IRREGULAR_PLURALS: &[(&str, Option<&str>)] = &[
    ("aliases", Some("alias")),
    ("statuses", Some("status")),
    ("caches", Some("cache")),
    ("children", Some("child")),
    ("people", Some("person")),
    ("indices", Some("index")),
    ("series", None),
    ("species", None),
    ("news", None),
    ("tls", None),
    ("dns", None),
    ("https", None),
    ("kubernetes", None),
];

/// The singular of a plural field name (`tags` → `tag`, `pod_ips` → `pod_ip`,
/// `policies` → `policy`, `host_aliases` → `host_alias`), for the builder method that adds
/// one item to a list or one entry to a map. Only the last word changes. `None` when the
/// name is not recognisably a plural (`env`, `command`, `data`, `ingress`, `tls`); callers
/// then fall back to a prefixed name. The result is a valid field-style identifier.
pub fn singular_name(field: &str) -> Option<String> {
    let base = field.trim_end_matches('_');
    let (head, word) = match base.rsplit_once('_') {
        Some((head, word)) => (Some(head), word),
        None => (None, base),
    };
    let singular = match IRREGULAR_PLURALS.iter().find(|(plural, _)| *plural == word) {
        Some((_, singular)) => (*singular)?.to_owned(),
        None => singular_word(word)?,
    };
    let mut name = match head {
        Some(head) => format!("{head}_{singular}"),
        None => singular,
    };
    if is_keyword(&name) {
        name.push('_');
    }
    Some(name)
}

/// The regular English singular of one lower-case word, if it looks like a plural.
fn singular_word(word: &str) -> Option<String> {
    let letters = word
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if word.len() < 3 || !letters || !word.starts_with(|c: char| c.is_ascii_lowercase()) {
        return None;
    }
    if word.len() >= 5 && word.ends_with("ies") {
        return Some(format!("{}y", &word[..word.len() - 3]));
    }
    if ["sses", "xes", "ches", "shes"]
        .iter()
        .any(|suffix| word.ends_with(suffix))
    {
        return Some(word[..word.len() - 2].to_owned());
    }
    if ["ss", "us", "is"]
        .iter()
        .any(|suffix| word.ends_with(suffix))
        || !word.ends_with('s')
    {
        return None;
    }
    Some(word[..word.len() - 1].to_owned())
}

/// Hands out unique names within one scope (a struct's fields, an enum's variants, a
/// module's types or files). The first claimant of a name gets it as is; later ones get
/// `2`, `3`, … appended (after `_` for snake-case names). Callers claim in a stable order
/// (sorted input), so the result is deterministic.
#[derive(Debug, Default)]
pub struct Namespace {
    taken: BTreeSet<String>,
}

impl Namespace {
    /// Reserves `name` without checking; for names the scope already has.
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_owned());
    }

    /// Whether `name` is taken.
    pub fn is_taken(&self, name: &str) -> bool {
        self.taken.contains(name)
    }

    /// Claims exactly `name` if it is free; whether it was.
    pub fn try_claim(&mut self, name: &str) -> bool {
        self.taken.insert(name.to_owned())
    }

    /// Claims `name`, or the first free suffixed form of it.
    pub fn claim(&mut self, name: &str) -> String {
        if self.taken.insert(name.to_owned()) {
            return name.to_owned();
        }
        let separator = if name.contains(|c: char| c.is_ascii_uppercase()) {
            ""
        } else {
            "_"
        };
        let base = name.trim_end_matches('_');
        (2..)
            .map(|n| format!("{base}{separator}{n}"))
            .find(|candidate| self.taken.insert(candidate.clone()))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `is_keyword` looks only at names of up to 8 bytes.
    #[test]
    fn no_keyword_is_longer_than_8_bytes() {
        assert!(KEYWORDS.iter().all(|k| k.len() <= 8), "{KEYWORDS:?}");
        assert!(is_keyword("continue") && is_keyword("override") && !is_keyword("continues"));
    }

    #[test]
    fn identifiers_are_what_this_module_makes() {
        for name in ["type_", "_0", "Pod", "pod_ips", "V1", "x"] {
            assert!(is_identifier(name), "{name}");
        }
        for name in [
            "", "_", "0a", "type", "self", "Self", "a-b", "r#type", "é", "a b",
        ] {
            assert!(!is_identifier(name), "{name}");
        }
        // Everything the name functions make passes.
        for json in [
            "type",
            "$ref",
            "x-kubernetes-list-type",
            "0day",
            "podIPs",
            "µm",
            "中",
        ] {
            assert!(is_identifier(&snake_name(json)), "{json}");
        }
    }

    #[test]
    fn field_names() {
        let cases = [
            ("apiVersion", "api_version"),
            ("type", "type_"),
            ("continue", "continue_"),
            ("$ref", "ref_"),
            ("$schema", "schema"),
            ("x-kubernetes-list-type", "x_kubernetes_list_type"),
            ("podIPs", "pod_ips"),
            ("externalIPs", "external_ips"),
            ("clusterIPs", "cluster_ips"),
            ("hostIPC", "host_ipc"),
            (
                "targetCPUUtilizationPercentage",
                "target_cpu_utilization_percentage",
            ),
            ("2fa", "_2fa"),
            ("self", "self_"),
            ("-", "value"),
            ("names", "names"),
            ("ipFamilyPolicy", "ip_family_policy"),
        ];
        for (json, rust) in cases {
            assert_eq!(field_name(json), rust, "field name of {json:?}");
        }
    }

    #[test]
    fn constant_names() {
        let cases = [
            ("labelSelector", "LABEL_SELECTOR"),
            ("continue", "CONTINUE"),
            ("type", "TYPE"),
            ("1st", "_1ST"),
            ("dry-run", "DRY_RUN"),
            ("", "VALUE"),
        ];
        for (json, rust) in cases {
            assert_eq!(constant_name(json), rust, "constant name of {json:?}");
        }
    }

    #[test]
    fn prefixed_method_names() {
        assert_eq!(prefixed_method_name("push", "env"), "push_env");
        assert_eq!(prefixed_method_name("insert", "_1st"), "insert_1st");
        assert_eq!(prefixed_method_name("set", "type_"), "set_type_");
    }

    #[test]
    fn type_names() {
        assert_eq!(type_name("APIService"), "APIService");
        assert_eq!(type_name("Pod"), "Pod");
        assert_eq!(type_name("pod-spec"), "PodSpec");
        assert_eq!(type_name("3d"), "T3d");
        assert_eq!(type_name("Option"), "Option_");
        assert_eq!(builder_type_name("Lease"), "LeaseBuilder");
        assert_eq!(builder_type_name("Option_"), "OptionBuilder");
        assert_eq!(
            nested_type_name("TagReferencePolicy", "type"),
            "TagReferencePolicyType"
        );
        assert_eq!(
            nested_type_name("Spec", "x-kubernetes-foo"),
            "SpecXKubernetesFoo"
        );
    }

    #[test]
    fn long_file_names_are_shortened_deterministically() {
        let long = format!("Very{}Long", "Much".repeat(80));
        let stem = file_stem(&long);
        assert!(stem.len() <= MAX_FILE_NAME, "{stem}");
        assert!(stem.starts_with("very_much_much"), "{stem}");
        assert_eq!(stem, file_stem(&long));
        assert_ne!(stem, file_stem(&format!("{long}2")));
        assert_eq!(file_stem("PodSpec"), "pod_spec");
        assert!(module_name(&"segment".repeat(40)).len() <= MAX_FILE_NAME);
    }

    #[test]
    fn unicode_names_are_readable_ascii() {
        assert_eq!(variant_name("µm"), "Um");
        assert_eq!(variant_name("Å"), "A");
        assert_eq!(variant_name("é"), "E");
        assert_eq!(variant_name("\u{2126}"), "Ohm");
        assert_eq!(variant_name("\u{212B}"), "A");
        assert_eq!(variant_name("Ω"), "Omega");
        assert_eq!(variant_name("中"), "U4e2d");
        assert_eq!(field_name("größe"), "grosse");
        assert_eq!(field_name("µs"), "us");
        assert_eq!(field_name("é"), "e");
        assert_eq!(field_name("名前"), "u540d_u524d");
        assert_eq!(type_name("Ärger"), "Arger");
    }

    #[test]
    fn variant_names() {
        assert_eq!(variant_name("Always"), "Always");
        assert_eq!(variant_name(""), "Empty");
        assert_eq!(variant_name("1.0"), "V1_0");
        assert_eq!(variant_name("10"), "V10");
        assert_eq!(variant_name("IfNotPresent"), "IfNotPresent");
        assert_eq!(variant_name("application/json"), "ApplicationJson");
        assert_eq!(variant_name("Other"), "Other_");
        assert_eq!(variant_name("Self"), "Self_");
        assert_eq!(variant_name("*"), "Symbol");
    }

    #[test]
    fn non_ascii_names_satisfy_rustc_case_lints() {
        // Non-ASCII letters are spelled in ASCII (`ß` → `ss`, accents dropped), anything
        // else as its code point, so names stay readable and satisfy rustc's case lints.
        assert_eq!(field_name("größe"), "grosse");
        assert_eq!(field_name("naïveName"), "naive_name");
        assert_eq!(field_name("日本語"), "u65e5_u672c_u8a9e");
        assert_eq!(type_name("Überblick"), "Uberblick");
        assert_eq!(
            nested_type_name("WunderlichSpec", "ÄrgerGrund"),
            "WunderlichSpecArgerGrund"
        );
        assert_eq!(variant_name("Über"), "Uber");
        assert_eq!(variant_name("ÄÖÜ"), "Aou");
        assert_eq!(variant_name("straße"), "Strasse");
    }

    #[test]
    fn singular_names() {
        let cases = [
            ("tags", Some("tag")),
            ("labels", Some("label")),
            ("annotations", Some("annotation")),
            ("pod_ips", Some("pod_ip")),
            ("non_resource_urls", Some("non_resource_url")),
            ("policies", Some("policy")),
            ("categories", Some("category")),
            ("ties", Some("tie")),
            ("addresses", Some("address")),
            ("not_ready_addresses", Some("not_ready_address")),
            ("prefixes", Some("prefix")),
            ("searches", Some("search")),
            ("patches", Some("patch")),
            ("hashes", Some("hash")),
            ("usages", Some("usage")),
            ("causes", Some("cause")),
            ("schemas", Some("schema")),
            ("host_aliases", Some("host_alias")),
            ("container_statuses", Some("container_status")),
            ("caches", Some("cache")),
            ("args", Some("arg")),
            ("items", Some("item")),
            ("match_labels", Some("match_label")),
            (
                "x_kubernetes_list_map_keys",
                Some("x_kubernetes_list_map_key"),
            ),
            ("types", Some("type_")),
            ("env", None),
            ("command", None),
            ("data", None),
            ("ingress", None),
            ("egress", None),
            ("status", None),
            ("tls", None),
            ("allocated_resources_status", None),
            ("enum_", None),
            ("os", None),
            ("s", None),
            ("names_2", None),
            ("v12s", Some("v12")),
            ("12s", None),
            ("preferred_during_scheduling_ignored_during_execution", None),
        ];
        for (plural, singular) in cases {
            assert_eq!(
                singular_name(plural).as_deref(),
                singular,
                "singular of {plural:?}"
            );
        }
    }

    #[test]
    fn namespace_disambiguates_in_claim_order() {
        let mut ns = Namespace::default();
        assert_eq!(ns.claim("foo_bar"), "foo_bar");
        assert_eq!(ns.claim("foo_bar"), "foo_bar_2");
        assert_eq!(ns.claim("foo_bar"), "foo_bar_3");
        assert_eq!(ns.claim("Pod"), "Pod");
        assert_eq!(ns.claim("Pod"), "Pod2");
        assert_eq!(ns.claim("type_"), "type_");
        assert_eq!(ns.claim("type_"), "type_2");
    }

    /// The byte-wise case conversions are heck's, on every key and string of Kubernetes'
    /// API (property names, operation ids, parameter names, enum values: the names
    /// generation converts) and on the awkward cases, each as `prepare` leaves it and as
    /// written.
    #[test]
    fn ascii_case_conversions_are_hecks() {
        fn strings(value: &serde_json::Value, into: &mut std::collections::BTreeSet<String>) {
            match value {
                // Names, not descriptions.
                serde_json::Value::String(text) if text.len() <= 80 => {
                    into.insert(text.clone());
                }
                serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, into)),
                serde_json::Value::Object(map) => {
                    for (key, child) in map {
                        // Every key is a name (a property's, a schema's, a path's).
                        into.insert(key.clone());
                        strings(child, into);
                    }
                }
                _ => {}
            }
        }
        let mut names: std::collections::BTreeSet<String> = [
            "",
            "a",
            "A",
            "_",
            "__x__",
            "APIServiceList",
            "podIPs",
            "IPv6",
            "v1beta1",
            "x-kubernetes-list-type",
            "$ref",
            "1st",
            "HTTPGetAction",
            "ABCdEF",
            "aB",
            "Ab",
            "a1B2c3",
            "V1",
            "k8s.io",
            "URLs",
            "already_snake",
            "SCREAMING_CASE",
            "camelCase9X",
        ]
        .map(str::to_owned)
        .into();
        if let Some(corpus) =
            kubeforge_tests::corpus("naming: heck's conversions", &["kubernetes/swagger.json"])
        {
            let text = std::fs::read(corpus.join("kubernetes/swagger.json")).expect("read");
            let document: serde_json::Value = serde_json::from_slice(&text).expect("JSON");
            strings(&document, &mut names);
        }
        for name in &names {
            if name.is_ascii() {
                assert_eq!(
                    prepare_ascii(name.as_bytes()),
                    prepare_chars(name),
                    "{name:?}"
                );
            }
            for text in [name.clone(), prepare(name)] {
                if !text.is_ascii() {
                    continue;
                }
                assert_eq!(snake_case(&text), text.to_snake_case(), "{text:?}");
                assert_eq!(
                    upper_camel_case(&text),
                    text.to_upper_camel_case(),
                    "{text:?}"
                );
            }
        }
    }
}
