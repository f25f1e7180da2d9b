r"""Checks of a loss/gradient implementation against brute-force enumeration at high precision.

Used by the SX-1/SX-2 theorem tests on :mod:`verify.reference` and, with the same thresholds, on
deliberately broken implementations (to show that the checks can fail). An implementation is a
callable with the signature of :func:`verify.reference.population_loss` (resp. ``population_grad``).
"""

from __future__ import annotations

import math
import random

import mpmath

from numeric.validation import check_seed
from numeric.vocabulary import ATTENTIONS
from verify.reference.oracle import enumerated_grad_mp, enumerated_loss_mp
from verify.symbolic.enumeration import CheckReport


def random_instance(d, m, seed, scale=3.0):
    """``(V, theta, theta_tilde, support)`` with unit rows (uniform on the sphere), floats."""
    # random.Random(-s) is random.Random(s): a negative seed would alias a positive one
    rng = random.Random(check_seed(seed, "seed"))

    def unit():
        v = [rng.gauss(0, 1) for _ in range(m)]
        n = math.sqrt(sum(x * x for x in v))
        return [x / n for x in v]

    V = [unit() for _ in range(d)]
    th = [scale * x for x in unit()]
    tht = [scale * x for x in unit()]
    return V, th, tht, tuple(rng.sample(range(d), 2))


def near_solution_instance(logit, d=6, swap=False):
    r"""Softmax heads on ``a = 1`` and ``b = 4`` (swapped: on ``b`` and ``a``) with logit margin
    ``logit``; the loss is about :math:`e^{-2\,\mathrm{logit}}`."""
    V = [[1.0 if i == k else 0.0 for k in range(d)] for i in range(d)]
    th, tht = [0.0] * d, [0.0] * d
    th[4 if swap else 1] = logit
    tht[1 if swap else 4] = logit
    tht[0] = 0.5  # u and u~ differ
    return V, th, tht, (1, 4)


def _enum_dps(E):
    # enumeration loses log10(1/|f - y|) ~ log10(1/L)/2 digits; keep 60 on top of that
    return 80 + max(0, int(-mpmath.log10(E) / 2) if E > 0 else 0)


def check_reference_loss(loss_fn, attentions=ATTENTIONS, ds=(2, 3, 5, 8, 10),
                         m=3, seeds=(0,), near=(), threshold="1e-40"):
    """``|loss_fn - enumeration|`` (absolute for generic points, relative for the near-solution
    instances ``near`` = list of logits) must stay below ``threshold``."""
    rep = CheckReport(f"loss == enumeration over {{±1}}^d, 50 digits (< {threshold})")
    worst_abs, worst_rel = mpmath.mpf(0), mpmath.mpf(0)
    cases = [(att, random_instance(d, m, seed=1000 * s + d)) for att in attentions for d in ds
             for s in seeds]
    cases += [("softmax", near_solution_instance(lg, swap=sw)) for lg in near for sw in (False, True)]
    for att, (V, th, tht, sup) in cases:
        L = loss_fn(V, th, tht, sup, att)
        E = enumerated_loss_mp(V, th, tht, sup, att, dps=80)
        E = enumerated_loss_mp(V, th, tht, sup, att, dps=_enum_dps(E))
        with mpmath.workdps(80):
            diff = abs(mpmath.mpf(L) - E)
            rel = diff / E if E else diff
            worst_abs, worst_rel = max(worst_abs, diff), max(worst_rel, rel)
            bad = rel > mpmath.mpf(threshold) if E < 1e-3 else diff > mpmath.mpf(threshold)
        rep.cases.append((len(V), att, float(E)))
        if bad:
            rep.fail(f"{att}, d={len(V)}, support={sup}: |L - enumeration| = "
                     f"{mpmath.nstr(diff, 3)} (enumeration {mpmath.nstr(E, 5)})")
    rep.max_abs_diff, rep.max_rel_diff = float(worst_abs), float(worst_rel)
    rep.min_loss = min(c[2] for c in rep.cases)
    return rep


def check_reference_grad(grad_fn, attentions=ATTENTIONS, ds=(2, 5, 10), m=3,
                         seeds=(0,), near=(), threshold="1e-40"):
    """Each gradient vector of ``grad_fn`` against the enumerated gradient (through the full
    Jacobian matrix), relative to its largest component."""
    rep = CheckReport(f"gradient == enumerated gradient over {{±1}}^d, 50 digits (< {threshold})")
    worst = mpmath.mpf(0)
    cases = [(att, random_instance(d, m, seed=2000 * s + d)) for att in attentions for d in ds
             for s in seeds]
    cases += [("softmax", near_solution_instance(lg, swap=sw)) for lg in near for sw in (False, True)]
    for att, (V, th, tht, sup) in cases:
        got = grad_fn(V, th, tht, sup, att)
        L = enumerated_loss_mp(V, th, tht, sup, att, dps=80)
        want = enumerated_grad_mp(V, th, tht, sup, att, dps=_enum_dps(L) + 40)
        # the enumerated gradient loses log10(1/|grad|) digits (saturated softmax): redo if needed
        lost = max([int(-mpmath.log10(max(abs(v) for v in y))) for y in want
                    if max(abs(v) for v in y) > 0] or [0])
        if lost > 40:
            want = enumerated_grad_mp(V, th, tht, sup, att, dps=_enum_dps(L) + lost + 20)
        with mpmath.workdps(80):
            for x, y in zip(got, want):
                scale = max(abs(v) for v in y)
                err = max(abs(mpmath.mpf(p) - q) for p, q in zip(x, y)) / scale
                worst = max(worst, err)
                if err > mpmath.mpf(threshold):
                    rep.fail(f"{att}, d={len(V)}, support={sup}: relative gradient error "
                             f"{mpmath.nstr(err, 3)}")
        rep.cases.append((len(V), att))
    rep.max_rel_diff = float(worst)
    return rep


__all__ = ["random_instance", "near_solution_instance", "check_reference_loss",
           "check_reference_grad"]
