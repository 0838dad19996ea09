//! `losslab drill SCRIPT.pkt|DIR ...`: runs packetdrill scripts against
//! the engine (losslab-drill) and prints a table of verdicts.

use std::fs;
use std::path::{Path, PathBuf};

use clap::Args;
use losslab_drill::{run_script, Config, Verdict};

use crate::Failure;

#[derive(Args)]
pub struct DrillArgs {
    /// packetdrill scripts, or directories searched for *.pkt.
    #[arg(required = true)]
    pub scripts: Vec<PathBuf>,
    /// The sender's configuration (a scenario profile).
    #[arg(long, default_value = "linux-6")]
    pub profile: String,
    /// Timing tolerance, as packetdrill's --tolerance_usecs.
    #[arg(long, default_value_t = 4000)]
    pub tolerance_us: i64,
    /// Print the verdicts as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print what each script applied or skipped.
    #[arg(long)]
    pub verbose: bool,
    /// Compare the verdicts with FILE (lines "SCRIPT VERDICT [LINE]") and
    /// fail on any difference.
    #[arg(long, value_name = "FILE")]
    pub expected: Option<PathBuf>,
    /// Write the verdicts to FILE in --expected's form.
    #[arg(long, value_name = "FILE")]
    pub write_expected: Option<PathBuf>,
}

fn collect(p: &Path, out: &mut Vec<PathBuf>) -> Result<(), Failure> {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = fs::read_dir(p)
            .map_err(|e| Failure::BadInput(format!("{}: {e}", p.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for e in entries {
            if e.is_dir() || e.extension().is_some_and(|x| x == "pkt") {
                collect(&e, out)?;
            }
        }
        Ok(())
    } else if p.exists() {
        out.push(p.to_path_buf());
        Ok(())
    } else {
        Err(Failure::BadInput(format!(
            "{}: no such file or directory",
            p.display()
        )))
    }
}

/// One line of the expected-verdicts file.
fn line_of(name: &str, v: &Verdict) -> String {
    match v {
        Verdict::Pass => format!("{name} pass"),
        Verdict::Fail { line, .. } => format!("{name} fail {line}"),
        Verdict::Unsupported { line, .. } => format!("{name} unsupported {line}"),
    }
}

pub fn drill(a: DrillArgs) -> Result<(), Failure> {
    if !losslab_sim::profile::NAMES.contains(&a.profile.as_str()) {
        return Err(Failure::BadInput(format!(
            "--profile {:?}: expected one of {}",
            a.profile,
            losslab_sim::profile::NAMES.join(", ")
        )));
    }
    let mut files = Vec::new();
    for p in &a.scripts {
        collect(p, &mut files)?;
    }
    let cfg = Config {
        tolerance_us: a.tolerance_us,
        profile: a.profile.clone(),
    };
    let mut rows = Vec::new();
    for f in &files {
        let text = fs::read_to_string(f)
            .map_err(|e| Failure::BadInput(format!("{}: {e}", f.display())))?;
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        rows.push((name, f.clone(), run_script(&text, &cfg)));
    }
    let got: Vec<String> = rows
        .iter()
        .map(|(n, _, r)| line_of(n, &r.verdict))
        .collect();
    if a.json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|(n, p, r)| {
                serde_json::json!({ "script": n, "path": p, "verdict": r.verdict, "notes": r.notes })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&v).expect("serialises"));
    } else {
        for (n, _, r) in &rows {
            match &r.verdict {
                Verdict::Pass => println!("pass         {n}"),
                Verdict::Fail { line, message } => println!("FAIL         {n}:{line}: {message}"),
                Verdict::Unsupported { line, what } => {
                    println!("unsupported  {n}:{line}: {what}")
                }
            }
            if a.verbose {
                for note in &r.notes {
                    println!("             {note}");
                }
            }
        }
        let count = |f: fn(&Verdict) -> bool| rows.iter().filter(|(_, _, r)| f(&r.verdict)).count();
        println!(
            "{} scripts: {} pass, {} fail, {} unsupported",
            rows.len(),
            count(|v| matches!(v, Verdict::Pass)),
            count(|v| matches!(v, Verdict::Fail { .. })),
            count(|v| matches!(v, Verdict::Unsupported { .. }))
        );
    }
    if let Some(w) = &a.write_expected {
        fs::write(w, got.join("\n") + "\n")
            .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", w.display())))?;
    }
    let failed = rows
        .iter()
        .filter(|(_, _, r)| matches!(r.verdict, Verdict::Fail { .. }))
        .count();
    if failed > 0 && a.expected.is_none() && a.write_expected.is_none() {
        return Err(Failure::Runtime(format!("{failed} script(s) failed")));
    }
    if let Some(e) = &a.expected {
        let want = fs::read_to_string(e)
            .map_err(|x| Failure::BadInput(format!("{}: {x}", e.display())))?;
        let want: Vec<&str> = want
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .collect();
        if want != got.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(Failure::Runtime(format!(
                "verdicts differ from {}:\nexpected:\n  {}\ngot:\n  {}",
                e.display(),
                want.join("\n  "),
                got.join("\n  ")
            )));
        }
    }
    Ok(())
}
