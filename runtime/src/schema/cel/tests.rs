//! The Kubernetes CEL libraries against the examples their own documentation gives
//! (apiserver's `pkg/cel/library/*.go` doc comments), the Kubernetes documentation's
//! validation rule examples ("Validation rules" of the CustomResourceDefinitions page), and
//! the API server's rule semantics (messages, `fieldPath`, `reason`, transition rules).

use serde_json::{Value, json};

use super::*;
use crate::schema::error::Errors;
use crate::schema::{NoReferences, validate};

/// Evaluates a closed expression (no `self`) to a bool.
fn eval(expr: &str) -> Result<bool, String> {
    let compiled = compile(expr);
    let compiled = compiled.as_ref().as_ref().map_err(Clone::clone)?;
    let env = env().map_err(Clone::clone)?;
    let ctx = Context::with_env(Arc::clone(env));
    match compiled.program.execute(&ctx) {
        Ok(cel::Value::Bool(b)) => Ok(b),
        Ok(other) => Err(format!("not a bool: {other:?}")),
        Err(e) => Err(go_error(&e)),
    }
}

#[track_caller]
fn holds(expr: &str) {
    assert_eq!(eval(expr), Ok(true), "{expr}");
}

#[track_caller]
fn fails(expr: &str, reason: &str) {
    match eval(expr) {
        Err(e) => assert!(e.contains(reason), "{expr}: {e}"),
        Ok(v) => panic!("{expr}: evaluated to {v}, expected an error with {reason:?}"),
    }
}

#[test]
fn lists_library_examples() {
    holds("[1, 2, 3].isSorted()");
    holds("['a', 'b', 'b', 'c'].isSorted()");
    holds("![2.0, 1.0].isSorted()");
    holds("[1].isSorted() && [].isSorted()");
    holds("[1, 3].sum() == 4");
    holds("[1.0, 3.0].sum() == 4.0");
    holds("[].sum() == 0");
    holds("[1, 3].min() == 1 && [1, 3].max() == 3");
    holds("[1].min() == 1");
    fails("[].min()", "min called on empty list");
    holds("[1, 2, 2, 3].indexOf(2) == 1");
    holds("['a', 'b', 'b', 'c'].lastIndexOf('b') == 2");
    holds("[1.0].indexOf(1.1) == -1");
    holds("[].indexOf('string') == -1");
    holds("[duration('1m'), duration('1s')].sum() == duration('1m1s')");
}

#[test]
fn regex_library_examples() {
    holds("'abc 123'.find('[0-9]+') == '123'");
    holds("'abc 123'.find('xyz') == ''");
    holds("'123 abc 456'.findAll('[0-9]+') == ['123', '456']");
    holds("'123 abc 456'.findAll('[0-9]+', 1) == ['123']");
    holds("'123 abc 456'.findAll('xyz') == []");
    holds("'a 1 b 2'.find('[0-9]') == '1'");
    holds("'hello'.matches('^h.*o$') && matches('hello', 'l+')");
    holds("!'١٢٣'.matches('^\\\\d+$')");
    fails("'x'.matches('(')", "error parsing regexp");
}

#[test]
fn url_library_examples() {
    holds("isURL('https://user:pass@example.com:80/path?query=val#fragment')");
    holds("isURL('/absolute-path')");
    holds("!isURL('https://a:b:c/')");
    holds("!isURL('../relative-path')");
    holds("url('/path').getScheme() == ''");
    holds("url('https://example.com/').getScheme() == 'https'");
    holds("url('https://example.com:80/').getHost() == 'example.com:80'");
    holds("url('https://example.com/').getHost() == 'example.com'");
    holds("url('https://[::1]:80/').getHost() == '[::1]:80'");
    holds("url('https://[::1]/').getHost() == '[::1]'");
    holds("url('/path').getHost() == ''");
    holds("url('https://example.com:80/').getHostname() == 'example.com'");
    holds("url('https://127.0.0.1:80/').getHostname() == '127.0.0.1'");
    holds("url('https://[::1]:80/').getHostname() == '::1'");
    holds("url('https://example.com:80/').getPort() == '80'");
    holds("url('https://example.com/').getPort() == ''");
    holds("url('https://example.com/path').getEscapedPath() == '/path'");
    holds(
        "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
    );
    holds("url('https://example.com').getEscapedPath() == ''");
    holds(
        "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
    );
    holds(
        "url('https://example.com/path?key with spaces=value with spaces').getQuery() == {'key with spaces': ['value with spaces']}",
    );
    holds("url('https://example.com/path?').getQuery() == {}");
    holds("url('https://example.com/path').getQuery() == {}");
    fails("url('../relative-path')", "URL parse error");
}

#[test]
fn quantity_library_examples() {
    holds("isQuantity('1.3G') && isQuantity('1.3Gi') && isQuantity('10000k')");
    // The library's doc comment also lists `isQuantity('Mi')` as false, but
    // `resource.ParseQuantity("Mi")` reads an empty number as 0 and succeeds; the code is
    // followed here, not the comment.
    holds("!isQuantity('1,3G') && !isQuantity('200K') && !isQuantity('Three') && isQuantity('Mi')");
    // apiserver's pkg/cel/library/quantity_test.go
    fails(
        "quantity('10Mo')",
        "quantities must match the regular expression",
    );
    fails("quantity('10Mm')", "unable to parse quantity's suffix");
    holds(
        "isQuantity('20') && isQuantity('20M') && isQuantity('20Mi') && !isQuantity('20Mo') && !isQuantity('10Mm')",
    );
    holds(
        "quantity('200M') == quantity('200M') && quantity('200M') == quantity('0.2G') && quantity('0.2G') == quantity('200M')",
    );
    holds(
        "quantity('2M') == quantity('0.002G') && quantity('2000k') == quantity('2M') && quantity('0.002G') == quantity('2000k')",
    );
    holds("quantity('200M') != quantity('0.3G')");
    holds("quantity('50k').add(quantity('20')) == quantity('50.02k')");
    holds("!quantity('50k').add(20).isLessThan(quantity('50020'))");
    holds("quantity('50k').sub(quantity('20')) == quantity('49.98k')");
    holds("quantity('50k').sub(20) == quantity('49980')");
    holds("quantity('50k').add(20).sub(quantity('100k')).asInteger() == -49980");
    holds("quantity('50').isInteger() && quantity('50.703k').asApproximateFloat() == 50703.0");
    holds(
        "[quantity('9999999999999999999999999999999999999')].all(x, x.add(quantity('1')).compareTo(x.add(quantity('2'))) == -1)",
    );
    fails("quantity('200K')", "unable to parse quantity's suffix");
    holds("quantity('50000000G').isInteger()");
    holds("quantity('50k').isInteger()");
    fails(
        "quantity('9999999999999999999999999999999999999G').asInteger()",
        "cannot convert value to integer",
    );
    holds("!quantity('9999999999999999999999999999999999999G').isInteger()");
    holds("quantity('50k').asInteger() == 50000");
    holds("quantity('50k').sub(20000).asApproximateFloat() == 30000.0");
    holds("quantity('50k').add(quantity('20k')) == quantity('70k')");
    holds("quantity('50k').add(20) == quantity('50020')");
    holds("quantity('50k').sub(quantity('20k')) == quantity('30k')");
    holds("quantity('50k').sub(20000) == quantity('30k')");
    holds("quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')");
    holds("quantity('200M').compareTo(quantity('0.2G')) == 0");
    holds("quantity('50M').compareTo(quantity('50Mi')) == -1");
    holds("quantity('50Mi').compareTo(quantity('50M')) == 1");
    holds("quantity('150Mi').isGreaterThan(quantity('100Mi'))");
    holds("!quantity('50Mi').isGreaterThan(quantity('100Mi'))");
    holds("quantity('50M').isLessThan(quantity('100M'))");
    holds("!quantity('100M').isLessThan(quantity('50M'))");
    holds("sign(quantity('-1')) == -1 && sign(quantity('0')) == 0 && quantity('1Ki').sign() == 1");
    holds("quantity('1Gi') == quantity('1024Mi')");
}

#[test]
fn ip_and_cidr_library_examples() {
    holds("isIP('127.0.0.1') && isIP('::1')");
    holds("!isIP('127.0.0.256') && !isIP(':::1')");
    fails(
        "ip('127.0.0.256')",
        "parse error during conversion from string",
    );
    fails("ip('::ffff:1.2.3.4')", "IPv4-mapped IPv6 address");
    fails("ip('fe80::1%eth0')", "with zone value is not allowed");
    holds("!isIP('01.2.3.4')");
    holds("ip.isCanonical('127.0.0.1') && ip.isCanonical('2001:db8::abcd')");
    holds("!ip.isCanonical('2001:DB8::ABCD') && !ip.isCanonical('2001:db8::0:0:0:abcd')");
    holds("ip('127.0.0.1').family() == 4 && ip('::1').family() == 6");
    holds("ip('0.0.0.0').isUnspecified() && !ip('127.0.0.1').isUnspecified()");
    holds("ip('::').isUnspecified() && !ip('::1').isUnspecified()");
    holds("ip('127.0.0.1').isLoopback() && !ip('192.168.0.1').isLoopback()");
    holds("ip('::1').isLoopback() && !ip('2001:db8::abcd').isLoopback()");
    holds("ip('224.0.0.1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast()");
    holds("ip('ff02::1').isLinkLocalMulticast() && !ip('fd00::1').isLinkLocalMulticast()");
    holds("ip('169.254.169.254').isLinkLocalUnicast() && !ip('192.168.0.1').isLinkLocalUnicast()");
    holds("ip('fe80::1').isLinkLocalUnicast() && !ip('fd80::1').isLinkLocalUnicast()");
    holds("ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast()");
    holds("ip('2001:db8::abcd').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast()");
    holds("string(ip('2001:db8::0:0:0:abcd')) == '2001:db8::abcd'");
    holds("isCIDR('192.168.0.0/16') && isCIDR('::1/128')");
    holds("!isCIDR('192.168.0.0/33') && !isCIDR('::1/129')");
    holds("cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))");
    holds("!cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))");
    holds(
        "cidr('192.168.0.0/24').containsIP('192.168.0.1') && !cidr('192.168.0.0/24').containsIP('192.168.1.1')",
    );
    holds("cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))");
    holds("!cidr('192.168.1.0/24').containsCIDR(cidr('192.168.2.0/24'))");
    holds(
        "cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24') && !cidr('192.168.1.0/24').containsCIDR('192.168.2.0/24')",
    );
    holds(
        "cidr('192.168.0.1/24').ip() == ip('192.168.0.1') && cidr('192.168.0.1/24').ip().family() == 4",
    );
    holds("cidr('::1/128').ip() == ip('::1') && cidr('::1/128').ip().family() == 6");
    holds("cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')");
    holds("cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()");
    holds("cidr('192.168.0.1/24') != cidr('192.168.0.1/24').masked()");
    holds("cidr('192.168.0.0/16').prefixLength() == 16 && cidr('::1/128').prefixLength() == 128");
    holds("string(cidr('192.168.0.0/24')) == '192.168.0.0/24'");
}

#[test]
fn format_library_examples() {
    holds("!format.dns1123Label().validate('my-label-name').hasValue()");
    holds("!format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()");
    holds("!format.dns1035Label().validate('my-label-name').hasValue()");
    holds("!format.qualifiedName().validate('apiextensions.k8s.io/v1beta1').hasValue()");
    holds("!format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue()");
    holds("!format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-').hasValue()");
    holds("!format.dns1035LabelPrefix().validate('my-label-prefix-').hasValue()");
    holds("!format.uri().validate('http://example.com').hasValue()");
    holds("!format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()");
    holds("!format.byte().validate('aGVsbG8=').hasValue()");
    holds("!format.date().validate('2021-01-01').hasValue()");
    holds("!format.datetime().validate('2021-01-01T00:00:00Z').hasValue()");
    holds("format.named('dns1123Label').hasValue() && !format.named('nope').hasValue()");
    holds(
        "format.dns1123Label().validate('Bad_Name').value() == [\"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\"]",
    );
    holds("format.uuid().validate('nope').value() == ['does not match the UUID format']");
}

#[test]
fn strings_sets_durations_and_timestamps() {
    holds("'hello'.charAt(1) == 'e' && 'hello'.indexOf('l') == 2 && 'hello'.lastIndexOf('l') == 3");
    holds("'TacoCat'.lowerAscii() == 'tacocat' && 'TacoCat'.upperAscii() == 'TACOCAT'");
    holds("'a,b'.split(',') == ['a', 'b'] && ['a', 'b'].join('-') == 'a-b'");
    holds(
        "'  x '.trim() == 'x' && 'hello'.substring(1, 3) == 'el' && 'aaa'.replace('a', 'b', 2) == 'bba'",
    );
    holds("strings.quote('a\"b') == '\"a\\\\\"b\"'");
    holds("sets.contains([1, 2, 3], [3, 1]) && !sets.contains([1], [2])");
    holds("sets.equivalent([1, 2], [2, 1, 1]) && sets.intersects([1, 2], [2, 5])");
    holds("duration('1h30m') == duration('90m') && duration('1ms') < duration('1s')");
    holds("duration('1500ms').getSeconds() == 1 && duration('1h').getMinutes() == 60");
    holds("string(duration('1h')) == '1h0m0s'");
    fails("duration('apple')", "invalid duration");
    holds(
        "timestamp('2023-01-01T00:00:00Z') + duration('24h') == timestamp('2023-01-02T00:00:00Z')",
    );
    holds(
        "timestamp('2023-01-02T00:00:00Z') - timestamp('2023-01-01T00:00:00Z') == duration('24h')",
    );
    holds(
        "timestamp('2023-03-04T05:06:07Z').getFullYear() == 2023 && timestamp('2023-03-04T05:06:07Z').getMonth() == 2",
    );
    holds("has({'a': 1}.a) && [1, 2, 3].exists_one(x, x == 2) && [1, 2].map(x, x * 2) == [2, 4]");
    holds(
        "[1, 2, 3].filter(x, x > 1).size() == 2 && [1, 2, 3].all(x, x > 0) && [1, 2].exists(x, x == 2)",
    );
    fails("{'a': 1}.b == 1", "no such key: b");
    fails("1 / 0 == 1", "division by zero");
    fails(
        "int('acd') == 1",
        "type conversion error from 'string' to 'int'",
    );
}

fn node(v: Value) -> Node {
    serde_json::from_value(v).expect("a node")
}

fn errors(n: &Node, value: &Value, old: Option<&Value>) -> String {
    Errors(validate(n, &NoReferences, value, old)).to_string()
}

/// The "Validation rules" examples of the CustomResourceDefinitions page of the Kubernetes
/// documentation, each with an object that satisfies it and one that does not.
#[test]
fn kubernetes_documentation_rule_examples() {
    let examples: &[(&str, Value, Value, Value)] = &[
        (
            "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",
            json!({"type": "object", "properties": {"minReplicas": {"type": "integer"}, "replicas": {"type": "integer"}, "maxReplicas": {"type": "integer"}}}),
            json!({"minReplicas": 1, "replicas": 2, "maxReplicas": 3}),
            json!({"minReplicas": 0, "replicas": 20, "maxReplicas": 10}),
        ),
        (
            "'Available' in self.stateCounts",
            json!({"type": "object", "properties": {"stateCounts": {"type": "object", "additionalProperties": {"type": "integer"}}}}),
            json!({"stateCounts": {"Available": 1}}),
            json!({"stateCounts": {"Pending": 1}}),
        ),
        (
            "(size(self.list1) == 0) != (size(self.list2) == 0)",
            json!({"type": "object", "properties": {"list1": {"type": "array", "items": {"type": "string"}}, "list2": {"type": "array", "items": {"type": "string"}}}}),
            json!({"list1": ["a"], "list2": []}),
            json!({"list1": ["a"], "list2": ["b"]}),
        ),
        (
            "!('MY_KEY' in self.map1) || self.map1['MY_KEY'].matches('^[a-zA-Z]*$')",
            json!({"type": "object", "properties": {"map1": {"type": "object", "additionalProperties": {"type": "string"}}}}),
            json!({"map1": {"MY_KEY": "abc"}}),
            json!({"map1": {"MY_KEY": "a1"}}),
        ),
        (
            "self.envars.filter(e, e.name == 'MY_ENV').all(e, e.value.matches('^[a-zA-Z]*$'))",
            json!({"type": "object", "properties": {"envars": {"type": "array", "listType": "map", "listMapKeys": ["name"], "items": {"type": "object", "properties": {"name": {"type": "string"}, "value": {"type": "string"}}}}}}),
            json!({"envars": [{"name": "MY_ENV", "value": "abc"}, {"name": "OTHER", "value": "1"}]}),
            json!({"envars": [{"name": "MY_ENV", "value": "a1"}]}),
        ),
        (
            "has(self.expired) && self.created + self.ttl < self.expired",
            json!({"type": "object", "properties": {"created": {"type": "string", "format": "date-time"}, "ttl": {"type": "string", "format": "duration"}, "expired": {"type": "string", "format": "date-time"}}}),
            json!({"created": "2023-01-01T00:00:00Z", "ttl": "1h", "expired": "2023-01-01T02:00:00Z"}),
            json!({"created": "2023-01-01T00:00:00Z", "ttl": "3h", "expired": "2023-01-01T02:00:00Z"}),
        ),
        (
            "self.health.startsWith('ok')",
            json!({"type": "object", "properties": {"health": {"type": "string"}}}),
            json!({"health": "ok: fine"}),
            json!({"health": "bad"}),
        ),
        (
            "self.widgets.exists(w, w.key == 'x' && w.foo < 10)",
            json!({"type": "object", "properties": {"widgets": {"type": "array", "items": {"type": "object", "properties": {"key": {"type": "string"}, "foo": {"type": "integer"}}}}}}),
            json!({"widgets": [{"key": "x", "foo": 5}]}),
            json!({"widgets": [{"key": "x", "foo": 50}]}),
        ),
        (
            "type(self.v) == string ? self.v == '100%' : self.v == 1000",
            json!({"type": "object", "properties": {"v": {"x-kubernetes-int-or-string": true, "intOrString": true}}}),
            json!({"v": "100%"}),
            json!({"v": 999}),
        ),
        (
            "self.metadata.name.startsWith(self.prefix)",
            json!({"type": "object", "embeddedResource": true, "properties": {"prefix": {"type": "string"}}}),
            json!({"apiVersion": "v1", "kind": "K", "metadata": {"name": "abc-1"}, "prefix": "abc"}),
            json!({"apiVersion": "v1", "kind": "K", "metadata": {"name": "xyz-1"}, "prefix": "abc"}),
        ),
        (
            "self.set1.all(e, !(e in self.set2))",
            json!({"type": "object", "properties": {"set1": {"type": "array", "listType": "set", "items": {"type": "string"}}, "set2": {"type": "array", "listType": "set", "items": {"type": "string"}}}}),
            json!({"set1": ["a"], "set2": ["b"]}),
            json!({"set1": ["a"], "set2": ["a"]}),
        ),
        (
            "size(self.names) == size(self.details) && self.names.all(n, n in self.details)",
            json!({"type": "object", "properties": {"names": {"type": "array", "listType": "set", "items": {"type": "string"}}, "details": {"type": "object", "additionalProperties": {"type": "string"}}}}),
            json!({"names": ["a"], "details": {"a": "x"}}),
            json!({"names": ["a"], "details": {"b": "x"}}),
        ),
        (
            "size(self.clusters.filter(c, c.name == self.primary)) == 1",
            json!({"type": "object", "properties": {"primary": {"type": "string"}, "clusters": {"type": "array", "listType": "map", "listMapKeys": ["name"], "items": {"type": "object", "properties": {"name": {"type": "string"}}}}}}),
            json!({"primary": "a", "clusters": [{"name": "a"}, {"name": "b"}]}),
            json!({"primary": "c", "clusters": [{"name": "a"}]}),
        ),
        (
            "self.components['Widget'].priority < 10",
            json!({"type": "object", "properties": {"components": {"type": "object", "additionalProperties": {"type": "object", "properties": {"priority": {"type": "integer"}}}}}}),
            json!({"components": {"Widget": {"priority": 1}}}),
            json!({"components": {"Widget": {"priority": 10}}}),
        ),
        (
            "self.values.all(value, value >= 0 && value < 100)",
            json!({"type": "object", "properties": {"values": {"type": "array", "items": {"type": "integer"}}}}),
            json!({"values": [0, 99]}),
            json!({"values": [0, 100]}),
        ),
        (
            "self.x__dash__prop > 0 && self.__namespace__ > 0 && self.redact__underscores__d > 0",
            json!({"type": "object", "properties": {"x-prop": {"type": "integer"}, "namespace": {"type": "integer"}, "redact__d": {"type": "integer"}}}),
            json!({"x-prop": 1, "namespace": 1, "redact__d": 1}),
            json!({"x-prop": 0, "namespace": 1, "redact__d": 1}),
        ),
        (
            "self.x <= self.maxLimit",
            json!({"type": "object", "properties": {"x": {"type": "integer"}, "maxLimit": {"type": "integer"}}}),
            json!({"x": 1, "maxLimit": 2}),
            json!({"x": 3, "maxLimit": 2}),
        ),
    ];
    for (rule, schema, good, bad) in examples {
        let mut schema = schema.clone();
        schema["rules"] = json!([{"rule": rule}]);
        let n = node(schema);
        assert_eq!(errors(&n, good, None), "", "{rule} on {good}");
        assert_eq!(
            errors(&n, bad, None),
            format!("<nil>: Invalid value: \"object\": failed rule: {rule}"),
            "{rule} on {bad}"
        );
    }
}

#[test]
fn messages_field_paths_and_reasons() {
    let n = node(
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"x": {"type": "integer"}, "maxLimit": {"type": "integer"}, "n": {"type": "integer",
            "rules": [{"rule": "self > 0", "message": "  must be positive  "}]}},
        "rules": [
            {"rule": "self.x <= self.maxLimit", "messageExpression": "'x exceeded max limit of ' + string(self.maxLimit)"},
            {"rule": "self.x != 7", "message": "not seven", "fieldPath": ".x", "reason": "FieldValueForbidden"},
            {"rule": "self.x != 8", "messageExpression": "''", "message": "fallback"},
            {"rule": "self.x != 9", "reason": "FieldValueRequired", "fieldPath": ".maxLimit"}
        ]}}}),
    );
    assert_eq!(
        errors(&n, &json!({"spec": {"x": 3, "maxLimit": 2}}), None),
        r#"spec: Invalid value: "object": x exceeded max limit of 2"#
    );
    assert_eq!(
        errors(&n, &json!({"spec": {"x": 7, "maxLimit": 9}}), None),
        "spec.x: Forbidden: not seven"
    );
    assert_eq!(
        errors(&n, &json!({"spec": {"x": 8, "maxLimit": 9}}), None),
        r#"spec: Invalid value: "object": fallback"#
    );
    assert_eq!(
        errors(&n, &json!({"spec": {"x": 9, "maxLimit": 9}}), None),
        "spec.maxLimit: Required value: failed rule: self.x != 9"
    );
    assert_eq!(
        errors(&n, &json!({"spec": {"x": 1, "maxLimit": 9, "n": 0}}), None),
        r#"spec.n: Invalid value: "integer": must be positive"#
    );
    let errs = validate(
        &n,
        &NoReferences,
        &json!({"spec": {"x": 7, "maxLimit": 9}}),
        None,
    );
    assert_eq!(errs[0].reason(), "FieldValueForbidden");
}

#[test]
fn transition_rules_run_on_update_where_the_old_value_correlates() {
    let n = node(json!({"type": "object", "properties": {
        "level": {"type": "string", "enum": ["low", "medium", "high"],
            "rules": [{"rule": "!(self == 'high' && oldSelf == 'low') && !(self == 'low' && oldSelf == 'high')",
                       "message": "cannot transition directly between 'low' and 'high'"}]},
        "immutable": {"type": "string", "rules": [{"rule": "self == oldSelf", "message": "is immutable"}]},
        "opt": {"type": "string", "rules": [{"rule": "!oldSelf.hasValue() || self == oldSelf.value()", "message": "set once", "optionalOldSelf": true},
                                            {"rule": "oldSelf.hasValue() || self != 'bad'", "message": "not bad on create", "optionalOldSelf": true}]},
        "ports": {"type": "array", "listType": "map", "listMapKeys": ["name"], "items": {"type": "object",
            "properties": {"name": {"type": "string"}, "port": {"type": "integer", "rules": [{"rule": "self >= oldSelf", "message": "may not decrease"}]}}}},
        "atomic": {"type": "array", "items": {"type": "integer", "rules": [{"rule": "self == oldSelf", "message": "never checked"}]}}
    }}));
    // On create no transition rule runs (except optionalOldSelf ones).
    assert_eq!(
        errors(&n, &json!({"level": "high", "immutable": "a"}), None),
        ""
    );
    assert_eq!(
        errors(&n, &json!({"opt": "bad"}), None),
        r#"opt: Invalid value: "string": not bad on create"#
    );
    let old = json!({"level": "low", "immutable": "a", "opt": "x",
                     "ports": [{"name": "a", "port": 80}, {"name": "b", "port": 90}], "atomic": [1, 2]});
    let new = json!({"level": "high", "immutable": "b", "opt": "y",
                     "ports": [{"name": "b", "port": 70}, {"name": "c", "port": 1}, {"name": "a", "port": 81}], "atomic": [2, 1]});
    assert_eq!(
        errors(&n, &new, Some(&old)),
        r#"[immutable: Invalid value: "string": is immutable, level: Invalid value: "string": cannot transition directly between 'low' and 'high', opt: Invalid value: "string": set once, ports[0].port: Invalid value: "integer": may not decrease]"#
    );
}

#[test]
fn a_blocking_schema_error_stops_the_rules() {
    let n = node(
        json!({"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}},
        "rules": [{"rule": "false"}]}),
    );
    assert_eq!(
        errors(&n, &json!({}), None),
        "[a: Required value, <nil>: Invalid value: \"null\": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"
    );
    // Nor do they run after a type error.
    let n = node(
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "rules": [{"rule": "false"}]}),
    );
    assert_eq!(
        errors(&n, &json!({"a": 1}), None),
        r#"[a: Invalid value: "integer": a in body must be of type string: "integer", <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"#
    );
    // A minLength error does not block them.
    let n = node(
        json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 2}}, "rules": [{"rule": "false"}]}),
    );
    assert_eq!(
        errors(&n, &json!({"a": "x"}), None),
        r#"[a: Invalid value: "x": a in body should be at least 2 chars long, <nil>: Invalid value: "object": failed rule: false]"#
    );
}

#[test]
fn rules_are_compiled_once() {
    let a = compile("1 + 1 == 2");
    let b = compile("1 + 1 == 2");
    assert!(Arc::ptr_eq(&a, &b));
}

#[test]
fn check_rules_names_each_rule_that_cannot_run() {
    let n = node(
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "rules": [{"rule": "self.x >"}, {"rule": "self.ok", "messageExpression": "nope(self)"}]}}}),
    );
    let errs = check_rules(&n).unwrap_err();
    assert_eq!(errs.len(), 2);
    assert_eq!(errs[0].pointer, "/properties/spec/rules/0/rule");
    assert!(
        errs[0]
            .to_string()
            .starts_with("/properties/spec/rules/0/rule: rule \"self.x >\": compilation failed"),
        "{}",
        errs[0]
    );
    assert_eq!(
        errs[1].pointer,
        "/properties/spec/rules/1/messageExpression"
    );
    assert!(errs[1].reason.contains("undeclared reference to 'nope'"));
}

#[test]
fn null_fields_are_absent_to_rules() {
    let n = node(json!({"type": "object",
        "properties": {"a": {"type": "string", "nullable": true}, "m": {"type": "object", "additionalProperties": {"type": "string", "nullable": true}}},
        "rules": [{"rule": "!has(self.a) && !('k' in self.m)"}]}));
    assert_eq!(errors(&n, &json!({"a": null, "m": {"k": null}}), None), "");
    assert_eq!(
        errors(&n, &json!({"a": "x", "m": {}}), None),
        r#"<nil>: Invalid value: "object": failed rule: !has(self.a) && !('k' in self.m)"#
    );
}

/// "Equality on arrays with x-kubernetes-list-type of set or map ignores element order …
/// Concatenation on arrays with x-kubernetes-list-type use the semantics of the list
/// type" (the Kubernetes documentation's CEL type mapping).
#[test]
fn set_and_map_lists_compare_and_concatenate_by_their_list_type() {
    let n = node(json!({"type": "object", "properties": {
        "set": {"type": "array", "listType": "set", "items": {"type": "integer"}},
        "other": {"type": "array", "listType": "set", "items": {"type": "integer"}},
        "atomic": {"type": "array", "items": {"type": "integer"}},
        "map": {"type": "array", "listType": "map", "listMapKeys": ["name"], "items": {"type": "object",
            "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}}}
    }}));
    let check = |rule: &str, value: Value| {
        let mut n = n.clone();
        n.rules = vec![Rule {
            rule: rule.to_owned(),
            ..Rule::default()
        }];
        assert_eq!(errors(&n, &value, None), "", "{rule} on {value}");
    };
    check(
        "self.set == self.other",
        json!({"set": [1, 2], "other": [2, 1]}),
    );
    check(
        "self.set + self.other == [1, 2, 3]",
        json!({"set": [1, 2], "other": [2, 3]}),
    );
    check("self.atomic != [2, 1]", json!({"atomic": [1, 2]}));
    check(
        "self.map + [{'name': 'a', 'v': 9}, {'name': 'c', 'v': 3}] == [{'name': 'a', 'v': 9}, {'name': 'b', 'v': 2}, {'name': 'c', 'v': 3}]",
        json!({"map": [{"name": "a", "v": 1}, {"name": "b", "v": 2}]}),
    );
    check(
        "self.map == self.map.reverse() && size(self.map) == 2 && self.map[0].name == 'a'",
        json!({"map": [{"name": "a", "v": 1}, {"name": "b", "v": 2}]}),
    );
    // Immutability of a set survives a reordering.
    let mut immutable = n.clone();
    immutable.properties.get_mut("set").unwrap().rules = vec![Rule {
        rule: "self == oldSelf".to_owned(),
        ..Rule::default()
    }];
    assert_eq!(
        errors(
            &immutable,
            &json!({"set": [2, 1]}),
            Some(&json!({"set": [1, 2]}))
        ),
        ""
    );
}

#[test]
fn semver_library_examples() {
    // apiserver's pkg/cel/library/semverlib.go documentation.
    holds("semver('1.0.0') == semver('1.0.0') && isSemver('0.1.0-alpha.1')");
    fails("semver('200K')", "Semver parse error");
    fails("semver('Three')", "Semver parse error");
    holds("semver('v1.0.0', true) == semver('1.0.0')");
    holds("semver('1.0', true) == semver('1.0.0')");
    holds("semver('01.01.01', true) == semver('1.1.1')");
    holds("isSemver('1.0.0') && !isSemver('hello') && !isSemver('v1.0') && isSemver('v1.0', true)");
    holds(
        "semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3",
    );
    holds("semver('1.2.3').compareTo(semver('1.2.3')) == 0");
    holds("semver('1.2.3').compareTo(semver('2.0.0')) == -1");
    holds("semver('1.2.3').compareTo(semver('0.1.2')) == 1");
    holds(
        "semver('1.0.0-alpha').isLessThan(semver('1.0.0')) && semver('1.0.0-alpha.2').isGreaterThan(semver('1.0.0-alpha.1'))",
    );
    holds("semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-beta'))");
}

/// cel-go's two-variable comprehensions (`ext.TwoVarComprehensions`), with the results
/// cel-go's documentation gives for them.
#[test]
fn two_variable_comprehensions() {
    holds("[1, 2, 3].all(i, v, i < v)");
    holds("{'a': 1, 'b': 2}.all(k, v, k.size() == 1 && v > 0)");
    holds("!{'a': 1, 'b': 2}.all(k, v, v > 1)");
    holds("[1, 2].exists(i, v, i == 1 && v == 2) && !['x'].exists(i, v, v == 'y')");
    holds("{'a': 1, 'b': 2}.existsOne(k, v, v == 1) && ![1, 1].exists_one(i, v, v == 1)");
    holds("[1, 2, 3].transformList(i, v, v * i) == [0, 2, 6]");
    holds("[1, 2, 3].transformList(i, v, i > 0, v) == [2, 3]");
    holds("{'a': 1, 'b': 2}.transformMap(k, v, v * 2) == {'a': 2, 'b': 4}");
    holds("{'a': 1, 'b': 2}.transformMap(k, v, v > 1, v + 1) == {'b': 3}");
    holds("[1, 2].transformMapEntry(i, v, {string(v): i}) == {'1': 0, '2': 1}");
    fails(
        "[1, 1].transformMapEntry(i, v, {string(v): i})",
        "already exists",
    );
    // An inner comprehension that binds `v` again keeps its own `v`.
    holds("[[1], [1]].all(i, v, v.all(v, v == 1))");
    let n = node(
        json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "integer"},
        "rules": [{"rule": "self.all(k, v, v >= k.size())", "message": "values at least key length"}]}}}),
    );
    assert_eq!(errors(&n, &json!({"m": {"ab": 2}}), None), "");
    assert_eq!(
        errors(&n, &json!({"m": {"abc": 2}}), None),
        r#"m: Invalid value: "object": values at least key length"#
    );
}
