"""`boolverify sensitivity volume`: the local volume around a solution (paper B, as formalised in
boolverify; :mod:`verify.experiments.local_volume`).

For each ``--N``, a solution of ``--function`` — its explicit construction
(:mod:`numeric.transformer`, ``--solution constructed``, the default) or a trained model
(``--solution trained``: the SG-8 training loop, float64, D = 16, L = 2, H = 2, eps = 1e-5, seeds
``--train-seed``, +1, ... tried in order, at most ``--tries`` runs of ``--steps`` AdamW steps, until
one computes the function on all 2^N strings) — is perturbed
by ``sigma z`` (``z`` standard normal over every parameter; ``--no-ln`` keeps the layer norms'
gains and biases fixed), ``--models`` times per ``sigma`` of ``--sigmas``; a perturbation counts
when it still computes the function on all 2^N strings. Reported per ``sigma``: that fraction
with an exact Clopper-Pearson interval and the mean fraction of strings that keep their value;
per ``N`` the radius where the fraction crosses 1/2 (interpolated in log sigma). With
``--certify`` also the largest half-width h found by bisection for which every parameter of the
box theta* +- h is proved (outward-rounded interval arithmetic) to compute the function on every
string, and the box's log-volume M log(2h) (:mod:`verify.experiments.certified_volume`).
"""

from __future__ import annotations

from numeric.validation import check_choice, check_int, check_real, check_seed, reject
from verify.cli import writing
from verify.cli.options import add_time_budget, integer

#: Longest N accepted (2^N strings per perturbed model).
MAX_N = 16


def register(sub):
    p = sub.add_parser("volume", help="local volume around a constructed or trained FIRST / MAJORITY / PARITY solution")
    p.add_argument("--function", default="majority", help="first, majority or parity, or a comma-separated list of them (default majority)")
    p.add_argument("--N", default="4,6,8", help="comma-separated input lengths (default 4,6,8)")
    p.add_argument("--sigmas", default=None,
                   help="comma-separated increasing perturbation scales > 0 (default 25 values log-spaced "
                   "over [1e-4, 1])")
    p.add_argument("--models", type=integer, default=200, help="perturbations per sigma (default 200)")
    p.add_argument("--seed", type=integer, default=0, help="seed >= 0 of the perturbation directions (default 0)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level of the intervals (default 0.95)")
    p.add_argument("--no-ln", dest="include_ln", action="store_false",
                   help="keep the layer-norm gains and biases unperturbed")
    p.add_argument("--certify", action="store_true",
                   help="also the largest certified box theta* +- h (interval arithmetic over all 2^N strings; "
                   "bisection on log h) and its log-volume, per function and N")
    p.add_argument("--solution", default="constructed",
                   help="what is perturbed: constructed (the explicit construction, default) or trained "
                   "(a model trained until it computes the function on all 2^N strings)")
    p.add_argument("--steps", type=integer, default=None,
                   help="--solution trained: AdamW steps per training run (default 1000)")
    p.add_argument("--tries", type=integer, default=None,
                   help="--solution trained: training runs (seeds in order) before giving up (default 5)")
    p.add_argument("--train-seed", dest="train_seed", type=integer, default=None,
                   help="--solution trained: the first training seed (default 0)")
    p.add_argument("--threads", type=integer, default=None, help="torch CPU threads (default: torch's)")
    p.add_argument("--json", metavar="FILE", help="write the curves as JSON (atomically)")
    p.add_argument("--figure", metavar="FILE", help="figure of the curves and radii (PNG/PDF by suffix, atomic)")
    add_time_budget(p)
    p.set_defaults(func=_volume)


def _validate(args):
    """Option checks before any work; returns ``(Ns, sigmas)``."""
    from verify.cli.options import (FLOPS_PER_SECOND, MAX_THREADS, check_distinct_files, check_figure_output,
                                    check_output, comma_items, integers, reals, require_time)
    from numeric.vocabulary import CONSTRUCTED_FUNCTIONS as CONSTRUCTED, VOLUME_SOLUTIONS
    from verify.experiments.local_volume import (DEFAULT_SIGMAS, DEFAULT_TRAIN_BATCH, DEFAULT_TRAIN_STEPS,
                                                 DEFAULT_TRIES, TRAINED_SHAPE, check_sigmas)

    # the names of the constructions (a trained solution is compared with its function's)
    functions = [check_choice(f, "--function", CONSTRUCTED) for f in comma_items(
        args.function, "--function", f"one of {', '.join(CONSTRUCTED)}, or a comma-separated list")]
    if len(set(functions)) < len(functions):
        reject("--function", args.function, "distinct functions (one curve each)")
    Ns = integers(args.N, "--N", lo=1, hi=MAX_N)
    if len(set(Ns)) < len(Ns):
        reject("--N", args.N, f"distinct lengths ({sorted(N for N in set(Ns) if Ns.count(N) > 1)} repeated)")
    sigmas = DEFAULT_SIGMAS if args.sigmas is None else check_sigmas(reals(args.sigmas, "--sigmas"), "--sigmas")
    check_int(args.models, "--models", lo=1, hi=10**7)
    check_seed(args.seed, "--seed", count=args.models)
    check_real(args.level, "--level", lo=0, hi=1, lo_open=True, hi_open=True)
    if args.threads is not None:
        check_int(args.threads, "--threads", lo=1, hi=MAX_THREADS)
    check_output(args.json, "--json")
    check_figure_output(args.figure, "--figure")
    check_distinct_files([("--json", args.json), ("--figure", args.figure)])
    check_choice(args.solution, "--solution", VOLUME_SOLUTIONS)
    trained = args.solution == "trained"
    for option, value in (("--steps", args.steps), ("--tries", args.tries), ("--train-seed", args.train_seed)):
        if value is not None and not trained:
            reject(option, value, "no value unless --solution trained (it sets the training runs)")
    if trained and args.certify:
        reject("--certify", True, "--solution constructed (the certified interval pass encloses one-layer "
               "models; the trained ones have two layers)")
    steps = DEFAULT_TRAIN_STEPS if args.steps is None else check_int(args.steps, "--steps", lo=1, hi=10**7)
    tries = DEFAULT_TRIES if args.tries is None else check_int(args.tries, "--tries", lo=1, hi=1000)
    if args.train_seed is not None:
        check_seed(args.train_seed, "--train-seed", count=tries)
    if trained:
        # per string and position: the D x D projections, the MLP and the attention of each layer
        D, F, L = TRAINED_SHAPE["D"], 4 * TRAINED_SHAPE["D"], TRAINED_SHAPE["L"]
        per_model = [(1 << N) * (N + 1) * L * (4 * D * D + 2 * D * F + 2 * (N + 1) * D) for N in Ns]
        # a training step is at least a forward and a backward pass over min(batch, 2^N) strings
        training = sum(3 * p * min(DEFAULT_TRAIN_BATCH, 1 << N) / (1 << N) for p, N in zip(per_model, Ns)) * steps
        flops = (sum(per_model) * args.models * len(sigmas) + training) * len(functions)
    else:
        flops = sum((1 << N) * (N + 1) * 6 * 40 for N in Ns) * args.models * len(sigmas) * len(functions)
    if args.certify:
        from verify.experiments.certified_volume import DEFAULT_STEPS

        # one certification is about 100 interval operations of 8 flops per string and position
        flops += sum((1 << N) * (N + 1) * 800 for N in Ns) * (DEFAULT_STEPS + 2) * len(functions)
    require_time(flops / FLOPS_PER_SECOND, "the perturbed models", f"--N = {args.N}, --models = {args.models}")
    return functions, Ns, tuple(sigmas)


def _volume(args) -> int:
    functions, Ns, sigmas = _validate(args)
    import torch

    from verify.cli.options import console as make_console
    from verify.experiments.local_volume import local_volume

    if args.threads is not None:
        torch.set_num_threads(args.threads)
    from verify.cli.progress import progress

    curves, trainings = [], []
    with progress("volume", len(functions) * len(Ns) * len(sigmas), unit="sigmas") as shown:
        for fn in functions:
            for N in Ns:
                solution = None
                if args.solution == "trained":
                    trainings.append(_train(fn, N, args, shown))
                    solution = trainings[-1].model
                    if solution is None:
                        # no curve at this (function, N): its sigmas are not work of this run
                        shown.set_total(shown.total - len(sigmas))
                        continue
                curves.append(local_volume(fn, N, sigmas, args.models, seed=args.seed, level=args.level,
                                           include_ln=args.include_ln, solution=solution,
                                           progress=lambda i, N=N, fn=fn: shown.advance(
                                               f"{fn} N={N} sigma={sigmas[i]:g}")))
    boxes = _certify(functions, Ns, args.include_ln) if args.certify else None
    console = make_console()
    _report(curves, console, args.solution)
    if trainings:
        _report_training(trainings, console)
    if args.figure and not curves:
        # decided before any file is written: a figure of no curve would be empty, so neither it
        # nor the JSON of the same run is written
        reject("--figure", args.figure, "curves to draw, but no training run learned its function on all 2^N "
               f"strings ({len(trainings)} of {len(trainings)} failed; raise --steps or --tries); nothing was written")
    if boxes is not None:
        _report_boxes(boxes, curves, console)
    if args.json:
        from verify.common.atomic_io import atomic_write_json

        data = {"functions": functions, "curves": [c.as_dict() for c in curves],
                "note": "as formalised in boolverify: explicit constructions, "
                        "Gaussian perturbations of every parameter"}
        if args.solution == "trained":
            data["solution"] = "trained"
            data["training"] = [t.as_dict() for t in trainings]
            data["note"] = ("as formalised in boolverify: trained solutions (SG-8 training loop, float64, "
                            "exact on all 2^N strings), Gaussian perturbations of every parameter")
        if boxes is not None:
            data["certified"] = [b.as_dict() for b in boxes]
        with writing(args.json, "--json"):
            atomic_write_json(args.json, data)
    if args.figure:
        from verify.report.volume_figures import volume_figure

        with writing(args.figure, "--figure"):
            volume_figure([c.as_dict() for c in curves], args.figure,
                          certified=None if boxes is None else [b.as_dict() for b in boxes],
                          data=[args.json] if args.json else ())
    return 0


def _train(fn, N, args, shown):
    """The trained solution of ``fn`` at ``N`` (each training run a note of ``shown``, the
    command's progress display)."""
    from verify.experiments.local_volume import DEFAULT_TRAIN_STEPS, DEFAULT_TRIES, trained_solution

    tries = DEFAULT_TRIES if args.tries is None else args.tries

    def progress(i, seed, accuracy):
        shown.note(f"train {fn} N={N}: seed {seed} (run {i + 1} of at most {tries}) exact accuracy {accuracy:.6f}")

    return trained_solution(fn, N, seed=0 if args.train_seed is None else args.train_seed, tries=tries,
                            steps=DEFAULT_TRAIN_STEPS if args.steps is None else args.steps, progress=progress)


def _report_training(trainings, console) -> None:
    from rich.table import Table

    t = Table(title="trained solutions (float64; exact accuracy over all 2^N strings), as formalised in boolverify")
    for col in ("function", "N", "runs", "seed used", "steps", "exact accuracy per run", "seconds"):
        t.add_column(col, justify="right")
    for r in trainings:
        t.add_row(r.function, str(r.N), str(r.tries), "none learned" if r.seed is None else str(r.seed),
                  str(r.steps), ", ".join(f"{a:.4f}" for a in r.accuracies), f"{r.train_seconds:.1f}")
    console.print(t)


def _certify(functions, Ns, include_ln):
    from verify.cli.progress import progress
    from verify.experiments.certified_volume import largest_certified_half_width

    boxes = []
    with progress("certify", len(functions) * len(Ns), unit="models") as shown:
        for fn in functions:
            for N in Ns:
                def box(i, total, N=N, fn=fn):
                    shown.status(f"{fn} N={N}: box {i}/{total}")

                boxes.append(largest_certified_half_width(fn, N, include_ln=include_ln, progress=box))
                h = boxes[-1].half_width
                shown.advance(f"{fn} N={N}: " + ("no box certified" if h is None else f"half-width {h:.3g}"))
    return boxes


def _report_boxes(boxes, curves, console) -> None:
    from rich.table import Table

    radius = {(c.function, c.N): c.radius for c in curves}
    t = Table(title="certified boxes theta* +- h (every parameter in the box computes f on every string; "
                    "interval arithmetic), as formalised in boolverify")
    for col in ("function", "N", "M", "certified h", "refused h", "log-volume M log(2h)", "sampled r"):
        t.add_column(col, justify="right")
    for b in boxes:
        r = radius.get((b.function, b.N))
        t.add_row(b.function, str(b.N), str(b.n_params),
                  "not certified" if b.half_width is None else f"{b.half_width:.4g}",
                  "-" if b.refused_half_width is None else f"{b.refused_half_width:.4g}",
                  "-" if b.log_volume is None else f"{b.log_volume:.1f}", "-" if r is None else f"{r:.4g}")
    console.print(t)


def _report(curves, console, solution="constructed") -> None:
    from rich.table import Table

    for c in curves:
        t = Table(title=f"local volume of {c.function}, N = {c.N}, {solution} solution (D={c.D}, L={c.L}, H={c.H}, F={c.F}, "
                        f"eps={c.eps:g}, M={c.n_params}, LN {'perturbed' if c.include_ln else 'fixed'}), "
                        "as formalised in boolverify")
        for col in ("sigma", "exact", f"fraction ({c.level:g} CI)", "strings kept"):
            t.add_column(col, justify="right")
        for p in c.points:
            t.add_row(f"{p.sigma:.3g}", f"{p.exact}/{p.models}", f"{p.fraction:.3f} [{p.ci[0]:.3f}, {p.ci[1]:.3f}]",
                      f"{p.kept_fraction:.4f}")
        console.print(t)
    for c in curves:
        if c.radius is None:
            console.print(f"{c.function} N = {c.N}: no crossing of 1/2 on the grid ({c.crossing})")
        else:
            lo, hi = c.radius_range
            rng = f"[{'-' if lo is None else f'{lo:.3g}'}, {'-' if hi is None else f'{hi:.3g}'}]"
            console.print(f"{c.function} N = {c.N}: r = {c.radius:.4g} (interval ends cross at {rng})")
