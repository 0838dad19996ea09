//! The units of scenario files (../../docs/SCENARIO.md): durations, rates,
//! sizes and queue limits, parsed from strings such as "200ms", "20Mbps",
//! "4.3MB" or "300pkt", and printed back in the same forms.
//!
//! Numbers are read as exact decimals, not floats: "4.3MB" must be exactly
//! 4_300_000 bytes and "0.1s" exactly 100_000_000 ns, or scenarios written
//! by hand would drift by a nanosecond or a byte from what they say.

use crate::scenario::QueueLimit;
use losslab_core::time::Time;

/// What a duration looks like, for error messages.
pub const DURATION_LIKE: &str = r#"a duration like "200ms", "1.5s", "10us" or "2m""#;
/// What a rate looks like, for error messages.
pub const RATE_LIKE: &str = r#"a rate like "20Mbps", "1Gbps" or "950kbps""#;
/// What a size looks like, for error messages.
pub const SIZE_LIKE: &str = r#"a size like "1448B", "64kB", "4.3MB" or "16MiB""#;
/// What a queue limit looks like, for error messages.
pub const QUEUE_LIKE: &str = r#"a queue limit: a size like "4.3MB" or packets like "300pkt""#;

const DURATION_UNITS: &[(&str, u64)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];
const DURATION_UNIT_LIST: &str = "ns, us, ms, s, m (minutes) or h";

const RATE_UNITS: &[(&str, u64)] = &[
    ("bps", 1),
    ("kbps", 1_000),
    ("Kbps", 1_000),
    ("Mbps", 1_000_000),
    ("mbps", 1_000_000),
    ("Gbps", 1_000_000_000),
    ("gbps", 1_000_000_000),
];
const RATE_UNIT_LIST: &str = "bps, kbps, Mbps or Gbps";

const SIZE_UNITS: &[(&str, u64)] = &[
    ("B", 1),
    ("kB", 1_000),
    ("KB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
];
const SIZE_UNIT_LIST: &str = "B, kB, MB, GB, KiB, MiB or GiB";

const PACKET_UNITS: &[&str] = &["pkt", "pkts", "packets"];

/// A non-negative decimal number: `mantissa / 10^scale`.
#[derive(Clone, Copy, Debug)]
struct Decimal {
    mantissa: u128,
    scale: u32,
}

/// Why a string is not a valid quantity; turned into a message by
/// `Kind::message`, which knows what the quantity should have looked like.
enum Problem {
    Empty,
    Negative,
    NoNumber,
    NoUnit,
    UnknownUnit(String),
    TooLarge,
    TooManyDigits,
}

/// Above this many digits the exact arithmetic below could overflow u128,
/// and no real scenario needs them.
const MAX_DIGITS: u32 = 30;

/// Splits "1.5 ms" into (1.5, "ms").
fn split(s: &str) -> Result<(Decimal, &str), Problem> {
    let s = s.trim();
    if s.is_empty() {
        return Err(Problem::Empty);
    }
    if s.starts_with('-') {
        return Err(Problem::Negative);
    }
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = (&s[..end], s[end..].trim_start());
    let (int, frac) = match number.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (number, None),
    };
    // "5." and ".5" are rejected so that every accepted number reads the
    // same way it is printed back.
    if int.is_empty() || frac.is_some_and(|f| f.is_empty() || f.contains('.')) {
        return Err(Problem::NoNumber);
    }
    let frac = frac.unwrap_or("");
    let digits = int.trim_start_matches('0').len() + frac.len();
    if digits as u32 > MAX_DIGITS {
        return Err(Problem::TooManyDigits);
    }
    let mut mantissa: u128 = 0;
    for c in int.chars().chain(frac.chars()) {
        mantissa = mantissa * 10 + u128::from(c as u8 - b'0');
    }
    if unit.is_empty() {
        return Err(Problem::NoUnit);
    }
    Ok((
        Decimal {
            mantissa,
            scale: frac.len() as u32,
        },
        unit,
    ))
}

/// `value * factor` rounded to the nearest integer (halves away from zero),
/// and whether that rounding changed anything.
fn scale(value: Decimal, factor: u64) -> Result<(u64, bool), Problem> {
    let product = value
        .mantissa
        .checked_mul(u128::from(factor))
        .ok_or(Problem::TooLarge)?;
    let divisor = 10u128.pow(value.scale);
    let (mut q, r) = (product / divisor, product % divisor);
    if 2 * r >= divisor {
        q += 1;
    }
    let q = u64::try_from(q).map_err(|_| Problem::TooLarge)?;
    Ok((q, r != 0))
}

fn lookup(units: &[(&str, u64)], unit: &str) -> Result<u64, Problem> {
    units
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|&(_, factor)| factor)
        .ok_or_else(|| Problem::UnknownUnit(unit.to_string()))
}

#[derive(Clone, Copy)]
enum Kind {
    Duration,
    Rate,
    Size,
    Queue,
}

impl Kind {
    fn message(self, got: &str, problem: Problem) -> String {
        let (like, noun, units) = match self {
            Kind::Duration => (DURATION_LIKE, "a duration", DURATION_UNIT_LIST),
            Kind::Rate => (RATE_LIKE, "a rate", RATE_UNIT_LIST),
            Kind::Size => (SIZE_LIKE, "a size", SIZE_UNIT_LIST),
            Kind::Queue => (
                QUEUE_LIKE,
                "a queue limit",
                "pkt, B, kB, MB, GB, KiB, MiB or GiB",
            ),
        };
        let reason = match problem {
            Problem::Empty | Problem::NoNumber => String::new(),
            Problem::Negative => format!(" ({noun} cannot be negative)"),
            Problem::NoUnit => format!(" ({noun} needs a unit: {units})"),
            Problem::UnknownUnit(u) => format!(" (unknown unit {u:?}; use {units})"),
            Problem::TooLarge => " (too large)".to_string(),
            Problem::TooManyDigits => format!(" (more than {MAX_DIGITS} digits)"),
        };
        format!("expected {like}, got {got:?}{reason}")
    }
}

/// Parses a duration such as "200ms", "1.5s", "10us", "2m" (minutes) or
/// "1h" into nanoseconds, rounded to the nearest nanosecond.
pub fn parse_duration(s: &str) -> Result<Time, String> {
    let kind = Kind::Duration;
    let (value, unit) = split(s).map_err(|p| kind.message(s, p))?;
    let factor = lookup(DURATION_UNITS, unit).map_err(|p| kind.message(s, p))?;
    scale(value, factor)
        .map(|(ns, _)| ns)
        .map_err(|p| kind.message(s, p))
}

/// Parses a rate such as "20Mbps", "1Gbps" or "950kbps" into bits per
/// second, rounded to the nearest bit per second. A rate of 0 is an error:
/// nothing would ever be sent.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let kind = Kind::Rate;
    let (value, unit) = split(s).map_err(|p| kind.message(s, p))?;
    let factor = lookup(RATE_UNITS, unit).map_err(|p| kind.message(s, p))?;
    let (bps, _) = scale(value, factor).map_err(|p| kind.message(s, p))?;
    if bps == 0 {
        return Err(format!(
            "expected {RATE_LIKE}, got {s:?} (a rate must be greater than 0)"
        ));
    }
    Ok(bps)
}

/// Parses a size such as "1448B", "64kB", "4.3MB" or "16MiB" into bytes
/// (kB = 1000, KiB = 1024). A size that is not a whole number of bytes,
/// like "1.5B" or "0.1KiB", is an error rather than silently rounded.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let (value, unit) = split(s).map_err(|p| Kind::Size.message(s, p))?;
    size_in(Kind::Size, s, value, unit)
}

fn size_in(kind: Kind, s: &str, value: Decimal, unit: &str) -> Result<u64, String> {
    let factor = lookup(SIZE_UNITS, unit).map_err(|p| kind.message(s, p))?;
    let (bytes, rounded) = scale(value, factor).map_err(|p| kind.message(s, p))?;
    if rounded {
        return Err(format!(
            "expected {}, got {s:?} (not a whole number of bytes)",
            match kind {
                Kind::Queue => QUEUE_LIKE,
                _ => SIZE_LIKE,
            }
        ));
    }
    Ok(bytes)
}

/// Parses a drop-tail queue limit: a size ("4.3MB") or a packet count
/// ("300pkt"). An empty queue is an error: a link that can hold nothing
/// delivers nothing.
pub fn parse_queue(s: &str) -> Result<QueueLimit, String> {
    let kind = Kind::Queue;
    let (value, unit) = split(s).map_err(|p| kind.message(s, p))?;
    let limit = if PACKET_UNITS.contains(&unit) {
        let (n, rounded) = scale(value, 1).map_err(|p| kind.message(s, p))?;
        if rounded {
            return Err(format!(
                "expected {QUEUE_LIKE}, got {s:?} (not a whole number of packets)"
            ));
        }
        QueueLimit::Packets(n)
    } else {
        QueueLimit::Bytes(size_in(kind, s, value, unit)?)
    };
    match limit {
        QueueLimit::Bytes(0) | QueueLimit::Packets(0) => Err(format!(
            "expected {QUEUE_LIKE}, got {s:?} (a queue must hold at least one packet)"
        )),
        limit => Ok(limit),
    }
}

/// `value / unit` as an exact decimal ("1.5").
fn exact(value: u64, unit: u64) -> String {
    let int = value / unit;
    let mut rem = u128::from(value % unit);
    let unit = u128::from(unit);
    let mut out = int.to_string();
    if rem != 0 {
        out.push('.');
        // Every unit here is 10^a * 2^b, so the expansion terminates.
        while rem != 0 {
            rem *= 10;
            out.push(char::from(b'0' + (rem / unit) as u8));
            rem %= unit;
        }
    }
    out
}

/// The shortest exact rendering among `units` (in preference order on
/// ties), using only units the value is at least one of, so that 200 ms
/// prints as "200ms" and not "0.2s". `whole_only` units are used only for
/// exact multiples ("2m", never "1.5m").
fn shortest(value: u64, units: &[(&str, u64, bool)], zero: &str) -> String {
    units
        .iter()
        .filter(|&&(_, unit, whole_only)| {
            value >= unit && (!whole_only || value / unit * unit == value)
        })
        .map(|&(name, unit, _)| format!("{}{name}", exact(value, unit)))
        // min_by_key keeps the first of equally short renderings.
        .min_by_key(|text| text.len())
        .unwrap_or_else(|| zero.to_string())
}

/// Formats nanoseconds in the canonical form parse_duration reads back to
/// the same value: 200_000_000 -> "200ms", 1_500_000_000 -> "1.5s",
/// 120 s -> "2m".
pub fn format_duration(t: Time) -> String {
    shortest(
        t,
        &[
            ("h", 3_600_000_000_000, true),
            ("m", 60_000_000_000, true),
            ("s", 1_000_000_000, false),
            ("ms", 1_000_000, false),
            ("us", 1_000, false),
            ("ns", 1, false),
        ],
        "0s",
    )
}

/// Formats bits per second: 20_000_000 -> "20Mbps", 950_000 -> "950kbps".
pub fn format_rate(bps: u64) -> String {
    shortest(
        bps,
        &[
            ("Gbps", 1_000_000_000, false),
            ("Mbps", 1_000_000, false),
            ("kbps", 1_000, false),
            ("bps", 1, false),
        ],
        "0bps",
    )
}

/// Formats bytes: 1448 -> "1448B", 64_000 -> "64kB", 4_300_000 -> "4.3MB",
/// 16 << 20 -> "16MiB".
pub fn format_size(bytes: u64) -> String {
    shortest(
        bytes,
        &[
            ("GB", 1_000_000_000, false),
            ("GiB", 1 << 30, false),
            ("MB", 1_000_000, false),
            ("MiB", 1 << 20, false),
            ("kB", 1_000, false),
            ("KiB", 1 << 10, false),
            ("B", 1, false),
        ],
        "0B",
    )
}

/// Formats a queue limit: "4.3MB" or "300pkt".
pub fn format_queue(q: &QueueLimit) -> String {
    match q {
        QueueLimit::Bytes(b) => format_size(*b),
        QueueLimit::Packets(n) => format!("{n}pkt"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use losslab_core::time::{MS, SEC, US};

    #[test]
    fn durations() {
        assert_eq!(parse_duration("200ms"), Ok(200 * MS));
        assert_eq!(parse_duration("1.5s"), Ok(1_500 * MS));
        assert_eq!(parse_duration("10us"), Ok(10 * US));
        assert_eq!(parse_duration("10µs"), Ok(10 * US));
        assert_eq!(parse_duration("2m"), Ok(120 * SEC));
        assert_eq!(parse_duration("1h"), Ok(3600 * SEC));
        assert_eq!(parse_duration("7ns"), Ok(7));
        assert_eq!(parse_duration("0s"), Ok(0));
        assert_eq!(parse_duration("0ms"), Ok(0));
        assert_eq!(parse_duration("  20 ms "), Ok(20 * MS));
        assert_eq!(parse_duration("0.1s"), Ok(100 * MS));
        assert_eq!(parse_duration("007ms"), Ok(7 * MS));
        // Rounded to the nearest nanosecond, halves up.
        assert_eq!(parse_duration("1.4ns"), Ok(1));
        assert_eq!(parse_duration("1.5ns"), Ok(2));
        assert_eq!(parse_duration("0.0000000015s"), Ok(2));
    }

    #[test]
    fn bad_durations() {
        let e = parse_duration("20 furlongs").unwrap_err();
        assert!(
            e.starts_with(
                r#"expected a duration like "200ms", "1.5s", "10us" or "2m", got "20 furlongs""#
            ),
            "{e}"
        );
        assert!(e.contains("unknown unit \"furlongs\""), "{e}");
        let e = parse_duration("50").unwrap_err();
        assert!(e.contains("needs a unit"), "{e}");
        let e = parse_duration("-5ms").unwrap_err();
        assert!(e.contains("cannot be negative"), "{e}");
        for bad in [
            "", "  ", "ms", "fast", "1.2.3s", ".5s", "5.s", "1e3ms", "+5ms", "5 m s", "5MS",
            "5sec", "1,5s", "inf",
        ] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.starts_with("expected a duration like"), "{bad:?}: {e}");
            assert!(e.contains(&format!("{bad:?}")), "{bad:?}: {e}");
        }
        assert!(parse_duration("100000000000000h")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_duration("1234567890123456789012345678901s")
            .unwrap_err()
            .contains("digits"));
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("20Mbps"), Ok(20_000_000));
        assert_eq!(parse_rate("20 Mbps"), Ok(20_000_000));
        assert_eq!(parse_rate("20mbps"), Ok(20_000_000));
        assert_eq!(parse_rate("1Gbps"), Ok(1_000_000_000));
        assert_eq!(parse_rate("2.5gbps"), Ok(2_500_000_000));
        assert_eq!(parse_rate("950kbps"), Ok(950_000));
        assert_eq!(parse_rate("950Kbps"), Ok(950_000));
        assert_eq!(parse_rate("1.5Mbps"), Ok(1_500_000));
        assert_eq!(parse_rate("64bps"), Ok(64));
        assert_eq!(parse_rate("0.6bps"), Ok(1));
    }

    #[test]
    fn bad_rates() {
        let e = parse_rate("fast").unwrap_err();
        assert!(e.starts_with(r#"expected a rate like "20Mbps""#), "{e}");
        assert!(e.ends_with(r#"got "fast""#), "{e}");
        assert!(parse_rate("0Mbps").unwrap_err().contains("greater than 0"));
        assert!(parse_rate("0.4bps").unwrap_err().contains("greater than 0"));
        assert!(parse_rate("20").unwrap_err().contains("needs a unit"));
        assert!(parse_rate("-1Mbps").unwrap_err().contains("negative"));
        for bad in ["20MBps", "20Mb", "20 M", "20MBPS", "Mbps", ""] {
            assert!(parse_rate(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1448B"), Ok(1448));
        assert_eq!(parse_size("64kB"), Ok(64_000));
        assert_eq!(parse_size("64KB"), Ok(64_000));
        assert_eq!(parse_size("4.3MB"), Ok(4_300_000));
        assert_eq!(parse_size("16MiB"), Ok(16 << 20));
        assert_eq!(parse_size("1.5KiB"), Ok(1536));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("50 MB"), Ok(50_000_000));
        assert_eq!(parse_size("0B"), Ok(0));
        assert_eq!(parse_size("1.000B"), Ok(1));
    }

    #[test]
    fn bad_sizes() {
        let e = parse_size("1.5B").unwrap_err();
        assert!(e.contains("not a whole number of bytes"), "{e}");
        assert!(parse_size("0.1KiB").unwrap_err().contains("whole number"));
        assert!(parse_size("1448").unwrap_err().contains("needs a unit"));
        assert!(parse_size("-1B").unwrap_err().contains("negative"));
        let e = parse_size("10b").unwrap_err();
        assert!(e.starts_with(r#"expected a size like "1448B""#), "{e}");
        for bad in [
            "1mb",
            "1kb",
            "1Kib",
            "1 bytes",
            "big",
            "1.B",
            "99999999999GB",
        ] {
            assert!(parse_size(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn queues() {
        assert_eq!(parse_queue("300pkt"), Ok(QueueLimit::Packets(300)));
        assert_eq!(parse_queue("300 pkt"), Ok(QueueLimit::Packets(300)));
        assert_eq!(parse_queue("1pkts"), Ok(QueueLimit::Packets(1)));
        assert_eq!(parse_queue("4.3MB"), Ok(QueueLimit::Bytes(4_300_000)));
        assert_eq!(parse_queue("64KiB"), Ok(QueueLimit::Bytes(65_536)));
        let e = parse_queue("1.5pkt").unwrap_err();
        assert!(e.contains("whole number of packets"), "{e}");
        let e = parse_queue("1.5B").unwrap_err();
        assert!(e.contains("whole number of bytes"), "{e}");
        let e = parse_queue("0pkt").unwrap_err();
        assert!(e.contains("at least one packet"), "{e}");
        assert!(parse_queue("0MB").is_err());
        let e = parse_queue("300").unwrap_err();
        assert!(e.starts_with("expected a queue limit"), "{e}");
        let e = parse_queue("300 furlongs").unwrap_err();
        assert!(e.contains("unknown unit"), "{e}");
        assert!(parse_queue("-3pkt").unwrap_err().contains("negative"));
    }

    #[test]
    fn formatting() {
        assert_eq!(format_duration(200 * MS), "200ms");
        assert_eq!(format_duration(1_500 * MS), "1.5s");
        assert_eq!(format_duration(10 * US), "10us");
        assert_eq!(format_duration(120 * SEC), "2m");
        assert_eq!(format_duration(90 * SEC), "90s");
        assert_eq!(format_duration(7200 * SEC), "2h");
        assert_eq!(format_duration(0), "0s");
        assert_eq!(format_duration(1), "1ns");
        assert_eq!(format_duration(1_234_567_891), "1.234567891s");
        assert_eq!(format_rate(20_000_000), "20Mbps");
        assert_eq!(format_rate(950_000), "950kbps");
        assert_eq!(format_rate(1_000_000_000), "1Gbps");
        assert_eq!(format_rate(1_500_000), "1.5Mbps");
        assert_eq!(format_rate(12), "12bps");
        assert_eq!(format_size(1448), "1448B");
        assert_eq!(format_size(64_000), "64kB");
        assert_eq!(format_size(4_300_000), "4.3MB");
        assert_eq!(format_size(16 << 20), "16MiB");
        assert_eq!(format_size(1024), "1KiB");
        assert_eq!(format_size(0), "0B");
        assert_eq!(format_queue(&QueueLimit::Packets(300)), "300pkt");
        assert_eq!(format_queue(&QueueLimit::Bytes(4_300_000)), "4.3MB");
    }

    #[test]
    fn formatting_round_trips() {
        for t in [
            1,
            999,
            1_000,
            1_001,
            123_456_789,
            60 * SEC,
            61 * SEC,
            u64::MAX,
        ] {
            assert_eq!(parse_duration(&format_duration(t)), Ok(t), "{t}");
        }
        for r in [1, 999, 1_001, 20_000_000, 123_456_789_012, u64::MAX] {
            assert_eq!(parse_rate(&format_rate(r)), Ok(r), "{r}");
        }
        for b in [0, 1, 1023, 1025, 1 << 30, 3 << 29, 123_456_789, u64::MAX] {
            assert_eq!(parse_size(&format_size(b)), Ok(b), "{b}");
        }
    }
}
