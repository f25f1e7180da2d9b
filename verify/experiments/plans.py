"""The paper-A sweeps shared by SX-4 and SX-7 (one definition, cached within a process)."""

import functools
import os

from verify.experiments.xor_sweeps import run_sweep

FAST_M_GRID = (8, 16, 24, 32, 48, 64)
FULL_DS = (100, 1000, 10000, 100000, 1000000)


@functools.lru_cache(maxsize=None)
def fast_cells(d, seeds):
    """One-step success cells at ``d`` over :data:`FAST_M_GRID` (same seeds -> same cells)."""
    return tuple(run_sweep([d], list(FAST_M_GRID), seeds))


def full_cells(tmp_path):
    """The full plan: >= 200 seeds at small d, fewer at large d; resumable through
    BOOLVERIFY_XOR_SWEEP_FILE (e.g. docs/data/xor_sweep.json)."""
    out = os.environ.get("BOOLVERIFY_XOR_SWEEP_FILE") or tmp_path / "sweep.json"
    g1 = [4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]
    return (run_sweep([100], g1, 1000, out=out) + run_sweep([1000], g1, 400, out=out)
            + run_sweep([10000], g1, 200, out=out)
            + run_sweep([100000], [8, 12, 16, 24, 32, 48, 64, 96], 60, out=out)
            + run_sweep([1000000], [12, 16, 24, 32, 48, 64], 20, out=out))
