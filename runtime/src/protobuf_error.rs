//! A decoding error: what went wrong, at which byte, in which field.

use std::fmt;

/// Bytes that do not read as the message: the byte offset (from the start of the decoded
/// buffer) and the field path (`spec.containers[0].ports`) where they went wrong.
///
/// One pointer wide (its contents are boxed), so a `Result<_, DecodeError>` on the decoding
/// path stays in registers, and building or annotating one is out of line and cold.
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<Inner>);

#[derive(Clone, PartialEq, Eq)]
struct Inner {
    offset: usize,
    /// The path from the innermost step outwards (pushed while the error unwinds).
    path: Vec<Step>,
    message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Field(&'static str),
    Index(usize),
    Key(String),
}

impl DecodeError {
    /// An error at byte `offset`.
    pub fn new(offset: usize, message: impl Into<String>) -> Self {
        Self::at(offset, message.into())
    }

    #[cold]
    #[inline(never)]
    fn at(offset: usize, message: String) -> Self {
        DecodeError(Box::new(Inner {
            offset,
            path: Vec::new(),
            message,
        }))
    }

    /// The error inside field `name` (the JSON name) of the message around it.
    #[must_use]
    #[cold]
    #[inline(never)]
    pub fn field(mut self, name: &'static str) -> Self {
        self.0.path.push(Step::Field(name));
        self
    }

    /// The error inside element `index` of a list.
    #[must_use]
    #[cold]
    #[inline(never)]
    pub fn index(mut self, index: usize) -> Self {
        self.0.path.push(Step::Index(index));
        self
    }

    /// The error inside the value of key `key` of a map.
    #[must_use]
    #[cold]
    #[inline(never)]
    pub fn key(mut self, key: &str) -> Self {
        self.0.path.push(Step::Key(key.to_owned()));
        self
    }

    /// The error with its offset moved by `by` bytes: for bytes decoded on their own that
    /// sit inside a larger buffer (a watch event's object).
    #[must_use]
    #[cold]
    #[inline(never)]
    pub fn shifted(mut self, by: usize) -> Self {
        self.0.offset += by;
        self
    }

    /// The byte offset where the bytes went wrong.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// The field path, as `spec.containers[0].name` (empty at the top level).
    pub fn path(&self) -> String {
        let mut out = String::new();
        for step in self.0.path.iter().rev() {
            match step {
                Step::Field(name) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                }
                Step::Index(index) => out.push_str(&format!("[{index}]")),
                Step::Key(key) => out.push_str(&format!("[{key:?}]")),
            }
        }
        out
    }

    /// What went wrong, without the place.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path();
        if path.is_empty() {
            write!(f, "at byte {}: {}", self.0.offset, self.0.message)
        } else {
            write!(
                f,
                "at byte {}, in `{path}`: {}",
                self.0.offset, self.0.message
            )
        }
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeError")
            .field("offset", &self.0.offset)
            .field("path", &self.0.path)
            .field("message", &self.0.message)
            .finish()
    }
}

impl std::error::Error for DecodeError {}
