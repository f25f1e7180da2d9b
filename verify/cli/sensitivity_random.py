"""`boolverify sensitivity random` and `boolverify sensitivity bounds` (paper B, as formalised
in boolverify).

``random``: exact sensitivity profiles of many randomly initialised transformers (SG-6), under
the model conventions of a preset (``--preset``): the constant fraction with its interval, kept
apart from the non-constant models' K_0 and average sensitivity (beside random functions of the
same density), and the models with K_0 = 0 by seed and function.
``bounds``: the 50-digit bounds of :mod:`verify.reference.bounds` (Theorem 4.5 exponent and its
Lambert-W crossover, the eps > 0 blowup bound, the packing bound).

The profiles are computed by :mod:`numeric.transformer` and summarised by
:mod:`verify.experiments.random_transformers`; the figure is drawn by
:mod:`verify.report.sensitivity_figures`. This module parses the options and prints.
"""

from __future__ import annotations

import math

from numeric.validation import InputError, check_device, check_int, check_real, check_seed
from verify.cli.options import integer
from numeric.vocabulary import (ALL_INIT_SCHEMES, BHATTAMISHRA_INIT_SCHEMES, INIT_SCHEMES, MODEL_DTYPES,
                                POSITION_ENCODINGS, PRESETS, READOUTS)
from verify.cli import writing
from verify.cli.options import (INIT_OPTION_FLAGS, add_backend_options, check_backend_options, check_distinct_files,
                                check_figure_output, check_init_options, check_model_options, check_output, check_transformer_sizes,
                                console as make_console)


def register(sub):
    p = sub.add_parser("random", help="exact sensitivity profiles of random transformers (SG-6)")
    p.add_argument("--preset", default="boolverify", choices=PRESETS,
                   help="model conventions: boolverify (post-LN, biased variance, eps inside the sqrt, "
                        "random biases, linear readout at 0, F = 4D, float64) or bhattamishra (the public "
                        "experiment satwik77/Transformer-Simplicity: pre-LN + final LN, unbiased std + eps, "
                        "sqrt(D) token scale, zero biases, LN gain 1, sigmoid at 1/2, F = 2D, H = 1, "
                        "U(-10, 10), float32)")
    p.add_argument("--N", type=integer, default=12, help="input length (all 2^N strings; default 12)")
    p.add_argument("--D", type=integer, default=32, help="model width (default 32)")
    p.add_argument("--L", type=integer, default=2, help="layers (default 2)")
    p.add_argument("--H", type=integer, default=None, help="heads (default: the preset's, 2 / 1)")
    p.add_argument("--F", type=integer, default=None, help="MLP width (default: the preset's, 4D / 2D)")
    p.add_argument("--eps", type=float, default=None,
                   help="layer-norm epsilon >= 0 (default: the preset's, 0 / 1e-6)")
    p.add_argument("--readout", default=None, choices=READOUTS,
                   help="linear: 1[T > 0]; sigmoid: 1[sigmoid(T) >= 1/2]; median: 1[T > median of T over "
                        "the 2^N strings] (default: the preset's, linear / sigmoid)")
    p.add_argument("--dtype", default=None, choices=MODEL_DTYPES,
                   help="float64 or float32 (default: the preset's, float64 / float32)")
    p.add_argument("--init", default=None, choices=ALL_INIT_SCHEMES,
                   help=f"boolverify's schemes {' | '.join(INIT_SCHEMES)}, or, with --preset bhattamishra, the "
                        f"public code's init methods {' | '.join(BHATTAMISHRA_INIT_SCHEMES)} (what each draws: "
                        "docs/results-paper-b.md) (default: the preset's, uniform)")
    p.add_argument("--B", type=float, default=None,
                   help="box half-width, for an --init that draws from a box (default: the preset's, 1 / 10); "
                        "refused under an --init that does not use it")
    p.add_argument("--sigma", type=float, default=None,
                   help="Gaussian std, for an --init that draws Gaussian weights (the public -std_init, whose "
                        "default is 10) (default 1); refused under an --init that does not use it")
    p.add_argument("--input-scale", dest="input_scale", type=float, default=None,
                   help="token-embedding std and learned-position half-width, for an --init that uses it (the "
                        "public -i_init) (default 1); refused under an --init that does not use it")
    p.add_argument("--positions", default="learned", choices=POSITION_ENCODINGS,
                   help="learned: a positional table drawn by the init; sinusoidal: the public code's fixed "
                        "sin/cos table of period 1000 (its -pos_encode absolute) (default learned)")
    p.add_argument("--bias", action="store_true",
                   help="with --preset bhattamishra: draw the attention and MLP biases as the init draws the "
                        "weights (the public init methods' bias=True; the readout has no bias) instead of 0")
    p.add_argument("--models", type=integer, default=100, help="number of random models (default 100)")
    p.add_argument("--seed", type=integer, default=0, help="first seed (model i uses seed + i)")
    p.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    add_backend_options(p, "evaluate the models")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON (atomically)")
    p.add_argument("--figure", metavar="FILE", help="draw the mean profile beside a random function")
    from verify.cli.options import add_time_budget

    add_time_budget(p)
    p.set_defaults(func=_random)

    b = sub.add_parser("bounds", help="Theorem 4.5 exponent, Lambert-W crossover, blowup and packing bounds")
    b.add_argument("--D", type=integer, default=64, help="model width (default 64)")
    b.add_argument("--L", type=integer, default=2, help="layers (default 2)")
    b.add_argument("--F", type=integer, default=None, help="MLP width (default 4D)")
    b.add_argument("--N-max", dest="N_max", type=integer, default=64, help="positional table size - 1 (default 64)")
    b.add_argument("--eps", type=float, default=1e-5, help="layer-norm epsilon for the blowup bound (default 1e-5)")
    b.add_argument("--xi", type=float, default=0.1, help="recognition margin (default 0.1)")
    b.add_argument("--B", type=float, default=1.0, help="box half-width; diam = 2B in sup-norm (default 1)")
    b.add_argument("--C-lip", dest="C_lip", type=float, action="append",
                   help="Lipschitz constant(s) of theta -> T (repeatable; default 1, 1e3, 1e6, 1e12, 1e24)")
    b.add_argument("--json", metavar="FILE", help="write the results as JSON (atomically)")
    b.set_defaults(func=_bounds)


def _resolve_preset(args) -> None:
    """Fill the options left at ``None`` from the preset (``--H``, ``--F``, ``--eps``,
    ``--readout``, ``--dtype``, ``--init``; ``--B`` in :func:`_check_preset_options`, only if the
    scheme uses it)."""
    from numeric.transformer import PRESET_SPECS

    spec = PRESET_SPECS[args.preset]
    for name, value in (("H", spec["H"]), ("eps", spec["eps"]), ("init", spec["init"]),
                        ("readout", spec["conventions"]["readout"]), ("dtype", spec["conventions"]["dtype"])):
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.F is None and isinstance(args.D, int):
        args.F = spec["F_per_D"] * args.D


def _validate_random(args) -> None:
    """Option checks before any work (the ranges of TransformerConfig and initialize_)."""
    from numeric.transformer import ENUM_LIMIT

    _resolve_preset(args)
    try:
        check_int(args.N, "--N", lo=1, hi=ENUM_LIMIT)
    except InputError as exc:
        raise InputError(f"{exc} (the enumeration limit: all 2^N strings are evaluated)") from None
    check_model_options(args)
    _check_preset_options(args)
    check_seed(args.seed, "--seed", count=args.models)
    check_device(args.device, "--device")
    check_figure_output(args.figure)  # before the run, not after it
    check_output(args.json, "--json")
    check_distinct_files([("--json", args.json), ("--figure", args.figure)])
    check_transformer_sizes(args.D, args.L, args.H, args.F, args.N, f"--D = {args.D}, --L = {args.L}, --F = {args.F}")
    from verify.cli.options import FLOPS_PER_SECOND, require_time

    per_string = args.L * (args.N + 1) * (4 * args.D**2 + 2 * args.D * args.F + 2 * (args.N + 1) * args.D)
    require_time(2.0**args.N * args.models * per_string / FLOPS_PER_SECOND, "evaluating every string",
                 f"--models = {args.models}, --N = {args.N}, --D = {args.D}, --L = {args.L}")
    args.scheduler = check_backend_options(args)


def _check_preset_options(args) -> None:
    """``--bias``, the init scheme's options and the public init schemes against the preset, with
    the options' spellings; the model layer's own checks (:func:`check_init_scheme`,
    :func:`init_options`) then agree. Sets ``args.init_options``, the options the scheme draws
    with (an unset ``--B`` is the preset's)."""
    from numeric.transformer import INIT_SCHEME_REGISTRY, PRESET_SPECS, check_init_scheme, init_scheme

    args.init_options = check_init_options(args, defaults={"B": PRESET_SPECS[args.preset]["B"]})
    if args.preset != "bhattamishra":
        if args.init in BHATTAMISHRA_INIT_SCHEMES:
            raise InputError(f"--init = {args.init}: expected one of boolverify's schemes {INIT_SCHEMES} under "
                             f"--preset {args.preset} (the bhattamishra_* schemes are the bhattamishra preset's: its "
                             "layer norms keep gain 1 and its readout has no bias)")
        if args.bias:
            raise InputError(f"--bias: expected only with --preset bhattamishra (--preset {args.preset} draws "
                             "every bias already)")
    if args.bias and not init_scheme(args.init).draws_biases:
        drawing = ", ".join(name for name, entry in INIT_SCHEME_REGISTRY.items() if entry.draws_biases)
        raise InputError(f"--bias: expected only with an --init that draws biases ({drawing}), not --init "
                         f"{args.init}, which sets every bias to 0 (as the public init_xavuni and init_xavnormal do)")
    args.biases = "scheme_except_readout" if args.bias else None
    check_init_scheme(_config(args), args.init, scheme_name="--init", biases_name="--bias")


def _config(args):
    from numeric.transformer import preset_config

    overrides = dict(readout=args.readout, dtype=args.dtype, positions=args.positions)
    if args.biases is not None:
        overrides["biases"] = args.biases
    return preset_config(args.preset, D=args.D, L=args.L, H=args.H, F=args.F, eps=args.eps,
                         N_max=max(64, args.N), **overrides)


def _init_parameters(args) -> str:
    """The init's options for the table title (those the scheme uses)."""
    return "".join(f" {INIT_OPTION_FLAGS[name][2:]}={value:g}" for name, value in args.init_options.items())


def _random(args) -> int:
    from rich.table import Table

    from verify.cli.progress import progress

    from numeric.transformer import PRESET_SPECS
    from verify.experiments.random_transformers import (
        RANDOM_FUNCTION_P_K0, sample_models, summarize_models, summarize_profiles,
    )

    _validate_random(args)
    cfg = _config(args)
    from verify.report.cells import fraction, power_of_two

    console = make_console()
    with progress(f"random N={args.N}", args.models, unit="models") as shown:
        got = sample_models(cfg, args.init, args.N, args.models, seed=args.seed, device=args.device,
                            **args.init_options, progress=lambda i: shown.advance(f"model {i}"),
                            workers=args.workers, scheduler=args.scheduler)
    K, N = got.profiles, args.N
    s = summarize_profiles(K, N)
    m = summarize_models(K, got.ones, N, seed=args.seed, functions=got.functions)
    params = {"preset": args.preset, "conventions": cfg.conventions, "N": N, "D": cfg.D, "L": cfg.L,
              "H": cfg.H, "F": cfg.F, "eps": cfg.eps, "init": args.init, **args.init_options,
              "seed": args.seed}
    preset_conventions = PRESET_SPECS[args.preset]["conventions"]
    changed = [f"{k}={v}" for k, v in cfg.conventions.items() if preset_conventions[k] != v]
    named = "" if not changed else " + " + ", ".join(changed)
    t = Table(title=f"random transformers ({args.preset} conventions{named}; {args.init}"
                    f"{_init_parameters(args)}, D={cfg.D}, L={cfg.L}, H={cfg.H}, "
                    f"F={cfg.F}, eps={cfg.eps:g}, N={N}), as formalised in boolverify")
    t.add_column("quantity")
    t.add_column("random transformers", justify="right")
    t.add_column("random function", justify="right")
    clo, chi = m.frac_constant_ci
    t.add_row("models", str(m.models), "")
    t.add_row("fraction constant [95% CP]", f"{m.frac_constant:.3f}  [{clo:.3f}, {chi:.3f}]",
              power_of_two(1 - 2 ** N))
    t.add_row("mean as / N, all models", f"{m.mean_avg_sensitivity_all / N:.4f}", "0.5")
    t.add_row("non-constant models", str(m.nonconstant), "")
    if m.nonconstant:
        t.add_row("  fraction with K_0 >= 1", f"{m.nonconstant_frac_K0_ge_1:.3f}", f"~{RANDOM_FUNCTION_P_K0:.3f}")
        t.add_row("  mean K_0 / 2^N", fraction(m.nonconstant_mean_K0_frac, 4), power_of_two(-N))
        t.add_row("  median K_0 / E_p[K_0]", f"{m.nonconstant_median_K0_ratio:.3f}", "~1")
        t.add_row("  mean as", f"{m.nonconstant_mean_avg_sensitivity:.4f}", f"{N / 2:.1f}")
        t.add_row("  median as / (2Np(1-p))", f"{m.nonconstant_median_as_ratio:.3f}", "~1")
    lo, hi = s.frac_K0_ge_1_ci95
    t.add_row("K_0 >= 1, all models [95%]", f"{s.frac_K0_ge_1:.3f}  [{lo:.3f}, {hi:.3f}]",
              f"~{RANDOM_FUNCTION_P_K0:.3f}")
    t.add_row("models with K_0 = 0", str(len(m.zero_K0)), "")
    t.caption = ("as: average sensitivity (as / N is the public experiment's avg_sensi); p: the fraction of "
                 "strings a model reads as 1; E_p: a random function with i.i.d. Bernoulli(p) values")
    console.print(t)
    if m.zero_K0:
        z = Table(title="models with K_0 = 0")
        z.add_column("seed", justify="right")
        z.add_column("function")
        for row in m.zero_K0:
            z.add_row(str(row.seed), row.function)
        console.print(z)
    pt = Table(title="mean profile K_k / 2^N")
    pt.add_column("k", justify="right")
    pt.add_column("random transformers", justify="right")
    pt.add_column("non-constant ones", justify="right")
    pt.add_column("random function (E)", justify="right")
    nc = m.nonconstant_mean_profile_frac
    for k, v in enumerate(s.mean_profile_frac):
        pt.add_row(str(k), f"{v:.4f}", "" if nc is None else f"{nc[k]:.4f}", f"{math.comb(N, k) / 2**N:.4f}")
    console.print(pt)
    if args.json:
        from verify.common.atomic_io import atomic_write_json

        with writing(args.json, "--json"):
            atomic_write_json(args.json, {"params": params, "summary": s.as_dict(), "models": m.as_dict(),
                                          "profiles": K.tolist(),
                                          "ones": got.ones.tolist(), "functions": got.functions,
                                          "note": "as formalised in boolverify"})
    if args.figure:
        from verify.report.sensitivity_figures import random_profile_figure

        with writing(args.figure, "--figure"):
            random_profile_figure(args.figure, s, N, f"{args.preset}, {args.init}, D={cfg.D}, L={cfg.L}, "
                                                     f"eps={cfg.eps:g}", data=[args.json] if args.json else (), models=m)
    return 0


def _validate_bounds(args) -> None:
    """Option checks before any work (the ranges of :func:`verify.reference.bounds.bounds_report`)."""
    check_int(args.D, "--D", lo=2)
    check_int(args.L, "--L", lo=1)
    if args.F is not None:
        check_int(args.F, "--F", lo=1)
    check_int(args.N_max, "--N-max", lo=1)
    check_real(args.eps, "--eps", lo=0)
    check_real(args.xi, "--xi", lo=0, lo_open=True)
    check_real(args.B, "--B", lo=0, hi=1e300, lo_open=True)   # diam = 2B stays finite
    for C in args.C_lip or ():
        check_real(C, "--C-lip", lo=0, lo_open=True)
    check_output(args.json, "--json")


def _bounds(args) -> int:
    from rich.table import Table

    from verify.reference.bounds import DEFAULT_C_LIPS, bounds_report

    _validate_bounds(args)

    r = bounds_report(args.D, args.L, F=args.F, N_max=args.N_max, eps=args.eps, xi=args.xi, B=args.B,
                      C_lips=tuple(args.C_lip) if args.C_lip else DEFAULT_C_LIPS)
    console = make_console()
    t = Table(title=f"paper-B bounds, D={r['D']}, L={r['L']} (mpmath, 50 digits; as formalised in boolverify)")
    t.add_column("quantity")
    t.add_column("value", justify="right")
    t.add_row("Theorem 4.5 exponent a = (D-1)/(2L) - 5", f"{r['a']} = {r['a_float']:g}")
    t.add_row("regime of N^a = 2^N", r["regime"])
    if r["N_upper"] is not None:
        t.add_row("upper root -(a/ln2) W_{-1}(-ln2/a)", r["N_upper"][:22])
        t.add_row("lower root -(a/ln2) W_0(-ln2/a)", r["N_lower"][:22])
    t.add_row("smallest N with N'^a < 2^N' for all N' >= N (Lambert W)", str(r["N_star"]))
    t.add_row("same, by direct evaluation", f"{r['N_star_direct']} ({'agree' if r['agree'] else 'DISAGREE'})")
    t.add_row(f"blowup bound (1 + 1/sqrt(eps))^(2L), eps={r['eps']:g}", str(r["blowup_bound"]))
    t.add_row("parameters M", str(r["M"]))
    console.print(t)
    p = Table(title=f"packing bound |F_N| <= (1 + C_lip diam/xi)^M vs 2^(2^N); diam = {r['diam']:g}, xi = {r['xi']:g}")
    p.add_column("C_lip", justify="right")
    p.add_column("log2 of bound", justify="right")
    p.add_column("crossover N (2^(2^N) > bound)", justify="right")
    for row in r["packing"]:
        p.add_row(f"{row['C_lip']:g}", row["log2_bound"], str(row["N_star"]))
    console.print(p)
    console.print("C_lip is a parameter of our formalisation (not derived); see verify/reference/bounds.py.")
    if args.json:
        from verify.common.atomic_io import atomic_write_json

        with writing(args.json, "--json"):
            atomic_write_json(args.json, r)
    return 0
