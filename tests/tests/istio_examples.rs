//! Istio's own valid and invalid example objects (`../shared/validation/istio/testdata`, or
//! `$KUBEFORGE_VALIDATION/istio/testdata`, all
//! eleven files: 76 invalid, 35 valid), validated against nodes written by hand from the
//! schemas of Istio's published CRDs (the fields the examples reach; `description`s left
//! out).
//! Each invalid object must be refused with the text a real API server gave (its `_err`),
//! and each valid one accepted.
//!
//! The nodes are hand-written on purpose: turning CRD documents into nodes is the
//! generator's model's job, and a second converter here would be a second copy of it.

use kubeforge_runtime::schema::{Errors, NoReferences, Node, validate};
use serde_json::{Value, json};

/// The examples of one file; `None` after a visible `SKIPPED` when the validation data is
/// missing (a failure in CI: [`kubeforge_tests::validation_data`]).
fn testdata(name: &str) -> Option<Vec<Value>> {
    let file = format!("istio/testdata/{name}");
    let dir = kubeforge_tests::validation_data("istio_examples", &[&file])?;
    let text = std::fs::read_to_string(dir.join(&file)).expect("the examples read");
    // `[1.2.3.4, 001:db8::]`: YAML 1.2 (serde-saphyr) reads the last entry as a one-key map,
    // as `:` before `]` ends a key; Go's YAML 1.1 reader, which kubectl used for Istio's
    // test, reads the string. Quote it so both agree.
    let text = text.replace("001:db8::]", "\"001:db8::\"]");
    Some(serde_saphyr::from_multiple::<Value>(&text).expect("the examples parse"))
}

fn selector() -> Value {
    json!({"type": "object", "properties": {"matchLabels": {
        "type": "object", "maxProperties": 4096,
        "additionalProperties": {"type": "string", "maxLength": 63,
            "rules": [{"rule": "!self.contains(\"*\")", "message": "wildcard not allowed in label value match"}]},
        "rules": [
            {"rule": "self.all(key, !key.contains(\"*\"))", "message": "wildcard not allowed in label key match"},
            {"rule": "self.all(key, key.size() != 0)", "message": "key must not be empty"}
        ]
    }}})
}

fn target_ref() -> Value {
    json!({"type": "object", "required": ["kind", "name"], "properties": {
        "group": {"type": "string", "maxLength": 253, "pattern": "^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"},
        "kind": {"type": "string", "maxLength": 63, "minLength": 1, "pattern": "^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$"},
        "name": {"type": "string", "maxLength": 253, "minLength": 1},
        "namespace": {"type": "string", "rules": [{"rule": "self.size() == 0", "message": "cross namespace referencing is not currently supported"}]}
    }})
}

fn only_one_target() -> Value {
    json!({"rule": "(has(self.selector) ? 1 : 0) + (has(self.targetRef) ? 1 : 0) + (has(self.targetRefs) ? 1 : 0) <= 1",
           "message": "only one of targetRefs or selector can be set"})
}

fn root(spec: Value) -> Node {
    serde_json::from_value(json!({"type": "object", "properties": {
        "spec": spec,
        "status": {"type": "object", "preserveUnknownFields": true}
    }}))
    .expect("a node")
}

fn wasm_plugin() -> Node {
    root(
        json!({"type": "object", "required": ["url"], "rules": [only_one_target()], "properties": {
            "failStrategy": {"type": "string", "enum": ["FAIL_CLOSE", "FAIL_OPEN", "FAIL_RELOAD"]},
            "imagePullPolicy": {"type": "string", "enum": ["UNSPECIFIED_POLICY", "IfNotPresent", "Always"]},
            "imagePullSecret": {"type": "string", "maxLength": 253, "minLength": 1},
            "match": {"type": "array", "items": {"type": "object", "properties": {
                "mode": {"type": "string", "enum": ["UNDEFINED", "CLIENT", "SERVER", "CLIENT_AND_SERVER"]},
                "ports": {"type": "array", "listType": "map", "listMapKeys": ["number"], "items": {
                    "type": "object", "required": ["number"],
                    "properties": {"number": {"type": "integer", "minimum": 1, "maximum": 65535}}}}
            }}},
            "phase": {"type": "string", "enum": ["UNSPECIFIED_PHASE", "AUTHN", "AUTHZ", "STATS"]},
            "pluginConfig": {"type": "object", "preserveUnknownFields": true},
            "pluginName": {"type": "string", "maxLength": 256, "minLength": 1},
            "priority": {"type": "integer", "format": "int32", "nullable": true},
            "selector": selector(),
            "sha256": {"type": "string", "pattern": "(^$|^[a-f0-9]{64}$)"},
            "targetRef": target_ref(),
            "targetRefs": {"type": "array", "maxItems": 16, "items": target_ref()},
            "type": {"type": "string", "enum": ["UNSPECIFIED_PLUGIN_TYPE", "HTTP", "NETWORK"]},
            "url": {"type": "string", "minLength": 1, "rules": [{
                "rule": "isURL(self) ? (url(self).getScheme() in [\"\", \"http\", \"https\", \"oci\", \"file\"]) : (isURL(\"http://\" + self) &&\nurl(\"http://\" + self).getScheme() in [\"\", \"http\", \"https\", \"oci\", \"file\"])",
                "message": "url must have schema one of [http, https, file, oci]"}]},
            "verificationKey": {"type": "string"},
            "vmConfig": {"type": "object", "properties": {"env": {
                "type": "array", "maxItems": 256, "listType": "map", "listMapKeys": ["name"],
                "items": {"type": "object", "required": ["name"],
                    "rules": [{"rule": "(has(self.valueFrom) ? self.valueFrom : \"\") != \"HOST\" || !has(self.value)",
                               "message": "value may only be set when valueFrom is INLINE"}],
                    "properties": {
                        "name": {"type": "string", "maxLength": 256, "minLength": 1},
                        "value": {"type": "string", "maxLength": 2048},
                        "valueFrom": {"type": "string", "enum": ["INLINE", "HOST"]}
                    }}
            }}}
        }}),
    )
}

fn peer_authentication() -> Node {
    let mode = json!({"type": "object", "properties": {"mode": {"type": "string", "enum": ["UNSET", "DISABLE", "PERMISSIVE", "STRICT"]}}});
    root(json!({"type": "object",
    "rules": [{"rule": "has(self.portLevelMtls) ? (((has(self.selector) && has(self.selector.matchLabels)) ? self.selector.matchLabels : {}).size() > 0) : true",
               "message": "portLevelMtls requires selector"}],
    "properties": {
        "mtls": mode.clone(),
        "portLevelMtls": {"type": "object", "minProperties": 1, "additionalProperties": mode,
            "rules": [{"rule": "self.all(key, 0 < int(key) && int(key) <= 65535)", "message": "port must be between 1-65535"}]},
        "selector": selector()
    }}))
}

fn request_authentication() -> Node {
    let strings = json!({"type": "array", "items": {"type": "string", "minLength": 1}});
    let uri = json!({"type": "string", "maxLength": 2048, "minLength": 1,
        "rules": [{"rule": "url(self).getScheme() in [\"http\", \"https\"]", "message": "url must have scheme http:// or https://"}]});
    root(
        json!({"type": "object", "rules": [only_one_target()], "properties": {
            "jwtRules": {"type": "array", "maxItems": 4096, "items": {"type": "object",
                "rules": [{"rule": "(has(self.jwksUri) ? 1 : 0) + (has(self.jwks_uri) ? 1 : 0) + (has(self.jwks) ? 1 : 0) <= 1",
                           "message": "only one of jwks or jwksUri can be set"}],
                "properties": {
                    "audiences": strings.clone(),
                    "forwardOriginalToken": {"type": "boolean"},
                    "fromCookies": strings.clone(),
                    "fromHeaders": {"type": "array", "items": {"type": "object", "required": ["name"], "properties": {
                        "name": {"type": "string", "minLength": 1}, "prefix": {"type": "string"}}}},
                    "fromParams": strings.clone(),
                    "issuer": {"type": "string", "minLength": 1},
                    "jwks": {"type": "string"},
                    "jwks_uri": uri.clone(),
                    "jwksUri": uri,
                    "outputClaimToHeaders": {"type": "array", "items": {"type": "object", "required": ["header", "claim"], "properties": {
                        "claim": {"type": "string", "minLength": 1},
                        "header": {"type": "string", "minLength": 1, "pattern": "^[-_A-Za-z0-9]+$"}}}},
                    "outputPayloadToHeader": {"type": "string"},
                    "spaceDelimitedClaims": {"type": "array", "maxItems": 64, "items": {"type": "string", "minLength": 1}},
                    "timeout": {"type": "string", "rules": [{"rule": "duration(self) >= duration('1ms')", "message": "must be a valid duration greater than 1ms"}]}
                }}},
            "selector": selector(),
            "targetRef": target_ref(),
            "targetRefs": {"type": "array", "maxItems": 16, "items": target_ref()}
        }}),
    )
}

fn service_entry() -> Node {
    let port = port_number();
    let spec = json!({"type": "object", "required": ["hosts"],
    "rules": [
        {"rule": "(has(self.workloadSelector) ? 1 : 0) + (has(self.endpoints) ? 1 : 0) <= 1", "message": "only one of WorkloadSelector or Endpoints can be set"},
        {"rule": "!((has(self.addresses) ? self.addresses : []).exists(k, k.contains(\"/\")) && !((has(self.resolution) ? self.resolution : \"NONE\") in [\"STATIC\", \"NONE\"]))",
         "message": "CIDR addresses are allowed only for NONE/STATIC resolution types"},
        {"rule": "((has(self.resolution) ? self.resolution : \"NONE\") == \"NONE\") ? !has(self.endpoints) : true", "message": "NONE mode cannot set endpoints"},
        {"rule": "((has(self.resolution) ? self.resolution : \"\") == \"DNS_ROUND_ROBIN\") ? ((has(self.endpoints) ? self.endpoints : []).size() <= 1) : true",
         "message": "DNS_ROUND_ROBIN mode cannot have multiple endpoints"}
    ],
    "properties": {
        "addresses": {"type": "array", "maxItems": 256, "items": {"type": "string", "maxLength": 64}},
        "endpoints": {"type": "array", "maxItems": 4096, "items": workload_entry_spec(true)},
        "exportTo": {"type": "array", "items": {"type": "string"}},
        "hosts": {"type": "array", "minItems": 1, "maxItems": 256, "items": {"type": "string",
            "rules": [{"rule": "self != \"*\"", "message": "hostname cannot be wildcard"}]}},
        "location": {"type": "string", "enum": ["MESH_EXTERNAL", "MESH_INTERNAL"]},
        "ports": {"type": "array", "maxItems": 256, "listType": "map", "listMapKeys": ["name"],
            "rules": [{"rule": "self.all(l1, self.exists_one(l2, l1.number == l2.number))", "message": "port number cannot be duplicated"}],
            "items": {"type": "object", "required": ["number", "name"], "properties": {
                "name": {"type": "string", "maxLength": 256},
                "number": port.clone(),
                "protocol": {"type": "string", "maxLength": 256},
                "targetPort": port
            }}},
        "resolution": {"type": "string", "enum": ["NONE", "STATIC", "DNS", "DNS_ROUND_ROBIN", "DYNAMIC_DNS"]},
        "subjectAltNames": {"type": "array", "items": {"type": "string"}},
        "workloadSelector": {"type": "object", "properties": {"labels": {"type": "object", "maxProperties": 256,
            "additionalProperties": {"type": "string", "maxLength": 63,
                "rules": [{"rule": "!self.contains(\"*\")", "message": "wildcard is not supported in selector"}]}}}}
    }});
    let mut node = root(spec);
    node.required = vec!["spec".to_owned()];
    node
}

fn port_number() -> Value {
    json!({"type": "integer", "minimum": 0, "maximum": 4294967295_u64,
        "rules": [{"rule": "0 < self && self <= 65535", "message": "port must be between 1-65535"}]})
}

/// The `WorkloadEntry` spec, which `ServiceEntry`'s endpoints and `WorkloadGroup`'s
/// template repeat.
fn workload_entry_spec(address_required: bool) -> Value {
    let mut rules = vec![
        json!({"rule": "(has(self.address) ? self.address : \"\").startsWith(\"unix://\") ? !has(self.ports) : true", "message": "UDS may not include ports"}),
    ];
    if address_required {
        rules.insert(0, json!({"rule": "has(self.address) || has(self.network)", "message": "Address is required"}));
    }
    json!({"type": "object", "rules": rules, "properties": {
        "address": {"type": "string", "maxLength": 256, "rules": [
            {"rule": "self.startsWith(\"unix://\") ? (self.substring(7, 8) == \"/\" || self.substring(7, 8) == \"@\") : true", "message": "UDS must be an absolute path or abstract socket"},
            {"rule": "self.startsWith(\"unix://\") ? !self.endsWith(\"/\") : true", "message": "UDS may not be a dir"}
        ]},
        "labels": {"type": "object", "maxProperties": 256, "additionalProperties": {"type": "string"}},
        "locality": {"type": "string", "maxLength": 2048},
        "network": {"type": "string", "maxLength": 2048},
        "ports": {"type": "object", "maxProperties": 128, "additionalProperties": port_number(),
            "rules": [{"rule": "self.all(key, size(key) < 63 && key.matches(\"^[a-zA-Z0-9](?:[-a-zA-Z0-9]*[a-zA-Z0-9])?$\"))", "message": "port name must be valid"}]},
        "serviceAccount": {"type": "string", "maxLength": 253},
        "weight": {"type": "integer", "minimum": 0, "maximum": 4294967295_u64}
    }})
}

fn workload_entry() -> Node {
    let mut node = root(workload_entry_spec(true));
    node.required = vec!["spec".to_owned()];
    node
}

fn workload_group() -> Node {
    let int32 = json!({"type": "integer", "format": "int32", "minimum": 0});
    let spec = json!({"type": "object", "required": ["template"], "properties": {
        "metadata": {"type": "object", "properties": {
            "annotations": {"type": "object", "maxProperties": 256, "additionalProperties": {"type": "string"}},
            "labels": {"type": "object", "maxProperties": 256, "additionalProperties": {"type": "string"}}}},
        "probe": {"type": "object",
            "oneOf": [
                {"not": {"anyOf": [{"required": ["httpGet"]}, {"required": ["tcpSocket"]}, {"required": ["exec"]}, {"required": ["grpc"]}]}},
                {"required": ["httpGet"]}, {"required": ["tcpSocket"]}, {"required": ["exec"]}, {"required": ["grpc"]}
            ],
            "properties": {
                "exec": {"type": "object", "required": ["command"], "properties": {"command": {"type": "array", "items": {"type": "string", "minLength": 1}}}},
                "failureThreshold": int32.clone(),
                "grpc": {"type": "object", "properties": {"port": port_number(), "service": {"type": "string"}}},
                "httpGet": {"type": "object", "required": ["port"], "properties": {
                    "host": {"type": "string"},
                    "httpHeaders": {"type": "array", "items": {"type": "object", "properties": {
                        "name": {"type": "string", "pattern": "^[-_A-Za-z0-9]+$"}, "value": {"type": "string"}}}},
                    "path": {"type": "string"},
                    "port": port_number(),
                    "scheme": {"type": "string", "rules": [{"rule": "self in [\"\", \"HTTP\", \"HTTPS\"]", "message": "scheme must be one of [HTTP, HTTPS]"}]}}},
                "initialDelaySeconds": int32.clone(),
                "periodSeconds": int32.clone(),
                "successThreshold": int32.clone(),
                "tcpSocket": {"type": "object", "required": ["port"], "properties": {"host": {"type": "string"}, "port": port_number()}},
                "timeoutSeconds": int32
            }},
        "template": workload_entry_spec(false)
    }});
    let mut node = root(spec);
    node.required = vec!["spec".to_owned()];
    node
}

fn proxy_config() -> Node {
    root(json!({"type": "object", "properties": {
        "concurrency": {"type": "integer", "format": "int32", "minimum": 0, "nullable": true},
        "environmentVariables": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 2048}},
        "image": {"type": "object", "properties": {"imageType": {"type": "string"}}},
        "selector": selector()
    }}))
}

fn authorization_policy() -> Node {
    let strings = json!({"type": "array", "items": {"type": "string"}});
    let accounts =
        json!({"type": "array", "maxItems": 16, "items": {"type": "string", "maxLength": 320}});
    let mut source = serde_json::Map::new();
    for name in [
        "ipBlocks",
        "namespaces",
        "notIpBlocks",
        "notNamespaces",
        "notPrincipals",
        "notRemoteIpBlocks",
        "notRequestPrincipals",
        "notTrustDomains",
        "principals",
        "remoteIpBlocks",
        "requestPrincipals",
        "trustDomains",
    ] {
        source.insert(name.to_owned(), strings.clone());
    }
    source.insert("serviceAccounts".to_owned(), accounts.clone());
    source.insert("notServiceAccounts".to_owned(), accounts);
    let mut operation = serde_json::Map::new();
    for name in [
        "hosts",
        "methods",
        "notHosts",
        "notMethods",
        "notPaths",
        "notPorts",
        "paths",
        "ports",
    ] {
        operation.insert(name.to_owned(), strings.clone());
    }
    root(json!({"type": "object", "rules": [only_one_target()],
    "oneOf": [{"not": {"anyOf": [{"required": ["provider"]}]}}, {"required": ["provider"]}],
    "properties": {
        "action": {"type": "string", "enum": ["ALLOW", "DENY", "AUDIT", "CUSTOM"]},
        "provider": {"type": "object", "properties": {"name": {"type": "string"}}},
        "rules": {"type": "array", "maxItems": 512, "items": {"type": "object", "properties": {
            "from": {"type": "array", "maxItems": 512, "items": {"type": "object", "properties": {"source": {
                "type": "object", "properties": source,
                "rules": [{"rule": "(has(self.serviceAccounts) || has(self.notServiceAccounts)) ? (!has(self.principals) &&\n!has(self.notPrincipals) && !has(self.namespaces) && !has(self.notNamespaces)) : true",
                           "message": "Cannot set serviceAccounts with namespaces or principals"}]}}}},
            "to": {"type": "array", "items": {"type": "object", "properties": {"operation": {"type": "object", "properties": operation}}}},
            "when": {"type": "array", "items": {"type": "object", "required": ["key"], "properties": {
                "key": {"type": "string"}, "notValues": strings.clone(), "values": strings}}}
        }}},
        "selector": selector(),
        "targetRef": target_ref(),
        "targetRefs": {"type": "array", "maxItems": 16, "items": target_ref()}
    }}))
}

fn destination_rule() -> Node {
    let duration = json!({"type": "string", "rules": [{"rule": "duration(self) >= duration('1ms')", "message": "must be a valid duration greater than 1ms"}]});
    root(
        json!({"type": "object", "required": ["host"], "properties": {
            "host": {"type": "string"},
            "trafficPolicy": {"type": "object", "properties": {"loadBalancer": {"type": "object",
                "oneOf": [{"not": {"anyOf": [{"required": ["simple"]}, {"required": ["consistentHash"]}]}}, {"required": ["simple"]}, {"required": ["consistentHash"]}],
                "properties": {
                    "simple": {"type": "string", "enum": ["UNSPECIFIED", "RANDOM", "PASSTHROUGH", "ROUND_ROBIN", "LEAST_REQUEST", "LEAST_CONN"]},
                    "consistentHash": {"type": "object"},
                    "warmupDurationSecs": duration.clone(),
                    "warmup": {"type": "object", "required": ["duration"], "properties": {
                        "aggression": {"type": "number", "format": "double", "minimum": 0, "nullable": true},
                        "duration": duration,
                        "minimumPercent": {"type": "number", "format": "double", "minimum": 0, "maximum": 100, "nullable": true}
                    }}
                }}}}
        }}),
    )
}

fn envoy_filter() -> Node {
    root(
        json!({"type": "object", "properties": {"configPatches": {"type": "array", "items": {"type": "object", "properties": {
            "applyTo": {"type": "string", "enum": ["INVALID", "LISTENER", "FILTER_CHAIN", "NETWORK_FILTER", "HTTP_FILTER", "ROUTE_CONFIGURATION",
                "VIRTUAL_HOST", "HTTP_ROUTE", "CLUSTER", "EXTENSION_CONFIG", "BOOTSTRAP", "LISTENER_FILTER"]},
            "match": {"type": "object",
                "oneOf": [{"not": {"anyOf": [{"required": ["listener"]}, {"required": ["routeConfiguration"]}, {"required": ["cluster"]}, {"required": ["waypoint"]}]}},
                          {"required": ["listener"]}, {"required": ["routeConfiguration"]}, {"required": ["cluster"]}, {"required": ["waypoint"]}],
                "rules": [{"rule": "has(self.context) ? ((self.context == \"WAYPOINT\") ? has(self.waypoint) : !has(self.waypoint)) : !has(self.waypoint)",
                           "message": "only support waypointMatch when context is WAYPOINT"}],
                "properties": {
                    "cluster": {"type": "object"},
                    "context": {"type": "string", "enum": ["ANY", "SIDECAR_INBOUND", "SIDECAR_OUTBOUND", "GATEWAY", "WAYPOINT"]},
                    "listener": {"type": "object", "preserveUnknownFields": true},
                    "proxy": {"type": "object", "preserveUnknownFields": true},
                    "routeConfiguration": {"type": "object", "preserveUnknownFields": true},
                    "waypoint": {"type": "object", "properties": {
                        "filter": {"type": "object", "properties": {"name": {"type": "string"}, "subFilter": {"type": "object", "properties": {"name": {"type": "string"}}}}},
                        "portNumber": port_number(),
                        "route": {"type": "object", "properties": {"name": {"type": "string"}}}
                    }}
                }},
            "patch": {"type": "object", "preserveUnknownFields": true}
        }}}}}),
    )
}

fn telemetry() -> Node {
    root(
        json!({"type": "object", "properties": {"metrics": {"type": "array", "items": {"type": "object", "properties": {
            "overrides": {"type": "array", "items": {"type": "object", "properties": {
                "disabled": {"type": "boolean", "nullable": true},
                "match": {"type": "object",
                    "oneOf": [{"not": {"anyOf": [{"required": ["metric"]}, {"required": ["customMetric"]}]}}, {"required": ["metric"]}, {"required": ["customMetric"]}],
                    "properties": {
                        "customMetric": {"type": "string", "minLength": 1},
                        "metric": {"type": "string", "enum": ["ALL_METRICS", "REQUEST_COUNT", "REQUEST_DURATION", "REQUEST_SIZE", "RESPONSE_SIZE",
                            "TCP_OPENED_CONNECTIONS", "TCP_CLOSED_CONNECTIONS", "TCP_SENT_BYTES", "TCP_RECEIVED_BYTES", "GRPC_REQUEST_MESSAGES", "GRPC_RESPONSE_MESSAGES"]},
                        "mode": {"type": "string", "enum": ["CLIENT_AND_SERVER", "CLIENT", "SERVER"]}
                    }},
                "tagOverrides": {"type": "object", "additionalProperties": {"type": "object",
                    "rules": [
                        {"rule": "((has(self.operation) ? self.operation : \"\") == \"UPSERT\") ? (self.value != \"\") : true", "message": "value must be set when operation is UPSERT"},
                        {"rule": "((has(self.operation) ? self.operation : \"\") == \"REMOVE\") ? !has(self.value) : true", "message": "value must not be set when operation is REMOVE"}
                    ],
                    "properties": {"operation": {"type": "string", "enum": ["UPSERT", "REMOVE"]}, "value": {"type": "string"}}}}
            }}},
            "providers": {"type": "array", "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 1}}}},
            "reportingInterval": {"type": "string", "rules": [{"rule": "duration(self) >= duration('1ms')", "message": "must be a valid duration greater than 1ms"}]}
        }}}}}),
    )
}

/// Validates every example of `kind`: (refused with the expected text, accepted).
fn check(node: &Node, invalid: &str, valid: &str) -> Option<(usize, usize)> {
    let invalid_docs = testdata(invalid)?;
    let valid_docs = testdata(valid)?;
    let mut failures = Vec::new();
    let mut refused = 0;
    for doc in &invalid_docs {
        let mut object = doc.clone();
        let expected = object.as_object_mut().and_then(|o| o.remove("_err"));
        let Some(Value::String(expected)) = expected else {
            continue;
        };
        let name = object["metadata"]["name"]
            .as_str()
            .unwrap_or("?")
            .to_owned();
        let errors = Errors(validate(node, &NoReferences, &object, None));
        let text = errors.to_string();
        if text.contains(&expected) {
            refused += 1;
        } else {
            failures.push(format!(
                "{invalid} {name}: expected {expected:?}, got {text:?}"
            ));
        }
    }
    let mut accepted = 0;
    for doc in &valid_docs {
        let name = doc["metadata"]["name"].as_str().unwrap_or("?");
        let errors = Errors(validate(node, &NoReferences, doc, None));
        if errors.is_empty() {
            accepted += 1;
        } else {
            failures.push(format!("{valid} {name}: refused: {errors}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    Some((refused, accepted))
}

/// Each Istio kind with examples: its node, its example files, and how many examples they
/// hold (invalid, valid).
#[test]
fn every_istio_example() {
    type Kind = (&'static str, fn() -> Node, (usize, usize));
    let kinds: [Kind; 11] = [
        ("wasm", wasm_plugin, (15, 4)),
        ("peerauth", peer_authentication, (6, 2)),
        ("reqauth", request_authentication, (19, 1)),
        ("serviceentry", service_entry, (12, 5)),
        ("workloadentry", workload_entry, (7, 5)),
        ("workloadgroup", workload_group, (3, 2)),
        ("proxyconfig", proxy_config, (2, 2)),
        ("authz", authorization_policy, (2, 2)),
        ("destinationrule", destination_rule, (3, 4)),
        ("envoyfilter", envoy_filter, (3, 5)),
        ("telemetry", telemetry, (4, 3)),
    ];
    let (mut refused, mut accepted) = (0, 0);
    for (file, node, counts) in kinds {
        let Some(got) = check(
            &node(),
            &format!("{file}-invalid.yaml"),
            &format!("{file}-valid.yaml"),
        ) else {
            return;
        };
        assert_eq!(got, counts, "{file}");
        refused += got.0;
        accepted += got.1;
    }
    assert_eq!((refused, accepted), (76, 35));
}

#[test]
fn full_messages_match_the_api_server() {
    let node = peer_authentication();
    let object = json!({"spec": {"mtls": {"mode": "BLAH"}}});
    assert_eq!(
        Errors(validate(&node, &NoReferences, &object, None)).to_string(),
        r#"[spec.mtls.mode: Unsupported value: "BLAH": supported values: "UNSET", "DISABLE", "PERMISSIVE", "STRICT", <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"#
    );
    let object = json!({"spec": {"selector": {"matchLabels": {"foo": "bar"}}, "portLevelMtls": {"acd": {"mode": "STRICT"}}}});
    assert_eq!(
        Errors(validate(&node, &NoReferences, &object, None)).to_string(),
        r#"spec.portLevelMtls: Invalid value: "object": type conversion error from 'string' to 'int' evaluating rule: port must be between 1-65535"#
    );
    let object = json!({"spec": {"portLevelMtls": {"80": {"mode": "STRICT"}}}});
    assert_eq!(
        Errors(validate(&node, &NoReferences, &object, None)).to_string(),
        r#"spec: Invalid value: "object": portLevelMtls requires selector"#
    );
    let node = wasm_plugin();
    let object = json!({"spec": {"url": null}});
    let errors = validate(&node, &NoReferences, &object, None);
    assert_eq!(
        errors[0].to_string(),
        r#"spec.url: Invalid value: "null": spec.url in body must be of type string: "null""#
    );
    assert_eq!(errors[0].reason(), "FieldValueTypeInvalid");
    let object =
        json!({"spec": {"url": "http://x", "vmConfig": {"env": [{"name": "a"}, {"name": "a"}]}}});
    let errors = validate(&node, &NoReferences, &object, None);
    assert_eq!(
        Errors(errors).to_string(),
        r#"spec.vmConfig.env[1]: Duplicate value: map[string]interface {}{"name":"a"}"#
    );
}
