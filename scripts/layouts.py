#!/usr/bin/env python3
"""Two or more builds of losslab compared in time over many code layouts
(docs/BENCHMARKS.md, "Speed ratios over code layouts").

A release build's time a packet moves by several per cent with the placement
of its hot functions alone (32 KB of L1 instruction cache against some 40 KB
of hot code; BENCHMARKS, "The front end"), so one build against another
compares one layout of each. This script compares many: for each source tree
it builds the README's release binary once, keeping the link step's objects
(`cargo rustc --release ... -C save-temps --print link-args`), then links it
again with lld's `--shuffle-sections=GLOB=SEED` for seeds 1..N. The glob,
`.text.*losslab_*`, takes the functions of the `losslab_*` library crates and
of trait impls on their types (legacy mangling: the standard library's
generics made for those types, and the `losslab` binary crate's own
functions, keep their places); the shuffle permutes them among their own
places, so the rest of the binary keeps its order. Nothing is compiled again,
so every layout runs the same instructions (check one with callgrind). The
idea is Stabilizer's (Curtsinger and Berger, "STABILIZER: Statistically Sound
Performance Evaluation", ASPLOS 2013), at link time.

What it measures is the time under a random order of those functions, which
no shipped build has: the natural order (the README's binary, byte for byte,
also timed and shown apart) has been faster than most shuffled ones for every
build measured, by more for some builds than others. It is a measure chosen
to be conservative and to take placement out of a comparison, not a build's
own time.

Every layout of every tree runs SCENARIO once a round, in an order shuffled
afresh each round (seeded by the round's number); each run's engine time
(summary.json's `wall_time_s`) is appended to OUT/rows.txt as it comes
("ROUND NAME-LAYOUT SECONDS", layout `n` for the natural one, `sK` for seed
K), so an interrupted run keeps its rows. The table gives per tree the mean
over its shuffled layouts of each layout's median, its ratio to the first
tree's with a 95% bootstrap interval (layouts resampled per tree, rounds
resampled alike for all), and a ratio paired by seed: the same seed gives
nearly the same order to two nearly identical trees (check with `nm -n`),
and then the paired interval is the sharper one; for trees far apart it
means nothing (read the unpaired one).

    scripts/layouts.py OUT SCENARIO ROUNDS LAYOUTS NAME=TREE [NAME=TREE ...]
        [--first-seed K]

e.g. scripts/layouts.py /tmp/lay examples/bench/modern-100ms.toml 15 10 \\
         old=/tmp/worktree-6534cb1 new=.

OUT must not exist (or be empty): the builds (OUT/target-NAME), the objects
and link commands (OUT/NAME), the binaries (OUT/bin), the runs' scratch
folder (OUT/run) and the rows (OUT/rows.txt) go there. (Cargo may still
fetch crates into its own home.)

    scripts/layouts.py --analyse OUT/rows.txt old,new
    scripts/layouts.py --analyse docs/data/bench-layouts-2026-12-07.csv:L5 6534cb1,e56fa7c,kept

recomputes the table from kept rows, the first NAME the reference; a CSV
(set,case,round,build,layout,seconds; layout `natural` or sK) needs :SET.
    scripts/layouts.py --analyse docs/data/bench-layouts-2026-12-07.csv:L8+L9+L10 6534cb1,cold2
pools sets: each build's mean over every set's shuffled layouts of their
medians, its ratio to the first NAME's, and a bootstrap that resamples
each set's rounds (alike for its builds) and each build's layouts within
each set. The pairing by seed holds only for builds with the same
functions: lld's shuffle is a permutation by position, so a build with
one function more or fewer gets an unrelated order from the same seed
(ccf7b93 against a build with a few functions moved out of line: 17% of
adjacent pairs kept with the same seed and with a different one alike).
"""

import json
import math
import os
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict

GLOB = ".text.*losslab_*"
BOOT = 2000
# Student's t, 97.5% quantile, by degrees of freedom (1-30); 1.96 beyond.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def fail(msg):
    print(f"layouts: {msg}", file=sys.stderr)
    sys.exit(2)


def build(out, name, tree):
    """The release binary of `tree` built once; its link command, with the
    objects copied under OUT/NAME, kept as an argument list (never through
    a shell) in OUT/NAME/link.json."""
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
    words = shlex.split(lines[0])
    link_env = {}
    while words and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        k, _, v = words.pop(0).partition("=")
        link_env[k] = v
    if "-fuse-ld=lld" not in words:
        fail(f"the build of {tree} does not link with lld, which the shuffle needs")
    objs = os.path.join(out, name)
    os.makedirs(objs)
    argv = []
    for w in words:
        if w.endswith(".o") and os.path.isfile(w) and os.path.abspath(w).startswith(target):
            dst = os.path.join(objs, os.path.basename(w))
            shutil.copyfile(w, dst)
            w = dst
        argv.append(w)
    if argv.count("-o") != 1:
        fail(f"the link command of {tree} has no single -o")
    with open(os.path.join(objs, "link.json"), "w") as f:
        json.dump({"env": link_env, "argv": argv}, f)
    return {"env": link_env, "argv": argv}


def link(cmd, dest, seed):
    argv = list(cmd["argv"])
    argv[argv.index("-o") + 1] = dest
    if seed is not None:
        argv.append(f"-Wl,--shuffle-sections={GLOB}={seed}")
    r = subprocess.run(argv, env=dict(os.environ, **cmd["env"]))
    if r.returncode != 0:
        fail(f"linking {dest} failed")


def run_rounds(out, scenario, rounds, labels):
    """Every binary once a round, in an order shuffled each round; a row
    per run appended to OUT/rows.txt at once."""
    rows = os.path.join(out, "rows.txt")
    work = os.path.join(out, "run")
    for i in range(1, rounds + 1):
        order = list(labels)
        random.Random(i).shuffle(order)
        for label, binary in order:
            if os.path.exists(work):
                shutil.rmtree(work)
            r = subprocess.run([binary, "run", scenario, "--no-progress", "--out", work],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                fail(f"{label} failed on {scenario} in round {i} (rows so far in {rows}):\n"
                     + r.stderr[-2000:])
            with open(os.path.join(work, "summary.json")) as f:
                s = json.load(f)["wall_time_s"]
            with open(rows, "a") as f:
                f.write(f"{i} {label} {s}\n")
        print(f"round {i} of {rounds}", file=sys.stderr)
    if os.path.exists(work):
        shutil.rmtree(work)
    return rows


def read_rows(path):
    """(round, build, layout, seconds) from OUT/rows.txt or, as CSV:SET,
    from a CSV of docs/data."""
    head, sep, want = path.rpartition(":")
    if sep and head.endswith(".csv"):
        if not os.path.isfile(head):
            fail(f"no file {head}")
        with open(head) as f:
            header = f.readline().strip().split(",")
            if header != ["set", "case", "round", "build", "layout", "seconds"]:
                fail(f"{head}: not a layouts CSV (header {header})")
            for k, line in enumerate(f, 2):
                cols = line.strip().split(",")
                if len(cols) != 6:
                    fail(f"{head} line {k}: {len(cols)} columns, not 6")
                st, _, i, name, lay, s = cols
                if st == want:
                    try:
                        yield int(i), name, "n" if lay == "natural" else lay, float(s)
                    except ValueError:
                        fail(f"{head} line {k}: round {i!r} or seconds {s!r} is not a number")
        return
    if path.endswith(".csv"):
        fail(f"{path}: a CSV holds several sets; name one, as {path}:SET")
    if not os.path.isfile(path):
        fail(f"no file {path}")
    with open(path) as f:
        for k, line in enumerate(f, 1):
            parts = line.split()
            if len(parts) != 3 or "-" not in parts[1]:
                fail(f"{path} line {k}: not ROUND NAME-LAYOUT SECONDS")
            name, lay = parts[1].rsplit("-", 1)
            try:
                yield int(parts[0]), name, lay, float(parts[2])
            except ValueError:
                fail(f"{path} line {k}: not ROUND NAME-LAYOUT SECONDS")


def boot_means(t, name, lays, rounds, picks):
    """The mean over resampled layouts of their medians over resampled
    rounds, for each of the bootstrap's draws (`picks`: the rounds drawn)."""
    rng = random.Random(f"layouts:{name}")
    out = []
    for rs in picks:
        drawn = [t[name][rng.choice(lays)] for _ in lays]
        out.append(statistics.mean(statistics.median(d[i] for i in rs) for d in drawn))
    return out


def table(rows_path):
    """Seconds by build, layout and round; two rows for one run refused."""
    t = defaultdict(lambda: defaultdict(dict))
    for i, name, lay, s in read_rows(rows_path):
        if i in t[name][lay]:
            fail(f"{rows_path}: two rows for {name}-{lay} in round {i}")
        t[name][lay][i] = s
    return t


def analyse(rows_path, names):
    t = table(rows_path)
    rounds = sorted(t[names[0]]["n"].keys()) if "n" in t[names[0]] else []
    for n in names:
        if "n" not in t[n] or len(t[n]) < 3:
            fail(f"{rows_path}: no natural and two shuffled layouts of {n}")
        for lay, d in t[n].items():
            if sorted(d) != rounds:
                fail(f"{rows_path}: {n}-{lay} has rounds {sorted(d)}, not {rounds}")

    def med(d):
        return statistics.median(d[i] for i in rounds)

    shuffled = {n: sorted(l for l in t[n] if l != "n") for n in names}
    base = names[0]
    rng = random.Random("layouts:rounds")
    picks = [[rng.choice(rounds) for _ in rounds] for _ in range(BOOT)]
    base_boot = boot_means(t, base, shuffled[base], rounds, picks)
    mean_base = statistics.mean(med(t[base][l]) for l in shuffled[base])
    nat_base = med(t[base]["n"])
    print(f"{len(rounds)} rounds; engine time, seconds; ratios to {base}")
    print("| build | natural layout: median | shuffled layouts: mean of medians (least-greatest) "
          "| natural: faster than | ratio, natural | ratio, shuffled (95% bootstrap) "
          "| paired by seed, nearly identical trees only (95% t, seeds faster) |")
    print("|---|---|---|---|---|---|---|")
    for n in names:
        meds = {l: med(t[n][l]) for l in shuffled[n]}
        m = statistics.mean(meds.values())
        nat = med(t[n]["n"])
        faster = sum(1 for v in meds.values() if nat < v)
        b = boot_means(t, n, shuffled[n], rounds, picks)
        boot = sorted(x / y for x, y in zip(b, base_boot))
        lo, hi = boot[int(0.025 * BOOT)], boot[int(0.975 * BOOT) - 1]
        shown = "-" if n == base else f"({lo:.3f}-{hi:.3f})"
        paired = "-"
        common = [l for l in shuffled[n] if l in t[base]]
        if n != base and len(common) >= 3:
            logs = [math.log(meds[l] / med(t[base][l])) for l in common]
            g, sd = statistics.mean(logs), statistics.stdev(logs)
            q = T975[len(logs) - 2] if len(logs) - 1 <= len(T975) else 1.96
            h = q * sd / math.sqrt(len(logs))
            won = sum(1 for x in logs if x < 0)
            paired = (f"{math.exp(g):.3f} ({math.exp(g - h):.3f}-{math.exp(g + h):.3f}), "
                      f"{won} of {len(logs)}")
        print(f"| {n} | {nat:.4f} | {m:.4f} ({min(meds.values()):.4f}-{max(meds.values()):.4f}) "
              f"| {faster} of {len(meds)} | {nat / nat_base:.3f} | {m / mean_base:.3f} "
              f"{shown} | {paired} |")


def pooled(path, sets, names):
    """The shuffled ratio over several sets of one CSV, each set's layouts
    and rounds its own: the mean over every set's layouts of their medians,
    with a bootstrap that resamples each set's rounds (alike for its
    builds) and each build's layouts within each set. The sets are strata:
    a difference between sets beyond their layouts' and rounds' own spread
    is not in the interval."""
    if len(set(sets)) != len(sets):
        fail(f"{path}: a set named twice in {'+'.join(sets)}")
    if len(set(names)) != len(names):
        fail(f"a build named twice in {','.join(names)}")
    tabs = []
    for st in sets:
        t = table(f"{path}:{st}")
        for n in names:
            lays = [l for l in t[n] if l != "n"]
            if len(lays) < 2:
                fail(f"{path}:{st}: no two shuffled layouts of {n}")
        rounds = sorted(next(iter(t[names[0]].values())))
        for n in names:
            for lay, d in t[n].items():
                if sorted(d) != rounds:
                    fail(f"{path}:{st}: {n}-{lay} has rounds {sorted(d)}, not {rounds}")
        tabs.append((t, rounds))
    # The rounds drawn alike for every build; each build's layouts from
    # its own stream, so an interval does not depend on the other names.
    rounds_rng = random.Random("layouts:pooled:rounds")
    picks = [[[rounds_rng.choice(rounds) for _ in rounds] for _, rounds in tabs]
             for _ in range(BOOT)]
    draws = {n: [] for n in names}
    for n in names:
        rng = random.Random(f"layouts:pooled:{n}")
        for pick in picks:
            acc = []
            for (t, _), rs in zip(tabs, pick):
                lays = sorted(l for l in t[n] if l != "n")
                for _ in lays:
                    d = t[n][rng.choice(lays)]
                    acc.append(statistics.median(d[i] for i in rs))
            draws[n].append(statistics.mean(acc))
    point = {}
    for n in names:
        meds = [statistics.median(t[n][l][i] for i in rounds)
                for t, rounds in tabs for l in sorted(t[n]) if l != "n"]
        point[n] = (statistics.mean(meds), len(meds))
    base = names[0]
    print(f"sets {'+'.join(sets)} pooled; engine time, seconds; ratios to {base}")
    print("| build | shuffled layouts | mean of medians | ratio, shuffled (95% bootstrap) |")
    print("|---|---|---|---|")
    for n in names:
        boot = sorted(x / y for x, y in zip(draws[n], draws[base]))
        lo, hi = boot[int(0.025 * BOOT)], boot[int(0.975 * BOOT) - 1]
        shown = "-" if n == base else f"({lo:.3f}-{hi:.3f})"
        m, k = point[n]
        print(f"| {n} | {k} | {m:.4f} | {m / point[base][0]:.3f} {shown} |")


def main():
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "--analyse":
        head, sep, want = args[1].rpartition(":")
        if sep and head.endswith(".csv") and "+" in want:
            sets = want.split("+")
            if any(not x for x in sets):
                fail(f"{args[1]}: an empty set name")
            pooled(head, sets, args[2].split(","))
        else:
            analyse(args[1], args[2].split(","))
        return
    first = 1
    if "--first-seed" in args:
        k = args.index("--first-seed")
        if k + 1 >= len(args) or not args[k + 1].isdigit() or int(args[k + 1]) < 1:
            fail("--first-seed takes a whole number from 1")
        first = int(args[k + 1])
        del args[k:k + 2]
    if len(args) < 5:
        fail("usage: scripts/layouts.py OUT SCENARIO ROUNDS LAYOUTS NAME=TREE [NAME=TREE ...]"
             " [--first-seed K]\n   or: scripts/layouts.py --analyse ROWS|CSV:SET|CSV:SET+SET... NAME,NAME,...")
    out, scenario, rounds, layouts = args[:4]
    if os.path.exists(out) and (not os.path.isdir(out) or os.listdir(out)):
        fail(f"{out} exists and is not an empty folder")
    if not os.path.isfile(scenario):
        fail(f"no scenario file {scenario}")
    if not (rounds.isdigit() and int(rounds) >= 1 and layouts.isdigit() and int(layouts) >= 2):
        fail("ROUNDS must be a whole number from 1 and LAYOUTS from 2")
    trees = []
    for a in args[4:]:
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
    cmds = {name: build(out, name, tree) for name, tree in trees}
    labels = []
    for seed in [None] + list(range(first, first + int(layouts))):
        for name, _ in trees:
            label = f"{name}-{'n' if seed is None else f's{seed}'}"
            link(cmds[name], os.path.join(bins, label), seed)
            labels.append((label, os.path.join(bins, label)))
    rows = run_rounds(out, scenario, int(rounds), labels)
    analyse(rows, [n for n, _ in trees])


if __name__ == "__main__":
    main()
