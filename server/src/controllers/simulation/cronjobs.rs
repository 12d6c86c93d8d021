//! kube-controller-manager's CronJob controller, on the server's clock: when the schedule
//! (five fields, UTC; `@hourly` and the like) has a time since the last one, a Job from the
//! template named `<cronjob>-<minutes since the epoch>`, as the controller names it, unless
//! `concurrencyPolicy: Forbid` and one is active (`Replace` deletes the active ones first);
//! and the status it writes (`active`, `lastScheduleTime`, `lastSuccessfulTime`).

use jiff::{Timestamp, civil::DateTime, tz::TimeZone};
use serde_json::{Value, json};

use crate::controllers::simulation::{
    Action, Kinds, condition, controlled_by, controller_ref, objects, text,
};
use crate::objects::clock;
use crate::objects::store::State;

/// How far back missed times are looked for.
const LOOK_BACK_MINUTES: i64 = 7 * 24 * 60;

pub(crate) fn plan(state: &State, kinds: &Kinds, now: Timestamp) -> Vec<Action> {
    let (Some(cron_jobs), Some(jobs)) = (kinds.cron_jobs, kinds.jobs) else {
        return Vec::new();
    };
    let mut actions = Vec::new();
    for (key, cron_job) in &state.objects[cron_jobs] {
        if cron_job.pointer("/metadata/deletionTimestamp").is_some() {
            continue;
        }
        let Some(schedule) = Schedule::parse(text(cron_job, "/spec/schedule")) else {
            continue;
        };
        let owned: Vec<(&_, &Value)> = objects(state, Some(jobs))
            .filter(|(k, job)| k.0 == key.0 && controlled_by(job, cron_job))
            .collect();
        let done = |job: &Value, kind: &str| {
            condition(job, kind).is_some_and(|c| text(c, "/status") == "True")
        };
        let active: Vec<_> = owned
            .iter()
            .filter(|(_, job)| !done(job, "Complete") && !done(job, "Failed"))
            .collect();
        let mut object = (**cron_job).clone();
        if !object.get("status").is_some_and(Value::is_object) {
            object["status"] = json!({});
        }
        let last = text(cron_job, "/status/lastScheduleTime")
            .parse::<Timestamp>()
            .or_else(|_| text(cron_job, "/metadata/creationTimestamp").parse::<Timestamp>())
            .unwrap_or(now);
        let suspended = cron_job.pointer("/spec/suspend").and_then(Value::as_bool) == Some(true);
        let mut active_refs: Vec<Value> = active.iter().map(|(_, job)| reference(job)).collect();
        if let Some(due) = schedule.latest(last, now).filter(|_| !suspended) {
            let policy = text(cron_job, "/spec/concurrencyPolicy");
            if policy == "Forbid" && !active.is_empty() {
                // Waits for the active one; the time is not marked as done.
            } else {
                if policy == "Replace" {
                    for (job_key, _) in &active {
                        actions.push(Action::Delete {
                            index: jobs,
                            key: (*job_key).clone(),
                        });
                    }
                    active_refs.clear();
                }
                let name = format!("{}-{}", key.1, due.as_second() / 60);
                let job = job_from(cron_job, &name, due);
                active_refs.push(json!({
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "namespace": key.0,
                    "name": name,
                }));
                actions.push(Action::Create {
                    index: jobs,
                    namespace: key.0.clone(),
                    object: job,
                });
                object["status"]["lastScheduleTime"] = Value::from(clock::format(due));
            }
        }
        if let Some(succeeded) = owned
            .iter()
            .filter(|(_, job)| done(job, "Complete"))
            .filter_map(|(_, job)| {
                job.pointer("/status/completionTime")
                    .and_then(Value::as_str)
            })
            .max()
        {
            object["status"]["lastSuccessfulTime"] = Value::from(succeeded);
        }
        if active_refs.is_empty() {
            if let Some(status) = object["status"].as_object_mut() {
                status.remove("active");
            }
        } else {
            object["status"]["active"] = Value::from(active_refs);
        }
        if object != **cron_job {
            actions.push(Action::Write {
                index: cron_jobs,
                key: key.clone(),
                object,
            });
        }
    }
    actions
}

fn reference(job: &Value) -> Value {
    json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "namespace": text(job, "/metadata/namespace"),
        "name": text(job, "/metadata/name"),
        "uid": text(job, "/metadata/uid"),
        "resourceVersion": text(job, "/metadata/resourceVersion"),
    })
}

fn job_from(cron_job: &Value, name: &str, due: Timestamp) -> Value {
    let template = cron_job
        .pointer("/spec/jobTemplate")
        .cloned()
        .unwrap_or(json!({}));
    let mut metadata = template.get("metadata").cloned().unwrap_or(json!({}));
    if !metadata.is_object() {
        metadata = json!({});
    }
    metadata["name"] = Value::from(name);
    metadata["ownerReferences"] = json!([controller_ref(cron_job, "batch/v1", "CronJob")]);
    if !metadata["annotations"].is_object() {
        metadata["annotations"] = json!({});
    }
    metadata["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] =
        Value::from(clock::format(due));
    json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata,
        "spec": template.get("spec").cloned().unwrap_or(json!({})),
    })
}

/// A cron schedule: for each of minute, hour, day of month, month and day of week, the
/// values it allows.
struct Schedule {
    fields: [Vec<bool>; 5],
    /// Whether day of month and day of week were both restricted (then either matches).
    either_day: bool,
}

impl Schedule {
    fn parse(text: &str) -> Option<Schedule> {
        let text = match text.trim() {
            "@yearly" | "@annually" => "0 0 1 1 *",
            "@monthly" => "0 0 1 * *",
            "@weekly" => "0 0 * * 0",
            "@daily" | "@midnight" => "0 0 * * *",
            "@hourly" => "0 * * * *",
            other => other,
        };
        let parts: Vec<&str> = text.split_whitespace().collect();
        let [minute, hour, day, month, weekday] = parts[..] else {
            return None;
        };
        let ranges = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)];
        let mut fields: [Vec<bool>; 5] = Default::default();
        for (i, (field, (low, high))) in [minute, hour, day, month, weekday]
            .into_iter()
            .zip(ranges)
            .enumerate()
        {
            fields[i] = parse_field(field, low, high)?;
        }
        // Sunday is 0 or 7.
        if fields[4][7] {
            fields[4][0] = true;
        }
        Some(Schedule {
            fields,
            either_day: !day.starts_with('*') && !weekday.starts_with('*'),
        })
    }

    fn matches(&self, time: DateTime) -> bool {
        let at = |field: usize, value: i8| {
            self.fields[field]
                .get(value as usize)
                .copied()
                .unwrap_or(false)
        };
        let day = at(2, time.day());
        let weekday = at(4, time.weekday().to_sunday_zero_offset());
        let day_ok = if self.either_day {
            day || weekday
        } else {
            day && weekday
        };
        at(0, time.minute()) && at(1, time.hour()) && at(3, time.month()) && day_ok
    }

    /// The latest time the schedule names after `last` and not after `now`.
    fn latest(&self, last: Timestamp, now: Timestamp) -> Option<Timestamp> {
        let start = last
            .as_second()
            .max(now.as_second() - LOOK_BACK_MINUTES * 60)
            / 60
            + 1;
        let end = now.as_second() / 60;
        (start..=end).rev().find_map(|minute| {
            let time = Timestamp::from_second(minute * 60).ok()?;
            let civil = TimeZone::UTC.to_datetime(time);
            self.matches(civil).then_some(time)
        })
    }
}

fn parse_field(field: &str, low: i64, high: i64) -> Option<Vec<bool>> {
    let mut allowed = vec![false; high as usize + 1];
    for part in field.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((range, step)) => (range, step.parse::<i64>().ok().filter(|s| *s > 0)?),
            None => (part, 1),
        };
        let (from, to) = match range {
            "*" | "?" => (low, high),
            _ => match range.split_once('-') {
                Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
                None => {
                    let value: i64 = range.parse().ok()?;
                    (value, if part.contains('/') { high } else { value })
                }
            },
        };
        if from < low || to > high || from > to {
            return None;
        }
        let mut value = from;
        while value <= to {
            allowed[value as usize] = true;
            value += step;
        }
    }
    Some(allowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_name_their_latest_time() {
        let every_five = Schedule::parse("*/5 * * * *").unwrap();
        let last: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let now: Timestamp = "2026-01-01T00:12:30Z".parse().unwrap();
        assert_eq!(
            every_five.latest(last, now),
            Some("2026-01-01T00:10:00Z".parse().unwrap())
        );
        assert_eq!(every_five.latest(now, now), None);
        let hourly = Schedule::parse("@hourly").unwrap();
        assert_eq!(hourly.latest(last, now), None);
        assert!(Schedule::parse("61 * * * *").is_none());
    }
}
