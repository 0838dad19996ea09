//! DIR/index.html: the scenario, the results and the pictures of one run,
//! readable offline (relative links only, inline CSS, no scripts). Built
//! from the run directory alone, so a finished run can be re-reported.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Text for HTML content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn num(v: &Value) -> String {
    match v {
        Value::Null => "–".into(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.to_string()
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                if f.abs() >= 100.0 {
                    format!("{f:.0}")
                } else {
                    format!("{f:.3}")
                }
            }
        }
        Value::String(s) => esc(s),
        other => esc(&other.to_string()),
    }
}

fn rate(v: &Value) -> String {
    match v.as_f64() {
        Some(b) if b >= 1e9 => format!("{:.2} Gbit/s", b / 1e9),
        Some(b) if b >= 1e6 => format!("{:.2} Mbit/s", b / 1e6),
        Some(b) => format!("{:.1} kbit/s", b / 1e3),
        None => "–".into(),
    }
}

const CSS: &str = "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}\
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;margin:1em 0;font-size:.9em}\
th,td{border:1px solid #ccc;padding:.3em .6em;text-align:right}\
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}\
pre{background:#f7f7f7;padding:1em;overflow:auto;font-size:.85em}\
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}\
figcaption{font-size:.85em;color:#555}.note{color:#555;font-size:.9em}";

/// Writes `out` (a run's index.html) from DIR/summary.json,
/// DIR/scenario.toml (if present) and whatever pictures and traces DIR
/// holds; links are relative to DIR, where `out` is meant to end up.
pub fn write(dir: &Path, out: &Path) -> Result<PathBuf, String> {
    let summary_path = dir.join("summary.json");
    let text = fs::read_to_string(&summary_path)
        .map_err(|e| format!("{}: {e} (run `losslab run` first)", summary_path.display()))?;
    let r: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a results document: {e}", summary_path.display()))?;
    let name = r["scenario"].as_str().unwrap_or("run");
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>losslab: {n}</title><style>{CSS}</style></head><body>\
         <h1>losslab run: {n}</h1>",
        n = esc(name)
    );
    let _ = write!(
        h,
        "<p>seed {} &middot; {} s simulated &middot; {} events{}</p>",
        num(&r["seed"]),
        num(&r["sim_time_s"]),
        num(&r["events"]),
        if r["interrupted"].as_bool() == Some(true) {
            " &middot; <b>interrupted: partial results</b>"
        } else {
            ""
        }
    );

    // Results.
    let p = &r["path"];
    let _ = write!(
        h,
        "<h2>Results</h2><p>Bottleneck utilization {:.1}%, {} data drops ({} queue, {} loss \
         model), {} ACK drops, largest queue {} bytes.</p>",
        p["utilization"].as_f64().unwrap_or(0.0) * 100.0,
        num(&p["drops"]),
        num(&p["queue_drops"]),
        num(&p["loss_drops"]),
        num(&p["ack_drops"]),
        num(&p["max_queue_bytes"])
    );
    h.push_str(
        "<table><tr><th>flow</th><th>cc / recovery / detection / timers</th><th>delivered \
         bytes</th><th>goodput</th><th>FCT s</th><th>sent</th><th>retransmissions</th>\
         <th>spurious</th><th>timeouts</th><th>fast recoveries</th><th>RTT min / mean / p99 \
         ms</th></tr>",
    );
    let flows = r["flows"].as_array().cloned().unwrap_or_default();
    for f in &flows {
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{} / {} / {} / {}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} / {} / {}</td></tr>",
            num(&f["name"]),
            num(&f["cc"]),
            num(&f["recovery"]),
            num(&f["detection"]),
            num(&f["timers"]),
            num(&f["bytes_delivered"]),
            rate(&f["goodput_bps"]),
            num(&f["fct_s"]),
            num(&f["segments_sent"]),
            num(&f["retransmissions"]),
            num(&f["spurious_retransmissions"]),
            num(&f["timeouts"]),
            num(&f["fast_recoveries"]),
            num(&f["rtt_ms"]["min"]),
            num(&f["rtt_ms"]["mean"]),
            num(&f["rtt_ms"]["p99"]),
        );
    }
    h.push_str("</table>");

    // Pictures and recoveries, flow by flow.
    let plots = dir.join("plots");
    // The pictures' names: the flow's file stem, as losslab-viz gives it
    // (a name like `a/b` is not a file name, and two can clash).
    let names: Vec<&str> = flows
        .iter()
        .map(|f| f["name"].as_str().unwrap_or("?"))
        .collect();
    let stems = losslab_core::stem::file_stems(&names);
    for ((f, fname), file_stem) in flows.iter().zip(&names).zip(&stems) {
        let _ = write!(h, "<h2>Flow {}</h2>", esc(fname));
        for (stem, caption) in [
            ("tsg", "Time-sequence graph at the sender: original transmissions, retransmissions, drops, the cumulative ACK and SACK blocks."),
            ("cwnd", "cwnd, ssthresh and pipe (segments); recovery periods shaded."),
            ("rtt", "Smoothed RTT and RTO; recovery periods shaded."),
        ] {
            let file = format!("{stem}-{file_stem}.svg");
            if plots.join(&file).exists() {
                let _ = write!(
                    h,
                    "<figure><img src=\"plots/{f}\" alt=\"{stem} of flow {n}\">\
                     <figcaption>{c} (<a href=\"plots/{f}\">SVG</a>, \
                     <a href=\"plots/{p}\">PNG</a>)</figcaption></figure>",
                    f = esc(&file),
                    p = esc(&format!("{stem}-{file_stem}.png")),
                    n = esc(fname),
                    c = caption
                );
            }
        }
        let recs = f["recoveries"].as_array().cloned().unwrap_or_default();
        if !recs.is_empty() {
            let shown = recs.len().min(50);
            let _ = write!(
                h,
                "<p>Recovery episodes ({} in all{}):</p><table><tr><th>kind</th><th>start s</th>\
                 <th>end s</th><th>cwnd before</th><th>cwnd after</th><th>ssthresh</th>\
                 <th>pipe − ssthresh at start</th><th>link utilization</th></tr>",
                recs.len(),
                if shown < recs.len() {
                    format!(", the first {shown} shown")
                } else {
                    String::new()
                }
            );
            for x in &recs[..shown] {
                let _ = write!(
                    h,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
                     <td>{}</td><td>{}</td></tr>",
                    num(&x["kind"]),
                    num(&x["start_s"]),
                    num(&x["end_s"]),
                    num(&x["cwnd_before"]),
                    num(&x["cwnd_after"]),
                    num(&x["ssthresh"]),
                    num(&x["pipe_minus_ssthresh_at_start"]),
                    num(&x["link_utilization"]),
                );
            }
            h.push_str("</table>");
        }
    }

    // The scenario as run, and the data behind the page.
    if let Ok(sc) = fs::read_to_string(dir.join("scenario.toml")) {
        let _ = write!(h, "<h2>Scenario</h2><pre>{}</pre>", esc(&sc));
    }
    h.push_str("<h2>Data</h2><ul>");
    let mut files: Vec<String> = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().is_file())
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n != "index.html")
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    for f in files {
        let _ = write!(h, "<li><a href=\"{0}\">{0}</a></li>", esc(&f));
    }
    h.push_str(
        "</ul><p class=\"note\">Written by losslab. Open the .pcap files in Wireshark; \
         re-draw the pictures with <code>losslab plot DIR</code>.</p></body></html>\n",
    );
    fs::write(out, h).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(out.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_links() {
        let d = tempfile::tempdir().unwrap();
        fs::write(
            d.path().join("summary.json"),
            r#"{"scenario":"a<b","seed":1,"sim_time_s":1.0,"events":5,"interrupted":false,
               "path":{"utilization":0.5,"drops":0,"queue_drops":0,"loss_drops":0,"ack_drops":0,"max_queue_bytes":0},
               "flows":[{"name":"a","recoveries":[{"kind":"fast","start_s":0.1,"end_s":null}],"rtt_ms":{}}]}"#,
        )
        .unwrap();
        fs::create_dir(d.path().join("plots")).unwrap();
        fs::write(d.path().join("plots/tsg-a.svg"), "<svg/>").unwrap();
        fs::write(d.path().join("scenario.toml"), "name = \"x\" # <tag>").unwrap();
        let out = write(d.path(), &d.path().join("index.html")).unwrap();
        let html = fs::read_to_string(out).unwrap();
        assert!(html.contains("a&lt;b"));
        assert!(html.contains("src=\"plots/tsg-a.svg\""));
        assert!(!html.contains("cwnd-a.svg"), "only pictures that exist");
        assert!(html.contains("# &lt;tag&gt;"));
        assert!(html.contains("href=\"summary.json\""));
    }

    #[test]
    fn pictures_of_flows_whose_names_are_no_file_names_are_shown() {
        // `a/` and `a_` are both `a_` as files: the pictures of `a/` are
        // under the stem losslab-viz gave them, `a_-0`.
        let d = tempfile::tempdir().unwrap();
        fs::write(
            d.path().join("summary.json"),
            r#"{"scenario":"s","flows":[{"name":"a/"},{"name":"a_"}]}"#,
        )
        .unwrap();
        fs::create_dir(d.path().join("plots")).unwrap();
        for f in ["tsg-a_-0.svg", "tsg-a_.svg"] {
            fs::write(d.path().join("plots").join(f), "<svg/>").unwrap();
        }
        let out = write(d.path(), &d.path().join("index.html")).unwrap();
        let html = fs::read_to_string(out).unwrap();
        let first = html.find("src=\"plots/tsg-a_-0.svg\"").expect("flow a/");
        let second = html.find("src=\"plots/tsg-a_.svg\"").expect("flow a_");
        assert!(first < second, "each flow's own picture");
    }

    #[test]
    fn missing_summary_is_a_clear_error() {
        let d = tempfile::tempdir().unwrap();
        let e = write(d.path(), &d.path().join("index.html")).unwrap_err();
        assert!(e.contains("summary.json"), "{e}");
    }
}
