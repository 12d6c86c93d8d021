//! The `.proto` files of an API (`Config::proto`, `--proto DIR`), read with a real protobuf
//! compiler (protox), and the built-in meta types' messages (`builtin_protobuf.tsv`): each
//! message with its fields' names, numbers and types, and where it is (file and line) for the
//! diagnostics of the model, which matches them to the schemas (`model/protobuf.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::diagnostics::{Diagnostic, Error, ErrorKind, Origin};

/// Every message read, by its full name without the leading dot
/// (`k8s.io.api.core.v1.Pod`).
#[derive(Clone, Debug, Default)]
pub struct ProtoSet {
    /// The messages, map entries included.
    pub messages: BTreeMap<String, ProtoMessage>,
}

/// One message.
#[derive(Clone, Debug)]
pub struct ProtoMessage {
    /// The file it is in, as the user named it (the directory joined with its import path).
    pub file: PathBuf,
    /// Its line, from 1 (0 when unknown).
    pub line: usize,
    /// Its fields, in the order declared.
    pub fields: Vec<ProtoField>,
    /// Whether it is the entry of a map field (`map<K, V>`).
    pub map_entry: bool,
}

/// One field of a message.
#[derive(Clone, Debug)]
pub struct ProtoField {
    /// Its name (Kubernetes' are the JSON names).
    pub name: String,
    /// Its number.
    pub number: u32,
    /// Whether it is `repeated` (a map field is too).
    pub repeated: bool,
    /// Its type.
    pub ty: ProtoType,
    /// Its line, from 1 (0 when unknown).
    pub line: usize,
}

/// A field's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtoType {
    /// A scalar, by its protobuf name (`string`, `int32`, `bytes`, …).
    Scalar(&'static str),
    /// A message, by full name without the leading dot.
    Message(String),
}

impl ProtoSet {
    /// The message named `name`.
    pub fn get(&self, name: &str) -> Option<&ProtoMessage> {
        self.messages.get(name)
    }

    /// The message a schema name stands for: `io.k8s.api.core.v1.Pod` ↔
    /// `k8s.io.api.core.v1.Pod`, with `-` in a repository's name as `_`
    /// (`io.k8s.apiextensions-apiserver…` ↔ `k8s.io.apiextensions_apiserver…`).
    pub fn message_name(schema: &str) -> Option<String> {
        let rest = schema.strip_prefix("io.k8s.")?;
        Some(format!("k8s.io.{}", rest.replace('-', "_")))
    }

    /// The value type of a map field's entry message, if `name` is one.
    pub fn map_value(&self, name: &str) -> Option<&ProtoType> {
        let entry = self.get(name).filter(|m| m.map_entry)?;
        entry.fields.iter().find(|f| f.number == 2).map(|f| &f.ty)
    }

    /// Adds `other`'s messages that `self` lacks.
    pub fn extend(&mut self, other: ProtoSet) {
        for (name, message) in other.messages {
            self.messages.entry(name).or_insert(message);
        }
    }
}

fn scalar_name(ty: i32) -> Option<&'static str> {
    Some(match ty {
        1 => "double",
        2 => "float",
        3 => "int64",
        4 => "uint64",
        5 => "int32",
        6 => "fixed64",
        7 => "fixed32",
        8 => "bool",
        9 => "string",
        12 => "bytes",
        13 => "uint32",
        14 => "enum",
        15 => "sfixed32",
        16 => "sfixed64",
        17 => "sint32",
        18 => "sint64",
        _ => return None,
    })
}

fn proto_error(dir: &Path, message: String) -> Error {
    Diagnostic::new(ErrorKind::Protobuf, &Origin::root(dir), message).into()
}

/// Every `.proto` file under `dir` (by import path relative to it), sorted.
fn proto_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let entries = std::fs::read_dir(&current).map_err(|e| {
            proto_error(
                dir,
                format!(
                    "expected a directory of .proto files, but `{}` cannot be read: {e}",
                    current.display()
                ),
            )
        })?;
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "proto")
                && let Ok(relative) = path.strip_prefix(dir)
            {
                files.push(relative.to_path_buf());
            }
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(proto_error(
            dir,
            format!(
                "expected .proto files under `{}`, but there are none",
                dir.display()
            ),
        ));
    }
    Ok(files)
}

/// Reads every `.proto` file under `dir`, imports resolved against `dir`.
pub fn load_dir(dir: &Path) -> Result<ProtoSet, Error> {
    let files = proto_files(dir)?;
    let mut compiler = protox::Compiler::new([dir])
        .map_err(|e| proto_error(dir, format!("expected readable .proto files, but {e}")))?;
    compiler.include_source_info(true);
    compiler.open_files(&files).map_err(|e| {
        proto_error(
            dir,
            format!("expected .proto files protox compiles, but {e}"),
        )
    })?;
    let set = compiler.file_descriptor_set();
    let mut out = ProtoSet::default();
    for file in &set.file {
        let path = dir.join(file.name());
        let lines: BTreeMap<Vec<i32>, usize> = file
            .source_code_info
            .iter()
            .flat_map(|info| &info.location)
            .filter_map(|loc| {
                let line = usize::try_from(*loc.span.first()?).ok()? + 1;
                Some((loc.path.clone(), line))
            })
            .collect();
        for (index, message) in file.message_type.iter().enumerate() {
            let at = vec![4, i32::try_from(index).unwrap_or(i32::MAX)];
            add_message(&mut out, &path, &lines, file.package(), &at, message);
        }
    }
    Ok(out)
}

fn add_message(
    out: &mut ProtoSet,
    file: &Path,
    lines: &BTreeMap<Vec<i32>, usize>,
    scope: &str,
    at: &[i32],
    message: &prost_types::DescriptorProto,
) {
    let name = format!("{scope}.{}", message.name());
    let fields = message
        .field
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let mut path = at.to_vec();
            path.extend([2, i32::try_from(index).unwrap_or(i32::MAX)]);
            let ty = match scalar_name(field.r#type.unwrap_or(0)) {
                Some(scalar) => ProtoType::Scalar(scalar),
                None => ProtoType::Message(field.type_name().trim_start_matches('.').to_owned()),
            };
            ProtoField {
                name: field.name().to_owned(),
                number: u32::try_from(field.number()).unwrap_or(0),
                repeated: field.label == Some(3),
                ty,
                line: lines.get(&path).copied().unwrap_or(0),
            }
        })
        .collect();
    for (index, nested) in message.nested_type.iter().enumerate() {
        let mut path = at.to_vec();
        path.extend([3, i32::try_from(index).unwrap_or(i32::MAX)]);
        add_message(out, file, lines, &name, &path, nested);
    }
    out.messages.insert(
        name,
        ProtoMessage {
            file: file.to_path_buf(),
            line: lines.get(at).copied().unwrap_or(0),
            fields,
            map_entry: message.options.as_ref().is_some_and(|o| o.map_entry()),
        },
    );
}

/// The messages of the built-in meta types, from the committed table: what the companion
/// crate `kubeforge-meta` is generated with, which has no `.proto` files among its inputs.
pub fn builtin() -> ProtoSet {
    const TABLE: &str = include_str!("builtin_protobuf.tsv");
    let file = PathBuf::from("codegen/src/load/builtin_protobuf.tsv");
    let mut out = ProtoSet::default();
    for (index, line) in TABLE.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let columns: Vec<&str> = line.split('\t').collect();
        let [message, name, number, label, ty] = columns[..] else {
            continue;
        };
        let ty = ty.trim_start_matches('.');
        let (ty, map) = match ty
            .strip_prefix("map<string,")
            .and_then(|t| t.strip_suffix('>'))
        {
            Some(value) => (value, true),
            None => (ty, false),
        };
        let ty = match ty {
            "string" => ProtoType::Scalar("string"),
            "bool" => ProtoType::Scalar("bool"),
            "int32" => ProtoType::Scalar("int32"),
            "int64" => ProtoType::Scalar("int64"),
            "bytes" => ProtoType::Scalar("bytes"),
            "double" => ProtoType::Scalar("double"),
            other => ProtoType::Message(other.trim_start_matches('.').to_owned()),
        };
        let ty = if map {
            // A map field's entry, named as protoc names it (`LabelsEntry`).
            let entry = format!("{message}.{}Entry", upper_first(name));
            out.messages.insert(
                entry.clone(),
                ProtoMessage {
                    file: file.clone(),
                    line: index + 1,
                    fields: vec![
                        ProtoField {
                            name: "key".into(),
                            number: 1,
                            repeated: false,
                            ty: ProtoType::Scalar("string"),
                            line: index + 1,
                        },
                        ProtoField {
                            name: "value".into(),
                            number: 2,
                            repeated: false,
                            ty,
                            line: index + 1,
                        },
                    ],
                    map_entry: true,
                },
            );
            ProtoType::Message(entry)
        } else {
            ty
        };
        let entry = out
            .messages
            .entry(message.to_owned())
            .or_insert_with(|| ProtoMessage {
                file: file.clone(),
                line: index + 1,
                fields: Vec::new(),
                map_entry: false,
            });
        entry.fields.push(ProtoField {
            name: name.to_owned(),
            number: number.parse().unwrap_or(0),
            repeated: label == "repeated" || map,
            ty,
            line: index + 1,
        });
    }
    out
}

fn upper_first(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}
