//! The human-readable results table printed by `losslab run`.

use std::fmt::Write;

use losslab_sim::RunResults;

fn rate(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{:.2} Gbit/s", bps / 1e9)
    } else if bps >= 1e6 {
        format!("{:.2} Mbit/s", bps / 1e6)
    } else {
        format!("{:.1} kbit/s", bps / 1e3)
    }
}

fn bytes(b: u64) -> String {
    if b >= 1_000_000_000 {
        format!("{:.2} GB", b as f64 / 1e9)
    } else if b >= 1_000_000 {
        format!("{:.2} MB", b as f64 / 1e6)
    } else if b >= 1_000 {
        format!("{:.1} kB", b as f64 / 1e3)
    } else {
        format!("{b} B")
    }
}

fn opt_ms(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.1}"))
}

pub fn render(r: &RunResults) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "scenario {} (seed {}): {:.3} s simulated in {:.2} s wall, {} events{}",
        r.scenario,
        r.seed,
        r.sim_time_s,
        r.wall_time_s,
        r.events,
        if r.interrupted { " [INTERRUPTED]" } else { "" }
    );
    let _ = writeln!(
        s,
        "path: utilization {:.1}%, {} data drops ({} queue, {} loss model), {} ACK drops, max queue {}",
        r.path.utilization * 100.0,
        r.path.drops,
        r.path.queue_drops,
        r.path.loss_drops,
        r.path.ack_drops,
        bytes(r.path.max_queue_bytes)
    );
    let header = [
        "flow",
        "cc/recovery/detection/timers",
        "delivered",
        "goodput",
        "fct s",
        "sent",
        "retx",
        "spurious",
        "RTOs",
        "fast rec",
        "rtt min/mean/p99 ms",
    ];
    let rows: Vec<Vec<String>> = r
        .flows
        .iter()
        .map(|f| {
            vec![
                f.name.clone(),
                format!("{}/{}/{}/{}", f.cc, f.recovery, f.detection, f.timers),
                bytes(f.bytes_delivered),
                rate(f.goodput_bps),
                f.fct_s.map_or("-".into(), |x| format!("{x:.3}")),
                f.segments_sent.to_string(),
                f.retransmissions.to_string(),
                f.spurious_retransmissions.to_string(),
                f.timeouts.to_string(),
                f.fast_recoveries.to_string(),
                format!(
                    "{}/{}/{}",
                    opt_ms(f.rtt_ms.min),
                    opt_ms(f.rtt_ms.mean),
                    opt_ms(f.rtt_ms.p99)
                ),
            ]
        })
        .collect();
    let mut width: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in &rows {
        for (w, c) in width.iter_mut().zip(row) {
            *w = (*w).max(c.len());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut l = String::new();
        for (i, (c, w)) in cells.iter().zip(&width).enumerate() {
            if i < 2 {
                let _ = write!(l, "{c:<w$}  ");
            } else {
                let _ = write!(l, "{c:>w$}  ");
            }
        }
        l.trim_end().to_string()
    };
    let _ = writeln!(s, "{}", line(header.to_vec()));
    for row in &rows {
        let _ = writeln!(s, "{}", line(row.iter().map(|c| c.as_str()).collect()));
    }
    for f in &r.files {
        let secs = |v: Option<f64>| v.map_or("-".into(), |x| format!("{x:.3}"));
        let _ = writeln!(
            s,
            "file {}: {} in {} chunks of {} over {} connections, {} completed, fct {} s, mean CCT {} s, ΔCCT {} s, {} RTOs",
            f.flow,
            bytes(f.file_bytes),
            f.chunks,
            bytes(f.chunk_bytes),
            f.connections,
            f.chunks_completed,
            secs(f.fct_s),
            secs(f.mean_cct_s),
            secs(f.delta_cct_s),
            f.timeouts
        );
    }
    s
}
