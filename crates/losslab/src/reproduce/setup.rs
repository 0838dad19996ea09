//! Setup choices: every parameter a paper does not give (a link rate, a
//! load, a kernel's timer frequency), the value our main arm takes and
//! why, and which verdicts change when the experiments that use it rerun
//! with each of two alternatives. The table is a measurement of how much
//! our verdicts depend on what we chose, not a claim of the paper, so it
//! has rows and no claims.

use std::collections::BTreeMap;
use std::path::Path;

use super::claims::{Claim, Verdict, BY_CONSTRUCTION, OUTSIDE_READING, PAPER_IN_DOUBT, UNTESTED};
use super::{Ctx, Experiment};

/// One parameter the paper leaves open.
#[derive(Clone, Copy, Debug)]
pub struct Choice {
    /// The name experiments read it by (`Ctx::choice`) and the folder its
    /// alternative runs go to.
    pub key: &'static str,
    /// The main arm's value, as the experiment parses it.
    pub value: &'static str,
    /// Printed after a value ("Mbit/s"; "" for none).
    pub unit: &'static str,
    /// Why the main arm takes `value`.
    pub why: &'static str,
    /// The two values the sensitivity runs try.
    pub alternatives: [&'static str; 2],
    /// The experiments (ids) that read it and are rerun.
    pub experiments: &'static [&'static str],
    /// Whether `--quick` reruns them too (false for the costly ones, so
    /// CI's quick runs stay quick; the default reruns none, `--thorough`
    /// and `--full` all).
    pub quick: bool,
}

impl Ctx {
    /// `c`'s value in this run: the main arm's unless a sensitivity run
    /// set an alternative.
    pub fn choice(&self, c: &Choice) -> &str {
        self.overrides
            .iter()
            .find(|(k, _)| k == c.key)
            .map_or(c.value, |(_, v)| v.as_str())
    }

    /// `c`'s value as a number; a value that does not parse is a bug in
    /// the choice table, reported as the experiment's error.
    pub fn choice_u64(&self, c: &Choice) -> Result<u64, String> {
        let v = self.choice(c);
        v.parse()
            .map_err(|_| format!("setup choice {}: {v:?} is not a whole number", c.key))
    }

    /// `c`'s value as a real number.
    pub fn choice_f64(&self, c: &Choice) -> Result<f64, String> {
        let v = self.choice(c);
        v.parse()
            .map_err(|_| format!("setup choice {}: {v:?} is not a number", c.key))
    }
}

/// Runs one experiment by id under a (possibly overridden) context.
pub type Rerun<'a> = &'a dyn Fn(&Ctx, &str) -> Result<Experiment, String>;

/// The "setup" experiment: for each choice and each alternative, the
/// experiments that read it rerun under that value, and each of their
/// claims' verdict is compared, by id, with the main arm's (`main`).
pub fn sensitivity(
    ctx: &Ctx,
    choices: &[Choice],
    main: &mut [Experiment],
    rerun: Rerun,
) -> Result<Experiment, String> {
    let (e, seen) = table(ctx, choices, main, rerun)?;
    mark_decided(main, &seen);
    Ok(e)
}

/// The words a row whose verdict changes under a setup alternative
/// carries (the page's rules: such an alternative explains nothing, and
/// the headline line names the headline rows it moves;
/// scripts/reproductions.py `decided_by_setup`). mobile.rs writes the
/// same words for its own setup table.
pub const DECIDED: &str = "Decided by a setup choice of ours, not explained by it";

/// Every main-arm row whose verdict an alternative changes says so in its
/// explanation, whatever its verdict: a reproduced row that only
/// our value keeps reproduced is as much our choice's as a contradicted
/// one that an alternative would reproduce (issue 33's review of the OR3
/// paper: Headline 4 held only under the 16-connection cap, which the
/// setup table showed and the row did not), and a contradicted row that
/// an alternative makes inconclusive rests on our value as much (the
/// third review of the OR3 paper, 2026-12-05: 60 s runs left Headline 3's
/// 16 MB goodput row inconclusive and its row did not say so).
fn mark_decided(main: &mut [Experiment], seen: &Seen) {
    for c in main.iter_mut().flat_map(|e| e.claims.iter_mut()) {
        let Some(under) = seen.get(&c.id) else {
            continue;
        };
        let here = Side::of(c);
        let moved: Vec<String> = under
            .iter()
            .filter(|(_, v, _)| here.moves_to(*v))
            .map(|(arm, v, at)| format!("{arm} ({}{})", v.label(), ran_at(at, ", ")))
            .collect();
        if moved.is_empty() {
            continue;
        }
        let note = format!(
            "{DECIDED}: the verdict changes under {} (setup table)",
            moved.join(", ")
        );
        c.append_explanation(note);
    }
}

/// `sensitivity`, and every main-arm claim that needs an explanation
/// gets the verdicts its row took under each alternative appended to
/// its explanation: what was tested, though not an explanation, since
/// the main arm is the paper's setup or our stated reading of it.
pub fn sensitivity_annotated(
    ctx: &Ctx,
    choices: &[Choice],
    main: &mut [Experiment],
    rerun: Rerun,
) -> Result<Experiment, String> {
    let (e, seen) = table(ctx, choices, main, rerun)?;
    mark_decided(main, &seen);
    for c in main.iter_mut().flat_map(|e| e.claims.iter_mut()) {
        if !c.verdict.needs_explanation() {
            continue;
        }
        if let Some(v) = seen.get(&c.id) {
            // "No explanation has been tested yet" no longer holds.
            let rest = c.explanation.strip_prefix(UNTESTED).map(|r| {
                format!("not yet explained (tested: the setup alternatives at the end){r}")
            });
            c.explanation = format!(
                "{}; setup alternatives run (setup table; not explanations, the main arm being \
                 our reading of the paper's setup): {}",
                rest.unwrap_or_else(|| c.explanation.clone()),
                v.iter()
                    .map(|(arm, side, at)| {
                        format!("{arm}: {}{}", side.label(), ran_at(at, " "))
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    Ok(e)
}

/// Whether a row has no verdict by the claim's own terms: outside our
/// reading of its premise there, holding by construction, or the paper's
/// value in doubt. Such a row has no verdict to change (the fourth review
/// of the OR3 paper counted a fig7-rtt alternative's 38 MB buffer as
/// decided); a row `not measured` for any other reason (too few seeds, a
/// run that measured nothing) is a change like any other, the fifth
/// review found the first rule exempting both.
pub(crate) fn premise_exempt(c: &Claim) -> bool {
    c.verdict == Verdict::NotMeasured && exempt_reason(c).is_some()
}

/// The markers of a row not judged by the claim's own terms, each with
/// the words a setup cell gives for it.
const EXEMPT: [(&str, &str); 3] = [
    (OUTSIDE_READING, "outside the reading"),
    (BY_CONSTRUCTION, "by construction"),
    (PAPER_IN_DOUBT, "the paper's value in doubt"),
];

/// Which of the `EXEMPT` markers opens `c`'s explanation, in a cell's
/// words.
fn exempt_reason(c: &Claim) -> Option<&'static str> {
    EXEMPT
        .iter()
        .find(|(m, _)| c.explanation.starts_with(m))
        .map(|&(_, w)| w)
}

/// Whether a row's verdict changes from `main` to `alt` (setup tables
/// here and in mobile.rs, and the notes that name the alternatives).
pub(crate) fn moves(main: &Claim, alt: &Claim) -> bool {
    Side::of(main).moves_to(Side::of(alt))
}

/// What a comparison needs of a claim judged under one arm.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Side {
    pub verdict: Verdict,
    exempt: bool,
}

impl Side {
    pub fn of(c: &Claim) -> Side {
        Side {
            verdict: c.verdict,
            exempt: premise_exempt(c),
        }
    }

    fn moves_to(self, alt: Side) -> bool {
        self.verdict != alt.verdict && !self.exempt && !alt.exempt
    }

    /// The verdict as a table cell or a note names it. A `not measured`
    /// that counts as a change reads "not measurable", so that the page
    /// (scripts/reproductions.py `mark_setup_decided`) tells it from the
    /// exempt kind, which the cells list apart, and from the cells of
    /// results written before the two were told apart.
    pub fn label(self) -> &'static str {
        if self.verdict == Verdict::NotMeasured && !self.exempt {
            "not measurable"
        } else {
            self.verdict.name()
        }
    }
}

/// The end of a setup cell naming the rows judged on one side only
/// (`premise_exempt` on one side), apart and without the arrow the page
/// reads as a change (scripts/reproductions.py); "" for none.
pub(crate) fn one_side_only(rows: &[String]) -> String {
    if rows.is_empty() {
        String::new()
    } else {
        format!(
            ", and {} judged on one side only: {}",
            rows.len(),
            rows.join(", ")
        )
    }
}

/// What a cell or note adds after a row's verdict when the row ran at
/// something its id does not name (`Claim::setting`): `sep` then "at
/// ...", or "" (the sixth review of the OR3 paper: fig7-rtt's cells named
/// a "38mb" row that ran 12.67 MB).
fn ran_at(setting: &str, sep: &str) -> String {
    if setting.is_empty() {
        String::new()
    } else {
        format!("{sep}at {setting}")
    }
}

/// Why a row is judged on one side only, from the marker of the side
/// that is exempt: "not measured there, outside the reading" (the
/// seventh review of the OR3 paper: the cells said only "not measured
/// there").
fn why_unjudged(main: &Claim, alt: &Claim) -> String {
    let (side, c) = if premise_exempt(alt) {
        ("there", alt)
    } else {
        ("in the main arm", main)
    };
    let why = exempt_reason(c).unwrap_or_default();
    format!("{} {side}, {why}", c.verdict.name())
}

/// For each claim id, how it was judged under each alternative
/// ("key=value") and what it ran at there (`Claim::setting`).
type Seen = BTreeMap<String, Vec<(String, Side, String)>>;

/// The table, and what each claim took under the alternatives.
fn table(
    ctx: &Ctx,
    choices: &[Choice],
    main: &[Experiment],
    rerun: Rerun,
) -> Result<(Experiment, Seen), String> {
    let mut seen = Seen::new();
    let before: BTreeMap<&str, &Claim> = main
        .iter()
        .flat_map(|e| &e.claims)
        .map(|c| (c.id.as_str(), c))
        .collect();
    let mut e = Experiment::new(
        "setup",
        "Setup choices the paper does not dictate, and which verdicts they decide",
        "Each row is one parameter the paper does not give: our value and why, then for each of \
         two alternatives, the experiments that read it rerun with everything else unchanged \
         but what its unit says moves with it (same seeds) and the claims whose verdict changes \
         against the main arm's. \"no verdict \
         changes\" means the choice does not decide any of those experiments' rows.",
    );
    for c in choices {
        // The default reruns none: at its sizes even the cheap ones cost
        // minutes (issue 33).
        let reruns = ctx.all_variants() || (ctx.quick && c.quick);
        if !reruns {
            e.row(
                format!("{} = {}{}", c.key, c.value, unit(c)),
                format!(
                    "not rerun at this scale (alternatives {} and {}: run --thorough or --full)",
                    c.alternatives[0], c.alternatives[1]
                ),
                format!("not given: {}; reruns {}", c.why, c.experiments.join(", ")),
            );
            continue;
        }
        let mut cells = Vec::new();
        for alt in c.alternatives {
            let slug = format!("{}={alt}", c.key).replace(['/', ' '], "_");
            let sub = ctx.variant(
                &Path::new("setup").join(&slug),
                vec![(c.key.to_string(), alt.to_string())],
            );
            let (mut changed, mut unjudged) = (Vec::new(), Vec::new());
            let mut n = 0;
            for id in c.experiments {
                let x =
                    super::timing::experiment(ctx, &format!("setup/{slug}/"), || rerun(&sub, id))?;
                for claim in &x.claims {
                    n += 1;
                    seen.entry(claim.id.clone()).or_default().push((
                        format!("{}={alt}", c.key),
                        Side::of(claim),
                        claim.setting.clone(),
                    ));
                    // After the arrow, not inside it: the page reads
                    // "id (a -> b)" (scripts/reproductions.py).
                    let at = ran_at(&claim.setting, " ");
                    match before.get(claim.id.as_str()) {
                        Some(b) if b.verdict == claim.verdict => {}
                        Some(b) if !moves(b, claim) => {
                            unjudged.push(format!("{} ({}){at}", claim.id, why_unjudged(b, claim)))
                        }
                        Some(b) => changed.push(format!(
                            "{} ({} -> {}){at}",
                            claim.id,
                            Side::of(b).label(),
                            Side::of(claim).label()
                        )),
                        None => {
                            changed.push(format!("{} (new: {})", claim.id, claim.verdict.name()))
                        }
                    }
                }
            }
            let unjudged = one_side_only(&unjudged);
            cells.push(if changed.is_empty() {
                format!("{alt}{}: no verdict changes ({n} rows){unjudged}", unit(c))
            } else {
                format!(
                    "{alt}{}: {} of {n} verdicts change: {}{unjudged}",
                    unit(c),
                    changed.len(),
                    changed.join(", ")
                )
            });
        }
        e.row(
            format!("{} = {}{}", c.key, c.value, unit(c)),
            cells.join("; "),
            format!("not given: {}; reruns {}", c.why, c.experiments.join(", ")),
        );
    }
    Ok((e, seen))
}

fn unit(c: &Choice) -> String {
    if c.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", c.unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::claims::{exact, Band, Claim, Expect};
    use losslab_sim::stats::{summarize, Summary};

    const RATE: Choice = Choice {
        key: "rate",
        value: "10",
        unit: "Mbit/s",
        why: "the paper's figure",
        alternatives: ["5", "20"],
        experiments: &["x"],
        quick: true,
    };

    /// An experiment of one row, "row", ours against the paper's 15
    /// +- 40%.
    fn toy(id: &str, ours: Summary) -> Experiment {
        let mut e = Experiment::new(id, "t", "s");
        let band = Band::Relative { r: 0.4 };
        let expect = Expect::Value { paper: 15.0, band };
        e.claims
            .push(Claim::measured("p", id, "row", "a row", expect, ours, ""));
        e
    }

    /// A toy experiment whose one row reproduces only at 10 and 20: the
    /// table names the alternative that changes it and the one that
    /// does not, and the override reaches the experiment.
    #[test]
    fn an_alternative_that_flips_a_verdict_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx {
            dir: dir.path().into(),
            ..Ctx::quick_for_tests()
        };
        let run = |ctx: &Ctx, id: &str| -> Result<Experiment, String> {
            Ok(toy(id, exact(ctx.choice_u64(&RATE)? as f64)))
        };
        let mut main = vec![run(&ctx, "x").unwrap()];
        let e = sensitivity(&ctx, &[RATE], &mut main, &run).unwrap();
        assert_eq!(e.rows.len(), 1);
        let r = &e.rows[0];
        assert_eq!(r.metric, "rate = 10 Mbit/s");
        assert!(
            r.paper.starts_with("not given: the paper's figure"),
            "{}",
            r.paper
        );
        assert!(
            r.ours
                .contains("5 Mbit/s: 1 of 1 verdicts change: row (reproduced -> "),
            "{}",
            r.ours
        );
        assert!(
            r.ours.contains("20 Mbit/s: no verdict changes (1 rows)"),
            "{}",
            r.ours
        );
        assert!(e.claims.is_empty());
        // The main arm's row is reproduced only at our value: it says so,
        // naming the alternative that moves it and not the one that does
        // not (issue 33's review of the OR3 paper).
        let why = &main[0].claims[0].explanation;
        assert_eq!(main[0].claims[0].verdict.name(), "reproduced");
        assert!(why.contains(DECIDED) && why.contains("rate=5 ("), "{why}");
        assert!(!why.contains("rate=20"), "{why}");
        // The annotated form appends each alternative's verdict to a main
        // row that needs an explanation (15 +-40% misses 5: differs).
        let low = Ctx {
            dir: dir.path().into(),
            overrides: vec![("rate".into(), "5".into())],
            ..Ctx::quick_for_tests()
        };
        let mut main = vec![run(&low, "x").unwrap()];
        assert!(main[0].claims[0].verdict.needs_explanation());
        sensitivity_annotated(&low, &[RATE_FIVE], &mut main, &run).unwrap();
        let why = &main[0].claims[0].explanation;
        assert!(
            why.contains("setup alternatives run") && why.contains("rate=10: reproduced"),
            "{why}"
        );
        assert!(
            why.contains(DECIDED) && why.contains("rate=10 (reproduced)"),
            "{why}"
        );
    }

    /// A row that ran at something its id does not name under an
    /// alternative (`Claim::setting`) says so after its arrow in the cell
    /// and in the main row's note, where the page's pattern "id (a -> b)"
    /// still finds it (the sixth review of the OR3 paper: a cell named a
    /// "38mb" row that ran 12.67 MB).
    #[test]
    fn a_row_moved_by_an_alternative_names_what_it_ran_at() {
        let (cell, why) = under_five(|id| {
            let mut e = toy(id, exact(5.0));
            let c = e.claims.pop().unwrap();
            e.claims.push(c.setting("5 MB (nominal 10 MB)"));
            e
        });
        assert!(
            cell.contains("row (reproduced -> differs) at 5 MB (nominal 10 MB)"),
            "{cell}"
        );
        assert!(
            cell.contains("20 Mbit/s: no verdict changes (1 rows)"),
            "{cell}"
        );
        assert!(
            why.contains("rate=5 (differs, at 5 MB (nominal 10 MB))"),
            "{why}"
        );
    }

    /// The default reruns no choice, not even one --quick reruns;
    /// `--thorough` reruns every one, the costly ones too.
    #[test]
    fn the_default_reruns_no_choice_and_thorough_every_one() {
        let dir = tempfile::tempdir().unwrap();
        let at = |quick: bool, thorough: bool| Ctx {
            dir: dir.path().into(),
            quick,
            thorough,
            ..Ctx::quick_for_tests()
        };
        let costly = Choice {
            key: "costly",
            quick: false,
            ..RATE
        };
        let run =
            |_: &Ctx, id: &str| -> Result<Experiment, String> { Ok(Experiment::new(id, "t", "s")) };
        let rows = |ctx: &Ctx| -> Vec<String> {
            let e = sensitivity(ctx, &[RATE, costly], &mut [], &run).unwrap();
            e.rows.iter().map(|r| r.ours.clone()).collect()
        };
        let skipped = |r: &String| r.starts_with("not rerun at this scale");
        let quick = rows(&at(true, false));
        assert!(!skipped(&quick[0]) && skipped(&quick[1]), "{quick:?}");
        let default = rows(&at(false, false));
        assert!(default.iter().all(skipped), "{default:?}");
        let thorough = rows(&at(false, true));
        assert!(!thorough.iter().any(skipped), "{thorough:?}");
        // The sizes: the default's own where an experiment gives one,
        // else the thorough (former default) size.
        assert_eq!(at(false, false).size(1, 2, 3, 4), 2);
        assert_eq!(at(false, true).size(1, 2, 3, 4), 3);
        assert_eq!(at(true, false).size(1, 2, 3, 4), 1);
        assert_eq!(at(false, true).pick(1, 2, 4), 2);
        assert_eq!(at(false, false).pick(1, 2, 4), 2);
    }

    /// A differing row that an alternative leaves only inconclusive (its
    /// interval wide enough to reach the band) says so too, naming that
    /// alternative and not the one that leaves it differing (the OR3
    /// paper's third review, 2026-12-05).
    #[test]
    fn an_alternative_that_leaves_a_row_inconclusive_is_named() {
        const SPREAD: Choice = Choice {
            key: "spread",
            value: "0.1",
            unit: "",
            why: "ours",
            alternatives: ["50", "0.2"],
            experiments: &["x"],
            quick: true,
        };
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx {
            dir: dir.path().into(),
            ..Ctx::quick_for_tests()
        };
        // Samples 5 - w and 5 + w, against 15 +- 40%: differs at w = 0.1
        // and 0.2, inconclusive at w = 50.
        let run = |ctx: &Ctx, id: &str| -> Result<Experiment, String> {
            let w = ctx.choice_f64(&SPREAD)?;
            Ok(toy(id, summarize(&[5.0 - w, 5.0 + w], false, "row")))
        };
        let mut main = vec![run(&ctx, "x").unwrap()];
        assert_eq!(main[0].claims[0].verdict.name(), "differs");
        sensitivity(&ctx, &[SPREAD], &mut main, &run).unwrap();
        let why = &main[0].claims[0].explanation;
        assert!(
            why.contains(DECIDED) && why.contains("spread=50 (inconclusive"),
            "{why}"
        );
        assert!(!why.contains("spread=0.2"), "{why}");
    }

    /// The toy experiment under RATE's main arm (10) and alternatives,
    /// its row at 5 Mbit/s made by `at_five`: the setup cell, and the main
    /// row's explanation after the table.
    fn under_five(at_five: fn(&str) -> Experiment) -> (String, String) {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx {
            dir: dir.path().into(),
            ..Ctx::quick_for_tests()
        };
        let run = |ctx: &Ctx, id: &str| -> Result<Experiment, String> {
            let rate = ctx.choice_u64(&RATE)?;
            Ok(if rate == 5 {
                at_five(id)
            } else {
                toy(id, exact(rate as f64))
            })
        };
        let mut main = vec![run(&ctx, "x").unwrap()];
        let e = sensitivity(&ctx, &[RATE], &mut main, &run).unwrap();
        (
            e.rows[0].ours.clone(),
            main[0].claims[0].explanation.clone(),
        )
    }

    /// A row an alternative leaves unjudged (outside the claim's premise
    /// there) has no verdict to change: it is not "decided", and the
    /// table names it apart, without the arrow the page counts (the
    /// fourth review of the OR3 paper).
    #[test]
    fn a_row_not_judged_under_an_alternative_is_not_decided() {
        let (cell, why) = under_five(|id| {
            let mut e = toy(id, exact(5.0));
            let c = e.claims.pop().unwrap();
            e.claims.push(c.outside_reading("past the premise"));
            e
        });
        assert!(
            cell.contains(
                "5 Mbit/s: no verdict changes (1 rows), and 1 judged on one side only: row \
                 (not measured there, outside the reading)"
            ),
            "{cell}"
        );
        assert!(!cell.contains("->"), "{cell}");
        assert!(!why.contains(DECIDED), "{why}");
    }

    /// A row `not measured` under an alternative for want of an interval
    /// (one seed), not by the claim's premise, is a verdict change: the
    /// cell gives the arrow and the row names the alternative (the fifth
    /// review of the OR3 paper).
    #[test]
    fn a_row_unmeasurable_under_an_alternative_is_decided() {
        let (cell, why) = under_five(|id| toy(id, summarize(&[15.0], false, "row")));
        assert!(
            cell.contains("5 Mbit/s: 1 of 1 verdicts change: row (reproduced -> not measurable)"),
            "{cell}"
        );
        assert!(!cell.contains("one side only"), "{cell}");
        assert!(
            why.contains(&format!(
                "{DECIDED}: the verdict changes under rate=5 (not measurable)"
            )),
            "{why}"
        );
    }

    const RATE_FIVE: Choice = Choice {
        value: "5",
        alternatives: ["10", "20"],
        ..RATE
    };
}
