//! The statistics the verdicts (claims.rs, version 2) rest on, each
//! with an interval that means what it says:
//! - relative effects are ratios of totals over paired seeds with a
//!   paired percentile bootstrap (Efron and Tibshirani 1993, ch. 13),
//!   keeping seeds whose baseline is zero; the mean of per-seed ratios
//!   (version 1's `paired_relative`) is biased upwards when the baseline
//!   is a small count (Jensen: E[b/a] > E[b]/E[a]), which the tests below
//!   measure;
//! - shares get intervals inside [0, 1]: the Wilson score interval
//!   (Wilson 1927) for k of n; for per-seed shares, the Student-t
//!   interval of their mean clipped to [0, 1] (clipping removes no
//!   possible true value, so it covers as often as the t interval does;
//!   the percentile bootstrap, also inside [0, 1], covers far less at the
//!   3 seeds of `--quick`, measured below);
//! - the seeds that would decide an inconclusive row.

use losslab_sim::rng::Stream;
use losslab_sim::stats::{summarize, t_975, Summary, BOOTSTRAP_RESAMPLES};

/// z for a two-sided 95% interval.
pub const Z_975: f64 = 1.959_964;

/// Seeds for a 95% half-width below `gap` at per-seed spread `sd` (the
/// normal approximation; Student's t needs a few more at small n). None
/// when `gap` is zero: the mean sits on the edge that is to be decided.
pub fn seeds_for(sd: f64, gap: f64) -> Option<u64> {
    if gap.is_nan() || gap <= 0.0 || !sd.is_finite() {
        return None;
    }
    Some(((Z_975 * sd / gap).powi(2)).ceil().max(2.0) as u64)
}

/// The relative effect of paired runs as a ratio of totals, `sum(b) /
/// sum(a) - 1`, with a paired percentile bootstrap interval: seeds are
/// resampled as pairs, so the pairing's benefit is kept. Seeds whose
/// baseline is zero count (a per-seed ratio would drop them, and with
/// them the events they hold). A resample whose baseline total is zero
/// has no ratio and is left out; with a zero total there is no estimate.
pub fn ratio_of_totals(a: &[f64], b: &[f64], name: &str) -> Summary {
    assert_eq!(a.len(), b.len(), "paired runs come in pairs");
    let n = a.len();
    let (sa, sb): (f64, f64) = (a.iter().sum(), b.iter().sum());
    let method = "paired-bootstrap-ratio-expanded";
    if n < 2 || sa == 0.0 {
        return Summary {
            n,
            mean: if sa == 0.0 { f64::NAN } else { sb / sa - 1.0 },
            sd: 0.0,
            ci95: None,
            ci_method: method,
        };
    }
    let mut s = Stream::new(0x5eed, name);
    let mut stats: Vec<f64> = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    for _ in 0..BOOTSTRAP_RESAMPLES {
        let (mut ta, mut tb) = (0.0, 0.0);
        for _ in 0..n {
            let i = s.below(n as u64) as usize;
            ta += a[i];
            tb += b[i];
        }
        if ta != 0.0 {
            stats.push(tb / ta - 1.0);
        }
    }
    stats.sort_by(f64::total_cmp);
    let m = stats.len();
    let mean_boot = stats.iter().sum::<f64>() / m as f64;
    let sd =
        (stats.iter().map(|x| (x - mean_boot).powi(2)).sum::<f64>() / (m.max(2) - 1) as f64).sqrt();
    let at = |q: f64| stats[((q * m as f64).floor() as usize).min(m - 1)];
    let est = sb / sa - 1.0;
    // The percentile interval is too narrow at few seeds (it ignores that
    // the spread itself is estimated): at 3 and 5 seeds it held a known
    // effect in only about 76% and 84% of simulated runs (the hostile
    // review of issue 27; the coverage test below). Each side is widened
    // by Hesterberg's small-sample factor, t(n-1, 0.975) / z(0.975) x
    // sqrt(n / (n-1)) (Hesterberg 2015, "What teachers should know about
    // the bootstrap", The American Statistician 69(4), the "expanded
    // percentile interval", here applied to the half-widths rather than
    // to the quantile levels): 2.69 at 3 seeds, 1.58 at 5, 1.22 at 10,
    // 1.04 at 40.
    let nf = n as f64;
    let k = t_975(n as u64 - 1) / Z_975 * (nf / (nf - 1.0)).sqrt();
    let (lo, hi) = (at(0.025), at(0.975));
    Summary {
        n,
        mean: est,
        // The bootstrap sd of the ratio, times sqrt(n): a per-seed spread,
        // so that `seeds_for` reads it as it reads a sample's sd.
        sd: sd * (n as f64).sqrt(),
        ci95: Some([est - (est - lo).max(0.0) * k, est + (hi - est).max(0.0) * k]),
        ci_method: method,
    }
}

/// The share `k` of `n` (events of a kind among all), with its Wilson
/// score interval (95%), which stays in [0, 1] and is not degenerate at 0
/// or n. `sd` is the per-trial spread sqrt(p (1 - p)).
pub fn wilson(k: u64, n: u64) -> Summary {
    if n == 0 {
        return Summary {
            n: 0,
            mean: f64::NAN,
            sd: 0.0,
            ci95: None,
            ci_method: "wilson",
        };
    }
    let (nf, p, z) = (n as f64, k as f64 / n as f64, Z_975);
    let centre = (p + z * z / (2.0 * nf)) / (1.0 + z * z / nf);
    let half = z / (1.0 + z * z / nf) * (p * (1.0 - p) / nf + z * z / (4.0 * nf * nf)).sqrt();
    Summary {
        n: n as usize,
        mean: p,
        sd: (p * (1.0 - p)).sqrt(),
        ci95: Some([(centre - half).max(0.0), (centre + half).min(1.0)]),
        ci_method: "wilson",
    }
}

/// Per-seed shares (each in [0, 1]) summarised by Student's t interval of
/// their mean clipped to [0, 1]: unclipped, it can pass 1 ("0.714 [0.067,
/// 1.36]"); clipped, it loses no possible true value, so it covers as the
/// t interval does, where the percentile bootstrap covers less at few
/// seeds (the coverage test below).
pub fn share_of_seeds(values: &[f64], name: &str) -> Summary {
    let mut t = summarize(values, false, name);
    t.ci95 = t.ci95.map(|[lo, hi]| [lo.max(0.0), hi.min(1.0)]);
    t.ci_method = "student-t-clipped";
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_stay_inside_zero_and_one() {
        let w = wilson(0, 10);
        assert_eq!(w.mean, 0.0);
        let [lo, hi] = w.ci95.unwrap();
        assert_eq!(lo, 0.0);
        // Wilson's upper bound for 0 of 10: z^2 / (n + z^2) = 0.2775.
        assert!((hi - 0.2775).abs() < 1e-3, "{hi}");
        let [lo, hi] = wilson(10, 10).ci95.unwrap();
        assert!(
            (lo - 0.7225).abs() < 1e-3 && (hi - 1.0).abs() < 1e-12,
            "{lo} {hi}"
        );
        // The review's per-seed shares: Student's t passes 1.
        let shares = [1.0, 1.0, 0.143];
        let t = summarize(&shares, false, "t");
        assert!(t.ci95.unwrap()[1] > 1.0);
        let b = share_of_seeds(&shares, "shares");
        assert_eq!(b.ci95.unwrap()[1], 1.0);
        let [lo, hi] = b.ci95.unwrap();
        assert!(
            (0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi),
            "{lo} {hi}"
        );
    }

    #[test]
    fn a_ratio_of_totals_keeps_zero_baselines() {
        // Seeds 1 and 2 have no baseline events; per-seed ratios would drop
        // them and the 4 events of the second setting they hold.
        let a = [0.0, 0.0, 5.0, 5.0];
        let b = [2.0, 2.0, 5.0, 5.0];
        let r = ratio_of_totals(&a, &b, "t");
        assert!((r.mean - 0.4).abs() < 1e-12, "{}", r.mean);
        let dropped = crate::reproduce::claims::paired_relative_v1(&a, &b, "t");
        assert_eq!(dropped.mean, 0.0);
        assert_eq!(ratio_of_totals(&[0.0, 0.0], &[1.0, 1.0], "t").ci95, None);
    }

    /// A Poisson draw (Knuth), for counts like timeouts per seed.
    fn poisson(s: &mut Stream, lambda: f64) -> f64 {
        let l = (-lambda).exp();
        let (mut k, mut p) = (0.0, 1.0);
        loop {
            p *= s.below(1 << 53) as f64 / (1u64 << 53) as f64;
            if p <= l {
                return k;
            }
            k += 1.0;
        }
    }

    /// The review's case: timeouts in recovery, 3 to 18 per seed, under
    /// two settings with no true effect, 40 seeds, many repetitions. The
    /// mean of per-seed ratios is biased upwards and often "finds" an
    /// effect; the ratio of totals is not, and keeps its 5% error rate.
    #[test]
    fn the_ratio_of_totals_is_unbiased_where_per_seed_ratios_are_not() {
        let mut s = Stream::new(27, "no-effect");
        let (reps, seeds) = (400, 40);
        let (mut per_seed, mut totals) = (0.0, 0.0);
        let (mut per_seed_false, mut totals_false) = (0, 0);
        for r in 0..reps {
            let mut a = Vec::with_capacity(seeds);
            let mut b = Vec::with_capacity(seeds);
            for _ in 0..seeds {
                // The seed's own rate: both settings share it (pairing).
                let lambda = 3.0 + s.below(16) as f64;
                a.push(poisson(&mut s, lambda));
                b.push(poisson(&mut s, lambda));
            }
            let p = crate::reproduce::claims::paired_relative_v1(&a, &b, "p");
            let t = ratio_of_totals(&a, &b, &format!("rep{r}"));
            per_seed += p.mean;
            totals += t.mean;
            let excludes_zero = |o: &Summary| o.ci95.is_some_and(|[lo, hi]| lo > 0.0 || hi < 0.0);
            per_seed_false += excludes_zero(&p) as usize;
            totals_false += excludes_zero(&t) as usize;
        }
        let (per_seed, totals) = (per_seed / reps as f64, totals / reps as f64);
        // Theory: E[b / a] - 1 is about the mean of 1 / lambda over 3..18,
        // 0.125; the ratio of totals' bias is about 1 / sum(lambda), 0.002.
        assert!(per_seed > 0.08, "per-seed ratios: {per_seed}");
        assert!(totals.abs() < 0.02, "ratio of totals: {totals}");
        let (pf, tf) = (
            per_seed_false as f64 / reps as f64,
            totals_false as f64 / reps as f64,
        );
        assert!(pf > 0.10, "per-seed false effects: {pf}");
        // 5% nominal; 400 repetitions give a standard error of about 1.1%.
        assert!(tf < 0.09, "ratio-of-totals false effects: {tf}");
        eprintln!("no effect, 40 seeds x {reps}: per-seed {per_seed:+.3} ({pf:.3} false), totals {totals:+.4} ({tf:.3} false)");
    }

    /// Per-seed shares are means of 20 Bernoulli events (a seed's share of
    /// its downloads, say) at p = 0.1, 0.5 and 0.9: how often does each
    /// interval hold p? The clipped t interval keeps the t's coverage; the
    /// percentile bootstrap undercovers at 3 seeds (its 27 resample means
    /// are too few distinct values to spread like the mean does).
    #[test]
    fn clipped_t_covers_shares_where_the_bootstrap_does_not() {
        let mut s = Stream::new(27, "share-coverage");
        let reps = 300;
        for seeds in [3usize, 10] {
            let (mut t_hits, mut b_hits, mut total) = (0, 0, 0);
            for p in [0.1, 0.5, 0.9] {
                for r in 0..reps {
                    let v: Vec<f64> = (0..seeds)
                        .map(|_| {
                            (0..20)
                                .filter(|_| (s.below(1000) as f64) < p * 1000.0)
                                .count() as f64
                                / 20.0
                        })
                        .collect();
                    let holds = |o: &Summary| o.ci95.is_some_and(|[lo, hi]| lo <= p && p <= hi);
                    t_hits += holds(&share_of_seeds(&v, "t")) as usize;
                    b_hits += holds(&summarize(&v, true, &format!("b{seeds}-{p}-{r}"))) as usize;
                    total += 1;
                }
            }
            let (t, b) = (t_hits as f64 / total as f64, b_hits as f64 / total as f64);
            eprintln!("{seeds} seeds: clipped t covers {t:.3}, percentile bootstrap {b:.3}");
            assert!(t > 0.92, "clipped t at {seeds} seeds: {t}");
            if seeds == 3 {
                assert!(b < 0.85, "bootstrap at 3 seeds: {b}");
            }
        }
    }

    /// A standard normal deviate (Box-Muller) from the deterministic stream.
    fn normal(s: &mut Stream) -> f64 {
        let u = |s: &mut Stream| (s.below(1 << 53) as f64 + 0.5) / (1u64 << 53) as f64;
        let (a, b) = (u(s), u(s));
        (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
    }

    /// The review's simulation: per seed a base rate (log-normal, sd 0.3)
    /// shared by both settings, each setting's own log-normal noise (sd
    /// 0.3), a true ratio of totals of 1.5 (effect +0.5). How often does
    /// the interval hold +0.5? The plain percentile interval (the
    /// expansion undone) held it in about 76%, 84%, 90% of runs at 3, 5
    /// and 10 seeds; the expanded one must hold it in about 95%.
    #[test]
    fn the_expanded_ratio_interval_covers_at_few_seeds() {
        let mut s = Stream::new(27, "ratio-coverage");
        let reps = 400;
        for seeds in [3usize, 5, 10, 40] {
            let (mut hits, mut plain_hits) = (0, 0);
            for r in 0..reps {
                let mut a = Vec::with_capacity(seeds);
                let mut b = Vec::with_capacity(seeds);
                for _ in 0..seeds {
                    let base = 10.0 * (0.3 * normal(&mut s)).exp();
                    a.push(base * (0.3 * normal(&mut s)).exp());
                    b.push(base * 1.5 * (0.3 * normal(&mut s)).exp());
                }
                let o = ratio_of_totals(&a, &b, &format!("cov{seeds}-{r}"));
                let [lo, hi] = o.ci95.unwrap();
                hits += (lo <= 0.5 && 0.5 <= hi) as usize;
                let nf = seeds as f64;
                let k = t_975(seeds as u64 - 1) / Z_975 * (nf / (nf - 1.0)).sqrt();
                let (plo, phi) = (o.mean - (o.mean - lo) / k, o.mean + (hi - o.mean) / k);
                plain_hits += (plo <= 0.5 && 0.5 <= phi) as usize;
            }
            let (c, p) = (hits as f64 / reps as f64, plain_hits as f64 / reps as f64);
            eprintln!("{seeds} seeds: expanded covers {c:.3}, plain percentile {p:.3}");
            assert!(c > 0.92, "expanded at {seeds} seeds: {c}");
            if seeds <= 5 {
                assert!(p < 0.90, "plain percentile at {seeds} seeds: {p}");
            }
        }
    }
}
