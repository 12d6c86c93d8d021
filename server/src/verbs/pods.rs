//! What a Pod's subresources with behaviour of their own do: `eviction`
//! (`pkg/registry/core/pod/storage/eviction.go`: a delete that honours the
//! PodDisruptionBudgets), `binding` and the deprecated `bindings` resource
//! (`pkg/registry/core/pod/storage/storage.go`, `BindingREST`: the scheduler's write of
//! `spec.nodeName`), and the answers of what needs a kubelet (`log`, `exec`, `attach`,
//! `portforward`, the proxies), as the API server gives them when no kubelet can be reached
//! (`pkg/registry/core/pod/strategy.go`, `LogLocation`, `streamLocation`,
//! `pkg/kubelet/client/kubelet_client.go`): none waits.

use std::sync::Arc;

use http::StatusCode;
use kubeforge_runtime::schema::gofmt::quote;
use kubeforge_runtime::schema::{BadValue, FieldError};
use serde_json::{Value, json};

use crate::controllers::disruption::{self, is_ready, selects};
use crate::controllers::simulation::containers::{self, ExecHandler};
use crate::objects::catalog::Catalog;
use crate::objects::meta::{metadata_mut, now};
use crate::verbs::Shared;
use crate::wire::query::Query;
use crate::wire::status::Failure;

/// `MaxDisruptedPodSize`.
const MAX_DISRUPTED: usize = 2000;

/// The `Status` a successful eviction or binding answers with (its `code` the create's 201).
fn success() -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201})
}

/// `NewTooManyRequests` with a `DisruptionBudget` cause.
fn too_many(retry_after: i64, cause: String) -> Failure {
    let mut details = json!({"causes": [{"reason": "DisruptionBudget", "message": cause}]});
    if retry_after > 0 {
        details["retryAfterSeconds"] = Value::from(retry_after);
    }
    Failure {
        code: 429,
        reason: "TooManyRequests",
        message: "Cannot evict pod as it would violate the pod's disruption budget.".into(),
        details: Some(details),
    }
}

impl Shared {
    /// `POST pods/{name}/eviction`.
    pub(crate) fn evict(
        &self,
        catalog: &Catalog,
        namespace: &str,
        name: &str,
        body: &[u8],
        query: &Query,
    ) -> Result<(StatusCode, Value), Failure> {
        let eviction: Value = serde_json::from_slice(body).map_err(|e| {
            Failure::bad_request(format!("the body of the request is not valid JSON: {e}"))
        })?;
        if eviction.pointer("/metadata/name").and_then(Value::as_str) != Some(name) {
            return Err(Failure::bad_request(
                "name in URL does not match name in Eviction object",
            ));
        }
        let mut options = eviction
            .get("deleteOptions")
            .filter(|o| o.is_object())
            .cloned()
            .unwrap_or_else(|| json!({}));
        // `propagateDryRun`.
        let query_dry_run: Vec<&str> = query.get("dryRun").into_iter().collect();
        let body_dry_run = options
            .get("dryRun")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if body_dry_run.is_empty() {
            options["dryRun"] = json!(query_dry_run);
        } else if !query_dry_run.is_empty()
            && body_dry_run.iter().map(Value::as_str).collect::<Vec<_>>()
                != query_dry_run.iter().copied().map(Some).collect::<Vec<_>>()
        {
            return Err(Failure::internal(format!(
                "Non-matching dry-run options in request and content: [{}] and [{}]",
                query_dry_run.join(" "),
                body_dry_run
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" ")
            )));
        }
        let dry_run = options
            .get("dryRun")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty());
        let pods = self.core("pods")?;
        let pod = self.stored(pods, namespace, name)?;
        let phase = pod.pointer("/status/phase").and_then(Value::as_str);
        // `canIgnorePDB`: a Pod that is done, not yet running or already going.
        let ignore = matches!(phase, Some("Succeeded" | "Failed" | "Pending"))
            || pod.pointer("/metadata/deletionTimestamp").is_some();
        if !ignore && let Some(answer) = self.guard(catalog, namespace, &pod, dry_run)? {
            return Ok((StatusCode::CREATED, answer));
        }
        self.disrupt(pods, namespace, name, &mut options, dry_run)?;
        self.delete_one(catalog, pods, namespace, name, &options, &Query::parse(""))?;
        Ok((StatusCode::CREATED, success()))
    }

    /// The PodDisruptionBudget check of an eviction: with none, nothing; with several, the
    /// answer the API server gives (a `Status` of code 500, sent as a 201); with one,
    /// `checkAndDecrement`, unless the Pod is not Ready and the budget lets unready Pods go.
    fn guard(
        &self,
        catalog: &Catalog,
        namespace: &str,
        pod: &Value,
        dry_run: bool,
    ) -> Result<Option<Value>, Failure> {
        let Some(budgets) = disruption::budgets(catalog) else {
            return Ok(None);
        };
        let matching: Vec<Arc<Value>> = self.lock().objects[budgets]
            .iter()
            .filter(|((ns, _), pdb)| ns == namespace && selects(pdb.pointer("/spec/selector"), pod))
            .map(|(_, pdb)| pdb.clone())
            .collect();
        let pdb = match matching.as_slice() {
            [] => return Ok(None),
            [one] => one.clone(),
            _ => {
                return Ok(Some(json!({
                    "kind": "Status",
                    "apiVersion": "v1",
                    "metadata": {},
                    "status": "Failure",
                    "message": "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
                    "code": 500,
                })));
            }
        };
        let int = |pointer: &str| pdb.pointer(pointer).and_then(Value::as_i64).unwrap_or(0);
        let pdb_name = pdb
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if !is_ready(pod) {
            let policy = pdb
                .pointer("/spec/unhealthyPodEvictionPolicy")
                .and_then(Value::as_str);
            if policy == Some("AlwaysAllow") {
                return Ok(None);
            }
            let (current, desired) = (int("/status/currentHealthy"), int("/status/desiredHealthy"));
            if current >= desired && desired > 0 {
                return Ok(None);
            }
        }
        if int("/status/observedGeneration") < int("/metadata/generation") {
            return Err(too_many(
                10,
                format!("The disruption budget {pdb_name} is still being processed by the server."),
            ));
        }
        let allowed = int("/status/disruptionsAllowed");
        if allowed < 0 {
            return Err(Failure::forbidden(
                "policy",
                "poddisruptionbudget",
                &pdb_name,
                "pdb disruptions allowed is negative",
            ));
        }
        let disrupted = pdb
            .pointer("/status/disruptedPods")
            .and_then(Value::as_object)
            .map_or(0, serde_json::Map::len);
        if disrupted > MAX_DISRUPTED {
            return Err(Failure::forbidden(
                "policy",
                "poddisruptionbudget",
                &pdb_name,
                "DisruptedPods map too big - too many evictions not confirmed by PDB controller",
            ));
        }
        if allowed == 0 {
            return Err(too_many(
                0,
                format!(
                    "The disruption budget {pdb_name} needs {} healthy pods and has {} currently",
                    int("/status/desiredHealthy"),
                    int("/status/currentHealthy")
                ),
            ));
        }
        if dry_run {
            return Ok(None);
        }
        let mut object = (*pdb).clone();
        object["status"]["disruptionsAllowed"] = Value::from(allowed - 1);
        if allowed - 1 == 0
            && let Some(status) = object.get_mut("status")
        {
            disruption::allowed_condition(status);
        }
        let pod_name = pod
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !object["status"]["disruptedPods"].is_object() {
            object["status"]["disruptedPods"] = json!({});
        }
        object["status"]["disruptedPods"][pod_name] = Value::from(now());
        let key = (namespace.to_owned(), pdb_name.clone());
        let mut state = self.lock();
        if !state.objects[budgets]
            .get(&key)
            .is_some_and(|current| Arc::ptr_eq(current, &pdb))
        {
            return Err(too_many(
                10,
                format!("The disruption budget {pdb_name} is still being processed by the server."),
            ));
        }
        let rv = state.next_rv();
        metadata_mut(&mut object).insert("resourceVersion".into(), Value::from(rv.to_string()));
        state.put(budgets, key, Arc::new(object), Some(pdb));
        self.notify(state);
        Ok(None)
    }

    /// `addConditionAndDeletePod`: the preconditions checked against the Pod, then its
    /// `DisruptionTarget` condition written (not on a dry run), the preconditions then moot.
    fn disrupt(
        &self,
        pods: usize,
        namespace: &str,
        name: &str,
        options: &mut Value,
        dry_run: bool,
    ) -> Result<(), Failure> {
        if dry_run {
            return Ok(());
        }
        let key = (namespace.to_owned(), name.to_owned());
        let mut state = self.lock();
        let Some(old) = state.objects[pods].get(&key).cloned() else {
            return Err(Failure::not_found("", "pods", name));
        };
        for (field, what, tail) in [
            (
                "uid",
                "UID",
                "The object might have been deleted and then recreated",
            ),
            (
                "resourceVersion",
                "ResourceVersion",
                "The object might have been modified",
            ),
        ] {
            let wanted = options
                .pointer(&format!("/preconditions/{field}"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let actual = old
                .pointer(&format!("/metadata/{field}"))
                .and_then(Value::as_str)
                .unwrap_or("");
            if !wanted.is_empty() && wanted != actual {
                return Err(Failure::conflict(
                    "",
                    "Pod",
                    name,
                    &format!(
                        "the {what} in the precondition ({wanted}) does not match the {what} in record ({actual}). {tail}"
                    ),
                ));
            }
        }
        let mut pod = (*old).clone();
        set_condition(
            &mut pod,
            json!({
                "type": "DisruptionTarget",
                "status": "True",
                "lastProbeTime": null,
                "lastTransitionTime": now(),
                "reason": "EvictionByEvictionAPI",
                "message": "Eviction API: evicting",
            }),
        );
        let rv = state.next_rv();
        metadata_mut(&mut pod).insert("resourceVersion".into(), Value::from(rv.to_string()));
        if let Some(preconditions) = options
            .get_mut("preconditions")
            .and_then(Value::as_object_mut)
            && preconditions.contains_key("resourceVersion")
        {
            preconditions.insert("resourceVersion".into(), Value::from(rv.to_string()));
        }
        state.put(pods, key, Arc::new(pod), Some(old));
        self.notify(state);
        Ok(())
    }

    /// `POST pods/{name}/binding`, and `POST bindings` (`name` from the body): the Pod put on
    /// the target node, with the `PodScheduled` condition and the binding's annotations.
    pub(crate) fn bind(
        &self,
        namespace: &str,
        name: Option<&str>,
        body: &[u8],
        query: &Query,
    ) -> Result<(StatusCode, Value), Failure> {
        let binding: Value = serde_json::from_slice(body).map_err(|e| {
            Failure::bad_request(format!("the body of the request is not valid JSON: {e}"))
        })?;
        let text = |pointer: &str| {
            binding
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let body_name = text("/metadata/name");
        let name = name.unwrap_or(&body_name);
        if body_name != name {
            return Err(Failure::bad_request(
                "name in URL does not match name in Binding object",
            ));
        }
        // `ValidatePodBinding`: its errors are an aggregate, not a status, so a 500.
        let mut errors = Vec::new();
        let kind = text("/target/kind");
        if !kind.is_empty() && kind != "Node" {
            errors.push(FieldError::not_supported(
                "target.kind",
                BadValue::String(kind),
                &["Node".to_owned(), "<empty>".to_owned()],
            ));
        }
        let node = text("/target/name");
        if node.is_empty() {
            errors.push(FieldError::required("target.name", ""));
        }
        if !errors.is_empty() {
            let errors = kubeforge_runtime::schema::Errors(errors);
            let bodies: Vec<String> = errors
                .as_slice()
                .iter()
                .map(|e| format!("{}: {}", e.field, e.body()))
                .collect();
            let message = if bodies.len() == 1 {
                bodies.concat()
            } else {
                format!("[{}]", bodies.join(", "))
            };
            return Err(Failure {
                code: 500,
                reason: "",
                message,
                details: None,
            });
        }
        let pods = self.core("pods")?;
        let key = (namespace.to_owned(), name.to_owned());
        let mut state = self.lock();
        let Some(old) = state.objects[pods].get(&key).cloned() else {
            return Err(Failure::not_found("", "pods", name));
        };
        for (field, what) in [("uid", "UID"), ("resourceVersion", "ResourceVersion")] {
            let wanted = text(&format!("/metadata/{field}"));
            let actual = old
                .pointer(&format!("/metadata/{field}"))
                .and_then(Value::as_str)
                .unwrap_or("");
            if !wanted.is_empty() && wanted != actual {
                return Err(Failure::conflict(
                    "",
                    "pods",
                    name,
                    &format!(
                        "Precondition failed: {what} in precondition: {wanted}, {what} in object meta: {actual}"
                    ),
                ));
            }
        }
        let refuse = |why: String| Err(Failure::conflict("", "pods/binding", name, &why));
        if old.pointer("/metadata/deletionTimestamp").is_some() {
            return refuse(format!(
                "pod {name} is being deleted, cannot be assigned to a host"
            ));
        }
        if let Some(assigned) = old
            .pointer("/spec/nodeName")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        {
            return refuse(format!(
                "pod {name} is already assigned to node {}",
                quote(assigned)
            ));
        }
        if old
            .pointer("/spec/schedulingGates")
            .and_then(Value::as_array)
            .is_some_and(|g| !g.is_empty())
        {
            return refuse(format!("pod {name} has non-empty .spec.schedulingGates"));
        }
        let mut pod = (*old).clone();
        if let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) {
            spec.insert("nodeName".into(), Value::from(node));
        }
        if let Some(annotations) = binding
            .pointer("/metadata/annotations")
            .and_then(Value::as_object)
            .filter(|a| !a.is_empty())
        {
            let meta = metadata_mut(&mut pod);
            let target = meta.entry("annotations").or_insert_with(|| json!({}));
            if let Some(target) = target.as_object_mut() {
                for (k, v) in annotations {
                    target.insert(k.clone(), v.clone());
                }
            }
        }
        set_condition(
            &mut pod,
            json!({
                "type": "PodScheduled",
                "status": "True",
                "lastProbeTime": null,
                "lastTransitionTime": now(),
            }),
        );
        if query.dry_run() {
            return Ok((StatusCode::CREATED, success()));
        }
        let rv = state.next_rv();
        metadata_mut(&mut pod).insert("resourceVersion".into(), Value::from(rv.to_string()));
        state.put(pods, key.clone(), Arc::new(pod), Some(old));
        self.settle(
            &mut state,
            vec![crate::controllers::queue::Work::Written(pods, key)],
        );
        self.notify(state);
        Ok((StatusCode::CREATED, success()))
    }

    /// What a request that needs the Pod's kubelet gets (`log`, `exec`, `attach`,
    /// `portforward`; `proxy` needs the Pod's IP): the checks the API server makes before
    /// it dials, then, since there is no kubelet, the answer to a refused connection.
    pub(crate) fn pod_kubelet(
        &self,
        namespace: &str,
        name: &str,
        sub: &str,
        query: &Query,
    ) -> Result<(StatusCode, Value), Failure> {
        if sub == "proxy" {
            // `pod.ResourceLocation`: `[scheme:]name[:port]`, the port the first a container
            // declares when none is given; then `IsProxyableIP` of the Pod's IP.
            let parts: Vec<&str> = name.split(':').collect();
            let (name, port) = match parts.as_slice() {
                [name, port] | [_, name, port] => (*name, Some(*port)),
                _ => (name, None),
            };
            let pod = self.stored(self.core("pods")?, namespace, name)?;
            let ip = pod
                .pointer("/status/podIP")
                .and_then(Value::as_str)
                .unwrap_or("");
            if ip.parse::<std::net::IpAddr>().is_err() {
                return Err(Failure::bad_request("address not allowed"));
            }
            let declared = pod
                .pointer("/spec/containers")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .find_map(|c| c.pointer("/ports/0/containerPort").and_then(Value::as_i64));
            let port = port.map_or_else(
                || declared.map_or_else(|| "80".to_owned(), |p| p.to_string()),
                str::to_owned,
            );
            return Err(refused(&format!(
                "error trying to reach service: dial tcp {ip}:{port}"
            )));
        }
        let pod = self.stored(self.core("pods")?, namespace, name)?;
        let container = container(&pod, name, query.get("container"), sub == "log")?;
        let node = pod
            .pointer("/spec/nodeName")
            .and_then(Value::as_str)
            .unwrap_or("");
        if node.is_empty() {
            if sub == "log" {
                // `LogLocation` has no location: the streamer answers 204 No Content.
                return Ok((StatusCode::NO_CONTENT, Value::Null));
            }
            return Err(Failure::bad_request(format!(
                "pod {name} does not have a host assigned"
            )));
        }
        if sub == "log"
            && let Some(log) = self.scripted_log(&pod, name, &container, node, query)
        {
            return log.map(|text| (StatusCode::OK, Value::String(text)));
        }
        let address = self.kubelet(node)?;
        let path = match sub {
            "log" => "containerLogs",
            "exec" => "exec",
            "attach" => "attach",
            _ => "portForward",
        };
        if sub == "log" {
            return Err(refused(&format!(
                "Get \"https://{address}/{path}/{namespace}/{name}/{container}\": dial tcp {address}"
            )));
        }
        Err(refused(&format!(
            "error dialing backend: dial tcp {address}"
        )))
    }

    /// `pods/{name}/exec` in a container a simulated node runs: the checks of
    /// [`Shared::pod_kubelet`] and of `PodExecOptions` (a command, a stream), then the command
    /// and what runs it (`controllers::simulation::containers`). `None` where no simulated
    /// kubelet runs the Pod (the answer is then [`Shared::pod_kubelet`]'s).
    pub(crate) fn pod_exec(
        &self,
        namespace: &str,
        name: &str,
        query: &Query,
    ) -> Result<Option<ExecPlan>, Failure> {
        let Some(simulation) = self.options.simulation.as_ref() else {
            return Ok(None);
        };
        let pod = self.stored(self.core("pods")?, namespace, name)?;
        let container = container(&pod, name, query.get("container"), false)?;
        if !simulation.runs(&pod) {
            return Ok(None);
        }
        let argv: Vec<String> = query
            .all("command")
            .into_iter()
            .map(str::to_owned)
            .collect();
        let (stdin, stdout, stderr, tty) = (
            query.flag("stdin"),
            query.flag("stdout"),
            query.flag("stderr"),
            query.flag("tty"),
        );
        if !stdin && !stdout && !stderr {
            return Err(Failure::bad_request(
                "you must specify at least 1 of stdin, stdout, stderr",
            ));
        }
        if argv.is_empty() {
            return Err(Failure::bad_request(
                "you must specify at least one command for the container",
            ));
        }
        if crate::controllers::simulation::kubelet::started_at(&pod, &container).is_none()
            || matches!(
                pod.pointer("/status/phase").and_then(Value::as_str),
                Some("Succeeded" | "Failed")
            )
        {
            // The kubelet's `GetExec` for a container its runtime does not run.
            return Err(Failure::bad_request(format!(
                "container not found ({})",
                quote(&container)
            )));
        }
        let (handler, env, working_dir) = containers::handler(simulation, &pod, &container);
        Ok(Some(ExecPlan {
            handler,
            argv,
            env,
            working_dir,
            container: format!("{namespace}/{name}/{container}"),
            stdin,
            stdout,
            // With a terminal, stderr is the terminal: the client opens no stderr stream.
            stderr: stderr && !tty,
            tty,
        }))
    }

    /// `pods/{name}/portforward` to a Pod a simulated node runs: the checks of
    /// [`Shared::pod_kubelet`], then the ports its containers' images serve
    /// (`Simulation::port`), and the ports asked for in the query (`ports`, as
    /// `PortForwardOptions` carries them; what the WebSocket protocol forwards). `None`
    /// where no simulated kubelet runs the Pod (the answer is then
    /// [`Shared::pod_kubelet`]'s).
    pub(crate) fn pod_portforward(
        &self,
        namespace: &str,
        name: &str,
        query: &Query,
    ) -> Result<Option<ForwardPlan>, Failure> {
        let Some(simulation) = self.options.simulation.as_ref() else {
            return Ok(None);
        };
        let pod = self.stored(self.core("pods")?, namespace, name)?;
        if !simulation.runs(&pod) {
            return Ok(None);
        }
        let mut asked = Vec::new();
        for given in query.all("ports").into_iter().flat_map(|v| v.split(',')) {
            let given = given.trim();
            match given.parse::<u16>() {
                Ok(port) if port > 0 => asked.push(port),
                _ => {
                    return Err(Failure::bad_request(format!(
                        "invalid port {}: must be between 1 and 65535",
                        quote(given)
                    )));
                }
            }
        }
        if matches!(
            pod.pointer("/status/phase").and_then(Value::as_str),
            Some("Succeeded" | "Failed")
        ) {
            // The kubelet's `GetPortForward` for a Pod whose sandbox is gone.
            return Err(Failure::bad_request(format!("pod {name} is not running")));
        }
        Ok(Some(ForwardPlan {
            ports: containers::pod_ports(simulation, &pod),
            sandbox: containers::sandbox_id(&pod),
            asked,
        }))
    }

    /// `pods/{name}[:{port}]/proxy` to a port the simulation serves (`Simulation::port`) of a
    /// Pod a simulated node runs; `None` for any other (the answer is then
    /// [`Shared::pod_kubelet`]'s).
    pub(crate) fn pod_port(
        &self,
        namespace: &str,
        id: &str,
    ) -> Result<Option<containers::PortHandler>, Failure> {
        let Some(simulation) = self.options.simulation.as_ref() else {
            return Ok(None);
        };
        let Some((name, port)) = proxy_id(id) else {
            return Ok(None);
        };
        let port = match port.map(str::parse::<u16>) {
            None => None,
            Some(Ok(port)) => Some(port),
            Some(Err(_)) => return Ok(None),
        };
        let pod = self.stored(self.core("pods")?, namespace, name)?;
        if !simulation.runs(&pod) || pod.pointer("/status/podIP").is_none() {
            return Ok(None);
        }
        Ok(containers::port_handler(simulation, &pod, port))
    }

    /// `services/{name}[:{port}]/proxy` to a Pod's port the simulation serves: the Service's
    /// `Endpoints` (the port of the same name as the Service port asked for, else the
    /// first), their first ready address's Pod, and its port's handler. `None` for any
    /// other (the answer is then [`Shared::service_proxy`]'s).
    pub(crate) fn service_port(
        &self,
        namespace: &str,
        id: &str,
    ) -> Result<Option<containers::PortHandler>, Failure> {
        let Some(simulation) = self.options.simulation.as_ref() else {
            return Ok(None);
        };
        let Some((name, port)) = proxy_id(id) else {
            return Ok(None);
        };
        let port = port.unwrap_or("");
        let Ok(service) = self.stored(self.core("services")?, namespace, name) else {
            return Ok(None);
        };
        let Ok(endpoints) = self.stored(self.core("endpoints")?, namespace, name) else {
            return Ok(None);
        };
        let ports = service
            .pointer("/spec/ports")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let asked = ports.iter().find(|p| {
            p.get("port")
                .and_then(Value::as_i64)
                .map(|n| n.to_string())
                .as_deref()
                == Some(port)
                || p.get("name").and_then(Value::as_str) == Some(port)
        });
        let port_name = asked
            .or(ports.first())
            .and_then(|p| p.get("name").and_then(Value::as_str))
            .unwrap_or("");
        let subset = endpoints.pointer("/subsets/0");
        let target = subset
            .and_then(|s| s.get("ports"))
            .and_then(Value::as_array)
            .and_then(|list| {
                list.iter()
                    .find(|p| p.get("name").and_then(Value::as_str).unwrap_or("") == port_name)
                    .or(list.first())
            })
            .and_then(|p| p.get("port").and_then(Value::as_u64))
            .and_then(|p| u16::try_from(p).ok());
        let pod_name = subset
            .and_then(|s| s.pointer("/addresses/0/targetRef/name"))
            .and_then(Value::as_str);
        let (Some(target), Some(pod_name)) = (target, pod_name) else {
            return Ok(None);
        };
        let Ok(pod) = self.stored(self.core("pods")?, namespace, pod_name) else {
            return Ok(None);
        };
        Ok(containers::port_handler(simulation, &pod, Some(target)))
    }

    /// `nodes/{name}/proxy`: the Node's kubelet, which cannot be reached.
    pub(crate) fn node_proxy(&self, name: &str) -> Result<(StatusCode, Value), Failure> {
        let address = self.kubelet(name)?;
        Err(refused(&format!(
            "error dialing backend: dial tcp {address}"
        )))
    }

    /// `services/{name}/proxy`: `ResourceLocation` on the service's Endpoints (no
    /// controller makes them here), then a refused connection to the first address.
    pub(crate) fn service_proxy(
        &self,
        namespace: &str,
        id: &str,
    ) -> Result<(StatusCode, Value), Failure> {
        let parts: Vec<&str> = id.split(':').collect();
        let (name, port) = match parts.as_slice() {
            [name] => (*name, ""),
            [name, port] => (*name, *port),
            [_, name, port] => (*name, *port),
            _ => {
                return Err(Failure::bad_request(format!(
                    "invalid service request {}",
                    quote(id)
                )));
            }
        };
        if let Ok(number) = port.parse::<i64>() {
            let service = self.stored(self.core("services")?, namespace, name)?;
            let declared = service
                .pointer("/spec/ports")
                .and_then(Value::as_array)
                .is_some_and(|ports| {
                    ports
                        .iter()
                        .any(|p| p.get("port").and_then(Value::as_i64) == Some(number))
                });
            if !declared {
                return Err(unavailable(format!(
                    "no service port {number} found for service {}",
                    quote(name)
                )));
            }
        }
        let endpoints = self.stored(self.core("endpoints")?, namespace, name)?;
        let address = endpoints
            .pointer("/subsets/0/addresses/0/ip")
            .and_then(Value::as_str);
        let target_port = endpoints
            .pointer("/subsets/0/ports/0/port")
            .and_then(Value::as_i64);
        match (address, target_port) {
            (Some(ip), Some(port)) => Err(refused(&format!(
                "error trying to reach service: dial tcp {ip}:{port}"
            ))),
            _ => Err(unavailable(format!(
                "no endpoints available for service {}",
                quote(name)
            ))),
        }
    }

    /// `GetConnectionInfo`: the Node's preferred address and its kubelet's port.
    fn kubelet(&self, node: &str) -> Result<String, Failure> {
        let object = self.stored(self.core("nodes")?, "", node)?;
        let addresses = object
            .pointer("/status/addresses")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let preferred = [
            "Hostname",
            "InternalDNS",
            "InternalIP",
            "ExternalDNS",
            "ExternalIP",
        ];
        let host = preferred.iter().find_map(|kind| {
            addresses
                .iter()
                .find(|a| a.get("type").and_then(Value::as_str) == Some(kind))
                .and_then(|a| a.get("address").and_then(Value::as_str))
        });
        let Some(host) = host else {
            let known: Vec<String> = addresses
                .iter()
                .map(|a| {
                    format!(
                        "{{{} {}}}",
                        a.get("type").and_then(Value::as_str).unwrap_or(""),
                        a.get("address").and_then(Value::as_str).unwrap_or("")
                    )
                })
                .collect();
            return Err(Failure {
                code: 500,
                reason: "",
                message: format!(
                    "no preferred addresses found; known addresses: [{}]",
                    known.join(" ")
                ),
                details: None,
            });
        };
        let port = object
            .pointer("/status/daemonEndpoints/kubeletEndpoint/Port")
            .and_then(Value::as_i64)
            .filter(|p| *p > 0)
            .unwrap_or(10250);
        Ok(if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        })
    }
}

/// A command to run in a simulated container, and the streams its client opens.
#[derive(Clone)]
pub(crate) struct ExecPlan {
    pub(crate) handler: ExecHandler,
    pub(crate) argv: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) working_dir: Option<String>,
    pub(crate) container: String,
    pub(crate) stdin: bool,
    pub(crate) stdout: bool,
    pub(crate) stderr: bool,
    pub(crate) tty: bool,
}

/// The ports of a Pod a client forwards to, and what serves them.
#[derive(Clone, Debug)]
pub(crate) struct ForwardPlan {
    /// What listens on each port the simulation serves in the Pod's containers.
    pub(crate) ports: std::collections::BTreeMap<u16, containers::PortHandler>,
    /// The Pod's sandbox id, which the kubelet's errors name it by.
    pub(crate) sandbox: String,
    /// The ports the query asks for (`ports`), in its order.
    pub(crate) asked: Vec<u16>,
}

impl ForwardPlan {
    /// A connection to `port`, or the error the kubelet writes on the port's error stream
    /// when nothing listens there (containerd's dial inside the Pod's network namespace,
    /// refused).
    pub(crate) fn connect(&self, port: u16) -> Result<containers::Connection, String> {
        match self.ports.get(&port) {
            Some(handler) => Ok(handler.connect()),
            None => Err(format!(
                "error forwarding port {port} to pod {sandbox}, uid : failed to connect to localhost:{port} inside namespace {sandbox}: dial tcp 127.0.0.1:{port}: connect: connection refused",
                sandbox = self.sandbox
            )),
        }
    }
}

/// `validateContainer`: the container asked for, or the Pod's only one.
fn container(pod: &Value, name: &str, asked: Option<&str>, logs: bool) -> Result<String, Failure> {
    let names = |pointer: &str| -> Vec<String> {
        pod.pointer(pointer)
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|c| c.get("name").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let containers = names("/spec/containers");
    let init = names("/spec/initContainers");
    let ephemeral = names("/spec/ephemeralContainers");
    match asked.filter(|a| !a.is_empty()) {
        Some(asked) => {
            if containers
                .iter()
                .chain(&init)
                .chain(&ephemeral)
                .any(|c| c == asked)
            {
                Ok(asked.to_owned())
            } else {
                Err(Failure::bad_request(format!(
                    "container {asked} is not valid for pod {name}"
                )))
            }
        }
        None => match containers.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(Failure::bad_request(format!(
                "a container name must be specified for pod {name}"
            ))),
            _ if logs => {
                let all: Vec<String> = init
                    .iter()
                    .chain(&containers)
                    .chain(&ephemeral)
                    .cloned()
                    .collect();
                Err(Failure::bad_request(format!(
                    "a container name must be specified for pod {name}, choose one of: [{}]",
                    all.join(" ")
                )))
            }
            _ => {
                let mut message = format!(
                    "a container name must be specified for pod {name}, choose one of: [{}]",
                    containers.join(" ")
                );
                if !init.is_empty() {
                    message.push_str(&format!(
                        " or one of the init containers: [{}]",
                        init.join(" ")
                    ));
                }
                Err(Failure::bad_request(message))
            }
        },
    }
}

/// The answer to a connection refused by `target` (`dial tcp <address>`): an error that is
/// not a `Status`, so a 500 without reason.
fn refused(target: &str) -> Failure {
    Failure {
        code: 500,
        reason: "",
        message: format!("{target}: connect: connection refused"),
        details: None,
    }
}

fn unavailable(message: String) -> Failure {
    Failure {
        code: 503,
        reason: "ServiceUnavailable",
        message,
        details: None,
    }
}

/// `UpdatePodCondition`: the condition replaces one of its type; the transition time stays
/// when the status does not change.
fn set_condition(pod: &mut Value, mut condition: Value) {
    if !pod.get("status").is_some_and(Value::is_object) {
        pod["status"] = json!({});
    }
    if !pod["status"]["conditions"].is_array() {
        pod["status"]["conditions"] = json!([]);
    }
    let Some(list) = pod["status"]["conditions"].as_array_mut() else {
        return;
    };
    let kind = condition.get("type").cloned();
    match list.iter_mut().find(|c| c.get("type") == kind.as_ref()) {
        Some(existing) => {
            if existing.get("status") == condition.get("status")
                && let Some(at) = existing.get("lastTransitionTime").cloned()
            {
                condition["lastTransitionTime"] = at;
            }
            *existing = condition;
        }
        None => list.push(condition),
    }
}

/// A proxy's `{name}` path segment, `[scheme:]name[:port]`, as its name and port; `None`
/// when it has more parts.
fn proxy_id(id: &str) -> Option<(&str, Option<&str>)> {
    let parts: Vec<&str> = id.split(':').collect();
    match parts.as_slice() {
        [name] => Some((name, None)),
        [name, port] | [_, name, port] => Some((name, Some(port))),
        _ => None,
    }
}
