//! The one RFC 3339 form Kubernetes writes, `2006-01-02T15:04:05Z` with an optional
//! fraction, parsed and printed by hand.
//!
//! Nearly every timestamp a server sends has this form, and jiff's general parser and
//! printer (every RFC 3339 and ISO 8601 variant, offsets, time zones) cost several times
//! more per value than the rest of the field's deserialization. [`parse`] handles only this
//! form and answers `None` for anything else, which the caller then hands to jiff: the
//! instant read is jiff's in every case (the tests compare the two over many inputs).

use jiff::Timestamp;

/// Seconds in a day.
const DAY: i64 = 86_400;

/// The instant written as `YYYY-MM-DDTHH:MM:SS`, an optional `.` and one to nine digits,
/// and `Z`; `None` for any other text (including a valid timestamp of another form, such
/// as one with an offset or a leap second, which jiff reads).
#[inline]
pub(crate) fn parse(s: &[u8]) -> Option<Timestamp> {
    let (head, rest) = s.split_first_chunk::<19>()?;
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        head[range].iter().try_fold(0_i64, |n, &b| {
            b.is_ascii_digit().then(|| n * 10 + i64::from(b - b'0'))
        })
    };
    if head[4] != b'-'
        || head[7] != b'-'
        || head[10] != b'T'
        || head[13] != b':'
        || head[16] != b':'
    {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let (hour, minute, second) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let (nanos, rest) = match rest {
        [b'.', fraction @ ..] => {
            let len = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
            if !(1..=9).contains(&len) {
                return None;
            }
            let (digits, rest) = fraction.split_at(len);
            let value = digits
                .iter()
                .fold(0_i32, |n, &b| n * 10 + i32::from(b - b'0'));
            (value * 10_i32.pow(9 - u32::try_from(len).ok()?), rest)
        }
        rest => (0, rest),
    };
    if rest != b"Z" {
        return None;
    }
    let seconds = days_from_civil(year, month, day) * DAY + hour * 3600 + minute * 60 + second;
    Timestamp::new(seconds, nanos).ok()
}

/// A buffer for [`print`]: the longest form, `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
pub(crate) type Buffer = [u8; 27];

/// `ts` as `YYYY-MM-DDTHH:MM:SSZ` (`micros` false: whole seconds) or
/// `YYYY-MM-DDTHH:MM:SS.ffffffZ` (`micros` true), truncated towards the past, in `buffer`;
/// `None` for a year outside 0–9999, which this form cannot write.
///
/// Every field is written two digits at a time from a `u32` at a constant offset, so that
/// the whole form is straight-line code (a serialized Pod writes some thirty timestamps;
/// BENCHMARKS.md, section c).
#[inline]
pub(crate) fn print(ts: Timestamp, micros: bool, buffer: &mut Buffer) -> Option<&str> {
    let mut seconds = ts.as_second();
    let mut nanos = ts.subsec_nanosecond();
    if nanos < 0 {
        seconds -= 1;
        nanos += 1_000_000_000;
    }
    let (year, month, day) = civil_from_days(seconds.div_euclid(DAY));
    let year = u32::try_from(year).ok().filter(|year| *year <= 9999)?;
    // In 0..DAY, so it fits.
    let of_day = u32::try_from(seconds.rem_euclid(DAY)).ok()?;
    put2(buffer, 0, year / 100);
    put2(buffer, 2, year % 100);
    put2(buffer, 5, u32::try_from(month).ok()?);
    put2(buffer, 8, u32::try_from(day).ok()?);
    put2(buffer, 11, of_day / 3600);
    put2(buffer, 14, of_day / 60 % 60);
    put2(buffer, 17, of_day % 60);
    buffer[4] = b'-';
    buffer[7] = b'-';
    buffer[10] = b'T';
    buffer[13] = b':';
    buffer[16] = b':';
    let len = if micros {
        // `nanos` is in 0..1e9 here.
        let micros = u32::try_from(nanos / 1000).ok()?;
        put2(buffer, 20, micros / 10_000);
        put2(buffer, 22, micros / 100 % 100);
        put2(buffer, 24, micros % 100);
        buffer[19] = b'.';
        buffer[26] = b'Z';
        27
    } else {
        buffer[19] = b'Z';
        20
    };
    std::str::from_utf8(&buffer[..len]).ok()
}

/// Writes `value` (below 100) as two decimal digits at `at`.
#[inline]
fn put2(buffer: &mut Buffer, at: usize, value: u32) {
    // Digits: `value / 10` and `value % 10` are below 10 for `value` below 100.
    buffer[at] = b'0' + u8::try_from(value / 10 % 10).unwrap_or(0);
    buffer[at + 1] = b'0' + u8::try_from(value % 10).unwrap_or(0);
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of a day counted from 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// splitmix64: a fixed, dependency-free generator.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn jiff(s: &str) -> Option<Timestamp> {
        s.parse().ok()
    }

    #[test]
    fn parses_what_jiff_parses_in_the_common_form() {
        let mut rng = Rng(7);
        let mut fast = 0;
        for _ in 0..200_000 {
            // Field values a little out of range too, so that invalid dates are tried.
            let text = format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}Z",
                rng.below(10_000),
                rng.below(14),
                rng.below(33),
                rng.below(25),
                rng.below(61),
                rng.below(61),
                match rng.below(4) {
                    0 => String::new(),
                    1 => format!(".{}", rng.below(10)),
                    2 => format!(".{:06}", rng.below(1_000_000)),
                    _ => format!(".{:09}", rng.below(1_000_000_000)),
                },
            );
            let ours = parse(text.as_bytes());
            if ours.is_some() {
                fast += 1;
                assert_eq!(ours, jiff(&text), "{text}");
            } else if let Some(ts) = jiff(&text) {
                // Only a leap second is valid and left to jiff.
                assert!(text.contains(":60"), "{text} is {ts} for jiff");
            }
        }
        assert!(fast > 100_000, "{fast}");
    }

    #[test]
    fn leaves_other_forms_to_jiff() {
        for text in [
            "2024-01-02T03:04:05+01:00",
            "2024-01-02T03:04:05-00:00",
            "2024-01-02t03:04:05Z",
            "2024-01-02T03:04:05z",
            "2024-01-02 03:04:05Z",
            "2024-01-02T03:04:05,5Z",
            "2024-01-02T03:04:05.Z",
            "2024-01-02T03:04:05.1234567891Z",
            "2024-01-02T03:04:60Z",
            "2024-02-30T03:04:05Z",
            "2023-02-29T03:04:05Z",
            "2024-01-02T03:04:05",
            "2024-01-02T03:04:05Zjunk",
            "+2024-01-02T03:04:05Z",
            "2024-1-02T03:04:05Z",
            "",
        ] {
            assert_eq!(parse(text.as_bytes()), None, "{text}");
        }
        assert_eq!(
            parse(b"2024-02-29T23:59:59.999999999Z"),
            jiff("2024-02-29T23:59:59.999999999Z")
        );
        assert_eq!(parse(b"0000-01-01T00:00:00Z"), jiff("0000-01-01T00:00:00Z"));
        assert_eq!(parse(b"9999-12-31T23:59:59Z"), jiff("9999-12-31T23:59:59Z"));
    }

    #[test]
    fn prints_what_jiff_prints() {
        let mut rng = Rng(11);
        let span = Timestamp::MAX.as_second() - Timestamp::MIN.as_second();
        for i in 0..200_000 {
            let seconds = Timestamp::MIN.as_second()
                + i64::try_from(rng.below(u64::try_from(span).unwrap())).unwrap();
            let nanos = i32::try_from(rng.below(1_000_000_000)).unwrap();
            let nanos = if seconds < 0 && i % 2 == 0 {
                -nanos
            } else {
                nanos
            };
            let Ok(ts) = Timestamp::new(seconds, nanos) else {
                continue;
            };
            let mut buffer = Buffer::default();
            let whole =
                Timestamp::from_second(ts.as_second() - i64::from(ts.subsec_nanosecond() < 0))
                    .unwrap();
            let micros = Timestamp::from_nanosecond(
                ts.as_nanosecond() - ts.as_nanosecond().rem_euclid(1000),
            )
            .unwrap();
            match print(ts, false, &mut buffer) {
                Some(text) => assert_eq!(text, format!("{whole:.0}"), "{ts}"),
                None => {
                    assert!(!(0..=9999).contains(&whole.to_zoned(jiff::tz::TimeZone::UTC).year()))
                }
            }
            if let Some(text) = print(ts, true, &mut buffer) {
                assert_eq!(text, format!("{micros:.6}"), "{ts}");
            }
        }
        let mut buffer = Buffer::default();
        assert_eq!(
            print(Timestamp::constant(-62_167_219_200, 0), true, &mut buffer),
            Some("0000-01-01T00:00:00.000000Z")
        );
        assert_eq!(
            print(Timestamp::constant(-62_167_219_201, 0), false, &mut buffer),
            None
        );
    }
}
