//! Claims and verdicts (issue 12, in progress): a paper's quantitative
//! statement as a row holding the paper's value, ours over seeds (mean and
//! 95% CI, losslab-sim stats.rs), the tolerance its kind of claim gets
//! before anything runs, and a verdict computed from those numbers alone.
//! The rules are written out in docs/REPRODUCTIONS.md, "Verdicts"; the
//! unit tests below work them by hand. Nothing here knows an experiment:
//! the experiments measure, this module judges.

use std::fmt::Write as _;

use losslab_sim::stats::{summarize, Summary};
use serde::Serialize;

/// What our numbers say of a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Our 95% CI overlaps the paper's tolerance band.
    Reproduced,
    /// An effect the paper reports: ours is significant and has the
    /// paper's sign, but its CI misses the band.
    SameDirection,
    /// A value outside the band, or an effect whose CI holds zero (no
    /// significant effect where the paper reports one).
    Differs,
    /// An effect significant in the opposite direction to the paper's.
    Contradicted,
    /// We did not measure it; the row says why.
    NotMeasured,
}

impl Verdict {
    pub const ALL: [Verdict; 5] = [
        Verdict::Reproduced,
        Verdict::SameDirection,
        Verdict::Differs,
        Verdict::Contradicted,
        Verdict::NotMeasured,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::SameDirection => "same direction",
            Verdict::Differs => "differs",
            Verdict::Contradicted => "contradicted",
            Verdict::NotMeasured => "not measured",
        }
    }

    /// A row with this verdict must say why.
    pub fn needs_explanation(self) -> bool {
        matches!(
            self,
            Verdict::Differs | Verdict::Contradicted | Verdict::NotMeasured
        )
    }
}

/// How far from the paper's number still counts as the same: one rule
/// per kind of claim, chosen before running (docs/REPRODUCTIONS.md).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Band {
    /// `paper x (1 - r)` to `paper x (1 + r)`: counts, durations, rates.
    Relative { r: f64 },
    /// `paper - d` to `paper + d`: shares and fractions (0..1), and
    /// effects given in percent points.
    Absolute { d: f64 },
}

impl Band {
    /// Durations, counts and rates: within 25% of the paper's value.
    pub const QUANTITY: Band = Band::Relative { r: 0.25 };
    /// Shares of a total (0..1): within 0.10.
    pub const SHARE: Band = Band::Absolute { d: 0.10 };
    /// Relative effects (B / A - 1): within 25% of the paper's effect,
    /// so that a small effect is not matched by no effect at all.
    pub const EFFECT: Band = Band::Relative { r: 0.25 };

    pub fn around(self, x: f64) -> [f64; 2] {
        match self {
            Band::Relative { r } => {
                let (a, b) = (x * (1.0 - r), x * (1.0 + r));
                [a.min(b), a.max(b)]
            }
            Band::Absolute { d } => [x - d, x + d],
        }
    }
}

/// What the paper states.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Expect {
    /// A number, e.g. "the median recovery takes 80 ms".
    Value { paper: f64, band: Band },
    /// A signed effect, e.g. "PRR cuts timeouts by 5%" (paper = -0.05 as
    /// a relative change): ours is measured per seed against the same
    /// seed's baseline.
    Effect { paper: f64, band: Band },
    /// A lower bound, e.g. "RTOR saves at least one RTT": ours may exceed
    /// it by any amount, and may fall short of it by the band.
    AtLeast { paper: f64, band: Band },
    /// An order without a size, e.g. "PRR recovers faster than RFC 3517":
    /// ours is the per-seed difference, whose sign the paper gives.
    Order { paper_positive: bool },
}

/// One claim's row.
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    pub paper: String,
    pub experiment: String,
    pub id: String,
    /// The paper's words, short, with figure or table and section.
    pub statement: String,
    pub expect: Expect,
    /// Ours over the seeds; None when not measured.
    pub ours: Option<Summary>,
    pub verdict: Verdict,
    /// Why it differs, is contradicted or is not measured, and what tested
    /// that explanation. Required for those verdicts.
    pub explanation: String,
}

/// The verdict of `ours` against `expect` (docs/REPRODUCTIONS.md,
/// "Verdicts"). With fewer than two seeds there is no interval and so no
/// verdict but `not measured`.
pub fn judge(expect: &Expect, ours: &Summary) -> Verdict {
    let Some([lo, hi]) = ours.ci95 else {
        return Verdict::NotMeasured;
    };
    let overlaps = |[a, b]: [f64; 2]| lo <= b && a <= hi;
    // The sign an effect's CI shows: Some(true) all above zero,
    // Some(false) all below, None when it holds zero.
    let sign = if lo > 0.0 {
        Some(true)
    } else if hi < 0.0 {
        Some(false)
    } else {
        None
    };
    match *expect {
        Expect::Value { paper, band } => {
            if overlaps(band.around(paper)) {
                Verdict::Reproduced
            } else {
                Verdict::Differs
            }
        }
        Expect::AtLeast { paper, band } => {
            if overlaps([band.around(paper)[0], f64::INFINITY]) {
                Verdict::Reproduced
            } else {
                Verdict::Differs
            }
        }
        // An effect must first be one: a CI that holds zero shows none,
        // however well it overlaps the band (a wide interval would
        // otherwise "reproduce" anything).
        Expect::Effect { paper, band } => match sign {
            Some(s) if paper != 0.0 && s == (paper > 0.0) => {
                if overlaps(band.around(paper)) {
                    Verdict::Reproduced
                } else {
                    Verdict::SameDirection
                }
            }
            Some(_) if paper != 0.0 => Verdict::Contradicted,
            _ if paper == 0.0 && overlaps(band.around(paper)) => Verdict::Reproduced,
            _ => Verdict::Differs,
        },
        Expect::Order { paper_positive } => match sign {
            Some(s) if s == paper_positive => Verdict::Reproduced,
            Some(_) => Verdict::Contradicted,
            None => Verdict::Differs,
        },
    }
}

/// Per-seed differences `b - a` of paired runs (the same seed under two
/// settings), summarised: the measurement of an `Order` claim.
pub fn paired_difference(a: &[f64], b: &[f64], name: &str) -> Summary {
    assert_eq!(a.len(), b.len(), "paired runs come in pairs");
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    summarize(&d, false, name)
}

/// Per-seed relative changes `b / a - 1` of paired runs, skipping seeds
/// whose baseline is zero: the measurement of an `Effect` claim.
pub fn paired_relative(a: &[f64], b: &[f64], name: &str) -> Summary {
    assert_eq!(a.len(), b.len(), "paired runs come in pairs");
    let d: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|(x, _)| **x != 0.0)
        .map(|(x, y)| y / x - 1.0)
        .collect();
    summarize(&d, false, name)
}

/// A measurement of an experiment with no random input (the papers'
/// hand-placed drops on an otherwise fixed path): every seed gives the
/// same number, so one run is exact and its interval has zero width
/// (docs/REPRODUCTIONS.md, "Verdicts"). Judged by the same rules.
pub fn exact(x: f64) -> Summary {
    Summary {
        n: 1,
        mean: x,
        sd: 0.0,
        ci95: Some([x, x]),
        ci_method: "exact",
    }
}

/// What a row that needs an explanation says until an experiment has
/// tested one.
pub const UNEXPLAINED: &str =
    "not yet explained: issue 12 will test an explanation for each such row";

impl Claim {
    /// The claim, saying `UNEXPLAINED` if its verdict needs an explanation
    /// and it has none.
    pub fn or_unexplained(mut self) -> Claim {
        if self.verdict.needs_explanation() && self.explanation.is_empty() {
            self.explanation = UNEXPLAINED.into();
        }
        self
    }

    /// A measured claim, judged.
    pub fn measured(
        paper: &str,
        experiment: &str,
        id: &str,
        statement: &str,
        expect: Expect,
        ours: Summary,
        explanation: &str,
    ) -> Claim {
        let verdict = judge(&expect, &ours);
        // An explanation prepared for a difference means nothing on a row
        // that does not differ.
        let explanation = if verdict.needs_explanation() {
            explanation
        } else {
            ""
        };
        Claim {
            paper: paper.into(),
            experiment: experiment.into(),
            id: id.into(),
            statement: statement.into(),
            expect,
            ours: Some(ours),
            verdict,
            explanation: explanation.into(),
        }
    }

    /// A claim our model cannot measure, and why.
    pub fn not_measured(
        paper: &str,
        experiment: &str,
        id: &str,
        statement: &str,
        expect: Expect,
        why: &str,
    ) -> Claim {
        Claim {
            paper: paper.into(),
            experiment: experiment.into(),
            id: id.into(),
            statement: statement.into(),
            expect,
            ours: None,
            verdict: Verdict::NotMeasured,
            explanation: why.into(),
        }
    }

    /// The paper's side of the row as text: its value and the band.
    pub fn paper_text(&self) -> String {
        let band = |b: Band| match b {
            Band::Relative { r } => format!("±{:.0}%", r * 100.0),
            Band::Absolute { d } => format!("±{d}"),
        };
        match &self.expect {
            Expect::Value { paper, band: b } => format!("{paper} ({})", band(*b)),
            Expect::AtLeast { paper, band: b } => format!(">= {paper} ({})", band(*b)),
            Expect::Effect { paper, band: b } => format!("{paper:+} ({})", band(*b)),
            Expect::Order { paper_positive } => {
                (if *paper_positive { "> 0" } else { "< 0" }).to_string()
            }
        }
    }
}

/// How many rows have each verdict, for the top of the printout:
/// "12 reproduced, 3 same direction, 2 differs, 1 contradicted, 4 not
/// measured".
pub fn counts<'a>(claims: impl IntoIterator<Item = &'a Claim> + Clone) -> String {
    Verdict::ALL
        .iter()
        .map(|v| {
            format!(
                "{} {}",
                claims
                    .clone()
                    .into_iter()
                    .filter(|c| c.verdict == *v)
                    .count(),
                v.name()
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// claims.csv: one row per claim.
pub fn to_csv<'a>(claims: impl IntoIterator<Item = &'a Claim>) -> String {
    use crate::tables::csv_field;
    let mut s = String::from(
        "paper,experiment,id,statement,paper_value,n,mean,ci95_low,ci95_high,verdict,explanation\n",
    );
    for c in claims {
        let (n, mean, lo, hi) = match &c.ours {
            Some(o) => {
                let (lo, hi) = o.ci95.map_or((String::new(), String::new()), |[l, h]| {
                    (l.to_string(), h.to_string())
                });
                (o.n.to_string(), o.mean.to_string(), lo, hi)
            }
            None => Default::default(),
        };
        let _ = writeln!(
            s,
            "{},{},{},{},{},{n},{mean},{lo},{hi},{},{}",
            csv_field(&c.paper),
            csv_field(&c.experiment),
            csv_field(&c.id),
            csv_field(&c.statement),
            csv_field(&c.paper_text()),
            csv_field(c.verdict.name()),
            csv_field(&c.explanation)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(mean: f64, lo: f64, hi: f64) -> Summary {
        Summary {
            n: 10,
            mean,
            sd: 0.0,
            ci95: Some([lo, hi]),
            ci_method: "student-t",
        }
    }

    #[test]
    fn a_value_is_reproduced_when_its_interval_meets_the_band() {
        // Paper: 80 ms; band ±25% = [60, 100].
        let e = Expect::Value {
            paper: 80.0,
            band: Band::QUANTITY,
        };
        assert_eq!(judge(&e, &ours(105.0, 99.0, 111.0)), Verdict::Reproduced);
        assert_eq!(judge(&e, &ours(110.0, 101.0, 119.0)), Verdict::Differs);
        assert_eq!(judge(&e, &ours(50.0, 45.0, 59.9)), Verdict::Differs);
    }

    #[test]
    fn a_share_has_an_absolute_band() {
        // Paper: 70% of objects under 1 s; ours 99% [98.5, 99.5]: differs.
        let e = Expect::Value {
            paper: 0.70,
            band: Band::SHARE,
        };
        assert_eq!(judge(&e, &ours(0.99, 0.985, 0.995)), Verdict::Differs);
        assert_eq!(judge(&e, &ours(0.78, 0.75, 0.81)), Verdict::Reproduced);
    }

    #[test]
    fn effects_reproduce_point_the_same_way_or_are_contradicted() {
        // Paper: -30% (a cut); band [-0.375, -0.225].
        let e = Expect::Effect {
            paper: -0.30,
            band: Band::EFFECT,
        };
        assert_eq!(judge(&e, &ours(-0.25, -0.31, -0.19)), Verdict::Reproduced);
        assert_eq!(
            judge(&e, &ours(-0.08, -0.12, -0.04)),
            Verdict::SameDirection
        );
        assert_eq!(judge(&e, &ours(-0.02, -0.06, 0.02)), Verdict::Differs);
        assert_eq!(judge(&e, &ours(0.10, 0.05, 0.15)), Verdict::Contradicted);
        // Overlapping the band is not enough when the CI also holds zero:
        // the web experiment's first run had -0.06 [-0.51, 0.39] against
        // the paper's -5%.
        let small = Expect::Effect {
            paper: -0.05,
            band: Band::EFFECT,
        };
        assert_eq!(judge(&small, &ours(-0.06, -0.51, 0.39)), Verdict::Differs);
    }

    #[test]
    fn an_order_needs_a_significant_sign() {
        // PRR recovers faster: RFC 3517's time minus PRR's, positive.
        let e = Expect::Order {
            paper_positive: true,
        };
        assert_eq!(judge(&e, &ours(12.0, 3.0, 21.0)), Verdict::Reproduced);
        assert_eq!(judge(&e, &ours(2.0, -1.0, 5.0)), Verdict::Differs);
        // The PRR paper's Figure 5 as measured in issue 12: RFC 3517 64 ms,
        // PRR 80 ms, so RFC 3517 - PRR = -16 ms in every seed.
        assert_eq!(judge(&e, &ours(-16.0, -20.0, -12.0)), Verdict::Contradicted);
    }

    #[test]
    fn a_lower_bound_has_no_upper_limit() {
        // "RTOR saves at least one RTT" at 10 ms: band from 7.5 ms up.
        let e = Expect::AtLeast {
            paper: 10.0,
            band: Band::QUANTITY,
        };
        assert_eq!(judge(&e, &ours(43.0, 37.0, 49.0)), Verdict::Reproduced);
        assert_eq!(judge(&e, &ours(8.0, 7.6, 8.4)), Verdict::Reproduced);
        assert_eq!(judge(&e, &ours(6.0, 5.0, 7.0)), Verdict::Differs);
    }

    #[test]
    fn an_exact_value_is_judged_as_a_point() {
        // Figure 2: RFC 3517 is silent for about half an RTT (50 ms, band
        // [37.5, 62.5]).
        let e = Expect::Value {
            paper: 50.0,
            band: Band::QUANTITY,
        };
        assert_eq!(judge(&e, &exact(62.0)), Verdict::Reproduced);
        assert_eq!(judge(&e, &exact(63.0)), Verdict::Differs);
        // An order of zero (a tie) is no order.
        let o = Expect::Order {
            paper_positive: true,
        };
        assert_eq!(judge(&o, &exact(0.0)), Verdict::Differs);
        assert_eq!(judge(&o, &exact(-1.0)), Verdict::Contradicted);
    }

    #[test]
    fn one_seed_gives_no_verdict() {
        let one = summarize(&[3.0], false, "x");
        let e = Expect::Order {
            paper_positive: true,
        };
        assert_eq!(judge(&e, &one), Verdict::NotMeasured);
    }

    #[test]
    fn paired_measurements_by_hand() {
        // Differences 1, 2, 3: mean 2, sd 1, t(2) = 4.303, half-width
        // 4.303 / sqrt(3) = 2.484.
        let d = paired_difference(&[10.0, 10.0, 10.0], &[11.0, 12.0, 13.0], "d");
        assert_eq!(d.mean, 2.0);
        let [lo, hi] = d.ci95.unwrap();
        assert!((hi - lo - 2.0 * 4.303 / 3f64.sqrt()).abs() < 1e-3);
        // Relative changes -0.5 and 0; the zero baseline is skipped.
        let r = paired_relative(&[2.0, 4.0, 0.0], &[1.0, 4.0, 7.0], "r");
        assert_eq!(r.n, 2);
        assert_eq!(r.mean, -0.25);
    }

    #[test]
    fn counts_and_csv_name_every_verdict() {
        let e = Expect::Order {
            paper_positive: true,
        };
        let a = Claim::measured(
            "prr",
            "fig5",
            "fig5-prr-faster",
            "PRR recovers faster than RFC 3517 (Fig. 5)",
            e.clone(),
            ours(-16.0, -20.0, -12.0),
            "RFC 3517 sends at once when pipe < cwnd; tested by ...",
        );
        let b = Claim::not_measured(
            "prr",
            "tab6",
            "tab6-bytes",
            "Table 6",
            e,
            "needs Google's server logs",
        );
        let claims = [a, b];
        assert_eq!(
            counts(&claims),
            "0 reproduced, 0 same direction, 0 differs, 1 contradicted, 1 not measured"
        );
        let csv = to_csv(&claims);
        assert_eq!(csv.lines().count(), 3);
        assert!(csv.contains(",contradicted,"), "{csv}");
        assert!(
            csv.ends_with(",not measured,needs Google's server logs\n"),
            "{csv}"
        );
        assert!(claims
            .iter()
            .all(|c| !c.verdict.needs_explanation() || !c.explanation.is_empty()));
    }
}
