//! Errors as data: every problem names the file, the JSON pointer of the offending node,
//! what was expected, and a hint. The generator collects independent problems and reports
//! them together instead of stopping at the first one.

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
        }
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
        for c in token.chars() {
            match c {
                '~' => pointer.push_str("~0"),
                '/' => pointer.push_str("~1"),
                c => pointer.push(c),
            }
        }
        Origin {
            file: self.file.clone(),
            pointer,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.file.display(), self.pointer)
    }
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
        writeln!(f, "error[{}]: {}", self.kind, self.message)?;
        match self.location {
            Some(at) => write!(
                f,
                "  --> {}:{}:{} at #{}",
                self.origin.file.display(),
                at.line,
                at.column,
                self.origin.pointer
            )?,
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

    /// The kinds of all diagnostics, in order (convenient for tests).
    pub fn kinds(&self) -> Vec<ErrorKind> {
        self.diagnostics.iter().map(|d| d.kind).collect()
    }

    /// Fills in line and column for diagnostics in files that `read` can provide the text
    /// of (by the file name the diagnostic shows).
    pub(crate) fn locate(mut self, read: impl Fn(&Path) -> Option<String>) -> Error {
        for diagnostic in &mut self.diagnostics {
            if diagnostic.location.is_none()
                && let Some(text) = read(&diagnostic.origin.file)
            {
                diagnostic.location =
                    crate::load::locate::line_column(&text, &diagnostic.origin.pointer);
            }
        }
        self
    }

    /// Both errors' diagnostics, this one's first.
    pub(crate) fn join(mut self, other: Error) -> Error {
        self.diagnostics.extend(other.diagnostics);
        self
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
