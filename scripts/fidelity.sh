#!/usr/bin/env bash
# Regenerates the table of docs/FIDELITY.md: every cell of the grid runs
# through real Linux TCP across the emulator and through the simulator
# (`losslab linux --compare`), then scripts/fidelity_table.py prints the
# Markdown table. Needs root, /dev/net/tun, iproute2 and python3.
#   cargo build --release && sudo scripts/fidelity.sh [OUTDIR]
# SECS (default 30) sets each run's length; SEEDS (default "1") the seeds;
# CCS (default "cubic reno") the congestion controllers.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${LOSSLAB:-target/release/losslab}
out=${1:-out/fidelity}
secs=${SECS:-30}
seeds=${SEEDS:-1}
mkdir -p "$out"
for rate in 20 100; do
  # One bandwidth-delay product of queue (100 ms RTT).
  queue=$((rate * 1000000 / 8 / 10))
  for loss in 0.0001 0.0005 0.001 0.01; do
    for cc in ${CCS:-cubic reno}; do
      # The kernel's CUBIC is tcp_cubic.c with HyStart; the simulator's
      # port of it is `cubic-linux` (the profile's controller since issue
      # 32). CC=cubic-rfc runs RFC 9438's `cubic` with Linux's HyStart
      # instead, as the grid did before issue 32.
      extra=()
      simcc=$cc
      case "$cc" in
        cubic) simcc=cubic-linux ;;
        cubic-rfc) simcc=cubic; extra=(--set flow.a.cubic.hystart=true) ;;
      esac
      for seed in $seeds; do
        cell="$rate-$loss-$cc-$seed"
        echo "== $cell" >&2
        "$bin" linux examples/fidelity.toml --compare --json --out "$out/$cell" \
          --seed "$seed" --set "duration=${secs}s" --set "path.rate=${rate}Mbps" \
          --set "path.queue=${queue}B" --set "path.loss.p=$loss" --set "flow.a.cc=$simcc" \
          "${extra[@]}" > "$out/$cell.json"
      done
    done
  done
done
python3 scripts/fidelity_table.py "$out"
