//! `losslab bench`: simulator speed, in simulated packets (data + ACK) per
//! wall-clock second, on the reference flow and on the same flow at
//! four link rates, so that a per-packet cost growing with the window
//! shows up as a falling rate. Results and the machine go in
//! docs/BENCHMARKS.md.

use std::time::Instant;

use clap::Args;
use losslab_core::time::{MS, SEC};
use losslab_sim::scenario::*;
use losslab_sim::Simulation;
use serde::Serialize;

use crate::Failure;

#[derive(Args)]
pub struct BenchArgs {
    /// Simulated seconds per case.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
    /// 10 simulated seconds per case, for a quick look.
    #[arg(long)]
    pub quick: bool,
    /// Only the reference case (100 Mbit/s, 100 ms RTT, 0.1% loss).
    #[arg(long)]
    pub reference_only: bool,
    /// Print results as JSON.
    #[arg(long)]
    pub json: bool,
    /// Measure what tracing costs: the reference case and a loss-free
    /// 1 Gbit/s case run untraced, with every hook on but nothing kept, and
    /// writing every trace (time series, packet log, pcap at both ends).
    #[arg(long)]
    pub trace_cost: bool,
    /// Measure what pacing costs: a paced BBR flow against an unpaced
    /// CUBIC flow at 10 Gbit/s x 100 ms (loss-free and 0.1% loss), as a
    /// ratio of packets per wall second.
    #[arg(long)]
    pub pacing: bool,
    /// Measure the modern stack's cost per packet: one paced BBR flow
    /// with rate sampling, PRR, RACK and RACK-TLP at 1 Gbit/s, 100 ms RTT
    /// with 0.01% loss and 300 ms RTT with 0.5% loss (issue 33).
    #[arg(long)]
    pub modern: bool,
    /// Run losslab's side of the ns-3 anchor (../shared/anchors/ns3/,
    /// bulk-dumbbell.cc): CUBIC + PRR + SACK, 100 ms RTT, a one-BDP queue,
    /// socket buffers of 4 BDP; 100 Mbit/s with 0.1% loss for 600 s and
    /// 1 Gbit/s with 0.001% loss for 20 s, as docs/BENCHMARKS.md compares
    /// them (whatever --seconds says).
    #[arg(long)]
    pub ns3: bool,
}

/// Receives every event and keeps none: the cost of the hooks alone.
struct Discard;

impl losslab_sim::Tracer for Discard {
    fn wants_endpoint_events(&self) -> bool {
        true
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tracing {
    Off,
    Discard,
    Write,
}

#[derive(Serialize)]
struct Case {
    name: String,
    rate_bps: u64,
    loss: f64,
    sim_seconds: u64,
    wall_s: f64,
    data_packets: u64,
    ack_packets: u64,
    packets_per_s: f64,
    ns_per_packet: f64,
    events: u64,
    max_cwnd_segments: u64,
    goodput_bps: f64,
}

/// The reference flow of the issue: one bulk NewReno + RFC 6675 flow,
/// 100 ms RTT, drop-tail queue of one BDP, Bernoulli loss on data.
pub fn scenario(rate_bps: u64, loss: f64, seconds: u64) -> Scenario {
    scenario_with(
        rate_bps,
        loss,
        seconds,
        "newreno",
        losslab_core::Pacing::Auto,
    )
}

/// The reference flow with another controller and pacing setting.
fn scenario_with(
    rate_bps: u64,
    loss: f64,
    seconds: u64,
    cc: &str,
    pacing: losslab_core::Pacing,
) -> Scenario {
    let bdp_bytes = rate_bps / 8 / 10;
    let mut flow = FlowSpec::new("a");
    if cc != "newreno" {
        flow.cc = CcSpec::Named(cc.into());
    }
    flow.pacing = pacing;
    // The benchmark is specified as NewReno + RFC 6675 (the default
    // recovery is PRR).
    flow.recovery = "rfc6675".into();
    flow.receiver.rcvbuf = (4 * bdp_bytes).max(16_000_000);
    let model = if loss > 0.0 {
        LossModel::Bernoulli { p: loss }
    } else {
        LossModel::None
    };
    Scenario::single_path(
        &format!("bench-{}Mbps-loss{}", rate_bps / 1_000_000, loss),
        seconds * SEC,
        PathSpec::new(rate_bps, 50 * MS, QueueLimit::Bytes(bdp_bytes), model),
        vec![flow],
    )
}

fn run_case(name: &str, rate: u64, loss: f64, seconds: u64) -> Result<Case, Failure> {
    run_case_traced(name, rate, loss, seconds, Tracing::Off)
}

fn run_case_traced(
    name: &str,
    rate: u64,
    loss: f64,
    seconds: u64,
    tracing: Tracing,
) -> Result<Case, Failure> {
    measure(name, &scenario(rate, loss, seconds), tracing)
}

/// Runs one scenario of `scenario_with`'s shape and reports its speed.
fn measure(name: &str, sc: &Scenario, tracing: Tracing) -> Result<Case, Failure> {
    let (rate, seconds) = (sc.path.rate, sc.duration / SEC);
    let loss = match sc.path.loss {
        LossModel::Bernoulli { p } => p,
        _ => 0.0,
    };
    // A folder of its own (never a name that may be someone else's), gone
    // when the measurement ends.
    let scratch_dir = tempfile::Builder::new()
        .prefix("losslab-bench-")
        .tempdir()
        .map_err(|e| Failure::Runtime(format!("cannot make a scratch folder: {e}")))?;
    let scratch = scratch_dir.path().to_path_buf();
    // Short cases are repeated until half a second of wall time has
    // accumulated, so that timer resolution and warm-up do not dominate;
    // the simulation is deterministic, so every repetition is identical.
    let (mut wall, mut reps) = (0.0, 0u32);
    let r = loop {
        let mut sim = Simulation::new(sc).map_err(|e| Failure::Runtime(e.to_string()))?;
        let t0 = Instant::now();
        match tracing {
            Tracing::Off => {}
            Tracing::Discard => sim.set_tracer(Box::new(Discard)),
            Tracing::Write => {
                let t = crate::run::all_writers(&sim, &scratch, true)
                    .map_err(|e| Failure::Runtime(e.to_string()))?;
                sim.set_tracer(t);
            }
        }
        sim.run();
        if let Some(mut t) = sim.take_tracer() {
            t.finish().map_err(|e| Failure::Runtime(e.to_string()))?;
        }
        wall += t0.elapsed().as_secs_f64();
        reps += 1;
        if wall >= 0.5 || reps >= 1000 {
            break sim.results();
        }
    };
    let wall = wall / reps as f64;
    drop(scratch_dir);
    let f = &r.flows[0];
    let pkts = f.segments_sent + f.acks_sent;
    Ok(Case {
        name: name.to_string(),
        rate_bps: rate,
        loss,
        sim_seconds: seconds,
        wall_s: wall,
        data_packets: f.segments_sent,
        ack_packets: f.acks_sent,
        packets_per_s: pkts as f64 / wall,
        ns_per_packet: wall * 1e9 / pkts.max(1) as f64,
        events: r.events,
        max_cwnd_segments: f
            .recoveries
            .iter()
            .map(|x| x.cwnd_before)
            .max()
            .unwrap_or(0),
        goodput_bps: f.goodput_bps,
    })
}

pub fn bench(a: BenchArgs) -> Result<(), Failure> {
    let secs = if a.quick { 10 } else { a.seconds.max(1) };
    if a.trace_cost {
        return trace_cost(secs, a.json);
    }
    if a.pacing {
        return pacing_cost(secs, a.json);
    }
    if a.modern {
        return modern_cost(secs, a.json);
    }
    if a.ns3 {
        return ns3_side(a.json);
    }
    let mut cases = vec![run_case("reference", 100_000_000, 0.001, secs)?];
    if !a.reference_only {
        for &loss in &[0.001, 0.0] {
            for &rate in &[10_000_000u64, 100_000_000, 1_000_000_000, 10_000_000_000] {
                let name = format!("{} Mbit/s loss {}", rate / 1_000_000, loss);
                cases.push(run_case(&name, rate, loss, secs)?);
            }
        }
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&cases).expect("serialise")
        );
        return Ok(());
    }
    println!(
        "{:<26} {:>9} {:>12} {:>11} {:>14} {:>9} {:>10}",
        "case", "wall s", "data pkts", "ACK pkts", "pkts/wall s", "ns/pkt", "max cwnd"
    );
    for c in &cases {
        println!(
            "{:<26} {:>9.4} {:>12} {:>11} {:>14.0} {:>9.1} {:>10}",
            c.name,
            c.wall_s,
            c.data_packets,
            c.ack_packets,
            c.packets_per_s,
            c.ns_per_packet,
            c.max_cwnd_segments
        );
    }
    println!("({secs} simulated seconds per case; NewReno + RFC 6675, 100 ms RTT, queue = 1 BDP)");
    Ok(())
}

/// Issue 13's goal: a paced BBR flow at 10 Gbit/s x 100 ms simulates at
/// no less than half the packet rate of an unpaced CUBIC flow.
fn pacing_cost(secs: u64, json: bool) -> Result<(), Failure> {
    use losslab_core::Pacing;
    let mut rows = Vec::new();
    for loss in [0.0, 0.001] {
        for (label, cc, pacing) in [
            ("CUBIC unpaced", "cubic", Pacing::Off),
            ("CUBIC paced", "cubic", Pacing::Rate),
            ("BBR paced", "bbr", Pacing::Auto),
            ("BBR unpaced", "bbr", Pacing::Off),
        ] {
            let sc = scenario_with(10_000_000_000, loss, secs, cc, pacing);
            rows.push(measure(
                &format!("10 Gbit/s loss {loss}: {label}"),
                &sc,
                Tracing::Off,
            )?);
        }
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).expect("serialise")
        );
        return Ok(());
    }
    println!(
        "{:<40} {:>14} {:>9} {:>14} {:>16}",
        "case", "pkts/wall s", "ns/pkt", "goodput Gb/s", "vs CUBIC unpaced"
    );
    for chunk in rows.chunks(4) {
        let base = chunk[0].packets_per_s;
        for c in chunk {
            println!(
                "{:<40} {:>14.0} {:>9.1} {:>14.2} {:>15.2}x",
                c.name,
                c.packets_per_s,
                c.ns_per_packet,
                c.goodput_bps / 1e9,
                c.packets_per_s / base
            );
        }
    }
    println!("({secs} simulated seconds per case; 100 ms RTT, queue = 1 BDP)");
    Ok(())
}

fn trace_cost(secs: u64, json: bool) -> Result<(), Failure> {
    let mut rows = Vec::new();
    for (label, rate, loss, s) in [
        ("reference", 100_000_000u64, 0.001, secs),
        ("1 Gbit/s loss-free", 1_000_000_000, 0.0, secs.min(10)),
    ] {
        for (mode, t) in [
            ("untraced", Tracing::Off),
            ("hooks on, nothing kept", Tracing::Discard),
            ("all traces written", Tracing::Write),
        ] {
            rows.push(run_case_traced(
                &format!("{label}: {mode}"),
                rate,
                loss,
                s,
                t,
            )?);
        }
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).expect("serialise")
        );
        return Ok(());
    }
    println!(
        "{:<45} {:>14} {:>9} {:>12}",
        "case", "pkts/wall s", "ns/pkt", "vs untraced"
    );
    for chunk in rows.chunks(3) {
        let base = chunk[0].ns_per_packet;
        for c in chunk {
            println!(
                "{:<45} {:>14.0} {:>9.1} {:>11.2}x",
                c.name,
                c.packets_per_s,
                c.ns_per_packet,
                c.ns_per_packet / base
            );
        }
    }
    Ok(())
}

/// The modern stack (issue 33): what the OR3 and mobile experiments run.
fn modern(rate_bps: u64, rtt: u64, loss: f64, seconds: u64) -> Scenario {
    let bdp_bytes = rate_bps / 8 * rtt / SEC;
    let mut flow = FlowSpec::new("a");
    flow.cc = CcSpec::Named("bbr".into());
    flow.recovery = "prr".into();
    flow.detection = "rack".into();
    flow.timers = "rack-tlp".into();
    flow.receiver.rcvbuf = 256_000_000;
    Scenario::single_path(
        &format!(
            "modern-{}Mbps-{}ms-loss{loss}",
            rate_bps / 1_000_000,
            rtt / MS
        ),
        seconds * SEC,
        PathSpec::new(
            rate_bps,
            rtt / 2,
            QueueLimit::Bytes(bdp_bytes / 2),
            LossModel::Bernoulli { p: loss },
        ),
        vec![flow],
    )
}

fn modern_cost(secs: u64, json: bool) -> Result<(), Failure> {
    let rows = vec![
        measure(
            "BBR+PRR+RACK+TLP 1 Gbit/s 100 ms 0.01%",
            &modern(1_000_000_000, 100 * MS, 0.0001, secs),
            Tracing::Off,
        )?,
        measure(
            "BBR+PRR+RACK+TLP 1 Gbit/s 300 ms 0.5%",
            &modern(1_000_000_000, 300 * MS, 0.005, secs),
            Tracing::Off,
        )?,
    ];
    print_rows(
        &rows,
        json,
        &format!("{secs} simulated seconds per case; queue = half a BDP, receive buffer 256 MB"),
    );
    Ok(())
}

/// losslab's side of ../shared/anchors/ns3/bulk-dumbbell.cc: the
/// reference flow with CUBIC, PRR and socket buffers of 4 BDP.
fn ns3_anchor(rate_bps: u64, loss: f64, seconds: u64) -> Scenario {
    let mut sc = scenario_with(rate_bps, loss, seconds, "cubic", losslab_core::Pacing::Auto);
    let flow = &mut sc.flows[0];
    flow.recovery = "prr".into();
    flow.receiver.rcvbuf = 4 * (rate_bps / 8 / 10);
    sc
}

fn ns3_side(json: bool) -> Result<(), Failure> {
    let rows = vec![
        measure(
            "CUBIC+PRR+SACK 100 Mbit/s 0.1% 600 s",
            &ns3_anchor(100_000_000, 0.001, 600),
            Tracing::Off,
        )?,
        measure(
            "CUBIC+PRR+SACK 1 Gbit/s 0.001% 20 s",
            &ns3_anchor(1_000_000_000, 0.00001, 20),
            Tracing::Off,
        )?,
    ];
    print_rows(
        &rows,
        json,
        "ns-3 anchor's cases (bulk-dumbbell.cc); 100 ms RTT, queue = 1 BDP",
    );
    Ok(())
}

fn print_rows(rows: &[Case], json: bool, footer: &str) {
    if json {
        println!("{}", serde_json::to_string_pretty(rows).expect("serialise"));
        return;
    }
    println!(
        "{:<42} {:>9} {:>11} {:>10} {:>11} {:>14} {:>8}",
        "case", "wall s", "data pkts", "ACK pkts", "events", "pkts/wall s", "ns/pkt"
    );
    for c in rows {
        println!(
            "{:<42} {:>9.4} {:>11} {:>10} {:>11} {:>14.0} {:>8.1}",
            c.name,
            c.wall_s,
            c.data_packets,
            c.ack_packets,
            c.events,
            c.packets_per_s,
            c.ns_per_packet
        );
    }
    println!("({footer})");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// examples/bench/'s files are the bench's own cases, so that a time
    /// or a count taken with `losslab run FILE` is the bench's: every
    /// field but the name the same, the seed (1) included.
    #[test]
    fn example_files_are_the_bench_cases() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/bench");
        for (file, mut built) in [
            (
                "modern-100ms.toml",
                modern(1_000_000_000, 100 * MS, 0.0001, 20),
            ),
            ("ns3-1g.toml", ns3_anchor(1_000_000_000, 0.00001, 20)),
        ] {
            let mut read = losslab_sim::parse::load_scenario(&dir.join(file), &[])
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            read.name.clear();
            built.name.clear();
            assert_eq!(read, built, "{file}");
        }
    }
}
