//! The application above the sender: how much data it offers, and when.

use crate::time::Time;

#[derive(Clone, Debug, PartialEq)]
pub enum App {
    /// Always has data (an infinite source).
    Bulk,
    /// Writes this many bytes at the start.
    Bytes(u64),
    /// Writes at absolute times (sorted), bytes each.
    Writes(Vec<(Time, u64)>),
    /// Writes whenever the caller says so (`Sender::write`), `total` bytes
    /// in all: a server answering requests it cannot foresee.
    OnDemand { total: u64 },
}

/// Tracks what the application has written into the send buffer.
#[derive(Clone, Debug)]
pub struct AppState {
    app: App,
    /// Bytes handed to TCP so far (for Bulk: grows on demand).
    written: u64,
    /// Bytes the application wants to write but the send buffer refused.
    blocked: u64,
    next_write: usize,
}

impl AppState {
    pub fn new(app: App) -> Self {
        AppState {
            app,
            written: 0,
            blocked: 0,
            next_write: 0,
        }
    }

    /// Total bytes this application will ever write (None: unbounded).
    pub fn total(&self) -> Option<u64> {
        match &self.app {
            App::Bulk => None,
            App::Bytes(n) => Some(*n),
            App::Writes(w) => Some(w.iter().map(|x| x.1).sum()),
            App::OnDemand { total } => Some(*total),
        }
    }

    /// The application writes `bytes` more (`App::OnDemand`); `advance`
    /// moves them into the send buffer. Bytes beyond the declared total
    /// are refused, so that `total` stays the end of the stream.
    pub fn push(&mut self, bytes: u64) {
        if let App::OnDemand { total } = self.app {
            let room = total.saturating_sub(self.written + self.blocked);
            self.blocked += bytes.min(room);
        }
    }

    /// The application will write nothing more (`App::OnDemand` whose
    /// caller could not know its total in advance, e.g. a connection of a
    /// parallel transfer whose shared queue ran dry): the stream ends with
    /// what it has written so far, so the sender can finish.
    pub fn close(&mut self) {
        if let App::OnDemand { total } = &mut self.app {
            *total = self.written + self.blocked;
        }
    }

    /// Moves writes due by `now` into the send buffer, limited so that
    /// `written - snd_una <= sndbuf`.
    pub fn advance(&mut self, now: Time, snd_una: u64, sndbuf: Option<u64>) {
        match &self.app {
            App::Bulk => {}
            App::Bytes(n) => {
                if self.next_write == 0 {
                    self.blocked = *n;
                    self.next_write = 1;
                }
            }
            App::Writes(w) => {
                while self.next_write < w.len() && w[self.next_write].0 <= now {
                    self.blocked += w[self.next_write].1;
                    self.next_write += 1;
                }
            }
            App::OnDemand { .. } => {}
        }
        let room = match sndbuf {
            Some(cap) => (snd_una + cap).saturating_sub(self.written),
            None => u64::MAX,
        };
        let n = self.blocked.min(room);
        self.written += n;
        self.blocked -= n;
    }

    /// Bytes available to send beyond `snd_nxt`, for Bulk bounded by sndbuf.
    pub fn available(&self, snd_nxt: u64, snd_una: u64, sndbuf: Option<u64>) -> u64 {
        match self.app {
            App::Bulk => match sndbuf {
                Some(cap) => (snd_una + cap).saturating_sub(snd_nxt),
                None => u64::MAX,
            },
            _ => self.written.saturating_sub(snd_nxt),
        }
    }

    /// Next time a write is due (for the caller's timer).
    pub fn next_write_time(&self) -> Option<Time> {
        match &self.app {
            App::Writes(w) => w.get(self.next_write).map(|x| x.0),
            _ => None,
        }
    }

    /// True once every byte the application will write has been written.
    pub fn all_written(&self) -> bool {
        match &self.app {
            App::Bulk => false,
            App::Bytes(_) => self.next_write == 1 && self.blocked == 0,
            App::Writes(w) => self.next_write == w.len() && self.blocked == 0,
            App::OnDemand { total } => self.written >= *total,
        }
    }

    pub fn has_blocked(&self) -> bool {
        self.blocked > 0
    }

    /// The application would write more if the send buffer let it.
    pub fn wants_more(&self) -> bool {
        matches!(self.app, App::Bulk) || self.blocked > 0
    }

    /// End of what the application has written (None for Bulk, whose
    /// writes are implicit: always up to the send buffer's limit).
    pub fn written_end(&self) -> Option<u64> {
        match self.app {
            App::Bulk => None,
            _ => Some(self.written),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_ends_an_on_demand_stream_at_what_was_written() {
        let mut a = AppState::new(App::OnDemand { total: 1_000_000 });
        a.push(3000);
        a.advance(0, 0, Some(2000));
        assert!(!a.all_written());
        a.close();
        // The blocked 1000 bytes are still part of the stream.
        assert_eq!(a.total(), Some(3000));
        assert!(!a.all_written());
        a.advance(0, 1000, Some(2000));
        assert!(a.all_written());
        // Nothing can be added after the close.
        a.push(10);
        assert_eq!(a.total(), Some(3000));
    }
}
