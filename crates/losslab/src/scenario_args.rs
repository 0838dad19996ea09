//! Command-line pieces shared by the commands that take a scenario file
//! (`run`, `emulate`, `linux`).

use std::path::Path;

use clap::Args;
use losslab_sim::parse::{load_scenario, parse_scenario, read_text};
use losslab_sim::scenario::Scenario;

use crate::outdir::{default_folder, Mode, Options, OutDir};
use crate::Failure;

/// `--seed` and `--set`, applied to the file before anything is checked.
#[derive(Args)]
pub struct Overrides {
    /// Override the scenario's seed (0 to 9223372036854775807, the
    /// largest TOML integer: the seed is applied as the `seed` key).
    #[arg(long, value_parser = clap::value_parser!(u64).range(..=i64::MAX as u64))]
    pub seed: Option<u64>,
    /// Override one key, e.g. --set path.delay=100ms or
    /// --set flow.a.recovery=rfc6675 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

impl Overrides {
    /// The overrides as KEY=VALUE strings, `--seed` last.
    pub fn list(&self) -> Vec<String> {
        let mut overrides = self.set.clone();
        if let Some(seed) = self.seed {
            overrides.push(format!("seed={seed}"));
        }
        overrides
    }

    /// Parses `file` with the overrides; errors are bad input (exit 2).
    pub fn load(&self, file: &Path) -> Result<Scenario, Failure> {
        load_scenario(file, &self.list()).map_err(|e| Failure::BadInput(e.to_string()))
    }

    /// As [`Overrides::load`], with the file's text: read once, so what
    /// ran and the copy kept of it are the same bytes.
    pub fn load_text(&self, file: &Path) -> Result<(Scenario, String), Failure> {
        let origin = file.display().to_string();
        let text = read_text(file)
            .map_err(|e| Failure::BadInput(format!("{origin}: cannot read the scenario: {e}")))?;
        let sc = parse_scenario(&origin, &text, &self.list())
            .map_err(|e| Failure::BadInput(e.to_string()))?;
        Ok((sc, text))
    }
}

/// For the commands on real packets: checks that this machine can run
/// them, then opens the output folder (default out/<scenario>-<suffix>)
/// under outdir.rs's rules.
pub fn real_path_out(
    command: &str,
    out: Option<&Path>,
    scenario: &Scenario,
    force: bool,
    inputs: &[&Path],
) -> Result<OutDir, Failure> {
    if let Some(why) = losslab_net::unavailable() {
        return Err(Failure::Runtime(format!(
            "losslab {command} needs root, /dev/net/tun and iproute2: {why}"
        )));
    }
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| default_folder(&scenario.name, &format!("-{command}")));
    OutDir::open(
        &out,
        Options {
            flag: "--out",
            mode: Mode::Fresh,
            force,
            inputs,
        },
    )
}
