#!/usr/bin/env python3
"""Two builds of losslab compared in time over many code layouts, so that a
speed ratio says what the code costs and not where the linker happened to
put it (docs/BENCHMARKS.md, "Speed ratios over code layouts").

A release build's time a packet moves by several per cent with the placement
of its hot functions alone (32 KB of L1 instruction cache against some 40 KB
of hot code; BENCHMARKS, "The front end"), so one build against another
measures one draw of each layout. This script draws many: for each source
tree it builds the README's release binary once, keeping the link step's
objects (`cargo rustc --release ... -C save-temps --print link-args`), then
links it again with lld's `--shuffle-sections=GLOB=SEED` for seeds 1..N. The
glob takes only losslab's own functions, which the shuffle permutes among
their own places, so the rest of the binary keeps its order; nothing is
compiled again, so every layout runs the same instructions (check it with
callgrind). The idea is Stabilizer's (Curtsinger and Berger, "STABILIZER:
Statistically Sound Performance Evaluation", ASPLOS 2013), done at link time.

Then every layout of every tree runs SCENARIO once a round (interleaved, the
rounds as scripts/rounds.sh runs them, whose rows this reads), and the
result is per tree the mean over its shuffled layouts of each layout's median
engine time (summary.json's `wall_time_s`), the ratio of those means to the
first tree's, and a 95% bootstrap interval that resamples both the layouts
and the rounds. The natural layouts (no shuffle: the README's binary, byte
for byte) are timed in the same rounds and shown apart.

    scripts/layouts.py OUT SCENARIO ROUNDS LAYOUTS NAME=TREE [NAME=TREE ...]

e.g. scripts/layouts.py /tmp/lay examples/bench/modern-100ms.toml 15 10 \\
         old=/tmp/worktree-6534cb1 new=.

OUT must not exist (or be empty): the builds (OUT/target-NAME), the objects
and link commands (OUT/NAME), the binaries (OUT/bin) and the rows
(OUT/rows.txt) go there, and nothing outside it is written.

    scripts/layouts.py --analyse OUT/rows.txt old,new
    scripts/layouts.py --analyse docs/data/bench-layouts-2026-12-07.csv:L5 6534cb1,e56fa7c,kept

recomputes the table from kept rows, the first NAME the reference.
"""

import os
import random
import re
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict

GLOB = ".text.*losslab_*"


def fail(msg):
    print(f"layouts: {msg}", file=sys.stderr)
    sys.exit(2)


def build(out, name, tree):
    """The release binary of `tree`, its objects and link command kept."""
    target = os.path.join(out, f"target-{name}")
    env = dict(os.environ, CARGO_TARGET_DIR=target)
    print(f"== {name}: release build of {tree}", file=sys.stderr)
    r = subprocess.run(
        ["cargo", "rustc", "--release", "--locked", "-p", "losslab", "--bin", "losslab",
         "--", "-C", "save-temps", "--print", "link-args"],
        cwd=tree, env=env, stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail(f"the build of {tree} failed")
    lines = [l for l in r.stdout.splitlines() if '"-o"' in l]
    if len(lines) != 1:
        fail(f"no single link command in the build of {tree}")
    cmd = lines[0]
    objs = os.path.join(out, name)
    os.makedirs(objs)

    def keep(m):
        p = m.group(1)
        if p.endswith(".o") and os.path.isfile(p) and p.startswith(target):
            dst = os.path.join(objs, os.path.basename(p))
            shutil.copyfile(p, dst)
            return '"' + dst + '"'
        return m.group(0)

    cmd = re.sub(r'"([^"]+)"', keep, cmd)
    if "-fuse-ld=lld" not in cmd:
        fail(f"the build of {tree} does not link with lld, which the shuffle needs")
    cmd = re.sub(r'"-o" "[^"]*"', '"-o" "$OUT"', cmd)
    script = os.path.join(objs, "link.sh")
    with open(script, "w") as f:
        f.write("#!/bin/bash\nset -e\nOUT=$1\n" + cmd + ' "${@:2}"\n')
    os.chmod(script, 0o755)
    return script


def link(script, dest, seed):
    extra = [] if seed is None else [f"-Wl,--shuffle-sections={GLOB}={seed}"]
    r = subprocess.run([script, dest] + extra)
    if r.returncode != 0:
        fail(f"linking {dest} failed")


def read_rows(path):
    """(round, build, layout, seconds) from OUT/rows.txt (rows.sh's "ROUND
    NAME-LAYOUT SECONDS") or, as PATH:SET, from a CSV of docs/data
    (set,case,round,build,layout,seconds; layout `natural` or sSEED)."""
    base, _, want = path.partition(":")
    if base.endswith(".csv") and os.path.isfile(base):
        with open(base) as f:
            header = f.readline().strip().split(",")
            if header != ["set", "case", "round", "build", "layout", "seconds"]:
                fail(f"{base}: not a layouts CSV (header {header})")
            for k, line in enumerate(f, 2):
                cols = line.strip().split(",")
                if len(cols) != 6:
                    fail(f"{base} line {k}: {len(cols)} columns, not 6")
                st, _, i, name, lay, s = cols
                if not want or st == want:
                    yield int(i), name, "n" if lay == "natural" else lay, float(s)
        return
    with open(path) as f:
        for k, line in enumerate(f, 1):
            parts = line.split()
            if len(parts) != 3 or "-" not in parts[1]:
                fail(f"{path} line {k}: not ROUND NAME-LAYOUT SECONDS")
            name, lay = parts[1].rsplit("-", 1)
            yield int(parts[0]), name, lay, float(parts[2])


def analyse(rows_path, names):
    t = defaultdict(lambda: defaultdict(dict))
    for i, name, lay, s in read_rows(rows_path):
        t[name][lay][i] = s
    for n in names:
        if "n" not in t[n] or len(t[n]) < 3:
            fail(f"{rows_path}: no natural and two shuffled layouts of {n}")
    rounds = sorted(t[names[0]]["n"].keys())

    def med(d, rs=None):
        return statistics.median(d[i] for i in (rs or rounds))

    shuffled = {n: sorted(l for l in t[n] if l != "n") for n in names}
    base = names[0]
    rng = random.Random(1)
    print(f"{len(rounds)} rounds; engine time, seconds; ratios to {base}")
    print("| build | natural layout: median | shuffled layouts: mean of medians (least-greatest) "
          "| ratio, natural | ratio, shuffled | 95% bootstrap interval |")
    print("|---|---|---|---|---|---|")
    mean_base = statistics.mean(med(t[base][l]) for l in shuffled[base])
    nat_base = med(t[base]["n"])
    for n in names:
        meds = [med(t[n][l]) for l in shuffled[n]]
        m = statistics.mean(meds)
        boot = []
        for _ in range(2000):
            rs = [rng.choice(rounds) for _ in rounds]
            a = statistics.mean(med(t[base][rng.choice(shuffled[base])], rs)
                                for _ in shuffled[base])
            b = statistics.mean(med(t[n][rng.choice(shuffled[n])], rs) for _ in shuffled[n])
            boot.append(b / a)
        boot.sort()
        lo, hi = boot[int(0.025 * len(boot))], boot[int(0.975 * len(boot)) - 1]
        print(f"| {n} | {med(t[n]['n']):.4f} | {m:.4f} ({min(meds):.4f}-{max(meds):.4f}) "
              f"| {med(t[n]['n']) / nat_base:.3f} | {m / mean_base:.3f} | {lo:.3f}-{hi:.3f} |")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--analyse":
        analyse(sys.argv[2], sys.argv[3].split(","))
        return
    if len(sys.argv) < 6:
        fail("usage: scripts/layouts.py OUT SCENARIO ROUNDS LAYOUTS NAME=TREE [NAME=TREE ...]"
             "\n   or: scripts/layouts.py --analyse ROWS|CSV:SET NAME,NAME,...")
    out, scenario, rounds, layouts = sys.argv[1:5]
    if os.path.exists(out) and os.listdir(out):
        fail(f"{out} exists and is not empty")
    if not os.path.isfile(scenario):
        fail(f"no scenario file {scenario}")
    if not (rounds.isdigit() and int(rounds) >= 1 and layouts.isdigit() and int(layouts) >= 2):
        fail("ROUNDS must be a whole number from 1 and LAYOUTS from 2")
    trees = []
    for a in sys.argv[5:]:
        name, eq, tree = a.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z0-9_]+", name):
            fail(f"a build is NAME=TREE with a NAME of letters, digits and _, not {a}")
        if not os.path.isfile(os.path.join(tree, "Cargo.toml")):
            fail(f"no Cargo.toml in {tree}")
        if name in (n for n, _ in trees):
            fail(f"two builds are named {name}")
        trees.append((name, os.path.abspath(tree)))
    scenario = os.path.abspath(scenario)
    os.makedirs(out, exist_ok=True)
    out = os.path.abspath(out)
    bins = os.path.join(out, "bin")
    os.makedirs(bins)
    scripts = {name: build(out, name, tree) for name, tree in trees}
    labels = []
    for seed in [None] + list(range(1, int(layouts) + 1)):
        for name, _ in trees:
            label = f"{name}-{'n' if seed is None else f's{seed}'}"
            link(scripts[name], os.path.join(bins, label), seed)
            labels.append(f"{label}={os.path.join(bins, label)}")
    rounds_sh = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rounds.sh")
    rows = os.path.join(out, "rows.txt")
    with open(rows, "w") as f:
        r = subprocess.run([rounds_sh, scenario, rounds] + labels, stderr=f,
                           stdout=subprocess.DEVNULL)
    if r.returncode != 0:
        fail(f"the rounds failed (rows so far in {rows})")
    analyse(rows, [n for n, _ in trees])


if __name__ == "__main__":
    main()
