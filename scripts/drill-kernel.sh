#!/usr/bin/env bash
# Runs packetdrill scripts against the running Linux kernel, each in a
# fresh network namespace, and the same scripts against the engine
# (`losslab drill`), then prints one table: script, Linux verdict, engine
# verdict, first mismatch. docs/FIDELITY.md's packetdrill tables come from
# here.
#
#   sudo PACKETDRILL=/path/to/packetdrill scripts/drill-kernel.sh \
#        [--offloads on|off] [--out DIR] SCRIPT.pkt|DIR ...
#
# Needs root, iproute2, ethtool and a packetdrill binary the user built from
# the upstream project (this repository carries neither its code nor a
# recipe to build it). Scripts keep their own directory as the working
# directory, so `../common/defaults.sh` resolves as in the upstream tree.
#
# What it does to the scripts, and why:
# - --offloads off (the default): every backtick call of a defaults.sh is
#   wrapped so that, once packetdrill has created tun0, the wrapper turns
#   TSO and GSO off on it (`ethtool -K tun0 tso off gso off`). packetdrill
#   sets TSO on its tun like a NIC's, so a 6.x kernel sends 2-8 kB bursts
#   where most upstream recovery scripts expect one MSS per packet. The
#   rewritten copy keeps every line number.
# - CUBIC: a namespace other than the initial one may only default to a
#   congestion control in net.ipv4.tcp_allowed_congestion_control (Linux
#   tcp_set_default_congestion_control()); on a host whose list lacks cubic,
#   defaults.sh's `tcp_congestion_control=cubic` fails and the scripts run
#   with the host's default (bbr on our VM). The run adds cubic to the list
#   and restores the list on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
pd=${PACKETDRILL:-$(command -v packetdrill || true)}
bin=${LOSSLAB:-$repo/target/release/losslab}
offloads=off
out=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --offloads) offloads=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n 2,13p "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ -z "$pd" ] || [ ! -x "$pd" ]; then
  echo "drill-kernel: no packetdrill binary (set PACKETDRILL=/path/to/packetdrill)" >&2
  exit 2
fi
case "$offloads" in on|off) ;; *) echo "drill-kernel: --offloads takes on or off, got '$offloads'" >&2; exit 2 ;; esac
if [ ${#args[@]} -eq 0 ]; then
  echo "drill-kernel: name at least one script or directory" >&2
  exit 2
fi
if [ "$(id -u)" != 0 ]; then
  echo "drill-kernel: needs root (network namespaces)" >&2
  exit 2
fi

tmp=$(mktemp -d /tmp/losslab-drill-kernel.XXXXXX)
out=${out:-$tmp/out}
mkdir -p "$out"
allowed_file=/proc/sys/net/ipv4/tcp_allowed_congestion_control
old_allowed=$(cat "$allowed_file")
ns=""
cleanup() {
  [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null || true
  echo "$old_allowed" > "$allowed_file"
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
case " $old_allowed " in *" cubic "*) ;; *) echo "$old_allowed cubic" > "$allowed_file" ;; esac

cat > "$tmp/offloads-off" <<'EOF'
#!/bin/bash
# Runs the script's defaults, then turns segmentation offloads off on tun0.
"$@"
rc=$?
ethtool -K tun0 tso off gso off > /dev/null 2>&1 || echo "offloads-off: ethtool failed on tun0" >&2
exit $rc
EOF
chmod +x "$tmp/offloads-off"

scripts=()
for a in "${args[@]}"; do
  if [ -d "$a" ]; then
    while IFS= read -r f; do scripts+=("$f"); done < <(find "$a" -name '*.pkt' | sort)
  else
    scripts+=("$a")
  fi
done

# Linux side.
linux_tsv="$out/linux.tsv"
: > "$linux_tsv"
n=0
for s in "${scripts[@]}"; do
  n=$((n + 1))
  dir=$(cd "$(dirname "$s")" && pwd)
  name=$(basename "$s")
  copy="$tmp/$n-$name"
  if [ "$offloads" = off ]; then
    # `../common/defaults.sh` -> `OFFLOADS ../common/defaults.sh`, on the same line.
    sed -E "s#\`([[:space:]]*)((\\.\\.?/)+([A-Za-z0-9_]+/)*defaults\\.sh)#\`\\1$tmp/offloads-off \\2#" "$s" > "$copy"
  else
    cp "$s" "$copy"
  fi
  ns="losslab-pd-$$-$n"
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  log="$out/$n-$name.log"
  set +e
  (cd "$dir" && timeout 120 ip netns exec "$ns" "$pd" "$copy") > "$log" 2>&1
  rc=$?
  set -e
  ip netns del "$ns"
  ns=""
  if [ $rc = 0 ]; then
    verdict=pass
    why=""
  else
    verdict=fail
    # packetdrill's first error line, with the copy's path replaced by the script's.
    why=$(grep -m1 -E 'error|assert|Timeout|timed out' "$log" | sed "s#$copy#$name#g" | tr '\t' ' ' || true)
    [ $rc = 124 ] && why="timed out after 120 s"
  fi
  printf '%s\t%s\t%s\n' "$s" "$verdict" "$why" >> "$linux_tsv"
  printf '%-5s %s %s\n' "$verdict" "$s" "$why" >&2
done

# Engine side, and the table.
set +e
"$bin" drill --json "${scripts[@]}" > "$out/engine.json" 2> /dev/null
set -e
python3 - "$linux_tsv" "$out/engine.json" "$offloads" <<'EOF'
import json, sys
linux = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
engine = {r["path"]: r for r in json.load(open(sys.argv[2]))}
print(f"Linux side: offloads {sys.argv[3]}")
print()
print("| script | Linux | engine | first mismatch (engine) | Linux's first error |")
print("|---|---|---|---|---|")
counts = {}
for path, lv, why in linux:
    r = engine.get(path, {"verdict": {"result": "missing"}})
    v = r["verdict"]
    ev = v["result"]
    detail = ""
    if ev == "fail":
        detail = f"line {v['line']}: {v['message']}"
    elif ev == "unsupported":
        detail = f"line {v['line']}: {v['what']}"
    elif ev == "bad-input":
        detail = f"line {v['line']}: {v['message']}"
    key = (lv, ev)
    counts[key] = counts.get(key, 0) + 1
    clean = lambda t: t.replace("|", "\\|")
    print(f"| {path} | {lv} | {ev} | {clean(detail)} | {clean(why) if lv != 'pass' else ''} |")
print()
for (lv, ev), c in sorted(counts.items()):
    print(f"- Linux {lv}, engine {ev}: {c}")
EOF
