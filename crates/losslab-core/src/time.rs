//! Simulated time: integer nanoseconds. The engine never reads a clock; the
//! caller passes `now` into every call, which keeps runs bit-for-bit
//! reproducible and lets the same code run in the simulator and over sockets.

/// A point in time or a duration, in nanoseconds.
pub type Time = u64;

pub const NS: Time = 1;
pub const US: Time = 1_000;
pub const MS: Time = 1_000_000;
pub const SEC: Time = 1_000_000_000;

/// include/linux/jiffies.h usecs_to_jiffies() at HZ = `hz`: rounding up,
/// exact for an HZ that divides 10^6 (100, 250, 1000).
pub fn usecs_to_jiffies(us: u64, hz: u64) -> u64 {
    (us * hz).div_ceil(1_000_000)
}

/// When a kernel timer armed at `now` for `jiffies` fires at HZ = `hz`:
/// inet_csk_reset_xmit_timer() sets it to jiffies + `jiffies`, counted
/// from the jiffy `now` falls in, and the timer wheel runs it on that tick.
pub fn jiffy_deadline(now: Time, jiffies: u64, hz: u64) -> Time {
    let tick = SEC / hz;
    (now / tick + jiffies) * tick
}

/// The earlier of two optional deadlines (None: no deadline). What
/// `[a, b].into_iter().flatten().min()` gives, without the iterator:
/// the timers' polls run several times a packet (issue 33).
#[inline]
pub fn earliest(a: Option<Time>, b: Option<Time>) -> Option<Time> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// `(a x b / d) as u64` in 128-bit arithmetic, as the pacer's segment
/// time and BBR's bandwidth sample wrote it, with the truncation of `as
/// u64`. When a x b fits in 64 bits, as it does for every real rate, the
/// division is a 64-bit one: the 128-bit division is a library call
/// (`__udivti3`), run for every segment sent and every ACK (issue 33).
/// Same value either way.
#[inline]
pub fn mul_div(a: u64, b: u64, d: u64) -> u64 {
    match a.checked_mul(b) {
        Some(n) => n / d,
        None => (u128::from(a) * u128::from(b) / u128::from(d)) as u64,
    }
}

/// Formats a time in seconds with millisecond precision, for messages.
pub fn fmt_secs(t: Time) -> String {
    format!("{:.3}s", t as f64 / SEC as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `mul_div` is the 128-bit expression it replaced, with 64-bit
    /// products and ones that overflow them.
    #[test]
    fn mul_div_is_the_128_bit_quotient() {
        let values = [
            0,
            1,
            7,
            1448,
            1 << 24,
            8_000_000_000,
            1 << 40,
            u64::MAX / 3,
            u64::MAX,
        ];
        for a in values {
            for b in values {
                for d in values.into_iter().filter(|&d| d > 0) {
                    let wide = (a as u128 * b as u128 / d as u128) as u64;
                    assert_eq!(mul_div(a, b, d), wide, "{a} {b} {d}");
                }
            }
        }
    }

    /// `earliest` is the iterator's minimum it replaced in the polls.
    #[test]
    fn earliest_is_the_minimum_of_the_deadlines_present() {
        let values = [None, Some(0), Some(5), Some(7), Some(Time::MAX)];
        for a in values {
            for b in values {
                let old = [a, b].into_iter().flatten().min();
                assert_eq!(earliest(a, b), old, "{a:?} {b:?}");
            }
        }
    }
}
