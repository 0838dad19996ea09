//! Output folders: where losslab writes, and what it may replace or
//! delete there (docs/RELIABILITY.md).
//!
//! The rules, each enforced here and nowhere else:
//! - A folder is losslab's when it holds `.losslab/manifest.json`: losslab
//!   made it, or the user said `--force` once. Any other folder that is
//!   not empty is refused (exit 2) before anything is written in it.
//! - losslab replaces or deletes a file only if the manifest lists it with
//!   the length and modification time it had when losslab wrote it (or as
//!   a file losslab appends to in place). A file the user wrote or changed
//!   is never deleted; one in the way of a new result is refused (exit 2),
//!   or with `--force` replaced.
//! - A file the command reads (the scenario, the sweep) is never replaced
//!   or deleted, `--force` or not.
//! - Results are written into `.losslab/stage/` and moved into place by
//!   `rename` after `fsync` when the command ends (Ctrl-C included), so a
//!   full disk or a kill leaves the previous results whole, never half a
//!   file.
//! - One command at a time: an advisory lock (`flock`) on
//!   `.losslab/lock`; a second command into a busy folder exits 2.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::Failure;

/// losslab's own folder inside an output folder.
pub const META: &str = ".losslab";
const MANIFEST: &str = "manifest.json";
const LOCK: &str = "lock";
const STAGE: &str = "stage";
const SCRATCH: &str = "scratch";
/// A resumable command's record of finished work ([`OutDir::record_dir`]).
const RESUME: &str = "resume";

/// What the command does with what an earlier command left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The command's files replace the earlier run's, and every file of
    /// the earlier run it does not write again is deleted, so nothing of
    /// an older run sits beside the new results (`run`, `sweep`).
    Fresh,
    /// The command adds to or replaces files among the earlier ones and
    /// deletes nothing (`plot`, `sweep --resume`).
    Add,
}

/// How to open an output folder.
pub struct Options<'a> {
    /// The flag that named the folder, for messages (`--out`, `--pcap`).
    pub flag: &'a str,
    pub mode: Mode,
    /// Write into a folder losslab did not make, and replace files in the
    /// way of its results.
    pub force: bool,
    /// Files the command reads: never replaced or deleted.
    pub inputs: &'a [&'a Path],
}

/// One file of the manifest.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    /// Length and modification time (ns since the epoch) as losslab left
    /// it: the proof that the file is still what losslab wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    len: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mtime_ns: Option<u128>,
    /// Appended to in place while a command runs (a sweep's
    /// results.jsonl), so its length proves nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    live: bool,
    /// Being moved into place by a commit: the old file or the new one is
    /// there, both losslab's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    moving: bool,
}

impl Entry {
    /// The file as losslab leaves it.
    fn of(m: &fs::Metadata) -> Entry {
        Entry {
            len: Some(m.len()),
            mtime_ns: mtime_ns(m),
            ..Entry::default()
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    format: u32,
    /// By path relative to the folder, with `/` separators.
    files: BTreeMap<String, Entry>,
    /// Sub-folders losslab made, removed again once empty.
    #[serde(default)]
    dirs: Vec<String>,
}

/// An output folder opened for one command; see the module's rules.
pub struct OutDir {
    root: PathBuf,
    flag: String,
    mode: Mode,
    force: bool,
    inputs: Vec<FileId>,
    manifest: Manifest,
    /// Files this command wrote outside the stage ([`OutDir::live`],
    /// [`OutDir::put`]): in [`Mode::Fresh`] they are not stale.
    outside_stage: Vec<String>,
    /// Held for the command's life: the advisory lock is on it.
    _lock: File,
    committed: bool,
    /// This command wrote a file into the folder (a commit, `put`, `live`).
    wrote: bool,
    /// This command made the folder, or its .losslab: removed again if
    /// the command is refused before it writes anything.
    made_root: bool,
    made_meta: bool,
    /// A resumable command's record of finished work (`reproduce
    /// --resume`, reproduce/resume.rs): while it holds a first kept item
    /// the stage outlives the command, since that work is in it.
    keep_stage_for: Option<PathBuf>,
}

/// A file's identity, so that an input reached by another path (a
/// symbolic link, `./x`) is still recognised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FileId {
    dev: u64,
    ino: u64,
}

pub(crate) fn file_id(p: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        fs::metadata(p).ok().map(|m| FileId {
            dev: m.dev(),
            ino: m.ino(),
        })
    }
    #[cfg(not(unix))]
    {
        let _ = p;
        None
    }
}

fn mtime_ns(m: &fs::Metadata) -> Option<u128> {
    m.modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_nanos())
}

fn runtime(what: &str, p: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::Runtime(format!("cannot {what} {}: {e}", p.display()))
}

/// A scenario's name as a folder name. The name is a label, written by
/// whoever wrote the scenario: it must never reach outside `out/`, so
/// every character but letters, digits and `-_.+=,@` becomes `_`, and a
/// leading dot (`..`, a hidden name) becomes `_` too.
pub fn folder_name(label: &str) -> String {
    let mut s: String = label
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.+=,@".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.starts_with('.') {
        s.replace_range(0..1, "_");
    }
    // A file name's usual limit is 255 bytes: a longer name is cut and
    // marked with a hash of the whole label, so that two names differing
    // only past the cut keep two folders (and a suffix such as `-linux`
    // still fits).
    if s.len() > MAX_NAME {
        use sha2::Digest;
        let hash = sha2::Sha256::digest(label.as_bytes());
        while s.len() > MAX_NAME - 17 {
            s.pop();
        }
        s.push('-');
        for b in &hash[..8] {
            s.push_str(&format!("{b:02x}"));
        }
    }
    if s.is_empty() {
        s.push_str("scenario");
    }
    s
}

/// The longest folder name [`folder_name`] gives, in bytes.
const MAX_NAME: usize = 200;

/// The default output folder of a scenario named `label`: `out/<name>`
/// with `suffix` appended (`-linux`), always one level below `out/`.
pub fn default_folder(label: &str, suffix: &str) -> PathBuf {
    debug_assert!(folder_name(suffix) == suffix || suffix.is_empty());
    Path::new("out").join(format!("{}{suffix}", folder_name(label)))
}

/// `rel` as a manifest key: relative, `/`-separated, never leaving the
/// folder. None for anything else.
fn key_of(rel: &Path) -> Option<String> {
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_str()?.to_string()),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

impl OutDir {
    /// Opens `root` for writing: checks that the folder may be written,
    /// makes it if it is missing, and takes its lock. A folder that is
    /// refused is left as it was.
    pub fn open(root: &Path, o: Options) -> Result<OutDir, Failure> {
        Self::open_with(root, o, None)
    }

    /// [`OutDir::open`] for a command that can be continued after it was
    /// stopped: the stage an earlier command left is not cleared on
    /// opening (the command decides, with [`OutDir::clear_stage`], once
    /// it knows whether it continues that work), and it outlives this
    /// command while `record` (a folder of the command's own) holds
    /// `0000.json`, its first finished piece of work.
    pub fn open_resumable(root: &Path, o: Options, record: PathBuf) -> Result<OutDir, Failure> {
        Self::open_with(root, o, Some(record))
    }

    /// The folder for a resumable command's own record, under .losslab
    /// (kept when the stage and scratch are cleared).
    pub fn record_dir(root: &Path) -> PathBuf {
        root.join(META).join(RESUME)
    }

    /// Empties the stage (a resumable command found nothing to continue).
    pub fn clear_stage(&self) -> Result<(), Failure> {
        let p = self.stage();
        clear(&p)?;
        fs::create_dir(&p).map_err(|e| runtime("create", &p, e))
    }

    fn open_with(
        root: &Path,
        o: Options,
        keep_stage_for: Option<PathBuf>,
    ) -> Result<OutDir, Failure> {
        let shown = root.display();
        let flag = o.flag;
        let refuse = |why: String| Failure::BadInput(format!("{flag} {shown}: {why}"));
        // .losslab is losslab's own scratch, cleared by the command that
        // holds it: an output folder inside one (`--pcap o/.losslab/x`)
        // would be deleted under it or take files it does not own.
        let real = resolved(root);
        if real.components().any(|c| c.as_os_str() == META) {
            return Err(refuse(format!(
                "is (or is inside) a {META} folder, losslab's own, which it clears; choose another folder"
            )));
        }
        if root.exists() && !root.is_dir() {
            return Err(refuse("exists and is not a folder".into()));
        }
        // Everything losslab deletes lives below .losslab, so it must be a
        // folder losslab made: never a link, never someone else's.
        let meta = root.join(META);
        let meta_kind = fs::symlink_metadata(&meta).ok().map(|m| m.file_type());
        if meta_kind.is_some_and(|t| !t.is_dir()) {
            return Err(refuse(format!(
                "{} is not a folder losslab made (a link or a file); move it",
                meta.display()
            )));
        }
        let ours = fs::symlink_metadata(meta.join(MANIFEST)).is_ok_and(|m| m.file_type().is_file());
        if meta_kind.is_some() && !ours {
            // A folder another losslab command is making this instant holds
            // its lock alone; anything else there is not losslab's.
            if let Some(other) = fs::read_dir(&meta)
                .map_err(|e| runtime("read", &meta, e))?
                .flatten()
                .find(|e| e.file_name() != LOCK || !e.file_type().is_ok_and(|t| t.is_file()))
            {
                return Err(refuse(format!(
                    "{} holds {:?}, which losslab did not write; move it",
                    meta.display(),
                    other.file_name()
                )));
            }
        }
        // A stopped reproduction's kept work (reproduce --resume) is
        // hours of runs: another command would clear its stage.
        if keep_stage_for.is_none() && !o.force && holds_kept_work(&meta.join(RESUME)) {
            return Err(refuse(
                "holds a stopped `losslab reproduce` that `--resume` can continue; \
                 continue or finish it, choose another folder, or add --force to write here anyway"
                    .into(),
            ));
        }
        if root.exists() && !ours && !o.force {
            if let Some(first) = foreign_entry(root)? {
                return Err(refuse(format!(
                    "the folder holds files losslab did not write ({first:?} among them); \
                     choose another folder, or add --force to write beside them \
                     (losslab then replaces only files named as its results and deletes nothing of yours)"
                )));
            }
        }
        // A folder inside another losslab folder (`--pcap other/caps`) is
        // written while that one may be: refuse while a command holds it.
        // A probe, not a hold: this command may open that folder itself.
        for outer in real.ancestors().skip(1) {
            if let Some(holder) = busy(&outer.join(META).join(LOCK)) {
                return Err(refuse(format!(
                    "another losslab command is writing into {}, which holds this folder ({holder}); \
                     wait for it to end or choose another folder",
                    outer.display()
                )));
            }
        }
        let root_abs = normal(root);
        for p in o.inputs {
            if normal(p).starts_with(root_abs.join(META)) {
                return Err(refuse(format!(
                    "{} is inside losslab's own folder {META}, which losslab clears; move it",
                    p.display()
                )));
            }
        }
        let made_root = !root.exists();
        fs::create_dir_all(root).map_err(|e| runtime("create", root, e))?;
        let made_meta = meta_kind.is_none();
        match fs::create_dir(&meta) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(runtime("create", &meta, e)),
        }
        let lock_path = meta.join(LOCK);
        if fs::symlink_metadata(&lock_path).is_ok_and(|m| !m.file_type().is_file()) {
            return Err(refuse(format!(
                "{} is not losslab's lock (a link or a folder); move it",
                lock_path.display()
            )));
        }
        let mut lock = open_no_follow(&lock_path).map_err(|e| runtime("open", &lock_path, e))?;
        if !try_lock(&lock, true) {
            let (holder, mine) = holder(&mut lock);
            return Err(refuse(if mine {
                "this command names the folder twice (two of its options point at it); give each its own folder".into()
            } else {
                format!(
                    "another losslab command is writing into this folder{}; wait for it to end or choose another folder",
                    if holder.is_empty() {
                        String::new()
                    } else {
                        format!(" ({holder})")
                    }
                )
            }));
        }
        let _ = lock.set_len(0);
        // args_os: a file name need not be UTF-8 on Linux (env::args panics on one).
        let args: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let _ = write!(lock, "pid {}: {}", std::process::id(), args.join(" "));
        let manifest = read_manifest(&meta.join(MANIFEST))?;
        if manifest.files.values().any(|e| e.moving) {
            eprintln!(
                "note: {shown}: the last losslab command here was stopped while moving its results into place, \
                 so they may be a mix of two runs until this command replaces them"
            );
        }
        let mut inputs = Vec::new();
        for p in o.inputs {
            if let Some(id) = file_id(p) {
                inputs.push(id);
            }
        }
        let mut d = OutDir {
            root: root.to_path_buf(),
            flag: flag.to_string(),
            mode: o.mode,
            force: o.force,
            inputs,
            manifest,
            outside_stage: Vec::new(),
            _lock: lock,
            committed: false,
            wrote: false,
            made_root,
            made_meta,
            keep_stage_for,
        };
        // A .losslab this command made is marked losslab's at once, so that
        // a second command finds it so (and then finds it locked); it is
        // taken away again if this command writes nothing.
        if !ours {
            d.save()?;
        }
        // What a killed command staged is garbage: it never became a result
        // (unless it is to be continued).
        for p in [d.stage(), d.scratch()] {
            if d.keep_stage_for.is_some() && p == d.stage() && p.is_dir() {
                continue;
            }
            clear(&p)?;
            fs::create_dir(&p).map_err(|e| runtime("create", &p, e))?;
        }
        Ok(d)
    }

    /// The folder the results end up in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the command writes its files, under the names they get in
    /// [`OutDir::root`]; [`OutDir::commit`] moves them there.
    pub fn stage(&self) -> PathBuf {
        self.root.join(META).join(STAGE)
    }

    /// A folder for the command's own working files (spools), never
    /// moved into the results and removed when the command ends.
    pub fn scratch(&self) -> PathBuf {
        self.root.join(META).join(SCRATCH)
    }

    /// Checks now, before the work, that each of `names` (relative paths)
    /// may be written: not an input, and either free, provably losslab's,
    /// or `--force`. A command calls this with the names it knows it will
    /// write, so that a conflict costs nothing.
    pub fn claim(&self, names: &[&str]) -> Result<(), Failure> {
        for n in names {
            self.may_replace(Path::new(n))?;
        }
        Ok(())
    }

    /// Whether the file at `key` is what losslab last wrote there.
    fn provably_ours(&self, key: &str, meta: &fs::Metadata) -> bool {
        match self.manifest.files.get(key) {
            Some(e) if e.live || e.moving => true,
            Some(e) => e.len == Some(meta.len()) && e.mtime_ns == mtime_ns(meta),
            None => false,
        }
    }

    fn is_input(&self, p: &Path) -> bool {
        file_id(p).is_some_and(|id| self.inputs.contains(&id))
    }

    /// Whether every folder between the root and `rel` is a real folder,
    /// not a link: losslab never writes or deletes through a link in its
    /// folders (one to a thesis's figures, say).
    fn no_links_above(&self, rel: &Path) -> bool {
        let mut at = self.root.clone();
        let parents: Vec<Component> = rel.parent().map_or(vec![], |p| p.components().collect());
        for c in parents {
            at.push(c);
            match fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_dir() => {}
                Ok(_) => return false,
                Err(_) => return true,
            }
        }
        true
    }

    fn may_replace(&self, rel: &Path) -> Result<(), Failure> {
        self.check_replace(rel, self.force)
    }

    /// [`OutDir::may_replace`]; `unproven_ok`: a file losslab cannot prove
    /// it wrote may be replaced (`--force`); links, folders and inputs
    /// never are.
    fn check_replace(&self, rel: &Path, unproven_ok: bool) -> Result<(), Failure> {
        let key = key_of(rel).ok_or_else(|| {
            Failure::Runtime(format!("{}: not a path inside the folder", rel.display()))
        })?;
        let target = self.root.join(rel);
        let refuse = |why: String| {
            Failure::BadInput(format!("{} {}: {why}", self.flag, self.root.display()))
        };
        if !self.no_links_above(rel) {
            return Err(refuse(format!(
                "{} is reached through a link; losslab does not write through links in its folders: \
                 replace the link with a folder, or choose another folder",
                target.display()
            )));
        }
        let Ok(meta) = fs::symlink_metadata(&target) else {
            return Ok(());
        };
        if self.is_input(&target) {
            return Err(refuse(format!(
                "losslab would replace {}, which this command reads; choose another folder, or move the file",
                target.display()
            )));
        }
        if meta.is_dir() {
            return Err(refuse(format!(
                "{} is a folder where losslab writes a file",
                target.display()
            )));
        }
        if unproven_ok || self.provably_ours(&key, &meta) {
            return Ok(());
        }
        Err(refuse(format!(
            "{} is not the file losslab wrote there (it was written or changed since, or copied \
             without its modification time); move it, choose another folder, or add --force to replace it",
            target.display()
        )))
    }

    /// Where a second folder the command was given (`--pcap DIR`) goes:
    /// inside this one's stage when DIR is inside this folder, so its
    /// files land with the rest; else DIR opened on its own, with the same
    /// rules (commit it too).
    pub fn nested(
        &self,
        path: Option<&Path>,
        flag: &str,
        force: bool,
        inputs: &[&Path],
    ) -> Result<(Option<PathBuf>, Option<OutDir>), Failure> {
        let Some(path) = path else {
            return Ok((None, None));
        };
        if let Ok(rel) = normal(path).strip_prefix(normal(&self.root)) {
            if key_of(rel).is_none() && !rel.as_os_str().is_empty() {
                return Err(Failure::BadInput(format!(
                    "{flag} {}: a folder inside {} {} must have a UTF-8 name (losslab lists its files by name)",
                    path.display(),
                    self.flag,
                    self.root.display()
                )));
            }
            if !rel.starts_with(META) {
                return Ok((Some(self.stage().join(rel)), None));
            }
        }
        let d = OutDir::open(
            path,
            Options {
                flag,
                mode: Mode::Fresh,
                force,
                inputs,
            },
        )?;
        Ok((Some(d.stage()), Some(d)))
    }

    /// Writes `name` into the folder now, atomically, outside the stage: a
    /// file that must be there while the command runs (a sweep's
    /// sweep.toml, which `--resume` after a kill needs).
    pub fn put(&mut self, name: &str, bytes: &[u8]) -> Result<(), Failure> {
        let rel = Path::new(name);
        self.may_replace(rel)?;
        let key = key_of(rel).expect("a plain name");
        let target = self.root.join(rel);
        write_atomic(&target, bytes).map_err(|e| runtime("write", &target, e))?;
        let m = fs::metadata(&target).map_err(|e| runtime("read", &target, e))?;
        self.manifest.files.insert(key.clone(), Entry::of(&m));
        self.outside_stage.push(key);
        self.wrote = true;
        self.save()
    }

    /// A file the command appends to in place, outside the stage (a
    /// sweep's results.jsonl, which must survive a kill). Recorded in the
    /// manifest before it is created, as a file whose length proves
    /// nothing until the command ends. In [`Mode::Fresh`] an earlier copy
    /// is deleted first. `verified`: the caller has read the file and
    /// checked every line as its own (`sweep --resume`), which stands in
    /// for the manifest's proof.
    pub fn live(&mut self, name: &str, verified: bool) -> Result<PathBuf, Failure> {
        let rel = Path::new(name);
        let key = key_of(rel).expect("a plain name");
        let target = self.root.join(rel);
        self.check_replace(rel, self.force || verified)?;
        if self.mode == Mode::Fresh && target.exists() {
            fs::remove_file(&target).map_err(|e| runtime("remove", &target, e))?;
        }
        self.manifest.files.insert(
            key.clone(),
            Entry {
                live: true,
                ..Entry::default()
            },
        );
        self.outside_stage.push(key);
        self.wrote = true;
        self.save()?;
        Ok(target)
    }

    /// Deletes now every file losslab can prove it wrote here (not an
    /// input): a new sweep starts from nothing, so that a kill leaves its
    /// own partial runs, never a mix with an earlier sweep's tables.
    pub fn clear_earlier(&mut self) -> Result<(), Failure> {
        self.delete_stale(&[])?;
        self.wrote = true;
        self.save()
    }

    /// Deletes the manifest's files other than `keep` that are provably
    /// losslab's and not inputs; forgets the others (the user's now).
    fn delete_stale(&mut self, keep: &[String]) -> Result<(), Failure> {
        let old: Vec<String> = self.manifest.files.keys().cloned().collect();
        for key in old {
            if keep.contains(&key) || self.outside_stage.contains(&key) {
                continue;
            }
            let p = self.root.join(&key);
            let ok = self.no_links_above(Path::new(&key))
                && fs::symlink_metadata(&p)
                    .is_ok_and(|m| !m.is_dir() && self.provably_ours(&key, &m))
                && !self.is_input(&p);
            if ok {
                fs::remove_file(&p).map_err(|e| runtime("remove", &p, e))?;
            }
            self.manifest.files.remove(&key);
        }
        // Folders losslab made, once nothing is left in them.
        let mut dirs = std::mem::take(&mut self.manifest.dirs);
        dirs.sort_by_key(|d| std::cmp::Reverse(d.len()));
        dirs.retain(|d| {
            let p = self.root.join(d);
            let real = self.no_links_above(Path::new(d))
                && fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_dir());
            !(real && fs::remove_dir(&p).is_ok())
        });
        dirs.sort();
        self.manifest.dirs = dirs;
        Ok(())
    }

    /// The staged files, once every one of them may be put in place: every
    /// conflict is found before the first file moves.
    fn check_staged(&self) -> Result<Vec<PathBuf>, Failure> {
        let staged = walk(&self.stage())?;
        for rel in &staged {
            self.may_replace(rel)?;
        }
        Ok(staged)
    }

    /// Commits a command's main folder and its other folder (`--pcap`,
    /// `--export`), checking both before either moves a file: a conflict
    /// in the second never leaves the first's new results beside its old.
    pub fn commit_with(self, other: Option<OutDir>) -> Result<Vec<PathBuf>, Failure> {
        if let Some(o) = &other {
            o.check_staged()?;
        }
        let written = self.commit()?;
        if let Some(o) = other {
            o.commit()?;
        }
        Ok(written)
    }

    /// Moves every staged file into place (fsync, then rename over the
    /// old copy), records it, and in [`Mode::Fresh`] deletes what an
    /// earlier run left that this one did not write again. Returns the
    /// files written, as paths in the folder.
    ///
    /// The manifest marks the files as moving before the first rename and
    /// records them after the last, so a kill in between leaves files
    /// losslab still knows as its own (and says so next time), and a
    /// second Ctrl-C waits for the moves to end.
    pub fn commit(mut self) -> Result<Vec<PathBuf>, Failure> {
        let stage = self.stage();
        let staged = self.check_staged()?;
        let keys: Vec<String> = staged
            .iter()
            .map(|r| key_of(r).expect("walked from the stage"))
            .collect();
        let _moving = Committing::start();
        for (rel, key) in staged.iter().zip(&keys) {
            File::open(stage.join(rel))
                .and_then(|f| f.sync_all())
                .map_err(|e| runtime("write", &self.root.join(rel), e))?;
            let e = self.manifest.files.entry(key.clone()).or_default();
            e.moving = true;
        }
        self.save()?;
        let mut written = Vec::new();
        let mut dirs_touched: Vec<PathBuf> = vec![self.root.clone()];
        for rel in &staged {
            let to = self.root.join(rel);
            if let Some(parent) = rel.parent().filter(|p| !p.as_os_str().is_empty()) {
                self.make_dirs(parent)?;
                let d = self.root.join(parent);
                if !dirs_touched.contains(&d) {
                    dirs_touched.push(d);
                }
            }
            fs::rename(stage.join(rel), &to).map_err(|e| runtime("write", &to, e))?;
            written.push(to);
        }
        for (rel, key) in staged.iter().zip(&keys) {
            let to = self.root.join(rel);
            let m = fs::metadata(&to).map_err(|e| runtime("read", &to, e))?;
            self.manifest.files.insert(key.clone(), Entry::of(&m));
        }
        // Files appended in place are recorded as they now are, so that a
        // later change by hand makes them the user's.
        for key in self.outside_stage.clone() {
            if let Ok(m) = fs::metadata(self.root.join(&key)) {
                self.manifest.files.insert(key, Entry::of(&m));
            }
        }
        if self.mode == Mode::Fresh {
            self.delete_stale(&keys)?;
        }
        for d in &dirs_touched {
            sync_dir(d);
        }
        self.save()?;
        self.committed = true;
        let _ = clear(&stage);
        let _ = clear(&self.scratch());
        Ok(written)
    }

    fn make_dirs(&mut self, rel: &Path) -> Result<(), Failure> {
        let mut at = PathBuf::new();
        for c in rel.components() {
            at.push(c);
            let p = self.root.join(&at);
            match fs::symlink_metadata(&p) {
                Ok(m) if m.file_type().is_dir() => continue,
                Ok(_) => {
                    return Err(Failure::BadInput(format!(
                        "{} {}: {} is not a folder (a link or a file) where losslab writes one",
                        self.flag,
                        self.root.display(),
                        p.display()
                    )))
                }
                Err(_) => {}
            }
            fs::create_dir(&p).map_err(|e| runtime("create", &p, e))?;
            let key = key_of(&at).expect("a relative path");
            if !self.manifest.dirs.contains(&key) {
                self.manifest.dirs.push(key);
                self.manifest.dirs.sort();
            }
        }
        Ok(())
    }

    fn save(&mut self) -> Result<(), Failure> {
        self.manifest.format = 1;
        let text = serde_json::to_string_pretty(&self.manifest).expect("serialises");
        let path = self.root.join(META).join(MANIFEST);
        write_atomic(&path, format!("{text}\n").as_bytes()).map_err(|e| runtime("write", &path, e))
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        // A command that failed before commit leaves no half-staged files
        // behind (the next command would remove them anyway), and a folder
        // it was refused after opening is left as it found it.
        let _ = clear(&self.scratch());
        if !self.committed && self.keep_stage_for.as_deref().is_some_and(holds_kept_work) {
            return;
        }
        let _ = clear(&self.stage());
        if !self.committed && !self.wrote {
            if self.made_meta {
                let _ = clear(&self.root.join(META));
            }
            if self.made_root {
                let _ = fs::remove_dir(&self.root);
            }
        }
    }
}

/// Whether a resumable command's record holds its first finished piece
/// of work (reproduce/resume.rs numbers them from 0000.json).
fn holds_kept_work(record: &Path) -> bool {
    record.join("0000.json").is_file()
}

/// Removes `p`: a real folder with what is in it, or a link or file
/// itself, never what a link points to.
fn clear(p: &Path) -> Result<(), Failure> {
    match fs::symlink_metadata(p) {
        Err(_) => Ok(()),
        Ok(m) if m.file_type().is_dir() => {
            fs::remove_dir_all(p).map_err(|e| runtime("remove", p, e))
        }
        Ok(_) => fs::remove_file(p).map_err(|e| runtime("remove", p, e)),
    }
}

/// Opens (or creates) a file for reading and writing, refusing a link in
/// its place (O_NOFOLLOW): the lock file must be losslab's own.
fn open_no_follow(p: &Path) -> std::io::Result<File> {
    let mut o = fs::OpenOptions::new();
    o.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW);
    }
    o.open(p)
}

/// Raised while a commit moves files, so that a second Ctrl-C (which
/// otherwise ends the process at once) waits for the moves to end.
static COMMITTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a commit is moving files now (for the Ctrl-C handlers).
pub fn committing() -> bool {
    COMMITTING.load(std::sync::atomic::Ordering::SeqCst)
}

struct Committing;

impl Committing {
    fn start() -> Committing {
        COMMITTING.store(true, std::sync::atomic::Ordering::SeqCst);
        Committing
    }
}

impl Drop for Committing {
    fn drop(&mut self) {
        COMMITTING.store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

/// `path` made absolute and without `.` or `..` parts, for comparing two
/// paths the user gave.
/// `path` with the links of its existing part resolved: where a write
/// into it lands.
fn resolved(path: &Path) -> PathBuf {
    let abs = normal(path);
    let mut rest = Vec::new();
    let mut base = abs.as_path();
    loop {
        if let Ok(real) = fs::canonicalize(base) {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                base = parent;
            }
            _ => return abs,
        }
    }
}

fn normal(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// A name in `root` other than losslab's own folder, if there is one.
fn foreign_entry(root: &Path) -> Result<Option<String>, Failure> {
    let rd = fs::read_dir(root).map_err(|e| runtime("read", root, e))?;
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name != META {
            return Ok(Some(name));
        }
    }
    Ok(None)
}

fn read_manifest(p: &Path) -> Result<Manifest, Failure> {
    let bad = |why: String| {
        Failure::BadInput(format!(
            "{}: not a losslab manifest ({why}); losslab cannot tell its files from yours here: \
             choose another folder, or move {META} out of the folder (losslab then takes every \
             file there for yours and writes beside them only with --force)",
            p.display()
        ))
    };
    let Ok(text) = fs::read_to_string(p) else {
        return Ok(Manifest::default());
    };
    let m: Manifest = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if m.format > 1 {
        return Err(Failure::BadInput(format!(
            "{}: written by a newer losslab (manifest format {}, this one reads 1); \
             use that losslab, or choose another folder",
            p.display(),
            m.format
        )));
    }
    // Every name must be a plain path inside the folder and outside
    // .losslab: a hand-made manifest must not reach anything else.
    for k in m.files.keys().chain(&m.dirs) {
        if key_of(Path::new(k)).as_deref() != Some(k.as_str()) || k.split('/').next() == Some(META)
        {
            return Err(bad(format!("{k:?} is not a path inside the folder")));
        }
    }
    Ok(m)
}

/// Every file under `dir`, relative to it, in name order.
fn walk(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let mut out = Vec::new();
    let mut todo = vec![PathBuf::new()];
    while let Some(rel) = todo.pop() {
        let abs = dir.join(&rel);
        let rd = fs::read_dir(&abs).map_err(|e| runtime("read", &abs, e))?;
        for e in rd {
            let e = e.map_err(|e| runtime("read", &abs, e))?;
            let r = rel.join(e.file_name());
            let t = e.file_type().map_err(|e| runtime("read", &abs, e))?;
            if t.is_dir() {
                todo.push(r);
            } else {
                out.push(r);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn sync_dir(d: &Path) {
    if let Ok(f) = File::open(d) {
        let _ = f.sync_all();
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder:
/// written, fsynced, renamed over `path`, and the folder fsynced. A
/// crash or a full disk leaves the old file or the new one, never part
/// of either.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace_atomic(path, |f| f.write_all(bytes))
}

/// Gives `path` an inode of its own when it has other hard links (a
/// backup made with `cp -al`), through a copy renamed over it as
/// [`write_atomic`] does, so that appending to it or truncating it in
/// place leaves the other names' content alone. Streamed: the file may
/// be larger than memory. Whether it copied.
#[cfg(unix)]
pub fn unshare(path: &Path) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    if fs::symlink_metadata(path)?.nlink() <= 1 {
        return Ok(false);
    }
    let mut src = File::open(path)?;
    replace_atomic(path, |f| std::io::copy(&mut src, f).map(|_| ()))?;
    Ok(true)
}

#[cfg(not(unix))]
pub fn unshare(_: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// Fills a temporary file in `path`'s folder with `fill`, fsyncs it,
/// renames it over `path` and fsyncs the folder.
fn replace_atomic(
    path: &Path,
    fill: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or_else(|| "file".to_string(), |n| n.to_string_lossy().to_string());
    // A name no file has (create_new, which also refuses a link there),
    // so the temporary file never writes over anything.
    let (tmp, mut f) = (0u32..)
        .map(|n| dir.join(format!(".{name}.tmp-{}-{n}", std::process::id())))
        .find_map(
            |t| match fs::OpenOptions::new().write(true).create_new(true).open(&t) {
                Ok(f) => Some(Ok((t, f))),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => None,
                Err(e) => Some(Err(e)),
            },
        )
        .expect("an unused name")?;
    let res = fill(&mut f)
        .and_then(|_| f.sync_all())
        .and_then(|_| fs::rename(&tmp, path));
    if res.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    res?;
    sync_dir(dir);
    Ok(())
}

/// Takes `f`'s advisory lock without waiting, exclusive or shared; false
/// when another open file holds it exclusively (or, for exclusive, at all).
#[cfg(unix)]
fn try_lock(f: &File, exclusive: bool) -> bool {
    use std::os::unix::io::AsRawFd;
    let op = if exclusive {
        libc::LOCK_EX
    } else {
        libc::LOCK_SH
    };
    // SAFETY: flock on a descriptor this File owns; no memory is shared.
    unsafe { libc::flock(f.as_raw_fd(), op | libc::LOCK_NB) == 0 }
}

#[cfg(not(unix))]
fn try_lock(_: &File, _: bool) -> bool {
    true
}

/// What a lock file says of the command holding it (`pid N: losslab
/// ...`), and whether that command is this process.
fn holder(f: &mut File) -> (String, bool) {
    let mut text = String::new();
    let _ = f.read_to_string(&mut text);
    let text = text.trim().to_string();
    let mine = text.starts_with(&format!("pid {}:", std::process::id()));
    (text, mine)
}

/// Who holds the lock at `lock_path`, if another process does: a shared
/// lock taken and let go at once, which fails while an exclusive one is
/// held. Not a lock file (a link, missing): None.
fn busy(lock_path: &Path) -> Option<String> {
    if !fs::symlink_metadata(lock_path).is_ok_and(|m| m.file_type().is_file()) {
        return None;
    }
    let mut f = File::open(lock_path).ok()?;
    if try_lock(&f, false) {
        return None;
    }
    let (text, mine) = holder(&mut f);
    (!mine).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts<'a>(mode: Mode, force: bool, inputs: &'a [&'a Path]) -> Options<'a> {
        Options {
            flag: "--out",
            mode,
            force,
            inputs,
        }
    }

    fn stage_write(d: &OutDir, rel: &str, text: &str) {
        let p = d.stage().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    #[test]
    fn folder_names_never_leave_out() {
        for (label, want) in [
            ("bulk-20mbps", "bulk-20mbps"),
            ("/etc", "_etc"),
            ("../../x", "_._.._x"),
            ("..", "_."),
            (".hidden", "_hidden"),
            ("a/b\\c", "a_b_c"),
            ("", "scenario"),
            ("café", "café"),
        ] {
            assert_eq!(folder_name(label), want, "{label:?}");
            let p = default_folder(label, "");
            assert_eq!(p.components().count(), 2, "{}", p.display());
            assert!(p.starts_with("out"));
        }
        assert_eq!(folder_name(&"x".repeat(1000)).len(), 200);
        // Long names that differ only past the cut keep two folders, and
        // a command's suffix survives the cut.
        let (a, b) = ("x".repeat(300) + "a", "x".repeat(300) + "b");
        assert_ne!(folder_name(&a), folder_name(&b));
        assert_eq!(folder_name(&"é".repeat(300)).len(), 200 - 1);
        let linux = default_folder(&a, "-linux");
        assert!(linux.to_str().unwrap().ends_with("-linux"));
        assert_ne!(linux, default_folder(&a, ""));
    }

    #[test]
    fn a_new_folder_is_made_and_results_land_whole() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("a/b");
        let d = OutDir::open(&root, opts(Mode::Fresh, false, &[])).unwrap();
        stage_write(&d, "summary.json", "{}");
        stage_write(&d, "plots/x.svg", "<svg/>");
        assert!(!root.join("summary.json").exists(), "staged, not yet moved");
        let w = d.commit().unwrap();
        assert_eq!(w.len(), 2);
        assert_eq!(
            fs::read_to_string(root.join("plots/x.svg")).unwrap(),
            "<svg/>"
        );
        assert!(!root.join(META).join(STAGE).exists());
    }

    #[test]
    fn a_foreign_folder_is_refused_untouched() {
        let t = tempfile::tempdir().unwrap();
        fs::create_dir_all(t.path().join("plots")).unwrap();
        fs::write(t.path().join("plots/fig.svg"), "mine").unwrap();
        let e = OutDir::open(t.path(), opts(Mode::Fresh, false, &[]))
            .err()
            .unwrap();
        assert!(
            matches!(&e, Failure::BadInput(m) if m.contains("--force")),
            "{e}"
        );
        assert!(!t.path().join(META).exists(), "nothing written");
        // With --force, beside the user's files; theirs survive a rerun.
        for _ in 0..2 {
            let d = OutDir::open(t.path(), opts(Mode::Fresh, true, &[])).unwrap();
            stage_write(&d, "plots/tsg-a.svg", "ours");
            d.commit().unwrap();
        }
        assert_eq!(
            fs::read_to_string(t.path().join("plots/fig.svg")).unwrap(),
            "mine"
        );
    }

    #[test]
    fn fresh_deletes_only_what_it_can_prove_it_wrote() {
        let t = tempfile::tempdir().unwrap();
        let d = OutDir::open(t.path(), opts(Mode::Fresh, false, &[])).unwrap();
        stage_write(&d, "timeseries.csv", "old");
        stage_write(&d, "packets.csv", "old");
        stage_write(&d, "summary.json", "old");
        d.commit().unwrap();
        fs::write(t.path().join("notes.md"), "mine").unwrap();
        // The user edits one of ours: it is theirs now.
        fs::write(t.path().join("packets.csv"), "edited by hand").unwrap();
        let d = OutDir::open(t.path(), opts(Mode::Fresh, false, &[])).unwrap();
        stage_write(&d, "summary.json", "new");
        d.commit().unwrap();
        assert!(!t.path().join("timeseries.csv").exists(), "stale, ours");
        assert_eq!(
            fs::read_to_string(t.path().join("summary.json")).unwrap(),
            "new"
        );
        assert_eq!(
            fs::read_to_string(t.path().join("packets.csv")).unwrap(),
            "edited by hand"
        );
        assert_eq!(
            fs::read_to_string(t.path().join("notes.md")).unwrap(),
            "mine"
        );
    }

    #[test]
    fn a_changed_file_in_the_way_is_refused_unless_forced() {
        let t = tempfile::tempdir().unwrap();
        let d = OutDir::open(t.path(), opts(Mode::Fresh, false, &[])).unwrap();
        stage_write(&d, "summary.json", "ours");
        d.commit().unwrap();
        fs::write(t.path().join("summary.json"), "edited").unwrap();
        let d = OutDir::open(t.path(), opts(Mode::Fresh, false, &[])).unwrap();
        assert!(d.claim(&["summary.json"]).is_err());
        stage_write(&d, "summary.json", "new");
        assert!(d.commit().is_err());
        assert_eq!(
            fs::read_to_string(t.path().join("summary.json")).unwrap(),
            "edited"
        );
        let d = OutDir::open(t.path(), opts(Mode::Fresh, true, &[])).unwrap();
        stage_write(&d, "summary.json", "new");
        d.commit().unwrap();
        assert_eq!(
            fs::read_to_string(t.path().join("summary.json")).unwrap(),
            "new"
        );
    }

    #[test]
    fn an_input_is_never_replaced_even_forced() {
        let t = tempfile::tempdir().unwrap();
        let d = OutDir::open(t.path(), opts(Mode::Fresh, false, &[])).unwrap();
        stage_write(&d, "scenario.toml", "# as run");
        d.commit().unwrap();
        let input = t.path().join("scenario.toml");
        let inputs = [input.as_path()];
        for force in [false, true] {
            let d = OutDir::open(t.path(), opts(Mode::Fresh, force, &inputs)).unwrap();
            let e = d.claim(&["scenario.toml"]).unwrap_err();
            assert!(
                matches!(&e, Failure::BadInput(m) if m.contains("reads")),
                "{e}"
            );
        }
        // Nor deleted as a stale file of an earlier run.
        let d = OutDir::open(t.path(), opts(Mode::Fresh, false, &inputs)).unwrap();
        stage_write(&d, "summary.json", "x");
        d.commit().unwrap();
        assert!(input.exists());
    }

    #[test]
    fn a_busy_folder_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let d = OutDir::open(t.path(), opts(Mode::Fresh, false, &[])).unwrap();
        let e = OutDir::open(t.path(), opts(Mode::Fresh, false, &[]))
            .err()
            .unwrap();
        // The same process: it names the folder twice (another process
        // is told the holder: tests/integration/reliability.rs).
        assert!(
            matches!(&e, Failure::BadInput(m) if m.contains("twice")),
            "{e}"
        );
        drop(d);
        OutDir::open(t.path(), opts(Mode::Fresh, false, &[])).unwrap();
    }

    #[test]
    fn add_mode_keeps_the_earlier_files() {
        let t = tempfile::tempdir().unwrap();
        let d = OutDir::open(t.path(), opts(Mode::Fresh, false, &[])).unwrap();
        stage_write(&d, "summary.json", "run");
        d.commit().unwrap();
        let d = OutDir::open(t.path(), opts(Mode::Add, false, &[])).unwrap();
        stage_write(&d, "plots/a.svg", "plot");
        d.commit().unwrap();
        assert!(t.path().join("summary.json").exists());
        assert!(t.path().join("plots/a.svg").exists());
    }

    #[test]
    fn a_dropped_command_leaves_the_old_results() {
        let t = tempfile::tempdir().unwrap();
        let d = OutDir::open(t.path(), opts(Mode::Fresh, false, &[])).unwrap();
        stage_write(&d, "summary.json", "good");
        d.commit().unwrap();
        let d = OutDir::open(t.path(), opts(Mode::Fresh, false, &[])).unwrap();
        stage_write(&d, "summary.json", "half");
        drop(d);
        assert_eq!(
            fs::read_to_string(t.path().join("summary.json")).unwrap(),
            "good"
        );
        assert!(!t.path().join(META).join(STAGE).exists());
    }

    /// A commit killed between its renames leaves entries marked moving:
    /// the next command takes them as losslab's, whatever they hold.
    #[test]
    fn a_commit_cut_short_leaves_files_losslab_still_owns() {
        let t = tempfile::tempdir().unwrap();
        let d = OutDir::open(t.path(), opts(Mode::Fresh, false, &[])).unwrap();
        stage_write(&d, "summary.json", "old");
        stage_write(&d, "packets.csv", "old");
        d.commit().unwrap();
        // As a kill after the first rename would leave it.
        fs::write(t.path().join("packets.csv"), "new, other length").unwrap();
        let m = t.path().join(META).join(MANIFEST);
        let text = fs::read_to_string(&m).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        for (_, e) in v["files"].as_object_mut().unwrap() {
            e["moving"] = serde_json::Value::Bool(true);
        }
        fs::write(&m, v.to_string()).unwrap();
        let d = OutDir::open(t.path(), opts(Mode::Fresh, false, &[])).unwrap();
        d.claim(&["packets.csv", "summary.json"]).unwrap();
        stage_write(&d, "summary.json", "newer");
        d.commit().unwrap();
        assert!(!t.path().join("packets.csv").exists());
        assert_eq!(
            fs::read_to_string(t.path().join("summary.json")).unwrap(),
            "newer"
        );
    }

    #[test]
    fn a_refused_command_leaves_the_folder_as_it_was() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("new");
        let d = OutDir::open(&root, opts(Mode::Fresh, false, &[])).unwrap();
        drop(d);
        assert!(!root.exists(), "made and given back");
        fs::create_dir(&root).unwrap();
        fs::write(root.join("x"), "mine").unwrap();
        let d = OutDir::open(&root, opts(Mode::Fresh, true, &[])).unwrap();
        drop(d);
        assert!(
            !root.join(META).exists(),
            "a --force that wrote nothing adopts nothing"
        );
    }

    #[test]
    fn atomic_writes_leave_no_temporary_file() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("x.json");
        write_atomic(&p, b"1").unwrap();
        write_atomic(&p, b"2").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "2");
        assert_eq!(fs::read_dir(t.path()).unwrap().count(), 1);
        // Into a folder that does not exist: an error, and nothing left.
        assert!(write_atomic(&t.path().join("no/x"), b"1").is_err());
    }
}
