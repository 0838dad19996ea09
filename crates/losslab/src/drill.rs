//! `losslab drill SCRIPT.pkt|DIR ...`: runs packetdrill scripts against
//! the engine (losslab-drill) and prints a table of verdicts.
//!
//! A script that is not packetdrill is a row of its own ("bad input",
//! with its file, line and message): the other scripts still run, and
//! the command then exits 2 whatever their verdicts, as for any bad input.

use std::fs;
use std::path::{Path, PathBuf};

use clap::Args;
use losslab_drill::{run_script, Config, DrillError, Report, Verdict};

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
    /// Write the verdicts to FILE in --expected's form. An existing FILE
    /// is replaced only when it holds verdict lines alone (as this
    /// writes), never when it is one of the scripts.
    #[arg(long, value_name = "FILE")]
    pub write_expected: Option<PathBuf>,
}

/// The scripts of every argument; a directory without any is an error,
/// as a path that does not exist is.
fn collect_all(args: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut files = Vec::new();
    for p in args {
        let before = files.len();
        collect(p, &mut files)?;
        if files.len() == before {
            return Err(Failure::BadInput(format!(
                "{}: no .pkt files in this directory",
                p.display()
            )));
        }
    }
    Ok(files)
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

type Row = (String, PathBuf, Result<Report, DrillError>);

/// Whether `line` is one that [`line_of`] writes: `SCRIPT pass`,
/// `SCRIPT fail LINE` or `SCRIPT unsupported LINE` (a script's name may
/// hold spaces, so the verdict is read from the end).
fn is_verdict_line(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        [name @ .., "pass"] => !name.is_empty(),
        [name @ .., "fail" | "unsupported", n] => {
            !name.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
        }
        _ => false,
    }
}

/// Where `--write-expected FILE` writes, or why it may not. It replaces
/// FILE, so FILE must not be one of the scripts (by device and inode, as
/// outdir.rs recognises inputs: a link or another spelling of the path
/// is the same file), and an existing FILE must hold nothing but verdict
/// lines (and blank ones): what this command writes. Anything else, a
/// comment included, would be lost. A symbolic link is followed, as the
/// plain write before was, so that the file it points to is replaced.
fn write_expected_target(w: &Path, scripts: &[PathBuf]) -> Result<PathBuf, Failure> {
    let bad = |why: String| {
        Failure::BadInput(format!(
            "--write-expected {}: {why}; nothing was run",
            w.display()
        ))
    };
    if let Some(id) = crate::outdir::file_id(w) {
        if let Some(s) = scripts
            .iter()
            .find(|s| crate::outdir::file_id(s) == Some(id))
        {
            return Err(bad(format!("is the script {}", s.display())));
        }
    }
    let meta = match fs::metadata(w) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(w.to_path_buf()),
        Err(e) => return Err(bad(e.to_string())),
    };
    if !meta.is_file() {
        return Err(bad("not a file".into()));
    }
    let text = fs::read(w).map_err(|e| bad(e.to_string()))?;
    let text = String::from_utf8(text).map_err(|_| {
        bad("not a file of verdicts (not UTF-8); only one drill wrote is replaced".into())
    })?;
    if let Some((n, l)) = text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty() && !is_verdict_line(l))
    {
        return Err(bad(format!(
            "line {} ({:?}) is not a verdict line (SCRIPT pass, SCRIPT fail LINE or SCRIPT unsupported LINE); only a file of verdicts, as drill writes it, is replaced: remove it or choose another FILE",
            n + 1,
            truncated(l, 60)
        )));
    }
    fs::canonicalize(w).map_err(|e| bad(e.to_string()))
}

/// At most `max` characters of `s`.
fn truncated(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
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
    let max = losslab_drill::script::MAX_TOLERANCE_US;
    if !(0..=max).contains(&a.tolerance_us) {
        return Err(Failure::BadInput(format!(
            "--tolerance-us {}: expected 0 to {max}",
            a.tolerance_us
        )));
    }
    let files = collect_all(&a.scripts)?;
    let write_to = a
        .write_expected
        .as_deref()
        .map(|w| write_expected_target(w, &files))
        .transpose()?;
    let cfg = Config {
        tolerance_us: a.tolerance_us,
        profile: a.profile.clone(),
    };
    let mut rows: Vec<Row> = Vec::new();
    for f in &files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let path = f.display().to_string();
        // An unreadable file is one bad row, like a malformed one.
        let result = match fs::read(f) {
            Ok(bytes) => run_script(&path, &bytes, &cfg),
            Err(e) => Err(DrillError {
                file: path,
                line: 0,
                column: None,
                message: e.to_string(),
            }),
        };
        rows.push((name, f.clone(), result));
    }
    let bad: Vec<&DrillError> = rows
        .iter()
        .filter_map(|(_, _, r)| r.as_ref().err())
        .collect();
    if a.json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|(n, p, r)| match r {
                Ok(r) => serde_json::json!({
                    "script": n, "path": p, "verdict": r.verdict, "notes": r.notes
                }),
                Err(e) => serde_json::json!({
                    "script": n,
                    "path": p,
                    "verdict": {
                        "result": "bad-input",
                        "line": e.line,
                        "column": e.column,
                        "message": e.message
                    },
                    "notes": []
                }),
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&v).expect("serialises"));
    } else {
        for (n, _, r) in &rows {
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    let at = match (e.line, e.column) {
                        (0, _) => String::new(),
                        (l, Some(c)) => format!(":{l}:{c}"),
                        (l, None) => format!(":{l}"),
                    };
                    println!("bad input    {n}{at}: {}", e.message);
                    continue;
                }
            };
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
        let count = |f: fn(&Verdict) -> bool| {
            rows.iter()
                .filter(|(_, _, r)| r.as_ref().is_ok_and(|r| f(&r.verdict)))
                .count()
        };
        println!(
            "{} scripts: {} pass, {} fail, {} unsupported{}",
            rows.len(),
            count(|v| matches!(v, Verdict::Pass)),
            count(|v| matches!(v, Verdict::Fail { .. })),
            count(|v| matches!(v, Verdict::Unsupported { .. })),
            if bad.is_empty() {
                String::new()
            } else {
                format!(", {} bad input", bad.len())
            }
        );
    }
    if !bad.is_empty() {
        // Verdicts are neither recorded nor compared while a script is
        // not packetdrill: fix it first.
        return Err(Failure::BadInput(format!(
            "{} script(s) are not valid packetdrill{}:\n  {}",
            bad.len(),
            if a.write_expected.is_some() {
                " (nothing written to --write-expected)"
            } else {
                ""
            },
            bad.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n  ")
        )));
    }
    let got: Vec<String> = rows
        .iter()
        .filter_map(|(n, _, r)| r.as_ref().ok().map(|r| line_of(n, &r.verdict)))
        .collect();
    if let Some(w) = &write_to {
        // Atomic (temporary file, fsync, rename): a crash or a full disk
        // leaves the old verdicts, never half of the new.
        crate::outdir::write_atomic(w, (got.join("\n") + "\n").as_bytes())
            .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", w.display())))?;
    }
    let failed = rows
        .iter()
        .filter(|(_, _, r)| {
            r.as_ref()
                .is_ok_and(|r| matches!(r.verdict, Verdict::Fail { .. }))
        })
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
