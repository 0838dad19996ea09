//! `losslab reproduce [PAPER ...] [--quick | --thorough | --full] [--out DIR]`: the papers'
//! experiments, run in the simulator, our figures printed beside theirs.
//!
//! Each experiment returns example rows (one run's numbers beside the
//! paper's) and its claims: every quantitative statement of the paper it
//! measures, over seeds, with a verdict computed by claims.rs. `--quick`
//! runs in seconds with its own smaller seed set and is what CI asserts
//! on; the default runs every paper's main arm in under three minutes;
//! `--thorough` adds every setup-choice rerun and explanation variant at
//! the sizes the default had before issue 33; `--full` runs the paper's
//! sizes with all of them.
//! Every experiment writes its runs' data and pictures under
//! OUT/<paper>/<experiment>/, and claims.csv, results.json and an
//! index.html per paper; `--export DIR` also writes every scenario it ran
//! as TOML, for `losslab run`.

pub mod claims;
mod common;
mod estimators;
mod le;
mod mobile;
mod or3;
mod prr;
mod prr_common;
mod prr_er;
mod prr_web;
mod resume;
mod setup;
mod tail;
mod timing;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use clap::Args;
use serde::{Deserialize, Serialize};

use crate::outdir::{Mode, Options, OutDir};
use crate::report::esc;
use crate::Failure;

#[derive(Args)]
pub struct ReproduceArgs {
    /// Papers to reproduce (default: all). Known: prr, tail, mobile, or3, le.
    pub papers: Vec<String>,
    /// Small versions that run in seconds (fewer seeds and points).
    #[arg(long, conflicts_with_all = ["full", "thorough"])]
    pub quick: bool,
    /// Every setup choice rerun under both alternatives and every
    /// explanation variant, at the sizes the default had before issue 33
    /// (the default now runs the main arms only, with no setup-choice
    /// rerun or explanation variant, so that all five papers finish in
    /// under three minutes on two cores; issue 33's goal is two).
    #[arg(long, conflicts_with = "full")]
    pub thorough: bool,
    /// The paper-scale run counts (more seeds, downloads and flows).
    #[arg(long)]
    pub full: bool,
    /// Also write every scenario run as a TOML file under DIR/<paper>/
    /// <experiment>/, named after the scenario: `losslab run FILE` gives
    /// the same numbers.
    #[arg(long, value_name = "DIR")]
    pub export: Option<PathBuf>,
    /// Write into output folders losslab did not make (a paper's folder
    /// under --out, or under --export). Files of yours are never deleted.
    #[arg(long)]
    pub force: bool,
    /// Continue a reproduction that was stopped (Ctrl-C, a kill): the
    /// experiments it finished are taken back (once their files check
    /// out), the rest run, and the files are those of a run never
    /// stopped. Only the same losslab binary at the same scale with the
    /// same --export folder continues one; papers it finished are not
    /// run again.
    #[arg(long)]
    pub resume: bool,
    /// Output directory.
    #[arg(long, default_value = "out/reproduce")]
    pub out: PathBuf,
    /// Print the results as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Simulations to run at once (default: one per core). The results
    /// do not depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    /// Run the experiments' batches of runs as tasks on the Ray cluster
    /// at ADDRESS (host:port, ray://host:port or auto), as `sweep --ray`
    /// does; the files are the same as a local run's. Runs an experiment
    /// makes one at a time, and those whose traces it keeps, stay local.
    #[arg(long, value_name = "ADDRESS")]
    pub ray: Option<String>,
    /// With --ray: the Python interpreter that has losslab's package and
    /// Ray [default: $LOSSLAB_PYTHON, else python3].
    #[arg(long, value_name = "PYTHON", requires = "ray")]
    pub python: Option<String>,
    /// Also write <paper>/timings.csv: per experiment its runs, the
    /// packets they simulated, the engine's time per packet, and wall and
    /// CPU time. The one file that depends on the machine.
    #[arg(long)]
    pub timings: bool,
}

/// Where `--ray` sends the batches of runs.
#[derive(Clone, Debug)]
pub struct RayTarget {
    pub address: String,
    pub python: String,
}

/// One row of a comparison table.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    pub metric: String,
    pub ours: String,
    pub paper: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Experiment {
    pub id: String,
    pub title: String,
    pub setup: String,
    /// One run's numbers beside the paper's: an example, not a finding.
    pub rows: Vec<Row>,
    /// Pictures, relative to the paper's output directory.
    pub pictures: Vec<String>,
    /// What we think explains a difference from the paper.
    pub notes: Vec<String>,
    /// The paper's quantitative claims measured here, over seeds, with
    /// computed verdicts (claims.rs).
    pub claims: Vec<claims::Claim>,
}

impl Experiment {
    pub fn new(id: &str, title: &str, setup: &str) -> Self {
        Experiment {
            id: id.into(),
            title: title.into(),
            setup: setup.into(),
            rows: vec![],
            pictures: vec![],
            notes: vec![],
            claims: vec![],
        }
    }
    pub fn row(
        &mut self,
        metric: impl Into<String>,
        ours: impl Into<String>,
        paper: impl Into<String>,
    ) {
        self.rows.push(Row {
            metric: metric.into(),
            ours: ours.into(),
            paper: paper.into(),
        });
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PaperResult {
    pub paper: String,
    pub title: String,
    pub quick: bool,
    pub full: bool,
    /// `--thorough` (absent from results written before it existed).
    #[serde(default)]
    pub thorough: bool,
    /// The run judged only some of the paper's rows: `--quick`, and the
    /// mobile paper's default (its quick cells); `--thorough` and
    /// `--full` judge them all. Absent from results written before it
    /// existed.
    #[serde(default)]
    pub subset: bool,
    pub experiments: Vec<Experiment>,
}

impl PaperResult {
    /// Moves the headline rows (claims.rs, `headline`) out of the
    /// experiments that measured them into a first table, in the order
    /// they were made; each keeps its `experiment`, which names where its
    /// runs are.
    pub fn headlines_first(&mut self) {
        let mut heads = Vec::new();
        for e in &mut self.experiments {
            let (h, rest): (Vec<_>, Vec<_>) = e.claims.drain(..).partition(|c| c.headline);
            e.claims = rest;
            heads.extend(h);
        }
        if heads.is_empty() {
            return;
        }
        // In HEADLINES.md's order (a stable sort keeps each item's rows
        // as made).
        heads.sort_by_key(|c| claims::headline_item(&c.statement).unwrap_or(u32::MAX));
        let mut h = Experiment::new(
            "headline",
            "The paper's headline claims",
            "Each item of ../shared/papers/HEADLINES.md (the abstract's and conclusion's \
             claims) as a row judged on paired runs; the experiment each row names holds its \
             setup and its other rows.",
        );
        h.claims = heads;
        self.experiments.insert(0, h);
    }

    /// Every claim of the paper, in experiment order.
    pub fn claims(&self) -> impl Iterator<Item = &claims::Claim> + Clone {
        self.experiments.iter().flat_map(|e| &e.claims)
    }
}

/// Where an experiment writes, at which scale, and where it exports the
/// scenarios it runs.
pub struct Ctx {
    pub dir: PathBuf,
    pub quick: bool,
    pub full: bool,
    /// `--thorough`: the former default's sizes (`pick`'s middle value)
    /// with every variant.
    pub thorough: bool,
    pub export: Option<PathBuf>,
    /// Setup choices set to an alternative (setup.rs); empty in the main
    /// arm.
    pub overrides: Vec<(String, String)>,
    /// Simulations at once (`--jobs`); None: one per core. Results come
    /// back in index order, so it never shows in the output.
    pub jobs: Option<u64>,
    /// `--ray`: batches of runs (common::run_cases) go to this cluster.
    pub ray: Option<RayTarget>,
    /// Where finished experiments are kept for `--resume` (resume.rs);
    /// None in unit tests.
    pub resume: Option<std::sync::Arc<resume::Store>>,
    /// The paper's runs so far, by scenario (common::Memo): its variants
    /// share it.
    pub memo: std::sync::Arc<common::Memo>,
}

impl Ctx {
    /// A --quick context writing under the temporary directory, for unit
    /// tests of an experiment's pieces.
    #[cfg(test)]
    pub fn quick_for_tests() -> Ctx {
        Ctx {
            dir: std::env::temp_dir(),
            quick: true,
            full: false,
            thorough: false,
            export: None,
            overrides: vec![],
            jobs: None,
            ray: None,
            resume: None,
            memo: Default::default(),
        }
    }

    /// The context of a variant of this run: its own folders under
    /// `sub` and its setup overrides; everything else as here.
    pub fn variant(&self, sub: &Path, overrides: Vec<(String, String)>) -> Ctx {
        Ctx {
            dir: self.dir.join(sub),
            quick: self.quick,
            full: self.full,
            thorough: self.thorough,
            export: self.export.as_ref().map(|x| x.join(sub)),
            overrides,
            jobs: self.jobs,
            ray: self.ray.clone(),
            resume: self.resume.clone(),
            memo: self.memo.clone(),
        }
    }

    /// Whether every setup-choice rerun and explanation variant runs
    /// (`--thorough`, `--full`); at `--quick` only those marked cheap
    /// enough for it do, at the default no rerun and no costly variant
    /// (the OR3 paper's few-second variants of `buffers` at 100 Mbit/s
    /// and of `fig8` run at every scale: or3.rs `variants`).
    pub fn all_variants(&self) -> bool {
        self.thorough || self.full
    }

    /// The quick, default, thorough or full value of a size, for an
    /// experiment whose default is smaller than its size before issue 33
    /// (`thorough`).
    pub fn size<T>(&self, quick: T, default: T, thorough: T, full: T) -> T {
        if self.quick {
            quick
        } else if self.full {
            full
        } else if self.thorough {
            thorough
        } else {
            default
        }
    }

    /// The quick, default or full value of a size; `--thorough` takes the
    /// default's.
    pub fn pick<T: Clone>(&self, quick: T, default: T, full: T) -> T {
        self.size(quick, default.clone(), default, full)
    }

    /// Runs `sc` for experiment `exp` (common::run), first writing it to
    /// the export directory when asked.
    pub fn run(
        &self,
        exp: &str,
        sc: &losslab_sim::Scenario,
        dir: Option<&Path>,
    ) -> Result<common::Run, String> {
        if let Some(x) = &self.export {
            common::export(x, exp, sc)?;
        }
        common::run(sc, dir)
    }

    pub fn sub(&self, name: &str) -> Result<PathBuf, String> {
        let d = self.dir.join(name);
        fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        Ok(d)
    }
}

type PaperFn = fn(&Ctx) -> Result<PaperResult, String>;

const PAPERS: &[(&str, PaperFn)] = &[
    ("prr", prr::run),
    ("tail", tail::run),
    ("mobile", mobile::run),
    ("or3", or3::run),
    ("le", le::run),
];

pub fn reproduce(a: ReproduceArgs) -> Result<(), Failure> {
    let names: Vec<String> = if a.papers.is_empty() {
        PAPERS.iter().map(|p| p.0.to_string()).collect()
    } else {
        a.papers.clone()
    };
    let ray = a.ray.as_ref().map(|address| RayTarget {
        address: address.clone(),
        python: crate::ray::python(a.python.clone()),
    });
    let mut results = Vec::new();
    let mut runs = Vec::new();
    for n in &names {
        let Some((_, f)) = PAPERS.iter().find(|p| p.0 == n) else {
            return Err(Failure::BadInput(format!(
                "unknown paper {n:?} (known: {})",
                PAPERS.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")
            )));
        };
        runs.push((n, f));
    }
    // A cluster that cannot be reached is bad input, found before the
    // first run (each batch connects again: ray.rs runs one batch per
    // driver).
    if let Some(t) = &ray {
        drop(crate::ray::connect(&t.address, &t.python)?);
    }
    // Every paper's folders are opened (and so checked and locked) before
    // the first paper runs: a refused folder costs no minutes of runs.
    // Each keeps its finished experiments for --resume (resume.rs).
    let open = |root: &Path, flag: &str, record: &Path| {
        OutDir::open_resumable(
            root,
            Options {
                flag,
                mode: Mode::Fresh,
                force: a.force,
                inputs: &[],
            },
            record.to_path_buf(),
        )
    };
    let mut dirs = Vec::new();
    for (n, _) in &runs {
        let root = a.out.join(n);
        let record = OutDir::record_dir(&root);
        let out = open(&root, "--out", &record)?;
        let export = match &a.export {
            Some(x) => Some(open(&x.join(n), "--export", &record)?),
            None => None,
        };
        dirs.push((root, record, out, export));
    }
    // Every paper's plan is made, and refused if need be, before any
    // paper's kept work is touched.
    let mut plans = Vec::new();
    for ((n, _), (root, record, out, export)) in runs.iter().zip(&dirs) {
        let stages: Vec<PathBuf> = std::iter::once(out.stage())
            .chain(export.as_ref().map(OutDir::stage))
            .collect();
        let id = resume::Identity::new(
            n,
            scale_name(a.quick, a.full, a.thorough),
            a.export.as_ref().map(|x| x.join(n)).as_deref(),
        );
        let plan = resume::Plan::make(record, root, &stages, &id, a.resume)?;
        plans.push((stages, id, plan));
    }
    let mut papers = Vec::new();
    for ((root, record, out, export), (stages, id, plan)) in dirs.into_iter().zip(plans) {
        if let resume::Plan::Fresh { discard } = &plan {
            if *discard > 0 {
                eprintln!(
                    "note: {}: {discard} experiments kept from a stopped run are discarded (--resume continues a stopped run)",
                    root.display()
                );
            }
        }
        let found = plan.start(&record, &stages, &id)?;
        papers.push((out, export, id, found));
    }
    resume::catch_ctrl_c();
    for ((n, f), (out, export, id, found)) in runs.into_iter().zip(papers) {
        let store = match found {
            resume::Found::Complete(r) => {
                eprintln!(
                    "{n}: finished earlier by this losslab at this scale and export folder; kept as it is in {}",
                    out.root().display()
                );
                if !a.json {
                    print!("{}", render(&r));
                }
                results.push(*r);
                continue;
            }
            resume::Found::Fresh(s) => {
                // Nothing to continue: what a killed run staged goes (its
                // record went first).
                out.clear_stage()?;
                if let Some(x) = &export {
                    x.clear_stage()?;
                }
                s
            }
            resume::Found::Partial(s, kept) => {
                eprintln!(
                    "{n}: continuing a stopped run: {kept} finished experiments taken back from {}",
                    out.root().display()
                );
                s
            }
        };
        let store = std::sync::Arc::new(store);
        let ctx = Ctx {
            dir: out.stage(),
            quick: a.quick,
            full: a.full,
            thorough: a.thorough,
            export: export.as_ref().map(OutDir::stage),
            overrides: vec![],
            jobs: a.jobs,
            ray: ray.clone(),
            resume: Some(store.clone()),
            memo: Default::default(),
        };
        timing::take();
        let mut r = match f(&ctx) {
            Ok(r) => r,
            Err(_) if resume::stopping() => {
                eprintln!(
                    "stopped: {n}'s finished experiments are kept in {}; \
                     the same command with --resume continues it",
                    out.root().display()
                );
                return Err(Failure::Interrupted);
            }
            Err(e) => return Err(Failure::Runtime(e)),
        };
        r.headlines_first();
        if !ctx.all_variants() {
            note_untested(&mut r);
        }
        if a.timings {
            let csv = timing::to_csv(&r.paper, &timing::take());
            fs::write(ctx.dir.join("timings.csv"), csv)
                .map_err(|e| Failure::Runtime(format!("{}: {e}", ctx.dir.display())))?;
        }
        let json = serde_json::to_string_pretty(&r).expect("serialise");
        fs::write(ctx.dir.join("results.json"), format!("{json}\n"))
            .map_err(|e| Failure::Runtime(e.to_string()))?;
        claims_chart(&ctx.dir, &r).map_err(Failure::Runtime)?;
        write_html(&ctx.dir, &r).map_err(Failure::Runtime)?;
        fs::write(ctx.dir.join("claims.csv"), claims::to_csv(r.claims()))
            .map_err(|e| Failure::Runtime(format!("{}: {e}", ctx.dir.display())))?;
        let root = out.root().join("index.html");
        out.commit_with(export)?;
        store.complete(&id)?;
        if !a.json {
            print!("{}", render(&r));
            println!("wrote {}", root.display());
        }
        results.push(r);
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&results).expect("serialise")
        );
    }
    Ok(())
}

/// At a scale that runs few or none of the explanation variants and setup
/// reruns, "no explanation has been tested yet" would say more than the
/// run knows: the rows say where the tests run instead.
fn note_untested(r: &mut PaperResult) {
    for e in &mut r.experiments {
        for c in &mut e.claims {
            if let Some(rest) = c.explanation.strip_prefix(claims::UNTESTED) {
                c.explanation = format!("{}{rest}", claims::UNTESTED_HERE);
            }
        }
    }
}

/// The text shown on the terminal: the verdict counts, then per
/// experiment its claims and its example rows.
pub fn render(r: &PaperResult) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\n=== {} ({}){}", r.title, r.paper, scale_flag(r));
    for line in claims::summary_lines(r.claims(), r.subset) {
        let _ = writeln!(s, "{line}");
    }
    let _ = writeln!(
        s,
        "(ours: mean [95% CI] (n seeds); paper: value (tolerance band); rules: docs/REPRODUCTIONS.md, \"Verdicts\")"
    );
    for e in &r.experiments {
        let _ = writeln!(s, "\n--- {}: {}\n{}", e.id, e.title, e.setup);
        for c in &e.claims {
            let _ = writeln!(
                s,
                "  {:<16} {}\n  {:<16} ours {}; paper {}{}",
                format!("[{}]", c.verdict.name()),
                c.statement,
                "",
                ours_text(c),
                c.paper_text(),
                if c.verdict == claims::Verdict::Inconclusive {
                    match c.seeds_to_decide {
                        Some(n) => format!(
                            "\n  {:<16} about {n} seeds at our spread would decide it",
                            ""
                        ),
                        None => String::new(),
                    }
                } else if c.verdict.needs_explanation() {
                    format!("\n  {:<16} why: {}", "", c.explanation)
                } else {
                    String::new()
                }
            );
        }
        if e.rows.is_empty() {
            continue;
        }
        let w0 = e
            .rows
            .iter()
            .map(|x| x.metric.len())
            .max()
            .unwrap_or(6)
            .max(6);
        let w1 = e
            .rows
            .iter()
            .map(|x| x.ours.len())
            .max()
            .unwrap_or(4)
            .max(4);
        let _ = writeln!(
            s,
            "  example (one seed)\n  {:<w0$}  {:>w1$}  paper",
            "metric", "ours"
        );
        for row in &e.rows {
            let _ = writeln!(s, "  {:<w0$}  {:>w1$}  {}", row.metric, row.ours, row.paper);
        }
        for n in &e.notes {
            let _ = writeln!(s, "  note: {n}");
        }
    }
    s
}

/// The scale a run's flags name, as `--resume`'s record and the headings
/// spell it: "quick", "default", "thorough" or "full" (`--quick` and
/// `--full` win, as `Ctx::size` has them).
pub fn scale_name(quick: bool, full: bool, thorough: bool) -> &'static str {
    if quick {
        "quick"
    } else if full {
        "full"
    } else if thorough {
        "thorough"
    } else {
        "default"
    }
}

fn scale_flag(r: &PaperResult) -> String {
    match scale_name(r.quick, r.full, r.thorough) {
        "default" => String::new(),
        s => format!(" [--{s}]"),
    }
}

/// Our side of a claim: mean [CI] (n).
fn ours_text(c: &claims::Claim) -> String {
    let Some(o) = &c.ours else {
        return "-".into();
    };
    let g = |x: f64| {
        format!("{:.3}", x)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    };
    match o.ci95 {
        _ if o.ci_method == "exact" => format!("{} (exact, one run)", g(o.mean)),
        Some([lo, hi]) => format!("{} [{}, {}] (n {})", g(o.mean), g(lo), g(hi), o.n),
        None => format!("{} (n {})", g(o.mean), o.n),
    }
}

/// claims.png: every claim of the paper on one axis, ours against the
/// paper's band. Units differ between claims, so each row is scaled to
/// its own band: a value, effect or lower bound by the band's half-width
/// around the paper's number (the band is then [-1, 1], or [-1, ...) for
/// a lower bound); an order, whose paper side
/// is a sign, by the largest magnitude of our interval (the band is the
/// paper's side, 0 to 1.5 or -1.5 to 0).
fn claims_chart(dir: &Path, r: &PaperResult) -> Result<(), String> {
    use losslab_viz::charts::ClaimRow;
    let rows: Vec<ClaimRow> = r
        .claims()
        .map(|c| {
            let ours = c.ours.as_ref();
            let (mean, ci) = (ours.map(|o| o.mean), ours.and_then(|o| o.ci95));
            let label = format!("{}: {}", c.experiment, c.id);
            let verdict = c.verdict.name().to_string();
            match &c.expect {
                claims::Expect::Value { paper, band }
                | claims::Expect::Effect { paper, band }
                | claims::Expect::AtLeast { paper, band } => {
                    let [lo, hi] = band.around(*paper);
                    let half = ((hi - lo) / 2.0).max(f64::MIN_POSITIVE);
                    let z = |x: f64| (x - paper) / half;
                    // A lower bound's band has no top: drawn to 4 half-widths.
                    let top = if matches!(c.expect, claims::Expect::AtLeast { .. }) {
                        4.0
                    } else {
                        1.0
                    };
                    ClaimRow {
                        label,
                        verdict,
                        paper: 0.0,
                        band: [-1.0, top],
                        mean: mean.map(z),
                        ci: ci.map(|[a, b]| [z(a), z(b)]),
                    }
                }
                claims::Expect::Order { paper_positive } => {
                    let scale = ci
                        .map(|[a, b]| a.abs().max(b.abs()))
                        .filter(|s| *s > 0.0)
                        .unwrap_or(1.0);
                    let z = |x: f64| x / scale;
                    let side = if *paper_positive { 1.0 } else { -1.0 };
                    ClaimRow {
                        label,
                        verdict,
                        paper: 0.75 * side,
                        band: if *paper_positive {
                            [0.0, 1.5]
                        } else {
                            [-1.5, 0.0]
                        },
                        mean: mean.map(z),
                        ci: ci.map(|[a, b]| [z(a), z(b)]),
                    }
                }
            }
        })
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    losslab_viz::charts::claims(
        &dir.join("claims"),
        &format!("{}: our 95% CI against the paper's band", r.paper),
        &rows,
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}

fn write_html(dir: &Path, r: &PaperResult) -> Result<(), String> {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>losslab \
         reproduce {p}</title><style>body{{font-family:system-ui,sans-serif;max-width:1100px;\
         margin:2em auto;padding:0 1em;color:#222}}table{{border-collapse:collapse}}td,th{{border:\
         1px solid #ccc;padding:.3em .6em}}th{{background:#f3f3f3}}.reproduced{{color:#070}}\
         .same-direction{{color:#770}}.inconclusive{{color:#557}}.differs{{color:#b60}}.contradicted{{color:#b00;\
         font-weight:bold}}.not-measured{{color:#777}}img{{max-width:100%;border:1px solid #ddd}}\
         </style></head><body><h1>{t}</h1><p>losslab reproduce {p}{q}</p><p><b>{c}\
         </b> (claims.csv; the rules: docs/REPRODUCTIONS.md, \"Verdicts\")</p>\
         <figure><img src=\"claims.png\" alt=\"every claim against the paper's band\"></figure>",
        p = esc(&r.paper),
        t = esc(&r.title),
        q = scale_flag(r),
        c = claims::summary_lines(r.claims(), r.subset)
            .iter()
            .map(|l| esc(l))
            .collect::<Vec<_>>()
            .join("<br>"),
    );
    for e in &r.experiments {
        let _ = write!(
            h,
            "<h2>{}: {}</h2><p>{}</p>",
            esc(&e.id),
            esc(&e.title),
            esc(&e.setup)
        );
        if !e.claims.is_empty() {
            h.push_str(
                "<table><tr><th>verdict</th><th>claim</th><th>ours: mean [95% CI] (n)</th>\
                 <th>paper (band)</th><th>why</th></tr>",
            );
            for c in &e.claims {
                let v = c.verdict.name();
                let _ = write!(
                    h,
                    "<tr><td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    v.replace(' ', "-"),
                    esc(v),
                    esc(&c.statement),
                    esc(&ours_text(c)),
                    esc(&c.paper_text()),
                    esc(&c.explanation)
                );
            }
            h.push_str("</table>");
        }
        if !e.rows.is_empty() {
            h.push_str(
                "<h3>Example (one seed)</h3><table><tr><th>metric</th><th>ours</th><th>paper</th></tr>",
            );
            for row in &e.rows {
                let _ = write!(
                    h,
                    "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                    esc(&row.metric),
                    esc(&row.ours),
                    esc(&row.paper)
                );
            }
            h.push_str("</table>");
        }
        for n in &e.notes {
            let _ = write!(h, "<p><i>{}</i></p>", esc(n));
        }
        for p in &e.pictures {
            let _ = write!(h, "<figure><img src=\"{0}\" alt=\"{0}\"></figure>", esc(p));
        }
    }
    h.push_str("</body></html>\n");
    fs::write(dir.join("index.html"), h).map_err(|e| format!("{}: {e}", dir.display()))
}
