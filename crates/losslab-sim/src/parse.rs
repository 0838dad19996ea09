//! Scenario files (../../docs/SCENARIO.md) -> `Scenario`.
//!
//! The TOML is walked by hand rather than through serde derive so that
//! every error can name the full dotted key (`flow.a.receiver.ack`), list
//! the keys allowed where an unknown one was found, and tell a value given
//! by `--set` apart from one written in the file.

use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use losslab_core::time::{Time, SEC};
use toml::{Table, Value};

use losslab_core::cc::{
    Avoidance, HyStartMode, MinRttRefresh, SlowStart, VegasGate, VegasSsthresh, WestwoodSsthresh,
};
use losslab_core::detect::{ErMitigation, ErVariant, LeOrder, RackAdvance, ReoTimer};
use losslab_core::recovery::{AckRtt, NewRenoVariant, Or3Params, Overbooking, QarrUpdate};
use losslab_core::sndbuf::LinuxSndbuf;
use losslab_core::timers::{ProbeGate, ProbeRearm, Pto, TlpPto};
use losslab_core::{
    CwndGrowth, CwndValidation, FrtoMode, HandshakeRules, Pacing, PacingStart, RecoveryExit,
    RtoFormula, RtoSsthresh, RttSampling,
};

use crate::scenario::{
    AckSpec, AppSpec, Burst, BurstStart, CcSpec, DropSpec, EarlyRetransmitSpec, FlowSpec,
    LinkTrace, LossModel, PathSpec, QueueLimit, ReceiverSpec, Reorder, ReverseLink, ReverseSpec,
    Scenario,
};
use crate::units;

/// Enums that scenarios name by a string (`frto = "linux"`).
trait ByName: Sized {
    const NAMES: &'static [&'static str];
    fn by_name(name: &str) -> Option<Self>;
}

macro_rules! by_name {
    ($($t:ty),*) => {$(
        impl ByName for $t {
            const NAMES: &'static [&'static str] = <$t>::NAMES;
            fn by_name(name: &str) -> Option<Self> {
                <$t>::from_name(name)
            }
        }
    )*};
}
by_name!(
    ProbeGate,
    ProbeRearm,
    TlpPto,
    RtoFormula,
    HandshakeRules,
    FrtoMode,
    RtoSsthresh,
    RecoveryExit,
    Pacing,
    PacingStart,
    CwndValidation,
    RttSampling,
    CwndGrowth,
    SlowStart,
    Avoidance,
    WestwoodSsthresh,
    VegasGate,
    VegasSsthresh,
    AckRtt,
    QarrUpdate,
    NewRenoVariant,
    LeOrder,
    ReoTimer,
    RackAdvance,
    Pto,
    MinRttRefresh
);

/// A scenario that cannot be used, with where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file, or `<command line>` for a bad `--set`.
    pub file: String,
    /// The dotted key (`path.loss.p`), `--set KEY=VALUE` for a bad override,
    /// or "" when no single key is at fault (TOML syntax, unreadable file).
    pub key: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.key, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// The `file` of errors caused by a `--set` override.
pub const COMMAND_LINE: &str = "<command line>";

/// Reads and parses a scenario file, then applies `overrides` (each
/// `key=value`, as given to `--set`).
pub fn load_scenario(path: &Path, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let file = path.display().to_string();
    let text = read_text(path).map_err(|e| ScenarioError {
        file: file.clone(),
        key: String::new(),
        message: format!("cannot read the scenario: {e}"),
    })?;
    parse_scenario(&file, &text, overrides)
}

/// The largest scenario or sweep file read: far above any real one (a
/// million objects is 10 MB), far below what would exhaust memory.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Peak memory per byte of TOML while it is parsed, measured on the
/// worst inputs found (release build, peak RSS / file size): nested empty
/// arrays `[[[[1]]]]` 357, `{a=[1]}` 325, `[1],` 225, a flat `1,1,1` 106,
/// many `[table]` headers 48 (docs/BENCHMARKS.md, "Memory"). The parser
/// keeps each value with its span and formatting, then builds the table
/// from it, so the cost is per value, and short values cost most per byte.
pub const PARSE_BYTES_PER_BYTE: u64 = 400;

/// The memory limit the text read here is held to: the command's
/// `--max-memory` (or the default), set once before any input is read.
/// A global because the files are read before the command knows what it
/// will run, and by code that has no guard at hand (sweep files).
static PARSE_LIMIT: AtomicU64 = AtomicU64::new(u64::MAX);

/// Sets the limit [`read_text`] and [`parse_scenario`] hold TOML to.
pub fn set_parse_limit(bytes: u64) {
    PARSE_LIMIT.store(bytes.max(1), Ordering::Relaxed);
}

/// The limit set by [`set_parse_limit`] (u64::MAX when none was).
pub fn parse_limit() -> u64 {
    PARSE_LIMIT.load(Ordering::Relaxed)
}

/// TOML this short is parsed whatever the limit (at most 6.6 MB): the
/// examples are under 2 kB, and `--max-memory 1B` shows a run's estimate.
pub const PARSE_FREE_BYTES: u64 = 16 << 10;

/// What parsing `len` bytes of TOML may take in memory.
pub fn parse_cost(len: u64) -> u64 {
    len.saturating_mul(PARSE_BYTES_PER_BYTE)
}

/// The refusal of `len` bytes of TOML (`more` when only a lower bound of
/// the size is known) whose parse would need more than `limit`.
pub fn check_parse_cost(len: u64, more: bool, limit: u64) -> Result<(), String> {
    let need = parse_cost(len);
    if need <= limit || len <= PARSE_FREE_BYTES {
        return Ok(());
    }
    Err(format!(
        "{}{} of TOML would take about {} of memory to parse (up to {} bytes per byte of TOML), \
         over the limit of {}; make the file smaller, or raise the limit with --max-memory \
         (e.g. --max-memory {})",
        if more { "more than " } else { "" },
        crate::memory::human(len),
        crate::memory::human(need),
        PARSE_BYTES_PER_BYTE,
        crate::memory::human(limit),
        crate::memory::suggested_limit(need)
    ))
}

/// A text file's contents, at most [`MAX_INPUT_BYTES`] of them and at
/// most what the parse limit ([`set_parse_limit`]) lets be parsed: a file
/// that is larger, or a device that never ends (/dev/zero), is an error,
/// not a read that fills memory.
pub fn read_text(path: &Path) -> Result<String, String> {
    read_text_within(path, parse_limit())
}

/// As [`read_text`], against `limit` bytes of memory.
pub fn read_text_within(path: &Path, limit: u64) -> Result<String, String> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    // A regular file's size refuses it before a byte is read.
    if let Ok(m) = f.metadata() {
        if m.is_file() && m.len() <= MAX_INPUT_BYTES {
            check_parse_cost(m.len(), false, limit)?;
        }
    }
    let affordable = (limit / PARSE_BYTES_PER_BYTE).max(PARSE_FREE_BYTES);
    let cap = MAX_INPUT_BYTES.min(affordable);
    let mut buf = Vec::new();
    f.take(cap + 1)
        .read_to_end(&mut buf)
        .map_err(|e| e.to_string())?;
    if buf.len() as u64 > cap {
        if cap == affordable {
            // A file that grew since it was weighed is named by its size;
            // a device has none.
            if let Some(len) = std::fs::metadata(path)
                .ok()
                .filter(|m| m.is_file() && m.len() > cap)
                .map(|m| m.len())
            {
                return Err(check_parse_cost(len, false, limit)
                    .err()
                    .unwrap_or_default());
            }
            return Err(format!(
                "goes on past {:.1} MiB, the most TOML whose parse (up to {} bytes per byte) \
                 fits in the memory limit of {}; make it smaller, or raise the limit with \
                 --max-memory",
                cap as f64 / f64::from(1u32 << 20),
                PARSE_BYTES_PER_BYTE,
                crate::memory::human(limit)
            ));
        }
        return Err(format!(
            "larger than {} MiB, the most losslab reads as a scenario or sweep",
            MAX_INPUT_BYTES >> 20
        ));
    }
    String::from_utf8(buf).map_err(|e| format!("not UTF-8 text ({e})"))
}

/// Parses scenario TOML. `file` is used in error messages and its stem is
/// the scenario's default name. `overrides` are `key=value` strings applied
/// in order before anything is checked, so an override is validated
/// exactly like the key it replaces.
pub fn parse_scenario(
    file: &str,
    text: &str,
    overrides: &[String],
) -> Result<Scenario, ScenarioError> {
    parse_scenario_within(file, text, overrides, parse_limit())
}

/// As [`parse_scenario`], its parse held to `limit` bytes of memory.
pub fn parse_scenario_within(
    file: &str,
    text: &str,
    overrides: &[String],
    limit: u64,
) -> Result<Scenario, ScenarioError> {
    // Text that did not come through read_text (the Python package's, a
    // --set value) is held to the same limit.
    let len = overrides
        .iter()
        .fold(text.len() as u64, |a, o| a.saturating_add(o.len() as u64));
    check_parse_cost(len, false, limit).map_err(|message| ScenarioError {
        file: file.to_string(),
        key: String::new(),
        message,
    })?;
    let mut table: Table = toml::from_str(text).map_err(|e: toml::de::Error| ScenarioError {
        file: file.to_string(),
        key: String::new(),
        message: toml_message(text, &e),
    })?;
    let mut applied = Vec::with_capacity(overrides.len());
    for spec in overrides {
        applied.push(set(&mut table, spec).map_err(|message| ScenarioError {
            file: COMMAND_LINE.to_string(),
            key: format!("--set {spec}"),
            message,
        })?);
    }
    let cx = Cx {
        file,
        overrides: applied,
    };
    cx.scenario(&table)
}

/// Most characters of a line shown in a TOML error, around the column at
/// fault: the parser's own message echoes the whole line, hundreds of
/// kilobytes for a long one.
pub const SNIPPET_CHARS: usize = 200;

/// A TOML error as the parser words it (line, column, the line with a
/// caret, the message), with the line cut to [`SNIPPET_CHARS`] around
/// the error's column and "..." where it was cut.
pub fn toml_error(text: &str, span: Option<std::ops::Range<usize>>, message: &str) -> String {
    let message = message.trim_end();
    let Some(span) = span else {
        return format!("TOML parse error: {message}");
    };
    let at = floor_char(text, span.start.min(text.len()));
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line_no = text[..line_start].matches('\n').count() + 1;
    let line = text[line_start..line_end].trim_end_matches('\r');
    let col = text[line_start..at].chars().count();
    let half = SNIPPET_CHARS / 2;
    let from = col.saturating_sub(half);
    let shown: String = line.chars().skip(from).take(SNIPPET_CHARS).collect();
    let head = if from > 0 { "..." } else { "" };
    let tail = if line.chars().count() > from + SNIPPET_CHARS {
        "..."
    } else {
        ""
    };
    let caret = " ".repeat(head.len() + col - from);
    let gutter = " ".repeat(line_no.to_string().len());
    format!(
        "TOML parse error at line {line_no}, column {}\n{gutter} |\n{line_no} | {head}{shown}{tail}\n{gutter} | {caret}^\n{message}",
        col + 1
    )
}

fn floor_char(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A TOML syntax error's message. The parser's own for an integer past
/// 64 bits ("number too large to fit in target type") does not say where
/// the limit is, and a seed is the key most likely to reach it.
fn toml_message(text: &str, e: &toml::de::Error) -> String {
    let mut m = toml_error(text, e.span(), e.message());
    // The span may be empty or cover only the start of the number.
    let literal: String = e
        .span()
        .and_then(|s| text.get(s.start..))
        .unwrap_or("")
        .trim_start_matches(['+', '-'])
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '_')
        .filter(|c| *c != '_')
        .collect();
    if !literal.is_empty()
        && literal.bytes().all(|b| b.is_ascii_digit())
        && literal.parse::<i64>().is_err()
    {
        m.push_str(&format!(
            "\nTOML integers are at most {} (so is the largest seed allowed)",
            i64::MAX
        ));
    }
    m
}

/// The scenario text with the overrides applied, as TOML: what `losslab
/// run` stores as OUT/scenario.toml, so that the directory says exactly
/// what ran. (Comments and key order of the original are not kept.)
pub fn effective_toml(text: &str, overrides: &[String]) -> Result<String, String> {
    let mut table: Table = toml::from_str(text).map_err(|e: toml::de::Error| e.to_string())?;
    for spec in overrides {
        set(&mut table, spec)?;
    }
    toml::to_string(&table).map_err(|e| e.to_string())
}

/// Applies one `--set` override, `key=value`, to a parsed scenario table.
///
/// The value is read as a TOML value when it is one (`0.01`, `true`,
/// `"quoted"`, `[1, 2]`, `{ model = "none" }`) and as a bare string
/// otherwise (`100ms`, `rate-halving`). Missing intermediate tables are
/// created; `flow.NAME` selects the `[[flow]]` named NAME and `flow[I]`
/// the I-th (0-based). What is set is not checked here: the whole table is
/// validated afterwards, like a file.
pub fn apply_override(table: &mut Table, spec: &str) -> Result<(), String> {
    set(table, spec).map(|_| ())
}

/// What each `--set` key (the part before `=`) writes in scenario `text`,
/// one string per step (`flow.a.mss`, `flow[0].mss`, ` flow."a".mss` all
/// give `["flow", "[0]", "mss"]`), so that two spellings of one key can
/// be told apart from two keys. None for a key that does not parse or
/// names no flow of `text` (or for every key when `text` is not TOML):
/// applying it fails anyway.
pub fn override_targets(text: &str, keys: &[&str]) -> Vec<Option<Vec<String>>> {
    let table: Option<Table> = toml::from_str(text).ok();
    keys.iter()
        .map(|key| {
            let table = table.as_ref()?;
            let path = parse_key_path(key.trim()).ok()?;
            let target = resolve_flow(table, &path).ok()?;
            Some(
                target
                    .iter()
                    .map(|s| match s {
                        Seg::Key(k) => k.clone(),
                        Seg::Index(i) => format!("[{i}]"),
                    })
                    .collect(),
            )
        })
        .collect()
}

/// One step of a key path: a table key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// An override that was applied, so that errors in what it wrote are
/// blamed on the command line rather than on the file.
struct Applied {
    spec: String,
    /// The resolved path it set (`flow.a` becomes `flow[0]`).
    target: Vec<Seg>,
    /// The subtree that is entirely its doing: `target`, or the first
    /// table it had to create on the way there (`--set flow.a.qarr.x=1`
    /// owns `flow[0].qarr`, which the file never had).
    owned: Vec<Seg>,
}

const OVERRIDE_SYNTAX: &str =
    "expected KEY=VALUE, e.g. path.delay=100ms, path.loss.p=0.01 or flow.a.recovery=rfc6675";

fn set(table: &mut Table, spec: &str) -> Result<Applied, String> {
    let (key, raw) = spec.split_once('=').ok_or(OVERRIDE_SYNTAX)?;
    let key = key.trim();
    if key.is_empty() {
        return Err(OVERRIDE_SYNTAX.to_string());
    }
    let path = parse_key_path(key)?;
    let value = override_value(raw.trim());
    let target = resolve_flow(table, &path)?;

    let (last, parents) = target.split_last().expect("a key path is never empty");
    // Work on a copy so that a failed override leaves no half-made tables.
    let mut root = Value::Table(table.clone());
    let mut cur = &mut root;
    let mut here = String::new();
    let mut created_at = None;
    for (depth, seg) in parents.iter().enumerate() {
        cur = match (cur, seg) {
            (Value::Table(t), Seg::Key(k)) => {
                if !t.contains_key(k) && created_at.is_none() {
                    created_at = Some(depth + 1);
                }
                t.entry(k.clone())
                    .or_insert_with(|| Value::Table(Table::new()))
            }
            (Value::Array(a), Seg::Index(i)) => {
                let len = a.len();
                a.get_mut(*i).ok_or_else(|| {
                    format!("{here}[{i}] does not exist: {here} has {len} entries")
                })?
            }
            (other, seg) => return Err(not_a_container(&here, other, seg)),
        };
        push_seg(&mut here, seg);
    }
    match (cur, last) {
        (Value::Table(t), Seg::Key(k)) => {
            t.insert(k.clone(), value);
        }
        (Value::Array(a), Seg::Index(i)) => {
            let len = a.len();
            *a.get_mut(*i)
                .ok_or_else(|| format!("{here}[{i}] does not exist: {here} has {len} entries"))? =
                value;
        }
        (other, _) => return Err(not_a_container(&here, other, last)),
    }
    let Value::Table(t) = root else {
        unreachable!("the root stays a table")
    };
    *table = t;
    let owned = target[..created_at.unwrap_or(target.len())].to_vec();
    Ok(Applied {
        spec: spec.to_string(),
        target,
        owned,
    })
}

fn not_a_container(here: &str, v: &Value, seg: &Seg) -> String {
    let shown = if here.is_empty() {
        "the scenario"
    } else {
        here
    };
    match seg {
        Seg::Key(k) => format!(
            "cannot set {k:?} inside {shown}: {shown} is {}, not a table",
            describe(v)
        ),
        Seg::Index(i) => format!(
            "cannot index [{i}] into {shown}: {shown} is {}, not an array",
            describe(v)
        ),
    }
}

fn push_seg(shown: &mut String, seg: &Seg) {
    match seg {
        Seg::Key(k) => {
            if !shown.is_empty() {
                shown.push('.');
            }
            shown.push_str(&show_key(k));
        }
        Seg::Index(i) => shown.push_str(&format!("[{i}]")),
    }
}

/// A key as written in a dotted path: bare if TOML allows it, quoted
/// otherwise.
fn show_key(k: &str) -> String {
    let bare = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        k.to_string()
    } else {
        format!("{k:?}")
    }
}

/// Splits `flow.a.receiver.ack`, `flow[0].mss` or `flow."my flow".mss`.
fn parse_key_path(key: &str) -> Result<Vec<Seg>, String> {
    let bad = |why: &str| format!("bad key {key:?}: {why}");
    let mut segs = Vec::new();
    let mut chars = key.chars().peekable();
    loop {
        let mut name = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') => break,
                    Some('\\') => name.extend(chars.next()),
                    Some(c) => name.push(c),
                    None => return Err(bad("unterminated quote")),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if matches!(c, '.' | '[' | ']' | '"') || c.is_whitespace() {
                    break;
                }
                name.push(c);
                chars.next();
            }
            if name.is_empty() {
                return Err(bad("empty key segment"));
            }
        }
        segs.push(Seg::Key(name));
        while chars.peek() == Some(&'[') {
            chars.next();
            let mut digits = String::new();
            while let Some(c) = chars.next_if(|c| c.is_ascii_digit()) {
                digits.push(c);
            }
            if chars.next() != Some(']') || digits.is_empty() {
                return Err(bad("expected [N] with N a 0-based index"));
            }
            let i = digits.parse().map_err(|_| bad("index too large"))?;
            segs.push(Seg::Index(i));
        }
        match chars.next() {
            None => return Ok(segs),
            Some('.') => continue,
            Some(c) => return Err(bad(&format!("unexpected {c:?}"))),
        }
    }
}

/// `flow.NAME.rest` -> `flow[i].rest`, by each flow's name (explicit, or
/// the positional default "a", "b", ... that the walker would give it).
fn resolve_flow(table: &Table, path: &[Seg]) -> Result<Vec<Seg>, String> {
    let (Some(Seg::Key(first)), Some(Seg::Key(name))) = (path.first(), path.get(1)) else {
        return Ok(path.to_vec());
    };
    if first != "flow" {
        return Ok(path.to_vec());
    }
    let flows = match table.get("flow") {
        Some(Value::Array(flows)) => flows,
        None => {
            return Err(format!(
                "no flow named {name:?}: the scenario has no [[flow]]"
            ))
        }
        // Not an array of flows: leave it to the walker to say so.
        Some(_) => return Ok(path.to_vec()),
    };
    let names: Vec<String> = flows
        .iter()
        .enumerate()
        .map(|(i, f)| match f.get("name") {
            Some(Value::String(n)) => n.clone(),
            _ => default_flow_name(i),
        })
        .collect();
    match names.iter().position(|n| n == name) {
        Some(i) => {
            let mut out = vec![Seg::Key("flow".into()), Seg::Index(i)];
            out.extend_from_slice(&path[2..]);
            Ok(out)
        }
        None => Err(format!(
            "no flow named {name:?} (flows: {})",
            quoted_list(&names)
        )),
    }
}

/// A `--set` value: TOML if it parses as a TOML value, else a bare string.
fn override_value(raw: &str) -> Value {
    // A newline would let the value smuggle in other keys.
    if raw.contains(['\n', '\r']) {
        return Value::String(raw.to_string());
    }
    // TOML reads `inf` and `nan` as floats; as a --set value they are words
    // (read_rate=inf), so a float written without any digit stays a string.
    let looks_numeric = raw.chars().any(|c| c.is_ascii_digit());
    match toml::from_str::<Table>(&format!("v = {raw}")) {
        Ok(mut t) if t.len() == 1 => match t.remove("v") {
            Some(Value::Float(_)) if !looks_numeric => Value::String(raw.to_string()),
            Some(v) => v,
            None => Value::String(raw.to_string()),
        },
        _ => Value::String(raw.to_string()),
    }
}

/// Where a value sits: the path used to blame overrides and the dotted
/// form shown to users (`flow.a.mss`, or `flow[1].mss` before the flow has
/// a name).
#[derive(Clone, Debug)]
struct Loc {
    segs: Vec<Seg>,
    shown: String,
}

impl Loc {
    fn root() -> Loc {
        Loc {
            segs: Vec::new(),
            shown: String::new(),
        }
    }

    fn key(&self, k: &str) -> Loc {
        let seg = Seg::Key(k.to_string());
        let mut shown = self.shown.clone();
        push_seg(&mut shown, &seg);
        let mut segs = self.segs.clone();
        segs.push(seg);
        Loc { segs, shown }
    }

    fn index(&self, i: usize) -> Loc {
        let seg = Seg::Index(i);
        let mut shown = self.shown.clone();
        push_seg(&mut shown, &seg);
        let mut segs = self.segs.clone();
        segs.push(seg);
        Loc { segs, shown }
    }

    /// The i-th `[[flow]]`, shown by name once it has a valid one.
    fn flow(i: usize, name: Option<&str>) -> Loc {
        let loc = Loc::root().key("flow").index(i);
        match name {
            Some(n) => Loc {
                segs: loc.segs,
                shown: format!("flow.{}", show_key(n)),
            },
            None => loc,
        }
    }
}

type Res<T> = Result<T, ScenarioError>;

struct Cx<'a> {
    file: &'a str,
    overrides: Vec<Applied>,
}

const TOP_KEYS: &[&str] = &["name", "duration", "seed", "path", "reverse", "flow"];
const PATH_KEYS: &[&str] = &[
    "rate",
    "delay",
    "queue",
    "loss",
    "protect_retransmissions",
    "reorder",
    "duplicate",
];
const REVERSE_KEYS: &[&str] = &["delay", "loss", "reorder", "duplicate", "rate", "queue"];
const TRACE_KEYS: &[&str] = &["trace", "trace_offset"];
const REORDER_KEYS: &[&str] = &["p", "delay"];
const LOSS_MODELS: &[&str] = &["none", "bernoulli", "gilbert-elliott", "drop"];
const FLOW_KEYS: &[&str] = &[
    "name",
    "profile",
    "start",
    "cc",
    "recovery",
    "detection",
    "timers",
    "extensions",
    "mss",
    "init_cwnd",
    "max_cwnd",
    "min_rto",
    "app",
    "sndbuf",
    "receiver",
    "count",
    "lost_retransmission_detection",
    "rto_rearm_on_head_retransmit",
    "rto_rearm_on_sack",
    "probe_gate",
    "dsack_undo",
    "limited_transmit",
    "rto_formula",
    "timer_hz",
    "delay",
    "nic_rate",
    "tsq_limit",
    "slow_start_after_idle",
    "handshake",
    "handshake_rules",
    "frto",
    "rto_ssthresh",
    "recovery_exit",
    "pacing",
    "pacing_start",
    "cwnd_validation",
    "rtt_sample",
    "cwnd_growth",
    "slow_start",
    "avoidance",
];
/// Algorithms whose parameter table (`[flow.NAME]`) this version reads.
const PARAMETER_TABLES: &[&str] = &[
    "early-retransmit",
    "bbr",
    "rtor",
    "tlp",
    "tlpr",
    "cubic",
    "westwood",
    "vegas",
    "rack",
    "rack-tlp",
    "hack1",
    "tcp-rr",
    "qarr",
    "barr",
    "or3",
    "le",
    // The recovery algorithm's: the newreno congestion controller takes
    // no parameters, so the name is free.
    "newreno",
];
/// `[flow.or3]`: OR3's switches and numbers (recovery/or3.rs).
const OR3_SWITCHES: &[&str] = &["opportunism", "redundancy", "randomization"];
const OR3_KEYS: &[&str] = &[
    "max_replicas",
    "spread_cycles",
    "opportunism",
    "redundancy",
    "randomization",
    "overbooking",
];
/// `[flow.qarr]` and `[flow.barr]`: each one positive integer, under the
/// paper's name (section VI's proc interface) or the contract's
/// (docs/SCENARIO.md), and `rtt_source`.
struct AliasedCount {
    alg: &'static str,
    key: &'static str,
    alias: &'static str,
    default: u32,
    unit: &'static str,
    field: fn(&mut FlowSpec) -> &mut u32,
}
const QARR_PARAM: AliasedCount = AliasedCount {
    alg: "qarr",
    key: "queue_len_threshold",
    alias: "target_queue",
    default: losslab_core::recovery::QUEUE_LEN_THRESHOLD,
    unit: "segments of queue",
    field: |f| &mut f.qarr_queue_len_threshold,
};
const BARR_PARAM: AliasedCount = AliasedCount {
    alg: "barr",
    key: "slide_wnd_size",
    alias: "window",
    default: losslab_core::recovery::SLIDE_WND_SIZE,
    unit: "ACKs",
    field: |f| &mut f.barr_slide_wnd_size,
};
const EARLY_RETRANSMIT_KEYS: &[&str] = &["mitigation", "variant"];
/// The keys of `[flow.rtor]`, `[flow.tlp]` and `[flow.tlpr]`.
const TIMER_KEYS: [(&str, &[&str]); 3] = [
    ("rtor", &["rrthresh"]),
    ("tlp", &["loss_inference", "rearm", "pto"]),
    (
        "tlpr",
        &["rrthresh", "loss_inference", "rtor_cap", "rearm", "pto"],
    ),
];
const APP_KINDS: &[&str] = &["bulk", "bytes", "writes", "objects", "chunks"];
const RECEIVER_KEYS: &[&str] = &[
    "ack",
    "sack_blocks",
    "rcvbuf",
    "read_rate",
    "delack",
    "read_delay",
    "window_clamp",
    "grow_window",
    "autotune",
];
const BURST_KEYS: &[&str] = &["at", "length"];
const BURST_LIKE: &str =
    r#"a table like { at = 5000, length = 50 } or { at = "20s", length = 50 }"#;
const BURST_LIKE_INLINE: &str = r#"{ at = 5000, length = 50 }"#;
const BURST_AT: &str = r#"a 1-based data packet number like 5000, or a time like "20s""#;

/// Algorithm names in the scenario contract. Those that losslab-core does
/// not list as implemented are rejected as "not implemented in this
/// version", which is different from a typo.
const CC_CONTRACT: &[&str] = &[
    "reno", "newreno", "cubic", "westwood", "veno", "vegas", "bbr", "tcp-rr", "fixed:N",
];
const RECOVERY_CONTRACT: &[&str] = &[
    "rfc6675",
    "rfc3517",
    "rate-halving",
    "prr",
    "prr-6937",
    "prr-linux",
    "prr-linux-3",
    "prr-linux-4.10",
    "qarr",
    "barr",
    "le",
];
const DETECTION_CONTRACT: &[&str] = &[
    "dupthresh",
    "fack",
    "early-retransmit",
    "rack",
    "le",
    "linux-4.4",
];
const TIMERS_CONTRACT: &[&str] = &["rto", "rtor", "tlp", "tlpr", "rack-tlp"];
const EXTENSIONS_CONTRACT: &[&str] = &["opportunistic", "sndbuf-factor-3", "hack1", "or3"];
/// Extensions losslab-core implements.
const EXTENSIONS_AVAILABLE: &[&str] = losslab_core::sender::EXTENSIONS;

/// One pluggable part of the sender, for name checks and messages.
struct Part {
    key: &'static str,
    noun: &'static str,
    contract: &'static [&'static str],
    implemented: &'static [&'static str],
}

const RECOVERY: Part = Part {
    key: "recovery",
    noun: "recovery algorithm",
    contract: RECOVERY_CONTRACT,
    implemented: losslab_core::recovery::NAMES,
};
const DETECTION: Part = Part {
    key: "detection",
    noun: "loss detection",
    contract: DETECTION_CONTRACT,
    implemented: losslab_core::detect::NAMES,
};
const TIMERS: Part = Part {
    key: "timers",
    noun: "timer policy",
    contract: TIMERS_CONTRACT,
    implemented: losslab_core::timers::NAMES,
};
const EXTENSIONS: Part = Part {
    key: "extension",
    noun: "extension",
    contract: EXTENSIONS_CONTRACT,
    implemented: EXTENSIONS_AVAILABLE,
};
const CC: Part = Part {
    key: "cc",
    noun: "congestion control",
    contract: CC_CONTRACT,
    implemented: losslab_core::cc::NAMES,
};

impl Part {
    /// Every name this part knows, contract order first.
    fn all_names(&self) -> Vec<&'static str> {
        let mut names = self.contract.to_vec();
        for n in self.implemented {
            if !names.contains(n) {
                names.push(n);
            }
        }
        names
    }

    fn is_implemented(&self, name: &str) -> bool {
        self.implemented.contains(&name)
    }

    fn is_known(&self, name: &str) -> bool {
        self.contract.contains(&name) || self.is_implemented(name)
    }

    fn not_implemented(&self, name: &str) -> String {
        let available = if self.implemented.is_empty() {
            "none are available yet".to_string()
        } else {
            format!("available: {}", self.implemented.join(", "))
        };
        format!(
            "{} {name:?} is not implemented in this version of losslab ({available})",
            self.key
        )
    }

    /// Only names that run are offered: a contract name that is not
    /// implemented yet would fail the next attempt.
    fn unknown(&self, name: &str) -> String {
        format!(
            "unknown {} {name:?} (expected one of: {})",
            self.noun,
            self.implemented.join(", ")
        )
    }

    /// Checks a name written in a scenario.
    fn check(&self, name: &str) -> Result<(), String> {
        if self.is_implemented(name) {
            Ok(())
        } else if self.is_known(name) {
            Err(self.not_implemented(name))
        } else {
            Err(self.unknown(name))
        }
    }
}

/// Keys of a `[[flow]]` that name an algorithm and so hold its parameters
/// (`[flow.qarr] target_queue = 5`).
fn algorithm_key(key: &str) -> Option<(bool, &'static str)> {
    [&CC, &RECOVERY, &DETECTION, &TIMERS, &EXTENSIONS]
        .iter()
        .find_map(|part| {
            let name = part
                .all_names()
                .into_iter()
                .find(|n| *n == key || n.strip_suffix(":N") == Some(key))?;
            Some((part.is_implemented(name), name))
        })
}

fn default_scenario_name(file: &str) -> String {
    Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "scenario".to_string())
}

/// "a", "b", ..., "z", "aa", "ab", ...: the name of an unnamed flow.
fn default_flow_name(i: usize) -> String {
    let mut n = i + 1;
    let mut out = Vec::new();
    while n > 0 {
        n -= 1;
        out.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII")
}

fn quoted_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string {s:?}"),
        Value::Integer(i) => format!("the integer {i}"),
        Value::Float(f) => format!("the number {f:?}"),
        Value::Boolean(b) => format!("the boolean {b}"),
        Value::Datetime(d) => format!("the date-time {d}"),
        Value::Array(_) => "an array".to_string(),
        Value::Table(_) => "a table".to_string(),
    }
}

/// Edit distance, for "did you mean" on misspelt keys.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// How a value with a unit looks, for "needs a unit" errors.
struct UnitKind {
    noun: &'static str,
    example: &'static str,
    suggest: [&'static str; 2],
}

const DURATION: UnitKind = UnitKind {
    noun: "a duration",
    example: "200ms",
    suggest: ["ms", "s"],
};
const RATE: UnitKind = UnitKind {
    noun: "a rate",
    example: "20Mbps",
    suggest: ["Mbps", "kbps"],
};
const SIZE: UnitKind = UnitKind {
    noun: "a size",
    example: "1448B",
    suggest: ["B", "kB"],
};
const QUEUE: UnitKind = UnitKind {
    noun: "a queue limit",
    example: "300pkt",
    suggest: ["pkt", "kB"],
};

impl Cx<'_> {
    /// An error at `loc`, blamed on the last override that wrote `loc` or a
    /// table containing it, otherwise on the file.
    fn err(&self, loc: &Loc, message: impl Into<String>) -> ScenarioError {
        let message = message.into();
        let blamed = self
            .overrides
            .iter()
            .rev()
            .find(|o| loc.segs.starts_with(&o.owned));
        match blamed {
            Some(o) => {
                // Inside a table given by --set, say which part is wrong.
                let message = if loc.segs == o.target {
                    message
                } else {
                    format!("{}: {message}", loc.shown)
                };
                ScenarioError {
                    file: COMMAND_LINE.to_string(),
                    key: format!("--set {}", o.spec),
                    message,
                }
            }
            None => ScenarioError {
                file: self.file.to_string(),
                key: loc.shown.clone(),
                message,
            },
        }
    }

    fn missing(&self, loc: &Loc, what: &str) -> ScenarioError {
        self.err(loc, format!("missing: expected {what}"))
    }

    fn table<'t>(&self, v: &'t Value, loc: &Loc, what: &str) -> Res<&'t Table> {
        match v {
            Value::Table(t) => Ok(t),
            other => Err(self.err(loc, format!("expected {what}, got {}", describe(other)))),
        }
    }

    /// Rejects keys of `t` outside `allowed`, naming them and what is
    /// allowed at that level.
    fn only_keys(&self, t: &Table, loc: &Loc, allowed: &[&str], level: &str) -> Res<()> {
        for key in t.keys() {
            if !allowed.contains(&key.as_str()) {
                return Err(self.unknown_key(&loc.key(key), key, allowed, level));
            }
        }
        Ok(())
    }

    fn unknown_key(&self, loc: &Loc, key: &str, allowed: &[&str], level: &str) -> ScenarioError {
        let hint = allowed
            .iter()
            .map(|a| (distance(key, a), a))
            .filter(|(d, a)| *d <= 2 && *d < a.len())
            .min_by_key(|(d, _)| *d)
            .map(|(_, a)| format!("; did you mean {a:?}?"))
            .unwrap_or_default();
        self.err(
            loc,
            format!(
                "unknown key {key:?} (allowed {level}: {}){hint}",
                allowed.join(", ")
            ),
        )
    }

    fn string<'t>(&self, v: &'t Value, loc: &Loc, what: &str) -> Res<&'t str> {
        match v {
            Value::String(s) => Ok(s),
            other => Err(self.err(loc, format!("expected {what}, got {}", describe(other)))),
        }
    }

    /// Sets `field` from a key whose value names one of the enum's
    /// variants; leaves it when the key is absent.
    fn set_named<T: ByName>(&self, t: &Table, loc: &Loc, key: &str, field: &mut T) -> Res<()> {
        let Some(v) = t.get(key) else {
            return Ok(());
        };
        let kloc = loc.key(key);
        let expected = T::NAMES.join(", ");
        let name = self.string(v, &kloc, &format!("one of {expected}"))?;
        *field = T::by_name(name).ok_or_else(|| {
            self.err(
                &kloc,
                format!("unknown {key} {name:?} (expected one of: {expected})"),
            )
        })?;
        Ok(())
    }

    fn boolean(&self, v: &Value, loc: &Loc) -> Res<bool> {
        match v {
            Value::Boolean(b) => Ok(*b),
            other => Err(self.err(
                loc,
                format!("expected true or false, got {}", describe(other)),
            )),
        }
    }

    /// An integer in `min..=max`.
    fn integer(&self, v: &Value, loc: &Loc, min: i64, max: i64, what: &str) -> Res<i64> {
        let range = if max == i64::MAX {
            format!("of at least {min}")
        } else {
            format!("from {min} to {max}")
        };
        match v {
            Value::Integer(n) if (min..=max).contains(n) => Ok(*n),
            Value::Integer(n) => Err(self.err(
                loc,
                format!("expected an integer {range} ({what}), got {n}"),
            )),
            other => Err(self.err(
                loc,
                format!(
                    "expected an integer {range} ({what}), got {}",
                    describe(other)
                ),
            )),
        }
    }

    /// `seed`: an integer from 0 to `i64::MAX`, TOML's largest. A
    /// `--set seed=` past that arrives as a string of digits (it is no
    /// TOML integer) and is named as the number it is.
    fn seed(&self, v: &Value, loc: &Loc) -> Res<u64> {
        let got = match v {
            Value::Integer(n) if *n >= 0 => return Ok(*n as u64),
            Value::String(s)
                if !s.is_empty()
                    && s.bytes().all(|b| b.is_ascii_digit())
                    && s.parse::<i64>().is_err() =>
            {
                format!("{s}, which is too large")
            }
            other => describe(other),
        };
        Err(self.err(
            loc,
            format!(
                "expected an integer from 0 to {max} (a random seed; the largest seed allowed \
                 is {max}, TOML's largest integer), got {got}",
                max = i64::MAX
            ),
        ))
    }

    fn probability(&self, v: &Value, loc: &Loc) -> Res<f64> {
        let p = match v {
            Value::Float(f) => *f,
            // Integers are fine for the two ends: `p = 0`, `loss_bad = 1`.
            Value::Integer(i) => *i as f64,
            other => {
                return Err(self.err(
                    loc,
                    format!(
                        "expected a probability (a number from 0 to 1), got {}",
                        describe(other)
                    ),
                ))
            }
        };
        if (0.0..=1.0).contains(&p) {
            Ok(p)
        } else {
            Err(self.err(
                loc,
                format!("expected a probability (a number from 0 to 1), got {v}"),
            ))
        }
    }

    /// A string with a unit, parsed by `parse`; a bare number is an error
    /// that asks for the unit rather than guessing one.
    fn with_unit<T>(
        &self,
        v: &Value,
        loc: &Loc,
        kind: &UnitKind,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Res<T> {
        match v {
            Value::String(s) => parse(s).map_err(|m| self.err(loc, m)),
            Value::Integer(_) | Value::Float(_) => Err(self.err(
                loc,
                format!(
                    "expected a string like {:?}, got the number {v}: {} needs a unit, e.g. \"{v}{}\" or \"{v}{}\"",
                    kind.example, kind.noun, kind.suggest[0], kind.suggest[1]
                ),
            )),
            other => Err(self.err(
                loc,
                format!("expected a string like {:?}, got {}", kind.example, describe(other)),
            )),
        }
    }

    fn duration(&self, v: &Value, loc: &Loc) -> Res<Time> {
        self.with_unit(v, loc, &DURATION, units::parse_duration)
    }

    fn rate(&self, v: &Value, loc: &Loc) -> Res<u64> {
        self.with_unit(v, loc, &RATE, units::parse_rate)
    }

    /// A link's `rate`: a constant (`"12Mbps"`) or a delivery-opportunity
    /// trace (`{ trace = "FILE", trace_offset = "2s" }`, link.rs), whose
    /// mean capacity is then the rate.
    fn link_rate(&self, v: &Value, loc: &Loc) -> Res<(u64, Option<LinkTrace>)> {
        let Value::Table(t) = v else {
            return Ok((self.rate(v, loc)?, None));
        };
        self.only_keys(t, loc, TRACE_KEYS, "in a trace-driven rate")?;
        let file_loc = loc.key("trace");
        let name = self.string(
            self.required(t, loc, "trace", "the file of a mahimahi trace")?,
            &file_loc,
            "the file of a mahimahi trace",
        )?;
        let file = self.trace_path(name);
        let shown = file.display().to_string();
        let text = crate::link::read_trace_text(&file)
            .map_err(|e| self.err(&file_loc, format!("cannot read the trace {shown}: {e}")))?;
        let ms = crate::link::parse_trace(&text).map_err(|e| {
            let at = if e.line > 0 {
                format!("{shown}, line {}", e.line)
            } else {
                shown.clone()
            };
            self.err(&file_loc, format!("{at}: {}", e.message))
        })?;
        let offset = match t.get("trace_offset") {
            Some(v) => self.duration(v, &loc.key("trace_offset"))?,
            None => 0,
        };
        let trace = LinkTrace {
            file: shown,
            ms,
            offset,
        };
        Ok((trace.mean_rate_bps(), Some(trace)))
    }

    /// A trace file named in the scenario: a relative name is taken from
    /// the scenario file's folder (from the working folder when the
    /// scenario is not a file: `--set`, Python, standard input) and made
    /// absolute, so that a scenario written out reads the same file.
    fn trace_path(&self, name: &str) -> std::path::PathBuf {
        let p = Path::new(name);
        let base = Path::new(self.file)
            .is_file()
            .then(|| Path::new(self.file).parent())
            .flatten()
            .filter(|d| !d.as_os_str().is_empty());
        let joined = match base {
            Some(d) if p.is_relative() => d.join(p),
            _ => p.to_path_buf(),
        };
        std::path::absolute(&joined).unwrap_or(joined)
    }

    fn size(&self, v: &Value, loc: &Loc) -> Res<u64> {
        self.with_unit(v, loc, &SIZE, units::parse_size)
    }

    /// A size of at least one byte.
    fn positive_size(&self, v: &Value, loc: &Loc, what: &str) -> Res<u64> {
        match self.size(v, loc)? {
            0 => Err(self.err(loc, format!("{what} must be at least 1B, got {v}"))),
            n => Ok(n),
        }
    }

    fn scenario(&self, root: &Table) -> Res<Scenario> {
        let top = Loc::root();
        self.only_keys(root, &top, TOP_KEYS, "at the top level")?;

        let name = match root.get("name") {
            Some(v) => {
                let loc = top.key("name");
                let name = self.string(v, &loc, "a string")?;
                if name.trim().is_empty() {
                    return Err(self.err(&loc, "the scenario name cannot be empty"));
                }
                name.to_string()
            }
            None => default_scenario_name(self.file),
        };
        let duration = match root.get("duration") {
            Some(v) => {
                let loc = top.key("duration");
                match self.duration(v, &loc)? {
                    0 => {
                        return Err(self.err(&loc, "the duration must be greater than 0"));
                    }
                    d => d,
                }
            }
            None => 60 * SEC,
        };
        let seed = match root.get("seed") {
            Some(v) => self.seed(v, &top.key("seed"))?,
            None => 1,
        };
        let path_loc = top.key("path");
        let path = match root.get("path") {
            Some(v) => self.path(v, &path_loc)?,
            None => {
                return Err(self.missing(&path_loc, "a [path] table with at least rate and delay"))
            }
        };
        let reverse = match root.get("reverse") {
            Some(v) => self.reverse(v, &top.key("reverse"), path.delay)?,
            None => ReverseSpec::lossless(path.delay),
        };
        let flows = self.flows(root.get("flow"))?;

        for (i, flow) in flows.iter().enumerate() {
            if flow.start >= duration {
                let loc = Loc::flow(i, Some(&flow.name)).key("start");
                return Err(self.err(
                    &loc,
                    format!(
                        "the flow would start at {}, when the scenario has already ended (duration = {:?})",
                        units::format_duration(flow.start),
                        units::format_duration(duration)
                    ),
                ));
            }
        }
        self.check_drop_target(&path.loss, &path_loc.key("loss"), &flows)?;
        self.check_drop_target(&reverse.loss, &top.key("reverse").key("loss"), &flows)?;

        Ok(Scenario {
            name,
            duration,
            seed,
            path,
            reverse,
            flows,
        })
    }

    fn path(&self, v: &Value, loc: &Loc) -> Res<PathSpec> {
        let t = self.table(v, loc, "a [path] table")?;
        self.only_keys(t, loc, PATH_KEYS, "in [path]")?;
        let (rate, trace) = match t.get("rate") {
            Some(v) => self.link_rate(v, &loc.key("rate"))?,
            None => return Err(self.missing(&loc.key("rate"), units::RATE_LIKE)),
        };
        let delay = match t.get("delay") {
            Some(v) => self.duration(v, &loc.key("delay"))?,
            None => return Err(self.missing(&loc.key("delay"), units::DURATION_LIKE)),
        };
        let queue = match t.get("queue") {
            Some(v) => self.with_unit(v, &loc.key("queue"), &QUEUE, units::parse_queue)?,
            None => QueueLimit::Packets(1000),
        };
        let loss = match t.get("loss") {
            Some(v) => self.loss(v, &loc.key("loss"), false)?,
            None => LossModel::None,
        };
        let protect_retransmissions = match t.get("protect_retransmissions") {
            Some(v) => self.boolean(v, &loc.key("protect_retransmissions"))?,
            None => false,
        };
        let reorder = match t.get("reorder") {
            Some(v) => self.reorder(v, &loc.key("reorder"))?,
            None => Reorder::default(),
        };
        let duplicate = match t.get("duplicate") {
            Some(v) => self.probability(v, &loc.key("duplicate"))?,
            None => 0.0,
        };
        Ok(PathSpec {
            rate,
            trace,
            delay,
            queue,
            loss,
            protect_retransmissions,
            reorder,
            duplicate,
        })
    }

    fn reverse(&self, v: &Value, loc: &Loc, forward_delay: Time) -> Res<ReverseSpec> {
        let t = self.table(v, loc, "a [reverse] table")?;
        self.only_keys(t, loc, REVERSE_KEYS, "in [reverse]")?;
        let link = match (t.get("rate"), t.get("queue")) {
            (Some(v), queue) => {
                let (rate, trace) = self.link_rate(v, &loc.key("rate"))?;
                let queue = match queue {
                    Some(v) => self.with_unit(v, &loc.key("queue"), &QUEUE, units::parse_queue)?,
                    None => QueueLimit::Packets(1000),
                };
                Some(ReverseLink { rate, trace, queue })
            }
            (None, Some(_)) => {
                return Err(self.err(
                    &loc.key("queue"),
                    "a queue needs a link to drain it: give reverse.rate too (without one, ACKs \
                     only propagate)",
                ))
            }
            (None, None) => None,
        };
        Ok(ReverseSpec {
            link,
            delay: match t.get("delay") {
                Some(v) => self.duration(v, &loc.key("delay"))?,
                None => forward_delay,
            },
            loss: match t.get("loss") {
                Some(v) => self.loss(v, &loc.key("loss"), true)?,
                None => LossModel::None,
            },
            reorder: match t.get("reorder") {
                Some(v) => self.reorder(v, &loc.key("reorder"))?,
                None => Reorder::default(),
            },
            duplicate: match t.get("duplicate") {
                Some(v) => self.probability(v, &loc.key("duplicate"))?,
                None => 0.0,
            },
        })
    }

    fn reorder(&self, v: &Value, loc: &Loc) -> Res<Reorder> {
        let t = self.table(v, loc, r#"a table like { p = 0.01, delay = "5ms" }"#)?;
        self.only_keys(t, loc, REORDER_KEYS, "in reorder")?;
        let p = match t.get("p") {
            Some(v) => self.probability(v, &loc.key("p"))?,
            None => 0.0,
        };
        let delay = match t.get("delay") {
            Some(v) => self.duration(v, &loc.key("delay"))?,
            // Holding packets back for an unstated time would reorder
            // nothing; make the user say how long.
            None if p > 0.0 => {
                return Err(self.missing(
                    &loc.key("delay"),
                    "how long a reordered packet is held back, e.g. \"5ms\"",
                ))
            }
            None => 0,
        };
        Ok(Reorder { p, delay })
    }

    /// A loss model table. `reverse`: in the ACK direction there are no data
    /// segments, so a drop model can only count packets (the flow's ACKs).
    fn loss(&self, v: &Value, loc: &Loc, reverse: bool) -> Res<LossModel> {
        let t = self.table(
            v,
            loc,
            r#"a table like { model = "bernoulli", p = 0.001 } or { model = "none" }"#,
        )?;
        let model_loc = loc.key("model");
        let model = match t.get("model") {
            Some(v) => self.string(v, &model_loc, "a loss model name")?,
            None => {
                return Err(self.missing(
                    &model_loc,
                    &format!("a loss model: one of {}", LOSS_MODELS.join(", ")),
                ))
            }
        };
        let level = format!("in a {model:?} loss model");
        match model {
            "none" => {
                self.only_keys(t, loc, &["model"], &level)?;
                Ok(LossModel::None)
            }
            "bernoulli" => {
                self.only_keys(t, loc, &["model", "p"], &level)?;
                let p = self.required(t, loc, "p", "a probability")?;
                Ok(LossModel::Bernoulli {
                    p: self.probability(p, &loc.key("p"))?,
                })
            }
            "gilbert-elliott" => {
                const KEYS: [&str; 4] = ["p_gb", "p_bg", "loss_good", "loss_bad"];
                self.only_keys(
                    t,
                    loc,
                    &["model", "p_gb", "p_bg", "loss_good", "loss_bad"],
                    &level,
                )?;
                let mut ps = [0.0; 4];
                for (p, key) in ps.iter_mut().zip(KEYS) {
                    let v = self.required(t, loc, key, "a probability")?;
                    *p = self.probability(v, &loc.key(key))?;
                }
                let [p_gb, p_bg, loss_good, loss_bad] = ps;
                Ok(LossModel::GilbertElliott {
                    p_gb,
                    p_bg,
                    loss_good,
                    loss_bad,
                })
            }
            "drop" => {
                let which_keys: &[&str] = if reverse {
                    &["packets", "syns"]
                } else {
                    &["packets", "segments", "tail", "syns", "burst", "bursts"]
                };
                let mut allowed = vec!["model", "flow"];
                allowed.extend_from_slice(which_keys);
                let level = if reverse {
                    "in a \"drop\" loss model of [reverse], which drops the flow's ACKs".to_string()
                } else {
                    level
                };
                self.only_keys(t, loc, &allowed, &level)?;
                let flow_v = self.required(t, loc, "flow", "the name of a flow")?;
                let flow = self
                    .string(flow_v, &loc.key("flow"), "the name of a flow")?
                    .to_string();
                let given: Vec<&str> = which_keys
                    .iter()
                    .copied()
                    .filter(|k| t.contains_key(*k))
                    .collect();
                let which = match given.as_slice() {
                    [] => {
                        return Err(self.err(
                            loc,
                            format!(
                                "a drop model needs one of: {} (which packets to drop)",
                                which_keys.join(", ")
                            ),
                        ))
                    }
                    [one] => *one,
                    [_, second, ..] => {
                        return Err(self.err(
                            &loc.key(second),
                            format!(
                                "a drop model takes only one of {}, got {}",
                                which_keys.join(", "),
                                given.join(" and ")
                            ),
                        ))
                    }
                };
                let wloc = loc.key(which);
                let wv = t.get(which).expect("listed in `given`");
                let which = match which {
                    "packets" => DropSpec::Packets(self.positions(wv, &wloc, "packet")?),
                    "segments" => DropSpec::Segments(self.positions(wv, &wloc, "segment")?),
                    "syns" => DropSpec::Syns(self.positions(wv, &wloc, "SYN transmission")?),
                    "burst" => DropSpec::Bursts(vec![self.burst(wv, &wloc)?]),
                    "bursts" => DropSpec::Bursts(self.bursts(wv, &wloc)?),
                    _ => DropSpec::Tail(self.integer(
                        wv,
                        &wloc,
                        1,
                        i64::MAX,
                        "how many last segments to drop",
                    )? as u64),
                };
                Ok(LossModel::Drop { flow, which })
            }
            other => Err(self.err(
                &model_loc,
                format!(
                    "unknown loss model {other:?} (expected one of: {})",
                    LOSS_MODELS.join(", ")
                ),
            )),
        }
    }

    /// `{ at = 5000, length = 50 }` (from the 5000th data packet) or
    /// `{ at = "20s", length = 50 }` (from the first data packet entering
    /// the bottleneck at or after 20 s).
    fn burst(&self, v: &Value, loc: &Loc) -> Res<Burst> {
        let t = self.table(v, loc, BURST_LIKE)?;
        self.only_keys(t, loc, BURST_KEYS, "in a burst")?;
        let at_loc = loc.key("at");
        let at = match self.required(t, loc, "at", BURST_AT)? {
            Value::Integer(_) => {
                let n = self.integer(
                    &t["at"],
                    &at_loc,
                    1,
                    i64::MAX,
                    "the first dropped data packet, 1-based; or a time like \"20s\"",
                )?;
                BurstStart::Packet(n as u64)
            }
            Value::String(_) => BurstStart::Time(self.duration(&t["at"], &at_loc)?),
            other => {
                return Err(self.err(
                    &at_loc,
                    format!("expected {BURST_AT}, got {}", describe(other)),
                ))
            }
        };
        let lv = self.required(t, loc, "length", "how many consecutive packets to drop")?;
        let length = self.integer(
            lv,
            &loc.key("length"),
            1,
            i64::MAX,
            "how many consecutive packets to drop",
        )? as u64;
        Ok(Burst { at, length })
    }

    fn bursts(&self, v: &Value, loc: &Loc) -> Res<Vec<Burst>> {
        let Value::Array(items) = v else {
            return Err(self.err(
                loc,
                format!(
                    "expected an array of bursts like [{BURST_LIKE_INLINE}], got {}",
                    describe(v)
                ),
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| self.burst(item, &loc.index(i)))
            .collect()
    }

    fn required<'t>(&self, t: &'t Table, loc: &Loc, key: &str, what: &str) -> Res<&'t Value> {
        t.get(key).ok_or_else(|| self.missing(&loc.key(key), what))
    }

    /// 1-based packet or segment numbers, sorted and deduplicated because
    /// their order carries no meaning.
    fn positions(&self, v: &Value, loc: &Loc, what: &str) -> Res<Vec<u64>> {
        let Value::Array(items) = v else {
            return Err(self.err(
                loc,
                format!(
                    "expected an array of {what} numbers like [17, 18, 19], got {}",
                    describe(v)
                ),
            ));
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let n = self.integer(
                item,
                &loc.index(i),
                1,
                i64::MAX,
                &format!("{what} numbers are 1-based"),
            )?;
            out.push(n as u64);
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    fn flows(&self, v: Option<&Value>) -> Res<Vec<FlowSpec>> {
        let loc = Loc::root().key("flow");
        let items = match v {
            None => return Err(self.missing(&loc, "at least one [[flow]] table")),
            Some(Value::Array(items)) => items,
            Some(Value::Table(_)) => {
                return Err(self.err(
                    &loc,
                    "expected an array of tables: write [[flow]] (double brackets), not [flow]",
                ))
            }
            Some(other) => {
                return Err(self.err(
                    &loc,
                    format!(
                        "expected an array of [[flow]] tables, got {}",
                        describe(other)
                    ),
                ))
            }
        };
        if items.is_empty() {
            return Err(self.err(&loc, "at least one [[flow]] is required"));
        }
        let mut flows: Vec<FlowSpec> = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let bare = Loc::flow(i, None);
            let t = self.table(item, &bare, "a [[flow]] table")?;
            let explicit = match t.get("name") {
                Some(v) => Some(self.flow_name(v, &bare.key("name"))?),
                None => None,
            };
            let floc = Loc::flow(i, explicit.as_deref());
            let name = explicit.clone().unwrap_or_else(|| default_flow_name(i));
            let flow = self.flow(t, &floc, &name)?;
            // Names cannot contain '.', so the NAME.1 .. NAME.N of count
            // never clash with another flow's name; only base names can.
            if let Some(j) = flows.iter().position(|f| f.name == name) {
                let how = if explicit.is_none() {
                    format!(
                        "{} has no name, so it is named {name:?} by its position, but ",
                        bare.shown
                    )
                } else {
                    String::new()
                };
                return Err(self.err(
                    &floc.key("name"),
                    format!(
                        "{how}flow name {name:?} is already used by {} (flow names must be unique)",
                        Loc::flow(j, Some(&flows[j].name)).shown
                    ),
                ));
            }
            flows.push(flow);
        }
        // app.after must name another flow that fetches objects.
        for (i, f) in flows.iter().enumerate() {
            let AppSpec::Objects {
                after: Some(target),
                ..
            } = &f.app
            else {
                continue;
            };
            let aloc = Loc::flow(i, Some(&f.name)).key("app").key("after");
            let found = flows
                .iter()
                .find(|g| g.name == *target || is_connection_of(g, target));
            match found {
                None => {
                    return Err(self.err(
                        &aloc,
                        format!("no flow named {target:?} (flows: {})", flow_names(&flows)),
                    ))
                }
                Some(g) if g.name == f.name => {
                    return Err(self.err(&aloc, "a flow cannot wait for itself"))
                }
                Some(g) if !matches!(g.app, AppSpec::Objects { .. }) => {
                    return Err(self.err(
                        &aloc,
                        format!(
                            "flow {target:?} has no objects to wait for; after must name a flow whose app is of kind \"objects\""
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        Ok(flows)
    }

    fn flow_name(&self, v: &Value, loc: &Loc) -> Res<String> {
        let name = self.string(v, loc, "a flow name like \"a\"")?;
        // Names appear in --set paths (flow.NAME.key), in the names of
        // counted flows (NAME.1) and unquoted in CSV traces, so they must
        // not contain path syntax or commas.
        let bad = name.is_empty()
            || name
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || ".[]\",=".contains(c));
        if bad {
            return Err(self.err(
                loc,
                format!(
                    "bad flow name {name:?}: a name must be non-empty, without spaces, '.', '[', ']', ',', '\"' or '='"
                ),
            ));
        }
        Ok(name.to_string())
    }

    fn flow(&self, t: &Table, loc: &Loc, name: &str) -> Res<FlowSpec> {
        for key in t.keys() {
            if FLOW_KEYS.contains(&key.as_str()) || PARAMETER_TABLES.contains(&key.as_str()) {
                continue;
            }
            let kloc = loc.key(key);
            return Err(match algorithm_key(key) {
                Some((true, alg)) => self.err(
                    &kloc,
                    format!("{alg} takes no parameters in this version of losslab"),
                ),
                Some((false, alg)) => self.err(
                    &kloc,
                    format!(
                        "parameters for {alg} given but {alg} is not implemented in this version of losslab"
                    ),
                ),
                None => {
                    self.unknown_key(&kloc, key, FLOW_KEYS, "in [[flow]]")
                }
            });
        }

        let mut f = FlowSpec::new(name);
        // A profile first: every explicit key below overrides it.
        if let Some(v) = t.get("profile") {
            let ploc = loc.key("profile");
            let expected = crate::profile::NAMES.join(", ");
            let p = self.string(v, &ploc, &format!("one of {expected}"))?;
            if !crate::profile::apply(p, &mut f) {
                return Err(self.err(
                    &ploc,
                    format!("unknown profile {p:?} (expected one of: {expected})"),
                ));
            }
        }
        if let Some(v) = t.get("start") {
            f.start = self.duration(v, &loc.key("start"))?;
        }
        if let Some(v) = t.get("cc") {
            f.cc = self.cc(v, &loc.key("cc"))?;
        }
        for (part, slot) in [
            (&RECOVERY, &mut f.recovery),
            (&DETECTION, &mut f.detection),
            (&TIMERS, &mut f.timers),
        ] {
            if let Some(v) = t.get(part.key) {
                let ploc = loc.key(part.key);
                let s = self.string(v, &ploc, &format!("a {} name", part.noun))?;
                part.check(s).map_err(|m| self.err(&ploc, m))?;
                *slot = s.to_string();
            }
        }
        if let Some(v) = t.get("extensions") {
            f.extensions = self.extensions(v, &loc.key("extensions"))?;
        }
        if let Some(v) = t.get("mss") {
            let mloc = loc.key("mss");
            let mss = self.size(v, &mloc)?;
            if !(1..=65_535).contains(&mss) {
                return Err(self.err(&mloc, format!("expected an MSS from 1B to 65535B, got {v}")));
            }
            f.mss = mss as u32;
        }
        if let Some(v) = t.get("init_cwnd") {
            f.init_cwnd = self.integer(v, &loc.key("init_cwnd"), 1, i64::MAX, "segments")? as u64;
        }
        if let Some(v) = t.get("max_cwnd") {
            f.max_cwnd =
                Some(self.integer(v, &loc.key("max_cwnd"), 1, i64::MAX, "segments")? as u64);
        }
        if let Some(v) = t.get("min_rto") {
            f.min_rto = self.duration(v, &loc.key("min_rto"))?;
        }
        if let Some(v) = t.get("timer_hz") {
            // Up to 1 GHz: a tick of at least one nanosecond.
            f.timer_hz = self.integer(v, &loc.key("timer_hz"), 0, 1_000_000_000, "Hz")? as u32;
        }
        let mut connections = None;
        if let Some(v) = t.get("app") {
            (f.app, connections) = self.app(v, &loc.key("app"))?;
        }
        if let Some(v) = t.get("sndbuf") {
            let sloc = loc.key("sndbuf");
            f.sndbuf_model = None;
            f.sndbuf = match v {
                Value::String(s) if s == "auto" => None,
                Value::String(s) if s == "linux" => {
                    f.sndbuf_model = Some(LinuxSndbuf::default());
                    None
                }
                Value::Table(st) => {
                    f.sndbuf_model = Some(self.linux_sndbuf(st, &sloc)?);
                    None
                }
                _ => {
                    let parse = |s: &str| units::parse_size(s).map_err(|m| or_word(m, "auto"));
                    match self.with_unit(v, &sloc, &SIZE, parse)? {
                        0 => {
                            return Err(
                                self.err(&sloc, format!("sndbuf must be at least 1B, got {v}"))
                            )
                        }
                        n => Some(n),
                    }
                }
            };
        }
        if let Some(v) = t.get("receiver") {
            f.receiver = self.receiver(v, &loc.key("receiver"), f.receiver.clone())?;
        }
        self.check_sndbuf_factor_3(&f, loc)?;
        if let Some(v) = t.get("count") {
            f.count = self.integer(
                v,
                &loc.key("count"),
                1,
                i64::from(u32::MAX),
                "the number of identical flows",
            )? as u32;
        }
        // `connections` in a chunks app is `count` under the paper's name.
        if let Some(n) = connections {
            if t.contains_key("count") && n != f.count {
                return Err(self.err(
                    &loc.key("app").key("connections"),
                    format!(
                        "connections = {n} but the flow's count = {}: they are the same number of parallel connections; give one of them, or both equal",
                        f.count
                    ),
                ));
            }
            f.count = n;
        }
        if let Some(v) = t.get("rto_rearm_on_head_retransmit") {
            f.rto_rearm_on_head_retransmit =
                self.boolean(v, &loc.key("rto_rearm_on_head_retransmit"))?;
        }
        if let Some(v) = t.get("rto_rearm_on_sack") {
            f.rto_rearm_on_sack = self.boolean(v, &loc.key("rto_rearm_on_sack"))?;
        }
        if t.contains_key("probe_gate") {
            let mut gate = ProbeGate::Linux;
            self.set_named(t, loc, "probe_gate", &mut gate)?;
            f.probe_gate = Some(gate);
        }
        if let Some(v) = t.get("lost_retransmission_detection") {
            f.lost_retransmission_detection =
                self.boolean(v, &loc.key("lost_retransmission_detection"))?;
        }
        if let Some(v) = t.get("limited_transmit") {
            f.limited_transmit = self.boolean(v, &loc.key("limited_transmit"))?;
        }
        if let Some(v) = t.get("dsack_undo") {
            f.dsack_undo = self.boolean(v, &loc.key("dsack_undo"))?;
        }
        self.set_named(t, loc, "rto_formula", &mut f.rto_formula)?;
        if let Some(v) = t.get("delay") {
            f.delay = self.duration(v, &loc.key("delay"))?;
        }
        if let Some(v) = t.get("nic_rate") {
            f.nic_rate = Some(self.rate(v, &loc.key("nic_rate"))?);
        }
        if let Some(v) = t.get("tsq_limit") {
            let at = loc.key("tsq_limit");
            f.tsq_limit = Some(self.positive_size(v, &at, "tsq_limit")?);
            if f.nic_rate.is_none() {
                return Err(self.err(
                    &at,
                    "tsq_limit needs nic_rate: without a host interface nothing waits in the host",
                ));
            }
        }
        if let Some(v) = t.get("handshake") {
            f.handshake = self.boolean(v, &loc.key("handshake"))?;
        }
        self.set_named(t, loc, "handshake_rules", &mut f.handshake_rules)?;
        self.set_named(t, loc, "frto", &mut f.frto)?;
        self.set_named(t, loc, "rto_ssthresh", &mut f.rto_ssthresh)?;
        self.set_named(t, loc, "recovery_exit", &mut f.recovery_exit)?;
        self.set_named(t, loc, "pacing", &mut f.pacing)?;
        self.set_named(t, loc, "pacing_start", &mut f.pacing_start)?;
        self.set_named(t, loc, "cwnd_validation", &mut f.cwnd_validation)?;
        self.set_named(t, loc, "rtt_sample", &mut f.rtt_sample)?;
        self.set_named(t, loc, "cwnd_growth", &mut f.cwnd_growth)?;
        self.set_named(t, loc, "slow_start", &mut f.slow_start)?;
        self.set_named(t, loc, "avoidance", &mut f.avoidance)?;
        if let Some(v) = t.get("slow_start_after_idle") {
            f.slow_start_after_idle = self.boolean(v, &loc.key("slow_start_after_idle"))?;
        }
        if let Some(v) = t.get("cubic") {
            let cloc = loc.key("cubic");
            let ct = self.table(v, &cloc, "a table like [flow.cubic] hystart = true")?;
            self.only_keys(ct, &cloc, &["hystart"], "in [flow.cubic]")?;
            let cc = f.cc.name();
            if cc == "cubic-linux" || cc == "cubic-linux-3" {
                // The kernel ports read the kernels' HyStarts only.
                if let Some(h) = ct.get("hystart") {
                    let hloc = cloc.key("hystart");
                    let mode = self.hystart(h, &hloc)?;
                    let takes: &[HyStartMode] = if cc == "cubic-linux" {
                        &[
                            HyStartMode::Linux6,
                            HyStartMode::Linux410,
                            HyStartMode::Linux3,
                        ]
                    } else {
                        &[HyStartMode::Linux410, HyStartMode::Linux3]
                    };
                    if !takes.contains(&mode) {
                        let names: Vec<String> = takes
                            .iter()
                            .filter_map(|m| m.name())
                            .map(|n| format!("{n:?}"))
                            .collect();
                        return Err(self.err(
                            &hloc,
                            format!(
                                "cc = {cc:?} takes hystart {} (a Linux kernel's HyStart), got {}",
                                names.join(" or "),
                                describe(h)
                            ),
                        ));
                    }
                    f.hystart = mode;
                }
            } else {
                if let Some(h) = ct.get("hystart") {
                    f.hystart = self.hystart(h, &cloc.key("hystart"))?;
                }
                self.parameters_read(&cloc, "cubic", "cc", &cc)?;
            }
        }
        if let Some(v) = t.get("westwood") {
            let wloc = loc.key("westwood");
            let wt = self.table(v, &wloc, "a table like [flow.westwood] complete_cwr = true")?;
            self.only_keys(
                wt,
                &wloc,
                &["complete_cwr", "ssthresh", "hz"],
                "in [flow.westwood]",
            )?;
            if let Some(x) = wt.get("complete_cwr") {
                f.westwood_complete_cwr = self.boolean(x, &wloc.key("complete_cwr"))?;
            }
            self.set_named(wt, &wloc, "ssthresh", &mut f.westwood_ssthresh)?;
            if let Some(x) = wt.get("hz") {
                // Linux's CONFIG_HZ is 100 to 1000; 0 keeps nanoseconds.
                f.westwood_hz = self.integer(
                    x,
                    &wloc.key("hz"),
                    0,
                    1_000_000,
                    "Hz (0: exact times; Linux's HZ, e.g. 250)",
                )? as u32;
            }
            self.parameters_read(&wloc, "westwood", "cc", &f.cc.name())?;
        }
        if let Some(v) = t.get("vegas") {
            let vloc = loc.key("vegas");
            let vt = self.table(v, &vloc, "a table like [flow.vegas] gate = \"linux\"")?;
            self.only_keys(vt, &vloc, &["gate", "ssthresh"], "in [flow.vegas]")?;
            self.set_named(vt, &vloc, "gate", &mut f.vegas_gate)?;
            self.set_named(vt, &vloc, "ssthresh", &mut f.vegas_ssthresh)?;
            self.parameters_read(&vloc, "vegas", "cc", &f.cc.name())?;
        }
        if let Some(v) = t.get("bbr") {
            let bloc = loc.key("bbr");
            let bt = self.table(
                v,
                &bloc,
                r#"a table like [flow.bbr] min_rtt_refresh = "lower-or-equal""#,
            )?;
            self.only_keys(bt, &bloc, &["min_rtt_refresh"], "in [flow.bbr]")?;
            self.set_named(bt, &bloc, "min_rtt_refresh", &mut f.bbr_min_rtt_refresh)?;
            self.parameters_read(&bloc, "bbr", "cc", &f.cc.name())?;
        }
        if let Some(v) = t.get("tcp-rr") {
            let rloc = loc.key("tcp-rr");
            let rt = self.table(v, &rloc, "a table like [flow.tcp-rr] rto_factor = 0.5")?;
            self.only_keys(rt, &rloc, &["rto_factor"], "in [flow.tcp-rr]")?;
            if let Some(x) = rt.get("rto_factor") {
                f.tcp_rr_rto_factor = self.rto_factor(x, &rloc.key("rto_factor"))?;
            }
            self.parameters_read(&rloc, "tcp-rr", "cc", &f.cc.name())?;
        }
        if let Some(v) = t.get("hack1") {
            let hloc = loc.key("hack1");
            let ht = self.table(v, &hloc, "a table like [flow.hack1] refire = false")?;
            self.only_keys(ht, &hloc, &["refire"], "in [flow.hack1]")?;
            if let Some(x) = ht.get("refire") {
                f.hack1_refire = self.boolean(x, &hloc.key("refire"))?;
            }
            if !f.extensions.iter().any(|e| e == "hack1") {
                return Err(self.err(
                    &hloc,
                    "parameters for hack1 given but this flow's extensions do not include \"hack1\"; add it or remove [flow.hack1]".to_string(),
                ));
            }
        }
        if let Some(v) = t.get("or3") {
            f.or3 = self.or3(v, &loc.key("or3"), f.or3)?;
            if !f.extensions.iter().any(|e| e == "or3") {
                return Err(self.err(
                    &loc.key("or3"),
                    "parameters for or3 given but this flow's extensions do not include \"or3\"; add it or remove [flow.or3]".to_string(),
                ));
            }
        }
        if let Some(v) = t.get("newreno") {
            f.newreno_variant = self.newreno(v, &loc.key("newreno"), &f, f.newreno_variant)?;
        }
        for p in [&QARR_PARAM, &BARR_PARAM] {
            let Some(v) = t.get(p.alg) else { continue };
            let ploc = loc.key(p.alg);
            let example = format!("a table like [flow.{}] {} = {}", p.alg, p.key, p.default);
            let pt = self.table(v, &ploc, &example)?;
            let level = format!("in [flow.{}]", p.alg);
            let update: &[&str] = if p.alg == "qarr" { &["update"] } else { &[] };
            let keys: Vec<&str> = [p.key, p.alias, "rtt_source"]
                .into_iter()
                .chain(update.iter().copied())
                .collect();
            self.only_keys(pt, &ploc, &keys, &level)?;
            if let Some(n) = self.aliased_count(pt, &ploc, p)? {
                *(p.field)(&mut f) = n;
            }
            self.set_named(pt, &ploc, "rtt_source", &mut f.recovery_rtt_source)?;
            if p.alg == "qarr" {
                self.set_named(pt, &ploc, "update", &mut f.qarr_update)?;
            }
            self.parameters_read(&ploc, p.alg, "recovery", &f.recovery)?;
        }
        for (timer, keys) in TIMER_KEYS {
            let Some(v) = t.get(timer) else { continue };
            let tloc = loc.key(timer);
            let example = match keys[0] {
                "rrthresh" => "rrthresh = 4",
                _ => "loss_inference = false",
            };
            let tt = self.table(v, &tloc, &format!("a table like [flow.{timer}] {example}"))?;
            self.only_keys(tt, &tloc, keys, &format!("in [flow.{timer}]"))?;
            if let Some(b) = tt.get("loss_inference") {
                f.tlp_loss_inference = self.boolean(b, &tloc.key("loss_inference"))?;
            }
            if timer == "tlp" || timer == "tlpr" {
                self.set_named(tt, &tloc, "rearm", &mut f.tlp_rearm)?;
                self.set_named(tt, &tloc, "pto", &mut f.tlp_pto)?;
                if tt.contains_key("pto") && f.tlp_pto.counts_jiffies() && f.timer_hz == 0 {
                    return Err(self.err(
                        &tloc.key("pto"),
                        format!(
                            r#"pto = "{}" counts jiffies of the flow's timer_hz, which is 0 (exact timers); set timer_hz (e.g. 1000) or use pto = "paper""#,
                            f.tlp_pto.name()
                        ),
                    ));
                }
            }
            if let Some(b) = tt.get("rtor_cap") {
                f.tlpr_rtor_cap = self.boolean(b, &tloc.key("rtor_cap"))?;
            }
            if timer == "tlpr" && tt.contains_key("rrthresh") && !f.tlpr_rtor_cap {
                return Err(self.err(
                    &tloc.key("rrthresh"),
                    "TLPR reads rrthresh only for its RTOR cap, which is off since issue 28 \
                     (TLPR as the tail-loss paper defines it, PTO - T_last): add \
                     rtor_cap = true to restore the cap",
                ));
            }
            if let Some(r) = tt.get("rrthresh") {
                f.rrthresh = self.integer(
                    r,
                    &tloc.key("rrthresh"),
                    1,
                    i64::MAX,
                    "outstanding segments",
                )? as u64;
            }
            self.parameters_read(&tloc, timer, "timers", &f.timers)?;
        }
        if let Some(v) = t.get("early-retransmit") {
            let eloc = loc.key("early-retransmit");
            f.early_retransmit = self.early_retransmit(v, &eloc, f.early_retransmit)?;
            self.parameters_read(&eloc, "early-retransmit", "detection", &f.detection)?;
        }
        if let Some(v) = t.get("le") {
            let lloc = loc.key("le");
            self.le(v, &lloc, &mut f)?;
        }
        if let Some(v) = t.get("rack") {
            let rloc = loc.key("rack");
            let rt = self.table(v, &rloc, r#"a table like [flow.rack] reo_timer = "linux""#)?;
            self.only_keys(rt, &rloc, &["reo_timer", "advance"], "in [flow.rack]")?;
            self.set_named(rt, &rloc, "reo_timer", &mut f.rack_reo_timer)?;
            self.set_named(rt, &rloc, "advance", &mut f.rack_advance)?;
            if f.rack_reo_timer != ReoTimer::Exact && f.timer_hz == 0 {
                return Err(self.err(
                    &rloc.key("reo_timer"),
                    format!(
                        r#"reo_timer = "{}" counts jiffies of the flow's timer_hz, which is 0 (exact timers); set timer_hz (e.g. 250) or use reo_timer = "exact""#,
                        f.rack_reo_timer.name()
                    ),
                ));
            }
            self.parameters_read(&rloc, "rack", "detection", &f.detection)?;
        }
        if let Some(v) = t.get("rack-tlp") {
            let ploc = loc.key("rack-tlp");
            let pt = self.table(v, &ploc, r#"a table like [flow.rack-tlp] pto = "linux""#)?;
            self.only_keys(pt, &ploc, &["pto"], "in [flow.rack-tlp]")?;
            self.set_named(pt, &ploc, "pto", &mut f.rack_tlp_pto)?;
            // "linux" with exact timers is its sum unrounded; two jiffies
            // of no HZ mean nothing.
            if f.rack_tlp_pto == Pto::LinuxTwoJiffies && f.timer_hz == 0 {
                return Err(self.err(
                    &ploc.key("pto"),
                    r#"pto = "linux-2-jiffies" counts jiffies of the flow's timer_hz, which is 0 (exact timers); set timer_hz (e.g. 250) or use pto = "linux" (exact: 2 SRTT + 2 ms) or "rfc8985""#,
                ));
            }
            self.parameters_read(&ploc, "rack-tlp", "timers", &f.timers)?;
        }
        if t.contains_key("probe_gate") && !losslab_core::timers::arms_probes(&f.timers) {
            return Err(self.err(
                &loc.key("probe_gate"),
                format!(
                    "probe_gate is read only with timers = \"tlp\", \"tlpr\" or \"rack-tlp\", and this flow's timers is {:?}; remove it or set timers",
                    f.timers
                ),
            ));
        }
        crate::profile::finish(&mut f, t.contains_key("init_cwnd"));
        Ok(f)
    }

    /// `[flow.cubic] hystart`: `true` (Linux's HyStart, as before the
    /// strings), `false`, or one of `HyStartMode::NAMES`.
    fn hystart(&self, v: &Value, loc: &Loc) -> Res<HyStartMode> {
        let expected = format!(
            "true, false or one of {}",
            HyStartMode::NAMES
                .iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        match v {
            Value::Boolean(true) => Ok(HyStartMode::Linux),
            Value::Boolean(false) => Ok(HyStartMode::Off),
            Value::String(s) => HyStartMode::by_name(s).ok_or_else(|| {
                self.err(loc, format!("unknown hystart {s:?} (expected {expected})"))
            }),
            other => Err(self.err(loc, format!("expected {expected}, got {}", describe(other)))),
        }
    }

    /// `[flow.tcp-rr] rto_factor`: a number in (0, 1].
    fn rto_factor(&self, v: &Value, loc: &Loc) -> Res<f64> {
        const EXPECTED: &str =
            "expected a number above 0 and at most 1 (the factor on every RTO, e.g. 0.5)";
        let f = match v {
            Value::Float(f) => *f,
            Value::Integer(i) => *i as f64,
            other => return Err(self.err(loc, format!("{EXPECTED}, got {}", describe(other)))),
        };
        if f > 0.0 && f <= 1.0 {
            Ok(f)
        } else {
            Err(self.err(loc, format!("{EXPECTED}, got {v}")))
        }
    }

    /// `[flow.or3]`: `max_replicas` (1-255 copies of one retransmission),
    /// `spread_cycles` (1-1000000 sending cycles), `overbooking`
    /// ("released", "free-buffer" or "off"), and the three principles as
    /// booleans.
    fn or3(&self, v: &Value, loc: &Loc, mut p: Or3Params) -> Res<Or3Params> {
        let t = self.table(v, loc, "a table like [flow.or3] max_replicas = 7")?;
        self.only_keys(t, loc, OR3_KEYS, "in [flow.or3]")?;
        if let Some(x) = t.get("max_replicas") {
            p.max_replicas = self.integer(
                x,
                &loc.key("max_replicas"),
                1,
                255,
                "copies of one retransmission",
            )? as u32;
        }
        if let Some(x) = t.get("spread_cycles") {
            p.spread_cycles =
                self.integer(x, &loc.key("spread_cycles"), 1, 1_000_000, "sending cycles")? as u32;
        }
        if let Some(x) = t.get("overbooking") {
            let l = loc.key("overbooking");
            let name = self.string(x, &l, "\"released\", \"free-buffer\" or \"off\"")?;
            p.overbooking = Overbooking::parse(name).ok_or_else(|| {
                self.err(
                    &l,
                    format!("expected \"released\", \"free-buffer\" or \"off\", got {name:?}"),
                )
            })?;
        }
        for key in OR3_SWITCHES {
            let Some(x) = t.get(*key) else { continue };
            let b = self.boolean(x, &loc.key(key))?;
            match *key {
                "opportunism" => p.opportunism = b,
                "redundancy" => p.redundancy = b,
                _ => p.randomization = b,
            }
        }
        Ok(p)
    }

    /// `[flow.newreno]`: `variant = "slow-but-steady" | "impatient"`, read
    /// only with `recovery = "newreno"` (the congestion controller of the
    /// same name takes no parameters, which the error says when it is
    /// the flow's cc).
    fn newreno(
        &self,
        v: &Value,
        loc: &Loc,
        f: &FlowSpec,
        mut variant: NewRenoVariant,
    ) -> Res<NewRenoVariant> {
        let t = self.table(
            v,
            loc,
            r#"a table like [flow.newreno] variant = "impatient""#,
        )?;
        self.only_keys(t, loc, &["variant"], "in [flow.newreno]")?;
        self.set_named(t, loc, "variant", &mut variant)?;
        if f.recovery != "newreno" && f.cc.name() == "newreno" {
            return Err(self.err(
                loc,
                format!(
                    "parameters for the newreno recovery algorithm given but this flow's recovery is {:?} (cc = \"newreno\" takes no parameters); set recovery = \"newreno\" or remove [flow.newreno]",
                    f.recovery
                ),
            ));
        }
        self.parameters_read(loc, "newreno", "recovery", &f.recovery)?;
        Ok(variant)
    }

    /// `[flow.qarr]` / `[flow.barr]`: a positive integer under `key` or
    /// under its `alias`, not both; None when neither is given.
    fn aliased_count(&self, t: &Table, loc: &Loc, p: &AliasedCount) -> Res<Option<u32>> {
        let AliasedCount {
            key, alias, unit, ..
        } = *p;
        let (name, x) = match (t.get(key), t.get(alias)) {
            (Some(_), Some(_)) => {
                return Err(self.err(
                    &loc.key(alias),
                    format!("{alias} is another name for {key}; give one of them"),
                ))
            }
            (Some(x), None) => (key, x),
            (None, Some(x)) => (alias, x),
            (None, None) => return Ok(None),
        };
        let n = self.integer(x, &loc.key(name), 1, i64::from(u32::MAX), unit)?;
        Ok(Some(n as u32))
    }

    /// A `[flow.ALG]` table is read only when the flow's `key` names ALG;
    /// otherwise its parameters would be a silent default.
    fn parameters_read(&self, loc: &Loc, alg: &str, key: &str, actual: &str) -> Res<()> {
        if actual == alg {
            return Ok(());
        }
        Err(self.err(
            loc,
            format!(
                "parameters for {alg} given but this flow's {key} is {actual:?}; set {key} = \"{alg}\" or remove [flow.{alg}]"
            ),
        ))
    }

    /// `[flow.early-retransmit]`: `mitigation = "none" | "reordering" |
    /// "delay" | "both"`.
    /// The keys given override `spec` (a profile's values, or the
    /// defaults).
    fn early_retransmit(
        &self,
        v: &Value,
        loc: &Loc,
        mut spec: EarlyRetransmitSpec,
    ) -> Res<EarlyRetransmitSpec> {
        let t = self.table(
            v,
            loc,
            r#"a table like [flow.early-retransmit] mitigation = "both""#,
        )?;
        self.only_keys(t, loc, EARLY_RETRANSMIT_KEYS, "in [flow.early-retransmit]")?;
        if let Some(v) = t.get("mitigation") {
            let mloc = loc.key("mitigation");
            let expected = ErMitigation::NAMES.join(", ");
            let name = self.string(v, &mloc, &format!("one of {expected}"))?;
            spec.mitigation = ErMitigation::from_name(name).ok_or_else(|| {
                self.err(
                    &mloc,
                    format!(
                        "unknown early-retransmit mitigation {name:?} (expected one of: {expected})"
                    ),
                )
            })?;
        }
        if let Some(v) = t.get("variant") {
            let vloc = loc.key("variant");
            let expected = ErVariant::NAMES.join(", ");
            let name = self.string(v, &vloc, &format!("one of {expected}"))?;
            spec.variant = ErVariant::from_name(name).ok_or_else(|| {
                self.err(
                    &vloc,
                    format!(
                        "unknown early-retransmit variant {name:?} (expected one of: {expected})"
                    ),
                )
            })?;
        }
        Ok(spec)
    }

    /// `[flow.le]`: `order = "sack" | "echo"` (detect/le.rs; only with
    /// detection = "le") and `grow_in_recovery = true | false`
    /// (recovery/le.rs; only with recovery = "le").
    fn le(&self, v: &Value, loc: &Loc, f: &mut FlowSpec) -> Res<()> {
        let t = self.table(v, loc, r#"a table like [flow.le] order = "echo""#)?;
        self.only_keys(t, loc, &["order", "grow_in_recovery"], "in [flow.le]")?;
        if t.contains_key("order") || t.is_empty() {
            self.parameters_read(loc, "le", "detection", &f.detection)?;
        }
        self.set_named(t, loc, "order", &mut f.le_order)?;
        if let Some(g) = t.get("grow_in_recovery") {
            let gloc = loc.key("grow_in_recovery");
            if f.recovery != "le" {
                return Err(self.err(
                    &gloc,
                    format!(
                        "grow_in_recovery is read only with recovery = \"le\", and this flow's recovery is {:?}",
                        f.recovery
                    ),
                ));
            }
            f.le_grow_in_recovery = self.boolean(g, &gloc)?;
        }
        Ok(())
    }

    fn cc(&self, v: &Value, loc: &Loc) -> Res<CcSpec> {
        let s = self.string(v, loc, "a congestion control name like \"newreno\"")?;
        if s == "newreno" {
            return Ok(CcSpec::NewReno);
        }
        if s == "fixed" || s.starts_with("fixed:") {
            let n = s
                .strip_prefix("fixed:")
                .and_then(|n| n.parse::<u64>().ok())
                .filter(|&n| n >= 1);
            return match n {
                Some(n) => Ok(CcSpec::Fixed(n)),
                None => Err(self.err(
                    loc,
                    format!(
                        "expected fixed:N with N a window of at least 1 segment, like \"fixed:32\", got {s:?}"
                    ),
                )),
            };
        }
        match CC.check(s) {
            Ok(()) => Ok(CcSpec::Named(s.to_string())),
            Err(m) => Err(self.err(loc, m)),
        }
    }

    fn extensions(&self, v: &Value, loc: &Loc) -> Res<Vec<String>> {
        let Value::Array(items) = v else {
            return Err(self.err(
                loc,
                format!(
                    "expected an array of extension names like [\"hack1\"], got {}",
                    describe(v)
                ),
            ));
        };
        let mut out: Vec<String> = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let iloc = loc.index(i);
            let s = self.string(item, &iloc, "an extension name")?;
            EXTENSIONS.check(s).map_err(|m| self.err(&iloc, m))?;
            if out.iter().any(|e| e == s) {
                return Err(self.err(&iloc, format!("extension {s:?} is listed twice")));
            }
            out.push(s.to_string());
        }
        Ok(out)
    }

    /// `sndbuf = { model = "linux", grow_factor = 2, wmem = ["4096B",
    /// "16kB", "4MB"] }` (sndbuf.rs; Linux 3.10's defaults).
    fn linux_sndbuf(&self, t: &Table, loc: &Loc) -> Res<LinuxSndbuf> {
        self.only_keys(
            t,
            loc,
            &["model", "grow_factor", "wmem", "wake_delay"],
            "in sndbuf",
        )?;
        let mloc = loc.key("model");
        match t.get("model") {
            Some(v) => {
                let m = self.string(v, &mloc, "\"linux\"")?;
                if m != "linux" {
                    return Err(self.err(
                        &mloc,
                        format!("expected \"linux\" (the only send-buffer model), got {m:?}"),
                    ));
                }
            }
            None => return Err(self.missing(&mloc, "\"linux\"")),
        }
        let mut m = LinuxSndbuf::default();
        if let Some(v) = t.get("wake_delay") {
            m.wake_delay = self.duration(v, &loc.key("wake_delay"))?;
        }
        if let Some(v) = t.get("grow_factor") {
            let gloc = loc.key("grow_factor");
            const EXPECTED: &str = "expected a number of at least 1 (sndbuf = factor x cwnd; Linux 2, the mobile paper 3)";
            m.grow_factor = match v {
                Value::Float(x) => *x,
                Value::Integer(i) => *i as f64,
                other => {
                    return Err(self.err(&gloc, format!("{EXPECTED}, got {}", describe(other))))
                }
            };
            if !(m.grow_factor >= 1.0 && m.grow_factor <= 64.0) {
                return Err(self.err(&gloc, format!("{EXPECTED} and at most 64, got {v}")));
            }
        }
        if let Some(v) = t.get("wmem") {
            let wloc = loc.key("wmem");
            const EXPECTED: &str =
                "expected three sizes [min, default, max] like [\"4096B\", \"16kB\", \"4MB\"] (tcp_wmem)";
            let Value::Array(items) = v else {
                return Err(self.err(&wloc, format!("{EXPECTED}, got {}", describe(v))));
            };
            if items.len() != 3 {
                return Err(self.err(&wloc, format!("{EXPECTED}, got {} values", items.len())));
            }
            let mut w = [0u64; 3];
            for (i, item) in items.iter().enumerate() {
                w[i] = self.positive_size(item, &wloc.index(i), "each tcp_wmem value")?;
            }
            if !(w[0] <= w[1] && w[1] <= w[2]) {
                return Err(self.err(
                    &wloc,
                    format!("{EXPECTED} with min <= default <= max, got {v}"),
                ));
            }
            (m.wmem_min, m.wmem_default, m.wmem_max) = (w[0], w[1], w[2]);
        }
        Ok(m)
    }

    /// `sndbuf-factor-3` is the Linux send buffer with grow factor 3; it
    /// cannot apply to a fixed buffer, nor to a Linux buffer given another
    /// factor.
    fn check_sndbuf_factor_3(&self, f: &FlowSpec, loc: &Loc) -> Res<()> {
        if !f.extensions.iter().any(|e| e == "sndbuf-factor-3") {
            return Ok(());
        }
        if f.sndbuf.is_some() {
            return Err(self.err(
                &loc.key("extensions"),
                "sndbuf-factor-3 grows Linux's send buffer by 3 x cwnd, but sndbuf is a fixed size; use sndbuf = \"auto\" or \"linux\"",
            ));
        }
        if let Some(m) = f.sndbuf_model {
            if m.grow_factor != LinuxSndbuf::default().grow_factor && m.grow_factor != 3.0 {
                return Err(self.err(
                    &loc.key("extensions"),
                    format!(
                        "sndbuf-factor-3 sets the grow factor to 3, but sndbuf.grow_factor is {}; keep one of them",
                        m.grow_factor
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The app, and for a chunks app the `connections` it gave.
    fn app(&self, v: &Value, loc: &Loc) -> Res<(AppSpec, Option<u32>)> {
        let mut connections = None;
        let app = self.app_kind(v, loc, &mut connections)?;
        Ok((app, connections))
    }

    fn app_kind(&self, v: &Value, loc: &Loc, connections: &mut Option<u32>) -> Res<AppSpec> {
        let t = self.table(
            v,
            loc,
            r#"a table like { kind = "bulk" } or { kind = "bytes", size = "50MB" }"#,
        )?;
        let kloc = loc.key("kind");
        let kind = match t.get("kind") {
            Some(v) => self.string(v, &kloc, "an app kind")?,
            None => return Err(self.missing(&kloc, &format!("one of {}", APP_KINDS.join(", ")))),
        };
        let level = format!("in an app of kind {kind:?}");
        match kind {
            "bulk" => {
                self.only_keys(t, loc, &["kind"], &level)?;
                Ok(AppSpec::Bulk)
            }
            "bytes" => {
                self.only_keys(t, loc, &["kind", "size"], &level)?;
                let v = self.required(t, loc, "size", units::SIZE_LIKE)?;
                Ok(AppSpec::Bytes(self.positive_size(
                    v,
                    &loc.key("size"),
                    "the size",
                )?))
            }
            "writes" => {
                self.only_keys(t, loc, &["kind", "writes"], &level)?;
                let v = self.required(
                    t,
                    loc,
                    "writes",
                    r#"an array of [time, size] pairs like [["0ms", "20kB"], ["500ms", "10kB"]]"#,
                )?;
                self.writes(v, &loc.key("writes")).map(AppSpec::Writes)
            }
            "objects" => {
                self.only_keys(t, loc, &["kind", "sizes", "after"], &level)?;
                let v = self.required(
                    t,
                    loc,
                    "sizes",
                    r#"an array of object sizes like ["24kB", "3kB"]"#,
                )?;
                let sloc = loc.key("sizes");
                let Value::Array(items) = v else {
                    return Err(self.err(
                        &sloc,
                        format!(
                            r#"expected an array of object sizes like ["24kB", "3kB"], got {}"#,
                            describe(v)
                        ),
                    ));
                };
                if items.is_empty() {
                    return Err(self.err(&sloc, "at least one object is required"));
                }
                let sizes = items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| self.positive_size(x, &sloc.index(i), "an object"))
                    .collect::<Res<Vec<u64>>>()?;
                let after = match t.get("after") {
                    Some(v) => Some(
                        self.string(v, &loc.key("after"), "a flow name")?
                            .to_string(),
                    ),
                    None => None,
                };
                Ok(AppSpec::Objects { sizes, after })
            }
            "chunks" => {
                self.only_keys(t, loc, &["kind", "file", "chunk", "connections"], &level)?;
                let v = self.required(t, loc, "file", r#"the file's size, like "1GB""#)?;
                let file = self.positive_size(v, &loc.key("file"), "the file")?;
                let v = self.required(t, loc, "chunk", r#"the chunk size, like "1MB""#)?;
                let chunk = self.positive_size(v, &loc.key("chunk"), "a chunk")?;
                if let Some(v) = t.get("connections") {
                    *connections = Some(self.integer(
                        v,
                        &loc.key("connections"),
                        1,
                        i64::from(u32::MAX),
                        "parallel connections sharing the file, the flow's count",
                    )? as u32);
                }
                Ok(AppSpec::Chunks { file, chunk })
            }
            other => Err(self.err(
                &kloc,
                format!(
                    "unknown app kind {other:?} (expected one of: {})",
                    APP_KINDS.join(", ")
                ),
            )),
        }
    }

    fn writes(&self, v: &Value, loc: &Loc) -> Res<Vec<(Time, u64)>> {
        const PAIR: &str = r#"a [time, size] pair like ["500ms", "10kB"]"#;
        let Value::Array(items) = v else {
            return Err(self.err(
                loc,
                format!("expected an array of {PAIR}s, got {}", describe(v)),
            ));
        };
        if items.is_empty() {
            return Err(self.err(loc, "at least one write is required"));
        }
        let mut out: Vec<(Time, u64)> = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let iloc = loc.index(i);
            let pair = match item {
                Value::Array(pair) if pair.len() == 2 => pair,
                other => {
                    return Err(self.err(&iloc, format!("expected {PAIR}, got {}", describe(other))))
                }
            };
            let at = self.duration(&pair[0], &iloc.index(0))?;
            let bytes = self.positive_size(&pair[1], &iloc.index(1), "a write")?;
            if let Some(&(prev, _)) = out.last() {
                if at < prev {
                    return Err(self.err(
                        &iloc.index(0),
                        format!(
                            "writes must be in time order: {} comes after {}",
                            units::format_duration(at),
                            units::format_duration(prev)
                        ),
                    ));
                }
            }
            out.push((at, bytes));
        }
        Ok(out)
    }

    /// The receiver table over `base`, the flow's receiver as its profile
    /// left it: keys the table leaves out keep the profile's values
    /// (before issue 32 they fell back to the defaults, so `receiver =
    /// { rcvbuf = "4MB" }` undid a profile's delayed-ACK engine).
    fn receiver(&self, v: &Value, loc: &Loc, base: ReceiverSpec) -> Res<ReceiverSpec> {
        let t = self.table(
            v,
            loc,
            r#"a table like { ack = "delayed", sack_blocks = 3, rcvbuf = "16MB", read_rate = "inf" }"#,
        )?;
        self.only_keys(t, loc, RECEIVER_KEYS, "in receiver")?;
        let mut r = base;
        if let Some(v) = t.get("ack") {
            let aloc = loc.key("ack");
            r.ack = match self.string(v, &aloc, "\"delayed\" or \"quick\"")? {
                "delayed" => AckSpec::Delayed,
                "quick" => AckSpec::Quick,
                other => {
                    return Err(self.err(
                        &aloc,
                        format!("unknown ack mode {other:?} (expected one of: delayed, quick)"),
                    ))
                }
            };
        }
        if let Some(v) = t.get("delack") {
            let dloc = loc.key("delack");
            match v {
                Value::String(s) if s == "linux" => r.linux_delack = true,
                _ => {
                    let parse = |s: &str| units::parse_duration(s).map_err(|m| or_word(m, "linux"));
                    let t = self.with_unit(v, &dloc, &DURATION, parse)?;
                    if t == 0 {
                        return Err(self.err(
                            &dloc,
                            format!("a delayed-ACK timeout must be above 0, got {v}"),
                        ));
                    }
                    r.linux_delack = false;
                    r.delack_timeout = t;
                }
            }
        }
        if let Some(v) = t.get("sack_blocks") {
            r.sack_blocks = self.integer(
                v,
                &loc.key("sack_blocks"),
                0,
                4,
                "SACK blocks per ACK; 0 disables SACK",
            )? as u8;
        }
        if let Some(v) = t.get("rcvbuf") {
            r.rcvbuf = self.positive_size(v, &loc.key("rcvbuf"), "rcvbuf")?;
        }
        if let Some(v) = t.get("read_delay") {
            r.read_delay = self.duration(v, &loc.key("read_delay"))?;
        }
        if let Some(v) = t.get("window_clamp") {
            let wloc = loc.key("window_clamp");
            r.window_clamp = match v {
                Value::String(s) if s == "none" => None,
                _ => {
                    let parse = |s: &str| units::parse_size(s).map_err(|m| or_word(m, "none"));
                    match self.with_unit(v, &wloc, &SIZE, parse)? {
                        0 => {
                            return Err(self.err(
                                &wloc,
                                format!("window_clamp must be at least 1B or \"none\", got {v}"),
                            ))
                        }
                        n => Some(n),
                    }
                }
            };
        }
        if let Some(v) = t.get("grow_window") {
            let gloc = loc.key("grow_window");
            r.grow_window = match self.string(v, &gloc, "\"off\" or \"linux\"")? {
                "off" => false,
                "linux" => true,
                other => {
                    return Err(self.err(
                        &gloc,
                        format!("unknown grow_window {other:?} (expected one of: off, linux)"),
                    ))
                }
            };
        }
        if let Some(v) = t.get("autotune") {
            let aloc = loc.key("autotune");
            r.autotune = match self.string(v, &aloc, "\"off\" or \"linux\"")? {
                "off" => false,
                "linux" => true,
                other => {
                    return Err(self.err(
                        &aloc,
                        format!("unknown autotune {other:?} (expected one of: off, linux)"),
                    ))
                }
            };
        }
        if let Some(v) = t.get("read_rate") {
            let rloc = loc.key("read_rate");
            r.read_rate = match v {
                Value::String(s) if s == "inf" => None,
                // TOML's own infinity, `read_rate = inf`, means the same.
                Value::Float(f) if *f == f64::INFINITY => None,
                _ => {
                    let parse = |s: &str| units::parse_rate(s).map_err(|m| or_word(m, "inf"));
                    let bps = self.with_unit(v, &rloc, &RATE, parse)?;
                    // Stored in bytes per second; a rate below one byte per
                    // second would round to "never reads".
                    match (bps + 4) / 8 {
                        0 => {
                            return Err(self.err(
                                &rloc,
                                format!(
                                "read_rate must be at least 8bps (one byte per second), got {v}"
                            ),
                            ))
                        }
                        bytes => Some(bytes),
                    }
                }
            };
        }
        Ok(r)
    }

    /// A drop model must name an existing flow, and `tail` needs a flow
    /// with a last segment.
    fn check_drop_target(&self, loss: &LossModel, loc: &Loc, flows: &[FlowSpec]) -> Res<()> {
        let LossModel::Drop {
            flow: target,
            which,
        } = loss
        else {
            return Ok(());
        };
        let floc = loc.key("flow");
        let found = flows.iter().find(|f| {
            if f.count == 1 {
                f.name == *target
            } else {
                is_connection_of(f, target)
            }
        });
        let Some(flow) = found else {
            if let Some(f) = flows.iter().find(|f| f.name == *target) {
                return Err(self.err(
                    &floc,
                    format!(
                        "flow {target:?} has count = {}, so it is {} connections; name one of them, {:?} .. {:?}",
                        f.count,
                        f.count,
                        format!("{target}.1"),
                        format!("{target}.{}", f.count)
                    ),
                ));
            }
            return Err(self.err(
                &floc,
                format!("no flow named {target:?} (flows: {})", flow_names(flows)),
            ));
        };
        if matches!(which, DropSpec::Tail(_)) && matches!(flow.app, AppSpec::Chunks { .. }) {
            return Err(self.err(
                &loc.key("tail"),
                format!(
                    "flow {target:?} sends a chunked file, and where each connection's stream ends is known only when the run has handed out the last chunk; tail needs an app of kind \"bytes\" or \"writes\""
                ),
            ));
        }
        if matches!(which, DropSpec::Tail(_)) && flow.app == AppSpec::Bulk {
            return Err(self.err(
                &loc.key("tail"),
                format!(
                    "flow {target:?} is a bulk flow, which has no last segments; tail needs an app of kind \"bytes\" or \"writes\""
                ),
            ));
        }
        if matches!(which, DropSpec::Syns(_)) && !flow.handshake {
            return Err(self.err(
                &loc.key("syns"),
                format!("flow {target:?} has handshake = false: it sends no SYN to drop"),
            ));
        }
        Ok(())
    }
}

/// Rewrites "expected X, got Y" as "expected "WORD" or X, got Y" for keys
/// that also take a keyword ("auto", "inf").
fn or_word(message: String, word: &str) -> String {
    match message.strip_prefix("expected ") {
        Some(rest) => format!("expected {word:?} or {rest}"),
        None => message,
    }
}

/// The names a flow runs under: NAME, or NAME.1 .. NAME.N with count.
fn expanded_names(f: &FlowSpec) -> Vec<String> {
    if f.count <= 1 {
        vec![f.name.clone()]
    } else {
        (1..=f.count).map(|k| format!("{}.{k}", f.name)).collect()
    }
}

/// Whether `target` names one of `f`'s connections, NAME.1 .. NAME.count,
/// found without listing them (a count runs to 4 billion).
fn is_connection_of(f: &FlowSpec, target: &str) -> bool {
    f.count > 1
        && target
            .strip_prefix(f.name.as_str())
            .and_then(|r| r.strip_prefix('.'))
            .and_then(|k| k.parse::<u32>().ok().filter(|n| n.to_string() == k))
            .is_some_and(|k| (1..=f.count).contains(&k))
}

/// Every flow's connection names for a message, a counted flow with more
/// than a few connections shown as its first and last.
fn flow_names(flows: &[FlowSpec]) -> String {
    let mut names: Vec<String> = Vec::new();
    for f in flows {
        if f.count <= 4 {
            names.push(quoted_list(&expanded_names(f)));
        } else {
            names.push(format!(
                "{:?} .. {:?}",
                format!("{}.1", f.name),
                format!("{}.{}", f.name, f.count)
            ));
        }
    }
    names.join(", ")
}

#[cfg(test)]
mod input_limit_tests {
    use super::*;

    #[test]
    fn parse_cost_is_refused_over_the_limit() {
        assert!(check_parse_cost(100_000, false, 100_000 * PARSE_BYTES_PER_BYTE).is_ok());
        assert!(check_parse_cost(100_001, false, 100_000 * PARSE_BYTES_PER_BYTE).is_err());
        // A file as short as the examples passes any limit.
        assert!(check_parse_cost(PARSE_FREE_BYTES, false, 1).is_ok());
        let e = check_parse_cost(24_000_000, false, 200_000_000).unwrap_err();
        assert!(e.contains("24.0 MB of TOML"), "{e}");
        assert!(e.contains("200.0 MB"), "{e}");
        assert!(e.contains("--max-memory"), "{e}");
        assert!(check_parse_cost(u64::MAX, true, u64::MAX - 1).is_err());
    }

    #[test]
    fn read_text_refuses_by_size_before_reading() {
        let dir = std::env::temp_dir().join(format!("losslab-parse-cost-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("s.toml");
        std::fs::write(&f, "x = 1\n".repeat(10_000)).unwrap();
        assert!(read_text_within(&f, 60_000 * PARSE_BYTES_PER_BYTE).is_ok());
        let e = read_text_within(&f, 59_999 * PARSE_BYTES_PER_BYTE).unwrap_err();
        assert!(e.contains("60.0 kB of TOML"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_device_is_read_no_further_than_the_limit_allows() {
        let e = read_text_within(Path::new("/dev/zero"), 100_000 * PARSE_BYTES_PER_BYTE);
        let e = e.unwrap_err();
        assert!(e.contains("goes on past 0.1 MiB"), "{e}");
        assert!(e.contains("--max-memory"), "{e}");
    }

    #[test]
    fn a_long_line_is_cut_around_the_error() {
        let mut text = "x = [".to_string() + &"1,".repeat(150_000);
        text.push_str(",]\n");
        let e = parse_scenario("long.toml", &text, &[])
            .unwrap_err()
            .to_string();
        assert!(e.len() < 2048, "{}", e.len());
        assert!(
            e.starts_with("long.toml: TOML parse error at line 1, column"),
            "{e}"
        );
        assert!(e.contains("..."), "{e}");
        // A short line is shown whole, with the caret under the column.
        let e = parse_scenario("s.toml", "a = 1\nb = ?\n", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2, column 5"), "{e}");
        assert!(e.contains("2 | b = ?\n  |     ^"), "{e}");
    }
}
