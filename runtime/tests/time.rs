//! Wire-form tests for `Time` and `MicroTime`.

use jiff::Timestamp;
use kubeforge_runtime::{MicroTime, Time};
use serde::{Deserialize, Serialize};

fn ts(s: &str) -> Timestamp {
    s.parse().unwrap()
}

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap()
}

fn from_json<T: for<'de> Deserialize<'de>>(s: &str) -> Result<T, String> {
    serde_json::from_str(s).map_err(|e| e.to_string())
}

#[test]
fn time_writes_whole_seconds_in_utc() {
    let t = Time(ts("2024-01-02T03:04:05Z"));
    assert_eq!(to_json(&t), r#""2024-01-02T03:04:05Z""#);
    assert_eq!(t.to_string(), "2024-01-02T03:04:05Z");
}

#[test]
fn time_truncates_fraction_not_rounds() {
    let t = Time(ts("2024-01-02T03:04:05.999999999Z"));
    assert_eq!(to_json(&t), r#""2024-01-02T03:04:05Z""#);
}

#[test]
fn time_truncates_towards_the_past_before_1970() {
    // 1969-12-31T23:59:59.5Z must be written as ...:59Z, not 1970-01-01T00:00:00Z.
    let t = Time(ts("1969-12-31T23:59:59.5Z"));
    assert_eq!(to_json(&t), r#""1969-12-31T23:59:59Z""#);
    let m = MicroTime(ts("1969-12-31T23:59:59.9999995Z"));
    assert_eq!(to_json(&m), r#""1969-12-31T23:59:59.999999Z""#);
}

#[test]
fn time_normalises_offsets_to_z() {
    let t: Time = from_json(r#""2024-01-02T05:34:05+02:30""#).unwrap();
    assert_eq!(to_json(&t), r#""2024-01-02T03:04:05Z""#);
    let t: Time = from_json(r#""2024-01-01T22:04:05-05:00""#).unwrap();
    assert_eq!(to_json(&t), r#""2024-01-02T03:04:05Z""#);
    let t: Time = from_json(r#""2024-01-02T03:04:05+00:00""#).unwrap();
    assert_eq!(to_json(&t), r#""2024-01-02T03:04:05Z""#);
}

#[test]
fn time_keeps_full_precision_in_memory() {
    let t: Time = from_json(r#""2024-01-02T03:04:05.123456789Z""#).unwrap();
    assert_eq!(t.0, ts("2024-01-02T03:04:05.123456789Z"));
    assert_eq!(t.0.subsec_nanosecond(), 123_456_789);
    assert_eq!(t.truncated(), ts("2024-01-02T03:04:05Z"));
}

#[test]
fn time_accepts_fractions_longer_than_nanoseconds() {
    let t: Time = from_json(r#""2024-01-02T03:04:05.1234567891234+01:00""#).unwrap();
    assert_eq!(t.0, ts("2024-01-02T02:04:05.123456789Z"));
    let m: MicroTime = "2024-01-02T03:04:05.12345678912345678912Z".parse().unwrap();
    assert_eq!(m.to_string(), "2024-01-02T03:04:05.123456Z");
}

#[test]
fn time_zero_is_go_zero_and_null_both_ways() {
    assert_eq!(Time::ZERO.0, ts("0001-01-01T00:00:00Z"));
    assert_eq!(MicroTime::ZERO.0, ts("0001-01-01T00:00:00Z"));
    assert_eq!(Time::default(), Time::ZERO);
    assert_eq!(MicroTime::default(), MicroTime::ZERO);
    assert!(Time::ZERO.is_zero());

    assert_eq!(to_json(&Time::ZERO), "null");
    assert_eq!(to_json(&MicroTime::ZERO), "null");
    assert_eq!(from_json::<Time>("null").unwrap(), Time::ZERO);
    assert_eq!(from_json::<MicroTime>("null").unwrap(), MicroTime::ZERO);

    // The zero time spelled out also reads as ZERO, and writes back as null.
    let t: Time = from_json(r#""0001-01-01T00:00:00Z""#).unwrap();
    assert_eq!(t, Time::ZERO);
    assert_eq!(to_json(&t), "null");
    // Display writes the timestamp, not "null".
    assert_eq!(Time::ZERO.to_string(), "0001-01-01T00:00:00Z");
}

#[test]
fn time_zero_inside_a_struct() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Meta {
        #[serde(rename = "creationTimestamp")]
        creation_timestamp: Time,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deletion: Option<Time>,
    }
    let m: Meta = from_json(r#"{"creationTimestamp":null}"#).unwrap();
    assert_eq!(m.creation_timestamp, Time::ZERO);
    assert_eq!(to_json(&m), r#"{"creationTimestamp":null}"#);
    let m: Meta = from_json(
        r#"{"creationTimestamp":"2024-01-02T03:04:05Z","deletion":"2024-01-02T03:04:06Z"}"#,
    )
    .unwrap();
    assert_eq!(m.deletion, Some(Time(ts("2024-01-02T03:04:06Z"))));
    assert_eq!(
        to_json(&m),
        r#"{"creationTimestamp":"2024-01-02T03:04:05Z","deletion":"2024-01-02T03:04:06Z"}"#
    );
}

#[test]
fn time_through_json_value() {
    let t = Time(ts("2024-01-02T03:04:05Z"));
    let v = serde_json::to_value(t).unwrap();
    assert_eq!(v, serde_json::json!("2024-01-02T03:04:05Z"));
    assert_eq!(serde_json::from_value::<Time>(v).unwrap(), t);
    assert_eq!(
        serde_json::to_value(Time::ZERO).unwrap(),
        serde_json::Value::Null
    );
    assert_eq!(
        serde_json::from_value::<Time>(serde_json::Value::Null).unwrap(),
        Time::ZERO
    );
}

#[test]
fn time_invalid_input_errors_name_the_expected_form() {
    let err = from_json::<Time>(r#""xyz""#).unwrap_err();
    assert!(
        err.starts_with(
            r#"invalid Time "xyz": expected an RFC 3339 timestamp such as "2006-01-02T15:04:05Z""#
        ),
        "{err}"
    );
    let err = "xyz".parse::<Time>().unwrap_err().to_string();
    assert_eq!(
        err,
        r#"invalid Time "xyz": expected an RFC 3339 timestamp such as "2006-01-02T15:04:05Z""#
    );
    let err = "".parse::<MicroTime>().unwrap_err().to_string();
    assert_eq!(
        err,
        r#"invalid MicroTime "": expected an RFC 3339 timestamp such as "2006-01-02T15:04:05.000000Z""#
    );
}

#[test]
fn time_rejects_malformed_timestamps() {
    for bad in [
        "2024-01-02T03:04:05",       // no offset
        "2024-01-02",                // date only
        "2024-13-02T03:04:05Z",      // month 13
        "2024-02-30T03:04:05Z",      // no such day
        "2024-01-02T25:04:05Z",      // hour 25
        "2024-01-02T03:04:05.Z",     // empty fraction
        "2024-01-02T03:04:05+99:00", // offset out of range
        "10000-01-01T00:00:00Z",     // year out of range
        "2024-01-02T03:04:05Zjunk",
        " 2024-01-02T03:04:05Z",
        "null",
        "\u{0}",
        "2024-01-02T03:04:05.€Z",
        "2024-01-02T03:04:05.1234567890€",
    ] {
        assert!(bad.parse::<Time>().is_err(), "{bad:?} parsed as Time");
        assert!(
            bad.parse::<MicroTime>().is_err(),
            "{bad:?} parsed as MicroTime"
        );
    }
}

#[test]
fn time_rejects_wrong_json_types() {
    for bad in [
        "5",
        "1.5",
        "true",
        "[]",
        "{}",
        r#"["2024-01-02T03:04:05Z"]"#,
    ] {
        let err = from_json::<Time>(bad).unwrap_err();
        assert!(
            err.contains("expected an RFC 3339 timestamp"),
            "{bad}: {err}"
        );
        assert!(from_json::<MicroTime>(bad).is_err(), "{bad}");
    }
}

#[test]
fn time_display_and_from_str_round_trip() {
    let t: Time = "2024-01-02T03:04:05Z".parse().unwrap();
    assert_eq!(t.to_string().parse::<Time>().unwrap(), t);
    assert_eq!(Time::from(ts("2024-01-02T03:04:05Z")), t);
    assert_eq!(Timestamp::from(t), ts("2024-01-02T03:04:05Z"));
}

#[test]
fn time_now_is_not_zero_and_round_trips_to_the_second() {
    let now = Time::now();
    assert!(!now.is_zero());
    let back: Time = from_json(&to_json(&now)).unwrap();
    assert_eq!(back.0, now.truncated());
}

#[test]
fn time_year_zero_is_written_but_negative_years_are_refused() {
    let t = Time(ts("0000-01-01T00:00:00Z"));
    assert_eq!(to_json(&t), r#""0000-01-01T00:00:00Z""#);
    let t = Time(ts("-000001-12-31T23:59:59Z"));
    let err = serde_json::to_string(&t).unwrap_err().to_string();
    assert!(err.contains("year outside of range [0,9999]"), "{err}");
}

#[test]
fn time_extremes_do_not_panic() {
    for t in [Timestamp::MIN, Timestamp::MAX, Timestamp::UNIX_EPOCH] {
        let _ = serde_json::to_string(&Time(t));
        let _ = serde_json::to_string(&MicroTime(t));
        let _ = Time(t).to_string();
        let _ = MicroTime(t).to_string();
    }
    // jiff's range ends a little before the end of year 9999 in UTC.
    assert_eq!(to_json(&Time(Timestamp::MAX)), r#""9999-12-30T22:00:00Z""#);
    assert_eq!(
        to_json(&MicroTime(Timestamp::MAX)),
        r#""9999-12-30T22:00:00.999999Z""#
    );
}

#[test]
fn micro_time_writes_exactly_six_digits() {
    let m = MicroTime(ts("2024-01-02T03:04:05.123456Z"));
    assert_eq!(to_json(&m), r#""2024-01-02T03:04:05.123456Z""#);
    // Padded with zeros.
    let m = MicroTime(ts("2024-01-02T03:04:05Z"));
    assert_eq!(to_json(&m), r#""2024-01-02T03:04:05.000000Z""#);
    let m = MicroTime(ts("2024-01-02T03:04:05.1Z"));
    assert_eq!(to_json(&m), r#""2024-01-02T03:04:05.100000Z""#);
    // Truncated, not rounded.
    let m = MicroTime(ts("2024-01-02T03:04:05.123456999Z"));
    assert_eq!(to_json(&m), r#""2024-01-02T03:04:05.123456Z""#);
    assert_eq!(m.to_string(), "2024-01-02T03:04:05.123456Z");
}

#[test]
fn micro_time_normalises_offsets_and_keeps_precision() {
    let m: MicroTime = from_json(r#""2024-01-02T04:04:05.1234567+01:00""#).unwrap();
    assert_eq!(m.0.subsec_nanosecond(), 123_456_700);
    assert_eq!(to_json(&m), r#""2024-01-02T03:04:05.123456Z""#);
    // Whole-second input is fine too.
    let m: MicroTime = from_json(r#""2024-01-02T03:04:05Z""#).unwrap();
    assert_eq!(to_json(&m), r#""2024-01-02T03:04:05.000000Z""#);
}

#[test]
fn time_inside_buffered_serde_content() {
    // `flatten` and `untagged` make serde buffer values before reading them.
    #[derive(Debug, Deserialize)]
    struct Inner {
        at: Time,
        micro: MicroTime,
    }
    #[derive(Debug, Deserialize)]
    struct Outer {
        #[serde(flatten)]
        inner: Inner,
    }
    let o: Outer = from_json(r#"{"at":null,"micro":"2024-01-02T03:04:05.5Z"}"#).unwrap();
    assert_eq!(o.inner.at, Time::ZERO);
    assert_eq!(o.inner.micro.0, ts("2024-01-02T03:04:05.5Z"));
    assert!(from_json::<Outer>(r#"{"at":"nope","micro":null}"#).is_err());

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(untagged)]
    enum Either {
        T(Time),
        N(u8),
    }
    assert_eq!(from_json::<Either>("null").unwrap(), Either::T(Time::ZERO));
    assert_eq!(from_json::<Either>("3").unwrap(), Either::N(3));
}
