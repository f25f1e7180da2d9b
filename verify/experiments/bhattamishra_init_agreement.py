r"""Do boolverify's counterparts of the four public initialisations of Bhattamishra et al. draw
the same random Boolean functions as the public code?

For each public init method (``init_weights``, ``init_gauss_weights``, ``init_xavuni``,
``init_xavnormal`` of ``RandFLTAtt/src/components/sanplay.py``) ``models`` models are drawn by
the public code (its ``TransformerCLF``, torch's global generator seeded per model, as its
scripts draw) and ``models`` by boolverify's ``bhattamishra`` preset with the matching scheme
(:data:`numeric.vocabulary.BHATTAMISHRA_INIT_SCHEMES`); each model's table over all
:math:`2^N` strings gives whether it is constant and its average sensitivity ``as`` (``as / N``
is the public scripts' ``avg_sensi``). The seeds of the two sides do not overlap (the global
generator and a ``torch.Generator`` with the same seed give the same stream).

Shapes (the public scripts' defaults, N scaled to 10 so that every string is evaluated, as
``rand_sensi.py`` does for ``-len`` <= 12): ``rand_sensi.py`` (uniform: D = 64, 4 layers, 1
head, ``-w_init`` 10, N = 10); ``rand_gauss_sensi.py`` (Gaussian: D = 64, 2 layers, 8 heads,
``-std_init`` 10, ``-i_init`` 1; its N = 15 scaled to 10); the Xavier methods have no script
and take ``rand_sensi.py``'s shape. Learned positions, no biases, float32, as the scripts run.

Decision rule (fixed before the data): per method, a two-sided Fisher exact test of the
constant fractions and a Welch t-test of the mean ``as / N`` (over all models, constant ones
at 0); the method agrees when neither p-value is below :data:`LEVEL` / 8 (Bonferroni over the
4 methods x 2 tests: family-wise false disagreement at most :data:`LEVEL`). The estimates are
reported with 95 % intervals (Clopper-Pearson; Student t) and the power of each test at the
sample size is stated in the results (:func:`power`).

Run: ``python3 -m verify.experiments.bhattamishra_init_agreement --source PATH --out FILE``
(``PATH``: a checkout or bare git directory of satwik77/Transformer-Simplicity); ``--table``
prints the markdown table of an existing ``FILE``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import torch
from scipy import stats

from numeric.transformer import preset_config
from numeric.validation import check_int, check_seed
from verify.experiments.bhattamishra_public import (
    PUBLIC_INIT_METHODS, public_initialize_, public_model, public_table,
)
from verify.experiments.random_transformers import sample_models
from verify.stats.intervals import clopper_pearson, mean_interval

#: Family-wise level of the agreement decision (Bonferroni over :data:`TESTS` tests).
LEVEL = 0.05
#: Tests per method (Fisher exact on the constant fraction, Welch t on the mean as / N).
TESTS_PER_METHOD = 2
#: Interval level of the reported estimates.
INTERVAL_LEVEL = 0.95
#: Models per side per method.
MODELS = 200
#: Offset of the public side's seeds from boolverify's.
PUBLIC_SEED_OFFSET = 1_000_000

#: The settings: public method -> shape and init parameters (the scripts' defaults, N = 10).
SETTINGS = {
    "bhattamishra_uniform": dict(script="rand_sensi.py", N=10, D=64, L=4, H=1, init=dict(B=10.0)),
    "bhattamishra_gaussian": dict(script="rand_gauss_sensi.py, -len 15 scaled to 10", N=10, D=64, L=2, H=8,
                                  init=dict(sigma=10.0, input_scale=1.0)),
    "bhattamishra_xavier_uniform": dict(script="no script; rand_sensi.py's shape", N=10, D=64, L=4, H=1, init={}),
    "bhattamishra_xavier_normal": dict(script="no script; rand_sensi.py's shape", N=10, D=64, L=4, H=1, init={}),
}


def average_sensitivity(table: torch.Tensor, N: int) -> float:
    """``as`` of a Boolean table over the :math:`2^N` strings (string ``x`` at index ``x``): the
    mean over strings of the number of bits whose flip changes the value."""
    t = table.reshape(-1).to(torch.int64)
    idx = torch.arange(t.numel())
    return float(sum(float((t != t[idx ^ (1 << n)]).to(torch.float64).mean()) for n in range(N)))


def public_draws(scheme: str, setting: dict, models: int, seed: int, source=None):
    """(constant flags, as / N) of ``models`` public models (global seeds ``seed, seed + 1, ...``)."""
    models = check_int(models, "models", lo=1)
    seed = check_seed(seed, "seed", count=models)
    cfg = preset_config("bhattamishra", D=setting["D"], L=setting["L"], H=setting["H"], N_max=setting["N"])
    clf = public_model(cfg, source)
    N = setting["N"]
    const, avg = [], []
    for i in range(models):
        torch.manual_seed(seed + i)
        public_initialize_(clf, scheme, **setting["init"])
        t = public_table(clf, N)
        const.append(bool(t.min() == t.max()))
        avg.append(average_sensitivity(t, N) / N)
    return np.array(const), np.array(avg)


def boolverify_draws(scheme: str, setting: dict, models: int, seed: int):
    """(constant flags, as / N) of ``models`` boolverify models (seeds ``seed, seed + 1, ...``)."""
    N = setting["N"]
    cfg = preset_config("bhattamishra", D=setting["D"], L=setting["L"], H=setting["H"], N_max=max(64, N))
    got = sample_models(cfg, scheme, N, models, seed=seed, **setting["init"])
    K = got.profiles.to(torch.float64)
    as_ = (K * torch.arange(N + 1, dtype=torch.float64)).sum(1) / 2.0**N
    ones = got.ones
    const = (ones == 0) | (ones == 2**N)
    return const.numpy(), (as_ / N).numpy()


def power(n: int, alpha: float) -> dict:
    """What the tests detect with power 0.8 at ``n`` per side and level ``alpha`` (normal
    approximations): a mean difference in standard deviations, and a difference of proportions
    around 1/2 and around 0.1."""
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(0.8)
    return {"alpha": alpha, "power": 0.8, "mean_difference_in_sd": float(z * math.sqrt(2 / n)),
            "proportion_difference_at_0.5": float(z * math.sqrt(2 * 0.25 / n)),
            "proportion_difference_at_0.1": float(z * math.sqrt(2 * 0.09 / n))}


def _side(const, avg) -> dict:
    n = int(const.size)
    k = int(const.sum())
    lo, hi = clopper_pearson(k, n, INTERVAL_LEVEL)
    mean, (mlo, mhi), sd = mean_interval(avg, INTERVAL_LEVEL)
    return {"models": n, "constant": k, "frac_constant": k / n, "frac_constant_ci95": [lo, hi],
            "mean_as_over_N": mean, "mean_as_over_N_ci95": [mlo, mhi], "sd_as_over_N": sd,
            "as_over_N": [float(a) for a in avg], "constant_flags": [bool(c) for c in const]}


def compare(pub: dict, ours: dict) -> dict:
    """The two tests and the decision for one method's two sides (:func:`_side` records)."""
    alpha = LEVEL / (TESTS_PER_METHOD * len(SETTINGS))
    table = [[pub["constant"], pub["models"] - pub["constant"]], [ours["constant"], ours["models"] - ours["constant"]]]
    p_fisher = float(stats.fisher_exact(table)[1])
    a, b = np.array(pub["as_over_N"]), np.array(ours["as_over_N"])
    p_welch = 1.0 if a.std() == 0 and b.std() == 0 and a.mean() == b.mean() else \
        float(stats.ttest_ind(a, b, equal_var=False).pvalue)
    return {"p_fisher_constant": p_fisher, "p_welch_mean_as_over_N": p_welch, "alpha_per_test": alpha,
            "agree": bool(p_fisher >= alpha and p_welch >= alpha)}


def run(source=None, models: int = MODELS, seed: int = 0, schemes=None, progress=print) -> dict:
    """The comparison for each method of ``schemes`` (default all four); a JSON-ready dict."""
    models = check_int(models, "models", lo=2)
    # the public side draws seeds seed + PUBLIC_SEED_OFFSET + i
    seed = check_seed(seed, "seed", count=PUBLIC_SEED_OFFSET + models)
    out = {"rule": {"level": LEVEL, "tests_per_method": TESTS_PER_METHOD, "methods": len(SETTINGS),
                    "interval_level": INTERVAL_LEVEL, "tests": "two-sided Fisher exact (constant fraction), "
                    "Welch t (mean as/N over all models)", "agree": "neither p-value below level / 8"},
           "models_per_side": models, "seed": seed, "public_seed_offset": PUBLIC_SEED_OFFSET,
           "power": power(models, LEVEL / (TESTS_PER_METHOD * len(SETTINGS))), "methods": {}}
    for scheme in schemes or SETTINGS:
        setting = SETTINGS[scheme]
        t0 = time.time()
        pub = _side(*public_draws(scheme, setting, models, seed + PUBLIC_SEED_OFFSET, source))
        t1 = time.time()
        ours = _side(*boolverify_draws(scheme, setting, models, seed))
        t2 = time.time()
        out["methods"][scheme] = {"public_method": PUBLIC_INIT_METHODS[scheme], **setting, "public": pub,
                                  "boolverify": ours, **compare(pub, ours),
                                  "seconds": {"public": t1 - t0, "boolverify": t2 - t1}}
        if progress:
            m = out["methods"][scheme]
            progress(f"{scheme}: public const {pub['frac_constant']:.3f} as/N {pub['mean_as_over_N']:.4f}; "
                     f"boolverify const {ours['frac_constant']:.3f} as/N {ours['mean_as_over_N']:.4f}; "
                     f"p {m['p_fisher_constant']:.3g} / {m['p_welch_mean_as_over_N']:.3g}; agree {m['agree']} "
                     f"({t1 - t0:.0f} s + {t2 - t1:.0f} s)")
    return out


def markdown_table(result: dict) -> str:
    """The docs' table of a :func:`run` result (docs/results-paper-b.md)."""
    rows = ["| public command | boolverify counterpart | shape | constant, public [95 % CP] | constant, boolverify "
            "[95 % CP] | mean as/N, public [95 % t] | mean as/N, boolverify [95 % t] | p Fisher / p Welch | agree |",
            "|---|---|---|---|---|---|---|---|---|"]

    def cp(side):
        lo, hi = side["frac_constant_ci95"]
        return f"{side['frac_constant']:.3f} [{lo:.3f}, {hi:.3f}]"

    def mean(side):
        lo, hi = side["mean_as_over_N_ci95"]
        return f"{side['mean_as_over_N']:.4f} [{lo:.4f}, {hi:.4f}]"

    for scheme, m in result["methods"].items():
        init = ", ".join(f"{k} = {v:g}" for k, v in m["init"].items())
        shape = f"N = {m['N']}, D = {m['D']}, L = {m['L']}, H = {m['H']}" + (f", {init}" if init else "")
        rows.append(f"| `{m['public_method']}` ({m['script']}) | `--init {scheme}` | {shape} | {cp(m['public'])} | "
                    f"{cp(m['boolverify'])} | {mean(m['public'])} | {mean(m['boolverify'])} | "
                    f"{m['p_fisher_constant']:.3g} / {m['p_welch_mean_as_over_N']:.3g} | "
                    f"{'yes' if m['agree'] else 'no'} |")
    return "\n".join(rows)


def main(argv=None) -> int:
    from verify.common.atomic_io import atomic_write_json

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", default=None, help="checkout or bare git directory of satwik77/Transformer-Simplicity "
                                                   "(default: $BOOLVERIFY_TRANSFORMER_SIMPLICITY)")
    ap.add_argument("--models", type=int, default=MODELS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--table", action="store_true", help="print the markdown table of an existing --out file")
    args = ap.parse_args(argv)
    if args.table:
        import json

        with open(args.out) as f:
            print(markdown_table(json.load(f)))
        return 0
    result = run(args.source, args.models, args.seed)
    atomic_write_json(args.out, result)
    print(markdown_table(result))
    return 0


if __name__ == "__main__":
    from verify.common.provenance import begin_script

    begin_script("verify.experiments.bhattamishra_init_agreement")  # the provenance of what it writes
    raise SystemExit(main())


__all__ = ["LEVEL", "MODELS", "SETTINGS", "average_sensitivity", "public_draws", "boolverify_draws", "power",
           "compare", "run", "markdown_table", "main"]
