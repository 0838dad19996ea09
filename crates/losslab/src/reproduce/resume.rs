//! `reproduce --resume`: a reproduction that was stopped (Ctrl-C, a kill,
//! a machine that went away) continues where it stopped instead of from
//! the start. The mobile paper's `--full` takes hours; three attempts to
//! run it whole were lost to this before it existed (issue 33).
//!
//! Each finished experiment (every `timing::experiment` call) is kept in
//! the paper's `.losslab/resume/` as JSON: its result and its timing row,
//! numbered in the order the paper makes them. Its files stay in the
//! stage (outdir.rs keeps a resumable stage). A resumed run takes each
//! kept experiment back instead of running it, runs the rest, and writes
//! the same files, byte for byte, as a run that was never stopped (a CLI
//! test compares the two).
//!
//! Kept experiments are only taken back by the same losslab binary (its
//! SHA-256) at the same scale, paper and export choice: a resume by a
//! rebuilt binary could otherwise put two engines' numbers in one page.
//! Numbering by order is sound for the same reason: the same binary with
//! the same arguments makes the same experiments in the same order (the
//! kept prefix is checked too). `--jobs` and `--ray` may differ: they
//! never show in the results.
//!
//! An experiment whose result does not survive a JSON round trip
//! unchanged (a NaN, which JSON writes as null) is not kept and simply
//! runs again.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{timing, Experiment, PaperResult};
use crate::Failure;

/// Raised by Ctrl-C while a reproduction runs: experiments not yet
/// started do not start, batches stop handing out runs.
static STOP: AtomicBool = AtomicBool::new(false);

/// Installs the Ctrl-C handler: the first stops the reproduction after
/// the runs under way (finished experiments are kept); a second ends the
/// process at once (they are still kept).
pub fn catch_ctrl_c() {
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) && !crate::outdir::committing() {
            std::process::exit(130);
        }
    });
}

pub fn stopping() -> bool {
    STOP.load(Ordering::SeqCst)
}

pub fn stop_flag() -> &'static AtomicBool {
    &STOP
}

/// The error an experiment returns when it was stopped.
pub const STOPPED: &str = "stopped by Ctrl-C";

/// What a kept experiment must match to be taken back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub losslab: String,
    /// SHA-256 of the running executable.
    pub binary_sha256: String,
    pub paper: String,
    /// "quick", "default" or "full".
    pub scale: String,
    pub export: bool,
}

impl Identity {
    pub fn new(paper: &str, quick: bool, full: bool, export: bool) -> Result<Identity, Failure> {
        Ok(Identity {
            losslab: env!("CARGO_PKG_VERSION").into(),
            binary_sha256: binary_sha256()?,
            paper: paper.into(),
            scale: if quick {
                "quick"
            } else if full {
                "full"
            } else {
                "default"
            }
            .into(),
            export,
        })
    }
}

fn binary_sha256() -> Result<String, Failure> {
    use sha2::{Digest, Sha256};
    use std::sync::OnceLock;
    static HASH: OnceLock<Result<String, String>> = OnceLock::new();
    HASH.get_or_init(|| {
        let exe = std::env::current_exe().map_err(|e| format!("the running losslab: {e}"))?;
        let mut f = fs::File::open(&exe).map_err(|e| format!("{}: {e}", exe.display()))?;
        let mut h = Sha256::new();
        std::io::copy(&mut f, &mut h).map_err(|e| format!("{}: {e}", exe.display()))?;
        Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
    })
    .clone()
    .map_err(Failure::Runtime)
}

/// One kept experiment.
#[derive(Serialize, Deserialize)]
struct Kept {
    prefix: String,
    experiment: Experiment,
    timing: timing::Row,
}

const IDENTITY: &str = "identity.json";
/// Written when the paper's results are in place: a resume skips it.
const COMPLETE: &str = "complete.json";

/// A paper's kept experiments.
pub struct Store {
    dir: PathBuf,
    /// The number the next experiment gets.
    next: Mutex<usize>,
    /// Kept experiments taken back this run.
    pub taken: Mutex<usize>,
}

/// What `--resume` finds in a paper's folder.
pub enum Found {
    /// Nothing kept (or not resuming): run the paper.
    Fresh(Store),
    /// Some experiments kept: run the rest.
    Partial(Store, usize),
    /// The paper finished with these results: nothing to run.
    Complete(Box<PaperResult>),
}

impl Store {
    /// Opens `dir` (the paper folder's `.losslab/resume`). Without
    /// `resume` it is emptied: a fresh run keeps nothing of an earlier
    /// one. With it, what is kept must have been made by `id`.
    pub fn open(dir: &Path, root: &Path, id: &Identity, resume: bool) -> Result<Found, Failure> {
        let shown = root.display().to_string();
        let fresh = |dir: &Path| -> Result<Found, Failure> {
            if dir.exists() {
                fs::remove_dir_all(dir)
                    .map_err(|e| Failure::Runtime(format!("{}: {e}", dir.display())))?;
            }
            fs::create_dir_all(dir)
                .map_err(|e| Failure::Runtime(format!("{}: {e}", dir.display())))?;
            write_atomic(dir, IDENTITY, &to_json(id))?;
            Ok(Found::Fresh(Store {
                dir: dir.into(),
                next: Mutex::new(0),
                taken: Mutex::new(0),
            }))
        };
        if !resume {
            return fresh(dir);
        }
        let read = |name: &str| fs::read_to_string(dir.join(name)).ok();
        if let Some(t) = read(COMPLETE) {
            if serde_json::from_str::<Identity>(&t).ok().as_ref() != Some(id) {
                return Err(mismatch(&shown, id, "finished", &t));
            }
            // Results moved or edited since: run the paper again.
            return match fs::read_to_string(root.join("results.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<PaperResult>(&t).ok())
            {
                Some(r) => Ok(Found::Complete(Box::new(r))),
                None => fresh(dir),
            };
        }
        let Some(t) = read(IDENTITY) else {
            return fresh(dir);
        };
        match serde_json::from_str::<Identity>(&t) {
            Ok(old) if &old == id => {}
            _ => return Err(mismatch(&shown, id, "stopped", &t)),
        }
        let kept = (0..)
            .take_while(|n| dir.join(file_name(*n)).is_file())
            .count();
        if kept == 0 {
            return fresh(dir);
        }
        Ok(Found::Partial(
            Store {
                dir: dir.into(),
                next: Mutex::new(0),
                taken: Mutex::new(0),
            },
            kept,
        ))
    }

    /// The kept experiment the next call would make, or None to run it.
    /// Advances the count either way.
    pub fn take(&self, prefix: &str) -> Result<(usize, Option<(Experiment, timing::Row)>), String> {
        let n = {
            let mut next = lock(&self.next);
            *next += 1;
            *next - 1
        };
        let p = self.dir.join(file_name(n));
        let Ok(text) = fs::read_to_string(&p) else {
            return Ok((n, None));
        };
        let k: Kept = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{}: a kept experiment losslab cannot read ({e}); run without --resume",
                p.display()
            )
        })?;
        if k.prefix != prefix {
            return Err(format!(
                "{}: kept for {:?}, but this run's experiment {n} is under {prefix:?}; run without --resume",
                p.display(),
                k.prefix
            ));
        }
        *lock(&self.taken) += 1;
        Ok((n, Some((k.experiment, k.timing))))
    }

    /// Keeps experiment `n`, if its JSON reads back as itself.
    pub fn keep(
        &self,
        n: usize,
        prefix: &str,
        e: &Experiment,
        row: &timing::Row,
    ) -> Result<(), String> {
        let k = Kept {
            prefix: prefix.into(),
            experiment: e.clone(),
            timing: row.clone(),
        };
        let text = to_json(&k);
        let again = serde_json::from_str::<Kept>(&text).map(|k| to_json(&k));
        if again.ok().as_deref() != Some(text.as_str()) {
            return Ok(());
        }
        write_atomic(&self.dir, &file_name(n), &text).map_err(|e| e.to_string())
    }

    /// The paper's results are in place: a later `--resume` skips it.
    pub fn complete(&self, id: &Identity) -> Result<(), Failure> {
        for n in 0.. {
            let p = self.dir.join(file_name(n));
            if fs::remove_file(&p).is_err() {
                break;
            }
        }
        write_atomic(&self.dir, COMPLETE, &to_json(id))
    }
}

fn mismatch(root: &str, id: &Identity, state: &str, old: &str) -> Failure {
    let why = match serde_json::from_str::<Identity>(old) {
        Ok(o) if o.binary_sha256 != id.binary_sha256 => {
            "another losslab binary made it (a rebuilt or updated losslab would mix two engines' numbers)".to_string()
        }
        Ok(o) if o.scale != id.scale => format!("it ran at the {} scale, this at the {}", o.scale, id.scale),
        Ok(o) if o.export != id.export => "it ran with and this without --export, or the reverse".into(),
        Ok(_) => "it was made for another paper".into(),
        Err(_) => "its record is unreadable".into(),
    };
    Failure::BadInput(format!(
        "--resume: the reproduction {state} in {root} cannot be continued by this one: {why}; run without --resume to start again"
    ))
}

fn file_name(n: usize) -> String {
    format!("{n:04}.json")
}

fn to_json<T: Serialize>(x: &T) -> String {
    serde_json::to_string(x).expect("serialise")
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes `name` in `dir` whole or not at all (a kill mid-write leaves
/// the earlier state).
fn write_atomic(dir: &Path, name: &str, text: &str) -> Result<(), Failure> {
    let tmp = dir.join(format!(".{name}.tmp"));
    let dst = dir.join(name);
    let err = |p: &Path, e: std::io::Error| Failure::Runtime(format!("{}: {e}", p.display()));
    {
        use std::io::Write as _;
        let mut f = fs::File::create(&tmp).map_err(|e| err(&tmp, e))?;
        f.write_all(text.as_bytes()).map_err(|e| err(&tmp, e))?;
        f.sync_all().map_err(|e| err(&tmp, e))?;
    }
    fs::rename(&tmp, &dst).map_err(|e| err(&dst, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::claims::{Band, Claim, Expect};
    use losslab_sim::stats::summarize;

    fn experiment(values: &[f64]) -> Experiment {
        let mut e = Experiment::new("x", "t", "s");
        e.row("m", "1", "2");
        e.claims.push(Claim::measured(
            "p",
            "x",
            "row",
            "a row",
            Expect::Value {
                paper: 0.1,
                band: Band::Relative { r: 0.25 },
            },
            summarize(values, false, "row"),
            "",
        ));
        e
    }

    fn row() -> timing::Row {
        timing::Row {
            experiment: "x".into(),
            runs: 3,
            packets: 10,
            engine_s: 0.1,
            wall_s: 0.2,
            cpu_s: 0.3,
        }
    }

    fn store(dir: &Path) -> Store {
        let id = Identity::new("p", true, false, false).unwrap();
        match Store::open(dir, dir, &id, true).unwrap() {
            Found::Fresh(s) | Found::Partial(s, _) => s,
            Found::Complete(_) => panic!("nothing was finished"),
        }
    }

    /// A kept experiment comes back as the same JSON, under its number;
    /// one that would not (a NaN) is not kept and runs again.
    #[test]
    fn kept_experiments_come_back_unchanged_or_not_at_all() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("resume");
        let s = store(&dir);
        let good = experiment(&[0.1, 0.2 / 3.0, 1e-300]);
        let (n, none) = s.take("").unwrap();
        assert!(none.is_none());
        s.keep(n, "", &good, &row()).unwrap();
        let (n, none) = s.take("v/").unwrap();
        assert!(none.is_none());
        s.keep(n, "v/", &experiment(&[f64::NAN, 1.0]), &row())
            .unwrap();
        assert!(dir.join("0000.json").is_file());
        assert!(!dir.join("0001.json").exists());

        let s = store(&dir);
        let (_, back) = s.take("").unwrap();
        let (e, r) = back.unwrap();
        assert_eq!(to_json(&e), to_json(&good));
        assert_eq!(r.runs, 3);
        assert!(s.take("v/").unwrap().1.is_none());
        // Kept under another prefix: a different run, refused.
        let s = store(&dir);
        assert!(s.take("other/").unwrap_err().contains("kept for \"\""));
    }
}
