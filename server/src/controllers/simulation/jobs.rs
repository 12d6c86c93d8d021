//! kube-controller-manager's Job controller: up to `parallelism` Pods at once from the
//! template, until `completions` have succeeded (`Complete`, after `SuccessCriteriaMet`)
//! or more than `backoffLimit` have failed (`Failed` with `BackoffLimitExceeded`, after
//! `FailureTarget`; the active ones are deleted); and the status it writes (`startTime`,
//! `active`, `ready`, `succeeded`, `failed`, `terminating`, `completionTime`,
//! `uncountedTerminatedPods`). A suspended Job runs nothing.

use serde_json::{Value, json};

use crate::controllers::simulation::events::{self, Recorded};
use crate::controllers::simulation::{
    Action, Kinds, condition, controlled_by, int, objects, pod_active, pod_from, pod_ready, record,
    set_condition, text,
};
use crate::objects::store::State;

pub(crate) fn plan(state: &State, kinds: &Kinds, now: &str) -> Vec<Action> {
    let (Some(jobs), Some(pods)) = (kinds.jobs, kinds.pods) else {
        return Vec::new();
    };
    let mut actions = Vec::new();
    for (key, job) in &state.objects[jobs] {
        if job.pointer("/metadata/deletionTimestamp").is_some() {
            continue;
        }
        let finished = ["Complete", "Failed"]
            .iter()
            .any(|kind| condition(job, kind).is_some_and(|c| text(c, "/status") == "True"));
        let owned: Vec<(&_, &Value)> = objects(state, Some(pods))
            .filter(|(k, pod)| k.0 == key.0 && controlled_by(pod, job))
            .collect();
        let active: Vec<_> = owned.iter().filter(|(_, p)| pod_active(p)).collect();
        let phase = |wanted: &str| {
            owned
                .iter()
                .filter(|(_, p)| text(p, "/status/phase") == wanted)
                .count() as i64
        };
        let succeeded = phase("Succeeded");
        let failed = phase("Failed");
        let parallelism = int(job, "/spec/parallelism", 1).max(0);
        let completions = job.pointer("/spec/completions").and_then(Value::as_i64);
        let backoff_limit = int(job, "/spec/backoffLimit", 6);
        let suspended = job.pointer("/spec/suspend").and_then(Value::as_bool) == Some(true);
        let mut object = (**job).clone();
        let status = &mut object["status"];
        if !status.is_object() {
            *status = json!({});
        }
        if finished {
            continue;
        }
        let complete = match completions {
            Some(n) => succeeded >= n,
            // Without completions, the first success ends it once no Pod runs.
            None => succeeded > 0 && active.is_empty(),
        };
        let failing = failed > backoff_limit;
        if !suspended && status.get("startTime").is_none() {
            status["startTime"] = Value::from(now);
        }
        if complete {
            set_condition(
                &mut object,
                job_condition(
                    "SuccessCriteriaMet",
                    "CompletionsReached",
                    "Reached expected number of succeeded pods",
                    now,
                ),
                now,
            );
            set_condition(
                &mut object,
                job_condition(
                    "Complete",
                    "CompletionsReached",
                    "Reached expected number of succeeded pods",
                    now,
                ),
                now,
            );
            object["status"]["completionTime"] = Value::from(now);
            let event = Recorded {
                involved: job,
                field_path: None,
                kind: "Normal",
                reason: "Completed",
                message: "Job completed".to_owned(),
            };
            actions.extend(record(
                kinds,
                &key.0,
                events::legacy(&event, "job-controller", None),
            ));
        } else if failing {
            set_condition(
                &mut object,
                job_condition(
                    "FailureTarget",
                    "BackoffLimitExceeded",
                    "Job has reached the specified backoff limit",
                    now,
                ),
                now,
            );
            set_condition(
                &mut object,
                job_condition(
                    "Failed",
                    "BackoffLimitExceeded",
                    "Job has reached the specified backoff limit",
                    now,
                ),
                now,
            );
            for (pod_key, _) in &active {
                actions.push(Action::Delete {
                    index: pods,
                    key: (*pod_key).clone(),
                });
            }
        } else if !suspended {
            let remaining = completions.map_or(parallelism, |n| (n - succeeded).min(parallelism));
            let missing = remaining - active.len() as i64;
            for _ in 0..missing.max(0) {
                let mut pod = pod_from(job, "batch/v1", "Job");
                pod["metadata"]["generateName"] =
                    Value::from(format!("{}-", text(job, "/metadata/name")));
                // The labels the Job's strategy gives its template (`generateSelector`).
                for (label, value) in [
                    (
                        "batch.kubernetes.io/controller-uid",
                        text(job, "/metadata/uid"),
                    ),
                    ("batch.kubernetes.io/job-name", text(job, "/metadata/name")),
                    ("controller-uid", text(job, "/metadata/uid")),
                    ("job-name", text(job, "/metadata/name")),
                ] {
                    if !pod["metadata"]["labels"].is_object() {
                        pod["metadata"]["labels"] = json!({});
                    }
                    pod["metadata"]["labels"][label] = Value::from(value);
                }
                actions.push(Action::Create {
                    index: pods,
                    namespace: key.0.clone(),
                    object: pod,
                });
            }
        }
        let status = &mut object["status"];
        let running = if complete || failing {
            0
        } else {
            active.len() as i64
        };
        let ready = if complete || failing {
            0
        } else {
            active.iter().filter(|(_, p)| pod_ready(p)).count() as i64
        };
        for (field, value) in [
            ("active", running),
            ("succeeded", succeeded),
            ("failed", failed),
        ] {
            if value > 0 {
                status[field] = Value::from(value);
            } else if let Some(map) = status.as_object_mut() {
                map.remove(field);
            }
        }
        status["ready"] = Value::from(ready);
        status["terminating"] = Value::from(0);
        status["uncountedTerminatedPods"] = json!({});
        if object != **job {
            actions.push(Action::Write {
                index: jobs,
                key: key.clone(),
                object,
            });
        }
    }
    actions
}

fn job_condition(kind: &str, reason: &str, message: &str, now: &str) -> Value {
    json!({
        "type": kind,
        "status": "True",
        "lastProbeTime": now,
        "reason": reason,
        "message": message,
    })
}
