"""`losslab reproduce --ray` against a local run: the same files; an
unreachable cluster refused before anything is run or written; a cluster
whose engine is another build refused task by task."""

from __future__ import annotations

import hashlib
import json
import os
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


def kept_local_run(cli) -> Path | None:
    """The local run the Rust tests already made with this very binary
    (.ci/run: $LOSSLAB_KEEP_QUICK, crates/losslab/tests/integration/
    common/mod.rs `keep_whole_run`), so that CI makes it once; None when
    there is none or another binary made it."""
    keep = os.environ.get("LOSSLAB_KEEP_QUICK")
    if not keep:
        return None
    made_by = Path(keep) / f"{PAPER}.binary-sha256"
    if not (made_by.is_file() and (Path(keep) / PAPER / "results.json").is_file()):
        return None
    sha = hashlib.sha256(Path(cli).read_bytes()).hexdigest()
    return Path(keep) if made_by.read_text().strip() == sha else None


def files(root: Path) -> list[Path]:
    """The paper's files under `root` but the bookkeeping and timings.csv
    (the machine's; the Rust test asks for it)."""
    base = root / PAPER
    return sorted(x.relative_to(root) for x in base.rglob("*")
                  if x.is_file() and ".losslab" not in x.relative_to(base).parts
                  and x.relative_to(base) != Path("timings.csv"))


def test_reproduce_on_ray_writes_the_local_files(cli, tmp_path, ray_head, monkeypatch):
    address, env = ray_head
    for k in ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "RAY_USAGE_STATS_ENABLED"):
        monkeypatch.setenv(k, env[k])
    local = kept_local_run(cli)
    if local is None:
        local = tmp_path / "local"
        p = reproduce(cli, local)
        assert p.returncode == 0, p.stderr
    on_ray = tmp_path / "ray"
    p = reproduce(cli, on_ray, "--ray", address, "--python", sys.executable, env=env)
    assert p.returncode == 0, p.stderr
    for f in FILES:
        assert (local / PAPER / f).read_bytes() == (on_ray / PAPER / f).read_bytes(), f
    # Every run directory and picture too.
    a, b = files(local), files(on_ray)
    assert a == b
    for rel in a:
        assert (local / rel).read_bytes() == (on_ray / rel).read_bytes(), rel


def test_an_unreachable_cluster_is_bad_input(cli, tmp_path):
    # Port 1 on loopback: nothing listens there.
    p = reproduce(cli, tmp_path / "x", "--ray", "127.0.0.1:1")
    assert p.returncode == 2, p.stderr
    assert "127.0.0.1:1" in p.stderr and "cannot reach" in p.stderr
    assert not (tmp_path / "x").exists(), "nothing is written before the cluster answers"


def test_a_cluster_with_another_engine_runs_nothing(repo, ray_head):
    # The driver as the command line starts it (crates/losslab/src/ray.rs),
    # told that the caller's engine is another: every task refuses.
    address, env = ray_head
    driver = subprocess.Popen(
        [sys.executable, "-m", "losslab._ray_driver", address],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )
    assert driver.stdin is not None and driver.stdout is not None
    ready = json.loads(driver.stdout.readline())
    assert ready.get("ready") is True, ready
    text = (repo / "examples/three-drops.toml").read_text()
    head = {"origin": "three-drops.toml", "scenario": text, "engine": "0123456789abcdef"}
    driver.stdin.write(json.dumps(head) + "\n")
    for point in range(2):
        driver.stdin.write(json.dumps({"point": point, "overrides": [], "seeds": [1, 2]}) + "\n")
    driver.stdin.close()
    lines = [json.loads(x) for x in driver.stdout]
    assert driver.wait(timeout=120) == 0
    assert lines[-1] == {"done": True}
    errors = sorted(x["point"] for x in lines[:-1] if "error" in x)
    assert errors == [0, 1], lines
    assert not any("results" in x for x in lines), "no run of another engine comes back"
    assert all("0123456789abcdef" in x["error"] and "same build" in x["error"] for x in lines[:-1])
