"""The paper-B transformer's output by plain Python loops: an independent reference forward pass.

Written from the architecture description, not from :mod:`numeric.transformer`: loops
over positions, heads and components in float64, from a dict of parameter lists (the names of
``BooleanTransformer.state_dict()``). Used by the SG-6 claim test and the conventions tests.
"""

from __future__ import annotations

import math

#: The default conventions (the boolverify preset); a config dict may override any of them.
DEFAULT_CONVENTIONS = dict(norm="post", final_ln=False, ln_variance="biased", ln_eps="inside_sqrt",
                           embedding_scale="one", positions="learned")


def sinusoid(p: int, j: int, D: int, period: float = 1000.0) -> float:
    """Column ``j`` of position ``p`` of the sinusoidal positions, from the formula
    sin(p / period^(2i/D)) at j = 2i and cos(p / period^(2i/D)) at j = 2i + 1."""
    angle = p / period ** (2 * (j // 2) / D)
    return math.sin(angle) if j % 2 == 0 else math.cos(angle)


def loop_output(P, bits, config) -> float:
    """T(x) for the string ``bits`` by plain loops over positions, heads and components.

    ``P``: parameter lists keyed as ``state_dict()``; ``config``: a mapping with ``D``, ``H``,
    ``L``, ``eps`` and any of :data:`DEFAULT_CONVENTIONS` (other keys are ignored). The bits are
    followed by eos (token 2) at position N, whose last-layer state is read out.
    """
    c = {**DEFAULT_CONVENTIONS, **config}
    D, H, L, eps = c["D"], c["H"], c["L"], c["eps"]
    seq = list(bits) + [2]
    scale = math.sqrt(D) if c["embedding_scale"] == "sqrt_D" else 1.0
    if c["positions"] == "sinusoidal":
        def position(p, i):
            return sinusoid(p, i, D)
    else:
        def position(p, i):
            return P["pos"][p][i]
    h = [[scale * P["tok"][t][i] + position(p, i) for i in range(D)] for p, t in enumerate(seq)]

    def affine(name, v):
        W, b = P[name + ".weight"], P[name + ".bias"]
        return [sum(W[r][k] * v[k] for k in range(len(v))) + b[r] for r in range(len(b))]

    def layer_norm(name, v):
        m = sum(v) / D
        ss = sum((vi - m) ** 2 for vi in v)
        var = ss / (D - 1) if c["ln_variance"] == "unbiased" else ss / D
        denom = math.sqrt(var + eps) if c["ln_eps"] == "inside_sqrt" else math.sqrt(var) + eps
        return [P[name + ".gain"][i] * (v[i] - m) / denom + P[name + ".bias"][i] for i in range(D)]

    def attention(pre, xs):
        q = [affine(pre + "q", v) for v in xs]
        k = [affine(pre + "k", v) for v in xs]
        val = [affine(pre + "v", v) for v in xs]
        dh = D // H
        out = []
        for a in range(len(xs)):
            heads = []
            for head in range(H):
                cols = range(head * dh, (head + 1) * dh)
                logits = [sum(q[a][i] * k[b][i] for i in cols) / math.sqrt(dh) for b in range(len(xs))]
                top = max(logits)
                w = [math.exp(z - top) for z in logits]
                tot = sum(w)
                heads += [sum(w[b] / tot * val[b][i] for b in range(len(xs))) for i in cols]
            out.append(affine(pre + "o", heads))
        return out

    def mlp(pre, v):
        return affine(pre + "fc2", [max(0.0, z) for z in affine(pre + "fc1", v)])

    for layer in range(L):
        pre = f"layers.{layer}."
        if c["norm"] == "post":
            att = attention(pre, h)
            h1 = [layer_norm(pre + "ln1", [h[a][i] + att[a][i] for i in range(D)]) for a in range(len(h))]
            h = [layer_norm(pre + "ln2", [x + y for x, y in zip(v, mlp(pre, v))]) for v in h1]
        else:
            att = attention(pre, [layer_norm(pre + "ln1", v) for v in h])
            h1 = [[h[a][i] + att[a][i] for i in range(D)] for a in range(len(h))]
            h = [[x + y for x, y in zip(v, mlp(pre, layer_norm(pre + "ln2", v)))] for v in h1]
    if c["final_ln"]:
        h = [layer_norm("ln_f", v) for v in h]
    return sum(P["out.weight"][0][i] * h[-1][i] for i in range(D)) + P["out.bias"][0]


__all__ = ["DEFAULT_CONVENTIONS", "loop_output", "sinusoid"]
