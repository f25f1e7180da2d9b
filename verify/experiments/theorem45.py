r"""Theorem 4.5 past its crossover (paper B, as formalised in boolverify): is the number of
zero-sensitivity strings :math:`K_0` of a random transformer at least :math:`N^a`,
:math:`a = (D-1)/(2L) - 5`, at lengths :math:`N^* \le N \le 4N^*` beyond the crossover
:math:`N^*` (the smallest :math:`N` from which :math:`N^a < 2^N`)?

Per init scheme and :math:`N`, models (seeds ``0, 1, ...``; the same models at every N) are
drawn until ``target`` of them are non-constant or ``max_draws`` were drawn:

1. screen: ``pilot`` uniform strings are evaluated (one forward pass each); a model whose
   pilot values all agree is counted as looking constant and not sampled further (the screen
   is what makes the run affordable: most random models look constant, and the full sample of
   one model at N = 260 costs seconds);
2. sample: ``S`` strings and their N neighbours
   (:func:`verify.experiments.sampled_profiles.sample_model`); a model whose sample is all
   one value also counts as looking constant.

For each non-constant model the one-sided lower Clopper-Pearson bound ``lo`` of
:math:`K_0/2^N` (level 0.95) gives :math:`\log_2 K_0 \ge N + \log_2 lo` (with that
confidence, per model), compared with :math:`a \log_2 N` in log2 space (``-inf`` when no
zero-sensitivity string was seen).

Run: ``python -m verify.experiments.theorem45 --json docs/data/theorem45.json --figure
docs/figures/theorem45.png``. The JSON is rewritten atomically after every (scheme, N) cell and
a rerun with the same parameters resumes from it.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import torch

from numeric.transformer_model import readout_table
from numeric.validation import InputError, check_choice, check_int, check_ints, check_real
from numeric.vocabulary import INIT_SCHEMES

LEVEL = 0.95


def crossover_of(D: int, L: int) -> tuple[float, int]:
    """``(a, N*)`` for width ``D`` and ``L`` layers (Lambert W, checked directly)."""
    from verify.reference.bounds import crossover, theorem_exponent

    a = theorem_exponent(D, L)
    return float(a), int(crossover(a)["N_star"])


def default_lengths(N_star: int) -> list[int]:
    """``N*, 1.5 N*, 2 N*, 3 N*, 4 N*`` (rounded)."""
    return sorted({round(N_star * r) for r in (1, 1.5, 2, 3, 4)})


def _pilot_constant(model, N, pilot, seed):
    from verify.experiments.sampled_profiles import STRING_SEED_OFFSET

    # a stream of its own (not the sample's), so the sample is the same with or without the screen
    g = torch.Generator().manual_seed(2 * STRING_SEED_OFFSET + seed)
    x = torch.randint(0, 2, (pilot, N), generator=g, dtype=torch.uint8)
    with torch.no_grad():
        T = model(x)
    f = readout_table(T, model.config.readout)
    return bool((f == f[0]).all())


def run_cell(config, scheme, N, *, a, S, target, max_draws, pilot, tokens=None, progress=None, **init_kw) -> dict:
    """One (scheme, N) cell: draw models until ``target`` non-constant ones (or ``max_draws``)."""
    from numeric.transformer_model import random_model
    from verify.experiments.sampled_profiles import sample_model

    t0 = time.perf_counter()
    log2_Na = a * math.log2(N)
    recs, draws, pilot_constant, sample_constant = [], 0, 0, 0
    while len(recs) < target and draws < max_draws:
        seed = draws
        draws += 1
        model = random_model(config, scheme, seed, **init_kw)
        if pilot and _pilot_constant(model, N, pilot, seed):
            pilot_constant += 1
        else:
            r = sample_model(model, N, S, seed, level=LEVEL, tokens=tokens)
            if r["constant_on_sample"]:
                sample_constant += 1
            else:
                lo = r["k0_lower"]
                r["log2_K0_lower"] = N + math.log2(lo) if lo > 0 else None
                r["holds"] = lo > 0 and N + math.log2(lo) >= log2_Na
                del r["profile_fraction"]  # the counts are kept; the fractions follow from them
                recs.append(r)
        if progress is not None:
            progress(draws, len(recs))
    holds = sum(r["holds"] for r in recs)
    finite = sorted(r["log2_K0_lower"] for r in recs if r["log2_K0_lower"] is not None)
    return {
        "scheme": scheme, "N": N, "S": S, "log2_Na": log2_Na, "log2_2N": N,
        "draws": draws, "looked_constant_pilot": pilot_constant, "looked_constant_sample": sample_constant,
        "nonconstant": len(recs), "reached_target": len(recs) >= target,
        "bound_holds": holds, "bound_holds_fraction": holds / len(recs) if recs else None,
        "k0_observed": sum(r["k0_count"] >= 1 for r in recs),
        "median_log2_K0_lower": finite[len(finite) // 2] if len(finite) * 2 > len(recs) else None,
        "seconds": time.perf_counter() - t0,
        "models": recs,
    }


def strings_for(N, S, S_large, large_from):
    """``S`` strings per model below ``large_from``, ``S_large`` from there on.

    Why fewer at large N: from N of about 1.1 N* on, N^a / 2^N is so small (2^-25 at N = 98,
    D = 64, L = 2) that a single observed zero-sensitivity string already puts the lower bound
    of K_0 above N^a (k0 = 1 of S = 4 gives 2^N * 0.0127), so S decides little there, while one
    string costs N + 1 passes of length N + 1. At N* itself N^a / 2^N is close to 1 (0.8355 for
    D = 64, L = 2): only S >= 17 strings all of sensitivity 0 can certify that (the largest
    lower bound of S strings is 0.05^(1/S), 0.829 at S = 16), so with the default S = 16 the
    cell at N* reports estimates, not certificates."""
    return S if N < large_from else S_large


def figure(data, path):
    """log2 of the per-model lower bound of K_0 against N, per scheme, beside a log2 N and N."""
    from verify.common.atomic_io import atomic_savefig, pyplot

    plt = pyplot()
    schemes = data["params"]["schemes"]
    a = data["params"]["a"]
    fig, axes = plt.subplots(1, len(schemes), figsize=(4.2 * len(schemes), 3.8), squeeze=False, sharey=True)
    cells = data["cells"]
    Ns = sorted({c["N"] for c in cells.values()})
    floor = -10
    for ax, scheme in zip(axes.flat, schemes):
        for key, c in cells.items():
            if c["scheme"] != scheme:
                continue
            ys = [r["log2_K0_lower"] if r["log2_K0_lower"] is not None else floor for r in c["models"]]
            xs = [c["N"] + (i % 9 - 4) * 0.6 for i in range(len(ys))]
            ax.scatter(xs, ys, s=8, alpha=0.6, color="tab:blue")
            ax.annotate(f"{c['bound_holds']}/{c['nonconstant']}\n({c['draws']} drawn)", (c["N"], floor + 3),
                        fontsize=6, ha="center")
        n = [min(Ns) * 0.95 + i * (max(Ns) * 1.05 - min(Ns) * 0.95) / 100 for i in range(101)]
        ax.plot(n, [a * math.log2(v) for v in n], color="tab:red", label=r"$a\log_2 N$ (Thm 4.5)")
        ax.plot(n, n, color="gray", ls="--", label=r"$N$ ($K_0 = 2^N$)")
        ax.axhline(floor, color="k", lw=0.5)
        ax.set_title(scheme, fontsize=9)
        ax.set_xlabel("N")
    axes.flat[0].set_ylabel(r"$\log_2$ (95% lower bound of $K_0$); none seen: bottom")
    axes.flat[0].legend(fontsize=7, loc="upper left")
    p = data["params"]
    fig.suptitle(f"Theorem 4.5 past its crossover N* = {p['N_star']} (D = {p['D']}, L = {p['L']}, "
                 f"a = {a:g}); non-constant models, as formalised in boolverify", fontsize=9)
    fig.tight_layout()
    atomic_savefig(fig, path, dpi=130)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m verify.experiments.theorem45", description=__doc__.split("\n\n")[0])
    ap.add_argument("--D", type=int, default=64)
    ap.add_argument("--L", type=int, default=2)
    ap.add_argument("--H", type=int, default=2)
    ap.add_argument("--eps", type=float, default=0.0)
    ap.add_argument("--schemes", nargs="+", default=None, help="init schemes (default all; with --preset its own)")
    ap.add_argument("--preset", default=None, help="a TransformerConfig preset (its conventions, H, F, eps, "
                    "init and B; --H and --eps are then ignored)")
    ap.add_argument("--N", nargs="+", type=int, default=None, help="lengths (default N*, 1.5N*, 2N*, 3N*, 4N*)")
    ap.add_argument("--strings", type=int, default=16, help="S per model below --large-from (default 16)")
    ap.add_argument("--strings-large", dest="strings_large", type=int, default=4,
                    help="S per model from --large-from on (default 4)")
    ap.add_argument("--large-from", dest="large_from", type=int, default=None, help="default 2 N*")
    ap.add_argument("--target", type=int, default=30, help="non-constant models per cell (default 30)")
    ap.add_argument("--max-draws", dest="max_draws", type=int, default=150)
    ap.add_argument("--pilot", type=int, default=64, help="screening strings per model (0: no screen)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", required=True)
    ap.add_argument("--figure", default=None)
    args = ap.parse_args(argv)
    try:
        from verify.common.atomic_io import atomic_write_json, check_figure_path

        D = check_int(args.D, "--D", lo=2)
        L = check_int(args.L, "--L", lo=1)
        H = check_int(args.H, "--H", lo=1)
        eps = check_real(args.eps, "--eps", lo=0)
        for s in args.schemes or ():
            check_choice(s, "--schemes", INIT_SCHEMES)
        if args.preset is not None:
            from numeric.vocabulary import PRESETS

            check_choice(args.preset, "--preset", PRESETS)
        S = check_int(args.strings, "--strings", lo=1)
        S_large = check_int(args.strings_large, "--strings-large", lo=1)
        target = check_int(args.target, "--target", lo=1)
        max_draws = check_int(args.max_draws, "--max-draws", lo=1)
        pilot = check_int(args.pilot, "--pilot", lo=0)
        check_int(args.threads, "--threads", lo=1)
        if args.figure:
            check_figure_path(args.figure, name="--figure")
        a, N_star = crossover_of(D, L)
        Ns = check_ints(args.N, "--N", lo=1) if args.N else default_lengths(N_star)
        large_from = 2 * N_star if args.large_from is None else check_int(args.large_from, "--large-from", lo=1)
    except InputError as exc:
        ap.exit(2, f"theorem45: error: {exc}\n")
    torch.set_num_threads(args.threads)
    from rich.progress import Progress

    from numeric.transformer_model import TransformerConfig

    init_kw = {"B": 1.0, "sigma": 1.0}
    if args.preset is None:
        config = TransformerConfig(D=D, L=L, H=H, eps=eps, N_max=max(Ns))
        args.schemes = args.schemes or list(INIT_SCHEMES)
    else:
        from numeric.transformer_model import preset_config, preset_init

        config = preset_config(args.preset, D=D, L=L, N_max=max(Ns))
        init = preset_init(args.preset)
        args.schemes = args.schemes or [init["scheme"]]
        init_kw["B"] = init["B"]
    params = {"D": D, "L": L, "H": config.H, "F": config.F, "eps": config.eps, "N_max": config.N_max, "a": a,
              "N_star": N_star, "preset": args.preset,
              "conventions": getattr(config, "conventions", None),
              "schemes": list(args.schemes), "N": Ns, "strings": S, "strings_large": S_large,
              "large_from": large_from, "target": target,
              "max_draws": max_draws, "pilot": pilot, "level": LEVEL, "B": init_kw["B"], "sigma": init_kw["sigma"],
              "ci": "one-sided Clopper-Pearson lower bound of K_0/2^N per model"}
    data = {"params": params, "cells": {}, "note": "as formalised in boolverify"}
    path = Path(args.json)
    if path.exists():
        try:
            old = json.loads(path.read_text())
            # resume cell by cell: a cell is kept when the model, the draw rule and its own S agree
            loose = ("schemes", "N", "strings", "strings_large", "large_from")
            same = {k: v for k, v in old.get("params", {}).items() if k not in loose} == \
                {k: v for k, v in params.items() if k not in loose}
            if same:
                # other entries (e.g. a rerun of the N* cells with more strings) are kept
                data.update({k: v for k, v in old.items() if k not in data})
                data["cells"] = {key: c for key, c in old.get("cells", {}).items()
                                 if c["scheme"] in args.schemes and c["N"] in Ns
                                 and c["S"] == strings_for(c["N"], S, S_large, large_from)}
        except (OSError, ValueError):
            pass
    todo = [(s, N) for s in args.schemes for N in Ns if f"{s}/N={N}" not in data["cells"]]
    with Progress(transient=False) as prog:
        outer = prog.add_task(f"{len(todo)} cells", total=len(todo))
        for scheme, N in todo:
            inner = prog.add_task(f"{scheme} N={N}", total=target)

            def step(draws, found, inner=inner):
                prog.update(inner, completed=found, description=f"{scheme} N={N}: {draws} drawn")

            cell = run_cell(config, scheme, N, a=a, S=strings_for(N, S, S_large, large_from), target=target,
                            max_draws=max_draws, pilot=pilot, progress=step, **init_kw)
            data["cells"][f"{scheme}/N={N}"] = cell
            atomic_write_json(path, data)
            prog.remove_task(inner)
            prog.advance(outer)
            prog.console.print(f"{scheme:15s} N={N:4d}: {cell['bound_holds']}/{cell['nonconstant']} non-constant "
                               f"models meet N^a ({cell['draws']} drawn, {cell['looked_constant_pilot']} + "
                               f"{cell['looked_constant_sample']} looked constant; {cell['seconds']:.0f} s)")
    if args.figure:
        figure(data, args.figure)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
