"""Every run plan of the suite in one place: which ``d``, ``m``, ``n``, ``N``, seeds and model
counts a quick (theorem, CI) or a full (documented results in ``docs/data/``) run uses.

Theorems, ``bench/`` and the docs read the settings from here; changing a plan changes every
run that uses it.
"""

import functools
import os

from verify.experiments.xor_sweeps import run_samples, run_sweep

# -- paper A, one-step sweeps (SX-4, SX-7) -----------------------------------------------------
FAST_M_GRID = (8, 16, 24, 32, 48, 64)
FULL_DS = (100, 1000, 10000, 100000, 1000000)
#: the full sweep: (d, m grid, seeds) per row; >= 200 seeds at small d, fewer at large d
FULL_SWEEP = (
    (100, (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128), 1000),
    (1000, (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128), 400),
    (10000, (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128), 200),
    (100000, (8, 12, 16, 24, 32, 48, 64, 96), 60),
    (1000000, (12, 16, 24, 32, 48, 64), 20),
)

# -- paper A, empirical-gradient step (SX-6) ---------------------------------------------------
SAMPLES_M = 32
#: quick plan: n = k d^2 for these k at each d, SAMPLES_FAST_SEEDS seeds
SAMPLES_FAST_DS = (16, 32)
SAMPLES_FAST_KS = (2, 4, 8, 16, 32, 64)
SAMPLES_FAST_SEEDS = 30
#: the full plan: (d, k grid with n = k d^2, seeds) per row
SAMPLES_FULL = (
    (16, (1, 2, 4, 8, 16, 32, 64), 40),
    (32, (2, 4, 8, 16, 32, 64), 40),
    (64, (4, 8, 16, 32, 64), 40),
    (128, (16, 32, 64), 20),
)

# -- paper B, random transformers (SG-4, SG-5, SG-6; bench/transformer_sweeps.py) --------------
#: SG-6: eps = 0, exact profiles over all 2^N strings
SG6_FULL = dict(D=16, L=2, H=2, eps=0.0, Ns=(4, 6, 8, 10, 12, 14, 16),
                models={4: 200, 6: 200, 8: 200, 10: 100, 12: 100, 14: 30, 16: 12}, seed=1000)
SG6_D32_FULL = dict(D=32, L=2, H=2, eps=0.0, N=12, models=100, seed=2000)
#: SG-4: eps > 0, uniform box, max single-bit influence at eos
SG4_FULL = dict(D=16, L=2, H=2, eps=1e-5, B=1.0, Ns=(8, 16, 32, 64, 128, 256, 512, 1024),
                models=12, samples=2, positions=16, seed=3000)
#: SG-5: eps > 0, uniform box, margin-xi recognition over all 2^N strings
SG5_FULL = dict(D=16, L=2, H=2, eps=1e-5, B=1.0, Ns=(1, 2, 3, 4, 5, 6, 8, 10, 12), models=200,
                xis=(0.01, 0.03, 0.1), seed=4000)


@functools.lru_cache(maxsize=None)
def fast_cells(d, seeds):
    """One-step success cells at ``d`` over :data:`FAST_M_GRID` (same seeds -> same cells)."""
    return tuple(run_sweep([d], list(FAST_M_GRID), seeds))


def full_cells(tmp_path):
    """The cells of :data:`FULL_SWEEP`; resumable through ``BOOLVERIFY_XOR_SWEEP_FILE``
    (e.g. ``docs/data/xor_sweep.json``)."""
    out = os.environ.get("BOOLVERIFY_XOR_SWEEP_FILE") or tmp_path / "sweep.json"
    cells = []
    for d, ms, seeds in FULL_SWEEP:
        cells += run_sweep([d], list(ms), seeds, out=out)
    return cells


def fast_samples_cells():
    """The cells of the quick SX-6 plan (:data:`SAMPLES_FAST_DS`, :data:`SAMPLES_FAST_KS`)."""
    ds = list(SAMPLES_FAST_DS)
    return run_samples(ds, {d: [k * d * d for k in SAMPLES_FAST_KS] for d in ds}, SAMPLES_M,
                       SAMPLES_FAST_SEEDS)


def full_samples_cells(tmp_path):
    """The cells of :data:`SAMPLES_FULL`; resumable through ``BOOLVERIFY_XOR_SAMPLES_FILE``."""
    out = os.environ.get("BOOLVERIFY_XOR_SAMPLES_FILE") or tmp_path / "samples.json"
    cells = []
    for d, ks, seeds in SAMPLES_FULL:
        cells += run_samples([d], {d: [k * d * d for k in ks]}, SAMPLES_M, seeds, out=out)
    return cells
