//! Selecting a subset of the typed input: the schemas a selector names, their operations,
//! and the transitive closure of everything they reference, so the subset always compiles.
//! What is left out takes its problems with it ([`super::Problem`]).

use std::collections::{BTreeSet, VecDeque};
use std::path::Path;

use super::{LoadedApi, Owner};
use crate::diagnostics::{Diagnostic, Error, ErrorKind, Origin};
use crate::ground::pattern::{Pattern, Target};
use crate::ground::{Gvk, ModuleRules, naming};

/// A named schema as a pattern sees it: its schema name, the module and type name the
/// model will give it (`ModuleRules::place`, `naming::type_name`; a name numbered for a
/// collision is not known yet), and its group-version-kinds. The sort of item is not known
/// before the model, so `@struct` and `@enum` select nothing.
struct Named<'a> {
    schema: &'a str,
    module: Vec<String>,
    name: String,
    gvks: &'a [Gvk],
}

impl Named<'_> {
    fn target(&self) -> Target<'_> {
        Target {
            schema: self.schema,
            module: &self.module,
            name: &self.name,
            item: None,
            gvks: self
                .gvks
                .iter()
                .map(|g| (g.group.as_str(), g.version.as_str(), g.kind.as_str()))
                .collect(),
        }
    }
}

/// Keeps what `patterns` name plus their closure. A pattern that matches nothing is an
/// error, so a typo never silently generates an empty crate.
pub(crate) fn select(
    loaded: LoadedApi,
    patterns: &[Pattern],
    rules: &ModuleRules,
) -> Result<LoadedApi, Error> {
    if patterns.is_empty() {
        return Ok(loaded);
    }
    let (seeds, selected_gvks) = seeds(&loaded, patterns, rules)?;
    let selected = |gvks: &[Gvk]| gvks.iter().any(|gvk| selected_gvks.contains(gvk));
    let operations: Vec<_> = loaded
        .operations
        .into_iter()
        .filter(|op| selected(&op.gvks))
        .collect();
    let mut seeds = seeds;
    for op in &operations {
        op.schemas()
            .for_each(|schema| schema.references(&mut seeds));
    }

    let mut keep: BTreeSet<String> = BTreeSet::new();
    let mut queue: VecDeque<String> = seeds.into();
    while let Some(name) = queue.pop_front() {
        if !keep.insert(name.clone()) {
            continue;
        }
        if let Some(schema) = loaded.schemas.get(&name) {
            let mut refs = Vec::new();
            schema.schema.references(&mut refs);
            queue.extend(refs.into_iter().filter(|r| !keep.contains(r)));
        }
    }
    let schemas = loaded
        .schemas
        .into_iter()
        .filter(|(name, _)| keep.contains(name))
        .collect();
    let resources = loaded
        .resources
        .into_iter()
        .filter(|r| {
            selected_gvks.iter().any(|g| {
                (g.group.as_str(), g.version.as_str(), g.kind.as_str())
                    == (r.group.as_str(), r.version.as_str(), r.kind.as_str())
            })
        })
        .collect();
    let problems = loaded
        .problems
        .into_iter()
        .filter(|problem| match &problem.owner {
            Owner::Schema(name) => keep.contains(name),
            Owner::Operation(gvks) => selected(gvks),
        })
        .collect();
    Ok(LoadedApi {
        schemas,
        operations,
        resources,
        // The model embeds those of which a resource is left (`model/crds.rs`).
        crds: loaded.crds,
        notes: loaded.notes,
        builtin: loaded.builtin,
        problems,
    })
}

/// The schemas `patterns` name, and the group-version-kinds whose operations they select.
fn seeds(
    loaded: &LoadedApi,
    patterns: &[Pattern],
    rules: &ModuleRules,
) -> Result<(Vec<String>, BTreeSet<Gvk>), Error> {
    let named: Vec<Named<'_>> = loaded
        .schemas
        .iter()
        .map(|(name, schema)| {
            let (module, base) = rules.place(name);
            Named {
                schema: name,
                module,
                name: naming::type_name(&base),
                gvks: &schema.schema.gvks,
            }
        })
        .collect();
    let targets: Vec<Target<'_>> = named.iter().map(Named::target).collect();
    let mut seeds: Vec<String> = Vec::new();
    let mut selected_gvks: BTreeSet<Gvk> = BTreeSet::new();
    for pattern in patterns {
        let option = format!("--select {pattern}");
        if pattern.needs_item() {
            return Err(Diagnostic::new(
                ErrorKind::EmptySelection,
                &Origin::root(Path::new(&option)),
                format!("expected a selection by name, package, module or kind, found `{pattern}`"),
            )
            .with_hint("which schemas become structs or enums is decided after selection")
            .into());
        }
        let before = seeds.len();
        for (schema, target) in named.iter().zip(&targets) {
            if !pattern.matches(target) {
                continue;
            }
            seeds.push(schema.schema.to_owned());
            // Selecting a kind by its group, version or kind selects that kind's operations
            // only; any other pattern selects all of the schema's kinds.
            let by_kind = matches!(
                pattern,
                Pattern::Group(_) | Pattern::GroupVersion { .. } | Pattern::Kind(_)
            );
            selected_gvks.extend(
                schema
                    .gvks
                    .iter()
                    .filter(|g| {
                        !by_kind
                            || pattern.matches(&Target {
                                gvks: vec![(g.group.as_str(), g.version.as_str(), g.kind.as_str())],
                                ..target.clone()
                            })
                    })
                    .cloned(),
            );
        }
        if seeds.len() == before {
            return Err(pattern.miss(&option, "schema", &targets).into());
        }
    }
    Ok((seeds, selected_gvks))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::ground::ModuleRules;
    use crate::ground::pattern::Pattern;
    use crate::load::{finish, load_bytes, merge, select, typed};

    /// Two kinds, one of them with a malformed schema and a malformed operation.
    const DOCUMENT: &str = r##"{"openapi": "3.0.0", "info": {"title": "t", "version": "v1"},
      "paths": {
        "/apis/example.com/v1/goods": {"get": {"operationId": "listGood",
          "x-kubernetes-group-version-kind": {"group": "example.com", "version": "v1", "kind": "Good"},
          "responses": {"200": {"description": "OK", "content": {"application/json":
            {"schema": {"$ref": "#/components/schemas/com.example.v1.GoodList"}}}}}}},
        "/apis/example.com/v1/bads": {"get": {"operationId": "listBad",
          "x-kubernetes-group-version-kind": {"group": "example.com", "version": "v1", "kind": "Bad"},
          "parameters": 7,
          "responses": {"200": {"description": "OK"}}}}
      },
      "components": {"schemas": {
        "com.example.v1.Good": {"type": "object",
          "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Good"}],
          "properties": {"spec": {"$ref": "#/components/schemas/com.example.v1.Spec"}}},
        "com.example.v1.GoodList": {"type": "object",
          "properties": {"items": {"type": "array", "items": {"$ref": "#/components/schemas/com.example.v1.Good"}}}},
        "com.example.v1.Spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
        "com.example.v1.Bad": {"type": "object", "required": "size",
          "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Bad"}]}
      }}}"##;

    /// The schemas kept by selecting `pattern`, and the pointers of the problems reported.
    fn selected(pattern: &str) -> (Vec<String>, Vec<String>) {
        let document = load_bytes(DOCUMENT.as_bytes(), Path::new("a.json")).expect("it loads");
        let loaded = typed(merge(vec![document], &[]).expect("it merges"));
        let patterns: Vec<Pattern> = [pattern]
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| p.parse().expect("a pattern"))
            .collect();
        let loaded = select(loaded, &patterns, &ModuleRules::default()).expect("it selects");
        let (loaded, error) = finish(loaded);
        let problems = error.map_or_else(Vec::new, |e| {
            e.diagnostics()
                .iter()
                .map(|d| d.origin.pointer.clone())
                .collect()
        });
        (loaded.schemas.keys().cloned().collect(), problems)
    }

    /// Selection runs on the typed input: it follows typed references (an operation's
    /// responses, a schema's properties and items), and what it leaves out takes its
    /// problems with it.
    #[test]
    fn selection_keeps_the_closure_and_only_its_problems() {
        let (schemas, problems) = selected("kind=Good");
        assert_eq!(
            schemas,
            [
                "com.example.v1.Good",
                "com.example.v1.GoodList",
                "com.example.v1.Spec"
            ]
        );
        assert!(problems.is_empty(), "{problems:?}");

        let (schemas, problems) = selected("kind=Bad");
        assert_eq!(schemas, ["com.example.v1.Bad"]);
        assert_eq!(
            problems,
            [
                "/components/schemas/com.example.v1.Bad/required",
                "/paths/~1apis~1example.com~1v1~1bads/get/parameters"
            ]
        );

        let (schemas, problems) = selected("");
        assert_eq!(schemas.len(), 4);
        assert_eq!(problems.len(), 2);
    }
}
