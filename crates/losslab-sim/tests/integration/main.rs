//! losslab-sim's integration tests, one test binary. Each file was its own
//! binary until issue 33: building and linking them was most of the
//! crate's test build (docs/BENCHMARKS.md, "CI's time"). A new test file
//! is a module here; `common` holds the helpers they share.

mod ack_loss_spurious;
mod cc_bbr;
mod cc_cubic;
mod cc_delay_based;
mod cc_tcp_rr;
mod common;
mod detect_dsack_undo;
mod detect_early_retransmit;
mod detect_fack;
mod detect_le;
mod detect_lost_retransmission;
mod detect_rack;
mod detect_scenario_keys;
mod efficiency;
mod frto;
mod link_trace;
mod linux_jiffies_keys;
mod loss_bursts;
mod loss_free;
mod metrics_recovery_periods;
mod mobile_extensions;
mod nic_rate;
mod or3;
mod pacing;
mod packet_log_trace;
mod parallel_chunks;
mod parse_props;
mod parse_scenario;
mod pcap_tshark;
mod probe_gate;
mod profiles;
mod properties;
mod rbb;
mod receiver_autotune;
mod receiver_grow_window;
mod recovery_prr_linux;
mod recovery_prr_linux_old;
mod recovery_prr_paper;
mod recovery_qarr_barr;
mod recovery_random_loss;
mod recovery_reno_newreno;
mod scenarios;
mod tail_scenario_keys;
mod timers_tail_loss;
mod tlp_pto;
mod tlp_rearm;
