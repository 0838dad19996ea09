//! The engine id (`losslab_sim::ENGINE_ID`): a hash of everything that
//! decides a run's numbers, i.e. the engine's two crates (losslab-core,
//! losslab-sim: their sources and manifests) and the workspace's
//! Cargo.lock (the versions of rand and friends). The package version
//! alone does not change between commits, so a rebuilt engine could not be
//! told apart from the old one: a sweep resumed by it, or a Ray cluster
//! running an older wheel, would mix two engines' runs in one table
//! (issue 33). The same checkout gives the same id whatever the profile,
//! the compiler or the machine: the command line built by `cargo test` and
//! the wheel built by maturin agree, as they must for `--ray`.
//!
//! FNV-1a over (path, length, bytes) in path order: any edit, rename,
//! added or removed file changes it. No cryptographic strength is needed:
//! the id guards against accidents, not adversaries.

use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let core = here.join("../losslab-core");
    let lock = here.join("../../Cargo.lock");
    let mut files = Vec::new();
    for (root, name) in [(&here, "losslab-sim"), (&core, "losslab-core")] {
        files.push((format!("{name}/Cargo.toml"), root.join("Cargo.toml")));
        collect(&root.join("src"), &format!("{name}/src"), &mut files);
        // A directory makes cargo rerun this script when anything in it
        // changes (cargo scans it recursively).
        println!("cargo:rerun-if-changed={}", root.join("src").display());
        println!(
            "cargo:rerun-if-changed={}",
            root.join("Cargo.toml").display()
        );
    }
    if lock.is_file() {
        files.push(("Cargo.lock".into(), lock.clone()));
        println!("cargo:rerun-if-changed={}", lock.display());
    }
    files.sort();
    let mut h = Fnv::new();
    for (name, path) in &files {
        let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        h.write(name.as_bytes());
        h.write(&[0]);
        h.write(&(bytes.len() as u64).to_le_bytes());
        h.write(&bytes);
    }
    println!("cargo:rustc-env=LOSSLAB_ENGINE_ID={:016x}", h.0);
}

/// Every file under `dir`, named `prefix/relative/path` with `/`.
fn collect(dir: &Path, prefix: &str, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = format!("{prefix}/{}", e.file_name().to_string_lossy());
        if p.is_dir() {
            collect(&p, &name, out);
        } else {
            out.push((name, p));
        }
    }
}

struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}
