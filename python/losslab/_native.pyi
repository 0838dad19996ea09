# Type stubs for losslab._native, the Rust module (crates/losslab-py).
# The public API is losslab.run / losslab.sweep in __init__.py; these are
# its building blocks and may change between versions.
from typing import Any, Dict, List, Optional, Sequence, Tuple

__version__: str
#: The engine's id (losslab_sim::ENGINE_ID): equal for builds of one checkout.
ENGINE_ID: str

def run_one(origin: str, text: str, overrides: Sequence[str]) -> str:
    """One run; the results document as `losslab run --json` prints it."""

def run_json(origin: str, text: str, overrides: Sequence[str]) -> str:
    """One run; the document without wall_time_s, compact (Ray workers)."""

def run_series(
    origin: str, text: str, overrides: Sequence[str], packets: bool
) -> Tuple[str, str, Optional[str]]:
    """One run; its document, timeseries.csv's text and (with packets)
    packets.csv's, as `losslab run --timeseries --trace` writes them."""

def run_seeds(
    origin: str,
    text: str,
    overrides: Sequence[str],
    seeds: str,
    jobs: Optional[int] = None,
) -> str:
    """One run per seed; `losslab run --seeds`' summary.json document."""

def sweep(
    origin: str,
    text: str,
    base: str,
    out: str,
    jobs: Optional[int] = None,
    ray_address: Optional[str] = None,
    python: Optional[str] = None,
    resume: bool = False,
    fail_fast: bool = False,
    progress: bool = False,
) -> Dict[str, Any]:
    """A sweep into `out`: {"columns", "summary", "report", "written", "interrupted"}."""

def seeds_of(spec: str) -> List[int]:
    """The seeds of a spec: "1..20", "20" or "3,7,11"."""

def toml_of(d: Dict[str, Any]) -> str:
    """A dict as TOML text, in the dict's key order; ValueError naming the
    key path for what TOML cannot hold (None, sets, a dict that holds
    itself, nesting over 64 levels, NaN, non-string keys)."""

def set_text(key: str, v: Any) -> str:
    """A value as --set writes it after KEY=; errors name it set.KEY."""
