//! Simulated time: integer nanoseconds. The engine never reads a clock; the
//! caller passes `now` into every call, which keeps runs bit-for-bit
//! reproducible and lets the same code run in the simulator and over sockets.

/// A point in time or a duration, in nanoseconds.
pub type Time = u64;

pub const NS: Time = 1;
pub const US: Time = 1_000;
pub const MS: Time = 1_000_000;
pub const SEC: Time = 1_000_000_000;

/// Formats a time in seconds with millisecond precision, for messages.
pub fn fmt_secs(t: Time) -> String {
    format!("{:.3}s", t as f64 / SEC as f64)
}
