//! Setting up what the benches measure: the generator, the crates it generates, the
//! throwaway peer projects (k8s-openapi, matchit, kopium) under `target/bench-peers/`, their
//! manifests, and the CRD inputs. Nothing here is measured.

use std::path::{Path, PathBuf};

use super::Section;
use super::measure::{Harness, cargo, cargo_in, path_str, run};

/// The programs the harness projects are built from, what they share, and their report
/// types.
const HARNESS: &str = include_str!("../../bench-harness/main.rs");
const HARNESS_PB_MAIN: &str = include_str!("../../bench-harness/protobuf.rs");
const COMMON: &str = include_str!("../../bench-harness/common.rs");
const PROTOCOL: &str = include_str!("../../bench-harness/protocol.rs");

/// The package (and binary) of the protobuf contenders' harness: a project of its own, so
/// that cargo does not unify `kubeforge-runtime`'s `protobuf` feature into the JSON
/// contenders (whose structs, heap and instructions would then be the protobuf build's).
pub(crate) const HARNESS_PB: &str = "harness-pb";

/// Pinned peers: what the report compares against.
pub(crate) const K8S_OPENAPI: &str = "0.29.0";
pub(crate) const KOPIUM: &str = "0.24.1";
/// The kube that compiles kopium's output (its `CustomResource` derive): the workspace's.
pub(crate) const KUBE: &str = "5.0.0";

/// The extra CRDs (not in the corpus, not committed): file, repository, commit, path. They
/// are read from `$KUBEFORGE_EXTRA_CRDS` or `../shared/extra-crds/`.
pub(crate) const EXTRA_CRDS: [(&str, &str, &str, &str); 4] = [
    (
        "argo-Workflow.yaml",
        "argoproj/argo-workflows",
        "f016ad89eb269d282aec06dc491c29f396a38df4",
        "manifests/base/crds/full/argoproj.io_workflows.yaml",
    ),
    (
        "prometheus-operator-Prometheus.yaml",
        "prometheus-operator/prometheus-operator",
        "6adcebc5076c34f4f55f8f5f7b1e528929373ac7",
        "example/prometheus-operator-crd-full/monitoring.coreos.com_prometheuses.yaml",
    ),
    (
        "istio-crd-all.gen.yaml",
        "istio/istio",
        "86c9f01fd735fb01d8192f5bcaf0d424afb7f14c",
        "manifests/charts/base/files/crd-all.gen.yaml (15 CRDs)",
    ),
    (
        "tekton-Pipeline.yaml",
        "tektoncd/pipeline",
        "3ee1745ae5b2d9175b11917d7c1935eaad44910c",
        "config/300-crds/300-pipeline.yaml",
    ),
];

/// Where things are.
pub(crate) struct Paths {
    pub root: PathBuf,
    pub corpus: PathBuf,
    pub swagger: PathBuf,
    pub bench: PathBuf,
    pub generator: PathBuf,
    pub runtime: PathBuf,
    /// The crate generated from `swagger.json` with the defaults.
    pub ours: PathBuf,
    /// The same with `--drop-unknown-fields`.
    pub ours_drop: PathBuf,
    /// The same with `--group-features`.
    pub ours_features: PathBuf,
    /// The same with `--proto` ([`OURS_PROTO`]).
    pub ours_proto: PathBuf,
    /// The parts of b ([`OURS_PARTS`]), in its order.
    pub ours_parts: [PathBuf; PARTS],
    /// The crate generated from the five releases of [`RELEASES`] merged (`--releases`),
    /// with the defaults; `None` when b does not run or the generator has no `--releases`.
    pub ours_merged: Option<PathBuf>,
    /// k8s-openapi as a user builds it.
    pub peer: PathBuf,
    pub harness_dir: PathBuf,
    pub harness: Harness,
    /// The target directory of the timed builds, apart from the harness's.
    pub build_target: PathBuf,
    /// The kopium binary, installed from crates.io into the throwaway project.
    pub kopium: PathBuf,
    /// The CRD inputs of the `crds` section (empty when it does not run).
    pub crds: CrdInputs,
    /// The user project whose build script generates one corpus CRD (with `crds`).
    pub rerun: Option<RerunProject>,
}

/// The package names of the generated crates.
pub(crate) const OURS: &str = "kube-api-gen";
pub(crate) const OURS_DROP: &str = "kube-api-drop";
pub(crate) const OURS_FEATURES: &str = "kube-api-features";
/// The kinds of section c's protobuf comparison with their messages (`--proto`), selected.
pub(crate) const OURS_PB: &str = "kube-api-pb";
/// The full crate with the messages (`--proto`), whose `protobuf` feature's compile cost
/// the section `protobuf-build` measures.
pub(crate) const OURS_PROTO: &str = "kube-api-proto";
/// k8s-pb, the prost types of the protobuf comparison.
pub(crate) const K8S_PB: &str = "0.9.0";
/// How many parts b builds.
pub(crate) const PARTS: usize = 4;
/// The package name of the crate of five releases merged.
pub(crate) const OURS_MERGED: &str = "kube-api-merged";
/// The releases b merges, oldest first, each with its document in the corpus.
pub(crate) const RELEASES: [(&str, &str); 5] = [
    ("1.32", "swagger-1.32.json"),
    ("1.33", "swagger-1.33.json"),
    ("1.34", "swagger-1.34.json"),
    ("1.35", "swagger-1.35.json"),
    ("1.36", "swagger.json"),
];

/// One part of b: a crate generated with some flags and built with some cargo flags.
pub(crate) struct Part {
    /// The package name.
    pub name: &'static str,
    /// The generator's flags.
    pub flags: &'static [&'static str],
    /// The flags of its timed `cargo build`.
    pub build: &'static [&'static str],
    /// What it is, in the report.
    pub label: &'static str,
}

/// The crates of b's parts: types only; types and builders; the default without
/// validation; the default with apply configurations compiled.
pub(crate) const OURS_PARTS: [Part; PARTS] = [
    Part {
        name: "kube-api-types",
        flags: &["--no-builders", "--no-routes", "--no-validation"],
        build: &[],
        label: "kubeforge, types only (`--no-builders --no-routes --no-validation`)",
    },
    Part {
        name: "kube-api-no-routes",
        flags: &["--no-routes", "--no-validation"],
        build: &[],
        label: "kubeforge, types and builders (`--no-routes --no-validation`)",
    },
    Part {
        name: "kube-api-no-validation",
        flags: &["--no-validation"],
        build: &[],
        label: "kubeforge, types, builders and routes (`--no-validation`)",
    },
    Part {
        name: "kube-api-apply",
        flags: &["--apply-types"],
        build: &["--features", "apply"],
        label: "kubeforge, the default and apply configurations (`--apply-types`, feature `apply`)",
    },
];

/// Builds the generator, generates the crates, writes the peer and harness projects and
/// builds what `sections` need.
pub(crate) fn setup(root: &Path, sections: &[Section]) -> Result<Paths, String> {
    let corpus = root.join("../shared/corpus/kubernetes");
    let swagger = corpus.join("swagger.json");
    if !swagger.is_file() {
        return Err(format!("the corpus is missing: {}", swagger.display()));
    }
    let bench = root.join("target/bench-peers");
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let has = |s: Section| sections.contains(&s);
    let mut paths = Paths {
        root: root.to_path_buf(),
        corpus: corpus.clone(),
        swagger: swagger.clone(),
        generator: target.join("release/kubeforge"),
        runtime: root.join("runtime"),
        ours: bench.join(OURS),
        ours_drop: bench.join(OURS_DROP),
        ours_features: bench.join(OURS_FEATURES),
        ours_proto: bench.join(OURS_PROTO),
        ours_parts: OURS_PARTS.map(|part| bench.join(part.name)),
        ours_merged: None,
        peer: bench.join("peer-k8s-openapi"),
        harness_dir: bench.join("harness"),
        harness: Harness {
            bin: bench.join("target/release/harness"),
        },
        build_target: bench.join("target-builds"),
        kopium: bench.join("kopium/bin/kopium"),
        crds: CrdInputs::default(),
        rerun: None,
        bench,
    };

    eprintln!("bench: building the generator (release)");
    cargo(
        root,
        &[
            "build",
            "--release",
            "--package",
            "kubeforge",
            "--bin",
            "kubeforge",
        ],
    )?;

    // The harness depends on the first two (the second for the unknown-fields section). One
    // harness serves every section, so that runs with different `--only` never rebuild it.
    let mut crates = vec![
        (&paths.ours, OURS, &[][..]),
        (&paths.ours_drop, OURS_DROP, &["--drop-unknown-fields"][..]),
    ];
    if has(Section::Features) {
        crates.push((
            &paths.ours_features,
            OURS_FEATURES,
            &["--group-features"][..],
        ));
    }
    if has(Section::Builds) {
        for (part, dir) in OURS_PARTS.iter().zip(&paths.ours_parts) {
            crates.push((dir, part.name, part.flags));
        }
    }
    let ours_pb = paths.bench.join(OURS_PB);
    let proto = paths.corpus.join("proto");
    let pb_flags = [
        "--proto",
        path_str(&proto)?,
        "--select",
        "kind=Pod",
        "--select",
        "kind=Deployment",
        "--select",
        "kind=Node",
    ];
    crates.push((&ours_pb, OURS_PB, &pb_flags[..]));
    if has(Section::ProtobufBuild) {
        crates.push((&paths.ours_proto, OURS_PROTO, &pb_flags[..2]));
    }
    for (dir, name, flags) in crates {
        eprintln!(
            "bench: generating {name} from swagger.json {}",
            flags.join(" ")
        );
        generate(&paths, &swagger, dir, name, flags)?;
    }
    if has(Section::Builds) {
        if generator_merges_releases(&paths.generator)? {
            let dir = paths.bench.join(OURS_MERGED);
            eprintln!("bench: generating {OURS_MERGED} from five releases (--releases)");
            generate_merged(&paths, &dir)?;
            copy_lock(root, &dir)?;
            paths.ours_merged = Some(dir);
        } else {
            eprintln!(
                "bench: the generator has no --releases; b leaves out the five-release crate"
            );
        }
    }

    write(&paths.peer.join("Cargo.toml"), &peer_manifest())?;
    write(&paths.peer.join("src/lib.rs"), "pub use k8s_openapi;\n")?;
    write(
        &paths.harness_dir.join("Cargo.toml"),
        &harness_manifest(&paths.runtime),
    )?;
    let harness_pb = paths.bench.join(HARNESS_PB);
    write(
        &harness_pb.join("Cargo.toml"),
        &harness_pb_manifest(&paths.runtime),
    )?;
    for (dir, main) in [
        (&paths.harness_dir, HARNESS),
        (&harness_pb, HARNESS_PB_MAIN),
    ] {
        write(&dir.join("src/main.rs"), main)?;
        write(&dir.join("src/common.rs"), COMMON)?;
        write(&dir.join("src/protocol.rs"), PROTOCOL)?;
    }
    for dir in [
        &paths.ours,
        &paths.ours_drop,
        &paths.ours_features,
        &paths.ours_proto,
        &paths.peer,
        &paths.harness_dir,
        &harness_pb,
        &ours_pb,
    ]
    .into_iter()
    .chain(&paths.ours_parts)
    {
        copy_lock(root, dir)?;
    }

    eprintln!("bench: building the harness (release; the generated crates, k8s-openapi, matchit)");
    cargo_in(
        &paths.harness_dir,
        &paths.bench.join("target"),
        &["build", "--release"],
    )?;
    eprintln!("bench: building {HARNESS_PB} (release; the crate generated with --proto, k8s-pb)");
    cargo_in(
        &harness_pb,
        &paths.bench.join("target"),
        &["build", "--release"],
    )?;

    if has(Section::Builds)
        || has(Section::ProtobufBuild)
        || has(Section::Features)
        || has(Section::UnknownFields)
    {
        eprintln!("bench: building the dependencies of the timed builds");
        let mut builds: Vec<(&PathBuf, &[&str])> = vec![(&paths.peer, &[])];
        if has(Section::Builds) {
            builds.extend([
                (&paths.ours, &[][..]),
                (&paths.ours, &["--release"][..]),
                (&paths.peer, &["--release"][..]),
            ]);
            for (part, dir) in OURS_PARTS.iter().zip(&paths.ours_parts) {
                builds.push((dir, part.build));
            }
            if let Some(dir) = &paths.ours_merged {
                builds.push((dir, &[]));
            }
        }
        if has(Section::ProtobufBuild) {
            builds.extend([
                (&paths.ours_proto, &[][..]),
                (&paths.ours_proto, &["--features", "protobuf"][..]),
            ]);
        }
        if has(Section::Features) {
            builds.push((&paths.ours_features, &[]));
        }
        if has(Section::UnknownFields) {
            builds.extend([(&paths.ours, &[][..]), (&paths.ours_drop, &[][..])]);
        }
        for (dir, extra) in builds {
            cargo_in(dir, &paths.build_target, &[&["build"][..], extra].concat())?;
        }
    }

    if has(Section::Crds) {
        paths.crds = CrdInputs::find(root)?;
        install_kopium(&paths)?;
        prepare_crds(&paths)?;
        paths.rerun = Some(prepare_rerun(&paths)?);
    }
    Ok(paths)
}

/// Runs the release generator on `input` into `dir` as crate `name`.
pub(crate) fn generate(
    paths: &Paths,
    input: &Path,
    dir: &Path,
    name: &str,
    flags: &[&str],
) -> Result<(), String> {
    let mut args = vec![
        path_str(input)?,
        "--out",
        path_str(dir)?,
        "--crate-name",
        name,
        "--runtime-path",
        path_str(&paths.runtime)?,
    ];
    args.extend(flags);
    run(&paths.generator, &args, None)
}

/// Whether the generator takes `--releases` (its `--help` names it).
fn generator_merges_releases(generator: &Path) -> Result<bool, String> {
    let output = std::process::Command::new(generator)
        .arg("--help")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", generator.display()))?;
    Ok(String::from_utf8_lossy(&output.stdout).contains("--releases"))
}

/// Runs the release generator on the five documents of [`RELEASES`], merged with
/// `--releases`, into `dir` as crate [`OURS_MERGED`], with the defaults.
fn generate_merged(paths: &Paths, dir: &Path) -> Result<(), String> {
    let releases = RELEASES.map(|(release, _)| release).join(",");
    let inputs = RELEASES.map(|(_, file)| paths.corpus.join(file));
    let mut args = vec!["--releases", &releases];
    for input in &inputs {
        args.push(path_str(input)?);
    }
    args.extend([
        "--out",
        path_str(dir)?,
        "--crate-name",
        OURS_MERGED,
        "--runtime-path",
        path_str(&paths.runtime)?,
    ]);
    run(&paths.generator, &args, None)
}

fn peer_manifest() -> String {
    format!(
        r#"# Written by `cargo xtask bench`: k8s-openapi as a user builds it.
[package]
name = "peer-k8s-openapi"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
k8s-openapi = {{ version = "={K8S_OPENAPI}", features = ["v1_36"] }}

[workspace]
"#
    )
}

fn harness_manifest(runtime: &Path) -> String {
    let runtime = runtime.display();
    harness_package(
        "harness",
        &format!(
            r#"{OURS} = {{ path = "../{OURS}" }}
{OURS_DROP} = {{ path = "../{OURS_DROP}" }}
kubeforge-runtime = {{ path = "{runtime}" }}
k8s-openapi = {{ version = "={K8S_OPENAPI}", features = ["v1_36"] }}
matchit = "=0.9"
http = "1"
"#
        ),
    )
}

/// The protobuf contenders' harness: nothing of the JSON crates, so that its
/// `kubeforge-runtime` (with `protobuf`) stays out of theirs.
fn harness_pb_manifest(runtime: &Path) -> String {
    let runtime = runtime.display();
    harness_package(
        HARNESS_PB,
        &format!(
            r#"{OURS_PB} = {{ path = "../{OURS_PB}", features = ["protobuf"] }}
kubeforge-runtime = {{ path = "{runtime}", features = ["protobuf"] }}
k8s-pb = "={K8S_PB}"
prost = "0.14"
"#
        ),
    )
}

/// A harness package: its own dependencies, then what every harness needs, with symbols
/// for perf and callgrind.
fn harness_package(name: &str, dependencies: &str) -> String {
    format!(
        r#"# Written by `cargo xtask bench`.
[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
{dependencies}libc = "0.2"
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[profile.release]
# Symbols for perf and callgrind; no effect on the code.
debug = "line-tables-only"

[workspace]
"#
    )
}

/// A manifest for kopium's output: what its generated code needs (kube's `CustomResource`
/// derive, k8s-openapi's meta types, serde).
fn kopium_manifest(package: &str) -> String {
    format!(
        r#"# Written by `cargo xtask bench`: kopium's output as a user builds it.
[package]
name = "{package}"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
kube = {{ version = "={KUBE}", default-features = false, features = ["derive"] }}
k8s-openapi = {{ version = "={K8S_OPENAPI}", features = ["v1_36"] }}
schemars = "1"
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[workspace]
"#
    )
}

/// Writes `text` to `path` unless it is there already.
pub(crate) fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The workspace's lock file, so every project builds the same dependency versions.
fn copy_lock(root: &Path, dir: &Path) -> Result<(), String> {
    let lock = dir.join("Cargo.lock");
    if dir.is_dir() && !lock.exists() {
        std::fs::copy(root.join("Cargo.lock"), &lock)
            .map_err(|e| format!("cannot copy Cargo.lock to {}: {e}", dir.display()))?;
    }
    Ok(())
}

/// `cargo install kopium` at the pinned version from crates.io into the throwaway project
/// (a no-op once installed).
fn install_kopium(paths: &Paths) -> Result<(), String> {
    eprintln!("bench: installing kopium {KOPIUM} from crates.io (once)");
    let root = paths.bench.join("kopium");
    cargo(
        &paths.bench,
        &[
            "install",
            "kopium",
            "--version",
            &format!("={KOPIUM}"),
            "--locked",
            "--root",
            path_str(&root)?,
        ],
    )?;
    if paths.kopium.is_file() {
        Ok(())
    } else {
        Err(format!(
            "kopium is not at {} after installing",
            paths.kopium.display()
        ))
    }
}

/// One CRD inside an input file.
#[derive(Clone, Debug)]
pub(crate) struct Crd {
    /// `metadata.name`, e.g. `workflows.argoproj.io`.
    pub name: String,
    /// Every served version, in document order.
    pub versions: Vec<String>,
    /// A file holding only this CRD (the input itself when it holds one).
    pub file: PathBuf,
}

/// One input file of the `crds` section.
#[derive(Clone, Debug)]
pub(crate) struct CrdFile {
    /// The file name, e.g. `argo-Workflow.yaml`.
    pub label: String,
    pub path: PathBuf,
    /// From the corpus, or one of the extra CRDs.
    pub extra: bool,
    pub crds: Vec<Crd>,
}

impl CrdFile {
    /// A name for the crates made from it: `argo-workflow`.
    pub(crate) fn stem(&self) -> String {
        let stem = self
            .label
            .trim_end_matches(".yaml")
            .trim_end_matches(".gen");
        stem.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect()
    }

    pub(crate) fn versions(&self) -> usize {
        self.crds.iter().map(|c| c.versions.len()).sum()
    }
}

/// The inputs of the `crds` section, and the extra CRDs that are missing.
#[derive(Clone, Debug, Default)]
pub(crate) struct CrdInputs {
    pub files: Vec<CrdFile>,
    /// Where the extra CRDs are read from, as the report names it (no machine's path):
    /// `$KUBEFORGE_EXTRA_CRDS` or `../shared/extra-crds`.
    pub extra_dir: String,
    /// Extra CRD files that are not there (file names).
    pub missing: Vec<String>,
}

impl CrdInputs {
    fn find(root: &Path) -> Result<CrdInputs, String> {
        let corpus = root.join("../shared/corpus/crds");
        let mut names: Vec<PathBuf> = std::fs::read_dir(&corpus)
            .map_err(|e| format!("cannot list {}: {e}", corpus.display()))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        names.sort();
        let (extra_dir, label) = match std::env::var_os("KUBEFORGE_EXTRA_CRDS") {
            Some(dir) => (PathBuf::from(dir), "`$KUBEFORGE_EXTRA_CRDS`"),
            None => (root.join("../shared/extra-crds"), "`../shared/extra-crds/`"),
        };
        let mut inputs = CrdInputs {
            extra_dir: label.to_owned(),
            ..CrdInputs::default()
        };
        let split = root.join("target/bench-peers/crds/split");
        for path in names {
            inputs.files.push(read_crd_file(&path, false, &split)?);
        }
        for (file, ..) in EXTRA_CRDS {
            let path = extra_dir.join(file);
            if path.is_file() {
                inputs.files.push(read_crd_file(&path, true, &split)?);
            } else {
                inputs.missing.push((*file).to_owned());
            }
        }
        if !inputs.missing.is_empty() {
            eprintln!(
                "bench: SKIPPED: the extra CRDs are missing from {}: {}; set KUBEFORGE_EXTRA_CRDS to their directory",
                extra_dir.display(),
                inputs.missing.join(", ")
            );
        }
        Ok(inputs)
    }
}

/// Reads a file of CRDs; one holding several is split into one file per CRD under `split`
/// (kopium reads one CRD per file).
fn read_crd_file(path: &Path, extra: bool, split: &Path) -> Result<CrdFile, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let label = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_owned();
    // YAML documents are separated by `---` lines.
    let mut documents = vec![String::new()];
    for line in text.lines() {
        if line.trim_end() == "---" {
            documents.push(String::new());
        } else {
            let last = documents.last_mut().expect("one document");
            last.push_str(line);
            last.push('\n');
        }
    }
    let mut crds: Vec<(Crd, &String)> = Vec::new();
    for document in &documents {
        let value: serde_json::Value = serde_saphyr::from_str(document)
            .map_err(|e| format!("{}: not YAML: {e}", path.display()))?;
        if value.get("kind").and_then(serde_json::Value::as_str) != Some("CustomResourceDefinition")
        {
            continue;
        }
        let name = value
            .pointer("/metadata/name")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| format!("{}: a CRD without /metadata/name", path.display()))?
            .to_owned();
        let versions = value
            .pointer("/spec/versions")
            .and_then(serde_json::Value::as_array)
            .ok_or_else(|| format!("{}: CRD {name} without /spec/versions", path.display()))?
            .iter()
            .filter(|v| v.get("served") != Some(&serde_json::Value::Bool(false)))
            .filter_map(|v| v.get("name")?.as_str().map(str::to_owned))
            .collect();
        crds.push((
            Crd {
                name,
                versions,
                file: path.to_path_buf(),
            },
            document,
        ));
    }
    if crds.len() > 1 {
        for (crd, document) in &mut crds {
            crd.file = split.join(format!("{}.yaml", crd.name));
            write(&crd.file, document)?;
        }
    }
    let crds: Vec<Crd> = crds.into_iter().map(|(crd, _)| crd).collect();
    if crds.is_empty() {
        return Err(format!(
            "{}: no CustomResourceDefinition in it",
            path.display()
        ));
    }
    Ok(CrdFile {
        label,
        path: path.to_path_buf(),
        extra,
        crds,
    })
}

/// Where a CRD file's crates live: kubeforge's and kopium's.
pub(crate) fn crd_crates(paths: &Paths, file: &CrdFile) -> [(PathBuf, String); 2] {
    let stem = file.stem();
    let dir = paths.bench.join("crds");
    [
        (
            dir.join(format!("kubeforge-{stem}")),
            format!("kubeforge-{stem}"),
        ),
        (dir.join(format!("kopium-{stem}")), format!("kopium-{stem}")),
    ]
}

/// The module of one CRD version in kopium's crate: `workflows_v1alpha1`.
pub(crate) fn kopium_module(crd: &Crd, version: &str) -> String {
    let plural = crd.name.split('.').next().unwrap_or(&crd.name);
    format!("{plural}_{version}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// The arguments of kopium for one CRD version (documentation comments on, as kubeforge
/// writes them).
pub(crate) fn kopium_args<'a>(crd: &'a Crd, version: &'a str) -> Result<Vec<&'a str>, String> {
    Ok(vec![
        "--docs",
        "--api-version",
        version,
        "-f",
        path_str(&crd.file)?,
    ])
}

/// Generates each CRD file once with both tools into the crates that the dev builds time,
/// and builds their dependencies.
fn prepare_crds(paths: &Paths) -> Result<(), String> {
    for file in &paths.crds.files {
        let [(ours, ours_name), (theirs, theirs_name)] = crd_crates(paths, file);
        eprintln!("bench: generating {} with kubeforge and kopium", file.label);
        let _ = std::fs::remove_dir_all(ours.join("src"));
        generate(paths, &file.path, &ours, &ours_name, &[])?;
        let _ = std::fs::remove_dir_all(theirs.join("src"));
        let mut lib =
            String::from("//! kopium's output, one module per CRD version.\n#![allow(warnings)]\n");
        for crd in &file.crds {
            for version in &crd.versions {
                let module = kopium_module(crd, version);
                let out = theirs.join("src").join(format!("{module}.rs"));
                write(&out, "")?;
                run(&paths.kopium, &kopium_args(crd, version)?, Some(&out))?;
                lib.push_str(&format!("pub mod {module};\n"));
            }
        }
        write(&theirs.join("src/lib.rs"), &lib)?;
        write(&theirs.join("Cargo.toml"), &kopium_manifest(&theirs_name))?;
        for dir in [&ours, &theirs] {
            copy_lock(&paths.root, dir)?;
            cargo_in(dir, &paths.build_target, &["build"])?;
        }
    }
    Ok(())
}

/// The package name of the build-script project.
pub(crate) const RERUN: &str = "bench-rerun";
/// The include file its build script writes into `OUT_DIR`.
pub(crate) const RERUN_INCLUDE: &str = "api.rs";

/// A user's project whose `build.rs` generates the first corpus CRD with the `kubeforge`
/// library of this repository (`Config::compile`, as docs/src/guide/build-rs.md shows), and
/// where cargo put what it built.
pub(crate) struct RerunProject {
    pub dir: PathBuf,
    /// The CRD file's name in the corpus (the report's label).
    pub label: String,
    /// The project's copy of the CRD, which the build script reads (and the bench touches).
    pub input: PathBuf,
    /// The compiled build script, which cargo runs in `dir` with `OUT_DIR` set.
    pub script: PathBuf,
    /// The build script's `OUT_DIR`.
    pub out_dir: PathBuf,
}

fn rerun_manifest(root: &Path) -> Result<String, String> {
    let path = |dir: &str| {
        root.join(dir)
            .to_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("non-UTF-8 path {}", root.display()))
    };
    Ok(format!(
        r#"# Written by `cargo xtask bench`: a user's crate whose build script runs kubeforge.
[package]
name = "{RERUN}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
kubeforge-meta = {{ path = "{}" }}
kubeforge-runtime = {{ path = "{}" }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[build-dependencies]
kubeforge = {{ path = "{}", default-features = false }}

[workspace]
"#,
        path("meta")?,
        path("runtime")?,
        path("codegen")?
    ))
}

fn rerun_build_script(input: &str) -> String {
    format!(
        r#"// Written by `cargo xtask bench`: a build script as docs/src/guide/build-rs.md shows.
fn main() {{
    let crd = "{input}";
    println!("cargo::rerun-if-changed={{crd}}");
    kubeforge::Config::new()
        .input(crd)
        .root_path("crate::api")
        .include_file("{RERUN_INCLUDE}")
        .compile()
        .unwrap_or_else(|e| panic!("{{e}}"));
}}
"#
    )
}

/// Writes the build-script project for the first corpus CRD file, builds it, and asks cargo
/// (`--message-format=json`) where the build script and its `OUT_DIR` are.
fn prepare_rerun(paths: &Paths) -> Result<RerunProject, String> {
    let file = paths
        .crds
        .files
        .iter()
        .find(|f| !f.extra)
        .ok_or("no CRD file in the corpus")?;
    let dir = paths.bench.join(RERUN);
    let relative = format!("crd/{}", file.label);
    let input = dir.join(&relative);
    let text = std::fs::read_to_string(&file.path)
        .map_err(|e| format!("cannot read {}: {e}", file.path.display()))?;
    write(&input, &text)?;
    write(&dir.join("Cargo.toml"), &rerun_manifest(&paths.root)?)?;
    write(&dir.join("build.rs"), &rerun_build_script(&relative))?;
    write(
        &dir.join("src/lib.rs"),
        "//! The CRD's types, generated by build.rs.\n\
         pub mod api {\n    include!(concat!(env!(\"OUT_DIR\"), \"/api.rs\"));\n}\n",
    )?;
    copy_lock(&paths.root, &dir)?;
    eprintln!("bench: building the build-script project ({})", file.label);
    cargo_in(&dir, &paths.build_target, &["build"])?;
    let manifest = dir.join("Cargo.toml");
    let output = super::measure::as_built_for_timing(&mut xtask::cargo::command())
        .args([
            "build",
            "--quiet",
            "--message-format=json",
            "--manifest-path",
        ])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&paths.build_target)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!("`cargo build` of {} failed", dir.display()));
    }
    let messages = String::from_utf8_lossy(&output.stdout);
    let (script, out_dir) = build_script_of(&messages, &manifest)?;
    Ok(RerunProject {
        label: file.label.clone(),
        input,
        script,
        out_dir,
        dir,
    })
}

/// The build script's binary and its `OUT_DIR`, from cargo's JSON messages about the
/// package whose manifest is `manifest`.
pub(crate) fn build_script_of(
    messages: &str,
    manifest: &Path,
) -> Result<(PathBuf, PathBuf), String> {
    let (mut script, mut out_dir) = (None, None);
    let package = manifest.parent().and_then(Path::to_str).unwrap_or_default();
    for line in messages.lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let ours = message
            .get("package_id")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|id| id.contains(&format!("{package}#")));
        if !ours {
            continue;
        }
        match message.get("reason").and_then(serde_json::Value::as_str) {
            Some("compiler-artifact")
                if message
                    .pointer("/target/kind/0")
                    .and_then(serde_json::Value::as_str)
                    == Some("custom-build") =>
            {
                script = message
                    .pointer("/filenames/0")
                    .and_then(serde_json::Value::as_str)
                    .map(PathBuf::from);
            }
            Some("build-script-executed") => {
                out_dir = message
                    .get("out_dir")
                    .and_then(serde_json::Value::as_str)
                    .map(PathBuf::from);
            }
            _ => {}
        }
    }
    match (script, out_dir) {
        (Some(script), Some(out_dir)) => Ok((script, out_dir)),
        _ => Err(format!(
            "cargo's messages name no build script and `OUT_DIR` for {}",
            manifest.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cargo's messages for a package in `/p/bench-rerun` and a dependency, as cargo
    /// writes them (abridged to the fields read).
    const MESSAGES: &str = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/codegen#kubeforge@0.1.0","target":{"kind":["custom-build"]},"filenames":["/t/debug/build/kubeforge-1/build-script-build"],"fresh":true}
{"reason":"build-script-executed","package_id":"path+file:///w/codegen#kubeforge@0.1.0","out_dir":"/t/debug/build/kubeforge-2/out"}
{"reason":"compiler-artifact","package_id":"path+file:///p/bench-rerun#0.0.0","target":{"kind":["custom-build"]},"filenames":["/t/debug/build/bench-rerun-a/build-script-build"],"fresh":true}
{"reason":"build-script-executed","package_id":"path+file:///p/bench-rerun#0.0.0","out_dir":"/t/debug/build/bench-rerun-b/out"}
{"reason":"compiler-artifact","package_id":"path+file:///p/bench-rerun#0.0.0","target":{"kind":["lib"]},"filenames":["/t/debug/libbench_rerun.rlib"],"fresh":false}
{"reason":"build-finished","success":true}"#;

    #[test]
    fn the_build_script_and_its_out_dir_come_from_cargos_messages() {
        let (script, out_dir) =
            build_script_of(MESSAGES, Path::new("/p/bench-rerun/Cargo.toml")).unwrap();
        assert_eq!(
            script,
            Path::new("/t/debug/build/bench-rerun-a/build-script-build")
        );
        assert_eq!(out_dir, Path::new("/t/debug/build/bench-rerun-b/out"));
        let error = build_script_of(MESSAGES, Path::new("/p/other/Cargo.toml")).unwrap_err();
        assert!(error.contains("/p/other/Cargo.toml"), "{error}");
        let dir = Path::new("/p/bench-rerun");
        assert!(super::super::sections::recompiled(MESSAGES, dir));
        let fresh = MESSAGES.replace(r#""fresh":false"#, r#""fresh":true"#);
        assert!(!super::super::sections::recompiled(&fresh, dir));
    }
}
