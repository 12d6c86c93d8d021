//! Errors as data: every problem names the file, the JSON pointer of the offending node,
//! what was expected, and a hint. The generator collects independent problems and reports
//! them together instead of stopping at the first one.

pub(crate) mod locate;

use std::fmt;
use std::path::{Path, PathBuf};

/// A stable, machine-readable category of problem. The string form is part of the public
/// interface (tests and users match on it), so variants are only ever added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be read.
    Io,
    /// The file is not valid JSON.
    Syntax,
    /// The document is not a kind of input the generator understands.
    UnknownDocument,
    /// A node has the wrong JSON type or shape for its position.
    InvalidSchema,
    /// A schema uses a construct the generator cannot map to Rust.
    UnsupportedSchema,
    /// A `$ref` points at nothing.
    DanglingRef,
    /// `$ref`s form a cycle that never passes through an object, so no Rust type can exist.
    RefCycle,
    /// Two documents define the same schema name differently.
    ConflictingDefinition,
    /// An operation or path is malformed.
    InvalidOperation,
    /// Writing or checking the output failed.
    Output,
    /// A selector matched no schema.
    EmptySelection,
    /// A fixup for an upstream bug targets an input that no longer has the bug.
    StaleFixup,
    /// A warning: a preferred document's definition replaced a different one of the same
    /// name (`Config::prefer`).
    OverriddenDefinition,
    /// A warning: two schemas became one Rust name, and one of them was numbered.
    NumberedName,
    /// A warning: a definition's shape changes between the releases merged
    /// (`Config::release_input`): a field's type or requiredness; the generated shape reads
    /// every release's objects.
    ReleaseShapeChange,
    /// The releases given do not fit the inputs (`Config::release_input`, `--releases`).
    Releases,
    /// The `.proto` files cannot be read or compiled (`Config::proto`, `--proto`).
    Protobuf,
    /// A warning: a protobuf message and its schema disagree (a field on one side only, or of
    /// another type); see `model/protobuf.rs`.
    ProtobufMismatch,
}

impl ErrorKind {
    /// The kebab-case name shown as `error[name]`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Io => "io",
            ErrorKind::Syntax => "syntax",
            ErrorKind::UnknownDocument => "unknown-document",
            ErrorKind::InvalidSchema => "invalid-schema",
            ErrorKind::UnsupportedSchema => "unsupported-schema",
            ErrorKind::DanglingRef => "dangling-ref",
            ErrorKind::RefCycle => "ref-cycle",
            ErrorKind::ConflictingDefinition => "conflicting-definition",
            ErrorKind::InvalidOperation => "invalid-operation",
            ErrorKind::Output => "output",
            ErrorKind::EmptySelection => "empty-selection",
            ErrorKind::StaleFixup => "stale-fixup",
            ErrorKind::OverriddenDefinition => "overridden-definition",
            ErrorKind::NumberedName => "numbered-name",
            ErrorKind::ReleaseShapeChange => "release-shape-change",
            ErrorKind::Releases => "releases",
            ErrorKind::Protobuf => "protobuf",
            ErrorKind::ProtobufMismatch => "protobuf-mismatch",
        }
    }
}

impl ErrorKind {
    /// Whether this kind is a warning (the run succeeds, `Output::warnings`) rather than an
    /// error.
    pub fn is_warning(self) -> bool {
        matches!(
            self,
            ErrorKind::OverriddenDefinition
                | ErrorKind::NumberedName
                | ErrorKind::ReleaseShapeChange
                | ErrorKind::ProtobufMismatch
        )
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where in the input a node came from: a file and a JSON pointer (RFC 6901) into it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    /// The input file, as it was given to the generator.
    pub file: PathBuf,
    /// The JSON pointer of the node, e.g. `/components/schemas/io.k8s.api.core.v1.Pod`.
    pub pointer: String,
}

impl Origin {
    /// The root node of `file`.
    pub fn root(file: &Path) -> Origin {
        Origin {
            file: file.to_path_buf(),
            pointer: String::new(),
        }
    }

    /// The child of this node under the object key or array index `token`.
    pub fn child(&self, token: &str) -> Origin {
        let mut pointer = String::with_capacity(self.pointer.len() + token.len() + 1);
        pointer.push_str(&self.pointer);
        pointer.push('/');
        if token.contains(['~', '/']) {
            for c in token.chars() {
                match c {
                    '~' => pointer.push_str("~0"),
                    '/' => pointer.push_str("~1"),
                    c => pointer.push(c),
                }
            }
        } else {
            pointer.push_str(token);
        }
        Origin {
            file: self.file.clone(),
            pointer,
        }
    }
}

impl fmt::Display for Origin {
    /// `file#pointer`, or only the file for the whole of it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            write!(f, "{}", self.file.display())
        } else {
            write!(f, "{}#{}", self.file.display(), self.pointer)
        }
    }
}

/// The file a diagnostic is about and the index (from 0) of the document in it: the
/// loader names document `n` of a multi-document file `file (document n)`.
pub fn split_document(file: &Path) -> (PathBuf, usize) {
    let text = file.to_string_lossy();
    if let Some((name, rest)) = text.rsplit_once(" (document ")
        && let Some(number) = rest.strip_suffix(')')
        && let Ok(number) = number.parse::<usize>()
        && number > 0
    {
        return (PathBuf::from(name), number - 1);
    }
    (file.to_path_buf(), 0)
}

/// `origin` with its file renamed by the first of `renames` that names it (a document of a
/// multi-document file included).
fn rename_origin(origin: &mut Origin, renames: &[(PathBuf, PathBuf)]) {
    let (file, document) = split_document(&origin.file);
    if let Some((_, to)) = renames.iter().find(|(from, _)| *from == file) {
        origin.file = if file == origin.file {
            to.clone()
        } else {
            PathBuf::from(format!("{} (document {})", to.display(), document + 1))
        };
    }
}

/// `text` with the file `from` renamed `to` where it names a place (`from#…`, `from
/// (document …`) or is quoted as code, alone (`` `from` ``) or at the end of a command line
/// (`` `--prefer from` ``).
fn rename_in(text: &str, from: &str, to: &str) -> String {
    text.replace(&format!("{from}#"), &format!("{to}#"))
        .replace(&format!("{from} (document"), &format!("{to} (document"))
        .replace(&format!("`{from}`"), &format!("`{to}`"))
        .replace(&format!(" {from}`"), &format!(" {to}`"))
}

/// A position in a source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineColumn {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in characters.
    pub column: usize,
    /// The byte offset.
    pub offset: usize,
}

/// One problem in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The category of problem.
    pub kind: ErrorKind,
    /// Where it is.
    pub origin: Origin,
    /// What is wrong, phrased as what was expected and what was found.
    pub message: String,
    /// How to fix it, where the generator knows.
    pub hint: Option<String>,
    /// Where in the file's text the node is, when the parser could tell (JSON inputs).
    pub location: Option<LineColumn>,
}

impl Diagnostic {
    /// Renames each file `from` to `to` in the origin (a document of a multi-document file
    /// included) and where the message and hint name it; see [`Error::rename_files`].
    pub fn rename_files(&mut self, renames: &[(PathBuf, PathBuf)]) {
        rename_origin(&mut self.origin, renames);
        for (from, to) in renames {
            let (from, to) = (from.display().to_string(), to.display().to_string());
            if from == to {
                continue;
            }
            self.message = rename_in(&self.message, &from, &to);
            self.hint = self.hint.as_deref().map(|h| rename_in(h, &from, &to));
        }
    }

    /// A problem of `kind` at `origin`.
    pub fn new(kind: ErrorKind, origin: &Origin, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind,
            origin: origin.clone(),
            message: message.into(),
            hint: None,
            location: None,
        }
    }

    /// Adds a hint.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = if self.kind.is_warning() {
            "warning"
        } else {
            "error"
        };
        writeln!(f, "{level}[{}]: {}", self.kind, self.message)?;
        match self.location {
            Some(at) => {
                let (file, _) = split_document(&self.origin.file);
                write!(f, "  --> {}:{}:{}", file.display(), at.line, at.column)?;
                if !self.origin.pointer.is_empty() {
                    write!(f, " at #{}", self.origin.pointer)?;
                }
            }
            None => write!(f, "  --> {}", self.origin)?,
        }
        if let Some(hint) = &self.hint {
            write!(f, "\n  = hint: {hint}")?;
        }
        Ok(())
    }
}

/// Something the generator did that the user should know of but that is no error, such as a
/// document of a bundle it skipped or an extern pattern that matched nothing. The command line
/// prints each one; [`crate::Output::notes`] lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Where it concerns.
    pub origin: Origin,
    /// What happened.
    pub message: String,
}

impl Note {
    /// Renames each file `from` to `to` where the note names it, as
    /// [`Diagnostic::rename_files`] does.
    pub fn rename_files(&mut self, renames: &[(PathBuf, PathBuf)]) {
        rename_origin(&mut self.origin, renames);
        for (from, to) in renames {
            let (from, to) = (from.display().to_string(), to.display().to_string());
            if from != to {
                self.message = rename_in(&self.message, &from, &to);
            }
        }
    }

    /// A note about `origin`.
    pub fn new(origin: &Origin, message: impl Into<String>) -> Note {
        Note {
            origin: origin.clone(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "note: {}", self.message)?;
        // Notes about the configuration have no place in an input to point at.
        if self.origin.file != Path::new("<config>") {
            write!(f, "\n  --> {}", self.origin)?;
        }
        Ok(())
    }
}

/// The error of a generator run: one or more diagnostics, in input order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    diagnostics: Vec<Diagnostic>,
}

impl Error {
    /// The diagnostics, at least one.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The problems of two stages that ran one after the other although the first found
    /// some (load leaves a malformed part out, so the model can report the independent
    /// problems it finds): both lists, in the order of their places (file, then JSON
    /// pointer), so that the report reads like the input.
    pub(crate) fn join_stages<T>(first: Option<Error>, then: Result<T, Error>) -> Result<T, Error> {
        match (first, then) {
            (None, then) => then,
            (Some(first), Ok(_)) => Err(first),
            (Some(first), Err(then)) => {
                let mut diagnostics = first.diagnostics;
                diagnostics.extend(then.diagnostics);
                diagnostics.sort_by(|a, b| a.origin.cmp(&b.origin));
                Err(Error { diagnostics })
            }
        }
    }

    /// The kinds of all diagnostics, in order (convenient for tests).
    pub fn kinds(&self) -> Vec<ErrorKind> {
        self.diagnostics.iter().map(|d| d.kind).collect()
    }

    /// Fills in line and column for diagnostics in files that `read` can provide the text
    /// of (by the file name the diagnostic shows), JSON or YAML, in whichever document of a
    /// multi-document file the diagnostic names. A diagnostic about a whole document (the
    /// empty pointer) gets no position: a marker at 1:1 would point at nothing in particular.
    pub(crate) fn locate(mut self, read: impl Fn(&Path) -> Option<String>) -> Error {
        locate_all(&mut self.diagnostics, read);
        self
    }

    /// The same diagnostics with each file `from` renamed `to`, in their origins (a
    /// document of a multi-document file included) and where messages and hints name it.
    /// The command line shows inputs as typed, while generated headers name them otherwise.
    #[must_use]
    pub fn rename_files(mut self, renames: &[(PathBuf, PathBuf)]) -> Error {
        for diagnostic in &mut self.diagnostics {
            diagnostic.rename_files(renames);
        }
        self
    }

    /// Both errors' diagnostics, this one's first.
    pub(crate) fn join(mut self, other: Error) -> Error {
        self.diagnostics.extend(other.diagnostics);
        self
    }
}

/// Fills in line and column for `diagnostics` (see [`Error::locate`]).
pub(crate) fn locate_all(diagnostics: &mut [Diagnostic], read: impl Fn(&Path) -> Option<String>) {
    // Each file is read, and a YAML file parsed, once for all its diagnostics.
    let mut texts: std::collections::BTreeMap<PathBuf, Option<String>> =
        std::collections::BTreeMap::new();
    for diagnostic in diagnostics.iter() {
        let (file, _) = split_document(&diagnostic.origin.file);
        if let std::collections::btree_map::Entry::Vacant(entry) = texts.entry(file) {
            let text = read(entry.key());
            entry.insert(text);
        }
    }
    let locators: std::collections::BTreeMap<&PathBuf, locate::Locator<'_>> = texts
        .iter()
        .filter_map(|(file, text)| Some((file, locate::Locator::new(text.as_deref()?))))
        .collect();
    for diagnostic in diagnostics.iter_mut() {
        let (file, document) = split_document(&diagnostic.origin.file);
        // A whole single document has no place to point at; a document of several
        // starts somewhere.
        let whole = diagnostic.origin.pointer.is_empty() && file == diagnostic.origin.file;
        if diagnostic.location.is_some() || whole {
            continue;
        }
        if let Some(locator) = locators.get(&file) {
            diagnostic.location = locator.line_column(document, &diagnostic.origin.pointer);
        }
    }
}

impl From<Diagnostic> for Error {
    fn from(diagnostic: Diagnostic) -> Error {
        Error {
            diagnostics: vec![diagnostic],
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                f.write_str("\n\n")?;
            }
            write!(f, "{d}")?;
        }
        if self.diagnostics.len() > 1 {
            write!(f, "\n\n{} errors", self.diagnostics.len())?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Collects diagnostics from stages that keep going after a problem, so one run reports
/// every independent error.
#[derive(Debug, Default)]
pub(crate) struct Diagnostics {
    list: Vec<Diagnostic>,
}

impl Diagnostics {
    pub(crate) fn push(&mut self, diagnostic: Diagnostic) {
        self.list.push(diagnostic);
    }

    /// How many diagnostics were recorded so far.
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// Every recorded diagnostic, in order.
    pub(crate) fn into_vec(self) -> Vec<Diagnostic> {
        self.list
    }

    /// `Ok(value)` when nothing was recorded, otherwise every recorded diagnostic.
    pub(crate) fn finish<T>(self, value: T) -> Result<T, Error> {
        if self.list.is_empty() {
            Ok(value)
        } else {
            Err(Error {
                diagnostics: self.list,
            })
        }
    }
}
