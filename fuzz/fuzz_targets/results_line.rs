//! A sweep's results.jsonl as `--resume` reads it: each line checked
//! against a sweep of 8 points (point 3 invalid), seeds 1-3 and id
//! `ID` (the corpus's lines carry it). An error naming the line, never a
//! panic or a miscount.
#![no_main]

use libfuzzer_sys::fuzz_target;
use losslab::sweep::parse_results_line;

const ID: &str = "0123456789abcdef";

fuzz_target!(|data: &[u8]| {
    let valid: Vec<Result<(), String>> = (0..8)
        .map(|p| if p == 3 { Err("bad".into()) } else { Ok(()) })
        .collect();
    for line in data.split(|&b| b == b'\n') {
        if let Ok((p, seed)) = parse_results_line(line, 8, &valid, &[1, 2, 3], ID) {
            assert!(p < 8 && p != 3 && (1..=3).contains(&seed));
        }
    }
});
