#!/usr/bin/env python3
"""How the hot code of a losslab build sits on 64-byte cache lines
(docs/BENCHMARKS.md, "Cold paths out of line").

    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=CG \\
        BIN run examples/bench/modern-100ms.toml --no-progress --out DIR
    scripts/hotlines.py CG BIN [--hot N] [--runs FUNCTION ...]

Reads callgrind's per-instruction counts (`--dump-instr=yes`) for BIN's own
code (the object callgrind names BIN; the shared libraries are left out;
a call's inclusive cost lines are skipped, so each address keeps its own
executions), and BIN's symbols (`nm -S -C`) and instructions (`objdump -d
-l`). An instruction is hot when it ran at least N times (default 20,000).
For every function (one symbol; two instances of a generic with the same
demangled name are two rows) with at least 2,000,000 executions in all, it
prints the bytes of its hot instructions, the 64-byte lines those touch,
the difference (cold bytes sharing the hot lines) and the bytes from its
first hot instruction to its last, the worst first, then the totals over
those functions (the lines summed function by function, so a line two
functions share counts twice) and the distinct lines that hold any hot
instruction of BIN. With --runs, for each named function (as `nm -C`
prints it, or its address as 0x...) the stretches of 48 bytes or more of
instructions run fewer than N times (most of them never) that lie between
hot ones, with the source lines they come from: code inlined into a hot
path that this run seldom or never executes.

A callgrind file of another binary is refused (exit 2), as is one whose
counted addresses are not BIN's instruction starts.
"""
import bisect
import collections
import os
import re
import subprocess
import sys

MIN_FUNCTION = 2_000_000


def fail(msg):
    print(f"hotlines: {msg}", file=sys.stderr)
    sys.exit(2)


def number(s):
    return int(s, 16) if s.startswith("0x") else int(s)


def counts(path, binary):
    """Executions per instruction address of `binary`'s code in a callgrind
    file, and the command callgrind recorded."""
    cnt = collections.Counter()
    want = os.path.realpath(binary)
    names = {}
    positions = None
    ir = None
    current_ob = None
    ours = False
    seen_ours = False
    header_seen = False
    cmd = None
    prev = []
    skip_next = False
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        fail(f"{path}: {e}")
    with f:
        try:
            for k, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if k == 1 and not line.startswith("# callgrind format"):
                    fail(f"{path}: not a callgrind file (line 1)")
                header_seen = True
                if line.startswith("cmd:"):
                    cmd = line[4:].strip()
                    continue
                if line.startswith("positions:"):
                    positions = line.split(":", 1)[1].split()
                    if not positions or positions[0] != "instr":
                        fail(f"{path} line {k}: no instruction positions "
                             "(run callgrind with --dump-instr=yes)")
                    prev = [0] * len(positions)
                    continue
                if line.startswith("events:"):
                    events = line.split(":", 1)[1].split()
                    if "Ir" not in events:
                        fail(f"{path} line {k}: no Ir event")
                    ir = events.index("Ir")
                    continue
                if line.startswith("cob="):
                    # Object names are compressed in one table for ob= and
                    # cob=: a called object may be named first.
                    m = re.match(r"cob=\((\d+)\)\s+(.*)$", line)
                    if m:
                        names[m.group(1)] = m.group(2)
                    continue
                if line.startswith("ob="):
                    m = re.match(r"ob=\((\d+)\)(?:\s+(.*))?$", line)
                    if m:
                        if m.group(2) is not None:
                            names[m.group(1)] = m.group(2)
                        current_ob = names.get(m.group(1))
                    else:
                        current_ob = line[3:].strip()
                    ours = current_ob is not None and os.path.realpath(current_ob) == want
                    seen_ours |= ours
                    continue
                if line.startswith("calls="):
                    skip_next = True
                    continue
                c = line[:1]
                if not c or c not in "0123456789+-*":
                    continue
                if positions is None or ir is None:
                    fail(f"{path} line {k}: a cost line before the positions and events headers")
                parts = line.split()
                if len(parts) < len(positions):
                    fail(f"{path} line {k}: a cost line with too few positions")
                for i in range(len(positions)):
                    p = parts[i]
                    if p == "*":
                        continue
                    if p[0] == "+":
                        prev[i] += number(p[1:])
                    elif p[0] == "-":
                        prev[i] -= number(p[1:])
                    else:
                        prev[i] = number(p)
                if skip_next:
                    skip_next = False
                    continue
                col = len(positions) + ir
                if ours and len(parts) > col:
                    cnt[prev[0]] += int(parts[col])
        except UnicodeDecodeError:
            fail(f"{path}: not a text file")
        except ValueError as e:
            fail(f"{path} line {k}: cannot read it ({e})")
    if not header_seen:
        fail(f"{path}: not a callgrind file (empty)")
    if not seen_ours:
        fail(f"{path} holds no counts for {binary} (its command: {cmd or 'unknown'})")
    return cnt


def symbols(binary):
    """(address, size, name) of every function symbol, by address."""
    out = subprocess.run(["nm", "-S", "-C", binary], capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"{binary}: nm failed: {out.stderr.strip()}")
    syms = []
    for line in out.stdout.splitlines():
        p = line.split(None, 3)
        if len(p) == 4 and p[2] in "tT":
            syms.append((int(p[0], 16), int(p[1], 16), p[3]))
    if not syms:
        fail(f"{binary}: no function symbols (a stripped binary?)")
    return sorted(set(syms))


def all_instructions(binary):
    """The start of every instruction in `binary`, in order."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary],
                         capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"{binary}: objdump failed: {out.stderr.strip()}")
    return [int(m.group(1), 16)
            for m in re.finditer(r"^\s+([0-9a-f]+):\s", out.stdout, re.M)]


def instructions(binary, start, size):
    """[address, size, source line] of each instruction in [start, start+size)."""
    out = subprocess.run(
        ["objdump", "-d", "-l", "--no-show-raw-insn",
         f"--start-address={start}", f"--stop-address={start + size}", binary],
        capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"{binary}: objdump failed: {out.stderr.strip()}")
    rows = []
    src = "?"
    for line in out.stdout.splitlines():
        m = re.match(r"^(/\S+):(\d+)", line)
        if m:
            src = m.group(1).split("/")[-1] + ":" + m.group(2)
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s", line)
        if m:
            rows.append([int(m.group(1), 16), 0, src])
    for i, r in enumerate(rows):
        r[1] = (rows[i + 1][0] if i + 1 < len(rows) else start + size) - r[0]
    return rows


def parse_args(argv):
    args = list(argv)
    hot = 20_000
    runs = []
    if "--hot" in args:
        i = args.index("--hot")
        try:
            hot = int(args[i + 1])
        except (IndexError, ValueError):
            fail("--hot takes a whole number")
        if hot < 1:
            fail("--hot takes a number of executions of 1 or more")
        del args[i:i + 2]
    if "--runs" in args:
        i = args.index("--runs")
        runs = args[i + 1:]
        del args[i:]
        if not runs:
            fail("--runs takes one or more function names")
    if len(args) != 2 or any(a.startswith("--") for a in args):
        fail("usage: hotlines.py CALLGRIND_FILE BINARY [--hot N] [--runs FUNCTION ...]")
    return args[0], args[1], hot, runs


def main():
    cg, binary, hot, runs = parse_args(sys.argv[1:])
    if not os.path.isfile(binary):
        fail(f"{binary}: no such file")
    syms = symbols(binary)
    # The functions --runs names, before any work: a name two symbols
    # share must be given by address.
    chosen = []
    for name in runs:
        if name.startswith("0x"):
            try:
                at = int(name, 16)
            except ValueError:
                fail(f"--runs {name!r}: not an address")
            # Functions folded into one keep one body under several names.
            hits = list({(s[0], s[1]): s for s in syms if s[0] == at}.values())
        else:
            hits = [s for s in syms if s[2] == name]
        if not hits:
            fail(f"no function {name!r} in {binary}")
        if len(hits) > 1:
            addrs = ", ".join(hex(s[0]) for s in hits)
            fail(f"{name!r} names {len(hits)} functions in {binary}: give one address ({addrs})")
        chosen.append(hits[0])
    cnt = counts(cg, binary)
    starts = all_instructions(binary)
    start_set = set(starts)
    counted = sum(cnt.values())
    stray = sum(v for a, v in cnt.items() if a not in start_set)
    if counted == 0 or stray * 100 > counted:
        fail(f"{cg} does not match {binary}: {stray:,} of {counted:,} executions "
             "fall outside its instructions (a callgrind file of another build?)")
    rows = []
    all_lines = set()
    # One row per body: functions folded into one keep several names.
    bodies = {}
    for s, sz, name in syms:
        bodies.setdefault((s, sz), name)
    for (s, sz), name in sorted(bodies.items()):
        if sz == 0:
            continue
        lo = bisect.bisect_left(starts, s)
        hi = bisect.bisect_left(starts, s + sz)
        ins = starts[lo:hi]
        if sum(cnt.get(a, 0) for a in ins) == 0:
            continue
        total = 0
        hot_bytes = 0
        lines = set()
        first = last = None
        for i, a in enumerate(ins):
            size = (ins[i + 1] if i + 1 < len(ins) else s + sz) - a
            c = cnt.get(a, 0)
            total += c
            if c >= hot:
                hot_bytes += size
                ls = range(a // 64, (a + size - 1) // 64 + 1)
                lines.update(ls)
                all_lines.update(ls)
                first = a if first is None else first
                last = a + size
        if total >= MIN_FUNCTION:
            span = 0 if first is None else last - first
            rows.append((len(lines) * 64 - hot_bytes, hot_bytes, len(lines), span, name))
    if not rows:
        fail(f"{cg}: no function of {binary} ran {MIN_FUNCTION:,} instructions")
    rows.sort(reverse=True)
    print(f"instructions run at least {hot:,} times; functions with {MIN_FUNCTION:,} "
          "executions or more, by cold bytes on hot lines")
    print("| cold bytes on hot lines | hot bytes | hot lines | first to last hot byte | function |")
    print("|---|---|---|---|---|")
    for r in rows[:25]:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4][:100]} |")
    hb = sum(r[1] for r in rows)
    hl = sum(r[2] for r in rows)
    sp = sum(r[3] for r in rows)
    print(f"those functions: {hb:,} hot bytes on {hl} lines ({hl * 64:,} bytes), "
          f"{sp:,} bytes from each function's first hot byte to its last")
    print(f"all of {os.path.basename(binary)}: {len(all_lines)} distinct lines "
          f"({len(all_lines) * 64:,} bytes) hold a hot instruction")
    for s, sz, name in chosen:
        ins = instructions(binary, s, sz)
        spans = []
        for a, size, src in ins:
            h = cnt.get(a, 0) >= hot
            if spans and spans[-1][0] == h:
                spans[-1][2] += size
                spans[-1][3][src] += size
            else:
                spans.append([h, a, size, collections.Counter({src: size})])
        hot_idx = [i for i, sp in enumerate(spans) if sp[0]]
        print(f"\n{name} (at {hex(s)}): {sz} bytes")
        if not hot_idx:
            print("  no hot instructions")
            continue
        between = 0
        for sp in spans[hot_idx[0]:hot_idx[-1]]:
            if not sp[0] and sp[2] >= 48:
                between += sp[2]
                srcs = ", ".join(f"{k} ({v})" for k, v in sp[3].most_common(4))
                print(f"  cold {sp[2]:5d} bytes at +{sp[1] - s}: {srcs}")
        print(f"  cold bytes between hot ones (stretches of 48 or more): {between}")


if __name__ == "__main__":
    main()
