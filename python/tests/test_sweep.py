"""losslab.sweep against `losslab sweep`, the Ray backend against the
local one, and a sweep's bad input and interruption."""

from __future__ import annotations

import _thread
import json
import subprocess
import sys
import signal
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

import losslab

SWEEP = """\
scenario = "{scenario}"
seeds = "1..3"
set = ["duration=4s"]

[axes]
"path.loss.p" = [0.005, 0.02]
"flow.a.recovery" = ["prr", "rate-halving"]
"""

FILES = ["runs.csv", "summary.csv", "summary.json"]


@pytest.fixture()
def sweep_file(repo, tmp_path) -> Path:
    f = tmp_path / "small.toml"
    f.write_text(SWEEP.format(scenario=repo / "examples/bulk-20mbps.toml"))
    return f


def cli_sweep(cli, file, out, *extra, env=None):
    p = subprocess.run(
        [cli, "sweep", str(file), "--out", str(out), "--no-progress", *extra],
        capture_output=True, text=True, env=env,
    )
    return p


def sorted_lines(path: Path):
    return sorted(path.read_text().splitlines())


def same_outputs(a: Path, b: Path):
    for f in FILES:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f
    assert sorted_lines(a / "results.jsonl") == sorted_lines(b / "results.jsonl")


def test_the_frame_is_the_cli_table(cli, sweep_file, tmp_path):
    p = cli_sweep(cli, sweep_file, tmp_path / "cli")
    assert p.returncode == 0, p.stderr
    df = losslab.sweep(sweep_file, out=tmp_path / "py")
    same_outputs(tmp_path / "cli", tmp_path / "py")
    assert len(df) == 4 * 3
    assert list(df.columns[:4]) == ["point", "seed", "path.loss.p", "flow.a.recovery"]
    parquet = pd.read_parquet(tmp_path / "cli" / "runs.parquet")
    pd.testing.assert_frame_equal(df, parquet, check_dtype=False)
    csv = pd.read_csv(tmp_path / "cli" / "runs.csv")
    pd.testing.assert_frame_equal(df, csv, check_dtype=False)
    summary = json.loads((tmp_path / "cli" / "summary.json").read_text())
    assert df.attrs["summary"] == summary
    assert [p["point"] for p in summary["points"]] == [0, 1, 2, 3]


def test_a_dict_or_text_sweep_is_the_file(repo, sweep_file, tmp_path):
    text = sweep_file.read_text()
    a = losslab.sweep(sweep_file)
    b = losslab.sweep(text)
    c = losslab.sweep(
        {
            "scenario": str(repo / "examples/bulk-20mbps.toml"),
            "seeds": "1..3",
            "set": ["duration=4s"],
            "axes": {"path.loss.p": [0.005, 0.02], "flow.a.recovery": ["prr", "rate-halving"]},
        }
    )
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)


def test_an_inline_scenario_dict(repo):
    scenario = {
        "name": "inline",
        "duration": "3s",
        "path": {"rate": "10Mbps", "delay": "20ms", "queue": "100pkt", "loss": {"model": "bernoulli", "p": 0.01}},
        "flow": [{"name": "a", "app": {"kind": "bulk"}}],
    }
    df = losslab.sweep({"scenario": scenario, "seeds": 2, "axes": {"flow.a.recovery": ["prr", "rfc6675"]}})
    assert len(df) == 4
    assert set(df["flow.a.recovery"]) == {"prr", "rfc6675"}
    assert df.attrs["summary"]["scenario"] == "<sweep dict> [scenario]"


@pytest.mark.parametrize(
    "change,needle",
    [
        ({"axes": {"path.nonsense": [1, 2]}}, "path.nonsense"),
        ({"axes": {"path.loss.p": []}}, "empty"),
        ({"seeds": "5..1"}, "seeds"),
        ({"mode": "diagonal"}, "mode"),
    ],
)
def test_bad_sweeps_raise_value_error_naming_the_key(repo, change, needle):
    sweep = {
        "scenario": str(repo / "examples/bulk-20mbps.toml"),
        "seeds": 2,
        "axes": {"path.loss.p": [0.01]},
    }
    sweep.update(change)
    with pytest.raises(ValueError, match=needle):
        losslab.sweep(sweep)


def test_an_invalid_point_is_reported_and_the_sweep_goes_on(repo):
    sweep = {
        "scenario": str(repo / "examples/bulk-20mbps.toml"),
        "seeds": 2,
        "set": ["duration=2s"],
        "axes": {"path.rate": ["0Mbps", "10Mbps"]},
    }
    df = losslab.sweep(sweep)
    assert set(df["point"]) == {1}
    bad = df.attrs["summary"]["points"][0]
    assert bad["error"] and "path.rate" in bad["error"]
    with pytest.raises(ValueError, match="path.rate"):
        losslab.sweep(sweep, fail_fast=True)


def complete_lines(path: Path) -> int:
    """Lines of `path` written whole: a run's line may be seen half
    written, and only its newline makes it a finished run."""
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


#: Only guards against a hang: nothing waits this long unless broken.
DEADLINE_S = 120.0


def test_ctrl_c_keeps_finished_runs_and_resume_completes(repo, tmp_path):
    sweep = {
        "scenario": str(repo / "examples/bulk-20mbps.toml"),
        "seeds": "1..6",
        "set": ["duration=60s", "path.rate=1Gbps", "path.queue=12MB", "flow.a.cc=cubic"],
        "axes": {"path.loss.p": [0.000001, 0.000002]},
    }
    out = tmp_path / "cut"
    jsonl = out / "results.jsonl"
    # Ctrl-C once the first run has finished, however long that takes on
    # this machine (a fixed delay raced the machine's load: the sweep
    # might not have started, or might have finished).
    finished = threading.Event()
    watching = threading.Event()
    watching.set()

    def interrupt_after_the_first_run() -> None:
        deadline = time.monotonic() + DEADLINE_S
        while watching.is_set() and time.monotonic() < deadline:
            if complete_lines(jsonl) >= 1:
                finished.set()
                break
            time.sleep(0.02)
        if watching.is_set():
            _thread.interrupt_main()

    # A process started in the background (nohup, `cmd &` without job
    # control) inherits SIGINT ignored, and then Python installs no
    # handler and interrupt_main() does nothing: install Python's own.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    watcher = threading.Thread(target=interrupt_after_the_first_run, daemon=True)
    watcher.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            losslab.sweep(sweep, out=out, jobs=2)
    finally:
        watching.clear()
        watcher.join()
        signal.signal(signal.SIGINT, previous)
    assert finished.is_set(), f"no run finished in {DEADLINE_S} s"
    # The runs take the same time, so Ctrl-C right after the first leaves
    # most unfinished; the ones that finished are kept.
    done = complete_lines(jsonl)
    assert 1 <= done < 12, done
    assert (out / "runs.csv").exists()
    assert len(pd.read_csv(out / "runs.csv")) == done
    full = losslab.sweep(sweep, out=out, resume=True)
    assert len(full) == 12
    assert complete_lines(jsonl) == 12
    fresh = losslab.sweep(sweep, out=tmp_path / "fresh")
    pd.testing.assert_frame_equal(full, fresh)
    same_outputs(out, tmp_path / "fresh")


def test_an_unreachable_ray_address_is_bad_input(cli, sweep_file, tmp_path):
    # Port 1 on loopback: nothing listens there.
    started = time.time()
    with pytest.raises(ValueError, match="127.0.0.1:1"):
        losslab.sweep(sweep_file, backend="ray", address="127.0.0.1:1")
    p = cli_sweep(cli, sweep_file, tmp_path / "x", "--ray", "127.0.0.1:1")
    assert p.returncode == 2
    assert "127.0.0.1:1" in p.stderr and "cannot reach" in p.stderr
    assert not (tmp_path / "x").exists(), "nothing is written before the cluster answers"
    assert time.time() - started < 20


def test_ray_gives_the_local_results(cli, sweep_file, tmp_path, ray_head, monkeypatch):
    address, env = ray_head
    for k in ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "RAY_USAGE_STATS_ENABLED"):
        monkeypatch.setenv(k, env[k])
    local = tmp_path / "local"
    p = cli_sweep(cli, sweep_file, local)
    assert p.returncode == 0, p.stderr
    # The command line's --ray, with this interpreter's package.
    p = cli_sweep(cli, sweep_file, tmp_path / "cli-ray", "--ray", address, "--python", sys.executable, env=env)
    assert p.returncode == 0, p.stderr
    assert "on Ray at" in p.stdout
    same_outputs(local, tmp_path / "cli-ray")
    # The Python API's backend="ray".
    df = losslab.sweep(sweep_file, backend="ray", address=address, out=tmp_path / "py-ray")
    same_outputs(local, tmp_path / "py-ray")
    pd.testing.assert_frame_equal(df, losslab.sweep(sweep_file))
