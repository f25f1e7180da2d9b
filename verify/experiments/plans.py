"""Every run plan of the suite in one place: which ``d``, ``m``, ``n``, ``N``, seeds and model
counts a quick (theorem, CI) or a full (documented results in ``docs/data/``) run uses.

Theorems, ``boolverify runs`` (the full runs behind ``docs/data``) and the docs read the settings
from here; changing a plan changes every run that uses it. The numbers a claim's decision rules
fix (its sample sizes and grids) come from :mod:`verify.experiments.claim_rules`; the rest (seeds,
architectures of the full runs) are set here.
"""

import functools
import os
from pathlib import Path

from verify.experiments.claim_rules import SG2, SG4, SG5, SG6, SG8, SG9, SX4, SX6
from verify.experiments.finite_samples import run_finite_samples, sample_grid
from verify.experiments.xor_sweeps import run_samples, run_sweep

# -- paper A, one-step sweeps (SX-4, SX-7) -----------------------------------------------------
#: quick plan (SX-4, SX-7): per d, the m grid around the transition and the seeds per cell
FAST_SWEEP = SX4.fast_sweep
FULL_DS = (100, 1000, 10000, 100000, 1000000)
#: the full sweep: (d, m grid, seeds) per row; >= 200 seeds at small d, fewer at large d
FULL_SWEEP = SX4.full_sweep
#: the rows of the full sweep beyond 10^6 (``boolverify runs xor-sweep`` only; no theorem reads
#: them): (d, m grid, seeds, options of run_sweep); 10^7 materialised (10.5 GB of V), 10^8
#: streamed on two Dask workers
FULL_SWEEP_LARGE = (
    (10000000, (16, 24, 32, 48, 64), 20, {}),
    (100000000, (24, 32, 48, 64), 10, {"stream": True, "workers": 2}),
)
#: quick plan of ``boolverify runs xor-sweep --quick`` (a smoke run, seconds)
QUICK_SWEEP = ((100, (4, 8), 10),)

# -- paper A, finite samples (SX-6) -------------------------------------------------------------
SAMPLES_M = 32
#: legacy: the n = k d^2 grid of docs/data/xor_samples.json (one step, shared instances across
#: n; figure xor_nstar); SX-6 now uses the FINITE_* plans below
SAMPLES_FULL = (
    (16, (1, 2, 4, 8, 16, 32, 64), 40),
    (32, (2, 4, 8, 16, 32, 64), 40),
    (64, (4, 8, 16, 32, 64), 40),
    (128, (16, 32, 64), 20),
)
#: Both regimes of verify.experiments.finite_samples on the same multiples of d,
#: n = d 2^(j/2) (sample_grid), every cell with its own instances:
#: - the one step from j = -2 (d/2; at 4 d the success is still 10-30 % at d <= 32) to
#:   4 log2 d (d^3), extended to n = 2^14 at d = 8, 16 (there the conditional success still
#:   climbs at d^3);
#: - training on a fixed sample from j = -8 (d/16: at small d a few samples already pin the
#:   support by chance) to 12 (64 d; the quick plan to j = 8, i.e. 16 d, where every d is
#:   on its plateau); 200 normalised steps of length 0.4 (path length 80: outcomes identical seed by
#:   seed for step lengths 0.1 ... 0.4 in every check, at 0.8 one seed in 60 differs at m = 8;
#:   settled by half the path: in the full run 9 of the 10 578 successes came in the second
#:   half, see both_successes_half).
FINITE_ONE_STEP_J_LO = SX6.one_step_j_lo
FINITE_ONE_STEP_MIN_TOP = SX6.one_step_min_top
FINITE_TRAINING_J = (-8, 12)
FINITE_FAST_TRAINING_J = (-8, 8)
FINITE_TRAINING_STEPS = 200
FINITE_TRAINING_STEP_LENGTH = 0.4
#: quick plan (theorem test): seeds per cell by regime
FINITE_FAST_DS = SX6.fast_ds
FINITE_FAST_SEEDS = SX6.fast_seeds
#: full plan (docs/data/xor_samples_grid.json, docs/data/xor_fixed_sample_training.json)
FINITE_FULL_DS = (8, 16, 32, 64, 128)
FINITE_FULL_SEEDS = 200
#: resumable results files of the full plan, by regime
FINITE_FILE_ENV = {"one_step": "BOOLVERIFY_XOR_SAMPLES_GRID_FILE",
                   "gradient_flow": "BOOLVERIFY_XOR_FIXED_SAMPLE_FILE"}
#: quick plan of ``boolverify runs xor-samples-grid --quick`` / ``xor-fixed-sample --quick``
FINITE_QUICK_DS = (8,)
FINITE_QUICK_SEEDS = 4

# -- paper B, random transformers (SG-4, SG-5, SG-6; boolverify runs sg4 / sg5 / sg6) ----------
#: SG-6: eps = 0, exact profiles over all 2^N strings
SG6_FULL = dict(D=16, L=2, H=2, eps=0.0, Ns=(4, 6, 8, 10, 12, 14, 16),
                models={4: 200, 6: 200, 8: 200, 10: 100, 12: 100, 14: 30, 16: 12}, seed=1000)
SG6_D32_FULL = dict(D=32, L=2, H=2, eps=0.0, N=12, models=100, seed=2000)
#: SG-4: eps > 0, uniform box, max single-bit influence at eos over strings x positions random
#: pairs: the claim's sizes, models and seed (at seed base 0 these are the data SG-4 decides on)
SG4_FULL = dict(D=SG4.D, L=SG4.L, H=SG4.H, eps=SG4.eps, B=SG4.box, Ns=SG4.Ns, models=SG4.models,
                strings=SG4.strings, positions=SG4.positions, seed=3000)
#: SG-5: eps > 0, uniform box, margin-xi recognition over all 2^N strings
SG5_FULL = dict(D=16, L=2, H=2, eps=1e-5, B=1.0, Ns=(1, 2, 3, 4, 5, 6, 8, 10, 12), models=200,
                xis=(0.01, 0.03, 0.1), seed=4000)
#: quick plans of ``boolverify runs sg4 / sg5 / sg6 --quick`` (smoke runs: few models, small N)
SG6_QUICK = dict(SG6_FULL, Ns=(4, 6, 8), models={4: 4, 6: 4, 8: 4})
SG6_D32_QUICK = dict(SG6_D32_FULL, N=8, models=4)
SG4_QUICK = dict(SG4_FULL, Ns=(8, 16, 32, 64), models=3)
SG5_QUICK = dict(SG5_FULL, Ns=(1, 2, 4), models=10)

# -- paper B, Theorem 4.5 past its crossover (boolverify runs theorem45) ----------------------
#: verify.experiments.theorem45.run_theorem45: width D, L layers (a = (D-1)/(2L) - 5), H heads,
#: eps; init schemes (None: all, or the preset's own) and lengths (None: N*, 1.5N*, 2N*, 3N*,
#: 4N*); S = strings per model below large_from (None: 2 N*), strings_large from there on; per
#: cell models are drawn until `target` are non-constant (at most max_draws), each screened on
#: `pilot` strings first (0: no screen)
THEOREM45_FULL = dict(D=64, L=2, H=2, eps=0.0, preset=None, schemes=None, Ns=None, strings=16,
                      strings_large=4, large_from=None, target=30, max_draws=150, pilot=64)
#: the same past the crossover under the bhattamishra conventions (its H, eps, init and B), kept
#: under the key "preset_bhattamishra" of docs/data/theorem45.json
THEOREM45_BHATTAMISHRA = dict(THEOREM45_FULL, preset="bhattamishra")
#: quick plan (a smoke run of a few seconds)
THEOREM45_QUICK = dict(THEOREM45_FULL, D=8, schemes=("gaussian",), Ns=(6, 9), strings=6,
                       strings_large=3, large_from=9, target=2, max_draws=6)

# -- paper B, claim tests (theorems/test_SG*.py; seeds are local, shifted by the seed base) ----
#: SG-2: Monte Carlo over uniformly random functions at these N, seed 1000 + N
SG2_FAST = dict(Ns=SG2.Ns, samples=SG2.samples, seed=SG2.seed)
SG2_SLOW = dict(Ns=SG2.slow_Ns, samples=SG2.slow_samples, seed=SG2.seed)
#: SG-2 full run (docs/data/sg2_random_functions.json, boolverify runs sg2): Monte Carlo at N = 1 ..
#: N_max with seed seed + N, beside the exact values for N <= 4; the quick plan is a smoke run
SG2_REPORT = dict(N_max=16, samples=1 << 16, seed=2024)
SG2_REPORT_QUICK = dict(SG2_REPORT, N_max=6, samples=256)
#: SG-4: per-model slope of log(max influence over strings x positions random pairs) vs log N;
#: positions <= min(Ns), so every N gets the same number of pairs
#: eps ablation: the first `eps_models` models again at eps = 0 and at `eps_control` (an eps as large
#: as the layer-norm variances of random models, where the comparison must see a difference)
SG4_FAST = dict(D=SG4.D, L=SG4.L, H=SG4.H, eps=SG4.eps, B=SG4.box, Ns=SG4.Ns, models=SG4.models,
                strings=SG4.strings, positions=SG4.positions, seed=3000, eps_models=SG4.eps_models,
                eps_control=SG4.eps_control)
SG4_SLOW = dict(SG4_FAST, Ns=SG4.slow_Ns)
#: SG-4, exact: the largest influence over all 2^N strings and N positions (the first `models`
#: models of SG4_FAST; N_max as there, since it fixes the draw of the positional embeddings), measured
#: with a slope interval, not decided (see the test)
SG4_EXACT = dict(D=SG4.D, L=SG4.L, H=SG4.H, eps=SG4.eps, B=SG4.box, N_max=max(SG4.Ns),
                 Ns=SG4.exact_Ns, models=SG4.exact_models, seed=3000, check_N=SG4.exact_check_N)
SG4_EXACT_SLOW = dict(SG4_EXACT, Ns=SG4.slow_exact_Ns, models=SG4.slow_exact_models)
#: SG-5: the same models at a small and a large N, non-constant margin-xi recognition
SG5_FAST = dict(D=SG5.D, L=SG5.L, H=SG5.H, eps=SG5.eps, B=SG5.box, N_small=SG5.N_small,
                N_large=SG5.N_large, models=SG5.models, xi=SG5.xi, p_max=SG5.p_max, seed=4000,
                eps_models=SG5.eps_models, eps_control=SG5.eps_control)
SG5_SLOW = dict(SG5_FAST, N_large=SG5.slow_N_large)
#: SG-6: draw models per init scheme until `target` compute a non-constant function (at most
#: `max_draws`); exact profiles over all 2^N strings; boolverify conventions at eps = 0 (the same
#: models re-read at `eps_check`), and the bhattamishra preset (its eps = 1e-6, U(-B, B) weights)
SG6_FAST = dict(preset="boolverify", D=SG6.D, L=SG6.L, H=SG6.H, eps=0.0, N=SG6.N, target=SG6.target,
                max_draws=SG6.max_draws, seed=6000, eps_check=1e-5, chunk=1024)
SG6_BHATTAMISHRA = dict(preset="bhattamishra", D=SG6.D, L=SG6.L, H=SG6.bhattamishra_H,
                        eps=SG6.bhattamishra_eps, N=SG6.N, target=SG6.bhattamishra_target,
                        max_draws=SG6.bhattamishra_max_draws, seed=9000, B=SG6.bhattamishra_B,
                        eps_check=None, chunk=1024)
SG6_SLOW = (dict(SG6_FAST, D=16, N=14, seed=1000, chunk=None),
            dict(SG6_FAST, D=32, N=12, seed=2000, chunk=None))
#: SG-8, float32: per cell the target, N, the number of runs, the local seed of the first run
#: (run i uses seed first_seed + i) and the other options of verify.experiments.training.train.
#: MAJORITY and FIRST train on a fixed subset of 1024 of the 4096 strings (held-out accuracy is
#: exact on the other 3072). The PARITY cells share one budget: the same steps and batch, so
#: both see 64 x 250 strings (all 64 strings every step at N = 6).
SG8_FAST_DTYPE = SG8.dtype
_SG8_BUDGET = dict(steps=SG8.parity_steps, batch_size=SG8.batch_size)
SG8_FAST = {
    "majority": dict(target="majority", N=SG8.fixed_N, looks=SG8.fixed_looks, first_seed=0,
                     steps=SG8.fixed_steps, train_strings=SG8.train_strings),
    "first": dict(target="first", N=SG8.fixed_N, looks=SG8.fixed_looks, first_seed=1000,
                  steps=SG8.fixed_steps, train_strings=SG8.train_strings),
    "parity_short": dict(target="parity", N=SG8.parity_short_N, looks=SG8.parity_short_looks, first_seed=2000,
                         **_SG8_BUDGET),
    "parity_long": dict(target="parity", N=SG8.parity_long_N, looks=SG8.parity_long_looks, first_seed=3000,
                        **_SG8_BUDGET),
    # positive controls under PARITY's budget at its long N: a failure of PARITY there is not a
    # failure of the loop or of the budget to fit a function that depends on few bits
    "first_long": dict(target="first", N=SG8.parity_long_N, looks=SG8.first_long_looks, first_seed=4000,
                       **_SG8_BUDGET),
    "parity01_long": dict(target="parity01", N=SG8.parity_long_N, looks=SG8.parity01_long_looks,
                          first_seed=5000, **_SG8_BUDGET),
}
#: SG-8 slow: PARITY at the long N under budgets 2 and 8 times the fast one (batch 64; 64 000 and
#: 256 000 examples, about 4 and 16 passes over the 16 384 strings), with the 2-sparse parity control
#: at every budget
SG8_PARITY_BUDGETS = dict(N=SG8.parity_long_N, steps=SG8.budget_steps, batch_size=SG8.batch_size,
                          runs=SG8.budget_runs, first_seed=6000, targets=("parity", "parity01"))
#: SG-8 slow: train's defaults (400 steps, float64) at each N, seeds first_seed .. first_seed +
#: runs - 1 (base 0: seeds 0-2 are the runs of docs/data/sg8_training.json)
SG8_FULL = dict(Ns=(8, 16, 24), runs=5, first_seed=0)
#: SG-8 full runs of ``boolverify runs sg8-training`` (docs/data/sg8_training.json: train's
#: defaults, seeds 0 .. seeds - 1) and ``sg8-parity-transition`` (docs/data/sg8_parity_transition.json:
#: PARITY at 1000 steps); the quick plan is a smoke run
SG8_TRAINING = dict(targets=("majority", "first", "parity"), Ns=(8, 16, 24), seeds=3)
SG8_PARITY_TRANSITION = dict(targets=("parity",), Ns=(10, 12, 14, 16), seeds=3, steps=1000)
SG8_TRAINING_QUICK = dict(targets=("majority", "parity"), Ns=(4,), seeds=1, steps=5)
#: SG-8 at the claim's own settings (``boolverify runs sg8-decisions``, docs/data/sg8_decisions.json): the
#: cells, looks and local seeds of SG8_FAST in SG8_FAST_DTYPE, decided as the claim test decides them;
#: the quick plan is a smoke run (three cells at N <= 4, one look of 2 runs of 5 steps)
SG8_DECISIONS = SG8_FAST
SG8_DECISIONS_QUICK = {"majority": dict(SG8_FAST["majority"], N=4, train_strings=8, looks=(2,), steps=5),
                       "parity_short": dict(SG8_FAST["parity_short"], N=3, looks=(2,), steps=5),
                       "parity_long": dict(SG8_FAST["parity_long"], N=4, looks=(2,), steps=5)}

#: SG-9: per function, the local-volume curve of its construction at every N of the plan on the
#: function's sigma grid, `models` directions per sigma (the same at every sigma), local seed
#: seed + 100 i + N for the i-th function of CONSTRUCTED
SG9_FAST = dict(Ns=SG9.Ns, models=SG9.models, grids=SG9.grids, per_decade=SG9.per_decade, seed=9000)
SG9_SLOW = dict(SG9_FAST, Ns=SG9.slow_Ns, models=SG9.slow_models)


def sg9_grid(function, plan):
    """The sigma grid of ``function`` in an SG-9 plan: 10^(k / per_decade) over its window."""
    lo, hi = plan["grids"][function]
    per = plan["per_decade"]
    return tuple(10.0 ** (k / per) for k in range(round(lo * per), round(hi * per) + 1))


@functools.lru_cache(maxsize=None)
def fast_cells(seed_offset=0):
    """The one-step success cells of :data:`FAST_SWEEP` for the seeds from ``seed_offset`` on
    (cached: SX-4 and SX-7 share them in one process)."""
    cells = []
    for d, ms, seeds in FAST_SWEEP:
        cells += run_sweep([d], list(ms), seeds, seed_offset=seed_offset)
    return tuple(cells)


def full_cells(tmp_path, seed_offset=0):
    """The cells of :data:`FULL_SWEEP`; resumable through ``BOOLVERIFY_XOR_SWEEP_FILE``
    (e.g. ``docs/data/xor_sweep.json``)."""
    out = os.environ.get("BOOLVERIFY_XOR_SWEEP_FILE") or tmp_path / "sweep.json"
    cells = []
    for d, ms, seeds in FULL_SWEEP:
        cells += run_sweep([d], list(ms), seeds, out=out, seed_offset=seed_offset)
    return cells


def full_samples_cells(tmp_path):
    """The cells of :data:`SAMPLES_FULL`; resumable through ``BOOLVERIFY_XOR_SAMPLES_FILE``."""
    out = os.environ.get("BOOLVERIFY_XOR_SAMPLES_FILE") or tmp_path / "samples.json"
    cells = []
    for d, ks, seeds in SAMPLES_FULL:
        cells += run_samples([d], {d: [k * d * d for k in ks]}, SAMPLES_M, seeds, out=out)
    return cells


def finite_sample_sizes(regime, d, quick=False):
    """The sample sizes of ``regime`` at ``d`` (a power of two) in the full plan, or in the
    quick one (``quick=True``)."""
    if regime == "one_step":
        top = max(d**3, FINITE_ONE_STEP_MIN_TOP)
        return sample_grid(d, FINITE_ONE_STEP_J_LO, 2 * ((top // d).bit_length() - 1))
    return sample_grid(d, *(FINITE_FAST_TRAINING_J if quick else FINITE_TRAINING_J))


def finite_cells(regime, ds, n_seeds, seed_offset, quick, out=None, progress=None):
    """The cells of ``regime`` at every ``d`` of ``ds`` on the sample sizes of
    :func:`finite_sample_sizes`, ``n_seeds`` seeds each; resumable through ``out``."""
    cells = []
    for d in ds:
        cells += run_finite_samples([d], {d: finite_sample_sizes(regime, d, quick)}, SAMPLES_M,
                                    n_seeds, regime=regime, steps=FINITE_TRAINING_STEPS,
                                    step_length=FINITE_TRAINING_STEP_LENGTH,
                                    seed_offset=seed_offset, out=out, progress=progress)
    return cells


@functools.lru_cache(maxsize=None)
def fast_finite_cells(regime, seed_offset=0):
    """The cells of the quick SX-6 plan (:data:`FINITE_FAST_DS`) of ``regime``
    (``"one_step"`` or ``"gradient_flow"``) for the seeds from ``seed_offset`` on."""
    return tuple(finite_cells(regime, FINITE_FAST_DS, FINITE_FAST_SEEDS[regime], seed_offset,
                               quick=True))


def full_finite_cells(regime, tmp_path, seed_offset=0, progress=None):
    """The cells of the full SX-6 plan (:data:`FINITE_FULL_DS`) of ``regime``; resumable
    through the file named by ``FINITE_FILE_ENV[regime]`` (``docs/data/xor_samples_grid.json``,
    ``docs/data/xor_fixed_sample_training.json``), else recomputed under ``tmp_path``."""
    out = os.environ.get(FINITE_FILE_ENV[regime]) or Path(tmp_path) / f"finite_{regime}.json"
    return finite_cells(regime, FINITE_FULL_DS, FINITE_FULL_SEEDS, seed_offset, False, out,
                         progress)


#: the data files of the runs that resume cell by cell (sweep files: verify.experiments.records)
SWEEP_FILES = ("xor_sweep.json", "xor_samples_grid.json", "xor_fixed_sample_training.json")


def check_resume_file(path) -> None:
    """Refuse, naming it, a damaged data file that a run would resume from (``theorem45.json``
    or one of :data:`SWEEP_FILES`); other names and missing files pass. Run before any run
    starts, so that nothing is written next to (or into) a file that cannot be resumed."""
    path = Path(path)
    if not path.exists():
        return
    if path.name in SWEEP_FILES:
        from verify.experiments.records import load_results

        load_results(path)
    elif path.name == "theorem45.json":
        from verify.experiments.theorem45 import read_resume_file

        read_resume_file(path)
        read_resume_file(path, "preset_bhattamishra")
