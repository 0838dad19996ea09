//! Regression tests for the defects the RFC audit of issue 10 found, each
//! driven by hand-made ACKs so the numbers can be checked against the RFC
//! text by hand.

use losslab_core::app::App;
use losslab_core::time::MS;
use losslab_core::{Algorithms, Sender, SenderConfig};

use crate::common;

use common::{ack, MSS};

/// A sender of `segments` segments with the hand-worked examples' MSS.
fn config(segments: u64, init_cwnd: u64) -> SenderConfig {
    SenderConfig {
        mss: MSS as u32,
        init_cwnd,
        app: App::Bytes(segments * MSS),
        initial_rwnd: 1 << 20,
        ..SenderConfig::default()
    }
}

fn sender_with(segments: u64, init_cwnd: u64, alg: Algorithms) -> Sender {
    Sender::new(config(segments, init_cwnd), alg, 0)
}

fn sender(segments: u64, init_cwnd: u64, recovery: &str, detection: &str) -> Sender {
    let alg = Algorithms::by_name("newreno", recovery, detection, "rto", 3).unwrap();
    sender_with(segments, init_cwnd, alg)
}

/// Segment numbers of everything the sender sends now.
fn send_all(s: &mut Sender, now: u64) -> Vec<u64> {
    common::send_all(s, now).iter().map(|x| x.seg_no).collect()
}

/// Defect 2: RFC 6675 section 5 step (4.3) sets RescueRxt with HighRxt at
/// the fast retransmit, so NextSeg() rule 4 waits until the fast
/// retransmit is acknowledged. Ten segments, the 3rd and the 10th (0-based
/// 2 and 9) dropped, quick ACKs, no more data to send.
#[test]
fn rescue_retransmission_waits_for_the_fast_retransmit_to_be_acked() {
    let mut s = sender(10, 10, "rfc6675", "dupthresh");
    assert_eq!(send_all(&mut s, 0).len(), 10);
    s.on_ack(40 * MS, &ack(1, &[], 1));
    s.on_ack(40 * MS, &ack(2, &[], 1));
    // Segments 3, 4, 5 SACKed: IsLost(2); the fast retransmit goes.
    for k in 3..6 {
        s.on_ack(41 * MS + k, &ack(2, &[(3, k + 1)], 1));
    }
    assert!(s.in_recovery());
    assert_eq!(send_all(&mut s, 46 * MS), vec![2]);
    // More duplicate ACKs (SACKs of 6, 7, 8): pipe falls below cwnd, but
    // there is no new data and no hole below the highest SACK: rule 4
    // must not fire while HighACK <= RescueRxt (the fast retransmit's
    // last byte, 2999).
    for k in 6..9 {
        s.on_ack(47 * MS + k, &ack(2, &[(3, k + 1)], 1));
        assert_eq!(
            send_all(&mut s, 47 * MS + k),
            Vec::<u64>::new(),
            "dupack {k}"
        );
    }
    // The fast retransmit arrives: a partial ACK up to segment 9. Now the
    // rescue retransmits the highest un-SACKed segment, 9.
    s.on_ack(86 * MS, &ack(9, &[], 1));
    assert_eq!(send_all(&mut s, 86 * MS), vec![9]);
    assert_eq!(s.stats().retransmissions, 2);
}

/// Defect 3: RFC 5681 section 3.2 step 2 (and RFC 6675 (4.2)): segments
/// sent by RFC 3042 limited transmit MUST NOT count in the FlightSize that
/// sets ssthresh. Ten segments out (cwnd 10), the first lost: the first
/// two duplicate ACKs each send one new segment (12 out), the third starts
/// recovery with ssthresh = max(10 / 2, 2) = 5, not 12 / 2 = 6.
#[test]
fn limited_transmit_does_not_count_in_flight_size_for_ssthresh() {
    for sack in [true, false] {
        let mut s = sender(30, 10, "rfc6675", "dupthresh");
        assert_eq!(send_all(&mut s, 0).len(), 10);
        for k in 1..=3u64 {
            let b: Vec<(u64, u64)> = if sack { vec![(1, k + 1)] } else { vec![] };
            s.on_ack(40 * MS + k, &ack(0, &b, 1));
            let sent = send_all(&mut s, 40 * MS + k);
            if k < 3 {
                assert_eq!(sent, vec![9 + k], "limited transmit, dupack {k}");
            } else {
                assert_eq!(sent.first(), Some(&0), "fast retransmit");
            }
        }
        assert!(s.in_recovery(), "sack {sack}");
        assert_eq!(s.window().ssthresh, 5, "sack {sack}");
    }
}

/// Records the DeliveredData the sender hands the recovery algorithm on
/// each ACK of fast recovery (the entering one included), with RFC 6675's
/// cwnd rule underneath.
struct Recorder(std::rc::Rc<std::cell::RefCell<Vec<u64>>>);

impl losslab_core::recovery::RecoveryOps for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn init_cwnd_reduction(
        &mut self,
        w: &mut losslab_core::Window,
        c: &losslab_core::recovery::RecoveryCtx,
    ) {
        losslab_core::recovery::Rfc6675.init_cwnd_reduction(w, c);
    }
    fn cwnd_reduction(
        &mut self,
        _w: &mut losslab_core::Window,
        _c: &losslab_core::recovery::RecoveryCtx,
        delivered: u64,
        _fast_rexmit: bool,
    ) {
        self.0.borrow_mut().push(delivered);
    }
    fn end_cwnd_reduction(
        &mut self,
        w: &mut losslab_core::Window,
        c: &losslab_core::recovery::RecoveryCtx,
    ) {
        losslab_core::recovery::Rfc6675.end_cwnd_reduction(w, c);
    }
}

/// Defect 6: without SACK, the cumulative ACK after k duplicate ACKs
/// delivers its advance minus k (RFC 9937 section 6.2), at least the one
/// segment that filled the hole (Linux tcp_remove_reno_sacks()); counting
/// the whole advance counted the k segments twice. Twenty segments out,
/// 0 and 10 lost: 18 duplicate ACKs (one per segment that arrived), then
/// the retransmission of 0 makes a partial ACK up to 10, which delivers
/// one segment (the retransmission), not ten.
#[test]
fn without_sack_the_cumulative_ack_after_dupacks_delivers_advance_minus_k() {
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let mut alg = Algorithms::by_name("newreno", "rfc6675", "dupthresh", "rto", 3).unwrap();
    alg.recovery = Box::new(Recorder(seen.clone()));
    let cfg = SenderConfig {
        limited_transmit: false,
        ..config(20, 20)
    };
    let mut s = Sender::new(cfg, alg, 0);
    assert_eq!(send_all(&mut s, 0).len(), 20);
    for k in 1..=18u64 {
        s.on_ack(40 * MS + k, &ack(0, &[], 1));
        send_all(&mut s, 40 * MS + k);
    }
    assert!(s.in_recovery());
    s.on_ack(80 * MS, &ack(10, &[], 1));
    assert!(s.in_recovery(), "a partial ACK");
    assert_eq!(send_all(&mut s, 80 * MS), vec![10], "RFC 6582 step 4");
    let d = seen.borrow();
    // Entry on the 3rd duplicate ACK, 15 more duplicates, the partial ACK.
    assert_eq!(d.len(), 17, "{d:?}");
    assert_eq!(*d.last().unwrap(), 1, "{d:?}");
    assert_eq!(d.iter().sum::<u64>(), 17, "{d:?}");
}

/// Defect 4: RFC 8985 6.3 (RACK_mark_losses_on_RTO): an RTO marks the
/// first unacknowledged segment and those sent at least RACK.rtt +
/// RACK.reo_wnd ago, not everything. Ten segments at 0; at 100 ms the
/// first five are acknowledged (RTT 100 ms, RTO 300 ms; a DSACK block
/// shows the peer speaks SACK); three more leave at 350 ms; the RTO fires
/// at 400 ms: 5..9 (sent 400 ms ago) are lost, 10..12 (50 ms ago, under
/// RACK.rtt 100 + reo_wnd 25 ms) are not.
#[test]
fn rack_marks_only_old_segments_on_an_rto() {
    for (detection, lost) in [("rack", 5), ("dupthresh", 8)] {
        let cfg = SenderConfig {
            mss: MSS as u32,
            init_cwnd: 10,
            app: App::Writes(vec![(0, 10 * MSS), (350 * MS, 3 * MSS)]),
            initial_rwnd: 1 << 20,
            ..SenderConfig::default()
        };
        let alg = Algorithms::by_name("newreno", "prr", detection, "rto", 3).unwrap();
        let mut s = Sender::new(cfg, alg, 0);
        assert_eq!(send_all(&mut s, 0).len(), 10);
        let mut a = ack(5, &[(0, 1)], 1);
        a.dsack = true;
        s.on_ack(100 * MS, &a);
        assert_eq!(s.rtt().rto(), 300 * MS);
        s.on_timeout(350 * MS);
        assert_eq!(send_all(&mut s, 350 * MS), vec![10, 11, 12]);
        assert_eq!(s.poll_timeout(), Some(400 * MS));
        s.on_timeout(400 * MS);
        assert_eq!(s.stats().timeouts, 1);
        assert_eq!(s.scoreboard().lost_out(), lost, "{detection}");
        assert_eq!(send_all(&mut s, 400 * MS), vec![5], "{detection}: cwnd 1");
    }
}

/// Defect 10, both named: a timeout during fast recovery keeps the
/// ssthresh the fast recovery set (Linux tcp_enter_loss()) or halves
/// FlightSize again (RFC 5681 section 3.1, `RtoSsthresh::Rfc5681`).
/// Twenty segments, 0 lost, SACKs of 1..=19 start recovery with ssthresh
/// 10 and let new data out as pipe falls (29 outstanding); the fast
/// retransmit is lost too and the RTO fires: Linux keeps 10, RFC 5681
/// sets max(29 / 2, 2) = 14.
#[test]
fn timeout_in_fast_recovery_keeps_or_recomputes_ssthresh() {
    for (rule, want) in [
        (losslab_core::RtoSsthresh::Linux, 10),
        (losslab_core::RtoSsthresh::Rfc5681, 14),
    ] {
        let cfg = SenderConfig {
            mss: MSS as u32,
            init_cwnd: 20,
            app: App::Bytes(100 * MSS),
            initial_rwnd: 1 << 20,
            rto_ssthresh: rule,
            ..SenderConfig::default()
        };
        let alg = Algorithms::by_name("newreno", "rfc6675", "dupthresh", "rto", 3).unwrap();
        let mut s = Sender::new(cfg, alg, 0);
        assert_eq!(send_all(&mut s, 0).len(), 20);
        for k in 1..20u64 {
            s.on_ack(100 * MS + k, &ack(0, &[(1, k + 1)], 1));
            send_all(&mut s, 100 * MS + k);
        }
        assert!(s.in_recovery());
        assert_eq!(s.window().ssthresh, 10);
        assert_eq!(s.scoreboard().packets_out(), 29, "{rule:?}");
        let t = s.poll_timeout().unwrap();
        s.on_timeout(t);
        assert_eq!(s.stats().timeouts, 1);
        assert_eq!(s.window().ssthresh, want, "{rule:?}");
    }
}

/// Linux's non-SACK recovery exit (tcp_try_undo_recovery(), "Hold old
/// state until something *above* high_seq is ACKed"), against RFC 6582's.
/// Eight segments out, the first lost; five duplicate ACKs (the third
/// starts recovery and retransmits it) and then the ACK of everything
/// sent before recovery: exactly the recovery point. RFC 6582 leaves
/// recovery there; Linux holds it, duplicate ACKs of later data mark
/// nothing while it does, and the next ACK above the point ends it with
/// cwnd = ssthresh.
#[test]
fn without_sack_linux_holds_recovery_at_the_recovery_point() {
    use losslab_core::RecoveryExit;
    for exit in [RecoveryExit::Rfc6582, RecoveryExit::Linux] {
        let cfg = SenderConfig {
            limited_transmit: false,
            recovery_exit: exit,
            ..config(12, 8)
        };
        let alg = Algorithms::by_name("newreno", "prr", "dupthresh", "rto", 3).unwrap();
        let mut s = Sender::new(cfg, alg, 0);
        assert_eq!(send_all(&mut s, 0).len(), 8);
        let mut t = 100 * MS;
        for _ in 0..5 {
            t += 1;
            s.on_ack(t, &ack(0, &[], 1));
            send_all(&mut s, t);
        }
        assert!(s.in_recovery());
        t += 100 * MS;
        s.on_ack(t, &ack(8, &[], 1));
        let after_full = send_all(&mut s, t);
        assert!(!after_full.is_empty(), "{exit:?}: new data goes");
        match exit {
            RecoveryExit::Rfc6582 => {
                assert!(!s.in_recovery(), "RFC 6582 3.2 step 3");
                assert_eq!(s.window().cwnd, s.window().ssthresh);
            }
            RecoveryExit::Linux => {
                assert_eq!(s.ca_state(), 3, "held in Recovery");
                // Three duplicates of the held point retransmit nothing.
                for _ in 0..3 {
                    t += 1;
                    s.on_ack(t, &ack(8, &[], 1));
                    let sent = send_all(&mut s, t);
                    assert!(
                        sent.iter().all(|&n| n >= 8 + after_full.len() as u64),
                        "{sent:?}"
                    );
                }
                assert_eq!(s.stats().retransmissions, 1);
                assert_eq!(s.ca_state(), 3);
                t += 1;
                s.on_ack(t, &ack(9, &[], 1));
                assert!(!s.in_recovery(), "an ACK above the point ends it");
                assert_eq!(s.window().cwnd, s.window().ssthresh);
            }
        }
    }
}

/// Without SACK, a new ACK outside recovery forgets the duplicate ACKs
/// before it (RFC 5681 section 2; Linux tcp_reset_reno_sack()), and slow
/// start grows by what the ACK delivered beyond them (Linux
/// tcp_newly_delivered()). google/packetdrill's limited-transmit-no-sack
/// case: ten segments, two duplicate ACKs (two limited transmits), then
/// an ACK of three segments: one newly delivered, cwnd 10 -> 11, and with
/// nine in flight two segments go.
#[test]
fn without_sack_a_new_ack_forgets_the_duplicates_before_it() {
    let mut s = sender(15, 10, "prr", "dupthresh");
    assert_eq!(send_all(&mut s, 0).len(), 10);
    for k in 1..=2u64 {
        s.on_ack(100 * MS + k, &ack(0, &[], 1));
        assert_eq!(send_all(&mut s, 100 * MS + k), vec![9 + k]);
    }
    s.on_ack(120 * MS, &ack(3, &[], 1));
    assert!(!s.in_recovery());
    assert_eq!(s.window().cwnd, 11);
    assert_eq!(send_all(&mut s, 120 * MS), vec![12, 13]);
}
