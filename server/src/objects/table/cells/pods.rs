//! Pods (`printPod`): ready containers, the status reason `kubectl` shows, restarts and
//! the last one's age, IP, node, nominated node and readiness gates.

use serde_json::Value;

use super::super::fields::{deleting, field, list, text};
use super::super::format::{ago, or, parse_time};
use super::common::{Cells, age, name};

pub(super) const PRINTERS: &[(&str, Cells)] = &[("/Pod", pod)];

fn pod(o: &Value) -> Vec<Value> {
    let init_specs = list(o, "/spec/initContainers");
    let total = list(o, "/spec/containers").len()
        + init_specs.iter().filter(|c| restarts_always(c)).count();
    let phase = text(o, "/status/phase");
    let init = InitContainers::of(o, &init_specs);
    let mut reason = init.reason.clone().unwrap_or_else(|| pod_reason(o, phase));
    let mut restarts = init.all;
    let mut ready = init.ready;
    if init.reason.is_none() || has_condition(o, "Initialized") {
        restarts = init.sidecars;
        let app = AppContainers::of(o, &mut restarts);
        if let Some(app_reason) = app.reason {
            reason = app_reason;
        }
        ready += app.ready;
        if reason == "Completed" && app.running {
            reason = if has_condition(o, "Ready") {
                "Running"
            } else {
                "NotReady"
            }
            .to_owned();
        }
    }
    if deleting(o) {
        if text(o, "/status/reason") == "NodeLost" {
            reason = "Unknown".to_owned();
        } else if phase != "Succeeded" && phase != "Failed" {
            reason = "Terminating".to_owned();
        }
    }
    let ip = list(o, "/status/podIPs")
        .first()
        .and_then(|p| p.get("ip"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    vec![
        name(o),
        Value::from(format!("{ready}/{total}")),
        Value::from(reason),
        Value::from(restarts.cell()),
        age(o),
        Value::from(or(&ip, "<none>")),
        Value::from(or(text(o, "/spec/nodeName"), "<none>")),
        Value::from(or(text(o, "/status/nominatedNodeName"), "<none>")),
        Value::from(readiness_gates(o)),
    ]
}

/// The reason before the containers are looked at: the status's, else the phase, unless
/// scheduling is gated.
fn pod_reason(o: &Value, phase: &str) -> String {
    let gated = list(o, "/status/conditions").iter().any(|c| {
        c.get("type").and_then(Value::as_str) == Some("PodScheduled")
            && c.get("reason").and_then(Value::as_str) == Some("SchedulingGated")
    });
    if gated {
        "SchedulingGated".to_owned()
    } else {
        or(text(o, "/status/reason"), phase).to_owned()
    }
}

/// Whether some pod condition of type `type_` is `True`.
fn has_condition(o: &Value, type_: &str) -> bool {
    list(o, "/status/conditions").iter().any(|c| {
        c.get("type").and_then(Value::as_str) == Some(type_)
            && c.get("status").and_then(Value::as_str) == Some("True")
    })
}

/// An init container that restarts always: a sidecar, counted with the app containers.
fn restarts_always(spec: &Value) -> bool {
    spec.get("restartPolicy").and_then(Value::as_str) == Some("Always")
}

/// Restarts counted, and when the last of them finished.
#[derive(Clone, Copy, Default)]
struct Restarts {
    count: i64,
    last: Option<i64>,
}

impl Restarts {
    fn add(&mut self, status: &Value) {
        self.count += status
            .get("restartCount")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let finished = status
            .pointer("/lastState/terminated/finishedAt")
            .and_then(Value::as_str)
            .and_then(parse_time);
        if let Some(t) = finished {
            self.last = Some(self.last.map_or(t, |l| l.max(t)));
        }
    }

    /// `3 (5m ago)`, or the count alone.
    fn cell(self) -> String {
        match self.last {
            Some(t) if self.count != 0 => format!("{} ({} ago)", self.count, ago(t)),
            _ => self.count.to_string(),
        }
    }
}

/// What the init containers' statuses say, read up to the first one still initializing.
#[derive(Default)]
struct InitContainers {
    /// Every init container's restarts.
    all: Restarts,
    /// The sidecars' restarts.
    sidecars: Restarts,
    /// Sidecars started and ready.
    ready: usize,
    /// `Init:…` while one has not finished.
    reason: Option<String>,
}

impl InitContainers {
    fn of(o: &Value, specs: &[&Value]) -> InitContainers {
        let mut init = InitContainers::default();
        for (i, c) in list(o, "/status/initContainerStatuses").iter().enumerate() {
            init.all.add(c);
            let container = field(c, "name");
            let sidecar = specs.iter().any(|s| {
                s.get("name").and_then(Value::as_str) == Some(container) && restarts_always(s)
            });
            if sidecar {
                init.sidecars.add(c);
            }
            let exit = c
                .pointer("/state/terminated/exitCode")
                .and_then(Value::as_i64);
            if exit == Some(0) {
                continue;
            }
            if sidecar && c.get("started") == Some(&Value::Bool(true)) {
                if c.get("ready") == Some(&Value::Bool(true)) {
                    init.ready += 1;
                }
                continue;
            }
            init.reason = Some(init_reason(c, i, specs.len()));
            break;
        }
        init
    }
}

/// The reason of the init container `index` of `total`, which has not finished.
fn init_reason(c: &Value, index: usize, total: usize) -> String {
    let waiting = text(c, "/state/waiting/reason");
    if let Some(t) = c.pointer("/state/terminated") {
        match field(t, "reason") {
            "" => match t.get("signal").and_then(Value::as_i64).filter(|s| *s != 0) {
                Some(signal) => format!("Init:Signal:{signal}"),
                None => format!(
                    "Init:ExitCode:{}",
                    t.get("exitCode").and_then(Value::as_i64).unwrap_or(0)
                ),
            },
            reason => format!("Init:{reason}"),
        }
    } else if !waiting.is_empty() && waiting != "PodInitializing" {
        format!("Init:{waiting}")
    } else {
        format!("Init:{index}/{total}")
    }
}

/// What the app containers' statuses say, read last first.
#[derive(Default)]
struct AppContainers {
    /// The reason of the first container waiting or terminated.
    reason: Option<String>,
    /// Containers ready and running.
    ready: usize,
    running: bool,
}

impl AppContainers {
    /// Adds each container's restarts to `restarts`.
    fn of(o: &Value, restarts: &mut Restarts) -> AppContainers {
        let mut app = AppContainers::default();
        for c in list(o, "/status/containerStatuses").iter().rev() {
            restarts.add(c);
            if let Some(reason) = container_reason(c) {
                app.reason = Some(reason);
            } else if c.get("ready") == Some(&Value::Bool(true))
                && c.pointer("/state/running").is_some()
            {
                app.running = true;
                app.ready += 1;
            }
        }
        app
    }
}

/// The reason of a container waiting or terminated; none for one running.
fn container_reason(c: &Value) -> Option<String> {
    let waiting = text(c, "/state/waiting/reason");
    let terminated = c.pointer("/state/terminated");
    let terminated_reason = terminated.map_or("", |t| field(t, "reason"));
    if !waiting.is_empty() {
        Some(waiting.to_owned())
    } else if !terminated_reason.is_empty() {
        Some(terminated_reason.to_owned())
    } else {
        let t = terminated?;
        Some(
            match t.get("signal").and_then(Value::as_i64).filter(|s| *s != 0) {
                Some(signal) => format!("Signal:{signal}"),
                None => format!(
                    "ExitCode:{}",
                    t.get("exitCode").and_then(Value::as_i64).unwrap_or(0)
                ),
            },
        )
    }
}

/// `met/total` readiness gates, `<none>` without gates.
fn readiness_gates(o: &Value) -> String {
    let gates = list(o, "/spec/readinessGates");
    if gates.is_empty() {
        return "<none>".to_owned();
    }
    let conditions = list(o, "/status/conditions");
    let met = gates
        .iter()
        .filter(|g| {
            let wanted = g.get("conditionType").and_then(Value::as_str);
            conditions
                .iter()
                .find(|c| c.get("type").and_then(Value::as_str) == wanted)
                .is_some_and(|c| c.get("status").and_then(Value::as_str) == Some("True"))
        })
        .count();
    format!("{met}/{}", gates.len())
}
