//! Seeded draws for the parts that randomise (BBR's gain-cycle phase,
//! OR3's copy delays). The caller owns the state, seeded from the
//! scenario seed, so the engine itself never reads a global generator.

/// A uniform draw in 0..n, as Linux's get_random_u32_below(n): Lemire's
/// multiply-shift on the top 32 bits of a splitmix64 step of `state`.
pub fn below(state: &mut u64, n: u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    ((z >> 32) * n) >> 32
}
