"""losslab.run against `losslab run --json`: the same engine, so the same
document for the same scenario, seed and overrides."""

from __future__ import annotations

import json
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
