"""losslab.run against `losslab run --json`: the same engine, so the same
document for the same scenario, seed and overrides."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import losslab

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = None

CASES = [
    ("examples/bulk-20mbps.toml", ["duration=5s"], 1),
    ("examples/bulk-20mbps.toml", ["duration=5s", "path.loss.p=0.02", "flow.a.recovery=prr"], 7),
    ("examples/three-drops.toml", [], 1),
    ("examples/web-page.toml", [], 3),
    ("examples/gilbert-elliott.toml", ["duration=5s"], 2),
]


def cli_json(cli, args):
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def without_wall(doc):
    return {k: v for k, v in doc.items() if k != "wall_time_s"}


@pytest.mark.parametrize("path,sets,seed", CASES)
def test_one_run_is_the_cli_run(repo, cli, tmp_path, path, sets, seed):
    args = ["run", str(repo / path), "--json", "--seed", str(seed), "--out", str(tmp_path)]
    for s in sets:
        args += ["--set", s]
    want = cli_json(cli, args)
    got = losslab.run(repo / path, seed=seed, set=sets)
    assert "wall_time_s" in got
    assert without_wall(got) == without_wall(want)


def test_seeds_are_the_cli_seeds_and_do_not_depend_on_jobs(repo, cli, tmp_path):
    path = repo / "examples/bulk-20mbps.toml"
    want = cli_json(cli, ["run", str(path), "--json", "--seeds", "1..4", "--set", "duration=5s", "--out", str(tmp_path)])
    one = losslab.run(path, seeds="1..4", set={"duration": "5s"}, jobs=1)
    two = losslab.run(path, seeds=[1, 2, 3, 4], set={"duration": "5s"}, jobs=2)
    assert one == want
    assert two == want
    assert losslab.run(path, seeds=4, set={"duration": "5s"}) == want
    goodput = next(s for s in one["aggregate"] if s["scope"] == "a")["metrics"]["goodput_bps"]
    assert goodput["n"] == 4 and goodput["ci_method"] == "student-t"
    assert goodput["ci95"][0] < goodput["mean"] < goodput["ci95"][1]


@pytest.mark.skipif(tomllib is None, reason="tomllib needs Python 3.11")
def test_a_dict_or_text_scenario_is_the_file(repo):
    path = repo / "examples/three-drops.toml"
    text = path.read_text()
    from_file = without_wall(losslab.run(path))
    assert without_wall(losslab.run(text)) == from_file
    assert without_wall(losslab.run(tomllib.loads(text))) == from_file


def test_set_dict_and_list_agree(repo):
    path = repo / "examples/bulk-20mbps.toml"
    a = losslab.run(path, set={"duration": "3s", "path.loss.p": 0.01, "flow.a.recovery": "rate-halving"})
    b = losslab.run(path, set=["duration=3s", "path.loss.p=0.01", "flow.a.recovery=rate-halving"])
    assert without_wall(a) == without_wall(b)
    assert a["flows"][0]["recovery"] == "rate-halving"
    assert "p = 0.01" in a["path"]["config"]["loss"]


def test_seeds_helper():
    assert losslab.seeds("1..3") == [1, 2, 3]
    assert losslab.seeds(2) == [1, 2]
    assert losslab.seeds([7, 9]) == [7, 9]


@pytest.mark.parametrize(
    "kwargs,needle",
    [
        ({"set": {"path.loss.p": 2.0}}, "path.loss.p"),
        ({"set": ["flow.a.recovery=nonsense"]}, "flow.a.recovery"),
        ({"seeds": "5..1"}, "seeds"),
        ({"seed": 1, "seeds": 3}, "not both"),
    ],
)
def test_bad_input_is_a_value_error_naming_the_key(repo, kwargs, needle):
    with pytest.raises(ValueError, match=needle.replace(".", r"\.")):
        losslab.run(repo / "examples/bulk-20mbps.toml", **kwargs)


def test_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        losslab.run(tmp_path / "nope.toml")


def isolated(code: str) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter: a conversion that crashes the
    interpreter (it once did) fails this test instead of ending pytest."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


REPORT_VALUE_ERROR = """
import losslab
try:
    losslab.run(d)
except ValueError as e:
    print("ValueError:", e)
"""


@pytest.mark.parametrize(
    "build,needle",
    [
        # A dict that holds itself (a segfault before: unbounded recursion).
        ('d = {"path": {"rate": "10Mbps"}}; d["path"]["back"] = d', "path.back: this dict contains itself"),
        ('d = {}; d["x"] = d', "x: this dict contains itself"),
        ('l = []; l.append(l); d = {"flow": l}', "flow[0]: this list contains itself"),
        # 20,000 levels (a segfault before): refused at 64.
        (
            "d = {}\nc = d\nfor _ in range(20000):\n    c['x'] = {}\n    c = c['x']",
            "nested more than 64 levels deep",
        ),
        ("d = {'flow': 1}\nfor _ in range(70):\n    d['flow'] = [d['flow']]", "nested more than 64 levels deep"),
    ],
)
def test_cyclic_or_deep_dicts_are_value_errors_not_crashes(build, needle):
    p = isolated(build + "\n" + REPORT_VALUE_ERROR)
    assert p.returncode == 0, f"exit {p.returncode}: {p.stderr[-2000:]}"
    assert p.stdout.startswith("ValueError: <scenario dict>: "), p.stdout
    assert needle in p.stdout, p.stdout


def test_the_deepest_dict_allowed_converts():
    # 64 levels, the top dict counting as one: refused by the scenario's
    # own checks (an unknown key), not by the converter.
    d: dict = {}
    c = d
    for _ in range(63):
        c["x"] = {}
        c = c["x"]
    with pytest.raises(ValueError, match="unknown key") as e:
        losslab.run(d)
    assert "levels" not in str(e.value)


@pytest.mark.parametrize(
    "scenario,needle",
    [
        ({"path": {"rate": None}}, "path.rate: TOML cannot hold None (NoneType) (leave the key out"),
        ({"path": {"loss": {"p": float("nan")}}}, "path.loss.p: NaN is not a finite number"),
        ({"path": {"delay": float("-inf")}}, "path.delay: -inf is not a finite number"),
        ({"flow": [{"name": "a", 1: "x"}]}, "flow[0]: keys must be strings, got 1 (int)"),
        ({"flow": [{"name": {"a"}}]}, "flow[0].name: TOML cannot hold {'a'} (set)"),
        ({"duration": object()}, "duration: TOML cannot hold <object object"),
        ({"seed": 2**70}, "seed: 1180591620717411303424 is outside TOML's integers"),
        ({"flow": [{"name": "\ud800"}]}, "flow[0].name: a string that is not valid Unicode"),
        ({"odd key": {"x": b"bytes"}}, '"odd key".x: TOML cannot hold b\'bytes\' (bytes)'),
    ],
)
def test_values_toml_cannot_hold_are_value_errors_naming_the_path(repo, scenario, needle):
    with pytest.raises(ValueError) as e:
        losslab.run(scenario)
    assert needle in str(e.value)


def test_set_values_toml_cannot_hold_are_value_errors_naming_the_key(repo):
    path = repo / "examples/three-drops.toml"
    with pytest.raises(ValueError, match=re.escape('set."path.loss.p": inf is not a finite number')):
        losslab.run(path, set={"path.loss.p": float("inf")})
    with pytest.raises(ValueError, match=re.escape("set.duration: TOML cannot hold None")):
        losslab.run(path, set={"duration": None})


@pytest.mark.parametrize(
    "kwargs,needle",
    [
        # Each was truncated or coerced to 1 before.
        ({"seed": 1.9}, "seed: expected an int, got 1.9 (float)"),
        ({"seed": 2.0}, "seed: expected an int, got 2.0 (float)"),
        ({"seed": True}, "seed: expected an int, got True (bool)"),
        ({"seed": "3"}, "seed: expected an int, got '3' (str)"),
        ({"seed": -1}, "seed: expected an int from 0 to 9223372036854775807, got -1"),
        ({"seed": 2**63}, "seed: expected an int from 0 to 9223372036854775807, got 9223372036854775808"),
        ({"seeds": [1.9, 2]}, "seeds[0]: expected an int, got 1.9 (float)"),
        ({"seeds": [1, True]}, "seeds[1]: expected an int, got True (bool)"),
        ({"seeds": [1, 2**63]}, "seeds[1]: expected an int from 0 to 9223372036854775807"),
        ({"seeds": True}, "seeds: expected an int, got True (bool)"),
        ({"seeds": 2.0}, "seeds: expected a count"),
        ({"seeds": "1,9223372036854775808"}, "largest seed allowed is 9223372036854775807"),
        # The command line's --jobs is 1 or more; 0 ran on one thread.
        ({"seeds": 2, "jobs": 0}, "jobs: expected an int 1 or more, got 0"),
        ({"seeds": 2, "jobs": -3}, "jobs: expected an int 1 or more, got -3"),
        ({"seeds": 2, "jobs": 1.5}, "jobs: expected an int, got 1.5 (float)"),
        ({"seeds": 2, "jobs": True}, "jobs: expected an int, got True (bool)"),
    ],
)
def test_seed_seeds_and_jobs_must_be_exact_ints(repo, kwargs, needle):
    with pytest.raises(ValueError) as e:
        losslab.run(repo / "examples/three-drops.toml", **kwargs)
    assert needle in str(e.value)


def test_the_largest_seed_runs(repo):
    r = losslab.run(repo / "examples/three-drops.toml", seed=2**63 - 1)
    assert r["seed"] == 2**63 - 1


def test_native_jobs_0_is_refused_too():
    from losslab import _native

    with pytest.raises(ValueError, match="jobs: expected 1 or more"):
        _native.run_seeds("<t>", "", [], "1..2", 0)


def test_timeseries_frames_are_the_cli_files(repo, cli, tmp_path):
    """run(timeseries=True, packets=True): the DataFrames hold what
    `losslab run --timeseries --trace` writes, row for row and cell for
    cell, beside the same results document."""
    import pandas as pd

    path = repo / "examples/three-drops.toml"
    out = tmp_path / "cli"
    want = cli_json(cli, ["run", str(path), "--json", "--timeseries", "--trace", "--out", str(out)])
    got = losslab.run(path, timeseries=True, packets=True)
    ts, pk = got.pop("timeseries"), got.pop("packets")
    assert without_wall(got) == without_wall(want)
    for frame, name, text_cols in [(ts, "timeseries.csv", {"flow": str}),
                                   (pk, "packets.csv", {"flow": str, "dir": str, "event": str, "sack": str, "dsack": str})]:
        file = pd.read_csv(out / name, dtype=text_cols)
        assert list(frame.columns) == list(file.columns)
        assert len(frame) == len(file) > 10
        pd.testing.assert_frame_equal(frame, file)
    # The series is usable as it is: cwnd after each ACK, times in order.
    assert ts["time_s"].is_monotonic_increasing
    assert (ts["cwnd"] > 0).all()
    # Only the time series unless packets are asked for; one run only.
    only = losslab.run(path, timeseries=True)
    assert "timeseries" in only and "packets" not in only
    with pytest.raises(ValueError, match="one run"):
        losslab.run(path, seeds="1..2", timeseries=True)
    # Bad input is a ValueError naming the key, as for a plain run.
    with pytest.raises(ValueError, match="path.rate"):
        losslab.run(path, timeseries=True, set={"path.rate": "fast"})


def test_a_trace_driven_scenario_runs_from_python(repo, cli, tmp_path):
    """A relative trace in a scenario file is read from the file's folder,
    from Python as from the command line."""
    path = repo / "examples/lte-trace.toml"
    want = cli_json(cli, ["run", str(path), "--json", "--set", "duration=5s", "--out", str(tmp_path)])
    got = losslab.run(path, set={"duration": "5s"})
    assert without_wall(got) == without_wall(want)
    assert got["path"]["config"]["trace"].endswith("traces/lte-markov-1.trace")


def test_the_package_and_the_command_line_are_one_engine(cli):
    # The wheel (maturin, its own profile) and the binary (cargo) built
    # from one checkout carry one engine id; `--ray` relies on it.
    p = subprocess.run([cli, "--version"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    m = re.fullmatch(r"losslab (\S+) \(engine ([0-9a-f]{16})\)\n", p.stdout)
    assert m, p.stdout
    assert m.group(1) == losslab.__version__
    assert m.group(2) == losslab.ENGINE_ID


def test_a_task_refuses_another_engine(repo):
    from losslab._ray import EngineMismatch, run_point

    text = (repo / "examples/three-drops.toml").read_text()
    ours = run_point("three-drops.toml", text, [], [1], losslab.ENGINE_ID)
    assert ours == run_point("three-drops.toml", text, [], [1])
    with pytest.raises(EngineMismatch, match="0123456789abcdef"):
        run_point("three-drops.toml", text, [], [1], "0123456789abcdef")
