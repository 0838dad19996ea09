#!/usr/bin/env bash
# docs/FIDELITY.md's trace cells (issue 34): real Linux TCP and the
# simulator over the same trace-driven link (`losslab linux --compare`),
# then a Markdown table. Needs root, /dev/net/tun, iproute2 and python3.
#   cargo build --release && sudo scripts/fidelity_traces.sh [OUTDIR]
# SECS (default 30) sets each run's length; SEEDS (default "1 2 3") the
# seeds; TRACES (default "on-off-24mbps lte-markov-1") the traces in
# traces/; CCS (default "cubic bbr") the controllers. TABLE_ONLY=1 prints
# the table from OUTDIR's finished runs without running anything.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${LOSSLAB:-target/release/losslab}
out=${1:-out/fidelity-traces}
secs=${SECS:-30}
mkdir -p "$out"
[ -n "${TABLE_ONLY:-}" ] || for trace in ${TRACES:-on-off-24mbps lte-markov-1}; do
  for cc in ${CCS:-cubic bbr}; do
    simcc=$cc
    [ "$cc" = cubic ] && simcc=cubic-linux
    for seed in ${SEEDS:-1 2 3}; do
      cell="$trace-$cc-$seed"
      echo "== $cell" >&2
      # examples/fidelity.toml (linux-6, 100 ms RTT) with 0.1% random loss;
      # a 200-packet queue, about one BDP at the traces' 20 Mbit/s means.
      # The trace is read from the scenario's folder, examples/.
      "$bin" linux examples/fidelity.toml --compare --json --out "$out/$cell" \
        --seed "$seed" --set "duration=${secs}s" \
        --set "path.rate={ trace = \"../traces/$trace.trace\" }" \
        --set "path.queue=200pkt" --set "flow.a.cc=$simcc" > "$out/$cell.json"
    done
  done
done
python3 - "$out" <<'PY'
import glob, json, os, sys
from collections import defaultdict
out = sys.argv[1]
cells = defaultdict(list)
for p in sorted(glob.glob(os.path.join(out, "*.json"))):
    name = os.path.basename(p)[:-5]
    trace, cc, seed = name.rsplit("-", 2)
    with open(p) as f:
        d = json.load(f)
    with open(os.path.join(p[:-5], "health.json")) as f:
        d["lateness"] = json.load(f)["emulator"]["health"]["lateness_max_us"]
    cells[(trace, cc)].append(d)
mean = lambda xs: sum(xs) / len(xs)
# No RTT columns: Linux's are TCP_INFO's smoothed RTT sampled over time,
# the simulator's every ACK's sample, which do not compare.
print("| trace | cc | Linux goodput Mbit/s | sim goodput Mbit/s | sim/Linux | Linux retx | sim retx | sim/Linux | Linux RTOs | sim RTOs | emu worst lateness us | runs |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for (trace, cc), ds in sorted(cells.items()):
    f = lambda side, k: mean([d[side]["flows"][0][k] or 0 for d in ds])
    gl, gs = f("linux", "goodput_bps") / 1e6, f("sim", "goodput_bps") / 1e6
    rl, rs = f("linux", "retransmissions"), f("sim", "retransmissions")
    lat = round(max((d["lateness"] or 0) for d in ds))
    print(f"| {trace} | {cc} | {gl:.2f} | {gs:.2f} | {gs / gl:.2f} | {rl:.0f} | {rs:.0f} | "
          f"{(rs / rl if rl else float('nan')):.2f} | "
          f"{f('linux', 'timeouts'):.1f} | {f('sim', 'timeouts'):.1f} | {lat} | {len(ds)} |")
PY
