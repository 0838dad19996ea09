//! `losslab model`: the paper's analytical model (crate::model) for one
//! set of parameters: `I_min` and the maximum utilization of each loss
//! recovery algorithm, original and with opportunistic retransmission, and
//! the application-stall bounds of Theorems 10 and 11.

use std::fmt::Write as _;

use clap::Args;
use losslab_sim::units::{parse_duration, parse_rate, parse_size, SIZE_LIKE};
use serde_json::{json, Value};

use crate::model::{
    i_min, min_grow_factor, stall_interval, stall_share, utilization, utilization_eq8,
    window_in_round, Alg, ModelParams, MIN_GROW_FACTOR,
};
use crate::Failure;

#[derive(Args, Debug)]
pub struct ModelArgs {
    /// Bottleneck capacity C, as a rate ("20Mbps").
    #[arg(long, default_value = "20Mbps")]
    pub rate: String,
    /// U: the round-trip propagation delay ("100ms").
    #[arg(long, default_value = "100ms")]
    pub delay: String,
    /// AW, the receive window: a size ("250kB") or packets ("167pkt")
    /// [default: C*U].
    #[arg(long)]
    pub awnd: Option<String>,
    /// n: consecutive lost packets.
    #[arg(long, default_value = "10")]
    pub burst: String,
    /// Multiplicative decrease (0.5 Reno, as the paper's Numerical rows;
    /// 0.7 CUBIC); QARR and BARR do not reduce.
    #[arg(long, default_value = "0.5")]
    pub beta: String,
    /// Packet size, converting the rate and a size of --awnd to packets
    /// (1500B reproduces the paper's Numerical rows).
    #[arg(long, default_value = "1500B")]
    pub packet: String,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The parsed command line: the model's parameters and what they came
/// from.
struct Input {
    p: ModelParams,
    rate_bps: u64,
    packet_bytes: u64,
    awnd_given: bool,
}

fn bad(flag: &str, got: &str, why: impl std::fmt::Display) -> Failure {
    Failure::BadInput(format!("--{flag} {got:?}: {why}"))
}

fn parse(a: &ModelArgs) -> Result<Input, Failure> {
    let rate_bps = parse_rate(&a.rate).map_err(|e| bad("rate", &a.rate, e))?;
    let delay_ns = parse_duration(&a.delay).map_err(|e| bad("delay", &a.delay, e))?;
    if delay_ns == 0 {
        return Err(bad("delay", &a.delay, "U must be greater than 0"));
    }
    let packet_bytes = parse_size(&a.packet).map_err(|e| bad("packet", &a.packet, e))?;
    if packet_bytes == 0 {
        return Err(bad(
            "packet",
            &a.packet,
            "a packet must hold at least 1 byte",
        ));
    }
    let burst_like = "expected a whole number of packets, at least 1, like \"10\"";
    let n: u64 = a
        .burst
        .trim()
        .parse()
        .map_err(|_| bad("burst", &a.burst, burst_like))?;
    if n == 0 {
        return Err(bad("burst", &a.burst, burst_like));
    }
    let beta_like = "expected a number in (0, 1], like \"0.5\" (Reno) or \"0.7\" (CUBIC)";
    let beta: f64 = a
        .beta
        .trim()
        .parse()
        .map_err(|_| bad("beta", &a.beta, beta_like))?;
    if !(beta > 0.0 && beta <= 1.0) {
        return Err(bad("beta", &a.beta, beta_like));
    }
    let u_s = delay_ns as f64 / 1e9;
    let mut p = ModelParams::from_link(rate_bps as f64, packet_bytes as f64, u_s, n as f64, beta);
    if let Some(aw) = &a.awnd {
        p.aw_pkts = parse_awnd(aw, packet_bytes)?;
        if p.aw_pkts < p.bdp_pkts() * (1.0 - 1e-6) {
            return Err(bad(
                "awnd",
                aw,
                format!(
                    "the model assumes AW >= C*U = {:.2} packets (here {:.2})",
                    p.bdp_pkts(),
                    p.aw_pkts
                ),
            ));
        }
    }
    let min_aw = 1.0 / beta;
    if p.ssthresh_pkts() < 1.0 {
        // The model counts ssthresh - 1 packets in the round (Theorems 1
        // and 6): below one packet it would idle the link past U.
        let need = format!(
            "the model needs ssthresh = beta*AW >= 1 packet, so with --beta {beta} \
             AW >= {min_aw:.2} packets ({:.0} B)",
            (min_aw * packet_bytes as f64).ceil()
        );
        return Err(match &a.awnd {
            Some(aw) => bad(
                "awnd",
                aw,
                format!("{need}; got AW = {:.4} packets", p.aw_pkts),
            ),
            None => Failure::BadInput(format!(
                "--rate {:?} and --delay {:?}: {need}; AW defaults to C*U = {:.4} packets here: \
                 give a larger --rate, --delay or --awnd",
                a.rate, a.delay, p.aw_pkts
            )),
        });
    }
    if p.n > p.aw_pkts {
        return Err(bad(
            "burst",
            &a.burst,
            format!(
                "n cannot exceed the window AW = {:.2} packets it was lost from",
                p.aw_pkts
            ),
        ));
    }
    p.check().map_err(Failure::BadInput)?;
    Ok(Input {
        p,
        rate_bps,
        packet_bytes,
        awnd_given: a.awnd.is_some(),
    })
}

/// `--awnd`: packets ("167pkt", fractions allowed) or a size in bytes.
fn parse_awnd(s: &str, packet_bytes: u64) -> Result<f64, Failure> {
    let like = format!("expected packets like \"167pkt\" or {SIZE_LIKE}");
    let t = s.trim();
    for unit in ["packets", "pkts", "pkt"] {
        if let Some(num) = t.strip_suffix(unit) {
            return match num.trim().parse::<f64>() {
                Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
                _ => Err(bad("awnd", s, like)),
            };
        }
    }
    match parse_size(t) {
        Ok(b) if b > 0 => Ok(b as f64 / packet_bytes as f64),
        _ => Err(bad("awnd", s, like)),
    }
}

fn row(alg: Alg, or: bool, p: &ModelParams) -> Value {
    json!({
        "theorem": alg.theorem(or),
        "window_pkts": window_in_round(alg, p),
        "i_min_ms": i_min(alg, or, p) * 1e3,
        "utilization": utilization(alg, or, p),
        "utilization_eq8": utilization_eq8(alg, or, p),
    })
}

fn document(inp: &Input) -> Value {
    let p = &inp.p;
    let cw = p.aw_pkts;
    let interval = stall_interval(cw, p.beta);
    let pkt = inp.packet_bytes as f64;
    json!({
        "params": {
            "rate_bps": inp.rate_bps,
            "packet_bytes": inp.packet_bytes,
            "c_pps": p.c_pps,
            "u_s": p.u_s,
            "bdp_pkts": p.bdp_pkts(),
            "aw_pkts": p.aw_pkts,
            "n": p.n,
            "beta": p.beta,
            "ssthresh_pkts": p.ssthresh_pkts(),
        },
        "utilization": "1 - I_min/U, the convention of the paper's Numerical rows",
        "utilization_eq8": "n / (C*I_min + n), eq. (8) as printed",
        "algorithms": Alg::ALL.iter().map(|&alg| json!({
            "name": alg.name(),
            "label": alg.label(),
            "reconstructed": alg.reconstructed(),
            "original": row(alg, false, p),
            "or": row(alg, true, p),
        })).collect::<Vec<_>>(),
        "stall": {
            "cw_pkts": cw,
            "sndbuf_pkts": 2.0 * cw,
            "interval_pkts": interval.map(|(l, h)| [l, h]),
            "interval_bytes": interval.map(|(l, h)| [l * pkt, h * pkt]),
            "share": stall_share(p.beta),
            "min_grow_factor": min_grow_factor(p.beta),
            "min_grow_factor_any_beta": MIN_GROW_FACTOR,
        },
    })
}

fn kb(pkts: f64, packet_bytes: u64) -> String {
    format!("{:.1} kB", pkts * packet_bytes as f64 / 1e3)
}

fn render(inp: &Input) -> String {
    let p = &inp.p;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "loss recovery after a burst of n consecutive losses: the model of the \
         opportunistic-retransmission paper (docs/MODEL.md)"
    );
    let _ = writeln!(
        s,
        "C = {:.2} packets/s ({} Mbit/s of {} B packets), U = {} ms, C*U = {:.2} packets",
        p.c_pps,
        inp.rate_bps as f64 / 1e6,
        inp.packet_bytes,
        p.u_s * 1e3,
        p.bdp_pkts()
    );
    let _ = writeln!(
        s,
        "AW = CW = {:.2} packets{}, n = {}, beta = {} (ssthresh {:.2} packets)",
        p.aw_pkts,
        if inp.awnd_given { "" } else { " (C*U)" },
        p.n,
        p.beta,
        p.ssthresh_pkts()
    );
    let _ = writeln!(s);
    let header = [
        "algorithm",
        "recovery",
        "I_min ms",
        "utilization",
        "eq.(8)",
        "theorem",
    ];
    let mut rows: Vec<[String; 6]> = Vec::new();
    for alg in Alg::ALL {
        for or in [false, true] {
            rows.push([
                if or { String::new() } else { alg.name().into() },
                if or { "w/ OR" } else { "original" }.into(),
                format!("{:.2}", i_min(alg, or, p) * 1e3),
                format!("{:.3}", utilization(alg, or, p)),
                format!("{:.3}", utilization_eq8(alg, or, p)),
                format!(
                    "{}{}",
                    alg.theorem(or),
                    if alg.reconstructed() { " *" } else { "" }
                ),
            ]);
        }
    }
    let mut width: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let line = |cells: &[&str]| {
        let mut l = String::new();
        for (i, (c, w)) in cells.iter().zip(&width).enumerate() {
            if (2..5).contains(&i) {
                let _ = write!(l, "{c:>w$}  ");
            } else {
                let _ = write!(l, "{c:<w$}  ");
            }
        }
        l.trim_end().to_string()
    };
    let _ = writeln!(s, "{}", line(&header));
    for r in &rows {
        let cells: Vec<&str> = r.iter().map(String::as_str).collect();
        let _ = writeln!(s, "{}", line(&cells));
    }
    let _ = writeln!(
        s,
        "* reconstructed (lost from the paper's text; docs/MODEL.md). utilization = \
         1 - I_min/U, as the paper's Numerical rows; eq.(8) = n/(C*I_min + n) as printed."
    );
    let _ = writeln!(s);
    let cw = p.aw_pkts;
    let _ = writeln!(
        s,
        "application stall with OR (Theorem 10; steady-state sndbuf = 2*CW = {:.2} packets):",
        2.0 * cw
    );
    match stall_interval(cw, p.beta) {
        Some((low, high)) => {
            let _ = writeln!(
                s,
                "  stalls when (1-beta)CW < b_free <= 2CW/3: {low:.2} < b_free <= {high:.2} packets \
                 ({} < b_free <= {})",
                kb(low, inp.packet_bytes),
                kb(high, inp.packet_bytes)
            );
        }
        None => {
            let _ = writeln!(s, "  never stalls: (1-beta)CW >= 2CW/3 when beta <= 1/3");
        }
    }
    let _ = writeln!(
        s,
        "  share of free space (0, 2CW/3] that stalls: (2/3 - (1-beta))/(2/3) = {:.1}%",
        stall_share(p.beta) * 100.0
    );
    let _ = writeln!(
        s,
        "minimum sndbuf growth factor (Theorem 11): 3(1+beta)/2 = {:.3} (eq. 21); \
         {MIN_GROW_FACTOR} prevents stall for every beta <= 1 (eq. 22)",
        min_grow_factor(p.beta)
    );
    s
}

pub fn model(a: ModelArgs) -> Result<(), Failure> {
    let inp = parse(&a)?;
    if a.json {
        let text = serde_json::to_string_pretty(&document(&inp)).expect("serialises");
        println!("{text}");
    } else {
        print!("{}", render(&inp));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn args(f: impl FnOnce(&mut ModelArgs)) -> ModelArgs {
        let mut a = ModelArgs {
            rate: "20Mbps".into(),
            delay: "100ms".into(),
            awnd: None,
            burst: "10".into(),
            beta: "0.5".into(),
            packet: "1500B".into(),
            json: false,
        };
        f(&mut a);
        a
    }

    fn err(a: ModelArgs) -> String {
        match parse(&a) {
            Err(Failure::BadInput(m)) => m,
            Err(e) => panic!("not bad input: {e}"),
            Ok(_) => panic!("accepted"),
        }
    }

    #[test]
    fn awnd_in_packets_or_bytes() {
        let inp = parse(&args(|a| a.awnd = Some("200pkt".into()))).unwrap();
        assert_eq!(inp.p.aw_pkts, 200.0);
        let inp = parse(&args(|a| a.awnd = Some("300kB".into()))).unwrap();
        assert_eq!(inp.p.aw_pkts, 200.0);
        // The default is C*U.
        let inp = parse(&args(|_| {})).unwrap();
        assert!((inp.p.aw_pkts - 500.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn bad_flags_are_named() {
        assert!(err(args(|a| a.rate = "20Mbit".into())).starts_with("--rate \"20Mbit\""));
        assert!(err(args(|a| a.delay = "0ms".into())).starts_with("--delay"));
        assert!(err(args(|a| a.burst = "ten".into())).starts_with("--burst"));
        assert!(err(args(|a| a.burst = "0".into())).starts_with("--burst"));
        assert!(err(args(|a| a.burst = "500".into())).contains("cannot exceed"));
        assert!(err(args(|a| a.beta = "1.2".into())).starts_with("--beta"));
        assert!(err(args(|a| a.beta = "nan".into())).starts_with("--beta"));
        assert!(err(args(|a| a.packet = "0B".into())).starts_with("--packet"));
        let m = err(args(|a| a.awnd = Some("100pkt".into())));
        assert!(m.starts_with("--awnd") && m.contains("AW >= C*U"), "{m}");
        assert!(err(args(|a| a.awnd = Some("lots".into()))).contains("167pkt"));
    }

    /// `--rate 1bps --awnd 1pkt --burst 1` printed a utilization of
    /// -60000: ssthresh = 0.5 packets, and the round counted -0.5 of them.
    #[test]
    fn a_window_below_one_packet_after_the_reduction_is_refused() {
        let m = err(args(|a| {
            a.rate = "1bps".into();
            a.awnd = Some("1pkt".into());
            a.burst = "1".into();
        }));
        assert!(m.starts_with("--awnd \"1pkt\""), "{m}");
        assert!(
            m.contains("beta*AW >= 1") && m.contains("AW >= 2.00 packets"),
            "{m}"
        );
        // AW = C*U by default: the flags that make it are named.
        let m = err(args(|a| a.rate = "1bps".into()));
        assert!(
            m.starts_with("--rate \"1bps\" and --delay \"100ms\""),
            "{m}"
        );
        // The edge itself is inside: ssthresh of exactly one packet.
        let inp = parse(&args(|a| {
            a.rate = "1bps".into();
            a.awnd = Some("2pkt".into());
            a.burst = "2".into();
        }))
        .unwrap();
        assert_eq!(inp.p.ssthresh_pkts(), 1.0);
    }

    /// Every utilization the command prints (both columns, table and
    /// JSON) is in [0, 1] and every idle time is >= 0, for a sample of
    /// every input `parse` accepts.
    fn check_printed(inp: &Input) -> Result<(), TestCaseError> {
        let doc = document(inp);
        for a in doc["algorithms"].as_array().unwrap() {
            for row in [&a["original"], &a["or"]] {
                for k in ["utilization", "utilization_eq8"] {
                    let u = row[k].as_f64();
                    prop_assert!(
                        u.is_some_and(|u| (0.0..=1.0).contains(&u)),
                        "{} {k} = {:?}: {:?}",
                        a["name"],
                        row[k],
                        inp.p
                    );
                }
                let i = row["i_min_ms"].as_f64();
                prop_assert!(
                    i.is_some_and(|i| i >= 0.0),
                    "{} i_min_ms = {:?}: {:?}",
                    a["name"],
                    row["i_min_ms"],
                    inp.p
                );
            }
        }
        let text = render(inp);
        let mut rows = 0;
        for line in text.lines() {
            let Some(rest) = line
                .split_once("original")
                .or_else(|| line.split_once("w/ OR"))
                .map(|(_, r)| r)
            else {
                continue;
            };
            rows += 1;
            let cells: Vec<&str> = rest.split_whitespace().take(3).collect();
            let [i_min, u, eq8] = cells[..] else {
                return Err(TestCaseError::fail(format!("row {line:?}")));
            };
            prop_assert!(!i_min.starts_with('-'), "{line}");
            for c in [u, eq8] {
                let x: f64 = c
                    .parse()
                    .map_err(|_| TestCaseError::fail(line.to_string()))?;
                prop_assert!(!c.starts_with('-') && (0.0..=1.0).contains(&x), "{line}");
            }
        }
        prop_assert_eq!(rows, 10, "{}", text);
        Ok(())
    }

    /// Any of a wide range of flag values, each log-uniform over its
    /// orders of magnitude (so windows and bursts of a packet or two come
    /// up as often as large ones); many combinations are refused (AW <
    /// C*U, n > AW, a window below a packet), which must be bad input,
    /// never a panic.
    fn wide() -> impl Strategy<Value = ModelArgs> {
        let log = |hi: f64| (0.0..hi).prop_map(|e: f64| 10f64.powf(e).round() as u64);
        (
            log(13.0),
            log(11.0),
            prop::option::of((-3.0f64..6.0, prop::bool::ANY)),
            log(6.0),
            prop_oneof![Just(1.0f64), Just(0.5), 1e-6f64..=1.0],
            log(4.8),
        )
            .prop_map(|(rate, delay_ns, aw, n, beta, pkt)| ModelArgs {
                rate: format!("{rate}bps"),
                delay: format!("{delay_ns}ns"),
                awnd: aw.map(|(e, bytes)| {
                    let x = 10f64.powf(e);
                    if bytes {
                        format!("{}B", (x * pkt as f64).ceil() as u64)
                    } else {
                        format!("{x}pkt")
                    }
                }),
                burst: n.to_string(),
                beta: beta.to_string(),
                packet: format!("{pkt}B"),
                json: false,
            })
    }

    /// Inputs inside the model, spread over many orders of magnitude
    /// (rate, delay and packet size log-uniform): AW = C*U when that is
    /// a window the model takes, else a multiple of the least it takes,
    /// n a share of AW, down to the one-packet edges.
    fn inside() -> impl Strategy<Value = ModelArgs> {
        (
            0.0f64..11.0,
            0.0f64..10.0,
            0.0f64..4.0,
            prop::option::of(0.0f64..8.0),
            0.0f64..=1.0,
            prop_oneof![Just(1.0f64), Just(0.5), 1e-3f64..=1.0],
        )
            .prop_map(|(rate_exp, delay_exp, pkt_exp, aw_exp, share, beta)| {
                let rate = 10f64.powf(rate_exp).round() as u64;
                let delay_ns = 10f64.powf(delay_exp).round() as u64;
                let pkt = 10f64.powf(pkt_exp).round() as u64;
                let bdp = rate as f64 / (8.0 * pkt as f64) * (delay_ns as f64 / 1e9);
                let least = bdp.max(1.0 / beta) * (1.0 + 1e-9);
                let aw = match aw_exp {
                    None if bdp >= 1.0 / beta => None,
                    e => Some(least * 10f64.powf(e.unwrap_or(0.0))),
                };
                let n = (aw.unwrap_or(bdp) * share).floor().max(1.0) as u64;
                ModelArgs {
                    rate: format!("{rate}bps"),
                    delay: format!("{delay_ns}ns"),
                    awnd: aw.map(|x| format!("{x}pkt")),
                    burst: n.to_string(),
                    beta: beta.to_string(),
                    packet: format!("{pkt}B"),
                    json: false,
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn wide_inputs_print_utilizations_in_0_1_or_are_refused(a in wide()) {
            match parse(&a) {
                Ok(inp) => check_printed(&inp)?,
                Err(Failure::BadInput(_)) => {}
                Err(e) => prop_assert!(false, "{e}"),
            }
        }

        #[test]
        fn accepted_inputs_print_utilizations_in_0_1(a in inside()) {
            let inp = parse(&a);
            prop_assume!(inp.is_ok());
            check_printed(&inp.unwrap())?;
        }
    }

    #[test]
    fn the_table_names_every_algorithm_and_theorem() {
        let text = render(&parse(&args(|_| {})).unwrap());
        for alg in Alg::ALL {
            assert!(text.contains(alg.name()), "{text}");
        }
        for t in 1..=11 {
            assert!(text.contains(&format!("Theorem {t}")), "{t}: {text}");
        }
    }
}
