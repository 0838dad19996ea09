//! The `losslab` command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use losslab::{
    bench, compare, drill, emulate, linux, memory, model_cmd, plot, reproduce, run, seeds, sweep,
    trace_cmd, Failure,
};

/// `losslab --version`: the package version and the engine id
/// (losslab_sim::ENGINE_ID), which tells two builds of one version apart.
static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "{} (engine {})",
        env!("CARGO_PKG_VERSION"),
        losslab_sim::ENGINE_ID
    )
});

/// A laboratory for TCP loss recovery.
#[derive(Parser)]
#[command(name = "losslab", version = VERSION.as_str(), about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scenario file and report what every flow did.
    Run(run::RunArgs),
    /// Run the papers' experiments and print our figures beside theirs.
    Reproduce(reproduce::ReproduceArgs),
    /// Draw a finished run's pictures again (time-sequence graph, cwnd,
    /// RTT), optionally for one flow and a time window.
    Plot(plot::PlotArgs),
    /// Measure simulator speed (simulated packets per wall-clock second).
    Bench(bench::BenchArgs),
    /// Emulate the scenario's path between two network namespaces (TUN
    /// devices held by this process) and run commands across it.
    Emulate(emulate::EmulateArgs),
    /// Run the scenario's flows through real Linux TCP across the
    /// emulator; --compare also simulates them and prints both.
    Linux(linux::LinuxArgs),
    /// Run packetdrill scripts against the engine, configured like Linux.
    Drill(drill::DrillArgs),
    /// Run a scenario over a grid of --set values and seeds, on every
    /// core, with mean and 95% CI per point.
    Sweep(sweep::SweepArgs),
    /// Print finished runs or sweep points side by side, with ratios and
    /// which differences are significant.
    Compare(compare::CompareArgs),
    /// The analytical model of the opportunistic-retransmission paper:
    /// minimum link idle time and maximum utilization of each loss
    /// recovery algorithm, original and with opportunistic retransmission,
    /// and the application-stall bounds (docs/MODEL.md).
    Model(model_cmd::ModelArgs),
    /// Make link traces (mahimahi's format: one line per 1504-byte
    /// delivery opportunity) and summarise one.
    Trace(trace_cmd::TraceArgs),
}

fn main() -> ExitCode {
    // Output piped into `head` and the like: stop quietly when the reader
    // goes away (the default for Unix tools) instead of panicking on a
    // failed write. Rust ignores SIGPIPE by default.
    #[cfg(unix)]
    // SAFETY: restoring a signal's default disposition before any thread
    // starts has no memory effects.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    // Inputs are read before a command weighs its runs, so the limit they
    // are held to is known first (docs/RELIABILITY.md, "Inputs").
    let max_memory = match &cli.command {
        Command::Run(a) => a.max_memory.as_deref(),
        Command::Sweep(a) => a.max_memory.as_deref(),
        Command::Plot(a) => a.max_memory.as_deref(),
        _ => None,
    };
    let res = memory::limit(max_memory)
        .map(losslab_sim::parse::set_parse_limit)
        .map_err(Failure::BadInput)
        .and_then(|()| dispatch(cli.command));
    finish(res)
}

fn dispatch(command: Command) -> Result<(), Failure> {
    match command {
        Command::Run(a) => run::run(a, seeds::run_seeds),
        Command::Sweep(a) => sweep::sweep(a),
        Command::Compare(a) => compare::compare(a),
        Command::Reproduce(a) => reproduce::reproduce(a),
        Command::Plot(a) => plot::plot(a),
        Command::Bench(a) => bench::bench(a),
        Command::Emulate(a) => emulate::emulate(a),
        Command::Linux(a) => linux::linux(a),
        Command::Drill(a) => drill::drill(a),
        Command::Model(a) => model_cmd::model(a),
        Command::Trace(a) => trace_cmd::trace(a),
    }
}

fn finish(res: Result<(), Failure>) -> ExitCode {
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::BadInput(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(2)
        }
        Err(Failure::Runtime(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(1)
        }
        Err(Failure::Interrupted) => ExitCode::from(130),
    }
}
