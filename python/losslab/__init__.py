"""losslab from Python: run scenarios and sweeps with the losslab engine.

The engine is the command line's own Rust code, called in-process
(``losslab._native``, built with PyO3), not a subprocess: ``run`` returns
the document ``losslab run --json`` prints, and ``sweep`` the table
``losslab sweep`` writes as runs.csv / runs.parquet.

A scenario or a sweep may be given as a path, as TOML text, or as a dict
shaped like the TOML (docs/SCENARIO.md)::

    import losslab
    r = losslab.run("examples/bulk-20mbps.toml", seed=3, set={"path.loss.p": 0.02})
    r["flows"][0]["goodput_bps"]

    s = losslab.run("examples/bulk-20mbps.toml", seeds="1..20")
    s["aggregate"]          # mean, sd and 95% CI of every metric

    df = losslab.sweep({
        "scenario": "examples/bulk-20mbps.toml",
        "seeds": "1..5",
        "axes": {"path.loss.p": [0.005, 0.02],
                 "flow.a.recovery": ["prr", "rate-halving"]},
    })
    df.groupby(["path.loss.p", "flow.a.recovery"])["a.goodput_bps"].mean()

Errors in what you pass raise ValueError (the message names the key and
the form it expects, as the command line's exit code 2 does); Ctrl-C
raises KeyboardInterrupt after a sweep has written its finished runs.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native

if TYPE_CHECKING:  # pandas is an optional extra: losslab[dataframe]
    import pandas  # type: ignore[import-untyped, unused-ignore]

__version__: str = _native.__version__
#: The engine's id, as `losslab --version` shows it: the same for every
#: build of one checkout, another for any change to the engine's code.
ENGINE_ID: str = _native.ENGINE_ID
__all__ = ["run", "sweep", "seeds", "__version__", "ENGINE_ID"]

#: A scenario or sweep: a path, TOML text, or a dict shaped like the TOML.
Source = Union[str, "os.PathLike[str]", Mapping[str, Any]]
#: Seeds: a count (1..N), a spec such as "1..20" or "3,7,11", or a list.
Seeds = Union[int, str, Sequence[int]]
#: --set overrides: {"path.loss.p": 0.01} or ["path.loss.p=0.01"].
Overrides = Union[Mapping[str, Any], Sequence[str], None]


def _is_text(s: str) -> bool:
    # TOML text has a key = value or a [table]; a path has neither.
    return "\n" in s or "=" in s or s.lstrip().startswith("[")


#: The largest seed: TOML's integers, which hold the seed, are 64-bit.
_MAX_SEED = 2**63 - 1


def _source(obj: Source, what: str) -> Tuple[str, str, Path]:
    """(origin for messages, TOML text, folder relative paths start from)."""
    if isinstance(obj, Mapping):
        origin = f"<{what} dict>"
        try:
            # The dict itself, not a copy: a value that refers back to it
            # is then caught as a cycle at its own key.
            text = _native.toml_of(obj if isinstance(obj, dict) else dict(obj))
        except ValueError as e:
            raise ValueError(f"{origin}: {e}") from None
        return origin, text, Path.cwd()
    if isinstance(obj, str) and _is_text(obj):
        return f"<{what} text>", obj, Path.cwd()
    if isinstance(obj, (str, os.PathLike)):
        p = Path(obj)
        return str(p), p.read_text(), p.parent
    raise TypeError(f"{what}: expected a path, TOML text or a dict, not {type(obj).__name__}")


def _overrides(set: Overrides) -> List[str]:
    if set is None:
        return []
    if isinstance(set, Mapping):
        return [f"{k}={_native.set_text(k, v)}" for k, v in set.items()]
    if isinstance(set, str):
        return [set]
    return [str(s) for s in set]


def _whole(name: str, x: Any, low: int, high: Optional[int] = None) -> int:
    """``x`` if it is an int (not a bool: True is not a seed) in
    [low, high]; else ValueError naming the argument. A float is refused
    even when integral: 1.9 would otherwise be truncated to 1."""
    if isinstance(x, bool) or not isinstance(x, int):
        raise ValueError(f"{name}: expected an int, got {x!r} ({type(x).__name__})")
    if x < low or (high is not None and x > high):
        limit = f"from {low} to {high}" if high is not None else f"{low} or more"
        raise ValueError(f"{name}: expected an int {limit}, got {x}")
    return x


def _seed_spec(seeds: Seeds) -> str:
    if isinstance(seeds, str):
        return seeds
    if isinstance(seeds, (bool, int)):
        return str(_whole("seeds", seeds, 1))
    if isinstance(seeds, Sequence) and not isinstance(seeds, (bytes, bytearray)):
        return ",".join(str(_whole(f"seeds[{i}]", s, 0, _MAX_SEED)) for i, s in enumerate(seeds))
    raise ValueError(
        f"seeds: expected a count, a spec such as '1..20', or a list of ints, got {seeds!r}"
    )


def seeds(spec: Seeds) -> List[int]:
    """The seeds a spec names: ``seeds("1..3") == [1, 2, 3]``,
    ``seeds(3) == [1, 2, 3]``, ``seeds([7, 9]) == [7, 9]``."""
    return _native.seeds_of(_seed_spec(spec))


def run(
    scenario: Source,
    *,
    seeds: Optional[Seeds] = None,
    seed: Optional[int] = None,
    set: Overrides = None,
    jobs: Optional[int] = None,
    timeseries: bool = False,
    packets: bool = False,
) -> Dict[str, Any]:
    """Simulate a scenario and return its results document.

    Without ``seeds``: one run (with ``seed``, else the scenario's own), and
    the document ``losslab run --json`` prints, as dicts and lists: ``path``,
    ``flows`` (goodput_bps, retransmissions, timeouts, rtt_ms, ...), ``seed``
    and ``wall_time_s``.

    With ``seeds``: one run per seed, in parallel on ``jobs`` threads
    (default: every core), and the document ``losslab run --seeds`` writes
    as summary.json: ``aggregate`` holds every metric's n, mean, sd, ci95
    and ci_method per flow and for the path; ``runs`` holds each seed's
    document. The result does not depend on ``jobs``.

    ``set`` overrides keys as ``--set`` does: ``{"path.loss.p": 0.02,
    "flow.a.recovery": "prr"}`` or ``["path.loss.p=0.02"]``.

    ``timeseries=True`` (one run only) adds ``"timeseries"``: a pandas
    DataFrame with one row per ACK the sender processed (``time_s``,
    ``flow``, ``cwnd``, ``ssthresh``, ``pipe``, ``inflight``, ``srtt_ms``,
    ``rto_ms``, ``snd_una``, ``snd_nxt``, ``pacing_mbps``), the table
    ``losslab run --timeseries`` writes as timeseries.csv (docs/TRACES.md).
    ``packets=True`` adds ``"packets"`` (and ``"timeseries"`` as well): one
    row per packet event, the table ``--trace`` writes as packets.csv. Both need pandas
    (``pip install 'losslab[dataframe]'``) and memory for the whole table.
    """
    if seed is not None:
        seed = _whole("seed", seed, 0, _MAX_SEED)
    if jobs is not None:
        jobs = _whole("jobs", jobs, 1)
    origin, text, _ = _source(scenario, "scenario")
    overrides = _overrides(set)
    if (timeseries or packets) and seeds is not None:
        raise ValueError("run: timeseries and packets go with one run, not seeds")
    if seeds is not None:
        if seed is not None:
            raise ValueError("run: give seed or seeds, not both")
        doc = _native.run_seeds(origin, text, overrides, _seed_spec(seeds), jobs)
        out: Dict[str, Any] = json.loads(doc)
        return out
    if jobs is not None:
        raise ValueError("run: jobs goes with seeds")
    if seed is not None:
        overrides.append(f"seed={seed}")
    if timeseries or packets:
        return _run_series(origin, text, overrides, packets)
    one: Dict[str, Any] = json.loads(_native.run_one(origin, text, overrides))
    return one


def _run_series(origin: str, text: str, overrides: List[str], packets: bool) -> Dict[str, Any]:
    try:
        import io

        import pandas as pd
    except ImportError:  # pragma: no cover - the extra is documented
        raise ImportError(
            "run(timeseries=True) needs pandas: pip install 'losslab[dataframe]'"
        ) from None
    doc, series, log = _native.run_series(origin, text, overrides, packets)
    out: Dict[str, Any] = json.loads(doc)
    # Flow names stay text even when they look like numbers; an empty
    # cell (an ssthresh never set, no pacing) is NaN.
    out["timeseries"] = pd.read_csv(io.StringIO(series), dtype={"flow": str})
    if log is not None:
        out["packets"] = pd.read_csv(
            io.StringIO(log), dtype={"flow": str, "dir": str, "event": str, "sack": str, "dsack": str}
        )
    return out


def sweep(
    sweep: Source,
    *,
    out: Union[str, "os.PathLike[str]", None] = None,
    jobs: Optional[int] = None,
    backend: str = "local",
    address: Optional[str] = None,
    resume: bool = False,
    fail_fast: bool = False,
    progress: bool = False,
) -> "pandas.DataFrame":
    """Run a sweep and return its runs as a pandas DataFrame.

    ``sweep`` is a sweep file, its TOML text, or a dict of the same keys
    (docs/SCENARIO.md, "Sweeps"): ``scenario`` (a path, or the scenario as a
    dict), ``seeds``, ``mode`` ("grid" or "zip"), ``set`` and ``axes``.

    The frame has one row per point x seed: ``point``, ``seed``, a column per
    axis, and a column per ``scope.metric`` (``a.goodput_bps``,
    ``path.loss_drops``, ...), exactly runs.csv / runs.parquet.
    ``df.attrs["summary"]`` holds summary.json (mean and 95% CI per point)
    and ``df.attrs["report"]`` the command line's printout.

    ``backend="local"`` runs on ``jobs`` threads (default every core);
    ``backend="ray"`` sends each point to the Ray cluster at ``address``
    (default "auto": the one ``ray start --head`` started here) as a task,
    with the same results. Files go to ``out`` (kept, and ``resume=True``
    continues an interrupted sweep there) or to a temporary folder.
    A point whose scenario is invalid is reported in the summary and the
    sweep goes on, unless ``fail_fast``.
    """
    try:
        import pandas as pd
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ImportError(
            "losslab.sweep returns a pandas DataFrame: pip install 'losslab[dataframe]'"
        ) from e
    if backend not in ("local", "ray"):
        raise ValueError(f"sweep: backend must be 'local' or 'ray', not {backend!r}")
    if backend == "ray" and jobs is not None:
        raise ValueError("sweep: jobs is for backend='local'; Ray places the tasks itself")
    if jobs is not None:
        jobs = _whole("jobs", jobs, 1)
    if resume and out is None:
        raise ValueError("sweep: resume needs the out folder of the sweep to continue")
    origin, text, base = _source(sweep, "sweep")
    ray_address = (address or "auto") if backend == "ray" else None

    def go(folder: str) -> Dict[str, Any]:
        return _native.sweep(
            origin,
            text,
            str(base),
            folder,
            jobs=jobs,
            ray_address=ray_address,
            python=sys.executable,
            resume=resume,
            fail_fast=fail_fast,
            progress=progress,
        )

    if out is None:
        with tempfile.TemporaryDirectory(prefix="losslab-sweep-") as tmp:
            r = go(tmp)
    else:
        r = go(os.fspath(out))
    df = pd.DataFrame(r["columns"])
    df.attrs["summary"] = json.loads(r["summary"])
    df.attrs["report"] = r["report"]
    df.attrs["out"] = None if out is None else os.fspath(out)
    df.attrs["interrupted"] = r["interrupted"]
    return df
