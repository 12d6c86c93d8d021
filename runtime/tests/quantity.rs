//! `Quantity` semantics. The tables are cases of apimachinery's
//! `pkg/api/resource/quantity_test.go` (`TestQuantityParse`, `TestQuantityCmp`,
//! `TestQuantityString`, `TestQuantityParseEmit`), rewritten as data: each parsed text is
//! compared with the value the Go test expects, written here as a second quantity text.

use std::cmp::Ordering;
use std::collections::HashSet;

use kubeforge_runtime::Quantity;

fn q(s: &str) -> Quantity {
    Quantity::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// (input, an equal quantity written plainly, canonical text of the input).
const PARSE: &[(&str, &str, &str)] = &[
    ("0", "0", "0"),
    ("0n", "0", "0"),
    ("0Ki", "0", "0"),
    ("0Ti", "0", "0"),
    ("1", "1", "1"),
    ("1Ki", "1024", "1Ki"),
    ("8Ki", "8192", "8Ki"),
    ("7Mi", "7340032", "7Mi"),
    ("6Gi", "6442450944", "6Gi"),
    ("5Ti", "5497558138880", "5Ti"),
    ("4Pi", "4503599627370496", "4Pi"),
    ("3Ei", "3458764513820540928", "3Ei"),
    ("100Ti", "109951162777600", "100Ti"),
    ("5n", "0.000000005", "5n"),
    ("4u", "0.000004", "4u"),
    ("3m", "0.003", "3m"),
    ("8k", "8000", "8k"),
    ("50k", "50000", "50k"),
    ("40T", "40000000000000", "40T"),
    ("1E", "1000000000000000000", "1E"),
    ("1E-3", "0.001", "1e-3"),
    ("1e3", "1000", "1e3"),
    ("1E18", "1000000000000000000", "1e18"),
    ("1e14", "100000000000000", "100e12"),
    ("100.035k", "100035", "100035"),
    ("0.001", "0.001", "1m"),
    ("0.0005k", "0.5", "500m"),
    ("0.00500", "0.005", "5m"),
    ("0.5e-2", "0.005", "5e-3"),
    ("10.035M", "10035000", "10035k"),
    ("1.2e3", "1200", "1200"),
    ("1.3E+6", "1300000", "1300e3"),
    ("1.53E12", "1530000000000", "1530e9"),
    ("1.7E18", "1700000000000000000", "1700e15"),
    ("9.01", "9.01", "9010m"),
    ("7.123456M", "7123456", "7123456"),
    ("6.987654321G", "6987654321", "6987654321"),
    ("1.01E", "1010000000000000000", "1010P"),
    // Things that saturate or round (up, to a multiple of 1n).
    ("3.001n", "0.000000004", "4n"),
    ("1.1E-9", "0.000000002", "2e-9"),
    ("0.0000000001", "0.000000001", "1n"),
    ("0.0000000005", "0.000000001", "1n"),
    ("0.5e-9", "0.000000001", "1e-9"),
    ("0.9n", "0.000000001", "1n"),
    ("0.00000012345", "0.000000124", "124n"),
    ("9Ei", "9223372036854775807", "9223372036854775807"),
    (
        "9223372036854775807Ki",
        "9223372036854775807",
        "9223372036854775807",
    ),
    ("12E", "12000000000000000000", "12E"),
    ("100.035Ki", "102435.84", "102435840m"),
    ("0.5Mi", "524288", "512Ki"),
    ("0.05Gi", "53687091.2", "53687091200m"),
    ("0.000000000001Ki", "0.000000002", "2n"),
    (".001", "0.001", "1m"),
    (".0001k", "0.1", "100m"),
    ("1.", "1", "1"),
    ("1.G", "1000000000", "1G"),
];

#[test]
fn parses_as_apimachinery() {
    for (input, plain, canonical) in PARSE {
        let got = q(input);
        assert_eq!(got, q(plain), "{input} == {plain}");
        assert_eq!(
            got.canonical().as_deref(),
            Some(*canonical),
            "canonical of {input}"
        );
        assert_eq!(got.as_str(), *input, "the text is kept");
        // The negative and the explicitly positive forms.
        let neg = q(&format!("-{input}"));
        assert_eq!(
            neg.cmp_value(&got.checked_neg().unwrap()),
            Some(Ordering::Equal),
            "-{input}"
        );
        assert_eq!(q(&format!("+{input}")), got, "+{input}");
    }
}

#[test]
fn refuses_what_apimachinery_refuses() {
    for input in [
        "", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1",
        "1 ",
    ] {
        assert!(Quantity::parse(input).is_err(), "{input:?} parsed");
    }
    assert_eq!(
        Quantity::parse("10Mo").unwrap_err().to_string(),
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    );
    assert_eq!(
        Quantity::parse("10Mm").unwrap_err().to_string(),
        "unable to parse quantity's suffix"
    );
}

#[test]
fn compares_numerically() {
    for (x, y, want) in [
        ("0", "0", Ordering::Equal),
        ("100m", "50m", Ordering::Greater),
        ("50m", "100m", Ordering::Less),
        ("10000T", "100Gi", Ordering::Greater),
        ("10", "9", Ordering::Greater),
        ("1Gi", "1024Mi", Ordering::Equal),
        ("1", "1000m", Ordering::Equal),
        ("-1", "1m", Ordering::Less),
        ("-2", "-1", Ordering::Less),
        ("1e3", "1k", Ordering::Equal),
    ] {
        assert_eq!(q(x).cmp(&q(y)), want, "{x} vs {y}");
    }
    let set: HashSet<Quantity> = ["1Gi", "1024Mi", "1073741824", "1G"]
        .into_iter()
        .map(Quantity::from)
        .collect();
    assert_eq!(set.len(), 2, "hashing agrees with equality");
}

#[test]
fn canonical_text_is_quantity_string() {
    // TestQuantityString: (a text, its canonical form).
    for (input, want) in [
        ("1024Mi", "1Gi"),
        ("307200Ki", "300Mi"),
        ("1025024Mi", "1001Gi"),
        ("1024Gi", "1Ti"),
        ("5000m", "5"),
        ("1000M", "1G"),
        ("0.001T", "1G"),
        ("1000u", "1m"),
        ("1.08", "1080m"),
        ("1080000000n", "1080m"),
        (".001e12", "1e9"),
        ("0.001e0", "1e-3"),
        ("1000e-12", "1e-9"),
        ("00", "0"),
        // TestQuantityParseEmit
        ("1Ki", "1Ki"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
    ] {
        assert_eq!(q(input).canonical().as_deref(), Some(want), "{input}");
        assert_eq!(
            q(&format!("-{input}")).canonical(),
            if want == "0" {
                Some("0".to_owned())
            } else {
                Some(format!("-{want}"))
            },
            "-{input}"
        );
    }
}

#[test]
fn arithmetic_and_conversions() {
    assert_eq!(
        q("1Gi").checked_add(&q("512Mi")).unwrap().as_str(),
        "1536Mi"
    );
    assert_eq!(q("50k").checked_add(&q("20")).unwrap(), q("50.02k"));
    assert_eq!(q("50k").checked_sub(&q("20")).unwrap(), q("49.98k"));
    assert_eq!(q("100m").checked_mul(3).unwrap(), q("300m"));
    assert_eq!(q("1Ki").checked_mul(-2).unwrap().as_str(), "-2Ki");
    assert_eq!(q("1").checked_neg().unwrap().as_str(), "-1");
    assert_eq!(q("1Gi").to_i64(), Some(1_073_741_824));
    assert_eq!(q("1.5").to_i64(), None);
    assert_eq!(q("9999999999999999999999999999999999999G").to_i64(), None);
    assert_eq!(q("500m").to_f64(), Some(0.5));
    assert_eq!(q("1.5").milli_value(), Some(1500));
    assert_eq!(q("1.0001m").milli_value(), Some(2), "MilliValue rounds up");
    assert_eq!(q("-3").signum(), Some(-1));
    let huge = q("9999999999999999999999999999999999999");
    assert_eq!(
        huge.checked_add(&q("1"))
            .unwrap()
            .cmp(&huge.checked_add(&q("2")).unwrap()),
        Ordering::Less
    );
}

#[test]
fn unparseable_text_round_trips_and_orders_last() {
    let bad: Quantity = serde_json::from_str(r#""lots""#).unwrap();
    assert!(!bad.is_valid());
    assert_eq!(serde_json::to_string(&bad).unwrap(), r#""lots""#);
    assert!(bad > q("9Ei"), "after every quantity");
    assert_eq!(bad, Quantity::from("lots"));
    assert_ne!(bad, Quantity::from("many"));
    assert_eq!(bad.cmp_value(&q("1")), None);
    assert_eq!(bad.checked_add(&q("1")), None);
    assert_eq!(bad.to_i64(), None);
    // Numbers keep their JSON form and text.
    let n: Quantity = serde_json::from_str("2").unwrap();
    assert_eq!(n, q("2000m"));
    assert_eq!(serde_json::to_string(&n).unwrap(), "2");
    let f: Quantity = serde_json::from_str("0.5").unwrap();
    assert_eq!(f, q("500m"));
    assert_eq!(serde_json::to_string(&f).unwrap(), "0.5");
}

#[test]
fn huge_exponents_stay_cheap() {
    let huge = q("1e999999999");
    let one = q("1n");
    assert_eq!(huge.cmp(&one), Ordering::Greater);
    assert_eq!(huge.checked_add(&one), None);
    assert_eq!(huge.to_i64(), None);
    assert_eq!(huge.milli_value(), None);
    assert_eq!(huge.to_f64(), Some(f64::INFINITY));
    assert_eq!(huge.canonical().as_deref(), Some("1e999999999"));
}

/// The sign read from a common text without parsing it (`signum`'s fast path) is the sign
/// of the parsed value (`cmp_value` against zero parses both).
#[test]
fn signum_is_the_parsed_values() {
    for text in [
        "0",
        "000",
        "0n",
        "0Ki",
        "00Ei",
        "1",
        "01",
        "100m",
        "1n",
        "1u",
        "7k",
        "1M",
        "1G",
        "2T",
        "3P",
        "4E",
        "1Ki",
        "1Mi",
        "1Gi",
        "1Ti",
        "1Pi",
        "9Ei",
        "1e3",
        "0e3",
        "-1",
        "-0",
        "+1",
        "0.0",
        "0.5",
        "1.5Gi",
        "0.0000000001",
        "1m5",
        "1Z",
        "",
        "lots",
        "1.",
        ".5",
    ] {
        let quantity = Quantity::from(text);
        let zero = Quantity::from("0");
        let parsed = quantity.cmp_value(&zero).map(|order| order as i32);
        assert_eq!(quantity.signum(), parsed, "{text:?}");
        let read: Quantity = serde_json::from_value(serde_json::json!(text)).unwrap();
        assert_eq!(read.signum(), parsed, "{text:?}, read from JSON");
    }
}

/// An arithmetic result keeps its exact value: a binary product beyond 2⁶³−1 (`16Ei`) is
/// larger than the capped 9Ei, though its text, read again, would be capped to it.
#[test]
fn arithmetic_keeps_its_exact_value() {
    let product = q("4Ei").checked_mul(4).unwrap();
    assert_eq!(product.as_str(), "16Ei");
    let capped = q("9Ei");
    assert_eq!(product.cmp_value(&capped), Some(Ordering::Greater));
    assert_eq!(product.cmp(&capped), Ordering::Greater);
    assert_eq!(
        Quantity::from("16Ei").cmp(&capped),
        Ordering::Equal,
        "read, it is capped"
    );
}

/// A quantity is a string and its form, not its parsed value: 40 bytes, not 72 (it sits
/// inline in structs every Pod and Node reads; BENCHMARKS.md, section c).
#[test]
fn a_quantity_holds_no_parsed_value() {
    assert!(std::mem::size_of::<Quantity>() <= 40);
}
