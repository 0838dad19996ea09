//! losslab-sim: a deterministic discrete-event testbed for losslab-core.
//!
//! Same scenario and seed, same output: the clock is an integer count of
//! nanoseconds, every random element draws from its own seeded stream, and
//! simultaneous events are ordered by a fixed rule.

pub(crate) mod ack_reports;
pub(crate) mod chunks;
pub mod emit;
pub(crate) mod held;
pub mod link;
pub mod loss;
pub mod memory;
pub mod packet_log;
pub mod parse;
pub mod pcap;
pub mod profile;
pub mod rbb;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod timeseries;
pub mod trace;
pub mod tracegen;
pub mod units;
pub(crate) mod view;

/// Which engine this is: 16 hex digits hashed from the engine's sources
/// and the workspace's Cargo.lock at build time (build.rs). Two builds of
/// the same checkout agree; any change to the code that decides a run's
/// numbers gives another. `losslab --version` shows it; a sweep's
/// `--resume` and a Ray cluster's workers refuse another engine's runs.
pub const ENGINE_ID: &str = env!("LOSSLAB_ENGINE_ID");

pub use results::RunResults;
pub use scenario::Scenario;
pub use sim::{Simulation, Tracer};
