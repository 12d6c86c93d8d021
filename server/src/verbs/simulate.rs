//! The simulated cluster's driver (`Options::simulation`): a thread that, every `tick`,
//! runs the simulation's controllers (`controllers::simulation`) one after the other, each
//! on the store as the previous one left it, and carries out what they plan. Status
//! writes, deletions and removals are made under the store's lock, which is held only
//! while the plans are made and carried out; the objects they create go through the
//! create verb (defaults, admission, generated names) and the Pods they place through
//! `pods/binding`, as a controller's client does, each taking the lock for its own write.
//! The thread ends when the server is dropped.

use std::collections::VecDeque;
use std::sync::{Arc, Weak};

use serde_json::{Value, json};

use crate::controllers::queue::{self, Work};
use crate::controllers::simulation::events::{self, Recorded};
use crate::controllers::simulation::{
    Action, Kinds, Simulation, cronjobs, daemonsets, deployments, endpoint_slices, endpoints, jobs,
    kube_system, kubelet, nodes, replicasets, scheduler, statefulsets, tokens,
};
use crate::objects::clock;
use crate::objects::store::{Key, State};
use crate::semantics::deletion::Policy;
use crate::verbs::Shared;
use crate::wire::query::Query;
use crate::wire::status::Failure;

/// One controller of the simulation, on the store as the previous one left it.
type Plan<'a> = dyn Fn(&State) -> Vec<Action> + 'a;

/// The field manager of what the simulation writes through the API.
const MANAGER: &str = "kube-controller-manager";

impl Shared {
    /// Starts the simulation's thread, when the options ask for one.
    pub(crate) fn start_simulation(shared: &Arc<Shared>) {
        let Some(simulation) = shared.options.simulation.clone() else {
            return;
        };
        shared.seed_kube_system(&simulation);
        shared.simulate(&simulation);
        let weak: Weak<Shared> = Arc::downgrade(shared);
        let spawned = std::thread::Builder::new()
            .name("kubeforge-simulation".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(simulation.tick);
                    let Some(shared) = weak.upgrade() else {
                        return;
                    };
                    shared.simulate(&simulation);
                }
            });
        // Without a thread the simulation still moves whenever the clock is advanced.
        drop(spawned);
    }

    /// Creates what the cluster starts with in `kube-system` (`kube_system::objects`), each
    /// through the create verb; a resource the catalog does not serve is left out.
    fn seed_kube_system(&self, simulation: &Simulation) {
        let _clock = self.clock.enter();
        for seed in kube_system::objects(simulation) {
            let catalog = self.catalog();
            let Some((index, _)) = catalog.find(seed.group, seed.version, seed.plural) else {
                continue;
            };
            let namespace = seed
                .object
                .pointer("/metadata/namespace")
                .and_then(Value::as_str);
            let namespace = namespace.unwrap_or("").to_owned();
            // A refusal (a resource the catalog serves differently) leaves that one out.
            let _ = self.insert(
                &catalog,
                index,
                &namespace,
                seed.object,
                &Query::default(),
                Some(seed.manager),
            );
        }
    }

    /// One step of the simulation: nodes, workload controllers, scheduler, kubelets,
    /// EndpointSlices, Endpoints, ServiceAccount tokens.
    pub(crate) fn simulate(&self, simulation: &Simulation) {
        let _step = self
            .stepping
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // What one round creates or binds, the next carries on with, so a new Deployment's
        // Pods run after one step; a few rounds bound the time the step takes.
        for _ in 0..4 {
            if !self.simulate_round(simulation) {
                break;
            }
        }
    }

    /// One round of the step; whether it created or bound anything.
    fn simulate_round(&self, simulation: &Simulation) -> bool {
        let _clock = self.clock.enter();
        let kinds = Kinds::of(&self.catalog());
        let mut later = Vec::new();
        {
            let mut state = self.lock();
            let plans: [&Plan<'_>; 13] = [
                &|state| nodes::plan(state, &kinds, simulation, clock::now()),
                &|state| kube_system::plan(state, &kinds, simulation, &clock::format(clock::now())),
                &|state| cronjobs::plan(state, &kinds, clock::now()),
                &|state| jobs::plan(state, &kinds, &clock::format(clock::now())),
                &|state| deployments::plan(state, &kinds, clock::now()),
                &|state| replicasets::plan(state, &kinds, clock::now()),
                &|state| statefulsets::plan(state, &kinds, clock::now()),
                &|state| daemonsets::plan(state, &kinds, clock::now()),
                &|state| scheduler::plan(state, &kinds, &clock::format(clock::now())),
                &|state| kubelet::plan(state, &kinds, simulation, clock::now()),
                &|state| endpoint_slices::plan(state, &kinds),
                &|state| endpoints::plan(state, &kinds),
                &|state| {
                    let ca = &self.cluster.authority.certificate_pem;
                    tokens::plan(state, &kinds, self.keys.as_ref().ok(), ca)
                },
            ];
            let mut changed = false;
            for plan in plans {
                let actions = plan(&state);
                changed |= !actions.is_empty();
                self.carry_out(&mut state, actions, &mut later);
            }
            if changed {
                self.notify(state);
            }
        }
        let acted = !later.is_empty();
        for action in later {
            // A refusal (a name taken, a namespace going away) is the controller's to meet
            // again on its next step, as a real one's would be.
            let _ = match action {
                Action::Create {
                    index,
                    namespace,
                    object,
                } => self
                    .insert(
                        &self.catalog(),
                        index,
                        &namespace,
                        object,
                        &Query::default(),
                        Some(MANAGER),
                    )
                    .map(|(_, created)| {
                        if kinds.pods == Some(index) {
                            self.record_created(&kinds, &namespace, &created);
                        }
                    }),
                Action::Bind { key, node } => {
                    let binding = json!({
                        "apiVersion": "v1",
                        "kind": "Binding",
                        "metadata": {"name": key.1, "namespace": key.0},
                        "target": {"apiVersion": "v1", "kind": "Node", "name": node},
                    });
                    self.bind(
                        &key.0,
                        Some(&key.1),
                        binding.to_string().as_bytes(),
                        &Query::default(),
                    )
                    .map(|_| self.record_bound(&kinds, &key, &node))
                }
                _ => Ok(()),
            };
        }
        acted
    }

    /// The Event of the controller that made the Pod `created` (`SuccessfulCreate`).
    fn record_created(&self, kinds: &Kinds, namespace: &str, created: &Value) {
        let Some(owner) = created
            .pointer("/metadata/ownerReferences")
            .and_then(Value::as_array)
            .and_then(|refs| refs.iter().find(|r| r["controller"] == true))
        else {
            return;
        };
        let name = created["metadata"]["name"].as_str().unwrap_or("");
        let owner_name = owner["name"].as_str().unwrap_or("");
        let (index, component, message) = match owner["kind"].as_str() {
            Some("ReplicaSet") => (
                kinds.replica_sets,
                "replicaset-controller",
                format!("Created pod: {name}"),
            ),
            Some("Job") => (kinds.jobs, "job-controller", format!("Created pod: {name}")),
            Some("DaemonSet") => (
                kinds.daemon_sets,
                "daemonset-controller",
                format!("Created pod: {name}"),
            ),
            Some("StatefulSet") => (
                kinds.stateful_sets,
                "statefulset-controller",
                format!("create Pod {name} in StatefulSet {owner_name} successful"),
            ),
            _ => return,
        };
        let Some(owner) = index.and_then(|i| self.stored(i, namespace, owner_name).ok()) else {
            return;
        };
        let event = Recorded {
            involved: &owner,
            field_path: None,
            kind: "Normal",
            reason: "SuccessfulCreate",
            message,
        };
        self.record_event(kinds, namespace, events::legacy(&event, component, None));
    }

    /// The scheduler's `Scheduled` Event of a Pod it bound.
    fn record_bound(&self, kinds: &Kinds, key: &Key, node: &str) {
        let Some(pod) = kinds.pods.and_then(|i| self.stored(i, &key.0, &key.1).ok()) else {
            return;
        };
        let event = Recorded {
            involved: &pod,
            field_path: None,
            kind: "Normal",
            reason: "Scheduled",
            message: format!("Successfully assigned {}/{} to {node}", key.0, key.1),
        };
        self.record_event(kinds, &key.0, events::scheduler(&event, "Binding"));
    }

    /// Creates an Event, when the API serves Events; a refused one is dropped, as a
    /// recorder drops one it cannot write.
    fn record_event(&self, kinds: &Kinds, namespace: &str, event: Value) {
        if let Some(index) = kinds.events {
            let _ = self.insert(
                &self.catalog(),
                index,
                namespace,
                event,
                &Query::default(),
                Some(MANAGER),
            );
        }
    }

    /// The writes and deletions of `actions`, under the lock; the creates and bindings are
    /// kept for after it.
    fn carry_out(&self, state: &mut State, actions: Vec<Action>, later: &mut Vec<Action>) {
        let catalog = state.catalog.clone();
        let kinds = Kinds::of(&catalog);
        let mut work = VecDeque::new();
        for action in actions {
            match action {
                Action::Write { index, key, object } => {
                    queue::write(state, &catalog, index, &key, object, &mut work);
                }
                Action::Delete { index, key } => {
                    let graceful = kinds.pods == Some(index)
                        && self.options.simulation.as_ref().is_some_and(|simulation| {
                            kubelet::terminate(state, &kinds, simulation, &key, None, &mut work)
                                .is_some()
                        });
                    if !graceful {
                        queue::delete(state, &catalog, index, &key, Policy::Background, &mut work);
                    }
                }
                Action::Create { .. } | Action::Bind { .. } => later.push(action),
            }
        }
        if !work.is_empty() {
            self.settle(state, Vec::<Work>::from(work));
        }
    }
}

impl Shared {
    /// A delete of a Pod a simulated kubelet runs: graceful, as `kubelet::terminate` makes
    /// it; `None` when the delete is not graceful (no simulation, not such a Pod).
    pub(crate) fn terminate(
        &self,
        state: &mut State,
        index: usize,
        key: &crate::objects::store::Key,
        grace: Option<i64>,
        queue: &mut VecDeque<Work>,
    ) -> Option<std::sync::Arc<Value>> {
        let simulation = self.options.simulation.as_ref()?;
        let kinds = Kinds::of(&state.catalog);
        if kinds.pods != Some(index) {
            return None;
        }
        kubelet::terminate(state, &kinds, simulation, key, grace, queue)
    }

    /// `pods/{name}/log` of a container the simulation was told the log of, on a simulated
    /// node (`None` otherwise): that log, as the kubelet serves one (`tailLines`,
    /// `limitBytes`, `timestamps`, `sinceSeconds`, `sinceTime`; each line printed when the
    /// container started), or the kubelet's refusal while the container has not started, or
    /// of `previous` (a simulated container never restarts).
    pub(crate) fn scripted_log(
        &self,
        pod: &Value,
        name: &str,
        container: &str,
        node: &str,
        query: &Query,
    ) -> Option<Result<String, Failure>> {
        let simulation = self.options.simulation.as_ref()?;
        if !simulation.has_node(node) {
            return None;
        }
        let script = kubelet::script(pod, container, simulation)?;
        let Some(started) = kubelet::started_at(pod, container) else {
            return Some(Err(Failure::bad_request(format!(
                "container {container:?} in pod {name:?} is waiting to start: ContainerCreating"
            ))));
        };
        if query.flag("previous") {
            return Some(Err(Failure::bad_request(format!(
                "previous terminated container {container:?} in pod {name:?} not found"
            ))));
        }
        let _clock = self.clock.enter();
        let started_time = started.parse::<jiff::Timestamp>().ok();
        let since = query
            .get("sinceSeconds")
            .and_then(|s| s.parse::<i64>().ok())
            .map(|s| clock::now().as_second() - s)
            .or_else(|| {
                query
                    .get("sinceTime")
                    .and_then(|t| t.parse::<jiff::Timestamp>().ok())
                    .map(|t| t.as_second())
            });
        if let (Some(since), Some(started)) = (since, started_time)
            && started.as_second() < since
        {
            return Some(Ok(String::new()));
        }
        let mut lines: Vec<&str> = script.split_inclusive('\n').collect();
        if let Some(tail) = query.get("tailLines").and_then(|t| t.parse::<usize>().ok()) {
            lines = lines.split_off(lines.len().saturating_sub(tail));
        }
        let stamp = started_time.map_or_else(String::new, |t| {
            t.strftime("%Y-%m-%dT%H:%M:%S.%9fZ").to_string()
        });
        let mut text: String = if query.flag("timestamps") {
            lines.iter().map(|line| format!("{stamp} {line}")).collect()
        } else {
            lines.concat()
        };
        if let Some(limit) = query
            .get("limitBytes")
            .and_then(|l| l.parse::<usize>().ok())
        {
            let mut end = limit.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
        }
        Some(Ok(text))
    }

    /// Moves the clock forward and runs the simulation on the new time (simulating only).
    pub(crate) fn advance(&self, by: std::time::Duration) {
        if let Some(simulation) = &self.options.simulation {
            self.clock.advance(by);
            self.simulate(simulation);
        }
    }

    /// Freezes or resumes the clock (simulating only).
    pub(crate) fn freeze(&self, frozen: bool) {
        if self.options.simulation.is_some() {
            if frozen {
                self.clock.freeze();
            } else {
                self.clock.resume();
            }
        }
    }

    /// `/simulation/clock`, served when simulating: `GET` tells the time and whether the
    /// clock is frozen; `POST` with `advance=<duration>` (`90s`, `5m`, `1h30m`, or a number
    /// of seconds), `freeze=true` or `resume=true` acts on it first, then tells.
    pub(crate) fn clock_request(&self, method: &str, query: &Query) -> Result<Value, Failure> {
        const PATH: &str = "/simulation/clock";
        if self.options.simulation.is_none() {
            return Err(Failure::no_route(PATH));
        }
        match method {
            "GET" => {}
            "POST" => {
                if query.flag("freeze") {
                    self.freeze(true);
                }
                if query.flag("resume") {
                    self.freeze(false);
                }
                if let Some(text) = query.get("advance") {
                    let by = duration(text).ok_or_else(|| {
                        Failure::bad_request(format!(
                            "advance={text}: not a duration (90s, 5m, 1h30m)"
                        ))
                    })?;
                    self.advance(by);
                }
            }
            other => return Err(Failure::method_not_allowed(other, PATH)),
        }
        let _clock = self.clock.enter();
        Ok(json!({
            "now": clock::format(clock::now()),
            "frozen": self.clock.frozen(),
        }))
    }
}

/// A duration as `advance=` takes it: a number of seconds, or jiff's friendly format.
fn duration(text: &str) -> Option<std::time::Duration> {
    if let Ok(seconds) = text.parse::<u64>() {
        return Some(std::time::Duration::from_secs(seconds));
    }
    let signed: jiff::SignedDuration = text.parse().ok()?;
    std::time::Duration::try_from(signed).ok()
}
