//! The semantic API diff on real documents: Kubernetes 1.35 → 1.36 (both swagger files of
//! the corpus), checked against changes verified by hand in the documents, and nothing
//! reported for groups whose definitions did not change; gateway-api's HTTPRoute CRD
//! against edits of it made here (CI) and against an older release (when fetched).

use std::collections::BTreeMap;
use std::path::Path;

use kubeforge::Config;
use kubeforge::diff::{self, Change, Effect, Report};
use kubeforge_tests::corpus;
use serde_json::Value;

fn report_of(old: Config, new: Config) -> Report {
    diff::configs(&old, &new).expect("both sides load")
}

/// The change of `kind` to `subject`, or a failure listing what was reported for it.
#[track_caller]
fn find<'a>(report: &'a Report, kind: &str, subject: &str) -> &'a Change {
    report
        .changes
        .iter()
        .find(|c| c.kind == kind && c.subject == subject)
        .unwrap_or_else(|| {
            let near: Vec<&Change> = report
                .changes
                .iter()
                .filter(|c| {
                    c.subject
                        .starts_with(subject.split('.').next().unwrap_or(subject))
                })
                .collect();
            panic!("expected {kind} of {subject}; reported for it: {near:#?}")
        })
}

#[track_caller]
fn expect(
    report: &Report,
    kind: &str,
    subject: &str,
    effect: Effect,
    old: Option<&str>,
    new: Option<&str>,
) {
    let change = find(report, kind, subject);
    assert_eq!(change.effect, effect, "{change:?}");
    assert_eq!(
        (change.old.as_deref(), change.new.as_deref()),
        (old, new),
        "{change:?}"
    );
}

#[test]
fn kubernetes_1_35_to_1_36() {
    let Some(dir) = corpus(
        "kubernetes_1_35_to_1_36",
        &["kubernetes/swagger-1.35.json", "kubernetes/swagger.json"],
    ) else {
        return;
    };
    let report = report_of(
        Config::new().input(dir.join("kubernetes/swagger-1.35.json")),
        Config::new().input(dir.join("kubernetes/swagger.json")),
    );

    // Each change below was found by hand in the two documents (python over
    // `definitions`/`paths`); the pointer is into swagger.json unless it says 1.35.

    // A new field: /definitions/io.k8s.api.core.v1.PodSpec/properties/schedulingGroup
    // ($ref PodSchedulingGroup), absent from 1.35's PodSpec.
    expect(
        &report,
        "field_added",
        "api::core::v1::PodSpec.schedulingGroup",
        Effect::Additive,
        None,
        Some("Option<api::core::v1::PodSchedulingGroup>"),
    );
    // A removed field and its type: 1.35's
    // /definitions/io.k8s.api.core.v1.PodSpec/properties/workloadRef ($ref
    // io.k8s.api.core.v1.WorkloadReference), neither in 1.36.
    expect(
        &report,
        "field_removed",
        "api::core::v1::PodSpec.workloadRef",
        Effect::Breaking,
        Some("Option<api::core::v1::WorkloadReference>"),
        None,
    );
    expect(
        &report,
        "type_removed",
        "api::core::v1::WorkloadReference",
        Effect::Breaking,
        None,
        None,
    );
    // A new type: /definitions/io.k8s.api.core.v1.VolumeStatus (not in 1.35).
    expect(
        &report,
        "type_added",
        "api::core::v1::VolumeStatus",
        Effect::Additive,
        None,
        None,
    );
    // A graduated API version: /definitions/io.k8s.api.admissionregistration.v1.
    // MutatingAdmissionPolicy is new; 1.35 has it in v1alpha1 and v1beta1 only, which stay.
    let graduated = find(
        &report,
        "type_added",
        "api::admissionregistration::v1::MutatingAdmissionPolicy",
    );
    assert_eq!(
        graduated.detail.as_deref(),
        Some("same fields as `api::admissionregistration::v1beta1::MutatingAdmissionPolicy`")
    );
    // Its operations: /paths/~1apis~1admissionregistration.k8s.io~1v1~1mutatingadmissionpolicies
    expect(
        &report,
        "operation_added",
        "GET /apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies",
        Effect::Additive,
        None,
        Some("MutatingAdmissionPolicy::list_mutating_admission_policy"),
    );
    // A group-version replaced: scheduling.k8s.io/v1alpha1 (1.35's
    // /definitions/io.k8s.api.scheduling.v1alpha1.Workload, with the same properties as
    // 1.36's io.k8s.api.scheduling.v1alpha2.Workload) became v1alpha2.
    expect(
        &report,
        "type_moved",
        "api::scheduling::v1alpha2::Workload",
        Effect::Breaking,
        Some("api::scheduling::v1alpha1::Workload"),
        Some("api::scheduling::v1alpha2::Workload"),
    );
    expect(
        &report,
        "operation_removed",
        "GET /apis/scheduling.k8s.io/v1alpha1/namespaces/{namespace}/workloads",
        Effect::Breaking,
        Some("Workload::list_namespaced_workload"),
        None,
    );
    // Optional → required: /definitions/io.k8s.api.batch.v1.CronJob/required is ["spec"],
    // 1.35's CronJob has no `required`.
    expect(
        &report,
        "field_now_required",
        "api::batch::v1::CronJob.spec",
        Effect::Breaking,
        Some("Option<api::batch::v1::CronJobSpec>"),
        Some("api::batch::v1::CronJobSpec"),
    );
    // Required → optional: 1.35's /definitions/io.k8s.api.policy.v1.PodDisruptionBudgetStatus/
    // required lists disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods; 1.36's
    // has no `required`.
    expect(
        &report,
        "field_now_optional",
        "api::policy::v1::PodDisruptionBudgetStatus.currentHealthy",
        Effect::Breaking,
        Some("i32"),
        Some("Option<i32>"),
    );
    // A new required field: /definitions/io.k8s.api.certificates.v1beta1.
    // PodCertificateRequestSpec/required gained stubPKCS10Request (format byte).
    expect(
        &report,
        "required_field_added",
        "api::certificates::v1beta1::PodCertificateRequestSpec.stubPKCS10Request",
        Effect::Breaking,
        None,
        Some("ByteString"),
    );
    // A deprecation in words: .../PodCertificateRequestSpec/properties/pkixPublicKey/
    // description has a paragraph starting "Deprecated:" that 1.35's lacks.
    expect(
        &report,
        "field_deprecated",
        "api::certificates::v1beta1::PodCertificateRequestSpec.pkixPublicKey",
        Effect::Compatible,
        None,
        None,
    );
    // A new query parameter: /parameters/shardSelector-Kgyki_3_ ({in: query, type: string}),
    // referenced by 1.36's list and watch paths, e.g.
    // /paths/~1apis~1apps~1v1~1namespaces~1{namespace}~1deployments/get/parameters.
    expect(
        &report,
        "parameter_added",
        "GET /apis/apps/v1/namespaces/{namespace}/deployments",
        Effect::Additive,
        None,
        Some("shardSelector: String"),
    );
    // Nested list field: /definitions/io.k8s.api.resource.v1.DeviceAttribute/properties/ints
    // (array of int64).
    expect(
        &report,
        "field_added",
        "api::resource::v1::DeviceAttribute.ints",
        Effect::Additive,
        None,
        Some("Option<Vec<i64>>"),
    );

    // A meta type both crates take from the companion crate still shows what the documents
    // changed: /definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta/properties/shardInfo
    // ($ref ShardInfo), absent from 1.35's ListMeta; the change says where the type comes from.
    expect(
        &report,
        "field_added",
        "apimachinery::pkg::apis::meta::v1::ListMeta.shardInfo",
        Effect::Additive,
        None,
        Some("Option<apimachinery::pkg::apis::meta::v1::ShardInfo>"),
    );
    let shard_info = find(
        &report,
        "field_added",
        "apimachinery::pkg::apis::meta::v1::ListMeta.shardInfo",
    );
    assert_eq!(
        shard_info.detail.as_deref(),
        Some("the type comes from the companion crate `kubeforge-meta`")
    );

    // The query structs keep their names: 1.36's `shardSelector` (on every list, watch and
    // delete-collection operation, e.g. /paths/~1api~1v1~1pods/get/parameters) is a new
    // field of each, additive, and no operation takes another struct.
    for name in ["ListOrWatchQuery", "WatchQuery", "DeleteCollectionQuery"] {
        expect(
            &report,
            "query_field_added",
            &format!("routes::{name}.shardSelector"),
            Effect::Additive,
            None,
            Some("Option<String>"),
        );
    }
    let renamed: Vec<&Change> = report
        .changes
        .iter()
        .filter(|c| c.kind.contains("query_struct") || c.kind.contains("query_type"))
        .collect();
    assert_eq!(renamed, Vec::<&Change>::new(), "no query struct renamed");

    // Nothing spurious: the definitions of apps, node.k8s.io and events.k8s.io are equal in
    // both documents (compared as JSON by hand), and their paths differ only by the
    // shardSelector parameter on 30, 4 and 6 operations.
    let mut unchanged: BTreeMap<&str, Vec<&Change>> = BTreeMap::new();
    for change in &report.changes {
        if ["api::apps", "api::node", "api::events"].contains(&change.section.as_str()) {
            unchanged.entry(&change.section).or_default().push(change);
        }
    }
    for (section, count) in [("api::apps", 30), ("api::node", 4), ("api::events", 6)] {
        let changes = unchanged.get(section).map_or(&[][..], Vec::as_slice);
        assert!(
            changes.iter().all(|c| c.kind == "parameter_added"
                && c.new.as_deref() == Some("shardSelector: String")),
            "{section}: {changes:#?}"
        );
        assert_eq!(changes.len(), count, "{section}");
    }
    assert_eq!(report.bump(), "major");
    guide_excerpt_is_the_output(&diff::markdown(&report));
}

/// The guide's excerpt of this report (in `docs/src/guide/diff.md`, between
/// `<!-- diff excerpt: begin -->` and `end`) is the output: each run of lines between `…` lines occurs as consecutive lines of it, in
/// order.
fn guide_excerpt_is_the_output(markdown: &str) {
    let page =
        std::fs::read_to_string(kubeforge_tests::workspace_root().join("docs/src/guide/diff.md"))
            .expect("docs/src/guide/diff.md");
    let excerpt = page
        .split_once("<!-- diff excerpt: begin -->")
        .and_then(|(_, rest)| rest.split_once("<!-- diff excerpt: end -->"))
        .map(|(excerpt, _)| excerpt)
        .expect("docs/src/guide/diff.md has the diff excerpt");
    let lines: Vec<&str> = excerpt
        .lines()
        .filter(|line| !line.starts_with("```") && !line.is_empty())
        .collect();
    let output: Vec<&str> = markdown.lines().filter(|line| !line.is_empty()).collect();
    let mut from = 0;
    for chunk in lines.split(|line| *line == "…") {
        let found = (from..=output.len().saturating_sub(chunk.len()))
            .find(|&i| output[i..i + chunk.len()] == *chunk)
            .unwrap_or_else(|| {
                panic!("the guide's diff excerpt is not the output from line {from}: {chunk:#?}")
            });
        from = found + chunk.len();
    }
}

/// gateway-api's HTTPRoute, as the corpus has it (v1.6.1).
const HTTPROUTE: &str = "crds/gateway-api-HTTPRoute.yaml";

fn crd_config(name: &str, crd: &Value) -> Config {
    Config::new().input_bytes(name, serde_json::to_vec(crd).expect("JSON"))
}

/// The corpus HTTPRoute against a copy with known edits, made here: a real document, so
/// this runs in CI. The copy plays the old release; the report must name each edit the
/// other way round, and nothing else.
#[test]
fn httproute_against_known_edits() {
    let Some(dir) = corpus("httproute_against_known_edits", &[HTTPROUTE]) else {
        return;
    };
    let text = std::fs::read_to_string(dir.join(HTTPROUTE)).expect("read HTTPRoute");
    let new: Value = serde_saphyr::from_str(&text).expect("HTTPRoute is YAML");
    let mut old = new.clone();
    let versions = old["spec"]["versions"].as_array_mut().expect("versions");
    let v1 = versions.iter_mut().find(|v| v["name"] == "v1").expect("v1");
    let spec = &mut v1["schema"]["openAPIV3Schema"]["properties"]["spec"];
    let rules = &mut spec["properties"]["rules"]["items"];
    // 1. `rules[].name` did not exist.
    rules["properties"]
        .as_object_mut()
        .expect("rule properties")
        .remove("name")
        .expect("rules have a name");
    // 2. `rules[].filters[].type` did not list CORS.
    let filter_type = &mut rules["properties"]["filters"]["items"]["properties"]["type"]["enum"];
    filter_type
        .as_array_mut()
        .expect("filter types")
        .retain(|t| t != "CORS");
    // 3. `rules[].timeouts.request` was an integer (a retype), 4. `hostnames` was required.
    rules["properties"]["timeouts"]["properties"]["request"] =
        serde_json::json!({"type": "integer"});
    spec["required"] = serde_json::json!(["hostnames"]);
    let report = report_of(crd_config("old.json", &old), crd_config(HTTPROUTE, &new));
    let v1 = "networking::gateway::v1";
    let got: Vec<(&str, String, Option<&str>, Option<&str>)> = report
        .changes
        .iter()
        .map(|c| {
            (
                c.kind,
                c.subject.clone(),
                c.old.as_deref(),
                c.new.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "field_now_optional",
                format!("{v1}::HTTPRouteSpec.hostnames"),
                Some("Vec<String>"),
                Some("Option<Vec<String>>")
            ),
            // With CORS among both lists' filter types, a rule's filters and a backend
            // ref's have one shape, so they are one type (shared nested types, the guide);
            // without it in the rules' list, backend refs had a type of their own. The diff
            // says so: a user naming that type has to follow.
            (
                "field_type_changed",
                format!("{v1}::HTTPRouteSpecRulesBackendRefs.filters"),
                Some("Option<Vec<networking::gateway::v1::HTTPRouteSpecRulesBackendRefsFilters>>"),
                Some("Option<Vec<networking::gateway::v1::HTTPRouteSpecRulesFilters>>")
            ),
            (
                "type_removed",
                format!("{v1}::HTTPRouteSpecRulesBackendRefsFilters"),
                None,
                None
            ),
            (
                "type_removed",
                format!("{v1}::HTTPRouteSpecRulesBackendRefsFiltersType"),
                None,
                None
            ),
            (
                "field_type_changed",
                format!("{v1}::HTTPRouteSpecRulesTimeouts.request"),
                Some("Option<i64>"),
                Some("Option<String>")
            ),
            (
                "field_added",
                format!("{v1}::HTTPRouteSpecRules.name"),
                None,
                Some("Option<String>")
            ),
            (
                "enum_value_added",
                format!("{v1}::HTTPRouteSpecRulesFiltersType"),
                None,
                Some("CORS")
            ),
        ]
    );
}

/// Where fetched older releases of corpus CRDs are: `$KUBEFORGE_OLD_CRDS`, or
/// `../shared/old-crds` beside the workspace (see `tests/old-crds/SOURCE.md`).
/// gateway-api v1.2.1's HTTPRoute (fetched, not committed) against the corpus's v1.6.1.
/// Each expected change was read in the two files: in v1.6.1,
/// `spec.versions[v1].schema.openAPIV3Schema.properties.spec.properties.rules.items`
/// has `properties.name` (v1.2.1 not), its `filters.items.properties.type.enum` lists
/// `CORS` and `filters.items.properties.cors`; `requestMirror` gained `fraction` and
/// `percent`; `status.parents.items.required` gained `conditions`. Without the old file it
/// fails in CI and says `SKIPPED` otherwise, as for the corpus.
#[test]
fn httproute_v1_2_1_to_v1_6_1() {
    let Some(dir) = corpus("httproute_v1_2_1_to_v1_6_1", &[HTTPROUTE]) else {
        return;
    };
    let Some(old_dir) = kubeforge_tests::old_crds(
        "httproute_v1_2_1_to_v1_6_1",
        &["gateway-api-HTTPRoute-v1.2.1.yaml"],
    ) else {
        return;
    };
    let old = old_dir.join("gateway-api-HTTPRoute-v1.2.1.yaml");
    let report = report_of(
        Config::new().input(&old),
        Config::new().input(dir.join(HTTPROUTE)),
    );
    let v1 = "networking::gateway::v1";
    for (kind, subject, effect) in [
        (
            "field_added",
            format!("{v1}::HTTPRouteSpecRules.name"),
            Effect::Additive,
        ),
        (
            "enum_value_added",
            format!("{v1}::HTTPRouteSpecRulesFiltersType"),
            Effect::Additive,
        ),
        (
            "field_added",
            format!("{v1}::HTTPRouteSpecRulesFilters.cors"),
            Effect::Additive,
        ),
        (
            "type_added",
            format!("{v1}::HTTPRouteSpecRulesFiltersCors"),
            Effect::Additive,
        ),
        (
            "field_added",
            format!("{v1}::HTTPRouteSpecRulesFiltersRequestMirror.fraction"),
            Effect::Additive,
        ),
        (
            "field_now_required",
            format!("{v1}::HTTPRouteStatusParents.conditions"),
            Effect::Breaking,
        ),
    ] {
        assert_eq!(
            find(&report, kind, &subject).effect,
            effect,
            "{kind} {subject}"
        );
    }
    // The release changed no operation and removed nothing.
    assert!(
        report
            .changes
            .iter()
            .all(|c| !c.kind.starts_with("operation") && !c.kind.ends_with("removed")),
        "{:#?}",
        report.changes
    );
}

/// `cargo xtask diff` and `regen`'s summary: `schemas/` at a git revision against the
/// working tree, in a scratch repository holding a copy of this repository's `schemas/`.
#[test]
fn schemas_against_a_git_revision() {
    let root = kubeforge_tests::workspace_root();
    let work = tempfile::tempdir().expect("temp dir");
    let repo = work.path();
    std::fs::create_dir(repo.join("schemas")).expect("schemas dir");
    for file in ["coordination.k8s.io_v1.json", "core_v1.json"] {
        std::fs::copy(
            root.join("schemas").join(file),
            repo.join("schemas").join(file),
        )
        .expect("copy schema");
    }
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(repo)
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "--quiet"]);
    git(&["add", "schemas"]);
    git(&["commit", "--quiet", "-m", "schemas"]);
    let unchanged = xtask::schema_changes(repo, "HEAD").expect("diff against HEAD");
    assert_eq!(unchanged.changes, []);

    // Edit the working tree: LeaseSpec gains a field.
    let path = repo.join("schemas/coordination.k8s.io_v1.json");
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
    doc["components"]["schemas"]["io.k8s.api.coordination.v1.LeaseSpec"]["properties"]["owner"] =
        serde_json::json!({"type": "string"});
    std::fs::write(&path, serde_json::to_string_pretty(&doc).expect("JSON")).expect("write");
    let report = xtask::schema_changes(repo, "HEAD").expect("diff against HEAD");
    let subjects: Vec<(&str, &str)> = report
        .changes
        .iter()
        .map(|c| (c.kind, c.subject.as_str()))
        .collect();
    assert_eq!(
        subjects,
        [("field_added", "api::coordination::v1::LeaseSpec.owner")]
    );
    assert!(xtask::schema_changes(repo, "no-such-rev").is_err());
    assert!(Path::new(&repo.join(".git")).is_dir());
}
