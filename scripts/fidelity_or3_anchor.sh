#!/usr/bin/env bash
# The OR3 paper's real-world anchor (docs/FIDELITY.md, "OR3: BBR on a long
# lossy path"): one flow over 100 Mbit/s, 300 ms RTT, 1% Bernoulli loss,
# 4 MB socket buffers (about one BDP), a queue of one BDP (3.75 MB).
# Linux BBR through the TUN emulator and our `bbr` (`losslab linux
# --compare`), then our `bbr` with OR3 (`losslab run`), which Linux lacks.
# Needs root, /dev/net/tun, iproute2 and python3.
#   cargo build --release && sudo scripts/fidelity_or3_anchor.sh [OUTDIR]
# SECS (default 60) sets each run's length; SEEDS (default "1 2 3").
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${LOSSLAB:-target/release/losslab}
out=${1:-out/fidelity-or3}
secs=${SECS:-60}
mkdir -p "$out"
common=(--set "duration=${secs}s" --set "path.rate=100Mbps" --set "path.delay=150ms"
  --set "path.queue=3750000B" --set "path.loss.p=0.01" --set "flow.a.cc=bbr"
  --set "flow.a.receiver.rcvbuf=4MB" --set "flow.a.sndbuf=4MB")
for seed in ${SEEDS:-1 2 3}; do
  echo "== bbr seed $seed (Linux and simulator)" >&2
  "$bin" linux examples/fidelity.toml --compare --json --out "$out/bbr-$seed" \
    --seed "$seed" "${common[@]}" > "$out/bbr-$seed.json"
  echo "== or3 seed $seed (simulator)" >&2
  "$bin" run examples/fidelity.toml --json --seed "$seed" "${common[@]}" \
    --set 'flow.a.extensions=["or3"]' > "$out/or3-$seed.json"
done
python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
rows = []
for p in sorted(glob.glob(os.path.join(out, "bbr-*.json"))):
    seed = p.rsplit("-", 1)[1][:-5]
    d = json.load(open(p))
    o = json.load(open(os.path.join(out, f"or3-{seed}.json")))
    rows.append((seed, d["linux"]["flows"][0], d["sim"]["flows"][0], o["flows"][0]))
print("| seed | Linux BBR Mbit/s | sim BBR Mbit/s | sim OR3+BBR Mbit/s | OR3 / Linux BBR | Linux / sim BBR | retx Linux / sim BBR / sim OR3 | sim OR3 copies | RTOs Linux / sim BBR / sim OR3 |")
print("|---|---|---|---|---|---|---|---|---|")
g = lambda f: f["goodput_bps"] / 1e6
for seed, L, S, O in rows:
    print(f"| {seed} | {g(L):.1f} | {g(S):.1f} | {g(O):.1f} | {g(O)/g(L):.2f} | {g(L)/g(S):.2f} "
          f"| {L['retransmissions']} / {S['retransmissions']} / {O['retransmissions']} "
          f"| {O.get('redundant_copies', 0)} | {L['timeouts']} / {S['timeouts']} / {O['timeouts']} |")
m = lambda xs: sum(xs) / len(xs)
lb, sb, ob = m([g(r[1]) for r in rows]), m([g(r[2]) for r in rows]), m([g(r[3]) for r in rows])
print(f"| mean | {lb:.1f} | {sb:.1f} | {ob:.1f} | {ob/lb:.2f} | {lb/sb:.2f} | | | |")
PY
