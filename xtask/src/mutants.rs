//! `cargo xtask mutants`: shows that behavioural tests, not only golden text or compile
//! errors, catch the bugs that would break the guide's promises.
//!
//! Each [`Mutant`] is one planted bug: an exact edit of one source file (its text must occur
//! exactly once), and the test targets that must catch it. The workspace's files (those git
//! tracks or would track) are copied to `<target>/mutants/repo`; there, for each mutant in
//! turn, the pristine sources are restored, the bug is planted, the goldens are re-blessed as
//! a careless developer would when the bug is in the generator
//! (`KUBEFORGE_BLESS=1 cargo test -p kubeforge-tests --test golden`), and the mutant's test
//! targets run, each on its own. A mutant is caught when a test of one of them fails; a
//! target that no longer compiles does not count (a compile error is not a behavioural
//! check), nor does a changed golden. A mutant that survives, or whose text no longer
//! occurs exactly once, makes the command fail. A baseline run without a bug must pass
//! first, so that a broken copy cannot pass for a caught mutant (in place, `--tested-by`
//! leaves out of it the targets the test step that has just run proves passed:
//! [`tested_by`]).
//!
//! The copy is built in a target directory of its own, `<target>/mutants/target` (cargo
//! names a workspace's artifacts by their paths inside the workspace, so the copy's would
//! replace the workspace's own in a shared one), incrementally, so that a mutant rebuilds
//! little. Both directories are kept between runs: a second run rebuilds only what changed.
//! Beside the copy, `<target>/mutants/shared` links to the workspace's `../shared`, so that
//! the copy's tests read the same data as the workspace's.
//! The unit test below checks, in every `cargo test`, that each mutant still applies exactly
//! once and names test targets that exist.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

mod tested_by;
use crate::cargo::as_from_a_shell;
pub use tested_by::{log_field, test_environment};

/// One planted bug: in `file`, `find` (which must occur exactly once) becomes `replace`.
#[derive(Debug)]
pub struct Mutant {
    /// Its name, for `--only` and the report.
    pub name: &'static str,
    /// The promise it breaks.
    pub breaks: &'static str,
    /// The file it edits, relative to the workspace root.
    pub file: &'static str,
    /// The text it replaces; it must occur exactly once in `file`.
    pub find: &'static str,
    /// What it puts there instead.
    pub replace: &'static str,
    /// The test targets that must catch it, each `package:target` or
    /// `package:target:filter` (`target` is an integration test's name, or `lib` for the
    /// package's unit tests; `filter` is passed to the test harness).
    pub tests: &'static [&'static str],
}

/// The planted bugs. A change that breaks a mutant's text updates the mutant (the unit test
/// below and the before-stop hook both check that each applies exactly once).
pub const MUTANTS: &[Mutant] = &[
    Mutant {
        name: "unknown-enum-value-lost",
        breaks: "a string enum keeps a value it does not list in `Other(String)`",
        file: "codegen/src/emit/types.rs",
        find: "other => Self::Other(other.to_owned()),",
        replace: "_ => Self::Other(String::new()),",
        tests: &["kubeforge-tests:golden_behaviour"],
    },
    Mutant {
        name: "struct-debug-derived",
        breaks: "a generated struct's `Debug` is its name and its JSON, not the derive",
        file: "codegen/src/emit/types.rs",
        find: "let debug = written_debug(&mut derives);",
        replace: "let debug = false;",
        tests: &["kubeforge-tests:golden_behaviour"],
    },
    Mutant {
        name: "parameter-before-static",
        breaks: "the route matcher tries static segments before a parameter",
        file: "codegen/src/emit/matcher.rs",
        find: "        let fallback = fallback || node.param.is_some();\n        self.statics(code, node, prefix, params, fallback);\n        if let Some(param) = &node.param {\n            self.uses.param_segment = true;\n            code.open(&format!(\n                \"if let Some((param{params}, rest)) = param_segment(rest) {{\"\n            ));\n            self.child(code, param, &format!(\"{prefix}/{{}}\"), params + 1, fallback);\n            code.close(\"}\");\n        }\n",
        replace: "        let fallback = true;\n        if let Some(param) = &node.param {\n            self.uses.param_segment = true;\n            code.open(&format!(\n                \"if let Some((param{params}, rest)) = param_segment(rest) {{\"\n            ));\n            self.child(code, param, &format!(\"{prefix}/{{}}\"), params + 1, fallback);\n            code.close(\"}\");\n        }\n        self.statics(code, node, prefix, params, fallback);\n",
        tests: &["kubeforge-tests:golden_behaviour"],
    },
    Mutant {
        name: "option-swapped",
        breaks: "a required property is `T`, an optional one `Option<T>`",
        file: "codegen/src/model/schema.rs",
        find: "required: merged.required.iter().any(|r| r == property.name),",
        replace: "required: !merged.required.iter().any(|r| r == property.name),",
        tests: &["kubeforge-tests:lossless:goldens_round_trip"],
    },
    Mutant {
        name: "json-name-not-written",
        breaks: "fields are written under their exact JSON name",
        file: "codegen/src/emit/serde_impls.rs",
        find: "    for field in fields {\n        let member = &field.rust_name;\n        let json = str_literal(&field.json_name);",
        replace: "    for field in fields {\n        let member = &field.rust_name;\n        let json = str_literal(&field.rust_name);",
        tests: &[
            "kubeforge-tests:golden_behaviour",
            "kubeforge-tests:mapping_round_trip",
            "kubeforge-tests:properties:a_sample_of_random_outputs_compiles_and_round_trips",
        ],
    },
    Mutant {
        name: "json-name-not-read",
        breaks: "fields are read from their exact JSON name (not kept as unknown fields)",
        file: "codegen/src/emit/serde_impls.rs",
        find: "let json_names: Vec<String> = read.iter().map(|f| str_literal(&f.json_name)).collect();",
        replace: "let json_names: Vec<String> = read.iter().map(|f| str_literal(&f.rust_name)).collect();",
        tests: &[
            "kubeforge-tests:golden_behaviour",
            "kubeforge-tests:mapping_round_trip",
        ],
    },
    Mutant {
        name: "marker-placeholder-present",
        breaks: "a kind's placeholder before reading has no apiVersion and kind (an object read without them is written back without them)",
        file: "codegen/src/emit/serde_impls.rs",
        find: "    if ty.derive_default && !markers {",
        replace: "    if ty.derive_default {",
        tests: &["kubeforge-tests:golden_behaviour"],
    },
    Mutant {
        name: "preserved-fields-dropped",
        breaks: "with `--drop-unknown-fields`, keys the schema preserves (`x-kubernetes-preserve-unknown-fields`) are still kept",
        file: "codegen/src/model/schema.rs",
        find: "            Some(Extra::Preserved(origin)) => Some((\n                \"unknown_fields\",\n                Shape::Json,\n                EXTRA_PRESERVED,\n                origin.clone(),\n            )),",
        replace: "            Some(Extra::Preserved(origin)) => self.options.unknown_fields.then(|| (\n                \"unknown_fields\",\n                Shape::Json,\n                EXTRA_PRESERVED,\n                origin.clone(),\n            )),",
        tests: &["kubeforge-tests:mapping_round_trip"],
    },
    Mutant {
        name: "unknown-keys-reordered",
        breaks: "unknown and extra keys are written back in the order they were read",
        file: "runtime/src/extra_fields.rs",
        find: "kept.entries.push((key, value));",
        replace: "kept.entries.insert(0, (key, value));",
        tests: &[
            "kubeforge-runtime:lib",
            "kubeforge-tests:mapping_round_trip",
            "kubeforge-tests:lossless:goldens_round_trip",
        ],
    },
    Mutant {
        name: "failed-entry-forgotten",
        breaks: "a struct's entry that fails to write is the error its `Serialize` returns",
        file: "runtime/src/serde_struct.rs",
        find: "        self.error = Some(error);\n        true",
        replace: "        drop(error);\n        true",
        tests: &["kubeforge-tests:round_trip:a_failed_write_ends_the_object_with_its_error"],
    },
    Mutant {
        name: "compact-length-uncounted",
        breaks: "a compact format is told the exact number of a struct's entries",
        file: "runtime/src/serde_struct.rs",
        find: "        V: Serialize + ?Sized,\n    {\n        self.0 += 1;\n        Ok(())",
        replace: "        V: Serialize + ?Sized,\n    {\n        Ok(())",
        tests: &["kubeforge-tests:round_trip:compact_formats_are_told_every_objects_exact_length"],
    },
    Mutant {
        name: "pushed-item-first",
        breaks: "a builder's appending setter appends its item to the end of the list",
        file: "runtime/src/builder.rs",
        find: "    list.get_or_insert_default().push(item.into());",
        replace: "    list.get_or_insert_default().insert(0, item.into());",
        tests: &["kubeforge-runtime:lib", "kubeforge-tests:builders"],
    },
    Mutant {
        name: "list-spare-room-kept",
        breaks: "a list of structs read from JSON holds exactly its items, a decoded object's heap",
        file: "runtime/src/serde_struct.rs",
        find: "        list.shrink_to_fit();\n        Ok(list)",
        replace: "        Ok(list)",
        tests: &["kubeforge-tests:round_trip"],
    },
    Mutant {
        name: "debug-pretty-unindented",
        breaks: "a generated struct's `{:#?}` is its JSON indented as `Debug` indents",
        file: "runtime/src/serde_struct.rs",
        find: "PrettyFormatter::with_indent(b\"    \")",
        replace: "PrettyFormatter::with_indent(b\"\")",
        tests: &["kubeforge-tests:round_trip"],
    },
    Mutant {
        name: "percent-unencoded-in-path",
        breaks: "a path parameter's `%` is percent-encoded",
        file: "runtime/src/request.rs",
        find: "self.text.extend(utf8_percent_encode(value, ENCODED));\n        Ok(())",
        replace: "self.text.extend(utf8_percent_encode(value, {\n            const PLANTED: &AsciiSet = &ENCODED.remove(b'%');\n            PLANTED\n        }));\n        Ok(())",
        tests: &["kubeforge-runtime:routes"],
    },
    Mutant {
        name: "partial-static-segment",
        breaks: "a static segment matches only a whole segment (`/pods` is not `/podsx`)",
        file: "runtime/src/route.rs",
        find: "        .is_none_or(|&b| b == b'/')\n        .then_some(tail)",
        replace: "        .is_none_or(|&b| b != b'?')\n        .then_some(tail)",
        tests: &["kubeforge-runtime:routes"],
    },
    Mutant {
        name: "error-status-not-decoded",
        breaks: "an error response's `Status` is decoded as a `Status`, not left as text",
        file: "runtime/src/response.rs",
        find: ".is_ok_and(|probe| probe.kind.as_deref() == Some(\"Status\"));",
        replace: ".is_ok_and(|probe| probe.kind.as_deref() == Some(\"status\"));",
        tests: &[
            "kubeforge-runtime:routes",
            "kubeforge-server:generated_decoders",
        ],
    },
    Mutant {
        name: "watch-escape-ignored",
        breaks: "the incremental watch decoder skips escaped quotes inside strings",
        file: "runtime/src/watch.rs",
        find: "} else if byte == b'\\\\' {\n                        self.escaped = true;",
        replace: "} else if byte == b'\\\\' && false {\n                        self.escaped = true;",
        tests: &["kubeforge-server:generated_decoders"],
    },
    Mutant {
        name: "compaction-boundary",
        breaks: "a watch from a version whose next event is no longer kept gets 410 Gone, not a gap",
        file: "server/src/objects/store.rs",
        find: "        if rv < self.compacted {\n            return None;\n        }",
        replace: "        if rv + 1 < self.compacted {\n            return None;\n        }",
        tests: &["kubeforge-server:raw_http"],
    },
    Mutant {
        name: "relabelled-in-not-added",
        breaks: "an object relabelled into a watch's selector arrives as `ADDED`",
        file: "server/src/verbs/watch.rs",
        find: "(EventType::Modified, false, true) => \"ADDED\",",
        replace: "(EventType::Modified, false, true) => \"MODIFIED\",",
        tests: &["kubeforge-server:raw_http"],
    },
    Mutant {
        name: "stale-replace-accepted",
        breaks: "a replace with an old `resourceVersion` is refused with 409 Conflict",
        file: "server/src/verbs/write.rs",
        find: "            {\n                return Err(stale(def, name));\n            }\n            if let Some(done) = self.commit(",
        replace: "            {\n                let _ = stale(def, name);\n            }\n            if let Some(done) = self.commit(",
        tests: &[
            "kubeforge-server:generated_decoders",
            "kubeforge-server:kube_client",
        ],
    },
    Mutant {
        name: "write-not-staged",
        breaks: "`Cargo.toml` and a build script's include file are staged and renamed into place, never left half-written",
        file: "codegen/src/write/disk.rs",
        find: "            .create_new(true)\n            .open(&staging)?;\n        fs_step();\n        file.write_all(content)?;\n        drop(file);\n        fs_step();\n        fs::rename(&staging, path)",
        replace: "            .create(true)\n            .truncate(true)\n            .open(path)?;\n        fs_step();\n        file.write_all(content)?;\n        drop(file);\n        fs_step();\n        Ok(())",
        tests: &["kubeforge:interrupted_write"],
    },
    // Validation: generated `validate()`/`validate_update(&old)` and the runtime's evaluator
    // (docs/src/reference/validation.md).
    Mutant {
        name: "minimum-bound-excluded",
        breaks: "a value equal to a non-exclusive integer `minimum` is accepted",
        file: "runtime/src/schema/validate/openapi.rs",
        find: "if exclusive { d <= b } else { d < b }",
        replace: "if exclusive { d <= b } else { d <= b }",
        tests: &["kubeforge-tests:golden_validation:bounds_admit_their_own_value_unless_exclusive"],
    },
    Mutant {
        name: "float-maximum-bound-excluded",
        breaks: "a number equal to a non-exclusive `maximum` is accepted",
        file: "runtime/src/schema/validate/openapi.rs",
        find: "            } else {\n                data > bound\n            };",
        replace: "            } else {\n                data >= bound\n            };",
        tests: &["kubeforge-tests:golden_validation:bounds_admit_their_own_value_unless_exclusive"],
    },
    Mutant {
        name: "pattern-anchors-dropped",
        breaks: "a `pattern`'s `^` and `$` anchor it to the whole value",
        file: "runtime/src/schema/pattern.rs",
        find: "            c => out.push(c),",
        replace: "            '^' | '$' if !in_class => {}\n            c => out.push(c),",
        tests: &["kubeforge-tests:golden_validation:patterns_match_the_whole_value"],
    },
    Mutant {
        name: "format-not-checked",
        breaks: "a string's `format` (here `uuid`) is checked",
        file: "runtime/src/schema/formats.rs",
        find: "\"uuid\" => is_uuid(s, None),",
        replace: "\"uuid\" => true,",
        tests: &["kubeforge-tests:golden_validation:patterns_match_the_whole_value"],
    },
    Mutant {
        name: "unique-items-ignored",
        breaks: "`uniqueItems` refuses a list with two equal items",
        file: "runtime/src/schema/validate/openapi.rs",
        find: "if v.layers().iter().any(|(n, _)| n.unique_items) {",
        replace: "if v.layers().iter().any(|(n, _)| n.unique_items) && false {",
        tests: &["kubeforge-runtime:lib:arrays_and_objects"],
    },
    Mutant {
        name: "set-list-duplicates-ignored",
        breaks: "`x-kubernetes-list-type: set` refuses a duplicate item",
        file: "runtime/src/schema/validate/mod.rs",
        find: "for i in duplicates(items.iter()) {",
        replace: "for i in duplicates(items.iter()).into_iter().filter(|_| false) {",
        tests: &["kubeforge-tests:golden_validation:set_and_map_lists_refuse_duplicates"],
    },
    Mutant {
        name: "list-map-keys-partly-ignored",
        breaks: "a map list's items are unique by all of `x-kubernetes-list-map-keys`, not the first",
        file: "runtime/src/schema/validate/mod.rs",
        find: "for field in key_fields {",
        replace: "for field in key_fields.iter().take(1) {",
        tests: &["kubeforge-tests:golden_validation:set_and_map_lists_refuse_duplicates"],
    },
    Mutant {
        name: "cel-rule-skipped",
        breaks: "a CEL rule (`x-kubernetes-validations`) that evaluates to false is reported",
        file: "runtime/src/schema/cel/mod.rs",
        find: "            Ok(Some(true)) => continue,\n            Ok(Some(false)) => {}",
        replace: "            Ok(Some(_)) => continue,",
        tests: &[
            "kubeforge-tests:golden_validation:cel_rules_run_and_transition_rules_only_on_update",
        ],
    },
    Mutant {
        name: "transition-rule-on-create",
        breaks: "a transition rule (`oldSelf`) runs only on update",
        file: "runtime/src/schema/cel/mod.rs",
        find: "if compiled.uses_old_self && old.is_none() && !rule.optional_old_self {",
        replace: "if compiled.uses_old_self && old.is_none() && !rule.optional_old_self && false {",
        tests: &[
            "kubeforge-tests:golden_validation:cel_rules_run_and_transition_rules_only_on_update",
        ],
    },
    Mutant {
        name: "ratchet-refuses-unchanged",
        breaks: "on update, a schema error of a value equal to its old value is not reported (ratcheting)",
        file: "runtime/src/schema/validate/openapi.rs",
        find: "if !res.is_valid() && old.is_some_and(|o| deep_equal(value, o)) {",
        replace: "if !res.is_valid() && old.is_some_and(|o| deep_equal(value, o)) && false {",
        tests: &["kubeforge-tests:golden_validation:updates_ratchet_what_did_not_change"],
    },
    Mutant {
        name: "ratchet-lets-changed-through",
        breaks: "on update, a schema error of a changed value is reported",
        file: "runtime/src/schema/validate/openapi.rs",
        find: "if !res.is_valid() && old.is_some_and(|o| deep_equal(value, o)) {",
        replace: "if !res.is_valid() && old.is_some() {",
        tests: &["kubeforge-tests:golden_validation:updates_ratchet_what_did_not_change"],
    },
    Mutant {
        name: "cel-ratchet-refuses-unchanged",
        breaks: "on update, a failed rule of a value equal to its old value is not reported",
        file: "runtime/src/schema/cel/mod.rs",
        find: "if unchanged && !compiled.uses_old_self {",
        replace: "if unchanged && !compiled.uses_old_self && false {",
        tests: &["kubeforge-tests:golden_validation:updates_ratchet_what_did_not_change"],
    },
    Mutant {
        name: "cel-ratchet-lets-changed-through",
        breaks: "on update, a failed rule of a changed value is reported",
        file: "runtime/src/schema/cel/mod.rs",
        find: "unchanged: old.is_some_and(|o| deep_equal(value, o)),",
        replace: "unchanged: old.is_some(),",
        tests: &["kubeforge-tests:golden_validation:updates_ratchet_what_did_not_change"],
    },
    // Lossless scalars: each keeps the text it was read from.
    Mutant {
        name: "number-float-written-as-integer",
        breaks: "a `type: number` read as `3.0` is written back as `3.0`",
        file: "runtime/src/number.rs",
        find: "            Form::Float(n) => serializer.serialize_f64(n),",
        replace: "            Form::Float(n) if n.fract() == 0.0 => serializer.serialize_i64(n as i64),\n            Form::Float(n) => serializer.serialize_f64(n),",
        tests: &["kubeforge-tests:mapping_round_trip:numbers_keep_their_form"],
    },
    Mutant {
        name: "integer-beyond-two-to-the-53",
        breaks: "an integer without a format takes a whole float only within ±(2⁵³ − 1), as the API server does",
        file: "runtime/src/integer.rs",
        find: "(value.is_finite() && value.abs() <= MAX_WHOLE && value.fract() == 0.0)",
        replace: "(value.is_finite() && value.fract() == 0.0)",
        tests: &["kubeforge-tests:mapping_round_trip:an_integer_without_format_reads_whole_floats"],
    },
    Mutant {
        name: "int-or-string-int-written-as-string",
        breaks: "an `IntOrString` read as `3` is written back as `3`, not `\"3\"`",
        file: "runtime/src/int_or_string.rs",
        find: "            Self::Int(v) => serializer.serialize_i32(*v),",
        replace: "            Self::Int(v) => serializer.collect_str(v),",
        tests: &["kubeforge-runtime:scalars:int_or_string_both_forms"],
    },
    Mutant {
        name: "byte-string-url-alphabet",
        breaks: "a byte string is written in standard base64 (`+/`), as Go writes `[]byte`",
        file: "runtime/src/byte_string.rs",
        find: "const ENCODE: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, PAD);",
        replace: "const ENCODE: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, PAD);",
        tests: &["kubeforge-runtime:scalars:byte_string_round_trip"],
    },
    Mutant {
        name: "date-time-normalized",
        breaks: "a `date-time` string is written back with the text it was read from (offset and fraction)",
        file: "runtime/src/date_time.rs",
        find: "        serializer.serialize_str(&self.0)",
        replace: "        serializer.serialize_str(&self.timestamp().map_or_else(|_| self.0.clone(), |t| t.to_string()))",
        tests: &["kubeforge-tests:mapping_round_trip:date_times_keep_their_text"],
    },
    // Server-side apply (server/src/apply).
    Mutant {
        name: "apply-conflict-not-reported",
        breaks: "an apply that changes a field another manager owns fails with 409 Conflict unless forced",
        file: "server/src/semantics/apply/updater.rs",
        find: "if !force && !conflicts.is_empty() {",
        replace: "if false && !force && !conflicts.is_empty() {",
        tests: &["kubeforge-server:server_side_apply:conflicts_name_each_field_and_its_manager"],
    },
    Mutant {
        name: "forced-apply-keeps-owner",
        breaks: "a forced apply takes the conflicting fields from their owner",
        file: "server/src/semantics/apply/updater.rs",
        find: "                owned.set = owned.set.difference(conflict);",
        replace: "                let _ = conflict;",
        tests: &["kubeforge-server:server_side_apply:conflicts_name_each_field_and_its_manager"],
    },
    Mutant {
        name: "list-map-merged-by-position",
        breaks: "an apply merges a map list's items by their keys, not their positions",
        file: "server/src/semantics/apply/typed.rs",
        find: "        lhs_observed\n            .get(element)\n            .and_then(|&i| lhs.and_then(|l| l.get(i)))",
        replace: "        rhs_observed\n            .get(element)\n            .and_then(|&i| lhs.and_then(|l| l.get(i)))",
        tests: &["kubeforge-server:server_side_apply:map_list_items_merge_by_key_not_by_position"],
    },
    Mutant {
        name: "list-map-key-default-ignored",
        breaks: "a map list's key missing from an item takes its default (the schema's, else the Go defaulters') before items are matched",
        file: "server/src/semantics/apply/typed.rs",
        find: "    map.field_default(key).or_else(|| {\n        map.type_name(schemas)\n            .and_then(|name| builtin_defaults::field_default(name, key))\n    })",
        replace: "    let _ = (schemas, map, key, builtin_defaults::field_default);\n    None",
        tests: &[
            "kubeforge-server:server_side_apply:a_custom_resources_defaulted_list_map_key_matches_its_default",
            "kubeforge-server:kubectl_apply:the_same_deployment_applied_twice_changes_nothing",
            "kubeforge-server:kube_apply:the_same_deployment_applied_twice_changes_nothing",
        ],
    },
    Mutant {
        name: "update-manager-not-recorded",
        breaks: "an update or patch records the fields it set under its manager in `managedFields`",
        file: "server/src/semantics/apply/updater.rs",
        find: "            .difference(&compare.removed)\n            .union(&compare.modified)\n            .union(&compare.added);",
        replace: "            .difference(&compare.removed);",
        tests: &[
            "kubeforge-server:server_side_apply:updates_and_patches_are_recorded_as_update_managers",
        ],
    },
    // The server's own behaviour.
    Mutant {
        name: "invalid-answered-400",
        breaks: "an object its schema refuses is answered 422 Invalid, with a cause per field",
        file: "server/src/wire/status.rs",
        find: "            code: 422,\n            reason: \"Invalid\",",
        replace: "            code: 400,\n            reason: \"Invalid\",",
        tests: &["kubeforge-server:validation:status_writes_and_updates_are_validated"],
    },
    Mutant {
        name: "gc-leaves-dependent",
        breaks: "the garbage collector deletes a dependent whose owners are all gone",
        file: "server/src/controllers/gc.rs",
        find: "    delete(state, catalog, index, key, policy, queue);\n}",
        replace: "    let _ = policy;\n}",
        tests: &["kubeforge-server:kube_builtin"],
    },
    Mutant {
        name: "namespace-deletion-leaves-objects",
        breaks: "deleting a namespace deletes every object in it",
        file: "server/src/controllers/namespaces.rs",
        find: "            delete(state, catalog, index, &key, Policy::Background, queue);",
        replace: "            let _ = (&key, Policy::Background);",
        tests: &["kubeforge-server:kube_builtin"],
    },
    Mutant {
        name: "table-ready-column",
        breaks: "a Deployment's Table row shows `READY` as ready/desired replicas",
        file: "server/src/objects/table/cells/workloads.rs",
        find: "        int(o, \"/status/readyReplicas\"),\n        int(o, \"/spec/replicas\")",
        replace: "        int(o, \"/status/updatedReplicas\"),\n        int(o, \"/spec/replicas\")",
        tests: &["kubeforge-server:lib:a_deployment_prints_its_replicas_containers_and_selector"],
    },
    Mutant {
        name: "retain-keys-ignored",
        breaks: "a strategic merge patch's `$retainKeys` clears the keys it does not list",
        file: "server/src/semantics/patch.rs",
        find: "        target_map.retain(|key, _| keep.contains(&key.as_str()));",
        replace: "        let _ = keep;",
        tests: &["kubeforge-server:lib:strategic_directives"],
    },
    Mutant {
        name: "crd-defaults-not-applied",
        breaks: "a custom resource gets its schema's `default`s on create, update and apply",
        file: "server/src/semantics/validation.rs",
        find: "    schema::apply_defaults(node, &schemas.set, object);",
        replace: "    let _ = (node, &schemas.set, &object);",
        tests: &["kubeforge-server:validation:custom_resources_are_defaulted"],
    },
    Mutant {
        name: "set-element-order-ignored",
        breaks: "a strategic merge patch's `$setElementOrder/<list>` orders the merged list as the API server does",
        file: "server/src/semantics/patch.rs",
        find: "key.strip_prefix(\"$setElementOrder/\"), order)",
        replace: "key.strip_prefix(\"$planted-ignored/\"), order)",
        tests: &[
            "kubeforge-server:lib:set_element_order",
            "kubeforge-server:kube_client:strategic_merge_honours_set_element_order",
        ],
    },
    Mutant {
        name: "namespace-terminating-cause-lost",
        breaks: "a create in a terminating namespace is refused with the `NamespaceTerminating` cause",
        file: "server/src/semantics/namespaces.rs",
        find: "\"NamespaceTerminating\",",
        replace: "\"Terminating\",",
        tests: &["kubeforge-server:kube_builtin"],
    },
    Mutant {
        name: "body-limit-not-3-mib",
        breaks: "the default body limit is the API server's 3 MiB",
        file: "server/src/verbs/mod.rs",
        find: "body_limit: 3 * 1024 * 1024,",
        replace: "body_limit: 3 * 1000 * 1000,",
        tests: &["kubeforge-server:limits:a_body_of_3_mib"],
    },
    Mutant {
        name: "history-not-1024",
        breaks: "the default event history keeps 1,024 events",
        file: "server/src/verbs/mod.rs",
        find: "history: 1024,",
        replace: "history: 1000,",
        tests: &["kubeforge-server:limits:the_history_keeps_the_last_1024_events"],
    },
    Mutant {
        name: "builtin-defaults-not-applied",
        breaks: "a built-in kind gets the API server's Go defaults (a Deployment's strategy, a Pod's restartPolicy)",
        file: "server/src/semantics/validation.rs",
        find: "        builtin_defaults::apply(&schemas.set, &schemas.names, root.index, object);",
        replace: "        let _ = (&schemas.names, root.index, &object);",
        tests: &["kubeforge-server:builtin_defaults"],
    },
    Mutant {
        name: "pod-update-unchecked",
        breaks: "a Pod's update changes only what `ValidatePodUpdate` allows (its images, a lower deadline, added tolerations)",
        file: "server/src/semantics/kinds/pods.rs",
        find: "    if !same(&munged, old) {",
        replace: "    if false && !same(&munged, old) {",
        tests: &[
            "kubeforge-server:builtin_validation:a_pod_update_changes_only_what_validate_pod_update_allows",
        ],
    },
    Mutant {
        name: "crd-not-served",
        breaks: "a CustomResourceDefinition created through the API is served at once",
        file: "server/src/controllers/crds.rs",
        find: "            let next = catalog.with_custom(&key.1, &spec, part);\n            state.replace_catalog(next);",
        replace: "            let _ = (&spec, part);",
        tests: &[
            "kubeforge-server:crds_at_run_time",
            "kubeforge-server:validation:istio_examples_with_the_crds_created_through_the_api",
        ],
    },
    Mutant {
        name: "crd-versions-not-shared",
        breaks: "a custom resource's served versions read the same stored objects",
        file: "server/src/objects/catalog.rs",
        find: "        if !self.is_custom(def) {\n            return Vec::new();\n        }",
        replace: "        if self.is_custom(def) || !self.is_custom(def) {\n            return Vec::new();\n        }",
        tests: &["kubeforge-server:crds_at_run_time:a_crds_versions_share_their_objects"],
    },
    Mutant {
        name: "crd-delete-keeps-objects",
        breaks: "deleting a CustomResourceDefinition deletes its objects",
        file: "server/src/controllers/crds.rs",
        find: "            delete(\n                state,\n                catalog,\n                *resource,\n                &object,\n                Policy::Background,\n                queue,\n            );",
        replace: "            let _ = (&object, Policy::Background, &queue);",
        tests: &["kubeforge-server:crds_at_run_time:a_crd_applied_with_kubectl_is_served_at_once"],
    },
    // What a cluster starts with, and field selectors per kind.
    Mutant {
        name: "new-namespace-without-service-account",
        breaks: "a new namespace gets its `default` ServiceAccount (kube-controller-manager's serviceaccount controller)",
        file: "server/src/controllers/mod.rs",
        find: "                    service_accounts::namespace_written(state, catalog, &key.1, &mut queue);",
        replace: "                    let _ = service_accounts::namespace_written;",
        tests: &["kubeforge-server:kubectl_cluster:a_new_cluster_has_what_kubeadm_makes"],
    },
    Mutant {
        name: "field-label-values-empty",
        breaks: "a field selector reads each kind's field labels from the object (a Pod's `spec.nodeName`)",
        file: "server/src/objects/field_labels.rs",
        find: "                .map(|(_, pointers, format)| read(object, pointers, *format))",
        replace: "                .map(|(_, pointers, format)| read(object, &pointers[..0], *format))",
        tests: &["kubeforge-server:kubectl_cluster:field_selectors_take_each_kinds_labels"],
    },
    Mutant {
        name: "aggregated-discovery-ignored",
        breaks: "`/api` and `/apis` answer the aggregated `apidiscovery.k8s.io/v2` document when the `Accept` asks for it",
        file: "server/src/wire/media.rs",
        find: "        if !aggregated {\n            continue;\n        }",
        replace: "        if aggregated || !aggregated {\n            continue;\n        }",
        tests: &["kubeforge-server:discovery"],
    },
    // A Pod's eviction and its PodDisruptionBudget.
    Mutant {
        name: "eviction-ignores-budget",
        breaks: "an eviction that would leave a PodDisruptionBudget short is refused with 429",
        file: "server/src/verbs/pods.rs",
        find: "        if allowed == 0 {",
        replace: "        if allowed == i64::MIN {",
        tests: &["kubeforge-server:kubectl_subresources:an_eviction_honours_the_disruption_budget"],
    },
    Mutant {
        name: "pod-admission-skipped",
        breaks: "a created Pod gets its service account, token volume, tolerations and priority as a real API server's admission plugins give them",
        file: "server/src/verbs/write.rs",
        find: "            admission::admit_pod(&mut object, namespace, &lookups)\n",
        replace: "            Ok::<(), String>(drop(lookups))\n",
        tests: &[
            "kubeforge-server:admission",
            "kubeforge-server:builtin_defaults",
        ],
    },
    // The API diff.
    Mutant {
        name: "removed-field-additive",
        breaks: "`kubeforge diff` classes a removed field as breaking",
        file: "codegen/src/diff/compare.rs",
        find: "self.change(Some(name), Effect::Breaking, \"field_removed\")",
        replace: "self.change(Some(name), Effect::Additive, \"field_removed\")",
        tests: &["kubeforge-tests:api_diff"],
    },
    // Validation's search for CEL rules in a recursive schema.
    Mutant {
        name: "recursive-schema-walked-every-path",
        breaks: "looking for CEL rules walks a recursive schema (a CRD's `JSONSchemaProps`) once per node, so creating a CRD answers",
        file: "runtime/src/schema/cel/mod.rs",
        find: "        Some(&before) if before <= depth => return false,",
        replace: "        Some(&before) if before <= depth && depth > MAX_DEPTH => return false,",
        tests: &["kubeforge-runtime:lib:a_recursive_schema_is_walked_once"],
    },
    // The delete answer each operation declares.
    Mutant {
        name: "delete-answers-status",
        breaks: "deleting a Pod answers the deleted Pod, as its delete operation declares, not a `Status`",
        file: "server/src/verbs/delete.rs",
        find: "            if catalog.answers_deleted_object(def) {",
        replace: "            if !catalog.answers_deleted_object(def) {",
        tests: &["kubeforge-server:strategies:deletes_answer_what_each_operation_declares"],
    },
    // What Go writes, the certificates, graceful deletion and the bootstrap policy.
    Mutant {
        name: "value-scalars-not-written",
        breaks: "a built-in kind's scalars without `omitempty` are written at their zero (a new StatefulSet's `availableReplicas: 0`)",
        file: "server/src/semantics/builtin_defaults.rs",
        find: "for (ty, field, zero) in value_scalars(VALUE_SCALARS) {",
        replace: "for (ty, field, zero) in value_scalars(\"\") {",
        tests: &["kubeforge-server:strategies:objects_are_written_as_go_writes_them"],
    },
    Mutant {
        name: "base64-line-breaks-refused",
        breaks: "a Secret's `data` is read as Go's base64 decoder reads it, line breaks skipped",
        file: "server/src/semantics/validation.rs",
        find: "            let joined: String = text.chars().filter(|c| !matches!(c, '\\r' | '\\n')).collect();",
        replace: "            let joined: String = text.clone();",
        tests: &["kubeforge-server:strategies:objects_are_written_as_go_writes_them"],
    },
    Mutant {
        name: "certificate-without-authority-key-id",
        breaks: "the certificates the cluster's CA signs carry an Authority Key Identifier, which strict X.509 clients require",
        file: "server/src/objects/authority.rs",
        find: "        params.use_authority_key_identifier_extension = true;",
        replace: "        params.use_authority_key_identifier_extension = false;",
        tests: &["kubeforge-server:kubectl_cluster:a_strict_tls_client_connects"],
    },
    Mutant {
        name: "deleted-pod-removed-before-it-stops",
        breaks: "a deleted Pod a kubelet runs stays until its containers have stopped and its status says so",
        file: "server/src/semantics/deletion.rs",
        find: "            .is_none_or(|grace| grace == 0)",
        replace: "            .is_none_or(|grace| grace >= 0)",
        tests: &["kubeforge-server:simulation:a_deleted_pod_stops_its_containers_before_it_goes"],
    },
    Mutant {
        name: "pod-metrics-not-from-requests",
        breaks: "a simulated container's metrics are its requests unless a usage was scripted, so `kubectl top` shows them",
        file: "server/src/controllers/simulation/metrics.rs",
        find: "            .pointer(&format!(\"/resources/requests/{resource}\"))",
        replace: "            .pointer(&format!(\"/resources/limits/{resource}\"))",
        tests: &["kubeforge-server:metrics:pod_metrics_are_what_the_containers_request"],
    },
    Mutant {
        name: "bootstrap-policy-incomplete",
        breaks: "a new server has every role and binding of Kubernetes' bootstrap policy",
        file: "server/src/controllers/bootstrap_policy.rs",
        find: "    entries(policy().get(\"clusterRoles\"))\n        .map(|entry| role(\"ClusterRole\", entry))",
        replace: "    entries(policy().get(\"clusterRoles\"))\n        .take(16)\n        .map(|entry| role(\"ClusterRole\", entry))",
        tests: &["kubeforge-server:rbac:the_bootstrap_policy_is_kubernetes_own"],
    },
    // The CRD a crate gives back.
    Mutant {
        name: "embedded-crd-loses-annotations",
        breaks: "the CRD a generated crate gives back (`Foo::crd()`) is its input, annotations included",
        file: "codegen/src/model/crds.rs",
        find: "        object.shift_remove(\"status\");\n",
        replace: "        object.shift_remove(\"status\");\n        if let Some(Value::Object(metadata)) = object.get_mut(\"metadata\") {\n            metadata.shift_remove(\"annotations\");\n        }\n",
        tests: &["kubeforge:crd_roundtrip:every_crd_comes_back_from_its_crate_as_it_went_in"],
    },
    // The route table and the schema table, read from their data at first use.
    Mutant {
        name: "route-table-scope-lost",
        breaks: "a route table read from its data keeps each resource's scope",
        file: "runtime/src/route/table.rs",
        find: "scope: if next() == \"C\" {",
        replace: "scope: if next() == \"X\" {",
        tests: &["kubeforge-runtime:lib:a_written_table_reads_back_as_written"],
    },
    Mutant {
        name: "route-table-record-repeated",
        breaks: "a route table's data holds each distinct query parameter, resource, body and response once",
        file: "runtime/src/route/table.rs",
        find: "            return (index, false);",
        replace: "            let _ = index;",
        tests: &["kubeforge-runtime:lib:a_written_table_reads_back_as_written"],
    },
    Mutant {
        name: "schema-table-reference-shifted",
        breaks: "a schema of a schema table names the schema its reference's index says",
        file: "runtime/src/schema/static_schema.rs",
        find: "            return Link::Table(self, i);",
        replace: "            return Link::Table(self, i + 1);",
        tests: &["kubeforge-runtime:lib:a_table_resolves_its_own_and_foreign_references"],
    },
    // Kubernetes' protobuf encoding.
    Mutant {
        name: "protobuf-wrong-field-number",
        breaks: "a map entry's value is field 2 of the entry, as protoc numbers it",
        file: "runtime/src/protobuf/mod.rs",
        find: "            (2, wire) => {\n                merge_into(&mut value, wire, &mut entry)",
        replace: "            (3, wire) => {\n                merge_into(&mut value, wire, &mut entry)",
        tests: &["kubeforge-tests:protobuf:the_scale_fixture_reads_and_writes_as_go_does"],
    },
    Mutant {
        name: "protobuf-unknown-fields-dropped",
        breaks: "a protobuf field the type does not know is kept and written back",
        file: "runtime/src/protobuf/mod.rs",
        find: "    extra.push_protobuf_unknown(&bytes);",
        replace: "    let _ = bytes;",
        tests: &["kubeforge-tests:protobuf:unknown_fields_survive_a_read_modify_write"],
    },
    Mutant {
        name: "protobuf-zero-is-unset",
        breaks: "an optional protobuf field set to zero reads back set (`replicas: 0` stays 0)",
        file: "runtime/src/protobuf/mod.rs",
        find: "    merge_into(slot.get_or_insert_with(T::placeholder), wire, input).map_err(|e| e.field(name))",
        replace: "    merge_value(slot, wire, input, name)",
        tests: &["kubeforge-tests:protobuf:zero_is_not_unset"],
    },
    Mutant {
        name: "protobuf-watch-media-parameters",
        breaks: "a watch's `Content-Type` with parameters (`…protobuf;stream=watch`) is protobuf",
        file: "runtime/src/protobuf/routes.rs",
        find: ".is_some_and(|media| media.trim().eq_ignore_ascii_case(CONTENT_TYPE))",
        replace: ".is_some_and(|_| value.trim().eq_ignore_ascii_case(CONTENT_TYPE))",
        tests: &["kubeforge-tests:protobuf:route_helpers_read_by_content_type"],
    },
    // The in-memory server's protobuf: Go's bytes, and errors in the negotiated encoding.
    Mutant {
        name: "server-protobuf-declaration-order",
        breaks: "the server writes a message's fields by number, as Go's `Marshal` does, whatever order the `.proto` file declares them in",
        file: "server/src/wire/protobuf/mod.rs",
        find: "    for field in message.by_number.iter().map(|&i| &message.fields[i]) {",
        replace: "    for field in &message.fields {",
        tests: &["kubeforge-server:lib:every_served_fixture_transcodes_as_go_encodes_it"],
    },
    Mutant {
        name: "server-protobuf-zero-time-skipped",
        breaks: "the server writes Go's zero `Time` of a value field as the empty message",
        file: "server/src/wire/protobuf/mod.rs",
        find: "        if value.is_null() && (field.repeated || !is_time(&field.type_name)) {",
        replace: "        if value.is_null() {",
        tests: &["kubeforge-server:lib:go_zero_time_is_the_empty_message"],
    },
    Mutant {
        name: "server-protobuf-zero-skipped",
        breaks: "the server writes a zero the JSON holds (`replicas: 0`, `controller: false`), as Go writes a pointer set to zero and every value field",
        file: "server/src/wire/protobuf/mod.rs",
        find: "    let number = field.number;\n    let int = || {",
        replace: "    if matches!(value, Value::Bool(false)) || value.as_i64() == Some(0) || value.as_str() == Some(\"\") {\n        return Ok(());\n    }\n    let number = field.number;\n    let int = || {",
        tests: &["kubeforge-server:lib:zeros_the_json_holds_are_written"],
    },
    Mutant {
        name: "server-errors-always-json",
        breaks: "an error's `Status` is written in protobuf when the client asked for protobuf first, as kube-apiserver's `ErrorNegotiated` writes it",
        file: "server/src/wire/media.rs",
        find: "            return *offered == PROTOBUF;",
        replace: "            return *offered == PROTOBUF && offered.is_empty();",
        tests: &["kubeforge-server:protobuf_errors"],
    },
    Mutant {
        name: "exec-exit-code-lost",
        breaks: "a command exec'd into a simulated container ends with its exit code in the error channel's `Status`, which kubectl exits with",
        file: "server/src/wire/channels.rs",
        find: "    if code == 0 {\n        return r#\"{\"metadata\":{},\"status\":\"Success\"}\"#.to_owned();",
        replace: "    if code >= 0 {\n        return r#\"{\"metadata\":{},\"status\":\"Success\"}\"#.to_owned();",
        tests: &["kubeforge-server:kubectl_exec:without_a_handler_a_command_is_not_found"],
    },
    Mutant {
        name: "port-forward-error-stream-open",
        breaks: "a port-forwarded connection's error stream is closed once the port's side ends, as the kubelet closes it, so kubectl closes the local connection",
        file: "server/src/router/streams.rs",
        find: "    let _ = frames.send(spdy::data(error, &[], true)).await;\n",
        replace: "",
        tests: &[
            "kubeforge-server:kubectl_port_forward:kubectl_port_forward_over_a_websocket_tunnel_and_over_spdy",
        ],
    },
    Mutant {
        name: "port-forward-wrong-port",
        breaks: "a port-forward reaches what listens on the port asked for, and the kubelet's error where nothing does",
        file: "server/src/verbs/pods.rs",
        find: "        match self.ports.get(&port) {",
        replace: "        match self.ports.values().next() {",
        tests: &["kubeforge-server:kubectl_port_forward:kube_rs_port_forward_over_v4_channels"],
    },
    Mutant {
        name: "exec-terminal-size-ignored",
        breaks: "a command exec'd with a terminal and `--exec-on-host` runs on a pseudo-terminal of the size the client sends on the resize channel",
        file: "server/src/controllers/simulation/containers.rs",
        find: "    let (width, height) = first.unwrap_or((80, 24));",
        replace: "    let (width, height) = first.map_or((80, 24), |_| (80, 24));",
        tests: &["kubeforge-server:kubectl_exec:exec_on_host_runs_real_commands"],
    },
];

/// The goldens, relative to the workspace root.
const GOLDEN_DIR: &str = "tests/golden";

/// Files under this prefix are the generator's: a bug there changes generated text, so
/// the goldens are re-blessed before the tests run.
const GENERATOR: &str = "codegen/src/";

/// The order the mutants run in, by the directory of the file each plants in: the packages
/// that depend on the others first (the server depends on the generator, which depends on
/// the runtime), and in each, file by file. A mutant's build also rebuilds what the one
/// before it changed, now restored: a server mutant right after a runtime mutant rebuilt the
/// runtime and everything on it (the generator, the server, the tests' library and the test
/// binaries) a second time, while after a server mutant a runtime mutant rebuilds nothing it
/// would not rebuild anyway; and the last mutant's restore is built by no mutant. In the
/// table's order the runs crossed from one package to another 11 times, 4 of them away from
/// the runtime; in this order 2 times, none. The table keeps its order (by promise).
/// Measured in place on the shared two-core machine (load 9 to 14), four mutants (runtime,
/// server, runtime, server in the table's order): the two server mutants took 22 + 29 and
/// 29 + 30 s after a runtime mutant, 14 + 14 and 15 + 16 s first; all four 84 and 101 s,
/// 70 and 70 s in this order.
pub const RUN_ORDER: &[&str] = &["server/", "codegen/", "runtime/"];

/// The mutants of `selected` in the order they run ([`RUN_ORDER`]); a file in no package it
/// lists runs last.
fn run_order(mut selected: Vec<&Mutant>) -> Vec<&Mutant> {
    selected.sort_by_key(|m| {
        let rank = RUN_ORDER
            .iter()
            .position(|dir| m.file.starts_with(dir))
            .unwrap_or(RUN_ORDER.len());
        (rank, m.file)
    });
    selected
}

/// One test target to run: `cargo test -p <package> --lib|--test <target> [-- <filter>]`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Target<'a> {
    /// The package.
    pub package: &'a str,
    /// An integration test's name, or `lib`.
    pub target: &'a str,
    /// The test name filter, if any.
    pub filter: Option<&'a str>,
}

impl<'a> Target<'a> {
    /// Reads `package:target` or `package:target:filter`.
    ///
    /// # Errors
    ///
    /// When the text has another form.
    pub fn parse(text: &'a str) -> Result<Self, String> {
        let mut parts = text.split(':');
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(package), Some(target), filter, None)
                if !package.is_empty()
                    && !target.is_empty()
                    && filter.is_none_or(|f| !f.is_empty()) =>
            {
                Ok(Target {
                    package,
                    target,
                    filter,
                })
            }
            _ => Err(format!(
                "{text:?}: expected `package:target` or `package:target:filter`"
            )),
        }
    }

    /// The source file of the target, relative to the workspace root, given the package's
    /// directory: `src/lib.rs` for `lib`, `tests/<target>.rs` otherwise.
    pub fn source(&self, package_dir: &str) -> PathBuf {
        if self.target == "lib" {
            Path::new(package_dir).join("src/lib.rs")
        } else {
            Path::new(package_dir)
                .join("tests")
                .join(format!("{}.rs", self.target))
        }
    }

    /// The arguments of `cargo test` that build and run this target. With `workspace`, the
    /// target is selected by its name alone among every package of the workspace
    /// (`--workspace --test <target>`, or `--workspace --lib` for unit tests, which selects
    /// every package's), so that cargo unifies features as `cargo test --workspace` does and
    /// builds every crate in the one variant that run builds; otherwise with `-p <package>`,
    /// which unifies the features of that package's dependencies alone, a variant of its own.
    fn cargo_args(&self, workspace: bool) -> Vec<&'a str> {
        let mut args = vec!["test"];
        if workspace {
            args.push("--workspace");
        } else {
            args.extend(["-p", self.package]);
        }
        if self.target == "lib" {
            args.push("--lib");
        } else {
            args.extend(["--test", self.target]);
        }
        if let Some(filter) = self.filter {
            args.extend(["--", filter]);
        }
        args
    }
}

impl std::fmt::Display for Target<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.package, self.target)?;
        if let Some(filter) = self.filter {
            write!(f, ":{filter}")?;
        }
        Ok(())
    }
}

/// The directory of each package a mutant names, relative to the workspace root.
pub const PACKAGE_DIRS: &[(&str, &str)] = &[
    ("kubeforge", "codegen"),
    ("kubeforge-runtime", "runtime"),
    ("kubeforge-server", "server"),
    ("kubeforge-tests", "tests"),
];

/// Every problem with the mutants as they stand against the workspace at `root`: a text
/// that does not occur exactly once, a test target that cannot be read or does not exist,
/// a name used twice. Empty when every mutant can run.
pub fn problems(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let mut names = BTreeSet::new();
    for mutant in MUTANTS {
        if !names.insert(mutant.name) {
            problems.push(format!("mutant {}: the name is used twice", mutant.name));
        }
        match fs::read_to_string(root.join(mutant.file)) {
            Ok(text) => {
                let count = text.matches(mutant.find).count();
                if count != 1 {
                    problems.push(format!(
                        "mutant {} no longer applies: its text occurs {count} times in {} (must be once); update it in xtask/src/mutants.rs:\n{}",
                        mutant.name, mutant.file, mutant.find
                    ));
                }
            }
            Err(e) => problems.push(format!("mutant {}: {}: {e}", mutant.name, mutant.file)),
        }
        if mutant.tests.is_empty() {
            problems.push(format!("mutant {}: no test target", mutant.name));
        }
        for test in mutant.tests {
            match Target::parse(test) {
                Ok(target) => {
                    let Some((_, dir)) = PACKAGE_DIRS.iter().find(|(p, _)| *p == target.package)
                    else {
                        problems.push(format!(
                            "mutant {}: unknown package {} (add it to PACKAGE_DIRS)",
                            mutant.name, target.package
                        ));
                        continue;
                    };
                    let source = target.source(dir);
                    if !root.join(&source).is_file() {
                        problems.push(format!(
                            "mutant {}: test target {target}: no {}",
                            mutant.name,
                            source.display()
                        ));
                    }
                }
                Err(e) => problems.push(format!("mutant {}: {e}", mutant.name)),
            }
        }
    }
    problems
}

/// What a test target did with one source tree.
enum Outcome {
    Passed,
    Failed(Vec<String>),
    DoesNotCompile(String),
}

/// Runs the mutation check; `only` restricts it to the named mutants, `list` prints them
/// instead. With `tested_by` (the log of the test step that has just run, in place), the
/// baseline leaves out the targets that log proves passed (`tested_by.rs`).
pub fn run(
    root: &Path,
    only: &[String],
    list: bool,
    in_place: bool,
    tested_by: Option<&Path>,
) -> ExitCode {
    if list {
        for mutant in MUTANTS {
            println!(
                "{}\t{}\t{}\t{}",
                mutant.name,
                mutant.file,
                mutant.tests.join(" "),
                mutant.breaks
            );
        }
        return ExitCode::SUCCESS;
    }
    match check(root, only, in_place, tested_by) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

#[allow(clippy::too_many_lines)]
fn check(
    root: &Path,
    only: &[String],
    in_place: bool,
    tested_by: Option<&Path>,
) -> Result<bool, String> {
    let started = Instant::now();
    for name in only {
        if !MUTANTS.iter().any(|m| m.name == name) {
            let known: Vec<&str> = MUTANTS.iter().map(|m| m.name).collect();
            return Err(format!("no mutant `{name}`; known: {}", known.join(", ")));
        }
    }
    let problems = problems(root);
    if !problems.is_empty() {
        return Err(format!(
            "{} problems with the mutants, nothing planted:\n{}",
            problems.len(),
            problems.join("\n")
        ));
    }
    let target_dir =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let (scratch, cargo_target) = if in_place {
        (root.to_path_buf(), target_dir)
    } else {
        let mutants = target_dir.join("mutants");
        let scratch = mutants.join("repo");
        copy_workspace(root, &scratch)?;
        link_shared(root, &mutants)?;
        (scratch, mutants.join("target"))
    };
    let pristine = pristine_files(&scratch)?;
    // Whatever happens from here on, the planted files and the goldens are written back.
    let _restore = Restore(&pristine);
    eprintln!(
        "mutants: {} {}, built in {}",
        if in_place {
            "planting in the workspace itself"
        } else {
            "a copy of the workspace in"
        },
        scratch.display(),
        cargo_target.display()
    );
    let selected: Vec<&Mutant> = run_order(
        MUTANTS
            .iter()
            .filter(|m| only.is_empty() || only.iter().any(|o| o == m.name))
            .collect(),
    );
    let targets: BTreeSet<Target<'_>> = selected
        .iter()
        .flat_map(|m| m.tests.iter())
        .map(|t| Target::parse(t))
        .collect::<Result<_, _>>()?;

    let names = TestNames::read(&scratch, &cargo_target)?;
    let baseline_started = Instant::now();
    let golden = golden_target();
    // The targets the test step that has just run proves passed (`--tested-by`): not run again.
    let proven = match tested_by {
        Some(log) => {
            let mut all: Vec<&Target<'_>> = targets.iter().collect();
            all.push(&golden);
            let (proven, not) = tested_by::proven(&scratch, &cargo_target, &names, &all, log)?;
            // Targets, as the baseline runs them (one for each filter), not binaries: the line
            // said "11 of 71" for 11 binaries, 22 targets.
            let targets_proven = all
                .iter()
                .filter(|t| proven.contains(&(t.package.to_owned(), t.target.to_owned())))
                .count();
            eprintln!(
                "mutants: baseline: {targets_proven} of {} test targets ({} test binaries; the goldens' included) passed in the test step {} records, the same binaries in the same environment, nothing written since: not run again",
                all.len(),
                proven.len(),
                log.display()
            );
            for line in &not {
                eprintln!("mutants: baseline runs {line}");
            }
            proven
        }
        None => BTreeSet::new(),
    };
    let was_proven = |t: &Target<'_>| proven.contains(&(t.package.to_owned(), t.target.to_owned()));
    let targets_to_run: Vec<&Target<'_>> = targets.iter().filter(|t| !was_proven(t)).collect();
    eprintln!(
        "mutants: baseline (no bug planted): {}{} test targets …",
        if was_proven(&golden) {
            ""
        } else {
            "the goldens and "
        },
        targets_to_run.len()
    );
    if !was_proven(&golden) {
        let blessed = bless(&scratch, &cargo_target, &names, &pristine)?;
        if !blessed.is_empty() {
            return Err(format!(
                "the goldens are stale before any bug is planted: {}",
                blessed.join(", ")
            ));
        }
    }
    for target in targets_to_run {
        match run_target(&scratch, &cargo_target, &names, target)? {
            Outcome::Passed => {}
            Outcome::Failed(tests) => {
                return Err(format!(
                    "the baseline fails {target}: {}; fix that first",
                    tests.join(", ")
                ));
            }
            Outcome::DoesNotCompile(errors) => {
                return Err(format!("the baseline {target} does not compile:\n{errors}"));
            }
        }
    }
    println!(
        "mutants: baseline passed in {:.0} s",
        baseline_started.elapsed().as_secs_f64()
    );

    let mut survivors = Vec::new();
    for mutant in &selected {
        let mutant_started = Instant::now();
        eprintln!("mutants: {} ({}) …", mutant.name, mutant.breaks);
        restore(&pristine)?;
        plant(&scratch, mutant)?;
        let blessed = if mutant.file.starts_with(GENERATOR) {
            Some(bless(&scratch, &cargo_target, &names, &pristine)?)
        } else {
            None
        };
        let mut caught = Vec::new();
        let mut other = Vec::new();
        for test in mutant.tests {
            let target = Target::parse(test)?;
            match run_target(&scratch, &cargo_target, &names, &target)? {
                Outcome::Passed => other.push(format!("{target} passes")),
                Outcome::Failed(tests) => {
                    caught.push(format!("{target} fails: {}", tests.join(", ")));
                }
                Outcome::DoesNotCompile(first_error) => other.push(format!(
                    "{target} does not compile, which does not count ({first_error})"
                )),
            }
        }
        let verdict = if caught.is_empty() {
            survivors.push(mutant.name);
            "SURVIVED"
        } else {
            "caught"
        };
        let mut report = String::new();
        writeln!(
            report,
            "{verdict:8} {}: {} [{:.0} s]\n         breaks: {}",
            mutant.name,
            mutant.file,
            mutant_started.elapsed().as_secs_f64(),
            mutant.breaks,
        )
        .expect("write to string");
        match blessed {
            Some(blessed) if blessed.is_empty() => {
                writeln!(report, "         re-blessed: no golden changed")
            }
            Some(blessed) => writeln!(report, "         re-blessed: {}", blessed.join(", ")),
            None => Ok(()),
        }
        .expect("write to string");
        for line in caught.iter().chain(&other) {
            writeln!(report, "         {line}").expect("write to string");
        }
        println!("{report}");
    }
    restore(&pristine)?;
    println!(
        "mutants: {} planted, {} caught, {} survived{}, in {:.0} s",
        selected.len(),
        selected.len() - survivors.len(),
        survivors.len(),
        if survivors.is_empty() {
            String::new()
        } else {
            format!(" ({})", survivors.join(", "))
        },
        started.elapsed().as_secs_f64()
    );
    Ok(survivors.is_empty())
}

/// The workspace's files as git sees them, relative to `root`: tracked, or untracked and not
/// ignored (what a copy of the workspace holds, and what a change to it writes).
fn workspace_files(root: &Path) -> Result<Vec<PathBuf>, String> {
    let output = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "git ls-files failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(output
        .stdout
        .split(|b| *b == 0)
        .filter(|n| !n.is_empty())
        .map(|name| PathBuf::from(String::from_utf8_lossy(name).as_ref()))
        .collect())
}

/// Copies every file git tracks or would track (not ignored ones such as `target/`) into
/// `scratch`. Files whose content is unchanged since an earlier copy are left alone (so they
/// keep their modification time and cargo rebuilds nothing for them); stale files of an
/// earlier copy are removed.
fn copy_workspace(root: &Path, scratch: &Path) -> Result<(), String> {
    let mut wanted = BTreeSet::new();
    for name in workspace_files(root)? {
        let from = root.join(&name);
        if !from.is_file() {
            continue; // deleted in the work tree but still in the index
        }
        let to = scratch.join(&name);
        let content =
            fs::read(&from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
        if fs::read(&to).ok().as_deref() != Some(content.as_slice()) {
            if let Some(parent) = to.parent() {
                fs::create_dir_all(parent)
                    .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
            }
            fs::write(&to, &content).map_err(|e| format!("cannot write {}: {e}", to.display()))?;
            let permissions = fs::metadata(&from)
                .map_err(|e| format!("cannot inspect {}: {e}", from.display()))?
                .permissions();
            fs::set_permissions(&to, permissions)
                .map_err(|e| format!("cannot set the mode of {}: {e}", to.display()))?;
        }
        wanted.insert(name);
    }
    remove_others(scratch, Path::new(""), &wanted)
}

/// Gives the copy the data the workspace has beside it: `<mutants>/shared`, a link to the
/// workspace's `../shared`, so that the copy's tests find the corpus and the other data sets
/// at `../shared` as the workspace's do. Without it every test over `shared/` says SKIPPED
/// in the copy (outside CI) and passes, and a mutant only such a test catches "survives".
/// Nothing is linked when the workspace has no `../shared`: its tests skip there too.
fn link_shared(root: &Path, mutants: &Path) -> Result<(), String> {
    let Ok(shared) = root.join("../shared").canonicalize() else {
        return Ok(());
    };
    let link = mutants.join("shared");
    if fs::read_link(&link).is_ok_and(|to| to == shared) {
        return Ok(());
    }
    if fs::symlink_metadata(&link).is_ok() {
        fs::remove_file(&link)
            .or_else(|_| fs::remove_dir_all(&link))
            .map_err(|e| format!("cannot replace {}: {e}", link.display()))?;
    }
    symlink_dir(&shared, &link).map_err(|e| {
        format!(
            "cannot link {} to {}: {e}",
            link.display(),
            shared.display()
        )
    })
}

#[cfg(unix)]
fn symlink_dir(to: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(to, link)
}

#[cfg(windows)]
fn symlink_dir(to: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_dir(to, link)
}

/// Removes every file under `scratch` that is not in `wanted` (paths relative to it).
fn remove_others(
    scratch: &Path,
    relative: &Path,
    wanted: &BTreeSet<PathBuf>,
) -> Result<(), String> {
    let dir = scratch.join(relative);
    let Ok(entries) = fs::read_dir(&dir) else {
        return Ok(());
    };
    for entry in entries.filter_map(Result::ok) {
        let path = relative.join(entry.file_name());
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            remove_others(scratch, &path, wanted)?;
        } else if !wanted.contains(&path) {
            fs::remove_file(scratch.join(&path))
                .map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// The files a mutant or a bless may change, as copied: every mutated source and every
/// golden output.
fn pristine_files(scratch: &Path) -> Result<BTreeMap<PathBuf, String>, String> {
    let mut files = BTreeMap::new();
    for mutant in MUTANTS {
        let path = scratch.join(mutant.file);
        files.insert(path.clone(), read(&path)?);
    }
    for path in goldens(scratch)? {
        files.insert(path.clone(), read(&path)?);
    }
    Ok(files)
}

fn goldens(scratch: &Path) -> Result<Vec<PathBuf>, String> {
    let dir = scratch.join(GOLDEN_DIR);
    let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    paths.sort();
    Ok(paths)
}

fn read(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Writes the pristine files back when dropped: on success, on an error and on a panic.
struct Restore<'a>(&'a BTreeMap<PathBuf, String>);

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        if let Err(message) = restore(self.0) {
            eprintln!("error: the planted files could not be restored: {message}");
        }
    }
}

/// Writes back every pristine file whose content differs (so unchanged files keep their
/// modification time and cargo rebuilds only what a mutant touched).
fn restore(pristine: &BTreeMap<PathBuf, String>) -> Result<(), String> {
    for (path, text) in pristine {
        if read(path)? != *text {
            fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

fn plant(scratch: &Path, mutant: &Mutant) -> Result<(), String> {
    let path = scratch.join(mutant.file);
    let text = read(&path)?;
    let count = text.matches(mutant.find).count();
    if count != 1 {
        return Err(format!(
            "mutant {} no longer applies: its text occurs {count} times in {} (must be once); \
             update it in xtask/src/mutants.rs:\n{}",
            mutant.name, mutant.file, mutant.find
        ));
    }
    fs::write(&path, text.replacen(mutant.find, mutant.replace, 1))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Cargo in the copy, building in its own target directory, incrementally (each mutant
/// changes one file), in the environment of a cargo started from a shell (without the
/// variables `cargo xtask` set for xtask: [`as_from_a_shell`]), as `.ci/run`'s
/// test step's cargo. Blessing variables never leak into the test runs.
fn cargo(scratch: &Path, cargo_target: &Path) -> Command {
    let mut command = crate::cargo::command();
    command
        .current_dir(scratch)
        .env("CARGO_TARGET_DIR", cargo_target)
        .env("CARGO_INCREMENTAL", "1")
        .env_remove("KUBEFORGE_BLESS")
        .env_remove("TRYBUILD");
    command
}

/// The goldens' test, which re-blessing runs.
fn golden_target() -> Target<'static> {
    Target {
        package: "kubeforge-tests",
        target: "golden",
        filter: Some("goldens_match"),
    }
}

/// Re-blesses the goldens, and names those whose text changed.
fn bless(
    scratch: &Path,
    cargo_target: &Path,
    names: &TestNames,
    pristine: &BTreeMap<PathBuf, String>,
) -> Result<Vec<String>, String> {
    let golden = golden_target();
    let mut args = golden.cargo_args(names.workspace(&golden));
    args.insert(1, "--quiet");
    let output = cargo(scratch, cargo_target)
        .args(args)
        .env("KUBEFORGE_BLESS", "1")
        // Blessing is refused in CI; this copy is no CI run.
        .env_remove("CI")
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "blessing the goldens failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let mut changed = Vec::new();
    for path in goldens(scratch)? {
        if pristine.get(&path) != Some(&read(&path)?) {
            changed.push(
                path.strip_prefix(scratch)
                    .unwrap_or(&path)
                    .display()
                    .to_string(),
            );
        }
    }
    Ok(changed)
}

/// Which packages of the workspace have an integration test of each name (`cargo metadata`).
/// A target whose name one package alone has runs with `--workspace`
/// ([`Target::cargo_args`]): every mutant's build then shares the variant of each crate that
/// `cargo test --workspace` builds (CI's, in place), instead of one variant per package
/// (with `-p`, cargo unifies only the features that package's dependencies ask for, so a
/// crate built for two packages' tests is built twice, and again for every mutant that
/// changes it).
///
/// A name two packages share runs with `--workspace` too when each other package is a
/// dependency of the target's own (the generator's `protobuf` beside the tests' `protobuf`),
/// or is not built on it (the target's package is at most a dev-dependency of it: the
/// example's `rbac` and `simulation` beside the server's): cargo then builds every package's
/// test of that name, the others from crates the target needs anyway or that a mutant of
/// the target's package leaves alone (the example's test binaries only, its library not),
/// and the runner runs the target's binary alone ([`run_binary`]). So do a package's unit
/// tests (`lib`, which every package has) under the same rule: the server's, whose
/// `--workspace --lib` build after a server mutant rebuilds only the server's and the
/// example's unit tests; not the runtime's, which every other package is built on.
struct TestNames {
    /// Test name → the packages that have a test of that name (`lib`: those with a library).
    tests: BTreeMap<String, Vec<String>>,
    /// Package → the workspace packages it depends on (normal and dev-dependencies).
    dependencies: BTreeMap<String, BTreeSet<String>>,
    /// Package → the workspace packages its library is built on (its normal and build
    /// dependencies, and theirs, transitively).
    built_on: BTreeMap<String, BTreeSet<String>>,
    /// Package → its directory.
    dirs: BTreeMap<String, PathBuf>,
}

/// How a target is built and run.
#[derive(Debug, PartialEq, Eq)]
enum Selection {
    /// `cargo test -p <package>`.
    Package,
    /// `cargo test --workspace --test <target>`: no other package has a test of that name.
    Workspace,
    /// `cargo test --workspace --test <target> --no-run`, then the target's binary alone.
    WorkspaceBinary,
}

impl TestNames {
    fn read(scratch: &Path, cargo_target: &Path) -> Result<Self, String> {
        let output = cargo(scratch, cargo_target)
            .args(["metadata", "--no-deps", "--format-version", "1"])
            .output()
            .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "cargo metadata failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("cargo metadata's output does not read: {e}"))?;
        let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut dependencies: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut direct_built_on: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut dirs = BTreeMap::new();
        for package in metadata["packages"].as_array().into_iter().flatten() {
            let Some(package_name) = package["name"].as_str() else {
                continue;
            };
            if let Some(dir) = package["manifest_path"]
                .as_str()
                .and_then(|m| Path::new(m).parent())
            {
                dirs.insert(package_name.to_owned(), dir.to_path_buf());
            }
            let local = package["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| d["path"].is_string() && d["kind"] != "build")
                .filter_map(|d| d["name"].as_str().map(str::to_owned));
            dependencies
                .entry(package_name.to_owned())
                .or_default()
                .extend(local);
            let built_on = package["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| d["path"].is_string() && d["kind"] != "dev")
                .filter_map(|d| d["name"].as_str().map(str::to_owned));
            direct_built_on
                .entry(package_name.to_owned())
                .or_default()
                .extend(built_on);
            for target in package["targets"].as_array().into_iter().flatten() {
                let kinds = target["kind"].as_array();
                let has = |kind: &str| kinds.is_some_and(|kinds| kinds.iter().any(|k| k == kind));
                let name = if has("lib") || has("rlib") || has("proc-macro") {
                    Some("lib")
                } else if has("test") {
                    target["name"].as_str()
                } else {
                    None
                };
                if let Some(name) = name {
                    names
                        .entry(name.to_owned())
                        .or_default()
                        .push(package_name.to_owned());
                }
            }
        }
        Ok(TestNames {
            tests: names,
            dependencies,
            built_on: closure(&direct_built_on),
            dirs,
        })
    }

    /// How `target` is selected: among the whole workspace by its name alone, if no other
    /// package has a test of that name ([`Selection::Workspace`]) or every other package that
    /// has one (for unit tests, every other package with a library) is a dependency of the
    /// target's or is not built on it ([`Selection::WorkspaceBinary`]); by its package
    /// otherwise.
    fn selection(&self, target: &Target<'_>) -> Selection {
        let Some(packages) = self.tests.get(target.target) else {
            return Selection::Package;
        };
        if !packages.iter().any(|p| p == target.package) {
            return Selection::Package;
        }
        if packages.len() == 1 && target.target != "lib" {
            return Selection::Workspace;
        }
        let dependencies = self.dependencies.get(target.package);
        let others_are_cheap = packages.iter().filter(|p| *p != target.package).all(|p| {
            dependencies.is_some_and(|d| d.contains(p))
                || !self
                    .built_on
                    .get(p)
                    .is_some_and(|b| b.contains(target.package))
        });
        if others_are_cheap {
            Selection::WorkspaceBinary
        } else {
            Selection::Package
        }
    }

    /// Whether `target` builds in the workspace's variant.
    fn workspace(&self, target: &Target<'_>) -> bool {
        self.selection(target) != Selection::Package
    }
}

/// Each package's dependencies and theirs, transitively.
fn closure(direct: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    direct
        .keys()
        .map(|package| {
            let mut seen = BTreeSet::new();
            let mut next: Vec<&String> = direct[package].iter().collect();
            while let Some(dependency) = next.pop() {
                if seen.insert(dependency.clone()) {
                    next.extend(direct.get(dependency).into_iter().flatten());
                }
            }
            (package.clone(), seen)
        })
        .collect()
}

/// Builds `target` as `cargo test --workspace --test <target> --no-run` (or `--lib`: either
/// builds the other packages' targets of the same name too) and runs its package's binary alone, as
/// cargo would: in the package's directory, with `CARGO` and `CARGO_MANIFEST_DIR` set, and
/// the filter. The build's failure is the outcome (`Err`).
fn run_binary(
    scratch: &Path,
    cargo_target: &Path,
    names: &TestNames,
    target: &Target<'_>,
) -> Result<Result<std::process::Output, Outcome>, String> {
    let mut args = target.cargo_args(true);
    args.truncate(args.iter().position(|a| *a == "--").unwrap_or(args.len()));
    args.extend(["--no-run", "--message-format=json-render-diagnostics"]);
    let build = cargo(scratch, cargo_target)
        .args(&args)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let stderr = String::from_utf8_lossy(&build.stderr);
    if !build.status.success() {
        if stderr.contains("could not compile") {
            let first = stderr
                .lines()
                .find(|l| l.starts_with("error"))
                .unwrap_or("error")
                .to_owned();
            return Ok(Err(Outcome::DoesNotCompile(first)));
        }
        return Err(format!("cargo {} failed:\n{stderr}", args.join(" ")));
    }
    let dir = names
        .dirs
        .get(target.package)
        .ok_or_else(|| format!("cargo metadata does not list {}", target.package))?;
    let manifest = dir.join("Cargo.toml");
    let executable = String::from_utf8_lossy(&build.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["profile"]["test"] == true)
        .filter(|m| artifact_target(m) == target.target)
        .filter(|m| m["manifest_path"].as_str().map(Path::new) == Some(manifest.as_path()))
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| format!("cargo {} built no binary for {target}", args.join(" ")))?;
    let mut run = Command::new(&executable);
    as_from_a_shell(&mut run)
        .current_dir(dir)
        .env("CARGO", crate::cargo::program())
        .env("CARGO_MANIFEST_DIR", dir)
        .env("CARGO_MANIFEST_PATH", &manifest)
        .env("CARGO_PKG_NAME", target.package)
        .env("CARGO_TARGET_DIR", cargo_target)
        .env_remove("KUBEFORGE_BLESS")
        .env_remove("TRYBUILD");
    if let Some(filter) = target.filter {
        run.arg(filter);
    }
    run.output()
        .map(Ok)
        .map_err(|e| format!("cannot run {}: {e}", executable.display()))
}

/// The target a `compiler-artifact` message of cargo is for, as a [`Target`] names it: `lib`
/// for a library (its unit tests), the target's name otherwise.
pub(crate) fn artifact_target(message: &serde_json::Value) -> String {
    let is_lib = message["target"]["kind"].as_array().is_some_and(|kinds| {
        kinds
            .iter()
            .any(|k| k == "lib" || k == "rlib" || k == "proc-macro")
    });
    if is_lib {
        "lib".to_owned()
    } else {
        message["target"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

/// Runs one test target and says what happened.
fn run_target(
    scratch: &Path,
    cargo_target: &Path,
    names: &TestNames,
    target: &Target<'_>,
) -> Result<Outcome, String> {
    let direct = names.selection(target) == Selection::WorkspaceBinary;
    let output = if direct {
        match run_binary(scratch, cargo_target, names, target)? {
            Ok(output) => output,
            Err(outcome) => return Ok(outcome),
        }
    } else {
        cargo(scratch, cargo_target)
            .args(target.cargo_args(names.workspace(target)))
            .output()
            .map_err(|e| format!("cannot run cargo: {e}"))?
    };
    if output.status.success() {
        return Ok(Outcome::Passed);
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let failed: Vec<String> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test ")?.strip_suffix(" ... FAILED"))
        .map(str::to_owned)
        .collect();
    if !failed.is_empty() {
        return Ok(Outcome::Failed(failed));
    }
    if direct {
        // Run directly, a binary that failed without a failing test crashed (an abort, a
        // stack overflow), as cargo's "process didn't exit successfully" below.
        return Ok(Outcome::Failed(vec![format!(
            "the test binary crashed: {}",
            output.status
        )]));
    }
    if stderr.contains("could not compile") {
        let first = stderr
            .lines()
            .find(|l| l.starts_with("error"))
            .unwrap_or("error")
            .to_owned();
        return Ok(Outcome::DoesNotCompile(first));
    }
    // A test binary that crashed (an abort, a stack overflow) failed as well.
    if stderr.contains("process didn't exit successfully") {
        let line = stderr
            .lines()
            .find(|l| l.contains("process didn't exit successfully"))
            .unwrap_or_default();
        return Ok(Outcome::Failed(vec![format!(
            "the test binary crashed: {line}"
        )]));
    }
    Err(format!(
        "cargo test for {target} failed without a failing test or a compile error:\n{stdout}{stderr}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace")
            .to_path_buf()
    }

    /// Every mutant still applies exactly once and names test targets that exist, so that
    /// `cargo test` (and CI, before the full run) fails at once when a change breaks one.
    #[test]
    fn every_mutant_applies_exactly_once() {
        let problems = problems(&root());
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// The replacement really changes the text, and the count stays as the guide says.
    #[test]
    fn every_mutant_changes_something() {
        for mutant in MUTANTS {
            assert_ne!(mutant.find, mutant.replace, "{}", mutant.name);
        }
        assert!(MUTANTS.len() >= 14, "{} mutants", MUTANTS.len());
    }

    /// The mutants run package by package, each package's dependents before it: every
    /// mutant's file is in a package [`RUN_ORDER`] lists, each listed package depends on the
    /// next one (its manifest names it), and the runs cross from one package to another only
    /// as often as the list has packages after the first.
    #[test]
    fn mutants_run_dependents_first_package_by_package() {
        for mutant in MUTANTS {
            assert!(
                RUN_ORDER.iter().any(|dir| mutant.file.starts_with(dir)),
                "{} plants in {}, in no package of RUN_ORDER",
                mutant.name,
                mutant.file
            );
        }
        let manifest = |dir: &str| fs::read_to_string(root().join(dir).join("Cargo.toml")).unwrap();
        let name = |dir: &str| {
            let text = manifest(dir);
            let line = text
                .lines()
                .find(|l| l.starts_with("name = "))
                .unwrap()
                .to_owned();
            line.trim_start_matches("name = ")
                .trim_matches('"')
                .to_owned()
        };
        for pair in RUN_ORDER.windows(2) {
            let dependency = name(pair[1]);
            assert!(
                manifest(pair[0])
                    .lines()
                    .any(|l| l.starts_with(&format!("{dependency} "))
                        || l.starts_with(&format!("{dependency}."))),
                "{} does not depend on {dependency}",
                pair[0]
            );
        }
        let order = run_order(MUTANTS.iter().collect());
        let package = |m: &Mutant| RUN_ORDER.iter().position(|dir| m.file.starts_with(dir));
        let crossings = order
            .windows(2)
            .filter(|pair| package(pair[0]) != package(pair[1]))
            .count();
        assert_eq!(crossings, RUN_ORDER.len() - 1);
        assert_eq!(order.len(), MUTANTS.len());
    }

    /// A test whose name one package alone has is selected among the workspace; one whose
    /// name another package's test has too (and unit tests, which every package has), among
    /// the workspace when each other package is a dependency (`protobuf`: the generator's and
    /// the tests') or is not built on the target's package (the example's `rbac` beside the
    /// server's), by its package otherwise (`routes`: the runtime's and the tests').
    #[test]
    fn workspace_selection_by_name_and_dependencies() {
        let root = root();
        let names = TestNames::read(&root, &root.join("target")).unwrap();
        let golden = Target::parse("kubeforge-tests:golden:goldens_match").unwrap();
        assert!(names.workspace(&golden));
        let admission = Target::parse("kubeforge-server:admission").unwrap();
        assert!(names.workspace(&admission));
        // The generator, whose test is also named `protobuf`, is a dependency of the tests
        // (and they a dev-dependency of the generator).
        for protobuf in ["kubeforge-tests:protobuf", "kubeforge:protobuf"] {
            let protobuf = Target::parse(protobuf).unwrap();
            assert_eq!(names.selection(&protobuf), Selection::WorkspaceBinary);
        }
        assert_eq!(names.selection(&golden), Selection::Workspace);
        // The example's `rbac` and `simulation` and every other package's unit tests are
        // not built on the server (the example has it as a dev-dependency only): a server
        // mutant rebuilds only the example's test binaries beside the server's.
        for shared in [
            "kubeforge-server:rbac",
            "kubeforge-server:simulation",
            "kubeforge-server:lib:strategic_directives",
        ] {
            assert_eq!(
                names.selection(&Target::parse(shared).unwrap()),
                Selection::WorkspaceBinary,
                "{shared}"
            );
        }
        // The tests' `routes`, and the generator's unit tests and every other package's, are
        // built on the runtime: a runtime mutant would rebuild them all.
        for shared in ["kubeforge-runtime:routes", "kubeforge-runtime:lib"] {
            assert!(
                !names.workspace(&Target::parse(shared).unwrap()),
                "{shared}"
            );
        }
        // A name another package has, given with the wrong package, is not taken for it.
        let wrong = Target::parse("kubeforge-server:golden").unwrap();
        assert!(!names.workspace(&wrong));
    }

    /// The copy finds the workspace's `../shared` beside it, as the workspace's tests do
    /// (without the link, every test over `shared/` skipped in the copy and a mutant only
    /// such a test catches "survived"); a second run keeps the link, and a stale one is
    /// replaced.
    #[test]
    fn the_copy_reads_the_workspace_shared_data() {
        let dir = std::env::temp_dir().join(format!("mutants-shared-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let root = dir.join("work/main");
        let mutants = root.join("target/mutants");
        fs::create_dir_all(dir.join("work/shared/corpus")).unwrap();
        fs::write(dir.join("work/shared/corpus/SOURCE.md"), "real").unwrap();
        fs::create_dir_all(mutants.join("repo")).unwrap();
        let read = || fs::read_to_string(mutants.join("repo/../shared/corpus/SOURCE.md"));
        assert!(read().is_err());
        link_shared(&root, &mutants).unwrap();
        assert_eq!(read().unwrap(), "real");
        link_shared(&root, &mutants).unwrap();
        assert_eq!(read().unwrap(), "real");
        fs::remove_file(mutants.join("shared")).unwrap();
        symlink_dir(&dir.join("work/main"), &mutants.join("shared")).unwrap();
        link_shared(&root, &mutants).unwrap();
        assert_eq!(read().unwrap(), "real");
        // A workspace with nothing beside it: nothing to link, no error.
        let lone = dir.join("lone/main");
        fs::create_dir_all(&lone).unwrap();
        link_shared(&lone, &lone.join("target/mutants")).unwrap();
        assert!(fs::symlink_metadata(lone.join("target/mutants/shared")).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn targets_read_back() {
        let target = Target::parse("kubeforge-tests:lossless:goldens_round_trip").unwrap();
        assert_eq!(
            target.cargo_args(true),
            [
                "test",
                "--workspace",
                "--test",
                "lossless",
                "--",
                "goldens_round_trip"
            ]
        );
        assert_eq!(
            target.cargo_args(false),
            [
                "test",
                "-p",
                "kubeforge-tests",
                "--test",
                "lossless",
                "--",
                "goldens_round_trip"
            ]
        );
        assert_eq!(
            target.to_string(),
            "kubeforge-tests:lossless:goldens_round_trip"
        );
        let lib = Target::parse("kubeforge-runtime:lib").unwrap();
        assert_eq!(
            lib.cargo_args(false),
            ["test", "-p", "kubeforge-runtime", "--lib"]
        );
        // Among the workspace, unit tests are every package's.
        assert_eq!(lib.cargo_args(true), ["test", "--workspace", "--lib"]);
        for bad in ["", "x", "x:", ":y", "x:y:", "x:y:z:w"] {
            assert!(Target::parse(bad).is_err(), "{bad:?}");
        }
    }
}
