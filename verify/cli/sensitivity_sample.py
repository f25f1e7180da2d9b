"""`boolverify sensitivity sample`: sampled sensitivity profiles of random transformers at large
N (paper B, as formalised in boolverify).

Per model, ``--strings`` uniform strings and their N one-bit neighbours are evaluated
(:mod:`numeric.transformer`); the estimated fraction of zero-sensitivity strings
``k0_fraction`` gets an exact Clopper-Pearson interval ``k0_ci``
(:mod:`verify.experiments.sampled_profiles`). Model ``i`` is the model of seed ``--seed + i``,
as in ``boolverify sensitivity random``, whose exact ``k0_fraction`` it estimates.
"""

from __future__ import annotations


from numeric.validation import check_device, check_int, check_real, check_seed
from verify.cli.options import MAX_THREADS, integer
from numeric.vocabulary import INIT_SCHEMES
from verify.cli import writing
from verify.cli.options import check_init_options, check_model_options

#: Longest string length accepted (the positional table is built with N_max = max(64, N)).
MAX_N = 4096
#: most models or strings per model: far beyond any time budget, small enough for float estimates
MAX_COUNT = 2 ** 62


def register(sub):
    p = sub.add_parser("sample", help="sampled sensitivity profiles of random transformers at large N")
    p.add_argument("--N", type=integer, default=128, help="input length (default 128)")
    p.add_argument("--D", type=integer, default=32, help="model width (default 32)")
    p.add_argument("--L", type=integer, default=2, help="layers (default 2)")
    p.add_argument("--H", type=integer, default=2, help="heads (default 2)")
    p.add_argument("--F", type=integer, default=None, help="MLP width (default 4D)")
    p.add_argument("--eps", type=float, default=0.0, help="layer-norm epsilon >= 0 (default 0)")
    p.add_argument("--init", "--scheme", dest="init", default="uniform", choices=INIT_SCHEMES,
                   help=f"{' | '.join(INIT_SCHEMES)} (default uniform)")
    p.add_argument("--B", type=float, default=None,
                   help="box half-width, for an --init that draws from a box (default 1); refused under one that "
                        "does not use it")
    p.add_argument("--sigma", type=float, default=None,
                   help="Gaussian std, for an --init that draws Gaussian values (default 1); refused under one "
                        "that does not use it")
    p.add_argument("--models", type=integer, default=10, help="number of random models (default 10)")
    p.add_argument("--strings", type=integer, default=200, help="sampled strings per model (default 200)")
    p.add_argument("--seed", type=integer, default=0, help="first seed >= 0 (model i uses seed + i)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level of k0_ci (default 0.95)")
    p.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    p.add_argument("--threads", type=integer, default=None,
                   help="torch CPU threads (default: torch's; 1 is fastest on a busy machine)")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON (atomically)")
    from verify.cli.options import add_time_budget

    add_time_budget(p)
    p.set_defaults(func=_sample)


def _validate(args) -> None:
    """Option checks before any work."""
    check_int(args.N, "--N", lo=1, hi=MAX_N)
    # bounded first, so that the seed range and the time estimate below are finite numbers
    check_int(args.models, "--models", lo=1, hi=MAX_COUNT)
    check_int(args.strings, "--strings", lo=1, hi=MAX_COUNT)
    check_model_options(args)
    args.init_options = check_init_options(args)
    check_seed(args.seed, "--seed", count=args.models)
    check_real(args.level, "--level", lo=0, hi=1, lo_open=True, hi_open=True)
    check_device(args.device, "--device")
    if args.threads is not None:
        check_int(args.threads, "--threads", lo=1, hi=MAX_THREADS)
    from verify.cli.options import FLOPS_PER_SECOND, check_output, check_transformer_sizes, require_time

    check_output(args.json, "--json")
    F = 4 * args.D if args.F is None else args.F
    check_transformer_sizes(args.D, args.L, args.H, F, args.N, f"--D = {args.D}, --L = {args.L}, --N = {args.N}")
    per_string = (args.N + 1) * args.L * (args.N + 1) * (4 * args.D**2 + 2 * args.D * F)
    require_time(per_string * args.strings * args.models / FLOPS_PER_SECOND, "the sampled strings and "
                 "their neighbours", f"--strings = {args.strings}, --models = {args.models}, --N = {args.N}")


def _sample(args) -> int:
    _validate(args)
    import torch

    from verify.cli.options import console as make_console
    from rich.table import Table

    from numeric.transformer import TransformerConfig
    from verify.experiments.sampled_profiles import sampled_profiles

    cfg = TransformerConfig(D=args.D, L=args.L, H=args.H, F=args.F, eps=args.eps, N_max=max(64, args.N))
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    console = make_console()
    from verify.cli.progress import progress

    with progress(f"sample N={args.N}", args.models, unit="models") as bar:
        res = sampled_profiles(cfg, args.init, args.N, args.models, args.strings, seed=args.seed,
                               device=args.device, level=args.level, **args.init_options,
                               progress=lambda i: bar.advance(f"model {i} ({args.strings} strings)"))
    s = res.summary
    params = {"N": args.N, "D": cfg.D, "L": cfg.L, "H": cfg.H, "F": cfg.F, "eps": cfg.eps, "init": args.init,
              **args.init_options, "seed": args.seed, "strings": args.strings, "level": args.level}
    t = Table(title=f"sampled profiles ({args.init}, D={cfg.D}, L={cfg.L}, H={cfg.H}, eps={cfg.eps:g}, "
                    f"N={args.N}, {args.strings} strings per model), as formalised in boolverify")
    for col in ("seed", "k0_fraction", f"k0_ci ({args.level:g})", "mean s(x)", "constant on sample"):
        t.add_column(col, justify="right")
    shown = res.models[:20]
    for r in shown:
        lo, hi = r.k0_ci
        t.add_row(str(r.seed), f"{r.k0_fraction:.4f}", f"[{lo:.4f}, {hi:.4f}]", f"{r.avg_sensitivity:.3f}",
                  "yes" if r.constant_on_sample else "no")
    console.print(t)
    if len(res.models) > len(shown):
        console.print(f"({len(res.models) - len(shown)} more models in the JSON)")
    console.print(f"{s.models} models: {s.constant_on_sample} look constant on their sample; "
                  f"mean k0_fraction {s.mean_k0_fraction:.4f} (random function: 2^-{args.N})")
    if args.json:
        from verify.common.atomic_io import atomic_write_json

        with writing(args.json, "--json"):
            atomic_write_json(args.json, {"params": params, "summary": s.as_dict(),
                                          "models": [r.as_dict() for r in res.models],
                                          "note": "as formalised in boolverify"})
    return 0
