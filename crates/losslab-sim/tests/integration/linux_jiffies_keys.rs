//! The scenario keys of issue 32 that put Linux's jiffies into Westwood+,
//! RACK and the loss probe, `[flow.westwood] hz`, `[flow.rack] reo_timer`
//! and `[flow.rack-tlp] pto`, Linux's RACK advance (`[flow.rack]
//! advance`), and BBR's
//! min_rtt rule by kernel version, `[flow.bbr] min_rtt_refresh`
//! (docs/SCENARIO.md), parsed, refused with the key named, and reaching
//! the simulation.

use crate::common;

use common::{expect_parse_error, parse, run};
use losslab_core::detect::{RackAdvance, ReoTimer};
use losslab_core::timers::Pto;

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

/// `[flow.rack] advance`: parsed, refused with the key named, set by
/// profile linux-6, and reaching RACK: a flow held by a receive window
/// about one BDP, at 3% loss, has retransmissions lost below holes that
/// only SACKs of later retransmissions can reveal.
#[test]
fn rack_advance() {
    let base = "detection = \"rack\"";
    let s = parse(&text(base)).unwrap();
    assert_eq!(s.flows[0].rack_advance, RackAdvance::Rfc8985);
    for (v, want) in [
        ("rfc8985", RackAdvance::Rfc8985),
        ("linux", RackAdvance::Linux),
    ] {
        let s = parse(&text(&format!("{base}\n[flow.rack]\nadvance = {v:?}"))).unwrap();
        assert_eq!(s.flows[0].rack_advance, want);
    }
    let s = parse(&text("profile = \"linux-6\"")).unwrap();
    assert_eq!(s.flows[0].rack_advance, RackAdvance::Linux);
    let s = parse(&text(
        "profile = \"linux-6\"\n[flow.rack]\nadvance = \"rfc8985\"",
    ))
    .unwrap();
    assert_eq!(s.flows[0].rack_advance, RackAdvance::Rfc8985);
    expect_parse_error(
        parse(&text(&format!("{base}\n[flow.rack]\nadvance = \"tsecr\""))),
        "flow.a.rack.advance",
        &["unknown advance \"tsecr\"", "rfc8985, linux"],
    );
    expect_parse_error(
        parse(&text("[flow.rack]\nadvance = \"linux\"")),
        "flow.a.rack",
        &["parameters for rack given but this flow's detection is"],
    );
    let results = |v: &str| {
        let body = format!(
            "{base}\ncc = \"bbr\"\ntimers = \"rack-tlp\"\nreceiver = {{ rcvbuf = \"80kB\" }}\n[flow.rack]\nadvance = {v:?}"
        );
        let r = run(&parse(&text(&body).replace("p = 0.01", "p = 0.03")).unwrap());
        (
            r.flows[0].timeouts,
            r.flows[0].segments_sent,
            r.flows[0].bytes_delivered,
        )
    };
    let (rfc, linux) = (results("rfc8985"), results("linux"));
    // (timeouts, segments, bytes): RFC 8985's RACK leaves 2 lost
    // retransmissions to the RTO here, Linux's finds them (0 timeouts).
    assert!(
        linux.0 < rfc.0,
        "Linux's RACK took no fewer timeouts: {linux:?} {rfc:?}"
    );
}

/// `[flow.rack-tlp] pto`: parsed, refused with the key named, set by
/// profile linux-6 (and `pto = "rfc8985"` restores RFC 8985's there), and
/// reaching the probe timer.
#[test]
fn rack_tlp_pto() {
    let base = "timers = \"rack-tlp\"\ntimer_hz = 250";
    let s = parse(&text(base)).unwrap();
    assert_eq!(s.flows[0].rack_tlp_pto, Pto::Rfc8985);
    for (v, want) in [
        ("rfc8985", Pto::Rfc8985),
        ("linux", Pto::Linux),
        ("linux-2-jiffies", Pto::LinuxTwoJiffies),
    ] {
        let s = parse(&text(&format!("{base}\n[flow.rack-tlp]\npto = {v:?}"))).unwrap();
        assert_eq!(s.flows[0].rack_tlp_pto, want);
    }
    expect_parse_error(
        parse(&text(&format!(
            "{base}\n[flow.rack-tlp]\npto = \"linux-6\""
        ))),
        "flow.a.rack-tlp.pto",
        &["unknown pto \"linux-6\"", "rfc8985, linux, linux-2-jiffies"],
    );
    expect_parse_error(
        parse(&text(&format!("{base}\n[flow.rack-tlp]\npto = 2"))),
        "flow.a.rack-tlp.pto",
        &["expected one of rfc8985, linux, linux-2-jiffies"],
    );
    // "linux" on exact timers is its unrounded sum; two jiffies of no HZ
    // are refused.
    let s = parse(&text(
        "timers = \"rack-tlp\"\n[flow.rack-tlp]\npto = \"linux\"",
    ))
    .unwrap();
    assert_eq!(
        (s.flows[0].rack_tlp_pto, s.flows[0].timer_hz),
        (Pto::Linux, 0)
    );
    expect_parse_error(
        parse(&text(
            "timers = \"rack-tlp\"\n[flow.rack-tlp]\npto = \"linux-2-jiffies\"",
        )),
        "flow.a.rack-tlp.pto",
        &[
            "pto = \"linux-2-jiffies\" counts jiffies",
            "timer_hz",
            "which is 0",
        ],
    );
    expect_parse_error(
        parse(&text(
            "timer_hz = 250\ntimers = \"tlp\"\n[flow.rack-tlp]\npto = \"linux\"",
        )),
        "flow.a.rack-tlp",
        &["parameters for rack-tlp given but this flow's timers is \"tlp\""],
    );
    expect_parse_error(
        parse(&text(&format!(
            "{base}\n[flow.rack-tlp]\nmax_ack_delay = 1"
        ))),
        "flow.a.rack-tlp.max_ack_delay",
        &["unknown key"],
    );
    // The profile sets it; the key restores the old flow.
    let s = parse(&text("profile = \"linux-6\"")).unwrap();
    assert_eq!(s.flows[0].rack_tlp_pto, Pto::Linux);
    let s = parse(&text(
        "profile = \"linux-6\"\n[flow.rack-tlp]\npto = \"rfc8985\"",
    ))
    .unwrap();
    assert_eq!(s.flows[0].rack_tlp_pto, Pto::Rfc8985);
    // The probe fires at other times, so the flow ends at other times:
    // ten segments, the last three lost once, so three are out when the
    // last ACK arms the probe (2 SRTT; + 2 ms in jiffies; + 2 jiffies, 8
    // ms at HZ = 250).
    let fct = |v: &str| {
        let sc = format!(
            "duration = \"5s\"\n[path]\nrate = \"10Mbps\"\ndelay = \"30ms\"\nloss = {{ model = \"drop\", flow = \"a\", tail = 3 }}\n\n[[flow]]\nname = \"a\"\napp = {{ kind = \"bytes\", size = \"14480B\" }}\ndetection = \"rack\"\n{base}\n[flow.rack-tlp]\npto = {v:?}\n"
        );
        let r = run(&parse(&sc).unwrap());
        assert_eq!(r.flows[0].tail_probes, 1, "{v}");
        r.flows[0].fct_s.expect("finished")
    };
    let (rfc, linux, two) = (fct("rfc8985"), fct("linux"), fct("linux-2-jiffies"));
    eprintln!("fct: rfc8985 {rfc} linux {linux} linux-2-jiffies {two}");
    assert!(rfc < linux && linux < two, "{rfc} {linux} {two}");
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
