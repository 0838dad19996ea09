//! No module-level import circles in the workspace.
//!
//! A circle is a set of modules of one crate each of which, through
//! `crate::`, `super::` or `self::` paths (in `use` or inline), reaches the
//! others: module A names something of module B and B of A, or A -> B -> C
//! -> A. A module naming its own ancestor (a room of a folder naming the
//! folder's `mod.rs`, `mod tests { use super::*; }`) is containment, not an
//! import, and is not counted; a crate root's `pub use` re-exports are
//! followed to the module that defines the name. Comments, strings and
//! character literals are skipped.
//!
//! Not seen: a bare path through a glob import of an ancestor
//! (`use super::*;` then `sibling::f()`; no module of the workspace
//! glob-imports its parent). A re-export below a crate root counts as the
//! re-exporting module (`crate::sim::Tracer` is an edge to `sim`).
//!
//! `cargo test --test import_circles -- --nocapture` prints the graph's
//! circles (none) and its size.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Colons,
    Open,
    Close,
    Comma,
    Semi,
    Star,
    Other,
}

/// Identifiers and the punctuation paths and blocks are made of; comments,
/// strings (plain, byte, raw), char literals and lifetimes are dropped.
fn lex(src: &str) -> Vec<Tok> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 1;
            i += 2;
            while i < b.len() && depth > 0 {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                } else {
                    i += 1;
                }
            }
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if (c == b'r' || (c == b'b' && b.get(i + 1) == Some(&b'r')))
            && raw_string_start(b, i + usize::from(c == b'b')).is_some()
        {
            let start = i + usize::from(c == b'b');
            let hashes = raw_string_start(b, start).unwrap();
            i = start + 1 + hashes + 1;
            loop {
                if i >= b.len() {
                    break;
                }
                if b[i] == b'"'
                    && b[i + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&h| h == b'#')
                        .count()
                        == hashes
                {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
        } else if c == b'\'' {
            // A char literal ('x', '\n', '\u{..}', '{') or a lifetime ('a).
            if b.get(i + 1) == Some(&b'\\') {
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            } else if b.get(i + 2) == Some(&b'\'') {
                i += 3;
            } else {
                let ch_len = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                if b.get(i + 1 + ch_len) == Some(&b'\'') {
                    i += 2 + ch_len;
                } else {
                    i += 1;
                    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                        i += 1;
                    }
                }
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &src[s..i];
            if (word == "b") && b.get(i) == Some(&b'\'') {
                continue; // b'x': the quote is lexed next as a char literal
            }
            if word == "b" && b.get(i) == Some(&b'"') {
                continue;
            }
            out.push(Tok::Ident(word.trim_start_matches("r#").to_string()));
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                if b[i] == b'.' && !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    break;
                }
                i += 1;
            }
            out.push(Tok::Other);
        } else {
            i += 1;
            out.push(match c {
                b':' if b.get(i) == Some(&b':') => {
                    i += 1;
                    Tok::Colons
                }
                b'{' => Tok::Open,
                b'}' => Tok::Close,
                b',' => Tok::Comma,
                b';' => Tok::Semi,
                b'*' => Tok::Star,
                c if c.is_ascii_whitespace() => continue,
                _ => Tok::Other,
            });
        }
    }
    out
}

/// `r"`, `r#"`, `r##"`...: the number of hashes, if a raw string starts at `i`.
fn raw_string_start(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'r') {
        return None;
    }
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') && b[i - 1] != b'b' {
        return None;
    }
    let mut j = i + 1;
    while b.get(j) == Some(&b'#') {
        j += 1;
    }
    (b.get(j) == Some(&b'"')).then_some(j - i - 1)
}

/// Every path tree starting at `t[i]` (an identifier), expanded:
/// `a::{b, c::{d, e}}` gives `a::b`, `a::c::d`, `a::c::e`.
fn paths_at(t: &[Tok], mut i: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix.to_vec();
    loop {
        match t.get(i) {
            Some(Tok::Ident(w)) => {
                path.push(w.clone());
                i += 1;
            }
            Some(Tok::Star) => {
                out.push(path);
                return i + 1;
            }
            Some(Tok::Open) => {
                i += 1;
                while i < t.len() && t[i] != Tok::Close {
                    if matches!(t[i], Tok::Ident(_) | Tok::Star | Tok::Open) {
                        i = paths_at(t, i, &path, out);
                    } else {
                        i += 1;
                    }
                }
                return i + 1;
            }
            _ => {
                out.push(path);
                return i;
            }
        }
        if t.get(i) == Some(&Tok::Colons) {
            i += 1;
        } else {
            out.push(path);
            return i;
        }
    }
}

struct Crate {
    modules: BTreeSet<Module>,
    /// A crate root's `pub use m::Name`: `Name` -> `m`.
    reexports: BTreeMap<String, Module>,
    /// (from, to) -> first file that shows it.
    edges: BTreeMap<(Module, Module), String>,
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn file_module(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut m: Module = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        m.pop();
    }
    m
}

/// The module a path resolved against `here` lands in, if it is a
/// `crate::`/`super::`/`self::` path.
fn resolve(c: &Crate, here: &Module, p: &[String]) -> Option<Module> {
    let mut base: Module = match p.first()?.as_str() {
        "crate" => Vec::new(),
        "self" => here.clone(),
        "super" => here.clone(),
        _ => return None,
    };
    let mut rest = &p[1..];
    if p[0] == "super" {
        base.pop();
        while rest.first().map(String::as_str) == Some("super") {
            base.pop();
            rest = &rest[1..];
        }
    }
    let mut m = base;
    for seg in rest {
        let mut next = m.clone();
        next.push(seg.clone());
        if c.modules.contains(&next) {
            m = next;
        } else {
            if m.is_empty() {
                if let Some(r) = c.reexports.get(seg) {
                    return Some(r.clone());
                }
            }
            break;
        }
    }
    Some(m)
}

fn scan_crate(src: &Path) -> Crate {
    let mut files = Vec::new();
    rs_files(src, &mut files);
    files.sort();
    let mut c = Crate {
        modules: BTreeSet::new(),
        reexports: BTreeMap::new(),
        edges: BTreeMap::new(),
    };
    let lexed: Vec<(PathBuf, Module, Vec<Tok>)> = files
        .iter()
        .map(|f| {
            (
                f.clone(),
                file_module(src, f),
                lex(&std::fs::read_to_string(f).unwrap()),
            )
        })
        .collect();
    // Modules: one per file, plus inline `mod name {`.
    for (_, m, t) in &lexed {
        c.modules.insert(m.clone());
        walk(t, m, &mut |inner, _| {
            c.modules.insert(inner.clone());
        });
    }
    // The crate root's re-exports.
    for (_, m, t) in &lexed {
        if !m.is_empty() {
            continue;
        }
        for w in t.windows(3) {
            if let [Tok::Ident(p), Tok::Ident(u), Tok::Ident(_)] = w {
                if p == "pub" && u == "use" {
                    let at = t.iter().position(|x| std::ptr::eq(x, &w[2])).unwrap();
                    let mut ps = Vec::new();
                    paths_at(t, at, &[], &mut ps);
                    for p in ps {
                        if p.len() >= 2 {
                            let module: Module = p[..p.len() - 1].to_vec();
                            if c.modules.contains(&module) {
                                c.reexports.insert(p.last().unwrap().clone(), module);
                            }
                        }
                    }
                }
            }
        }
    }
    for (f, m, t) in &lexed {
        let mut refs: Vec<(Module, Vec<String>)> = Vec::new();
        walk(t, m, &mut |here, (toks, i)| {
            if let Some(Tok::Ident(w)) = toks.get(i) {
                let starts = matches!(w.as_str(), "crate" | "super" | "self")
                    && toks.get(i + 1) == Some(&Tok::Colons)
                    && (i == 0 || toks[i - 1] != Tok::Colons);
                if starts {
                    let mut ps = Vec::new();
                    paths_at(toks, i, &[], &mut ps);
                    for p in ps {
                        refs.push((here.clone(), p));
                    }
                }
            }
        });
        for (here, p) in refs {
            let Some(to) = resolve(&c, &here, &p) else {
                continue;
            };
            if to == here || here.starts_with(&to) {
                continue; // itself, or containment (an ancestor)
            }
            let name = f
                .strip_prefix(src.parent().unwrap().parent().unwrap())
                .unwrap_or(f);
            c.edges
                .entry((here, to))
                .or_insert_with(|| name.display().to_string());
        }
    }
    c
}

/// Sees each token with the module it is in: `(module, (tokens, index))`.
type Visit<'a> = dyn FnMut(&Module, (&[Tok], usize)) + 'a;

/// Calls `on(module, (tokens, index))` for every token with the module it is
/// in (following inline `mod name { ... }`); `on` sees inline modules'
/// starts as well.
fn walk(t: &[Tok], file: &Module, on: &mut Visit) {
    // (module, brace depth at which it closes)
    let mut stack: Vec<(Module, usize)> = vec![(file.clone(), usize::MAX)];
    let mut depth = 0usize;
    let mut i = 0;
    while i < t.len() {
        let here = stack.last().unwrap().0.clone();
        match &t[i] {
            Tok::Ident(w) if w == "mod" => {
                if let (Some(Tok::Ident(name)), Some(Tok::Open)) = (t.get(i + 1), t.get(i + 2)) {
                    let mut inner = here.clone();
                    inner.push(name.clone());
                    on(&inner, (t, usize::MAX));
                    depth += 1;
                    stack.push((inner, depth));
                    i += 3;
                    continue;
                }
            }
            Tok::Open => depth += 1,
            Tok::Close => {
                if stack.last().unwrap().1 == depth {
                    stack.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        on(&here, (t, i));
        i += 1;
    }
}

/// Strongly connected components with more than one module (Tarjan).
fn circles(edges: &BTreeMap<(Module, Module), String>) -> Vec<Vec<Module>> {
    let mut nodes: BTreeSet<&Module> = BTreeSet::new();
    for (a, b) in edges.keys() {
        nodes.insert(a);
        nodes.insert(b);
    }
    let nodes: Vec<&Module> = nodes.into_iter().collect();
    let idx: BTreeMap<&Module, usize> = nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let mut adj = vec![Vec::new(); nodes.len()];
    for (a, b) in edges.keys() {
        adj[idx[a]].push(idx[b]);
    }
    struct T<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for k in 0..t.adj[v].len() {
            let w = t.adj[v][k];
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on[w] => t.low[v] = t.low[v].min(iw),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut scc = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                t.out.push(scc);
            }
        }
    }
    let n = nodes.len();
    let mut t = T {
        adj: &adj,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    let mut out: Vec<Vec<Module>> = t
        .out
        .into_iter()
        .map(|s| s.into_iter().map(|i| nodes[i].clone()).collect())
        .collect();
    out.sort();
    out
}

fn show(krate: &str, m: &Module) -> String {
    std::iter::once(krate.replace('-', "_"))
        .chain(m.iter().cloned())
        .collect::<Vec<_>>()
        .join("::")
}

/// Every crate's circles, as text, one line per circle.
fn workspace_circles() -> (Vec<String>, usize) {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&crates)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    names.sort();
    let mut found = Vec::new();
    let mut edges = 0;
    for dir in names {
        let krate = dir.file_name().unwrap().to_string_lossy().into_owned();
        let c = scan_crate(&dir.join("src"));
        edges += c.edges.len();
        for scc in circles(&c.edges) {
            let members: BTreeSet<&Module> = scc.iter().collect();
            let why: Vec<String> = c
                .edges
                .iter()
                .filter(|((a, b), _)| members.contains(a) && members.contains(b))
                .map(|((a, b), f)| format!("{} -> {} ({f})", show(&krate, a), show(&krate, b)))
                .collect();
            found.push(format!(
                "{{{}}}: {}",
                scc.iter()
                    .map(|m| show(&krate, m))
                    .collect::<Vec<_>>()
                    .join(", "),
                why.join("; ")
            ));
        }
    }
    (found, edges)
}

#[test]
fn no_module_import_circles() {
    let (found, edges) = workspace_circles();
    println!(
        "{edges} module-to-module import edges; circles: {}",
        found.len()
    );
    for f in &found {
        println!("  {f}");
    }
    assert!(
        edges > 50,
        "the scan found too few imports to be believed ({edges})"
    );
    assert!(
        found.is_empty(),
        "module import circles:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_sees_a_circle_when_there_is_one() {
    let a: Module = vec!["a".into()];
    let b: Module = vec!["b".into()];
    let c: Module = vec!["c".into()];
    let mut e = BTreeMap::new();
    e.insert((a.clone(), b.clone()), String::new());
    e.insert((b.clone(), c.clone()), String::new());
    e.insert((c.clone(), a.clone()), String::new());
    assert_eq!(circles(&e), vec![vec![a.clone(), b.clone(), c.clone()]]);
    let t = lex("use super::{x::{self, Y}, z}; // crate::q\nfn f() { let s = \"crate::w\"; let c = '{'; crate::v::f(); }");
    let mut ps = Vec::new();
    paths_at(&t, 1, &[], &mut ps);
    let s = |p: &[&str]| p.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        ps,
        vec![
            s(&["super", "x", "self"]),
            s(&["super", "x", "Y"]),
            s(&["super", "z"])
        ]
    );
    let crates: Vec<&Tok> = t
        .iter()
        .filter(|x| **x == Tok::Ident("crate".into()))
        .collect();
    assert_eq!(crates.len(), 1, "comments and strings are skipped");
}
