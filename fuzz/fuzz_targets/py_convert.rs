//! The Python package's dict-to-TOML converter through its Rust entry
//! (`losslab::pyconv`): any tree of strings, bools, ints, floats, lists
//! and dicts, nested up to 200 levels (past MAX_DEPTH), converts to TOML
//! that reads back, or is an error naming the key path; never a panic or
//! a stack overflow. The Python side's cycle guard turns a cycle into
//! such a depth before this is reached.
#![no_main]

use libfuzzer_sys::fuzz_target;
use losslab::pyconv::{to_toml, value_to_toml, Data};

/// Decodes bytes into a tree: each byte picks a node kind, the next ones
/// its contents.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn byte(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().map_or((0, &[][..]), |(b, r)| (*b, r));
        self.0 = rest;
        b
    }
    fn text(&mut self) -> String {
        let n = usize::from(self.byte() % 12);
        let bytes: Vec<u8> = (0..n).map(|_| self.byte()).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
    fn node(&mut self, depth: usize) -> Data {
        let kind = if depth >= 200 || self.0.is_empty() {
            self.byte() % 4
        } else {
            self.byte() % 7
        };
        match kind {
            0 => Data::Str(self.text()),
            1 => Data::Bool(self.byte() & 1 == 1),
            2 => Data::Int(i64::from_le_bytes(std::array::from_fn(|_| self.byte()))),
            3 => Data::Float(f64::from_le_bytes(std::array::from_fn(|_| self.byte()))),
            4 | 5 => {
                let n = usize::from(self.byte() % 4);
                Data::List((0..n).map(|_| self.node(depth + 1)).collect())
            }
            _ => {
                let n = usize::from(self.byte() % 4);
                Data::Dict((0..n).map(|_| (self.text(), self.node(depth + 1))).collect())
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut r = Reader(data);
    let tree = r.node(0);
    if let Ok(text) = to_toml(&tree) {
        assert!(
            text.parse::<toml::Table>().is_ok(),
            "the converter wrote TOML that does not read back:\n{text}"
        );
    }
    let _ = value_to_toml(&tree, "set");
});
