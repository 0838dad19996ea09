//! Scenario builders shared by the integration tests.

use losslab_core::time::MS;
use losslab_sim::scenario::*;

pub fn path(rate_bps: u64, one_way_ms: u64, loss: LossModel) -> (PathSpec, ReverseSpec) {
    let delay = one_way_ms * MS;
    (
        PathSpec::new(rate_bps, delay, QueueLimit::Packets(1000), loss),
        ReverseSpec::lossless(delay),
    )
}

pub fn scenario(
    name: &str,
    secs: u64,
    path: (PathSpec, ReverseSpec),
    flows: Vec<FlowSpec>,
) -> Scenario {
    Scenario {
        reverse: path.1,
        ..Scenario::single_path(name, secs * 1_000_000_000, path.0, flows)
    }
}

/// Parses `text` as the file test.toml (the name `expect_parse_error`
/// checks), with no command-line settings.
pub fn parse(text: &str) -> Result<Scenario, losslab_sim::parse::ScenarioError> {
    losslab_sim::parse::parse_scenario("test.toml", text, &[])
}

/// Runs `sc` to its end and returns its results.
pub fn run(sc: &Scenario) -> losslab_sim::RunResults {
    let mut sim = losslab_sim::Simulation::new(sc).unwrap();
    sim.run();
    sim.results()
}

/// Asserts that parsing failed in test.toml at `key`, with every needle in
/// the message.
#[track_caller]
pub fn expect_parse_error(
    parsed: Result<Scenario, losslab_sim::parse::ScenarioError>,
    key: &str,
    needles: &[&str],
) {
    let e = match parsed {
        Ok(s) => panic!("expected an error at {key}, got {s:#?}"),
        Err(e) => e,
    };
    let shown = e.to_string();
    assert_eq!(
        (e.file.as_str(), e.key.as_str()),
        ("test.toml", key),
        "{shown}"
    );
    for n in needles {
        assert!(shown.contains(n), "{shown:?} lacks {n:?}");
    }
}

/// Forty 30 kB objects one after another over 10 Mbit/s, 30 ms and 2%
/// loss (seed 3), with `extra` in the flow: short tails, where the loss
/// probe's rules decide.
pub fn forty_objects(extra: &str) -> String {
    let sizes = vec!["\"30kB\""; 40].join(", ");
    format!(
        "duration = \"30s\"\nseed = 3\n[path]\nrate = \"10Mbps\"\ndelay = \"30ms\"\nloss = {{ model = \"bernoulli\", p = 0.02 }}\n\n[[flow]]\nname = \"a\"\napp = {{ kind = \"objects\", sizes = [{sizes}] }}\n{extra}\n"
    )
}
