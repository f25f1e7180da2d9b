r"""Explicit parameters of the paper-B transformer (as formalised in boolverify,
:mod:`numeric.transformer`) that compute FIRST, MAJORITY (strict) and PARITY exactly on
all :math:`2^N` strings: the solutions :math:`\theta^*` around which the local volume is
measured (:mod:`numeric.transformer`).

All three share one shape, so that their volumes compare at the same :math:`(D, L, H, F, N)`:
the ``boolverify`` preset (post-LN, biased variance, :math:`\varepsilon` inside the square
root, :math:`\varepsilon = 0` by default, linear readout, float64), :math:`D = 6`, :math:`L = 1`,
:math:`H = 1`, :math:`F = \max(N, 2)` by default, :math:`N_{\max} = N`. Every parameter not named
below is 0 (every LN gain 1, every LN bias 0).

Channels of the residual stream: 0 the statistic :math:`s`, 1 its negative, 2 and 3 a constant
pair :math:`\pm K` (keeps the eos variance away from 0), 4 and 5 the output pair :math:`\pm p`
(channel 4 also carries the position-0 marker of FIRST at the embedding).

**Embedding.** :math:`E_1 = e_0` (a one-bit), :math:`E_0 = 0`, :math:`E_{\mathrm{eos}} = K(e_2 - e_3)`;
:math:`P = 0`, except :math:`P_0 = e_4` for FIRST.

**Attention** (one head, :math:`d_h = 6`). Values :math:`W_v = e_0 e_0^\top`: the value of a
position is its bit (eos: 0). Output :math:`W_o = (e_0 - e_1) e_0^\top`. So the eos attention
output is :math:`s\,(e_0 - e_1)` with :math:`s = \sum_n a_n x_n`.

- MAJORITY, PARITY: :math:`W_q = W_k = 0`: uniform attention over the :math:`N+1` positions,
  :math:`s = |x|/(N+1)`.
- FIRST: query bias :math:`b_q = \beta\sqrt{d_h}\,e_4`, :math:`W_k = e_4 e_4^\top`: the score is
  :math:`\beta` at position 0 (the marker) and 0 elsewhere, so
  :math:`a_0 = e^\beta/(e^\beta + N)` and :math:`s \ge e^\beta/(e^\beta+N)` if :math:`x_0 = 1`,
  :math:`s \le (N-1)/(e^\beta + N)` if :math:`x_0 = 0`. With :math:`\beta = \ln N + 2`
  (:math:`e^\beta = e^2 N`) the two ranges are :math:`[0.88, 1]` and :math:`[0, 0.12]`; the
  threshold is :math:`s = 1/2`.

**First layer norm** (eos only: with :math:`L = 1` the model computes only what :math:`T` reads).
:math:`u = (s, -s, K, -K, 0, 0)` has mean 0 and variance :math:`(s^2 + K^2)/3 > 0`, so
:math:`\mathrm{LN}(u)_0 = \varphi(s) = s / \sqrt{(s^2+K^2)/3}`, strictly increasing in :math:`s`
(:math:`\varphi' = 3^{1/2} K^2 (s^2+K^2)^{-3/2} > 0`): the LN keeps the order of :math:`s`.

**MLP** of the first-LN output channel 0, a piecewise-linear :math:`p(\varphi)` written as
:math:`p\,(e_4 - e_5)`: unit :math:`j` is :math:`\mathrm{ReLU}(\varphi - t_j)`.

- FIRST and MAJORITY: two units, :math:`p = A(\mathrm{ReLU}(\varphi - \varphi_*) - \mathrm{ReLU}(\varphi_* - \varphi))
  = A(\varphi - \varphi_*)`, with the threshold :math:`\varphi_* = \varphi(s_*)`,
  :math:`s_* = 1/2` (FIRST), :math:`s_* = (\lfloor N/2\rfloor + 1/2)/(N+1)` (MAJORITY: strict,
  :math:`|x| > N/2 \iff |x| \ge \lfloor N/2 \rfloor + 1`).
- PARITY: with :math:`\varphi_k = \varphi(k/(N+1))`, :math:`k = 0..N`, the zigzag interpolating
  :math:`p(\varphi_k) = A(-1)^{k+1}` (:math:`+A` at odd weight): a linear unit
  :math:`\mathrm{ReLU}(\varphi - \varphi_0 + 1)` (always active on the inputs) of slope
  :math:`m_0` and kinks at :math:`\varphi_1, \dots, \varphi_{N-1}` with slope changes
  :math:`m_k - m_{k-1}`, :math:`m_k = (p_{k+1} - p_k)/(\varphi_{k+1} - \varphi_k)`; the
  constant goes to :math:`b_2`. :math:`N` units (so :math:`F \ge N`); the weights grow like
  :math:`N` because the kinks are :math:`O(1/N)` apart.

**Second layer norm and readout.** :math:`u_2 = \mathrm{LN}(u) + p(e_4 - e_5)` has mean 0
(every summand does), variance :math:`> 0`, and :math:`w = e_4 - e_5`, :math:`\omega = 0` give
:math:`T = 2p/\operatorname{std}(u_2)`: the sign of :math:`p`. So :math:`1[T > 0] = f(x)` on
every string, exactly for MAJORITY and PARITY (the margin is :math:`A` at every string, up to
rounding) and for FIRST by the attention bound above. Each construction is verified on all
:math:`2^N` strings by the model's own evaluation: for :math:`N = 1 \dots 20` (the tests check
:math:`N \le 12`).

The constants :math:`K = 1`, :math:`A = 1` and :math:`\beta` are our choices. The local volume
around :math:`\theta^*` depends on them (the architecture has rescaling symmetries that move
:math:`\theta^*` without changing the function): a radius belongs to a construction, not to
the function alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch

from numeric.transformer._model import BooleanTransformer, TransformerConfig
from numeric.validation import check_choice, check_int, check_real, reject

#: Model width and heads of every construction (channels: see the module docstring).
WIDTH = 6
#: The constant pair :math:`\pm K` and the output amplitude :math:`A`.
K_CONST = 1.0
AMPLITUDE = 1.0


def attention_sharpness(N: int) -> float:
    r"""The FIRST construction's position-0 score :math:`\beta = \ln N + 2`."""
    return math.log(N) + 2.0


def construction_config(N: int, *, F: int | None = None, eps: float = 0.0) -> TransformerConfig:
    """The shared shape of the constructions at length ``N``: D = 6, L = 1, H = 1,
    F = max(N, 2) unless given (PARITY needs F >= N), N_max = N, the boolverify preset."""
    N = check_int(N, "N", lo=1)
    F = max(N, 2) if F is None else check_int(F, "F", lo=2)
    return TransformerConfig(D=WIDTH, L=1, H=1, F=F, eps=eps, N_max=N)


def phi(s, K: float = K_CONST):
    r""":math:`\varphi(s) = s/\sqrt{(s^2 + K^2)/3}`, the first LN's channel 0 (float64 tensor)."""
    s = torch.as_tensor(s, dtype=torch.float64)
    return s / torch.sqrt((s * s + K * K) / 3.0)


@dataclass(frozen=True)
class Construction:
    r"""The explicit construction of one Boolean function (module docstring): what differs between
    the constructions; the shared channels, values, output projection and readout are set by
    :func:`construct`. A function is given a construction by adding one entry to
    :data:`CONSTRUCTIONS`, keyed by its name in ``numeric.boolean.BOOLEAN_FUNCTIONS``.

    Attributes:
        name: the function's name.
        units: ``units(N)``: the MLP units the construction uses (``F`` must be at least that).
        attention: ``attention(model, N)``: sets the attention that forms the statistic ``s``
            at eos; None for uniform attention (:math:`W_q = W_k = 0`, :math:`s = |x|/(N+1)`).
        mlp: ``mlp(layer, N)``: sets the MLP's :math:`p(\varphi)` on channel 4 of the output
            projection (:func:`construct` copies it, negated, into channel 5).
    """

    name: str
    units: Callable
    attention: Callable | None
    mlp: Callable


def _position_zero_marker(model, N):
    # the score is beta at position 0 (the marker of channel 4) and 0 elsewhere
    lay = model.layers[0]
    model.pos[0, 4] = 1.0
    lay.q.bias[4] = attention_sharpness(N) * math.sqrt(WIDTH)
    lay.k.weight[4, 4] = 1.0


def _threshold_mlp(s_star):
    r"""Two units, :math:`p = A(\varphi - \varphi_*)` with :math:`\varphi_* = \varphi(s_*(N))`."""
    def mlp(lay, N):
        t = float(phi(s_star(N)))
        lay.fc1.weight[0, 0], lay.fc1.bias[0] = 1.0, -t
        lay.fc1.weight[1, 0], lay.fc1.bias[1] = -1.0, t
        lay.fc2.weight[4, 0], lay.fc2.weight[4, 1] = AMPLITUDE, -AMPLITUDE
    return mlp


def _zigzag_mlp(lay, N):
    r"""``N`` units interpolating :math:`p(\varphi_k) = A(-1)^{k+1}` at every weight ``k``."""
    A = AMPLITUDE
    phis = phi(torch.arange(N + 1, dtype=torch.float64) / (N + 1))
    vals = A * torch.tensor([1.0 if k % 2 else -1.0 for k in range(N + 1)], dtype=torch.float64)
    slopes = (vals[1:] - vals[:-1]) / (phis[1:] - phis[:-1])  # m_0 .. m_{N-1}
    # unit 0: phi - phi_0 + 1 (active on every input), slope m_0
    lay.fc1.weight[0, 0], lay.fc1.bias[0] = 1.0, -float(phis[0]) + 1.0
    lay.fc2.weight[4, 0] = slopes[0]
    lay.fc2.bias[4] = vals[0] - slopes[0]
    for k in range(1, N):
        lay.fc1.weight[k, 0], lay.fc1.bias[k] = 1.0, -float(phis[k])
        lay.fc2.weight[4, k] = slopes[k] - slopes[k - 1]


#: The explicit constructions, keyed by the name of the function each computes.
CONSTRUCTIONS = {
    "first": Construction("first", units=lambda N: 2, attention=_position_zero_marker,
                          mlp=_threshold_mlp(lambda N: 0.5)),
    # strict: |x| > N/2 iff |x| >= floor(N/2) + 1
    "majority": Construction("majority", units=lambda N: 2, attention=None,
                             mlp=_threshold_mlp(lambda N: (N // 2 + 0.5) / (N + 1))),
    "parity": Construction("parity", units=lambda N: N, attention=None, mlp=_zigzag_mlp),
}
#: The functions with an explicit construction.
CONSTRUCTED = tuple(CONSTRUCTIONS)


def construction_of(name) -> Construction:
    """The :class:`Construction` of ``name``; :class:`InputError` listing the constructed
    functions for any other name."""
    check_choice(name, "function", CONSTRUCTED)
    return CONSTRUCTIONS[name]


@torch.no_grad()
def construct(name: str, N: int, *, F: int | None = None, eps: float = 0.0) -> BooleanTransformer:
    """A :class:`BooleanTransformer` computing ``name`` (one of :data:`CONSTRUCTED`) exactly on
    all strings of length ``N`` (module docstring)."""
    construction = construction_of(name)
    N = check_int(N, "N", lo=1)
    eps = check_real(eps, "eps", lo=0)
    if eps > 0:
        # eps changes phi; the thresholds below assume eps = 0 (the regime of SG-9)
        reject("eps", eps, "0 (the constructions are derived at eps = 0)")
    cfg = construction_config(N, F=F)
    units = construction.units(N)
    if cfg.F < units:
        reject("F", cfg.F, f"an integer >= {units} ({name}'s construction has {units} MLP units)")
    model = BooleanTransformer(cfg)
    for p in model.parameters():
        p.zero_()
    lay = model.layers[0]
    for ln in (lay.ln1, lay.ln2):
        ln.gain.fill_(1.0)
    K = K_CONST
    model.tok[1, 0] = 1.0
    model.tok[2, 2] = K
    model.tok[2, 3] = -K
    lay.v.weight[0, 0] = 1.0
    lay.o.weight[0, 0] = 1.0
    lay.o.weight[1, 0] = -1.0
    if construction.attention is not None:
        construction.attention(model, N)
    construction.mlp(lay, N)
    # p (e_4 - e_5): copy row 4 of the output projection, negated, into row 5
    lay.fc2.weight[5] = -lay.fc2.weight[4]
    lay.fc2.bias[5] = -lay.fc2.bias[4]
    model.out.weight[0, 4] = 1.0
    model.out.weight[0, 5] = -1.0
    return model
