//! `x-kubernetes-validations`: CEL rules evaluated as apiextensions-apiserver evaluates
//! them (`pkg/apiserver/schema/cel/validation.go`, as of Kubernetes v1.32, the version
//! this project's server speaks).
//!
//! # The CEL implementation
//!
//! Rules run on the [`cel`](https://crates.io/crates/cel) crate (cel-rust) 0.15. The
//! candidates compared:
//!
//! * `cel` (cel-rust, MIT, released 2026-10): a maintained pure-Rust parser and
//!   interpreter with the standard library, macros (`has`, `all`, `exists`,
//!   `exists_one`, `map`, `filter`), optional types (`oldSelf` of `optionalOldSelf`
//!   rules, `.?`), the strings and lists extensions of cel-go, and an API to add types
//!   and overloads, which the Kubernetes libraries need. No type checker and no cost
//!   tracking.
//! * `cel-cxx` 0.2 (Apache-2.0): bindings to Google's cel-cpp through `cxx`. It has the
//!   checker and cost tracking, but needs a C++ toolchain and builds cel-cpp and its
//!   dependencies (Abseil, protobuf): minutes of build for every user of `validate`.
//! * `cel-interpreter` (the old name of `cel`, last 0.10), `common-expression-language`
//!   0.1 (a 2021 parser only) and `cala-cel-interpreter` (a ledger's subset of CEL):
//!   older or partial.
//!
//! `cel` is chosen; it is built without its `chrono` feature (which brings `chrono-tz`,
//! half of the crate's build time) and without its `regex` feature (its `matches`
//! compiles the expression on every call, with Rust's Unicode classes): durations,
//! timestamps and the regex functions are this crate's own, on `jiff` and the cached
//! Go-compatible expressions of `schema::pattern`.
//!
//! # What differs from the API server
//!
//! * **Cost limits are not enforced**: the `cel` crate neither estimates nor tracks cost,
//!   so the per-expression limit (1,000,000) and the per-object budget (10,000,000 cost
//!   units) of the API server are not applied; a rule that the API server would refuse
//!   as too expensive when the CRD is created is evaluated here. The limits that do not
//!   need cost tracking are applied: a `messageExpression` result is trimmed and refused
//!   beyond 5120 bytes, with line breaks, or empty (the `message` is used then).
//! * There is no type checker: a rule is checked when the schema is loaded
//!   ([`check_rules`]) for syntax, for functions, macros and variables this evaluator
//!   knows, but a type error (`self.name + 1`) shows only when the rule runs, as an
//!   "evaluating rule" error.

mod library;
mod semver;
mod twovar;
pub(crate) mod values;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cel::common::ast::Expr;
use cel::common::types::CelOptional;
use cel::{Context, Env, Program};
use serde_json::Value;

use super::correlate::{correlated_item, deep_equal};
use super::error::{BadValue, ErrorType, FieldError, FieldPath};
use super::view::View;
use super::{ElementType, ListType, Node, Rule};

/// `MaxEvaluatedMessageExpressionSizeBytes`.
const MAX_MESSAGE_BYTES: usize = 5 * 1024;
/// How deep the schema walk for rules goes (recursive `$ref`s end there).
const MAX_DEPTH: usize = 64;

fn env() -> Result<&'static Arc<Env>, &'static String> {
    static ENV: OnceLock<Result<Arc<Env>, String>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Env::stdlib();
        env.add_extension(cel::extensions::strings)
            .map_err(|e| e.to_string())?;
        env.add_extension(cel::extensions::lists)
            .map_err(|e| e.to_string())?;
        library::register(&mut env)?;
        twovar::register(&mut env)?;
        Ok(Arc::new(env))
    })
    .as_ref()
}

/// A compiled rule: the program, whether it reads `oldSelf`.
struct Compiled {
    program: Program,
    uses_old_self: bool,
}

type Cache = Mutex<HashMap<String, Arc<Result<Compiled, String>>>>;

/// The compiled program of a rule's text, compiled once per process.
fn compile(text: &str) -> Arc<Result<Compiled, String>> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    if let Ok(map) = cache.lock()
        && let Some(found) = map.get(text)
    {
        return Arc::clone(found);
    }
    let compiled = Arc::new(compile_uncached(text));
    if let Ok(mut map) = cache.lock() {
        map.insert(text.to_owned(), Arc::clone(&compiled));
    }
    compiled
}

fn compile_uncached(text: &str) -> Result<Compiled, String> {
    let env = env().map_err(Clone::clone)?;
    let program = env
        .compile(text)
        .map_err(|e| format!("compilation failed: {e}"))?;
    let mut scope = vec!["self".to_owned(), "oldSelf".to_owned()];
    let mut uses_old_self = false;
    check_expr(&program.expression().expr, &mut scope, &mut uses_old_self)?;
    Ok(Compiled {
        program,
        uses_old_self,
    })
}

/// The standard library's functions and the extensions' (cel-go's names).
const STANDARD: &[&str] = &[
    "size",
    "contains",
    "startsWith",
    "endsWith",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "bool",
    "type",
    "dyn",
    "has",
    "optional.of",
    "optional.none",
    "optional.ofNonZeroValue",
    "hasValue",
    "value",
    "or",
    "orValue",
    "charAt",
    "indexOf",
    "lastIndexOf",
    "join",
    "lowerAscii",
    "upperAscii",
    "trim",
    "replace",
    "split",
    "substring",
    "format",
    "strings.quote",
    "reverse",
    "slice",
    "flatten",
    "distinct",
    "sort",
    "sortBy",
    "first",
    "last",
    "range",
    "lists.range",
    "optMap",
    "optFlatMap",
];

/// Names a rule may use as values: the types and namespaces of the environment.
const IDENTIFIERS: &[&str] = &[
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "bool",
    "list",
    "map",
    "null_type",
    "type",
    "dyn",
    "optional",
    "format",
    "sets",
    "strings",
    "lists",
    "ip",
    "cidr",
    "google.protobuf.Duration",
    "google.protobuf.Timestamp",
];

/// Checks the identifiers and functions of an expression: a rule the evaluator cannot
/// run is refused here, not skipped when it runs.
fn check_expr(
    expr: &Expr,
    scope: &mut Vec<String>,
    uses_old_self: &mut bool,
) -> Result<(), String> {
    match expr {
        Expr::Ident(name) => {
            if name == "oldSelf" {
                *uses_old_self = true;
            }
            if !name.starts_with('@')
                && !scope.iter().any(|s| s == name)
                && !IDENTIFIERS.contains(&name.as_str())
            {
                return Err(format!("undeclared reference to '{name}'"));
            }
        }
        Expr::Call(call) => {
            let name = call.func_name.as_str();
            let qualified = call
                .target
                .as_ref()
                .and_then(|t| qualified(&t.expr))
                .map(|q| format!("{q}.{name}"));
            let known = |n: &str| {
                n.starts_with('_')
                    || n.starts_with('@')
                    || n.starts_with("!_")
                    || n == "@in"
                    || STANDARD.contains(&n)
                    || library::NAMES.contains(&n)
                    || n.starts_with("format.")
            };
            match &qualified {
                Some(q) if known(q) => {}
                _ => {
                    if !known(name) {
                        return Err(format!("undeclared reference to '{name}'"));
                    }
                    if let Some(target) = &call.target {
                        check_expr(&target.expr, scope, uses_old_self)?;
                    }
                }
            }
            for arg in &call.args {
                check_expr(&arg.expr, scope, uses_old_self)?;
            }
        }
        Expr::Comprehension(comp) => {
            check_expr(&comp.iter_range.expr, scope, uses_old_self)?;
            check_expr(&comp.accu_init.expr, scope, uses_old_self)?;
            let before = scope.len();
            scope.push(comp.iter_var.clone());
            if let Some(v2) = &comp.iter_var2 {
                scope.push(v2.clone());
            }
            scope.push(comp.accu_var.clone());
            let r = check_expr(&comp.loop_cond.expr, scope, uses_old_self)
                .and_then(|()| check_expr(&comp.loop_step.expr, scope, uses_old_self))
                .and_then(|()| check_expr(&comp.result.expr, scope, uses_old_self));
            scope.truncate(before);
            r?;
        }
        Expr::List(list) => {
            for e in &list.elements {
                check_expr(&e.expr, scope, uses_old_self)?;
            }
        }
        Expr::Map(map) => {
            for entry in &map.entries {
                match &entry.expr {
                    cel::common::ast::EntryExpr::StructField(f) => {
                        check_expr(&f.value.expr, scope, uses_old_self)?
                    }
                    cel::common::ast::EntryExpr::MapEntry(e) => {
                        check_expr(&e.key.expr, scope, uses_old_self)?;
                        check_expr(&e.value.expr, scope, uses_old_self)?;
                    }
                }
            }
        }
        Expr::Select(select) => {
            // A qualified name (`google.protobuf.Duration`) is one identifier.
            if qualified(expr).is_some_and(|q| IDENTIFIERS.contains(&q.as_str())) {
                return Ok(());
            }
            check_expr(&select.operand.expr, scope, uses_old_self)?;
        }
        Expr::Struct(_) => return Err("message construction is not supported".to_owned()),
        Expr::Literal(_) | Expr::Unspecified => {}
        #[allow(unreachable_patterns)]
        _ => {}
    }
    Ok(())
}

/// `a.b.c` as text, when the expression is a chain of selections on an identifier.
fn qualified(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Ident(name) => Some(name.clone()),
        Expr::Select(select) if !select.test => {
            qualified(&select.operand.expr).map(|q| format!("{q}.{}", select.field))
        }
        _ => None,
    }
}

/// A rule that cannot run, found by [`check_rules`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    /// The JSON pointer of the rule in the node (`/properties/spec/x-kubernetes-validations/0`
    /// in document terms: here `/properties/spec/rules/0`).
    pub pointer: String,
    /// The rule's text.
    pub rule: String,
    /// Why it cannot run.
    pub reason: String,
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: rule {}: {}",
            self.pointer,
            super::gofmt::quote(&self.rule),
            self.reason
        )
    }
}

impl std::error::Error for RuleError {}

/// Compiles every rule (and `messageExpression`) of `node` and the nodes inside it, as the
/// API server does when a CRD is created: a rule this evaluator cannot run (a syntax
/// error, an unknown function, variable or macro) is an error naming it. Referenced
/// nodes are checked where they are defined, not through `$ref`.
///
/// # Errors
/// Every rule that cannot run.
pub fn check_rules(node: &Node) -> Result<(), Vec<RuleError>> {
    let mut errors = Vec::new();
    check_node(node, String::new(), &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Compiles one rule text, as [`check_rules`] does for each.
///
/// # Errors
/// Why the rule cannot run.
pub fn check_rule(rule: &str) -> Result<(), String> {
    match &*compile(rule) {
        Ok(_) => Ok(()),
        Err(e) => Err(e.clone()),
    }
}

fn check_node(node: &Node, pointer: String, errors: &mut Vec<RuleError>) {
    for (i, rule) in node.rules.iter().enumerate() {
        if let Err(reason) = check_rule(&rule.rule) {
            errors.push(RuleError {
                pointer: format!("{pointer}/rules/{i}/rule"),
                rule: rule.rule.clone(),
                reason,
            });
        }
        if let Some(m) = &rule.message_expression
            && let Err(reason) = check_rule(m)
        {
            errors.push(RuleError {
                pointer: format!("{pointer}/rules/{i}/messageExpression"),
                rule: m.clone(),
                reason,
            });
        }
    }
    for (name, p) in &node.properties {
        check_node(
            p,
            format!(
                "{pointer}/properties/{}",
                name.replace('~', "~0").replace('/', "~1")
            ),
            errors,
        );
    }
    if let Some(super::Additional::Schema(s)) = node.additional_properties.as_deref() {
        check_node(s, format!("{pointer}/additionalProperties"), errors);
    }
    if let Some(items) = &node.items {
        check_node(items, format!("{pointer}/items"), errors);
    }
    for (word, list) in [
        ("allOf", &node.all_of),
        ("oneOf", &node.one_of),
        ("anyOf", &node.any_of),
    ] {
        for (i, n) in list.iter().enumerate() {
            check_node(n, format!("{pointer}/{word}/{i}"), errors);
        }
    }
    if let Some(not) = &node.not {
        check_node(not, format!("{pointer}/not"), errors);
    }
}

/// Whether the node or a node below it has rules (the API server then runs its CEL
/// validator). `allOf` members count only through the walk, as in apiextensions.
///
/// The walk is over the schema, not a value, so a recursive schema (`$ref` cycles, as in
/// `JSONSchemaProps`) would branch at every level down to `MAX_DEPTH`: each node is
/// walked again only when reached at a smaller depth than before, which bounds the work
/// by the schema's size.
pub(crate) fn has_rules(view: &View<'_>) -> bool {
    has_rules_at(view, 0, &mut HashMap::new())
}

fn has_rules_at(view: &View<'_>, depth: usize, seen: &mut HashMap<*const Node, usize>) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let Some(&(node, _)) = view.layers().first() else {
        return false;
    };
    match seen.get(&std::ptr::from_ref(node)) {
        Some(&before) if before <= depth => return false,
        _ => seen.insert(std::ptr::from_ref(node), depth),
    };
    if view.layers().iter().any(|(n, _)| !n.rules.is_empty()) {
        return true;
    }
    view.items()
        .is_some_and(|i| has_rules_at(&i, depth + 1, seen))
        || matches!(view.additional(), Some(Ok(a)) if has_rules_at(&a, depth + 1, seen))
        || view
            .properties()
            .iter()
            .any(|(_, p)| has_rules_at(p, depth + 1, seen))
}

/// Runs the rules of `view` and below on `value` (`old`: its correlated old value).
///
/// On update, a failed rule that does not read `oldSelf` is not reported where the value
/// equals its correlated old value (ratcheting: by property, by key in map lists, by value
/// in sets; inside atomic lists the nearest correlated ancestor decides).
pub(crate) fn validate(
    view: &View<'_>,
    value: &Value,
    old: Option<&Value>,
    base: &FieldPath,
    errors: &mut Vec<FieldError>,
) {
    let ratchet = Ratchet {
        old,
        unchanged: old.is_some_and(|o| deep_equal(value, o)),
    };
    walk(view, value, old, ratchet, base, errors, 0);
}

/// The ratcheting correlation of a node (`CorrelatedObject`): its old value, and whether
/// it (or, without an old value, its nearest correlated ancestor) is unchanged.
#[derive(Clone, Copy)]
struct Ratchet<'a> {
    old: Option<&'a Value>,
    unchanged: bool,
}

impl<'a> Ratchet<'a> {
    fn child(self, value: &Value, old: Option<&'a Value>) -> Ratchet<'a> {
        match old {
            // Below an unchanged correlated node everything correlated is unchanged.
            Some(o) => Ratchet {
                old: Some(o),
                unchanged: (self.unchanged && self.old.is_some()) || deep_equal(value, o),
            },
            None => Ratchet {
                old: None,
                unchanged: self.unchanged,
            },
        }
    }
}

fn walk(
    view: &View<'_>,
    value: &Value,
    old: Option<&Value>,
    ratchet: Ratchet<'_>,
    path: &FieldPath,
    errors: &mut Vec<FieldError>,
    depth: usize,
) {
    if value.is_null() || depth > MAX_DEPTH {
        return;
    }
    let old = old.filter(|o| !o.is_null());
    // The rules of every layer, the referenced nodes' first.
    for (node, _) in view.layers().iter().rev() {
        run_rules(
            view,
            &node.rules,
            value,
            old,
            ratchet.unchanged,
            path,
            errors,
        );
    }
    // allOf members' rules apply to the same value (not ratcheted, as in the API server).
    for (node, resolve) in view.layers() {
        for member in &node.all_of {
            let plain = Ratchet {
                old: None,
                unchanged: false,
            };
            walk(
                &View::new(member, *resolve),
                value,
                old,
                plain,
                path,
                errors,
                depth + 1,
            );
        }
    }
    match value {
        Value::Array(items) => {
            let Some(item_view) = view.items() else {
                return;
            };
            let keys = view.list_map_keys();
            let old_items = old.and_then(Value::as_array);
            for (i, item) in items.iter().enumerate() {
                // Only map lists correlate their items with old ones (by key) for oldSelf.
                let old_item = match (view.list_type(), old_items) {
                    (Some(ListType::Map), Some(olds)) if !keys.is_empty() => {
                        olds.iter().find(|o| same_key(o, item, keys))
                    }
                    _ => None,
                };
                let r = ratchet.child(item, correlated_item(view, ratchet.old, item));
                walk(
                    &item_view,
                    item,
                    old_item,
                    r,
                    &path.index(i),
                    errors,
                    depth + 1,
                );
            }
        }
        Value::Object(map) => {
            let correlatable = view.layers().iter().all(|(n, _)| {
                matches!(
                    n.map_type,
                    None | Some(ElementType::Granular | ElementType::Atomic)
                )
            });
            let old_map = old.and_then(Value::as_object).filter(|_| correlatable);
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            if let Some(Ok(additional)) = view.additional() {
                for k in &keys {
                    let v = &map[k.as_str()];
                    let r = ratchet.child(v, ratchet.old.and_then(|o| o.get(k.as_str())));
                    let o = old_map.and_then(|m| m.get(k.as_str()));
                    walk(&additional, v, o, r, &path.key(k), errors, depth + 1);
                }
            }
            for k in keys {
                if let Some(prop) = view.property(k) {
                    let v = &map[k.as_str()];
                    let r = ratchet.child(v, ratchet.old.and_then(|o| o.get(k.as_str())));
                    let o = old_map.and_then(|m| m.get(k.as_str()));
                    walk(&prop, v, o, r, &path.child(k), errors, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn same_key(a: &Value, b: &Value, keys: &[String]) -> bool {
    keys.iter().all(|k| a.get(k) == b.get(k))
}

fn run_rules(
    view: &View<'_>,
    rules: &[Rule],
    value: &Value,
    old: Option<&Value>,
    unchanged: bool,
    path: &FieldPath,
    errors: &mut Vec<FieldError>,
) {
    if rules.is_empty() {
        return;
    }
    // The bad value of a failed rule is the schema's type, as the API server prints it.
    let type_name = if view.int_or_string() {
        ""
    } else {
        view.ty().map_or("", |t| t.as_str())
    };
    let invalid =
        |detail: String| FieldError::invalid(path.render(), BadValue::from(type_name), detail);
    let env = match env() {
        Ok(env) => env,
        Err(e) => {
            errors.push(invalid(format!("rule compiler initialization error: {e}")));
            return;
        }
    };
    // Nothing to run: every rule is a transition rule without an old value, or ratcheted.
    let runs = |r: &Rule| match &*compile(&r.rule) {
        Ok(c) if c.uses_old_self => old.is_some() || r.optional_old_self,
        Ok(_) => !unchanged,
        Err(_) => true,
    };
    if !rules.iter().any(runs) {
        return;
    }
    let self_value = values::to_cel(Some(view), value);
    let old_value = old.map(|o| values::to_cel(Some(view), o));
    for rule in rules {
        let compiled = compile(&rule.rule);
        let compiled = match &*compiled {
            Ok(c) => c,
            Err(e) => {
                errors.push(invalid(format!("rule compile error: {e}")));
                continue;
            }
        };
        if compiled.uses_old_self && old.is_none() && !rule.optional_old_self {
            // Transition rules run only where an old value correlates.
            continue;
        }
        let mut ctx = Context::with_env(Arc::clone(env));
        ctx.add_variable_as_val("self", self_value.clone());
        if rule.optional_old_self {
            let opt = match &old_value {
                Some(o) => CelOptional::of(o.clone()),
                None => CelOptional::none(),
            };
            ctx.add_variable_as_val("oldSelf", Box::new(opt));
        } else if let Some(o) = &old_value {
            ctx.add_variable_as_val("oldSelf", o.clone());
        }
        let result = compiled.program.execute(&ctx).map(|v| match v {
            cel::Value::Bool(b) => Some(b),
            _ => None,
        });
        let rule_text = rule_error_string(rule);
        match result {
            Ok(Some(true)) => continue,
            Ok(Some(false)) => {}
            Ok(None) => {
                errors.push(invalid(format!(
                    "rule did not evaluate to a bool evaluating rule: {rule_text}"
                )));
                continue;
            }
            Err(e) => {
                let msg = go_error(&e);
                let detail = if msg.starts_with("no such overload") {
                    format!(
                        "'{msg}': call arguments did not match a supported operator, function or macro signature for rule: {rule_text}"
                    )
                } else {
                    format!("{msg} evaluating rule: {rule_text}")
                };
                errors.push(invalid(detail));
                continue;
            }
        }
        if unchanged && !compiled.uses_old_self {
            // Ratcheted: this part of the value is as it was.
            continue;
        }
        let field = match rule.field_path.as_deref().filter(|p| !p.is_empty()) {
            Some(fp) => field_path(path, fp),
            None => path.clone(),
        };
        let detail = rule
            .message_expression
            .as_deref()
            .and_then(|m| message(env, m, &ctx))
            .unwrap_or_else(|| match rule_message(rule) {
                Some(m) => m.to_owned(),
                None => format!("failed rule: {rule_text}"),
            });
        let error = match rule.reason.as_deref() {
            Some("FieldValueForbidden") => FieldError::forbidden(field.render(), detail),
            Some("FieldValueRequired") => FieldError::required(field.render(), detail),
            Some("FieldValueDuplicate") => {
                FieldError::duplicate(field.render(), BadValue::from(type_name))
            }
            _ => FieldError::new(
                field.render(),
                ErrorType::Invalid,
                BadValue::from(type_name),
                detail,
            ),
        };
        errors.push(error);
    }
}

/// An evaluation error in cel-go's words, which the API server's messages carry
/// (`no such key: x`, `type conversion error from 'string' to 'int'`, …).
fn go_error(e: &cel::ExecutionError) -> String {
    use cel::ExecutionError as E;
    match e {
        E::NoSuchKey(k) => format!("no such key: {k}"),
        E::NoSuchOverload(_) | E::UnsupportedBinaryOperator(..) | E::ValuesNotComparable(..) => {
            "no such overload".to_owned()
        }
        E::DivisionByZero(_) => "division by zero".to_owned(),
        E::RemainderByZero(_) => "modulus by zero".to_owned(),
        E::Overflow(..) => "integer overflow".to_owned(),
        E::IndexOutOfBounds(i) => format!("index out of range: {}", index_text(i)),
        E::FunctionError { function, message } => match function.as_str() {
            "int" | "uint" | "double" | "bool"
                if message.contains("parse") || message.contains("conversion") =>
            {
                format!("type conversion error from 'string' to '{function}'")
            }
            _ => message.clone(),
        },
        E::UndeclaredReference(name) => format!("no such attribute: {name}"),
        other => other.to_string(),
    }
}

fn index_text(v: &cel::Value) -> String {
    match v {
        cel::Value::Int(i) => i.to_string(),
        cel::Value::UInt(u) => u.to_string(),
        other => format!("{other:?}"),
    }
}

/// The rule's `message`, trimmed, unless empty.
fn rule_message(rule: &Rule) -> Option<&str> {
    rule.message
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
}

/// `ruleErrorString`: the message when there is one, else the rule, trimmed.
fn rule_error_string(rule: &Rule) -> String {
    rule_message(rule)
        .unwrap_or_else(|| rule.rule.trim())
        .to_owned()
}

/// The result of a `messageExpression`, when it is a usable message.
fn message(_env: &Arc<Env>, expr: &str, ctx: &Context<'_, '_>) -> Option<String> {
    let compiled = compile(expr);
    let compiled = compiled.as_ref().as_ref().ok()?;
    let cel::Value::String(text) = compiled.program.execute(ctx).ok()? else {
        return None;
    };
    let text = text.trim().to_owned();
    (!text.is_empty() && text.len() <= MAX_MESSAGE_BYTES && !text.contains('\n')).then_some(text)
}

/// A rule's `fieldPath` (`.spec.x`, `['a.b']`) below `base`, as `field.Path` writes it.
fn field_path(base: &FieldPath, text: &str) -> FieldPath {
    let mut path = base.clone();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            path = path.child(&r[..end]);
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix("['") {
            let Some(end) = r.find("']") else { break };
            let key = r[..end].replace("\\'", "'").replace("\\\\", "\\");
            path = path.child(&key);
            rest = &r[end + 2..];
        } else {
            break;
        }
    }
    path
}

#[cfg(test)]
mod tests;
