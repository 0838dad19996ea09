#!/bin/sh
# ns-3 beside losslab, side by side: the anchor's two cases (bulk-dumbbell.cc
# in ../shared/anchors/ns3/: CUBIC + PRR + SACK, 100 ms RTT, a one-BDP
# queue) for ns-3 runs 1-5, each between two `losslab bench --ns3 --json`,
# then the ratios per segment sent and per whole process (docs/BENCHMARKS.md,
# "The machine of 2026-12-07").
#
#   scripts/ns3-pairs.sh [LOSSLAB] [OUT]
#
# LOSSLAB: the losslab binary (default: target/release/losslab).
# OUT: a new folder for the raw outputs (default: a fresh one under /tmp);
# an existing folder is refused, so nothing there is overwritten.
# Needs Debian's ns-3.37 (apt-get install ns3 libns3-dev, as the anchor's
# commands.sh says; this script installs nothing). ANCHOR overrides where
# bulk-dumbbell.cc is; RUNS the ns-3 runs (default "1 2 3 4 5"; a run
# may repeat: "1 1 1 1 1" is issue 33's five pairs of run 1); CASES
# "1g", "100m" or both (default). Both cases for runs 1-5 take about 9
# minutes on a 2-core AMD EPYC VM. Run it on an idle machine: ns-3's CPU time is
# what is compared, and another job on the other core inflates it.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
losslab=${1:-$here/target/release/losslab}
out=${2:-}
anchor=${ANCHOR:-$here/../shared/anchors/ns3}
runs=${RUNS-1 2 3 4 5}
cases=${CASES-1g 100m}

fail() {
    echo "ns3-pairs: $*" >&2
    exit 2
}

[ -x "$losslab" ] || fail "no losslab binary at $losslab (cargo build --release -p losslab)"
[ -f "$anchor/bulk-dumbbell.cc" ] || fail "no $anchor/bulk-dumbbell.cc (set ANCHOR)"
[ -e /usr/include/ns3/core-module.h ] ||
    fail "ns-3.37's headers are missing: apt-get install ns3 libns3-dev (see $anchor/commands.sh)"
[ -x /usr/bin/time ] || fail "no /usr/bin/time (apt-get install time)"
[ -n "$runs" ] || fail "RUNS is empty"
for r in $runs; do
    case $r in
        *[!0-9]*) fail "RUNS holds ns-3 run numbers, not $r" ;;
    esac
done
[ -n "$cases" ] || fail "CASES is empty"
for c in $cases; do
    case $c in
        1g | 100m) ;;
        *) fail "unknown case $c (1g or 100m)" ;;
    esac
done
if [ -z "$out" ]; then
    out=$(mktemp -d /tmp/ns3-pairs.XXXXXX)
else
    [ -e "$out" ] && fail "$out exists; give a new folder"
    mkdir -p "$out"
fi

# The link line is the anchor's: --no-as-needed, or the modules' TypeIds
# never register (commands.sh).
libs="-Wl,--no-as-needed -lns3-internet -lns3-point-to-point -lns3-network -lns3-core -lns3-traffic-control -lns3-applications -lns3-bridge -lns3-stats -lns3-flow-monitor"
{
    "$losslab" --version
    dpkg-query -W libns3-dev 2>/dev/null || echo "libns3-dev: version unknown"
    uname -srm
    grep -m1 'model name' /proc/cpuinfo
} >"$out/versions.txt"
# shellcheck disable=SC2086
g++ -O2 -std=c++17 -o "$out/bulk-dumbbell" "$anchor/bulk-dumbbell.cc" $libs ||
    fail "building bulk-dumbbell failed"

k=0
for r in $runs; do
    k=$((k + 1))
    for c in $cases; do
        case $c in
            1g) args="--rate=1Gbps --loss=0.00001 --duration=20" ;;
            100m) args="--rate=100Mbps --loss=0.001 --duration=600" ;;
        esac
        "$losslab" bench --ns3 --json >"$out/losslab-$c-$k-a.json"
        # shellcheck disable=SC2086
        /usr/bin/time -v "$out/bulk-dumbbell" $args --run="$r" >"$out/ns3-$c-$k.out" 2>"$out/ns3-$c-$k.time"
        "$losslab" bench --ns3 --json >"$out/losslab-$c-$k-b.json"
    done
done

python3 - "$out" "$runs" "$cases" <<'EOF'
import json, re, statistics, sys
out, runs, cases = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
# bench --ns3's rows, found by their link rate.
rate = {"100m": 100_000_000, "1g": 1_000_000_000}
for c in cases:
    print(f"case {c}: run, ns-3 segments, ns-3 CPU s, losslab s (two), per segment, whole process")
    per, whole = [], []
    for k, r in enumerate(runs, 1):
        t = open(f"{out}/ns3-{c}-{k}.time").read()
        cpu = sum(float(re.search(rf"{f} time \(seconds\): ([\d.]+)", t).group(1)) for f in ("User", "System"))
        segs = int(re.search(r"sender_data_segments=(\d+)", open(f"{out}/ns3-{c}-{k}.out").read()).group(1))
        ll = [next(x for x in json.load(open(f"{out}/losslab-{c}-{k}-{s}.json")) if x["rate_bps"] == rate[c])
              for s in "ab"]
        wall = sum(x["wall_s"] for x in ll) / 2
        p = (cpu / segs) / (wall / ll[0]["data_packets"])
        per.append(p)
        whole.append(cpu / wall)
        print(f"  {r}  {segs:>9,}  {cpu:8.1f}  {ll[0]['wall_s']:.4f} {ll[1]['wall_s']:.4f}  {p:7.0f}x  {cpu / wall:7.0f}x")
    print(f"  median  per segment {statistics.median(per):.0f}x  whole process {statistics.median(whole):.0f}x")
print(f"raw outputs: {out}")
EOF
