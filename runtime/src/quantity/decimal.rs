//! The value of a quantity: an exact decimal (`digits × 10^exp`), parsed as apimachinery's
//! `resource.ParseQuantity` parses (`pkg/api/resource/quantity.go`), with the format
//! (`DecimalSI`, `BinarySI`, `DecimalExponent`) its canonical text is written in.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// Why a text is not a quantity (apimachinery's `ErrFormatWrong`, `ErrSuffix`,
/// `ErrNumeric`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuantityError {
    /// The text does not have the shape of a quantity.
    FormatWrong,
    /// The suffix is not one Kubernetes knows.
    Suffix,
    /// The number cannot be read.
    Numeric,
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QuantityError::FormatWrong => {
                "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            }
            QuantityError::Suffix => "unable to parse quantity's suffix",
            QuantityError::Numeric => "unable to parse numeric part of quantity",
        })
    }
}

impl std::error::Error for QuantityError {}

/// How the canonical text is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Format {
    /// `12M`, `500m`.
    #[default]
    DecimalSi,
    /// `12Mi`.
    BinarySi,
    /// `12e6`.
    DecimalExponent,
}

/// The most digits an aligned sum may take.
const MAX_DIGITS: i64 = 4096;

/// `±digits × 10^exp`, normalized: no leading or trailing zero digits (zero has none).
#[derive(Clone, Debug, Default)]
pub(crate) struct Decimal {
    neg: bool,
    digits: Vec<u8>,
    exp: i64,
    pub(crate) format: Format,
}

impl PartialEq for Decimal {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Decimal {}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.signum(), other.signum()) {
            (a, b) if a != b => a.cmp(&b),
            (0, _) => Ordering::Equal,
            (s, _) => {
                let m = cmp_magnitude(self, other);
                if s < 0 { m.reverse() } else { m }
            }
        }
    }
}

impl Hash for Decimal {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.neg.hash(state);
        self.digits.hash(state);
        self.exp.hash(state);
    }
}

fn cmp_magnitude(a: &Decimal, b: &Decimal) -> Ordering {
    // The position of the leading digit decides, then the digits.
    let ta = a.exp + a.digits.len() as i64;
    let tb = b.exp + b.digits.len() as i64;
    ta.cmp(&tb).then_with(|| a.digits.cmp(&b.digits))
}

impl Decimal {
    fn new(neg: bool, mut digits: Vec<u8>, mut exp: i64, format: Format) -> Decimal {
        let lead = digits.iter().take_while(|d| **d == 0).count();
        digits.drain(..lead);
        while digits.last() == Some(&0) {
            digits.pop();
            exp += 1;
        }
        if digits.is_empty() {
            return Decimal {
                neg: false,
                digits,
                exp: 0,
                format,
            };
        }
        Decimal {
            neg,
            digits,
            exp,
            format,
        }
    }

    pub(crate) fn with_format(mut self, format: Format) -> Decimal {
        self.format = format;
        self
    }

    pub(crate) fn signum(&self) -> i32 {
        if self.digits.is_empty() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }

    pub(crate) fn neg(&self) -> Decimal {
        let mut d = self.clone();
        if !d.digits.is_empty() {
            d.neg = !d.neg;
        }
        d
    }

    /// The digits padded with zeros down to `exp`.
    fn at_exp(&self, exp: i64) -> Vec<u8> {
        let mut d = self.digits.clone();
        d.extend(std::iter::repeat_n(
            0,
            usize::try_from(self.exp - exp).unwrap_or(0),
        ));
        d
    }

    /// `self + other`; `None` when aligning them would take more than [`MAX_DIGITS`]
    /// digits (`1e999999999 + 1n`), which no quantity of a real object needs.
    pub(crate) fn add(&self, other: &Decimal) -> Option<Decimal> {
        if other.digits.is_empty() {
            return Some(self.clone());
        }
        if self.digits.is_empty() {
            return Some(other.clone().with_format(self.format));
        }
        let exp = self.exp.min(other.exp);
        let width =
            (self.exp + self.digits.len() as i64).max(other.exp + other.digits.len() as i64) - exp;
        if width > MAX_DIGITS {
            return None;
        }
        let (a, b) = (self.at_exp(exp), other.at_exp(exp));
        if self.neg == other.neg {
            return Some(Decimal::new(self.neg, add_digits(&a, &b), exp, self.format));
        }
        Some(match cmp_digits(&a, &b) {
            Ordering::Equal => Decimal::default().with_format(self.format),
            Ordering::Greater => Decimal::new(self.neg, sub_digits(&a, &b), exp, self.format),
            Ordering::Less => Decimal::new(other.neg, sub_digits(&b, &a), exp, self.format),
        })
    }

    pub(crate) fn mul_int(&self, n: i64) -> Decimal {
        let mut digits = self.digits.clone();
        mul_small(&mut digits, u128::from(n.unsigned_abs()));
        Decimal::new(self.neg != (n < 0), digits, self.exp, self.format)
    }

    /// The integer value when it is one and fits an `i64`.
    pub(crate) fn to_i64(&self) -> Option<i64> {
        if self.exp < 0 || self.exp + self.digits.len() as i64 > 20 {
            return None;
        }
        let mut v: i128 = 0;
        for d in self.at_exp(0) {
            v = v.checked_mul(10)?.checked_add(i128::from(d))?;
            if v > i128::from(i64::MAX) + 1 {
                return None;
            }
        }
        i64::try_from(if self.neg { -v } else { v }).ok()
    }

    pub(crate) fn to_f64(&self) -> f64 {
        if self.digits.is_empty() {
            return 0.0;
        }
        let text: String = self.digits.iter().map(|d| char::from(b'0' + d)).collect();
        let f: f64 = format!("{text}e{}", self.exp)
            .parse()
            .unwrap_or(f64::INFINITY);
        if self.neg { -f } else { f }
    }

    /// `value × 10^scale`, rounded away from zero to an integer, when it fits an `i64`.
    pub(crate) fn scaled_ceil(&self, scale: i64) -> Option<i64> {
        let shifted = Decimal::new(self.neg, self.digits.clone(), self.exp + scale, self.format);
        shifted.round_up_to(0).to_i64()
    }

    /// Rounded away from zero to a multiple of `10^exp`.
    fn round_up_to(&self, exp: i64) -> Decimal {
        if self.exp >= exp || self.digits.is_empty() {
            return self.clone();
        }
        let drop = usize::try_from(exp - self.exp).unwrap_or(usize::MAX);
        let mut kept: Vec<u8> = if drop >= self.digits.len() {
            Vec::new()
        } else {
            self.digits[..self.digits.len() - drop].to_vec()
        };
        // Something non-zero was dropped (the digits are normalized): round up.
        kept = add_digits(&kept, &[1]);
        Decimal::new(self.neg, kept, exp, self.format)
    }

    /// The canonical text (`CanonicalizeBytes`).
    pub(crate) fn canonical(&self) -> String {
        if self.digits.is_empty() {
            return "0".to_owned();
        }
        let sign = if self.neg { "-" } else { "" };
        if self.format == Format::BinarySi {
            // Small values and non-integers are written as DecimalSI.
            let small = self.exp + (self.digits.len() as i64) <= 4
                && cmp_magnitude(
                    self,
                    &Decimal::new(false, vec![1, 0, 2, 4], 0, Format::BinarySi),
                ) == Ordering::Less;
            if !small && self.exp >= 0 {
                let mut n = self.at_exp(0);
                let mut k = 0;
                while k < 6 && rem_small(&n, 1024) == 0 {
                    n = div_small(&n, 1024);
                    k += 1;
                }
                let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][k];
                return format!("{sign}{}{suffix}", digits_text(&n));
            }
        }
        let mut digits = self.digits.clone();
        let mut exp = self.exp;
        while exp.rem_euclid(3) != 0 {
            digits.push(0);
            exp -= 1;
        }
        let suffix = match (self.format, exp) {
            (Format::DecimalExponent, 0) => String::new(),
            (Format::DecimalExponent, e) => format!("e{e}"),
            (_, -9) => "n".to_owned(),
            (_, -6) => "u".to_owned(),
            (_, -3) => "m".to_owned(),
            (_, 0) => String::new(),
            (_, 3) => "k".to_owned(),
            (_, 6) => "M".to_owned(),
            (_, 9) => "G".to_owned(),
            (_, 12) => "T".to_owned(),
            (_, 15) => "P".to_owned(),
            (_, 18) => "E".to_owned(),
            // No SI suffix so large: the exponent form keeps the value.
            (_, e) => format!("e{e}"),
        };
        format!("{sign}{}{suffix}", digits_text(&digits))
    }
}

fn digits_text(d: &[u8]) -> String {
    let start = d
        .iter()
        .take_while(|x| **x == 0)
        .count()
        .min(d.len().saturating_sub(1));
    d[start..].iter().map(|x| char::from(b'0' + x)).collect()
}

fn cmp_digits(a: &[u8], b: &[u8]) -> Ordering {
    let trim = |d: &[u8]| d.iter().take_while(|x| **x == 0).count();
    let (a, b) = (&a[trim(a)..], &b[trim(b)..]);
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn add_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let (mut i, mut j, mut carry) = (a.len(), b.len(), 0u8);
    while i > 0 || j > 0 || carry > 0 {
        let x = if i > 0 {
            i -= 1;
            a[i]
        } else {
            0
        };
        let y = if j > 0 {
            j -= 1;
            b[j]
        } else {
            0
        };
        let s = x + y + carry;
        out.push(s % 10);
        carry = s / 10;
    }
    out.reverse();
    out
}

/// `a - b` for `a >= b`.
fn sub_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let (mut i, mut j, mut borrow) = (a.len(), b.len(), 0i8);
    while i > 0 {
        i -= 1;
        let y = if j > 0 {
            j -= 1;
            b[j]
        } else {
            0
        };
        let mut d = i8::try_from(a[i]).unwrap_or(0) - i8::try_from(y).unwrap_or(0) - borrow;
        borrow = 0;
        if d < 0 {
            d += 10;
            borrow = 1;
        }
        out.push(u8::try_from(d).unwrap_or(0));
    }
    out.reverse();
    out
}

fn mul_small(digits: &mut Vec<u8>, n: u128) {
    let mut carry: u128 = 0;
    for d in digits.iter_mut().rev() {
        let v = u128::from(*d) * n + carry;
        *d = u8::try_from(v % 10).unwrap_or(0);
        carry = v / 10;
    }
    while carry > 0 {
        digits.insert(0, u8::try_from(carry % 10).unwrap_or(0));
        carry /= 10;
    }
}

fn rem_small(digits: &[u8], n: u32) -> u32 {
    digits
        .iter()
        .fold(0u32, |r, d| (r * 10 + u32::from(*d)) % n)
}

fn div_small(digits: &[u8], n: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(digits.len());
    let mut r = 0u32;
    for d in digits {
        let v = r * 10 + u32::from(*d);
        out.push(u8::try_from(v / n).unwrap_or(0));
        r = v % n;
    }
    out
}

/// The sign of [`parse`]'s value for the common texts (digits, then nothing or one of the
/// suffixes), without parsing them into digits: `None` for any other text, which [`parse`]
/// then decides. A whole number of a positive unit is zero exactly when its digits are all
/// zeros (rounding up to `1n` keeps it non-zero, capping keeps it positive).
pub(crate) fn simple_signum(s: &str) -> Option<i32> {
    let b = s.as_bytes();
    let digits = b.iter().take_while(|d| d.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    match &b[digits..] {
        b"" | b"n" | b"u" | b"m" | b"k" | b"M" | b"G" | b"T" | b"P" | b"E" | b"Ki" | b"Mi"
        | b"Gi" | b"Ti" | b"Pi" | b"Ei" => Some(i32::from(b[..digits].iter().any(|&d| d != b'0'))),
        _ => None,
    }
}

/// `resource.ParseQuantity`.
pub(crate) fn parse(s: &str) -> Result<Decimal, QuantityError> {
    if s.is_empty() {
        return Err(QuantityError::FormatWrong);
    }
    let b = s.as_bytes();
    let mut pos = 0;
    let mut neg = false;
    match b[0] {
        b'-' => {
            neg = true;
            pos += 1;
        }
        b'+' => pos += 1,
        _ => {}
    }
    while pos < b.len() && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= b.len() {
        return Ok(Decimal::default());
    }
    let num_start = pos;
    while pos < b.len() && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let num = &s[num_start..pos];
    let mut denom = "";
    if pos < b.len() && b[pos] == b'.' {
        pos += 1;
        let start = pos;
        while pos < b.len() && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[start..pos];
    }
    let suffix_start = pos;
    while pos < b.len() && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < b.len() && matches!(b[pos], b'-' | b'+') {
        pos += 1;
    }
    while pos < b.len() && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < b.len() {
        return Err(QuantityError::FormatWrong);
    }
    let suffix = &s[suffix_start..];
    let (base, exponent, format) = match suffix {
        "" => (10, 0i64, Format::DecimalSi),
        "n" => (10, -9, Format::DecimalSi),
        "u" => (10, -6, Format::DecimalSi),
        "m" => (10, -3, Format::DecimalSi),
        "k" => (10, 3, Format::DecimalSi),
        "M" => (10, 6, Format::DecimalSi),
        "G" => (10, 9, Format::DecimalSi),
        "T" => (10, 12, Format::DecimalSi),
        "P" => (10, 15, Format::DecimalSi),
        "E" => (10, 18, Format::DecimalSi),
        "Ki" => (2, 10, Format::BinarySi),
        "Mi" => (2, 20, Format::BinarySi),
        "Gi" => (2, 30, Format::BinarySi),
        "Ti" => (2, 40, Format::BinarySi),
        "Pi" => (2, 50, Format::BinarySi),
        "Ei" => (2, 60, Format::BinarySi),
        s if s.len() > 1 && (s.starts_with('e') || s.starts_with('E')) => {
            let e: i64 = s[1..].parse().map_err(|_| QuantityError::Suffix)?;
            // Go keeps the exponent in an int32.
            (10, i64::from(e as i32), Format::DecimalExponent)
        }
        _ => return Err(QuantityError::Suffix),
    };
    let digits: Vec<u8> = num.bytes().chain(denom.bytes()).map(|d| d - b'0').collect();
    let exp = -(denom.len() as i64);
    let mut value = if base == 10 {
        Decimal::new(neg, digits, exp + exponent, format)
    } else {
        let mut d = digits;
        mul_small(&mut d, 1u128 << exponent);
        Decimal::new(neg, d, exp, format)
    };
    // Rounded up (away from zero) to nano precision.
    value = value.round_up_to(-9);
    // Binary quantities are capped at the largest int64.
    if format == Format::BinarySi {
        let max = Decimal::new(
            false,
            i64::MAX.to_string().bytes().map(|d| d - b'0').collect(),
            0,
            format,
        );
        if cmp_magnitude(&value, &max) == Ordering::Greater {
            value = Decimal {
                neg: value.neg,
                ..max
            };
        }
        // A binary quantity below one is written as DecimalSI.
        if value.exp + (value.digits.len() as i64) <= 0 && !value.digits.is_empty() {
            value.format = Format::DecimalSi;
        }
    }
    Ok(value)
}
