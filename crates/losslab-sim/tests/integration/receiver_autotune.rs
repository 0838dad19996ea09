//! `receiver.autotune` (docs/SCENARIO.md): Linux's receive-buffer
//! autotuning (losslab-core autotune.rs, tcp_rcv_space_adjust()).

use crate::common;

use common::*;

fn text(v: &str) -> String {
    format!("[path]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"a\"\nreceiver = {{ autotune = {v} }}\n")
}

#[test]
fn autotune_is_off_or_linux() {
    let absent =
        parse("[path]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"a\"\n").unwrap();
    assert!(!absent.flows[0].receiver.autotune);
    assert!(!parse(&text("\"off\"")).unwrap().flows[0].receiver.autotune);
    assert!(
        parse(&text("\"linux\"")).unwrap().flows[0]
            .receiver
            .autotune
    );
    // The linux-6 profile sets it (issue 32's third step); a receiver
    // table after the profile turns it off again.
    let base = "[path]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"a\"\nprofile = \"linux-6\"\n";
    assert!(parse(base).unwrap().flows[0].receiver.autotune);
    let off = format!("{base}receiver = {{ autotune = \"off\" }}\n");
    assert!(!parse(&off).unwrap().flows[0].receiver.autotune);
    expect_parse_error(
        parse(&text("\"on\"")),
        "flow.a.receiver.autotune",
        &["unknown autotune \"on\"", "off, linux"],
    );
    expect_parse_error(
        parse(&text("true")),
        "flow.a.receiver.autotune",
        &["expected"],
    );
}

/// An application reading 125 kB/s on a 20 ms path reads about 2.5 kB per
/// receiver RTT, never more than the 14480 B tcp_init_buffer_space()
/// starts rcvq_space.space at, so the buffer never grows: it stays
/// tcp_rmem[1] = 131072 B, whose window (65536 B at the default scaling
/// ratio) bounds what the receiver can hold. Without the key the whole
/// 16 MB `rcvbuf` is offered and the sender fills it at the path's rate.
#[test]
fn a_slow_reader_keeps_the_buffer_at_tcp_rmem1() {
    let run_with = |v: &str| {
        let sc = parse(&format!(
            "duration = \"5s\"\n[path]\nrate = \"10Mbps\"\ndelay = \"10ms\"\nqueue = \"1MB\"\n[[flow]]\nname = \"a\"\napp = {{ kind = \"bytes\", size = \"4MB\" }}\nreceiver = {{ read_rate = \"1Mbps\", autotune = {v} }}\n"
        ))
        .unwrap();
        run(&sc)
    };
    let (off, on) = (run_with("\"off\""), run_with("\"linux\""));
    let held = |r: &losslab_sim::RunResults| r.flows[0].max_rcvbuf_occupancy_bytes;
    assert!(held(&on) <= 65_536, "{}", held(&on));
    assert!(held(&off) > 1_000_000, "{}", held(&off));
    // The reader sets the pace either way: 5 s at 125 kB/s.
    let read = |r: &losslab_sim::RunResults| r.flows[0].bytes_delivered;
    assert!(read(&on) > 500_000 && read(&off) > 500_000);
}
