//! Reading a run directory: summary.json, timeseries.csv, packets.csv.
//!
//! The CSV files are losslab's own (no quoting, no commas inside fields),
//! so a hand-rolled splitter is enough and keeps large traces fast to load.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::VizError;

/// What happened to a packet (packets.csv `event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Sent,
    QueueDrop,
    LossDrop,
    Delivered,
}

impl Fate {
    fn parse(s: &str) -> Option<Fate> {
        Some(match s {
            "sent" => Fate::Sent,
            "queue_drop" => Fate::QueueDrop,
            "loss_drop" => Fate::LossDrop,
            "delivered" => Fate::Delivered,
            _ => return None,
        })
    }
    pub fn is_drop(self) -> bool {
        matches!(self, Fate::QueueDrop | Fate::LossDrop)
    }
}

/// One `data` row of packets.csv.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataEvent {
    pub time_s: f64,
    pub fate: Fate,
    pub seq: u64,
    pub len: u32,
    /// Transmission count, 1 = original.
    pub tx: u32,
}

/// One `ack` row of packets.csv; its SACK blocks are
/// `FlowData::sack_blocks[sack_from..sack_from + sack_len]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckEvent {
    pub time_s: f64,
    pub fate: Fate,
    pub ack: u64,
    pub win: u64,
    pub sack_from: u32,
    pub sack_len: u8,
    pub dsack: bool,
}

/// One row of timeseries.csv.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesRow {
    pub time_s: f64,
    pub cwnd: f64,
    /// None until ssthresh is first set.
    pub ssthresh: Option<f64>,
    pub pipe: f64,
    pub inflight: f64,
    pub srtt_ms: f64,
    pub rto_ms: f64,
    pub snd_una: u64,
    pub snd_nxt: u64,
}

/// A recovery period from summary.json.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovery {
    pub start_s: f64,
    /// None while it was still open at the end of the run.
    pub end_s: Option<f64>,
    pub kind: String,
}

#[derive(Clone, Debug, Default)]
pub struct FlowData {
    pub name: String,
    /// The flow's name in file names (`tsg-<stem>.svg`): unique among
    /// the run's flows and the same as its pcaps'
    /// (`losslab_core::stem::file_stems`), whether or not only this
    /// flow is loaded.
    pub stem: String,
    pub start_s: f64,
    pub rtt_min_ms: Option<f64>,
    pub rtt_mean_ms: Option<f64>,
    pub recoveries: Vec<Recovery>,
    /// timeseries.csv rows of this flow (empty without the file).
    pub series: Vec<SeriesRow>,
    /// packets.csv rows of this flow, in file (= time) order.
    pub data: Vec<DataEvent>,
    pub acks: Vec<AckEvent>,
    pub sack_blocks: Vec<(u64, u64)>,
}

impl FlowData {
    pub fn sack_of(&self, a: &AckEvent) -> &[(u64, u64)] {
        let from = a.sack_from as usize;
        &self.sack_blocks[from..from + a.sack_len as usize]
    }
}

/// Everything a run directory holds that the pictures use.
#[derive(Clone, Debug)]
pub struct RunData {
    pub dir: PathBuf,
    pub scenario: String,
    pub sim_time_s: f64,
    pub flows: Vec<FlowData>,
    /// Why timeseries.csv was not loaded (None when it was).
    pub timeseries_missing: Option<String>,
    /// Why packets.csv was not loaded (None when it was).
    pub packets_missing: Option<String>,
}

impl RunData {
    pub fn has_timeseries(&self) -> bool {
        self.timeseries_missing.is_none()
    }
    pub fn has_packets(&self) -> bool {
        self.packets_missing.is_none()
    }
    pub fn flow(&self, name: &str) -> Option<&FlowData> {
        self.flows.iter().find(|f| f.name == name)
    }
}

/// DIR/summary.json's path and document, and its `flows` array.
fn read_summary(dir: &Path) -> Result<(PathBuf, Value), VizError> {
    let summary_path = dir.join("summary.json");
    let text = std::fs::read_to_string(&summary_path).map_err(|e| {
        VizError(format!(
            "cannot read {}: {e} (every `losslab run` writes summary.json; is {} a run directory?)",
            summary_path.display(),
            dir.display()
        ))
    })?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| VizError(format!("{}: not valid JSON: {e}", summary_path.display())))?;
    if !v.get("flows").is_some_and(Value::is_array) {
        return Err(VizError(format!(
            "{}: no `flows` array",
            summary_path.display()
        )));
    }
    Ok((summary_path, v))
}

fn flow_name(path: &Path, i: usize, f: &Value) -> Result<String, VizError> {
    f.get("name")
        .and_then(Value::as_str)
        .map(String::from)
        .ok_or_else(|| VizError(format!("{}: flows[{i}] has no `name`", path.display())))
}

/// The names of the run's flows, in summary.json's order.
pub(crate) fn flow_names(dir: &Path) -> Result<Vec<String>, VizError> {
    let (path, v) = read_summary(dir)?;
    v["flows"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, f)| flow_name(&path, i, f))
        .collect()
}

pub(crate) fn load(dir: &Path, only_flow: Option<&str>) -> Result<RunData, VizError> {
    let (summary_path, v) = read_summary(dir)?;
    let bad = |what: &str| VizError(format!("{}: {what}", summary_path.display()));
    let flows_v = v["flows"].as_array().into_iter().flatten();
    let mut flows = Vec::new();
    for (i, f) in flows_v.enumerate() {
        let name = flow_name(&summary_path, i, f)?;
        let rtt = f.get("rtt_ms");
        let rtt_of = |k: &str| rtt.and_then(|r| r.get(k)).and_then(Value::as_f64);
        let mut recoveries = Vec::new();
        for r in f
            .get("recoveries")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let start_s = r
                .get("start_s")
                .and_then(Value::as_f64)
                .ok_or_else(|| bad(&format!("flow {name}: a recovery has no `start_s`")))?;
            recoveries.push(Recovery {
                start_s,
                end_s: r.get("end_s").and_then(Value::as_f64),
                kind: r
                    .get("kind")
                    .and_then(Value::as_str)
                    .unwrap_or("fast")
                    .to_string(),
            });
        }
        flows.push(FlowData {
            start_s: f.get("start_s").and_then(Value::as_f64).unwrap_or(0.0),
            rtt_min_ms: rtt_of("min"),
            rtt_mean_ms: rtt_of("mean"),
            recoveries,
            name,
            ..Default::default()
        });
    }
    let names: Vec<&str> = flows.iter().map(|f| f.name.as_str()).collect();
    let stems = losslab_core::stem::file_stems(&names);
    for (f, stem) in flows.iter_mut().zip(stems) {
        f.stem = stem;
    }
    if let Some(only) = only_flow {
        if !flows.iter().any(|f| f.name == only) {
            let names: Vec<&str> = flows.iter().map(|f| f.name.as_str()).collect();
            return Err(VizError(format!(
                "no flow named {only:?} in {} (flows: {})",
                summary_path.display(),
                names.join(", ")
            )));
        }
        flows.retain(|f| f.name == only);
    }
    let mut run = RunData {
        dir: dir.to_path_buf(),
        scenario: v
            .get("scenario")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        sim_time_s: v.get("sim_time_s").and_then(Value::as_f64).unwrap_or(0.0),
        flows,
        timeseries_missing: None,
        packets_missing: None,
    };
    run.timeseries_missing = read_optional(dir, "timeseries.csv", "--timeseries", |r| {
        read_timeseries(r, &mut run.flows)
    })?;
    run.packets_missing = read_optional(dir, "packets.csv", "--trace", |r| {
        read_packets(r, &mut run.flows)
    })?;
    Ok(run)
}

/// Reads an optional file: Ok(Some(why)) when it is absent, an error when
/// it is present but unreadable or malformed.
fn read_optional(
    dir: &Path,
    file: &str,
    flag: &str,
    read: impl FnOnce(&mut Lines) -> Result<(), String>,
) -> Result<Option<String>, VizError> {
    let path = dir.join(file);
    let f = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Some(format!(
                "{} not found (`losslab run {flag}` writes it)",
                path.display()
            )))
        }
        Err(e) => return Err(VizError(format!("cannot read {}: {e}", path.display()))),
    };
    let mut lines = Lines::new(f);
    read(&mut lines).map_err(|e| VizError(format!("{}:{}: {e}", path.display(), lines.no)))?;
    Ok(None)
}

/// A whole trace as text, each line held to [`MAX_LINE_BYTES`]: an error
/// names the file and line.
pub(crate) fn read_trace_text(path: &Path) -> Result<String, VizError> {
    let f = File::open(path).map_err(|e| VizError(format!("{}: {e}", path.display())))?;
    let mut lines = Lines::new(f);
    let mut text = String::new();
    loop {
        match lines.next_line() {
            Ok(Some(l)) => {
                text.push_str(l);
                text.push('\n');
            }
            Ok(None) => return Ok(text),
            Err(e) => return Err(VizError(format!("{}:{}: {e}", path.display(), lines.no))),
        }
    }
}

pub(crate) struct Lines {
    inner: BufReader<File>,
    buf: String,
    no: usize,
}

/// The longest line a trace may have: its rows are under 200 bytes, and
/// a file without line breaks (zero-filled after a crash, a link to
/// /dev/zero) would otherwise be read whole into one line.
pub const MAX_LINE_BYTES: u64 = 1 << 20;

impl Lines {
    fn new(f: File) -> Lines {
        Lines {
            inner: BufReader::with_capacity(1 << 16, f),
            buf: String::new(),
            no: 0,
        }
    }

    /// The next line without its newline, or None at the end.
    fn next_line(&mut self) -> Result<Option<&str>, String> {
        self.buf.clear();
        let n = (&mut self.inner)
            .take(MAX_LINE_BYTES + 1)
            .read_line(&mut self.buf)
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return Ok(None);
        }
        self.no += 1;
        if n as u64 > MAX_LINE_BYTES {
            return Err(format!(
                "a line longer than {} MiB; not a trace losslab wrote (a damaged or zero-filled file?)",
                MAX_LINE_BYTES >> 20
            ));
        }
        Ok(Some(self.buf.trim_end_matches(['\n', '\r'])))
    }
}

fn num<T: std::str::FromStr>(s: &str, col: &str) -> Result<T, String> {
    s.parse()
        .map_err(|_| format!("column {col}: {s:?} is not a number"))
}

/// A real number of the file. Rust parses `inf`, `NaN` and `1e999`
/// (infinite), which losslab never writes: such a file was edited or
/// damaged, and is refused here rather than drawn with a hole in it.
fn real(s: &str, col: &str) -> Result<f64, String> {
    let v: f64 = num(s, col)?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("column {col}: {s:?} is not a finite number"))
    }
}

fn opt_real(s: &str, col: &str) -> Result<Option<f64>, String> {
    if s.is_empty() {
        Ok(None)
    } else {
        real(s, col).map(Some)
    }
}

/// Index of `name` in `flows`, remembering the last hit: rows of one flow
/// tend to come in runs.
fn flow_index(flows: &[FlowData], name: &str, last: &mut usize) -> Option<usize> {
    if flows.get(*last).is_some_and(|f| f.name == name) {
        return Some(*last);
    }
    let i = flows.iter().position(|f| f.name == name)?;
    *last = i;
    Some(i)
}

fn check_header(lines: &mut Lines, want: &str) -> Result<(), String> {
    match lines.next_line()? {
        Some(h) if h == want => Ok(()),
        Some(h) => Err(format!("unexpected header {h:?}; expected {want:?}")),
        None => Err("empty file".into()),
    }
}

/// timeseries.csv before and after the pacing_mbps column was added.
const TS_HEADER_V1: &str = "time_s,flow,cwnd,ssthresh,pipe,inflight,srtt_ms,rto_ms,snd_una,snd_nxt";
const TS_HEADER: &str =
    "time_s,flow,cwnd,ssthresh,pipe,inflight,srtt_ms,rto_ms,snd_una,snd_nxt,pacing_mbps";
const PKT_HEADER: &str = "time_s,flow,dir,event,seq,len,tx,ack,win,sack,dsack";

fn read_timeseries(lines: &mut Lines, flows: &mut [FlowData]) -> Result<(), String> {
    match lines.next_line()? {
        Some(h) if h == TS_HEADER || h == TS_HEADER_V1 => {}
        Some(h) => return Err(format!("unexpected header {h:?}; expected {TS_HEADER:?}")),
        None => return Err("empty file".into()),
    }
    let mut last = 0;
    while let Some(l) = lines.next_line()? {
        if l.is_empty() {
            continue;
        }
        let c: Vec<&str> = l.split(',').collect();
        if c.len() < 10 {
            return Err(format!("{} columns, expected 10", c.len()));
        }
        let Some(i) = flow_index(flows, c[1], &mut last) else {
            continue;
        };
        flows[i].series.push(SeriesRow {
            time_s: real(c[0], "time_s")?,
            cwnd: real(c[2], "cwnd")?,
            ssthresh: opt_real(c[3], "ssthresh")?,
            pipe: real(c[4], "pipe")?,
            inflight: real(c[5], "inflight")?,
            srtt_ms: real(c[6], "srtt_ms")?,
            rto_ms: real(c[7], "rto_ms")?,
            snd_una: num(c[8], "snd_una")?,
            snd_nxt: num(c[9], "snd_nxt")?,
        });
    }
    Ok(())
}

fn read_packets(lines: &mut Lines, flows: &mut [FlowData]) -> Result<(), String> {
    check_header(lines, PKT_HEADER)?;
    let mut last = 0;
    while let Some(l) = lines.next_line()? {
        if l.is_empty() {
            continue;
        }
        let mut c = [""; 11];
        let mut n = 0;
        for (k, field) in l.split(',').enumerate() {
            if k < 11 {
                c[k] = field;
            }
            n = k + 1;
        }
        if n < 11 {
            return Err(format!("{n} columns, expected 11"));
        }
        let Some(i) = flow_index(flows, c[1], &mut last) else {
            continue;
        };
        let time_s = real(c[0], "time_s")?;
        let fate = Fate::parse(c[3]).ok_or_else(|| format!("unknown event {:?}", c[3]))?;
        let f = &mut flows[i];
        match c[2] {
            "data" => f.data.push(DataEvent {
                time_s,
                fate,
                seq: num(c[4], "seq")?,
                len: num(c[5], "len")?,
                tx: num(c[6], "tx")?,
            }),
            "ack" => {
                let from = f.sack_blocks.len();
                for b in c[9].split(' ').filter(|b| !b.is_empty()) {
                    let (s, e) = b
                        .split_once('-')
                        .ok_or_else(|| format!("SACK block {b:?} is not start-end"))?;
                    f.sack_blocks.push((num(s, "sack")?, num(e, "sack")?));
                }
                f.acks.push(AckEvent {
                    time_s,
                    fate,
                    ack: num(c[7], "ack")?,
                    win: num(c[8], "win")?,
                    sack_from: from as u32,
                    sack_len: (f.sack_blocks.len() - from) as u8,
                    dsack: c[10] == "1",
                });
            }
            d => return Err(format!("unknown dir {d:?}")),
        }
    }
    Ok(())
}
