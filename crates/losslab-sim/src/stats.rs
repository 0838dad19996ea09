//! Statistics over runs of one scenario with several seeds: the seed list
//! a user asks for, and for every metric the mean, standard deviation and
//! a 95% confidence interval for the mean (Student's t; a percentile
//! bootstrap for metrics that are themselves quantiles, whose
//! distribution over seeds need not be near normal).
//!
//! Everything here is deterministic: the bootstrap draws from a stream
//! seeded by the metric's name, and runs are aggregated in seed order, so
//! the same seed list gives the same numbers however the runs were
//! scheduled.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::rng::Stream;
use crate::RunResults;

/// Parses a seed list: `"1..20"` (inclusive), `"20"` (seeds 1 to 20), or
/// `"3,7,11"`. The error says what form was expected. Seeds are at most
/// `i64::MAX`: each run sets its seed as a scenario's `seed` key, a TOML
/// integer, which is 64-bit signed.
pub fn parse_seeds(spec: &str) -> Result<Vec<u64>, String> {
    let spec = spec.trim();
    let num = |s: &str| -> Result<u64, String> {
        let t = s.trim();
        let digits = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        match t.parse::<u64>() {
            Ok(n) if n <= i64::MAX as u64 => Ok(n),
            _ if digits => Err(format!(
                "seed {t} is too large: the largest seed allowed is {} (a TOML integer)",
                i64::MAX
            )),
            _ => Err(format!("{s:?} is not a seed (a whole number)")),
        }
    };
    let seeds = if let Some((a, b)) = spec.split_once("..") {
        let (a, b) = (num(a)?, num(b.trim_start_matches('='))?);
        if a > b {
            return Err(format!(
                "the range {spec:?} is empty: write it low..high, e.g. 1..20"
            ));
        }
        if b - a >= 1_000_000 {
            return Err(format!("the range {spec:?} has over a million seeds"));
        }
        (a..=b).collect()
    } else if spec.contains(',') {
        let v = spec.split(',').map(num).collect::<Result<Vec<_>, _>>()?;
        let mut sorted = v.clone();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("seed {} is listed twice", w[0]));
        }
        v
    } else {
        let n = num(spec)?;
        if n == 0 {
            return Err("a count of 0 seeds runs nothing: give 1 or more".into());
        }
        if n > 1_000_000 {
            return Err(format!("{n} seeds is over a million"));
        }
        (1..=n).collect()
    };
    Ok(seeds)
}

/// One metric over the seeds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Seeds that gave a value (a flow that never finished has no FCT).
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n - 1); 0 for a single value.
    pub sd: f64,
    /// 95% confidence interval for the mean; None with fewer than two
    /// values.
    pub ci95: Option<[f64; 2]>,
    /// `"student-t"` or `"bootstrap"` (other crates add their own).
    pub ci_method: &'static str,
}

/// A [`Summary`] as read back (a kept result, `reproduce --resume`).
#[derive(Deserialize)]
struct SummaryRead {
    n: usize,
    mean: f64,
    sd: f64,
    ci95: Option<[f64; 2]>,
    ci_method: String,
}

// By hand: a derive would borrow the `&'static str` from the input.
impl<'de> Deserialize<'de> for Summary {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Summary, D::Error> {
        SummaryRead::deserialize(d).map(Summary::from)
    }
}

impl From<SummaryRead> for Summary {
    fn from(r: SummaryRead) -> Summary {
        // The few distinct method names are interned, each leaked once.
        static NAMES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
        let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
        let ci_method = match names.iter().find(|n| **n == r.ci_method) {
            Some(n) => *n,
            None => {
                let n: &'static str = Box::leak(r.ci_method.into_boxed_str());
                names.push(n);
                n
            }
        };
        Summary {
            n: r.n,
            mean: r.mean,
            sd: r.sd,
            ci95: r.ci95,
            ci_method,
        }
    }
}

/// Bootstrap resamples for a quantile metric's interval.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;

/// Mean, sd and 95% CI of `values`. `quantile` asks for the percentile
/// bootstrap of the mean instead of Student's t; `name` seeds its draws.
pub fn summarize(values: &[f64], quantile: bool, name: &str) -> Summary {
    let n = values.len();
    let mean = if n == 0 {
        f64::NAN
    } else {
        values.iter().sum::<f64>() / n as f64
    };
    let sd = if n < 2 {
        0.0
    } else {
        (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    };
    let ci95 = (n >= 2).then(|| {
        if quantile {
            bootstrap_mean_ci(values, name)
        } else {
            let h = t_975(n as u64 - 1) * sd / (n as f64).sqrt();
            [mean - h, mean + h]
        }
    });
    Summary {
        n,
        mean,
        sd,
        ci95,
        ci_method: if quantile { "bootstrap" } else { "student-t" },
    }
}

/// Percentile bootstrap (Efron) of the mean: the 2.5th and 97.5th
/// percentiles of the means of `BOOTSTRAP_RESAMPLES` resamples.
fn bootstrap_mean_ci(values: &[f64], name: &str) -> [f64; 2] {
    let n = values.len();
    let mut s = Stream::new(0x5eed, name);
    let mut means: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .map(|_| {
            (0..n)
                .map(|_| values[s.below(n as u64) as usize])
                .sum::<f64>()
                / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((q * (means.len() - 1) as f64).round() as usize).min(means.len() - 1)];
    [at(0.025), at(0.975)]
}

/// The 97.5th percentile of Student's t with `df` degrees of freedom, the
/// factor of a two-sided 95% interval: the root of CDF(t) = 0.975 by
/// bisection, with CDF from the regularised incomplete beta function.
/// Each value is the same for every call and a sweep asks for one per
/// metric and point, so they are kept once computed.
pub fn t_975(df: u64) -> f64 {
    static KNOWN: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<u64, f64>>> =
        std::sync::OnceLock::new();
    let known = KNOWN.get_or_init(Default::default);
    if let Some(&t) = known.lock().expect("no panic while held").get(&df) {
        return t;
    }
    let t = t_975_uncached(df);
    known.lock().expect("no panic while held").insert(df, t);
    t
}

fn t_975_uncached(df: u64) -> f64 {
    let df = df.max(1) as f64;
    let (mut lo, mut hi) = (0.0f64, 1000.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if t_cdf(mid, df) < 0.975 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Welch's t-test of two means from their summaries: the two-sided p
/// value, or None when either side has fewer than two values or neither
/// varies.
pub fn welch_p(a: &Summary, b: &Summary) -> Option<f64> {
    if a.n < 2 || b.n < 2 {
        return None;
    }
    let (va, vb) = (a.sd * a.sd / a.n as f64, b.sd * b.sd / b.n as f64);
    let se2 = va + vb;
    if se2 <= 0.0 {
        return Some(if a.mean == b.mean { 1.0 } else { 0.0 });
    }
    let t = (a.mean - b.mean).abs() / se2.sqrt();
    // Welch-Satterthwaite degrees of freedom.
    let df = se2 * se2
        / (va * va / (a.n as f64 - 1.0) + vb * vb / (b.n as f64 - 1.0)).max(f64::MIN_POSITIVE);
    Some((2.0 * (1.0 - t_cdf(t, df))).clamp(0.0, 1.0))
}

/// CDF of Student's t at t >= 0: 1 - I_x(df/2, 1/2) / 2 with x = df/(df+t²).
fn t_cdf(t: f64, df: f64) -> f64 {
    let x = df / (df + t * t);
    1.0 - 0.5 * inc_beta(x, df / 2.0, 0.5)
}

/// Regularised incomplete beta I_x(a, b) by its continued fraction
/// (Lentz's method; Numerical Recipes 6.4), using the symmetry
/// I_x(a, b) = 1 - I_{1-x}(b, a) where the fraction converges slowly.
fn inc_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_cf(x, a, b) / a
    } else {
        1.0 - ln_front.exp() * beta_cf(1.0 - x, b, a) / b
    }
}

fn beta_cf(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let nonzero = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / nonzero(1.0 - qab * x / qap);
    let mut h = d;
    // One term of the fraction: returns the factor it applies to h.
    let term = |aa: f64, c: &mut f64, d: &mut f64| {
        *d = 1.0 / nonzero(1.0 + aa * *d);
        *c = nonzero(1.0 + aa / *c);
        *d * *c
    };
    for m in 1..300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        h *= term(m * (b - m) * x / ((qam + m2) * (a + m2)), &mut c, &mut d);
        let del = term(
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
            &mut c,
            &mut d,
        );
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1-x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut acc = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        acc += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + acc.ln()
}

/// Metrics that are quantiles or extremes of a run's samples, whose CI
/// comes from the bootstrap.
pub fn is_quantile_metric(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    // `rbb.p95_nonzero`: a quantile of the non-zero samples.
    let last = last.strip_suffix("_nonzero").unwrap_or(last);
    last.starts_with('p') && last[1..].chars().all(|c| c.is_ascii_digit()) && last.len() > 1
        || matches!(last, "min" | "max" | "median")
}

/// The numeric fields of a results object, by dotted name, in the order
/// serde writes them; lists (recoveries, objects) and text are skipped,
/// and so is `null` (a value the run did not have).
pub fn numeric_fields(v: &Value) -> Vec<(String, f64)> {
    fn walk(prefix: &str, v: &Value, out: &mut Vec<(String, f64)>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let name = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&name, x, out);
                }
            }
            Value::Number(n) => {
                if let Some(f) = n.as_f64() {
                    out.push((prefix.to_string(), f));
                }
            }
            Value::Bool(b) => out.push((prefix.to_string(), if *b { 1.0 } else { 0.0 })),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk("", v, &mut out);
    out
}

/// Per-seed metric values: (seed, scope, metric, value), the scope being a
/// flow's name or `path`.
pub type Rows = Vec<(u64, String, String, f64)>;

/// The tidy table of a multi-seed run: one row per seed x scope x metric
/// (scope: a flow's name, or `path`), in seed order then the results'
/// field order. Fields that describe the run rather than measure it
/// (`start_s`, a flow's configuration) are left out.
pub fn tidy_rows(runs: &[RunResults]) -> Rows {
    runs.iter()
        .flat_map(|r| rows_of(r.seed, &serde_json::to_value(r).expect("results serialise")))
        .collect()
}

/// The rows of one run from its results document (as serialised).
pub fn rows_of(seed: u64, v: &Value) -> Rows {
    let mut rows = Vec::new();
    if let Some(p) = v.get("path") {
        for (k, x) in numeric_fields(p) {
            if !k.starts_with("config.") {
                rows.push((seed, "path".to_string(), k, x));
            }
        }
    }
    for f in v
        .get("flows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = f
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        for (k, x) in numeric_fields(f) {
            if k != "start_s" {
                rows.push((seed, name.clone(), k, x));
            }
        }
    }
    rows
}

/// One scope's metrics over the seeds.
#[derive(Clone, Debug, Serialize)]
pub struct ScopeSummary {
    /// A flow's name, or `path`.
    pub scope: String,
    pub metrics: Vec<(String, Summary)>,
}

/// Summaries per scope and metric, in the order the metrics first appear.
pub fn aggregate(rows: &Rows) -> Vec<ScopeSummary> {
    let mut order: Vec<(String, String)> = Vec::new();
    let mut values: std::collections::HashMap<(String, String), Vec<f64>> = Default::default();
    for (_, scope, metric, x) in rows {
        let key = (scope.clone(), metric.clone());
        let e = values.entry(key.clone()).or_default();
        if e.is_empty() {
            order.push(key);
        }
        e.push(*x);
    }
    group(order.into_iter().map(|(scope, metric)| {
        let s = summarize_metric(&scope, &metric, &values[&(scope.clone(), metric.clone())]);
        (scope, metric, s)
    }))
}

/// One metric's summary over the seeds, its values in seed order: how
/// [`aggregate`] and the streamed aggregate of `run --seeds` both make it,
/// so the two give the same numbers.
pub fn summarize_metric(scope: &str, metric: &str, values: &[f64]) -> Summary {
    summarize(
        values,
        is_quantile_metric(metric),
        &format!("{scope}/{metric}"),
    )
}

/// (scope, metric, summary) in the order the metrics first appeared,
/// gathered by scope in the order the scopes first appeared.
pub fn group(items: impl IntoIterator<Item = (String, String, Summary)>) -> Vec<ScopeSummary> {
    let mut out: Vec<ScopeSummary> = Vec::new();
    for (scope, metric, s) in items {
        match out.iter_mut().find(|x| x.scope == scope) {
            Some(x) => x.metrics.push((metric, s)),
            None => out.push(ScopeSummary {
                scope,
                metrics: vec![(metric, s)],
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_lists() {
        assert_eq!(parse_seeds("1..4").unwrap(), vec![1, 2, 3, 4]);
        assert_eq!(parse_seeds("3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_seeds("7, 2,9").unwrap(), vec![7, 2, 9]);
        assert_eq!(parse_seeds("5..5").unwrap(), vec![5]);
        assert!(parse_seeds("5..1").unwrap_err().contains("empty"));
        assert!(parse_seeds("0").is_err());
        assert!(parse_seeds("1,1").unwrap_err().contains("twice"));
        assert!(parse_seeds("a..3").unwrap_err().contains("not a seed"));
    }

    #[test]
    fn seeds_above_i64_max_are_refused_saying_the_largest() {
        let max = i64::MAX as u64;
        assert_eq!(
            parse_seeds("9223372036854775806..9223372036854775807").unwrap(),
            vec![max - 1, max]
        );
        assert_eq!(parse_seeds("9223372036854775807,1").unwrap(), vec![max, 1]);
        for spec in [
            "9223372036854775807..9223372036854775808",
            "1,9223372036854775808",
            "18446744073709551615,1",
            "1,99999999999999999999999",
            "9223372036854775808",
        ] {
            let e = parse_seeds(spec).unwrap_err();
            assert!(
                e.contains("largest seed allowed is 9223372036854775807"),
                "{spec}: {e}"
            );
        }
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        // Two-sided 95% critical values (any statistics table).
        for (df, t) in [
            (1, 12.706),
            (2, 4.303),
            (4, 2.776),
            (9, 2.262),
            (19, 2.093),
            (29, 2.045),
            (120, 1.980),
        ] {
            assert!((t_975(df) - t).abs() < 0.0006, "df {df}: {}", t_975(df));
        }
        assert!((t_975(1_000_000) - 1.960).abs() < 0.001);
    }

    #[test]
    fn welch_matches_a_hand_worked_test() {
        // a: n 10, mean 20, sd 2; b: n 12, mean 22, sd 3. se^2 = 0.4 + 0.75
        // = 1.15, t = 2 / 1.0724 = 1.8650, df = 1.3225 / (0.16/9 +
        // 0.5625/11) = 19.19; two-sided p = 0.07755 (the t density
        // integrated numerically; tables give about 0.077 at df 19).
        let s = |n, mean, sd| Summary {
            n,
            mean,
            sd,
            ci95: None,
            ci_method: "student-t",
        };
        let p = welch_p(&s(10, 20.0, 2.0), &s(12, 22.0, 3.0)).unwrap();
        assert!((p - 0.07755).abs() < 1e-4, "{p}");
        assert_eq!(welch_p(&s(1, 20.0, 0.0), &s(12, 22.0, 3.0)), None);
        assert_eq!(welch_p(&s(3, 5.0, 0.0), &s(3, 5.0, 0.0)), Some(1.0));
    }

    #[test]
    fn a_hand_worked_interval() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample sd sqrt(32/7) = 2.138,
        // half-width t(7) 2.3646 x 2.138 / sqrt(8) = 1.7874.
        let s = summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], false, "x");
        assert_eq!(s.n, 8);
        assert!((s.mean - 5.0).abs() < 1e-12);
        assert!((s.sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        let [lo, hi] = s.ci95.unwrap();
        assert!(
            (hi - 5.0 - 1.7874).abs() < 1e-3 && (5.0 - lo - 1.7874).abs() < 1e-3,
            "{lo} {hi}"
        );
        // One value: no interval.
        assert_eq!(summarize(&[3.0], false, "x").ci95, None);
    }

    #[test]
    fn the_bootstrap_is_deterministic_and_brackets_the_mean() {
        let v: Vec<f64> = (1..=20).map(|i| (i * i) as f64).collect();
        let a = summarize(&v, true, "rtt_ms.p99");
        let b = summarize(&v, true, "rtt_ms.p99");
        assert_eq!(a, b);
        let [lo, hi] = a.ci95.unwrap();
        assert!(lo < a.mean && a.mean < hi, "{lo} {} {hi}", a.mean);
        assert_eq!(a.ci_method, "bootstrap");
        assert!(is_quantile_metric("rtt_ms.p99") && is_quantile_metric("rtt_ms.min"));
        assert!(!is_quantile_metric("retransmissions") && !is_quantile_metric("path.drops"));
        assert!(is_quantile_metric("rbb.p95_nonzero") && is_quantile_metric("rbb.max"));
        assert!(!is_quantile_metric("rbb.mean_nonzero") && !is_quantile_metric("rbb.samples"));
    }
}
