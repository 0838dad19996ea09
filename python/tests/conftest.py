"""Shared fixtures: the repository, the `losslab` command to compare with,
and a single-node Ray cluster on 127.0.0.1 that the tests start and stop
themselves."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def cli() -> str:
    """The losslab binary: $LOSSLAB_BIN, else target/release/losslab."""
    b = os.environ.get("LOSSLAB_BIN") or str(REPO / "target" / "release" / "losslab")
    if not Path(b).exists():
        pytest.fail(f"no losslab binary at {b}: run `cargo build --release` first (or set LOSSLAB_BIN)")
    return b


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def ray_head(tmp_path_factory):
    """`ray start --head` on 127.0.0.1 (the documented single-node case),
    in a session of its own so that teardown ends exactly the processes it
    started. Yields (address, environment for the Python driver)."""
    if shutil.which("ray") is None:
        pytest.fail("Ray is not installed: pip install './[test]'")
    env = dict(os.environ)
    # Keep every Ray socket on loopback: without this Ray binds and dials
    # the host's outward address.
    env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    port = _free_port()
    temp = tmp_path_factory.mktemp("ray")
    log = open(temp / "head.log", "w")
    head = subprocess.Popen(
        [
            "ray", "start", "--head", "--block",
            "--node-ip-address", "127.0.0.1", "--port", str(port),
            "--num-cpus", "2", "--include-dashboard", "false",
            "--disable-usage-stats", "--temp-dir", str(temp),
        ],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    address = f"127.0.0.1:{port}"
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
                _end_session(head.pid, signal.SIGKILL)
                pytest.fail(f"ray start --head did not come up; see {temp / 'head.log'}")
            time.sleep(1)
    try:
        yield address, env
    finally:
        # Every Ray process of this head is in the session the head started
        # (start_new_session); Ray's workers make process groups of their
        # own but stay in it. End the session's processes, politely first.
        # `ray stop` would end every Ray on the machine, not only ours.
        _end_session(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        _end_session(head.pid, signal.SIGKILL)
        head.wait()
        log.close()


def _end_session(sid: int, sig: int) -> None:
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
