"""The work of one Ray task of a sweep: a point's seeds, run by the engine
on whichever node Ray chose. Kept apart from the driver so that workers
import only this and the engine (see crates/losslab/src/ray.rs for the
protocol)."""

from __future__ import annotations

from typing import List, Sequence, Tuple


def run_point(origin: str, text: str, overrides: Sequence[str], seeds: Sequence[int]) -> List[Tuple[int, str]]:
    """Each seed's results document (compact JSON, no wall time), in order."""
    from . import _native

    return [(int(s), _native.run_json(origin, text, [*overrides, f"seed={int(s)}"])) for s in seeds]
