"""`boolverify runs`: the full runs behind ``docs/data`` and ``docs/figures``, by name.

Every run takes its settings from :mod:`verify.experiments.plans` (the full plans, or with
``--quick`` the smoke plans of a few seconds), writes its results files under
``OUT_DIR/data`` (resumable where the experiment is: finished cells are skipped) and then draws
its figures under ``OUT_DIR/figures`` (:mod:`verify.report.xor_figures`,
:mod:`verify.report.transformer_figures`). Progress: :mod:`verify.cli.progress`, on stderr.
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
from functools import partial
from pathlib import Path
from typing import Callable

from numeric.validation import InputError, check_choice, check_int
from verify.cli.options import MAX_THREADS, check_output_dir, check_output_in, integer
from verify.cli.progress import progress
from verify.report.reproduction import Agreement, exact, proportions, structure

DEFAULT_OUT_DIR = "docs"
#: where the smoke plans write by default (never into the committed results)
QUICK_OUT_DIR = "results/quick"


def _paper_a_figures(data_dir, fig_dir, files):
    from verify.report.xor_figures import render_from_data

    return render_from_data(data_dir, fig_dir, files=files)[0]


def _paper_b_figures(data_dir, fig_dir, files):
    from verify.report.transformer_figures import render_from_data

    return render_from_data(data_dir, fig_dir, files=files)


def _volume_figures(data_dir, fig_dir, files):
    from verify.report.volume_figures import render_from_data

    return render_from_data(data_dir, fig_dir, files=files)


def _report_figures(data_dir, fig_dir, files):
    from verify.report.claim_figures import render_from_report

    return render_from_report(Path(data_dir).parent / "report.json", fig_dir)


def _all_figures(data_dir, fig_dir, files):
    return {**_paper_a_figures(data_dir, fig_dir, None), **_paper_b_figures(data_dir, fig_dir, None),
            **_sg8_figures(data_dir, fig_dir, ("sg8_decisions.json",)), **_volume_figures(data_dir, fig_dir, None),
            **_report_figures(data_dir, fig_dir, None)}


@dataclass(frozen=True)
class Run:
    """One named full run: what it is, the data files it writes (under ``OUT_DIR/data``), the
    function that runs it, ``run(data_dir, quick, progress)``, the one that draws the figures
    of those files, ``figures(data_dir, fig_dir, files)``, and the figure files it draws
    (under ``OUT_DIR/figures``; a run that wraps a command drawing its own figures draws them
    in ``run``). ``commands``: the command lines a run wraps (the recorded options, ``{data}``
    and ``{figures}`` standing for the output folders), checked against a data file's
    provenance record. How ``boolverify reproduce`` compares a rerun with the committed file,
    fixed before looking at data (:mod:`verify.report.reproduction`): ``agreement`` for the
    full plan (default: exact, the runs are seeded), ``quick_agreement`` for the quick plan."""

    description: str
    data: tuple
    run: Callable
    figures: Callable
    figure_files: tuple = ()
    quick_agreement: Agreement = structure("the quick plan's sizes match no record of the full plan")
    agreement: Agreement = exact()
    commands: tuple = ()

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
            ts.run_sg6(data_dir / "sg6_random_profiles.json", plans.SG6_QUICK if quick else plans.SG6_FULL,
                       plans.SG6_D32_QUICK if quick else plans.SG6_D32_FULL, progress=progress)
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


def _sg8_decisions(data_dir, quick, progress):
    from verify.common.atomic_io import atomic_write_json
    from verify.common.provenance import update_run
    from verify.common.seeds import base_seed
    from verify.experiments import plans
    from verify.experiments.sg8_decisions import run_sg8_decisions

    update_run(seed_base=base_seed())  # the claim's seeds are seed(first_seed + i) under this base
    report = run_sg8_decisions(plans.SG8_DECISIONS_QUICK if quick else plans.SG8_DECISIONS,
                               dtype=plans.SG8_FAST_DTYPE, progress=progress)
    atomic_write_json(data_dir / "sg8_decisions.json", report)


def _sg8_figures(data_dir, fig_dir, files):
    from verify.report.sensitivity_figures import training_decisions

    path = data_dir / "sg8_decisions.json"
    if "sg8_decisions.json" not in files or not path.exists():
        return {}
    return {path.name: training_decisions(json.loads(path.read_text()), [
        Path(fig_dir) / f"sg8_training_profiles.{ext}" for ext in ("png", "pdf")], data=[path])}


def _no_figures(data_dir, fig_dir, files):
    return {}


def _no_run(data_dir, quick, progress):
    return None


def _fill(argv, data_dir):
    fig_dir = Path(data_dir).parent / "figures"
    return [str(a).format(data=data_dir, figures=fig_dir) for a in argv]


def _commands(*commands, quick=None):
    """A run that is one or more ``boolverify`` command lines with their recorded options
    (``quick``: the command lines of the quick form); each runs in this process."""
    def run(data_dir, is_quick, progress):
        from verify.cli import main

        for argv in quick if is_quick and quick is not None else commands:
            argv = _fill(argv, data_dir)
            progress("boolverify " + " ".join(argv))
            if main(argv) != 0:
                raise InputError(f"'boolverify {' '.join(argv)}' failed (message above)")
    return run


def _bench(module, options, quick_options):
    """A benchmark of ``bench/`` (``python -m bench.<module>``), run as its own process."""
    def run(data_dir, is_quick, progress):
        import subprocess

        argv = [sys.executable, "-m", f"bench.{module}", *(quick_options if is_quick else options),
                "--json", str(Path(data_dir) / f"bench_{module}.json")]
        progress(" ".join(argv[1:]))
        if subprocess.run(argv).returncode != 0:
            raise InputError(f"'{' '.join(argv[1:])}' failed (message above)")
    return run


def _sg1_profiles(data_dir, quick, progress):
    from verify.report.sensitivity_figures import docs_figure

    docs_figure(stem=Path(data_dir).parent / "figures" / "sg1_profiles", N=12 if quick else 16)
    progress("sg1 profiles drawn")


_VOLUME = ["sensitivity", "volume", "--seed", "0", "--threads", "1"]
_TRAINED = [*_VOLUME, "--solution", "trained", "--steps", "2000", "--tries", "4", "--models", "200"]
_TRAINED_NOTE = ("as formalised in boolverify: trained solutions (SG-8 training loop, float64, exact on all "
                 "2^N strings), Gaussian perturbations of every parameter")
#: the N = 12 trained curves: 9 consecutive points of the default grid 10^(-4 + k/6) per function
_N12_GRID = {"first": range(14, 23), "majority": range(10, 19), "parity": range(6, 15)}


def _trained_volume(data_dir, quick, progress):
    import tempfile

    from verify.experiments.local_volume import merge_volume_files

    parts = ([["--function", "first,majority,parity", "--N", "4,6,8"], ["--function", "first,majority", "--N", "10"],
              ["--function", "parity", "--N", "10"]] if not quick else [["--function", "first", "--N", "4"]])
    options = _TRAINED if not quick else [*_VOLUME, "--solution", "trained", "--steps", "300", "--tries", "1",
                                          "--models", "20"]
    with tempfile.TemporaryDirectory() as tmp:
        files = [Path(tmp) / f"part{k}.json" for k in range(len(parts))]
        for part, out in zip(parts, files):
            _commands([*options, *part, "--json", str(out)])(data_dir, False, progress)
        merge_volume_files(files, Path(data_dir) / "local_volume_trained.json",
                      _TRAINED_NOTE + "; merged from the three commands of docs/results-paper-b.md (N = 4, 6, 8; "
                      "FIRST and MAJORITY at N = 10; PARITY at N = 10)")
        if quick:
            return
        files = []
        for function, ks in _N12_GRID.items():
            sigmas = ",".join(repr(10.0 ** (-4 + k / 6)) for k in ks)
            files.append(Path(tmp) / f"n12_{function}.json")
            argv = [*_TRAINED, "--function", function, "--N", "12", "--models", "100", "--sigmas", sigmas,
                    "--json", str(files[-1])]
            _commands(argv)(data_dir, False, progress)
        merge_volume_files(files, Path(data_dir) / "local_volume_trained_N12.json",
                      _TRAINED_NOTE + "; N = 12, 100 directions per sigma on a 9-point subset of the default grid "
                      "per function; merged from the three commands of docs/results-paper-b.md")


def _bhattamishra(data_dir, quick, progress):
    """The public code of Bhattamishra et al. is read from the folder in
    ``BOOLVERIFY_BHATTAMISHRA_SOURCE`` (or the fetched copy the module finds itself)."""
    import os

    from verify.experiments import bhattamishra_init_agreement as agreement

    argv = ["--out", str(Path(data_dir) / "bhattamishra_init_agreement.json")]
    if os.environ.get("BOOLVERIFY_BHATTAMISHRA_SOURCE"):
        argv += ["--source", os.environ["BOOLVERIFY_BHATTAMISHRA_SOURCE"]]
    if quick:
        argv += ["--models", "20"]
    progress("python -m verify.experiments.bhattamishra_init_agreement " + " ".join(argv))
    if agreement.main(argv) != 0:
        raise InputError("the Bhattamishra agreement run failed (message above)")


def _seed_bases(data_dir, quick, progress):
    """``boolverify check`` at seed bases 1-20, summarised by :mod:`verify.report.seed_bases`
    (the quick form: base 1, claim SX-1, quick profile)."""
    import tempfile

    from verify.cli import main
    from verify.common.atomic_io import atomic_write_text
    from verify.report.seed_bases import summarise

    with tempfile.TemporaryDirectory() as tmp:
        reports = []
        for base in (1,) if quick else range(1, 21):
            reports.append(Path(tmp) / f"base{base}.json")
            argv = ["check", "--seed", str(base), "--json", str(reports[-1])]
            argv += ["--profile", "quick", "--claim", "SX-1"] if quick else ["--profile", "full"]
            progress("boolverify " + " ".join(argv))
            if main(argv) not in (0, 1):
                raise InputError(f"'boolverify {' '.join(argv)}' failed (message above)")
        summary = summarise({str(p): json.loads(p.read_text()) for p in reports})
        atomic_write_text(Path(data_dir) / "seed_bases.json", json.dumps(summary, indent=1) + "\n")


def _pair(*stems) -> tuple:
    """The PNG and PDF file of each figure stem."""
    return tuple(f"{stem}.{ext}" for stem in stems for ext in ("png", "pdf"))


#: how a quick sweep's cells are compared with the full sweep's (the quick plan measures a few
#: of its (d, m) or (d, n) cells with fewer seeds)
_SWEEP_CELLS = proportions([("successes", "n_seeds")], ("d", "m", "c", "eps"))
_SAMPLE_CELLS = proportions([("both_successes", "population_successes")], ("regime", "d", "n", "m"))
_TIMINGS = structure("benchmark timings depend on the machine and its load")
_COMPARE = ["xor", "compare", "--d", "1000", "--m", "32", "--seeds", "400", "--train-seeds", "30", "--steps", "2000",
            "--out", "{data}/xor_compare.json"]
_STEP_D64 = ["xor", "step", "--d", "64", "--m", "32", "--seed", "0", "--json", "{data}/xor_step_d64.json"]
_CONSTRUCTED = ["--function", "first,majority,parity", "--N", "4,6,8,10,12", "--models", "400"]
_CONSTRUCTED_QUICK = ["--function", "first,majority,parity", "--N", "4", "--models", "40"]
_CURVES = proportions([("exact", "models")], ("function", "N", "include_ln", "sigma"))
_LEGACY_SAMPLES = [["xor", "samples", "--d", str(d), "--n", ",".join(str(k * d * d) for k in ks), "--m", "32",
                    "--seeds", str(seeds), "--out", "{data}/xor_samples.json"] for d, ks, seeds in (
                        (16, (1, 2, 4, 8, 16, 32, 64), 40), (32, (2, 4, 8, 16, 32, 64), 40),
                        (64, (4, 8, 16, 32, 64), 40), (128, (16, 32, 64), 20))]

#: the named full runs, in the order ``--list`` shows them; every file of docs/data and
#: docs/figures is named by exactly one (tests/verify/cli/test_cli_reproduce.py)
RUNS = {
    "xor-sweep": Run("paper A one-step sweep over (d, m), d = 10^2 .. 10^8 (SX-4, SX-7; plans.FULL_SWEEP, "
                     "FULL_SWEEP_LARGE)", ("xor_sweep.json",), _xor_sweep, _paper_a_figures,
                     _pair("xor_success_heatmap", "xor_success_heatmap_limit", "xor_mstar"), _SWEEP_CELLS),
    "xor-samples-grid": Run("paper A one step on n samples, n*(d) (SX-6; plans.FINITE_FULL_DS)",
                            ("xor_samples_grid.json",), _finite("one_step", "xor_samples_grid.json"),
                            _paper_a_figures, _pair("xor_nstar"), _SAMPLE_CELLS),
    "xor-fixed-sample": Run("paper A training on a fixed sample, n*(d) (SX-6; plans.FINITE_FULL_DS)",
                            ("xor_fixed_sample_training.json",),
                            _finite("gradient_flow", "xor_fixed_sample_training.json"), _paper_a_figures,
                            _pair("xor_nstar_training"), _SAMPLE_CELLS),
    "xor-samples-legacy": Run("paper A one step on n = k d^2 samples, the earlier SX-6 grid kept as a record "
                              "(plans.SAMPLES_FULL; quick: its d = 16 row with 8 seeds)", ("xor_samples.json",),
                              _commands(*_LEGACY_SAMPLES, quick=[[*_LEGACY_SAMPLES[0][:-4], "--seeds", "8",
                                                                  *_LEGACY_SAMPLES[0][-2:]]]),
                              _no_figures, (), _SWEEP_CELLS, commands=tuple(_LEGACY_SAMPLES)),
    "xor-compare": Run("paper A softmax against linear and erf attention, one step and 2000 GD/Adam steps (SX-5)",
                       ("xor_compare.json",), _commands(_COMPARE, quick=[[*_COMPARE[:4], "--m", "8", "--seeds", "8",
                                                                          "--train-seeds", "2", "--steps", "20",
                                                                          *_COMPARE[-2:]]]),
                       _paper_a_figures, _pair("xor_loss_curves"), commands=(_COMPARE,)),
    "xor-step-d64": Run("paper A attention of both heads before and after one step, d = 64, m = 32 (SX-8)",
                        ("xor_step_d64.json",),
                        _commands(_STEP_D64), _paper_a_figures, _pair("xor_attention_d64"), exact(),
                        commands=(_STEP_D64,)),
    "sg1-profiles": Run("sensitivity profiles of MAJORITY, PARITY, 3-sparse parity, FIRST, a random function "
                        "and 5-sparse MAJORITY at N = 16 (SG-1; quick: N = 12)", (), _sg1_profiles, _no_figures,
                        _pair("sg1_profiles")),
    "sg2": Run("P(K_0 >= 1) of uniformly random functions, exact and Monte Carlo (SG-2; plans.SG2_REPORT)",
               ("sg2_random_functions.json",), _sg2, _no_figures, (),
               proportions([("hits", "samples")], ("N", "seed"))),
    "sg4": Run("largest single-bit influence of random transformers against N (SG-4; plans.SG4_FULL)",
               ("sg4_influence.json",), _sg("sg4"), _paper_b_figures, _pair("sg4_influence_vs_N")),
    "sg5": Run("margin-xi recognition of random transformers (SG-5; plans.SG5_FULL)",
               ("sg5_margin.json",), _sg("sg5"), _paper_b_figures, _pair("sg5_margin_vs_N")),
    "sg6": Run("exact profiles of random transformers at eps = 0 (SG-6; plans.SG6_FULL, SG6_D32_FULL)",
               ("sg6_random_profiles.json",), _sg("sg6"), _paper_b_figures,
               _pair("sg6_K0_fraction_vs_N", "sg6_profiles_per_init")),
    "theorem45": Run("Theorem 4.5 past its crossover, K_0 >= N^a at N* .. 4 N* (plans.THEOREM45_FULL, "
                     "THEOREM45_BHATTAMISHRA)", ("theorem45.json",), _theorem45, _paper_b_figures, _pair("theorem45")),
    "sg8-training": Run("training on MAJORITY, FIRST, PARITY at N = 8, 16, 24, the earlier slow run kept as a "
                        "record (SG-8; plans.SG8_TRAINING)", ("sg8_training.json",),
                        _sg8("sg8_training.json", "SG8_TRAINING"), _no_figures),
    "sg8-decisions": Run("SG-8's decisions at the claim's own settings: the cells, looks and seeds of the claim "
                         "test, and its figure (SG-8; plans.SG8_DECISIONS)", ("sg8_decisions.json",),
                         _sg8_decisions, _sg8_figures, _pair("sg8_training_profiles")),
    "sg8-parity-transition": Run("where PARITY stops being learned, N = 10 .. 16 at 1000 steps (SG-8; "
                                 "plans.SG8_PARITY_TRANSITION)", ("sg8_parity_transition.json",),
                                 _sg8("sg8_parity_transition.json", "SG8_PARITY_TRANSITION"), _no_figures),
    "local-volume": Run("SG-9 local radius around the constructed solutions, N = 4 .. 12, 400 directions per sigma "
                        "(quick: N = 4, 40)", ("local_volume.json",),
                        _commands([*_VOLUME, *_CONSTRUCTED, "--json", "{data}/local_volume.json"],
                                  quick=[[*_VOLUME, *_CONSTRUCTED_QUICK, "--json", "{data}/local_volume.json"]]),
                        _no_figures, (), _CURVES),
    "local-volume-no-ln": Run("SG-9 local radius with the layer norms unperturbed, N = 4, 8, 12 (quick: N = 4, 40)",
                              ("local_volume_no_ln.json",),
                              _commands([*_VOLUME, *_CONSTRUCTED[:3], "4,8,12", *_CONSTRUCTED[4:], "--no-ln",
                                         "--json", "{data}/local_volume_no_ln.json"],
                                        quick=[[*_VOLUME, *_CONSTRUCTED_QUICK, "--no-ln", "--json",
                                                "{data}/local_volume_no_ln.json"]]),
                              _no_figures, (), _CURVES),
    "certified-volume": Run("SG-9 certified boxes theta* +- h beside the sampled curves, and the local-volume "
                            "figure (quick: N = 4, 40)", ("certified_volume.json",),
                            _commands([*_VOLUME, *_CONSTRUCTED, "--certify", "--json", "{data}/certified_volume.json",
                                       "--figure", "{figures}/local_volume.png"],
                                      quick=[[*_VOLUME, *_CONSTRUCTED_QUICK, "--certify", "--json",
                                              "{data}/certified_volume.json", "--figure",
                                              "{figures}/local_volume.png"]]),
                            _volume_figures, _pair("local_volume"), _CURVES),
    "local-volume-trained": Run("SG-9 local radius around trained solutions, N = 4 .. 10 and the N = 12 subset "
                                "grid, and its figure (quick: FIRST at N = 4, 300 steps, 20 directions)",
                                ("local_volume_trained.json", "local_volume_trained_N12.json"), _trained_volume,
                                _volume_figures, _pair("local_volume_trained"),
                                structure("a quick training budget gives other solutions, whose curves no "
                                          "committed record matches"), commands=(_TRAINED,)),
    "local-volume-trained-seed10": Run("SG-9 a second trained solution per cell, training seeds from 10, "
                                       "N = 4, 6, 8 (quick: FIRST at N = 4)", ("local_volume_trained_seed10.json",),
                                       _commands([*_TRAINED, "--train-seed", "10", "--function",
                                                  "first,majority,parity", "--N", "4,6,8", "--json",
                                                  "{data}/local_volume_trained_seed10.json"],
                                                 quick=[[*_VOLUME, "--solution", "trained", "--steps", "300",
                                                         "--tries", "1", "--models", "20", "--train-seed", "10",
                                                         "--function", "first", "--N", "4", "--json",
                                                         "{data}/local_volume_trained_seed10.json"]]),
                                       _no_figures, (), structure("a quick training budget gives other solutions"),
                                       commands=(_TRAINED,)),
    "bhattamishra-agreement": Run("SG-6 the public random-transformer inits of Bhattamishra et al. against "
                                  "boolverify's (its code from BOOLVERIFY_BHATTAMISHRA_SOURCE or the fetched "
                                  "copy; quick: 20 models per side)", ("bhattamishra_init_agreement.json",),
                                  _bhattamishra, _no_figures, (),
                                  structure("the quick plan draws fewer models per side")),
    "seed-bases": Run("boolverify check --profile full at seed bases 1 .. 20, every decision's outcome counts "
                      "(more than ten minutes a base on 2 cores; quick: base 1, SX-1)", ("seed_bases.json",),
                      _seed_bases, _no_figures, (),
                      structure("the quick plan runs one base and one claim")),
    "mutants": Run("boolverify mutants: every planted bug of the catalogue and the test that catches it (quick: "
                   "one mutant)", ("mutants.json",),
                   _commands(["mutants", "--json", "{data}/mutants.json", "--jobs", "2"],
                             quick=[["mutants", "--json", "{data}/mutants.json", "--only", "loss_drops_t_squared",
                                     "--jobs", "1"]]),
                   _no_figures, (), structure("the quick plan runs one mutant"),
                   structure("per-mutant times and messages depend on the machine; caught status is "
                             "compared by the check of docs/report.md")),
    "bench-xor": Run("benchmark of the two-head model (python -m bench.xor --repeats 7)", ("bench_xor.json",),
                     _bench("xor", ["--repeats", "7"], ["--quick", "--repeats", "1"]), _no_figures, (), _TIMINGS,
                     _TIMINGS),
    "bench-sensitivity": Run("benchmark of exact sensitivity profiles (python -m bench.sensitivity --repeat 9 "
                             "--large)", ("bench_sensitivity.json",),
                             _bench("sensitivity", ["--repeat", "9", "--large"],
                                    ["--N", "12", "--fourier-N", "8", "--repeat", "1"]),
                             _no_figures, (), _TIMINGS, _TIMINGS),
    "bench-transformer": Run("benchmark of random-transformer profiles (python -m bench.transformer --speed-only "
                             "--N 20 --N-plain 16 --N-sample 256 --strings 8 --repeats 3)", ("bench_transformer.json",),
                             _bench("transformer", ["--speed-only", "--N", "20", "--N-plain", "16", "--N-sample", "256",
                                                    "--strings", "8", "--repeats", "3"],
                                    ["--speed-only", "--N", "8", "--N-plain", "6", "--N-sample", "16", "--strings",
                                     "2", "--repeats", "1"]), _no_figures, (), _TIMINGS, _TIMINGS),
    "bench-profile": Run("where the proof-checking time goes: boolverify check claim by claim and pytest theorems/ "
                         "test by test, three runs each, the file's earlier profile kept as the previous one "
                         "(python -m bench.profile --previous; quick: check of SX-1 once)",
                         ("bench_profile.json",),
                         _bench("profile", ["--previous"], ["--repeats", "1", "--only", "check", "--claim", "SX-1"]),
                         _no_figures, (), _TIMINGS, _TIMINGS),
    "bench-local-volume": Run("benchmark of the batched local-volume pass (python -m bench.local_volume)",
                              ("bench_local_volume.json",),
                              _bench("local_volume", [], ["--N", "6", "--models", "8", "--loop-models", "2",
                                                          "--repeats", "1"]), _no_figures, (), _TIMINGS, _TIMINGS),
    "report-figures": Run("no run: SG-6's decisions from the check report OUT_DIR/report.json (check --json)", (),
                          _no_run, _report_figures, _pair("sg6_decisions")),
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
    if not args.list:
        # every file the runs write (and resume from) is checked before the first run starts
        from verify.experiments.plans import check_resume_file

        check_output_dir(out_dir, "--out-dir", ("data", "figures"))
        for sub, f in [("data", f) for n in names for f in RUNS[n].data] + [
                ("figures", f) for n in names for f in RUNS[n].figure_files]:
            check_output_in(out_dir, Path(sub) / f, "--out-dir")
            check_resume_file(out_dir / sub / f)
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
        width = max(map(len, RUNS))
        for name, r in RUNS.items():
            files = ", ".join([f"data/{f}" for f in r.data] + [f"figures/{f}" for f in r.figure_files]) or "-"
            print(f"{name:{width}s} {r.description}\n{'':{width + 1}s}-> {files}")
        return 0
    import torch

    from verify.common.provenance import update_run

    torch.set_num_threads(threads)
    data_dir, fig_dir = out_dir / "data", out_dir / "figures"
    for folder in (data_dir, fig_dir):  # the commands a run wraps write into existing folders only
        folder.mkdir(parents=True, exist_ok=True)
    with progress("runs", len(names), unit="runs") as shown:
        for name in names:
            # each named run's files record its own plan and time
            update_run(plan=plan_of(name, args.quick), threads=threads, started=time.time())
            note = partial(lambda name, text: shown.note(f"{name}: {text}"), name)
            t0 = time.perf_counter()
            note("started" + (" (quick plan)" if args.quick else ""))
            RUNS[name].run(data_dir, args.quick, note)
            drawn = RUNS[name].draw(data_dir, fig_dir)
            shown.advance(f"{name}: done, {sum(len(v) for v in drawn.values())} figure files under {fig_dir}",
                          seconds=time.perf_counter() - t0)
    return 0
