//! CUBIC driven directly: a cwnd-limited flow with a fixed RTT whose every
//! segment is acknowledged once, spread evenly over the round trip.

use losslab_core::cc::{self, CcCtx, CongestionControl, Cubic, NewReno, Reno};
use losslab_core::time::{Time, MS, SEC};
use losslab_core::window::Window;

/// Runs congestion avoidance from `now` for `rounds` RTTs; returns the
/// time and cwnd at the start of every round (and after the last).
fn drive(
    cc: &mut dyn CongestionControl,
    w: &mut Window,
    mut now: Time,
    rtt: Time,
    rounds: usize,
) -> Vec<(Time, u64)> {
    let mut trace = vec![(now, w.cwnd)];
    for _ in 0..rounds {
        let n = w.cwnd;
        let step = rtt / n;
        for i in 0..n {
            let ctx = CcCtx {
                now: now + (i + 1) * step,
                srtt: Some(rtt),
                min_rtt: Some(rtt),
                packets_out: n,
                ..Default::default()
            };
            cc.cong_avoid(w, 1, &ctx);
        }
        now += rtt;
        trace.push((now, w.cwnd));
    }
    trace
}

/// A flow at cwnd `w_max` losing once at time `at`: the window after a
/// fast recovery that ends with cwnd = ssthresh.
fn after_loss(cc: &mut dyn CongestionControl, w_max: u64) -> Window {
    let mut w = Window::new(w_max);
    w.ssthresh = cc.ssthresh(&w, w_max);
    w.cwnd = w.ssthresh;
    w
}

fn cwnd_at(trace: &[(Time, u64)], t: Time) -> u64 {
    trace.iter().rev().find(|&&(at, _)| at <= t).unwrap().1
}

#[test]
fn by_name_builds_cubic_and_reno() {
    assert_eq!(cc::by_name("cubic").unwrap().name(), "cubic");
    assert_eq!(cc::by_name("reno").unwrap().name(), "reno");
    assert!(cc::NAMES.contains(&"cubic") && cc::NAMES.contains(&"reno"));
}

/// W_max = 1000 segments, RTT 100 ms: ssthresh 700, K = cbrt(300 / 0.4) =
/// cbrt(750) = 9.086 s. Reno-friendliness stays out of the way here (W_est
/// grows 0.53 segments per RTT, the cubic curve at least 0.5 per RTT
/// except within about 1.1 s of K, where W_est is still near 750).
#[test]
fn concave_up_to_w_max_then_convex() {
    let mut cubic = Cubic::new();
    let mut w = after_loss(&mut cubic, 1000);
    assert_eq!(w.cwnd, 700);
    let rtt = 100 * MS;
    let t0 = 10 * SEC;
    let trace = drive(&mut cubic, &mut w, t0, rtt, 200);
    let k = cubic.k().unwrap();
    assert!((k - 9.0856).abs() < 1e-3, "K {k}");

    // Hand values (cwnd follows W_cubic(t) to within the one-RTT lead of
    // the target and integer steps): W(1) = 1000 + 0.4 (1 - 9.0856)^3 =
    // 1000 - 211.5 = 788.5; W(K) = 1000; W(2K) = 1300.
    let at = |s: f64| cwnd_at(&trace, t0 + (s * SEC as f64) as Time) as f64;
    assert!((at(1.0) - 788.5).abs() <= 12.0, "W(1) {}", at(1.0));
    assert!((at(k) - 1000.0).abs() <= 5.0, "W(K) {}", at(k));
    assert!(
        (at(2.0 * k) - 1300.0).abs() <= 15.0,
        "W(2K) {}",
        at(2.0 * k)
    );

    // Growth per second falls toward K (concave, below W_max) and rises
    // after it (convex, above W_max).
    let growth = |a: f64| at(a + 1.0) - at(a);
    let before: Vec<f64> = (0..8).map(|s| growth(s as f64)).collect();
    assert!(
        before.windows(2).all(|p| p[1] < p[0]),
        "concave: growth per second {before:?}"
    );
    assert!(at(k - 2.0) < 1000.0);
    let after: Vec<f64> = (10..17).map(|s| growth(s as f64)).collect();
    assert!(
        after.windows(2).all(|p| p[1] > p[0]),
        "convex: growth per second {after:?}"
    );
    assert!(at(k + 1.0) >= 1000.0);
    // Slowest around W_max: the plateau.
    assert!(growth(k - 0.5) < before[0] / 10.0);
    assert!(growth(k - 0.5) < after[0]);
}

/// Small RTT x rate: W_max = 20, RTT 1 ms. The cubic curve needs K =
/// cbrt(6 / 0.4) = 2.47 s (2466 RTTs) to climb 6 segments, while Reno's
/// estimate grows alpha = 0.53 segments per RTT to cwnd_prior = 20 (about
/// 11 RTTs) and then one per RTT: after 100 RTTs W_est = 20 + 89 = 109,
/// and W_cubic(0.1 s) = 20 + 0.4 (0.1 - 2.47)^3 = 14.7.
#[test]
fn reno_friendly_region_dominates_at_small_bdp() {
    let rtt = MS;
    let mut friendly = Cubic::new();
    let mut w = after_loss(&mut friendly, 20);
    assert_eq!(w.cwnd, 14);
    drive(&mut friendly, &mut w, SEC, rtt, 100);
    let w_est = friendly.w_est().unwrap();
    assert!((w_est - 109.0).abs() <= 3.0, "W_est {w_est}");
    assert!(
        w.cwnd as f64 >= w_est - 2.0 && w.cwnd as f64 <= w_est + 1.0,
        "cwnd {} W_est {w_est}",
        w.cwnd
    );
    let w_cubic = friendly.w_cubic(0.1).unwrap();
    assert!((w_cubic - 14.7).abs() < 0.1, "W_cubic {w_cubic}");

    // The same flow without the Reno-friendly region stays on the curve.
    let mut pure = Cubic::with_options(true, false);
    let mut wp = after_loss(&mut pure, 20);
    drive(&mut pure, &mut wp, SEC, rtt, 100);
    assert!(wp.cwnd <= 15, "pure cubic cwnd {}", wp.cwnd);

    // And Reno itself, from its own halved window: 10 + 100.
    let mut reno = Reno;
    let mut wr = after_loss(&mut reno, 20);
    assert_eq!(wr.cwnd, 10);
    drive(&mut reno, &mut wr, SEC, rtt, 100);
    assert!((109..=111).contains(&wr.cwnd), "reno cwnd {}", wr.cwnd);
}

/// Large RTT x rate: the curve outgrows Reno's estimate. W_max = 1000,
/// RTT 100 ms: in the first second the curve climbs ~88 segments, W_est
/// about 0.53 x 10 = 5.
#[test]
fn cubic_region_dominates_at_large_bdp() {
    let mut cubic = Cubic::new();
    let mut w = after_loss(&mut cubic, 1000);
    drive(&mut cubic, &mut w, 0, 100 * MS, 10);
    let w_est = cubic.w_est().unwrap();
    assert!((w_est - 705.3).abs() < 0.5, "W_est {w_est}");
    assert!(w.cwnd >= 780, "cwnd {}", w.cwnd);
}

#[test]
fn growth_never_exceeds_half_a_window_per_rtt() {
    // A stage that starts far below W_max (say a recovery that ended with
    // cwnd = ssthresh = 10 after W_max = 1000): K = cbrt(990 / 0.4) =
    // 13.5 s and W_cubic(0.1 s) = 1000 - 0.4 x 13.4^3 = 38 > 1.5 x 10, so
    // the section 4.2 cap of 1.5 cwnd per RTT binds.
    let mut cubic = Cubic::with_options(false, false);
    let mut w = after_loss(&mut cubic, 1000);
    w.cwnd = 10;
    w.ssthresh = 10;
    let trace = drive(&mut cubic, &mut w, 0, 100 * MS, 6);
    // (+1 for the credit cwnd_cnt carries over from the previous round.)
    for p in trace.windows(2) {
        assert!(p[1].1 * 2 <= p[0].1 * 3 + 2, "{p:?}");
    }
    assert!(trace[1].1 >= 14, "the cap should bind: {trace:?}");
}

#[test]
fn reno_and_newreno_differ_only_in_ssthresh() {
    // cwnd 40, 16 segments in flight (application-limited).
    let w = Window::new(40);
    assert_eq!(Reno.ssthresh(&w, 16), 20);
    assert_eq!(NewReno.ssthresh(&w, 16), 8);
    assert_eq!(Cubic::new().ssthresh(&w, 16), 28);
}
