#!/bin/sh
# Builds compared in time, as docs/BENCHMARKS.md compares them: ROUNDS
# rounds, each running SCENARIO once with every build in turn (so that a
# change in the machine's speed falls on all of them alike), then per
# build the median engine time (summary.json's wall_time_s) and the
# median, least and greatest of its per-round ratios to the first build.
#
#   scripts/rounds.sh SCENARIO ROUNDS NAME=BINARY [NAME=BINARY ...]
#
# e.g. scripts/rounds.sh examples/bench/modern-100ms.toml 15 old=/tmp/losslab-old new=target/release/losslab
# The runs write into a fresh folder under /tmp, removed at the end; the
# rows (round, build, seconds) go to standard error.
set -eu

fail() {
    echo "rounds: $*" >&2
    exit 2
}

[ $# -ge 3 ] || fail "usage: scripts/rounds.sh SCENARIO ROUNDS NAME=BINARY [NAME=BINARY ...]"
scenario=$1
rounds=$2
shift 2
[ -f "$scenario" ] || fail "no scenario file $scenario"
case $rounds in
    '' | *[!0-9]*) fail "ROUNDS must be a whole number, not $rounds" ;;
esac
[ "$rounds" -ge 1 ] || fail "ROUNDS must be at least 1"
names=" "
for b in "$@"; do
    case $b in
        *=*) [ -x "${b#*=}" ] || fail "no binary at ${b#*=}" ;;
        *) fail "a build is NAME=BINARY, not $b" ;;
    esac
    case $names in
        *" ${b%%=*} "*) fail "two builds are named ${b%%=*}" ;;
    esac
    names="$names${b%%=*} "
done

work=$(mktemp -d /tmp/rounds.XXXXXX)
trap 'rm -rf "$work"' EXIT
i=1
while [ "$i" -le "$rounds" ]; do
    for b in "$@"; do
        name=${b%%=*}
        "${b#*=}" run "$scenario" --no-progress --out "$work/run" >/dev/null ||
            fail "$name failed on $scenario"
        s=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['wall_time_s'])" "$work/run/summary.json")
        echo "$i $name $s" >>"$work/rows"
        echo "$i $name $s" >&2
        rm -rf "$work/run"
    done
    i=$((i + 1))
done

python3 - "$work/rows" "${1%%=*}" <<'EOF'
import collections, statistics, sys
rows, first = sys.argv[1], sys.argv[2]
by = collections.defaultdict(dict)
order = []
for line in open(rows):
    i, name, s = line.split()
    by[i][name] = float(s)
    if name not in order:
        order.append(name)
for name in order:
    ratios = [r[name] / r[first] for r in by.values()]
    med = statistics.median(r[name] for r in by.values())
    print(f"{name:12s} median {med:.4f} s  to {first}: {statistics.median(ratios):.3f} "
          f"({min(ratios):.3f}-{max(ratios):.3f}), {len(ratios)} rounds")
EOF
