//! The two ACK flags Linux 4.10's tcp_cwnd_reduction() reads
//! (RecoveryCtx::retrans_data_acked for FLAG_RETRANS_DATA_ACKED,
//! lost_retrans for FLAG_LOST_RETRANS), as the sender fills them on a
//! recovery driven by hand-made ACKs: a spy around `prr-linux-4.10` records
//! what each reduction step was told.

use std::cell::RefCell;
use std::rc::Rc;

use losslab_core::recovery::{PrrLinux410, RecoveryCtx, RecoveryOps};
use losslab_core::time::MS;
use losslab_core::{Algorithms, Sender, Window};

use crate::common;

use common::{ack, bytes_config, send_all};

/// (newly_acked_sacked, retrans_data_acked, lost_retrans) per step.
type Log = Rc<RefCell<Vec<(u64, bool, bool)>>>;

struct Spy {
    inner: PrrLinux410,
    log: Log,
}

impl RecoveryOps for Spy {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn init_cwnd_reduction(&mut self, w: &mut Window, ctx: &RecoveryCtx) {
        self.inner.init_cwnd_reduction(w, ctx)
    }
    fn cwnd_reduction(&mut self, w: &mut Window, ctx: &RecoveryCtx, acked: u64, fast: bool) {
        self.log
            .borrow_mut()
            .push((acked, ctx.retrans_data_acked, ctx.lost_retrans));
        self.inner.cwnd_reduction(w, ctx, acked, fast)
    }
    fn end_cwnd_reduction(&mut self, w: &mut Window, ctx: &RecoveryCtx) {
        self.inner.end_cwnd_reduction(w, ctx)
    }
    fn on_sent(&mut self, segments: u64) {
        self.inner.on_sent(segments)
    }
    fn rescue_retransmission(&self) -> bool {
        self.inner.rescue_retransmission()
    }
}

#[test]
fn the_sender_tells_prr_which_acks_acked_a_retransmission_or_lost_one() {
    let log: Log = Rc::default();
    let mut alg = Algorithms::by_name("newreno", "prr-linux-4.10", "dupthresh", "rto", 3).unwrap();
    alg.recovery = Box::new(Spy {
        inner: PrrLinux410::new(),
        log: log.clone(),
    });
    let mut s = Sender::new(bytes_config(40, 10), alg, 0);
    // Segments 0..10 at 0 ms; segment 0 is lost. Three SACKs (1, 1..2,
    // 1..3) enter recovery on the third; nothing retransmitted yet, so
    // neither flag.
    assert_eq!(send_all(&mut s, 0).len(), 10);
    for k in 1..4 {
        s.on_ack((99 + k) * MS, &ack(0, &[(1, k + 1)], 1));
    }
    assert!(s.in_recovery());
    let rtx = send_all(&mut s, 102 * MS);
    assert_eq!((rtx[0].seg_no, rtx[0].tx_count), (0, 2));
    // More SACKs until new data leaves after the retransmission.
    let mut k = 4;
    let mut after = vec![];
    while after.is_empty() {
        s.on_ack((99 + k) * MS, &ack(0, &[(1, k + 1)], 1));
        after = send_all(&mut s, (99 + k) * MS);
        k += 1;
        assert!(k < 10, "no new data sent in recovery");
    }
    let first_new = after[0].seg_no;
    assert!(first_new >= 10, "{after:?}");
    let steps_before = log.borrow().len();
    assert!(log.borrow().iter().all(|&(_, r, l)| !r && !l), "{log:?}");
    // A SACK of that new segment shows the retransmission of segment 0,
    // sent before it, lost (lost-retransmission detection): FLAG_LOST_RETRANS.
    let lost_before = s.stats().lost_retransmissions;
    s.on_ack(120 * MS, &ack(0, &[(first_new, first_new + 1), (1, k)], 1));
    assert_eq!(s.stats().lost_retransmissions, lost_before + 1);
    assert_eq!(log.borrow()[steps_before], (1, false, true));
    // Segment 0 goes a third time; the cumulative ACK up to segment k
    // (everything SACKed and the hole) covers it while recovery goes on
    // (RecoveryPoint is segment 10): FLAG_RETRANS_DATA_ACKED alone. It
    // delivers the hole only: 1..k were SACKed.
    let again = send_all(&mut s, 121 * MS);
    assert_eq!((again[0].seg_no, again[0].tx_count), (0, 3));
    s.on_ack(170 * MS, &ack(k, &[(first_new, first_new + 1)], 1));
    assert!(s.in_recovery());
    assert_eq!(log.borrow().last(), Some(&(1, true, false)));
    assert_eq!(log.borrow().len(), steps_before + 2);
}
