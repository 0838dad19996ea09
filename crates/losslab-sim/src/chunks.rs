//! Parallel TCP over one chunked file (`app = { kind = "chunks" }`): the
//! OR3 paper's section III-C workload. The `count` connections of a flow
//! share one file; chunks are handed out in file order from a shared
//! queue, and a connection claims the next one as soon as it has sent
//! every byte it claimed before, so no connection idles while chunks are
//! left (work-conserving striping).

use std::collections::VecDeque;

use losslab_core::time::Time;

/// One flow group's file: the shared queue and every chunk handed out.
#[derive(Debug)]
pub(crate) struct FileRt {
    /// The `[[flow]]`'s name (its connections are NAME.1 .. NAME.N).
    pub name: String,
    /// Flow indices of the connections, in order.
    pub members: Vec<usize>,
    pub start: Time,
    pub file_bytes: u64,
    pub chunk_bytes: u64,
    /// The flow's propagation round trip (ΔCCT's base RTT).
    pub base_rtt: Time,
    /// File offset of the next chunk to hand out.
    next: u64,
    /// Every chunk handed out, in file order.
    pub chunks: Vec<Chunk>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Chunk {
    /// Byte range in its connection's stream.
    start: u64,
    end: u64,
    /// CCT_i runs from the first transmission of the chunk's first byte
    /// until the sender's cumulative ACK covers its last byte (OR3 paper
    /// section III-C, Fig. 9's chunk completion time).
    pub first_sent: Option<Time>,
    pub done: Option<Time>,
}

impl FileRt {
    pub fn new(
        name: String,
        members: Vec<usize>,
        start: Time,
        file_bytes: u64,
        chunk_bytes: u64,
        base_rtt: Time,
    ) -> Self {
        FileRt {
            name,
            members,
            start,
            file_bytes,
            chunk_bytes,
            base_rtt,
            next: 0,
            chunks: Vec::new(),
        }
    }

    /// How many chunks the file is cut into (the last may be shorter).
    pub fn chunk_count(&self) -> u64 {
        self.file_bytes.div_ceil(self.chunk_bytes.max(1))
    }

    /// When the last chunk completed, if every one has.
    pub fn completed_at(&self) -> Option<Time> {
        if (self.chunks.len() as u64) < self.chunk_count() {
            return None;
        }
        self.chunks
            .iter()
            .map(|c| c.done)
            .try_fold(0, |acc: Time, d| d.map(|d| acc.max(d)))
    }
}

/// One connection's share of its group's file.
#[derive(Debug)]
pub(crate) struct ConnChunks {
    /// Index of the group's `FileRt`.
    pub file: usize,
    /// End of the bytes claimed so far, in the connection's stream.
    pub claimed_end: u64,
    /// End of the highest first transmission so far.
    high_sent: u64,
    /// Claimed chunks (indices into `FileRt::chunks`) not yet sent from
    /// their first byte, and not yet completed, in stream order.
    to_start: VecDeque<usize>,
    to_finish: VecDeque<usize>,
    /// The shared queue was empty when this connection asked: its stream
    /// ends at `claimed_end`.
    pub closed: bool,
}

impl ConnChunks {
    pub fn new(file: usize) -> Self {
        ConnChunks {
            file,
            claimed_end: 0,
            high_sent: 0,
            to_start: VecDeque::new(),
            to_finish: VecDeque::new(),
            closed: false,
        }
    }

    /// The sender put a segment ending at `end` on the wire at `now` for
    /// the first time (first transmissions go in stream order).
    // Out of line: the modern-stack benchmark (m100) seldom or never runs
    // it, and inlined it spread the hot path's code over more cache lines;
    // where a run takes it per packet, it adds a call (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    pub fn on_first_transmission(&mut self, now: Time, end: u64, file: &mut FileRt) {
        self.high_sent = self.high_sent.max(end);
        while let Some(&i) = self.to_start.front() {
            let c = &mut file.chunks[i];
            if c.start >= end {
                break;
            }
            c.first_sent = Some(now);
            self.to_start.pop_front();
        }
    }

    /// The sender's cumulative ACK is `snd_una` at `now`.
    // Out of line: the modern-stack benchmark (m100) seldom or never runs
    // it, and inlined it spread the hot path's code over more cache lines;
    // where a run takes it per packet, it adds a call (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    pub fn on_snd_una(&mut self, now: Time, snd_una: u64, file: &mut FileRt) {
        while let Some(&i) = self.to_finish.front() {
            let c = &mut file.chunks[i];
            if c.end > snd_una {
                break;
            }
            c.done = Some(now);
            self.to_finish.pop_front();
        }
    }

    /// Every claimed byte has been sent once: time to claim the next chunk.
    pub fn wants_more(&self) -> bool {
        !self.closed && self.high_sent >= self.claimed_end
    }

    /// Takes the next chunk of the file for this connection; returns its
    /// length, or None when the queue is empty.
    // Out of line: the modern-stack benchmark (m100) seldom or never runs
    // it, and inlined it spread the hot path's code over more cache lines;
    // where a run takes it per packet, it adds a call (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    pub fn claim(&mut self, file: &mut FileRt) -> Option<u64> {
        let len = file.chunk_bytes.min(file.file_bytes - file.next);
        if len == 0 {
            return None;
        }
        file.next += len;
        let i = file.chunks.len();
        file.chunks.push(Chunk {
            start: self.claimed_end,
            end: self.claimed_end + len,
            first_sent: None,
            done: None,
        });
        self.claimed_end += len;
        self.to_start.push_back(i);
        self.to_finish.push_back(i);
        Some(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_go_out_in_file_order_and_the_last_is_short() {
        let mut file = FileRt::new("a".into(), vec![0, 1], 0, 2500, 1000, 10);
        assert_eq!(file.chunk_count(), 3);
        let mut a = ConnChunks::new(0);
        let mut b = ConnChunks::new(0);
        assert_eq!(a.claim(&mut file), Some(1000));
        assert_eq!(b.claim(&mut file), Some(1000));
        assert!(!a.wants_more());
        a.on_first_transmission(5, 600, &mut file);
        assert_eq!(file.chunks[0].first_sent, Some(5));
        assert!(!a.wants_more());
        a.on_first_transmission(6, 1000, &mut file);
        assert!(a.wants_more());
        assert_eq!(a.claim(&mut file), Some(500));
        // The third chunk is a's second: bytes 1000..1500 of a's stream.
        assert_eq!((file.chunks[2].start, file.chunks[2].end), (1000, 1500));
        assert_eq!(b.claim(&mut file), None);
        a.on_snd_una(20, 1000, &mut file);
        assert_eq!(file.chunks[0].done, Some(20));
        assert_eq!(file.completed_at(), None);
        b.on_first_transmission(7, 1000, &mut file);
        b.on_snd_una(30, 1000, &mut file);
        a.on_first_transmission(8, 1500, &mut file);
        a.on_snd_una(40, 1500, &mut file);
        assert_eq!(file.completed_at(), Some(40));
    }
}
