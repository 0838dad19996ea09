//! `[flow.tlp] pto` and `[flow.tlpr] pto` (docs/SCENARIO.md): parsed,
//! refused with the key named, written back by the emitter, and reaching
//! the simulation.

use crate::common;

use common::{expect_parse_error, forty_objects, parse, run};
use losslab_core::timers::TlpPto;

fn tlp(hz: u32, pto: &str) -> String {
    forty_objects(&format!(
        "timers = \"tlp\"\ntimer_hz = {hz}\n[flow.tlp]\npto = {pto:?}"
    ))
}

#[test]
fn parsed_and_refused() {
    let s = parse(&forty_objects("timers = \"tlp\"")).unwrap();
    assert_eq!(s.flows[0].tlp_pto, TlpPto::Paper);
    for (v, want) in [
        ("paper", TlpPto::Paper),
        ("linux-3.10", TlpPto::Linux310),
        ("linux-3.15", TlpPto::Linux315),
    ] {
        assert_eq!(parse(&tlp(250, v)).unwrap().flows[0].tlp_pto, want, "{v}");
    }
    expect_parse_error(
        parse(&tlp(250, "linux")),
        "flow.a.tlp.pto",
        &["unknown pto \"linux\"", "paper, linux-3.10, linux-3.15"],
    );
    // Jiffies need a tick.
    expect_parse_error(
        parse(&tlp(0, "linux-3.15")),
        "flow.a.tlp.pto",
        &["timer_hz", "which is 0", "pto = \"paper\""],
    );
    assert_eq!(
        parse(&tlp(0, "paper")).unwrap().flows[0].tlp_pto,
        TlpPto::Paper
    );
    // TLPR takes it too (issue 32's twelfth step; its TLP's PTO, counted
    // from the last segment's send).
    let s = parse(&forty_objects(
        "timers = \"tlpr\"\ntimer_hz = 1000\n[flow.tlpr]\npto = \"linux-3.15\"",
    ))
    .unwrap();
    assert_eq!(s.flows[0].tlp_pto, TlpPto::Linux315);
    expect_parse_error(
        parse(&forty_objects(
            "timers = \"tlpr\"\n[flow.tlpr]\npto = \"linux-3.10\"",
        )),
        "flow.a.tlpr.pto",
        &["timer_hz", "which is 0"],
    );
    for timers in ["rto", "rtor", "rack-tlp"] {
        let text = tlp(1000, "linux-3.15").replace("\"tlp\"\n", &format!("{timers:?}\n"));
        let e = parse(&text).unwrap_err().to_string();
        assert!(e.contains("flow.a.tlp"), "{timers}: {e}");
    }
}

#[test]
fn written_back() {
    let s = parse(&tlp(1000, "linux-3.10")).unwrap();
    let out = losslab_sim::emit::to_toml(&s).unwrap();
    assert!(out.contains("pto = \"linux-3.10\""), "{out}");
    assert_eq!(parse(&out).unwrap().flows[0].tlp_pto, TlpPto::Linux310);
    let s = parse(&forty_objects("timers = \"tlp\"")).unwrap();
    let out = losslab_sim::emit::to_toml(&s).unwrap();
    assert!(!out.contains("pto"), "{out}");
}

#[test]
fn written_back_for_tlpr() {
    let text =
        forty_objects("timers = \"tlpr\"\ntimer_hz = 250\n[flow.tlpr]\npto = \"linux-3.15\"");
    let out = losslab_sim::emit::to_toml(&parse(&text).unwrap()).unwrap();
    assert!(
        out.contains("[flow.tlpr]") && out.contains("pto = \"linux-3.15\""),
        "{out}"
    );
    assert_eq!(parse(&out).unwrap().flows[0].tlp_pto, TlpPto::Linux315);
}

/// `linux-3.10` takes 3.10's probe timeout since issue 32's twelfth step
/// (with the mobile paper's rerun); the other papers' profiles keep the
/// paper's equations until their reproductions are rerun with the key.
/// Under `linux-3.10` a TLPR flow gets it too, and exports.
#[test]
fn which_profiles_set_it() {
    for (profile, want) in [
        ("linux-3.17", TlpPto::Paper),
        ("linux-4.10", TlpPto::Paper),
        ("linux-3.10", TlpPto::Linux310),
    ] {
        let s = parse(&forty_objects(&format!("profile = {profile:?}"))).unwrap();
        assert_eq!(s.flows[0].tlp_pto, want, "{profile}");
    }
    let s = parse(&forty_objects(
        "profile = \"linux-3.10\"\ntimers = \"tlpr\"",
    ))
    .unwrap();
    assert_eq!(s.flows[0].tlp_pto, TlpPto::Linux310);
    let out = losslab_sim::emit::to_toml(&s).unwrap();
    assert_eq!(parse(&out).unwrap().flows[0].tlp_pto, TlpPto::Linux310);
}

/// One 30 kB object whose last segment is lost, 33 ms one way, at 250
/// Hz, with a 1 s minimum RTO so that the RTO does not cap the probe:
/// the probe repairs the loss, and the download ends one probe timeout
/// (1.5 SRTT + 200 ms with one segment out) after the last ACK (TLP) or
/// the last send (TLPR). Returns the download's time under `timers` and
/// `pto`.
fn tail_loss_fct(timers: &str, pto: &str) -> f64 {
    let text = tlp(250, pto)
        .replace("timers = \"tlp\"", &format!("timers = {timers:?}"))
        .replace("[flow.tlp]", &format!("[flow.{timers}]"))
        .replace(
            "\"bernoulli\", p = 0.02",
            "\"drop\", flow = \"a\", segments = [21]",
        )
        .replace("delay = \"30ms\"", "delay = \"33ms\"")
        .replace(&vec!["\"30kB\""; 40].join(", "), "\"30kB\"")
        .replace("timer_hz = 250", "timer_hz = 250\nmin_rto = \"1s\"");
    let r = run(&parse(&text).unwrap());
    let f = &r.flows[0];
    assert_eq!((f.tail_probes, f.timeouts), (1, 0), "{timers} {pto}");
    f.fct_s.unwrap()
}

/// SRTT (66 ms and a little) rounded up to whole jiffies (3.15-4.x) gives
/// a later probe than truncated (3.10-3.14), here by one jiffy each side
/// of the paper's equations at exact times; TLP and TLPR alike (TLPR
/// measured 0.5059, 0.5099 and 0.5139 s).
#[test]
fn reaches_the_simulation() {
    for timers in ["tlp", "tlpr"] {
        let fct = |pto| tail_loss_fct(timers, pto);
        let (paper, l310, l315) = (fct("paper"), fct("linux-3.10"), fct("linux-3.15"));
        let jiffy = 0.004;
        assert!(
            (paper - l310 - jiffy).abs() < 1e-9,
            "{timers}: {l310} {paper}"
        );
        assert!(
            (l315 - paper - jiffy).abs() < 1e-9,
            "{timers}: {paper} {l315}"
        );
    }
}
