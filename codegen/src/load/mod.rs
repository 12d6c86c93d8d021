//! Stage 1, load: read input files, detect what kind of document each is, and turn each
//! into one common raw form ([`RawApi`]) with an [`Origin`] on every node, so later stages
//! never care which format a schema came from.
//!
//! Files are JSON or YAML (several documents per file allowed); each document is OpenAPI
//! 3.x, Swagger 2.0 (normalized to the v3 form in `swagger.rs`) or a CustomResourceDefinition
//! (`crd.rs`). A Kubernetes list (`kind: List`, `CustomResourceDefinitionList`, as `kubectl
//! get crd -o yaml` prints) is read item by item. In a bundle that also holds other manifests
//! (a Helm chart's rendered output: CRDs beside Deployments, Services, …), every other
//! Kubernetes object is skipped with one [`Note`] each, as long as the file holds at least
//! one document the generator reads; a file of nothing else is still an error.

mod crd;
pub mod fixups;
mod merge;
pub(crate) use merge::is_zero;
mod openapi;
pub mod operation;
pub mod proto;
pub mod release_set;
pub(crate) mod releases;
pub mod schema;
mod select;
mod swagger;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;

use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind, Note, Origin, locate};

pub(crate) use merge::merge;
pub(crate) use select::select;

/// The input formats the generator reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocumentKind {
    /// OpenAPI 3.x, as a cluster serves at `/openapi/v3/apis/<group>/<version>`.
    OpenApiV3,
    /// Swagger 2.0, as in Kubernetes' `api/openapi-spec/swagger.json`.
    Swagger2,
    /// A CustomResourceDefinition (`apiextensions.k8s.io/v1`).
    Crd,
}

/// A named schema definition, not yet interpreted.
#[derive(Clone, Debug)]
pub struct RawSchema {
    /// The definition's name, e.g. `io.k8s.api.core.v1.Pod`.
    pub name: String,
    /// The schema itself, with `$ref`s in the `#/components/schemas/` form.
    pub value: Value,
    /// Where it was defined.
    pub origin: Origin,
}

/// One HTTP operation under `paths`, in the OpenAPI v3 form (Swagger 2.0 is normalized).
#[derive(Clone, Debug)]
pub struct RawOperation {
    /// The path template, e.g. `/api/v1/namespaces/{namespace}/pods/{name}`.
    pub path: String,
    /// The HTTP method in upper case.
    pub method: String,
    /// The operation object.
    pub value: Value,
    /// Parameters declared on the path item, shared by all its operations (one list for
    /// all of them).
    pub path_parameters: std::sync::Arc<[Value]>,
    /// Where the operation was defined.
    pub origin: Origin,
}

/// A resource declared by its definition rather than read off paths (CRDs have no paths).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawResource {
    /// The API group.
    pub group: String,
    /// The version.
    pub version: String,
    /// The kind.
    pub kind: String,
    /// The plural used in paths.
    pub plural: String,
    /// Namespaced (true) or cluster-scoped.
    pub namespaced: bool,
    /// Subresources (`status`, `scale`).
    pub subresources: Vec<String>,
    /// Where it was declared.
    pub origin: Origin,
}

/// A CustomResourceDefinition as its input wrote it, kept whole: the generated crate gives
/// it back (`Foo::crd()`), and which one it embeds is the model's decision (`model/crds.rs`).
#[derive(Clone, Debug)]
pub struct RawCrd {
    /// `metadata.name` (`certificates.cert-manager.io`; the plural and group when absent).
    pub name: String,
    /// The API group.
    pub group: String,
    /// The kind.
    pub kind: String,
    /// The versions it serves, in document order.
    pub served: Vec<String>,
    /// The document, unchanged.
    pub document: Value,
    /// Where it is.
    pub origin: Origin,
}

/// Everything the input documents define, merged: schemas by name, operations, declared
/// resources.
#[derive(Clone, Debug, Default)]
pub struct RawApi {
    /// Schemas in input order, each name once.
    pub schemas: indexmap::IndexMap<String, RawSchema>,
    /// Operations in input order.
    pub operations: Vec<RawOperation>,
    /// Resources declared without paths, in input order.
    pub resources: Vec<RawResource>,
    /// The CRDs read, in input order.
    pub crds: Vec<RawCrd>,
    /// Warnings from merging: definitions overridden by a preferred document's.
    pub warnings: Vec<Diagnostic>,
    /// What loading skipped, in input order.
    pub notes: Vec<Note>,
    /// How the inputs define the built-in meta types.
    pub builtin: BuiltinMatches,
}

/// How the inputs define each built-in meta type ([`builtin`]): what the model needs to
/// decide which of them come from the companion crate `kubeforge-meta`, which is generated
/// from the built-in definitions (`model/externs.rs`).
#[derive(Clone, Debug, Default)]
pub struct BuiltinMatches {
    /// What each built-in definition references, by built-in name: every built-in name is
    /// a key.
    pub refs: BTreeMap<String, Vec<String>>,
    /// The built-in names an input defines so that they make the same type as the built-in
    /// definition (`merge::same_model`).
    pub alike: BTreeSet<String>,
    /// The built-in names an input defines differently (an older release's `ObjectMeta`
    /// with `initializers`): the input's definition and the first differing JSON pointer,
    /// relative to the definition.
    pub differs: BTreeMap<String, (Origin, String)>,
}

/// A named schema, typed: what the model reads.
#[derive(Clone, Debug)]
pub struct NamedSchema {
    /// The definition's name, e.g. `io.k8s.api.core.v1.Pod`.
    pub name: String,
    /// The schema.
    pub schema: schema::Schema,
    /// Where it was defined.
    pub origin: Origin,
}

/// What load hands the model: the merged and selected input, every schema typed.
#[derive(Clone, Debug, Default)]
pub struct LoadedApi {
    /// Schemas in input order, each name once.
    pub schemas: indexmap::IndexMap<String, NamedSchema>,
    /// Operations in input order, each once (every document may carry its own copy).
    pub operations: Vec<operation::Operation>,
    /// Resources declared without paths, in input order.
    pub resources: Vec<RawResource>,
    /// The CRDs read, in input order.
    pub crds: Vec<RawCrd>,
    /// What loading skipped, in input order.
    pub notes: Vec<Note>,
    /// How the inputs define the built-in meta types.
    pub builtin: BuiltinMatches,
    /// The malformed parts found typing the input, each with what it belongs to, until
    /// [`finish`] turns those of what was kept into an error.
    pub(crate) problems: Vec<Problem>,
}

/// A malformed part of the input, found while typing it.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    /// What it belongs to: selecting leaves out the problems of what it leaves out.
    pub owner: Owner,
    /// What is wrong, and where.
    pub diagnostic: Diagnostic,
}

/// What a [`Problem`] belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// The named schema.
    Schema(String),
    /// The operation of these group-version-kinds (none: selection never keeps it).
    Operation(Vec<crate::ground::Gvk>),
}

/// Types every schema and operation of the merged input, keeping each malformed part it
/// finds with its place (see [`operation::read_all`]) as a [`Problem`] of what it belongs
/// to. Warnings stay with `raw`'s caller.
///
/// A malformed keyword is left out of the typed schema and an operation with a malformed
/// part is left out, so the model can still run and report the independent problems it
/// finds; [`finish`] reports the problems of what selection kept, and the caller joins both
/// lists ([`Error::join_stages`]).
pub(crate) fn typed(raw: RawApi) -> LoadedApi {
    let mut problems = Vec::new();
    let mut schemas = indexmap::IndexMap::with_capacity(raw.schemas.len());
    for (name, raw_schema) in raw.schemas {
        let mut diagnostics = Diagnostics::default();
        // A definition that is no schema object is still a name references may use.
        let schema = schema::Schema::read(&raw_schema.value, &raw_schema.origin, &mut diagnostics)
            .unwrap_or_default();
        problems.extend(
            diagnostics
                .into_vec()
                .into_iter()
                .map(|diagnostic| Problem {
                    owner: Owner::Schema(name.clone()),
                    diagnostic,
                }),
        );
        schemas.insert(
            name,
            NamedSchema {
                name: raw_schema.name,
                schema,
                origin: raw_schema.origin,
            },
        );
    }
    let operations = operation::read_all(&raw.operations, &mut problems);
    LoadedApi {
        schemas,
        operations,
        resources: raw.resources,
        crds: raw.crds,
        notes: raw.notes,
        builtin: raw.builtin,
        problems,
    }
}

/// The typed input without its problems, and the problems as one error (each reported
/// once: a path item's parameters belong to each of its operations).
pub(crate) fn finish(mut loaded: LoadedApi) -> (LoadedApi, Option<Error>) {
    let mut diagnostics = Diagnostics::default();
    let mut reported: BTreeSet<(Origin, String)> = BTreeSet::new();
    for problem in std::mem::take(&mut loaded.problems) {
        let d = &problem.diagnostic;
        if reported.insert((d.origin.clone(), d.message.clone())) {
            diagnostics.push(problem.diagnostic);
        }
    }
    (loaded, diagnostics.finish(()).err())
}

/// One input file in the raw form.
#[derive(Clone, Debug)]
pub struct Document {
    /// The format of its (first) document.
    pub kind: DocumentKind,
    /// Its schemas, in document order.
    pub schemas: Vec<RawSchema>,
    /// Its operations, in document order.
    pub operations: Vec<RawOperation>,
    /// Its declared resources.
    pub resources: Vec<RawResource>,
    /// Its CRDs, whole.
    pub crds: Vec<RawCrd>,
    /// The documents it skipped (other manifests of a bundle), one note each.
    pub notes: Vec<Note>,
}

/// Reads and parses one input file. `display_path` is how the file is named in diagnostics
/// and generated headers (normally relative to the project), `path` is where it is read.
pub fn load_file(path: &Path, display_path: &Path) -> Result<Document, Error> {
    let origin = Origin::root(display_path);
    let bytes = std::fs::read(path).map_err(|e| {
        Diagnostic::new(ErrorKind::Io, &origin, format!("cannot read the file: {e}"))
    })?;
    load_bytes(&bytes, display_path)
}

/// Parses one input file from memory; `display_path` names it in diagnostics. Text that
/// starts with `{` is JSON; anything else is YAML, possibly several documents.
pub fn load_bytes(bytes: &[u8], display_path: &Path) -> Result<Document, Error> {
    let origin = Origin::root(display_path);
    let mut values = parse(bytes, &origin)?;
    let mut diagnostics = Diagnostics::default();
    let mut document = Document {
        kind: DocumentKind::OpenApiV3,
        schemas: Vec::new(),
        operations: Vec::new(),
        resources: Vec::new(),
        crds: Vec::new(),
        notes: Vec::new(),
    };
    let several = values.len() > 1;
    // Mutable: an OpenAPI document's schemas and operations are moved out, not cloned.
    let mut items: Vec<(&mut Value, Origin)> = Vec::new();
    for (i, value) in values.iter_mut().enumerate() {
        // JSON pointers are per document; a multi-document file names the document too.
        let origin = if several {
            Origin::root(Path::new(&format!(
                "{} (document {})",
                display_path.display(),
                i + 1
            )))
        } else {
            origin.clone()
        };
        if list_items(value).is_none() {
            items.push((value, origin));
        } else if let Some(Value::Array(list)) = value.get_mut("items") {
            items.extend(
                list.iter_mut()
                    .enumerate()
                    .map(|(j, item)| (item, origin.child("items").child(&j.to_string()))),
            );
        }
    }
    // Other Kubernetes objects of a bundle: their error if nothing else is read, else a note.
    let mut skipped: Vec<(Diagnostic, Note)> = Vec::new();
    let mut first = true;
    for (value, origin) in &mut items {
        let (value, origin) = (&mut **value, &*origin);
        let kind = match detect(value, origin) {
            Ok(kind) => kind,
            Err(d) => {
                match object_name(value) {
                    Some(name) => skipped.push((
                        *d,
                        Note::new(
                            origin,
                            format!("skipped {name}: not a CustomResourceDefinition or an OpenAPI document"),
                        ),
                    )),
                    None => diagnostics.push(*d),
                }
                continue;
            }
        };
        if first {
            document.kind = kind;
            first = false;
        }
        match kind {
            DocumentKind::Crd => crd::read(
                value,
                origin,
                &mut document.schemas,
                &mut document.resources,
                &mut document.crds,
                &mut diagnostics,
            ),
            _ => {
                let read = openapi::read(kind, value, origin, &mut diagnostics);
                document.schemas.extend(read.schemas);
                document.operations.extend(read.operations);
                document.notes.extend(read.notes);
            }
        }
    }
    if first {
        // Nothing the generator reads: every skipped object is an error after all.
        if skipped.is_empty() && items.is_empty() {
            diagnostics.push(
                Diagnostic::new(
                    ErrorKind::UnknownDocument,
                    &origin,
                    "expected a CustomResourceDefinition in the list, but its `items` is empty",
                )
                .with_hint("`kubectl get crd -o yaml` lists nothing when no CRD is installed"),
            );
        }
        skipped.into_iter().for_each(|(d, _)| diagnostics.push(d));
    } else {
        document
            .notes
            .extend(skipped.into_iter().map(|(_, note)| note));
    }
    diagnostics.finish(document)
}

/// The items of a Kubernetes list (`kind: List`, `CustomResourceDefinitionList`, …): an object
/// whose `kind` ends in `List` and that has an `items` array.
fn list_items(value: &Value) -> Option<&Vec<Value>> {
    let kind = value.get("kind")?.as_str()?;
    if !kind.ends_with("List") || value.get("openapi").is_some() || value.get("swagger").is_some() {
        return None;
    }
    value.get("items")?.as_array()
}

/// `apps/v1 Deployment "web"`, for a Kubernetes object (one with `apiVersion` and `kind`).
fn object_name(value: &Value) -> Option<String> {
    let api_version = value.get("apiVersion")?.as_str()?;
    let kind = value.get("kind")?.as_str()?;
    let name = value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .map(|n| format!(" {n:?}"))
        .unwrap_or_default();
    Some(format!("{api_version} {kind}{name}"))
}

fn parse(bytes: &[u8], origin: &Origin) -> Result<Vec<Value>, Error> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'{') {
        return serde_json::from_slice(bytes)
            .map(|v| vec![v])
            .map_err(|e| json_syntax_error(bytes, &e, origin).into());
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let mut d = Diagnostic::new(
            ErrorKind::Syntax,
            origin,
            format!(
                "expected UTF-8 text, but byte {} is not: {e}",
                e.valid_up_to()
            ),
        );
        // The valid prefix is text, so the position of the first bad byte is known.
        let valid = String::from_utf8_lossy(&bytes[..e.valid_up_to()]);
        d.location = locate::at_offset(&valid, valid.len());
        d
    })?;
    // serde-saphyr is panic-free and enforces budgets (alias expansion, depth, size), so a
    // hostile file is an error, never a hang or an exhausted machine.
    let values: Vec<Value> =
        serde_saphyr::from_multiple(text).map_err(|e| yaml_syntax_error(text, &e, origin))?;
    let values: Vec<Value> = values.into_iter().filter(|v| !v.is_null()).collect();
    if values.is_empty() {
        return Err(Diagnostic::new(
            ErrorKind::UnknownDocument,
            origin,
            "expected a document, but the file is empty",
        )
        .into());
    }
    Ok(values)
}

/// A JSON syntax error at serde_json's line and column, in our words.
fn json_syntax_error(bytes: &[u8], e: &serde_json::Error, origin: &Origin) -> Diagnostic {
    let message = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let what = message.strip_suffix(&suffix).unwrap_or(&message);
    let mut d = Diagnostic::new(
        ErrorKind::Syntax,
        origin,
        format!("expected a JSON document, but it does not parse: {what}"),
    );
    if e.line() > 0 {
        let text = String::from_utf8_lossy(bytes);
        // serde_json counts columns in bytes, from 1; at the end of a line it points past it.
        let start = locate::line_start(&text, e.line());
        d.location = start.and_then(|start| {
            let line_end = text[start..].find('\n').map_or(text.len(), |n| start + n);
            let mut at = (start + e.column().saturating_sub(1)).min(line_end);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            locate::at_offset(&text, at)
        });
    }
    d
}

/// A YAML syntax error at the parser's line and column, in our words: no snippet of the
/// parser's own (the command line renders one), and no advice about the parser's options,
/// which a user of kubeforge cannot set.
fn yaml_syntax_error(text: &str, e: &serde_saphyr::Error, origin: &Origin) -> Diagnostic {
    let plain = e.without_snippet();
    let location = plain.location().and_then(|l| {
        let line = usize::try_from(l.line()).ok()?;
        let column = usize::try_from(l.column()).ok()?;
        let start = locate::line_start(text, line)?;
        let line_text = text[start..].split('\n').next().unwrap_or("");
        let in_line: usize = line_text
            .chars()
            .take(column.saturating_sub(1))
            .map(char::len_utf8)
            .sum();
        locate::at_offset(text, start + in_line)
    });
    if let serde_saphyr::Error::DuplicateMappingKey { key, .. } = plain {
        let key = key
            .as_deref()
            .map_or_else(String::new, |k| format!(" `{k}`"));
        let mut d = Diagnostic::new(
            ErrorKind::Syntax,
            origin,
            format!("expected each key once in a mapping, but the key{key} appears again"),
        )
        .with_hint(
            "remove one of the two entries (YAML, like JSON for Kubernetes, allows each key once)",
        );
        d.location = location;
        return d;
    }
    let mut message = plain.to_string();
    // "error: line 3 column 2: what" → "what".
    if let Some(rest) = message.strip_prefix("error: ") {
        message = rest.to_owned();
    }
    if let Some(rest) = message.strip_prefix("line ")
        && let Some((_, what)) = rest.split_once(": ")
    {
        message = what.to_owned();
    }
    if let Some((before, _)) = message.split_once(", set ") {
        message = before.to_owned();
    }
    // "… at line 3, column 2": the position is shown as the diagnostic's own.
    if let Some((before, position)) = message.rsplit_once(" at line ")
        && position
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b',' || b == b' ' || b.is_ascii_lowercase())
    {
        message = before.to_owned();
    }
    let mut d = Diagnostic::new(
        ErrorKind::Syntax,
        origin,
        format!("expected a JSON or YAML document, but it does not parse: {message}"),
    );
    d.location = location;
    let Some(at) = d.location else {
        return d;
    };
    let (quote, brackets) = still_open(text, at.offset);
    // A quoted string left open is reported where the parser gave up, often many lines
    // later; the fix is where it starts.
    if message.contains("quoted scalar")
        && let Some(start) = quote.and_then(|open| locate::at_offset(text, open))
    {
        d = d.with_hint(format!(
            "close the quoted string that starts at line {}, column {} on its line",
            start.line, start.column
        ));
        d.message = format!(
            "expected a closing quote, but the string that starts here runs on to line {}: {message}",
            at.line
        );
        d.location = Some(start);
    } else if quote.is_none()
        && let Some(start) = brackets
            .last()
            .and_then(|&open| locate::at_offset(text, open))
        && start.line < at.line
    {
        // A flow collection left open on an earlier line is the likely cause.
        let bracket = &text[start.offset..=start.offset];
        let close = if bracket == "[" { "]" } else { "}" };
        d = d.with_hint(format!(
            "the `{bracket}` at line {}, column {} has no `{close}`: close it on its line, or write the list as a block",
            start.line, start.column
        ));
    }
    d
}

/// What is still open at `end`, scanning from the start (comments respected): a quoted
/// string (its opening quote's offset) or, outside strings, flow collections (the offsets
/// of their unclosed `[` and `{`, innermost last).
fn still_open(text: &str, end: usize) -> (Option<usize>, Vec<usize>) {
    let bytes = text.as_bytes();
    let mut quote: Option<(usize, u8)> = None;
    // The last quoted string that spans lines: where such a string closed, the quote that
    // closed it may have been meant to open another.
    let mut multiline: Option<usize> = None;
    let mut brackets: Vec<usize> = Vec::new();
    let mut line_start = 0;
    let mut i = 0;
    while i < end.min(bytes.len()) {
        let b = bytes[i];
        // A block scalar (`|`, `>`) is text: its more indented lines open nothing.
        if b == b'\n' && quote.is_none() && brackets.is_empty() {
            let line = &text[line_start..i];
            if block_scalar_header(line) {
                let indent = line.len() - line.trim_start_matches(' ').len();
                let mut next = i + 1;
                while next < bytes.len() {
                    let rest = &text[next..];
                    let this = rest.split('\n').next().unwrap_or("");
                    let this_indent = this.len() - this.trim_start_matches(' ').len();
                    if !this.trim().is_empty() && this_indent <= indent {
                        break;
                    }
                    next += this.len() + 1;
                }
                i = next;
                line_start = next;
                continue;
            }
            line_start = i + 1;
        }
        let after_space = i == 0
            || matches!(
                bytes[i - 1],
                b' ' | b'\t' | b'\n' | b'[' | b'{' | b',' | b':' | b'-'
            );
        match quote {
            Some((_, b'"')) if b == b'\\' => i += 1,
            Some((_, b'\'')) if b == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 1,
            Some((start, q)) if b == q => {
                if text[start..i].contains('\n') {
                    multiline = Some(start);
                }
                quote = None;
            }
            Some(_) => {}
            None if b == b'#' && (i == 0 || bytes[i - 1].is_ascii_whitespace()) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            // A quote or a bracket opens something only where a scalar can start.
            None if (b == b'"' || b == b'\'') && after_space => quote = Some((i, b)),
            None if (b == b'[' || b == b'{') && after_space => brackets.push(i),
            None if b == b']' || b == b'}' => {
                brackets.pop();
            }
            None => {}
        }
        i += 1;
    }
    (quote.map(|(at, _)| at).or(multiline), brackets)
}

/// Whether `line` ends with a block scalar's header (`key: |`, `- >-`, `|2`), comments aside.
fn block_scalar_header(line: &str) -> bool {
    let line = line.split(" #").next().unwrap_or(line).trim_end();
    let indicator = line.trim_end_matches(|c: char| c == '-' || c == '+' || c.is_ascii_digit());
    let Some(before) = indicator
        .strip_suffix('|')
        .or_else(|| indicator.strip_suffix('>'))
    else {
        return false;
    };
    let before = before.trim_end();
    before.is_empty() || before.ends_with(':') || before.ends_with('-')
}

/// The kind of a parsed document (the diagnostic is boxed: it is the rare path).
fn detect(value: &Value, origin: &Origin) -> Result<DocumentKind, Box<Diagnostic>> {
    let unknown = |at: &Origin, message: String| {
        Box::new(Diagnostic::new(ErrorKind::UnknownDocument, at, message))
    };
    let Some(object) = value.as_object() else {
        return Err(unknown(
            origin,
            format!(
                "expected a JSON object at the top level, found {}",
                json_type(value)
            ),
        ));
    };
    if let Some(version) = object.get("openapi") {
        return match version.as_str() {
            Some(v) if v.starts_with("3.") => Ok(DocumentKind::OpenApiV3),
            _ => Err(unknown(
                &origin.child("openapi"),
                format!("expected an OpenAPI version \"3.x\", found {version}"),
            )),
        };
    }
    if let Some(version) = object.get("swagger") {
        return match version.as_str() {
            Some("2.0") => Ok(DocumentKind::Swagger2),
            _ => Err(unknown(
                &origin.child("swagger"),
                format!("expected the Swagger version \"2.0\", found {version}"),
            )),
        };
    }
    if crd::is_crd(value) {
        return Ok(DocumentKind::Crd);
    }
    let message = "expected an OpenAPI 3.x document (an `openapi` key), a Swagger 2.0 document (a `swagger` key) \
                   or a CustomResourceDefinition";
    Err(Box::new((*unknown(origin, message.to_owned())).with_hint(
        "a cluster serves OpenAPI v3 at /openapi/v3/apis/<group>/<version>",
    )))
}

/// The name the built-in meta types' document has in origins and headers.
pub const BUILTIN_FILE: &str = "<kubeforge built-in meta types>";

/// The built-in meta types (`ObjectMeta`, `ListMeta`, `Status`, `WatchEvent`, …, and
/// `autoscaling/v1.Scale`), for inputs that reference them without defining them, as CRDs do.
/// The companion crate `kubeforge-meta` is generated from the same document
/// ([`builtin_document`]). Parsed once per process.
pub(crate) fn builtin() -> &'static Document {
    static BUILTIN: OnceLock<Document> = OnceLock::new();
    BUILTIN.get_or_init(|| {
        // The file is part of this crate and tested to load; an error here is a build defect.
        load_bytes(builtin_document(), Path::new(BUILTIN_FILE)).unwrap_or(Document {
            kind: DocumentKind::OpenApiV3,
            schemas: Vec::new(),
            operations: Vec::new(),
            resources: Vec::new(),
            crds: Vec::new(),
            notes: Vec::new(),
        })
    })
}

/// The text of the built-in meta types' document (OpenAPI v3), from which `cargo xtask
/// regen` generates the companion crate `kubeforge-meta`.
pub fn builtin_document() -> &'static [u8] {
    include_bytes!("builtin.json")
}

/// The schema name a `$ref` names (see [`schema::SchemaRef::parse`], the one place
/// references are parsed); `None` for a reference to anything else.
pub(crate) fn schema_ref_name(reference: &str) -> Option<String> {
    schema::SchemaRef::parse(reference).map(|r| r.name)
}

/// The JSON type of a value, for messages.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn what_is_still_open() {
        let text = "a: \"one\nb: [1, 2\nc: 'it''s'\n";
        assert_eq!(still_open(text, text.len()), (Some(3), vec![]));
        let text = "a: [1, {b: 2}\n# a comment with \" and [\nc: 3\n";
        assert_eq!(still_open(text, text.len()), (None, vec![3]));
        // Block scalars are text: their brackets and quotes open nothing.
        let text = "d: |\n  see [docs and \"quotes\ne: >-\n  more [\n- |2\n   x {\nf: [1]\n";
        assert_eq!(still_open(text, text.len()), (None, vec![]));
        assert!(block_scalar_header("  description: |"));
        assert!(block_scalar_header("- >-  # folded"));
        assert!(!block_scalar_header("a: x|"));
        assert!(!block_scalar_header("a: 'x >'"));
    }

    fn crd(group: &str, kind: &str) -> String {
        format!(
            r#"{{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {{"name": "{plural}.{group}"}},
  "spec": {{"group": "{group}", "names": {{"kind": "{kind}", "plural": "{plural}"}}, "scope": "Namespaced",
    "versions": [{{"name": "v1", "served": true, "storage": true,
      "schema": {{"openAPIV3Schema": {{"type": "object"}}}}}}]}}}}"#,
            plural = kind.to_lowercase() + "s"
        )
    }

    fn kinds(document: &Document) -> Vec<&str> {
        document.resources.iter().map(|r| r.kind.as_str()).collect()
    }

    #[test]
    fn lists_as_kubectl_prints_them_are_read_item_by_item() {
        // `kubectl get crd -o yaml` prints `kind: List`; the API server's own list kind is
        // `CustomResourceDefinitionList`.
        for (api_version, kind) in [
            ("v1", "List"),
            ("apiextensions.k8s.io/v1", "CustomResourceDefinitionList"),
        ] {
            let text = format!(
                r#"{{"apiVersion": "{api_version}", "kind": "{kind}", "metadata": {{"resourceVersion": ""}},
  "items": [{}, {}]}}"#,
                crd("a.example.com", "Apple"),
                crd("b.example.com", "Banana")
            );
            let document = load_bytes(text.as_bytes(), Path::new("crds.json")).unwrap();
            assert_eq!(kinds(&document), ["Apple", "Banana"], "{kind}");
            assert!(document.notes.is_empty());
            // Origins point into the list, so errors and lines are found.
            assert_eq!(
                document.resources[1].origin.pointer,
                "/items/1/spec/versions/0"
            );
        }
        let empty = r#"{"apiVersion": "v1", "kind": "List", "items": []}"#;
        let e = load_bytes(empty.as_bytes(), Path::new("crds.json")).unwrap_err();
        assert_eq!(e.kinds(), [ErrorKind::UnknownDocument]);
        assert!(e.to_string().contains("`items` is empty"), "{e}");
    }

    #[test]
    fn a_bundle_skips_other_manifests_with_one_note_each() {
        let text = format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: operator}}\n---\n{}\n---\n\
             apiVersion: v1\nkind: Service\nmetadata: {{name: webhook}}\n---\n\
             apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: c}}}}\n- {}\n",
            crd("a.example.com", "Apple"),
            crd("b.example.com", "Banana"),
        );
        let document = load_bytes(text.as_bytes(), Path::new("chart.yaml")).unwrap();
        assert_eq!(kinds(&document), ["Apple", "Banana"]);
        let notes: Vec<String> = document.notes.iter().map(ToString::to_string).collect();
        assert_eq!(
            notes,
            [
                "note: skipped apps/v1 Deployment \"operator\": not a CustomResourceDefinition or an OpenAPI document\n  --> chart.yaml (document 1)",
                "note: skipped v1 Service \"webhook\": not a CustomResourceDefinition or an OpenAPI document\n  --> chart.yaml (document 3)",
                "note: skipped v1 ConfigMap \"c\": not a CustomResourceDefinition or an OpenAPI document\n  --> chart.yaml (document 4)#/items/0",
            ]
        );
        // A file of nothing but other manifests is still refused, each one named.
        let text = "apiVersion: v1\nkind: Pod\n---\napiVersion: v1\nkind: Service\n";
        let e = load_bytes(text.as_bytes(), Path::new("pods.yaml")).unwrap_err();
        assert_eq!(e.kinds(), [ErrorKind::UnknownDocument; 2]);
        // Something that is no Kubernetes object is an error even beside a CRD.
        let text = format!("just: text\n---\n{}\n", crd("a.example.com", "Apple"));
        let e = load_bytes(text.as_bytes(), Path::new("x.yaml")).unwrap_err();
        assert_eq!(e.kinds(), [ErrorKind::UnknownDocument]);
    }

    /// The one schema in three formats: Swagger 2.0 (`#/definitions/`, `x-nullable`),
    /// OpenAPI v3 (`#/components/schemas/`, `nullable`) and a CRD's property. Each lands
    /// in the same typed form, reference parsed.
    #[test]
    fn swagger_openapi_and_crd_schemas_land_in_one_typed_form() {
        let spec = |reference: &str, nullable: &str| {
            format!(
                r#"{{"type": "object", "required": ["size"], "properties": {{
                    "size": {{"x-kubernetes-int-or-string": true}},
                    "note": {{"type": "string", "{nullable}": true}},
                    "owner": {{"$ref": "{reference}io.example.v1.Owner"}}}}}}"#
            )
        };
        let owner = r#"{"type": "object", "properties": {"name": {"type": "string"}}}"#;
        let swagger = format!(
            r#"{{"swagger": "2.0", "info": {{"title": "t", "version": "v1"}}, "paths": {{}},
              "definitions": {{"io.example.v1.Spec": {}, "io.example.v1.Owner": {owner}}}}}"#,
            spec("#/definitions/", "x-nullable")
        );
        let openapi = format!(
            r#"{{"openapi": "3.0.0", "info": {{"title": "t", "version": "v1"}}, "paths": {{}},
              "components": {{"schemas": {{"io.example.v1.Spec": {}, "io.example.v1.Owner": {owner}}}}}}}"#,
            spec("#/components/schemas/", "nullable")
        );
        let typed_spec = |name: &str, text: &str| {
            let document = load_bytes(text.as_bytes(), Path::new(name)).unwrap();
            let raw = merge(vec![document], &[]).unwrap();
            let (api, errors) = finish(typed(raw));
            assert!(errors.is_none(), "{errors:?}");
            api.schemas["io.example.v1.Spec"].schema.clone()
        };
        let from_swagger = typed_spec("a.json", &swagger);
        let from_openapi = typed_spec("b.json", &openapi);
        assert_eq!(from_swagger, from_openapi);
        let properties = from_openapi.properties.as_ref().unwrap();
        assert!(properties["size"].int_or_string);
        assert!(properties["note"].nullable);
        assert_eq!(
            properties["owner"]
                .reference
                .as_ref()
                .map(|r| r.name.as_str()),
            Some("io.example.v1.Owner")
        );
        assert_eq!(from_openapi.required, ["size"]);

        // A CRD's version schema: the same property schemas.
        let crd = format!(
            r#"{{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
              "metadata": {{"name": "things.example.com"}},
              "spec": {{"group": "example.com", "names": {{"kind": "Thing", "plural": "things"}},
                "scope": "Namespaced", "versions": [{{"name": "v1", "served": true, "storage": true,
                "schema": {{"openAPIV3Schema": {{"type": "object", "properties": {{"spec": {}}}}}}}}}]}}}}"#,
            spec("#/components/schemas/", "nullable")
        );
        let document = load_bytes(crd.as_bytes(), Path::new("c.yaml")).unwrap();
        let (api, _) = finish(typed(merge(vec![document], &[]).unwrap()));
        let thing = api
            .schemas
            .values()
            .find(|s| s.name.ends_with(".Thing"))
            .unwrap();
        let crd_spec = &thing.schema.properties.as_ref().unwrap()["spec"];
        assert_eq!(crd_spec, &from_openapi);
    }
}
