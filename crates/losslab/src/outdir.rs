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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    // A file name's usual limit is 255 bytes.
    while s.len() > 200 {
        s.pop();
    }
    if s.is_empty() {
        s.push_str("scenario");
    }
    s
}

/// The default output folder of a scenario named `label`: `out/<name>`
/// with `suffix` appended (`-linux`), always one level below `out/`.
pub fn default_folder(label: &str, suffix: &str) -> PathBuf {
    Path::new("out").join(folder_name(&format!("{label}{suffix}")))
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
    /// makes it if it is missing, and takes its lock. Nothing is written
    /// into a folder that is refused.
    pub fn open(root: &Path, o: Options) -> Result<OutDir, Failure> {
        let shown = root.display();
        let flag = o.flag;
        if root.exists() && !root.is_dir() {
            return Err(Failure::BadInput(format!(
                "{flag} {shown}: exists and is not a folder"
            )));
        }
        let meta = root.join(META);
        let ours = meta.join(MANIFEST).is_file();
        if root.exists() && !ours && !o.force {
            if let Some(first) = foreign_entry(root)? {
                return Err(Failure::BadInput(format!(
                    "{flag} {shown}: the folder holds files losslab did not write ({first:?} among them); \
                     choose another folder, or add --force to write beside them \
                     (losslab then replaces only files named as its results and deletes nothing of yours)"
                )));
            }
        }
        fs::create_dir_all(&meta).map_err(|e| runtime("create", &meta, e))?;
        let lock_path = meta.join(LOCK);
        let mut lock = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(|e| runtime("open", &lock_path, e))?;
        if !try_lock(&lock) {
            let mut holder = String::new();
            let _ = lock.read_to_string(&mut holder);
            let holder = holder.trim();
            return Err(Failure::BadInput(format!(
                "{flag} {shown}: another losslab command is writing into this folder{}; \
                 wait for it to end or choose another folder",
                if holder.is_empty() {
                    String::new()
                } else {
                    format!(" ({holder})")
                }
            )));
        }
        let _ = lock.set_len(0);
        let args: Vec<String> = std::env::args().collect();
        let _ = write!(lock, "pid {}: {}", std::process::id(), args.join(" "));
        let manifest = read_manifest(&meta.join(MANIFEST))?;
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
        };
        // What a killed command staged is garbage: it never became a result.
        for p in [d.stage(), d.scratch()] {
            if p.exists() {
                fs::remove_dir_all(&p).map_err(|e| runtime("remove", &p, e))?;
            }
            fs::create_dir_all(&p).map_err(|e| runtime("create", &p, e))?;
        }
        if !ours {
            d.save()?;
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

    /// Whether the file at `rel` is what losslab last wrote there.
    fn provably_ours(&self, key: &str, meta: &fs::Metadata) -> bool {
        match self.manifest.files.get(key) {
            Some(e) if e.live => true,
            Some(e) => e.len == Some(meta.len()) && e.mtime_ns == mtime_ns(meta),
            None => false,
        }
    }

    fn is_input(&self, p: &Path) -> bool {
        file_id(p).is_some_and(|id| self.inputs.contains(&id))
    }

    fn may_replace(&self, rel: &Path) -> Result<(), Failure> {
        let key = key_of(rel).ok_or_else(|| {
            Failure::Runtime(format!("{}: not a path inside the folder", rel.display()))
        })?;
        let target = self.root.join(rel);
        let Ok(meta) = fs::symlink_metadata(&target) else {
            return Ok(());
        };
        if self.is_input(&target) {
            return Err(Failure::BadInput(format!(
                "{} {}: losslab would replace {}, which this command reads; \
                 choose another folder, or move the file",
                self.flag,
                self.root.display(),
                target.display()
            )));
        }
        if meta.is_dir() && !meta.file_type().is_symlink() {
            return Err(Failure::BadInput(format!(
                "{} {}: {} is a folder where losslab writes a file",
                self.flag,
                self.root.display(),
                target.display()
            )));
        }
        if self.force || self.provably_ours(&key, &meta) {
            return Ok(());
        }
        Err(Failure::BadInput(format!(
            "{} {}: {} is not the file losslab wrote there (it was written or changed since); \
             move it, choose another folder, or add --force to replace it",
            self.flag,
            self.root.display(),
            target.display()
        )))
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
        self.manifest.files.insert(
            key.clone(),
            Entry {
                len: Some(m.len()),
                mtime_ns: mtime_ns(&m),
                live: false,
            },
        );
        self.outside_stage.push(key);
        self.save()
    }

    /// Where to write a second folder the command was given (`--pcap
    /// DIR`): inside this one's stage when DIR is inside this folder, so
    /// its files land with the rest; else DIR opened on its own, with the
    /// same rules (commit it too).
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

    /// A file the command appends to in place, outside the stage (a
    /// sweep's results.jsonl, which must survive a kill). Recorded in the
    /// manifest before it is created. In [`Mode::Fresh`] an earlier copy
    /// is deleted first.
    pub fn live(&mut self, name: &str) -> Result<PathBuf, Failure> {
        let rel = Path::new(name);
        let key = key_of(rel).expect("a plain name");
        let target = self.root.join(rel);
        let known_live = self.manifest.files.get(&key).is_some_and(|e| e.live);
        if !known_live || self.mode == Mode::Fresh {
            self.may_replace(rel)?;
        }
        if self.mode == Mode::Fresh && target.exists() {
            fs::remove_file(&target).map_err(|e| runtime("remove", &target, e))?;
        }
        self.manifest.files.insert(
            key.clone(),
            Entry {
                len: None,
                mtime_ns: None,
                live: true,
            },
        );
        self.outside_stage.push(key);
        self.save()?;
        Ok(target)
    }

    /// Moves every staged file into place (fsync, then rename over the
    /// old copy), records it, and in [`Mode::Fresh`] deletes what an
    /// earlier run left that this one did not write again. Returns the
    /// files written, as paths in the folder.
    pub fn commit(mut self) -> Result<Vec<PathBuf>, Failure> {
        let stage = self.stage();
        let staged = walk(&stage)?;
        // Every conflict is found before the first file moves.
        for rel in &staged {
            self.may_replace(rel)?;
        }
        let mut written = Vec::new();
        let mut dirs_touched: Vec<PathBuf> = vec![self.root.clone()];
        for rel in &staged {
            let from = stage.join(rel);
            let to = self.root.join(rel);
            File::open(&from)
                .and_then(|f| f.sync_all())
                .map_err(|e| runtime("write", &to, e))?;
            if let Some(parent) = rel.parent().filter(|p| !p.as_os_str().is_empty()) {
                self.make_dirs(parent)?;
                let d = self.root.join(parent);
                if !dirs_touched.contains(&d) {
                    dirs_touched.push(d);
                }
            }
            fs::rename(&from, &to).map_err(|e| runtime("write", &to, e))?;
            let m = fs::metadata(&to).map_err(|e| runtime("read", &to, e))?;
            self.manifest.files.insert(
                key_of(rel).expect("walked from the stage"),
                Entry {
                    len: Some(m.len()),
                    mtime_ns: mtime_ns(&m),
                    live: false,
                },
            );
            written.push(to);
        }
        if self.mode == Mode::Fresh {
            let new: Vec<String> = staged.iter().filter_map(|r| key_of(r)).collect();
            let old: Vec<String> = self.manifest.files.keys().cloned().collect();
            for key in old {
                if new.contains(&key) || self.outside_stage.contains(&key) {
                    continue;
                }
                let p = self.root.join(&key);
                match fs::symlink_metadata(&p) {
                    Err(_) => {
                        self.manifest.files.remove(&key);
                    }
                    Ok(m) if self.provably_ours(&key, &m) && !self.is_input(&p) => {
                        fs::remove_file(&p).map_err(|e| runtime("remove", &p, e))?;
                        self.manifest.files.remove(&key);
                    }
                    // Changed since losslab wrote it: the user's now.
                    Ok(_) => {
                        self.manifest.files.remove(&key);
                    }
                }
            }
            // Folders losslab made, once nothing is left in them.
            let mut dirs = std::mem::take(&mut self.manifest.dirs);
            dirs.sort_by_key(|d| std::cmp::Reverse(d.len()));
            dirs.retain(|d| fs::remove_dir(self.root.join(d)).is_err());
            dirs.sort();
            self.manifest.dirs = dirs;
        }
        for d in &dirs_touched {
            sync_dir(d);
        }
        self.save()?;
        self.committed = true;
        let _ = fs::remove_dir_all(&stage);
        let _ = fs::remove_dir_all(self.scratch());
        Ok(written)
    }

    fn make_dirs(&mut self, rel: &Path) -> Result<(), Failure> {
        let mut at = PathBuf::new();
        for c in rel.components() {
            at.push(c);
            let p = self.root.join(&at);
            if p.is_dir() {
                continue;
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
        let meta = self.root.join(META);
        write_atomic(&meta.join(MANIFEST), format!("{text}\n").as_bytes())
            .map_err(|e| runtime("write", &meta.join(MANIFEST), e))
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        // A command that failed before commit leaves no half-staged files
        // behind (the next command would remove them anyway).
        if !self.committed {
            let _ = fs::remove_dir_all(self.stage());
        }
        let _ = fs::remove_dir_all(self.scratch());
    }
}

/// `path` made absolute and without `.` or `..` parts, for comparing two
/// paths the user gave.
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
    match fs::read_to_string(p) {
        Err(_) => Ok(Manifest::default()),
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            Failure::BadInput(format!(
                "{}: not a losslab manifest ({e}); losslab cannot tell its files from yours here: \
                 choose another folder",
                p.display()
            ))
        }),
    }
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
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or_else(|| "file".to_string(), |n| n.to_string_lossy().to_string());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let res = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if res.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    res?;
    sync_dir(dir);
    Ok(())
}

#[cfg(unix)]
fn try_lock(f: &File) -> bool {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor this File owns; no memory is shared.
    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

#[cfg(not(unix))]
fn try_lock(_: &File) -> bool {
    true
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
        assert!(
            matches!(&e, Failure::BadInput(m) if m.contains("another losslab command")),
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
