r"""Arb references for the certified boxes of SG-9 (python-flint balls): the exact ranges of
the interval operations of :mod:`numeric.intervals` on float operands, and the forward pass of a
one-layer :class:`~numeric.transformer.BooleanTransformer` (boolverify preset: post-LN,
biased variance, :math:`\varepsilon` inside the square root, linear readout) at one parameter
vector, with every intermediate that the certificate encloses
(:func:`numeric.transformer.interval_forward`).

Floats enter as the exact binary numbers they are. Sums and products of float64 numbers are
exact at :data:`EXACT_BITS` (the float64 exponents span fewer than 2200 bits); ``exp``,
division and square roots are balls whose radius is far below a float64 ulp. A ball is compared
with a float end only when the comparison is certain (Arb's ``<=`` is true only for every point
of both balls), so a reference never passes an enclosure by rounding of its own.

Independent of the engine's code: written from the model's definition
(:mod:`numeric.transformer`), in the order of the mathematics, not of the batched or the
interval passes.
"""

from __future__ import annotations

import math

from numeric.validation import reject

#: Working precision (bits) of the exact ranges: every sum of float64 numbers is exact.
EXACT_BITS = 4400
#: Working precision (bits) of the forward pass (its balls are ~1e-70 wide, far below an ulp).
FORWARD_BITS = 256


def flint_arb():
    """python-flint's ``arb`` and its context (a core dependency of the suite)."""
    import flint

    return flint.arb, flint.ctx


def _zero_or_more(arb, x):
    # ReLU of a ball: 0 when it is certainly <= 0, itself when certainly >= 0, else the hull
    if x >= 0:
        return x
    if x <= 0:
        return arb(0)
    return x.union(arb(0))


def _relu(arb, lo, hi):
    return _zero_or_more(arb, lo), _zero_or_more(arb, hi)


def _product_range(arb, a, b):
    p = [arb(x) * arb(y) for x in a for y in b]
    return min_ball(p), max_ball(p)


def min_ball(balls):
    """The smallest of exact balls (each a point: ties and order are certain)."""
    out = balls[0]
    for b in balls[1:]:
        if b < out:
            out = b
    return out


def max_ball(balls):
    """The largest of exact balls."""
    out = balls[0]
    for b in balls[1:]:
        if b > out:
            out = b
    return out


def _square_range(arb, a):
    lo, hi = arb(a[0]), arb(a[1])
    top = max_ball([lo * lo, hi * hi])
    if a[0] <= 0 <= a[1]:
        return arb(0), top
    return min_ball([lo * lo, hi * hi]), top


def _rsqrt_range(arb, a):
    if not a[0] > 0:
        reject("operand", a, "an interval with a positive lower end (1/sqrt is undefined elsewhere)")
    return arb(a[1]).rsqrt(), arb(a[0]).rsqrt()


#: The exact range ``(lower, upper)`` (Arb balls) of each operation of
#: :mod:`numeric.intervals` over float intervals given as ``(lo, hi)`` pairs (``scale`` and
#: ``divide``: the second operand a float).
EXACT_RANGES = {
    "add": lambda arb, a, b: (arb(a[0]) + arb(b[0]), arb(a[1]) + arb(b[1])),
    "sub": lambda arb, a, b: (arb(a[0]) - arb(b[1]), arb(a[1]) - arb(b[0])),
    "mul": _product_range,
    "scale": lambda arb, a, c: (min_ball([arb(a[0]) * arb(c), arb(a[1]) * arb(c)]),
                                max_ball([arb(a[0]) * arb(c), arb(a[1]) * arb(c)])),
    "divide": lambda arb, a, d: (arb(a[0]) / arb(d), arb(a[1]) / arb(d)),
    "square": _square_range,
    "relu": lambda arb, a: _relu(arb, arb(a[0]), arb(a[1])),
    "exp": lambda arb, a: (arb(a[0]).exp(), arb(a[1]).exp()),
    "reciprocal_sqrt": _rsqrt_range,
    "total": lambda arb, *terms: (sum((arb(t[0]) for t in terms), arb(0)), sum((arb(t[1]) for t in terms), arb(0))),
}


def exact_range(operation: str, *operands):
    """``(lower, upper)`` Arb balls of ``operation``'s exact range (:data:`EXACT_RANGES`) at
    :data:`EXACT_BITS`."""
    if operation not in EXACT_RANGES:
        reject("operation", operation, f"one of {sorted(EXACT_RANGES)}")
    arb, ctx = flint_arb()
    old = ctx.prec
    ctx.prec = EXACT_BITS
    try:
        return EXACT_RANGES[operation](arb, *operands)
    finally:
        ctx.prec = old


def ulps_between(end: float, exact) -> float:
    """How many float64 ulps of the exact value ``exact`` (a ball) lie between it and the float
    ``end`` (an upper bound, from the ball's midpoint)."""
    arb, _ = flint_arb()
    mid = float(exact.mid())
    if not math.isfinite(mid) or not math.isfinite(end):
        return math.inf
    ulp = math.ulp(mid) if mid != 0 else math.ulp(0.0)
    return abs(float((arb(end) - exact).mid())) / ulp


def _to_arb(arb, x):
    """Nested lists of balls from a float64 tensor (each entry its exact binary value)."""
    if x.dim() == 0:
        return arb(float(x))
    return [_to_arb(arb, row) for row in x]


def arb_parameters(theta: dict, k: int | None = None) -> dict:
    """``{name: nested lists of balls}`` of one parameter vector: ``theta[name]`` (a model's
    parameter tensors) or, with ``k``, entry ``k`` of stacked parameters (``(K, *shape)``)."""
    arb, _ = flint_arb()
    return {name: _to_arb(arb, (t if k is None else t[k]).detach().double().cpu()) for name, t in theta.items()}


def _affine(W, x, b):
    return [sum((w * v for w, v in zip(row, x)), bias) for row, bias in zip(W, b)]


def _layer_norm(arb, u, gain, bias, eps):
    D = len(u)
    mean = sum(u, arb(0)) / D
    c = [v - mean for v in u]
    var = sum((v * v for v in c), arb(0)) / D + arb(eps)
    if not var > 0:
        return None  # undefined (or not certainly defined) at this parameter vector
    r = var.rsqrt()
    return [g * v * r + b for g, v, b in zip(gain, c, bias)]


def arb_forward(config, params: dict, N: int, bits: int = FORWARD_BITS, strings=None) -> list:
    r"""The exact forward pass of one parameter vector ``params`` (:func:`arb_parameters`) of a
    one-layer model of ``config`` over all :math:`2^N` strings (string index :math:`i` has bit
    :math:`x_n = (i \gg n) \,\&\, 1`): per string ``{"attention": [H][N+1], "attention_output":
    [D], "ln1": [D], "hidden": [F], "ln2": [D], "output": ball}``, or ``None`` for a string at
    which a layer norm's variance is not certainly positive; only the string indices ``strings``
    (in that order) where given."""
    arb, ctx = flint_arb()
    if config.L != 1:
        reject("config", f"<L = {config.L}>", "a one-layer model")
    old = ctx.prec
    ctx.prec = bits
    try:
        D, H = config.D, config.H
        dh = D // H
        pre = "layers.0."
        p = params
        scale = arb(dh).rsqrt()
        tok, pos = p["tok"], p["pos"]
        Wq, bq, Wk, bk = p[pre + "q.weight"], p[pre + "q.bias"], p[pre + "k.weight"], p[pre + "k.bias"]
        Wv, bv = p[pre + "v.weight"], p[pre + "v.bias"]
        embed = {(n, x): [t + q for t, q in zip(tok[x], pos[n])] for n in range(N) for x in (0, 1)}
        eos = [t + q for t, q in zip(tok[2], pos[N])]
        query = _affine(Wq, eos, bq)
        keys = {key: _affine(Wk, e, bk) for key, e in embed.items()}
        values = {key: _affine(Wv, e, bv) for key, e in embed.items()}
        eos_key, eos_value = _affine(Wk, eos, bk), _affine(Wv, eos, bv)
        out = []
        for i in range(1 << N) if strings is None else strings:
            xs = [(i >> n) & 1 for n in range(N)]
            ks = [keys[(n, x)] for n, x in enumerate(xs)] + [eos_key]
            vs = [values[(n, x)] for n, x in enumerate(xs)] + [eos_value]
            weights, att = [], []
            for h in range(H):
                sl = slice(h * dh, (h + 1) * dh)
                scores = [sum((a * b for a, b in zip(query[sl], k[sl])), arb(0)) * scale for k in ks]
                e = [s.exp() for s in scores]
                z = sum(e, arb(0))
                a = [v / z for v in e]
                weights.append(a)
                att += [sum((w * v[j] for w, v in zip(a, vs)), arb(0)) for j in range(h * dh, (h + 1) * dh)]
            u = [e + o for e, o in zip(eos, _affine(p[pre + "o.weight"], att, p[pre + "o.bias"]))]
            h1 = _layer_norm(arb, u, p[pre + "ln1.gain"], p[pre + "ln1.bias"], config.eps)
            if h1 is None:
                out.append(None)
                continue
            hidden = [_zero_or_more(arb, v) for v in _affine(p[pre + "fc1.weight"], h1, p[pre + "fc1.bias"])]
            m = _affine(p[pre + "fc2.weight"], hidden, p[pre + "fc2.bias"])
            h2 = _layer_norm(arb, [a + b for a, b in zip(h1, m)], p[pre + "ln2.gain"], p[pre + "ln2.bias"], config.eps)
            if h2 is None:
                out.append(None)
                continue
            T = _affine(p["out.weight"], h2, p["out.bias"])[0]
            out.append({"attention": weights, "attention_output": att, "ln1": h1, "hidden": hidden, "ln2": h2,
                        "output": T})
        return out
    finally:
        ctx.prec = old


__all__ = ["EXACT_BITS", "FORWARD_BITS", "flint_arb", "min_ball", "max_ball", "EXACT_RANGES", "exact_range",
           "ulps_between", "arb_parameters", "arb_forward"]
