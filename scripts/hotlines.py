#!/usr/bin/env python3
"""How the hot code of a losslab build sits on 64-byte cache lines
(docs/BENCHMARKS.md, "Cold paths out of line").

    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=CG \\
        BIN run examples/bench/modern-100ms.toml --no-progress --out DIR
    scripts/hotlines.py CG BIN [--hot N] [--runs FUNCTION ...]

Reads callgrind's per-instruction counts (`--dump-instr=yes`; a call's
inclusive cost lines are skipped, so each address keeps its own
executions) and the binary's symbols (`nm -S -C`) and instructions
(`objdump -d -l`). An instruction is hot when it ran at least N times
(default 20,000). For every function with at least 2,000,000 executions
in all, it prints the bytes of its hot instructions, the 64-byte lines
those touch, the difference (cold bytes sharing the hot lines) and the
bytes from its first hot instruction to its last, the worst first, then
the totals: the instruction cache holds lines, so the
lines are what the hot path costs it. With --runs, for each named
function (as `nm -C` prints it) the runs of cold instructions of 48 bytes
or more that lie between hot ones, with the source lines they come from:
code inlined into a hot path that this run does not execute.
"""
import collections
import re
import subprocess
import sys


def fail(msg):
    print(f"hotlines: {msg}", file=sys.stderr)
    sys.exit(2)


def counts(path):
    """Executions per instruction address from a callgrind file."""
    cnt = collections.Counter()
    addr = 0
    skip_next = False
    try:
        f = open(path)
    except OSError as e:
        fail(f"{path}: {e}")
    with f:
        head = f.readline()
        if not head.startswith("# callgrind format"):
            fail(f"{path}: not a callgrind file")
        for line in f:
            if line.startswith("positions:") and "instr" not in line:
                fail(f"{path}: no instruction positions (run callgrind with --dump-instr=yes)")
            if line.startswith("calls="):
                skip_next = True
                continue
            c = line[:1]
            if not c or c not in "0123456789+-*":
                continue
            parts = line.split()
            a = parts[0]
            if a.startswith("0x"):
                addr = int(a, 16)
            elif a[0] in "+-":
                d = int(a[1:], 16) if a[1:].startswith("0x") else int(a[1:])
                addr += d if a[0] == "+" else -d
            elif a != "*":
                addr = int(a)
            if skip_next:
                skip_next = False
                continue
            if len(parts) >= 3:
                cnt[addr] += int(parts[2])
    return cnt


def symbols(binary):
    out = subprocess.run(["nm", "-S", "-C", binary], capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"{binary}: nm failed: {out.stderr.strip()}")
    syms = {}
    for line in out.stdout.splitlines():
        p = line.split(None, 3)
        if len(p) == 4 and p[2] in "tT":
            syms[p[3]] = (int(p[0], 16), int(p[1], 16))
    return syms


def instructions(binary, start, size):
    """(address, size, source line) of each instruction in [start, start+size)."""
    dis = subprocess.run(
        ["objdump", "-d", "-l", "--no-show-raw-insn",
         f"--start-address={start}", f"--stop-address={start + size}", binary],
        capture_output=True, text=True).stdout
    rows = []
    src = "?"
    for line in dis.splitlines():
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


def main():
    args = sys.argv[1:]
    hot = 20_000
    runs = []
    if "--hot" in args:
        i = args.index("--hot")
        try:
            hot = int(args[i + 1])
        except (IndexError, ValueError):
            fail("--hot takes a whole number")
        del args[i:i + 2]
    if "--runs" in args:
        i = args.index("--runs")
        runs = args[i + 1:]
        del args[i:]
    if len(args) != 2:
        fail("usage: hotlines.py CALLGRIND_FILE BINARY [--hot N] [--runs FUNCTION ...]")
    cg, binary = args
    cnt = counts(cg)
    syms = symbols(binary)
    rows = []
    for name, (s, sz) in syms.items():
        if sz == 0 or sum(cnt.get(a, 0) for a in range(s, s + sz)) < 2_000_000:
            continue
        hot_bytes = 0
        lines = set()
        first = last = None
        for a, size, _ in instructions(binary, s, sz):
            if cnt.get(a, 0) >= hot:
                hot_bytes += size
                lines.update((a // 64, (a + size - 1) // 64))
                first = a if first is None else first
                last = a + size
        span = 0 if first is None else last - first
        rows.append((len(lines) * 64 - hot_bytes, hot_bytes, len(lines), span, name))
    rows.sort(reverse=True)
    print(f"instructions run at least {hot:,} times; functions by cold bytes on hot lines")
    print("| cold bytes on hot lines | hot bytes | hot lines | first to last hot byte | function |")
    print("|---|---|---|---|---|")
    for r in rows[:25]:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4][:100]} |")
    hb = sum(r[1] for r in rows)
    hl = sum(r[2] for r in rows)
    sp = sum(r[3] for r in rows)
    print(f"total: {hb:,} hot bytes on {hl} lines ({hl * 64:,} bytes), "
          f"{sp:,} bytes from each function's first hot byte to its last")
    for name in runs:
        if name not in syms:
            fail(f"no function {name!r} in {binary}")
        s, sz = syms[name]
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
        print(f"\n{name}: {sz} bytes")
        if not hot_idx:
            print("  no hot instructions")
            continue
        between = 0
        for sp in spans[hot_idx[0]:hot_idx[-1]]:
            if not sp[0] and sp[2] >= 48:
                between += sp[2]
                srcs = ", ".join(f"{k} ({v})" for k, v in sp[3].most_common(4))
                print(f"  cold {sp[2]:5d} bytes at +{sp[1] - s}: {srcs}")
        print(f"  cold bytes between hot ones (runs of 48 or more): {between}")


if __name__ == "__main__":
    main()
