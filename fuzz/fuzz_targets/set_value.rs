//! A `--set KEY=VALUE` on a real scenario (examples/web-page.toml, every
//! kind of key): an error naming the key, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use losslab_sim::parse::parse_scenario;

const BASE: &str = include_str!("../../examples/web-page.toml");

fuzz_target!(|data: &[u8]| {
    let Ok(set) = std::str::from_utf8(data) else {
        return;
    };
    // Several overrides at once, one per line.
    let overrides: Vec<String> = set.lines().map(String::from).collect();
    let _ = parse_scenario("web-page.toml", BASE, &overrides);
});
