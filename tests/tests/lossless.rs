//! Lossless by construction: for every schema of every corpus input and golden input,
//! generated instances (`kubeforge_tests::instances`) go through the generated Rust type
//! (deserialize → serialize) and must come back equal as `serde_json::Value`.
//!
//! The only normalization is the instance generator's: `null` on a non-nullable optional
//! field reads as absent. Each schema gets `KUBEFORGE_LOSSLESS_INSTANCES` instances (64 by
//! default), and a quarter as many again with fields unknown to the type, as a newer server
//! sends them. Seeds come from the input, schema and index only, so a failure reproduces;
//! `KUBEFORGE_LOSSLESS_ONLY=<text>` restricts a run to schemas whose name contains it, and
//! `KUBEFORGE_LOSSLESS_VERBOSE=1` shows every failing instance.
//!
//! Instances are checked by a program generated into the corpus crate the scale test builds
//! (same directory, same target directory, so the crate is built once): it reads
//! `key \t input \t expected` lines and dispatches on the schema to its Rust type through a
//! generated `match`.
//!
//! The comparison sees the order of keys where the guide promises one: the keys beside a
//! type's properties (extra and unknown ones) come back after the properties, in the order
//! they were sent ([`instances::Instance::order`]). `serde_json::Value`'s `==` ignores order,
//! so the harness also sends back the output of every instance that has such keys, and the
//! test checks their order (cause `key-order`).
//!
//! `tests/lossless-gaps.txt` lists every schema known to fail today, with its causes
//! ([`CAUSES`]); the test fails on a failure no entry explains, and on an entry that no
//! longer fails, or lists a cause none of its failures shows (stale). An instance's failure is
//! explained by an entry for its own schema, or for a schema it contains an instance of (a
//! `Pod` with a failing `Quantity` inside), that lists every cause the failure shows: an
//! entry excuses its own reasons only. Listed schemas always get [`LIST_INSTANCES`]
//! instances, the number the list was made with, so the stale check holds at any
//! `KUBEFORGE_LOSSLESS_INSTANCES` (CI's 16 included). A failing run writes the list that
//! explains its failures exactly to `target/tmp/scale/lossless/<harness>.gaps.txt`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

use kubeforge::view::{Kind, Model};
use kubeforge::{Config, Layout};
use kubeforge_tests::harness;
use kubeforge_tests::instances::{self, Options, SchemaSet};
use kubeforge_tests::json_diff::differences;
use kubeforge_tests::sorted_files;
use kubeforge_tests::{corpus, corpus_dir, scale, workspace_root};
use serde_json::Value;

/// Why a schema's instances fail today: a name used in `tests/lossless-gaps.txt`, what goes
/// wrong, and which mapping fix removes it. The test labels each unexplained failure with
/// the causes it recognises in it (`classify`).
const CAUSES: &[(&str, &str)] = &[
    (
        "marker-null",
        "`null` on an optional `apiVersion`/`kind` is refused by the `ApiVersion`/`Kind` markers instead of reading as absent",
    ),
    (
        "number-form",
        "`type: number`: an integer such as `3` is written back as `3.0` (issue 12 item 3, numbers)",
    ),
    (
        "float-digits",
        "a float comes back with other digits (`3e100` → `3.0000000000000002e100`): the generated crate's serde_json parses floats without `float_roundtrip`, so text → f64 → text is not exact",
    ),
    (
        "date-time-text",
        "plain `format: date-time` is read as `Time`, so fractions and offsets are lost (issue 12 item 3, plain date-time)",
    ),
    (
        "null-dropped",
        "`null` where the schema makes it a value (nullable) is dropped (issue 12 item 3, nullable)",
    ),
    (
        "null-refused",
        "`null` where the schema makes it a value (nullable) is refused (issue 12 item 3, nullable)",
    ),
    (
        "keys-dropped",
        "a key is missing after the round trip: keys the schema admits beside its properties (`additionalProperties`, `patternProperties`, `x-kubernetes-preserve-unknown-fields`; issue 12 item 3, extra keys), or a property",
    ),
    (
        "integer-range",
        "an integer the format admits is refused (`uint64` above `i64::MAX`; issue 12 item 3, integer formats)",
    ),
    (
        "refused",
        "a value the schema admits is refused (`allOf`/`oneOf`/`anyOf` mapped to one branch, or another mapping gap)",
    ),
    (
        "changed",
        "a value comes back different (another mapping gap)",
    ),
    (
        "key-order",
        "the keys beside an object's properties (extra or unknown ones) do not come back after the properties in the order they were sent",
    ),
    ("no-type", "the generator made no type for the schema"),
    (
        "companion-marker",
        "the input's `Status` has no `x-kubernetes-group-version-kind` (OpenShift's copy) but is the companion crate's, whose `apiVersion`/`kind` markers accept only `v1`/`Status`, what every server sends (as when the document is merged with Kubernetes' own)",
    ),
    (
        "envelope-keys",
        "keys beside a watch event's `type` and `object` (no Kubernetes release sends any) are ignored: the runtime's `WatchEvent` is an enum of the event kinds, with no place for them",
    ),
];

/// The number of instances per schema `tests/lossless-gaps.txt` was made with: a listed
/// schema gets at least this many in every run, so that an entry that no longer fails is
/// found stale with fewer instances per schema too (as in CI).
const LIST_INSTANCES: usize = 64;

/// The known gaps: `(input, schema)` → causes, from `tests/lossless-gaps.txt`.
fn gaps() -> BTreeMap<(String, String), Vec<String>> {
    let path = workspace_root().join("tests/lossless-gaps.txt");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut gaps = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [input, schema, causes] = fields[..] else {
            panic!(
                "tests/lossless-gaps.txt:{}: expected `input schema cause[,cause…]`, found {line:?}",
                number + 1
            );
        };
        let causes: Vec<String> = causes.split(',').map(str::to_owned).collect();
        for cause in &causes {
            assert!(
                CAUSES.iter().any(|(name, _)| name == cause),
                "tests/lossless-gaps.txt:{}: unknown cause {cause:?}",
                number + 1
            );
        }
        let previous = gaps.insert((input.to_owned(), schema.to_owned()), causes);
        assert!(
            previous.is_none(),
            "tests/lossless-gaps.txt:{}: listed twice",
            number + 1
        );
    }
    gaps
}

/// The causes recognisable in one failure: the harness's message, and for a value that came
/// back different, where it differs.
///
/// `envelope`: the schema is a watch event, whose keys beside `type` and `object` have no
/// place in the runtime's `WatchEvent` (cause `envelope-keys`).
fn classify(
    message: &str,
    expected: &Value,
    back: Option<&Value>,
    envelope: bool,
) -> BTreeSet<&'static str> {
    let mut causes = BTreeSet::new();
    if message.starts_with("order ") {
        causes.insert("key-order");
    } else if let Some(back) = back {
        if envelope && let (Value::Object(e), Value::Object(b)) = (expected, back) {
            // The envelope's own keys; `type` and `object` are compared as any other.
            if e.keys()
                .any(|k| !b.contains_key(k) && k != "type" && k != "object")
            {
                causes.insert("envelope-keys");
            }
            let kept = |map: &serde_json::Map<String, Value>| -> Value {
                Value::Object(
                    map.iter()
                        .filter(|(k, _)| *k == "type" || *k == "object")
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                )
            };
            differ(&kept(e), &kept(b), &mut causes);
            return causes;
        }
        differ(expected, back, &mut causes);
    } else if message.contains("invalid type: null, expected the string") {
        causes.insert("marker-null");
    } else if message.contains("invalid type: null") {
        causes.insert("null-refused");
    } else if message.contains("invalid value: integer") || message.contains("out of range") {
        causes.insert("integer-range");
    } else if message.contains("no type") || message.contains("made no type") {
        causes.insert("no-type");
    } else if message.contains("invalid apiVersion \"") || message.contains("invalid kind \"") {
        causes.insert("companion-marker");
    } else {
        causes.insert("refused");
    }
    causes
}

fn differ(expected: &Value, back: &Value, causes: &mut BTreeSet<&'static str>) {
    match (expected, back) {
        (Value::Object(e), Value::Object(b)) => {
            for (key, value) in e {
                match b.get(key) {
                    Some(b_value) => differ(value, b_value, causes),
                    None if value.is_null() => {
                        causes.insert("null-dropped");
                    }
                    None => {
                        causes.insert("keys-dropped");
                    }
                }
            }
            if b.keys().any(|k| !e.contains_key(k)) {
                causes.insert("changed");
            }
        }
        (Value::Array(e), Value::Array(b)) if e.len() == b.len() => {
            for (e, b) in e.iter().zip(b) {
                differ(e, b, causes);
            }
        }
        _ if expected == back => {}
        (Value::Number(e), Value::Number(b)) if !e.is_f64() && b.is_f64() => {
            causes.insert("number-form");
        }
        (Value::Number(e), Value::Number(b)) if e.is_f64() && b.is_f64() => {
            causes.insert("float-digits");
        }
        (Value::String(e), Value::String(_)) if e.len() >= 20 && e.as_bytes()[10] == b'T' => {
            causes.insert("date-time-text");
        }
        _ => {
            causes.insert("changed");
        }
    }
}

/// Whether fields unknown to a type are dropped today, so that instances with them fail on
/// every input (the reason). Stale once none fails.
const UNKNOWN_FIELDS_DROPPED: Option<&str> = None;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mode {
    /// Instances as the schema describes them.
    Plain,
    /// The same with fields unknown to every type.
    UnknownFields,
}

/// One input: its schemas, the model the generator made of it, and where its types are.
struct Part {
    /// The gap key (`kubernetes/swagger.json`).
    input: String,
    set: SchemaSet,
    api: Model,
    /// The Rust path prefix of the generated types (`scale_crds::`).
    prefix: String,
}

fn instances_per_schema() -> usize {
    std::env::var("KUBEFORGE_LOSSLESS_INSTANCES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

fn only() -> Option<String> {
    std::env::var("KUBEFORGE_LOSSLESS_ONLY").ok()
}

fn load(set: &mut SchemaSet, path: &Path, display: &str) {
    set.load(path, display)
        .unwrap_or_else(|e| panic!("{display}: {e}"));
}

/// The crate identifier of a package name.
fn ident(name: &str) -> String {
    name.replace('-', "_")
}

#[test]
fn goldens_round_trip() {
    let root = workspace_root();
    let builtin: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(root.join("codegen/src/load/builtin.json")).expect("builtin.json"),
    )
    .expect("builtin.json is JSON");
    let mut parts = Vec::new();
    let mut modules = Vec::new();
    for path in sorted_files(&root.join("tests/golden"), "json") {
        let case = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("case name")
            .to_owned();
        let input = format!("golden/{case}.json");
        let config = Config::new()
            .input_named(&path, &input)
            .layout(Layout::SingleFile)
            .root_path(format!("crate::{case}"));
        let output = config
            .generate()
            .unwrap_or_else(|e| panic!("{input}:\n{e}"));
        let code = output.files().values().next().cloned().expect("one file");
        modules.push((case.clone(), code));
        let mut set = SchemaSet::new();
        load(&mut set, &path, &input);
        // The meta types a CRD refers to, as the generator fills them in.
        set.add_missing_definitions(&builtin);
        parts.push(Part {
            input,
            set,
            api: config.model().unwrap_or_else(|e| panic!("{e}")),
            prefix: format!("lossless_goldens::{case}::"),
        });
    }
    let dir = scale::dir().join("crates/lossless-goldens");
    fs::create_dir_all(dir.join("src")).expect("crate dir");
    let mut lib = String::from("//! The golden inputs' types, for the lossless test.\n");
    for (module, code) in &modules {
        write_if_changed(&dir.join(format!("src/{module}.rs")), code);
        writeln!(lib, "pub mod {module};").expect("write to string");
    }
    write_if_changed(&dir.join("src/lib.rs"), &lib);
    let manifest = format!(
        "[package]\nname = \"lossless-goldens\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         {}\n[workspace]\n",
        kubeforge_tests::generated_dependencies()
    );
    write_if_changed(&dir.join("Cargo.toml"), &manifest);
    check("goldens", &dir, &parts);
}

#[test]
fn kubernetes_swagger_round_trips() {
    let Some(corpus) = corpus(
        "lossless: Kubernetes 1.36 swagger.json",
        &["kubernetes/swagger.json", "kubernetes/proto"],
    ) else {
        return;
    };
    let path = corpus.join("kubernetes/swagger.json");
    // The scale and protobuf tests' configuration exactly (its `.proto` files included), so
    // that the crate they write under the same name is one text and its default-features
    // build, which this test and the scale test both make, is compiled once. The protobuf
    // code is behind the crate's `protobuf` feature, which the default leaves out: the types
    // this test round-trips are the same.
    let config = scale::kubernetes_swagger_config(&corpus);
    let mut set = SchemaSet::new();
    load(&mut set, &path, "kubernetes/swagger.json");
    corpus_part(
        "scale-kubernetes-swagger",
        "kubernetes/swagger.json",
        config,
        set,
    );
}

#[test]
fn kubernetes_v3_round_trips() {
    let Some(corpus) = corpus_dir("lossless: Kubernetes 1.35 OpenAPI v3") else {
        return;
    };
    let files = sorted_files(&corpus.join("kubernetes/v3"), "json");
    let mut set = SchemaSet::new();
    let mut config = Config::new();
    for file in &files {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .expect("file name");
        load(&mut set, file, name);
        config = config.input(file);
    }
    corpus_part("scale-kubernetes-v3", "kubernetes/v3", config, set);
}

#[test]
fn openshift_round_trips() {
    let Some(corpus) = corpus_dir("lossless: OpenShift openapi.json") else {
        return;
    };
    let path = corpus.join("openshift/openapi.json");
    let mut set = SchemaSet::new();
    load(&mut set, &path, "openshift/openapi.json");
    corpus_part(
        "scale-openshift",
        "openshift/openapi.json",
        Config::new().input(&path),
        set,
    );
}

#[test]
fn crds_round_trip() {
    let Some(corpus) = corpus_dir("lossless: CRDs") else {
        return;
    };
    let mut set = SchemaSet::new();
    let mut config = Config::new();
    for file in sorted_files(&corpus.join("crds"), "yaml") {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .expect("file name");
        load(&mut set, &file, name);
        config = config.input(&file);
    }
    // The meta types a server fills in (`metadata` is an `ObjectMeta`), as Kubernetes
    // defines them.
    let swagger: Value = serde_json::from_str(
        &fs::read_to_string(corpus.join("kubernetes/swagger.json")).expect("swagger.json"),
    )
    .expect("swagger.json is JSON");
    set.add_missing_definitions(&swagger);
    corpus_part("scale-crds", "crds", config, set);
}

fn corpus_part(crate_name: &str, input: &str, config: Config, set: SchemaSet) {
    let api = config
        .model()
        .unwrap_or_else(|e| panic!("{input} does not model:\n{e}"));
    let dir = scale::generate(crate_name, &config);
    let part = Part {
        input: input.to_owned(),
        set,
        api,
        prefix: format!("{}::", ident(crate_name)),
    };
    check(input, &dir, &[part]);
}

fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(text) {
        fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// One instance sent to the harness.
struct Sent {
    part: usize,
    schema: String,
    mode: Mode,
    index: usize,
}

fn options(mode: Mode) -> Options {
    Options {
        unknown_fields: mode == Mode::UnknownFields,
        ..Options::default()
    }
}

/// What happened to one schema's instances.
#[derive(Default)]
struct Outcome {
    document: String,
    instances: usize,
    /// Failing instances: (mode, index, message).
    failures: Vec<(Mode, usize, String)>,
}

/// Generates the harness into `dir`, builds it, feeds it every instance of every part, and
/// checks the failures against [`GAPS`].
fn check(name: &str, dir: &Path, parts: &[Part]) {
    let n = instances_per_schema();
    let n_unknown = (n / 4).max(1);
    let only = only();
    let example = format!("lossless_{}", ident(&name.replace(['/', '.'], "_")));

    // The dispatch table: key → Rust type, for every root schema with a generated type.
    let mut arms = String::new();
    let mut keys: BTreeMap<(usize, String), String> = BTreeMap::new();
    let mut missing: Vec<(usize, String)> = Vec::new();
    let mut envelopes: BTreeSet<(usize, String)> = BTreeSet::new();
    for (p, part) in parts.iter().enumerate() {
        let by_schema: BTreeMap<&str, _> = part.api.types().map(|t| (t.schema_name(), t)).collect();
        for root in part.set.roots() {
            let Some(ty) = by_schema.get(root.name.as_str()) else {
                missing.push((p, root.name.clone()));
                continue;
            };
            let path = ty.path();
            if ty.kind() == Kind::WatchEvent {
                envelopes.insert((p, root.name.clone()));
            }
            let generics = match ty.kind() {
                Kind::WatchEvent => "<::serde_json::Value>",
                Kind::Extern => continue,
                _ => "",
            };
            let key = format!("{}#{}", part.input, root.name);
            arms.push_str(&harness::arm(
                &key,
                &format!("{}{path}{generics}", part.prefix),
            ));
            keys.insert((p, root.name.clone()), key);
        }
    }
    let program = harness::program(&arms);
    fs::create_dir_all(dir.join("examples")).expect("examples dir");
    write_if_changed(&dir.join(format!("examples/{example}.rs")), &program);
    let started = Instant::now();
    scale::cargo(dir, &["build", "--quiet", "--example", &example]);
    let build_time = started.elapsed();

    // Every instance, streamed to the harness; a listed schema gets as many as the list was
    // made with.
    let gaps = gaps();
    let started = Instant::now();
    let mut sent: Vec<Sent> = Vec::new();
    for (p, part) in parts.iter().enumerate() {
        for root in part.set.roots() {
            if only.as_deref().is_some_and(|o| !root.name.contains(o))
                || !keys.contains_key(&(p, root.name.clone()))
            {
                continue;
            }
            let (n, n_unknown) = if gaps.contains_key(&(part.input.clone(), root.name.clone())) {
                (n.max(LIST_INSTANCES), n_unknown.max(LIST_INSTANCES / 4))
            } else {
                (n, n_unknown)
            };
            for (mode, count) in [(Mode::Plain, n), (Mode::UnknownFields, n_unknown)] {
                for index in 0..count {
                    sent.push(Sent {
                        part: p,
                        schema: root.name.clone(),
                        mode,
                        index,
                    });
                }
            }
        }
    }
    let binary = scale::dir_target().join(format!("debug/examples/{example}"));
    let failures = harness::run(&binary, sent.len(), |number| {
        let s = &sent[number];
        let part = &parts[s.part];
        let instance = instances::generate(
            &part.set,
            &s.schema,
            &options(s.mode),
            seed(&part.input, &s.schema, s.mode, s.index),
        );
        (keys[&(s.part, s.schema.clone())].clone(), instance)
    });
    let run_time = started.elapsed();

    // Outcomes per schema.
    let mut outcomes: BTreeMap<(usize, String), Outcome> = BTreeMap::new();
    for (p, part) in parts.iter().enumerate() {
        for root in part.set.roots() {
            outcomes.entry((p, root.name.clone())).or_default().document = root.document.clone();
        }
    }
    for sent in &sent {
        if let Some(o) = outcomes.get_mut(&(sent.part, sent.schema.clone())) {
            o.instances += 1;
        }
    }
    for (number, message) in failures {
        let s = &sent[number];
        if let Some(o) = outcomes.get_mut(&(s.part, s.schema.clone())) {
            o.failures.push((s.mode, s.index, message));
        }
    }
    for (p, schema) in &missing {
        if let Some(o) = outcomes.get_mut(&(*p, schema.clone())) {
            o.failures.push((
                Mode::Plain,
                0,
                "the generator made no type of it".to_owned(),
            ));
        }
    }

    // Every failure, with what its instance contains and the causes it shows.
    let failing: BTreeSet<(String, String)> = outcomes
        .iter()
        // Failures with unknown fields count too, unless dropping them is a known gap.
        .filter(|(_, o)| {
            o.failures
                .iter()
                .any(|f| f.0 == Mode::Plain || UNKNOWN_FIELDS_DROPPED.is_none())
        })
        .map(|((p, s), _)| (parts[*p].input.clone(), s.clone()))
        .collect();
    let mut found: Vec<Found> = Vec::new();
    let mut per_document: BTreeMap<(String, String), [usize; 5]> = BTreeMap::new();
    for ((p, schema), outcome) in &outcomes {
        let part = &parts[*p];
        let counts = per_document
            .entry((part.input.clone(), outcome.document.clone()))
            .or_default();
        counts[0] += 1;
        counts[1] += outcome.instances;
        counts[2] += outcome.failures.len();
        counts[3] += usize::from(!outcome.failures.is_empty());
        counts[4] += outcome
            .failures
            .iter()
            .filter(|f| f.0 == Mode::UnknownFields)
            .count();
        for (mode, index, message) in &outcome.failures {
            if *mode == Mode::UnknownFields && UNKNOWN_FIELDS_DROPPED.is_some() {
                continue;
            }
            let seed = seed(&part.input, schema, *mode, *index);
            let instance = instances::generate(&part.set, schema, &options(*mode), seed);
            let back: Option<Value> = message
                .strip_prefix("back ")
                .map(|b| serde_json::from_str(b).expect("harness JSON"));
            let envelope = envelopes.contains(&(*p, schema.clone()));
            let causes = classify(message, &instance.expected, back.as_ref(), envelope);
            let detail = match &back {
                Some(back) => differences(&instance.expected, back, 4).join("\n      "),
                None => message.split('\t').next().unwrap_or_default().to_owned(),
            };
            let input_text = instance.input.to_string();
            let shown: String = input_text.chars().take(600).collect();
            let contained: Vec<(String, String)> = instance
                .contains
                .into_iter()
                .filter(|c| c != schema)
                .map(|c| (part.input.clone(), c))
                .collect();
            found.push(Found {
                key: (part.input.clone(), schema.clone()),
                contains: contained
                    .iter()
                    .filter(|key| failing.contains(*key))
                    .cloned()
                    .collect(),
                contained,
                causes,
                text: format!(
                    "{} {schema} ({mode:?} #{index}, seed {seed:#x}):\n      {detail}\n      input: {shown}",
                    part.input
                ),
            });
        }
    }
    if std::env::var_os("KUBEFORGE_LOSSLESS_VERBOSE").is_some() {
        for f in &found {
            eprintln!("{:?} {}", f.causes, f.text);
        }
    }
    let mut unexplained: BTreeMap<(String, String), (BTreeSet<&str>, String)> = BTreeMap::new();
    // An entry explains a failure of its own schema, or of one containing it, when it lists
    // every cause the failure shows; a listed schema that never fails, or a listed cause that
    // none of its failures shows, is reported stale below.
    let by_list = |f: &&Found| {
        std::iter::once(&f.key)
            .chain(&f.contained)
            .filter_map(|key| gaps.get(key))
            .any(|listed| f.causes.iter().all(|c| listed.iter().any(|l| l == c)))
    };
    for f in found.iter().filter(|f| !by_list(f)) {
        let entry = unexplained
            .entry(f.key.clone())
            .or_insert_with(|| (BTreeSet::new(), f.text.clone()));
        entry.0.extend(&f.causes);
    }
    let mut stale = Vec::new();
    // Listed schemas ran with the instances the list was made with, so the list is exact.
    let mut shown: BTreeMap<&(String, String), BTreeSet<&str>> = BTreeMap::new();
    for f in &found {
        shown.entry(&f.key).or_default().extend(&f.causes);
    }
    for ((input, schema), causes) in &gaps {
        let key = (input.clone(), schema.clone());
        let ran = parts.iter().any(|p| p.input == *input)
            && only.as_deref().is_none_or(|o| schema.contains(o));
        if !ran {
            continue;
        }
        if !failing.contains(&key) {
            stale.push(format!(
                "{input} {schema} {}: no longer fails",
                causes.join(",")
            ));
            continue;
        }
        let unseen: Vec<&str> = causes
            .iter()
            .map(String::as_str)
            .filter(|c| !shown.get(&key).is_some_and(|s| s.contains(c)))
            .collect();
        if !unseen.is_empty() {
            stale.push(format!(
                "{input} {schema} {}: no failure shows {}",
                causes.join(","),
                unseen.join(",")
            ));
        }
    }
    if only.is_none() && n >= LIST_INSTANCES {
        let unknown_failures = outcomes
            .values()
            .any(|o| o.failures.iter().any(|f| f.0 == Mode::UnknownFields));
        if let (Some(reason), false) = (UNKNOWN_FIELDS_DROPPED, unknown_failures) {
            stale.push(format!("UNKNOWN_FIELDS_DROPPED ({reason})"));
        }
    }
    let proposal = propose_gaps(&found);
    let proposal_path = scale::dir().join(format!("lossless/{example}.gaps.txt"));
    fs::create_dir_all(scale::dir().join("lossless")).expect("lossless dir");
    fs::write(&proposal_path, &proposal).expect("write the proposed gaps");

    let mut report = String::new();
    for ((input, document), [schemas, count, failed, failed_schemas, unknown]) in &per_document {
        let place = if input == document {
            input.clone()
        } else {
            format!("{input} {document}")
        };
        writeln!(
            report,
            "lossless: {place}: {schemas} schemas, {count} instances, {failed} failing ({unknown} of them with unknown fields) in {failed_schemas} schemas"
        )
        .expect("write to string");
    }
    writeln!(
        report,
        "lossless: {name}: {} instances ({n} per schema, {n_unknown} with unknown fields); harness built in {:.1} s, run (generation included) in {:.1} s",
        sent.len(),
        build_time.as_secs_f64(),
        run_time.as_secs_f64()
    )
    .expect("write to string");
    // Straight to stderr, past the test harness's capture, so the counts show on success too.
    std::io::stderr()
        .write_all(report.as_bytes())
        .expect("stderr");
    let unexplained: Vec<String> = unexplained
        .into_iter()
        .map(|(_, (causes, text))| {
            let causes: Vec<&str> = causes.into_iter().collect();
            format!("[{}] {text}", causes.join(","))
        })
        .collect();
    assert!(
        unexplained.is_empty() && stale.is_empty(),
        "{name}: {} schemas fail without a listed gap, {} listed gaps are stale; the gaps that \
         would explain today's failures exactly are in {}\n\nunexplained:\n  {}\n\nstale gaps \
         (remove them from tests/lossless-gaps.txt):\n  {}",
        unexplained.len(),
        stale.len(),
        proposal_path.display(),
        unexplained.join("\n  "),
        stale.join("\n  ")
    );
}

/// A failing instance, as the gap check sees it.
struct Found {
    /// Input and schema.
    key: (String, String),
    /// The other failing schemas its instance contains, as input and schema.
    contains: Vec<(String, String)>,
    /// Every other schema its instance contains.
    contained: Vec<(String, String)>,
    causes: BTreeSet<&'static str>,
    /// How it is shown.
    text: String,
}

impl Found {
    fn explained_by(&self, gaps: &BTreeSet<(String, String)>) -> bool {
        gaps.contains(&self.key) || self.contains.iter().any(|c| gaps.contains(c))
    }
}

/// The smallest gap list this run's failures need, in the file's format: first every schema
/// with a failure that contains no other failing schema, then, until nothing changes, every
/// schema with a failure those do not explain, and last without every entry the others make
/// redundant. Each entry's causes are those of its failures that no other entry explains.
fn propose_gaps(found: &[Found]) -> String {
    let mut gaps: BTreeSet<(String, String)> = found
        .iter()
        .filter(|f| f.contains.is_empty())
        .map(|f| f.key.clone())
        .collect();
    loop {
        let missing: Vec<(String, String)> = found
            .iter()
            .filter(|f| !f.explained_by(&gaps))
            .map(|f| f.key.clone())
            .collect();
        if missing.is_empty() {
            break;
        }
        gaps.extend(missing);
    }
    // Entries added together may make each other redundant (a list and its item type).
    for key in gaps.clone() {
        gaps.remove(&key);
        if found.iter().any(|f| !f.explained_by(&gaps)) {
            gaps.insert(key);
        }
    }
    let mut causes: BTreeMap<(String, String), BTreeSet<&str>> = BTreeMap::new();
    for f in found {
        if gaps.contains(&f.key) {
            let others_explain = f.contains.iter().any(|c| gaps.contains(c));
            let entry = causes.entry(f.key.clone()).or_default();
            if !others_explain {
                entry.extend(&f.causes);
            }
        }
    }
    let mut text = String::new();
    for ((input, schema), causes) in causes {
        let causes: Vec<&str> = causes.iter().copied().collect();
        let causes = if causes.is_empty() {
            "changed".to_owned()
        } else {
            causes.join(",")
        };
        writeln!(text, "{input} {schema} {causes}").expect("write to string");
    }
    text
}

fn seed(input: &str, schema: &str, mode: Mode, index: usize) -> u64 {
    let salt = match mode {
        Mode::Plain => "",
        Mode::UnknownFields => "+unknown",
    };
    instances::seed_for(&format!("{input}{salt}"), schema, index)
}
