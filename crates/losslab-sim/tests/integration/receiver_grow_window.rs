//! `receiver.grow_window` (docs/SCENARIO.md): Linux's rcv_ssthresh and
//! the quick ACKs it triggers (receiver.rs `grow_window`).

use crate::common;

use common::*;

fn text(v: &str) -> String {
    format!("[path]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"a\"\nreceiver = {{ grow_window = {v} }}\n")
}

#[test]
fn grow_window_is_off_or_linux() {
    let absent =
        parse("[path]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"a\"\n").unwrap();
    assert!(!absent.flows[0].receiver.grow_window);
    assert!(
        !parse(&text("\"off\"")).unwrap().flows[0]
            .receiver
            .grow_window
    );
    assert!(
        parse(&text("\"linux\"")).unwrap().flows[0]
            .receiver
            .grow_window
    );
    expect_parse_error(
        parse(&text("\"on\"")),
        "flow.a.receiver.grow_window",
        &["unknown grow_window \"on\"", "off, linux"],
    );
    expect_parse_error(
        parse(&text("true")),
        "flow.a.receiver.grow_window",
        &["expected"],
    );
}

/// A loss-free bulk flow's first 84 segments are each ACKed at once with
/// the key (receiver.rs's hand-worked test: 68 segments open a 256 KiB
/// window from 65160 B, then the 16 quick ACKs tcp_incr_quickack() gave);
/// without it 16 are, then every second one. So the key sends more ACKs
/// for the same data, and changes nothing else about the data delivered.
#[test]
fn grow_window_acks_more_while_the_window_opens() {
    let run_with = |v: &str| {
        let sc = parse(&format!(
            "duration = \"2s\"\n[path]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n[[flow]]\nname = \"a\"\napp = {{ kind = \"bytes\", size = \"500kB\" }}\nreceiver = {{ rcvbuf = \"256KiB\", grow_window = {v} }}\n"
        ))
        .unwrap();
        run(&sc)
    };
    let (off, on) = (run_with("\"off\""), run_with("\"linux\""));
    assert_eq!(off.flows[0].bytes_delivered, 500_000);
    assert_eq!(on.flows[0].bytes_delivered, 500_000);
    // 346 segments of 1448 B (the last 436 B): off, at most 16 + 330 / 2
    // + a few timer ACKs; on, at least 84 + (346 - 84) / 2 = 215.
    assert!(on.flows[0].acks_sent >= 215, "{}", on.flows[0].acks_sent);
    assert!(off.flows[0].acks_sent < 200, "{}", off.flows[0].acks_sent);
}
