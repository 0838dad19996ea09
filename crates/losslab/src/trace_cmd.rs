//! `losslab trace`: make delivery-opportunity traces (mahimahi's format,
//! losslab-sim's link.rs) and say what one holds. The models are in
//! losslab-sim's tracegen.rs; docs/TRACES.md ("Link traces") documents
//! them and the traces in traces/.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use losslab_core::time::{fmt_secs, MS};
use losslab_sim::tracegen::{self, Model, MARKOV_LEVELS_BPS};
use losslab_sim::units::{parse_duration, parse_rate};

use crate::Failure;

#[derive(Args, Debug)]
pub struct TraceArgs {
    #[command(subcommand)]
    pub command: TraceCommand,
}

#[derive(Subcommand, Debug)]
pub enum TraceCommand {
    /// Write a trace drawn from a model to a new file.
    Generate(GenerateArgs),
    /// Print a trace's length, opportunities, mean, least and most
    /// capacity, and its longest gap.
    Info(InfoArgs),
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Kind {
    /// One rate throughout (--rate).
    Constant,
    /// Cycles of --off without capacity, then --on at --rate.
    OnOff,
    /// A birth-death Markov chain over --levels, a step every --step,
    /// moving up or down with probability --move each (our own synthetic
    /// cellular model; docs/TRACES.md).
    Markov,
}

#[derive(Args, Debug)]
pub struct GenerateArgs {
    pub kind: Kind,
    /// The file to write; it must not exist (losslab never overwrites a
    /// file it did not write).
    #[arg(long)]
    pub out: PathBuf,
    /// The trace's length, which is its loop (whole milliseconds).
    #[arg(long, default_value = "10s")]
    pub duration: String,
    /// constant, on-off: the rate.
    #[arg(long, default_value = "12Mbps")]
    pub rate: String,
    /// on-off: how long the link carries in each cycle.
    #[arg(long, default_value = "1s")]
    pub on: String,
    /// on-off: how long it carries nothing, before each on phase.
    #[arg(long, default_value = "200ms")]
    pub off: String,
    /// markov: the capacity levels, comma-separated, lowest first
    /// [default: 0,1.5,3,6,12,24,48 Mbit/s].
    #[arg(long)]
    pub levels: Option<String>,
    /// markov: how often the chain may move.
    #[arg(long, default_value = "50ms")]
    pub step: String,
    /// markov: the probability of each move (up, down) at a step.
    #[arg(long = "move", default_value = "0.1")]
    pub p_move: f64,
    /// markov: the seed of its draws.
    #[arg(long, default_value = "1")]
    pub seed: u64,
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    pub file: PathBuf,
    /// The window the least and most capacity are taken over.
    #[arg(long, default_value = "100ms")]
    pub window: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn trace(a: TraceArgs) -> Result<(), Failure> {
    match a.command {
        TraceCommand::Generate(g) => generate(g),
        TraceCommand::Info(i) => info(i),
    }
}

fn mbps(bps: u64) -> String {
    format!("{:.3} Mbit/s", bps as f64 / 1e6)
}

fn bad(flag: &str, got: &str, why: impl std::fmt::Display) -> Failure {
    Failure::BadInput(format!("--{flag} {got:?}: {why}"))
}

fn model(a: &GenerateArgs) -> Result<Model, Failure> {
    let rate = || parse_rate(&a.rate).map_err(|e| bad("rate", &a.rate, e));
    let dur = |flag: &str, v: &str| parse_duration(v).map_err(|e| bad(flag, v, e));
    Ok(match a.kind {
        Kind::Constant => Model::Constant { rate_bps: rate()? },
        Kind::OnOff => Model::OnOff {
            rate_bps: rate()?,
            on: dur("on", &a.on)?,
            off: dur("off", &a.off)?,
        },
        Kind::Markov => {
            let levels_bps = match &a.levels {
                None => MARKOV_LEVELS_BPS.to_vec(),
                Some(s) => s
                    .split(',')
                    .map(|l| {
                        let l = l.trim();
                        // A bare 0 is an outage; every other level has a unit.
                        if l == "0" {
                            Ok(0)
                        } else {
                            parse_rate(l).map_err(|e| bad("levels", l, e))
                        }
                    })
                    .collect::<Result<_, _>>()?,
            };
            Model::Markov {
                levels_bps,
                step: dur("step", &a.step)?,
                p_move: a.p_move,
                seed: a.seed,
            }
        }
    })
}

fn generate(a: GenerateArgs) -> Result<(), Failure> {
    let m = model(&a)?;
    let duration = parse_duration(&a.duration).map_err(|e| bad("duration", &a.duration, e))?;
    let text = tracegen::generate(&m, duration).map_err(Failure::BadInput)?;
    if text.len() as u64 > losslab_sim::link::MAX_TRACE_BYTES {
        return Err(Failure::BadInput(format!(
            "the trace would take {} MiB, more than the {} MiB losslab reads; make it shorter \
             (it loops) or slower",
            text.len() >> 20,
            losslab_sim::link::MAX_TRACE_BYTES >> 20
        )));
    }
    // Read back before it is written: a file losslab could not read is
    // never left behind.
    let ms = losslab_sim::link::parse_trace(&text)
        .map_err(|e| Failure::Runtime(format!("generated an unreadable trace: {e:?}")))?;
    write_new(&a.out, text.as_bytes())?;
    let s = tracegen::summarise(&ms, 100 * MS);
    eprintln!(
        "wrote {}: {} opportunities over {}, mean {}",
        a.out.display(),
        s.opportunities,
        fmt_secs(s.length),
        mbps(s.mean_rate_bps)
    );
    Ok(())
}

/// Writes a file that must not exist yet, atomically: a crash leaves
/// no file or the whole one.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    if path.symlink_metadata().is_ok() {
        return Err(Failure::BadInput(format!(
            "{} exists; losslab writes a trace only where there is no file (name another, or \
             remove it yourself)",
            path.display()
        )));
    }
    crate::outdir::write_atomic(path, bytes)
        .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", path.display())))
}

fn info(a: InfoArgs) -> Result<(), Failure> {
    let shown = a.file.display().to_string();
    let window = parse_duration(&a.window).map_err(|e| bad("window", &a.window, e))?;
    if window < MS || !window.is_multiple_of(MS) {
        return Err(bad(
            "window",
            &a.window,
            "must be whole milliseconds, at least 1ms",
        ));
    }
    let text = losslab_sim::link::read_trace_text(&a.file)
        .map_err(|e| Failure::BadInput(format!("cannot read the trace {shown}: {e}")))?;
    let ms = losslab_sim::link::parse_trace(&text).map_err(|e| {
        Failure::BadInput(if e.line > 0 {
            format!("{shown}, line {}: {}", e.line, e.message)
        } else {
            format!("{shown}: {}", e.message)
        })
    })?;
    let s = tracegen::summarise(&ms, window);
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "file": shown,
                "opportunities": s.opportunities,
                "length_s": s.length as f64 / 1e9,
                "mean_rate_bps": s.mean_rate_bps,
                "window_s": s.window as f64 / 1e9,
                "min_rate_bps": s.min_rate_bps,
                "max_rate_bps": s.max_rate_bps,
                "longest_gap_s": s.longest_gap as f64 / 1e9,
            })
        );
    } else {
        println!("{shown}");
        println!("  loop length      {}", fmt_secs(s.length));
        println!("  opportunities    {} (1504 bytes each)", s.opportunities);
        println!("  mean capacity    {}", mbps(s.mean_rate_bps));
        println!(
            "  per {:<12} least {}, most {}",
            fmt_secs(s.window),
            mbps(s.min_rate_bps),
            mbps(s.max_rate_bps)
        );
        println!("  longest gap      {}", fmt_secs(s.longest_gap));
    }
    Ok(())
}
