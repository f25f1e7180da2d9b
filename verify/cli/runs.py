"""`boolverify runs`: the full runs behind ``docs/data`` and ``docs/figures``, by name.

Every run takes its settings from :mod:`verify.experiments.plans` (the full plans, or with
``--quick`` the smoke plans of a few seconds), writes its results files under
``OUT_DIR/data`` (resumable where the experiment is: finished cells are skipped) and then draws
its figures under ``OUT_DIR/figures`` (:mod:`verify.report.xor_figures`,
:mod:`verify.report.transformer_figures`). Progress goes to stderr, one line per finished part.
The names are checked before any run starts; ``--list`` prints them with their files.

Committed results are safe: a smoke plan (``--quick``) writes under ``results/quick`` (git
ignores ``/results/``) and is refused an ``--out-dir`` of the committed ``docs`` unless
``--force``; a data file whose provenance names another plan or another commit (or none) is
replaced only with ``--replace``, and the command says what it replaces. Each run's plan goes
into the provenance of what it writes (:mod:`verify.common.provenance`).
"""

from __future__ import annotations

import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from numeric.validation import InputError, check_choice, check_int
from verify.cli.options import MAX_THREADS, integer

DEFAULT_OUT_DIR = "docs"
#: where the smoke plans write by default (never into the committed results)
QUICK_OUT_DIR = "results/quick"


def _paper_a_figures(data_dir, fig_dir, files):
    from verify.report.xor_figures import render_from_data

    return render_from_data(data_dir, fig_dir, files=files)[0]


def _paper_b_figures(data_dir, fig_dir, files):
    from verify.report.transformer_figures import render_from_data

    return render_from_data(data_dir, fig_dir, files=files)


def _all_figures(data_dir, fig_dir, files):
    return {**_paper_a_figures(data_dir, fig_dir, None), **_paper_b_figures(data_dir, fig_dir, None),
            **_sg8_figures(data_dir, fig_dir, ("sg8_training.json",))}


@dataclass(frozen=True)
class Run:
    """One named full run: what it is, the data files it writes (under ``OUT_DIR/data``), the
    function that runs it, ``run(data_dir, quick, progress)``, and the one that draws the
    figures of those files, ``figures(data_dir, fig_dir, files)``."""

    description: str
    data: tuple
    run: Callable
    figures: Callable

    def draw(self, data_dir, fig_dir) -> dict:
        """The figures of this run's data files: ``{data file: [written paths]}``."""
        return self.figures(data_dir, fig_dir, self.data)


def _cell_progress(progress):
    # run_sweep and run_finite_samples report (done, total, text)
    return lambda done, total, text: progress(f"{text} [{done}/{total}]")


def _xor_sweep(data_dir, quick, progress):
    from verify.experiments import plans
    from verify.experiments.xor_sweeps import run_sweep

    out = data_dir / "xor_sweep.json"
    rows = plans.QUICK_SWEEP if quick else plans.FULL_SWEEP
    for d, ms, seeds in rows:
        run_sweep([d], list(ms), seeds, out=out, progress=_cell_progress(progress))
    for d, ms, seeds, options in () if quick else plans.FULL_SWEEP_LARGE:
        run_sweep([d], list(ms), seeds, out=out, progress=_cell_progress(progress), **options)


def _finite(regime, name):
    def run(data_dir, quick, progress):
        from verify.experiments import plans

        ds, seeds = ((plans.FINITE_QUICK_DS, plans.FINITE_QUICK_SEEDS) if quick
                     else (plans.FINITE_FULL_DS, plans.FINITE_FULL_SEEDS))
        plans.finite_cells(regime, ds, seeds, 0, quick, out=data_dir / name,
                           progress=_cell_progress(progress))
    return run


def _sg(part):
    def run(data_dir, quick, progress):
        from verify.experiments import plans
        from verify.experiments import transformer_sweeps as ts

        if part == "sg6":
            plan, d32 = ((plans.SG6_QUICK, plans.SG6_D32_QUICK) if quick
                         else (plans.SG6_FULL, plans.SG6_D32_FULL))
            ts.run_sg6(data_dir / "sg6_random_profiles.json", plan, d32, progress=progress)
        elif part == "sg4":
            ts.run_sg4(data_dir / "sg4_influence.json", plans.SG4_QUICK if quick else plans.SG4_FULL,
                       progress=progress)
        else:
            ts.run_sg5(data_dir / "sg5_margin.json", plans.SG5_QUICK if quick else plans.SG5_FULL,
                       progress=progress)
    return run


def _theorem45(data_dir, quick, progress):
    from verify.experiments import plans
    from verify.experiments.theorem45 import run_theorem45

    out = data_dir / "theorem45.json"
    run_theorem45(out, plans.THEOREM45_QUICK if quick else plans.THEOREM45_FULL, progress=progress)
    if not quick:
        run_theorem45(out, plans.THEOREM45_BHATTAMISHRA, key="preset_bhattamishra", progress=progress)


def _sg2(data_dir, quick, progress):
    from verify.common.atomic_io import atomic_write_json
    from verify.experiments import plans
    from verify.experiments.random_function_sampling import random_function_report

    report = random_function_report(**(plans.SG2_REPORT_QUICK if quick else plans.SG2_REPORT))
    atomic_write_json(data_dir / "sg2_random_functions.json", report)
    progress(f"sg2 Monte Carlo at N = 1 .. {len(report['monte_carlo'])}")


def _sg8(name, plan_name):
    def run(data_dir, quick, progress):
        from verify.common.atomic_io import atomic_write_json
        from verify.experiments import plans
        from verify.experiments.training import run_training_grid, training_report

        plan = dict(plans.SG8_TRAINING_QUICK if quick else getattr(plans, plan_name))
        dicts = []
        for r in run_training_grid(plan.pop("targets"), plan.pop("Ns"), plan.pop("seeds"), **plan):
            dicts.append(r.as_dict())
            progress(f"{r.target} N={r.N} seed={r.seed}: accuracy {r.accuracy:.4f}, K0 "
                     f"{r.profile_fraction[0]:.3f} ({r.train_time_s + r.eval_time_s:.0f} s)")
        atomic_write_json(data_dir / name, training_report(dicts))
    return run


def _sg8_figures(data_dir, fig_dir, files):
    from verify.report.sensitivity_figures import training_profiles

    path = data_dir / "sg8_training.json"
    if "sg8_training.json" not in files or not path.exists():
        return {}
    dicts = json.loads(path.read_text())["runs"]
    return {path.name: training_profiles(dicts, [Path(fig_dir) / f"sg8_training_profiles.{ext}"
                                                 for ext in ("png", "pdf")], data=[path])}


def _no_figures(data_dir, fig_dir, files):
    return {}


def _no_run(data_dir, quick, progress):
    return None


#: the named full runs, in the order ``--list`` shows them
RUNS = {
    "xor-sweep": Run("paper A one-step sweep over (d, m), d = 10^2 .. 10^8 (SX-4, SX-7; plans.FULL_SWEEP, "
                     "FULL_SWEEP_LARGE)", ("xor_sweep.json",), _xor_sweep, _paper_a_figures),
    "xor-samples-grid": Run("paper A one step on n samples, n*(d) (SX-6; plans.FINITE_FULL_DS)",
                            ("xor_samples_grid.json",), _finite("one_step", "xor_samples_grid.json"),
                            _paper_a_figures),
    "xor-fixed-sample": Run("paper A training on a fixed sample, n*(d) (SX-6; plans.FINITE_FULL_DS)",
                            ("xor_fixed_sample_training.json",),
                            _finite("gradient_flow", "xor_fixed_sample_training.json"), _paper_a_figures),
    "sg2": Run("P(K_0 >= 1) of uniformly random functions, exact and Monte Carlo (SG-2; plans.SG2_REPORT)",
               ("sg2_random_functions.json",), _sg2, _no_figures),
    "sg4": Run("largest single-bit influence of random transformers against N (SG-4; plans.SG4_FULL)",
               ("sg4_influence.json",), _sg("sg4"), _paper_b_figures),
    "sg5": Run("margin-xi recognition of random transformers (SG-5; plans.SG5_FULL)",
               ("sg5_margin.json",), _sg("sg5"), _paper_b_figures),
    "sg6": Run("exact profiles of random transformers at eps = 0 (SG-6; plans.SG6_FULL, SG6_D32_FULL)",
               ("sg6_random_profiles.json",), _sg("sg6"), _paper_b_figures),
    "theorem45": Run("Theorem 4.5 past its crossover, K_0 >= N^a at N* .. 4 N* (plans.THEOREM45_FULL, "
                     "THEOREM45_BHATTAMISHRA)", ("theorem45.json",), _theorem45, _paper_b_figures),
    "sg8-training": Run("training on MAJORITY, FIRST, PARITY at N = 8, 16, 24 (SG-8; plans.SG8_TRAINING)",
                        ("sg8_training.json",), _sg8("sg8_training.json", "SG8_TRAINING"), _sg8_figures),
    "sg8-parity-transition": Run("where PARITY stops being learned, N = 10 .. 16 at 1000 steps (SG-8; "
                                 "plans.SG8_PARITY_TRANSITION)", ("sg8_parity_transition.json",),
                                 _sg8("sg8_parity_transition.json", "SG8_PARITY_TRANSITION"), _no_figures),
    "figures": Run("no run: redraw every figure from the data files present", (), _no_run, _all_figures),
}


def register(sub):
    p = sub.add_parser(
        "runs",
        help="the full runs behind docs/data and docs/figures, by name (see --list)",
        description="Run the named full runs (settings: verify/experiments/plans.py), write their "
        "results under OUT_DIR/data (resumable) and their figures under OUT_DIR/figures. Progress "
        "on stderr.",
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="runs to do, in this order (see --list)")
    p.add_argument("--list", action="store_true", help="print the runs and their data files and exit")
    p.add_argument("--out-dir", default=None, metavar="DIR",
                   help=f"folder of data/ and figures/ (default: {DEFAULT_OUT_DIR}, with --quick {QUICK_OUT_DIR})")
    p.add_argument("--quick", action="store_true",
                   help="the smoke plans (seconds) instead of the full ones")
    p.add_argument("--force", action="store_true",
                   help=f"let --quick write into the committed {DEFAULT_OUT_DIR}/ (refused otherwise)")
    p.add_argument("--replace", action="store_true",
                   help="replace data files made by another plan or commit (refused otherwise)")
    p.add_argument("--threads", type=integer, default=1, metavar="K", help="torch CPU threads")
    p.set_defaults(func=run)


def _check(args):
    names = [check_choice(name, "NAME", tuple(RUNS)) for name in args.names]
    if not names and not args.list:
        raise InputError(f"expected a run name, one of {', '.join(RUNS)} (see 'boolverify runs --list')")
    threads = check_int(args.threads, "--threads", lo=1, hi=MAX_THREADS)
    if args.out_dir is None:
        args.out_dir = QUICK_OUT_DIR if args.quick else DEFAULT_OUT_DIR
    out_dir = Path(args.out_dir)
    if not str(args.out_dir).strip():
        raise InputError(f"--out-dir = {args.out_dir!r}: expected a folder name")
    if args.quick and not args.force and _is_committed(out_dir):
        raise InputError(f"--out-dir = {args.out_dir!r}: expected a folder other than the committed results "
                         f"with --quick (default {QUICK_OUT_DIR}; --force to write smoke results there)")
    for sub in (out_dir, out_dir / "data", out_dir / "figures"):
        if sub.exists() and not sub.is_dir():
            raise InputError(f"--out-dir = {args.out_dir!r}: expected a folder ({sub} is a file)")
    return names, threads, out_dir


def _is_committed(out_dir) -> bool:
    from verify.common.provenance import SOURCE_ROOT

    target = out_dir.resolve()
    return target in {(SOURCE_ROOT / DEFAULT_OUT_DIR).resolve(), Path(DEFAULT_OUT_DIR).resolve()}


def plan_of(name, quick) -> str | None:
    """The plan a run records: ``"quick"`` for the smoke plans, else the plans its description names."""
    if quick:
        return "quick"
    named = re.findall(r"plans\.([A-Z0-9_]+(?:, [A-Z0-9_]+)*)", RUNS[name].description)
    return ", ".join(named) or None


def _replacements(names, quick, data_dir) -> list:
    """``(file, text)`` for each data file of ``names`` that another plan or commit made."""
    from verify.common.provenance import source_state

    commit = source_state()[0]
    found = []
    for name in names:
        for f in RUNS[name].data:
            path = data_dir / f
            if not path.exists():
                continue
            try:
                prov = json.loads(path.read_text(encoding="utf-8")).get("provenance") or {}
            except (OSError, ValueError, AttributeError):
                prov = {}
            if prov and prov.get("plan") == plan_of(name, quick) and (quick or prov.get("commit") == commit
                                                                      and commit is not None):
                continue  # this plan at this commit (or smoke results): the run resumes or redoes it
            made = (f"plan {prov.get('plan')}, commit {str(prov.get('commit'))[:12]}"
                    f"{', reconstructed' if prov.get('reconstructed') else ''}" if prov else "no provenance")
            found.append((path, made))
    return found


def run(args) -> int:
    names, threads, out_dir = _check(args)
    replaced = [] if args.list else _replacements(names, args.quick, out_dir / "data")
    if replaced and not args.replace:
        raise InputError("runs: " + "; ".join(f"{p} was made by {made}" for p, made in replaced)
                         + ": expected --replace to replace it")
    for path, made in replaced:
        print(f"runs: replacing {path} ({made})", file=sys.stderr, flush=True)
    if args.list:
        for name, r in RUNS.items():
            files = ", ".join(f"data/{f}" for f in r.data) or "-"
            print(f"{name:18s} {r.description}\n{'':19s}-> {files}")
        return 0
    import torch

    from verify.common.provenance import update_run

    torch.set_num_threads(threads)
    data_dir, fig_dir = out_dir / "data", out_dir / "figures"
    for name in names:
        # each named run's files record its own plan and time
        update_run(plan=plan_of(name, args.quick), threads=threads, started=time.time())

        def progress(text, name=name):
            print(f"[{time.strftime('%H:%M:%S')}] {name}: {text}", file=sys.stderr, flush=True)

        t0 = time.perf_counter()
        progress("started" + (" (quick plan)" if args.quick else ""))
        RUNS[name].run(data_dir, args.quick, progress)
        drawn = RUNS[name].draw(data_dir, fig_dir)
        progress(f"done in {time.perf_counter() - t0:.0f} s; {sum(len(v) for v in drawn.values())} "
                 f"figure files under {fig_dir}")
    return 0
