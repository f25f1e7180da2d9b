"""`boolverify sensitivity train`: train the paper-B transformer on Boolean targets (SG-8).

Example::

    boolverify sensitivity train --target majority --N 16 --seeds 3
    boolverify sensitivity train --target majority,first,parity --N 8,16,24 --seeds 3 \\
        --json docs/data/sg8_training.json --figure results/sg8_training_400_steps.png

(the first writes the data of ``boolverify runs sg8-training``; the figure of
``docs/figures/sg8_training_profiles.png`` is SG-8's decisions, ``boolverify runs sg8-decisions``)

Prints one table row per (target, N, seed): test accuracy (exact over all 2^N strings for
N <= 20, else on sampled strings with a Wilson interval), the best constant's accuracy, the
trained function's K_0/2^N and average sensitivity beside the target's. ``--figure`` draws
the profiles of the trained models per target (one panel per target and N).
"""

from __future__ import annotations

from verify.cli import as_options
from numeric.validation import InputError, check_choice, check_device, check_int, check_real, reject
from verify.cli.options import MAX_THREADS, comma_items, integer, integers
from numeric import vocabulary
from numeric.vocabulary import INIT_SCHEMES, TRAINING_TARGETS
from verify.cli.options import console as make_console


def register(sub):
    p = sub.add_parser(
        "train",
        help="train the transformer on MAJORITY / FIRST / PARITY; accuracy and profile (SG-8)",
        description="Train the paper-B transformer with AdamW on Boolean targets and report test "
        "accuracy and the sensitivity profile of the trained function (as formalised in boolverify).",
    )
    p.add_argument("--target", default="majority",
                   help="comma-separated targets among majority, first, parity (default majority)")
    p.add_argument("--N", default="16", help="comma-separated input lengths (default 16)")
    p.add_argument("--seeds", type=integer, default=1, help="seeds 0..S-1 per (target, N) (default 1)")
    p.add_argument("--steps", type=integer, default=None, help="AdamW steps (default 400)")
    p.add_argument("--lr", type=float, default=None, help="learning rate (default 3e-3)")
    p.add_argument("--weight-decay", type=float, default=None, help="AdamW weight decay (default 0.01)")
    p.add_argument("--batch-size", type=integer, default=None, help="strings per step (default 128)")
    p.add_argument("--loss", default="bce",
                   help=f"the training loss, one of {', '.join(vocabulary.LOSSES)} (default bce: "
                   "logistic; mse: squared error with targets +-1)")
    p.add_argument("--init", default="xavier_uniform",
                   help="uniform, gaussian, xavier_uniform (default) or xavier_normal")
    p.add_argument("--D", type=integer, default=16, help="model width (default 16)")
    p.add_argument("--L", type=integer, default=2, help="layers (default 2)")
    p.add_argument("--H", type=integer, default=2, help="heads (default 2)")
    p.add_argument("--eps", type=float, default=1e-5, help="layer-norm epsilon (default 1e-5)")
    p.add_argument("--train-strings", type=integer, default=None,
                   help="train on a fixed uniform subset of this many strings (N <= 20); "
                   "held-out accuracy is then exact (default: fresh strings every batch)")
    p.add_argument("--exact", action="store_true",
                   help="demand exact accuracy and profile over all 2^N strings (N <= 20)")
    p.add_argument("--test-samples", type=integer, default=None,
                   help="strings for the sampled accuracy when N > 20 (default 16384)")
    p.add_argument("--profile-samples", type=integer, default=None,
                   help="strings for the sampled profile when N > 20 (default 2048)")
    p.add_argument("--dtype", default="float64", help="float64 (default) or float32 (faster)")
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    p.add_argument("--threads", type=integer, default=None, help="torch CPU threads (default: torch's)")
    p.add_argument("--json", metavar="FILE", default=None, help="write all results as JSON (atomic)")
    p.add_argument("--figure", metavar="FILE", action="append", default=None,
                   help="profile figure (PNG/PDF by suffix, atomic); may be repeated")
    from verify.cli.options import add_time_budget

    add_time_budget(p)
    p.set_defaults(func=_handler)


#: the largest count or size an option may give: far beyond memory and time, small enough that
#: the estimates are finite floats
_MAX_COUNT = 2 ** 62


def _validate(args):
    """Every option, before any model is built or trained."""
    from verify.cli.options import check_distinct_files, check_figure_output, check_output
    from verify.experiments.training import EXACT_LIMIT

    check_output(args.json, "--json")
    for path in args.figure or []:
        check_figure_output(path)
    check_distinct_files([("--json", args.json)] + [("--figure", f) for f in args.figure or []])
    targets = [check_choice(t, "--target", TRAINING_TARGETS)
               for t in comma_items(args.target, "--target")]
    # every count is bounded, so that the memory and time estimates below are finite floats
    Ns = integers(args.N, "--N", lo=1, hi=_MAX_COUNT)
    if args.exact or args.train_strings is not None:
        opt = "--exact" if args.exact else "--train-strings"
        for N in Ns:
            if N > EXACT_LIMIT:
                reject("--N", N, f"N <= {EXACT_LIMIT}: {opt} needs exact enumeration")
    check_int(args.seeds, "--seeds", lo=1, hi=_MAX_COUNT)
    for name in ("steps", "batch_size", "test_samples", "profile_samples", "train_strings"):
        if getattr(args, name) is not None:
            check_int(getattr(args, name), "--" + name.replace("_", "-"), lo=1, hi=_MAX_COUNT)
    if args.threads is not None:
        check_int(args.threads, "--threads", lo=1, hi=MAX_THREADS)
    if args.train_strings is not None:   # a subset leaves strings to hold out
        check_int(args.train_strings, "--train-strings", lo=1, hi=2 ** min(Ns) - 1)
    if args.lr is not None:
        check_real(args.lr, "--lr", lo=0, lo_open=True)
    if args.weight_decay is not None:
        check_real(args.weight_decay, "--weight-decay", lo=0)
        _check_decay(args)
    check_choice(args.loss, "--loss", vocabulary.LOSSES)
    check_choice(args.init, "--init", INIT_SCHEMES)
    check_choice(args.dtype, "--dtype", ("float64", "float32"))
    check_device(args.device, "--device")
    check_int(args.D, "--D", lo=1, hi=_MAX_COUNT)
    check_int(args.L, "--L", lo=1, hi=_MAX_COUNT)
    check_int(args.H, "--H", lo=1, hi=_MAX_COUNT)
    check_real(args.eps, "--eps", lo=0)
    _check_sizes(args, Ns)
    return targets, Ns


def _check_decay(args):
    """AdamW multiplies every weight by ``1 - lr * weight_decay`` each step: at ``lr * wd >= 1``
    the weights are zeroed or flip sign and grow, so the run diverges whatever the data; refused
    here, naming the option, rather than as a NaN loss blamed on the learning rate."""
    from verify.experiments.training import DEFAULT_LR

    lr = DEFAULT_LR if args.lr is None else args.lr
    if not args.weight_decay * lr < 1:
        reject("--weight-decay", args.weight_decay, f"lr x weight decay < 1 (AdamW scales the weights by "
               f"1 - lr x weight decay each step; lr = {lr:g})")


def _check_sizes(args, Ns):
    """Memory of one training step: the activations autograd keeps per layer (the attention
    scores grow as N^2) and the positional table; time: the steps' multiply-adds."""
    from verify.cli.options import FLOPS_PER_SECOND, require_memory, require_time

    N, D, L, H = max(Ns), args.D, args.L, args.H
    batch, steps, F = args.batch_size or 128, args.steps or 400, 4 * D
    options = f"--N = {args.N}, --D = {D}, --L = {L}, --H = {H}, --batch-size = {batch}"
    per_layer = batch * (N + 1) * (H * (N + 1) + 8 * D + 2 * F)
    require_memory(2 * 8.0 * L * per_layer + 8.0 * (N + 2) * D, "one training step", options)
    flops = 6.0 * L * batch * (N + 1) * (12 * D * D + 2 * (N + 1) * D)
    require_time(flops * steps * args.seeds * len(Ns) / FLOPS_PER_SECOND, "the training runs",
                 f"--steps = {steps}, --seeds = {args.seeds}, {options}")


def _kwargs(args):
    kw = dict(loss=args.loss, init=args.init, dtype=args.dtype, device=args.device,
              train_strings=args.train_strings, exact=True if args.exact else None)
    for name in ("steps", "lr", "weight_decay", "batch_size", "test_samples", "profile_samples"):
        v = getattr(args, name)
        if v is not None:
            kw[name] = v
    return kw


def _handler(args) -> int:
    targets, Ns = _validate(args)
    import torch

    from verify.experiments.training import run_training_grid, training_report

    if args.threads is not None:
        torch.set_num_threads(args.threads)
    kw = _kwargs(args)
    console = make_console()
    results, shown = [], []

    def start(t, N, s):
        def step(i, steps, loss):
            if shown:
                shown[0].status(f"{t} N={N} seed={s}: step {i}/{steps}, loss {loss:.4f}")
        return step

    # the configs are built here, so that a bad --D/--H/--eps fails before any bar is drawn
    names = {"train_strings": "--train-strings", "steps": "--steps", "lr": "--lr", "batch_size": "--batch-size",
             "test_samples": "--test-samples", "profile_samples": "--profile-samples", "D": "--D", "H": "--H",
             "loss": "--loss"}
    with as_options(names):
        grid = run_training_grid(targets, Ns, args.seeds, D=args.D, L=args.L, H=args.H, eps=args.eps,
                                 on_start=start, **kw)
    total = len(targets) * len(Ns) * args.seeds
    from verify.cli.progress import progress

    with progress("train", total, unit="runs") as bar:
        shown.append(bar)
        try:
            for r in grid:
                results.append(r)
                bar.advance(f"{r.target} N={r.N} seed={r.seed}")
        except FloatingPointError as exc:
            # a diverging run is a choice of options (the learning rate), not a crash
            raise InputError(f"--lr = {args.lr if args.lr is not None else 'default'}: {exc}") from None

    console.print(_table(results))
    dicts = [r.as_dict() for r in results]
    if args.json:
        from verify.common.atomic_io import atomic_write_json

        atomic_write_json(args.json, training_report(dicts))
    for path in args.figure or []:
        from verify.report.sensitivity_figures import training_profiles

        training_profiles(dicts, path, data=[args.json] if args.json else ())
    return 0


def _table(results):
    from rich.table import Table

    from rich import box

    tab = Table(title="SG-8 training (as formalised in boolverify)", box=box.SIMPLE_HEAD,
                caption="acc: accuracy of 1[T>0], exact over all 2^N strings or sampled (95% "
                "Wilson CI); held: exact held-out accuracy; const: best constant; K0: fraction "
                "of strings with s(x)=0; as: average sensitivity (as*: target's); s: seconds")
    held_any = any(r.held_out_accuracy is not None for r in results)
    cols = ["target", "N", "seed", "acc", "95% CI"] + (["held"] if held_any else []) + [
        "const", "K0", "as", "as*", "s"]
    for col in cols:
        tab.add_column(col, justify="left" if col == "target" else "right", no_wrap=True)
    for r in results:
        if r.accuracy_exact:
            ci = "exact"
        else:
            lo, hi = r.accuracy_ci
            ci = f"{lo:.4f}-{hi:.4f}"
        row = [r.target, str(r.N), str(r.seed), f"{r.accuracy:.4f}", ci]
        if held_any:
            row.append("-" if r.held_out_accuracy is None else f"{r.held_out_accuracy:.4f}")
        row += [f"{r.baseline:.3f}", f"{r.profile_fraction[0]:.3f}", f"{r.mean_sensitivity:.2f}",
                f"{r.target_mean_sensitivity:.2f}", f"{r.train_time_s + r.eval_time_s:.0f}"]
        tab.add_row(*row)
    return tab
