"""`python -m losslab._ray_driver ADDRESS`: the Ray side of a sweep.

Started by `losslab sweep --ray ADDRESS` and `losslab.sweep(...,
backend="ray")` (crates/losslab/src/ray.rs, which documents the JSON-lines
protocol). It connects to the cluster, reads the base scenario and one
line per point on stdin, runs every point as a Ray task
(losslab._ray.run_point), and writes each run's results on stdout as the
tasks finish. Only protocol lines go to stdout; Ray's own output is sent
to stderr.
"""

from __future__ import annotations

import json
import os
import sys
import logging
from typing import Any, Dict, List, TextIO


def _protocol_out() -> TextIO:
    # Keep the real stdout for the protocol and point fd 1 at stderr, so a
    # library that prints cannot corrupt it.
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def main(argv: List[str]) -> int:
    out = _protocol_out()

    def say(obj: Dict[str, Any]) -> None:
        out.write(json.dumps(obj) + "\n")
        out.flush()

    if len(argv) != 2:
        say({"error": "usage: python -m losslab._ray_driver ADDRESS"})
        return 2
    address = argv[1]
    try:
        import ray
    except ImportError:
        say({"error": f"Ray is not installed for {sys.executable} (pip install 'ray')"})
        return 2
    try:
        # A cluster whose nodes lack this package gets it through the
        # job's runtime environment, e.g. {"py_modules": ["dist/losslab-...whl"]}.
        runtime_env = json.loads(os.environ.get("LOSSLAB_RAY_RUNTIME_ENV") or "null")
    except ValueError as e:
        say({"error": f"LOSSLAB_RAY_RUNTIME_ENV: not JSON ({e})"})
        return 2
    try:
        ray.init(
            address=None if address == "local" else address,
            runtime_env=runtime_env,
            logging_level=logging.ERROR,
            log_to_driver=False,
            configure_logging=True,
        )
    except Exception as e:  # Ray raises many kinds; all mean "not connected"
        say({"error": f"cannot connect to a Ray cluster: {e}"})
        return 2
    from losslab._ray import run_point

    task = ray.remote(num_cpus=1)(run_point)
    cpus = ray.cluster_resources().get("CPU", 0.0)  # type: ignore[no-untyped-call, unused-ignore]
    say({"ready": True, "cpus": cpus})

    head = json.loads(sys.stdin.readline())
    points = [json.loads(line) for line in sys.stdin if line.strip()]
    text = ray.put(head["scenario"])
    # A point with a scenario of its own (losslab reproduce --ray) runs it.
    # Passed only when the caller sent one, so that a worker whose
    # run_point predates the check still serves an older caller.
    engine = [head["engine"]] if "engine" in head else []
    pending = {
        task.remote(head["origin"], p["scenario"] if "scenario" in p else text, p["overrides"], p["seeds"], *engine): p["point"]
        for p in points
    }
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            point = pending.pop(ref)
            try:
                runs = ray.get(ref)
            except Exception as e:
                why = str(e).splitlines()[-1] if str(e) else repr(e)
                if "run_point()" in why and "positional argument" in why:
                    # A node's wheel from before engine ids: its run_point
                    # takes no engine, so it is another build for sure.
                    why = ("this node's losslab package is older than the caller's (it checks no engine id): "
                           "install the same build on the cluster; another engine could change the results silently")
                say({"point": point, "error": why})
                continue
            for seed, results in runs:
                # The engine's JSON goes through as text: no float is
                # parsed and printed again on the way.
                out.write(f'{{"point":{point},"seed":{seed},"results":{results}}}\n')
            out.flush()
    say({"done": True})
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except KeyboardInterrupt:
        sys.exit(130)
