"""`boolverify crossval sharpness --public DIR`: boolverify's sharpness against Hahn & Rofin's
``hessian_norm_proxy`` (lacoco-lab/sensitivity-hardness) on the models of the cross-validation
table (:mod:`verify.crossval.sharpness`), with the same draws."""

from __future__ import annotations

from pathlib import Path

from numeric.validation import check_int, check_real, check_seed, reject
from verify.cli.options import add_time_budget, integer

_HELP = ("boolverify's sharpness (mean MSE increase under Gaussian parameter noise) against the public "
         "hessian_norm_proxy of lacoco-lab/sensitivity-hardness, on the same models and draws")
_DESCRIPTION = (_HELP + ". --public DIR is a checkout of that repository (or the vendored excerpt "
                "tests/fixtures/sensitivity_hardness); its code is imported and run in this process: only use "
                "code you trust. Exit 0: every model agrees within the float64 tolerance table; 1: a "
                "disagreement; 2: bad input.")


def register(inner):
    q = inner.add_parser("sharpness", help=_HELP, description=_DESCRIPTION)
    q.add_argument("--public", required=True, metavar="DIR", help="checkout of lacoco-lab/sensitivity-hardness")
    q.add_argument("--sigma", type=float, default=0.02, help="absolute noise scale > 0, their epsilon (default 0.02)")
    q.add_argument("--draws", type=integer, default=10, help="noise draws per model, their n_repeats (default 10)")
    q.add_argument("--seed", type=integer, default=0, help="seed of the first model's draws (default 0)")
    q.add_argument("--quick", action="store_true", help="one model of each kind instead of the full table")
    q.add_argument("--json", default=None, metavar="FILE", help="also write the table as JSON to FILE")
    add_time_budget(q)
    q.set_defaults(func=run)


def run(args) -> int:
    # sigma = 0 compares 0 with 0, an agreement that tests nothing
    sigma = check_real(args.sigma, "--sigma", lo=0, lo_open=True)
    draws = check_int(args.draws, "--draws", lo=1, hi=10_000)
    root = Path(args.public)
    if not (root / "src" / "measurements.py").is_file():
        reject("--public", args.public, "a checkout of lacoco-lab/sensitivity-hardness (a folder with src/measurements.py)")
    if args.json is not None:
        from verify.cli.options import check_output

        # the public code is an input: writing the table over one of its files would destroy it
        check_output(args.json, "--json", inputs=[("--public", f) for f in sorted((root / "src").glob("*.py"))])
    from verify.crossval.sharpness import (PUBLIC_COMMIT, PUBLIC_REPO, SEED_SPAN, crossval_table, draw_flops,
                                           load_public)
    from verify.cli import as_options
    from verify.cli.options import FLOPS_PER_SECOND, console, require_time

    # the models' draws use the seeds --seed .. --seed + SEED_SPAN - 1
    seed = check_seed(args.seed, "--seed", count=SEED_SPAN)
    require_time(draws * draw_flops(args.quick) / FLOPS_PER_SECOND, "the noise draws of both implementations",
                 f"--draws = {draws}")
    public = load_public(root)
    from verify.cli.progress import progress

    names = {"sigma": "--sigma", "draws": "--draws", "seed": "--seed"}
    with progress("sharpness", unit="models") as shown, as_options(names):
        rows = crossval_table(public, sigma=sigma, draws=draws, seed=seed, quick=args.quick,
                              progress=lambda done, total, model: shown.position(done, total, model))
    out = console()
    for r in rows:
        out.print(f"{'ok' if r.agrees() else 'MISMATCH':8s} {r.model}: ours {r.ours:.17g}, theirs {r.theirs:.17g}, "
                  f"difference {r.difference:.3g}", highlight=False, markup=False)
    bad = sum(not r.agrees() for r in rows)
    out.print(f"{len(rows) - bad}/{len(rows)} models agree (sigma = {sigma:g}, {draws} draws; "
              f"{PUBLIC_REPO} code at {public.root}, implemented from commit {PUBLIC_COMMIT[:12]})", highlight=False)
    if args.json is not None:
        from verify.cli import writing
        from verify.common.atomic_io import atomic_write_json

        with writing(args.json, "--json"):
            atomic_write_json(args.json, {"command": "crossval sharpness", "public": str(root), "commit": PUBLIC_COMMIT,
                                          "sigma": sigma, "draws": draws, "rows": [r.as_dict() for r in rows]})
    return 0 if bad == 0 else 1

