//! Hostile scripts: whatever the bytes, `check_script` (the fuzzing entry
//! point) returns, without a panic, either a report or an error naming a
//! line of the script, and the engine work it does is bounded.
//!
//! The inputs are arbitrary bytes, text made of packetdrill's tokens, and
//! copies of the corpus in tests/packetdrill with a few mutations each
//! (bytes deleted, inserted or duplicated, lines swapped, numbers changed):
//! the last mostly still parse, so they run the engine on odd ACKs,
//! windows, options and times.

use std::path::Path;

use losslab_drill::{check_script, script, Report, Verdict, MAX_ENGINE_STEPS};
use proptest::prelude::*;

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/packetdrill");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pkt"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    assert!(out.len() >= 10, "the corpus is in {}", dir.display());
    out
}

/// The result is a report or an error at a line of `bytes`.
fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let lines = bytes.split(|&b| b == b'\n').count();
    match check_script("fuzz.pkt", bytes) {
        Ok(r) => prop_assert!(r.engine_steps <= MAX_ENGINE_STEPS),
        Err(e) => {
            prop_assert_eq!(e.file.as_str(), "fuzz.pkt");
            prop_assert!(
                (1..=lines.max(1)).contains(&e.line),
                "line {} of {}: {}",
                e.line,
                lines,
                e.message
            );
            prop_assert!(e.column.is_none_or(|c| c >= 1));
            prop_assert!(!e.message.is_empty());
        }
    }
    Ok(())
}

const TOKENS: &[&str] = &[
    "0",
    "+0",
    "+.1",
    "+924.6",
    "+924.7",
    "1.0~0.5",
    "+.3~+.31",
    "+0...0.010",
    "...",
    "*",
    "nan",
    "1e9",
    "-1",
    "<",
    ">",
    "S",
    "S.",
    ".",
    "P.",
    "F.",
    "R",
    "-",
    "SEW",
    "0:0(0)",
    "1:1001(1000)",
    "1001:2001(1000)",
    "1:1(0)",
    "4294967295:4294967295(0)",
    "ack",
    "1",
    "1001",
    "4294967295",
    "win",
    "320",
    "65535",
    "0",
    "urg",
    "<mss 1000,sackOK,nop,nop,nop,wscale 7>",
    "<mss 0,wscale 255>",
    "<mss 1,TS val 4294967295 ecr 0>",
    "<sack 1001:2001 3001:4001>",
    "<sack 2001:1001>",
    "<...>",
    "<FO>",
    "%{",
    "}%",
    "assert tcpi_snd_cwnd == 10",
    "X = 0x7fffffff",
    "`",
    "../common/defaults.sh",
    "sysctl -q net.ipv4.tcp_sack=0",
    "sysctl -q net.ipv4.tcp_recovery=0",
    "sysctl -q net.ipv4.tcp_early_retrans=3",
    "/*",
    "*/",
    "//",
    "\"",
    "(",
    ")",
    "socket(..., SOCK_STREAM, IPPROTO_TCP) = 3",
    "bind(3, ..., ...) = 0",
    "listen(3, 1) = 0",
    "accept(3, ..., ...) = 4",
    "connect(3, ..., ...) = 0",
    "write(4, ..., 1000) = 1000",
    "write(4, ..., 18446744073709551615) = 18446744073709551615",
    "close(4) = 0",
    "--tolerance_usecs=10000",
    "--tolerance_usecs=99999999999",
    "é",
    "\u{0}",
    "\r",
    "\t",
];

/// Text made of packetdrill's tokens and separators.
fn token_text() -> impl Strategy<Value = String> {
    let tok = prop::sample::select(TOKENS);
    let sep = prop::sample::select(&[" ", " ", "\n", "\n", "", ","][..]);
    prop::collection::vec((tok, sep), 0..60)
        .prop_map(|v| v.into_iter().flat_map(|(t, s)| [t, s]).collect())
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete { at: f64, len: usize },
    Insert { at: f64, bytes: Vec<u8> },
    Token { at: f64, token: &'static str },
    DuplicateLine { at: f64 },
    SwapLines { a: f64, b: f64 },
    Number { at: f64, value: &'static str },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = 0.0..1.0f64;
    prop_oneof![
        (at.clone(), 1..20usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (at.clone(), prop::collection::vec(any::<u8>(), 1..4))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (at.clone(), prop::sample::select(TOKENS))
            .prop_map(|(at, token)| Mutation::Token { at, token }),
        at.clone().prop_map(|at| Mutation::DuplicateLine { at }),
        (at.clone(), at.clone()).prop_map(|(a, b)| Mutation::SwapLines { a, b }),
        (
            at,
            prop::sample::select(
                &[
                    "0",
                    "1",
                    "7",
                    "48",
                    "999",
                    "65535",
                    "65536",
                    "4294967295",
                    "4294967296",
                    "18446744073709551616",
                    "0.000001",
                    "924.6",
                    ".",
                    "",
                ][..]
            )
        )
            .prop_map(|(at, value)| Mutation::Number { at, value }),
    ]
}

fn index(len: usize, at: f64) -> usize {
    ((len as f64 * at) as usize).min(len)
}

fn lines_of(b: &[u8]) -> Vec<Vec<u8>> {
    b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect()
}

fn apply(mut b: Vec<u8>, m: &Mutation) -> Vec<u8> {
    match m {
        Mutation::Delete { at, len } => {
            let i = index(b.len(), *at);
            let j = (i + len).min(b.len());
            b.drain(i..j);
        }
        Mutation::Insert { at, bytes } => {
            let i = index(b.len(), *at);
            b.splice(i..i, bytes.iter().copied());
        }
        Mutation::Token { at, token } => {
            let i = index(b.len(), *at);
            b.splice(i..i, token.bytes());
        }
        Mutation::DuplicateLine { at } => {
            let mut l = lines_of(&b);
            let i = index(l.len().saturating_sub(1), *at);
            let dup = l[i].clone();
            l.insert(i, dup);
            b = l.join(&b'\n');
        }
        Mutation::SwapLines { a, b: c } => {
            let mut l = lines_of(&b);
            let n = l.len().saturating_sub(1);
            l.swap(index(n, *a), index(n, *c));
            b = l.join(&b'\n');
        }
        Mutation::Number { at, value } => {
            // The digit run at or after the position.
            let i = index(b.len(), *at);
            if let Some(s) = (i..b.len()).find(|&k| b[k].is_ascii_digit()) {
                let e = (s..b.len())
                    .find(|&k| !b[k].is_ascii_digit())
                    .unwrap_or(b.len());
                b.splice(s..e, value.bytes());
            }
        }
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_are_a_report_or_an_error_at_a_line(
        bytes in prop::collection::vec(any::<u8>(), 0..400)
    ) {
        check(&bytes)?;
    }

    #[test]
    fn arbitrary_text_is_a_report_or_an_error_at_a_line(text in "\\PC{0,300}") {
        check(text.as_bytes())?;
    }

    #[test]
    fn packetdrill_tokens_are_a_report_or_an_error_at_a_line(text in token_text()) {
        check(text.as_bytes())?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    #[test]
    fn mutated_corpus_scripts_are_a_report_or_an_error_at_a_line(
        k in 0..64usize,
        ms in prop::collection::vec(mutation(), 1..5),
    ) {
        let c = corpus();
        let mut b = c[k % c.len()].1.clone();
        for m in &ms {
            b = apply(b, m);
        }
        check(&b)?;
    }
}

/// A passive open with a 100 ms RTT (lines 1-7) and one segment in
/// flight (lines 8-9).
const PROLOGUE: &str = include_str!("data/prologue.pkt");

fn run(text: &str) -> Report {
    check_script("t.pkt", text.as_bytes()).unwrap()
}

#[test]
fn the_corpus_passes_through_check_script() {
    for (name, bytes) in corpus() {
        let r = check_script(&name, &bytes).unwrap();
        assert_eq!(r.verdict, Verdict::Pass, "{name}: {:?}", r.notes);
        assert!(r.engine_steps < 1_000, "{name}: {}", r.engine_steps);
    }
}

#[test]
fn a_gap_at_the_cap_costs_a_bounded_number_of_engine_steps() {
    // With the segment unacknowledged through the whole gap, the engine
    // fires its RTO (200 ms doubling to 60 s, then every 60 s) and
    // retransmits: about 30 steps for 924.6 s, not one per microsecond or
    // per RTO_MIN, and no more for a gap of an hour, which is refused.
    let at_cap = run(&format!("{PROLOGUE}+924.6 < . 1:1(0) ack 1001 win 320\n"));
    assert_eq!(at_cap.verdict, Verdict::Pass);
    assert!(at_cap.engine_steps <= 64, "{}", at_cap.engine_steps);
    let short = run(&format!("{PROLOGUE}+1 < . 1:1(0) ack 1001 win 320\n"));
    assert!(short.engine_steps < at_cap.engine_steps);
    for gap in ["+3600", "+1000000000", "+999999999999"] {
        let e = check_script(
            "t.pkt",
            format!("{PROLOGUE}{gap} < . 1:1(0) ack 1001 win 320\n").as_bytes(),
        )
        .unwrap_err();
        assert_eq!(e.line, 10, "{gap}: {e}");
    }
}

#[test]
fn the_engine_step_budget_stops_a_long_script() {
    // Gaps that each pass the cap, enough of them to need more than
    // MAX_ENGINE_STEPS timer firings and retransmissions (the first gap
    // costs more than the next ones, whose RTO is backed off already).
    let gap = "+900 %{ assert tcpi_unacked == 1 }%\n";
    let steps = |n: usize| run(&format!("{PROLOGUE}{}", gap.repeat(n))).engine_steps;
    let per_gap = steps(2) - steps(1);
    let n = (MAX_ENGINE_STEPS / per_gap.max(1) + 10) as usize;
    let text = format!("{PROLOGUE}{}", gap.repeat(n));
    let r = run(&text);
    assert_eq!(r.engine_steps, MAX_ENGINE_STEPS);
    assert!(
        matches!(&r.verdict, Verdict::Unsupported { what, .. } if what.contains(&MAX_ENGINE_STEPS.to_string())),
        "{:?}",
        r.verdict
    );
}

#[test]
fn the_cap_is_linux_give_up_time() {
    // tcp_model_timeout(sk, tcp_retries2 = 15, TCP_RTO_MIN = 200 ms):
    // linear_backoff_thresh = ilog2(120 s / 200 ms) = 9, so
    // (2^10 - 1) * 200 ms + (15 - 9) * 120 s.
    let rto_min = 200_000i64;
    let rto_max = 120_000_000i64;
    let thresh = (rto_max / rto_min).ilog2() as i64;
    let linux = ((2 << thresh) - 1) * rto_min + (15 - thresh) * rto_max;
    assert_eq!(script::MAX_GAP_US, linux);
}
