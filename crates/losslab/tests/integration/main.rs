//! The `losslab` crate's integration tests, one test binary: each file was
//! its own binary until issue 33, and compiling and linking them against
//! the crate was a tenth of CI's test build (docs/BENCHMARKS.md, "CI's
//! time"). A new test file is a module here; `common` holds the helpers
//! they share. The emulator's tests (`tests/emulate.rs`, `tests/linux.rs`)
//! stay binaries of their own: they time real packets, and cargo runs
//! test binaries one after another, so nothing else runs beside them.

mod cli;
mod committed_results;
mod common;
mod drill;
mod import_circles;
mod input_limits;
mod reliability;
mod reproduce_le;
mod reproduce_mobile;
mod reproduce_or3;
mod reproduce_prr;
mod reproduce_tail;
