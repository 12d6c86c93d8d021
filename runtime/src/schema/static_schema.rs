//! What generated code embeds: a [`StaticSchema`] per type (its node as JSON text, parsed
//! once), the [`Validate`] trait, and the server's [`SchemaSet`].

use std::sync::OnceLock;

#[cfg(feature = "validate")]
use super::error::{Errors, FieldError};
use super::{Node, Resolve};

/// A type's schema as generated code embeds it: the node's JSON form, and the schemas of
/// the types its `$ref`s name (`$ref: i` is `refs[i]()`). Built in a `static` by a `const
/// fn`, parsed on first use, once per process.
///
/// A nested (anonymous) type does not repeat its parent's JSON: [`StaticSchema::within`]
/// names a node inside the parent's.
pub struct StaticSchema {
    source: Source,
    node: OnceLock<Result<Node, String>>,
}

enum Source {
    Json {
        json: &'static str,
        refs: Refs,
    },
    Within {
        parent: Link,
        path: &'static [&'static str],
    },
}

/// The schemas a node's `$ref`s name.
enum Refs {
    /// Written by a `static`'s initializer.
    Fns(&'static [fn() -> &'static StaticSchema]),
    /// Read from a [`SchemaTable`]'s data.
    Links(Box<[Link]>),
}

/// One schema named by another.
#[derive(Clone, Copy)]
enum Link {
    Fn(fn() -> &'static StaticSchema),
    Table(&'static SchemaTable, usize),
}

impl Link {
    fn get(self) -> &'static StaticSchema {
        match self {
            Link::Fn(schema) => schema(),
            Link::Table(table, index) => table.get(index),
        }
    }
}

impl StaticSchema {
    /// A schema from its node's JSON form and the schemas its references name.
    #[must_use]
    pub const fn new(json: &'static str, refs: &'static [fn() -> &'static StaticSchema]) -> Self {
        Self {
            source: Source::Json {
                json,
                refs: Refs::Fns(refs),
            },
            node: OnceLock::new(),
        }
    }

    /// The node at `path` inside `parent`'s node (`["properties", "spec", "items"]`;
    /// `additionalProperties`, `allOf`/`oneOf`/`anyOf` followed by an index, and `not`
    /// step through those keywords), resolving references as the parent does.
    #[must_use]
    pub const fn within(
        parent: fn() -> &'static StaticSchema,
        path: &'static [&'static str],
    ) -> Self {
        Self {
            source: Source::Within {
                parent: Link::Fn(parent),
                path,
            },
            node: OnceLock::new(),
        }
    }

    /// The node, or why it cannot be read (an internal error of the generator: the
    /// JSON is written by it).
    ///
    /// # Errors
    /// The JSON or the path does not give a node.
    pub fn node(&self) -> Result<&Node, &str> {
        self.node
            .get_or_init(|| match &self.source {
                Source::Json { json, .. } => {
                    serde_json::from_str(json).map_err(|e| format!("schema JSON: {e}"))
                }
                Source::Within { parent, path } => {
                    let parent = parent.get().node().map_err(str::to_owned)?;
                    descend(parent, path)
                        .cloned()
                        .ok_or_else(|| format!("no node at {}", path.join("/")))
                }
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// The schema the node's `$ref: index` names (a nested node's are its parent's).
    fn reference(&self, index: usize) -> Option<&'static StaticSchema> {
        match &self.source {
            Source::Json {
                refs: Refs::Fns(refs),
                ..
            } => Some(refs.get(index)?()),
            Source::Json {
                refs: Refs::Links(links),
                ..
            } => Some(links.get(index)?.get()),
            Source::Within { parent, .. } => parent.get().reference(index),
        }
    }
}

impl std::fmt::Debug for StaticSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticSchema")
            .field("node", &self.node())
            .finish()
    }
}

fn descend<'a>(node: &'a Node, path: &[&str]) -> Option<&'a Node> {
    let Some((first, rest)) = path.split_first() else {
        return Some(node);
    };
    match *first {
        "properties" => {
            let (name, rest) = rest.split_first()?;
            descend(node.properties.get(*name)?, rest)
        }
        "items" => descend(node.items.as_deref()?, rest),
        "additionalProperties" => match node.additional_properties.as_deref()? {
            super::Additional::Schema(s) => descend(s, rest),
            super::Additional::Allowed(_) => None,
        },
        "not" => descend(node.not.as_deref()?, rest),
        word @ ("allOf" | "oneOf" | "anyOf") => {
            let (index, rest) = rest.split_first()?;
            let i: usize = index.parse().ok()?;
            let list = match word {
                "allOf" => &node.all_of,
                "oneOf" => &node.one_of,
                _ => &node.any_of,
            };
            descend(list.get(i)?, rest)
        }
        _ => None,
    }
}

impl Resolve for StaticSchema {
    fn resolve(&self, index: usize) -> Option<(&Node, &dyn Resolve)> {
        let target = self.reference(index)?;
        Some((target.node().ok()?, target))
    }
}

/// Every schema of a generated crate in one piece of data, read at first use: the crate's
/// `Validate::schema` functions return [`SchemaTable::get`]`(i)`. A `static` per type (741
/// in Kubernetes 1.36) cost the crate's build 0.4 s of constant evaluation; one string
/// literal costs nothing.
///
/// The data is one record a line, its fields separated by tabs; `\\`, `\t`, `\n` and `\c`
/// in a path step stand for a backslash, a tab, a newline and a comma. `J`, the type's index,
/// its references (a list of `t<index>`, another schema of the table, or `f<index>`, an
/// entry of `foreign`), and its node as JSON; or `W`, the type's index, its parent's
/// index and the path to its node inside the parent's (a list), as
/// [`StaticSchema::within`].
pub struct SchemaTable {
    data: &'static str,
    foreign: &'static [fn() -> &'static StaticSchema],
    schemas: OnceLock<Box<[Option<StaticSchema>]>>,
}

impl SchemaTable {
    /// The table of `data`, whose `f<i>` references name `foreign[i]`.
    #[must_use]
    pub const fn new(
        data: &'static str,
        foreign: &'static [fn() -> &'static StaticSchema],
    ) -> Self {
        Self {
            data,
            foreign,
            schemas: OnceLock::new(),
        }
    }

    /// The schema of the type at `index`. One the data lacks is a schema that cannot be
    /// read (an internal error of the generator, reported when it is used).
    #[must_use]
    pub fn get(&'static self, index: usize) -> &'static StaticSchema {
        static MISSING: StaticSchema = StaticSchema::new("", &[]);
        let schemas = self.schemas.get_or_init(|| self.decode());
        schemas
            .get(index)
            .and_then(Option::as_ref)
            .unwrap_or(&MISSING)
    }

    fn decode(&'static self) -> Box<[Option<StaticSchema>]> {
        let mut schemas: Vec<Option<StaticSchema>> = Vec::new();
        for record in self.data.split('\n') {
            let mut fields = record.split('\t');
            let tag = fields.next().unwrap_or_default();
            let mut next = move || fields.next().unwrap_or_default();
            let Ok(index) = next().parse::<usize>() else {
                continue;
            };
            let source = match tag {
                "J" => {
                    let refs = next();
                    let links = refs
                        .split(',')
                        .filter(|r| !r.is_empty())
                        .map(|r| self.link(r))
                        .collect();
                    Source::Json {
                        json: next(),
                        refs: Refs::Links(links),
                    }
                }
                "W" => {
                    let parent = next().parse().unwrap_or(usize::MAX);
                    let path = next();
                    let path: &'static [&'static str] = if path.is_empty() {
                        &[]
                    } else {
                        Box::leak(path.split(',').map(crate::route::unescape).collect())
                    };
                    Source::Within {
                        parent: Link::Table(self, parent),
                        path,
                    }
                }
                _ => continue,
            };
            if schemas.len() <= index {
                schemas.resize_with(index + 1, || None);
            }
            schemas[index] = Some(StaticSchema {
                source,
                node: OnceLock::new(),
            });
        }
        schemas.into_boxed_slice()
    }

    /// The schema a reference names: `t<index>` or `f<index>`; anything else names one that
    /// cannot be read.
    fn link(&'static self, reference: &str) -> Link {
        fn missing() -> &'static StaticSchema {
            static MISSING: StaticSchema = StaticSchema::new("", &[]);
            &MISSING
        }
        let index = |text: &str| text.parse::<usize>().ok();
        if let Some(i) = reference.strip_prefix('t').and_then(index) {
            return Link::Table(self, i);
        }
        reference
            .strip_prefix('f')
            .and_then(index)
            .and_then(|i| self.foreign.get(i))
            .map_or(Link::Fn(missing), |f| Link::Fn(*f))
    }
}

impl std::fmt::Debug for SchemaTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaTable").finish_non_exhaustive()
    }
}

/// Validation of a generated type against its schema.
///
/// Generated code implements [`Validate::schema`] only; the methods serialize the value
/// and run the evaluator (with the runtime's `validate` feature), so each impl is one
/// short function:
///
/// ```
/// use kubeforge_runtime::schema::{StaticSchema, Validate};
///
/// #[derive(serde::Serialize)]
/// pub struct WidgetSpec {
///     pub replicas: i32,
///     #[serde(skip_serializing_if = "Option::is_none")]
///     pub url: Option<String>,
/// }
///
/// impl Validate for WidgetSpec {
///     fn schema() -> &'static StaticSchema {
///         static SCHEMA: StaticSchema = StaticSchema::new(
///             r#"{"type":"object","required":["replicas"],"properties":{"replicas":{"type":"integer","minimum":0},"url":{"type":"string","minLength":1}},"rules":[{"rule":"self.replicas <= 10","message":"at most 10"}]}"#,
///             &[],
///         );
///         &SCHEMA
///     }
/// }
///
/// # #[cfg(feature = "validate")] {
/// let ok = WidgetSpec { replicas: 3, url: None };
/// assert!(ok.validate().is_ok());
/// let bad = WidgetSpec { replicas: -1, url: Some(String::new()) };
/// let errors = bad.validate().unwrap_err();
/// assert_eq!(
///     errors.to_string(),
///     "[replicas: Invalid value: -1: replicas in body should be greater than or equal to 0, \
///      url: Invalid value: \"\": url in body should be at least 1 chars long]"
/// );
/// let too_many = WidgetSpec { replicas: 11, url: None };
/// assert_eq!(too_many.validate().unwrap_err().to_string(), "<nil>: Invalid value: \"object\": at most 10");
/// # }
/// ```
pub trait Validate {
    /// The type's schema.
    fn schema() -> &'static StaticSchema
    where
        Self: Sized;

    /// Every error of the value against its schema, as the API server reports them on
    /// create.
    ///
    /// # Errors
    /// All of them (an unreadable embedded schema is one internal error).
    #[cfg(feature = "validate")]
    fn validate(&self) -> Result<(), Errors>
    where
        Self: serde::Serialize + Sized,
    {
        run(Self::schema(), self, None::<&Self>)
    }

    /// As [`Validate::validate`], on update from `old`: transition rules (`oldSelf`) run.
    ///
    /// # Errors
    /// All of them.
    #[cfg(feature = "validate")]
    fn validate_update(&self, old: &Self) -> Result<(), Errors>
    where
        Self: serde::Serialize + Sized,
    {
        run(Self::schema(), self, Some(old))
    }
}

#[cfg(feature = "validate")]
fn run<T: serde::Serialize>(
    schema: &'static StaticSchema,
    value: &T,
    old: Option<&T>,
) -> Result<(), Errors> {
    let internal = |detail: String| Errors(vec![FieldError::internal("<nil>", detail)]);
    let node = schema.node().map_err(|e| internal(e.to_owned()))?;
    let value = serde_json::to_value(value).map_err(|e| internal(e.to_string()))?;
    let old = old
        .map(serde_json::to_value)
        .transpose()
        .map_err(|e| internal(e.to_string()))?;
    Errors(super::validate(node, schema, &value, old.as_ref())).into_result()
}

/// The schemas of an API, each at its position: `$ref: i` names `nodes[i]`. The
/// in-memory server builds one from the model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SchemaSet {
    /// The nodes.
    pub nodes: Vec<Node>,
}

impl SchemaSet {
    /// A set of nodes.
    #[must_use]
    pub fn new(nodes: Vec<Node>) -> Self {
        Self { nodes }
    }

    /// The node at `index`.
    #[must_use]
    pub fn get(&self, index: usize) -> Option<&Node> {
        self.nodes.get(index)
    }
}

impl Resolve for SchemaSet {
    fn resolve(&self, index: usize) -> Option<(&Node, &dyn Resolve)> {
        Some((self.nodes.get(index)?, self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static LEAF: StaticSchema = StaticSchema::new(r#"{"type":"string","maxLength":2}"#, &[]);
    static ROOT: StaticSchema = StaticSchema::new(
        r#"{"type":"object","properties":{"spec":{"type":"object","properties":{"items":{"type":"array","items":{"$ref":0}}}}}}"#,
        &[|| &LEAF],
    );
    static ITEMS: StaticSchema =
        StaticSchema::within(|| &ROOT, &["properties", "spec", "properties", "items"]);
    static BROKEN: StaticSchema = StaticSchema::new("{not json", &[]);

    #[test]
    fn nested_nodes_and_references_resolve() {
        let items = ITEMS.node().unwrap();
        assert_eq!(items.items.as_ref().unwrap().reference, Some(0));
        let (leaf, _) = ITEMS.resolve(0).unwrap();
        assert_eq!(leaf.max_length, Some(2));
        assert!(BROKEN.node().unwrap_err().starts_with("schema JSON:"));
        assert!(ROOT.resolve(5).is_none());
    }

    /// Index 0 names index 2 and the foreign `LEAF`; 1 is inside 0; 3 has a comma in its
    /// path; nothing is at 4.
    static TABLE: SchemaTable = SchemaTable::new(
        "J\t0\tt2,f0\t{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{\"items\":{\"$ref\":1}}},\"name\":{\"$ref\":0}}}\n\
         W\t1\t0\tproperties,spec\n\
         J\t2\t\t{\"type\":\"integer\",\"minimum\":3}\n\
         W\t3\t5\tproperties,a\\cb\n\
         J\tx\n",
        &[|| &LEAF],
    );

    #[test]
    fn a_table_resolves_its_own_and_foreign_references() {
        let root = TABLE.get(0);
        let (local, _) = root.resolve(0).unwrap();
        assert!(local.minimum.is_some());
        let (foreign, _) = root.resolve(1).unwrap();
        assert_eq!(foreign.max_length, Some(2));
        let spec = TABLE.get(1);
        assert!(spec.node().unwrap().properties.contains_key("items"));
        // A nested node resolves through its parent's references.
        assert_eq!(spec.resolve(1).unwrap().0.max_length, Some(2));
        // What the data lacks is an internal error when used, never a panic.
        assert!(TABLE.get(3).node().is_err());
        assert!(TABLE.get(4).node().is_err());
        assert!(TABLE.get(99).node().is_err());
        assert!(root.resolve(2).is_none());
    }
}
