"""Example third-party implementations of the two-head model, for `boolverify crossval`.

`population_grad` is correct (softmax attention, plain MSE); `population_grad_dropped_term`
forgets the -4 gamma_i gamma~_i^2 term of dL/dgamma, the kind of slip crossval must catch.

    boolverify crossval xor-grad docs/examples/xor_impl.py:population_grad            # exit 0
    boolverify crossval xor-grad docs/examples/xor_impl.py:population_grad_dropped_term  # exit 1
"""

import numpy as np


def _softmax(z):
    z = z - z.max()
    e = np.exp(z)
    return e / e.sum()


def population_loss(V, theta, theta_tilde, support):
    a, b = support
    g, h = _softmax(V @ theta), _softmax(V @ theta_tilde)
    return (g @ g) * (h @ h) + 2 * (g @ h) ** 2 - 2 * np.sum(g**2 * h**2) - 2 * (g[a] * h[b] + g[b] * h[a]) + 1


def _grads(V, theta, theta_tilde, support, drop=False):
    a, b = support
    g, h = _softmax(V @ theta), _softmax(V @ theta_tilde)
    e_a, e_b = np.eye(len(g))[a], np.eye(len(g))[b]
    dg = 2 * g * (h @ h) + 4 * (g @ h) * h - (0 if drop else 4 * g * h**2) - 2 * (e_a * h[b] + e_b * h[a])
    dh = 2 * h * (g @ g) + 4 * (g @ h) * g - (0 if drop else 4 * h * g**2) - 2 * (e_a * g[b] + e_b * g[a])
    return V.T @ (g * (dg - g @ dg)), V.T @ (h * (dh - h @ dh))


def population_grad(V, theta, theta_tilde, support):
    return _grads(V, theta, theta_tilde, support)


def population_grad_dropped_term(V, theta, theta_tilde, support):
    return _grads(V, theta, theta_tilde, support, drop=True)


def population_grad_raises(V, theta, theta_tilde, support):
    raise RuntimeError("not implemented")


def profile_as_normalised(table):
    """Average sensitivity divided by N, for a 0/1 table (a convention found in public code)."""
    table = np.asarray(table)
    N = int(np.log2(len(table)))
    idx = np.arange(len(table))
    total = sum(np.sum(table != table[idx ^ (1 << n)]) for n in range(N))
    return total / len(table) / N


def profile_off_by_one(table):
    """A profile implementation that forgets the last bit position."""
    table = np.asarray(table)
    N = int(np.log2(len(table)))
    idx = np.arange(len(table))
    s = sum((table != table[idx ^ (1 << n)]).astype(int) for n in range(max(N - 1, 0)))
    return np.bincount(np.atleast_1d(s), minlength=N + 1)[: N + 1]
