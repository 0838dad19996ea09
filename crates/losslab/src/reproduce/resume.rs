//! `reproduce --resume`: a reproduction that was stopped (Ctrl-C, a kill,
//! a machine that went away) continues where it stopped instead of from
//! the start. The mobile paper's `--full` takes hours; three attempts to
//! run it whole were lost to this before it existed (issue 33).
//!
//! Each finished experiment (every `timing::experiment` call) is kept in
//! the paper's `.losslab/resume/` as JSON: its result, its timing row (as
//! the caller's JSON, so that this module does not depend on timing.rs,
//! which calls it) and
//! the files it added to or changed in the stages (the results' and
//! `--export`'s), each with its length and SHA-256, synced to disk before
//! the record is written. Its files stay in the stage (outdir.rs keeps a
//! resumable stage). A resumed run first checks the stages against the
//! records: the kept experiments are the longest run of records from the
//! first whose files are all there as recorded (a stage emptied by
//! another command, a commit cut short or a crash ends it early), and
//! every later one runs again. It takes the kept ones back instead of
//! running them, runs the rest, and writes the same files, byte for byte,
//! as a run that was never stopped (CLI tests stop and kill runs and
//! compare).
//!
//! Kept experiments are only taken back by the same losslab binary (its
//! SHA-256) at the same scale, paper and export folder: a resume by a
//! rebuilt binary could otherwise put two engines' numbers in one page.
//! Numbering by order is sound for the same reason: the same binary with
//! the same arguments makes the same experiments in the same order (the
//! kept prefix is checked too). `--jobs` and `--ray` may differ: they
//! never show in the results.
//!
//! An experiment whose result does not survive a JSON round trip
//! unchanged (a NaN, which JSON writes as null) is not kept, and nor is
//! any after it: they run again.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{Experiment, PaperResult};
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
    /// SHA-256 of the running executable; None when it cannot be read
    /// (then nothing it keeps is ever taken back).
    pub binary_sha256: Option<String>,
    pub paper: String,
    /// "quick", "default", "thorough" or "full".
    pub scale: String,
    /// The paper's `--export` folder, absolute, if any.
    pub export: Option<String>,
}

impl Identity {
    /// `scale`: mod.rs's `scale_name`.
    pub fn new(paper: &str, scale: &str, export: Option<&Path>) -> Identity {
        Identity {
            losslab: env!("CARGO_PKG_VERSION").into(),
            binary_sha256: binary_sha256(),
            paper: paper.into(),
            scale: scale.into(),
            // Resolved (links, `..`): the same folder however it is named.
            export: export.map(|x| {
                fs::canonicalize(x)
                    .or_else(|_| std::path::absolute(x))
                    .unwrap_or_else(|_| x.to_path_buf())
                    .display()
                    .to_string()
            }),
        }
    }
}

fn binary_sha256() -> Option<String> {
    use std::sync::OnceLock;
    static HASH: OnceLock<Option<String>> = OnceLock::new();
    HASH.get_or_init(|| {
        let mut f = fs::File::open("/proc/self/exe")
            .or_else(|_| fs::File::open(std::env::current_exe()?))
            .ok()?;
        sha256_of(&mut f).ok()
    })
    .clone()
}

fn sha256_of(r: &mut impl std::io::Read) -> std::io::Result<String> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    std::io::copy(r, &mut h)?;
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// A file an experiment left in a stage: which stage (0 the results', 1
/// the export's), its path there, length and SHA-256.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct KeptFile {
    stage: usize,
    path: String,
    len: u64,
    sha256: String,
}

/// One kept experiment.
#[derive(Serialize, Deserialize)]
struct Kept {
    prefix: String,
    experiment: Experiment,
    timing: serde_json::Value,
    /// The files it added or changed.
    files: Vec<KeptFile>,
}

const IDENTITY: &str = "identity.json";
/// Written when the paper's results are in place: a resume skips it.
const COMPLETE: &str = "complete.json";

/// A paper's kept experiments.
pub struct Store {
    dir: PathBuf,
    stages: Vec<PathBuf>,
    /// How many experiments are kept (records 0..kept).
    kept: usize,
    state: Mutex<State>,
}

/// A staged file as last seen: length, SHA-256, and what tells that it
/// has not been written since (inode, modification and change times), so
/// that it is not read again. A write the coarse file times miss leaves a
/// stale hash in a record, which the resume's check then finds: the
/// experiment runs again, nothing wrong is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    len: u64,
    sha256: String,
    stamp: Option<(u64, i64, i64, i64, i64)>,
}

pub type Files = BTreeMap<(usize, String), Seen>;

/// What the kept records say the stages hold: (stage, path) -> (the last
/// record to list it, length, SHA-256).
type Expected = BTreeMap<(usize, String), (usize, u64, String)>;

struct State {
    /// The number the next experiment gets.
    next: usize,
    /// Every file in the stages as the last record left it: what the next
    /// experiment changes is the rest.
    seen: Files,
    /// An experiment was not kept: none after it is either (a resumed
    /// run takes back only an unbroken run from the first).
    broken: bool,
}

#[cfg(unix)]
fn stamp(m: &fs::Metadata) -> Option<(u64, i64, i64, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    Some((
        m.ino(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    ))
}

#[cfg(not(unix))]
fn stamp(_: &fs::Metadata) -> Option<(u64, i64, i64, i64, i64)> {
    None
}

/// What `--resume` finds in a paper's folder, before anything changes.
pub enum Plan {
    /// Run the paper from the start; `discard` kept experiments of a
    /// stopped run go (a run without `--resume`).
    Fresh { discard: usize },
    /// `kept` experiments are taken back; `seen`: the files they leave,
    /// as the check found them.
    Partial { kept: usize, seen: Files },
    /// The paper finished with these results: nothing to run.
    Complete(Box<PaperResult>),
}

/// What a paper's run does, once its plan is carried out.
pub enum Found {
    Fresh(Store),
    Partial(Store, usize),
    Complete(Box<PaperResult>),
}

impl Plan {
    /// Reads `dir` (the paper folder's `.losslab/resume`) and checks the
    /// stages against it; changes nothing, so that every paper's plan is
    /// made, and refused if need be, before any paper's is carried out.
    pub fn make(
        dir: &Path,
        root: &Path,
        stages: &[PathBuf],
        id: &Identity,
        resume: bool,
    ) -> Result<Plan, Failure> {
        let shown = root.display().to_string();
        let read = |name: &str| fs::read_to_string(dir.join(name)).ok();
        let records = (0..)
            .take_while(|n| dir.join(file_name(*n)).is_file())
            .count();
        if !resume {
            return Ok(Plan::Fresh { discard: records });
        }
        if let Some(t) = read(COMPLETE) {
            // A finished run of another kind has nothing to continue: the
            // paper runs as it would without --resume.
            if serde_json::from_str::<Identity>(&t).ok().as_ref() != Some(id)
                || id.binary_sha256.is_none()
            {
                eprintln!(
                    "note: {shown}: finished by another losslab, scale or export folder; nothing to continue, so it runs again"
                );
                return Ok(Plan::Fresh { discard: 0 });
            }
            // Results moved or edited since: run the paper again.
            return Ok(
                match fs::read_to_string(root.join("results.json"))
                    .ok()
                    .and_then(|t| serde_json::from_str::<PaperResult>(&t).ok())
                {
                    Some(r) => Plan::Complete(Box::new(r)),
                    None => Plan::Fresh { discard: 0 },
                },
            );
        }
        let Some(t) = read(IDENTITY) else {
            return Ok(Plan::Fresh { discard: 0 });
        };
        if records == 0 {
            return Ok(Plan::Fresh { discard: 0 });
        }
        match serde_json::from_str::<Identity>(&t) {
            Ok(old) if &old == id && id.binary_sha256.is_some() => {}
            _ => return Err(mismatch(&shown, id, &t)),
        }
        let (kept, seen) = verified(dir, stages, records);
        if kept < records {
            eprintln!(
                "note: {shown}: {} of the {records} kept experiments (from number {kept}) run again: \
                 their files are not in the stage as recorded, or their records do not read",
                records - kept
            );
        }
        Ok(Plan::Partial { kept, seen })
    }

    /// Carries the plan out: a fresh run empties the record (the caller
    /// then empties the stages), a partial one drops the records past the
    /// kept ones.
    pub fn start(self, dir: &Path, stages: &[PathBuf], id: &Identity) -> Result<Found, Failure> {
        let err = |p: &Path, e: std::io::Error| Failure::Runtime(format!("{}: {e}", p.display()));
        let store = |kept: usize, seen| Store {
            dir: dir.into(),
            stages: stages.to_vec(),
            kept,
            state: Mutex::new(State {
                next: 0,
                seen,
                broken: false,
            }),
        };
        match self {
            Plan::Complete(r) => Ok(Found::Complete(r)),
            Plan::Fresh { .. } => {
                if dir.exists() {
                    fs::remove_dir_all(dir).map_err(|e| err(dir, e))?;
                }
                fs::create_dir_all(dir).map_err(|e| err(dir, e))?;
                write_atomic(dir, IDENTITY, &to_json(id))?;
                Ok(Found::Fresh(store(0, BTreeMap::new())))
            }
            Plan::Partial { kept, seen } => {
                // Every record past the kept ones goes, highest first, so
                // that a kill here leaves an unbroken run.
                let mut past: Vec<usize> = fs::read_dir(dir)
                    .map_err(|e| err(dir, e))?
                    .flatten()
                    .filter_map(|e| {
                        let n = e.file_name().to_string_lossy().into_owned();
                        n.strip_suffix(".json")?.parse::<usize>().ok()
                    })
                    .filter(|n| *n >= kept)
                    .collect();
                past.sort_unstable_by(|a, b| b.cmp(a));
                for n in past {
                    let p = dir.join(file_name(n));
                    fs::remove_file(&p).map_err(|e| err(&p, e))?;
                }
                if kept == 0 {
                    return Ok(Found::Fresh(store(0, BTreeMap::new())));
                }
                // The stages hold what the kept records list and whatever
                // the stopped experiment had begun: that goes (it runs
                // again and writes it again), so that nothing unlisted is
                // committed.
                // The check's hashes stand for files unchanged since.
                let now = snapshot(stages, &seen, false)
                    .map_err(|e| Failure::Runtime(format!("{}: {e}", dir.display())))?;
                for k in now.keys().filter(|k| !seen.contains_key(*k)) {
                    let p = stages[k.0].join(&k.1);
                    fs::remove_file(&p).map_err(|e| err(&p, e))?;
                }
                let seen = now
                    .into_iter()
                    .filter(|(k, _)| seen.contains_key(k))
                    .collect();
                Ok(Found::Partial(store(kept, seen), kept))
            }
        }
    }
}

/// How many records from the first are whole: each reads, and every
/// file the run of them leaves (the last record to list a file says
/// what it holds) is in its stage as recorded. A file that is not ends
/// the run before the last record that wrote it. Also the files the
/// kept records leave, as found (all of them passed the check).
fn verified(dir: &Path, stages: &[PathBuf], records: usize) -> (usize, Files) {
    let mut expect = Expected::new();
    let mut read = 0;
    for n in 0..records {
        let Some(k) = fs::read_to_string(dir.join(file_name(n)))
            .ok()
            .and_then(|t| serde_json::from_str::<Kept>(&t).ok())
        else {
            break;
        };
        for f in k.files {
            expect.insert((f.stage, f.path), (n, f.len, f.sha256));
        }
        read = n + 1;
    }
    let mut kept = read;
    let mut found: BTreeMap<(usize, String), (usize, Seen)> = BTreeMap::new();
    for ((stage, path), (n, len, sha)) in expect {
        let p = stages.get(stage).map(|s| s.join(&path));
        let m = p.as_ref().and_then(|p| fs::metadata(p).ok());
        let ok = match (&p, &m) {
            (Some(p), Some(m)) => {
                m.is_file()
                    && m.len() == len
                    && fs::File::open(p)
                        .and_then(|mut f| sha256_of(&mut f))
                        .is_ok_and(|h| h == sha)
            }
            _ => false,
        };
        if !ok {
            kept = kept.min(n);
        } else if let Some(m) = m {
            found.insert(
                (stage, path),
                (
                    n,
                    Seen {
                        len,
                        sha256: sha,
                        stamp: stamp(&m),
                    },
                ),
            );
        }
    }
    let found = found
        .into_iter()
        .filter(|(_, (n, _))| *n < kept)
        .map(|(k, (_, v))| (k, v))
        .collect();
    (kept, found)
}

/// Every file under the stages, with its length and SHA-256; a file
/// `known` has seen unchanged keeps its hash unread. With `sync`, every
/// file read is made durable first (the record that will vouch for it is
/// written after).
fn snapshot(stages: &[PathBuf], known: &Files, sync: bool) -> std::io::Result<Files> {
    let mut out = BTreeMap::new();
    for (i, s) in stages.iter().enumerate() {
        let mut todo = vec![s.clone()];
        while let Some(d) = todo.pop() {
            for e in fs::read_dir(&d)? {
                let e = e?;
                let t = e.file_type()?;
                let p = e.path();
                if t.is_dir() {
                    todo.push(p);
                    continue;
                }
                if !t.is_file() {
                    return Err(std::io::Error::other(format!(
                        "{}: not a file (a link?) in losslab's stage",
                        p.display()
                    )));
                }
                let rel = p.strip_prefix(s).expect("walked from it");
                let key = (i, rel.to_string_lossy().into_owned());
                let m = fs::metadata(&p)?;
                let st = stamp(&m);
                if let Some(k) = known.get(&key) {
                    if st.is_some() && k.stamp == st && k.len == m.len() {
                        out.insert(key, k.clone());
                        continue;
                    }
                }
                let mut f = fs::File::open(&p)?;
                if sync {
                    f.sync_all()?;
                }
                let sha256 = sha256_of(&mut f)?;
                out.insert(
                    key,
                    Seen {
                        len: m.len(),
                        sha256,
                        stamp: st,
                    },
                );
            }
        }
    }
    Ok(out)
}

impl Store {
    /// The kept experiment the next call would make, or None to run it.
    /// Advances the count either way.
    pub fn take(
        &self,
        prefix: &str,
    ) -> Result<(usize, Option<(Experiment, serde_json::Value)>), String> {
        let n = {
            let mut st = lock(&self.state);
            st.next += 1;
            st.next - 1
        };
        if n >= self.kept {
            return Ok((n, None));
        }
        let p = self.dir.join(file_name(n));
        let k: Kept = fs::read_to_string(&p)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .ok_or_else(|| {
                format!(
                    "{}: a kept experiment that no longer reads; run without --resume",
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
        Ok((n, Some((k.experiment, k.timing))))
    }

    /// Keeps experiment `n` with the files it left in the stages, if its
    /// JSON reads back as itself and every one before it was kept.
    pub fn keep(
        &self,
        n: usize,
        prefix: &str,
        e: &Experiment,
        row: &serde_json::Value,
    ) -> Result<(), String> {
        let mut st = lock(&self.state);
        if st.broken {
            return Ok(());
        }
        let probe = Kept {
            prefix: prefix.into(),
            experiment: e.clone(),
            timing: row.clone(),
            files: vec![],
        };
        let text = to_json(&probe);
        if serde_json::from_str::<Kept>(&text)
            .map(|k| to_json(&k))
            .ok()
            .as_deref()
            != Some(text.as_str())
        {
            st.broken = true;
            return Ok(());
        }
        let now = match snapshot(&self.stages, &st.seen, true) {
            Ok(n) => n,
            Err(e) => {
                // Bookkeeping must not fail a run: later experiments are
                // simply not kept.
                eprintln!("note: not keeping experiments for --resume from here: the stage: {e}");
                st.broken = true;
                return Ok(());
            }
        };
        let files = now
            .iter()
            .filter(|(k, v)| {
                st.seen
                    .get(*k)
                    .is_none_or(|o| (o.len, &o.sha256) != (v.len, &v.sha256))
            })
            .map(|((stage, path), v)| KeptFile {
                stage: *stage,
                path: path.clone(),
                len: v.len,
                sha256: v.sha256.clone(),
            })
            .collect();
        st.seen = now;
        let k = Kept { files, ..probe };
        if let Err(e) = write_atomic(&self.dir, &file_name(n), &to_json(&k)) {
            eprintln!("note: not keeping experiments for --resume from here: {e}");
            st.broken = true;
        }
        Ok(())
    }

    /// The paper's results are in place: a later `--resume` skips it.
    pub fn complete(&self, id: &Identity) -> Result<(), Failure> {
        write_atomic(&self.dir, COMPLETE, &to_json(id))?;
        for n in 0.. {
            let p = self.dir.join(file_name(n));
            if fs::remove_file(&p).is_err() {
                break;
            }
        }
        Ok(())
    }
}

fn mismatch(root: &str, id: &Identity, old: &str) -> Failure {
    let why = match serde_json::from_str::<Identity>(old) {
        Ok(_) if id.binary_sha256.is_none() => {
            "this losslab cannot read its own executable to tell whether it made it".to_string()
        }
        Ok(o) if o.binary_sha256 != id.binary_sha256 => {
            "another losslab binary made it (a rebuilt or updated losslab would mix two engines' numbers)".to_string()
        }
        Ok(o) if o.scale != id.scale => format!("it ran at the {} scale, this at the {}", o.scale, id.scale),
        Ok(o) if o.export != id.export => format!(
            "it exported to {}, this to {}",
            o.export.as_deref().unwrap_or("nowhere"),
            id.export.as_deref().unwrap_or("nowhere")
        ),
        Ok(_) => "it was made for another paper".into(),
        Err(_) => "its record is unreadable".into(),
    };
    Failure::BadInput(format!(
        "--resume: the reproduction stopped in {root} cannot be continued by this one: {why}; run without --resume to start again"
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

    fn row() -> serde_json::Value {
        serde_json::json!({ "experiment": "x", "runs": 3, "wall_s": 0.2 })
    }

    fn store(dir: &Path, stage: &Path) -> Store {
        let id = Identity::new("p", "quick", None);
        let stages = [stage.to_path_buf()];
        let plan = Plan::make(dir, dir, &stages, &id, true).unwrap();
        match plan.start(dir, &stages, &id).unwrap() {
            Found::Fresh(s) | Found::Partial(s, _) => s,
            Found::Complete(_) => panic!("nothing was finished"),
        }
    }

    /// A kept experiment comes back as the same JSON, under its number;
    /// one that would not (a NaN) is not kept, nor any after it.
    #[test]
    fn kept_experiments_come_back_unchanged_or_not_at_all() {
        let t = tempfile::tempdir().unwrap();
        let (dir, stage) = (t.path().join("resume"), t.path().join("stage"));
        fs::create_dir_all(&stage).unwrap();
        let s = store(&dir, &stage);
        let good = experiment(&[0.1, 0.2 / 3.0, 1e-300]);
        let (n, none) = s.take("").unwrap();
        assert!(none.is_none());
        fs::write(stage.join("a.csv"), "1\n").unwrap();
        s.keep(n, "", &good, &row()).unwrap();
        let (n, _) = s.take("v/").unwrap();
        s.keep(n, "v/", &experiment(&[f64::NAN, 1.0]), &row())
            .unwrap();
        let (n, _) = s.take("w/").unwrap();
        s.keep(n, "w/", &good, &row()).unwrap();
        assert!(dir.join("0000.json").is_file());
        assert!(!dir.join("0001.json").exists());
        assert!(!dir.join("0002.json").exists());

        let s = store(&dir, &stage);
        let (_, back) = s.take("").unwrap();
        let (e, r) = back.unwrap();
        assert_eq!(to_json(&e), to_json(&good));
        assert_eq!(r["runs"], 3);
        assert!(s.take("v/").unwrap().1.is_none());
        // Kept under another prefix: a different run, refused.
        let s = store(&dir, &stage);
        assert!(s.take("other/").unwrap_err().contains("kept for \"\""));
    }

    /// The stage must hold what the records say: a file changed or gone
    /// ends the kept run at the first record that wrote it.
    #[test]
    fn a_stage_that_changed_ends_the_kept_run() {
        let t = tempfile::tempdir().unwrap();
        let (dir, stage) = (t.path().join("resume"), t.path().join("stage"));
        fs::create_dir_all(stage.join("x")).unwrap();
        let s = store(&dir, &stage);
        for (i, f) in ["x/0.csv", "x/1.csv", "x/2.csv"].iter().enumerate() {
            let (n, _) = s.take("").unwrap();
            assert_eq!(n, i);
            fs::write(stage.join(f), format!("{i}\n")).unwrap();
            s.keep(n, "", &experiment(&[1.0, 2.0]), &row()).unwrap();
        }
        let id = Identity::new("p", "quick", None);
        let stages = [stage.clone()];
        let kept = |dir: &Path| match Plan::make(dir, dir, &stages, &id, true).unwrap() {
            Plan::Partial { kept, .. } => kept,
            _ => usize::MAX,
        };
        assert_eq!(kept(&dir), 3);
        fs::write(stage.join("x/1.csv"), "changed\n").unwrap();
        assert_eq!(kept(&dir), 1);
        fs::remove_dir_all(&stage).unwrap();
        fs::create_dir_all(&stage).unwrap();
        assert_eq!(kept(&dir), 0);
        // A stray file in the stage, listed by no kept record, goes when
        // the kept run is taken over, as does every record past it.
        fs::create_dir_all(stage.join("x")).unwrap();
        fs::write(stage.join("x/0.csv"), "0\n").unwrap();
        fs::write(stage.join("x/1.csv"), "1\n").unwrap();
        fs::write(stage.join("x/2.csv"), "2\n").unwrap();
        fs::write(stage.join("stray.csv"), "?\n").unwrap();
        fs::write(dir.join("0007.json"), "{}").unwrap();
        let _ = fs::remove_file(dir.join("0002.json"));
        let plan = Plan::make(&dir, &dir, &stages, &id, true).unwrap();
        assert!(matches!(plan, Plan::Partial { kept: 2, .. }));
        assert!(matches!(
            plan.start(&dir, &stages, &id).unwrap(),
            Found::Partial(_, 2)
        ));
        assert!(!stage.join("stray.csv").exists());
        assert!(!stage.join("x/2.csv").exists());
        assert!(stage.join("x/1.csv").exists());
        assert!(!dir.join("0007.json").exists());
        // Without --resume nothing is kept, and what there is is counted.
        assert!(matches!(
            Plan::make(&dir, &dir, &stages, &id, false).unwrap(),
            Plan::Fresh { discard: 2 }
        ));
    }
}
