//! losslab-core's integration tests, one test binary. Each file was its own
//! binary until issue 33: building and linking them was most of the
//! crate's test build (docs/BENCHMARKS.md, "CI's time"). A new test file
//! is a module here; `common` holds the helpers they share.

mod cc_cubic;
mod cc_cubic_linux;
mod common;
mod detect_sender;
mod frto;
mod handshake;
mod recovery_prr_linux_flags;
mod recovery_prr_properties;
mod recovery_reno_newreno;
mod recovery_rfc_tables;
mod sender_audit;
mod sender_cwnd_use;
mod sender_rtt_sample;
mod timers_probe;
mod timers_probe_gate;
mod timers_rto_rearm;
