"""A single-node Ray head on 127.0.0.1 that ends exactly the processes it
started: the documented `ray start --head` case, for the tests
(conftest.py) and for scripts/bench_python.py."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterator, Tuple


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def end_session(sid: int, sig: int) -> None:
    """Sends `sig` to every process of session `sid`."""
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        # Fields after the command name "(...)": state ppid pgrp session.
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[3]) == sid:
            try:
                os.kill(int(d.name), sig)
            except ProcessLookupError:
                pass


@contextmanager
def ray_head(temp: Path, cpus: int) -> Iterator[Tuple[str, Dict[str, str]]]:
    """Starts `ray start --head` in a session of its own and yields (its
    address, the environment a driver needs); ends the session's processes
    afterwards. Raises RuntimeError if the head does not come up."""
    env = dict(os.environ)
    # Keep every Ray socket on loopback: without this Ray binds and dials
    # the host's outward address.
    env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    port = _free_port()
    log = open(temp / "head.log", "w")
    head = subprocess.Popen(
        [
            "ray", "start", "--head", "--block",
            "--node-ip-address", "127.0.0.1", "--port", str(port),
            "--num-cpus", str(cpus), "--include-dashboard", "false",
            "--disable-usage-stats", "--temp-dir", str(temp),
        ],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                subprocess.run(
                    [sys.executable, "-c", f"import ray; ray.init(address='{address}', logging_level='ERROR'); ray.shutdown()"],
                    env=env, check=True, capture_output=True, timeout=60,
                )
                break
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
                if head.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"ray start --head did not come up; see {temp / 'head.log'}")
                time.sleep(1)
        yield address, env
    finally:
        # Ray's workers make process groups of their own but stay in the
        # head's session. `ray stop` would end every Ray on the machine,
        # not only ours.
        end_session(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        end_session(head.pid, signal.SIGKILL)
        head.wait()
        log.close()
