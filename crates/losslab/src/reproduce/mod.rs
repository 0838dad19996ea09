//! `losslab reproduce [PAPER ...] [--quick] [--out DIR]`: the papers'
//! experiments, run in the simulator, our figures printed beside theirs.
//!
//! Each experiment returns a table (metric, ours, the paper's) and a list
//! of qualitative checks (who wins, which property holds). `--quick`
//! variants run in seconds and are what CI asserts on; the full variants
//! run the paper's sizes. Every experiment writes its runs' data and
//! pictures under OUT/<paper>/<experiment>/ and an index.html per paper.

pub mod claims;
mod common;
mod prr;
mod tail;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use crate::report::esc;
use crate::Failure;

#[derive(Args)]
pub struct ReproduceArgs {
    /// Papers to reproduce (default: all). Known: prr, tail.
    pub papers: Vec<String>,
    /// Small versions that run in seconds.
    #[arg(long)]
    pub quick: bool,
    /// Output directory.
    #[arg(long, default_value = "out/reproduce")]
    pub out: PathBuf,
    /// Print the results as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

/// One row of a comparison table.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub metric: String,
    pub ours: String,
    pub paper: String,
}

/// A qualitative finding of the paper, checked on our runs.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub claim: String,
    pub holds: bool,
    pub detail: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Experiment {
    pub id: String,
    pub title: String,
    pub setup: String,
    pub rows: Vec<Row>,
    pub checks: Vec<Check>,
    /// Pictures, relative to the paper's output directory.
    pub pictures: Vec<String>,
    /// What we think explains a difference from the paper.
    pub notes: Vec<String>,
    /// The paper's quantitative claims measured here, over seeds, with
    /// computed verdicts (claims.rs; being filled in by issue 12).
    pub claims: Vec<claims::Claim>,
}

impl Experiment {
    pub fn new(id: &str, title: &str, setup: &str) -> Self {
        Experiment {
            id: id.into(),
            title: title.into(),
            setup: setup.into(),
            rows: vec![],
            checks: vec![],
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
    pub fn check(&mut self, claim: impl Into<String>, holds: bool, detail: impl Into<String>) {
        self.checks.push(Check {
            claim: claim.into(),
            holds,
            detail: detail.into(),
        });
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct PaperResult {
    pub paper: String,
    pub title: String,
    pub quick: bool,
    pub experiments: Vec<Experiment>,
}

/// Where an experiment writes, and whether it is the quick variant.
pub struct Ctx {
    pub dir: PathBuf,
    pub quick: bool,
}

impl Ctx {
    pub fn sub(&self, name: &str) -> Result<PathBuf, String> {
        let d = self.dir.join(name);
        fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        Ok(d)
    }
}

type PaperFn = fn(&Ctx) -> Result<PaperResult, String>;

const PAPERS: &[(&str, PaperFn)] = &[("prr", prr::run), ("tail", tail::run)];

pub fn reproduce(a: ReproduceArgs) -> Result<(), Failure> {
    let names: Vec<String> = if a.papers.is_empty() {
        PAPERS.iter().map(|p| p.0.to_string()).collect()
    } else {
        a.papers.clone()
    };
    let mut results = Vec::new();
    for n in &names {
        let Some((_, f)) = PAPERS.iter().find(|p| p.0 == n) else {
            return Err(Failure::BadInput(format!(
                "unknown paper {n:?} (known: {})",
                PAPERS.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")
            )));
        };
        let ctx = Ctx {
            dir: a.out.join(n),
            quick: a.quick,
        };
        fs::create_dir_all(&ctx.dir)
            .map_err(|e| Failure::Runtime(format!("{}: {e}", ctx.dir.display())))?;
        let r = f(&ctx).map_err(Failure::Runtime)?;
        let json = serde_json::to_string_pretty(&r).expect("serialise");
        fs::write(ctx.dir.join("results.json"), format!("{json}\n"))
            .map_err(|e| Failure::Runtime(e.to_string()))?;
        write_html(&ctx.dir, &r).map_err(Failure::Runtime)?;
        let all: Vec<claims::Claim> = r
            .experiments
            .iter()
            .flat_map(|e| e.claims.iter().cloned())
            .collect();
        fs::write(ctx.dir.join("claims.csv"), claims::to_csv(&all))
            .map_err(|e| Failure::Runtime(format!("{}: {e}", ctx.dir.display())))?;
        if !a.json {
            print!("{}", render(&r));
            println!("wrote {}", ctx.dir.join("index.html").display());
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

/// The text shown on the terminal.
pub fn render(r: &PaperResult) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\n=== {} ({}){}",
        r.title,
        r.paper,
        if r.quick { " [quick]" } else { "" }
    );
    let all: Vec<claims::Claim> = r
        .experiments
        .iter()
        .flat_map(|e| e.claims.iter().cloned())
        .collect();
    if !all.is_empty() {
        let _ = writeln!(
            s,
            "claims measured over seeds so far: {} (claims.csv; the rules: docs/REPRODUCTIONS.md, \"Verdicts\")",
            claims::counts(&all)
        );
    }
    for e in &r.experiments {
        let _ = writeln!(s, "\n--- {}: {}\n{}", e.id, e.title, e.setup);
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
        let _ = writeln!(s, "  {:<w0$}  {:>w1$}  paper", "metric", "ours");
        for row in &e.rows {
            let _ = writeln!(s, "  {:<w0$}  {:>w1$}  {}", row.metric, row.ours, row.paper);
        }
        for c in &e.checks {
            let _ = writeln!(
                s,
                "  [{}] {} ({})",
                if c.holds { "ok" } else { "DIFFERS" },
                c.claim,
                c.detail
            );
        }
        for n in &e.notes {
            let _ = writeln!(s, "  note: {n}");
        }
        if !e.claims.is_empty() {
            let _ = writeln!(
                s,
                "  claims (ours: mean [95% CI] over n seeds; paper: value (band)):"
            );
        }
        for c in &e.claims {
            let _ = writeln!(
                s,
                "  {:<15} {}\n  {:<15}   ours {}; paper {}{}",
                format!("[{}]", c.verdict.name()),
                c.statement,
                "",
                ours_text(c),
                c.paper_text(),
                if c.verdict.needs_explanation() {
                    format!("; {}", c.explanation)
                } else {
                    String::new()
                }
            );
        }
    }
    s
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
        Some([lo, hi]) => format!("{} [{}, {}] (n {})", g(o.mean), g(lo), g(hi), o.n),
        None => format!("{} (n {})", g(o.mean), o.n),
    }
}

fn write_html(dir: &Path, r: &PaperResult) -> Result<(), String> {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>losslab \
         reproduce {p}</title><style>body{{font-family:system-ui,sans-serif;max-width:1100px;\
         margin:2em auto;padding:0 1em;color:#222}}table{{border-collapse:collapse}}td,th{{border:\
         1px solid #ccc;padding:.3em .6em}}th{{background:#f3f3f3}}.ok{{color:#070}}.no{{color:\
         #b00}}img{{max-width:100%;border:1px solid #ddd}}</style></head><body><h1>{t}</h1>\
         <p>losslab reproduce {p}{q}</p>",
        p = esc(&r.paper),
        t = esc(&r.title),
        q = if r.quick { " --quick" } else { "" }
    );
    for e in &r.experiments {
        let _ = write!(
            h,
            "<h2>{}: {}</h2><p>{}</p><table><tr><th>metric</th><th>ours</th><th>paper</th></tr>",
            esc(&e.id),
            esc(&e.title),
            esc(&e.setup)
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
        h.push_str("</table><ul>");
        for c in &e.checks {
            let _ = write!(
                h,
                "<li class=\"{}\">{} {} <small>({})</small></li>",
                if c.holds { "ok" } else { "no" },
                if c.holds {
                    "&#10003;"
                } else {
                    "&#10007; differs:"
                },
                esc(&c.claim),
                esc(&c.detail)
            );
        }
        h.push_str("</ul>");
        for n in &e.notes {
            let _ = write!(h, "<p><i>{}</i></p>", esc(n));
        }
        if !e.claims.is_empty() {
            h.push_str(
                "<table><tr><th>verdict</th><th>claim</th><th>ours: mean [95% CI] (n)</th>\
                 <th>paper (band)</th><th>explanation</th></tr>",
            );
            for c in &e.claims {
                let _ =
                    write!(
                    h,
                    "<tr><td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    if c.verdict == claims::Verdict::Reproduced { "ok" } else { "no" },
                    esc(c.verdict.name()),
                    esc(&c.statement),
                    esc(&ours_text(c)),
                    esc(&c.paper_text()),
                    esc(&c.explanation)
                );
            }
            h.push_str("</table>");
        }
        for p in &e.pictures {
            let _ = write!(h, "<figure><img src=\"{0}\" alt=\"{0}\"></figure>", esc(p));
        }
    }
    h.push_str("</body></html>\n");
    fs::write(dir.join("index.html"), h).map_err(|e| format!("{}: {e}", dir.display()))
}
