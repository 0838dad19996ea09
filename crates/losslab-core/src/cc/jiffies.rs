//! Linux's jiffies as the CUBIC ports (`cubic-linux`, `cubic-linux-3`),
//! their HyStarts and the pre-5.7 HyStart clock read them: CONFIG_HZ =
//! 1000 and tcp_jiffies32 from the engine's nanoseconds
//! (include/linux/jiffies.h). Its own module so that cubic_linux.rs and
//! hystart.rs, which both read it, do not import each other.

use crate::time::{Time, MS};

/// The kernel's HZ: CONFIG_HZ_1000 (kernels built with 250 or 300 have
/// HZ / 32 = 7 or 9 jiffies, 28 or 30 ms, and coarser clocks).
pub const HZ: u32 = 1000;

/// include/linux/jiffies.h INITIAL_JIFFIES, `(unsigned int)(-300*HZ)`.
pub(super) const INITIAL_JIFFIES: u32 = (-300i64 * HZ as i64) as u32;
const USEC_PER_SEC: u64 = 1_000_000;

/// tcp_jiffies32 at engine time `now`: `now / 1 ms` plus INITIAL_JIFFIES (cubic_linux.rs explains the clocks).
pub fn jiffies32(now: Time) -> u32 {
    ((now / MS) as u32).wrapping_add(INITIAL_JIFFIES)
}

/// include/linux/jiffies.h _usecs_to_jiffies() for HZ = 1000, which
/// divides 10^6 evenly: `(u + (USEC_PER_SEC / HZ) - 1) / (USEC_PER_SEC /
/// HZ)`, rounding up (the MAX_JIFFY_OFFSET cap of usecs over 2^31 ms
/// cannot bind a u32 of usecs).
pub fn usecs_to_jiffies(u: u32) -> u32 {
    let per = (USEC_PER_SEC / HZ as u64) as u32;
    u.wrapping_add(per - 1) / per
}
