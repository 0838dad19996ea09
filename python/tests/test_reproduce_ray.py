"""`losslab reproduce --ray` against a local run: the same files, and an
unreachable cluster refused before anything is run or written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# The LE paper's --quick: its Figures 5, 6 and 9 run their batches through
# common::run_cases, the part --ray sends to the cluster, in seconds.
PAPER = "le"
FILES = ["results.json", "claims.csv", "index.html"]


def reproduce(cli, out: Path, *extra, env=None):
    return subprocess.run(
        [cli, "reproduce", PAPER, "--quick", "--out", str(out), *extra],
        capture_output=True, text=True, env=env,
    )


def test_reproduce_on_ray_writes_the_local_files(cli, tmp_path, ray_head, monkeypatch):
    address, env = ray_head
    for k in ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "RAY_USAGE_STATS_ENABLED"):
        monkeypatch.setenv(k, env[k])
    local = tmp_path / "local"
    p = reproduce(cli, local)
    assert p.returncode == 0, p.stderr
    on_ray = tmp_path / "ray"
    p = reproduce(cli, on_ray, "--ray", address, "--python", sys.executable, env=env)
    assert p.returncode == 0, p.stderr
    for f in FILES:
        assert (local / PAPER / f).read_bytes() == (on_ray / PAPER / f).read_bytes(), f
    # Every run directory and picture too.
    a = sorted(x.relative_to(local) for x in local.rglob("*") if x.is_file() and ".losslab" not in x.parts)
    b = sorted(x.relative_to(on_ray) for x in on_ray.rglob("*") if x.is_file() and ".losslab" not in x.parts)
    assert a == b
    for rel in a:
        assert (local / rel).read_bytes() == (on_ray / rel).read_bytes(), rel


def test_an_unreachable_cluster_is_bad_input(cli, tmp_path):
    # Port 1 on loopback: nothing listens there.
    p = reproduce(cli, tmp_path / "x", "--ray", "127.0.0.1:1")
    assert p.returncode == 2, p.stderr
    assert "127.0.0.1:1" in p.stderr and "cannot reach" in p.stderr
    assert not (tmp_path / "x").exists(), "nothing is written before the cluster answers"
