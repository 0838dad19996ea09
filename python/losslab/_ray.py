"""The work of one Ray task of a sweep: a point's seeds, run by the engine
on whichever node Ray chose. Kept apart from the driver so that workers
import only this and the engine (see crates/losslab/src/ray.rs for the
protocol)."""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple


class EngineMismatch(RuntimeError):
    """This node's engine is not the one the command line runs."""


def run_point(
    origin: str,
    text: str,
    overrides: Sequence[str],
    seeds: Sequence[int],
    engine: Optional[str] = None,
) -> List[Tuple[int, str]]:
    """Each seed's results document (compact JSON, no wall time), in order.

    `engine` is the caller's engine id (losslab_sim::ENGINE_ID): a node
    whose wheel was built from other code refuses, rather than return
    other numbers under the caller's name. None (a caller that predates
    the id) runs without the check."""
    from . import _native

    mine = getattr(_native, "ENGINE_ID", None)
    if engine is not None and engine != mine:
        raise EngineMismatch(
            f"this node's losslab engine is {mine or 'older than engine ids'}, the caller's is {engine}: "
            "install the same build on the cluster (a wheel of the same checkout, e.g. through "
            "LOSSLAB_RAY_RUNTIME_ENV='{\"py_modules\": [\"dist/losslab-....whl\"]}'); "
            "another engine could change the results silently"
        )
    return [(int(s), _native.run_json(origin, text, [*overrides, f"seed={int(s)}"])) for s in seeds]
