"""Shared fixtures: the repository, the `losslab` command to compare with,
and a single-node Ray cluster on 127.0.0.1 that the tests start and stop
themselves."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import ray_local  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def cli() -> str:
    """The losslab binary: $LOSSLAB_BIN, else target/release/losslab, else
    target/debug/losslab (what the README's first test line, `cargo test
    --workspace`, builds)."""
    if os.environ.get("LOSSLAB_BIN"):
        b = os.environ["LOSSLAB_BIN"]
        if not Path(b).exists():
            pytest.fail(f"no losslab binary at {b} (LOSSLAB_BIN)")
        return b
    for profile in ("release", "debug"):
        b = REPO / "target" / profile / "losslab"
        if b.exists():
            return str(b)
    pytest.fail("no losslab binary at target/release/losslab or target/debug/losslab: "
                "run `cargo test --workspace` or `cargo build --release` first (or set LOSSLAB_BIN)")


@pytest.fixture(scope="session")
def ray_head(tmp_path_factory):
    """`ray start --head` on 127.0.0.1 (the documented single-node case);
    teardown ends exactly the processes it started (ray_local.py). Yields
    (address, environment for the Python driver)."""
    if shutil.which("ray") is None:
        pytest.fail("Ray is not installed: pip install './[test]'")
    try:
        with ray_local.ray_head(tmp_path_factory.mktemp("ray"), cpus=2) as head:
            yield head
    except RuntimeError as e:
        pytest.fail(str(e))
