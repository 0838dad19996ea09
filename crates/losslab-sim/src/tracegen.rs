//! Delivery-opportunity traces the project makes itself (`losslab trace
//! generate`, issue 34): mahimahi's own traces are GPL-3 and are not
//! shipped (docs/TRACES.md says where to get them).
//!
//! Every model gives a rate for each millisecond; opportunities of 1504
//! bytes (link.rs) are placed by error diffusion, exactly: each
//! millisecond adds the rate's bits to a credit, and every 12,032 bits of
//! credit is one opportunity at that millisecond. A constant 12.032
//! Mbit/s is therefore one line per millisecond, and any rate's trace
//! carries it to within one opportunity. The file's last line must be the
//! loop's length (link.rs): when the last millisecond has no opportunity,
//! one is added there, and `info` reports the trace as it is.

use losslab_core::time::{Time, MS, SEC};

use crate::link::OPPORTUNITY_BYTES;
use crate::rng::Stream;

/// The most lines a generated trace may have (the reader's limit is 64
/// MiB, some 10 million short lines).
pub const MAX_LINES: u64 = 8_000_000;

/// A model of a link's capacity over time.
#[derive(Clone, Debug, PartialEq)]
pub enum Model {
    /// One rate throughout.
    Constant { rate_bps: u64 },
    /// Cycles of `off` with no capacity, then `on` at the rate: a link
    /// that comes and goes (handovers, a tunnel). Off first, so that a
    /// trace whose length is a whole number of cycles ends on an
    /// opportunity and needs none added.
    OnOff { rate_bps: u64, on: Time, off: Time },
    /// A birth-death Markov chain over capacity levels, one step every
    /// `step`: from level i it moves to i - 1 or i + 1 with probability
    /// `p_move` each (only inward at the ends) and stays otherwise; it
    /// starts at a level drawn uniformly. Our own synthetic model of a
    /// cellular channel whose rate wanders across an order of magnitude
    /// and drops out: for the shape of such a link, not fitted to any
    /// measurement.
    Markov {
        levels_bps: Vec<u64>,
        step: Time,
        p_move: f64,
        seed: u64,
    },
}

/// The default levels of `markov`: an outage, then 1 to 48 Mbit/s in
/// doublings, roughly the span one LTE drive covers.
pub const MARKOV_LEVELS_BPS: [u64; 7] = [
    0, 1_500_000, 3_000_000, 6_000_000, 12_000_000, 24_000_000, 48_000_000,
];

impl Model {
    /// The model's mean rate over `duration`, as far as it is known
    /// before drawing (the Markov chain's: the mean of its levels).
    pub fn expected_rate_bps(&self) -> u64 {
        match self {
            Model::Constant { rate_bps } => *rate_bps,
            Model::OnOff { rate_bps, on, off } => {
                (u128::from(*rate_bps) * u128::from(*on)
                    / (u128::from(*on) + u128::from(*off)).max(1)) as u64
            }
            Model::Markov { levels_bps, .. } => {
                levels_bps.iter().sum::<u64>() / (levels_bps.len().max(1) as u64)
            }
        }
    }
}

/// Why a trace cannot be generated.
pub fn check(model: &Model, duration: Time) -> Result<(), String> {
    if duration < MS || !duration.is_multiple_of(MS) {
        return Err(format!(
            "the duration must be a whole number of milliseconds, at least 1ms (got {duration} ns)"
        ));
    }
    // A trace's times are u32 milliseconds (link.rs).
    if duration / MS > u64::from(u32::MAX) {
        return Err(format!(
            "the duration must be at most {} ms (about 49 days), the longest a trace holds; \
             a trace loops, so a shorter one serves",
            u32::MAX
        ));
    }
    match model {
        Model::Constant { rate_bps } if *rate_bps == 0 => {
            return Err("the rate must be above 0".into())
        }
        Model::OnOff { rate_bps, on, off } => {
            if *rate_bps == 0 {
                return Err("the rate must be above 0".into());
            }
            if on
                .checked_add(*off)
                .is_none_or(|c| c / MS > u64::from(u32::MAX))
            {
                return Err("on + off must be at most 49 days".into());
            }
            if *on < MS || !on.is_multiple_of(MS) || !off.is_multiple_of(MS) {
                return Err("on and off must be whole milliseconds, on at least 1ms".into());
            }
        }
        Model::Markov {
            levels_bps,
            step,
            p_move,
            ..
        } => {
            if levels_bps.is_empty() || levels_bps.iter().all(|&l| l == 0) {
                return Err("the levels must include a rate above 0".into());
            }
            if *step < MS || !step.is_multiple_of(MS) {
                return Err("the step must be whole milliseconds, at least 1ms".into());
            }
            if !(0.0..=0.5).contains(p_move) {
                return Err(format!(
                    "the move probability must lie in [0, 0.5] (each of two moves), got {p_move}"
                ));
            }
        }
        _ => {}
    }
    let lines = u128::from(model.expected_rate_bps().max(levels_max(model)))
        * u128::from(duration / MS)
        / 1000
        / u128::from(OPPORTUNITY_BYTES * 8);
    if lines > u128::from(MAX_LINES) {
        return Err(format!(
            "the trace would have about {lines} lines, more than the {MAX_LINES} losslab \
             writes; make it shorter (it loops) or slower"
        ));
    }
    Ok(())
}

fn levels_max(model: &Model) -> u64 {
    match model {
        Model::Markov { levels_bps, .. } => levels_bps.iter().copied().max().unwrap_or(0),
        _ => 0,
    }
}

/// The trace's text: one line per opportunity, in milliseconds.
pub fn generate(model: &Model, duration: Time) -> Result<String, String> {
    check(model, duration)?;
    let ms_total = duration / MS;
    let mut out = String::new();
    // Credit in bits x 1000: a millisecond at r bit/s adds r.
    let cost = u128::from(OPPORTUNITY_BYTES) * 8 * 1000;
    let mut credit: u128 = 0;
    let mut last = 0;
    let mut markov = match model {
        Model::Markov {
            levels_bps, seed, ..
        } => {
            let mut rng = Stream::new(*seed, "trace.markov");
            let at = rng.below(levels_bps.len() as u64) as usize;
            Some((rng, at))
        }
        _ => None,
    };
    for m in 1..=ms_total {
        let rate = match model {
            Model::Constant { rate_bps } => *rate_bps,
            Model::OnOff { rate_bps, on, off } => {
                let cycle = (on + off) / MS;
                if (m - 1) % cycle >= off / MS {
                    *rate_bps
                } else {
                    0
                }
            }
            Model::Markov {
                levels_bps,
                step,
                p_move,
                ..
            } => {
                let (rng, at) = markov.as_mut().expect("drawn above");
                if m > 1 && (m - 1) % (step / MS) == 0 {
                    *at = markov_step(*at, levels_bps.len(), rng.unit(), *p_move);
                }
                levels_bps[*at]
            }
        };
        credit += u128::from(rate);
        while credit >= cost {
            credit -= cost;
            out.push_str(&m.to_string());
            out.push('\n');
            last = m;
        }
    }
    if last != ms_total {
        out.push_str(&ms_total.to_string());
        out.push('\n');
    }
    Ok(out)
}

/// One step of the chain from level `at` of `levels`, given a uniform
/// draw `u`: below p one level up, from p to 2p one down, so each move
/// has probability p; a move past an end stays.
fn markov_step(at: usize, levels: usize, u: f64, p: f64) -> usize {
    if u < p && at + 1 < levels {
        at + 1
    } else if u >= p && u < 2.0 * p && at > 0 {
        at - 1
    } else {
        at
    }
}

/// What a trace holds: for `losslab trace info`.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub opportunities: usize,
    pub length: Time,
    pub mean_rate_bps: u64,
    /// The least and most capacity in any whole window of `window`.
    pub window: Time,
    pub min_rate_bps: u64,
    pub max_rate_bps: u64,
    /// The longest time without an opportunity (within a loop).
    pub longest_gap: Time,
}

/// Summarises a parsed trace (`link::parse_trace`) over its whole
/// windows of `window` (whole milliseconds; one window of the whole loop
/// when the loop is shorter). In one pass, whatever the trace's length.
pub fn summarise(ms: &[u32], window: Time) -> Summary {
    let len_ms = u64::from(*ms.last().expect("a parsed trace has a line"));
    let mut w = (window / MS).max(1);
    let mut windows = len_ms / w;
    if windows == 0 {
        (w, windows) = (len_ms, 1);
    }
    let (mut least, mut most) = (u64::MAX, 0u64);
    let (mut at, mut count) = (0u64, 0u64);
    for &m in ms {
        // The opportunity at millisecond m serves (m - 1, m].
        let i = u64::from(m).saturating_sub(1) / w;
        if i >= windows {
            break;
        }
        if i > at {
            least = least.min(count);
            most = most.max(count);
            if i > at + 1 {
                least = 0;
            }
            (at, count) = (i, 0);
        }
        count += 1;
    }
    least = least.min(count);
    most = most.max(count);
    if at + 1 < windows {
        least = 0;
    }
    let rate = |n: u64| {
        (u128::from(n) * u128::from(OPPORTUNITY_BYTES) * 8 * u128::from(SEC) / u128::from(w * MS))
            as u64
    };
    let mut prev = 0u64;
    let mut gap = 0u64;
    for &m in ms {
        gap = gap.max(u64::from(m) - prev);
        prev = u64::from(m);
    }
    Summary {
        opportunities: ms.len(),
        length: len_ms * MS,
        mean_rate_bps: (ms.len() as u128 * u128::from(OPPORTUNITY_BYTES) * 8 * 1000
            / u128::from(len_ms)) as u64,
        window: w * MS,
        min_rate_bps: rate(least),
        max_rate_bps: rate(most),
        longest_gap: gap * MS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::parse_trace;

    fn lines(t: &str) -> Vec<u64> {
        t.lines().map(|l| l.parse().unwrap()).collect()
    }

    #[test]
    fn a_constant_12_032_mbit_trace_is_one_line_a_millisecond() {
        let t = generate(
            &Model::Constant {
                rate_bps: 12_032_000,
            },
            5 * MS,
        )
        .unwrap();
        assert_eq!(t, "1\n2\n3\n4\n5\n");
        // Twice the rate: two opportunities every millisecond.
        let t = generate(
            &Model::Constant {
                rate_bps: 24_064_000,
            },
            2 * MS,
        )
        .unwrap();
        assert_eq!(t, "1\n1\n2\n2\n");
    }

    #[test]
    fn any_rate_is_carried_to_within_one_opportunity() {
        for rate in [1_000_000u64, 12_000_000, 50_000_000, 123_456_789] {
            let t = generate(&Model::Constant { rate_bps: rate }, 10 * SEC).unwrap();
            let n = lines(&t).len() as f64;
            let want = rate as f64 * 10.0 / 12_032.0;
            assert!((n - want).abs() <= 2.0, "{rate}: {n} lines, want {want}");
            // mahimahi's rules hold: it parses.
            parse_trace(&t).unwrap();
        }
        // 1 Mbit/s: one opportunity every 12.032 ms; the last line is
        // the loop's length though the credit has not reached one there.
        let t = lines(
            &generate(
                &Model::Constant {
                    rate_bps: 1_000_000,
                },
                30 * MS,
            )
            .unwrap(),
        );
        assert_eq!(t, [13, 25, 30]);
    }

    #[test]
    fn on_off_is_off_first_and_carries_only_while_on() {
        let m = Model::OnOff {
            rate_bps: 12_032_000,
            on: 3 * MS,
            off: 2 * MS,
        };
        let t = lines(&generate(&m, 10 * MS).unwrap());
        assert_eq!(t, [3, 4, 5, 8, 9, 10]);
        assert_eq!(m.expected_rate_bps(), 12_032_000 * 3 / 5);
    }

    #[test]
    fn markov_is_seeded_and_moves_between_neighbouring_levels() {
        let m = |seed| Model::Markov {
            levels_bps: MARKOV_LEVELS_BPS.to_vec(),
            step: 50 * MS,
            p_move: 0.1,
            seed,
        };
        let a = generate(&m(1), 60 * SEC).unwrap();
        assert_eq!(a, generate(&m(1), 60 * SEC).unwrap());
        assert_ne!(a, generate(&m(2), 60 * SEC).unwrap());
        let ms = parse_trace(&a).unwrap();
        let s = summarise(&ms, 50 * MS);
        // Each 50 ms window is one level (error diffusion adds at most
        // one opportunity): 0 in an outage, up to 48 Mbit/s.
        assert!(s.min_rate_bps <= 300_000, "{s:?}");
        assert!(
            s.max_rate_bps >= 47_000_000 && s.max_rate_bps <= 49_000_000,
            "{s:?}"
        );
        // Symmetric moves spend about equal time at each level: the mean
        // is near the levels' mean (13.5 Mbit/s) over a minute.
        assert!((5_000_000..25_000_000).contains(&s.mean_rate_bps), "{s:?}");
        // A chain that never moves stays at its first level.
        let still = Model::Markov {
            levels_bps: vec![12_032_000, 24_064_000],
            step: MS,
            p_move: 0.0,
            seed: 3,
        };
        let t = generate(&still, 4 * MS).unwrap();
        assert!(
            t == "1\n2\n3\n4\n" || t == "1\n1\n2\n2\n3\n3\n4\n4\n",
            "{t}"
        );
    }

    #[test]
    fn the_chain_moves_one_level_up_or_down_with_p_each() {
        // Interior: up below p, down from p to 2p, else stays.
        assert_eq!(markov_step(3, 7, 0.05, 0.1), 4);
        assert_eq!(markov_step(3, 7, 0.15, 0.1), 2);
        assert_eq!(markov_step(3, 7, 0.25, 0.1), 3);
        // The ends: no move past them.
        assert_eq!(markov_step(6, 7, 0.05, 0.1), 6);
        assert_eq!(markov_step(6, 7, 0.15, 0.1), 5);
        assert_eq!(markov_step(0, 7, 0.15, 0.1), 0);
        assert_eq!(markov_step(0, 7, 0.05, 0.1), 1);
        // Over a long trace, level changes between 50 ms windows are one
        // level, up as often as down (a chain that steps the other way
        // less often would drift).
        let m = Model::Markov {
            levels_bps: vec![12_032_000, 24_064_000, 36_096_000, 48_128_000],
            step: 50 * MS,
            p_move: 0.2,
            seed: 9,
        };
        let ms = parse_trace(&generate(&m, 600 * SEC).unwrap()).unwrap();
        let mut per = vec![0i64; 12_000];
        for &t in ms.iter() {
            if let Some(c) = per.get_mut(((t - 1) / 50) as usize) {
                *c += 1;
            }
        }
        let (mut up, mut down) = (0, 0);
        for w in per.windows(2) {
            match (w[1] - w[0]) / 50 {
                1 => up += 1,
                -1 => down += 1,
                0 => {}
                d => panic!("a move of {d} levels"),
            }
        }
        assert!(
            up > 1_500 && (up - down) < 40 && (down - up) < 40,
            "{up} up, {down} down"
        );
    }

    #[test]
    fn bad_models_are_refused() {
        assert!(generate(&Model::Constant { rate_bps: 0 }, SEC).is_err());
        assert!(generate(&Model::Constant { rate_bps: 1 }, MS / 2).is_err());
        let huge = generate(
            &Model::Constant {
                rate_bps: 100_000_000_000,
            },
            3600 * SEC,
        );
        assert!(huge.unwrap_err().contains("more than"));
        let m = Model::Markov {
            levels_bps: vec![0, 0],
            step: MS,
            p_move: 0.1,
            seed: 1,
        };
        assert!(generate(&m, SEC).is_err());
        // Longer than a trace's u32 milliseconds; on + off overflowing.
        let one = Model::Constant { rate_bps: 1 };
        assert!(generate(&one, (u64::from(u32::MAX) + 1) * MS)
            .unwrap_err()
            .contains("49 days"));
        let wild = Model::OnOff {
            rate_bps: 1,
            on: u64::MAX,
            off: MS,
        };
        assert!(generate(&wild, SEC).is_err());
    }

    #[test]
    fn summary_takes_whole_windows_and_survives_huge_traces() {
        // 150 ms of one opportunity a millisecond: the one whole 100 ms
        // window holds 100; the 50 left over are no window.
        let ms: Vec<u32> = (1..=150).collect();
        let s = summarise(&ms, 100 * MS);
        assert_eq!((s.min_rate_bps, s.max_rate_bps), (12_032_000, 12_032_000));
        // A valid two-line trace 49 days long, in 1 ms windows: no
        // allocation by the length, empty windows seen as 0.
        let s = summarise(&[1, u32::MAX], MS);
        assert_eq!((s.min_rate_bps, s.max_rate_bps), (0, 12_032_000));
        // Millions of opportunities in one window do not overflow.
        let many = vec![5u32; 3_000_000];
        let s = summarise(&many, 5 * MS);
        assert_eq!(s.max_rate_bps, 3_000_000 * 12_032_000 / 5);
        // A window longer than the loop is the loop.
        assert_eq!(summarise(&[1, 2], SEC).window, 2 * MS);
    }

    #[test]
    fn summary_reports_rates_and_gaps() {
        let ms = parse_trace("1\n2\n3\n4\n10\n").unwrap();
        let s = summarise(&ms, 5 * MS);
        assert_eq!(s.opportunities, 5);
        assert_eq!(s.length, 10 * MS);
        assert_eq!(s.mean_rate_bps, 5 * 12_032 * 100);
        assert_eq!(s.max_rate_bps, 4 * 12_032_000 / 5);
        assert_eq!(s.min_rate_bps, 12_032_000 / 5);
        assert_eq!(s.longest_gap, 6 * MS);
    }
}
