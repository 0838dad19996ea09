#!/usr/bin/env python3
"""Issue 11's benchmarks for docs/BENCHMARKS.md: parallel efficiency of
`losslab sweep --jobs`, the per-run overhead of the Python package and of
the Ray backend against the command line, and a sweep's peak memory as it
grows from 100 to 1,000 points.

    cargo build --release && pip install './[dataframe,ray]'
    python3 scripts/bench_python.py [--repeat 3] [--ray ADDRESS]

Every comparison alternates its contenders within one run of this script
(these machines are noisy) and reports medians and their ratio. Without
--ray, a single-node Ray head is started on 127.0.0.1 for the Ray rows and
ended afterwards.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python" / "tests"))
import ray_local  # noqa: E402  (the tests' single-node Ray head)
CLI = os.environ.get("LOSSLAB_BIN") or str(REPO / "target/release/losslab")
BASE = REPO / "examples/bulk-20mbps.toml"


def sweep_text(points: int, seeds: str, duration: str, heavy: bool = False) -> str:
    base = 0.0005 if heavy else 0.001
    ps = ", ".join(f"{base + 0.00001 * i:.5f}" for i in range(points))
    # heavy: the reference-size case of "Parallel seeds" (200 Mbit/s).
    extra = ', "path.rate=200Mbps", "path.queue=2500000B"' if heavy else ""
    return (
        f'scenario = "{BASE}"\nseeds = "{seeds}"\nset = ["duration={duration}"{extra}]\n'
        f'[axes]\n"path.loss.p" = [{ps}]\n'
    )


def wall(f) -> float:
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def cli(*args: str, env=None) -> None:
    subprocess.run([CLI, *args], check=True, stdout=subprocess.DEVNULL, env=env)


def median_ratio(name_a, a, name_b, b):
    ma, mb = statistics.median(a), statistics.median(b)
    return f"{name_a} {ma:.3f} s, {name_b} {mb:.3f} s (median of {len(a)}), ratio {mb / ma:.3f}"


def peak_rss_mb(args) -> float:
    code = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True, text=True)
    return int(out.stdout.strip()) / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ray", help="an existing Ray head (default: start one on 127.0.0.1)")
    a = ap.parse_args()
    import losslab

    tmp = Path(tempfile.mkdtemp(prefix="losslab-bench-"))
    print(f"losslab {losslab.__version__}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}")

    # 1. Parallel efficiency: a 40-run sweep of 600 s runs at 200 Mbit/s.
    f40 = tmp / "s40.toml"
    f40.write_text(sweep_text(8, "1..5", "600s", heavy=True))
    j1, jn = [], []
    for _ in range(a.repeat):
        j1.append(wall(lambda: cli("sweep", str(f40), "--out", str(tmp / "o40"), "--no-progress", "--jobs", "1")))
        jn.append(wall(lambda: cli("sweep", str(f40), "--out", str(tmp / "o40"), "--no-progress")))
    sp = statistics.median(j1) / statistics.median(jn)
    print(f"40-run sweep, jobs=1 vs jobs={os.cpu_count()}: {median_ratio('jobs=all', jn, 'jobs=1', j1)}; "
          f"speed-up {sp:.2f}, efficiency {sp / os.cpu_count():.2f} per core")

    # 2. A sweep of 200 short runs: command line, Python, Ray.
    f200 = tmp / "s200.toml"
    f200.write_text(sweep_text(40, "1..5", "10s"))
    with contextlib.ExitStack() as stack:
        address = a.ray
        if address is None:
            (tmp / "ray").mkdir()
            address, env = stack.enter_context(ray_local.ray_head(tmp / "ray", os.cpu_count() or 1))
            os.environ.update({k: env[k] for k in ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "RAY_USAGE_STATS_ENABLED")})
        f1 = tmp / "s1.toml"
        f1.write_text(sweep_text(1, "1", "10s"))
        c, p, r, r1 = [], [], [], []
        for _ in range(a.repeat):
            c.append(wall(lambda: cli("sweep", str(f200), "--out", str(tmp / "c200"), "--no-progress")))
            p.append(wall(lambda: losslab.sweep(f200, out=tmp / "p200")))
            r.append(wall(lambda: losslab.sweep(f200, out=tmp / "r200", backend="ray", address=address)))
            r1.append(wall(lambda: losslab.sweep(f1, out=tmp / "r1", backend="ray", address=address)))
        print(f"200-run sweep, CLI vs Python: {median_ratio('CLI', c, 'Python', p)}; "
              f"per run {statistics.median(c) / 200 * 1e3:.2f} vs {statistics.median(p) / 200 * 1e3:.2f} ms")
        print(f"200-run sweep, CLI vs Ray:    {median_ratio('CLI', c, 'Ray', r)}; "
              f"per run {statistics.median(c) / 200 * 1e3:.2f} vs {statistics.median(r) / 200 * 1e3:.2f} ms")
        fixed = statistics.median(r1)
        print(f"Ray, a 1-run sweep (driver start, connection, one task): {fixed:.3f} s; "
              f"the 200-run sweep beyond it: {(statistics.median(r) - fixed) / 199 * 1e3:.2f} ms per run")

    # 3. One run at a time: `losslab run --json` per run vs losslab.run.
    c1, p1 = [], []
    args = ["--set", "duration=10s", "--json", "--out", str(tmp / "one")]
    for _ in range(a.repeat):
        c1.append(wall(lambda: [cli("run", str(BASE), "--seed", str(s), *args) for s in range(1, 201)]))
        p1.append(wall(lambda: [losslab.run(BASE, seed=s, set={"duration": "10s"}) for s in range(1, 201)]))
    print(f"200 single runs, `losslab run --json` vs losslab.run: {median_ratio('CLI', c1, 'Python', p1)}")

    # 4. Peak memory of a sweep as its points grow (results stream to disk).
    for n in (100, 1000):
        f = tmp / f"m{n}.toml"
        f.write_text(sweep_text(n, "1", "10s"))
        mb = peak_rss_mb([CLI, "sweep", str(f), "--out", str(tmp / f"m{n}"), "--no-progress"])
        size = (tmp / f"m{n}" / "results.jsonl").stat().st_size / 1e6
        print(f"{n}-point sweep: peak RSS {mb:.1f} MB, results.jsonl {size:.1f} MB")


if __name__ == "__main__":
    main()
