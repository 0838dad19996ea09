//! The emulator against its model, through real sockets. Needs root and
//! /dev/net/tun (CI has both); elsewhere every test says loudly that it
//! was skipped. The tests share the CPU-bound emulator, so they run one
//! at a time.

use std::net::{SocketAddrV4, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use losslab_core::time::MS;
use losslab_net::agent;
use losslab_net::netns;
use losslab_net::{EmuConfig, Emulator, Host};
use losslab_sim::parse::parse_scenario;
use losslab_sim::Scenario;

static SERIAL: Mutex<()> = Mutex::new(());

fn guard() -> Option<MutexGuard<'static, ()>> {
    if let Some(why) = losslab_net::unavailable() {
        eprintln!("!!!!!! SKIPPED: the emulator tests need root and /dev/net/tun ({why}) !!!!!!");
        return None;
    }
    Some(SERIAL.lock().unwrap_or_else(|e| e.into_inner()))
}

fn scenario(toml: &str) -> Scenario {
    parse_scenario("test.toml", toml, &[]).expect("valid scenario")
}

fn b_addr(port: u16) -> SocketAddrV4 {
    SocketAddrV4::new(netns::ADDR_B.into(), port)
}

#[test]
fn rtt_equals_the_configured_delay_at_low_rate() {
    let Some(_g) = guard() else { return };
    let sc = scenario(
        r#"
        [path]
        rate = "10Mbps"
        delay = "20ms"
        [reverse]
        delay = "15ms"
        [[flow]]
        name = "a"
        "#,
    );
    let emu = Emulator::start(EmuConfig::new(sc)).expect("emulator starts");
    let stop = Arc::new(AtomicBool::new(false));
    let echo_sock = emu
        .in_ns(Host::B, || UdpSocket::bind(b_addr(7)))
        .unwrap()
        .unwrap();
    let st = stop.clone();
    let echo = emu
        .spawn_in(Host::B, move || agent::udp_echo(echo_sock, st))
        .unwrap();
    let ping = emu
        .spawn_in(Host::A, || agent::udp_ping(b_addr(7), 30, 100, 20 * MS))
        .unwrap();
    let rtts = ping.join().unwrap().unwrap().unwrap();
    stop.store(true, Ordering::SeqCst);
    echo.join().unwrap().unwrap().unwrap();
    let report = emu.stop().unwrap();
    eprintln!("{}", report.render());
    eprintln!(
        "rtts ms: {:?}",
        rtts.iter().map(|r| *r as f64 / 1e6).collect::<Vec<_>>()
    );
    assert_eq!(rtts.len(), 30, "every ping came back");
    // 128 bytes on the wire at 10 Mbit/s: 102.4 us of serialisation.
    let expected = (35 * MS) as f64 + 102_400.0;
    // Nothing arrives early: the model's delay is a floor.
    for r in &rtts {
        assert!(*r as f64 >= expected - 1000.0, "rtt {r} ns below the model");
    }
    // The ping and echo threads are not real-time: a compiler elsewhere
    // on the machine may delay a few of them, never most.
    let mut sorted = rtts.clone();
    sorted.sort_unstable();
    let within = rtts
        .iter()
        .filter(|&&r| (r as f64 - expected).abs() < 1e6)
        .count();
    let median = sorted[sorted.len() / 2] as f64;
    assert!(
        (median - expected).abs() < 1e6,
        "median rtt {:.3} ms, expected {:.3} ms",
        median / 1e6,
        expected / 1e6
    );
    assert!(
        within >= 27,
        "only {within} of 30 rtts within 1 ms of {:.3} ms",
        expected / 1e6
    );
    assert_eq!(report.kernel_drops(), 0);
}
