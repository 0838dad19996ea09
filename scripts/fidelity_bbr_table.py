#!/usr/bin/env python3
"""Prints docs/FIDELITY.md's BBR tables from what scripts/fidelity_bbr.sh
wrote: OUTDIR/<cell>.json, one {"linux": ..., "sim": ...} document per
cell and seed, with OUTDIR/<cell>/health.json from the emulator.

The target (issue 13) is the simulator within +-10% of Linux's goodput in
every cell; the verdict column is computed from the means over seeds."""
import glob
import json
import os
import re
import sys
from collections import defaultdict

TOLERANCE = 0.10

out = sys.argv[1] if len(sys.argv) > 1 else "out/fidelity-bbr"
grid = defaultdict(list)
wan = defaultdict(list)
for p in sorted(glob.glob(os.path.join(out, "*.json"))):
    base = os.path.basename(p)[:-5]
    m = re.fullmatch(r"grid-(\d+)-([0-9.]+)-(\d+)", base)
    w = re.fullmatch(r"wan-(\d+)MB-(\d+)", base)
    if not (m or w):
        continue
    try:
        with open(p) as f:
            d = json.load(f)
    except ValueError:
        print(f"skipping {p}: not a finished run", file=sys.stderr)
        continue
    try:
        with open(os.path.join(out, base, "health.json")) as f:
            d["health"] = json.load(f)["emulator"]["health"]
    except (OSError, KeyError, ValueError):
        d["health"] = {}
    if m:
        grid[(int(m[1]), float(m[2]))].append(d)
    else:
        wan[int(w[1])].append(d)


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def shares(ds):
    """Mean matched and same-seq shares of the runs' divergence reports
    (issue 32; "-" for runs made before them)."""
    vs = [(d.get("divergence") or [None])[0] for d in ds]
    vs = [v for v in vs if v]
    if not vs:
        return "- | -"
    return f"{100 * mean([v['matched_share'] for v in vs]):.1f}% | {100 * mean([v['seq_matched_share'] for v in vs]):.1f}%"


def row(ds):
    lg = mean([d["linux"]["flows"][0]["goodput_bps"] / 1e6 for d in ds])
    sg = mean([d["sim"]["flows"][0]["goodput_bps"] / 1e6 for d in ds])
    lr = mean([d["linux"]["flows"][0]["retransmissions"] for d in ds])
    sr = mean([d["sim"]["flows"][0]["retransmissions"] for d in ds])
    lt = mean([d["linux"]["flows"][0]["timeouts"] for d in ds])
    st = mean([d["sim"]["flows"][0]["timeouts"] for d in ds])
    lat = max((d["health"].get("lateness_max_us", 0) for d in ds), default=0)
    ratio = sg / lg if lg else float("nan")
    verdict = "within" if abs(ratio - 1) <= TOLERANCE else ("sim high" if ratio > 1 else "sim low")
    return f"{lg:.2f} | {sg:.2f} | {ratio:.2f} | {verdict} | {lr:.0f} | {sr:.0f} | {lt:.1f} | {st:.1f} | {shares(ds)} | {lat:.0f} | {len(ds)}"


head = "Linux goodput Mbit/s | sim goodput Mbit/s | sim/Linux | +-10% | Linux retx | sim retx | Linux RTOs | sim RTOs | matched share | same-seq share | emu worst lateness us | runs"
print(f"| rate | loss | {head} |")
print("|---|---|" + "---|" * 12)
inside = 0
for (rate, loss) in sorted(grid):
    r = row(grid[(rate, loss)])
    inside += " within " in f" {r} "
    print(f"| {rate} Mbit/s | {loss * 100:g}% | {r} |")
print()
print(f"| WAN buffers | {head} |")
print("|---|" + "---|" * 12)
for buf in sorted(wan):
    r = row(wan[buf])
    inside += " within " in f" {r} "
    print(f"| {buf} MB | {r} |")
print()
print(f"{inside} of {len(grid) + len(wan)} cells within +-{TOLERANCE:.0%} of Linux's goodput.")
print()
print("Per run (Linux / simulator):")
print()
print("| cell | seed | goodput Mbit/s | retransmissions | RTOs | queue drops |")
print("|---|---|---|---|---|---|")
for key, ds in [(f"{r} Mbit/s {l * 100:g}%", grid[(r, l)]) for (r, l) in sorted(grid)] + [
    (f"WAN {b} MB", wan[b]) for b in sorted(wan)
]:
    for d in sorted(ds, key=lambda d: d["linux"]["seed"]):
        L, S = d["linux"]["flows"][0], d["sim"]["flows"][0]
        print(
            f"| {key} | {d['linux']['seed']} | {L['goodput_bps'] / 1e6:.2f} / {S['goodput_bps'] / 1e6:.2f} "
            f"| {L['retransmissions']} / {S['retransmissions']} | {L['timeouts']} / {S['timeouts']} "
            f"| {d['linux']['path']['queue_drops']} / {d['sim']['path']['queue_drops']} |"
        )
