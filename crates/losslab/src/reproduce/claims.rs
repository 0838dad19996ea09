//! Claims and verdicts (issue 12, in progress): a paper's quantitative
//! statement as a row holding the paper's value, ours over seeds (mean and
//! 95% CI, losslab-sim stats.rs), the tolerance its kind of claim gets
//! before anything runs, and a verdict computed from those numbers alone.
//! The rules are written out in docs/REPRODUCTIONS.md, "Verdicts"; the
//! unit tests below work them by hand. Nothing here knows an experiment:
//! the experiments measure, this module judges.

use std::fmt::Write as _;

use losslab_sim::stats::{summarize, Summary};

use super::estimators::{ratio_of_totals, seeds_for};
use serde::{Deserialize, Serialize};

/// What our numbers say of a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Our 95% CI lies inside the paper's tolerance band (`judge`;
    /// version 1, kept as `verdict_v1`, asked only that it overlap).
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
    /// Version 2 (`judge`): the interval lies across an edge that
    /// decides the claim; more seeds would decide it.
    Inconclusive,
}

impl Verdict {
    pub const ALL: [Verdict; 6] = [
        Verdict::Reproduced,
        Verdict::SameDirection,
        Verdict::Inconclusive,
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
            Verdict::Inconclusive => "inconclusive",
        }
    }

    /// A row with this verdict must say why.
    pub fn needs_explanation(self) -> bool {
        self.is_a_difference() || self == Verdict::NotMeasured
    }

    /// A measured difference from the paper: what a variant of the runs
    /// can explain (a row not measured has no runs to vary).
    pub fn is_a_difference(self) -> bool {
        matches!(self, Verdict::Differs | Verdict::Contradicted)
    }
}

/// How far from the paper's number still counts as the same: one rule
/// per kind of claim, chosen before running (docs/REPRODUCTIONS.md).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
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
    /// A paper effect of exactly zero (two printed cells alike): a
    /// relative band around zero has no width, so the band is what the
    /// paper's printing leaves open, fixed by its digits before any run:
    /// each cell is exact to half a unit of its last printed digit, `u`
    /// for a cell printed with `significant` digits (`printed_unit`), so
    /// the true effect of cells printed alike as `x` is within
    /// ±u / (x - u/2). (This replaces a flat ±0.05 chosen after seeing
    /// rows near zero; CHANGELOG.md.)
    pub fn printed_zero(x: f64, significant: i32) -> Band {
        let u = printed_unit(x, significant);
        let d = u / (x.abs() - u / 2.0);
        // Rounded up at four significant digits, so the page prints the
        // band it judged by (never narrower).
        let scale = 10f64.powi(3 - d.log10().floor() as i32);
        Band::Absolute {
            d: (d * scale).ceil() / scale,
        }
    }

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

/// The unit of the last digit of `x` printed with `significant`
/// digits: 9.60 (three) -> 0.01, 17.0 -> 0.1, 0.057 (two) -> 0.001. The
/// digits are the paper's, given by the caller: an f64 has lost the
/// trailing zero of "9.60" (the third review's M1).
pub fn printed_unit(x: f64, significant: i32) -> f64 {
    10f64.powi(x.abs().log10().floor() as i32 + 1 - significant)
}

/// A goodput the paper reports near the link's capacity, as the rule
/// table says (docs/REPRODUCTIONS.md, "Verdicts"): when the paper's value
/// plus the quantity band (25%) would pass the capacity, the band above
/// the paper could never be reached and the check would be one-sided, so
/// the row judges the share of capacity instead (ours / capacity against
/// paper / capacity, ± 0.10), which has two sides. None when the value is
/// far enough below capacity for the quantity band.
pub fn near_capacity(paper: f64, capacity: f64) -> Option<Expect> {
    let Band::Relative { r } = Band::QUANTITY else {
        unreachable!("the quantity band is relative")
    };
    (capacity > 0.0 && paper * (1.0 + r) > capacity).then(|| Expect::Value {
        paper: paper / capacity,
        band: Band::SHARE,
    })
}

/// What the paper states.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, Serialize, Deserialize)]
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
    /// The seeds that would decide an `inconclusive` row at the observed
    /// spread (None for other verdicts, or when none would).
    pub seeds_to_decide: Option<u64>,
    /// The verdict under version 1 of the rules (overlap), kept to show
    /// the change once (docs/REPRODUCTIONS.md).
    pub verdict_v1: Verdict,
    /// Why it differs, is contradicted or is not measured, and what tested
    /// that explanation. Required for those verdicts.
    pub explanation: String,
    /// The band ours is judged against, as numbers: a lower bound has no
    /// top, an order's band is its paper's side of zero (None: unbounded).
    pub band_lo: Option<f64>,
    pub band_hi: Option<f64>,
    /// One of the paper's headline claims (../shared/papers/HEADLINES.md):
    /// shown first and counted on its own summary line.
    pub headline: bool,
    /// The runs this row judges: rows that judge the same runs against
    /// different paper numbers share it, and the summary counts it once.
    /// By default `<experiment>/<id>`, the row's own.
    pub measurement: String,
    /// What the row ran at where that differs from what its id names
    /// ("12.67 MB (nominal 38 MB)"), so that a setup table comparing rows
    /// by id says what each side measured (the sixth review of the OR3
    /// paper: a fig7-rtt cell named a 38 MB row that ran 12.67 MB).
    /// Empty, and absent from results.json, where the id says it all.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub setting: String,
}

/// Version 1 of the rules (kept to show the counts under both): a value
/// is reproduced when its CI overlaps the band. With fewer than two
/// seeds there is no interval and so no verdict but `not measured`.
pub fn judge_v1(expect: &Expect, ours: &Summary) -> Verdict {
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

/// The verdict of `ours` against `expect`, version 2 (docs/REPRODUCTIONS.md,
/// "Verdicts"): equivalence instead of overlap. Version 1 called a value
/// reproduced when its 95% CI merely touched the band, so a wide interval
/// reproduced anything; here a claim is `reproduced` only when the whole
/// interval lies inside the band (the two one-sided tests of an
/// equivalence test, each at 2.5%), `differs` only when the whole interval
/// lies outside, and `inconclusive` otherwise, with the seeds the observed
/// spread says would decide it.
/// A version-2 verdict, with the seeds that would decide an inconclusive
/// one (None when no number of seeds would: the mean sits on an edge).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Judged {
    pub verdict: Verdict,
    pub seeds_to_decide: Option<u64>,
}

impl Judged {
    fn decided(verdict: Verdict) -> Judged {
        Judged {
            verdict,
            seeds_to_decide: None,
        }
    }
}

/// Where an interval lies against a range.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    Inside,
    Outside,
    Across,
}

fn place([lo, hi]: [f64; 2], [a, b]: [f64; 2]) -> Place {
    if a <= lo && hi <= b {
        Place::Inside
    } else if hi < a || b < lo {
        Place::Outside
    } else {
        Place::Across
    }
}

/// The seeds that would put the interval wholly on one side of each of
/// `edges`: the nearest edge to the mean decides.
fn seeds_to_decide(ours: &Summary, edges: &[f64]) -> Option<u64> {
    let gap = edges
        .iter()
        .map(|e| (ours.mean - e).abs())
        .fold(f64::INFINITY, f64::min);
    seeds_for(ours.sd, gap).map(|n| n.max(ours.n as u64 + 1))
}

pub fn judge(expect: &Expect, ours: &Summary) -> Judged {
    let Some(ci) = ours.ci95 else {
        return Judged::decided(Verdict::NotMeasured);
    };
    let undecided = |edges: &[f64]| Judged {
        verdict: Verdict::Inconclusive,
        seeds_to_decide: seeds_to_decide(ours, edges),
    };
    match *expect {
        Expect::Value { paper, band } => {
            let b = band.around(paper);
            match place(ci, b) {
                Place::Inside => Judged::decided(Verdict::Reproduced),
                Place::Outside => Judged::decided(Verdict::Differs),
                Place::Across => undecided(&b),
            }
        }
        Expect::AtLeast { paper, band } => {
            let a = band.around(paper)[0];
            match place(ci, [a, f64::INFINITY]) {
                Place::Inside => Judged::decided(Verdict::Reproduced),
                Place::Outside => Judged::decided(Verdict::Differs),
                Place::Across => undecided(&[a]),
            }
        }
        Expect::Effect { paper, band } => {
            let b = band.around(paper);
            if paper == 0.0 {
                // "No effect": an equivalence test around zero.
                return match place(ci, b) {
                    Place::Inside => Judged::decided(Verdict::Reproduced),
                    Place::Outside => Judged::decided(Verdict::Differs),
                    Place::Across => undecided(&b),
                };
            }
            let paper_side = if paper > 0.0 {
                [0.0, f64::INFINITY]
            } else {
                [f64::NEG_INFINITY, 0.0]
            };
            let zero_excluded = ci[0] > 0.0 || ci[1] < 0.0;
            match (zero_excluded, place(ci, paper_side), place(ci, b)) {
                // Significant on the other side of zero.
                (true, Place::Outside, _) => Judged::decided(Verdict::Contradicted),
                (true, _, Place::Inside) => Judged::decided(Verdict::Reproduced),
                (true, _, Place::Outside) => Judged::decided(Verdict::SameDirection),
                (true, _, Place::Across) => undecided(&b),
                // Holds zero: no effect shown; it differs only if it also
                // excludes the paper's band.
                (false, _, Place::Outside) => Judged::decided(Verdict::Differs),
                (false, _, _) => {
                    let mut edges = b.to_vec();
                    edges.push(0.0);
                    undecided(&edges)
                }
            }
        }
        Expect::Order { paper_positive } => {
            if ci[0] > 0.0 || ci[1] < 0.0 {
                let positive = ci[0] > 0.0;
                return Judged::decided(if positive == paper_positive {
                    Verdict::Reproduced
                } else {
                    Verdict::Contradicted
                });
            }
            if ours.sd == 0.0 {
                // Every pair equal: no order at all, whatever the seeds.
                return Judged::decided(Verdict::Differs);
            }
            undecided(&[0.0])
        }
    }
}

/// Per-seed differences `b - a` of paired runs (the same seed under two
/// settings), summarised: the measurement of an `Order` claim.
pub fn paired_difference(a: &[f64], b: &[f64], name: &str) -> Summary {
    assert_eq!(a.len(), b.len(), "paired runs come in pairs");
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    summarize(&d, false, name)
}

/// Relative change of paired runs, `sum(b) / sum(a) - 1` with a paired
/// bootstrap interval (estimators.rs): the measurement of an `Effect`
/// claim.
pub fn paired_relative(a: &[f64], b: &[f64], name: &str) -> Summary {
    ratio_of_totals(a, b, name)
}

/// Version 1: per-seed relative changes `b / a - 1` of paired runs, skipping seeds
/// whose baseline is zero: the measurement of an `Effect` claim.
pub fn paired_relative_v1(a: &[f64], b: &[f64], name: &str) -> Summary {
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
/// A sign test's statistic: of the paired differences `d` that are not
/// zero, the share that are positive, with the Wilson score interval
/// (95%), which stays inside 0..1 for small counts and extreme shares.
pub fn positive_share(d: &[f64]) -> Summary {
    let n = d.iter().filter(|x| **x != 0.0).count() as u64;
    let k = d.iter().filter(|x| **x > 0.0).count() as u64;
    super::estimators::wilson(k, n)
}

/// The explanation experiment for an order the mean of paired
/// differences does not show: that a few pairs with huge differences (a
/// timeout backed off, a probe that raced a delayed ACK) hide what most
/// pairs show. Tested with a sign test on the same pairs: supported when
/// the share of pairs going the paper's way is above one half with 95%
/// confidence. `what` names a pair, e.g. "downloads".
pub fn heavy_tail_explanation(expect: &Expect, d: &[f64], what: &str) -> String {
    let Expect::Order { paper_positive } = *expect else {
        return String::new();
    };
    let ties = d.iter().filter(|x| **x == 0.0).count();
    if ties == d.len() {
        // No pair differs: there is no majority to test (a share of
        // nothing would print as NaN; the sixth review of issue 30).
        return format!(
            "{UNEXPLAINED}; a sign test cannot say whether heavy tails hide the paper's order: \
             all {ties} {what} tie"
        );
    }
    let s = positive_share(d);
    let [lo, hi] = s.ci95.unwrap_or([f64::NAN, f64::NAN]);
    let (share, lo, hi) = if paper_positive {
        (s.mean, lo, hi)
    } else {
        (1.0 - s.mean, 1.0 - hi, 1.0 - lo)
    };
    let mut sorted = d.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = if sorted.is_empty() {
        f64::NAN
    } else {
        sorted[sorted.len() / 2]
    };
    let test = format!(
        "a sign test on the same pairs: the paper's order holds in {:.0}% [{:.0}%, {:.0}%] of \
         the {} {what} that differ ({ties} tie), median difference {median:.1}",
        share * 100.0,
        lo * 100.0,
        hi * 100.0,
        s.n
    );
    if lo > 0.5 {
        format!(
            "Explained by heavy tails: most {what} go the paper's way, a few with far larger \
             differences the other way (a backed-off timeout, a probe that raced a delayed \
             ACK) move the mean. Tested by {test}."
        )
    } else if hi < 0.5 {
        format!(
            "{UNEXPLAINED}; tested and rejected that heavy tails hide the paper's order: by {test}, \
             most {what} go against the paper"
        )
    } else {
        format!(
            "{UNEXPLAINED}; tested and rejected that heavy tails hide the paper's order: by {test}, \
             no majority either way"
        )
    }
}

pub fn ours_text(c: &Claim) -> String {
    c.ours.as_ref().map_or("nothing".into(), summary_text)
}

/// "mean [low, high]" of a measurement, three decimals.
pub fn summary_text(o: &Summary) -> String {
    match o.ci95 {
        Some([lo, hi]) => format!("{:.3} [{lo:.3}, {hi:.3}]", o.mean),
        None => format!("{:.3}", o.mean),
    }
}

/// Whether a variant's measurement supports it as the cause of `c`'s
/// difference (version 2): the variant itself reproduces the paper's
/// number by the same rules, the band and not only the sign. Version 1
/// also took the paper's direction, or a paper's value strictly between
/// our interval and the variant's; an "explanation" could then rest on a
/// variant that itself missed (OR3's 14 packets, "explained" by 7.2).
pub fn supports(_c: &Claim, variant: &Claim) -> bool {
    variant.verdict == Verdict::Reproduced
}

/// `c` needs an explanation, its effect is one our seeds cannot resolve:
/// the interval holds both zero and the paper's band. Says so with the
/// seeds a resolution would take (a 95% half-width below the paper's
/// effect at our per-seed spread); None when the row is not such a case.
pub fn underpowered_explanation(c: &Claim) -> Option<String> {
    let Expect::Effect { paper, band } = c.expect else {
        return None;
    };
    let o = c.ours.as_ref()?;
    let [lo, hi] = o.ci95?;
    let [a, b] = band.around(paper);
    if !(lo <= 0.0 && 0.0 <= hi && lo <= b && a <= hi) || paper == 0.0 {
        return None;
    }
    // Seeds for a two-sided test at 5% to find an effect of the paper's
    // size with 80% power: ((z_0.975 + z_0.80) sd / effect)^2.
    let needed = ((1.959_964 + 0.841_621) * o.sd / paper.abs())
        .powi(2)
        .ceil();
    if needed <= o.n as f64 {
        // Enough seeds to see the paper's effect had ours been as large.
        return None;
    }
    Some(format!(
        "Explained by resolution: the paper's effect ({:+.1}%) is smaller than our seeds can \
         resolve; ours, {:+.1}% [{:+.1}%, {:+.1}%] over {} seeds, holds both no effect and the \
         paper's. Tested by the seeds it would take at our per-seed spread (sd {:.1} points) \
         to find an effect of the paper's size with 80% power at the 5% level: about {needed}.",
        paper * 100.0,
        o.mean * 100.0,
        lo * 100.0,
        hi * 100.0,
        o.n,
        o.sd * 100.0
    ))
}

pub const BY_CONSTRUCTION: &str = "Not evidence: holds by construction in these runs";

pub const PAPER_IN_DOUBT: &str = "Not judged: the paper's own value is in doubt";
/// Marks a row whose setup, under a setup alternative, leaves the premise
/// of the paper's claim as we read it (a buffer no longer "insufficient").
pub const OUTSIDE_READING: &str = "Not judged: outside our reading of the claim's premise here";

pub const UNEXPLAINED: &str = "not yet explained";

/// The explanation of `c` that a variant of its runs (`variant`: `c`
/// judged on the variant's numbers; `how` says what changed) gives for
/// `cause`: "Explained by" when the variant meets the paper (`supports`),
/// else the cause listed as tested and rejected; `measured` follows.
pub fn variant_explanation(
    c: &Claim,
    variant: &Claim,
    cause: &str,
    how: &str,
    measured: &str,
) -> String {
    variants_explanation(c, &[(cause, how, variant.clone())], measured)
}

/// As `variant_explanation`, for several causes each tested by its own
/// variant, in the order given: every variant that meets the paper
/// explains the row ("Explained by A: ...; and by B: ..."), the others are
/// listed as tested and rejected after them, so that no tested cause goes
/// unreported whatever it gave.
pub fn variants_explanation(c: &Claim, variants: &[(&str, &str, Claim)], measured: &str) -> String {
    let gives = |v: &Claim| v.ours.as_ref().map(summary_text).unwrap_or_default();
    let (held, rejected): (Vec<_>, Vec<_>) = variants.iter().partition(|(_, _, v)| supports(c, v));
    let held = held
        .iter()
        .map(|(cause, how, v)| {
            format!(
                "{cause}: tested by {how}, which gives {} ({})",
                gives(v),
                v.verdict.name()
            )
        })
        .collect::<Vec<_>>();
    let rejected = rejected
        .iter()
        .map(|(cause, how, v)| format!("{cause} ({how} gives {}, {})", gives(v), v.verdict.name()))
        .collect::<Vec<_>>()
        .join("; ");
    if held.is_empty() {
        format!("{UNEXPLAINED}; tested and rejected: {rejected}; {measured}")
    } else if rejected.is_empty() {
        format!("Explained by {}; {measured}", held.join("; and by "))
    } else {
        format!(
            "Explained by {}; also tested and rejected: {rejected}; {measured}",
            held.join("; and by ")
        )
    }
}

/// Variants that cannot explain a row whatever they give, because they
/// change something the paper fixed (`why_not` says what): each is listed
/// with what it gives, and one that meets the paper is said to reproduce
/// the row without explaining it; the row stays not yet explained.
pub fn variants_not_explaining(
    variants: &[(&str, &str, Claim)],
    why_not: &str,
    measured: &str,
) -> String {
    let list = variants
        .iter()
        .map(|(cause, how, v)| {
            let gives = v.ours.as_ref().map(summary_text).unwrap_or_default();
            let held = if v.verdict == Verdict::Reproduced {
                ": it reproduces the row"
            } else {
                ""
            };
            format!("{cause} ({how} gives {gives}, {}{held})", v.verdict.name())
        })
        .collect::<Vec<_>>()
        .join("; ");
    format!("{UNEXPLAINED}; tested, not as explanations ({why_not}): {list}; {measured}")
}

/// What a differing row says until an experiment has tested an
/// explanation.
pub const UNTESTED: &str = "not yet explained (no explanation has been tested yet)";

/// UNTESTED at `--quick` and the default, which run few or none of the
/// variants and reruns that test explanations.
pub const UNTESTED_HERE: &str = "not yet explained (no explanation tested at this scale: \
     --thorough and --full run the explanation variants and setup reruns, which may test one)";

/// A measured claim whose explanation, until an experiment tests one, is
/// UNTESTED followed by `measured` (what the same runs measured; may be
/// empty).
pub fn untested(
    paper: &str,
    exp: &str,
    id: &str,
    statement: &str,
    expect: Expect,
    values: &[f64],
    measured: &str,
) -> Claim {
    let explanation = if measured.is_empty() {
        UNTESTED.to_string()
    } else {
        format!("{UNTESTED}; {measured}")
    };
    let ours = summary_of(&expect, values, id);
    Claim::measured(paper, exp, id, statement, expect, ours, &explanation)
}

/// Ours over the seeds for `expect`: a share (a value or bound with the
/// share band, every seed's value in [0, 1]) gets the bootstrap interval
/// that stays in [0, 1]; everything else Student's t.
fn summary_of(expect: &Expect, values: &[f64], id: &str) -> Summary {
    let share = matches!(
        expect,
        Expect::Value { band, .. } | Expect::AtLeast { band, .. } if *band == Band::SHARE
    ) && values.iter().all(|v| (0.0..=1.0).contains(v));
    if share {
        super::estimators::share_of_seeds(values, id)
    } else {
        summarize(values, false, id)
    }
}

impl Claim {
    /// This claim judged on another measurement: an explanation
    /// experiment's variant, to compare with it (`supports`).
    pub fn on(&self, ours: Summary) -> Claim {
        Claim::measured(
            &self.paper,
            &self.experiment,
            &self.id,
            &self.statement,
            self.expect.clone(),
            ours,
            "",
        )
    }

    /// The claim with `why()` as its explanation if its verdict needs one
    /// and it has none yet (the explanation experiment runs only then).
    pub fn explained_by(mut self, why: impl FnOnce(&Claim) -> String) -> Claim {
        if self.verdict.needs_explanation() && self.explanation.is_empty() {
            self.explanation = why(&self);
        }
        self
    }

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
        let Judged {
            verdict,
            seeds_to_decide,
        } = judge(&expect, &ours);
        let verdict_v1 = judge_v1(&expect, &ours);
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
            seeds_to_decide,
            verdict_v1,
            explanation: explanation.into(),
            band_lo: None,
            band_hi: None,
            headline: false,
            measurement: format!("{experiment}/{id}"),
            setting: String::new(),
        }
        .with_band()
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
            seeds_to_decide: None,
            verdict_v1: Verdict::NotMeasured,
            explanation: why.into(),
            band_lo: None,
            band_hi: None,
            headline: false,
            measurement: format!("{experiment}/{id}"),
            setting: String::new(),
        }
        .with_band()
    }

    fn with_band(mut self) -> Claim {
        let [lo, hi] = self.band();
        self.band_lo = lo.is_finite().then_some(lo);
        self.band_hi = hi.is_finite().then_some(hi);
        self
    }

    /// The band as an interval (infinite where it is open).
    pub fn band(&self) -> [f64; 2] {
        match self.expect {
            Expect::Value { paper, band } | Expect::Effect { paper, band } => band.around(paper),
            Expect::AtLeast { paper, band } => [band.around(paper)[0], f64::INFINITY],
            Expect::Order {
                paper_positive: true,
            } => [0.0, f64::INFINITY],
            Expect::Order {
                paper_positive: false,
            } => [f64::NEG_INFINITY, 0.0],
        }
    }

    /// A row whose quantity follows from the setup (one side of the
    /// comparison cannot move in these runs) is no evidence whatever its
    /// numbers say: it keeps them but counts as `not measured`, with why.
    /// Only for a cause shown in the code or the runs, named in `why`.
    pub fn by_construction(self, why: &str) -> Claim {
        self.not_judged(BY_CONSTRUCTION, why)
    }

    /// A row whose paper value the paper itself puts in doubt (a table
    /// that repeats another cell for cell): it keeps our numbers but is
    /// judged against nothing and counts as `not measured`, with why.
    pub fn paper_in_doubt(self, why: &str) -> Claim {
        self.not_judged(PAPER_IN_DOUBT, why)
    }

    /// A row whose runs, under a setup alternative, no longer meet the
    /// premise of the paper's claim as the main arm reads it: judging it
    /// would test a claim the paper does not make. It keeps our numbers
    /// and counts as `not measured`, with why.
    pub fn outside_reading(self, why: &str) -> Claim {
        self.not_judged(OUTSIDE_READING, why)
    }

    /// Our numbers kept, the verdict `not measured`, and `marker: why`.
    fn not_judged(mut self, marker: &str, why: &str) -> Claim {
        self.verdict = Verdict::NotMeasured;
        self.seeds_to_decide = None;
        self.explanation = format!("{marker}: {why}");
        self
    }

    /// Marked by `by_construction`: an explanation step must leave it.
    pub fn is_by_construction(&self) -> bool {
        self.verdict == Verdict::NotMeasured && self.explanation.starts_with(BY_CONSTRUCTION)
    }

    /// Adds a note after the explanation: its first words stay first, as
    /// the page reads them as its kind ("Explained by", "not yet
    /// explained").
    pub fn append_explanation(&mut self, note: String) {
        self.explanation = if self.explanation.is_empty() {
            note
        } else {
            format!("{}; {note}", self.explanation)
        };
    }

    /// Marks one of the paper's headline claims (HEADLINES.md): the
    /// statement should name its item, e.g. "Headline 3: ...".
    pub fn headline(mut self) -> Claim {
        self.headline = true;
        self
    }

    /// Says what the row ran at where its id does not (see `setting`).
    pub fn setting(mut self, at: impl Into<String>) -> Claim {
        self.setting = at.into();
        self
    }

    /// Names the runs this row judges, when other rows judge the same
    /// runs (see `measurement`).
    pub fn measurement(mut self, id: impl Into<String>) -> Claim {
        self.measurement = id.into();
        self
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
/// How far a verdict is from `reproduced`, in the order of Verdict::ALL:
/// a measurement judged by several rows counts under its furthest.
fn rank(v: Verdict) -> usize {
    Verdict::ALL
        .iter()
        .position(|x| *x == v)
        .unwrap_or(usize::MAX)
}

/// Each measurement once: a measurement is `reproduced` only when every
/// row judging it is, and otherwise counts under the verdict of its row
/// furthest from reproduced (so no copy of a run adds a success).
/// Returns (measurements, rows, the counts).
pub fn measurement_counts<'a>(
    claims: impl IntoIterator<Item = &'a Claim>,
) -> (usize, usize, String) {
    let mut by: Vec<(&str, Verdict)> = Vec::new();
    let mut rows = 0;
    for c in claims {
        rows += 1;
        match by.iter_mut().find(|(m, _)| *m == c.measurement) {
            Some((_, v)) if rank(c.verdict) > rank(*v) => *v = c.verdict,
            Some(_) => {}
            None => by.push((&c.measurement, c.verdict)),
        }
    }
    let text = Verdict::ALL
        .iter()
        .map(|v| format!("{} {}", by.iter().filter(|(_, x)| x == v).count(), v.name()))
        .collect::<Vec<_>>()
        .join(", ");
    (by.len(), rows, text)
}

/// The HEADLINES.md item a headline row's statement names ("Headline 3:
/// ...").
pub fn headline_item(statement: &str) -> Option<u32> {
    let rest = statement.strip_prefix("Headline ")?;
    let (n, _) = rest.split_once(':')?;
    n.parse().ok()
}

/// The summary lines of a paper: its headline claims first
/// ("headline: k of n reproduced"), then every row, then each
/// measurement once.
/// The summary's three lines. `subset`: the run judged only some of the
/// paper's rows (a smaller scale's cells), so HEADLINES.md's items, each
/// reproduced only when all its rows are, are not counted: the rows a
/// larger scale adds could fail an item this run would call reproduced.
pub fn summary_lines<'a>(
    claims: impl IntoIterator<Item = &'a Claim> + Clone,
    subset: bool,
) -> Vec<String> {
    let heads: Vec<&Claim> = claims.clone().into_iter().filter(|c| c.headline).collect();
    let k = heads
        .iter()
        .filter(|c| c.verdict == Verdict::Reproduced)
        .count();
    let (m, rows, by_m) = measurement_counts(claims.clone());
    // HEADLINES.md's items: one may take several rows, and it holds only
    // when every row of it is reproduced.
    let mut items: Vec<(u32, bool)> = Vec::new();
    for c in &heads {
        let Some(n) = headline_item(&c.statement) else {
            continue;
        };
        let ok = c.verdict == Verdict::Reproduced;
        match items.iter_mut().find(|(i, _)| *i == n) {
            Some((_, all)) => *all &= ok,
            None => items.push((n, ok)),
        }
    }
    let items = if subset {
        format!(
            "items of HEADLINES.md: not judged at this scale ({} items; some of their rows run only at --thorough and --full)",
            items.len()
        )
    } else {
        format!(
            "items of HEADLINES.md: {} of {} reproduced (an item only when all its rows are)",
            items.iter().filter(|(_, ok)| *ok).count(),
            items.len()
        )
    };
    vec![
        format!(
            "headline: {k} of {} reproduced ({}); {items}",
            heads.len(),
            counts(heads.iter().copied()),
        ),
        format!("{rows} claims: {}", counts(claims)),
        format!(
            "{m} measurements, each counted once ({} of the {rows} rows judge runs another row judges too): {by_m}",
            rows - m
        ),
    ]
}

pub fn to_csv<'a>(claims: impl IntoIterator<Item = &'a Claim>) -> String {
    use crate::tables::csv_field;
    let mut s = String::from(
        "paper,experiment,id,statement,paper_value,n,mean,ci95_low,ci95_high,verdict,explanation,seeds_to_decide,verdict_v1,band_lo,band_hi,headline,measurement\n",
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
            "{},{},{},{},{},{n},{mean},{lo},{hi},{},{},{},{},{},{},{},{}",
            csv_field(&c.paper),
            csv_field(&c.experiment),
            csv_field(&c.id),
            csv_field(&c.statement),
            csv_field(&c.paper_text()),
            csv_field(c.verdict.name()),
            csv_field(&c.explanation),
            c.seeds_to_decide.map_or(String::new(), |n| n.to_string()),
            csv_field(c.verdict_v1.name()),
            c.band_lo.map_or(String::new(), |x| x.to_string()),
            c.band_hi.map_or(String::new(), |x| x.to_string()),
            c.headline,
            csv_field(&c.measurement)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: 19.1 and 19.1 are each within 0.05, so the effect is
    /// within 0.1 / 19.05 = 0.005249..., printed up to 0.005250; "9.60"
    /// twice: 0.01 / 9.595 = 0.0010422... -> 0.001043; 0.057 at two
    /// digits: 0.001 / 0.0565 = 0.017699... -> 0.01770.
    #[test]
    fn a_zero_effect_is_judged_within_the_papers_rounding() {
        assert_eq!(printed_unit(19.1, 3), 0.1);
        assert_eq!(printed_unit(9.6, 3), 0.01);
        assert_eq!(printed_unit(17.0, 3), 0.1);
        assert_eq!(printed_unit(929.0, 3), 1.0);
        assert_eq!(printed_unit(0.057, 2), 0.001);
        assert_eq!(Band::printed_zero(19.1, 3), Band::Absolute { d: 0.005250 });
        assert_eq!(Band::printed_zero(9.6, 3), Band::Absolute { d: 0.001043 });
        assert_eq!(Band::printed_zero(0.057, 2), Band::Absolute { d: 0.01770 });
    }

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
        assert_eq!(judge_v1(&e, &ours(105.0, 99.0, 111.0)), Verdict::Reproduced);
        assert_eq!(judge_v1(&e, &ours(110.0, 101.0, 119.0)), Verdict::Differs);
        assert_eq!(judge_v1(&e, &ours(50.0, 45.0, 59.9)), Verdict::Differs);
    }

    #[test]
    fn a_share_has_an_absolute_band() {
        // Paper: 70% of objects under 1 s; ours 99% [98.5, 99.5]: differs.
        let e = Expect::Value {
            paper: 0.70,
            band: Band::SHARE,
        };
        assert_eq!(judge_v1(&e, &ours(0.99, 0.985, 0.995)), Verdict::Differs);
        assert_eq!(judge_v1(&e, &ours(0.78, 0.75, 0.81)), Verdict::Reproduced);
    }

    #[test]
    fn effects_reproduce_point_the_same_way_or_are_contradicted() {
        // Paper: -30% (a cut); band [-0.375, -0.225].
        let e = Expect::Effect {
            paper: -0.30,
            band: Band::EFFECT,
        };
        assert_eq!(
            judge_v1(&e, &ours(-0.25, -0.31, -0.19)),
            Verdict::Reproduced
        );
        assert_eq!(
            judge_v1(&e, &ours(-0.08, -0.12, -0.04)),
            Verdict::SameDirection
        );
        assert_eq!(judge_v1(&e, &ours(-0.02, -0.06, 0.02)), Verdict::Differs);
        assert_eq!(judge_v1(&e, &ours(0.10, 0.05, 0.15)), Verdict::Contradicted);
        // Overlapping the band is not enough when the CI also holds zero:
        // the web experiment's first run had -0.06 [-0.51, 0.39] against
        // the paper's -5%.
        let small = Expect::Effect {
            paper: -0.05,
            band: Band::EFFECT,
        };
        assert_eq!(
            judge_v1(&small, &ours(-0.06, -0.51, 0.39)),
            Verdict::Differs
        );
    }

    #[test]
    fn an_order_needs_a_significant_sign() {
        // PRR recovers faster: RFC 3517's time minus PRR's, positive.
        let e = Expect::Order {
            paper_positive: true,
        };
        assert_eq!(judge_v1(&e, &ours(12.0, 3.0, 21.0)), Verdict::Reproduced);
        assert_eq!(judge_v1(&e, &ours(2.0, -1.0, 5.0)), Verdict::Differs);
        // The PRR paper's Figure 5 as measured in issue 12: RFC 3517 64 ms,
        // PRR 80 ms, so RFC 3517 - PRR = -16 ms in every seed.
        assert_eq!(
            judge_v1(&e, &ours(-16.0, -20.0, -12.0)),
            Verdict::Contradicted
        );
    }

    #[test]
    fn a_lower_bound_has_no_upper_limit() {
        // "RTOR saves at least one RTT" at 10 ms: band from 7.5 ms up.
        let e = Expect::AtLeast {
            paper: 10.0,
            band: Band::QUANTITY,
        };
        assert_eq!(judge_v1(&e, &ours(43.0, 37.0, 49.0)), Verdict::Reproduced);
        assert_eq!(judge_v1(&e, &ours(8.0, 7.6, 8.4)), Verdict::Reproduced);
        assert_eq!(judge_v1(&e, &ours(6.0, 5.0, 7.0)), Verdict::Differs);
    }

    #[test]
    fn an_exact_value_is_judged_as_a_point() {
        // Figure 2: RFC 3517 is silent for about half an RTT (50 ms, band
        // [37.5, 62.5]).
        let e = Expect::Value {
            paper: 50.0,
            band: Band::QUANTITY,
        };
        assert_eq!(judge_v1(&e, &exact(62.0)), Verdict::Reproduced);
        assert_eq!(judge_v1(&e, &exact(63.0)), Verdict::Differs);
        // An order of zero (a tie) is no order.
        let o = Expect::Order {
            paper_positive: true,
        };
        assert_eq!(judge_v1(&o, &exact(0.0)), Verdict::Differs);
        assert_eq!(judge_v1(&o, &exact(-1.0)), Verdict::Contradicted);
    }

    #[test]
    fn one_seed_gives_no_verdict() {
        let one = summarize(&[3.0], false, "x");
        let e = Expect::Order {
            paper_positive: true,
        };
        assert_eq!(judge_v1(&e, &one), Verdict::NotMeasured);
    }

    #[test]
    fn a_sign_test_sees_the_majority_under_a_heavy_tail() {
        // Nine pairs 10 ms the paper's way, one 1000 ms against: the mean
        // says "against", the pairs say "with".
        let mut d = vec![10.0; 9];
        d.push(-1000.0);
        d.push(0.0);
        let e = Expect::Order {
            paper_positive: true,
        };
        let s = positive_share(&d);
        assert_eq!((s.n, s.mean), (10, 0.9));
        // Wilson by hand: centre (0.9 + 0.1921) / 1.3841, half-width
        // 1.96 / 1.3841 x sqrt(0.009 + 0.0096): [0.596, 0.982].
        let [lo, hi] = s.ci95.unwrap();
        assert!(
            (lo - 0.596).abs() < 1e-3 && (hi - 0.982).abs() < 1e-3,
            "{lo} {hi}"
        );
        let why = heavy_tail_explanation(&e, &d, "downloads");
        assert!(why.starts_with("Explained by heavy tails"), "{why}");
        assert!(why.contains("90% ["), "{why}");
        let against: Vec<f64> = d.iter().map(|x| -x).collect();
        let why = heavy_tail_explanation(&e, &against, "downloads");
        assert!(why.contains("most downloads go against the paper"), "{why}");
    }

    #[test]
    fn an_effect_below_resolution_is_said_to_be_one() {
        let c = |mean: f64, sd: f64, lo: f64, hi: f64| {
            Claim::measured(
                "p",
                "e",
                "id",
                "s",
                Expect::Effect {
                    paper: 0.01,
                    band: Band::EFFECT,
                },
                Summary {
                    n: 20,
                    mean,
                    sd,
                    ci95: Some([lo, hi]),
                    ci_method: "student-t",
                },
                "",
            )
        };
        // sd 5 points: (2.8016 x 0.05 / 0.01)^2 = 196.2, so 197 seeds.
        let why = underpowered_explanation(&c(0.017, 0.05, -0.007, 0.041)).unwrap();
        assert!(why.contains("about 197"), "{why}");
        // With sd 1 point, 8 seeds would do: 20 seeds could have seen it.
        assert_eq!(
            underpowered_explanation(&c(0.001, 0.01, -0.004, 0.006)),
            None
        );
        // An interval that excludes the paper's band is not a resolution
        // problem.
        assert_eq!(
            underpowered_explanation(&c(-0.02, 0.05, -0.044, 0.004)),
            None
        );
    }

    #[test]
    fn a_variant_supports_a_cause_only_by_reproducing_the_paper() {
        let claim = |expect: Expect, lo: f64, hi: f64| {
            Claim::measured(
                "p",
                "e",
                "id",
                "s",
                expect,
                ours((lo + hi) / 2.0, lo, hi),
                "",
            )
        };
        let v = Expect::Value {
            paper: 0.45,
            band: Band::SHARE,
        };
        let base = claim(v.clone(), 0.27, 0.30);
        assert!(supports(&base, &claim(v.clone(), 0.40, 0.50)));
        // Version 1 took 0.45 lying between [0.27, 0.30] and [0.60, 0.66]
        // as support ("a mix gives it"); a variant that misses is none.
        assert!(!supports(&base, &claim(v.clone(), 0.60, 0.66)));
        assert!(!supports(&base, &claim(v.clone(), 0.30, 0.50)));
        assert!(!supports(&base, &claim(v, 0.20, 0.22)));
        let e = Expect::Effect {
            paper: -0.05,
            band: Band::EFFECT,
        };
        let base = claim(e.clone(), 0.09, 0.41);
        assert!(!supports(&base, &claim(e.clone(), -1.07, 0.07)));
        // The paper's sign at four times its size: not the paper's number.
        assert!(!supports(&base, &claim(e.clone(), -0.25, -0.15)));
        assert!(supports(&base, &claim(e, -0.055, -0.045)));
    }

    #[test]
    fn variants_name_what_held_and_what_was_rejected() {
        let order = Expect::Order {
            paper_positive: true,
        };
        let claim = |lo: f64, hi: f64| {
            Claim::measured(
                "p",
                "e",
                "id",
                "s",
                order.clone(),
                ours((lo + hi) / 2.0, lo, hi),
                "",
            )
        };
        let base = claim(-3.0, -1.0);
        assert!(base.verdict.needs_explanation());
        let (up, flat) = (claim(2.0, 4.0), claim(-1.0, 1.0));
        let one = variant_explanation(&base, &up, "A", "a = 1", "m");
        assert!(one.starts_with("Explained by A: tested by a = 1, which gives "));
        assert!(one.ends_with("(reproduced); m"));
        let none = variant_explanation(&base, &flat, "A", "a = 1", "m");
        assert!(none.starts_with("not yet explained; tested and rejected: A (a = 1 gives "));
        assert!(none.ends_with(", differs); m"), "{none}");
        let both = variants_explanation(
            &base,
            &[("A", "a = 1", flat.clone()), ("B", "b = 1", up.clone())],
            "m",
        );
        assert!(
            both.starts_with("Explained by B: tested by b = 1, which gives "),
            "{both}"
        );
        assert!(
            both.contains("(reproduced); also tested and rejected: A (a = 1 gives "),
            "{both}"
        );
        assert!(both.ends_with(", differs); m"), "{both}");
        let neither = variants_explanation(
            &base,
            &[("A", "a = 1", flat.clone()), ("B", "b = 1", flat.clone())],
            "m",
        );
        assert!(neither.starts_with("not yet explained; tested and rejected: A (a = 1 gives "));
        assert!(neither.contains(", differs); B (b = 1 gives "), "{neither}");
        let two = variants_explanation(
            &base,
            &[("A", "a = 1", up.clone()), ("B", "b = 1", up.clone())],
            "m",
        );
        assert!(
            two.contains("(reproduced); and by B: tested by b = 1"),
            "{two}"
        );
        assert!(two.ends_with("(reproduced); m"), "{two}");
        let not = variants_not_explaining(&[("A", "a = 1", up), ("B", "b = 1", flat)], "w", "m");
        assert!(
            not.starts_with("not yet explained; tested, not as explanations (w): A (a = 1 gives ")
        );
        assert!(not.contains(", reproduced: it reproduces the row); B (b = 1 gives "));
        assert!(not.ends_with(", differs); m"));
    }

    #[test]
    fn paired_measurements_by_hand() {
        // Differences 1, 2, 3: mean 2, sd 1, t(2) = 4.303, half-width
        // 4.303 / sqrt(3) = 2.484.
        let d = paired_difference(&[10.0, 10.0, 10.0], &[11.0, 12.0, 13.0], "d");
        assert_eq!(d.mean, 2.0);
        let [lo, hi] = d.ci95.unwrap();
        assert!((hi - lo - 2.0 * 4.303 / 3f64.sqrt()).abs() < 1e-3);
        // Version 1: relative changes -0.5 and 0; the zero baseline is
        // skipped. Version 2: totals 6 and 12, +100%, every seed kept.
        let r = paired_relative_v1(&[2.0, 4.0, 0.0], &[1.0, 4.0, 7.0], "r");
        assert_eq!(r.n, 2);
        assert_eq!(r.mean, -0.25);
        let r = paired_relative(&[2.0, 4.0, 0.0], &[1.0, 4.0, 7.0], "r");
        assert_eq!(r.n, 3);
        assert_eq!(r.mean, 1.0);
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
            "0 reproduced, 0 same direction, 0 inconclusive, 0 differs, 1 contradicted, 1 not measured"
        );
        let csv = to_csv(&claims);
        assert_eq!(csv.lines().count(), 3);
        assert!(csv.contains(",contradicted,"), "{csv}");
        assert!(
            csv.ends_with(
                ",not measured,needs Google's server logs,,not measured,0,,false,tab6/tab6-bytes\n"
            ),
            "{csv}"
        );
        assert!(claims
            .iter()
            .all(|c| !c.verdict.needs_explanation() || !c.explanation.is_empty()));
    }

    // ---- Version 2 (issue 27).

    fn ours2(mean: f64, sd: f64, lo: f64, hi: f64) -> Summary {
        Summary {
            n: 10,
            mean,
            sd,
            ci95: Some([lo, hi]),
            ci_method: "student-t",
        }
    }

    fn v(e: &Expect, o: &Summary) -> Verdict {
        judge(e, o).verdict
    }

    #[test]
    fn a_value_is_reproduced_only_with_its_whole_interval_in_the_band() {
        // Paper 80 ms, band ±25% = [60, 100].
        let e = Expect::Value {
            paper: 80.0,
            band: Band::QUANTITY,
        };
        assert_eq!(v(&e, &ours2(90.0, 5.0, 85.0, 95.0)), Verdict::Reproduced);
        assert_eq!(v(&e, &ours2(60.0, 1.0, 60.0, 60.0)), Verdict::Reproduced);
        // Version 1 called this reproduced: the interval touches the band.
        assert_eq!(
            v(&e, &ours2(105.0, 10.0, 99.0, 111.0)),
            Verdict::Inconclusive
        );
        assert_eq!(v(&e, &ours2(110.0, 10.0, 101.0, 119.0)), Verdict::Differs);
        // A wide interval around the paper's own number decides nothing.
        let wide = judge(&e, &ours2(80.0, 50.0, 40.0, 120.0));
        assert_eq!(wide.verdict, Verdict::Inconclusive);
        // 20 from the mean to an edge at sd 50: (1.96 * 50 / 20)^2 = 24.01.
        assert_eq!(wide.seeds_to_decide, Some(25));
    }

    #[test]
    fn the_reviews_examples_are_inconclusive_not_reproduced() {
        // LE "very similar to Reno": +1.42 [-0.82, 3.66] against 0 ± 1.
        let e = Expect::Effect {
            paper: 0.0,
            band: Band::Absolute { d: 1.0 },
        };
        assert_eq!(v(&e, &ours2(1.42, 3.1, -0.82, 3.66)), Verdict::Inconclusive);
        // "80% of the ideal": 0.65 [0.31, 1.00] against 0.8 ± 0.1.
        let e = Expect::Value {
            paper: 0.8,
            band: Band::SHARE,
        };
        assert_eq!(v(&e, &ours2(0.65, 0.3, 0.31, 1.0)), Verdict::Inconclusive);
        // OR3 "132 packets retransmitted 3 times": 6140 [-7684, 19964].
        let e = Expect::Value {
            paper: 132.0,
            band: Band::QUANTITY,
        };
        assert_eq!(
            v(&e, &ours2(6140.0, 5000.0, -7684.0, 19964.0)),
            Verdict::Inconclusive
        );
    }

    #[test]
    fn at_least_needs_the_whole_interval_above_the_lower_edge() {
        // Paper >= 1 RTT, lower edge 0.75.
        let e = Expect::AtLeast {
            paper: 1.0,
            band: Band::QUANTITY,
        };
        assert_eq!(v(&e, &ours2(3.0, 1.0, 0.8, 5.0)), Verdict::Reproduced);
        assert_eq!(v(&e, &ours2(1.0, 1.0, 0.5, 1.5)), Verdict::Inconclusive);
        assert_eq!(v(&e, &ours2(0.5, 0.1, 0.4, 0.6)), Verdict::Differs);
    }

    #[test]
    fn an_effect_must_exclude_zero_and_lie_in_the_band() {
        // Paper -5% (band ±25% of it: [-6.25%, -3.75%]).
        let e = Expect::Effect {
            paper: -0.05,
            band: Band::EFFECT,
        };
        let at = |m: f64, lo: f64, hi: f64| v(&e, &ours2(m, 0.02, lo, hi));
        assert_eq!(at(-0.05, -0.06, -0.04), Verdict::Reproduced);
        assert_eq!(at(-0.20, -0.25, -0.15), Verdict::SameDirection);
        assert_eq!(at(-0.06, -0.08, -0.04), Verdict::Inconclusive);
        assert_eq!(at(0.10, 0.05, 0.15), Verdict::Contradicted);
        // Holds zero and the band: undecided; holds zero, misses the band:
        // no effect where the paper has one.
        assert_eq!(at(-0.01, -0.07, 0.05), Verdict::Inconclusive);
        assert_eq!(at(0.0, -0.02, 0.02), Verdict::Differs);
        // Version 1's supports() took -58% as support of -5% by its sign;
        // here it is the paper's direction but not the paper's size.
        assert_eq!(at(-0.58, -0.70, -0.46), Verdict::SameDirection);
    }

    #[test]
    fn an_order_holding_zero_is_inconclusive_unless_every_pair_is_equal() {
        let e = Expect::Order {
            paper_positive: true,
        };
        assert_eq!(v(&e, &ours2(1.0, 1.0, 0.2, 1.8)), Verdict::Reproduced);
        assert_eq!(v(&e, &ours2(-1.0, 1.0, -1.8, -0.2)), Verdict::Contradicted);
        let j = judge(&e, &ours2(0.5, 2.0, -0.9, 1.9));
        assert_eq!(j.verdict, Verdict::Inconclusive);
        // (1.96 * 2 / 0.5)^2 = 61.5.
        assert_eq!(j.seeds_to_decide, Some(62));
        assert_eq!(v(&e, &ours2(0.0, 0.0, 0.0, 0.0)), Verdict::Differs);
    }

    #[test]
    fn a_measurement_counts_once_and_headlines_first() {
        let v = |paper: f64, mean: f64| {
            Claim::measured(
                "p",
                "tab",
                &format!("cell-{paper}"),
                "s",
                Expect::Value {
                    paper,
                    band: Band::QUANTITY,
                },
                ours(mean, mean - 1.0, mean + 1.0),
                "why, tested by nothing",
            )
        };
        // Two rows judge the same runs (mean 100) against 100 and 200.
        let rows = [
            v(100.0, 100.0).measurement("tab/shared"),
            v(200.0, 100.0).measurement("tab/shared"),
            v(50.0, 50.0).headline(),
        ];
        assert_eq!(rows[0].band_lo, Some(75.0));
        assert_eq!(rows[0].band_hi, Some(125.0));
        let (m, n, text) = measurement_counts(&rows);
        assert_eq!((m, n), (2, 3));
        assert!(
            text.starts_with("1 reproduced, 0 same direction, 0 inconclusive, 1 differs"),
            "{text}"
        );
        let lines = summary_lines(&rows, false);
        assert!(
            lines[0].starts_with("headline: 1 of 1 reproduced"),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].starts_with("3 claims: 2 reproduced"),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].starts_with("2 measurements, each counted once (1 of the 3 rows"),
            "{}",
            lines[2]
        );
        // A run of only some rows does not count HEADLINES.md's items.
        let part = summary_lines(&rows, true);
        assert!(
            part[0].ends_with("items of HEADLINES.md: not judged at this scale (0 items; some of their rows run only at --thorough and --full)"),
            "{}",
            part[0]
        );
        assert_eq!(part[1..], lines[1..]);
        let up = Claim::not_measured(
            "p",
            "e",
            "i",
            "s",
            Expect::AtLeast {
                paper: 8.0,
                band: Band::QUANTITY,
            },
            "why",
        );
        assert_eq!((up.band_lo, up.band_hi), (Some(6.0), None));
        let o = Claim::not_measured(
            "p",
            "e",
            "i",
            "s",
            Expect::Order {
                paper_positive: false,
            },
            "why",
        );
        assert_eq!((o.band_lo, o.band_hi), (None, Some(0.0)));
    }

    #[test]
    fn goodput_near_capacity_is_a_share_of_it() {
        assert_eq!(near_capacity(70.0, 100.0), None);
        assert_eq!(
            near_capacity(90.0, 100.0),
            Some(Expect::Value {
                paper: 0.9,
                band: Band::SHARE
            })
        );
    }
}
