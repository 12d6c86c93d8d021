//! cel-go's two-variable comprehensions (`ext.TwoVarComprehensions`, in Kubernetes since
//! v1.32): `all(i, v, p)`, `exists(i, v, p)`, `existsOne(i, v, p)`,
//! `transformList(i, v, [filter,] e)`, `transformMap(k, v, [filter,] e)` and
//! `transformMapEntry(k, v, [filter,] e)`. On a list, `i` is the index and `v` the item;
//! on a map, `k` is the key and `v` its value.
//!
//! The `cel` crate's interpreter binds one variable per iteration, so each macro iterates
//! over the indices or keys (`@twovar.keys(t)`) and reads the second variable as `t[i]`:
//! occurrences of `v` in the body are replaced by that index expression (not inside a
//! nested comprehension that binds the same name again).

use std::collections::HashMap;

use cel::common::ast::{
    CallExpr, ComprehensionExpr, Expr, IdedExpr, ListExpr, LiteralValue, operators,
};
use cel::common::types::{self as t, CelInt, CelList, CelMap, CelMapKey};
use cel::common::value::{CowVal, Val};
use cel::parser::{Macro, MacroExprHelper};
use cel::{Env, ExecutionError, ParseError};

const KEYS: &str = "@twovar.keys";
const INSERT: &str = "@twovar.insert";
const MERGE: &str = "@twovar.merge";

#[derive(Clone, Copy)]
enum Kind {
    All,
    Exists,
    ExistsOne,
    TransformList,
    TransformMap,
    TransformMapEntry,
}

/// Registers the macros and the helper functions they expand to.
pub(crate) fn register(env: &mut Env) -> Result<(), String> {
    let macros: [(&str, usize, Kind); 10] = [
        ("all", 3, Kind::All),
        ("exists", 3, Kind::Exists),
        ("existsOne", 3, Kind::ExistsOne),
        ("exists_one", 3, Kind::ExistsOne),
        ("transformList", 3, Kind::TransformList),
        ("transformList", 4, Kind::TransformList),
        ("transformMap", 3, Kind::TransformMap),
        ("transformMap", 4, Kind::TransformMap),
        ("transformMapEntry", 3, Kind::TransformMapEntry),
        ("transformMapEntry", 4, Kind::TransformMapEntry),
    ];
    for (name, arity, kind) in macros {
        env.add_macro(Macro::receiver(name, arity, move |helper, target, args| {
            expand(kind, helper, target, args)
        }))
        .map_err(|e| e.to_string())?;
    }
    env.add_overload(KEYS, "twovar_keys", vec![t::DYN_TYPE.to_owned()], keys)
        .map_err(|e| e.to_string())?;
    env.add_overload(
        INSERT,
        "twovar_insert",
        vec![
            t::MAP_TYPE.to_owned(),
            t::DYN_TYPE.to_owned(),
            t::DYN_TYPE.to_owned(),
        ],
        insert,
    )
    .map_err(|e| e.to_string())?;
    env.add_overload(
        MERGE,
        "twovar_merge",
        vec![t::MAP_TYPE.to_owned(), t::MAP_TYPE.to_owned()],
        merge,
    )
    .map_err(|e| e.to_string())?;
    Ok(())
}

fn ident(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Ident(name) => Some(name.clone()),
        _ => None,
    }
}

fn call(helper: &mut MacroExprHelper<'_>, name: &str, args: Vec<IdedExpr>) -> IdedExpr {
    helper.next_expr(Expr::Call(CallExpr {
        func_name: name.to_owned(),
        target: None,
        args,
    }))
}

#[allow(clippy::too_many_lines)] // one comprehension shape per macro
fn expand(
    kind: Kind,
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut [IdedExpr],
) -> Result<Option<IdedExpr>, ParseError> {
    let (Some(target), Some(i), Some(v)) = (
        target.take(),
        args.first().and_then(ident),
        args.get(1).and_then(ident),
    ) else {
        // Not two identifiers: left as the call it is (and refused as unknown).
        return Ok(None);
    };
    if i == v {
        return Err(helper.new_error(args[1].id, format!("duplicate variable name: {v}")));
    }
    // `v` is `target[i]`.
    let index = {
        let i_expr = helper.next_expr(Expr::Ident(i.clone()));
        call(helper, operators::INDEX, vec![target.clone(), i_expr])
    };
    let body: Vec<IdedExpr> = args[2..]
        .iter()
        .map(|e| substitute(e, &v, &index))
        .collect();
    let range = call(helper, KEYS, vec![target]);
    let result = "@result".to_owned();
    let accu =
        |helper: &mut MacroExprHelper<'_>| helper.next_expr(Expr::Ident("@result".to_owned()));
    let literal =
        |helper: &mut MacroExprHelper<'_>, l: LiteralValue| helper.next_expr(Expr::Literal(l));
    let (init, cond, step, result_expr) = match kind {
        Kind::All | Kind::Exists => {
            let all = matches!(kind, Kind::All);
            let init = literal(helper, LiteralValue::Boolean(all.into()));
            let a = accu(helper);
            let cond_arg = if all {
                a
            } else {
                call(helper, operators::LOGICAL_NOT, vec![a])
            };
            let cond = call(helper, operators::NOT_STRICTLY_FALSE, vec![cond_arg]);
            let a = accu(helper);
            let op = if all {
                operators::LOGICAL_AND
            } else {
                operators::LOGICAL_OR
            };
            let step = call(helper, op, vec![a, body[0].clone()]);
            (init, cond, step, accu(helper))
        }
        Kind::ExistsOne => {
            let init = literal(helper, LiteralValue::Int(CelInt::from(0)));
            let cond = literal(helper, LiteralValue::Boolean(true.into()));
            let a = accu(helper);
            let one = literal(helper, LiteralValue::Int(CelInt::from(1)));
            let plus = call(helper, operators::ADD, vec![a, one]);
            let a = accu(helper);
            let step = call(
                helper,
                operators::CONDITIONAL,
                vec![body[0].clone(), plus, a],
            );
            let a = accu(helper);
            let one = literal(helper, LiteralValue::Int(CelInt::from(1)));
            let result = call(helper, operators::EQUALS, vec![a, one]);
            (init, cond, step, result)
        }
        Kind::TransformList | Kind::TransformMap | Kind::TransformMapEntry => {
            let init = match kind {
                Kind::TransformList => helper.next_expr(Expr::List(ListExpr::new(Vec::new()))),
                _ => helper.next_expr(Expr::Map(cel::common::ast::MapExpr::default())),
            };
            let cond = literal(helper, LiteralValue::Boolean(true.into()));
            let value = body.last().cloned().unwrap_or_default();
            let a = accu(helper);
            let add = match kind {
                Kind::TransformList => {
                    let item = helper.next_expr(Expr::List(ListExpr::new(vec![value])));
                    call(helper, operators::ADD, vec![a, item])
                }
                Kind::TransformMap => {
                    let key = helper.next_expr(Expr::Ident(i.clone()));
                    call(helper, INSERT, vec![a, key, value])
                }
                _ => call(helper, MERGE, vec![a, value]),
            };
            let step = if body.len() == 2 {
                let a = accu(helper);
                call(
                    helper,
                    operators::CONDITIONAL,
                    vec![body[0].clone(), add, a],
                )
            } else {
                add
            };
            (init, cond, step, accu(helper))
        }
    };
    Ok(Some(helper.next_expr(Expr::Comprehension(Box::new(
        ComprehensionExpr {
            iter_range: range,
            iter_var: i,
            iter_var2: None,
            accu_var: result,
            accu_init: init,
            loop_cond: cond,
            loop_step: step,
            result: result_expr,
        },
    )))))
}

/// `e` with the identifier `name` replaced by `with`, except where a nested
/// comprehension binds `name` again.
fn substitute(e: &IdedExpr, name: &str, with: &IdedExpr) -> IdedExpr {
    let sub = |x: &IdedExpr| substitute(x, name, with);
    let expr = match &e.expr {
        Expr::Ident(n) if n == name => return with.clone(),
        Expr::Call(c) => Expr::Call(CallExpr {
            func_name: c.func_name.clone(),
            target: c.target.as_ref().map(|t| Box::new(sub(t))),
            args: c.args.iter().map(sub).collect(),
        }),
        Expr::Comprehension(c) => {
            let rebinds =
                c.iter_var == name || c.accu_var == name || c.iter_var2.as_deref() == Some(name);
            let inner = |x: &IdedExpr| if rebinds { x.clone() } else { sub(x) };
            Expr::Comprehension(Box::new(ComprehensionExpr {
                iter_range: sub(&c.iter_range),
                iter_var: c.iter_var.clone(),
                iter_var2: c.iter_var2.clone(),
                accu_var: c.accu_var.clone(),
                accu_init: sub(&c.accu_init),
                loop_cond: inner(&c.loop_cond),
                loop_step: inner(&c.loop_step),
                result: inner(&c.result),
            }))
        }
        Expr::List(l) => Expr::List(ListExpr::new_with_optionals(
            l.elements.iter().map(sub).collect(),
            l.optional_indices.clone(),
        )),
        Expr::Map(m) => {
            let mut m = m.clone();
            for entry in &mut m.entries {
                if let cel::common::ast::EntryExpr::MapEntry(me) = &mut entry.expr {
                    me.key = sub(&me.key);
                    me.value = sub(&me.value);
                }
            }
            Expr::Map(m)
        }
        Expr::Select(s) => {
            let mut s = s.clone();
            s.operand = Box::new(sub(&s.operand));
            Expr::Select(s)
        }
        other => other.clone(),
    };
    IdedExpr { id: e.id, expr }
}

fn err(message: &str) -> ExecutionError {
    ExecutionError::function_error("comprehension", message)
}

/// The keys of a map, or the indices of a list.
fn keys<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let target = args.first().ok_or_else(|| err("missing target"))?;
    if let Some(map) = target.downcast_ref::<CelMap<'_>>() {
        let keys: Vec<Box<dyn Val + 'v>> = map
            .inner()
            .keys()
            .map(|k| -> Box<dyn Val + 'v> {
                match k.clone() {
                    CelMapKey::Bool(b) => Box::new(b),
                    CelMapKey::Int(i) => Box::new(i),
                    CelMapKey::String(s) => Box::new(s),
                    CelMapKey::UInt(u) => Box::new(u),
                }
            })
            .collect();
        return Ok(CowVal::owned(CelList::from(keys)));
    }
    if let Some(list) = target.downcast_ref::<CelList<'_>>() {
        let n = i64::try_from(list.inner().len()).unwrap_or(i64::MAX);
        let indices: Vec<Box<dyn Val + 'v>> = (0..n)
            .map(|i| Box::new(CelInt::from(i)) as Box<dyn Val + 'v>)
            .collect();
        return Ok(CowVal::owned(CelList::from(indices)));
    }
    Err(ExecutionError::no_such_overload(
        "all",
        vec![target.get_type().name().to_owned()],
    ))
}

fn map_entries<'v>(
    v: &CowVal<'_, 'v>,
) -> Result<HashMap<CelMapKey<'v>, Box<dyn Val + 'v>>, ExecutionError> {
    let map = v
        .downcast_ref::<CelMap<'v>>()
        .ok_or_else(|| err("expected a map"))?;
    Ok(map
        .inner()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone_as_boxed()))
        .collect())
}

/// `m` with `k: v` added (cel-go's `@mapInsert`); a key already there is an error.
fn insert<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [map, key, value] =
        <[CowVal<'b, 'v>; 3]>::try_from(args).map_err(|_| err("three arguments"))?;
    let mut entries = map_entries(&map)?;
    let key = CelMapKey::try_from(key)?;
    if entries.contains_key(&key) {
        return Err(err(&format!("insert failed: key {key:?} already exists")));
    }
    entries.insert(key, value.clone_as_boxed());
    Ok(CowVal::owned(CelMap::from(entries)))
}

/// `a` with the entries of `b` added; a key of both is an error.
fn merge<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [a, b] = <[CowVal<'b, 'v>; 2]>::try_from(args).map_err(|_| err("two arguments"))?;
    let mut entries = map_entries(&a)?;
    for (k, v) in map_entries(&b)? {
        if entries.contains_key(&k) {
            return Err(err(&format!("insert failed: key {k:?} already exists")));
        }
        entries.insert(k, v);
    }
    Ok(CowVal::owned(CelMap::from(entries)))
}
