//! Wire-form tests for `Quantity`, `IntOrString` and `ByteString`.

use kubeforge_runtime::{ByteString, IntOrString, Quantity};
use serde::{Deserialize, Serialize};

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap()
}

fn from_json<T: for<'de> Deserialize<'de>>(s: &str) -> Result<T, String> {
    serde_json::from_str(s).map_err(|e| e.to_string())
}

#[test]
fn quantity_strings_round_trip_verbatim() {
    for s in ["100m", "1Gi", "0.5", "1e3", "", "  weird  ", "-1"] {
        let json = serde_json::to_string(s).unwrap();
        let q: Quantity = from_json(&json).unwrap();
        assert_eq!(q.as_str(), s);
        assert_eq!(to_json(&q), json);
    }
}

#[test]
fn quantity_from_integers_keeps_their_digits() {
    assert_eq!(from_json::<Quantity>("5").unwrap(), Quantity::from("5"));
    assert_eq!(from_json::<Quantity>("0").unwrap(), Quantity::from("0"));
    assert_eq!(from_json::<Quantity>("-3").unwrap(), Quantity::from("-3"));
    assert_eq!(
        from_json::<Quantity>("18446744073709551615").unwrap(),
        Quantity::from("18446744073709551615")
    );
    assert_eq!(
        from_json::<Quantity>("-9223372036854775808").unwrap(),
        Quantity::from("-9223372036854775808")
    );
    // And writes them back as numbers: a read-modify-write keeps the form (a CRD stores a
    // quantity as given); equality looks at the text only.
    for text in [
        "5",
        "0",
        "-3",
        "18446744073709551615",
        "-9223372036854775808",
    ] {
        let q: Quantity = from_json(text).unwrap();
        assert!(q.is_number(), "{text}");
        assert_eq!(to_json(&q), text);
    }
    assert!(!from_json::<Quantity>(r#""5""#).unwrap().is_number());
    assert_eq!(to_json(&Quantity::from("5")), r#""5""#);
}

#[test]
fn quantity_numbers_keep_their_value() {
    for (text, back) in [
        ("0.5", "0.5"),
        ("-2.25", "-2.25"),
        ("1.0", "1.0"),
        ("1e3", "1000.0"),
    ] {
        let q: Quantity = from_json(text).unwrap();
        assert_eq!(to_json(&q), back, "{text}");
        let a: serde_json::Value = serde_json::from_str(text).unwrap();
        let b: serde_json::Value = serde_json::from_str(&to_json(&q)).unwrap();
        assert_eq!(a, b, "{text}");
    }
}

#[test]
fn quantity_from_floats_uses_shortest_form() {
    assert_eq!(from_json::<Quantity>("0.5").unwrap().as_str(), "0.5");
    assert_eq!(from_json::<Quantity>("0.1").unwrap().as_str(), "0.1");
    assert_eq!(from_json::<Quantity>("-2.25").unwrap().as_str(), "-2.25");
    assert_eq!(from_json::<Quantity>("1.0").unwrap().as_str(), "1");
    assert_eq!(from_json::<Quantity>("1e3").unwrap().as_str(), "1000");
    assert_eq!(from_json::<Quantity>("2.5e-3").unwrap().as_str(), "0.0025");
}

#[test]
fn quantity_through_json_value() {
    let v = serde_json::json!(0.5);
    assert_eq!(
        serde_json::from_value::<Quantity>(v).unwrap(),
        Quantity::from("0.5")
    );
    let v = serde_json::json!(7);
    assert_eq!(
        serde_json::from_value::<Quantity>(v).unwrap(),
        Quantity::from("7")
    );
}

#[test]
fn quantity_rejects_other_json_types() {
    for bad in ["null", "true", "[]", "{}", r#"["1"]"#] {
        let err = from_json::<Quantity>(bad).unwrap_err();
        assert!(err.contains("expected a quantity string"), "{bad}: {err}");
    }
}

#[test]
fn quantity_conversions_and_display() {
    let q = Quantity::from(String::from("250m"));
    assert_eq!(q.to_string(), "250m");
    assert_eq!(q.as_str(), "250m");
    assert_eq!(Quantity::default().as_str(), "");
}

#[test]
fn int_or_string_both_forms() {
    assert_eq!(
        from_json::<IntOrString>("8080").unwrap(),
        IntOrString::Int(8080)
    );
    assert_eq!(
        from_json::<IntOrString>("-1").unwrap(),
        IntOrString::Int(-1)
    );
    assert_eq!(
        from_json::<IntOrString>(r#""http""#).unwrap(),
        IntOrString::String("http".into())
    );
    // A numeric string stays a string.
    assert_eq!(
        from_json::<IntOrString>(r#""25""#).unwrap(),
        IntOrString::String("25".into())
    );
    assert_eq!(to_json(&IntOrString::Int(8080)), "8080");
    assert_eq!(to_json(&IntOrString::from("25%")), r#""25%""#);
    assert_eq!(to_json(&IntOrString::String("25".into())), r#""25""#);
}

#[test]
fn int_or_string_range_limits() {
    assert_eq!(
        from_json::<IntOrString>("2147483647").unwrap(),
        IntOrString::Int(i32::MAX)
    );
    assert_eq!(
        from_json::<IntOrString>("-2147483648").unwrap(),
        IntOrString::Int(i32::MIN)
    );
    for bad in ["2147483648", "-2147483649", "18446744073709551615"] {
        let err = from_json::<IntOrString>(bad).unwrap_err();
        assert!(
            err.starts_with(&format!(
                "invalid IntOrString {bad}: integer out of range for i32 (-2147483648..=2147483647)"
            )),
            "{err}"
        );
    }
}

#[test]
fn int_or_string_rejects_other_json_types() {
    for bad in ["1.5", "1.0", "1e2", "null", "true", "[]", "{}", r#"[1]"#] {
        let err = from_json::<IntOrString>(bad).unwrap_err();
        assert!(
            err.contains("expected an integer or a string"),
            "{bad}: {err}"
        );
    }
}

#[test]
fn int_or_string_conversions() {
    assert_eq!(IntOrString::default(), IntOrString::Int(0));
    assert_eq!(IntOrString::from(3), IntOrString::Int(3));
    assert_eq!(
        IntOrString::from(String::from("x")),
        IntOrString::String("x".into())
    );
    assert_eq!(IntOrString::Int(-7).to_string(), "-7");
    assert_eq!(IntOrString::from("x").to_string(), "x");
}

#[test]
fn byte_string_round_trip() {
    let b = ByteString::from(&b"hello"[..]);
    assert_eq!(to_json(&b), r#""aGVsbG8=""#);
    assert_eq!(from_json::<ByteString>(r#""aGVsbG8=""#).unwrap(), b);
    assert_eq!(to_json(&ByteString::default()), r#""""#);
    assert_eq!(
        from_json::<ByteString>(r#""""#).unwrap(),
        ByteString::default()
    );

    // Every byte value, every padding length.
    let all: Vec<u8> = (0..=255).collect();
    for len in 0..all.len() {
        let b = ByteString::from(all[..len].to_vec());
        let json = to_json(&b);
        assert_eq!(from_json::<ByteString>(&json).unwrap(), b, "len {len}");
    }
    assert_eq!(to_json(&ByteString::from(vec![0xfb, 0xff])), r#""+/8=""#);
}

#[test]
fn byte_string_accepts_unpadded_and_line_breaks() {
    let hello = ByteString::from(b"hello".to_vec());
    assert_eq!(from_json::<ByteString>(r#""aGVsbG8""#).unwrap(), hello);
    assert_eq!(
        from_json::<ByteString>(r#""aGVs\nbG8=\r\n""#).unwrap(),
        hello
    );
    assert_eq!(
        from_json::<ByteString>("null").unwrap(),
        ByteString::default()
    );
}

#[test]
fn byte_string_rejects_invalid_base64() {
    for bad in [
        r#""not base64!""#,
        r#""aGVsbG8=x""#,
        r#""a""#,
        r#""aGVsbG8===""#,
        r#""-_-_""#, // URL-safe alphabet is not standard base64
        r#""é""#,
    ] {
        let err = from_json::<ByteString>(bad).unwrap_err();
        assert!(
            err.starts_with("invalid base64 in ByteString: "),
            "{bad}: {err}"
        );
    }
}

#[test]
fn byte_string_rejects_other_json_types() {
    for bad in ["5", "true", "[104, 105]", "{}"] {
        let err = from_json::<ByteString>(bad).unwrap_err();
        assert!(err.contains("expected a base64 string"), "{bad}: {err}");
    }
}

#[test]
fn byte_string_conversions() {
    let b = ByteString::from(vec![1, 2, 3]);
    assert_eq!(b.as_ref(), &[1, 2, 3]);
    assert_eq!(Vec::<u8>::from(b), vec![1, 2, 3]);
}
