#!/usr/bin/env bash
# Regenerates docs/FIDELITY.md's BBR tables: Linux BBR through the
# emulator beside the simulator's `bbr`, on the issue-13 grid and on the
# OR3 paper's WAN case scaled to this machine. Needs root, /dev/net/tun,
# iproute2 and python3.
#   cargo build --release && sudo scripts/fidelity_bbr.sh [OUTDIR]
# Each cell is a directory OUTDIR/<cell>/ holding Linux's summary.json and
# timeseries.csv (TCP_INFO every 10 ms), the simulated twin's
# sim-summary.json and sim-timeseries.csv, and OUTDIR/<cell>.json with
# both, as `losslab linux --compare --json` writes them.
# PHASE=linux runs only the Linux side, PHASE=sim only the simulator (on
# cells whose Linux side exists), PHASE=both (default) both at once.
# SECS (default 30; the WAN cells run 2x as long), SEEDS (default "1 2 3").
# SETS: more --set arguments for every run, space-separated (default none),
# e.g. SETS="flow.a.receiver.autotune=linux"; CELLS: a bash regex, only
# the cells whose name matches run (default all).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${LOSSLAB:-target/release/losslab}
out=${1:-out/fidelity-bbr}
secs=${SECS:-30}
seeds=${SEEDS:-1 2 3}
phase=${PHASE:-both}
cells=${CELLS:-}
extra=()
for s in ${SETS:-}; do extra+=(--set "$s"); done
mkdir -p "$out"

cell() { # name secs extra-args...
  local name=$1 s=$2
  shift 2
  if [ -n "$cells" ] && ! [[ $name =~ $cells ]]; then return; fi
  local args=(examples/fidelity.toml --seed "$seed" --set "duration=${s}s" --set flow.a.cc=bbr "$@" ${extra[@]+"${extra[@]}"})
  echo "== $name" >&2
  case $phase in
    both)
      "$bin" linux "${args[@]}" --compare --json --out "$out/$name" > "$out/$name.json" ;;
    linux)
      "$bin" linux "${args[@]}" --json --out "$out/$name" > "$out/$name.linux.json" ;;
    sim)
      [ -f "$out/$name.linux.json" ] || { echo "no Linux run for $name" >&2; return; }
      "$bin" run "${args[@]}" --timeseries --no-progress --out "$out/$name/sim" --json > "$out/$name.sim.json"
      cp "$out/$name/sim/timeseries.csv" "$out/$name/sim-timeseries.csv"
      python3 -c 'import json,sys; l,s,o=sys.argv[1:]; json.dump({"linux": json.load(open(l)), "sim": json.load(open(s))}, open(o,"w"), indent=1)' \
        "$out/$name.linux.json" "$out/$name.sim.json" "$out/$name.json" ;;
    *) echo "PHASE must be linux, sim or both" >&2; exit 2 ;;
  esac
}

for seed in $seeds; do
  for rate in 20 100; do
    # One bandwidth-delay product of queue (100 ms RTT).
    queue=$((rate * 1000000 / 8 / 10))
    for loss in 0.0001 0.001 0.01 0.03; do
      cell "grid-$rate-$loss-$seed" "$secs" --set "path.rate=${rate}Mbps" \
        --set "path.queue=${queue}B" --set "path.loss.p=$loss"
    done
  done
  # The OR3 paper's WAN (section 4: 10 Gbit/s, 300 ms, 1% loss) at
  # 100 Mbit/s: one-BDP queue (3.75 MB), sender and receiver buffers 4 MB
  # (about one BDP) and 16 MB.
  for buf in 4 16; do
    cell "wan-${buf}MB-$seed" $((2 * secs)) --set path.rate=100Mbps --set path.delay=150ms \
      --set path.queue=3750000B --set path.loss.p=0.01 \
      --set "flow.a.sndbuf=${buf}MB" --set "flow.a.receiver.rcvbuf=${buf}MB"
  done
done
python3 scripts/fidelity_bbr_table.py "$out"
