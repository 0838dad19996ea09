//! A scenario file: parsed; if valid and within the memory guard of
//! `losslab run` (at a fuzzing-sized limit), built, run for a bounded
//! number of events and its results serialised. Bad input must be an
//! error, never a panic, in the parser or the engine.
#![no_main]

use libfuzzer_sys::fuzz_target;
use losslab_sim::parse::parse_scenario;
use losslab_sim::Simulation;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(sc) = parse_scenario("fuzz.toml", text, &[]) else {
        return;
    };
    if losslab_sim::memory::estimate(&sc, false).bytes > 256_000_000 {
        return;
    }
    let Ok(mut sim) = Simulation::new(&sc) else {
        return;
    };
    let end = sim.end_time();
    sim.run_until_budget(end, 20_000);
    let _ = serde_json::to_string(&sim.results());
});
