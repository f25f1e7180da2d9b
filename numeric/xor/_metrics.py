r"""What one step did: attention on the support, specialisation, sup-loss bound, exact sup,
and the :math:`\eta \to \infty` limit of the step (as formalised in boolverify, docs/claims.md).

All functions take the model arguments of :mod:`numeric.xor` and return tensors over the
batch shape.
"""

from __future__ import annotations

import torch

from numeric.xor._attention import attention_map_of, limit_of
from numeric.validation import check_bool, check_real, reject
from numeric.xor._forms import ClosedFormState
from numeric.xor._population import check_model, head_logits, population_grad

MAX_EXACT_SUP_D = 20
_CHUNK_ELEMS = 1 << 22      # entries of one (inputs x batch) block in the exact sup


def limit_step_attention(V, theta, theta_tilde, support, attention="softmax", limit_from=None):
    r"""Attention after one step in the limit :math:`\eta \to \infty`.

    The post-step logits are :math:`V\theta - \eta V\nabla_\theta L`; as :math:`\eta\to\infty`
    only the direction :math:`s = -V\nabla_\theta L` matters:

    - softmax: all weight on :math:`\arg\max_i s_i` (exact ties split evenly);
    - erf: :math:`\gamma_i \to \mathrm{sign}(s_i)/d`;
    - linear: no limit (the weights grow without bound): :class:`InputError`.

    Args: as :func:`numeric.xor.population_loss`; ``limit_from``: the gradient
    ``(grad_theta, grad_theta_tilde)`` of the step where the caller already has it (as in
    :func:`numeric.xor.stream_step_metrics`); default :func:`population_grad` at ``theta``.

    Returns:
        ``(gamma_1, gamma_tilde_1)``, each ``(*batch, d)``.
    """
    limit = limit_of(attention_map_of(attention))
    if limit_from is None:
        # through the public gradient (which checks the name a second time): the limit is the
        # gradient's, whatever computes it
        g, gt = population_grad(V, theta, theta_tilde, support, attention)
    else:
        if not isinstance(limit_from, (tuple, list)) or len(limit_from) != 2:
            reject("limit_from", f"<{type(limit_from).__name__}>",
                   "a pair (grad_theta, grad_theta_tilde)")
        check_model(V, theta, theta_tilde, support)
        check_model(V, limit_from[0], limit_from[1], support)
        g, gt = limit_from
    out = []
    for grad in (g, gt):
        s = -torch.matmul(grad.unsqueeze(-2), V.mT).squeeze(-2)     # (*batch, d)
        out.append(limit(s, s.shape[-1]))
    return out[0], out[1]


def predicted_assignment(V, theta, support):
    r"""The head-to-target assignment the initialisation predicts:
    :math:`\mathrm{sign}((v_a - v_b)\cdot\theta^{(0)})`, ``+1`` for head 1 on ``a`` (and head 2
    on ``b``), ``-1`` for the swap; compare with ``step_metrics(...)["assignment"]``.

    Args: ``V`` ``(*batch, d, m)``, ``theta`` ``(*batch, m)``, ``support`` ``(a, b)``.

    Returns:
        a ``(*batch,)`` tensor of ``+1.0`` / ``-1.0`` (``0.0`` on an exact tie), in ``V``'s dtype.
    """
    a, b = support
    return torch.sign(((V[..., a, :] - V[..., b, :]) * theta).sum(-1))


def _inputs(start, stop, d, dtype, device):
    """Rows ``x`` in ``{±1}^d`` with ``x_0 = +1``, bits 1..d-1 from the integers start..stop-1."""
    k = torch.arange(start, stop, device=device, dtype=torch.int64)
    shifts = torch.arange(d - 1, device=device, dtype=torch.int64)
    bits = (k[:, None] >> shifts) & 1
    X = torch.ones(stop - start, d, dtype=dtype, device=device)
    X[:, 1:] = 1 - 2 * bits.to(dtype)
    return X


def sup_over_inputs(U, Ut, p, q):
    r""":math:`\max_{x\in\{\pm1\}^d} |f(x) - y(x)|` from the residuals, by enumeration.

    With :math:`\gamma = e_p + u`, :math:`\tilde\gamma = e_q + \tilde u` (``{p, q} = {a, b}``),
    :math:`f - y = -x_p(\tilde u\cdot x) - x_q(u\cdot x) - (u\cdot x)(\tilde u\cdot x)`: no
    cancellation near a solution. :math:`f - y` is even in :math:`x`, so only :math:`x_0 = +1`
    is enumerated (:math:`2^{d-1}` inputs, in chunks).

    Args:
        U, Ut: residuals, shape ``(B, d)``; p, q: long tensors ``(B,)`` (anchor indices).

    Returns:
        ``(B,)``.
    """
    B, d = U.shape
    total = 1 << (d - 1)
    chunk = max(1, min(total, _CHUNK_ELEMS // max(1, B)))
    best = torch.zeros(B, dtype=U.dtype, device=U.device)
    for start in range(0, total, chunk):
        X = _inputs(start, min(total, start + chunk), d, U.dtype, U.device)
        s, st = X @ U.T, X @ Ut.T                                    # (C, B)
        xp, xq = X[:, p], X[:, q]                                    # (C, B)
        r = -(xp * st) - xq * s - s * st
        best = torch.maximum(best, r.abs().amax(0))
    return best


def step_metrics(V, theta, theta_tilde, support, eps=0.01, attention="softmax", exact_sup=None):
    r"""Specialisation of the two heads at :math:`(\theta, \tilde\theta)` (e.g. after a step).

    Assignment ``+1`` pairs head 1 with ``a`` and head 2 with ``b``; ``-1`` the swap. For it,
    :math:`\epsilon_1 = 1 - \gamma_p`, :math:`\epsilon_2 = 1 - \tilde\gamma_q` (softmax: computed
    as :math:`\sum_{j\ne p}\gamma_j`, exact for tiny values); for linear/erf the share
    :math:`\gamma_p/\|\gamma\|_1` replaces :math:`\gamma_p`. The assignment with the smaller
    :math:`(1 + 2\epsilon_1)(1 + 2\epsilon_2)` is reported.

    Returns a dict of tensors over the batch:

    - ``attn_a_head1, attn_b_head1, attn_a_head2, attn_b_head2``: :math:`\gamma_a, \gamma_b,
      \tilde\gamma_a, \tilde\gamma_b`;
    - ``eps1, eps2``; ``assignment`` (+1 / -1, int64); ``success``:
      :math:`\max(\epsilon_1, \epsilon_2) \le \epsilon`;
    - ``loss``: :func:`numeric.xor.population_loss`;
    - ``sup_bound``: :math:`2\epsilon_2 + 2\epsilon_1 + 4\epsilon_1\epsilon_2 \ge \sup_x|f - y|`
      (softmax; for linear/erf the general bound
      :math:`|1 - \gamma_p\tilde\gamma_q| + |\gamma_p| r_2 + |\tilde\gamma_q| r_1 + r_1 r_2`,
      :math:`r_1 = \sum_{j\ne p}|\gamma_j|`, :math:`r_2 = \sum_{j\ne q}|\tilde\gamma_j|`);
    - ``sup_exact``: :math:`\max_x |f(x) - y(x)|` over all :math:`2^d` inputs, present when
      ``d <= 20`` and ``exact_sup`` is not False (``exact_sup=True`` with ``d > 20`` raises).

    Args:
        eps: threshold in (0, 0.5). exact_sup: None (auto), True or False. Others: as
        :func:`numeric.xor.population_loss`.
    """
    eps = check_real(eps, "eps", lo=0, hi=0.5, lo_open=True, hi_open=True)
    if exact_sup is not None:
        check_bool(exact_sup, "exact_sup")
    amap = attention_map_of(attention)
    a, b, batch = check_model(V, theta, theta_tilde, support)
    d = V.shape[-2]
    if exact_sup is True and d > MAX_EXACT_SUP_D:
        reject("exact_sup", exact_sup, f"None or False for d = {d}: exact_sup=True needs "
               f"d <= {MAX_EXACT_SUP_D} (2^d inputs)")
    st = ClosedFormState(head_logits(V, theta, theta_tilde, batch), a, b, amap)
    ca, cb = _complements(st, amap)
    plus = (1 + 2 * ca[..., 0]) * (1 + 2 * cb[..., 1])      # head1 <-> a, head2 <-> b
    minus = (1 + 2 * cb[..., 0]) * (1 + 2 * ca[..., 1])
    swap = minus < plus
    eps1 = torch.where(swap, cb[..., 0], ca[..., 0])
    eps2 = torch.where(swap, ca[..., 1], cb[..., 1])
    ga, gb = st.ga, st.gb
    out = {
        "attn_a_head1": ga[..., 0], "attn_b_head1": gb[..., 0],
        "attn_a_head2": ga[..., 1], "attn_b_head2": gb[..., 1],
        "eps1": eps1, "eps2": eps2,
        "success": (eps1 <= eps) & (eps2 <= eps),
        "assignment": torch.where(swap, -1, 1).to(torch.int64),
        "loss": st.loss(),
        "sup_bound": _sup_bound(st, amap, swap, eps1, eps2),
    }
    if exact_sup is not False and d <= MAX_EXACT_SUP_D:
        out["sup_exact"] = _exact_sup(st, amap, swap, a, b).reshape(batch)
    return out


def _complements(st, amap):
    """``(1 - share of a, 1 - share of b)`` per head, each ``(*batch, 2)``."""
    if amap.normalised:
        return st.ca, st.cb                  # 1 - gamma_a, 1 - gamma_b per head
    # theta = 0 is legal and gives gamma = 0: no share on the support (eps = 1, no
    # success) instead of 0/0 = NaN
    l1 = st.Gam.abs().sum(-1)
    pos = l1 > 0
    ca = 1 - torch.where(pos, st.ga / torch.where(pos, l1, 1), 0)
    cb = 1 - torch.where(pos, st.gb / torch.where(pos, l1, 1), 0)
    return ca, cb


def _sup_bound(st, amap, swap, eps1, eps2):
    """Upper bound on ``sup_x |f - y|`` for the chosen assignment (see :func:`step_metrics`)."""
    if amap.normalised:
        return 2 * eps2 + 2 * eps1 + 4 * eps1 * eps2
    ga, gb = st.ga, st.gb
    gp = torch.where(swap, gb[..., 0], ga[..., 0])
    gq = torch.where(swap, ga[..., 1], gb[..., 1])
    l1 = st.Gam.abs().sum(-1)
    # clamp: l1 - |gamma_p| is a sum of |gamma_j| (>= 0); rounding must not make it negative
    r1 = (l1[..., 0] - gp.abs()).clamp_min(0)
    r2 = (l1[..., 1] - gq.abs()).clamp_min(0)
    return (1 - gp * gq).abs() + gp.abs() * r2 + gq.abs() * r1 + r1 * r2


def _exact_sup(st, amap, swap, a, b):
    """``max_x |f(x) - y(x)|`` by enumeration, flattened over the batch."""
    Gam = st.Gam
    d = Gam.shape[-1]
    p = torch.where(swap, b, a).reshape(-1)
    q = torch.where(swap, a, b).reshape(-1)
    U = Gam[..., 0, :].reshape(-1, d).clone()
    Ut = Gam[..., 1, :].reshape(-1, d).clone()
    rows = torch.arange(U.shape[0], device=U.device)
    if amap.normalised:
        # u_p = gamma_p - 1 = -(sum_{j != p} gamma_j): exact near a solution
        U[rows, p] = -torch.where(swap, st.cb[..., 0], st.ca[..., 0]).reshape(-1)
        Ut[rows, q] = -torch.where(swap, st.ca[..., 1], st.cb[..., 1]).reshape(-1)
    else:
        U[rows, p] -= 1
        Ut[rows, q] -= 1
    return sup_over_inputs(U, Ut, p, q)
