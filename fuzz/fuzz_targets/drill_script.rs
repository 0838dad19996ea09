//! A packetdrill script, parsed and run against the engine with bounded
//! work (`losslab_drill::check_script`): a verdict or an error with a
//! line, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = losslab_drill::check_script("fuzz.pkt", data);
});
