//! The losslab command line's parts, as a library: the `losslab` binary
//! is a thin dispatcher over them, and the Python package
//! (crates/losslab-py) calls the same code for `losslab.run` and
//! `losslab.sweep`.

pub mod bench;
pub mod compare;
pub mod drill;
pub mod emulate;
pub mod linux;
pub mod memory;
pub mod model;
pub mod model_cmd;
pub mod outdir;
pub mod plot;
pub mod pool;
pub mod pyconv;
pub mod ray;
pub mod report;
pub mod reproduce;
pub mod run;
pub mod scenario_args;
pub mod seeds;
pub mod sweep;
pub mod table;
pub mod tables;
pub mod trace_cmd;

/// Exit codes: 0 success, 1 runtime failure (I/O), 2 bad input,
/// 130 interrupted (partial results were written).
#[derive(Debug)]
pub enum Failure {
    BadInput(String),
    Runtime(String),
    Interrupted,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::BadInput(m) | Failure::Runtime(m) => f.write_str(m),
            Failure::Interrupted => f.write_str("interrupted"),
        }
    }
}
