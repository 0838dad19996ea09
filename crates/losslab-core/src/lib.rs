//! losslab-core: a sans-IO TCP sender and receiver whose loss-recovery
//! parts are pluggable.
//!
//! Nothing here performs I/O, reads a clock or draws random numbers: the
//! caller passes time in and takes segments and ACKs out
//! (`poll_transmit`, `poll_timeout`, `on_timeout`), so the same engine is
//! driven by the simulator, by tests and, later, by real sockets.

pub mod app;
pub mod autotune;
pub mod config;
pub mod cwnd_use;
pub mod draw;
pub mod event;
pub mod frto;
pub mod handshake;
pub mod minmax;
pub mod nextseg;
pub mod pacing;
pub mod rate;
pub mod receiver;
pub mod recovery_log;
pub mod redundancy;
pub mod rtt;
pub mod rtt_sample;
pub mod scoreboard;
pub mod sender;
pub mod seqset;
pub mod sndbuf;
pub mod stats;
pub mod stem;
pub mod time;
pub mod window;
pub mod wire;

pub use app::App;
pub use config::{
    AckMode, CwndGrowth, CwndValidation, Pacing, PacingStart, ReceiverConfig, RecoveryExit,
    RtoConfig, RtoFormula, RtoSsthresh, RttSampling,
};
pub use event::{Event, RecoveryKind, Timed, TimerKind, WindowState};
pub use frto::FrtoMode;
pub use handshake::{Handshake, HandshakeRules};
pub use receiver::{Receiver, ReceiverStats};
pub use sender::{Algorithms, RecoveryRecord, Sender, SenderConfig, SenderStats};
pub use time::Time;
pub use window::Window;
pub use wire::{Ack, Range, SackBlocks, Segment};

pub mod cc;
pub mod detect;
pub mod recovery;
pub mod timers;
