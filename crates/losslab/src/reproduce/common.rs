//! Running the experiments' scenarios: a collector of what happened at the
//! sender, and the run directories (results, traces, pictures) they leave.

use std::cell::RefCell;
use std::fs;
use std::path::Path;
use std::rc::Rc;

use losslab_core::time::{Time, MS};
use losslab_sim::packet_log::PacketLog;
use losslab_sim::scenario::*;
use losslab_sim::sim::{Body, Packet, PacketFate, Tee};
use losslab_sim::timeseries::TimeSeries;
use losslab_sim::{RunResults, Simulation, Tracer};

/// A data transmission as the sender saw it.
#[derive(Clone, Copy, Debug)]
pub struct Tx {
    pub t: Time,
    /// First byte of the segment.
    pub seq: u64,
    pub tx_count: u32,
}

/// An ACK arriving at the sender.
#[derive(Clone, Copy, Debug)]
pub struct AckRx {
    pub t: Time,
    pub ack: u64,
    /// The ACK reports data above `ack` (a SACK block other than a DSACK):
    /// the sender's scoreboard then holds SACKed segments (Linux's
    /// Disorder state, when not in recovery).
    pub sacks: bool,
}

#[derive(Clone, Debug, Default)]
pub struct FlowTrace {
    pub sent: Vec<Tx>,
    pub acks: Vec<AckRx>,
    /// Retransmissions the path dropped (ground truth).
    pub retransmissions_dropped: u64,
    /// First bytes of the data packets the path dropped, any transmission.
    pub dropped_seqs: Vec<u64>,
}

impl FlowTrace {
    /// Transmissions at exactly time `t` (what one event released).
    pub fn sent_at(&self, t: Time) -> usize {
        let lo = self.sent.partition_point(|x| x.t < t);
        let hi = self.sent.partition_point(|x| x.t <= t);
        hi - lo
    }
    pub fn retransmissions(&self) -> impl Iterator<Item = &Tx> {
        self.sent.iter().filter(|x| x.tx_count > 1)
    }
    /// Time the cumulative ACK first reached `seq`.
    pub fn acked_by(&self, seq: u64) -> Option<Time> {
        self.acks.iter().find(|a| a.ack >= seq).map(|a| a.t)
    }
    /// Latency in ms, from its write to the ACK of its last byte, of each
    /// response of `flow` (an app of writes) that `keep(first byte, end,
    /// bytes)` selects and whose last byte was acknowledged.
    pub fn response_latencies_ms(
        &self,
        flow: &FlowSpec,
        keep: impl Fn(u64, u64, u64) -> bool,
    ) -> Vec<f64> {
        let AppSpec::Writes(w) = &flow.app else {
            return vec![];
        };
        let mut out = Vec::new();
        let mut from = 0;
        for &(at, bytes) in w {
            let to = from + bytes;
            if keep(from, to, bytes) {
                if let Some(done) = self.acked_by(to) {
                    out.push(done.saturating_sub(flow.start + at) as f64 / MS as f64);
                }
            }
            from = to;
        }
        out
    }
}

#[derive(Default)]
struct Collected {
    flows: Vec<FlowTrace>,
}

struct Collector(Rc<RefCell<Collected>>);

impl Tracer for Collector {
    fn packet(&mut self, at: Time, p: &Packet, fate: PacketFate) {
        let mut c = self.0.borrow_mut();
        let f = p.flow as usize;
        if c.flows.len() <= f {
            c.flows.resize(f + 1, FlowTrace::default());
        }
        match (p.body, fate) {
            (Body::Data(s), PacketFate::Sent) => c.flows[f].sent.push(Tx {
                t: at,
                seq: s.seq,
                tx_count: s.tx_count,
            }),
            (Body::Ack(a), PacketFate::Delivered) => c.flows[f].acks.push(AckRx {
                t: at,
                ack: a.ack,
                sacks: a.sack.len() > usize::from(a.dsack),
            }),
            (Body::Data(s), PacketFate::LossDrop | PacketFate::QueueDrop) => {
                c.flows[f].dropped_seqs.push(s.seq);
                if s.tx_count > 1 {
                    c.flows[f].retransmissions_dropped += 1
                }
            }
            _ => {}
        }
    }
}

pub struct Run {
    pub results: RunResults,
    pub traces: Vec<FlowTrace>,
}

/// Runs `f(i)` for every i in `0..n` on `ctx.jobs` threads, one per core
/// by default (pool.rs, as `run --seeds` and `sweep` do); the results come
/// back in index order, so the thread count never shows in the output.
pub fn par_map<T: Send>(
    ctx: &super::Ctx,
    n: usize,
    f: impl Fn(usize) -> Result<T, String> + Sync,
) -> Result<Vec<T>, String> {
    let mut out: Vec<Option<Result<T, String>>> = (0..n).map(|_| None).collect();
    // Ctrl-C stops handing out runs (resume.rs); the batch is then
    // incomplete and its experiment fails as stopped.
    crate::pool::run_all(
        n,
        crate::pool::jobs(ctx.jobs, n),
        super::resume::stop_flag(),
        |i| Some(f(i)),
        |i, r| out[i] = Some(r),
    );
    out.into_iter()
        .map(|r| r.unwrap_or_else(|| Err(super::resume::STOPPED.into())))
        .collect()
}

/// Runs `cases` cases over seeds 1..=`seeds` on every core, each
/// scenario built by `build(case, seed)` (and exported for experiment
/// `exp` when asked), keeping `keep(results)`: by case, then seed.
///
/// The runs start longest first (by `work`) so that the batch does not
/// end on one core finishing a long run the others could have shared;
/// results go back by index, so the order never shows in the output. A
/// scenario that equals one already run in this paper's reproduction
/// (`Memo`), or an earlier one of the same batch, is not run again.
pub fn run_cases<T: Send>(
    ctx: &super::Ctx,
    exp: &str,
    cases: usize,
    seeds: u64,
    build: impl Fn(usize, u64) -> Scenario + Sync,
    keep: impl Fn(RunResults) -> T + Sync,
) -> Result<Vec<Vec<T>>, String> {
    run_cases_seeds(ctx, exp, &vec![seeds; cases], build, keep)
}

/// `run_cases` with a seed count per case: case `c` runs seeds
/// 1..=`seeds[c]`. An experiment that reads only its first seed of some
/// cases (a row "(seed 1)" and no claim) runs no more of them.
pub fn run_cases_seeds<T: Send>(
    ctx: &super::Ctx,
    exp: &str,
    seeds: &[u64],
    build: impl Fn(usize, u64) -> Scenario + Sync,
    keep: impl Fn(RunResults) -> T + Sync,
) -> Result<Vec<Vec<T>>, String> {
    let scenarios: Vec<Scenario> = seeds
        .iter()
        .enumerate()
        .flat_map(|(c, &n)| (1..=n).map(move |seed| (c, seed)))
        .map(|(c, seed)| build(c, seed))
        .collect();
    // Where each scenario's results come from: the memo, an earlier
    // scenario of this batch (the first of its kind runs and hands them
    // on), or a run. Decided here, before any run, so that neither the
    // threads nor --ray change it.
    let keys: Vec<MemoKey> = scenarios.iter().map(Memo::key).collect();
    // Taken runs are read back one at a time at the end, so that a batch
    // never holds their whole results at once.
    let taken: Vec<bool> = keys.iter().map(|k| ctx.memo.holds(k)).collect();
    let mut first_of: std::collections::HashMap<MemoKey, usize> = Default::default();
    let mut fresh: Vec<usize> = vec![];
    // users[f]: the scenarios (fresh[f] first) that take fresh run f's results.
    let mut users: Vec<Vec<usize>> = vec![];
    for (i, k) in keys.iter().enumerate() {
        if taken[i] {
            continue;
        }
        match first_of.get(k) {
            Some(&f) => users[f].push(i),
            None => {
                first_of.insert(*k, fresh.len());
                fresh.push(i);
                users.push(vec![i]);
            }
        }
    }
    super::timing::count_reused((scenarios.len() - fresh.len()) as u64);
    // Every scenario is exported, run or not: what --export writes does
    // not depend on what ran before. A local run exports its own.
    if let Some(x) = &ctx.export {
        for (i, sc) in scenarios.iter().enumerate() {
            if ctx.ray.is_some() || fresh.binary_search(&i).is_err() {
                export(x, exp, sc)?;
            }
        }
    }
    // A fresh run's results go to `keep` for each of its users on the
    // thread that ran it (so that a batch holds what `keep` keeps, not
    // whole results), and to the memo as exact JSON if the memo grants it
    // room then (`Memo::claim`), which bounds what the batch holds
    // in flight as well as what the memo keeps.
    let finish = |f: usize, mut r: RunResults| -> (Vec<T>, Option<Vec<u8>>) {
        let json = Memo::encode(&r, ctx.memo.limit(super::timing::packets(&r)))
            .filter(|j| ctx.memo.claim(j.len()));
        let mut kept = Vec::with_capacity(users[f].len());
        let (last, rest) = users[f].split_last().expect("a fresh run has a user");
        for &u in rest {
            let mut c = r.clone();
            c.scenario.clone_from(&scenarios[u].name);
            kept.push(keep(c));
        }
        r.scenario.clone_from(&scenarios[*last].name);
        kept.push(keep(r));
        (kept, json)
    };
    let to_run: Vec<&Scenario> = fresh.iter().map(|&i| &scenarios[i]).collect();
    let order = longest_first(&to_run);
    let ran: Vec<(Vec<T>, Option<Vec<u8>>)> = match &ctx.ray {
        Some(_) if to_run.is_empty() => vec![],
        Some(target) => on_ray(target, exp, &to_run, &order)?
            .into_iter()
            .enumerate()
            .map(|(k, r)| finish(order[k], r))
            .collect(),
        None => par_map(ctx, order.len(), |k| {
            let sc = to_run[order[k]];
            if let Some(x) = &ctx.export {
                export(x, exp, sc)?;
            }
            results_only(sc).map(|r| finish(order[k], r))
        })?,
    };
    let mut flat: Vec<Option<T>> = (0..scenarios.len()).map(|_| None).collect();
    let mut stored: Vec<Option<Vec<u8>>> = vec![None; fresh.len()];
    for (k, (kept, json)) in ran.into_iter().enumerate() {
        let f = order[k];
        for (&u, t) in users[f].iter().zip(kept) {
            flat[u] = Some(t);
        }
        stored[f] = json;
    }
    for (i, t) in taken.iter().enumerate() {
        if *t {
            let mut r = ctx
                .memo
                .get(&keys[i])
                .expect("the memo never lets a run go");
            r.scenario.clone_from(&scenarios[i].name);
            flat[i] = Some(keep(r));
        }
    }
    for (f, json) in stored.into_iter().enumerate() {
        if let Some(json) = json {
            ctx.memo.put(keys[fresh[f]], json);
        }
    }
    let mut out = Vec::with_capacity(seeds.len());
    let mut it = flat
        .into_iter()
        .map(|r| r.expect("every scenario has results"));
    for &n in seeds {
        out.push(it.by_ref().take(n as usize).collect());
    }
    Ok(out)
}

/// A scenario's identity for `Memo`: SHA-256 of its Debug text without
/// its name (every field, floats in their exact shortest form; the name
/// only labels the results).
pub type MemoKey = [u8; 32];

/// Results of the runs made so far in one paper's reproduction (its
/// variants and setup-choice reruns share it), by scenario. A setup
/// choice or an explanation variant changes one setting, which often
/// leaves some of an experiment's cases as they were: the OR3 paper's
/// choices of OR3's copies and their spread leave its BBR and CUBIC runs
/// alone, and its sec3-queue leaves the testbed-buffer cases. The engine
/// is deterministic (same scenario and seed, the same results, whatever
/// the threads), so results taken from an identical run are the run's,
/// the scenario's name apart (a test compares them with a run's).
///
/// Results are kept as JSON, only when they come back from it exactly
/// (serde_json's float_roundtrip; a NaN would not), and handed back
/// without the worker's wall time, which no reproduction reads. A run is
/// kept only if it simulated at least `MEMO_PACKETS_PER_BYTE` packets per
/// byte of its JSON (decided by the run alone), and only while the bytes
/// kept, with those claimed by runs of the batch under way, stay within
/// `bound` (`MEMO_BYTES` for a reproduction). Near the bound, which runs
/// fit depends on which finished first, so the threads can change what
/// is run again (the `reused` column of timings.csv), never what comes
/// out.
pub struct Memo {
    inner: std::sync::Mutex<MemoInner>,
    /// Bytes kept plus bytes claimed by runs whose batch has not ended.
    held: std::sync::atomic::AtomicUsize,
    bound: usize,
}

impl Default for Memo {
    fn default() -> Memo {
        Memo::with_bound(MEMO_BYTES)
    }
}

#[derive(Default)]
struct MemoInner {
    runs: std::collections::HashMap<MemoKey, Vec<u8>>,
}

/// The JSON the memo holds at most: about 2,000 of the OR3 paper's
/// 120-second runs at 1 Gbit/s.
pub const MEMO_BYTES: usize = 64 << 20;

/// The packets a run must have simulated per byte of its JSON for the
/// memo to keep it. A run's results grow with its recoveries (one entry
/// each), its simulation with its packets: the LE paper's short ns-2
/// runs give 0.04-2.8 packets per byte of JSON (51 of one batch's 525
/// runs filled the 64 MB), the OR3 paper's 1 Gbit/s runs mostly 2-117
/// and the mobile paper's 2-300 (`reproduce --quick`, 2026-12-02). Below
/// one packet per byte the memory buys little time (an engine packet
/// costs about 250 ns, reading a byte of JSON back a few) and would
/// crowd out the runs that buy much.
pub const MEMO_PACKETS_PER_BYTE: u64 = 1;

impl Memo {
    pub fn key(sc: &Scenario) -> MemoKey {
        use sha2::{Digest, Sha256};
        use std::fmt::Write;
        struct Hash(Sha256);
        impl Write for Hash {
            fn write_str(&mut self, s: &str) -> std::fmt::Result {
                self.0.update(s.as_bytes());
                Ok(())
            }
        }
        let mut h = Hash(Sha256::new());
        // Field by field, so that a scenario carrying a long trace is not
        // copied to blank its name; a new field of Scenario must be added
        // here (the destructuring makes that a compile error).
        let Scenario {
            name: _,
            duration,
            seed,
            path,
            reverse,
            flows,
        } = sc;
        write!(
            h,
            "{duration:?}\u{1}{seed:?}\u{1}{path:?}\u{1}{reverse:?}\u{1}{flows:?}"
        )
        .expect("hashing never fails");
        h.0.finalize().into()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemoInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn with_bound(bound: usize) -> Memo {
        Memo {
            inner: Default::default(),
            held: Default::default(),
            bound,
        }
    }

    /// The most JSON the memo would keep of a run that simulated
    /// `packets`: one byte per `MEMO_PACKETS_PER_BYTE` packets, and no
    /// more than the room left under the bound.
    fn limit(&self, packets: u64) -> usize {
        let worth = usize::try_from(packets / MEMO_PACKETS_PER_BYTE).unwrap_or(usize::MAX);
        let held = self.held.load(std::sync::atomic::Ordering::Relaxed);
        worth.min(self.bound.saturating_sub(held))
    }

    /// Room for `len` bytes, if within the bound, held until `put`.
    fn claim(&self, len: usize) -> bool {
        use std::sync::atomic::Ordering;
        self.held
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |h| {
                h.checked_add(len).filter(|&n| n <= self.bound)
            })
            .is_ok()
    }

    /// `r` as the memo keeps it, if its JSON is at most `limit` bytes and
    /// reads back unchanged. The writer stops at the limit, so that a run
    /// the memo would not keep (the LE paper's: up to 0.8 MB of results
    /// each) costs no buffer of its size: building the whole text first
    /// made the LE paper's `--thorough` peak at 100-140 MB, not 31.
    fn encode(r: &RunResults, limit: usize) -> Option<Vec<u8>> {
        struct Capped {
            buf: Vec<u8>,
            limit: usize,
        }
        impl std::io::Write for Capped {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                if self.buf.len() + b.len() > self.limit {
                    return Err(std::io::ErrorKind::FileTooLarge.into());
                }
                self.buf.extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut w = Capped { buf: vec![], limit };
        serde_json::to_writer(&mut w, r).ok()?;
        let back: RunResults = serde_json::from_slice(&w.buf).ok()?;
        // The buffer grew by doubling: keep only the text.
        w.buf.shrink_to_fit();
        (back == *r).then_some(w.buf)
    }

    fn holds(&self, k: &MemoKey) -> bool {
        self.lock().runs.contains_key(k)
    }

    fn get(&self, k: &MemoKey) -> Option<RunResults> {
        let m = self.lock();
        let json = m.runs.get(k)?;
        let mut r: RunResults =
            serde_json::from_slice(json).expect("the memo keeps only what it can read back");
        // The worker's time is the first run's, not this one's.
        r.wall_time_s = 0.0;
        Some(r)
    }

    /// Keeps `json`, whose room was claimed; a run another batch kept
    /// first gives its room back.
    fn put(&self, k: MemoKey, json: Vec<u8>) {
        let len = json.len();
        let mut m = self.lock();
        if let std::collections::hash_map::Entry::Vacant(e) = m.runs.entry(k) {
            e.insert(json);
        } else {
            self.held
                .fetch_sub(len, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Bytes of JSON kept and claimed.
    #[cfg(test)]
    fn held(&self) -> usize {
        self.held.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// `scenarios[order[k]]`'s results at index k, run as tasks on a Ray
/// cluster (ray.rs): each scenario goes as the TOML `losslab run` reads
/// (emit.rs, the text `--export` writes) and comes back as the engine's
/// results document, which carries every field of `RunResults` (floats
/// exactly: serde_json's float_roundtrip), so `keep` sees what a local
/// run gives it.
fn on_ray(
    target: &super::RayTarget,
    exp: &str,
    scenarios: &[&Scenario],
    order: &[usize],
) -> Result<Vec<RunResults>, String> {
    let tasks = order
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let sc = &scenarios[i];
            let text = losslab_sim::emit::to_toml(sc).map_err(|e| format!("{}: {e}", sc.name))?;
            Ok(crate::ray::PointTask {
                point: k,
                overrides: vec![],
                seeds: vec![sc.seed],
                scenario: Some(text),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let driver = crate::ray::connect(&target.address, &target.python).map_err(|e| e.to_string())?;
    let mut got: Vec<Option<RunResults>> = vec![None; order.len()];
    let mut unreadable = None;
    let name = |k: usize| {
        order
            .get(k)
            .map_or_else(|| format!("run {k}"), |&i| scenarios[i].name.clone())
    };
    driver
        .run(
            &format!("{exp} (reproduce --ray)"),
            "",
            &tasks,
            super::resume::stop_flag(),
            &crate::ray::Wording {
                task: &name,
                kept: "the experiment's runs are not kept; reproduce again to rerun them",
            },
            &mut |k, _seed, v| match serde_json::from_value::<RunResults>(v) {
                Ok(r) if k < got.len() => {
                    // The worker's own clock for the engine's time.
                    let took = std::time::Duration::try_from_secs_f64(r.wall_time_s);
                    super::timing::count(&r, took.unwrap_or_default());
                    got[k] = Some(r)
                }
                Ok(_) => unreadable = Some(format!("a result for run {k}, which was not sent")),
                Err(e) => unreadable = Some(format!("{}'s results: {e}", name(k))),
            },
        )
        .map_err(|e| e.to_string())?;
    if let Some(e) = unreadable {
        return Err(format!("{exp}: Ray at {}: {e}", target.address));
    }
    if super::resume::stopping() {
        return Err(super::resume::STOPPED.into());
    }
    got.into_iter()
        .enumerate()
        .map(|(k, r)| {
            r.ok_or_else(|| {
                format!(
                    "{exp}: Ray at {} returned nothing for {}",
                    target.address,
                    name(k)
                )
            })
        })
        .collect()
}

/// A scenario's work, for ordering only: the bottleneck's bit-seconds
/// times the flows on it (a bulk run's packets grow with both; a file
/// that ends early makes it an overestimate, which costs nothing but
/// order).
pub fn work(sc: &Scenario) -> u128 {
    let flows: u128 = sc.flows.iter().map(|f| u128::from(f.count.max(1))).sum();
    u128::from(sc.path.rate) * u128::from(sc.duration) * flows.max(1)
}

/// Indices of `scenarios`, most work first, ties in index order.
fn longest_first(scenarios: &[&Scenario]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scenarios.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(work(scenarios[i])));
    order
}

/// Runs a scenario. With `dir`, also leaves a run directory there
/// (summary.json, timeseries.csv, packets.csv, plots/) like `losslab run
/// --plot` would.
pub fn run(sc: &Scenario, dir: Option<&Path>) -> Result<Run, String> {
    let started = std::time::Instant::now();
    let mut sim = Simulation::new(sc).map_err(|e| format!("{}: {e}", sc.name))?;
    let collected = Rc::new(RefCell::new(Collected::default()));
    let mut tracers: Vec<Box<dyn Tracer>> = vec![Box::new(Collector(collected.clone()))];
    if let Some(d) = dir {
        fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        tracers.push(Box::new(
            TimeSeries::create(&d.join("timeseries.csv"), sim.flow_names())
                .map_err(|e| e.to_string())?,
        ));
        tracers.push(Box::new(
            PacketLog::create(&d.join("packets.csv"), sim.flow_names())
                .map_err(|e| e.to_string())?,
        ));
    }
    sim.set_tracer(Box::new(Tee(tracers)));
    sim.run();
    if let Some(mut t) = sim.take_tracer() {
        t.finish().map_err(|e| e.to_string())?;
    }
    let results = sim.results();
    super::timing::count(&results, started.elapsed());
    if let Some(d) = dir {
        let json = serde_json::to_string_pretty(&results).expect("serialise");
        fs::write(d.join("summary.json"), json).map_err(|e| e.to_string())?;
    }
    let traces = std::mem::take(&mut collected.borrow_mut().flows);
    Ok(Run { results, traces })
}

/// Runs a scenario for its results alone: no traces kept, so long runs at
/// high rates cost no memory per packet.
pub fn results_only(sc: &Scenario) -> Result<RunResults, String> {
    let started = std::time::Instant::now();
    let mut sim = Simulation::new(sc).map_err(|e| format!("{}: {e}", sc.name))?;
    sim.run();
    let results = sim.results();
    super::timing::count(&results, started.elapsed());
    Ok(results)
}

/// Draws a run directory's pictures, optionally for a time window.
pub fn plot(dir: &Path, from_s: Option<f64>, to_s: Option<f64>) -> Result<(), String> {
    let opts = losslab_viz::PlotOptions {
        flow: None,
        from_s,
        to_s,
        ..Default::default()
    };
    losslab_viz::plot_run_report(dir, &opts)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// A single-bottleneck path with the same delay both ways.
pub fn path(
    rate_bps: u64,
    one_way: Time,
    queue: QueueLimit,
    loss: LossModel,
) -> (PathSpec, ReverseSpec) {
    (
        PathSpec::new(rate_bps, one_way, queue, loss),
        ReverseSpec::lossless(one_way),
    )
}

pub fn scenario(
    name: &str,
    duration: Time,
    p: (PathSpec, ReverseSpec),
    flows: Vec<FlowSpec>,
) -> Scenario {
    Scenario {
        reverse: p.1,
        ..Scenario::single_path(name, duration, p.0, flows)
    }
}

pub fn ms(t: Time) -> String {
    format!("{:.0} ms", t as f64 / MS as f64)
}

/// The q-quantile of `v` (nearest rank); None when empty.
pub fn quantile(v: &mut [f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    Some(v[rank - 1])
}

/// Responses written on one persistent connection, as the web-like
/// workloads draw them: the first within `first_ms` of the flow's start,
/// log-normal sizes of mean `mean_bytes` and shape `sigma` clamped to
/// `bytes`, then an exponential think time of mean `think_ms` plus
/// `min_gap_ms` before the next.
pub struct Responses {
    pub first_ms: f64,
    pub mean_bytes: f64,
    pub sigma: f64,
    pub bytes: (u64, u64),
    pub think_ms: f64,
    pub min_gap_ms: Time,
}

impl Responses {
    /// Writes while `more(written so far, next write time)` holds; also
    /// the time after the last think, when the connection would write next.
    pub fn draw(
        &self,
        g: &mut Gen,
        mut more: impl FnMut(usize, Time) -> bool,
    ) -> (Vec<(Time, u64)>, Time) {
        let mut t = (g.unit() * self.first_ms) as Time * MS;
        let mut writes = Vec::new();
        while more(writes.len(), t) {
            let size = (g.lognormal_with_mean(self.mean_bytes, self.sigma) as u64)
                .clamp(self.bytes.0, self.bytes.1);
            writes.push((t, size));
            t += (g.exp(self.think_ms) as Time + self.min_gap_ms) * MS;
        }
        (writes, t)
    }
}

/// A small deterministic generator for workloads (xorshift64*), so that
/// reproductions do not depend on the simulator's streams.
pub struct Gen(u64);

impl Gen {
    pub fn new(seed: u64) -> Self {
        Gen(seed.max(1))
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Log-normal with the given mean and shape sigma (Box-Muller).
    pub fn lognormal_with_mean(&mut self, mean: f64, sigma: f64) -> f64 {
        let (u1, u2) = (1.0 - self.unit(), self.unit());
        let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
        (mean.ln() - sigma * sigma / 2.0 + sigma * z).exp()
    }
    /// Exponential with the given mean.
    pub fn exp(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.unit()).ln()
    }
}

/// Writes `sc` as DIR/<experiment>/<scenario name>.toml, which `losslab
/// run` reads back as the same scenario (losslab-sim emit.rs). Scenario
/// names are unique within a paper's experiment (a test checks it).
pub fn export(dir: &Path, exp: &str, sc: &Scenario) -> Result<(), String> {
    let d = dir.join(exp);
    fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    let text = losslab_sim::emit::to_toml(sc).map_err(|e| format!("{}: {e}", sc.name))?;
    let f = d.join(format!("{}.toml", crate::outdir::folder_name(&sc.name)));
    fs::write(&f, text).map_err(|e| format!("{}: {e}", f.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use losslab_core::time::{MS, SEC};

    /// `--ray` hands `keep` the results read back from the document the
    /// worker writes (seeds::results_value, as losslab._native.run_json
    /// does): every field comes back exactly, the ones the document
    /// leaves out when empty or zero included. The examples cover files
    /// of chunks, objects, recovery episodes, receiver discards and
    /// reverse loss.
    #[test]
    fn results_come_back_from_their_document_unchanged() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut seen = 0;
        for name in [
            "bulk-20mbps.toml",
            "gilbert-elliott.toml",
            "parallel-chunks.toml",
            "tail-drop.toml",
            "three-drops.toml",
            "web-page.toml",
        ] {
            let sc = losslab_sim::parse::load_scenario(&dir.join(name), &["duration=3s".into()])
                .unwrap();
            let r = results_only(&sc).unwrap();
            let text = crate::seeds::results_value(&r).to_string();
            let back: RunResults = serde_json::from_str(&text).unwrap();
            assert_eq!(back, r, "{name}");
            seen += 1;
        }
        assert_eq!(seen, 6);
    }

    fn examples() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
    }

    /// examples/bulk-20mbps.toml cut to 5 s: a run of more packets than
    /// its results have bytes of JSON, so that the memo keeps it.
    fn bulk_5s() -> Scenario {
        losslab_sim::parse::load_scenario(
            &examples().join("bulk-20mbps.toml"),
            &["duration=5s".into()],
        )
        .unwrap()
    }

    /// `base` with `seed`, named after its case and seed.
    fn named(base: &Scenario, case: usize, seed: u64) -> Scenario {
        let mut sc = base.clone();
        sc.name = format!("c{case}-s{seed}");
        sc.seed = seed;
        sc
    }

    /// A batch whose cases repeat a scenario (under another name), and a
    /// second batch that repeats the first's: each repeat is taken, not
    /// run, and its results are exactly what running it gives, name
    /// included; a scenario that differs in anything but its name runs.
    #[test]
    fn a_repeated_scenario_is_taken_not_run_and_gives_a_runs_results() {
        let base = bulk_5s();
        // Cases 0 and 2 are the same run named apart; case 1 differs in
        // its link rate alone.
        let build = |case: usize, seed: u64| {
            let mut sc = named(&base, case, seed);
            if case == 1 {
                sc.path.rate *= 2;
            }
            sc
        };
        let ctx = super::super::Ctx::quick_for_tests();
        let before = ctx.memo.lock().runs.len();
        let got = run_cases(&ctx, "t", 3, 2, build, |r| r).unwrap();
        // Two distinct scenarios per seed ran; case 2 came from case 0.
        assert_eq!(ctx.memo.lock().runs.len() - before, 4);
        for (case, per_seed) in got.iter().enumerate() {
            for (k, r) in per_seed.iter().enumerate() {
                let own = results_only(&build(case, 1 + k as u64)).unwrap();
                assert_eq!(*r, own, "case {case} seed {}", k + 1);
            }
        }
        assert_ne!(got[0][0].flows, got[1][0].flows, "the rate matters");
        // A later batch (a setup rerun) that repeats them runs nothing.
        let again = run_cases(&ctx, "t2", 3, 2, build, |r| r).unwrap();
        assert_eq!(again, got);
        assert_eq!(ctx.memo.lock().runs.len() - before, 4);
    }

    /// Per-case seed counts: each case gets exactly its own seeds, in
    /// order, and its results are those of running that case and seed.
    #[test]
    fn each_case_runs_its_own_number_of_seeds() {
        let mut base = bulk_5s();
        base.duration = 1000 * MS;
        let build = |case: usize, seed: u64| {
            let mut sc = named(&base, case, seed);
            sc.path.rate += case as u64 * 1_000_000;
            sc
        };
        let ctx = super::super::Ctx::quick_for_tests();
        let got = run_cases_seeds(&ctx, "t", &[2, 1, 3], build, |r| r).unwrap();
        assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), [2, 1, 3]);
        for (case, per_seed) in got.iter().enumerate() {
            for (k, r) in per_seed.iter().enumerate() {
                let own = results_only(&build(case, 1 + k as u64)).unwrap();
                assert_eq!(*r, own, "case {case} seed {}", k + 1);
            }
        }
    }

    /// A memo without room keeps nothing and changes no result (repeats
    /// within a batch are still shared); one with room for some runs keeps
    /// at most its bound, and what it holds is exactly what it kept; a
    /// run worth less than a packet per byte is not kept.
    #[test]
    fn the_memo_holds_no_more_than_its_bound_and_changes_no_result() {
        let base = bulk_5s();
        let build = |case: usize, seed: u64| {
            let mut sc = named(&base, case, seed);
            sc.path.queue = QueueLimit::Packets(10 + (case % 3) as u64);
            sc
        };
        let own: Vec<Vec<RunResults>> = (0..4)
            .map(|c| {
                (1..=2)
                    .map(|s| results_only(&build(c, s)).unwrap())
                    .collect()
            })
            .collect();
        let one = Memo::encode(&own[0][0], usize::MAX).unwrap().len();
        for bound in [0, 1, 2 * one + one / 2] {
            let mut ctx = super::super::Ctx::quick_for_tests();
            ctx.memo = std::sync::Arc::new(Memo::with_bound(bound));
            let got = run_cases(&ctx, "t", 4, 2, build, |r| r).unwrap();
            assert_eq!(got, own, "bound {bound}");
            let kept: usize = ctx.memo.lock().runs.values().map(Vec::len).sum();
            assert_eq!(ctx.memo.held(), kept, "bound {bound}");
            assert!(kept <= bound, "bound {bound}: {kept}");
            let n = ctx.memo.lock().runs.len();
            assert_eq!(n > 0, bound > one, "bound {bound}: {n} kept");
            // A rerun gives the same, taking what was kept.
            assert_eq!(run_cases(&ctx, "t2", 4, 2, build, |r| r).unwrap(), own);
        }
        // A run that simulated fewer packets than its JSON has bytes (a
        // 300-segment transfer with its recoveries) is not kept.
        let small =
            losslab_sim::parse::load_scenario(&examples().join("three-drops.toml"), &[]).unwrap();
        let r = results_only(&small).unwrap();
        let len = Memo::encode(&r, usize::MAX).unwrap().len() as u64;
        assert!(super::super::timing::packets(&r) < len * MEMO_PACKETS_PER_BYTE);
        let ctx = super::super::Ctx::quick_for_tests();
        run_cases(&ctx, "t", 1, 1, |_, _| small.clone(), |r| r).unwrap();
        assert_eq!(ctx.memo.lock().runs.len(), 0);
        assert_eq!(ctx.memo.held(), 0);
    }

    /// The key is blind to the name alone.
    #[test]
    fn the_memo_key_ignores_the_name_and_nothing_else() {
        let mut f = FlowSpec::new("a");
        f.count = 2;
        let a = scenario(
            "a",
            3 * SEC,
            path(
                10_000_000,
                10 * MS,
                QueueLimit::Packets(100),
                LossModel::None,
            ),
            vec![f],
        );
        let mut b = a.clone();
        b.name = "b".into();
        assert_eq!(Memo::key(&a), Memo::key(&b));
        let changed: [fn(&mut Scenario); 6] = [
            |s| s.seed += 1,
            |s| s.duration += 1,
            |s| s.path.rate += 1,
            |s| s.flows[0].count = 3,
            |s| s.flows[0].name = "b".into(),
            |s| s.path.loss = LossModel::Bernoulli { p: 0.0 },
        ];
        for (i, change) in changed.iter().enumerate() {
            let mut c = a.clone();
            change(&mut c);
            assert_ne!(Memo::key(&a), Memo::key(&c), "change {i}");
        }
    }

    /// Work is rate x duration x connections: 10 Mbit/s for 60 s (600
    /// Mbit), 100 Mbit/s for 10 s (1000), 10 Mbit/s for 60 s with three
    /// connections (1800), 100 Mbit/s for 10 s again; ties keep index
    /// order.
    #[test]
    fn the_longest_runs_start_first() {
        let sc = |rate: u64, secs: u64, count: u32| {
            let mut f = FlowSpec::new("a");
            f.count = count;
            scenario(
                "s",
                secs * SEC,
                path(rate, 10 * MS, QueueLimit::Packets(100), LossModel::None),
                vec![f],
            )
        };
        let all = [
            sc(10_000_000, 60, 1),
            sc(100_000_000, 10, 1),
            sc(10_000_000, 60, 3),
            sc(100_000_000, 10, 1),
        ];
        assert_eq!(longest_first(&all.iter().collect::<Vec<_>>()), [2, 1, 3, 0]);
    }
}
