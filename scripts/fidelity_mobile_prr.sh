#!/usr/bin/env bash
# The mobile paper's Figure 3 check (docs/FIDELITY.md, "PRR against
# Linux's PRR"): one CUBIC flow with PRR over the paper's HSPA+ path
# (Table 3: 20 Mbit/s, U = 100 ms, 4.3 MB buffer, AW = C x U = 250 kB),
# Bernoulli loss from 0.001% to 10%, through real Linux TCP (its built-in
# PRR) and through the simulator's `prr` (`losslab linux --compare`).
# Needs root, /dev/net/tun, iproute2 and python3.
#   cargo build --release && sudo scripts/fidelity_mobile_prr.sh [OUTDIR]
# SECS (default 30) sets each run's length; SEEDS (default "1 2 3").
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${LOSSLAB:-target/release/losslab}
out=${1:-out/fidelity-mobile-prr}
secs=${SECS:-30}
mkdir -p "$out"
for loss in 0.00001 0.0001 0.001 0.01 0.1; do
  for seed in ${SEEDS:-1 2 3}; do
    cell="20-$loss-cubic-$seed"
    echo "== $cell" >&2
    "$bin" linux examples/fidelity.toml --compare --json --out "$out/$cell" \
      --seed "$seed" --set "duration=${secs}s" --set "path.rate=20Mbps" \
      --set "path.queue=4300000B" --set "path.loss.p=$loss" --set "flow.a.cc=cubic" \
      --set "flow.a.cubic.hystart=true" --set "flow.a.recovery=prr" \
      --set "flow.a.receiver.rcvbuf=250000B" > "$out/$cell.json"
  done
done
python3 scripts/fidelity_table.py "$out"
