//! The Kubernetes CEL libraries (apiserver's `pkg/cel/library`) on the `cel` crate: regex
//! (`matches` with Go's RE2 semantics, `find`, `findAll`), lists (`isSorted`, `sum`,
//! `min`, `max`, `indexOf`, `lastIndexOf`), URLs, quantities, IP addresses and CIDRs,
//! named formats, sets, and the `duration`/`timestamp` functions.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::net::IpAddr;

use cel::common::types::{
    self as t, CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelOptional, CelString,
};
use cel::common::value::{CowVal, Val};
use cel::{Env, ExecutionError};

use super::values::{
    CIDR, CelQuantity, CelSemver, Cidr, DURATION, Duration, FORMAT, Format, IP, Ip, QUANTITY,
    SEMVER, TIMESTAMP, Timestamp, URL, Url, duration, duration_text, parse_timestamp,
    timestamp_text,
};
use crate::Quantity;
use crate::schema::gourl;
use crate::schema::names;
use crate::schema::{formats, pattern};

type Out<'b, 'v> = Result<CowVal<'b, 'v>, ExecutionError>;

fn err(function: &str, message: impl ToString) -> ExecutionError {
    ExecutionError::function_error(function, message)
}

fn s<'a>(args: &'a [CowVal<'_, '_>], i: usize) -> Result<&'a str, ExecutionError> {
    args.get(i)
        .and_then(|v| <&str>::try_from(&**v).ok())
        .ok_or_else(|| err("argument", "expected a string"))
}

fn int(args: &[CowVal<'_, '_>], i: usize) -> Result<i64, ExecutionError> {
    args.get(i)
        .and_then(|v| <&i64>::try_from(&**v).ok().copied())
        .ok_or_else(|| err("argument", "expected an int"))
}

fn get<'a, T: cel::common::value::StaticVal>(
    args: &'a [CowVal<'_, '_>],
    i: usize,
) -> Result<&'a T, ExecutionError> {
    args.get(i)
        .and_then(|v| v.as_any().and_then(|a| a.downcast_ref::<T>()))
        .ok_or_else(|| err("argument", "unexpected argument type"))
}

fn boolean<'b, 'v>(b: bool) -> Out<'b, 'v> {
    Ok(CowVal::owned(CelBool::from(b)))
}

fn string<'b, 'v>(s: String) -> Out<'b, 'v> {
    Ok(CowVal::owned(CelString::from(s)))
}

fn integer<'b, 'v>(i: i64) -> Out<'b, 'v> {
    Ok(CowVal::owned(CelInt::from(i)))
}

fn list_items<'a, 'v>(
    args: &'a [CowVal<'_, 'v>],
    i: usize,
) -> Result<&'a [Box<dyn Val + 'v>], ExecutionError> {
    args.get(i)
        .and_then(|v| <&[Box<dyn Val + 'v>]>::try_from(&**v).ok())
        .ok_or_else(|| err("argument", "expected a list"))
}

/// Every function name the libraries add, for the load-time check of rules.
pub(crate) const NAMES: &[&str] = &[
    "matches",
    "find",
    "findAll",
    "isSorted",
    "sum",
    "min",
    "max",
    "indexOf",
    "lastIndexOf",
    "url",
    "isURL",
    "getScheme",
    "getHost",
    "getHostname",
    "getPort",
    "getEscapedPath",
    "getQuery",
    "quantity",
    "isQuantity",
    "sign",
    "isGreaterThan",
    "isLessThan",
    "compareTo",
    "asApproximateFloat",
    "asInteger",
    "isInteger",
    "add",
    "sub",
    "ip",
    "isIP",
    "ip.isCanonical",
    "family",
    "isUnspecified",
    "isLoopback",
    "isLinkLocalMulticast",
    "isLinkLocalUnicast",
    "isGlobalUnicast",
    "cidr",
    "isCIDR",
    "containsIP",
    "containsCIDR",
    "prefixLength",
    "masked",
    "format.named",
    "validate",
    "sets.contains",
    "sets.equivalent",
    "sets.intersects",
    "duration",
    "timestamp",
    "string",
    "int",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getMilliseconds",
    "getFullYear",
    "getMonth",
    "getDate",
    "getDayOfMonth",
    "getDayOfWeek",
    "getDayOfYear",
    "semver",
    "isSemver",
    "major",
    "minor",
    "patch",
];

/// The named formats of `format.named()` and their `format.<name>()` functions.
const FORMATS: &[&str] = &[
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
];

macro_rules! reg {
    ($env:expr, global $name:expr, [$($ty:expr),*], $f:expr) => {
        $env.add_overload($name, &format!("{}_{}", $name, line!()), vec![$($ty.to_owned()),*], $f)
            .map_err(|e| e.to_string())?
    };
    ($env:expr, member $name:expr, $this:expr, [$($ty:expr),*], $f:expr) => {
        $env.add_member_overload($name, &format!("m_{}_{}", $name, line!()), $this.to_owned(), vec![$($ty.to_owned()),*], $f)
            .map_err(|e| e.to_string())?
    };
}

/// Registers the libraries on `env`.
#[allow(clippy::too_many_lines)] // one registration per line, as the libraries list them
pub(crate) fn register(env: &mut Env) -> Result<(), String> {
    for ty in [
        &DURATION, &TIMESTAMP, &QUANTITY, &URL, &IP, &CIDR, &FORMAT, &SEMVER,
    ] {
        env.add_type(ty.to_owned()).map_err(|e| e.to_string())?;
    }
    // regex
    reg!(env, member "matches", t::STRING_TYPE, [t::STRING_TYPE], |a| boolean(regex(&a, 1)?.is_match(s(&a, 0)?)));
    reg!(env, global "matches", [t::STRING_TYPE, t::STRING_TYPE], |a| boolean(regex(&a, 1)?.is_match(s(&a, 0)?)));
    reg!(env, member "find", t::STRING_TYPE, [t::STRING_TYPE], |a| {
        string(regex(&a, 1)?.find(s(&a, 0)?).map(|m| m.as_str().to_owned()).unwrap_or_default())
    });
    reg!(env, member "findAll", t::STRING_TYPE, [t::STRING_TYPE], |a| find_all(&a, -1));
    reg!(env, member "findAll", t::STRING_TYPE, [t::STRING_TYPE, t::INT_TYPE], |a| { let n = int(&a, 2)?; find_all(&a, n) });
    // lists
    reg!(env, member "isSorted", t::LIST_TYPE, [], |a| {
        let items = list_items(&a, 0)?;
        for w in items.windows(2) {
            if compare(&*w[0], &*w[1])? == Ordering::Greater {
                return boolean(false);
            }
        }
        boolean(true)
    });
    reg!(env, member "sum", t::LIST_TYPE, [], |a| {
        let items = list_items(&a, 0)?;
        let Some((first, rest)) = items.split_first() else {
            return integer(0);
        };
        let mut acc: Box<dyn Val> = first.clone_as_boxed();
        for item in rest {
            let adder = acc.as_adder().ok_or_else(|| err("sum", "no such overload"))?;
            let next = adder.add(&**item)?.into_owned();
            acc = next;
        }
        Ok(CowVal::Owned(acc))
    });
    reg!(env, member "min", t::LIST_TYPE, [], |a| extreme(&a, "min", Ordering::Less));
    reg!(env, member "max", t::LIST_TYPE, [], |a| extreme(&a, "max", Ordering::Greater));
    reg!(env, member "indexOf", t::LIST_TYPE, [t::DYN_TYPE], |a| {
        let items = list_items(&a, 0)?;
        integer(items.iter().position(|x| x.equals(&*a[1])).map_or(-1, |i| i64::try_from(i).unwrap_or(-1)))
    });
    reg!(env, member "lastIndexOf", t::LIST_TYPE, [t::DYN_TYPE], |a| {
        let items = list_items(&a, 0)?;
        integer(items.iter().rposition(|x| x.equals(&*a[1])).map_or(-1, |i| i64::try_from(i).unwrap_or(-1)))
    });
    // URLs
    reg!(env, global "url", [t::STRING_TYPE], |a| {
        let text = s(&a, 0)?;
        gourl::parse_request_uri(text).map_err(|e| err("url", format!("URL parse error during conversion from string: {e}")))?;
        let u = gourl::parse_url(text).map_err(|e| err("url", format!("URL parse error during conversion from string: {e}")))?;
        Ok(CowVal::owned(Url(u)))
    });
    reg!(env, global "isURL", [t::STRING_TYPE], |a| boolean(gourl::parse_request_uri(s(&a, 0)?).is_ok()));
    reg!(env, member "getScheme", URL, [], |a| string(get::<Url>(&a, 0)?.0.scheme.clone()));
    reg!(env, member "getHost", URL, [], |a| string(get::<Url>(&a, 0)?.0.host.clone()));
    reg!(env, member "getHostname", URL, [], |a| string(get::<Url>(&a, 0)?.0.hostname().to_owned()));
    reg!(env, member "getPort", URL, [], |a| string(get::<Url>(&a, 0)?.0.port().to_owned()));
    reg!(env, member "getEscapedPath", URL, [], |a| string(get::<Url>(&a, 0)?.0.escaped_path()));
    reg!(env, member "getQuery", URL, [], |a| {
        let query = get::<Url>(&a, 0)?.0.query();
        let map: HashMap<CelMapKey<'static>, Box<dyn Val>> = query
            .into_iter()
            .map(|(k, vs)| {
                let list: Vec<Box<dyn Val>> = vs.into_iter().map(|v| Box::new(CelString::from(v)) as Box<dyn Val>).collect();
                (CelMapKey::from(k), Box::new(CelList::from(list)) as Box<dyn Val>)
            })
            .collect();
        Ok(CowVal::owned(CelMap::from(map)))
    });
    // quantities
    reg!(env, global "quantity", [t::STRING_TYPE], |a| {
        let q = Quantity::parse(s(&a, 0)?).map_err(|e| err("quantity", e))?;
        Ok(CowVal::owned(CelQuantity(q)))
    });
    reg!(env, global "isQuantity", [t::STRING_TYPE], |a| boolean(Quantity::parse(s(&a, 0)?).is_ok()));
    reg!(env, global "sign", [QUANTITY], |a| integer(i64::from(get::<CelQuantity>(&a, 0)?.0.signum().unwrap_or(0))));
    reg!(env, member "sign", QUANTITY, [], |a| integer(i64::from(get::<CelQuantity>(&a, 0)?.0.signum().unwrap_or(0))));
    reg!(env, member "isGreaterThan", QUANTITY, [QUANTITY], |a| boolean(qcmp(&a)? == Ordering::Greater));
    reg!(env, member "isLessThan", QUANTITY, [QUANTITY], |a| boolean(qcmp(&a)? == Ordering::Less));
    reg!(env, member "compareTo", QUANTITY, [QUANTITY], |a| integer(match qcmp(&a)? {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }));
    reg!(env, member "asApproximateFloat", QUANTITY, [], |a| {
        Ok(CowVal::owned(CelDouble::from(get::<CelQuantity>(&a, 0)?.0.to_f64().unwrap_or(f64::NAN))))
    });
    reg!(env, member "asInteger", QUANTITY, [], |a| {
        get::<CelQuantity>(&a, 0)?.0.to_i64().map_or_else(|| Err(err("asInteger", "cannot convert value to integer")), integer)
    });
    reg!(env, member "isInteger", QUANTITY, [], |a| boolean(get::<CelQuantity>(&a, 0)?.0.to_i64().is_some()));
    reg!(env, member "add", QUANTITY, [QUANTITY], |a| qarith(&a, true));
    reg!(env, member "add", QUANTITY, [t::INT_TYPE], |a| qarith(&a, true));
    reg!(env, member "sub", QUANTITY, [QUANTITY], |a| qarith(&a, false));
    reg!(env, member "sub", QUANTITY, [t::INT_TYPE], |a| qarith(&a, false));
    // IP addresses
    reg!(env, global "ip", [t::STRING_TYPE], |a| Ok(CowVal::owned(Ip(parse_ip(s(&a, 0)?).map_err(|e| err("ip", e))?))));
    reg!(env, global "isIP", [t::STRING_TYPE], |a| boolean(parse_ip(s(&a, 0)?).is_ok()));
    reg!(env, global "ip.isCanonical", [t::STRING_TYPE], |a| {
        let text = s(&a, 0)?;
        let addr = parse_ip(text).map_err(|e| err("ip.isCanonical", e))?;
        boolean(addr.to_string() == text)
    });
    reg!(env, global "string", [IP], |a| string(get::<Ip>(&a, 0)?.0.to_string()));
    reg!(env, member "family", IP, [], |a| integer(if get::<Ip>(&a, 0)?.0.is_ipv4() { 4 } else { 6 }));
    reg!(env, member "isUnspecified", IP, [], |a| boolean(get::<Ip>(&a, 0)?.0.is_unspecified()));
    reg!(env, member "isLoopback", IP, [], |a| boolean(get::<Ip>(&a, 0)?.0.is_loopback()));
    reg!(env, member "isLinkLocalMulticast", IP, [], |a| boolean(match get::<Ip>(&a, 0)?.0 {
        IpAddr::V4(v) => v.octets()[..3] == [224, 0, 0],
        IpAddr::V6(v) => v.segments()[0] & 0xff0f == 0xff02,
    }));
    reg!(env, member "isLinkLocalUnicast", IP, [], |a| boolean(match get::<Ip>(&a, 0)?.0 {
        IpAddr::V4(v) => v.is_link_local(),
        IpAddr::V6(v) => v.segments()[0] & 0xffc0 == 0xfe80,
    }));
    reg!(env, member "isGlobalUnicast", IP, [], |a| boolean(is_global_unicast(get::<Ip>(&a, 0)?.0)));
    // CIDRs
    reg!(env, global "cidr", [t::STRING_TYPE], |a| {
        let (ip, bits) = parse_cidr(s(&a, 0)?).map_err(|e| err("cidr", format!("network address parse error during conversion from string: {e}")))?;
        Ok(CowVal::owned(Cidr(ip, bits)))
    });
    reg!(env, global "isCIDR", [t::STRING_TYPE], |a| boolean(parse_cidr(s(&a, 0)?).is_ok()));
    reg!(env, global "string", [CIDR], |a| { let c = get::<Cidr>(&a, 0)?; string(format!("{}/{}", c.0, c.1)) });
    reg!(env, member "containsIP", CIDR, [t::STRING_TYPE], |a| {
        let ip = parse_ip(s(&a, 1)?).map_err(|e| err("containsIP", e))?;
        boolean(contains(get::<Cidr>(&a, 0)?, ip, None))
    });
    reg!(env, member "containsIP", CIDR, [IP], |a| boolean(contains(get::<Cidr>(&a, 0)?, get::<Ip>(&a, 1)?.0, None)));
    reg!(env, member "containsCIDR", CIDR, [t::STRING_TYPE], |a| {
        let (ip, bits) = parse_cidr(s(&a, 1)?).map_err(|e| err("containsCIDR", e))?;
        boolean(contains(get::<Cidr>(&a, 0)?, ip, Some(bits)))
    });
    reg!(env, member "containsCIDR", CIDR, [CIDR], |a| { let o = get::<Cidr>(&a, 1)?; boolean(contains(get::<Cidr>(&a, 0)?, o.0, Some(o.1))) });
    reg!(env, member "ip", CIDR, [], |a| Ok(CowVal::owned(Ip(get::<Cidr>(&a, 0)?.0))));
    reg!(env, member "prefixLength", CIDR, [], |a| integer(i64::from(get::<Cidr>(&a, 0)?.1)));
    reg!(env, member "masked", CIDR, [], |a| { let c = get::<Cidr>(&a, 0)?; Ok(CowVal::owned(Cidr(mask(c.0, c.1), c.1))) });
    // named formats
    reg!(env, global "format.named", [t::STRING_TYPE], |a| {
        let name = s(&a, 0)?;
        Ok(CowVal::owned(match FORMATS.iter().find(|f| **f == name) {
            Some(f) => CelOptional::of(Box::new(Format(f))),
            None => CelOptional::none(),
        }))
    });
    for name in FORMATS {
        let f: cel::common::functions::Function = match *name {
            "dns1123Label" => |_| Ok(CowVal::owned(Format("dns1123Label"))),
            "dns1123Subdomain" => |_| Ok(CowVal::owned(Format("dns1123Subdomain"))),
            "dns1035Label" => |_| Ok(CowVal::owned(Format("dns1035Label"))),
            "qualifiedName" => |_| Ok(CowVal::owned(Format("qualifiedName"))),
            "dns1123LabelPrefix" => |_| Ok(CowVal::owned(Format("dns1123LabelPrefix"))),
            "dns1123SubdomainPrefix" => |_| Ok(CowVal::owned(Format("dns1123SubdomainPrefix"))),
            "dns1035LabelPrefix" => |_| Ok(CowVal::owned(Format("dns1035LabelPrefix"))),
            "labelValue" => |_| Ok(CowVal::owned(Format("labelValue"))),
            "uri" => |_| Ok(CowVal::owned(Format("uri"))),
            "uuid" => |_| Ok(CowVal::owned(Format("uuid"))),
            "byte" => |_| Ok(CowVal::owned(Format("byte"))),
            "date" => |_| Ok(CowVal::owned(Format("date"))),
            _ => |_| Ok(CowVal::owned(Format("datetime"))),
        };
        env.add_overload(
            &format!("format.{name}"),
            &format!("format_{name}"),
            vec![],
            f,
        )
        .map_err(|e| e.to_string())?;
    }
    reg!(env, member "validate", FORMAT, [t::STRING_TYPE], |a| {
        let errors = check_format(get::<Format>(&a, 0)?.0, s(&a, 1)?);
        Ok(CowVal::owned(if errors.is_empty() {
            CelOptional::none()
        } else {
            let list: Vec<Box<dyn Val>> = errors.into_iter().map(|e| Box::new(CelString::from(e)) as Box<dyn Val>).collect();
            CelOptional::of(Box::new(CelList::from(list)))
        }))
    });
    // sets
    reg!(env, global "sets.contains", [t::LIST_TYPE, t::LIST_TYPE], |a| {
        let (x, y) = (list_items(&a, 0)?, list_items(&a, 1)?);
        boolean(y.iter().all(|e| x.iter().any(|f| f.equals(&**e))))
    });
    reg!(env, global "sets.equivalent", [t::LIST_TYPE, t::LIST_TYPE], |a| {
        let (x, y) = (list_items(&a, 0)?, list_items(&a, 1)?);
        boolean(y.iter().all(|e| x.iter().any(|f| f.equals(&**e))) && x.iter().all(|e| y.iter().any(|f| f.equals(&**e))))
    });
    reg!(env, global "sets.intersects", [t::LIST_TYPE, t::LIST_TYPE], |a| {
        let (x, y) = (list_items(&a, 0)?, list_items(&a, 1)?);
        boolean(y.iter().any(|e| x.iter().any(|f| f.equals(&**e))))
    });
    // semantic versions
    reg!(env, global "semver", [t::STRING_TYPE], |a| semver_of(&a, false));
    reg!(env, global "semver", [t::STRING_TYPE, t::BOOL_TYPE], |a| { let n = flag(&a, 1)?; semver_of(&a, n) });
    reg!(env, global "isSemver", [t::STRING_TYPE], |a| boolean(super::semver::parse(s(&a, 0)?).is_ok()));
    reg!(env, global "isSemver", [t::STRING_TYPE, t::BOOL_TYPE], |a| {
        let text = s(&a, 0)?;
        boolean(if flag(&a, 1)? { super::semver::parse_normalized(text).is_ok() } else { super::semver::parse(text).is_ok() })
    });
    reg!(env, member "major", SEMVER, [], |a| integer(i64::try_from(get::<CelSemver>(&a, 0)?.0.major).unwrap_or(i64::MAX)));
    reg!(env, member "minor", SEMVER, [], |a| integer(i64::try_from(get::<CelSemver>(&a, 0)?.0.minor).unwrap_or(i64::MAX)));
    reg!(env, member "patch", SEMVER, [], |a| integer(i64::try_from(get::<CelSemver>(&a, 0)?.0.patch).unwrap_or(i64::MAX)));
    reg!(env, member "isGreaterThan", SEMVER, [SEMVER], |a| boolean(get::<CelSemver>(&a, 0)?.0 > get::<CelSemver>(&a, 1)?.0));
    reg!(env, member "isLessThan", SEMVER, [SEMVER], |a| boolean(get::<CelSemver>(&a, 0)?.0 < get::<CelSemver>(&a, 1)?.0));
    reg!(env, member "compareTo", SEMVER, [SEMVER], |a| integer(match get::<CelSemver>(&a, 0)?.0.cmp(&get::<CelSemver>(&a, 1)?.0) {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }));
    // durations and timestamps
    reg!(env, global "duration", [t::STRING_TYPE], |a| {
        let text = s(&a, 0)?;
        let n = crate::duration::parse(text).map_err(|e| err("duration", e))?;
        Ok(CowVal::owned(duration(i128::from(n))?))
    });
    reg!(env, global "duration", [DURATION], |a| Ok(CowVal::owned(*get::<Duration>(&a, 0)?)));
    reg!(env, global "timestamp", [t::STRING_TYPE], |a| {
        let text = s(&a, 0)?;
        Ok(CowVal::owned(parse_timestamp(text).ok_or_else(|| err("timestamp", format!("cannot parse {}", crate::schema::gofmt::quote(text))))?))
    });
    reg!(env, global "timestamp", [TIMESTAMP], |a| Ok(CowVal::owned(*get::<Timestamp>(&a, 0)?)));
    reg!(env, global "timestamp", [t::INT_TYPE], |a| Ok(CowVal::owned(super::values::timestamp(i128::from(int(&a, 0)?) * 1_000_000_000)?)));
    reg!(env, global "string", [DURATION], |a| string(duration_text(get::<Duration>(&a, 0)?)));
    reg!(env, global "string", [TIMESTAMP], |a| string(timestamp_text(get::<Timestamp>(&a, 0)?)));
    reg!(env, global "int", [TIMESTAMP], |a| integer(i64::try_from(get::<Timestamp>(&a, 0)?.0.div_euclid(1_000_000_000)).unwrap_or(0)));
    reg!(env, global "int", [DURATION], |a| integer(i64::try_from(get::<Duration>(&a, 0)?.0).unwrap_or(0)));
    reg!(env, member "getHours", DURATION, [], |a| dur_part(&a, 3_600_000_000_000));
    reg!(env, member "getMinutes", DURATION, [], |a| dur_part(&a, 60_000_000_000));
    reg!(env, member "getSeconds", DURATION, [], |a| dur_part(&a, 1_000_000_000));
    reg!(env, member "getMilliseconds", DURATION, [], |a| {
        let d = get::<Duration>(&a, 0)?.0;
        integer(i64::try_from((d % 1_000_000_000) / 1_000_000).unwrap_or(0))
    });
    reg!(env, member "getFullYear", TIMESTAMP, [], |a| ts_part(&a, |z| i64::from(z.year())));
    reg!(env, member "getMonth", TIMESTAMP, [], |a| ts_part(&a, |z| i64::from(z.month()) - 1));
    reg!(env, member "getDate", TIMESTAMP, [], |a| ts_part(&a, |z| i64::from(z.day())));
    reg!(env, member "getDayOfMonth", TIMESTAMP, [], |a| ts_part(&a, |z| i64::from(z.day()) - 1));
    reg!(env, member "getDayOfWeek", TIMESTAMP, [], |a| ts_part(&a, |z| i64::from(z.weekday().to_sunday_zero_offset())));
    reg!(env, member "getDayOfYear", TIMESTAMP, [], |a| ts_part(&a, |z| i64::from(z.day_of_year()) - 1));
    reg!(env, member "getHours", TIMESTAMP, [], |a| ts_part(&a, |z| i64::from(z.hour())));
    reg!(env, member "getMinutes", TIMESTAMP, [], |a| ts_part(&a, |z| i64::from(z.minute())));
    reg!(env, member "getSeconds", TIMESTAMP, [], |a| ts_part(&a, |z| i64::from(z.second())));
    reg!(env, member "getMilliseconds", TIMESTAMP, [], |a| ts_part(&a, |z| i64::from(z.millisecond())));
    Ok(())
}

fn flag(args: &[CowVal<'_, '_>], i: usize) -> Result<bool, ExecutionError> {
    args.get(i)
        .and_then(|v| v.downcast_ref::<CelBool>().map(|b| *b.inner()))
        .ok_or_else(|| err("argument", "expected a bool"))
}

fn semver_of<'b, 'v>(a: &[CowVal<'_, '_>], normalize: bool) -> Out<'b, 'v> {
    let text = s(a, 0)?;
    let parsed = if normalize {
        super::semver::parse_normalized(text)
    } else {
        super::semver::parse(text)
    };
    parsed.map(|v| CowVal::owned(CelSemver(v))).map_err(|e| {
        err(
            "semver",
            format!("Semver parse error during conversion from string: {e}"),
        )
    })
}

fn dur_part<'b, 'v>(a: &[CowVal<'_, '_>], unit: i128) -> Out<'b, 'v> {
    integer(i64::try_from(get::<Duration>(a, 0)?.0 / unit).unwrap_or(0))
}

fn ts_part<'b, 'v>(a: &[CowVal<'_, '_>], f: impl Fn(&jiff::civil::DateTime) -> i64) -> Out<'b, 'v> {
    let t = get::<Timestamp>(a, 0)?.0;
    let secs = i64::try_from(t.div_euclid(1_000_000_000)).unwrap_or(0);
    let nanos = i32::try_from(t.rem_euclid(1_000_000_000)).unwrap_or(0);
    let ts = jiff::Timestamp::new(secs, nanos).map_err(|e| err("timestamp", e))?;
    let dt = ts.to_zoned(jiff::tz::TimeZone::UTC).datetime();
    integer(f(&dt))
}

fn regex(a: &[CowVal<'_, '_>], i: usize) -> Result<std::sync::Arc<regex::Regex>, ExecutionError> {
    let p = s(a, i)?;
    pattern::compile(p).map_err(|e| err("matches", format!("error parsing regexp: {e}")))
}

fn find_all<'b, 'v>(a: &[CowVal<'_, '_>], n: i64) -> Out<'b, 'v> {
    let re = regex(a, 1)?;
    let text = s(a, 0)?;
    let limit = usize::try_from(n).unwrap_or(usize::MAX);
    let found: Vec<Box<dyn Val>> = re
        .find_iter(text)
        .take(limit)
        .map(|m| Box::new(CelString::from(m.as_str().to_owned())) as Box<dyn Val>)
        .collect();
    Ok(CowVal::owned(CelList::from(found)))
}

fn compare(a: &dyn Val, b: &dyn Val) -> Result<Ordering, ExecutionError> {
    a.as_comparer()
        .ok_or_else(|| err("compare", "no such overload"))?
        .compare(b)
}

fn extreme<'b, 'v>(a: &[CowVal<'b, 'v>], name: &str, prefer: Ordering) -> Out<'b, 'v> {
    let items = list_items(a, 0)?;
    let mut best: Option<&Box<dyn Val + 'v>> = None;
    for item in items {
        best = match best {
            None => Some(item),
            Some(b) if compare(&**item, &**b)? == prefer => Some(item),
            keep => keep,
        };
    }
    best.map(|b| CowVal::Owned(b.clone_as_boxed()))
        .ok_or_else(|| err(name, format!("{name} called on empty list")))
}

fn qcmp(a: &[CowVal<'_, '_>]) -> Result<Ordering, ExecutionError> {
    let (x, y) = (&get::<CelQuantity>(a, 0)?.0, &get::<CelQuantity>(a, 1)?.0);
    x.cmp_value(y)
        .ok_or_else(|| err("compareTo", "invalid quantity"))
}

fn qarith<'b, 'v>(a: &[CowVal<'_, '_>], add: bool) -> Out<'b, 'v> {
    let x = &get::<CelQuantity>(a, 0)?.0;
    let y = match get::<CelQuantity>(a, 1) {
        Ok(q) => q.0.clone(),
        Err(_) => Quantity::from(int(a, 1)?.to_string()),
    };
    let r = if add {
        x.checked_add(&y)
    } else {
        x.checked_sub(&y)
    };
    r.map(|q| CowVal::owned(CelQuantity(q))).ok_or_else(|| {
        err(
            if add { "add" } else { "sub" },
            "quantity arithmetic overflow",
        )
    })
}

/// apiserver's `parseIPAddr`: `netip.ParseAddr`, without zones or IPv4-mapped addresses.
fn parse_ip(raw: &str) -> Result<IpAddr, String> {
    if raw.contains('%') {
        return Err(format!(
            "IP address {} with zone value is not allowed",
            crate::schema::gofmt::quote(raw)
        ));
    }
    let addr: IpAddr = raw.parse().map_err(|_| {
        format!("IP Address {} parse error during conversion from string: ParseAddr({}): unable to parse IP", crate::schema::gofmt::quote(raw), crate::schema::gofmt::quote(raw))
    })?;
    if let IpAddr::V6(v6) = addr
        && v6.to_ipv4_mapped().is_some()
    {
        return Err(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            crate::schema::gofmt::quote(raw)
        ));
    }
    Ok(addr)
}

/// apiserver's `parseCIDR`: `netip.ParsePrefix` (host bits allowed), no IPv4-mapped
/// addresses.
fn parse_cidr(raw: &str) -> Result<(IpAddr, u8), String> {
    let (addr, bits) = raw.split_once('/').ok_or_else(|| {
        format!(
            "netip.ParsePrefix({}): no '/'",
            crate::schema::gofmt::quote(raw)
        )
    })?;
    let ip = parse_ip(addr)?;
    let max = if ip.is_ipv4() { 32 } else { 128 };
    let valid = !bits.is_empty()
        && bits.bytes().all(|b| b.is_ascii_digit())
        && !(bits.len() > 1 && bits.starts_with('0'));
    let n: u8 = bits
        .parse()
        .ok()
        .filter(|n| valid && *n <= max)
        .ok_or_else(|| {
            format!(
                "netip.ParsePrefix({}): bad bits after slash: {}",
                crate::schema::gofmt::quote(raw),
                crate::schema::gofmt::quote(bits)
            )
        })?;
    Ok((ip, n))
}

fn mask(ip: IpAddr, bits: u8) -> IpAddr {
    match ip {
        IpAddr::V4(v) => {
            let m = if bits == 0 {
                0
            } else {
                u32::MAX << (32 - u32::from(bits))
            };
            IpAddr::V4((u32::from(v) & m).into())
        }
        IpAddr::V6(v) => {
            let m = if bits == 0 {
                0
            } else {
                u128::MAX << (128 - u32::from(bits))
            };
            IpAddr::V6((u128::from(v) & m).into())
        }
    }
}

/// Whether the CIDR contains the address (`bits: None`) or the prefix.
fn contains(c: &Cidr, ip: IpAddr, bits: Option<u8>) -> bool {
    if c.0.is_ipv4() != ip.is_ipv4() {
        return false;
    }
    let other_bits = bits.unwrap_or(if ip.is_ipv4() { 32 } else { 128 });
    other_bits >= c.1 && mask(ip, c.1) == mask(c.0, c.1)
}

fn is_global_unicast(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v) => {
            !(v.is_unspecified()
                || v.is_broadcast()
                || v.is_loopback()
                || v.is_multicast()
                || v.is_link_local())
        }
        IpAddr::V6(v) => {
            let first = v.segments()[0];
            !(v.is_unspecified()
                || v.is_loopback()
                || first & 0xff00 == 0xff00
                || first & 0xffc0 == 0xfe80)
        }
    }
}

/// The errors of a named format (apiserver's `ConstantFormats`).
fn check_format(name: &str, value: &str) -> Vec<String> {
    match name {
        "dns1123Label" => names::name_is_dns_label(value, false),
        "dns1123Subdomain" => names::name_is_dns_subdomain(value, false),
        "dns1035Label" => names::name_is_dns1035_label(value, false),
        "qualifiedName" => names::is_qualified_name(value),
        "dns1123LabelPrefix" => names::name_is_dns_label(value, true),
        "dns1123SubdomainPrefix" => names::name_is_dns_subdomain(value, true),
        "dns1035LabelPrefix" => names::name_is_dns1035_label(value, true),
        "labelValue" => names::is_valid_label_value(value),
        "uri" => gourl::parse_request_uri(value).err().into_iter().collect(),
        "uuid" => {
            if formats::validates("uuid", value) {
                vec![]
            } else {
                vec!["does not match the UUID format".to_owned()]
            }
        }
        "byte" => {
            if formats::validates("byte", value) {
                vec![]
            } else {
                vec!["invalid base64".to_owned()]
            }
        }
        "date" => {
            if formats::validates("date", value) {
                vec![]
            } else {
                vec!["invalid date".to_owned()]
            }
        }
        _ => {
            if formats::validates("datetime", value) {
                vec![]
            } else {
                vec!["invalid datetime".to_owned()]
            }
        }
    }
}
