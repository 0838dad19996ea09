//! The page-scale results committed under docs/data (written by
//! scripts/reproductions.py from `losslab reproduce`): no row there reads
//! `reproduced` with an interval that leaves its band, whatever the
//! version of the code that wrote them.

use crate::common::assert_reproduced_rows_meet_their_bands;
use serde_json::Value;

#[test]
fn no_committed_reproduced_row_leaves_its_band() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/data");
    let mut papers = 0;
    for paper in ["prr", "tail", "mobile", "or3", "le"] {
        let f = format!("{data}/{paper}-results.json");
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{f}: {e}"));
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{f}: {e}"));
        let exps = v["experiments"]
            .as_array()
            .unwrap_or_else(|| panic!("{f}: no experiments"));
        assert_reproduced_rows_meet_their_bands(exps);
        papers += 1;
    }
    assert_eq!(papers, 5);
}
