#!/usr/bin/env python3
"""Prints docs/FIDELITY.md's table from the JSON files scripts/fidelity.sh
wrote (one {"linux": ..., "sim": ...} document per cell and seed)."""
import glob
import json
import os
import sys
from collections import defaultdict

out = sys.argv[1] if len(sys.argv) > 1 else "out/fidelity"
cells = defaultdict(list)
for p in glob.glob(os.path.join(out, "*.json")):
    parts = os.path.basename(p)[:-5].split("-")
    rate, loss, cc, seed = parts[0], parts[1], "-".join(parts[2:-1]), parts[-1]
    try:
        with open(p) as f:
            d = json.load(f)
    except ValueError:
        print(f"skipping {p}: not a finished run", file=sys.stderr)
        continue
    with open(os.path.join(p[:-5], "health.json")) as f:
        d["health"] = json.load(f)["emulator"]["health"]
    cells[(int(rate), float(loss), cc)].append(d)


def mean(xs):
    return sum(xs) / len(xs)


def ratio(a, b):
    return f"{a / b:.2f}" if b else ("1.00" if a == 0 else "-")


def div(d):
    """The divergence report of the run's flow (losslab linux --compare,
    issue 32): (first divergence index or None, matched share, same-seq
    share); None for runs made before it existed."""
    v = (d.get("divergence") or [None])[0]
    if v is None:
        return None
    first = v.get("first_divergence")
    return (first["index"] if first else None, v["matched_share"], v["seq_matched_share"])


def share(ds, i):
    xs = [div(d)[i] for d in ds if div(d)]
    return f"{100 * mean(xs):.1f}%" if xs else "-"


print("| rate | loss | cc | Linux goodput Mbit/s | sim goodput Mbit/s | Linux/sim | Linux retx | sim retx | Linux/sim | Linux RTOs | sim RTOs | Linux queue drops | sim queue drops | matched share | same-seq share | emu worst lateness us | runs |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (rate, loss, cc) in sorted(cells, key=lambda k: (k[0], k[1], k[2] != "cubic")):
    ds = cells[(rate, loss, cc)]
    lg = mean([d["linux"]["flows"][0]["goodput_bps"] / 1e6 for d in ds])
    sg = mean([d["sim"]["flows"][0]["goodput_bps"] / 1e6 for d in ds])
    lr = mean([d["linux"]["flows"][0]["retransmissions"] for d in ds])
    sr = mean([d["sim"]["flows"][0]["retransmissions"] for d in ds])
    lt = mean([d["linux"]["flows"][0]["timeouts"] for d in ds])
    st = mean([d["sim"]["flows"][0]["timeouts"] for d in ds])
    lq = mean([d["linux"]["path"]["queue_drops"] for d in ds])
    sq = mean([d["sim"]["path"]["queue_drops"] for d in ds])
    lat = max(d["health"]["lateness_max_us"] for d in ds)
    print(f"| {rate} Mbit/s | {loss * 100:g}% | {cc} | {lg:.2f} | {sg:.2f} | {ratio(lg, sg)} | {lr:.0f} | {sr:.0f} | {ratio(lr, sr)} | {lt:.0f} | {st:.0f} | {lq:.0f} | {sq:.0f} | {share(ds, 1)} | {share(ds, 2)} | {lat:.0f} | {len(ds)} |")

print()
print("Per run (Linux / simulator):")
print()
print("| rate | loss | cc | seed | goodput Mbit/s | retransmissions | queue drops | loss drops | RTOs | fast recoveries | sim spurious retx | first divergence (transmission) | matched share |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (rate, loss, cc) in sorted(cells, key=lambda k: (k[0], k[1], k[2] != "cubic")):
    for d in sorted(cells[(rate, loss, cc)], key=lambda d: d["linux"]["seed"]):
        L, S = d["linux"]["flows"][0], d["sim"]["flows"][0]
        lp, sp = d["linux"]["path"], d["sim"]["path"]
        print(
            f"| {rate} | {loss * 100:g}% | {cc} | {d['linux']['seed']} "
            f"| {L['goodput_bps'] / 1e6:.2f} / {S['goodput_bps'] / 1e6:.2f} "
            f"| {L['retransmissions']} / {S['retransmissions']} "
            f"| {lp['queue_drops']} / {sp['queue_drops']} | {lp['loss_drops']} / {sp['loss_drops']} "
            f"| {L['timeouts']} / {S['timeouts']} | {L['fast_recoveries']} / {S['fast_recoveries']} "
            f"| {S['spurious_retransmissions']} "
            + (
                f"| {'none' if div(d)[0] is None else div(d)[0]} | {100 * div(d)[1]:.1f}% |"
                if div(d)
                else "| - | - |"
            )
        )
