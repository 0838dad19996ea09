//! The scenario keys of issue 32 that put Linux's jiffies into Westwood+
//! and RACK, `[flow.westwood] hz` and `[flow.rack] reo_timer`, and BBR's
//! min_rtt rule by kernel version, `[flow.bbr] min_rtt_refresh`
//! (docs/SCENARIO.md), parsed, refused with the key named, and reaching
//! the simulation.

mod common;

use common::{expect_parse_error, parse, run};
use losslab_core::detect::ReoTimer;

fn text(extra: &str) -> String {
    format!(
        "duration = \"20s\"\nseed = 3\n[path]\nrate = \"10Mbps\"\ndelay = \"30ms\"\nloss = {{ model = \"bernoulli\", p = 0.01 }}\n\n[[flow]]\nname = \"a\"\n{extra}\n"
    )
}

#[test]
fn westwood_hz() {
    let s = parse(&text("cc = \"westwood\"")).unwrap();
    assert_eq!(s.flows[0].westwood_hz, 0);
    let s = parse(&text("cc = \"westwood\"\n[flow.westwood]\nhz = 250")).unwrap();
    assert_eq!(s.flows[0].westwood_hz, 250);
    expect_parse_error(
        parse(&text("cc = \"westwood\"\n[flow.westwood]\nhz = -1")),
        "flow.a.westwood.hz",
        &["expected an integer from 0 to 1000000", "got -1"],
    );
    expect_parse_error(
        parse(&text("cc = \"westwood\"\n[flow.westwood]\nhz = \"250\"")),
        "flow.a.westwood.hz",
        &["expected an integer"],
    );
    expect_parse_error(
        parse(&text("cc = \"reno\"\n[flow.westwood]\nhz = 250")),
        "flow.a.westwood",
        &["parameters for westwood given but this flow's cc is \"reno\""],
    );
    // Jiffies change the estimate, so the run: 1% loss, Westwood+ sets
    // ssthresh from BWE x RTTmin at every loss.
    let exact = run(&parse(&text("cc = \"westwood\"")).unwrap());
    let linux = run(&parse(&text("cc = \"westwood\"\n[flow.westwood]\nhz = 250")).unwrap());
    assert_ne!(
        exact.flows[0].segments_sent, linux.flows[0].segments_sent,
        "hz = 250 did not reach the controller"
    );
}

#[test]
fn rack_reo_timer() {
    let base = "detection = \"rack\"\ntimer_hz = 250";
    let s = parse(&text(base)).unwrap();
    assert_eq!(s.flows[0].rack_reo_timer, ReoTimer::Exact);
    for (v, want) in [
        ("exact", ReoTimer::Exact),
        ("linux", ReoTimer::Linux),
        ("linux-2-jiffies", ReoTimer::LinuxTwoJiffies),
    ] {
        let s = parse(&text(&format!("{base}\n[flow.rack]\nreo_timer = {v:?}"))).unwrap();
        assert_eq!(s.flows[0].rack_reo_timer, want);
    }
    expect_parse_error(
        parse(&text(&format!(
            "{base}\n[flow.rack]\nreo_timer = \"jiffies\""
        ))),
        "flow.a.rack.reo_timer",
        &[
            "unknown reo_timer \"jiffies\"",
            "exact, linux, linux-2-jiffies",
        ],
    );
    expect_parse_error(
        parse(&text(
            "detection = \"rack\"\n[flow.rack]\nreo_timer = \"linux\"",
        )),
        "flow.a.rack.reo_timer",
        &[
            "reo_timer = \"linux\" counts jiffies",
            "timer_hz",
            "which is 0",
        ],
    );
    expect_parse_error(
        parse(&text("timer_hz = 250\n[flow.rack]\nreo_timer = \"linux\"")),
        "flow.a.rack",
        &["parameters for rack given but this flow's detection is"],
    );
    expect_parse_error(
        parse(&text(&format!("{base}\n[flow.rack]\nreo_wnd = 1"))),
        "flow.a.rack.reo_wnd",
        &["unknown key"],
    );
    // The later timers change when losses are found, and the two
    // Linux rules differ at HZ = 250.
    let results = |v: &str| {
        let r = run(&parse(&text(&format!("{base}\n[flow.rack]\nreo_timer = {v:?}"))).unwrap());
        (r.flows[0].segments_sent, r.flows[0].bytes_delivered)
    };
    let exact = results("exact");
    let linux = results("linux");
    let two = results("linux-2-jiffies");
    assert_ne!(exact, linux, "reo_timer = \"linux\" did not reach RACK");
    assert_ne!(linux, two, "the two Linux rules ran alike");
}

/// `[flow.bbr] min_rtt_refresh` (bbr_update_min_rtt()'s `<` of 5.10+ or
/// `<=` of 4.9-5.9): parsed, refused with the key named, set by profile
/// linux-4.10, and reaching the controller (on this jitter-free path the
/// `<=` rule keeps a flow out of PROBE_RTT, which changes what is sent).
#[test]
fn bbr_min_rtt_refresh() {
    use losslab_core::cc::MinRttRefresh;
    let s = parse(&text("cc = \"bbr\"")).unwrap();
    assert_eq!(s.flows[0].bbr_min_rtt_refresh, MinRttRefresh::Lower);
    let le = "cc = \"bbr\"\n[flow.bbr]\nmin_rtt_refresh = \"lower-or-equal\"";
    let s = parse(&text(le)).unwrap();
    assert_eq!(s.flows[0].bbr_min_rtt_refresh, MinRttRefresh::LowerOrEqual);
    let s = parse(&text("profile = \"linux-4.10\"\ncc = \"bbr\"")).unwrap();
    assert_eq!(s.flows[0].bbr_min_rtt_refresh, MinRttRefresh::LowerOrEqual);
    expect_parse_error(
        parse(&text(
            "cc = \"bbr\"\n[flow.bbr]\nmin_rtt_refresh = \"equal\"",
        )),
        "flow.a.bbr.min_rtt_refresh",
        &["unknown min_rtt_refresh \"equal\"", "lower, lower-or-equal"],
    );
    expect_parse_error(
        parse(&text(
            "cc = \"cubic\"\n[flow.bbr]\nmin_rtt_refresh = \"lower\"",
        )),
        "flow.a.bbr",
        &["parameters for bbr given but this flow's cc is \"cubic\""],
    );
    let lower = run(&parse(&text("cc = \"bbr\"")).unwrap());
    let equal = run(&parse(&text(&format!("{le}\n"))).unwrap());
    assert_ne!(
        lower.flows[0].segments_sent, equal.flows[0].segments_sent,
        "min_rtt_refresh did not reach the controller"
    );
}
